/* tui_model.c - the browser's state: a stack of views (hot symbols, annotate, ratios,
 * summary, help), cursor and scroll, sort, filter, search and hot-line jumps. No curses
 * here: keys come in as enum tui_key and rows go out as text (tui_model_render()). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

const char *const tui_help_lines[] = {
	"Everywhere",
	"  UP/DOWN, k/j      move the cursor",
	"  PGUP/PGDN, SPACE  page up / down",
	"  HOME/END          first / last row",
	"  q, ESC, LEFT      back to the previous view; q in the symbol list quits",
	"  CTRL-C            quit",
	"  h, ?, F1          this help (in annotate ? searches backwards: use h)",
	"  i                 summary: command, events, samples, lost, program ratios",
	"  R                 per-symbol ratios",
	"  t                 show percent / samples / period",
	"  x, X              next / previous event (or ratio) that sorts and colours",
	"Symbol lists",
	"  ENTER, RIGHT, a   annotate the symbol under the cursor",
	"  /                 filter symbols by name (empty filter: show all)",
	"  o, O              sort by next / previous column: events, ratios, name, dso",
	"  TAB, shift-TAB    next / previous event (as x, X)",
	"Annotate",
	"  H                 go to the hottest line",
	"  TAB, shift-TAB    next / previous hot line, hottest first",
	"  s                 toggle source code view: source lines / assembly only",
	"  a                 assembly under every source line on / off",
	"  ENTER, RIGHT      on a call: open the callee; on a jump: go to its target;",
	"                    on a source line: show / hide its assembly (also +)",
	"  /, ?, n           search forward, backwards, repeat the last search",
	"  <, >              previous / next symbol of the list",
	NULL,
};

enum { IT_LINE, IT_INSN };
struct item {
	int kind;
	size_t idx;
};

struct view {
	enum tui_view_kind kind;
	size_t cur, top;
	/* lists */
	size_t *rows;
	size_t nrows;
	int sort_col;
	char filter[128];
	/* annotate */
	tui_annot *an;
	long sym;          /* index in data, -1 when the symbol is not in the list */
	char *name, *dso;
	struct item *items;
	size_t nitems;
	unsigned char *open; /* per line: assembly shown */
	long *first, *next;  /* per line first insn; per insn next insn of the same line */
	int asm_all, hide_src;
	uint64_t ltot[2 * TUI_MAX_EVENTS], itot[2 * TUI_MAX_EVENTS];
	struct tui_ratio_val *lrv; /* nlines * nratios */
	size_t *hot;
	size_t nhot;
	long hot_pos;
	/* text views */
	char **lines;
	size_t nlines;
};

struct tui_model {
	tui_data *d;
	int cols, rows;
	struct view *stack;
	size_t depth, cap;
	int metric; /* 0..nev-1 an event, nev.. a ratio */
	enum tui_show show;
	int prompt; /* 0, '/' or '?' */
	char pbuf[128];
	size_t plen;
	char last_search[128];
	int last_dir;
	char msg[256];
	struct tui_ratio_val *srv; /* nsyms * nratios, computed on first use */
	int srv_done;
	struct tui_screen scr;
	char *textbuf;
	char *rowbuf;
};

#define NEV(m) ((m)->d->nev)
#define NRAT(m) ((m)->d->nratios)

static struct view *top_view(const tui_model *m)
{
	return &m->stack[m->depth - 1];
}

static int body_rows(const tui_model *m)
{
	return m->rows - 3;
}

static size_t view_nrows(const struct view *v)
{
	switch (v->kind) {
	case TUI_VIEW_SYMBOLS:
	case TUI_VIEW_RATIOS:
		return v->nrows;
	case TUI_VIEW_ANNOTATE:
		return v->nitems;
	default:
		return v->nlines;
	}
}

static void set_msg(tui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_msg(tui_model *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->msg, sizeof(m->msg), fmt, ap);
	va_end(ap);
}

/* ---- ratios ---- */

/* Simulated counts are exact: no interval, never "few samples". */
static void sim_exact(const tui_data *d, struct tui_ratio_val *v)
{
	if (!d->sim)
		return;
	v->flags &= ~(unsigned)TUI_RV_FEW;
	v->lo = v->hi = v->value;
}

static void compute_sym_ratios(tui_model *m)
{
	tui_data *d = m->d;
	if (m->srv_done || !NRAT(m))
		return;
	m->srv_done = 1;
	m->srv = calloc(d->nsyms * d->nratios + 1, sizeof(*m->srv));
	if (!m->srv || !d->rfn)
		return;
	for (size_t s = 0; s < d->nsyms; s++)
		for (size_t r = 0; r < d->nratios; r++) {
			struct tui_ratio_val *v = &m->srv[s * d->nratios + r];
			if (d->rfn(d->rctx, r, d->syms[s].cnt, d->syms[s].cnt + d->nev, v))
				v->flags = 0;
			sim_exact(d, v);
		}
}

static const struct tui_ratio_val *sym_rv(tui_model *m, size_t sym, size_t r)
{
	compute_sym_ratios(m);
	if (!m->srv)
		return NULL;
	return &m->srv[sym * NRAT(m) + r];
}

static void fmt_ratio(char *out, size_t n, const struct tui_ratio_val *v)
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

/* ---- lists ---- */

struct sort_ctx {
	tui_model *m;
	int col;
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
	} else if (c->col >= 0 && (size_t)c->col < d->nev) {
		uint64_t px = sx->cnt[d->nev + c->col], py = sy->cnt[d->nev + c->col];
		uint64_t nx = sx->cnt[c->col], ny = sy->cnt[c->col];
		r = px > py ? -1 : px < py ? 1 : nx > ny ? -1 : nx < ny ? 1 : 0;
	} else {
		size_t ri = (size_t)c->col - d->nev;
		const struct tui_ratio_val *vx = sym_rv(c->m, x, ri), *vy = sym_rv(c->m, y, ri);
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

static void list_rebuild(tui_model *m, struct view *v)
{
	tui_data *d = m->d;
	size_t keep = v->nrows && v->cur < v->nrows ? v->rows[v->cur] : (size_t)-1;

	v->nrows = 0;
	for (size_t i = 0; i < d->nsyms; i++)
		if (!v->filter[0] || strcasestr(d->syms[i].name, v->filter))
			v->rows[v->nrows++] = i;
	struct sort_ctx c = { m, v->sort_col };
	qsort_r(v->rows, v->nrows, sizeof(size_t), cmp_rows, &c);
	v->cur = 0;
	v->top = 0;
	for (size_t i = 0; i < v->nrows; i++)
		if (v->rows[i] == keep) {
			v->cur = i;
			break;
		}
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

static const char *col_name(const tui_model *m, int col)
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

static void view_fini(struct view *v)
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
	for (size_t i = 0; i < v->nlines; i++)
		free(v->lines[i]);
	free(v->lines);
	memset(v, 0, sizeof(*v));
}

static struct view *push_view(tui_model *m, enum tui_view_kind kind)
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
	v->kind = kind;
	v->sym = -1;
	return v;
}

