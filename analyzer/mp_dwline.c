/* mp_dwline.c - a compilation unit's DWARF line table read as libdw 0.188's
 * read_srclines() reads it: the same rows (end-of-sequence markers included), the same file
 * names (dir + "/" + name unless absolute; DWARF < 5: dir 0 the unit's comp_dir, file 0
 * "???"; DWARF 5: file 0 the table's first entry) and the same order (by address, a
 * sequence's end before other rows at its address, then as emitted), so that the lookup
 * answers as dwarf_getsrc_die() does. Anything libdw could read otherwise, truncate or
 * refuse makes the reader give up (NULL), and libdw reads that table. */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "mp_dwline.h"
#include "mp_util.h"

struct row {
	uint64_t addr;
	uint32_t seq; /* order of emission */
	uint32_t file;
	int32_t line;
	uint8_t end;
};

struct mp_dwline {
	uint64_t off;
	struct row *rows;
	size_t nrows;
	const char **files;
	size_t nfiles;
	char **owned; /* names built here */
	size_t nowned, capowned;
};

/* bounded reads: any read past end sets bad */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_n(struct rd *r, unsigned n)
{
	uint64_t v = 0;
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	for (unsigned i = 0; i < n; i++) /* little-endian (the caller checks the ELF) */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned sh = 0; sh < 63; sh += 7) {
		if (r->bad || r->p >= r->end)
			break;
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1; /* past the end, or longer than 9 bytes: libdw's to read */
	return 0;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned sh = 0; sh < 63; sh += 7) {
		if (r->bad || r->p >= r->end)
			break;
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			if (b & 0x40)
				v |= ~(uint64_t)0 << (sh + 7);
			return (int64_t)v;
		}
	}
	r->bad = 1;
	return 0;
}

struct hdr {
	unsigned version, offsz, min_len, line_range, opcode_base;
	int line_base, default_is_stmt;
	const uint8_t *lengths; /* standard_opcode_lengths - 1, as libdw indexes it */
	const uint8_t *files, *hend, *prog, *end;
};

static int read_header(const struct mp_dwline_secs *s, uint64_t off, unsigned asz,
		       struct hdr *h)
{
	if (off > s->nline)
		return -1;
	struct rd r = { s->line + off, s->line + s->nline, 0 };
	uint64_t len = rd_n(&r, 4);
	h->offsz = 4;
	if (len == 0xffffffff) {
		len = rd_n(&r, 8);
		h->offsz = 8;
	} else if (len >= 0xfffffff0) {
		return -1;
	}
	if (r.bad || len > (size_t)(r.end - r.p))
		return -1;
	r.end = h->end = r.p + len;
	h->version = (unsigned)rd_n(&r, 2);
	if (h->version < 2 || h->version > 5)
		return -1;
	if (h->version >= 5 && (rd_n(&r, 1) != asz || rd_n(&r, 1) != 0))
		return -1;
	uint64_t hlen = rd_n(&r, h->offsz);
	if (r.bad || hlen > (size_t)(r.end - r.p))
		return -1;
	h->hend = h->prog = r.p + hlen;
	h->min_len = (unsigned)rd_n(&r, 1);
	if (h->version >= 4 && rd_n(&r, 1) != 1)
		return -1; /* VLIW op_index */
	h->default_is_stmt = (int)rd_n(&r, 1);
	h->line_base = (int8_t)rd_n(&r, 1);
	h->line_range = (unsigned)rd_n(&r, 1);
	h->opcode_base = (unsigned)rd_n(&r, 1);
	if (r.bad || h->default_is_stmt > 1 || h->line_range == 0 || h->opcode_base < 10 ||
	    h->opcode_base > 13 || (size_t)(h->hend - r.p) < h->opcode_base - 1)
		return -1;
	h->lengths = r.p - 1;
	h->files = r.p + h->opcode_base - 1;
	return 0;
}

