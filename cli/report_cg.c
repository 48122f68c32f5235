/* report_cg.c - memprof report with call chains: the Children/Self table and the call
 * trees under each entry as perf report -g prints them (graph, flat, folded), the csv and
 * json forms of the same, and --folded stacks for flame graphs. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memprof/callgraph.h"

/* -g as perf spells it: comma-separated, in any order: graph|flat|folded|none, a minimum
 * percentage, caller|callee, function (the one key), percent (the one value). */
int report_cg_parse(const char *spec, struct report_cg *o, char *err, size_t errlen)
{
	char tok[64];
	int nums = 0;
	for (const char *p = spec; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n >= sizeof(tok)) {
			snprintf(err, errlen, "'%.*s': too long", (int)n, p);
			return -EINVAL;
		}
		memcpy(tok, p, n);
		tok[n] = 0;
		p += n + (p[n] == ',');
		char *end;
		double v = strtod(tok, &end);
		if (!n)
			continue;
		if (*end == 0 && end != tok) {
			if (nums++ || v < 0 || v > 100 || isnan(v)) {
				snprintf(err, errlen, "'%s': one minimum percentage between 0 and 100",
					 tok);
				return -EINVAL;
			}
			o->min_pct = v;
		} else if (!strcmp(tok, "graph")) {
			o->mode = REPORT_CG_GRAPH;
		} else if (!strcmp(tok, "flat")) {
			o->mode = REPORT_CG_FLAT;
		} else if (!strcmp(tok, "folded")) {
			o->mode = REPORT_CG_FOLDED;
		} else if (!strcmp(tok, "none")) {
			o->mode = REPORT_CG_NONE;
		} else if (!strcmp(tok, "caller")) {
			o->callee = 0;
			o->order_set = 1;
		} else if (!strcmp(tok, "callee")) {
			o->callee = 1;
			o->order_set = 1;
		} else if (!strcmp(tok, "function") || !strcmp(tok, "percent")) {
			/* the defaults, and the only ones */
		} else {
			snprintf(err, errlen, "unknown '%s' (graph, flat, folded, none, a minimum "
				 "percentage, caller, callee)", tok);
			return -EINVAL;
		}
	}
	return 0;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* A frame's name as perf's call chains print it: the symbol, or the address. */
static const char *fr_name(const struct mp_cg_frame *f, char *buf, size_t n)
{
	if (f->sym_resolved) {
		if (!f->inlined)
			return f->sym;
		snprintf(buf, n, "%s (inlined)", f->sym);
		return buf;
	}
	snprintf(buf, n, "%#" PRIx64, f->ip);
	return buf;
}

struct gp {
	FILE *f;
	mp_cg *cg;
	const struct mp_cg_tree *tr;
	size_t attr;
	uint64_t total, min_hit;
	uint64_t parent; /* the entry's own total: children, or self without children */
};

/* The least count of a node of a call tree that is shown: o's minimum percent of the
 * event's total */
static uint64_t min_hit(mp_cg *cg, size_t attr, const struct report_cg *o)
{
	return (uint64_t)((double)mp_cg_total(cg, attr).period * o->min_pct / 100.0);
}

/* Entry i's call tree of the first event into *tr (the caller finishes it with
 * mp_cg_tree_fini) and the context that prints it into *g, written to f; parent: the entry's
 * own total. 0 or the negative error of mp_cg_tree. */
static int entry_tree(FILE *f, mp_cg *cg, const struct mp_cg_table *t, size_t i,
		      const size_t *ev, const struct report_cg *o, uint64_t parent,
		      struct mp_cg_tree *tr, struct gp *g)
{
	struct mp_cg_tree_opts to = { .callee = o->callee, .children = o->children,
				      .sort_attr = ev[0] };
	int rc = mp_cg_tree(cg, t, i, &to, tr);
	if (rc)
		return rc;
	uint64_t tot = mp_cg_total(cg, ev[0]).period;
	*g = (struct gp){ .f = f,
			  .cg = cg,
			  .tr = tr,
			  .attr = ev[0],
			  .total = tot,
			  .min_hit = min_hit(cg, ev[0], o),
			  .parent = parent };
	return 0;
}

static uint64_t cum(const struct gp *g, uint32_t n)
{
	return g->tr->nodes[n].cumul[g->attr].period;
}

static uint64_t hit(const struct gp *g, uint32_t n)
{
	return g->tr->nodes[n].hit[g->attr].period;
}

