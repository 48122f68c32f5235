/* tui_data.c - the data the browser shows: symbols with per-event counts, and annotations
 * of single functions. Filled by an adapter; the model only reads it. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

tui_data *tui_data_new(void)
{
	tui_data *d = calloc(1, sizeof(tui_data));
	if (d)
		d->chain_pct = 0.5;
	return d;
}

void tui_data_free(tui_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nev; i++)
		free(d->ev[i].name);
	for (size_t i = 0; i < d->nsyms; i++) {
		free(d->syms[i].name);
		free(d->syms[i].dso);
		free(d->syms[i].cnt);
		free(d->syms[i].ch);
		free(d->syms[i].comm);
	}
	free(d->syms);
	for (size_t i = 0; i < d->ninfo; i++) {
		free(d->info[i].key);
		free(d->info[i].value);
	}
	free(d->info);
	for (size_t i = 0; i < d->nratios; i++) {
		free(d->ratios[i].name);
		free(d->ratios[i].desc);
	}
	free(d->ratios);
	free(d->sim);
	free(d->sim_note);
	for (size_t i = 0; i < d->ndkeys; i++) {
		free(d->dkeys[i]);
		tui_dtable_free(d->dtab[i]);
	}
	free(d->no_dkeys);
	tui_ttable_free(d->table);
	free(d);
}

int tui_data_add_info(tui_data *d, const char *key, const char *value)
{
	if (MP_GROW(d->info, d->capinfo, d->ninfo + 1))
		return -ENOMEM;
	char *k = mp_strdup(key), *v = mp_strdup(value ? value : "");
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	d->info[d->ninfo].key = k;
	d->info[d->ninfo].value = v;
	d->ninfo++;
	return 0;
}

int tui_data_add_event(tui_data *d, const char *name, uint64_t samples, uint64_t period,
		       uint64_t lost, int has_count, uint64_t count)
{
	if (d->nsyms)
		return -EINVAL;
	if (d->nev >= TUI_MAX_EVENTS)
		return -E2BIG;
	struct tui_event *e = &d->ev[d->nev];
	e->name = mp_strdup(name ? name : "?");
	if (!e->name)
		return -ENOMEM;
	e->samples = samples;
	e->period = period;
	e->lost = lost;
	e->has_count = has_count;
	e->count = count;
	e->freq = -1;
	return (int)d->nev++;
}

int tui_data_set_event_sampling(tui_data *d, size_t ev, int freq, uint64_t value)
{
	if (ev >= d->nev)
		return -EINVAL;
	d->ev[ev].freq = freq != 0;
	d->ev[ev].rate = value;
	return 0;
}

long tui_data_add_sym(tui_data *d, const char *name, const char *dso, uint64_t addr)
{
	if (MP_GROW(d->syms, d->capsyms, d->nsyms + 1))
		return -ENOMEM;
	struct tui_sym *s = &d->syms[d->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = mp_strdup(name ? name : "[unknown]");
	s->dso = mp_strdup(dso ? dso : "");
	s->cnt = calloc(2 * (d->nev ? d->nev : 1), sizeof(uint64_t));
	if (!s->name || !s->dso || !s->cnt) {
		free(s->name);
		free(s->dso);
		free(s->cnt);
		return -ENOMEM;
	}
	s->addr = addr;
	s->pid = -1;
	return (long)d->nsyms++;
}

int tui_data_set_sym_thread(tui_data *d, size_t sym, const char *comm, long pid)
{
	if (sym >= d->nsyms || !comm)
		return -EINVAL;
	char *c = mp_strdup(comm);
	if (!c)
		return -ENOMEM;
	free(d->syms[sym].comm);
	d->syms[sym].comm = c;
	d->syms[sym].pid = pid < 0 ? -1 : pid;
	if (pid >= 0 || !d->threads)
		d->threads = pid >= 0 ? 2 : 1;
	return 0;
}

int tui_data_set_sym_count(tui_data *d, size_t sym, size_t ev, uint64_t samples,
			   uint64_t period)
{
	if (sym >= d->nsyms || ev >= d->nev)
		return -EINVAL;
	d->syms[sym].cnt[ev] = samples;
	d->syms[sym].cnt[d->nev + ev] = period;
	return 0;
}

int tui_data_add_ratio(tui_data *d, const char *name, const char *desc, double threshold)
{
	if (MP_GROW(d->ratios, d->capratios, d->nratios + 1))
		return -ENOMEM;
	struct tui_ratio *r = &d->ratios[d->nratios];
	memset(r, 0, sizeof(*r));
	r->name = mp_strdup(name ? name : "?");
	r->desc = mp_strdup(desc ? desc : "");
	if (!r->name || !r->desc) {
		free(r->name);
		free(r->desc);
		return -ENOMEM;
	}
	r->threshold = threshold;
	return (int)d->nratios++;
}

int tui_data_set_program_ratio(tui_data *d, size_t ratio, const struct tui_ratio_val *v)
{
	if (ratio >= d->nratios)
		return -EINVAL;
	d->ratios[ratio].prog = *v;
	d->ratios[ratio].prog_set = 1;
	return 0;
}

int tui_data_set_ratio_events(tui_data *d, size_t ratio, const size_t *ev, size_t n)
{
	if (ratio >= d->nratios)
		return -EINVAL;
	struct tui_ratio *r = &d->ratios[ratio];
	r->nevs = 0;
	for (size_t i = 0; i < n && r->nevs < TUI_RATIO_EVENTS; i++) {
		if (ev[i] >= d->nev)
			return -EINVAL;
		size_t k;
		for (k = 0; k < r->nevs && r->evs[k] != ev[i]; k++)
			;
		if (k == r->nevs)
			r->evs[r->nevs++] = ev[i];
	}
	return 0;
}

void tui_data_set_ratio_fn(tui_data *d, tui_ratio_eval_fn fn, void *ctx)
{
	d->rfn = fn;
	d->rctx = ctx;
}

int tui_data_set_simulated(tui_data *d, const char *by, const char *note)
{
	char *b = mp_strdup(by ? by : "simulator"), *n = mp_strdup(note ? note : "");
	if (!b || !n) {
		free(b);
		free(n);
		return -ENOMEM;
	}
	free(d->sim);
	free(d->sim_note);
	d->sim = b;
	d->sim_note = n;
	return 0;
}

const char *tui_data_simulated(const tui_data *d)
{
	return d->sim;
}

void tui_data_set_annotate_fn(tui_data *d, tui_annotate_fn fn, void *ctx)
{
	d->afn = fn;
	d->actx = ctx;
}

size_t tui_data_nevents(const tui_data *d)
{
	return d->nev;
}

size_t tui_data_nsyms(const tui_data *d)
{
	return d->nsyms;
}

size_t tui_data_nratios(const tui_data *d)
{
	return d->nratios;
}

/* ---- annotations ---- */

