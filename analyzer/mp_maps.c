/* mp_maps.c - process maps from MMAP/MMAP2 records per pid, across fork and exec, and the
 * comm of each thread. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_dso.h"
#include "mp_maps.h"
#include "mp_sym_int.h"

static struct mp_proc *proc_get(mp_sym *s, uint32_t pid, int create)
{
	if (pid == s->last_pid)
		return &s->procs[s->last_proc];
	const uint32_t *v = mp_u64map_get(&s->proc_by_pid, pid);
	if (v) {
		s->last_pid = pid;
		s->last_proc = *v;
		return &s->procs[*v];
	}
	if (!create)
		return NULL;
	if (mp_grow((void **)&s->procs, &s->capprocs, s->nprocs + 1, sizeof(struct mp_proc)))
		return NULL;
	int found;
	uint32_t *slot = mp_u64map_slot(&s->proc_by_pid, pid, &found);
	if (!slot)
		return NULL;
	*slot = (uint32_t)s->nprocs;
	struct mp_proc *p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->last = UINT32_MAX;
	s->last_pid = pid;
	s->last_proc = *slot;
	return p;
}

static uint32_t map_new(mp_sym *s, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t dso,
			int kernel)
{
	if (mp_grow((void **)&s->maps, &s->capmaps, s->nmaps + 1, sizeof(struct mp_map)))
		return UINT32_MAX;
	s->maps[s->nmaps] = (struct mp_map){ start, end, pgoff, dso, (uint8_t)kernel };
	return (uint32_t)s->nmaps++;
}

struct map_key {
	const mp_sym *s;
	const uint32_t *maps;
	uint64_t addr;
};

static int ends_at_or_before(const void *ctx, size_t i)
{
	const struct map_key *k = ctx;
	return k->s->maps[k->maps[i]].end <= k->addr;
}

/* The index in maps[n] (sorted map ids) of the first map that ends after addr (n when
 * none). */
static size_t ending_after(const mp_sym *s, const uint32_t *maps, size_t n, uint64_t addr)
{
	struct map_key key = { s, maps, addr };
	return mp_partition_point(0, n, &key, ends_at_or_before);
}

static size_t first_ending_after(const mp_sym *s, const struct mp_proc *p, uint64_t addr)
{
	return ending_after(s, p->maps, p->n, addr);
}

/* Insert a map into a process, cutting away what it overlaps of older maps. */
static int proc_insert(mp_sym *s, struct mp_proc *p, uint32_t id)
{
	struct mp_map nm = s->maps[id];

	/* the maps vector is sorted and non-overlapping: find the first that ends after start */
	size_t i = first_ending_after(s, p, nm.start);
	while (i < p->n && s->maps[p->maps[i]].start < nm.end) {
		struct mp_map om = s->maps[p->maps[i]];
		uint32_t left = UINT32_MAX, right = UINT32_MAX;
		if (om.start < nm.start) {
			left = map_new(s, om.start, nm.start, om.pgoff, om.dso, om.kernel);
			if (left == UINT32_MAX)
				return -ENOMEM;
		}
		if (om.end > nm.end) {
			right = map_new(s, nm.end, om.end, om.pgoff + (nm.end - om.start), om.dso,
					om.kernel);
			if (right == UINT32_MAX)
				return -ENOMEM;
		}
		/* replace entry i by left (if any); right goes after the new map */
		if (left != UINT32_MAX) {
			p->maps[i] = left;
			i++;
		} else {
			memmove(&p->maps[i], &p->maps[i + 1], (p->n - i - 1) * sizeof(uint32_t));
			p->n--;
		}
		if (right != UINT32_MAX) {
			if (mp_grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(uint32_t)))
				return -ENOMEM;
			memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(uint32_t));
			p->maps[i] = right;
			p->n++;
			break; /* right extends past the new map: nothing further overlaps */
		}
	}
	if (mp_grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(uint32_t)))
		return -ENOMEM;
	memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(uint32_t));
	p->maps[i] = id;
	p->n++;
	p->last = UINT32_MAX;
	return 0;
}

int mp_sym_mmap(mp_sym *s, const struct mp_pd_mmap *m)
{
	s->gen++;
	s->lk_end = 0;
	int kernel = m->cpumode == PERF_RECORD_MISC_KERNEL ||
		     m->cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	const char *fn = m->filename ? m->filename : "";

	if (!m->len)
		return 0;
	if (m->prot && !(m->prot & PROT_EXEC))
		return 0;
	char jit[40];
	if (!kernel)
		fn = mp_dso_jit_path(s, fn, m->pid, jit, sizeof(jit));
	uint32_t d = mp_dso_get(s, fn, kernel);
	if (d == UINT32_MAX)
		return -ENOMEM;
	if (m->has_build_id && m->build_id_len && !s->dsos[d].info.build_id_len) {
		size_t n = m->build_id_len <= 20 ? m->build_id_len : 20;
		memcpy(s->dsos[d].info.build_id, m->build_id, n);
		s->dsos[d].info.build_id_len = (uint8_t)n;
	}
	uint64_t end = m->start + m->len;
	if (end < m->start)
		end = UINT64_MAX;
	uint32_t id = map_new(s, m->start, end, m->pgoff, d, kernel);
	if (id == UINT32_MAX)
		return -ENOMEM;
	struct mp_proc *p = proc_get(s, kernel ? MP_KERNEL_PID : m->pid, 1);
	if (!p)
		return -ENOMEM;
	return proc_insert(s, p, id);
}

