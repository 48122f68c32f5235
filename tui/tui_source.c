/* tui_source.c - the adapter from the analyzer (and ratios) to the browser's data: one pass
 * over the file by the analyzer, one query per symbol, annotations and ratio evaluations
 * on demand. Nothing here runs per sample. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memprof/callgraph.h"
#include "mp_analyzer.h"
#include "mp_predict.h"
#include "tui_internal.h"
#include "mp_ratios.h"

#define RATIO_MIN_SAMPLES 10

/* the sort keys (perf's, and report --mem-mode's alloc), what their rows are: data
 * objects (globals, allocation sites), cache lines, levels, types and fields */
enum dkey { DK_SYM, DK_LINE, DK_MEM, DK_ALLOC, DK_TYPEOFF, NDKEYS };
static const char *const dkey_names[NDKEYS] = { "symbol_daddr", "dcacheline", "mem", "alloc",
						"typeoff" };
static const char *const dkey_titles[NDKEYS] = { "Data Symbol", "Data Cacheline",
						 "Memory access", "Allocation Site",
						 "Data Type Offset" };

struct fn_range {
	uint32_t dso_idx;
	uint64_t start, size;
	const char *name; /* borrowed from the hist result */
};

struct tui_source {
	char *path;
	mp_pd *pd;      /* the recording (borrowed from ss once it is open) */
	mp_session *ss;
	mp_sym *sym;    /* borrowed from ss */
	mp_hist *hist;
	size_t nattrs;
	struct mp_hist_result res; /* one row per (dso, symbol) */
	struct fn_range *fns;
	size_t nfns;
	int fns_done, lines_done;
	double hot_pct;
	unsigned char skid[TUI_MAX_EVENTS];
	const struct mp_predict *predict;
	long br, miss; /* the recording's branch and branch-miss events, -1 = none */
	mp_ratio_set *rset;
	struct mp_ratio_event *rev;
	struct mp_ratio_binding *bind;
	size_t nbind;
	/* call chains: the call graph, its children table (one symbol of the data an entry)
	 * and the entry of each function id */
	mp_cg *cg;
	struct mp_cg_table cgt;
	uint32_t *fn2sym;
	int callee;
	/* the data view: its tables, built in one pass over the file when one is first
	 * asked for, each handed over once */
	char *symfs, *kallsyms, *bdir;
	enum dkey dkeys[NDKEYS]; /* the view's keys: alloc only with allocation records */
	size_t ndkeys;
	tui_dtable *dpend[NDKEYS];
};

void tui_source_free(tui_source *src)
{
	if (!src)
		return;
	mp_hist_result_fini(&src->res);
	free(src->fns);
	free(src->path);
	mp_ratio_set_free(src->rset);
	free(src->rev);
	free(src->bind);
	mp_cg_table_fini(&src->cgt);
	mp_cg_free(src->cg);
	if (src->ss)
		mp_session_free(src->ss);
	else
		mp_pd_close(src->pd);
	free(src->fn2sym);
	free(src->symfs);
	free(src->kallsyms);
	free(src->bdir);
	for (size_t k = 0; k < NDKEYS; k++)
		tui_dtable_free(src->dpend[k]);
	free(src);
}

/* Function ranges of the symbols with samples, to name call targets. */
static void build_fns(tui_source *src)
{
	if (src->fns_done)
		return;
	src->fns_done = 1;
	src->fns = calloc(src->res.nrows + 1, sizeof(*src->fns));
	if (!src->fns)
		return;
	for (size_t i = 0; i < src->res.nrows; i++) {
		const struct mp_hist_row *r = &src->res.rows[i];
		struct fn_range *f = &src->fns[src->nfns];
		if (r->dso_idx == UINT32_MAX || !r->sym_resolved || !r->sym)
			continue;
		if (mp_sym_lookup_name(src->sym, r->dso_idx, r->sym, &f->start, &f->size))
			continue;
		f->dso_idx = r->dso_idx;
		f->name = r->sym;
		src->nfns++;
	}
}

static const char *fn_at(tui_source *src, uint32_t dso_idx, uint64_t addr)
{
	build_fns(src);
	for (size_t i = 0; i < src->nfns; i++)
		if (src->fns[i].dso_idx == dso_idx && addr >= src->fns[i].start &&
		    addr < src->fns[i].start + (src->fns[i].size ? src->fns[i].size : 1))
			return src->fns[i].name;
	return NULL;
}

/* "call 0x1139", "jne 0x1150", "bl 0x4005d0", "b.ne 0x...", "ret" */
static enum tui_insn_kind insn_kind(const char *text, uint64_t *target)
{
	char mn[16];
	size_t n = strcspn(text, " \t");
	const char *op = text + n;

	*target = 0;
	if (n == 0 || n >= sizeof(mn))
		return TUI_INSN_PLAIN;
	memcpy(mn, text, n);
	mn[n] = 0;
	while (*op == ' ' || *op == '\t')
		op++;
	if (!strncmp(op, "0x", 2))
		*target = strtoull(op, NULL, 16);
	if (!strcmp(mn, "call") || !strcmp(mn, "bl") || !strcmp(mn, "blr") || !strcmp(mn, "callq"))
		return TUI_INSN_CALL;
	if (!strcmp(mn, "ret") || !strcmp(mn, "retq"))
		return TUI_INSN_RET;
	if (mn[0] == 'j' || !strcmp(mn, "b") || !strncmp(mn, "b.", 2) || !strcmp(mn, "cbz") ||
	    !strcmp(mn, "cbnz") || !strcmp(mn, "tbz") || !strcmp(mn, "tbnz") || !strcmp(mn, "br"))
		return TUI_INSN_JUMP;
	return TUI_INSN_PLAIN;
}

