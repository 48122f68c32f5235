/* tui_list.c - the symbol list and the ratio list: rows of symbols, filtered by name and
 * sorted by a column (an event's counts, a ratio, the name or the dso). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"


struct sort_ctx {
	tui_model *m;
	int col;
	int children; /* event columns sort by Children, then Self */
};

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	tui_data *d = c->m->d;
	const struct tui_sym *sx = &d->syms[x], *sy = &d->syms[y];
	int r = 0;

	if (c->col == TUI_COL_SYMBOL) {
		r = strcmp(sx->name, sy->name);
	} else if (c->col == TUI_COL_DSO) {
		r = strcmp(sx->dso, sy->dso);
		if (!r)
			r = strcmp(sx->name, sy->name);
	} else if (c->col >= 0 && (size_t)c->col < d->nev && c->children) {
		static const uint64_t zero[2 * TUI_MAX_EVENTS];
		const uint64_t *cx = sx->ch ? sx->ch : zero, *cy = sy->ch ? sy->ch : zero;
		size_t p = d->nev + (size_t)c->col, n = (size_t)c->col;
		uint64_t kx[4] = { cx[p], cx[n], sx->cnt[p], sx->cnt[n] };
		uint64_t ky[4] = { cy[p], cy[n], sy->cnt[p], sy->cnt[n] };
		for (int k = 0; k < 4 && !r; k++)
			r = kx[k] > ky[k] ? -1 : kx[k] < ky[k];
	} else if (c->col >= 0 && (size_t)c->col < d->nev) {
		uint64_t px = sx->cnt[d->nev + c->col], py = sy->cnt[d->nev + c->col];
		uint64_t nx = sx->cnt[c->col], ny = sy->cnt[c->col];
		r = px > py ? -1 : px < py ? 1 : nx > ny ? -1 : nx < ny ? 1 : 0;
	} else {
		size_t ri = (size_t)c->col - d->nev;
		const struct tui_ratio_val *vx = tui_sym_rv(c->m, x, ri), *vy = tui_sym_rv(c->m, y, ri);
		int okx = vx && (vx->flags & TUI_RV_VALID), oky = vy && (vy->flags & TUI_RV_VALID);
		if (okx != oky)
			r = okx ? -1 : 1;
		else if (okx && vx->weight != vy->weight)
			r = vx->weight > vy->weight ? -1 : 1;
		else if (okx && vx->value != vy->value)
			r = vx->value > vy->value ? -1 : 1;
	}
	if (r)
		return r;
	return x < y ? -1 : x > y;
}

size_t tui_list_entry(const struct view *l)
{
	if (l->ops->entry)
		return l->ops->entry(l);
	return l->cur < l->nrows ? l->cur : SIZE_MAX;
}

void tui_list_set_entry(tui_model *m, struct view *l, size_t pos)
{
	l->cur = pos;
	if (l->ops->relist)
		l->ops->relist(m, l);
}

void tui_list_rebuild(tui_model *m, struct view *v)
{
	tui_data *d = m->d;
	size_t e = tui_list_entry(v);
	size_t keep = e < v->nrows ? v->rows[e] : (size_t)-1;

	v->nrows = 0;
	for (size_t i = 0; i < d->nsyms; i++)
		if (!v->filter[0] || strcasestr(d->syms[i].name, v->filter))
			v->rows[v->nrows++] = i;
	struct sort_ctx c = { m, v->sort_col, (v->ops->flags & TUI_VF_CHILDREN) != 0 };
	qsort_r(v->rows, v->nrows, sizeof(size_t), cmp_rows, &c);
	v->cur = 0;
	v->top = 0;
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i] == keep) {
			v->cur = i;
			break;
		}
	if (v->ops->relist)
		v->ops->relist(m, v);
}

static int n_sort_cols(const tui_model *m)
{
	return (int)(NEV(m) + NRAT(m) + 2);
}

