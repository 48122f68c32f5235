/* mp_analyzer.h - the analyzer module: place the samples of perf.data files (memprof's
 * and perf's, read through perfdata/'s reader, mp_pd_*) in objects, symbols and source
 * lines, and aggregate them.
 *
 * Sections: (2) symbols (mp_sym_*), aggregation (mp_hist_*), mp_session_* which opens a
 * recording into both, and the annotate model (mp_ann_*); (1), the reader, is
 * perfdata/include/mp_perfdata.h. This is the module's one public header; each object of the module has an
 * internal header of its own beside its .c file (mp_sym_int.h lists the symbol side's).
 */
#ifndef MP_ANALYZER_H
#define MP_ANALYZER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mp_perfdata.h"
#include "mp_util.h"

/* ===== (2) symbols and aggregation ===================================================== */
/* (mp_sym.c with mp_dso.c, mp_symtab.c, mp_debugfile.c, mp_kallsyms.c, mp_srcline.c,
 * mp_maps.c; mp_hist.c; mp_annotate.c) */

/* --- (2a) symbols: where an address lives (mp_sym_*) --------------------------------
 *
 * An mp_sym context follows the MMAP/MMAP2, COMM, FORK and EXIT records of one recording
 * (feed them in file order) and so knows, for every process at every point in the file,
 * which object ("dso") each address belongs to. A map is one mapping of one dso into one
 * process (or into the kernel): its id is a small integer, stable for the life of the
 * context, which the aggregation uses as a key. Objects are opened lazily, once, when the
 * first address inside them is resolved: ELF symbols (the object's .symtab, else its debug
 * file's, else .dynsym) through libelf, source lines through libdw. The object is the
 * recorded path under symfs, else perf's build-id cache copy (buildid_dir), else the debug
 * file of its build-id; debug info comes from the object itself or is found by build-id
 * (<symfs>/usr/lib/debug/.build-id/xx/yyyy.debug), .gnu_debuglink (beside the object, in
 * its .debug folder, under /usr/lib/debug) and /usr/lib/debug/<path>.debug. Kernel
 * addresses resolve against a kallsyms file (default /proc/kallsyms when readable and
 * recorded on this kernel; "/dev/null" = none). */

typedef struct mp_sym mp_sym;

struct mp_sym_opts {
	const char *symfs;     /* root prefixed to every object path (perf --symfs); NULL = "/" */
	const char *kallsyms;  /* kallsyms file; NULL = /proc/kallsyms if it fits; "/dev/null" */
	int no_srcline;        /* do not open DWARF at all (faster when lines are not wanted) */
	const char *osrelease; /* the recording's HEADER_OSRELEASE (or NULL): the default
	                        * /proc/kallsyms is only used when it matches this kernel */
	const char *buildid_dir; /* perf's build-id cache (~/.debug, $PERF_BUILDID_DIR), tried
	                          * by build-id for objects not found otherwise (and [vdso]);
	                          * NULL = none */
};

#define MP_SYM_NO_MAP UINT32_MAX /* map id of an address in no known mapping */

/* Object flags (mp_sym_dso_info.flags). */
enum {
	MP_DSO_KERNEL = 1 << 0,     /* kernel or kernel module */
	MP_DSO_FOUND = 1 << 1,      /* the file (or kallsyms for the kernel) was found and read */
	MP_DSO_SYMTAB = 1 << 2,     /* has function symbols */
	MP_DSO_DEBUGINFO = 1 << 3,  /* has DWARF line information */
	MP_DSO_BUILDID_MISMATCH = 1 << 4, /* file on disk differs from the recording: not used */
	MP_DSO_ANON = 1 << 5,       /* [anon], //anon, [heap], [stack], JIT maps: no file */
	MP_DSO_VDSO = 1 << 6,       /* [vdso]/[vsyscall] */
	MP_DSO_NOT_ELF = 1 << 7,    /* the recorded path is there but is no regular ELF file (a
				     * FIFO, a device, a directory, a script): not read */
};

struct mp_sym_dso_info {
	const char *name;        /* short name as perf shows it: "libc.so.6", "[kernel.kallsyms]" */
	const char *path;        /* recorded path (borrowed from the context) */
	const char *file;        /* the file actually read (with symfs), NULL when none */
	const char *debug_file;  /* where DWARF came from, NULL when none */
	unsigned flags;          /* MP_DSO_* (valid once the dso has been loaded) */
	uint8_t build_id[20];
	uint8_t build_id_len;    /* recorded build-id, 0 when the recording has none */
};

/* One resolved address. All strings are borrowed from the context (valid until
 * mp_sym_free()). */
struct mp_sym_loc {
	uint32_t dso_idx;        /* index for mp_sym_dso(); UINT32_MAX for "[unknown]" */
	const char *dso;         /* short object name, "[unknown]" when no map */
	const char *sym;         /* function name; when unresolved "0x%016llx" of `addr` */
	int sym_resolved;        /* 1 when sym comes from a symbol table */
	uint64_t sym_start;      /* symbol address in the object's ELF vaddr space (0 if none) */
	uint64_t sym_size;
	uint64_t addr;           /* address as perf prints it: map-relative (ip - start + pgoff);
	                          * the raw ip for anonymous memory and for [unknown] */
	uint64_t elf_addr;       /* address in the ELF's vaddr space (== addr when no ELF) */
	const char *srcfile;     /* innermost source file (inlined code gets its own file), or NULL */
	unsigned line;           /* 0 when unknown */
	const char *inline_fn;   /* innermost inlined function at addr, NULL when not inlined */
	int kernel;              /* 1 for kernel-space addresses (perf's [k]) */
	char level;              /* perf's level: 'k' kernel, '.' user, 'H' hypervisor,
	                          * 'g' guest kernel, 'u' guest user */
};

/* New context; NULL with err on allocation failure only (missing files are not errors).
 * nr_build_ids/build_ids: the recording's HEADER_BUILD_ID table (may be NULL/0), used to
 * check objects on disk. */
mp_sym *mp_sym_new(const struct mp_sym_opts *opts, const struct mp_pd_build_id *build_ids,
		   size_t nr_build_ids, struct mp_err *err);
void mp_sym_free(mp_sym *s); /* NULL-safe */

/* Feed the task records in file order. Return 0 or -ENOMEM. A fork of a new process copies
 * the parent's maps; an exec COMM drops the process's maps; a new mmap replaces the part of
 * any older map it overlaps. Non-executable data mmaps (MMAP2 prot without PROT_EXEC) are
 * ignored. */
int mp_sym_mmap(mp_sym *s, const struct mp_pd_mmap *m);
int mp_sym_comm(mp_sym *s, const struct mp_pd_task *t);
int mp_sym_fork(mp_sym *s, const struct mp_pd_task *t);
int mp_sym_exit(mp_sym *s, const struct mp_pd_task *t);

