/* mp_predict_macro.c - which macro a likely()/unlikely() use came from: the hint written in
 * a macro's body is one hint however many places expand it, and whatever their arguments
 * ("all the macro uses must be considered together"). __LINE__ inside an expansion is the
 * line of the expansion, so the definition is found in the source: the use's line names a
 * macro (of its file or of a file it includes with "..."), whose body, or the body of a
 * macro it names, holds the hint. */
#include "mp_predict.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SRC_MAX_BYTES (64u << 20)
#define INCLUDE_DEPTH 4
#define EXPAND_DEPTH 8

struct macro {
	char *name;
	char *body;      /* the replacement list, comments and strings blanked */
	const char *file; /* the source's path (borrowed from its struct src) */
	uint32_t line;
	unsigned seen;    /* the search (ctx.gen) that looked at it last */
};

struct src {
	char *path;       /* as opened */
	char *clean;      /* the text, comments and string literals blanked, newlines kept */
	size_t *line_at;  /* offset of each line's start (line 1 at [0]) */
	size_t nlines;
	int loaded;       /* 1 parsed, -1 could not be read */
};

struct ctx {
	struct src *srcs;
	size_t nsrcs, cap_srcs;
	struct macro *macros;
	size_t nmacros, cap_macros;
	const char *const *dirs;
	size_t ndirs;
	unsigned gen;     /* one per use searched: a macro is looked into once per search */
};

static int ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Comments and string and character literals become spaces (newlines stay, so that lines
 * keep their numbers); a backslash-newline is kept as it is. */
static void blank(char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
			size_t j = i + 2;
			while (j + 1 < n && !(t[j] == '*' && t[j + 1] == '/'))
				j++;
			size_t e = j + 1 < n ? j + 2 : n;
			for (size_t k = i; k < e; k++)
				if (t[k] != '\n')
					t[k] = ' ';
			i = e - 1;
		} else if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				t[i++] = ' ';
		} else if (t[i] == '"' || t[i] == '\'') {
			char q = t[i];
			size_t j = i + 1;
			while (j < n && t[j] != q && t[j] != '\n')
				j += t[j] == '\\' && j + 1 < n ? 2 : 1;
			for (size_t k = i + 1; k < j && k < n; k++)
				if (t[k] != '\n')
					t[k] = ' ';
			i = j < n ? j : n;
		}
	}
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			size_t nc = cap ? cap * 2 : 8192;
			char *nb;
			if (nc > SRC_MAX_BYTES || !(nb = realloc(buf, nc))) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = 0;
	if (memchr(buf, 0, n)) { /* not a source file */
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static size_t add_src(struct ctx *c, const char *path, int depth);

/* `#include "name"` at text (the original, strings intact): the included file is looked
 * for beside the including one, then in the search folders. */
static void follow_include(struct ctx *c, size_t si, const char *orig_line, int depth)
{
	const char *q = strchr(orig_line, '"'), *e = q ? strchr(q + 1, '"') : NULL;
	char name[1024], path[4096];
	if (!q || !e || (size_t)(e - q - 1) >= sizeof name || depth >= INCLUDE_DEPTH)
		return;
	memcpy(name, q + 1, (size_t)(e - q - 1));
	name[e - q - 1] = 0;
	const char *dir_end = strrchr(c->srcs[si].path, '/');
	if (name[0] == '/')
		snprintf(path, sizeof path, "%s", name);
	else if (dir_end)
		snprintf(path, sizeof path, "%.*s/%s", (int)(dir_end - c->srcs[si].path),
			 c->srcs[si].path, name);
	else
		snprintf(path, sizeof path, "%s", name);
	add_src(c, path, depth + 1); /* its macros join the others */
}

/* The #define lines of source si (and its quoted includes), into c->macros. */
static void scan_defines(struct ctx *c, size_t si, const char *orig, int depth)
{
	for (size_t l = 0; l < c->srcs[si].nlines; l++) {
		const char *t = c->srcs[si].clean + c->srcs[si].line_at[l];
		while (*t == ' ' || *t == '\t')
			t++;
		if (*t != '#')
			continue;
		t++;
		while (*t == ' ' || *t == '\t')
			t++;
		if (!strncmp(t, "include", 7)) {
			const char *o = orig + c->srcs[si].line_at[l];
			const char *nl = strchr(o, '\n');
			char line[1200];
			size_t n = nl ? (size_t)(nl - o) : strlen(o);
			snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), o);
			follow_include(c, si, line, depth);
			continue;
		}
		if (strncmp(t, "define", 6) || (t[6] != ' ' && t[6] != '\t'))
			continue;
		t += 6;
		while (*t == ' ' || *t == '\t')
			t++;
		const char *n0 = t;
		while (ident_char((unsigned char)*t))
			t++;
		if (t == n0)
			continue;
		/* the body: to the end of the logical line (backslash-newlines joined) */
		const char *b = t;
		if (*b == '(') {
			while (*b && *b != ')' && *b != '\n')
				b++;
			if (*b == ')')
				b++;
		}
		const char *e = b;
		while (*e && !(*e == '\n' && (e == b || e[-1] != '\\')))
			e++;
		struct macro m = { strndup(n0, (size_t)(t - n0)), strndup(b, (size_t)(e - b)),
				   c->srcs[si].path, (uint32_t)l + 1, 0 };
		if (!m.name || !m.body ||
		    MP_GROW(c->macros, c->cap_macros, c->nmacros + 1)) {
			free(m.name);
			free(m.body);
			return;
		}
		c->macros[c->nmacros++] = m;
	}
}

