/* tui_text.c - the text views: the summary (what was recorded, how, the program's ratios)
 * and the help screen (the lines of the key table), their rows rendered here. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui_text.h"

struct text_view {
	struct tui_view v;
	char **lines;
	size_t nlines, cap;
};

static struct text_view *text_view(const struct tui_view *v)
{
	return (struct text_view *)v;
}

static void text_free(struct tui_view *tv)
{
	struct text_view *v = text_view(tv);
	for (size_t i = 0; i < v->nlines; i++)
		free(v->lines[i]);
	free(v->lines);
	free(v);
}

/* Push v when rc is 0, else free it: 0 or -ENOMEM. */
static int push_text(tui_model *m, struct text_view *v, int rc)
{
	if (rc) {
		text_free(&v->v);
		return -ENOMEM;
	}
	return tui_push_view(m, &v->v);
}

static int add_text(struct text_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int add_text(struct text_view *v, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (MP_GROW(v->lines, v->cap, v->nlines + 1))
		return -ENOMEM;
	if (!(v->lines[v->nlines] = strdup(buf)))
		return -ENOMEM;
	v->nlines++;
	return 0;
}

int tui_push_help(tui_model *m, int (*line)(size_t i, char *buf, size_t n))
{
	struct text_view *v = calloc(1, sizeof(*v));
	char buf[256];
	int rc = 0;
	if (!v)
		return -ENOMEM;
	v->v.ops = &tui_help_ops;
	for (size_t i = 0; !rc && line(i, buf, sizeof(buf)) == 0; i++)
		rc = add_text(v, "%s", buf);
	return push_text(m, v, rc);
}

int tui_push_summary(tui_model *m)
{
	tui_data *d = m->d;
	struct text_view *v = calloc(1, sizeof(*v));
	uint64_t samples = 0, lost = 0;
	int rc = 0;

	if (!v)
		return -ENOMEM;
	v->v.ops = &tui_summary_ops;
	if (d->sim) {
		/* the note one clause ("; ") a line, so that 80 columns show it whole */
		const char *n = d->sim_note[0] ? d->sim_note : "counts from a simulation, not measured by a PMU";
		rc |= add_text(v, "SIMULATED (%s):", d->sim);
		while (*n) {
			const char *e = strstr(n, "; ");
			int len = e ? (int)(e - n) : (int)strlen(n);
			rc |= add_text(v, "  %.*s", len, n);
			n += len + (e ? 2 : 0);
		}
		rc |= add_text(v, "%s", "  samples are simulated addresses, each with its exact simulated count");
		rc |= add_text(v, "%s", "");
	}
	for (size_t i = 0; i < d->ninfo; i++)
		rc |= add_text(v, "%-12s %s", d->info[i].key, d->info[i].value);
	rc |= add_text(v, "%s", "");
	rc |= add_text(v, "%-18s %-10s %9s %14s %6s %14s", "event", "sampling", "samples",
		       "event count", "lost", "exact count");
	for (size_t e = 0; e < d->nev; e++) {
		char exact[32] = "-", how[32] = "";
		if (d->ev[e].has_count)
			snprintf(exact, sizeof(exact), "%" PRIu64, d->ev[e].count);
		if (d->ev[e].freq >= 0)
			snprintf(how, sizeof(how), "%s %" PRIu64, d->ev[e].freq ? "-F" : "-c",
				 d->ev[e].rate);
		rc |= add_text(v, "%-18.18s %-10s %9" PRIu64 " %14" PRIu64 " %6" PRIu64 " %14s",
			       d->ev[e].name, how, d->ev[e].samples, d->ev[e].period, d->ev[e].lost,
			       exact);
		samples += d->ev[e].samples;
		lost += d->ev[e].lost;
	}
	rc |= add_text(v, "total: %" PRIu64 " samples, %" PRIu64 " lost, %zu symbols", samples,
		       lost, d->nsyms);
	if (d->nratios) {
		uint64_t s[TUI_MAX_EVENTS], p[TUI_MAX_EVENTS];
		for (size_t e = 0; e < d->nev; e++) {
			s[e] = d->ev[e].samples;
			p[e] = d->ev[e].period;
		}
		rc |= add_text(v, "%s", "");
		rc |= add_text(v, "%-28s %-16s %s", "ratio (whole program)", "value",
			       d->sim ? "(exact simulated counts; '!' past threshold)"
				      : "('!' past threshold, '~' few samples)");
		for (size_t r = 0; r < d->nratios; r++) {
			struct tui_ratio_val val = { 0 };
			char buf[64];
			if (d->ratios[r].prog_set)
				val = d->ratios[r].prog;
			else if (d->rfn && d->rfn(d->rctx, r, s, p, &val))
				val.flags = 0;
			tui_sim_exact(d, &val);
			tui_fmt_ratio(buf, sizeof(buf), &val);
			rc |= add_text(v, "%-28.28s %-16s %s", d->ratios[r].name, buf,
				       d->ratios[r].desc);
		}
	}
	return push_text(m, v, rc);
}

static size_t text_rows(const struct tui_view *v)
{
	return text_view(v)->nlines;
}

static void text_row(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i)
{
	(void)m;
	tui_put(l, text_view(v)->lines[i]);
}

static void summary_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	(void)v;
	tui_put_sim(m, l);
	tui_put(l, " Summary");
}

static void help_title(tui_model *m, struct tui_line *l, const struct tui_view *v)
{
	(void)v;
	tui_put_sim(m, l);
	tui_put(l, " Help: memprof tui keys (q, ESC or h to close)");
}

static const int text_status[] = { 'q', 0 };

const struct tui_view_ops tui_summary_ops = {
	.kind = TUI_VIEW_SUMMARY,
	.name = "Summary",
	.bit = TUI_V_SUMMARY,
	.status = text_status,
	.free = text_free,
	.rows = text_rows,
	.title = summary_title,
	.row = text_row,
};

const struct tui_view_ops tui_help_ops = {
	.kind = TUI_VIEW_HELP,
	.name = "Help",
	.bit = TUI_V_HELP,
	.flags = TUI_VF_MODAL,
	.status = text_status,
	.free = text_free,
	.rows = text_rows,
	.title = help_title,
	.row = text_row,
};
