/* tui_render.c - rows as text: each row of the screen rendered into a text buffer of exactly
 * cols characters, with spans of heat for colour. The views render their own rows with the
 * pieces here (tui_render.h); this file puts them in the screen. Pure: tui_draw.c paints
 * the result with curses, tests read the strings. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "tui_render.h"

/* ---- text ---- */

void tui_put(struct tui_line *l, const char *s)
{
	for (; *s && l->pos < l->cols; s++) {
		if (*s == '\t') {
			do
				l->row->text[l->pos++] = ' ';
			while (l->pos < l->cols && (l->pos - l->tab0) % 4);
			continue;
		}
		l->row->text[l->pos++] = (*s >= 32 && *s < 127) ? *s : '?';
	}
}

void tui_put_from(struct tui_line *l, const char *s, size_t skip)
{
	char buf[1024];
	size_t n = 0, col = 0;
	for (; *s && n + 1 < sizeof(buf); s++) {
		if (*s == '\t') {
			do {
				if (col >= skip && n + 1 < sizeof(buf))
					buf[n++] = ' ';
				col++;
			} while (col % 4);
			continue;
		}
		if (col++ >= skip)
			buf[n++] = *s;
	}
	buf[n] = 0;
	tui_put(l, buf);
}

void tui_putf(struct tui_line *l, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tui_put(l, buf);
}

void tui_span(struct tui_line *l, int col, int heat)
{
	struct tui_row *r = l->row;
	if (r->nspans < TUI_ROW_SPANS && heat > 0 && l->pos > col)
		r->span[r->nspans++] = (struct tui_span){ col, l->pos - col, heat };
}

void tui_put_sim(const tui_model *m, struct tui_line *l)
{
	if (m->d->sim)
		tui_putf(l, " SIMULATED (%s) |", m->d->sim);
}

void tui_put_title(struct tui_line *l, char *t)
{
	int room = l->cols - l->pos;
	while ((int)strlen(t) > room) {
		char *cut = strrchr(t, '|');
		if (!cut || cut == t)
			cut = strrchr(t, ' ');
		if (!cut || cut == t) {
			t[room > 0 ? room : 0] = 0;
			break;
		}
		*cut = 0;
		size_t n = strlen(t);
		while (n && t[n - 1] == ' ')
			t[--n] = 0;
	}
	tui_put(l, t);
}

const char *tui_short_name(const tui_model *m, const char *name, int room, char *buf,
			   size_t n)
{
	if (m->full_names || (int)strlen(name) <= room || !strchr(name, '<'))
		return name;
	mp_sym_short_name(name, buf, n);
	return buf;
}

/* ---- counts and ratios ---- */

void tui_fmt_ratio(char *out, size_t n, const struct tui_ratio_val *v)
{
	if (!v || !(v->flags & TUI_RV_VALID)) {
		snprintf(out, n, "-");
		return;
	}
	char mark = (v->flags & TUI_RV_FLAGGED) ? '!' : (v->flags & TUI_RV_FEW) ? '~' : ' ';
	double half = (v->hi - v->lo) / 2;
	/* the interval only when it fits a 13-column cell */
	if (isfinite(half) && half > 0 &&
	    snprintf(out, n, "%.3g+-%.2g%c", v->value, half, mark) <= 13)
		return;
	if (isfinite(half) && half > 0 &&
	    snprintf(out, n, "%.2g+-%.1g%c", v->value, half, mark) <= 13)
		return;
	snprintf(out, n, "%.4g%c", v->value, mark);
}

int tui_ratio_heat(const struct tui_ratio_val *v)
{
	if (!v || !(v->flags & TUI_RV_VALID))
		return 0;
	if (v->flags & TUI_RV_FLAGGED)
		return 3;
	return (v->flags & TUI_RV_FEW) ? 1 : 2;
}

int tui_heat_of(double pct)
{
	return pct >= 5.0 ? 3 : pct >= 0.5 ? 2 : pct > 0 ? 1 : 0;
}

