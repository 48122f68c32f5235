/* mp_pd_tpprint.c - a tracepoint's RAW payload printed as perf script prints it: the
 * format's "print fmt" read as the C expression it is (the printf string, then its
 * arguments) and evaluated on the payload, for the subset the kernel's common events use;
 * anything outside it (%pS, __print_hex, __get_bitmask, ...) prints the fields generically.
 * Evaluated while parsed, on each payload: nothing is cached between samples. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_perfdata.h"

#define TP_MAX_ARGS 32
#define TP_ARENA 8192

struct val {
	int is_str, is_signed;
	uint64_t v;
	const char *s; /* NUL-terminated, in the arena or a literal */
};

struct ev {
	const char *p; /* the cursor in the print format */
	const struct mp_pd_tp_event *e;
	const uint8_t *raw;
	size_t n;
	int fail;
	size_t used;
	char arena[TP_ARENA];
};

static struct val num(uint64_t v, int is_signed)
{
	struct val x = { 0, is_signed, v, NULL };
	return x;
}

static struct val fail(struct ev *x)
{
	x->fail = 1;
	return num(0, 0);
}

/* n bytes of s as a NUL-terminated string in the arena (cut at the first NUL). */
static const char *arena_str(struct ev *x, const char *s, size_t n)
{
	const char *z = memchr(s, 0, n);
	if (z)
		n = (size_t)(z - s);
	if (n + 1 > TP_ARENA - x->used) {
		x->fail = 1;
		return "";
	}
	char *d = x->arena + x->used;
	memcpy(d, s, n);
	d[n] = 0;
	x->used += n + 1;
	return d;
}

static void ws(struct ev *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

static int eat(struct ev *x, const char *tok)
{
	ws(x);
	size_t l = strlen(tok);
	if (strncmp(x->p, tok, l))
		return 0;
	x->p += l;
	return 1;
}

static int expect(struct ev *x, const char *tok)
{
	if (!eat(x, tok))
		x->fail = 1;
	return !x->fail;
}

static size_t ident(struct ev *x, char *buf, size_t len)
{
	ws(x);
	size_t i = 0;
	while ((isalnum((unsigned char)x->p[i]) || x->p[i] == '_') && i + 1 < len) {
		buf[i] = x->p[i];
		i++;
	}
	buf[i] = 0;
	if (isdigit((unsigned char)buf[0]))
		return 0;
	x->p += i;
	return i;
}

/* A C string literal (adjacent ones joined) into the arena. */
static struct val str_lit(struct ev *x)
{
	char tmp[1024];
	size_t n = 0;
	ws(x);
	while (*x->p == '"') {
		x->p++;
		while (*x->p && *x->p != '"' && n + 1 < sizeof(tmp)) {
			char c = *x->p++;
			if (c == '\\') {
				c = *x->p ? *x->p++ : 0;
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == '0' ? 0 : c;
				if (!c)
					return fail(x);
			}
			tmp[n++] = c;
		}
		if (*x->p != '"')
			return fail(x);
		x->p++;
		ws(x);
	}
	struct val v = { 1, 0, 0, arena_str(x, tmp, n) };
	return v;
}

static const struct mp_pd_tp_field *rec_field(struct ev *x)
{
	char name[128];
	if (!expect(x, "->") || !ident(x, name, sizeof(name)))
		return NULL;
	const struct mp_pd_tp_field *f = mp_pd_tp_field(x->e, name);
	if (!f)
		x->fail = 1;
	return x->fail ? NULL : f;
}

static uint64_t load(const uint8_t *p, unsigned size, int is_signed)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64 = 0;
	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return is_signed ? (uint64_t)(int64_t)(int8_t)v8 : v8;
	case 2:
		memcpy(&v16, p, 2);
		return is_signed ? (uint64_t)(int64_t)(int16_t)v16 : v16;
	case 4:
		memcpy(&v32, p, 4);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v32 : v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* The bytes of a __data_loc (or __rel_loc) field: 0, or -1 when outside the payload. */
static int dyn_span(const struct mp_pd_tp_field *f, const uint8_t *raw, size_t n, size_t *off,
		    size_t *len)
{
	if (f->size != 4 || f->offset > n || n - f->offset < 4)
		return -1;
	uint32_t loc = (uint32_t)load(raw + f->offset, 4, 0);
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (!strncmp(f->type, "__rel_loc", 9))
		*off += f->offset + 4;
	return *off > n || *len > n - *off ? -1 : 0;
}

static struct val field_val(struct ev *x, const struct mp_pd_tp_field *f)
{
	if (f->offset > x->n || f->size > x->n - f->offset)
		return fail(x);
	if (f->flags & MP_TPF_DYNAMIC) {
		size_t off, len;
		if (!(f->flags & MP_TPF_STRING) || dyn_span(f, x->raw, x->n, &off, &len))
			return fail(x);
		struct val v = { 1, 0, 0, arena_str(x, (const char *)x->raw + off, len) };
		return v;
	}
	if (f->flags & MP_TPF_STRING) {
		struct val v = { 1, 0, 0, arena_str(x, (const char *)x->raw + f->offset, f->size) };
		return v;
	}
	if ((f->flags & MP_TPF_ARRAY) || !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		return fail(x);
	return num(load(x->raw + f->offset, f->size, !!(f->flags & MP_TPF_SIGNED)),
		   !!(f->flags & MP_TPF_SIGNED));
}

static struct val expr(struct ev *x);
static struct val unary(struct ev *x);

/* __print_flags(VAL, DELIM, {V, "S"}, ...) and __print_symbolic(VAL, {V, "S"}, ...) */
static struct val print_table(struct ev *x, int flags)
{
	struct val v = expr(x), delim = { 1, 0, 0, "" };
	char out[512];
	size_t o = 0;
	int printed = 0, found = 0;
	if (flags && expect(x, ","))
		delim = expr(x);
	if (v.is_str || !delim.is_str)
		return fail(x);
	uint64_t left = v.v;
	while (!x->fail && eat(x, ",")) {
		if (!expect(x, "{"))
			break;
		struct val fv = expr(x);
		expect(x, ",");
		struct val s = expr(x);
		expect(x, "}");
		if (x->fail || fv.is_str || !s.is_str)
			return fail(x);
		int hit;
		if (flags) {
			hit = (!v.v && !fv.v && !printed) || (fv.v && (left & fv.v) == fv.v);
			left &= ~fv.v;
		} else {
			hit = !found && fv.v == v.v;
		}
		if (!hit)
			continue;
		found = 1;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s",
				      flags && printed ? delim.s : "", s.s);
		printed = 1;
		if (o >= sizeof(out))
			return fail(x);
	}
	expect(x, ")");
	if (x->fail)
		return v;
	if ((flags && left) || (!flags && !found))
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%s0x%" PRIx64,
				      flags && printed ? delim.s : "", flags ? left : v.v);
	struct val r = { 1, 0, 0, arena_str(x, out, o < sizeof(out) ? o : sizeof(out) - 1) };
	return r;
}

