#include "mp_util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const mp_code_text[] = {
	[MP_EPARSE - MP_EPARSE] = "parse error",
	[MP_ENOTSUP - MP_EPARSE] = "not supported on this machine",
	[MP_ETRUNC - MP_EPARSE] = "truncated input",
	[MP_EFORMAT - MP_EPARSE] = "bad format",
};
_Static_assert(sizeof(mp_code_text) / sizeof(mp_code_text[0]) == MP_ECODE_END - MP_EPARSE,
	       "mp_code_text must cover every MP_E* code");

int mp_err_set(struct mp_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

int mp_err_prefix(struct mp_err *err, const char *fmt, ...)
{
	char pre[MP_ERR_MSG_MAX], old[MP_ERR_MSG_MAX];
	va_list ap;

	if (!err)
		return 0;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
	return err->code;
}

const char *mp_strerror(int code)
{
	int c = code < 0 ? -code : code;
	if (c >= MP_EPARSE && c < MP_ECODE_END)
		return mp_code_text[c - MP_EPARSE];
	return strerror(c);
}

static mp_log_fn log_fn;
static void *log_ctx;

void mp_log_set_fn(mp_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void mp_log_get_fn(mp_log_fn *fn, void **ctx)
{
	*fn = log_fn;
	*ctx = log_ctx;
}

void mp_log(enum mp_log_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_fn(lvl, msg, log_ctx);
}

int mp_buf_append(struct mp_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *d = realloc(b->data, cap);
		if (!d)
			return -ENOMEM;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int mp_buf_printf(struct mp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n < sizeof(tmp))
		return mp_buf_append(b, tmp, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int rc = mp_buf_append(b, big, (size_t)n);
	free(big);
	return rc;
}

void mp_buf_fini(struct mp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

char *mp_strdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

int mp_open_input(const char *path, unsigned flags, struct mp_err *err)
{
	struct stat st, st2;
	const char *what = NULL;
	/* the type first, through O_PATH, which opens nothing: opening a device can have
	 * effects (a watchdog), opening a FIFO blocks */
	int pfd = open(path, O_PATH | O_CLOEXEC), fd;

	if (pfd < 0)
		return mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(pfd, &st)) {
		int e = errno;
		close(pfd);
		return mp_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	if (S_ISFIFO(st.st_mode))
		what = "a FIFO";
	else if (S_ISSOCK(st.st_mode))
		what = "a socket";
	else if ((flags & MP_OPEN_REGULAR) && S_ISDIR(st.st_mode))
		what = "a directory";
	else if ((flags & MP_OPEN_REGULAR) && !S_ISREG(st.st_mode))
		what = "a device";
	if (what) {
		close(pfd);
		return mp_err_set(err, -EINVAL, "%s: is %s, not a regular file: not read", path,
				  what);
	}
	/* reopen what was checked (not the path again, which may have changed since) */
	char self[64];
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT) /* no /proc */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int e = errno;
	close(pfd);
	if (fd < 0)
		return mp_err_set(err, -e, "%s: %s", path, strerror(e));
	if (fstat(fd, &st2) || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino) {
		close(fd);
		return mp_err_set(err, -EAGAIN, "%s: changed while being opened: not read", path);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		return mp_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	return fd;
}

char *mp_read_file(const char *path, size_t *len_out, struct mp_err *err)
{
	struct mp_buf b = {0};
	char chunk[4096];
	int fd = mp_open_input(path, 0, err);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (b.len > MP_READ_FILE_MAX) {
			mp_err_set(err, -EFBIG, "%s: larger than %zu MiB, the limit of a file read "
				   "whole: not read", path, MP_READ_FILE_MAX >> 20);
			close(fd);
			mp_buf_fini(&b);
			return NULL;
		}
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			mp_err_set(err, -errno, "%s: %s", path, strerror(errno));
			close(fd);
			mp_buf_fini(&b);
			return NULL;
		}
		if (n == 0)
			break;
		if (mp_buf_append(&b, chunk, (size_t)n)) {
			mp_err_set(err, -ENOMEM, "%s: out of memory", path);
			close(fd);
			mp_buf_fini(&b);
			return NULL;
		}
	}
	close(fd);
	if (!b.data && mp_buf_append(&b, "", 0)) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (len_out)
		*len_out = b.len;
	return b.data;
}

static int edit_fold(char c, unsigned flags)
{
	if ((flags & MP_EDIT_FOLD_SEP) && (c == ' ' || c == '-'))
		return '_';
	return tolower((unsigned char)c);
}

size_t mp_edit_distance(const char *a, const char *b, unsigned flags)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[128];

	if (la >= 127 || lb >= 127)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (edit_fold(a[i - 1], flags) != edit_fold(b[j - 1], flags));
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
		}
	}
	return row[lb];
}

