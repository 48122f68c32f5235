/* test_sim.c - record --sim: the simulator's event table, cache geometry, the callgrind
 * and valgrind-log parsers, and the perf.data file built from a callgrind profile (read
 * back with the analyzer's reader). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_analyzer.h"
#include "mp_collector.h"
#include "mp_events.h"
#include "mp_sim.h"
#include "mp_sim_int.h"

static char data_dir[1024];

static const char *data(const char *name)
{
	static char path[2][1200];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/sim/%s", data_dir, name);
	return path[k];
}

#define M(x) (1u << MP_SIM_##x)

/* ---- events ---- */

static const struct {
	const char *spec;
	int rc;
	const char *name;   /* canonical, or a piece of the error message */
	uint32_t mask;
	uint32_t type;
	int line;
} event_cases[] = {
	{ "L1D_REPL", 0, "L1D_REPL", M(D1MR) | M(D1MW), PERF_TYPE_RAW, __LINE__ },
	{ "D1mr", 0, "D1mr", M(D1MR), PERF_TYPE_RAW, __LINE__ },
	{ "ilmr", 0, "ILmr", M(ILMR), PERF_TYPE_RAW, __LINE__ },
	{ "Bim:u", 0, "Bim", M(BIM), PERF_TYPE_RAW, __LINE__ },
	{ "L2_LINES_IN:SELF:ANY", 0, "L2_LINES_IN.SELF.ANY", M(ILMR) | M(DLMR) | M(DLMW), PERF_TYPE_RAW, __LINE__ },
	{ "L1D_CACHE_LD:MESI:u", 0, "L1D_CACHE_LD.MESI", M(DR), PERF_TYPE_RAW, __LINE__ },
	{ "INSTRUCTION_RETIRED", 0, "INSTRUCTION_RETIRED", M(IR), PERF_TYPE_RAW, __LINE__ },
	{ "UNHALTED_CORE_CYCLES", -MP_ENOTSUP, "not cycles", 0, 0, __LINE__ },
	{ "inst_retired.any", 0, "INST_RETIRED.ANY", M(IR), PERF_TYPE_RAW, __LINE__ },
	{ "INST_RETIRED:6000:0:0:1", 0, "INST_RETIRED", M(IR), PERF_TYPE_RAW, __LINE__ },
	{ "L1I_MISSES", 0, "L1I_MISSES", M(I1MR), PERF_TYPE_RAW, __LINE__ },
	{ "L2_LINES_IN.SELF.ANY", 0, "L2_LINES_IN.SELF.ANY", M(ILMR) | M(DLMR) | M(DLMW), PERF_TYPE_RAW, __LINE__ },
	{ "L2_IFETCH.SELF.I_STATE", 0, "L2_IFETCH.SELF.I_STATE", M(ILMR), PERF_TYPE_RAW, __LINE__ },
	{ "L1D_CACHE_LD.MESI", 0, "L1D_CACHE_LD.MESI", M(DR), PERF_TYPE_RAW, __LINE__ },
	{ "BR_INST_RETIRED.ANY", 0, "BR_INST_RETIRED.ANY", M(BC) | M(BI), PERF_TYPE_RAW, __LINE__ },
	{ "BR_MISSP_EXEC", 0, "BR_MISSP_EXEC", M(BCM) | M(BIM), PERF_TYPE_RAW, __LINE__ },
	{ "instructions:u", 0, "instructions", M(IR), PERF_TYPE_HARDWARE, __LINE__ },
	{ "branches", 0, "branches", M(BC) | M(BI), PERF_TYPE_HARDWARE, __LINE__ },
	{ "branch-misses", 0, "branch-misses", M(BCM) | M(BIM), PERF_TYPE_HARDWARE, __LINE__ },
	{ "cache-references", 0, "cache-references", M(I1MR) | M(D1MR) | M(D1MW), PERF_TYPE_HARDWARE, __LINE__ },
	{ "cache-misses", 0, "cache-misses", M(ILMR) | M(DLMR) | M(DLMW), PERF_TYPE_HARDWARE, __LINE__ },
	{ "L1-dcache-load-misses", 0, "L1-dcache-load-misses", M(D1MR), PERF_TYPE_HW_CACHE, __LINE__ },
	{ "L1-dcache-loads", 0, "L1-dcache-loads", M(DR), PERF_TYPE_HW_CACHE, __LINE__ },
	{ "LLC-load-misses", 0, "LLC-load-misses", M(DLMR), PERF_TYPE_HW_CACHE, __LINE__ },
	{ "cycles", -MP_ENOTSUP, "no timing model", 0, 0, __LINE__ },
	{ "CPU_CLK_UNHALTED.CORE", -MP_ENOTSUP, "not cycles", 0, 0, __LINE__ },
	{ "CYCLES_L1I_MEM_STALLED", -MP_ENOTSUP, "stall cycles", 0, 0, __LINE__ },
	{ "ITLB_MISS_RETIRED", -MP_ENOTSUP, "no TLB model", 0, 0, __LINE__ },
	{ "dTLB-load-misses", -MP_ENOTSUP, "no TLB model", 0, 0, __LINE__ },
	{ "SSE_PRE_MISS.NTA", -MP_ENOTSUP, "no prefetch model", 0, 0, __LINE__ },
	{ "LOAD_HIT_PRE", -MP_ENOTSUP, "no prefetch model", 0, 0, __LINE__ },
	{ "STORE_BLOCK.ORDER", -MP_ENOTSUP, "blocking", 0, 0, __LINE__ },
	{ "cpu-clock", -MP_ENOTSUP, "without --sim", 0, 0, __LINE__ },
	{ "L1D_REPL:k", -MP_ENOTSUP, "only user-space", 0, 0, __LINE__ },
	{ "INST_RETIRED:6000:0:1:0", -MP_ENOTSUP, "only user-space", 0, 0, __LINE__ },
	{ "L1D_REPL:z", -MP_EPARSE, "unknown modifier 'z'", 0, 0, __LINE__ },
	{ "cpu/event=0xc0/", -MP_ENOTSUP, "raw PMU events", 0, 0, __LINE__ },
	{ "L1D_REPLX", -MP_ENOTSUP, "not an event the simulator counts", 0, 0, __LINE__ },
};

static void mp_sim_event_parse__table__names_masks_and_refusals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(event_cases) / sizeof(event_cases[0]); i++) {
		struct mp_sim_event ev;
		struct mp_err err = { 0 };
		int rc = mp_sim_event_parse(event_cases[i].spec, &ev, &err);
		if (rc != event_cases[i].rc)
			fail_msg("line %d: '%s': rc %d, expected %d (%s)", event_cases[i].line,
				 event_cases[i].spec, rc, event_cases[i].rc, err.msg);
		if (rc) {
			if (!strstr(err.msg, event_cases[i].name) || !strstr(err.msg, event_cases[i].spec))
				fail_msg("line %d: message '%s' lacks '%s'", event_cases[i].line, err.msg,
					 event_cases[i].name);
			continue;
		}
		if (strcmp(ev.name, event_cases[i].name) || ev.mask != event_cases[i].mask ||
		    ev.type != event_cases[i].type || strcmp(ev.spec, event_cases[i].spec))
			fail_msg("line %d: '%s' -> name '%s' mask %#x type %u", event_cases[i].line,
				 event_cases[i].spec, ev.name, ev.mask, ev.type);
	}
}

static void mp_sim_event_parse__alias__formula_and_config(void **state)
{
	struct mp_sim_event ev;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_event_parse("L2_LINES_IN", &ev, &err), 0);
	assert_string_equal(ev.formula, "ILmr+DLmr+DLmw");
	assert_int_equal(ev.config, ev.mask);
	assert_int_equal(mp_sim_event_parse("instructions", &ev, &err), 0);
	assert_string_equal(ev.formula, "Ir");
	assert_int_equal(ev.config, PERF_COUNT_HW_INSTRUCTIONS);
}

