/* Unit tests for mp_hist_*: aggregation per place, grouping, sorting, filters, missing
 * symbol shares. Symbols come from ../shared/perfdata/bin/vector_static_gcc_v9.1.0 (nm -S:
 * main 0x4014e0+0x149, __cos_fma 0x418790). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "mp_disasm.h"
#include "mp_test_fixture.h"

static char vec_path[4096];

struct fixture {
	mp_sym *s;
	mp_hist *h;
	uint32_t vec_map, foo_map;
};

static void mk(struct fixture *f, size_t nattrs)
{
	struct mp_sym_opts o = { .kallsyms = "/dev/null" };
	struct mp_err err = { 0 };
	f->s = mp_sym_new(&o, NULL, 0, &err);
	assert_non_null(f->s);
	f->h = mp_hist_new(nattrs);
	assert_non_null(f->h);
	struct mp_pd_mmap m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 0xc5000,
				.cpumode = PERF_RECORD_MISC_USER, .filename = vec_path };
	assert_int_equal(mp_sym_mmap(f->s, &m), 0);
	struct mp_pd_mmap m2 = { .pid = 1, .tid = 1, .start = 0x7f0000000000, .len = 0x1000,
				 .cpumode = PERF_RECORD_MISC_USER, .filename = "/gone/libfoo.so" };
	assert_int_equal(mp_sym_mmap(f->s, &m2), 0);
	f->vec_map = mp_sym_map_find(f->s, 1, PERF_RECORD_MISC_USER, 0x4014fb);
	f->foo_map = mp_sym_map_find(f->s, 1, PERF_RECORD_MISC_USER, 0x7f0000000010);
}

static void rm(struct fixture *f)
{
	mp_hist_free(f->h);
	mp_sym_free(f->s);
}

static void add(struct fixture *f, size_t attr, uint32_t tid, uint64_t ip, uint64_t period,
		int times)
{
	uint32_t map = ip >= 0x7f0000000000 ? f->foo_map : f->vec_map;
	for (int i = 0; i < times; i++)
		assert_int_equal(mp_hist_add(f->h, attr, 1, tid, 0, map, PERF_RECORD_MISC_USER, ip,
					     period), 0);
}

static void mp_hist_query__dso_sym__sums_and_order(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 2);
	add(&f, 0, 1, 0x4014fb, 10, 3);      /* main, line 10 */
	add(&f, 0, 2, 0x401520, 10, 2);      /* main, inlined stl_vector.h:95 */
	add(&f, 0, 1, 0x418794, 100, 1);     /* __cos_fma */
	add(&f, 0, 1, 0x7f0000000010, 5, 4); /* libfoo.so, no file */
	add(&f, 1, 1, 0x4014fb, 7, 1);
	assert_int_equal(mp_hist_total(f.h, 0)->samples, 10);
	assert_int_equal(mp_hist_total(f.h, 0)->period, 170);
	assert_int_equal(mp_hist_total(f.h, 1)->samples, 1);
	/* places: (attr, tid, ip) distinct */
	assert_int_equal(mp_hist_nplaces(f.h), 5);

	struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM, .sort_attr = 0 };
	struct mp_hist_result r;
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_int_equal(r.nrows, 3);
	/* sorted by period of attr 0: __cos_fma 100, main 50, libfoo 20 */
	assert_string_equal(r.rows[0].sym, "__cos_fma");
	assert_int_equal(r.rows[0].c[0].samples, 1);
	assert_int_equal(r.rows[0].c[0].period, 100);
	assert_string_equal(r.rows[1].sym, "main");
	assert_int_equal(r.rows[1].c[0].samples, 5);
	assert_int_equal(r.rows[1].c[0].period, 50);
	assert_int_equal(r.rows[1].c[1].samples, 1);
	assert_int_equal(r.rows[1].c[1].period, 7);
	assert_string_equal(r.rows[2].dso, "libfoo.so");
	assert_string_equal(r.rows[2].sym, "0x0000000000000010");
	assert_int_equal(r.rows[2].sym_resolved, 0);
	mp_hist_result_fini(&r);

	/* sorted by the second event first */
	q.sort_attr = 1;
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_string_equal(r.rows[0].sym, "main");
	mp_hist_result_fini(&r);
	rm(&f);
}

