/* mp_ratio_run.c - a perf.data file as the ratios see it: events, model, and samples
 * per program, object, symbol and source line (through the analyzer's mp_sym/mp_hist). */
#include "mp_ratios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"
#include "mp_events.h"

struct mp_ratio_run {
	char *path;
	char model[64];
	char *cpu;
	char *workload;
	struct mp_ratio_event *ev;
	char **names;
	size_t nev;
	uint64_t samples, lost;
	enum mp_ratio_level deepest;
	/* program level */
	struct mp_ratio_cell *prog;
	mp_pd *pd;          /* the recording (borrowed from ss once it is open) */
	mp_session *ss;
	/* deeper levels */
	mp_sym *sym;        /* borrowed from ss */
	mp_hist *hist;
	const mp_pd_regions *regions; /* level REGION */
	struct mp_hist_result res;
	int have_res;
	struct mp_ratio_place *places;
	struct mp_ratio_cell *cells;
	char **labels;
	size_t nplaces;
};

/* Every sample counts at program level; deeper levels aggregate them too (the session). */
static int on_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		     size_t nips)
{
	mp_ratio_run *r = ctx;
	(void)sym;
	(void)ips;
	(void)nips;
	if (s->attr_idx < r->nev) {
		struct mp_ratio_cell *c = &r->prog[s->attr_idx];
		c->samples++;
		c->period += (double)s->period;
		c->period_sq += (double)s->period * (double)s->period;
		r->samples++;
	}
	return 0;
}

static void detect_model(mp_ratio_run *r, const char *forced)
{
	const char *cpuid = mp_pd_feature_str(r->pd, MP_HEADER_CPUID);
	const char *keys[4];

	if (forced && *forced) {
		snprintf(r->model, sizeof(r->model), "%s", forced);
		return;
	}
	/* memprof record --sim: the simulator's caches (mpsim's or callgrind's), whatever the host */
	if (mp_pd_meta(r->pd, MP_META_SIMULATED)) {
		snprintf(r->model, sizeof(r->model), "cachegrind");
		return;
	}
	/* memprof writes resolved names ("skl::L1D:REPLACEMENT"): what was recorded wins
	 * over the CPU the file was written on (simulated PMUs, --pmu). */
	for (size_t i = 0; i < r->nev; i++) {
		const char *n = r->ev[i].name, *c = n ? strstr(n, "::") : NULL;
		if (c && c > n && (size_t)(c - n) < sizeof(r->model) && strncmp(n, "perf::", 6)) {
			memcpy(r->model, n, (size_t)(c - n));
			r->model[c - n] = 0;
			return;
		}
	}
	if (cpuid && mp_ratio_models_for(cpuid, keys, 4) > 1) {
		snprintf(r->model, sizeof(r->model), "%s", keys[0]);
		return;
	}
	/* a known CPU without formulas of its own (Apple's cores: perf's generic events) */
	struct mp_pmu_model pm;
	const char *m = cpuid ? mp_pmu_model_for_cpuid(cpuid) : NULL;
	if (m && mp_pmu_model_get(m, &pm)) {
		snprintf(r->model, sizeof(r->model), "%s", m);
		return;
	}
	snprintf(r->model, sizeof(r->model), "perf");
}

/* Events sampled at a fixed overrun no larger than their minimum (events module: the
 * event's own from pmu_models.tsv, else its kind's) whose exact count the file lacks: the
 * kernel throttles such events on a busy stretch, and nothing in the file tells. */
static void mark_at_min(mp_ratio_run *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct perf_event_attr *a = &r->ev[i].attr;
		struct mp_evopts eo;
		struct mp_event e;
		struct mp_err err = { 0, "" };
		if (a->freq || !a->sample_period || r->ev[i].has_count || r->ev[i].exact_samples ||
		    !r->ev[i].name || !r->ev[i].name[0])
			continue;
		memset(&eo, 0, sizeof(eo));
		eo.count_only = 1;
		if (strcmp(r->model, "perf") && strcmp(r->model, "cachegrind"))
			eo.pmu_model = r->model;
		if (mp_event_parse(r->ev[i].name, &eo, &e, &err) == 0 && e.min_count &&
		    a->sample_period <= e.min_count)
			r->ev[i].at_min = 1;
	}
}

mp_ratio_run *mp_ratio_run_open(const char *path, const struct mp_ratio_run_opts *opts,
				struct mp_err *err)
{
	struct mp_ratio_run_opts dflt;
	mp_ratio_run *r;

