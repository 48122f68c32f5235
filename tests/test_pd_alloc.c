/* test_pd_alloc.c - the allocation records (MP_HEADER_ALLOC): writer -> reader round trips
 * in a file and in pipe mode (sites interned, records sorted by time and stable, lost
 * counts), and hostile payloads dropped with a warning, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_perfdata.h"
#include "mp_test_pdw.h"

static mp_pdw *new_writer(const char *path)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_PAGE_FAULTS, 1,
					   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID);
	a.use_clockid = 1;
	a.clockid = 1; /* CLOCK_MONOTONIC */
	uint64_t id = 5;
	mp_pdw *w = writer_of(path, &a, id, "page-faults", "page-faults");
	uint64_t r[6];
	struct perf_event_header *h = (void *)r;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(r);
	r[1] = 0x401000;
	r[2] = 7ull << 32 | 7;
	r[3] = 2500;
	r[4] = 0x7000010;
	r[5] = id;
	assert_int_equal(mp_pdw_write(w, r, sizeof(r)), 0);
	return w;
}

static const uint64_t chain_a[] = { 0x401234, 0x401500, 0x402000 };
static const uint64_t chain_b[] = { 0x401300 };

/* Writes: two sites for pid 7 (a repeated), one for pid 8; records out of time order,
 * two with equal times in a known order, and 5 lost. */
static void fill(mp_pdw *w)
{
	uint32_t sa, sb, sa2, sc;
	assert_int_equal(mp_pdw_alloc_site(w, 7, chain_a, 3, &sa), 0);
	assert_int_equal(mp_pdw_alloc_site(w, 7, chain_b, 1, &sb), 0);
	assert_int_equal(mp_pdw_alloc_site(w, 7, chain_a, 3, &sa2), 0);
	assert_int_equal(mp_pdw_alloc_site(w, 8, chain_a, 3, &sc), 0);
	assert_int_equal(sa, sa2);
	assert_int_not_equal(sa, sb);
	assert_int_not_equal(sa, sc);
	struct mp_alloc_rec r[] = {
		{ .time = 3000, .addr = 0x7000000, .kind = MP_ALLOC_FREE, .pid = 7, .tid = 7,
		  .site = MP_ALLOC_NO_SITE },
		{ .time = 1000, .addr = 0x7000000, .size = 4096 * 128, .kind = MP_ALLOC_MALLOC,
		  .pid = 7, .tid = 7, .site = sa },
		{ .time = 2000, .addr = 0x9000000, .size = 64, .kind = MP_ALLOC_REALLOC,
		  .old = 0x8000000, .pid = 7, .tid = 9, .site = sb },
		{ .time = 2000, .addr = 0x9000000, .kind = MP_ALLOC_FREE, .pid = 7, .tid = 9,
		  .site = MP_ALLOC_NO_SITE },
		{ .time = 1500, .pid = 8, .old = 7, .kind = MP_ALLOC_FORK, .site = MP_ALLOC_NO_SITE },
		{ .time = 1600, .addr = 0x100, .size = 10, .pid = 8, .tid = 8, .kind = MP_ALLOC_CALLOC,
		  .site = sc },
	};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		assert_int_equal(mp_pdw_alloc_add(w, &r[i]), 0);
	struct mp_alloc_rec bad = { .time = 1, .kind = 0, .site = MP_ALLOC_NO_SITE };
	assert_int_equal(mp_pdw_alloc_add(w, &bad), -EINVAL);
	bad.kind = MP_ALLOC_MALLOC;
	bad.site = 99;
	assert_int_equal(mp_pdw_alloc_add(w, &bad), -EINVAL);
	mp_pdw_alloc_lost(w, 5);
	assert_int_equal(mp_pdw_alloc_count(w), 6);
}