tui_annot *tui_annot_new(size_t nevents, const char *name, const char *file)
{
	tui_annot *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->nev = nevents ? nevents : 1;
	a->name = mp_strdup(name ? name : "");
	a->file = mp_strdup(file ? file : "");
	if (!a->name || !a->file) {
		tui_annot_free(a);
		return NULL;
	}
	return a;
}

void tui_annot_free(tui_annot *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nlines; i++) {
		free(a->lines[i].file);
		free(a->lines[i].text);
		free(a->lines[i].note);
		free(a->lines[i].cnt);
	}
	for (size_t i = 0; i < a->ninsns; i++) {
		free(a->insns[i].text);
		free(a->insns[i].tname);
		free(a->insns[i].cnt);
	}
	free(a->lines);
	free(a->insns);
	free(a->name);
	free(a->file);
	free(a);
}

long tui_annot_add_line(tui_annot *a, unsigned lineno, const char *file, const char *text)
{
	if (MP_GROW(a->lines, a->caplines, a->nlines + 1))
		return -ENOMEM;
	struct tui_aline *l = &a->lines[a->nlines];
	memset(l, 0, sizeof(*l));
	l->lineno = lineno;
	l->file = file ? mp_strdup(file) : NULL;
	l->text = mp_strdup(text ? text : "");
	l->cnt = calloc(2 * a->nev, sizeof(uint64_t));
	if ((file && !l->file) || !l->text || !l->cnt) {
		free(l->file);
		free(l->text);
		free(l->cnt);
		return -ENOMEM;
	}
	return (long)a->nlines++;
}

