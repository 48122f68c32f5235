/* mp_dwtrim.h - an object's debug sections as libdw is to open them for source lines:
 * without the compressed sections no line lookup reads, and what opening them costs
 * (internal to the analyzer). */
#ifndef MP_DWTRIM_H
#define MP_DWTRIM_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* A copy of e (the file fd) for dwarf_begin_elf() in which the compressed sections that
 * source lines and scopes never read (.debug_loclists, .debug_loc, .debug_macro,
 * .debug_aranges, ...) have no name, so that libdw neither decompresses them nor knows
 * them: a private mapping of the file (*map, *len: munmap() it after elf_end()) with those
 * section headers' names cleared. NULL when there is nothing to gain or it cannot be made,
 * or the file has .gnu_debugaltlink, .debug_sup or .debug_addr (split units): libdw looks
 * for their files beside the file it opens, which a copy in memory does not have. */
Elf *mp_dwtrim_open(Elf *e, int fd, void **map /* OUT */, size_t *len /* OUT */);
/* Roughly what opening e's DWARF costs, to share the files out between threads: the bytes
 * of its debug sections, compressed ones (which libdw inflates) by their size inflated,
 * weighted 6 times (callgrind: ~25 instructions a byte inflated against ~4 for a file's
 * byte otherwise); those mp_dwtrim_open() leaves out count nothing. */
uint64_t mp_dwtrim_cost(Elf *e);

#endif
