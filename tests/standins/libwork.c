/* libwork - the shared library of the uselib stand-in: a program with its own .so. */
#include "libwork.h"

__attribute__((noinline)) double work_mix(const double *v, long n, long reps)
{
	double s = 0;

	for (long r = 0; r < reps; r++)
		for (long i = 0; i < n; i++)
			s += v[i] * (double)(r + 1);
	return s;
}
