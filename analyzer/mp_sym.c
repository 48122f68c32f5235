/* mp_sym.c - where an address lives: process maps from MMAP/COMM/FORK records, ELF symbols
 * through libelf, source lines through libdw, kernel symbols from kallsyms. */
#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mp_analyzer.h"
#include "mp_anint.h"

struct esym {
	uint64_t start, end;
	const char *name;
	uint8_t bind;
};

struct symtab {
	struct esym *v;
	size_t n;
	char *pool; /* names */
};

struct load_seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off off;
};

struct dso {
	struct mp_sym_dso_info info;
	char *path, *name, *file, *debug_file;
	int loaded, kernel, module, anon;
	/* ELF */
	int fd;
	Elf *elf;
	int machine, is64, etype;
	struct load_seg *segs;
	size_t nsegs, capsegs;
	struct symtab syms;
	/* DWARF */
	int dw_tried;
	int dwfd;
	Elf *dwelf;
	Dwarf *dw;
	struct cu_range *cus;
	size_t ncus;
};

struct map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	uint8_t kernel;
};

struct proc {
	uint32_t pid;
	uint32_t *maps; /* map ids sorted by start, non-overlapping */
	size_t n, cap;
	uint32_t last;
};

struct mp_sym {
	char *symfs;
	char *buildid_dir;
	char *kallsyms;
	int no_srcline;
	char *osrelease;
	struct mp_pd_build_id *bids;
	size_t nbids;

	struct dso *dsos;
	size_t ndsos, capdsos;
	struct mp_u64map dso_by_path; /* strhash(path) -> dso idx (probe on collision) */

	struct map *maps;
	size_t nmaps, capmaps;

	struct proc *procs;
	size_t nprocs, capprocs;
	/* the map of the last lookup, valid until the next task record */
	uint32_t lk_pid, lk_map;
	uint16_t lk_cpumode;
	uint64_t lk_start, lk_end;
	struct mp_u64map proc_by_pid;
	uint32_t last_pid, last_proc;

	/* interned strings */
	char **strs;
	size_t nstrs, capstrs;
	struct mp_u64map str_by_hash;

	struct mp_u64map comm_by_tid; /* (pid << 32 | tid) -> string id */

	/* C++ demangler, __cxa_demangle of libstdc++ loaded at run time (NULL: names stay
	 * mangled) */
	void *cxx_lib;
	char *(*cxa_demangle)(const char *, char *, size_t *, int *);
	int cxx_tried;

	/* the running kernel's code (/proc/kcore), for disassembly */
	int kcore_tried, kcore_fd, kcore_machine;
	Elf64_Phdr *kcore_ph;
	size_t kcore_nph;

	/* kernel symbols */
	int ksyms_tried;
	struct symtab ksyms;
	int ksyms_ok;
};

#define KERNEL_PID UINT32_MAX

/* ---- strings ---- */

/* Probe sequence over a u64map keyed by string hash: first key to try, then next. */
static uint64_t probe_key(uint64_t h)
{
	return h == UINT64_MAX ? h - 1 : h;
}

static uint32_t intern(mp_sym *s, const char *str)
{
	uint64_t h = probe_key(mp_strhash(str));
	const uint32_t *v;

	while ((v = mp_u64map_get(&s->str_by_hash, h))) {
		if (!strcmp(s->strs[*v], str))
			return *v;
		h = probe_key(mp_mix64(h + 1));
	}
	if (mp_grow((void **)&s->strs, &s->capstrs, s->nstrs + 1, sizeof(char *)))
		return UINT32_MAX;
	char *d = strdup(str);
	if (!d)
		return UINT32_MAX;
	int found;
	uint32_t *slot = mp_u64map_slot(&s->str_by_hash, h, &found);
	if (!slot) {
		free(d);
		return UINT32_MAX;
	}
	s->strs[s->nstrs] = d;
	*slot = (uint32_t)s->nstrs;
	return (uint32_t)s->nstrs++;
}

static const char *intern_str(mp_sym *s, const char *str)
{
	uint32_t id = intern(s, str);
	return id == UINT32_MAX ? "[nomem]" : s->strs[id];
}

/* ---- paths ---- */

static char *join_symfs(const mp_sym *s, const char *path)
{
	char *out;

	if (!s->symfs || !*s->symfs || !strcmp(s->symfs, "/"))
		return strdup(path);
	if (asprintf(&out, "%s%s%s", s->symfs, path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}


/* ---- dsos ---- */

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

static uint32_t dso_get(mp_sym *s, const char *path, int kernel)
{
	uint64_t h = probe_key(mp_strhash(path) ^ (uint64_t)kernel);
	const uint32_t *v;

	while ((v = mp_u64map_get(&s->dso_by_path, h))) {
		struct dso *d = &s->dsos[*v];
		if (!strcmp(d->path, path) && d->kernel == kernel)
			return *v;
		h = probe_key(mp_mix64(h + 1));
	}
	if (mp_grow((void **)&s->dsos, &s->capdsos, s->ndsos + 1, sizeof(struct dso)))
		return UINT32_MAX;
	struct dso *d = &s->dsos[s->ndsos];
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
	d->anon = !kernel && is_anon_name(path);
	d->info.name = d->name;
	d->info.path = d->path;
	if (kernel)
		d->info.flags |= MP_DSO_KERNEL;
	if (d->anon)
		d->info.flags |= MP_DSO_ANON;
	if (!strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]") || !strcmp(path, "[vdso32]"))
		d->info.flags |= MP_DSO_VDSO;
	/* recorded build-id from the header table, matched by path */
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
			break;
		}
	}
	*slot = (uint32_t)s->ndsos;
	return (uint32_t)s->ndsos++;
}

static int elf_build_id(Elf *elf, uint8_t *out, size_t max)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((n = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4)) {
				size_t len = nh.n_descsz < max ? nh.n_descsz : max;
				memcpy(out, (char *)data->d_buf + doff, len);
				return (int)len;
			}
			off = n;
		}
	}
	/* files without section headers: program headers */
	size_t phnum;
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!data)
			continue;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while ((n = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + noff, "GNU", 4)) {
				size_t len = nh.n_descsz < max ? nh.n_descsz : max;
				memcpy(out, (char *)data->d_buf + doff, len);
				return (int)len;
			}
			off = n;
		}
	}
	return 0;
}

static Elf *open_elf(const char *path, int *fd_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fd_out = fd;
	return e;
}

