/* memprof report in perf report's own layouts: -F/--fields (the columns and the order
 * rows sort by, as perf 6.1 takes them), --hierarchy (each sort key a level, indented,
 * with its own overhead) and -T/--threads (each thread's counts of the READ records).
 * Each event is a section of its own, "# Samples: N  of event 'E'", as perf prints them;
 * the rows come from the histogram's query, folded here to the keys asked for. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CMD REPORT_CMD

enum pf {
	PF_OVERHEAD, PF_SYS, PF_US, PF_SAMPLE, PF_PERIOD, PF_CHILDREN, /* values */
	PF_COMM, PF_PID, PF_DSO, PF_SYM, PF_SRCLINE, PF_SRCFILE, PF_CPU, PF_N
};

/* perf's names, column titles and widths; a key's width is its widest cell. selfpad: the
 * cell pads itself to the width (the last column is padded only by those, as perf) */
static const struct {
	const char *name, *title;
	unsigned hk;     /* the histogram keys it groups by; 0: a value */
	int width;       /* values: fixed */
	int selfpad;
} pfs[PF_N] = {
	[PF_OVERHEAD] = { "overhead", "Overhead", 0, 8, 1 },
	[PF_SYS] = { "overhead_sys", "sys", 0, 8, 1 },
	[PF_US] = { "overhead_us", "usr", 0, 8, 1 },
	[PF_SAMPLE] = { "sample", "Samples", 0, 12, 1 },
	[PF_PERIOD] = { "period", "Period", 0, 12, 1 },
	[PF_CHILDREN] = { "overhead_children", "Children", 0, 8, 1 },
	/* the thread too: perf's widths come from each row's thread's last command */
	[PF_COMM] = { "comm", "Command", MP_HK_COMM | MP_HK_PID | MP_HK_TID, 0, 1 },
	/* perf's pid is the thread: "tid:comm" */
	[PF_PID] = { "pid", "    Pid:Command", MP_HK_PID | MP_HK_TID, 0, 1 },
	[PF_DSO] = { "dso", "Shared Object", MP_HK_DSO, 0, 1 },
	[PF_SYM] = { "sym", "Symbol", MP_HK_SYM, 0, 0 },
	[PF_SRCLINE] = { "srcline", "Source:Line", MP_HK_SRCLINE, 0, 0 },
	[PF_SRCFILE] = { "srcfile", "Source File", MP_HK_SRCFILE, 0, 0 },
	[PF_CPU] = { "cpu", "CPU", MP_HK_CPU, 0, 1 },
};
#define PERF_DEFAULT_SORT "comm,dso,sym"
#define HIER_INDENT 3

static int pf_lookup(const char *tok)
{
	if (!strcmp(tok, "symbol"))
		return PF_SYM;
	for (int k = 0; k < PF_N; k++)
		if (!strcmp(tok, pfs[k].name))
			return k;
	return -1;
}

static int has(const unsigned char *l, size_t n, int k)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == k)
			return 1;
	return 0;
}

/* A comma-separated list into l (keys_only: sort keys, no values); duplicates once.
 * 0, or -1 with the error said. */
