/* test_tui.c - the browser's model driven by keys, on synthetic data: navigation, sorting,
 * filter, search, hot-line jumps, following calls and jumps, the view stack, rendering. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "memprof/callgraph.h"
#include "mp_analyzer.h"
#include "mp_tui.h"
#include "tui_internal.h"
#include "tui_annview.h"
#include "tui_chains.h"
#include "tui_diff.h"
#include "tui_dview.h"
#include "tui_keys.h"
#include "tui_list.h"
#include "tui_text.h"
#include "tui_tview.h"
#include "mp_test_fixture.h"

/* Two events: cpu-clock (period 100000 per sample) and page-faults (period 1). */
static const struct {
	const char *name;
	uint64_t clock, faults;
	uint64_t addr;
} syms[] = {
	{ "main", 10, 40, 0x1000 },
	{ "walk", 900, 2, 0x2000 },
	{ "addnext", 30, 1, 0x3000 },
	{ "inc", 60, 5, 0x4000 },
	{ "build_list", 0, 52, 0x5000 },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))
#define CLOCK_TOTAL 1000 /* samples, more than the symbols hold: some have none */
#define FAULT_TOTAL 100

/* Annotation of walk(): lines 51..55 of cachebench.c, the pointer chase hottest. Line 53
 * holds a backward jump to line 54's load; main's line 20 calls walk. */
static int annotate_cb(void *ctx, const struct tui_sym_ref *sym, tui_annot **out,
		       struct mp_err *err)
{
	int *calls = ctx;
	(*calls)++;
	if (!strcmp(sym->name, "walk") || !strcmp(sym->name, "inc")) {
		tui_annot *a = tui_annot_new(2, sym->name, "cachebench.c");
		static const struct {
			unsigned lineno;
			const char *text;
			uint64_t clock;
		} lines[] = {
			{ 51, "__attribute__((noinline)) struct l *walk(struct l *p, uint64_t steps)", 0 },
			{ 52, "{", 2 },
			{ 53, "\twhile (steps--)", 90 },
			{ 54, "\t\tp = p->n; /* HOT: pointer chase */", 800 },
			{ 55, "\treturn p;", 8 },
		};
		for (size_t i = 0; i < 5; i++) {
			long l = tui_annot_add_line(a, lines[i].lineno, NULL, lines[i].text);
			assert_int_equal(l, (long)i);
			tui_annot_set_line_count(a, (size_t)l, 0, lines[i].clock,
						 lines[i].clock * 100000);
		}
		/* 54 the hottest, 53 above the 5% threshold (9%), 52 and 55 below */
		assert_int_equal(tui_annot_set_line_hot(a, 3, 1), 0);
		assert_int_equal(tui_annot_set_line_hot(a, 2, 1), 0);
		assert_int_equal(tui_annot_set_line_hot(a, 5, 1), -EINVAL);
		long i0 = tui_annot_add_insn(a, 1, 0x2000, "endbr64", TUI_INSN_PLAIN, 0, NULL);
		long i1 = tui_annot_add_insn(a, 2, 0x2004, "test   %rsi,%rsi", TUI_INSN_PLAIN, 0, NULL);
		long i2 = tui_annot_add_insn(a, 3, 0x2010, "mov    (%rdi),%rdi", TUI_INSN_PLAIN, 0, NULL);
		long i3 = tui_annot_add_insn(a, 2, 0x2013, "sub    $0x1,%rsi", TUI_INSN_PLAIN, 0, NULL);
		long i4 = tui_annot_add_insn(a, 2, 0x2017, "jne    2010 <walk+0x10>", TUI_INSN_JUMP,
					     0x2010, NULL);
		long i5 = tui_annot_add_insn(a, 4, 0x2019, "mov    %rdi,%rax", TUI_INSN_PLAIN, 0, NULL);
		long i6 = tui_annot_add_insn(a, 4, 0x201c, "ret", TUI_INSN_RET, 0, NULL);
		assert_true(i0 >= 0 && i1 >= 0 && i2 >= 0 && i3 >= 0 && i4 >= 0 && i5 >= 0 && i6 >= 0);
		tui_annot_set_insn_count(a, (size_t)i1, 0, 10, 1000000);
		tui_annot_set_insn_count(a, (size_t)i2, 0, 800, 80000000);
		tui_annot_set_insn_count(a, (size_t)i3, 0, 50, 5000000);
		tui_annot_set_insn_count(a, (size_t)i4, 0, 30, 3000000);
		tui_annot_set_insn_count(a, (size_t)i6, 0, 8, 800000);
		tui_annot_set_insn_count(a, (size_t)i0, 0, 2, 200000);
		tui_annot_set_line_count(a, 3, 1, 2, 2);
		*out = a;
		return 0;
	}
	if (!strcmp(sym->name, "main")) {
		tui_annot *a = tui_annot_new(2, "main", "cachebench.c");
		long l0 = tui_annot_add_line(a, 19, NULL, "\tstruct l *head = build_list(base, esize, n, 1);");
		long l1 = tui_annot_add_line(a, 20, NULL, "\tp = walk(head, steps);");
		tui_annot_set_line_count(a, (size_t)l1, 0, 10, 1000000);
		tui_annot_add_insn(a, (size_t)l0, 0x1000, "call   5000 <build_list>", TUI_INSN_CALL,
				   0x5000, "build_list");
		tui_annot_add_insn(a, (size_t)l1, 0x1010, "call   2000 <walk>", TUI_INSN_CALL, 0x2000,
				   "walk");
		tui_annot_add_insn(a, (size_t)l1, 0x1015, "call   *%rax", TUI_INSN_CALL, 0, NULL);
		*out = a;
		return 0;
	}
	return mp_err_set(err, -ENOENT, "%s: no debug information", sym->name);
}

/* faults per 1000 clock samples; flagged above 100, few below 5 fault samples. With a
 * non-NULL ctx it also gives the weight (the numerator's count: the faults). */
static int ratio_cb(void *ctx, size_t ratio, const uint64_t *samples, const uint64_t *periods,
		    struct tui_ratio_val *out)
{
	if (ctx)
		out->weight = (double)periods[1];
	assert_int_equal(ratio, 0);
	if (!samples[0])
		return -1;
	out->value = 1000.0 * (double)samples[1] / (double)samples[0];
	out->lo = out->value * 0.9;
	out->hi = out->value * 1.1;
	out->flags = TUI_RV_VALID | (samples[1] < 5 ? TUI_RV_FEW : 0) |
		     (out->value > 100 ? TUI_RV_FLAGGED : 0);
	return 0;
}

struct fx {
	tui_model *m;
	int annot_calls;
};

static tui_model *make_model_sim(int *calls, int cols, int rows, int sim)
{
	tui_data *d = tui_data_new();
	assert_non_null(d);
	assert_int_equal(tui_data_add_info(d, "command", "cachebench -m walk"), 0);
	assert_int_equal(tui_data_add_event(d, "cpu-clock", CLOCK_TOTAL, CLOCK_TOTAL * 100000ull, 0,
					    0, 0), 0);
	assert_int_equal(tui_data_add_event(d, "page-faults", FAULT_TOTAL, FAULT_TOTAL, 3, 1, 100),
			 1);
	for (size_t i = 0; i < NSYMS; i++) {
		long s = tui_data_add_sym(d, syms[i].name, "/usr/bin/cachebench", syms[i].addr);
		assert_int_equal(s, (long)i);
		assert_int_equal(tui_data_set_sym_count(d, (size_t)s, 0, syms[i].clock,
							syms[i].clock * 100000), 0);
		assert_int_equal(tui_data_set_sym_count(d, (size_t)s, 1, syms[i].faults,
							syms[i].faults), 0);
	}
	assert_int_equal(tui_data_set_sym_count(d, NSYMS, 0, 1, 1), -EINVAL);
	assert_int_equal(tui_data_add_event(d, "late", 1, 1, 0, 0, 0), -EINVAL);
	assert_int_equal(tui_data_set_event_sampling(d, 0, 0, 100000), 0);
	assert_int_equal(tui_data_set_event_sampling(d, 2, 0, 1), -EINVAL);
	assert_int_equal(tui_data_add_ratio(d, "faults/kclock", "page faults per 1000 clock samples",
					    100), 0);
	static int weighted;
	tui_data_set_ratio_fn(d, ratio_cb, sim ? &weighted : NULL);
	tui_data_set_annotate_fn(d, annotate_cb, calls);
	assert_null(tui_data_simulated(d));
	if (sim) {
		assert_int_equal(tui_data_set_simulated(d, "callgrind",
			"counts from valgrind's callgrind cache simulation, not measured by a PMU; "
			"caches I1 32768,8,64 D1 32768,8,64 LL 1048576,8,64"), 0);
		assert_string_equal(tui_data_simulated(d), "callgrind");
	}
	struct mp_err err = { 0 };
	tui_model *m = tui_model_new(d, cols, rows, &err);
	assert_non_null(m);
	return m;
}

static tui_model *make_model(int *calls, int cols, int rows)
{
	return make_model_sim(calls, cols, rows, 0);
}

static int setup(void **state)
{
	static struct fx f;
	memset(&f, 0, sizeof(f));
	f.m = make_model(&f.annot_calls, 80, 24);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tui_model_free(f->m);
	return 0;
}

static void keys(tui_model *m, const char *s)
{
	for (; *s; s++)
		tui_model_key(m, *s == '\n' ? TUI_KEY_ENTER : *s);
}

static void test_model_new__symbols__sorted_by_first_event(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	assert_int_equal(tui_model_depth(m), 1);
	assert_int_equal(tui_model_nrows(m), NSYMS);
	assert_string_equal(tui_model_symbol(m), "walk");
	/* walk: 900 of 1000 samples = 90.00%, faults 2 of 100 = 2.00% */
	const char *r0 = tui_model_row_text(m, 0);
	assert_non_null(strstr(r0, "90.00%"));
	assert_non_null(strstr(r0, "2.00%"));
	assert_non_null(strstr(r0, "[#########"));
	assert_int_equal(r0[0], '>');
	assert_non_null(strstr(tui_model_row_text(m, 1), "inc"));
	assert_non_null(strstr(tui_model_row_text(m, 1), "6.00%"));
	assert_non_null(strstr(tui_model_row_text(m, 2), "addnext"));
	assert_non_null(strstr(tui_model_row_text(m, 3), "main"));
	/* build_list has no clock samples: last, and its clock cell is blank */
	const char *r4 = tui_model_row_text(m, 4);
	assert_non_null(strstr(r4, "build_list"));
	assert_non_null(strstr(r4, "52.00%"));
	assert_null(strstr(r4, "0.00%"));
	assert_null(tui_model_row_text(m, 5));
	assert_int_equal(f->annot_calls, 0); /* nothing annotated before it is asked for */
}

