/* uselib - a program with its own shared library (libwork.so): half its time in the
 * library's work_mix, half in its own sum_local.
 * usage: uselib REPS */
#include <stdio.h>
#include <stdlib.h>

#include "libwork.h"

#define N 4096

__attribute__((noinline)) static double sum_local(const double *v, long n, long reps)
{
	double s = 0;

	for (long r = 0; r < reps; r++)
		for (long i = 0; i < n; i++)
			s += v[i] / (double)(r + 1);
	return s;
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 0;
	static double v[N];

	if (reps <= 0) {
		fprintf(stderr, "usage: uselib REPS\n");
		return 2;
	}
	for (long i = 0; i < N; i++)
		v[i] = (double)(i % 7);
	printf("%g\n", work_mix(v, N, reps) + sum_local(v, N, reps));
	return 0;
}
