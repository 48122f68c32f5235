/* tui_list.c - the symbol list and the ratio list: rows of symbols, filtered by name and
 * sorted by a column (an event's counts, a ratio, the name or the dso), each row rendered
 * here. The children list (tui_chains.c) keeps its rows in the same struct tui_list. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui_annview.h"
#include "tui_list.h"

/* The symbol and the ratio list. */
struct list_view {
	struct tui_view v;
	struct tui_list l;
	/* the ratio list's columns shown at the last render (the sorting ratio first) */
	size_t *rvis, nrvis;
};

static struct list_view *list_view(const struct tui_view *v)
{
	return (struct list_view *)v;
}

/* ---- rows ---- */

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

void tui_list_rebuild(tui_model *m, struct tui_view *v)
{
	tui_data *d = m->d;
	struct tui_list *l = tui_view_list(v);
	size_t e = tui_list_entry(v);
	size_t keep = e < l->nrows ? l->rows[e] : (size_t)-1;

	l->nrows = 0;
	for (size_t i = 0; i < d->nsyms; i++)
		if ((!l->filter[0] || strcasestr(d->syms[i].name, l->filter)) &&
		    tui_list_zoomed_in(d, l, i))
			l->rows[l->nrows++] = i;
	struct sort_ctx c = { m, l->sort_col, l->children };
	qsort_r(l->rows, l->nrows, sizeof(size_t), cmp_rows, &c);
	v->cur = 0;
	v->top = 0;
	for (size_t i = 0; i < l->nrows; i++)
		if (l->rows[i] == keep) {
			v->cur = i;
			break;
		}
	if (v->ops->relist)
		v->ops->relist(m, v);
}

int tui_list_init(tui_model *m, struct tui_view *v, struct tui_list *l, int sort_col,
		  int children)
{
	memset(l, 0, sizeof(*l));
	l->zthread = l->zdso = -1;
	l->rows = malloc((m->d->nsyms + 1) * sizeof(size_t));
	if (!l->rows)
		return -ENOMEM;
	l->sort_col = sort_col;
	l->children = children;
	tui_list_rebuild(m, v);
	return 0;
}

void tui_list_fini(struct tui_list *l)
{
	free(l->rows);
	l->rows = NULL;
	l->nrows = 0;
}

void tui_list_metric(tui_model *m, struct tui_view *v)
{
	tui_view_list(v)->sort_col = m->metric;
	tui_list_rebuild(m, v);
}

/* ---- keys ---- */

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

