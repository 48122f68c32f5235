/* sim_reuse.c - a thread that exits while its accesses still wait for another thread's,
 * and a thread created after it (valgrind gives the new one the old one's thread id).
 * wide() runs 64 instructions a block, slow() 3: in virtual time (instructions) the
 * first worker runs far ahead of the slow one within each of valgrind's slices (blocks),
 * so it exits with most of its accesses still held back for the slow one. The third
 * thread runs wide() again. Each thread's instructions are counted whole, wherever they
 * waited: wide()'s Ir is exactly twice one thread's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink[64];

__attribute__((noinline)) static void wide(long n)
{
	for (long i = 0; i < n; i++) {
#define S(k) sink[k] += i;
		S(0) S(1) S(2) S(3) S(4) S(5) S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
		S(16) S(17) S(18) S(19)
	}
}

__attribute__((noinline)) static void slow(long n)
{
	for (long i = 0; i < n; i++)
		sink[32] = i;
}

static void *run_wide(void *arg)
{
	wide((long)arg);
	return NULL;
}

static void *run_slow(void *arg)
{
	slow((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000;
	pthread_t s, a, c;
	if (pthread_create(&s, NULL, run_slow, (void *)(20 * n)) ||
	    pthread_create(&a, NULL, run_wide, (void *)n))
		return 1;
	pthread_join(a, NULL);
	if (pthread_create(&c, NULL, run_wide, (void *)n))
		return 1;
	pthread_join(c, NULL);
	pthread_join(s, NULL);
	printf("done %ld\n", n);
	return 0;
}