static void mp_sim_events_parse__list__in_order(void **state)
{
	struct mp_sim_event *evs;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_events_parse("L1D_REPL,INST_RETIRED,branch-misses", &evs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(evs[0].name, "L1D_REPL");
	assert_string_equal(evs[1].name, "INST_RETIRED");
	assert_string_equal(evs[2].name, "branch-misses");
	free(evs);
	assert_int_equal(mp_sim_events_parse(MP_SIM_DEFAULT_EVENTS, &evs, &n, &err), 0);
	assert_int_equal(n, MP_SIM_NCG);
	for (int q = 0; q < MP_SIM_NCG; q++) {
		assert_string_equal(evs[q].name, mp_sim_quantity_name(q));
		assert_int_equal(evs[q].mask, 1u << q);
	}
	free(evs);
}

static void mp_sim_events_parse__bad_lists__error_names_event(void **state)
{
	struct mp_sim_event *evs = (void *)1;
	size_t n = 9;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_events_parse("L1D_REPL,l1d_repl", &evs, &n, &err), -MP_EPARSE);
	assert_non_null(strstr(err.msg, "'l1d_repl' is given twice"));
	assert_null(evs);
	assert_int_equal(n, 0);
	assert_int_equal(mp_sim_events_parse("L1D_REPL,,INST_RETIRED", &evs, &n, &err), -MP_EPARSE);
	assert_non_null(strstr(err.msg, "empty event name"));
	assert_int_equal(mp_sim_events_parse("INST_RETIRED,cycles", &evs, &n, &err), -MP_ENOTSUP);
	assert_non_null(strstr(err.msg, "'cycles'"));
}

/* ---- the event table: events/sim_events.tsv (events/mp_sim_table.c) ---- */

/* events/aliases.tsv's cachegrind rows (event and status "sim") are filled from the
 * simulator's table: record --sim must give what they say. */
static void mp_sim_event_parse__aliases_tsv_cachegrind_rows__same_sums(void **state)
{
	size_t seen = 0;
	(void)state;
	for (size_t i = 0; i < mp_alias_count(); i++) {
		struct mp_alias_row r;
		struct mp_sim_event ev;
		struct mp_err err = { 0 };
		char want[64];
		size_t o = 0;
		assert_int_equal(mp_alias_get(i, &r), 0);
		if (strcmp(r.model, "cachegrind"))
			continue;
		seen++;
		for (const char *c = r.event; *c && o + 1 < sizeof(want); c++)
			if (*c != ' ')
				want[o++] = *c;
		want[o] = 0;
		int rc = mp_sim_event_parse(r.alias, &ev, &err);
		if (!strcmp(want, "none") ? rc != -MP_ENOTSUP : rc || strcmp(ev.formula, want))
			fail_msg("aliases.tsv %s (cachegrind: %s): simulator gives rc %d '%s' (%s)",
				 r.alias, r.event, rc, rc ? "" : ev.formula, err.msg);
	}
	assert_true(seen >= 10);
}

/* Real rows of the embedded table, looked up as record --sim does. */
static void mp_sim_table_get__embedded__real_rows(void **state)
{
	struct mp_err err = { 0 };
	const mp_sim_table *t = mp_sim_table_get(&err);
	char canon[64];
	(void)state;
	if (!t)
		fail_msg("%s", err.msg);
	assert_true(mp_sim_table_count(t) >= 48);
	const struct mp_sim_alias *a = mp_sim_table_find(t, "l1d_repl.any", canon, sizeof(canon));
	assert_non_null(a);
	assert_string_equal(canon, "L1D_REPL.ANY");
	assert_string_equal(a->names, "L1D_REPL|L1D_REPL.ANY");
	assert_int_equal(a->mask, M(D1MR) | M(D1MW));
	assert_int_equal(a->type, PERF_TYPE_RAW);
	assert_string_equal(a->hint, "L1D_REPL");
	assert_null(a->note);
	assert_true(a->line > 1);
	a = mp_sim_table_find(t, "LLC-store-misses", NULL, 0);
	assert_non_null(a);
	assert_int_equal(a->mask, M(DLMW));
	assert_int_equal(a->type, PERF_TYPE_HW_CACHE);
	assert_int_equal(a->config, PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
					    PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	a = mp_sim_table_find(t, "branch-instructions", NULL, 0);
	assert_non_null(a);
	assert_int_equal(a->type, PERF_TYPE_HARDWARE);
	assert_int_equal(a->config, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	a = mp_sim_table_find(t, "BR_MISP_RETIRED.ALL_BRANCHES", NULL, 0);
	assert_non_null(a);
	assert_int_equal(a->mask, M(BCM) | M(BIM));
	assert_string_equal(a->hint, "BR_MISSP_EXEC");
	a = mp_sim_table_find(t, "dTLB-store-misses", NULL, 0);
	assert_non_null(a);
	assert_int_equal(a->mask, 0);
	assert_string_equal(a->note, "callgrind has no TLB model; memprof's tool counts ITLBm, DTLBm "
				     "and STLBm (record -e ITLBm)");
	assert_null(mp_sim_table_find(t, "L1D_REP", NULL, 0));
	assert_string_equal(mp_sim_table_quantity_desc(t, MP_SIM_ILMR),
			    "last-level cache instruction read misses (this machine's L2 by default)");
	assert_string_equal(mp_sim_table_quantity_desc(t, MP_SIM_BIM), "indirect branches mispredicted");
	const char *offer = mp_sim_table_offer(t);
	assert_non_null(strstr(offer, "callgrind's Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw, "
				      "Bc, Bcm, Bi, Bim; mpsim's HITM, Inv, ITLBm, DTLBm, STLBm, PFx, "
				      "PFm, PFl, Cyc, IFst, L3m; INST_RETIRED, L1D_REPL, "));
	assert_non_null(strstr(offer, ", BR_MISSP_EXEC, "));
	assert_non_null(strstr(offer, ", LLC-loads, LLC-load-misses"));
	/* every spelling of every row is an event spec giving the row's sum (or its refusal) */
	for (size_t i = 0; i < mp_sim_table_count(t); i++) {
		const struct mp_sim_alias *r = mp_sim_table_row(t, i);
		for (const char *s = r->names;;) {
			size_t len = strcspn(s, "|");
			char spec[64];
			struct mp_sim_event ev;
			snprintf(spec, sizeof(spec), "%.*s", (int)len, s);
			int rc = mp_sim_event_parse(spec, &ev, &err);
			if (r->mask ? rc || ev.mask != r->mask || strcmp(ev.name, spec)
				    : rc != -MP_ENOTSUP || !strstr(err.msg, r->note))
				fail_msg("sim_events.tsv:%u: '%s' -> rc %d mask %#x (%s)", r->line, spec,
					 rc, ev.mask, err.msg);
			if (!s[len])
				break;
			s += len + 1;
		}
	}
}

/* The embedded table with one line appended: an alias is a row of data. */
static int parse_with(const char *row, mp_sim_table **t, struct mp_err *err, unsigned *line)
{
	const char *text = mp_sim_table_text();
	size_t n = strlen(text) + strlen(row) + 2;
	char *buf = malloc(n);
	assert_non_null(buf);
	snprintf(buf, n, "%s%s\n", text, row);
	*line = 1;
	for (const char *c = text; *c; c++)
		*line += *c == '\n';
	int rc = mp_sim_table_parse(buf, "my.tsv", t, err);
	free(buf);
	return rc;
}

static void mp_sim_table_parse__new_row__is_an_alias(void **state)
{
	mp_sim_table *t;
	struct mp_err err = { 0 };
	unsigned line;
	(void)state;
	assert_int_equal(parse_with("MY_L1_MISSES|MY_L1_MISSES.ALL\tI1mr+D1mr+D1mw\traw\tMY_L1_MISSES\t-",
				    &t, &err, &line), 0);
	const struct mp_sim_alias *a = mp_sim_table_find(t, "my_l1_misses.all", NULL, 0);
	assert_non_null(a);
	assert_int_equal(a->mask, M(I1MR) | M(D1MR) | M(D1MW));
	assert_int_equal(a->line, line);
	size_t ol = strlen(mp_sim_table_offer(t));
	assert_true(ol > 14);
	assert_string_equal(mp_sim_table_offer(t) + ol - 14, ", MY_L1_MISSES");
	mp_sim_table_free(t);
}

static const struct {
	const char *row;
	const char *msg; /* after "my.tsv:LINE: " */
} bad_rows[] = {
	{ "MY_EV\tD1mr+Xmr\traw\t-\t-", "counts: 'Xmr' is not one of callgrind's quantities (Ir, Dr, " },
	{ "MY_EV\tIr+Ir\traw\t-\t-", "counts: 'Ir' is summed twice" },
	{ "MY_EV\tIr\traw\t-", "4 columns, expected 5 (names, counts, perf, hint, note)" },
	{ "MY_EV\tIr\traw\t-\t-\textra", "6 columns, expected 5" },
	{ "MY_EV\tIr\tinstruction\t-\t-", "perf: 'instruction' is neither 'raw' nor one of perf's generic events" },
	{ "MY_EV|\tIr\traw\t-\t-", "names: an empty spelling in 'MY_EV|'" },
	{ "MY_EV|l1d_repl.any\tIr\traw\t-\t-", "names: 'l1d_repl.any' is also a spelling on line " },
	{ "MY_EV\t-\traw\t-\tno model", "'MY_EV' cannot be simulated (counts '-'): it takes perf '-', hint '-' and why in note" },
	{ "MY_EV\t-\t-\t-\t-", "'MY_EV' cannot be simulated" },
	{ "MY_EV\tIr\traw\tMY_EVENT\t-", "hint: 'MY_EVENT' is not one of the row's names" },
};

static void mp_sim_table_parse__bad_row__error_names_file_and_line(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_rows) / sizeof(bad_rows[0]); i++) {
		mp_sim_table *t = NULL;
		struct mp_err err = { 0 };
		unsigned line;
		char want[300];
		int rc = parse_with(bad_rows[i].row, &t, &err, &line);
		snprintf(want, sizeof(want), "my.tsv:%u: %s", line, bad_rows[i].msg);
		if (rc != -MP_EPARSE || t || strncmp(err.msg, want, strlen(want)))
			fail_msg("row '%s': rc %d, message '%s', expected '%s...'", bad_rows[i].row, rc,
				 err.msg, want);
	}
	/* the table as a whole: a header, and a row for each quantity */
	mp_sim_table *t = NULL;
	struct mp_err err = { 0 };
	assert_int_equal(mp_sim_table_parse("# x\nname\tcounts\tperf\thint\tnote\n", "h.tsv", &t, &err),
			 -MP_EPARSE);
	assert_string_equal(err.msg, "h.tsv:2: expected the header names, counts, perf, hint, note");
	assert_int_equal(mp_sim_table_parse("names\tcounts\tperf\thint\tnote\nIr\tIr\traw\t-\tinstructions\n",
					    "q.tsv", &t, &err), -MP_EPARSE);
	assert_string_equal(err.msg, "q.tsv: no row for callgrind's quantity 'Dr' (its name first, "
				     "counts 'Dr', what it counts in note)");
	assert_null(t);
}