/* How many task records (mmap, comm, fork, exit) the context has been fed: while it stays
 * the same, every lookup below gives the same answer (callers cache on it). */
uint64_t mp_sym_generation(const mp_sym *s);

/* The map holding ip in process pid at this point of the file (kernel cpumodes look in the
 * kernel maps), or MP_SYM_NO_MAP. O(1) for repeated hits in the same map. */
uint32_t mp_sym_map_find(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip);

/* Before the source lines of many places are looked up: load the objects of maps[0..n)
 * (in that order, as mp_sym_resolve() would on first use), open their debug info and, with
 * ips (the places' addresses, ips[i] in maps[i]; may be NULL), read the line tables that
 * hold them, in the order mp_sym_resolve() of those places would, on two threads (libdw
 * decompresses a debug file's sections when it opens it and sorts a compilation unit's
 * lines when it first reads them). */
void mp_sym_prepare_lines(mp_sym *s, const uint32_t *maps, const uint64_t *ips, size_t n);

/* Resolve ip in map map_id (from mp_sym_map_find(); MP_SYM_NO_MAP gives "[unknown]").
 * want_line = 0 skips DWARF, 1 gives the source file and line, 2 also inline_fn (slower:
 * it walks the DWARF scopes). Loads the object on first use. Never fails: what cannot be
 * resolved shows as object+offset. */
void mp_sym_resolve(mp_sym *s, uint32_t map_id, uint16_t cpumode, uint64_t ip, int want_line,
		    struct mp_sym_loc *out /* OUT */);

/* The current comm of a thread (":<tid>" when never named); borrowed. */
const char *mp_sym_comm_of(mp_sym *s, uint32_t pid, uint32_t tid);
/* Interned comm id of the thread's current comm (for aggregation keys) and back. */
uint32_t mp_sym_comm_id(mp_sym *s, uint32_t pid, uint32_t tid);
const char *mp_sym_comm_name(const mp_sym *s, uint32_t comm_id);

size_t mp_sym_ndsos(const mp_sym *s);
/* Info about an object; loads it (to fill flags) when load != 0. NULL when idx is out of
 * range. */
const struct mp_sym_dso_info *mp_sym_dso(mp_sym *s, size_t idx, int load);
/* Index of the object whose short name or recorded path is name (the first such), or -1. */
long mp_sym_dso_find(mp_sym *s, const char *name);

/* Names as a user types them (mp_symname.c). How well a symbol's shown name have matches
 * what the user typed: 3 the same, 2 a qualified tail of it ("scan" or "lexer::scan" for
 * "demo::lexer::scan"), 1 the same once template arguments are left out of have
 * ("table::insert" for "demo::table<int, long>::insert"), 0 not at all. */
int mp_sym_name_match(const char *have, const char *want);
/* A mangled C++ name as symbols are shown (demangled, no signature), malloc'd; NULL when
 * name is not mangled or cannot be demangled. */
char *mp_sym_demangle(mp_sym *s, const char *name);
/* A C++ name with each outermost template argument list shortened to "<...>" into buf (n
 * bytes); its length. */
size_t mp_sym_short_name(const char *name, char *buf, size_t n);

/* Look up a function by name in an object (loading it): its ELF vaddr range. Returns 0, or
 * -ENOENT. */
int mp_sym_lookup_name(mp_sym *s, size_t dso_idx, const char *sym, uint64_t *start /* OUT */,
		       uint64_t *size /* OUT */);
/* The function holding ELF vaddr addr in an object (loading it; PLT entries are "f@plt"):
 * its name, borrowed, and *off the offset into it; NULL when none. */
const char *mp_sym_name_at(mp_sym *s, size_t dso_idx, uint64_t addr, uint64_t *off /* OUT */);
/* Source position of an ELF vaddr in an object (no map needed): 0 or -ENOENT. file is
 * borrowed. */
int mp_sym_srcline(mp_sym *s, size_t dso_idx, uint64_t elf_addr, const char **file /* OUT */,
		   unsigned *line /* OUT */);
/* The object's bytes at ELF vaddr [addr, addr+len) (from the file's PT_LOAD segments; for
 * the running kernel from /proc/kcore where it exists), for disassembly. Returns bytes
 * copied (may be short), or a negative error. */
long mp_sym_read_code(mp_sym *s, size_t dso_idx, uint64_t addr, void *buf, size_t len);
/* ELF e_machine of the object (EM_X86_64, EM_AARCH64, ...), 0 when unknown; *is64 OUT. */
int mp_sym_machine(mp_sym *s, size_t dso_idx, int *is64 /* OUT */);

/* --- data addresses (mp_daddr_*; mp_daddr.c) ------------------------------------------
 *
 * Where a sample's data address (PERF_SAMPLE_ADDR) lies: fed the recording's task records
 * as mp_sym is, it keeps every mapping, data ones too (record -d records them), and places
 * an address in an object's data symbols (ELF objects and functions of .symtab, else
 * .dynsym, through the object's PT_LOAD segments), including the .bss that the kernel maps
 * anonymously after the object's last file mapping; else in a thread's stack ([stack], the
 * main thread's, and the anonymous map of another thread's stack, which glibc maps just
 * before the thread's clone: a read-write map under a PROT_NONE guard, else the last
 * read-write one, of the creating thread), [heap] or an anonymous mapping. */
typedef struct mp_daddr mp_daddr;
enum mp_daddr_kind {
	MP_DADDR_UNKNOWN = 0, /* in no mapping of the process */
	MP_DADDR_OBJECT,      /* in an object's image (file mapping or its .bss) */
	MP_DADDR_STACK,       /* [stack] */
	MP_DADDR_HEAP,        /* [heap] */
	MP_DADDR_ANON,        /* another anonymous mapping */
	MP_DADDR_SPECIAL,     /* [vdso], [vvar] and such */
};
struct mp_daddr_loc {
	enum mp_daddr_kind kind;
	const char *dso;       /* short name: "globtouch", "[stack]", "anon" (perf's name of
				* //anon), "[unknown]"; borrowed */
	const char *path;      /* recorded path, NULL when unknown */
	const char *sym;       /* data symbol, NULL when none; borrowed */
	uint64_t sym_start, sym_size; /* ELF vaddrs */
	uint64_t vaddr;        /* the address in the object's ELF vaddr space (OBJECT) */
	const char *obj_path;  /* OBJECT: the object whose image holds the address (its .bss
				* too), as recorded; NULL otherwise; borrowed */
	uint32_t tid;          /* STACK: the thread whose stack it is (the main thread's: the
				* pid) */
	const char *comm;      /* STACK: that thread's comm, NULL when unknown; borrowed */
};
/* perf's view: an address in an anonymous mapping stays there (perf 6.1 does not place
 * the .bss or threads' stacks, so perf script shows them as "[unknown] (//anon)") */
