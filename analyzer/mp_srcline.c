/* mp_srcline.c - source lines and inline scopes through libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mp_dwline.h"
#include "mp_dwtrim.h"
#include "mp_dwscope.h"
#include "mp_srcline.h"
#include "mp_sym_int.h"

static int cu_range_cmp(const void *pa, const void *pb)
{
	const struct mp_cu_range *a = pa, *b = pb;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

void mp_cu_ranges_sort(struct mp_cu_range *v, size_t n)
{
	/* qsort() wants a valid pointer even for no elements (DWARF without CU ranges) */
	if (n > 1)
		qsort(v, n, sizeof(*v), cu_range_cmp);
}


/* The sections mp_dwline_read() reads, decompressed by dwarf_begin_elf() (none when the
 * file is not little-endian: libdw reads all its tables then). */
static void dso_line_secs(struct mp_dso *d, Elf *e, uint32_t nunits)
{
	const char *id = elf_getident(e, NULL);
	const uint16_t one = 1;
	if (!nunits || !id || id[EI_DATA] != ELFDATA2LSB || *(const uint8_t *)&one != 1)
		return;
	static const char *const names[] = { ".debug_line", ".debug_line_str", ".debug_str" };
	Elf_Data *data[3];
	for (int i = 0; i < 3; i++) {
		Elf_Scn *scn = mp_elf_section(e, names[i]);
		data[i] = scn ? elf_getdata(scn, NULL) : NULL;
		if (data[i] && !data[i]->d_buf)
			data[i] = NULL;
	}
	if (!data[0])
		return;
	d->dwsecs = calloc(1, sizeof(*d->dwsecs));
	d->lt = calloc(nunits, sizeof(*d->lt));
	d->unit_lt = calloc(nunits, 1);
	if (!d->dwsecs || !d->lt || !d->unit_lt) {
		free(d->dwsecs);
		free(d->lt);
		free(d->unit_lt);
		d->dwsecs = NULL;
		d->lt = NULL;
		d->unit_lt = NULL;
		return;
	}
	d->nunits = nunits;
	*d->dwsecs = (struct mp_dwline_secs){
		data[0]->d_buf,
		data[1] ? data[1]->d_buf : NULL,
		data[2] ? data[2]->d_buf : NULL,
		data[0]->d_size,
		data[1] ? data[1]->d_size : 0,
		data[2] ? data[2]->d_size : 0,
	};
}

/* The line table of unit cu (d->cus[r]'s) read here, on first use; NULL when libdw reads
 * it. As libdw, units with the same .debug_line offset share the first one's table. */
static const mp_dwline *dso_unit_lines(struct mp_dso *d, size_t r, Dwarf_Die *cu)
{
	uint32_t u = d->cus[r].unit;
	if (!d->dwsecs || u >= d->nunits)
		return NULL;
	if (d->unit_lt[u])
		return d->lt[u];
	d->unit_lt[u] = 3;
	Dwarf_Attribute at;
	Dwarf_Word off;
	Dwarf_Die cudie;
	uint8_t asz;
	if (!dwarf_attr(cu, DW_AT_stmt_list, &at) || dwarf_formudata(&at, &off) ||
	    !dwarf_diecu(cu, &cudie, &asz, NULL))
		return NULL;
	for (size_t i = 0; i < d->nunits; i++)
		if (d->lt[i] && mp_dwline_offset(d->lt[i]) == off) {
			d->unit_lt[u] = 2;
			return d->lt[u] = d->lt[i];
		}
	const char *cd = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	d->lt[u] = mp_dwline_read(d->dwsecs, off, asz, cd);
	if (d->lt[u])
		d->unit_lt[u] = 1;
	return d->lt[u];
}

static void dso_open_dwarf(struct mp_dso *d)
{
	if (d->dw_tried)
		return;
	d->dw_tried = 1;
	int own = !(d->dwelf && mp_elf_has_dwarf_lines(d->dwelf));
	Elf *e = own ? d->elf : d->dwelf;
	if (!e || !mp_elf_has_dwarf_lines(e))
		return;
	d->dwtrim = mp_dwtrim_open(e, own ? d->fd : d->dwfd, &d->dwmap, &d->dwmaplen);
	if (d->dwtrim)
		e = d->dwtrim;
	d->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!d->dw)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	size_t cap = 0;
	uint32_t unit = 0;
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
				d->cus[d->ncus++] =
					(struct mp_cu_range){ lo, hi, off + hsize, unit };
			}
		}
		unit++;
		off = next;
	}
	mp_cu_ranges_sort(d->cus, d->ncus);
	dso_line_secs(d, e, unit);
}