static int digits(uint64_t v)
{
	int n = 1;
	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

int tui_cell_width(const tui_model *m, size_t e)
{
	const struct tui_event *ev = &m->d->ev[e];
	int pc = m->show == TUI_SHOW_PERCENT || m->show == TUI_SHOW_PERCENT_ALL;
	int w = pc ? 8
		: digits(m->show == TUI_SHOW_SAMPLES ? ev->samples : ev->period) + 1;
	int nw = (int)strlen(ev->name) + 1;
	if (nw > 14)
		nw = 14;
	if (w < nw)
		w = nw;
	return w < 8 ? 8 : w;
}

int tui_put_cell(const tui_model *m, struct tui_line *l, size_t e, uint64_t s, uint64_t p,
		 uint64_t tot_s, uint64_t tot_p)
{
	return tui_put_cell_of(m, l, e, s, p, tot_s, tot_p, m->d->ev[e].samples,
			       m->d->ev[e].period);
}

int tui_put_cell_of(const tui_model *m, struct tui_line *l, size_t e, uint64_t s, uint64_t p,
		    uint64_t tot_s, uint64_t tot_p, uint64_t all_s, uint64_t all_p)
{
	int w = tui_cell_width(m, e), col = l->pos;
	if (m->show == TUI_SHOW_PERCENT_ALL) { /* the share of the whole recording */
		tot_s = all_s;
		tot_p = all_p;
	}
	double pct = tot_p ? 100.0 * (double)p / (double)tot_p
		     : tot_s ? 100.0 * (double)s / (double)tot_s : 0;
	if (m->show == TUI_SHOW_PERCENT || m->show == TUI_SHOW_PERCENT_ALL) {
		if (s || p)
			tui_putf(l, "%*.2f%%", w - 1, pct);
		else
			tui_putf(l, "%*s", w, "");
	} else {
		uint64_t v = m->show == TUI_SHOW_SAMPLES ? s : p;
		if (v)
			tui_putf(l, "%*" PRIu64, w, v);
		else
			tui_putf(l, "%*s", w, "");
	}
	int h = tui_heat_of(pct);
	tui_span(l, col, h);
	return h;
}

const char *tui_show_name(enum tui_show show)
{
	return show == TUI_SHOW_PERCENT	      ? "percent"
	       : show == TUI_SHOW_PERCENT_ALL ? "percent of recording"
	       : show == TUI_SHOW_SAMPLES     ? "samples"
					      : "period";
}

void tui_put_sym_ratio(tui_model *m, struct tui_line *l, size_t sym, size_t r)
{
	char buf[64];
	const struct tui_ratio_val *rv = tui_sym_rv(m, sym, r);
	int col = l->pos;
	tui_fmt_ratio(buf, sizeof(buf), rv);
	tui_putf(l, " %13s", buf);
	tui_span(l, col, tui_ratio_heat(rv));
}

/* perf's pid sort key ("   1234:prog"), or its comm key when only the command is known. */
#define THREAD_COMM_W 16

void tui_put_thread_head(const tui_model *m, struct tui_line *l, int thread)
{
	if (thread && m->d->threads == 2)
		tui_putf(l, "%7s:%-*s  ", "pid", THREAD_COMM_W, "command");
	else if (thread && m->d->threads)
		tui_putf(l, "%-*s  ", 8 + THREAD_COMM_W, "command");
}

void tui_put_sym_name(const tui_model *m, struct tui_line *l, const struct tui_sym *s, int hot,
		      int thread)
{
	tui_put(l, "  ");
	if (thread && m->d->threads) {
		if (s->pid >= 0)
			tui_putf(l, "%7ld:%-*.*s  ", s->pid, THREAD_COMM_W, THREAD_COMM_W,
				 s->comm ? s->comm : "");
		else
			tui_putf(l, "%-*.*s  ", 8 + THREAD_COMM_W, 8 + THREAD_COMM_W,
				 s->comm ? s->comm : "");
	}
	int col = l->pos;
	const char *base = strrchr(s->dso, '/');
	base = base ? base + 1 : s->dso;
	int room = l->cols - l->pos - (base[0] ? 2 : 0);
	int dsow = (int)strlen(base);
	if (dsow > room / 4)
		dsow = room / 4;
	int namew = room - dsow;
	if (namew < 1)
		namew = 1;
	char sh[1024];
	tui_putf(l, "%-*.*s", namew, namew, tui_short_name(m, s->name, namew, sh, sizeof(sh)));
	tui_span(l, col, hot);
	if (base[0] && dsow > 0)
		tui_putf(l, "  %.*s", dsow, base);
}

void tui_event_heads(tui_model *m, struct tui_line *l)
{
	const tui_data *d = m->d;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int w = tui_cell_width(m, e);
		tui_putf(l, "%*.*s", w, w - 1, d->ev[e].name);
	}
	if ((size_t)m->metric >= d->nev)
		tui_putf(l, " %13.13s", tui_col_name(m, m->metric));
}

