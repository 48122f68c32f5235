/* globtouch - touch each of the 64 pages of a global array (in .bss) once, and each of
 * the 16 pages of an initialised one (in .data): one page fault per page.
 * usage: globtouch */
#include <stdio.h>

#define PAGE 4096
#define NPAGES 64

char glob_bss[NPAGES * PAGE] __attribute__((aligned(PAGE)));
char glob_data[16 * PAGE] __attribute__((aligned(PAGE))) = { 1 };

__attribute__((noinline)) static long touch(volatile char *p, long pages)
{
	long sum = 0;

	for (long i = 0; i < pages; i++) {
		p[i * PAGE] = (char)(i + 1);
		sum += p[i * PAGE];
	}
	return sum;
}

int main(void)
{
	long sum = touch(glob_bss, NPAGES) + touch(glob_data, 16);

	printf("%ld\n", sum);
	return 0;
}
