/* tui_chains.c - call trees in the browser, as perf report's TUI shows them with --children:
 * the symbol list's entries unfold into their call trees in place (+ one level, e the whole
 * entry, E everything, C nothing), and the caller/callee view of one function (c) shows who
 * calls it and what it calls. The trees come from the data's chain callback when first
 * shown; the views keep which nodes are unfolded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

/* ---- trees ---- */

uint64_t tui_cnode_val(const tui_chain *t, long n, size_t ev, int period)
{
	return t->n[n].cnt[(period ? t->nev : 0) + ev];
}

static uint64_t cnode_self(const tui_chain *t, long n, size_t ev)
{
	return t->n[n].cnt[3 * t->nev + ev];
}

/* The smallest period of the colouring event a shown node has (the data's limit). */
static uint64_t min_shown(const tui_model *m)
{
	const struct tui_event *e = &m->d->ev[tui_hot_event(m)];
	return (uint64_t)((double)e->period * m->d->chain_pct / 100.0);
}

static int cnode_shown(const tui_model *m, const tui_chain *t, long n, uint64_t min)
{
	uint64_t v = tui_cnode_val(t, n, (size_t)tui_hot_event(m), 1);
	return v && v >= min;
}

/* The one child of n with a count, or -1 when n has none or several. */
static long only_child(const tui_model *m, const tui_chain *t, long n)
{
	long only = -1;
	size_t e = (size_t)tui_hot_event(m);
	for (long c = t->n[n].first; c >= 0; c = t->n[c].next)
		if (tui_cnode_val(t, c, e, 1)) {
			if (only >= 0)
				return -1;
			only = c;
		}
	return only;
}

/* The last node of the run that starts at n: single children without samples of their
 * own in between (perf's compressed callchain node). */
static long run_end(const tui_model *m, const tui_chain *t, long n)
{
	size_t e = (size_t)tui_hot_event(m);
	long c;
	while (!cnode_self(t, n, e) && (c = only_child(m, t, n)) >= 0)
		n = c;
	return n;
}

int tui_cnode_more(const tui_model *m, const tui_chain *t, long n)
{
	uint64_t min = min_shown(m);
	long end = run_end(m, t, n);
	for (long c = t->n[end].first; c >= 0; c = t->n[c].next)
		if (cnode_shown(m, t, c, min))
			return 1;
	return 0;
}

static int tree_has_shown(const tui_model *m, const tui_chain *t)
{
	uint64_t min = min_shown(m);
	for (long c = t->first; c >= 0; c = t->n[c].next)
		if (cnode_shown(m, t, c, min))
			return 1;
	return 0;
}

struct tui_ctree *tui_crow_tree(const struct view *v, const struct crow *c)
{
	if (v->ops->flags & TUI_VF_CHILDREN)
		return &v->ct[v->rows[c->row]];
	return &v->ct[c->row];
}

size_t tui_crow_sym(const struct view *v, const struct crow *c)
{
	if (c->kind == CR_NODE)
		return tui_crow_tree(v, c)->t->n[c->node].sym;
	if (v->ops->flags & TUI_VF_CHILDREN)
		return v->rows[c->row];
	return (size_t)v->csym;
}

/* The tree of an entry row from the adapter, once. 0 when it is there. */
static int ctree_load(tui_model *m, struct view *v, const struct crow *c)
{
	struct tui_ctree *ct = tui_crow_tree(v, c);
	tui_data *d = m->d;
	struct mp_err err = { 0 };
	size_t sym = tui_crow_sym(v, c);
	enum tui_chain_kind kind = (v->ops->flags & TUI_VF_CHILDREN) ? TUI_CHAIN_ENTRY
				   : c->row == 0 ? TUI_CHAIN_CALLERS : TUI_CHAIN_CALLEES;

	if (ct->t)
		return 0;
	if (ct->failed)
		return -ENOENT;
	ct->failed = 1;
	if (!d->cfn) {
		tui_set_msg(m, "%s: no call chains available", d->syms[sym].name);
		return -ENOTSUP;
	}
	tui_chain *t = NULL;
	int rc = d->cfn(d->cctx, sym, kind, &t, &err);
	if (rc || !t) {
		tui_set_msg(m, "%s", err.msg[0] ? err.msg : "call chains failed");
		return rc ? rc : -EINVAL;
	}
	for (size_t i = 0; i < t->nn; i++)
		if (t->n[i].sym >= d->nsyms || t->nev != d->nev) {
			tui_set_msg(m, "%s: a call tree node is not a symbol of the list",
				    d->syms[sym].name);
			tui_chain_free(t);
			return -EINVAL;
		}
	if (!(ct->open = calloc(t->nn + 1, 1))) {
		tui_chain_free(t);
		tui_set_msg(m, "out of memory");
		return -ENOMEM;
	}
	ct->t = t;
	ct->failed = 0;
	return 0;
}

/* ---- rows ---- */