static int sort_col_at(const tui_model *m, int i)
{
	int nev = (int)NEV(m), nr = (int)NRAT(m);
	if (i < nev + nr)
		return i;
	return i == nev + nr ? TUI_COL_SYMBOL : TUI_COL_DSO;
}

static int sort_col_pos(const tui_model *m, int col)
{
	if (col == TUI_COL_SYMBOL)
		return (int)(NEV(m) + NRAT(m));
	if (col == TUI_COL_DSO)
		return (int)(NEV(m) + NRAT(m)) + 1;
	return col;
}

static unsigned filter_done(tui_model *m, struct view *v, const char *text, int kind)
{
	(void)kind;
	snprintf(v->filter, sizeof(v->filter), "%s", text);
	tui_list_rebuild(m, v);
	if (v->filter[0])
		tui_set_msg(m, "%zu of %zu symbols match '%s'", v->nrows, m->d->nsyms, v->filter);
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_list_filter(tui_model *m, struct view *v, int key)
{
	tui_start_prompt(m, key, v->filter, "Filter", filter_done);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_list_sort(tui_model *m, struct view *v, int key)
{
	int n = n_sort_cols(m);
	int p = (sort_col_pos(m, v->sort_col) + (key == 'o' ? 1 : n - 1)) % n;
	v->sort_col = sort_col_at(m, p);
	tui_list_rebuild(m, v);
	tui_set_msg(m, "sorted by %s", tui_col_name(m, v->sort_col));
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_list_annotate(tui_model *m, struct view *v, int key)
{
	(void)key;
	if (!v->nrows)
		return TUI_HANDLED;
	tui_open_annotate(m, (long)v->rows[v->cur], NULL, 0);
	return TUI_HANDLED | TUI_RESCAN;
}

int tui_push_list(tui_model *m, const struct tui_view_ops *ops)
{
	struct view *v = tui_push_view(m, ops);
	if (!v)
		return -ENOMEM;
	v->rows = malloc((m->d->nsyms + 1) * sizeof(size_t));
	if (ops->flags & TUI_VF_CHILDREN) { /* a call tree per symbol, built when shown */
		v->ct = calloc(m->d->nsyms + 1, sizeof(*v->ct));
		v->nct = v->ct ? m->d->nsyms : 0;
	}
	if (!v->rows || ((ops->flags & TUI_VF_CHILDREN) && !v->ct)) {
		tui_view_fini(v);
		m->depth--;
		return -ENOMEM;
	}
	v->sort_col = m->metric;
	tui_list_rebuild(m, v);
	return 0;
}

static size_t list_rows(const struct view *v)
{
	return v->nrows;
}

/* A new colouring metric sorts the list by it. */
static void list_metric(tui_model *m, struct view *v)
{
	v->sort_col = m->metric;
	tui_list_rebuild(m, v);
}

static const char *list_symbol(const tui_model *m, const struct view *v)
{
	return v->cur < v->nrows ? m->d->syms[v->rows[v->cur]].name : NULL;
}

#define LIST_STATUS "ENTER annotate  / filter  x event  o sort  R ratios  i summary  h help  q quit"

const struct tui_view_ops tui_symbols_ops = {
	.kind = TUI_VIEW_SYMBOLS,
	.name = "Symbols",
	.bit = TUI_V_SYMBOLS,
	.flags = TUI_VF_CURSOR | TUI_VF_LIST,
	.status = LIST_STATUS,
	.rows = list_rows,
	.title = tui_render_list_title,
	.header = tui_render_sym_header,
	.row = tui_render_sym_row,
	.metric = list_metric,
	.symbol = list_symbol,
};

const struct tui_view_ops tui_ratios_ops = {
	.kind = TUI_VIEW_RATIOS,
	.name = "Ratios",
	.bit = TUI_V_RATIOS,
	.flags = TUI_VF_CURSOR | TUI_VF_LIST,
	.status = LIST_STATUS,
	.rows = list_rows,
	.title = tui_render_list_title,
	.header = tui_render_ratio_header,
	.row = tui_render_ratio_row,
	.metric = list_metric,
	.symbol = list_symbol,
};