/* ---- event columns ---- */

int tui_model_set_events(tui_model *m, const char *list, struct mp_err *err)
{
	unsigned char sel[TUI_MAX_EVENTS] = { 0 };
	size_t n = 0;
	if (!list || !*list) {
		memset(m->evsel, 1, sizeof(m->evsel));
		m->nsel = NEV(m);
		m->evscroll = 0;
		return 0;
	}
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ","), e;
		for (e = 0; e < NEV(m); e++)
			if (strlen(m->d->ev[e].name) == k && !strncmp(m->d->ev[e].name, p, k))
				break;
		if (e == NEV(m))
			return mp_err_set(err, -EINVAL, "no event '%.*s' in the recording", (int)k, p);
		n += !sel[e];
		sel[e] = 1;
		p += k + (p[k] == ',');
	}
	if (!n)
		return mp_err_set(err, -EINVAL, "no event named in '%s'", list);
	memcpy(m->evsel, sel, sizeof(sel));
	m->nsel = n;
	m->evscroll = 0;
	return 0;
}

/* A ratio that sorts and colours: its events first (numerator's, then denominator's), then
 * the chosen ones from the scroll position while they fit. */
static void visible_ratio_events(tui_model *m, const struct tui_ratio *r, int budget, int pairs)
{
	const tui_data *d = m->d;
	int used = 0;
	m->nvis = 0;
	for (size_t i = 0; i < r->nevs; i++) {
		used += tui_cell_width(m, r->evs[i]) * pairs;
		m->vis[m->nvis++] = r->evs[i];
	}
	size_t k = 0;
	for (size_t e = 0; e < d->nev; e++) {
		size_t i;
		for (i = 0; i < r->nevs && r->evs[i] != e; i++)
			;
		if (i < r->nevs || !m->evsel[e] || k++ < m->evscroll)
			continue;
		int w = tui_cell_width(m, e) * pairs;
		if (used + w > budget)
			continue;
		used += w;
		m->vis[m->nvis++] = e;
	}
}

void tui_visible_events(tui_model *m)
{
	const tui_data *d = m->d;
	const struct tui_view_ops *ops = tui_top_view(m)->ops;
	size_t hot = (size_t)tui_hot_event(m);
	/* the views keep room for their names (the symbol lists 40 columns, annotate two
	 * thirds of the width for the source text) */
	int budget = ops->count_room ? ops->count_room(m) : m->cols - 40;
	int used = 0;
	int pairs = ops->cells ? ops->cells : 1; /* Children and Self: two cells an event */
	budget -= (size_t)m->metric >= d->nev ? 14 : 0;
	if ((size_t)m->metric >= d->nev && d->ratios[(size_t)m->metric - d->nev].nevs) {
		visible_ratio_events(m, &d->ratios[(size_t)m->metric - d->nev], budget, pairs);
		return;
	}
	size_t k = 0;
	m->nvis = 0;
	for (size_t e = 0; e < d->nev; e++) {
		if (!m->evsel[e] && e != hot)
			continue;
		if (k++ < m->evscroll && e != hot)
			continue;
		int w = tui_cell_width(m, e) * pairs;
		if (m->nvis && used + w > budget)
			continue;
		used += w;
		m->vis[m->nvis++] = e;
	}
	/* the colouring event first when scrolling or the width left it out */
	size_t i;
	for (i = 0; i < m->nvis && m->vis[i] != hot; i++)
		;
	if (i == m->nvis) {
		if (m->nvis && used + tui_cell_width(m, hot) * pairs > budget)
			m->nvis--;
		memmove(&m->vis[1], &m->vis[0], m->nvis * sizeof(m->vis[0]));
		m->vis[0] = hot;
		m->nvis++;
	}
}