static int add_owned(mp_dwline *t, char *p)
{
	if (MP_GROW(t->owned, t->capowned, t->nowned + 1)) {
		free(p);
		return -1;
	}
	t->owned[t->nowned++] = p;
	return 0;
}

static int add_file(mp_dwline *t, size_t *cap, const char *name)
{
	if (mp_grow((void **)&t->files, cap, t->nfiles + 1, sizeof(*t->files)))
		return -1;
	t->files[t->nfiles++] = name;
	return 0;
}

/* dir + "/" + name unless name is absolute or dir is NULL (then name alone) */
static int add_path(mp_dwline *t, size_t *cap, const char *dir, const char *name)
{
	if (name[0] == '/')
		return add_file(t, cap, name);
	size_t dl = dir ? strlen(dir) : 0, nl = strlen(name);
	char *p = malloc(dl + nl + 2);
	if (!p || add_owned(t, p))
		return -1;
	if (dir) {
		memcpy(p, dir, dl);
		p[dl++] = '/';
	}
	memcpy(p + dl, name, nl + 1);
	return add_file(t, cap, p);
}

/* a string of a section at an offset, NUL-terminated inside it */
static const char *sec_str(const uint8_t *sec, size_t n, uint64_t off)
{
	if (!sec || off >= n || !memchr(sec + off, 0, n - off))
		return NULL;
	return (const char *)sec + off;
}

/* One value of an entry format: *str for DW_LNCT_path forms, *num for index forms; -1 for a
 * form this reader leaves to libdw. */
static int read_form(const struct mp_dwline_secs *s, const struct hdr *h, struct rd *r,
		     unsigned form, const char **str, uint64_t *num)
{
	*str = NULL;
	*num = UINT64_MAX;
	switch (form) {
	case DW_FORM_string: {
		const uint8_t *z = r->p < r->end ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
		if (!z)
			return -1;
		*str = (const char *)r->p;
		r->p = z + 1;
		return 0;
	}
	case DW_FORM_line_strp:
	case DW_FORM_strp: {
		uint64_t o = rd_n(r, h->offsz);
		*str = form == DW_FORM_strp ? sec_str(s->str, s->nstr, o)
					    : sec_str(s->line_str, s->nline_str, o);
		return r->bad || !*str ? -1 : 0;
	}
	case DW_FORM_udata:
		*num = rd_uleb(r);
		break;
	case DW_FORM_data1:
		*num = rd_n(r, 1);
		break;
	case DW_FORM_data2:
		*num = rd_n(r, 2);
		break;
	case DW_FORM_data16:
		rd_n(r, 8);
		rd_n(r, 8);
		break;
	case DW_FORM_block: {
		uint64_t n = rd_uleb(r);
		if (r->bad || n > (size_t)(r->end - r->p))
			return -1;
		r->p += n;
		break;
	}
	default:
		return -1;
	}
	return r->bad ? -1 : 0;
}

/* DWARF 5: an entry format, then its entries (dirs: paths into dir[]; files: added) */
static int read_v5_list(const struct mp_dwline_secs *s, const struct hdr *h, struct rd *r,
			mp_dwline *t, size_t *cap, const char ***dirs, size_t *ndirs, int files)
{
	unsigned nforms = (unsigned)rd_n(r, 1), forms[256];
	int path = -1, idx = -1;
	for (unsigned i = 0; i < nforms; i++) {
		uint64_t desc = rd_uleb(r), form = rd_uleb(r);
		if (r->bad || form > 0xffff)
			return -1;
		forms[i] = (unsigned)form;
		if (desc == DW_LNCT_path)
			path = (int)i;
		else if (desc == DW_LNCT_directory_index)
			idx = (int)i;
	}
	uint64_t n = rd_uleb(r);
	if (r->bad || path < 0 || (files && idx < 0) || n > (size_t)(r->end - r->p) / nforms)
		return -1;
	if (!files && !(*dirs = calloc(n ? n : 1, sizeof(**dirs))))
		return -1;
	for (uint64_t k = 0; k < n; k++) {
		const char *name = NULL;
		uint64_t di = UINT64_MAX;
		for (unsigned m = 0; m < nforms; m++) {
			const char *str;
			uint64_t num;
			if (read_form(s, h, r, forms[m], &str, &num))
				return -1;
			if ((int)m == path)
				name = str;
			else if ((int)m == idx)
				di = num;
		}
		if (!name)
			return -1;
		if (!files) {
			(*dirs)[k] = name;
			continue;
		}
		if (di >= *ndirs)
			return -1;
		/* entry 0 takes the place of libdw's "???" */
		if (k == 0)
			t->nfiles = 0;
		if (add_path(t, cap, (*dirs)[di], name))
			return -1;
	}
	if (!files)
		*ndirs = (size_t)n;
	return 0;
}