/* what dso_open_dwarf() costs, to share the work out */
static uint64_t dwarf_cost(const struct mp_dso *d)
{
	Elf *e = d->dwelf && mp_elf_has_dwarf_lines(d->dwelf) ? d->dwelf : d->elf;
	return e ? mp_dwtrim_cost(e) : 0;
}

struct cu_key {
	const struct mp_cu_range *v;
	uint64_t addr;
};

static int starts_at_or_before(const void *ctx, size_t i)
{
	const struct cu_key *k = ctx;
	return k->v[i].lo <= k->addr;
}

/* The index in d->cus of the range holding addr, or SIZE_MAX. */
static size_t dso_cu_range(const struct mp_dso *d, uint64_t addr)
{
	struct cu_key key = { d->cus, addr };
	size_t lo = mp_partition_point(0, d->ncus, &key, starts_at_or_before);
	for (size_t k = 0; k < 8 && lo > 0; k++, lo--) {
		const struct mp_cu_range *r = &d->cus[lo - 1];
		if (addr >= r->lo && addr < r->hi)
			return lo - 1;
	}
	/* overlapping ranges further back: linear fallback */
	for (size_t i = 0; i < d->ncus; i++)
		if (addr >= d->cus[i].lo && addr < d->cus[i].hi)
			return i;
	return SIZE_MAX;
}

/* Read the line tables of the compilation units holding addrs[0..n) (in the order of
 * their first address), as the lookups of those addresses would on first use. */
static void dso_read_lines(struct mp_dso *d, const uint64_t *addrs, size_t n)
{
	uint8_t *done = d->dw && n ? calloc(d->ncus ? d->ncus : 1, 1) : NULL;
	if (!done)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t r = dso_cu_range(d, addrs[i]);
		if (r == SIZE_MAX || done[r])
			continue;
		done[r] = 1;
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nlines;
		if (dwarf_offdie(d->dw, d->cus[r].off, &cu) && !dso_unit_lines(d, r, &cu))
			dwarf_getsrclines(&cu, &lines, &nlines);
	}
	free(done);
}

struct open_job {
	const struct mp_srcline_want **v;
	size_t n;
};

static void open_one(const struct mp_srcline_want *w)
{
	dso_open_dwarf(w->d);
	dso_read_lines(w->d, w->addrs, w->naddrs);
}

static void *open_job_main(void *arg)
{
	struct open_job *j = arg;
	for (size_t i = 0; i < j->n; i++)
		open_one(j->v[i]);
	return NULL;
}

void mp_srcline_open_many(const struct mp_srcline_want *w, size_t n)
{
	const struct mp_srcline_want **mine = malloc((n ? n : 1) * sizeof(*mine));
	struct open_job other = { malloc((n ? n : 1) * sizeof(*mine)), 0 };
	uint64_t *cost = calloc(n ? n : 1, sizeof(*cost));
	size_t nmine = 0;
	uint64_t load[2] = { 0, 0 };
	if (!mine || !other.v || !cost)
		goto here;
	for (size_t i = 0; i < n; i++)
		cost[i] = w[i].d->dw_tried ? 0 : dwarf_cost(w[i].d);
	/* the biggest first, each to the thread with less so far (ties: this one) */
	for (size_t done = 0; done < n; done++) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < n; i++)
			if (cost[i] != UINT64_MAX && (best == SIZE_MAX || cost[i] > cost[best]))
				best = i;
		if (w[best].d->dw_tried || !cost[best]) {
			cost[best] = UINT64_MAX;
			continue;
		}
		int t = load[1] < load[0];
		load[t] += cost[best];
		if (t)
			other.v[other.n++] = &w[best];
		else
			mine[nmine++] = &w[best];
		cost[best] = UINT64_MAX;
	}
	pthread_t th;
	int two = other.n && pthread_create(&th, NULL, open_job_main, &other) == 0;
	for (size_t i = 0; i < nmine; i++)
		open_one(mine[i]);
	if (two)
		pthread_join(th, NULL);
	else
		open_job_main(&other);
here:
	/* the rest (without a second thread or memory: all) here */
	for (size_t i = 0; i < n; i++)
		dso_open_dwarf(w[i].d);
	free(mine);
	free(other.v);
	free(cost);
}

