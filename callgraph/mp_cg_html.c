/* mp_cg_html.c - memprof report --html: one self-contained HTML file (no network) with
 * the call graph's stacks as data and a small script that draws an interactive flame
 * graph of any event (click to zoom, search, hover titles), its inverted caller view, a
 * ratio heat colouring over two events, and the hot-symbol table. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memprof/callgraph.h"

/* the page around the data: callgraph/flame_head.html and flame_tail.html (mp_embed) */
extern const char mp_cg_html_head[], mp_cg_html_tail[];

/* A JSON string literal; '<' escaped so that no "</script>" can end the data early. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

struct html_ctx {
	FILE *f;
	const struct mp_cg_html_opts *o;
	uint32_t *fn_index; /* function id -> index in the fns table + 1 */
	size_t nfn_index;
	size_t nfns;
	uint32_t *fn_order; /* index -> function id */
	int first;
	int err;
};

static uint32_t fn_idx(struct html_ctx *x, uint32_t fn)
{
	if (fn >= x->nfn_index)
		return UINT32_MAX;
	if (!x->fn_index[fn]) {
		x->fn_order[x->nfns] = fn;
		x->fn_index[fn] = (uint32_t)++x->nfns;
	}
	return x->fn_index[fn] - 1;
}

static int emit_stack(void *ctx, const struct mp_cg_stack *st)
{
	struct html_ctx *x = ctx;
	int any = 0;
	for (size_t j = 0; j < x->o->nev; j++)
		if (x->o->ev[j] < st->nattrs && st->c[x->o->ev[j]].samples)
			any = 1;
	if (!any || !st->nframes)
		return 0;
	fprintf(x->f, "%s[[", x->first ? "" : ",\n");
	x->first = 0;
	for (size_t i = 0; i < st->nframes; i++) {
		uint32_t k = fn_idx(x, st->frames[i].fn);
		if (k == UINT32_MAX)
			return x->err = -EINVAL;
		fprintf(x->f, "%s%" PRIu32, i ? "," : "", k);
	}
	fprintf(x->f, "],[");
	for (size_t j = 0; j < x->o->nev; j++) {
		size_t a = x->o->ev[j];
		fprintf(x->f, "%s%" PRIu64, j ? "," : "", a < st->nattrs ? st->c[a].period : 0);
	}
	fprintf(x->f, "],[");
	for (size_t j = 0; j < x->o->nev; j++) {
		size_t a = x->o->ev[j];
		fprintf(x->f, "%s%" PRIu64, j ? "," : "", a < st->nattrs ? st->c[a].samples : 0);
	}
	fprintf(x->f, "]]");
	/* the write's own error (ENOSPC on a full disk), for the one-line message */
	return ferror(x->f) ? (x->err = errno ? -errno : -EIO) : 0;
}

/* "data": the data-objects section's tables, rows as arrays */
static void write_data(FILE *f, const struct mp_cg_html_data *d)
{
	fputs(",\n\"data\": {\"events\": ", f);
	json_str(f, d->events);
	fprintf(f, ", \"samples\": %" PRIu64 ", \"weight\": %" PRIu64 ",\n\"objects\": [", d->samples,
		d->weight);
	for (size_t i = 0; i < d->nobj; i++) {
		const struct mp_cg_html_dobj *o = &d->obj[i];
		fprintf(f, "%s[", i ? ",\n" : "\n");
		json_str(f, o->name);
		fputs(", ", f);
		json_str(f, o->kind);
		fprintf(f, ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu32 "]",
			o->size_min, o->size_max, o->samples, o->weight, o->stores, o->threads);
	}
	fputs("],\n\"fields\": [", f);
	for (size_t i = 0; i < d->nfield; i++) {
		const struct mp_cg_html_dfield *x = &d->field[i];
		fprintf(f, "%s[%zu, ", i ? ",\n" : "\n", x->obj);
		json_str(f, x->field);
		fprintf(f, ", %" PRIu64 ", %" PRIu64 "]", x->samples, x->weight);
	}
	fputs("],\n\"lines\": [", f);
	for (size_t i = 0; i < d->nline; i++) {
		const struct mp_cg_html_dline *x = &d->line[i];
		fprintf(f, "%s[", i ? ",\n" : "\n");
		json_str(f, x->line);
		fprintf(f, ", %zu, %" PRIu64 ", %" PRIu64 ", %" PRIu32 ", %" PRIu32 "]", x->obj,
			x->samples, x->stores, x->threads, x->writers);
	}
	fputs("],\n\"codes\": [", f);
	for (size_t i = 0; i < d->ncode; i++) {
		const struct mp_cg_html_dcode *x = &d->code[i];
		fprintf(f, "%s[%zu, ", i ? ",\n" : "\n", x->obj);
		json_str(f, x->sym);
		fputs(", ", f);
		json_str(f, x->line ? x->line : "");
		fputs(", ", f);
		json_str(f, x->dso);
		fprintf(f, ", %" PRIu64 ", %" PRIu64 "]", x->samples, x->weight);
	}
	fputs("]}", f);
}

