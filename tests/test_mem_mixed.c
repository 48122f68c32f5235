/* test_mem_mixed.c - issue 25's bad input: a recording whose memory fields are present for
 * one event and absent for another (page-faults with ADDR|DATA_SRC|WEIGHT beside a
 * cpu-clock without them), written with the tests' perf.data writer; memprof report
 * --mem-mode, script -F and mem report (MEMPROF, the built binary) on it: their output
 * and exit status, values asserted. And a recording with samples of pid and tid -1 (the
 * kernel's for a task that had exited when sampled): memprof script prints -1, as perf
 * script does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mp_test_pdw.h"

#define PID 4242
#define MEM_ST (ST | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
/* perf_mem_data_src words: a load that hit L1, a load that missed L3 */
#define DS_L1_HIT 0x268100142ULL
#define DS_L3_MISS 0x668100882ULL
#define MEM_ID 100
#define CLK_ID 200

static char file[600];

/* A page-faults sample with its memory fields (ST's layout, then ADDR after TIME, WEIGHT
 * and DATA_SRC after PERIOD, as perf_event's sample order puts them). */
static void put_mem_sample(mp_pdw *w, uint64_t ip, uint64_t time, uint64_t addr,
			   uint64_t weight, uint64_t ds)
{
	uint64_t s[10];
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(s);
	s[1] = MEM_ID;
	s[2] = ip;
	s[3] = (uint64_t)PID | (uint64_t)PID << 32;
	s[4] = time;
	s[5] = addr;
	s[6] = 0; /* cpu 0 */
	s[7] = 1;
	s[8] = weight;
	s[9] = ds;
	assert_int_equal(mp_pdw_write(w, s, sizeof(s)), 0);
}