#define MP_DADDR_NO_BSS 1u
/* sym: the code side's context, borrowed (objects are found as it finds them; may be
 * NULL); symfs as mp_sym_opts; flags MP_DADDR_*. NULL when out of memory. */
mp_daddr *mp_daddr_new(mp_sym *sym, const char *symfs, unsigned flags);
void mp_daddr_free(mp_daddr *d); /* NULL-safe */
/* Feed the task records in file order (kernel mappings are ignored). 0 or -ENOMEM. */
int mp_daddr_mmap(mp_daddr *d, const struct mp_pd_mmap *m);
int mp_daddr_comm(mp_daddr *d, const struct mp_pd_task *t);
int mp_daddr_fork(mp_daddr *d, const struct mp_pd_task *t);
/* Place addr of process pid (loads the object's symbols on first use). Never fails. */
void mp_daddr_resolve(mp_daddr *d, uint32_t pid, uint64_t addr,
		      struct mp_daddr_loc *out /* OUT */);
/* perf's mem-mode names of a sample's data place at addr (placed in dl; lvl: perf's level
 * letter of the sample, 'k' or '.'): symbol_daddr ("[.] glob_bss", a thread's stack as
 * "[.] [stack] comm/tid" (perf: "[.] [stack]" for the main thread's), else
 * "[k] 0x..." of the address) and dcacheline ("[.] glob_bss+0x40", else the line's
 * address). Into buf (n bytes). */
void mp_daddr_sym_str(const struct mp_daddr_loc *dl, uint64_t addr, char lvl, char *buf,
		      size_t n);
void mp_daddr_cacheline_str(const struct mp_daddr_loc *dl, uint64_t addr, char lvl, char *buf,
			    size_t n);

/* --- data types (mp_dtype_*; mp_dtype.c) ---------------------------------------------
 *
 * perf's data-type keys for globals and statics: the DWARF type of the variable at an
 * object's ELF vaddr and the member at an offset in it ("struct pair", field "b"; nested
 * members as "in.x", elements of arrays of structures as "arr[3].y"); and for heap objects:
 * the type the allocation's result points to, as the pointer variable it is stored in
 * says. Objects without DWARF give nothing. */
typedef struct mp_dtype mp_dtype;
struct mp_dtype_loc {
	char type[200];   /* "struct pair", "long int", "char[4096]", a typedef's name */
	char field[200];  /* the member path at offset, "" when none (a scalar, a padding) */
	uint64_t offset;  /* into the variable (a heap array's element) */
	uint64_t type_size;
	uint32_t obj;     /* the type's object and DIE, for mp_dtype_layout() */
	uint64_t die;
	const char *path; /* that object, as recorded (borrowed from the mp_dtype) */
};
mp_dtype *mp_dtype_new(const char *symfs); /* NULL when out of memory */
void mp_dtype_free(mp_dtype *t);            /* NULL-safe */
/* The variable at ELF vaddr var_addr of object path (as recorded; symfs prefixed) and the
 * member at off: 1 and *out filled, 0 when unknown. The object's variables are indexed on
 * first use. */
int mp_dtype_of(mp_dtype *t, const char *path, uint64_t var_addr, uint64_t off,
		struct mp_dtype_loc *out /* OUT */);
/* A heap object of size bytes allocated by the call returning to ELF vaddr ret of object
 * path, at offset off: the pointee type of the pointer variable the result goes to (in
 * scope at the call, in the return register at ret, else declared on the call's line),
 * when size is a multiple of it; offset and field are then in the element holding off
 * (struct rec *r = malloc(n * sizeof(*r)): "struct rec", off % 128). 1 and *out filled, 0
 * when untyped (a void *, no DWARF, no such variable), -ENOMEM. Cached per call. */
int mp_dtype_of_alloc(mp_dtype *t, const char *path, uint64_t ret, uint64_t size, uint64_t off,
		      struct mp_dtype_loc *out /* OUT */);
/* A type's layout, as pahole shows it (mp_dtype_layout). */
enum mp_dtype_kind { MP_DTYPE_MEMBER, MP_DTYPE_HOLE, MP_DTYPE_PADDING };
struct mp_dtype_member {
	uint64_t offset, size; /* in the type */
	unsigned depth;        /* 0 the type itself, 1 its members, 2 theirs, ... */
	int kind;              /* enum mp_dtype_kind: a member, a hole before the next member
				* of a structure, the padding at a structure's end */
	int has_children;      /* a structure or union: its entries follow at depth + 1 */
	char type[200];        /* MEMBER: its type's name */
	char name[128];        /* MEMBER: its name ("" for the type itself) */
};
/* The layout of loc's type (loc from this t's mp_dtype_of*): the type, then its members in
 * order, nested structures and unions expanded, with the holes and the end padding of each
 * structure. *out malloc'ed (free()), *n entries. 0, -ENOENT (no such type), -ENOMEM. */
int mp_dtype_layout(mp_dtype *t, const struct mp_dtype_loc *loc,
		    struct mp_dtype_member **out /* OUT */, size_t *n /* OUT */);
struct mp_heap_obj;
typedef struct mp_heap mp_heap;
/* A sample's data type: a global's (dl, from mp_daddr_resolve; may be NULL) else a heap
 * object's (ho from mp_heap_find with h, its site resolved with sym). As above. */
int mp_dtype_of_sample(mp_dtype *t, const struct mp_daddr_loc *dl, const struct mp_heap_obj *ho,
		       mp_heap *h, mp_sym *sym, struct mp_dtype_loc *out /* OUT */);
/* perf's typeoff name of loc: "struct pair +0x8 (b)", "long int +0x0" without a member;
 * into buf (n bytes), returned. */
const char *mp_dtype_typeoff_str(const struct mp_dtype_loc *loc, char *buf, size_t n);

/* --- heap objects (mp_heap_*; mp_heap.c) ---------------------------------------------
 *
 * Which allocation held a data address at a sample's time, from the recording's allocation
 * records (record --alloc, the simulator; perfdata's MP_HEADER_ALLOC): the object's start,
 * size, the offset of the address in it and its allocation site. The records are replayed
 * in time order up to each query, keeping only the objects live then (memory follows the
 * live objects, not the number of allocations); freed and reused addresses give the object
 * live at the time, realloc ends the old block, fork copies the parent's objects, exec
 * empties the process, a free of an unknown address is counted. Queries are cheapest in
 * time order (the reader's ordered delivery); an earlier time replays from the start. */
