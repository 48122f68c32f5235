/* mp_heap.c - heap objects: which allocation held a data address at a sample's time, from
 * the recording's allocation records (MP_HEADER_ALLOC: record --alloc, the simulator).
 *
 * The records are replayed in time order up to each query's time, keeping only the objects
 * live then: memory follows the workload's live objects, not the number of allocations (a
 * program that mallocs and frees ten million blocks costs one). Live objects are a treap
 * keyed by (pid, start); they never overlap in one process: an object that starts inside
 * another (whose free was lost) ends the older one, counted as stale. Queries come in time
 * order (the reader's ordered delivery); one from before the replay's time starts the
 * replay again (counted). Fork copies the parent's objects to the child, exec empties the
 * process. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

#define NIL UINT32_MAX

struct hnode {
	uint64_t start, size, time;
	uint32_t pid, tid, site;
	uint32_t left, right, prio;
	uint8_t kind;
};

struct hsite {
	char *name;     /* "func file.c:line", resolved on first use; NULL until then */
	int tried;
	int has_frame;  /* the frame below: its object and return address are known */
	uint32_t dso_idx;
	uint64_t elf_ret; /* the return address after the call, in the object's ELF vaddrs */
};

struct mp_heap {
	const mp_pd *pd;
	struct mp_pd_allocs in;
	uint64_t next;          /* the next record to apply */
	uint64_t now;           /* the time applied up to */
	struct hnode *nodes;
	size_t nnodes, cnodes;
	uint32_t free_list, root;
	uint32_t rng;
	struct hsite *sites;
	struct mp_heap_stats st;
};

static uint32_t rnd(mp_heap *h)
{
	h->rng ^= h->rng << 13;
	h->rng ^= h->rng >> 17;
	h->rng ^= h->rng << 5;
	return h->rng;
}

/* (pid, start) order */
static int key_lt(uint32_t pa, uint64_t sa, uint32_t pb, uint64_t sb)
{
	return pa < pb || (pa == pb && sa < sb);
}

static uint32_t node_new(mp_heap *h)
{
	uint32_t n;
	if (h->free_list != NIL) {
		n = h->free_list;
		h->free_list = h->nodes[n].left;
	} else {
		if (h->nnodes >= NIL - 1 || MP_GROW(h->nodes, h->cnodes, h->nnodes + 1))
			return NIL;
		n = (uint32_t)h->nnodes++;
	}
	memset(&h->nodes[n], 0, sizeof(h->nodes[n]));
	h->nodes[n].left = h->nodes[n].right = NIL;
	h->nodes[n].prio = rnd(h);
	h->st.live++;
	if (h->st.live > h->st.live_max)
		h->st.live_max = h->st.live;
	return n;
}

static void node_put(mp_heap *h, uint32_t n)
{
	h->nodes[n].left = h->free_list;
	h->free_list = n;
	h->st.live--;
}

/* t split into keys < (pid, start) and the rest. Recursion depth is the treap's height
 * (O(log n) expected). */
static void split(mp_heap *h, uint32_t t, uint32_t pid, uint64_t start, uint32_t *l, uint32_t *r)
{
	if (t == NIL) {
		*l = *r = NIL;
		return;
	}
	struct hnode *n = &h->nodes[t];
	if (key_lt(n->pid, n->start, pid, start)) {
		split(h, n->right, pid, start, &h->nodes[t].right, r);
		*l = t;
	} else {
		split(h, n->left, pid, start, l, &h->nodes[t].left);
		*r = t;
	}
}

static uint32_t merge(mp_heap *h, uint32_t a, uint32_t b)
{
	if (a == NIL)
		return b;
	if (b == NIL)
		return a;
	if (h->nodes[a].prio > h->nodes[b].prio) {
		h->nodes[a].right = merge(h, h->nodes[a].right, b);
		return a;
	}
	h->nodes[b].left = merge(h, a, h->nodes[b].left);
	return b;
}

