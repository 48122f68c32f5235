/* mp_cg.c - call chains aggregated as a prefix tree of (map, ip) frames, then named once
 * per distinct address and folded into a tree of functions, from which the children/self
 * table, the per-entry trees of perf report -g and the stack iteration are made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "memprof/callgraph.h"
#include "mp_cg_int.h"

/* ---- feeding ---- */

int mp_cg_sample_ips(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t **ips,
		     size_t *n)
{
	(void)ctx;
	(void)sym;
	if (s->nr_callchain) {
		*ips = s->callchain;
		*n = s->nr_callchain;
	} else {
		*ips = &s->ip;
		*n = 1;
	}
	return 0;
}

mp_cg *mp_cg_new(const struct mp_cg_opts *o)
{
	mp_cg *cg = calloc(1, sizeof(*cg));
	if (!cg)
		return NULL;
	if (o)
		cg->o = *o;
	if (!cg->o.ips)
		cg->o.ips = mp_cg_sample_ips;
	cg->last_frame = UINT32_MAX;
	return cg;
}

static void ftree_fini(struct cg_ftree *t)
{
	free(t->nodes);
	free(t->cnt);
	free(t->fn_first);
	free(t->fn_nodes);
	for (int k = 0; k < 2; k++) {
		free(t->memo[k]);
		free(t->stamp[k]);
	}
	free(t->tkeys);
	free(t->tvals);
	free(t->tgens);
	mp_u64map_fini(&t->idx);
	memset(t, 0, sizeof(*t));
}

void mp_cg_free(mp_cg *cg)
{
	if (!cg)
		return;
	free(cg->frames);
	mp_u64map_fini(&cg->fidx);
	free(cg->nodes);
	free(cg->cnt);
	mp_u64map_fini(&cg->nidx);
	free(cg->fns);
	free(cg->inl);
	mp_u64map_fini(&cg->fnidx);
	free(cg->total);
	free(cg->ipbuf);
	free(cg->lead);
	free(cg->last_ips);
	ftree_fini(&cg->ft);
	cg_mem_fini(cg);
	free(cg);
}

/* Counts are stored with a stride of cg->stride attrs; a sample of a higher attr widens it
 * (once per new attr: recordings have few). */
