/* fuzz_jitdump.c - libFuzzer harness for the jitdump reader (jit-PID.dump of JIT compilers:
 * mp_jitdump_parse). The input is the file's bytes; every function loaded or moved has its
 * name, code and lines read whole, as memprof inject --jit reads them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

static int touch(void *ctx, const struct mp_jitdump_info *h, const struct mp_jit_code *c)
{
	volatile size_t *sum = ctx;
	*sum += h->elf_mach + (c->name ? strlen(c->name) : 0);
	for (uint64_t i = 0; c->code && i < c->size; i++)
		*sum += c->code[i];
	for (size_t i = 0; i < c->nlines; i++)
		*sum += strlen(c->lines[i].file) + c->lines[i].line;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: a read past the end is caught by ASan */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	volatile size_t sum = 0;
	struct mp_err err = { 0 };
	const struct mp_jitdump_ops ops = { touch, touch };
	mp_jitdump_parse(buf, size, "fuzz.dump", &ops, (void *)&sum, &err);
	free(buf);
	return 0;
}
