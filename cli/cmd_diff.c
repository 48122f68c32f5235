/* memprof diff: two or more recordings side by side, as perf diff (baseline share, delta,
 * ratio, weighted diff per place, places matched by name across builds), and with --ratios
 * every ratio both recordings can give, with the change's 95% interval and whether it is
 * significant. The matching and the statistics are in the analyzer and ratios modules. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "mp_ratios.h"
#include "mp_tui.h"

#define CMD "diff"

enum compute { C_DELTA, C_RATIO, C_WDIFF };

struct diff_opts {
	const char *sort, *compute, *symfs, *kallsyms, *level, *archive;
	int csv, json, ratios, quiet, tui, force;
	const char *batch, *size;
	double min_change; /* exact (simulated) values: the least change that counts, percent */
	enum compute c;
	double wa, wb;
	unsigned keys;
};

struct side_files {
	char **paths;   /* every file, in group order */
	size_t *group;
	size_t n, ngroups;
	char *buf;
};

/* BASE NEW...: each argument one side, "a.data,b.data" several recordings as one side. */
static int split_sides(int nargs, char **args, struct side_files *sf)
{
	size_t n = 0;
	for (int i = 0; i < nargs; i++) {
		n++;
		for (const char *p = args[i]; *p; p++)
			n += *p == ',';
	}
	sf->paths = calloc(n, sizeof(*sf->paths));
	sf->group = calloc(n, sizeof(*sf->group));
	if (!sf->paths || !sf->group)
		return -ENOMEM;
	for (int i = 0; i < nargs; i++) {
		char *s = args[i], *tok;
		while ((tok = strsep(&s, ","))) {
			if (!*tok) {
				cli_error(CMD, "'%s': an empty file name", args[i]);
				return -EINVAL;
			}
			sf->paths[sf->n] = tok;
			sf->group[sf->n++] = (size_t)i;
		}
	}
	sf->ngroups = (size_t)nargs;
	return 0;
}

static double pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static const char *ev_name(const mp_pd *pd, size_t attr)
{
	const struct mp_pd_attr *a = mp_pd_attr(pd, attr);
	return a->spec && *a->spec ? a->spec : a->name ? a->name : "?";
}

/* One place in one event's table. */
struct drow {
	size_t r;          /* merged row */
	double base_pct;
	int in_base;
	double sortkey;
};

struct dctx {
	const struct mp_multi *m;
	const struct mp_hist_merged *mg;
	const struct diff_opts *o;
	size_t col;
	int gone;  /* the text table: a place on the baseline only has the delta -share */
};

static const struct mp_hist_counts *cnt(const struct dctx *d, size_t r, size_t g)
{
	return d->mg->counts + (r * d->mg->ngroups + g) * d->mg->ncols + d->col;
}

static int present(const struct dctx *d, size_t r, size_t g)
{
	return d->mg->present[r * d->mg->ngroups + g] && cnt(d, r, g)->samples;
}

static double gpct(const struct dctx *d, size_t r, size_t g)
{
	return pct_of(cnt(d, r, g)->period, d->m->total[g * d->m->nev + d->col].period);
}

/* The computation of group g against the baseline at row r; 0 when it has no value
 * (a place on one side only: perf prints nothing or N/A there). */
static int compute(const struct dctx *d, size_t r, size_t g, double *out)
{
	int b = present(d, r, 0), n = present(d, r, g);
	switch (d->o->c) {
	case C_DELTA:
		if (!n && b && d->gone) {
			*out = -gpct(d, r, 0); /* vanished: its share went to 0 */
			return 1;
		}
		if (!n)
			return 0;
		*out = gpct(d, r, g) - (b ? gpct(d, r, 0) : 0);
		return 1;
	case C_RATIO:
		if (!b || !n)
			return 0;
		*out = (double)cnt(d, r, g)->period / (double)cnt(d, r, 0)->period;
		return 1;
	case C_WDIFF:
		if (!b || !n)
			return 0;
		*out = (double)cnt(d, r, g)->period * d->o->wb -
		       (double)cnt(d, r, 0)->period * d->o->wa;
		return 1;
	}
	return 0;
}

/* Are all recordings simulated (exact counts: shares without sampling error)? */
static int all_simulated(const struct mp_multi *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (!mp_pd_meta(mp_session_pd(m->ss[i]), MP_META_SIMULATED))
			return 0;
	return m->n > 0;
}

/* The least change of an exact share that is significant, in percentage points: a tenth
 * of --min-change (1% by default: 0.1 points). */
static double min_share_change(const struct diff_opts *o)
{
	return o->min_change / 10;
}

/* Is group g's share at row r significantly different from the baseline's? Simulated
 * shares are exact: any change is real but only one of min_share_change() points or more
 * matters (two runs of one program differ by 7e-7 at the loader's places). */
static int share_sig(const struct dctx *d, size_t r, size_t g)
{
	if (all_simulated(d->m))
		return fabs(gpct(d, r, g) - gpct(d, r, 0)) >= min_share_change(d->o);
	struct mp_ratio_change ch;
	uint64_t n1 = d->m->total[d->col].samples, n2 = d->m->total[g * d->m->nev + d->col].samples;
	if (mp_ratio_share_change(gpct(d, r, 0) / 100, n1, gpct(d, r, g) / 100, n2, &ch))
		return 0;
	return ch.significant;
}

static int drow_cmp(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	if (a->sortkey != b->sortkey)
		return a->sortkey > b->sortkey ? -1 : 1;
	if (a->base_pct != b->base_pct)
		return a->base_pct > b->base_pct ? -1 : 1;
	return a->r < b->r ? -1 : a->r > b->r;
}