struct mp_heap_obj {
	int found;           /* 1 when a live object holds the address */
	uint64_t start, size, offset; /* the object, and the address's offset in it */
	uint64_t time;       /* when it was allocated */
	uint32_t pid, tid;   /* who allocated it (after a fork: the child's copy) */
	uint32_t site;       /* allocation site (mp_pd_alloc_site), MP_ALLOC_NO_SITE */
	uint8_t kind;        /* enum mp_alloc_kind: malloc, calloc, realloc, memalign, mmap */
};
struct mp_heap_stats {
	uint64_t applied;        /* records replayed */
	uint64_t live, live_max; /* live objects now, and the most at once (the memory used) */
	uint64_t unknown_free;   /* free/realloc of an address no live object starts at */
	uint64_t stale;          /* objects ended by a newer one over them (their free lost) */
	uint64_t realloc_chained;/* realloc of a known block */
	uint64_t forks, execs, bad, rewinds;
	uint64_t at_exit;        /* objects still live when their process exited */
};
/* NULL when the recording has no allocation records (or out of memory). pd is borrowed. */
mp_heap *mp_heap_new(const mp_pd *pd);
void mp_heap_free(mp_heap *h); /* NULL-safe */
/* The object of process pid holding addr at time: 1 and *out filled, 0 when none (h may
 * be NULL), -ENOMEM. */
int mp_heap_find(mp_heap *h, uint32_t pid, uint64_t addr, uint64_t time,
		 struct mp_heap_obj *out /* OUT */);
/* Replay the records up to time (mp_heap_find does it); 0 or -ENOMEM. */
int mp_heap_advance(mp_heap *h, uint64_t time);
/* Process pid exited at time (the recording's EXIT of its main thread): its objects are
 * dropped, so that memory stays bounded by the processes alive. 0 or -ENOMEM. */
int mp_heap_exit(mp_heap *h, uint32_t pid, uint64_t time);
const struct mp_heap_stats *mp_heap_stats(const mp_heap *h);
/* An allocation site as "function file.c:line" of its first frame outside the allocators
 * (libc, libstdc++, ld.so: the caller of malloc), else "function (object)"; resolved with
 * sym's maps at the time of the call (source lines need a sym made without no_srcline),
 * once per site. Borrowed from h; "[unknown site]" for none. */
const char *mp_heap_site_name(mp_heap *h, mp_sym *sym, uint32_t site);
/* That frame (the caller of malloc): the recorded path of its object (borrowed from sym)
 * and the call's return address as an ELF vaddr of it. 1 and filled, 0 when unknown. */
int mp_heap_site_frame(mp_heap *h, mp_sym *sym, uint32_t site, const char **path /* OUT */,
		       uint64_t *ret /* OUT */);
/* For views that show "data symbol or allocation site" (c2c, report): a heap object as
 * "site +0xOFF (SIZE bytes)", else the data symbol (dd, may be NULL), "[stack]" or the
 * address; into buf, returned. */
const char *mp_heap_data_label(mp_heap *h, mp_sym *sym, mp_daddr *dd, uint32_t pid,
			       uint64_t addr, uint64_t time, char *buf, size_t len);

/* --- call chains of samples (mp_unwind_*; mp_unwind.c, mp_unwind_inline.c) ----------
 *
 * One function turns a sample into its call chain as perf's callchain spells it: addresses
 * leaf first, with PERF_CONTEXT_KERNEL/USER/... markers before the entries of each context.
 *  - frame pointers (-g): the recorded chain as it is;
 *  - --call-graph dwarf (REGS_USER and STACK_USER): the recorded kernel part, then
 *    PERF_CONTEXT_USER and the user frames unwound by libdw's unwinder from the sample's
 *    registers and stack copy, with the recording's objects (found as the mp_sym context
 *    finds them: symfs, build-id cache, debug files) reported as modules at their mapped
 *    addresses; callers' frames at their call instruction (return address minus one), as
 *    perf's unwinders give them;
 *  - --call-graph lbr (BRANCH_STACK with CALL_STACK): the kernel part, then
 *    PERF_CONTEXT_USER, the newest call's target and each call stack entry's call site,
 *    as perf's resolve_lbr_callchain_sample does (callee order);
 *  - no chain: the context marker and the sample's ip.
 * Call it from the sample callback of mp_pd_process() while the same mp_sym context is
 * fed the task records (the stack copy and the maps are those of that moment). */
typedef struct mp_unwind mp_unwind;

/* sym: the symbol context fed with the recording's task records (borrowed; may be NULL
 * when the chains come through mp_unwind_ips(), which is handed it); pd: the recording
 * (borrowed; its HEADER_ARCH says the register layout; NULL: this machine's). NULL with
 * err on allocation failure. */
mp_unwind *mp_unwind_new(mp_sym *sym, const mp_pd *pd, struct mp_err *err);
void mp_unwind_free(mp_unwind *u); /* NULL-safe */
/* The chain of s: its length, *ips borrowed (from u or from s) until the next call or the
 * end of the sample callback. 0 only when out of memory. At most 127 unwound frames
 * (perf's max_stack). */
size_t mp_unwind_sample(mp_unwind *u, const struct mp_pd_sample *s,
			const uint64_t **ips /* OUT */);
/* The same as an address-list callback (the signature of callgraph.h's mp_cg_ips_fn):
 * ctx is an mp_unwind, sym the context fed with the task records up to s. 0, or -ENOMEM. */
int mp_unwind_ips(void *ctx, mp_sym *sym, const struct mp_pd_sample *s,
		  const uint64_t **ips /* OUT */, size_t *n /* OUT */);
/* Counts so far: dwarf samples whose unwinding started, user frames produced, and dwarf
 * samples left with their first frame only (no CFI or object for it). */
void mp_unwind_stats(const mp_unwind *u, uint64_t *unwound /* OUT */, uint64_t *frames /* OUT */,
		     uint64_t *failed /* OUT */);
/* The functions inlined at ip (map from mp_sym_map_find()), innermost first, as perf
 * report --inline lists them before the function that holds them: up to max names
 * (borrowed from s), their count; 0 when ip is not in inlined code or has no DWARF. */
size_t mp_sym_inlines(mp_sym *s, uint32_t map_id, uint64_t ip, const char **names /* OUT */,
		      size_t max);
/* The same with each inlined instance's call site: out[i].call_file/call_line is where
 * out[i] was inlined, a line of out[i + 1] (or of the function holding them all, after the
 * last): the line each outer frame is at, as addr2line -i and pprof give it. */
struct mp_sym_inline {
	const char *name;       /* borrowed from s */
	const char *call_file;  /* NULL when unknown */
	unsigned call_line;     /* 0 when unknown */
};
size_t mp_sym_inline_chain(mp_sym *s, uint32_t map_id, uint64_t ip,
			   struct mp_sym_inline *out /* OUT */, size_t max,
			   const char **outer_name /* OUT, may be NULL: the DWARF name of the
						    * function holding them, NULL if none */);