/* ---- geometry ---- */

static const struct {
	const char *s;
	int rc;
	uint64_t size;
	uint32_t assoc, line;
	const char *msg;
	int lineno;
} cache_cases[] = {
	{ "32768,8,64", 0, 32768, 8, 64, NULL, __LINE__ },
	{ "32K,8,64", 0, 32768, 8, 64, NULL, __LINE__ },
	{ "48K,12,64", 0, 49152, 12, 64, NULL, __LINE__ },
	{ "1M,16,64", 0, 1 << 20, 16, 64, NULL, __LINE__ },
	{ "40000,8,64", -MP_EPARSE, 0, 0, 0, "number of sets", __LINE__ },
	{ "32768,8,48", -MP_EPARSE, 0, 0, 0, "line size is not a power of two", __LINE__ },
	{ "1024,8,8", -MP_EPARSE, 0, 0, 0, "below 16 bytes", __LINE__ },
	{ "32768,0,64", -MP_EPARSE, 0, 0, 0, "must all be positive", __LINE__ },
	{ "32768,8", -MP_EPARSE, 0, 0, 0, "expected SIZE,ASSOC,LINE_SIZE", __LINE__ },
	{ "32768,8,64,1", -MP_EPARSE, 0, 0, 0, "expected SIZE,ASSOC,LINE_SIZE", __LINE__ },
	{ "big,8,64", -MP_EPARSE, 0, 0, 0, "expected SIZE,ASSOC,LINE_SIZE", __LINE__ },
};

static void mp_sim_parse_cache__table__valgrind_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cache_cases) / sizeof(cache_cases[0]); i++) {
		struct mp_sim_cache c = { 0 };
		struct mp_err err = { 0 };
		int rc = mp_sim_parse_cache("--D1", cache_cases[i].s, &c, &err);
		if (rc != cache_cases[i].rc)
			fail_msg("line %d: '%s': rc %d (%s)", cache_cases[i].lineno, cache_cases[i].s,
				 rc, err.msg);
		if (rc) {
			if (!strstr(err.msg, cache_cases[i].msg) || !strstr(err.msg, "--D1") ||
			    !strstr(err.msg, cache_cases[i].s))
				fail_msg("line %d: message '%s'", cache_cases[i].lineno, err.msg);
		} else if (c.size != cache_cases[i].size || c.assoc != cache_cases[i].assoc ||
			   c.line != cache_cases[i].line) {
			fail_msg("line %d: got %llu,%u,%u", cache_cases[i].lineno,
				 (unsigned long long)c.size, c.assoc, c.line);
		}
	}
}

static void mp_sim_host_geometry__fake_sysfs__l1d_l1i_and_l2(void **state)
{
	struct mp_sim_geometry g;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_host_geometry(data("cache"), &g, &err), 0);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	assert_int_equal(g.d1.size, 48 * 1024);
	assert_int_equal(g.d1.assoc, 12);
	assert_int_equal(g.d1.line, 64);
	assert_int_equal(g.i1.size, 32 * 1024);
	assert_int_equal(g.i1.assoc, 8);
	assert_int_equal(g.ll.size, 1280 * 1024); /* L2, not L3 */
	assert_int_equal(g.ll.assoc, 10);
}