/* The rows of one event with samples on some side, perf diff's order: by the first new
 * side's computation (delta by its absolute value), places without one last. */
static struct drow *event_rows(const struct dctx *d, size_t *n)
{
	struct drow *dr = calloc(d->mg->nrows + 1, sizeof(*dr));
	*n = 0;
	if (!dr)
		return NULL;
	for (size_t r = 0; r < d->mg->nrows; r++) {
		int any = 0;
		for (size_t g = 0; g < d->mg->ngroups; g++)
			any |= present(d, r, g);
		if (!any)
			continue;
		struct drow *x = &dr[(*n)++];
		x->r = r;
		x->in_base = present(d, r, 0);
		x->base_pct = x->in_base ? gpct(d, r, 0) : 0;
		double v;
		if (d->mg->ngroups > 1 && compute(d, r, 1, &v))
			x->sortkey = d->o->c == C_DELTA ? fabs(v) : v;
		else
			x->sortkey = -INFINITY;
	}
	if (*n)
		qsort(dr, *n, sizeof(*dr), drow_cmp);
	return dr;
}

static void fmt_place(const struct mp_hist_row *r, unsigned keys, char *buf, size_t n)
{
	size_t o = 0;
#define ADD(...) do { if (o < n) o += (size_t)snprintf(buf + o, n - o, __VA_ARGS__); } while (0)
	if (keys & MP_HK_COMM)
		ADD("%-15s  ", r->comm ? r->comm : "");
	if (keys & MP_HK_PID)
		ADD("%7u  ", r->pid);
	if (keys & MP_HK_TID)
		ADD("%7u  ", r->tid);
	if (keys & MP_HK_DSO)
		ADD("%-20s  ", r->dso ? r->dso : "[unknown]");
	if (keys & MP_HK_ADDR)
		ADD("0x%016" PRIx64 "  ", r->addr);
	if (keys & MP_HK_SYM)
		ADD("[%c] %s  ", r->level ? r->level : '.', r->sym ? r->sym : "?");
	if (keys & MP_HK_SRCLINE) {
		if (r->srcfile && r->line) {
			const char *b = strrchr(r->srcfile, '/');
			ADD("%s:%u", b ? b + 1 : r->srcfile, r->line);
		} else if (r->sym) {
			ADD("%s+%" PRIu64, r->sym, r->sym_off);
		} else {
			ADD("??:0");
		}
	}
#undef ADD
	while (o > 0 && o <= n && buf[o - 1] == ' ')
		buf[--o] = 0;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Simulated recordings: the addresses of a stripped object that no symbol covers are one
 * place per object ("[unresolved addresses]"), not thousands of rows of one instruction
 * each (libnuma: 7,247 of cachebench's rows), so the program's places come first. In
 * place: rows, counts and present compacted. 0 or -ENOMEM. */
static int fold_unresolved(struct mp_hist_merged *mg, unsigned keys)
{
	size_t per = mg->ngroups * mg->ncols, nf = 0, w = 0;
	size_t *folded = calloc(mg->nrows + 1, sizeof(size_t));
	if (!folded)
		return -ENOMEM;
	for (size_t r = 0; r < mg->nrows; r++) {
		const struct mp_hist_row *hr = &mg->rows[r];
		size_t to = SIZE_MAX;
		if (hr->sym && !hr->sym_resolved && !hr->kernel)
			for (size_t k = 0; k < nf && to == SIZE_MAX; k++) {
				const struct mp_hist_row *f = &mg->rows[folded[k]];
				if (same_str(f->dso, hr->dso) && same_str(f->comm, hr->comm) &&
				    f->pid == hr->pid && f->tid == hr->tid)
					to = folded[k];
			}
		if (to != SIZE_MAX) {
			for (size_t i = 0; i < per; i++) {
				mg->counts[to * per + i].samples += mg->counts[r * per + i].samples;
				mg->counts[to * per + i].period += mg->counts[r * per + i].period;
			}
			for (size_t g = 0; g < mg->ngroups; g++)
				mg->present[to * mg->ngroups + g] |= mg->present[r * mg->ngroups + g];
			continue;
		}
		if (w != r) {
			mg->rows[w] = mg->rows[r];
			memcpy(&mg->counts[w * per], &mg->counts[r * per], per * sizeof(*mg->counts));
			memcpy(&mg->present[w * mg->ngroups], &mg->present[r * mg->ngroups], mg->ngroups);
		}
		if (hr->sym && !hr->sym_resolved && !hr->kernel && (keys & MP_HK_SYM)) {
			mg->rows[w].sym = "[unresolved addresses]";
			folded[nf++] = w;
		}
		w++;
	}
	mg->nrows = w;
	free(folded);
	return 0;
}

static const char *col_title(enum compute c)
{
	return c == C_DELTA ? "Delta" : c == C_RATIO ? "Ratio" : "Weighted diff";
}

static void print_value(FILE *f, enum compute c, int have, double v)
{
	if (c == C_DELTA) {
		/* perf leaves deltas that round to zero empty */
		if (!have || fabs(v) < 0.005)
			fprintf(f, "  %14s", "");
		else
			fprintf(f, "  %+13.2f%%", v);
	} else if (!have) {
		fprintf(f, "  %14s", "N/A");
	} else if (c == C_RATIO) {
		fprintf(f, "  %14.6f", v);
	} else {
		fprintf(f, "  %14.0f", v);
	}
}

static void print_text(const struct mp_multi *m, const struct mp_hist_merged *mg,
		       const struct diff_opts *o, char **args, int nargs)
{
	FILE *f = stdout;
	char sim[512], buf[4096];
	fprintf(f, "# memprof diff\n");
	for (int g = 0; g < nargs; g++)
		fprintf(f, "# [%d] %s%s\n", g, g ? "" : "baseline: ", args[g]);
	for (size_t i = 0; i < m->n; i++)
		if (mp_pd_sim_banner(mp_session_pd(m->ss[i]), sim, sizeof(sim)))
			fprintf(f, "# %s: %s\n", m->paths[i], sim);
	if (all_simulated(m))
		fprintf(f, "# *: the change of the place's share is significant: simulated shares are "
			"exact, a change of at least %.2f percentage points (--min-change %g: a tenth)\n",
			min_share_change(o), o->min_change);
	else
		fprintf(f, "# *: the change of the place's share of samples is significant (its 95%% "
			"interval excludes 0)\n");
	fprintf(f, "# a place of the baseline only: its share went to 0 (Delta = -Baseline)\n");
	for (size_t j = 0; j < m->nev; j++) {
		struct dctx d = { m, mg, o, j, 1 };
		size_t n;
		struct drow *dr = event_rows(&d, &n);
		if (!dr)
			return;
		fprintf(f, "#\n# Event '%s'\n#\n# %8s", ev_name(mp_session_pd(m->ss[0]), m->ev[j]),
			"Baseline");
		for (size_t g = 1; g < mg->ngroups; g++) {
			snprintf(buf, sizeof(buf), "%s [%zu]", col_title(o->c), g);
			fprintf(f, "  %14s ", buf);
		}
		fprintf(f, "  Place\n#\n");
		for (size_t k = 0; k < n; k++) {
			size_t r = dr[k].r;
			if (dr[k].in_base)
				fprintf(f, "  %8.2f%%", dr[k].base_pct);
			else
				fprintf(f, "  %9s", "");
			for (size_t g = 1; g < mg->ngroups; g++) {
				double v = 0;
				int have = compute(&d, r, g, &v);
				print_value(f, o->c, have, v);
				fputc(share_sig(&d, r, g) ? '*' : ' ', f);
			}
			fmt_place(&mg->rows[r], o->keys, buf, sizeof(buf));
			fprintf(f, "  %s\n", buf);
		}
		free(dr);
	}
}

static void csv_place_header(FILE *f, unsigned keys)
{
	static const struct {
		unsigned key;
		const char *cols;
	} place_cols[] = {
		{ MP_HK_COMM, "comm," },
		{ MP_HK_PID, "pid," },
		{ MP_HK_TID, "tid," },
		{ MP_HK_DSO, "dso," },
		{ MP_HK_ADDR, "addr," },
		{ MP_HK_SYM, "level,sym," },
		{ MP_HK_SRCLINE, "srcfile,line," },
	};
	for (size_t i = 0; i < sizeof(place_cols) / sizeof(*place_cols); i++)
		if (keys & place_cols[i].key)
			fputs(place_cols[i].cols, f);
}

static void csv_place(FILE *f, const struct mp_hist_row *r, unsigned keys)
{
	if (keys & MP_HK_COMM) {
		cli_csv_str(f, r->comm);
		fputc(',', f);
	}
	if (keys & MP_HK_PID)
		fprintf(f, "%u,", r->pid);
	if (keys & MP_HK_TID)
		fprintf(f, "%u,", r->tid);
	if (keys & MP_HK_DSO) {
		cli_csv_str(f, r->dso);
		fputc(',', f);
	}
	if (keys & MP_HK_ADDR)
		fprintf(f, "0x%" PRIx64 ",", r->addr);
	if (keys & MP_HK_SYM) {
		fprintf(f, "%c,", r->level ? r->level : '.');
		cli_csv_str(f, r->sym);
		fputc(',', f);
	}
	if (keys & MP_HK_SRCLINE) {
		if (r->srcfile) {
			cli_csv_str(f, r->srcfile);
		} else {
			char b[4096];
			fmt_place(r, MP_HK_SRCLINE, b, sizeof(b));
			cli_csv_str(f, b);
		}
		fprintf(f, ",%u,", r->line);
	}
}

static void print_csv(const struct mp_multi *m, const struct mp_hist_merged *mg,
		      const struct diff_opts *o)
{
	FILE *f = stdout;
	fputs("event,", f);
	csv_place_header(f, o->keys);
	fputs("base_samples,base_period,base_pct", f);
	for (size_t g = 1; g < mg->ngroups; g++)
		fprintf(f, ",new%zu_samples,new%zu_period,new%zu_pct,delta%zu,ratio%zu,wdiff%zu,"
			"significant%zu", g, g, g, g, g, g, g);
	fputc('\n', f);
	for (size_t j = 0; j < m->nev; j++) {
		struct dctx d = { m, mg, o, j, 0 };
		size_t n;
		struct drow *dr = event_rows(&d, &n);
		if (!dr)
			return;
		for (size_t k = 0; k < n; k++) {
			size_t r = dr[k].r;
			cli_csv_str(f, ev_name(mp_session_pd(m->ss[0]), m->ev[j]));
			fputc(',', f);
			csv_place(f, &mg->rows[r], o->keys);
			const struct mp_hist_counts *b = cnt(&d, r, 0);
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%.4f", b->samples, b->period,
				gpct(&d, r, 0));
			for (size_t g = 1; g < mg->ngroups; g++) {
				const struct mp_hist_counts *c = cnt(&d, r, g);
				fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%.4f", c->samples, c->period,
					gpct(&d, r, g));
				struct diff_opts oo = *o;
				struct dctx dd = { m, mg, &oo, j, 0 };
				for (int cc = C_DELTA; cc <= C_WDIFF; cc++) {
					double v;
					oo.c = (enum compute)cc;
					if (cc == C_WDIFF && o->c != C_WDIFF)
						oo.wa = oo.wb = 1;
					if (compute(&dd, r, g, &v))
						fprintf(f, ",%.6f", v);
					else
						fputc(',', f);
				}
				fprintf(f, ",%d", share_sig(&d, r, g));
			}
			fputc('\n', f);
		}
		free(dr);
	}
}

