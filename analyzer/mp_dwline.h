/* mp_dwline.h - a compilation unit's DWARF line table read as libdw's dwarf_getsrclines()
 * reads it, for dwarf_getsrc_die()'s answers without its allocation per row and its sort
 * through pointers (internal to the analyzer). */
#ifndef MP_DWLINE_H
#define MP_DWLINE_H

#include <stddef.h>
#include <stdint.h>

/* The sections a line table reads (borrowed; NULL and 0 when missing). */
struct mp_dwline_secs {
	const uint8_t *line, *line_str, *str;
	size_t nline, nline_str, nstr;
};

typedef struct mp_dwline mp_dwline;

/* The table at .debug_line offset off of a unit with address_size and comp_dir (NULL when
 * it has none). NULL when it is one to leave to libdw (DW_LNE_define_file, VLIW op_index,
 * opcodes, forms or values libdw reads otherwise, truncates or refuses; malformed data) or
 * out of memory: libdw then gives the same answers. Names may point into s's sections. */
mp_dwline *mp_dwline_read(const struct mp_dwline_secs *s, uint64_t off, unsigned address_size,
			  const char *comp_dir);
/* As dwarf_getsrc_die() + dwarf_linesrc() + dwarf_lineno(): 0 and *file (NULL when the
 * row's file index is out of range), *line; -1 when no row holds addr. */
int mp_dwline_find(const mp_dwline *t, uint64_t addr, const char **file /* OUT */,
		   int *line /* OUT */);
/* The .debug_line offset t was read at. */
uint64_t mp_dwline_offset(const mp_dwline *t);
void mp_dwline_free(mp_dwline *t);

#endif