static void test_model_key__navigation__cursor_and_scroll_clamped(void **state)
{
	int calls = 0;
	(void)state;
	tui_model *m = make_model(&calls, 80, 6); /* 3 body rows */
	assert_int_equal(tui_model_key(m, TUI_KEY_UP), TUI_HANDLED);
	assert_int_equal(tui_model_cursor(m), 0);
	assert_int_equal(tui_model_key(m, TUI_KEY_DOWN), TUI_HANDLED | TUI_REDRAW);
	tui_model_key(m, 'j');
	assert_int_equal(tui_model_cursor(m), 2);
	assert_int_equal(tui_model_top(m), 0);
	tui_model_key(m, 'j');
	assert_int_equal(tui_model_cursor(m), 3);
	assert_int_equal(tui_model_top(m), 1);
	tui_model_key(m, 'k');
	tui_model_key(m, 'k');
	tui_model_key(m, 'k');
	assert_int_equal(tui_model_cursor(m), 0);
	assert_int_equal(tui_model_top(m), 0);
	tui_model_key(m, TUI_KEY_END);
	assert_int_equal(tui_model_cursor(m), NSYMS - 1);
	assert_int_equal(tui_model_top(m), NSYMS - 3);
	assert_string_equal(tui_model_symbol(m), "build_list");
	tui_model_key(m, TUI_KEY_HOME);
	assert_int_equal(tui_model_cursor(m), 0);
	tui_model_key(m, TUI_KEY_PGDN);
	assert_int_equal(tui_model_cursor(m), 3);
	tui_model_key(m, TUI_KEY_PGDN);
	assert_int_equal(tui_model_cursor(m), NSYMS - 1);
	tui_model_key(m, TUI_KEY_PGUP);
	assert_int_equal(tui_model_cursor(m), 1);
	/* the cursor row is the one marked and selected on screen */
	const struct tui_screen *s = tui_model_render(m);
	int sel = -1;
	for (int r = 0; r < s->rows; r++)
		if (s->row[r].selected)
			sel = r;
	assert_int_equal(sel, 2 + (int)(tui_model_cursor(m) - tui_model_top(m)));
	assert_int_equal(s->row[sel].text[0], '>');
	assert_non_null(strstr(s->row[sel].text, "inc"));
	tui_model_free(m);
}

static void test_model_key__sort__by_event_ratio_and_name(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	/* x: sort and colour by page-faults */
	assert_true(tui_model_key(m, 'x') & TUI_RESCAN);
	assert_int_equal(tui_model_color_event(m), 1);
	assert_int_equal(tui_model_sort_col(m), 1);
	assert_string_equal(tui_model_symbol(m), "walk"); /* the cursor stays on its symbol */
	tui_model_key(m, TUI_KEY_HOME);
	assert_string_equal(tui_model_symbol(m), "build_list");
	assert_non_null(strstr(tui_model_row_text(m, 1), "main"));
	assert_non_null(strstr(tui_model_row_text(m, 2), "inc"));
	assert_non_null(strstr(tui_model_row_text(m, 3), "walk"));
	assert_non_null(strstr(tui_model_row_text(m, 4), "addnext"));
	/* x again: the ratio column (faults per 1000 clock samples), highest first; build_list
	 * has no clock samples so no ratio: last */
	tui_model_key(m, 'x');
	assert_int_equal(tui_model_sort_col(m), 2);
	tui_model_key(m, TUI_KEY_HOME);
	assert_string_equal(tui_model_symbol(m), "main"); /* 4000 */
	assert_non_null(strstr(tui_model_row_text(m, 0), "4e+03+-4e+02!"));
	assert_non_null(strstr(tui_model_row_text(m, 1), "inc"));   /* 83.3 */
	assert_non_null(strstr(tui_model_row_text(m, 1), "83.3+-8.3 "));
	assert_non_null(strstr(tui_model_row_text(m, 2), "addnext")); /* 33.3, few */
	assert_non_null(strstr(tui_model_row_text(m, 2), "~"));
	assert_non_null(strstr(tui_model_row_text(m, 3), "walk"));  /* 2.2 */
	assert_non_null(strstr(tui_model_row_text(m, 4), "build_list"));
	/* o: symbol name, then dso, then back to the first event */
	tui_model_key(m, 'o');
	assert_int_equal(tui_model_sort_col(m), TUI_COL_SYMBOL);
	tui_model_key(m, TUI_KEY_HOME);
	assert_string_equal(tui_model_symbol(m), "addnext");
	assert_non_null(strstr(tui_model_row_text(m, 4), "walk"));
	tui_model_key(m, 'o');
	assert_int_equal(tui_model_sort_col(m), TUI_COL_DSO);
	tui_model_key(m, 'o');
	assert_int_equal(tui_model_sort_col(m), 0);
	tui_model_key(m, TUI_KEY_HOME);
	assert_string_equal(tui_model_symbol(m), "walk");
	tui_model_key(m, 'O');
	assert_int_equal(tui_model_sort_col(m), TUI_COL_DSO);
	/* X goes back: from the ratio to page-faults; TAB as in perf switches events */
	tui_model_key(m, 'X');
	assert_int_equal(tui_model_color_event(m), 1);
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_color_event(m), 2);
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_color_event(m), 0);
	assert_int_equal(tui_model_sort_col(m), 0);
}

static void test_model_key__filter__narrows_and_clears(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, '/');
	keys(m, "IN");
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[s->rows - 1].text, "Filter: IN_"));
	tui_model_key(m, TUI_KEY_ENTER);
	/* case-insensitive substring: inc, main (sorted by cpu-clock) */
	assert_int_equal(tui_model_nrows(m), 2);
	assert_string_equal(tui_model_symbol(m), "inc");
	assert_non_null(strstr(tui_model_row_text(m, 1), "main"));
	assert_non_null(strstr(tui_model_message(m), "2 of 5"));
	/* edit the filter: it starts from the current text */
	tui_model_key(m, '/');
	tui_model_key(m, TUI_KEY_BACKSPACE);
	tui_model_key(m, TUI_KEY_BACKSPACE);
	keys(m, "zzz\n");
	assert_int_equal(tui_model_nrows(m), 0);
	assert_null(tui_model_symbol(m));
	assert_int_equal(tui_model_key(m, TUI_KEY_ENTER), TUI_HANDLED); /* nothing to open */
	assert_int_equal(tui_model_depth(m), 1);
	/* a cancelled prompt leaves the filter alone */
	tui_model_key(m, '/');
	keys(m, "a");
	tui_model_key(m, TUI_KEY_ESC);
	assert_int_equal(tui_model_nrows(m), 0);
	/* ESC zooms out of the filter, and does not quit */
	assert_false(tui_model_key(m, TUI_KEY_ESC) & TUI_QUIT);
	assert_int_equal(tui_model_nrows(m), NSYMS);
	assert_false(tui_model_key(m, TUI_KEY_ESC) & TUI_QUIT);
	assert_string_equal(tui_model_symbol(m), "walk");
}

static void test_model_key__enter__annotates_at_hottest_line(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	unsigned r = tui_model_key(m, TUI_KEY_ENTER);
	assert_true(r & TUI_RESCAN);
	assert_int_equal(f->annot_calls, 1);
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
	assert_int_equal(tui_model_depth(m), 2);
	assert_string_equal(tui_model_symbol(m), "walk");
	assert_int_equal(tui_model_nrows(m), 5); /* source lines only */
	assert_int_equal(tui_model_cur_line(m), 54);
	const char *row = tui_model_row_text(m, tui_model_cursor(m));
	assert_int_equal(row[0], '>');
	/* 800 of 900 samples of the function: 88.89% */
	assert_non_null(strstr(row, "88.89%"));
	assert_non_null(strstr(row, " *   54  ")); /* marked hot */
	assert_non_null(strstr(row, "p = p->n; /* HOT: pointer chase */"));
	assert_non_null(strstr(tui_model_message(m), "hot 1/2: line 54"));
	assert_non_null(strstr(tui_model_row_text(m, tui_model_cursor(m) - 1), " *   53  "));
	/* the title names the function and file */
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, "Annotate walk"));
	assert_non_null(strstr(s->row[0].text, "cachebench.c"));
	/* the hot line is coloured hot */
	int sel = 2 + (int)(tui_model_cursor(m) - tui_model_top(m));
	assert_true(s->row[sel].selected);
	assert_true(s->row[sel].nspans > 0);
	assert_int_equal(s->row[sel].span[0].heat, TUI_HEAT_MAX);
}

static void test_model_key__tab__cycles_hot_lines(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER);
	/* hot order: 54 (800), 53 (90); 55 (8) and 52 (2) are below the hot threshold (TAB
	 * skips them, issue 28.7), 51 has no samples */
	static const unsigned order[] = { 53, 54, 53, 54, 53 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(tui_model_key(m, TUI_KEY_TAB), TUI_HANDLED | TUI_REDRAW);
		assert_int_equal(tui_model_cur_line(m), order[i]);
	}
	tui_model_key(m, TUI_KEY_BTAB);
	assert_int_equal(tui_model_cur_line(m), 54);
	tui_model_key(m, TUI_KEY_BTAB);
	assert_int_equal(tui_model_cur_line(m), 53);
	assert_non_null(strstr(tui_model_message(m), "hot 2/2: line 53"));
	tui_model_key(m, 'H');
	assert_int_equal(tui_model_cur_line(m), 54);
	tui_model_key(m, TUI_KEY_HOME);
	assert_int_equal(tui_model_cur_line(m), 51);
	/* moving clears the hot message; H always goes back to the hottest */
	tui_model_key(m, 'j');
	assert_string_equal(tui_model_message(m), "");
	tui_model_key(m, 'H');
	assert_int_equal(tui_model_cur_line(m), 54);
}

static void test_model_key__asm__on_demand_and_source_toggle(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER);
	/* Enter on line 54 shows its one instruction under it */
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_nrows(m), 6);
	assert_int_equal(tui_model_cur_line(m), 54);
	const char *insn = tui_model_row_text(m, tui_model_cursor(m) + 1);
	assert_non_null(strstr(insn, "2010:  mov    (%rdi),%rdi"));
	/* 800 of 900 instruction samples */
	assert_non_null(strstr(insn, "88.89%"));
	tui_model_key(m, TUI_KEY_ENTER); /* and hides it again */
	assert_int_equal(tui_model_nrows(m), 5);
	/* a: all assembly */
	tui_model_key(m, 'a');
	assert_int_equal(tui_model_nrows(m), 12);
	assert_int_equal(tui_model_cur_line(m), 54);
	tui_model_key(m, 'a');
	assert_int_equal(tui_model_nrows(m), 5);
	/* s: assembly only, hot instructions hottest first */
	tui_model_key(m, 's');
	assert_int_equal(tui_model_nrows(m), 7);
	tui_model_key(m, 'H');
	assert_int_equal(tui_model_cur_addr(m), 0x2010);
	assert_int_equal(tui_model_cur_line(m), 54);
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_cur_addr(m), 0x2013);
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_cur_addr(m), 0x2017);
	/* t: samples, then period */
	tui_model_key(m, 't');
	assert_int_equal(tui_model_show(m), TUI_SHOW_SAMPLES);
	assert_non_null(strstr(tui_model_row_text(m, tui_model_cursor(m)), " 30 "));
	tui_model_key(m, 't');
	assert_non_null(strstr(tui_model_row_text(m, tui_model_cursor(m)), "3000000"));
	tui_model_key(m, 't');
	assert_int_equal(tui_model_show(m), TUI_SHOW_PERCENT_ALL);
	tui_model_key(m, 't');
	assert_int_equal(tui_model_show(m), TUI_SHOW_PERCENT);
	tui_model_key(m, 's');
	assert_int_equal(tui_model_nrows(m), 5);
	assert_int_equal(tui_model_cur_line(m), 53); /* the jump's line */
}

