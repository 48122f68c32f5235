/* The second translation unit of tu_a.c's executable. */
#include <memprof/debugpred.h>

int tu_b(int n);

int tu_b(int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (unlikely(i == 3)) /* TU-B */
			c++;
	return c;
}