/* One place of an event's table: its keys, then per side the counts and the change. */
static void json_drow(struct cli_json *j, const struct dctx *d, size_t r)
{
	const struct diff_opts *o = d->o;
	const struct mp_hist_row *hr = &d->mg->rows[r];
	cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
	if (o->keys & MP_HK_COMM)
		cli_json_string(j, "comm", hr->comm);
	if (o->keys & MP_HK_PID)
		cli_json_value(j, "pid", "%d", (int32_t)hr->pid);
	if (o->keys & MP_HK_TID)
		cli_json_value(j, "tid", "%d", (int32_t)hr->tid);
	if (o->keys & MP_HK_DSO)
		cli_json_string(j, "dso", hr->dso);
	if (o->keys & MP_HK_ADDR)
		cli_json_value(j, "addr", "\"0x%" PRIx64 "\"", hr->addr);
	if (o->keys & MP_HK_SYM) {
		cli_json_value(j, "level", "\"%c\"", hr->level ? hr->level : '.');
		cli_json_string(j, "sym", hr->sym);
	}
	if (o->keys & MP_HK_SRCLINE) {
		cli_json_string_or_null(j, "srcfile", hr->srcfile);
		cli_json_value(j, "line", "%u", hr->line);
	}
	cli_json_open(j, "sides", '[', CLI_JSON_INLINE);
	for (size_t g = 0; g < d->mg->ngroups; g++) {
		const struct mp_hist_counts *c = cnt(d, r, g);
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(j, "samples", "%" PRIu64, c->samples);
		cli_json_value(j, "period", "%" PRIu64, c->period);
		cli_json_value(j, "percent", "%.4f", gpct(d, r, g));
		double v;
		if (g && compute(d, r, g, &v))
			cli_json_value(j, o->c == C_DELTA ? "delta" : o->c == C_RATIO ? "ratio" : "wdiff",
				       "%.6f", v);
		if (g)
			cli_json_bool(j, "significant", share_sig(d, r, g));
		cli_json_close(j);
	}
	cli_json_close(j);
	cli_json_close(j);
}