static int widen(mp_cg *cg, size_t attr)
{
	size_t ns = attr + 1;
	if (ns <= cg->stride)
		return 0;
	struct mp_hist_counts *nc = calloc(cg->capnodes ? cg->capnodes * ns : 1, sizeof(*nc));
	struct mp_hist_counts *nt = calloc(ns, sizeof(*nt));
	if (!nc || !nt) {
		free(nc);
		free(nt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cg->nnodes; i++)
		memcpy(nc + i * ns, cg->cnt + i * cg->stride, cg->stride * sizeof(*nc));
	if (cg->stride)
		memcpy(nt, cg->total, cg->stride * sizeof(*nt));
	free(cg->cnt);
	free(cg->total);
	cg->cnt = nc;
	cg->capcnt = cg->capnodes * ns; /* what nc holds: node_get grows from here */
	cg->total = nt;
	cg->stride = ns;
	return 0;
}

static uint32_t frame_get(mp_cg *cg, uint32_t map, uint16_t cpumode, uint64_t ip)
{
	if (cg->last_frame != UINT32_MAX) {
		const struct cg_frame *f = &cg->frames[cg->last_frame];
		if (f->ip == ip && f->map == map && f->cpumode == cpumode)
			return cg->last_frame;
	}
	uint64_t key = mp_mix64(ip ^ ((uint64_t)map << 40) ^ ((uint64_t)cpumode << 24));
	uint32_t *slot;
	for (size_t probe = 0;; probe++) {
		int found;
		slot = cg_map_slot(&cg->fidx, key + probe * 0x9e3779b97f4a7c15ULL, &found);
		if (!slot)
			return UINT32_MAX;
		if (!found)
			break;
		const struct cg_frame *f = &cg->frames[*slot];
		if (f->ip == ip && f->map == map && f->cpumode == cpumode)
			return cg->last_frame = *slot;
	}
	if (mp_grow((void **)&cg->frames, &cg->capframes, cg->nframes + 1, sizeof(*cg->frames))) {
		mp_u64map_unslot(&cg->fidx, slot);
		return UINT32_MAX;
	}
	struct cg_frame *f = &cg->frames[cg->nframes];
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	f->map = map;
	f->cpumode = cpumode;
	f->fn = UINT32_MAX;
	*slot = (uint32_t)cg->nframes;
	return cg->last_frame = (uint32_t)cg->nframes++;
}

static uint32_t node_get(mp_cg *cg, uint32_t parent, uint32_t comm, uint32_t frame,
			 int self_only)
{
	uint32_t up = parent == UINT32_MAX ? CG_ROOT | comm : parent;
	int found;
	uint32_t *slot = cg_map_slot(&cg->nidx, (uint64_t)up << 32 | frame | (self_only ? CG_SELF : 0),
				     &found);
	if (!slot)
		return UINT32_MAX;
	if (found)
		return *slot;
	if (cg->nnodes >= CG_ROOT - 1 ||
	    mp_grow((void **)&cg->nodes, &cg->capnodes, cg->nnodes + 1, sizeof(*cg->nodes))) {
		mp_u64map_unslot(&cg->nidx, slot);
		return UINT32_MAX;
	}
	if (cg->stride) {
		size_t cap = cg->capcnt;
		if (mp_grow((void **)&cg->cnt, &cap, (cg->nnodes + 1) * cg->stride,
			    sizeof(*cg->cnt))) {
			mp_u64map_unslot(&cg->nidx, slot);
			return UINT32_MAX;
		}
		memset(cg->cnt + cg->nnodes * cg->stride, 0, cg->stride * sizeof(*cg->cnt));
		cg->capcnt = cap;
	}
	cg->nodes[cg->nnodes] = (struct cg_node){ .parent = parent, .frame = frame, .comm = comm,
						   .self_only = self_only };
	*slot = (uint32_t)cg->nnodes;
	return (uint32_t)cg->nnodes++;
}

static uint16_t marker_mode(uint64_t m, uint16_t cur)
{
	switch ((int64_t)m) {
	case PERF_CONTEXT_HV: return PERF_RECORD_MISC_HYPERVISOR;
	case PERF_CONTEXT_KERNEL: return PERF_RECORD_MISC_KERNEL;
	case PERF_CONTEXT_USER: return PERF_RECORD_MISC_USER;
	case PERF_CONTEXT_GUEST_KERNEL: return PERF_RECORD_MISC_GUEST_KERNEL;
	case PERF_CONTEXT_GUEST_USER: return PERF_RECORD_MISC_GUEST_USER;
	default: return cur;
	}
}

int mp_cg_add(mp_cg *cg, mp_sym *sym, size_t attr, uint32_t pid, uint32_t tid,
	      uint16_t cpumode, const uint64_t *ips, size_t n, uint64_t period)
{
	if (attr >= cg->stride && widen(cg, attr))
		return -ENOMEM;
	uint64_t gen = mp_sym_generation(sym);
	if (cg->last_ok && n == cg->last_n && pid == cg->last_pid && tid == cg->last_tid &&
	    cpumode == cg->last_mode && gen == cg->last_gen &&
	    !memcmp(ips, cg->last_ips, n * sizeof(*ips))) {
		cg->nr_chains += cg->last_chain;
		cg->total[attr].samples++;
		cg->total[attr].period += period;
		if (cg->last_node != UINT32_MAX) {
			struct mp_hist_counts *c = &cg->cnt[(size_t)cg->last_node * cg->stride + attr];
			c->samples++;
			c->period += period;
		}
		return 0;
	}
	cg->last_ok = 0;
	/* the real addresses with their cpumodes, leaf first, cut to max_stack */
	if (mp_grow((void **)&cg->ipbuf, &cg->capipbuf, n + 1, sizeof(*cg->ipbuf)))
		return -ENOMEM;
	size_t m = 0;
	uint16_t mode = cpumode;
	for (size_t i = 0; i < n; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			mode = marker_mode(ips[i], mode);
			continue;
		}
		cg->ipbuf[m].ip = ips[i];
		cg->ipbuf[m].mode = mode;
		m++;
	}
	size_t lo = 0, hi = m; /* [lo, hi) kept */
	if (cg->o.max_stack && m > cg->o.max_stack) {
		if (cg->o.caller_limit)
			lo = m - cg->o.max_stack;
		else
			hi = cg->o.max_stack;
	}
	uint32_t comm = cg->o.want_comm ? mp_sym_comm_id(sym, pid, tid) : 0;
	uint32_t node = UINT32_MAX;
	for (size_t i = hi; i-- > lo;) {
		uint32_t map = mp_sym_map_find(sym, pid, cg->ipbuf[i].mode, cg->ipbuf[i].ip);
		uint32_t f = frame_get(cg, map, cg->ipbuf[i].mode, cg->ipbuf[i].ip);
		if (f == UINT32_MAX)
			return -ENOMEM;
		node = node_get(cg, node, comm, f, 0);
		if (node == UINT32_MAX)
			return -ENOMEM;
	}
	if (lo > 0 && node != UINT32_MAX) {
		/* perf keeps the sampled address as the sample's self when --max-stack cuts
		 * it off the chain (caller order): a self-only node under the cut chain */
		uint32_t map = mp_sym_map_find(sym, pid, cg->ipbuf[0].mode, cg->ipbuf[0].ip);
		uint32_t f = frame_get(cg, map, cg->ipbuf[0].mode, cg->ipbuf[0].ip);
		if (f == UINT32_MAX || (node = node_get(cg, node, comm, f, 1)) == UINT32_MAX)
			return -ENOMEM;
	}
	if (m > 1)
		cg->nr_chains++;
	cg->total[attr].samples++;
	cg->total[attr].period += period;
	if (!mp_grow((void **)&cg->last_ips, &cg->caplast, n + 1, sizeof(*ips))) {
		memcpy(cg->last_ips, ips, n * sizeof(*ips));
		cg->last_n = n;
		cg->last_pid = pid;
		cg->last_tid = tid;
		cg->last_mode = cpumode;
		cg->last_gen = gen;
		cg->last_node = node;
		cg->last_chain = m > 1;
		cg->last_ok = 1;
	}
	if (node == UINT32_MAX)
		return 0; /* no address at all: counted in the totals only */
	struct mp_hist_counts *c = &cg->cnt[(size_t)node * cg->stride + attr];
	c->samples++;
	c->period += period;
	cg->resolved = 0;
	return 0;
}