/* Equal periods: rows tie-break by the keys, and an unresolved address sorts after every
 * named symbol of its object, as perf's cmp_null puts a NULL symbol last (strcmp alone puts
 * "0x..." before "main"). */
static void mp_hist_query__tie__unresolved_after_named(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 1);
	add(&f, 0, 1, 0x400010, 10, 1); /* in the object, in no symbol (its ELF header) */
	add(&f, 0, 1, 0x4014fb, 10, 1); /* main */
	struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM, .sort_attr = 0 };
	struct mp_hist_result r;
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_int_equal(r.nrows, 2);
	assert_string_equal(r.rows[0].sym, "main");
	assert_int_equal(r.rows[1].sym_resolved, 0);
	mp_hist_result_fini(&r);
	rm(&f);
}

static void mp_hist_query__srcline_and_filter__lines_of_one_symbol(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 1);
	add(&f, 0, 1, 0x4014fb, 1, 3);
	add(&f, 0, 1, 0x401500, 1, 2); /* also vector.cpp:10 */
	add(&f, 0, 1, 0x401520, 1, 4); /* stl_vector.h:95, inlined into main */
	add(&f, 0, 1, 0x418794, 1, 1);
	struct mp_hist_query q = { .keys = MP_HK_SRCLINE, .dso = "vector_static_gcc_v9.1.0",
				   .sym = "main" };
	struct mp_hist_result r;
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_int_equal(r.nrows, 2);
	assert_non_null(strstr(r.rows[0].srcfile, "vector.cpp"));
	assert_int_equal(r.rows[0].line, 10);
	assert_int_equal(r.rows[0].c[0].samples, 5);
	assert_non_null(strstr(r.rows[1].srcfile, "stl_vector.h"));
	assert_int_equal(r.rows[1].line, 95);
	assert_int_equal(r.rows[1].c[0].samples, 4);
	mp_hist_result_fini(&r);

	/* per instruction */
	q.keys = MP_HK_ADDR;
	q.sort_by_key = 1;
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_int_equal(r.nrows, 3);
	assert_int_equal(r.rows[0].elf_addr, 0x4014fb);
	assert_int_equal(r.rows[0].addr, 0x14fb);
	assert_int_equal(r.rows[2].elf_addr, 0x401520);
	assert_int_equal(r.rows[2].c[0].samples, 4);
	mp_hist_result_fini(&r);

	/* by tid and comm */
	q = (struct mp_hist_query){ .keys = MP_HK_TID | MP_HK_DSO };
	assert_int_equal(mp_hist_query(f.h, f.s, &q, &r), 0);
	assert_int_equal(r.nrows, 1);
	assert_int_equal(r.rows[0].tid, 1);
	assert_int_equal(r.rows[0].c[0].samples, 10);
	mp_hist_result_fini(&r);
	rm(&f);
}

/* The feed's repeated samples (mp_hist_add_again) go to the place of the sample before only
 * while nothing changed the symbols: a map appearing, a thread named, another CPU (with
 * want_cpu) or another event make new places, as mp_hist_add_key() would. */