static void print_json(const struct mp_multi *m, const struct mp_hist_merged *mg,
		       const struct diff_opts *o, char **args, int nargs)
{
	struct cli_json j;
	cli_json_start(&j, stdout, ": ", ", ", 2);
	cli_json_open(&j, NULL, '{', CLI_JSON_LINES);
	cli_json_open(&j, "sides", '[', CLI_JSON_INLINE);
	for (int g = 0; g < nargs; g++) {
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(&j, "side", "%d", g);
		cli_json_string(&j, "arg", args[g]);
		cli_json_open(&j, "files", '[', CLI_JSON_INLINE);
		for (size_t i = 0; i < m->n; i++)
			if (m->group[i] == (size_t)g)
				cli_json_string(&j, NULL, m->paths[i]);
		cli_json_close(&j);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	cli_json_open(&j, "events", '[', CLI_JSON_LINES);
	for (size_t e = 0; e < m->nev; e++) {
		struct dctx d = { m, mg, o, e, 0 };
		size_t n;
		struct drow *dr = event_rows(&d, &n);
		if (!dr)
			return;
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "event", ev_name(mp_session_pd(m->ss[0]), m->ev[e]));
		cli_json_open(&j, "totals", '[', CLI_JSON_INLINE);
		for (size_t g = 0; g < mg->ngroups; g++) {
			cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
			cli_json_value(&j, "samples", "%" PRIu64, m->total[g * m->nev + e].samples);
			cli_json_value(&j, "period", "%" PRIu64, m->total[g * m->nev + e].period);
			cli_json_close(&j);
		}
		cli_json_close(&j);
		cli_json_open(&j, "rows", '[', CLI_JSON_LINES);
		for (size_t k = 0; k < n; k++)
			json_drow(&j, &d, dr[k].r);
		cli_json_close(&j);
		cli_json_close(&j);
		free(dr);
	}
	cli_json_close(&j);
	cli_json_close(&j);
	fputc('\n', stdout);
}

/* ---- --tui ---------------------------------------------------------------------------- */

