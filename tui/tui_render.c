/* tui_render.c - the views as text: each row of the screen rendered into a text buffer of
 * exactly cols characters, with spans of heat for colour. Pure: tui_draw.c paints the
 * result with curses, tests read the strings. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "tui_internal.h"

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

static int ratio_heat(const struct tui_ratio_val *v)
{
	if (!v || !(v->flags & TUI_RV_VALID))
		return 0;
	if (v->flags & TUI_RV_FLAGGED)
		return 3;
	return (v->flags & TUI_RV_FEW) ? 1 : 2;
}


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

/* Text from its column skip on, tabs at 4-column stops from its start (the annotate view's
 * horizontal scroll). */
static void put_from(struct tui_line *l, const char *s, size_t skip)
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

static void span(struct tui_line *l, int col, int heat)
{
	struct tui_row *r = l->row;
	if (r->nspans < TUI_ROW_SPANS && heat > 0 && l->pos > col)
		r->span[r->nspans++] = (struct tui_span){ col, l->pos - col, heat };
}

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

static int heat_of(double pct)
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

static int cell_width(const tui_model *m, size_t e)
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

/* One count cell; returns its heat. */
static int put_cell(const tui_model *m, struct tui_line *l, size_t e, uint64_t s, uint64_t p,
		    uint64_t tot_s, uint64_t tot_p)
{
	int w = cell_width(m, e), col = l->pos;
	if (m->show == TUI_SHOW_PERCENT_ALL) { /* the share of the whole recording */
		tot_s = m->d->ev[e].samples;
		tot_p = m->d->ev[e].period;
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
	int h = heat_of(pct);
	span(l, col, h);
	return h;
}

const char *tui_show_name(enum tui_show show)
{
	return show == TUI_SHOW_PERCENT	      ? "percent"
	       : show == TUI_SHOW_PERCENT_ALL ? "percent of recording"
	       : show == TUI_SHOW_SAMPLES     ? "samples"
					      : "period";
}

static void render_sim(const tui_model *m, struct tui_line *l)
{
	if (m->d->sim)
		tui_putf(l, " SIMULATED (%s) |", m->d->sim);
}

/* A title too wide for the screen loses whole " | " parts from the end, then whole words,
 * never half a number. */
static void put_title(struct tui_line *l, char *t)
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

/* A symbol's name for `room` columns: a C++ name wider than that has its template arguments
 * shortened (demo::table<...>::insert, as report's text table), unless --full-names. */
static const char *show_name(const tui_model *m, const char *name, int room, char *buf,
			     size_t n)
{
	if (m->full_names || (int)strlen(name) <= room || !strchr(name, '<'))
		return name;
	mp_sym_short_name(name, buf, n);
	return buf;
}

/* The title of both lists ("Symbols" and "Ratios"). */
void tui_render_list_title(tui_model *m, struct tui_line *l, const struct view *v)
{
	const tui_data *d = m->d;
	const char *what = v->ops->name;
	size_t e = (size_t)tui_hot_event(m);
	char t[512];
	int n;
	render_sim(m, l);
	if (d->sim)
		n = snprintf(t, sizeof(t), " %s: '%s' count %" PRIu64 " | sort: %s", what,
			     d->ev[e].name, d->ev[e].period, tui_col_name(m, v->sort_col));
	else
		n = snprintf(t, sizeof(t),
			     " %s: %" PRIu64 " samples of '%s', event count %" PRIu64 " | sort: %s",
			     what, d->ev[e].samples, d->ev[e].name, d->ev[e].period,
			     tui_col_name(m, v->sort_col));
	if (v->filter[0] && n > 0 && (size_t)n < sizeof(t))
		snprintf(t + n, sizeof(t) - (size_t)n, " | filter: %s (%zu)", v->filter, v->nrows);
	put_title(l, t);
}

void tui_render_annot_title(tui_model *m, struct tui_line *l, const struct view *v)
{
	const char *f = v->an->file;
	render_sim(m, l);
	char sh[1024];
	tui_putf(l, " Annotate %s", show_name(m, v->name, m->cols / 2, sh, sizeof(sh)));
	if (v->dso && v->dso[0])
		tui_putf(l, " (%s)", v->dso);
	if (f && f[0]) {
		const char *b = strrchr(f, '/');
		tui_putf(l, "  %s", b ? b + 1 : f);
	}
	tui_putf(l, " | %s, %s", tui_col_name(m, m->metric),
		 m->show == TUI_SHOW_PERCENT ? "percent of function" : tui_show_name(m->show));
}

void tui_render_summary_title(tui_model *m, struct tui_line *l, const struct view *v)
{
	(void)v;
	render_sim(m, l);
	tui_put(l, " Summary");
}

void tui_render_help_title(tui_model *m, struct tui_line *l, const struct view *v)
{
	(void)v;
	render_sim(m, l);
	tui_put(l, " Help: memprof tui keys (q, ESC or h to close)");
}

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
		used += cell_width(m, r->evs[i]) * pairs;
		m->vis[m->nvis++] = r->evs[i];
	}
	size_t k = 0;
	for (size_t e = 0; e < d->nev; e++) {
		size_t i;
		for (i = 0; i < r->nevs && r->evs[i] != e; i++)
			;
		if (i < r->nevs || !m->evsel[e] || k++ < m->evscroll)
			continue;
		int w = cell_width(m, e) * pairs;
		if (used + w > budget)
			continue;
		used += w;
		m->vis[m->nvis++] = e;
	}
}

