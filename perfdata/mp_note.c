/* mp_note.c - the GNU build-id among ELF notes (objects, /sys/kernel/notes). */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>

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

const void *mp_note_vdso(size_t *len, uint8_t *id, size_t *id_len)
{
	const unsigned char *img = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	*id_len = 0;
	if (!img || memcmp(img, ELFMAG, SELFMAG))
		return NULL;
	size_t n, phoff, phnum, phentsize;
	if (img[EI_CLASS] == ELFCLASS64) {
		const Elf64_Ehdr *e = (const void *)img;
		n = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
	} else {
		const Elf32_Ehdr *e = (const void *)img;
		n = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
		phoff = e->e_phoff, phnum = e->e_phnum, phentsize = e->e_phentsize;
	}
	if (n < SELFMAG || n > (1u << 20))
		return NULL;
	for (size_t i = 0; i < phnum && !*id_len; i++) {
		size_t at = phoff + i * phentsize, off, sz;
		if (at + phentsize > n)
			break;
		if (img[EI_CLASS] == ELFCLASS64) {
			const Elf64_Phdr *ph = (const void *)(img + at);
			if (ph->p_type != PT_NOTE)
				continue;
			off = ph->p_offset, sz = ph->p_filesz;
		} else {
			const Elf32_Phdr *ph = (const void *)(img + at);
			if (ph->p_type != PT_NOTE)
				continue;
			off = ph->p_offset, sz = ph->p_filesz;
		}
		if (off < n && sz <= n - off &&
		    mp_note_build_id(img + off, sz, id, 20, id_len))
			*id_len = 0;
	}
	*len = n;
	return img;
}
