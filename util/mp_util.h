/* mp_util.h - small shared helpers: errors, logging, growable buffers.
 *
 * Every module reports failures through a caller-owned struct mp_err: a negative
 * errno-style code and a one-line message that names the file, event or value at
 * fault ("memprof.data: truncated at offset 4096", "formula:1:7: unknown event 'cyles'").
 * Libraries never print or exit; they log through mp_log(), which goes nowhere until
 * the CLI installs a sink with mp_log_set_fn().
 */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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

/* Grow a dynamic array so that it holds at least need elements. 0 or -1. */
static inline int mp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

#endif