static int parse_list(const char *opt, const char *list, int keys_only, unsigned char *l,
		      size_t *n)
{
	char tok[64];
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		int k = -1;
		if (len && len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = 0;
			k = pf_lookup(tok);
		}
		if (k < 0 || (keys_only && !pfs[k].hk)) {
			cli_error(CMD, "%s %s: unknown %s '%.*s' (%s)", opt, list,
				  keys_only ? "sort key" : "field", (int)len, p,
				  keys_only ? "comm, pid, dso, sym, srcline, srcfile, cpu"
					    : "overhead, overhead_sys, overhead_us, overhead_children, "
					      "sample, period, comm, pid, dso, sym, srcline, srcfile, cpu");
			return -1;
		}
		if (!has(l, *n, k)) {
			if (*n == REPORT_PF_MAX)
				return -1;
			l[(*n)++] = (unsigned char)k;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

static void append(unsigned char *l, size_t *n, const unsigned char *from, size_t nfrom)
{
	for (size_t i = 0; i < nfrom; i++)
		if (!has(l, *n, from[i]))
			l[(*n)++] = from[i];
}

/* A filter of one value makes its column the same on every row: left out, as perf does. */
static int single(const char *filter)
{
	return filter && !strchr(filter, ',');
}

int report_pf_setup(struct report_opts *o)
{
	struct report_pf *pf = &o->pf;
	unsigned char keys[REPORT_PF_MAX], fl[REPORT_PF_MAX];
	size_t nkeys = 0, nfl = 0;
	*pf = (struct report_pf){ .on = 1, .strict = o->fields && o->fields[0] != '+' };
	if (o->fields && o->hierarchy) {
		cli_error(CMD, "--hierarchy and -F exclude each other (as perf)");
		return CLI_EXIT_USAGE;
	}
	if (o->csv || o->json || o->folded || o->pprof || o->mem_mode) {
		cli_error(CMD, "%s is a text layout: it excludes --csv, --json, --folded, --pprof "
			  "and --mem-mode", o->fields ? "-F" : "--hierarchy");
		return CLI_EXIT_USAGE;
	}
	if (o->children || (o->callgraph && o->cgo.mode != REPORT_CG_NONE)) {
		cli_error(CMD, "%s shows self overhead, no call chains (-g none, --no-children)",
			  o->fields ? "-F" : "--hierarchy");
		return CLI_EXIT_USAGE;
	}
	int strict = pf->strict;
	const char *sort = o->sort ? o->sort : strict ? NULL : PERF_DEFAULT_SORT;
	if (sort && parse_list("--sort", sort, 1, keys, &nkeys))
		return CLI_EXIT_USAGE;
	if (o->fields && parse_list("-F", o->fields + !strict, 0, fl, &nfl))
		return CLI_EXIT_USAGE;
	if (strict) {
		/* the fields as given, then the sort keys they lack; rows sort by the sort
		 * keys first, then by the fields */
		append(pf->out, &pf->nout, fl, nfl);
		append(pf->out, &pf->nout, keys, nkeys);
		append(pf->sort, &pf->nsort, keys, nkeys);
		append(pf->sort, &pf->nsort, fl, nfl);
	} else {
		/* perf's default columns (Overhead, Samples with -n), the fields after them,
		 * then the sort keys; rows sort by overhead first */
		unsigned char def[2] = { PF_OVERHEAD, PF_SAMPLE };
		append(pf->out, &pf->nout, def, o->show_nr ? 2 : 1);
		append(pf->out, &pf->nout, fl, nfl);
		append(pf->out, &pf->nout, keys, nkeys);
		append(pf->sort, &pf->nsort, def, 1);
		append(pf->sort, &pf->nsort, keys, nkeys);
		append(pf->sort, &pf->nsort, pf->out, pf->nout);
	}
	o->keys = 0;
	for (size_t i = 0; i < pf->nout; i++) {
		int k = pf->out[i];
		o->keys |= pfs[k].hk;
		if (k == PF_SYS || k == PF_US)
			o->keys |= MP_HK_SYM; /* the level says kernel or user; folded back below */
		pf->elide[i] = (k == PF_COMM && single(o->filter.comms)) ||
			       (k == PF_DSO && single(o->filter.dsos)) ||
			       (k == PF_SYM && single(o->filter.syms));
	}
	if (o->hierarchy && !o->keys) {
		cli_error(CMD, "--hierarchy: no sort key");
		return CLI_EXIT_USAGE;
	}
	if (!o->keys)
		o->keys = MP_HK_DSO | MP_HK_SYM; /* one row of all: any grouping, folded */
	/* Children as perf counts them (a sample once for each function of its chain) for
	 * rows by function: keys among comm, dso, sym, with sym */
	pf->children = !o->hierarchy && has(pf->out, pf->nout, PF_SYM);
	for (size_t i = 0; i < pf->nout; i++)
		if (pfs[pf->out[i]].hk && pf->out[i] != PF_COMM && pf->out[i] != PF_DSO &&
		    pf->out[i] != PF_SYM)
			pf->children = 0;
	if (has(pf->out, pf->nout, PF_CHILDREN) && !pf->children) {
		cli_error(CMD, "-F overhead_children: rows by function (keys comm, dso, sym, with sym)");
		return CLI_EXIT_USAGE;
	}
	return REPORT_GO;
}

/* ---- rows ------------------------------------------------------------------------------ */

/* The events of one table: one event, or a group's members side by side (perf's group
 * view: each value column once per member) */
#define PF_GMAX 8
struct pf_sec {
	size_t attr[PF_GMAX], nm;
	uint64_t total[PF_GMAX]; /* each member's period: its shares' whole */
};

/* a row's values, per member */
enum { V_SAMPLES, V_PERIOD, V_SYS, V_US, V_CHILDREN, NV };
static const int vof[PF_N] = { [PF_OVERHEAD] = V_PERIOD, [PF_SYS] = V_SYS, [PF_US] = V_US,
			       [PF_SAMPLE] = V_SAMPLES, [PF_PERIOD] = V_PERIOD,
			       [PF_CHILDREN] = V_CHILDREN };

/* One row of one table: the histogram row giving its keys, its values summed over the
 * histogram rows folded into it (children: the period of the samples with it in their
 * chain). */
struct pf_row {
	const struct mp_hist_row *r;
	const char *tcomm; /* the thread's last command (perf's pid names it so) */
	uint64_t *v;       /* [nm * NV]: each member's values */
};

struct pf_ctx {
	const unsigned char *k; /* the fields compared, in order */
	size_t nk;
	size_t nm; /* the members whose values are compared */
};

static int is_pct(int k)
{
	return k == PF_OVERHEAD || k == PF_SYS || k == PF_US || k == PF_CHILDREN;
}

static const char *str0(const char *s)
{
	return s ? s : "";
}

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;
	return b ? b + 1 : str0(p);
}

/* A place's source line as perf's srcline key names it: file:line, else sym+off, and an
 * address no symbol holds as object[offset] */
static void srcline(const struct mp_hist_row *r, char *b, size_t n)
{
	if (!r->srcfile && !r->sym_resolved && r->dso)
		snprintf(b, n, "%s[%" PRIx64 "]", base_name(r->dso), r->addr);
	else
		report_fmt_srcline(r, b, n, 0);
}

/* The cell's text, unpadded (pid pads the command to the width, as perf); a value once
 * per member of sec, each pfs[k].width wide. */
static const char *cell(char *b, size_t n, int k, const struct pf_row *x,
			const struct pf_sec *sec, int w)
{
	const struct mp_hist_row *r = x->r;
	if (!pfs[k].hk) {
		size_t len = 0;
		b[0] = 0;
		for (size_t m = 0; sec && m < sec->nm && len < n; m++) {
			uint64_t v = x->v[m * NV + vof[k]];
			len += (size_t)(is_pct(k) ? snprintf(b + len, n - len, "%*.2f%%",
							     pfs[k].width - 1,
							     report_pct(v, sec->total[m]))
						  : snprintf(b + len, n - len, "%*" PRIu64,
							     pfs[k].width, v));
		}
		return b;
	}
	switch (k) {
	case PF_COMM: snprintf(b, n, "%.*s", w ? w : INT_MAX, str0(r->comm)); break;
	case PF_PID:
		snprintf(b, n, "%7d:%-*s", (int32_t)r->tid, w > 8 ? w - 8 : 0, str0(x->tcomm));
		break;
	case PF_DSO: snprintf(b, n, "%s", r->dso ? r->dso : "[unknown]"); break;
	case PF_SYM: {
		/* perf prints an address with "%#llx": address 0 without its 0x */
		const char *nm = str0(r->sym);
		if (!r->sym_resolved && !strncmp(nm, "0x", 2) && !nm[2 + strspn(nm + 2, "0")])
			nm += 2;
		snprintf(b, n, "[%c] %s", r->level ? r->level : '.', nm);
		break;
	}
	case PF_SRCLINE: srcline(r, b, n); break;
	case PF_SRCFILE: snprintf(b, n, "%s", r->srcfile ? base_name(r->srcfile) : ""); break;
	case PF_CPU: snprintf(b, n, "%*.*d", w, w, (int)r->cpu); break;
	}
	return b;
}

/* perf's order of two rows by one field: values larger first, names ascending, an
 * unresolved symbol after the named ones (perf's cmp_null), numbers ascending. */
static int cmp_field(int k, const struct pf_row *a, const struct pf_row *b, size_t nm)
{
	const struct mp_hist_row *x = a->r, *y = b->r;
	char ba[512], bb[512];
#define ASC(v, w) ((v) < (w) ? -1 : (v) > (w) ? 1 : 0)
	/* a value: the leader's first, then the other members' in order (perf's group sort) */
	for (size_t m = 0; !pfs[k].hk && m < nm; m++) {
		int d = ASC(b->v[m * NV + vof[k]], a->v[m * NV + vof[k]]);
		if (d)
			return d;
	}
	switch (k) {
	case PF_COMM: return strcmp(str0(x->comm), str0(y->comm));
	case PF_PID: return ASC(x->tid, y->tid);
	case PF_DSO:
		if ((x->dso_idx == UINT32_MAX) != (y->dso_idx == UINT32_MAX))
			return x->dso_idx == UINT32_MAX ? 1 : -1; /* no object: last (perf's cmp_null) */
		return strcmp(str0(x->dso), str0(y->dso));
	case PF_SYM:
		if (x->sym_resolved != y->sym_resolved)
			return x->sym_resolved ? -1 : 1;
		/* two addresses are equal here: the next field decides, as in perf */
		return x->sym_resolved ? strcmp(str0(x->sym), str0(y->sym)) : 0;
	case PF_SRCLINE:
		srcline(x, ba, sizeof(ba));
		srcline(y, bb, sizeof(bb));
		return strcmp(ba, bb);
	case PF_SRCFILE: return strcmp(base_name(x->srcfile), base_name(y->srcfile));
	case PF_CPU: return ASC(x->cpu, y->cpu);
	}
#undef ASC
	return 0;
}

/* Do two rows have the same key in field k (the object too for a symbol, the level for
 * its [k]/[.])? */
static int same_key(int k, const struct pf_row *a, const struct pf_row *b)
{
	const struct mp_hist_row *x = a->r, *y = b->r;
	switch (k) {
	case PF_PID: return x->tid == y->tid;
	case PF_SYM:
		return x->level == y->level && x->sym_resolved == y->sym_resolved &&
		       !strcmp(str0(x->dso), str0(y->dso)) && !strcmp(str0(x->sym), str0(y->sym));
	case PF_SRCLINE: return !cmp_field(k, a, b, 0) && !cmp_field(PF_SYM, a, b, 0);
	default: return pfs[k].hk ? !cmp_field(k, a, b, 0) : 1;
	}
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct pf_ctx *c = ctx;
	const struct pf_row *a = pa, *b = pb;
	for (size_t i = 0; i < c->nk; i++) {
		int d = cmp_field(c->k[i], a, b, c->nm);
		if (d)
			return d;
	}
	/* equal in every field: by the address's name, for a stable order */
	return strcmp(str0(a->r->sym), str0(b->r->sym));
}

/* Fold rows equal in the key fields of l into one (x sorted by those keys). */
static size_t fold(struct pf_row *x, size_t m, const unsigned char *l, size_t nl, size_t nm)
{
	unsigned char keys[REPORT_PF_MAX];
	size_t nk = 0, w = 0;
	for (size_t i = 0; i < nl; i++)
		if (pfs[l[i]].hk)
			keys[nk++] = l[i];
	struct pf_ctx ctx = { keys, nk, 0 };
	qsort_r(x, m, sizeof(*x), cmp_rows, &ctx);
	for (size_t i = 0; i < m; i++) {
		int same = w > 0;
		for (size_t j = 0; same && j < nk; j++)
			same = same_key(keys[j], &x[w - 1], &x[i]);
		if (!same) {
			x[w++] = x[i];
			continue;
		}
		for (size_t v = 0; v < nm * NV; v++)
			x[w - 1].v[v] += x[i].v[v];
	}
	return w;
}

/* Storage for up to cap rows and their values (*vals, OUT: freed by the caller with the
 * rows); NULL when out of memory. */
static struct pf_row *rows_new(size_t cap, const struct pf_sec *sec, uint64_t **vals)
{
	struct pf_row *x = calloc(cap + 1, sizeof(*x));
	*vals = calloc(cap * sec->nm * NV + 1, sizeof(**vals));
	if (x && *vals)
		return x;
	free(x);
	return NULL;
}

/* Has c ([nattrs]) samples of a member of sec? */
static int any_samples(const struct mp_hist_counts *c, const struct pf_sec *sec)
{
	for (size_t k = 0; k < sec->nm; k++)
		if (c[sec->attr[k]].samples)
			return 1;
	return 0;
}

/* Row x's values of member k from its own samples c, split by level (kernel, user). */
static void set_values(struct pf_row *x, size_t k, const struct mp_hist_counts *c, char level)
{
	uint64_t *xv = x->v + k * NV;
	xv[V_SAMPLES] = c->samples;
	xv[V_PERIOD] = c->period;
	xv[V_SYS] = level == 'k' ? c->period : 0;
	xv[V_US] = level == '.' ? c->period : 0;
}

/* Rows with samples of the members of sec, folded to the key fields of l (the
 * histogram's rows may be finer: the level for overhead_sys/overhead_us, the thread for
 * pid and comm). *vals as rows_new's. */
static struct pf_row *event_rows(const struct mp_hist_result *res, mp_sym *sym,
				 const struct pf_sec *sec, const unsigned char *l, size_t nl,
				 size_t *n, uint64_t **vals)
{
	struct pf_row *x = rows_new(res->nrows, sec, vals);
	size_t m = 0;
	int tcomm = has(l, nl, PF_PID) || has(l, nl, PF_COMM);
	for (size_t i = 0; x && i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!any_samples(r->c, sec))
			continue;
		x[m] = (struct pf_row){ r, tcomm ? mp_sym_comm_of(sym, r->pid, r->tid) : NULL,
					*vals + m * sec->nm * NV };
		for (size_t k = 0; k < sec->nm; k++)
			set_values(&x[m], k, &r->c[sec->attr[k]], r->level);
		m++;
	}
	*n = x ? fold(x, m, l, nl, sec->nm) : 0;
	return x;
}