void tui_visible_events(tui_model *m)
{
	const tui_data *d = m->d;
	size_t hot = (size_t)tui_hot_event(m);
	/* the symbol lists keep 40 columns for the name and its object, annotate two thirds
	 * of the width for the source text */
	int budget = tui_top_view(m)->ops == &tui_annotate_ops ? m->cols / 3 : m->cols - 40;
	int used = 0;
	/* Children and Self: two cells an event */
	int pairs = (tui_top_view(m)->ops->flags & TUI_VF_CHILDREN) ? 2 : 1;
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
		int w = cell_width(m, e) * pairs;
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
		if (m->nvis && used + cell_width(m, hot) * pairs > budget)
			m->nvis--;
		memmove(&m->vis[1], &m->vis[0], m->nvis * sizeof(m->vis[0]));
		m->vis[0] = hot;
		m->nvis++;
	}
}

static unsigned events_done(tui_model *m, struct view *v, const char *text, int kind)
{
	(void)v, (void)kind;
	struct mp_err err = { 0 };
	if (tui_model_set_events(m, text, &err))
		tui_set_msg(m, "%s", err.msg);
	else
		tui_set_msg(m, "events: %s", text[0] ? text : "all");
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_events_prompt(tui_model *m, struct view *v, int key)
{
	(void)v;
	tui_start_prompt(m, key, "", "Events (comma-separated, empty: all)", events_done);
	return TUI_HANDLED | TUI_REDRAW;
}

/* The ratio list's columns: those that fit beside 40 columns of names (at least one), the
 * sorting ratio first, then the others from the scroll position. */
void tui_visible_ratios(tui_model *m, const struct view *v)
{
	size_t n = NRAT(m);
	if (!m->rvis && !(m->rvis = calloc(n + 1, sizeof(*m->rvis)))) {
		m->nrvis = 0;
		return;
	}
	size_t fit = m->cols - 40 >= 14 ? (size_t)(m->cols - 40) / 14 : 1;
	size_t sort = n, k = 0;
	if (v->sort_col >= (int)NEV(m) && (size_t)v->sort_col < NEV(m) + n)
		sort = (size_t)v->sort_col - NEV(m);
	m->nrvis = 0;
	if (sort < n)
		m->rvis[m->nrvis++] = sort;
	for (size_t r = 0; r < n && m->nrvis < fit; r++)
		if (r != sort && k++ >= m->ratscroll)
			m->rvis[m->nrvis++] = r;
}

static unsigned ratios_scroll(tui_model *m, struct view *v, int key)
{
	tui_visible_ratios(m, v);
	/* the scrolled ones: all but the sorting ratio when one sorts */
	size_t sorted = v->sort_col >= (int)NEV(m) && (size_t)v->sort_col < NEV(m) + NRAT(m);
	size_t others = NRAT(m) - sorted, shown = m->nrvis - sorted;
	if (key == '[' && m->ratscroll > 0)
		m->ratscroll--;
	else if (key == ']' && m->ratscroll + shown < others)
		m->ratscroll++;
	tui_visible_ratios(m, v);
	tui_set_msg(m, "ratio columns %zu-%zu of %zu ([ ] scroll)", m->ratscroll + 1,
		    m->ratscroll + shown > others ? others : m->ratscroll + shown, others);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_events_scroll(tui_model *m, struct view *v, int key)
{
	if (v->ops == &tui_ratios_ops)
		return ratios_scroll(m, v, key);
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

/* The count columns' heads, then the colouring ratio's when a ratio colours. */
static void event_heads(tui_model *m, struct tui_line *l)
{
	const tui_data *d = m->d;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int w = cell_width(m, e);
		tui_putf(l, "%*.*s", w, w - 1, d->ev[e].name);
	}
	if ((size_t)m->metric >= d->nev)
		tui_putf(l, " %13.13s", tui_col_name(m, m->metric));
}

void tui_render_sym_header(tui_model *m, struct tui_line *l, const struct view *v)
{
	(void)v;
	event_heads(m, l);
	tui_put(l, l->cols - l->pos >= 50 ? "              symbol" : "  symbol");
}

void tui_render_annot_header(tui_model *m, struct tui_line *l, const struct view *v)
{
	event_heads(m, l);
	tui_put(l, v->hide_src ? "     address  instruction" : "   line  source");
	if (v->hscroll)
		tui_putf(l, " (from column %zu: { })", v->hscroll + 1);
}

void tui_render_ratio_header(tui_model *m, struct tui_line *l, const struct view *v)
{
	tui_visible_ratios(m, v);
	for (size_t k = 0; k < m->nrvis; k++)
		tui_putf(l, " %13.13s", m->d->ratios[m->rvis[k]].name);
	tui_put(l, "  symbol");
}

/* Ratio r of symbol sym, in a 13-column cell coloured by its heat. */
static void put_ratio(tui_model *m, struct tui_line *l, size_t sym, size_t r)
{
	char buf[64];
	const struct tui_ratio_val *rv = tui_sym_rv(m, sym, r);
	int col = l->pos;
	tui_fmt_ratio(buf, sizeof(buf), rv);
	tui_putf(l, " %13s", buf);
	span(l, col, ratio_heat(rv));
}

/* The rest of a symbol's row: its name (coloured hot) and its object's base name, which gets
 * at most a quarter of the room left. */
static void put_sym_name(const tui_model *m, struct tui_line *l, const struct tui_sym *s, int hot)
{
	tui_put(l, "  ");
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
	tui_putf(l, "%-*.*s", namew, namew, show_name(m, s->name, namew, sh, sizeof(sh)));
	span(l, col, hot);
	if (base[0] && dsow > 0)
		tui_putf(l, "  %.*s", dsow, base);
}

void tui_render_sym_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	const struct tui_sym *s = &d->syms[v->rows[i]];
	int hot = 0;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = put_cell(m, l, e, s->cnt[e], s->cnt[d->nev + e], d->ev[e].samples,
				 d->ev[e].period);
		if (e == (size_t)tui_hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev)
		put_ratio(m, l, v->rows[i], (size_t)m->metric - d->nev);
	/* a bar of the colouring event's share, when there is room for it */
	size_t e = (size_t)tui_hot_event(m);
	if (l->cols - l->pos >= 50) {
		double share = d->ev[e].period ? (double)s->cnt[d->nev + e] / (double)d->ev[e].period
					       : 0;
		int n = (int)(share * 10 + 0.5);
		tui_put(l, " [");
		int col = l->pos;
		for (int k = 0; k < 10; k++)
			tui_put(l, k < n ? "#" : " ");
		span(l, col, hot);
		tui_put(l, "]");
	}
	put_sym_name(m, l, s, hot);
}

void tui_render_ratio_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	tui_visible_ratios(m, v);
	for (size_t k = 0; k < m->nrvis; k++)
		put_ratio(m, l, v->rows[i], m->rvis[k]);
	char sh[1024];
	tui_putf(l, "  %s", show_name(m, d->syms[v->rows[i]].name, l->cols - l->pos - 2, sh,
					sizeof(sh)));
}

