/* sim_joined.c - a join that finds its thread gone (sim_joined.sh): main starts a worker
 * that counts in a heap block, then reads a regular file many times (calls valgrind runs
 * without its lock and mpsim takes as blocking nothing: main holds the worker back at
 * its own virtual time, and the worker runs and exits meanwhile), then joins it (glibc
 * finds the thread's id cleared and makes no futex call) and frees the block. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *worker(void *p)
{
	volatile long *c = p;
	for (long i = 0; i < 100000; i++)
		++*c;
	return NULL;
}

int main(int argc, char **argv)
{
	static char junk[1 << 21];
	long *buf = aligned_alloc(64, 64);
	pthread_t t;
	int fd = open(argc > 1 ? argv[1] : "/proc/self/exe", O_RDONLY);
	if (!buf || fd < 0)
		return 1;
	*buf = 0;
	if (pthread_create(&t, NULL, worker, buf))
		return 1;
	for (int k = 0; k < 500; k++)
		if (pread(fd, junk, sizeof(junk), 0) <= 0)
			break;
	close(fd);
	pthread_join(t, NULL);
	printf("joined buf=%p count=%ld\n", (void *)buf, *buf);
	free(buf);
	return 0;
}