static int annotate_cb(void *ctx, const struct tui_sym_ref *ref, tui_annot **out,
		       struct mp_err *err)
{
	tui_source *src = ctx;
	struct mp_err e = { 0 };

	if (!src->lines_done) {
		if (mp_hist_resolve(src->hist, src->sym, 1))
			return mp_err_set(err, -ENOMEM, "%s: out of memory resolving lines", src->path);
		src->lines_done = 1;
	}
	struct mp_ann_opts ao = { .hot_pct = src->hot_pct, .skid = src->skid };
	mp_ann *a = mp_ann_new_opts(src->hist, src->sym, ref->dso && ref->dso[0] ? ref->dso : NULL,
				    ref->name, &ao, &e);
	if (!a)
		return mp_err_set(err, e.code ? e.code : -ENOENT, "%s",
				  e.msg[0] ? e.msg : "cannot annotate this symbol");
	const struct mp_ann_info *info = mp_ann_info(a);
	size_t nl = mp_ann_nlines(a), ni = mp_ann_ninsns(a);
	size_t *line_of = malloc((ni + 1) * sizeof(size_t));
	tui_annot *t = tui_annot_new(src->nattrs, ref->name, info->srcfile);
	int rc = 0;
	if (!line_of || !t) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ni; i++)
		line_of[i] = SIZE_MAX;
	for (size_t l = 0; l < nl && !rc; l++) {
		const struct mp_ann_line *ln = mp_ann_line(a, l);
		long tl = tui_annot_add_line(t, ln->line,
					     ln->srcfile && info->srcfile &&
							     strcmp(ln->srcfile, info->srcfile)
						     ? ln->srcfile : NULL,
					     ln->text ? ln->text : "");
		if (tl < 0) {
			rc = (int)tl;
			break;
		}
		for (size_t e2 = 0; e2 < src->nattrs; e2++)
			tui_annot_set_line_count(t, (size_t)tl, e2, ln->c[e2].samples, ln->c[e2].period);
		tui_annot_set_line_hot(t, (size_t)tl, ln->hot);
		if (src->predict && ln->line) {
			char note[256];
			int warn;
			uint64_t br = 0, miss = 0;
			if (src->br >= 0 && src->miss >= 0) {
				br = ln->c[src->br].period;
				miss = ln->c[src->miss].period;
			}
			if (mp_predict_note(src->predict, ln->srcfile, ln->line, br, miss, note,
					    sizeof(note), &warn) &&
			    (rc = tui_annot_set_line_note(t, (size_t)tl, note, warn)))
				break;
		}
		for (size_t k = 0; k < ln->ninsns; k++)
			if (ln->insns[k] < ni)
				line_of[ln->insns[k]] = (size_t)tl;
	}
	/* instructions without a source line go under one line of their own */
	size_t orphan = SIZE_MAX;
	for (size_t i = 0; i < ni && !rc; i++) {
		if (line_of[i] != SIZE_MAX)
			continue;
		if (orphan == SIZE_MAX) {
			long tl = tui_annot_add_line(t, 0, NULL, info->note ? info->note : "");
			if (tl < 0) {
				rc = (int)tl;
				break;
			}
			orphan = (size_t)tl;
		}
		line_of[i] = orphan;
	}
	long dso_idx = info->dso ? mp_sym_dso_find(src->sym, info->dso) : -1;
	for (size_t i = 0; i < ni && !rc; i++) {
		const struct mp_ann_insn *in = mp_ann_insn(a, i);
		uint64_t target;
		enum tui_insn_kind kind = insn_kind(in->text, &target);
		const char *tname = NULL;
		char named[sizeof(in->text)];
		if (kind == TUI_INSN_CALL && target && dso_idx >= 0)
			tname = fn_at(src, (uint32_t)dso_idx, target);
		/* the analyzer's name of the callee (" <malloc@plt>"), sampled or not */
		const char *lt = strrchr(in->text, '<');
		if (kind == TUI_INSN_CALL && !tname && lt && !strchr(lt, '+')) {
			snprintf(named, sizeof(named), "%s", lt + 1);
			named[strcspn(named, ">")] = 0;
			tname = named;
		}
		long ti = tui_annot_add_insn(t, line_of[i], in->addr, in->text, kind, target, tname);
		if (ti < 0) {
			rc = (int)ti;
			break;
		}
		for (size_t e2 = 0; e2 < src->nattrs; e2++)
			tui_annot_set_insn_count(t, (size_t)ti, e2, in->c[e2].samples, in->c[e2].period);
	}
out:
	free(line_of);
	mp_ann_free(a);
	if (rc) {
		tui_annot_free(t);
		return mp_err_set(err, rc, "%s: out of memory", ref->name);
	}
	*out = t;
	return 0;
}

static int ratio_cb(void *ctx, size_t ratio, const uint64_t *samples, const uint64_t *periods,
		    struct tui_ratio_val *out)
{
	tui_source *src = ctx;
	struct mp_ratio_cell cells[TUI_MAX_EVENTS];
	struct mp_ratio_value v;
	struct mp_err err = { 0 };

	if (ratio >= src->nbind)
		return -EINVAL;
	for (size_t e = 0; e < src->nattrs && e < TUI_MAX_EVENTS; e++)
		cells[e] = (struct mp_ratio_cell){ samples[e], (double)periods[e], 0 };
	if (mp_ratio_eval(&src->bind[ratio], src->rev, cells, 0, RATIO_MIN_SAMPLES, &v, &err) ||
	    !v.defined)
		return -EDOM;
	out->value = v.value;
	out->lo = v.lo;
	out->hi = v.hi;
	out->flags = TUI_RV_VALID | (v.few ? TUI_RV_FEW : 0) | (v.flagged ? TUI_RV_FLAGGED : 0);
	out->weight = mp_ratio_numerator(&src->bind[ratio], cells, NULL);
	return 0;
}

