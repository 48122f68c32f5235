/* mp_dso.c - objects ("dsos"): found by recorded path, opened lazily, checked against the
 * recorded build-id, with their load segments and function symbols. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mp_debugfile.h"
#include "mp_dso.h"
#include "mp_kallsyms.h"
#include "mp_srcline.h"
#include "mp_sym_int.h"

static int is_anon_name(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14) || !strncmp(f, "[stack", 6) ||
	       !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]") || !strncmp(f, "[anon", 5);
}

static int is_kmodule_path(const char *f)
{
	size_t n = strlen(f);
	return (n > 3 && !strcmp(f + n - 3, ".ko")) || (n > 6 && !strcmp(f + n - 6, ".ko.gz")) ||
	       (n > 6 && !strcmp(f + n - 6, ".ko.xz")) || (n > 7 && !strcmp(f + n - 7, ".ko.zst"));
}

static char *short_name(const char *path, int kernel)
{
	char *out;

	if (kernel) {
		if (!strncmp(path, "[kernel.kallsyms]", 17) || !strncmp(path, "[guest.kernel", 13))
			return strdup("[kernel.kallsyms]");
		if (path[0] == '[')
			return strdup(path);
		if (is_kmodule_path(path)) {
			const char *b = strrchr(path, '/');
			b = b ? b + 1 : path;
			size_t n = strcspn(b, ".");
			if (asprintf(&out, "[%.*s]", (int)n, b) < 0)
				return NULL;
			for (char *p = out; *p; p++)
				if (*p == '-')
					*p = '_';
			return out;
		}
		return strdup("[kernel.kallsyms]");
	}
	if (path[0] == '[' || !strncmp(path, "//", 2))
		return strdup(path);
	const char *b = strrchr(path, '/');
	return strdup(b && b[1] ? b + 1 : path);
}

/* The recorded build-id of the object from the header table, matched by path (the main
 * kernel by any non-module entry). */
static void recorded_build_id(const mp_sym *s, struct mp_dso *d, const char *path, int kernel)
{
	for (size_t i = 0; i < s->nbids; i++) {
		const struct mp_pd_build_id *b = &s->bids[i];
		if (!b->filename)
			continue;
		int bk = b->cpumode == PERF_RECORD_MISC_KERNEL ||
			 b->cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
		if (bk != kernel)
			continue;
		int kmain = kernel && !d->module && !is_kmodule_path(b->filename) &&
			    (b->filename[0] != '[' || !strncmp(b->filename, "[kernel.kallsyms]", 17));
		if (!strcmp(b->filename, path) || kmain) {
			size_t n = b->id_len <= 20 ? b->id_len : 20;
			memcpy(d->info.build_id, b->id, n);
			d->info.build_id_len = (uint8_t)n;
			/* perf names the kernel after a vmlinux listed in the build-id table */
			if (kmain && b->filename[0] != '[') {
				char *nn = strdup("[kernel.vmlinux]");
				if (nn) {
					free(d->name);
					d->name = nn;
					d->info.name = nn;
				}
			}
			return;
		}
	}
}

const char *mp_dso_jit_path(mp_sym *s, const char *path, uint32_t pid, char *buf, size_t n)
{
	if (!is_anon_name(path) || path[0] == '[')
		return path; /* [heap], [stack]: no JIT writes a map for those */
	snprintf(buf, n, "/tmp/perf-%u.map", pid);
	if (pid != s->jit_pid) {
		char *f = mp_sym_join_symfs(s, buf);
		s->jit_pid = pid;
		s->jit_has_map = f && !access(f, R_OK);
		free(f);
	}
	return s->jit_has_map ? buf : path;
}

uint32_t mp_dso_get(mp_sym *s, const char *path, int kernel)
{
	uint64_t h = mp_u64map_key(mp_strhash(path) ^ (uint64_t)kernel);
	const uint32_t *v;

	while ((v = mp_u64map_get(&s->dso_by_path, h))) {
		struct mp_dso *d = &s->dsos[*v];
		if (!strcmp(d->path, path) && d->kernel == kernel)
			return *v;
		h = mp_u64map_key(mp_mix64(h + 1));
	}
	if (mp_grow((void **)&s->dsos, &s->capdsos, s->ndsos + 1, sizeof(struct mp_dso)))
		return UINT32_MAX;
	struct mp_dso *d = &s->dsos[s->ndsos];
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->dwfd = -1;
	d->kernel = kernel;
	d->path = strdup(path);
	d->name = short_name(path, kernel);
	int found;
	uint32_t *slot = d->path && d->name ? mp_u64map_slot(&s->dso_by_path, h, &found) : NULL;
	if (!slot) {
		free(d->path);
		free(d->name);
		return UINT32_MAX;
	}
	d->module = kernel && strcmp(d->name, "[kernel.kallsyms]");
	d->perfmap = !kernel && !strncmp(path, "/tmp/perf-", 10) && strlen(path) > 14 &&
		     !strcmp(path + strlen(path) - 4, ".map");
	if (d->perfmap) { /* named as perf names it */
		char *jn = NULL;
		if (asprintf(&jn, "[JIT] tid %.*s", (int)(strlen(path) - 14), path + 10) > 0) {
			free(d->name);
			d->name = jn;
		}
	}
	d->anon = !kernel && (is_anon_name(path) || d->perfmap);
	d->info.name = d->name;
	d->info.path = d->path;
	if (kernel)
		d->info.flags |= MP_DSO_KERNEL;
	if (d->anon && !d->perfmap)
		d->info.flags |= MP_DSO_ANON;
	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") || !strcmp(path, "[vdso32]"))
		d->info.flags |= MP_DSO_VDSO;
	recorded_build_id(s, d, path, kernel);
	*slot = (uint32_t)s->ndsos;
	return (uint32_t)s->ndsos++;
}

