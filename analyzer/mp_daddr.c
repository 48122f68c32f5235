/* mp_daddr.c - data addresses (PERF_SAMPLE_ADDR) placed in the data of the recorded
 * processes: every mapping (MMAP2 of data as well as code, which the code-side maps of
 * mp_maps.c leave out), the ELF object symbols (and functions) of each mapped object, and
 * the .bss that lies in the anonymous mapping after an object's last file mapping, found
 * through the object's PT_LOAD segments. */
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mp_analyzer.h"
#include "mp_symtab.h"

enum dd_kind { DD_FILE, DD_ANON, DD_STACK, DD_HEAP, DD_SPECIAL };

struct dd_obj {
	char *path;
	const char *short_name; /* into path */
	enum dd_kind kind;
	int loaded, ok;
	struct mp_symtab syms;  /* functions and objects, ELF vaddrs */
	GElf_Phdr *load;        /* PT_LOAD segments */
	size_t nload;
};

struct dd_map {
	uint64_t start, end, pgoff;
	uint32_t obj;
	uint32_t stack_tid; /* an anonymous map that is this thread's stack (0: none) */
};

struct dd_proc {
	uint32_t pid;
	struct dd_map *maps; /* sorted by start, not overlapping */
	size_t n, cap;
	/* the stack of the next thread this one creates: glibc maps a new thread's stack
	 * (PROT_NONE, then read-write but for the guard page: a map ending where the
	 * PROT_NONE one ends) just before its clone */
	uint64_t none_end;  /* end of the last PROT_NONE anonymous map */
	struct dd_map cand; /* the best candidate since the last thread creation */
	uint32_t cand_tid;  /* the thread that mapped it */
	int cand_score;     /* 0 none, 1 read-write, 2 read-write below a guard */
};

struct mp_daddr {
	mp_sym *sym;          /* borrowed: finds objects as the code side does */
	unsigned flags;       /* MP_DADDR_* */
	struct mp_demangler demangler; /* the names of PLT entries */
	char *symfs;
	struct dd_obj *objs;
	size_t nobjs, capobjs;
	struct mp_u64map obj_by_path; /* strhash(path) -> obj (probing on collision) */
	struct dd_proc *procs;
	size_t nprocs, capprocs;
	struct mp_u64map proc_by_pid;
};

mp_daddr *mp_daddr_new(mp_sym *sym, const char *symfs, unsigned flags)
{
	mp_daddr *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->sym = sym;
	d->flags = flags;
	if (symfs && *symfs && strcmp(symfs, "/") && !(d->symfs = strdup(symfs))) {
		free(d);
		return NULL;
	}
	return d;
}

void mp_daddr_free(mp_daddr *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nobjs; i++) {
		free(d->objs[i].path);
		mp_symtab_fini(&d->objs[i].syms);
		free(d->objs[i].load);
	}
	for (size_t i = 0; i < d->nprocs; i++)
		free(d->procs[i].maps);
	free(d->objs);
	free(d->procs);
	mp_u64map_fini(&d->obj_by_path);
	mp_u64map_fini(&d->proc_by_pid);
	mp_demangler_fini(&d->demangler);
	free(d->symfs);
	free(d);
}

static enum dd_kind kind_of(const char *path)
{
	if (!strcmp(path, "[stack]"))
		return DD_STACK;
	if (!strcmp(path, "[heap]"))
		return DD_HEAP;
	if (!*path || !strcmp(path, "//anon") || !strncmp(path, "/anon_hugepage", 14) ||
	    !strncmp(path, "/dev/zero", 9) || !strncmp(path, "[anon", 5) ||
	    !strncmp(path, "/SYSV", 5) || !strncmp(path, "/memfd:", 7))
		return DD_ANON;
	if (path[0] == '[')
		return DD_SPECIAL;
	return DD_FILE;
}

static uint32_t obj_get(mp_daddr *d, const char *path)
{
	uint64_t h = mp_strhash(path);

	for (uint64_t k = h;; k = mp_mix64(k + 1)) {
		int found;
		uint32_t *slot = mp_u64map_slot(&d->obj_by_path, k, &found);
		if (!slot)
			return UINT32_MAX;
		if (found) {
			if (!strcmp(d->objs[*slot].path, path))
				return *slot;
			continue;
		}
		if (mp_grow((void **)&d->objs, &d->capobjs, d->nobjs + 1, sizeof(*d->objs))) {
			mp_u64map_unslot(&d->obj_by_path, slot);
			return UINT32_MAX;
		}
		struct dd_obj *o = &d->objs[d->nobjs];
		memset(o, 0, sizeof(*o));
		if (!(o->path = strdup(path))) {
			mp_u64map_unslot(&d->obj_by_path, slot);
			return UINT32_MAX;
		}
		const char *b = strrchr(o->path, '/');
		o->kind = kind_of(path);
		o->short_name = b && o->kind != DD_SPECIAL ? b + 1 : o->path;
		*slot = (uint32_t)d->nobjs;
		return (uint32_t)d->nobjs++;
	}
}