/* The events a bound ratio reads, its numerator's first: the columns shown when it sorts. */
static void set_ratio_events(tui_data *d, size_t ratio, const struct mp_ratio_binding *b)
{
	int side[MP_RATIO_MAX_EVENTS];
	size_t ev[MP_RATIO_MAX_EVENTS], n = 0;
	if (!b->var || !b->var->f || b->n > MP_RATIO_MAX_EVENTS)
		return;
	mp_formula_sides(b->var->f, side);
	for (int want = 1; want >= -1; want -= 2)
		for (size_t i = 0; i < b->n; i++)
			if (b->ev[i] >= 0 && b->ev[i] < TUI_MAX_EVENTS &&
			    (side[i] == want || (want == 1 && side[i] == 0)))
				ev[n++] = (size_t)b->ev[i];
	tui_data_set_ratio_events(d, ratio, ev, n);
}

/* Bind the ratios whose events the recording has; the others are not shown. */
static int bind_ratios(tui_source *src, tui_data *d, const struct tui_source_opts *o,
		       struct mp_err *err)
{
	const char *models[16];
	int sim = mp_pd_meta(src->pd, MP_META_SIMULATED) != NULL;
	/* simulated counts bind the cachegrind formulas, whatever CPU the file was made on */
	size_t nm = mp_ratio_models_for(sim ? "cachegrind"
					: mp_pd_feature_str(src->pd, MP_HEADER_CPUID)
					? mp_pd_feature_str(src->pd, MP_HEADER_CPUID) : "",
					models, 16);

	src->rset = mp_ratio_set_new();
	src->rev = calloc(src->nattrs + 1, sizeof(*src->rev));
	if (!src->rset || !src->rev)
		return mp_err_set(err, -ENOMEM, "%s: out of memory", src->path);
	if (mp_ratio_set_load_default(src->rset, o ? o->ratios : NULL, err))
		return err->code ? err->code : -EINVAL;
	for (size_t i = 0; i < src->nattrs; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(src->pd, i);
		src->rev[i].attr = a->attr;
		src->rev[i].name = a->name;
		src->rev[i].has_count = a->has_counts;
		src->rev[i].count = mp_counts_scaled(&a->count);
		src->rev[i].mean_period = a->nr_samples ? (double)a->total_period / (double)a->nr_samples : 0;
		src->rev[i].exact_samples = sim;
	}
	size_t n = mp_ratio_set_count(src->rset);
	src->bind = calloc(n + 1, sizeof(*src->bind));
	if (!src->bind)
		return mp_err_set(err, -ENOMEM, "%s: out of memory", src->path);
	for (size_t i = 0; i < n; i++) {
		const struct mp_ratio_def *def = mp_ratio_set_get(src->rset, i);
		struct mp_err e = { 0 };
		struct mp_ratio_binding *b = &src->bind[src->nbind];
		if (mp_ratio_bind(def, models, nm, src->rev, src->nattrs, mp_ratio_resolve_events, NULL,
				  b, &e))
			continue;
		int ri = tui_data_add_ratio(d, def->name && def->name[0] ? def->name : def->id,
					    def->what, def->has_threshold ? def->threshold : NAN);
		if (ri < 0)
			return mp_err_set(err, -ENOMEM, "%s: out of memory", src->path);
		set_ratio_events(d, (size_t)ri, b);
		src->nbind++;
	}
	if (src->nbind) {
		/* program level: exact counts where the file has them */
		struct mp_ratio_cell cells[TUI_MAX_EVENTS];
		for (size_t e = 0; e < src->nattrs && e < TUI_MAX_EVENTS; e++) {
			const struct mp_pd_attr *a = mp_pd_attr(src->pd, e);
			cells[e] = (struct mp_ratio_cell){ a->nr_samples, (double)a->total_period, 0 };
		}
		for (size_t r = 0; r < src->nbind; r++) {
			struct mp_ratio_value v;
			struct mp_err e = { 0 };
			if (mp_ratio_eval(&src->bind[r], src->rev, cells, 1, RATIO_MIN_SAMPLES, &v, &e))
				continue;
			struct tui_ratio_val tv = { v.value, v.lo, v.hi,
						    v.defined ? TUI_RV_VALID | (v.few ? TUI_RV_FEW : 0) |
								(v.flagged ? TUI_RV_FLAGGED : 0) : 0,
						    mp_ratio_numerator(&src->bind[r], cells, NULL) };
			tui_data_set_program_ratio(d, r, &tv);
		}
		tui_data_set_ratio_fn(d, ratio_cb, src);
	}
	return 0;
}

/* ---- call chains ---- */

/* A tree being built: function ids with counts per attr (cumulative, then own). */
struct ctmp {
	struct ctnode {
		uint32_t fn;
		long parent, first, next;
	} *n;
	size_t nn, cap, S;
	struct mp_hist_counts *c; /* [nn * 2 * S] */
	size_t cap_c;
	int nomem;
};

