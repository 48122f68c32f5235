/* habits_jitmap.c - a stand-in for a JIT (node --perf-basic-prof, python3.12 -X perf): two
 * functions written as x86-64 code into anonymous executable memory, named in
 * /tmp/perf-PID.map as those runtimes do, then run (jit_hot three times the work of
 * jit_cold). Argument: the loop count of jit_cold. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "habits_jit.h"

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000;
	unsigned char *code = jit_code(n);
	if (!code)
		return 1;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx 10 jit_hot\n%lx 10 LazyCompile:*jit_cold app.js:2\n",
		(unsigned long)(uintptr_t)code, (unsigned long)(uintptr_t)(code + JIT_COLD));
	fclose(f);
	((void (*)(void))code)();
	((void (*)(void))(code + JIT_COLD))();
	printf("%s\n", path);
	return 0;
}