static void mp_hist_feed__repeated_samples__same_place_until_the_symbols_change(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	struct mp_sym_opts o = { .kallsyms = "/dev/null" };
	mp_sym *s = mp_sym_new(&o, NULL, 0, &err);
	mp_hist *h = mp_hist_new(2);
	assert_non_null(s);
	assert_non_null(h);
	struct mp_hist_feed feed = { .sym = s, .hist = h, .want_comm = 1, .want_cpu = 1 };
	struct mp_pd_handler hd;
	mp_hist_feed_handler(&feed, &hd);
	struct mp_pd_sample smp = { .cpumode = PERF_RECORD_MISC_USER, .ip = 0x4014fb, .pid = 1,
				    .tid = 1, .period = 3 };
	struct mp_pd_mmap m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 0xc5000,
				.cpumode = PERF_RECORD_MISC_USER, .filename = vec_path };
	struct mp_pd_task t = { .pid = 1, .tid = 1, .comm = "vector" };
	assert_int_equal(hd.sample(hd.ctx, &smp), 0); /* no map yet */
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(mp_hist_nplaces(h), 1);
	assert_int_equal(hd.mmap(hd.ctx, &m), 0);
	assert_int_equal(hd.sample(hd.ctx, &smp), 0); /* in vector's map now */
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(mp_hist_nplaces(h), 2);
	assert_int_equal(hd.comm(hd.ctx, &t), 0);
	assert_int_equal(hd.sample(hd.ctx, &smp), 0); /* comm "vector" */
	assert_int_equal(mp_hist_nplaces(h), 3);
	smp.cpu = 1;
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(mp_hist_nplaces(h), 4);
	smp.attr_idx = 1;
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(mp_hist_nplaces(h), 5);
	smp.attr_idx = 7; /* beyond the hist's events: dropped, never counted as the one before */
	assert_int_equal(hd.sample(hd.ctx, &smp), 0);
	assert_int_equal(mp_hist_total(h, 0)->samples, 6);
	assert_int_equal(mp_hist_total(h, 0)->period, 18);
	assert_int_equal(mp_hist_total(h, 1)->samples, 2);
	assert_int_equal(feed.err, 0);

	struct mp_hist_query q = { .keys = MP_HK_COMM | MP_HK_DSO | MP_HK_CPU, .sort_attr = 0 };
	struct mp_hist_result r;
	assert_int_equal(mp_hist_query(h, s, &q, &r), 0);
	assert_int_equal(r.nrows, 4);
	/* by period: [unknown] 6 and vector's map (:1) 6 first, then the comm's two CPUs */
	size_t unknown = 0, named = 0;
	for (size_t i = 0; i < r.nrows; i++) {
		if (!strcmp(r.rows[i].dso, "[unknown]"))
			unknown += r.rows[i].c[0].samples;
		if (!strcmp(r.rows[i].comm, "vector"))
			named += r.rows[i].c[0].samples + r.rows[i].c[1].samples;
	}
	assert_int_equal(unknown, 2);
	assert_int_equal(named, 4);
	mp_hist_result_fini(&r);
	mp_hist_free(h);
	mp_sym_free(s);
}

static void mp_hist_add__many_samples__memory_bounded_by_places(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 1);
	for (int i = 0; i < 200000; i++)
		assert_int_equal(mp_hist_add(f.h, 0, 1, 1, 0, f.vec_map, PERF_RECORD_MISC_USER,
					     0x401500 + (uint64_t)(i % 16), 1), 0);
	assert_int_equal(mp_hist_nplaces(f.h), 16);
	assert_int_equal(mp_hist_total(f.h, 0)->samples, 200000);
	assert_int_equal(mp_hist_add(f.h, 3, 1, 1, 0, f.vec_map, 2, 0x401500, 1), -EINVAL);
	rm(&f);
}

static void mp_hist_missing__no_file__share_reported(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 1);
	add(&f, 0, 1, 0x4014fb, 1, 3);
	add(&f, 0, 1, 0x7f0000000010, 1, 1);
	struct mp_hist_missing *m;
	long n = mp_hist_missing(f.h, f.s, 1, &m);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].dso, "libfoo.so");
	assert_int_equal(m[0].no_symbols, 1);
	assert_true(m[0].pct[0] > 24.99 && m[0].pct[0] < 25.01);
	free(m);
	rm(&f);
}

