/* mp_symtab.h - ELF files and their function symbol tables (.symtab, .dynsym; kallsyms
 * fills the same table), C++ names demangled as perf shows them (internal to the analyzer). */
#ifndef MP_SYMTAB_H
#define MP_SYMTAB_H

#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct mp_esym {
	uint64_t start, end;
	const char *name;
	uint8_t bind; /* STB_*; for kallsyms 1 when the symbol is a module's */
};

struct mp_symtab {
	struct mp_esym *v; /* sorted by start, one symbol per address */
	size_t n;
	char *pool; /* names */
};

/* __cxa_demangle of libstdc++, loaded at run time on first need (NULL: names stay
 * mangled). */
struct mp_demangler {
	void *lib;
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	int tried;
};

/* Open path as an ELF file: the handle, with the fd in *fd_out; NULL when it is not one. */
Elf *mp_elf_open(const char *path, int *fd_out);
int mp_elf_has_section(Elf *elf, unsigned type);
Elf_Scn *mp_elf_section(Elf *elf, const char *name);
/* 1 when the file holds a non-empty .debug_line (or .zdebug_line). */
int mp_elf_has_dwarf_lines(Elf *elf);

int mp_esym_cmp(const void *pa, const void *pb); /* by start, for qsort */
/* Sort, drop duplicates as perf does, and size zero-sized symbols (kallsyms: 1 for the
 * kallsyms rule at module boundaries). */
void mp_symtab_finish(struct mp_symtab *t, int kallsyms);
/* The symbol holding addr, or NULL. */
const struct mp_esym *mp_symtab_find(const struct mp_symtab *t, uint64_t addr);
void mp_symtab_fini(struct mp_symtab *t);
/* Function symbols of the first section of type (SHT_SYMTAB/SHT_DYNSYM) that has some:
 * 1 loaded, 0 none, -ENOMEM. */
int mp_symtab_load_elf(Elf *elf, unsigned type, struct mp_symtab *t);
/* Which named, defined symbols a table takes: keep returns 1 to take sym (named nm) and may
 * move its start (*start is st_value on entry), 0 to leave it out. */
typedef int (*mp_symtab_keep_fn)(void *ctx, Elf *elf, const GElf_Sym *sym, const char *nm,
				 uint64_t *start);
/* The symbols keep takes from the first section of type that has some (what
 * mp_symtab_load_elf does with the function filter): 1 loaded, 0 none, -ENOMEM. */
int mp_symtab_load_kept(Elf *elf, unsigned type, struct mp_symtab *t, mp_symtab_keep_fn keep,
			void *ctx);

/* perf's PLT symbols (dso__synthesize_plt_symbols): one "NAME@plt" per .rela.plt (.rel.plt)
 * entry, in relocation order after the .plt header (x86: 16 bytes; ARM, AArch64: perf's
 * sizes), NAME from .dynsym (demangled; empty for IRELATIVE slots: "@plt"). A symbol that
 * the zero-size rule stretched over .plt (_init) ends where .plt starts. 1 added, 0 none,
 * -ENOMEM. */
int mp_symtab_add_plt(Elf *elf, struct mp_symtab *t, struct mp_demangler *dm);

/* Demangle the table's C++ names in place (loads the demangler on first need). */
void mp_symtab_demangle(struct mp_demangler *dm, struct mp_symtab *t);
void mp_demangler_fini(struct mp_demangler *dm);
/* One mangled name as the table shows it (no signature), malloc'd; NULL when it is not
 * a C++ name or there is no demangler. */
char *mp_demangle_one(struct mp_demangler *dm, const char *name);

#endif
