/* test_predict.c - the predict-file reader (good records, every truncation, hostile
 * lengths and numbers) and the aggregation (by use, line, expr, function; sort; threshold). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mp_predict.h"

static const char rec1[] =
	"MEMPROF-PREDICT 1 %zu\n"
	"%s";
static const char body1[] =
	"pid 42\n"
	"object 9:/bin/prog\n"
	"build-id 0123abcd\n"
	"arch x86_64\n"
	"word 64\n"
	"uses 3\n"
	"use likely plain 10 999 1 6:prog.c 4:loop 7:i < 999\n"
	"use unlikely atomic 12 300 700 6:prog.c 4:loop 10:i % 10 < 7\n"
	"use unlikely plain 20 5 5 5:lib.c 1:f 8:x\ny == 0\n"
	"end\n";

static char *make(const char *body)
{
	size_t n = strlen(body);
	char *s = malloc(n + 64);
	snprintf(s, n + 64, rec1, n, body);
	return s;
}

static void parse__good_record__all_fields(void **state)
{
	struct mp_predict p;
	struct mp_err err = { 0 };
	char *s = make(body1);
	(void)state;
	assert_int_equal(mp_predict_parse(&p, "f", s, strlen(s), &err), 0);
	assert_int_equal(p.nrecords, 1);
	assert_int_equal(p.nuses, 3);
	assert_int_equal(p.records[0].pid, 42);
	assert_string_equal(p.records[0].object, "/bin/prog");
	assert_string_equal(p.records[0].build_id, "0123abcd");
	assert_string_equal(p.records[0].arch, "x86_64");
	assert_int_equal(p.records[0].word, 64);
	assert_int_equal(p.uses[0].likely, 1);
	assert_int_equal(p.uses[0].correct, 999);
	assert_int_equal(p.uses[0].incorrect, 1);
	assert_int_equal(p.uses[1].atomic, 1);
	assert_int_equal(p.uses[1].line, 12);
	assert_string_equal(p.uses[1].expr, "i % 10 < 7");
	assert_string_equal(p.uses[2].expr, "x\ny == 0"); /* a newline inside a string */
	mp_predict_fini(&p);
	free(s);
}

/* Every proper prefix of a good file is an error naming the file and an offset. */
static void parse__every_truncation__error_with_offset(void **state)
{
	char *s = make(body1);
	size_t n = strlen(s);
	(void)state;
	for (size_t k = 1; k < n; k++) {
		struct mp_predict p;
		struct mp_err err = { 0 };
		int rc = mp_predict_parse(&p, "t.pred", s, k, &err);
		assert_true(rc == -MP_ETRUNC || rc == -MP_EFORMAT);
		assert_non_null(strstr(err.msg, "t.pred: offset "));
		assert_int_equal(p.nrecords, 0);
		assert_null(p.uses);
	}
	free(s);
}

static void parse__two_records__offsets(void **state)
{
	struct mp_predict p;
	struct mp_err err = { 0 };
	char *a = make(body1), *b;
	size_t na = strlen(a);
	(void)state;
	b = malloc(2 * na + 1);
	memcpy(b, a, na);
	memcpy(b + na, a, na + 1);
	assert_int_equal(mp_predict_parse(&p, "f", b, 2 * na, &err), 0);
	assert_int_equal(p.nrecords, 2);
	assert_int_equal(p.records[1].offset, na);
	assert_int_equal(p.records[1].first_use, 3);
	assert_int_equal(p.uses[4].record, 1);
	mp_predict_fini(&p);
	free(a);
	free(b);
}

