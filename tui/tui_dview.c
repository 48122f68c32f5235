/* tui_dview.c - the data view: the rows of one data sort key (the adapter's tables: data
 * symbols, cache lines, memory levels, ...) sorted by the colouring event's cost, TAB to
 * the next key; ENTER opens the code view of a row, the code places (symbol and source
 * line) whose samples touched it, and ENTER there annotates the symbol. Tables are built
 * by the adapter when a key is first shown and kept by the data (tui_data_dtable()): the
 * view opened again reads nothing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_annview.h"
#include "tui_dview.h"

struct data_view {
	struct tui_view v;
	const tui_dtable *tab[TUI_MAX_DKEYS]; /* the keys' tables (borrowed from the data) */
	size_t key;
	size_t *order, n; /* the rows of tab[key], most cost first */
};

struct dcode_view {
	struct tui_view v;
	const tui_dtable *t; /* borrowed from the data view below */
	size_t row;
	size_t *order, n;    /* codes of row, most cost first */
};

static struct data_view *data_view(const struct tui_view *v)
{
	return (struct data_view *)v;
}

static struct dcode_view *dcode_view(const struct tui_view *v)
{
	return (struct dcode_view *)v;
}

/* ---- order ---- */

struct dsort {
	const tui_dtable *t;
	size_t e;
	int codes;
};

static int cmp_dcnt(const void *a, const void *b, void *arg)
{
	const struct dsort *c = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b, nev = c->t->nev;
	const uint64_t *cx = c->codes ? c->t->codes[x].cnt : c->t->rows[x].cnt;
	const uint64_t *cy = c->codes ? c->t->codes[y].cnt : c->t->rows[y].cnt;
	uint64_t kx[2] = { cx[nev + c->e], cx[c->e] }, ky[2] = { cy[nev + c->e], cy[c->e] };
	for (int k = 0; k < 2; k++)
		if (kx[k] != ky[k])
			return kx[k] > ky[k] ? -1 : 1;
	const char *nx = c->codes ? c->t->codes[x].sym : c->t->rows[x].name;
	const char *ny = c->codes ? c->t->codes[y].sym : c->t->rows[y].name;
	int r = strcmp(nx, ny);
	return r ? r : x < y ? -1 : x > y;
}

/* The rows of t (codes: the codes of row) with counts of any event, by the colouring
 * event's cost: into *order (reallocated), their number returned; 0 when out of memory. */
static size_t sort_rows(const tui_model *m, const tui_dtable *t, int codes, size_t row,
			size_t **order)
{
	size_t total = codes ? t->ncodes : t->nrows, n = 0;
	free(*order);
	if (!(*order = malloc((total + 1) * sizeof(**order))))
		return 0;
	for (size_t i = 0; i < total; i++)
		if (!codes || t->codes[i].row == row)
			(*order)[n++] = i;
	struct dsort c = { t, (size_t)tui_hot_event(m), codes };
	qsort_r(*order, n, sizeof(**order), cmp_dcnt, &c);
	return n;
}

/* ---- rows ---- */

static int has_weight(const tui_model *m, const tui_dtable *t)
{
	return t->tot[2 * t->nev + (size_t)tui_hot_event(m)] != 0;
}

static void dheads(tui_model *m, struct tui_line *l, const tui_dtable *t, const char *what)
{
	tui_event_heads(m, l);
	if (has_weight(m, t))
		tui_put(l, "       weight");
	tui_putf(l, "  %s", what);
}

/* The count cells of cnt (of table t; percent: of the counts of), and its weight; the
 * colouring event's heat. Percent of recording is of the table's totals: every sample of
 * an event with data fields is in them, and their cost is weights, not periods. */
static int dcells(tui_model *m, struct tui_line *l, const tui_dtable *t, const uint64_t *cnt,
		  const uint64_t *of)
{
	size_t nev = t->nev, hot = (size_t)tui_hot_event(m);
	int heat = 0;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = tui_put_cell_of(m, l, e, cnt[e], cnt[nev + e], of[e], of[nev + e],
					t->tot[e], t->tot[nev + e]);
		if (e == hot)
			heat = h;
	}
	if (has_weight(m, t))
		tui_putf(l, " %12" PRIu64, cnt[2 * nev + hot]);
	return heat;
}

static void put_name(struct tui_line *l, const char *name, int heat)
{
	tui_put(l, "  ");
	int col = l->pos;
	tui_put(l, name);
	tui_span(l, col, heat);
}

