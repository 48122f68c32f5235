/* mp_ratio_table.c - the ratio table of a recording: which ratios bind (with the simulated
 * fallback), their values at every place, the baseline's at the same place, the
 * numerator counts and the order of places. memprof ratios prints it; stat --ratios and
 * the TUI build it the same way. */
#include "mp_ratios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp_ratio_run_source(mp_ratio_run *r, enum mp_ratio_level level, const char **keys,
			size_t max, struct mp_ratio_source *src, struct mp_err *err)
{
	const struct mp_ratio_place *pl;
	size_t npl;

	memset(src, 0, sizeof(*src));
	src->ev = mp_ratio_run_events(r, &src->nev);
	src->nmodels = mp_ratio_run_models(r, keys, max);
	src->models = keys;
	src->simulated = mp_ratio_run_simulated(r) != NULL;
	if (mp_ratio_run_places(r, level, &pl, &npl, err))
		return err->code ? err->code : -EINVAL;
	src->places = pl;
	src->nplaces = npl;
	return 0;
}

static int cmp_double_desc(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Places in the order shown. With a sort ratio: by its value, highest first (places where
 * it is undefined last, those resting on fewer than the minimum count just before). Else by the count of the ratio's numerator (the misses, not the
 * accesses), highest first: the places that matter come first. Ties keep the
 * most-samples-first order. */
struct sort_ctx {
	const struct mp_ratio_result *by; /* sort ratio, or NULL */
	const struct mp_ratio_result *self;
};

static int cmp_perm(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int r = 0;
	if (c->by) {
		const struct mp_ratio_row *ra = &c->by->rows[a], *rb = &c->by->rows[b];
		int da = ra->v.defined, db = rb->v.defined;
		/* values resting on fewer than the minimum count come after the others */
		r = da != db ? db - da : ra->v.few != rb->v.few ? ra->v.few - rb->v.few
			 : da ? cmp_double_desc(ra->v.value, rb->v.value) : 0;
	} else {
		r = cmp_double_desc(c->self->rows[a].num, c->self->rows[b].num);
	}
	return r ? r : (a < b ? -1 : a > b);
}

void mp_ratio_samples_str(const struct mp_ratio_binding *b, const struct mp_ratio_cell *cells,
			  char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; cells && i < b->n && used < len; i++) {
		if (b->ev[i] < 0)
			continue; /* folded into another member's event */
		int w = snprintf(buf + used, len - used, "%s%llu", i ? "/" : "",
				 (unsigned long long)cells[b->ev[i]].samples);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* Numerator and denominator from the events' exact counts (program level of a file with
 * counts), like mp_ratio_numerator() on cells. */
static void prog_counts(const struct mp_ratio_binding *b, const struct mp_ratio_event *ev,
			double *num, double *den)
{
	struct mp_ratio_cell cells[64];
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->ev[i] >= 0 && (size_t)b->ev[i] + 1 > n)
			n = (size_t)b->ev[i] + 1;
	if (n > 64) {
		*num = *den = 0;
		return;
	}
	memset(cells, 0, sizeof(cells));
	for (size_t i = 0; i < b->n; i++)
		if (b->ev[i] >= 0)
			cells[b->ev[i]].period = ev[b->ev[i]].count;
	*num = mp_ratio_numerator(b, cells, den);
}

/* Bind d to src; on a simulated recording a ratio missing events takes its cachegrind
 * formula. 0 bound; 1 missing (filled in *m); negative on error. */
static int bind_def(const struct mp_ratio_def *d, const struct mp_ratio_source *src,
		    const struct mp_ratio_table_opts *o, struct mp_ratio_binding *b,
		    struct mp_ratio_missing *m, struct mp_err *err)
{
	static const char *const simkeys[1] = { "cachegrind" };
	int rc = mp_ratio_bind(d, src->models, src->nmodels, src->ev, src->nev, o->resolve,
			       o->rctx, b, err);

	memset(m, 0, sizeof(*m));
	m->def = d;
	if (rc == -ENOENT && src->simulated) {
		/* only a cachegrind formula can be recorded with --sim */
		int has_sim = 0;
		for (size_t k = 0; k < d->nv; k++)
			has_sim |= !strcmp(d->v[k].model, "cachegrind");
		memset(b, 0, sizeof(*b));
		if (has_sim)
			mp_ratio_bind(d, simkeys, 1, src->ev, src->nev, o->resolve, o->rctx, b, err);
		b->def = d;
		if (!has_sim || !b->var) {
			b->var = NULL;
			m->b = *b;
			m->nosim = 1;
			return 1;
		}
	}
	if (rc == -ENOENT) {
		m->b = *b;
		return 1;
	}
	return rc;
}

/* The rows of one bound ratio: its value, numerator counts and the baseline's value at
 * every place. */
