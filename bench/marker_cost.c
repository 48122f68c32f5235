/* marker_cost.c - the cost of the region markers (issue 15, must-show 4).
 *   marker_cost loop ITERS WORK   time a tight loop of ITERS iterations of WORK LCG steps,
 *                                 bare and with a begin/end pair around each iteration;
 *                                 prints "bare_ns marked_ns" per iteration (best of 5), in
 *                                 the thread's CPU time: on a shared machine the wall clock
 *                                 also counts the time other programs hold the CPU, which
 *                                 swamps a difference of 1%
 *   marker_cost pairs N           N begin/end pairs, nothing else; prints ns per pair */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <memprof/marker.h>

static double now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t work(uint64_t x, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "loop")) {
		uint64_t iters = strtoull(argv[2], NULL, 10);
		unsigned w = (unsigned)atoi(argv[3]);
		double best[2] = { 1e300, 1e300 };
		for (int rep = 0; rep < 5; rep++)
			for (int marked = 0; marked < 2; marked++) {
				uint64_t x = 1;
				double t0 = now(CLOCK_THREAD_CPUTIME_ID);
				for (uint64_t i = 0; i < iters; i++) {
					if (marked)
						memprof_region_begin("iter");
					x = work(x, w);
					if (marked)
						memprof_region_end("iter");
				}
				double t = (now(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)iters;
				sink = x;
				if (t < best[marked])
					best[marked] = t;
			}
		printf("%.3f %.3f\n", best[0], best[1]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "pairs")) {
		uint64_t n = strtoull(argv[2], NULL, 10);
		/* wall time: under memprof a pair mostly waits for the collector */
		double t0 = now(CLOCK_MONOTONIC);
		for (uint64_t i = 0; i < n; i++) {
			memprof_region_begin("pair");
			memprof_region_end("pair");
		}
		printf("%.1f\n", (now(CLOCK_MONOTONIC) - t0) / (double)n);
		return memprof_markers_active() ? 0 : 3;
	}
	fprintf(stderr, "usage: marker_cost loop ITERS WORK | pairs N\n");
	return 2;
}
