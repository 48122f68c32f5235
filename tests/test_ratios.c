/* test_ratios.c - unit tests of the ratios module: formula parser and evaluator,
 * definition files, binding by event code, interval math, record commands. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_events.h"
#include "mp_ratios.h"

/* ---- formula: values ------------------------------------------------------------------ */

struct fcase {
	const char *text;
	double a, b, c; /* values of the events named a, b, c (others: 10) */
	double want;
	size_t nev;
	int line;
};

static double value_of(const char *name, const struct fcase *t)
{
	if (!strcmp(name, "a"))
		return t->a;
	if (!strcmp(name, "b"))
		return t->b;
	if (!strcmp(name, "c"))
		return t->c;
	return 10;
}

static void formula_eval__table__expected_values(void **state)
{
	(void)state;
	static const struct fcase cases[] = {
		{ "a + b * c", 1, 2, 3, 7, 3, __LINE__ },           /* * before + */
		{ "a * b + c", 1, 2, 3, 5, 3, __LINE__ },
		{ "( a + b ) * c", 1, 2, 3, 9, 3, __LINE__ },
		{ "(a + b) * c", 1, 2, 3, 9, 3, __LINE__ },          /* parens split names */
		{ "a - b - c", 1, 2, 3, -4, 3, __LINE__ },           /* left associative */
		{ "a / b / c", 1, 2, 4, 0.125, 3, __LINE__ },
		{ "a - ( b - c )", 1, 2, 3, 2, 3, __LINE__ },
		{ "- a + 2", 1, 0, 0, 1, 1, __LINE__ },
		{ "- - a", 5, 0, 0, 5, 1, __LINE__ },
		{ "a * - b", 3, 2, 0, -6, 2, __LINE__ },
		{ "2 * a / 4", 3, 0, 0, 1.5, 1, __LINE__ },
		{ "1e3 * a", 2, 0, 0, 2000, 1, __LINE__ },
		{ ".5 * a", 2, 0, 0, 1, 1, __LINE__ },
		{ "a + a", 2, 0, 0, 4, 1, __LINE__ },                /* one event, used twice */
		{ "LLC-load-misses / LLC-loads", 0, 0, 0, 1, 2, __LINE__ },
		{ "DISPATCH_STALLS_1:FE_NO_OPS:c=6 / b", 0, 5, 0, 2, 2, __LINE__ },
		{ "`cpu/event=0x3c, name=my cycles/` * 2", 0, 0, 0, 20, 1, __LINE__ },
		{ "((a))", 7, 0, 0, 7, 1, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct fcase *t = &cases[i];
		struct mp_err err = { 0, "" };
		mp_formula *f = mp_formula_parse(t->text, "t", 1, 1, &err);
		double v[8], r = 0;
		if (!f)
			fail_msg("line %d: '%s': %s", t->line, t->text, err.msg);
		assert_int_equal(mp_formula_nevents(f), t->nev);
		for (size_t k = 0; k < mp_formula_nevents(f); k++)
			v[k] = value_of(mp_formula_event(f, k), t);
		if (mp_formula_eval(f, v, &r, NULL, &err))
			fail_msg("line %d: %s", t->line, err.msg);
		if (fabs(r - t->want) > 1e-12)
			fail_msg("line %d: '%s' = %g, want %g", t->line, t->text, r, t->want);
		mp_formula_free(f);
	}
}

static void formula_parse__names__split_only_at_spaces_and_parens(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_formula *f = mp_formula_parse("( ICACHE_16B:IFDATA_STALL + L1-icache-load-misses ) / a/b",
					 "t", 1, 1, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_nevents(f), 3);
	assert_string_equal(mp_formula_event(f, 0), "ICACHE_16B:IFDATA_STALL");
	assert_string_equal(mp_formula_event(f, 1), "L1-icache-load-misses");
	assert_string_equal(mp_formula_event(f, 2), "a/b"); /* no spaces: one name */
	assert_int_equal(mp_formula_event_col(f, 0), 3);
	assert_int_equal(mp_formula_event_col(f, 2), 55);
	assert_false(mp_formula_has_minus(f));
	mp_formula_free(f);
}

/* ---- formula: errors ------------------------------------------------------------------ */

struct ecase {
	const char *text;
	const char *msg; /* full message, src "x.ratios", line 12, formula at column 10 */
	int line;
};

static void formula_parse__bad_input__error_with_column(void **state)
{
	(void)state;
	static const struct ecase cases[] = {
		{ "a +", "x.ratios:12:13: unexpected end of formula: expected an event, a number or '('", __LINE__ },
		{ "a + * b", "x.ratios:12:14: unexpected operator '*': expected an event, a number or '('", __LINE__ },
		{ "a b", "x.ratios:12:12: expected an operator (+ - * /, with spaces around it)", __LINE__ },
		{ "( a + b", "x.ratios:12:17: expected ')' to close the '(' at column 10", __LINE__ },
		{ "a )", "x.ratios:12:12: unbalanced ')'", __LINE__ },
		{ "", "x.ratios:12:10: empty formula", __LINE__ },
		{ "   ", "x.ratios:12:10: empty formula", __LINE__ },
		{ "2x * a", "x.ratios:12:10: bad number '2x' (binary operators need spaces around them)", __LINE__ },
		{ "a * 1e999", "x.ratios:12:14: bad number '1e999' (binary operators need spaces around them)", __LINE__ },
		{ "-a", "x.ratios:12:10: operator '-' needs a space after it", __LINE__ },
		{ "a / `b", "x.ratios:12:14: unterminated `quoted name`", __LINE__ },
		{ "a / ``", "x.ratios:12:14: empty `quoted name`", __LINE__ },
		{ "( )", "x.ratios:12:12: unexpected ')': expected an event, a number or '('", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_err err = { 0, "" };
		mp_formula *f = mp_formula_parse(cases[i].text, "x.ratios", 12, 10, &err);
		if (f)
			fail_msg("line %d: '%s' parsed", cases[i].line, cases[i].text);
		assert_int_equal(err.code, -MP_EPARSE);
		if (strcmp(err.msg, cases[i].msg))
			fail_msg("line %d: got  '%s'\n want '%s'", cases[i].line, err.msg, cases[i].msg);
	}
}

static void formula_parse__deep_nesting__refused_not_crash(void **state)
{
	(void)state;
	char buf[600];
	struct mp_err err = { 0, "" };
	memset(buf, '(', 300);
	strcpy(buf + 300, "a");
	memset(buf + 301, ')', 298);
	buf[599] = 0;
	assert_null(mp_formula_parse(buf, "t", 1, 1, &err));
	assert_non_null(strstr(err.msg, "nested too deeply"));
}

static int known_abc(void *ctx, const char *name)
{
	(void)ctx;
	return !strcmp(name, "cycles") || !strcmp(name, "instructions");
}

static void formula_check__unknown_name__named_with_column(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_formula *f = mp_formula_parse("instructions / cyles", "my.ratios", 3, 8, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_check(f, known_abc, NULL, &err), -MP_EPARSE);
	assert_string_equal(err.msg, "my.ratios:3:23: unknown event 'cyles'");
	mp_formula_free(f);

	f = mp_formula_parse("instructions/cycles", "my.ratios", 3, 8, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_check(f, known_abc, NULL, &err), -MP_EPARSE);
	assert_string_equal(err.msg, "my.ratios:3:8: unknown event 'instructions/cycles' "
				     "(binary operators need spaces around them)");
	mp_formula_free(f);
}

static void formula_eval__division_by_zero__edom_at_slash(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	double v[2] = { 5, 3 }, r;
	mp_formula *f = mp_formula_parse("a / ( b - b )", "d.ratios", 4, 7, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_eval(f, v, &r, NULL, &err), -EDOM);
	assert_string_equal(err.msg, "d.ratios:4:9: division by zero");
	assert_true(mp_formula_has_minus(f));
	mp_formula_free(f);
}

static void formula_eval__gradient__matches_hand_derivative(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	/* f = (a + b) / c at a=2, b=4, c=3: df/da = df/db = 1/c = 1/3,
	 * df/dc = -(a+b)/c^2 = -6/9 = -2/3. */
	double v[3] = { 2, 4, 3 }, g[3], r;
	mp_formula *f = mp_formula_parse("( a + b ) / c", "t", 1, 1, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_eval(f, v, &r, g, &err), 0);
	assert_true(fabs(r - 2) < 1e-15);
	assert_true(fabs(g[0] - 1.0 / 3) < 1e-15);
	assert_true(fabs(g[1] - 1.0 / 3) < 1e-15);
	assert_true(fabs(g[2] + 2.0 / 3) < 1e-15);
	mp_formula_free(f);
	/* f = a * b - 2 * a at a=3, b=5: df/da = b - 2 = 3, df/db = a = 3; f = 9 */
	double v2[2] = { 3, 5 };
	f = mp_formula_parse("a * b - 2 * a", "t", 1, 1, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_eval(f, v2, &r, g, &err), 0);
	assert_true(fabs(r - 9) < 1e-15 && fabs(g[0] - 3) < 1e-15 && fabs(g[1] - 3) < 1e-15);
	mp_formula_free(f);
}

/* ---- definition files ----------------------------------------------------------------- */

static const char good_defs[] =
	"# test definitions\n"
	"\n"
	"[MY_RATE]\n"
	"name = My Rate\n"
	"what = misses per instruction\n"
	"high = too many misses\n"
	"low = fine\n"
	"threshold = > 0.25\n"
	"format = percent\n"
	"core = exact L1D_REPL / INSTRUCTION_RETIRED\n"
	"perf.note = generic events\n"
	"perf = approx L1-dcache-load-misses / instructions\n"
	"  core.note = lines allocated in L1D\n"
	"[LOW_ONE]\n"
	"name = Low One\n"
	"threshold = < 1.5\n"
	"perf = exact instructions / cycles\n";

static void set_load_text__good__fields_parsed(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = mp_ratio_set_new();
	assert_int_equal(mp_ratio_set_load_text(s, good_defs, "good.ratios", &err), 0);
	assert_int_equal(mp_ratio_set_count(s), 2);
	const struct mp_ratio_def *d = mp_ratio_set_find(s, "my rate");
	assert_non_null(d);
	assert_string_equal(d->id, "MY_RATE");
	assert_string_equal(d->what, "misses per instruction");
	assert_string_equal(d->high, "too many misses");
	assert_string_equal(d->low, "fine");
	assert_true(d->has_threshold && d->threshold == 0.25 && !d->threshold_below);
	assert_true(d->percent);
	assert_int_equal(d->line, 3);
	assert_int_equal(d->nv, 2);
	assert_string_equal(d->v[0].model, "core");
	assert_int_equal(d->v[0].status, MP_RATIO_EXACT);
	assert_string_equal(d->v[0].note, "lines allocated in L1D");
	assert_string_equal(mp_formula_src(d->v[0].f), "L1D_REPL / INSTRUCTION_RETIRED");
	assert_int_equal(d->v[1].status, MP_RATIO_APPROX);
	assert_string_equal(d->v[1].note, "generic events");
	assert_int_equal(d->v[1].line, 12);
	assert_ptr_equal(mp_ratio_set_find(s, "My_Rate"), d);
	assert_ptr_equal(mp_ratio_set_find(s, "MY-RATE"), d);
	assert_null(mp_ratio_set_find(s, "MY_RATES"));
	d = mp_ratio_set_find(s, "LOW_ONE");
	assert_true(d->has_threshold && d->threshold == 1.5 && d->threshold_below);

	/* a later file replaces a ratio as a whole */
	assert_int_equal(mp_ratio_set_load_text(s, "[LOW_ONE]\nname = Replaced\nperf = exact a / b\n",
						"user.ratios", &err), 0);
	assert_int_equal(mp_ratio_set_count(s), 2);
	d = mp_ratio_set_find(s, "LOW_ONE");
	assert_string_equal(d->name, "Replaced");
	assert_string_equal(d->src, "user.ratios");
	assert_false(d->has_threshold);
	mp_ratio_set_free(s);
}

struct dcase {
	const char *text;
	const char *msg;
	int line;
};

static void set_load_text__bad__error_with_file_line_column(void **state)
{
	(void)state;
	static const struct dcase cases[] = {
		{ "name = x\n", "b.ratios:1:1: 'key = value' before the first [RATIO_ID]", __LINE__ },
		{ "[A]\nname = A\nperf = exact a +\n",
		  "b.ratios:3:17: unexpected end of formula: expected an event, a number or '('", __LINE__ },
		{ "[A]\nname = A\n  perf  =  exact   a ) b\n",
		  "b.ratios:3:22: unbalanced ')'", __LINE__ },
		{ "[A]\nname = A\nperf = exactly a / b\n",
		  "b.ratios:3:8: expected 'exact' or 'approx' before the formula of model 'perf'", __LINE__ },
		{ "[A]\nperf = exact a / b\n", "b.ratios:1:1: [A] has no 'name = ...'", __LINE__ },
		{ "[A]\nname = A\n[B]\n", "b.ratios:1:1: [A] has no formula (e.g. 'perf = approx cycles / instructions')", __LINE__ },
		{ "[A]\nname = A\nperf = exact a / b\n[A]\n", "b.ratios:4:2: ratio [A] defined twice in this file", __LINE__ },
		{ "[A-B]\n", "b.ratios:1:3: ratio ids are letters, digits and '_'", __LINE__ },
		{ "[A\n", "b.ratios:1:1: expected ']' to end the ratio id", __LINE__ },
		{ "[A]\nname = A\nthreshold = big\nperf = exact a / b\n",
		  "b.ratios:3:13: threshold must be '> NUMBER' or '< NUMBER', not 'big'", __LINE__ },
		{ "[A]\nname = A\nperf = exact a / b\nperf = exact c / d\n",
		  "b.ratios:4:1: second formula for model 'perf'", __LINE__ },
		{ "[A]\nname = A\nperf = exact a / b\nskl.note = x\n",
		  "b.ratios:4:1: note for model 'skl', which [A] has no formula for", __LINE__ },
		{ "[A]\nname = A\nperf.notes = x\n",
		  "b.ratios:3:1: unknown key 'perf.notes' (MODEL.note is the only dotted key)", __LINE__ },
		{ "[A]\nname = A\njust text\n", "b.ratios:3:1: expected '[RATIO_ID]' or 'key = value'", __LINE__ },
		{ "[A]\nname = A\narticle = 13\n",
		  "b.ratios:3:11: article is the row 1..12 of the article's table, not '13'", __LINE__ },
		{ "[A]\nname = A\nformat = pct\n", "b.ratios:3:10: format is 'percent' or 'ratio', not 'pct'", __LINE__ },
		{ "[A]\nname = A\nperf =\n", "b.ratios:3:7: model 'perf' needs 'exact FORMULA' or 'approx FORMULA'", __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_err err = { 0, "" };
		mp_ratio_set *s = mp_ratio_set_new();
		int rc = mp_ratio_set_load_text(s, cases[i].text, "b.ratios", &err);
		if (rc != -MP_EPARSE)
			fail_msg("line %d: rc %d (%s)", cases[i].line, rc, err.msg);
		if (strcmp(err.msg, cases[i].msg))
			fail_msg("line %d: got  '%s'\n want '%s'", cases[i].line, err.msg, cases[i].msg);
		mp_ratio_set_free(s);
	}
}

static void set_load_builtin__shipped__article_table_complete(void **state)
{
	(void)state;
	static const char *const ids[12] = {
		"IFETCH_STALL", "ITLB_MISS_RATE", "L1I_MISS_RATE", "L2_INSTR_MISS_RATE",
		"LOAD_RATE", "STORE_ORDER_BLOCK", "L1D_BLOCKING_LOADS", "L1D_MISS_RATE",
		"L2_DATA_MISS_RATE", "L2_DEMAND_MISS_RATE", "USEFUL_NTA_PREFETCH_RATE",
		"LATE_NTA_PREFETCH_RATE",
	};
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = mp_ratio_set_new();
	assert_int_equal(mp_ratio_set_load_builtin(s, &err), 0);
	for (int i = 0; i < 12; i++) {
		const struct mp_ratio_def *d = mp_ratio_set_find(s, ids[i]);
		if (!d)
			fail_msg("%s missing", ids[i]);
		assert_int_equal(d->article, i + 1);
		/* every article ratio is exact on Core 2 */
		assert_string_equal(d->v[0].model, "core");
		assert_int_equal(d->v[0].status, MP_RATIO_EXACT);
	}
	const struct mp_ratio_def *d = mp_ratio_set_find(s, "L1D Miss Rate");
	assert_string_equal(mp_formula_src(d->v[0].f), "L1D_REPL / INSTRUCTION_RETIRED");
	assert_non_null(mp_ratio_set_find(s, "IPC"));
	assert_non_null(mp_ratio_set_find(s, "BRANCH_MISS_RATE"));
	assert_non_null(mp_ratio_set_find(s, "DTLB_MISS_RATE"));
	assert_non_null(mp_ratio_set_find(s, "LLC_MISS_RATE"));
	/* the summary table of ratio-mapping.md: mapped ratios per target (exact+approx) */
	static const struct { const char *model; int mapped, exact; } sum[] = {
		{ "core", 12, 12 }, { "nhm", 10, 8 }, { "snb", 10, 4 }, { "skl", 11, 6 },
		{ "icl", 12, 6 }, { "spr", 12, 5 }, { "amd64_fam17h_zen2", 10, 1 },
		{ "amd64_fam19h_zen3", 10, 3 }, { "amd64_fam19h_zen4", 10, 3 },
		{ "perf", 7, 0 }, { "cachegrind", 10, 0 },
	};
	for (size_t k = 0; k < sizeof(sum) / sizeof(sum[0]); k++) {
		int mapped = 0, exact = 0;
		for (int i = 0; i < 12; i++) {
			d = mp_ratio_set_find(s, ids[i]);
			for (size_t v = 0; v < d->nv; v++)
				if (!strcmp(d->v[v].model, sum[k].model)) {
					mapped++;
					exact += d->v[v].status == MP_RATIO_EXACT;
				}
		}
		if (mapped != sum[k].mapped || exact != sum[k].exact)
			fail_msg("%s: %d mapped %d exact, want %d %d", sum[k].model, mapped, exact,
				 sum[k].mapped, sum[k].exact);
	}
	mp_ratio_set_free(s);
}

static void set_load_dir__user_folder__sorted_and_overrides(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_ratios_XXXXXX", path[512];
	struct mp_err err = { 0, "" };
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.ratios", dir);
	FILE *f = fopen(path, "w");
	fputs("[IPC]\nname = IPC from b\nperf = exact instructions / cycles\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/a.ratios", dir);
	f = fopen(path, "w");
	fputs("[IPC]\nname = IPC from a\nperf = exact instructions / cycles\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ignored.txt", dir);
	f = fopen(path, "w");
	fputs("garbage\n", f);
	fclose(f);

	mp_ratio_set *s = mp_ratio_set_new();
	assert_int_equal(mp_ratio_set_load_builtin(s, &err), 0);
	size_t n = mp_ratio_set_count(s);
	assert_int_equal(mp_ratio_set_load_dir(s, dir, &err), 0);
	assert_int_equal(mp_ratio_set_count(s), n);
	assert_string_equal(mp_ratio_set_find(s, "IPC")->name, "IPC from b"); /* b after a */
	assert_int_equal(mp_ratio_set_load_dir(s, "/nonexistent/memprof", &err), 0);

	snprintf(path, sizeof(path), "%s/c.ratios", dir);
	f = fopen(path, "w");
	fputs("[X]\nname = X\nperf = exact a +* b\n", f);
	fclose(f);
	assert_int_equal(mp_ratio_set_load_dir(s, dir, &err), -MP_EPARSE);
	char want[600];
	snprintf(want, sizeof(want), "%s/c.ratios:3:16: operator '+' needs a space after it", dir);
	assert_string_equal(err.msg, want);
	mp_ratio_set_free(s);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* ---- binding and evaluation ------------------------------------------------------------ */

struct fake_ev {
	const char *model, *name;
	uint32_t type;
	uint64_t config;
};

static const struct fake_ev fake_table[] = {
	{ "core", "L1D_REPL", PERF_TYPE_RAW, 0xf45 },
	{ "core", "INSTRUCTION_RETIRED", PERF_TYPE_RAW, 0xc0 },
	{ "core", "L2_LINES_IN:SELF:ANY", PERF_TYPE_RAW, 0xf024 },
	{ "core", "L1I_MISSES", PERF_TYPE_RAW, 0x81 },
	{ "core", "L1D_CACHE_LD:MESI", PERF_TYPE_RAW, 0xf40 },
	{ "core", "UNHALTED_CORE_CYCLES", PERF_TYPE_RAW, 0x3c },
	{ "perf", "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000 },
	{ "perf", "instructions", PERF_TYPE_HARDWARE, 1 },
	{ "perf", "cycles", PERF_TYPE_HARDWARE, 0 },
};

static int fake_resolve(void *ctx, const char *event, const char *model,
			struct perf_event_attr *attr, struct mp_err *err)
{
	int *calls = ctx;
	if (calls)
		(*calls)++;
	for (size_t i = 0; i < sizeof(fake_table) / sizeof(fake_table[0]); i++)
		if (!strcmp(fake_table[i].model, model) && !strcmp(fake_table[i].name, event)) {
			attr->type = fake_table[i].type;
			attr->config = fake_table[i].config;
			return 0;
		}
	return mp_err_set(err, -ENOENT, "event '%s': unknown for %s", event, model);
}

static mp_ratio_set *builtin(void)
{
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = mp_ratio_set_new();
	assert_int_equal(mp_ratio_set_load_builtin(s, &err), 0);
	return s;
}

/* Two events as the article records them: raw codes with libpfm's 0x53 bits, names that
 * differ from the formula's (matching is by code). */
static void core_events(struct mp_ratio_event ev[2])
{
	memset(ev, 0, 2 * sizeof(*ev));
	ev[0].attr.type = PERF_TYPE_RAW;
	ev[0].attr.config = 0x530f45;
	ev[0].name = "core::L1D_REPL";
	ev[0].mean_period = 1000;
	ev[1].attr.type = PERF_TYPE_RAW;
	ev[1].attr.config = 0x5300c0;
	ev[1].name = "core::INST_RETIRED:ANY_P";
	ev[1].mean_period = 10000;
}

static void ratio_eval__two_overruns__hand_computed_interval(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	struct mp_ratio_event ev[2];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[4];
	size_t nm = mp_ratio_models_for("GenuineIntel,6,15,11", models, 4);

	core_events(ev);
	assert_int_equal(nm, 2);
	assert_string_equal(models[0], "core");
	assert_string_equal(models[1], "perf");
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, nm, ev, 2,
				       fake_resolve, NULL, &b, &err), 0);
	assert_string_equal(b.var->model, "core");
	assert_int_equal(b.ev[0], 0);
	assert_int_equal(b.ev[1], 1);

	/* L1D_REPL: 100 samples at overrun 1000 -> C_A = 100000, Var_A = 100 * 1000^2 = 1e8.
	 * INST_RETIRED: 400 samples at overrun 10000 -> C_B = 4e6, Var_B = 400 * 1e8 = 4e10.
	 * R = C_A / C_B = 0.025.
	 * dR/dA = 1/C_B = 2.5e-7; dR/dB = -C_A/C_B^2 = -6.25e-9.
	 * Var_R = (2.5e-7)^2 * 1e8 + (6.25e-9)^2 * 4e10 = 6.25e-6 + 1.5625e-6 = 7.8125e-6
	 * sd = 0.0027950850, half width = 1.959964 * sd = 0.0054782665
	 * (the same as R * sqrt(1/100 + 1/400) * 1.96). */
	struct mp_ratio_cell cells[2] = { { 100, 100000, 0 }, { 400, 4e6, 0 } };
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 0, 10, &v, &err), 0);
	assert_true(v.defined);
	assert_false(v.exact);
	assert_true(fabs(v.value - 0.025) < 1e-15);
	assert_true(fabs(v.lo - (0.025 - 0.0054782665)) < 1e-9);
	assert_true(fabs(v.hi - (0.025 + 0.0054782665)) < 1e-9);
	assert_int_equal(v.min_samples, 100);
	assert_false(v.few);
	assert_false(v.flagged);

	/* with sums of squared periods given: frequency-mode periods. Samples of A with
	 * periods 500 and 1500 (x50 each): C_A = 100000 as before, sum p^2 = 50*(250000 +
	 * 2250000) = 1.25e8; Var_R = (2.5e-7)^2*1.25e8 + 1.5625e-6 = 7.8125e-6 + 1.5625e-6
	 * = 9.375e-6, half = 1.959964 * 0.00306186 = 0.0060011. */
	cells[0].period_sq = 1.25e8;
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 0, 10, &v, &err), 0);
	assert_true(fabs(v.hi - v.value - 0.0060011) < 1e-7);

	/* too few samples: marked */
	cells[0].period_sq = 0;
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 0, 101, &v, &err), 0);
	assert_true(v.few);

	/* no L1D_REPL sample at this place: R = 0, but an upper bound from one sample of the
	 * mean overrun: Var_R = (1/C_B)^2 * 1000^2 = 6.25e-8, sd 2.5e-4,
	 * hi = 1.959964 * 2.5e-4 = 4.89991e-4; lo clipped at 0. */
	cells[0] = (struct mp_ratio_cell){ 0, 0, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 0, 10, &v, &err), 0);
	assert_true(v.defined);
	assert_true(v.value == 0 && v.lo == 0);
	assert_true(fabs(v.hi - 4.89991e-4) < 1e-9);
	assert_true(v.few);

	/* no instructions: undefined, not an error */
	cells[1] = (struct mp_ratio_cell){ 0, 0, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 0, 10, &v, &err), 0);
	assert_false(v.defined);

	/* exact counts win when asked for and present for both events */
	ev[0].has_count = ev[1].has_count = 1;
	ev[0].count = 123456;
	ev[1].count = 9876543;
	assert_int_equal(mp_ratio_eval(&b, ev, cells, 1, 10, &v, &err), 0);
	assert_true(v.exact && v.defined);
	assert_true(v.value == 123456.0 / 9876543.0 && v.lo == v.value && v.hi == v.value);
	mp_ratio_set_free(s);
}