static void test_model_key__enter_on_jump__goes_to_target(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER);
	tui_model_key(m, TUI_KEY_TAB); /* line 53 */
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_nrows(m), 8);
	tui_model_key(m, 'j');
	tui_model_key(m, 'j');
	tui_model_key(m, 'j');
	assert_int_equal(tui_model_cur_addr(m), 0x2017);
	tui_model_key(m, TUI_KEY_ENTER);
	/* the target, 0x2010, is under line 54, which opens */
	assert_int_equal(tui_model_cur_addr(m), 0x2010);
	assert_int_equal(tui_model_cur_line(m), 54);
	assert_int_equal(tui_model_nrows(m), 9);
	assert_int_equal(tui_model_depth(m), 2);
	/* Enter on a plain instruction does nothing but say so */
	tui_model_key(m, TUI_KEY_ENTER);
	assert_string_equal(tui_model_message(m), "not a call or a jump");
	assert_int_equal(tui_model_depth(m), 2);
}

/* The row holding text, or NULL. */
static const char *row_with(tui_model *m, const char *text)
{
	for (size_t i = 0;; i++) {
		const char *r = tui_model_row_text(m, i);
		if (!r || strstr(r, text))
			return r;
	}
}

/* ratio r of the many-events model: r + 1 per symbol, its events' counts as the weight */
static int many_ratio_cb(void *ctx, size_t ratio, const uint64_t *samples, const uint64_t *periods,
			 struct tui_ratio_val *out)
{
	(void)ctx, (void)samples;
	out->value = (double)ratio + 1;
	out->lo = out->hi = out->value;
	out->flags = TUI_RV_VALID;
	out->weight = (double)periods[ratio];
	return 0;
}

/* Issue 19: 8 events and 5 ratios at 80x24. A ratio that sorts shows its numerator's and
 * denominator's events first; the ratio list keeps the names in view, its sorting ratio
 * first, [ ] scroll the other ratios, and x goes to the next ratio from the one that sorts. */
static void test_model_render__many_events_and_ratios__what_matters_fits(void **state)
{
	(void)state;
	tui_data *d = tui_data_new();
	assert_non_null(d);
	static const char *ev[] = { "ev0", "ev1", "ev2", "ev3", "ev4", "ev5", "ev6", "ev7" };
	for (size_t e = 0; e < 8; e++)
		assert_int_equal(tui_data_add_event(d, ev[e], 100, 1000, 0, 0, 0), (int)e);
	assert_int_equal(tui_data_add_sym(d, "a_long_symbol_name_to_see", "/bin/prog", 0x1000), 0);
	for (size_t e = 0; e < 8; e++)
		assert_int_equal(tui_data_set_sym_count(d, 0, e, 10, 100), 0);
	static const char *rn[] = { "ratio0", "ratio1", "ratio2", "ratio3", "ratio4" };
	for (size_t r = 0; r < 5; r++)
		assert_int_equal(tui_data_add_ratio(d, rn[r], "", NAN), (int)r);
	const size_t r2[] = { 6, 3, 6 };
	assert_int_equal(tui_data_set_ratio_events(d, 2, r2, 3), 0);
	const size_t bad[] = { 8 };
	assert_int_equal(tui_data_set_ratio_events(d, 2, bad, 1), -EINVAL);
	assert_int_equal(tui_data_set_ratio_events(d, 5, r2, 1), -EINVAL);
	assert_int_equal(tui_data_set_ratio_events(d, 2, r2, 3), 0);
	tui_data_set_ratio_fn(d, many_ratio_cb, NULL);
	struct mp_err err = { 0 };
	tui_model *m = tui_model_new(d, 80, 24, &err);
	assert_non_null(m);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[2].text, "a_long_symbol_name_to_see"));
	/* X from the first event: ratio4 (no events given: the first event first), ratio3,
	 * ratio2: ev6 and ev3 first, then the first others that fit */
	tui_model_key(m, 'X');
	s = tui_model_render(m);
	assert_non_null(strstr(s->row[1].text, "ratio4"));
	assert_true(strstr(s->row[1].text, "ev0") && strstr(s->row[1].text, "ev0") < strstr(s->row[1].text, "ev1"));
	tui_model_key(m, 'X');
	tui_model_key(m, 'X');
	s = tui_model_render(m);
	const char *h = s->row[1].text;
	assert_non_null(strstr(h, "ratio2"));
	assert_non_null(strstr(h, "ev6"));
	assert_true(strstr(h, "ev6") < strstr(h, "ev3") && strstr(h, "ev3") < strstr(h, "ratio2"));
	assert_true(!strstr(h, "ev0") || strstr(h, "ev3") < strstr(h, "ev0"));
	assert_non_null(strstr(s->row[2].text, "a_long_symbol_name_to_see"));
	/* the ratio list: opened by the first ratio; names in view at 80 columns */
	tui_model_key(m, 'x'); /* ratio3 */
	tui_model_key(m, 'x'); /* ratio4 */
	tui_model_key(m, 'x'); /* ev0 */
	tui_model_key(m, 'R');
	s = tui_model_render(m);
	h = s->row[1].text;
	assert_true(strstr(h, "ratio0") && strstr(h, "ratio0") < strstr(h, "ratio1"));
	assert_true(strstr(h, "ratio1") < strstr(h, "symbol"));
	assert_null(strstr(h, "ratio2"));
	assert_non_null(strstr(s->row[2].text, "a_long_symbol_name_to_see"));
	/* ] scrolls the others, the sorting ratio stays first */
	tui_model_key(m, ']');
	tui_model_key(m, ']');
	s = tui_model_render(m);
	h = s->row[1].text;
	assert_non_null(strstr(h, "ratio0"));
	assert_non_null(strstr(h, "ratio3"));
	assert_null(strstr(h, "ratio1"));
	assert_string_equal(tui_model_message(m), "ratio columns 3-3 of 4 ([ ] scroll)");
	for (int i = 0; i < 5; i++)
		tui_model_key(m, ']');
	assert_string_equal(tui_model_message(m), "ratio columns 4-4 of 4 ([ ] scroll)");
	tui_model_key(m, '[');
	/* x: the ratio after the one that sorts, never the same one again */
	tui_model_key(m, 'x');
	s = tui_model_render(m);
	h = s->row[1].text;
	assert_true(strstr(h, "ratio1") && strstr(h, "ratio1") < strstr(h, "symbol"));
	assert_true(!strstr(h, "ratio0") || strstr(h, "ratio1") < strstr(h, "ratio0"));
	assert_int_equal(tui_model_sort_col(m), 8 + 1);
	tui_model_key(m, 'X');
	assert_int_equal(tui_model_sort_col(m), 8 + 0);
	tui_model_key(m, 'X');
	assert_int_equal(tui_model_sort_col(m), 8 + 4);
	tui_model_free(m);
}

static void test_model_key__braces__scroll_long_lines(void **state)
{
	(void)state;
	int calls = 0;
	tui_model *m = make_model(&calls, 70, 12);
	keys(m, "jjj"); /* main */
	tui_model_key(m, TUI_KEY_ENTER);
	tui_model_key(m, 'a');
	/* 70 columns: line 19's text (51 columns with its tab) is cut */
	const char *r = row_with(m, "struct l *head");
	assert_non_null(r);
	assert_null(strstr(r, "n, 1);"));
	tui_model_key(m, '{');
	assert_string_equal(tui_model_message(m), "at the start of the lines");
	/* } moves 8 columns: "    struct l" loses "    stru" */
	tui_model_key(m, '}');
	assert_string_equal(tui_model_message(m), "text from column 9 of 51");
	assert_null(row_with(m, "struct l"));
	r = row_with(m, "ct l *head = build_list(");
	assert_non_null(r);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[1].text, "line  source (from column 9: { })"));
	/* the assembly too: "call   2000 <walk>" from its 9th column */
	assert_non_null(row_with(m, "1010:  000 <walk>"));
	tui_model_key(m, '}');
	tui_model_key(m, '}');
	r = row_with(m, "head = build_list");
	assert_null(r);
	assert_non_null(row_with(m, " ld_list(base, esize, n, 1);")); /* from column 25 */
	/* up to the end of the longest line, no further */
	for (int i = 0; i < 10; i++)
		tui_model_key(m, '}');
	assert_string_equal(tui_model_message(m), "at the end of the longest line (51 columns)");
	for (int i = 0; i < 10; i++)
		tui_model_key(m, '{');
	assert_non_null(row_with(m, "    struct l *head"));
	s = tui_model_render(m);
	assert_null(strstr(s->row[1].text, "from column"));
	tui_model_free(m);
}

static void test_model_key__enter_on_call__opens_callee(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	keys(m, "jjj"); /* main */
	assert_string_equal(tui_model_symbol(m), "main");
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_cur_line(m), 20);
	tui_model_key(m, 'a');
	assert_int_equal(tui_model_nrows(m), 5);
	tui_model_key(m, 'j');
	assert_int_equal(tui_model_cur_addr(m), 0x1010);
	tui_model_key(m, TUI_KEY_RIGHT);
	assert_int_equal(tui_model_depth(m), 3);
	assert_string_equal(tui_model_symbol(m), "walk");
	assert_int_equal(tui_model_cur_line(m), 54);
	/* back to main where we were */
	tui_model_key(m, TUI_KEY_LEFT);
	assert_int_equal(tui_model_depth(m), 2);
	assert_string_equal(tui_model_symbol(m), "main");
	assert_int_equal(tui_model_cur_addr(m), 0x1010);
	/* an indirect call has no known callee */
	tui_model_key(m, 'j');
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_depth(m), 2);
	assert_non_null(strstr(tui_model_message(m), "indirect call"));
	/* search finds a call by its callee's name */
	tui_model_key(m, '?');
	keys(m, "walk\n");
	assert_int_equal(tui_model_cur_addr(m), 0x1010);
	tui_model_key(m, 'j');
	/* a callee without annotation: the error is shown, the view stays */
	keys(m, "kkk");
	assert_int_equal(tui_model_cur_addr(m), 0x1000);
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_depth(m), 2);
	assert_string_equal(tui_model_message(m), "build_list: no debug information");
}