int tui_annot_set_line_count(tui_annot *a, size_t line, size_t ev, uint64_t samples,
			     uint64_t period)
{
	if (line >= a->nlines || ev >= a->nev)
		return -EINVAL;
	a->lines[line].cnt[ev] = samples;
	a->lines[line].cnt[a->nev + ev] = period;
	return 0;
}

int tui_annot_set_line_hot(tui_annot *a, size_t line, int hot)
{
	if (line >= a->nlines)
		return -EINVAL;
	a->lines[line].hot = hot != 0;
	return 0;
}

int tui_annot_set_line_note(tui_annot *a, size_t line, const char *note, int warn)
{
	char *n;
	if (line >= a->nlines || !note)
		return -EINVAL;
	if (!(n = strdup(note)))
		return -ENOMEM;
	free(a->lines[line].note);
	a->lines[line].note = n;
	a->lines[line].note_warn = warn != 0;
	return 0;
}

long tui_annot_add_insn(tui_annot *a, size_t line, uint64_t addr, const char *text,
			enum tui_insn_kind kind, uint64_t target, const char *target_name)
{
	if (line >= a->nlines)
		return -EINVAL;
	if (MP_GROW(a->insns, a->capinsns, a->ninsns + 1))
		return -ENOMEM;
	struct tui_ainsn *in = &a->insns[a->ninsns];
	memset(in, 0, sizeof(*in));
	in->line = line;
	in->addr = addr;
	in->kind = kind;
	in->target = target;
	in->text = mp_strdup(text ? text : "");
	in->tname = target_name ? mp_strdup(target_name) : NULL;
	in->cnt = calloc(2 * a->nev, sizeof(uint64_t));
	if (!in->text || (target_name && !in->tname) || !in->cnt) {
		free(in->text);
		free(in->tname);
		free(in->cnt);
		return -ENOMEM;
	}
	return (long)a->ninsns++;
}

int tui_annot_set_insn_count(tui_annot *a, size_t insn, size_t ev, uint64_t samples,
			     uint64_t period)
{
	if (insn >= a->ninsns || ev >= a->nev)
		return -EINVAL;
	a->insns[insn].cnt[ev] = samples;
	a->insns[insn].cnt[a->nev + ev] = period;
	return 0;
}

int tui_data_set_diff(tui_data *d)
{
	if (!d->nev || d->nev % 2)
		return -EINVAL;
	d->diff = 1;
	return 0;
}

/* ---- call chains ---- */

int tui_data_set_sym_children(tui_data *d, size_t sym, size_t ev, uint64_t samples,
			      uint64_t period)
{
	if (sym >= d->nsyms || ev >= d->nev)
		return -EINVAL;
	struct tui_sym *s = &d->syms[sym];
	if (!s->ch && !(s->ch = calloc(2 * d->nev, sizeof(uint64_t))))
		return -ENOMEM;
	s->ch[ev] = samples;
	s->ch[d->nev + ev] = period;
	d->children = 1;
	return 0;
}

int tui_data_has_children(const tui_data *d)
{
	return d->children;
}

void tui_data_set_chain_fn(tui_data *d, tui_chain_fn fn, void *ctx)
{
	d->cfn = fn;
	d->cctx = ctx;
}

void tui_data_set_chain_limit(tui_data *d, double pct)
{
	d->chain_pct = pct >= 0 ? pct : 0;
}

tui_chain *tui_chain_new(size_t nevents)
{
	tui_chain *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nev = nevents ? nevents : 1;
	c->first = c->last = -1;
	return c;
}

void tui_chain_free(tui_chain *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nn; i++)
		free(c->n[i].cnt);
	free(c->n);
	free(c);
}

