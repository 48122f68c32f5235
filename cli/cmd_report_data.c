/* memprof report --csv and --json: the same rows for scripts. */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"

void report_print_csv(FILE *f, unsigned keys, const struct mp_hist_result *res,
		      const struct mp_hist_counts *tot, const mp_pd *pd, const size_t *ev,
		      size_t nev, double thr)
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
		if (!report_row_above(r, tot, ev, nev, thr))
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
				report_fmt_srcline(r, buf, sizeof(buf), 1);
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
				report_pct(r->c[ev[j]].period, tot[ev[j]].period));
		}
		fputc('\n', f);
	}
#undef SEP
}

void report_print_json(FILE *f, const char *path, unsigned keys,
		       const struct mp_hist_result *res, const struct mp_hist_counts *tot,
		       const mp_pd *pd, const size_t *ev, size_t nev, double thr,
		       const struct mp_hist_missing *m, long nm, const struct report_json_cg *jc)
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
		if (!report_row_above(r, tot, ev, nev, thr))
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
				report_fmt_srcline(r, where, sizeof(where), 1);
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
				report_pct(r->c[ev[j]].period, tot[ev[j]].period));
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
