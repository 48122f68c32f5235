/* cmd_stat_regions.c - memprof stat --regions: the table of the markers' regions (text,
 * CSV or JSON), the whole run beside them, and the ratios each region's counts give. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_collector.h"
#include "mp_events.h"
#include "mp_ratios.h"

static int is_clock(const struct mp_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

static const char *ev_name(const struct mp_event *e)
{
	return e->resolved[0] ? e->resolved : e->spec;
}

static double scaled_total(const struct mp_event_result *r)
{
	const struct mp_counts *c = &r->counts;
	return c->run ? (double)c->val * ((double)c->ena / (double)c->run) : 0;
}

/* A region's ratios (the ratios module's stat table on its counts), shown when any ratio
 * can be computed from the events. */
static void print_ratios(FILE *f, const struct mp_event *evs, size_t nev, const double *scaled,
			 const char *model, const char *title)
{
	struct mp_ratio_counted *c = calloc(nev ? nev : 1, sizeof(*c));
	struct mp_buf out = { 0 };
	struct mp_err err = { 0 };
	if (!c)
		return;
	for (size_t i = 0; i < nev; i++) {
		c[i].attr = evs[i].attr;
		c[i].name = evs[i].resolved;
		c[i].counts.val = scaled[i] > 0 ? (uint64_t)(scaled[i] + 0.5) : 0;
		c[i].counts.ena = c[i].counts.run = 1; /* already scaled */
	}
	if (!mp_ratio_stat_report(c, nev, model, NULL, &out, &err) && out.data &&
	    !strstr(out.data, "no ratio can be computed"))
		fprintf(f, "\n %s:%s", title, out.data);
	mp_buf_fini(&out);
	free(c);
}

static void fmt_val(const struct mp_event *ev, double v, char *buf, size_t len)
{
	if (is_clock(ev))
		snprintf(buf, len, "%.2f", v / 1e6);
	else
		snprintf(buf, len, "%.0f", v);
}

/* --json: the regions' rows, the counts outside any region, the notes. */
static void json_regions(struct cli_json *j, const mp_regions *reg, const struct mp_event *evs,
			 size_t nev, const double *outside)
{
	size_t nrows = mp_regions_nrows(reg);
	char name[72];
	cli_json_open(j, "regions", '[', CLI_JSON_LINES);
	for (size_t k = 0; k < nrows; k++) {
		const struct mp_region_stat *s = mp_regions_row(reg, k);
		mp_region_name_str(s->name, s->len, name, sizeof(name));
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(j, "region", name);
		cli_json_value(j, "depth", "%d", s->depth);
		cli_json_value(j, "tid", "%d", (int)s->tid);
		cli_json_value(j, "calls", "%" PRIu64, s->calls);
		cli_json_value(j, "unclosed", "%" PRIu64, s->unclosed);
		cli_json_open(j, "counts", '[', CLI_JSON_INLINE);
		for (size_t i = 0; i < nev; i++) {
			cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
			cli_json_string(j, "event", ev_name(&evs[i]));
			cli_json_value(j, "value", "%.2f", s->scaled[i]);
			cli_json_value(j, "raw", "%" PRIu64, s->counts[i].val);
			cli_json_value(j, "time_enabled", "%" PRIu64, s->counts[i].ena);
			cli_json_value(j, "time_running", "%" PRIu64, s->counts[i].run);
			cli_json_close(j);
		}
		cli_json_close(j);
		cli_json_close(j);
	}
	cli_json_close(j);
	cli_json_open(j, "outside_regions", '[', CLI_JSON_INLINE);
	for (size_t i = 0; i < nev; i++) {
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(j, "event", ev_name(&evs[i]));
		cli_json_value(j, "value", "%.2f", outside[i]);
		cli_json_close(j);
	}
	cli_json_close(j);
	cli_json_open(j, "region_notes", '[', CLI_JSON_INLINE);
	for (size_t k = 0; mp_regions_note(reg, k); k++)
		cli_json_string(j, NULL, mp_regions_note(reg, k));
	cli_json_close(j);
}