int mp_cg_add_sample(mp_cg *cg, mp_sym *sym, const struct mp_pd_sample *s)
{
	const uint64_t *ips = NULL;
	size_t n = 0;
	int rc = cg->o.ips(cg->o.ips_ctx, sym, s, &ips, &n);
	return rc ? rc : mp_cg_add_chain(cg, sym, s, ips, n);
}

int mp_cg_add_chain(mp_cg *cg, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		    size_t n)
{
	/* The leaf is the sample's ip, as perf's self entry: a chain that does not start
	 * there (none of its addresses, or another one) gets it in front. */
	size_t k = 0;
	while (k < n && ips[k] >= (uint64_t)PERF_CONTEXT_MAX)
		k++;
	if (k == n || ips[k] != s->ip) {
		if (mp_grow((void **)&cg->lead, &cg->caplead, n + 1, sizeof(*cg->lead)))
			return -ENOMEM;
		cg->lead[0] = s->ip;
		if (n)
			memcpy(cg->lead + 1, ips, n * sizeof(*ips));
		/* the markers before the chain's first address would give the ip their
		 * cpumode: the ip keeps the sample's own */
		ips = cg->lead;
		n++;
	}
	return mp_cg_add(cg, sym, s->attr_idx, s->pid, s->tid, s->cpumode, ips, n, s->period);
}

