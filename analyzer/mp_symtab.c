/* mp_symtab.c - ELF files and their function symbol tables, chosen and sized as perf does;
 * C++ names demangled as perf shows them. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include "mp_util.h"

#include "mp_symtab.h"

Elf *mp_elf_open(const char *path, int *fd_out)
{
	/* Objects named by a recording's MMAP events: regular files only (never block in open()
	 * on a FIFO, never read a device). */
	int fd = mp_open_input(path, MP_OPEN_REGULAR, NULL);
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
static int better_sym(const struct mp_esym *a, const struct mp_esym *b)
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

int mp_esym_cmp(const void *pa, const void *pb)
{
	const struct mp_esym *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return 0;
}

/* Stable sort by start, as glibc's qsort (a merge sort) sorts: of symbols at one address
 * the duplicate rule below sees them in table order. Bottom-up merges with the comparison
 * inlined (qsort's calls through a pointer were most of loading a large table); runs
 * already in order cost one comparison. */
static void esym_sort(struct mp_esym *v, size_t n)
{
	size_t k = 1;
	while (k < n && v[k - 1].start <= v[k].start)
		k++;
	if (k == n)
		return;
	struct mp_esym *tmp = malloc(n * sizeof(*v));
	if (!tmp) {
		qsort(v, n, sizeof(*v), mp_esym_cmp);
		return;
	}
	/* insertion-sort runs of 16, then merge runs of doubling width */
	for (size_t b = 0; b < n; b += 16) {
		size_t e = b + 16 < n ? b + 16 : n;
		for (size_t i = b + 1; i < e; i++) {
			struct mp_esym x = v[i];
			size_t j = i;
			while (j > b && v[j - 1].start > x.start) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
	}
	struct mp_esym *src = v, *dst = tmp;
	for (size_t w = 16; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;
			if (mid == hi || src[mid - 1].start <= src[mid].start) {
				memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*v));
				continue;
			}
			while (i < mid && j < hi)
				dst[o++] = src[j].start < src[i].start ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		struct mp_esym *x = src;
		src = dst;
		dst = x;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
	free(tmp);
}

/* Sort, drop duplicates as perf does, and give zero-sized symbols the room up to the next
 * one (perf's symbols__fixup_end). */
void mp_symtab_finish(struct mp_symtab *t, int kallsyms)
{
	if (!t->n)
		return;
	esym_sort(t->v, t->n);
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
		struct mp_esym *p = &t->v[i], *c = &t->v[i + 1];
		if (p->end == p->start) {
			if (kallsyms && (!strchr(p->name, '[') != !strchr(c->name, '[')))
				p->end = ((p->end + 4096) + 4095) / 4096 * 4096;
			else
				p->end = c->start;
		}
	}
	struct mp_esym *l = &t->v[t->n - 1];
	if (l->end == l->start)
		l->end = (l->start + 4095) / 4096 * 4096 + 4096;
}

struct esym_key {
	const struct mp_esym *v;
	uint64_t addr;
};

static int starts_at_or_before(const void *ctx, size_t i)
{
	const struct esym_key *k = ctx;
	return k->v[i].start <= k->addr;
}

const struct mp_esym *mp_symtab_find(const struct mp_symtab *t, uint64_t addr)
{
	struct esym_key key = { t->v, addr };
	size_t lo = mp_partition_point(0, t->n, &key, starts_at_or_before);

	/* lo = first with start > addr; look back over a few possibly enclosing symbols */
	for (size_t k = 0; k < 4 && lo > 0; k++, lo--) {
		const struct mp_esym *e = &t->v[lo - 1];
		if (addr >= e->start && addr < e->end)
			return e;
	}
	return NULL;
}

