/* test_alloc.c - record --alloc's pieces without a workload: the spool parser (what the
 * preload library writes, good and damaged) and the heap resolution (analyzer/mp_heap.c) on
 * recordings written with known allocation records: the object live at a time (freed and
 * reused addresses), realloc chains, free of unknown addresses, fork and exec, lost frees,
 * queries out of time order, and memory bounded by the live objects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_alloc.h"
#include "mp_analyzer.h"
#include "mp_test_pdw.h"

static char path[64];

static mp_pdw *writer(void)
{
	snprintf(path, sizeof(path), "/tmp/mp-alloc-test-XXXXXX");
	temp_file(path);
	struct perf_event_attr a =
		sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 1,
			PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
	return writer_of(path, &a, 1, "page-faults", "page-faults");
}

static mp_pd *reopen(mp_pdw *w)
{
	mp_pd *pd = close_and_open(w, path);
	unlink(path);
	return pd;
}

static void add(mp_pdw *w, uint64_t t, uint8_t kind, uint32_t pid, uint64_t addr, uint64_t size,
		uint64_t old, uint32_t site)
{
	struct mp_alloc_rec r = { .time = t, .addr = addr, .size = size, .old = old, .pid = pid,
				  .tid = pid, .site = site, .kind = kind };
	assert_int_equal(mp_pdw_alloc_add(w, &r), 0);
}

/* site of the object of pid at addr at time t; -1 when none, -2 for an object without site */
static long site_at(mp_heap *h, uint32_t pid, uint64_t addr, uint64_t t)
{
	struct mp_heap_obj o;
	int rc = mp_heap_find(h, pid, addr, t, &o);
	assert_true(rc >= 0);
	if (!rc)
		return -1;
	return o.site == MP_ALLOC_NO_SITE ? -2 : (long)o.site;
}

static void heap__reuse_realloc_unknown_free__live_object(void **state)
{
	(void)state;
	mp_pdw *w = writer();
	uint32_t s[3];
	uint64_t ips[3] = { 0x1000, 0x2000, 0x3000 };
	for (int i = 0; i < 3; i++)
		assert_int_equal(mp_pdw_alloc_site(w, 10, &ips[i], 1, &s[i]), 0);
	add(w, 100, MP_ALLOC_EXEC, 10, 0, 0, 0, MP_ALLOC_NO_SITE);
	add(w, 200, MP_ALLOC_MALLOC, 10, 0x5000, 100, 0, s[0]);
	add(w, 300, MP_ALLOC_FREE, 10, 0x5000, 0, 0, MP_ALLOC_NO_SITE);
	add(w, 400, MP_ALLOC_MALLOC, 10, 0x5000, 64, 0, s[1]);   /* reused, smaller */
	add(w, 500, MP_ALLOC_REALLOC, 10, 0x9000, 256, 0x5000, s[2]);
	add(w, 550, MP_ALLOC_FREE, 10, 0x7777, 0, 0, MP_ALLOC_NO_SITE); /* unknown */
	add(w, 560, MP_ALLOC_REALLOC, 10, 0xa000, 8, 0x4444, s[2]);     /* unknown old */
	mp_pd *pd = reopen(w);
	mp_heap *h = mp_heap_new(pd);
	assert_non_null(h);
	assert_int_equal(site_at(h, 10, 0x5000, 150), -1);
	assert_int_equal(site_at(h, 10, 0x5000 + 99, 250), s[0]);
	struct mp_heap_obj o;
	assert_int_equal(mp_heap_find(h, 10, 0x5000 + 40, 250, &o), 1);
	assert_int_equal(o.start, 0x5000);
	assert_int_equal(o.size, 100);
	assert_int_equal(o.offset, 40);
	assert_int_equal(o.kind, MP_ALLOC_MALLOC);
	assert_int_equal(site_at(h, 10, 0x5000 + 100, 250), -1); /* one past the end */
	assert_int_equal(site_at(h, 10, 0x5000, 350), -1);       /* freed */
	assert_int_equal(site_at(h, 10, 0x5000 + 10, 450), s[1]);
	assert_int_equal(site_at(h, 10, 0x5000 + 80, 450), -1);  /* past the smaller block */
	assert_int_equal(site_at(h, 11, 0x5000 + 10, 450), -1);  /* another process */
	assert_int_equal(site_at(h, 10, 0x5000 + 10, 510), -1);  /* realloc moved it */
	assert_int_equal(site_at(h, 10, 0x9000 + 200, 510), s[2]);
	assert_int_equal(site_at(h, 10, 0xa000, 600), s[2]);
	const struct mp_heap_stats *st = mp_heap_stats(h);
	assert_int_equal(st->unknown_free, 2);
	assert_int_equal(st->realloc_chained, 1);
	assert_int_equal(st->live, 2);
	/* an earlier time replays from the start: the same answers */
	assert_int_equal(site_at(h, 10, 0x5000 + 99, 250), s[0]);
	assert_int_equal(mp_heap_stats(h)->rewinds, 1);
	mp_heap_free(h);
	mp_pd_close(pd);
}