static void ratio_bind__event_missing__names_it(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	struct mp_ratio_event ev[2];
	struct mp_ratio_binding b;
	const char *models[4];
	size_t nm = mp_ratio_models_for("core", models, 4);

	core_events(ev);
	/* only INST_RETIRED: L1D Miss Rate lacks L1D_REPL in every variant */
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, nm, ev + 1,
				       1, fake_resolve, NULL, &b, &err), -ENOENT);
	assert_false(b.complete);
	assert_string_equal(b.var->model, "core");
	assert_string_equal(b.missing, "L1D_REPL");
	/* perf generic events in a core file: the perf variant is chosen */
	struct mp_ratio_event g[2];
	memset(g, 0, sizeof(g));
	g[0].attr.type = PERF_TYPE_HARDWARE;
	g[0].attr.config = 1;
	g[0].name = "instructions:u";
	g[1].attr.type = PERF_TYPE_HW_CACHE;
	g[1].attr.config = 0x10000;
	g[1].name = "L1-dcache-load-misses";
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, nm, g, 2,
				       fake_resolve, NULL, &b, &err), 0);
	assert_string_equal(b.var->model, "perf");
	assert_int_equal(b.ev[0], 1);
	assert_int_equal(b.ev[1], 0);
	/* a ratio with no variant for the model or perf */
	const char *only_cg[1] = { "core" };
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "IPC"), only_cg, 0, g, 2, fake_resolve,
				       NULL, &b, &err), -ENOENT);
	assert_null(b.var);
	mp_ratio_set_free(s);
}