/* The source at path, parsed once: its index, or SIZE_MAX when it cannot be read. */
static size_t add_src(struct ctx *c, const char *path, int depth)
{
	for (size_t i = 0; i < c->nsrcs; i++)
		if (!strcmp(c->srcs[i].path, path))
			return c->srcs[i].loaded > 0 ? i : SIZE_MAX;
	if (MP_GROW(c->srcs, c->cap_srcs, c->nsrcs + 1))
		return SIZE_MAX;
	size_t si = c->nsrcs++, len = 0, cap = 0;
	struct src *s = &c->srcs[si];
	memset(s, 0, sizeof *s);
	s->loaded = -1;
	if (!(s->path = strdup(path)))
		return SIZE_MAX;
	char *orig = read_text(path, &len);
	if (!orig)
		return SIZE_MAX;
	s = &c->srcs[si];
	if (!(s->clean = malloc(len + 1))) {
		free(orig);
		return SIZE_MAX;
	}
	memcpy(s->clean, orig, len + 1);
	blank(s->clean, len);
	for (size_t i = 0; i <= len; i++)
		if (i == 0 || s->clean[i - 1] == '\n') {
			if (i == len && i)
				break;
			if (MP_GROW(s->line_at, cap, s->nlines + 1)) {
				free(orig);
				return SIZE_MAX;
			}
			s->line_at[s->nlines++] = i;
		}
	s->loaded = 1;
	scan_defines(c, si, orig, depth);
	free(orig);
	return si;
}

/* Does text hold the hint's name as a call ("unlikely (")? */
static int has_hint(const char *t, size_t n, int likely)
{
	const char *want = likely ? "likely" : "unlikely";
	size_t wl = strlen(want);
	for (size_t i = 0; i + wl <= n; i++) {
		if (!ident_start((unsigned char)t[i]) || (i && ident_char((unsigned char)t[i - 1])))
			continue;
		size_t j = i;
		while (j < n && ident_char((unsigned char)t[j]))
			j++;
		if (j - i == wl && !memcmp(t + i, want, wl)) {
			while (j < n && (t[j] == ' ' || t[j] == '\t'))
				j++;
			if (j < n && t[j] == '(')
				return 1;
		}
		i = j - 1;
	}
	return 0;
}

/* The macro named by t[0..n) (the last definition wins), or NULL. */
static struct macro *find_macro(const struct ctx *c, const char *t, size_t n)
{
	for (size_t i = c->nmacros; i-- > 0;)
		if (strlen(c->macros[i].name) == n && !memcmp(c->macros[i].name, t, n))
			return &c->macros[i];
	return NULL;
}

/* The first macro named in t[0..n) whose body holds the hint, directly or through the
 * macros its body names. */
static const struct macro *hint_macro(const struct ctx *c, const char *t, size_t n, int likely,
				      int depth)
{
	if (depth > EXPAND_DEPTH)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!ident_start((unsigned char)t[i]) || (i && ident_char((unsigned char)t[i - 1])))
			continue;
		size_t j = i;
		while (j < n && ident_char((unsigned char)t[j]))
			j++;
		struct macro *m = find_macro(c, t + i, j - i);
		if (m && m->seen != c->gen) {
			m->seen = c->gen;
			if (has_hint(m->body, strlen(m->body), likely))
				return m;
			const struct macro *in = hint_macro(c, m->body, strlen(m->body), likely,
							    depth + 1);
			if (in)
				return in;
		}
		i = j - 1;
	}
	return NULL;
}

static size_t open_use_src(struct ctx *c, const char *file)
{
	char path[4096];
	if (!file || !*file)
		return SIZE_MAX;
	if (file[0] == '/')
		return add_src(c, file, 0);
	for (size_t d = 0; d < c->ndirs; d++) {
		snprintf(path, sizeof path, "%s/%s", c->dirs[d], file);
		size_t si = add_src(c, path, 0);
		if (si != SIZE_MAX)
			return si;
	}
	return SIZE_MAX;
}

int mp_predict_find_macros(struct mp_predict *p, const char *const *dirs, size_t ndirs,
			   struct mp_err *err)
{
	struct ctx c = { .dirs = dirs, .ndirs = ndirs };
	int rc = 0;

	for (size_t i = 0; i < p->nuses && !rc; i++) {
		struct mp_predict_use *u = &p->uses[i];
		size_t si = open_use_src(&c, u->file);
		if (si == SIZE_MAX || u->line == 0 || u->line > c.srcs[si].nlines)
			continue;
		const char *t = c.srcs[si].clean + c.srcs[si].line_at[u->line - 1];
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		if (has_hint(t, n, u->likely))
			continue; /* written out on its own line: no macro */
		c.gen++;
		const struct macro *m = hint_macro(&c, t, n, u->likely, 0);
		if (!m)
			continue;
		free(u->macro);
		free(u->macro_file);
		u->macro = strdup(m->name);
		u->macro_file = strdup(m->file);
		u->macro_line = m->line;
		if (!u->macro || !u->macro_file)
			rc = mp_err_set(err, -ENOMEM, "predict: out of memory reading %s", m->file);
	}
	for (size_t i = 0; i < c.nmacros; i++) {
		free(c.macros[i].name);
		free(c.macros[i].body);
	}
	for (size_t i = 0; i < c.nsrcs; i++) {
		free(c.srcs[i].path);
		free(c.srcs[i].clean);
		free(c.srcs[i].line_at);
	}
	free(c.macros);
	free(c.srcs);
	return rc;
}