static int prefix_underscores(const char *n)
{
	int c = 0;
	while (*n++ == '_')
		c++;
	return c;
}

/* perf's choose_best_symbol(): which of two symbols at the same address to keep. */
static int better_sym(const struct esym *a, const struct esym *b)
{
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	if (lb == 0 && la > 0)
		return 1;
	if (la == 0 && lb > 0)
		return 0;
	int wa = a->bind == STB_WEAK, wb = b->bind == STB_WEAK;
	if (wb && !wa)
		return 1;
	if (wa && !wb)
		return 0;
	int ga = a->bind == STB_GLOBAL, gb = b->bind == STB_GLOBAL;
	if (ga && !gb)
		return 1;
	if (gb && !ga)
		return 0;
	int ua = prefix_underscores(a->name), ub = prefix_underscores(b->name);
	if (ub > ua)
		return 1;
	if (ua > ub)
		return 0;
	size_t na = strlen(a->name), nb = strlen(b->name);
	if (na >= nb)
		return 1;
	return 0;
}

static int esym_cmp(const void *pa, const void *pb)
{
	const struct esym *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

/* Sort, drop duplicates as perf does, and give zero-sized symbols the room up to the next
 * one (perf's symbols__fixup_end). */
static void symtab_finish(struct symtab *t, int kallsyms)
{
	if (!t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), esym_cmp);
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (w && t->v[w - 1].start == t->v[i].start) {
			if (!better_sym(&t->v[w - 1], &t->v[i]))
				t->v[w - 1] = t->v[i];
			continue;
		}
		t->v[w++] = t->v[i];
	}
	t->n = w;
	for (size_t i = 0; i + 1 < t->n; i++) {
		struct esym *p = &t->v[i], *c = &t->v[i + 1];
		if (p->end == p->start) {
			if (kallsyms && (!strchr(p->name, '[') != !strchr(c->name, '[')))
				p->end = ((p->end + 4096) + 4095) / 4096 * 4096;
			else
				p->end = c->start;
		}
	}
	struct esym *l = &t->v[t->n - 1];
	if (l->end == l->start)
		l->end = (l->start + 4095) / 4096 * 4096 + 4096;
}

static const struct esym *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = first with start > addr; look back over a few possibly enclosing symbols */
	for (size_t k = 0; k < 4 && lo > 0; k++, lo--) {
		const struct esym *e = &t->v[lo - 1];
		if (addr >= e->start && addr < e->end)
			return e;
	}
	return NULL;
}

static void symtab_fini(struct symtab *t)
{
	free(t->v);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* Load function symbols from one section of type (SHT_SYMTAB/SHT_DYNSYM). */
static int load_elf_syms(Elf *elf, unsigned type, struct symtab *t)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Ehdr eh;
	int arm = gelf_getehdr(elf, &eh) && eh.e_machine == EM_ARM;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		struct mp_buf pool = { 0 };
		size_t cap = 0, cnt = 0;
		struct esym *v = NULL;
		/* offsets into the pool first; pointers fixed after the pool stops moving */
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			int st = GELF_ST_TYPE(sym.st_info);
			if ((st != STT_FUNC && st != STT_GNU_IFUNC) || !sym.st_name ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!nm || !*nm)
				continue;
			if (mp_grow((void **)&v, &cap, cnt + 1, sizeof(*v)))
				goto nomem;
			/* ARM marks Thumb functions with bit 0 of the address */
			uint64_t val = arm ? sym.st_value & ~(uint64_t)1 : sym.st_value;
			v[cnt].start = val;
			v[cnt].end = val + sym.st_size;
			v[cnt].bind = (uint8_t)GELF_ST_BIND(sym.st_info);
			v[cnt].name = (const char *)(uintptr_t)pool.len;
			if (mp_buf_append(&pool, nm, strlen(nm) + 1))
				goto nomem;
			cnt++;
		}
		if (!cnt) {
			free(v);
			mp_buf_fini(&pool);
			continue;
		}
		for (size_t i = 0; i < cnt; i++)
			v[i].name = pool.data + (uintptr_t)v[i].name;
		t->v = v;
		t->n = cnt;
		t->pool = pool.data;
		symtab_finish(t, 0);
		return 1;
nomem:
		free(v);
		mp_buf_fini(&pool);
		return -ENOMEM;
	}
	return 0;
}

static int has_section_type(Elf *elf, unsigned type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	}
	return 0;
}

