/* test_events.c - the events module: spec parser, libpfm4 encodings against
 * tests/data/events/pfm-encodings.tsv (check_events output), the alias table, sysfs
 * PMUs from a fake tree, attr names, open-error explanations and memprof list.
 *
 * With LIBPFM_FORCE_PMU set (ctest runs test_events_force_core/_skl/_zen4), only the
 * unprefixed encodings of that model are checked: libpfm reads the variable itself. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_events.h"
#include "mp_events_internal.h"

static char data_dir[512];

static void data_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/events/%s", data_dir, rel);
}

/* ---- the pfm-encodings table ---- */
struct enc_row {
	char pmu[40];
	char event[200];
	uint64_t code[2];
	int ncodes;
};

static struct enc_row *load_encodings(size_t *n)
{
	char path[600], line[512];
	data_path(path, sizeof(path), "pfm-encodings.tsv");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	struct enc_row *rows = calloc(400, sizeof(*rows));
	assert_non_null(rows);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2 || !strncmp(line, "pmu\t", 4))
			continue;
		assert_true(*n < 400);
		struct enc_row *r = &rows[(*n)++];
		snprintf(r->pmu, sizeof(r->pmu), "%.*s", (int)(t1 - line), line);
		snprintf(r->event, sizeof(r->event), "%.*s", (int)(t2 - t1 - 1), t1 + 1);
		char *e;
		r->code[0] = strtoull(t2 + 1, &e, 16);
		r->ncodes = 1;
		if (*e == ' ') {
			r->code[1] = strtoull(e + 1, NULL, 16);
			r->ncodes = 2;
		}
	}
	fclose(f);
	return rows;
}

static const struct enc_row *find_enc(const struct enc_row *rows, size_t n, const char *pmu,
				      const char *event)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].pmu, pmu) && !strcmp(rows[i].event, event))
			return &rows[i];
	return NULL;
}

/* check_events prints the register value with USR|OS|INT|EN (0x53 in bits 16-23); the
 * perf encoding leaves those to the kernel. */
static uint64_t perf_config_of(uint64_t code)
{
	return code & ~0x530000ULL;
}

static void expect_encoding(const char *spec, const struct enc_row *r, const char *model)
{
	struct mp_evopts o = { 0 };
	struct mp_event ev;
	struct mp_err err = { 0, "" };
	o.pmu_model = model;
	int rc = mp_event_parse(spec, &o, &ev, &err);
	if (rc)
		fail_msg("%s (%s): %s", spec, r->pmu, err.msg);
	if (ev.attr.type != PERF_TYPE_RAW || ev.attr.config != perf_config_of(r->code[0]))
		fail_msg("%s: type %u config 0x%llx, expected raw 0x%llx (check_events 0x%llx)", spec,
			 ev.attr.type, (unsigned long long)ev.attr.config,
			 (unsigned long long)perf_config_of(r->code[0]), (unsigned long long)r->code[0]);
	if (r->ncodes == 2 && ev.attr.config1 != r->code[1])
		fail_msg("%s: config1 0x%llx, expected 0x%llx", spec,
			 (unsigned long long)ev.attr.config1, (unsigned long long)r->code[1]);
	if (r->ncodes == 1)
		assert_int_equal(ev.attr.config1, 0);
	assert_int_equal(ev.kind, MP_EV_PMU);
}