/* The TUI's data: events in pairs (the baseline's, the new side's), one symbol per place. */
static int diff_tui(const struct mp_multi *m, const struct mp_hist_merged *mg,
		    const struct diff_opts *o, char **args)
{
	struct mp_err err = { 0, "" };
	tui_data *d = tui_data_new();
	int rc = d ? 0 : -ENOMEM;
	char name[4096];
	for (size_t j = 0; !rc && j < m->nev && 2 * j + 1 < TUI_MAX_EVENTS; j++)
		for (size_t g = 0; !rc && g < 2; g++) {
			const struct mp_hist_counts *t = &m->total[g * m->nev + j];
			snprintf(name, sizeof(name), "%s %s", g ? "new" : "base",
				 ev_name(mp_session_pd(m->ss[0]), m->ev[j]));
			rc = tui_data_add_event(d, name, t->samples, t->period, 0, 0, 0) < 0;
		}
	for (int g = 0; !rc && g < 2; g++)
		rc = tui_data_add_info(d, g ? "new" : "baseline", args[g]);
	size_t nev = !rc ? tui_data_nevents(d) / 2 : 0;
	for (size_t r = 0; !rc && r < mg->nrows; r++) {
		fmt_place(&mg->rows[r], o->keys & ~(unsigned)MP_HK_DSO, name, sizeof(name));
		long k = tui_data_add_sym(d, name, (o->keys & MP_HK_DSO) && mg->rows[r].dso ?
					  mg->rows[r].dso : "", 0);
		if (k < 0) {
			rc = 1;
			break;
		}
		for (size_t j = 0; j < nev; j++)
			for (size_t g = 0; g < 2; g++) {
				const struct mp_hist_counts *c =
					mg->counts + (r * mg->ngroups + g) * mg->ncols + j;
				tui_data_set_sym_count(d, (size_t)k, 2 * j + g, c->samples, c->period);
			}
	}
	if (rc || tui_data_set_diff(d)) {
		tui_data_free(d);
		cli_error(CMD, "out of memory");
		return 1;
	}
	int cols, rows;
	cli_tui_size(CMD, o->size, &cols, &rows);
	tui_model *tm = tui_model_new(d, cols, rows, &err);
	if (!tm) {
		cli_error(CMD, "%s", err.msg);
		return 1;
	}
	rc = o->batch ? cli_tui_batch(tm, o->batch, cols, rows) : cli_tui_interactive(tm, 0);
	tui_model_free(tm);
	return rc;
}

/* ---- --ratios ------------------------------------------------------------------------ */

struct rchange {
	const struct mp_ratio_result *x;
	const struct mp_ratio_row *row;
	struct mp_ratio_change ch;
	enum mp_ratio_level lvl;
	size_t side;
	double size;      /* the order: |delta| relative to the larger value; exact values,
			   * |delta| x the denominator's count */
};

static int rchange_cmp(const void *pa, const void *pb)
{
	const struct rchange *a = pa, *b = pb;
	if (a->ch.significant != b->ch.significant)
		return a->ch.significant ? -1 : 1;
	/* the program's values first, then the places' */
	if (a->lvl != b->lvl)
		return a->lvl < b->lvl ? -1 : 1;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return strcmp(a->row->place->label, b->row->place->label);
}

static const char *lvl_name(enum mp_ratio_level l)
{
	static const char *const n[] = { "program", "dso", "symbol", "line" };
	return n[l];
}

static int parse_level(const char *s, enum mp_ratio_level *l)
{
	static const char *const n[] = { "program", "dso", "symbol", "line" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, n[i])) {
			*l = (enum mp_ratio_level)i;
			return 0;
		}
	return -1;
}

static void fmt_signed(const struct mp_ratio_def *d, double v, char *buf, size_t n)
{
	char a[48];
	mp_ratio_format_value(d, fabs(v), a, sizeof(a));
	snprintf(buf, n, "%s%s", v < 0 ? "-" : "+", a);
}

struct rside {
	mp_ratio_run *run[2];   /* one per level: a run's places are borrowed until its next call */
	struct mp_ratio_source src[2];
	const char *keys[2][8];
	struct mp_ratio_table t[2];
};

static int open_rside(const char *path, enum mp_ratio_level lvl, const struct diff_opts *o,
		      struct rside *s, struct mp_err *err)
{
	for (int l = 0; l < (lvl == MP_RATIO_PROGRAM ? 1 : 2); l++) {
		enum mp_ratio_level want = l ? lvl : MP_RATIO_PROGRAM;
		struct mp_ratio_run_opts ro = { .symfs = o->symfs, .kallsyms = o->kallsyms,
						.level = want };
		s->run[l] = mp_ratio_run_open(path, &ro, err);
		if (!s->run[l])
			return err->code ? err->code : -EINVAL;
		int rc = mp_ratio_run_source(s->run[l], want, s->keys[l], 8, &s->src[l], err);
		if (rc)
			return rc;
	}
	return 0;
}

/* The changes of every ratio value between each new side and the baseline, per level
 * (program, then lvl), into *chg (malloc'd, *nchg of them, kept on failure for the
 * caller to free). 0, or a negative errno with err set. */
static int ratio_changes(const struct diff_opts *o, const struct side_files *sf, struct rside *s,
			 enum mp_ratio_level lvl,
			 const struct mp_ratio_def **defs, size_t nd, struct rchange **chg,
			 size_t *nchg, struct mp_err *err)
{
	size_t nlv = lvl == MP_RATIO_PROGRAM ? 1 : 2, capchg = 0;
	int rc;
	for (size_t g = 1; g < sf->n; g++)
		for (size_t l = 0; l < nlv; l++) {
			struct mp_ratio_table_opts to = { .defs = defs, .ndefs = nd, .min_samples = 10,
							  .level = l ? lvl : MP_RATIO_PROGRAM };
			struct mp_ratio_table *t = &s[g].t[l];
			mp_ratio_table_fini(t);
			if ((rc = mp_ratio_table_build(&s[g].src[l], &s[0].src[l], &to, t, err)))
				return rc;
			for (size_t i = 0; i < t->n; i++) {
				const struct mp_ratio_result *x = &t->r[i];
				if (!x->base_complete)
					continue;
				for (size_t k = 0; k < x->nrows; k++) {
					const struct mp_ratio_row *row = &x->rows[k];
					struct mp_ratio_change ch;
					if (!row->have_base || mp_ratio_change(&row->base, &row->v, &ch))
						continue;
					if (MP_GROW(*chg, capchg, *nchg + 1))
						return -ENOMEM;
					double big = fmax(fabs(row->v.value), fabs(row->base.value));
					/* exact values: significant from --min-change percent of the
					 * larger value on (not at 7e-7), and not on a handful of
					 * events (3 mispredictions of 31 branches in a printf helper) */
					if (ch.exact && (fabs(ch.delta) < o->min_change / 100 * big ||
							 row->v.few || row->base.few))
						ch.significant = 0;
					/* the order: sampled, the relative change; exact, the events it
					 * moved (change x denominator: the misses more or fewer), so the
					 * hot functions come before the rare ones */
					double size = ch.exact ? fabs(ch.delta) * row->den
						     : big > 0 ? fabs(ch.delta) / big : 0;
					(*chg)[(*nchg)++] = (struct rchange){ x, row, ch, to.level, g, size };
				}
			}
		}
	return 0;
}