/* DWARF 2-4: include_directories and file_names */
static int read_v4_lists(struct rd *r, mp_dwline *t, size_t *cap, const char *comp_dir)
{
	const char *dirv[256];
	size_t ndirs = 1;
	const char **dirs = dirv;
	int rc = -1;
	dirv[0] = comp_dir;
	const uint8_t *q = r->p;
	size_t nd = 1;
	while (q < r->end && *q) { /* count first */
		const uint8_t *z = memchr(q, 0, (size_t)(r->end - q));
		if (!z)
			return -1;
		nd++;
		q = z + 1;
	}
	if (q >= r->end)
		return -1;
	if (nd > 256 && !(dirs = malloc(nd * sizeof(*dirs))))
		return -1;
	dirs[0] = comp_dir;
	while (*r->p) {
		dirs[ndirs++] = (const char *)r->p;
		r->p = (const uint8_t *)memchr(r->p, 0, (size_t)(r->end - r->p)) + 1;
	}
	r->p++;
	if (r->p >= r->end)
		goto out;
	while (r->p < r->end && *r->p) {
		const uint8_t *z = memchr(r->p, 0, (size_t)(r->end - r->p));
		if (!z)
			goto out;
		const char *name = (const char *)r->p;
		r->p = z + 1;
		uint64_t di = rd_uleb(r);
		rd_uleb(r); /* mtime */
		rd_uleb(r); /* length */
		if (r->bad || di >= ndirs || add_path(t, cap, dirs[di], name))
			goto out;
	}
	if (r->p >= r->end || *r->p)
		goto out;
	r->p++;
	rc = 0;
out:
	if (dirs != dirv)
		free(dirs);
	return rc;
}

static int read_files(const struct mp_dwline_secs *s, const struct hdr *h, mp_dwline *t,
		      const char *comp_dir)
{
	size_t cap = 0;
	struct rd r = { h->files, h->hend, 0 };
	if (add_file(t, &cap, "???"))
		return -1;
	int rc;
	if (h->version < 5) {
		rc = read_v4_lists(&r, t, &cap, comp_dir);
	} else {
		const char **dirs = NULL;
		size_t ndirs = 0;
		rc = read_v5_list(s, h, &r, t, &cap, &dirs, &ndirs, 0);
		if (!rc)
			rc = read_v5_list(s, h, &r, t, &cap, &dirs, &ndirs, 1);
		free(dirs);
	}
	return rc || r.bad || r.p != h->hend ? -1 : 0;
}

struct state {
	uint64_t addr;
	uint64_t file, column, isa, discriminator;
	int64_t line;
	int is_stmt;
	size_t cap;
};

static int new_row(mp_dwline *t, struct state *st, int end)
{
	/* what libdw's add_new_line() would refuse (or truncate): libdw's to read */
	if (st->file > UINT32_MAX || st->line != (int32_t)st->line || st->column > 0xfff ||
	    st->isa > 0xff || st->discriminator > 0xffffff || t->nrows >= UINT32_MAX)
		return -1;
	if (MP_GROW(t->rows, st->cap, t->nrows + 1))
		return -1;
	t->rows[t->nrows] = (struct row){ st->addr, (uint32_t)t->nrows, (uint32_t)st->file,
					  (int32_t)st->line, (uint8_t)end };
	t->nrows++;
	st->discriminator = 0;
	return 0;
}

