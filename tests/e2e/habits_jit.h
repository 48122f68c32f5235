/* habits_jit.h - the code of the stand-in JITs (habits_jitmap.c, habits_jitdump.c): two
 * functions written as x86-64 into anonymous executable memory, jit_hot at the start
 * counting 3 * n down and jit_cold 64 bytes on counting n, each 16 bytes long. */
#ifndef HABITS_JIT_H
#define HABITS_JIT_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define JIT_MAP_SIZE 8192
#define JIT_COLD 64
#define JIT_FN_SIZE 16

static void jit_put_loop(unsigned char *p, uint64_t n)
{
	/* mov rcx, n; 1: dec rcx; jnz 1b; ret */
	static const unsigned char tail[] = { 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	p[0] = 0x48;
	p[1] = 0xb9;
	memcpy(p + 2, &n, 8);
	memcpy(p + 10, tail, sizeof(tail));
}

/* The JIT_MAP_SIZE bytes holding both functions, NULL when they cannot be mapped. */
static unsigned char *jit_code(uint64_t n)
{
	unsigned char *code = mmap(NULL, JIT_MAP_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return NULL;
	jit_put_loop(code, 3 * n);
	jit_put_loop(code + JIT_COLD, n);
	return code;
}

#endif
