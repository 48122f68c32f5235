/* mp_dwtrim.c - the debug sections libdw opens for source lines (see mp_dwtrim.h). */
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mp_dwtrim.h"

/* sections neither line tables, CU ranges, scopes nor names read */
static int unused(const char *name)
{
	static const char *const v[] = {
		".debug_loc",	      ".debug_loclists",     ".debug_macro",
		".debug_macinfo",      ".debug_aranges",      ".debug_pubnames",
		".debug_pubtypes",     ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
		".debug_names",	      ".debug_frame",
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(name, v[i]))
			return 1;
	return 0;
}

/* the section's name, or NULL */
static const char *scn_name(Elf *e, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
	return gelf_getshdr(scn, sh) ? elf_strptr(e, shstrndx, sh->sh_name) : NULL;
}

Elf *mp_dwtrim_open(Elf *e, int fd, void **map, size_t *len)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	struct stat st;
	*map = NULL;
	*len = 0;
	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx) || fstat(fd, &st) ||
	    eh.e_shentsize < 4 || st.st_size <= 0)
		return NULL;
	const char *empty = elf_strptr(e, shstrndx, 0);
	if (!empty || *empty)
		return NULL; /* name 0 must be "" */
	int gain = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n = scn_name(e, shstrndx, scn, &sh);
		/* libdw looks for these files beside the one it opens (an alt file; split
		 * units' .dwo, whose skeletons need .debug_addr): not in memory */
		if (n && (!strcmp(n, ".gnu_debugaltlink") || !strcmp(n, ".debug_sup") ||
			  !strcmp(n, ".debug_addr")))
			return NULL;
		if (n && unused(n))
			gain |= (sh.sh_flags & SHF_COMPRESSED) != 0;
	}
	if (!gain)
		return NULL;
	size_t size = (size_t)st.st_size;
	char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n = scn_name(e, shstrndx, scn, &sh);
		uint64_t at = eh.e_shoff + (uint64_t)elf_ndxscn(scn) * eh.e_shentsize;
		if (!n || !unused(n))
			continue;
		if (at > size || size - at < 4) {
			munmap(m, size);
			return NULL;
		}
		memset(m + at, 0, 4); /* sh_name, the first field of both classes */
	}
	Elf *t = elf_memory(m, size);
	if (!t || elf_kind(t) != ELF_K_ELF) {
		if (t)
			elf_end(t);
		munmap(m, size);
		return NULL;
	}
	*map = m;
	*len = size;
	return t;
}

uint64_t mp_dwtrim_cost(Elf *e)
{
	size_t shstrndx;
	uint64_t c = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n = scn_name(e, shstrndx, scn, &sh);
		if (!n || strncmp(n, ".debug_", 7) || sh.sh_type == SHT_NOBITS)
			continue;
		GElf_Chdr ch;
		if (!(sh.sh_flags & SHF_COMPRESSED))
			c += sh.sh_size;
		else if (!unused(n) && gelf_getchdr(scn, &ch))
			c += 6 * ch.ch_size;
	}
	return c + 1;
}
