/* mp_sim_write.c - a simulated run as a perf.data file, through the collector's writer:
 * one attr per event, COMM and MMAP2 records of each process and object, one sample per
 * instruction and event whose period is the instruction's exact count (with -g, the call
 * chains spread over callgrind's call graph), the exact totals and memprof's meta keys.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mp_sim_int.h"

/* ---- objects: where the samples' addresses live ------------------------------------- */

struct sim_seg {
	uint64_t start, len, pgoff; /* the MMAP2 record */
};

struct sim_obj {
	const char *path;
	uint64_t bias;
	int elf_ok;
	struct sim_seg segs[8];
	int nsegs;
	struct stat st;
};

/* The executable PT_LOAD segments of a 64-bit ELF file, page-aligned as the kernel maps
 * them, so that ip -> (start, pgoff) -> file offset -> ELF vaddr holds for symbolizers. */
static int elf_exec_segments(const char *path, struct sim_obj *o, uint16_t *etype)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &o->st) || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		goto out;
	*etype = eh.e_type;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	for (unsigned i = 0; i < eh.e_phnum && o->nsegs < 8; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		uint64_t start = ph.p_vaddr & ~(pg - 1);
		uint64_t end = (ph.p_vaddr + ph.p_memsz + pg - 1) & ~(pg - 1);
		o->segs[o->nsegs].start = start;
		o->segs[o->nsegs].len = end - start;
		o->segs[o->nsegs].pgoff = ph.p_offset & ~(pg - 1);
		o->nsegs++;
	}
	rc = o->nsegs ? 0 : -1;
out:
	close(fd);
	return rc;
}

/* ---- perf.data records -------------------------------------------------------------- */

struct sim_sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, id, period;
};

static int write_comm_tid(mp_pdw *w, uint32_t pid, uint32_t tid, const char *comm)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[24];
	} r;
	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_COMM;
	r.h.misc = pid == tid ? PERF_RECORD_MISC_COMM_EXEC : 0;
	r.pid = pid;
	r.tid = tid;
	snprintf(r.comm, 16, "%s", comm); /* the kernel's TASK_COMM_LEN */
	size_t len = 8 + 8 + ((strlen(r.comm) + 1 + 7) & ~(size_t)7);
	r.h.size = (uint16_t)len;
	return mp_pdw_write(w, &r, len);
}

static int write_comm(mp_pdw *w, uint32_t pid, const char *comm)
{
	return write_comm_tid(w, pid, pid, comm);
}

static int write_mmap2(mp_pdw *w, uint32_t pid, const struct sim_obj *o, const struct sim_seg *s)
{
	size_t flen = strlen(o->path) + 1;
	size_t len = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 + 4 + 4 + 8 + 8 + 4 + 4 +
		     ((flen + 7) & ~(size_t)7);
	if (len > 65535)
		return 0; /* a path longer than a record can hold: its samples stay unresolved */
	uint8_t *r = calloc(1, len), *p = r;
	if (!r)
		return -ENOMEM;
	struct perf_event_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)len };
	uint32_t u32;
	uint64_t u64;
#define PUT(v) (memcpy(p, &(v), sizeof(v)), p += sizeof(v))
	PUT(h);
	PUT(pid);
	PUT(pid);
	u64 = o->bias + s->start; PUT(u64);
	PUT(s->len);
	PUT(s->pgoff);
	u32 = major(o->st.st_dev); PUT(u32);
	u32 = minor(o->st.st_dev); PUT(u32);
	u64 = o->st.st_ino; PUT(u64);
	u64 = 0; PUT(u64); /* ino_generation */
	u32 = PROT_READ | PROT_EXEC; PUT(u32);
	u32 = MAP_PRIVATE; PUT(u32);
#undef PUT
	memcpy(p, o->path, flen);
	int rc = mp_pdw_write(w, r, len);
	free(r);
	return rc;
}

