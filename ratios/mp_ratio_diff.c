/* mp_ratio_diff.c - the change of a ratio between two recordings, with its 95% interval. */
#include <math.h>
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
