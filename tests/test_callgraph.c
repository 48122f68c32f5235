/* Unit tests for mp_cg_*: stacks aggregated by distinct chain, children and self counted
 * once per sample, perf's caller/callee trees, stack iteration, max-stack. Symbols come
 * from ../shared/perfdata/bin/vector_static_gcc_v9.1.0 (nm -S: _start 0x401b40,
 * __libc_start_main 0x420410, main 0x4014e0, __cos_fma 0x418790, __sin_fma 0x417f60). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memprof/callgraph.h"
#include "mp_cg_int.h"
#include "mp_test_fixture.h"

#define START 0x401b50ULL
#define LSM 0x420500ULL
#define MAIN 0x401500ULL
#define COS 0x418800ULL
#define SIN 0x418000ULL
#define KERN 0xffffffff81000000ULL

static char vec_path[4096];

struct fx {
	mp_sym *s;
	mp_cg *cg;
};

static void mk(struct fx *f, const struct mp_cg_opts *o)
{
	struct mp_sym_opts so = { .kallsyms = "/dev/null" };
	struct mp_err err = { 0 };
	f->s = mp_sym_new(&so, NULL, 0, &err);
	assert_non_null(f->s);
	struct mp_pd_mmap m = { .pid = 1, .tid = 1, .start = 0x400000, .len = 0xc5000,
				.cpumode = PERF_RECORD_MISC_USER, .filename = vec_path };
	assert_int_equal(mp_sym_mmap(f->s, &m), 0);
	f->cg = mp_cg_new(o);
	assert_non_null(f->cg);
}

static void rm(struct fx *f)
{
	mp_cg_free(f->cg);
	mp_sym_free(f->s);
}

/* chain given root first (easier to read), passed leaf first as the file has it */
static void add(struct fx *f, size_t attr, uint64_t period, int times, size_t n, ...)
{
	uint64_t ips[32];
	va_list ap;
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		ips[n - 1 - i] = va_arg(ap, uint64_t);
	va_end(ap);
	for (int t = 0; t < times; t++)
		assert_int_equal(mp_cg_add(f->cg, f->s, attr, 1, 1, PERF_RECORD_MISC_USER, ips, n,
					   period), 0);
}

static const struct mp_cg_entry *find(const struct mp_cg_table *t, const char *sym)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].f.sym, sym))
			return &t->e[i];
	return NULL;
}

static size_t find_idx(const struct mp_cg_table *t, const char *sym)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->e[i].f.sym, sym))
			return i;
	fail_msg("no entry %s", sym);
	return 0;
}

/* The workload of most tests: 6 samples main>cos, 3 main>sin>cos, 1 main alone, all
 * under _start>__libc_start_main. */
static void workload(struct fx *f)
{
	add(f, 0, 10, 6, 4, START, LSM, MAIN, COS);
	add(f, 0, 10, 3, 5, START, LSM, MAIN, SIN, COS);
	add(f, 0, 10, 1, 3, START, LSM, MAIN);
}

static void mp_cg_table__chains__children_and_self(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	workload(&f);
	assert_int_equal(mp_cg_nr_chains(f.cg), 10);
	assert_int_equal(mp_cg_total(f.cg, 0).samples, 10);
	assert_int_equal(mp_cg_total(f.cg, 0).period, 100);
	assert_int_equal(mp_cg_nstacks(f.cg), 3);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 0, 0, &t), 0);
	assert_int_equal(t.n, 5);
	/* sorted by children: _start, __libc_start_main and main (100) before __cos_fma (90) */
	assert_int_equal(t.e[0].children[0].period, 100);
	assert_int_equal(t.e[2].children[0].period, 100);
	assert_string_equal(t.e[3].f.sym, "__cos_fma");
	assert_string_equal(t.e[4].f.sym, "__sin_fma");
	const struct mp_cg_entry *e = find(&t, "main");
	assert_non_null(e);
	assert_int_equal(e->self[0].samples, 1);
	assert_int_equal(e->children[0].samples, 10);
	assert_string_equal(e->f.dso, "vector_static_gcc_v9.1.0");
	e = find(&t, "__cos_fma");
	assert_int_equal(e->self[0].samples, 9);
	assert_int_equal(e->children[0].samples, 9);
	e = find(&t, "__sin_fma");
	assert_int_equal(e->self[0].samples, 0);
	assert_int_equal(e->children[0].period, 30);
	mp_cg_table_fini(&t);
	rm(&f);
}