static void test_model_key__search__forward_backward_next(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER); /* at 54 */
	tui_model_key(m, '/');
	keys(m, "p");
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[s->rows - 1].text, "Search: p_"));
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_cur_line(m), 55); /* "return p;" */
	tui_model_key(m, 'n');
	assert_int_equal(tui_model_cur_line(m), 51); /* wraps to the signature (struct l *p) */
	assert_non_null(strstr(tui_model_message(m), "wrapped"));
	tui_model_key(m, 'n');
	assert_int_equal(tui_model_cur_line(m), 53); /* "steps" */
	tui_model_key(m, 'n');
	assert_int_equal(tui_model_cur_line(m), 54);
	/* ? searches backwards, and n then keeps going backwards */
	tui_model_key(m, '?');
	keys(m, "steps\n");
	assert_int_equal(tui_model_cur_line(m), 53);
	tui_model_key(m, 'n');
	assert_int_equal(tui_model_cur_line(m), 51);
	tui_model_key(m, '/');
	keys(m, "nothere\n");
	assert_int_equal(tui_model_cur_line(m), 51);
	assert_string_equal(tui_model_message(m), "not found: 'nothere'");
	/* in the assembly too */
	tui_model_key(m, 's');
	tui_model_key(m, '/');
	keys(m, "ret\n");
	assert_int_equal(tui_model_cur_addr(m), 0x201c);
	/* ? in annotate is search, not help */
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
}

static void test_model_key__prev_next_symbol__follow_list_order(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER);
	tui_model_key(m, '<');
	assert_string_equal(tui_model_symbol(m), "walk");
	assert_string_equal(tui_model_message(m), "first symbol of the list");
	tui_model_key(m, '>');
	assert_int_equal(tui_model_depth(m), 2);
	assert_string_equal(tui_model_symbol(m), "inc");
	assert_int_equal(tui_model_cur_line(m), 54);
	/* addnext has no annotation: the error shows and inc stays */
	tui_model_key(m, '>');
	assert_string_equal(tui_model_symbol(m), "inc");
	assert_string_equal(tui_model_message(m), "addnext: no debug information");
	tui_model_key(m, '<');
	assert_string_equal(tui_model_symbol(m), "walk");
	/* the list's cursor followed */
	tui_model_key(m, 'q');
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	assert_string_equal(tui_model_symbol(m), "walk");
}

static void test_model_key__view_stack__push_pop_quit(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, 'i');
	assert_int_equal(tui_model_view(m), TUI_VIEW_SUMMARY);
	int found_cmd = 0, found_ev = 0, found_ratio = 0, found_clock = 0;
	for (size_t i = 0; i < tui_model_nrows(m); i++) {
		const char *t = tui_model_row_text(m, i);
		found_cmd |= strstr(t, "cachebench -m walk") != NULL;
		found_ev |= strstr(t, "page-faults") && strstr(t, " 100 ") && strstr(t, " 3 ");
		found_clock |= strstr(t, "cpu-clock") && strstr(t, "-c 100000") &&
			       strstr(t, " 1000 ") && strstr(t, " 100000000 ");
		/* program level: 100 faults per 1000 clock samples: not past 100 */
		found_ratio |= strstr(t, "faults/kclock") && strstr(t, "100+-10 ");
	}
	assert_true(found_cmd);
	assert_true(found_ev);
	assert_true(found_clock);
	assert_true(found_ratio);
	tui_model_key(m, 'h');
	assert_int_equal(tui_model_view(m), TUI_VIEW_HELP);
	assert_int_equal(tui_model_depth(m), 3);
	assert_non_null(strstr(tui_model_row_text(m, 0), "Everywhere"));
	tui_model_key(m, 'h');
	assert_int_equal(tui_model_depth(m), 2);
	assert_int_equal(tui_model_key(m, 'q'), TUI_HANDLED | TUI_RESCAN);
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	/* ? in a list is help */
	tui_model_key(m, '?');
	assert_int_equal(tui_model_view(m), TUI_VIEW_HELP);
	tui_model_key(m, TUI_KEY_ESC);
	/* R: the per-symbol ratios, Enter annotates from there too */
	tui_model_key(m, 'R');
	assert_int_equal(tui_model_view(m), TUI_VIEW_RATIOS);
	assert_string_equal(tui_model_symbol(m), "main");
	assert_non_null(strstr(tui_model_row_text(m, 0), "4e+03+-4e+02!"));
	/* x in the ratio list stays on ratios (issue 19: it went to an event) */
	for (int k = 0; k < 4; k++) {
		tui_model_key(m, 'x');
		assert_true(tui_model_color_event(m) >= 2);
	}
	tui_model_key(m, 'X');
	assert_true(tui_model_color_event(m) >= 2);
	keys(m, "j\n");
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
	assert_string_equal(tui_model_symbol(m), "inc");
	assert_int_equal(tui_model_depth(m), 3);
	tui_model_key(m, 'q');
	tui_model_key(m, 'q');
	assert_int_equal(tui_model_depth(m), 1);
	assert_int_equal(tui_model_key(m, 'q'), TUI_HANDLED | TUI_QUIT);
	assert_int_equal(tui_model_key(m, TUI_KEY_CTRL_C), TUI_HANDLED | TUI_QUIT);
	assert_int_equal(tui_model_key(m, 'Z'), 0);
}

static void test_model_key__ratio_metric__colours_and_ranks_lines(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	tui_model_key(m, TUI_KEY_ENTER);
	tui_model_key(m, 'x');
	tui_model_key(m, 'x');
	assert_int_equal(tui_model_color_event(m), 2);
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[1].text, "faults/kclock"));
	/* line 54: 2 faults per 800 clock samples = 2.5 per 1000, few samples; lines 52, 53
	 * and 55 have clock samples and no faults: 0; line 51 has no clock samples: none */
	tui_model_key(m, 'H');
	assert_int_equal(tui_model_cur_line(m), 54);
	const char *row = tui_model_row_text(m, tui_model_cursor(m));
	assert_non_null(strstr(row, "2.5+-0.25~"));
	static const unsigned order[] = { 52, 53, 55, 54 };
	for (size_t i = 0; i < 4; i++) {
		tui_model_key(m, TUI_KEY_TAB);
		assert_int_equal(tui_model_cur_line(m), order[i]);
	}
	assert_non_null(strstr(tui_model_message(m), "hot 1/4: line 54"));
	tui_model_key(m, TUI_KEY_HOME);
	assert_non_null(strstr(tui_model_row_text(m, 0), "            -  "));
	/* the hot line's ratio cell is coloured as a few-samples value, not as flagged */
	tui_model_key(m, 'H');
	s = tui_model_render(m);
	int sel = 2 + (int)(tui_model_cursor(m) - tui_model_top(m));
	assert_true(s->row[sel].nspans >= 3);
	assert_int_equal(s->row[sel].span[2].heat, 1);
	/* and back to the event: the first event ranks again */
	tui_model_key(m, 'x');
	tui_model_key(m, 'H');
	assert_int_equal(tui_model_cur_line(m), 54);
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_cur_line(m), 53);
}

static void test_model_render__sizes__every_row_full_width(void **state)
{
	struct fx *f = *state;
	tui_model *m = f->m;
	static const int sizes[][2] = { { 80, 24 }, { 40, 10 }, { 200, 60 }, { 5, 2 } };
	for (size_t k = 0; k < 4; k++) {
		tui_model_resize(m, sizes[k][0], sizes[k][1]);
		for (int v = 0; v < 3; v++) {
			const struct tui_screen *s = tui_model_render(m);
			int cols = sizes[k][0] < 20 ? 20 : sizes[k][0];
			int rows = sizes[k][1] < 5 ? 5 : sizes[k][1];
			assert_int_equal(s->cols, cols);
			assert_int_equal(s->rows, rows);
			for (int r = 0; r < s->rows; r++)
				assert_int_equal(strlen(s->row[r].text), (size_t)cols);
			assert_int_equal(s->row[0].kind, TUI_ROW_TITLE);
			assert_int_equal(s->row[rows - 1].kind, TUI_ROW_STATUS);
			tui_model_key(m, v == 0 ? TUI_KEY_ENTER : 'a');
		}
		while (tui_model_depth(m) > 1)
			tui_model_key(m, 'q');
	}
	/* a narrow title loses whole words, never part of a number (issue 19) */
	tui_model_resize(m, 200, 24);
	char full[256];
	snprintf(full, sizeof(full), "%s", tui_model_render(m)->row[0].text);
	for (int cols = 20; cols < 80; cols++) {
		tui_model_resize(m, cols, 24);
		char t[256];
		snprintf(t, sizeof(t), "%s", tui_model_render(m)->row[0].text);
		size_t n = strlen(t);
		while (n && t[n - 1] == ' ')
			t[--n] = 0;
		assert_true(n <= strlen(full) && !strncmp(t, full, n));
		assert_true(full[n] == 0 || full[n] == ' ' || full[n] == '|');
	}
	tui_model_resize(m, 80, 24);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, "1000 samples of 'cpu-clock'"));
	assert_non_null(strstr(s->row[1].text, "cpu-clock"));
	assert_non_null(strstr(s->row[1].text, "page-fau"));
	assert_non_null(strstr(s->row[2].text, "walk"));
	assert_non_null(strstr(s->row[23].text, "h help"));
}

/* A simulated recording: every title says so, the summary starts with the note, and the
 * ratio cells carry neither an interval nor a few-sample mark (the counts are exact),
 * while the same numbers measured keep both. */