static void geom_str(const struct mp_sim_cache *c, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ",%u,%u", c->size, c->assoc, c->line);
}

/* Every quantity the events sum must be in the callgrind output. */
static int sim_check_quantities(const struct mp_sim_opts *o, const mp_sim_profile *p,
				struct mp_err *err)
{
	for (size_t i = 0; i < o->nevents; i++)
		for (int q = 0; q < MP_SIM_NQ; q++)
			if ((o->events[i].mask & (1u << q)) && !mp_sim_profile_has(p, q))
				return mp_err_set(err, -MP_ENOTSUP,
						  "event '%s': the callgrind output has no %s counts",
						  o->events[i].spec, mp_sim_quantity_name(q));
	return 0;
}

/* Where each object of the profile lives: valgrind's load bias, its executable segments. */
static void sim_place_objects(const mp_sim_profile *p, const struct mp_sim_load *loads,
			      size_t nloads, struct sim_obj *objs, size_t nobj)
{
	uint64_t synth = 0x7f0000000000ULL;
	for (size_t i = 0; i < nobj; i++) {
		struct sim_obj *so = &objs[i];
		uint16_t etype = 0;
		int found = 0;
		so->path = mp_sim_profile_obj(p, i);
		for (size_t k = 0; k < nloads; k++)
			if (!strcmp(loads[k].path, so->path)) {
				so->bias = loads[k].bias;
				found = 1;
				break;
			}
		/* "???" (addresses callgrind could not place, already absolute) and objects we
		 * cannot read get no MMAP2: their samples stay unresolved, but counted. */
		if (so->path[0] != '/' || elf_exec_segments(so->path, so, &etype)) {
			so->nsegs = 0;
			continue;
		}
		so->elf_ok = 1;
		/* Without valgrind's word on it, a position-independent object goes to a
		 * synthetic base; MMAP2 and sample IPs agree on it. */
		if (!found && etype == ET_DYN) {
			so->bias = synth;
			synth += 1ULL << 32;
		}
	}
}

/* With memory samples every attr has their layout (perf wants the sample id at one
 * place in all of a file's samples). */
#define SIM_MEM_SAMPLE_TYPE                                                                   \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |                \
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |           \
	 PERF_SAMPLE_DATA_SRC)

/* The memory events' names, as perf c2c record and perf mem record name them on Intel,
 * and their encodings (MEM_TRANS_RETIRED.LOAD_LATENCY, MEM_INST_RETIRED.ALL_STORES). */
static void sim_mem_name(const struct mp_sim_opts *o, int store, char *buf, size_t len)
{
	if (store)
		snprintf(buf, len, "cpu/mem-stores/P");
	else
		snprintf(buf, len, "cpu/mem-loads,ldlat=%u/P", o->ldlat);
}

/* One attr per event (id 1000 + i), then with memory samples mem-loads and mem-stores;
 * the first carries mmap/comm. */
static int sim_add_attrs(const struct mp_sim_opts *o, mp_pdw *w, uint64_t *ids, int *attr_idx,
			 struct mp_err *err)
{
	size_t nattr = o->nevents + (o->mem_period ? 2 : 0);
	for (size_t i = 0; i < nattr; i++) {
		struct perf_event_attr a;
		char mname[64];
		const char *name = NULL, *spec = NULL;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		if (i < o->nevents) {
			a.type = o->events[i].type;
			a.config = o->events[i].config;
			a.sample_period = 1;
			name = o->events[i].name;
			spec = o->events[i].spec;
		} else {
			int store = i > o->nevents;
			sim_mem_name(o, store, mname, sizeof(mname));
			a.type = PERF_TYPE_RAW;
			a.config = store ? 0x82d0 : 0x1cd;
			a.config1 = store ? 0 : o->ldlat;
			a.sample_period = o->mem_period;
			name = spec = mname;
		}
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				PERF_SAMPLE_PERIOD;
		if (o->mem_period)
			a.sample_type = SIM_MEM_SAMPLE_TYPE;
		if (o->callgraph)
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				PERF_FORMAT_ID;
		a.disabled = 1;
		a.enable_on_exec = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		/* The counts belong to the very instruction that caused them: zero skid, so
		 * that annotators do not move them back an instruction as for interrupts. */
		a.precise_ip = 3;
		if (i == 0) {
			a.mmap = 1;
			a.comm = 1;
			a.mmap2 = 1;
			a.comm_exec = 1;
		}
		ids[i] = 1000 + i;
		attr_idx[i] = mp_pdw_add_attr(w, &a, &ids[i], 1, name, spec);
		if (attr_idx[i] < 0)
			return mp_err_set(err, attr_idx[i], "%s: cannot add event '%s': %s",
					  o->output, name, mp_strerror(attr_idx[i]));
	}
	return 0;
}