/* The changes, largest first, as CSV, JSON or text. */
static void print_ratio_changes(const struct diff_opts *o, const struct side_files *sf,
				const struct rside *s, const struct rchange *chg, size_t nchg)
{
	if (o->csv) {
		printf("side,ratio_id,ratio,level,place,dso,symbol,baseline,value,change,lo,hi,exact,significant\n");
		for (size_t i = 0; i < nchg; i++) {
			const struct rchange *c = &chg[i];
			const struct mp_ratio_place *p = c->row->place;
			printf("%zu,", c->side);
			cli_csv_str(stdout, c->x->def->id);
			putchar(',');
			cli_csv_str(stdout, c->x->def->name);
			printf(",%s,", lvl_name(c->lvl));
			cli_csv_str(stdout, p->label);
			putchar(',');
			cli_csv_str(stdout, p->dso);
			putchar(',');
			cli_csv_str(stdout, p->sym);
			printf(",%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d\n", c->row->base.value,
			       c->row->v.value, c->ch.delta, c->ch.lo, c->ch.hi, c->ch.exact,
			       c->ch.significant);
		}
	} else if (o->json) {
		struct cli_json j;
		cli_json_start(&j, stdout, ":", ",", 0);
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "baseline", sf->paths[0]);
		cli_json_open(&j, "new", '[', CLI_JSON_INLINE);
		for (size_t g = 1; g < sf->n; g++)
			cli_json_string(&j, NULL, sf->paths[g]);
		cli_json_close(&j);
		cli_json_open(&j, "changes", '[', CLI_JSON_LINES);
		for (size_t i = 0; i < nchg; i++) {
			const struct rchange *c = &chg[i];
			const struct mp_ratio_place *p = c->row->place;
			cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
			cli_json_value(&j, "side", "%zu", c->side);
			cli_json_string(&j, "ratio_id", c->x->def->id);
			cli_json_string(&j, "level", lvl_name(c->lvl));
			cli_json_string(&j, "place", p->label);
			cli_json_string(&j, "dso", p->dso);
			cli_json_value(&j, "baseline", "%.17g", c->row->base.value);
			cli_json_value(&j, "value", "%.17g", c->row->v.value);
			cli_json_value(&j, "change", "%.17g", c->ch.delta);
			cli_json_value(&j, "lo", "%.17g", c->ch.lo);
			cli_json_value(&j, "hi", "%.17g", c->ch.hi);
			cli_json_bool(&j, "exact", c->ch.exact);
			cli_json_bool(&j, "significant", c->ch.significant);
			cli_json_close(&j);
		}
		cli_json_close(&j);
		cli_json_close(&j);
		putchar('\n');
	} else {
		size_t nsig = 0;
		for (size_t i = 0; i < nchg; i++)
			nsig += chg[i].ch.significant;
		printf("# memprof diff --ratios: baseline [0] %s\n", sf->paths[0]);
		for (size_t g = 1; g < sf->n; g++)
			printf("#   new [%zu] %s%s\n", g, sf->paths[g],
			       mp_ratio_run_simulated(s[g].run[0]) ? "  (SIMULATED: exact counts)" : "");
		printf("# %zu of %zu ratio values changed significantly (95%% interval of the change "
		       "excludes 0; exact values, simulated or counted: a change of at least %g%% of "
		       "the larger value, --min-change, on 10 events or more); the program's first, "
		       "then the largest change (exact: in events, change x denominator)\n#\n",
		       nsig, nchg, o->min_change);
		printf("# %-3s %-28s %-8s %-32s %12s %12s %12s  %-27s %s\n", "new", "ratio", "level",
		       "place", "baseline", "new", "change", "95% interval", "");
		for (size_t i = 0; i < nchg; i++) {
			const struct rchange *c = &chg[i];
			const struct mp_ratio_def *d = c->x->def;
			char bv[48], nv[48], dv[48], lo[48], hi[48], iv[100];
			mp_ratio_format_value(d, c->row->base.value, bv, sizeof(bv));
			mp_ratio_format_value(d, c->row->v.value, nv, sizeof(nv));
			fmt_signed(d, c->ch.delta, dv, sizeof(dv));
			if (c->ch.exact) {
				snprintf(iv, sizeof(iv), "exact");
			} else {
				fmt_signed(d, c->ch.lo, lo, sizeof(lo));
				fmt_signed(d, c->ch.hi, hi, sizeof(hi));
				snprintf(iv, sizeof(iv), "[%s, %s]", lo, hi);
			}
			printf("  [%zu] %-28.28s %-8s %-32.32s %12s %12s %12s  %-27s %s\n", c->side,
			       d->name, lvl_name(c->lvl), c->row->place->label, bv, nv, dv, iv,
			       c->ch.significant ? "significant" : "");
		}
	}
}

/* The ratio changes between the sides (--ratios). automatic: the text form of a plain
 * diff, which shows them after the places when every side has the events of at least one
 * ratio (checked at the program level first, so that recordings without a ratio's events
 * are read no further); then nothing is printed when no ratio is computable, and a failure
 * is a warning. */