/* The rows of the call graph's functions with samples of sec's members in their chains
 * (perf's entries with Children: a function with none of its own is a row too). hr:
 * [t->n] rows' keys, filled here; *vals as rows_new's. */
static struct pf_row *cg_rows(const struct mp_cg_table *t, struct mp_hist_row *hr,
			      const struct pf_sec *sec, size_t *n, uint64_t **vals)
{
	struct pf_row *x = rows_new(t->n, sec, vals);
	size_t m = 0;
	for (size_t i = 0; x && i < t->n; i++) {
		const struct mp_cg_entry *e = &t->e[i];
		if (!any_samples(e->children, sec))
			continue;
		hr[i] = (struct mp_hist_row){ .comm = e->comm, .dso = e->f.dso,
					      .dso_idx = e->f.dso_idx, .sym = e->f.sym,
					      .sym_resolved = e->f.sym_resolved,
					      .level = e->f.level };
		x[m] = (struct pf_row){ &hr[i], e->comm, *vals + m * sec->nm * NV };
		for (size_t k = 0; k < sec->nm; k++) {
			set_values(&x[m], k, &e->self[sec->attr[k]], e->f.level);
			x[m].v[k * NV + V_CHILDREN] = e->children[sec->attr[k]].period;
		}
		m++;
	}
	*n = m;
	return x;
}