/* COMM of the workload (argv[0]'s basename, else the profile's cmd: line) and MMAP2 per
 * executable segment of every object. */
static int sim_write_tasks(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w,
			   const struct sim_obj *objs, size_t nobj, int several)
{
	uint32_t pid = mp_sim_profile_pid(p);
	char comm[256];
	int rc;
	if (o->argv && o->argv[0] && !several)
		snprintf(comm, sizeof(comm), "%s", mp_sim_basename(o->argv[0]));
	else {
		const char *cmd = mp_sim_profile_cmd(p);
		while (*cmd == ' ')
			cmd++;
		snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(cmd, " "), cmd);
		memmove(comm, mp_sim_basename(comm), strlen(mp_sim_basename(comm)) + 1);
	}
	if ((rc = write_comm(w, pid, comm)))
		return rc;
	for (size_t i = 0; i < nobj; i++)
		for (int s = 0; s < objs[i].nsegs; s++)
			if ((rc = write_mmap2(w, pid, &objs[i], &objs[i].segs[s])))
				return rc;
	return 0;
}

/* ---- call chains from callgrind's call graph (record --sim -g) ----
 *
 * callgrind gives each function's self cost per instruction and, per call site, the call's
 * inclusive cost; not whole stacks. A cost of function F is spread over F's callers in
 * proportion to their calls' inclusive cost of the same event, and so on up to a function
 * nobody calls (as gprof and callgrind_annotate --tree do): exact wherever a function has
 * one caller, and the parts of a cost always add up to the cost. */

#define SIM_CG_MAX_DEPTH 127
#define SIM_CG_MAX_PATHS 64

struct sim_cg {
	const mp_sim_profile *p;
	const struct sim_obj *objs;
	size_t *in_first, *in_next; /* incoming calls of each function: a linked list */
	size_t nfns;
};

struct sim_path {
	double w;
	size_t n;
	uint64_t ips[SIM_CG_MAX_DEPTH];
};

struct sim_paths {
	struct sim_path *v;
	size_t n;
	uint32_t mask; /* the event's quantities */
};

static uint64_t call_value(const struct mp_sim_call *c, uint32_t mask)
{
	uint64_t v = 0;
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (mask & (1u << q))
			v += c->v[q];
	return v;
}

static void sim_paths_add(struct sim_paths *ps, const struct sim_path *cur)
{
	if (ps->n < SIM_CG_MAX_PATHS) {
		ps->v[ps->n++] = *cur;
		return;
	}
	/* full: the lightest path gives way, its weight goes to the heaviest kept */
	size_t lo = 0, hi;
	for (size_t i = 1; i < ps->n; i++)
		if (ps->v[i].w < ps->v[lo].w)
			lo = i;
	hi = lo ? 0 : 1;
	for (size_t i = 0; i < ps->n; i++)
		if (i != lo && ps->v[i].w > ps->v[hi].w)
			hi = i;
	if (cur->w > ps->v[lo].w) {
		ps->v[hi].w += ps->v[lo].w;
		ps->v[lo] = *cur;
	} else {
		ps->v[hi].w += cur->w;
	}
}

