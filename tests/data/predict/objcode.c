/* Without DEBUGPRED, likely()/unlikely() from the header must compile to exactly the code
 * of __builtin_expect: objcode.sh builds this with -DUSE_HEADER and without, and compares
 * the disassembly of find(). */
#ifdef USE_HEADER
#include <memprof/debugpred.h>
#define L(e) likely(e)
#define U(e) unlikely(e)
#else
#define L(e) __builtin_expect(!!(e), 1)
#define U(e) __builtin_expect(!!(e), 0)
#endif

int find(const int *v, int n, int key);

int find(const int *v, int n, int key)
{
	if (U(v == 0))
		return -2;
	for (int i = 0; i < n; i++) {
		if (U(v[i] == key))
			return i;
		if (L(v[i] >= 0))
			continue;
		n--;
	}
	return -1;
}