/* --- (2b) aggregation: samples per place (mp_hist_*) --------------------------------
 *
 * Feed every sample with mp_hist_add(): it hashes (attr, pid, tid, comm, map, ip) and adds
 * 1 sample and the period there, so memory grows with distinct places, never with samples.
 * mp_hist_resolve() then resolves each distinct (map, ip) once. Queries group the places by
 * any combination of keys, filter by object and symbol, and return rows sorted by count. */

typedef struct mp_hist mp_hist;

/* Grouping keys (bit mask). */
enum mp_hist_key {
	MP_HK_COMM = 1 << 0,
	MP_HK_PID = 1 << 1,
	MP_HK_TID = 1 << 2,
	MP_HK_DSO = 1 << 3,
	MP_HK_SYM = 1 << 4,
	MP_HK_SRCLINE = 1 << 5, /* srcfile + line */
	MP_HK_ADDR = 1 << 6,    /* object-relative address (one row per instruction) */
	MP_HK_CPU = 1 << 7,     /* the CPU the sample was taken on (fed with want_cpu) */
	MP_HK_SRCFILE = 1 << 8, /* source file only */
	MP_HK_REGION = 1 << 9,  /* the named region (record --regions; fed with regions) */
};

struct mp_hist_counts {
	uint64_t samples;
	uint64_t period; /* sum of periods = estimated count of the event at this place */
};

struct mp_hist_row {
	/* Keys not grouped on are zero/NULL. Strings borrowed from the hist/sym contexts. */
	const char *comm;
	uint32_t pid, tid;
	uint32_t cpu;            /* MP_HK_CPU */
	uint32_t region;         /* MP_HK_REGION: 0 = none, else as mp_pd_region_of() */
	const char *region_name; /* MP_HK_REGION: its name (from the query's regions) */
	const char *dso;
	uint32_t dso_idx;        /* UINT32_MAX for [unknown] */
	const char *sym;
	int sym_resolved;
	int kernel;
	char level;              /* as mp_sym_loc.level */
	const char *srcfile;     /* NULL = unknown ("??" in output) */
	unsigned line;
	uint64_t addr;           /* MP_HK_ADDR: address as perf prints it */
	uint64_t elf_addr;       /* MP_HK_ADDR: ELF vaddr (for disassembly / line lookup) */
	const struct mp_hist_counts *c; /* [nattrs], borrowed from the result */
	/* MP_HK_SRCLINE rows of addresses without line information are kept per address, as
	 * perf does ("exc_page_fault+215"): sym, sym_resolved and addr are set, and sym_off is
	 * the offset in the symbol. */
	uint64_t sym_off;
};

/* perf report's filters (--comm, --pid, --tid, --dso, --symbols), each a comma-separated
 * list, NULL = all: commands, processes, threads, objects (short name or path, "[unknown]"
 * for an address in none) and symbols. Borrowed strings. */
struct mp_filter {
	const char *comms, *pids, *tids, *dsos, *syms;
};

/* Is any filter of f given? */
static inline int mp_filter_any(const struct mp_filter *f)
{
	return f->comms || f->pids || f->tids || f->dsos || f->syms;
}

/* Does f keep a sample of thread tid of process pid, named comm when sampled (may be NULL
 * when f has no comms), at an address in object dso_idx (UINT32_MAX: in none, as
 * mp_sym_loc) and in symbol sym (may be NULL: none)? perf report's rule: each filter
 * given must list the sample's value. */
int mp_filter_keeps(const struct mp_filter *f, mp_sym *s, const char *comm, uint32_t pid,
		    uint32_t tid, uint32_t dso_idx, const char *sym);

struct mp_hist_query {
	unsigned keys;          /* MP_HK_* mask; 0 = MP_HK_DSO|MP_HK_SYM */
	const char *dso;        /* only this object (short name or path), NULL = all */
	const char *sym;        /* only this symbol, NULL = all */
	size_t sort_attr;       /* sort by this attr's period first, then the others in order;
	                         * SIZE_MAX = by the sum of all attrs' sample shares */
	int sort_by_key;        /* 1: sort by keys (dso, sym, srcfile, line, addr) instead */
	/* perf report's filters: samples of other commands (fed with want_comm), processes,
	 * threads, objects or symbols are left out of the rows; the totals stay those of the
	 * whole recording. */
	struct mp_filter filter;
	const mp_pd_regions *regions; /* names of MP_HK_REGION rows (NULL: "[no region]") */
	/* per attr, 1: count srcline/srcfile rows at the line of the instruction before the
	 * sampled one in the same function, as annotate does (mp_ann_event_skids()); NULL =
	 * at the sampled address, as perf */
	const unsigned char *skid;
};

struct mp_hist_result {
	size_t nrows;
	struct mp_hist_row *rows;       /* [nrows] */
	size_t nattrs;
	struct mp_hist_counts *counts;  /* [nrows * nattrs], rows[i].c = counts + i * nattrs */
};

/* New histogram for nattrs events. NULL on allocation failure. */
mp_hist *mp_hist_new(size_t nattrs);
void mp_hist_free(mp_hist *h); /* NULL-safe */

/* Add one sample of attr at ip (map from mp_sym_map_find(); comm_id from mp_sym_comm_id(),
 * or 0 when comm is not wanted). 0 or -ENOMEM. */
int mp_hist_add(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		uint32_t map_id, uint16_t cpumode, uint64_t ip, uint64_t period);
/* The same, keyed by the sample's CPU and region too (MP_HK_CPU, MP_HK_REGION queries). */
int mp_hist_add_key(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		    uint32_t cpu, uint32_t region, uint32_t map_id, uint16_t cpumode,
		    uint64_t ip, uint64_t period);
/* The same, keyed by the sample's CPU too (MP_HK_CPU queries). */
/* One more sample of the place mp_hist_add_key() added last (successfully): for a caller
 * that knows the key is the same again (the feed's repeated samples). */
void mp_hist_add_again(mp_hist *h, uint64_t samples, uint64_t period);
int mp_hist_add_cpu(mp_hist *h, size_t attr, uint32_t pid, uint32_t tid, uint32_t comm_id,
		    uint32_t cpu, uint32_t map_id, uint16_t cpumode, uint64_t ip,
		    uint64_t period);

/* Convenience: an mp_pd_handler that feeds s (task records) and h (samples). ctx must be a
 * struct mp_hist_feed that lives while mp_pd_process() runs. */
