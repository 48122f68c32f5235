/* mp_symname.c - symbol names as a user types them: C++ names matched on their
 * unqualified or qualified forms, mangled names demangled, long template names shortened. */
#include <stdlib.h>
#include <string.h>

#include "mp_sym_int.h"

char *mp_sym_demangle(mp_sym *s, const char *name)
{
	return mp_demangle_one(&s->demangler, name);
}

/* name into buf (n > 0) without its template argument lists ("a<b<c>>::f<int>" -> "a::f"),
 * or with each outermost one as "<...>" when mark; "operator<" and "operator<<" keep their
 * '<'. The length written. */
static size_t strip_templates(const char *name, char *buf, size_t n, int mark)
{
	size_t o = 0;
	int depth = 0;
	for (const char *p = name; *p && o + 1 < n; p++) {
		if (!strncmp(p, "operator", 8) && depth == 0) {
			size_t k = 8;
			while (p[k] == '<' || p[k] == '>' || p[k] == '=')
				k++;
			for (size_t i = 0; i < k && o + 1 < n; i++)
				buf[o++] = p[i];
			p += k - 1;
			continue;
		}
		if (*p == '<') {
			if (!depth++ && mark && o + 6 < n) {
				memcpy(buf + o, "<...>", 5);
				o += 5;
			}
		} else if (*p == '>' && depth > 0) {
			depth--;
		} else if (!depth) {
			buf[o++] = *p;
		}
	}
	buf[o] = 0;
	return o;
}

/* Does want end have at a "::" boundary (or equal it)? */
static int scope_suffix(const char *have, const char *want)
{
	size_t lh = strlen(have), lw = strlen(want);
	if (!lw || lw > lh || strcmp(have + lh - lw, want))
		return 0;
	return lw == lh || (lh - lw >= 2 && have[lh - lw - 1] == ':' && have[lh - lw - 2] == ':');
}

int mp_sym_name_match(const char *have, const char *want)
{
	if (!have || !want || !*want)
		return 0;
	if (!strcmp(have, want))
		return 3;
	if (scope_suffix(have, want))
		return 2;
	if (!strchr(want, '<')) {
		char h[1024];
		strip_templates(have, h, sizeof(h), 0);
		if (!strcmp(h, want) || scope_suffix(h, want))
			return 1;
	}
	return 0;
}

size_t mp_sym_short_name(const char *name, char *buf, size_t n)
{
	return n ? strip_templates(name ? name : "", buf, n, 1) : 0;
}
