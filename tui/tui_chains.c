/* tui_chains.c - call trees in the browser, as perf report's TUI shows them with --children:
 * the symbol list's entries unfold into their call trees in place (+ one level, e the whole
 * entry, E everything, C nothing), and the caller/callee view of one function (c) shows who
 * calls it and what it calls. The trees come from the data's chain callback when first
 * shown; the views keep which nodes are unfolded and render their rows here. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_annview.h"
#include "tui_chains.h"
#include "tui_list.h"

/* A call tree shown in a view: the adapter's tree (built when first shown) and which of
 * its nodes are unfolded. */
struct tui_ctree {
	tui_chain *t;
	unsigned char *open; /* per node */
	int expanded;        /* the tree is shown under its entry (or heading) */
	int failed;          /* the adapter could not build it (said once) */
};

/* A row of a view with call trees: an entry (a symbol of the list, or a heading of the
 * caller/callee view) or a tree node. row: the entry's index (in the children list's rows,
 * or 0 callers, 1 callees). A run of nodes with one child each is drawn as perf does: one
 * node a row at the same level, the first (head) with the fold sign and the percentage. */
enum { CR_ENTRY, CR_NODE };
struct crow {
	int kind;
	int level;
	size_t row;
	long node, head;
};

struct chain_view;

/* What the two views with trees differ in: their entries, each with a tree. */
struct chain_kind {
	size_t (*nent)(const struct chain_view *c);
	struct tui_ctree *(*tree)(const struct chain_view *c, size_t ent);
	size_t (*sym)(const struct chain_view *c, size_t ent); /* the entry's function */
	enum tui_chain_kind (*chain)(size_t ent);               /* the tree it asks for */
};

/* The part both views share; their actions (TUI_V_CHAINS) see only this. */
struct chain_view {
	struct tui_view v;
	const struct chain_kind *k;
	struct tui_ctree *ct;
	size_t nct;
	struct crow *crows;
	size_t ncrows;
};

/* The children list: a symbol list whose entries have a tree each (ct per data symbol). */
struct children_view {
	struct chain_view c;
	struct tui_list list;
};

/* The callers and callees of the function csym: two entries, ct[0] callers, ct[1]
 * callees. */
struct calls_view {
	struct chain_view c;
	size_t csym;
};

static struct chain_view *chain_view(const struct tui_view *v)
{
	return (struct chain_view *)v;
}

/* ---- trees ---- */

static uint64_t cnode_val(const tui_chain *t, long n, size_t ev, int period)
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
	uint64_t v = cnode_val(t, n, (size_t)tui_hot_event(m), 1);
	return v && v >= min;
}