void mp_symtab_fini(struct mp_symtab *t)
{
	free(t->v);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

/* perf's elf_sym__is_label() in a text section (ld.so's _start): kept as a symbol, as
 * perf keeps it; ARM mapping symbols ($a, $d, $t, $x) are not. */
static int is_text_label(Elf *elf, size_t shstrndx, const GElf_Sym *sym, const char *nm,
			 unsigned machine)
{
	GElf_Shdr sh;
	Elf_Scn *scn;
	const char *sec;
	int vis = GELF_ST_VISIBILITY(sym->st_other);

	if (sym->st_shndx == SHN_ABS || sym->st_shndx >= SHN_LORESERVE || vis == STV_HIDDEN ||
	    vis == STV_INTERNAL)
		return 0;
	if ((machine == EM_ARM || machine == EM_AARCH64) && nm[0] == '$' &&
	    strchr("adtx", nm[1]) && (nm[2] == 0 || nm[2] == '.'))
		return 0;
	scn = elf_getscn(elf, sym->st_shndx);
	sec = scn && gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
	return sec && strstr(sec, "text") != NULL;
}

/* The function filter: functions and text labels (is_text_label), ARM's Thumb bit off. */
struct fn_keep {
	size_t shstrndx;
	unsigned machine;
};

static int keep_fn(void *ctx, Elf *elf, const GElf_Sym *sym, const char *nm, uint64_t *start)
{
	const struct fn_keep *k = ctx;
	int st = GELF_ST_TYPE(sym->st_info);
	if (st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE)
		return 0;
	if (st == STT_NOTYPE && !is_text_label(elf, k->shstrndx, sym, nm, k->machine))
		return 0;
	/* ARM marks Thumb functions with bit 0 of the address */
	if (k->machine == EM_ARM)
		*start &= ~(uint64_t)1;
	return 1;
}

int mp_symtab_load_elf(Elf *elf, unsigned type, struct mp_symtab *t)
{
	GElf_Ehdr eh;
	struct fn_keep k = { 0, gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE };

	if (elf_getshdrstrndx(elf, &k.shstrndx))
		return 0;
	return mp_symtab_load_kept(elf, type, t, keep_fn, &k);
}

int mp_symtab_load_kept(Elf *elf, unsigned type, struct mp_symtab *t, mp_symtab_keep_fn keep,
			void *ctx)
{
	Elf_Scn *scn = NULL;

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
		struct mp_esym *v = NULL;
		/* offsets into the pool first; pointers fixed after the pool stops moving */
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			uint64_t start = sym.st_value;
			if (!nm || !*nm || !keep(ctx, elf, &sym, nm, &start))
				continue;
			if (mp_grow((void **)&v, &cap, cnt + 1, sizeof(*v)))
				goto nomem;
			v[cnt].start = start;
			v[cnt].end = start + sym.st_size;
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
		mp_symtab_finish(t, 0);
		return 1;
nomem:
		free(v);
		mp_buf_fini(&pool);
		return -ENOMEM;
	}
	return 0;
}

/* perf's PLT header and entry sizes per machine (6.1's dso__synthesize_plt_symbols). */
static void plt_sizes(unsigned machine, const GElf_Shdr *plt, uint64_t *hdr, uint64_t *ent)
{
	switch (machine) {
	case EM_ARM:
		*hdr = 20;
		*ent = 12;
		break;
	case EM_AARCH64:
		*hdr = 32;
		*ent = 16;
		break;
	case EM_SPARC:
		*hdr = 48;
		*ent = 12;
		break;
	case EM_SPARCV9:
		*hdr = 128;
		*ent = 32;
		break;
	default:
		*hdr = plt->sh_entsize;
		*ent = plt->sh_entsize;
		break;
	}
}