/* The fake sysfs's L3 (30 MB, 12 ways: 40,960 sets) is one valgrind cannot simulate. */
static void mp_sim_host_l3__fake_sysfs__refused_and_named(void **state)
{
	struct mp_sim_cache c;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_host_l3(data("cache"), &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/index3: L3 31457280,12,64: the number of sets"));
	assert_int_equal(c.size, 0);
	assert_int_equal(mp_sim_host_l3(data("no-such-dir"), &c, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no level 3 unified cache"));
}

static void mp_sim_host_geometry__no_dir__enoent_and_message(void **state)
{
	struct mp_sim_geometry g;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_host_geometry(data("no-such-dir"), &g, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "L1d not found"));
	assert_non_null(strstr(err.msg, "--D1"));
	assert_int_equal(g.d1.size, 0);
}

/* CPUID answers recorded on this project's AMD VM (EPYC, no sysfs caches, no TOPOEXT):
 * getconf says L1d 48K 12-way 64B, L1i 32K, L2 1M 8-way. */
static const struct mp_sim_cpuid cpuid_amd_vm[] = {
	{ 0x0, 0, 0x0000000d, 0x68747541, 0x444d4163, 0x69746e65 },
	{ 0x80000001, 0, 0x00b00f21, 0x40000000, 0x440001f1, 0x25d3fbff },
	{ 0x80000005, 0, 0xff60ff40, 0xff60ff40, 0x300c0140, 0x20080140 },
	{ 0x80000006, 0, 0x40802040, 0x60804040, 0x04006140, 0x0fe09140 },
	{ 0x8000001d, 0, 0, 0, 0, 0 },
};

/* Leaf 4 of an Intel Skylake client (L1d 32K 8-way, L1i 32K 8-way, L2 256K 4-way, L3 8M
 * 16-way). */
static const struct mp_sim_cpuid cpuid_intel_skl[] = {
	{ 0x0, 0, 0x00000016, 0x756e6547, 0x6c65746e, 0x49656e69 },
	{ 0x4, 0, 0x1c004121, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 1, 0x1c004122, 0x01c0003f, 0x0000003f, 0x00000000 },
	{ 0x4, 2, 0x1c004143, 0x00c0003f, 0x000003ff, 0x00000000 },
	{ 0x4, 3, 0x1c03c163, 0x03c0003f, 0x00001fff, 0x00000006 },
	{ 0x4, 4, 0x00000000, 0x00000000, 0x00000000, 0x00000000 },
};

/* An AMD Zen with TOPOEXT: leaf 0x8000001D (Intel's leaf-4 layout) wins over the older
 * leaves, which here disagree on purpose (L2 512K 8-way by 0x8000001D, 1M by 0x80000006). */
static const struct mp_sim_cpuid cpuid_amd_topoext[] = {
	{ 0x0, 0, 0x00000010, 0x68747541, 0x444d4163, 0x69746e65 },
	{ 0x80000001, 0, 0x00a20f10, 0, 0x00400000, 0 },
	{ 0x80000005, 0, 0xff40ff40, 0xff40ff40, 0x20080140, 0x20080140 },
	{ 0x80000006, 0, 0x48002200, 0x68004200, 0x04006140, 0x02009140 },
	{ 0x8000001d, 0, 0x00004121, 0x01c0003f, 0x0000003f, 0 },
	{ 0x8000001d, 1, 0x00004122, 0x01c0003f, 0x0000003f, 0 },
	{ 0x8000001d, 2, 0x00004143, 0x01c0003f, 0x000003ff, 0 },
	{ 0x8000001d, 3, 0x0001c163, 0x03c0003f, 0x00007fff, 0x1 },
	{ 0x8000001d, 4, 0, 0, 0, 0 },
};

static void expect_cache(const struct mp_sim_cache *c, uint64_t size, uint32_t assoc,
			 uint32_t line)
{
	assert_int_equal(c->size, size);
	assert_int_equal(c->assoc, assoc);
	assert_int_equal(c->line, line);
}

static void mp_sim_cpuid_geometry__recorded_leaves__decoded(void **state)
{
	struct mp_sim_geometry g;
	struct mp_err err = { 0 };
	(void)state;
	memset(&g, 0, sizeof(g));
	assert_int_equal(mp_sim_cpuid_geometry(cpuid_amd_vm, 5, &g, &err), 3);
	expect_cache(&g.d1, 48 * 1024, 12, 64);
	expect_cache(&g.i1, 32 * 1024, 8, 64);
	expect_cache(&g.ll, 1024 * 1024, 8, 64);
	assert_string_equal(g.source, "CPUID leaves 0x80000005/0x80000006");

	memset(&g, 0, sizeof(g));
	assert_int_equal(mp_sim_cpuid_geometry(cpuid_intel_skl, 6, &g, &err), 3);
	expect_cache(&g.d1, 32 * 1024, 8, 64);
	expect_cache(&g.i1, 32 * 1024, 8, 64);
	expect_cache(&g.ll, 256 * 1024, 4, 64); /* L2, not L3 */
	assert_string_equal(g.source, "CPUID leaf 4");

	memset(&g, 0, sizeof(g));
	assert_int_equal(mp_sim_cpuid_geometry(cpuid_amd_topoext, 9, &g, &err), 3);
	expect_cache(&g.d1, 32 * 1024, 8, 64);
	expect_cache(&g.ll, 512 * 1024, 8, 64);
	assert_string_equal(g.source, "CPUID leaf 0x8000001D");
}

/* Caches already known (from sysfs) stay; CPUID fills only the gaps. Without leaf 0, or
 * with a vendor memprof does not know, nothing is filled and err says why. */
static void mp_sim_cpuid_geometry__gaps_only__and_errors(void **state)
{
	struct mp_sim_geometry g;
	struct mp_err err = { 0 };
	(void)state;
	memset(&g, 0, sizeof(g));
	g.d1 = (struct mp_sim_cache){ 16384, 4, 64 };
	strcpy(g.source, "sysfs");
	assert_int_equal(mp_sim_cpuid_geometry(cpuid_amd_vm, 5, &g, &err), 2);
	expect_cache(&g.d1, 16384, 4, 64);
	expect_cache(&g.i1, 32 * 1024, 8, 64);
	assert_string_equal(g.source, "sysfs and CPUID leaves 0x80000005/0x80000006");

	memset(&g, 0, sizeof(g));
	assert_int_equal(mp_sim_cpuid_geometry(cpuid_amd_vm + 1, 4, &g, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "CPUID"));
	assert_int_equal(g.d1.size, 0);
	struct mp_sim_cpuid other = { 0, 0, 0xd, 0x6f6f6f6f, 0x6f6f6f6f, 0x6f6f6f6f };
	assert_int_equal(mp_sim_cpuid_geometry(&other, 1, &g, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "vendor 'oooooooooooo'"));
}

static void mp_sim_setup__overrides__win_over_host(void **state)
{
	struct mp_sim_event *evs;
	size_t n;
	struct mp_sim_geometry g;
	struct mp_err warn, err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_setup(NULL, NULL, "16K,4,64", NULL, data("cache"), &evs, &n, &g,
				      &warn, &err), 0);
	assert_int_equal(n, MP_SIM_NCG);
	assert_int_equal(g.d1.size, 16384);
	assert_int_equal(g.i1.size, 32768);
	assert_int_equal(g.ll.size, 1280 * 1024);
	assert_string_equal(warn.msg, "");
	free(evs);
	assert_int_equal(mp_sim_setup("L1D_REPL", NULL, NULL, "3M,8,64", data("cache"), &evs, &n,
				      &g, &warn, &err), -MP_EPARSE);
	assert_non_null(strstr(err.msg, "--LL '3M,8,64'"));
	assert_int_equal(mp_sim_setup("L1D_REPL", NULL, NULL, NULL, data("no-such-dir"), &evs, &n,
				      &g, &warn, &err), 0);
	assert_non_null(strstr(warn.msg, "not found"));
	free(evs);
}

/* ---- callgrind output ---- */

static const struct mp_sim_cost *find_cost(const mp_sim_profile *p, const char *obj, uint64_t addr)
{
	const struct mp_sim_cost *c = mp_sim_profile_costs(p);
	for (size_t i = 0; i < mp_sim_profile_ncosts(p); i++)
		if (c[i].addr == addr && !strcmp(mp_sim_profile_obj(p, c[i].obj), obj))
			return &c[i];
	return NULL;
}

static void mp_sim_profile_read__small__self_costs_per_address(void **state)
{
	struct mp_err err = { 0 };
	(void)state;
	mp_sim_profile *p = mp_sim_profile_read(data("small.callgrind"), &err);
	if (!p)
		fail_msg("%s", err.msg);
	/* main, walk, memset, one "???" address: 9 addresses in 3 objects */
	assert_int_equal(mp_sim_profile_nobjs(p), 3);
	assert_string_equal(mp_sim_profile_obj(p, 0), "/opt/prog");
	assert_string_equal(mp_sim_profile_obj(p, 1), "/lib/libc.so.6");
	assert_string_equal(mp_sim_profile_obj(p, 2), "???");
	assert_int_equal(mp_sim_profile_ncosts(p), 9);
	assert_int_equal(mp_sim_profile_pid(p), 4242);
	assert_string_equal(mp_sim_profile_creator(p), "callgrind-3.19.0");
	assert_string_equal(mp_sim_profile_cmd(p), "./prog -x 1");
	const struct mp_sim_geometry *g = mp_sim_profile_geometry(p);
	assert_int_equal(g->d1.size, 49152);
	assert_int_equal(g->d1.assoc, 12);
	assert_int_equal(g->ll.size, 1 << 20);
	assert_int_equal(g->ll.assoc, 16);

	/* the line after calls= is memset's inclusive cost: not main's, and it does not move
	 * the position, so "+5" is relative to 0x1007 (not to the call target 0x2000) */
	const struct mp_sim_cost *c = find_cost(p, "/opt/prog", 0x100c);
	assert_non_null(c);
	assert_int_equal(c->v[MP_SIM_IR], 3);
	assert_int_equal(c->v[MP_SIM_DR], 1);
	assert_int_equal(c->v[MP_SIM_DW], 1);
	assert_null(find_cost(p, "/opt/prog", 0x2005));
	c = find_cost(p, "/opt/prog", 0x1004);
	assert_int_equal(c->v[MP_SIM_D1MR], 1);
	assert_int_equal(c->v[MP_SIM_DLMR], 1);
	c = find_cost(p, "/opt/prog", 0x1007);
	assert_int_equal(c->v[MP_SIM_BC], 1);
	assert_int_equal(c->v[MP_SIM_BCM], 1);
	/* walk: 0x1100 twice (absolute, then -2 after a jcnd= whose position line is skipped) */
	c = find_cost(p, "/opt/prog", 0x1100);
	assert_int_equal(c->v[MP_SIM_IR], 15);
	assert_int_equal(c->v[MP_SIM_DR], 15);
	assert_int_equal(c->v[MP_SIM_D1MR], 8);
	c = find_cost(p, "/opt/prog", 0x1102);
	assert_int_equal(c->v[MP_SIM_BC], 10);
	assert_int_equal(c->v[MP_SIM_BCM], 2);
	/* ob=(2) named first by cob= */
	c = find_cost(p, "/lib/libc.so.6", 0x2001);
	assert_int_equal(c->v[MP_SIM_IR], 6);
	assert_int_equal(c->v[MP_SIM_DW], 6);
	c = find_cost(p, "???", 0x4000100);
	assert_int_equal(c->v[MP_SIM_BI], 1);
	assert_int_equal(c->v[MP_SIM_BIM], 1);

	static const uint64_t want[MP_SIM_NQ] = { 49, 18, 12, 2, 9, 2, 2, 9, 2, 11, 3, 1, 1 };
	const uint64_t *t = mp_sim_profile_totals(p);
	for (int q = 0; q < MP_SIM_NQ; q++) {
		assert_int_equal(t[q], want[q]);
		assert_int_equal(mp_sim_profile_has(p, q), q < MP_SIM_NCG);
	}
	/* sorted by (object, address) */
	const struct mp_sim_cost *cs = mp_sim_profile_costs(p);
	for (size_t i = 1; i < mp_sim_profile_ncosts(p); i++)
		assert_true(cs[i - 1].obj < cs[i].obj ||
			    (cs[i - 1].obj == cs[i].obj && cs[i - 1].addr < cs[i].addr));
	mp_sim_profile_free(p);
}

static const struct {
	const char *file, *msg;
	int line;
} bad_profiles[] = {
	{ "bad-totals.callgrind", "bad-totals.callgrind: self costs add up to 49 Ir but the totals: line says 50", __LINE__ },
	{ "bad-cost.callgrind", "bad-cost.callgrind:25: bad cost 'x", __LINE__ },
	{ "bad-ref.callgrind", "bad-ref.callgrind:21: object (1) used before it is named", __LINE__ },
	{ "bad-fnref.callgrind", "bad-fnref.callgrind:23: function (1) used before it is named", __LINE__ },
	{ "bad-obempty.callgrind", "bad-obempty.callgrind:21: empty object name", __LINE__ },
	{ "no-instr.callgrind", "no-instr.callgrind:16: positions: 'line' has no instr", __LINE__ },
	{ "small.log", "small.log: not a callgrind output file", __LINE__ },
	{ "missing.callgrind", "missing.callgrind: No such file or directory", __LINE__ },
};

static void mp_sim_profile_read__bad_files__one_line_with_position(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_profiles) / sizeof(bad_profiles[0]); i++) {
		struct mp_err err = { 0 };
		mp_sim_profile *p = mp_sim_profile_read(data(bad_profiles[i].file), &err);
		if (p)
			fail_msg("line %d: %s parsed", bad_profiles[i].line, bad_profiles[i].file);
		if (!strstr(err.msg, bad_profiles[i].msg) || strchr(err.msg, '\n') || !err.code)
			fail_msg("line %d: message '%s'", bad_profiles[i].line, err.msg);
	}
}