static Elf_Scn *section_by_name(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static int has_dwarf_lines(Elf *elf)
{
	Elf_Scn *scn = section_by_name(elf, ".debug_line");
	if (!scn)
		scn = section_by_name(elf, ".zdebug_line");
	if (!scn)
		return 0;
	GElf_Shdr sh;
	return gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

static void hex_id(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* Open a candidate debug file; keep it when its build-id (if both known) matches. */
static int try_debug(struct dso *d, const char *cand, const uint8_t *bid, size_t bid_len)
{
	int fd;
	Elf *e = open_elf(cand, &fd);

	if (!e)
		return 0;
	if (bid_len) {
		uint8_t id2[20];
		int n2 = elf_build_id(e, id2, sizeof(id2));
		if (n2 > 0 && ((size_t)n2 != bid_len || memcmp(id2, bid, bid_len))) {
			elf_end(e);
			close(fd);
			return 0;
		}
	}
	if (!has_dwarf_lines(e) && !has_section_type(e, SHT_SYMTAB)) {
		elf_end(e);
		close(fd);
		return 0;
	}
	d->dwelf = e;
	d->dwfd = fd;
	d->debug_file = strdup(cand);
	return 1;
}

static void find_debug_file(mp_sym *s, struct dso *d, const uint8_t *bid, size_t bid_len)
{
	char *cand = NULL;
	char hex[41];

	if (bid_len) {
		hex_id(bid, bid_len, hex);
		char rel[128];
		snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		cand = join_symfs(s, rel);
		if (cand && try_debug(d, cand, bid, bid_len))
			goto out;
		free(cand);
		cand = NULL;
	}
	Elf_Scn *scn = section_by_name(d->elf, ".gnu_debuglink");
	if (scn) {
		Elf_Data *data = elf_getdata(scn, NULL);
		if (data && data->d_size > 1 && memchr(data->d_buf, 0, data->d_size)) {
			const char *link = data->d_buf;
			char *dir = strdup(d->path);
			if (!dir)
				return;
			char *sl = strrchr(dir, '/');
			if (sl)
				*sl = 0;
			else
				dir[0] = 0;
			const char *fmts[] = { "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s" };
			for (size_t i = 0; i < 3; i++) {
				char *rel;
				if (asprintf(&rel, fmts[i], dir, link) < 0)
					break;
				cand = join_symfs(s, rel);
				free(rel);
				if (cand && strcmp(cand, d->file) && try_debug(d, cand, bid, bid_len)) {
					free(dir);
					goto out;
				}
				free(cand);
				cand = NULL;
			}
			free(dir);
		}
	}
	/* /usr/lib/debug/<path>.debug (Fedora) and /usr/lib/debug/<path> (Ubuntu) */
	{
		char *rel;
		if (asprintf(&rel, "/usr/lib/debug%s.debug", d->path) >= 0) {
			cand = join_symfs(s, rel);
			free(rel);
			if (cand && try_debug(d, cand, bid, bid_len))
				goto out;
			free(cand);
			cand = NULL;
		}
	}
	return;
out:
	free(cand);
}

static void dso_load_kernel(mp_sym *s, struct dso *d);
static void demangle_symtab(mp_sym *s, struct symtab *t);

/* perf's build-id cache: <dir>/.build-id/xx/yyyy links to the copy perf record kept of
 * the object (the file itself in the old layout, else a folder holding elf, vdso or debug).
 * On success d->elf/d->fd/d->file are set. */
static int try_buildid_cache(mp_sym *s, struct dso *d)
{
	if (!s->buildid_dir || !d->info.build_id_len)
		return 0;
	char hex[41];
	hex_id(d->info.build_id, d->info.build_id_len, hex);
	free(d->file);
	d->file = NULL;
	static const char *const leaf[] = { "", "/elf", "/vdso", "/debug" };
	for (size_t k = 0; k < 4 && !d->elf; k++) {
		free(d->file);
		if (asprintf(&d->file, "%s/.build-id/%.2s/%s%s", s->buildid_dir, hex, hex + 2,
			     leaf[k]) < 0) {
			d->file = NULL;
			break;
		}
		if (!(d->elf = open_elf(d->file, &d->fd)))
			continue;
		uint8_t got[20];
		int n = elf_build_id(d->elf, got, sizeof(got));
		if (n != d->info.build_id_len || memcmp(got, d->info.build_id, (size_t)n)) {
			elf_end(d->elf);
			close(d->fd);
			d->elf = NULL;
			d->fd = -1;
		}
	}
	if (!d->elf) {
		free(d->file);
		d->file = NULL;
	}
	return d->elf != NULL;
}

static void dso_load(mp_sym *s, struct dso *d)
{
	if (d->loaded)
		return;
	d->loaded = 1;
	if (d->kernel) {
		dso_load_kernel(s, d);
		return;
	}
	if (d->anon)
		return;
	if (d->path[0] != '[') {
		d->file = join_symfs(s, d->path);
		if (!d->file)
			return;
		d->elf = open_elf(d->file, &d->fd);
	}
	if (!d->elf)
		try_buildid_cache(s, d);
	if (!d->elf && d->path[0] == '[')
		return;
	if (!d->elf) {
		/* a debug file by build-id alone still gives symbols and lines */
		free(d->file);
		d->file = NULL;
		if (d->info.build_id_len) {
			char hex[41], rel[128];
			hex_id(d->info.build_id, d->info.build_id_len, hex);
			snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
				 hex + 2);
			char *cand = join_symfs(s, rel);
			if (cand && try_debug(d, cand, d->info.build_id, d->info.build_id_len)) {
				d->elf = d->dwelf;
				d->fd = d->dwfd;
				d->dwelf = NULL;
				d->dwfd = -1;
				d->file = d->debug_file;
				d->debug_file = NULL;
			}
			free(cand);
		}
		if (!d->elf)
			return;
	}
opened:
	d->info.file = d->file;
	d->info.flags |= MP_DSO_FOUND;
	GElf_Ehdr eh;
	if (gelf_getehdr(d->elf, &eh)) {
		d->machine = eh.e_machine;
		d->etype = eh.e_type;
		d->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	}
	uint8_t bid[20];
	int bl = elf_build_id(d->elf, bid, sizeof(bid));
	if (d->info.build_id_len && bl > 0 &&
	    ((size_t)bl != d->info.build_id_len || memcmp(bid, d->info.build_id, (size_t)bl))) {
		char h1[41], h2[41];
		hex_id(d->info.build_id, d->info.build_id_len, h1);
		hex_id(bid, (size_t)bl, h2);
		elf_end(d->elf);
		close(d->fd);
		d->elf = NULL;
		d->fd = -1;
		/* perf record may have kept the recorded version in its build-id cache */
		if (try_buildid_cache(s, d)) {
			mp_log(MP_LOG_INFO, "%s: using %s from perf's build-id cache", d->path,
			       d->file);
			goto opened;
		}
		mp_log(MP_LOG_WARN, "%s: build-id %s differs from the recording's %s: not used "
		       "(its symbols and lines would be wrong)", d->file ? d->file : d->path, h2,
		       h1);
		d->info.flags |= MP_DSO_BUILDID_MISMATCH;
		d->info.flags &= ~(unsigned)MP_DSO_FOUND;
		return;
	}
	const uint8_t *use_bid = d->info.build_id_len ? d->info.build_id : bid;
	size_t use_len = d->info.build_id_len ? d->info.build_id_len : (bl > 0 ? (size_t)bl : 0);
	size_t phnum;
	if (!elf_getphdrnum(d->elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (mp_grow((void **)&d->segs, &d->capsegs, d->nsegs + 1, sizeof(*d->segs)))
				break;
			d->segs[d->nsegs++] = (struct load_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr,
								 ph.p_memsz };
		}
	}
	int own_symtab = has_section_type(d->elf, SHT_SYMTAB);
	if (!own_symtab || !has_dwarf_lines(d->elf))
		find_debug_file(s, d, use_bid, use_len);
	if (own_symtab)
		load_elf_syms(d->elf, SHT_SYMTAB, &d->syms);
	if (!d->syms.n && d->dwelf)
		load_elf_syms(d->dwelf, SHT_SYMTAB, &d->syms);
	if (!d->syms.n)
		load_elf_syms(d->elf, SHT_DYNSYM, &d->syms);
	if (d->syms.n) {
		demangle_symtab(s, &d->syms);
		d->info.flags |= MP_DSO_SYMTAB;
	}
	if ((d->dwelf && has_dwarf_lines(d->dwelf)) || has_dwarf_lines(d->elf))
		d->info.flags |= MP_DSO_DEBUGINFO;
	d->info.debug_file = d->dwelf ? d->debug_file : (has_dwarf_lines(d->elf) ? d->file : NULL);
}

/* ---- C++ names ---- */

/* perf shows demangled names without parameters and without the return type of template
 * functions (cplus_demangle without DMGL_PARAMS): "worker", "std::vector<double,
 * std::allocator<double> >::_M_realloc_insert<double>". __cxa_demangle always gives the full
 * signature, so cut it back. */
static void strip_signature(char *d)
{
	size_t n = strlen(d);
	/* drop trailing cv/ref qualifiers after the parameter list */
	for (;;) {
		static const char *const quals[] = { " const", " volatile", " &&", " &" };
		int cut = 0;
		for (size_t i = 0; i < 4; i++) {
			size_t q = strlen(quals[i]);
			if (n > q && !strcmp(d + n - q, quals[i])) {
				n -= q;
				d[n] = 0;
				cut = 1;
			}
		}
		if (!cut)
			break;
	}
	if (n && d[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (d[i] == ')')
				depth++;
			else if (d[i] == '(' && --depth == 0) {
				/* not for "(anonymous namespace)" style names without a call */
				if (i > 0) {
					d[i] = 0;
					n = i;
				}
				break;
			}
		}
	}
	/* return type of a template function: text before the last top-level space */
	if (n && d[n - 1] == '>') {
		int depth = 0;
		size_t last_sp = SIZE_MAX;
		for (size_t i = 0; i < n; i++) {
			char c = d[i];
			if (c == '<' || c == '(')
				depth++;
			else if ((c == '>' || c == ')') && depth > 0)
				depth--;
			else if (c == ' ' && depth == 0 && i > 0 && strncmp(d + (i >= 8 ? i - 8 : 0),
									     "operator", 8))
				last_sp = i;
		}
		if (last_sp != SIZE_MAX)
			memmove(d, d + last_sp + 1, n - last_sp);
	}
}

static void demangle_symtab(mp_sym *s, struct symtab *t)
{
	size_t need = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->v[i].name, "_Z", 2))
			need = 1;
	if (!need)
		return;
	if (!s->cxx_tried) {
		s->cxx_tried = 1;
		s->cxx_lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (s->cxx_lib)
			*(void **)&s->cxa_demangle = dlsym(s->cxx_lib, "__cxa_demangle");
	}
	if (!s->cxa_demangle)
		return;
	struct mp_buf pool = { 0 };
	for (size_t i = 0; i < t->n; i++) {
		const char *nm = t->v[i].name;
		char *dm = NULL;
		int st = -1;
		if (!strncmp(nm, "_Z", 2)) {
			dm = s->cxa_demangle(nm, NULL, NULL, &st);
			if (dm && !st)
				strip_signature(dm);
		}
		const char *use = dm && !st && *dm ? dm : nm;
		size_t off = pool.len;
		int rc = mp_buf_append(&pool, use, strlen(use) + 1);
		free(dm);
		if (rc) {
			mp_buf_fini(&pool);
			return;
		}
		t->v[i].name = (const char *)(uintptr_t)off;
	}
	for (size_t i = 0; i < t->n; i++)
		t->v[i].name = pool.data + (uintptr_t)t->v[i].name;
	free(t->pool);
	t->pool = pool.data;
}