static void mp_cg_table__recursion__counted_once_per_sample(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	/* main > sin > main > sin (recursion through two functions) */
	add(&f, 0, 5, 2, 4, MAIN, SIN, MAIN + 4, SIN + 8);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 0, 0, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(find(&t, "main")->children[0].period, 10);
	assert_int_equal(find(&t, "__sin_fma")->children[0].period, 10);
	assert_int_equal(find(&t, "__sin_fma")->self[0].period, 10);
	assert_int_equal(find(&t, "main")->self[0].period, 0);
	mp_cg_table_fini(&t);
	rm(&f);
}

static const struct mp_cg_tnode *child(const mp_cg *cg, const struct mp_cg_tree *tr,
				       uint32_t first, const char *sym)
{
	for (uint32_t n = first; n != UINT32_MAX; n = tr->nodes[n].next)
		if (!strcmp(mp_cg_fn(cg, tr->nodes[n].fn)->sym, sym))
			return &tr->nodes[n];
	fail_msg("no child %s", sym);
	return NULL;
}

static void mp_cg_tree__caller__callees_below_entry(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	workload(&f);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 0, 0, &t), 0);
	struct mp_cg_tree tr;
	struct mp_cg_tree_opts o = { .children = 1 };
	/* main, caller order: its own sample as the whole chain _start>lsm>main, and the
	 * callees below it: main>cos 60, main>sin>cos 30 (perf's rule) */
	assert_int_equal(mp_cg_tree(f.cg, &t, find_idx(&t, "main"), &o, &tr), 0);
	const struct mp_cg_tnode *top = &tr.nodes[tr.first];
	assert_string_equal(mp_cg_fn(f.cg, top->fn)->sym, "main");
	assert_int_equal(top->cumul[0].period, 90);
	assert_int_equal(top->hit[0].period, 0);
	const struct mp_cg_tnode *c = child(f.cg, &tr, top->first_child, "__cos_fma");
	assert_int_equal(c->cumul[0].period, 60);
	assert_int_equal(c->hit[0].period, 60);
	c = child(f.cg, &tr, top->first_child, "__sin_fma");
	assert_int_equal(c->cumul[0].period, 30);
	assert_int_equal(c->hit[0].period, 0);
	/* the second top-level node: the entry's own sample, root first */
	const struct mp_cg_tnode *st = &tr.nodes[top->next];
	assert_string_equal(mp_cg_fn(f.cg, st->fn)->sym, "_start");
	assert_int_equal(st->cumul[0].period, 10);
	assert_int_equal(st->next, UINT32_MAX);
	mp_cg_tree_fini(&tr);

	/* callee order for __cos_fma: its chains toward the roots, leaf first */
	o.callee = 1;
	assert_int_equal(mp_cg_tree(f.cg, &t, find_idx(&t, "__cos_fma"), &o, &tr), 0);
	top = &tr.nodes[tr.first];
	assert_string_equal(mp_cg_fn(f.cg, top->fn)->sym, "__cos_fma");
	assert_int_equal(top->cumul[0].period, 90);
	assert_int_equal(top->next, UINT32_MAX);
	c = child(f.cg, &tr, top->first_child, "main");
	assert_int_equal(c->cumul[0].period, 60);
	c = child(f.cg, &tr, top->first_child, "__sin_fma");
	assert_int_equal(c->cumul[0].period, 30);
	/* siblings sorted by count */
	assert_string_equal(mp_cg_fn(f.cg, tr.nodes[top->first_child].fn)->sym, "main");
	mp_cg_tree_fini(&tr);

	/* --no-children: only the samples where main is the leaf */
	o = (struct mp_cg_tree_opts){ .children = 0 };
	assert_int_equal(mp_cg_tree(f.cg, &t, find_idx(&t, "main"), &o, &tr), 0);
	assert_int_equal(tr.n, 3);
	assert_string_equal(mp_cg_fn(f.cg, tr.nodes[tr.first].fn)->sym, "_start");
	assert_int_equal(tr.nodes[tr.first].cumul[0].period, 10);
	mp_cg_tree_fini(&tr);
	assert_int_equal(mp_cg_tree(f.cg, &t, t.n, &o, &tr), -EINVAL);
	mp_cg_table_fini(&t);
	rm(&f);
}