void tui_render_annot_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	const tui_annot *a = v->an;
	const struct item *it = &v->items[i];
	const uint64_t *tot = it->kind == IT_LINE ? v->ltot : v->itot;
	int hot = 0;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = put_cell(m, l, e, tui_item_val(v, it, e, 0), tui_item_val(v, it, e, 1), tot[e],
				 tot[a->nev + e]);
		if (e == (size_t)tui_hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev) {
		char buf[64] = "";
		const struct tui_ratio_val *rv = NULL;
		if (it->kind == IT_LINE && v->lrv)
			rv = &v->lrv[it->idx * d->nratios + (size_t)m->metric - d->nev];
		if (rv)
			tui_fmt_ratio(buf, sizeof(buf), rv);
		int col = l->pos;
		tui_putf(l, " %13s", buf);
		hot = ratio_heat(rv);
		span(l, col, hot);
	}
	int col = l->pos;
	if (it->kind == IT_LINE) {
		const struct tui_aline *ln = &a->lines[it->idx];
		if (ln->lineno)
			tui_putf(l, " %c%5u  ", ln->hot ? '*' : ' ', ln->lineno);
		else
			tui_put(l, "      -  ");
		l->tab0 = l->pos;
		put_from(l, ln->text[0] || ln->lineno ? ln->text : "(no source line)", v->hscroll);
		if (ln->file && ln->file[0] && strcmp(ln->file, a->file))
			tui_putf(l, "   [%s]", ln->file);
		if (ln->note) {
			span(l, col, hot);
			col = l->pos;
			tui_putf(l, "   <-- %s", ln->note);
			hot = ln->note_warn ? TUI_HEAT_MAX : 0;
		}
	} else {
		const struct tui_ainsn *in = &a->insns[it->idx];
		l->row->kind = TUI_ROW_ASM;
		tui_putf(l, "%s%10" PRIx64 ":  ", v->hide_src ? " " : "         ", in->addr);
		put_from(l, in->text, v->hscroll);
		if (in->kind == TUI_INSN_CALL && in->tname && !strstr(in->text, in->tname))
			tui_putf(l, "  -> %s", in->tname);
	}
	span(l, col, hot);
}