/* ---- kernel symbols ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void read_kernel_build_id(uint8_t *out, size_t *len)
{
	/* /sys/kernel/notes holds the running kernel's ELF notes */
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	*len = 0;
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	size_t off = 0;
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t noff = off + 12, doff = noff + ((namesz + 3) & ~3u);
		size_t next = doff + ((descsz + 3) & ~3u);
		if (next > (size_t)n || namesz > 4096 || descsz > 4096)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(buf + noff, "GNU", 4) &&
		    descsz <= 20) {
			memcpy(out, buf + doff, descsz);
			*len = descsz;
			return;
		}
		off = next;
	}
}

static void load_kallsyms(mp_sym *s, struct dso *kd)
{
	s->ksyms_tried = 1;
	const char *path = s->kallsyms;
	int is_default = !path;

	if (!path)
		path = "/proc/kallsyms";
	if (!strcmp(path, "/dev/null") || !*path)
		return;
	if (is_default) {
		/* the local kernel must be the recorded one */
		if (kd && kd->info.build_id_len) {
			uint8_t id[20];
			size_t n;
			read_kernel_build_id(id, &n);
			if (n && (n != kd->info.build_id_len || memcmp(id, kd->info.build_id, n))) {
				mp_log(MP_LOG_WARN, "the running kernel's build-id differs from the "
				       "recording's: kernel symbols not resolved (use --kallsyms)");
				kd->info.flags |= MP_DSO_BUILDID_MISMATCH;
				return;
			}
		} else if (s->osrelease) {
			struct utsname u;
			if (!uname(&u) && strcmp(u.release, s->osrelease)) {
				mp_log(MP_LOG_WARN, "recorded on kernel %s, running %s: kernel symbols "
				       "not resolved (use --kallsyms)", s->osrelease, u.release);
				return;
			}
		}
	}
	/* /proc/kallsyms is generated by the kernel on read: one big buffer, parsed in place */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		mp_log(MP_LOG_WARN, "%s: %s: kernel symbols not resolved", path, strerror(errno));
		return;
	}
	struct mp_buf fb = { 0 };
	for (;;) {
		char chunk[1 << 16];
		ssize_t r = read(fd, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (mp_buf_append(&fb, chunk, (size_t)r)) {
			close(fd);
			mp_buf_fini(&fb);
			return;
		}
	}
	close(fd);
	if (mp_buf_append(&fb, "\n", 1)) {
		mp_buf_fini(&fb);
		return;
	}
	struct esym *v = NULL;
	size_t cap = 0, cnt = 0;
	int nonzero = 0, sorted = 1;
	char *p = fb.data, *end = fb.data + fb.len;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break;
		*eol = 0;
		char *q = p;
		p = eol + 1;
		uint64_t addr = 0;
		int h, nd = 0;
		while ((h = hexval(*q)) >= 0) {
			addr = addr << 4 | (uint64_t)h;
			q++;
			nd++;
		}
		if (!nd || *q != ' ' || !q[1] || q[2] != ' ')
			continue;
		int T = q[1] & ~0x20;
		if (T != 'T' && T != 'W' && T != 'D' && T != 'B')
			continue;
		q += 3;
		/* "name\t[module]": keep the name, remember module-ness for the end fixup */
		char *tab = strchr(q, '\t');
		int inmod = 0;
		if (tab) {
			*tab = 0;
			inmod = 1;
		}
		if (addr)
			nonzero = 1;
		if (mp_grow((void **)&v, &cap, cnt + 1, sizeof(*v))) {
			free(v);
			mp_buf_fini(&fb);
			return;
		}
		if (cnt && addr < v[cnt - 1].start)
			sorted = 0;
		v[cnt++] = (struct esym){ addr, addr, q, (uint8_t)inmod };
	}
	if (!nonzero) {
		/* kptr_restrict: all addresses read as zero */
		free(v);
		mp_buf_fini(&fb);
		mp_log(MP_LOG_WARN, "%s: addresses hidden (kptr_restrict): kernel symbols not "
		       "resolved", path);
		return;
	}
	/* names point into the file buffer, which becomes the table's pool */
	s->ksyms.v = v;
	s->ksyms.pool = fb.data;
	if (!sorted)
		qsort(v, cnt, sizeof(*v), esym_cmp);
	size_t w = 0;
	for (size_t i = 0; i < cnt; i++) {
		/* several names at one address: keep the first, kallsyms lists it first */
		if (w && v[w - 1].start == v[i].start)
			continue;
		v[w++] = v[i];
	}
	s->ksyms.n = cnt = w;
	/* no sizes in kallsyms: a symbol ends where the next begins, and at a page boundary
	 * between core kernel and module symbols (perf's symbols__fixup_end) */
	for (size_t i = 0; i + 1 < cnt; i++) {
		if (v[i].bind != v[i + 1].bind)
			v[i].end = ((v[i].start + 4096) + 4095) / 4096 * 4096;
		else
			v[i].end = v[i + 1].start;
	}
	if (cnt)
		v[cnt - 1].end = (v[cnt - 1].start + 4095) / 4096 * 4096 + 4096;
	s->ksyms_ok = 1;
}

