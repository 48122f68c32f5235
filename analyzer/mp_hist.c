/* mp_hist.c - aggregation of samples per place: a hash table keyed by
 * (attr, pid, tid, comm, map, ip), then each distinct (map, ip) resolved once, then
 * grouping by any key combination. Memory grows with distinct places, not with samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "mp_disasm.h"
#include "mp_util.h"

struct place {
	uint64_t ip;
	uint64_t samples, period;
	uint32_t pid, tid, comm, map;
	uint32_t attr, cpu;
	uint16_t cpumode;
	uint16_t used;
	uint32_t loc;
	uint32_t region;
};

struct loc {
	struct mp_sym_loc l;
	uint64_t symhash, filehash;
	uint64_t ip;
	uint32_t map;
	uint16_t cpumode;
	uint16_t has_line;
	/* the source line one instruction back (skid), looked up on first need */
	const char *skid_file;
	unsigned skid_line;
	int skid_done;
};

struct mp_hist {
	size_t nattrs;
	struct place *tab;
	size_t cap, n;
	struct mp_hist_counts *total;
	size_t last;  /* slot of the last place added (consecutive samples often repeat) */
	/* resolution */
	struct loc *locs;
	size_t nlocs, caplocs;
	int resolved, resolved_lines;
	/* the branches inside each function a skidding sample fell in, by fbmap */
	struct fn_branches *fbs;
	size_t capfbs, nfbs;
	struct mp_u64map fbmap;
};

struct fn_branches {
	uint64_t start;
	struct mp_branches b;
};

mp_hist *mp_hist_new(size_t nattrs)
{
	mp_hist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->nattrs = nattrs ? nattrs : 1;
	h->total = calloc(h->nattrs, sizeof(*h->total));
	h->cap = 1024;
	h->tab = calloc(h->cap, sizeof(*h->tab));
	if (!h->total || !h->tab) {
		mp_hist_free(h);
		return NULL;
	}
	return h;
}

void mp_hist_free(mp_hist *h)
{
	if (!h)
		return;
	free(h->tab);
	free(h->total);
	free(h->locs);
	for (size_t i = 0; i < h->nfbs; i++)
		mp_branches_fini(&h->fbs[i].b);
	free(h->fbs);
	mp_u64map_fini(&h->fbmap);
	free(h);
}

/* The branches inside function (dso, start, size), disassembled on first need; NULL when
 * out of memory (then the instruction before in memory is taken). Functions are found by
 * (dso, the start's low 48 bits): a user-space start has no more, a kernel one's are all set. */
static const struct fn_branches *fn_branches(mp_hist *h, mp_sym *s, uint32_t dso,
					     uint64_t start, uint64_t size)
{
	int found;
	uint32_t *slot = mp_u64map_slot(&h->fbmap,
					mp_u64map_key((uint64_t)dso << 48 | (start & ((1ULL << 48) - 1))),
					&found);
	if (!slot)
		return NULL;
	if (found)
		return h->fbs[*slot].start == start ? &h->fbs[*slot] : NULL;
	if (h->nfbs == h->capfbs) {
		size_t nc = h->capfbs ? 2 * h->capfbs : 64;
		struct fn_branches *t = realloc(h->fbs, nc * sizeof(*t));
		if (!t) {
			mp_u64map_unslot(&h->fbmap, slot);
			return NULL;
		}
		h->fbs = t;
		h->capfbs = nc;
	}
	struct fn_branches *f = &h->fbs[h->nfbs];
	f->start = start;
	mp_disasm_branches(s, dso, start, size, &f->b); /* out of memory: no branches */
	*slot = (uint32_t)h->nfbs++;
	return f;
}

static inline uint64_t place_hash(uint64_t ip, uint32_t pid, uint32_t tid, uint32_t comm,
				  uint32_t map, uint32_t attr, uint16_t cpumode, uint32_t cpu)
{
	uint64_t k = (ip ^ ((uint64_t)cpu << 48)) * 0x9e3779b97f4a7c15ULL;
	k ^= ((uint64_t)tid << 32 | pid) * 0xc2b2ae3d27d4eb4fULL;
	k ^= ((uint64_t)map << 32 | comm) * 0x165667b19e3779f9ULL;
	k ^= ((uint64_t)attr << 16 | cpumode) * 0x27d4eb2f165667c5ULL;
	return mp_mix64(k);
}