static int eval_rows(struct mp_ratio_result *x, const struct mp_ratio_source *src,
		     const struct mp_ratio_source *base, const struct mp_ratio_table_opts *o,
		     struct mp_err *err)
{
	int prog = o->level == MP_RATIO_PROGRAM;

	x->rows = calloc(src->nplaces ? src->nplaces : 1, sizeof(*x->rows));
	if (!x->rows)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; k < src->nplaces; k++) {
		const struct mp_ratio_place *p = &src->places[k];
		struct mp_ratio_row *r = &x->rows[x->nrows];
		int rc;
		r->place = p;
		rc = (prog ? mp_ratio_eval : mp_ratio_eval_place)(&x->b, src->ev, p->cells, prog,
								  o->min_samples, &r->v, err);
		if (rc)
			return rc;
		int counted = prog && r->v.exact && !src->simulated;
		r->num = mp_ratio_numerator(&x->b, counted ? NULL : p->cells, &r->den);
		if (counted)
			prog_counts(&x->b, src->ev, &r->num, &r->den);
		for (size_t j = 0; x->base_complete && j < base->nplaces; j++) {
			const struct mp_ratio_place *q = &base->places[j];
			if (strcmp(q->label, p->label) ||
			    ((q->dso || p->dso) && (!q->dso || !p->dso || strcmp(q->dso, p->dso))))
				continue;
			r->have_base = !(prog ? mp_ratio_eval : mp_ratio_eval_place)(
				&x->bb, base->ev, q->cells, prog, o->min_samples, &r->base, err);
			break;
		}
		x->nrows++;
	}
	if (prog && src->nplaces) {
		mp_ratio_samples_str(&x->b, src->places[0].cells, x->samples_prog, sizeof(x->samples_prog));
		x->exact_counts = x->rows[0].v.exact;
		if (x->exact_counts)
			snprintf(x->samples_prog, sizeof(x->samples_prog), "counted");
	}
	return 0;
}

static int order_places(struct mp_ratio_table *t, const struct mp_ratio_table_opts *o,
			struct mp_err *err)
{
	size_t s = t->n;

	if (o->sort) {
		for (s = 0; s < t->n && t->r[s].def != o->sort; s++)
			;
		if (s == t->n)
			return mp_err_set(err, -ENOENT, "ratio %s cannot be computed here", o->sort->id);
	}
	for (size_t i = 0; i < t->n; i++) {
		struct sort_ctx sc = { s < t->n ? &t->r[s] : NULL, &t->r[i] };
		t->r[i].perm = calloc(t->nplaces ? t->nplaces : 1, sizeof(*t->r[i].perm));
		if (!t->r[i].perm)
			return mp_err_set(err, -ENOMEM, "out of memory");
		for (size_t k = 0; k < t->nplaces; k++)
			t->r[i].perm[k] = k;
		if (o->level != MP_RATIO_PROGRAM)
			qsort_r(t->r[i].perm, t->nplaces, sizeof(*t->r[i].perm), cmp_perm, &sc);
	}
	return 0;
}

int mp_ratio_table_build(const struct mp_ratio_source *src, const struct mp_ratio_source *base,
			 const struct mp_ratio_table_opts *opts, struct mp_ratio_table *t,
			 struct mp_err *err)
{
	struct mp_ratio_table_opts o = *opts;
	size_t nd = o.ndefs ? o.ndefs : 1;
	int rc;

	memset(t, 0, sizeof(*t));
	if (!o.resolve)
		o.resolve = mp_ratio_resolve_events;
	t->nplaces = src->nplaces;
	t->r = calloc(nd, sizeof(*t->r));
	t->miss = calloc(nd, sizeof(*t->miss));
	if (!t->r || !t->miss)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < o.ndefs; i++) {
		struct mp_ratio_result *x = &t->r[t->n];
		memset(x, 0, sizeof(*x));
		x->def = o.defs[i];
		rc = bind_def(o.defs[i], src, &o, &x->b, &t->miss[t->nmiss], err);
		if (rc == 1) {
			t->nmiss++;
			continue;
		}
		if (rc)
			return rc;
		if (base)
			x->base_complete = mp_ratio_bind(o.defs[i], base->models, base->nmodels,
							 base->ev, base->nev, o.resolve, o.rctx,
							 &x->bb, err) == 0;
		t->n++; /* counted before the rows, so that fini frees them on error */
		if ((rc = eval_rows(x, src, base, &o, err)))
			return rc;
	}
	return order_places(t, &o, err);
}

void mp_ratio_table_fini(struct mp_ratio_table *t)
{
	for (size_t i = 0; t->r && i < t->n; i++) {
		free(t->r[i].rows);
		free(t->r[i].perm);
	}
	free(t->r);
	free(t->miss);
	memset(t, 0, sizeof(*t));
}