static long ct_child(struct ctmp *t, long parent, uint32_t fn)
{
	long c = parent < 0 ? (t->nn ? 0 : -1) : t->n[parent].first;
	/* top-level nodes are chained from node 0 through next like any siblings */
	for (; c >= 0; c = t->n[c].next)
		if (t->n[c].fn == fn && t->n[c].parent == parent)
			return c;
	if (MP_GROW(t->n, t->cap, t->nn + 1) || MP_GROW(t->c, t->cap_c, (t->nn + 1) * 2 * t->S)) {
		t->nomem = 1;
		return -1;
	}
	long i = (long)t->nn++;
	t->n[i] = (struct ctnode){ fn, parent, -1, -1 };
	memset(&t->c[(size_t)i * 2 * t->S], 0, 2 * t->S * sizeof(*t->c));
	/* a new sibling goes first: the order is made when the tree is handed over */
	if (parent >= 0) { /* (t->n may have moved: no pointer into it above) */
		t->n[i].next = t->n[parent].first;
		t->n[parent].first = i;
	} else if (i > 0) {
		t->n[i].next = t->n[0].next;
		t->n[0].next = i;
	}
	return i;
}

struct calls_ctx {
	struct ctmp *t;
	uint32_t fn;
	int callers;
};

/* Each distinct stack through the function: the path from it to the root (callers) or to
 * the leaf (callees), from its outermost frame (a recursion counts once). */
static int calls_stack(void *ctx, const struct mp_cg_stack *st)
{
	struct calls_ctx *cc = ctx;
	struct ctmp *t = cc->t;
	size_t pos;
	for (pos = 0; pos < st->nframes && st->frames[pos].fn != cc->fn; pos++)
		;
	if (pos == st->nframes)
		return 0;
	long at = -1;
	size_t n = cc->callers ? pos : st->nframes - pos - 1;
	for (size_t k = 0; k < n; k++) {
		size_t f = cc->callers ? pos - 1 - k : pos + 1 + k;
		if ((at = ct_child(t, at, st->frames[f].fn)) < 0)
			return -ENOMEM;
		for (size_t a = 0; a < t->S && a < st->nattrs; a++) {
			struct mp_hist_counts *c = &t->c[(size_t)at * 2 * t->S + a];
			c->samples += st->c[a].samples;
			c->period += st->c[a].period;
			if (k + 1 == n) {
				c[t->S].samples += st->c[a].samples;
				c[t->S].period += st->c[a].period;
			}
		}
	}
	return 0;
}

struct ct_sort {
	const struct ctmp *t;
};

static int ct_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct ctmp *t = ((const struct ct_sort *)ctx)->t;
	long a = *(const long *)pa, b = *(const long *)pb;
	const struct mp_hist_counts *x = &t->c[(size_t)a * 2 * t->S], *y = &t->c[(size_t)b * 2 * t->S];
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return t->n[a].fn < t->n[b].fn ? -1 : t->n[a].fn > t->n[b].fn;
}