static int hist_grow(mp_hist *h)
{
	size_t ncap = h->cap * 2;
	struct place *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		struct place *p = &h->tab[i];
		if (!p->used)
			continue;
		size_t j = place_hash(p->ip, p->pid, p->tid, p->comm, p->map, p->attr, p->cpumode,
				    p->cpu) &
			   (ncap - 1);
		while (nt[j].used)
			j = (j + 1) & (ncap - 1);
		nt[j] = *p;
	}
	free(h->tab);
	h->tab = nt;
	h->cap = ncap;
	h->last = 0;
	return 0;
}

int mp_hist_add_key(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		    uint32_t cpu, uint32_t region, uint32_t map_id, uint16_t cpumode,
		    uint64_t ip, uint64_t period)
{
	if (attr >= h->nattrs)
		return -EINVAL;
	uint32_t a = (uint32_t)attr;
	struct place *lp = &h->tab[h->last];
	if (lp->ip == ip && lp->used && lp->tid == tid && lp->map == map_id && lp->attr == a &&
	    lp->pid == pid && lp->comm == comm_id && lp->cpumode == cpumode && lp->cpu == cpu &&
	    lp->region == region) {
		lp->samples++;
		lp->period += period;
		h->total[attr].samples++;
		h->total[attr].period += period;
		return 0;
	}
	size_t j = place_hash(ip, pid, tid, comm_id, map_id, a, cpumode, cpu ^ region << 20) &
		   (h->cap - 1);
	for (;;) {
		struct place *p = &h->tab[j];
		if (!p->used)
			break;
		if (p->ip == ip && p->pid == pid && p->tid == tid && p->map == map_id &&
		    p->comm == comm_id && p->attr == a && p->cpumode == cpumode && p->cpu == cpu &&
		    p->region == region) {
			p->samples++;
			p->period += period;
			h->total[attr].samples++;
			h->total[attr].period += period;
			h->last = j;
			return 0;
		}
		j = (j + 1) & (h->cap - 1);
	}
	if ((h->n + 1) * 4 > h->cap * 3) {
		if (hist_grow(h))
			return -ENOMEM;
		return mp_hist_add_key(h, attr, pid, tid, comm_id, cpu, region, map_id, cpumode,
				       ip, period);
	}
	struct place *p = &h->tab[j];
	*p = (struct place){ .ip = ip, .samples = 1, .period = period, .pid = pid, .tid = tid,
			     .comm = comm_id, .map = map_id, .attr = a, .cpumode = cpumode,
			     .cpu = cpu, .used = 1, .loc = UINT32_MAX, .region = region };
	h->n++;
	h->last = j;
	h->total[attr].samples++;
	h->total[attr].period += period;
	h->resolved = 0;
	return 0;
}

void mp_hist_add_again(mp_hist *h, uint64_t samples, uint64_t period)
{
	struct place *lp = &h->tab[h->last];
	lp->samples += samples;
	lp->period += period;
	h->total[lp->attr].samples += samples;
	h->total[lp->attr].period += period;
}

int mp_hist_add_cpu(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		    uint32_t cpu, uint32_t map_id, uint16_t cpumode, uint64_t ip, uint64_t period)
{
	return mp_hist_add_key(h, attr, pid, tid, comm_id, cpu, 0, map_id, cpumode, ip, period);
}

int mp_hist_add(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		uint32_t map_id, uint16_t cpumode, uint64_t ip, uint64_t period)
{
	return mp_hist_add_cpu(h, attr, pid, tid, comm_id, 0, map_id, cpumode, ip, period);
}

/* ---- resolution ---- */

static uint64_t lockey(uint32_t map, uint16_t cpumode, uint64_t ip)
{
	return mp_mix64(ip ^ ((uint64_t)map << 20) ^ ((uint64_t)cpumode << 58)) ^ ip;
}

/* Find or create the loc of (map, cpumode, ip) in idx; the 64-bit key is a hash, so the
 * stored fields are compared and the next key probed on a collision. */
