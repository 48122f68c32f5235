/* matmul - the matrix multiplication of Drepper's section 6.2.1 and appendix 9.1, in four
 * versions: naive (mul2 walked down its columns), transposed (both operands read along
 * rows), blocked (CLS-wide blocks with SSE2 and a non-temporal prefetch: 9.1) and scalar
 * (the same blocks without SSE2: 6.2.1's sub-matrix form). CLS is the machine's
 * coherency_line_size. Every result is compared entry by entry with the naive product
 * (computed once, untimed, when naive is not run); the naive product's sampled entries
 * with dot products. (Lines 1-56 keep their numbers: older recordings stay annotated.)
 */
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <getopt.h>
#include <math.h>

#include <memprof/marker.h>

#include "kernels_common.h"

#define CLS_DEFAULT 64 /* when the machine does not say */
/* SM, the doubles per cache line, is CLS / 8 at run time (machine_cls, --cls) */

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

/* The line size the blocks follow: cpu0's L1 data cache coherency_line_size, else glibc's
 * LEVEL1_DCACHE_LINESIZE, else 64. *from names the source. */
static int machine_cls(const char **from)
{
	static const char path[] = "/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size";
	FILE *f = fopen(path, "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	if (v > 0) {
		*from = path;
		return v;
	}
	long l = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	if (l > 0) {
		*from = "sysconf(_SC_LEVEL1_DCACHE_LINESIZE)";
		return (int)l;
	}
	*from = "default (the machine does not say)";
	return CLS_DEFAULT;
}

/* The 9.1 loop nest for sm doubles per line; inlined with a constant sm (8: 64-byte lines,
 * 16: 128-byte lines) so that the inner loops unroll as the article's fixed SM lets them. */
static inline __attribute__((always_inline)) void blocked_body(double *restrict res,
							       const double *restrict mul1,
							       const double *restrict mul2, int n,
							       int sm)
{
	memset(res, 0, (size_t)n * n * sizeof(double));
	for (int i = 0; i < n; i += sm)
		for (int j = 0; j < n; j += sm)
			for (int k = 0; k < n; k += sm) {
				double *rres = &res[(size_t)i * n + j];
				const double *rmul1 = &mul1[(size_t)i * n + k];
				for (int i2 = 0; i2 < sm; ++i2, rres += n, rmul1 += n) {
#ifdef __SSE2__
					_mm_prefetch((const char *)&rmul1[8], _MM_HINT_NTA);
#else
					__builtin_prefetch(&rmul1[8], 0, 0);
#endif
					const double *rmul2 = &mul2[(size_t)k * n + j];
					for (int k2 = 0; k2 < sm; ++k2, rmul2 += n) {
#ifdef __SSE2__
						__m128d m1d = _mm_load_sd(&rmul1[k2]);
						m1d = _mm_unpacklo_pd(m1d, m1d);
						for (int j2 = 0; j2 < sm; j2 += 2) {
							__m128d m2 = _mm_load_pd(&rmul2[j2]);
							__m128d r2 = _mm_load_pd(&rres[j2]);
							_mm_store_pd(&rres[j2], _mm_add_pd(_mm_mul_pd(m2, m1d), r2)); /* HOT: inner loop */
						}
#else
						/* Same blocking without SSE2 (other architectures). */
						double m1 = rmul1[k2];
						for (int j2 = 0; j2 < sm; j2++)
							rres[j2] += rmul2[j2] * m1; /* HOT: inner loop */
#endif
					}
				}
			}
}

__attribute__((noinline)) void mm_blocked(double *restrict res, const double *restrict mul1,
					  const double *restrict mul2, int n, int sm)
{
	if (sm == 8)
		blocked_body(res, mul1, mul2, n, 8);
	else if (sm == 16)
		blocked_body(res, mul1, mul2, n, 16);
	else
		blocked_body(res, mul1, mul2, n, sm);
}