static void reset(struct state *st, const struct hdr *h)
{
	st->addr = 0;
	st->file = 1;
	st->line = 1;
	st->column = st->isa = st->discriminator = 0;
	st->is_stmt = h->default_is_stmt;
}

/* a uleb that libdw reads into an unsigned int */
static uint64_t rd_u32(struct rd *r)
{
	uint64_t v = rd_uleb(r);
	if (v > UINT32_MAX)
		r->bad = 1;
	return v;
}

static int std_op(const struct hdr *h, struct rd *r, unsigned op, struct state *st,
		  mp_dwline *t)
{
	/* libdw checks each standard opcode's operand count */
	static const uint8_t nargs[13] = { 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	if (h->lengths[op] != nargs[op])
		return -1;
	switch (op) {
	case DW_LNS_copy:
		return new_row(t, st, 0);
	case DW_LNS_advance_pc:
		st->addr += (uint32_t)(h->min_len * (uint32_t)rd_u32(r));
		break;
	case DW_LNS_advance_line: {
		int64_t v = rd_sleb(r);
		if (v != (int32_t)v)
			return -1;
		st->line += v;
		break;
	}
	case DW_LNS_set_file:
		st->file = rd_u32(r);
		break;
	case DW_LNS_set_column:
		st->column = rd_u32(r);
		break;
	case DW_LNS_negate_stmt:
		st->is_stmt = 1 - st->is_stmt;
		break;
	case DW_LNS_set_basic_block:
	case DW_LNS_set_prologue_end:
	case DW_LNS_set_epilogue_begin:
		break;
	case DW_LNS_const_add_pc:
		st->addr += (uint32_t)(h->min_len * ((255 - h->opcode_base) / h->line_range));
		break;
	case DW_LNS_fixed_advance_pc:
		st->addr += rd_n(r, 2);
		break;
	case DW_LNS_set_isa:
		st->isa = rd_u32(r);
		break;
	}
	return r->bad ? -1 : 0;
}

static int ext_op(const struct hdr *h, struct rd *r, unsigned asz, struct state *st,
		  mp_dwline *t)
{
	if (r->end - r->p < 2)
		return -1;
	unsigned len = *r->p++; /* libdw reads the length as one byte */
	if (len >= 0x80 || (size_t)(r->end - r->p) < len)
		return -1;
	unsigned op = *r->p++;
	switch (op) {
	case DW_LNE_end_sequence:
		if (new_row(t, st, 1))
			return -1;
		reset(st, h);
		return 0;
	case DW_LNE_set_address:
		if (len != asz + 1 || (asz != 4 && asz != 8))
			return -1;
		st->addr = rd_n(r, asz);
		break;
	case DW_LNE_set_discriminator:
		if (h->lengths[op] != 1)
			return -1;
		st->discriminator = rd_uleb(r);
		break;
	default:
		return -1; /* DW_LNE_define_file, vendor opcodes: libdw's */
	}
	return r->bad ? -1 : 0;
}

static int run_program(const struct hdr *h, unsigned asz, mp_dwline *t)
{
	struct state st = { 0 };
	struct rd r = { h->prog, h->end, 0 };
	reset(&st, h);
	while (r.p < r.end) {
		unsigned op = *r.p++;
		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			st.line += h->line_base + (int)(adj % h->line_range);
			st.addr += (uint32_t)(h->min_len * (adj / h->line_range));
			if (new_row(t, &st, 0))
				return -1;
		} else if (op == 0) {
			if (ext_op(h, &r, asz, &st, t))
				return -1;
		} else if (std_op(h, &r, op, &st, t)) {
			return -1;
		}
	}
	return 0;
}

