/* The shared object of objects.sh: its own uses, its own record. */
#include <memprof/debugpred.h>

int predlib_count(int n)
{
	int c = 0;
	for (int i = 0; i < n; i++)
		if (unlikely(i % 4 == 0)) /* LIB-UNLIKELY */
			c++;
	return c;
}