static void dso_load_kernel(mp_sym *s, struct dso *d)
{
	if (!s->ksyms_tried) {
		struct dso *kd = NULL;
		for (size_t i = 0; i < s->ndsos; i++)
			if (s->dsos[i].kernel && !s->dsos[i].module)
				kd = &s->dsos[i];
		load_kallsyms(s, kd);
	}
	if (s->ksyms_ok) {
		d->info.flags |= MP_DSO_FOUND | MP_DSO_SYMTAB;
		d->info.file = s->kallsyms ? s->kallsyms : "/proc/kallsyms";
	}
}

/* ---- DWARF ---- */

static int cu_range_cmp(const void *pa, const void *pb)
{
	const struct cu_range *a = pa, *b = pb;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}


static void dso_open_dwarf(struct dso *d)
{
	if (d->dw_tried)
		return;
	d->dw_tried = 1;
	Elf *e = d->dwelf && has_dwarf_lines(d->dwelf) ? d->dwelf : d->elf;
	if (!e || !has_dwarf_lines(e))
		return;
	d->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!d->dw)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	size_t cap = 0;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(d->dw, off + hsize, &cu)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t r = 0;
			while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (mp_grow((void **)&d->cus, &cap, d->ncus + 1, sizeof(*d->cus)))
					break;
				d->cus[d->ncus++] = (struct cu_range){ lo, hi, off + hsize };
			}
		}
		off = next;
	}
	qsort(d->cus, d->ncus, sizeof(*d->cus), cu_range_cmp);
}

static int dso_cudie(struct dso *d, uint64_t addr, Dwarf_Die *cu)
{
	if (!d->dw)
		return -1;
	size_t lo = 0, hi = d->ncus;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->cus[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < 8 && lo > 0; k++, lo--) {
		const struct cu_range *r = &d->cus[lo - 1];
		if (addr >= r->lo && addr < r->hi)
			return dwarf_offdie(d->dw, r->off, cu) ? 0 : -1;
	}
	/* overlapping ranges further back: linear fallback */
	for (size_t i = 0; i < d->ncus; i++)
		if (addr >= d->cus[i].lo && addr < d->cus[i].hi)
			return dwarf_offdie(d->dw, d->cus[i].off, cu) ? 0 : -1;
	return -1;
}

static int dso_srcline(mp_sym *s, struct dso *d, uint64_t addr, const char **file,
		       unsigned *line,
		       const char **inl)
{
	Dwarf_Die cu;

	dso_open_dwarf(d);
	if (dso_cudie(d, addr, &cu))
		return -ENOENT;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	if (!l)
		return -ENOENT;
	int ln = 0;
	const char *f = dwarf_linesrc(l, NULL, NULL);
	dwarf_lineno(l, &ln);
	if (!f || ln <= 0)
		return -ENOENT;
	if (f[0] != '/') {
		/* a path relative to the compilation directory */
		Dwarf_Attribute at;
		const char *cd = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
		char *full;
		if (cd && cd[0] == '/' && asprintf(&full, "%s/%s", cd, f) >= 0) {
			f = intern_str(s, full);
			free(full);
		}
	}
	*file = f;
	*line = (unsigned)ln;
	if (inl) {
		*inl = NULL;
		Dwarf_Die *scopes = NULL;
		int n = dwarf_getscopes(&cu, addr, &scopes);
		for (int i = 0; i < n; i++) {
			int tag = dwarf_tag(&scopes[i]);
			if (tag == DW_TAG_inlined_subroutine) {
				*inl = dwarf_diename(&scopes[i]);
				break;
			}
			if (tag == DW_TAG_subprogram)
				break;
		}
		free(scopes);
	}
	return 0;
}

/* ---- context ---- */

