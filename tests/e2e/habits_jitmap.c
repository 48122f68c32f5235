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

static void put_loop(unsigned char *p, uint64_t n)
{
	/* mov rcx, n; 1: dec rcx; jnz 1b; ret */
	static const unsigned char tail[] = { 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	p[0] = 0x48;
	p[1] = 0xb9;
	memcpy(p + 2, &n, 8);
	memcpy(p + 10, tail, sizeof(tail));
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000;
	unsigned char *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	put_loop(code, 3 * n);
	put_loop(code + 64, n);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx 10 jit_hot\n%lx 10 LazyCompile:*jit_cold app.js:2\n",
		(unsigned long)(uintptr_t)code, (unsigned long)(uintptr_t)(code + 64));
	fclose(f);
	((void (*)(void))code)();
	((void (*)(void))(code + 64))();
	printf("%s\n", path);
	return 0;
}