static void ratio_eval__threshold__flagged(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = mp_ratio_set_new();
	assert_int_equal(mp_ratio_set_load_text(s, good_defs, "good.ratios", &err), 0);
	struct mp_ratio_event g[2];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[1] = { "perf" };
	memset(g, 0, sizeof(g));
	g[0].attr.type = PERF_TYPE_HARDWARE;
	g[0].attr.config = 1;
	g[1].attr.type = PERF_TYPE_HW_CACHE;
	g[1].attr.config = 0x10000;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "MY_RATE"), models, 1, g, 2,
				       fake_resolve, NULL, &b, &err), 0);
	struct mp_ratio_cell c[2] = { { 50, 5e6, 0 }, { 30, 1e6, 0 } }; /* 1e6/5e6 = 0.2 */
	assert_int_equal(mp_ratio_eval(&b, g, c, 0, 1, &v, &err), 0);
	assert_false(v.flagged);
	c[1].period = 1.5e6; /* 0.3 > 0.25 */
	assert_int_equal(mp_ratio_eval(&b, g, c, 0, 1, &v, &err), 0);
	assert_true(v.flagged);
	char buf[32];
	mp_ratio_format_value(b.def, v.value, buf, sizeof(buf));
	assert_string_equal(buf, "30.00%");
	mp_ratio_set_free(s);
}