/* ---- the flat table (-F) ---------------------------------------------------------------- */

static void dots(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fputc('.', f);
}

/* Each key column's width: its title or its widest cell. */
static void widths(const struct report_pf *pf, const struct pf_row *x, size_t n, size_t nm,
		   int nodso, int *w)
{
	char b[4096];
	for (int k = 0; k < PF_N; k++)
		w[k] = pfs[k].width ? pfs[k].width * (int)nm : (int)strlen(pfs[k].title);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < pf->nout; j++) {
			int k = pf->out[j];
			if (pfs[k].width)
				continue;
			int len = k == PF_PID    ? 8 + (int)strlen(str0(x[i].tcomm))
				  : k == PF_COMM ? (int)strlen(str0(x[i].tcomm))
						 : (int)strlen(cell(b, sizeof(b), k, &x[i], 0, 0));
			if (len > w[k])
				w[k] = len;
			/* an address no symbol holds: its object's column at least 16 wide */
			if (k == PF_SYM && !x[i].r->sym_resolved && w[PF_DSO] < 16 && !nodso)
				w[PF_DSO] = 16;
		}
}

static void print_flat(FILE *f, const struct report_opts *o, const struct report_pf *pf,
		       const struct pf_sec *sec, const struct pf_row *x, size_t n)
{
	int w[PF_N];
	char b[4096];
	size_t last = 0;
	widths(pf, x, n, sec->nm, o->filter.dsos != NULL, w);
	for (size_t j = 0; j < pf->nout; j++)
		if (!pf->elide[j])
			last = j;
	fputs("# ", f);
	for (size_t j = 0, first = 1; j < pf->nout; j++) {
		if (pf->elide[j])
			continue;
		int k = pf->out[j];
		fprintf(f, pfs[k].hk ? "%s%-*s" : "%s%*s", first ? "" : "  ", w[k],
			k == PF_OVERHEAD && pf->self ? "Self" : pfs[k].title);
		first = 0;
	}
	fputs("\n# ", f);
	for (size_t j = 0, first = 1; j < pf->nout; j++) {
		if (pf->elide[j])
			continue;
		fputs(first ? "" : "  ", f);
		dots(f, w[pf->out[j]]);
		first = 0;
	}
	fputs("\n#\n", f);
	for (size_t i = 0; i < n; i++) {
		if (o->threshold > 0 &&
		    report_pct(x[i].v[V_PERIOD], sec->total[0]) < o->threshold)
			continue;
		for (size_t j = 0; j < pf->nout; j++) {
			if (pf->elide[j])
				continue;
			int k = pf->out[j];
			cell(b, sizeof(b), k, &x[i], sec, w[k]);
			fprintf(f, "  %-*s", j < last || pfs[k].selfpad ? w[k] : 0, b);
		}
		fputc('\n', f);
	}
}

