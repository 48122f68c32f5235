/* mp_dwscope.h - the scopes of a compilation unit that hold code, indexed once per unit
 * (internal to the analyzer): the DIEs with address ranges as dwarf_getscopes descends
 * them (a DIE without ranges is not looked into; only the scope tags and namespaces,
 * classes and structures are), so that the innermost scope at an address and its concrete
 * parents come without walking the unit's DIEs again at each address (dwarf_getscopes
 * walks the unit's top level each time, dwarf_getscopes_die the unit up to the DIE). */
#ifndef MP_DWSCOPE_H
#define MP_DWSCOPE_H

#include <elfutils/libdw.h>
#include <stdint.h>

struct mp_dwscopes;

/* The index of unit cu's scopes: NULL when out of memory or when libdw cannot read a
 * DIE's ranges (the caller asks libdw then, which fails there too or knows better). */
struct mp_dwscopes *mp_dwscopes_new(Dwarf_Die *cu);
void mp_dwscopes_free(struct mp_dwscopes *t); /* NULL-safe */
/* The scopes holding addr, innermost first, each the parent of the one before, up to the
 * unit (not included): at each level the first DIE (in the unit's order) whose ranges
 * hold addr, as dwarf_getscopes picks it. Their offsets into out[0..max); the number. */
size_t mp_dwscopes_path(const struct mp_dwscopes *t, uint64_t addr, Dwarf_Off *out, size_t max);

#endif