/* Children of n in this event's tree (those with a count), as perf's radix tree has them. */
static size_t nchildren(const struct gp *g, uint32_t n, uint32_t *only)
{
	size_t k = 0;
	for (uint32_t c = g->tr->nodes[n].first_child; c != UINT32_MAX; c = g->tr->nodes[c].next)
		if (cum(g, c)) {
			k++;
			*only = c;
		}
	return k;
}

/* perf's compressed node: n and the single children after it, up to a node that has
 * samples of its own or several children. Returns the last node of the run. */
static uint32_t run_end(const struct gp *g, uint32_t n)
{
	uint32_t only;
	while (!hit(g, n) && nchildren(g, n, &only) == 1)
		n = only;
	return n;
}

/* The nodes of the run from first down to end (run_end), first to last, malloc'd; *len their
 * number. NULL when out of memory. */
static uint32_t *run_nodes(const struct gp *g, uint32_t first, uint32_t end, size_t *len)
{
	size_t n = 1;
	for (uint32_t k = end; k != first; k = g->tr->nodes[k].parent)
		n++;
	uint32_t *run = malloc(n * sizeof(*run));
	if (!run)
		return NULL;
	*len = n;
	for (uint32_t k = end;; k = g->tr->nodes[k].parent) {
		run[--n] = k;
		if (k == first)
			break;
	}
	return run;
}

static void margin(const struct gp *g, int lm)
{
	fprintf(g->f, "            %*s", lm, "");
}

static void print_name(const struct gp *g, uint32_t n)
{
	char buf[1024];
	fputs(fr_name(mp_cg_fn(g->cg, g->tr->nodes[n].fn), buf, sizeof(buf)), g->f);
	fputc('\n', g->f);
}

/* The shown (above the limit) children of a node, or of the top when n = UINT32_MAX. */
static size_t shown(const struct gp *g, uint32_t n, uint32_t *out, size_t cap)
{
	size_t k = 0;
	uint32_t c = n == UINT32_MAX ? g->tr->first : g->tr->nodes[n].first_child;
	for (; c != UINT32_MAX; c = g->tr->nodes[c].next)
		if (cum(g, c) && cum(g, c) >= g->min_hit) {
			if (k < cap)
				out[k] = c;
			k++;
		}
	return k;
}

static void graph_rec(const struct gp *g, uint32_t parent, int depth, unsigned mask, int lm)
{
	size_t k = shown(g, parent, NULL, 0);
	uint32_t *v = malloc((k + 1) * sizeof(*v));
	if (!v)
		return;
	shown(g, parent, v, k);
	unsigned nmask = mask;
	for (size_t i = 0; i < k; i++) {
		if (i + 1 == k)
			nmask &= ~(1u << (depth - 1));
		/* the separator line keeps the older mask */
		margin(g, lm);
		for (int d = 0; d < depth; d++)
			fputs(mask & (1u << d) ? "|          " : "           ", g->f);
		fputc('\n', g->f);
		uint32_t end = run_end(g, v[i]);
		int idx = 0;
		size_t len;
		uint32_t *run = run_nodes(g, v[i], end, &len);
		if (!run)
			break;
		for (size_t j = 0; j < len; j++, idx++) {
			margin(g, lm);
			for (int d = 0; d < depth; d++) {
				fputc(nmask & (1u << d) ? '|' : ' ', g->f);
				if (!idx && d == depth - 1)
					fprintf(g->f, "--%.2f%%--", pct(cum(g, v[i]), g->total));
				else
					fputs("          ", g->f);
			}
			print_name(g, run[j]);
		}
		free(run);
		graph_rec(g, end, depth + 1, nmask | (1u << depth), lm);
	}
	free(v);
}

static void print_graph(const struct gp *g)
{
	uint32_t top;
	int lm = 0;
	size_t k = shown(g, UINT32_MAX, &top, 1);
	if (!k)
		return;
	/* one chain that holds all of the entry: drawn without its percentage (perf) */
	if (k == 1 && cum(g, top) == g->parent) {
		uint32_t end = run_end(g, top);
		size_t len;
		uint32_t *run = run_nodes(g, top, end, &len);
		if (!run)
			return;
		margin(g, 0);
		fputs("|\n", g->f);
		margin(g, 0);
		fputs("---", g->f);
		lm = 3;
		print_name(g, run[0]);
		for (size_t j = 1; j < len; j++) {
			margin(g, lm);
			print_name(g, run[j]);
		}
		free(run);
		graph_rec(g, end, 1, 1, lm);
	} else {
		graph_rec(g, UINT32_MAX, 1, 1, lm);
	}
	fputc('\n', g->f);
}

