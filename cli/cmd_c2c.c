/* cmd_c2c.c - memprof c2c record / c2c report, as perf c2c: cache lines that several
 * threads fight over. record: perf c2c's memory events for this machine's PMU (memprof
 * mem's event table) with data addresses, weights and CPUs, or the simulator's memory
 * samples (--sim). report: perf c2c's Trace Event Information and Shared Data Cache Line
 * Table (each sample classified as perf 6.1 does: mp_c2c_count), lines by HITM (or peer
 * snoops, -d), then per line the Pareto by offset, thread and instruction with the code's
 * symbol and source line, the data symbol, latencies, CPUs and nodes, and a verdict:
 * false sharing (different offsets, each written by another thread) or true sharing (one
 * offset written by several), with what to do about it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "mp_perfdata.h"
#include "mp_tui.h"
#include "mp_util.h"

#define CMD "c2c"
#define C2C_MAX_CPUS 1024
#define C2C_MAX_NODES 64
/* perf c2c shows a line whose share of the sort metric is at least 0.1% */
#define C2C_LINE_LIMIT 0.001

static const char c2c_usage[] = "record [--ldlat N] [--sim [--no-alloc]] [RECORD OPTIONS] [--] COMMAND | "
				"report [-i FILE] [-d tot|lcl|rmt|peer|all] [--stdio|--csv]";
static const char c2c_summary[] =
	"Cache lines that threads share (as perf c2c). record: perf c2c's precise memory\n"
	"events of this machine's PMU (Intel load latency and precise stores, AMD IBS op with\n"
	"-a; memprof mem's table) with data addresses, weights and CPUs; --sim: the simulated\n"
	"caches' memory samples where there is no such PMU. report: the Shared Data Cache Line\n"
	"Table (lines by HITM), and per line the offsets, threads and code that touch it, the\n"
	"data symbol, and whether it is false sharing or true sharing.";

enum c2c_disp { DISP_TOT, DISP_LCL, DISP_RMT, DISP_PEER, DISP_ALL };

/* What the Pareto rows are keyed by besides the offset (perf's -c). */
#define CO_PID 1u
#define CO_TID 2u
#define CO_IADDR 4u
#define CO_DSO 8u

struct c2c_lkey {
	uint64_t cl;             /* the line's virtual address */
	uint64_t pid;
};

/* perf's Node and PA cnt: the NUMA nodes of the samples' physical addresses (the
 * recording's memory topology) and how often the physical address changed, sample after
 * sample (page migrations, other pages of a huge line table) */
struct c2c_pa {
	uint64_t nodes;          /* bit n: node n (63 also for the nodes above) */
	uint64_t last;
	uint32_t cnt;
};

/* A name a line's samples gave its data (a data symbol, or a heap block's site), and how
 * many samples gave it. */
struct c2c_dname {
	const char *sym, *dso;   /* borrowed */
	uint64_t off;            /* the line's first byte in the symbol (when line) */
	int line;                /* the symbol starts at or before the line */
	uint64_t n;
};
#define C2C_DNAMES 4

struct c2c_line {
	struct c2c_lkey k;
	struct mp_c2c_stats st;
	struct c2c_pa pa;
	const char *dsym, *ddso; /* data symbol and object most of its samples name (borrowed) */
	uint64_t dsym_off;       /* the line's first byte in the symbol (when dsym_line) */
	int dsym_line;           /* the symbol starts at or before the line */
	struct c2c_dname dn[C2C_DNAMES]; /* the names its samples gave, first seen first */
	int ndn;
	size_t r0, r1;           /* its rows after sorting */
};

/* One more sample of line L names its data d: the line's memory may have held other data
 * before (a startup buffer freed, then the block the program shares), so the line takes
 * the name most of its samples give (line_name()), the first seen on a tie. */
static void line_vote(struct c2c_line *L, const struct c2c_dname *d)
{
	for (int i = 0; i < L->ndn; i++)
		if (L->dn[i].sym == d->sym && L->dn[i].dso == d->dso && L->dn[i].off == d->off &&
		    L->dn[i].line == d->line) {
			L->dn[i].n++;
			return;
		}
	if (L->ndn < C2C_DNAMES) {
		L->dn[L->ndn] = *d;
		L->dn[L->ndn++].n = 1;
	}
}

static void line_name(struct c2c_line *L)
{
	int best = -1;
	for (int i = 0; i < L->ndn; i++)
		if (best < 0 || L->dn[i].n > L->dn[best].n)
			best = i;
	if (best < 0)
		return;
	L->dsym = L->dn[best].sym;
	L->ddso = L->dn[best].dso;
	L->dsym_line = L->dn[best].line;
	L->dsym_off = L->dn[best].off;
}

struct c2c_rkey {            /* a Pareto row's key (zeros for fields not in -c) */
	uint64_t line, off, ip, map;
	uint32_t pid, tid;
};

struct c2c_row {
	struct c2c_rkey k;       /* first: entry_get()'s key */
	uint32_t line;
	uint16_t cpumode;
	uint32_t pid, tid;       /* of its first sample */
	int multi_tid;           /* samples of several threads (tid not in -c) */
	uint64_t ip;
	uint32_t map;
	struct mp_c2c_stats st;
	struct c2c_pa pa;
	uint64_t w_rmt_hitm, n_rmt_hitm, w_lcl_hitm, n_lcl_hitm, w_load, n_load, w_all, n_all;
	uint64_t cpus[C2C_MAX_CPUS / 64];
	uint64_t nodes;          /* bit n: node n; bit 63 also for nodes >= 63 */
	int node_unknown;
	const char *dsym;        /* data symbol at its first sample's address (borrowed) */
	uint64_t dsym_off;
};

/* Who writes and reads each offset of a line, by thread (the verdict's facts). */
struct c2c_okey {
	uint64_t line, off, tid;
	uint64_t hstart, htime; /* the heap object at the address then (0, 0: none known) */
};

struct c2c_otid {
	struct c2c_okey k;
	uint64_t hsize;
	uint64_t stores, loads, hitm;
	uint64_t ip;             /* the code of its first store (else of its first access) */
	uint32_t map;
	uint16_t cpumode;
	int ip_is_store;
};

struct c2c_ctx {
	mp_pd *pd;
	mp_sym *sym;
	mp_daddr *dd;
	mp_heap *heap;           /* allocation records (record --alloc, --sim-alloc), or NULL */
	unsigned line_size, coalesce;
	struct mp_pd_topo topo;
	int has_topo;
	struct mp_pd_memtopo mt; /* physical memory by node (no ranges: no Node, no PA cnt) */
	struct mp_c2c_stats tot;
	struct c2c_line *lines;
	size_t nlines, caplines;
	struct c2c_row *rows;
	size_t nrows, caprows;
	struct c2c_otid *ot;
	size_t not, capot;
	struct mp_u64map lmap, rmap, omap;
};

/* The entry of *arr (*n of them, elem bytes each, each starting with its ksize-byte key)
 * whose key is key, added zeroed with that key when new (*isnew); map finds them by the
 * key's hash. Its index, or -1 when out of memory. */
static long entry_get(struct mp_u64map *map, void **arr, size_t *n, size_t *cap, size_t elem,
		      const void *key, size_t ksize, int *isnew)
{
	const uint64_t *w = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < ksize / 8; i++)
		h = mp_mix64(h ^ w[i]);
	for (h = mp_u64map_key(h);; h = mp_u64map_key(mp_mix64(h + 1))) {
		int found;
		uint32_t *slot = mp_u64map_slot(map, h, &found);
		if (!slot)
			return -1;
		if (found) {
			if (!memcmp((char *)*arr + *slot * elem, key, ksize)) {
				*isnew = 0;
				return *slot;
			}
			continue;
		}
		if (*n >= UINT32_MAX || mp_grow(arr, cap, *n + 1, elem)) {
			mp_u64map_unslot(map, slot);
			return -1;
		}
		char *e = (char *)*arr + *n * elem;
		memset(e, 0, elem);
		memcpy(e, key, ksize);
		*slot = (uint32_t)*n;
		*isnew = 1;
		return (long)(*n)++;
	}
}