/* libdw's compare_lines: address, a sequence's end first, then order of emission */
static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)
		return b->end - a->end;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int rows_sorted(const struct row *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (row_cmp(&v[i - 1], &v[i]) > 0)
			return 0;
	return 1;
}

struct run {
	size_t at, n;
};

static int run_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct run *a = pa, *b = pb;
	const struct row *v = ctx;
	return row_cmp(&v[a->at], &v[b->at]);
}

/* A sequence's end goes before the rows at its address (a compiler's last row often is). */
static void end_first(struct row *v, size_t at, size_t n)
{
	size_t i = at + n - 1, j = i;
	if (!v[i].end)
		return;
	while (j > at && v[j - 1].addr == v[i].addr && !v[j - 1].end)
		j--;
	if (j == i)
		return;
	struct row e = v[i];
	memmove(v + j + 1, v + j, (i - j) * sizeof(*v));
	v[j] = e;
}

/* Sequences are mostly sorted runs that do not overlap: sort the runs by their first rows,
 * and the rows themselves only when that is not yet the order. */
static int sort_rows(mp_dwline *t)
{
	if (rows_sorted(t->rows, t->nrows))
		return 0;
	struct run *runs = NULL;
	size_t nruns = 0, cap = 0;
	for (size_t i = 0, at = 0; i < t->nrows; i++) {
		if (!t->rows[i].end && i + 1 < t->nrows)
			continue;
		if (MP_GROW(runs, cap, nruns + 1)) {
			free(runs);
			return -1;
		}
		runs[nruns++] = (struct run){ at, i + 1 - at };
		end_first(t->rows, at, i + 1 - at);
		at = i + 1;
	}
	qsort_r(runs, nruns, sizeof(*runs), run_cmp, t->rows);
	struct row *v = malloc(t->nrows * sizeof(*v));
	if (!v) {
		free(runs);
		return -1;
	}
	for (size_t i = 0, k = 0; i < nruns; k += runs[i].n, i++)
		memcpy(v + k, t->rows + runs[i].at, runs[i].n * sizeof(*v));
	free(runs);
	free(t->rows);
	t->rows = v;
	if (!rows_sorted(v, t->nrows))
		qsort(v, t->nrows, sizeof(*v), row_cmp);
	return 0;
}

mp_dwline *mp_dwline_read(const struct mp_dwline_secs *s, uint64_t off, unsigned address_size,
			  const char *comp_dir)
{
	struct hdr h;
	if (!s->line || read_header(s, off, address_size, &h))
		return NULL;
	mp_dwline *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->off = off;
	if (read_files(s, &h, t, comp_dir) || run_program(&h, address_size, t) || sort_rows(t)) {
		mp_dwline_free(t);
		return NULL;
	}
	/* libdw marks the highest row the unit's end (some compilers leave it out) */
	if (t->nrows)
		t->rows[t->nrows - 1].end = 1;
	return t;
}

int mp_dwline_find(const mp_dwline *t, uint64_t addr, const char **file, int *line)
{
	if (!t->nrows)
		return -1;
	/* dwarf_getsrc_die(): the last row at or before addr, unless a sequence's end */
	size_t l = 0, u = t->nrows - 1;
	while (l < u) {
		size_t idx = u - (u - l) / 2;
		if (addr < t->rows[idx].addr)
			u = idx - 1;
		else
			l = idx;
	}
	const struct row *r = &t->rows[l];
	if (r->addr > addr || r->end)
		return -1;
	*file = r->file < t->nfiles ? t->files[r->file] : NULL;
	*line = r->line;
	return 0;
}

uint64_t mp_dwline_offset(const mp_dwline *t)
{
	return t->off;
}

void mp_dwline_free(mp_dwline *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	free(t->owned);
	free(t->files);
	free(t->rows);
	free(t);
}
