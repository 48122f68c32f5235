/* mp_dso.h - objects ("dsos"): one per recorded path, opened lazily (the file under
 * --symfs, perf's build-id cache, or a debug file by build-id), checked against the
 * recorded build-id, with load segments and symbols (internal to the analyzer). */
#ifndef MP_DSO_H
#define MP_DSO_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_analyzer.h"
#include "mp_symtab.h"

struct mp_cu_range; /* mp_srcline.h */
struct mp_dwline; /* mp_dwline.h */
struct mp_dwline_secs;

struct mp_load_seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct mp_dso {
	struct mp_sym_dso_info info;
	char *path, *name, *file, *debug_file;
	int loaded, kernel, module, anon;
	int perfmap; /* /tmp/perf-PID.map: a JIT's symbols for its anonymous code (anon too) */
	/* ELF */
	int fd;
	Elf *elf;
	int machine, is64, etype;
	struct mp_load_seg *segs;
	size_t nsegs, capsegs;
	struct mp_symtab syms;
	/* DWARF (mp_srcline.c) */
	int dw_tried;
	int dwfd;
	Elf *dwelf;
	Dwarf *dw;
	struct mp_cu_range *cus;
	size_t ncus;
	/* line tables read here (mp_dwline.c) per unit (mp_cu_range.unit); unit_lt: 0 not
	 * yet, 1 read (owned), 2 another unit's table, 3 left to libdw */
	Elf *dwtrim; /* what libdw opened when not dwelf or elf (mp_dwtrim.h), and its map */
	void *dwmap;
	size_t dwmaplen;
	struct mp_dwline_secs *dwsecs;
	struct mp_dwline **lt;
	uint8_t *unit_lt;
	size_t nunits;
	/* each unit's scopes that hold code (mp_dwscope.h), by its DIE's offset, on first
	 * use: scx_idx maps the offset to scx[], whose NULL says libdw is asked instead */
	struct mp_u64map scx_idx;
	struct mp_dwscopes **scx;
	size_t nscx, capscx;
};

/* The index of the object for (path, kernel), created on first use; UINT32_MAX on
 * allocation failure. */
uint32_t mp_dso_get(mp_sym *s, const char *path, int kernel);
/* The object an executable anonymous mapping of pid is read as: perf's map of a JIT,
 * "/tmp/perf-PID.map" written into buf, when the file is there (under --symfs); else
 * path itself. */
const char *mp_dso_jit_path(mp_sym *s, const char *path, uint32_t pid, char *buf, size_t n);
/* JIT symbols of a perf map file's text (text[len], NUL-terminated; it becomes t's pool
 * on success): 0, or -ENOMEM. Lines that are not "START SIZE NAME" are skipped. */
int mp_perfmap_parse(char *text, size_t len, struct mp_symtab *t /* OUT */);
/* The same for a file: 0, -ENOENT (unreadable) or -ENOMEM. */
int mp_perfmap_load(const char *path, struct mp_symtab *t /* OUT */);
/* Open the object and read its symbols, once. */
void mp_dso_load(mp_sym *s, struct mp_dso *d);
/* ELF vaddr of a file offset (through the PT_LOAD segments; off itself when none holds
 * it). */
uint64_t mp_dso_off_to_vaddr(const struct mp_dso *d, uint64_t off);
/* Bytes at vaddr addr (inside [vaddr, vaddr + filesz)) of a segment at file offset off:
 * bytes read (short at the segment's end), or -errno. */
long mp_segment_pread(int fd, uint64_t off, uint64_t vaddr, uint64_t filesz, uint64_t addr,
		      void *buf, size_t len);
/* The object's bytes at ELF vaddr addr (from its PT_LOAD segments): bytes read or <0. */
long mp_dso_read(const struct mp_dso *d, uint64_t addr, void *buf, size_t len);
void mp_dso_fini(struct mp_dso *d);

#endif
