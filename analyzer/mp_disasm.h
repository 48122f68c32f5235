/* mp_disasm.h - capstone for annotate, loaded with dlopen() on first use (MP_CS_DLOPEN,
 * MP_CS_SONAME) so that the commands that never disassemble (report) do not pay its
 * relocations at every start (not a public header). */
#ifndef MP_DISASM_H
#define MP_DISASM_H

#include <capstone/capstone.h>

struct mp_cs_api {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
	cs_err (*close)(csh *handle);
	cs_insn *(*malloc)(csh handle);
	void (*free)(cs_insn *insn, size_t count);
	bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
			    cs_insn *insn);
};

/* A disassembler of ELF machine (EM_*; is64 for the class) into *h (OUT), with the
 * functions to use it (OUT: *api). 0; -1 with why (one line) when there is none: capstone
 * cannot be loaded, or does not know the architecture. */
int mp_disasm_open(int machine, int is64, csh *h, const struct mp_cs_api **api,
		   const char **why);

#endif
