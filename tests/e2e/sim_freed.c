/* sim_freed.c - threads in waves, each with a heap block of its own: it fills and reads
 * its block, then frees it before it exits, and the next wave's threads allocate theirs.
 * Valgrind runs one thread at a time, so a block one thread freed is often the next one
 * another thread of the same wave gets; the threads still run side by side in virtual
 * time, where no two of them may use one block (sim_freed.sh). Prints "freed ok SUM". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define WAVES 3
#define THREADS 6
#define LONGS 4096
#define REPS 30

__attribute__((noinline)) static long fill(long *b, long id)
{
	long s = 0;
	for (int r = 0; r < REPS; r++)
		for (int i = 0; i < LONGS; i++) {
			b[i] += i ^ r ^ id; /* HOT: the thread's own block */
			s += b[i];
		}
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	long *b = calloc(LONGS, sizeof(*b));
	if (!b)
		return NULL;
	long s = fill(b, id);
	free(b);
	return (void *)s;
}

int main(void)
{
	long sum = 0;
	for (long w = 0; w < WAVES; w++) {
		pthread_t t[THREADS];
		for (long k = 0; k < THREADS; k++)
			if (pthread_create(&t[k], NULL, worker, (void *)(w * THREADS + k)))
				return 1;
		for (int k = 0; k < THREADS; k++) {
			void *r;
			pthread_join(t[k], &r);
			sum += (long)r;
		}
	}
	printf("freed ok %ld\n", sum);
	return 0;
}