struct collect {
	char lines[8][256];
	int n;
};

static int collect_fn(void *ctx, const struct mp_cg_stack *st)
{
	struct collect *c = ctx;
	if (c->n == 8)
		return -E2BIG;
	char *p = c->lines[c->n++];
	size_t left = 256;
	for (size_t i = 0; i < st->nframes; i++) {
		int w = snprintf(p, left, "%s%s", i ? ";" : "", st->frames[i].sym);
		p += w;
		left -= (size_t)w;
	}
	snprintf(p, left, " %llu", (unsigned long long)st->c[0].period);
	return 0;
}

static int has_line(const struct collect *c, const char *want)
{
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->lines[i], want))
			return 1;
	return 0;
}

static void mp_cg_foreach_stack__functions__root_first_with_counts(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	workload(&f);
	add(&f, 0, 10, 2, 4, START, LSM, MAIN + 8, COS + 4); /* other addresses, same funcs */
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 1), 0);
	struct collect c = { .n = 0 };
	struct mp_cg_iter_opts o = { 0 };
	assert_int_equal(mp_cg_foreach_stack(f.cg, &o, collect_fn, &c), 0);
	assert_int_equal(c.n, 3);
	assert_true(has_line(&c, "_start;__libc_start_main;main;__cos_fma 80"));
	assert_true(has_line(&c, "_start;__libc_start_main;main;__sin_fma;__cos_fma 30"));
	assert_true(has_line(&c, "_start;__libc_start_main;main 10"));
	/* per address: the two main>cos paths stay apart */
	c.n = 0;
	o.address = 1;
	assert_int_equal(mp_cg_foreach_stack(f.cg, &o, collect_fn, &c), 0);
	assert_int_equal(c.n, 4);
	/* the callback's error stops the walk */
	c.n = 8;
	assert_int_equal(mp_cg_foreach_stack(f.cg, &o, collect_fn, &c), -E2BIG);
	rm(&f);
}

static void mp_cg_add__markers_and_max_stack__cut_as_perf(void **state)
{
	(void)state;
	struct fx f;
	struct mp_cg_opts o = { .max_stack = 2 };
	mk(&f, &o);
	/* kernel part first (leaf first, as in the file), then the user part */
	uint64_t ips[] = { (uint64_t)PERF_CONTEXT_KERNEL, KERN + 0x10,
			   (uint64_t)PERF_CONTEXT_USER, COS, MAIN, LSM, START };
	assert_int_equal(mp_cg_add(f.cg, f.s, 0, 1, 1, PERF_RECORD_MISC_KERNEL, ips, 7, 4), 0);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct collect c = { .n = 0 };
	assert_int_equal(mp_cg_foreach_stack(f.cg, NULL, collect_fn, &c), 0);
	assert_int_equal(c.n, 1);
	/* the leaf-most two addresses: the kernel one (no kallsyms: its address) and cos */
	assert_string_equal(c.lines[0], "__cos_fma;0xffffffff81000010 4");
	rm(&f);

	o.caller_limit = 1;
	mk(&f, &o);
	assert_int_equal(mp_cg_add(f.cg, f.s, 0, 1, 1, PERF_RECORD_MISC_KERNEL, ips, 7, 4), 0);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	c.n = 0;
	assert_int_equal(mp_cg_foreach_stack(f.cg, NULL, collect_fn, &c), 0);
	assert_string_equal(c.lines[0], "_start;__libc_start_main 4");
	/* the sampled address stays the self, as perf's (not the cut chain's last frame) */
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 0, 0, &t), 0);
	const struct mp_cg_entry *lsm = find(&t, "__libc_start_main");
	assert_non_null(lsm);
	assert_int_equal(lsm->self[0].period, 0);
	assert_int_equal(lsm->children[0].period, 4);
	const struct mp_cg_entry *k = find(&t, "0xffffffff81000010");
	assert_non_null(k);
	assert_int_equal(k->self[0].period, 4);
	assert_int_equal(k->children[0].period, 4);
	assert_null(find(&t, "__cos_fma"));
	/* its tree: the cut chain, whose frames do not hold it, is its own (the self) */
	struct mp_cg_tree tr;
	struct mp_cg_tree_opts to = { .children = 1 };
	assert_int_equal(mp_cg_tree(f.cg, &t, (size_t)(k - t.e), &to, &tr), 0);
	assert_int_equal(tr.n, 2);
	assert_string_equal(mp_cg_fn(f.cg, tr.nodes[tr.first].fn)->sym, "_start");
	assert_int_equal(tr.nodes[tr.first].cumul[0].period, 4);
	mp_cg_tree_fini(&tr);
	mp_cg_table_fini(&t);
	rm(&f);
}

