/* mp_sym_int.h - the symbol context (mp_sym of mp_analyzer.h) shared by its objects:
 * mp_dso.c (objects), mp_symtab.c (ELF symbols), mp_debugfile.c (debug-file search),
 * mp_kallsyms.c (kernel symbols), mp_srcline.c (source lines), mp_maps.c (process maps),
 * mp_sym.c (the context, interned strings and the public lookups). Internal. */
#ifndef MP_SYM_INT_H
#define MP_SYM_INT_H

#include <elf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_analyzer.h"
#include "mp_dso.h"
#include "mp_maps.h"
#include "mp_symtab.h"

struct mp_sym {
	char *symfs;
	char *buildid_dir;
	char *kallsyms;
	int no_srcline;
	char *osrelease;
	struct mp_pd_build_id *bids;
	size_t nbids;

	struct mp_dso *dsos;
	size_t ndsos, capdsos;
	struct mp_u64map dso_by_path; /* strhash(path) -> dso idx (probe on collision) */

	struct mp_map *maps;
	size_t nmaps, capmaps;

	struct mp_proc *procs;
	size_t nprocs, capprocs;
	/* the map of the last lookup, valid until the next task record */
	uint32_t lk_pid, lk_map;
	uint16_t lk_cpumode;
	uint64_t lk_start, lk_end;
	uint64_t gen;          /* task records fed so far (mp_sym_generation) */
	uint32_t jit_pid;      /* the last pid whose perf map was looked for (mp_dso_jit_path) */
	int jit_has_map;
	struct mp_u64map proc_by_pid;
	uint32_t last_pid, last_proc;

	/* interned strings */
	char **strs;
	size_t nstrs, capstrs;
	struct mp_u64map str_by_hash;

	struct mp_u64map comm_by_tid; /* (pid << 32 | tid) -> string id */

	/* inline chains looked up so far (mp_sym_inline_chain): (dso << 44 | vaddr) -> an
	 * entry of inl_e, whose chain is inl_v[off .. off + n) and outer function name */
	struct mp_u64map inl_idx;
	struct mp_sym_inline *inl_v;
	size_t inl_nv, inl_capv;
	struct mp_sym_inl_ent {
		uint32_t off, n;
		const char *outer;
	} *inl_e;
	size_t inl_ne, inl_cape;

	struct mp_demangler demangler; /* C++ names */

	/* the running kernel's code (/proc/kcore), for disassembly */
	int kcore_tried, kcore_fd, kcore_machine;
	Elf64_Phdr *kcore_ph;
	size_t kcore_nph;

	/* kernel symbols: the core kernel's parsed first, modules' (ksyms_rest: offset of
	 * their first line in ksyms.pool) only when a module needs them */
	int ksyms_tried;
	struct mp_symtab ksyms;
	int ksyms_ok;
	int ksyms_live;        /* they are the running kernel's (kcore may be read) */
	char *ksyms_file;      /* where they came from */
	size_t ksyms_rest, ksyms_len;
	/* the build-id cache copy mapped and searched in place until a module or a lookup
	 * by name needs the table (mp_kallsyms.c) */
	const char *ks_map;
	size_t ks_maplen, ks_core_end;
	struct mp_esym ks_hit;
	/* lazy_find's answers by address (call chains repeat their return addresses):
	 * ks_seen maps an ip to ks_seenv[] */
	struct mp_u64map ks_seen;
	struct mp_esym *ks_seenv;
	size_t ks_nseen, ks_capseen;
};

/* Interned copy of str: its id (UINT32_MAX on allocation failure) or the string itself
 * ("[nomem]" on failure). Valid until mp_sym_free(). */
uint32_t mp_sym_intern(mp_sym *s, const char *str);
const char *mp_sym_intern_str(mp_sym *s, const char *str);
/* path under --symfs (malloc'd, NULL on allocation failure). */
char *mp_sym_join_symfs(const mp_sym *s, const char *path);

/* Build-id notes: of an ELF file (bytes copied, at most max; 0 when none) and of the
 * running kernel (/sys/kernel/notes; *len 0 when unknown). */
int mp_elf_build_id(Elf *elf, uint8_t *out, size_t max);
void mp_kernel_build_id(uint8_t *out, size_t *len);

#endif
