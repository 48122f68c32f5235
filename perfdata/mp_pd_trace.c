/* mp_pd_trace.c - the tracing data of a recording (HEADER_TRACING_DATA, perf's
 * trace-event-info layout) read into each tracepoint's format: its fields and print format;
 * and a RAW payload printed as perf script prints it. The layout, in the writer's byte order
 * (its first byte after the version says big-endian):
 *   "\027\010\104tracing" version\0 big_endian:u8 long_size:u8 page_size:u32
 *   "header_page\0" u64 len, text   "header_event\0" u64 len, text
 *   ftrace formats: u32 count, each u64 len + text
 *   event formats: u32 systems, each: name\0 u32 count, each u64 len + format text
 *   kallsyms: u32 len + text   printk formats: u32 len + text   (0.6) cmdlines: u64 len + text
 * Only the event formats are kept. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_pd_int.h"

struct tp_event {
	struct mp_pd_tp_event pub;
	char *text; /* the strings above point into it */
	struct mp_pd_tp_field *fields;
};

struct mp_pd_trace {
	struct tp_event *ev;
	size_t n, cap;
};

struct rd {
	const uint8_t *p;
	size_t len, off;
	int swap;
	const char *name;
	struct mp_err *err;
};

static int rd_fail(struct rd *r, const char *what)
{
	return mp_err_set(r->err, -MP_EFORMAT, "%s: tracing data: %s at byte %zu of %zu", r->name,
			  what, r->off, r->len);
}

static int rd_u(struct rd *r, unsigned bytes, uint64_t *v, const char *what)
{
	uint8_t b[8];
	if (r->len - r->off < bytes)
		return rd_fail(r, what);
	memcpy(b, r->p + r->off, bytes);
	r->off += bytes;
	*v = 0;
	for (unsigned i = 0; i < bytes; i++)
		*v |= (uint64_t)b[r->swap ? bytes - 1 - i : i] << (8 * i);
	return 0;
}

/* A NUL-terminated string at the cursor: borrowed from the payload. */
static const char *rd_str(struct rd *r, const char *what)
{
	const uint8_t *z = memchr(r->p + r->off, 0, r->len - r->off);
	if (!z) {
		rd_fail(r, what);
		return NULL;
	}
	const char *s = (const char *)r->p + r->off;
	r->off = (size_t)(z - r->p) + 1;
	return s;
}

/* A length-prefixed block skipped (len in bytes: 4 or 8); its text and size when asked. */
static int rd_block(struct rd *r, unsigned lenbytes, const char *what, const uint8_t **text,
		    size_t *size)
{
	uint64_t n = 0;
	if (rd_u(r, lenbytes, &n, what))
		return -MP_EFORMAT;
	if (n > r->len - r->off)
		return rd_fail(r, what);
	if (text) {
		*text = r->p + r->off;
		*size = (size_t)n;
	}
	r->off += (size_t)n;
	return 0;
}

static int rd_tag(struct rd *r, const char *tag)
{
	const char *s = rd_str(r, tag);
	if (!s)
		return -MP_EFORMAT;
	if (strcmp(s, tag)) {
		char m[64];
		snprintf(m, sizeof(m), "no '%s' section", tag);
		return rd_fail(r, m);
	}
	return 0;
}

/* "offset:12;" style value after key in line; -1 when absent or malformed. */
static long long line_num(const char *line, const char *key)
{
	const char *k = strstr(line, key);
	if (!k)
		return -1;
	k += strlen(key);
	char *end;
	errno = 0;
	long long v = strtoll(k, &end, 10);
	if (end == k || errno || v < 0 || *end != ';')
		return -1;
	return v;
}

/* One "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" line (NUL-terminated, in the
 * event's own text, modified in place). 0, or -1 when malformed. */
