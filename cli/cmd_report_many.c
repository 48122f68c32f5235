/* memprof report -i A -i B: several recordings of one program, summed (places matched by
 * name, events by attributes). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define CMD REPORT_CMD

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
		const char *cmdl = mp_pd_feature_str(mp_session_pd(m->ss[i]), 11);
		const struct mp_pd_attr *a =
			mp_pd_attr(mp_session_pd(m->ss[i]), m->map[i * m->nev]);
		fprintf(f, "#   %s: %" PRIu64 " samples of %s, lost %" PRIu64 "%s%s\n", m->paths[i],
			mp_hist_total(mp_session_hist(m->ss[i]), m->map[i * m->nev])->samples,
			a->spec && *a->spec ? a->spec : a->name, a->lost,
			cmdl ? ", command: " : "", cmdl && !strchr(cmdl, '\n') ? cmdl : "");
	}
	fprintf(f, "#\n");
	for (size_t i = 0; i < m->n; i++)
		if (nmiss[i] > 0) {
			fprintf(f, "# in %s:\n", m->paths[i]);
			report_print_missing(f, miss[i], nmiss[i], mp_session_pd(m->ss[i]), tots[i],
					     m->map + i * m->nev, m->nev, 0);
		}
}

int report_many(const struct report_opts *o, const char *bdir)
{
	unsigned keys = o->keys;
	const struct report_cols *cols = &o->cols;
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
				      .want_comm = (keys & MP_HK_COMM) || o->filter.comms,
				      .want_cpu = (keys & MP_HK_CPU) != 0 };
	if ((rc = mp_multi_open(&m, paths, NULL, n, 1, &so, &err))) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
		goto out;
	}
	opened = 1;
	for (size_t i = 1; i < n; i++) {
		const char *what =
			mp_pd_build_id_differs(mp_session_pd(m.ss[0]), mp_session_pd(m.ss[i]));
		if (what)
			cli_warn(CMD, "%s: %s has another build-id than in %s (its places are matched "
				 "by name)", paths[i], what, paths[0]);
	}
	size_t na = mp_pd_nattrs(mp_session_pd(m.ss[0]));
	tot = calloc(na + 1, sizeof(*tot));
	lost = calloc(m.nev + 1, sizeof(*lost));
	if (!tot || !lost)
		goto nomem;
	for (size_t j = 0; j < m.nev; j++) {
		tot[m.ev[j]] = m.total[j];
		for (size_t i = 0; i < n; i++)
			lost[j] += mp_pd_attr(mp_session_pd(m.ss[i]), m.map[i * m.nev + j])->lost;
	}
	/* the skid rule of report_run, each file's events by their own attributes */
	static const unsigned char skid_on = 1;
	int skids = 0;
	for (size_t j = 0; j < m.nev && !o->no_skid && (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE)); j++)
		skids |= mp_ann_event_skids(&mp_pd_attr(mp_session_pd(m.ss[0]), m.ev[j])->attr);
	struct mp_hist_query q = { .keys = keys, .filter = o->filter,
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
		size_t nai = mp_pd_nattrs(mp_session_pd(m.ss[i]));
		nmiss[i] = mp_hist_missing(mp_session_hist(m.ss[i]), mp_session_sym(m.ss[i]), 1,
					   &miss[i]);
		tots[i] = calloc(nai + 1, sizeof(**tots));
		if (nmiss[i] < 0 || !tots[i]) {
			rc = nmiss[i] < 0 ? (int)nmiss[i] : -ENOMEM;
			goto fail;
		}
		for (size_t k = 0; k < nai; k++)
			tots[i][k] = *mp_hist_total(mp_session_hist(m.ss[i]), k);
	}
	const mp_pd *pd = mp_session_pd(m.ss[0]);
	FILE *f = stdout;
	if (o->csv) {
		report_print_csv(f, keys, &res, tot, pd, m.ev, m.nev, o->threshold);
	} else if (o->json) {
		report_print_json(f, o->input, keys, &res, tot, pd, m.ev, m.nev, o->threshold, miss[0],
			   nmiss[0], NULL);
	} else {
		report_print_header(f, o->input, pd, tot, lost, m.ev, m.nev);
		print_inputs(f, &m, miss, nmiss, tots);
		if (skids)
			fputs(REPORT_SKID_NOTE, f);
		static const struct report_cols objcols = { .c = { COL_DSO }, .n = 1 };
		if (want_objs)
			report_print_table(f, "Objects", &objcols, &objs, tot, pd, m.ev, m.nev,
					  o->threshold, o->full_names);
		char title[128];
		snprintf(title, sizeof(title), "By %s", o->sort ? o->sort : "dso,sym");
		report_print_table(f, title, cols, &res, tot, pd, m.ev, m.nev, o->threshold,
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