/* "@" at the start: a record header with the body's true length goes there. */
static const struct bad {
	const char *text;
	const char *msg; /* in err.msg */
	int line;
} bad[] = {
	{ "MEMPROF-PREDICT 2 5\nhello", "unknown record version", __LINE__ },
	{ "NOTPREDICT", "expected 'MEMPROF-PREDICT '", __LINE__ },
	{ "MEMPROF-PREDICT 1 999999999999\n", "number out of range", __LINE__ },
	{ "MEMPROF-PREDICT 1 100\npid 1\n", "offset 22: record longer than the rest", __LINE__ },
	{ "MEMPROF-PREDICT 1 18446744073709551616\n", "number out of range", __LINE__ },
	{ "MEMPROF-PREDICT 1 18\npid 99999999999\nob", "number out of range", __LINE__ },
	{ "@pid 1\nobject 999999:/x\nbuild-id -\n", "string longer", __LINE__ },
	{ "@pid 1\nobject 9999999:/x\nbuild-id -\n", "number out of range", __LINE__ },
	{ "@pid 1\nobject 2:/x\nbuild-id -\narch x86_64\nword 16\nuses 0\nend\n",
	  "not 32 or 64", __LINE__ },
	{ "@pid 1\nobject 2:/x\nbuild-id -\narch x86_64\nword 64\nuses 4000000000\nend\n",
	  "more uses than", __LINE__ },
	{ "@pid 1\nobject 2:/x\nbuild-id -\narch x86_64\nword 64\nuses 0\nend\nX\n",
	  "bytes after 'end'", __LINE__ },
	{ "@pid 1\nobject 2:/x\nbuild-id Q\narch x86_64\nword 64\nuses 0\nend\n",
	  "expected a word", __LINE__ },
	{ "@pid 1\nobject 2:/x\nbuild-id -\narch x86_64\nword 64\nuses 1\n"
	  "use maybe plain 1 1 1 1:a 1:b 1:c\nend\n", "expected 'unlikely '", __LINE__ },
};

static void parse__hostile__one_line_error(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct mp_predict p;
		struct mp_err err = { 0 };
		char buf[512];
		const char *t = bad[i].text;
		int rc;
		if (t[0] == '@') {
			snprintf(buf, sizeof buf, rec1, strlen(t + 1), t + 1);
			t = buf;
		}
		rc = mp_predict_parse(&p, "bad.pred", t, strlen(t), &err);
		if (rc == 0 || !strstr(err.msg, bad[i].msg) || !strstr(err.msg, "bad.pred: offset ") ||
		    strchr(err.msg, '\n'))
			fail_msg("line %d: rc %d, message '%s', want '%s'", bad[i].line, rc, err.msg,
				 bad[i].msg);
		assert_int_equal(p.nrecords, 0);
	}
}

static void parse__nul_in_string__error(void **state)
{
	static const char t[] = "MEMPROF-PREDICT 1 59\npid 1\nobject 2:/\0\nbuild-id -\narch x86_64\n"
				"word 64\nuses 0\nend\n";
	struct mp_predict p;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_predict_parse(&p, "n", t, sizeof t - 1, &err), -MP_EFORMAT);
	assert_non_null(strstr(err.msg, "NUL byte"));
}