static void pop_view(tui_model *m)
{
	if (m->depth <= 1)
		return;
	view_fini(top_view(m));
	m->depth--;
}

static int push_list(tui_model *m, enum tui_view_kind kind)
{
	struct view *v = push_view(m, kind);
	if (!v)
		return -ENOMEM;
	v->rows = malloc((m->d->nsyms + 1) * sizeof(size_t));
	if (!v->rows) {
		m->depth--;
		return -ENOMEM;
	}
	v->sort_col = m->metric;
	list_rebuild(m, v);
	return 0;
}

static int add_text(struct view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_text(struct view *v, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **l = realloc(v->lines, (v->nlines + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	v->lines = l;
	if (!(l[v->nlines] = strdup(buf)))
		return -ENOMEM;
	v->nlines++;
	return 0;
}

static int push_help(tui_model *m)
{
	struct view *v = push_view(m, TUI_VIEW_HELP);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; tui_help_lines[i]; i++)
		if (add_text(v, "%s", tui_help_lines[i]))
			return -ENOMEM;
	return 0;
}

static int push_summary(tui_model *m)
{
	tui_data *d = m->d;
	struct view *v = push_view(m, TUI_VIEW_SUMMARY);
	uint64_t samples = 0, lost = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	if (d->sim) {
		/* the note one clause ("; ") a line, so that 80 columns show it whole */
		const char *n = d->sim_note[0] ? d->sim_note : "counts from a simulation, not measured by a PMU";
		rc |= add_text(v, "SIMULATED (%s):", d->sim);
		while (*n) {
			const char *e = strstr(n, "; ");
			int len = e ? (int)(e - n) : (int)strlen(n);
			rc |= add_text(v, "  %.*s", len, n);
			n += len + (e ? 2 : 0);
		}
		rc |= add_text(v, "%s", "  samples are simulated addresses, each with its exact simulated count");
		rc |= add_text(v, "%s", "");
	}
	for (size_t i = 0; i < d->ninfo; i++)
		rc |= add_text(v, "%-12s %s", d->info[i].key, d->info[i].value);
	rc |= add_text(v, "%s", "");
	rc |= add_text(v, "%-18s %-10s %9s %14s %6s %14s", "event", "sampling", "samples",
		       "event count", "lost", "exact count");
	for (size_t e = 0; e < d->nev; e++) {
		char exact[32] = "-", how[32] = "";
		if (d->ev[e].has_count)
			snprintf(exact, sizeof(exact), "%" PRIu64, d->ev[e].count);
		if (d->ev[e].freq >= 0)
			snprintf(how, sizeof(how), "%s %" PRIu64, d->ev[e].freq ? "-F" : "-c",
				 d->ev[e].rate);
		rc |= add_text(v, "%-18.18s %-10s %9" PRIu64 " %14" PRIu64 " %6" PRIu64 " %14s",
			       d->ev[e].name, how, d->ev[e].samples, d->ev[e].period, d->ev[e].lost,
			       exact);
		samples += d->ev[e].samples;
		lost += d->ev[e].lost;
	}
	rc |= add_text(v, "total: %" PRIu64 " samples, %" PRIu64 " lost, %zu symbols", samples,
		       lost, d->nsyms);
	if (d->nratios) {
		uint64_t s[TUI_MAX_EVENTS], p[TUI_MAX_EVENTS];
		for (size_t e = 0; e < d->nev; e++) {
			s[e] = d->ev[e].samples;
			p[e] = d->ev[e].period;
		}
		rc |= add_text(v, "%s", "");
		rc |= add_text(v, "%-28s %-16s %s", "ratio (whole program)", "value",
			       d->sim ? "(exact simulated counts; '!' past threshold)"
				      : "('!' past threshold, '~' few samples)");
		for (size_t r = 0; r < d->nratios; r++) {
			struct tui_ratio_val val = { 0 };
			char buf[64];
			if (d->ratios[r].prog_set)
				val = d->ratios[r].prog;
			else if (d->rfn && d->rfn(d->rctx, r, s, p, &val))
				val.flags = 0;
			sim_exact(d, &val);
			fmt_ratio(buf, sizeof(buf), &val);
			rc |= add_text(v, "%-28.28s %-16s %s", d->ratios[r].name, buf,
				       d->ratios[r].desc);
		}
	}
	return rc ? -ENOMEM : 0;
}

/* ---- annotate ---- */

static uint64_t item_val(const struct view *v, const struct item *it, size_t ev, int period)
{
	const tui_annot *a = v->an;
	const uint64_t *c = it->kind == IT_LINE ? a->lines[it->idx].cnt : a->insns[it->idx].cnt;
	return c[(period ? a->nev : 0) + ev];
}

static int hot_event(const tui_model *m)
{
	return (size_t)m->metric < NEV(m) ? m->metric : 0;
}

static int annot_build_items(struct view *v)
{
	const tui_annot *a = v->an;
	size_t n = 0;
	uint64_t keep_addr = 0;
	long keep_line = -1;

	if (v->nitems && v->cur < v->nitems) {
		struct item *c = &v->items[v->cur];
		if (c->kind == IT_INSN)
			keep_addr = a->insns[c->idx].addr, keep_line = (long)a->insns[c->idx].line;
		else
			keep_line = (long)c->idx;
	}
	free(v->items);
	v->items = malloc((a->nlines + a->ninsns + 1) * sizeof(*v->items));
	if (!v->items) {
		v->nitems = 0;
		return -ENOMEM;
	}
	if (v->hide_src) {
		for (size_t i = 0; i < a->ninsns; i++)
			v->items[n++] = (struct item){ IT_INSN, i };
	} else {
		for (size_t l = 0; l < a->nlines; l++) {
			v->items[n++] = (struct item){ IT_LINE, l };
			if (v->asm_all || v->open[l])
				for (long i = v->first[l]; i >= 0; i = v->next[i])
					v->items[n++] = (struct item){ IT_INSN, (size_t)i };
		}
	}
	v->nitems = n;
	v->cur = 0;
	/* keep the cursor on the same instruction, else on the same source line */
	for (size_t i = 0; i < n && (keep_addr || keep_line >= 0); i++) {
		struct item *it = &v->items[i];
		if (keep_addr && it->kind == IT_INSN && a->insns[it->idx].addr == keep_addr) {
			v->cur = i;
			break;
		}
		if (it->kind == IT_LINE && (long)it->idx == keep_line)
			v->cur = i;
		if (it->kind == IT_INSN && v->hide_src && !keep_addr &&
		    (long)a->insns[it->idx].line == keep_line) {
			v->cur = i;
			break;
		}
	}
	return 0;
}

struct hot_ctx {
	const tui_model *m;
	const struct view *v;
	int kind;
};

static int cmp_hot(const void *a, const void *b, void *arg)
{
	const struct hot_ctx *c = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const tui_model *m = c->m;
	if ((size_t)m->metric >= NEV(m) && c->kind == IT_LINE && c->v->lrv) {
		size_t r = (size_t)m->metric - NEV(m);
		double vx = c->v->lrv[x * NRAT(m) + r].value, vy = c->v->lrv[y * NRAT(m) + r].value;
		if (vx != vy)
			return vx > vy ? -1 : 1;
	} else {
		struct item ix = { c->kind, x }, iy = { c->kind, y };
		int ev = hot_event(m);
		uint64_t px = item_val(c->v, &ix, (size_t)ev, 1), py = item_val(c->v, &iy, (size_t)ev, 1);
		if (px != py)
			return px > py ? -1 : 1;
		px = item_val(c->v, &ix, (size_t)ev, 0);
		py = item_val(c->v, &iy, (size_t)ev, 0);
		if (px != py)
			return px > py ? -1 : 1;
	}
	return x < y ? -1 : x > y;
}

/* Hot entries: source lines (or, with the source hidden, instructions) that have samples,
 * hottest first by the colouring event, or by the colouring ratio. */
static int annot_build_hot(const tui_model *m, struct view *v)
{
	const tui_annot *a = v->an;
	int kind = v->hide_src ? IT_INSN : IT_LINE;
	size_t n = kind == IT_LINE ? a->nlines : a->ninsns, k = 0;
	int by_ratio = (size_t)m->metric >= NEV(m) && kind == IT_LINE && v->lrv;
	int ev = hot_event(m);

	free(v->hot);
	v->hot = malloc((n + 1) * sizeof(size_t));
	v->nhot = 0;
	v->hot_pos = -1;
	if (!v->hot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct item it = { kind, i };
		if (by_ratio) {
			const struct tui_ratio_val *rv = &v->lrv[i * NRAT(m) + (size_t)m->metric - NEV(m)];
			if (!(rv->flags & TUI_RV_VALID))
				continue;
		} else if (!item_val(v, &it, (size_t)ev, 1) && !item_val(v, &it, (size_t)ev, 0)) {
			continue;
		}
		v->hot[k++] = i;
	}
	struct hot_ctx c = { m, v, kind };
	qsort_r(v->hot, k, sizeof(size_t), cmp_hot, &c);
	v->nhot = k;
	return 0;
}

static void center_cursor(const tui_model *m, struct view *v)
{
	size_t body = (size_t)body_rows(m), n = view_nrows(v);
	v->top = v->cur > body / 2 ? v->cur - body / 2 : 0;
	if (n > body && v->top > n - body)
		v->top = n - body;
	if (n <= body)
		v->top = 0;
}

/* Put the cursor on hot entry pos (opening the line's assembly when needed). */
static void goto_hot(tui_model *m, struct view *v, long pos)
{
	int kind = v->hide_src ? IT_INSN : IT_LINE;
	size_t idx = v->hot[pos];
	v->hot_pos = pos;
	for (size_t i = 0; i < v->nitems; i++)
		if (v->items[i].kind == kind && v->items[i].idx == idx) {
			v->cur = i;
			break;
		}
	center_cursor(m, v);
	const tui_annot *a = v->an;
	if (kind == IT_LINE)
		set_msg(m, "hot %ld/%zu: line %u", pos + 1, v->nhot, a->lines[idx].lineno);
	else
		set_msg(m, "hot %ld/%zu: %" PRIx64, pos + 1, v->nhot, a->insns[idx].addr);
}

static void annot_line_ratios(tui_model *m, struct view *v)
{
	tui_data *d = m->d;
	const tui_annot *a = v->an;
	if (!d->nratios || !d->rfn)
		return;
	v->lrv = calloc(a->nlines * d->nratios + 1, sizeof(*v->lrv));
	if (!v->lrv)
		return;
	for (size_t l = 0; l < a->nlines; l++)
		for (size_t r = 0; r < d->nratios; r++) {
			struct tui_ratio_val *rv = &v->lrv[l * d->nratios + r];
			if (d->rfn(d->rctx, r, a->lines[l].cnt, a->lines[l].cnt + a->nev, rv))
				rv->flags = 0;
			sim_exact(d, rv);
		}
}

/* Build an annotate view of a symbol (sym = index in the data or -1 with ref filled).
 * replace: reuse the top view instead of pushing. */
static int open_annotate(tui_model *m, long sym, const struct tui_sym_ref *ref, int replace)
{
	tui_data *d = m->d;
	struct tui_sym_ref r;
	tui_annot *a = NULL;
	struct mp_err err = { 0 };

	if (sym >= 0) {
		r.name = d->syms[sym].name;
		r.dso = d->syms[sym].dso;
		r.addr = d->syms[sym].addr;
	} else {
		r = *ref;
	}
	if (!d->afn) {
		set_msg(m, "%s: no annotation available", r.name);
		return -ENOTSUP;
	}
	int rc = d->afn(d->actx, &r, &a, &err);
	if (rc || !a) {
		set_msg(m, "%s", err.msg[0] ? err.msg : "annotation failed");
		return rc ? rc : -EINVAL;
	}
	if (a->nev != d->nev) {
		set_msg(m, "%s: annotation has %zu events, the data %zu", r.name, a->nev, d->nev);
		tui_annot_free(a);
		return -EINVAL;
	}
	char *name = mp_strdup(r.name), *dso = mp_strdup(r.dso ? r.dso : "");
	unsigned char *open = calloc(a->nlines + 1, 1);
	long *first = malloc((a->nlines + 1) * sizeof(long));
	long *next = malloc((a->ninsns + 1) * sizeof(long));
	long *last = malloc((a->nlines + 1) * sizeof(long));
	struct view *v = NULL;
	if (name && dso && open && first && next && last)
		v = replace ? top_view(m) : push_view(m, TUI_VIEW_ANNOTATE);
	if (!v) {
		free(name);
		free(dso);
		free(open);
		free(first);
		free(next);
		free(last);
		tui_annot_free(a);
		set_msg(m, "out of memory");
		return -ENOMEM;
	}
	if (replace)
		view_fini(v);
	v->kind = TUI_VIEW_ANNOTATE;
	v->an = a;
	v->sym = sym;
	v->name = name;
	v->dso = dso;
	v->open = open;
	v->first = first;
	v->next = next;
	for (size_t l = 0; l < a->nlines; l++)
		first[l] = last[l] = -1;
	for (size_t i = 0; i < a->ninsns; i++) {
		size_t l = a->insns[i].line;
		next[i] = -1;
		if (last[l] < 0)
			first[l] = (long)i;
		else
			next[last[l]] = (long)i;
		last[l] = (long)i;
	}
	free(last);
	/* Without source lines there is nothing but assembly to show. */
	int has_src = 0;
	for (size_t l = 0; l < a->nlines; l++)
		if (a->lines[l].lineno)
			has_src = 1;
	v->hide_src = !has_src && a->ninsns;
	for (size_t l = 0; l < a->nlines; l++)
		for (size_t e = 0; e < 2 * a->nev; e++)
			v->ltot[e] += a->lines[l].cnt[e];
	for (size_t i = 0; i < a->ninsns; i++)
		for (size_t e = 0; e < 2 * a->nev; e++)
			v->itot[e] += a->insns[i].cnt[e];
	annot_line_ratios(m, v);
	if (annot_build_items(v) || annot_build_hot(m, v)) {
		set_msg(m, "out of memory");
		return -ENOMEM;
	}
	m->msg[0] = 0;
	if (v->nhot)
		goto_hot(m, v, 0);
	return 0;
}

static long find_sym(const tui_model *m, const char *name, uint64_t addr)
{
	const tui_data *d = m->d;
	for (size_t i = 0; name && i < d->nsyms; i++)
		if (!strcmp(d->syms[i].name, name))
			return (long)i;
	for (size_t i = 0; addr && i < d->nsyms; i++)
		if (d->syms[i].addr == addr)
			return (long)i;
	return -1;
}

/* Enter on an annotate row. */
static unsigned annot_follow(tui_model *m, struct view *v)
{
	if (!v->nitems)
		return 0;
	struct item *it = &v->items[v->cur];
	tui_annot *a = v->an;
	if (it->kind == IT_LINE) {
		if (v->first[it->idx] < 0) {
			set_msg(m, "line %u has no instructions", a->lines[it->idx].lineno);
			return TUI_HANDLED | TUI_REDRAW;
		}
		v->open[it->idx] = !v->open[it->idx];
		annot_build_items(v);
		return TUI_HANDLED | TUI_RESCAN;
	}
	struct tui_ainsn *in = &a->insns[it->idx];
	if (in->kind == TUI_INSN_CALL) {
		if (!in->target && !in->tname) {
			set_msg(m, "indirect call: the callee is not known");
			return TUI_HANDLED | TUI_REDRAW;
		}
		long s = find_sym(m, in->tname, in->target);
		if (s < 0 && !in->tname) {
			set_msg(m, "the callee at %" PRIx64 " has no samples in this recording",
				in->target);
			return TUI_HANDLED | TUI_REDRAW;
		}
		struct tui_sym_ref ref = { in->tname ? in->tname : "?", v->dso, in->target };
		char *keep = mp_strdup(ref.name);
		if (!keep)
			return TUI_HANDLED;
		ref.name = keep;
		open_annotate(m, s, &ref, 0);
		free(keep);
		return TUI_HANDLED | TUI_RESCAN;
	}
	if (in->kind == TUI_INSN_JUMP) {
		size_t t;
		for (t = 0; t < a->ninsns; t++)
			if (a->insns[t].addr == in->target)
				break;
		if (!in->target || t == a->ninsns) {
			set_msg(m, "jump target %" PRIx64 " is outside %s", in->target, v->name);
			return TUI_HANDLED | TUI_REDRAW;
		}
		if (!v->hide_src && !v->asm_all && !v->open[a->insns[t].line]) {
			v->open[a->insns[t].line] = 1;
			annot_build_items(v);
		}
		for (size_t i = 0; i < v->nitems; i++)
			if (v->items[i].kind == IT_INSN && v->items[i].idx == t) {
				v->cur = i;
				break;
			}
		center_cursor(m, v);
		set_msg(m, "jumped to %" PRIx64, in->target);
		return TUI_HANDLED | TUI_RESCAN;
	}
	set_msg(m, "not a call or a jump");
	return TUI_HANDLED | TUI_REDRAW;
}

static const char *item_text(const struct view *v, const struct item *it)
{
	return it->kind == IT_LINE ? v->an->lines[it->idx].text : v->an->insns[it->idx].text;
}

static unsigned annot_search(tui_model *m, struct view *v, const char *s, int dir)
{
	size_t n = v->nitems;
	if (!s[0] || !n)
		return TUI_HANDLED | TUI_REDRAW;
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (v->cur + k) % n : (v->cur + n - k % n) % n;
		const struct item *it = &v->items[i];
		const char *callee = it->kind == IT_INSN ? v->an->insns[it->idx].tname : NULL;
		if (strstr(item_text(v, it), s) || (callee && strstr(callee, s))) {
			int wrapped = dir > 0 ? i <= v->cur : i >= v->cur;
			v->cur = i;
			center_cursor(m, v);
			set_msg(m, "%s'%s'", wrapped ? "search wrapped: " : "", s);
			return TUI_HANDLED | TUI_REDRAW;
		}
	}
	set_msg(m, "not found: '%s'", s);
	return TUI_HANDLED | TUI_REDRAW;
}

/* The list view the annotate views on top of it were opened from. */
static struct view *parent_list(tui_model *m)
{
	for (size_t i = m->depth; i-- > 0;)
		if (m->stack[i].kind == TUI_VIEW_SYMBOLS || m->stack[i].kind == TUI_VIEW_RATIOS)
			return &m->stack[i];
	return NULL;
}

static unsigned annot_neighbour(tui_model *m, struct view *v, int dir)
{
	struct view *l = parent_list(m);
	size_t pos;
	if (!l || !l->nrows)
		return TUI_HANDLED;
	for (pos = 0; pos < l->nrows; pos++)
		if ((long)l->rows[pos] == v->sym)
			break;
	if (pos == l->nrows)
		pos = l->cur;
	if ((dir < 0 && pos == 0) || (dir > 0 && pos + 1 >= l->nrows)) {
		set_msg(m, "%s symbol of the list", dir < 0 ? "first" : "last");
		return TUI_HANDLED | TUI_REDRAW;
	}
	pos = dir < 0 ? pos - 1 : pos + 1;
	if (open_annotate(m, (long)l->rows[pos], NULL, 1) == 0)
		l->cur = pos;
	else if (!top_view(m)->an)
		pop_view(m);
	return TUI_HANDLED | TUI_RESCAN;
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
	if (alloc_screen(m) || push_list(m, TUI_VIEW_SYMBOLS)) {
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
		view_fini(top_view(m));
		m->depth--;
	}
	free(m->stack);
	free(m->srv);
	free(m->textbuf);
	free(m->scr.row);
	free(m->rowbuf);
	tui_data_free(m->d);
	free(m);
}

static void clamp_scroll(const tui_model *m, struct view *v)
{
	size_t n = view_nrows(v), body = (size_t)body_rows(m);
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
		clamp_scroll(m, &m->stack[i]);
}

static unsigned move_cursor(tui_model *m, struct view *v, int key)
{
	size_t n = view_nrows(v), body = (size_t)body_rows(m), old = v->cur, oldtop = v->top;
	int text = v->kind == TUI_VIEW_HELP || v->kind == TUI_VIEW_SUMMARY;

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
	clamp_scroll(m, v);
	if (v->kind == TUI_VIEW_ANNOTATE && v->cur != old)
		m->msg[0] = 0;
	return TUI_HANDLED | (v->cur != old || v->top != oldtop ? TUI_REDRAW : 0);
}

static unsigned set_metric(tui_model *m, int dir)
{
	int n = (int)(NEV(m) + NRAT(m));
	struct view *v = top_view(m);
	m->metric = (m->metric + dir + n) % n;
	if (v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_RATIOS) {
		v->sort_col = m->metric;
		list_rebuild(m, v);
	} else if (v->kind == TUI_VIEW_ANNOTATE) {
		annot_build_hot(m, v);
	}
	set_msg(m, "sorting and colouring by %s", col_name(m, m->metric));
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned prompt_key(tui_model *m, int key)
{
	struct view *v = top_view(m);
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
		if (v->kind == TUI_VIEW_ANNOTATE) {
			if (m->plen)
				snprintf(m->last_search, sizeof(m->last_search), "%s", m->pbuf);
			m->last_dir = kind == '?' ? -1 : 1;
			return annot_search(m, v, m->last_search, m->last_dir);
		}
		snprintf(v->filter, sizeof(v->filter), "%s", m->pbuf);
		list_rebuild(m, v);
		if (v->filter[0])
			set_msg(m, "%zu of %zu symbols match '%s'", v->nrows, m->d->nsyms, v->filter);
		return TUI_HANDLED | TUI_RESCAN;
	}
	if (key >= 32 && key < 127 && m->plen + 1 < sizeof(m->pbuf)) {
		m->pbuf[m->plen++] = (char)key;
		m->pbuf[m->plen] = 0;
		return TUI_HANDLED | TUI_REDRAW;
	}
	return TUI_HANDLED;
}

static void start_prompt(tui_model *m, int kind, const char *init)
{
	m->prompt = kind;
	snprintf(m->pbuf, sizeof(m->pbuf), "%s", init ? init : "");
	m->plen = strlen(m->pbuf);
}

static unsigned list_key(tui_model *m, struct view *v, int key)
{
	switch (key) {
	case TUI_KEY_ENTER:
	case TUI_KEY_RIGHT:
	case 'a':
		if (!v->nrows)
			return TUI_HANDLED;
		open_annotate(m, (long)v->rows[v->cur], NULL, 0);
		return TUI_HANDLED | TUI_RESCAN;
	case '/':
		start_prompt(m, '/', v->filter);
		return TUI_HANDLED | TUI_REDRAW;
	case 'o':
	case 'O': {
		int n = n_sort_cols(m);
		int p = (sort_col_pos(m, v->sort_col) + (key == 'o' ? 1 : n - 1)) % n;
		v->sort_col = sort_col_at(m, p);
		list_rebuild(m, v);
		set_msg(m, "sorted by %s", col_name(m, v->sort_col));
		return TUI_HANDLED | TUI_RESCAN;
	}
	case TUI_KEY_TAB:
		return set_metric(m, 1);
	case TUI_KEY_BTAB:
		return set_metric(m, -1);
	case '?':
		push_help(m);
		return TUI_HANDLED | TUI_RESCAN;
	}
	return 0;
}

static unsigned annot_key(tui_model *m, struct view *v, int key)
{
	switch (key) {
	case 'H':
		if (!v->nhot) {
			set_msg(m, "no samples in %s", v->name);
			return TUI_HANDLED | TUI_REDRAW;
		}
		goto_hot(m, v, 0);
		return TUI_HANDLED | TUI_REDRAW;
	case TUI_KEY_TAB:
	case TUI_KEY_BTAB: {
		if (!v->nhot) {
			set_msg(m, "no samples in %s", v->name);
			return TUI_HANDLED | TUI_REDRAW;
		}
		long n = (long)v->nhot, p = v->hot_pos;
		if (key == TUI_KEY_TAB)
			p = p < 0 ? 0 : (p + 1) % n;
		else
			p = p < 0 ? n - 1 : (p + n - 1) % n;
		goto_hot(m, v, p);
		return TUI_HANDLED | TUI_REDRAW;
	}
	case 's':
		if (!v->an->ninsns) {
			set_msg(m, "%s has no instructions to show", v->name);
			return TUI_HANDLED | TUI_REDRAW;
		}
		v->hide_src = !v->hide_src;
		annot_build_items(v);
		annot_build_hot(m, v);
		clamp_scroll(m, v);
		center_cursor(m, v);
		set_msg(m, "%s", v->hide_src ? "assembly only" : "source view");
		return TUI_HANDLED | TUI_RESCAN;
	case 'a':
		v->asm_all = !v->asm_all;
		if (!v->asm_all)
			memset(v->open, 0, v->an->nlines);
		annot_build_items(v);
		center_cursor(m, v);
		return TUI_HANDLED | TUI_RESCAN;
	case '+':
		if (v->nitems && v->items[v->cur].kind == IT_INSN && !v->hide_src) {
			v->open[v->an->insns[v->items[v->cur].idx].line] = 0;
			annot_build_items(v);
			return TUI_HANDLED | TUI_RESCAN;
		}
		if (v->nitems && v->items[v->cur].kind == IT_INSN)
			return TUI_HANDLED;
		return annot_follow(m, v);
	case TUI_KEY_ENTER:
	case TUI_KEY_RIGHT:
		return annot_follow(m, v);
	case '/':
	case '?':
		start_prompt(m, key, NULL);
		return TUI_HANDLED | TUI_REDRAW;
	case 'n':
		if (!m->last_search[0]) {
			set_msg(m, "no previous search");
			return TUI_HANDLED | TUI_REDRAW;
		}
		return annot_search(m, v, m->last_search, m->last_dir);
	case '<':
		return annot_neighbour(m, v, -1);
	case '>':
		return annot_neighbour(m, v, 1);
	}
	return 0;
}

unsigned tui_model_key(tui_model *m, int key)
{
	struct view *v = top_view(m);
	unsigned r;

	if (m->prompt)
		return prompt_key(m, key);
	if (key == TUI_KEY_CTRL_C)
		return TUI_HANDLED | TUI_QUIT;
	if (v->kind == TUI_VIEW_HELP) {
		if (key == 'q' || key == TUI_KEY_ESC || key == 'h' || key == '?' ||
		    key == TUI_KEY_F1 || key == TUI_KEY_LEFT) {
			pop_view(m);
			return TUI_HANDLED | TUI_RESCAN;
		}
		return move_cursor(m, v, key) | TUI_HANDLED;
	}
	switch (key) {
	case TUI_KEY_UP:
	case TUI_KEY_DOWN:
	case TUI_KEY_PGUP:
	case TUI_KEY_PGDN:
	case TUI_KEY_HOME:
	case TUI_KEY_END:
	case 'j':
	case 'k':
	case ' ':
		return move_cursor(m, v, key);
	case 'q':
	case TUI_KEY_ESC:
	case TUI_KEY_LEFT:
		m->msg[0] = 0;
		if (m->depth > 1) {
			pop_view(m);
			v = top_view(m);
			if (v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_RATIOS)
				clamp_scroll(m, v);
			return TUI_HANDLED | TUI_RESCAN;
		}
		if (key == 'q')
			return TUI_HANDLED | TUI_QUIT;
		if (v->filter[0]) { /* ESC zooms out of a filter, as in perf */
			v->filter[0] = 0;
			list_rebuild(m, v);
			return TUI_HANDLED | TUI_RESCAN;
		}
		return TUI_HANDLED;
	case 'h':
	case TUI_KEY_F1:
		push_help(m);
		return TUI_HANDLED | TUI_RESCAN;
	case 'i':
		if (v->kind == TUI_VIEW_SUMMARY)
			return TUI_HANDLED;
		push_summary(m);
		return TUI_HANDLED | TUI_RESCAN;
	case 'R':
		if (v->kind == TUI_VIEW_RATIOS)
			return TUI_HANDLED;
		if (!NRAT(m)) {
			set_msg(m, "no ratios: the recording's events define none");
			return TUI_HANDLED | TUI_REDRAW;
		}
		compute_sym_ratios(m);
		push_list(m, TUI_VIEW_RATIOS);
		top_view(m)->sort_col = (size_t)m->metric >= NEV(m) ? m->metric : (int)NEV(m);
		top_view(m)->nrows = 0;
		list_rebuild(m, top_view(m));
		return TUI_HANDLED | TUI_RESCAN;
	case 't':
		m->show = (m->show + 1) % 3;
		set_msg(m, "showing %s", m->show == TUI_SHOW_PERCENT ? "percent"
				      : m->show == TUI_SHOW_SAMPLES ? "samples" : "period");
		return TUI_HANDLED | TUI_REDRAW;
	case 'x':
	case 'X':
		return set_metric(m, key == 'x' ? 1 : -1);
	}
	r = 0;
	if (v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_RATIOS)
		r = list_key(m, v, key);
	else if (v->kind == TUI_VIEW_ANNOTATE)
		r = annot_key(m, v, key);
	else if (key == '?') {
		push_help(m);
		r = TUI_HANDLED | TUI_RESCAN;
	}
	clamp_scroll(m, top_view(m));
	return r;
}

/* ---- rendering ---- */

struct line {
	struct tui_row *row;
	int cols, pos;
	int tab0; /* tabs expand to 4 columns from here (the start of the source text) */
};

static void put(struct line *l, const char *s)
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

static void putf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct line *l, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(l, buf);
}