static int parse_field(char *line, struct mp_pd_tp_field *f)
{
	char *decl = line + strlen("field:");
	char *semi = strchr(decl, ';');
	if (!semi)
		return -1;
	long long off = line_num(semi, "offset:"), size = line_num(semi, "size:"),
		  sg = line_num(semi, "signed:");
	if (off < 0 || size < 0 || off > UINT32_MAX || size > UINT32_MAX)
		return -1;
	*semi = 0;
	while (semi > decl && isspace((unsigned char)semi[-1]))
		*--semi = 0;
	char *arr = NULL;
	if (semi > decl && semi[-1] == ']') {
		arr = strrchr(decl, '[');
		if (!arr)
			return -1;
		*arr = 0;
		semi = arr;
	}
	char *name = semi;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == semi)
		return -1;
	f->name = name;
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	f->flags = sg > 0 ? MP_TPF_SIGNED : 0;
	/* the type: what precedes the name */
	char *te = name;
	while (te > decl && isspace((unsigned char)te[-1]))
		te--;
	if (te > decl && te[-1] == '*') /* "char * buf", "char *buf" */
		f->flags |= MP_TPF_POINTER;
	/* the type ends before the name: "char *buf" loses its star (the flag keeps it) */
	if (te == name && name > decl && name[-1] == '*')
		te--;
	if (te < name)
		*te = 0;
	else
		decl = name + strlen(name); /* no type before the name: "" */
	while (*decl == ' ')
		decl++;
	f->type = decl;
	if (arr)
		f->flags |= MP_TPF_ARRAY;
	if (!strncmp(decl, "__data_loc", 10))
		f->flags |= MP_TPF_DYNAMIC;
	const char *t = decl;
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	if (!strncmp(t, "const ", 6))
		t += 6;
	if ((arr || (f->flags & MP_TPF_DYNAMIC)) && !strncmp(t, "char", 4) &&
	    !isalnum((unsigned char)t[4]) && t[4] != '_')
		f->flags |= MP_TPF_STRING;
	if (strstr(decl, "long") && !strstr(decl, "long long"))
		f->flags |= MP_TPF_LONG;
	return 0;
}