static int loc_lookup(mp_hist *h, struct mp_u64map *idx, const struct place *p, int *created,
		      uint32_t *out)
{
	uint64_t k = lockey(p->map, p->cpumode, p->ip);
	for (;;) {
		if (k == UINT64_MAX)
			k--;
		int found;
		uint32_t *slot = mp_u64map_slot(idx, k, &found);
		if (!slot)
			return -ENOMEM;
		if (found) {
			const struct loc *L = &h->locs[*slot];
			if (L->map == p->map && L->cpumode == p->cpumode && L->ip == p->ip) {
				*created = 0;
				*out = *slot;
				return 0;
			}
			k = mp_mix64(k + 1);
			continue;
		}
		if (mp_grow((void **)&h->locs, &h->caplocs, h->nlocs + 1, sizeof(struct loc))) {
			/* the slot was taken: point it at a loc that can never match */
			*slot = 0;
			return -ENOMEM;
		}
		struct loc *L = &h->locs[h->nlocs];
		memset(L, 0, sizeof(*L));
		L->map = p->map;
		L->cpumode = p->cpumode;
		L->ip = p->ip;
		*slot = (uint32_t)h->nlocs;
		*out = (uint32_t)h->nlocs++;
		*created = 1;
		return 0;
	}
}

static void loc_resolve(mp_sym *s, struct loc *L, int want_line)
{
	mp_sym_resolve(s, L->map, L->cpumode, L->ip, want_line, &L->l);
	L->has_line = want_line;
	L->symhash = mp_strhash(L->l.sym);
	L->filehash = mp_strhash(L->l.srcfile);
}

/* The debug info of the objects of every place opened before their lines are looked up,
 * in the order the loop below would load them (mp_sym_prepare_lines). */
static int prepare_lines(mp_hist *h, mp_sym *s)
{
	uint32_t *maps = malloc((h->n ? h->n : 1) * sizeof(*maps));
	uint64_t *ips = malloc((h->n ? h->n : 1) * sizeof(*ips));
	size_t n = 0;
	if (!maps || !ips) {
		free(maps);
		free(ips);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->cap; i++)
		if (h->tab[i].used && n < h->n) {
			ips[n] = h->tab[i].ip;
			maps[n++] = h->tab[i].map;
		}
	mp_sym_prepare_lines(s, maps, ips, n);
	free(maps);
	free(ips);
	return 0;
}

/* Source lines for every loc resolved without them. */
static void add_lines(mp_hist *h, mp_sym *s)
{
	for (size_t i = 0; i < h->nlocs; i++)
		if (!h->locs[i].has_line)
			loc_resolve(s, &h->locs[i], 1);
	h->resolved_lines = 1;
}

int mp_hist_resolve(mp_hist *h, mp_sym *s, int want_line)
{
	if (h->resolved && (!want_line || h->resolved_lines))
		return 0;
	int rc = want_line ? prepare_lines(h, s) : 0;
	if (rc)
		return rc;
	if (h->resolved && want_line) {
		/* every place has its loc already: add the lines */
		add_lines(h, s);
		return 0;
	}
	struct mp_u64map idx = { 0 };
	for (size_t i = 0; i < h->cap && !rc; i++) {
		struct place *p = &h->tab[i];
		if (!p->used || p->loc != UINT32_MAX)
			continue;
		int created;
		uint32_t li;
		rc = loc_lookup(h, &idx, p, &created, &li);
		if (rc)
			break;
		p->loc = li;
		if (created)
			loc_resolve(s, &h->locs[li], want_line);
	}
	mp_u64map_fini(&idx);
	if (rc)
		return rc;
	h->resolved = 1;
	if (want_line)
		add_lines(h, s);
	return 0;
}

size_t mp_hist_nattrs(const mp_hist *h)
{
	return h->nattrs;
}

size_t mp_hist_nplaces(const mp_hist *h)
{
	return h->n;
}

const struct mp_hist_counts *mp_hist_total(const mp_hist *h, size_t attr)
{
	static const struct mp_hist_counts zero;
	return attr < h->nattrs ? &h->total[attr] : &zero;
}

/* ---- queries ---- */

struct qctx {
	const struct mp_hist_query *q;
	unsigned keys;
	size_t nattrs;
	const mp_hist *h;
	struct mp_hist_result *res;
	const uint64_t *order_tot; /* per attr total period, for share sorting */
};