static void heap__fork_exec_stale__per_process(void **state)
{
	(void)state;
	mp_pdw *w = writer();
	uint32_t s0, s1;
	uint64_t a = 0x1111, b = 0x2222;
	assert_int_equal(mp_pdw_alloc_site(w, 20, &a, 1, &s0), 0);
	assert_int_equal(mp_pdw_alloc_site(w, 21, &b, 1, &s1), 0);
	add(w, 100, MP_ALLOC_MALLOC, 20, 0x10000, 4096, 0, s0);
	add(w, 110, MP_ALLOC_MMAP, 20, 0x40000, 65536, 0, s0);
	add(w, 200, MP_ALLOC_FORK, 21, 0, 0, 20, MP_ALLOC_NO_SITE);
	add(w, 300, MP_ALLOC_FREE, 20, 0x10000, 0, 0, MP_ALLOC_NO_SITE); /* the parent's only */
	add(w, 310, MP_ALLOC_MUNMAP, 21, 0x40000, 65536, 0, MP_ALLOC_NO_SITE);
	/* the child mallocs over the middle of an object whose free was lost */
	add(w, 400, MP_ALLOC_MALLOC, 21, 0x10000 + 2048, 16, 0, s1);
	add(w, 500, MP_ALLOC_EXEC, 20, 0, 0, 0, MP_ALLOC_NO_SITE);
	mp_pd *pd = reopen(w);
	mp_heap *h = mp_heap_new(pd);
	assert_non_null(h);
	assert_int_equal(site_at(h, 21, 0x10000 + 5, 150), -1); /* before the fork */
	assert_int_equal(site_at(h, 21, 0x10000 + 5, 250), s0); /* the child's copy */
	assert_int_equal(site_at(h, 21, 0x40000 + 5, 250), s0);
	assert_int_equal(site_at(h, 20, 0x10000 + 5, 350), -1);
	assert_int_equal(site_at(h, 21, 0x10000 + 5, 350), s0);
	assert_int_equal(site_at(h, 21, 0x40000 + 5, 350), -1); /* munmap'ed in the child */
	assert_int_equal(site_at(h, 20, 0x40000 + 5, 350), s0); /* not in the parent */
	assert_int_equal(site_at(h, 21, 0x10000 + 2050, 450), s1);
	assert_int_equal(site_at(h, 21, 0x10000 + 5, 450), -1); /* the stale object ended */
	assert_int_equal(mp_heap_stats(h)->stale, 1);
	assert_int_equal(site_at(h, 20, 0x40000 + 5, 600), -1); /* exec */
	assert_int_equal(mp_heap_stats(h)->forks, 1);
	assert_int_equal(mp_heap_stats(h)->execs, 1);
	/* the child exits: its objects go */
	assert_int_equal(mp_heap_stats(h)->live, 1);
	assert_int_equal(mp_heap_exit(h, 21, 700), 0);
	assert_int_equal(mp_heap_stats(h)->live, 0);
	assert_int_equal(mp_heap_stats(h)->at_exit, 1);
	assert_int_equal(site_at(h, 21, 0x10000 + 2050, 800), -1);
	mp_heap_free(h);
	mp_pd_close(pd);
}

/* A million malloc/free pairs at one address: the resolution keeps one object. */
static void heap__churn__bounded_by_live_objects(void **state)
{
	(void)state;
	mp_pdw *w = writer();
	uint32_t s;
	uint64_t ip = 0x4242;
	assert_int_equal(mp_pdw_alloc_site(w, 30, &ip, 1, &s), 0);
	for (uint64_t i = 0; i < 1000000; i++) {
		add(w, 10 + 2 * i, MP_ALLOC_MALLOC, 30, 0x8000 + (i & 3) * 64, 64, 0, s);
		add(w, 11 + 2 * i, MP_ALLOC_FREE, 30, 0x8000 + (i & 3) * 64, 0, 0, MP_ALLOC_NO_SITE);
	}
	mp_pd *pd = reopen(w);
	mp_heap *h = mp_heap_new(pd);
	assert_non_null(h);
	struct mp_heap_obj o;
	assert_int_equal(mp_heap_find(h, 30, 0x8000 + 3 * 64 + 5, 10 + 2 * 999999, &o), 1);
	assert_int_equal(o.offset, 5);
	assert_int_equal(mp_heap_find(h, 30, 0x8000, 20000000, &o), 0);
	assert_int_equal(mp_heap_stats(h)->applied, 2000000);
	assert_int_equal(mp_heap_stats(h)->live_max, 1);
	mp_heap_free(h);
	mp_pd_close(pd);
}

/* ---- the spool parser ---- */