/* One event's format file (text, n bytes) into e: 0, or an error naming the event. */
static int parse_format(struct rd *r, const char *sys, const uint8_t *text, size_t n,
			struct tp_event *e)
{
	char *s = malloc(n + strlen(sys) + 2);
	if (!s)
		return mp_err_set(r->err, -ENOMEM, "out of memory");
	memcpy(s, text, n);
	s[n] = 0;
	memcpy(s + n + 1, sys, strlen(sys) + 1);
	e->text = s;
	e->pub.system = s + n + 1;
	e->pub.print_fmt = "";
	size_t cap = 0;
	int have_id = 0;
	const char *why = NULL;
	for (char *line = s; line && line < s + n && !why;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *l = line;
		while (*l == ' ' || *l == '\t')
			l++;
		if (!strncmp(l, "name: ", 6)) {
			e->pub.name = l + 6;
		} else if (!strncmp(l, "ID: ", 4)) {
			char *end;
			errno = 0;
			e->pub.id = strtoull(l + 4, &end, 10);
			have_id = end != l + 4 && !errno;
		} else if (!strncmp(l, "field:", 6)) {
			if (MP_GROW(e->fields, cap, e->pub.nfields + 1)) {
				free(s);
				e->text = NULL;
				return mp_err_set(r->err, -ENOMEM, "out of memory");
			}
			if (parse_field(l, &e->fields[e->pub.nfields]))
				why = "a malformed field line";
			e->pub.nfields++;
		} else if (!strncmp(l, "print fmt: ", 11)) {
			e->pub.print_fmt = l + 11;
			if (nl) /* the rest of the text belongs to the print format */
				*nl = '\n';
			break;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!why && !e->pub.name)
		why = "no 'name:' line";
	if (!why && !have_id)
		why = "no 'ID:' line";
	e->pub.fields = e->fields;
	if (why) {
		char m[160];
		snprintf(m, sizeof(m), "event format of %s:%s: %s", sys,
			 e->pub.name ? e->pub.name : "?", why);
		return rd_fail(r, m);
	}
	/* a print format ends with its line */
	char *pf = (char *)e->pub.print_fmt, *end = pf + strlen(pf);
	while (end > pf && isspace((unsigned char)end[-1]))
		*--end = 0;
	return 0;
}

static void event_fini(struct tp_event *e)
{
	free(e->text);
	free(e->fields);
}

void mp_pd_trace_free(mp_pd_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		event_fini(&t->ev[i]);
	free(t->ev);
	free(t);
}

mp_pd_trace *mp_pd_trace_parse(const void *data, size_t len, const char *name,
			       struct mp_err *err)
{
	struct rd r = { data, len, 0, 0, name ? name : "(memory)", err };
	static const uint8_t magic[10] = "\027\010\104tracing";
	uint64_t v = 0, nsys = 0;
	mp_pd_trace *t = calloc(1, sizeof(*t));
	if (!t) {
		mp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (len < 10 || memcmp(data, magic, 10)) {
		rd_fail(&r, "bad magic");
		goto fail;
	}
	r.off = 10;
	const char *version = rd_str(&r, "truncated version");
	if (!version || r.len - r.off < 2) {
		if (version)
			rd_fail(&r, "truncated endianness");
		goto fail;
	}
	uint16_t one = 1;
	int host_big = *(uint8_t *)&one == 0;
	r.swap = !!r.p[r.off] != host_big;
	r.off += 2; /* big-endian flag, sizeof(long) */
	if (rd_u(&r, 4, &v, "truncated page size") || rd_tag(&r, "header_page") ||
	    rd_block(&r, 8, "truncated header_page", NULL, NULL) || rd_tag(&r, "header_event") ||
	    rd_block(&r, 8, "truncated header_event", NULL, NULL) ||
	    rd_u(&r, 4, &v, "truncated ftrace format count"))
		goto fail;
	for (uint64_t i = 0; i < v; i++)
		if (rd_block(&r, 8, "truncated ftrace format", NULL, NULL))
			goto fail;
	if (rd_u(&r, 4, &nsys, "truncated system count"))
		goto fail;
	for (uint64_t i = 0; i < nsys; i++) {
		const char *sys = rd_str(&r, "truncated system name");
		uint64_t ne = 0;
		if (!sys || rd_u(&r, 4, &ne, "truncated event count"))
			goto fail;
		for (uint64_t j = 0; j < ne; j++) {
			const uint8_t *text;
			size_t n;
			if (rd_block(&r, 8, "truncated event format", &text, &n))
				goto fail;
			if (MP_GROW_ZERO(t->ev, t->cap, t->n + 1)) {
				mp_err_set(err, -ENOMEM, "out of memory");
				goto fail;
			}
			int rc = parse_format(&r, sys, text, n, &t->ev[t->n]);
			t->n++;
			if (rc)
				goto fail;
		}
	}
	/* kallsyms, printk formats and saved cmdlines are not needed to print the events */
	return t;
fail:
	mp_pd_trace_free(t);
	return NULL;
}

mp_pd_trace *mp_pd_trace_open(const mp_pd *pd, struct mp_err *err)
{
	size_t n = 0;
	const void *p = mp_pd_feature_raw(pd, MP_HEADER_TRACING_DATA, &n);
	const char *path = pd ? pd->path : "(none)";
	if (!p) {
		mp_err_set(err, -ENOENT, "%s: no tracing data (HEADER_TRACING_DATA)", path);
		return NULL;
	}
	return mp_pd_trace_parse(p, n, path, err);
}

size_t mp_pd_trace_nevents(const mp_pd_trace *t)
{
	return t ? t->n : 0;
}

const struct mp_pd_tp_event *mp_pd_trace_event_at(const mp_pd_trace *t, size_t i)
{
	return t && i < t->n ? &t->ev[i].pub : NULL;
}

const struct mp_pd_tp_event *mp_pd_trace_event(const mp_pd_trace *t, uint64_t id)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (t->ev[i].pub.id == id)
			return &t->ev[i].pub;
	return NULL;
}

const struct mp_pd_tp_field *mp_pd_tp_field(const struct mp_pd_tp_event *e, const char *name)
{
	for (size_t i = 0; e && i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, name))
			return &e->fields[i];
	return NULL;
}
