/* sim_l3.c - two threads walk one 4 MB buffer, one after the other (sim_l3.sh): first()
 * on one simulated core, then, after it is joined, second() on another. Each pass touches
 * every 64-byte line once, in order. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE (4u << 20)
static volatile unsigned char *buf;

__attribute__((noinline)) static long first(void)
{
	long s = 0;
	for (int r = 0; r < 2; r++)
		for (unsigned i = 0; i < SIZE; i += 64)
			s += buf[i];
	return s;
}

__attribute__((noinline)) static long second(void)
{
	long s = 0;
	for (int r = 0; r < 2; r++)
		for (unsigned i = 0; i < SIZE; i += 64)
			s += buf[i];
	return s;
}

static void *run(void *f)
{
	return (void *)((long (*)(void))f)();
}

int main(void)
{
	pthread_t t;
	buf = malloc(SIZE);
	if (!buf)
		return 1;
	for (unsigned i = 0; i < SIZE; i += 64)
		buf[i] = (unsigned char)i;
	if (pthread_create(&t, NULL, run, (void *)first) || pthread_join(t, NULL) ||
	    pthread_create(&t, NULL, run, (void *)second) || pthread_join(t, NULL))
		return 1;
	printf("walked\n");
	return 0;
}