static int session_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s,
			  const uint64_t *ips, size_t n)
{
	mp_cg *cg = ctx;
	int rc = mp_cg_add_chain(cg, sym, s, ips, n);
	if (rc || !cg->o.want_mem || !cg->last_ok || cg->last_node == UINT32_MAX)
		return rc;
	return cg_mem_add(cg, cg->last_node, s);
}

mp_session *mp_cg_session_new(const char *path, const struct mp_session_opts *so,
			      const struct mp_cg_opts *co, mp_cg **cg, struct mp_err *err)
{
	struct mp_session_opts o = { 0 };
	if (so)
		o = *so;
	*cg = mp_cg_new(co);
	if (!*cg) {
		mp_pd_close(o.pd); /* taken over, as by mp_session_new */
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	o.chains = 1;
	o.sample = session_sample;
	o.sample_ctx = *cg;
	if ((*cg)->o.want_mem)
		o.daddr = &(*cg)->dd;
	mp_session *ss = mp_session_new(path, &o, err);
	if (!ss) {
		mp_cg_free(*cg);
		*cg = NULL;
	}
	return ss;
}

uint64_t mp_cg_nr_chains(const mp_cg *cg)
{
	return cg->nr_chains;
}

size_t mp_cg_nattrs(const mp_cg *cg)
{
	return cg->stride;
}

struct mp_hist_counts mp_cg_total(const mp_cg *cg, size_t attr)
{
	return attr < cg->stride ? cg->total[attr] : (struct mp_hist_counts){ 0, 0 };
}

size_t mp_cg_nstacks(const mp_cg *cg)
{
	size_t n = 0;
	for (size_t i = 0; i < cg->nnodes; i++)
		for (size_t a = 0; a < cg->stride; a++)
			if (cg->cnt[i * cg->stride + a].samples) {
				n++;
				break;
			}
	return n;
}

/* ---- resolution ---- */

static uint32_t fn_get(mp_cg *cg, const struct mp_sym_loc *l, const char *name, int inlined,
		       const struct cg_frame *fr)
{
	/* an inlined function is one per symbol it is inlined into (perf's entries of
	 * inlined functions compare their names and their symbol's range) */
	uint64_t in_sym = inlined && l->sym_resolved ? l->sym_start : 0;
	uint64_t key = mp_mix64(mp_strhash(name) ^ ((uint64_t)l->dso_idx << 1 | (unsigned)inlined) ^
			      in_sym * 0x9e3779b97f4a7c15ULL);
	uint32_t *slot;
	for (size_t probe = 0;; probe++) {
		int found;
		slot = cg_map_slot(&cg->fnidx, key + probe * 0x9e3779b97f4a7c15ULL, &found);
		if (!slot)
			return UINT32_MAX;
		if (!found)
			break;
		const struct mp_cg_frame *f = &cg->fns[*slot];
		if (f->dso_idx == l->dso_idx && f->inlined == inlined &&
		    (!inlined || f->sym_start == in_sym) && !strcmp(f->sym, name))
			return *slot;
	}
	if (mp_grow((void **)&cg->fns, &cg->capfns, cg->nfns + 1, sizeof(*cg->fns))) {
		mp_u64map_unslot(&cg->fnidx, slot);
		return UINT32_MAX;
	}
	struct mp_cg_frame *f = &cg->fns[cg->nfns];
	*f = (struct mp_cg_frame){ .sym = name, .dso = l->dso, .dso_idx = l->dso_idx,
				   .fn = (uint32_t)cg->nfns, .ip = fr->ip, .addr = l->addr,
				   .sym_start = l->sym_resolved ? l->sym_start : 0,
				   .srcfile = l->srcfile, .line = l->line, .inlined = inlined,
				   .level = l->level, .sym_resolved = inlined || l->sym_resolved };
	*slot = (uint32_t)cg->nfns;
	return (uint32_t)cg->nfns++;
}

#define CG_MAX_INLINE 64

/* The inlined functions at fr (want_line 2), outermost first into cg->inl, each with the
 * line it is at; the symbol's own line is the outermost call's site. */
static int frame_inlines(mp_cg *cg, mp_sym *sym, struct cg_frame *fr)
{
	struct mp_sym_inline v[CG_MAX_INLINE + 1];
	const char *outer = NULL;
	/* as perf's append_inlines: only addresses with a symbol */
	size_t n = !fr->loc.sym_resolved || fr->cpumode == PERF_RECORD_MISC_KERNEL
			   ? 0
			   : mp_sym_inline_chain(sym, fr->map, fr->ip, v, CG_MAX_INLINE, &outer);
	fr->fn_file = fr->loc.srcfile;
	fr->fn_line = fr->loc.line;
	fr->inl = (uint32_t)cg->ninl;
	fr->ninl = 0;
	fr->renamed = 0;
	/* perf names the function holding the address as DWARF (addr2line) does, and shows
	 * it as inlined when that is not the symbol's name */
	if (outer && strcmp(outer, fr->loc.sym)) {
		v[n] = (struct mp_sym_inline){ .name = outer };
		n++;
		fr->renamed = 1;
	}
	if (!n)
		return 0;
	if (mp_grow((void **)&cg->inl, &cg->capinl, cg->ninl + n, sizeof(*cg->inl)))
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		/* v innermost first: v[j] sits at v[j - 1]'s call site, v[0] at the address */
		struct cg_inl *d = &cg->inl[cg->ninl + n - 1 - j];
		size_t before = cg->nfns;
		/* one with the symbol's own name is the symbol (perf reuses it) */
		d->fn = strcmp(v[j].name, fr->loc.sym) ? fn_get(cg, &fr->loc, v[j].name, 1, fr)
						       : fr->fn;
		if (d->fn == UINT32_MAX)
			return -ENOMEM;
		d->file = j ? v[j - 1].call_file : fr->loc.srcfile;
		d->line = j ? v[j - 1].call_line : fr->loc.line;
		if (d->fn >= before && d->fn != fr->fn) /* new: its file is its lines' */
			cg->fns[d->fn].srcfile = d->file;
	}
	size_t last = n - 1 - (size_t)fr->renamed; /* the outermost inlined call */
	if (n > (size_t)fr->renamed) {
		fr->fn_file = v[last].call_file;
		fr->fn_line = v[last].call_line;
	}
	cg->ninl += n;
	fr->ninl = (uint32_t)n;
	return 0;
}

