/* Unit tests for the comparison of recordings: mp_hist_merge (places matched by name, counts
 * summed per group), mp_ratio_change and mp_ratio_share_change (intervals, significance),
 * and the archive's tar reader refusing members outside its folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_analyzer.h"
#include "mp_ratios.h"

/* A query result of rows (dso, sym) with one attr's samples and periods. */
static void mkres(struct mp_hist_result *r, size_t n, const char *const *dso,
		  const char *const *sym, const uint64_t *smp)
{
	r->nrows = n;
	r->nattrs = 1;
	r->rows = calloc(n, sizeof(*r->rows));
	r->counts = calloc(n, sizeof(*r->counts));
	assert_non_null(r->rows);
	for (size_t i = 0; i < n; i++) {
		r->rows[i].dso = dso[i];
		r->rows[i].sym = sym[i];
		r->rows[i].level = '.';
		r->counts[i] = (struct mp_hist_counts){ smp[i], smp[i] * 1000 };
		r->rows[i].c = &r->counts[i];
	}
}

static const struct mp_hist_counts *at(const struct mp_hist_merged *m, const char *sym, size_t g)
{
	for (size_t r = 0; r < m->nrows; r++)
		if (!strcmp(m->rows[r].sym, sym))
			return m->counts + (r * m->ngroups + g) * m->ncols;
	return NULL;
}

static void mp_hist_merge__two_builds__matched_by_name_and_summed(void **state)
{
	(void)state;
	/* the same program in two builds: walk at another address, but the same name; a and
	 * b form the base side, c the new side */
	static const char *const da[] = { "prog", "libc.so.6" }, *const sa[] = { "walk", "memset" };
	static const char *const db[] = { "prog" }, *const sb[] = { "walk" };
	static const char *const dc[] = { "libc.so.6", "prog", "prog" },
			  *const sc[] = { "memset", "walk", "main" };
	static const uint64_t na[] = { 10, 5 }, nb[] = { 7 }, nc[] = { 1, 20, 3 };
	struct mp_hist_result res[3] = { 0 };
	mkres(&res[0], 2, da, sa, na);
	mkres(&res[1], 1, db, sb, nb);
	mkres(&res[2], 3, dc, sc, nc);
	const size_t group[] = { 0, 0, 1 }, map[] = { 0, 0, 0 };
	struct mp_hist_merged m;
	assert_int_equal(mp_hist_merge(res, 3, group, 2, MP_HK_DSO | MP_HK_SYM, 1, map, &m), 0);
	assert_int_equal(m.nrows, 3);
	assert_int_equal(at(&m, "walk", 0)->samples, 17);
	assert_int_equal(at(&m, "walk", 0)->period, 17000);
	assert_int_equal(at(&m, "walk", 1)->samples, 20);
	assert_int_equal(at(&m, "memset", 0)->samples, 5);
	assert_int_equal(at(&m, "memset", 1)->samples, 1);
	assert_int_equal(at(&m, "main", 0)->samples, 0);
	assert_int_equal(at(&m, "main", 1)->samples, 3);
	mp_hist_merged_fini(&m);
	/* by object alone the symbols fold */
	assert_int_equal(mp_hist_merge(res, 3, group, 2, MP_HK_DSO, 1, map, &m), 0);
	assert_int_equal(m.nrows, 2);
	mp_hist_merged_fini(&m);
	for (int i = 0; i < 3; i++)
		mp_hist_result_fini(&res[i]);
}

static void mp_ratio_change__intervals__quadrature_and_significance(void **state)
{
	(void)state;
	struct mp_ratio_value a = { .defined = 1, .value = 0.10, .lo = 0.07, .hi = 0.13 };
	struct mp_ratio_value b = { .defined = 1, .value = 0.20, .lo = 0.16, .hi = 0.24 };
	struct mp_ratio_change ch;
	assert_int_equal(mp_ratio_change(&a, &b, &ch), 0);
	/* half-widths 0.03 and 0.04: 0.05 */
	assert_true(fabs(ch.delta - 0.10) < 1e-12);
	assert_true(fabs(ch.lo - 0.05) < 1e-12 && fabs(ch.hi - 0.15) < 1e-12);
	assert_true(ch.significant);
	assert_false(ch.exact);
	/* overlapping enough: not significant */
	b.value = 0.14, b.lo = 0.10, b.hi = 0.18;
	assert_int_equal(mp_ratio_change(&a, &b, &ch), 0);
	assert_false(ch.significant);
	/* a lower bound clipped at 0 does not shrink the interval: the upper half is used */
	struct mp_ratio_value z = { .defined = 1, .value = 0.01, .lo = 0, .hi = 0.05 };
	assert_int_equal(mp_ratio_change(&z, &z, &ch), 0);
	assert_true(fabs(ch.hi - sqrt(2) * 0.04) < 1e-12);
	/* exact values: any change is significant, none is not */
	struct mp_ratio_value e1 = { .defined = 1, .value = 0.5, .lo = 0.5, .hi = 0.5, .exact = 1 };
	struct mp_ratio_value e2 = e1;
	e2.value = e2.lo = e2.hi = 0.5000001;
	assert_int_equal(mp_ratio_change(&e1, &e2, &ch), 0);
	assert_true(ch.exact && ch.significant && ch.lo == ch.hi);
	assert_int_equal(mp_ratio_change(&e1, &e1, &ch), 0);
	assert_false(ch.significant);
	e2.defined = 0;
	assert_int_equal(mp_ratio_change(&e1, &e2, &ch), -1);
}