static uint64_t row_hash(unsigned keys, const struct place *p, const struct loc *L)
{
	uint64_t k = 0x12345;
	if (keys & MP_HK_COMM)
		k = mp_mix64(k ^ p->comm);
	if (keys & MP_HK_PID)
		k = mp_mix64(k ^ ((uint64_t)p->pid << 1));
	if (keys & MP_HK_TID)
		k = mp_mix64(k ^ ((uint64_t)p->tid << 2));
	if (keys & MP_HK_CPU)
		k = mp_mix64(k ^ ((uint64_t)p->cpu << 5));
	if (keys & MP_HK_REGION)
		k = mp_mix64(k ^ ((uint64_t)p->region << 9) ^ 0x7e);
	if (keys & MP_HK_SRCFILE)
		k = mp_mix64(k ^ L->filehash ^ 0x5f);
	if (keys & MP_HK_DSO)
		k = mp_mix64(k ^ ((uint64_t)L->l.dso_idx << 3));
	if (keys & MP_HK_SYM)
		k = mp_mix64(k ^ L->symhash ^ (uint64_t)(unsigned char)L->l.level);
	if (keys & MP_HK_SRCLINE) {
		k = mp_mix64(k ^ L->filehash ^ ((uint64_t)L->l.line << 7));
		if (!L->l.srcfile)
			k = mp_mix64(k ^ L->l.addr ^ ((uint64_t)L->l.dso_idx << 40));
	}
	if (keys & MP_HK_ADDR)
		k = mp_mix64(k ^ L->l.addr ^ ((uint64_t)L->l.dso_idx << 40));
	return k;
}

static int row_eq(unsigned keys, const struct mp_hist_row *r, const struct place *p,
		  const struct loc *L, const mp_sym *s)
{
	if ((keys & MP_HK_COMM) && !mp_streq(r->comm, mp_sym_comm_name(s, p->comm)))
		return 0;
	if ((keys & MP_HK_PID) && r->pid != p->pid)
		return 0;
	if ((keys & MP_HK_TID) && r->tid != p->tid)
		return 0;
	if ((keys & MP_HK_CPU) && r->cpu != p->cpu)
		return 0;
	if ((keys & MP_HK_REGION) && r->region != p->region)
		return 0;
	if ((keys & MP_HK_SRCFILE) && !mp_streq(r->srcfile, L->l.srcfile))
		return 0;
	if ((keys & MP_HK_DSO) && r->dso_idx != L->l.dso_idx)
		return 0;
	if ((keys & MP_HK_SYM) && (r->level != L->l.level || !mp_streq(r->sym, L->l.sym)))
		return 0;
	if ((keys & MP_HK_SRCLINE) && (r->line != L->l.line || !mp_streq(r->srcfile, L->l.srcfile)))
		return 0;
	if ((keys & MP_HK_SRCLINE) && !L->l.srcfile &&
	    (r->addr != L->l.addr || r->dso_idx != L->l.dso_idx))
		return 0;
	if ((keys & MP_HK_ADDR) && (r->addr != L->l.addr || r->dso_idx != L->l.dso_idx))
		return 0;
	return 1;
}

static int cmpstr(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a)
		return 1;
	if (!b)
		return -1;
	return strcmp(a, b);
}