static int on_mmap(void *c, const struct mp_pd_mmap *m)
{
	struct c2c_ctx *x = c;
	int rc = mp_sym_mmap(x->sym, m);
	return rc ? rc : mp_daddr_mmap(x->dd, m);
}
static int on_comm(void *c, const struct mp_pd_task *t)
{
	struct c2c_ctx *x = c;
	int rc = mp_sym_comm(x->sym, t);
	return rc ? rc : mp_daddr_comm(x->dd, t);
}
static int on_fork(void *c, const struct mp_pd_task *t)
{
	struct c2c_ctx *x = c;
	int rc = mp_sym_fork(x->sym, t);
	return rc ? rc : mp_daddr_fork(x->dd, t);
}
static int on_exit_(void *c, const struct mp_pd_task *t)
{
	return mp_sym_exit(((struct c2c_ctx *)c)->sym, t);
}

/* As perf's c2c_he__set_node: a sample without a physical address, or one in no node's
 * memory, counts in neither. */
static void pa_add(const struct c2c_ctx *x, struct c2c_pa *pa, uint64_t phys)
{
	int node = phys ? mp_pd_memtopo_node(&x->mt, phys) : -1;
	if (node < 0)
		return;
	pa->nodes |= 1ULL << (node < 63 ? node : 63);
	if (pa->last != phys) {
		pa->cnt++;
		pa->last = phys;
	}
}

static int on_sample(void *c, const struct mp_pd_sample *s)
{
	struct c2c_ctx *x = c;
	struct mp_c2c_stats one = { 0 };
	struct mp_daddr_loc dl = { .dso = "[unknown]" };

	int in = mp_c2c_count(&one, s->data_src, s->addr);
	uint32_t map = mp_sym_map_find(x->sym, s->pid, s->cpumode, s->ip);
	/* perf finds a data address in the maps of the sample's mode: a kernel sample's
	 * address in the kernel's, a user sample's in the process's (the other is unmapped) */
	int kmode = s->cpumode == PERF_RECORD_MISC_KERNEL ||
		    s->cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	if (s->addr && !(s->addr >> 63))
		mp_daddr_resolve(x->dd, s->pid, s->addr, &dl);
	int dmapped = kmode ? mp_sym_map_find(x->sym, s->pid, s->cpumode, s->addr) !=
				      MP_SYM_NO_MAP
			    : dl.kind != MP_DADDR_UNKNOWN;
	if (in && (map == MP_SYM_NO_MAP || !dmapped))
		one.nomap++;
	mp_c2c_stats_add(&x->tot, &one);
	/* as perf, a sample without an address or a known kind still counts in its line (its
	 * loads and records, not its table columns) */
	uint64_t cl = s->addr & ~(uint64_t)(x->line_size - 1);
	uint32_t off = (uint32_t)(s->addr - cl);
	int isnew;
	struct c2c_lkey lk = { .cl = cl, .pid = s->pid };
	long li = entry_get(&x->lmap, (void **)&x->lines, &x->nlines, &x->caplines,
			    sizeof(*x->lines), &lk, sizeof(lk), &isnew);
	if (li < 0)
		return -ENOMEM;
	struct c2c_line *L = &x->lines[li];
	mp_c2c_stats_add(&L->st, &one);
	pa_add(x, &L->pa, s->phys_addr);
	/* a heap object: its allocation site stands for the data symbol */
	struct mp_heap_obj ho = { 0 };
	const char *site = NULL;
	if (!dl.sym && x->heap && s->addr &&
	    mp_heap_find(x->heap, s->pid, s->addr, s->time, &ho) == 1 && ho.offset >= off) {
		site = mp_heap_site_name(x->heap, x->sym, ho.site);
		dl.sym = site;
		dl.dso = "[heap object]";
	}
	if (dl.sym) {
		struct c2c_dname d = { .sym = dl.sym, .dso = dl.dso };
		if (site) {
			d.line = 1;
			d.off = ho.offset - off;
		}
		if (dl.kind == MP_DADDR_OBJECT && dl.vaddr - off >= dl.sym_start) {
			d.line = 1;
			d.off = dl.vaddr - off - dl.sym_start;
		}
		line_vote(L, &d);
	}
	struct c2c_rkey k = { .line = (uint64_t)li, .off = off };
	if (x->coalesce & CO_IADDR)
		k.ip = s->ip, k.map = map;
	if (x->coalesce & CO_DSO)
		k.map = map;
	if (x->coalesce & (CO_PID | CO_TID))
		k.pid = s->pid;
	if (x->coalesce & CO_TID)
		k.tid = s->tid;
	long ri = entry_get(&x->rmap, (void **)&x->rows, &x->nrows, &x->caprows, sizeof(*x->rows),
			    &k, sizeof(k), &isnew);
	if (ri < 0)
		return -ENOMEM;
	struct c2c_row *r = &x->rows[ri];
	if (isnew) {
		r->line = (uint32_t)li;
		r->cpumode = s->cpumode;
		r->pid = s->pid, r->tid = s->tid;
		r->ip = s->ip, r->map = map;
		r->dsym = dl.sym;
		if (site)
			r->dsym_off = ho.offset;
		else if (dl.sym && dl.kind == MP_DADDR_OBJECT && dl.vaddr >= dl.sym_start)
			r->dsym_off = dl.vaddr - dl.sym_start;
	} else if (r->tid != s->tid) {
		r->multi_tid = 1;
	}
	mp_c2c_stats_add(&r->st, &one);
	pa_add(x, &r->pa, s->phys_addr);
	uint64_t w = s->weight;
	if (one.rmt_hitm)
		r->w_rmt_hitm += w, r->n_rmt_hitm++;
	else if (one.lcl_hitm)
		r->w_lcl_hitm += w, r->n_lcl_hitm++;
	else if (one.loads)
		r->w_load += w, r->n_load++;
	if (one.loads)
		r->w_all += w, r->n_all++;
	if (s->cpu < C2C_MAX_CPUS)
		r->cpus[s->cpu / 64] |= 1ULL << (s->cpu % 64);
	int node = x->has_topo && s->cpu < x->topo.ncpus ? x->topo.node[s->cpu] : -1;
	if (node < 0)
		r->node_unknown = 1;
	else
		r->nodes |= 1ULL << (node < 63 ? node : 63);
	struct c2c_okey ok = { .line = (uint64_t)li, .off = off, .tid = s->tid };
	if (site || ho.found) {
		ok.hstart = ho.start;
		ok.htime = ho.time;
	}
	long oi = entry_get(&x->omap, (void **)&x->ot, &x->not, &x->capot, sizeof(*x->ot), &ok,
			    sizeof(ok), &isnew);
	if (oi < 0)
		return -ENOMEM;
	struct c2c_otid *o = &x->ot[oi];
	if (isnew)
		o->hsize = ok.hstart || ok.htime ? ho.size : 0;
	o->stores += one.stores;
	o->loads += one.loads;
	o->hitm += one.lcl_hitm + one.rmt_hitm;
	if (isnew || (one.stores && !o->ip_is_store)) {
		o->ip = s->ip, o->map = map, o->cpumode = s->cpumode;
		o->ip_is_store = !!one.stores;
	}
	return 0;
}

/* ---- the report ---------------------------------------------------------------------- */

static enum c2c_disp g_disp; /* the sort of qsort's comparators (set once per report) */

static uint64_t disp_metric(const struct mp_c2c_stats *s, enum c2c_disp d)
{
	switch (d) {
	case DISP_LCL:
		return s->lcl_hitm;
	case DISP_RMT:
		return s->rmt_hitm;
	case DISP_PEER:
		return mp_c2c_tot_peer(s);
	case DISP_ALL:
		return mp_c2c_tot_hitm(s) + mp_c2c_tot_peer(s);
	case DISP_TOT:
		break;
	}
	return mp_c2c_tot_hitm(s);
}