/* Section 6.2.1's sub-matrix form, scalar: the blocks of mm_blocked without SSE2 and
 * without the prefetch, as the article writes it before vectorising. The compiler must not
 * vectorise it either (GCC does at -O2 since version 12). */
static inline __attribute__((always_inline, optimize("no-tree-vectorize"))) void scalar_body(double *restrict res,
							      const double *restrict mul1,
							      const double *restrict mul2, int n,
							      int sm)
{
	memset(res, 0, (size_t)n * n * sizeof(double));
	for (int i = 0; i < n; i += sm)
		for (int j = 0; j < n; j += sm)
			for (int k = 0; k < n; k += sm) {
				double *rres = &res[(size_t)i * n + j];
				const double *rmul1 = &mul1[(size_t)i * n + k];
				for (int i2 = 0; i2 < sm; ++i2, rres += n, rmul1 += n) {
					const double *rmul2 = &mul2[(size_t)k * n + j];
					for (int k2 = 0; k2 < sm; ++k2, rmul2 += n)
						for (int j2 = 0; j2 < sm; ++j2)
							rres[j2] += rmul1[k2] * rmul2[j2]; /* HOT: inner loop */
				}
			}
}

__attribute__((noinline, optimize("no-tree-vectorize"))) void
mm_scalar(double *restrict res, const double *restrict mul1, const double *restrict mul2, int n,
	  int sm)
{
	if (sm == 8)
		scalar_body(res, mul1, mul2, n, 8);
	else if (sm == 16)
		scalar_body(res, mul1, mul2, n, 16);
	else
		scalar_body(res, mul1, mul2, n, sm);
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
		"usage: matmul [-N SIZE] [-a ALGO[,ALGO...]] [-r REPEATS]\n"
		"              [--cls BYTES] [--node N]\n"
		"Multiply two SIZE x SIZE matrices of doubles and print the time per product.\n"
		"  -N SIZE      matrix size, a multiple of CLS/8 (default 256)\n"
		"  -a ALGO[,ALGO...]  naive, transposed, blocked (SSE2 on x86), scalar (the same\n"
		"               blocks without SSE2: section 6.2.1), or all = naive,transposed,\n"
		"               blocked (default all)\n"
		"  -r REPEATS   products per algorithm (default 1)\n"
		"  --cls BYTES  block width in bytes (default: the machine's coherency_line_size)\n"
		"  --node N     put the matrices on NUMA node N (mbind) and print where they went\n"
		"  -h, --help   this help\n"
		"Every result is compared entry by entry with the naive product.\n");
}

#define N_ALGOS 4
static const char *const algo_names[N_ALGOS] = { "naive", "transposed", "blocked", "scalar" };