/* flat and folded: the nodes with samples of their own above the limit, most first */
struct hnode {
	uint32_t n;
	uint64_t hit;
};

static int hnode_cmp(const void *pa, const void *pb)
{
	const struct hnode *a = pa, *b = pb;
	if (a->hit != b->hit)
		return a->hit > b->hit ? -1 : 1;
	return a->n < b->n ? -1 : a->n > b->n;
}

/* The nodes from the top down to n, malloc'd; *len their number. NULL when out of
 * memory. (A loop, not a recursion: chains thousands of frames deep overflowed the stack
 * with a name buffer per frame.) */
static uint32_t *path_nodes(const struct gp *g, uint32_t n, size_t *len)
{
	uint32_t top = n;
	while (g->tr->nodes[top].parent != UINT32_MAX)
		top = g->tr->nodes[top].parent;
	return run_nodes(g, top, n, len);
}

static void print_path(const struct gp *g, uint32_t n, int folded)
{
	char buf[1024];
	size_t len;
	uint32_t *path = path_nodes(g, n, &len);
	for (size_t i = 0; path && i < len; i++) {
		const char *nm = fr_name(mp_cg_fn(g->cg, g->tr->nodes[path[i]].fn), buf, sizeof(buf));
		if (folded)
			fprintf(g->f, "%s%s", i ? ";" : "", nm);
		else
			fprintf(g->f, "                %s\n", nm);
	}
	free(path);
}

static void print_flat(const struct gp *g, int folded)
{
	size_t k = 0;
	struct hnode *v = malloc((g->tr->n + 1) * sizeof(*v));
	if (!v)
		return;
	for (uint32_t n = 0; n < g->tr->n; n++)
		if (hit(g, n) && hit(g, n) >= g->min_hit)
			v[k++] = (struct hnode){ n, hit(g, n) };
	qsort(v, k, sizeof(*v), hnode_cmp);
	for (size_t i = 0; i < k; i++) {
		if (folded) {
			fprintf(g->f, "%.2f%% ", pct(v[i].hit, g->total));
			print_path(g, v[i].n, 1);
			fputc('\n', g->f);
		} else {
			fprintf(g->f, "           %.2f%%\n", pct(cum(g, v[i].n), g->total));
			print_path(g, v[i].n, 0);
			fputc('\n', g->f);
		}
	}
	if (k && folded)
		fputc('\n', g->f);
	free(v);
}

static int entry_above(const struct mp_cg_entry *e, const struct mp_cg *cg, const size_t *ev,
		       size_t nev, double thr)
{
	if (thr <= 0)
		return 1;
	for (size_t j = 0; j < nev; j++)
		if (pct(e->children[ev[j]].period, mp_cg_total(cg, ev[j]).period) >= thr)
			return 1;
	return 0;
}

/* An entry's symbol as perf's Symbol column names it: an inlined function with
 * " (inlined)" after it (csv and json the same). */
static const char *entry_name(const struct mp_cg_entry *e, char *buf, size_t n)
{
	if (!e->f.inlined)
		return e->f.sym;
	snprintf(buf, n, "%s (inlined)", e->f.sym);
	return buf;
}

static void fmt_entry_sym(const struct mp_cg_entry *e, char *buf, size_t n, int full)
{
	char sh[1024], nb[4096];
	const char *nm = entry_name(e, nb, sizeof(nb));
	if (!full && strlen(nm) > 56 && strchr(nm, '<')) {
		mp_sym_short_name(nm, sh, sizeof(sh));
		nm = sh;
	}
	snprintf(buf, n, "[%c] %s", e->f.level ? e->f.level : '.', nm);
}

/* perf's --no-children order: the entry's own samples of the sorting event, then of the
 * others, then the name (the table's order: children first) */
struct self_sort {
	const struct mp_cg_table *t;
	const size_t *ev;
	size_t nev;
	const char *keys;
};

