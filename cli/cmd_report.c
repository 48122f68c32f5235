/* memprof report: samples and estimated counts per object, symbol and source line, one
 * column pair (samples, %) per event, like opreport and perf report --stdio. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "mp_analyzer.h"

#define CMD "report"

struct report_opts {
	const char *input;
	const char *sort;
	const char *symfs;
	const char *kallsyms;
	double threshold;
	int csv, json, no_objects, quiet;
};

struct progress_state {
	int on;
	int last_pct;
	const char *path;
};

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct progress_state *p = ctx;
	if (!p->on || !total)
		return;
	int pct = (int)(100.0 * (double)done / (double)total);
	if (pct == p->last_pct)
		return;
	p->last_pct = pct;
	fprintf(stderr, "\rmemprof: reading %s: %3d%%", p->path, pct);
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

static double pct_of(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;
	return b ? b + 1 : p;
}

static void event_mode(const struct mp_pd_attr *a, char *buf, size_t n)
{
	if (a->attr.freq)
		snprintf(buf, n, "frequency %" PRIu64 " Hz", (uint64_t)a->attr.sample_freq);
	else if (a->attr.sample_period)
		snprintf(buf, n, "count (overrun) %" PRIu64, (uint64_t)a->attr.sample_period);
	else
		snprintf(buf, n, "counting only");
}

/* The exact count as stored. It is not scaled by enabled/running time here: the stored
 * times are sums over the per-CPU counters of the event, whose ratio is not the
 * multiplexing ratio of any one counter; they are shown beside the value instead. */
static void print_exact(FILE *f, const struct mp_pd_attr *a)
{
	fprintf(f, ", exact count %" PRIu64, a->count_value);
	if (a->count_ena && a->count_run && a->count_run != a->count_ena)
		fprintf(f, " (time running %" PRIu64 " of %" PRIu64 " ns enabled, summed over "
			"its counters)", a->count_run, a->count_ena);
}

/* The attrs that had samples or are sampling events; counting-only and dummy events
 * without samples are left out of the columns. */
static size_t pick_events(const mp_pd *pd, const mp_hist *h, size_t *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		if (mp_hist_total(h, i)->samples || a->nr_samples ||
		    (a->attr.sample_period && !(a->attr.type == PERF_TYPE_SOFTWARE &&
						a->attr.config == 9 /* PERF_COUNT_SW_DUMMY */)))
			ev[n++] = i;
	}
	if (!n && mp_pd_nattrs(pd))
		ev[n++] = 0;
	return n;
}

static int key_wants(unsigned keys, unsigned k)
{
	return (keys & k) != 0;
}

static void print_header(FILE *f, const char *path, const mp_pd *pd, const mp_hist *h,
			 const size_t *ev, size_t nev)
{
	uint64_t lost = 0;
	char sim[512];
	fprintf(f, "# memprof report of %s (%s mode)\n", path, mp_pd_is_pipe(pd) ? "pipe" : "file");
	if (mp_pd_sim_banner(pd, sim, sizeof(sim)))
		fprintf(f, "# %s\n", sim);
	const char *host = mp_pd_feature_str(pd, 3), *rel = mp_pd_feature_str(pd, 4);
	const char *cmdl = mp_pd_feature_str(pd, 11);
	if (host || rel)
		fprintf(f, "# recorded on %s%s%s\n", host ? host : "?", rel ? ", kernel " : "",
			rel ? rel : "");
	if (cmdl)
		fprintf(f, "# command: %s\n", cmdl);
	fprintf(f, "#\n# Events:\n");
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const struct mp_hist_counts *t = mp_hist_total(h, ev[j]);
		char mode[64];
		event_mode(a, mode, sizeof(mode));
		fprintf(f, "#   [%zu] %s: %s, samples %" PRIu64 ", lost %" PRIu64
			", estimated count %" PRIu64, j, a->spec && *a->spec ? a->spec : a->name,
			mode, t->samples, a->lost, t->period);
		if (a->has_counts)
			print_exact(f, a);
		fputc('\n', f);
		lost += a->lost;
	}
	fprintf(f, "# Total lost samples: %" PRIu64 "\n", lost);
	if (mp_pd_nr_unknown_id(pd))
		fprintf(f, "# Samples with an unknown event id (not counted): %" PRIu64 "\n",
			mp_pd_nr_unknown_id(pd));
	fprintf(f, "#\n");
}

