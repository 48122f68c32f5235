/* mp_perfmap.c - JIT symbols from perf map files, /tmp/perf-PID.map: one function a line,
 * "START SIZE NAME" (hex addresses, with or without 0x; the name to the end of the line),
 * as node --perf-basic-prof, python3.12 -X perf, LuaJIT and Java agents write them and
 * perf and hotspot read them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_dso.h"
#include "mp_sym_int.h"

static int hexval(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t x = 0;
	const char *b = s;
	for (; s < end; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (x >> 60)
			return -1; /* more than 64 bits */
		x = x << 4 | d;
	}
	if (s == b)
		return -1;
	*v = x;
	*p = s;
	return 0;
}

int mp_perfmap_parse(char *text, size_t len, struct mp_symtab *t)
{
	memset(t, 0, sizeof(*t));
	size_t cap = 0;
	for (char *line = text, *end = text + len; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *le = nl ? nl : end;
		const char *p = line;
		uint64_t start, size;
		if (!hexval(&p, le, &start) && p < le && *p == ' ' && (p++, !hexval(&p, le, &size)) &&
		    p < le && *p == ' ' && start + size >= start) {
			char *name = (char *)p + 1;
			*le = 0; /* the name ends the line (the pool is the text) */
			if (le > name && le[-1] == '\r')
				le[-1] = 0;
			if (*name && size) {
				if (MP_GROW(t->v, cap, t->n + 1)) {
					free(t->v);
					memset(t, 0, sizeof(*t));
					return -ENOMEM;
				}
				t->v[t->n++] = (struct mp_esym){ start, start + size, name, 1 };
			}
		}
		line = le + 1;
	}
	t->pool = text;
	mp_symtab_finish(t, 0);
	return 0;
}

int mp_perfmap_load(const char *path, struct mp_symtab *t)
{
	size_t n = 0;
	char *text = mp_read_file(path, &n, NULL);
	memset(t, 0, sizeof(*t));
	if (!text)
		return -ENOENT;
	int rc = mp_perfmap_parse(text, n, t);
	if (rc)
		free(text);
	return rc;
}