static int write_file(void **state)
{
	struct mp_err err = { 0 };
	if (setup_dir(state))
		return -1;
	snprintf(file, sizeof(file), "%s", path_in("mixed.data"));
	mp_pdw *w = mp_pdw_create(file, &err);
	if (!w) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	struct perf_event_attr pf = file_attr(PERF_COUNT_SW_PAGE_FAULTS, 1);
	pf.sample_type = MEM_ST;
	struct perf_event_attr clk = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	clk.mmap = clk.mmap2 = clk.comm = clk.task = 0;
	uint64_t mid = MEM_ID, cid = CLK_ID;
	if (mp_pdw_add_attr(w, &pf, &mid, 1, "page-faults", NULL) < 0 ||
	    mp_pdw_add_attr(w, &clk, &cid, 1, "cpu-clock", NULL) < 0) {
		fprintf(stderr, "add_attr failed\n");
		return -1;
	}
	mp_pdw_set_auto_build_ids(w, 0);
	put_comm(w, PID, PID, "mixed");
	put_mmap2(w, PID, 0x400000, 0x1000, 0, "/nonexistent/mixed");
	/* 3 L1 hits (weights 10, 20, 30) and 2 L3 misses (weights 100, 0) at one address,
	 * and 4 cpu-clock samples between them */
	static const uint64_t wt[] = { 10, 20, 30, 100, 0 };
	uint64_t t = 1000;
	for (int i = 0; i < 5; i++) {
		put_mem_sample(w, 0x400100, t++, 0x7f0000001000ULL, wt[i], i < 3 ? DS_L1_HIT : DS_L3_MISS);
		if (i < 4)
			put_sample(w, CLK_ID, 0x400200, PID, PID, t++, 100000);
	}
	if (mp_pdw_close(w, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

/* Run prog (memprof, perf) with args on path: its stdout and stderr (2>&1) in out, the
 * exit status returned. */
static int run_on(char *out, size_t n, const char *prog, const char *args, const char *path)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s %s -i %s -k /dev/null 2>&1", prog, args, path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t len = fread(out, 1, n - 1, p);
	out[len] = 0;
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* memprof with args on the mixed file. */
static int run(char *out, size_t n, const char *args)
{
	const char *mp = getenv("MEMPROF");
	assert_non_null(mp);
	return run_on(out, n, mp, args, file);
}

static void report_mem__mixed_events__memory_rows_of_the_event_with_fields(void **state)
{
	(void)state;
	static char out[16384];
	assert_int_equal(run(out, sizeof(out), "report --mem-mode --sort mem,weight --csv"), 0);
	/* page-faults: its levels and weights; cpu-clock has no memory fields: its samples
	 * are one N/A row, never a crash or a garbage level (perf report --mem-mode prints
	 * the same rows on this file) */
	assert_non_null(strstr(out, "event,samples,overhead,mem,weight\n"));
	assert_non_null(strstr(out, "page-faults,3,"));
	assert_non_null(strstr(out, ",L1 or L1 hit,60\n"));
	assert_non_null(strstr(out, "page-faults,2,"));
	assert_non_null(strstr(out, ",L3 or L3 miss,100\n"));
	assert_non_null(strstr(out, "cpu-clock,4,100.0000,N/A,0\n"));
	assert_int_equal(run(out, sizeof(out), "report --mem-mode --sort mem"), 0);
	assert_non_null(strstr(out, "# Samples: 5 of event 'page-faults'\n# Total weight: 161\n"));
	assert_non_null(strstr(out, "# Samples: 4 of event 'cpu-clock'\n# Total weight: 4\n"));
}

static void script_fields__mixed_events__fields_of_each_event(void **state)
{
	(void)state;
	static char out[16384];
	assert_int_equal(run(out, sizeof(out), "script -F event,addr,weight"), 0);
	/* as perf script prints it: the fields the other event lacks as zeros */
	assert_non_null(strstr(out, "page-faults:     7f0000001000              30\n"
				    "  cpu-clock:                0               0\n"
				    "page-faults:     7f0000001000             100\n"));
	size_t pf = 0, clk = 0;
	for (char *l = out; (l = strstr(l, "page-faults:     7f0000001000")); l++)
		pf++;
	for (char *l = out; (l = strstr(l, "cpu-clock:                0               0\n")); l++)
		clk++;
	assert_int_equal(pf, 5);
	assert_int_equal(clk, 4);
}

static void mem_report__mixed_events__levels_of_the_memory_event(void **state)
{
	(void)state;
	static char out[16384];
	assert_int_equal(run(out, sizeof(out), "mem report --sort mem"), 0);
	assert_non_null(strstr(out, "L1 or L1 hit"));
	assert_non_null(strstr(out, "L3 or L3 miss"));
}

/* pid and tid -1 (PERF_SAMPLE_TID of a task that had exited) beside a named thread */
static void script__pid_minus_one__printed_as_perf(void **state)
{
	(void)state;
	static char mp[4096], pf[4096];
	const char *gone = path_in("gone.data");
	struct mp_err err = { 0 };
	mp_pdw *w = mp_pdw_create(gone, &err);
	assert_non_null(w);
	struct perf_event_attr clk = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	uint64_t cid = CLK_ID;
	assert_true(mp_pdw_add_attr(w, &clk, &cid, 1, "cpu-clock", NULL) >= 0);
	mp_pdw_set_auto_build_ids(w, 0);
	put_comm(w, PID, PID, "alive");
	put_sample(w, CLK_ID, 0x400200, PID, PID, 1000, 100000);
	put_sample(w, CLK_ID, 0x400200, UINT32_MAX, UINT32_MAX, 1001, 100000);
	put_sample(w, CLK_ID, 0x400200, PID, UINT32_MAX, 1002, 100000);
	assert_int_equal(mp_pdw_close(w, &err), 0);
	const char *m = getenv("MEMPROF");
	assert_int_equal(run_on(mp, sizeof(mp), m, "script -F pid,tid", gone), 0);
	assert_string_equal(mp, " 4242/4242  \n   -1/-1    \n 4242/-1    \n");
	assert_int_equal(run_on(mp, sizeof(mp), m, "script -F comm,tid", gone), 0);
	assert_string_equal(mp, "           alive  4242 \n             :-1    -1 \n"
				"             :-1    -1 \n");
	assert_int_equal(run_on(mp, sizeof(mp), m, "script --csv -G", gone), 0);
	assert_non_null(strstr(mp, "\n:-1,-1,-1,0,1001,cpu-clock,"));
	assert_non_null(strstr(mp, "\n:-1,4242,-1,0,1002,cpu-clock,"));
	assert_int_equal(run_on(mp, sizeof(mp), m, "script", gone), 0);
	assert_non_null(strstr(mp, "\n:-1 -1/-1 0.000001: 100000 cpu-clock:\n"));
	/* report's Pid and Tid columns, --csv and --json: -1 too (were 4294967295) */
	assert_int_equal(run_on(mp, sizeof(mp), m, "report --stdio --sort pid,tid", gone), 0);
	assert_non_null(strstr(mp, "\n          1    33.33%     4242       -1\n"));
	assert_non_null(strstr(mp, "\n          1    33.33%       -1       -1\n"));
	assert_int_equal(run_on(mp, sizeof(mp), m, "report --sort pid,tid --csv", gone), 0);
	assert_non_null(strstr(mp, "\n4242,-1,1,100000,33.3333\n-1,-1,1,100000,33.3333\n"));
	assert_int_equal(run_on(mp, sizeof(mp), m, "report --sort pid,tid --json", gone), 0);
	assert_non_null(strstr(mp, "{\"pid\": 4242, \"tid\": -1, \"samples\": [1]"));
	assert_non_null(strstr(mp, "{\"pid\": -1, \"tid\": -1, \"samples\": [1]"));
	/* diff --json's rows too */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "%s diff %s %s --sort pid,tid --json 2>&1", m, gone, gone);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	mp[fread(mp, 1, sizeof(mp) - 1, p)] = 0;
	assert_int_equal(pclose(p), 0);
	assert_non_null(strstr(mp, "{\"pid\": 4242, \"tid\": -1, \"sides\": "));
	assert_non_null(strstr(mp, "{\"pid\": -1, \"tid\": -1, \"sides\": "));
	/* perf, the referee, where it is installed */
	if (system("perf --version >/dev/null 2>&1") == 0) {
		static const char *const fields[] = { "script -F pid,tid", "script -F comm,tid" };
		for (size_t i = 0; i < 2; i++) {
			assert_int_equal(run_on(mp, sizeof(mp), m, fields[i], gone), 0);
			assert_int_equal(run_on(pf, sizeof(pf), "perf", fields[i], gone), 0);
			assert_string_equal(mp, pf);
		}
		/* report -F pid: perf's Pid:Command column, the rows the same ("-1::-1") */
		assert_int_equal(run_on(mp, sizeof(mp), m, "report --stdio -F overhead,pid", gone), 0);
		assert_int_equal(run_on(pf, sizeof(pf), "perf", "report --stdio -F overhead,pid", gone), 0);
		static const char *const rows[] = { "\n    66.67%       -1::-1    \n",
						    "\n    33.33%     4242:alive  \n" };
		for (size_t i = 0; i < 2; i++) {
			assert_non_null(strstr(pf, rows[i]));
			assert_non_null(strstr(mp, rows[i]));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_mem__mixed_events__memory_rows_of_the_event_with_fields),
		cmocka_unit_test(script_fields__mixed_events__fields_of_each_event),
		cmocka_unit_test(mem_report__mixed_events__levels_of_the_memory_event),
		cmocka_unit_test(script__pid_minus_one__printed_as_perf),
	};
	if (!getenv("MEMPROF")) {
		fprintf(stderr, "skipped: MEMPROF not set\n");
		return 77;
	}
	if (getenv("MEM_MIXED_KEEP")) /* write the file only, to look at it */
		return write_file(NULL) ? 1 : (printf("%s\n", file), 0);
	return cmocka_run_group_tests(tests, write_file, teardown_dir);
}
