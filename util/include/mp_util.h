/* mp_util.h - small shared helpers: errors, logging, growable buffers and arrays, hashes
 * and a u64 map, a TSV reader.
 *
 * Every module reports failures through a caller-owned struct mp_err: a negative
 * errno-style code and a one-line message that names the file, event or value at
 * fault ("memprof.data: truncated at offset 4096", "formula:1:7: unknown event 'cyles'").
 * Libraries never print or exit; they log through mp_log(), which goes nowhere until
 * the CLI installs a sink with mp_log_set_fn().
 */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MP_ERR_MSG_MAX 512

struct mp_err {
	int code;                  /* 0 or a negative errno / MP_E* value */
	char msg[MP_ERR_MSG_MAX];  /* one line, no trailing newline */
};

/* memprof-specific error codes, beyond errno. */
enum {
	MP_EPARSE = 1000, /* malformed input (spec, formula, file) */
	MP_ENOTSUP,       /* the host cannot do this (no PMU, no event) */
	MP_ETRUNC,        /* file ends early */
	MP_EFORMAT,       /* bad magic, bad field */
	MP_ECODE_END
};

/* Fill err (may be NULL) with code and a printf-style message; returns code. */
int mp_err_set(struct mp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix an existing message: "ctx: old message". Returns err->code. */
int mp_err_prefix(struct mp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text for a code (negative errno or -MP_E*). Never NULL. */
const char *mp_strerror(int code);

enum mp_log_level { MP_LOG_ERROR, MP_LOG_WARN, MP_LOG_INFO, MP_LOG_DEBUG };
typedef void (*mp_log_fn)(enum mp_log_level lvl, const char *msg, void *ctx);
/* The log sink is process-wide configuration owned by the CLI (set once in main()). */
void mp_log_set_fn(mp_log_fn fn, void *ctx);
/* The sink now installed (OUT: fn, ctx), so that a command can install its own for a while
 * and then restore it. */
void mp_log_get_fn(mp_log_fn *fn, void **ctx);
void mp_log(enum mp_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Growable byte buffer. Zero-initialise, then append; mp_buf_fini() frees. */
struct mp_buf {
	char *data;
	size_t len, cap;
};
int mp_buf_append(struct mp_buf *b, const void *p, size_t n);  /* 0 or -ENOMEM */
int mp_buf_printf(struct mp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mp_buf_fini(struct mp_buf *b);

/* Allocation helpers that abort on OOM are NOT provided: callers handle NULL. */
char *mp_strdup(const char *s); /* NULL-safe strdup */

/* Levenshtein distance for "did you mean" hints: case-insensitive; with
 * MP_EDIT_FOLD_SEP also ' ' and '-' equal to '_'. SIZE_MAX when a string has 127
 * characters or more. */
#define MP_EDIT_FOLD_SEP 1u
size_t mp_edit_distance(const char *a, const char *b, unsigned flags);

/* Open a file to read without ever blocking in open(): O_NONBLOCK, then fstat. A FIFO or
 * socket is refused (a FIFO would hang the reader forever); with MP_OPEN_REGULAR anything
 * but a regular file is (a device, a directory). Returns the fd (blocking again, O_CLOEXEC)
 * or a negative errno with a one-line message naming the path. */
#define MP_OPEN_REGULAR 1u
int mp_open_input(const char *path, unsigned flags, struct mp_err *err);

/* A symbol of a library loaded with mp_dlib_open: its name and where its address goes in the
 * caller's table of function pointers (offsetof). */
struct mp_dlib_sym {
	const char *name;
	size_t off;
};
/* Load shared library soname (what: the package and why it is needed, for the message) and
 * write the address of each of syms into table. Returns the handle (kept for the process's
 * life), or NULL with err: "cannot load libpfm.so.4 (libpfm4, ...): <why>". */
void *mp_dlib_open(const char *soname, const char *what, const struct mp_dlib_sym *syms,
		   size_t nsyms, void *table, struct mp_err *err);

/* The most mp_read_file reads: a larger file (or an endless device such as /dev/zero) is
 * refused with a message saying so. */
#define MP_READ_FILE_MAX ((size_t)64 << 20)

/* Read a whole text file (sysfs, /proc, ratio definitions) into a NUL-terminated malloc'd
 * buffer; at most MP_READ_FILE_MAX bytes, never a FIFO (mp_open_input). */
char *mp_read_file(const char *path, size_t *len_out, struct mp_err *err);

/* "dir/base.tmp.XXXXXX" for path (a mkstemp template beside it), base shortened so that
 * the name fits NAME_MAX even when path's own last component has 245-255 bytes. malloc'd,
 * NULL when out of memory. */
char *mp_tmp_template(const char *path);

/* An output file written whole (report --html/--pprof, archive -o, predict's counts):
 * nothing at path changes until mp_out_commit(). A regular file, a symlink or nothing at
 * path: the data goes to a new O_EXCL 0600 file beside it (mp_tmp_template) that commit
 * renames over path; a failure removes only that temporary file. A character device or
 * FIFO at path (/dev/stdout, a pipe): written in place, never created, replaced or removed.
 * A directory, or the file of input (same device and inode; NULL: none), is refused. */
struct mp_out {
	FILE *f;    /* write here */
	char *path; /* as given */
	char *tmp;  /* the temporary file, NULL when written in place */
};
/* 0, or a negative errno with err: "PATH: why". */
int mp_out_open(struct mp_out *o /* OUT */, const char *path, const char *input,
		struct mp_err *err);
/* Flush, close and rename into place. 0, or a negative errno with err naming the file
 * (the temporary file removed, path as it was). */
int mp_out_commit(struct mp_out *o, struct mp_err *err);
/* Give up: close, remove the temporary file (never path). Idempotent, after commit too. */
void mp_out_abort(struct mp_out *o);

/* Binary search: the first index i in [lo, hi) for which before(ctx, i) is false, where
 * before() is true on a leading part of the range and false on the rest (hi when it is true
 * everywhere). The one search of sorted tables (symbols, maps, CU ranges, instructions). */
static inline size_t mp_partition_point(size_t lo, size_t hi, const void *ctx,
					int (*before)(const void *ctx, size_t i))
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- TSV tables ------------------------------------------------------------------------
 * The one reader of memprof's tab-separated tables (aliases.tsv, pmu_models.tsv,
 * sim_events.tsv). It works in place on text the caller owns: tabs and line ends become
 * NULs and the fields point into text. Empty lines and lines starting with '#' are
 * skipped, a '\r' before a line's end is dropped. The first other line must be the header
 * (its fields, tab-separated, as header says); every later row must have min to max fields.
 * Anything else is an error naming the file and line, so that no row is dropped silently:
 *   "sim_events.tsv:31: 4 columns, expected 5 (names, counts, perf, hint, note)". */
#define MP_TSV_MAXF 16
struct mp_tsv {
	char *p;            /* what is not read yet */
	const char *file;   /* names the table in messages */
	const char *header; /* the header row, tab-separated */
	size_t min, max;    /* fields of a row (max <= MP_TSV_MAXF) */
	size_t line;        /* the line of the row last read (1-based) */
	size_t next_line;
	int have_header;
	size_t nf;          /* fields of the row last read: f[0..nf), f[nf..max) are "" */
	char *f[MP_TSV_MAXF];
};
/* Start reading text (modified in place; borrowed until the last mp_tsv_next). */
void mp_tsv_init(struct mp_tsv *t, char *text, const char *file, const char *header,
		 size_t min, size_t max);
/* The next row into t->f and t->nf: 1, 0 at the end, or -MP_EPARSE with err
 * "FILE:LINE: ..." (a row with too few or too many fields, a wrong or missing header). */
int mp_tsv_next(struct mp_tsv *t, struct mp_err *err);
/* Every row of the table into a malloc'd array of elem-byte elements (*rows, *n): row() fills
 * one (zeroed) from t->f, returning 0 or an error (mp_tsv_error); the rows before it are
 * *rows[0..*n) meanwhile. 0, or the first error with *rows NULL and *n 0. */
int mp_tsv_rows(struct mp_tsv *t, size_t elem,
		int (*row)(const struct mp_tsv *t, void *dst, void *ctx, struct mp_err *err),
		void *ctx, void **rows, size_t *n, struct mp_err *err);
/* Fill err with "FILE:LINE: " and the message, for the row last read; returns code. */
int mp_tsv_error(const struct mp_tsv *t, struct mp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Copy field i of the row into dst[cap]: 0, or -MP_EPARSE with err naming file, line and
 * column (what, e.g. "event") when it does not fit. */
int mp_tsv_copy(const struct mp_tsv *t, size_t i, const char *what, char *dst, size_t cap,
		struct mp_err *err);

/* ---- growable arrays ----------------------------------------------------------------
 * The one way an array grows: *p holds *cap elements of elem bytes; afterwards it holds at
 * least need (capacity doubles from 16, so pushing one at a time is amortised O(1)).
 * 0, or -ENOMEM with *p and *cap unchanged (out of memory, or need * elem overflows). */
static inline int mp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/* mp_grow for an array variable or member arr (any element type) with capacity cap (size_t):
 * "if (MP_GROW(v->rows, v->cap, v->n + 1)) return -ENOMEM;". */
#define MP_GROW(arr, cap, need) mp_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* mp_grow, with the new elements (from the old capacity to the new) zeroed. */
static inline int mp_grow_zero(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t old = *cap;
	if (mp_grow(p, cap, need, elem))
		return -ENOMEM;
	if (*cap > old)
		memset((char *)*p + old * elem, 0, (*cap - old) * elem);
	return 0;
}
#define MP_GROW_ZERO(arr, cap, need)                                                     \
	mp_grow_zero((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Two arrays of one capacity (columns of one table) grown together. When the second fails
 * the first may have grown alone: *cap stays what both hold. 0 or -ENOMEM. */
static inline int mp_grow2(void **a, size_t elem_a, void **b, size_t elem_b, size_t *cap,
			   size_t need)
{
	size_t cap_a = *cap;
	if (mp_grow(a, &cap_a, need, elem_a) || mp_grow(b, cap, need, elem_b))
		return -ENOMEM;
	return 0;
}
#define MP_GROW2(a, b, cap, need)                                                        \
	mp_grow2((void **)&(a), sizeof(*(a)), (void **)&(b), sizeof(*(b)), &(cap), (need))

/* Make the array *p (*n elements, capacity *cap, elem bytes each) a copy of src[0..nsrc)
 * (a forked process's maps): 0, or -ENOMEM with the array unchanged. */
static inline int mp_array_copy(void **p, size_t *n, size_t *cap, const void *src, size_t nsrc,
				size_t elem)
{
	if (elem && nsrc > SIZE_MAX / elem)
		return -ENOMEM;
	size_t bytes = nsrc * elem;
	void *c = malloc(bytes ? bytes : 1);
	if (!c)
		return -ENOMEM;
	if (bytes)
		memcpy(c, src, bytes);
	free(*p);
	*p = c;
	*n = *cap = nsrc;
	return 0;
}
#define MP_ARRAY_COPY(arr, n, cap, src, nsrc)                                            \
	mp_array_copy((void **)&(arr), &(n), &(cap), (src), (nsrc), sizeof(*(arr)))

/* ---- unaligned loads --------------------------------------------------------------- */
/* The native-endian value at p, which need not be aligned (records in a file's bytes,
 * zstd output, a window of a mapping). */
static inline uint16_t mp_ld16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t mp_ld32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t mp_ld64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* ---- hashes and a u64 -> u32 map ------------------------------------------------------ */
/* A 64-bit finaliser (MurmurHash3's fmix64): every input bit moves every output bit. */
static inline uint64_t mp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* An FNV-1a-style hash of a string; 0 for NULL. */
static inline uint64_t mp_strhash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	if (!s)
		return 0;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Strings equal, NULL equal only to NULL. */
static inline int mp_streq(const char *a, const char *b)
{
	if (a == b)
		return 1;
	if (!a || !b)
		return 0;
	return !strcmp(a, b);
}

/* u64 -> u32 open-addressing map; key UINT64_MAX is reserved (empty slot). */
struct mp_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n; /* cap is a power of two */
};

/* key folded into the map's range: the reserved UINT64_MAX becomes UINT64_MAX - 1 (for keys
 * that are hashes, or ids that may be UINT64_MAX). */
static inline uint64_t mp_u64map_key(uint64_t key)
{
	return key == UINT64_MAX ? UINT64_MAX - 1 : key;
}

/* (internal to mp_u64map_slot) double the table, rehashing every key. 0 or -ENOMEM. */
static inline int mp_u64map_grow(struct mp_u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nk = malloc(ncap * sizeof(*nk));
	uint32_t *nv = malloc(ncap * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	memset(nk, 0xff, ncap * sizeof(*nk));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == UINT64_MAX)
			continue;
		size_t j = mp_mix64(m->keys[i]) & (ncap - 1);
		while (nk[j] != UINT64_MAX)
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

/* Returns a pointer to the value slot for key; *found says whether it existed. NULL on
 * allocation failure. */
static inline uint32_t *mp_u64map_slot(struct mp_u64map *m, uint64_t key, int *found)
{
	if ((m->n + 1) * 2 > m->cap && mp_u64map_grow(m))
		return NULL;
	size_t j = mp_mix64(key) & (m->cap - 1);
	while (m->keys[j] != UINT64_MAX) {
		if (m->keys[j] == key) {
			*found = 1;
			return &m->vals[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = key;
	m->n++;
	*found = 0;
	return &m->vals[j];
}

/* Undo the creation of the slot mp_u64map_slot() just returned (its caller failed to
 * fill it): valid only while nothing was placed after it in its probe run. */
static inline void mp_u64map_unslot(struct mp_u64map *m, uint32_t *slot)
{
	m->keys[slot - m->vals] = UINT64_MAX;
	m->n--;
}

/* The value slot of key, or NULL when the map has no such key. */
static inline const uint32_t *mp_u64map_get(const struct mp_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t j = mp_mix64(key) & (m->cap - 1);
	while (m->keys[j] != UINT64_MAX) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

/* Free the table; the map is empty (zero) again. */
static inline void mp_u64map_fini(struct mp_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

#endif