/* The vDSO of this process, as perf report does when its build-id cache lacks the
 * recording's: the kernel maps the same image into every process. Only when it is the
 * recording's: the same build-id, or (none recorded: memprof record keeps none) the same
 * kernel release and no --symfs. Copied into a memfd so that it reads as a file. */
static void own_vdso(mp_sym *s, struct mp_dso *d)
{
	struct utsname u;
	if (!d->info.build_id_len &&
	    (!s->osrelease || uname(&u) || strcmp(u.release, s->osrelease) ||
	     (s->symfs && *s->symfs && strcmp(s->symfs, "/"))))
		return;
	size_t len, bl0;
	uint8_t bid0[20];
	const void *img = mp_note_vdso(&len, bid0, &bl0);
	if (!img)
		return;
	int fd = memfd_create("memprof-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, img, len) != (ssize_t)len || !(d->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) ||
	    elf_kind(d->elf) != ELF_K_ELF || !(d->file = strdup("[vdso] (memprof's own)"))) {
		if (d->elf)
			elf_end(d->elf);
		d->elf = NULL;
		close(fd);
		return;
	}
	uint8_t bid[20];
	int bl = mp_elf_build_id(d->elf, bid, sizeof(bid));
	if (d->info.build_id_len &&
	    (bl != d->info.build_id_len || memcmp(bid, d->info.build_id, (size_t)bl))) {
		elf_end(d->elf);
		d->elf = NULL;
		free(d->file);
		d->file = NULL;
		close(fd);
		return;
	}
	d->fd = fd;
}

/* Find and open the object's file: the recorded path under --symfs, perf's build-id cache,
 * else the debug file of its build-id alone (it still gives symbols and lines). 1 when
 * d->elf is open. */
static int dso_open(mp_sym *s, struct mp_dso *d)
{
	if (d->path[0] != '[') {
		d->file = mp_sym_join_symfs(s, d->path);
		if (!d->file)
			return 0;
		d->elf = mp_elf_open(d->file, &d->fd);
		if (!d->elf && !access(d->file, F_OK))
			d->info.flags |= MP_DSO_NOT_ELF; /* unless another file is found below */
	}
	if (!d->elf)
		mp_debugfile_buildid_cache(s, d);
	if (!d->elf && !strcmp(d->path, "[vdso]"))
		own_vdso(s, d);
	if (!d->elf && d->path[0] == '[')
		return 0;
	if (!d->elf) {
		free(d->file);
		d->file = NULL;
		mp_debugfile_as_object(s, d);
	}
	if (d->elf)
		d->info.flags &= ~(unsigned)MP_DSO_NOT_ELF;
	return d->elf != NULL;
}

static void dso_opened(struct mp_dso *d)
{
	d->info.file = d->file;
	d->info.flags |= MP_DSO_FOUND;
	GElf_Ehdr eh;
	if (gelf_getehdr(d->elf, &eh)) {
		d->machine = eh.e_machine;
		d->etype = eh.e_type;
		d->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	}
}

/* The opened file's build-id (bid, bl bytes) differs from the recorded one: drop the file
 * and take the recorded version from perf's build-id cache (1), else flag the object (0). */
static int dso_replace_mismatch(mp_sym *s, struct mp_dso *d, const uint8_t *bid, int bl)
{
	char h1[41], h2[41];
	mp_hex_id(d->info.build_id, d->info.build_id_len, h1);
	mp_hex_id(bid, (size_t)bl, h2);
	elf_end(d->elf);
	close(d->fd);
	d->elf = NULL;
	d->fd = -1;
	/* perf record may have kept the recorded version in its build-id cache */
	if (mp_debugfile_buildid_cache(s, d)) {
		mp_log(MP_LOG_INFO, "%s: using %s from perf's build-id cache", d->path, d->file);
		return 1;
	}
	mp_log(MP_LOG_WARN, "%s: build-id %s differs from the recording's %s: not used "
	       "(its symbols and lines would be wrong)", d->file ? d->file : d->path, h2, h1);
	d->info.flags |= MP_DSO_BUILDID_MISMATCH;
	d->info.flags &= ~(unsigned)MP_DSO_FOUND;
	return 0;
}