static int row_above(const struct mp_hist_row *r, const mp_hist *h, const size_t *ev,
		     size_t nev, double thr)
{
	if (thr <= 0)
		return 1;
	for (size_t j = 0; j < nev; j++)
		if (pct_of(r->c[ev[j]].period, mp_hist_total(h, ev[j])->period) >= thr)
			return 1;
	return 0;
}

static void fmt_sym(const struct mp_hist_row *r, char *buf, size_t n)
{
	snprintf(buf, n, "[%c] %s", r->level ? r->level : '.', r->sym ? r->sym : "?");
}

static void fmt_srcline(const struct mp_hist_row *r, char *buf, size_t n, int full)
{
	if (r->srcfile && r->line)
		snprintf(buf, n, "%s:%u", full ? r->srcfile : base_name(r->srcfile), r->line);
	else if (r->sym && r->sym_resolved)
		snprintf(buf, n, "%s+%" PRIu64, r->sym, r->sym_off); /* as perf shows them */
	else if (r->sym)
		snprintf(buf, n, "%s", r->sym);
	else
		snprintf(buf, n, "??:0");
}

static void print_table_stdio(FILE *f, const char *title, unsigned keys,
			      const struct mp_hist_result *res, const mp_hist *h,
			      const mp_pd *pd, const size_t *ev, size_t nev, double thr)
{
	size_t wcomm = 7, wdso = 13, wsym = 6;
	char buf[4096];

	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, h, ev, nev, thr))
			continue;
		if (r->comm && strlen(r->comm) > wcomm)
			wcomm = strlen(r->comm);
		if (r->dso && strlen(r->dso) > wdso)
			wdso = strlen(r->dso);
		if (key_wants(keys, MP_HK_SYM)) {
			fmt_sym(r, buf, sizeof(buf));
			if (strlen(buf) > wsym)
				wsym = strlen(buf);
		}
	}
	if (wdso > 48)
		wdso = 48;
	if (wsym > 60)
		wsym = 60;
	fprintf(f, "# %s\n#\n", title);
	/* event names above their column pairs */
	fputc('#', f);
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const char *nm = a->spec && *a->spec ? a->spec : a->name;
		fprintf(f, " %-19.19s", nm ? nm : "?");
	}
	fputc('\n', f);
	fputc('#', f);
	for (size_t j = 0; j < nev; j++)
		fprintf(f, " %9s %9s", "Samples", "Overhead");
	if (key_wants(keys, MP_HK_COMM))
		fprintf(f, "  %-*s", (int)wcomm, "Command");
	if (key_wants(keys, MP_HK_PID))
		fprintf(f, "  %7s", "Pid");
	if (key_wants(keys, MP_HK_TID))
		fprintf(f, "  %7s", "Tid");
	if (key_wants(keys, MP_HK_DSO))
		fprintf(f, "  %-*s", (int)wdso, "Shared Object");
	if (key_wants(keys, MP_HK_ADDR))
		fprintf(f, "  %18s", "Address");
	if (key_wants(keys, MP_HK_SYM))
		fprintf(f, "  %-*s", (int)wsym, "Symbol");
	if (key_wants(keys, MP_HK_SRCLINE))
		fprintf(f, "  %s", "Source line");
	fprintf(f, "\n#\n");
	size_t hidden = 0;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, h, ev, nev, thr)) {
			hidden++;
			continue;
		}
		fputc(' ', f);
		for (size_t j = 0; j < nev; j++)
			fprintf(f, " %9" PRIu64 " %8.2f%%", r->c[ev[j]].samples,
				pct_of(r->c[ev[j]].period, mp_hist_total(h, ev[j])->period));
		if (key_wants(keys, MP_HK_COMM))
			fprintf(f, "  %-*s", (int)wcomm, r->comm ? r->comm : "");
		if (key_wants(keys, MP_HK_PID))
			fprintf(f, "  %7u", r->pid);
		if (key_wants(keys, MP_HK_TID))
			fprintf(f, "  %7u", r->tid);
		if (key_wants(keys, MP_HK_DSO))
			fprintf(f, "  %-*s", (int)wdso, r->dso ? r->dso : "[unknown]");
		if (key_wants(keys, MP_HK_ADDR))
			fprintf(f, "  0x%016" PRIx64, r->addr);
		if (key_wants(keys, MP_HK_SYM)) {
			fmt_sym(r, buf, sizeof(buf));
			fprintf(f, "  %-*s", (int)wsym, buf);
		}
		if (key_wants(keys, MP_HK_SRCLINE)) {
			fmt_srcline(r, buf, sizeof(buf), 0);
			fprintf(f, "  %s", buf);
		}
		fputc('\n', f);
	}
	if (hidden)
		fprintf(f, "# (%zu rows below %.2f%% not shown)\n", hidden, thr);
	fprintf(f, "\n");
}

