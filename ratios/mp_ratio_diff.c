/* mp_ratio_diff.c - the change of a ratio between two recordings, with its 95% interval. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_ratios.h"

/* The half-width of a value's 95% interval. The upper bound is never clipped (the lower
 * one is, at 0, for formulas without '-'), so it gives the delta method's 1.96 sigma. */
static double half_width(const struct mp_ratio_value *v)
{
	if (v->exact)
		return 0;
	double h = v->hi - v->value;
	return h > 0 ? h : 0;
}

int mp_ratio_change(const struct mp_ratio_value *base, const struct mp_ratio_value *v,
		    struct mp_ratio_change *out)
{
	memset(out, 0, sizeof(*out));
	if (!base->defined || !v->defined)
		return -1;
	double hb = half_width(base), hn = half_width(v);
	out->delta = v->value - base->value;
	/* independent recordings: the variances add */
	double h = sqrt(hb * hb + hn * hn);
	out->lo = out->delta - h;
	out->hi = out->delta + h;
	out->exact = base->exact && v->exact;
	out->significant = out->exact ? out->delta != 0 : (out->lo > 0 || out->hi < 0);
	return 0;
}

int mp_ratio_share_change(double p1, uint64_t n1, double p2, uint64_t n2,
			  struct mp_ratio_change *out)
{
	memset(out, 0, sizeof(*out));
	if (!n1 || !n2 || p1 < 0 || p1 > 1 || p2 < 0 || p2 > 1)
		return -1;
	/* a place's share of samples is a binomial proportion: Var = p(1-p)/n; a share of 0
	 * counts as one sample for the variance, so that a place on one side only still
	 * gets an interval */
	double q1 = p1 > 0 ? p1 : 1.0 / (double)n1, q2 = p2 > 0 ? p2 : 1.0 / (double)n2;
	double h = 1.96 * sqrt(q1 * (1 - q1) / (double)n1 + q2 * (1 - q2) / (double)n2);
	out->delta = p2 - p1;
	out->lo = out->delta - h;
	out->hi = out->delta + h;
	out->significant = out->lo > 0 || out->hi < 0;
	return 0;
}

/* ---- several recordings as one source -------------------------------------------------- */

struct pref {
	const struct mp_ratio_place *p;
	size_t in;
};

static int cmp_nullstr(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

static int pref_cmp(const void *pa, const void *pb)
{
	const struct pref *a = pa, *b = pb;
	int c = strcmp(a->p->label, b->p->label);
	if (!c)
		c = cmp_nullstr(a->p->dso, b->p->dso);
	return c ? c : a->in < b->in ? -1 : a->in > b->in;
}

static int place_by_samples(const void *pa, const void *pb)
{
	const struct mp_ratio_place *a = pa, *b = pb;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	int c = strcmp(a->label, b->label);
	return c ? c : cmp_nullstr(a->dso, b->dso);
}

void mp_ratio_sum_fini(struct mp_ratio_sum *s)
{
	if (!s)
		return;
	free(s->ev);
	free(s->places);
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

int mp_ratio_source_sum(const struct mp_ratio_source *srcs, const char *const *names, size_t n,
			struct mp_ratio_sum *out, struct mp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return mp_err_set(err, -EINVAL, "no recording");
	const struct mp_ratio_source *s0 = &srcs[0];
	size_t nev = s0->nev, tot = 0;
	size_t *map = calloc(n * nev + 1, sizeof(*map));
	out->ev = calloc(nev + 1, sizeof(*out->ev));
	for (size_t i = 0; i < n; i++)
		tot += srcs[i].nplaces;
	struct pref *pr = calloc(tot + 1, sizeof(*pr));
	if (!map || !out->ev || !pr) {
		free(map);
		free(pr);
		mp_ratio_sum_fini(out);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++)
		for (size_t j = 0; j < nev && !rc; j++) {
			size_t k = 0;
			while (k < srcs[i].nev && !mp_ratio_attr_same(&s0->ev[j].attr, &srcs[i].ev[k].attr))
				k++;
			if (k == srcs[i].nev)
				rc = mp_err_set(err, -EINVAL, "%s: has no event %s as %s has (events differ)",
						names[i], s0->ev[j].name, names[0]);
			map[i * nev + j] = k;
		}
	for (size_t i = 1; i < n && !rc; i++)
		if (srcs[i].nev != nev)
			rc = mp_err_set(err, -EINVAL, "%s: %zu events, %s has %zu (events differ)",
					names[i], srcs[i].nev, names[0], nev);
	if (rc)
		goto out;
	for (size_t j = 0; j < nev; j++) {
		out->ev[j] = s0->ev[j];
		out->ev[j].count = 0;
		for (size_t i = 0; i < n; i++) {
			const struct mp_ratio_event *e = &srcs[i].ev[map[i * nev + j]];
			out->ev[j].has_count &= e->has_count;
			out->ev[j].exact_samples &= e->exact_samples;
			out->ev[j].at_min |= e->at_min;
			out->ev[j].count += e->count;
			/* the recordings' shares together: the least stands for the sum */
			if (e->coverage <= 0 || (out->ev[j].coverage > 0 && e->coverage < out->ev[j].coverage))
				out->ev[j].coverage = e->coverage;
		}
	}
	size_t np = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < srcs[i].nplaces; k++)
			pr[np++] = (struct pref){ &srcs[i].places[k], i };
	qsort(pr, np, sizeof(*pr), pref_cmp);
	size_t ng = 0;
	for (size_t k = 0; k < np; k++)
		ng += !k || pref_cmp(&(struct pref){ pr[k - 1].p, 0 }, &(struct pref){ pr[k].p, 0 });
	out->places = calloc(ng + 1, sizeof(*out->places));
	out->cells = calloc((ng + 1) * (nev + 1), sizeof(*out->cells));
	if (!out->places || !out->cells) {
		rc = mp_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	size_t g = SIZE_MAX;
	for (size_t k = 0; k < np; k++) {
		if (!k || pref_cmp(&(struct pref){ pr[k - 1].p, 0 }, &(struct pref){ pr[k].p, 0 })) {
			g++;
			out->places[g] = *pr[k].p;
			out->places[g].samples = 0;
			out->places[g].cells = out->cells + g * nev;
		}
		struct mp_ratio_cell *c = out->cells + g * nev;
		const struct mp_ratio_place *p = pr[k].p;
		out->places[g].samples += p->samples;
		for (size_t j = 0; p->cells && j < nev; j++) {
			const struct mp_ratio_cell *x = &p->cells[map[pr[k].in * nev + j]];
			c[j].samples += x->samples;
			c[j].period += x->period;
			c[j].period_sq += x->period_sq;
		}
	}
	/* the cells stay with their places: sort the places, then point them again */
	qsort(out->places, ng, sizeof(*out->places), place_by_samples);
	/* mean periods of the sum, from the program place when there is one (one place) */
	if (ng == 1)
		for (size_t j = 0; j < nev; j++)
			if (out->places[0].cells[j].samples)
				out->ev[j].mean_period = out->places[0].cells[j].period /
							 (double)out->places[0].cells[j].samples;
	out->src = *s0;
	out->src.ev = out->ev;
	out->src.places = out->places;
	out->src.nplaces = ng;
out:
	free(map);
	free(pr);
	if (rc)
		mp_ratio_sum_fini(out);
	return rc;
}