static void span(struct line *l, int col, int heat)
{
	struct tui_row *r = l->row;
	if (r->nspans < TUI_ROW_SPANS && heat > 0 && l->pos > col)
		r->span[r->nspans++] = (struct tui_span){ col, l->pos - col, heat };
}

static void line_start(struct line *l, struct tui_row *row, int cols, enum tui_row_kind kind)
{
	l->row = row;
	l->cols = cols;
	l->pos = 0;
	l->tab0 = 0;
	row->kind = kind;
	row->selected = 0;
	row->nspans = 0;
}

static void line_end(struct line *l)
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
	int w = m->show == TUI_SHOW_PERCENT ? 8
		: digits(m->show == TUI_SHOW_SAMPLES ? ev->samples : ev->period) + 1;
	int nw = (int)strlen(ev->name) + 1;
	if (nw > 14)
		nw = 14;
	if (w < nw)
		w = nw;
	return w < 8 ? 8 : w;
}

/* One count cell; returns its heat. */
static int put_cell(const tui_model *m, struct line *l, size_t e, uint64_t s, uint64_t p,
		    uint64_t tot_s, uint64_t tot_p)
{
	int w = cell_width(m, e), col = l->pos;
	double pct = tot_p ? 100.0 * (double)p / (double)tot_p
		     : tot_s ? 100.0 * (double)s / (double)tot_s : 0;
	if (m->show == TUI_SHOW_PERCENT) {
		if (s || p)
			putf(l, "%*.2f%%", w - 1, pct);
		else
			putf(l, "%*s", w, "");
	} else {
		uint64_t v = m->show == TUI_SHOW_SAMPLES ? s : p;
		if (v)
			putf(l, "%*" PRIu64, w, v);
		else
			putf(l, "%*s", w, "");
	}
	int h = heat_of(pct);
	span(l, col, h);
	return h;
}