static void test_model_render__simulated__labelled_and_exact(void **state)
{
	int calls = 0;
	(void)state;
	tui_model *m = make_model_sim(&calls, 100, 30, 1);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, " SIMULATED (callgrind) | Symbols: 'cpu-clock' count 100000000 | sort: cpu-clock"));
	tui_model_key(m, 'i');
	assert_int_equal(tui_model_view(m), TUI_VIEW_SUMMARY);
	s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, "SIMULATED (callgrind)"));
	assert_non_null(strstr(tui_model_row_text(m, 0), "SIMULATED (callgrind):"));
	assert_non_null(strstr(tui_model_row_text(m, 1), "not measured by a PMU"));
	assert_non_null(strstr(tui_model_row_text(m, 2), "caches I1 32768,8,64 D1 32768,8,64 LL 1048576,8,64"));
	int found_ratio = 0;
	for (size_t i = 0; i < tui_model_nrows(m); i++) {
		const char *t = tui_model_row_text(m, i);
		assert_null(strstr(t, "few samples"));
		found_ratio |= strstr(t, "faults/kclock") && strstr(t, " 100 ") && !strstr(t, "+-");
	}
	assert_true(found_ratio);
	tui_model_key(m, 'q');
	/* R: walk's 2 faults in 900 clock samples, "few" for the callback, is exact here */
	tui_model_key(m, 'R');
	assert_int_equal(tui_model_view(m), TUI_VIEW_RATIOS);
	s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, " SIMULATED (callgrind) | Ratios: "));
	int found_walk = 0;
	for (size_t i = 0; i < tui_model_nrows(m); i++) {
		const char *t = tui_model_row_text(m, i);
		assert_null(strchr(t, '~'));
		assert_null(strstr(t, "+-"));
		found_walk |= strstr(t, "2.222 ") && strstr(t, "walk");
	}
	assert_true(found_walk);
	/* with weights the ratio sorts by its numerator's count (faults: 40, 5, 2, 1), not by
	 * value (addnext's 33 per 1000 is above walk's 2.2): the symbols that matter first */
	static const char *const by_weight[] = { "main", "inc", "walk", "addnext", "build_list" };
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(tui_model_symbol(m), by_weight[i]);
		tui_model_key(m, TUI_KEY_DOWN);
	}
	tui_model_key(m, TUI_KEY_HOME);
	/* annotate: line 54, 2 faults per 800 clock samples */
	tui_model_key(m, 'q');
	tui_model_key(m, TUI_KEY_ENTER);
	keys(m, "xxH");
	assert_int_equal(tui_model_cur_line(m), 54);
	const char *row = tui_model_row_text(m, tui_model_cursor(m));
	assert_non_null(strstr(row, "2.5 "));
	assert_null(strchr(row, '~'));
	s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, " SIMULATED (callgrind) | Annotate walk"));
	tui_model_free(m);

	/* the same data measured: the marks are there */
	m = make_model_sim(&calls, 100, 30, 0);
	s = tui_model_render(m);
	assert_null(strstr(s->row[0].text, "SIMULATED"));
	tui_model_key(m, 'R');
	int marked = 0;
	for (size_t i = 0; i < tui_model_nrows(m); i++)
		marked |= strstr(tui_model_row_text(m, i), "walk") &&
			  strchr(tui_model_row_text(m, i), '~');
	assert_true(marked);
	tui_model_free(m);
}

static void test_model_new__no_events__error(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	tui_data *d = tui_data_new();
	assert_null(tui_model_new(d, 80, 24, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_string_equal(err.msg, "tui: the data has no events");
	char line[256];
	for (size_t i = 0; tui_help_line(i, line, sizeof(line)) == 0; i++)
		assert_true(strlen(line) < 80);
}

/* Two processes (prog 101 and prog 102) and their shell: t zooms into the cursor's process,
 * d into its object, the title names them and counts their samples, t/d again and ESC
 * zoom out (the last zoom first), as perf's report TUI. */
static void test_model_key__zoom_thread_dso__rows_title_and_out(void **state)
{
	(void)state;
	static const struct {
		const char *name, *dso, *comm;
		long pid;
		uint64_t n;
	} rows[] = {
		{ "main", "/bin/prog", "prog", 101, 600 },  { "main", "/bin/prog", "prog", 102, 300 },
		{ "memset", "/lib/libc.so.6", "prog", 101, 50 },
		{ "memset", "/lib/libc.so.6", "prog", 102, 30 },
		{ "fork", "/lib/libc.so.6", "sh", 100, 15 }, { "fork", "/lib/libc.so.6", "sh", 101, 5 },
	};
	struct mp_err err = { 0 };
	tui_data *d = tui_data_new();
	assert_int_equal(tui_data_add_event(d, "page-faults", 1000, 1000, 0, 0, 0), 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		long s = tui_data_add_sym(d, rows[i].name, rows[i].dso, 0);
		assert_true(s >= 0);
		assert_int_equal(tui_data_set_sym_count(d, (size_t)s, 0, rows[i].n, rows[i].n), 0);
		assert_int_equal(tui_data_set_sym_thread(d, (size_t)s, rows[i].comm, rows[i].pid), 0);
	}
	tui_model *m = tui_model_new(d, 160, 12, &err);
	assert_non_null(m);
	assert_int_equal(tui_model_nrows(m), 6);
	assert_non_null(strstr(tui_model_row_text(m, 0), "    101:prog              main"));
	const struct tui_screen *scr = tui_model_render(m);
	assert_non_null(strstr(scr->row[1].text, "    pid:command           symbol"));
	/* t on the second row (prog 102): its two rows, the column elided */
	keys(m, "jt");
	assert_int_equal(tui_model_nrows(m), 2);
	assert_non_null(strstr(tui_model_row_text(m, 0), "]  main"));
	assert_null(strstr(tui_model_row_text(m, 0), "102"));
	scr = tui_model_render(m);
	assert_non_null(strstr(scr->row[0].text, "Symbols: 330 of 1000 samples of 'page-faults', "
						"event count 330 of 1000 | Thread: prog(102) | sort:"));
	assert_null(strstr(scr->row[1].text, "pid:command"));
	/* d on memset: libc's rows of prog 102 */
	keys(m, "jd");
	assert_int_equal(tui_model_nrows(m), 1);
	assert_non_null(strstr(tui_model_symbol(m), "memset"));
	scr = tui_model_render(m);
	assert_non_null(strstr(scr->row[0].text, "30 of 1000 samples"));
	assert_non_null(strstr(scr->row[0].text, "| Thread: prog(102) | DSO: libc.so.6 | sort:"));
	/* t again: out of the thread, still in libc (4 rows), column back */
	keys(m, "t");
	assert_int_equal(tui_model_nrows(m), 4);
	scr = tui_model_render(m);
	assert_null(strstr(scr->row[0].text, "Thread:"));
	assert_non_null(strstr(scr->row[0].text, "| DSO: libc.so.6 |"));
	/* t on sh's fork (pid 100), then ESC: out of the thread first, then of libc */
	tui_model_key(m, TUI_KEY_END);
	tui_model_key(m, 't');
	assert_string_equal(tui_model_symbol(m), "fork");
	scr = tui_model_render(m);
	assert_non_null(strstr(scr->row[0].text, "| DSO: libc.so.6 | Thread: "));
	tui_model_key(m, TUI_KEY_ESC);
	assert_int_equal(tui_model_nrows(m), 4);
	tui_model_key(m, TUI_KEY_ESC);
	assert_int_equal(tui_model_nrows(m), 6);
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	/* T still shows samples in the lists */
	tui_model_key(m, 'T');
	assert_int_equal(tui_model_show(m), TUI_SHOW_SAMPLES);
	tui_model_free(m);
}

/* ---- call chains: Children and Self, trees in place, callers and callees ---- */

/* One event, 1000 samples of period 1. main calls foo (which calls baz: 3%) and bar (which
 * calls qux: 0.4%, under perf's 0.5% limit). */
static const struct {
	const char *name;
	uint64_t children, self;
} csyms[] = {
	{ "main", 1000, 0 }, { "bar", 400, 396 }, { "foo", 600, 500 }, { "baz", 30, 30 },
	{ "qux", 4, 4 },
};
enum { C_MAIN, C_BAR, C_FOO, C_BAZ, C_QUX, C_N };

struct chain_fx {
	int chain_calls, annot_calls;
	char annotated[64];
};

static long cadd(tui_chain *c, long parent, size_t sym, uint64_t cum, uint64_t self)
{
	long n = tui_chain_add(c, parent, sym);
	assert_true(n >= 0);
	assert_int_equal(tui_chain_set_count(c, (size_t)n, 0, cum, cum, self, self), 0);
	return n;
}

static int chain_cb(void *ctx, size_t sym, enum tui_chain_kind kind, tui_chain **out,
		    struct mp_err *err)
{
	struct chain_fx *f = ctx;
	(void)err;
	f->chain_calls++;
	tui_chain *c = tui_chain_new(1);
	assert_non_null(c);
	if (kind == TUI_CHAIN_ENTRY && sym == C_MAIN) {
		long m = cadd(c, -1, C_MAIN, 1000, 0);
		long foo = cadd(c, m, C_FOO, 600, 500);
		cadd(c, foo, C_BAZ, 30, 30);
		long bar = cadd(c, m, C_BAR, 400, 396);
		cadd(c, bar, C_QUX, 4, 4);
	} else if (kind == TUI_CHAIN_ENTRY) {
		cadd(c, -1, sym, csyms[sym].children, csyms[sym].self);
	} else if (sym == C_FOO) {
		if (kind == TUI_CHAIN_CALLERS)
			cadd(c, -1, C_MAIN, 600, 600);
		else
			cadd(c, -1, C_BAZ, 30, 30);
	}
	assert_int_equal(tui_chain_add(c, (long)tui_chain_nnodes(c), 0), -EINVAL);
	*out = c;
	return 0;
}

static int chain_annotate_cb(void *ctx, const struct tui_sym_ref *sym, tui_annot **out,
			     struct mp_err *err)
{
	struct chain_fx *f = ctx;
	(void)err;
	f->annot_calls++;
	snprintf(f->annotated, sizeof(f->annotated), "%s", sym->name);
	tui_annot *a = tui_annot_new(1, sym->name, "prog.c");
	assert_non_null(a);
	long l = tui_annot_add_line(a, 1, NULL, "{");
	assert_int_equal(tui_annot_set_line_count(a, (size_t)l, 0, 1, 1), 0);
	*out = a;
	return 0;
}

static tui_model *make_chain_model(struct chain_fx *f)
{
	tui_data *d = tui_data_new();
	assert_non_null(d);
	assert_int_equal(tui_data_add_event(d, "cycles", 1000, 1000, 0, 0, 0), 0);
	assert_false(tui_data_has_children(d));
	for (size_t i = 0; i < C_N; i++) {
		assert_int_equal(tui_data_add_sym(d, csyms[i].name, "/bin/prog", 0x1000 * i), (long)i);
		assert_int_equal(tui_data_set_sym_count(d, i, 0, csyms[i].self, csyms[i].self), 0);
		assert_int_equal(tui_data_set_sym_children(d, i, 0, csyms[i].children,
							   csyms[i].children), 0);
	}
	assert_int_equal(tui_data_set_sym_children(d, C_N, 0, 1, 1), -EINVAL);
	assert_true(tui_data_has_children(d));
	tui_data_set_chain_fn(d, chain_cb, f);
	tui_data_set_annotate_fn(d, chain_annotate_cb, f);
	struct mp_err err = { 0 };
	tui_model *m = tui_model_new(d, 80, 24, &err);
	assert_non_null(m);
	return m;
}

static void assert_row_has(tui_model *m, size_t i, const char *what)
{
	const char *t = tui_model_row_text(m, i);
	assert_non_null(t);
	if (!strstr(t, what))
		fail_msg("row %zu '%s' has no '%s'", i, t, what);
}

static void test_chains_model__unfold_fold__rows_percentages_annotate(void **state)
{
	(void)state;
	struct chain_fx f = { 0 };
	tui_model *m = make_chain_model(&f);

	/* Children first, sorted by it; Self beside it */
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	assert_int_equal(tui_model_nrows(m), C_N);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[1].text, "Children    Self  symbol"));
	assert_row_has(m, 0, "+ 100.00%          main");
	assert_row_has(m, 1, "+  60.00%  50.00%  foo");
	assert_row_has(m, 2, "+  40.00%  39.60%  bar");
	assert_string_equal(tui_model_symbol(m), "main");
	assert_int_equal(f.chain_calls, 0); /* trees are built when shown */

	/* +: one level at a time; nodes under 0.5% are left out (qux) */
	tui_model_key(m, '+');
	assert_int_equal(tui_model_nrows(m), C_N + 1);
	assert_row_has(m, 0, "- 100.00%");
	assert_row_has(m, 1, "   + 100.00% main");
	keys(m, "j+");
	assert_int_equal(tui_model_nrows(m), C_N + 3);
	assert_row_has(m, 1, "   - 100.00% main");
	assert_row_has(m, 2, "      + 60.00% foo");
	assert_row_has(m, 3, "        40.00% bar"); /* nothing shown under it: no sign */
	assert_int_equal(tui_chain_row_kind(m->stack[0], 0), TUI_CROW_ENTRY);
	assert_int_equal(tui_chain_row_kind(m->stack[0], 3), TUI_CROW_HEAD);
	assert_int_equal(tui_chain_row_kind(m->stack[0], 4), TUI_CROW_ENTRY);
	keys(m, "j+");
	assert_int_equal(tui_model_nrows(m), C_N + 4);
	assert_row_has(m, 3, "           3.00% baz");
	assert_int_equal(tui_model_cursor(m), 2);
	assert_string_equal(tui_model_symbol(m), "foo");
	keys(m, "jj+"); /* bar: nothing to unfold */
	assert_int_equal(tui_model_nrows(m), C_N + 4);
	assert_string_equal(tui_model_symbol(m), "bar");
	assert_int_equal(f.chain_calls, 1);

	/* C: all folded, the cursor back on its entry; e: the entry all the way, and back */
	tui_model_key(m, 'C');
	assert_int_equal(tui_model_nrows(m), C_N);
	assert_int_equal(tui_model_cursor(m), 0);
	tui_model_key(m, 'e');
	assert_int_equal(tui_model_nrows(m), C_N + 4);
	keys(m, "jje");
	assert_int_equal(tui_model_nrows(m), C_N);
	assert_int_equal(tui_model_cursor(m), 0);

	/* E: every tree (foo, bar, baz: one node each; qux's is under the limit) */
	tui_model_key(m, 'E');
	assert_int_equal(tui_model_nrows(m), C_N + 4 + 3);
	assert_string_equal(tui_model_message(m), "all call chains unfolded (12 rows)");
	assert_int_equal(f.chain_calls, C_N);
	tui_model_key(m, 'E');
	assert_int_equal(f.chain_calls, C_N); /* kept */

	/* moving over chain rows, ENTER on one annotates that frame's function */
	keys(m, "jjj");
	assert_string_equal(tui_model_symbol(m), "baz");
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
	assert_string_equal(f.annotated, "baz");
	assert_string_equal(tui_model_symbol(m), "baz");
	tui_model_key(m, 'q');
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	assert_int_equal(tui_model_cursor(m), 3);
	tui_model_key(m, 'C');
	assert_int_equal(tui_model_nrows(m), C_N);

	/* the folded qux: nothing above the limit */
	keys(m, "jjjj+");
	assert_string_equal(tui_model_symbol(m), "qux");
	assert_int_equal(tui_model_nrows(m), C_N);
	assert_non_null(strstr(tui_model_message(m), "no call chains above 0.5%"));
	tui_data_set_chain_limit(m->d, 0);
	tui_model_key(m, '+');
	assert_int_equal(tui_model_nrows(m), C_N + 1);
	assert_row_has(m, 5, "0.40% qux");
	tui_model_free(m);
}