static struct dd_proc *proc_get(mp_daddr *d, uint32_t pid, int create)
{
	int found;
	const uint32_t *p = mp_u64map_get(&d->proc_by_pid, pid);

	if (p)
		return &d->procs[*p];
	if (!create)
		return NULL;
	if (mp_grow((void **)&d->procs, &d->capprocs, d->nprocs + 1, sizeof(*d->procs)))
		return NULL;
	uint32_t *slot = mp_u64map_slot(&d->proc_by_pid, pid, &found);
	if (!slot)
		return NULL;
	*slot = (uint32_t)d->nprocs;
	memset(&d->procs[d->nprocs], 0, sizeof(d->procs[0]));
	d->procs[d->nprocs].pid = pid;
	return &d->procs[d->nprocs++];
}

static int map_cmp(const void *a, const void *b)
{
	const struct dd_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Put m into p, cutting away what older maps it covers (a later mmap or mprotect over a
 * part of an earlier mapping replaces that part). */
static int proc_insert(struct dd_proc *p, struct dd_map m)
{
	/* at most one map is split in two: room for its right part and for m */
	if (mp_grow((void **)&p->maps, &p->cap, p->n + 2, sizeof(*p->maps)))
		return -ENOMEM;
	size_t w = 0, n = p->n;
	struct dd_map right = { 0 };
	int has_right = 0;
	for (size_t i = 0; i < n; i++) {
		struct dd_map o = p->maps[i];
		if (o.end <= m.start || o.start >= m.end) {
			p->maps[w++] = o;
			continue;
		}
		if (o.end > m.end) {
			right = o;
			right.pgoff += m.end - o.start;
			right.start = m.end;
			has_right = 1;
		}
		if (o.start < m.start) {
			o.end = m.start;
			p->maps[w++] = o;
		}
	}
	p->maps[w++] = m;
	if (has_right)
		p->maps[w++] = right;
	p->n = w;
	qsort(p->maps, p->n, sizeof(*p->maps), map_cmp);
	return 0;
}

int mp_daddr_mmap(mp_daddr *d, const struct mp_pd_mmap *m)
{
	if (!m->len || m->cpumode == PERF_RECORD_MISC_KERNEL ||
	    m->cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		return 0;
	uint32_t obj = obj_get(d, m->filename ? m->filename : "");
	struct dd_proc *p = obj == UINT32_MAX ? NULL : proc_get(d, m->pid, 1);
	if (!p)
		return -ENOMEM;
	uint64_t end = m->start + m->len < m->start ? UINT64_MAX : m->start + m->len;
	struct dd_map dm = { m->start, end, m->pgoff, obj, 0 };
	if (d->objs[obj].kind == DD_ANON) { /* prot 0: PROT_NONE (or an old MMAP record) */
		int score = !(m->prot & (PROT_READ | PROT_WRITE)) ? 0 : end == p->none_end ? 2 : 1;
		if (!score)
			p->none_end = end;
		else if (score >= p->cand_score) {
			p->cand = dm;
			p->cand_tid = m->tid;
			p->cand_score = score;
		}
	}
	return proc_insert(p, dm);
}

int mp_daddr_comm(mp_daddr *d, const struct mp_pd_task *t)
{
	struct dd_proc *p = t->exec ? proc_get(d, t->pid, 0) : NULL;

	if (p)
		p->n = 0;
	return 0;
}

/* A new thread of p (tid, created by ptid): the candidate stack ptid mapped is its own. */
static void thread_stack(mp_daddr *d, struct dd_proc *p, uint32_t tid, uint32_t ptid)
{
	if (p->cand_score && p->cand_tid == ptid && !(d->flags & MP_DADDR_NO_BSS))
		for (size_t i = 0; i < p->n; i++)
			if (p->maps[i].start == p->cand.start && p->maps[i].end == p->cand.end &&
			    p->maps[i].obj == p->cand.obj)
				p->maps[i].stack_tid = tid;
	p->cand_score = 0;
	p->none_end = 0;
}

int mp_daddr_fork(mp_daddr *d, const struct mp_pd_task *t)
{
	if (t->pid == t->ppid) {
		struct dd_proc *p = t->tid != t->ptid ? proc_get(d, t->pid, 0) : NULL;
		if (p)
			thread_stack(d, p, t->tid, t->ptid);
		return 0;
	}
	struct dd_proc *pp = proc_get(d, t->ppid, 0);
	if (!pp || !pp->n)
		return 0;
	const struct dd_map *maps = pp->maps; /* stays where it is */
	size_t n = pp->n;
	struct dd_proc *c = proc_get(d, t->pid, 1); /* may move the procs array */
	return c ? MP_ARRAY_COPY(c->maps, c->n, c->cap, maps, n) : -ENOMEM;
}

/* The data side's filter: objects and functions, and untyped labels in code only (_start),
 * as perf's function labels; no absolute or common symbols. */
static int keep_data(void *ctx, Elf *elf, const GElf_Sym *s, const char *nm, uint64_t *start)
{
	(void)ctx;
	(void)nm;
	(void)start;
	int st = GELF_ST_TYPE(s->st_info);
	GElf_Shdr ts;
	if ((st != STT_OBJECT && st != STT_FUNC && st != STT_GNU_IFUNC && st != STT_NOTYPE) ||
	    s->st_shndx >= SHN_LORESERVE)
		return 0;
	return st != STT_NOTYPE || (gelf_getshdr(elf_getscn(elf, s->st_shndx), &ts) &&
				    (ts.sh_flags & SHF_EXECINSTR));
}

/* Functions and objects of the first symbol table of this type that has some. */
static int load_syms(Elf *elf, unsigned type, struct mp_symtab *t)
{
	return mp_symtab_load_kept(elf, type, t, keep_data, NULL);
}

static void obj_load(mp_daddr *d, struct dd_obj *o)
{
	char *file = NULL;
	int fd = -1, dfd = -1;

	o->loaded = 1;
	if (o->kind != DD_FILE)
		return;
	/* the file the code side reads for it (symfs, build-id cache), else symfs + path */
	long idx = d->sym ? mp_sym_dso_find(d->sym, o->path) : -1;
	const struct mp_sym_dso_info *di = idx >= 0 ? mp_sym_dso(d->sym, (size_t)idx, 1) : NULL;
	if (di && di->file)
		file = strdup(di->file);
	else if (asprintf(&file, "%s%s", d->symfs ? d->symfs : "", o->path) < 0)
		file = NULL;
	Elf *elf = file ? mp_elf_open(file, &fd) : NULL;
	free(file);
	if (!elf)
		return;
	size_t nph = 0;
	if (!elf_getphdrnum(elf, &nph) && nph && (o->load = calloc(nph, sizeof(*o->load)))) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				o->load[o->nload++] = ph;
		}
	}
	/* .symtab, else the debug file's (a stripped object), else .dynsym: as the code side
	 * reads them; then the PLT entries as perf names them */
	int got = load_syms(elf, SHT_SYMTAB, &o->syms);
	Elf *dbg = !got && di && di->debug_file ? mp_elf_open(di->debug_file, &dfd) : NULL;
	if (dbg)
		got = load_syms(dbg, SHT_SYMTAB, &o->syms);
	if (!got)
		load_syms(elf, SHT_DYNSYM, &o->syms);
	mp_symtab_add_plt(elf, &o->syms, &d->demangler);
	if (dbg) {
		elf_end(dbg);
		close(dfd);
	}
	elf_end(elf);
	close(fd);
	o->ok = o->nload > 0;
}