static void mp_hist_parse_sort__table(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		int rc;
		unsigned keys;
		int line;
	} t[] = {
		{ "dso,sym", 0, MP_HK_DSO | MP_HK_SYM, __LINE__ },
		{ "srcline", 0, MP_HK_SRCLINE, __LINE__ },
		{ "comm,pid,tid", 0, MP_HK_COMM | MP_HK_PID | MP_HK_TID, __LINE__ },
		{ "symbol,addr", 0, MP_HK_SYM | MP_HK_ADDR, __LINE__ },
		{ "dso,bogus", -EINVAL, 0, __LINE__ },
		{ "", -EINVAL, 0, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		unsigned k = 0;
		struct mp_err err = { 0 };
		int rc = mp_hist_parse_sort(t[i].in, &k, &err);
		if (rc != t[i].rc || (!rc && k != t[i].keys))
			fail_msg("line %d: '%s' rc %d keys %#x", t[i].line, t[i].in, rc, k);
		if (rc && (!strstr(t[i].in, "bogus")) != (!strstr(err.msg, "bogus")))
			fail_msg("line %d: message '%s'", t[i].line, err.msg);
	}
}


static void mp_ann_new__x86_main__lines_sum_to_total(void **state)
{
	(void)state;
	struct fixture f;
	mk(&f, 1);
	add(&f, 0, 1, 0x4014fb, 1, 3); /* vector.cpp:10 */
	add(&f, 0, 1, 0x401520, 1, 4); /* stl_vector.h:95, inlined */
	add(&f, 0, 1, 0x418794, 1, 5); /* another function */
	struct mp_err err = { 0 };
	mp_ann *a = mp_ann_new(f.h, f.s, "vector_static_gcc_v9.1.0", "main", 0, &err);
	assert_non_null(a);
	const struct mp_ann_info *in = mp_ann_info(a);
	assert_int_equal(in->start, 0x4014e0);
	assert_int_equal(in->size, 0x149);
	assert_int_equal(in->total[0].samples, 7);
	assert_int_equal(in->evtotal[0].samples, 12);
	assert_true(in->has_debuginfo);
	assert_non_null(strstr(in->srcfile, "vector.cpp"));
	/* every instruction of main, in order, x86-64 */
	size_t ni = mp_ann_ninsns(a);
	assert_true(ni > 20);
	assert_int_equal(mp_ann_insn(a, 0)->addr, 0x4014e0);
	uint64_t isum = 0;
	for (size_t i = 0; i < ni; i++) {
		isum += mp_ann_insn(a, i)->c[0].samples;
		if (i)
			assert_true(mp_ann_insn(a, i)->addr > mp_ann_insn(a, i - 1)->addr);
	}
	assert_int_equal(isum, 7);
	/* objdump: 4014ef: sub $0x40,%rsp */
	int found = 0;
	for (size_t i = 0; i < ni; i++)
		if (mp_ann_insn(a, i)->addr == 0x4014ef)
			found = !strcmp(mp_ann_insn(a, i)->text, "sub rsp, 0x40");
	assert_true(found);
	uint64_t lsum = 0;
	int hot10 = 0, has95 = 0;
	for (size_t i = 0; i < mp_ann_nlines(a); i++) {
		const struct mp_ann_line *l = mp_ann_line(a, i);
		lsum += l->c[0].samples;
		if (l->line == 95 && strstr(l->srcfile, "stl_vector.h")) {
			has95 = 1;
			assert_int_equal(l->c[0].samples, 4);
			assert_int_equal(l->hot, 1); /* the hottest line */
		}
		if (l->line == 10 && strstr(l->srcfile, "vector.cpp")) {
			hot10 = l->hot;
			assert_int_equal(l->c[0].samples, 3);
		}
	}
	assert_int_equal(lsum, 7);
	assert_true(has95);
	assert_false(hot10);
	mp_ann_free(a);

	/* unknown symbol: an error naming it */
	assert_null(mp_ann_new(f.h, f.s, NULL, "no_such_fn", 0, &err));
	assert_non_null(strstr(err.msg, "no_such_fn"));
	rm(&f);
}