int mp_cg_resolve(mp_cg *cg, mp_sym *sym, int want_line)
{
	cg->sym = sym;
	if (cg->resolved && cg->want_line >= want_line)
		return 0;
	for (size_t i = 0; i < cg->nframes; i++) {
		struct cg_frame *fr = &cg->frames[i];
		if (fr->fn != UINT32_MAX && fr->want_line >= want_line)
			continue;
		/* the inlined functions come from the whole scope chain (frame_inlines) */
		mp_sym_resolve(sym, fr->map, fr->cpumode, fr->ip, want_line > 1 ? 1 : want_line,
			       &fr->loc);
		fr->want_line = (uint8_t)want_line;
		size_t before = cg->nfns;
		fr->fn = fn_get(cg, &fr->loc, fr->loc.sym, 0, fr);
		if (fr->fn == UINT32_MAX)
			return -ENOMEM;
		fr->fn_file = fr->loc.srcfile;
		fr->fn_line = fr->loc.line;
		fr->ninl = 0;
		if (want_line > 1 && frame_inlines(cg, sym, fr))
			return -ENOMEM;
		if (fr->fn >= before && fr->ninl > (uint32_t)fr->renamed) /* its own file */
			cg->fns[fr->fn].srcfile = fr->fn_file;
	}
	/* a later resolve with lines changes nothing in the function tree without inlined
	 * functions (same names); one with them adds inlined frames */
	if (want_line > 1 && cg->want_line < 2)
		cg->ft_built = 0;
	cg->resolved = 1;
	cg->want_line = want_line;
	return 0;
}

