/* tui_annview.c - the annotate view: the source lines of one function with their counts,
 * the assembly under them on demand, hot-line jumps, search, calls and jumps followed; its
 * rows rendered here. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_annview.h"

/* A row: a source line or an instruction (index in the annotation). */
enum { IT_LINE, IT_INSN };
struct item {
	int kind;
	size_t idx;
};

struct annot_view {
	struct tui_view v;
	tui_annot *an;
	long sym; /* index in data, -1 when the symbol is not in the list */
	char *name, *dso;
	struct item *items;
	size_t nitems;
	unsigned char *open; /* per line: assembly shown */
	long *first, *next;  /* per line first insn; per insn next insn of the same line */
	int asm_all, hide_src;
	size_t hscroll; /* source and assembly text shown from this column ({ and }) */
	uint64_t ltot[2 * TUI_MAX_EVENTS], itot[2 * TUI_MAX_EVENTS];
	struct tui_ratio_val *lrv; /* nlines * nratios */
	size_t *hot;               /* hot lines (or instructions), hottest first */
	size_t nhot;
	long hot_pos;
};

/* The actions are bound to annotate views only (TUI_V_ANNOTATE). */
static struct annot_view *annot_view(const struct tui_view *v)
{
	return (struct annot_view *)v;
}

static uint64_t item_val(const struct annot_view *v, const struct item *it, size_t ev,
			 int period)
{
	const tui_annot *a = v->an;
	const uint64_t *c = it->kind == IT_LINE ? a->lines[it->idx].cnt : a->insns[it->idx].cnt;
	return c[(period ? a->nev : 0) + ev];
}