static const char *show_name(const tui_model *m)
{
	return m->show == TUI_SHOW_PERCENT ? "percent" : m->show == TUI_SHOW_SAMPLES ? "samples"
											: "period";
}

static void render_title(tui_model *m, struct line *l, const struct view *v)
{
	const tui_data *d = m->d;
	if (d->sim)
		putf(l, " SIMULATED (%s) |", d->sim);
	switch (v->kind) {
	case TUI_VIEW_SYMBOLS:
	case TUI_VIEW_RATIOS: {
		size_t e = (size_t)hot_event(m);
		if (d->sim)
			putf(l, " %s: '%s' count %" PRIu64 " | sort: %s",
			     v->kind == TUI_VIEW_SYMBOLS ? "Symbols" : "Ratios", d->ev[e].name,
			     d->ev[e].period, col_name(m, v->sort_col));
		else
			putf(l, " %s: %" PRIu64 " samples of '%s', event count %" PRIu64 " | sort: %s",
			     v->kind == TUI_VIEW_SYMBOLS ? "Symbols" : "Ratios", d->ev[e].samples,
			     d->ev[e].name, d->ev[e].period, col_name(m, v->sort_col));
		if (v->filter[0])
			putf(l, " | filter: %s (%zu)", v->filter, v->nrows);
		break;
	}
	case TUI_VIEW_ANNOTATE: {
		const char *f = v->an->file;
		putf(l, " Annotate %s", v->name);
		if (v->dso && v->dso[0])
			putf(l, " (%s)", v->dso);
		if (f && f[0]) {
			const char *b = strrchr(f, '/');
			putf(l, "  %s", b ? b + 1 : f);
		}
		putf(l, " | %s, %s", col_name(m, m->metric), show_name(m));
		break;
	}
	case TUI_VIEW_SUMMARY:
		put(l, " Summary");
		break;
	case TUI_VIEW_HELP:
		put(l, " Help: memprof tui keys (q, ESC or h to close)");
		break;
	}
}

