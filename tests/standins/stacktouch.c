/* stacktouch - the main thread and two threads each touch 16 pages of a local array on
 * their own stack once: one page fault per page, on the stack of the thread that touches.
 * The threads stay alive until all three are done (a barrier), so each has a stack of its
 * own (glibc reuses the stack of a thread that ended). Prints each thread's tid.
 * usage: stacktouch */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define PAGE 4096
#define NPAGES 16

static pthread_barrier_t done;

__attribute__((noinline)) static long touch_stack(void)
{
	volatile char buf[NPAGES * PAGE];
	long sum = 0;

	for (long i = NPAGES - 1; i >= 0; i--) {
		buf[i * PAGE] = (char)(i + 1);
		sum += buf[i * PAGE];
	}
	return sum;
}

static void *thread_main(void *arg)
{
	long *sum = arg;
	*sum = touch_stack();
	printf("thread %d\n", gettid());
	fflush(stdout);
	pthread_barrier_wait(&done);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	long sum[2];
	pthread_attr_t a;

	pthread_barrier_init(&done, NULL, 3);
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 1 << 20);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], &a, thread_main, &sum[i]))
			return 1;
	long s = touch_stack();
	printf("main %d\n", gettid());
	fflush(stdout);
	pthread_barrier_wait(&done);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", s + sum[0] + sum[1]);
	return 0;
}