/* The children of parent (-1: the top) into out under oparent, most first. */
static int ct_emit(tui_source *src, const struct ctmp *t, long parent, tui_chain *out,
		   long oparent)
{
	size_t k = 0;
	long first = parent < 0 ? (t->nn ? 0 : -1) : t->n[parent].first;
	for (long c = first; c >= 0; c = t->n[c].next)
		k++;
	long *v = malloc((k + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k = 0;
	for (long c = first; c >= 0; c = t->n[c].next)
		v[k++] = c;
	qsort_r(v, k, sizeof(*v), ct_cmp, &(struct ct_sort){ t });
	int rc = 0;
	for (size_t i = 0; i < k && !rc; i++) {
		uint32_t sym = t->n[v[i]].fn < mp_cg_nfns(src->cg) ? src->fn2sym[t->n[v[i]].fn]
								   : UINT32_MAX;
		if (sym == UINT32_MAX)
			continue; /* a function without samples: never on a stack */
		long o = tui_chain_add(out, oparent, sym);
		if (o < 0) {
			rc = (int)o;
			break;
		}
		const struct mp_hist_counts *c = &t->c[(size_t)v[i] * 2 * t->S];
		for (size_t a = 0; a < t->S; a++)
			tui_chain_set_count(out, (size_t)o, a, c[a].samples, c[a].period,
					    c[t->S + a].samples, c[t->S + a].period);
		rc = ct_emit(src, t, v[i], out, o);
	}
	free(v);
	return rc;
}

/* perf's tree of an entry (mp_cg_tree) as a temporary tree. */
static int entry_tree(tui_source *src, size_t sym, struct ctmp *t)
{
	struct mp_cg_tree tr;
	struct mp_cg_tree_opts to = { .callee = src->callee, .children = 1, .sort_attr = 0 };
	int rc = mp_cg_tree(src->cg, &src->cgt, sym, &to, &tr);
	if (rc)
		return rc;
	long *map = malloc((tr.n + 1) * sizeof(*map));
	if (!map) {
		mp_cg_tree_fini(&tr);
		return -ENOMEM;
	}
	/* walked from the top, so that a node's parent is there before it */
	uint32_t *stack = malloc((tr.n + 1) * sizeof(*stack));
	size_t sp = 0;
	if (!stack) {
		free(map);
		mp_cg_tree_fini(&tr);
		return -ENOMEM;
	}
	for (uint32_t c = tr.first; c != UINT32_MAX; c = tr.nodes[c].next)
		stack[sp++] = c;
	while (sp && !t->nomem) {
		uint32_t n = stack[--sp];
		long parent = tr.nodes[n].parent == UINT32_MAX ? -1 : map[tr.nodes[n].parent];
		long i = ct_child(t, parent, tr.nodes[n].fn);
		if (i < 0)
			break;
		map[n] = i;
		for (size_t a = 0; a < t->S; a++) {
			t->c[(size_t)i * 2 * t->S + a] = tr.nodes[n].cumul[a];
			t->c[(size_t)i * 2 * t->S + t->S + a] = tr.nodes[n].hit[a];
		}
		for (uint32_t c = tr.nodes[n].first_child; c != UINT32_MAX; c = tr.nodes[c].next)
			stack[sp++] = c;
	}
	free(stack);
	free(map);
	mp_cg_tree_fini(&tr);
	return t->nomem ? -ENOMEM : 0;
}

static int chain_cb(void *ctx, size_t sym, enum tui_chain_kind kind, tui_chain **out,
		    struct mp_err *err)
{
	tui_source *src = ctx;
	struct ctmp t = { .S = src->nattrs };
	int rc;
	if (sym >= src->cgt.n)
		return mp_err_set(err, -EINVAL, "%s: no call chains of symbol %zu", src->path, sym);
	if (kind == TUI_CHAIN_ENTRY) {
		rc = entry_tree(src, sym, &t);
	} else {
		struct calls_ctx cc = { &t, src->cgt.e[sym].f.fn, kind == TUI_CHAIN_CALLERS };
		rc = mp_cg_foreach_stack(src->cg, &(struct mp_cg_iter_opts){ 0 }, calls_stack, &cc);
	}
	tui_chain *c = rc ? NULL : tui_chain_new(src->nattrs);
	if (c && (rc = ct_emit(src, &t, -1, c, -1))) {
		tui_chain_free(c);
		c = NULL;
	}
	free(t.n);
	free(t.c);
	if (!c)
		return mp_err_set(err, rc ? rc : -ENOMEM, "%s: %s: out of memory for its call chains",
				  src->path, src->cgt.e[sym].f.sym);
	*out = c;
	return 0;
}

/* The symbols of the data from the children table: functions with children and self. */
static int add_cg_syms(tui_source *src, tui_data *d)
{
	/* entries of several commands: one per command and function, as perf's comm,sym */
	if (mp_cg_resolve(src->cg, src->sym, 0) || mp_cg_table(src->cg, 0, 1, &src->cgt))
		return -ENOMEM;
	int threads = 0;
	for (size_t i = 1; i < src->cgt.n && !threads; i++)
		threads = strcmp(src->cgt.e[i].comm, src->cgt.e[0].comm) != 0;
	if (!threads) {
		mp_cg_table_fini(&src->cgt);
		if (mp_cg_table(src->cg, 0, 0, &src->cgt))
			return -ENOMEM;
	}
	size_t nf = mp_cg_nfns(src->cg);
	if (!(src->fn2sym = malloc((nf + 1) * sizeof(*src->fn2sym))))
		return -ENOMEM;
	for (size_t i = 0; i < nf; i++)
		src->fn2sym[i] = UINT32_MAX;
	for (size_t i = 0; i < src->cgt.n; i++) {
		const struct mp_cg_entry *e = &src->cgt.e[i];
		long s = tui_data_add_sym(d, e->f.sym, e->f.dso, e->f.sym_start);
		if (s < 0)
			return (int)s;
		if (threads && tui_data_set_sym_thread(d, (size_t)s, e->comm, -1))
			return -ENOMEM;
		/* a tree's node names its function: the hottest command's entry does */
		if (e->f.fn < nf && src->fn2sym[e->f.fn] == UINT32_MAX)
			src->fn2sym[e->f.fn] = (uint32_t)s;
		for (size_t a = 0; a < src->nattrs; a++)
			if (tui_data_set_sym_count(d, (size_t)s, a, e->self[a].samples, e->self[a].period) ||
			    tui_data_set_sym_children(d, (size_t)s, a, e->children[a].samples,
						      e->children[a].period))
				return -ENOMEM;
	}
	tui_data_set_chain_fn(d, chain_cb, src);
	return 0;
}

static int fill_info(tui_source *src, tui_data *d)
{
	static const struct {
		const char *key;
		int feat;
	} feats[] = {
		{ "command", MP_HEADER_CMDLINE }, { "host", MP_HEADER_HOSTNAME }, { "kernel", MP_HEADER_OSRELEASE },
		{ "arch", MP_HEADER_ARCH },       { "cpu", MP_HEADER_CPUDESC },   { "cpuid", MP_HEADER_CPUID },
		{ "perf", MP_HEADER_VERSION },
	};
	char buf[32];
	int rc = tui_data_add_info(d, "file", src->path);
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		const char *v = mp_pd_feature_str(src->pd, feats[i].feat);
		if (v)
			rc |= tui_data_add_info(d, feats[i].key, v);
	}
	if (mp_pd_nr_cpus(src->pd)) {
		snprintf(buf, sizeof(buf), "%" PRIu32, mp_pd_nr_cpus(src->pd));
		rc |= tui_data_add_info(d, "cpus", buf);
	}
	return rc;
}

/* ---- the data view's tables ---- */


struct dplace {
	uint32_t map;
	uint64_t ip;
	uint32_t name; /* the code name's index */
};

/* One pass over the file: per sample with data fields, its row of each key (by name) and
 * the row's code place (symbol and line, resolved once per distinct address). */
struct dpass {
	tui_source *src;
	mp_daddr *dd;
	mp_heap *heap;  /* the allocation records, NULL without */
	mp_dtype *dt;   /* the types' DWARF */
	tui_dtable *t[NDKEYS]; /* src->dkeys' tables, by their index there */
	struct mp_u64map rows[NDKEYS];
	struct mp_u64map codes[NDKEYS]; /* (code name, row) -> code of the key's table */
	struct mp_u64map places; /* (map, ip) hashed -> place */
	struct dplace *pl;
	size_t npl, cappl;
	struct mp_u64map names;  /* the code names: sym, line, dso */
	char **nm;               /* "sym\x1fline\x1fdso" */
	size_t nnm, capnm;
	unsigned char want[TUI_MAX_EVENTS]; /* the attrs with data fields */
};

/* The index of name in the table t of key k (added when new), or -ENOMEM. */
static long drow(struct dpass *p, size_t k, const char *name)
{
	for (uint64_t h = mp_strhash(name);; h = mp_mix64(h + 1)) {
		int found;
		uint32_t *slot = mp_u64map_slot(&p->rows[k], mp_u64map_key(h), &found);
		if (!slot)
			return -ENOMEM;
		if (found) {
			if (!strcmp(p->t[k]->rows[*slot].name, name))
				return *slot;
			continue;
		}
		long r = tui_dtable_add_row(p->t[k], name);
		if (r < 0) {
			mp_u64map_unslot(&p->rows[k], slot);
			return r;
		}
		*slot = (uint32_t)r;
		return r;
	}
}

/* The code name of (map, ip): its index (resolved with its line on first sight), or
 * -ENOMEM. */
static long dname(struct dpass *p, mp_sym *sym, uint32_t map, uint16_t cpumode, uint64_t ip)
{
	uint32_t *slot;
	int found;
	for (uint64_t h = mp_mix64(ip ^ (uint64_t)map << 48 ^ cpumode);; h = mp_mix64(h + 1)) {
		if (!(slot = mp_u64map_slot(&p->places, mp_u64map_key(h), &found)))
			return -ENOMEM;
		if (!found)
			break;
		if (p->pl[*slot].map == map && p->pl[*slot].ip == ip)
			return p->pl[*slot].name;
	}
	if (MP_GROW(p->pl, p->cappl, p->npl + 1)) {
		mp_u64map_unslot(&p->places, slot);
		return -ENOMEM;
	}
	struct mp_sym_loc cl;
	mp_sym_resolve(sym, map, cpumode, ip, 1, &cl);
	char *n = NULL;
	const char *base = cl.srcfile ? strrchr(cl.srcfile, '/') : NULL;
	base = base ? base + 1 : cl.srcfile;
	int len = cl.srcfile && cl.line ? asprintf(&n, "%s\x1f%s:%u\x1f%s", cl.sym, base, cl.line,
						   cl.dso)
					: asprintf(&n, "%s\x1f\x1f%s", cl.sym, cl.dso);
	if (len < 0) {
		mp_u64map_unslot(&p->places, slot);
		return -ENOMEM;
	}
	/* one name for the addresses of one line */
	long idx = -1;
	for (uint64_t h = mp_strhash(n);; h = mp_mix64(h + 1)) {
		uint32_t *ns = mp_u64map_slot(&p->names, mp_u64map_key(h), &found);
		if (!ns || (!found && MP_GROW(p->nm, p->capnm, p->nnm + 1))) {
			if (ns && !found)
				mp_u64map_unslot(&p->names, ns);
			free(n);
			mp_u64map_unslot(&p->places, slot);
			return -ENOMEM;
		}
		if (found && strcmp(p->nm[*ns], n))
			continue;
		if (found) {
			free(n);
		} else {
			p->nm[p->nnm] = n;
			*ns = (uint32_t)p->nnm++;
		}
		idx = *ns;
		break;
	}
	p->pl[p->npl] = (struct dplace){ map, ip, (uint32_t)idx };
	*slot = (uint32_t)p->npl++;
	return idx;
}

/* The code of name nm under row r of key k's table, or -ENOMEM. */
static long dcode(struct dpass *p, size_t k, size_t r, size_t nm)
{
	int found;
	uint64_t key = (uint64_t)nm << 32 | r; /* both below 2^32: table rows are u32 */
	uint32_t *slot = mp_u64map_slot(&p->codes[k], mp_u64map_key(key), &found);
	if (!slot)
		return -ENOMEM;
	if (found)
		return *slot;
	char *f[3], *s = p->nm[nm];
	for (int i = 0; i < 3; i++) {
		f[i] = s;
		s += strcspn(s, "\x1f");
		if (*s)
			*s++ = 0;
	}
	long c = tui_dtable_add_code(p->t[k], r, f[0], f[2][0] ? f[2] : NULL, f[1][0] ? f[1] : NULL);
	f[1][-1] = f[2][-1] = '\x1f';
	if (c < 0) {
		mp_u64map_unslot(&p->codes[k], slot);
		return c;
	}
	*slot = (uint32_t)c;
	return c;
}

/* The row name of sample s under key k (its data place dl, its heap object ho), as
 * report --mem-mode --sort names it. */
static void dkey_str(struct dpass *p, mp_sym *sym, enum dkey k, const struct mp_pd_sample *s,
		     const struct mp_daddr_loc *dl, const struct mp_heap_obj *ho, char *b,
		     size_t n)
{
	char lvl = s->cpumode == PERF_RECORD_MISC_KERNEL ||
			   s->cpumode == PERF_RECORD_MISC_GUEST_KERNEL ? 'k' : '.';
	struct mp_dtype_loc tl;
	switch (k) {
	case DK_SYM:
		mp_daddr_sym_str(dl, s->addr, lvl, b, n);
		break;
	case DK_LINE:
		mp_daddr_cacheline_str(dl, s->addr, lvl, b, n);
		break;
	case DK_MEM:
		mp_datasrc_lvl_str(s->data_src, b, n);
		break;
	case DK_ALLOC:
		snprintf(b, n, "%s", ho->found ? mp_heap_site_name(p->heap, sym, ho->site)
					       : "[not allocated]");
		break;
	case DK_TYPEOFF:
		if (mp_dtype_of_sample(p->dt, dl, ho, p->heap, sym, &tl) != 1)
			snprintf(b, n, "(unknown)");
		else
			mp_dtype_typeoff_str(&tl, b, n);
		break;
	case NDKEYS:
		b[0] = 0;
		break;
	}
}

static int dpass_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
			size_t nips)
{
	(void)ips, (void)nips;
	struct dpass *p = ctx;
	if (s->attr_idx >= TUI_MAX_EVENTS || !p->want[s->attr_idx])
		return 0;
	struct mp_daddr_loc dl;
	memset(&dl, 0, sizeof(dl));
	dl.dso = "[unknown]";
	if (!(s->addr >> 63))
		mp_daddr_resolve(p->dd, s->pid, s->addr, &dl);
	long nm = dname(p, sym, mp_sym_map_find(sym, s->pid, s->cpumode, s->ip), s->cpumode,
			s->ip);
	if (nm < 0)
		return (int)nm;
	struct mp_heap_obj ho = { 0 };
	if (p->heap && !(s->addr >> 63) && mp_heap_find(p->heap, s->pid, s->addr, s->time, &ho) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < p->src->ndkeys; k++) {
		char b[512];
		dkey_str(p, sym, p->src->dkeys[k], s, &dl, &ho, b, sizeof(b));
		long r = drow(p, k, b);
		long c = r < 0 ? r : dcode(p, k, (size_t)r, (size_t)nm);
		if (c < 0)
			return (int)c;
		tui_dtable_add_code_count(p->t[k], (size_t)c, s->attr_idx, 1,
					  s->weight ? s->weight : 1, s->weight);
	}
	return 0;
}

