/* matmul - the matrix multiplication of Drepper's section 6.2.1 and appendix 9.1, in three
 * versions that compute the same product:
 *   naive       res[i][j] += mul1[i][k] * mul2[k][j]   (mul2 walked down its columns)
 *   transposed  mul2 transposed first, so both operands are read along rows
 *   blocked     cache-line-sized blocks with SSE2 and a non-temporal prefetch
 * Each run checks its result: against the other versions with -a all, and otherwise
 * against dot products of sampled entries.
 */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <getopt.h>
#include <math.h>

#include <memprof/marker.h>

#include "kernels_common.h"

#define CLS 64                          /* cache line size */
#define SM (CLS / (int)sizeof(double))  /* doubles per cache line */

static void init(double *m1, double *m2, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			m1[(size_t)i * n + j] = (double)((i * 7 + j * 3) % 17) / 8.0;
			m2[(size_t)i * n + j] = (double)((i * 5 + j * 11) % 13) / 4.0;
		}
}

__attribute__((noinline)) void mm_naive(double *restrict res, const double *restrict mul1,
					const double *restrict mul2, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double sum = 0;
			for (int k = 0; k < n; k++)
				sum += mul1[(size_t)i * n + k] * mul2[(size_t)k * n + j]; /* HOT: inner loop */
			res[(size_t)i * n + j] = sum;
		}
}

__attribute__((noinline)) void mm_transposed(double *restrict res, const double *restrict mul1,
					     const double *restrict mul2, double *restrict tmp, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			tmp[(size_t)i * n + j] = mul2[(size_t)j * n + i];
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double sum = 0;
			for (int k = 0; k < n; k++)
				sum += mul1[(size_t)i * n + k] * tmp[(size_t)j * n + k]; /* HOT: inner loop */
			res[(size_t)i * n + j] = sum;
		}
}

__attribute__((noinline)) void mm_blocked(double *restrict res, const double *restrict mul1,
					  const double *restrict mul2, int n)
{
	memset(res, 0, (size_t)n * n * sizeof(double));
	for (int i = 0; i < n; i += SM)
		for (int j = 0; j < n; j += SM)
			for (int k = 0; k < n; k += SM) {
				double *rres = &res[(size_t)i * n + j];
				const double *rmul1 = &mul1[(size_t)i * n + k];
				for (int i2 = 0; i2 < SM; ++i2, rres += n, rmul1 += n) {
#ifdef __SSE2__
					_mm_prefetch((const char *)&rmul1[8], _MM_HINT_NTA);
#else
					__builtin_prefetch(&rmul1[8], 0, 0);
#endif
					const double *rmul2 = &mul2[(size_t)k * n + j];
					for (int k2 = 0; k2 < SM; ++k2, rmul2 += n) {
#ifdef __SSE2__
						__m128d m1d = _mm_load_sd(&rmul1[k2]);
						m1d = _mm_unpacklo_pd(m1d, m1d);
						for (int j2 = 0; j2 < SM; j2 += 2) {
							__m128d m2 = _mm_load_pd(&rmul2[j2]);
							__m128d r2 = _mm_load_pd(&rres[j2]);
							_mm_store_pd(&rres[j2], _mm_add_pd(_mm_mul_pd(m2, m1d), r2)); /* HOT: inner loop */
						}
#else
						/* Same blocking without SSE2 (other architectures). */
						double m1 = rmul1[k2];
						for (int j2 = 0; j2 < SM; j2++)
							rres[j2] += rmul2[j2] * m1; /* HOT: inner loop */
#endif
					}
				}
			}
}

static int close_enough(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1.0);
}

static int compare(const char *what, const double *a, const double *b, int n)
{
	for (size_t i = 0; i < (size_t)n * n; i++)
		if (unlikely(!close_enough(a[i], b[i]))) {
			fprintf(stderr, "matmul: %s differ at [%zu][%zu]: %.17g vs %.17g\n", what,
				i / (size_t)n, i % (size_t)n, a[i], b[i]);
			return 0;
		}
	return 1;
}