static struct val primary(struct ev *x)
{
	char id[128];
	ws(x);
	if (*x->p == '"')
		return str_lit(x);
	if (*x->p == '\'') {
		if (!x->p[1] || x->p[1] == '\\' || x->p[2] != '\'')
			return fail(x);
		uint64_t c = (unsigned char)x->p[1];
		x->p += 3;
		return num(c, 1);
	}
	if (isdigit((unsigned char)*x->p)) {
		char *end;
		errno = 0;
		uint64_t v = strtoull(x->p, &end, 0);
		if (errno)
			return fail(x);
		x->p = end;
		while (*x->p == 'u' || *x->p == 'U' || *x->p == 'l' || *x->p == 'L')
			x->p++;
		return num(v, 1);
	}
	if (eat(x, "(")) {
		struct val v = expr(x);
		expect(x, ")");
		return v;
	}
	if (!ident(x, id, sizeof(id)))
		return fail(x);
	if (!strcmp(id, "REC")) {
		const struct mp_pd_tp_field *f = rec_field(x);
		return f ? field_val(x, f) : fail(x);
	}
	if (!expect(x, "("))
		return num(0, 0);
	if (!strcmp(id, "__print_flags"))
		return print_table(x, 1);
	if (!strcmp(id, "__print_symbolic"))
		return print_table(x, 0);
	if (!strcmp(id, "__get_str")) {
		char name[128];
		const struct mp_pd_tp_field *f =
			ident(x, name, sizeof(name)) ? mp_pd_tp_field(x->e, name) : NULL;
		if (!f || !expect(x, ")"))
			return fail(x);
		return field_val(x, f);
	}
	return fail(x); /* a helper outside the subset */
}