struct rows_out {
	struct crow *r;
	size_t n, cap;
	int nomem;
};

static void put_row(struct rows_out *o, struct crow c)
{
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 64;
		struct crow *r = realloc(o->r, nc * sizeof(*r));
		if (!r) {
			o->nomem = 1;
			return;
		}
		o->r = r;
		o->cap = nc;
	}
	o->r[o->n++] = c;
}

/* The shown nodes under parent (-1: the top), unfolded ones with theirs. */
static void put_tree(const tui_model *m, struct rows_out *o, const struct tui_ctree *ct,
		     size_t row, long parent, int level, uint64_t min)
{
	const tui_chain *t = ct->t;
	for (long c = parent < 0 ? t->first : t->n[parent].first; c >= 0; c = t->n[c].next) {
		if (!cnode_shown(m, t, c, min))
			continue;
		long end = run_end(m, t, c);
		for (long n = c;; n = only_child(m, t, n)) {
			put_row(o, (struct crow){ CR_NODE, level, row, n, c });
			if (n == end)
				break;
		}
		if (ct->open[c])
			put_tree(m, o, ct, row, end, level + 1, min);
	}
}

static int same_row(const struct crow *a, const struct crow *b)
{
	return a->kind == b->kind && a->row == b->row && a->node == b->node;
}

/* Make the rows again (after a fold changed, the sort, the filter or the metric). The
 * cursor stays on its row when it is still shown, else goes to the row's head or entry.
 * keep: the row to keep, NULL = the cursor's. */
static void relist(tui_model *m, struct view *v, const struct crow *keep)
{
	struct rows_out o = { 0 };
	uint64_t min = min_shown(m);
	struct crow k = { CR_ENTRY, 0, SIZE_MAX, -1, -1 };
	if (keep)
		k = *keep;
	else if (v->cur < v->ncrows)
		k = v->crows[v->cur];
	size_t nent = (v->ops->flags & TUI_VF_CHILDREN) ? v->nrows : 2;
	for (size_t i = 0; i < nent; i++) {
		put_row(&o, (struct crow){ CR_ENTRY, 0, i, -1, -1 });
		const struct tui_ctree *ct = (v->ops->flags & TUI_VF_CHILDREN) ? &v->ct[v->rows[i]]
									       : &v->ct[i];
		if (ct->expanded && ct->t)
			put_tree(m, &o, ct, i, -1, 1, min);
	}
	free(v->crows);
	v->crows = o.r;
	v->ncrows = o.nomem ? 0 : o.n;
	if (o.nomem)
		tui_set_msg(m, "out of memory");
	size_t at = 0, head = SIZE_MAX, entry = SIZE_MAX;
	for (size_t i = 0; i < v->ncrows; i++) {
		const struct crow *c = &v->crows[i];
		if (same_row(c, &k))
			break;
		if (c->row == k.row && c->kind == CR_NODE && c->node == k.head)
			head = i;
		if (c->row == k.row && c->kind == CR_ENTRY)
			entry = i;
		at++;
	}
	if (at == v->ncrows)
		at = head != SIZE_MAX ? head : entry != SIZE_MAX ? entry : 0;
	v->cur = at;
}

/* The children list: v->rows changed, v->cur is an index of it. */
static void children_relist(tui_model *m, struct view *v)
{
	struct crow k = { CR_ENTRY, 0, v->cur, -1, -1 };
	relist(m, v, v->nrows ? &k : NULL);
}

static size_t children_entry(const struct view *v)
{
	return v->cur < v->ncrows ? v->crows[v->cur].row : SIZE_MAX;
}

/* ---- keys ---- */

static struct crow *cur_row(struct view *v)
{
	return v->cur < v->ncrows ? &v->crows[v->cur] : NULL;
}

/* The entry row of row c. */
static struct crow entry_of(const struct crow *c)
{
	return (struct crow){ CR_ENTRY, 0, c->row, -1, -1 };
}

static void fold_all(struct tui_ctree *ct, int open)
{
	if (ct->t)
		memset(ct->open, open, ct->t->nn);
	ct->expanded = open;
}

/* +: unfold or fold one level: an entry's tree, or the nodes under a node. */
unsigned tui_chain_plus(tui_model *m, struct view *v, int key)
{
	(void)key;
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct tui_ctree *ct = tui_crow_tree(v, c);
	struct crow k = *c;
	if (c->kind == CR_ENTRY) {
		if (ctree_load(m, v, c))
			return TUI_HANDLED | TUI_REDRAW;
		if (!ct->expanded && !tree_has_shown(m, ct->t)) {
			tui_set_msg(m, "%s: no call chains above %.2g%%",
				    m->d->syms[tui_crow_sym(v, c)].name, m->d->chain_pct);
			return TUI_HANDLED | TUI_REDRAW;
		}
		ct->expanded = !ct->expanded;
	} else {
		if (!tui_cnode_more(m, ct->t, c->head))
			return TUI_HANDLED;
		ct->open[c->head] = !ct->open[c->head];
		k.node = c->head;
	}
	relist(m, v, &k);
	return TUI_HANDLED | TUI_RESCAN;
}