static int line_cmp(const void *pa, const void *pb)
{
	const struct c2c_line *a = pa, *b = pb;
	uint64_t ma = disp_metric(&a->st, g_disp), mb = disp_metric(&b->st, g_disp);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	if (a->st.records != b->st.records)
		return a->st.records > b->st.records ? -1 : 1;
	if (a->k.cl != b->k.cl)
		return a->k.cl < b->k.cl ? -1 : 1;
	return a->k.pid < b->k.pid ? -1 : a->k.pid > b->k.pid;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct c2c_row *a = pa, *b = pb;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->k.off != b->k.off)
		return a->k.off < b->k.off ? -1 : 1;
	uint64_t ma = disp_metric(&a->st, g_disp), mb = disp_metric(&b->st, g_disp);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	if (a->st.stores != b->st.stores)
		return a->st.stores > b->st.stores ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->ip < b->ip ? -1 : a->ip > b->ip;
}

static int ot_cmp(const void *pa, const void *pb)
{
	const struct c2c_otid *a = pa, *b = pb;
	if (a->k.line != b->k.line)
		return a->k.line < b->k.line ? -1 : 1;
	if (a->k.off != b->k.off)
		return a->k.off < b->k.off ? -1 : 1;
	if (a->k.tid != b->k.tid)
		return a->k.tid < b->k.tid ? -1 : 1;
	if (a->k.htime != b->k.htime)
		return a->k.htime < b->k.htime ? -1 : 1;
	return a->k.hstart < b->k.hstart ? -1 : a->k.hstart > b->k.hstart;
}

/* Whether two facts of one line can be of the same moment: not when they fell in two
 * heap objects over the same bytes, one allocated after the other was freed (the line's
 * memory reused: a FILE buffer freed at startup, then the program's counters). Two live
 * objects side by side in one line can share it, falsely. */
static int ot_together(const struct c2c_otid *a, const struct c2c_otid *b)
{
	if (!a->hsize || !b->hsize || (a->k.hstart == b->k.hstart && a->k.htime == b->k.htime))
		return 1;
	return a->k.hstart + a->hsize <= b->k.hstart || b->k.hstart + b->hsize <= a->k.hstart;
}

/* A line is shared when loads hit another core's modified copy or a peer's (perf's
 * Total Shared Cache Lines). */
static int line_shared(const struct c2c_line *l)
{
	return mp_c2c_tot_hitm(&l->st) || mp_c2c_tot_peer(&l->st);
}

struct c2c_verdict {
	int kind;                /* 0 none, 1 false sharing, 2 true sharing, 3 both, 4 one thread,
				  * 5 no stores recorded */
	char text[1024];
};

static const char *verdict_name(int kind)
{
	static const char *const n[] = { "none", "false sharing", "true sharing",
					  "false and true sharing", "one thread",
					  "loads only" };
	return n[kind];
}

static void code_sym(struct c2c_ctx *x, uint32_t map, uint16_t cpumode, uint64_t ip, int line,
		     struct mp_sym_loc *loc)
{
	mp_sym_resolve(x->sym, map, cpumode, ip, line, loc);
}

/* The verdict of line li from its (offset, thread) facts ot[o0..o1). */
static void line_verdict(struct c2c_ctx *x, size_t li, size_t o0, size_t o1,
			 struct c2c_verdict *v)
{
	const struct c2c_line *L = &x->lines[li];
	size_t nwoffs = 0, multi_w = 0, stores = 0;
	size_t len = 0;

	v->kind = 0;
	v->text[0] = 0;
	for (size_t i = o0; i < o1; i++)
		stores += x->ot[i].stores;
	/* per offset: whether it is written, and by several threads at one time */
	for (size_t i = o0; i < o1;) {
		size_t j = i, w = 0;
		for (; j < o1 && x->ot[j].k.off == x->ot[i].k.off; j++) {
			w += x->ot[j].stores > 0;
			for (size_t m = i; m < j && x->ot[j].stores; m++)
				multi_w += x->ot[m].stores && x->ot[m].k.tid != x->ot[j].k.tid &&
					   ot_together(&x->ot[m], &x->ot[j]);
		}
		nwoffs += w > 0;
		i = j;
	}
	/* several threads at all? */
	int threads = 0;
	for (size_t i = o0 + 1; i < o1; i++)
		threads |= x->ot[i].k.tid != x->ot[o0].k.tid;
	if (!threads) {
		v->kind = 4;
		snprintf(v->text, sizeof(v->text), "one thread (tid %u) only: no sharing between threads",
			 (unsigned)x->ot[o0].k.tid);
		return;
	}
	if (!stores) {
		v->kind = 5;
		snprintf(v->text, sizeof(v->text),
			 "no store samples: which thread writes the line is not known, so false and "
			 "true sharing cannot be told apart (record stores too)");
		return;
	}
	/* false sharing: different offsets written by different threads */
	int false_sh = 0;
	for (size_t i = o0; i < o1 && !false_sh; i++)
		for (size_t j = o0; j < o1 && !false_sh; j++)
			false_sh = x->ot[i].stores && x->ot[j].stores && x->ot[i].k.off != x->ot[j].k.off &&
				   x->ot[i].k.tid != x->ot[j].k.tid && ot_together(&x->ot[i], &x->ot[j]);
	/* true sharing: one offset written by several threads, or written by one and read
	 * by another (the line must move for the data itself) */
	int true_sh = multi_w > 0;
	for (size_t i = o0; i < o1 && !true_sh; i++)
		for (size_t j = o0; j < o1 && !true_sh; j++)
			true_sh = x->ot[i].stores && x->ot[j].k.off == x->ot[i].k.off &&
				  x->ot[j].k.tid != x->ot[i].k.tid && x->ot[j].loads &&
				  ot_together(&x->ot[i], &x->ot[j]);
	v->kind = false_sh && true_sh ? 3 : false_sh ? 1 : true_sh ? 2 : 0;
	if (!v->kind) {
		snprintf(v->text, sizeof(v->text), "written by one thread; no other thread reads "
			 "what it writes");
		return;
	}
	/* who writes what: "offset 0x0 written by tid 11 (writer_a); offset 0x8 ..." */
	char who[640];
	size_t wl = 0;
	who[0] = 0;
	for (size_t i = o0; i < o1 && wl < sizeof(who) - 80;) {
		size_t j = i;
		int first = 1;
		for (; j < o1 && x->ot[j].k.off == x->ot[i].k.off; j++) {
			const struct c2c_otid *o = &x->ot[j];
			if (!o->stores || wl >= sizeof(who) - 80)
				continue;
			struct mp_sym_loc loc;
			code_sym(x, o->map, o->cpumode, o->ip, 0, &loc);
			if (first)
				wl += (size_t)snprintf(who + wl, sizeof(who) - wl,
						       "%soffset 0x%x written by", wl ? "; " : "",
						       (unsigned)o->k.off);
			wl += (size_t)snprintf(who + wl, sizeof(who) - wl, "%s tid %u (%s)",
					       first ? "" : ",", (unsigned)o->k.tid, loc.sym);
			first = 0;
		}
		i = j;
	}
	char what[160];
	if (L->dsym)
		snprintf(what, sizeof(what), "%s", L->dsym);
	else
		snprintf(what, sizeof(what), "line 0x%" PRIx64, L->k.cl);
	if (false_sh)
		len += (size_t)snprintf(
			v->text + len, sizeof(v->text) - len,
			"false sharing: different threads write different offsets of %s, one %u-byte "
			"line (%s). Pad or align each thread's data to the line size "
			"(coherency_line_size %u: __attribute__((aligned(%u))) or alignas(%u) on "
			"the per-thread member), or keep per-thread data apart (thread-local, or "
			"one line per thread).",
			what, x->line_size, who, x->line_size, x->line_size, x->line_size);
	if (true_sh && len < sizeof(v->text))
		snprintf(v->text + len, sizeof(v->text) - len,
			 "%strue sharing: the threads use the same data of %s%s%s: padding cannot "
			 "help. Give each thread its own copy and combine the copies at the end "
			 "(per-thread counters), or write the shared data less often.",
			 len ? " And " : "", what, false_sh ? "" : " (", false_sh ? "" : who);
	if (true_sh && !false_sh) {
		/* close the parenthesis opened above */
		size_t l = strlen(v->text);
		char *p = strstr(v->text, ": padding");
		if (p && l + 1 < sizeof(v->text)) {
			memmove(p + 1, p, strlen(p) + 1);
			*p = ')';
		}
	}
}