static void print_missing(FILE *f, const struct mp_hist_missing *m, long n, const mp_pd *pd,
			  const mp_hist *h, const size_t *ev, size_t nev, int csv_style)
{
	if (n <= 0)
		return;
	if (!csv_style)
		fprintf(f, "# Missing symbols or debug info (share of samples it hides, per event):\n");
	for (long i = 0; i < n; i++) {
		const char *why;
		if (m[i].flags & MP_DSO_BUILDID_MISMATCH)
			why = "build-id mismatch";
		else if (m[i].flags & MP_DSO_ANON)
			why = "anonymous memory";
		else if (!(m[i].flags & MP_DSO_FOUND) && !(m[i].flags & MP_DSO_KERNEL))
			why = "file not found";
		else if (m[i].flags & MP_DSO_KERNEL && !(m[i].flags & MP_DSO_FOUND))
			why = "no kallsyms";
		else
			why = NULL;
		fprintf(f, "#   no %s for %s%s%s%s: ",
			m[i].no_symbols ? "symbols" : "debug info", m[i].dso, why ? " (" : "",
			why ? why : "", why ? ")" : "");
		int first = 1;
		for (size_t j = 0; j < nev && ev[j] < 8; j++) {
			const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
			if (!mp_hist_total(h, ev[j])->samples)
				continue; /* nothing to hide */
			fprintf(f, "%s%.2f%% of %s", first ? "" : ", ", m[i].pct[ev[j]],
				a->spec && *a->spec ? a->spec : a->name);
			first = 0;
		}
		fprintf(f, " samples\n");
	}
	fprintf(f, "#\n");
}

static void print_csv(FILE *f, unsigned keys, const struct mp_hist_result *res,
		      const mp_hist *h, const mp_pd *pd, const size_t *ev, size_t nev, double thr)
{
	char buf[4096];
	int first = 1;
#define SEP() do { if (!first) fputc(',', f); first = 0; } while (0)
	if (mp_pd_sim_banner(pd, buf, sizeof(buf)))
		fprintf(f, "# %s\n", buf);
	if (keys & MP_HK_COMM) { SEP(); fputs("comm", f); }
	if (keys & MP_HK_PID) { SEP(); fputs("pid", f); }
	if (keys & MP_HK_TID) { SEP(); fputs("tid", f); }
	if (keys & MP_HK_DSO) { SEP(); fputs("dso", f); }
	if (keys & MP_HK_ADDR) { SEP(); fputs("addr", f); }
	if (keys & MP_HK_SYM) { SEP(); fputs("level,sym", f); }
	if (keys & MP_HK_SRCLINE) { SEP(); fputs("srcfile,line", f); }
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const char *nm = a->spec && *a->spec ? a->spec : a->name;
		snprintf(buf, sizeof(buf), "%s samples", nm);
		SEP(); cli_csv_str(f, buf);
		snprintf(buf, sizeof(buf), "%s period", nm);
		SEP(); cli_csv_str(f, buf);
		snprintf(buf, sizeof(buf), "%s %%", nm);
		SEP(); cli_csv_str(f, buf);
	}
	fputc('\n', f);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, h, ev, nev, thr))
			continue;
		first = 1;
		if (keys & MP_HK_COMM) { SEP(); cli_csv_str(f, r->comm); }
		if (keys & MP_HK_PID) { SEP(); fprintf(f, "%u", r->pid); }
		if (keys & MP_HK_TID) { SEP(); fprintf(f, "%u", r->tid); }
		if (keys & MP_HK_DSO) { SEP(); cli_csv_str(f, r->dso); }
		if (keys & MP_HK_ADDR) { SEP(); fprintf(f, "0x%" PRIx64, r->addr); }
		if (keys & MP_HK_SYM) {
			SEP();
			fprintf(f, "%c,", r->level ? r->level : '.');
			cli_csv_str(f, r->sym);
		}
		if (keys & MP_HK_SRCLINE) {
			SEP();
			if (r->srcfile) {
				cli_csv_str(f, r->srcfile);
			} else {
				fmt_srcline(r, buf, sizeof(buf), 1);
				cli_csv_str(f, buf);
			}
			fprintf(f, ",%u", r->line);
		}
		for (size_t j = 0; j < nev; j++) {
			SEP();
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%.4f", r->c[ev[j]].samples,
				r->c[ev[j]].period,
				pct_of(r->c[ev[j]].period, mp_hist_total(h, ev[j])->period));
		}
		fputc('\n', f);
	}