/* ---- TSV tables ---- */

void mp_tsv_init(struct mp_tsv *t, char *text, const char *file, const char *header,
		 size_t min, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->p = text;
	t->file = file;
	t->header = header;
	t->min = min;
	t->max = max < MP_TSV_MAXF ? max : MP_TSV_MAXF;
	t->next_line = 1;
}

int mp_tsv_error(const struct mp_tsv *t, struct mp_err *err, int code, const char *fmt, ...)
{
	char msg[MP_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mp_err_set(err, code, "%s:%zu: %s", t->file, t->line, msg);
}

/* The header's names joined by ", " (for messages). */
static void tsv_names(const char *header, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = 0;
	for (const char *h = header; *h && o + 3 < cap; h++) {
		if (*h == '\t') {
			out[o++] = ',';
			out[o++] = ' ';
		} else {
			out[o++] = *h;
		}
	}
	out[o < cap ? o : cap - 1] = 0;
}

/* Split line at its tabs into f[0..max); the number of fields (more than max when so). */
static size_t tsv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	for (char *p = line;;) {
		char *tab = strchr(p, '\t');
		if (n < max)
			f[n] = p;
		n++;
		if (!tab)
			return n;
		*tab = 0;
		p = tab + 1;
	}
}

int mp_tsv_next(struct mp_tsv *t, struct mp_err *err)
{
	char names[256];

	while (t->p && *t->p) {
		char *line = t->p, *eol = strchr(line, '\n');
		if (eol) {
			*eol = 0;
			t->p = eol + 1;
		} else {
			t->p = NULL;
		}
		t->line = t->next_line++;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = 0;
		if (!len || line[0] == '#')
			continue;
		if (!t->have_header) {
			if (strcmp(line, t->header)) {
				tsv_names(t->header, names, sizeof(names));
				return mp_tsv_error(t, err, -MP_EPARSE, "expected the header %s", names);
			}
			t->have_header = 1;
			continue;
		}
		t->nf = tsv_split(line, t->f, t->max);
		if (t->nf < t->min || t->nf > t->max) {
			tsv_names(t->header, names, sizeof(names));
			if (t->min == t->max)
				return mp_tsv_error(t, err, -MP_EPARSE, "%zu columns, expected %zu (%s)",
						    t->nf, t->min, names);
			return mp_tsv_error(t, err, -MP_EPARSE, "%zu columns, expected %zu to %zu (%s)",
					    t->nf, t->min, t->max, names);
		}
		for (size_t i = t->nf; i < t->max; i++)
			t->f[i] = "";
		return 1;
	}
	if (!t->have_header) {
		tsv_names(t->header, names, sizeof(names));
		return mp_err_set(err, -MP_EPARSE, "%s: no header row (%s)", t->file, names);
	}
	return 0;
}

int mp_tsv_copy(const struct mp_tsv *t, size_t i, const char *what, char *dst, size_t cap,
		struct mp_err *err)
{
	size_t n = strlen(t->f[i]);
	if (n >= cap)
		return mp_tsv_error(t, err, -MP_EPARSE, "%s: %zu characters, at most %zu", what, n,
				    cap - 1);
	memcpy(dst, t->f[i], n + 1);
	return 0;
}

int mp_tsv_rows(struct mp_tsv *t, size_t elem,
		int (*row)(const struct mp_tsv *t, void *dst, void *ctx, struct mp_err *err),
		void *ctx, void **rows, size_t *n, struct mp_err *err)
{
	char *v = NULL;
	size_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	while ((rc = mp_tsv_next(t, err)) > 0) {
		if (mp_grow((void **)&v, &cap, *n + 1, elem)) {
			rc = mp_err_set(err, -ENOMEM, "%s: out of memory", t->file);
			break;
		}
		*rows = v;
		memset(v + *n * elem, 0, elem);
		if ((rc = row(t, v + *n * elem, ctx, err)))
			break;
		(*n)++;
	}
	if (rc < 0) {
		free(v);
		*rows = NULL;
		*n = 0;
		return rc;
	}
	return 0;
}