/* The tables of every key in one pass (they wait in src->dpend). 0 or a negative code
 * with err. */
static int dpass_run(tui_source *src, struct mp_err *err)
{
	struct dpass p = { .src = src };
	int rc = 0;
	for (size_t i = 0; i < src->nattrs && i < TUI_MAX_EVENTS; i++)
		p.want[i] = !!(mp_pd_attr(src->pd, i)->attr.sample_type &
			       (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC));
	for (size_t k = 0; k < src->ndkeys; k++)
		if (!(p.t[k] = tui_dtable_new(src->nattrs, dkey_titles[src->dkeys[k]])))
			rc = -ENOMEM;
	if (!rc && !(p.dt = mp_dtype_new(src->symfs)))
		rc = -ENOMEM;
	p.heap = rc ? NULL : mp_heap_new(src->pd); /* NULL without allocation records */
	struct mp_session_opts so = { .symfs = src->symfs, .kallsyms = src->kallsyms,
				      .buildid_dir = src->bdir, .no_hist = 1, .daddr = &p.dd, .sample = dpass_sample,
				      .sample_ctx = &p };
	mp_session *ss = rc ? NULL : mp_session_new(src->path, &so, err);
	if (!rc && !ss)
		rc = err->code ? err->code : -ENOMEM;
	else if (rc)
		mp_err_set(err, rc, "%s: out of memory", src->path);
	for (size_t k = 0; k < src->ndkeys; k++) {
		if (!rc) {
			tui_dtable_free(src->dpend[k]);
			src->dpend[k] = p.t[k];
		} else {
			tui_dtable_free(p.t[k]);
		}
		mp_u64map_fini(&p.rows[k]);
		mp_u64map_fini(&p.codes[k]);
	}
	mp_session_free(ss);
	mp_heap_free(p.heap);
	mp_dtype_free(p.dt);
	mp_u64map_fini(&p.places);
	mp_u64map_fini(&p.names);
	for (size_t i = 0; i < p.nnm; i++)
		free(p.nm[i]);
	free(p.nm);
	free(p.pl);
	return rc;
}