static void models_for__cpuid__libpfm_model_then_perf(void **state)
{
	(void)state;
	const char *m[4];
	assert_int_equal(mp_ratio_models_for("GenuineIntel,6,158,10", m, 4), 2);
	assert_string_equal(m[0], "skl");
	assert_int_equal(mp_ratio_models_for("GenuineIntel,6,69,1", m, 4), 3);
	assert_string_equal(m[0], "hsw");
	assert_string_equal(m[1], "snb");
	assert_string_equal(m[2], "perf");
	assert_int_equal(mp_ratio_models_for("AuthenticAMD,23,49,0", m, 4), 2);
	assert_string_equal(m[0], "amd64_fam17h_zen2");
	assert_int_equal(mp_ratio_models_for("AuthenticAMD,25,17,0", m, 4), 2);
	assert_string_equal(m[0], "amd64_fam19h_zen4");
	assert_int_equal(mp_ratio_models_for("AuthenticAMD,25,33,0", m, 4), 2);
	assert_string_equal(m[0], "amd64_fam19h_zen3");
	assert_int_equal(mp_ratio_models_for("GenuineIntel,6,28,10", m, 4), 2);
	assert_string_equal(m[0], "atom");
	assert_int_equal(mp_ratio_models_for(NULL, m, 4), 1);
	assert_string_equal(m[0], "perf");
	assert_int_equal(mp_ratio_models_for("GenuineIntel,6,999,1", m, 4), 1);
}

