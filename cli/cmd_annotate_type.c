/* memprof annotate --data-type: the data types the samples' addresses fell in (globals and
 * statics, and heap objects whose allocation's result has a typed pointer variable), each
 * laid out as pahole shows it with samples per member: perf annotate --data-type's table
 * (percent, offset, size, field), a samples column beside it, the holes and the end
 * padding as lines of their own and a marker at each cache line boundary. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_analyzer.h"

#define CMD "annotate"

struct at_type {
	struct mp_dtype_loc loc;
	uint64_t *samples, *period; /* per byte offset [loc.type_size] */
	uint64_t nsamples, nperiod;
};

struct at_ctx {
	mp_dtype *dt;
	mp_daddr *dd;
	mp_heap *heap;
	const char *want; /* "" for every type */
	struct at_type *types;
	size_t ntypes, ctypes;
	uint64_t addr_samples, typed;
};

/* perf's match: "rec" names "struct rec" (and "union u"'s "u") too */
static int type_match(const char *want, const char *type)
{
	if (!*want)
		return 1;
	if (strncmp(want, "struct ", 7) && !strncmp(type, "struct ", 7))
		type += 7;
	else if (strncmp(want, "union ", 6) && !strncmp(type, "union ", 6))
		type += 6;
	return !strcmp(want, type);
}

static int at_sample(void *c, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	struct at_ctx *x = c;
	(void)ips;
	(void)nips;
	if (!s->addr || s->addr >> 63)
		return 0;
	x->addr_samples++;
	struct mp_daddr_loc dl;
	struct mp_heap_obj ho;
	struct mp_dtype_loc tl;
	mp_daddr_resolve(x->dd, s->pid, s->addr, &dl);
	if (!dl.sym && mp_heap_find(x->heap, s->pid, s->addr, s->time, &ho) < 0)
		return -ENOMEM;
	int rc = mp_dtype_of_sample(x->dt, &dl, dl.sym ? NULL : &ho, x->heap, sym, &tl);
	if (rc < 0)
		return rc;
	if (!rc || !tl.type_size || tl.offset >= tl.type_size || !type_match(x->want, tl.type))
		return 0;
	struct at_type *t = NULL;
	for (size_t i = 0; i < x->ntypes && !t; i++)
		if (x->types[i].loc.obj == tl.obj && x->types[i].loc.die == tl.die)
			t = &x->types[i];
	if (!t) {
		if (MP_GROW(x->types, x->ctypes, x->ntypes + 1))
			return -ENOMEM;
		t = &x->types[x->ntypes];
		memset(t, 0, sizeof(*t));
		t->loc = tl;
		t->samples = calloc(tl.type_size, sizeof(*t->samples));
		t->period = calloc(tl.type_size, sizeof(*t->period));
		if (!t->samples || !t->period) {
			free(t->samples);
			free(t->period);
			return -ENOMEM;
		}
		x->ntypes++;
	}
	uint64_t p = s->period ? s->period : 1;
	t->samples[tl.offset]++;
	t->period[tl.offset] += p;
	t->nsamples++;
	t->nperiod += p;
	x->typed++;
	return 0;
}

static int type_cmp(const void *a, const void *b)
{
	const struct at_type *x = a, *y = b;
	if (x->nperiod != y->nperiod)
		return x->nperiod < y->nperiod ? 1 : -1;
	return strcmp(x->loc.type, y->loc.type);
}

/* the counts columns of [off, off + size) */
static void print_counts(const struct at_type *t, uint64_t off, uint64_t size, int period)
{
	uint64_t s = 0, p = 0;
	for (uint64_t i = off; i < off + size && i < t->loc.type_size; i++) {
		s += t->samples[i];
		p += t->period[i];
	}
	uint64_t tot = period ? t->nperiod : t->nsamples;
	printf(" %7.2f %10" PRIu64, tot ? 100.0 * (double)(period ? p : s) / (double)tot : 0.0,
	       period ? p : s);
}

/* the width of the columns before the field: " %7.2f %10 %10 %10  " */
#define FIELD_COL 43