/* Walk from function fn (its frame already in cur) up through its callers. onpath marks
 * the functions of cur (recursion ends a path). */
static void sim_paths_up(const struct sim_cg *g, struct sim_paths *ps, struct sim_path *cur,
			 uint32_t fn, unsigned char *onpath)
{
	const struct mp_sim_call *calls = mp_sim_profile_calls(g->p);
	uint64_t total = 0;
	if (fn < g->nfns && cur->n < SIM_CG_MAX_DEPTH)
		for (size_t e = g->in_first[fn]; e != SIZE_MAX; e = g->in_next[e])
			if (calls[e].caller < g->nfns && !onpath[calls[e].caller])
				total += call_value(&calls[e], ps->mask);
	if (!total) {
		sim_paths_add(ps, cur);
		return;
	}
	double w = cur->w;
	for (size_t e = g->in_first[fn]; e != SIZE_MAX; e = g->in_next[e]) {
		const struct mp_sim_call *c = &calls[e];
		uint64_t v = c->caller < g->nfns && !onpath[c->caller] ? call_value(c, ps->mask) : 0;
		if (!v)
			continue;
		cur->w = w * (double)v / (double)total;
		if (cur->w < w * 1e-9)
			continue;
		cur->ips[cur->n++] = g->objs[c->obj].bias + c->addr;
		onpath[c->caller] = 1;
		sim_paths_up(g, ps, cur, c->caller, onpath);
		onpath[c->caller] = 0;
		cur->n--;
	}
	cur->w = w;
}

/* The cost v split over the paths in proportion to their weights, the parts summing to v.
 * carry[] holds each path's rounding error from the function's previous cost lines (the
 * lines of one function come one after the other, with the same paths), so that what a
 * path gets over the whole function is its exact share to within one. */
static void sim_paths_split(const struct sim_paths *ps, uint64_t v, uint64_t *part,
			    double *carry)
{
	double tw = 0;
	uint64_t given = 0;
	for (size_t i = 0; i < ps->n; i++)
		tw += ps->v[i].w;
	for (size_t i = 0; i < ps->n; i++) {
		double x = (tw > 0 ? (double)v * ps->v[i].w / tw : 0) + carry[i];
		part[i] = x > 0 ? (uint64_t)x : 0;
		if (part[i] > v - given)
			part[i] = v - given;
		given += part[i];
		carry[i] = x;
	}
	while (given < v) {
		size_t best = 0;
		for (size_t i = 1; i < ps->n; i++)
			if (carry[i] - (double)part[i] > carry[best] - (double)part[best])
				best = i;
		part[best]++;
		given++;
	}
	for (size_t i = 0; i < ps->n; i++)
		carry[i] -= (double)part[i];
}

/* A sample in the memory layout (SIM_MEM_SAMPLE_TYPE); r NULL for an exact count. */
static int sim_write_mem_sample(mp_pdw *w, uint64_t ip, uint32_t pid, uint32_t tid, uint64_t t,
				uint64_t id, uint64_t period, const struct mp_sim_memrec *r)
{
	static const struct mp_datasrc na = { .op = PERF_MEM_OP_NA, .lvl = PERF_MEM_LVL_NA,
					      .snoop = PERF_MEM_SNOOP_NA, .lock = PERF_MEM_LOCK_NA,
					      .dtlb = PERF_MEM_TLB_NA,
					      .lvl_num = PERF_MEM_LVLNUM_NA };
	uint64_t rec[1 + 9];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(rec) };
	memcpy(&rec[0], &h, sizeof(h));
	rec[1] = ip;
	rec[2] = (uint64_t)tid << 32 | pid;
	rec[3] = t;
	rec[4] = r ? r->addr : 0;
	rec[5] = id;
	rec[6] = r ? r->cpu : 0; /* cpu, then res 0 */
	rec[7] = period;
	rec[8] = r ? r->weight : 0;
	rec[9] = r ? mp_sim_mem_datasrc(r) : mp_datasrc_encode(&na);
	return mp_pdw_write(w, rec, sizeof(rec));
}