static void mp_cg_add__several_attrs__counts_apart(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	add(&f, 0, 10, 1, 2, MAIN, COS);
	add(&f, 2, 7, 3, 2, MAIN, SIN); /* attr 2 first seen late: counts widen */
	add(&f, 0, 10, 1, 2, MAIN, SIN);
	assert_int_equal(mp_cg_nattrs(f.cg), 3);
	assert_int_equal(mp_cg_total(f.cg, 2).period, 21);
	assert_int_equal(mp_cg_total(f.cg, 5).samples, 0);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 2, 0, &t), 0);
	/* sorted by attr 2's children: main (21) then sin (21, by self too) then cos (0) */
	assert_string_equal(t.e[2].f.sym, "__cos_fma");
	const struct mp_cg_entry *e = find(&t, "__sin_fma");
	assert_int_equal(e->self[0].period, 10);
	assert_int_equal(e->self[2].period, 21);
	assert_int_equal(e->children[1].samples, 0);
	assert_int_equal(find(&t, "main")->children[0].period, 20);
	mp_cg_table_fini(&t);
	rm(&f);
}

/* record --sim -g writes 13 events, each first seen after many stacks: every new attr
 * widens the counts while nodes keep coming, and the counts' capacity must stay what was
 * allocated (a stale one let node_get write past the array: report crashed). */
static void mp_cg_add__attrs_widen_between_nodes__counts_stay_in_bounds(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	uint64_t ip = MAIN;
	for (size_t attr = 0; attr < 13; attr++)
		for (int k = 0; k < 11; k++) {
			add(&f, attr, attr + 1, 1, 2, MAIN, ip);
			ip += 4;
			if (malloc_usable_size(f.cg->cnt) < f.cg->capcnt * sizeof(*f.cg->cnt))
				fail_msg("attr %zu, node %zu: room for %zu counts, %zu allocated", attr,
					 f.cg->nnodes, f.cg->capcnt,
					 malloc_usable_size(f.cg->cnt) / sizeof(*f.cg->cnt));
		}
	assert_int_equal(mp_cg_nattrs(f.cg), 13);
	for (size_t attr = 0; attr < 13; attr++)
		assert_int_equal(mp_cg_total(f.cg, attr).period, 11 * (attr + 1));
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 12, 0, &t), 0);
	const struct mp_cg_entry *e = find(&t, "main");
	assert_non_null(e);
	for (size_t attr = 0; attr < 13; attr++)
		assert_int_equal(e->children[attr].period, 11 * (attr + 1));
	mp_cg_table_fini(&t);
	rm(&f);
}