static void mp_sim_read_log__small__bias_per_object(void **state)
{
	struct mp_sim_load *l;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_sim_read_log(data("small.log"), &l, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(l[0].path, "/opt/prog");
	assert_int_equal(l[0].bias, 0x108000);
	assert_string_equal(l[1].path, "/lib/libc.so.6");
	assert_int_equal(l[1].bias, 0x4847000);
	assert_int_equal(l[2].bias, 0);
	mp_sim_loads_free(l, n);
	assert_int_equal(mp_sim_read_log(data("none.log"), &l, &n, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "none.log"));
}

/* ---- the perf.data file ---- */

struct readback {
	uint64_t period[8];
	uint64_t samples[8];
	uint64_t ip_sum[8];
	int comm, mmaps;
	uint32_t pid;
};

static int rb_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct readback *rb = ctx;
	if (s->attr_idx < 8) {
		rb->period[s->attr_idx] += s->period;
		rb->samples[s->attr_idx]++;
		rb->ip_sum[s->attr_idx] += s->ip;
	}
	rb->pid = s->pid;
	return 0;
}

static int rb_comm(void *ctx, const struct mp_pd_task *t)
{
	struct readback *rb = ctx;
	rb->comm += !strcmp(t->comm, "prog") && t->pid == 4242;
	return 0;
}

static int rb_mmap(void *ctx, const struct mp_pd_mmap *m)
{
	(void)m;
	((struct readback *)ctx)->mmaps++;
	return 0;
}