/* perf:: rows: libpfm's name -> the perf spelling a user types. */
static const struct { const char *pfm, *perf; } perf_names[] = {
	{ "PERF_COUNT_HW_CPU_CYCLES", "cycles" },
	{ "PERF_COUNT_HW_INSTRUCTIONS", "instructions" },
	{ "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "stalled-cycles-frontend" },
	{ "PERF_COUNT_HW_CACHE_MISSES", "cache-misses" },
	{ "PERF_COUNT_HW_CACHE_ITLB:READ:MISS", "iTLB-load-misses" },
	{ "PERF_COUNT_HW_CACHE_L1I:READ:MISS", "L1-icache-load-misses" },
	{ "PERF_COUNT_HW_CACHE_L1D:READ:ACCESS", "L1-dcache-loads" },
	{ "PERF_COUNT_HW_CACHE_L1D:READ:MISS", "L1-dcache-load-misses" },
	{ "PERF_COUNT_HW_CACHE_LL:READ:MISS", "LLC-load-misses" },
	{ "PERF_COUNT_HW_CACHE_LL:WRITE:MISS", "LLC-store-misses" },
};

static void encodings__every_tsv_row_prefixed__equal_check_events(void **state)
{
	(void)state;
	size_t n, checked = 0, perf_checked = 0;
	struct enc_row *rows = load_encodings(&n);
	assert_true(n > 180);
	for (size_t i = 0; i < n; i++) {
		char spec[300];
		if (!strcmp(rows[i].pmu, "perf")) {
			const char *name = NULL;
			for (size_t k = 0; k < sizeof(perf_names) / sizeof(perf_names[0]); k++)
				if (!strcmp(perf_names[k].pfm, rows[i].event))
					name = perf_names[k].perf;
			if (!name)
				fail_msg("perf row %s has no perf spelling in this test", rows[i].event);
			struct mp_event ev;
			struct mp_err err = { 0, "" };
			assert_int_equal(mp_event_parse(name, NULL, &ev, &err), 0);
			assert_int_equal(ev.attr.config, rows[i].code[0]);
			assert_int_equal(ev.attr.type, strstr(rows[i].event, "HW_CACHE_") &&
							       strchr(rows[i].event, ':')
						       ? PERF_TYPE_HW_CACHE
						       : PERF_TYPE_HARDWARE);
			/* and libpfm's own perf:: spelling gives the same */
			snprintf(spec, sizeof(spec), "perf::%s", rows[i].event);
			assert_int_equal(mp_event_parse(spec, NULL, &ev, &err), 0);
			assert_int_equal(ev.attr.config, rows[i].code[0]);
			perf_checked++;
			continue;
		}
		snprintf(spec, sizeof(spec), "%s::%s", rows[i].pmu, rows[i].event);
		expect_encoding(spec, &rows[i], NULL);
		/* the article's dotted spelling encodes the same */
		char dotted[300];
		snprintf(dotted, sizeof(dotted), "%s::%s", rows[i].pmu, rows[i].event);
		for (char *p = strstr(dotted, "::") + 2; *p; p++)
			if (*p == ':' && !strchr(p, '='))
				*p = '.';
		expect_encoding(dotted, &rows[i], NULL);
		/* --pmu MODEL without a prefix */
		expect_encoding(rows[i].event, &rows[i], rows[i].pmu);
		checked++;
	}
	assert_int_equal(perf_checked, 10);
	assert_int_equal(checked, n - 10);
	free(rows);
}

/* Run by the test_events_force_* ctest entries with LIBPFM_FORCE_PMU in the environment. */
static void encodings__forced_model_unprefixed__equal_check_events(void **state)
{
	(void)state;
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	size_t n, checked = 0;
	char host[64];
	assert_non_null(forced);
	assert_string_equal(mp_events_host_model(NULL, host, sizeof(host)), forced);
	struct enc_row *rows = load_encodings(&n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i].pmu, forced))
			continue;
		expect_encoding(rows[i].event, &rows[i], NULL);
		checked++;
	}
	assert_true(checked >= 15);
	/* The article's events under their Core 2 names, as the host model resolves them. */
	static const struct { const char *model, *spec, *tsv_event; } art[] = {
		{ "core", "CPU_CLK_UNHALTED", "CPU_CLK_UNHALTED:CORE_P" },
		{ "core", "INST_RETIRED", "INST_RETIRED:ANY_P" },
		{ "core", "L1D_REPL", "L1D_REPL" },
		{ "core", "ITLB_MISS_RETIRED", "ITLB_MISS_RETIRED" },
		{ "core", "L1I_MISSES", "L1I_MISSES" },
		{ "core", "L2_IFETCH.SELF.I_STATE", "L2_IFETCH:SELF:I_STATE" },
		{ "core", "L1D_CACHE_LD.MESI", "L1D_CACHE_LD:MESI" },
		{ "core", "STORE_BLOCK.ORDER", "STORE_BLOCK:ORDER" },
		{ "core", "LOAD_BLOCK.L1D", "LOAD_BLOCK:L1D" },
		{ "core", "L2_LINES_IN.SELF.ANY", "L2_LINES_IN:SELF:ANY" },
		{ "core", "L2_LINES_IN.SELF.DEMAND", "L2_LINES_IN:SELF:EXCL_PREFETCH" },
		{ "core", "SSE_PRE_MISS.NTA", "SSE_PRE_MISS:NTA" },
		{ "core", "SSE_PRE_EXEC.NTA", "SSE_PRE_EXEC:NTA" },
		{ "core", "LOAD_HIT_PRE", "LOAD_HIT_PRE" },
		{ "core", "CYCLES_L1I_MEM_STALLED", "CYCLES_L1I_MEM_STALLED" },
		{ "skl", "CPU_CLK_UNHALTED", "UNHALTED_CORE_CYCLES" },
		{ "skl", "INST_RETIRED", "INSTRUCTION_RETIRED" },
		{ "skl", "L1D_REPL", "L1D:REPLACEMENT" },
		{ "skl", "ITLB_MISS_RETIRED", "FRONTEND_RETIRED:ITLB_MISS" },
		{ "skl", "L1I_MISSES", "ICACHE_64B:IFTAG_MISS" },
		{ "skl", "L2_IFETCH.SELF.I_STATE", "L2_RQSTS:CODE_RD_MISS" },
		{ "skl", "L1D_CACHE_LD.MESI", "MEM_INST_RETIRED:ALL_LOADS" },
		{ "skl", "STORE_BLOCK.ORDER", "RESOURCE_STALLS:SB" },
		{ "skl", "LOAD_BLOCK.L1D", "L1D_PEND_MISS:FB_FULL" },
		{ "skl", "L2_LINES_IN", "L2_LINES_IN:ALL" },
		{ "skl", "L2_LINES_IN.SELF.DEMAND", "L2_RQSTS:ALL_DEMAND_MISS" },
		{ "skl", "SSE_PRE_EXEC.NTA", "SW_PREFETCH_ACCESS:NTA" },
		{ "skl", "LOAD_HIT_PRE", "LOAD_HIT_PRE:SW_PF" },
		{ "amd64_fam19h_zen4", "CPU_CLK_UNHALTED", "CYCLES_NOT_IN_HALT" },
		{ "amd64_fam19h_zen4", "INST_RETIRED", "RETIRED_INSTRUCTIONS" },
		{ "amd64_fam19h_zen4", "L1D_REPL",
		  "ANY_DATA_CACHE_FILLS_FROM_SYSTEM:LCL_L2:LOCAL_CCX:NEAR_CACHE_NEAR_FAR:DRAM_IO_NEAR:FAR_CACHE_NEAR_FAR:DRAM_IO_FAR:ALT_MEM_NEAR_FAR" },
		{ "amd64_fam19h_zen4", "ITLB_MISS_RETIRED", "L1_ITLB_MISS_L2_ITLB_MISS:IF4K:IF2M:IF1G:COALESCED4K" },
		{ "amd64_fam19h_zen4", "L1I_MISSES", "IC_TAG_HIT_MISS:IC_MISS" },
		{ "amd64_fam19h_zen4", "L2_IFETCH.SELF.I_STATE", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:IC_FILL_MISS" },
		{ "amd64_fam19h_zen4", "L1D_CACHE_LD.MESI", "LS_DISPATCH:LD_DISPATCH:LD_ST_DISPATCH" },
		{ "amd64_fam19h_zen4", "STORE_BLOCK.ORDER", "DISPATCH_RESOURCE_STALL_CYCLES_1:STORE_QUEUE_RSRC_STALL" },
		{ "amd64_fam19h_zen4", "L2_LINES_IN.SELF.ANY", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS" },
		{ "amd64_fam19h_zen4", "SSE_PRE_MISS.NTA", "SOFTWARE_PREFETCH_DATA_CACHE_FILLS:DRAM_IO_NEAR:DRAM_IO_FAR" },
		{ "amd64_fam19h_zen4", "SSE_PRE_EXEC.NTA", "PREFETCH_INSTRUCTIONS_DISPATCHED:PREFETCHNTA" },
		{ "amd64_fam19h_zen4", "CYCLES_L1I_MEM_STALLED", "DISPATCH_STALLS_1:FE_NO_OPS:c=6" },
	};
	size_t art_checked = 0;
	for (size_t i = 0; i < sizeof(art) / sizeof(art[0]); i++) {
		if (strcmp(art[i].model, forced))
			continue;
		const struct enc_row *r = find_enc(rows, n, forced, art[i].tsv_event);
		if (!r)
			fail_msg("%s %s not in pfm-encodings.tsv", forced, art[i].tsv_event);
		expect_encoding(art[i].spec, r, NULL);
		art_checked++;
	}
	if (!strcmp(forced, "core") || !strcmp(forced, "skl") ||
	    !strcmp(forced, "amd64_fam19h_zen4"))
		assert_true(art_checked >= 12);
	free(rows);
}

/* aliases.tsv's cachegrind rows say "sim": their event and status are the simulator's
 * table's (sim_events.tsv), so each sum is written in one place. */
static void mp_alias_find__cachegrind__sums_from_the_sim_table(void **state)
{
	const mp_sim_table *t = mp_sim_table_get(NULL);
	struct mp_alias_row r;
	size_t seen = 0;
	(void)state;
	assert_non_null(t);
	assert_non_null(strstr(mp_alias_table_text(), "\nL1D_REPL\tcachegrind\tsim\tsim\t"));
	assert_int_equal(mp_alias_find("L1D_REPL", "cachegrind", &r), 1);
	assert_string_equal(r.event, "D1mr + D1mw");
	assert_string_equal(r.status, "approx");
	assert_string_equal(r.note, "write-allocate simulation, no prefetch");
	assert_int_equal(mp_alias_find("l2_lines_in", "cachegrind", &r), 1);
	assert_string_equal(r.alias, "L2_LINES_IN.SELF.ANY");
	assert_string_equal(r.event, "ILmr + DLmr + DLmw");
	assert_int_equal(mp_alias_find("CPU_CLK_UNHALTED.CORE", "cachegrind", &r), 1);
	assert_string_equal(r.event, "none");
	assert_string_equal(r.status, "none");
	assert_string_equal(r.note, "cachegrind models no cycles");
	for (size_t i = 0; i < mp_alias_count(); i++) {
		assert_int_equal(mp_alias_get(i, &r), 0);
		if (strcmp(r.model, "cachegrind"))
			continue;
		seen++;
		const struct mp_sim_alias *a = mp_sim_table_find(t, r.alias, NULL, 0);
		if (!a)
			fail_msg("aliases.tsv %s (cachegrind): no row in sim_events.tsv", r.alias);
		assert_string_equal(r.status, a->mask ? "approx" : "none");
		uint32_t mask = 0;
		for (const char *q = r.event; a->mask && *q;) {
			size_t len = strcspn(q, " +");
			char name[16];
			snprintf(name, sizeof(name), "%.*s", (int)len, q);
			int bit = mp_pmu_sim_quantity(name);
			assert_true(bit >= 0);
			mask |= 1u << bit;
			q += len + strspn(q + len, " +");
		}
		assert_int_equal(mask, a->mask);
	}
	assert_int_equal(seen, 15);
}

/* ---- the alias table, row by row, against the check_events codes ---- */
static void aliases__every_row__resolves_as_the_table_says(void **state)
{
	(void)state;
	size_t n, nenc, checked = 0, none = 0, sums = 0;
	struct enc_row *rows = load_encodings(&nenc);
	n = mp_alias_count();
	size_t foreign = 0;
	assert_int_equal(n, 15 * 14);
	for (size_t i = 0; i < n; i++) {
		struct mp_alias_row r;
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		assert_int_equal(mp_alias_get(i, &r), 0);
		assert_true(!strcmp(r.status, "exact") || !strcmp(r.status, "approx") ||
			    !strcmp(r.status, "none"));
		assert_int_equal(!strcmp(r.status, "none"), !strcmp(r.event, "none"));
		o.pmu_model = r.model;
		int rc = mp_event_parse(r.alias, &o, &ev, &err);
		if (mp_pmu_pmuv3(r.model) && !mp_pfm_model_known(r.model)) {
			/* libpfm4's arm models exist only in its arm64 build (the rows are
			 * encoded by tests/e2e/events_arm_aliases.sh under qemu-aarch64); here
			 * the PMUv3 common events of pmu_models.tsv stand in for its tables. */
			uint64_t code;
			if (!strcmp(r.status, "none")) {
				assert_int_not_equal(rc, 0);
				assert_non_null(strstr(err.msg, "has no equivalent"));
			} else if (mp_pmu_pmuv3_code(r.model, r.event, &code)) {
				if (rc)
					fail_msg("%s on %s: %s", r.alias, r.model, err.msg);
				assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
				assert_int_equal(ev.attr.config, code);
			} else {
				assert_int_not_equal(rc, 0);
				assert_non_null(strstr(err.msg, "PMUv3 common events"));
			}
			foreign++;
			continue;
		}
		if (!strcmp(r.model, "cachegrind")) {
			assert_int_not_equal(rc, 0);
			if (strcmp(r.status, "none"))
				assert_non_null(strstr(err.msg, "--sim"));
			continue;
		}
		if (!strcmp(r.status, "none")) {
			if (rc)
				assert_non_null(strstr(err.msg, "has no equivalent"));
			if (rc && r.closest[0])
				assert_non_null(strstr(err.msg, r.closest));
			none++;
			continue;
		}
		if (strstr(r.event, " + ") || strstr(r.event, " - ")) {
			assert_int_equal(rc, -MP_ENOTSUP);
			assert_non_null(strstr(err.msg, "combination"));
			sums++;
			continue;
		}
		if (rc)
			fail_msg("%s on %s: %s", r.alias, r.model, err.msg);
		assert_string_equal(ev.alias, r.alias);
		assert_int_equal(ev.approx, !strcmp(r.status, "approx"));
		if (!strcmp(r.model, "perf")) {
			char canon[64];
			uint32_t t;
			uint64_t c;
			assert_true(mp_generic_lookup(r.event, &t, &c, canon, sizeof(canon)));
			assert_int_equal(ev.attr.type, t);
			assert_int_equal(ev.attr.config, c);
			continue;
		}
		const struct enc_row *e = find_enc(rows, nenc, r.model, r.event);
		if (!e)
			fail_msg("aliases.tsv %s/%s: %s not in pfm-encodings.tsv", r.alias, r.model,
				 r.event);
		expect_encoding(r.alias, e, r.model);
		checked++;
	}
	assert_true(checked >= 100);
	/* The x86-64 build of libpfm4 4.13: arm_n1, arm_ac57 and armv8 are foreign. */
	assert_int_equal(foreign, 3 * 15);
	assert_int_equal(none, 16);
	assert_int_equal(sums, 6);
	free(rows);
}

/* The arm64 rows, looked up in the table (their encodings: events_arm_aliases.sh). */
static void aliases__arm_rows__map_the_article_names(void **state)
{
	(void)state;
	static const struct { const char *spell, *model, *event, *status, *closest; } cases[] = {
		{ "INST_RETIRED", "arm_n1", "INST_RETIRED", "exact", "" },
		{ "CPU_CLK_UNHALTED", "arm_n1", "CPU_CYCLES", "exact", "" },
		{ "L1D_REPL", "arm_n1", "L1D_CACHE_REFILL", "exact", "" },
		{ "L1I_MISSES", "arm_n1", "L1I_CACHE_REFILL", "exact", "" },
		{ "ITLB_MISS_RETIRED", "arm_n1", "L1I_TLB_REFILL", "approx", "" },
		{ "L2_LINES_IN", "arm_n1", "L2D_CACHE_REFILL", "exact", "" },
		{ "L2_LINES_IN.SELF.DEMAND", "arm_n1", "L2D_CACHE_REFILL", "approx", "" },
		{ "L1D_CACHE_LD", "arm_n1", "L1D_CACHE_RD", "exact", "" },
		{ "CYCLES_L1I_MEM_STALLED", "arm_n1", "STALL_FRONTEND", "approx", "" },
		{ "L2_IFETCH", "arm_n1", "none", "none", "L2D_CACHE_REFILL" },
		{ "STORE_BLOCK", "arm_n1", "none", "none", "STALL_BACKEND" },
		{ "LOAD_BLOCK.L1D", "arm_n1", "none", "none", "STALL_BACKEND" },
		{ "SSE_PRE_MISS", "arm_n1", "none", "none", "" },
		{ "SSE_PRE_EXEC", "arm_n1", "none", "none", "" },
		{ "LOAD_HIT_PRE", "arm_n1", "none", "none", "" },
		{ "L1D_CACHE_LD.MESI", "arm_ac57", "L1D_READ_ACCESS", "exact", "" },
		{ "CYCLES_L1I_MEM_STALLED", "arm_ac57", "none", "none", "" },
		{ "L1D_REPL", "ARM_N1", "L1D_CACHE_REFILL", "exact", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_alias_row r;
		assert_int_equal(mp_alias_find(cases[i].spell, cases[i].model, &r), 1);
		assert_string_equal(r.event, cases[i].event);
		assert_string_equal(r.status, cases[i].status);
		if (strncmp(r.closest, cases[i].closest, strlen(cases[i].closest)))
			fail_msg("%s on %s: closest '%s', want '%s...'", cases[i].spell, cases[i].model,
				 r.closest, cases[i].closest);
		assert_true(strcmp(r.status, "none") || r.note[0]);
	}
	/* arm_n2 has no rows: those of arm_n1, the first of its ratio variants with rows;
	 * the Cortex-A72 takes the PMUv3 common events (armv8); a64fx (no pmu_models row)
	 * has none: perf's row stands in. */
	struct mp_alias_row r;
	assert_int_equal(mp_alias_find("L1D_REPL", "arm_n2", &r), 1);
	assert_string_equal(r.model, "arm_n1");
	assert_int_equal(mp_alias_find("L1D_CACHE_LD", "arm_ac72", &r), 1);
	assert_string_equal(r.model, "armv8");
	assert_string_equal(r.event, "L1D_CACHE");
	assert_int_equal(mp_alias_find("L1D_REPL", "arm_a64fx", &r), -1);
	assert_string_equal(r.model, "perf");
	/* x86 models keep their own rows only: hsw has none, perf's stands in */
	assert_int_equal(mp_alias_find("L1D_REPL", "hsw", &r), -1);
}

struct alias_case {
	const char *spec, *model;
	int rc;
	uint32_t type;
	uint64_t config, config1;
	int approx;
	const char *msg; /* substring of err or of ev.resolved/alias */
	int line;
};

static void aliases__key_cases__resolve_per_model(void **state)
{
	(void)state;
	static const struct alias_case cases[] = {
		{ "L1D_REPL", "amd64_fam19h_zen4", 0, 4, 0xdf44, 0, 0, "ANY_DATA_CACHE_FILLS_FROM_SYSTEM", __LINE__ },
		{ "L1D_REPL", "skl", 0, 4, 0x151, 0, 0, "skl::L1D:REPLACEMENT", __LINE__ },
		{ "L1D_REPL", "core", 0, 4, 0xf45, 0, 0, "core::L1D_REPL", __LINE__ },
		{ "L1D_REPL", "amd64_fam17h_zen2", 0, 4, 0xc860, 0, 1, "REQUESTS_TO_L2_GROUP1", __LINE__ },
		{ "l1d_repl", "skl", 0, 4, 0x151, 0, 0, "L1D:REPLACEMENT", __LINE__ },
		{ "INST_RETIRED.ANY", "skl", 0, 4, 0xc0, 0, 0, "INSTRUCTION_RETIRED", __LINE__ },
		{ "CPU_CLK_UNHALTED.CORE", "core", 0, 4, 0x3c, 0, 0, "CPU_CLK_UNHALTED:CORE_P", __LINE__ },
		{ "L2_LINES_IN", "spr", 0, 4, 0x1f25, 0, 0, "L2_LINES_IN:ALL", __LINE__ },
		{ "L2_LINES_IN.SELF", "skl", 0, 4, 0x1ff1, 0, 0, "L2_LINES_IN:ALL", __LINE__ },
		{ "L2_LINES_IN:SELF:DEMAND", "core", 0, 4, 0x4024, 0, 0, "EXCL_PREFETCH", __LINE__ },
		{ "ITLB_MISS_RETIRED", "skl", 0, 4, 0x1c6, 0x14, 0, "FRONTEND_RETIRED:ITLB_MISS", __LINE__ },
		{ "L1I_MISSES", "amd64_fam19h_zen4", 0, 4, 0x10000188eULL, 0, 0, "IC_TAG_HIT_MISS", __LINE__ },
		{ "CYCLES_L1I_MEM_STALLED", "amd64_fam19h_zen4", 0, 4, 0x1060001a0ULL, 0, 1, "c=6", __LINE__ },
		{ "LOAD_HIT_PRE", "nhm", 0, 4, 0x14c, 0, 0, "nhm::LOAD_HIT_PRE", __LINE__ },
		{ "LOAD_BLOCK.L1D", "snb", 0, 4, 0x1000248, 0, 1, "FB_FULL", __LINE__ },
		{ "L1D_REPL", "perf", 0, PERF_TYPE_HW_CACHE, 0x10000, 0, 1, "L1-dcache-load-misses", __LINE__ },
		{ "CPU_CLK_UNHALTED", "perf", 0, PERF_TYPE_HARDWARE, 0, 0, 1, "cycles", __LINE__ },
		/* a model the table does not cover: its own event first, else perf's */
		{ "INST_RETIRED", "hsw", 0, 4, 0xc0, 0, 0, "hsw::INST_RETIRED:ANY_P", __LINE__ },
		{ "L1D_REPL", "hsw", 0, PERF_TYPE_HW_CACHE, 0x10000, 0, 1, "L1-dcache-load-misses", __LINE__ },
		/* a libpfm modifier rides along */
		{ "L1I_MISSES:c=2", "amd64_fam19h_zen4", 0, 4, 0x10200188eULL, 0, 0, "c=2", __LINE__ },
		{ "CPU_CLK_UNHALTED:30000:0:1:1", "core", 0, 4, 0x3c, 0, 0, "CORE_P", __LINE__ },
		{ "LOAD_BLOCK", "amd64_fam19h_zen4", -MP_ENOTSUP, 0, 0, 0, 0,
		  "event 'LOAD_BLOCK': model amd64_fam19h_zen4 has no equivalent of LOAD_BLOCK.L1D (no L1D-blocked-load or miss-buffer-full event); closest: ALLOC_MAB_COUNT", __LINE__ },
		{ "LOAD_HIT_PRE", "amd64_fam17h_zen2", -MP_ENOTSUP, 0, 0, 0, 0, "closest: INEFFECTIVE_SOFTWARE_PREFETCH:MAB_MCH_CNT", __LINE__ },
		{ "SSE_PRE_MISS", "snb", -MP_ENOTSUP, 0, 0, 0, 0, "model snb has no equivalent of SSE_PRE_MISS.NTA", __LINE__ },
		{ "L2_IFETCH", "perf", -MP_ENOTSUP, 0, 0, 0, 0, "closest: L1-icache-load-misses", __LINE__ },
		{ "CYCLES_L1I_MEM_STALLED", "skl", -MP_ENOTSUP, 0, 0, 0, 0,
		  "the combination 'ICACHE_16B:IFDATA_STALL + ICACHE_64B:IFTAG_STALL'", __LINE__ },
		{ "L1D_REPL", "cachegrind", -MP_ENOTSUP, 0, 0, 0, 0, "'D1mr + D1mw': use --sim", __LINE__ },
		{ "L1D_REPL", "nosuchmodel", -MP_EPARSE, 0, 0, 0, 0, "event 'L1D_REPL': unknown PMU model 'nosuchmodel'", __LINE__ },
		{ "cpu-clock", "nosuchmodel", 0, 1, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "L1D_REPL:BOGUS", "skl", -MP_EPARSE, 0, 0, 0, 0, "unknown event for model skl", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct alias_case *c = &cases[i];
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.pmu_model = c->model;
		int rc = mp_event_parse(c->spec, &o, &ev, &err);
		if (rc != c->rc)
			fail_msg("line %d: %s on %s: rc %d, expected %d (%s)", c->line, c->spec, c->model,
				 rc, c->rc, err.msg);
		if (rc) {
			if (!strstr(err.msg, c->msg))
				fail_msg("line %d: message '%s' lacks '%s'", c->line, err.msg, c->msg);
			continue;
		}
		if (ev.attr.type != c->type || ev.attr.config != c->config ||
		    ev.attr.config1 != c->config1 || ev.approx != c->approx)
			fail_msg("line %d: %s on %s: type %u config 0x%llx config1 0x%llx approx %d", c->line,
				 c->spec, c->model, ev.attr.type, (unsigned long long)ev.attr.config,
				 (unsigned long long)ev.attr.config1, ev.approx);
		if (!strstr(ev.resolved, c->msg))
			fail_msg("line %d: resolved '%s' lacks '%s'", c->line, ev.resolved, c->msg);
	}
}

/* ---- the spec parser ---- */
struct spec_case {
	const char *spec;
	uint64_t c;      /* opts.default_count */
	unsigned f;      /* opts.freq_hz */
	int rc;
	uint32_t type;
	uint64_t config;
	uint64_t period; /* sample_period, or sample_freq when freq */
	int freq, eu, ek, precise;
	const char *expect; /* resolved name, or a substring of the error */
	int line;
};

static void parse__table__accepts_forms_and_names_bad_parts(void **state)
{
	(void)state;
	static const struct spec_case cases[] = {
		/* generic hardware and software names, perf's default period per kind */
		{ "cycles", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 0, "cycles", __LINE__ },
		{ "cpu-cycles", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 0, "cpu-cycles", __LINE__ },
		{ "instructions", 0, 0, 0, 0, 1, 100000, 0, 0, 0, 0, "instructions", __LINE__ },
		{ "cache-references", 0, 0, 0, 0, 2, 10000, 0, 0, 0, 0, "cache-references", __LINE__ },
		{ "cache-misses", 0, 0, 0, 0, 3, 10000, 0, 0, 0, 0, "cache-misses", __LINE__ },
		{ "branches", 0, 0, 0, 0, 4, 10000, 0, 0, 0, 0, "branches", __LINE__ },
		{ "branch-misses", 0, 0, 0, 0, 5, 10000, 0, 0, 0, 0, "branch-misses", __LINE__ },
		{ "bus-cycles", 0, 0, 0, 0, 6, 100000, 0, 0, 0, 0, "bus-cycles", __LINE__ },
		{ "stalled-cycles-frontend", 0, 0, 0, 0, 7, 100000, 0, 0, 0, 0, "stalled-cycles-frontend", __LINE__ },
		{ "stalled-cycles-backend", 0, 0, 0, 0, 8, 100000, 0, 0, 0, 0, "stalled-cycles-backend", __LINE__ },
		{ "ref-cycles", 0, 0, 0, 0, 9, 100000, 0, 0, 0, 0, "ref-cycles", __LINE__ },
		{ "cpu-clock", 0, 0, 0, 1, 0, 100000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "task-clock", 0, 0, 0, 1, 1, 100000, 0, 0, 0, 0, "task-clock", __LINE__ },
		{ "page-faults", 0, 0, 0, 1, 2, 100, 0, 0, 0, 0, "page-faults", __LINE__ },
		{ "faults", 0, 0, 0, 1, 2, 100, 0, 0, 0, 0, "faults", __LINE__ },
		{ "context-switches", 0, 0, 0, 1, 3, 1, 0, 0, 0, 0, "context-switches", __LINE__ },
		{ "cs", 0, 0, 0, 1, 3, 1, 0, 0, 0, 0, "cs", __LINE__ },
		{ "cpu-migrations", 0, 0, 0, 1, 4, 1, 0, 0, 0, 0, "cpu-migrations", __LINE__ },
		{ "minor-faults", 0, 0, 0, 1, 5, 100, 0, 0, 0, 0, "minor-faults", __LINE__ },
		{ "major-faults", 0, 0, 0, 1, 6, 1, 0, 0, 0, 0, "major-faults", __LINE__ },
		{ "alignment-faults", 0, 0, 0, 1, 7, 1, 0, 0, 0, 0, "alignment-faults", __LINE__ },
		{ "emulation-faults", 0, 0, 0, 1, 8, 1, 0, 0, 0, 0, "emulation-faults", __LINE__ },
		{ "dummy", 0, 0, 0, 1, 9, 1, 0, 0, 0, 0, "dummy", __LINE__ },
		/* the HW_CACHE family: id | op << 8 | result << 16 */
		{ "L1-dcache-load-misses", 0, 0, 0, 3, 0x10000, 10000, 0, 0, 0, 0, "L1-dcache-load-misses", __LINE__ },
		{ "L1-dcache-loads", 0, 0, 0, 3, 0x0, 10000, 0, 0, 0, 0, "L1-dcache-loads", __LINE__ },
		{ "L1-dcache-stores", 0, 0, 0, 3, 0x100, 10000, 0, 0, 0, 0, "L1-dcache-stores", __LINE__ },
		{ "L1-dcache-prefetch-misses", 0, 0, 0, 3, 0x10200, 10000, 0, 0, 0, 0, "L1-dcache-prefetch-misses", __LINE__ },
		{ "L1-icache-load-misses", 0, 0, 0, 3, 0x10001, 10000, 0, 0, 0, 0, "L1-icache-load-misses", __LINE__ },
		{ "LLC-loads", 0, 0, 0, 3, 0x2, 10000, 0, 0, 0, 0, "LLC-loads", __LINE__ },
		{ "LLC-store-misses", 0, 0, 0, 3, 0x10102, 10000, 0, 0, 0, 0, "LLC-store-misses", __LINE__ },
		{ "dTLB-load-misses", 0, 0, 0, 3, 0x10003, 10000, 0, 0, 0, 0, "dTLB-load-misses", __LINE__ },
		{ "dTLB-store-misses", 0, 0, 0, 3, 0x10103, 10000, 0, 0, 0, 0, "dTLB-store-misses", __LINE__ },
		{ "iTLB-load-misses", 0, 0, 0, 3, 0x10004, 10000, 0, 0, 0, 0, "iTLB-load-misses", __LINE__ },
		{ "iTLB-loads", 0, 0, 0, 3, 0x4, 10000, 0, 0, 0, 0, "iTLB-loads", __LINE__ },
		{ "branch-loads", 0, 0, 0, 3, 0x5, 10000, 0, 0, 0, 0, "branch-loads", __LINE__ },
		{ "branch-load-misses", 0, 0, 0, 3, 0x10005, 10000, 0, 0, 0, 0, "branch-load-misses", __LINE__ },
		{ "node-loads", 0, 0, 0, 3, 0x6, 10000, 0, 0, 0, 0, "node-loads", __LINE__ },
		{ "l1d-load-miss", 0, 0, 0, 3, 0x10000, 10000, 0, 0, 0, 0, "L1-dcache-load-misses", __LINE__ },
		{ "L1-dcache", 0, 0, 0, 3, 0x0, 10000, 0, 0, 0, 0, "L1-dcache-loads", __LINE__ },
		/* modifiers */
		{ "cycles:u", 0, 0, 0, 0, 0, 100000, 0, 0, 1, 0, "cycles:u", __LINE__ },
		{ "cycles:k", 0, 0, 0, 0, 0, 100000, 0, 1, 0, 0, "cycles:k", __LINE__ },
		{ "cycles:uk", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 0, "cycles", __LINE__ },
		{ "cycles:u:k", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 0, "cycles", __LINE__ },
		{ "cycles:p", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 1, "cycles:p", __LINE__ },
		{ "cycles:upp", 0, 0, 0, 0, 0, 100000, 0, 0, 1, 2, "cycles:upp", __LINE__ },
		{ "instructions:ppp", 0, 0, 0, 0, 1, 100000, 0, 0, 0, 3, "instructions:ppp", __LINE__ },
		{ "cpu-clock:u", 0, 0, 0, 1, 0, 100000, 0, 0, 1, 0, "cpu-clock:u", __LINE__ },
		/* counts: -c, per-event NAME:COUNT, -F, minimums */
		{ "cpu-clock", 250000, 0, 0, 1, 0, 250000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "cpu-clock:500000", 100000, 0, 0, 1, 0, 500000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "task-clock:200000:u", 0, 0, 0, 1, 1, 200000, 0, 0, 1, 0, "task-clock:u", __LINE__ },
		{ "cpu-clock:u:20000", 0, 0, 0, 1, 0, 20000, 0, 0, 1, 0, "cpu-clock:u", __LINE__ },
		{ "cpu-clock", 0, 1000, 0, 1, 0, 1000, 1, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "cpu-clock", 200000, 1000, 0, 1, 0, 200000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "cpu-clock:300000", 0, 4000, 0, 1, 0, 300000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "page-faults:1", 0, 0, 0, 1, 2, 1, 0, 0, 0, 0, "page-faults", __LINE__ },
		{ "cpu-clock:10000", 0, 0, 0, 1, 0, 10000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "cpu-clock:9999", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0,
		  "event 'cpu-clock:9999': count 9999 is below the minimum 10000 for a timer (ns)", __LINE__ },
		{ "cycles", 100, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "count 100 is below the minimum 6000", __LINE__ },
		{ "L1-dcache-load-misses:499", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "below the minimum 500", __LINE__ },
		{ "cpu-clock:0", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "count 0", __LINE__ },
		/* oprofile NAME:COUNT:UNITMASK:KERNEL:USER */
		{ "cycles:30000:0:1:1", 0, 0, 0, 0, 0, 30000, 0, 0, 0, 0, "cycles", __LINE__ },
		{ "cycles:30000:0:0:1", 0, 0, 0, 0, 0, 30000, 0, 0, 1, 0, "cycles:u", __LINE__ },
		{ "cycles:30000:0:1:0", 0, 0, 0, 0, 0, 30000, 0, 1, 0, 0, "cycles:k", __LINE__ },
		{ "cpu-clock:30000:0", 0, 0, 0, 1, 0, 30000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "cycles:30000:0:0:0", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "counts neither user nor kernel", __LINE__ },
		{ "cycles:30000:0:2:1", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "kernel flag '2' must be 0 or 1", __LINE__ },
		{ "cycles:30000:0:1:1:1", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "too many fields after the count: '1'", __LINE__ },
		{ "cycles:30000:0x41", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "takes no unit masks", __LINE__ },
		{ "cycles:30000:0x1ff", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "bad unit mask '0x1ff'", __LINE__ },
		{ "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:30000:0x41:1:1", 0, 0, 0, 4, 0x41c0, 30000, 0, 0, 0, 0, "umask=0x41", __LINE__ },
		{ "core::L2_LINES_IN:100000:0:1:0", 0, 0, 0, 4, 0x7024, 100000, 0, 1, 0, 0, "core::L2_LINES_IN:SELF:ANY", __LINE__ },
		{ "core::L2_LINES_IN:100000:SELF:1:1", 0, 0, 0, 4, 0x7024, 100000, 0, 0, 0, 0, "L2_LINES_IN", __LINE__ },
		/* libpfm4 names, ':' and '.' unit masks, modifiers */
		{ "skl::L1D:REPLACEMENT", 0, 0, 0, 4, 0x151, 10000, 0, 0, 0, 0, "skl::L1D:REPLACEMENT", __LINE__ },
		{ "skl::L1D.REPLACEMENT", 0, 0, 0, 4, 0x151, 10000, 0, 0, 0, 0, "skl::L1D:REPLACEMENT", __LINE__ },
		{ "core::L2_LINES_IN.SELF.ANY", 0, 0, 0, 4, 0x7024, 10000, 0, 0, 0, 0, "core::L2_LINES_IN:SELF:ANY", __LINE__ },
		{ "skl::L1D:REPLACEMENT:u", 0, 0, 0, 4, 0x151, 10000, 0, 0, 1, 0, "skl::L1D:REPLACEMENT:u", __LINE__ },
		{ "skl::L1D:REPLACEMENT:c=2:i=1", 0, 0, 0, 4, 0x2800151, 10000, 0, 0, 0, 0, "c=2", __LINE__ },
		{ "skl::INST_RETIRED:ANY_P:5000000", 0, 0, 0, 4, 0xc0, 5000000, 0, 0, 0, 0, "skl::INST_RETIRED:ANY_P", __LINE__ },
		{ "skl::UNHALTED_CORE_CYCLES:5000", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "below the minimum 6000 for a cycle/instruction counter", __LINE__ },
		{ "skl::L1D:REPLACEMENT:499", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "below the minimum 500 for a hardware event", __LINE__ },
		{ "skl::L1D:REPLX", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0,
		  "event 'skl::L1D:REPLX': unknown unit mask 'REPLX' for skl::L1D (unit masks: REPLACEMENT)", __LINE__ },
		{ "skl::L1DX", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'skl::L1DX': unknown event for model skl (did you mean L1D", __LINE__ },
		{ "nosuch::L1D", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "unknown PMU model 'nosuch'", __LINE__ },
		{ "nhm::L2_RQSTS:LD_MISS:RFO_MISS", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "libpfm cannot encode nhm::L2_RQSTS", __LINE__ },
		{ "perf::PERF_COUNT_SW_CPU_CLOCK", 0, 0, 0, 1, 0, 100000, 0, 0, 0, 0, "cpu-clock", __LINE__ },
		{ "perf::cycles", 0, 0, 0, 0, 0, 100000, 0, 0, 0, 0, "cycles", __LINE__ },
		/* raw */
		{ "r01c2", 0, 0, 0, 4, 0x1c2, 10000, 0, 0, 0, 0, "r01c2", __LINE__ },
		{ "r53003c:u", 0, 0, 0, 4, 0x53003c, 10000, 0, 0, 1, 0, "r53003c:u", __LINE__ },
		{ "r1c2:20000", 0, 0, 0, 4, 0x1c2, 20000, 0, 0, 0, 0, "r1c2", __LINE__ },
		/* bad specs name the bad part */
		{ "", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "empty event", __LINE__ },
		{ "cycles:", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'cycles:': empty field after 'cycles'", __LINE__ },
		{ ":u", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "empty event name", __LINE__ },
		{ "cycles:pppp", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "modifier 'pppp': at most ppp", __LINE__ },
		{ "cycles:foo", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'cycles:foo': 'foo' is not a modifier", __LINE__ },
		{ "cpu-clock:10000:x", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'cpu-clock:10000:x': 'x' is not a modifier (u, k, h, p) or count: the generic event 'cpu-clock' takes no unit masks", __LINE__ },
		{ "cpu-clock:u:q", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "'q' is not a modifier", __LINE__ },
		{ "cyclez", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'cyclez': unknown event for model amd64_fam19h_zen4 (did you mean cycles", __LINE__ },
		{ "L1D_REPLX", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "event 'L1D_REPLX': unknown event for model amd64_fam19h_zen4 (did you mean L1D_REPL", __LINE__ },
		{ "a::b::c", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "more than one '::'", __LINE__ },
		{ "::L1D", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "empty PMU model", __LINE__ },
		{ "cycles u", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "unexpected character 0x20", __LINE__ },
		{ "iTLB-stores", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "perf has no such cache event ('iTLB-stores': that cache has no store operations)", __LINE__ },
		{ "L1-icache-store-misses", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "no store operations", __LINE__ },
		{ "branch-prefetches", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "no prefetch operations", __LINE__ },
		{ "cpu-clock:99999999999999999999999", 0, 0, -MP_EPARSE, 0, 0, 0, 0, 0, 0, 0, "bad count", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct spec_case *c = &cases[i];
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.default_count = c->c;
		o.freq_hz = c->f;
		o.pmu_model = "amd64_fam19h_zen4"; /* so that messages do not depend on the host */
		int rc = mp_event_parse(c->spec, &o, &ev, &err);
		if (rc != c->rc)
			fail_msg("line %d: '%s': rc %d, expected %d (%s)", c->line, c->spec, rc, c->rc,
				 err.msg);
		if (rc) {
			if (!err.msg[0] || !strstr(err.msg, c->expect))
				fail_msg("line %d: message '%s' lacks '%s'", c->line, err.msg, c->expect);
			continue;
		}
		uint64_t per = c->freq ? ev.attr.sample_freq : ev.attr.sample_period;
		if (ev.attr.type != c->type || ev.attr.config != c->config || per != c->period ||
		    (int)ev.attr.freq != c->freq || (int)ev.attr.exclude_user != c->eu ||
		    (int)ev.attr.exclude_kernel != c->ek || (int)ev.attr.precise_ip != c->precise)
			fail_msg("line %d: '%s': type %u config 0x%llx period %llu freq %d eu %d ek %d p %d",
				 c->line, c->spec, ev.attr.type, (unsigned long long)ev.attr.config,
				 (unsigned long long)per, ev.attr.freq, ev.attr.exclude_user,
				 ev.attr.exclude_kernel, ev.attr.precise_ip);
		if (strcmp(ev.resolved, c->expect) && !strstr(ev.resolved, c->expect))
			fail_msg("line %d: resolved '%s', expected '%s'", c->line, ev.resolved, c->expect);
		assert_string_equal(ev.spec, c->spec);
		assert_int_equal(ev.attr.size, sizeof(ev.attr));
		uint64_t own = mp_pmu_event_min(ev.resolved);
		assert_int_equal(ev.min_count, own ? own : mp_ev_class_min(mp_ev_class(&ev)));
	}
}

/* Minimum counts per event, as oprofile's Core 2 list gives them (pmu_models.tsv's minimum
 * rows), not per kind (issue 30.7): the branch-execution events 3000, MUL 1000, and
 * CYCLES_L1I_MEM_STALLED (oprofile's IFU_MEM_STALL, the article's) 500 although its name
 * says CYCLES and STALL, which made it a cycle counter with minimum 6000. Every row names
 * an event libpfm4's core table has. */
static void parse__per_event_minimum__oprofile_core2(void **state)
{
	(void)state;
	static const struct { const char *spec; int rc; uint64_t min; const char *msg; } c[] = {
		{ "core::BR_INST_EXEC:2999", -MP_EPARSE, 3000,
		  "event 'core::BR_INST_EXEC:2999': count 2999 is below the minimum 3000 for core::BR_INST_EXEC (its own, events/pmu_models.tsv) (use 3000 or more)" },
		{ "core::BR_INST_EXEC:3000", 0, 3000, NULL },
		{ "core::MUL:999", -MP_EPARSE, 1000, "below the minimum 1000 for core::MUL" },
		{ "core::CYCLES_L1I_MEM_STALLED:500", 0, 500, NULL },
		{ "core::CYCLES_L1I_MEM_STALLED:499", -MP_EPARSE, 500, "below the minimum 500 for core::CYCLES_L1I_MEM_STALLED" },
		{ "core::RAT_STALLS:ANY:5999", -MP_EPARSE, 6000, "below the minimum 6000 for core::RAT_STALLS:ANY" },
		{ "core::INST_RETIRED:ANY_P:6000", 0, 6000, NULL },
		{ "core::L1D_REPL:500", 0, 500, NULL },
		/* a model without rows: the kind's minimum (a cycle counter by its name) */
		{ "skl::UNHALTED_CORE_CYCLES:5999", -MP_EPARSE, 6000, "for a cycle/instruction counter" },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.pmu_model = "amd64_fam19h_zen4";
		int rc = mp_event_parse(c[i].spec, &o, &ev, &err);
		if (rc != c[i].rc || (c[i].msg && !strstr(err.msg, c[i].msg)))
			fail_msg("'%s': rc %d, message '%s'", c[i].spec, rc, err.msg);
		if (!rc && ev.min_count != c[i].min)
			fail_msg("'%s': minimum %llu, expected %llu", c[i].spec,
				 (unsigned long long)ev.min_count, (unsigned long long)c[i].min);
	}
	const char *tsv = mp_pmu_table_text();
	size_t rows = 0;
	for (const char *p = tsv; (p = strstr(p, "\nminimum\tcore\t")); p++) {
		char name[64], spec[96];
		int n = sscanf(p + 14, "%63[^\t]", name);
		assert_int_equal(n, 1);
		snprintf(spec, sizeof(spec), "core::%s", name);
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.pmu_model = "amd64_fam19h_zen4";
		o.count_only = 1;
		int rc = mp_event_parse(spec, &o, &ev, &err);
		/* an event that needs a unit mask is known too: the message says so */
		if (rc && !strstr(err.msg, "unit mask"))
			fail_msg("pmu_models.tsv minimum row %s: %s", name, err.msg);
		rows++;
	}
	assert_int_equal(rows, 133);
	assert_int_equal(mp_pmu_event_min("core::INST_RETIRED:ANY_P:u"), 6000);
	assert_int_equal(mp_pmu_event_min("core::br_inst_exec"), 3000);
	assert_int_equal(mp_pmu_event_min("core::L2_LINES_IN.SELF.ANY"), 500);
	assert_int_equal(mp_pmu_event_min("skl::L1D:REPLACEMENT"), 0);
	assert_int_equal(mp_pmu_event_min("cycles"), 0);
	assert_int_equal(mp_pmu_event_min(NULL), 0);
	/* a default below the event's own minimum is raised to it: none on core today, the
	 * kinds' defaults (10000, 100000) are above every minimum of the list */
	struct mp_evopts o = { 0 };
	struct mp_event ev;
	struct mp_err err = { 0, "" };
	o.pmu_model = "amd64_fam19h_zen4";
	assert_int_equal(mp_event_parse("core::BR_INST_EXEC", &o, &ev, &err), 0);
	assert_int_equal(ev.attr.sample_period, 10000);
}

static void parse__count_only__no_period_no_minimum(void **state)
{
	(void)state;
	struct mp_evopts o = { 0 };
	struct mp_event ev;
	struct mp_err err = { 0, "" };
	o.count_only = 1;
	o.freq_hz = 1000;
	assert_int_equal(mp_event_parse("cycles", &o, &ev, &err), 0);
	assert_int_equal(ev.attr.sample_period, 0);
	assert_int_equal(ev.attr.freq, 0);
	assert_int_equal(ev.min_count, 6000);
	assert_int_equal(mp_event_default_count(&ev), 100000);
}

static void parse_list__groups_and_commas__split_right(void **state)
{
	(void)state;
	struct mp_evopts o = { 0 };
	struct mp_event *ev;
	size_t n;
	struct mp_err err = { 0, "" };
	o.default_count = 100000;
	o.sysfs_root = NULL;
	char root[600];
	data_path(root, sizeof(root), "sysfs");
	o.sysfs_root = root;
	assert_int_equal(mp_events_parse("cpu-clock,task-clock:200000,page-faults:1", &o, &ev, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ev[0].attr.sample_period, 100000);
	assert_int_equal(ev[1].attr.sample_period, 200000);
	assert_int_equal(ev[2].attr.sample_period, 1);
	assert_int_equal(ev[2].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	free(ev);
	assert_int_equal(mp_events_parse("{cpu-clock,task-clock}:u,cpu/event=0x3c,umask=0x1/k", &o, &ev, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ev[0].attr.exclude_kernel, 1);
	assert_int_equal(ev[1].attr.exclude_kernel, 1);
	assert_int_equal(ev[1].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(ev[2].attr.config, 0x13c);
	assert_int_equal(ev[2].attr.exclude_user, 1);
	free(ev);
	static const struct { const char *list, *msg; } bad[] = {
		{ "cpu-clock,", "trailing comma" },
		{ "cpu-clock,,task-clock", "empty event between commas" },
		{ "{cpu-clock,task-clock", "unbalanced '{'" },
		{ "cpu-clock,L1D_REPLX", "event 'L1D_REPLX'" },
		{ "{cpu-clock}x", "bad group modifier 'x'" },
		{ "", "empty event list" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ev = (struct mp_event *)&err; /* must be reset to NULL on error */
		o.pmu_model = "amd64_fam19h_zen4";
		assert_int_not_equal(mp_events_parse(bad[i].list, &o, &ev, &n, &err), 0);
		assert_null(ev);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].list, err.msg, bad[i].msg);
	}
}

/* perf's group syntax: braces, modifiers after '}', leader sampling :S. */
static void parse_list__groups_and_leader_sampling__attrs_and_errors(void **state)
{
	(void)state;
	static const struct {
		const char *list;
		int count_only;
		size_t n;
		int leader;          /* 1: a :S group */
		uint64_t period0;    /* the leader's period (0 = freq mode or counting) */
		int exclude_kernel;  /* of every member */
		int exclude_user;
		uint64_t config1;    /* the second event's config */
		int line;
	} good[] = {
		{ "{cpu-clock,task-clock}", 0, 2, 0, 100000, 0, 0, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
		{ "{cpu-clock,task-clock}:S", 0, 2, 1, 100000, 0, 0, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
		{ "{cpu-clock:30000,task-clock:50000}:S", 0, 2, 1, 30000, 0, 0, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
		{ "{cpu-clock,page-faults}:uS", 0, 2, 1, 100000, 1, 0, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
		{ "{cpu-clock,page-faults}:Sk", 0, 2, 1, 100000, 0, 1, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
		{ "{cpu-clock,page-faults}:S:u", 0, 2, 1, 100000, 1, 0, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
		{ "{cpu-clock,page-faults}:u", 0, 2, 0, 100000, 1, 0, PERF_COUNT_SW_PAGE_FAULTS, __LINE__ },
		{ "{cpu-clock,cpu/event=0x3c,umask=0x1/}:S", 0, 2, 1, 100000, 0, 0, 0x13c, __LINE__ },
		{ "{cpu-clock,task-clock}:S", 1, 2, 1, 0, 0, 0, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
		{ "{cpu-clock,task-clock},{page-faults,cpu-clock}", 0, 4, 0, 100000, 0, 0, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
		{ "cpu-clock,{task-clock,page-faults}:u", 0, 3, 0, 100000, -1, -1, PERF_COUNT_SW_TASK_CLOCK, __LINE__ },
	};
	char root[600];
	data_path(root, sizeof(root), "sysfs");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct mp_evopts o = { 0 };
		struct mp_event *ev;
		size_t n;
		struct mp_err err = { 0, "" };
		o.sysfs_root = root;
		o.count_only = good[i].count_only;
		if (mp_events_parse(good[i].list, &o, &ev, &n, &err))
			fail_msg("line %d '%s': %s", good[i].line, good[i].list, err.msg);
		assert_int_equal(n, good[i].n);
		assert_int_equal(ev[1].attr.config, good[i].config1);
		for (size_t k = 0; k < n; k++) {
			const struct perf_event_attr *a = &ev[k].attr;
			int want = !good[i].leader ? 0 : k == 0 ? MP_LEADER_SAMPLE_LEADER : MP_LEADER_SAMPLE_MEMBER;
			if (ev[k].leader_sample != want)
				fail_msg("line %d event %zu: leader_sample %d, want %d", good[i].line, k,
					 ev[k].leader_sample, want);
			if (good[i].exclude_kernel >= 0 && (k > 0 || good[i].list[0] == '{')) {
				assert_int_equal(a->exclude_kernel, good[i].exclude_kernel);
				assert_int_equal(a->exclude_user, good[i].exclude_user);
			}
			int sampling_group = good[i].leader && !good[i].count_only;
			assert_int_equal(a->sample_type, sampling_group ? PERF_SAMPLE_READ : 0);
			assert_int_equal(a->read_format,
					 sampling_group ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : 0);
			assert_int_equal(a->freq, 0);
			if (k == 0)
				assert_int_equal(a->sample_period, good[i].period0);
			else if (good[i].leader || good[i].count_only)
				assert_int_equal(a->sample_period, 0);
			else
				assert_true(a->sample_period > 0);
		}
		if (!strcmp(good[i].list, "cpu-clock,{task-clock,page-faults}:u"))
			assert_int_equal(ev[0].attr.exclude_kernel, 0);
		free(ev);
	}
	/* -F: the leader keeps its frequency, the members neither sample nor keep it. */
	{
		struct mp_evopts o = { 0 };
		struct mp_event *ev;
		size_t n;
		struct mp_err err = { 0, "" };
		o.freq_hz = 999;
		assert_int_equal(mp_events_parse("{cpu-clock,task-clock,page-faults}:S", &o, &ev, &n, &err), 0);
		assert_int_equal(n, 3);
		assert_int_equal(ev[0].attr.freq, 1);
		assert_int_equal(ev[0].attr.sample_freq, 999);
		for (size_t k = 1; k < 3; k++) {
			assert_int_equal(ev[k].attr.freq, 0);
			assert_int_equal(ev[k].attr.sample_period, 0);
		}
		assert_string_equal(ev[2].spec, "page-faults");
		free(ev);
	}
	static const struct { const char *list, *msg; } bad[] = {
		{ "{cpu-clock,{task-clock}}", "nested '{' at '{task-clock}}'" },
		{ "{{cpu-clock}}", "nested '{'" },
		{ "{cpu-clock,task-clock", "unbalanced '{' in '{cpu-clock,task-clock' (no closing '}')" },
		{ "cpu-clock,{task-clock", "unbalanced '{' in '{task-clock'" },
		{ "cpu-clock}", "unbalanced '}' in 'cpu-clock}'" },
		{ "{cpu-clock}},task-clock", "unbalanced '}' after the group '{cpu-clock}'" },
		{ "cpu{clock}", "misplaced '{' in 'cpu{clock}'" },
		{ "{}", "empty group '{}'" },
		{ "{}:S", "empty group '{}'" },
		{ "{cpu-clock,,task-clock}", "empty event in the group '{cpu-clock,,task-clock}'" },
		{ "{cpu-clock,}", "empty event in the group '{cpu-clock,}'" },
		{ "{,cpu-clock}", "empty event in the group '{,cpu-clock}'" },
		{ "cpu-clock:S", "event 'cpu-clock:S': the modifier S (leader sampling) applies to a group only" },
		{ "cpu-clock:uS", "event 'cpu-clock:uS': the modifier S" },
		{ "task-clock,cpu-clock:S", "event 'cpu-clock:S': the modifier S" },
		{ "cpu/event=0x3c/S", "event 'cpu/event=0x3c/S': the modifier S" },
		{ "{cpu-clock,task-clock}:S,page-faults", "a leader-sampling group {...}:S must be the whole list" },
		{ "page-faults,{cpu-clock,task-clock}:S", "must be the whole list" },
		{ "{cpu-clock,task-clock}:x", "bad group modifier ':x' after '{cpu-clock,task-clock}' ('x' is none of u, k, h, p, S)" },
		{ "{cpu-clock,task-clock}:", "bad group modifier ':' after '{cpu-clock,task-clock}'" },
		{ "{cpu-clock,task-clock}:S:", "bad group modifier ':S:'" },
		{ "{cpu-clock,task-clock}:1000", "bad group modifier ':1000'" },
		{ "{cpu-clock,nosuchevent}:S", "event 'nosuchevent'" },
		{ "{cpu-clock:S,task-clock}", "event 'cpu-clock:S': the modifier S" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct mp_evopts o = { 0 };
		struct mp_event *ev = (struct mp_event *)&o;
		size_t n = 7;
		struct mp_err err = { 0, "" };
		o.sysfs_root = root;
		o.pmu_model = "skl";
		assert_int_not_equal(mp_events_parse(bad[i].list, &o, &ev, &n, &err), 0);
		assert_null(ev);
		assert_int_equal(n, 0);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].list, err.msg, bad[i].msg);
	}
	/* A libpfm unit mask named S is no leader modifier: snb's L2_LINES_IN:S (lines in S
	 * state, umask 0x02 of event 0xf1), core's SEG_REG_RENAMES:GS. */
	{
		struct mp_evopts o = { 0 };
		struct mp_event *ev;
		size_t n;
		struct mp_err err = { 0, "" };
		if (mp_events_parse("snb::L2_LINES_IN:S,core::SEG_REG_RENAMES:GS", &o, &ev, &n, &err))
			fail_msg("snb::L2_LINES_IN:S: %s", err.msg);
		assert_int_equal(n, 2);
		assert_int_equal(ev[0].leader_sample, 0);
		assert_int_equal(ev[0].attr.type, PERF_TYPE_RAW);
		assert_int_equal(ev[0].attr.config & 0xffff, 0x02f1);
		assert_int_equal(ev[0].attr.sample_type, 0);
		assert_int_equal(ev[1].leader_sample, 0);
		free(ev);
	}
}

/* ---- sysfs PMUs, from tests/data/events/sysfs ---- */
static void sysfs__fake_tree__terms_placed_by_format(void **state)
{
	(void)state;
	static const struct {
		const char *spec;
		int rc;
		uint32_t type;
		uint64_t config, config1;
		uint64_t period;
		int eu, ek;
		const char *msg;
		int line;
	} cases[] = {
		{ "cpu/event=0x3c/", 0, 4, 0x3c, 0, 10000, 0, 0, "cpu/event=0x3c/", __LINE__ },
		{ "cpu/event=0xc0,umask=0x01/", 0, 4, 0x1c0, 0, 10000, 0, 0, "", __LINE__ },
		{ "cpu/event=0x3c,umask=0x1,cmask=2,inv,edge/", 0, 4, 0x3c | 1 << 8 | 2ULL << 24 | 1 << 23 | 1 << 18, 0, 10000, 0, 0, "", __LINE__ },
		{ "cpu/event=0x3c/u", 0, 4, 0x3c, 0, 10000, 0, 1, "cpu/event=0x3c/:u", __LINE__ },
		{ "cpu/event=0x3c/:k:20000", 0, 4, 0x3c, 0, 20000, 1, 0, "", __LINE__ },
		{ "cpu/event=0x3c,period=50000/", 0, 4, 0x3c, 0, 50000, 0, 0, "", __LINE__ },
		{ "cpu/event_ext=0x18e/", 0, 4, 0x10000008eULL, 0, 10000, 0, 0, "", __LINE__ },
		{ "cpu/config=0x1234,config1=5/", 0, 4, 0x1234, 5, 10000, 0, 0, "", __LINE__ },
		{ "cpu/mem-loads/", 0, 4, 0x1cd, 3, 10000, 0, 0, "cpu/mem-loads/", __LINE__ },
		{ "cpu/mem-loads,ldlat=30/", 0, 4, 0x1cd, 30, 10000, 0, 0, "", __LINE__ },
		{ "cpu/mem-stores/", 0, 4, 0x2cd, 0, 10000, 0, 0, "", __LINE__ },
		{ "cpu/cpu-cycles/", 0, 4, 0x3c, 0, 100000, 0, 0, "", __LINE__ },
		{ "cpu/frontend=0x14,event=0xc6,umask=1/", 0, 4, 0x1c6, 0x14, 10000, 0, 0, "", __LINE__ },
		{ "armv8_pmuv3/inst_retired/", 0, 10, 0x8, 0, 100000, 0, 0, "armv8_pmuv3/inst_retired/", __LINE__ },
		{ "armv8_pmuv3/cpu_cycles/", 0, 10, 0x11, 0, 100000, 0, 0, "", __LINE__ },
		{ "armv8_pmuv3/event=0x23,long/", 0, 10, 0x23, 1, 10000, 0, 0, "", __LINE__ },
		{ "stall_frontend", 0, 10, 0x23, 0, 100000, 0, 0, "armv8_pmuv3/stall_frontend/", __LINE__ },
		/* a bare name that is also an alias: the alias wins */
		{ "inst_retired", 0, 4, 0xc0, 0, 100000, 0, 0, "RETIRED_INSTRUCTIONS", __LINE__ },
		{ "msr/tsc/", 0, 9, 0, 0, 10000, 0, 0, "msr/tsc/", __LINE__ },
		{ "cpu/event=0x1ff/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "value 0x1ff too large for term 'event' (8 bits)", __LINE__ },
		{ "cpu/evnt=0x3c/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "event 'cpu/evnt=0x3c/': unknown term 'evnt' for PMU cpu (formats:", __LINE__ },
		{ "cpu/mem-loadz/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "unknown term 'mem-loadz'", __LINE__ },
		{ "nopmu/event=1/", -ENOENT, 0, 0, 0, 0, 0, 0, "event 'nopmu/event=1/': no PMU 'nopmu' under", __LINE__ },
		{ "cpu/event=0x3c", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "expected PMU/terms/", __LINE__ },
		{ "cpu//", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "no terms between the slashes", __LINE__ },
		{ "cpu/event=/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "bad value '' for term 'event'", __LINE__ },
		{ "cpu/event=zz/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "bad value 'zz' for term 'event'", __LINE__ },
		{ "cpu/event=1,,umask=1/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "", __LINE__ },
		{ "cpu/broken/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "bad value '0xqq'", __LINE__ },
		{ "cpu/event=0x3c/x", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "'x' after the PMU terms is not a modifier", __LINE__ },
		{ "../../etc/event=1/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "bad PMU name", __LINE__ },
		{ "cpu/../type/", -MP_EPARSE, 0, 0, 0, 0, 0, 0, "", __LINE__ },
	};
	char root[600];
	data_path(root, sizeof(root), "sysfs");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.sysfs_root = root;
		o.pmu_model = "amd64_fam19h_zen4";
		int rc = mp_event_parse(cases[i].spec, &o, &ev, &err);
		if (rc != cases[i].rc)
			fail_msg("line %d: '%s': rc %d, expected %d (%s)", cases[i].line, cases[i].spec, rc,
				 cases[i].rc, err.msg);
		if (rc) {
			if (!strstr(err.msg, cases[i].msg))
				fail_msg("line %d: '%s' lacks '%s'", cases[i].line, err.msg, cases[i].msg);
			continue;
		}
		if (ev.attr.type != cases[i].type || ev.attr.config != cases[i].config ||
		    ev.attr.config1 != cases[i].config1 || ev.attr.sample_period != cases[i].period ||
		    (int)ev.attr.exclude_user != cases[i].eu || (int)ev.attr.exclude_kernel != cases[i].ek)
			fail_msg("line %d: '%s': type %u config 0x%llx config1 0x%llx period %llu eu %d ek %d",
				 cases[i].line, cases[i].spec, ev.attr.type, (unsigned long long)ev.attr.config,
				 (unsigned long long)ev.attr.config1, (unsigned long long)ev.attr.sample_period,
				 ev.attr.exclude_user, ev.attr.exclude_kernel);
		if (!strstr(ev.resolved, cases[i].msg))
			fail_msg("line %d: resolved '%s' lacks '%s'", cases[i].line, ev.resolved, cases[i].msg);
		assert_int_equal(ev.kind, MP_EV_PMU);
	}
}

/* ---- names of attrs read back from a file ---- */
static void attr_name__kinds__perf_spellings(void **state)
{
	(void)state;
	char root[600];
	data_path(root, sizeof(root), "sysfs");
	setenv("MEMPROF_SYSFS_ROOT", root, 1);
	static const struct {
		uint32_t type;
		uint64_t config, config1;
		int eu, ek, p;
		const char *name;
	} cases[] = {
		{ PERF_TYPE_HARDWARE, 0, 0, 0, 0, 0, "cycles" },
		{ PERF_TYPE_HARDWARE, 1, 0, 0, 1, 0, "instructions:u" },
		{ PERF_TYPE_HARDWARE, 9, 0, 1, 0, 0, "ref-cycles:k" },
		{ PERF_TYPE_HARDWARE, 0, 0, 0, 0, 2, "cycles:pp" },
		{ PERF_TYPE_SOFTWARE, 0, 0, 0, 0, 0, "cpu-clock" },
		{ PERF_TYPE_SOFTWARE, 1, 0, 0, 0, 0, "task-clock" },
		{ PERF_TYPE_SOFTWARE, 2, 0, 0, 0, 0, "page-faults" },
		{ PERF_TYPE_SOFTWARE, 5, 0, 0, 0, 0, "minor-faults" },
		{ PERF_TYPE_SOFTWARE, 9, 0, 0, 0, 0, "dummy" },
		{ PERF_TYPE_HW_CACHE, 0x10000, 0, 0, 0, 0, "L1-dcache-load-misses" },
		{ PERF_TYPE_HW_CACHE, 0x0, 0, 0, 0, 0, "L1-dcache-loads" },
		{ PERF_TYPE_HW_CACHE, 0x10102, 0, 0, 0, 0, "LLC-store-misses" },
		{ PERF_TYPE_HW_CACHE, 0x10004, 0, 0, 0, 0, "iTLB-load-misses" },
		{ PERF_TYPE_HW_CACHE, 0x10203, 0, 0, 0, 0, "dTLB-prefetch-misses" },
		{ PERF_TYPE_HW_CACHE, 0x10104, 0, 0, 0, 0, "iTLB-store-misses" },
		{ PERF_TYPE_HW_CACHE, 0x30000, 0, 0, 0, 0, "type3/config=0x30000/" },
		{ PERF_TYPE_RAW, 0x53003c, 0, 0, 0, 0, "r53003c" },
		{ PERF_TYPE_RAW, 0x1c6, 0x14, 0, 1, 0, "r1c6:u" },
		{ 10, 0x8, 0, 0, 0, 0, "armv8_pmuv3/config=0x8/" },
		{ 4, 0x1cd, 3, 0, 0, 0, "r1cd" },
		{ 77, 0x5, 0x6, 0, 0, 0, "type77/config=0x5,config1=0x6/" },
		{ PERF_TYPE_SOFTWARE, 99, 0, 0, 0, 0, "software/config=0x63/" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_attr a;
		char buf[128];
		memset(&a, 0, sizeof(a));
		a.type = cases[i].type;
		a.config = cases[i].config;
		a.config1 = cases[i].config1;
		a.exclude_user = (unsigned)cases[i].eu;
		a.exclude_kernel = (unsigned)cases[i].ek;
		a.precise_ip = (unsigned)cases[i].p;
		assert_string_equal(mp_event_attr_name(&a, buf, sizeof(buf)), cases[i].name);
	}
	/* round trip: every generic name parses back to the attr that names it */
	for (size_t i = 0; i < mp_generic_nevents; i++) {
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		char buf[128];
		struct mp_event back;
		assert_int_equal(mp_event_parse(mp_generic_events[i].name, NULL, &ev, &err), 0);
		assert_int_equal(mp_event_parse(mp_event_attr_name(&ev.attr, buf, sizeof(buf)), NULL, &back, &err), 0);
		assert_int_equal(back.attr.config, ev.attr.config);
		assert_int_equal(back.attr.type, ev.attr.type);
	}
	unsetenv("MEMPROF_SYSFS_ROOT");
}

/* ---- one-line explanations of refused opens ---- */
static void explain__errnos__name_event_model_and_fix(void **state)
{
	(void)state;
	char nopmu[600], withpmu[600], p2[600], p3[600], p0[600];
	data_path(nopmu, sizeof(nopmu), "sysfs-nopmu");
	data_path(withpmu, sizeof(withpmu), "sysfs");
	data_path(p2, sizeof(p2), "proc-paranoid2");
	data_path(p3, sizeof(p3), "proc-paranoid3");
	data_path(p0, sizeof(p0), "proc-paranoid0");
	static const struct {
		const char *spec;
		int use_pmu_tree;
		const char *proc;
		unsigned freq;
		int errnum;
		const char *msg[3];
		int line;
	} cases[] = {
		{ "L1D_REPL", 0, "2", 0, ENOENT,
		  { "event 'L1D_REPL' (amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:",
		    "the kernel offers no hardware counters on this machine (host PMU model amd64_fam19h_zen4; no cpu PMU under",
		    "software events such as cpu-clock, task-clock, page-faults can be recorded instead, or use --sim for simulated cache events" }, __LINE__ },
		{ "cycles", 0, "2", 0, EOPNOTSUPP, { "event 'cycles': the kernel offers no hardware counters", NULL, NULL }, __LINE__ },
		{ "cycles", 1, "2", 0, ENOENT,
		  { "event 'cycles': the kernel's PMU cpu has no mapping for perf's generic event cycles (No such file or directory)",
		    "the events of model amd64_fam19h_zen4: memprof list", NULL }, __LINE__ },
		{ "L1D_REPL", 1, "2", 0, ENOENT,
		  { "event 'L1D_REPL' (amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:",
		    "ALT_MEM_NEAR_FAR): the kernel's PMU cpu does not know this event (No such file or directory), which is what the alias L1D_REPL maps to on model amd64_fam19h_zen4 (exact)",
		    "; see memprof list --pmu amd64_fam19h_zen4" }, __LINE__ },
		{ "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS", 1, "2", 0, ENOENT,
		  { "event 'amd64_fam19h_zen4::RETIRED_INSTRUCTIONS': the kernel's PMU cpu does not know this event (No such file or directory)",
		    "libpfm4 encoded it for model amd64_fam19h_zen4: if the CPU is another model, name it with --pmu", NULL }, __LINE__ },
		{ "cycles:pp", 1, "2", 0, EOPNOTSUPP, { "precise_ip=2", "drop the 'p' modifier", NULL }, __LINE__ },
		{ "cycles", 1, "2", 0, EACCES,
		  { "kernel.perf_event_paranoid is 2", "add ':u' (e.g. -e cycles:u)", "sysctl kernel.perf_event_paranoid=1" }, __LINE__ },
		{ "cycles", 1, "3", 0, EACCES, { "perf_event_paranoid is 3", "sysctl kernel.perf_event_paranoid=1", NULL }, __LINE__ },
		{ "cycles:u", 1, "2", 0, EPERM, { "system-wide (-a)", NULL, NULL }, __LINE__ },
		{ "cpu-clock", 0, "0", 0, EACCES, { "CAP_PERFMON", NULL, NULL }, __LINE__ },
		{ "cpu-clock", 0, "2", 5000, EINVAL,
		  { "frequency 5000 Hz is above kernel.perf_event_max_sample_rate=1000", "use -F 1000 or less", NULL }, __LINE__ },
		{ "cpu-clock", 0, "2", 0, EINVAL, { "rejected the attributes (EINVAL)", "period 100000", NULL }, __LINE__ },
		{ "cpu-clock", 0, "2", 0, EMFILE, { "too many open files", "ulimit -n", NULL }, __LINE__ },
		{ "cycles", 1, "2", 0, EBUSY, { "busy (EBUSY)", "kernel.nmi_watchdog=0", NULL }, __LINE__ },
		{ "cycles", 1, "2", 0, ENOSPC, { "no free counter", NULL, NULL }, __LINE__ },
		{ "cpu-clock", 0, "2", 0, ESRCH, { "no such process", NULL, NULL }, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.sysfs_root = cases[i].use_pmu_tree ? withpmu : nopmu;
		o.pmu_model = "amd64_fam19h_zen4";
		o.freq_hz = cases[i].freq;
		setenv("MEMPROF_PROC_ROOT", cases[i].proc[0] == '2' ? p2 : cases[i].proc[0] == '3' ? p3 : p0, 1);
		assert_int_equal(mp_event_parse(cases[i].spec, &o, &ev, &err), 0);
		assert_int_equal(mp_event_explain_open_error(&ev, cases[i].errnum, &o, &err), -cases[i].errnum);
		assert_int_equal(err.code, -cases[i].errnum);
		assert_null(strchr(err.msg, '\n'));
		for (int k = 0; k < 3 && cases[i].msg[k]; k++)
			if (!strstr(err.msg, cases[i].msg[k]))
				fail_msg("line %d: '%s' lacks '%s'", cases[i].line, err.msg, cases[i].msg[k]);
		if (cases[i].errnum == EACCES && cases[i].proc[0] == '3')
			assert_null(strstr(err.msg, ":u"));
		assert_null(strstr(err.msg, "may not be"));
	}
	/* An alias without a row for the model: perf's generic event stood in. */
	{
		struct mp_evopts o = { 0 };
		struct mp_event ev;
		struct mp_err err = { 0, "" };
		o.sysfs_root = withpmu;
		o.pmu_model = "wsm";
		setenv("MEMPROF_PROC_ROOT", p2, 1);
		assert_int_equal(mp_event_parse("L1D_REPL", &o, &ev, &err), 0);
		assert_string_equal(ev.resolved, "L1-dcache-load-misses");
		assert_int_equal(mp_event_explain_open_error(&ev, ENOENT, &o, &err), -ENOENT);
		assert_string_equal(err.msg,
				    "event 'L1D_REPL' (L1-dcache-load-misses): the kernel's PMU cpu does not know this event (No such file or directory): aliases.tsv has no row of L1D_REPL for model wsm, so perf's generic L1-dcache-load-misses stood in; the model's own events: memprof list --pmu wsm");
		assert_int_not_equal(mp_event_parse("SSE_PRE_MISS", &o, &ev, &err), 0);
		assert_string_equal(err.msg,
				    "event 'SSE_PRE_MISS': aliases.tsv has no row of SSE_PRE_MISS.NTA for model wsm, and perf's generic events have no equivalent (generic prefetch events do not separate SW prefetches)");
	}
	unsetenv("MEMPROF_PROC_ROOT");
}

static void host_caps__fake_trees__read(void **state)
{
	(void)state;
	char nopmu[600], withpmu[600], p3[600];
	struct mp_host_caps caps;
	struct mp_evopts o = { 0 };
	data_path(nopmu, sizeof(nopmu), "sysfs-nopmu");
	data_path(withpmu, sizeof(withpmu), "sysfs");
	data_path(p3, sizeof(p3), "proc-paranoid3");
	setenv("MEMPROF_PROC_ROOT", p3, 1);
	o.sysfs_root = nopmu;
	o.pmu_model = "skl";
	mp_events_host_caps(&o, &caps);
	assert_int_equal(caps.perf_event_paranoid, 3);
	assert_int_equal(caps.kptr_restrict, 1);
	assert_int_equal(caps.max_sample_rate, 1000);
	assert_int_equal(caps.has_cpu_pmu, 0);
	assert_string_equal(caps.model, "skl");
	o.sysfs_root = withpmu;
	mp_events_host_caps(&o, &caps);
	assert_int_equal(caps.has_cpu_pmu, 1);
	assert_true(!strcmp(caps.cpu_pmu, "cpu") || !strcmp(caps.cpu_pmu, "armv8_pmuv3"));
	unsetenv("MEMPROF_PROC_ROOT");
}

static void host_warnings__paranoid_and_kptr__name_the_sysctl(void **state)
{
	(void)state;
	char p3[600], p0[600];
	struct mp_event ev[2];
	struct mp_err err = { 0, "" };
	struct mp_buf b = { 0 };
	data_path(p3, sizeof(p3), "proc-paranoid3");
	data_path(p0, sizeof(p0), "proc-paranoid0");
	assert_int_equal(mp_event_parse("cpu-clock", NULL, &ev[0], &err), 0);
	assert_int_equal(mp_event_parse("task-clock:u", NULL, &ev[1], &err), 0);
	setenv("MEMPROF_PROC_ROOT", p3, 1);
	assert_int_equal(mp_events_host_warnings(ev, 2, NULL, 0, &b), 2);
	assert_non_null(b.data);
	assert_non_null(strstr(b.data, "kernel.perf_event_paranoid is 3: event 'cpu-clock' counts kernel space"));
	assert_non_null(strstr(b.data, "'sysctl kernel.perf_event_paranoid=1'; add ':u'"));
	assert_non_null(strstr(b.data, "kernel.kptr_restrict is 1: kernel addresses are hidden"));
	mp_buf_fini(&b);
	memset(&b, 0, sizeof(b));
	assert_int_equal(mp_events_host_warnings(ev, 2, NULL, 1, &b), 0); /* root: both fine */
	assert_int_equal(mp_events_host_warnings(&ev[1], 1, NULL, 0, &b), 0); /* :u only */
	setenv("MEMPROF_PROC_ROOT", p0, 1);
	assert_int_equal(mp_events_host_warnings(ev, 1, NULL, 0, &b), 1); /* kptr only */
	assert_non_null(strstr(b.data, "kptr_restrict is 1"));
	assert_null(strstr(b.data, "paranoid"));
	mp_buf_fini(&b);
	unsetenv("MEMPROF_PROC_ROOT");
}

/* ---- the live kernel: software events open; hardware ones do where a PMU exists ---- */
static void probe__live_kernel__software_opens_hardware_explained(void **state)
{
	(void)state;
	struct mp_event ev;
	struct mp_err err = { 0, "" };
	assert_int_equal(mp_event_parse("cpu-clock", NULL, &ev, &err), 0);
	int rc = mp_event_probe(&ev, &err);
	if (rc == -EACCES || rc == -EPERM)
		skip();
	assert_int_equal(rc, 0);
	assert_int_equal(mp_event_parse("page-faults:1", NULL, &ev, &err), 0);
	assert_int_equal(mp_event_probe(&ev, &err), 0);
	if (mp_sysfs_has_cpu_pmu(NULL, NULL, 0))
		return; /* a real PMU: whether cycles opens depends on the machine */
	assert_int_equal(mp_event_parse("cycles", NULL, &ev, &err), 0);
	rc = mp_event_probe(&ev, &err);
	assert_true(rc == -ENOENT || rc == -EOPNOTSUPP || rc == -ENODEV);
	assert_non_null(strstr(err.msg, "the kernel offers no hardware counters on this machine"));
}

/* ---- memprof list ---- */
static char *list_to_string(const char *model, const char *pattern, int *rc, struct mp_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	*rc = mp_events_list(f, model, pattern, err);
	fclose(f);
	return buf;
}

static void list__skl_pattern__aliases_and_umasks(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	int rc;
	char *s = list_to_string("skl", "L1D", &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(s, "Events for model skl"));
	assert_non_null(strstr(s, "  L1D_REPL                 -> L1D:REPLACEMENT [exact]"));
	assert_non_null(strstr(s, "= skl::L1D:REPLACEMENT  default/min   10000    500  opens here: n/a"));
	assert_non_null(strstr(s, "skl events (libpfm4"));
	assert_non_null(strstr(s, ":REPLACEMENT"));
	assert_non_null(strstr(s, "  L1D_PEND_MISS "));
	assert_non_null(strstr(s, "timer (ns)                   default  100000  minimum  10000"));
	assert_null(strstr(s, "cpu-clock "));
	free(s);
	s = list_to_string("amd64_fam19h_zen4", "LOAD_BLOCK", &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(s, "LOAD_BLOCK.L1D           -> none; closest: ALLOC_MAB_COUNT"));
	free(s);
	s = list_to_string("skl", "no-such-event-anywhere", &rc, &err);
	assert_int_equal(rc, -ENOENT);
	assert_string_equal(err.msg, "no event matches 'no-such-event-anywhere' for model skl");
	free(s);
	s = list_to_string("nosuchmodel", NULL, &rc, &err);
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err.msg, "unknown PMU model 'nosuchmodel'"));
	free(s);
	s = list_to_string("skl", "cpu-clock", &rc, &err);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(s, "  cpu-clock "));
	free(s);
}

static void alias_table__embedded__matches_source_file(void **state)
{
	(void)state;
	char path[600];
	snprintf(path, sizeof(path), "%s/../../events/aliases.tsv", data_dir);
	size_t len;
	struct mp_err err = { 0, "" };
	char *text = mp_read_file(path, &len, &err);
	assert_non_null(text);
	assert_string_equal(text, mp_alias_table_text());
	free(text);
	struct mp_alias_row r;
	assert_int_equal(mp_alias_find("l2_lines_in", "skl", &r), 1);
	assert_string_equal(r.alias, "L2_LINES_IN.SELF.ANY");
	assert_int_equal(mp_alias_find("L2_LINES_IN:SELF:DEMAND", "skl", &r), 1);
	assert_string_equal(r.event, "L2_RQSTS:ALL_DEMAND_MISS");
	assert_int_equal(mp_alias_find("L2_LINES", "skl", &r), 0);
	assert_int_equal(mp_alias_find("L1D_REPL", "hsw", &r), -1);
	assert_string_equal(r.model, "perf");
	assert_int_equal(mp_alias_get(100000, &r), -ERANGE);
}

/* events/pmu_models.tsv: the embedded copy is the file, and its rows say what the code used
 * to hard-wire (cpuid to model, counters, lineage variants, core PMUs, fixed events). */
static void pmu_table__rows__model_counters_core_fixed(void **state)
{
	(void)state;
	char path[600];
	snprintf(path, sizeof(path), "%s/../../events/pmu_models.tsv", data_dir);
	size_t len;
	struct mp_err err = { 0, "" };
	char *text = mp_read_file(path, &len, &err);
	assert_non_null(text);
	assert_string_equal(text, mp_pmu_table_text());
	free(text);
	static const struct { const char *cpuid, *model; } ids[] = {
		{ "GenuineIntel,6,158,10", "skl" }, { "GenuineIntel,6,15,11", "core" },
		{ "GenuineIntel,6,69,1", "hsw" }, { "GenuineIntel,6,28,10", "atom" },
		{ "AuthenticAMD,23,49,0", "amd64_fam17h_zen2" },
		{ "AuthenticAMD,23,1,0", "amd64_fam17h_zen1" },
		{ "AuthenticAMD,25,17,0", "amd64_fam19h_zen4" },
		{ "AuthenticAMD,25,33,0", "amd64_fam19h_zen3" },
		{ "AuthenticAMD,26,2,0", "amd64_fam1ah_zen5" },
		{ "0x00000000410fd080", "arm_ac72" }, { "0x00000000414fd0c1", "arm_n1" },
		{ "0x00000000411fd401", "arm_v1" }, { "0x00000000410fd490", "arm_n2" },
		{ "0x00000000413fd0b1", "arm_ac76" }, { "0x00000000611f0220", "apple" },
		{ "0x00000000510f8000", "armv8" },
		{ "GenuineIntel,6,999,1", NULL }, { "GenuineIntel,15,2,1", NULL },
		{ "HygonGenuine,24,0,0", NULL }, { "junk", NULL },
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const char *m = mp_pmu_model_for_cpuid(ids[i].cpuid);
		if (ids[i].model)
			assert_string_equal(m, ids[i].model);
		else
			assert_null(m);
	}
	struct mp_pmu_model m;
	assert_int_equal(mp_pmu_model_get("icx", &m), 1);
	assert_int_equal(m.programmable, 8);
	assert_int_equal(m.fixed, 4);
	assert_int_equal(m.nvariants, 2);
	assert_string_equal(m.variant[0], "icx");
	assert_string_equal(m.variant[1], "icl");
	assert_int_equal(mp_pmu_model_get("cachegrind", &m), 1);
	assert_int_equal(m.programmable, 4);
	assert_int_equal(m.nvariants, 1);
	assert_int_equal(mp_pmu_model_get("netburst", &m), 0);
	assert_int_equal(m.programmable, 4);
	assert_int_equal(m.fixed, 0);
	assert_int_equal(m.nvariants, 0);
	static const char *const core[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3_0",
					    "armv7_cortex_a15", "arm_cortex_a53_pmu", "power9" };
	static const char *const other[] = { "power", "software", "tracepoint", "msr",
					     "uncore_imc_0", "breakpoint", "kprobe" };
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		assert_true(mp_pmu_is_core(core[i]));
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		assert_false(mp_pmu_is_core(other[i]));
	assert_true(mp_pmu_fixed_event("INST_RETIRED.ANY"));
	assert_true(mp_pmu_fixed_event("cycles"));
	assert_false(mp_pmu_fixed_event("L1D_REPL"));
	assert_true(mp_pmu_frequent_name("skl::UOPS_RETIRED:ALL"));
	assert_true(mp_pmu_frequent_name("cpu_clk_unhalted"));
	assert_false(mp_pmu_frequent_name("skl::L1D:REPLACEMENT"));
	assert_int_equal(mp_pmu_sim_quantity("D1mw"), 5);
	assert_int_equal(mp_pmu_sim_quantity("d1mw"), -1);
	assert_string_equal(mp_pmu_sim_quantity_name(12), "Bim");
	assert_string_equal(mp_pmu_sim_quantity_name(13), "HITM");
	assert_string_equal(mp_pmu_sim_quantity_name(14), "Inv");
	assert_string_equal(mp_pmu_sim_quantity_name(22), "IFst");
	assert_string_equal(mp_pmu_sim_quantity_name(23), "L3m");
	assert_null(mp_pmu_sim_quantity_name(24));
}

/* aliases.tsv and pmu_models.tsv are read by util's TSV reader: a bad row is an error that
 * names the file and line, never a row dropped; the embedded tables read whole. */
static void table_parse__bad_rows__error_names_file_and_line(void **state)
{
	(void)state;
	static const struct {
		int pmu; /* 1: pmu_models.tsv's parser, 0: aliases.tsv's */
		const char *text, *msg;
	} cases[] = {
		{ 0, "alias\tmodel\tevent\tstatus\tclosest\tnote\n# c\nX\tcore\tY\n",
		  "a.tsv:3: 3 columns, expected 4 to 6 (alias, model, event, status, closest, note)" },
		{ 0, "alias\tmodel\tevent\tstatus\tclosest\tnote\nX\tcore\tY\texact\t\tn\textra\n",
		  "a.tsv:2: 7 columns, expected 4 to 6 (alias, model, event, status, closest, note)" },
		{ 0, "alias\tmodel\tevent\tstatus\tclosest\tnote\nX\tcore\tY\ttoo_long_status\n",
		  "a.tsv:2: status: 15 characters, at most 7" },
		{ 0, "X\tcore\tY\texact\n", "a.tsv:1: expected the header alias, model, event, "
					   "status, closest, note" },
		{ 1, "kind\tkey\nfixed\n", "a.tsv:2: 1 columns, expected 2 to 7 (kind, key)" },
		{ 1, "kind\tkey\n\nmodel\tm\t1\t2\t3\t4\t5\t6\n",
		  "a.tsv:3: 8 columns, expected 2 to 7 (kind, key)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = strdup(cases[i].text);
		struct mp_err err = { 0 };
		size_t n = 99;
		int rc;
		if (cases[i].pmu) {
			struct pmu_row *rows = NULL;
			rc = mp_pmu_table_parse(text, "a.tsv", &rows, &n, &err);
			assert_null(rows);
		} else {
			struct mp_alias_row *rows = NULL;
			rc = mp_alias_table_parse(text, "a.tsv", &rows, &n, &err);
			assert_null(rows);
		}
		assert_int_equal(rc, -MP_EPARSE);
		assert_string_equal(err.msg, cases[i].msg);
		free(text);
	}
	/* the embedded tables: every row that is not a comment is a row */
	char *text = strdup(mp_alias_table_text());
	struct mp_alias_row *rows = NULL;
	struct mp_err err = { 0 };
	size_t n = 0, lines = 0;
	for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		lines += *p != '#' && *p != '\n';
	assert_int_equal(mp_alias_table_parse(text, "aliases.tsv", &rows, &n, &err), 0);
	assert_int_equal(n, lines - 1); /* the header */
	assert_int_equal(mp_alias_count(), n);
	free(rows);
	free(text);
	text = strdup(mp_pmu_table_text());
	struct pmu_row *prows = NULL;
	assert_int_equal(mp_pmu_table_parse(text, "pmu_models.tsv", &prows, &n, &err), 0);
	assert_true(n > 100);
	free(prows);
	free(text);
}

int main(void)
{
	const char *td = getenv("TESTS_DATA");
	snprintf(data_dir, sizeof(data_dir), "%s", td ? td : "tests/data");
	if (getenv("LIBPFM_FORCE_PMU")) {
		const struct CMUnitTest forced[] = {
			cmocka_unit_test(encodings__forced_model_unprefixed__equal_check_events),
		};
		return cmocka_run_group_tests(forced, NULL, NULL);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__table__accepts_forms_and_names_bad_parts),
		cmocka_unit_test(parse__count_only__no_period_no_minimum),
		cmocka_unit_test(parse__per_event_minimum__oprofile_core2),
		cmocka_unit_test(parse_list__groups_and_commas__split_right),
		cmocka_unit_test(parse_list__groups_and_leader_sampling__attrs_and_errors),
		cmocka_unit_test(encodings__every_tsv_row_prefixed__equal_check_events),
		cmocka_unit_test(mp_alias_find__cachegrind__sums_from_the_sim_table),
		cmocka_unit_test(aliases__every_row__resolves_as_the_table_says),
		cmocka_unit_test(aliases__key_cases__resolve_per_model),
		cmocka_unit_test(table_parse__bad_rows__error_names_file_and_line),
		cmocka_unit_test(aliases__arm_rows__map_the_article_names),
		cmocka_unit_test(alias_table__embedded__matches_source_file),
		cmocka_unit_test(pmu_table__rows__model_counters_core_fixed),
		cmocka_unit_test(sysfs__fake_tree__terms_placed_by_format),
		cmocka_unit_test(attr_name__kinds__perf_spellings),
		cmocka_unit_test(explain__errnos__name_event_model_and_fix),
		cmocka_unit_test(host_caps__fake_trees__read),
		cmocka_unit_test(host_warnings__paranoid_and_kptr__name_the_sysctl),
		cmocka_unit_test(probe__live_kernel__software_opens_hardware_explained),
		cmocka_unit_test(list__skl_pattern__aliases_and_umasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