	if (!opts) {
		memset(&dflt, 0, sizeof(dflt));
		opts = &dflt;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		mp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	r->deepest = opts->level;
	r->path = strdup(path);
	r->pd = mp_pd_open(path, err);
	if (!r->pd || !r->path)
		goto fail;
	r->nev = mp_pd_nattrs(r->pd);
	r->ev = calloc(r->nev ? r->nev : 1, sizeof(*r->ev));
	r->prog = calloc(r->nev ? r->nev : 1, sizeof(*r->prog));
	r->names = calloc(r->nev ? r->nev : 1, sizeof(*r->names));
	if (!r->ev || !r->prog || !r->names) {
		mp_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < r->nev; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(r->pd, i);
		r->ev[i].attr = a->attr;
		r->names[i] = strdup(a->name ? a->name : "");
		if (!r->names[i]) {
			mp_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
		r->ev[i].name = r->names[i];
	}
	const char *cpu = mp_pd_feature_str(r->pd, MP_HEADER_CPUDESC);
	r->cpu = strdup(cpu ? cpu : "");
	const char *cmd = mp_pd_feature_str(r->pd, MP_HEADER_CMDLINE), *dd;
	if (cmd && (dd = strstr(cmd, " -- ")) && dd[4])
		r->workload = strdup(dd + 4);

	mp_pd *pd = r->pd;
	r->pd = NULL; /* the session's now (closed by it on error too) */
	struct mp_session_opts so = {
		.symfs = opts->symfs, .kallsyms = opts->kallsyms,
		.no_srcline = opts->level != MP_RATIO_LINE,
		.no_symbols = opts->level == MP_RATIO_PROGRAM,
		.want_region = opts->level == MP_RATIO_REGION ? "level region" : NULL,
		.want_comm = opts->level == MP_RATIO_THREAD,
		.sample = on_sample, .sample_ctx = r, .pd = pd };
	if (!(r->ss = mp_session_new(path, &so, err)))
		goto fail;
	r->pd = pd;
	r->sym = mp_session_sym(r->ss);
	r->hist = mp_session_hist(r->ss);
	r->regions = mp_session_regions(r->ss);
	for (size_t i = 0; i < r->nev; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(r->pd, i);
		r->lost += a->lost;
		if (r->prog[i].samples)
			r->ev[i].mean_period = r->prog[i].period / (double)r->prog[i].samples;
		else if (!a->attr.freq && a->attr.sample_period)
			r->ev[i].mean_period = (double)a->attr.sample_period;
		if (a->has_counts) {
			r->ev[i].has_count = a->count.run > 0 || a->count.val > 0;
			r->ev[i].count = mp_counts_scaled(&a->count);
		}
		/* what the samples stand for: of the exact count (throttled, lost and
		 * multiplexed periods have no sample), else of the samples and lost ones */
		if (r->ev[i].has_count && r->ev[i].count > 0 && r->prog[i].samples) {
			/* the count runs up to one period past the last sample */
			double c = (r->prog[i].period + r->ev[i].mean_period) / r->ev[i].count;
			r->ev[i].coverage = c < 1 ? c : 1;
		}
		else if (r->prog[i].samples)
			r->ev[i].coverage = (double)r->prog[i].samples /
					    ((double)r->prog[i].samples + (double)a->lost);
	}
	detect_model(r, opts->model);
	mark_at_min(r);
	if (mp_pd_meta(r->pd, MP_META_SIMULATED))
		for (size_t i = 0; i < r->nev; i++)
			r->ev[i].exact_samples = 1;
	if (r->hist && mp_hist_resolve(r->hist, r->sym, opts->level == MP_RATIO_LINE)) {
		mp_err_set(err, -ENOMEM, "%s: out of memory resolving symbols", path);
		goto fail;
	}
	return r;
fail:
	mp_ratio_run_free(r);
	return NULL;
}

static void free_places(mp_ratio_run *r)
{
	if (r->have_res)
		mp_hist_result_fini(&r->res);
	r->have_res = 0;
	for (size_t i = 0; r->labels && i < r->nplaces; i++)
		free(r->labels[i]);
	free(r->labels);
	free(r->places);
	free(r->cells);
	r->labels = NULL;
	r->places = NULL;
	r->cells = NULL;
	r->nplaces = 0;
}

void mp_ratio_run_free(mp_ratio_run *r)
{
	if (!r)
		return;
	free_places(r);
	if (r->ss)
		mp_session_free(r->ss);
	else
		mp_pd_close(r->pd);
	for (size_t i = 0; r->names && i < r->nev; i++)
		free(r->names[i]);
	free(r->names);
	free(r->ev);
	free(r->prog);
	free(r->cpu);
	free(r->workload);
	free(r->path);
	free(r);
}

const char *mp_ratio_run_path(const mp_ratio_run *r)
{
	return r->path;
}

const char *mp_ratio_run_model(const mp_ratio_run *r)
{
	return r->model;
}

const char *mp_ratio_run_cpu(const mp_ratio_run *r)
{
	return r->cpu ? r->cpu : "";
}

size_t mp_ratio_run_models(const mp_ratio_run *r, const char **keys, size_t max)
{
	return mp_ratio_models_for(r->model, keys, max);
}

const struct mp_ratio_event *mp_ratio_run_events(const mp_ratio_run *r, size_t *n)
{
	*n = r->nev;
	return r->ev;
}

const char *mp_ratio_run_workload(const mp_ratio_run *r)
{
	return r->workload;
}

const char *mp_ratio_run_meta(const mp_ratio_run *r, const char *key)
{
	return r->pd ? mp_pd_meta(r->pd, key) : NULL;
}

const char *mp_ratio_run_simulated(const mp_ratio_run *r)
{
	return mp_ratio_run_meta(r, MP_META_SIMULATED);
}

uint64_t mp_ratio_run_samples(const mp_ratio_run *r)
{
	return r->samples;
}

uint64_t mp_ratio_run_lost(const mp_ratio_run *r)
{
	return r->lost;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int mp_ratio_run_places(mp_ratio_run *r, enum mp_ratio_level level,
			const struct mp_ratio_place **out, size_t *n, struct mp_err *err)
{
	struct mp_hist_query q;
	int rc;

	free_places(r);
	int apart = r->deepest == MP_RATIO_REGION || r->deepest == MP_RATIO_THREAD;
	int ok = level == MP_RATIO_PROGRAM ||
		 (apart ? level <= MP_RATIO_SYMBOL || level == r->deepest
			: level <= r->deepest && level <= MP_RATIO_LINE);
	if (!ok)
		return mp_err_set(err, -EINVAL, "%s: read for level %d, asked for %d", r->path,
				  (int)r->deepest, (int)level);
	if (level == MP_RATIO_PROGRAM) {
		r->places = calloc(1, sizeof(*r->places));
		r->labels = calloc(1, sizeof(*r->labels));
		if (!r->places || !r->labels)
			return mp_err_set(err, -ENOMEM, "out of memory");
		r->labels[0] = strdup("program");
		if (!r->labels[0])
			return mp_err_set(err, -ENOMEM, "out of memory");
		r->nplaces = 1;
		r->places[0].label = r->labels[0];
		r->places[0].cells = r->prog;
		r->places[0].samples = r->samples;
		*out = r->places;
		*n = 1;
		return 0;
	}
	memset(&q, 0, sizeof(q));
	q.regions = r->regions;
	q.keys = level == MP_RATIO_THREAD ? MP_HK_PID | MP_HK_TID | MP_HK_COMM :
		 level == MP_RATIO_REGION ? MP_HK_REGION :
		 level == MP_RATIO_DSO ? MP_HK_DSO :
		 level == MP_RATIO_SYMBOL ? MP_HK_DSO | MP_HK_SYM :
		 MP_HK_DSO | MP_HK_SYM | MP_HK_SRCLINE;
	q.sort_attr = SIZE_MAX;
	rc = mp_hist_query(r->hist, r->sym, &q, &r->res);
	if (rc)
		return mp_err_set(err, rc, "%s: %s", r->path, mp_strerror(rc));
	r->have_res = 1;
	size_t nr = r->res.nrows;
	r->places = calloc(nr ? nr : 1, sizeof(*r->places));
	r->labels = calloc(nr ? nr : 1, sizeof(*r->labels));
	r->cells = calloc((nr ? nr : 1) * (r->nev ? r->nev : 1), sizeof(*r->cells));
	if (!r->places || !r->labels || !r->cells)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < nr; i++) {
		const struct mp_hist_row *row = &r->res.rows[i];
		struct mp_ratio_place *p = &r->places[i];
		struct mp_ratio_cell *c = r->cells + i * r->nev;
		char *lab = NULL;
		for (size_t k = 0; k < r->nev; k++) {
			c[k].samples = row->c[k].samples;
			c[k].period = (double)row->c[k].period;
			p->samples += row->c[k].samples;
		}
		if (level == MP_RATIO_THREAD && asprintf(&lab, "%u:%s", row->tid,
							    row->comm ? row->comm : "") < 0)
			lab = NULL;
		else if (level == MP_RATIO_THREAD)
			;
		else if (level == MP_RATIO_REGION)
			lab = strdup(row->region_name ? row->region_name : "[no region]");
		else if (level == MP_RATIO_DSO)
			lab = strdup(row->dso ? row->dso : "[unknown]");
		else if (level == MP_RATIO_SYMBOL)
			lab = strdup(row->sym ? row->sym : "[unknown]");
		else if (row->srcfile && asprintf(&lab, "%s:%u", base_name(row->srcfile), row->line) < 0)
			lab = NULL;
		else if (!row->srcfile)
			lab = strdup("??:0");
		if (!lab)
			return mp_err_set(err, -ENOMEM, "out of memory");
		r->labels[i] = lab;
		r->nplaces = i + 1;
		p->label = lab;
		p->dso = row->dso;
		p->sym = level == MP_RATIO_SYMBOL || level == MP_RATIO_LINE ? row->sym : NULL;
		p->srcfile = row->srcfile;
		p->line = row->line;
		p->pid = row->pid;
		p->tid = row->tid;
		p->comm = row->comm;
		p->cells = c;
	}
	*out = r->places;
	*n = r->nplaces;
	return 0;
}
