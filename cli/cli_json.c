/* cli_json.c - the small JSON writer of the commands' --json forms: separators, quoting
 * and layout kept in one place, the document written as it goes. */
#include <stdarg.h>
#include <string.h>

#include "cli.h"

void cli_json_start(struct cli_json *j, FILE *f, const char *colon, const char *comma,
		    int indent)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->colon = colon;
	j->comma = comma;
	j->indent = indent;
}

/* A line's indent: indent spaces per enclosing container that lays out lines. */
static void newline(struct cli_json *j, int nlines)
{
	fprintf(j->f, "\n%*s", nlines * j->indent, "");
}

/* The innermost open container (the deepest one kept when they nest deeper). */
static struct cli_json_level *inner(struct cli_json *j)
{
	return &j->c[(j->depth < CLI_JSON_DEPTH ? j->depth : CLI_JSON_DEPTH) - 1];
}

void cli_json_key(struct cli_json *j, const char *key)
{
	if (j->depth > 0) {
		struct cli_json_level *c = inner(j);
		if (c->count++)
			fputs(c->layout == CLI_JSON_INLINE ? j->comma : ",", j->f);
		if (c->layout != CLI_JSON_INLINE)
			newline(j, c->nlines);
	}
	if (key) {
		cli_json_str(j->f, key);
		fputs(j->colon, j->f);
	}
}

void cli_json_open(struct cli_json *j, const char *key, char open, enum cli_json_layout layout)
{
	cli_json_key(j, key);
	fputc(open, j->f);
	int nl = (j->depth > 0 ? inner(j)->nlines : 0) + (layout != CLI_JSON_INLINE);
	if (j->depth < CLI_JSON_DEPTH)
		j->c[j->depth] = (struct cli_json_level){ open == '{' ? '}' : ']', layout, nl, 0 };
	j->depth++;
}

void cli_json_relayout(struct cli_json *j, enum cli_json_layout layout)
{
	if (j->depth > 0)
		inner(j)->layout = (unsigned char)layout;
}

void cli_json_close(struct cli_json *j)
{
	if (j->depth <= 0)
		return;
	const struct cli_json_level *c = inner(j);
	j->depth--;
	if (c->layout == CLI_JSON_LINES)
		newline(j, c->nlines - 1);
	fputc(c->close, j->f);
}

void cli_json_string(struct cli_json *j, const char *key, const char *s)
{
	cli_json_key(j, key);
	cli_json_str(j->f, s);
}

void cli_json_string_or_null(struct cli_json *j, const char *key, const char *s)
{
	cli_json_key(j, key);
	if (s)
		cli_json_str(j->f, s);
	else
		fputs("null", j->f);
}

void cli_json_bool(struct cli_json *j, const char *key, int v)
{
	cli_json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void cli_json_value(struct cli_json *j, const char *key, const char *fmt, ...)
{
	va_list ap;
	cli_json_key(j, key);
	va_start(ap, fmt);
	vfprintf(j->f, fmt, ap);
	va_end(ap);
}