int mp_cg_html_write(mp_cg *cg, const struct mp_cg_html_opts *o, FILE *f, struct mp_err *err)
{
	struct html_ctx x = { .f = f, .o = o, .first = 1 };
	size_t nf = mp_cg_nfns(cg);

	x.nfn_index = nf;
	x.fn_index = calloc(nf ? nf : 1, sizeof(*x.fn_index));
	x.fn_order = calloc(nf ? nf : 1, sizeof(*x.fn_order));
	if (!x.fn_index || !x.fn_order) {
		free(x.fn_index);
		free(x.fn_order);
		return mp_err_set(err, -ENOMEM, "%s: out of memory", o->path);
	}
	fputs(mp_cg_html_head, f);
	fputs("<script id=\"mpdata\" type=\"application/json\">\n{\"title\": ", f);
	json_str(f, o->title);
	fputs(", \"banner\": ", f);
	json_str(f, o->banner);
	fputs(", \"events\": [", f);
	for (size_t j = 0; j < o->nev; j++) {
		struct mp_hist_counts t = mp_cg_total(cg, o->ev[j]);
		fprintf(f, "%s{\"name\": ", j ? ", " : "");
		json_str(f, o->ev_names[j]);
		fprintf(f, ", \"period\": %" PRIu64 ", \"samples\": %" PRIu64 "}", t.period, t.samples);
	}
	fputs("],\n\"stacks\": [\n", f);
	struct mp_cg_iter_opts io = { .address = 0, .inline_frames = o->inline_frames };
	int rc = mp_cg_foreach_stack(cg, &io, emit_stack, &x);
	if (!rc)
		rc = x.err;
	if (rc) {
		free(x.fn_index);
		free(x.fn_order);
		return mp_err_set(err, rc, "%s: %s", o->path,
				  rc == -ENOMEM ? "out of memory" : strerror(-rc));
	}
	fputs("],\n\"fns\": [", f);
	for (size_t i = 0; i < x.nfns; i++) {
		const struct mp_cg_frame *fr = mp_cg_fn(cg, x.fn_order[i]);
		fprintf(f, "%s[", i ? ",\n" : "\n");
		json_str(f, fr ? fr->sym : "?");
		fputs(", ", f);
		json_str(f, fr ? fr->dso : "?");
		fprintf(f, ", \"%c\", %d]", fr && fr->level ? fr->level : '.', fr ? fr->inlined : 0);
	}
	fputs("]", f);
	if (o->data)
		write_data(f, o->data);
	fputs("}\n</script>\n", f);
	fputs(mp_cg_html_tail, f);
	free(x.fn_index);
	free(x.fn_order);
	if (fflush(f) || ferror(f))
		return mp_err_set(err, -EIO, "%s: %s", o->path, strerror(errno ? errno : EIO));
	return 0;
}
