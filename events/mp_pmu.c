/* mp_pmu.c - PMU-model facts as data: events/pmu_models.tsv, embedded at build time
 * (mp_embed) and parsed once, as the alias table is. Which CPU is which libpfm4 model,
 * counters per model, the ratio variants a model shares, which sysfs PMUs are core PMUs,
 * the events fixed counters take, the names that tick every cycle, each event's minimum
 * sample period where oprofile's lists give one, and the simulator's quantities. */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mp_events_internal.h"

extern const char mp_pmu_models_tsv[];

/* The parsed table: a private copy of the text with NULs at the tabs, and the rows. */
static char *pmu_text;
static struct pmu_row *pmu_rows;
static size_t pmu_nrows;
static pthread_once_t pmu_once = PTHREAD_ONCE_INIT;

const char *mp_pmu_table_text(void)
{
	return mp_pmu_models_tsv;
}

static int pmu_row(const struct mp_tsv *t, void *dst, void *ctx, struct mp_err *err)
{
	struct pmu_row *r = dst;
	(void)ctx;
	(void)err;
	r->kind = t->f[0];
	for (size_t i = 0; i < PMU_MAXF; i++)
		r->f[i] = t->f[1 + i];
	return 0;
}

int mp_pmu_table_parse(char *text, const char *file, struct pmu_row **out, size_t *n,
		       struct mp_err *err)
{
	struct mp_tsv t;
	mp_tsv_init(&t, text, file, "kind\tkey", 2, 1 + PMU_MAXF);
	return mp_tsv_rows(&t, sizeof(**out), pmu_row, NULL, (void **)out, n, err);
}

/* The embedded table, parsed once (its text kept: the rows point into it); a bad row
 * (tests/test_events.c reads every kind) leaves the table empty and is logged, naming
 * the line. */
static void pmu_load(void)
{
	struct mp_err err = { 0, "pmu_models.tsv: out of memory" };
	pmu_text = mp_strdup(mp_pmu_models_tsv);
	if (!pmu_text || mp_pmu_table_parse(pmu_text, "pmu_models.tsv", &pmu_rows, &pmu_nrows, &err))
		mp_log(MP_LOG_ERROR, "%s", err.msg);
}

static size_t pmu_count(void)
{
	pthread_once(&pmu_once, pmu_load);
	return pmu_nrows;
}

/* The next row of a kind at or after *i; NULL at the end. */
static const struct pmu_row *pmu_next(const char *kind, size_t *i)
{
	size_t n = pmu_count();
	for (; *i < n; (*i)++)
		if (!strcmp(pmu_rows[*i].kind, kind))
			return &pmu_rows[(*i)++];
	return NULL;
}

/* 1 when v is in list: '*', or comma-separated numbers and LO-HI ranges. */
static int in_list(const char *list, unsigned v)
{
	if (!strcmp(list, "*"))
		return 1;
	for (const char *p = list; *p;) {
		char *e;
		unsigned long lo = strtoul(p, &e, 0), hi = lo;
		if (e == p)
			return 0;
		if (*e == '-') {
			p = e + 1;
			hi = strtoul(p, &e, 0);
			if (e == p)
				return 0;
		}
		if (v >= lo && v <= hi)
			return 1;
		p = *e == ',' ? e + 1 : e + strlen(e);
	}
	return 0;
}

const char *mp_pmu_model_for_cpuid(const char *cpuid)
{
	const struct pmu_row *r;
	char vendor[32] = "";
	unsigned fam = 0, mod = 0;
	size_t i = 0;

	if (!cpuid)
		return NULL;
	/* arm64 MIDR as perf writes it: 0x00000000410fd0c0 (implementer 0x41, part 0xd0c) */
	if (!strncmp(cpuid, "0x", 2) && strlen(cpuid) == 18) {
		unsigned long long midr = strtoull(cpuid, NULL, 16);
		snprintf(vendor, sizeof(vendor), "arm64");
		fam = (unsigned)(midr >> 24) & 0xff;
		mod = (unsigned)(midr >> 4) & 0xfff;
	} else if (sscanf(cpuid, "%31[^,],%u,%u", vendor, &fam, &mod) != 3)
		return NULL;
	while ((r = pmu_next("cpuid", &i)))
		if (!strcmp(r->f[0], vendor) &&
		    (!strcmp(r->f[1], "*") || strtoul(r->f[1], NULL, 0) == fam) &&
		    in_list(r->f[2], mod))
			return r->f[3][0] ? r->f[3] : NULL;
	return NULL;
}