static void put_wire(unsigned char *b, size_t *len, uint8_t kind, uint32_t tid, uint64_t t,
		     uint64_t addr, uint64_t size, uint64_t old, const uint64_t *ips, uint8_t nr)
{
	struct mp_alloc_wire r = { (uint16_t)(sizeof(r) + 8u * nr), kind, nr, tid, t, addr, size,
				   old };
	memcpy(b + *len, &r, sizeof(r));
	if (nr)
		memcpy(b + *len + sizeof(r), ips, 8u * nr);
	*len += r.size;
}

static void spool__records_and_damage__parsed_or_stopped(void **state)
{
	(void)state;
	unsigned char b[1024];
	size_t len = 0;
	struct mp_alloc_spool_head hd = { MP_ALLOC_SPOOL_MAGIC, 77, 1 };
	memcpy(b, &hd, sizeof(hd));
	len = sizeof(hd);
	uint64_t ips[2] = { 0xabc, 0xdef };
	put_wire(b, &len, MP_ALLOC_EXEC, 77, 5, 0, 0, 0, ips, 1);
	put_wire(b, &len, MP_ALLOC_MALLOC, 78, 10, 0x1000, 32, 0, ips, 2);
	put_wire(b, &len, MP_ALLOC_LOST, 78, 11, 0, 3, 0, NULL, 0);
	put_wire(b, &len, MP_ALLOC_FREE, 78, 12, 0x1000, 0, 0, ips, 1);
	size_t good = len;
	mp_pdw *w = writer();
	struct mp_alloc_stats st = { 0 };
	assert_int_equal(mp_alloc_spool_parse(b, len, "spool", w, &st), 0);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.lost, 3);
	assert_int_equal(st.files, 1);
	assert_int_equal(st.bad, 0);
	/* damaged: a record cut short, a bad kind, a size that lies, too many frames */
	struct mp_alloc_wire bad = { sizeof(bad), 0, 0, 1, 1, 0, 0, 0 };
	memcpy(b + good, &bad, sizeof(bad));
	assert_int_equal(mp_alloc_spool_parse(b, good + 10, "spool", w, &st), 0);
	assert_int_equal(st.bad, 1);
	assert_int_equal(mp_alloc_spool_parse(b, good + sizeof(bad), "spool", w, &st), 0);
	assert_int_equal(st.bad, 2);
	bad.kind = MP_ALLOC_MALLOC;
	bad.size = 5000;
	memcpy(b + good, &bad, sizeof(bad));
	assert_int_equal(mp_alloc_spool_parse(b, good + sizeof(bad), "spool", w, &st), 0);
	assert_int_equal(st.bad, 3);
	bad.size = sizeof(bad) + 8 * 40;
	bad.nr = 40;
	memcpy(b + good, &bad, sizeof(bad));
	assert_int_equal(mp_alloc_spool_parse(b, good + sizeof(bad), "spool", w, &st), 0);
	assert_int_equal(st.bad, 4);
	hd.magic = 1;
	memcpy(b, &hd, sizeof(hd));
	assert_int_equal(mp_alloc_spool_parse(b, good, "spool", w, &st), 0);
	assert_int_equal(st.bad, 5);
	assert_int_equal(mp_alloc_spool_parse(b, 3, "spool", w, &st), 0);
	assert_int_equal(st.bad, 6);
	assert_int_equal(st.records, 4 * 5); /* the good part of each good file */
	mp_pd *pd = reopen(w);
	struct mp_pd_allocs in;
	assert_int_equal(mp_pd_allocs(pd, &in), 0);
	assert_int_equal(in.nr_recs, 20);
	assert_int_equal(in.lost, 15);
	struct mp_alloc_rec r;
	assert_int_equal(mp_pd_alloc_rec(pd, 0, &r), 0);
	assert_int_equal(r.kind, MP_ALLOC_EXEC);
	assert_int_equal(r.pid, 77);
	assert_int_equal(r.site, MP_ALLOC_NO_SITE);
	assert_int_equal(mp_pd_alloc_rec(pd, 5, &r), 0); /* times 5, 5, 5, 5, 5, 10 */
	assert_int_equal(r.kind, MP_ALLOC_MALLOC);
	assert_int_equal(r.tid, 78);
	assert_int_equal(r.size, 32);
	uint32_t pid, nr;
	const uint64_t *got;
	assert_int_equal(mp_pd_alloc_site(pd, r.site, &pid, &got, &nr), 0);
	assert_int_equal(pid, 77);
	assert_int_equal(nr, 2);
	assert_int_equal(got[1], 0xdef);
	mp_pd_close(pd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(heap__reuse_realloc_unknown_free__live_object),
		cmocka_unit_test(heap__fork_exec_stale__per_process),
		cmocka_unit_test(heap__churn__bounded_by_live_objects),
		cmocka_unit_test(spool__records_and_damage__parsed_or_stopped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