static void attr_same__libpfm_bits_and_hybrid__equal(void **state)
{
	(void)state;
	struct perf_event_attr a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.type = b.type = PERF_TYPE_RAW;
	a.config = 0x530f45;
	b.config = 0xf45;
	assert_true(mp_ratio_attr_same(&a, &b));
	b.config = 0x1530f45; /* c=1 differs */
	assert_false(mp_ratio_attr_same(&a, &b));
	b.config = 0x5301c6;
	a.config = 0x5301c6;
	a.config1 = 0x14; /* FRONTEND_RETIRED's MSR value */
	assert_false(mp_ratio_attr_same(&a, &b));
	a.type = b.type = PERF_TYPE_HARDWARE;
	a.config = 0x400000000ULL; /* cpu_core/cycles/ */
	b.config = 0;
	assert_true(mp_ratio_attr_same(&a, &b));
	b.type = PERF_TYPE_SOFTWARE;
	assert_false(mp_ratio_attr_same(&a, &b));
}

static void record_cmd__core__split_into_runs_by_counters(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	const char *ids[4] = { "L1D_MISS_RATE", "L2_DATA_MISS_RATE", "L1I_MISS_RATE", "LOAD_RATE" };
	const struct mp_ratio_variant *v[4];
	const char *names[4];
	for (int i = 0; i < 4; i++) {
		const struct mp_ratio_def *d = mp_ratio_set_find(s, ids[i]);
		v[i] = &d->v[0];
		names[i] = d->name;
	}
	struct mp_buf out = { 0 };
	/* Core 2: 2 programmable + 3 fixed counters. INSTRUCTION_RETIRED and
	 * UNHALTED_CORE_CYCLES go on fixed counters: run 1 = L1D_REPL, L2_LINES_IN (2
	 * programmable); L1I_MISSES would be a third -> run 2 with L1D_CACHE_LD. */
	assert_int_equal(mp_ratio_record_cmd(v, names, 4, "core", 0, 0, "./cachebench -s 1M", &out,
					     &err), 0);
	assert_string_equal(out.data,
		"# run 1 of 2: L1D Miss Rate, L2 Data Miss Rate (core events, 2 of 2 programmable counters)\n"
		"memprof record -e core::L1D_REPL,core::INSTRUCTION_RETIRED,core::L2_LINES_IN:SELF:ANY -o memprof-1.data -- ./cachebench -s 1M\n"
		"# run 2 of 2: L1I Miss Rate, Load Rate (core events, 2 of 2 programmable counters)\n"
		"memprof record -e core::L1I_MISSES,core::INSTRUCTION_RETIRED,core::L1D_CACHE_LD:MESI,core::UNHALTED_CORE_CYCLES -o memprof-2.data -- ./cachebench -s 1M\n");
	mp_buf_fini(&out);
	/* with 4 programmable counters everything fits one run */
	memset(&out, 0, sizeof(out));
	assert_int_equal(mp_ratio_record_cmd(v, names, 4, "core", 4, 3, NULL, &out, &err), 0);
	assert_string_equal(out.data,
		"# run 1 of 1: L1D Miss Rate, L2 Data Miss Rate, L1I Miss Rate, Load Rate (core events, 4 of 4 programmable counters)\n"
		"memprof record -e core::L1D_REPL,core::INSTRUCTION_RETIRED,core::L2_LINES_IN:SELF:ANY,core::L1I_MISSES,core::L1D_CACHE_LD:MESI,core::UNHALTED_CORE_CYCLES -- COMMAND\n");
	mp_buf_fini(&out);
	unsigned p, f;
	mp_ratio_model_counters("icl", &p, &f);
	assert_true(p == 8 && f == 4);
	mp_ratio_model_counters("amd64_fam19h_zen4", &p, &f);
	assert_true(p == 6 && f == 0);
	mp_ratio_set_free(s);
}