#undef SEP
}

static void print_json(FILE *f, const char *path, unsigned keys,
		       const struct mp_hist_result *res, const mp_hist *h, const mp_pd *pd,
		       const size_t *ev, size_t nev, double thr, const struct mp_hist_missing *m,
		       long nm)
{
	fprintf(f, "{\n  \"file\": ");
	cli_json_str(f, path);
	fprintf(f, ",\n  \"pipe_mode\": %s,", mp_pd_is_pipe(pd) ? "true" : "false");
	char sim[512];
	if (mp_pd_sim_banner(pd, sim, sizeof(sim))) {
		static const char *const keys[] = { MP_META_SIM_I1, MP_META_SIM_D1, MP_META_SIM_LL };
		fprintf(f, "\n  \"simulated\": {\"by\": ");
		cli_json_str(f, mp_pd_meta(pd, MP_META_SIMULATED));
		for (size_t k = 0; k < 3; k++) {
			const char *v = mp_pd_meta(pd, keys[k]);
			fprintf(f, ", \"%s\": ", keys[k] + 4);
			if (v)
				cli_json_str(f, v);
			else
				fputs("null", f);
		}
		fprintf(f, ", \"note\": ");
		cli_json_str(f, sim);
		fprintf(f, "},");
	}
	fprintf(f, "\n  \"events\": [");
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const struct mp_hist_counts *t = mp_hist_total(h, ev[j]);
		fprintf(f, "%s\n    {\"name\": ", j ? "," : "");
		cli_json_str(f, a->spec && *a->spec ? a->spec : a->name);
		fprintf(f, ", \"freq\": %s, \"%s\": %" PRIu64 ", \"samples\": %" PRIu64
			", \"lost\": %" PRIu64 ", \"estimated_count\": %" PRIu64,
			a->attr.freq ? "true" : "false", a->attr.freq ? "frequency" : "period",
			(uint64_t)a->attr.sample_period, t->samples, a->lost, t->period);
		if (a->has_counts)
			fprintf(f, ", \"exact_count\": %" PRIu64 ", \"time_enabled\": %" PRIu64
				", \"time_running\": %" PRIu64, a->count_value, a->count_ena,
				a->count_run);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"sort\": [");
	static const char *const kn[] = { "comm", "pid", "tid", "dso", "sym", "srcline", "addr" };
	int first = 1;
	for (unsigned b = 0; b < 7; b++)
		if (keys & (1u << b)) {
			fprintf(f, "%s\"%s\"", first ? "" : ", ", kn[b]);
			first = 0;
		}
	fprintf(f, "],\n  \"rows\": [");
	first = 1;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, h, ev, nev, thr))
			continue;
		fprintf(f, "%s\n    {", first ? "" : ",");
		first = 0;
		const char *sep = "";
		if (keys & MP_HK_COMM) {
			fprintf(f, "\"comm\": ");
			cli_json_str(f, r->comm);
			sep = ", ";
		}
		if (keys & MP_HK_PID) {
			fprintf(f, "%s\"pid\": %u", sep, r->pid);
			sep = ", ";
		}
		if (keys & MP_HK_TID) {
			fprintf(f, "%s\"tid\": %u", sep, r->tid);
			sep = ", ";
		}
		if (keys & MP_HK_DSO) {
			fprintf(f, "%s\"dso\": ", sep);
			cli_json_str(f, r->dso);
			sep = ", ";
		}
		if (keys & MP_HK_ADDR) {
			fprintf(f, "%s\"addr\": \"0x%" PRIx64 "\"", sep, r->addr);
			sep = ", ";
		}
		if (keys & MP_HK_SYM) {
			fprintf(f, "%s\"level\": \"%c\", \"sym\": ", sep, r->level ? r->level : '.');
			cli_json_str(f, r->sym);
			fprintf(f, ", \"sym_resolved\": %s", r->sym_resolved ? "true" : "false");
			sep = ", ";
		}
		if (keys & MP_HK_SRCLINE) {
			fprintf(f, "%s\"srcfile\": ", sep);
			if (r->srcfile)
				cli_json_str(f, r->srcfile);
			else
				fputs("null", f);
			fprintf(f, ", \"line\": %u", r->line);
			if (!r->srcfile && r->sym && !(keys & MP_HK_SYM)) {
				/* no line information: the place as perf names it */
				char where[4096];
				fmt_srcline(r, where, sizeof(where), 1);
				fprintf(f, ", \"where\": ");
				cli_json_str(f, where);
			}
			sep = ", ";
		}
		fprintf(f, "%s\"samples\": [", sep);
		for (size_t j = 0; j < nev; j++)
			fprintf(f, "%s%" PRIu64, j ? ", " : "", r->c[ev[j]].samples);
		fprintf(f, "], \"period\": [");
		for (size_t j = 0; j < nev; j++)
			fprintf(f, "%s%" PRIu64, j ? ", " : "", r->c[ev[j]].period);
		fprintf(f, "], \"percent\": [");
		for (size_t j = 0; j < nev; j++)
			fprintf(f, "%s%.4f", j ? ", " : "",
				pct_of(r->c[ev[j]].period, mp_hist_total(h, ev[j])->period));
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ],\n  \"missing\": [");
	for (long i = 0; i < nm; i++) {
		fprintf(f, "%s\n    {\"dso\": ", i ? "," : "");
		cli_json_str(f, m[i].dso);
		fprintf(f, ", \"no_symbols\": %s, \"no_debuginfo\": %s, \"percent\": [",
			m[i].no_symbols ? "true" : "false", m[i].no_debuginfo ? "true" : "false");
		for (size_t j = 0; j < nev && ev[j] < 8; j++)
			fprintf(f, "%s%.4f", j ? ", " : "", m[i].pct[ev[j]]);
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]\n}\n");
}