static int sim_write_sample(const struct mp_sim_opts *o, mp_pdw *w, uint64_t ip, uint32_t pid,
			    uint64_t t, uint64_t id, uint64_t period, const struct sim_path *path)
{
	if (o->mem_period)
		return sim_write_mem_sample(w, ip, pid, pid, t, id, period, NULL);
	struct sim_sample s = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
		.ip = ip, .pid = pid, .tid = pid, .time = t, .id = id, .period = period,
	};
	if (!path)
		return mp_pdw_write(w, &s, sizeof(s));
	uint64_t buf[sizeof(s) / 8 + 2 + SIM_CG_MAX_DEPTH];
	size_t nr = 1 + path->n; /* PERF_CONTEXT_USER, then the frames (leaf = ip) */
	s.h.size = (uint16_t)(sizeof(s) + 8 * (1 + nr));
	memcpy(buf, &s, sizeof(s));
	size_t k = sizeof(s) / 8;
	buf[k++] = nr;
	buf[k++] = (uint64_t)PERF_CONTEXT_USER;
	for (size_t i = 0; i < path->n; i++)
		buf[k++] = path->ips[i];
	return mp_pdw_write(w, buf, 8 * k);
}

/* One sample per (cost line, event) with a non-zero sum (with -g, one per caller path of
 * the cost's function, the parts summing to the cost), written by process (the exact totals: sim_write_counts). */
static int sim_write_samples(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w,
			     const struct sim_obj *objs, const uint64_t *ids, uint64_t *totals,
			     uint64_t *time, struct mp_sim_result *res)
{
	const struct mp_sim_cost *costs = mp_sim_profile_costs(p);
	size_t nc = mp_sim_profile_ncosts(p);
	uint32_t pid = mp_sim_profile_pid(p);
	uint64_t t = *time;
	int rc = 0;
	struct sim_cg g = { .p = p, .objs = objs, .nfns = mp_sim_profile_nfns(p) };
	struct sim_paths ps = { 0 };
	struct sim_path *cur = NULL;
	unsigned char *onpath = NULL;
	uint64_t *part = NULL;
	double *carry = NULL;       /* [nevents][SIM_CG_MAX_PATHS] */
	uint32_t *carry_fn = NULL;  /* [nevents]: the function carry[] is about */
	if (o->callgraph) {
		size_t ncalls = mp_sim_profile_ncalls(p);
		const struct mp_sim_call *calls = mp_sim_profile_calls(p);
		g.in_first = malloc((g.nfns ? g.nfns : 1) * sizeof(*g.in_first));
		g.in_next = malloc((ncalls ? ncalls : 1) * sizeof(*g.in_next));
		ps.v = malloc(SIM_CG_MAX_PATHS * sizeof(*ps.v));
		cur = malloc(sizeof(*cur));
		onpath = calloc(g.nfns ? g.nfns : 1, 1);
		part = malloc(SIM_CG_MAX_PATHS * sizeof(*part));
		carry = calloc(o->nevents * SIM_CG_MAX_PATHS, sizeof(*carry));
		carry_fn = malloc(o->nevents * sizeof(*carry_fn));
		if (!g.in_first || !g.in_next || !ps.v || !cur || !onpath || !part || !carry ||
		    !carry_fn) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t f = 0; f < g.nfns; f++)
			g.in_first[f] = SIZE_MAX;
		for (size_t i = 0; i < o->nevents; i++)
			carry_fn[i] = UINT32_MAX - 1;
		for (size_t e = ncalls; e-- > 0;) {
			uint32_t callee = calls[e].callee;
			g.in_next[e] = SIZE_MAX;
			if (callee < g.nfns) {
				g.in_next[e] = g.in_first[callee];
				g.in_first[callee] = e;
			}
		}
	}
	for (size_t c = 0; c < nc; c++, t++, *time = t) {
		uint64_t ip = objs[costs[c].obj].bias + costs[c].addr;
		for (size_t i = 0; i < o->nevents; i++) {
			uint64_t v = 0;
			for (int q = 0; q < MP_SIM_NQ; q++)
				if (o->events[i].mask & (1u << q))
					v += costs[c].v[q];
			if (!v)
				continue;
			totals[i] += v;
			if (!o->callgraph) {
				if ((rc = sim_write_sample(o, w, ip, pid, t, ids[i], v, NULL)))
					goto out;
				res->samples++;
				continue;
			}
			ps.n = 0;
			ps.mask = o->events[i].mask;
			cur->w = 1;
			cur->n = 1;
			cur->ips[0] = ip;
			uint32_t fn = costs[c].fn;
			if (fn < g.nfns)
				onpath[fn] = 1;
			sim_paths_up(&g, &ps, cur, fn, onpath);
			if (fn < g.nfns)
				onpath[fn] = 0;
			double *cy = carry + i * SIM_CG_MAX_PATHS;
			if (carry_fn[i] != fn) {
				memset(cy, 0, SIM_CG_MAX_PATHS * sizeof(*cy));
				carry_fn[i] = fn;
			}
			sim_paths_split(&ps, v, part, cy);
			for (size_t k = 0; k < ps.n; k++) {
				if (!part[k])
					continue;
				if ((rc = sim_write_sample(o, w, ip, pid, t, ids[i], part[k], &ps.v[k])))
					goto out;
				res->samples++;
			}
		}
	}