static void render_header(tui_model *m, struct line *l, const struct view *v)
{
	const tui_data *d = m->d;
	put(l, " ");
	if (v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_ANNOTATE) {
		for (size_t e = 0; e < d->nev; e++) {
			int w = cell_width(m, e);
			putf(l, "%*.*s", w, w - 1, d->ev[e].name);
		}
		if ((size_t)m->metric >= d->nev)
			putf(l, " %13.13s", col_name(m, m->metric));
		if (v->kind == TUI_VIEW_SYMBOLS)
			put(l, l->cols - l->pos >= 50 ? "              symbol" : "  symbol");
		else if (v->hide_src)
			put(l, "     address  instruction");
		else
			put(l, "   line  source");
	} else if (v->kind == TUI_VIEW_RATIOS) {
		for (size_t r = 0; r < d->nratios; r++)
			putf(l, " %13.13s", d->ratios[r].name);
		put(l, "  symbol");
	}
}

static void render_sym_row(tui_model *m, struct line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	const struct tui_sym *s = &d->syms[v->rows[i]];
	int hot = 0;
	for (size_t e = 0; e < d->nev; e++) {
		int h = put_cell(m, l, e, s->cnt[e], s->cnt[d->nev + e], d->ev[e].samples,
				 d->ev[e].period);
		if (e == (size_t)hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev) {
		char buf[64];
		const struct tui_ratio_val *rv = sym_rv(m, v->rows[i], (size_t)m->metric - d->nev);
		int col = l->pos;
		fmt_ratio(buf, sizeof(buf), rv);
		putf(l, " %13s", buf);
		span(l, col, ratio_heat(rv));
	}
	/* a bar of the colouring event's share, when there is room for it */
	size_t e = (size_t)hot_event(m);
	int col;
	if (l->cols - l->pos >= 50) {
		double share = d->ev[e].period ? (double)s->cnt[d->nev + e] / (double)d->ev[e].period
					       : 0;
		int n = (int)(share * 10 + 0.5);
		put(l, " [");
		col = l->pos;
		for (int k = 0; k < 10; k++)
			put(l, k < n ? "#" : " ");
		span(l, col, hot);
		put(l, "]");
	}
	put(l, "  ");
	col = l->pos;
	const char *base = strrchr(s->dso, '/');
	base = base ? base + 1 : s->dso;
	int room = l->cols - l->pos - (base[0] ? 2 : 0);
	int dsow = (int)strlen(base);
	if (dsow > room / 4)
		dsow = room / 4;
	int namew = room - dsow;
	if (namew < 1)
		namew = 1;
	putf(l, "%-*.*s", namew, namew, s->name);
	span(l, col, hot);
	if (base[0] && dsow > 0)
		putf(l, "  %.*s", dsow, base);
}

static void render_ratio_row(tui_model *m, struct line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	for (size_t r = 0; r < d->nratios; r++) {
		char buf[64];
		const struct tui_ratio_val *rv = sym_rv(m, v->rows[i], r);
		int col = l->pos;
		fmt_ratio(buf, sizeof(buf), rv);
		putf(l, " %13s", buf);
		span(l, col, ratio_heat(rv));
	}
	putf(l, "  %s", d->syms[v->rows[i]].name);
}

static void render_annot_row(tui_model *m, struct line *l, const struct view *v, size_t i)
{
	const tui_data *d = m->d;
	const tui_annot *a = v->an;
	const struct item *it = &v->items[i];
	const uint64_t *tot = it->kind == IT_LINE ? v->ltot : v->itot;
	int hot = 0;
	for (size_t e = 0; e < d->nev; e++) {
		int h = put_cell(m, l, e, item_val(v, it, e, 0), item_val(v, it, e, 1), tot[e],
				 tot[a->nev + e]);
		if (e == (size_t)hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev) {
		char buf[64] = "";
		const struct tui_ratio_val *rv = NULL;
		if (it->kind == IT_LINE && v->lrv)
			rv = &v->lrv[it->idx * d->nratios + (size_t)m->metric - d->nev];
		if (rv)
			fmt_ratio(buf, sizeof(buf), rv);
		int col = l->pos;
		putf(l, " %13s", buf);
		hot = ratio_heat(rv);
		span(l, col, hot);
	}
	int col = l->pos;
	if (it->kind == IT_LINE) {
		const struct tui_aline *ln = &a->lines[it->idx];
		if (ln->lineno)
			putf(l, " %c%5u  ", ln->hot ? '*' : ' ', ln->lineno);
		else
			put(l, "      -  ");
		l->tab0 = l->pos;
		put(l, ln->text[0] || ln->lineno ? ln->text : "(no source line)");
		if (ln->file && ln->file[0] && strcmp(ln->file, a->file))
			putf(l, "   [%s]", ln->file);
	} else {
		const struct tui_ainsn *in = &a->insns[it->idx];
		l->row->kind = TUI_ROW_ASM;
		putf(l, "%s%10" PRIx64 ":  %s", v->hide_src ? " " : "         ", in->addr, in->text);
		if (in->kind == TUI_INSN_CALL && in->tname && !strstr(in->text, in->tname))
			putf(l, "  -> %s", in->tname);
	}
	span(l, col, hot);
}

static void render_row(tui_model *m, struct line *l, const struct view *v, size_t i)
{
	put(l, i == v->cur && v->kind != TUI_VIEW_HELP && v->kind != TUI_VIEW_SUMMARY ? ">" : " ");
	switch (v->kind) {
	case TUI_VIEW_SYMBOLS:
		render_sym_row(m, l, v, i);
		break;
	case TUI_VIEW_RATIOS:
		render_ratio_row(m, l, v, i);
		break;
	case TUI_VIEW_ANNOTATE:
		render_annot_row(m, l, v, i);
		break;
	default:
		put(l, v->lines[i]);
		break;
	}
}

static void render_status(tui_model *m, struct line *l, const struct view *v)
{
	if (m->prompt) {
		if (v->kind == TUI_VIEW_ANNOTATE)
			putf(l, "%s: %s_", m->prompt == '?' ? "Search backwards" : "Search", m->pbuf);
		else
			putf(l, "Filter: %s_", m->pbuf);
		return;
	}
	if (m->msg[0]) {
		put(l, m->msg);
		return;
	}
	switch (v->kind) {
	case TUI_VIEW_SYMBOLS:
	case TUI_VIEW_RATIOS:
		put(l, "ENTER annotate  / filter  x event  o sort  R ratios  i summary  h help  q quit");
		break;
	case TUI_VIEW_ANNOTATE:
		put(l, "H hottest  TAB next hot  s source  a asm  ENTER follow  / search  < > symbol  q back");
		break;
	default:
		put(l, "q back");
		break;
	}
}

const struct tui_screen *tui_model_render(tui_model *m)
{
	struct view *v = top_view(m);
	struct line l;
	int body = body_rows(m);

	if (!m->textbuf)
		return NULL;
	clamp_scroll(m, v);
	line_start(&l, &m->scr.row[0], m->cols, TUI_ROW_TITLE);
	render_title(m, &l, v);
	line_end(&l);
	line_start(&l, &m->scr.row[1], m->cols, TUI_ROW_HEADER);
	render_header(m, &l, v);
	line_end(&l);
	for (int r = 0; r < body; r++) {
		size_t i = v->top + (size_t)r;
		line_start(&l, &m->scr.row[2 + r], m->cols, TUI_ROW_TEXT);
		if (i < view_nrows(v)) {
			render_row(m, &l, v, i);
			l.row->selected = i == v->cur && v->kind != TUI_VIEW_HELP &&
					  v->kind != TUI_VIEW_SUMMARY;
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
	struct view *v = top_view(m);
	struct tui_row row;
	struct line l;
	if (i >= view_nrows(v) || !m->rowbuf)
		return NULL;
	row.text = m->rowbuf;
	line_start(&l, &row, m->cols, TUI_ROW_TEXT);
	render_row(m, &l, v, i);
	line_end(&l);
	return m->rowbuf;
}

/* ---- state ---- */

enum tui_view_kind tui_model_view(const tui_model *m)
{
	return top_view(m)->kind;
}

size_t tui_model_depth(const tui_model *m)
{
	return m->depth;
}

size_t tui_model_cursor(const tui_model *m)
{
	return top_view(m)->cur;
}

size_t tui_model_nrows(const tui_model *m)
{
	return view_nrows(top_view(m));
}

size_t tui_model_top(const tui_model *m)
{
	return top_view(m)->top;
}

const char *tui_model_symbol(const tui_model *m)
{
	const struct view *v = top_view(m);
	if (v->kind == TUI_VIEW_ANNOTATE)
		return v->name;
	if ((v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_RATIOS) && v->cur < v->nrows)
		return m->d->syms[v->rows[v->cur]].name;
	return NULL;
}

unsigned tui_model_cur_line(const tui_model *m)
{
	const struct view *v = top_view(m);
	if (v->kind != TUI_VIEW_ANNOTATE || v->cur >= v->nitems)
		return 0;
	const struct item *it = &v->items[v->cur];
	size_t line = it->kind == IT_LINE ? it->idx : v->an->insns[it->idx].line;
	return v->an->lines[line].lineno;
}

uint64_t tui_model_cur_addr(const tui_model *m)
{
	const struct view *v = top_view(m);
	if (v->kind != TUI_VIEW_ANNOTATE || v->cur >= v->nitems)
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
	const struct view *v = top_view(m);
	if (v->kind == TUI_VIEW_SYMBOLS || v->kind == TUI_VIEW_RATIOS)
		return v->sort_col;
	const struct view *l = NULL;
	for (size_t i = m->depth; i-- > 0;)
		if (m->stack[i].kind == TUI_VIEW_SYMBOLS || m->stack[i].kind == TUI_VIEW_RATIOS) {
			l = &m->stack[i];
			break;
		}
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

void tui_model_set_message(tui_model *m, const char *msg)
{
	set_msg(m, "%s", msg ? msg : "");
}
