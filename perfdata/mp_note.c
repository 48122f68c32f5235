/* mp_note.c - the GNU build-id among ELF notes (objects, /sys/kernel/notes). */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "mp_perfdata.h"

int mp_note_build_id(const void *notes, size_t len, uint8_t *out, size_t max,
		     size_t *out_len)
{
	const unsigned char *p = notes;
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		if (namesz > len || descsz > len)
			break;
		size_t nameoff = off + 12;
		size_t descoff = nameoff + ((namesz + 3) & ~(size_t)3);
		size_t next = descoff + ((descsz + 3) & ~(size_t)3);
		if (next > len)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + nameoff, "GNU", 4) &&
		    descsz > 0) {
			size_t n = descsz < max ? descsz : max;
			memcpy(out, p + descoff, n);
			*out_len = n;
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}