static void mp_cg_add__same_chain_after_mmap__placed_in_new_map(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	add(&f, 0, 1, 2, 2, START, MAIN); /* the second one from the last-chain cache */
	struct mp_pd_mmap m = { .pid = 1, .tid = 1, .start = 0x401400, .len = 0x200,
				.cpumode = PERF_RECORD_MISC_USER, .filename = "/gone/libfoo.so" };
	assert_int_equal(mp_sym_mmap(f.s, &m), 0);
	add(&f, 0, 1, 1, 2, START, MAIN); /* same addresses, main's page now libfoo's */
	assert_int_equal(mp_cg_nr_chains(f.cg), 3);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	struct mp_cg_table t;
	assert_int_equal(mp_cg_table(f.cg, 0, 0, &t), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(find(&t, "main")->self[0].samples, 2);
	assert_int_equal(find(&t, "_start")->children[0].samples, 3);
	int foo = 0;
	for (size_t i = 0; i < t.n; i++)
		foo += !strcmp(t.e[i].f.dso, "libfoo.so") && t.e[i].self[0].samples == 1;
	assert_int_equal(foo, 1);
	mp_cg_table_fini(&t);
	rm(&f);
}

/* report --html to a device that fails every write (/dev/full): one message naming the
 * write's error wherever the first failed flush falls (the page's head, the stacks, the
 * functions, the tail). Where it falls depends on the recording's size: e2e safe_outfile
 * said "cannot write the stacks" once when its stacks crossed the first 4096 bytes. */
static void mp_cg_html_write__device_full__errno_wherever_the_flush_fails(void **state)
{
	(void)state;
	struct fx f;
	mk(&f, NULL);
	workload(&f);
	assert_int_equal(mp_cg_resolve(f.cg, f.s, 0), 0);
	size_t ev[] = { 0 };
	const char *names[] = { "cpu-clock" };
	struct mp_cg_html_opts o = { .path = "page.html", .title = "R.data", .ev = ev,
				     .ev_names = names, .nev = 1 };
	struct mp_err err = { 0 };
	char *page = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&page, &len);
	assert_non_null(m);
	assert_int_equal(mp_cg_html_write(f.cg, &o, m, &err), 0);
	assert_int_equal(fclose(m), 0);
	const char *stacks = strstr(page, "\"stacks\": [\n"), *fns = strstr(page, "],\n\"fns\"");
	assert_non_null(stacks);
	assert_non_null(fns);
	/* the stdio buffer's size is where the first write (and its failure) happens */
	size_t at[] = { 64, (size_t)(stacks - page) + 16, (size_t)(fns - page) + 4, len - 8 };
	assert_true(at[1] < (size_t)(fns - page));
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		FILE *full = fopen("/dev/full", "w");
		if (!full)
			skip();
		char *buf = malloc(at[i]); /* glibc takes the size only with a buffer */
		assert_non_null(buf);
		assert_int_equal(setvbuf(full, buf, _IOFBF, at[i]), 0);
		errno = 0;
		memset(&err, 0, sizeof(err));
		assert_true(mp_cg_html_write(f.cg, &o, full, &err) < 0);
		if (strcmp(err.msg, "page.html: No space left on device"))
			fail_msg("first write at byte %zu of %zu: '%s'", at[i], len, err.msg);
		fclose(full);
		free(buf);
	}
	free(page);
	rm(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_cg_table__chains__children_and_self),
		cmocka_unit_test(mp_cg_table__recursion__counted_once_per_sample),
		cmocka_unit_test(mp_cg_tree__caller__callees_below_entry),
		cmocka_unit_test(mp_cg_foreach_stack__functions__root_first_with_counts),
		cmocka_unit_test(mp_cg_add__markers_and_max_stack__cut_as_perf),
		cmocka_unit_test(mp_cg_add__several_attrs__counts_apart),
		cmocka_unit_test(mp_cg_add__attrs_widen_between_nodes__counts_stay_in_bounds),
		cmocka_unit_test(mp_cg_add__same_chain_after_mmap__placed_in_new_map),
		cmocka_unit_test(mp_cg_html_write__device_full__errno_wherever_the_flush_fails),
	};
	/* every test maps the fixture */
	if (mp_test_fixture(vec_path, sizeof(vec_path), MP_FIXTURE_VECTOR))
		return MP_TEST_SKIP;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
