/* mp_counts.c - a counter's value scaled by its enabled and running times. */
#include "mp_perfdata.h"

double mp_counts_scaled(const struct mp_counts *c)
{
	if (c->run && c->run < c->ena)
		return (double)c->val * (double)c->ena / (double)c->run;
	return (double)c->val;
}