mp_sym *mp_sym_new(const struct mp_sym_opts *opts, const struct mp_pd_build_id *build_ids,
		   size_t nr_build_ids, struct mp_err *err)
{
	mp_sym *s = calloc(1, sizeof(*s));

	if (!s)
		goto nomem;
	elf_version(EV_CURRENT);
	s->last_pid = UINT32_MAX - 1;
	s->kcore_fd = -1;
	if (opts) {
		if ((opts->symfs && !(s->symfs = strdup(opts->symfs))) ||
		    (opts->kallsyms && !(s->kallsyms = strdup(opts->kallsyms))) ||
		    (opts->osrelease && !(s->osrelease = strdup(opts->osrelease))) ||
		    (opts->buildid_dir && !(s->buildid_dir = strdup(opts->buildid_dir))))
			goto nomem;
		s->no_srcline = opts->no_srcline;
	}
	if (nr_build_ids) {
		s->bids = calloc(nr_build_ids, sizeof(*s->bids));
		if (!s->bids)
			goto nomem;
		for (size_t i = 0; i < nr_build_ids; i++) {
			s->bids[i] = build_ids[i];
			s->bids[i].filename = NULL;
			if (build_ids[i].filename &&
			    !(s->bids[i].filename = strdup(build_ids[i].filename)))
				goto nomem;
		}
		s->nbids = nr_build_ids;
	}
	/* string 0 is the empty string, so comm id 0 means "none" */
	if (intern(s, "") != 0)
		goto nomem;
	return s;
nomem:
	mp_sym_free(s);
	mp_err_set(err, -ENOMEM, "out of memory creating the symbol context");
	return NULL;
}

void mp_sym_free(mp_sym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndsos; i++) {
		struct dso *d = &s->dsos[i];
		if (d->dw)
			dwarf_end(d->dw);
		if (d->dwelf)
			elf_end(d->dwelf);
		if (d->dwfd >= 0)
			close(d->dwfd);
		if (d->elf)
			elf_end(d->elf);
		if (d->fd >= 0)
			close(d->fd);
		symtab_fini(&d->syms);
		free(d->segs);
		free(d->cus);
		free(d->path);
		free(d->name);
		free(d->file);
		free(d->debug_file);
	}
	free(s->dsos);
	mp_u64map_fini(&s->dso_by_path);
	free(s->maps);
	for (size_t i = 0; i < s->nprocs; i++)
		free(s->procs[i].maps);
	free(s->procs);
	mp_u64map_fini(&s->proc_by_pid);
	for (size_t i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	mp_u64map_fini(&s->str_by_hash);
	mp_u64map_fini(&s->comm_by_tid);
	symtab_fini(&s->ksyms);
	free(s->kcore_ph);
	if (s->kcore_fd >= 0)
		close(s->kcore_fd);
	if (s->cxx_lib)
		dlclose(s->cxx_lib);
	for (size_t i = 0; i < s->nbids; i++)
		free((char *)s->bids[i].filename);
	free(s->bids);
	free(s->symfs);
	free(s->buildid_dir);
	free(s->kallsyms);
	free(s->osrelease);
	free(s);
}

static struct proc *proc_get(mp_sym *s, uint32_t pid, int create)
{
	if (pid == s->last_pid)
		return &s->procs[s->last_proc];
	const uint32_t *v = mp_u64map_get(&s->proc_by_pid, pid);
	if (v) {
		s->last_pid = pid;
		s->last_proc = *v;
		return &s->procs[*v];
	}
	if (!create)
		return NULL;
	if (mp_grow((void **)&s->procs, &s->capprocs, s->nprocs + 1, sizeof(struct proc)))
		return NULL;
	int found;
	uint32_t *slot = mp_u64map_slot(&s->proc_by_pid, pid, &found);
	if (!slot)
		return NULL;
	*slot = (uint32_t)s->nprocs;
	struct proc *p = &s->procs[s->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->last = UINT32_MAX;
	s->last_pid = pid;
	s->last_proc = *slot;
	return p;
}

static uint32_t map_new(mp_sym *s, uint64_t start, uint64_t end, uint64_t pgoff, uint32_t dso,
			int kernel)
{
	if (mp_grow((void **)&s->maps, &s->capmaps, s->nmaps + 1, sizeof(struct map)))
		return UINT32_MAX;
	s->maps[s->nmaps] = (struct map){ start, end, pgoff, dso, (uint8_t)kernel };
	return (uint32_t)s->nmaps++;
}

/* Insert a map into a process, cutting away what it overlaps of older maps. */
static int proc_insert(mp_sym *s, struct proc *p, uint32_t id)
{
	struct map nm = s->maps[id];
	size_t i = 0;

	/* the maps vector is sorted and non-overlapping: find the first that ends after start */
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->maps[p->maps[mid]].end <= nm.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	i = lo;
	while (i < p->n && s->maps[p->maps[i]].start < nm.end) {
		struct map om = s->maps[p->maps[i]];
		uint32_t left = UINT32_MAX, right = UINT32_MAX;
		if (om.start < nm.start) {
			left = map_new(s, om.start, nm.start, om.pgoff, om.dso, om.kernel);
			if (left == UINT32_MAX)
				return -ENOMEM;
		}
		if (om.end > nm.end) {
			right = map_new(s, nm.end, om.end, om.pgoff + (nm.end - om.start), om.dso,
					om.kernel);
			if (right == UINT32_MAX)
				return -ENOMEM;
		}
		/* replace entry i by left (if any); right goes after the new map */
		if (left != UINT32_MAX) {
			p->maps[i] = left;
			i++;
		} else {
			memmove(&p->maps[i], &p->maps[i + 1], (p->n - i - 1) * sizeof(uint32_t));
			p->n--;
		}
		if (right != UINT32_MAX) {
			if (mp_grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(uint32_t)))
				return -ENOMEM;
			memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(uint32_t));
			p->maps[i] = right;
			p->n++;
			break; /* right extends past the new map: nothing further overlaps */
		}
	}
	if (mp_grow((void **)&p->maps, &p->cap, p->n + 1, sizeof(uint32_t)))
		return -ENOMEM;
	memmove(&p->maps[i + 1], &p->maps[i], (p->n - i) * sizeof(uint32_t));
	p->maps[i] = id;
	p->n++;
	p->last = UINT32_MAX;
	return 0;
}

