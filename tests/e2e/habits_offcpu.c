/* habits_offcpu.c - blocks in known places for report --off-cpu: sleeper() sleeps 20 x 10 ms
 * in nanosleep (200 ms), reader() reads a pipe 5 times while writer(), another thread,
 * sleeps 20 ms before each byte it writes (100 ms blocked in read; writer 100 ms in
 * nanosleep). nap() and wait_byte() call libc's wrappers, which keep no frame pointer: a
 * frame-pointer chain skips them (not their callers). */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <unistd.h>

static int fds[2];

__attribute__((noinline)) static void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&t, NULL);
}

__attribute__((noinline)) static void sleeper(void)
{
	for (int i = 0; i < 20; i++)
		nap(10);
}

__attribute__((noinline)) static void *writer(void *arg)
{
	for (int i = 0; i < 5; i++) {
		nap(20);
		if (write(fds[1], "x", 1) != 1)
			break;
	}
	return arg;
}

__attribute__((noinline)) static int wait_byte(void)
{
	char c;
	return read(fds[0], &c, 1) == 1;
}

__attribute__((noinline)) static void reader(void)
{
	pthread_t t;
	if (pipe(fds) || pthread_create(&t, NULL, writer, NULL))
		return;
	for (int i = 0; i < 5; i++)
		if (!wait_byte())
			break;
	pthread_join(t, NULL);
}

int main(void)
{
	sleeper();
	reader();
	return 0;
}
