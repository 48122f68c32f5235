/* An inlined helper far above the function that inlines it, an unrelated function between
 * them (its lines say OTHER): annotate work shows the helper's lines and work's, not the
 * others (tests/e2e/annotate_inline_span.sh). */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) long helper(const long *v, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += v[i] * 3;
	return s;
}

/* OTHER: an unrelated function between the helper and the function */
__attribute__((noinline)) long other(long x)
{
	long r = 1; /* OTHER */
	for (long i = 0; i < x; i++) /* OTHER */
		r = r * 7 + i; /* OTHER */
	return r; /* OTHER */
}
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */
/* OTHER */

__attribute__((noinline)) long work(long *v, long n, long reps)
{
	long t = 0;
	for (long r = 0; r < reps; r++) {
		v[r % n] = r;
		t += helper(v, n);
	}
	return t;
}

int main(int argc, char **argv)
{
	long n = 1000, reps = argc > 1 ? atol(argv[1]) : 200;
	long *v = calloc(n, sizeof(long));
	printf("%ld %ld\n", work(v, n, reps), other(3));
	free(v);
	return 0;
}