static void check(const mp_pd *pd)
{
	struct mp_pd_allocs in;
	assert_int_equal(mp_pd_allocs(pd, &in), 0);
	assert_int_equal(in.nr_recs, 6);
	assert_int_equal(in.nr_sites, 3);
	assert_int_equal(in.lost, 5);
	static const uint64_t times[] = { 1000, 1500, 1600, 2000, 2000, 3000 };
	static const uint8_t kinds[] = { MP_ALLOC_MALLOC, MP_ALLOC_FORK, MP_ALLOC_CALLOC,
					 MP_ALLOC_REALLOC, MP_ALLOC_FREE, MP_ALLOC_FREE };
	struct mp_alloc_rec r;
	for (uint64_t i = 0; i < 6; i++) {
		assert_int_equal(mp_pd_alloc_rec(pd, i, &r), 0);
		assert_int_equal(r.time, times[i]);
		assert_int_equal(r.kind, kinds[i]);
	}
	assert_int_equal(mp_pd_alloc_rec(pd, 6, &r), -ERANGE);
	assert_int_equal(mp_pd_alloc_rec(pd, 0, &r), 0);
	assert_int_equal(r.size, 4096 * 128);
	assert_int_equal(r.addr, 0x7000000);
	uint32_t pid, nr;
	const uint64_t *ips;
	assert_int_equal(mp_pd_alloc_site(pd, r.site, &pid, &ips, &nr), 0);
	assert_int_equal(pid, 7);
	assert_int_equal(nr, 3);
	assert_memory_equal(ips, chain_a, sizeof(chain_a));
	assert_int_equal(mp_pd_alloc_rec(pd, 3, &r), 0);
	assert_int_equal(r.old, 0x8000000);
	assert_int_equal(r.tid, 9);
	assert_int_equal(mp_pd_alloc_site(pd, r.site, &pid, &ips, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(ips[0], 0x401300);
	assert_int_equal(mp_pd_alloc_site(pd, 3, &pid, &ips, &nr), -ERANGE);
	assert_string_equal(mp_alloc_kind_name(MP_ALLOC_MEMALIGN), "memalign");
	assert_string_equal(mp_alloc_kind_name(200), "?");
}

static int nsamples(void *ctx, const struct mp_pd_sample *s)
{
	(void)s;
	++*(int *)ctx;
	return 0;
}

static void roundtrip__file__records_by_time_sites_lost(void **state)
{
	(void)state;
	char path[] = "/tmp/mp-pd-alloc-XXXXXX";
	temp_file(path);
	mp_pdw *w = new_writer(path);
	fill(w);
	mp_pd *pd = close_and_open(w, path);
	struct mp_err err = { 0 };
	check(pd);
	int n = 0;
	struct mp_pd_handler h = { .ctx = &n, .sample = nsamples };
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	assert_int_equal(n, 1); /* the samples are untouched */
	mp_pd_close(pd);
	unlink(path);
}

static void roundtrip__pipe__pieces_joined(void **state)
{
	(void)state;
	char path[] = "/tmp/mp-pd-allocp-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stdout);
	int saved = dup(1);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 1), 1);
	close(fd);
	mp_pdw *w = new_writer("-");
	fill(w);
	/* enough records for several 64 KiB pieces */
	for (uint64_t i = 0; i < 5000; i++) {
		struct mp_alloc_rec r = { .time = 5000 + i, .addr = 0x100000 + i * 16, .size = 16,
					  .kind = MP_ALLOC_MALLOC, .pid = 7, .tid = 7,
					  .site = MP_ALLOC_NO_SITE };
		assert_int_equal(mp_pdw_alloc_add(w, &r), 0);
	}
	struct mp_err err = { 0 };
	int rc = mp_pdw_close(w, &err);
	dup2(saved, 1);
	close(saved);
	if (rc)
		fail_msg("%s", err.msg);
	mp_pd *pd = mp_pd_open(path, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	assert_true(mp_pd_is_pipe(pd));
	struct mp_pd_allocs in;
	assert_int_equal(mp_pd_allocs(pd, &in), 0);
	assert_int_equal(in.nr_recs, 5006);
	struct mp_alloc_rec r;
	assert_int_equal(mp_pd_alloc_rec(pd, 5005, &r), 0);
	assert_int_equal(r.time, 5000 + 4999);
	assert_int_equal(r.addr, 0x100000 + 4999 * 16);
	mp_pd_close(pd);
	unlink(path);
}

/* The payload of fill() in memory, for the hostile cases: written to a file and read. */
static uint8_t *file_bytes(size_t *len, size_t *feat_off)
{
	char path[] = "/tmp/mp-pd-allocb-XXXXXX";
	temp_file(path);
	mp_pdw *w = new_writer(path);
	fill(w);
	struct mp_err err = { 0 };
	if (mp_pdw_close(w, &err))
		fail_msg("%s", err.msg);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	uint8_t *b = malloc(*len);
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	unlink(path);
	/* the payload starts with its magic */
	uint64_t m = MP_ALLOC_MAGIC;
	uint8_t *p = memmem(b, *len, &m, 8);
	assert_non_null(p);
	*feat_off = (size_t)(p - b);
	return b;
}

static void hostile__payload_fields__dropped_not_crash(void **state)
{
	(void)state;
	size_t len, off;
	uint8_t *orig = file_bytes(&len, &off);
	uint8_t *b = malloc(len);
	struct { size_t at; uint64_t v; } cases[] = {
		{ 0, 0 },                /* magic */
		{ 8, 8 | 48ull << 32 },  /* header size < 64 */
		{ 8, 64 | 40ull << 32 }, /* record size */
		{ 16, 1ull << 40 },      /* nr_sites */
		{ 24, 7 },               /* nr_recs */
		{ 40, ~0ull },           /* sites_bytes */
		{ 40, 8 },               /* sites_bytes short */
		{ 64 + 4, 1000 },        /* first site's nr */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memcpy(b, orig, len);
		memcpy(b + off + cases[c].at, &cases[c].v, 8);
		struct mp_err err = { 0 };
		mp_pd *pd = mp_pd_open_mem(b, len, "hostile", &err);
		if (!pd)
			fail_msg("case %zu: %s", c, err.msg);
		struct mp_pd_allocs in;
		assert_int_equal(mp_pd_allocs(pd, &in), -ENOENT);
		struct mp_alloc_rec r;
		assert_int_equal(mp_pd_alloc_rec(pd, 0, &r), -ERANGE);
		mp_pd_close(pd);
	}
	/* a record's site out of range reads as no site */
	memcpy(b, orig, len);
	size_t rec0 = len - 6 * sizeof(struct mp_alloc_rec);
	uint32_t bad = 1234;
	memcpy(b + rec0 + offsetof(struct mp_alloc_rec, site), &bad, 4);
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open_mem(b, len, "hostile", &err);
	assert_non_null(pd);
	struct mp_alloc_rec r;
	assert_int_equal(mp_pd_alloc_rec(pd, 0, &r), 0);
	assert_int_equal(r.site, MP_ALLOC_NO_SITE);
	mp_pd_close(pd);
	free(b);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip__file__records_by_time_sites_lost),
		cmocka_unit_test(roundtrip__pipe__pieces_joined),
		cmocka_unit_test(hostile__payload_fields__dropped_not_crash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