/* ---- the hierarchy (--hierarchy) ------------------------------------------------------- */

struct hier {
	FILE *f;
	const struct report_opts *o;
	const unsigned char *lv; /* the levels' fields */
	size_t nlv;
	const unsigned char *val; /* the overhead columns */
	size_t nval;
	const int *w;
	const struct pf_sec *sec;
};

/* One node: the rows x[0..n) share the keys of levels 0..depth; printed, then its
 * children, each level's nodes by overhead then by key. */
static int print_level(const struct hier *h, struct pf_row *x, size_t n, size_t depth)
{
	char b[4096];
	/* the nodes of this level: runs of rows equal in this level's key (x is sorted by
	 * the keys in level order) */
	size_t nn = 0, nv = h->sec->nm * NV;
	struct node {
		struct pf_row sum; /* the first row's keys, the values of all */
		size_t lo, hi;
	} *nd = calloc(n + 1, sizeof(*nd));
	uint64_t *sv = calloc(n * nv + 1, sizeof(*sv));
	if (!nd || !sv) {
		free(nd);
		free(sv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!nn || !same_key(h->lv[depth], &nd[nn - 1].sum, &x[i])) {
			nd[nn] = (struct node){ .sum = x[i], .lo = i, .hi = i + 1 };
			nd[nn].sum.v = sv + nn * nv;
			nn++;
		}
		for (size_t v = 0; v < nv; v++)
			nd[nn - 1].sum.v[v] += x[i].v[v];
		nd[nn - 1].hi = i + 1;
	}
	unsigned char ord[2] = { PF_OVERHEAD, h->lv[depth] };
	struct pf_ctx ctx = { ord, 2, h->sec->nm };
	qsort_r(nd, nn, sizeof(*nd), cmp_rows, &ctx); /* sum is the node's first member */
	int rc = 0;
	for (size_t i = 0; i < nn && !rc; i++) {
		const struct pf_row *s = &nd[i].sum;
		if (h->o->threshold > 0 &&
		    report_pct(s->v[V_PERIOD], h->sec->total[0]) < h->o->threshold)
			continue;
		fprintf(h->f, "%*s", (int)(depth * HIER_INDENT), "");
		for (size_t j = 0; j < h->nval; j++)
			fprintf(h->f, "  %s", cell(b, sizeof(b), h->val[j], s, h->sec, h->w[h->val[j]]));
		int k = h->lv[depth];
		cell(b, sizeof(b), k, s, h->sec, h->w[k]);
		const char *t = b + strspn(b, " ");
		fprintf(h->f, "%*s  %-*s\n", (int)((h->nlv - 1) * HIER_INDENT), "",
			pfs[k].selfpad ? h->w[k] - (int)(t - b) : 0, t);
		if (depth + 1 < h->nlv)
			rc = print_level(h, x + nd[i].lo, nd[i].hi - nd[i].lo, depth + 1);
	}
	free(nd);
	free(sv);
	return rc;
}