const struct mp_cg_frame *mp_cg_fn(const mp_cg *cg, uint32_t fn)
{
	return fn < cg->nfns ? &cg->fns[fn] : NULL;
}

size_t mp_cg_nfns(const mp_cg *cg)
{
	return cg->nfns;
}

/* ---- the function tree: address stacks folded by function ---- */

static uint32_t ft_get(mp_cg *cg, struct cg_ftree *t, uint32_t parent, uint32_t comm, uint32_t fn,
		       uint32_t owner, int self_only)
{
	uint32_t up = parent == UINT32_MAX ? CG_ROOT | comm : parent;
	int found;
	uint32_t *slot = cg_map_slot(&t->idx, (uint64_t)up << 32 | fn | (self_only ? CG_SELF : 0),
				     &found);
	if (!slot)
		return UINT32_MAX;
	if (found)
		return *slot;
	size_t cap = t->capcnt;
	if (mp_grow((void **)&t->nodes, &t->capnodes, t->n + 1, sizeof(*t->nodes)) ||
	    mp_grow((void **)&t->cnt, &cap, (t->n + 1) * cg->stride, sizeof(*t->cnt))) {
		mp_u64map_unslot(&t->idx, slot);
		return UINT32_MAX;
	}
	t->capcnt = cap;
	memset(t->cnt + t->n * cg->stride, 0, cg->stride * sizeof(*t->cnt));
	uint32_t depth = parent == UINT32_MAX ? 1 : t->nodes[parent].depth + 1;
	t->nodes[t->n] = (struct cg_node){ .parent = parent, .frame = fn, .comm = comm,
					   .depth = depth, .owner = owner, .self_only = self_only };
	*slot = (uint32_t)t->n;
	return (uint32_t)t->n++;
}

/* Build (or reuse) the function tree; addr_to_fnode (optional, [nnodes]) receives each
 * address node's function node. */
int cg_ftree_build(mp_cg *cg, int inline_frames)
{
	if (cg->ft_built && cg->ft_inline == inline_frames && cg->ft_stride == cg->stride)
		return 0;
	ftree_fini(&cg->ft);
	cg->ft_built = 0;
	uint32_t *map = malloc((cg->nnodes + 1) * sizeof(*map));
	if (!map)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; i < cg->nnodes && !rc; i++) {
		const struct cg_node *an = &cg->nodes[i];
		const struct cg_frame *fr = &cg->frames[an->frame];
		uint32_t up = an->parent == UINT32_MAX ? UINT32_MAX : map[an->parent];
		/* the symbol, then its inlined functions (perf's chain of the address: without
		 * the symbol when DWARF names the function otherwise) */
		uint32_t fn = up;
		int ok = 1;
		if (an->self_only)
			ok = (fn = ft_get(cg, &cg->ft, up, an->comm, fr->fn, fr->fn, 1)) != UINT32_MAX;
		else if (!inline_frames || !fr->renamed)
			ok = (fn = ft_get(cg, &cg->ft, up, an->comm, fr->fn, fr->fn, 0)) != UINT32_MAX;
		for (uint32_t j = 0; ok && !an->self_only && inline_frames && j < fr->ninl; j++)
			ok = (fn = ft_get(cg, &cg->ft, fn, an->comm, cg->inl[fr->inl + j].fn,
					  fr->fn, 0)) != UINT32_MAX;
		if (!ok) {
			rc = -ENOMEM;
			break;
		}
		map[i] = fn;
		const struct mp_hist_counts *src = cg->cnt + i * cg->stride;
		struct mp_hist_counts *dst = cg->ft.cnt + (size_t)fn * cg->stride;
		for (size_t a = 0; a < cg->stride; a++) {
			dst[a].samples += src[a].samples;
			dst[a].period += src[a].period;
		}
	}
	free(map);
	if (rc) {
		ftree_fini(&cg->ft);
		return rc;
	}
	cg->ft_built = 1;
	cg->ft_inline = inline_frames;
	cg->ft_stride = cg->stride;
	return 0;
}

