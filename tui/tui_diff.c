/* tui_diff.c - the diff view (memprof diff --tui): per place the baseline's share and the
 * new recording's side by side, and the change, coloured by how sure it is (hot: its 95%
 * interval excludes zero). The data's events come in pairs: event 2k is the baseline's,
 * 2k+1 the new recording's count of the same event (tui_data_set_diff()). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_ratios.h"
#include "tui_diff.h"

/* The pair shown: the colouring event's pair. */
static size_t pair_of(const tui_model *m)
{
	size_t e = (size_t)tui_hot_event(m);
	return e / 2;
}

static double share(const tui_data *d, const struct tui_sym *s, size_t e)
{
	return d->ev[e].period ? (double)s->cnt[d->nev + e] / (double)d->ev[e].period : 0;
}

/* The change of a place's share from the baseline to the new recording, with whether it
 * is significant (mp_ratio_share_change: binomial shares, 95%). */
static double change(const tui_data *d, const struct tui_sym *s, size_t p, int *sig)
{
	size_t b = 2 * p, n = 2 * p + 1;
	struct mp_ratio_change ch;
	*sig = 0;
	if (!mp_ratio_share_change(share(d, s, b), d->ev[b].samples, share(d, s, n),
				   d->ev[n].samples, &ch))
		*sig = ch.significant;
	return share(d, s, n) - share(d, s, b);
}

struct diff_view {
	struct tui_view v;
	size_t *rows; /* the symbols, the largest change first */
	size_t nrows;
};

static struct diff_view *diff_view(const struct tui_view *v)
{
	return (struct diff_view *)v;
}

struct dsort {
	const tui_data *d;
	size_t p;
};

static int cmp_delta(const void *a, const void *b, void *arg)
{
	const struct dsort *c = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int sx, sy;
	double dx = fabs(change(c->d, &c->d->syms[x], c->p, &sx));
	double dy = fabs(change(c->d, &c->d->syms[y], c->p, &sy));
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void diff_rebuild(tui_model *m, struct diff_view *v)
{
	v->nrows = 0;
	for (size_t i = 0; i < m->d->nsyms; i++)
		v->rows[v->nrows++] = i;
	struct dsort c = { m->d, pair_of(m) };
	qsort_r(v->rows, v->nrows, sizeof(size_t), cmp_delta, &c);
}

static void diff_free(struct tui_view *v)
{
	free(diff_view(v)->rows);
	free(v);
}

int tui_push_diff(tui_model *m)
{
	struct diff_view *v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->v.ops = &tui_diff_ops;
	v->rows = calloc(m->d->nsyms + 1, sizeof(*v->rows));
	if (!v->rows) {
		diff_free(&v->v);
		return -ENOMEM;
	}
	diff_rebuild(m, v);
	return tui_push_view(m, &v->v);
}

static size_t diff_rows(const struct tui_view *v)
{
	return diff_view(v)->nrows;
}

static void diff_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const tui_data *d = m->d;
	size_t p = pair_of(m);
	(void)v;
	const char *name = d->ev[2 * p].name;
	if (!strncmp(name, "base ", 5)) /* as memprof diff names the pairs */
		name += 5;
	tui_putf(l, " Diff: '%s' baseline %" PRIu64 " samples, new %" PRIu64
		 " samples | by the change", name, d->ev[2 * p].samples,
		 d->ev[2 * p + 1].samples);
}

static void diff_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	(void)m;
	(void)v;
	tui_putf(l, "  %9s %9s %9s  %s", "Baseline", "New", "Change", "Symbol  [object]");
}

static void diff_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	const tui_data *d = m->d;
	const struct tui_sym *s = &d->syms[diff_view(v)->rows[i]];
	size_t p = pair_of(m);
	int sig;
	double dv = change(d, s, p, &sig);
	tui_putf(l, " %8.2f%% %8.2f%% ", 100 * share(d, s, 2 * p), 100 * share(d, s, 2 * p + 1));
	int col = l->pos;
	tui_putf(l, "%+8.2f%%", 100 * dv);
	/* significant changes hot, the others faint */
	tui_span(l, col, fabs(dv) < 0.00005 ? 0 : sig ? TUI_HEAT_MAX : 1);
	tui_putf(l, "%s %s", sig ? "*" : " ", s->name);
	if (s->dso && s->dso[0])
		tui_putf(l, "  [%s]", s->dso);
}

static void diff_metric(tui_model *m, struct tui_view *v)
{
	diff_rebuild(m, diff_view(v));
}

static const char *diff_symbol(const tui_model *m, const struct tui_view *v)
{
	const struct diff_view *dv = diff_view(v);
	return dv->nrows ? m->d->syms[dv->rows[v->cur]].name : NULL;
}

static const int diff_status[] = { 'q', 'x', 'h', 'i', 0 };

const struct tui_view_ops tui_diff_ops = {
	.kind = TUI_VIEW_DIFF,
	.name = "Diff",
	.bit = TUI_V_DIFF,
	.flags = TUI_VF_CURSOR | TUI_VF_MOVE_CLEAR,
	.status = diff_status,
	.free = diff_free,
	.rows = diff_rows,
	.title = diff_title,
	.header = diff_header,
	.row = diff_row,
	.metric = diff_metric,
	.symbol = diff_symbol,
};
