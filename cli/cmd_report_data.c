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
		fprintf(stderr, "memprof report: %s\n", buf); /* csv starts with its header row */
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
		/* signed, as perf: a task that had exited when sampled is -1 */
		if (keys & MP_HK_PID) { SEP(); fprintf(f, "%d", (int32_t)r->pid); }
		if (keys & MP_HK_TID) { SEP(); fprintf(f, "%d", (int32_t)r->tid); }
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

/* One row of the table: its keys, then each event's samples, period and percent. */
static void json_row(struct cli_json *j, unsigned keys, const struct mp_hist_row *r,
		     const struct mp_hist_counts *tot, const size_t *ev, size_t nev)
{
	cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
	if (keys & MP_HK_REGION)
		cli_json_string(j, "region", r->region_name);
	if (keys & MP_HK_COMM)
		cli_json_string(j, "comm", r->comm);
	if (keys & MP_HK_PID)
		cli_json_value(j, "pid", "%d", (int32_t)r->pid);
	if (keys & MP_HK_TID)
		cli_json_value(j, "tid", "%d", (int32_t)r->tid);
	if (keys & MP_HK_CPU)
		cli_json_value(j, "cpu", "%u", r->cpu);
	if ((keys & (MP_HK_SRCFILE | MP_HK_SRCLINE)) == MP_HK_SRCFILE)
		cli_json_string(j, "srcfile", r->srcfile);
	if (keys & MP_HK_DSO)
		cli_json_string(j, "dso", r->dso);
	if (keys & MP_HK_ADDR)
		cli_json_value(j, "addr", "\"0x%" PRIx64 "\"", r->addr);
	if (keys & MP_HK_SYM) {
		cli_json_value(j, "level", "\"%c\"", r->level ? r->level : '.');
		cli_json_string(j, "sym", r->sym);
		cli_json_bool(j, "sym_resolved", r->sym_resolved);
	}
	if (keys & MP_HK_SRCLINE) {
		cli_json_string_or_null(j, "srcfile", r->srcfile);
		cli_json_value(j, "line", "%u", r->line);
		if (!r->srcfile && r->sym && !(keys & MP_HK_SYM)) {
			/* no line information: the place as perf names it */
			char where[4096];
			report_fmt_srcline(r, where, sizeof(where), 1);
			cli_json_string(j, "where", where);
		}
	}
	cli_json_open(j, "samples", '[', CLI_JSON_INLINE);
	for (size_t k = 0; k < nev; k++)
		cli_json_value(j, NULL, "%" PRIu64, r->c[ev[k]].samples);
	cli_json_close(j);
	cli_json_open(j, "period", '[', CLI_JSON_INLINE);
	for (size_t k = 0; k < nev; k++)
		cli_json_value(j, NULL, "%" PRIu64, r->c[ev[k]].period);
	cli_json_close(j);
	cli_json_open(j, "percent", '[', CLI_JSON_INLINE);
	for (size_t k = 0; k < nev; k++)
		cli_json_value(j, NULL, "%.4f", report_pct(r->c[ev[k]].period, tot[ev[k]].period));
	cli_json_close(j);
	cli_json_close(j);
}

/* The recording, its simulation and its events. */
static void json_head(struct cli_json *j, const char *path, const mp_pd *pd,
		      const struct mp_hist_counts *tot, const size_t *ev, size_t nev)
{
	cli_json_string(j, "file", path);
	cli_json_bool(j, "pipe_mode", mp_pd_is_pipe(pd));
	char sim[512];
	if (mp_pd_sim_banner(pd, sim, sizeof(sim))) {
		static const char *const keys[] = { MP_META_SIM_I1, MP_META_SIM_D1, MP_META_SIM_LL };
		cli_json_open(j, "simulated", '{', CLI_JSON_INLINE);
		cli_json_string(j, "by", mp_pd_meta(pd, MP_META_SIMULATED));
		for (size_t k = 0; k < 3; k++)
			cli_json_string_or_null(j, keys[k] + 4, mp_pd_meta(pd, keys[k]));
		cli_json_string(j, "note", sim);
		cli_json_close(j);
	}
	cli_json_open(j, "events", '[', CLI_JSON_LINES);
	for (size_t k = 0; k < nev; k++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[k]);
		const struct mp_hist_counts *t = &tot[ev[k]];
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(j, "name", a->spec && *a->spec ? a->spec : a->name);
		cli_json_bool(j, "freq", a->attr.freq);
		cli_json_value(j, a->attr.freq ? "frequency" : "period", "%" PRIu64,
			       (uint64_t)a->attr.sample_period);
		cli_json_value(j, "samples", "%" PRIu64, t->samples);
		cli_json_value(j, "lost", "%" PRIu64, a->lost);
		cli_json_value(j, "estimated_count", "%" PRIu64, t->period);
		if (a->has_counts) {
			cli_json_value(j, "exact_count", "%" PRIu64, a->count.val);
			cli_json_value(j, "time_enabled", "%" PRIu64, a->count.ena);
			cli_json_value(j, "time_running", "%" PRIu64, a->count.run);
			cli_json_value(j, "counters", "%" PRIu64, a->count_nctr);
			cli_json_value(j, "multiplexed_counters", "%" PRIu64, a->count_nmux);
		}
		cli_json_close(j);
	}
	cli_json_close(j);
}

void report_print_json(FILE *f, const char *path, unsigned keys,
		       const struct mp_hist_result *res, const struct mp_hist_counts *tot,
		       const mp_pd *pd, const size_t *ev, size_t nev, double thr,
		       const struct mp_hist_missing *m, long nm, const struct report_json_cg *jc)
{
	struct cli_json j;
	cli_json_start(&j, f, ": ", ", ", 2);
	cli_json_open(&j, NULL, '{', CLI_JSON_LINES);
	json_head(&j, path, pd, tot, ev, nev);
	static const char *const kn[] = { "comm", "pid",  "tid", "dso",	   "sym",
					  "srcline", "addr", "cpu", "srcfile", "region" };
	cli_json_open(&j, "sort", '[', CLI_JSON_INLINE);
	for (unsigned b = 0; b < 10; b++)
		if (keys & (1u << b))
			cli_json_string(&j, NULL, kn[b]);
	cli_json_close(&j);
	cli_json_open(&j, "rows", '[', CLI_JSON_LINES);
	struct mp_hist_result none = { 0 };
	if (jc) {
		report_cg_print_json_rows(&j, jc->cg, jc->t, ev, nev, jc->o, thr);
		res = &none; /* the rows are those */
	}
	for (size_t i = 0; i < res->nrows; i++)
		if (report_row_above(&res->rows[i], tot, ev, nev, thr))
			json_row(&j, keys, &res->rows[i], tot, ev, nev);
	cli_json_close(&j);
	cli_json_open(&j, "missing", '[', CLI_JSON_LINES);
	for (long i = 0; i < nm; i++) {
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "dso", m[i].dso);
		cli_json_bool(&j, "no_symbols", m[i].no_symbols);
		cli_json_bool(&j, "no_debuginfo", m[i].no_debuginfo);
		cli_json_open(&j, "percent", '[', CLI_JSON_INLINE);
		for (size_t k = 0; k < nev && ev[k] < 8; k++)
			cli_json_value(&j, NULL, "%.4f", m[i].pct[ev[k]]);
		cli_json_close(&j);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	cli_json_close(&j);
	fputc('\n', f);
}