static int self_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct self_sort *s = ctx;
	const struct mp_cg_entry *a = &s->t->e[*(const size_t *)pa];
	const struct mp_cg_entry *b = &s->t->e[*(const size_t *)pb];
	for (size_t j = 0; j < s->nev; j++)
		if (a->self[s->ev[j]].period != b->self[s->ev[j]].period)
			return a->self[s->ev[j]].period > b->self[s->ev[j]].period ? -1 : 1;
	/* ties by the keys in their order, as perf and the table without call chains */
	for (const char *k = s->keys; *k; k++) {
		/* an unresolved symbol (perf's NULL) after every named one, as perf's cmp_null */
		int c = *k == 'c'   ? strcmp(a->comm ? a->comm : "", b->comm ? b->comm : "")
			: *k == 'd' ? strcmp(a->f.dso, b->f.dso)
			: a->f.sym_resolved != b->f.sym_resolved ? (a->f.sym_resolved ? -1 : 1)
				    : strcmp(a->f.sym, b->f.sym);
		if (c)
			return c;
	}
	return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* The entries shown, in the order shown, malloc'd (*n of them): above the threshold; with
 * --no-children those with samples of their own, by them. NULL when out of memory. */
static size_t *shown_entries(mp_cg *cg, const struct mp_cg_table *t, const size_t *ev,
			     size_t nev, const struct report_cg *o, const char *keys, double thr,
			     size_t *n, size_t *hidden)
{
	size_t *v = malloc((t->n + 1) * sizeof(*v)), k = 0;
	*hidden = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct mp_cg_entry *e = &t->e[i];
		int own = 0;
		for (size_t j = 0; j < nev; j++)
			own |= e->self[ev[j]].samples || e->self[ev[j]].period;
		if (!o->children && !own)
			continue;
		int above = thr <= 0;
		for (size_t j = 0; j < nev && !above; j++)
			above = pct((o->children ? e->children : e->self)[ev[j]].period,
				    mp_cg_total(cg, ev[j]).period) >= thr;
		if (above)
			v[k++] = i;
		else
			(*hidden)++;
	}
	if (!o->children) {
		struct self_sort ss = { t, ev, nev, keys };
		qsort_r(v, k, sizeof(*v), self_cmp, &ss);
	}
	*n = k;
	return v;
}

