/* Two translation units in one executable (with tu_b.c): one record with both TUs' uses. */
#include <memprof/debugpred.h>

int tu_b(int n);

int main(void)
{
	int c = 0;
	for (int i = 0; i < 10; i++)
		if (likely(i != 3)) /* TU-A */
			c++;
	return tu_b(5) + c == 10 ? 0 : 1;
}