out:
	free(g.in_first);
	free(g.in_next);
	free(ps.v);
	free(cur);
	free(onpath);
	free(part);
	free(carry);
	free(carry_fn);
	return rc;
}

/* The exact totals, summed over the processes. */
static int sim_write_counts(const struct mp_sim_opts *o, mp_pdw *w, const uint64_t *ids,
			    const int *attr_idx, const uint64_t *totals)
{
	int rc;
	for (size_t i = 0; i < o->nevents + (o->mem_period ? 2 : 0); i++)
		if ((rc = mp_pdw_add_counts(w, attr_idx[i], ids[i],
					    &(struct mp_counts){ totals[i], 1, 1 })))
			return rc;
	return 0;
}

/* memprof's meta keys ("simulated", "sim.*") and the host features. */
static int sim_write_meta(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w)
{
	const struct mp_sim_geometry *g = mp_sim_profile_geometry(p);
	char buf[128];
	/* which simulator: memprof's valgrind tool writes creator "memprof-sim-N" */
	int rc = mp_pdw_set_meta(w, MP_META_SIMULATED,
				 strncmp(mp_sim_profile_creator(p), "memprof-sim", 11) ? "callgrind"
										      : "mpsim");
	if (!rc && g->i1.size)
		geom_str(&g->i1, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_I1, buf);
	if (!rc && g->d1.size)
		geom_str(&g->d1, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_D1, buf);
	if (!rc && g->ll.size)
		geom_str(&g->ll, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_LL, buf);
	if (!rc && mp_sim_profile_creator(p)[0])
		rc = mp_pdw_set_meta(w, MP_META_SIM_VALGRIND, mp_sim_profile_creator(p));
	for (size_t i = 0; !rc && i < o->nevents; i++) {
		char key[96];
		snprintf(key, sizeof(key), MP_META_SIM_EVENT "%s", o->events[i].name);
		rc = mp_pdw_set_meta(w, key, o->events[i].formula);
	}
	if (!rc && o->mem_period) {
		snprintf(buf, sizeof(buf), "period %" PRIu64 " ldlat %u", o->mem_period, o->ldlat);
		rc = mp_pdw_set_meta(w, MP_META_SIM_MEM, buf);
	}
	if (rc)
		return rc;
	mp_pdw_set_host_features(w);
	if (o->argc_all && o->argv_all)
		mp_pdw_set_cmdline(w, o->argc_all, o->argv_all);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t nc = ncpu > 0 ? (uint32_t)ncpu : 1;
	/* memory samples name simulated cores as CPUs: perf c2c indexes its tables by them */
	if (o->mem_period && o->cores > nc)
		nc = o->cores;
	mp_pdw_set_nrcpus(w, nc, nc);
	/* the topology (perf c2c's nodes) when it describes those CPUs */
	if (o->mem_period && (long)nc == ncpu)
		mp_pdw_set_topology(w);
	return 0;
}