static void drop_tree(mp_heap *h, uint32_t t, uint64_t *count)
{
	if (t == NIL)
		return;
	drop_tree(h, h->nodes[t].left, count);
	drop_tree(h, h->nodes[t].right, count);
	node_put(h, t);
	if (count)
		++*count;
}

/* The live object of pid with the largest start <= addr, or NIL. */
static uint32_t pred(const mp_heap *h, uint32_t pid, uint64_t addr)
{
	uint32_t t = h->root, best = NIL;
	while (t != NIL) {
		const struct hnode *n = &h->nodes[t];
		if (key_lt(pid, addr, n->pid, n->start)) {
			t = n->left;
		} else {
			best = t;
			t = n->right;
		}
	}
	return best != NIL && h->nodes[best].pid == pid ? best : NIL;
}

/* Remove pid's objects that meet [start, end) (all of them: their frees were lost, or a
 * munmap covers them); *count adds them. */
static void remove_range(mp_heap *h, uint32_t pid, uint64_t start, uint64_t end, uint64_t *count)
{
	uint32_t p = pred(h, pid, start);
	if (p != NIL && h->nodes[p].start < start && h->nodes[p].start + h->nodes[p].size > start)
		start = h->nodes[p].start;
	uint32_t l, m, r;
	split(h, h->root, pid, start, &l, &m);
	if (end > start)
		split(h, m, pid, end, &m, &r);
	else
		split(h, m, pid, start + 1, &m, &r);
	drop_tree(h, m, count);
	h->root = merge(h, l, r);
}

static int insert(mp_heap *h, const struct hnode *v)
{
	uint64_t end = v->start + (v->size ? v->size : 1);
	if (end < v->start)
		end = UINT64_MAX;
	remove_range(h, v->pid, v->start, end, &h->st.stale);
	uint32_t n = node_new(h);
	if (n == NIL)
		return -ENOMEM;
	uint32_t prio = h->nodes[n].prio;
	h->nodes[n] = *v;
	h->nodes[n].left = h->nodes[n].right = NIL;
	h->nodes[n].prio = prio;
	uint32_t l, r;
	split(h, h->root, v->pid, v->start, &l, &r);
	h->root = merge(h, merge(h, l, n), r);
	return 0;
}

/* Free of pid's block at addr: exactly an object's start, else counted as unknown. */
static void release(mp_heap *h, uint32_t pid, uint64_t addr)
{
	uint32_t p = pred(h, pid, addr);
	if (p == NIL || h->nodes[p].start != addr) {
		h->st.unknown_free++;
		return;
	}
	remove_range(h, pid, addr, addr + 1, NULL);
}

static void collect(const mp_heap *h, uint32_t t, uint32_t pid, uint32_t **out, size_t *n,
		    size_t *cap, int *err)
{
	while (t != NIL && !*err) {
		const struct hnode *x = &h->nodes[t];
		if (x->pid > pid) {
			t = x->left;
			continue;
		}
		if (x->pid < pid) {
			t = x->right;
			continue;
		}
		collect(h, x->left, pid, out, n, cap, err);
		if (MP_GROW(*out, *cap, *n + 1)) {
			*err = 1;
			return;
		}
		(*out)[(*n)++] = t;
		t = x->right;
	}
}

