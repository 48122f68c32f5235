/* pagetouch2 - two threads touching fresh pages from eight functions: a recording of
 * millions of samples whose CPU buffers interleave and whose addresses vary (perf record
 * -e page-faults -c 1), as a multi-threaded program makes them.
 * usage: pagetouch2 PAGES   (pages touched in all, half by each thread) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define TOUCHER(name)                                                                   \
	__attribute__((noinline)) static void name(volatile char *p, long pages, long psz) \
	{                                                                               \
		for (long i = 0; i < pages; i++)                                        \
			p[i * psz] = (char)i;                                           \
		__asm__ volatile("" ::: "memory");                                      \
	}
TOUCHER(touch0)
TOUCHER(touch1)
TOUCHER(touch2)
TOUCHER(touch3)
TOUCHER(touch4)
TOUCHER(touch5)
TOUCHER(touch6)
TOUCHER(touch7)

static void (*const touchers[8])(volatile char *, long, long) = {
	touch0, touch1, touch2, touch3, touch4, touch5, touch6, touch7,
};

static long per_thread;

static void *worker(void *arg)
{
	long psz = sysconf(_SC_PAGESIZE), chunk = 4096, k = (long)(intptr_t)arg;
	for (long done = 0; done < per_thread; done += chunk) {
		long n = per_thread - done < chunk ? per_thread - done : chunk;
		char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			exit(1);
		}
		/* eight functions take turns within a chunk, an eighth of it each */
		for (int f = 0; f < 8; f++) {
			long lo = n * f / 8, hi = n * (f + 1) / 8;
			touchers[(f + k) % 8](p + lo * psz, hi - lo, psz);
		}
		munmap(p, (size_t)(n * psz));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000000;
	pthread_t t[2];
	if (total <= 0) {
		fprintf(stderr, "usage: pagetouch2 PAGES\n");
		return 2;
	}
	per_thread = total / 2;
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			fprintf(stderr, "pagetouch2: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