static uint64_t tidkey(uint32_t pid, uint32_t tid)
{
	(void)pid;
	return tid;
}

int mp_sym_comm(mp_sym *s, const struct mp_pd_task *t)
{
	s->gen++;
	s->lk_end = 0;
	uint32_t id = mp_sym_intern(s, t->comm ? t->comm : "");
	if (id == UINT32_MAX)
		return -ENOMEM;
	int found;
	uint32_t *slot = mp_u64map_slot(&s->comm_by_tid, tidkey(t->pid, t->tid), &found);
	if (!slot)
		return -ENOMEM;
	*slot = id;
	if (t->exec) {
		/* the old program's maps stay for the samples still inside execve */
		struct mp_proc *p = proc_get(s, t->pid, 0);
		if (p) {
			free(p->old);
			p->old = p->maps;
			p->nold = p->n;
			p->maps = NULL;
			p->n = p->cap = 0;
			p->last = UINT32_MAX;
		}
	}
	return 0;
}

int mp_sym_fork(mp_sym *s, const struct mp_pd_task *t)
{
	s->gen++;
	s->lk_end = 0;
	/* the child thread starts with the parent's comm */
	const uint32_t *pc = mp_u64map_get(&s->comm_by_tid, tidkey(t->ppid, t->ptid));
	if (pc) {
		uint32_t c = *pc;
		int found;
		uint32_t *slot = mp_u64map_slot(&s->comm_by_tid, tidkey(t->pid, t->tid), &found);
		if (!slot)
			return -ENOMEM;
		*slot = c;
	}
	if (t->pid == t->ppid)
		return 0; /* a new thread shares its process's maps */
	struct mp_proc *pp = proc_get(s, t->ppid, 0);
	if (!pp || !pp->n)
		return 0;
	const uint32_t *maps = pp->maps; /* stays where it is */
	size_t n = pp->n;
	struct mp_proc *c = proc_get(s, t->pid, 1); /* may move the procs array */
	if (!c)
		return -ENOMEM;
	c->last = UINT32_MAX;
	return MP_ARRAY_COPY(c->maps, c->n, c->cap, maps, n);
}

int mp_sym_exit(mp_sym *s, const struct mp_pd_task *t)
{
	s->gen++;
	/* maps stay: samples may still arrive out of order for an exited task */
	(void)s;
	(void)t;
	return 0;
}

static uint32_t map_find_slow(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip);

uint32_t mp_sym_map_find(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	if (ip >= s->lk_start && ip < s->lk_end && pid == s->lk_pid && cpumode == s->lk_cpumode)
		return s->lk_map;
	uint32_t m = map_find_slow(s, pid, cpumode, ip);
	if (m != MP_SYM_NO_MAP) {
		s->lk_pid = pid;
		s->lk_cpumode = cpumode;
		s->lk_map = m;
		s->lk_start = s->maps[m].start;
		s->lk_end = s->maps[m].end;
	}
	return m;
}

static uint32_t map_find_slow(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	struct mp_proc *p;

	if (cpumode == PERF_RECORD_MISC_KERNEL)
		p = proc_get(s, MP_KERNEL_PID, 0);
	else if (cpumode == PERF_RECORD_MISC_USER)
		p = proc_get(s, pid, 0);
	else
		return MP_SYM_NO_MAP;
	if (!p || (!p->n && !p->nold))
		return MP_SYM_NO_MAP;
	if (p->last != UINT32_MAX) {
		const struct mp_map *m = &s->maps[p->maps[p->last]];
		if (ip >= m->start && ip < m->end)
			return p->maps[p->last];
	}
	size_t lo = first_ending_after(s, p, ip);
	if (lo < p->n && s->maps[p->maps[lo]].start <= ip) {
		p->last = (uint32_t)lo;
		if (p->nold && cpumode == PERF_RECORD_MISC_USER) {
			/* the new program runs: the old maps are gone for good */
			free(p->old);
			p->old = NULL;
			p->nold = 0;
			s->gen++;
		}
		return p->maps[lo];
	}
	lo = ending_after(s, p->old, p->nold, ip);
	if (lo < p->nold && s->maps[p->old[lo]].start <= ip)
		return p->old[lo];
	return MP_SYM_NO_MAP;
}

const char *mp_sym_comm_of(mp_sym *s, uint32_t pid, uint32_t tid)
{
	const uint32_t *v = mp_u64map_get(&s->comm_by_tid, tidkey(pid, tid));
	if (v && *v)
		return s->strs[*v];
	char buf[24];
	/* the idle task, never named by a COMM record: "swapper" as perf calls it; others
	 * ":TID", signed as perf prints it (-1: a task that had exited when sampled) */
	snprintf(buf, sizeof(buf), tid || pid ? ":%d" : "swapper", (int32_t)tid);
	return mp_sym_intern_str(s, buf);
}

uint32_t mp_sym_comm_id(mp_sym *s, uint32_t pid, uint32_t tid)
{
	const uint32_t *v = mp_u64map_get(&s->comm_by_tid, tidkey(pid, tid));
	if (v && *v)
		return *v;
	char buf[24];
	snprintf(buf, sizeof(buf), tid || pid ? ":%d" : "swapper", (int32_t)tid);
	uint32_t id = mp_sym_intern(s, buf);
	return id == UINT32_MAX ? 0 : id;
}

const char *mp_sym_comm_name(const mp_sym *s, uint32_t comm_id)
{
	return comm_id < s->nstrs ? s->strs[comm_id] : "";
}


uint64_t mp_sym_generation(const mp_sym *s)
{
	return s->gen;
}