int report_cg_print_table(FILE *f, mp_cg *cg, const struct mp_cg_table *t, const mp_pd *pd,
			  const size_t *ev, size_t nev, const struct report_cg *o, double thr,
			  int full)
{
	size_t wcomm = 7, wdso = 13, wsym = 6, nshow, hidden;
	int comm = t->n && t->e[0].comm;
	char buf[4096];
	/* the key columns in --sort's order (comm, dso, sym by default) */
	const char *order = o->order[0] ? o->order : "cds";
	char keys[8];
	size_t nk = 0;
	for (const char *c = order; *c && nk + 1 < sizeof(keys); c++)
		if (*c != 'c' || comm)
			keys[nk++] = *c;
	keys[nk] = 0;
	size_t *show = shown_entries(cg, t, ev, nev, o, keys, thr, &nshow, &hidden);
	if (!show)
		return -ENOMEM;
	for (size_t k = 0; k < nshow; k++) {
		const struct mp_cg_entry *e = &t->e[show[k]];
		if (e->comm && strlen(e->comm) > wcomm)
			wcomm = strlen(e->comm);
		if (strlen(e->f.dso) > wdso)
			wdso = strlen(e->f.dso);
		fmt_entry_sym(e, buf, sizeof(buf), full);
		if (strlen(buf) > wsym)
			wsym = strlen(buf);
	}
	if (wdso > 48)
		wdso = 48;
	static const char *const mn[] = { "graph", "flat", "folded", "none" };
	fprintf(f, "# By ");
	for (const char *c = keys; *c; c++)
		fprintf(f, "%s%s", c == keys ? "" : ",", *c == 'c' ? "comm" : *c == 'd' ? "dso" : "sym");
	fprintf(f, ", %s (call chains: %s, %s, %g%%%s)\n#\n",
		o->children ? "with children" : "self only", mn[o->mode],
		o->callee ? "callee" : "caller", o->min_pct,
		o->max_stack ? ", max-stack" : "");
	if (o->max_stack)
		fprintf(f, "# (chains cut to %u addresses)\n#\n", o->max_stack);
	/* the event names over their columns: 29 wide with children, 19 without (as the
	 * table without call chains) */
	int wev = o->children ? 29 : 19;
	fputc('#', f);
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const char *nm = a->spec && *a->spec ? a->spec : a->name;
		fprintf(f, " %-*.*s", wev, wev, nm ? nm : "?");
	}
	fputc('\n', f);
	fputc('#', f);
	for (size_t j = 0; j < nev; j++) {
		if (o->children)
			fprintf(f, " %9s %9s %9s", "Children", "Self", "Samples");
		else
			fprintf(f, " %9s %9s", "Samples", "Overhead");
	}
	for (const char *c = keys; *c; c++) {
		int last = !c[1];
		if (*c == 'c')
			fprintf(f, "  %-*s", last ? 0 : (int)wcomm, "Command");
		else if (*c == 'd')
			fprintf(f, "  %-*s", last ? 0 : (int)wdso, "Shared Object");
		else
			fprintf(f, "  %-*s", last ? 0 : (int)wsym, "Symbol");
	}
	fprintf(f, "\n#\n");
	for (size_t k = 0; k < nshow; k++) {
		size_t i = show[k];
		const struct mp_cg_entry *e = &t->e[i];
		fputc(' ', f);
		for (size_t j = 0; j < nev; j++) {
			uint64_t tot = mp_cg_total(cg, ev[j]).period;
			if (o->children)
				fprintf(f, " %8.2f%% %8.2f%% %9" PRIu64,
					pct(e->children[ev[j]].period, tot),
					pct(e->self[ev[j]].period, tot), e->self[ev[j]].samples);
			else
				fprintf(f, " %9" PRIu64 " %8.2f%%", e->self[ev[j]].samples,
					pct(e->self[ev[j]].period, tot));
		}
		fmt_entry_sym(e, buf, sizeof(buf), full);
		for (const char *c = keys; *c; c++) {
			int last = !c[1];
			if (*c == 'c')
				fprintf(f, "  %-*s", last ? 0 : (int)wcomm, e->comm ? e->comm : "");
			else if (*c == 'd')
				fprintf(f, "  %-*s", last ? 0 : (int)wdso, e->f.dso);
			else
				fprintf(f, "  %-*s", last ? 0 : (int)wsym, buf);
		}
		fputc('\n', f);
		if (o->mode == REPORT_CG_NONE || !nev)
			continue;
		/* its tree's nodes count at most the entry's own total: below the limit, none
		 * would be shown (most rows of a recording with many stacks), so none is built */
		uint64_t own = (o->children ? e->children : e->self)[ev[0]].period;
		if (!own || own < min_hit(cg, ev[0], o))
			continue;
		struct mp_cg_tree tr;
		struct gp g;
		int rc = entry_tree(f, cg, t, i, ev, o, own, &tr, &g);
		if (rc) {
			free(show);
			return rc;
		}
		if (o->mode == REPORT_CG_GRAPH)
			print_graph(&g);
		else
			print_flat(&g, o->mode == REPORT_CG_FOLDED);
		mp_cg_tree_fini(&tr);
	}
	free(show);
	if (hidden)
		fprintf(f, "# (%zu rows below %.2f%% not shown)\n", hidden, thr);
	fprintf(f, "\n");
	return 0;
}

void report_cg_print_csv(FILE *f, mp_cg *cg, const struct mp_cg_table *t, const mp_pd *pd,
			 const size_t *ev, size_t nev, double thr)
{
	char buf[4096];
	int comm = t->n && t->e[0].comm;
	if (mp_pd_sim_banner(pd, buf, sizeof(buf)))
		fprintf(stderr, "memprof report: %s\n", buf); /* csv starts with its header row */
	fputs(comm ? "comm,dso,level,sym" : "dso,level,sym", f);
	static const char *const col[] = { "samples", "period", "%", "children samples",
					   "children period", "children %" };
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const char *nm = a->spec && *a->spec ? a->spec : a->name;
		for (size_t k = 0; k < 6; k++) {
			snprintf(buf, sizeof(buf), "%s %s", nm, col[k]);
			fputc(',', f);
			cli_csv_str(f, buf);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->n; i++) {
		const struct mp_cg_entry *e = &t->e[i];
		if (!entry_above(e, cg, ev, nev, thr))
			continue;
		if (comm) {
			cli_csv_str(f, e->comm);
			fputc(',', f);
		}
		cli_csv_str(f, e->f.dso);
		fprintf(f, ",%c,", e->f.level ? e->f.level : '.');
		cli_csv_str(f, entry_name(e, buf, sizeof(buf)));
		for (size_t j = 0; j < nev; j++) {
			uint64_t tot = mp_cg_total(cg, ev[j]).period;
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.4f,%" PRIu64 ",%" PRIu64 ",%.4f",
				e->self[ev[j]].samples, e->self[ev[j]].period,
				pct(e->self[ev[j]].period, tot), e->children[ev[j]].samples,
				e->children[ev[j]].period, pct(e->children[ev[j]].period, tot));
		}
		fputc('\n', f);
	}
}