static int diff_ratios(const struct diff_opts *o, const struct side_files *sf, int automatic)
{
	enum mp_ratio_level lvl = MP_RATIO_SYMBOL;
	struct mp_err err = { 0, "" };
	int rc = 0;
	if (automatic && sf->n != sf->ngroups)
		return 0;
	if (o->level && parse_level(o->level, &lvl)) {
		cli_error(CMD, "--level '%s': expected program, dso, symbol or line", o->level);
		return CLI_EXIT_USAGE;
	}
	if (sf->n != sf->ngroups) {
		cli_error(CMD, "--ratios compares one recording per side (%zu files for %zu sides)",
			  sf->n, sf->ngroups);
		return CLI_EXIT_USAGE;
	}
	mp_ratio_set *set = mp_ratio_set_new();
	struct rside *s = calloc(sf->n, sizeof(*s));
	struct rchange *chg = NULL;
	size_t nchg = 0;
	const struct mp_ratio_def **defs = NULL;
	if (!set || !s) {
		cli_error(CMD, "out of memory");
		rc = 1;
		goto out;
	}
	if ((rc = mp_ratio_set_load_default(set, NULL, &err)))
		goto fail;
	size_t nd = mp_ratio_set_count(set);
	defs = calloc(nd + 1, sizeof(*defs));
	if (!defs) {
		rc = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < nd; i++)
		defs[i] = mp_ratio_set_get(set, i);
	for (size_t i = 0; automatic && i < sf->n; i++)
		if ((rc = open_rside(sf->paths[i], MP_RATIO_PROGRAM, o, &s[i], &err)))
			goto fail;
	if (automatic) {
		if ((rc = ratio_changes(o, sf, s, MP_RATIO_PROGRAM, defs, nd, &chg, &nchg, &err)))
			goto fail;
		for (size_t i = 0; i < sf->n; i++) {
			mp_ratio_table_fini(&s[i].t[0]);
			mp_ratio_run_free(s[i].run[0]);
			memset(&s[i], 0, sizeof(s[i]));
		}
		free(chg);
		chg = NULL;
		if (!nchg)
			goto out;
		nchg = 0;
		putchar('\n');
	}
	for (size_t i = 0; i < sf->n; i++)
		if ((rc = open_rside(sf->paths[i], lvl, o, &s[i], &err)))
			goto fail;
	if ((rc = ratio_changes(o, sf, s, lvl, defs, nd, &chg, &nchg, &err)))
		goto fail;
	if (nchg) /* qsort of NULL, even for 0 rows, is undefined */
		qsort(chg, nchg, sizeof(*chg), rchange_cmp);
	print_ratio_changes(o, sf, s, chg, nchg);
	rc = 0;
	goto out;
fail:
	if (automatic) {
		cli_warn(CMD, "ratios: %s", err.msg[0] ? err.msg : mp_strerror(rc));
		rc = 0;
		goto out;
	}
	cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
	rc = 1;
out:
	for (size_t i = 0; s && i < sf->n; i++) {
		mp_ratio_table_fini(&s[i].t[0]);
		mp_ratio_table_fini(&s[i].t[1]);
		mp_ratio_run_free(s[i].run[0]);
		mp_ratio_run_free(s[i].run[1]);
	}
	free(s);
	free(chg);
	free(defs);
	mp_ratio_set_free(set);
	return rc;
}

static int parse_compute(const char *s, struct diff_opts *o)
{
	if (!s || !strcmp(s, "delta") || !strcmp(s, "delta-abs")) {
		o->c = C_DELTA;
		return 0;
	}
	if (!strcmp(s, "ratio")) {
		o->c = C_RATIO;
		return 0;
	}
	if (!strncmp(s, "wdiff:", 6)) {
		char *end;
		o->wa = strtod(s + 6, &end);
		if (*end == ',') {
			o->wb = strtod(end + 1, &end);
			if (!*end && end > s + 6) {
				o->c = C_WDIFF;
				return 0;
			}
		}
	}
	return -1;
}