/* One process's COMM, MMAP2s and samples. */
static int sim_write_process(const struct mp_sim_opts *o, const mp_sim_profile *p,
			     const struct mp_sim_load *loads, size_t nloads, mp_pdw *w,
			     const uint64_t *ids, uint64_t *totals, uint64_t *time, int several,
			     struct mp_sim_result *res)
{
	size_t nobj = mp_sim_profile_nobjs(p);
	struct sim_obj *objs = calloc(nobj ? nobj : 1, sizeof(*objs));
	int rc;
	if (!objs)
		return -ENOMEM;
	sim_place_objects(p, loads, nloads, objs, nobj);
	rc = sim_write_tasks(o, p, w, objs, nobj, several);
	if (!rc)
		rc = sim_write_samples(o, p, w, objs, ids, totals, time, res);
	free(objs);
	return rc;
}

/* A process's allocation calls as perfdata's allocation records, on the samples' clock
 * (1000000 + virtual time), after an exec record: its address space starts empty. */
static int sim_write_allocs(const struct mp_sim_proc *pr, mp_pdw *w)
{
	const struct mp_sim_allocs *a = pr->allocs;
	uint32_t pid = mp_sim_profile_pid(pr->profile);
	uint32_t *map = calloc(a->nsites ? a->nsites : 1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	struct mp_alloc_rec ex = { .time = 1000000, .pid = pid, .tid = pid,
				   .site = MP_ALLOC_NO_SITE, .kind = MP_ALLOC_EXEC };
	int rc = mp_pdw_alloc_add(w, &ex);
	for (size_t i = 0; i < a->nsites && !rc; i++)
		rc = mp_pdw_alloc_site(w, pid, a->ips + a->site_at[i],
				       (uint32_t)(a->site_at[i + 1] - a->site_at[i]), &map[i]);
	for (size_t i = 0; i < a->nrecs && !rc; i++) {
		struct mp_alloc_rec r = a->recs[i];
		r.time += 1000000;
		r.pid = pid;
		if (!r.tid)
			r.tid = pid;
		if (r.site != MP_ALLOC_NO_SITE)
			r.site = map[r.site];
		rc = mp_pdw_alloc_add(w, &r);
	}
	free(map);
	return rc;
}

/* A process's memory samples, after a COMM for each of its threads (perf names a thread
 * without one ":TID"). Their times are 1000000 + the thread's virtual time. */
static int sim_write_mem(const struct mp_sim_opts *o, const struct mp_sim_proc *pr, mp_pdw *w,
			 const uint64_t *ids, uint64_t *totals, struct mp_sim_result *res)
{
	uint32_t pid = mp_sim_profile_pid(pr->profile);
	uint32_t *tids = NULL;
	size_t nt = 0, cap = 0;
	int rc = 0;
	const char *comm = o->argv && o->argv[0] ? mp_sim_basename(o->argv[0]) : "";
	const char *cmd = mp_sim_profile_cmd(pr->profile);
	char name[256];
	while (*cmd == ' ')
		cmd++;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(cmd, " "), cmd);
	if (!*comm || strcmp(comm, mp_sim_basename(name)))
		comm = mp_sim_basename(name);
	for (size_t i = 0; i < pr->nmem && !rc; i++) {
		uint32_t tid = pr->mem[i].tid ? pr->mem[i].tid : pid;
		size_t k = 0;
		while (k < nt && tids[k] != tid)
			k++;
		if (k < nt || tid == pid)
			continue;
		if (MP_GROW(tids, cap, nt + 1)) {
			rc = -ENOMEM;
			break;
		}
		tids[nt++] = tid;
		rc = write_comm_tid(w, pid, tid, comm);
	}
	free(tids);
	for (size_t i = 0; i < pr->nmem && !rc; i++) {
		const struct mp_sim_memrec *r = &pr->mem[i];
		size_t a = o->nevents + (r->op == 2 ? 1 : 0);
		rc = sim_write_mem_sample(w, r->ip, pid, r->tid ? r->tid : pid, 1000000 + r->time,
					  ids[a], o->mem_period, r);
		res->samples++;
	}
	totals[o->nevents] += pr->mem_loads;
	totals[o->nevents + 1] += pr->mem_stores;
	return rc;
}