static void test_chains_model__callers_callees__view_and_keys(void **state)
{
	(void)state;
	struct chain_fx f = { 0 };
	tui_model *m = make_chain_model(&f);

	keys(m, "e");             /* main's tree: main, foo, baz, bar */
	keys(m, "jj");            /* foo's node */
	assert_string_equal(tui_model_symbol(m), "foo");
	tui_model_key(m, 'c');
	assert_int_equal(tui_model_view(m), TUI_VIEW_CALLS);
	assert_int_equal(tui_model_depth(m), 2);
	assert_int_equal(tui_model_nrows(m), 4);
	assert_int_equal(tui_model_cursor(m), 1);
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(strstr(s->row[0].text, "Calls of foo (/bin/prog) | cycles: children 60.00%, "
					       "self 50.00%"));
	assert_row_has(m, 0, "- Callers of foo");
	assert_row_has(m, 1, "   60.00% main");
	assert_row_has(m, 2, "- Callees of foo");
	assert_row_has(m, 3, "   3.00% baz");
	assert_string_equal(tui_model_symbol(m), "main");
	/* the keys of the trees work here too */
	keys(m, "C");
	assert_int_equal(tui_model_nrows(m), 2);
	keys(m, "E");
	assert_int_equal(tui_model_nrows(m), 4);
	assert_int_equal(tui_model_cursor(m), 0);
	keys(m, "jj");
	assert_string_equal(tui_model_symbol(m), "foo"); /* a heading: the view's function */
	keys(m, "j");
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_view(m), TUI_VIEW_ANNOTATE);
	assert_string_equal(f.annotated, "baz");
	tui_model_key(m, 'q');
	/* c again: the callers and callees of baz, on top */
	tui_model_key(m, 'c');
	assert_int_equal(tui_model_depth(m), 3);
	assert_row_has(m, 0, "Callers of baz: none");
	assert_row_has(m, 1, "Callees of baz: none");
	keys(m, "qq");
	assert_int_equal(tui_model_depth(m), 1);
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	tui_model_free(m);
}

/* The heads of perf's compressed runs under node n (UINT32_MAX: the top) of tree tr that
 * the browser shows: "PCT% name" into want. */
static void expect_heads(mp_cg *cg, const struct mp_cg_tree *tr, uint32_t n, uint64_t min,
			 uint64_t total, char **want, size_t *nw)
{
	uint32_t first = n == UINT32_MAX ? tr->first : tr->nodes[n].first_child;
	for (uint32_t c = first; c != UINT32_MAX; c = tr->nodes[c].next) {
		uint64_t v = tr->nodes[c].cumul[0].period;
		if (!v || v < min)
			continue;
		char buf[512];
		snprintf(buf, sizeof(buf), "%.2f%% %s", 100.0 * (double)v / (double)total,
			 mp_cg_fn(cg, tr->nodes[c].fn)->sym);
		want[(*nw)++] = strdup(buf);
		/* the run: single children with a count, no samples of its own in between */
		uint32_t end = c;
		for (;;) {
			uint32_t only = UINT32_MAX, k = 0;
			for (uint32_t x = tr->nodes[end].first_child; x != UINT32_MAX; x = tr->nodes[x].next)
				if (tr->nodes[x].cumul[0].period) {
					only = x;
					k++;
				}
			if (tr->nodes[end].hit[0].period || k != 1)
				break;
			end = only;
		}
		expect_heads(cg, tr, end, min, total, want, nw);
	}
}

static char callgraph_path[4096]; /* the fixture, found by main() */

/* A recording with call chains through the source: the list and the trees hold the
 * numbers of the callgraph module (mp_cg_table, mp_cg_tree in caller order) read apart;
 * e2e tui_chains compares them with memprof report -g caller and perf. */
static void test_chains_source__recording__numbers_of_mp_cg(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	struct tui_source_opts o = { .kallsyms = "/dev/null", .no_ratios = 1 };
	tui_data *d = NULL;
	tui_source *src = tui_source_open(callgraph_path, &o, &d, &err);
	if (!src)
		fail_msg("%s", err.msg);
	assert_true(tui_data_has_children(d));
	tui_model *m = tui_model_new(d, 200, 60, &err);
	assert_non_null(m);

	mp_cg *cg = NULL;
	struct mp_session_opts so = { .kallsyms = "/dev/null" };
	struct mp_cg_opts co = { .want_comm = 1 };
	mp_session *ss = mp_cg_session_new(callgraph_path, &so, &co, &cg, &err);
	assert_non_null(ss);
	assert_int_equal(mp_cg_resolve(cg, mp_session_sym(ss), 0), 0);
	/* the fixture has several commands: entries per command and function, perf's comm,sym */
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(cg, 0, 1, &t), 0);
	assert_true(d->threads);
	assert_true(t.n > 10);
	assert_int_equal(tui_data_nsyms(d), t.n);
	uint64_t total = mp_cg_total(cg, 0).period;
	assert_int_equal(d->ev[0].period, total);

	/* every function: its Children and Self, and the list's order with its percentages */
	for (size_t i = 0; i < t.n; i++) {
		const struct mp_cg_entry *e = &t.e[i];
		size_t j;
		for (j = 0; j < d->nsyms; j++)
			if (!strcmp(d->syms[j].name, e->f.sym) && !strcmp(d->syms[j].dso, e->f.dso) &&
			    !strcmp(d->syms[j].comm, e->comm))
				break;
		assert_true(j < d->nsyms);
		assert_non_null(d->syms[j].ch);
		assert_int_equal(d->syms[j].ch[0], e->children[0].samples);
		assert_int_equal(d->syms[j].ch[1], e->children[0].period);
		assert_int_equal(d->syms[j].cnt[0], e->self[0].samples);
		assert_int_equal(d->syms[j].cnt[1], e->self[0].period);
		char want[64];
		snprintf(want, sizeof(want), " %.2f%%", 100.0 * (double)e->children[0].period / (double)total);
		assert_row_has(m, i, want);
	}

	/* the top entry's tree, one level: perf's caller-order top nodes above 0.5% */
	struct mp_cg_tree tr;
	struct mp_cg_tree_opts to = { .callee = 0, .children = 1, .sort_attr = 0 };
	assert_int_equal(mp_cg_tree(cg, &t, 0, &to, &tr), 0);
	uint64_t min = (uint64_t)((double)total * 0.5 / 100.0);
	tui_model_key(m, '+');
	size_t shown = 0, heads = 0;
	for (uint32_t c = tr.first; c != UINT32_MAX; c = tr.nodes[c].next) {
		if (!tr.nodes[c].cumul[0].period || tr.nodes[c].cumul[0].period < min)
			continue;
		char want[256];
		snprintf(want, sizeof(want), " %.2f%% %s",
			 100.0 * (double)tr.nodes[c].cumul[0].period / (double)total,
			 mp_cg_fn(cg, tr.nodes[c].fn)->sym);
		size_t r;
		for (r = 1; r < tui_model_nrows(m); r++)
			if (strstr(tui_model_row_text(m, r), want))
				break;
		if (r == tui_model_nrows(m))
			fail_msg("no row '%s' under %s", want, t.e[0].f.sym);
		shown++;
	}
	for (size_t r = 1; r < tui_model_nrows(m) &&
			   tui_chain_row_kind(m->stack[0], r) != TUI_CROW_ENTRY; r++)
		heads += tui_chain_row_kind(m->stack[0], r) == TUI_CROW_HEAD;
	assert_true(shown > 0);
	assert_int_equal(heads, shown);
	/* e on each of the top entries: its whole tree, the heads of perf's compressed runs
	 * with their percentages, as mp_cg_tree's caller order has them */
	tui_model_key(m, 'C');
	for (size_t k = 0; k < 6 && k < t.n; k++) {
		struct mp_cg_tree tk;
		assert_int_equal(mp_cg_tree(cg, &t, k, &to, &tk), 0);
		char **want = calloc(tk.n + 1, sizeof(*want));
		assert_non_null(want);
		size_t nw = 0;
		expect_heads(cg, &tk, UINT32_MAX, min, total, want, &nw);
		tui_model_key(m, TUI_KEY_HOME);
		for (size_t j = 0; j < k; j++)
			tui_model_key(m, TUI_KEY_DOWN);
		tui_model_key(m, 'e');
		size_t got = 0;
		for (size_t r = k + 1; r < tui_model_nrows(m) &&
				       tui_chain_row_kind(m->stack[0], r) != TUI_CROW_ENTRY;
		     r++) {
			if (tui_chain_row_kind(m->stack[0], r) != TUI_CROW_HEAD)
				continue;
			const char *txt = tui_model_row_text(m, r);
			size_t w;
			for (w = 0; w < nw; w++)
				if (want[w] && strstr(txt, want[w]))
					break;
			if (w == nw)
				fail_msg("entry %zu (%s): row '%s' is no head of mp_cg_tree", k,
					 t.e[k].f.sym, txt);
			free(want[w]);
			want[w] = NULL;
			got++;
		}
		assert_int_equal(got, nw);
		free(want);
		tui_model_key(m, 'e');
		assert_int_equal(tui_model_nrows(m), t.n);
		mp_cg_tree_fini(&tk);
	}

	/* E unfolds every entry: as many rows as the trees' shown nodes */
	tui_model_key(m, 'E');
	assert_true(tui_model_nrows(m) > t.n + shown);

	mp_cg_tree_fini(&tr);
	mp_cg_table_fini(&t);
	mp_cg_free(cg);
	mp_session_free(ss);
	tui_model_free(m);
	tui_source_free(src);
}

