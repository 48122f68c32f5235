/* mp_disasm.c - capstone, loaded when annotate first disassembles; the branches inside a
 * function, for the instruction a skidding sample came from. */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "mp_disasm.h"
#include "mp_util.h"

/* Set once, under cs_once: the loaded functions, or why they are not there. */
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;
static struct mp_cs_api cs_fns;
static struct mp_err cs_load_err;

#define CS_SYM(f) { "cs_" #f, offsetof(struct mp_cs_api, f) }

static void cs_load(void)
{
#ifdef MP_CS_DLOPEN
	static const struct mp_dlib_sym syms[] = {
		CS_SYM(open), CS_SYM(close), CS_SYM(malloc), CS_SYM(free), CS_SYM(disasm_iter),
	};
	if (!mp_dlib_open(MP_CS_SONAME, "capstone, to disassemble", syms,
			  sizeof(syms) / sizeof(syms[0]), &cs_fns, &cs_load_err))
		cs_fns.open = NULL;
#else
	cs_fns = (struct mp_cs_api){ cs_open, cs_close, cs_malloc, cs_free, cs_disasm_iter };
#endif
}

static int cs_arch_of(int machine, int is64, cs_arch *arch, cs_mode *mode)
{
	switch (machine) {
	case EM_X86_64:
		*arch = CS_ARCH_X86;
		*mode = is64 ? CS_MODE_64 : CS_MODE_32;
		return 0;
	case EM_386:
		*arch = CS_ARCH_X86;
		*mode = CS_MODE_32;
		return 0;
	case EM_AARCH64:
		*arch = CS_ARCH_ARM64;
		*mode = CS_MODE_ARM;
		return 0;
	case EM_ARM:
		*arch = CS_ARCH_ARM;
		*mode = CS_MODE_ARM;
		return 0;
	case EM_PPC64:
		*arch = CS_ARCH_PPC;
		*mode = CS_MODE_64 | CS_MODE_LITTLE_ENDIAN;
		return 0;
	case EM_RISCV:
#ifdef CS_ARCH_RISCV
		*arch = CS_ARCH_RISCV;
		*mode = is64 ? CS_MODE_RISCV64 : CS_MODE_RISCV32;
		return 0;
#else
		return -1;
#endif
	default:
		return -1;
	}
}

int mp_disasm_open(int machine, int is64, csh *h, const struct mp_cs_api **api,
		   const char **why)
{
	static const char no_arch[] = "no disassembler for this architecture";
	cs_arch arch;
	cs_mode mode;

	*why = no_arch;
	if (cs_arch_of(machine, is64, &arch, &mode))
		return -1;
	pthread_once(&cs_once, cs_load);
	if (!cs_fns.open) {
		*why = cs_load_err.msg;
		return -1;
	}
	if (cs_fns.open(arch, mode, h) != CS_ERR_OK)
		return -1;
	*api = &cs_fns;
	return 0;
}

int mp_disasm_branch_to(const char *mn, const char *op, uint64_t *to)
{
	int x86 = mn[0] == 'j' || !strncmp(mn, "loop", 4) || !strcmp(mn, "jrcxz");
	int arm = !strcmp(mn, "b") || !strncmp(mn, "b.", 2) || !strncmp(mn, "cbz", 3) ||
		  !strncmp(mn, "cbnz", 4) || !strncmp(mn, "tbz", 3) || !strncmp(mn, "tbnz", 4);
	if (!x86 && !arm)
		return 0;
	const char *t = strrchr(op, ' '); /* the last operand: "x0, #0x10" */
	t = t ? t + 1 : op;
	if (*t == '#')
		t++;
	if (strncmp(t, "0x", 2))
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 16);
	if (*end || errno)
		return 0;
	*to = v;
	return 1;
}

int mp_branches_add(struct mp_branches *b, uint64_t from, uint64_t to, uint64_t lo, uint64_t hi)
{
	if (to < lo || to >= hi)
		return 0;
	if (b->n == b->cap) {
		size_t nc = b->cap ? 2 * b->cap : 16;
		uint64_t *t = realloc(b->to, nc * sizeof(*t));
		if (!t)
			return -ENOMEM;
		b->to = t;
		uint64_t *f = realloc(b->from, nc * sizeof(*f));
		if (!f)
			return -ENOMEM;
		b->from = f;
		b->cap = nc;
	}
	b->to[b->n] = to;
	b->from[b->n++] = from;
	return 0;
}

void mp_branches_fini(struct mp_branches *b)
{
	free(b->to);
	free(b->from);
	*b = (struct mp_branches){ 0 };
}

uint64_t mp_disasm_came_from(const struct mp_branches *b, uint64_t addr)
{
	uint64_t f = 0;
	size_t hits = 0;
	for (size_t i = 0; i < b->n; i++)
		if (b->to[i] == addr) {
			hits++;
			f = b->from[i];
		}
	return hits == 1 && f > addr ? f : 0;
}

int mp_disasm_branches(mp_sym *s, uint32_t dso, uint64_t start, uint64_t size,
		       struct mp_branches *b)
{
	*b = (struct mp_branches){ 0 };
	if (!size || size > (64u << 20))
		return 0;
	uint8_t *code = malloc(size);
	if (!code)
		return -ENOMEM;
	long got = mp_sym_read_code(s, dso, start, code, size);
	int is64 = 0;
	int mach = got > 0 ? mp_sym_machine(s, dso, &is64) : 0;
	csh cs;
	const struct mp_cs_api *api;
	const char *why;
	if (got <= 0 || mp_disasm_open(mach, is64, &cs, &api, &why)) {
		free(code);
		return 0;
	}
	cs_insn *insn = api->malloc(cs);
	const uint8_t *p = code;
	size_t left = (size_t)got;
	uint64_t addr = start;
	int rc = insn ? 0 : -ENOMEM;
	while (left > 0 && !rc) {
		uint64_t to;
		if (!api->disasm_iter(cs, &p, &left, &addr, insn)) {
			p++; /* an undecodable byte, as annotate shows it */
			left--;
			addr++;
		} else if (mp_disasm_branch_to(insn->mnemonic, insn->op_str, &to)) {
			rc = mp_branches_add(b, insn->address, to, start, start + size);
		}
	}
	if (insn)
		api->free(insn, 1);
	api->close(&cs);
	free(code);
	if (rc)
		mp_branches_fini(b);
	return rc;
}