void tui_render_text_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	(void)m;
	tui_put(l, v->lines[i]);
}

/* ---- call chains: the children list and the caller/callee view ---- */

void tui_render_children_header(tui_model *m, struct tui_line *l, const struct view *v)
{
	(void)v;
	const tui_data *d = m->d;
	tui_put(l, " ");
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int w = cell_width(m, e);
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
	tui_put(l, "  symbol");
}

/* A node's count as the view shows counts: its share of the event (of the whole
 * recording, as perf's call graphs), or its samples or period, in buf. Returns its heat. */
static int node_value(const tui_model *m, const tui_chain *t, long n, char *buf, size_t len)
{
	size_t e = (size_t)tui_hot_event(m);
	const struct tui_event *ev = &m->d->ev[e];
	uint64_t s = tui_cnode_val(t, n, e, 0), p = tui_cnode_val(t, n, e, 1);
	double pct = ev->period ? 100.0 * (double)p / (double)ev->period
		     : ev->samples ? 100.0 * (double)s / (double)ev->samples : 0;
	if (m->show == TUI_SHOW_SAMPLES || m->show == TUI_SHOW_PERIOD)
		snprintf(buf, len, "%" PRIu64, m->show == TUI_SHOW_SAMPLES ? s : p);
	else
		snprintf(buf, len, "%.2f%%", pct);
	return heat_of(pct);
}

/* A tree row: indented 3 columns a level as perf's TUI; the head of a run with its fold
 * sign and count, the other nodes of the run under its name. */