static int print_hier(FILE *f, const struct report_opts *o, const struct pf_sec *sec,
		      struct pf_row *x, size_t n)
{
	const struct report_pf *pf = &o->pf;
	unsigned char lv[REPORT_PF_MAX], val[REPORT_PF_MAX];
	size_t nlv = 0, nval = 0;
	int w[PF_N];
	for (size_t j = 0; j < pf->nout; j++) {
		if (pfs[pf->out[j]].hk)
			lv[nlv++] = pf->out[j];
		else
			val[nval++] = pf->out[j];
	}
	widths(pf, x, n, sec->nm, o->filter.dsos != NULL, w);
	/* the rows sorted by the keys in level order: each node's rows are one run */
	struct pf_ctx ctx = { lv, nlv, 0 };
	qsort_r(x, n, sizeof(*x), cmp_rows, &ctx);
	int indent = (int)(nlv - 1) * HIER_INDENT;
	fprintf(f, "# %*s", indent, "");
	for (size_t j = 0; j < nval; j++)
		fprintf(f, "%*s  ", w[val[j]], pfs[val[j]].title);
	int hw = 0;
	for (size_t j = 0; j < nlv; j++) {
		const char *t = pfs[lv[j]].title;
		hw += fprintf(f, "%s%s", j ? " / " : "", t + strspn(t, " "));
	}
	fputs("\n# ", f);
	dots(f, indent);
	for (size_t j = 0; j < nval; j++) {
		fputs(j ? ".." : "", f);
		dots(f, w[val[j]]);
	}
	for (size_t j = 0; j < nlv; j++)
		if ((int)(j * HIER_INDENT) + w[lv[j]] > hw)
			hw = (int)(j * HIER_INDENT) + w[lv[j]];
	fputs("  ", f);
	dots(f, hw);
	fputs("\n#\n", f);
	struct hier h = { f, o, lv, nlv, val, nval, w, sec };
	return print_level(&h, x, n, 0);
}

