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

/* A constant branch target of an instruction (capstone's mnemonic and operands): x86's
 * jumps and loops, arm64's b, b.cond, cbz/cbnz and tbz/tbnz. 1 with *to, else 0 (calls,
 * returns, indirect branches and other instructions). */
int mp_disasm_branch_to(const char *mnemonic, const char *op_str, uint64_t *to);

/* The branches inside one function: to[i] from from[i], for i < n. */
struct mp_branches {
	uint64_t *to, *from;
	size_t n, cap;
};
/* Add the branch at from to to (when to lies in [lo, hi), the function). 0, or -ENOMEM. */
int mp_branches_add(struct mp_branches *b, uint64_t from, uint64_t to, uint64_t lo, uint64_t hi);
void mp_branches_fini(struct mp_branches *b); /* empties b */

/* The instruction that ran before the one at addr, in a function whose branches are b:
 * where exactly one branch leads to addr and it lies after addr (a loop's closing branch,
 * taken on every pass but the last), that branch's address; else 0 (the instruction before
 * addr in memory). */
uint64_t mp_disasm_came_from(const struct mp_branches *b, uint64_t addr);

struct mp_sym;
/* The branches inside the function [start, start+size) of object dso, disassembled, into
 * b (OUT; empty when there is no code or disassembler). 0, or -ENOMEM (b empty). */
int mp_disasm_branches(struct mp_sym *s, uint32_t dso, uint64_t start, uint64_t size,
		       struct mp_branches *b);

#endif
