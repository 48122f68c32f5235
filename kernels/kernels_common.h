/* Small helpers shared by the benchmark kernels (header-only, no library). */
#ifndef KERNELS_COMMON_H
#define KERNELS_COMMON_H

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every kernel answers --help as it answers -h (getopt_long with this table). */
static const struct option kern_long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static inline double kern_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parse an unsigned number with an optional K/M/G suffix (powers of 1024). */
static inline int kern_parse_size(const char *prog, const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || s[0] == '-') {
		fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s ? s : "");
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s);
	return -1;
}

static inline int kern_parse_double(const char *prog, const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || v < 0) {
		fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

/* xorshift64*: a deterministic generator so that runs are repeatable. */
static inline uint64_t kern_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* likely()/unlikely(): __builtin_expect, or with -DDEBUGPRED the counts memprof predict reads
 * (build/kernels/predict/). Last, so that no kernel line moves. */
#include <memprof/debugpred.h>

#endif