int mp_sym_mmap(mp_sym *s, const struct mp_pd_mmap *m)
{
	s->lk_end = 0;
	int kernel = m->cpumode == PERF_RECORD_MISC_KERNEL ||
		     m->cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
	const char *fn = m->filename ? m->filename : "";

	if (!m->len)
		return 0;
	if (m->prot && !(m->prot & PROT_EXEC))
		return 0;
	uint32_t d = dso_get(s, fn, kernel);
	if (d == UINT32_MAX)
		return -ENOMEM;
	if (m->has_build_id && m->build_id_len && !s->dsos[d].info.build_id_len) {
		size_t n = m->build_id_len <= 20 ? m->build_id_len : 20;
		memcpy(s->dsos[d].info.build_id, m->build_id, n);
		s->dsos[d].info.build_id_len = (uint8_t)n;
	}
	uint64_t end = m->start + m->len;
	if (end < m->start)
		end = UINT64_MAX;
	uint32_t id = map_new(s, m->start, end, m->pgoff, d, kernel);
	if (id == UINT32_MAX)
		return -ENOMEM;
	struct proc *p = proc_get(s, kernel ? KERNEL_PID : m->pid, 1);
	if (!p)
		return -ENOMEM;
	return proc_insert(s, p, id);
}

static uint64_t tidkey(uint32_t pid, uint32_t tid)
{
	(void)pid;
	return tid;
}

int mp_sym_comm(mp_sym *s, const struct mp_pd_task *t)
{
	s->lk_end = 0;
	uint32_t id = intern(s, t->comm ? t->comm : "");
	if (id == UINT32_MAX)
		return -ENOMEM;
	int found;
	uint32_t *slot = mp_u64map_slot(&s->comm_by_tid, tidkey(t->pid, t->tid), &found);
	if (!slot)
		return -ENOMEM;
	*slot = id;
	if (t->exec) {
		struct proc *p = proc_get(s, t->pid, 0);
		if (p) {
			p->n = 0;
			p->last = UINT32_MAX;
		}
	}
	return 0;
}

int mp_sym_fork(mp_sym *s, const struct mp_pd_task *t)
{
	s->lk_end = 0;
	/* the child thread starts with the parent's comm */
	const uint32_t *pc = mp_u64map_get(&s->comm_by_tid, tidkey(t->ppid, t->ptid));
	if (pc) {
		uint32_t c = *pc;
		int found;
		uint32_t *slot = mp_u64map_slot(&s->comm_by_tid, tidkey(t->pid, t->tid), &found);
		if (!slot)
			return -ENOMEM;
		*slot = c;
	}
	if (t->pid == t->ppid)
		return 0; /* a new thread shares its process's maps */
	struct proc *pp = proc_get(s, t->ppid, 0);
	if (!pp || !pp->n)
		return 0;
	size_t n = pp->n;
	uint32_t *copy = malloc(n * sizeof(uint32_t));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, pp->maps, n * sizeof(uint32_t));
	struct proc *c = proc_get(s, t->pid, 1); /* may move the procs array */
	if (!c) {
		free(copy);
		return -ENOMEM;
	}
	free(c->maps);
	c->maps = copy;
	c->n = c->cap = n;
	c->last = UINT32_MAX;
	return 0;
}

int mp_sym_exit(mp_sym *s, const struct mp_pd_task *t)
{
	/* maps stay: samples may still arrive out of order for an exited task */
	(void)s;
	(void)t;
	return 0;
}

static uint32_t map_find_slow(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip);

uint32_t mp_sym_map_find(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	if (ip >= s->lk_start && ip < s->lk_end && pid == s->lk_pid && cpumode == s->lk_cpumode)
		return s->lk_map;
	uint32_t m = map_find_slow(s, pid, cpumode, ip);
	if (m != MP_SYM_NO_MAP) {
		s->lk_pid = pid;
		s->lk_cpumode = cpumode;
		s->lk_map = m;
		s->lk_start = s->maps[m].start;
		s->lk_end = s->maps[m].end;
	}
	return m;
}

static uint32_t map_find_slow(mp_sym *s, uint32_t pid, uint16_t cpumode, uint64_t ip)
{
	struct proc *p;

	if (cpumode == PERF_RECORD_MISC_KERNEL)
		p = proc_get(s, KERNEL_PID, 0);
	else if (cpumode == PERF_RECORD_MISC_USER)
		p = proc_get(s, pid, 0);
	else
		return MP_SYM_NO_MAP;
	if (!p || !p->n)
		return MP_SYM_NO_MAP;
	if (p->last != UINT32_MAX) {
		const struct map *m = &s->maps[p->maps[p->last]];
		if (ip >= m->start && ip < m->end)
			return p->maps[p->last];
	}
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->maps[p->maps[mid]].end <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n && s->maps[p->maps[lo]].start <= ip) {
		p->last = (uint32_t)lo;
		return p->maps[lo];
	}
	return MP_SYM_NO_MAP;
}

static uint64_t off_to_vaddr(const struct dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct load_seg *g = &d->segs[i];
		if (off >= g->off && off < g->off + (g->filesz ? g->filesz : g->memsz))
			return off - g->off + g->vaddr;
	}
	return off;
}

static char level_of(uint16_t cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		return 'k';
	case PERF_RECORD_MISC_USER:
		return '.';
	case PERF_RECORD_MISC_HYPERVISOR:
		return 'H';
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return 'g';
	case PERF_RECORD_MISC_GUEST_USER:
		return 'u';
	default:
		return '.';
	}
}

void mp_sym_resolve(mp_sym *s, uint32_t map_id, uint16_t cpumode, uint64_t ip, int want_line,
		    struct mp_sym_loc *out)
{
	char buf[40];

	memset(out, 0, sizeof(*out));
	out->level = level_of(cpumode);
	out->kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	if (map_id == MP_SYM_NO_MAP || map_id >= s->nmaps) {
		out->dso_idx = UINT32_MAX;
		out->dso = "[unknown]";
		out->addr = out->elf_addr = ip;
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, ip);
		out->sym = intern_str(s, buf);
		return;
	}
	const struct map *m = &s->maps[map_id];
	struct dso *d = &s->dsos[m->dso];
	out->dso_idx = m->dso;
	out->dso = d->name;
	if (d->anon || (d->kernel && !d->module))
		out->addr = ip; /* perf maps these 1:1 */
	else
		out->addr = ip - m->start + m->pgoff;
	dso_load(s, d);
	const struct esym *e = NULL;
	if (d->kernel) {
		out->elf_addr = ip;
		if (s->ksyms_ok)
			e = symtab_find(&s->ksyms, ip);
	} else {
		out->elf_addr = d->elf ? off_to_vaddr(d, out->addr) : out->addr;
		if (d->syms.n)
			e = symtab_find(&d->syms, out->elf_addr);
	}
	if (e) {
		out->sym = e->name;
		out->sym_resolved = 1;
		out->sym_start = e->start;
		out->sym_size = e->end - e->start;
	} else {
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, out->addr);
		out->sym = intern_str(s, buf);
	}
	if (want_line && !s->no_srcline && !d->kernel && d->elf) {
		const char *f;
		unsigned ln;
		const char *inl = NULL;
		if (!dso_srcline(s, d, out->elf_addr, &f, &ln, want_line > 1 ? &inl : NULL)) {
			out->srcfile = f;
			out->line = ln;
			out->inline_fn = inl;
		}
	}
}