/* A model added as rows only (events/pmu_models.tsv: Goldmont, glm): its CPUID names it and
 * its 3 fixed counters take cycles and instructions, so the perf variants of these four
 * ratios (5 events) fit one run of 4 programmable counters; a model the table lacks
 * (netburst) gets 4 programmable and no fixed counters: two runs. */
static void record_cmd__model_added_as_rows__fixed_counters_used(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	const char *ids[4] = { "IPC", "ITLB_MISS_RATE", "L1I_MISS_RATE", "LOAD_RATE" };
	const struct mp_ratio_variant *v[4];
	const char *names[4], *keys[4];
	for (int i = 0; i < 4; i++) {
		const struct mp_ratio_def *d = mp_ratio_set_find(s, ids[i]);
		assert_non_null(d);
		v[i] = NULL;
		for (size_t k = 0; k < d->nv; k++)
			if (!strcmp(d->v[k].model, "perf"))
				v[i] = &d->v[k];
		assert_non_null(v[i]);
		names[i] = d->name;
	}
	assert_int_equal(mp_ratio_models_for("GenuineIntel,6,92,9", keys, 4), 1);
	assert_string_equal(keys[0], "perf");
	assert_string_equal(mp_pmu_model_for_cpuid("GenuineIntel,6,95,1"), "glm");
	unsigned p, f;
	mp_ratio_model_counters("glm", &p, &f);
	assert_true(p == 4 && f == 3);
	struct mp_buf out = { 0 };
	assert_int_equal(mp_ratio_record_cmd(v, names, 4, "glm", 0, 0, NULL, &out, &err), 0);
	assert_non_null(strstr(out.data, "# run 1 of 1: IPC, ITLB Miss Rate, L1I Miss Rate, Load Rate (perf events, 3 of 4 programmable counters)\n"));
	mp_buf_fini(&out);
	memset(&out, 0, sizeof(out));
	assert_int_equal(mp_ratio_record_cmd(v, names, 4, "netburst", 0, 0, NULL, &out, &err), 0);
	assert_non_null(strstr(out.data, "# run 1 of 2: "));
	mp_buf_fini(&out);
	mp_ratio_set_free(s);
}

static void stat_report__exact_counts__ipc_and_scaling(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	struct mp_ratio_counted c[3];
	struct mp_buf out = { 0 };
	memset(c, 0, sizeof(c));
	c[0].attr.type = PERF_TYPE_HARDWARE;
	c[0].attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	c[0].name = "instructions";
	c[0].counts.val = 3000000;
	c[0].counts.ena = c[0].counts.run = 1000;
	c[1].attr.type = PERF_TYPE_HARDWARE;
	c[1].attr.config = PERF_COUNT_HW_CPU_CYCLES;
	c[1].name = "cycles";
	c[1].counts.val = 1000000; /* multiplexed: counted half the time -> 2000000 */
	c[1].counts.ena = 1000;
	c[1].counts.run = 500;
	c[2].attr.type = PERF_TYPE_SOFTWARE;
	c[2].attr.config = PERF_COUNT_SW_TASK_CLOCK;
	c[2].name = "task-clock";
	c[2].counts.val = 5;
	c[2].counts.ena = c[2].counts.run = 1000;
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	assert_int_equal(mp_ratio_stat_report(c, 3, NULL, NULL, &out, &err), 0);
	/* IPC = 3000000 / 2000000 = 1.5 */
	assert_non_null(strstr(out.data, " IPC                                  1.5000  instructions / cycles (perf, exact)\n"));
	assert_null(strstr(out.data, "Branch"));
	mp_buf_fini(&out);
	/* nothing computable */
	memset(&out, 0, sizeof(out));
	assert_int_equal(mp_ratio_stat_report(c + 2, 1, NULL, NULL, &out, &err), 0);
	assert_non_null(strstr(out.data, "no ratio can be computed from these events"));
	mp_buf_fini(&out);
}

static void formula_sum_groups__pure_sums__grouped(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	unsigned g[8];
	mp_formula *f = mp_formula_parse("( a + b + c ) / ( d + e ) - f", "t", 1, 1, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_sum_groups(f, g), 2);
	assert_true(g[0] == 1 && g[1] == 1 && g[2] == 1);
	assert_true(g[3] == 2 && g[4] == 2);
	assert_int_equal(g[5], 0);
	mp_formula_free(f);
	/* an event used twice cannot be folded; a '*' breaks a sum */
	f = mp_formula_parse("( a + b ) / ( a * c + d )", "t", 1, 1, &err);
	assert_non_null(f);
	assert_int_equal(mp_formula_sum_groups(f, g), 0);
	mp_formula_free(f);
}

static void formula_sides__main_division__numerator_and_denominator(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int has_div;
		int side[4];
		int line;
	} t[] = {
		{ "a / b", 1, { 1, -1 }, __LINE__ },
		{ "( a + b + c ) / d", 1, { 1, 1, 1, -1 }, __LINE__ },
		{ "( a + b ) / ( c + d )", 1, { 1, 1, -1, -1 }, __LINE__ },
		{ "100 * a / b", 1, { 1, -1 }, __LINE__ },   /* (100 * a) / b */
		{ "6 * ( a / b )", 1, { 1, -1 }, __LINE__ }, /* through a constant factor */
		{ "( a / b ) * 6", 1, { 1, -1 }, __LINE__ },
		{ "- ( a / b )", 1, { 1, -1 }, __LINE__ },
		{ "( a - b ) / ( a + c )", 1, { 1, 1, -1 }, __LINE__ }, /* a on both sides: numerator */
		{ "a * b / c", 1, { 1, 1, -1 }, __LINE__ },
		{ "a + b", 0, { 1, 1 }, __LINE__ },
		{ "a / b + c / d", 0, { 1, 1, 1, 1 }, __LINE__ },
		{ "a * ( b / c )", 0, { 1, 1, 1 }, __LINE__ }, /* no factor is constant */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct mp_err err = { 0, "" };
		int side[4] = { 9, 9, 9, 9 };
		mp_formula *f = mp_formula_parse(t[i].text, "t", 1, 1, &err);
		if (!f)
			fail_msg("line %d: %s", t[i].line, err.msg);
		int rc = mp_formula_sides(f, side);
		if (rc != t[i].has_div)
			fail_msg("line %d: %s: returned %d", t[i].line, t[i].text, rc);
		for (size_t e = 0; e < mp_formula_nevents(f); e++)
			if (side[e] != t[i].side[e])
				fail_msg("line %d: %s: event %s on side %d, want %d", t[i].line, t[i].text,
					 mp_formula_event(f, e), side[e], t[i].side[e]);
		mp_formula_free(f);
	}
}

