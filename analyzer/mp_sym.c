/* mp_sym.c - the symbol context: where an address lives. Its objects are split as perf's
 * own tree is (see mp_sym_int.h); here are the context itself, interned strings, the
 * build-id notes, and the lookups of mp_analyzer.h that go through an object. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_dso.h"
#include "mp_kallsyms.h"
#include "mp_srcline.h"
#include "mp_sym_int.h"

/* ---- strings ---- */

uint32_t mp_sym_intern(mp_sym *s, const char *str)
{
	uint64_t h = mp_u64map_key(mp_strhash(str));
	const uint32_t *v;

	while ((v = mp_u64map_get(&s->str_by_hash, h))) {
		if (!strcmp(s->strs[*v], str))
			return *v;
		h = mp_u64map_key(mp_mix64(h + 1));
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

const char *mp_sym_intern_str(mp_sym *s, const char *str)
{
	uint32_t id = mp_sym_intern(s, str);
	return id == UINT32_MAX ? "[nomem]" : s->strs[id];
}

/* ---- paths ---- */

char *mp_sym_join_symfs(const mp_sym *s, const char *path)
{
	char *out;

	if (!s->symfs || !*s->symfs || !strcmp(s->symfs, "/"))
		return strdup(path);
	if (asprintf(&out, "%s%s%s", s->symfs, path[0] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}


int mp_elf_build_id(Elf *elf, uint8_t *out, size_t max)
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
		if (data->d_buf && !mp_note_build_id(data->d_buf, data->d_size, out, max, &n))
			return (int)n;
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
		if (data->d_buf && !mp_note_build_id(data->d_buf, data->d_size, out, max, &n))
			return (int)n;
	}
	return 0;
}

void mp_kernel_build_id(uint8_t *out, size_t *len)
{
	/* /sys/kernel/notes holds the running kernel's ELF notes */
	uint8_t buf[4096];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	*len = 0;
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && mp_note_build_id(buf, (size_t)n, out, 20, len))
		*len = 0;
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
	s->jit_pid = UINT32_MAX;
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
	if (mp_sym_intern(s, "") != 0)
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
	for (size_t i = 0; i < s->ndsos; i++)
		mp_dso_fini(&s->dsos[i]);
	free(s->dsos);
	mp_u64map_fini(&s->dso_by_path);
	free(s->maps);
	for (size_t i = 0; i < s->nprocs; i++) {
		free(s->procs[i].maps);
		free(s->procs[i].old);
	}
	free(s->procs);
	mp_u64map_fini(&s->proc_by_pid);
	for (size_t i = 0; i < s->nstrs; i++)
		free(s->strs[i]);
	free(s->strs);
	mp_u64map_fini(&s->str_by_hash);
	mp_u64map_fini(&s->comm_by_tid);
	mp_u64map_fini(&s->inl_idx);
	free(s->inl_v);
	free(s->inl_e);
	mp_kallsyms_fini(s);
	free(s->kcore_ph);
	if (s->kcore_fd >= 0)
		close(s->kcore_fd);
	mp_demangler_fini(&s->demangler);
	for (size_t i = 0; i < s->nbids; i++)
		free((char *)s->bids[i].filename);
	free(s->bids);
	free(s->symfs);
	free(s->buildid_dir);
	free(s->kallsyms);
	free(s->osrelease);
	free(s);
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
		out->sym = mp_sym_intern_str(s, buf);
		return;
	}
	const struct mp_map *m = &s->maps[map_id];
	struct mp_dso *d = &s->dsos[m->dso];
	out->dso_idx = m->dso;
	out->dso = d->name;
	if (d->anon || (d->kernel && !d->module))
		out->addr = ip; /* perf maps these 1:1 */
	else
		out->addr = ip - m->start + m->pgoff;
	mp_dso_load(s, d);
	const struct mp_esym *e = NULL;
	if (d->kernel) {
		out->elf_addr = ip;
		e = mp_kallsyms_find(s, ip);
	} else {
		out->elf_addr = d->elf ? mp_dso_off_to_vaddr(d, out->addr) : out->addr;
		if (d->syms.n)
			e = mp_symtab_find(&d->syms, out->elf_addr);
	}
	if (e) {
		out->sym = e->name;
		out->sym_resolved = 1;
		out->sym_start = e->start;
		out->sym_size = e->end - e->start;
	} else {
		snprintf(buf, sizeof(buf), "0x%016" PRIx64, out->addr);
		out->sym = mp_sym_intern_str(s, buf);
	}
	if (want_line && !s->no_srcline && !d->kernel && d->elf) {
		const char *f;
		unsigned ln;
		const char *inl = NULL;
		if (!mp_srcline_find(s, d, out->elf_addr, &f, &ln, want_line > 1 ? &inl : NULL)) {
			out->srcfile = f;
			out->line = ln;
			out->inline_fn = inl;
		}
	}
}

/* The object's ELF address of ip in map m (as mp_sym_resolve() computes it). */
static uint64_t map_elf_addr(const struct mp_dso *d, const struct mp_map *m, uint64_t ip)
{
	uint64_t addr = d->anon || (d->kernel && !d->module) ? ip : ip - m->start + m->pgoff;
	return d->elf ? mp_dso_off_to_vaddr(d, addr) : addr;
}