static void mp_sim_write__small__samples_carry_exact_counts(void **state)
{
	struct mp_err err = { 0 };
	struct mp_sim_event *evs;
	size_t nev;
	struct mp_sim_load *l;
	size_t nl;
	char out[] = "/tmp/test_sim.XXXXXX";
	(void)state;
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	mp_sim_profile *p = mp_sim_profile_read(data("small.callgrind"), &err);
	assert_non_null(p);
	assert_int_equal(mp_sim_read_log(data("small.log"), &l, &nl, &err), 0);
	assert_int_equal(mp_sim_events_parse("INST_RETIRED,L1D_REPL,branch-misses", &evs, &nev, &err), 0);
	struct mp_sim_opts o = { .events = evs, .nevents = nev, .output = out };
	struct mp_sim_result res;
	if (mp_sim_write(&o, p, l, nl, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.totals[0], 49);
	assert_int_equal(res.totals[1], 9 + 2);
	assert_int_equal(res.totals[2], 3 + 1);
	/* Ir at all 9 addresses, D1 misses at 0x1004, 0x1100 and 0x2000 (D1mw), branch
	 * misses at 0x1007, 0x1102 and 0x4000100 */
	assert_int_equal(res.samples, 9 + 3 + 3);

	mp_pd *pd = mp_pd_open(out, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	assert_int_equal(mp_pd_nattrs(pd), 3);
	assert_string_equal(mp_pd_attr(pd, 0)->name, "INST_RETIRED");
	assert_string_equal(mp_pd_attr(pd, 1)->name, "L1D_REPL");
	assert_string_equal(mp_pd_attr(pd, 2)->name, "branch-misses");
	assert_string_equal(mp_pd_attr(pd, 0)->spec, "INST_RETIRED");
	/* RAW with the quantity mask for aliases, perf's own encoding for generic names;
	 * zero skid (the counts belong to their instruction); period 1 */
	assert_int_equal(mp_pd_attr(pd, 1)->attr.type, PERF_TYPE_RAW);
	assert_int_equal(mp_pd_attr(pd, 1)->attr.config, M(D1MR) | M(D1MW));
	assert_int_equal(mp_pd_attr(pd, 2)->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(mp_pd_attr(pd, 2)->attr.config, PERF_COUNT_HW_BRANCH_MISSES);
	assert_int_equal(mp_pd_attr(pd, 1)->attr.precise_ip, 3);
	assert_int_equal(mp_pd_attr(pd, 1)->attr.sample_period, 1);
	assert_true(mp_pd_attr(pd, 1)->attr.exclude_kernel);
	assert_string_equal(mp_pd_meta(pd, "simulated"), "callgrind");
	assert_string_equal(mp_pd_meta(pd, "sim.D1"), "49152,12,64");
	assert_string_equal(mp_pd_meta(pd, "sim.I1"), "32768,8,64");
	assert_string_equal(mp_pd_meta(pd, "sim.LL"), "1048576,16,64");
	assert_string_equal(mp_pd_meta(pd, "sim.valgrind"), "callgrind-3.19.0");
	assert_string_equal(mp_pd_meta(pd, "sim.event.L1D_REPL"), "D1mr+D1mw");
	struct readback rb = { 0 };
	struct mp_pd_handler h = { .ctx = &rb, .sample = rb_sample, .comm = rb_comm, .mmap = rb_mmap };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(rb.period[0], 49);
	assert_int_equal(rb.period[1], 11);
	assert_int_equal(rb.period[2], 4);
	assert_int_equal(rb.samples[0], 9);
	assert_int_equal(rb.samples[1], 3);
	assert_int_equal(rb.samples[2], 3);
	/* branch misses at 0x108000 + 0x1007, 0x108000 + 0x1102 and the absolute 0x4000100 */
	assert_int_equal(rb.ip_sum[2], 0x109007 + 0x109102 + 0x4000100);
	assert_int_equal(rb.pid, 4242);
	assert_int_equal(rb.comm, 1);
	assert_int_equal(rb.mmaps, 0); /* /opt/prog and /lib/libc.so.6 are not on this machine */
	const struct mp_pd_attr *a = mp_pd_attr(pd, 1);
	assert_true(a->has_counts);
	assert_int_equal(a->count.val, 11);
	assert_int_equal(a->total_period, 11);
	mp_pd_close(pd);
	unlink(out);
	free(res.totals);
	free(evs);
	mp_sim_loads_free(l, nl);
	mp_sim_profile_free(p);
}

static void mp_sim_write__missing_quantity__refused(void **state)
{
	struct mp_err err = { 0 };
	struct mp_sim_event ev;
	char dir[] = "/tmp/test_sim.XXXXXX", prof[64], out[64];
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(prof, sizeof(prof), "%s/ir.callgrind", dir);
	snprintf(out, sizeof(out), "%s/out.data", dir);
	FILE *f = fopen(prof, "w");
	assert_non_null(f);
	fputs("# callgrind format\nversion: 1\npid: 7\npositions: instr line\nevents: Ir\n"
	      "ob=(1) /x\nfn=(1) f\n0x10 010 5\n+010 * 6\ntotals: 11\n", f);
	fclose(f);
	mp_sim_profile *p = mp_sim_profile_read(prof, &err);
	if (!p)
		fail_msg("%s", err.msg);
	assert_int_equal(mp_sim_profile_totals(p)[MP_SIM_IR], 11);
	/* "+010" is ten bytes on, not octal */
	assert_non_null(find_cost(p, "/x", 0x1a));
	assert_int_equal(find_cost(p, "/x", 0x1a)->v[MP_SIM_IR], 6);
	assert_false(mp_sim_profile_has(p, MP_SIM_D1MR));
	assert_int_equal(mp_sim_event_parse("L1D_REPL", &ev, &err), 0);
	struct mp_sim_opts o = { .events = &ev, .nevents = 1, .output = out };
	struct mp_sim_result res;
	assert_int_equal(mp_sim_write(&o, p, NULL, 0, &res, &err), -MP_ENOTSUP);
	assert_non_null(strstr(err.msg, "no D1mr counts"));
	assert_int_equal(access(out, F_OK), -1);
	mp_sim_profile_free(p);
	unlink(prof);
	rmdir(dir);
}

static void mp_sim_record__no_valgrind__names_the_package(void **state)
{
	struct mp_err err = { 0 };
	struct mp_sim_event ev;
	char *argv[] = { "true", NULL };
	(void)state;
	assert_int_equal(mp_sim_event_parse("INST_RETIRED", &ev, &err), 0);
	struct mp_sim_opts o = { .events = &ev, .nevents = 1, .output = "/tmp/test_sim-never.data",
				 .argv = argv, .valgrind = "/nonexistent/valgrind" };
	struct mp_sim_result res;
	assert_int_equal(mp_sim_record(&o, &res, &err), -MP_ENOTSUP);
	assert_non_null(strstr(err.msg, "/nonexistent/valgrind: not found"));
	assert_non_null(strstr(err.msg, "package 'valgrind'"));
	assert_int_equal(res.workload_started, 0);
	char *bad[] = { "/nonexistent/prog", NULL };
	o.valgrind = NULL;
	o.argv = bad;
	if (access("/usr/bin/valgrind", X_OK) == 0) {
		assert_int_equal(mp_sim_record(&o, &res, &err), -ENOENT);
		assert_non_null(strstr(err.msg, "cannot run '/nonexistent/prog'"));
	}
}

/* ---- memory samples (mpsim --mem-period; record --sim -d) ---- */

static void mp_sim_mem_datasrc__each_level__perf_bits(void **state)
{
	(void)state;
	static const struct {
		uint8_t op, lvl, snoop, tlb, lock;
		uint8_t want_op;
		uint16_t want_lvl;
		uint8_t want_num, want_snoop, want_snoopx, want_tlb, want_lock;
		const char *lvl_str, *snoop_str;
		int line;
	} t[] = {
		{ 1, MP_SIM_ML_L1, 0, 1, 0, PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1,
		  PERF_MEM_LVLNUM_L1, PERF_MEM_SNOOP_NONE, 0, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, 0,
		  "L1 or L1 hit", "None", __LINE__ },
		{ 1, MP_SIM_ML_LFB, 0, 2, 0, PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LFB,
		  PERF_MEM_LVLNUM_LFB, PERF_MEM_SNOOP_NONE, 0, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L2, 0,
		  "LFB/MAB or LFB/MAB hit", "None", __LINE__ },
		{ 1, MP_SIM_ML_L2, 0, 3, 0, PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L2,
		  PERF_MEM_LVLNUM_L2, PERF_MEM_SNOOP_NONE, 0, PERF_MEM_TLB_MISS | PERF_MEM_TLB_WK, 0,
		  "L2 or L2 hit", "None", __LINE__ },
		{ 1, MP_SIM_ML_PEER, MP_SIM_MS_HITM, 1, 0, PERF_MEM_OP_LOAD,
		  PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, PERF_MEM_SNOOP_HITM,
		  PERF_MEM_SNOOPX_PEER, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, 0, "L3 or L3 hit",
		  "HitM or Peer", __LINE__ },
		{ 1, MP_SIM_ML_PEER, MP_SIM_MS_HIT, 1, 1, PERF_MEM_OP_LOAD,
		  PERF_MEM_LVL_HIT | PERF_MEM_LVL_L3, PERF_MEM_LVLNUM_L3, PERF_MEM_SNOOP_HIT,
		  PERF_MEM_SNOOPX_PEER, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, PERF_MEM_LOCK_LOCKED,
		  "L3 or L3 hit", "Hit or Peer", __LINE__ },
		{ 1, MP_SIM_ML_MEM, 0, 1, 0, PERF_MEM_OP_LOAD, PERF_MEM_LVL_HIT | PERF_MEM_LVL_LOC_RAM,
		  PERF_MEM_LVLNUM_RAM, PERF_MEM_SNOOP_MISS, 0, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, 0,
		  "Local RAM or RAM hit", "Miss", __LINE__ },
		{ 2, MP_SIM_ML_L1, 0, 1, 0, PERF_MEM_OP_STORE, PERF_MEM_LVL_HIT | PERF_MEM_LVL_L1,
		  PERF_MEM_LVLNUM_L1, PERF_MEM_SNOOP_NA, 0, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1, 0,
		  "L1 or L1 hit", "N/A", __LINE__ },
		{ 2, MP_SIM_ML_MEM, 0, 1, 1, PERF_MEM_OP_STORE, PERF_MEM_LVL_MISS | PERF_MEM_LVL_L1,
		  PERF_MEM_LVLNUM_L1, PERF_MEM_SNOOP_NA, 0, PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1,
		  PERF_MEM_LOCK_LOCKED, "L1 or L1 miss", "N/A", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mp_sim_memrec r = { .op = t[i].op, .lvl = t[i].lvl, .snoop = t[i].snoop,
					   .tlb = t[i].tlb, .lock = t[i].lock };
		struct mp_datasrc d;
		char buf[128];
		uint64_t v = mp_sim_mem_datasrc(&r);
		mp_datasrc_decode(v, &d);
		if (d.op != t[i].want_op || d.lvl != t[i].want_lvl || d.lvl_num != t[i].want_num ||
		    d.snoop != t[i].want_snoop || d.snoopx != t[i].want_snoopx ||
		    d.dtlb != t[i].want_tlb || d.lock != t[i].want_lock)
			fail_msg("line %d: data_src %#llx decodes to op %u lvl %#x num %u snoop %#x "
				 "snoopx %u tlb %#x lock %u", t[i].line, (unsigned long long)v, d.op,
				 d.lvl, d.lvl_num, d.snoop, d.snoopx, d.dtlb, d.lock);
		mp_datasrc_lvl_str(v, buf, sizeof(buf));
		if (strcmp(buf, t[i].lvl_str))
			fail_msg("line %d: level '%s', want '%s'", t[i].line, buf, t[i].lvl_str);
		mp_datasrc_snoop_str(v, buf, sizeof(buf));
		if (strcmp(buf, t[i].snoop_str))
			fail_msg("line %d: snoop '%s', want '%s'", t[i].line, buf, t[i].snoop_str);
	}
}

static void write_recs(const char *path, const struct mp_sim_memrec *r, size_t n, size_t cut)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(r, 1, n * sizeof(*r) - cut, f), n * sizeof(*r) - cut);
	fclose(f);
}

static void mp_sim_mem_read__files__records_and_errors(void **state)
{
	(void)state;
	char path[] = "/tmp/test_sim_mem.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct mp_sim_memrec r[3] = {
		{ .ip = 0x401000, .addr = 0x5000, .time = 10, .tid = 7, .cpu = 1, .weight = 260,
		  .op = 1, .lvl = MP_SIM_ML_PEER, .snoop = MP_SIM_MS_HITM, .tlb = 1 },
		{ .ip = 0x401004, .addr = 0x5008, .time = 12, .tid = 8, .op = 2, .lvl = 1, .tlb = 1 },
		{ .ip = 970, .addr = 485, .weight = 97, .op = 0 }, /* loads, stores counted */
	};
	struct mp_sim_memrec *got;
	size_t n;
	uint64_t loads, stores;
	struct mp_err err = { 0 };
	write_recs(path, r, 3, 0);
	assert_int_equal(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(loads, 970);
	assert_int_equal(stores, 485);
	assert_int_equal(got[0].weight, 260);
	assert_int_equal(got[1].tid, 8);
	free(got);
	/* the cores' samples in time order, one time's by core, one core's as they came */
	struct mp_sim_memrec u[6] = {
		{ .ip = 1, .time = 30, .cpu = 1, .op = 1 }, { .ip = 2, .time = 31, .cpu = 1, .op = 2 },
		{ .ip = 3, .time = 30, .cpu = 0, .op = 1 }, { .ip = 4, .time = 30, .cpu = 0, .op = 2 },
		{ .ip = 5, .time = 12, .cpu = 2, .op = 1 }, { .ip = 6, .op = 0 },
	};
	write_recs(path, u, 6, 0);
	assert_int_equal(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err), 0);
	assert_int_equal(n, 5);
	static const uint64_t order[5] = { 5, 3, 4, 1, 2 };
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(got[i].ip, order[i]);
	free(got);
	/* cut short: not whole records */
	write_recs(path, r, 3, 5);
	assert_true(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err) < 0);
	assert_non_null(strstr(err.msg, "not whole records"));
	/* no last record: the tool stopped before its end */
	write_recs(path, r, 2, 0);
	assert_true(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err) < 0);
	assert_non_null(strstr(err.msg, "no final record"));
	/* a bad operation */
	r[1].op = 9;
	write_recs(path, r, 3, 0);
	assert_true(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err) < 0);
	assert_non_null(strstr(err.msg, "record 1: operation 9"));
	unlink(path);
	assert_true(mp_sim_mem_read(path, &got, &n, &loads, &stores, &err) < 0);
	assert_non_null(strstr(err.msg, path));
}