int mp_pmu_model_get(const char *model, struct mp_pmu_model *m)
{
	const struct pmu_row *r;
	size_t i = 0;

	memset(m, 0, sizeof(*m));
	m->name = model;
	m->programmable = 4;
	m->fixed = 0;
	while (model && (r = pmu_next("model", &i))) {
		if (strcmp(r->f[0], model))
			continue;
		m->name = r->f[0];
		if (strcmp(r->f[1], "-"))
			m->programmable = (unsigned)strtoul(r->f[1], NULL, 10);
		if (strcmp(r->f[2], "-"))
			m->fixed = (unsigned)strtoul(r->f[2], NULL, 10);
		for (size_t k = 3; k < PMU_MAXF && r->f[k][0]; k++)
			m->variant[m->nvariants++] = r->f[k];
		return 1;
	}
	return 0;
}

int mp_pmu_pmuv3(const char *model)
{
	struct mp_pmu_model m;

	if (!model || !mp_pmu_model_get(model, &m))
		return 0;
	for (size_t k = 0; k < m.nvariants; k++)
		if (!strcmp(m.variant[k], "armv8"))
			return 1;
	return 0;
}

int mp_pmu_pmuv3_code(const char *model, const char *name, uint64_t *code)
{
	const struct pmu_row *r;
	size_t i = 0;

	if (!mp_pmu_pmuv3(model))
		return 0;
	while ((r = pmu_next("pmuv3", &i)))
		if (!strcasecmp(r->f[0], name)) {
			*code = strtoull(r->f[1], NULL, 16);
			return 1;
		}
	return 0;
}

int mp_pmu_is_core(const char *name)
{
	const struct pmu_row *r;
	size_t i = 0;

	while ((r = pmu_next("corepmu", &i)))
		if (!strcmp(r->f[1], "not") && !fnmatch(r->f[0], name, 0))
			return 0;
	i = 0;
	while ((r = pmu_next("corepmu", &i)))
		if (strcmp(r->f[1], "not") && !fnmatch(r->f[0], name, 0))
			return 1;
	return 0;
}

int mp_pmu_fixed_event(const char *name)
{
	const struct pmu_row *r;
	size_t i = 0;

	while ((r = pmu_next("fixed", &i)))
		if (!strcmp(r->f[0], name))
			return 1;
	return 0;
}

int mp_pmu_frequent_name(const char *name)
{
	const struct pmu_row *r;
	size_t i = 0;

	while ((r = pmu_next("frequent", &i)))
		if (strcasestr(name, r->f[0]))
			return 1;
	return 0;
}

uint64_t mp_pmu_event_min(const char *resolved)
{
	const struct pmu_row *r;
	const char *sep = resolved ? strstr(resolved, "::") : NULL, *name;
	size_t i = 0, ml, nl;

	if (!sep || sep == resolved)
		return 0;
	ml = (size_t)(sep - resolved);
	name = sep + 2;
	nl = strcspn(name, ":.");
	while ((r = pmu_next("minimum", &i)))
		if (strlen(r->f[0]) == ml && !strncmp(r->f[0], resolved, ml) &&
		    strlen(r->f[1]) == nl && !strncasecmp(r->f[1], name, nl))
			return strtoull(r->f[2], NULL, 10);
	return 0;
}

int mp_pmu_sim_quantity(const char *name)
{
	const struct pmu_row *r;
	size_t i = 0;

	while ((r = pmu_next("simq", &i)))
		if (!strcmp(r->f[0], name))
			return (int)strtol(r->f[1], NULL, 10);
	return -1;
}

uint64_t mp_pmu_sim_config(uint32_t mask)
{
	uint64_t c = 0;
	int pos = 0;
	for (int q = 0; q < 32; q++, pos++) {
		while ((0x530000ULL >> pos) & 1)
			pos++;
		if (mask & (1u << q))
			c |= 1ULL << pos;
	}
	return c;
}

const char *mp_pmu_sim_quantity_name(int bit)
{
	const struct pmu_row *r;
	size_t i = 0;

	while ((r = pmu_next("simq", &i)))
		if (strtol(r->f[1], NULL, 10) == bit)
			return r->f[0];
	return NULL;
}
