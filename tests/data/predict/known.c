/* Known counts: likely(i < 999) over 1000 iterations is correct 999 times and incorrect
 * once; unlikely(i % 10 < 7) is true 700 times: incorrect 700, correct 300 (WARNING).
 * "known exit" ends with exit() from a helper, "known" returns from main. */
#include <memprof/debugpred.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int loop(int n)
{
	int a = 0, b = 0;
	for (int i = 0; i < n; i++) {
		if (likely(i < 999)) /* KNOWN-LIKELY */
			a++;
		if (unlikely(i % 10 < 7)) /* KNOWN-UNLIKELY */
			b++;
	}
	return a * 10000 + b;
}

static void finish(int v)
{
	printf("%d\n", v);
	exit(0);
}

int main(int argc, char **argv)
{
	int n = 1000, v;
	if (argc > 2)
		n = atoi(argv[2]);
	v = loop(n);
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		finish(v);
	printf("%d\n", v);
	return 0;
}
