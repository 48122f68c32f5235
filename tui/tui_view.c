/* tui_view.c - the model's core: the stack of views, cursor and scroll, the status message,
 * the prompt and the colouring metric. Views come in through their tui_view_ops; no view
 * is named here (tui_view.h says who is above). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_view.h"

/* ---- the stack ---- */

struct tui_view *tui_top_view(const tui_model *m)
{
	return m->stack[m->depth - 1];
}

void tui_view_free(struct tui_view *v)
{
	if (v)
		v->ops->free(v);
}

int tui_push_view(tui_model *m, struct tui_view *v)
{
	if (MP_GROW(m->stack, m->cap, m->depth + 1)) {
		tui_view_free(v);
		return -ENOMEM;
	}
	m->stack[m->depth++] = v;
	return 0;
}

void tui_replace_top(tui_model *m, struct tui_view *v)
{
	tui_view_free(m->stack[m->depth - 1]);
	m->stack[m->depth - 1] = v;
}

void tui_pop_view(tui_model *m)
{
	if (m->depth <= 1)
		return;
	tui_view_free(tui_top_view(m));
	m->depth--;
}

/* ---- cursor and scroll ---- */

int tui_body_rows(const tui_model *m)
{
	return m->rows - 3;
}

size_t tui_view_nrows(const struct tui_view *v)
{
	return v->ops->rows(v);
}

void tui_clamp_scroll(const tui_model *m, struct tui_view *v)
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

void tui_center_cursor(const tui_model *m, struct tui_view *v)
{
	size_t body = (size_t)tui_body_rows(m), n = tui_view_nrows(v);
	v->top = v->cur > body / 2 ? v->cur - body / 2 : 0;
	if (n > body && v->top > n - body)
		v->top = n - body;
	if (n <= body)
		v->top = 0;
}

unsigned tui_move_cursor(tui_model *m, struct tui_view *v, int key)
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

/* ---- symbol lists ---- */

struct tui_list *tui_view_list(const struct tui_view *v)
{
	/* the hook hands out the view's own list: the view is the caller's to change */
	return v->ops->list ? v->ops->list((struct tui_view *)v) : NULL;
}

struct tui_view *tui_parent_list(const tui_model *m)
{
	for (size_t i = m->depth; i-- > 0;)
		if (tui_view_list(m->stack[i]))
			return m->stack[i];
	return NULL;
}

size_t tui_list_entry(const struct tui_view *l)
{
	if (l->ops->entry)
		return l->ops->entry(l);
	return l->cur < tui_view_list(l)->nrows ? l->cur : SIZE_MAX;
}

void tui_list_set_entry(tui_model *m, struct tui_view *l, size_t pos)
{
	l->cur = pos;
	if (l->ops->relist)
		l->ops->relist(m, l);
}

/* ---- status line, prompt, metric ---- */

void tui_set_msg(tui_model *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
	va_end(ap);
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

unsigned tui_prompt_key(tui_model *m, int key)
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

unsigned tui_set_metric(tui_model *m, int dir)
{
	int n = (int)(NEV(m) + NRAT(m));
	struct tui_view *v = tui_top_view(m);
	if (v->ops->next_metric)
		m->metric = v->ops->next_metric(m, v, dir);
	else
		m->metric = (m->metric + dir + n) % n;
	if (v->ops->metric)
		v->ops->metric(m, v);
	tui_set_msg(m, "sorting and colouring by %s", tui_col_name(m, m->metric));
	return TUI_HANDLED | TUI_RESCAN;
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

/* ---- ratios ---- */

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
