/* mp_alias.c - the article's Core 2 event names and what each PMU model calls them.
 * The table is events/aliases.tsv, embedded at build time (mp_embed) and parsed once; its
 * cachegrind rows take their sums from the simulator's table (sim_events.tsv). */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"

extern const char mp_aliases_tsv[];

static struct mp_alias_row *rows;
static size_t nrows;
static pthread_once_t alias_once = PTHREAD_ONCE_INIT;

const char *mp_alias_table_text(void)
{
	return mp_aliases_tsv;
}

static int alias_row(const struct mp_tsv *t, void *dst, void *ctx, struct mp_err *err)
{
	struct mp_alias_row *r = dst;
	(void)ctx;
	int rc;
	if ((rc = mp_tsv_copy(t, 0, "alias", r->alias, sizeof(r->alias), err)) ||
	    (rc = mp_tsv_copy(t, 1, "model", r->model, sizeof(r->model), err)) ||
	    (rc = mp_tsv_copy(t, 2, "event", r->event, sizeof(r->event), err)) ||
	    (rc = mp_tsv_copy(t, 3, "status", r->status, sizeof(r->status), err)) ||
	    (rc = mp_tsv_copy(t, 4, "closest", r->closest, sizeof(r->closest), err)))
		return rc;
	return mp_tsv_copy(t, 5, "note", r->note, sizeof(r->note), err);
}

int mp_alias_table_parse(char *text, const char *file, struct mp_alias_row **out, size_t *n,
			 struct mp_err *err)
{
	struct mp_tsv t;
	mp_tsv_init(&t, text, file, "alias\tmodel\tevent\tstatus\tclosest\tnote", 4, 6);
	return mp_tsv_rows(&t, sizeof(**out), alias_row, NULL, (void **)out, n, err);
}

/* The embedded table, parsed once; a bad row (tests/test_events.c reads every row) leaves
 * the table empty and is logged, naming the line. */
static void alias_load(void)
{
	struct mp_err err = { 0, "aliases.tsv: out of memory" };
	char *text = mp_strdup(mp_aliases_tsv);
	if (!text || mp_alias_table_parse(text, "aliases.tsv", &rows, &nrows, &err))
		mp_log(MP_LOG_ERROR, "%s", err.msg);
	free(text);
}

/* A cachegrind row's event and status ("sim" in the file) from the simulator's table:
 * "D1mr + D1mw" and approx, or none where the simulator refuses the event. A row the
 * table lacks keeps "sim" (test_events checks that none does). */
static void alias_from_sim(struct mp_alias_row *r)
{
	const mp_sim_table *t = mp_sim_table_get(NULL);
	const struct mp_sim_alias *a = t ? mp_sim_table_find(t, r->alias, NULL, 0) : NULL;
	if (!a)
		return;
	if (!a->mask) {
		snprintf(r->event, sizeof(r->event), "none");
		snprintf(r->status, sizeof(r->status), "none");
		return;
	}
	size_t o = 0;
	r->event[0] = 0;
	for (int q = 0; q < 32; q++)
		if (a->mask & (1u << q) && o < sizeof(r->event))
			o += (size_t)snprintf(r->event + o, sizeof(r->event) - o, "%s%s",
					      o ? " + " : "", mp_pmu_sim_quantity_name(q));
	snprintf(r->status, sizeof(r->status), "approx");
}

static void alias_load_all(void)
{
	alias_load();
	for (size_t i = 0; i < nrows; i++)
		if (!strcmp(rows[i].model, "cachegrind") && !strcmp(rows[i].event, "sim") &&
		    !strcmp(rows[i].status, "sim"))
			alias_from_sim(&rows[i]);
}

size_t mp_alias_count(void)
{
	pthread_once(&alias_once, alias_load_all);
	return nrows;
}

int mp_alias_get(size_t i, struct mp_alias_row *row)
{
	if (i >= mp_alias_count())
		return -ERANGE;
	*row = rows[i];
	return 0;
}

/* Compare with ':' and '.' equivalent, case-insensitive; 1 = equal, 2 = spelling is a
 * leading part of the alias (ends where the alias has a separator). */
static int spelling_match(const char *spell, const char *alias)
{
	size_t i = 0;
	for (; spell[i] && alias[i]; i++) {
		int a = spell[i] == ':' ? '.' : spell[i];
		int b = alias[i] == ':' ? '.' : alias[i];
		if (toupper(a) != toupper(b))
			return 0;
	}
	if (!spell[i] && !alias[i])
		return 1;
	if (!spell[i] && alias[i] == '.')
		return 2;
	return 0;
}

int mp_alias_find(const char *spelling, const char *model, struct mp_alias_row *row)
{
	const char *alias = NULL;
	size_t n = mp_alias_count();

	/* An exact spelling wins over a leading part ("L2_LINES_IN.SELF.DEMAND"). */
	for (int pass = 1; pass <= 2 && !alias; pass++)
		for (size_t i = 0; i < n && !alias; i++)
			if (spelling_match(spelling, rows[i].alias) == pass)
				alias = rows[i].alias;
	if (!alias)
		return 0;
	const struct mp_alias_row *perf = NULL;
	struct mp_pmu_model m;
	/* the model's own row, else, for an Arm core, that of the first of its ratio
	 * variants with one (the cores share arm_n1's or armv8's PMUv3 events) */
	const char *try[1 + MP_PMU_MAX_VARIANTS] = { model };
	size_t ntry = 1;
	if (model && mp_pmu_pmuv3(model) && mp_pmu_model_get(model, &m))
		for (size_t k = 0; k < m.nvariants; k++)
			if (strcasecmp(m.variant[k], model))
				try[ntry++] = m.variant[k];
	for (size_t t = 0; model && t < ntry; t++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(rows[i].alias, alias) && !strcasecmp(rows[i].model, try[t])) {
				*row = rows[i];
				return 1;
			}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].alias, alias) && !strcmp(rows[i].model, "perf"))
			perf = &rows[i];
	if (perf)
		*row = *perf;
	else {
		memset(row, 0, sizeof(*row));
		snprintf(row->alias, sizeof(row->alias), "%s", alias);
	}
	return -1;
}
