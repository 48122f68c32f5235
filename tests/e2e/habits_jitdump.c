/* habits_jitdump.c - a stand-in for a JIT that writes perf's jitdump (Java's perf agent,
 * node --perf-prof, Wasmtime): jit-PID.dump in the current folder, mmap'ed executable once
 * as the jitdump specification asks (the recording's marker), a DEBUG_INFO and a LOAD
 * record for each of two functions written as x86-64 code into executable memory, then
 * run (jit_hot three times the work of jit_cold); jit_cold is then moved (a MOVE record:
 * its copy elsewhere runs once more). Times are CLOCK_MONOTONIC, the recording's clock.
 * Argument: the loop count of jit_cold. Prints the dump's path. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "habits_jit.h"

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void rec_head(FILE *f, uint32_t id, uint32_t size)
{
	uint64_t t = now();
	fwrite(&id, 4, 1, f);
	fwrite(&size, 4, 1, f);
	fwrite(&t, 8, 1, f);
}

static void debug_info(FILE *f, uint64_t addr, const char *file, uint32_t line)
{
	uint64_t nr = 1, a = addr;
	uint32_t l = line, discrim = 0;
	rec_head(f, 2, (uint32_t)(16 + 16 + 16 + strlen(file) + 1));
	fwrite(&addr, 8, 1, f);
	fwrite(&nr, 8, 1, f);
	fwrite(&a, 8, 1, f);
	fwrite(&l, 4, 1, f);
	fwrite(&discrim, 4, 1, f);
	fwrite(file, strlen(file) + 1, 1, f);
}

static void load(FILE *f, const char *name, const unsigned char *code, uint64_t size,
		 uint64_t index)
{
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
	uint64_t a = (uint64_t)(uintptr_t)code;
	rec_head(f, 0, (uint32_t)(16 + 40 + strlen(name) + 1 + size));
	fwrite(&pid, 4, 1, f);
	fwrite(&tid, 4, 1, f);
	fwrite(&a, 8, 1, f); /* vma */
	fwrite(&a, 8, 1, f); /* code_addr */
	fwrite(&size, 8, 1, f);
	fwrite(&index, 8, 1, f);
	fwrite(name, strlen(name) + 1, 1, f);
	fwrite(code, size, 1, f);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000000;
	char path[4096], cwd[4000];
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(path, sizeof(path), "%s/jit-%d.dump", cwd, (int)getpid());
	FILE *f = fopen(path, "w+");
	if (!f)
		return 1;
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} h = { 0x4A695444, 1, 40, EM_X86_64, 0, (uint32_t)getpid(), now(), 0 };
	fwrite(&h, sizeof(h), 1, f);
	fflush(f);
	/* the marker: one executable mapping of the dump, which the recording then names */
	void *marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
	if (marker == MAP_FAILED)
		return 1;
	unsigned char *code = jit_code(n);
	if (!code)
		return 1;
	debug_info(f, (uint64_t)(uintptr_t)code, "app.js", 10);
	load(f, "jit_hot", code, JIT_FN_SIZE, 1);
	load(f, "LazyCompile:*jit_cold app.js:2", code + JIT_COLD, JIT_FN_SIZE, 2);
	fflush(f);
	((void (*)(void))code)();
	((void (*)(void))(code + JIT_COLD))();
	/* jit_cold moves to code + 4096 and runs there once more */
	memcpy(code + 4096, code + JIT_COLD, JIT_FN_SIZE);
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)syscall(SYS_gettid);
	uint64_t mv[5] = { (uint64_t)(uintptr_t)code + 4096, (uint64_t)(uintptr_t)code + JIT_COLD,
			   (uint64_t)(uintptr_t)code + 4096, JIT_FN_SIZE, 2 };
	rec_head(f, 1, 16 + 8 + 40);
	fwrite(&pid, 4, 1, f);
	fwrite(&tid, 4, 1, f);
	fwrite(mv, 8, 5, f);
	fflush(f);
	((void (*)(void))(code + 4096))();
	munmap(marker, 4096);
	fclose(f);
	printf("%s\n", path);
	return 0;
}