static void dtitle(tui_model *m, struct tui_line *l, const tui_dtable *t, const char *head)
{
	size_t e = (size_t)tui_hot_event(m), nev = t->nev;
	char s[512];
	int n = snprintf(s, sizeof(s), " %s | %" PRIu64 " samples of '%s' with data", head,
			 t->tot[e], m->d->ev[e].name);
	if (has_weight(m, t) && n > 0 && (size_t)n < sizeof(s))
		snprintf(s + n, sizeof(s) - (size_t)n, ", weight %" PRIu64, t->tot[2 * nev + e]);
	tui_put_sim(m, l);
	tui_put_title(l, s);
}

/* ---- the data view ---- */

static void data_free(struct tui_view *v)
{
	struct data_view *dv = data_view(v);
	free(dv->order);
	free(dv);
}

/* Show key k (its table built first when needed): 0, or a negative code with the message
 * set and the view as it was. */
static int data_show(tui_model *m, struct data_view *dv, size_t k)
{
	if (!dv->tab[k]) {
		struct mp_err err = { 0 };
		if (!(dv->tab[k] = tui_data_dtable(m->d, k, &err))) {
			tui_set_msg(m, "%s", err.msg);
			return err.code ? err.code : -EINVAL;
		}
	}
	dv->key = k;
	dv->n = sort_rows(m, dv->tab[k], 0, 0, &dv->order);
	dv->v.cur = dv->v.top = 0;
	return 0;
}

unsigned tui_data_open(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	tui_data *d = m->d;
	if (!d->dfn || !d->ndkeys) {
		tui_set_msg(m, "%s", d->no_dkeys ? d->no_dkeys : "no data view: the recording has "
			    "no data addresses");
		return TUI_HANDLED | TUI_REDRAW;
	}
	struct data_view *dv = calloc(1, sizeof(*dv));
	if (!dv) {
		tui_set_msg(m, "out of memory");
		return TUI_HANDLED | TUI_REDRAW;
	}
	dv->v.ops = &tui_data_ops;
	if (data_show(m, dv, 0)) {
		data_free(&dv->v);
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (tui_push_view(m, &dv->v))
		tui_set_msg(m, "out of memory");
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_data_next_key(tui_model *m, struct tui_view *v, int key)
{
	struct data_view *dv = data_view(v);
	size_t n = m->d->ndkeys;
	size_t k = (dv->key + (key == TUI_KEY_BTAB ? n - 1 : 1)) % n;
	if (!data_show(m, dv, k))
		tui_set_msg(m, "data by %s (%s)", m->d->dkeys[k], dv->tab[k]->title);
	return TUI_HANDLED | TUI_RESCAN;
}

static size_t data_rows(const struct tui_view *v)
{
	return data_view(v)->n;
}

static void data_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const struct data_view *dv = data_view(v);
	char head[128];
	snprintf(head, sizeof(head), "Data by %s", m->d->dkeys[dv->key]);
	dtitle(m, l, dv->tab[dv->key], head);
}

static void data_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const struct data_view *dv = data_view(v);
	dheads(m, l, dv->tab[dv->key], dv->tab[dv->key]->title);
}

static void data_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	const struct data_view *dv = data_view(v);
	const tui_dtable *t = dv->tab[dv->key];
	const struct tui_drow *r = &t->rows[dv->order[i]];
	put_name(l, r->name, dcells(m, l, t, r->cnt, t->tot));
}

/* the rows sorted by the new colouring event, the cursor kept on its row */
static void data_metric(tui_model *m, struct tui_view *v)
{
	struct data_view *dv = data_view(v);
	size_t keep = v->cur < dv->n ? dv->order[v->cur] : SIZE_MAX;
	dv->n = sort_rows(m, dv->tab[dv->key], 0, 0, &dv->order);
	v->cur = 0;
	for (size_t i = 0; i < dv->n; i++)
		if (dv->order[i] == keep)
			v->cur = i;
}

static const char *data_symbol(const tui_model *m, const struct tui_view *v)
{
	(void)m;
	const struct data_view *dv = data_view(v);
	return v->cur < dv->n ? dv->tab[dv->key]->rows[dv->order[v->cur]].name : NULL;
}

/* the next event, never a ratio: data rows have none */
static int data_next_metric(const tui_model *m, const struct tui_view *v, int dir)
{
	(void)v;
	int nev = (int)NEV(m), e = tui_hot_event(m);
	return (e + dir + nev) % nev;
}

unsigned tui_data_code(tui_model *m, struct tui_view *v, int key)
{
	(void)key;
	struct data_view *dv = data_view(v);
	if (v->cur >= dv->n)
		return TUI_HANDLED;
	struct dcode_view *cv = calloc(1, sizeof(*cv));
	if (!cv) {
		tui_set_msg(m, "out of memory");
		return TUI_HANDLED | TUI_REDRAW;
	}
	cv->v.ops = &tui_dcode_ops;
	cv->t = dv->tab[dv->key];
	cv->row = dv->order[v->cur];
	cv->n = sort_rows(m, cv->t, 1, cv->row, &cv->order);
	if (tui_push_view(m, &cv->v))
		tui_set_msg(m, "out of memory");
	return TUI_HANDLED | TUI_RESCAN;
}