static const char *disp_title(enum c2c_disp d)
{
	static const char *const t[] = { "Total HITMs", "Local HITMs", "Remote HITMs",
					 "Peer Snoops", "Total HITMs and Peer Snoops" };
	return t[d];
}

static void pct_or_nan(FILE *f, const char *label, uint64_t a, uint64_t b)
{
	if (b)
		fprintf(f, "  %-34s:%11.1f%%\n", label, 100.0 * (double)a / (double)b);
	else
		fprintf(f, "  %-34s:%11s\n", label, "n/a");
}

static void print_stats(FILE *f, const struct c2c_ctx *x)
{
	const struct mp_c2c_stats *s = &x->tot;
	uint64_t llcm = mp_c2c_llc_misses(s);
#define P(l, v) fprintf(f, "  %-34s: %10" PRIu64 "\n", l, (uint64_t)(v))
	fputs("=================================================\n"
	      "            Trace Event Information              \n"
	      "=================================================\n", f);
	P("Total records", s->records);
	P("Locked Load/Store Operations", s->locks);
	P("Load Operations", s->loads);
	P("Loads - uncacheable", s->ld_uncache);
	P("Loads - IO", s->ld_io);
	P("Loads - Miss", s->ld_miss);
	P("Loads - no mapping", s->ld_noadrs);
	P("Load Fill Buffer Hit", s->ld_fbhit);
	P("Load L1D hit", s->ld_l1hit);
	P("Load L2D hit", s->ld_l2hit);
	P("Load LLC hit", s->ld_llchit + s->lcl_hitm);
	P("Load Local HITM", s->lcl_hitm);
	P("Load Remote HITM", s->rmt_hitm);
	P("Load Remote HIT", s->rmt_hit);
	P("Load Local DRAM", s->lcl_dram);
	P("Load Remote DRAM", s->rmt_dram);
	P("Load MESI State Exclusive", s->ld_excl);
	P("Load MESI State Shared", s->ld_shared);
	P("Load LLC Misses", llcm);
	P("Load access blocked by data", s->blk_data);
	P("Load access blocked by address", s->blk_addr);
	P("Load HIT Local Peer", s->lcl_peer);
	P("Load HIT Remote Peer", s->rmt_peer);
	pct_or_nan(f, "LLC Misses to Local DRAM", s->lcl_dram, llcm);
	pct_or_nan(f, "LLC Misses to Remote DRAM", s->rmt_dram, llcm);
	pct_or_nan(f, "LLC Misses to Remote cache (HIT)", s->rmt_hit, llcm);
	pct_or_nan(f, "LLC Misses to Remote cache (HITM)", s->rmt_hitm, llcm);
	P("Store Operations", s->stores);
	P("Store - uncacheable", s->st_uncache);
	P("Store - no mapping", s->st_noadrs);
	P("Store L1D Hit", s->st_l1hit);
	P("Store L1D Miss", s->st_l1miss);
	P("Store No available memory level", s->st_na);
	P("No Page Map Rejects", s->nomap);
	P("Unable to parse data source", s->noparse);

	struct mp_c2c_stats sh = { 0 };
	uint64_t nshared = 0;
	for (size_t i = 0; i < x->nlines; i++)
		if (line_shared(&x->lines[i])) {
			nshared++;
			mp_c2c_stats_add(&sh, &x->lines[i].st);
		}
	fputs("\n=================================================\n"
	      "    Global Shared Cache Line Event Information   \n"
	      "=================================================\n", f);
	P("Total Shared Cache Lines", nshared);
	P("Load HITs on shared lines", sh.loads);
	P("Fill Buffer Hits on shared lines", sh.ld_fbhit);
	P("L1D hits on shared lines", sh.ld_l1hit);
	P("L2D hits on shared lines", sh.ld_l2hit);
	P("LLC hits on shared lines", sh.ld_llchit + sh.lcl_hitm);
	P("Load hits on peer cache or nodes", mp_c2c_tot_peer(&sh));
	P("Locked Access on shared lines", sh.locks);
	P("Blocked Access on shared lines", sh.blk_data + sh.blk_addr);
	P("Store HITs on shared lines", sh.stores);
	P("Store L1D hits on shared lines", sh.st_l1hit);
	P("Store No available memory level", sh.st_na);
	P("Total Merged records", mp_c2c_tot_hitm(&sh) + sh.stores);
#undef P
}

static void line_dsym(const struct c2c_line *L, char *buf, size_t n)
{
	if (L->dsym && L->dsym_line)
		snprintf(buf, n, "%s+0x%" PRIx64, L->dsym, L->dsym_off);
	else if (L->dsym)
		snprintf(buf, n, "%s", L->dsym);
	else
		snprintf(buf, n, "%s", L->ddso && strcmp(L->ddso, "[unknown]") ? L->ddso : "[unknown]");
}

static void fmt_srcline(const struct mp_sym_loc *loc, char *buf, size_t n)
{
	if (loc->srcfile && loc->line) {
		const char *b = strrchr(loc->srcfile, '/');
		snprintf(buf, n, "%s:%u", b ? b + 1 : loc->srcfile, loc->line);
	} else {
		snprintf(buf, n, "%s", "??:0");
	}
}

static void fmt_cpus(const struct c2c_row *r, char *buf, size_t n, unsigned *count)
{
	size_t len = 0;
	*count = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < C2C_MAX_CPUS; c++)
		if (r->cpus[c / 64] >> (c % 64) & 1) {
			(*count)++;
			if (len + 8 < n)
				len += (size_t)snprintf(buf + len, n - len, "%s%u", len ? " " : "", c);
		}
}

static void fmt_nodes(const struct c2c_row *r, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned k = 0; k < C2C_MAX_NODES; k++)
		if (r->nodes >> k & 1 && len + 6 < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%u", len ? "," : "", k);
	if (r->node_unknown && len + 4 < n)
		snprintf(buf + len, n - len, "%s-", len ? "," : "");
}

/* perf's node list: "0", "0-1", "0,2-3"; "N/A" for none */
static const char *fmt_pnodes(uint64_t set, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned k = 0; k < 64 && len + 8 < n; k++) {
		if (!(set >> k & 1))
			continue;
		unsigned e = k;
		while (e + 1 < 64 && set >> (e + 1) & 1)
			e++;
		len += (size_t)(e > k ? snprintf(buf + len, n - len, "%s%u-%u", len ? "," : "", k, e)
				      : snprintf(buf + len, n - len, "%s%u", len ? "," : "", k));
		k = e;
	}
	if (!len)
		snprintf(buf, n, "N/A");
	return buf;
}

static double avg(uint64_t w, uint64_t n)
{
	return n ? (double)w / (double)n : 0;
}

