/* tui_model.c - the browser's state: a stack of views (hot symbols, annotate, ratios,
 * summary, help), cursor and scroll, the colouring metric and the prompt. No curses and no
 * rendering here: keys come in as enum tui_key and go to the view's binding in
 * tui_bindings[] (tui_keys.c); each view's behaviour is its tui_view_ops; rows go out as
 * text through tui_render.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

struct view *tui_top_view(const tui_model *m)
{
	return &m->stack[m->depth - 1];
}

int tui_body_rows(const tui_model *m)
{
	return m->rows - 3;
}

size_t tui_view_nrows(const struct view *v)
{
	return v->ops->rows(v);
}

void tui_set_msg(tui_model *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
	va_end(ap);
}

/* ---- ratios and columns ---- */
void tui_sim_exact(const tui_data *d, struct tui_ratio_val *v)
{
	if (!d->sim)
		return;
	v->flags &= ~(unsigned)TUI_RV_FEW;
	v->lo = v->hi = v->value;
}

void tui_eval_ratios(const tui_data *d, const uint64_t *samples, const uint64_t *periods,
		     struct tui_ratio_val *out)
{
	for (size_t r = 0; r < d->nratios; r++) {
		struct tui_ratio_val *v = &out[r];
		if (d->rfn(d->rctx, r, samples, periods, v))
			v->flags = 0;
		tui_sim_exact(d, v);
	}
}

void tui_compute_sym_ratios(tui_model *m)
{
	tui_data *d = m->d;
	if (m->srv_done || !NRAT(m))
		return;
	m->srv_done = 1;
	m->srv = calloc(d->nsyms * d->nratios + 1, sizeof(*m->srv));
	if (!m->srv || !d->rfn)
		return;
	for (size_t s = 0; s < d->nsyms; s++)
		tui_eval_ratios(d, d->syms[s].cnt, d->syms[s].cnt + d->nev,
				&m->srv[s * d->nratios]);
}

const struct tui_ratio_val *tui_sym_rv(tui_model *m, size_t sym, size_t r)
{
	tui_compute_sym_ratios(m);
	if (!m->srv)
		return NULL;
	return &m->srv[sym * NRAT(m) + r];
}

int tui_hot_event(const tui_model *m)
{
	return (size_t)m->metric < NEV(m) ? m->metric : 0;
}

const char *tui_col_name(const tui_model *m, int col)
{
	if (col == TUI_COL_SYMBOL)
		return "symbol";
	if (col == TUI_COL_DSO)
		return "dso";
	if ((size_t)col < NEV(m))
		return m->d->ev[col].name;
	return m->d->ratios[col - (int)NEV(m)].name;
}

/* ---- views ---- */

/* ---- the view stack ---- */

void tui_view_fini(struct view *v)
{
	free(v->rows);
	tui_annot_free(v->an);
	free(v->name);
	free(v->dso);
	free(v->items);
	free(v->open);
	free(v->first);
	free(v->next);
	free(v->lrv);
	free(v->hot);
	for (size_t i = 0; i < v->nct; i++) {
		tui_chain_free(v->ct[i].t);
		free(v->ct[i].open);
	}
	free(v->ct);
	free(v->crows);
	for (size_t i = 0; i < v->nlines; i++)
		free(v->lines[i]);
	free(v->lines);
	memset(v, 0, sizeof(*v));
}

struct view *tui_push_view(tui_model *m, const struct tui_view_ops *ops)
{
	if (m->depth == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 8;
		struct view *s = realloc(m->stack, nc * sizeof(*s));
		if (!s)
			return NULL;
		m->stack = s;
		m->cap = nc;
	}
	struct view *v = &m->stack[m->depth++];
	memset(v, 0, sizeof(*v));
	v->ops = ops;
	v->sym = -1;
	return v;
}

void tui_pop_view(tui_model *m)
{
	if (m->depth <= 1)
		return;
	tui_view_fini(tui_top_view(m));
	m->depth--;
}

struct view *tui_parent_list(const tui_model *m)
{
	for (size_t i = m->depth; i-- > 0;)
		if (m->stack[i].ops->flags & TUI_VF_LIST)
			return &m->stack[i];
	return NULL;
}

void tui_center_cursor(const tui_model *m, struct view *v)
{
	size_t body = (size_t)tui_body_rows(m), n = tui_view_nrows(v);
	v->top = v->cur > body / 2 ? v->cur - body / 2 : 0;
	if (n > body && v->top > n - body)
		v->top = n - body;
	if (n <= body)
		v->top = 0;
}

/* ---- model ---- */

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
	const struct tui_view_ops *first = d->children ? &tui_children_ops : &tui_symbols_ops;
	if (alloc_screen(m) || (d->diff ? tui_push_diff(m) : tui_push_list(m, first))) {
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
	while (m->depth) {
		tui_view_fini(tui_top_view(m));
		m->depth--;
	}
	free(m->stack);
	free(m->srv);
	free(m->rvis);
	free(m->textbuf);
	free(m->scr.row);
	free(m->rowbuf);
	tui_data_free(m->d);
	free(m);
}

void tui_clamp_scroll(const tui_model *m, struct view *v)
{
	size_t n = tui_view_nrows(v), body = (size_t)tui_body_rows(m);
	if (n == 0) {
		v->cur = v->top = 0;
		return;
	}
	if (v->cur >= n)
		v->cur = n - 1;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + body)
		v->top = v->cur - body + 1;
	if (n > body && v->top > n - body)
		v->top = n - body;
	if (n <= body)
		v->top = 0;
}

