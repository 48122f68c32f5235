/* sim_four.h - the four threads of the mpsim test programs (sim_simd.c, sim_turns.c). */
#include <pthread.h>
#include <stdint.h>

/* Runs fn on four threads, with arguments first .. first + 3, and sets *sum to the sum of
 * what they return; -1 when one cannot start, else 0. */
static int four_threads(void *(*fn)(void *), uintptr_t first, long *sum)
{
	pthread_t t[4];
	for (uintptr_t k = 0; k < 4; k++)
		if (pthread_create(&t[k], NULL, fn, (void *)(first + k)))
			return -1;
	*sum = 0;
	for (int k = 0; k < 4; k++) {
		void *r;
		pthread_join(t[k], &r);
		*sum += (long)(intptr_t)r;
	}
	return 0;
}
