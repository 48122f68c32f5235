/* faulter - touch PAGES fresh pages (one page fault each) in one function.
 * usage: faulter PAGES */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) static long touch(volatile char *p, long pages, long psz)
{
	long sum = 0;

	for (long i = 0; i < pages; i++) {
		p[i * psz] = (char)i;
		sum += p[i * psz];
	}
	return sum;
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 0;
	long psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0) {
		fprintf(stderr, "usage: faulter PAGES\n");
		return 2;
	}
	char *p = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("%ld\n", touch(p, pages, psz));
	return 0;
}