struct mp_hist_feed {
	mp_sym *sym;
	mp_hist *hist;            /* NULL: symbols only, each sample to .sample */
	int want_comm;            /* key comm ids (only needed for MP_HK_COMM) */
	int want_cpu;             /* key CPUs (only needed for MP_HK_CPU) */
	const mp_pd_regions *regions; /* key regions (only needed for MP_HK_REGION) */
	mp_daddr *daddr;          /* fed the task records too (NULL: none) */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Called for every sample after it is aggregated, with the symbol context as it is at
	 * that point of the file (the call graph's mp_cg_add_sample()); may be NULL. A
	 * negative return stops the feed and becomes its error. */
	int (*sample)(void *ctx, mp_sym *sym, const struct mp_pd_sample *s);
	void *sample_ctx;
	/* Each PERF_RECORD_SWITCH(_CPU_WIDE) record, with sample_ctx; may be NULL. */
	int (*task_switch)(void *ctx, const struct mp_pd_switch *w);
	int err;                  /* OUT: first error (-ENOMEM) */
	/* private: the sample aggregated last, whose repeats (same attr, pid, tid, cpumode, ip,
	 * cpu, with no mmap, comm, fork or exit between) go to its place directly */
	struct {
		int ok;
		size_t attr;
		uint64_t ip;
		uint32_t pid, tid, cpu;
		uint16_t cpumode;
	} last;
};
/* Set up h (OUT) to feed the reader's records into feed (which it resets for the run). */
void mp_hist_feed_handler(struct mp_hist_feed *feed, struct mp_pd_handler *h /* OUT */);

/* Resolve each distinct (map, ip) once (want_line: also source lines through DWARF).
 * Idempotent; a later call with want_line = 1 adds lines. 0 or -ENOMEM. */
int mp_hist_resolve(mp_hist *h, mp_sym *s, int want_line);

size_t mp_hist_nattrs(const mp_hist *h);
size_t mp_hist_nplaces(const mp_hist *h);    /* distinct (attr, pid, tid, comm, map, ip) */
/* Totals per attr over every sample added. */
const struct mp_hist_counts *mp_hist_total(const mp_hist *h, size_t attr);

/* Group, filter and sort (needs mp_hist_resolve(), with want_line for MP_HK_SRCLINE).
 * Fills res (free with mp_hist_result_fini()). 0 or -ENOMEM, -EINVAL. */
int mp_hist_query(mp_hist *h, mp_sym *s, const struct mp_hist_query *q,
		  struct mp_hist_result *res /* OUT */);
void mp_hist_result_fini(struct mp_hist_result *res);

/* Parse a perf-style sort list ("dso,sym", "srcline", "comm,pid") into MP_HK_* bits.
 * 0 or -EINVAL with err naming the bad key. */
int mp_hist_parse_sort(const char *list, unsigned *keys /* OUT */, struct mp_err *err);

/* Objects whose symbols or debug info are missing, with the share of samples they hide. */
struct mp_hist_missing {
	const char *dso;
	unsigned flags;            /* MP_DSO_* of the object */
	int no_symbols;            /* no function symbols (samples show as addresses) */
	int no_debuginfo;          /* no source lines */
	double pct[8];             /* share of each attr's period (first 8 attrs), 0..100 */
	double pct_max;            /* max over attrs */
};
/* Fills a malloc'd array sorted by pct_max (caller frees *out). Returns the count, or
 * -ENOMEM. Needs mp_hist_resolve(). want_line: report missing debug info too. */
long mp_hist_missing(mp_hist *h, mp_sym *s, int want_line, struct mp_hist_missing **out);

/* --- (2b') the session: the one way to open a recording (mp_session_*; mp_session.c) ---
 *
 * One call opens a recording and reads it: the symbol context fed its task records (with
 * its build-id table), the histogram of its samples, its regions, and, when asked, each
 * sample's call chain unwound by the session's own unwinder (fp as recorded, dwarf and lbr
 * unwound: mp_unwind_*). What report, annotate, diff, ratios, script and the TUI all
 * start with. */
typedef struct mp_session mp_session;

struct mp_session_opts {
	const char *symfs;        /* as mp_sym_opts */
	const char *kallsyms;
	const char *buildid_dir;  /* as mp_sym_opts */
	int no_srcline;           /* as mp_sym_opts: no source lines will be asked for */
	int no_symbols;           /* program level: no symbol context, no histogram, no
	                           * chains; the samples only go to .sample (sym NULL) */
	int no_hist;              /* symbols, but no histogram: each sample only goes to
	                           * .sample (memprof script) */
	int chains;               /* .sample gets each sample's call chain, unwound */
	int want_comm;            /* key samples by comm too (MP_HK_COMM queries) */
	int want_cpu;             /* key samples by CPU too (MP_HK_CPU queries) */
	/* NULL, or the option that asks for regions ("--sort region"): key samples by region
	 * too (MP_HK_REGION queries); a recording without regions is then an error naming
	 * the file and this option, before its samples are read */
	const char *want_region;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	/* Every sample, after it is aggregated, with the symbol context as it is at that
	 * point of the file (NULL with no_symbols); with .chains, its call chain as perf's
	 * callchain spells it (ips[0..nips), leaf first, borrowed until the return; else
	 * NULL, 0). May be NULL. A negative return stops the reading and is its error. */
	int (*sample)(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		      size_t nips);
	void *sample_ctx;
	/* Each PERF_RECORD_SWITCH(_CPU_WIDE) record (record --switch-events), in time order
	 * with the samples, with sample_ctx; may be NULL. */
	int (*task_switch)(void *ctx, const struct mp_pd_switch *w);
	/* NULL, or path already opened by the caller (mp_pd_open, nothing processed yet) to
	 * look at it first: the session takes it over (closes it on error too), and the file
	 * is opened, and its header warned about, once per command */
	mp_pd *pd;
	/* NULL, or where the session puts, before the file is read, a data-address context
	 * over its symbols (mp_daddr_new(sym, symfs, 0)) that it feeds the task records as
	 * the symbols are: the sample function places data addresses with it (borrowed,
	 * freed by mp_session_free()) */
	mp_daddr **daddr;
};
/* Open path and read it (opts may be NULL: symbols and a histogram). NULL with err naming
 * the file (bad file, truncated data, no regions, no memory); nothing is left open then.
 * Symbols are not resolved yet (mp_hist_query does it). */
mp_session *mp_session_new(const char *path, const struct mp_session_opts *opts,
			   struct mp_err *err);
void mp_session_free(mp_session *ss); /* NULL-safe */
/* The session's parts, borrowed until mp_session_free(): */
mp_pd *mp_session_pd(const mp_session *ss);
mp_sym *mp_session_sym(const mp_session *ss);    /* NULL with no_symbols */
mp_hist *mp_session_hist(const mp_session *ss);  /* NULL with no_symbols or no_hist */
/* with want_region (else NULL) */
const mp_pd_regions *mp_session_regions(const mp_session *ss);
/* with chains and a sample function (else NULL): mp_unwind_stats() */
const mp_unwind *mp_session_unwind(const mp_session *ss);

/* --- (2d) several recordings: places matched by name (mp_hist_merge) -----------------
 *
 * report -i A -i B and diff read one query result per recording and match their rows by
 * the names of the keys (comm, pid, tid, cpu, object short name, level and symbol, source
 * file and line, address): never by one recording's map ids, so that places match across runs
 * and across builds of a program. */

struct mp_hist_merged {
	size_t nrows;
	struct mp_hist_row *rows;   /* [nrows]: names of each place (strings borrowed from the
				     * inputs' results and their sym contexts); .c is NULL */
	size_t ngroups, ncols;
	struct mp_hist_counts *counts; /* [nrows * ngroups * ncols]: row r, group g, column j at
					* counts[(r * ngroups + g) * ncols + j]; zero when absent */
	unsigned char *present;     /* [nrows * ngroups]: the group has the place */
};

/* Merge nin query results (all made with the same keys). Input i adds into group group[i]
 * (so several recordings can make one side of a diff); its attr attr_map[i * ncols + j]
 * feeds column j (SIZE_MAX: none). Rows come out in key order. 0 or -ENOMEM; free with
 * mp_hist_merged_fini(). */
int mp_hist_merge(const struct mp_hist_result *res, size_t nin, const size_t *group,
		  size_t ngroups, unsigned keys, size_t ncols, const size_t *attr_map,
		  struct mp_hist_merged *out /* OUT */);
void mp_hist_merged_fini(struct mp_hist_merged *m); /* NULL-safe */

/* The events a report shows of a session's recording: those with samples and sampling
 * events (not counting-only ones, not the dummy event); at least the first attr. Writes
 * attr indexes into ev[mp_pd_nattrs()] and returns their count. */
size_t mp_session_events(const mp_session *ss, size_t *ev /* OUT */);

/* Several recordings read as sides of one report or diff: sessions opened in order, the
 * first one's events (mp_session_events) matched in every other (mp_pd_attrs_match), and
 * their totals summed per group. */
struct mp_multi {
	size_t n;
	const char *const *paths;    /* borrowed */
	mp_session **ss;             /* [n] */
	struct mp_hist_result *res;  /* [n]: the last mp_multi_query()'s per-file results */
	size_t nev;
	size_t *ev;                  /* [nev]: attrs of the first recording shown */
	size_t *map;                 /* [n * nev]: file i's attr for column j */
	size_t *group;               /* [n] */
	size_t ngroups;
	struct mp_hist_counts *total; /* [ngroups * nev]: each group's totals per column */
};
/* Open n recordings, file i into group group[i] (NULL: all in group 0). 0, or a negative
 * code with err naming the file (unreadable, or events that differ from the first file's);
 * on error nothing is left open. */
int mp_multi_open(struct mp_multi *m /* OUT */, const char *const *paths, const size_t *group,
		  size_t n, size_t ngroups, const struct mp_session_opts *o, struct mp_err *err);
/* Query every recording (q->sort_attr is taken as column 0's attr in each file; a non-NULL
 * q->skid applies each file's own skid rule, mp_ann_event_skids() of its attrs) and merge
 * the rows by name into out (mp_hist_merge; columns = the nev events). The rows borrow
 * from m until the next query or mp_multi_close(). 0 or a negative code. */
int mp_multi_query(struct mp_multi *m, const struct mp_hist_query *q,
		   struct mp_hist_merged *out /* OUT */);
void mp_multi_close(struct mp_multi *m); /* NULL-safe, idempotent */

/* --- (2e) archives: what a recording needs, as perf's build-id cache in a tar ----------
 *
 * Layout relative to ~/.debug (perf archive's): <path>/<build-id>/elf (the object),
 * <path>/<build-id>/debug (its separate debug info), [kernel.kallsyms]/<build-id>/kallsyms,
 * and .build-id/<xx>/<rest> symlinks to ../../<path>/<build-id>. Unpacked into ~/.debug,
 * perf report finds the objects; memprof reads it through mp_archive_extract() into a
 * folder used as mp_sym_opts.buildid_dir. The tar is POSIX ustar, uncompressed. */
struct mp_archive_missing {
	const char *name;        /* object's short name (borrowed from the session) */
	const char *why;         /* "file not found", "no build-id in the recording", ... */
	double pct;              /* share of samples (periods) of the event it hides most
	                          * of, 0..100, as mp_hist_missing() */
};
struct mp_archive_stats {
	size_t nobjects, ndebug; /* objects (and separate debug files) packed */
	uint64_t bytes;
	struct mp_archive_missing *missing; /* [nmissing], most samples first */
	size_t nmissing;
};
/* Pack every object with samples of the session's recording (found by build-id, as the
 * report finds it, with its separate debug file where there is one) and the kernel's
 * symbols into out_path, written whole through a temporary file (mp_out_open: out_path
 * unchanged on failure, the recording input itself refused). Objects that cannot be packed
 * go to st->missing. 0 or a negative code with err naming the file; free st with
 * mp_archive_stats_fini(). */
int mp_archive_write(mp_session *ss, const char *input, const char *out_path,
		     struct mp_archive_stats *st /* OUT */, struct mp_err *err);
void mp_archive_stats_fini(struct mp_archive_stats *st);
/* Unpack a tar archive (ustar: files, folders, symlinks; pax headers skipped) into dir,
 * which must exist, without ever writing through a link: each member's folders are walked
 * with O_NOFOLLOW and files created with O_EXCL, 0600. Refused, with err naming the archive
 * and member: absolute names and "..", links whose target leaves dir, a second member of
 * a name, devices, FIFOs and hard links. The archive is never opened if it is a FIFO or a
 * device. 0 or a negative code. */
int mp_archive_extract(const char *archive, const char *dir, struct mp_err *err);
/* Remove dir and everything below it (symlinks not followed). 0 or -errno. */
int mp_archive_remove_tree(const char *dir);
/* The kallsyms an unpacked archive holds for the recording's kernel (its build-id table
 * entry, may be NULL): *path malloc'd, 0; -ENOENT when there is none. */
int mp_archive_kallsyms(const char *dir, const struct mp_pd_build_id *kernel, char **path);

/* --- JIT code: jitdump files and the objects made of them (mp_jitdump.c, mp_jitelf.c) --
 * What memprof inject --jit reads: a JIT compiler's jit-PID.dump (perf's jitdump format,
 * its file mmap'ed once so that the recording names it), and the small ELF object it
 * writes for each function, that report, annotate and script then read as any other. */
struct mp_jitdump_info {
	uint32_t version, elf_mach, pid;
	uint64_t time, flags; /* flags bit 0: timestamps are the CPU's (TSC), not the clock's */
};
struct mp_jit_line {
	uint64_t addr;
	uint32_t line, discrim;
	const char *file; /* borrowed from the dump */
};
/* A function loaded (LOAD) or moved (MOVE); strings and code borrowed from the dump, valid
 * during the callback. */
struct mp_jit_code {
	uint32_t pid, tid;
	uint64_t time;       /* when (the recording's clock, unless info flags bit 0) */
	uint64_t vma, addr, size, index;
	uint64_t old_addr;   /* MOVE: where it was */
	const char *name;    /* LOAD: the function's name */
	const uint8_t *code; /* LOAD: size bytes of it */
	const struct mp_jit_line *lines; /* LOAD: its DEBUG_INFO lines (the record before it) */
	size_t nlines;
};
struct mp_jitdump_ops {
	/* NULL: skipped; a negative return stops the parse and is its result */
	int (*load)(void *ctx, const struct mp_jitdump_info *h, const struct mp_jit_code *c);
	int (*move)(void *ctx, const struct mp_jitdump_info *h, const struct mp_jit_code *c);
};
/* Walk a jitdump file's bytes (name for messages): its header, then each record through
 * ops, in file order (a last record cut short, as a JIT still writing leaves it, ends the
 * walk). 0, a callback's negative return, or a negative code with err (one line naming
 * the file and offset: bad magic, version, sizes). */
int mp_jitdump_parse(const void *buf, size_t len, const char *name,
		     const struct mp_jitdump_ops *ops, void *ctx, struct mp_err *err);

/* Where the code sits in the object mp_jit_elf_write() makes: its file offset and address,
 * the pgoff of the mmap that maps it at its JIT address (perf's, so that perf reads the
 * objects too). */
#define MP_JIT_TEXT_OFF 0x80
/* Write path (mode 0600, replaced whole): a 64-bit ELF object for machine (EM_*) holding
 * code (size bytes) at MP_JIT_TEXT_OFF in one PT_LOAD, a function symbol name over it and
 * a GNU build-id of its bytes. 0, or a negative code with err naming path. */
int mp_jit_elf_write(const char *path, uint16_t machine, const char *name, const uint8_t *code,
		     uint64_t size, struct mp_err *err);

/* --- (2c) annotate model: one function's source and instructions (mp_ann_*) ----------- */

typedef struct mp_ann mp_ann;

struct mp_ann_insn {
	uint64_t addr;          /* ELF vaddr */
	uint8_t size;
	char text[160];         /* "mov rax, qword ptr [rax]" (capstone, Intel syntax on x86);
	                         * calls and jumps out of the function name their target as
	                         * objdump does: "call 0x1070 <malloc@plt>" */
	const char *srcfile;    /* NULL when no line info */
	unsigned line;
	const struct mp_hist_counts *c; /* [nattrs] */
};

struct mp_ann_line {
	const char *srcfile;
	unsigned line;
	const char *text;       /* source text without newline, NULL when the file is unreadable */
	const struct mp_hist_counts *c; /* [nattrs]: samples of instructions on this line */
	size_t ninsns;
	const size_t *insns;    /* indexes into mp_ann_insns() of this line's instructions */
	int hot;                /* 1 for the hottest line(s) of attr 0..: see mp_ann_new() */
};

struct mp_ann_info {
	const char *dso;        /* NULL for a whole file (mp_ann_new_file) */
	const char *sym;        /* NULL for a whole file (mp_ann_new_file) */
	uint64_t start, size;   /* ELF vaddr range */
	const char *srcfile;    /* the function's main file (of its first instruction), or NULL */
	int has_debuginfo;      /* lines known */
	int src_readable;       /* srcfile could be read */
	const char *note;       /* why lines/source are missing, NULL when all is fine */
	size_t nattrs;
	const struct mp_hist_counts *total;   /* [nattrs]: the function's samples */
	const struct mp_hist_counts *evtotal; /* [nattrs]: each event's total in the recording */
};

/* Build the model of symbol sym in object dso (NULL = search every object with samples;
 * "dso:sym" is split by the caller). Lines: the function's source lines from its first
 * to last line in its main file (with context), plus lines of other files (inlined code)
 * that have instructions. hot = line(s) holding the most samples of attr 0, and any line
 * with >= hot_pct of the function's attr-0 samples. NULL + err when the symbol is unknown. */
mp_ann *mp_ann_new(mp_hist *h, mp_sym *s, const char *dso, const char *sym, double hot_pct,
		   struct mp_err *err);
/* Options of mp_ann_new_opts(). */
struct mp_ann_opts {
	double hot_pct;          /* as mp_ann_new() */
	/* skid[attr] != 0: the event's sampled IP is the instruction after the one that was
	 * executing (interrupt skid), so each sample is moved back to the instruction before
	 * it in the function's code. NULL = no correction. See mp_ann_event_skids(). */
	const unsigned char *skid;
};
/* 1 for events whose sampled IP skids past the instruction at fault: cpu-clock,
 * task-clock, and hardware/raw events with precise_ip < 2. 0 for exact ones
 * (page-faults and other software events report the faulting instruction). */
int mp_ann_event_skids(const struct perf_event_attr *attr);
/* mp_ann_new() with options (skid correction). */
mp_ann *mp_ann_new_opts(mp_hist *h, mp_sym *s, const char *dso, const char *sym,
			const struct mp_ann_opts *opts, struct mp_err *err);

/* The whole source file srcfile (path as in the DWARF line table, or its basename when
 * unique): every line, with the samples of every instruction attributed to it (any object,
 * any function). Instructions are those of the functions with samples in that file. */
mp_ann *mp_ann_new_file(mp_hist *h, mp_sym *s, const char *srcfile, double hot_pct,
			struct mp_err *err);
/* Add o's counts into a: the same function (or file) read from another recording, oh, of
 * the same build (a's attr e takes oh's attr map[e]; SIZE_MAX: none), for annotate -i A -i B;
 * o NULL when the function has no samples in oh (only oh's event totals are added). Lines,
 * totals and hot lines are recomputed. 0, or -EXDEV (err says so) when o's code is not a's
 * (another build: its instructions are elsewhere). */
int mp_ann_add(mp_ann *a, const mp_ann *o, const mp_hist *oh, const size_t *map,
	       struct mp_err *err);
void mp_ann_free(mp_ann *a); /* NULL-safe */
const struct mp_ann_info *mp_ann_info(const mp_ann *a);
size_t mp_ann_nlines(const mp_ann *a);
const struct mp_ann_line *mp_ann_line(const mp_ann *a, size_t i);
size_t mp_ann_ninsns(const mp_ann *a);
const struct mp_ann_insn *mp_ann_insn(const mp_ann *a, size_t i);


#endif