static void read__missing_file__names_it(void **state)
{
	struct mp_predict p;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_predict_read(&p, "/nonexistent/x.pred", &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.pred"));
}

/* Three records: two processes of one object, one of another. */
static const char agg_bodies[][400] = {
	"pid 1\nobject 2:/a\nbuild-id -\narch x86_64\nword 64\nuses 3\n"
	"use unlikely plain 5 9 1 3:m.c 2:fa 4:e==0\n"
	"use unlikely plain 5 1 1 3:m.c 2:fa 4:e==0\n" /* a compiler's copy of the same use */
	"use likely plain 9 10 30 3:m.c 2:fb 3:k>1\nend\n",
	"pid 2\nobject 2:/a\nbuild-id -\narch x86_64\nword 64\nuses 2\n"
	"use unlikely plain 5 10 0 3:m.c 2:fa 4:e==0\n"
	"use unlikely atomic 7 18 2 3:m.c 2:fa 4:e==0\nend\n",
	"pid 1\nobject 2:/b\nbuild-id -\narch x86_64\nword 64\nuses 1\n"
	"use unlikely atomic 3 27 3 3:n.c 2:fc 4:e==0\nend\n",
};

static void load_agg(struct mp_predict *p)
{
	char buf[2048];
	size_t len = 0;
	struct mp_err err = { 0 };
	for (size_t i = 0; i < 3; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, rec1, strlen(agg_bodies[i]),
					agg_bodies[i]);
	assert_int_equal(mp_predict_parse(p, "agg", buf, len, &err), 0);
	assert_int_equal(p->nuses, 6);
}

static void aggregate__by_use__copies_and_processes_merge(void **state)
{
	struct mp_predict p;
	struct mp_predict_opts o = { MP_PREDICT_BY_USE, MP_PREDICT_SORT_INCORRECT, 0 };
	struct mp_predict_row *r;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	load_agg(&p);
	assert_int_equal(mp_predict_aggregate(&p, &o, &r, &n, &err), 0);
	assert_int_equal(n, 4);
	/* sorted by incorrect: k>1 (30), n.c:3 (3), m.c:5 (1+1+0 = 2), m.c:7 (2): ties by
	 * % incorrect, then location */
	assert_string_equal(r[0].expr, "k>1");
	assert_true(r[0].warning);
	assert_int_equal(r[1].incorrect, 3);
	assert_int_equal(r[2].line, 7); /* 2/20 = 10% before 2/22 */
	assert_int_equal(r[3].line, 5);
	assert_int_equal(r[3].correct, 20);
	assert_int_equal(r[3].incorrect, 2);
	assert_int_equal(r[3].nuses, 1);
	assert_false(r[3].atomic);
	assert_true(r[1].atomic);
	free(r);
	mp_predict_fini(&p);
}

static void aggregate__by_expr__sums_every_place(void **state)
{
	struct mp_predict p;
	struct mp_predict_opts o = { MP_PREDICT_BY_EXPR, MP_PREDICT_SORT_INCORRECT, 0 };
	struct mp_predict_row *r;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	load_agg(&p);
	assert_int_equal(mp_predict_aggregate(&p, &o, &r, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].expr, "k>1");
	assert_string_equal(r[1].expr, "e==0");
	assert_int_equal(r[1].correct, 9 + 1 + 10 + 18 + 27);
	assert_int_equal(r[1].incorrect, 1 + 1 + 0 + 2 + 3);
	assert_int_equal(r[1].nuses, 3);     /* m.c:5, m.c:7, n.c:3 */
	assert_int_equal(r[1].nlocations, 3);
	assert_int_equal(r[1].hint, 0);
	free(r);
	mp_predict_fini(&p);
}

static void aggregate__by_function_and_line__hint_mixed(void **state)
{
	struct mp_predict p;
	struct mp_predict_opts o = { MP_PREDICT_BY_FUNCTION, MP_PREDICT_SORT_LOCATION, 0 };
	struct mp_predict_row *r;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	load_agg(&p);
	assert_int_equal(mp_predict_aggregate(&p, &o, &r, &n, &err), 0);
	assert_int_equal(n, 3); /* /a fa, /a fb, /b fc */
	assert_string_equal(r[0].func, "fa");
	assert_int_equal(r[0].correct, 38);
	assert_int_equal(r[0].nuses, 2);
	free(r);
	o.by = MP_PREDICT_BY_LINE;
	assert_int_equal(mp_predict_aggregate(&p, &o, &r, &n, &err), 0);
	assert_int_equal(n, 4);
	free(r);
	mp_predict_fini(&p);
}

static void aggregate__threshold_and_sort(void **state)
{
	struct mp_predict p;
	struct mp_predict_opts o = { MP_PREDICT_BY_USE, MP_PREDICT_SORT_TOTAL, 10 };
	struct mp_predict_row *r;
	size_t n;
	struct mp_err err = { 0 };
	(void)state;
	load_agg(&p);
	assert_int_equal(mp_predict_aggregate(&p, &o, &r, &n, &err), 0);
	assert_int_equal(n, 3); /* 75%, 10%, 10%; not 2/22 = 9.1% */
	assert_int_equal(r[0].correct + r[0].incorrect, 40);
	assert_int_equal(r[1].correct + r[1].incorrect, 30);
	assert_int_equal(r[2].correct + r[2].incorrect, 20);
	free(r);
	mp_predict_fini(&p);
}

static void parse_names__bad__names_value(void **state)
{
	enum mp_predict_by by;
	enum mp_predict_sort s;
	struct mp_err err = { 0 };
	(void)state;
	assert_int_equal(mp_predict_by_parse("expr", &by, &err), 0);
	assert_int_equal(by, MP_PREDICT_BY_EXPR);
	assert_int_equal(mp_predict_by_parse("macro", &by, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'macro'"));
	assert_int_equal(mp_predict_sort_parse("percent", &s, &err), 0);
	assert_int_equal(s, MP_PREDICT_SORT_PERCENT);
	assert_int_equal(mp_predict_sort_parse("size", &s, &err), -EINVAL);
}

static void same_file__relative_and_absolute__match(void **state)
{
	(void)state;
	assert_true(mp_predict_same_file("/src/p/known.c", "known.c"));
	assert_true(mp_predict_same_file("../p/known.c", "/src/p/known.c"));
	assert_true(mp_predict_same_file("./known.c", "/src/known.c"));
	assert_false(mp_predict_same_file("/src/unknown.c", "known.c"));
	assert_false(mp_predict_same_file("/src/a/known.c", "/src/b/known.c"));
	assert_false(mp_predict_same_file(NULL, "known.c"));
}

static void line_and_note__merged_over_objects(void **state)
{
	struct mp_predict p;
	struct mp_predict_row r;
	char buf[256];
	int warn;
	(void)state;
	load_agg(&p);
	/* m.c:5 in /a: 9+1 (pid 1, two copies) + 10 (pid 2) correct, 1+1+0 incorrect */
	assert_int_equal(mp_predict_line(&p, "/x/m.c", 5, &r), 1);
	assert_int_equal(r.correct, 20);
	assert_int_equal(r.incorrect, 2);
	assert_int_equal(mp_predict_line(&p, "/x/m.c", 6, &r), 0);
	assert_int_equal(mp_predict_note(&p, "m.c", 9, 1000, 202, buf, sizeof buf, &warn), 1);
	assert_string_equal(buf, "likely: correct 10, incorrect 30 (75.00%) WARNING; "
				 "branch misses 20.20% (202 of 1000)");
	assert_true(warn);
	assert_int_equal(mp_predict_note(&p, "m.c", 7, 0, 0, buf, sizeof buf, &warn), 1);
	assert_string_equal(buf, "unlikely: correct 18, incorrect 2 (10.00%)");
	assert_false(warn);
	assert_int_equal(mp_predict_note(&p, "m.c", 8, 0, 0, buf, sizeof buf, &warn), 0);
	assert_string_equal(buf, "");
	mp_predict_fini(&p);
}

static void branch_event__attr_or_name(void **state)
{
	(void)state;
	assert_int_equal(mp_predict_branch_event(0, 4, "x"), MP_PREDICT_EV_BRANCHES);
	assert_int_equal(mp_predict_branch_event(0, 5, NULL), MP_PREDICT_EV_MISSES);
	assert_int_equal(mp_predict_branch_event(0, 0xa00000005ull, NULL), MP_PREDICT_EV_MISSES);
	assert_int_equal(mp_predict_branch_event(4, 0xc4, "BR_INST_RETIRED.ANY"), MP_PREDICT_EV_BRANCHES);
	assert_int_equal(mp_predict_branch_event(4, 0xc5, "BR_INST_RETIRED.MISPRED:u"), MP_PREDICT_EV_MISSES);
	assert_int_equal(mp_predict_branch_event(4, 0, "Bcm"), MP_PREDICT_EV_MISSES);
	assert_int_equal(mp_predict_branch_event(4, 0, "Bc"), MP_PREDICT_EV_BRANCHES);
	assert_int_equal(mp_predict_branch_event(1, 0, "cpu-clock"), 0);
	assert_int_equal(mp_predict_branch_event(4, 0, "L1D_REPL"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__good_record__all_fields),
		cmocka_unit_test(parse__every_truncation__error_with_offset),
		cmocka_unit_test(parse__two_records__offsets),
		cmocka_unit_test(parse__hostile__one_line_error),
		cmocka_unit_test(parse__nul_in_string__error),
		cmocka_unit_test(read__missing_file__names_it),
		cmocka_unit_test(aggregate__by_use__copies_and_processes_merge),
		cmocka_unit_test(aggregate__by_expr__sums_every_place),
		cmocka_unit_test(aggregate__by_function_and_line__hint_mixed),
		cmocka_unit_test(aggregate__threshold_and_sort),
		cmocka_unit_test(parse_names__bad__names_value),
		cmocka_unit_test(same_file__relative_and_absolute__match),
		cmocka_unit_test(line_and_note__merged_over_objects),
		cmocka_unit_test(branch_event__attr_or_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