static unsigned filter_done(tui_model *m, struct tui_view *v, const char *text, int kind)
{
	(void)kind;
	struct tui_list *l = tui_view_list(v);
	snprintf(l->filter, sizeof(l->filter), "%s", text);
	tui_list_rebuild(m, v);
	if (l->filter[0])
		tui_set_msg(m, "%zu of %zu symbols match '%s'", l->nrows, m->d->nsyms, l->filter);
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_list_filter(tui_model *m, struct tui_view *v, int key)
{
	tui_start_prompt(m, key, tui_view_list(v)->filter, "Filter", filter_done);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_list_sort(tui_model *m, struct tui_view *v, int key)
{
	struct tui_list *l = tui_view_list(v);
	int n = n_sort_cols(m);
	int p = (sort_col_pos(m, l->sort_col) + (key == 'o' ? 1 : n - 1)) % n;
	l->sort_col = sort_col_at(m, p);
	tui_list_rebuild(m, v);
	tui_set_msg(m, "sorted by %s", tui_col_name(m, l->sort_col));
	return TUI_HANDLED | TUI_RESCAN;
}

/* ---- zooms (perf's t and d) ---- */

static int same_thread(const struct tui_sym *a, const struct tui_sym *b)
{
	/* a process is one thread whatever its commands (before and after an exec), as perf's */
	if (a->pid >= 0 || b->pid >= 0)
		return a->pid == b->pid;
	return !strcmp(a->comm ? a->comm : "", b->comm ? b->comm : "");
}

int tui_list_zoomed_in(const tui_data *d, const struct tui_list *l, size_t sym)
{
	const struct tui_sym *s = &d->syms[sym];
	return (l->zthread < 0 || same_thread(s, &d->syms[l->zthread])) &&
	       (l->zdso < 0 || !strcmp(s->dso, d->syms[l->zdso].dso));
}

static void zoom_set(struct tui_list *l, int kind, long sym)
{
	if (kind == 't')
		l->zthread = sym;
	else
		l->zdso = sym;
	int k = 0;
	for (int i = 0; i < l->nzoom; i++)
		if (l->zoom[i] != kind)
			l->zoom[k++] = l->zoom[i];
	l->nzoom = k;
	if (sym >= 0)
		l->zoom[l->nzoom++] = (char)kind;
}

/* "Thread: prog(1234)" or "DSO: libc.so.6" of a zoom, as perf's title names it. */
static void zoom_name(const tui_data *d, const struct tui_list *l, int kind, char *buf, size_t n)
{
	if (kind == 't') {
		const struct tui_sym *s = &d->syms[l->zthread];
		if (s->pid >= 0)
			snprintf(buf, n, "Thread: %s(%ld)", s->comm ? s->comm : "", s->pid);
		else
			snprintf(buf, n, "Thread: %s", s->comm ? s->comm : "");
	} else {
		const char *dso = d->syms[l->zdso].dso, *base = strrchr(dso, '/');
		snprintf(buf, n, "DSO: %s", dso[0] ? (base ? base + 1 : dso) : "[unknown]");
	}
}

unsigned tui_list_zoom(tui_model *m, struct tui_view *v, int key)
{
	struct tui_list *l = tui_view_list(v);
	long *z = key == 't' ? &l->zthread : &l->zdso;
	char name[300];
	if (*z >= 0) {
		zoom_name(m->d, l, key, name, sizeof(name));
		zoom_set(l, key, -1);
		tui_list_rebuild(m, v);
		tui_set_msg(m, "zoomed out of %s", name);
		return TUI_HANDLED | TUI_RESCAN;
	}
	size_t e = tui_list_entry(v);
	if (e >= l->nrows) {
		tui_set_msg(m, "no row to zoom into");
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (key == 't' && !m->d->threads) {
		tui_set_msg(m, m->d->children ? "no thread column with call chains: tui --no-children "
						"has one for several processes"
					      : "one process in the recording: no thread to zoom into");
		return TUI_HANDLED | TUI_REDRAW;
	}
	long at = (long)l->rows[e];
	if (key == 't') /* the process's hottest row names it: its command after an exec */
		for (size_t i = 0; i < m->d->nsyms; i++) {
			const struct tui_sym *s = &m->d->syms[i];
			size_t p = m->d->nev + (size_t)tui_hot_event(m);
			if (same_thread(s, &m->d->syms[at]) && s->cnt[p] > m->d->syms[at].cnt[p])
				at = (long)i;
		}
	zoom_set(l, key, at);
	tui_list_rebuild(m, v);
	zoom_name(m->d, l, key, name, sizeof(name));
	tui_set_msg(m, "zoomed into %s (%c again or ESC: zoom out)", name, key);
	return TUI_HANDLED | TUI_RESCAN;
}

int tui_list_unzoom(tui_model *m, struct tui_view *v)
{
	struct tui_list *l = tui_view_list(v);
	if (!l || !l->nzoom)
		return 0;
	tui_list_zoom(m, v, l->zoom[l->nzoom - 1]);
	return 1;
}

/* P: the list as shown, every row, to perf.hist.N (the first N free), as perf's P. */
unsigned tui_list_print(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	char path[32];
	int fd = -1;
	for (int i = 0; i < 1000 && fd < 0; i++) {
		snprintf(path, sizeof(path), "perf.hist.%d", i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		tui_set_msg(m, "perf.hist.N: cannot write: %s", strerror(errno));
		return TUI_HANDLED | TUI_REDRAW;
	}
	int rc = tui_render_print(m, f);
	if (fclose(f) || rc)
		tui_set_msg(m, "%s: cannot write: %s", path, strerror(rc ? -rc : errno));
	else
		tui_set_msg(m, "%s written", path);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_list_annotate(tui_model *m, struct tui_view *v, int key)
{
	(void)key;
	const struct tui_list *l = tui_view_list(v);
	if (!l->nrows)
		return TUI_HANDLED;
	tui_open_annotate(m, (long)l->rows[v->cur], NULL, 0);
	return TUI_HANDLED | TUI_RESCAN;
}

/* ---- the views ---- */

static void list_free(struct tui_view *v)
{
	struct list_view *lv = list_view(v);
	tui_list_fini(&lv->l);
	free(lv->rvis);
	free(lv);
}

static int push_list(tui_model *m, const struct tui_view_ops *ops, int sort_col)
{
	struct list_view *lv = calloc(1, sizeof(*lv));
	if (!lv)
		return -ENOMEM;
	lv->v.ops = ops;
	if (tui_list_init(m, &lv->v, &lv->l, sort_col, 0)) {
		free(lv);
		return -ENOMEM;
	}
	return tui_push_view(m, &lv->v);
}

int tui_push_symbols(tui_model *m)
{
	return push_list(m, &tui_symbols_ops, m->metric);
}

unsigned tui_list_ratios(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	if (!NRAT(m)) {
		tui_set_msg(m, "no ratios: the recording's events define none");
		return TUI_HANDLED | TUI_REDRAW;
	}
	tui_compute_sym_ratios(m);
	/* sorted by the colouring ratio, or the first when an event colours */
	if (push_list(m, &tui_ratios_ops, (size_t)m->metric >= NEV(m) ? m->metric : (int)NEV(m)))
		tui_set_msg(m, "out of memory");
	return TUI_HANDLED | TUI_RESCAN;
}

static size_t list_rows(const struct tui_view *v)
{
	return list_view(v)->l.nrows;
}

static const char *list_symbol(const tui_model *m, const struct tui_view *v)
{
	const struct tui_list *l = &list_view(v)->l;
	return v->cur < l->nrows ? m->d->syms[l->rows[v->cur]].name : NULL;
}

static struct tui_list *list_list(struct tui_view *v)
{
	return &list_view(v)->l;
}

void tui_list_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const tui_data *d = m->d;
	const struct tui_list *list = tui_view_list(v);
	const char *what = v->ops->name;
	size_t e = (size_t)tui_hot_event(m);
	char t[1024], zoom[640] = "";
	int n;
	/* the zooms before the sort: a title too wide loses its last parts first */
	for (int z = 0, k = 0; z < list->nzoom; z++) {
		char name[300];
		zoom_name(d, list, list->zoom[z], name, sizeof(name));
		k += snprintf(zoom + k, sizeof(zoom) - (size_t)k, " | %s", name);
		if ((size_t)k >= sizeof(zoom))
			break;
	}
	/* zoomed: the samples and count of its rows first, as perf's title */
	char ns[48] = "", np[48] = "";
	if (list->nzoom) {
		uint64_t zs = 0, zp = 0;
		for (size_t i = 0; i < d->nsyms; i++)
			if (tui_list_zoomed_in(d, list, i)) {
				zs += d->syms[i].cnt[e];
				zp += d->syms[i].cnt[d->nev + e];
			}
		snprintf(ns, sizeof(ns), "%" PRIu64 " of ", zs);
		snprintf(np, sizeof(np), "%" PRIu64 " of ", zp);
	}
	tui_put_sim(m, l);
	if (d->sim)
		n = snprintf(t, sizeof(t), " %s: '%s' count %s%" PRIu64 "%s | sort: %s", what,
			     d->ev[e].name, np, d->ev[e].period, zoom, tui_col_name(m, list->sort_col));
	else
		n = snprintf(t, sizeof(t),
			     " %s: %s%" PRIu64 " samples of '%s', event count %s%" PRIu64 "%s | sort: %s",
			     what, ns, d->ev[e].samples, d->ev[e].name, np, d->ev[e].period, zoom,
			     tui_col_name(m, list->sort_col));
	if (list->filter[0] && n > 0 && (size_t)n < sizeof(t))
		snprintf(t + n, sizeof(t) - (size_t)n, " | filter: %s (%zu)", list->filter,
			 list->nrows);
	tui_put_title(l, t);
}

/* ---- the symbol list's rows ---- */

static void sym_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	tui_event_heads(m, l);
	/* the name after the bar of sym_row: the thread column's head aligned on it */
	int bar = l->cols - l->pos >= 50;
	int thread = m->d->threads && list_view(v)->l.zthread < 0;
	tui_put(l, bar ? (thread ? "               " : "              ") : "  ");
	tui_put_thread_head(m, l, thread);
	tui_put(l, "symbol");
}

static void sym_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	const tui_data *d = m->d;
	size_t sym = list_view(v)->l.rows[i];
	const struct tui_sym *s = &d->syms[sym];
	int hot = 0;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = tui_put_cell(m, l, e, s->cnt[e], s->cnt[d->nev + e], d->ev[e].samples,
				     d->ev[e].period);
		if (e == (size_t)tui_hot_event(m))
			hot = h;
	}
	if ((size_t)m->metric >= d->nev)
		tui_put_sym_ratio(m, l, sym, (size_t)m->metric - d->nev);
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
		tui_span(l, col, hot);
		tui_put(l, "]");
	}
	tui_put_sym_name(m, l, s, hot, list_view(v)->l.zthread < 0);
}