static int has_counts(const struct mp_hist_counts *c, size_t n)
{
	for (size_t a = 0; a < n; a++)
		if (c[a].samples || c[a].period)
			return 1;
	return 0;
}

/* ---- stacks ---- */

static void addr_frames(const mp_cg *cg, const struct cg_frame *fr, int inl,
			struct mp_cg_frame *out, size_t *k)
{
	struct mp_cg_frame f = cg->fns[fr->fn];
	f.ip = fr->ip;
	f.addr = fr->loc.addr;
	f.srcfile = fr->loc.srcfile;
	f.line = fr->loc.line;
	if (inl && fr->ninl > (uint32_t)fr->renamed) {
		/* the symbol at its outermost inlined call's site, then each inlined function
		 * at the site of the next one, the innermost at the address's own line */
		f.srcfile = fr->fn_file;
		f.line = fr->fn_line;
		out[(*k)++] = f;
		for (uint32_t j = (uint32_t)fr->renamed; j < fr->ninl; j++) {
			const struct cg_inl *x = &cg->inl[fr->inl + j];
			f = cg->fns[x->fn];
			f.ip = fr->ip;
			f.addr = fr->loc.addr;
			f.srcfile = x->file;
			f.line = x->line;
			out[(*k)++] = f;
		}
		return;
	}
	out[(*k)++] = f;
}

int mp_cg_foreach_stack(mp_cg *cg, const struct mp_cg_iter_opts *o,
			int (*fn)(void *ctx, const struct mp_cg_stack *st), void *ctx)
{
	struct mp_cg_iter_opts none = { 0 };
	if (!o)
		o = &none;
	int rc = 0;
	const struct cg_node *nodes;
	size_t nn;
	const struct mp_hist_counts *cnt;
	if (!o->address) {
		if ((rc = cg_ftree_build(cg, o->inline_frames)))
			return rc;
		nodes = cg->ft.nodes;
		nn = cg->ft.n;
		cnt = cg->ft.cnt;
	} else {
		nodes = cg->nodes;
		nn = cg->nnodes;
		cnt = cg->cnt;
	}
	size_t cap = 64;
	struct mp_cg_frame *fr = malloc(cap * sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	for (size_t i = 0; i < nn && !rc; i++) {
		if (!has_counts(cnt + i * cg->stride, cg->stride))
			continue;
		size_t depth = 0; /* frames of the stack */
		for (uint32_t p = (uint32_t)i; p != UINT32_MAX; p = nodes[p].parent)
			depth += 1 + (o->address && o->inline_frames
					      ? cg->frames[nodes[p].frame].ninl : 0); /* at most */
		/* (a self-only node is no frame) */
		if (mp_grow((void **)&fr, &cap, depth + 1, sizeof(*fr))) {
			rc = -ENOMEM;
			break;
		}
		/* leaf to root into the end of the buffer, then copied forward root first */
		size_t k = 0;
		struct mp_cg_frame tmp[CG_MAX_INLINE + 1];
		size_t pos = depth;
		for (uint32_t p = (uint32_t)i; p != UINT32_MAX; p = nodes[p].parent) {
			size_t t = 0;
			if (nodes[p].self_only)
				continue;
			if (o->address)
				addr_frames(cg, &cg->frames[nodes[p].frame], o->inline_frames, tmp, &t);
			else
				tmp[t++] = cg->fns[nodes[p].frame];
			while (t)
				fr[--pos] = tmp[--t];
		}
		k = depth - pos; /* (the renamed level is left out at address level) */
		memmove(fr, fr + pos, k * sizeof(*fr));
		struct mp_cg_stack st = {
			.comm = cg->o.want_comm ? mp_cg_comm_name(cg, nodes[i].comm) : NULL,
			.nframes = k, .frames = fr, .nattrs = cg->stride,
			.c = cnt + i * cg->stride,
		};
		rc = fn(ctx, &st);
	}
	free(fr);
	return rc;
}