static int apply(mp_heap *h, const struct mp_alloc_rec *r)
{
	struct hnode v = { .start = r->addr, .size = r->size, .time = r->time, .pid = r->pid,
			   .tid = r->tid, .site = r->site, .kind = r->kind };
	switch (r->kind) {
	case MP_ALLOC_MALLOC:
	case MP_ALLOC_CALLOC:
	case MP_ALLOC_MEMALIGN:
	case MP_ALLOC_MMAP:
		return insert(h, &v);
	case MP_ALLOC_REALLOC:
		if (r->old) {
			uint32_t p = pred(h, r->pid, r->old);
			if (p != NIL && h->nodes[p].start == r->old)
				h->st.realloc_chained++;
			else
				h->st.unknown_free++;
			if (p != NIL && h->nodes[p].start == r->old)
				remove_range(h, r->pid, r->old, r->old + 1, NULL);
		}
		return insert(h, &v);
	case MP_ALLOC_FREE:
		release(h, r->pid, r->addr);
		return 0;
	case MP_ALLOC_MUNMAP:
		remove_range(h, r->pid, r->addr, r->addr + (r->size ? r->size : 1), NULL);
		return 0;
	case MP_ALLOC_EXEC:
		remove_range(h, r->pid, 0, UINT64_MAX, NULL);
		h->st.execs++;
		return 0;
	case MP_ALLOC_FORK: {
		if (r->old > UINT32_MAX)
			return 0;
		remove_range(h, r->pid, 0, UINT64_MAX, NULL);
		uint32_t *ids = NULL;
		size_t n = 0, cap = 0;
		int err = 0;
		collect(h, h->root, (uint32_t)r->old, &ids, &n, &cap, &err);
		for (size_t i = 0; i < n && !err; i++) {
			struct hnode c = h->nodes[ids[i]];
			c.pid = r->pid;
			err = insert(h, &c) != 0;
		}
		free(ids);
		h->st.forks++;
		return err ? -ENOMEM : 0;
	}
	case MP_ALLOC_LOST:
	default:
		return 0;
	}
}

static void reset(mp_heap *h)
{
	drop_tree(h, h->root, NULL);
	h->root = NIL;
	h->next = 0;
	h->now = 0;
	uint64_t keep_max = h->st.live_max, rewinds = h->st.rewinds;
	memset(&h->st, 0, sizeof(h->st));
	h->st.live_max = keep_max;
	h->st.rewinds = rewinds;
}

mp_heap *mp_heap_new(const mp_pd *pd)
{
	struct mp_pd_allocs in;
	if (mp_pd_allocs(pd, &in))
		return NULL;
	mp_heap *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->pd = pd;
	h->in = in;
	h->root = h->free_list = NIL;
	h->rng = 0x9e3779b9u;
	if (in.nr_sites && !(h->sites = calloc(in.nr_sites, sizeof(*h->sites)))) {
		free(h);
		return NULL;
	}
	return h;
}

void mp_heap_free(mp_heap *h)
{
	if (!h)
		return;
	for (uint64_t i = 0; h->sites && i < h->in.nr_sites; i++)
		free(h->sites[i].name);
	free(h->sites);
	free(h->nodes);
	free(h);
}

int mp_heap_advance(mp_heap *h, uint64_t time)
{
	if (time < h->now) {
		h->st.rewinds++;
		reset(h);
	}
	struct mp_alloc_rec r;
	while (h->next < h->in.nr_recs && mp_pd_alloc_rec(h->pd, h->next, &r) == 0 &&
	       r.time <= time) {
		if (r.kind < 1 || r.kind > MP_ALLOC_KIND_MAX) {
			h->st.bad++;
		} else {
			int rc = apply(h, &r);
			if (rc)
				return rc;
		}
		h->st.applied++;
		h->next++;
	}
	h->now = time;
	return 0;
}

int mp_heap_find(mp_heap *h, uint32_t pid, uint64_t addr, uint64_t time,
		 struct mp_heap_obj *out)
{
	memset(out, 0, sizeof(*out));
	out->site = MP_ALLOC_NO_SITE;
	if (!h)
		return 0;
	if (mp_heap_advance(h, time))
		return -ENOMEM;
	uint32_t p = pred(h, pid, addr);
	if (p == NIL)
		return 0;
	const struct hnode *n = &h->nodes[p];
	if (addr - n->start >= (n->size ? n->size : 1))
		return 0;
	out->found = 1;
	out->start = n->start;
	out->size = n->size;
	out->offset = addr - n->start;
	out->time = n->time;
	out->pid = n->pid;
	out->tid = n->tid;
	out->site = n->site;
	out->kind = n->kind;
	return 1;
}

