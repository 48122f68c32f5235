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
#include "memprof/callgraph.h"
#include "mp_analyzer.h"

#define CMD "report"
#define SKID_NOTE                                                                          \
	"# Skid: samples of skidding events (cpu-clock, imprecise hardware events) count for " \
	"the line of the instruction before the sampled one, as annotate counts them "         \
	"(--no-skid: at the sampled address, as perf)\n#\n"

struct report_opts {
	const char *input;
	const char *sort;
	const char *symfs;
	const char *kallsyms;
	const char *archive;
	const char *html;      /* --html FILE: the flame graph page instead of the table */
	double threshold;
	int csv, json, no_objects, quiet, stdio, full_names, group, force, no_skid;
	/* perf report's filters: comma-separated lists */
	const char *comms, *pids, *tids, *dsos, *syms;
	const char *events;
	/* call chains */
	int children, no_children, max_stack, folded, folded_period, inline_, no_inline;
	const char *callgraph, *pprof, *event;
};

/* The table's columns after the event columns, in --sort order (as perf). */
enum report_col { COL_REGION, COL_COMM, COL_PID, COL_TID, COL_CPU, COL_DSO, COL_ADDR, COL_SYM, COL_SRCLINE,
		  COL_SRCFILE, COL_PERIOD };
#define MAX_COLS 16
struct report_cols {
	enum report_col c[MAX_COLS];
	size_t n;
};

/* Columns and keys of a --sort list: each key where it stands, "period" a column of the
 * estimated count (perf's Period) that groups nothing. 0, or -EINVAL with err set. */
static int parse_cols(const char *list, unsigned *keys, struct report_cols *cols,
		      struct mp_err *err)
{
	static const struct {
		unsigned bit;
		enum report_col col;
	} map[] = {
		{ MP_HK_COMM, COL_COMM }, { MP_HK_PID, COL_PID },	  { MP_HK_TID, COL_TID },
		{ MP_HK_CPU, COL_CPU },	  { MP_HK_DSO, COL_DSO },	  { MP_HK_ADDR, COL_ADDR },
		{ MP_HK_SYM, COL_SYM },	  { MP_HK_SRCLINE, COL_SRCLINE }, { MP_HK_SRCFILE, COL_SRCFILE },
		{ MP_HK_REGION, COL_REGION },
	};
	char tok[64];
	*keys = 0;
	cols->n = 0;
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n >= sizeof(tok) || cols->n == MAX_COLS)
			return mp_err_set(err, -EINVAL, "sort key '%.*s' too long or too many keys",
					  (int)n, p);
		memcpy(tok, p, n);
		tok[n] = 0;
		p += n + (p[n] == ',');
		unsigned bit = 0;
		if (!strcmp(tok, "period")) {
			cols->c[cols->n++] = COL_PERIOD;
			continue;
		}
		if (mp_hist_parse_sort(tok, &bit, err))
			return mp_err_set(err, -EINVAL,
					  "unknown sort key '%s' (comm, pid, tid, cpu, region, dso, "
					  "sym, srcline, srcfile, addr, period)", tok);
		if (*keys & bit)
			continue;
		*keys |= bit;
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].bit == bit)
				cols->c[cols->n++] = map[i].col;
	}
	if (!*keys && !cols->n)
		return mp_err_set(err, -EINVAL, "empty sort key list");
	return 0;
}

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

/* The exact count as stored, unscaled. Multiplexing is a property of each counter (one
 * per CPU or thread): the summed times of an inherited event on two CPUs read "X of 2X"
 * and say nothing, so what is shown is how many counters ran less than they were enabled
 * and the least running share among them, or plainly that none did. */
static void print_exact(FILE *f, const struct mp_pd_attr *a)
{
	fprintf(f, ", exact count %" PRIu64, a->count_value);
	if (!a->count_ena)
		return;
	if (!a->count_nmux)
		fprintf(f, ", never multiplexed");
	else
		fprintf(f, ", multiplexed on %" PRIu64 " of %" PRIu64 " counters (least running "
			"share %.1f%%)", a->count_nmux, a->count_nctr,
			100.0 * (double)a->count_mux_run / (double)a->count_mux_ena);
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

/* --group: perf report's group header, one per event group of the file (GROUP_DESC):
 * the group's samples and estimated count summed over its members, as perf sums them. */
static void print_groups(FILE *f, const mp_pd *pd, const struct mp_hist_counts *tot)
{
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		size_t n = 0;
		for (size_t k = i; k < mp_pd_nattrs(pd); k++)
			n += mp_pd_attr(pd, k)->group_leader_idx == (int)i;
		if (n < 2)
			continue;
		uint64_t samples = 0, period = 0;
		for (size_t k = i; k < mp_pd_nattrs(pd); k++)
			if (mp_pd_attr(pd, k)->group_leader_idx == (int)i) {
				samples += tot[k].samples;
				period += tot[k].period;
			}
		fprintf(f, "# Samples: %" PRIu64 " of events 'anon group {", samples);
		for (size_t k = i, j = 0; k < mp_pd_nattrs(pd); k++)
			if (mp_pd_attr(pd, k)->group_leader_idx == (int)i)
				fprintf(f, "%s %s", j++ ? "," : "", mp_pd_attr(pd, k)->name);
		fprintf(f, " }'\n# Event count (approx.): %" PRIu64 "\n", period);
	}
}

/* elost: each shown event's lost samples summed over several recordings (NULL: the
 * recording's own; several recordings show no exact counts, one file's is not the sum's) */
static void print_header(FILE *f, const char *path, const mp_pd *pd, const struct mp_hist_counts *tot,
			 const uint64_t *elost, const size_t *ev, size_t nev)
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
	if (cmdl) {
		/* a multi-line command (sh -c 'a\nb') keeps the '#' of every line */
		fprintf(f, "# command: ");
		for (const char *c = cmdl; *c; c++)
			fputs(*c == '\n' ? "\n#          " : (char[2]){ *c, 0 }, f);
		fputc('\n', f);
	}
	report_print_machine(f, pd);
	fprintf(f, "#\n# Events:\n");
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const struct mp_hist_counts *t = &tot[ev[j]];
		char mode[64];
		event_mode(a, mode, sizeof(mode));
		fprintf(f, "#   [%zu] %s: %s, samples %" PRIu64 ", lost %" PRIu64
			", estimated count %" PRIu64, j, a->spec && *a->spec ? a->spec : a->name,
			mode, t->samples, elost ? elost[j] : a->lost, t->period);
		if (a->has_counts && !elost)
			print_exact(f, a);
		fputc('\n', f);
		lost += elost ? elost[j] : a->lost;
	}
	fprintf(f, "# Total lost samples: %" PRIu64 "\n", lost);
	if (mp_pd_nr_unknown_id(pd))
		fprintf(f, "# Samples with an unknown event id (not counted): %" PRIu64 "\n",
			mp_pd_nr_unknown_id(pd));
	fprintf(f, "#\n");
}

