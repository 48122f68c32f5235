/* pltcall - calls through the PLT (malloc, free, clock_gettime) and into the vDSO
 * (clock_gettime) in a loop: samples land in PLT stubs and in [vdso]. clock_gettime runs
 * every 16th iteration: called every time, the vDSO's clock read took 79% of the samples
 * and the PLT stubs 1 to 8 of 15,000 (none in 3 runs in a row under load); so, about 130
 * of 5,000 are in the PLT and 700 in [vdso].
 * usage: pltcall ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static char *volatile sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	long s = 0;
	struct timespec ts;

	if (n <= 0) {
		fprintf(stderr, "usage: pltcall ITERATIONS\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		char *p = malloc(16 + (size_t)(i & 63));
		p[0] = (char)i;
		sink = p;
		s += labs(p[0]);
		free(sink);
		if (!(i & 15)) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			s += ts.tv_nsec & 1;
		}
	}
	printf("%ld\n", s);
	return 0;
}
