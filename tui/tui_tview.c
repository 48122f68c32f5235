/* tui_tview.c - the table view: the rows of a table of text that the caller made (memprof
 * c2c report's Shared Data Cache Line Table), coloured by each row's share; ENTER opens a
 * row's own table (the line's Pareto by offset) with its notes under it (the verdict), q
 * or LEFT comes back; { and } scroll the wide rows sideways, the header with them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tui_tview.h"

#define HSTEP 16 /* columns a { or } scrolls */

struct table_view {
	struct tui_view v;
	const tui_ttable *t; /* borrowed from the data */
	size_t hscroll;      /* the rows shown from this column */
};

static struct table_view *table_view(const struct tui_view *v)
{
	return (struct table_view *)v;
}

static int push_table(tui_model *m, const tui_ttable *t, const struct tui_view_ops *ops)
{
	struct table_view *tv = calloc(1, sizeof(*tv));
	if (!tv)
		return -ENOMEM;
	tv->v.ops = ops;
	tv->t = t;
	return tui_push_view(m, &tv->v);
}

int tui_push_table(tui_model *m)
{
	return push_table(m, m->d->table, &tui_table_ops);
}

static void table_free(struct tui_view *v)
{
	free(v);
}

/* the rows, then a blank row and the notes */
static size_t table_rows(const struct tui_view *v)
{
	const tui_ttable *t = table_view(v)->t;
	return t->nrows + (t->nnotes ? 1 + t->nnotes : 0);
}

static void table_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	char s[512];
	snprintf(s, sizeof(s), " %s", table_view(v)->t->title);
	tui_put_sim(m, l);
	tui_put_title(l, s);
}

static void table_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	(void)m;
	const struct table_view *tv = table_view(v);
	tui_put_from(l, tv->t->header, tv->hscroll);
}

static void table_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	(void)m;
	const struct table_view *tv = table_view(v);
	const tui_ttable *t = tv->t;
	if (i < t->nrows) {
		int col = l->pos;
		tui_put_from(l, t->rows[i].text, tv->hscroll);
		tui_span(l, col, tui_heat_of(t->rows[i].pct));
	} else if (i > t->nrows) {
		tui_put_from(l, t->notes[i - t->nrows - 1], tv->hscroll);
	}
}

static const char *table_symbol(const tui_model *m, const struct tui_view *v)
{
	(void)m;
	const struct table_view *tv = table_view(v);
	return v->cur < tv->t->nrows ? tv->t->rows[v->cur].text : NULL;
}

unsigned tui_table_open(tui_model *m, struct tui_view *v, int key)
{
	(void)key;
	const tui_ttable *t = table_view(v)->t;
	if (v->cur >= t->nrows || !t->rows[v->cur].sub) {
		tui_set_msg(m, "nothing under this row");
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (push_table(m, t->rows[v->cur].sub, &tui_subtable_ops)) {
		tui_set_msg(m, "out of memory");
		return TUI_HANDLED | TUI_REDRAW;
	}
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_table_hscroll(tui_model *m, struct tui_view *v, int key)
{
	struct table_view *tv = table_view(v);
	const tui_ttable *t = tv->t;
	size_t longest = strlen(t->header);
	for (size_t i = 0; i < t->nrows; i++)
		if (strlen(t->rows[i].text) > longest)
			longest = strlen(t->rows[i].text);
	for (size_t i = 0; i < t->nnotes; i++)
		if (strlen(t->notes[i]) > longest)
			longest = strlen(t->notes[i]);
	if (key == '{')
		tv->hscroll = tv->hscroll > HSTEP ? tv->hscroll - HSTEP : 0;
	else if (tv->hscroll + HSTEP < longest)
		tv->hscroll += HSTEP;
	tui_set_msg(m, "columns from %zu of %zu", tv->hscroll + 1, longest);
	return TUI_HANDLED | TUI_REDRAW;
}

static const int table_status[] = { TUI_KEY_ENTER, '{', 'h', 'q', 0 };
static const int subtable_status[] = { '{', 'h', 'q', 0 };

/* A table and a row's own table differ only in their kind and keys. */
#define TABLE_OPS(k, b, keys)                                                                \
	{ .kind = (k), .name = "Table", .bit = (b), .flags = TUI_VF_CURSOR, .status = (keys),  \
	  .free = table_free, .rows = table_rows, .title = table_title,                        \
	  .header = table_header, .row = table_row, .symbol = table_symbol }

const struct tui_view_ops tui_table_ops = TABLE_OPS(TUI_VIEW_TABLE, TUI_V_TABLE, table_status);
const struct tui_view_ops tui_subtable_ops =
	TABLE_OPS(TUI_VIEW_SUBTABLE, TUI_V_SUBTABLE, subtable_status);