static int row_above(const struct mp_hist_row *r, const struct mp_hist_counts *tot, const size_t *ev,
		     size_t nev, double thr)
{
	if (thr <= 0)
		return 1;
	for (size_t j = 0; j < nev; j++)
		if (pct_of(r->c[ev[j]].period, tot[ev[j]].period) >= thr)
			return 1;
	return 0;
}

/* Names wider than the symbol column (60) have their template arguments shortened in the
 * text table (demo::table<...>::insert); --full-names keeps them whole. */
#define SYM_WIDTH 60
static void fmt_sym(const struct mp_hist_row *r, char *buf, size_t n, int full)
{
	const char *nm = r->sym ? r->sym : "?";
	char sh[1024];
	if (!full && strlen(nm) > SYM_WIDTH - 4 && strchr(nm, '<')) {
		mp_sym_short_name(nm, sh, sizeof(sh));
		nm = sh;
	}
	snprintf(buf, n, "[%c] %s", r->level ? r->level : '.', nm);
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

static void print_table_stdio(FILE *f, const char *title, const struct report_cols *cols,
			      const struct mp_hist_result *res, const struct mp_hist_counts *tot,
			      const mp_pd *pd, const size_t *ev, size_t nev, double thr, int full)
{
	size_t wcomm = 7, wdso = 13, wsym = 6, wfile = 11, wreg = 11;
	char buf[4096];

	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, tot, ev, nev, thr))
			continue;
		if (r->comm && strlen(r->comm) > wcomm)
			wcomm = strlen(r->comm);
		if (r->region_name && strlen(r->region_name) > wreg)
			wreg = strlen(r->region_name);
		if (r->dso && strlen(r->dso) > wdso)
			wdso = strlen(r->dso);
		if (r->sym) {
			fmt_sym(r, buf, sizeof(buf), full);
			if (strlen(buf) > wsym)
				wsym = strlen(buf);
		}
		if (r->srcfile && strlen(base_name(r->srcfile)) > wfile)
			wfile = strlen(base_name(r->srcfile));
	}
	if (wdso > 48)
		wdso = 48;
	if (wsym > SYM_WIDTH)
		wsym = SYM_WIDTH;
	/* a simulated recording's samples are one per address: its column is the count */
	int counts = mp_pd_meta(pd, MP_META_SIMULATED) != NULL;
	fprintf(f, "# %s\n#\n", title);
	/* event names above their column pairs */
	fputc('#', f);
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[j]);
		const char *nm = a->spec && *a->spec ? a->spec : a->name;
		fprintf(f, counts ? " %-22.22s" : " %-19.19s", nm ? nm : "?");
	}
	fputc('\n', f);
	fputc('#', f);
	for (size_t j = 0; j < nev; j++)
		fprintf(f, counts ? " %12s %9s" : " %9s %9s", counts ? "Count" : "Samples",
			"Overhead");
	for (size_t k = 0; k < cols->n; k++) {
		switch (cols->c[k]) {
		case COL_REGION: fprintf(f, "  %-*s", (int)wreg, "Region"); break;
		case COL_COMM: fprintf(f, "  %-*s", (int)wcomm, "Command"); break;
		case COL_PID: fprintf(f, "  %7s", "Pid"); break;
		case COL_TID: fprintf(f, "  %7s", "Tid"); break;
		case COL_CPU: fprintf(f, "  %3s", "CPU"); break;
		case COL_DSO: fprintf(f, "  %-*s", (int)wdso, "Shared Object"); break;
		case COL_ADDR: fprintf(f, "  %18s", "Address"); break;
		case COL_SYM: fprintf(f, "  %-*s", (int)wsym, "Symbol"); break;
		case COL_SRCLINE: fprintf(f, "  %s", "Source line"); break;
		case COL_SRCFILE: fprintf(f, "  %-*s", (int)wfile, "Source file"); break;
		case COL_PERIOD:
			for (size_t j = 0; j < nev; j++)
				fprintf(f, "  %14s", "Period");
			break;
		}
	}
	fprintf(f, "\n#\n");
	size_t hidden = 0;
	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, tot, ev, nev, thr)) {
			hidden++;
			continue;
		}
		fputc(' ', f);
		for (size_t j = 0; j < nev; j++)
			fprintf(f, counts ? " %12" PRIu64 " %8.2f%%" : " %9" PRIu64 " %8.2f%%",
				counts ? r->c[ev[j]].period : r->c[ev[j]].samples,
				pct_of(r->c[ev[j]].period, tot[ev[j]].period));
		for (size_t k = 0; k < cols->n; k++) {
			switch (cols->c[k]) {
			case COL_REGION:
				fprintf(f, "  %-*s", (int)wreg, r->region_name ? r->region_name : "");
				break;
			case COL_COMM: fprintf(f, "  %-*s", (int)wcomm, r->comm ? r->comm : ""); break;
			case COL_PID: fprintf(f, "  %7u", r->pid); break;
			case COL_TID: fprintf(f, "  %7u", r->tid); break;
			case COL_CPU: fprintf(f, "  %03u", r->cpu); break;
			case COL_DSO:
				fprintf(f, "  %-*s", (int)wdso, r->dso ? r->dso : "[unknown]");
				break;
			case COL_ADDR: fprintf(f, "  0x%016" PRIx64, r->addr); break;
			case COL_SYM:
				fmt_sym(r, buf, sizeof(buf), full);
				fprintf(f, "  %-*s", (int)wsym, buf);
				break;
			case COL_SRCLINE:
				fmt_srcline(r, buf, sizeof(buf), 0);
				fprintf(f, "  %s", buf);
				break;
			case COL_SRCFILE:
				fprintf(f, "  %-*s", (int)wfile,
					r->srcfile ? base_name(r->srcfile) : "??");
				break;
			case COL_PERIOD:
				for (size_t j = 0; j < nev; j++)
					fprintf(f, "  %14" PRIu64, r->c[ev[j]].period);
				break;
			}
		}
		fputc('\n', f);
	}
	if (hidden)
		fprintf(f, "# (%zu rows below %.2f%% not shown)\n", hidden, thr);
	fprintf(f, "\n");
}