struct memback {
	uint64_t n[4], hitm, addr_sum, weight_sum, period, tid8, cpu1;
};

static int mb_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct memback *mb = ctx;
	struct mp_datasrc d;
	if (s->attr_idx < 4)
		mb->n[s->attr_idx]++;
	mp_datasrc_decode(s->data_src, &d);
	mb->hitm += d.snoop == PERF_MEM_SNOOP_HITM;
	mb->addr_sum += s->addr;
	mb->weight_sum += s->weight;
	if (s->attr_idx >= 1)
		mb->period = s->period;
	mb->tid8 += s->tid == 8;
	mb->cpu1 += s->cpu == 1;
	return 0;
}

static void mp_sim_write__memory_samples__perf_mem_events(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	struct mp_sim_event *evs;
	size_t nev;
	char out[] = "/tmp/test_sim.XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	mp_sim_profile *p = mp_sim_profile_read(data("small.callgrind"), &err);
	assert_non_null(p);
	assert_int_equal(mp_sim_events_parse("INST_RETIRED", &evs, &nev, &err), 0);
	const struct mp_sim_memrec r[2] = {
		{ .ip = 0x401000, .addr = 0x5000, .time = 10, .tid = 7, .cpu = 1, .weight = 260,
		  .op = 1, .lvl = MP_SIM_ML_PEER, .snoop = MP_SIM_MS_HITM, .tlb = 1 },
		{ .ip = 0x401004, .addr = 0x5008, .time = 12, .tid = 8, .op = 2, .lvl = 1, .tlb = 1 },
	};
	struct mp_sim_opts o = { .events = evs, .nevents = nev, .output = out, .mem_period = 97,
				 .ldlat = 30 };
	struct mp_sim_proc pr = { .profile = p, .mem = r, .nmem = 2, .mem_loads = 194,
				  .mem_stores = 97 };
	struct mp_sim_result res;
	if (mp_sim_write_procs(&o, &pr, 1, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.totals[0], 49);
	assert_int_equal(res.totals[1], 194);
	assert_int_equal(res.totals[2], 97);
	mp_pd *pd = mp_pd_open(out, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	assert_int_equal(mp_pd_nattrs(pd), 3);
	assert_string_equal(mp_pd_attr(pd, 1)->name, "cpu/mem-loads,ldlat=30/P");
	assert_string_equal(mp_pd_attr(pd, 2)->name, "cpu/mem-stores/P");
	assert_int_equal(mp_pd_attr(pd, 1)->attr.type, PERF_TYPE_RAW);
	assert_int_equal(mp_pd_attr(pd, 1)->attr.config, 0x1cd);
	assert_int_equal(mp_pd_attr(pd, 1)->attr.config1, 30);
	assert_int_equal(mp_pd_attr(pd, 2)->attr.config, 0x82d0);
	/* one layout for all: perf finds the sample id at one place */
	for (int i = 0; i < 3; i++)
		assert_int_equal(mp_pd_attr(pd, i)->attr.sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
					 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
					 PERF_SAMPLE_DATA_SRC);
	assert_string_equal(mp_pd_meta(pd, "sim.mem"), "period 97 ldlat 30");
	struct memback mb = { 0 };
	struct mp_pd_handler h = { .ctx = &mb, .sample = mb_sample };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(mb.n[0], 9);
	assert_int_equal(mb.n[1], 1);
	assert_int_equal(mb.n[2], 1);
	assert_int_equal(mb.hitm, 1);
	assert_int_equal(mb.addr_sum, 0x5000 + 0x5008);
	assert_int_equal(mb.weight_sum, 260);
	assert_int_equal(mb.period, 97);
	assert_int_equal(mb.tid8, 1);
	assert_int_equal(mb.cpu1, 1);
	mp_pd_close(pd);
	unlink(out);
	free(res.totals);
	free(evs);
	mp_sim_profile_free(p);
}

static void mp_sim_allocs__file__records_written_with_sites(void **state)
{
	(void)state;
	char path[] = "/tmp/test_sim_alloc.XXXXXX", out[] = "/tmp/test_sim.XXXXXX";
	int fd = mkstemp(path), fo = mkstemp(out);
	assert_true(fd >= 0 && fo >= 0);
	close(fo);
	/* a site of two frames, malloc at it, realloc, free; then the end */
	uint64_t site[3] = { 1 | 2 << 8, 0x401183, 0x401200 };
	struct {
		uint64_t tag, time, addr, size, old;
		uint32_t tid, site;
	} c[3] = { { 2 | 1 << 8, 1000, 0x4a3b030, 12345, 0, 42, 0 },
		   { 2 | 3 << 8, 1100, 0x4a3e090, 23456, 0x4a3b030, 43, 0 },
		   { 2 | 6 << 8, 1200, 0x4a3e090, 0, 0, 42, 0xffffffffu } };
	uint64_t end[2] = { 3, 3 };
	assert_int_equal(write(fd, site, sizeof(site)), sizeof(site));
	assert_int_equal(write(fd, c, sizeof(c)), sizeof(c));
	assert_int_equal(write(fd, end, sizeof(end)), sizeof(end));
	close(fd);
	struct mp_sim_allocs a;
	struct mp_err err = { 0 };
	if (mp_sim_allocs_read(path, &a, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(a.nsites, 1);
	assert_int_equal(a.nrecs, 3);
	assert_int_equal(a.recs[1].old, 0x4a3b030);
	assert_int_equal(a.recs[2].kind, MP_ALLOC_FREE);

	/* written beside a profile: an exec record first, times on the samples' clock */
	mp_sim_profile *p = mp_sim_profile_read(data("small.callgrind"), &err);
	assert_non_null(p);
	struct mp_sim_event *evs;
	size_t nev;
	assert_int_equal(mp_sim_events_parse("INST_RETIRED", &evs, &nev, &err), 0);
	struct mp_sim_opts o = { .events = evs, .nevents = nev, .output = out, .allocs = 1 };
	struct mp_sim_proc pr = { .profile = p, .allocs = &a };
	struct mp_sim_result res;
	if (mp_sim_write_procs(&o, &pr, 1, &res, &err))
		fail_msg("%s", err.msg);
	mp_pd *pd = mp_pd_open(out, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	struct mp_pd_allocs al;
	assert_int_equal(mp_pd_allocs(pd, &al), 0);
	assert_int_equal(al.nr_recs, 4);
	assert_int_equal(al.nr_sites, 1);
	struct mp_alloc_rec r;
	assert_int_equal(mp_pd_alloc_rec(pd, 0, &r), 0);
	assert_int_equal(r.kind, MP_ALLOC_EXEC);
	assert_int_equal(mp_pd_alloc_rec(pd, 1, &r), 0);
	assert_int_equal(r.kind, MP_ALLOC_MALLOC);
	assert_int_equal(r.time, 1000000 + 1000);
	assert_int_equal(r.size, 12345);
	assert_int_equal(r.pid, mp_sim_profile_pid(p));
	assert_int_equal(r.tid, 42);
	const uint64_t *ips;
	uint32_t pid, nr;
	assert_int_equal(mp_pd_alloc_site(pd, r.site, &pid, &ips, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(ips[0], 0x401183);
	assert_int_equal(mp_pd_alloc_rec(pd, 3, &r), 0);
	assert_int_equal(r.kind, MP_ALLOC_FREE);
	assert_int_equal(r.site, MP_ALLOC_NO_SITE);
	mp_pd_close(pd);
	free(res.totals);
	free(evs);
	mp_sim_profile_free(p);
	mp_sim_allocs_fini(&a);

	/* a call at a site not given yet, and a file without its end */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, c, sizeof(c[0])), sizeof(c[0]));
	close(fd);
	assert_true(mp_sim_allocs_read(path, &a, &err) < 0);
	assert_non_null(strstr(err.msg, "at site 0 (0 sites so far)"));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, site, sizeof(site)), sizeof(site));
	close(fd);
	assert_true(mp_sim_allocs_read(path, &a, &err) < 0);
	assert_non_null(strstr(err.msg, "no end record"));
	unlink(path);
	unlink(out);
}

/* c2c record --sim's options: what memprof c2c record --sim records (every load, mpsim,
 * the heap tracked so that freed blocks are held back), cores raised to two, kept above */
static void mp_sim_c2c_opts__defaults__as_c2c_record_sim(void **state)
{
	(void)state;
	struct mp_sim_opts o = { 0 };
	mp_sim_c2c_opts(&o, 0);
	assert_int_equal(o.mem_period, MP_SIM_MEM_PERIOD);
	assert_int_equal(o.ldlat, 0);
	assert_int_equal(o.cores, 2);
	assert_int_equal(o.engine, MP_SIM_ENGINE_MPSIM);
	assert_int_equal(o.allocs, 1);
	struct mp_sim_opts p = { .cores = 8 };
	mp_sim_c2c_opts(&p, 97);
	assert_int_equal(p.mem_period, 97);
	assert_int_equal(p.cores, 8);
}

/* Processes come in the order they started although pids wrapped around between them (the
 * order CI saw once: sh 32449, then uselib 32616 and uselib 322). */
static void mp_sim_pid_rank__wrapped_pids__start_order(void **state)
{
	(void)state;
	assert_true(mp_sim_pid_rank(32449, 32449) < mp_sim_pid_rank(32616, 32449));
	assert_true(mp_sim_pid_rank(32616, 32449) < mp_sim_pid_rank(322, 32449));
	assert_true(mp_sim_pid_rank(322, 32449) < mp_sim_pid_rank(400, 32449));
	/* no workload pid known (0): plain ascending pids */
	assert_true(mp_sim_pid_rank(322, 0) < mp_sim_pid_rank(32449, 0));
}

int main(void)
{
	const char *d = getenv("TESTS_DATA");
	snprintf(data_dir, sizeof(data_dir), "%s", d ? d : "tests/data");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_sim_event_parse__table__names_masks_and_refusals),
		cmocka_unit_test(mp_sim_event_parse__alias__formula_and_config),
		cmocka_unit_test(mp_sim_events_parse__list__in_order),
		cmocka_unit_test(mp_sim_events_parse__bad_lists__error_names_event),
		cmocka_unit_test(mp_sim_table_get__embedded__real_rows),
		cmocka_unit_test(mp_sim_table_parse__new_row__is_an_alias),
		cmocka_unit_test(mp_sim_table_parse__bad_row__error_names_file_and_line),
		cmocka_unit_test(mp_sim_event_parse__aliases_tsv_cachegrind_rows__same_sums),
		cmocka_unit_test(mp_sim_parse_cache__table__valgrind_rules),
		cmocka_unit_test(mp_sim_host_geometry__fake_sysfs__l1d_l1i_and_l2),
		cmocka_unit_test(mp_sim_host_l3__fake_sysfs__refused_and_named),
		cmocka_unit_test(mp_sim_host_geometry__no_dir__enoent_and_message),
		cmocka_unit_test(mp_sim_cpuid_geometry__recorded_leaves__decoded),
		cmocka_unit_test(mp_sim_cpuid_geometry__gaps_only__and_errors),
		cmocka_unit_test(mp_sim_setup__overrides__win_over_host),
		cmocka_unit_test(mp_sim_profile_read__small__self_costs_per_address),
		cmocka_unit_test(mp_sim_profile_read__bad_files__one_line_with_position),
		cmocka_unit_test(mp_sim_read_log__small__bias_per_object),
		cmocka_unit_test(mp_sim_write__small__samples_carry_exact_counts),
		cmocka_unit_test(mp_sim_write__missing_quantity__refused),
		cmocka_unit_test(mp_sim_record__no_valgrind__names_the_package),
		cmocka_unit_test(mp_sim_mem_datasrc__each_level__perf_bits),
		cmocka_unit_test(mp_sim_mem_read__files__records_and_errors),
		cmocka_unit_test(mp_sim_write__memory_samples__perf_mem_events),
		cmocka_unit_test(mp_sim_allocs__file__records_written_with_sites),
		cmocka_unit_test(mp_sim_pid_rank__wrapped_pids__start_order),
		cmocka_unit_test(mp_sim_c2c_opts__defaults__as_c2c_record_sim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