static int dtable_cb(void *ctx, size_t key, tui_dtable **out, struct mp_err *err)
{
	tui_source *src = ctx;
	*out = NULL;
	if (key >= src->ndkeys)
		return mp_err_set(err, -EINVAL, "%s: no data key %zu", src->path, key);
	if (!src->dpend[key]) {
		int rc = dpass_run(src, err);
		if (rc)
			return rc;
	}
	*out = src->dpend[key];
	src->dpend[key] = NULL;
	return 0;
}

/* The data view's keys when the recording has data fields, else why not. */
static int set_dkeys(tui_source *src, tui_data *d)
{
	for (size_t i = 0; i < src->nattrs; i++)
		if (mp_pd_attr(src->pd, i)->attr.sample_type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC)) {
			struct mp_pd_allocs al;
			const char *names[NDKEYS];
			for (size_t k = 0; k < NDKEYS; k++)
				if (k != DK_ALLOC || !mp_pd_allocs(src->pd, &al)) {
					src->dkeys[src->ndkeys] = (enum dkey)k;
					names[src->ndkeys++] = dkey_names[k];
				}
			return tui_data_set_dkeys(d, names, src->ndkeys, dtable_cb, src);
		}
	char why[512];
	snprintf(why, sizeof(why), "no data view: %s has no data addresses (record with -d: "
		 "memprof record -e page-faults -c 1 -d, or memprof mem record)", src->path);
	return tui_data_set_no_dkeys(d, why);
}