static void record_cmd__cachegrind__one_sim_run_without_counter_limit(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	static const char *const ids[] = { "L1D_MISS_RATE", "L1I_MISS_RATE", "L2_DATA_MISS_RATE",
					   "BRANCH_MISS_RATE", "L1D_LOAD_MISS_RATIO" };
	const struct mp_ratio_variant *v[5];
	const char *names[5];
	for (size_t i = 0; i < 5; i++) {
		const struct mp_ratio_def *d = mp_ratio_set_find(s, ids[i]);
		assert_non_null(d);
		v[i] = NULL;
		for (size_t k = 0; k < d->nv; k++)
			if (!strcmp(d->v[k].model, "cachegrind"))
				v[i] = &d->v[k];
		if (!v[i])
			fail_msg("%s has no cachegrind formula", ids[i]);
		names[i] = d->name;
	}
	struct mp_buf out = { 0 };
	/* 12 simulated events, more than any PMU's counters: still one valgrind run */
	assert_int_equal(mp_ratio_record_cmd(v, names, 5, "cachegrind", 0, 0, "./cachebench", &out,
					     &err), 0);
	assert_string_equal(out.data,
		"# run 1 of 1: L1D Miss Rate, L1I Miss Rate, L2 Data Miss Rate, Branch Misprediction Rate, L1D Load Miss Ratio (cachegrind events, SIMULATED by valgrind: no counter limit)\n"
		"memprof record --sim -e D1mr,D1mw,Ir,I1mr,ILmr,DLmr,DLmw,Bcm,Bim,Bc,Bi,Dr -- ./cachebench\n");
	mp_buf_fini(&out);
	mp_ratio_set_free(s);
}

static int sim_resolve(void *ctx, const char *event, const char *model,
		       struct perf_event_attr *attr, struct mp_err *err)
{
	static const char *const q[] = { "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw" };
	(void)ctx;
	assert_string_equal(model, "cachegrind");
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		if (!strcmp(event, q[i])) {
			attr->type = PERF_TYPE_RAW;
			attr->config = 1ULL << i;
			return 0;
		}
	return mp_err_set(err, -ENOENT, "no %s", event);
}

static void ratio_bind__simulated_sum_event__folded(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	struct mp_ratio_event ev[2];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[2] = { "cachegrind", "perf" };
	memset(ev, 0, sizeof(ev));
	/* what memprof record --sim writes for L1D_REPL (D1mr+D1mw) and INST_RETIRED (Ir) */
	ev[0].attr.type = PERF_TYPE_RAW;
	ev[0].attr.config = 0x30;
	ev[0].name = "L1D_REPL";
	ev[0].exact_samples = 1;
	ev[1].attr.type = PERF_TYPE_RAW;
	ev[1].attr.config = 0x1;
	ev[1].name = "INST_RETIRED";
	ev[1].exact_samples = 1;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, 2, ev, 2,
				       sim_resolve, NULL, &b, &err), 0);
	assert_string_equal(mp_formula_src(b.var->f), "( D1mr + D1mw ) / Ir");
	assert_int_equal(b.ev[0], 0);
	assert_int_equal(b.ev[1], MP_RATIO_FOLDED);
	assert_int_equal(b.ev[2], 1);
	/* 3 instructions with 2 + 1 replacements over 12 + 8 instructions: exact, 3/20 */
	struct mp_ratio_cell c[2] = { { 2, 3, 5 }, { 2, 20, 208 } };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 3, &v, &err), 0);
	assert_true(v.defined && v.exact && !v.few);
	assert_true(v.value == 0.15 && v.lo == 0.15 && v.hi == 0.15);
	/* the minimum count applies to the exact counts: 3 replacements are fewer than 10 */
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.few && v.min_samples == 3 && v.value == 0.15);
	/* the counts it rests on: the folded sum once, not twice */
	double den = -1;
	assert_true(mp_ratio_numerator(&b, c, &den) == 3 && den == 20);
	/* D1mr alone recorded: the sum cannot be made up, D1mw is missing */
	ev[0].attr.config = 0x10;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, 1, ev, 2,
				       sim_resolve, NULL, &b, &err), -ENOENT);
	assert_string_equal(b.missing, "D1mw");
	mp_ratio_set_free(s);
}

/* A ratio whose numerator sums events ("( a + b ) / c"): the value rests on the sum, not
 * on its rarest member (issue 30.2: matmul's lines with millions of DLmr and no ILmr were
 * marked few). Events bind by name (a name equal to the run's event's matches). */
static void ratio_eval__sum_of_events__few_from_the_sum(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = mp_ratio_set_new();
	struct mp_ratio_event ev[3];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[1] = { "perf" };
	assert_int_equal(mp_ratio_set_load_text(s, "[SUM]\nname = Sum\nperf = approx ( a + b ) / c\n"
						   "[SUM2]\nname = Sum2\nperf = approx ( a + b ) / ( c + a )\n",
						"t.ratios", &err), 0);
	memset(ev, 0, sizeof(ev));
	ev[0].name = "a";
	ev[1].name = "b";
	ev[2].name = "c";
	ev[0].mean_period = ev[1].mean_period = ev[2].mean_period = 1000;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "SUM"), models, 1, ev, 3, NULL, NULL,
				       &b, &err), 0);
	/* sampled, equal periods: a has 0 samples here, b 1000, c 4000: the sum rests on
	 * 1000 samples, not on a's 0 */
	struct mp_ratio_cell c[3] = { { 0, 0, 0 }, { 1000, 1e6, 0 }, { 4000, 4e6, 0 } };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.defined && !v.exact);
	assert_int_equal(v.min_samples, 1000);
	assert_false(v.few);
	/* a and b with 5 samples each: 10 together, not few at 10; few at 11 */
	c[0] = (struct mp_ratio_cell){ 5, 5000, 0 };
	c[1] = (struct mp_ratio_cell){ 5, 5000, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_int_equal(v.min_samples, 10);
	assert_false(v.few);
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 11, &v, &err), 0);
	assert_true(v.few);
	/* one sample of a at period 1e6 outweighs 100 samples of b at period 10: the sum's
	 * effective samples C^2/Var = (1e6 + 1000)^2 / (1e12 + 100*100) = 1.002: few */
	c[0] = (struct mp_ratio_cell){ 1, 1e6, 0 };
	c[1] = (struct mp_ratio_cell){ 100, 1000, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_int_equal(v.min_samples, 1);
	assert_true(v.few);
	/* an event in two places ("( a + b ) / ( c + a )") is no sum of its own: each event
	 * alone, the fewest wins */
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "SUM2"), models, 1, ev, 3, NULL, NULL,
				       &b, &err), 0);
	c[0] = (struct mp_ratio_cell){ 0, 0, 0 };
	c[1] = (struct mp_ratio_cell){ 1000, 1e6, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_int_equal(v.min_samples, 0);
	assert_true(v.few);

	/* simulated (exact counts per place): 2 million DLmr-like misses and no other member:
	 * 2e6 counted, not 0 */
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "SUM"), models, 1, ev, 3, NULL, NULL,
				       &b, &err), 0);
	ev[0].exact_samples = ev[1].exact_samples = ev[2].exact_samples = 1;
	c[0] = (struct mp_ratio_cell){ 0, 0, 0 };
	c[1] = (struct mp_ratio_cell){ 4, 2e6, 0 };
	c[2] = (struct mp_ratio_cell){ 9, 8e6, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.defined && v.exact && v.value == 0.25);
	assert_true(v.min_samples == 2000000);
	assert_false(v.few);
	/* 3 + 4 counted together: few at 10 */
	c[0] = (struct mp_ratio_cell){ 1, 3, 0 };
	c[1] = (struct mp_ratio_cell){ 1, 4, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.few && v.min_samples == 7);
	mp_ratio_set_free(s);
}