static void print_missing(FILE *f, const struct mp_hist_missing *m, long n, const mp_pd *pd,
			  const struct mp_hist_counts *tot, const size_t *ev, size_t nev, int csv_style)
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
			why = m[i].flags & MP_DSO_NOT_ELF ? "not a regular ELF file" : "file not found";
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
			if (!tot[ev[j]].samples)
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
		      const struct mp_hist_counts *tot, const mp_pd *pd, const size_t *ev, size_t nev, double thr)
{
	char buf[4096];
	int first = 1;
#define SEP() do { if (!first) fputc(',', f); first = 0; } while (0)
	if (mp_pd_sim_banner(pd, buf, sizeof(buf)))
		fprintf(f, "# %s\n", buf);
	if (keys & MP_HK_REGION) { SEP(); fputs("region", f); }
	if (keys & MP_HK_COMM) { SEP(); fputs("comm", f); }
	if (keys & MP_HK_PID) { SEP(); fputs("pid", f); }
	if (keys & MP_HK_TID) { SEP(); fputs("tid", f); }
	if (keys & MP_HK_CPU) { SEP(); fputs("cpu", f); }
	if (keys & MP_HK_DSO) { SEP(); fputs("dso", f); }
	if (keys & MP_HK_ADDR) { SEP(); fputs("addr", f); }
	if (keys & MP_HK_SYM) { SEP(); fputs("level,sym", f); }
	if (keys & MP_HK_SRCLINE) { SEP(); fputs("srcfile,line", f); }
	if ((keys & (MP_HK_SRCFILE | MP_HK_SRCLINE)) == MP_HK_SRCFILE) { SEP(); fputs("srcfile", f); }
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
		if (!row_above(r, tot, ev, nev, thr))
			continue;
		first = 1;
		if (keys & MP_HK_REGION) { SEP(); cli_csv_str(f, r->region_name); }
		if (keys & MP_HK_COMM) { SEP(); cli_csv_str(f, r->comm); }
		if (keys & MP_HK_PID) { SEP(); fprintf(f, "%u", r->pid); }
		if (keys & MP_HK_TID) { SEP(); fprintf(f, "%u", r->tid); }
		if (keys & MP_HK_CPU) { SEP(); fprintf(f, "%u", r->cpu); }
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
		if ((keys & (MP_HK_SRCFILE | MP_HK_SRCLINE)) == MP_HK_SRCFILE) {
			SEP();
			cli_csv_str(f, r->srcfile);
		}
		for (size_t j = 0; j < nev; j++) {
			SEP();
			fprintf(f, "%" PRIu64 ",%" PRIu64 ",%.4f", r->c[ev[j]].samples,
				r->c[ev[j]].period,
				pct_of(r->c[ev[j]].period, tot[ev[j]].period));
		}
		fputc('\n', f);
	}
#undef SEP
}

struct json_cg {
	mp_cg *cg;
	const struct mp_cg_table *t;
	const struct report_cg *o;
};