void cli_stat_regions(FILE *f, const mp_regions *reg, const struct mp_event *evs, size_t nev,
		      const struct mp_event_result *total, int csv, struct cli_json *j, const char *sep,
		      const char *model)
{
	size_t nrows = mp_regions_nrows(reg);
	double *outside = calloc(nev ? nev : 1, sizeof(double)), *whole = NULL;
	char name[72], num[64];
	if (!outside || !(whole = calloc(nev ? nev : 1, sizeof(double)))) {
		free(outside);
		return;
	}
	for (size_t i = 0; i < nev; i++)
		outside[i] = whole[i] = scaled_total(&total[i]);
	for (size_t k = 0; k < nrows; k++) {
		const struct mp_region_stat *s = mp_regions_row(reg, k);
		if (!s->depth && !s->tid)
			for (size_t i = 0; i < nev; i++)
				outside[i] -= s->scaled[i];
	}

	if (j) {
		json_regions(j, reg, evs, nev, outside);
		goto out;
	}
	if (csv) {
		fprintf(f, "region%sdepth%stid%scalls%sunclosed%sevent%svalue%sraw%stime_enabled%s"
			   "time_running\n", sep, sep, sep, sep, sep, sep, sep, sep, sep);
		for (size_t k = 0; k < nrows; k++) {
			const struct mp_region_stat *s = mp_regions_row(reg, k);
			mp_region_name_str(s->name, s->len, name, sizeof(name));
			for (size_t i = 0; i < nev; i++) {
				cli_csv_str(f, name);
				fprintf(f, "%s%d%s%d%s%" PRIu64 "%s%" PRIu64 "%s%s%s%.0f%s%" PRIu64
					   "%s%" PRIu64 "%s%" PRIu64 "\n",
					sep, s->depth, sep, (int)s->tid, sep, s->calls, sep,
					s->unclosed, sep, ev_name(&evs[i]), sep, s->scaled[i], sep,
					s->counts[i].val, sep, s->counts[i].ena, sep, s->counts[i].run);
			}
		}
		for (size_t i = 0; i < nev; i++)
			fprintf(f, "(outside any region)%s%s%s%s%s%s%s%.0f%s%s%s\n", sep, sep, sep,
				sep, sep, ev_name(&evs[i]), sep, outside[i], sep, sep, sep);
		for (size_t i = 0; i < nev; i++)
			fprintf(f, "(whole run)%s%s%s%s%s%s%s%.0f%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64
				   "\n", sep, sep, sep, sep, sep, ev_name(&evs[i]), sep, whole[i], sep,
				total[i].counts.val, sep, total[i].counts.ena, sep, total[i].counts.run);
		for (size_t k = 0; mp_regions_note(reg, k); k++)
			fprintf(stderr, "memprof stat: regions: %s\n", mp_regions_note(reg, k));
		goto out;
	}

	/* text: one row per region (indented under the region it is nested in), a row per
	 * thread when several threads entered it, then outside any region and the whole run */
	int w0 = 28, scaled_any = 0;
	fprintf(f, " Regions (nested regions are part of the region above them; each count\n"
		   " is exact per call, scaled by time enabled/running when multiplexed):\n\n");
	fprintf(f, " %-*s %10s", w0, "region", "calls");
	for (size_t i = 0; i < nev; i++) {
		char h[96];
		snprintf(h, sizeof(h), "%s%s", ev_name(&evs[i]), is_clock(&evs[i]) ? " (msec)" : "");
		fprintf(f, " %18.18s", h);
	}
	fputc('\n', f);
	for (size_t k = 0; k < nrows; k++) {
		const struct mp_region_stat *s = mp_regions_row(reg, k);
		char label[300], calls[48];
		mp_region_name_str(s->name, s->len, name, sizeof(name));
		if (s->tid)
			snprintf(label, sizeof(label), "%*s  thread %d", 2 * s->depth, "", (int)s->tid);
		else
			snprintf(label, sizeof(label), "%*s%s", 2 * s->depth, "", name);
		if (s->unclosed)
			snprintf(calls, sizeof(calls), "%" PRIu64 "+%" PRIu64 " open", s->calls,
				 s->unclosed);
		else
			snprintf(calls, sizeof(calls), "%" PRIu64, s->calls);
		fprintf(f, " %-*s %10s", w0, label, calls);
		int scaled = 0;
		for (size_t i = 0; i < nev; i++) {
			fmt_val(&evs[i], s->scaled[i], num, sizeof(num));
			fprintf(f, " %18s", num);
			scaled |= s->counts[i].run < s->counts[i].ena;
		}
		fprintf(f, "%s\n", scaled ? " *" : "");
		scaled_any |= scaled;
	}
	fprintf(f, " %-*s %10s", w0, "(outside any region)", "-");
	for (size_t i = 0; i < nev; i++) {
		fmt_val(&evs[i], outside[i], num, sizeof(num));
		fprintf(f, " %18s", num);
	}
	fprintf(f, "\n %-*s %10s", w0, "(whole run)", "-");
	for (size_t i = 0; i < nev; i++) {
		fmt_val(&evs[i], whole[i], num, sizeof(num));
		fprintf(f, " %18s", num);
	}
	fputc('\n', f);
	if (!nrows)
		fprintf(f, "\n no region was entered (does the program call memprof_region_begin? "
			   "see memprof-stat(1))\n");
	if (scaled_any)
		fprintf(f, "\n * multiplexed: scaled by time enabled / time running\n");
	for (size_t k = 0; mp_regions_note(reg, k); k++)
		fprintf(f, "%s %s\n", k ? "      " : "\n note:", mp_regions_note(reg, k));
	for (size_t k = 0; k < nrows; k++) {
		const struct mp_region_stat *s = mp_regions_row(reg, k);
		char title[320];
		mp_region_name_str(s->name, s->len, name, sizeof(name));
		if (s->tid)
			snprintf(title, sizeof(title), "ratios of region '%s', thread %d", name,
				 (int)s->tid);
		else
			snprintf(title, sizeof(title), "ratios of region '%s'", name);
		print_ratios(f, evs, nev, s->scaled, model, title);
	}
	fputc('\n', f);
out:
	free(outside);
	free(whole);
}