/* The ELF vaddr at file offset off of o, or UINT64_MAX: in a segment's file image, else
 * in the .bss that shares the segment's last file page. */
static uint64_t off_to_vaddr(const struct dd_obj *o, uint64_t off)
{
	for (int bss = 0; bss < 2; bss++)
		for (size_t i = 0; i < o->nload; i++) {
			const GElf_Phdr *ph = &o->load[i];
			uint64_t a = ph->p_align > 1 ? ph->p_align : 1;
			uint64_t lo = ph->p_offset & ~(a - 1);
			uint64_t hi = ph->p_offset + (bss ? ph->p_memsz : ph->p_filesz);
			if (off >= lo && off < hi)
				return ph->p_vaddr - (ph->p_offset - lo) + (off - lo);
		}
	return UINT64_MAX;
}

/* 1 when vaddr lies in a PT_LOAD segment's memory image (its .bss included). */
static int in_image(const struct dd_obj *o, uint64_t vaddr)
{
	for (size_t i = 0; i < o->nload; i++)
		if (vaddr >= o->load[i].p_vaddr && vaddr < o->load[i].p_vaddr + o->load[i].p_memsz)
			return 1;
	return 0;
}

static void fill_sym(struct dd_obj *o, uint64_t vaddr, struct mp_daddr_loc *out)
{
	const struct mp_esym *s = mp_symtab_find(&o->syms, vaddr);

	out->dso = o->short_name;
	out->path = o->path;
	out->vaddr = vaddr;
	if (s) {
		out->sym = s->name;
		out->sym_start = s->start;
		out->sym_size = s->end - s->start;
	}
}