static const int list_status[] = { TUI_KEY_ENTER, '/', 'x', 'o', 'R', 'i', 'h', 'q', 0 };

const struct tui_view_ops tui_symbols_ops = {
	.kind = TUI_VIEW_SYMBOLS,
	.name = "Symbols",
	.bit = TUI_V_SYMBOLS,
	.flags = TUI_VF_CURSOR,
	.status = list_status,
	.free = list_free,
	.rows = list_rows,
	.title = tui_list_title,
	.header = sym_header,
	.row = sym_row,
	.metric = tui_list_metric,
	.symbol = list_symbol,
	.list = list_list,
};

/* ---- the ratio list's rows ---- */

/* The ratio list's columns: those that fit beside 40 columns of names (at least one), the
 * sorting ratio first, then the others from the scroll position. */
static void visible_ratios(tui_model *m, const struct tui_view *v)
{
	struct list_view *lv = list_view(v);
	size_t n = NRAT(m);
	if (!lv->rvis && !(lv->rvis = calloc(n + 1, sizeof(*lv->rvis)))) {
		lv->nrvis = 0;
		return;
	}
	size_t fit = m->cols - 40 >= 14 ? (size_t)(m->cols - 40) / 14 : 1;
	size_t sort = n, k = 0;
	int col = lv->l.sort_col;
	if (col >= (int)NEV(m) && (size_t)col < NEV(m) + n)
		sort = (size_t)col - NEV(m);
	lv->nrvis = 0;
	if (sort < n)
		lv->rvis[lv->nrvis++] = sort;
	for (size_t r = 0; r < n && lv->nrvis < fit; r++)
		if (r != sort && k++ >= m->ratscroll)
			lv->rvis[lv->nrvis++] = r;
}

