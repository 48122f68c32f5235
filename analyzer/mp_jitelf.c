/* mp_jitelf.c - the ELF object of one JIT'ed function (memprof inject --jit): its code in
 * one PT_LOAD at MP_JIT_TEXT_OFF, a .symtab naming it, a GNU build-id of its bytes; the
 * layout perf inject gives its jitted-PID-N.so, so that either tool reads the other's. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

enum { S_NULL, S_TEXT, S_SYMTAB, S_STRTAB, S_NOTE, S_SHSTRTAB, S_N };

static const char shstr[] = "\0.text\0.symtab\0.strtab\0.note.gnu.build-id\0.shstrtab";
static const unsigned shname[S_N] = { 0, 1, 7, 15, 23, 42 };

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~(uint64_t)7;
}

/* 20 bytes that change with any byte of the name or the code (not a cryptographic hash:
 * the id tells objects apart, nothing rests on it being hard to forge). */
static void build_id(const char *name, const uint8_t *code, uint64_t size, uint8_t out[20])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (uint64_t i = 0; i < size; i++)
		h = (h ^ code[i]) * 0x100000001b3ULL;
	for (int k = 0; k < 3; k++) {
		uint64_t v = mp_mix64(h + (uint64_t)k);
		memcpy(out + 8 * k, &v, k < 2 ? 8 : 4);
	}
}

int mp_jit_elf_write(const char *path, uint16_t machine, const char *name, const uint8_t *code,
		     uint64_t size, struct mp_err *err)
{
	size_t nlen = strlen(name) + 1;
	uint64_t off[S_N], len[S_N];
	off[S_TEXT] = MP_JIT_TEXT_OFF;
	len[S_TEXT] = size;
	off[S_SYMTAB] = align8(off[S_TEXT] + size);
	len[S_SYMTAB] = 2 * sizeof(Elf64_Sym);
	off[S_STRTAB] = off[S_SYMTAB] + len[S_SYMTAB];
	len[S_STRTAB] = 1 + nlen;
	off[S_NOTE] = align8(off[S_STRTAB] + len[S_STRTAB]);
	len[S_NOTE] = 12 + 4 + 20;
	off[S_SHSTRTAB] = off[S_NOTE] + len[S_NOTE];
	len[S_SHSTRTAB] = sizeof(shstr);
	uint64_t shoff = align8(off[S_SHSTRTAB] + len[S_SHSTRTAB]);
	uint64_t total = shoff + S_N * sizeof(Elf64_Shdr);
	uint8_t *f = calloc(1, total);
	if (!f)
		return mp_err_set(err, -ENOMEM, "%s: out of memory for %llu bytes of code", path,
				  (unsigned long long)size);

	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = machine, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_shoff = shoff,
			  .e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr),
			  .e_phnum = 1, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = S_N,
			  .e_shstrndx = S_SHSTRTAB };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(f, &eh, sizeof(eh));
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = 0,
			  .p_paddr = 0, .p_filesz = MP_JIT_TEXT_OFF + size,
			  .p_memsz = MP_JIT_TEXT_OFF + size, .p_align = 0x1000 };
	memcpy(f + eh.e_phoff, &ph, sizeof(ph));
	if (size)
		memcpy(f + off[S_TEXT], code, size);
	Elf64_Sym sym = { .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
			  .st_shndx = S_TEXT, .st_value = MP_JIT_TEXT_OFF, .st_size = size };
	memcpy(f + off[S_SYMTAB] + sizeof(Elf64_Sym), &sym, sizeof(sym));
	memcpy(f + off[S_STRTAB] + 1, name, nlen);
	uint32_t nh[3] = { 4, 20, NT_GNU_BUILD_ID };
	memcpy(f + off[S_NOTE], nh, sizeof(nh));
	memcpy(f + off[S_NOTE] + 12, "GNU", 4);
	build_id(name, code, size, f + off[S_NOTE] + 16);
	memcpy(f + off[S_SHSTRTAB], shstr, sizeof(shstr));

	static const struct {
		uint32_t type;
		uint64_t flags, align, entsize;
	} kind[S_N] = {
		[S_TEXT] = { SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 16, 0 },
		[S_SYMTAB] = { SHT_SYMTAB, 0, 8, sizeof(Elf64_Sym) },
		[S_STRTAB] = { SHT_STRTAB, 0, 1, 0 },
		[S_NOTE] = { SHT_NOTE, 0, 4, 0 },
		[S_SHSTRTAB] = { SHT_STRTAB, 0, 1, 0 },
	};
	for (int i = 1; i < S_N; i++) {
		Elf64_Shdr sh = { .sh_name = shname[i], .sh_type = kind[i].type,
				  .sh_flags = kind[i].flags, .sh_offset = off[i], .sh_size = len[i],
				  .sh_addralign = kind[i].align, .sh_entsize = kind[i].entsize };
		if (i == S_TEXT)
			sh.sh_addr = MP_JIT_TEXT_OFF;
		if (i == S_SYMTAB) {
			sh.sh_link = S_STRTAB;
			sh.sh_info = 1; /* the first global symbol */
		}
		memcpy(f + shoff + (size_t)i * sizeof(sh), &sh, sizeof(sh));
	}

	struct mp_out o;
	int rc = mp_out_open(&o, path, NULL, err);
	if (!rc) {
		if (fwrite(f, 1, total, o.f) != total) {
			rc = mp_err_set(err, -EIO, "%s: cannot write", path);
			mp_out_abort(&o);
		} else {
			rc = mp_out_commit(&o, err);
		}
	}
	free(f);
	return rc;
}