static unsigned events_done(tui_model *m, struct tui_view *v, const char *text, int kind)
{
	(void)v, (void)kind;
	struct mp_err err = { 0 };
	if (tui_model_set_events(m, text, &err))
		tui_set_msg(m, "%s", err.msg);
	else
		tui_set_msg(m, "events: %s", text[0] ? text : "all");
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_events_prompt(tui_model *m, struct tui_view *v, int key)
{
	(void)v;
	tui_start_prompt(m, key, "", "Events (comma-separated, empty: all)", events_done);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_events_scroll(tui_model *m, struct tui_view *v, int key)
{
	(void)v;
	tui_visible_events(m);
	if (key == '[' && m->evscroll > 0)
		m->evscroll--;
	else if (key == ']' && m->nvis < m->nsel && m->evscroll + 1 < m->nsel)
		m->evscroll++;
	tui_visible_events(m);
	tui_set_msg(m, "event columns %zu-%zu of %zu ([ ] scroll, e choose)", m->evscroll + 1,
		    m->evscroll + m->nvis > m->nsel ? m->nsel : m->evscroll + m->nvis, m->nsel);
	return TUI_HANDLED | TUI_REDRAW;
}

/* ---- the screen ---- */

static void line_start(struct tui_line *l, struct tui_row *row, int cols, enum tui_row_kind kind)
{
	l->row = row;
	l->cols = cols;
	l->pos = 0;
	l->tab0 = 0;
	row->kind = kind;
	row->selected = 0;
	row->nspans = 0;
}

static void line_end(struct tui_line *l)
{
	while (l->pos < l->cols)
		l->row->text[l->pos++] = ' ';
	l->row->text[l->cols] = 0;
}

static int has_cursor(const struct tui_view *v)
{
	return (v->ops->flags & TUI_VF_CURSOR) != 0;
}

static void render_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	tui_put(l, i == v->cur && has_cursor(v) ? ">" : " ");
	v->ops->row(m, l, v, i);
}

const struct tui_screen *tui_render_screen(tui_model *m, const char *status)
{
	struct tui_view *v = tui_top_view(m);
	struct tui_line l;
	int body = tui_body_rows(m);

	if (!m->textbuf)
		return NULL;
	tui_visible_events(m);
	tui_clamp_scroll(m, v);
	line_start(&l, &m->scr.row[0], m->cols, TUI_ROW_TITLE);
	v->ops->title(m, &l, v);
	line_end(&l);
	line_start(&l, &m->scr.row[1], m->cols, TUI_ROW_HEADER);
	tui_put(&l, " ");
	if (v->ops->header)
		v->ops->header(m, &l, v);
	line_end(&l);
	for (int r = 0; r < body; r++) {
		size_t i = v->top + (size_t)r;
		line_start(&l, &m->scr.row[2 + r], m->cols, TUI_ROW_TEXT);
		if (i < tui_view_nrows(v)) {
			render_row(m, &l, v, i);
			l.row->selected = i == v->cur && has_cursor(v);
		}
		line_end(&l);
	}
	line_start(&l, &m->scr.row[m->rows - 1], m->cols, TUI_ROW_STATUS);
	if (m->prompt)
		tui_putf(&l, "%s: %s_", m->prompt_label, m->pbuf);
	else
		tui_put(&l, m->msg[0] ? m->msg : status);
	line_end(&l);
	return &m->scr;
}

int tui_render_print(tui_model *m, FILE *out)
{
	struct tui_view *v = tui_top_view(m);
	struct tui_row row;
	struct tui_line l;
	if (!m->rowbuf)
		return -ENOMEM;
	tui_visible_events(m);
	row.text = m->rowbuf;
	size_t n = tui_view_nrows(v);
	for (size_t i = 0; i < n + 2; i++) {
		line_start(&l, &row, m->cols, i ? TUI_ROW_HEADER : TUI_ROW_TITLE);
		if (i == 0)
			v->ops->title(m, &l, v);
		else if (i == 1 && v->ops->header) {
			tui_put(&l, " ");
			v->ops->header(m, &l, v);
		} else if (i > 1) {
			tui_put(&l, " "); /* no cursor in a file */
			v->ops->row(m, &l, v, i - 2);
		}
		line_end(&l);
		size_t len = strlen(row.text);
		while (len && row.text[len - 1] == ' ')
			len--;
		if (fprintf(out, "%.*s\n", (int)len, row.text) < 0)
			return -EIO;
	}
	return 0;
}

const char *tui_model_row_text(tui_model *m, size_t i)
{
	struct tui_view *v = tui_top_view(m);
	struct tui_row row;
	struct tui_line l;
	if (i >= tui_view_nrows(v) || !m->rowbuf)
		return NULL;
	tui_visible_events(m);
	row.text = m->rowbuf;
	line_start(&l, &row, m->cols, TUI_ROW_TEXT);
	render_row(m, &l, v, i);
	line_end(&l);
	return m->rowbuf;
}
