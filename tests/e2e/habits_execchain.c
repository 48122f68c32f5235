#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* habits_execchain.c - a stand-in for make-like exec chains (issue 28.2): execs itself N
 * times with 2048 arguments of 63 bytes (execve copies them: page faults inside execve),
 * then exits. */
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	if (n <= 0)
		return 0;
	static char *args[2051];
	static char num[16];
	static char big[2048][64];
	snprintf(num, sizeof(num), "%d", n - 1);
	args[0] = argv[0];
	args[1] = num;
	for (int i = 0; i < 2048; i++) {
		memset(big[i], 'a' + i % 26, 63);
		args[2 + i] = big[i];
	}
	execv("/proc/self/exe", args);
	return 1;
}