static double share(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* The lines shown: those with a share of the sort metric, or all with --show-all. */
static int line_shown(const struct c2c_line *l, uint64_t total, enum c2c_disp d, int show_all)
{
	if (show_all)
		return line_shared(l) || l->st.stores;
	uint64_t m = disp_metric(&l->st, d);
	return total && m && (double)m / (double)total >= C2C_LINE_LIMIT;
}

struct c2c_report_opts {
	enum c2c_disp disp;
	int csv, show_all, no_source;
	const char *disp_name, *coalesce_str;
	int tui, no_color;         /* the browser (a terminal, or --batch keys) */
	const char *batch, *size;
};

/* The next line shown from *i on (*i its index in x->lines), its address and data symbol
 * into addr and ds; NULL after the last. The tables' and the csv's walk. */
static const struct c2c_line *next_shown(const struct c2c_ctx *x, const struct c2c_report_opts *o,
					 uint64_t total, size_t *i, char *addr, size_t an,
					 char *ds, size_t dn)
{
	for (; *i < x->nlines; ++*i) {
		const struct c2c_line *L = &x->lines[*i];
		if (!line_shown(L, total, o->disp, o->show_all))
			continue;
		snprintf(addr, an, "0x%" PRIx64, L->k.cl);
		line_dsym(L, ds, dn);
		return L;
	}
	return NULL;
}

/* The Shared Data Cache Line Table's column names (its second header line) into buf. */
static void table_head(const struct c2c_report_opts *o, char *buf, size_t n)
{
	int peer = o->disp == DISP_PEER;
	snprintf(buf, n, "# Index             Address  Node  PA cnt  %s    Total  %s  %s  records    Loads   Stores    L1Hit   L1Miss      N/A       FB       L1       L2    LclHit  LclHitm    RmtHit  RmtHitm       Lcl       Rmt  Data Symbol",
		 peer ? "  Snoop" : "   Hitm", peer ? "  Local" : "LclHitm", peer ? " Remote" : "RmtHitm");
}

/* Line L's row of the table (number idx, total of the sort metric; its address and data
 * symbol as next_shown gave them) into buf. */
static void table_row(const struct c2c_line *L, const struct c2c_report_opts *o, size_t idx,
		      uint64_t total, const char *addr, const char *ds, char *buf, size_t n)
{
	int peer = o->disp == DISP_PEER;
	const struct mp_c2c_stats *s = &L->st;
	char pn[64];
	uint64_t t0 = peer ? mp_c2c_tot_peer(s) : mp_c2c_tot_hitm(s);
	uint64_t t1 = peer ? s->lcl_peer : s->lcl_hitm, t2 = peer ? s->rmt_peer : s->rmt_hitm;
	snprintf(buf, n, "%7zu  %18s  %4s  %6" PRIu32 "  %6.2f%%  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
		 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
		 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %8" PRIu64
		 "  %7" PRIu64 "  %8" PRIu64 "  %7" PRIu64 "  %8" PRIu64 "  %8" PRIu64 "  %s",
		 idx, addr, fmt_pnodes(L->pa.nodes, pn, sizeof(pn)), L->pa.cnt,
		 share(disp_metric(s, o->disp), total), t0, t1, t2, mp_c2c_line_records(s),
		 mp_c2c_line_loads(s), s->stores, s->st_l1hit, s->st_l1miss, s->st_na, s->ld_fbhit,
		 s->ld_l1hit, s->ld_l2hit, s->ld_llchit, s->lcl_hitm, s->rmt_hit, s->rmt_hitm,
		 s->lcl_dram, s->rmt_dram, ds);
}

static void print_table(FILE *f, struct c2c_ctx *x, const struct c2c_report_opts *o,
			uint64_t total)
{
	int peer = o->disp == DISP_PEER;
	static const char *const mtitle[] = { "    Tot", "    Lcl", "    Rmt", "   Peer", "    All" };
	char buf[1024];
	fputs("\n=================================================\n"
	      "           Shared Data Cache Line Table          \n"
	      "=================================================\n#\n", f);
	fprintf(f, "#        ----------- Cacheline ----------  %s  ------- Load %s -------    Total    Total    Total  --------- Stores --------  ----- Core Load Hit -----  - LLC Load Hit --  - RMT Load Hit --  --- Load Dram ----\n",
		mtitle[o->disp], peer ? "Peer" : "Hitm");
	table_head(o, buf, sizeof(buf));
	fprintf(f, "%s\n", buf);
	fputs("# .....  ..................  ....  ......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  .......  ........  .......  ........  .......  ........  ........  ...........\n#\n", f);
	size_t idx = 0;
	char ds[300], addr[24];
	const struct c2c_line *L;
	for (size_t i = 0; (L = next_shown(x, o, total, &i, addr, sizeof(addr), ds, sizeof(ds)));
	     i++) {
		table_row(L, o, idx++, total, addr, ds, buf, sizeof(buf));
		fprintf(f, "%s\n", buf);
	}
}

struct c2c_cells {
	char sym[160], obj[80], src[160], nodes[80], dsym[200], cpus[200];
	unsigned ncpus;
};

static void row_cells(struct c2c_ctx *x, const struct c2c_row *r, int no_source,
		      struct c2c_cells *c)
{
	struct mp_sym_loc loc;
	code_sym(x, r->map, r->cpumode, r->ip, !no_source, &loc);
	snprintf(c->sym, sizeof(c->sym), "[%c] %s", loc.level, loc.sym);
	snprintf(c->obj, sizeof(c->obj), "%s", loc.dso);
	if (no_source)
		snprintf(c->src, sizeof(c->src), "-");
	else
		fmt_srcline(&loc, c->src, sizeof(c->src));
	fmt_nodes(r, c->nodes, sizeof(c->nodes));
	fmt_cpus(r, c->cpus, sizeof(c->cpus), &c->ncpus);
	if (r->dsym)
		snprintf(c->dsym, sizeof(c->dsym), "%s+0x%" PRIx64, r->dsym, r->dsym_off);
	else
		snprintf(c->dsym, sizeof(c->dsym), "%s", "[unknown]");
}

static void fmt_tid(const struct c2c_ctx *x, const struct c2c_row *r, char *pid, char *tid,
		    size_t n)
{
	if (x->coalesce & (CO_PID | CO_TID))
		snprintf(pid, n, "%u", r->pid);
	else
		snprintf(pid, n, "*");
	if ((x->coalesce & CO_TID) || !r->multi_tid)
		snprintf(tid, n, "%u", r->tid);
	else
		snprintf(tid, n, "*");
}

/* The Pareto's column names (its second header line) into buf. */
static void pareto_head(const struct c2c_report_opts *o, char *buf, size_t n)
{
	int peer = o->disp == DISP_PEER;
	snprintf(buf, n, "#   Num  %s  %s   L1 Hit  L1 Miss      N/A    Offset  Node  PA cnt       Pid       Tid        Code address  rmt hitm  lcl hitm      load  records       cnt  Symbol, Object, Source:Line, Node, Data Symbol",
		 peer ? "RmtPeer" : "RmtHitm", peer ? "LclPeer" : "LclHitm");
}

/* Line L's summary row of the Pareto (number idx, its address and data symbol) into buf. */
static void pareto_line(const struct c2c_line *L, const struct c2c_report_opts *o, size_t idx,
			const char *addr, const char *ds, char *buf, size_t n)
{
	int peer = o->disp == DISP_PEER;
	const struct mp_c2c_stats *s = &L->st;
	snprintf(buf, n, "%7zu  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64 "  %7" PRIu64
		 "  %18s  %s%s%s%s",
		 idx, peer ? s->rmt_peer : s->rmt_hitm, peer ? s->lcl_peer : s->lcl_hitm,
		 s->st_l1hit, s->st_l1miss, s->st_na, addr, ds, L->dsym ? " (" : "",
		 L->dsym ? L->ddso : "", L->dsym ? ")" : "");
}

/* Row r of line L's Pareto into buf, and its share of the line's HITMs (peers with -d
 * peer) into *pct: 0, or 1 when perf leaves the row out (neither stores nor what -d
 * counts; the csv has them all). */
static int pareto_row(struct c2c_ctx *x, const struct c2c_line *L, const struct c2c_row *r,
		      const struct c2c_report_opts *o, char *buf, size_t n, double *pct)
{
	int peer = o->disp == DISP_PEER;
	const struct mp_c2c_stats *s = &L->st, *t = &r->st;
	if (!t->stores && !disp_metric(t, o->disp))
		return 1;
	uint64_t rm = peer ? s->rmt_peer : s->rmt_hitm, lm = peer ? s->lcl_peer : s->lcl_hitm;
	struct c2c_cells c;
	char pid[16], tid[16], off[24], ip[24], pn[64];
	row_cells(x, r, o->no_source, &c);
	fmt_tid(x, r, pid, tid, sizeof(pid));
	snprintf(off, sizeof(off), "0x%" PRIx64, r->k.off);
	snprintf(ip, sizeof(ip), "0x%" PRIx64, r->ip);
	snprintf(buf, n, "         %6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  %6.2f%%  %8s  %4s  %6" PRIu32
		 "  %8s  %8s"
		 "  %18s  %8.0f  %8.0f  %8.0f  %7" PRIu64 "  %8u  %s  %s  %s  %s  %s",
		 share(peer ? t->rmt_peer : t->rmt_hitm, rm),
		 share(peer ? t->lcl_peer : t->lcl_hitm, lm), share(t->st_l1hit, s->st_l1hit),
		 share(t->st_l1miss, s->st_l1miss), share(t->st_na, s->st_na), off,
		 fmt_pnodes(r->pa.nodes, pn, sizeof(pn)), r->pa.cnt, pid, tid, ip,
		 avg(r->w_rmt_hitm, r->n_rmt_hitm), avg(r->w_lcl_hitm, r->n_lcl_hitm),
		 avg(r->w_load, r->n_load), mp_c2c_line_records(t), c.ncpus, c.sym, c.obj, c.src,
		 c.nodes, c.dsym);
	*pct = share(peer ? t->rmt_peer + t->lcl_peer : t->rmt_hitm + t->lcl_hitm, rm + lm);
	return 0;
}

static void print_pareto(FILE *f, struct c2c_ctx *x, const struct c2c_report_opts *o,
			 uint64_t total, const struct c2c_verdict *v)
{
	int peer = o->disp == DISP_PEER;
	char buf[2048];
	double pct;
	fputs("\n=================================================\n"
	      "      Shared Cache Line Distribution Pareto      \n"
	      "=================================================\n#\n", f);
	fprintf(f, "#        ----- %s -----  ------- Store Refs ------  ---------- Data address ----------                                    ---------- cycles ----------    Total       cpu\n",
		peer ? "Peer" : "HITM");
	pareto_head(o, buf, sizeof(buf));
	fprintf(f, "%s\n", buf);
	fputs("# .....  .......  .......  .......  .......  .......  ........  ....  ......  ........  ........  ..................  ........  ........  ........  .......  ........\n#\n", f);
	size_t idx = 0;
	char ds[300], addr[24];
	const struct c2c_line *L;
	for (size_t i = 0; (L = next_shown(x, o, total, &i, addr, sizeof(addr), ds, sizeof(ds)));
	     i++) {
		fputs("  ----------------------------------------------------------------------\n", f);
		pareto_line(L, o, idx++, addr, ds, buf, sizeof(buf));
		fprintf(f, "%s\n", buf);
		fputs("  ----------------------------------------------------------------------\n", f);
		for (size_t k = L->r0; k < L->r1; k++)
			if (!pareto_row(x, L, &x->rows[k], o, buf, sizeof(buf), &pct))
				fprintf(f, "%s\n", buf);
		fprintf(f, "  => %s\n\n", v[i].text);
	}
}

/* The browser (memprof c2c report on a terminal, or --batch): the table's lines, ENTER on
 * one its Pareto by offset with the verdict under it; the rows are the text report's. The
 * exit status. */
static int c2c_browse(struct c2c_ctx *x, const struct c2c_report_opts *o, uint64_t total,
		      const struct c2c_verdict *v, const char *input)
{
	static const char *const mname[] = { "Tot HITM", "Lcl HITM", "Rmt HITM", "Peer",
					     "HITM and peer" };
	struct mp_err err = { 0 };
	char head[512], buf[2048], title[512], ds[300], addr[24];
	tui_data *d = tui_data_new();
	int rc = d ? 0 : -ENOMEM;
	/* the browser's events (its summary's; the rows are text): as many as it takes */
	for (size_t i = 0; !rc && i < mp_pd_nattrs(x->pd) && i < TUI_MAX_EVENTS; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(x->pd, i);
		if (tui_data_add_event(d, a->name ? a->name : "?", a->nr_samples, a->total_period,
				       a->lost, 0, 0) < 0)
			rc = -ENOMEM;
	}
	size_t nshown = 0;
	for (size_t i = 0; i < x->nlines; i++)
		nshown += line_shown(&x->lines[i], total, o->disp, o->show_all);
	table_head(o, head, sizeof(head));
	snprintf(title, sizeof(title), "Shared Data Cache Line Table of %s | %zu lines by %s, "
		 "%u-byte lines", input, nshown, mname[o->disp], x->line_size);
	tui_ttable *t = rc ? NULL : tui_ttable_new(title, head);
	if (!rc && (!t || tui_data_set_table(d, t)))
		rc = -ENOMEM;
	pareto_head(o, head, sizeof(head));
	size_t idx = 0;
	const struct c2c_line *L;
	for (size_t i = 0; !rc && (L = next_shown(x, o, total, &i, addr, sizeof(addr), ds, sizeof(ds)));
	     i++) {
		table_row(L, o, idx, total, addr, ds, buf, sizeof(buf));
		long row = tui_ttable_add_row(t, buf, share(disp_metric(&L->st, o->disp), total));
		snprintf(title, sizeof(title), "Cacheline %s (line %zu) | %s | %s", addr, idx, ds,
			 verdict_name(v[i].kind));
		tui_ttable *sub = row < 0 ? NULL : tui_ttable_new(title, head);
		if (!sub || tui_ttable_set_sub(t, (size_t)row, sub)) {
			rc = -ENOMEM;
			break;
		}
		pareto_line(L, o, idx++, addr, ds, buf, sizeof(buf));
		rc = tui_ttable_add_row(sub, buf, 0) < 0 ? -ENOMEM : 0;
		for (size_t k = L->r0; !rc && k < L->r1; k++) {
			double pct;
			if (!pareto_row(x, L, &x->rows[k], o, buf, sizeof(buf), &pct))
				rc = tui_ttable_add_row(sub, buf, pct) < 0 ? -ENOMEM : 0;
		}
		/* the verdict under the rows, in lines of at most 96 columns cut at spaces */
		const char *p = v[i].text;
		for (int first = 1; !rc && *p; first = 0) {
			size_t n = strlen(p), cut = n;
			if (n > 93)
				for (cut = 93; cut > 0 && p[cut] != ' '; cut--)
					;
			if (!cut)
				cut = n > 93 ? 93 : n;
			snprintf(buf, sizeof(buf), "%s%.*s", first ? "=> " : "   ", (int)cut, p);
			rc = tui_ttable_add_note(sub, buf) ? -ENOMEM : 0;
			p += cut;
			while (*p == ' ')
				p++;
		}
	}
	if (rc) {
		tui_data_free(d);
		cli_error(CMD, "%s: out of memory", input);
		return 1;
	}
	int cols, rows;
	cli_tui_size(CMD, o->size, &cols, &rows);
	tui_model *m = tui_model_new(d, cols, rows, &err);
	if (!m) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	rc = o->batch ? cli_tui_batch(m, o->batch, cols, rows) : cli_tui_interactive(m, o->no_color);
	tui_model_free(m);
	return rc;
}

static void print_csv(FILE *f, struct c2c_ctx *x, const struct c2c_report_opts *o,
		      uint64_t total, const struct c2c_verdict *v)
{
	fputs("line,cacheline,offset,data_symbol,data_object,symbol,object,srcline,code_address,"
	      "pid,tid,hitm,lcl_hitm,rmt_hitm,peer,loads,stores,st_l1hit,st_l1miss,records,"
	      "latency,lat_lcl_hitm,lat_rmt_hitm,lat_load,cpus,nodes,pa_node,pa_cnt,line_hitm,"
	      "line_peer,verdict\n", f);
	size_t idx = 0;
	char ds[300], addr[24];
	const struct c2c_line *L;
	for (size_t i = 0; (L = next_shown(x, o, total, &i, addr, sizeof(addr), ds, sizeof(ds)));
	     i++) {
		for (size_t k = L->r0; k < L->r1; k++) {
			const struct c2c_row *r = &x->rows[k];
			const struct mp_c2c_stats *t = &r->st;
			struct c2c_cells c;
			char pid[16], tid[16];
			row_cells(x, r, o->no_source, &c);
			fmt_tid(x, r, pid, tid, sizeof(pid));
			fprintf(f, "%zu,%s,0x%" PRIx64 ",", idx, addr, r->k.off);
			cli_csv_str(f, c.dsym);
			fputc(',', f);
			cli_csv_str(f, L->ddso ? L->ddso : "[unknown]");
			fputc(',', f);
			cli_csv_str(f, c.sym + 4);
			fputc(',', f);
			cli_csv_str(f, c.obj);
			fputc(',', f);
			cli_csv_str(f, c.src);
			fprintf(f,
				",0x%" PRIx64 ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%.1f,%.1f,%.1f,%.1f,",
				r->ip, pid, tid, mp_c2c_tot_hitm(t), t->lcl_hitm, t->rmt_hitm,
				mp_c2c_tot_peer(t), t->loads, t->stores, t->st_l1hit, t->st_l1miss,
				t->records, avg(r->w_all, r->n_all), avg(r->w_lcl_hitm, r->n_lcl_hitm),
				avg(r->w_rmt_hitm, r->n_rmt_hitm), avg(r->w_load, r->n_load));
			cli_csv_str(f, c.cpus);
			fputc(',', f);
			cli_csv_str(f, c.nodes);
			char pn[64];
			fprintf(f, ",%s,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",",
				fmt_pnodes(r->pa.nodes, pn, sizeof(pn)), r->pa.cnt,
				mp_c2c_tot_hitm(&L->st), mp_c2c_tot_peer(&L->st));
			cli_csv_str(f, verdict_name(v[i].kind));
			fputc('\n', f);
		}
		idx++;
	}
}

static int parse_coalesce(const char *s, unsigned *out)
{
	*out = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		if (len == 3 && !strncmp(s, "pid", 3))
			*out |= CO_PID;
		else if (len == 3 && !strncmp(s, "tid", 3))
			*out |= CO_TID;
		else if (len == 5 && !strncmp(s, "iaddr", 5))
			*out |= CO_IADDR;
		else if (len == 3 && !strncmp(s, "dso", 3))
			*out |= CO_DSO;
		else {
			cli_error(CMD, "-c %.*s: coalesce fields are pid, tid, iaddr and dso",
				  (int)len, s);
			return -1;
		}
		s += len + (s[len] == ',');
	}
	return 0;
}