static void test_bindings__one_action_per_key_and_view__help_from_table(void **state)
{
	(void)state;
	size_t helped = 0;
	for (size_t i = 0; i < tui_nbindings; i++) {
		const struct tui_binding *a = &tui_bindings[i];
		if (!a->key) { /* a heading of the help screen */
			assert_null(a->action);
			assert_non_null(a->help);
			continue;
		}
		assert_non_null(a->action);
		assert_true(a->views && !(a->views & ~(unsigned)TUI_V_ALL));
		if (a->help) {
			assert_non_null(strchr(a->help, '\t'));
			helped++;
		}
		for (size_t j = i + 1; j < tui_nbindings; j++)
			if (tui_bindings[j].key == a->key && (tui_bindings[j].views & a->views))
				fail_msg("key %d bound twice in views %#x (rows %zu and %zu)", a->key,
					 tui_bindings[j].views & a->views, i, j);
	}
	/* the help screen: headings, one line per binding with help, continuation lines */
	char line[256];
	size_t n = 0;
	for (; tui_help_line(n, line, sizeof(line)) == 0; n++)
		assert_true(strlen(line) < 80);
	assert_int_equal(n, helped + 6 + 5); /* 6 headings, 5 continuation lines */
	assert_int_equal(tui_help_line(0, line, sizeof(line)), 0);
	assert_string_equal(line, "Everywhere");
	assert_int_equal(tui_help_line(1, line, sizeof(line)), 0);
	assert_string_equal(line, "  UP/DOWN, k/j      move the cursor");
	assert_int_equal(tui_help_line(n, line, sizeof(line)), -ENOENT);
}

static void test_key_parse__names_and_characters__keys(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		int key;
		size_t used;
		int line;
	} t[] = {
		{ "<ENTER>q", TUI_KEY_ENTER, 7, __LINE__ },
		{ "<BS>", TUI_KEY_BACKSPACE, 4, __LINE__ },
		{ "<BTAB>", TUI_KEY_BTAB, 6, __LINE__ },
		{ "<TAB", '<', 1, __LINE__ },
		{ "<NOPE>", '<', 1, __LINE__ },
		{ "\n", TUI_KEY_ENTER, 1, __LINE__ },
		{ "q<UP>", 'q', 1, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const char *p = t[i].in;
		int k = tui_key_parse(&p);
		if (k != t[i].key || (size_t)(p - t[i].in) != t[i].used)
			fail_msg("line %d: key %d after %td, expected %d after %zu", t[i].line, k,
				 p - t[i].in, t[i].key, t[i].used);
	}
	assert_string_equal(tui_key_name(TUI_KEY_PGDN), "PGDN");
	assert_null(tui_key_name('q'));
}

/* The status lines as each view had them written out by hand before they were made from
 * the key table. */
static const struct {
	const struct tui_view_ops *ops;
	const char *line;
} status_lines[] = {
	{ &tui_symbols_ops,
	  "ENTER annotate  / filter  x event  o sort  R ratios  i summary  h help  q quit" },
	{ &tui_ratios_ops,
	  "ENTER annotate  / filter  x event  o sort  R ratios  i summary  h help  q quit" },
	{ &tui_children_ops,
	  "ENTER annotate  + unfold  e/E/C chains  c callers  / filter  h help  q quit" },
	{ &tui_calls_ops,
	  "ENTER annotate  + unfold  e/E/C chains  c recentre here  h help  q back" },
	{ &tui_annotate_ops,
	  "H hottest  TAB next hot  s source  a asm  ENTER follow  / search  < > symbol  q back" },
	{ &tui_diff_ops, "q quit  x next event  h help  i summary" },
	{ &tui_summary_ops, "q back" },
	{ &tui_help_ops, "q back" },
	{ &tui_data_ops, "ENTER code  TAB key  x event  h help  q back" },
	{ &tui_dcode_ops, "ENTER annotate  x event  h help  q back" },
	{ &tui_table_ops, "ENTER offsets  { } scroll  h help  q quit" },
	{ &tui_subtable_ops, "{ } scroll  h help  q back" },
};
#define NSTATUS (sizeof(status_lines) / sizeof(status_lines[0]))

/* The model's status row without its padding, in buf. */
static const char *status_row(tui_model *m, char *buf, size_t n)
{
	const struct tui_screen *s = tui_model_render(m);
	assert_non_null(s);
	snprintf(buf, n, "%s", s->row[s->rows - 1].text);
	for (size_t k = strlen(buf); k && buf[k - 1] == ' ';)
		buf[--k] = 0;
	return buf;
}

/* Every view's status line comes from the key table: each key its ops list with its
 * binding's status text there, as the lines were written by hand; the model shows it when
 * there is no message. */
static void test_status_line__every_view__from_key_table(void **state)
{
	(void)state;
	char line[256], row[256];
	for (size_t i = 0; i < NSTATUS; i++) {
		tui_status_line(status_lines[i].ops, line, sizeof(line));
		if (strcmp(line, status_lines[i].line))
			fail_msg("%s: status '%s', want '%s'", status_lines[i].ops->name, line,
				 status_lines[i].line);
	}
	/* on the screen, view by view */
	int calls = 0;
	tui_model *m = make_model(&calls, 120, 24);
	const char *walk[][2] = { { "", "Symbols" }, { "\n", "Annotate" }, { "qR", "Ratios" },
				  { "qi", "Summary" }, { "qh", "Help" } };
	for (size_t i = 0; i < sizeof(walk) / sizeof(walk[0]); i++) {
		keys(m, walk[i][0]);
		tui_model_set_message(m, "");
		size_t k;
		for (k = 0; k < NSTATUS && strcmp(status_lines[k].ops->name, walk[i][1]); k++)
			;
		assert_true(k < NSTATUS);
		assert_string_equal(status_row(m, row, sizeof(row)), status_lines[k].line);
	}
	tui_model_set_message(m, "a message");
	assert_string_equal(status_row(m, row, sizeof(row)), "a message");
	tui_model_free(m);
	struct chain_fx f = { 0 };
	m = make_chain_model(&f);
	tui_model_resize(m, 120, 24);
	assert_string_equal(status_row(m, row, sizeof(row)), status_lines[2].line);
	tui_model_key(m, 'c');
	assert_int_equal(tui_model_view(m), TUI_VIEW_CALLS);
	tui_model_set_message(m, "");
	assert_string_equal(status_row(m, row, sizeof(row)), status_lines[3].line);
	tui_model_free(m);
}

/* A key a status line names is bound in that view, and its text starts with the key's name
 * (then ' ', or '/' and the keys bound alike: "e/E/C chains");
 * every status text of the table shows on some view's status line. */
static void test_status_line__keys__bound_and_named(void **state)
{
	(void)state;
	char line[256];
	for (size_t i = 0; i < NSTATUS; i++) {
		const struct tui_view_ops *ops = status_lines[i].ops;
		tui_status_line(ops, line, sizeof(line));
		assert_non_null(ops->status);
		for (const int *k = ops->status; *k; k++) {
			const struct tui_binding *b = tui_find_binding(ops->bit, *k);
			if (!b || !b->status)
				fail_msg("%s: status key %d has no binding with a status text",
					 ops->name, *k);
			char name[16];
			snprintf(name, sizeof(name), "%s", tui_key_name(*k) ? tui_key_name(*k) : "");
			if (!name[0])
				snprintf(name, sizeof(name), "%c", *k);
			char after = b->status[strlen(name)];
			if (strncmp(b->status, name, strlen(name)) || (after != ' ' && after != '/'))
				fail_msg("%s: '%s' does not start with its key %s", ops->name,
					 b->status, name);
			assert_non_null(strstr(line, b->status));
		}
	}
	for (size_t j = 0; j < tui_nbindings; j++) {
		const struct tui_binding *b = &tui_bindings[j];
		if (!b->status)
			continue;
		size_t i;
		for (i = 0; i < NSTATUS; i++) {
			tui_status_line(status_lines[i].ops, line, sizeof(line));
			if ((b->views & status_lines[i].ops->bit) && strstr(line, b->status))
				break;
		}
		if (i == NSTATUS)
			fail_msg("binding %zu's status '%s' is on no view's status line", j, b->status);
	}
}

/* ---- the data view ---- */