/* "(TYPE)" at the cursor: the cast's size and signedness; 0 when it is no cast. */
static int cast_type(struct ev *x, unsigned *size, int *is_signed)
{
	static const char *const words[] = { "unsigned", "signed", "int", "long", "short", "char",
					     "const", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
					     "s64", "bool", "size_t", "ssize_t", "pid_t", "void",
					     "struct", "__u8", "__u16", "__u32", "__u64" };
	const char *save = x->p;
	char id[64];
	int longs = 0, any = 0, uns = 0, ptr = 0;
	*size = 4;
	*is_signed = 1;
	if (!eat(x, "("))
		return 0;
	for (;;) {
		if (eat(x, "*")) {
			ptr = 1;
			continue;
		}
		if (eat(x, ")"))
			break;
		size_t k, l = ident(x, id, sizeof(id));
		for (k = 0; l && k < sizeof(words) / sizeof(words[0]); k++)
			if (!strcmp(id, words[k]))
				break;
		if (!l || (k == sizeof(words) / sizeof(words[0]) && !any)) {
			x->p = save;
			return 0;
		}
		any = 1;
		if (!strcmp(id, "long"))
			longs++;
		else if (!strcmp(id, "short") || !strcmp(id, "u16") || !strcmp(id, "s16") || !strcmp(id, "__u16"))
			*size = 2;
		else if (!strcmp(id, "char") || !strcmp(id, "u8") || !strcmp(id, "s8") ||
			 !strcmp(id, "bool") || !strcmp(id, "__u8"))
			*size = 1;
		else if (!strcmp(id, "u64") || !strcmp(id, "s64") || !strcmp(id, "size_t") ||
			 !strcmp(id, "ssize_t") || !strcmp(id, "__u64"))
			*size = 8;
		uns |= !strcmp(id, "unsigned") || id[0] == 'u' || !strcmp(id, "size_t") ||
		       !strcmp(id, "bool") || !strncmp(id, "__u", 3);
	}
	if (!any)
		return x->p = save, 0;
	if (longs)
		*size = 8;
	if (ptr) {
		*size = 8;
		uns = 1;
	}
	*is_signed = !uns;
	return 1;
}

static struct val unary(struct ev *x)
{
	unsigned size;
	int sg;
	ws(x);
	if (x->fail)
		return num(0, 0);
	if (cast_type(x, &size, &sg)) {
		struct val v = unary(x);
		if (v.is_str)
			return v; /* (const char *)"..." */
		uint64_t m = size == 8 ? UINT64_MAX : (1ULL << (8 * size)) - 1;
		v.v &= m;
		if (sg && size < 8 && (v.v >> (8 * size - 1)))
			v.v |= ~m;
		v.is_signed = sg;
		return v;
	}
	char op = *x->p;
	if (op == '!' || op == '~' || op == '-' || op == '+') {
		x->p++;
		struct val v = unary(x);
		if (v.is_str)
			return fail(x);
		v.v = op == '!' ? !v.v : op == '~' ? ~v.v : op == '-' ? -v.v : v.v;
		return v;
	}
	return primary(x);
}