static void dso_load_segments(struct mp_dso *d)
{
	size_t phnum;
	if (elf_getphdrnum(d->elf, &phnum))
		return;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (mp_grow((void **)&d->segs, &d->capsegs, d->nsegs + 1, sizeof(*d->segs)))
			break;
		d->segs[d->nsegs++] = (struct mp_load_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr,
							    ph.p_memsz };
	}
}

/* Symbols from the object's .symtab, else its debug file's, else .dynsym (looking for the
 * debug file, by build-id bid, when the object lacks a .symtab or lines). */
static void dso_load_symbols(mp_sym *s, struct mp_dso *d, const uint8_t *bid, size_t bid_len)
{
	int own_symtab = mp_elf_has_section(d->elf, SHT_SYMTAB);
	if (!own_symtab || !mp_elf_has_dwarf_lines(d->elf))
		mp_debugfile_find(s, d, bid, bid_len);
	if (own_symtab)
		mp_symtab_load_elf(d->elf, SHT_SYMTAB, &d->syms);
	if (!d->syms.n && d->dwelf)
		mp_symtab_load_elf(d->dwelf, SHT_SYMTAB, &d->syms);
	if (!d->syms.n)
		mp_symtab_load_elf(d->elf, SHT_DYNSYM, &d->syms);
	if (d->syms.n)
		mp_symtab_demangle(&s->demangler, &d->syms);
	/* the PLT entries as perf names them (free@plt), from the object itself */
	mp_symtab_add_plt(d->elf, &d->syms, &s->demangler);
	if (d->syms.n)
		d->info.flags |= MP_DSO_SYMTAB;
	int own_lines = mp_elf_has_dwarf_lines(d->elf);
	if ((d->dwelf && mp_elf_has_dwarf_lines(d->dwelf)) || own_lines)
		d->info.flags |= MP_DSO_DEBUGINFO;
	d->info.debug_file = d->dwelf ? d->debug_file : (own_lines ? d->file : NULL);
}

void mp_dso_load(mp_sym *s, struct mp_dso *d)
{
	if (d->loaded)
		return;
	d->loaded = 1;
	if (d->kernel) {
		mp_kallsyms_load_kernel(s, d);
		return;
	}
	if (d->perfmap) {
		d->file = mp_sym_join_symfs(s, d->path);
		if (d->file && !mp_perfmap_load(d->file, &d->syms)) {
			d->info.file = d->file;
			d->info.flags |= MP_DSO_FOUND | (d->syms.n ? MP_DSO_SYMTAB : 0);
		}
		return;
	}
	if (d->anon || !dso_open(s, d))
		return;
	uint8_t bid[20];
	int bl;
	for (;;) {
		dso_opened(d);
		bl = mp_elf_build_id(d->elf, bid, sizeof(bid));
		if (!d->info.build_id_len || bl <= 0 ||
		    ((size_t)bl == d->info.build_id_len && !memcmp(bid, d->info.build_id, (size_t)bl)))
			break;
		if (!dso_replace_mismatch(s, d, bid, bl))
			return;
	}
	dso_load_segments(d);
	if (d->info.build_id_len)
		dso_load_symbols(s, d, d->info.build_id, d->info.build_id_len);
	else
		dso_load_symbols(s, d, bid, bl > 0 ? (size_t)bl : 0);
}

uint64_t mp_dso_off_to_vaddr(const struct mp_dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct mp_load_seg *g = &d->segs[i];
		if (off >= g->off && off < g->off + (g->filesz ? g->filesz : g->memsz))
			return off - g->off + g->vaddr;
	}
	return off;
}

long mp_segment_pread(int fd, uint64_t off, uint64_t vaddr, uint64_t filesz, uint64_t addr,
		      void *buf, size_t len)
{
	uint64_t avail = vaddr + filesz - addr;
	size_t n = len < avail ? len : (size_t)avail;
	ssize_t r = pread(fd, buf, n, (off_t)(off + (addr - vaddr)));
	return r < 0 ? -errno : (long)r;
}

long mp_dso_read(const struct mp_dso *d, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct mp_load_seg *g = &d->segs[i];
		if (addr >= g->vaddr && addr < g->vaddr + g->filesz)
			return mp_segment_pread(d->fd, g->off, g->vaddr, g->filesz, addr, buf, len);
	}
	return -ENOENT;
}

void mp_dso_fini(struct mp_dso *d)
{
	mp_srcline_fini(d);
	if (d->dwelf)
		elf_end(d->dwelf);
	if (d->dwfd >= 0)
		close(d->dwfd);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	mp_symtab_fini(&d->syms);
	free(d->segs);
	free(d->path);
	free(d->name);
	free(d->file);
	free(d->debug_file);
}