const char *mp_sym_comm_of(mp_sym *s, uint32_t pid, uint32_t tid)
{
	const uint32_t *v = mp_u64map_get(&s->comm_by_tid, tidkey(pid, tid));
	if (v && *v)
		return s->strs[*v];
	char buf[24];
	snprintf(buf, sizeof(buf), ":%u", tid);
	return intern_str(s, buf);
}

uint32_t mp_sym_comm_id(mp_sym *s, uint32_t pid, uint32_t tid)
{
	const uint32_t *v = mp_u64map_get(&s->comm_by_tid, tidkey(pid, tid));
	if (v && *v)
		return *v;
	char buf[24];
	snprintf(buf, sizeof(buf), ":%u", tid);
	uint32_t id = intern(s, buf);
	return id == UINT32_MAX ? 0 : id;
}

const char *mp_sym_comm_name(const mp_sym *s, uint32_t comm_id)
{
	return comm_id < s->nstrs ? s->strs[comm_id] : "";
}

size_t mp_sym_ndsos(const mp_sym *s)
{
	return s->ndsos;
}

const struct mp_sym_dso_info *mp_sym_dso(mp_sym *s, size_t idx, int load)
{
	if (idx >= s->ndsos)
		return NULL;
	if (load)
		dso_load(s, &s->dsos[idx]);
	return &s->dsos[idx].info;
}

long mp_sym_dso_find(mp_sym *s, const char *name)
{
	for (size_t i = 0; i < s->ndsos; i++)
		if (!strcmp(s->dsos[i].name, name) || !strcmp(s->dsos[i].path, name))
			return (long)i;
	return -1;
}

int mp_sym_lookup_name(mp_sym *s, size_t dso_idx, const char *sym, uint64_t *start,
		       uint64_t *size)
{
	if (dso_idx >= s->ndsos)
		return -ENOENT;
	struct dso *d = &s->dsos[dso_idx];
	dso_load(s, d);
	const struct symtab *t = d->kernel ? &s->ksyms : &d->syms;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, sym)) {
			*start = t->v[i].start;
			*size = t->v[i].end - t->v[i].start;
			return 0;
		}
	return -ENOENT;
}

int mp_sym_srcline(mp_sym *s, size_t dso_idx, uint64_t elf_addr, const char **file,
		   unsigned *line)
{
	if (dso_idx >= s->ndsos || s->no_srcline)
		return -ENOENT;
	struct dso *d = &s->dsos[dso_idx];
	dso_load(s, d);
	if (d->kernel || !d->elf)
		return -ENOENT;
	return dso_srcline(s, d, elf_addr, file, line, NULL);
}

/* Kernel code comes from /proc/kcore, only when the kernel symbols are the running
 * kernel's own (/proc/kallsyms accepted for this recording). */
static long read_kcore(mp_sym *s, uint64_t addr, void *buf, size_t len)
{
	if (!s->ksyms_ok || s->kallsyms)
		return -ENOENT;
	if (!s->kcore_tried) {
		/* /proc/kcore is a (huge, sparse) ELF64 core: read its program headers by hand,
		 * libelf would want to map or read the whole file */
		s->kcore_tried = 1;
		int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
		Elf64_Ehdr eh;
		if (fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
		    !memcmp(eh.e_ident, ELFMAG, SELFMAG) && eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum && eh.e_phnum < 4096) {
			s->kcore_ph = calloc(eh.e_phnum, sizeof(Elf64_Phdr));
			if (s->kcore_ph &&
			    pread(fd, s->kcore_ph, eh.e_phnum * sizeof(Elf64_Phdr), (off_t)eh.e_phoff) ==
				    (ssize_t)(eh.e_phnum * sizeof(Elf64_Phdr))) {
				s->kcore_nph = eh.e_phnum;
				s->kcore_machine = eh.e_machine;
				s->kcore_fd = fd;
				fd = -1;
			}
		}
		if (fd >= 0)
			close(fd);
	}
	for (size_t i = 0; i < s->kcore_nph; i++) {
		const Elf64_Phdr *ph = &s->kcore_ph[i];
		if (ph->p_type != PT_LOAD || addr < ph->p_vaddr || addr >= ph->p_vaddr + ph->p_filesz)
			continue;
		uint64_t avail = ph->p_vaddr + ph->p_filesz - addr;
		size_t n = len < avail ? len : (size_t)avail;
		ssize_t r = pread(s->kcore_fd, buf, n, (off_t)(ph->p_offset + (addr - ph->p_vaddr)));
		return r < 0 ? -errno : (long)r;
	}
	return -ENOENT;
}

long mp_sym_read_code(mp_sym *s, size_t dso_idx, uint64_t addr, void *buf, size_t len)
{
	if (dso_idx >= s->ndsos)
		return -ENOENT;
	struct dso *d = &s->dsos[dso_idx];
	dso_load(s, d);
	if (d->kernel)
		return read_kcore(s, addr, buf, len);
	if (!d->elf)
		return -ENOENT;
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct load_seg *g = &d->segs[i];
		if (addr < g->vaddr || addr >= g->vaddr + g->filesz)
			continue;
		uint64_t avail = g->vaddr + g->filesz - addr;
		size_t n = len < avail ? len : (size_t)avail;
		ssize_t r = pread(d->fd, buf, n, (off_t)(g->off + (addr - g->vaddr)));
		return r < 0 ? -errno : (long)r;
	}
	return -ENOENT;
}

int mp_sym_machine(mp_sym *s, size_t dso_idx, int *is64)
{
	if (dso_idx >= s->ndsos)
		return 0;
	struct dso *d = &s->dsos[dso_idx];
	dso_load(s, d);
	if (d->kernel && s->kcore_machine) {
		*is64 = 1;
		return s->kcore_machine;
	}
	*is64 = d->is64;
	return d->machine;
}
