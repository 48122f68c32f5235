/* Unit tests of the CLI option parser (cli/cli_opts.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"

struct opts {
	int all, graph;
	const char *out;
	char *events;
	uint64_t count;
	int pid;
	double thr;
};

static int parse(struct opts *o, int stop, int argc, char **argv, int *nargs)
{
	const struct cli_opt tab[] = {
		{ 'a', "all-cpus", CLI_FLAG, &o->all, NULL, "system-wide" },
		{ 'g', NULL, CLI_FLAG, &o->graph, NULL, "call graph" },
		{ 'o', "output", CLI_STR, &o->out, "FILE", "output" },
		{ 'e', "event", CLI_STRLIST, &o->events, "EVENTS", "events" },
		{ 'c', "count", CLI_U64, &o->count, "N", "period" },
		{ 'p', "pid", CLI_INT, &o->pid, "PID", "pid" },
		{ 0, "threshold", CLI_DOUBLE, &o->thr, "PCT", "threshold" },
		{ 0 },
	};
	const struct cli_cmd cmd = { "test", NULL, "", "[OPTIONS]", NULL, stop };
	return cli_parse(&cmd, tab, argc, argv, nargs);
}

static void cli_parse__bundled_and_repeated__all_stored(void **state)
{
	(void)state;
	struct opts o = { 0 };
	char *argv[] = { "record", "-ag", "-e", "cycles", "--event=instructions", "-c0x10",
			 "-o", "f.data", "--pid", "42", "--threshold", "0.5", "./prog", "-x", NULL };
	int nargs = -1;
	assert_int_equal(parse(&o, 1, 14, argv, &nargs), 0);
	assert_int_equal(o.all, 1);
	assert_int_equal(o.graph, 1);
	assert_string_equal(o.events, "cycles,instructions");
	assert_int_equal(o.count, 16);
	assert_string_equal(o.out, "f.data");
	assert_int_equal(o.pid, 42);
	assert_true(o.thr > 0.49 && o.thr < 0.51);
	assert_int_equal(nargs, 2);
	assert_string_equal(argv[1], "./prog");
	assert_string_equal(argv[2], "-x"); /* the workload's own option is left alone */
	assert_null(argv[3]);
	free(o.events);
}

static void cli_parse__mixed_args__moved_to_front(void **state)
{
	(void)state;
	struct opts o = { 0 };
	char *argv[] = { "report", "walk", "-o", "x", "inc", "--", "-weird", NULL };
	int nargs = -1;
	assert_int_equal(parse(&o, 0, 7, argv, &nargs), 0);
	assert_int_equal(nargs, 3);
	assert_string_equal(argv[1], "walk");
	assert_string_equal(argv[2], "inc");
	assert_string_equal(argv[3], "-weird");
	assert_string_equal(o.out, "x");
}

static void cli_parse__bad_input__usage_error(void **state)
{
	(void)state;
	static const struct {
		int argc;
		char *argv[4];
		int line;
	} cases[] = {
		{ 2, { "x", "--nope" }, __LINE__ },
		{ 2, { "x", "-z" }, __LINE__ },
		{ 2, { "x", "-c" }, __LINE__ },
		{ 3, { "x", "-c", "12abc" }, __LINE__ },
		{ 3, { "x", "-c", "-5" }, __LINE__ },
		{ 3, { "x", "--pid", "99999999999" }, __LINE__ },
		{ 2, { "x", "--all-cpus=1" }, __LINE__ },
		{ 3, { "x", "--threshold", "abc" }, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { 0 };
		char *argv[4];
		int nargs;
		memcpy(argv, cases[i].argv, sizeof(argv));
		int rc = parse(&o, 0, cases[i].argc, argv, &nargs);
		if (rc != 2)
			fail_msg("case at line %d: rc %d, expected 2", cases[i].line, rc);
		free(o.events);
	}
}

static void cli_parse__help__returns_1(void **state)
{
	(void)state;
	struct opts o = { 0 };
	char *argv[] = { "x", "--help", NULL };
	int nargs;
	assert_int_equal(parse(&o, 0, 2, argv, &nargs), 1);
}

static void cli_parse__no_nargs__an_argument_is_a_usage_error(void **state)
{
	(void)state;
	static const struct {
		int argc, rc;
		char *argv[4];
		int line;
	} cases[] = {
		{ 3, 0, { "x", "-o", "f" }, __LINE__ },
		{ 1, 0, { "x" }, __LINE__ },
		{ 2, 2, { "x", "f.data" }, __LINE__ },
		{ 4, 2, { "x", "-o", "f", "g" }, __LINE__ },
		{ 3, 2, { "x", "--", "-weird" }, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { 0 };
		char *argv[4];
		memcpy(argv, cases[i].argv, sizeof(argv));
		int rc = parse(&o, 0, cases[i].argc, argv, NULL);
		if (rc != cases[i].rc)
			fail_msg("case at line %d: rc %d, expected %d", cases[i].line, rc, cases[i].rc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cli_parse__bundled_and_repeated__all_stored),
		cmocka_unit_test(cli_parse__mixed_args__moved_to_front),
		cmocka_unit_test(cli_parse__bad_input__usage_error),
		cmocka_unit_test(cli_parse__help__returns_1),
		cmocka_unit_test(cli_parse__no_nargs__an_argument_is_a_usage_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