long tui_chain_add(tui_chain *c, long parent, size_t sym)
{
	if (parent < -1 || parent >= (long)c->nn)
		return -EINVAL;
	if (MP_GROW(c->n, c->cap, c->nn + 1))
		return -ENOMEM;
	struct tui_cnode *n = &c->n[c->nn];
	if (!(n->cnt = calloc(4 * c->nev, sizeof(uint64_t))))
		return -ENOMEM;
	long i = (long)c->nn++;
	n->sym = sym;
	n->parent = parent;
	n->first = n->last = n->next = -1;
	long *first = parent < 0 ? &c->first : &c->n[parent].first;
	long *last = parent < 0 ? &c->last : &c->n[parent].last;
	if (*last >= 0)
		c->n[*last].next = i;
	else
		*first = i;
	*last = i;
	return i;
}

int tui_chain_set_count(tui_chain *c, size_t node, size_t ev, uint64_t samples,
			uint64_t period, uint64_t self_samples, uint64_t self_period)
{
	if (node >= c->nn || ev >= c->nev)
		return -EINVAL;
	uint64_t *v = c->n[node].cnt;
	v[ev] = samples;
	v[c->nev + ev] = period;
	v[2 * c->nev + ev] = self_samples;
	v[3 * c->nev + ev] = self_period;
	return 0;
}

size_t tui_chain_nnodes(const tui_chain *c)
{
	return c->nn;
}

/* ---- data addresses ---- */

int tui_data_set_dkeys(tui_data *d, const char *const *keys, size_t n, tui_dtable_fn fn,
		       void *ctx)
{
	if (n > TUI_MAX_DKEYS || !fn)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(d->dkeys[d->ndkeys] = mp_strdup(keys[i])))
			return -ENOMEM;
		else
			d->ndkeys++;
	d->dfn = fn;
	d->dctx = ctx;
	return 0;
}

const tui_dtable *tui_data_dtable(tui_data *d, size_t key, struct mp_err *err)
{
	if (key >= d->ndkeys || !d->dfn) {
		mp_err_set(err, -EINVAL, "no data key %zu", key);
		return NULL;
	}
	if (!d->dtab[key]) {
		int rc = d->dfn(d->dctx, key, &d->dtab[key], err);
		if (rc || !d->dtab[key]) {
			tui_dtable_free(d->dtab[key]);
			d->dtab[key] = NULL;
			if (!err->msg[0])
				mp_err_set(err, rc ? rc : -EINVAL, "the data table of %s failed",
					   d->dkeys[key]);
			return NULL;
		}
	}
	return d->dtab[key];
}

int tui_data_set_no_dkeys(tui_data *d, const char *why)
{
	free(d->no_dkeys);
	d->no_dkeys = mp_strdup(why);
	return d->no_dkeys ? 0 : -ENOMEM;
}

tui_dtable *tui_dtable_new(size_t nevents, const char *title)
{
	tui_dtable *t = calloc(1, sizeof(*t));
	if (!t || nevents > TUI_MAX_EVENTS || !(t->title = mp_strdup(title ? title : ""))) {
		free(t);
		return NULL;
	}
	t->nev = nevents;
	return t;
}

void tui_dtable_free(tui_dtable *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		free(t->rows[i].name);
		free(t->rows[i].cnt);
	}
	for (size_t i = 0; i < t->ncodes; i++) {
		free(t->codes[i].sym);
		free(t->codes[i].dso);
		free(t->codes[i].line);
		free(t->codes[i].cnt);
	}
	free(t->rows);
	free(t->codes);
	free(t->title);
	free(t);
}

long tui_dtable_add_row(tui_dtable *t, const char *name)
{
	if (MP_GROW(t->rows, t->caprows, t->nrows + 1))
		return -ENOMEM;
	struct tui_drow *r = &t->rows[t->nrows];
	r->name = mp_strdup(name ? name : "");
	r->cnt = calloc(TUI_DCNT * t->nev + 1, sizeof(*r->cnt));
	if (!r->name || !r->cnt) {
		free(r->name);
		free(r->cnt);
		return -ENOMEM;
	}
	return (long)t->nrows++;
}