/* The ELF addresses of ips[0..n) grouped by their object's place in order (slot[dso]),
 * each group in the order of ips: w[k].addrs, w[k].naddrs. */
static uint64_t *group_addrs(mp_sym *s, const uint32_t *maps, const uint64_t *ips, size_t n,
			     const uint32_t *slot, size_t nd, struct mp_srcline_want *w,
			     size_t nv)
{
	uint64_t *addrs = malloc((n ? n : 1) * sizeof(*addrs));
	size_t *at = calloc(nv ? nv : 1, sizeof(*at));
	if (!addrs || !at) {
		free(at);
		free(addrs);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		if (maps[i] < s->nmaps && s->maps[maps[i]].dso < nd)
			w[slot[s->maps[maps[i]].dso]].naddrs++;
	for (size_t k = 1; k < nv; k++)
		at[k] = at[k - 1] + w[k - 1].naddrs;
	for (size_t k = 0; k < nv; k++)
		w[k].addrs = addrs + at[k];
	for (size_t i = 0; i < n; i++) {
		if (maps[i] >= s->nmaps || s->maps[maps[i]].dso >= nd)
			continue;
		const struct mp_map *m = &s->maps[maps[i]];
		uint32_t k = slot[m->dso];
		addrs[at[k]++] = map_elf_addr(w[k].d, m, ips[i]);
	}
	free(at);
	return addrs;
}

void mp_sym_prepare_lines(mp_sym *s, const uint32_t *maps, const uint64_t *ips, size_t n)
{
	size_t nd = s->ndsos, nv = 0;
	uint32_t *slot = malloc((nd ? nd : 1) * sizeof(*slot));
	uint32_t *order = malloc((nd ? nd : 1) * sizeof(*order));
	if (!slot || !order || s->no_srcline)
		goto out;
	memset(slot, 0xff, nd * sizeof(*slot));
	for (size_t i = 0; i < n; i++) {
		if (maps[i] == MP_SYM_NO_MAP || maps[i] >= s->nmaps)
			continue;
		uint32_t di = s->maps[maps[i]].dso;
		if (di >= nd || slot[di] != UINT32_MAX)
			continue;
		slot[di] = (uint32_t)nv;
		mp_dso_load(s, &s->dsos[di]);
		order[nv++] = di;
	}
	/* loading may have grown s->dsos: the pointers after */
	struct mp_srcline_want *w = calloc(nv ? nv : 1, sizeof(*w));
	if (!w)
		goto out;
	for (size_t k = 0; k < nv; k++)
		w[k].d = &s->dsos[order[k]];
	uint64_t *addrs = ips ? group_addrs(s, maps, ips, n, slot, nd, w, nv) : NULL;
	size_t k = 0;
	for (size_t i = 0; i < nv; i++) {
		if (w[i].d->kernel || !w[i].d->elf)
			continue;
		w[k] = w[i];
		if (!addrs)
			w[k].naddrs = 0;
		k++;
	}
	mp_srcline_open_many(w, k);
	free(addrs);
	free(w);
out:
	free(slot);
	free(order);
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
		mp_dso_load(s, &s->dsos[idx]);
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
	struct mp_dso *d = &s->dsos[dso_idx];
	mp_dso_load(s, d);
	const struct mp_symtab *t = d->kernel ? mp_kallsyms_table(s) : &d->syms;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, sym)) {
			*start = t->v[i].start;
			*size = t->v[i].end - t->v[i].start;
			return 0;
		}
	return -ENOENT;
}

const char *mp_sym_name_at(mp_sym *s, size_t dso_idx, uint64_t addr, uint64_t *off)
{
	if (dso_idx >= s->ndsos)
		return NULL;
	struct mp_dso *d = &s->dsos[dso_idx];
	mp_dso_load(s, d);
	const struct mp_esym *e = mp_symtab_find(d->kernel ? &s->ksyms : &d->syms, addr);
	if (!e)
		return NULL;
	*off = addr - e->start;
	return e->name;
}

int mp_sym_srcline(mp_sym *s, size_t dso_idx, uint64_t elf_addr, const char **file,
		   unsigned *line)
{
	if (dso_idx >= s->ndsos || s->no_srcline)
		return -ENOENT;
	struct mp_dso *d = &s->dsos[dso_idx];
	mp_dso_load(s, d);
	if (d->kernel || !d->elf)
		return -ENOENT;
	return mp_srcline_find(s, d, elf_addr, file, line, NULL);
}

long mp_sym_read_code(mp_sym *s, size_t dso_idx, uint64_t addr, void *buf, size_t len)
{
	if (dso_idx >= s->ndsos)
		return -ENOENT;
	struct mp_dso *d = &s->dsos[dso_idx];
	mp_dso_load(s, d);
	if (d->kernel)
		return mp_kcore_read(s, addr, buf, len);
	if (!d->elf)
		return -ENOENT;
	return mp_dso_read(d, addr, buf, len);
}

int mp_sym_machine(mp_sym *s, size_t dso_idx, int *is64)
{
	if (dso_idx >= s->ndsos)
		return 0;
	struct mp_dso *d = &s->dsos[dso_idx];
	mp_dso_load(s, d);
	if (d->kernel && s->kcore_machine) {
		*is64 = 1;
		return s->kcore_machine;
	}
	*is64 = d->is64;
	return d->machine;
}