static void print_json(FILE *f, const char *path, unsigned keys,
		       const struct mp_hist_result *res, const struct mp_hist_counts *tot, const mp_pd *pd,
		       const size_t *ev, size_t nev, double thr, const struct mp_hist_missing *m,
		       long nm, const struct json_cg *jc)
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
		const struct mp_hist_counts *t = &tot[ev[j]];
		fprintf(f, "%s\n    {\"name\": ", j ? "," : "");
		cli_json_str(f, a->spec && *a->spec ? a->spec : a->name);
		fprintf(f, ", \"freq\": %s, \"%s\": %" PRIu64 ", \"samples\": %" PRIu64
			", \"lost\": %" PRIu64 ", \"estimated_count\": %" PRIu64,
			a->attr.freq ? "true" : "false", a->attr.freq ? "frequency" : "period",
			(uint64_t)a->attr.sample_period, t->samples, a->lost, t->period);
		if (a->has_counts)
			fprintf(f, ", \"exact_count\": %" PRIu64 ", \"time_enabled\": %" PRIu64
				", \"time_running\": %" PRIu64 ", \"counters\": %" PRIu64
				", \"multiplexed_counters\": %" PRIu64, a->count_value, a->count_ena,
				a->count_run, a->count_nctr, a->count_nmux);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"sort\": [");
	static const char *const kn[] = { "comm", "pid",  "tid", "dso",	   "sym",
					  "srcline", "addr", "cpu", "srcfile", "region" };
	int first = 1;
	for (unsigned b = 0; b < 10; b++)
		if (keys & (1u << b)) {
			fprintf(f, "%s\"%s\"", first ? "" : ", ", kn[b]);
			first = 0;
		}
	fprintf(f, "],\n  \"rows\": [");
	first = 1;
	struct mp_hist_result none = { 0 };
	if (jc) {
		report_cg_print_json_rows(f, jc->cg, jc->t, ev, nev, jc->o, thr);
		res = &none; /* the rows are those */
	}
	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!row_above(r, tot, ev, nev, thr))
			continue;
		fprintf(f, "%s\n    {", first ? "" : ",");
		first = 0;
		const char *sep = "";
		if (keys & MP_HK_REGION) {
			fprintf(f, "\"region\": ");
			cli_json_str(f, r->region_name);
			sep = ", ";
		}
		if (keys & MP_HK_COMM) {
			fprintf(f, "%s\"comm\": ", sep);
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
		if (keys & MP_HK_CPU) {
			fprintf(f, "%s\"cpu\": %u", sep, r->cpu);
			sep = ", ";
		}
		if ((keys & (MP_HK_SRCFILE | MP_HK_SRCLINE)) == MP_HK_SRCFILE) {
			fprintf(f, "%s\"srcfile\": ", sep);
			cli_json_str(f, r->srcfile);
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
				pct_of(r->c[ev[j]].period, tot[ev[j]].period));
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

/* A filter of one value makes its column the same on every row: left out, as perf does. */
static void elide_single(struct report_cols *cols, enum report_col c, const char *filter)
{
	if (!filter || strchr(filter, ',') || cols->n < 2)
		return;
	for (size_t k = 0; k < cols->n; k++)
		if (cols->c[k] == c) {
			memmove(&cols->c[k], &cols->c[k + 1], (cols->n - k - 1) * sizeof(cols->c[0]));
			cols->n--;
			return;
		}
}

/* Does the recording hold samples of more than one command? */
static int several_comms(struct mp_session *ss)
{
	struct mp_hist_query q = { .keys = MP_HK_COMM };
	struct mp_hist_result r;
	if (mp_hist_query(ss->hist, ss->sym, &q, &r))
		return 0;
	int several = r.nrows > 1;
	mp_hist_result_fini(&r);
	return several;
}

static int report_many(const struct report_opts *o, unsigned keys,
		       const struct report_cols *cols, const char *bdir);

static int report_run(int argc, char **argv, char **inputs)
{
	struct report_opts o = { .sort = NULL };
	char *sort = NULL;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUTS(inputs),
		CLI_OPT_FORCE(&o.force),
		{ 's', "sort", CLI_STR, &sort, "KEYS",
		  "group by comm,pid,tid,cpu,region,dso,sym,srcline,srcfile,addr, columns in this order; "
		  "period adds the estimated count (default dso,sym; comm,dso,sym with several "
		  "commands); socket,node (with cpu): by the recorded topology" },
		{ 'e', "events", CLI_STR, &o.events, "EVENTS",
		  "show these events' columns, in this order (the first sorts; default: every "
		  "sampled event)" },
		{ 't', "threshold", CLI_DOUBLE, &o.threshold, "PCT",
		  "hide rows below PCT percent in every event" },
		{ 0, "percent-limit", CLI_DOUBLE, &o.threshold, "PCT", "the same as --threshold (perf's name)" },
		{ 0, "comm", CLI_STR, &o.comms, "COMMS",
		  "only samples of these commands (comma-separated, as perf)" },
		{ 0, "pid", CLI_STR, &o.pids, "PIDS", "only samples of these processes" },
		{ 0, "tid", CLI_STR, &o.tids, "TIDS", "only samples of these threads" },
		{ 'd', "dso", CLI_STR, &o.dsos, "DSOS",
		  "only samples in these objects (short names or paths)" },
		{ 'S', "symbols", CLI_STR, &o.syms, "SYMS", "only samples in these symbols" },
		{ 0, "stdio", CLI_FLAG, &o.stdio, NULL, "text output (the default; accepted as perf)" },
		{ 0, "no-skid", CLI_FLAG, &o.no_skid, NULL,
		  "srcline, srcfile: count skidding events' samples at the sampled address, as "
		  "perf (default: one instruction back, as annotate)" },
		{ 0, "full-names", CLI_FLAG, &o.full_names, NULL,
		  "C++ names whole in the text table (long ones have their template arguments "
		  "shortened to <...>)" },
		{ 0, "csv", CLI_FLAG, &o.csv, NULL, "comma-separated values, one row per place" },
		{ 0, "json", CLI_FLAG, &o.json, NULL, "JSON with the header, rows and missing info" },
		CLI_OPT_SYMFS(&o.symfs),
		CLI_OPT_KALLSYMS(&o.kallsyms),
		CLI_OPT_ARCHIVE(&o.archive),
		{ 0, "no-objects", CLI_FLAG, &o.no_objects, NULL,
		  "leave out the per-object summary table" },
		{ 'q', "quiet", CLI_FLAG, &o.quiet, NULL, "no progress display" },
		{ 0, "html", CLI_STR, &o.html, "FILE",
		  "write an interactive flame graph of the call chains to FILE, one self-contained "
		  "HTML page (zoom, search, caller view, ratio heat colouring, hot symbols)" },
		{ 0, "group", CLI_FLAG, &o.group, NULL,
		  "perf's group header: each event group's samples summed over its members" },
		{ 0, "children", CLI_FLAG, &o.children, NULL,
		  "Children (samples anywhere in the call chain) beside Self per symbol: the "
		  "default when the recording has call chains" },
		{ 0, "no-children", CLI_FLAG, &o.no_children, NULL,
		  "self samples only, as without call chains" },
		{ 'g', "call-graph", CLI_STR, &o.callgraph, "SPEC",
		  "call chains under each symbol, as perf's -g: graph|flat|folded|none, a minimum "
		  "percent, caller|callee, comma-separated (default graph,0.5,caller)" },
		{ 0, "inline", CLI_FLAG, &o.inline_, NULL,
		  "inlined functions (DWARF) as call-chain frames and Children entries of their "
		  "own in every chain (default: in DWARF-unwound chains, as perf)" },
		{ 0, "no-inline", CLI_FLAG, &o.no_inline, NULL,
		  "call chains of symbols only: no inlined functions" },
		{ 0, "max-stack", CLI_INT, &o.max_stack, "N",
		  "use at most N addresses of each call chain (default: all)" },
		{ 0, "folded", CLI_FLAG, &o.folded, NULL,
		  "only the distinct stacks, one line each: comm;caller;...;leaf samples (the "
		  "input of FlameGraph, inferno, speedscope)" },
		{ 0, "folded-period", CLI_FLAG, &o.folded_period, NULL,
		  "--folded with estimated counts (periods) instead of samples" },
		{ 0, "pprof", CLI_STR, &o.pprof, "FILE",
		  "write the call chains as a gzipped pprof profile (profile.proto) to FILE: per "
		  "event samples and estimated counts, source lines, inline frames, build-ids" },
		{ 0, "event", CLI_STR, &o.event, "EVENT",
		  "the event --folded shows (its name or column number; default the first)" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_report, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	o.sort = sort;
	o.input = *inputs;
	if (nargs > 0) {
		if (o.input || nargs > 1) {
			cli_error(CMD, "unexpected argument '%s' (the input file is -i FILE)", argv[1]);
			return CLI_EXIT_USAGE;
		}
		o.input = argv[1];
	}
	if (!o.input)
		if (!(o.input = cli_default_input_of(CMD)))
			return 1;
	if (cli_input_owner_ok(CMD, o.input, o.force))
		return CLI_EXIT_RUNTIME;
	if (o.csv && o.json) {
		cli_error(CMD, "--csv and --json exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.threshold < 0 || o.threshold > 100 || isnan(o.threshold)) {
		cli_error(CMD, "--threshold %g: must be between 0 and 100", o.threshold);
		return CLI_EXIT_USAGE;
	}
	if (o.stdio && (o.csv || o.json)) {
		cli_error(CMD, "--stdio and --%s exclude each other", o.csv ? "csv" : "json");
		return CLI_EXIT_USAGE;
	}
	struct report_cg cgo = { .mode = REPORT_CG_GRAPH, .min_pct = 0.5 };
	char cgerr[256];
	if (o.callgraph && report_cg_parse(o.callgraph, &cgo, cgerr, sizeof(cgerr))) {
		cli_error(CMD, "--call-graph %s: %s", o.callgraph, cgerr);
		return CLI_EXIT_USAGE;
	}
	if (o.inline_ && o.no_inline) {
		cli_error(CMD, "--inline and --no-inline exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.children && o.no_children) {
		cli_error(CMD, "--children and --no-children exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o.max_stack < 0) {
		cli_error(CMD, "--max-stack %d: must be 0 (all) or more", o.max_stack);
		return CLI_EXIT_USAGE;
	}
	o.folded |= o.folded_period;
	if ((o.folded || o.pprof) && (o.csv || o.json || o.stdio)) {
		cli_error(CMD, "--%s excludes --stdio, --csv and --json", o.folded ? "folded" : "pprof");
		return CLI_EXIT_USAGE;
	}
	cgo.children = !o.no_children;
	cgo.max_stack = (unsigned)o.max_stack;
	/* asked for call chains (else: shown when the recording has them) */
	int cg_asked = o.callgraph || o.children || o.folded || o.pprof || o.max_stack;
	int ckeys[3], nckeys = 0;
	int bycpu = report_cpu_keys(o.sort, ckeys, &nckeys);
	if (bycpu < 0)
		return CLI_EXIT_USAGE;
	if (bycpu && cg_asked) {
		cli_error(CMD, "call chains are shown by symbol: --sort %s does not take them", o.sort);
		return CLI_EXIT_USAGE;
	}
	if (bycpu)
		return report_by_cpu(o.input, o.sort, ckeys, nckeys);
	unsigned keys = MP_HK_DSO | MP_HK_SYM;
	struct report_cols cols = { .c = { COL_DSO, COL_SYM }, .n = 2 };
	struct mp_err err = { 0 };
	if (o.sort && parse_cols(o.sort, &keys, &cols, &err)) {
		cli_error(CMD, "--sort %s: %s", o.sort, err.msg);
		return CLI_EXIT_USAGE;
	}
	if (!keys) /* --sort period alone: the default grouping with a Period column */
		keys = MP_HK_DSO | MP_HK_SYM;
	elide_single(&cols, COL_COMM, o.comms);
	elide_single(&cols, COL_DSO, o.dsos);
	elide_single(&cols, COL_SYM, o.syms);
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

	char *adir = NULL, *akall = NULL, *first = strdup(o.input);
	if (first)
		first[strcspn(first, ",")] = 0;
	if (o.archive && (!first || cli_archive_use(CMD, o.archive, first, &adir, &akall))) {
		free(first);
		return 1;
	}
	free(first);
	if (!o.kallsyms)
		o.kallsyms = akall;
	char *bdir = adir ? strdup(adir) : cli_buildid_dir(o.symfs);
	if (o.html) {
		if (strchr(o.input, ',')) {
			cli_error(CMD, "--html reads one recording");
			rc = CLI_EXIT_USAGE;
		} else {
			rc = cli_report_html(o.input, o.html, o.symfs, o.kallsyms, bdir);
		}
		free(bdir);
		cli_archive_done(&adir, &akall);
		return rc;
	}
	/* call chains: by comm, object and symbol only, of all samples, of one recording */
	const char *cg_no = (keys & ~(unsigned)(MP_HK_COMM | MP_HK_DSO | MP_HK_SYM)) ||
					    (cols.n && cols.c[cols.n - 1] == COL_PERIOD)
				    ? "--sort with keys other than comm, dso, sym"
			    : (o.comms || o.pids || o.tids || o.dsos || o.syms) ? "filters"
			    : strchr(o.input, ',') ? "several recordings"
						   : NULL;
	/* a regular file is looked at first (opened once: the session reads it from there); a
	 * pipe (-i -) cannot be: read with the call graph and shown with it when chains came */
	struct stat cst;
	int regular = strcmp(o.input, "-") && !stat(o.input, &cst) && S_ISREG(cst.st_mode);
	int cg_maybe = !cg_asked && !o.no_children && !cg_no && !regular;
	int want_cg = cg_asked || cg_maybe;
	mp_pd *opened = NULL;
	if (!want_cg && !o.no_children && !cg_no) {
		if (!(opened = mp_pd_open(o.input, &err))) {
			cli_error(CMD, "%s", err.msg);
			free(bdir);
			cli_archive_done(&adir, &akall);
			return 1;
		}
		want_cg = report_has_chains(opened);
	}
	if (cg_asked && cg_no) {
		cli_error(CMD, "call chains (-g, --children, --folded, --pprof, --max-stack) are not "
			  "shown with %s", cg_no);
		free(bdir);
		cli_archive_done(&adir, &akall);
		return CLI_EXIT_USAGE;
	}
	if (strchr(o.input, ',')) {
		if (keys & MP_HK_REGION) {
			cli_error(CMD, "--sort region reads one recording at a time");
			free(bdir);
			cli_archive_done(&adir, &akall);
			return 1;
		}
		rc = report_many(&o, keys, &cols, bdir);
		free(bdir);
		cli_archive_done(&adir, &akall);
		return rc;
	}

	/* progress only where it helps: on a terminal, for files that take a moment */
	struct stat ist;
	int big = stat(o.input, &ist) == 0 && ist.st_size > (16 << 20);
	struct progress_state ps = { .on = !o.quiet && big && isatty(2), .last_pct = -1,
				     .path = o.input };
	struct mp_session_opts so = { .symfs = o.symfs, .kallsyms = o.kallsyms, .buildid_dir = bdir,
				      .want_comm = (keys & MP_HK_COMM) || o.comms ||
						   (!o.sort && !o.csv && !o.json),
				      .want_cpu = (keys & MP_HK_CPU) != 0,
				      .want_region = (keys & MP_HK_REGION) != 0,
				      .progress = progress_cb, .progress_ctx = &ps, .pd = opened };
	struct mp_session ss;
	mp_cg *cg = NULL;
	struct mp_cg_table cgt = { 0 };
	mp_unwind *uw = NULL;
	if (want_cg) {
		/* chains as memprof script shows them: fp as recorded, dwarf and lbr unwound */
		uw = mp_unwind_new(NULL, NULL, &err);
		struct mp_cg_opts co = { .ips = mp_unwind_ips, .ips_ctx = uw, .want_comm = 1,
					 .max_stack = cgo.max_stack, .caller_limit = !cgo.callee,
					 .inline_entries = !o.no_inline };
		if (uw) {
			rc = mp_cg_session_open(&ss, &cg, o.input, &so, &co, &err);
		} else {
			mp_pd_close(opened);
			rc = -ENOMEM;
		}
	} else {
		rc = mp_session_open(&ss, o.input, &so, &err);
	}
	free(bdir); /* copied by the session */
	if (rc) {
		if (ps.on)
			fprintf(stderr, "\r\033[K");
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		mp_unwind_free(uw);
		cli_archive_done(&adir, &akall);
		return 1;
	}
	if ((keys & MP_HK_REGION) && !ss.regions) {
		cli_error(CMD, "%s: --sort region: the recording has no regions (record it with "
			  "memprof record --regions)", o.input);
		mp_session_close(&ss);
		cli_archive_done(&adir, &akall);
		return 1;
	}
	size_t na = mp_pd_nattrs(ss.pd);
	size_t *ev = calloc(na + 1, sizeof(size_t));
	struct mp_hist_counts *tot = calloc(na + 1, sizeof(*tot));
	if (!ev || !tot) {
		free(ev);
		free(tot);
		mp_cg_free(cg);
		mp_unwind_free(uw);
		mp_session_close(&ss);
		cli_archive_done(&adir, &akall);
		cli_error(CMD, "out of memory");
		return 1;
	}
	size_t nev = pick_events(ss.pd, ss.hist, ev);
	for (size_t i = 0; i < na; i++)
		tot[i] = *mp_hist_total(ss.hist, i);
	if (o.events && (rc = cli_select_events(CMD, ss.pd, o.events, ev, &nev))) {
		free(ev);
		free(tot);
		mp_cg_free(cg);
		mp_unwind_free(uw);
		mp_session_close(&ss);
		cli_archive_done(&adir, &akall);
		return rc;
	}
	if (cg && cg_maybe && !mp_cg_nr_chains(cg)) {
		mp_cg_free(cg); /* no chains came: the report without them */
		cg = NULL;
	}
	struct mp_hist_result res = { 0 }, objs = { 0 };
	struct mp_hist_missing *miss = NULL;
	long nmiss = 0;
	unsigned char *skid = NULL;
	if (cg && (o.callgraph || o.folded) && !mp_cg_nr_chains(cg)) {
		cli_error(CMD, "%s: no call chains in the recording (record with -g)", o.input);
		rc = -EINVAL;
		goto out;
	}
	/* inlined functions in the chains: as perf 6.1, in DWARF-unwound chains (by default;
	 * --inline: in every chain) */
	int inl = 0;
	for (size_t i = 0; cg && !o.no_inline && i < mp_pd_nattrs(ss.pd); i++)
		inl |= o.inline_ || (mp_pd_attr(ss.pd, i)->attr.sample_type & PERF_SAMPLE_STACK_USER);
	if (cg && o.pprof) {
		struct mp_cg_pprof_event *pe = calloc(nev + 1, sizeof(*pe));
		char comment[4200];
		snprintf(comment, sizeof(comment), "memprof report --pprof of %s", o.input);
		for (size_t j = 0; pe && j < nev; j++) {
			const struct mp_pd_attr *a = mp_pd_attr(ss.pd, ev[j]);
			pe[j] = (struct mp_cg_pprof_event){
				.name = a->spec && *a->spec ? a->spec : a->name, .attr = ev[j],
				.period = a->attr.freq ? 0 : a->attr.sample_period };
		}
		rc = pe ? mp_cg_pprof_write(cg, ss.sym, pe, nev, comment, o.pprof, &err)
			: mp_err_set(&err, -ENOMEM, "%s: out of memory", o.pprof);
		free(pe);
		if (rc)
			cli_error(CMD, "%s", err.msg);
		goto out;
	}
	if (cg && o.folded) {
		size_t fe = 0;
		if (o.event && report_pick_event(ss.pd, ev, nev, o.event, &fe)) {
			cli_error(CMD, "--event %s: not an event of %s", o.event, o.input);
			rc = -EINVAL;
			goto out;
		}
		if ((rc = mp_cg_resolve(cg, ss.sym, inl ? 2 : 0)) ||
		    (rc = report_cg_folded(stdout, cg, nev ? ev[fe] : 0, o.folded_period, inl))) {
			cli_error(CMD, "%s: %s", o.input, mp_strerror(rc));
			goto out;
		}
		goto flush;
	}

	if (!o.sort && !o.csv && !o.json && several_comms(&ss)) {
		/* several commands in the file (-a, a shell and its children): say whose (the
		 * text table; --csv and --json keep dso,sym for the scripts that read them) */
		keys |= MP_HK_COMM;
		memmove(&cols.c[1], &cols.c[0], cols.n * sizeof(cols.c[0]));
		cols.c[0] = COL_COMM;
		cols.n++;
	}
	/* one skid rule for lines in report and annotate: back one instruction */
	skid = calloc(na + 1, 1);
	int skids = 0;
	for (size_t i = 0; skid && i < na && !o.no_skid && (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE));
	     i++)
		skids |= skid[i] = (unsigned char)mp_ann_event_skids(&mp_pd_attr(ss.pd, i)->attr);
	struct mp_hist_query q = { .keys = keys, .sort_attr = nev ? ev[0] : 0, .skid = skid,
				   .comms = o.comms, .pids = o.pids, .tids = o.tids,
				   .dsos = o.dsos, .syms = o.syms, .regions = ss.regions };
	rc = mp_hist_query(ss.hist, ss.sym, &q, &res);
	int want_objs = !o.no_objects && !o.csv && !o.json && keys != MP_HK_DSO;
	if (!rc && want_objs) {
		struct mp_hist_query qo = q;
		qo.keys = MP_HK_DSO;
		rc = mp_hist_query(ss.hist, ss.sym, &qo, &objs);
	}
	if (!rc) {
		nmiss = mp_hist_missing(ss.hist, ss.sym, 1, &miss);
		if (nmiss < 0)
			rc = (int)nmiss;
	}
	if (!rc && cg && !(rc = mp_cg_resolve(cg, ss.sym, inl ? 2 : 0)))
		rc = mp_cg_table(cg, nev ? ev[0] : 0, (keys & MP_HK_COMM) != 0, &cgt);
	if (rc) {
		cli_error(CMD, "%s: %s", o.input, mp_strerror(rc));
		goto out;
	}
	FILE *f = stdout;
	if (o.csv && cg) {
		report_cg_print_csv(f, cg, &cgt, ss.pd, ev, nev, o.threshold);
	} else if (o.csv) {
		print_csv(f, keys, &res, tot, ss.pd, ev, nev, o.threshold);
	} else if (o.json) {
		struct json_cg jc = { cg, &cgt, &cgo };
		print_json(f, o.input, keys, &res, tot, ss.pd, ev, nev, o.threshold, miss, nmiss,
			   cg ? &jc : NULL);
	} else {
		print_header(f, o.input, ss.pd, tot, NULL, ev, nev);
		if (o.group) {
			print_groups(f, ss.pd, tot);
			fprintf(f, "#\n");
		}
		if (skids)
			fputs(SKID_NOTE, f);
		print_missing(f, miss, nmiss, ss.pd, tot, ev, nev, 0);
		static const struct report_cols objcols = { .c = { COL_DSO }, .n = 1 };
		if (want_objs)
			print_table_stdio(f, "Objects", &objcols, &objs, tot, ss.pd, ev, nev,
					  o.threshold, o.full_names);
		char title[128];
		snprintf(title, sizeof(title), "By %s",
			 o.sort ? o.sort : keys & MP_HK_COMM ? "comm,dso,sym" : "dso,sym");
		if (cg)
			rc = report_cg_print_table(f, cg, &cgt, ss.pd, ev, nev, &cgo, o.threshold,
						   o.full_names);
		else
			print_table_stdio(f, title, &cols, &res, tot, ss.pd, ev, nev, o.threshold,
					  o.full_names);
		if (rc)
			cli_error(CMD, "%s: %s", o.input, mp_strerror(rc));
	}
flush:
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(CMD, "writing the report: %s", strerror(errno));
		rc = -EIO;
	}
out:
	free(skid);
	free(miss);
	mp_hist_result_fini(&res);
	mp_hist_result_fini(&objs);
	free(ev);
	free(tot);
	mp_cg_table_fini(&cgt);
	mp_cg_free(cg);
	mp_unwind_free(uw);
	mp_session_close(&ss);
	cli_archive_done(&adir, &akall); /* objects are read lazily: only now */
	return rc ? 1 : 0;
}

static int cmd_report(int argc, char **argv)
{
	char *inputs = NULL; /* -i FILE, repeated: joined with ',' */
	int rc = report_run(argc, argv, &inputs);
	free(inputs);
	return rc;
}

/* ---- report -i A -i B: several recordings summed ------------------------------------ */

struct merged_sort {
	const size_t *ev;
	size_t nev;
};

static int merged_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct mp_hist_row *a = pa, *b = pb;
	const struct merged_sort *c = ctx;
	for (size_t j = 0; j < c->nev; j++)
		if (a->c[c->ev[j]].period != b->c[c->ev[j]].period)
			return a->c[c->ev[j]].period > b->c[c->ev[j]].period ? -1 : 1;
	return 0;
}

/* A merged table as a query result of the first recording's shape: counts at its attrs,
 * rows by count, the first event first. */
static int merged_result(const struct mp_multi *m, const struct mp_hist_merged *mg, size_t na,
			 struct mp_hist_result *res)
{
	res->nrows = mg->nrows;
	res->nattrs = na;
	res->rows = calloc(mg->nrows + 1, sizeof(*res->rows));
	res->counts = calloc((mg->nrows + 1) * na, sizeof(*res->counts));
	if (!res->rows || !res->counts)
		return -ENOMEM;
	for (size_t r = 0; r < mg->nrows; r++) {
		res->rows[r] = mg->rows[r];
		res->rows[r].c = res->counts + r * na;
		for (size_t j = 0; j < m->nev; j++)
			res->counts[r * na + m->ev[j]] = mg->counts[r * mg->ncols + j];
	}
	struct merged_sort sc = { m->ev, m->nev };
	qsort_r(res->rows, res->nrows, sizeof(*res->rows), merged_cmp, &sc);
	return 0;
}

static void print_inputs(FILE *f, const struct mp_multi *m, struct mp_hist_missing **miss,
			 const long *nmiss, struct mp_hist_counts **tots)
{
	fprintf(f, "# %zu recordings summed (places matched by name, events by attributes):\n", m->n);
	for (size_t i = 0; i < m->n; i++) {
		const char *cmdl = mp_pd_feature_str(m->ss[i].pd, 11);
		const struct mp_pd_attr *a = mp_pd_attr(m->ss[i].pd, m->map[i * m->nev]);
		fprintf(f, "#   %s: %" PRIu64 " samples of %s, lost %" PRIu64 "%s%s\n", m->paths[i],
			mp_hist_total(m->ss[i].hist, m->map[i * m->nev])->samples,
			a->spec && *a->spec ? a->spec : a->name, a->lost,
			cmdl ? ", command: " : "", cmdl && !strchr(cmdl, '\n') ? cmdl : "");
	}
	fprintf(f, "#\n");
	for (size_t i = 0; i < m->n; i++)
		if (nmiss[i] > 0) {
			fprintf(f, "# in %s:\n", m->paths[i]);
			print_missing(f, miss[i], nmiss[i], m->ss[i].pd, tots[i], m->map + i * m->nev,
				      m->nev, 0);
		}
}

static int report_many(const struct report_opts *o, unsigned keys,
		       const struct report_cols *cols, const char *bdir)
{
	struct mp_err err = { 0 };
	char *list = strdup(o->input);
	size_t n = 1;
	for (const char *p = o->input; *p; p++)
		n += *p == ',';
	const char **paths = calloc(n, sizeof(*paths));
	struct mp_hist_missing **miss = calloc(n, sizeof(*miss));
	long *nmiss = calloc(n, sizeof(*nmiss));
	struct mp_hist_counts **tots = calloc(n, sizeof(*tots));
	struct mp_hist_counts *tot = NULL;
	uint64_t *lost = NULL;
	struct mp_hist_result res = { 0 }, objs = { 0 };
	struct mp_hist_merged mg = { 0 }, mo = { 0 };
	struct mp_multi m = { 0 };
	int rc = -ENOMEM, opened = 0;
	if (!list || !paths || !miss || !nmiss || !tots)
		goto nomem;
	n = 0;
	for (char *s = list, *tok; (tok = strsep(&s, ","));)
		paths[n++] = tok;
	struct mp_session_opts so = { .symfs = o->symfs, .kallsyms = o->kallsyms, .buildid_dir = bdir,
				      .want_comm = (keys & MP_HK_COMM) || o->comms,
				      .want_cpu = (keys & MP_HK_CPU) != 0 };
	if ((rc = mp_multi_open(&m, paths, NULL, n, 1, &so, &err))) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		goto out;
	}
	opened = 1;
	for (size_t i = 1; i < n; i++) {
		const char *what = mp_pd_build_id_differs(m.ss[0].pd, m.ss[i].pd);
		if (what)
			cli_warn(CMD, "%s: %s has another build-id than in %s (its places are matched "
				 "by name)", paths[i], what, paths[0]);
	}
	size_t na = mp_pd_nattrs(m.ss[0].pd);
	tot = calloc(na + 1, sizeof(*tot));
	lost = calloc(m.nev + 1, sizeof(*lost));
	if (!tot || !lost)
		goto nomem;
	for (size_t j = 0; j < m.nev; j++) {
		tot[m.ev[j]] = m.total[j];
		for (size_t i = 0; i < n; i++)
			lost[j] += mp_pd_attr(m.ss[i].pd, m.map[i * m.nev + j])->lost;
	}
	/* the skid rule of report_run, each file's events by their own attributes */
	static const unsigned char skid_on = 1;
	int skids = 0;
	for (size_t j = 0; j < m.nev && !o->no_skid && (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE)); j++)
		skids |= mp_ann_event_skids(&mp_pd_attr(m.ss[0].pd, m.ev[j])->attr);
	struct mp_hist_query q = { .keys = keys, .comms = o->comms, .pids = o->pids,
				   .tids = o->tids, .dsos = o->dsos, .syms = o->syms,
				   .skid = skids ? &skid_on : NULL };
	if ((rc = mp_multi_query(&m, &q, &mg)) || (rc = merged_result(&m, &mg, na, &res)))
		goto fail;
	int want_objs = !o->no_objects && !o->csv && !o->json && keys != MP_HK_DSO;
	if (want_objs) {
		struct mp_hist_query qo = q;
		qo.keys = MP_HK_DSO;
		if ((rc = mp_multi_query(&m, &qo, &mo)) || (rc = merged_result(&m, &mo, na, &objs)))
			goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		size_t nai = mp_pd_nattrs(m.ss[i].pd);
		nmiss[i] = mp_hist_missing(m.ss[i].hist, m.ss[i].sym, 1, &miss[i]);
		tots[i] = calloc(nai + 1, sizeof(**tots));
		if (nmiss[i] < 0 || !tots[i]) {
			rc = nmiss[i] < 0 ? (int)nmiss[i] : -ENOMEM;
			goto fail;
		}
		for (size_t k = 0; k < nai; k++)
			tots[i][k] = *mp_hist_total(m.ss[i].hist, k);
	}
	const mp_pd *pd = m.ss[0].pd;
	FILE *f = stdout;
	if (o->csv) {
		print_csv(f, keys, &res, tot, pd, m.ev, m.nev, o->threshold);
	} else if (o->json) {
		print_json(f, o->input, keys, &res, tot, pd, m.ev, m.nev, o->threshold, miss[0],
			   nmiss[0], NULL);
	} else {
		print_header(f, o->input, pd, tot, lost, m.ev, m.nev);
		print_inputs(f, &m, miss, nmiss, tots);
		if (skids)
			fputs(SKID_NOTE, f);
		static const struct report_cols objcols = { .c = { COL_DSO }, .n = 1 };
		if (want_objs)
			print_table_stdio(f, "Objects", &objcols, &objs, tot, pd, m.ev, m.nev,
					  o->threshold, o->full_names);
		char title[128];
		snprintf(title, sizeof(title), "By %s", o->sort ? o->sort : "dso,sym");
		print_table_stdio(f, title, cols, &res, tot, pd, m.ev, m.nev, o->threshold,
				  o->full_names);
	}
	rc = 0;
	if (fflush(f) || ferror(f)) {
		cli_error(CMD, "writing the report: %s", strerror(errno));
		rc = -EIO;
	}
	goto out;
nomem:
	rc = -ENOMEM;
fail:
	cli_error(CMD, "%s: %s", o->input, mp_strerror(rc));
out:
	for (size_t i = 0; i < n; i++) {
		if (miss)
			free(miss[i]);
		if (tots)
			free(tots[i]);
	}
	free(miss);
	free(nmiss);
	free(tots);
	free(tot);
	free(lost);
	mp_hist_result_fini(&res);
	mp_hist_result_fini(&objs);
	mp_hist_merged_fini(&mg);
	mp_hist_merged_fini(&mo);
	if (opened)
		mp_multi_close(&m);
	free(paths);
	free(list);
	return rc ? 1 : 0;
}

const struct cli_cmd cli_cmd_report = {
	"report", cmd_report, "samples per object, symbol and source line, like opreport",
	"[-i FILE] [-e EVENTS] [--sort KEYS] [--comm C] [--pid P] [--tid T] [--dso D] [--symbols S] "
	"[--percent-limit PCT] [--stdio|--csv|--json] [--no-children] [-g SPEC] "
	"[--max-stack N] [--folded] [--pprof FILE]",
	"Samples, percentages and estimated counts per object, symbol and "
	"source line, one column pair per event.", 0,
};