int mp_symtab_add_plt(Elf *elf, struct mp_symtab *t, struct mp_demangler *dm)
{
	GElf_Ehdr eh;
	GElf_Shdr sh_rel, sh_plt, sh_dyn;
	Elf_Scn *rel = mp_elf_section(elf, ".rela.plt");
	if (!rel)
		rel = mp_elf_section(elf, ".rel.plt");
	Elf_Scn *plt = mp_elf_section(elf, ".plt");
	if (!rel || !plt || !gelf_getehdr(elf, &eh) || !gelf_getshdr(rel, &sh_rel) ||
	    !gelf_getshdr(plt, &sh_plt) || sh_rel.sh_type == SHT_NOBITS ||
	    sh_plt.sh_type == SHT_NOBITS || !sh_rel.sh_entsize)
		return 0;
	Elf_Scn *dyn = elf_getscn(elf, sh_rel.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &sh_dyn) || sh_dyn.sh_type != SHT_DYNSYM)
		return 0;
	Elf_Data *rd = elf_getdata(rel, NULL), *sd = elf_getdata(dyn, NULL);
	uint64_t hdr, ent;
	plt_sizes(eh.e_machine, &sh_plt, &hdr, &ent);
	if (!rd || !sd || !ent || hdr >= sh_plt.sh_size)
		return 0;
	/* as many entries as the relocations read hold and the .plt has room for (a
	 * hostile file's sizes bound nothing) */
	uint64_t n = rd->d_size / sh_rel.sh_entsize, room = (sh_plt.sh_size - hdr) / ent;
	if (n > room)
		n = room;
	if (!n || n > (1u << 24))
		return 0;
	/* a symbol stretched over .plt (by the zero-size rule) ends where .plt starts */
	uint64_t plt_start = sh_plt.sh_addr, plt_end = sh_plt.sh_addr + sh_plt.sh_size;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].start < plt_start && t->v[i].end > plt_start)
			t->v[i].end = plt_start;
	size_t cap = t->n;
	if (MP_GROW(t->v, cap, t->n + (size_t)n + 1))
		return -ENOMEM;
	struct mp_esym *v = t->v;
	/* names: the table's, then the new ones, in one new pool (offsets until it stops
	 * moving) */
	struct mp_buf pool = { 0 };
	size_t old = t->n, cnt = old;
	size_t *offs = malloc((old + (size_t)n + 1) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	for (size_t i = 0; i < old; i++) {
		offs[i] = pool.len;
		if (mp_buf_append(&pool, v[i].name, strlen(v[i].name) + 1))
			goto nomem;
	}
	for (size_t i = 0; i < (size_t)n; i++) {
		uint64_t info, at = plt_start + hdr + i * ent;
		if (at + ent > plt_end)
			break;
		if (sh_rel.sh_type == SHT_RELA) {
			GElf_Rela r;
			if (!gelf_getrela(rd, (int)i, &r))
				continue;
			info = r.r_info;
		} else {
			GElf_Rel r;
			if (!gelf_getrel(rd, (int)i, &r))
				continue;
			info = r.r_info;
		}
		GElf_Sym sym;
		const char *nm = NULL;
		if (gelf_getsym(sd, (int)GELF_R_SYM(info), &sym))
			nm = elf_strptr(elf, sh_dyn.sh_link, sym.st_name);
		char *dmn = mp_demangle_one(dm, nm);
		const char *use = dmn ? dmn : nm ? nm : "";
		offs[cnt] = pool.len;
		int rc = mp_buf_append(&pool, use, strlen(use)) || mp_buf_append(&pool, "@plt", 5);
		free(dmn);
		if (rc)
			goto nomem;
		v[cnt++] = (struct mp_esym){ at, at + ent, NULL, STB_GLOBAL };
	}
	for (size_t i = 0; i < cnt; i++)
		v[i].name = pool.data + offs[i];
	free(offs);
	free(t->pool);
	t->pool = pool.data;
	t->n = cnt;
	mp_symtab_finish(t, 0);
	return cnt > old;
nomem:
	free(offs);
	mp_buf_fini(&pool);
	return -ENOMEM;
}

int mp_elf_has_section(Elf *elf, unsigned type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return 1;
	}
	return 0;
}

Elf_Scn *mp_elf_section(Elf *elf, const char *name)
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

int mp_elf_has_dwarf_lines(Elf *elf)
{
	Elf_Scn *scn = mp_elf_section(elf, ".debug_line");
	if (!scn)
		scn = mp_elf_section(elf, ".zdebug_line");
	if (!scn)
		return 0;
	GElf_Shdr sh;
	return gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
}

/* ---- C++ names ---- */

/* perf shows demangled names without parameters and without the return type of template
 * functions (cplus_demangle without DMGL_PARAMS): "worker", "std::vector<double,
 * std::allocator<double> >::_M_realloc_insert<double>". __cxa_demangle always gives the full
 * signature, so cut it back. */
