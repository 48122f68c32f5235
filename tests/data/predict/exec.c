/* exec.c - a -DDEBUGPRED program that execs (issue 30.5): the first image runs use A
 * (unlikely, 10 of 100 incorrect) twice around an exec that fails, then execs itself with
 * "b"; the second image runs use B (likely, 10 of 50 incorrect) and exits. With "other
 * PROG" the second image is PROG. Known totals: A correct 180 incorrect 20, B correct 40
 * incorrect 10. */
#include <memprof/debugpred.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int sink;

static void use_a(void)
{
	for (int i = 0; i < 100; i++)
		if (unlikely(i % 10 == 0)) /* USE-A */
			sink++;
}

static void use_b(void)
{
	for (int i = 0; i < 50; i++)
		if (likely(i < 40)) /* USE-B */
			sink++;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "b")) {
		use_b();
		return 0;
	}
	use_a();
	execl("/nonexistent/memprof-predict-exec", "x", (char *)NULL); /* fails: goes on */
	use_a();
	if (argc > 2 && !strcmp(argv[1], "other"))
		execv(argv[2], argv + 2);
	else
		execl("/proc/self/exe", argv[0], "b", (char *)NULL);
	perror("exec");
	return 1;
}
