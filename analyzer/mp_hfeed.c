/* mp_hfeed.c - the reader's callbacks that aggregate samples into a hist (mp_hist_feed). */
#include <errno.h>
#include <string.h>

#include "mp_analyzer.h"

/* Keep the first error of the feed. */
static int feed_rc(struct mp_hist_feed *f, int rc)
{
	if (rc)
		f->err = rc;
	return rc;
}

/* Aggregate a sample that is not the one before again: its map, comm and place looked up. */
static int feed_add(struct mp_hist_feed *f, const struct mp_pd_sample *s)
{
	uint32_t map = mp_sym_map_find(f->sym, s->pid, s->cpumode, s->ip);
	uint32_t comm = f->want_comm ? mp_sym_comm_id(f->sym, s->pid, s->tid) : 0;
	uint32_t region = f->regions ? mp_pd_region_of(f->regions, s->tid, s->time) : 0;
	int rc = mp_hist_add_key(f->hist, s->attr_idx, s->pid, s->tid, comm,
				 f->want_cpu ? s->cpu : 0, region, map, s->cpumode, s->ip,
				 s->period);
	if (rc == -EINVAL)
		rc = 0; /* attr index beyond what the hist was made for: cannot happen */
	if (!rc && !f->regions && s->attr_idx < mp_hist_nattrs(f->hist)) {
		f->last.ok = 1;
		f->last.attr = s->attr_idx;
		f->last.ip = s->ip;
		f->last.pid = s->pid;
		f->last.tid = s->tid;
		f->last.cpu = s->cpu;
		f->last.cpumode = s->cpumode;
	}
	return rc;
}

/* A sample that is not the one before again (or any sample, without a hist).
 * Out of line, so that a repeat (feed_sample) saves no registers. */
__attribute__((noinline)) static int feed_new(struct mp_hist_feed *f, const struct mp_pd_sample *s)
{
	f->last.ok = 0;
	int rc = f->hist ? feed_add(f, s) : 0;
	if (!rc && f->sample)
		rc = f->sample(f->sample_ctx, f->sym, s);
	if (rc)
		f->err = rc;
	return rc;
}

static int feed_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct mp_hist_feed *f = ctx;
	/* the sample before again (a loop's page faults, a hot instruction): the same map,
	 * comm and place, as nothing changed the symbols since (regions go by time: not then) */
	if (f->last.ok && s->ip == f->last.ip && s->tid == f->last.tid &&
	    s->pid == f->last.pid && s->attr_idx == f->last.attr &&
	    s->cpumode == f->last.cpumode && (!f->want_cpu || s->cpu == f->last.cpu)) {
		mp_hist_add_again(f->hist, 1, s->period);
		return f->sample ? feed_rc(f, f->sample(f->sample_ctx, f->sym, s)) : 0;
	}
	return feed_new(f, s);
}

/* The reader's repeats: the sample before again, not decoded. Taken when that sample's
 * place is known (f->last) and nothing else wants the samples. */
static int feed_sample_again(void *ctx, size_t attr_idx, uint64_t n, uint64_t period)
{
	struct mp_hist_feed *f = ctx;
	if (!f->last.ok || f->sample || attr_idx != f->last.attr)
		return 1;
	mp_hist_add_again(f->hist, n, period);
	return 0;
}

static int feed_mmap(void *ctx, const struct mp_pd_mmap *m)
{
	struct mp_hist_feed *f = ctx;
	f->last.ok = 0;
	int rc = mp_sym_mmap(f->sym, m);
	return feed_rc(f, rc || !f->daddr ? rc : mp_daddr_mmap(f->daddr, m));
}

static int feed_comm(void *ctx, const struct mp_pd_task *t)
{
	struct mp_hist_feed *f = ctx;
	f->last.ok = 0;
	int rc = mp_sym_comm(f->sym, t);
	return feed_rc(f, rc || !f->daddr ? rc : mp_daddr_comm(f->daddr, t));
}

static int feed_fork(void *ctx, const struct mp_pd_task *t)
{
	struct mp_hist_feed *f = ctx;
	f->last.ok = 0;
	int rc = mp_sym_fork(f->sym, t);
	return feed_rc(f, rc || !f->daddr ? rc : mp_daddr_fork(f->daddr, t));
}

static int feed_exit(void *ctx, const struct mp_pd_task *t)
{
	struct mp_hist_feed *f = ctx;
	f->last.ok = 0;
	return mp_sym_exit(f->sym, t);
}

static int feed_switch(void *ctx, const struct mp_pd_switch *w)
{
	struct mp_hist_feed *f = ctx;
	return f->task_switch(f->sample_ctx, w);
}

static void feed_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct mp_hist_feed *f = ctx;
	if (f->progress)
		f->progress(f->progress_ctx, done, total);
}

void mp_hist_feed_handler(struct mp_hist_feed *feed, struct mp_pd_handler *h)
{
	memset(h, 0, sizeof(*h));
	feed->last.ok = 0;
	h->ctx = feed;
	h->sample = feed_sample;
	h->sample_again = feed_sample_again;
	h->mmap = feed_mmap;
	h->comm = feed_comm;
	h->fork = feed_fork;
	h->exit = feed_exit;
	h->progress = feed_progress;
	/* the hist sums samples; a hook or regions (by time) see each one */
	h->samples_any_order = feed->hist && !feed->sample && !feed->regions && !feed->task_switch;
	h->task_switch = feed->task_switch ? feed_switch : NULL;
}