int main(int argc, char **argv)
{
	uint64_t n64 = 256, reps = 1, cls64 = 0;
	int algo = 7, opt, node = -1; /* algo bits: 1 naive, 2 transposed, 4 blocked, 8 scalar */
	static const struct option long_opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "node", required_argument, NULL, KERN_OPT_NODE },
		{ "cls", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};

	while ((opt = getopt_long(argc, argv, "N:a:r:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'N': if (kern_parse_size("matmul", "-N", optarg, &n64)) return 2; break;
		case 'r': if (kern_parse_size("matmul", "-r", optarg, &reps)) return 2; break;
		case 'C': if (kern_parse_size("matmul", "--cls", optarg, &cls64)) return 2; break;
		case 'a':
			algo = 0;
			for (const char *p = optarg; *p;) {
				size_t l = strcspn(p, ",");
				int bit = 0;
				for (int k = 0; k < N_ALGOS; k++)
					if (strlen(algo_names[k]) == l && !strncmp(p, algo_names[k], l))
						bit = 1 << k;
				if (l == 3 && !strncmp(p, "all", 3))
					bit = 7;
				if (!bit) {
					fprintf(stderr, "matmul: -a: unknown algorithm '%.*s' (naive, transposed, blocked, scalar, all, or a comma list)\n", (int)l, p);
					return 2;
				}
				algo |= bit;
				p += l + (p[l] == ',');
			}
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
	const char *cls_from = "--cls";
	int cls = cls64 ? (int)(cls64 > 4096 ? 0 : cls64) : machine_cls(&cls_from);
	if (cls < 16 || cls > 4096 || cls % 16) {
		fprintf(stderr, "matmul: CLS %d (%s): a multiple of 16 bytes up to 4096 (two doubles per SSE2 step)\n",
			cls64 ? (int)(cls64 > 4096 ? 4097 : cls64) : cls, cls_from);
		return 2;
	}
	const int sm = cls / (int)sizeof(double); /* doubles per cache line: the article's SM */
	if (n64 == 0 || n64 % (uint64_t)sm || n64 > 8192) {
		fprintf(stderr, "matmul: -N %llu: must be a multiple of %d between %d and 8192\n",
			(unsigned long long)n64, sm, sm);
		return 2;
	}
	if (reps == 0)
		reps = 1;
	printf("matmul: CLS=%d bytes (%s), blocks of %d doubles\n", cls, cls_from, sm);
	int n = (int)n64;
	size_t bytes = (size_t)n * n * sizeof(double);
	double *m1 = kern_alloc(bytes, node), *m2 = kern_alloc(bytes, node);
	double *r[N_ALGOS] = { kern_alloc(bytes, node), kern_alloc(bytes, node),
			       kern_alloc(bytes, node), kern_alloc(bytes, node) };
	double *tmp = kern_alloc(bytes, node);
	if (unlikely(!m1 || !m2 || !r[0] || !r[1] || !r[2] || !r[3] || !tmp)) {
		fprintf(stderr, "matmul: cannot allocate 7 matrices of %zu bytes\n", bytes);
		return 1;
	}
	init(m1, m2, n);
	if (node >= 0 && (kern_report_node("matmul", "matrix 1", m1, bytes, node) ||
			  kern_report_node("matmul", "matrix 2", m2, bytes, node)))
		return 1;
	const char *const *names = algo_names;
	for (int a = 0; a < N_ALGOS; a++) {
		if (!(algo & (1 << a)))
			continue;
		double t0 = kern_now();
		memprof_region_begin(names[a]); /* one region per algorithm (memprof --regions) */
		for (uint64_t rep = 0; rep < reps; rep++) {
			if (a == 0) mm_naive(r[0], m1, m2, n);
			else if (a == 1) mm_transposed(r[1], m1, m2, tmp, n);
			else if (a == 2) mm_blocked(r[2], m1, m2, n, sm);
			else mm_scalar(r[3], m1, m2, n, sm);
		}
		memprof_region_end(names[a]);
		double t = (kern_now() - t0) / (double)reps;
		printf("matmul: %-10s N=%d %.6f s per product\n", names[a], n, t);
#ifdef MATMUL_FAULT_BLOCK
		/* tests/kernels.cmake's matmul_fault: one wrong block of every blocked result */
		if (a >= 2)
			r[a][(size_t)(sm + 3) * n + 2 * sm + 5] += 1.0;
#endif
	}
	/* The naive product is the reference: its sampled entries against dot products, and
	 * every other result against it, entry by entry (a wrong block fails the run). */
	if (!(algo & 1))
		mm_naive(r[0], m1, m2, n);
	if (!spot_check(names[0], r[0], m1, m2, n))
		return 1;
	for (int a = 1; a < N_ALGOS; a++) {
		char what[64];
		snprintf(what, sizeof what, "naive and %s", names[a]);
		if ((algo & (1 << a)) && !compare(what, r[0], r[a], n))
			return 1;
	}
	kern_free(m1, bytes, node); kern_free(m2, bytes, node); kern_free(tmp, bytes, node);
	for (int a = 0; a < N_ALGOS; a++)
		kern_free(r[a], bytes, node);
	return 0;
}