static void mp_ratio_share_change__binomial__known_values(void **state)
{
	(void)state;
	struct mp_ratio_change ch;
	/* 0.5 of 100 against 0.6 of 100: sd sqrt(0.25/100 + 0.24/100) = 0.07, 1.96 sd = 0.1372 */
	assert_int_equal(mp_ratio_share_change(0.5, 100, 0.6, 100, &ch), 0);
	assert_true(fabs(ch.hi - ch.lo - 2 * 1.96 * 0.07) < 1e-9);
	assert_false(ch.significant);
	assert_int_equal(mp_ratio_share_change(0.5, 10000, 0.6, 10000, &ch), 0);
	assert_true(ch.significant);
	assert_int_equal(mp_ratio_share_change(0.5, 0, 0.6, 10, &ch), -1);
}

/* xorshift64*: the same draws on every run */
static double uniform(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return (double)((*x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* Two recordings of one workload are two draws of the same proportions: at the 95% level
 * about 5% of the places may be flagged. Each place's share drawn 4000 times on each side
 * (n = 1000 samples, a place with share p gets Binomial(n, p) of them): the rate of flags
 * stays between 3% and 7% for shares from 0.5 down to 0.02 (20 samples expected). */
static void mp_ratio_share_change__same_proportions__about_5_percent_flagged(void **state)
{
	(void)state;
	static const double shares[] = { 0.5, 0.2, 0.05, 0.02 };
	const uint64_t n = 1000;
	const int trials = 4000;
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	for (size_t k = 0; k < sizeof(shares) / sizeof(shares[0]); k++) {
		int flagged = 0;
		for (int t = 0; t < trials; t++) {
			uint64_t c[2] = { 0, 0 };
			for (int side = 0; side < 2; side++)
				for (uint64_t i = 0; i < n; i++)
					c[side] += uniform(&x) < shares[k];
			struct mp_ratio_change ch;
			assert_int_equal(mp_ratio_share_change((double)c[0] / (double)n, n,
							       (double)c[1] / (double)n, n, &ch),
					 0);
			flagged += ch.significant;
		}
		double rate = (double)flagged / trials;
		print_message("share %.2f: %d of %d pairs flagged (%.1f%%)\n", shares[k], flagged,
			      trials, 100 * rate);
		assert_true(rate > 0.03 && rate < 0.07);
	}
}

static void mp_archive_extract__member_outside__refused(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_diff.XXXXXX", tar[4096];
	assert_non_null(mkdtemp(dir));
	snprintf(tar, sizeof(tar), "%s/evil.tar", dir);
	/* one ustar header naming ../x */
	unsigned char h[1024] = { 0 };
	strcpy((char *)h, "../x");
	memcpy(h + 100, "0000644", 7);
	memcpy(h + 124, "00000000000", 11);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	FILE *f = fopen(tar, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
	struct mp_err err = { 0 };
	char out[4096];
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(mkdir(out, 0755), 0);
	assert_int_equal(mp_archive_extract(tar, out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "outside"));
	/* a bad checksum is not a tar */
	h[0] = 'y';
	f = fopen(tar, "w");
	fwrite(h, 1, sizeof(h), f);
	fclose(f);
	assert_int_equal(mp_archive_extract(tar, out, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "checksum"));
	assert_int_equal(mp_archive_remove_tree(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mp_hist_merge__two_builds__matched_by_name_and_summed),
		cmocka_unit_test(mp_ratio_change__intervals__quadrature_and_significance),
		cmocka_unit_test(mp_ratio_share_change__binomial__known_values),
		cmocka_unit_test(mp_ratio_share_change__same_proportions__about_5_percent_flagged),
		cmocka_unit_test(mp_archive_extract__member_outside__refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
