#include <stdio.h>
#include <time.h>
/* habits_clockloop.c - a stand-in for programs that read the clock often (issue 28.1):
 * clock_gettime, in the vDSO, called in a loop by inner(), called by outer() and main(). */
__attribute__((noipa)) static long inner(long n)
{
	struct timespec ts;
	long s = 0;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s += ts.tv_nsec & 1;
	}
	return s;
}
__attribute__((noipa)) static long outer(long n)
{
	return inner(n) + 1;
}
int main(void)
{
	printf("%ld\n", outer(3000000));
	return 0;
}