tui_source *tui_source_open(const char *path, const struct tui_source_opts *opts,
			    tui_data **data, struct mp_err *err)
{
	tui_source *src = calloc(1, sizeof(*src));
	tui_data *d = NULL;

	*data = NULL;
	if (!src || !(src->path = mp_strdup(path))) {
		free(src);
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	src->hot_pct = opts && opts->hot_pct > 0 ? opts->hot_pct : 5.0;
	if (!(src->pd = mp_pd_open(path, err)))
		goto fail;
	src->nattrs = mp_pd_nattrs(src->pd);
	if (src->nattrs == 0 || src->nattrs > TUI_MAX_EVENTS) {
		mp_err_set(err, -MP_EFORMAT, "%s: %zu events (the browser shows 1 to %d)", path,
			   src->nattrs, TUI_MAX_EVENTS);
		goto fail;
	}
	src->predict = opts ? opts->predict : NULL;
	src->br = src->miss = -1;
	for (size_t i = 0; i < src->nattrs && src->predict; i++) {
		const struct mp_pd_attr *at = mp_pd_attr(src->pd, i);
		int k = mp_predict_branch_event(at->attr.type, at->attr.config, at->name);
		if (k == MP_PREDICT_EV_BRANCHES && src->br < 0)
			src->br = (long)i;
		else if (k == MP_PREDICT_EV_MISSES && src->miss < 0)
			src->miss = (long)i;
	}
	for (size_t i = 0; i < src->nattrs && !(opts && opts->no_skid); i++)
		src->skid[i] = (unsigned char)mp_ann_event_skids(&mp_pd_attr(src->pd, i)->attr);
	struct mp_session_opts so = { .symfs = opts ? opts->symfs : NULL,
				      .kallsyms = opts ? opts->kallsyms : NULL,
				      .buildid_dir = opts ? opts->buildid_dir : NULL, .pd = src->pd,
				      .want_comm = 1 /* the thread column of several processes */ };
	/* chains as memprof report takes them: fp as recorded, dwarf and lbr unwound */
	int chains = !(opts && opts->no_children) && mp_pd_has_chains(src->pd);
	struct mp_cg_opts co = { .want_comm = 1 }; /* the thread column of several commands */
	src->ss = chains ? mp_cg_session_new(path, &so, &co, &src->cg, err)
			 : mp_session_new(path, &so, err);
	if (!src->ss) {
		src->pd = NULL; /* closed by the session */
		goto fail;
	}
	src->callee = chains && opts && opts->callee;
	src->sym = mp_session_sym(src->ss);
	src->hist = mp_session_hist(src->ss);
	if (mp_hist_resolve(src->hist, src->sym, 0))
		goto nomem;
	/* samples of several processes: a row per process, command and symbol, as perf's
	 * pid,comm,dso,sym (the t zoom's thread column); of one: per symbol */
	struct mp_hist_query q = { .keys = MP_HK_PID | MP_HK_COMM | MP_HK_DSO | MP_HK_SYM };
	if (mp_hist_query(src->hist, src->sym, &q, &src->res))
		goto nomem;
	int threads = 0;
	for (size_t i = 1; i < src->res.nrows && !threads; i++)
		threads = src->res.rows[i].pid != src->res.rows[0].pid;
	if (!threads) {
		mp_hist_result_fini(&src->res);
		q.keys = MP_HK_DSO | MP_HK_SYM;
		if (mp_hist_query(src->hist, src->sym, &q, &src->res))
			goto nomem;
	}
	if (!(d = tui_data_new()))
		goto nomem;
	for (size_t i = 0; i < src->nattrs; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(src->pd, i);
		if (tui_data_add_event(d, a->name, a->nr_samples,
				       a->total_period, a->lost, a->has_counts, a->count.val) < 0)
			goto nomem;
		tui_data_set_event_sampling(d, i, (int)a->attr.freq, a->attr.sample_period);
	}
	if (src->cg && !mp_cg_nr_chains(src->cg)) {
		mp_cg_free(src->cg); /* no sample came with a chain: the list without them */
		src->cg = NULL;
	}
	if (src->cg) {
		if (add_cg_syms(src, d))
			goto nomem;
		if (opts && opts->chain_pct)
			tui_data_set_chain_limit(d, opts->chain_pct > 0 ? opts->chain_pct : 0);
	}
	for (size_t i = 0; i < src->res.nrows && !src->cg; i++) {
		const struct mp_hist_row *r = &src->res.rows[i];
		long s = tui_data_add_sym(d, r->sym, r->dso, r->elf_addr);
		if (s < 0 || (threads && tui_data_set_sym_thread(d, (size_t)s, r->comm ? r->comm : "",
								 (long)r->pid)))
			goto nomem;
		for (size_t e = 0; e < src->nattrs; e++)
			tui_data_set_sym_count(d, (size_t)s, e, r->c[e].samples, r->c[e].period);
	}
	if (fill_info(src, d) || set_dkeys(src, d))
		goto nomem;
	if ((opts && opts->symfs && !(src->symfs = mp_strdup(opts->symfs))) ||
	    (opts && opts->kallsyms && !(src->kallsyms = mp_strdup(opts->kallsyms))) ||
	    (opts && opts->buildid_dir && !(src->bdir = mp_strdup(opts->buildid_dir))))
		goto nomem;
	if (mp_pd_meta(src->pd, MP_META_SIMULATED)) {
		const char *by = mp_pd_meta(src->pd, MP_META_SIMULATED);
		const char *i1 = mp_pd_meta(src->pd, MP_META_SIM_I1), *d1 = mp_pd_meta(src->pd, MP_META_SIM_D1);
		const char *ll = mp_pd_meta(src->pd, MP_META_SIM_LL), *vg = mp_pd_meta(src->pd, MP_META_SIM_VALGRIND);
		char note[512];
		snprintf(note, sizeof(note),
			 "counts from valgrind's %s cache simulation, not measured by a PMU; "
			 "caches I1 %s D1 %s LL %s%s%s",
			 by, i1 ? i1 : "?", d1 ? d1 : "?", ll ? ll : "?", vg ? "; simulator " : "", vg ? vg : "");
		if (tui_data_set_simulated(d, by, note))
			goto nomem;
	}
	tui_data_set_annotate_fn(d, annotate_cb, src);
	if (!(opts && opts->no_ratios) && bind_ratios(src, d, opts, err))
		goto fail;
	*data = d;
	return src;
nomem:
	mp_err_set(err, -ENOMEM, "%s: out of memory", path);
fail:
	tui_data_free(d);
	tui_source_free(src);
	return NULL;
}
