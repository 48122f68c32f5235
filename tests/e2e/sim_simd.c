/* sim_simd.c - four threads reading and writing one 4 MB array at pseudo-random places,
 * each from its own seed: every simulated core's L2 misses, evicts and has lines taken
 * away by the others' writes (invalid entries above valid ones), with counts that depend
 * only on the program. sim_simd.sh runs it under mpsim with its AVX2 set lookup and
 * without. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_four.h"

#define WORDS (1u << 19)
static long *shared;
static unsigned long steps;

__attribute__((noinline)) static long mix(unsigned seed)
{
	unsigned x = seed * 2654435761u + 1;
	long s = 0;
	for (unsigned long i = 0; i < steps; i++) {
		x = x * 1103515245u + 12345u;
		unsigned k = (x >> 8) % WORDS;
		if (x & 0x10000)
			shared[k] += (long)i; /* a write: the other cores' copies go */
		else
			s += shared[k];
	}
	return s;
}

static void *run(void *arg)
{
	return (void *)(intptr_t)mix((unsigned)(uintptr_t)arg);
}

int main(int argc, char **argv)
{
	steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	shared = calloc(WORDS, sizeof(*shared));
	if (!shared)
		return 1;
	long sum;
	if (four_threads(run, 1, &sum))
		return 1;
	printf("done %lu %ld\n", steps, sum);
	return 0;
}