/* The one child of n with a count, or -1 when n has none or several. */
static long only_child(const tui_model *m, const tui_chain *t, long n)
{
	long only = -1;
	size_t e = (size_t)tui_hot_event(m);
	for (long c = t->n[n].first; c >= 0; c = t->n[c].next)
		if (cnode_val(t, c, e, 1)) {
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

/* Whether a head node has nodes under it shown. */
static int cnode_more(const tui_model *m, const tui_chain *t, long n)
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

static struct tui_ctree *crow_tree(const struct chain_view *v, const struct crow *c)
{
	return v->k->tree(v, c->row);
}

/* The function of a row: its node's, or its entry's. */
static size_t crow_sym(const struct chain_view *v, const struct crow *c)
{
	if (c->kind == CR_NODE)
		return crow_tree(v, c)->t->n[c->node].sym;
	return v->k->sym(v, c->row);
}

/* The tree of an entry row from the adapter, once. 0 when it is there. */
static int ctree_load(tui_model *m, struct chain_view *v, const struct crow *c)
{
	struct tui_ctree *ct = crow_tree(v, c);
	tui_data *d = m->d;
	struct mp_err err = { 0 };
	size_t sym = crow_sym(v, c);

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
	int rc = d->cfn(d->cctx, sym, v->k->chain(c->row), &t, &err);
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
	if (MP_GROW(o->r, o->cap, o->n + 1)) {
		o->nomem = 1;
		return;
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
static void relist(tui_model *m, struct chain_view *v, const struct crow *keep)
{
	struct rows_out o = { 0 };
	uint64_t min = min_shown(m);
	struct crow k = { CR_ENTRY, 0, SIZE_MAX, -1, -1 };
	if (keep)
		k = *keep;
	else if (v->v.cur < v->ncrows)
		k = v->crows[v->v.cur];
	size_t nent = v->k->nent(v);
	for (size_t i = 0; i < nent; i++) {
		put_row(&o, (struct crow){ CR_ENTRY, 0, i, -1, -1 });
		const struct tui_ctree *ct = v->k->tree(v, i);
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
	v->v.cur = at;
}

/* ---- keys ---- */

static struct crow *cur_row(struct chain_view *v)
{
	return v->v.cur < v->ncrows ? &v->crows[v->v.cur] : NULL;
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
unsigned tui_chain_plus(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct chain_view *v = chain_view(tv);
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct tui_ctree *ct = crow_tree(v, c);
	struct crow k = *c;
	if (c->kind == CR_ENTRY) {
		if (ctree_load(m, v, c))
			return TUI_HANDLED | TUI_REDRAW;
		if (!ct->expanded && !tree_has_shown(m, ct->t)) {
			tui_set_msg(m, "%s: no call chains above %.2g%%",
				    m->d->syms[crow_sym(v, c)].name, m->d->chain_pct);
			return TUI_HANDLED | TUI_REDRAW;
		}
		ct->expanded = !ct->expanded;
	} else {
		if (!cnode_more(m, ct->t, c->head))
			return TUI_HANDLED;
		ct->open[c->head] = !ct->open[c->head];
		k.node = c->head;
	}
	relist(m, v, &k);
	return TUI_HANDLED | TUI_RESCAN;
}

/* e: the cursor's entry all unfolded, or folded when it is unfolded. */
unsigned tui_chain_entry(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct chain_view *v = chain_view(tv);
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct crow k = entry_of(c);
	struct tui_ctree *ct = crow_tree(v, c);
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
unsigned tui_chain_all(tui_model *m, struct tui_view *tv, int key)
{
	struct chain_view *v = chain_view(tv);
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	struct crow k = key == 'E' ? *c : entry_of(c);
	size_t nent = v->k->nent(v);
	for (size_t i = 0; i < nent; i++) {
		struct crow e = { CR_ENTRY, 0, i, -1, -1 };
		struct tui_ctree *ct = crow_tree(v, &e);
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
unsigned tui_chain_annotate(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct chain_view *v = chain_view(tv);
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	tui_open_annotate(m, (long)crow_sym(v, c), NULL, 0);
	return TUI_HANDLED | TUI_RESCAN;
}

static void chain_fini(struct chain_view *v)
{
	for (size_t i = 0; i < v->nct; i++) {
		tui_chain_free(v->ct[i].t);
		free(v->ct[i].open);
	}
	free(v->ct);
	free(v->crows);
}

/* ---- the caller/callee view ---- */

static size_t calls_nent(const struct chain_view *c)
{
	(void)c;
	return 2;
}

static struct tui_ctree *calls_tree(const struct chain_view *c, size_t ent)
{
	return &c->ct[ent];
}

static size_t calls_sym(const struct chain_view *c, size_t ent)
{
	(void)ent;
	return ((const struct calls_view *)c)->csym;
}

static enum tui_chain_kind calls_chain(size_t ent)
{
	return ent == 0 ? TUI_CHAIN_CALLERS : TUI_CHAIN_CALLEES;
}

static const struct chain_kind calls_kind = { calls_nent, calls_tree, calls_sym, calls_chain };

static void calls_free(struct tui_view *v)
{
	chain_fini(chain_view(v));
	free(v);
}

static unsigned push_calls(tui_model *m, size_t sym)
{
	struct calls_view *cv = calloc(1, sizeof(*cv));
	struct tui_ctree *ct = calloc(2, sizeof(*ct));
	if (!cv || !ct) {
		free(cv);
		free(ct);
		tui_set_msg(m, "out of memory");
		return TUI_HANDLED | TUI_RESCAN;
	}
	struct chain_view *v = &cv->c;
	v->v.ops = &tui_calls_ops;
	v->k = &calls_kind;
	v->ct = ct;
	v->nct = 2;
	cv->csym = sym;
	for (size_t i = 0; i < 2; i++) {
		struct crow e = { CR_ENTRY, 0, i, -1, -1 };
		if (!ctree_load(m, v, &e))
			v->ct[i].expanded = 1;
	}
	relist(m, v, NULL);
	/* the cursor on the first caller (or the callees' heading when there is none) */
	v->v.cur = v->ncrows > 1 ? 1 : 0;
	if (tui_push_view(m, &v->v))
		tui_set_msg(m, "out of memory");
	return TUI_HANDLED | TUI_RESCAN;
}

/* c: the callers and callees of the row's function. */
unsigned tui_chain_calls(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct chain_view *v = chain_view(tv);
	struct crow *c = cur_row(v);
	if (!c)
		return TUI_HANDLED;
	return push_calls(m, crow_sym(v, c));
}

/* ---- the children list ---- */

static struct children_view *children_view(const struct chain_view *c)
{
	return (struct children_view *)c;
}

static size_t children_nent(const struct chain_view *c)
{
	return children_view(c)->list.nrows;
}

static struct tui_ctree *children_tree(const struct chain_view *c, size_t ent)
{
	return &c->ct[children_view(c)->list.rows[ent]];
}

static size_t children_sym(const struct chain_view *c, size_t ent)
{
	return children_view(c)->list.rows[ent];
}

static enum tui_chain_kind children_chain(size_t ent)
{
	(void)ent;
	return TUI_CHAIN_ENTRY;
}

static const struct chain_kind children_kind = { children_nent, children_tree, children_sym,
						  children_chain };

static void children_free(struct tui_view *v)
{
	struct children_view *cv = children_view(chain_view(v));
	chain_fini(&cv->c);
	tui_list_fini(&cv->list);
	free(cv);
}

static struct tui_list *children_list(struct tui_view *v)
{
	return &children_view(chain_view(v))->list;
}

/* The list's rows changed, the cursor is an index of them. */
static void children_relist(tui_model *m, struct tui_view *tv)
{
	struct chain_view *v = chain_view(tv);
	struct crow k = { CR_ENTRY, 0, tv->cur, -1, -1 };
	relist(m, v, children_view(v)->list.nrows ? &k : NULL);
}

static size_t children_entry(const struct tui_view *tv)
{
	const struct chain_view *v = chain_view(tv);
	return tv->cur < v->ncrows ? v->crows[tv->cur].row : SIZE_MAX;
}

int tui_push_children(tui_model *m)
{
	struct children_view *cv = calloc(1, sizeof(*cv));
	if (!cv)
		return -ENOMEM;
	struct chain_view *v = &cv->c;
	v->v.ops = &tui_children_ops;
	v->k = &children_kind;
	/* a call tree per symbol, built when shown */
	v->ct = calloc(m->d->nsyms + 1, sizeof(*v->ct));
	v->nct = v->ct ? m->d->nsyms : 0;
	if (!v->ct || tui_list_init(m, &v->v, &cv->list, m->metric, 1)) {
		chain_fini(v);
		free(cv);
		return -ENOMEM;
	}
	return tui_push_view(m, &v->v);
}

/* ---- rows rendered ---- */

/* A node's count as the view shows counts: its share of the event (of the whole
 * recording, as perf's call graphs), or its samples or period, in buf. Returns its heat. */
static int node_value(const tui_model *m, const tui_chain *t, long n, char *buf, size_t len)
{
	size_t e = (size_t)tui_hot_event(m);
	const struct tui_event *ev = &m->d->ev[e];
	uint64_t s = cnode_val(t, n, e, 0), p = cnode_val(t, n, e, 1);
	double pct = ev->period ? 100.0 * (double)p / (double)ev->period
		     : ev->samples ? 100.0 * (double)s / (double)ev->samples : 0;
	if (m->show == TUI_SHOW_SAMPLES || m->show == TUI_SHOW_PERIOD)
		snprintf(buf, len, "%" PRIu64, m->show == TUI_SHOW_SAMPLES ? s : p);
	else
		snprintf(buf, len, "%.2f%%", pct);
	return tui_heat_of(pct);
}

/* A tree row: indented 3 columns a level as perf's TUI; the head of a run with its fold
 * sign and count, the other nodes of the run under its name. */
static void render_node(tui_model *m, struct tui_line *l, const struct chain_view *v,
			const struct crow *c)
{
	const struct tui_ctree *ct = crow_tree(v, c);
	const tui_chain *t = ct->t;
	char val[64];
	int heat = node_value(m, t, c->head, val, sizeof(val));
	tui_putf(l, "%*s", 3 * c->level, "");
	if (c->node == c->head) {
		char sign = !cnode_more(m, t, c->head) ? ' ' : ct->open[c->head] ? '-' : '+';
		tui_putf(l, "%c ", sign);
		int col = l->pos;
		tui_put(l, val);
		tui_span(l, col, heat);
		tui_put(l, " ");
	} else {
		tui_putf(l, "  %*s ", (int)strlen(val), "");
	}
	char sh[1024];
	tui_put(l, tui_short_name(m, m->d->syms[t->n[c->node].sym].name, l->cols - l->pos, sh,
				  sizeof(sh)));
}

/* '-' unfolded, '+' folded, ' ' without a tree (perf's fold signs) */
static char entry_sign(const struct tui_ctree *ct)
{
	if (ct->expanded)
		return '-';
	return ct->failed || (ct->t && ct->t->first < 0) ? ' ' : '+';
}

static void children_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const tui_data *d = m->d;
	tui_put(l, " ");
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int w = tui_cell_width(m, e);
		if (m->nvis == 1) {
			tui_putf(l, "%*s%*s", w, "Children", w, "Self");
		} else {
			char c[64], s[64];
			snprintf(c, sizeof(c), "C:%s", d->ev[e].name);
			snprintf(s, sizeof(s), "S:%s", d->ev[e].name);
			tui_putf(l, "%*.*s%*.*s", w, w - 1, c, w, w - 1, s);
		}
	}
	if ((size_t)m->metric >= d->nev)
		tui_putf(l, " %13.13s", tui_col_name(m, m->metric));
	tui_put(l, "  ");
	tui_put_thread_head(m, l, tui_view_list(v)->zthread < 0);
	tui_put(l, "symbol");
}

static void children_row(tui_model *m, struct tui_line *l, const struct tui_view *tv, size_t i)
{
	const struct chain_view *v = chain_view(tv);
	const tui_data *d = m->d;
	const struct crow *c = &v->crows[i];
	if (c->kind == CR_NODE) {
		render_node(m, l, v, c);
		return;
	}
	size_t sym = children_sym(v, c->row);
	const struct tui_sym *s = &d->syms[sym];
	static const uint64_t zero[2 * TUI_MAX_EVENTS];
	const uint64_t *ch = s->ch ? s->ch : zero;
	int hot = 0;
	tui_putf(l, "%c", entry_sign(&v->ct[sym]));
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = tui_put_cell(m, l, e, ch[e], ch[d->nev + e], d->ev[e].samples,
				     d->ev[e].period);
		tui_put_cell(m, l, e, s->cnt[e], s->cnt[d->nev + e], d->ev[e].samples,
			     d->ev[e].period);
		if (e == (size_t)tui_hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev)
		tui_put_sym_ratio(m, l, sym, (size_t)m->metric - d->nev);
	tui_put_sym_name(m, l, s, hot, tui_view_list(tv)->zthread < 0);
}

static void calls_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const tui_data *d = m->d;
	const struct tui_sym *s = &d->syms[calls_sym(chain_view(v), 0)];
	size_t e = (size_t)tui_hot_event(m);
	const struct tui_event *ev = &d->ev[e];
	char t[512];
	tui_put_sim(m, l);
	double cp = ev->period && s->ch ? 100.0 * (double)s->ch[d->nev + e] / (double)ev->period : 0;
	double sp = ev->period ? 100.0 * (double)s->cnt[d->nev + e] / (double)ev->period : 0;
	char sh[1024];
	snprintf(t, sizeof(t), " Calls of %s (%s) | %s: children %.2f%%, self %.2f%%",
		 tui_short_name(m, s->name, m->cols / 2, sh, sizeof(sh)), s->dso, ev->name, cp, sp);
	tui_put_title(l, t);
}

static void calls_row(tui_model *m, struct tui_line *l, const struct tui_view *tv, size_t i)
{
	const struct chain_view *v = chain_view(tv);
	const struct crow *c = &v->crows[i];
	if (c->kind == CR_NODE) {
		render_node(m, l, v, c);
		return;
	}
	const struct tui_ctree *ct = &v->ct[c->row];
	char sign = ct->t && ct->t->first >= 0 ? (ct->expanded ? '-' : '+') : ' ';
	char sh[1024];
	tui_putf(l, "%c %s of %s%s", sign, c->row == 0 ? "Callers" : "Callees",
		 tui_short_name(m, m->d->syms[calls_sym(v, c->row)].name, m->cols / 2, sh,
				sizeof(sh)),
		 ct->t && ct->t->first < 0 ? c->row == 0 ? ": none (a root of its chains)"
							 : ": none (it calls nothing sampled)"
					  : "");
}

/* ---- the views ---- */

enum tui_crow_kind tui_chain_row_kind(const struct tui_view *tv, size_t i)
{
	const struct crow *c = &chain_view(tv)->crows[i];
	if (c->kind == CR_ENTRY)
		return TUI_CROW_ENTRY;
	return c->node == c->head ? TUI_CROW_HEAD : TUI_CROW_RUN;
}

static size_t crows_n(const struct tui_view *v)
{
	return chain_view(v)->ncrows;
}

static const char *crows_symbol(const tui_model *m, const struct tui_view *tv)
{
	const struct chain_view *v = chain_view(tv);
	if (tv->cur >= v->ncrows)
		return NULL;
	return m->d->syms[crow_sym(v, &v->crows[tv->cur])].name;
}

/* A new colouring metric: the limit of the shown nodes follows its event. */
static void calls_metric(tui_model *m, struct tui_view *v)
{
	relist(m, chain_view(v), NULL);
}

static const int children_status[] = { TUI_KEY_ENTER, '+', 'e', 'c', '/', 'h', 'q', 0 };
static const int calls_status[] = { TUI_KEY_ENTER, '+', 'e', 'c', 'h', 'q', 0 };

const struct tui_view_ops tui_children_ops = {
	.kind = TUI_VIEW_SYMBOLS,
	.name = "Symbols",
	.bit = TUI_V_CHILDREN,
	.flags = TUI_VF_CURSOR,
	.status = children_status,
	.cells = 2, /* Children and Self */
	.free = children_free,
	.rows = crows_n,
	.title = tui_list_title,
	.header = children_header,
	.row = children_row,
	.metric = tui_list_metric, /* sorted by it */
	.symbol = crows_symbol,
	.list = children_list,
	.entry = children_entry,
	.relist = children_relist,
};

const struct tui_view_ops tui_calls_ops = {
	.kind = TUI_VIEW_CALLS,
	.name = "Callers and callees",
	.bit = TUI_V_CALLS,
	.flags = TUI_VF_CURSOR,
	.status = calls_status,
	.free = calls_free,
	.rows = crows_n,
	.title = calls_title,
	.header = NULL,
	.row = calls_row,
	.metric = calls_metric,
	.symbol = crows_symbol,
};