unsigned tui_ratios_scroll(tui_model *m, struct tui_view *v, int key)
{
	struct list_view *lv = list_view(v);
	visible_ratios(m, v);
	/* the scrolled ones: all but the sorting ratio when one sorts */
	int col = lv->l.sort_col;
	size_t sorted = col >= (int)NEV(m) && (size_t)col < NEV(m) + NRAT(m);
	size_t others = NRAT(m) - sorted, shown = lv->nrvis - sorted;
	if (key == '[' && m->ratscroll > 0)
		m->ratscroll--;
	else if (key == ']' && m->ratscroll + shown < others)
		m->ratscroll++;
	visible_ratios(m, v);
	tui_set_msg(m, "ratio columns %zu-%zu of %zu ([ ] scroll)", m->ratscroll + 1,
		    m->ratscroll + shown > others ? others : m->ratscroll + shown, others);
	return TUI_HANDLED | TUI_REDRAW;
}

static void ratio_header(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	const struct list_view *lv = list_view(v);
	visible_ratios(m, v);
	for (size_t k = 0; k < lv->nrvis; k++)
		tui_putf(l, " %13.13s", m->d->ratios[lv->rvis[k]].name);
	tui_put(l, "  symbol");
}

static void ratio_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	const struct list_view *lv = list_view(v);
	size_t sym = lv->l.rows[i];
	visible_ratios(m, v);
	for (size_t k = 0; k < lv->nrvis; k++)
		tui_put_sym_ratio(m, l, sym, lv->rvis[k]);
	char sh[1024];
	tui_putf(l, "  %s", tui_short_name(m, m->d->syms[sym].name, l->cols - l->pos - 2, sh,
					     sizeof(sh)));
}

/* x in the ratio list goes to the next ratio, never to an event; next after the ratio the
 * list is sorted by (R opens it sorted by the first ratio while an event still colours: x
 * then goes to the second, not to the first again). */
static int ratios_next_metric(const tui_model *m, const struct tui_view *v, int dir)
{
	int nev = (int)NEV(m), nr = (int)NRAT(m), cur = m->metric;
	int col = list_view(v)->l.sort_col;
	if (!nr)
		return (m->metric + dir + nev) % nev;
	if (col >= nev && col < nev + nr)
		cur = col;
	int r = cur >= nev ? cur - nev : (dir > 0 ? -1 : 0);
	r = (r + dir + nr) % nr;
	return nev + r;
}

const struct tui_view_ops tui_ratios_ops = {
	.kind = TUI_VIEW_RATIOS,
	.name = "Ratios",
	.bit = TUI_V_RATIOS,
	.flags = TUI_VF_CURSOR,
	.status = list_status,
	.free = list_free,
	.rows = list_rows,
	.title = tui_list_title,
	.header = ratio_header,
	.row = ratio_row,
	.metric = tui_list_metric,
	.next_metric = ratios_next_metric,
	.symbol = list_symbol,
	.list = list_list,
};