/* Exact simulated counts are never "few samples": a term of a sum that is 0 (D1mw beside
 * 160,115 D1mr) does not mark the value; 0 misses is an exact 0, not a value resting on
 * nothing, so --min-samples 1 marks nothing (main marked both: min 0). */
static void ratio_eval__simulated_zero_term__not_few(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	struct mp_ratio_event ev[3];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[1] = { "cachegrind" };
	memset(ev, 0, sizeof(ev));
	ev[0].attr.type = ev[1].attr.type = ev[2].attr.type = PERF_TYPE_RAW;
	ev[0].attr.config = 1ULL << 4; /* D1mr */
	ev[1].attr.config = 1ULL << 5; /* D1mw */
	ev[2].attr.config = 1ULL << 0; /* Ir */
	ev[0].exact_samples = ev[1].exact_samples = ev[2].exact_samples = 1;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L1D_MISS_RATE"), models, 1, ev, 3,
				       sim_resolve, NULL, &b, &err), 0);
	assert_string_equal(mp_formula_src(b.var->f), "( D1mr + D1mw ) / Ir");
	struct mp_ratio_cell c[3] = { { 5000, 160115, 0 }, { 0, 0, 0 }, { 90000, 2000000, 0 } };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.defined && v.exact && !v.few);
	assert_int_equal(v.min_samples, 160115);
	/* 3 misses in 2,000,000 instructions: a numerator below 10 */
	c[0] = (struct mp_ratio_cell){ 3, 3, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.few && v.min_samples == 3);
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 1, &v, &err), 0);
	assert_false(v.few);
	/* no misses in 5 instructions: the denominator is below 10, not below 1 */
	c[0] = (struct mp_ratio_cell){ 0, 0, 0 };
	c[2] = (struct mp_ratio_cell){ 5, 5, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.defined && v.value == 0 && v.few);
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 1, &v, &err), 0);
	assert_false(v.few);
	/* no misses in 2,000,000 instructions: an exact 0 */
	c[2] = (struct mp_ratio_cell){ 90000, 2000000, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_false(v.few);
	mp_ratio_set_free(s);
}

/* L2 Instruction Miss Rate (threshold > 0) of simulated counts: misses each once on
 * another instruction are the cold misses of the first pass (not a WARNING); misses that
 * repeat at the same instructions are. */
static void ratio_eval__simulated_cold_misses__not_flagged(void **state)
{
	(void)state;
	struct mp_err err = { 0, "" };
	mp_ratio_set *s = builtin();
	struct mp_ratio_event ev[2];
	struct mp_ratio_binding b;
	struct mp_ratio_value v;
	const char *models[1] = { "cachegrind" };
	memset(ev, 0, sizeof(ev));
	ev[0].attr.type = ev[1].attr.type = PERF_TYPE_RAW;
	ev[0].attr.config = 1ULL << 6; /* ILmr */
	ev[1].attr.config = 1ULL << 0; /* Ir */
	ev[0].exact_samples = ev[1].exact_samples = 1;
	assert_int_equal(mp_ratio_bind(mp_ratio_set_find(s, "L2_INSTR_MISS_RATE"), models, 1, ev,
				       2, sim_resolve, NULL, &b, &err), 0);
	assert_string_equal(mp_formula_src(b.var->f), "ILmr / Ir");
	/* uselib under --sim: 1363 misses at 1362 instructions, 1195214 instructions */
	struct mp_ratio_cell c[2] = { { 1362, 1363, 0 }, { 90000, 1195214, 0 } };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.defined && !v.flagged && v.cold);
	assert_true(fabs(v.value - 1363.0 / 1195214.0) < 1e-15);
	/* 1% more misses than missing instructions is still cold; more is flagged */
	c[0] = (struct mp_ratio_cell){ 1000, 1010, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(!v.flagged && v.cold);
	c[0] = (struct mp_ratio_cell){ 1000, 1011, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.flagged && !v.cold);
	/* a loop whose code keeps missing: 50 instructions, 40000 misses */
	c[0] = (struct mp_ratio_cell){ 50, 40000, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.flagged && !v.cold);
	/* sampled (not simulated) misses: the threshold alone, as the article says */
	ev[0].exact_samples = ev[1].exact_samples = 0;
	ev[0].mean_period = ev[1].mean_period = 1;
	c[0] = (struct mp_ratio_cell){ 1362, 1363, 0 };
	assert_int_equal(mp_ratio_eval(&b, ev, c, 0, 10, &v, &err), 0);
	assert_true(v.flagged && !v.cold);
	mp_ratio_set_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formula_eval__table__expected_values),
		cmocka_unit_test(formula_parse__names__split_only_at_spaces_and_parens),
		cmocka_unit_test(formula_parse__bad_input__error_with_column),
		cmocka_unit_test(formula_parse__deep_nesting__refused_not_crash),
		cmocka_unit_test(formula_check__unknown_name__named_with_column),
		cmocka_unit_test(formula_eval__division_by_zero__edom_at_slash),
		cmocka_unit_test(formula_eval__gradient__matches_hand_derivative),
		cmocka_unit_test(set_load_text__good__fields_parsed),
		cmocka_unit_test(set_load_text__bad__error_with_file_line_column),
		cmocka_unit_test(set_load_builtin__shipped__article_table_complete),
		cmocka_unit_test(set_load_dir__user_folder__sorted_and_overrides),
		cmocka_unit_test(ratio_eval__two_overruns__hand_computed_interval),
		cmocka_unit_test(ratio_eval__sum_of_events__few_from_the_sum),
		cmocka_unit_test(ratio_eval__simulated_cold_misses__not_flagged),
		cmocka_unit_test(ratio_bind__event_missing__names_it),
		cmocka_unit_test(ratio_eval__threshold__flagged),
		cmocka_unit_test(models_for__cpuid__libpfm_model_then_perf),
		cmocka_unit_test(attr_same__libpfm_bits_and_hybrid__equal),
		cmocka_unit_test(record_cmd__core__split_into_runs_by_counters),
		cmocka_unit_test(record_cmd__model_added_as_rows__fixed_counters_used),
		cmocka_unit_test(stat_report__exact_counts__ipc_and_scaling),
		cmocka_unit_test(formula_sum_groups__pure_sums__grouped),
		cmocka_unit_test(ratio_bind__simulated_sum_event__folded),
		cmocka_unit_test(ratio_eval__simulated_zero_term__not_few),
		cmocka_unit_test(formula_sides__main_division__numerator_and_denominator),
		cmocka_unit_test(record_cmd__cachegrind__one_sim_run_without_counter_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
