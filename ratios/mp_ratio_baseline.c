/* mp_ratio_baseline.c - the ratio values memprof ships to compare a recording with
 * (ratios/baselines.tsv, made by tools/mkbaselines.sh from the real-hardware fixtures and
 * from simulated recordings of the kernels): sets of program-level values, one per
 * recording, named, with the model and workload they belong to. */
#include "mp_ratios.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

extern const char mp_ratios_baselines[];

struct mp_ratio_baselines {
	char *text; /* the table, NULs at the tabs: the rows point into it */
	struct mp_ratio_baseline *sets;
	size_t nsets, cap_sets;
	struct { const char *ratio; double value; } *vals;
	size_t nvalues, cap_values;
};

static void bl_free(struct mp_ratio_baselines *b)
{
	if (!b)
		return;
	free(b->text);
	free(b->sets);
	free(b->vals);
	free(b);
}

void mp_ratio_baselines_free(mp_ratio_baselines *b)
{
	bl_free(b);
}

static int bl_row(struct mp_ratio_baselines *b, const struct mp_tsv *t, struct mp_err *err)
{
	char *end;
	double v = strtod(t->f[4], &end);
	struct mp_ratio_baseline *s = b->nsets ? &b->sets[b->nsets - 1] : NULL;

	if (end == t->f[4] || *end)
		return mp_tsv_error(t, err, -MP_EPARSE, "value '%s' is not a number", t->f[4]);
	if (!s || strcmp(s->name, t->f[0])) {
		for (size_t i = 0; i < b->nsets; i++)
			if (!strcmp(b->sets[i].name, t->f[0]))
				return mp_tsv_error(t, err, -MP_EPARSE,
						    "set '%s' is split: its rows must follow each other",
						    t->f[0]);
		if (MP_GROW(b->sets, b->cap_sets, b->nsets + 1))
			return mp_err_set(err, -ENOMEM, "out of memory");
		s = &b->sets[b->nsets++];
		memset(s, 0, sizeof(*s));
		s->name = t->f[0];
		s->model = t->f[1];
		s->workload = t->f[2];
		s->source = t->f[5];
		s->first = b->nvalues;
	} else if (strcmp(s->model, t->f[1]) || strcmp(s->workload, t->f[2])) {
		return mp_tsv_error(t, err, -MP_EPARSE, "set '%s' changes its model or workload",
				    t->f[0]);
	}
	if (MP_GROW(b->vals, b->cap_values, b->nvalues + 1))
		return mp_err_set(err, -ENOMEM, "out of memory");
	b->vals[b->nvalues].ratio = t->f[3];
	b->vals[b->nvalues++].value = v;
	s->n++;
	return 0;
}

mp_ratio_baselines *mp_ratio_baselines_parse(const char *text, const char *file,
					     struct mp_err *err)
{
	struct mp_ratio_baselines *b = calloc(1, sizeof(*b));
	struct mp_tsv t;
	int rc;

	if (!b || !(b->text = strdup(text))) {
		free(b);
		mp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	mp_tsv_init(&t, b->text, file, "name\tmodel\tworkload\tratio\tvalue\tsource", 6, 6);
	while ((rc = mp_tsv_next(&t, err)) == 1)
		if ((rc = bl_row(b, &t, err)) < 0)
			break;
	if (rc < 0) {
		bl_free(b);
		return NULL;
	}
	return b;
}

mp_ratio_baselines *mp_ratio_baselines_builtin(struct mp_err *err)
{
	return mp_ratio_baselines_parse(mp_ratios_baselines, "baselines.tsv", err);
}

size_t mp_ratio_baselines_count(const mp_ratio_baselines *b)
{
	return b ? b->nsets : 0;
}

const struct mp_ratio_baseline *mp_ratio_baselines_get(const mp_ratio_baselines *b, size_t i)
{
	return b && i < b->nsets ? &b->sets[i] : NULL;
}

int mp_ratio_baseline_value(const mp_ratio_baselines *b, const struct mp_ratio_baseline *s,
			    const char *ratio_id, double *value)
{
	for (size_t i = s->first; i < s->first + s->n; i++)
		if (!strcmp(b->vals[i].ratio, ratio_id)) {
			*value = b->vals[i].value;
			return 1;
		}
	return 0;
}

/* "/usr/bin/matmul -N 256" -> "matmul -N 256" (into buf) */
static void workload_key(const char *w, char *buf, size_t len)
{
	size_t prog = strcspn(w, " ");
	const char *base = w;
	for (const char *p = w; p < w + prog; p++)
		if (*p == '/')
			base = p + 1;
	snprintf(buf, len, "%s", base);
}

const struct mp_ratio_baseline *mp_ratio_baselines_pick(const mp_ratio_baselines *b,
							 const char *name, const char *model,
							 const char *workload, int *exact)
{
	char want[1024] = "", have[1024];
	const struct mp_ratio_baseline *same_prog = NULL, *same_model = NULL;
	size_t plen;

	*exact = 0;
	if (name) {
		for (size_t i = 0; i < b->nsets; i++)
			if (!strcmp(b->sets[i].name, name)) {
				*exact = 1;
				return &b->sets[i];
			}
		return NULL;
	}
	if (workload)
		workload_key(workload, want, sizeof(want));
	plen = strcspn(want, " ");
	for (size_t i = 0; i < b->nsets; i++) {
		const struct mp_ratio_baseline *s = &b->sets[i];
		if (strcmp(s->model, model))
			continue;
		workload_key(s->workload, have, sizeof(have));
		if (want[0] && !strcmp(have, want)) {
			*exact = 1;
			return s;
		}
		if (want[0] && !same_prog && strcspn(have, " ") == plen && !strncmp(have, want, plen))
			same_prog = s;
		if (!same_model)
			same_model = s;
	}
	return same_prog ? same_prog : same_model;
}