static int c2c_report_run(const char *input, const char *symfs, const char *kallsyms,
			  unsigned line_opt, struct c2c_report_opts *o, unsigned coalesce)
{
	struct c2c_ctx x = { .coalesce = coalesce };
	struct mp_err err = { 0 };
	struct c2c_verdict *v = NULL;
	struct mp_pd_build_id *bids = NULL;
	char *bdir = NULL;
	int rc = 1;
	const char *line_from = "the host's coherency_line_size";

	x.pd = mp_pd_open(input, &err);
	if (!x.pd) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	int has_mem = 0;
	for (size_t i = 0; i < mp_pd_nattrs(x.pd); i++)
		has_mem |= !!(mp_pd_attr(x.pd, i)->attr.sample_type & PERF_SAMPLE_DATA_SRC) &&
			   !!(mp_pd_attr(x.pd, i)->attr.sample_type & PERF_SAMPLE_ADDR);
	if (!has_mem) {
		cli_error(CMD, "%s: no event of the recording has data addresses and sources "
			  "(record with memprof c2c record, or memprof c2c record --sim)", input);
		goto out;
	}
	if (line_opt) {
		x.line_size = line_opt;
		line_from = "--line-size";
	} else if ((x.line_size = mp_pd_cache_line_size(x.pd))) {
		line_from = mp_pd_meta(x.pd, MP_META_SIM_D1) ? "the simulated L1d"
							       : "the recording's caches";
	} else {
		x.line_size = cli_host_line_size();
	}
	if (x.line_size & (x.line_size - 1)) {
		cli_error(CMD, "%s: cache line size %u (from %s) is not a power of two", input,
			  x.line_size, line_from);
		goto out;
	}
	x.has_topo = mp_pd_topo_read(x.pd, &x.topo) == 0;
	if (mp_pd_memtopo_read(x.pd, &x.mt) == -ENOMEM) {
		cli_error(CMD, "%s: out of memory for the memory topology", input);
		goto out;
	}
	size_t nb = mp_pd_nbuild_ids(x.pd);
	bids = nb ? calloc(nb, sizeof(*bids)) : NULL;
	for (size_t i = 0; bids && i < nb; i++)
		bids[i] = *mp_pd_build_id(x.pd, i);
	bdir = cli_buildid_dir(symfs);
	struct mp_sym_opts so = { .symfs = symfs, .kallsyms = kallsyms, .buildid_dir = bdir,
				  .no_srcline = o->no_source,
				  .osrelease = mp_pd_feature_str(x.pd, 4 /* HEADER_OSRELEASE */) };
	x.sym = mp_sym_new(&so, bids, nb, &err);
	x.dd = x.sym ? mp_daddr_new(x.sym, symfs, 0) : NULL;
	x.heap = mp_heap_new(x.pd); /* NULL without allocation records */
	if (!x.dd) {
		cli_error(CMD, "%s: %s", input, err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	struct mp_pd_handler h = { .ctx = &x, .sample = on_sample, .mmap = on_mmap,
				   .comm = on_comm, .fork = on_fork, .exit = on_exit_ };
	if (mp_pd_process(x.pd, &h, &err)) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	for (size_t i = 0; i < x.nlines; i++)
		line_name(&x.lines[i]);
	/* lines by the sort metric; each line's rows and facts by the line's new index */
	g_disp = o->disp;
	uint32_t *newidx = malloc((x.nlines + 1) * sizeof(*newidx));
	for (size_t i = 0; newidx && i < x.nlines; i++)
		x.lines[i].r0 = i; /* the old index, for the remap below */
	if (!newidx) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	qsort(x.lines, x.nlines, sizeof(*x.lines), line_cmp);
	for (size_t i = 0; i < x.nlines; i++)
		newidx[x.lines[i].r0] = (uint32_t)i;
	for (size_t i = 0; i < x.nrows; i++)
		x.rows[i].line = newidx[x.rows[i].line];
	for (size_t i = 0; i < x.not; i++)
		x.ot[i].k.line = newidx[x.ot[i].k.line];
	free(newidx);
	qsort(x.rows, x.nrows, sizeof(*x.rows), row_cmp);
	qsort(x.ot, x.not, sizeof(*x.ot), ot_cmp);
	for (size_t i = 0; i < x.nlines; i++)
		x.lines[i].r0 = x.lines[i].r1 = 0;
	for (size_t k = 0; k < x.nrows;) {
		size_t e = k;
		while (e < x.nrows && x.rows[e].line == x.rows[k].line)
			e++;
		x.lines[x.rows[k].line].r0 = k;
		x.lines[x.rows[k].line].r1 = e;
		k = e;
	}
	v = calloc(x.nlines + 1, sizeof(*v));
	if (!v) {
		cli_error(CMD, "out of memory");
		goto out;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < x.nlines; i++)
		total += disp_metric(&x.lines[i].st, o->disp);
	for (size_t k = 0; k < x.not;) {
		size_t e = k;
		while (e < x.not && x.ot[e].k.line == x.ot[k].k.line)
			e++;
		if (line_shown(&x.lines[x.ot[k].k.line], total, o->disp, o->show_all))
			line_verdict(&x, x.ot[k].k.line, k, e, &v[x.ot[k].k.line]);
		k = e;
	}
	if (o->tui) {
		rc = c2c_browse(&x, o, total, v, input);
		goto out;
	} else if (o->csv) {
		print_csv(stdout, &x, o, total, v);
	} else {
		char sim[256];
		printf("# memprof c2c report of %s\n", input);
		if (mp_pd_sim_banner(x.pd, sim, sizeof(sim)))
			printf("# %s\n", sim);
		printf("#\n");
		print_stats(stdout, &x);
		printf("\n=================================================\n"
		       "                 c2c details                     \n"
		       "=================================================\n");
		for (size_t i = 0; i < mp_pd_nattrs(x.pd); i++) {
			const struct mp_pd_attr *a = mp_pd_attr(x.pd, i);
			printf("  %-34s: %s\n", i ? "" : "Events", a && a->name ? a->name : "?");
		}
		printf("  %-34s: %s\n", "Cachelines sort on", disp_title(o->disp));
		printf("  %-34s: offset%s%s%s%s\n", "Cacheline data grouping",
		       coalesce & CO_PID ? ",pid" : "", coalesce & CO_TID ? ",tid" : "",
		       coalesce & CO_IADDR ? ",iaddr" : "", coalesce & CO_DSO ? ",dso" : "");
		printf("  %-34s: %u (%s)\n", "Cache line size", x.line_size, line_from);
		print_table(stdout, &x, o, total);
		print_pareto(stdout, &x, o, total, v);
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	free(v);
	mp_heap_free(x.heap);
	mp_daddr_free(x.dd);
	mp_sym_free(x.sym);
	free(bids);
	free(bdir);
	free(x.lines);
	free(x.rows);
	free(x.ot);
	mp_u64map_fini(&x.lmap);
	mp_u64map_fini(&x.rmap);
	mp_u64map_fini(&x.omap);
	if (x.has_topo)
		mp_pd_topo_fini(&x.topo);
	mp_pd_memtopo_fini(&x.mt);
	mp_pd_close(x.pd);
	return rc;
}

static const char c2c_report_usage[] = "report [-i FILE] [-d tot|lcl|rmt|peer|all] [-c FIELDS] "
				       "[--stdio|--csv|--tui]";
static const struct cli_cmd c2c_report_cmd = {
	CMD, NULL, "", c2c_report_usage,
	"The Shared Data Cache Line Table of a recording with data addresses and sources\n"
	"(memprof c2c record, perf c2c record, perf mem record): perf c2c's counts, the lines\n"
	"sorted by HITM, and per line its offsets, threads and code, with a verdict: false\n"
	"sharing or true sharing, and what to do about it.",
	0,
};

static int c2c_report(int argc, char **argv)
{
	const char *input = NULL, *symfs = NULL, *kallsyms = NULL, *disp = "tot",
		   *coalesce_s = "tid,iaddr";
	const char *batch = NULL, *size = NULL;
	int csv = 0, stdio_ = 0, show_all = 0, no_source = 0, force = 0, tui = 0, no_color = 0;
	uint64_t line_size = 0;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&input),
		CLI_OPT_FORCE(&force),
		CLI_OPT_SYMFS(&symfs),
		CLI_OPT_KALLSYMS(&kallsyms),
		{ 'd', "display", CLI_STR, &disp, "MODE",
		  "sort and show lines by tot (all HITMs, the default), lcl (local HITMs), rmt "
		  "(remote HITMs), peer (loads served by a peer cache) or all (HITMs and peer)" },
		{ 'c', "coalesce", CLI_STR, &coalesce_s, "FIELDS",
		  "what the rows of a line are split by besides the offset: pid, tid, iaddr, dso "
		  "(default tid,iaddr; perf's default is iaddr)" },
		{ 0, "stdio", CLI_FLAG, &stdio_, NULL,
		  "the text report (the default when stdin or stdout is not a terminal)" },
		{ 0, "tui", CLI_FLAG, &tui, NULL,
		  "the browser (the default on a terminal): the lines, ENTER a line's offsets" },
		{ 0, "batch", CLI_STR, &batch, "KEYS",
		  "the browser without a terminal: apply KEYS (<ENTER>, <DOWN>, }, ...) and print "
		  "the screen" },
		{ 0, "size", CLI_STR, &size, "COLSxROWS", "screen size for --batch (default 80x24)" },
		{ 0, "no-color", CLI_FLAG, &no_color, NULL, "the browser without colour" },
		{ 0, "csv", CLI_FLAG, &csv, NULL,
		  "one comma-separated row per line, offset and row key: line, cacheline, offset, "
		  "data_symbol, symbol, srcline, pid, tid, hitm, loads, stores, latency, ... verdict" },
		{ 0, "show-all", CLI_FLAG, &show_all, NULL,
		  "every shared line (HITM, peer or store), not only those with HITMs" },
		{ 0, "no-source", CLI_FLAG, &no_source, NULL, "no Source:Line column (no DWARF read)" },
		{ 0, "line-size", CLI_U64, &line_size, "BYTES",
		  "cache line size (default: the recording's, else this machine's "
		  "coherency_line_size)" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&c2c_report_cmd, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	if (cli_input_arg(CMD, &input, nargs, argv))
		return CLI_EXIT_USAGE;
	struct c2c_report_opts o = { .csv = csv, .show_all = show_all, .no_source = no_source,
				     .disp_name = disp };
	static const char *const modes[] = { "tot", "lcl", "rmt", "peer", "all" };
	size_t m;
	for (m = 0; m < 5 && strcmp(disp, modes[m]); m++)
		;
	if (m == 5) {
		cli_error(CMD, "-d %s: display modes are tot, lcl, rmt, peer and all", disp);
		return CLI_EXIT_USAGE;
	}
	o.disp = (enum c2c_disp)m;
	unsigned co;
	if (parse_coalesce(coalesce_s, &co))
		return CLI_EXIT_USAGE;
	if (line_size && (line_size > 4096 || (line_size & (line_size - 1)))) {
		cli_error(CMD, "--line-size %" PRIu64 ": a power of two up to 4096", line_size);
		return CLI_EXIT_USAGE;
	}
	if (csv + stdio_ + (tui || batch) > 1) {
		cli_error(CMD, "--csv, --stdio and --tui (--batch) exclude each other");
		return CLI_EXIT_USAGE;
	}
	int cols, rows;
	if (size && !batch) {
		cli_error(CMD, "--size goes with --batch");
		return CLI_EXIT_USAGE;
	}
	if (cli_tui_size(CMD, size, &cols, &rows))
		return CLI_EXIT_USAGE;
	int tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	if (tui && !batch && !tty) {
		cli_error(CMD, "--tui needs a terminal on stdin and stdout (or --batch KEYS)");
		return CLI_EXIT_USAGE;
	}
	o.tui = batch || tui || (!csv && !stdio_ && tty);
	o.batch = batch;
	o.size = size;
	o.no_color = no_color;
	if (cli_input_ready(CMD, &input, force) || cli_sym_paths_ok(CMD, symfs, kallsyms))
		return CLI_EXIT_RUNTIME;
	return c2c_report_run(input, symfs, kallsyms, (unsigned)line_size, &o, co);
}

int cli_c2c_help(FILE *f)
{
	fprintf(f, "usage: memprof %s %s\n\n%s\n\n", CMD, c2c_usage, c2c_summary);
	fprintf(f, "record options:\n"
		   "      --sim           the simulator's memory samples (memprof record --sim -d,\n"
		   "                      two simulated cores unless --sim-cores; -c N: every Nth\n"
		   "                      load and store) where the machine has no such events\n"
		   "      --ldlat N       load-latency threshold in cycles (default 30)\n"
		   "  -e list             the events, their encodings, and whether the kernel\n"
		   "                      offers them\n"
		   "      --alloc         track the command's heap (memprof record --alloc):\n"
		   "                      report names a line's data by its allocation site;\n"
		   "                      with --sim the simulator's heap is always tracked (a\n"
		   "                      freed block is kept from threads still behind the free)\n"
		   "      --no-alloc      with --sim: not tracked (the workload's own malloc is\n"
		   "                      simulated, and may show sharing the program lacks)\n"
		   "  other options go to memprof record (-o FILE, -a, -c COUNT, -g, ...); the\n"
		   "  recording has data addresses (-d), weights (-W) and CPUs (--sample-cpu)\n"
		   "\nreport options: memprof c2c report --help\n"
		   "\nSee memprof-c2c(1).\n");
	return 0;
}

static int cmd_c2c(int argc, char **argv)
{
	if (argc < 2) {
		cli_error(CMD, "say record or report (memprof c2c --help)");
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cli_c2c_help(stdout);
	if (!strcmp(argv[1], "record"))
		return cli_mem_record(CMD, argc - 1, argv + 1, 1);
	if (!strcmp(argv[1], "report"))
		return c2c_report(argc - 1, argv + 1);
	cli_error(CMD, "'%s': say record or report (memprof c2c --help)", argv[1]);
	return CLI_EXIT_USAGE;
}

const struct cli_cmd cli_cmd_c2c = {
	CMD, cmd_c2c, "cache lines shared between threads: false and true sharing (as perf c2c)",
	c2c_usage, c2c_summary, 1,
};