/* Two keys: key 0 objects (arr: 3 samples, 2 by f at a.c:3, 1 by g; buf: 5 by g), key 1
 * levels (L1 7, RAM 1), weights given; tables counted as they are built. */
static int dtab_fn(void *ctx, size_t key, tui_dtable **out, struct mp_err *err)
{
	(void)err;
	int *built = ctx;
	tui_dtable *t = tui_dtable_new(1, key ? "Memory access" : "Data Symbol");
	assert_non_null(t);
	if (key == 0) {
		long arr = tui_dtable_add_row(t, "[.] arr"), buf = tui_dtable_add_row(t, "[.] buf");
		long f = tui_dtable_add_code(t, (size_t)arr, "f", "/bin/p", "a.c:3");
		long g = tui_dtable_add_code(t, (size_t)arr, "g", "/bin/p", NULL);
		long g2 = tui_dtable_add_code(t, (size_t)buf, "g", "/bin/p", "a.c:9");
		assert_int_equal(tui_dtable_add_code_count(t, (size_t)f, 0, 2, 20, 20), 0);
		assert_int_equal(tui_dtable_add_code_count(t, (size_t)g, 0, 1, 10, 10), 0);
		assert_int_equal(tui_dtable_add_code_count(t, (size_t)g2, 0, 5, 70, 70), 0);
		assert_int_equal(tui_dtable_add_code_count(t, 9, 0, 1, 1, 1), -EINVAL);
	} else {
		long l1 = tui_dtable_add_row(t, "L1 hit"), ram = tui_dtable_add_row(t, "RAM hit");
		assert_int_equal(tui_dtable_add_count(t, (size_t)l1, 0, 7, 30, 30), 0);
		assert_int_equal(tui_dtable_add_count(t, (size_t)ram, 0, 1, 70, 70), 0);
	}
	(*built)++;
	*out = t;
	return 0;
}

static void test_data_view__keys_code_and_back__rows_and_counts(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	int built = 0;
	static const char *const keys[] = { "symbol_daddr", "mem" };
	tui_data *d = tui_data_new();
	assert_int_equal(tui_data_add_event(d, "mem-loads", 8, 8, 0, 0, 0), 0);
	assert_int_equal(tui_data_add_sym(d, "g", "/bin/p", 0x1000), 0);
	assert_int_equal(tui_data_set_dkeys(d, keys, 2, dtab_fn, &built), 0);
	tui_model *m = tui_model_new(d, 80, 12, &err);
	assert_non_null(m);
	tui_model_key(m, 'D');
	assert_int_equal(tui_model_view(m), TUI_VIEW_DATA);
	assert_int_equal(built, 1);
	tui_model_render(m);
	/* by cost: buf (70 of 100) before arr (30) */
	assert_string_equal(tui_model_symbol(m), "[.] buf");
	assert_non_null(strstr(tui_model_row_text(m, 0), " 70.00%"));
	assert_non_null(strstr(tui_model_row_text(m, 0), "70  [.] buf"));
	assert_non_null(strstr(tui_model_row_text(m, 1), " 30.00%"));
	const struct tui_screen *sc = tui_model_render(m);
	assert_non_null(strstr(sc->row[0].text, "Data by symbol_daddr | 8 samples of 'mem-loads' "
						 "with data, weight 100"));
	assert_non_null(strstr(sc->row[1].text, "weight  Data Symbol"));
	/* ENTER on arr: f (2 samples) before g */
	tui_model_key(m, TUI_KEY_DOWN);
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_view(m), TUI_VIEW_DATA_CODE);
	assert_int_equal(tui_model_nrows(m), 2);
	assert_string_equal(tui_model_symbol(m), "f");
	assert_non_null(strstr(tui_model_row_text(m, 0), "f  a.c:3  p"));
	assert_non_null(strstr(tui_model_row_text(m, 1), "g  ?  p"));
	sc = tui_model_render(m);
	assert_non_null(strstr(sc->row[0].text, "Code that touched [.] arr | 3 samples"));
	/* back, the cursor where it was; TAB: levels, built once */
	tui_model_key(m, 'q');
	assert_int_equal(tui_model_view(m), TUI_VIEW_DATA);
	assert_string_equal(tui_model_symbol(m), "[.] arr");
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(built, 2);
	assert_string_equal(tui_model_symbol(m), "RAM hit");
	tui_model_key(m, TUI_KEY_TAB);
	tui_model_key(m, TUI_KEY_BTAB);
	assert_int_equal(built, 2);
	tui_model_key(m, TUI_KEY_LEFT);
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	/* D again: the tables kept, none built anew */
	tui_model_key(m, 'D');
	tui_model_key(m, TUI_KEY_TAB);
	assert_int_equal(tui_model_view(m), TUI_VIEW_DATA);
	assert_string_equal(tui_model_symbol(m), "RAM hit");
	assert_int_equal(built, 2);
	tui_model_free(m);

	/* no data addresses: D says why on the status line */
	d = tui_data_new();
	assert_int_equal(tui_data_add_event(d, "cycles", 1, 1, 0, 0, 0), 0);
	assert_int_equal(tui_data_set_no_dkeys(d, "no data view: x has no data addresses"), 0);
	m = tui_model_new(d, 80, 12, &err);
	assert_non_null(m);
	tui_model_key(m, 'D');
	assert_int_equal(tui_model_view(m), TUI_VIEW_SYMBOLS);
	assert_string_equal(tui_model_message(m), "no data view: x has no data addresses");
	tui_model_free(m);
}

/* ---- tables of text (c2c report) ---- */

/* Two lines, the first with its offsets (two rows and a verdict): the table opens first,
 * ENTER shows the offsets and the verdict under them, q comes back, } scrolls the rows and
 * the header, ENTER on a row without a table says so; q quits at the bottom. */
static void test_table_view__lines_offsets_back__rows_and_scroll(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	tui_data *d = tui_data_new();
	assert_int_equal(tui_data_add_event(d, "ldlat-loads", 10, 10, 0, 0, 0), 0);
	tui_ttable *t = tui_ttable_new("Shared Data Cache Line Table | 2 lines", "Index  Hitm  Data Symbol");
	assert_non_null(t);
	assert_int_equal(tui_ttable_add_row(t, "    0    75.00%  [.] counters+0x0 (falseshare)", 75), 0);
	assert_int_equal(tui_ttable_add_row(t, "    1    25.00%  [.] other", 25), 1);
	tui_ttable *sub = tui_ttable_new("Cacheline 0x4040", "Offset  Tid  Symbol");
	assert_int_equal(tui_ttable_add_row(sub, "0x0  101  writer_a", 60), 0);
	assert_int_equal(tui_ttable_add_row(sub, "0x8  102  writer_b", 40), 1);
	assert_int_equal(tui_ttable_add_note(sub, "=> false sharing: pad"), 0);
	assert_int_equal(tui_ttable_set_sub(t, 0, sub), 0);
	assert_int_equal(tui_ttable_set_sub(t, 5, tui_ttable_new("x", "y")), -EINVAL);
	assert_int_equal(tui_data_set_table(d, t), 0);
	assert_int_equal(tui_data_set_table(d, tui_ttable_new("x", "y")), -EINVAL);
	tui_model *m = tui_model_new(d, 40, 10, &err);
	assert_non_null(m);
	assert_int_equal(tui_model_view(m), TUI_VIEW_TABLE);
	assert_int_equal(tui_model_nrows(m), 2);
	const struct tui_screen *sc = tui_model_render(m);
	assert_string_equal(sc->row[0].text, " Shared Data Cache Line Table | 2 lines ");
	assert_non_null(strstr(sc->row[1].text, " Index  Hitm  Data Symbol"));
	assert_non_null(strstr(sc->row[2].text, ">    0    75.00%  [.] counters+0x0 (fa"));
	assert_int_equal(sc->row[2].span[0].heat, 3);
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_view(m), TUI_VIEW_SUBTABLE);
	assert_int_equal(tui_model_nrows(m), 4); /* two rows, a blank, the verdict */
	assert_string_equal(tui_model_symbol(m), "0x0  101  writer_a");
	assert_non_null(strstr(tui_model_row_text(m, 3), "=> false sharing: pad"));
	tui_model_key(m, 'q');
	assert_int_equal(tui_model_view(m), TUI_VIEW_TABLE);
	tui_model_key(m, '}');
	sc = tui_model_render(m);
	assert_non_null(strstr(sc->row[2].text, "> [.] counters+0x0 (falseshare)"));
	assert_string_equal(tui_model_message(m), "columns from 17 of 46");
	tui_model_key(m, '{');
	tui_model_key(m, TUI_KEY_DOWN);
	tui_model_key(m, TUI_KEY_ENTER);
	assert_int_equal(tui_model_view(m), TUI_VIEW_TABLE);
	assert_string_equal(tui_model_message(m), "nothing under this row");
	assert_true(tui_model_key(m, 'q') & TUI_QUIT);
	tui_model_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_view__lines_offsets_back__rows_and_scroll),
		cmocka_unit_test(test_data_view__keys_code_and_back__rows_and_counts),
		cmocka_unit_test_setup_teardown(test_model_new__symbols__sorted_by_first_event, setup, teardown),
		cmocka_unit_test(test_model_key__navigation__cursor_and_scroll_clamped),
		cmocka_unit_test_setup_teardown(test_model_key__sort__by_event_ratio_and_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__filter__narrows_and_clears, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__enter__annotates_at_hottest_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__tab__cycles_hot_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__asm__on_demand_and_source_toggle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__enter_on_jump__goes_to_target, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__enter_on_call__opens_callee, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__search__forward_backward_next, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__prev_next_symbol__follow_list_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__view_stack__push_pop_quit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_key__ratio_metric__colours_and_ranks_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_model_render__sizes__every_row_full_width, setup, teardown),
		cmocka_unit_test(test_model_new__no_events__error),
		cmocka_unit_test(test_model_key__zoom_thread_dso__rows_title_and_out),
		cmocka_unit_test(test_model_key__braces__scroll_long_lines),
		cmocka_unit_test(test_model_render__many_events_and_ratios__what_matters_fits),
		cmocka_unit_test(test_model_render__simulated__labelled_and_exact),
		cmocka_unit_test(test_bindings__one_action_per_key_and_view__help_from_table),
		cmocka_unit_test(test_key_parse__names_and_characters__keys),
		cmocka_unit_test(test_chains_model__unfold_fold__rows_percentages_annotate),
		cmocka_unit_test(test_chains_model__callers_callees__view_and_keys),
		cmocka_unit_test(test_status_line__every_view__from_key_table),
		cmocka_unit_test(test_status_line__keys__bound_and_named),
	};
	const struct CMUnitTest recording[] = {
		cmocka_unit_test(test_chains_source__recording__numbers_of_mp_cg),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	if (mp_test_fixture(callgraph_path, sizeof(callgraph_path), MP_FIXTURE_CALLGRAPH))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(recording, NULL, NULL);
}