/* The section's head: perf's "# Samples: 4K" (above a thousand in K, M, G: its
 * convert_unit) of the event, or of a group's members summed. */
static void print_section(FILE *f, const mp_pd *pd, const struct pf_sec *sec,
			  const struct mp_hist_counts *tot)
{
	uint64_t v = 0, period = 0;
	for (size_t m = 0; m < sec->nm; m++) {
		v += tot[sec->attr[m]].samples;
		period += tot[sec->attr[m]].period;
	}
	char unit = ' ';
	for (const char *u = "KMG"; *u && v > 1000; u++) {
		v /= 1000;
		unit = *u;
	}
	size_t a = sec->attr[0], members = 0; /* a group's leader says "events", as perf */
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		members += mp_pd_attr(pd, i)->group_leader_idx == (int)a;
	const char *nm = mp_pd_attr(pd, a)->name;
	fprintf(f, "# Samples: %" PRIu64 "%c of event%s '", v, unit, members > 1 ? "s" : "");
	if (sec->nm > 1) {
		fputs("anon group {", f);
		for (size_t m = 0; m < sec->nm; m++)
			fprintf(f, "%s %s", m ? "," : "", mp_pd_attr(pd, sec->attr[m])->name);
		fputs(" }", f);
	} else
		fputs(nm ? nm : "?", f);
	fprintf(f, "'\n# Event count (approx.): %" PRIu64 "\n#\n", period);
}

/* The events of the table starting at ev[j] (perf's group view: a group's leader with
 * all its members shown, unless --no-group). 0: ev[j] is in a group's table already. */
static int section_of(const struct report_opts *o, const mp_pd *pd, const size_t *ev,
		      size_t nev, size_t j, struct pf_sec *sec)
{
	size_t a = ev[j];
	int lead = mp_pd_attr(pd, a)->group_leader_idx;
	*sec = (struct pf_sec){ .attr = { a }, .nm = 1 };
	if (o->no_group)
		return 1;
	if (lead != (int)a) { /* a member: in its leader's table when that one is made */
		struct pf_sec ls;
		for (size_t i = 0; i < nev; i++)
			if (ev[i] == (size_t)lead && lead >= 0)
				return !section_of(o, pd, ev, nev, i, &ls) || ls.nm < 2;
		return 1;
	}
	size_t nm = 0, shown = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		if (mp_pd_attr(pd, i)->group_leader_idx == (int)a) {
			for (size_t k = 0; k < nev; k++)
				shown += ev[k] == i;
			if (nm < PF_GMAX)
				sec->attr[nm] = i;
			nm++;
		}
	if (nm > 1 && nm <= PF_GMAX && shown == nm)
		sec->nm = nm;
	else
		sec->attr[0] = a;
	return 1;
}