/* The unit holding addr: its range's index in d->cus (*r) and its DIE; 0 or -1. */
static int dso_cudie_at(struct mp_dso *d, uint64_t addr, size_t *r, Dwarf_Die *cu)
{
	if (!d->dw)
		return -1;
	*r = dso_cu_range(d, addr);
	return *r != SIZE_MAX && dwarf_offdie(d->dw, d->cus[*r].off, cu) ? 0 : -1;
}

static int dso_cudie(struct mp_dso *d, uint64_t addr, Dwarf_Die *cu)
{
	size_t r;
	return dso_cudie_at(d, addr, &r, cu);
}

int mp_srcline_find(mp_sym *s, struct mp_dso *d, uint64_t addr, const char **file,
		    unsigned *line, const char **inl)
{
	Dwarf_Die cu;

	size_t r;
	dso_open_dwarf(d);
	if (dso_cudie_at(d, addr, &r, &cu))
		return -ENOENT;
	const mp_dwline *t = dso_unit_lines(d, r, &cu);
	int ln = 0;
	const char *f = NULL;
	if (t) {
		if (mp_dwline_find(t, addr, &f, &ln))
			return -ENOENT;
	} else {
		Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
		if (!l)
			return -ENOENT;
		f = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &ln);
	}
	if (!f || ln <= 0)
		return -ENOENT;
	if (f[0] != '/') {
		/* a path relative to the compilation directory */
		Dwarf_Attribute at;
		const char *cd = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
		char *full;
		if (cd && cd[0] == '/' && asprintf(&full, "%s/%s", cd, f) >= 0) {
			f = mp_sym_intern_str(s, full);
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

void mp_srcline_fini(struct mp_dso *d)
{
	if (d->dw)
		dwarf_end(d->dw);
	d->dw = NULL;
	if (d->dwtrim)
		elf_end(d->dwtrim);
	if (d->dwmap)
		munmap(d->dwmap, d->dwmaplen);
	d->dwtrim = NULL;
	d->dwmap = NULL;
	free(d->cus);
	d->cus = NULL;
	d->ncus = 0;
	for (size_t i = 0; i < d->nunits; i++)
		if (d->unit_lt[i] == 1)
			mp_dwline_free(d->lt[i]);
	free(d->lt);
	free(d->unit_lt);
	free(d->dwsecs);
	d->lt = NULL;
	d->unit_lt = NULL;
	d->dwsecs = NULL;
	d->nunits = 0;
	for (size_t i = 0; i < d->nscx; i++)
		mp_dwscopes_free(d->scx[i]);
	free(d->scx);
	d->scx = NULL;
	d->nscx = d->capscx = 0;
	mp_u64map_fini(&d->scx_idx);
}

/* The index of unit cu's scopes (made on first use), NULL when there is none. */
static const struct mp_dwscopes *dso_unit_scopes(struct mp_dso *d, Dwarf_Die *cu)
{
	int found = 0;
	uint32_t *slot = mp_u64map_slot(&d->scx_idx, dwarf_dieoffset(cu), &found);
	if (!slot)
		return NULL;
	if (found)
		return d->scx[*slot];
	if (MP_GROW(d->scx, d->capscx, d->nscx + 1)) {
		mp_u64map_unslot(&d->scx_idx, slot);
		return NULL;
	}
	*slot = (uint32_t)d->nscx;
	return d->scx[d->nscx++] = mp_dwscopes_new(cu);
}

int mp_srcline_scope_path(struct mp_dso *d, uint64_t addr, Dwarf_Die **scopes)
{
	Dwarf_Die cu;
	*scopes = NULL;
	dso_open_dwarf(d);
	if (dso_cudie(d, addr, &cu))
		return 0;
	const struct mp_dwscopes *t = dso_unit_scopes(d, &cu);
	if (!t)
		return -1;
	Dwarf_Off off[256];
	const size_t max = sizeof(off) / sizeof(off[0]);
	size_t n = mp_dwscopes_path(t, addr, off, max);
	if (!n)
		return 0;
	if (n == max)
		return -1; /* nested deeper than that: libdw's walk has no bound */
	*scopes = malloc(n * sizeof(**scopes));
	if (!*scopes)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!dwarf_offdie(d->dw, off[i], &(*scopes)[i])) {
			free(*scopes);
			*scopes = NULL;
			return -1;
		}
	return (int)n;
}

int mp_srcline_scopes(struct mp_dso *d, uint64_t addr, Dwarf_Die **scopes)
{
	Dwarf_Die cu;

	*scopes = NULL;
	dso_open_dwarf(d);
	if (dso_cudie(d, addr, &cu))
		return 0;
	int n = dwarf_getscopes(&cu, addr, scopes);
	return n > 0 ? n : 0;
}