/* e: the cursor's entry all unfolded, or folded when it is unfolded. */
unsigned tui_chain_entry(tui_model *m, struct view *v, int key)
{
	(void)key;
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct crow k = entry_of(c);
	struct tui_ctree *ct = tui_crow_tree(v, c);
	if (ct->expanded) {
		fold_all(ct, 0);
	} else {
		if (ctree_load(m, v, &k))
			return TUI_HANDLED | TUI_REDRAW;
		fold_all(ct, 1);
		k = *c;
	}
	relist(m, v, &k);
	return TUI_HANDLED | TUI_RESCAN;
}

/* E: every entry unfolded all the way; C: every one folded. */
unsigned tui_chain_all(tui_model *m, struct view *v, int key)
{
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct crow k = key == 'E' ? *c : entry_of(c);
	size_t nent = (v->ops->flags & TUI_VF_CHILDREN) ? v->nrows : 2;
	for (size_t i = 0; i < nent; i++) {
		struct crow e = { CR_ENTRY, 0, i, -1, -1 };
		struct tui_ctree *ct = tui_crow_tree(v, &e);
		if (key == 'E' && ctree_load(m, v, &e))
			continue;
		fold_all(ct, key == 'E');
	}
	relist(m, v, &k);
	if (key == 'E')
		tui_set_msg(m, "all call chains unfolded (%zu rows)", v->ncrows);
	return TUI_HANDLED | TUI_RESCAN;
}

/* ENTER: annotate the function of the row (an entry's symbol or a frame's function). */
unsigned tui_chain_annotate(tui_model *m, struct view *v, int key)
{
	(void)key;
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	tui_open_annotate(m, (long)tui_crow_sym(v, c), NULL, 0);
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned push_calls(tui_model *m, size_t sym)
{
	struct view *v = tui_push_view(m, &tui_calls_ops);
	if (!v)
		return TUI_HANDLED;
	v->csym = (long)sym;
	v->ct = calloc(2, sizeof(*v->ct));
	if (!v->ct) {
		tui_pop_view(m);
		tui_set_msg(m, "out of memory");
		return TUI_HANDLED | TUI_RESCAN;
	}
	v->nct = 2;
	for (size_t i = 0; i < 2; i++) {
		struct crow e = { CR_ENTRY, 0, i, -1, -1 };
		if (!ctree_load(m, v, &e))
			v->ct[i].expanded = 1;
	}
	relist(m, v, NULL);
	/* the cursor on the first caller (or the callees' heading when there is none) */
	v->cur = v->ncrows > 1 ? 1 : 0;
	return TUI_HANDLED | TUI_RESCAN;
}

/* c: the callers and callees of the row's function. */
unsigned tui_chain_calls(tui_model *m, struct view *v, int key)
{
	(void)key;
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	return push_calls(m, tui_crow_sym(v, c));
}

/* ---- views ---- */

static size_t crows_n(const struct view *v)
{
	return v->ncrows;
}

static const char *crows_symbol(const tui_model *m, const struct view *v)
{
	if (v->cur >= v->ncrows)
		return NULL;
	return m->d->syms[tui_crow_sym(v, &v->crows[v->cur])].name;
}

/* A new colouring metric: the children list sorts by it; the limit of the shown nodes
 * follows its event. */
static void children_metric(tui_model *m, struct view *v)
{
	v->sort_col = m->metric;
	tui_list_rebuild(m, v);
}

static void calls_metric(tui_model *m, struct view *v)
{
	relist(m, v, NULL);
}

#define CHILDREN_STATUS "ENTER annotate  + unfold  e/E/C chains  c callers  / filter  h help  q quit"

const struct tui_view_ops tui_children_ops = {
	.kind = TUI_VIEW_SYMBOLS,
	.name = "Symbols",
	.bit = TUI_V_CHILDREN,
	.flags = TUI_VF_CURSOR | TUI_VF_LIST | TUI_VF_CHILDREN,
	.status = CHILDREN_STATUS,
	.rows = crows_n,
	.title = tui_render_list_title,
	.header = tui_render_children_header,
	.row = tui_render_children_row,
	.metric = children_metric,
	.symbol = crows_symbol,
	.entry = children_entry,
	.relist = children_relist,
};

const struct tui_view_ops tui_calls_ops = {
	.kind = TUI_VIEW_CALLS,
	.name = "Callers and callees",
	.bit = TUI_V_CALLS,
	.flags = TUI_VF_CURSOR,
	.status = "ENTER annotate  + unfold  e/E/C chains  c recentre here  h help  q back",
	.rows = crows_n,
	.title = tui_render_calls_title,
	.header = NULL,
	.row = tui_render_calls_row,
	.metric = calls_metric,
	.symbol = crows_symbol,
};
