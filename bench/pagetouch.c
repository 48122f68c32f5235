/* pagetouch - touch fresh pages, one page fault each: the quickest way to make a
 * recording of millions of samples (perf record -e page-faults -c 1).
 * With DEPTH, each chunk is touched DEPTH calls deep (call chains of that length for
 * perf record -g, built with frame pointers).
 * usage: pagetouch PAGES [CHUNK_PAGES [DEPTH]] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) static void touch(volatile char *p, long pages, long psz)
{
	for (long i = 0; i < pages; i++)
		p[i * psz] = (char)i;
}

__attribute__((noinline)) static void descend(int depth, volatile char *p, long pages, long psz)
{
	if (depth > 0)
		descend(depth - 1, p, pages, psz);
	else
		touch(p, pages, psz);
	__asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 1000000;
	long chunk = argc > 2 ? atol(argv[2]) : 16384;
	int depth = argc > 3 ? atoi(argv[3]) : 0;
	long psz = sysconf(_SC_PAGESIZE);

	if (total <= 0 || chunk <= 0 || depth < 0) {
		fprintf(stderr, "usage: pagetouch PAGES [CHUNK_PAGES [DEPTH]]\n");
		return 2;
	}
	for (long done = 0; done < total; done += chunk) {
		long n = total - done < chunk ? total - done : chunk;
		char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		descend(depth, p, n, psz);
		munmap(p, (size_t)(n * psz));
	}
	return 0;
}