static int cmd_report(int argc, char **argv)
{
	struct report_opts o = { .sort = NULL };
	char *sort = NULL;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&o.input),
		{ 's', "sort", CLI_STR, &sort, "KEYS",
		  "group by comm,pid,tid,dso,sym,srcline,addr (default dso,sym)" },
		{ 't', "threshold", CLI_DOUBLE, &o.threshold, "PCT",
		  "hide rows below PCT percent in every event" },
		{ 0, "csv", CLI_FLAG, &o.csv, NULL, "comma-separated values, one row per place" },
		{ 0, "json", CLI_FLAG, &o.json, NULL, "JSON with the header, rows and missing info" },
		CLI_OPT_SYMFS(&o.symfs),
		CLI_OPT_KALLSYMS(&o.kallsyms),
		{ 0, "no-objects", CLI_FLAG, &o.no_objects, NULL,
		  "leave out the per-object summary table" },
		{ 'q', "quiet", CLI_FLAG, &o.quiet, NULL, "no progress display" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_report, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	o.sort = sort;
	if (nargs > 0) {
		if (o.input || nargs > 1) {
			cli_error(CMD, "unexpected argument '%s' (the input file is -i FILE)", argv[1]);
			return CLI_EXIT_USAGE;
		}
		o.input = argv[1];
	}
	if (!o.input)
		o.input = cli_default_input();
	if (o.csv && o.json) {
		cli_error(CMD, "--csv and --json exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.threshold < 0 || o.threshold > 100 || isnan(o.threshold)) {
		cli_error(CMD, "--threshold %g: must be between 0 and 100", o.threshold);
		return CLI_EXIT_USAGE;
	}
	unsigned keys = MP_HK_DSO | MP_HK_SYM;
	struct mp_err err = { 0 };
	if (o.sort && mp_hist_parse_sort(o.sort, &keys, &err)) {
		cli_error(CMD, "--sort %s: %s", o.sort, err.msg);
		return CLI_EXIT_USAGE;
	}
	if (o.symfs) {
		struct stat st;
		if (stat(o.symfs, &st) || !S_ISDIR(st.st_mode)) {
			cli_error(CMD, "--symfs %s: not a directory", o.symfs);
			return 1;
		}
	}
	if (o.kallsyms && strcmp(o.kallsyms, "/dev/null") && access(o.kallsyms, R_OK)) {
		cli_error(CMD, "--kallsyms %s: %s", o.kallsyms, strerror(errno));
		return 1;
	}

	/* progress only where it helps: on a terminal, for files that take a moment */
	struct stat ist;
	int big = stat(o.input, &ist) == 0 && ist.st_size > (16 << 20);
	struct progress_state ps = { .on = !o.quiet && big && isatty(2), .last_pct = -1,
				     .path = o.input };
	char *bdir = cli_buildid_dir(o.symfs);
	struct mp_session_opts so = { .symfs = o.symfs, .kallsyms = o.kallsyms, .buildid_dir = bdir,
				      .want_comm = (keys & MP_HK_COMM) != 0,
				      .progress = progress_cb, .progress_ctx = &ps };
	struct mp_session ss;
	rc = mp_session_open(&ss, o.input, &so, &err);
	free(bdir); /* copied by the session */
	if (rc) {
		if (ps.on)
			fprintf(stderr, "\r\033[K");
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		return 1;
	}
	size_t na = mp_pd_nattrs(ss.pd);
	size_t *ev = calloc(na + 1, sizeof(size_t));
	if (!ev) {
		mp_session_close(&ss);
		cli_error(CMD, "out of memory");
		return 1;
	}
	size_t nev = pick_events(ss.pd, ss.hist, ev);

	struct mp_hist_query q = { .keys = keys, .sort_attr = nev ? ev[0] : 0 };
	struct mp_hist_result res = { 0 }, objs = { 0 };
	struct mp_hist_missing *miss = NULL;
	long nmiss = 0;
	rc = mp_hist_query(ss.hist, ss.sym, &q, &res);
	int want_objs = !o.no_objects && !o.csv && !o.json && keys != MP_HK_DSO;
	if (!rc && want_objs) {
		struct mp_hist_query qo = { .keys = MP_HK_DSO, .sort_attr = q.sort_attr };
		rc = mp_hist_query(ss.hist, ss.sym, &qo, &objs);
	}
	if (!rc) {
		nmiss = mp_hist_missing(ss.hist, ss.sym, 1, &miss);
		if (nmiss < 0)
			rc = (int)nmiss;
	}
	if (rc) {
		cli_error(CMD, "%s: %s", o.input, mp_strerror(rc));
		goto out;
	}
	FILE *f = stdout;
	if (o.csv) {
		print_csv(f, keys, &res, ss.hist, ss.pd, ev, nev, o.threshold);
	} else if (o.json) {
		print_json(f, o.input, keys, &res, ss.hist, ss.pd, ev, nev, o.threshold, miss, nmiss);
	} else {
		print_header(f, o.input, ss.pd, ss.hist, ev, nev);
		print_missing(f, miss, nmiss, ss.pd, ss.hist, ev, nev, 0);
		if (want_objs)
			print_table_stdio(f, "Objects", MP_HK_DSO, &objs, ss.hist, ss.pd, ev, nev,
					  o.threshold);
		char title[128];
		snprintf(title, sizeof(title), "By %s", o.sort ? o.sort : "dso,sym");
		print_table_stdio(f, title, keys, &res, ss.hist, ss.pd, ev, nev, o.threshold);
	}
	if (fflush(f) || ferror(f)) {
		cli_error(CMD, "writing the report: %s", strerror(errno));
		rc = -EIO;
	}
out:
	free(miss);
	mp_hist_result_fini(&res);
	mp_hist_result_fini(&objs);
	free(ev);
	mp_session_close(&ss);
	return rc ? 1 : 0;
}

const struct cli_cmd cli_cmd_report = {
	"report", cmd_report, "samples per object, symbol and source line, like opreport",
	"[-i FILE] [--sort KEYS] [--threshold PCT] [--csv|--json]",
	"Samples, percentages and estimated counts per object, symbol and "
	"source line, one column pair per event.", 0,
};