static int annot_build_items(struct annot_view *v)
{
	const tui_annot *a = v->an;
	size_t n = 0;
	uint64_t keep_addr = 0;
	long keep_line = -1;

	if (v->nitems && v->v.cur < v->nitems) {
		struct item *c = &v->items[v->v.cur];
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
	v->v.cur = 0;
	/* keep the cursor on the same instruction, else on the same source line */
	for (size_t i = 0; i < n && (keep_addr || keep_line >= 0); i++) {
		struct item *it = &v->items[i];
		if (keep_addr && it->kind == IT_INSN && a->insns[it->idx].addr == keep_addr) {
			v->v.cur = i;
			break;
		}
		if (it->kind == IT_LINE && (long)it->idx == keep_line)
			v->v.cur = i;
		if (it->kind == IT_INSN && v->hide_src && !keep_addr &&
		    (long)a->insns[it->idx].line == keep_line) {
			v->v.cur = i;
			break;
		}
	}
	return 0;
}

struct hot_ctx {
	const tui_model *m;
	const struct annot_view *v;
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
		int ev = tui_hot_event(m);
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

/* Hot entries: the hot source lines (or, with the source hidden, instructions that have
 * samples), hottest first by the colouring event, or by the colouring ratio. */
static int annot_build_hot(const tui_model *m, struct annot_view *v)
{
	const tui_annot *a = v->an;
	int kind = v->hide_src ? IT_INSN : IT_LINE;
	size_t n = kind == IT_LINE ? a->nlines : a->ninsns, k = 0;
	int by_ratio = (size_t)m->metric >= NEV(m) && kind == IT_LINE && v->lrv;
	int ev = tui_hot_event(m);

	free(v->hot);
	v->hot = malloc((n + 1) * sizeof(size_t));
	v->nhot = 0;
	v->hot_pos = -1;
	if (!v->hot)
		return -ENOMEM;
	/* the lines marked hot (the hottest, those above the hot threshold: '*'), as the marks
	 * say; every line with samples only when none is marked */
	int any_hot = 0;
	for (size_t i = 0; kind == IT_LINE && !by_ratio && i < n; i++)
		any_hot |= a->lines[i].hot;
	for (size_t i = 0; i < n; i++) {
		struct item it = { kind, i };
		if (by_ratio) {
			const struct tui_ratio_val *rv = &v->lrv[i * NRAT(m) + (size_t)m->metric - NEV(m)];
			if (!(rv->flags & TUI_RV_VALID))
				continue;
		} else if (!item_val(v, &it, (size_t)ev, 1) && !item_val(v, &it, (size_t)ev, 0)) {
			continue;
		} else if (any_hot && !a->lines[i].hot) {
			continue; /* below the hot threshold */
		}
		v->hot[k++] = i;
	}
	struct hot_ctx c = { m, v, kind };
	qsort_r(v->hot, k, sizeof(size_t), cmp_hot, &c);
	v->nhot = k;
	return 0;
}

/* Put the cursor on hot entry pos (opening the line's assembly when needed). */
static void goto_hot(tui_model *m, struct annot_view *v, long pos)
{
	int kind = v->hide_src ? IT_INSN : IT_LINE;
	size_t idx = v->hot[pos];
	v->hot_pos = pos;
	for (size_t i = 0; i < v->nitems; i++)
		if (v->items[i].kind == kind && v->items[i].idx == idx) {
			v->v.cur = i;
			break;
		}
	tui_center_cursor(m, &v->v);
	const tui_annot *a = v->an;
	if (kind == IT_LINE)
		tui_set_msg(m, "hot %ld/%zu: line %u", pos + 1, v->nhot, a->lines[idx].lineno);
	else
		tui_set_msg(m, "hot %ld/%zu: %" PRIx64, pos + 1, v->nhot, a->insns[idx].addr);
}

static void annot_line_ratios(tui_model *m, struct annot_view *v)
{
	tui_data *d = m->d;
	const tui_annot *a = v->an;
	if (!d->nratios || !d->rfn)
		return;
	v->lrv = calloc(a->nlines * d->nratios + 1, sizeof(*v->lrv));
	if (!v->lrv)
		return;
	for (size_t l = 0; l < a->nlines; l++)
		tui_eval_ratios(d, a->lines[l].cnt, a->lines[l].cnt + a->nev,
				&v->lrv[l * d->nratios]);
}

static void annot_free(struct tui_view *tv)
{
	struct annot_view *v = annot_view(tv);
	tui_annot_free(v->an);
	free(v->name);
	free(v->dso);
	free(v->items);
	free(v->open);
	free(v->first);
	free(v->next);
	free(v->lrv);
	free(v->hot);
	free(v);
}

/* The view of annotation a (which it takes) before its rows are made, NULL when out of
 * memory (a freed). */
static struct annot_view *annot_new(tui_annot *a, long sym, const struct tui_sym_ref *r)
{
	struct annot_view *v = calloc(1, sizeof(*v));
	long *last = malloc((a->nlines + 1) * sizeof(long));
	if (v) {
		v->v.ops = &tui_annotate_ops;
		v->an = a;
		v->sym = sym;
		v->name = mp_strdup(r->name);
		v->dso = mp_strdup(r->dso ? r->dso : "");
		v->open = calloc(a->nlines + 1, 1);
		v->first = malloc((a->nlines + 1) * sizeof(long));
		v->next = malloc((a->ninsns + 1) * sizeof(long));
	}
	if (!v || !last || !v->name || !v->dso || !v->open || !v->first || !v->next) {
		free(last);
		if (v)
			annot_free(&v->v);
		else
			tui_annot_free(a);
		return NULL;
	}
	for (size_t l = 0; l < a->nlines; l++)
		v->first[l] = last[l] = -1;
	for (size_t i = 0; i < a->ninsns; i++) {
		size_t l = a->insns[i].line;
		v->next[i] = -1;
		if (last[l] < 0)
			v->first[l] = (long)i;
		else
			v->next[last[l]] = (long)i;
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
	return v;
}

int tui_open_annotate(tui_model *m, long sym, const struct tui_sym_ref *ref, int replace)
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
		tui_set_msg(m, "%s: no annotation available", r.name);
		return -ENOTSUP;
	}
	int rc = d->afn(d->actx, &r, &a, &err);
	if (rc || !a) {
		tui_set_msg(m, "%s", err.msg[0] ? err.msg : "annotation failed");
		return rc ? rc : -EINVAL;
	}
	if (a->nev != d->nev) {
		tui_set_msg(m, "%s: annotation has %zu events, the data %zu", r.name, a->nev, d->nev);
		tui_annot_free(a);
		return -EINVAL;
	}
	struct annot_view *v = annot_new(a, sym, &r);
	if (v) {
		annot_line_ratios(m, v);
		if (annot_build_items(v) || annot_build_hot(m, v)) {
			annot_free(&v->v);
			v = NULL;
		}
	}
	if (!v || (!replace && tui_push_view(m, &v->v))) {
		tui_set_msg(m, "out of memory");
		return -ENOMEM;
	}
	if (replace)
		tui_replace_top(m, &v->v);
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

/* ENTER on a call: annotate the callee. */
static unsigned follow_call(tui_model *m, struct annot_view *v, const struct tui_ainsn *in)
{
	if (!in->target && !in->tname) {
		tui_set_msg(m, "indirect call: the callee is not known");
		return TUI_HANDLED | TUI_REDRAW;
	}
	long s = -1;
	size_t tl = in->tname ? strlen(in->tname) : 0;
	if (tl > 4 && !strcmp(in->tname + tl - 4, "@plt")) {
		/* a PLT stub: on to the function it jumps to, where that has samples */
		char *fn = mp_strdup(in->tname);
		if (!fn)
			return TUI_HANDLED;
		fn[tl - 4] = 0;
		s = find_sym(m, fn, 0);
		free(fn);
		if (s >= 0) {
			if (tui_open_annotate(m, s, NULL, 0))
				return TUI_HANDLED | TUI_REDRAW;
			tui_set_msg(m, "%s: followed to %s (%s)", in->tname, m->d->syms[s].name,
				    m->d->syms[s].dso ? m->d->syms[s].dso : "?");
			return TUI_HANDLED | TUI_RESCAN;
		}
	}
	s = find_sym(m, in->tname, in->target);
	if (s < 0 && !in->tname) {
		tui_set_msg(m, "the callee at %" PRIx64 " has no samples in this recording",
			    in->target);
		return TUI_HANDLED | TUI_REDRAW;
	}
	struct tui_sym_ref ref = { in->tname ? in->tname : "?", v->dso, in->target };
	char *keep = mp_strdup(ref.name);
	if (!keep)
		return TUI_HANDLED;
	ref.name = keep;
	tui_open_annotate(m, s, &ref, 0);
	free(keep);
	return TUI_HANDLED | TUI_RESCAN;
}

/* ENTER on a jump: the cursor to its target. */
static unsigned follow_jump(tui_model *m, struct annot_view *v, const struct tui_ainsn *in)
{
	const tui_annot *a = v->an;
	size_t t;
	for (t = 0; t < a->ninsns; t++)
		if (a->insns[t].addr == in->target)
			break;
	if (!in->target || t == a->ninsns) {
		tui_set_msg(m, "jump target %" PRIx64 " is outside %s", in->target, v->name);
		return TUI_HANDLED | TUI_REDRAW;
	}
	if (!v->hide_src && !v->asm_all && !v->open[a->insns[t].line]) {
		v->open[a->insns[t].line] = 1;
		annot_build_items(v);
	}
	for (size_t i = 0; i < v->nitems; i++)
		if (v->items[i].kind == IT_INSN && v->items[i].idx == t) {
			v->v.cur = i;
			break;
		}
	tui_center_cursor(m, &v->v);
	tui_set_msg(m, "jumped to %" PRIx64, in->target);
	return TUI_HANDLED | TUI_RESCAN;
}

/* Enter on an annotate row. */
unsigned tui_annot_follow(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct annot_view *v = annot_view(tv);
	if (!v->nitems)
		return 0;
	struct item *it = &v->items[v->v.cur];
	tui_annot *a = v->an;
	if (it->kind == IT_LINE) {
		if (v->first[it->idx] < 0) {
			tui_set_msg(m, "line %u has no instructions", a->lines[it->idx].lineno);
			return TUI_HANDLED | TUI_REDRAW;
		}
		v->open[it->idx] = !v->open[it->idx];
		annot_build_items(v);
		return TUI_HANDLED | TUI_RESCAN;
	}
	const struct tui_ainsn *in = &a->insns[it->idx];
	if (in->kind == TUI_INSN_CALL)
		return follow_call(m, v, in);
	if (in->kind == TUI_INSN_JUMP)
		return follow_jump(m, v, in);
	tui_set_msg(m, "not a call or a jump");
	return TUI_HANDLED | TUI_REDRAW;
}

static const char *item_text(const struct annot_view *v, const struct item *it)
{
	return it->kind == IT_LINE ? v->an->lines[it->idx].text : v->an->insns[it->idx].text;
}

static unsigned annot_search(tui_model *m, struct annot_view *v, const char *s, int dir)
{
	size_t n = v->nitems, cur = v->v.cur;
	if (!s[0] || !n)
		return TUI_HANDLED | TUI_REDRAW;
	for (size_t k = 1; k <= n; k++) {
		size_t i = dir > 0 ? (cur + k) % n : (cur + n - k % n) % n;
		const struct item *it = &v->items[i];
		const char *callee = it->kind == IT_INSN ? v->an->insns[it->idx].tname : NULL;
		if (strstr(item_text(v, it), s) || (callee && strstr(callee, s))) {
			int wrapped = dir > 0 ? i <= cur : i >= cur;
			v->v.cur = i;
			tui_center_cursor(m, &v->v);
			tui_set_msg(m, "%s'%s'", wrapped ? "search wrapped: " : "", s);
			return TUI_HANDLED | TUI_REDRAW;
		}
	}
	tui_set_msg(m, "not found: '%s'", s);
	return TUI_HANDLED | TUI_REDRAW;
}

/* { and }: the source and assembly text 8 columns left / right, up to the longest. */
unsigned tui_annot_hscroll(tui_model *m, struct tui_view *tv, int key)
{
	struct annot_view *v = annot_view(tv);
	const tui_annot *a = v->an;
	size_t longest = 0;
	for (size_t i = 0; i < a->nlines; i++) {
		size_t w = 0;
		for (const char *c = a->lines[i].text; *c; c++)
			w = *c == '\t' ? (w / 4 + 1) * 4 : w + 1;
		if (w > longest)
			longest = w;
	}
	for (size_t i = 0; i < a->ninsns; i++)
		if (strlen(a->insns[i].text) > longest)
			longest = strlen(a->insns[i].text);
	if (key == '{') {
		if (!v->hscroll) {
			tui_set_msg(m, "at the start of the lines");
			return TUI_HANDLED | TUI_REDRAW;
		}
		v->hscroll = v->hscroll > 8 ? v->hscroll - 8 : 0;
	} else {
		if (v->hscroll + 8 >= longest) {
			tui_set_msg(m, "at the end of the longest line (%zu columns)", longest);
			return TUI_HANDLED | TUI_REDRAW;
		}
		v->hscroll += 8;
	}
	tui_set_msg(m, "text from column %zu of %zu", v->hscroll + 1, longest);
	return TUI_HANDLED | TUI_REDRAW;
}

/* < and >: annotate the previous / next symbol of the list it was opened from. */
unsigned tui_annot_neighbour(tui_model *m, struct tui_view *tv, int key)
{
	int dir = key == '<' ? -1 : 1;
	struct tui_view *lv = tui_parent_list(m);
	const struct tui_list *l = lv ? tui_view_list(lv) : NULL;
	size_t pos;
	if (!l || !l->nrows)
		return TUI_HANDLED;
	for (pos = 0; pos < l->nrows; pos++)
		if ((long)l->rows[pos] == annot_view(tv)->sym)
			break;
	if (pos == l->nrows)
		pos = tui_list_entry(lv);
	if (pos >= l->nrows)
		return TUI_HANDLED;
	if ((dir < 0 && pos == 0) || (dir > 0 && pos + 1 >= l->nrows)) {
		tui_set_msg(m, "%s symbol of the list", dir < 0 ? "first" : "last");
		return TUI_HANDLED | TUI_REDRAW;
	}
	pos = dir < 0 ? pos - 1 : pos + 1;
	/* in place of this view (tv is gone when it worked) */
	if (tui_open_annotate(m, (long)l->rows[pos], NULL, 1) == 0)
		tui_list_set_entry(m, lv, pos);
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned no_samples(tui_model *m, const struct annot_view *v)
{
	tui_set_msg(m, "no samples in %s", v->name);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_annot_hottest(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct annot_view *v = annot_view(tv);
	if (!v->nhot)
		return no_samples(m, v);
	goto_hot(m, v, 0);
	return TUI_HANDLED | TUI_REDRAW;
}

/* TAB, shift-TAB: next / previous hot entry, hottest first. */
unsigned tui_annot_next_hot(tui_model *m, struct tui_view *tv, int key)
{
	struct annot_view *v = annot_view(tv);
	if (!v->nhot)
		return no_samples(m, v);
	long n = (long)v->nhot, p = v->hot_pos;
	if (key == TUI_KEY_TAB)
		p = p < 0 ? 0 : (p + 1) % n;
	else
		p = p < 0 ? n - 1 : (p + n - 1) % n;
	goto_hot(m, v, p);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_annot_toggle_src(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct annot_view *v = annot_view(tv);
	if (!v->an->ninsns) {
		tui_set_msg(m, "%s has no instructions to show", v->name);
		return TUI_HANDLED | TUI_REDRAW;
	}
	v->hide_src = !v->hide_src;
	annot_build_items(v);
	annot_build_hot(m, v);
	tui_clamp_scroll(m, tv);
	tui_center_cursor(m, tv);
	tui_set_msg(m, "%s", v->hide_src ? "assembly only" : "source view");
	return TUI_HANDLED | TUI_RESCAN;
}

unsigned tui_annot_toggle_asm(tui_model *m, struct tui_view *tv, int key)
{
	(void)key;
	struct annot_view *v = annot_view(tv);
	v->asm_all = !v->asm_all;
	if (!v->asm_all)
		memset(v->open, 0, v->an->nlines);
	annot_build_items(v);
	tui_center_cursor(m, tv);
	return TUI_HANDLED | TUI_RESCAN;
}

/* '+': on a source line as ENTER; on an instruction, fold its line's assembly. */
unsigned tui_annot_plus(tui_model *m, struct tui_view *tv, int key)
{
	struct annot_view *v = annot_view(tv);
	if (v->nitems && v->items[tv->cur].kind == IT_INSN && !v->hide_src) {
		v->open[v->an->insns[v->items[tv->cur].idx].line] = 0;
		annot_build_items(v);
		return TUI_HANDLED | TUI_RESCAN;
	}
	if (v->nitems && v->items[tv->cur].kind == IT_INSN)
		return TUI_HANDLED;
	return tui_annot_follow(m, tv, key);
}

static unsigned search_done(tui_model *m, struct tui_view *v, const char *text, int kind)
{
	if (text[0])
		snprintf(m->last_search, sizeof(m->last_search), "%s", text);
	m->last_dir = kind == '?' ? -1 : 1;
	return annot_search(m, annot_view(v), m->last_search, m->last_dir);
}

unsigned tui_annot_search_prompt(tui_model *m, struct tui_view *v, int key)
{
	(void)v;
	tui_start_prompt(m, key, NULL, key == '?' ? "Search backwards" : "Search", search_done);
	return TUI_HANDLED | TUI_REDRAW;
}

unsigned tui_annot_search_next(tui_model *m, struct tui_view *v, int key)
{
	(void)key;
	if (!m->last_search[0]) {
		tui_set_msg(m, "no previous search");
		return TUI_HANDLED | TUI_REDRAW;
	}
	return annot_search(m, annot_view(v), m->last_search, m->last_dir);
}

/* ---- rows ---- */

static void annot_title(tui_model *m, struct tui_line *l, const struct tui_view *tv)
{
	const struct annot_view *v = annot_view(tv);
	const char *f = v->an->file;
	tui_put_sim(m, l);
	char sh[1024];
	tui_putf(l, " Annotate %s", tui_short_name(m, v->name, m->cols / 2, sh, sizeof(sh)));
	if (v->dso && v->dso[0])
		tui_putf(l, " (%s)", v->dso);
	if (f && f[0]) {
		const char *b = strrchr(f, '/');
		tui_putf(l, "  %s", b ? b + 1 : f);
	}
	tui_putf(l, " | %s, %s", tui_col_name(m, m->metric),
		 m->show == TUI_SHOW_PERCENT ? "percent of function" : tui_show_name(m->show));
}

static void annot_header(tui_model *m, struct tui_line *l, const struct tui_view *tv)
{
	const struct annot_view *v = annot_view(tv);
	tui_event_heads(m, l);
	tui_put(l, v->hide_src ? "     address  instruction" : "   line  source");
	if (v->hscroll)
		tui_putf(l, " (from column %zu: { })", v->hscroll + 1);
}

static void annot_row(tui_model *m, struct tui_line *l, const struct tui_view *tv, size_t i)
{
	const struct annot_view *v = annot_view(tv);
	const tui_data *d = m->d;
	const tui_annot *a = v->an;
	const struct item *it = &v->items[i];
	const uint64_t *tot = it->kind == IT_LINE ? v->ltot : v->itot;
	int hot = 0;
	for (size_t k = 0; k < m->nvis; k++) {
		size_t e = m->vis[k];
		int h = tui_put_cell(m, l, e, item_val(v, it, e, 0), item_val(v, it, e, 1), tot[e],
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
		hot = tui_ratio_heat(rv);
		tui_span(l, col, hot);
	}
	int col = l->pos;
	if (it->kind == IT_LINE) {
		const struct tui_aline *ln = &a->lines[it->idx];
		if (ln->lineno)
			tui_putf(l, " %c%5u  ", ln->hot ? '*' : ' ', ln->lineno);
		else
			tui_put(l, "      -  ");
		l->tab0 = l->pos;
		tui_put_from(l, ln->text[0] || ln->lineno ? ln->text : "(no source line)",
			     v->hscroll);
		if (ln->file && ln->file[0] && strcmp(ln->file, a->file))
			tui_putf(l, "   [%s]", ln->file);
		if (ln->note) {
			tui_span(l, col, hot);
			col = l->pos;
			tui_putf(l, "   <-- %s", ln->note);
			hot = ln->note_warn ? TUI_HEAT_MAX : 0;
		}
	} else {
		const struct tui_ainsn *in = &a->insns[it->idx];
		l->row->kind = TUI_ROW_ASM;
		tui_putf(l, "%s%10" PRIx64 ":  ", v->hide_src ? " " : "         ", in->addr);
		tui_put_from(l, in->text, v->hscroll);
		if (in->kind == TUI_INSN_CALL && in->tname && !strstr(in->text, in->tname))
			tui_putf(l, "  -> %s", in->tname);
	}
	tui_span(l, col, hot);
}

/* ---- the view ---- */

static size_t annot_rows(const struct tui_view *v)
{
	return annot_view(v)->nitems;
}

/* A new colouring metric ranks the hot lines by it. */
static void annot_metric(tui_model *m, struct tui_view *v)
{
	annot_build_hot(m, annot_view(v));
}

static const char *annot_symbol(const tui_model *m, const struct tui_view *v)
{
	(void)m;
	return annot_view(v)->name;
}

static void annot_position(const struct tui_view *tv, unsigned *line, uint64_t *addr)
{
	const struct annot_view *v = annot_view(tv);
	if (tv->cur >= v->nitems)
		return;
	const struct item *it = &v->items[tv->cur];
	size_t ln = it->kind == IT_LINE ? it->idx : v->an->insns[it->idx].line;
	*line = v->an->lines[ln].lineno;
	*addr = it->kind == IT_INSN ? v->an->insns[it->idx].addr : 0;
}

/* The event cells take a third of the width: two thirds for the source text. */
static int annot_count_room(const tui_model *m)
{
	return m->cols / 3;
}

static const int annot_status[] = { 'H', TUI_KEY_TAB, 's', 'a', TUI_KEY_ENTER, '/', '<', 'q', 0 };

const struct tui_view_ops tui_annotate_ops = {
	.kind = TUI_VIEW_ANNOTATE,
	.name = "Annotate",
	.bit = TUI_V_ANNOTATE,
	.flags = TUI_VF_CURSOR | TUI_VF_MOVE_CLEAR,
	.status = annot_status,
	.count_room = annot_count_room,
	.free = annot_free,
	.rows = annot_rows,
	.title = annot_title,
	.header = annot_header,
	.row = annot_row,
	.metric = annot_metric,
	.symbol = annot_symbol,
	.position = annot_position,
};