static void strip_signature(char *d)
{
	size_t n = strlen(d);
	/* GCC's clones (.localalias, .cold, .isra.0, .constprop.0, .part.0) demangle with
	 * " [clone .cold]" after the parameters. A local alias is the function itself (the
	 * same code under a second, local name): its name is the function's, as perf's
	 * demangling without parameters gives it ("demo::work"). The other clones are code
	 * of their own: they keep their suffix after the name without parameters
	 * ("demo::lexer::scan [clone .cold]"), so that the function itself is found by its
	 * name */
	char keep[128] = "";
	char *cl = strstr(d, " [clone .");
	if (cl && d[n - 1] == ']') {
		for (char *k = cl; k; k = strstr(k + 1, " [clone .")) {
			char *e = strchr(k, ']');
			size_t kl = e ? (size_t)(e - k) + 1 : strlen(k);
			if (strncmp(k, " [clone .localalias]", kl) && strlen(keep) + kl < sizeof(keep))
				strncat(keep, k, kl);
		}
		*cl = 0;
		n = (size_t)(cl - d);
	}
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
	if (keep[0]) /* d had room for them: they were in it */
		memcpy(d + strlen(d), keep, strlen(keep) + 1);
}

static int demangler_load(struct mp_demangler *d)
{
	if (!d->tried) {
		d->tried = 1;
		d->lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (d->lib)
			*(void **)&d->cxa_demangle = dlsym(d->lib, "__cxa_demangle");
	}
	return d->cxa_demangle != NULL;
}

/* A Rust (legacy _ZN..17h<hash>E or v0 _R...) or D (_D<digit>) name as perf shows it:
 * libiberty's cplus_demangle without the hash; NULL for other names (C++ goes through
 * __cxa_demangle) */
static int rust_legacy_hash(const char *name)
{
	for (const char *h = strstr(name, "17h"); h; h = strstr(h + 1, "17h")) {
		size_t k = 3;
		while (k < 19 && ((h[k] >= '0' && h[k] <= '9') || (h[k] >= 'a' && h[k] <= 'f')))
			k++;
		if (k == 19 && h[19] == 'E')
			return 1;
	}
	return 0;
}

static char *demangle_rust_d(const char *name)
{
	if (name[0] != '_')
		return NULL;
	if (name[1] == 'R' || (name[1] == 'Z' && name[2] == 'N' && rust_legacy_hash(name)))
		return cplus_demangle(name, DMGL_RUST);
	if (name[1] == 'D' && name[2] >= '0' && name[2] <= '9')
		return cplus_demangle(name, DMGL_DLANG);
	return NULL;
}

static int maybe_mangled(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R' || name[1] == 'D');
}

char *mp_demangle_one(struct mp_demangler *d, const char *name)
{
	int st = -1;
	if (!name)
		return NULL;
	char *rd = demangle_rust_d(name);
	if (rd && *rd)
		return rd;
	free(rd);
	if (strncmp(name, "_Z", 2) || !demangler_load(d))
		return NULL;
	char *dm = d->cxa_demangle(name, NULL, NULL, &st);
	if (!dm || st || !*dm) {
		free(dm);
		return NULL;
	}
	strip_signature(dm);
	return dm;
}

void mp_symtab_demangle(struct mp_demangler *d, struct mp_symtab *t)
{
	size_t need = 0;
	for (size_t i = 0; i < t->n; i++)
		if (maybe_mangled(t->v[i].name))
			need = 1;
	if (!need)
		return;
	demangler_load(d);
	struct mp_buf pool = { 0 };
	for (size_t i = 0; i < t->n; i++) {
		const char *nm = t->v[i].name;
		char *dm = NULL;
		int st = -1;
		if ((dm = demangle_rust_d(nm)) != NULL) {
			st = 0;
		} else if (!strncmp(nm, "_Z", 2) && d->cxa_demangle) {
			dm = d->cxa_demangle(nm, NULL, NULL, &st);
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

void mp_demangler_fini(struct mp_demangler *dm)
{
	if (dm->lib)
		dlclose(dm->lib);
	memset(dm, 0, sizeof(*dm));
}