static int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = { .wa = 1, .wb = 1, .min_change = 1 };
	const struct cli_opt opts[] = {
		{ 's', "sort", CLI_STR, &o.sort, "KEYS",
		  "places by comm,pid,tid,dso,sym,srcline,addr (default dso,sym)" },
		{ 'c', "compute", CLI_STR, &o.compute, "HOW",
		  "delta (default), ratio (new/base counts) or wdiff:A,B (new*B - base*A), as perf diff" },
		{ 0, "ratios", CLI_FLAG, &o.ratios, NULL,
		  "compare every ratio both recordings give, with the change's 95% interval" },
		{ 0, "level", CLI_STR, &o.level, "LEVEL",
		  "--ratios: places down to dso, symbol (default) or line, besides the program" },
		{ 0, "tui", CLI_FLAG, &o.tui, NULL,
		  "browse BASE against NEW in the text UI (the two shares side by side, the change coloured)" },
		{ 0, "batch", CLI_STR, &o.batch, "KEYS", "with --tui, no terminal: apply KEYS and print the screen" },
		{ 0, "size", CLI_STR, &o.size, "COLSxROWS", "screen size for --batch (default 80x24)" },
		{ 0, "min-change", CLI_DOUBLE, &o.min_change, "PCT",
		  "exact (simulated) values: a ratio's change is significant from PCT percent of the "
		  "larger value on, a place's share from PCT/10 points (default 1)" },
		{ 0, "csv", CLI_FLAG, &o.csv, NULL, "comma-separated values" },
		{ 0, "json", CLI_FLAG, &o.json, NULL, "JSON" },
		CLI_OPT_SYMFS(&o.symfs),
		CLI_OPT_KALLSYMS(&o.kallsyms),
		CLI_OPT_ARCHIVE(&o.archive),
		CLI_OPT_FORCE(&o.force),
		{ 'q', "quiet", CLI_FLAG, &o.quiet, NULL, "no warnings about the files read" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_diff, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	if (nargs < 2) {
		cli_error(CMD, "needs a baseline and at least one other recording (memprof diff BASE NEW)");
		return CLI_EXIT_USAGE;
	}
	if (o.csv + o.json + o.tui > 1) {
		cli_error(CMD, "--csv, --json and --tui exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.tui && nargs != 2) {
		cli_error(CMD, "--tui compares two sides (BASE NEW), not %d", nargs);
		return CLI_EXIT_USAGE;
	}
	if (!(o.min_change >= 0 && o.min_change <= 100)) {
		cli_error(CMD, "--min-change %g: must be between 0 and 100", o.min_change);
		return CLI_EXIT_USAGE;
	}
	if ((o.batch || o.size) && !o.tui) {
		cli_error(CMD, "--batch and --size go with --tui");
		return CLI_EXIT_USAGE;
	}
	int cols, rows;
	if (cli_tui_size(CMD, o.size, &cols, &rows))
		return CLI_EXIT_USAGE;
	if (o.tui && !o.batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cli_error(CMD, "--tui needs a terminal on stdin and stdout (or --batch KEYS)");
		return 1;
	}
	if (parse_compute(o.compute, &o)) {
		cli_error(CMD, "--compute %s: expected delta, ratio or wdiff:A,B", o.compute);
		return CLI_EXIT_USAGE;
	}
	struct mp_err err = { 0, "" };
	o.keys = MP_HK_DSO | MP_HK_SYM;
	if (o.sort && mp_hist_parse_sort(o.sort, &o.keys, &err)) {
		cli_error(CMD, "--sort %s: %s", o.sort, err.msg);
		return CLI_EXIT_USAGE;
	}
	struct side_files sf = { 0 };
	char *adir = NULL, *akall = NULL;
	if ((rc = split_sides(nargs, argv + 1, &sf))) {
		if (rc == -ENOMEM)
			cli_error(CMD, "out of memory");
		rc = rc == -ENOMEM ? 1 : CLI_EXIT_USAGE;
		goto out_sf;
	}
	for (size_t i = 0; i < sf.n; i++)
		if ((rc = cli_input_owner_ok(CMD, sf.paths[i], o.force)))
			goto out_sf;
	if (o.ratios) {
		if (o.tui) {
			cli_error(CMD, "--ratios has no --tui form (use its text, --csv or --json)");
			rc = CLI_EXIT_USAGE;
		} else {
			rc = diff_ratios(&o, &sf, 0);
		}
		goto out_sf;
	}
	/* --archive: the objects of every side, the kernel symbols the baseline's */
	if (o.archive && cli_archive_use(CMD, o.archive, sf.paths[0], &adir, &akall)) {
		rc = 1;
		goto out_sf;
	}
	if (!o.kallsyms)
		o.kallsyms = akall;
	char *bdir = adir ? strdup(adir) : cli_buildid_dir(o.symfs);
	struct mp_session_opts so = { .symfs = o.symfs, .kallsyms = o.kallsyms, .buildid_dir = bdir,
				      .want_comm = (o.keys & MP_HK_COMM) != 0 };
	struct mp_multi m;
	rc = mp_multi_open(&m, (const char *const *)sf.paths, sf.group, sf.n, sf.ngroups, &so, &err);
	free(bdir);
	if (rc) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		rc = 1;
		goto out_sf;
	}
	struct mp_hist_query q = { .keys = o.keys, .sort_attr = 0 };
	struct mp_hist_merged mg;
	if ((rc = mp_multi_query(&m, &q, &mg))) {
		cli_error(CMD, "%s", mp_strerror(rc));
		rc = 1;
		goto out_m;
	}
	if (!(o.keys & (MP_HK_ADDR | MP_HK_SRCLINE)) && all_simulated(&m) &&
	    fold_unresolved(&mg, o.keys)) {
		cli_error(CMD, "out of memory");
		rc = 1;
		goto out_mg;
	}
	if (o.csv) {
		print_csv(&m, &mg, &o);
	} else if (o.json) {
		print_json(&m, &mg, &o, argv + 1, nargs);
	} else if (o.tui) {
		rc = diff_tui(&m, &mg, &o, argv + 1);
	} else {
		print_text(&m, &mg, &o, argv + 1, nargs);
		rc = diff_ratios(&o, &sf, 1);
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(CMD, "writing the diff: %s", strerror(errno));
		rc = 1;
	}
out_mg:
	mp_hist_merged_fini(&mg);
out_m:
	mp_multi_close(&m);
out_sf:
	cli_archive_done(&adir, &akall);
	free(sf.paths);
	free(sf.group);
	return rc;
}

const struct cli_cmd cli_cmd_diff = {
	"diff", cmd_diff, "compare recordings place by place, and their ratios with significance",
	"BASE NEW [NEW...] [--sort KEYS] [-c delta|ratio|wdiff:A,B] [--ratios] [--csv|--json|--tui]",
	"perf diff's columns (baseline share, delta, ratio, weighted diff) per object, symbol or "
	"line, places matched by name across builds; a side may be several recordings "
	"(a.data,b.data), summed. With --ratios every ratio both recordings give, both values, "
	"the change with its 95% interval, marked significant only when the interval excludes "
	"zero (exact for simulated recordings), largest change first; the text form adds them "
	"by itself when both recordings have a ratio's events.", 0,
};