static int key_cmp(unsigned keys, const struct mp_hist_row *a, const struct mp_hist_row *b)
{
	int c;
	if ((keys & MP_HK_REGION) && (c = cmpstr(a->region_name, b->region_name)))
		return c;
	if ((keys & MP_HK_COMM) && (c = cmpstr(a->comm, b->comm)))
		return c;
	if ((keys & MP_HK_PID) && a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if ((keys & MP_HK_TID) && a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if ((keys & MP_HK_CPU) && a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if ((keys & (MP_HK_SRCFILE | MP_HK_SRCLINE)) == MP_HK_SRCFILE &&
	    (c = cmpstr(a->srcfile, b->srcfile)))
		return c;
	if ((keys & MP_HK_DSO) && (c = cmpstr(a->dso, b->dso)))
		return c;
	if ((keys & MP_HK_SRCLINE)) {
		if ((c = cmpstr(a->srcfile, b->srcfile)))
			return c;
		if (a->line != b->line)
			return a->line < b->line ? -1 : 1;
	}
	if ((keys & MP_HK_ADDR) && a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* perf's sort__sym_sort: an unresolved symbol (perf's NULL) after every named one */
	if ((keys & MP_HK_SYM) && a->sym_resolved != b->sym_resolved)
		return a->sym_resolved ? -1 : 1;
	if ((keys & MP_HK_SYM) && (c = cmpstr(a->sym, b->sym)))
		return c;
	return 0;
}

/* qsort has no context argument in C11: sort an index array with a file-local comparator
 * through a small explicit merge sort instead. */
static int row_cmp(const struct qctx *qc, size_t ia, size_t ib)
{
	const struct mp_hist_row *a = &qc->res->rows[ia], *b = &qc->res->rows[ib];
	size_t n = qc->nattrs;

	if (!qc->q->sort_by_key) {
		if (qc->q->sort_attr == SIZE_MAX) {
			double sa = 0, sb = 0;
			for (size_t k = 0; k < n; k++) {
				double t = qc->order_tot[k] ? (double)qc->order_tot[k] : 1.0;
				sa += (double)a->c[k].period / t;
				sb += (double)b->c[k].period / t;
			}
			if (sa != sb)
				return sa > sb ? -1 : 1;
		} else {
			size_t first = qc->q->sort_attr < n ? qc->q->sort_attr : 0;
			if (a->c[first].period != b->c[first].period)
				return a->c[first].period > b->c[first].period ? -1 : 1;
			for (size_t k = 0; k < n; k++) {
				if (k == first)
					continue;
				if (a->c[k].period != b->c[k].period)
					return a->c[k].period > b->c[k].period ? -1 : 1;
			}
			if (a->c[first].samples != b->c[first].samples)
				return a->c[first].samples > b->c[first].samples ? -1 : 1;
		}
	}
	int c = key_cmp(qc->keys, a, b);
	if (c)
		return c;
	return ia < ib ? -1 : ia > ib;
}

static void msort(const struct qctx *qc, size_t *v, size_t *tmp, size_t n)
{
	if (n < 2)
		return;
	if (n < 12) {
		for (size_t i = 1; i < n; i++) {
			size_t x = v[i], j = i;
			while (j > 0 && row_cmp(qc, v[j - 1], x) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	msort(qc, v, tmp, h);
	msort(qc, v + h, tmp, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = row_cmp(qc, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static int dso_matches(mp_sym *s, uint32_t dso_idx, const char *want)
{
	if (!want)
		return 1;
	if (dso_idx == UINT32_MAX)
		return !strcmp(want, "[unknown]");
	const struct mp_sym_dso_info *d = mp_sym_dso(s, dso_idx, 0);
	if (!d)
		return 0;
	if (!strcmp(d->name, want) || !strcmp(d->path, want))
		return 1;
	return 0;
}

/* A skidding event's sample counted for the line of the instruction that ran before it, in
 * the same function (annotate's rule): at a loop's head its closing branch (the only branch
 * to there, from after it), else the instruction before in memory (the byte before an
 * instruction start belongs to it). L itself when the line stays, else tmp with that line. */
static const struct loc *skid_loc(mp_hist *h, mp_sym *s, struct loc *L, struct loc *tmp)
{
	if (!L->skid_done) {
		L->skid_done = 1;
		L->skid_file = L->l.srcfile;
		L->skid_line = L->l.line;
		uint64_t prev = 0;
		if (L->l.sym_resolved && L->l.sym_size && L->ip && L->l.dso_idx != UINT32_MAX) {
			const struct fn_branches *f = fn_branches(h, s, L->l.dso_idx, L->l.sym_start,
								  L->l.sym_size);
			uint64_t from = f ? mp_disasm_came_from(&f->b, L->l.elf_addr) : 0;
			if (from)
				prev = L->ip + (from - L->l.elf_addr);
		}
		if (!prev && L->l.sym_resolved && L->l.elf_addr > L->l.sym_start && L->ip)
			prev = L->ip - 1;
		if (prev) {
			struct mp_sym_loc t;
			mp_sym_resolve(s, L->map, L->cpumode, prev, 1, &t);
			if (t.sym_resolved && t.sym_start == L->l.sym_start && t.srcfile) {
				L->skid_file = t.srcfile;
				L->skid_line = t.line;
			}
		}
	}
	if (L->skid_file == L->l.srcfile && L->skid_line == L->l.line)
		return L;
	*tmp = *L;
	tmp->l.srcfile = L->skid_file;
	tmp->l.line = L->skid_line;
	tmp->filehash = mp_strhash(L->skid_file);
	return tmp;
}

/* perf report's --comm, --pid, --tid, --dso and --symbols. */
static int place_wanted(const struct mp_hist_query *q, mp_sym *s, const struct place *p,
			const struct loc *L)
{
	if (q->dso && !dso_matches(s, L->l.dso_idx, q->dso))
		return 0;
	if (q->sym && !mp_streq(L->l.sym, q->sym))
		return 0;
	return mp_filter_keeps(&q->filter, s, q->filter.comms ? mp_sym_comm_name(s, p->comm) : NULL,
			       p->pid, p->tid, L->l.dso_idx, L->l.sym);
}

/* The rows being grouped, found by key hash through an open-addressing table of row ids. */
struct grouping {
	unsigned keys;
	size_t na;
	struct mp_hist_row *rows;
	struct mp_hist_counts *counts; /* [nrows * na] */
	uint64_t *ghash;               /* [nrows]: row_hash() of each row */
	uint32_t *gtab;                /* [gcap]: row ids, UINT32_MAX empty */
	const mp_pd_regions *regions;  /* names of MP_HK_REGION rows */
	size_t nrows, cap, ccap, ghcap, gcap;
};

/* A new row of place p: the keys grouped on, the others zero. */
static void row_init(struct mp_hist_row *R, unsigned keys, const struct place *p,
		     const struct loc *L, mp_sym *s, const mp_pd_regions *regions)
{
	memset(R, 0, sizeof(*R));
	R->dso_idx = UINT32_MAX;
	if (keys & MP_HK_COMM)
		R->comm = mp_sym_comm_name(s, p->comm);
	if (keys & MP_HK_PID)
		R->pid = p->pid;
	if (keys & MP_HK_TID)
		R->tid = p->tid;
	if (keys & MP_HK_CPU)
		R->cpu = p->cpu;
	if (keys & MP_HK_REGION) {
		R->region = p->region;
		R->region_name = mp_pd_region_name(regions, p->region);
	}
	if (keys & MP_HK_SRCFILE)
		R->srcfile = L->l.srcfile;
	if (keys & (MP_HK_DSO | MP_HK_SYM | MP_HK_ADDR | MP_HK_SRCLINE)) {
		R->dso = L->l.dso;
		R->dso_idx = L->l.dso_idx;
		R->kernel = L->l.kernel;
		R->level = L->l.level;
	}
	if (keys & MP_HK_SYM) {
		R->sym = L->l.sym;
		R->sym_resolved = L->l.sym_resolved;
	}
	if (keys & MP_HK_SRCLINE) {
		R->srcfile = L->l.srcfile;
		R->line = L->l.line;
		if (!L->l.srcfile) {
			/* no line: one row per address, as perf does */
			R->sym = L->l.sym;
			R->sym_resolved = L->l.sym_resolved;
			R->addr = L->l.addr;
			R->elf_addr = L->l.elf_addr;
			R->sym_off = L->l.elf_addr - L->l.sym_start;
		}
	}
	if (keys & MP_HK_ADDR) {
		R->addr = L->l.addr;
		R->elf_addr = L->l.elf_addr;
		if (!(keys & MP_HK_SYM)) {
			R->sym = L->l.sym;
			R->sym_resolved = L->l.sym_resolved;
		}
	}
}

/* Double the hash table of row ids. 0 or -ENOMEM. */
static int group_rehash(struct grouping *g)
{
	size_t ngcap = g->gcap * 2;
	uint32_t *ng = malloc(ngcap * sizeof(uint32_t));
	if (!ng)
		return -ENOMEM;
	memset(ng, 0xff, ngcap * sizeof(uint32_t));
	for (size_t t = 0; t < g->nrows; t++) {
		size_t u = g->ghash[t] & (ngcap - 1);
		while (ng[u] != UINT32_MAX)
			u = (u + 1) & (ngcap - 1);
		ng[u] = (uint32_t)t;
	}
	free(g->gtab);
	g->gtab = ng;
	g->gcap = ngcap;
	return 0;
}

/* The row of place p, added when new: its index, or UINT32_MAX when out of memory. */
static uint32_t group_row(struct grouping *g, const struct place *p, const struct loc *L,
			  mp_sym *s)
{
	uint64_t rh = row_hash(g->keys, p, L);
	size_t j = rh & (g->gcap - 1);

	while (g->gtab[j] != UINT32_MAX) {
		if (g->ghash[g->gtab[j]] == rh && row_eq(g->keys, &g->rows[g->gtab[j]], p, L, s))
			return g->gtab[j];
		j = (j + 1) & (g->gcap - 1);
	}
	size_t n = g->nrows;
	if (mp_grow((void **)&g->rows, &g->cap, n + 1, sizeof(*g->rows)) ||
	    mp_grow((void **)&g->ghash, &g->ghcap, n + 1, sizeof(*g->ghash)) ||
	    mp_grow((void **)&g->counts, &g->ccap, (n + 1) * g->na, sizeof(*g->counts)))
		return UINT32_MAX;
	row_init(&g->rows[n], g->keys, p, L, s, g->regions);
	memset(&g->counts[n * g->na], 0, g->na * sizeof(*g->counts));
	g->ghash[n] = rh;
	g->gtab[j] = (uint32_t)n;
	g->nrows++;
	if (g->nrows * 2 > g->gcap && group_rehash(g))
		return UINT32_MAX;
	return (uint32_t)n;
}

static void group_fini(struct grouping *g)
{
	free(g->gtab);
	free(g->ghash);
	free(g->rows);
	free(g->counts);
	memset(g, 0, sizeof(*g));
}

/* Sort the grouped rows as q asks into res, which takes them over (g keeps nothing).
 * 0 or -ENOMEM. */
static int sort_into(const mp_hist *h, const struct mp_hist_query *q, struct grouping *g,
		     struct mp_hist_result *res)
{
	size_t na = g->na, nrows = g->nrows;
	size_t *ord = malloc((nrows + 1) * sizeof(size_t));
	size_t *tmp = malloc((nrows + 1) * sizeof(size_t));
	uint64_t *tot = malloc(na * sizeof(uint64_t));
	struct mp_hist_row *sorted = malloc((nrows + 1) * sizeof(*sorted));
	struct mp_hist_counts *scounts = malloc((nrows * na + 1) * sizeof(*scounts));
	int rc = -ENOMEM;

	if (!ord || !tmp || !tot || !sorted || !scounts)
		goto out;
	for (size_t k = 0; k < na; k++)
		tot[k] = h->total[k].period;
	for (size_t i = 0; i < nrows; i++)
		ord[i] = i;
	struct qctx qc = { .q = q, .keys = g->keys, .nattrs = na, .h = h, .res = res,
			   .order_tot = tot };
	res->rows = g->rows;
	msort(&qc, ord, tmp, nrows);
	for (size_t i = 0; i < nrows; i++) {
		sorted[i] = g->rows[ord[i]];
		memcpy(&scounts[i * na], &g->counts[ord[i] * na], na * sizeof(*scounts));
		sorted[i].c = &scounts[i * na];
	}
	group_fini(g);
	res->rows = sorted;
	res->counts = scounts;
	res->nrows = nrows;
	res->nattrs = na;
	sorted = NULL;
	scounts = NULL;
	rc = 0;
out:
	free(ord);
	free(tmp);
	free(tot);
	free(sorted);
	free(scounts);
	return rc;
}

int mp_hist_query(mp_hist *h, mp_sym *s, const struct mp_hist_query *q,
		  struct mp_hist_result *res)
{
	struct mp_hist_query dq = { 0 };

	memset(res, 0, sizeof(*res));
	if (!q)
		q = &dq;
	unsigned keys = q->keys ? q->keys : (MP_HK_DSO | MP_HK_SYM);
	int rc = mp_hist_resolve(h, s, (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE)) != 0);
	if (rc)
		return rc;
	struct grouping g = { .keys = keys, .na = h->nattrs, .gcap = 64, .regions = q->regions };
	g.gtab = malloc(g.gcap * sizeof(uint32_t));
	if (!g.gtab)
		return -ENOMEM;
	memset(g.gtab, 0xff, g.gcap * sizeof(uint32_t));
	for (size_t i = 0; i < h->cap; i++) {
		const struct place *p = &h->tab[i];
		if (!p->used)
			continue;
		const struct loc *L = &h->locs[p->loc];
		struct loc tmp;
		if (!place_wanted(q, s, p, L))
			continue;
		if (q->skid && q->skid[p->attr] && (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE)) &&
		    L->has_line)
			L = skid_loc(h, s, &h->locs[p->loc], &tmp);
		uint32_t r = group_row(&g, p, L, s);
		if (r == UINT32_MAX)
			goto nomem;
		g.counts[(size_t)r * g.na + p->attr].samples += p->samples;
		g.counts[(size_t)r * g.na + p->attr].period += p->period;
	}
	for (size_t i = 0; i < g.nrows; i++)
		g.rows[i].c = &g.counts[i * g.na];
	if (sort_into(h, q, &g, res))
		goto nomem;
	return 0;
nomem:
	group_fini(&g);
	memset(res, 0, sizeof(*res));
	return -ENOMEM;
}

void mp_hist_result_fini(struct mp_hist_result *res)
{
	if (!res)
		return;
	free(res->rows);
	free(res->counts);
	memset(res, 0, sizeof(*res));
}

int mp_hist_parse_sort(const char *list, unsigned *keys, struct mp_err *err)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{ "comm", MP_HK_COMM },	  { "pid", MP_HK_PID },	    { "tid", MP_HK_TID },
		{ "dso", MP_HK_DSO },	  { "sym", MP_HK_SYM },	    { "symbol", MP_HK_SYM },
		{ "srcline", MP_HK_SRCLINE }, { "addr", MP_HK_ADDR },
		{ "cpu", MP_HK_CPU },	  { "srcfile", MP_HK_SRCFILE },
		{ "region", MP_HK_REGION },
	};
	unsigned k = 0;
	const char *p = list;

	if (!list || !*list)
		return mp_err_set(err, -EINVAL, "empty sort key list");
	while (*p) {
		size_t n = strcspn(p, ",");
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && !strncmp(names[i].name, p, n))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return mp_err_set(err, -EINVAL,
					  "unknown sort key '%.*s' (comm, pid, tid, cpu, region, "
					  "dso, sym, srcline, srcfile, addr)", (int)n, p);
		k |= names[i].bit;
		p += n;
		if (*p == ',')
			p++;
	}
	*keys = k;
	return 0;
}

static int missing_cmp(const void *pa, const void *pb)
{
	const struct mp_hist_missing *a = pa, *b = pb;
	if (a->pct_max != b->pct_max)
		return a->pct_max > b->pct_max ? -1 : 1;
	return strcmp(a->dso, b->dso);
}

long mp_hist_missing(mp_hist *h, mp_sym *s, int want_line, struct mp_hist_missing **out)
{
	struct mp_hist_query q = { .keys = MP_HK_DSO };
	struct mp_hist_result r;
	*out = NULL;
	int rc = mp_hist_query(h, s, &q, &r);
	if (rc)
		return rc;
	struct mp_hist_missing *v = calloc(r.nrows + 1, sizeof(*v));
	if (!v) {
		mp_hist_result_fini(&r);
		return -ENOMEM;
	}
	size_t n = 0;
	for (size_t i = 0; i < r.nrows; i++) {
		const struct mp_hist_row *R = &r.rows[i];
		unsigned flags = 0;
		if (R->dso_idx != UINT32_MAX) {
			const struct mp_sym_dso_info *d = mp_sym_dso(s, R->dso_idx, 1);
			flags = d ? d->flags : 0;
		}
		int nosym = !(flags & MP_DSO_SYMTAB);
		int nodbg = want_line && !(flags & MP_DSO_KERNEL) && !(flags & MP_DSO_DEBUGINFO);
		if (!nosym && !nodbg)
			continue;
		struct mp_hist_missing *m = &v[n++];
		m->dso = R->dso_idx == UINT32_MAX ? "[unknown]" : mp_sym_dso(s, R->dso_idx, 0)->name;
		m->flags = flags;
		m->no_symbols = nosym;
		m->no_debuginfo = nodbg;
		for (size_t k = 0; k < r.nattrs && k < 8; k++) {
			uint64_t t = h->total[k].period;
			m->pct[k] = t ? 100.0 * (double)R->c[k].period / (double)t : 0;
			if (m->pct[k] > m->pct_max)
				m->pct_max = m->pct[k];
		}
	}
	mp_hist_result_fini(&r);
	qsort(v, n, sizeof(*v), missing_cmp);
	*out = v;
	return (long)n;
}
