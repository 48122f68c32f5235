/* tui_model.c - the browser's model as mp_tui.h shows it: the first view of the data, keys
 * dispatched through the key table (tui_keys.c) to the top view's binding, the screen with
 * the status line the table makes, and the state the loop and tests read. No curses and no
 * view's insides here: the stack, cursor and prompt are tui_view.c's, each view's state and
 * rows its own file's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_chains.h"
#include "tui_diff.h"
#include "tui_keys.h"
#include "tui_list.h"
#include "tui_render.h"
#include "tui_tview.h"

static int alloc_screen(tui_model *m)
{
	free(m->textbuf);
	free(m->scr.row);
	free(m->rowbuf);
	m->textbuf = malloc((size_t)m->rows * ((size_t)m->cols + 1));
	m->scr.row = calloc((size_t)m->rows, sizeof(*m->scr.row));
	m->rowbuf = malloc((size_t)m->cols + 1);
	if (!m->textbuf || !m->scr.row || !m->rowbuf)
		return -ENOMEM;
	m->scr.cols = m->cols;
	m->scr.rows = m->rows;
	for (int i = 0; i < m->rows; i++)
		m->scr.row[i].text = m->textbuf + (size_t)i * ((size_t)m->cols + 1);
	return 0;
}

/* The first view: the data's table (c2c report), the diff view of a diff, the children
 * list of data with call chains, else the symbol list. */
static int push_first(tui_model *m)
{
	if (m->d->table)
		return tui_push_table(m);
	if (m->d->diff)
		return tui_push_diff(m);
	return m->d->children ? tui_push_children(m) : tui_push_symbols(m);
}

tui_model *tui_model_new(tui_data *d, int cols, int rows, struct mp_err *err)
{
	tui_model *m = calloc(1, sizeof(*m));
	if (!m || !d) {
		free(m);
		tui_data_free(d);
		mp_err_set(err, -ENOMEM, "tui: out of memory");
		return NULL;
	}
	m->d = d;
	m->cols = cols < 20 ? 20 : cols;
	m->rows = rows < 5 ? 5 : rows;
	m->last_dir = 1;
	if (!d->nev) {
		mp_err_set(err, -EINVAL, "tui: the data has no events");
		tui_model_free(m);
		return NULL;
	}
	memset(m->evsel, 1, sizeof(m->evsel));
	m->nsel = d->nev;
	if (alloc_screen(m) || push_first(m)) {
		mp_err_set(err, -ENOMEM, "tui: out of memory");
		tui_model_free(m);
		return NULL;
	}
	return m;
}

void tui_model_free(tui_model *m)
{
	if (!m)
		return;
	while (m->depth)
		tui_view_free(m->stack[--m->depth]);
	free(m->stack);
	free(m->srv);
	free(m->textbuf);
	free(m->scr.row);
	free(m->rowbuf);
	tui_data_free(m->d);
	free(m);
}

void tui_model_resize(tui_model *m, int cols, int rows)
{
	m->cols = cols < 20 ? 20 : cols;
	m->rows = rows < 5 ? 5 : rows;
	if (alloc_screen(m))
		m->cols = m->rows = 0;
	for (size_t i = 0; i < m->depth; i++)
		tui_clamp_scroll(m, m->stack[i]);
}

unsigned tui_model_key(tui_model *m, int key)
{
	struct tui_view *v = tui_top_view(m);

	if (m->prompt)
		return tui_prompt_key(m, key);
	const struct tui_binding *b = tui_find_binding(v->ops->bit, key);
	if (b) {
		unsigned r = b->action(m, v, key);
		if (b->clamp)
			tui_clamp_scroll(m, tui_top_view(m));
		return r;
	}
	if (v->ops->flags & TUI_VF_MODAL)
		return tui_move_cursor(m, v, key) | TUI_HANDLED;
	tui_clamp_scroll(m, v);
	return 0;
}

const struct tui_screen *tui_model_render(tui_model *m)
{
	char status[256];
	tui_status_line(tui_top_view(m)->ops, status, sizeof(status));
	return tui_render_screen(m, status);
}

/* ---- state ---- */

enum tui_view_kind tui_model_view(const tui_model *m)
{
	return tui_top_view(m)->ops->kind;
}

size_t tui_model_depth(const tui_model *m)
{
	return m->depth;
}

size_t tui_model_cursor(const tui_model *m)
{
	return tui_top_view(m)->cur;
}

size_t tui_model_nrows(const tui_model *m)
{
	return tui_view_nrows(tui_top_view(m));
}

size_t tui_model_top(const tui_model *m)
{
	return tui_top_view(m)->top;
}

const char *tui_model_symbol(const tui_model *m)
{
	const struct tui_view *v = tui_top_view(m);
	return v->ops->symbol ? v->ops->symbol(m, v) : NULL;
}

/* The top view's cursor position in source and code: 0 and 0 when it has none. */
static void position(const tui_model *m, unsigned *line, uint64_t *addr)
{
	const struct tui_view *v = tui_top_view(m);
	*line = 0;
	*addr = 0;
	if (v->ops->position)
		v->ops->position(v, line, addr);
}

unsigned tui_model_cur_line(const tui_model *m)
{
	unsigned line;
	uint64_t addr;
	position(m, &line, &addr);
	return line;
}

uint64_t tui_model_cur_addr(const tui_model *m)
{
	unsigned line;
	uint64_t addr;
	position(m, &line, &addr);
	return addr;
}

size_t tui_model_color_event(const tui_model *m)
{
	return (size_t)m->metric;
}

int tui_model_sort_col(const tui_model *m)
{
	const struct tui_view *l = tui_parent_list(m);
	return l ? tui_view_list(l)->sort_col : 0;
}

enum tui_show tui_model_show(const tui_model *m)
{
	return m->show;
}

const char *tui_model_message(const tui_model *m)
{
	return m->msg;
}

void tui_model_set_full_names(tui_model *m, int full)
{
	m->full_names = full;
}

void tui_model_set_message(tui_model *m, const char *msg)
{
	tui_set_msg(m, "%s", msg ? msg : "");
}