static const int data_status[] = { TUI_KEY_ENTER, TUI_KEY_TAB, 'x', 'h', 'q', 0 };

const struct tui_view_ops tui_data_ops = {
	.kind = TUI_VIEW_DATA,
	.name = "Data",
	.bit = TUI_V_DATA,
	.flags = TUI_VF_CURSOR,
	.status = data_status,
	.free = data_free,
	.rows = data_rows,
	.title = data_title,
	.header = data_header,
	.row = data_row,
	.metric = data_metric,
	.next_metric = data_next_metric,
	.symbol = data_symbol,
};

/* ---- the code that touched a row ---- */

static void dcode_free(struct tui_view *v)
{
	free(dcode_view(v)->order);
	free(v);
}

static size_t dcode_rows(const struct tui_view *v)
{
	return dcode_view(v)->n;
}

static void dcode_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const struct dcode_view *cv = dcode_view(v);
	const tui_dtable *t = cv->t;
	size_t e = (size_t)tui_hot_event(m), nev = t->nev;
	const uint64_t *c = t->rows[cv->row].cnt;
	char s[512];
	int n = snprintf(s, sizeof(s), " Code that touched %s | %" PRIu64 " samples of '%s'",
			 t->rows[cv->row].name, c[e], m->d->ev[e].name);
	if (has_weight(m, t) && n > 0 && (size_t)n < sizeof(s))
		n += snprintf(s + n, sizeof(s) - (size_t)n, ", weight %" PRIu64, c[2 * nev + e]);
	if (m->show == TUI_SHOW_PERCENT && n > 0 && (size_t)n < sizeof(s))
		snprintf(s + n, sizeof(s) - (size_t)n, "; percent of it");
	tui_put_sim(m, l);
	tui_put_title(l, s);
}

static void dcode_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	dheads(m, l, dcode_view(v)->t, "symbol  source line  object");
}

static void dcode_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	const struct dcode_view *cv = dcode_view(v);
	const struct tui_dcode *c = &cv->t->codes[cv->order[i]];
	put_name(l, c->sym, dcells(m, l, cv->t, c->cnt, cv->t->rows[cv->row].cnt));
	tui_putf(l, "  %s", c->line ? c->line : "?");
	if (c->dso) {
		const char *base = strrchr(c->dso, '/');
		tui_putf(l, "  %s", base ? base + 1 : c->dso);
	}
}

static void dcode_metric(tui_model *m, struct tui_view *v)
{
	struct dcode_view *cv = dcode_view(v);
	cv->n = sort_rows(m, cv->t, 1, cv->row, &cv->order);
	v->cur = v->top = 0;
}

static const char *dcode_symbol(const tui_model *m, const struct tui_view *v)
{
	(void)m;
	const struct dcode_view *cv = dcode_view(v);
	return v->cur < cv->n ? cv->t->codes[cv->order[v->cur]].sym : NULL;
}

unsigned tui_dcode_annotate(tui_model *m, struct tui_view *v, int key)
{
	(void)key;
	const struct dcode_view *cv = dcode_view(v);
	if (v->cur >= cv->n)
		return TUI_HANDLED;
	const struct tui_dcode *c = &cv->t->codes[cv->order[v->cur]];
	const tui_data *d = m->d;
	long sym = -1;
	for (size_t i = 0; i < d->nsyms && sym < 0; i++)
		if (!strcmp(d->syms[i].name, c->sym) &&
		    (!c->dso || !d->syms[i].dso || !strcmp(d->syms[i].dso, c->dso)))
			sym = (long)i;
	struct tui_sym_ref ref = { c->sym, c->dso, 0 };
	tui_open_annotate(m, sym, &ref, 0);
	return TUI_HANDLED | TUI_RESCAN;
}

static const int dcode_status[] = { TUI_KEY_ENTER, 'x', 'h', 'q', 0 };

const struct tui_view_ops tui_dcode_ops = {
	.kind = TUI_VIEW_DATA_CODE,
	.name = "Code",
	.bit = TUI_V_DCODE,
	.flags = TUI_VF_CURSOR,
	.status = dcode_status,
	.free = dcode_free,
	.rows = dcode_rows,
	.title = dcode_title,
	.header = dcode_header,
	.row = dcode_row,
	.metric = dcode_metric,
	.next_metric = data_next_metric,
	.symbol = dcode_symbol,
};