int mp_heap_exit(mp_heap *h, uint32_t pid, uint64_t time)
{
	if (!h)
		return 0;
	int rc = mp_heap_advance(h, time);
	if (!rc)
		remove_range(h, pid, 0, UINT64_MAX, &h->st.at_exit);
	return rc;
}

const struct mp_heap_stats *mp_heap_stats(const mp_heap *h)
{
	return &h->st;
}

/* Allocators' own frames are not the allocation site: the first frame outside them. */
static int allocator_dso(const char *dso)
{
	static const char *const names[] = { "libc.so", "libc-", "libstdc++.so", "ld-linux",
					     "libmemprof-alloc.so" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(dso, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* The site's first frame outside the allocators, named and placed, once per site. */
static struct hsite *site_resolve(mp_heap *h, mp_sym *sym, uint32_t site)
{
	if (!h || site >= h->in.nr_sites)
		return NULL;
	struct hsite *s = &h->sites[site];
	if (s->tried)
		return s;
	s->tried = 1;
	uint32_t pid, nr;
	const uint64_t *ips;
	if (mp_pd_alloc_site(h->pd, site, &pid, &ips, &nr) || !nr)
		return s;
	struct mp_sym_loc cl = { 0 };
	char buf[512];
	int have = 0;
	for (uint32_t i = 0; i < nr && sym; i++) {
		/* a return address: the call is the instruction before it */
		uint64_t ip = ips[i] ? ips[i] - 1 : 0;
		uint32_t map = mp_sym_map_find(sym, pid, PERF_RECORD_MISC_USER, ip);
		mp_sym_resolve(sym, map, PERF_RECORD_MISC_USER, ip, 1, &cl);
		have = 1;
		if (!allocator_dso(cl.dso) || i + 1 == nr)
			break;
	}
	if (!have) {
		snprintf(buf, sizeof(buf), "0x%" PRIx64, ips[0]);
	} else if (cl.srcfile && cl.line) {
		const char *base = strrchr(cl.srcfile, '/');
		snprintf(buf, sizeof(buf), "%s %s:%u", cl.sym, base ? base + 1 : cl.srcfile,
			 cl.line);
	} else {
		snprintf(buf, sizeof(buf), "%s (%s)", cl.sym, cl.dso);
	}
	if (have && cl.dso_idx != UINT32_MAX) {
		s->has_frame = 1;
		s->dso_idx = cl.dso_idx;
		s->elf_ret = cl.elf_addr + 1;
	}
	s->name = strdup(buf);
	return s;
}

const char *mp_heap_site_name(mp_heap *h, mp_sym *sym, uint32_t site)
{
	struct hsite *s = site_resolve(h, sym, site);
	return s && s->name ? s->name : "[unknown site]";
}

int mp_heap_site_frame(mp_heap *h, mp_sym *sym, uint32_t site, const char **path,
		       uint64_t *ret)
{
	struct hsite *s = site_resolve(h, sym, site);
	const struct mp_sym_dso_info *di = s && s->has_frame ? mp_sym_dso(sym, s->dso_idx, 0) : NULL;
	if (!di || !di->path)
		return 0;
	*path = di->path;
	*ret = s->elf_ret;
	return 1;
}

const char *mp_heap_data_label(mp_heap *h, mp_sym *sym, mp_daddr *dd, uint32_t pid,
			       uint64_t addr, uint64_t time, char *buf, size_t len)
{
	struct mp_heap_obj o;
	if (mp_heap_find(h, pid, addr, time, &o) == 1) {
		snprintf(buf, len, "%s +%#" PRIx64 " (%" PRIu64 " bytes)",
			 mp_heap_site_name(h, sym, o.site), o.offset, o.size);
		return buf;
	}
	struct mp_daddr_loc dl = { 0 };
	if (dd && !(addr >> 63))
		mp_daddr_resolve(dd, pid, addr, &dl);
	if (dl.sym)
		snprintf(buf, len, "%s", dl.sym);
	else if (dl.kind == MP_DADDR_STACK)
		snprintf(buf, len, "[stack]");
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}