void mp_daddr_resolve(mp_daddr *d, uint32_t pid, uint64_t addr, struct mp_daddr_loc *out)
{
	memset(out, 0, sizeof(*out));
	out->dso = "[unknown]";
	out->kind = MP_DADDR_UNKNOWN;
	struct dd_proc *p = proc_get(d, pid, 0);
	if (!p)
		return;
	/* the first map ending above addr */
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	struct dd_map *m = lo < p->n && p->maps[lo].start <= addr ? &p->maps[lo] : NULL;
	struct dd_obj *o = m ? &d->objs[m->obj] : NULL;
	if (o && o->kind == DD_FILE) {
		if (!o->loaded)
			obj_load(d, o);
		out->kind = MP_DADDR_OBJECT;
		out->dso = o->short_name;
		out->path = o->path;
		out->obj_path = o->path;
		uint64_t v = o->ok ? off_to_vaddr(o, addr - m->start + m->pgoff) : UINT64_MAX;
		if (v != UINT64_MAX)
			fill_sym(o, v, out);
		return;
	}
	if ((!o || o->kind == DD_ANON) && !(d->flags & MP_DADDR_NO_BSS)) {
		/* .bss past an object's file mapping: the maps just below addr, each with the
		 * load bias its own file offset gives */
		for (size_t k = lo, tries = 0; k-- > 0 && tries < 8; tries++) {
			struct dd_map *b = &p->maps[k];
			struct dd_obj *bo = &d->objs[b->obj];
			if (bo->kind != DD_FILE)
				continue;
			if (!bo->loaded)
				obj_load(d, bo);
			uint64_t v0 = bo->ok ? off_to_vaddr(bo, b->pgoff) : UINT64_MAX;
			if (v0 == UINT64_MAX)
				continue;
			uint64_t v = addr - b->start + v0;
			if (in_image(bo, v)) {
				out->kind = MP_DADDR_OBJECT;
				out->obj_path = bo->path;
				fill_sym(bo, v, out);
				return;
			}
			break; /* the nearest object below does not reach addr */
		}
	}
	if (!o)
		return;
	out->dso = o->short_name;
	out->path = o->path;
	if (o->kind == DD_STACK || m->stack_tid) {
		out->kind = MP_DADDR_STACK;
		out->dso = "[stack]";
		out->tid = m->stack_tid ? m->stack_tid : pid;
		out->comm = d->sym ? mp_sym_comm_of(d->sym, pid, out->tid) : NULL;
		return;
	}
	out->kind = o->kind == DD_STACK  ? MP_DADDR_STACK
		    : o->kind == DD_HEAP ? MP_DADDR_HEAP
		    : o->kind == DD_ANON ? MP_DADDR_ANON
					 : MP_DADDR_SPECIAL;
}

void mp_daddr_sym_str(const struct mp_daddr_loc *dl, uint64_t addr, char lvl, char *buf,
		      size_t n)
{
	if (dl->sym)
		snprintf(buf, n, "[.] %s", dl->sym);
	else if (dl->kind == MP_DADDR_STACK && dl->comm)
		snprintf(buf, n, "[.] [stack] %s/%u", dl->comm, dl->tid);
	else if (dl->kind == MP_DADDR_STACK)
		snprintf(buf, n, "[.] [stack] %u", dl->tid);
	else
		snprintf(buf, n, "[%c] 0x%016" PRIx64, lvl, addr);
}

void mp_daddr_cacheline_str(const struct mp_daddr_loc *dl, uint64_t addr, char lvl, char *buf,
			    size_t n)
{
	uint64_t cl = addr & ~(uint64_t)63;
	uint64_t vcl = dl->vaddr - (addr - cl);
	if (dl->sym && vcl >= dl->sym_start)
		snprintf(buf, n, "[.] %s+0x%" PRIx64, dl->sym, vcl - dl->sym_start);
	else
		snprintf(buf, n, "[%c] 0x%016" PRIx64, dl->sym ? '.' : lvl, cl);
}