static const struct {
	const char *op;
	int prec;
} binops[] = {
	{ "||", 1 }, { "&&", 2 }, { "==", 6 }, { "!=", 6 }, { "<=", 7 }, { ">=", 7 }, { "<<", 8 },
	{ ">>", 8 }, { "|", 3 },  { "^", 4 },  { "&", 5 },  { "<", 7 },  { ">", 7 },  { "+", 9 },
	{ "-", 9 },  { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static int peek_op(struct ev *x)
{
	ws(x);
	for (size_t i = 0; i < sizeof(binops) / sizeof(binops[0]); i++)
		if (!strncmp(x->p, binops[i].op, strlen(binops[i].op)))
			return (int)i;
	return -1;
}

static uint64_t apply(const char *op, struct val a, struct val b, struct ev *x)
{
	int sg = a.is_signed && b.is_signed;
	int64_t sa = (int64_t)a.v, sb = (int64_t)b.v;
	switch (op[0]) {
	case '|': return op[1] ? (a.v || b.v) : a.v | b.v;
	case '&': return op[1] ? (a.v && b.v) : a.v & b.v;
	case '^': return a.v ^ b.v;
	case '=': return a.v == b.v;
	case '!': return a.v != b.v;
	case '+': return a.v + b.v;
	case '-': return a.v - b.v;
	case '*': return a.v * b.v;
	case '<':
		if (op[1] == '<')
			return b.v < 64 ? a.v << b.v : 0;
		return op[1] ? (sg ? sa <= sb : a.v <= b.v) : (sg ? sa < sb : a.v < b.v);
	case '>':
		if (op[1] == '>')
			return b.v < 64 ? (sg ? (uint64_t)(sa >> b.v) : a.v >> b.v) : 0;
		return op[1] ? (sg ? sa >= sb : a.v >= b.v) : (sg ? sa > sb : a.v > b.v);
	default: /* '/' and '%' */
		if (!b.v || (sg && sa == INT64_MIN && sb == -1)) {
			x->fail = 1;
			return 0;
		}
		if (op[0] == '/')
			return sg ? (uint64_t)(sa / sb) : a.v / b.v;
		return sg ? (uint64_t)(sa % sb) : a.v % b.v;
	}
}

static struct val binary(struct ev *x, int min_prec)
{
	struct val a = unary(x);
	int i;
	while (!x->fail && (i = peek_op(x)) >= 0 && binops[i].prec >= min_prec) {
		x->p += strlen(binops[i].op);
		struct val b = binary(x, binops[i].prec + 1);
		if (a.is_str || b.is_str)
			return fail(x);
		int rel = strchr("=!<>", binops[i].op[0]) && strcmp(binops[i].op, "<<") &&
			  strcmp(binops[i].op, ">>");
		a = num(apply(binops[i].op, a, b, x), rel ? 1 : a.is_signed && b.is_signed);
	}
	return a;
}

static struct val expr(struct ev *x)
{
	if (x->fail)
		return num(0, 0);
	struct val c = binary(x, 1);
	if (!eat(x, "?"))
		return c;
	struct val a = expr(x);
	expect(x, ":");
	struct val b = expr(x);
	if (c.is_str)
		return fail(x);
	return c.v ? a : b;
}

/* One conversion of the format (at *f, after the %) with its argument appended to out: 0,
 * -ENOMEM, or -1 when it is outside the subset. */
static int convert(const char **f, const struct val *a, struct mp_buf *out)
{
	char spec[32] = "%";
	size_t k = 1;
	const char *p = *f;
	while (strchr("-+ #0", *p) && k < 8)
		spec[k++] = *p++;
	while (isdigit((unsigned char)*p) && k < 14)
		spec[k++] = *p++;
	if (*p == '.') {
		spec[k++] = *p++;
		while (isdigit((unsigned char)*p) && k < 20)
			spec[k++] = *p++;
	}
	if (isdigit((unsigned char)*p) || *p == '*')
		return -1;
	unsigned bits = 32;
	if (p[0] == 'h')
		bits = p[1] == 'h' ? (p++, 8) : 16, p++;
	else if (strchr("lLzjtq", *p))
		bits = 64, p += p[0] == 'l' && p[1] == 'l' ? 2 : 1;
	char conv = *p++;
	*f = p;
	if (conv == 's') {
		if (!a->is_str)
			return -1;
		spec[k++] = 's';
		spec[k] = 0;
		return mp_buf_printf(out, spec, a->s);
	}
	if (a->is_str || !strchr("diuxXocp", conv))
		return -1;
	if (conv == 'p') {
		if (isalnum((unsigned char)*p)) /* the kernel's %pS, %pI4, ...: not in the subset */
			return -1;
		return mp_buf_printf(out, "%p", (void *)(uintptr_t)a->v);
	}
	uint64_t v = a->v;
	if (bits < 64) {
		uint64_t m = (1ULL << bits) - 1;
		v &= m;
		if ((conv == 'd' || conv == 'i') && (v >> (bits - 1)))
			v |= ~m;
	}
	if (conv == 'c') {
		spec[k++] = 'c';
		spec[k] = 0;
		return mp_buf_printf(out, spec, (int)(unsigned char)v);
	}
	spec[k++] = 'l';
	spec[k++] = 'l';
	spec[k++] = conv;
	spec[k] = 0;
	if (conv == 'd' || conv == 'i')
		return mp_buf_printf(out, spec, (long long)v);
	return mp_buf_printf(out, spec, (unsigned long long)v);
}

/* The print format evaluated into out: 0, or -1 when it is outside the subset. */
static int print_fmt(struct ev *x, struct mp_buf *out)
{
	struct val fmt = str_lit(x), args[TP_MAX_ARGS];
	size_t nargs = 0;
	if (x->fail || !fmt.is_str)
		return -1;
	while (!x->fail && eat(x, ",")) {
		if (nargs == TP_MAX_ARGS)
			return -1;
		args[nargs++] = expr(x);
	}
	ws(x);
	if (x->fail || *x->p)
		return -1;
	size_t next = 0;
	for (const char *f = fmt.s; *f;) {
		const char *pct = strchr(f, '%');
		size_t lit = pct ? (size_t)(pct - f) : strlen(f);
		if (lit && mp_buf_append(out, f, lit))
			return -ENOMEM;
		if (!pct)
			break;
		f = pct + 1;
		if (*f == '%') {
			if (mp_buf_append(out, "%", 1))
				return -ENOMEM;
			f++;
			continue;
		}
		if (next == nargs || convert(&f, &args[next++], out) < 0)
			return -1;
	}
	return next == nargs ? 0 : -1;
}

static int print_value(const struct mp_pd_tp_field *f, const uint8_t *raw, size_t n,
		       struct mp_buf *out)
{
	size_t off = f->offset, len = f->size;
	if (f->flags & MP_TPF_DYNAMIC) {
		if (dyn_span(f, raw, n, &off, &len))
			return mp_buf_printf(out, "[out of bounds]");
	} else if (off > n || len > n - off) {
		return mp_buf_printf(out, "[out of bounds]");
	}
	if (f->flags & MP_TPF_STRING) {
		const char *s = (const char *)raw + off, *z = memchr(s, 0, len);
		return mp_buf_printf(out, "%.*s", (int)(z ? (size_t)(z - s) : len), s);
	}
	if ((f->flags & (MP_TPF_ARRAY | MP_TPF_DYNAMIC)) ||
	    !(len == 1 || len == 2 || len == 4 || len == 8)) {
		int rc = mp_buf_printf(out, "ARRAY[");
		for (size_t i = 0; !rc && i < len; i++)
			rc = mp_buf_printf(out, "%s%02x", i ? ", " : "", raw[off + i]);
		return rc ? rc : mp_buf_printf(out, "]");
	}
	uint64_t v = load(raw + off, (unsigned)len, !!(f->flags & MP_TPF_SIGNED));
	if (f->flags & (MP_TPF_POINTER | MP_TPF_LONG) && !(f->flags & MP_TPF_SIGNED))
		return mp_buf_printf(out, "0x%" PRIx64, v);
	if (f->flags & MP_TPF_SIGNED)
		return mp_buf_printf(out, "%" PRId64, (int64_t)v);
	return mp_buf_printf(out, "%" PRIu64, v);
}

int mp_pd_tp_print_fields(const struct mp_pd_tp_event *e, const void *raw, size_t n,
			  struct mp_buf *out)
{
	int first = 1;
	for (size_t i = 0; i < e->nfields; i++) {
		const struct mp_pd_tp_field *f = &e->fields[i];
		if (!strncmp(f->name, "common_", 7))
			continue;
		if (mp_buf_printf(out, "%s%s=", first ? "" : " ", f->name) ||
		    print_value(f, raw, n, out))
			return -ENOMEM;
		first = 0;
	}
	return 0;
}

int mp_pd_tp_print(const struct mp_pd_tp_event *e, const void *raw, size_t n,
		   struct mp_buf *out)
{
	struct ev *x = malloc(sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->p = e->print_fmt;
	x->e = e;
	x->raw = raw;
	x->n = raw ? n : 0;
	x->fail = 0;
	x->used = 0;
	size_t start = out->len;
	int rc = *x->p ? print_fmt(x, out) : -1;
	free(x);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		out->len = start;
		return mp_pd_tp_print_fields(e, raw, n, out);
	}
	return 0;
}

int mp_pd_tp_num(const struct mp_pd_tp_event *e, const char *field, const void *raw, size_t n,
		 uint64_t *val)
{
	const struct mp_pd_tp_field *f = mp_pd_tp_field(e, field);
	if (!f || (f->flags & (MP_TPF_ARRAY | MP_TPF_DYNAMIC)) ||
	    !(f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
		return -ENOENT;
	if (!raw || f->offset > n || f->size > n - f->offset)
		return -ERANGE;
	*val = load((const uint8_t *)raw + f->offset, f->size, !!(f->flags & MP_TPF_SIGNED));
	return 0;
}