/* aarch64: a tiny static program built with the cross compiler when it is installed. */
static void mp_ann_new__aarch64__capstone_arm64(void **state)
{
	(void)state;
	if (system("command -v aarch64-linux-gnu-gcc >/dev/null 2>&1")) {
		skip();
		return;
	}
	char dir[] = "/tmp/test_ann_a64_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[1024], exe[256];
	snprintf(exe, sizeof(exe), "%s/chase", dir);
	snprintf(cmd, sizeof(cmd),
		 "printf 'long chase(long *p, long n)\\n{\\n\\twhile (n--)\\n\\t\\tp = (long *)*p;\\n"
		 "\\treturn (long)p;\\n}\\n' > %s/chase.c && aarch64-linux-gnu-gcc -O2 -g -static "
		 "-nostdlib -Wl,-e,chase -Wl,--build-id -o %s %s/chase.c", dir, exe, dir);
	assert_int_equal(system(cmd), 0);
	struct mp_sym_opts o = { .kallsyms = "/dev/null" };
	struct mp_err err = { 0 };
	mp_sym *s = mp_sym_new(&o, NULL, 0, &err);
	mp_hist *h = mp_hist_new(1);
	struct mp_pd_mmap m = { .pid = 9, .tid = 9, .start = 0x400000, .len = 0x10000,
				.cpumode = PERF_RECORD_MISC_USER, .filename = exe };
	assert_int_equal(mp_sym_mmap(s, &m), 0);
	long di = mp_sym_dso_find(s, "chase");
	assert_true(di >= 0);
	uint64_t st, sz;
	assert_int_equal(mp_sym_lookup_name(s, (size_t)di, "chase", &st, &sz), 0);
	int is64;
	assert_int_equal(mp_sym_machine(s, (size_t)di, &is64), 183 /* EM_AARCH64 */);
	uint32_t map = mp_sym_map_find(s, 9, PERF_RECORD_MISC_USER, st);
	/* find the load and put samples on it */
	mp_ann *a0 = mp_ann_new(h, s, "chase", "chase", 0, &err);
	assert_non_null(a0);
	uint64_t ldr = 0;
	for (size_t i = 0; i < mp_ann_ninsns(a0); i++)
		if (!strncmp(mp_ann_insn(a0, i)->text, "ldr", 3))
			ldr = mp_ann_insn(a0, i)->addr;
	mp_ann_free(a0);
	assert_int_not_equal(ldr, 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(mp_hist_add(h, 0, 9, 9, 0, map, PERF_RECORD_MISC_USER, ldr, 1), 0);
	mp_ann *a = mp_ann_new(h, s, "chase", "chase", 0, &err);
	assert_non_null(a);
	assert_int_equal(mp_ann_info(a)->total[0].samples, 10);
	int hot_line = 0;
	for (size_t i = 0; i < mp_ann_nlines(a); i++)
		if (mp_ann_line(a, i)->hot)
			hot_line = (int)mp_ann_line(a, i)->line;
	assert_int_equal(hot_line, 4); /* p = (long *)*p; */
	mp_ann_free(a);
	mp_hist_free(h);
	mp_sym_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Skid's "the instruction that ran before": branch targets as capstone prints them, and a
 * loop's head taken back to its closing branch, only when that is the one way there. */
static void mp_disasm_came_from__loop_head__closing_branch(void **state)
{
	(void)state;
	static const struct { const char *mn, *op; int ok; uint64_t to; } br[] = {
		{ "jne", "0x8a", 1, 0x8a }, { "jmp", "0x1040", 1, 0x1040 }, { "loop", "0x20", 1, 0x20 },
		{ "jmp", "rax", 0, 0 }, { "jmp", "qword ptr [rip + 0x2fe2]", 0, 0 },
		{ "call", "0x1030", 0, 0 }, { "ret", "", 0, 0 }, { "mov", "rcx, 0x10", 0, 0 },
		{ "b.ne", "#0x40", 1, 0x40 }, { "b", "#0x7c", 1, 0x7c }, { "cbz", "x0, #0x1c", 1, 0x1c },
		{ "tbnz", "w1, #3, #0x20", 1, 0x20 }, { "bl", "#0x400", 0, 0 }, { "br", "x16", 0, 0 },
		{ "jne", "0x8a junk", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(br) / sizeof(br[0]); i++) {
		uint64_t to = 0;
		int ok = mp_disasm_branch_to(br[i].mn, br[i].op, &to);
		if (ok != br[i].ok || (ok && to != br[i].to))
			fail_msg("%s %s: %d 0x%llx, want %d 0x%llx", br[i].mn, br[i].op, ok,
				 (unsigned long long)to, br[i].ok, (unsigned long long)br[i].to);
	}
	/* jit_hot: 80 movabs; 8a dec; 8d jne 0x8a; 8f ret */
	struct mp_branches b = { 0 };
	assert_int_equal(mp_branches_add(&b, 0x8d, 0x8a, 0x80, 0x90), 0);
	assert_int_equal(mp_branches_add(&b, 0x8e, 0x1000, 0x80, 0x90), 0); /* out: not kept */
	assert_int_equal(b.n, 1);
	assert_int_equal(mp_disasm_came_from(&b, 0x8a), 0x8d);
	assert_int_equal(mp_disasm_came_from(&b, 0x8d), 0);
	assert_int_equal(mp_disasm_came_from(&b, 0x80), 0);
	mp_branches_fini(&b);
	assert_int_equal(mp_disasm_came_from(&b, 0x8a), 0);
	/* only a forward branch there (a jmp into the loop): the one before in memory may
	 * have run, keep it */
	assert_int_equal(mp_branches_add(&b, 0x70, 0x8a, 0x60, 0xa0), 0);
	assert_int_equal(mp_disasm_came_from(&b, 0x8a), 0);
	/* and with the loop's closing branch too, two ways to the head: unknown */
	assert_int_equal(mp_branches_add(&b, 0x9c, 0x8a, 0x60, 0xa0), 0);
	assert_int_equal(mp_disasm_came_from(&b, 0x8a), 0);
	mp_branches_fini(&b);
	assert_int_equal(mp_branches_add(&b, 0x9c, 0x8a, 0x60, 0xa0), 0);
	assert_int_equal(mp_disasm_came_from(&b, 0x8a), 0x9c);
	mp_branches_fini(&b);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(mp_hist_parse_sort__table),
		cmocka_unit_test(mp_disasm_came_from__loop_head__closing_branch),
		cmocka_unit_test(mp_ann_new__aarch64__capstone_arm64),
	};
	const struct CMUnitTest vector[] = {
		cmocka_unit_test(mp_hist_query__dso_sym__sums_and_order),
		cmocka_unit_test(mp_hist_query__tie__unresolved_after_named),
		cmocka_unit_test(mp_hist_query__srcline_and_filter__lines_of_one_symbol),
		cmocka_unit_test(mp_hist_add__many_samples__memory_bounded_by_places),
		cmocka_unit_test(mp_hist_feed__repeated_samples__same_place_until_the_symbols_change),
		cmocka_unit_test(mp_hist_missing__no_file__share_reported),
		cmocka_unit_test(mp_ann_new__x86_main__lines_sum_to_total),
	};
	int failed = cmocka_run_group_tests(plain, NULL, NULL);
	if (mp_test_fixture(vec_path, sizeof(vec_path), MP_FIXTURE_VECTOR))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(vector, NULL, NULL);
}