int report_pf_print(FILE *f, const struct report_opts *o, const mp_pd *pd, mp_sym *sym,
		    const struct mp_cg_table *cgt, const struct mp_hist_result *res,
		    const struct mp_hist_counts *tot, const size_t *ev, size_t nev)
{
	struct report_pf pf = o->pf;
	if (!cgt && has(pf.out, pf.nout, PF_CHILDREN)) {
		cli_error(CMD, "-F overhead_children: %s has no call chains read (record -g; not "
			  "with --no-children or filters)", o->input);
		return -EINVAL;
	}
	if (cgt && !pf.strict && pf.nout < REPORT_PF_MAX) {
		/* perf's default columns with call chains: Children, Self, rows by Children */
		memmove(pf.out + 1, pf.out, pf.nout++);
		memmove(pf.elide + 1, pf.elide, pf.nout - 1);
		memmove(pf.sort + 1, pf.sort, pf.nsort++);
		pf.out[0] = pf.sort[0] = PF_CHILDREN;
		pf.elide[0] = 0;
		pf.self = 1;
	}
	struct mp_hist_row *hr = cgt ? calloc(cgt->n + 1, sizeof(*hr)) : NULL;
	if (cgt && !hr)
		return -ENOMEM;
	int rc = 0;
	for (size_t j = 0; j < nev && !rc; j++) {
		struct pf_sec sec;
		if (!section_of(o, pd, ev, nev, j, &sec))
			continue;
		uint64_t any = 0;
		for (size_t m = 0; m < sec.nm; m++) {
			sec.total[m] = tot[sec.attr[m]].period;
			any |= tot[sec.attr[m]].samples;
		}
		if (!any)
			continue;
		size_t n;
		uint64_t *vals = NULL;
		struct pf_row *x = cgt ? cg_rows(cgt, hr, &sec, &n, &vals)
				       : event_rows(res, sym, &sec, pf.out, pf.nout, &n, &vals);
		if (!x) {
			free(vals);
			rc = -ENOMEM;
			break;
		}
		struct pf_ctx ctx = { pf.sort, pf.nsort, sec.nm };
		qsort_r(x, n, sizeof(*x), cmp_rows, &ctx);
		print_section(f, pd, &sec, tot);
		if (o->hierarchy)
			rc = print_hier(f, o, &sec, x, n);
		else
			print_flat(f, o, &pf, &sec, x, n);
		free(x);
		free(vals);
		if (!rc)
			fputs("\n\n", f);
	}
	free(hr);
	return rc;
}

/* ---- -T -------------------------------------------------------------------------------- */

void report_print_threads(FILE *f, const mp_pd *pd)
{
	size_t nc = mp_pd_nr_task_counts(pd), nt = 0, ne = 0;
	int32_t(*th)[2] = calloc(nc + 1, sizeof(*th));
	size_t *evs = calloc(nc + 1, sizeof(*evs)), *at = calloc(nc + 1, 2 * sizeof(size_t));
	uint64_t *val = NULL;
	int *we = NULL;
	/* threads and events in the order they first came (as perf) */
	for (size_t i = 0; th && evs && at && i < nc; i++) {
		struct mp_pd_task_count c;
		mp_pd_task_count(pd, i, &c);
		size_t t = 0, e = 0;
		while (t < nt && (th[t][0] != c.pid || th[t][1] != c.tid))
			t++;
		if (t == nt) {
			th[nt][0] = c.pid;
			th[nt++][1] = c.tid;
		}
		while (e < ne && evs[e] != c.attr_idx)
			e++;
		if (e == ne)
			evs[ne++] = c.attr_idx;
		at[2 * i] = t;
		at[2 * i + 1] = e;
	}
	if (th && evs && at) {
		val = calloc(nt * ne + 1, sizeof(*val));
		we = calloc(ne + 1, sizeof(*we));
	}
	if (!val || !we) {
		fprintf(f, "# PID  TID: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < nc; i++) { /* each thread's values of an event summed */
		struct mp_pd_task_count c;
		mp_pd_task_count(pd, i, &c);
		val[at[2 * i] * ne + at[2 * i + 1]] += c.c.val;
	}
	int wp = 3, wt = 3;
	char b[32];
	for (size_t e = 0; e < ne; e++)
		we[e] = (int)strlen(mp_pd_attr(pd, evs[e])->name);
	for (size_t t = 0; t < nt; t++) {
		int l = snprintf(b, sizeof(b), "%d", th[t][0]);
		wp = l > wp ? l : wp;
		l = snprintf(b, sizeof(b), "%d", th[t][1]);
		wt = l > wt ? l : wt;
		for (size_t e = 0; e < ne; e++) {
			l = snprintf(b, sizeof(b), "%" PRIu64, val[t * ne + e]);
			we[e] = l > we[e] ? l : we[e];
		}
	}
	fprintf(f, "# %*s  %*s", wp, "PID", wt, "TID");
	for (size_t e = 0; e < ne; e++)
		fprintf(f, "  %*s", we[e], mp_pd_attr(pd, evs[e])->name);
	fputc('\n', f);
	for (size_t t = 0; t < nt; t++) {
		fprintf(f, "  %*d  %*d", wp, th[t][0], wt, th[t][1]);
		for (size_t e = 0; e < ne; e++)
			fprintf(f, "  %*" PRIu64, we[e], val[t * ne + e]);
		fputc('\n', f);
	}
out:
	free(we);
	free(val);
	free(th);
	free(evs);
	free(at);
}
