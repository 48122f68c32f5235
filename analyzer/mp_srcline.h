/* mp_srcline.h - source lines and inline scopes of an object's addresses through libdw,
 * with the compilation units indexed by address range (internal to the analyzer). */
#ifndef MP_SRCLINE_H
#define MP_SRCLINE_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_dso.h"

struct mp_cu_range {
	uint64_t lo, hi;
	Dwarf_Off off;
	uint32_t unit; /* the unit's number in the file, for its line table */
};

/* Sort CU ranges by start (n may be 0 and v NULL). */
void mp_cu_ranges_sort(struct mp_cu_range *v, size_t n);
/* Source file and line of ELF vaddr addr in d (opening its DWARF on first use); with inl,
 * also the innermost inlined function (NULL when not inlined). 0 or -ENOENT. */
int mp_srcline_find(mp_sym *s, struct mp_dso *d, uint64_t addr, const char **file,
		    unsigned *line, const char **inl);
/* The DWARF scopes at ELF vaddr addr in d, innermost first (dwarf_getscopes), *scopes
 * malloc'd (free it); their count, 0 when there is no DWARF there. */
int mp_srcline_scopes(struct mp_dso *d, uint64_t addr, Dwarf_Die **scopes /* OUT */);
/* The scopes at ELF vaddr addr in d, innermost first, each the concrete parent of the one
 * before, up to the unit (not included): dwarf_getscopes' innermost scope and then its
 * parents as dwarf_getscopes_die gives them, from an index of the unit's scopes made on
 * its first lookup (mp_dwscope.h). *scopes malloc'd (free it); their count, 0 when there
 * is no DWARF there, -1 when the unit has no index (libdw could not read it whole, or out
 * of memory: ask mp_srcline_scopes). */
int mp_srcline_scope_path(struct mp_dso *d, uint64_t addr, Dwarf_Die **scopes /* OUT */);
/* An object whose DWARF to open, with the ELF addresses whose lines will be looked up. */
struct mp_srcline_want {
	struct mp_dso *d;
	const uint64_t *addrs;
	size_t naddrs;
};
/* Open the DWARF of w[0..n).d (what mp_srcline_find() does on first use) and read the line
 * tables of the compilation units holding their addrs (what the lookups of those
 * addresses would on first use, in the same order), the biggest files first, shared
 * between this thread and a second one: each object's handles are used by one thread only,
 * and the outcome is the same as opening them one by one. */
void mp_srcline_open_many(const struct mp_srcline_want *w, size_t n);
void mp_srcline_fini(struct mp_dso *d);

#endif