void tui_model_resize(tui_model *m, int cols, int rows)
{
	m->cols = cols < 20 ? 20 : cols;
	m->rows = rows < 5 ? 5 : rows;
	if (alloc_screen(m))
		m->cols = m->rows = 0;
	for (size_t i = 0; i < m->depth; i++)
		tui_clamp_scroll(m, &m->stack[i]);
}

unsigned tui_move_cursor(tui_model *m, struct view *v, int key)
{
	size_t n = tui_view_nrows(v), body = (size_t)tui_body_rows(m), old = v->cur, oldtop = v->top;
	int text = !(v->ops->flags & TUI_VF_CURSOR);

	if (!n)
		return TUI_HANDLED;
	switch (key) {
	case TUI_KEY_UP:
	case 'k':
		if (text)
			v->cur = v->top;
		if (v->cur)
			v->cur--;
		break;
	case TUI_KEY_DOWN:
	case 'j':
		if (text)
			v->cur = v->top + body - 1 < n ? v->top + body - 1 : n - 1;
		if (v->cur + 1 < n)
			v->cur++;
		break;
	case TUI_KEY_PGUP:
		v->cur = v->cur > body ? v->cur - body : 0;
		if (v->top > body)
			v->top -= body;
		else
			v->top = 0;
		break;
	case TUI_KEY_PGDN:
	case ' ':
		v->cur = v->cur + body < n ? v->cur + body : n - 1;
		v->top += body;
		break;
	case TUI_KEY_HOME:
		v->cur = 0;
		v->top = 0;
		break;
	case TUI_KEY_END:
		v->cur = n - 1;
		break;
	}
	tui_clamp_scroll(m, v);
	if ((v->ops->flags & TUI_VF_MOVE_CLEAR) && v->cur != old)
		m->msg[0] = 0;
	return TUI_HANDLED | (v->cur != old || v->top != oldtop ? TUI_REDRAW : 0);
}

unsigned tui_set_metric(tui_model *m, int dir)
{
	int n = (int)(NEV(m) + NRAT(m));
	struct view *v = tui_top_view(m);
	if (v->ops == &tui_ratios_ops && NRAT(m)) {
		/* the ratio list: x goes to the next ratio, never to an event; next after the
		 * ratio the list is sorted by (R opens it sorted by the first ratio while an event
		 * still colours: x then goes to the second, not to the first again) */
		int nev = (int)NEV(m), cur = m->metric;
		if (v->sort_col >= nev && v->sort_col < nev + (int)NRAT(m))
			cur = v->sort_col;
		int r = cur >= nev ? cur - nev : (dir > 0 ? -1 : 0);
		r = (r + dir + (int)NRAT(m)) % (int)NRAT(m);
		m->metric = (int)NEV(m) + r;
	} else {
		m->metric = (m->metric + dir + n) % n;
	}
	if (v->ops->metric)
		v->ops->metric(m, v);
	tui_set_msg(m, "sorting and colouring by %s", tui_col_name(m, m->metric));
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned prompt_key(tui_model *m, int key)
{
	if (key == TUI_KEY_ESC || key == TUI_KEY_CTRL_C) {
		m->prompt = 0;
		m->msg[0] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (key == TUI_KEY_BACKSPACE) {
		if (m->plen)
			m->pbuf[--m->plen] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (key == TUI_KEY_ENTER) {
		int kind = m->prompt;
		m->prompt = 0;
		m->msg[0] = 0;
		return m->prompt_done(m, tui_top_view(m), m->pbuf, kind);
	}
	if (key >= 32 && key < 127 && m->plen + 1 < sizeof(m->pbuf)) {
		m->pbuf[m->plen++] = (char)key;
		m->pbuf[m->plen] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return TUI_HANDLED;
}

void tui_start_prompt(tui_model *m, int kind, const char *init, const char *label,
		      tui_prompt_fn done)
{
	m->prompt = kind;
	m->prompt_label = label;
	m->prompt_done = done;
	snprintf(m->pbuf, sizeof(m->pbuf), "%s", init ? init : "");
	m->plen = strlen(m->pbuf);
}

/* The first binding of key in the view, NULL when none. */
static const struct tui_binding *find_binding(const struct view *v, int key)
{
	for (size_t i = 0; i < tui_nbindings; i++) {
		const struct tui_binding *b = &tui_bindings[i];
		if (b->key == key && b->action && (b->views & v->ops->bit))
			return b;
	}
	return NULL;
}

unsigned tui_model_key(tui_model *m, int key)
{
	struct view *v = tui_top_view(m);

	if (m->prompt)
		return prompt_key(m, key);
	const struct tui_binding *b = find_binding(v, key);
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
	const struct view *v = tui_top_view(m);
	return v->ops->symbol ? v->ops->symbol(m, v) : NULL;
}

unsigned tui_model_cur_line(const tui_model *m)
{
	const struct view *v = tui_top_view(m);
	if (!v->an || v->cur >= v->nitems)
		return 0;
	const struct item *it = &v->items[v->cur];
	size_t line = it->kind == IT_LINE ? it->idx : v->an->insns[it->idx].line;
	return v->an->lines[line].lineno;
}

uint64_t tui_model_cur_addr(const tui_model *m)
{
	const struct view *v = tui_top_view(m);
	if (!v->an || v->cur >= v->nitems)
		return 0;
	const struct item *it = &v->items[v->cur];
	return it->kind == IT_INSN ? v->an->insns[it->idx].addr : 0;
}

size_t tui_model_color_event(const tui_model *m)
{
	return (size_t)m->metric;
}

int tui_model_sort_col(const tui_model *m)
{
	const struct view *l = tui_parent_list(m);
	return l ? l->sort_col : 0;
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
