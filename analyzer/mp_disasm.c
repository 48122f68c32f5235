/* mp_disasm.c - capstone, loaded when annotate first disassembles. */
#include <elf.h>
#include <pthread.h>
#include <stddef.h>

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