long tui_dtable_add_code(tui_dtable *t, size_t row, const char *sym, const char *dso,
			 const char *line)
{
	if (row >= t->nrows)
		return -EINVAL;
	if (MP_GROW(t->codes, t->capcodes, t->ncodes + 1))
		return -ENOMEM;
	struct tui_dcode *c = &t->codes[t->ncodes];
	memset(c, 0, sizeof(*c));
	c->row = row;
	c->sym = mp_strdup(sym ? sym : "[unknown]");
	c->dso = dso ? mp_strdup(dso) : NULL;
	c->line = line ? mp_strdup(line) : NULL;
	c->cnt = calloc(TUI_DCNT * t->nev + 1, sizeof(*c->cnt));
	if (!c->sym || (dso && !c->dso) || (line && !c->line) || !c->cnt) {
		free(c->sym);
		free(c->dso);
		free(c->line);
		free(c->cnt);
		return -ENOMEM;
	}
	return (long)t->ncodes++;
}

static void dcnt_add(uint64_t *cnt, size_t nev, size_t ev, uint64_t samples, uint64_t cost,
		     uint64_t weight)
{
	cnt[ev] += samples;
	cnt[nev + ev] += cost;
	cnt[2 * nev + ev] += weight;
}

int tui_dtable_add_count(tui_dtable *t, size_t row, size_t ev, uint64_t samples, uint64_t cost,
			 uint64_t weight)
{
	if (row >= t->nrows || ev >= t->nev)
		return -EINVAL;
	dcnt_add(t->rows[row].cnt, t->nev, ev, samples, cost, weight);
	dcnt_add(t->tot, t->nev, ev, samples, cost, weight);
	return 0;
}

int tui_dtable_add_code_count(tui_dtable *t, size_t code, size_t ev, uint64_t samples,
			      uint64_t cost, uint64_t weight)
{
	if (code >= t->ncodes || ev >= t->nev)
		return -EINVAL;
	dcnt_add(t->codes[code].cnt, t->nev, ev, samples, cost, weight);
	return tui_dtable_add_count(t, t->codes[code].row, ev, samples, cost, weight);
}

/* ---- tables of text ---- */

tui_ttable *tui_ttable_new(const char *title, const char *header)
{
	tui_ttable *t = calloc(1, sizeof(*t));
	if (!t || !(t->title = mp_strdup(title)) || !(t->header = mp_strdup(header))) {
		tui_ttable_free(t);
		return NULL;
	}
	return t;
}

void tui_ttable_free(tui_ttable *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		free(t->rows[i].text);
		tui_ttable_free(t->rows[i].sub);
	}
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->rows);
	free(t->notes);
	free(t->title);
	free(t->header);
	free(t);
}

long tui_ttable_add_row(tui_ttable *t, const char *text, double pct)
{
	char *s = mp_strdup(text);
	if (!s || MP_GROW(t->rows, t->caprows, t->nrows + 1)) {
		free(s);
		return -ENOMEM;
	}
	t->rows[t->nrows] = (struct tui_trow){ s, pct, NULL };
	return (long)t->nrows++;
}

int tui_ttable_set_sub(tui_ttable *t, size_t row, tui_ttable *sub)
{
	if (row >= t->nrows || t->rows[row].sub) {
		tui_ttable_free(sub);
		return -EINVAL;
	}
	t->rows[row].sub = sub;
	return 0;
}

int tui_ttable_add_note(tui_ttable *t, const char *text)
{
	char *s = mp_strdup(text);
	if (!s || MP_GROW(t->notes, t->capnotes, t->nnotes + 1)) {
		free(s);
		return -ENOMEM;
	}
	t->notes[t->nnotes++] = s;
	return 0;
}

int tui_data_set_table(tui_data *d, tui_ttable *t)
{
	if (d->table) {
		tui_ttable_free(t);
		return -EINVAL;
	}
	d->table = t;
	return 0;
}