static void print_type(const struct at_type *t, const struct mp_dtype_member *m, size_t n,
		       unsigned line, int period)
{
	const char *base = t->loc.path ? strrchr(t->loc.path, '/') : NULL;
	printf("Annotate type: '%s' in %s (%" PRIu64 " samples):\n", t->loc.type,
	       base ? base + 1 : t->loc.path ? t->loc.path : "?", t->nsamples);
	printf("============================================================================\n");
	printf(" %7s %10s %10s %10s  %s\n", "Percent", period ? "Period" : "Samples", "offset",
	       "size", "field");
	uint64_t next_line = line; /* the next cache line boundary to mark */
	unsigned members = 0, holes = 0, open[16], nopen = 0;
	uint64_t hole_bytes = 0, padding = 0;
	for (size_t i = 0; i < n; i++) {
		const struct mp_dtype_member *e = &m[i];
		unsigned ind = 4 * e->depth;
		for (; next_line < t->loc.type_size && next_line <= e->offset; next_line += line) {
			printf("%*s/* --- cacheline %" PRIu64 " boundary (%" PRIu64 " bytes)",
			       FIELD_COL + ind, "", next_line / line, next_line);
			if (e->offset > next_line)
				printf(" was %" PRIu64 " bytes ago", e->offset - next_line);
			printf(" --- */\n");
		}
		print_counts(t, e->offset, e->size, period);
		printf(" %10" PRIu64 " %10" PRIu64 "  %*s", e->offset, e->size, ind, "");
		if (e->kind == MP_DTYPE_HOLE) {
			printf("/* XXX %" PRIu64 " bytes hole */\n", e->size);
			holes++;
			hole_bytes += e->size;
		} else if (e->kind == MP_DTYPE_PADDING) {
			printf("/* XXX %" PRIu64 " bytes padding */\n", e->size);
			padding += e->depth == 1 ? e->size : 0;
		} else {
			members += e->depth == 1;
			printf("%s\t%s%s\n", e->type, e->name, e->has_children ? " {" : ";");
			if (e->has_children && nopen < sizeof(open) / sizeof(open[0]))
				open[nopen++] = e->depth;
		}
		/* close the structures whose members end here */
		unsigned next_depth = i + 1 < n ? m[i + 1].depth : 0;
		while (nopen && open[nopen - 1] >= next_depth) {
			nopen--;
			printf("%*s};\n", FIELD_COL + 4 * open[nopen], "");
		}
	}
	if (n && m[0].has_children)
		printf("%*s/* size: %" PRIu64 ", cachelines: %" PRIu64 ", members: %u, holes: %u (%" PRIu64
	       " bytes), padding: %" PRIu64 " bytes */\n",
	       FIELD_COL, "", t->loc.type_size, (t->loc.type_size + line - 1) / line, members,
	       holes, hole_bytes, padding);
	putchar('\n');
}

int annotate_data_type(const char *input, const char *symfs, const char *kallsyms,
		       const char *want, int period)
{
	struct mp_err err = { 0 };
	struct at_ctx x = { .want = want };
	int rc = 1;
	if (strchr(input, ',')) {
		cli_error(CMD, "--data-type: one recording at a time");
		return CLI_EXIT_USAGE;
	}
	mp_pd *pd = mp_pd_open(input, &err);
	if (!pd) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	int has_addr = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		has_addr |= !!(mp_pd_attr(pd, i)->attr.sample_type & PERF_SAMPLE_ADDR);
	if (!has_addr) {
		cli_error(CMD, "%s: --data-type: no event of the recording has data addresses "
			  "(record with -d: memprof record -e page-faults -c 1 -d, or memprof mem "
			  "record)", input);
		mp_pd_close(pd);
		return 1;
	}
	struct mp_pd_allocs allocs;
	if (!mp_pd_allocs(pd, &allocs) && !(x.heap = mp_heap_new(pd))) {
		cli_error(CMD, "%s: out of memory for the allocation records", input);
		mp_pd_close(pd);
		return 1;
	}
	unsigned line = mp_pd_cache_line_size(pd);
	if (!line || (line & (line - 1)))
		line = cli_host_line_size();
	char *bdir = cli_buildid_dir(symfs);
	mp_session *ss = NULL;
	if (!(x.dt = mp_dtype_new(symfs))) {
		cli_error(CMD, "out of memory");
		mp_pd_close(pd); /* the session would have taken it over */
		goto out;
	}
	struct mp_session_opts so = { .symfs = symfs, .kallsyms = kallsyms, .buildid_dir = bdir,
				      .no_hist = 1, .sample = at_sample, .sample_ctx = &x,
				      .daddr = &x.dd, .pd = pd };
	if (!(ss = mp_session_new(input, &so, &err))) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	if (x.ntypes)
		qsort(x.types, x.ntypes, sizeof(*x.types), type_cmp);
	for (size_t i = 0; i < x.ntypes; i++) {
		struct mp_dtype_member *m;
		size_t n;
		if (mp_dtype_layout(x.dt, &x.types[i].loc, &m, &n)) {
			cli_error(CMD, "%s: %s: out of memory for its layout", input,
				  x.types[i].loc.type);
			goto out;
		}
		print_type(&x.types[i], m, n, line, period);
		free(m);
	}
	if (!x.ntypes)
		printf("# no sample's data address is in a%s data type (%" PRIu64 " samples with "
		       "addresses; types come from DWARF: globals and statics, heap objects with "
		       "--alloc)\n", *want ? " matching" : "", x.addr_samples);
	rc = fflush(stdout) ? 1 : 0;
out:
	for (size_t i = 0; i < x.ntypes; i++) {
		free(x.types[i].samples);
		free(x.types[i].period);
	}
	free(x.types);
	mp_dtype_free(x.dt);
	mp_heap_free(x.heap);
	mp_session_free(ss); /* after the heap, which reads its pd */
	free(bdir);
	return rc;
}
