/* mp_session.c - the one way to open a recording: the file, the symbol context fed its task
 * records (with the recording's build-id table), the histogram of its samples, its regions,
 * and each sample's call chain unwound by the session's own unwinder on the way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_analyzer.h"

struct mp_session {
	mp_pd *pd;
	mp_sym *sym;
	mp_hist *hist;
	mp_pd_regions *regions;
	mp_unwind *uw;
	mp_daddr *dd;
	const struct mp_session_opts *o; /* while the file is read */
};

/* The symbol context of the recording: its kernel release and build-id table (copied into
 * one array, as mp_sym_new() takes it). NULL with err. */
static mp_sym *session_sym(const mp_pd *pd, const char *path, const struct mp_session_opts *o,
			   struct mp_err *err)
{
	size_t nb = mp_pd_nbuild_ids(pd);
	struct mp_pd_build_id *bids = calloc(nb + 1, sizeof(*bids));
	if (!bids) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	for (size_t i = 0; i < nb; i++)
		bids[i] = *mp_pd_build_id(pd, i);
	struct mp_sym_opts so = { .symfs = o->symfs, .kallsyms = o->kallsyms,
				  .buildid_dir = o->buildid_dir, .no_srcline = o->no_srcline,
				  .osrelease = mp_pd_feature_str(pd, MP_HEADER_OSRELEASE) };
	mp_sym *sym = mp_sym_new(&so, bids, nb, err);
	free(bids);
	return sym;
}

/* The caller's sample function, with the chain unwound first when it wants chains. */
static int session_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s)
{
	mp_session *ss = ctx;
	const uint64_t *ips = NULL;
	size_t n = 0;
	if (ss->uw) {
		int rc = mp_unwind_ips(ss->uw, sym, s, &ips, &n);
		if (rc)
			return rc;
	}
	return ss->o->sample(ss->o->sample_ctx, sym, s, ips, n);
}

static int session_switch(void *ctx, const struct mp_pd_switch *w)
{
	mp_session *ss = ctx;
	return ss->o->task_switch(ss->o->sample_ctx, w);
}

/* no_symbols: the samples go straight to the caller */
static int bare_sample(void *ctx, const struct mp_pd_sample *s)
{
	return session_sample(ctx, NULL, s);
}

static void bare_progress(void *ctx, uint64_t done, uint64_t total)
{
	const mp_session *ss = ctx;
	ss->o->progress(ss->o->progress_ctx, done, total);
}

/* Read the whole file through the symbol context into the histogram. 0 or a negative code
 * with err naming the file. */
static int session_read(mp_session *ss, const char *path, const struct mp_session_opts *o,
			struct mp_err *err)
{
	struct mp_hist_feed feed = { .sym = ss->sym, .hist = ss->hist, .want_comm = o->want_comm,
				     .want_cpu = o->want_cpu, .regions = ss->regions, .daddr = ss->dd,
				     .progress = o->progress, .progress_ctx = o->progress_ctx,
				     .sample = o->sample ? session_sample : NULL, .sample_ctx = ss,
				     .task_switch = o->task_switch ? session_switch : NULL };
	struct mp_pd_handler h = { .ctx = ss, .sample = o->sample ? bare_sample : NULL,
				   .progress = o->progress ? bare_progress : NULL,
				   .task_switch = o->task_switch ? session_switch : NULL };
	if (ss->sym)
		mp_hist_feed_handler(&feed, &h);
	ss->o = o;
	int rc = mp_pd_process(ss->pd, &h, err);
	ss->o = NULL;
	if (feed.err) {
		rc = feed.err;
		mp_err_set(err, rc, "%s: %s while aggregating samples", path,
			   rc == -ENOMEM ? "out of memory" : mp_strerror(rc));
	}
	if (rc && err && !err->msg[0])
		mp_err_set(err, rc, "%s: %s", path, mp_strerror(rc));
	return rc;
}

mp_session *mp_session_new(const char *path, const struct mp_session_opts *o, struct mp_err *err)
{
	static const struct mp_session_opts none;
	if (!o)
		o = &none;
	mp_session *ss = calloc(1, sizeof(*ss));
	if (!ss) {
		mp_pd_close(o->pd); /* taken over */
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	ss->pd = o->pd ? o->pd : mp_pd_open(path, err);
	if (!ss->pd)
		goto fail;
	if (!o->no_symbols && !(ss->sym = session_sym(ss->pd, path, o, err)))
		goto fail;
	if (ss->sym && !o->no_hist && !(ss->hist = mp_hist_new(mp_pd_nattrs(ss->pd))))
		goto nomem;
	if (o->want_region && mp_pd_regions_load(ss->pd, &ss->regions, err))
		goto fail;
	if (o->want_region && !ss->regions) {
		mp_err_set(err, -ENOENT, "%s: %s: the recording has no regions (record it with "
			   "memprof record --regions)", path, o->want_region);
		goto fail;
	}
	/* chains as memprof script shows them: fp as recorded, dwarf and lbr unwound with the
	 * objects the symbol context finds */
	if (o->chains && ss->sym && o->sample && !(ss->uw = mp_unwind_new(ss->sym, ss->pd, err)))
		goto fail;
	if (o->daddr && ss->sym && !(*o->daddr = ss->dd = mp_daddr_new(ss->sym, o->symfs, 0)))
		goto nomem;
	if (session_read(ss, path, o, err))
		goto fail;
	return ss;
nomem:
	mp_err_set(err, -ENOMEM, "%s: out of memory", path);
fail:
	if (err && !err->code)
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	mp_session_free(ss);
	return NULL;
}

void mp_session_free(mp_session *ss)
{
	if (!ss)
		return;
	mp_unwind_free(ss->uw);
	mp_daddr_free(ss->dd);
	mp_hist_free(ss->hist);
	mp_pd_regions_free(ss->regions);
	mp_sym_free(ss->sym);
	mp_pd_close(ss->pd);
	free(ss);
}

mp_pd *mp_session_pd(const mp_session *ss)
{
	return ss->pd;
}

mp_sym *mp_session_sym(const mp_session *ss)
{
	return ss->sym;
}

mp_hist *mp_session_hist(const mp_session *ss)
{
	return ss->hist;
}

const mp_pd_regions *mp_session_regions(const mp_session *ss)
{
	return ss->regions;
}

const mp_unwind *mp_session_unwind(const mp_session *ss)
{
	return ss->uw;
}

size_t mp_session_events(const mp_session *ss, size_t *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < mp_pd_nattrs(ss->pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(ss->pd, i);
		if (mp_hist_total(ss->hist, i)->samples || a->nr_samples ||
		    (a->attr.sample_period && !(a->attr.type == PERF_TYPE_SOFTWARE &&
						a->attr.config == PERF_COUNT_SW_DUMMY)))
			ev[n++] = i;
	}
	if (!n && mp_pd_nattrs(ss->pd))
		ev[n++] = 0;
	return n;
}