int mp_sim_write_procs(const struct mp_sim_opts *o, const struct mp_sim_proc *procs, size_t n,
		       struct mp_sim_result *res, struct mp_err *err)
{
	size_t nattr = o->nevents + (o->mem_period ? 2 : 0);
	uint64_t *ids = calloc(nattr ? nattr : 1, sizeof(*ids));
	uint64_t *totals = calloc(nattr ? nattr : 1, sizeof(*totals));
	int *attr_idx = calloc(nattr ? nattr : 1, sizeof(*attr_idx));
	mp_pdw *w = NULL;
	uint64_t time = 1000000;
	int rc = 0;

	res->totals = NULL;
	res->samples = 0;
	if (!ids || !totals || !attr_idx || !n) {
		rc = mp_err_set(err, n ? -ENOMEM : -EINVAL, n ? "out of memory" : "no process");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if ((rc = sim_check_quantities(o, procs[k].profile, err)))
			goto out;
	if (!(w = mp_pdw_create(o->output, err))) {
		rc = err && err->code ? err->code : -EIO;
		goto out;
	}
	mp_pdw_set_read_pid(w, (pid_t)mp_sim_profile_pid(procs[0].profile));
	if ((rc = sim_add_attrs(o, w, ids, attr_idx, err)))
		goto out;
	for (size_t k = 0; k < n && !rc; k++) {
		rc = sim_write_process(o, procs[k].profile, procs[k].loads, procs[k].nloads, w, ids,
				       totals, &time, n > 1, res);
		if (!rc && o->mem_period)
			rc = sim_write_mem(o, &procs[k], w, ids, totals, res);
		if (!rc && o->allocs && procs[k].allocs)
			rc = sim_write_allocs(&procs[k], w);
	}
	if (!rc)
		rc = sim_write_counts(o, w, ids, attr_idx, totals);
	if (!rc)
		rc = sim_write_meta(o, procs[0].profile, w);
	if (rc) {
		mp_err_set(err, rc, "%s: %s", o->output, mp_strerror(rc));
		goto out;
	}
	rc = mp_pdw_close(w, err);
	w = NULL;
	if (rc)
		goto out;
	res->totals = totals;
	totals = NULL;
out:
	if (w)
		mp_pdw_abort(w);
	free(ids);
	free(totals);
	free(attr_idx);
	return rc;
}

int mp_sim_write(const struct mp_sim_opts *o, const mp_sim_profile *p,
		 const struct mp_sim_load *loads, size_t nloads, struct mp_sim_result *res,
		 struct mp_err *err)
{
	struct mp_sim_proc one = { .profile = p, .loads = loads, .nloads = nloads };
	return mp_sim_write_procs(o, &one, 1, res, err);
}
