/* memprof report's text form: the header (recording, machine, events), perf's group
 * header, the tables of rows and the missing symbols or debug info. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

double report_pct(uint64_t v, uint64_t total)
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
	fprintf(f, ", exact count %" PRIu64, a->count.val);
	if (!a->count.ena)
		return;
	if (!a->count_nmux)
		fprintf(f, ", never multiplexed");
	else
		fprintf(f, ", multiplexed on %" PRIu64 " of %" PRIu64 " counters (least running "
			"share %.1f%%)", a->count_nmux, a->count_nctr,
			100.0 * (double)a->count_mux_run / (double)a->count_mux_ena);
}

/* --group: perf report's group header, one per event group of the file (GROUP_DESC):
 * the group's samples and estimated count summed over its members, as perf sums them. */
void report_print_groups(FILE *f, const mp_pd *pd, const struct mp_hist_counts *tot)
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
void report_print_header(FILE *f, const char *path, const mp_pd *pd,
			 const struct mp_hist_counts *tot, const uint64_t *elost, const size_t *ev,
			 size_t nev)
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

int report_row_above(const struct mp_hist_row *r, const struct mp_hist_counts *tot,
		     const size_t *ev, size_t nev, double thr)
{
	if (thr <= 0)
		return 1;
	for (size_t j = 0; j < nev; j++)
		if (report_pct(r->c[ev[j]].period, tot[ev[j]].period) >= thr)
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

void report_fmt_srcline(const struct mp_hist_row *r, char *buf, size_t n, int full)
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

void report_print_table(FILE *f, const char *title, const struct report_cols *cols,
			const struct mp_hist_result *res, const struct mp_hist_counts *tot,
			const mp_pd *pd, const size_t *ev, size_t nev, double thr, int full)
{
	size_t wcomm = 7, wdso = 13, wsym = 6, wfile = 11, wreg = 11;
	char buf[4096];

	for (size_t i = 0; i < res->nrows; i++) {
		const struct mp_hist_row *r = &res->rows[i];
		if (!report_row_above(r, tot, ev, nev, thr))
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
		if (!report_row_above(r, tot, ev, nev, thr)) {
			hidden++;
			continue;
		}
		fputc(' ', f);
		for (size_t j = 0; j < nev; j++)
			fprintf(f, counts ? " %12" PRIu64 " %8.2f%%" : " %9" PRIu64 " %8.2f%%",
				counts ? r->c[ev[j]].period : r->c[ev[j]].samples,
				report_pct(r->c[ev[j]].period, tot[ev[j]].period));
		for (size_t k = 0; k < cols->n; k++) {
			switch (cols->c[k]) {
			case COL_REGION:
				fprintf(f, "  %-*s", (int)wreg, r->region_name ? r->region_name : "");
				break;
			case COL_COMM: fprintf(f, "  %-*s", (int)wcomm, r->comm ? r->comm : ""); break;
			/* signed, as perf: a task that had exited when sampled is -1 */
			case COL_PID: fprintf(f, "  %7d", (int32_t)r->pid); break;
			case COL_TID: fprintf(f, "  %7d", (int32_t)r->tid); break;
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
				report_fmt_srcline(r, buf, sizeof(buf), 0);
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

void report_print_missing(FILE *f, const struct mp_hist_missing *m, long n, const mp_pd *pd,
			  const struct mp_hist_counts *tot, const size_t *ev, size_t nev,
			  int csv_style)
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