static void render_node(tui_model *m, struct tui_line *l, const struct view *v,
			const struct crow *c)
{
	const struct tui_ctree *ct = tui_crow_tree(v, c);
	const tui_chain *t = ct->t;
	char val[64];
	int heat = node_value(m, t, c->head, val, sizeof(val));
	tui_putf(l, "%*s", 3 * c->level, "");
	if (c->node == c->head) {
		char sign = !tui_cnode_more(m, t, c->head) ? ' ' : ct->open[c->head] ? '-' : '+';
		tui_putf(l, "%c ", sign);
		int col = l->pos;
		tui_put(l, val);
		span(l, col, heat);
		tui_put(l, " ");
	} else {
		tui_putf(l, "  %*s ", (int)strlen(val), "");
	}
	char sh[1024];
	tui_put(l, show_name(m, m->d->syms[t->n[c->node].sym].name, l->cols - l->pos, sh,
			     sizeof(sh)));
}

/* '-' unfolded, '+' folded, ' ' without a tree (perf's fold signs) */
static char entry_sign(const struct tui_ctree *ct)
{
	if (ct->expanded)
		return '-';
	return ct->failed || (ct->t && ct->t->first < 0) ? ' ' : '+';
}

void tui_render_children_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	const struct crow *c = &v->crows[i];
	if (c->kind == CR_NODE) {
		render_node(m, l, v, c);
		return;
	}
	size_t sym = v->rows[c->row];
	const struct tui_sym *s = &d->syms[sym];
	static const uint64_t zero[2 * TUI_MAX_EVENTS];
	const uint64_t *ch = s->ch ? s->ch : zero;
	int hot = 0;
	tui_putf(l, "%c", entry_sign(&v->ct[sym]));
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = put_cell(m, l, e, ch[e], ch[d->nev + e], d->ev[e].samples, d->ev[e].period);
		put_cell(m, l, e, s->cnt[e], s->cnt[d->nev + e], d->ev[e].samples, d->ev[e].period);
		if (e == (size_t)tui_hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev)
		put_ratio(m, l, sym, (size_t)m->metric - d->nev);
	put_sym_name(m, l, s, hot);
}

void tui_render_calls_title(tui_model *m, struct tui_line *l, const struct view *v)
{
	const tui_data *d = m->d;
	const struct tui_sym *s = &d->syms[v->csym];
	size_t e = (size_t)tui_hot_event(m);
	const struct tui_event *ev = &d->ev[e];
	char t[512];
	render_sim(m, l);
	double cp = ev->period && s->ch ? 100.0 * (double)s->ch[d->nev + e] / (double)ev->period : 0;
	double sp = ev->period ? 100.0 * (double)s->cnt[d->nev + e] / (double)ev->period : 0;
	char sh[1024];
	snprintf(t, sizeof(t), " Calls of %s (%s) | %s: children %.2f%%, self %.2f%%",
		 show_name(m, s->name, m->cols / 2, sh, sizeof(sh)), s->dso, ev->name, cp, sp);
	put_title(l, t);
}

void tui_render_calls_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	const struct crow *c = &v->crows[i];
	if (c->kind == CR_NODE) {
		render_node(m, l, v, c);
		return;
	}
	const struct tui_ctree *ct = &v->ct[c->row];
	char sign = ct->t && ct->t->first >= 0 ? (ct->expanded ? '-' : '+') : ' ';
	char sh[1024];
	tui_putf(l, "%c %s of %s%s", sign, c->row == 0 ? "Callers" : "Callees",
		 show_name(m, m->d->syms[v->csym].name, m->cols / 2, sh, sizeof(sh)),
		 ct->t && ct->t->first < 0 ? c->row == 0 ? ": none (a root of its chains)"
							 : ": none (it calls nothing sampled)"
					  : "");
}

static int has_cursor(const struct view *v)
{
	return (v->ops->flags & TUI_VF_CURSOR) != 0;
}

static void render_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i)
{
	tui_put(l, i == v->cur && has_cursor(v) ? ">" : " ");
	v->ops->row(m, l, v, i);
}

static void render_status(tui_model *m, struct tui_line *l, const struct view *v)
{
	if (m->prompt)
		tui_putf(l, "%s: %s_", m->prompt_label, m->pbuf);
	else
		tui_put(l, m->msg[0] ? m->msg : v->ops->status);
}

const struct tui_screen *tui_model_render(tui_model *m)
{
	struct view *v = tui_top_view(m);
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
	render_status(m, &l, v);
	line_end(&l);
	return &m->scr;
}

const char *tui_model_row_text(tui_model *m, size_t i)
{
	struct view *v = tui_top_view(m);
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