/* An entry's call tree: the nodes above the limit, root first, of the first event. */
static int json_callchains(struct cli_json *j, mp_cg *cg, const struct mp_cg_table *t,
			   size_t i, const size_t *ev, const struct report_cg *o)
{
	struct mp_cg_tree tr;
	struct gp g;
	/* no node above the limit when the entry's own total is under it: no tree built
	 * (report_cg_print_table's rule) */
	uint64_t own = (o->children ? t->e[i].children : t->e[i].self)[ev[0]].period;
	if (!own || own < min_hit(cg, ev[0], o)) {
		cli_json_open(j, "callchains", '[', CLI_JSON_LINES_OPEN);
		cli_json_close(j);
		return 0;
	}
	int rc = entry_tree(j->f, cg, t, i, ev, o, 0, &tr, &g);
	if (rc)
		return rc;
	/* each node names its own function and the node above it by its index in the list
	 * (a node above the limit has its callers above it too, and the tree makes a parent
	 * before its children): the list grows with the number of nodes, where each node's
	 * whole stack grew with their depth squared */
	uint32_t *at = malloc((tr.n + 1) * sizeof(*at));
	if (!at) {
		mp_cg_tree_fini(&tr);
		return -ENOMEM;
	}
	uint32_t shown = 0;
	char buf[1024];
	cli_json_open(j, "callchains", '[', CLI_JSON_LINES_OPEN);
	for (uint32_t n = 0; n < tr.n; n++) {
		at[n] = UINT32_MAX;
		if (!cum(&g, n) || cum(&g, n) < g.min_hit)
			continue;
		at[n] = shown++;
		uint32_t up = tr.nodes[n].parent;
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(j, "sym", fr_name(mp_cg_fn(cg, tr.nodes[n].fn), buf, sizeof(buf)));
		cli_json_value(j, "parent", "%" PRId64,
			       up == UINT32_MAX || at[up] == UINT32_MAX ? (int64_t)-1 : (int64_t)at[up]);
		cli_json_value(j, "samples", "%" PRIu64, tr.nodes[n].cumul[ev[0]].samples);
		cli_json_value(j, "period", "%" PRIu64, cum(&g, n));
		cli_json_value(j, "percent", "%.4f", pct(cum(&g, n), g.total));
		cli_json_value(j, "self_samples", "%" PRIu64, tr.nodes[n].hit[ev[0]].samples);
		cli_json_value(j, "self_period", "%" PRIu64, hit(&g, n));
		cli_json_close(j);
	}
	cli_json_close(j);
	free(at);
	mp_cg_tree_fini(&tr);
	return 0;
}

/* The rows of the json report in children mode: self as today's rows, children beside,
 * and each entry's call tree. */
int report_cg_print_json_rows(struct cli_json *j, mp_cg *cg, const struct mp_cg_table *t,
			      const size_t *ev, size_t nev, const struct report_cg *o, double thr)
{
	static const char *const nm[] = { "samples", "period", "percent", "children_samples",
					  "children_period", "children_percent" };
	for (size_t i = 0; i < t->n; i++) {
		const struct mp_cg_entry *e = &t->e[i];
		if (!entry_above(e, cg, ev, nev, thr))
			continue;
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		if (e->comm)
			cli_json_string(j, "comm", e->comm);
		cli_json_string(j, "dso", e->f.dso);
		char nb[4096];
		cli_json_value(j, "level", "\"%c\"", e->f.level ? e->f.level : '.');
		cli_json_string(j, "sym", entry_name(e, nb, sizeof(nb)));
		cli_json_bool(j, "inlined", e->f.inlined);
		cli_json_bool(j, "sym_resolved", e->f.sym_resolved);
		for (size_t k = 0; k < 6; k++) {
			cli_json_open(j, nm[k], '[', CLI_JSON_INLINE);
			for (size_t x = 0; x < nev; x++) {
				const struct mp_hist_counts *c = k < 3 ? &e->self[ev[x]]
								       : &e->children[ev[x]];
				uint64_t tot = mp_cg_total(cg, ev[x]).period;
				if (k % 3 == 0)
					cli_json_value(j, NULL, "%" PRIu64, c->samples);
				else if (k % 3 == 1)
					cli_json_value(j, NULL, "%" PRIu64, c->period);
				else
					cli_json_value(j, NULL, "%.4f", pct(c->period, tot));
			}
			cli_json_close(j);
		}
		int rc = o->mode != REPORT_CG_NONE && nev ? json_callchains(j, cg, t, i, ev, o) : 0;
		if (rc)
			return rc;
		cli_json_close(j);
	}
	return 0;
}