static int spot_check(const char *algo, const double *res, const double *m1, const double *m2, int n)
{
	uint64_t seed = 12345;
	for (int s = 0; s < 64; s++) {
		int i = (int)(kern_rand(&seed) % (uint64_t)n), j = (int)(kern_rand(&seed) % (uint64_t)n);
		double sum = 0;
		for (int k = 0; k < n; k++)
			sum += m1[(size_t)i * n + k] * m2[(size_t)k * n + j];
		if (unlikely(!close_enough(sum, res[(size_t)i * n + j]))) {
			fprintf(stderr, "matmul: %s result wrong at [%d][%d]: %.17g, expected %.17g\n",
				algo, i, j, res[(size_t)i * n + j], sum);
			return 0;
		}
	}
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: matmul [-N SIZE] [-a naive|transposed|blocked|all] [-r REPEATS] [--node N]\n"
		"Multiply two SIZE x SIZE matrices of doubles and print the time per product.\n"
		"  -N SIZE     matrix size, a multiple of %d (default 256)\n"
		"  -a ALGO     naive, transposed, blocked (SSE2), or all (default all)\n"
		"  -r REPEATS  products per algorithm (default 1)\n"
		"  --node N    put the matrices on NUMA node N (mbind) and print where they went\n"
		"  -h, --help  this help\n", SM);
}

int main(int argc, char **argv)
{
	uint64_t n64 = 256, reps = 1;
	int algo = 7, opt, node = -1; /* algo bits: 1 naive, 2 transposed, 4 blocked */

	while ((opt = getopt_long(argc, argv, "N:a:r:h", kern_long_opts, NULL)) != -1) {
		switch (opt) {
		case 'N': if (kern_parse_size("matmul", "-N", optarg, &n64)) return 2; break;
		case 'r': if (kern_parse_size("matmul", "-r", optarg, &reps)) return 2; break;
		case 'a':
			if (!strcmp(optarg, "naive")) algo = 1;
			else if (!strcmp(optarg, "transposed")) algo = 2;
			else if (!strcmp(optarg, "blocked")) algo = 4;
			else if (!strcmp(optarg, "all")) algo = 7;
			else { fprintf(stderr, "matmul: -a: unknown algorithm '%s'\n", optarg); return 2; }
			break;
		case KERN_OPT_NODE: if (kern_parse_node("matmul", optarg, &node)) return 2; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "matmul: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (n64 == 0 || n64 % SM || n64 > 8192) {
		fprintf(stderr, "matmul: -N %llu: must be a multiple of %d between %d and 8192\n",
			(unsigned long long)n64, SM, SM);
		return 2;
	}
	if (reps == 0)
		reps = 1;
	int n = (int)n64;
	size_t bytes = (size_t)n * n * sizeof(double);
	double *m1 = kern_alloc(bytes, node), *m2 = kern_alloc(bytes, node);
	double *r[3] = { kern_alloc(bytes, node), kern_alloc(bytes, node), kern_alloc(bytes, node) };
	double *tmp = kern_alloc(bytes, node);
	if (unlikely(!m1 || !m2 || !r[0] || !r[1] || !r[2] || !tmp)) {
		fprintf(stderr, "matmul: cannot allocate 6 matrices of %zu bytes\n", bytes);
		return 1;
	}
	init(m1, m2, n);
	if (node >= 0 && (kern_report_node("matmul", "matrix 1", m1, bytes, node) ||
			  kern_report_node("matmul", "matrix 2", m2, bytes, node)))
		return 1;
	static const char *const names[3] = { "naive", "transposed", "blocked" };
	for (int a = 0; a < 3; a++) {
		if (!(algo & (1 << a)))
			continue;
		double t0 = kern_now();
		memprof_region_begin(names[a]); /* one region per algorithm (memprof --regions) */
		for (uint64_t rep = 0; rep < reps; rep++) {
			if (a == 0) mm_naive(r[0], m1, m2, n);
			else if (a == 1) mm_transposed(r[1], m1, m2, tmp, n);
			else mm_blocked(r[2], m1, m2, n);
		}
		memprof_region_end(names[a]);
		double t = (kern_now() - t0) / (double)reps;
		printf("matmul: %-10s N=%d %.6f s per product\n", names[a], n, t);
		if (!spot_check(names[a], r[a], m1, m2, n))
			return 1;
	}
	if (algo == 7 && (!compare("naive and transposed", r[0], r[1], n) ||
			  !compare("naive and blocked", r[0], r[2], n)))
		return 1;
	kern_free(m1, bytes, node); kern_free(m2, bytes, node); kern_free(tmp, bytes, node);
	for (int a = 0; a < 3; a++)
		kern_free(r[a], bytes, node);
	return 0;
}
