/* allocs - a stand-in with known heap calls for the simulator's allocation tracking
 * (tests/e2e/sim_alloc.sh): make_obj mallocs 12345 bytes, grow reallocs them to 23456,
 * zeroed callocs 7 x 1000, and everything is freed; a C++-free program, so new/delete
 * are not exercised here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *make_obj(size_t n)
{
	char *p = malloc(n);
	if (p)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) char *grow(char *p, size_t n)
{
	return realloc(p, n);
}

__attribute__((noinline)) int *zeroed(size_t n, size_t m)
{
	return calloc(n, m);
}

int main(void)
{
	char *a = make_obj(12345);
	char *b = grow(a, 23456);
	int *z = zeroed(7, 1000);
	if (!b || !z)
		return 1;
	printf("allocs: %d %d\n", b[12344], z[1749]);
	free(b);
	free(z);
	return 0;
}