/* --folded: one line per distinct stack ("comm;root;...;leaf count"), the format of
 * FlameGraph's stackcollapse scripts. */
struct fold {
	size_t attr;
	int period;
	char **lines;
	uint64_t *cnt;
	size_t n, cap;
	int err;
};

static int fold_stack(void *ctx, const struct mp_cg_stack *st)
{
	struct fold *fd = ctx;
	if (fd->attr >= st->nattrs)
		return 0;
	uint64_t c = fd->period ? st->c[fd->attr].period : st->c[fd->attr].samples;
	if (!c)
		return 0;
	char *line = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&line, &len);
	if (!m)
		return -ENOMEM;
	int any = st->comm != NULL;
	char nb[4096];
	if (any)
		fputs(cli_nl(st->comm, nb, sizeof(nb)), m);
	for (size_t i = 0; i < st->nframes; i++, any = 1) {
		const struct mp_cg_frame *fr = &st->frames[i];
		/* as perf script names them (so that FlameGraph's folding of it matches); a
		 * newline in a name would start a forged stack */
		fprintf(m, "%s%s%s", any ? ";" : "",
			fr->sym_resolved ? cli_nl(fr->sym, nb, sizeof(nb)) : "[unknown]",
			fr->inlined ? " (inlined)" : "");
	}
	if (fclose(m) || !line) {
		free(line);
		return -ENOMEM;
	}
	if (MP_GROW2(fd->lines, fd->cnt, fd->cap, fd->n + 1)) {
		free(line);
		return -ENOMEM;
	}
	fd->lines[fd->n] = line;
	fd->cnt[fd->n++] = c;
	return 0;
}

static int idx_cmp(const void *pa, const void *pb, void *ctx)
{
	char **l = ctx;
	return strcmp(l[*(const size_t *)pa], l[*(const size_t *)pb]);
}

int report_cg_folded(FILE *f, mp_cg *cg, size_t attr, int period, int inline_frames)
{
	struct fold fd = { .attr = attr, .period = period };
	struct mp_cg_iter_opts io = { .inline_frames = inline_frames };
	int rc = mp_cg_foreach_stack(cg, &io, fold_stack, &fd);
	size_t *ord = rc ? NULL : malloc((fd.n + 1) * sizeof(*ord));
	if (!rc && !ord)
		rc = -ENOMEM;
	if (!rc) {
		for (size_t i = 0; i < fd.n; i++)
			ord[i] = i;
		qsort_r(ord, fd.n, sizeof(*ord), idx_cmp, fd.lines);
		/* stacks that differ only in what the names leave out ([unknown]) fold into one */
		for (size_t i = 0; i < fd.n;) {
			uint64_t c = 0;
			size_t j = i;
			for (; j < fd.n && !strcmp(fd.lines[ord[j]], fd.lines[ord[i]]); j++)
				c += fd.cnt[ord[j]];
			fprintf(f, "%s %" PRIu64 "\n", fd.lines[ord[i]], c);
			i = j;
		}
	}
	for (size_t i = 0; i < fd.n; i++)
		free(fd.lines[i]);
	free(fd.lines);
	free(fd.cnt);
	free(ord);
	return rc;
}

int report_pick_event(const mp_pd *pd, const size_t *ev, size_t nev, const char *want,
		      size_t *idx)
{
	char *end;
	unsigned long n = strtoul(want, &end, 10);
	if (*want && !*end) {
		if (n >= nev)
			return -ENOENT;
		*idx = n;
		return 0;
	}
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		if ((a->spec && !strcmp(a->spec, want)) || (a->name && !strcmp(a->name, want))) {
			*idx = j;
			return 0;
		}
	}
	return -ENOENT;
}
