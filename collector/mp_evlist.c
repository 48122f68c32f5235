/* mp_evlist.c - open one event group per (thread, cpu), route them into per-cpu rings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "mp_collector_internal.h"

struct mp_evlist {
	size_t nev, nthreads, ncpus;
	struct perf_event_attr *attrs; /* nev */
	pid_t *threads;
	int *cpus;
	int *fds;       /* [thread][cpu][ev] */
	uint64_t *ids;  /* [ev][thread*ncpus + cpu] */
	struct mp_ring *rings; /* ncpus when sampling */
	size_t nrings;
	struct mp_evlist_opts o;
};

#define FD(l, t, c, e) ((l)->fds[((t) * (l)->ncpus + (c)) * (l)->nev + (e)])
#define ID(l, e, t, c) ((l)->ids[(e) * (l)->nthreads * (l)->ncpus + (t) * (l)->ncpus + (c)])

static void evlist_attr(struct perf_event_attr *a, const struct mp_event *ev, size_t i,
			const struct mp_evlist_opts *o)
{
	*a = ev->attr;
	a->size = sizeof(*a);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			 PERF_FORMAT_ID;
	/* Leader sampling ({a,b}:S): the events module's PERF_FORMAT_GROUP (and LOST) stay,
	 * so that the leader's samples read the whole group. Counting reads each fd alone. */
	if (o->sampling && ev->leader_sample)
		a->read_format |= ev->attr.read_format;
	a->disabled = i == 0;
	a->enable_on_exec = i == 0 && o->enable_on_exec;
	/* The kernel refuses PERF_SAMPLE_READ on inherited events. */
	a->inherit = o->inherit && !(o->sampling && ev->leader_sample) ? 1 : 0;
	if (o->clock_monotonic || o->use_clockid) {
		a->use_clockid = 1;
		a->clockid = o->clock_monotonic ? CLOCK_MONOTONIC : o->clockid;
	}
	if (o->sampling) {
		a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
		/* As perf: the period in each sample only when it varies (-F). With a fixed
		 * period (-c) the kernel would write a sample per occurrence of a software
		 * event (perf_swevent_event: PERIOD set and no freq); readers take the
		 * attr's sample_period instead. */
		if (a->freq)
			a->sample_type |= PERF_SAMPLE_PERIOD;
		if (ev->leader_sample)
			a->sample_type |= ev->attr.sample_type & PERF_SAMPLE_READ;
		/* tracepoints: their payload and period, as perf samples them; but with -c N
		 * (N > 1) no PERIOD, so that the kernel samples every Nth hit, as asked,
		 * where perf's file gets a sample of period 1 per hit (see above) */
		if (ev->attr.type == PERF_TYPE_TRACEPOINT)
			a->sample_type |= (ev->attr.sample_type & PERF_SAMPLE_RAW) |
					  (a->freq || a->sample_period <= 1 ? PERF_SAMPLE_PERIOD : 0);
		if (o->callgraph)
			mp_callgraph_attr(a, o->callgraph, o->cg_stack_size);
		a->sample_type |= o->sample_mem;
		a->sample_id_all = 1;
		/* Wake the poll loop when a quarter of the ring is full, not per sample. */
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)((size_t)o->mmap_pages *
						 (size_t)sysconf(_SC_PAGESIZE) / 4);
		if (i == 0 && o->tracking) {
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->comm_exec = 1;
			a->task = 1;
			a->context_switch = o->switch_events ? 1 : 0;
			/* dwarf: data mmaps too, as perf records them with sample addresses */
			a->mmap_data = o->callgraph == MP_CG_DWARF ||
				       (o->sample_mem & PERF_SAMPLE_ADDR);
		}
	} else {
		a->sample_type = 0;
		a->sample_period = 0;
		a->freq = 0;
	}
}

mp_evlist *mp_evlist_new(const struct mp_event *evs, size_t nev, const pid_t *threads,
			 size_t nthreads, const int *cpus, size_t ncpus,
			 const struct mp_evlist_opts *o, struct mp_err *err)
{
	size_t nfd = nev * nthreads * ncpus;

	if (!nev || !nthreads || !ncpus) {
		mp_err_set(err, -EINVAL, "nothing to open: %zu events, %zu threads, %zu cpus", nev,
			   nthreads, ncpus);
		return NULL;
	}
	mp_evlist *l = calloc(1, sizeof(*l));
	if (!l)
		goto nomem;
	l->nev = nev;
	l->nthreads = nthreads;
	l->ncpus = ncpus;
	l->o = *o;
	if (l->o.sampling && !l->o.mmap_pages)
		l->o.mmap_pages = 128;
	l->attrs = calloc(nev, sizeof(*l->attrs));
	l->threads = calloc(nthreads, sizeof(*l->threads));
	l->cpus = calloc(ncpus, sizeof(*l->cpus));
	l->fds = malloc(nfd * sizeof(*l->fds));
	l->ids = calloc(nfd, sizeof(*l->ids));
	if (!l->attrs || !l->threads || !l->cpus || !l->fds || !l->ids)
		goto nomem;
	memcpy(l->threads, threads, nthreads * sizeof(*threads));
	memcpy(l->cpus, cpus, ncpus * sizeof(*cpus));
	for (size_t i = 0; i < nfd; i++)
		l->fds[i] = -1;
	for (size_t i = 0; i < nev; i++)
		evlist_attr(&l->attrs[i], &evs[i], i, &l->o);
	return l;
nomem:
	mp_err_set(err, -ENOMEM, "out of memory for %zu events", nev);
	mp_evlist_free(l);
	return NULL;
}

static void evlist_close(mp_evlist *l)
{
	for (size_t r = 0; r < l->nrings; r++)
		mp_ring_munmap(&l->rings[r]);
	free(l->rings);
	l->rings = NULL;
	l->nrings = 0;
	for (size_t i = 0; i < l->nev * l->nthreads * l->ncpus; i++)
		if (l->fds[i] >= 0) {
			close(l->fds[i]);
			l->fds[i] = -1;
		}
}

/* Drop thread t (its fds closed): a thread of -p PID that exited before its open. */
/* Make every event user-space only (exclude_kernel and exclude_hv, as perf's ':u') when
 * one is not yet; 1 when something changed (the open is then worth retrying). */
static int evlist_user_only(mp_evlist *l)
{
	int changed = 0;

	for (size_t e = 0; e < l->nev; e++)
		if (!l->attrs[e].exclude_kernel) {
			l->attrs[e].exclude_kernel = 1;
			l->attrs[e].exclude_hv = 1;
			changed = 1;
		}
	return changed;
}

/* -W asks for WEIGHT_STRUCT; kernels before 5.12 refuse it (EINVAL): fall back to the
 * 64-bit WEIGHT, as perf does. 1 when something changed. */
static int evlist_weight_u64(mp_evlist *l)
{
	int changed = 0;

	for (size_t e = 0; e < l->nev; e++)
		if (l->attrs[e].sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
			l->attrs[e].sample_type &= ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
			l->attrs[e].sample_type |= PERF_SAMPLE_WEIGHT;
			changed = 1;
		}
	return changed;
}

static void evlist_drop_thread(mp_evlist *l, uint64_t *fdids, size_t t)
{
	size_t blk = l->ncpus * l->nev, tail = (l->nthreads - t - 1) * blk;

	for (size_t k = 0; k < blk; k++)
		if (l->fds[t * blk + k] >= 0)
			close(l->fds[t * blk + k]);
	memmove(&l->fds[t * blk], &l->fds[(t + 1) * blk], tail * sizeof(*l->fds));
	memmove(&fdids[t * blk], &fdids[(t + 1) * blk], tail * sizeof(*fdids));
	memmove(&l->threads[t], &l->threads[t + 1], (l->nthreads - t - 1) * sizeof(*l->threads));
	l->nthreads--;
	for (size_t k = 0; k < blk; k++)
		l->fds[l->nthreads * blk + k] = -1;
}

int mp_evlist_open(mp_evlist *l, int *bad_event, struct mp_err *err)
{
	size_t nfd = l->nev * l->nthreads * l->ncpus;
	uint64_t *fdids = calloc(nfd ? nfd : 1, sizeof(*fdids)); /* ids in fd order */
	pid_t first = l->nthreads ? l->threads[0] : -1;

	if (!fdids)
		return mp_err_set(err, -ENOMEM, "out of memory for %zu counters", nfd);
	for (size_t t = 0; t < l->nthreads;) {
		int dropped = 0; /* thread t dropped, or every thread to be opened again */
		for (size_t c = 0; c < l->ncpus && !dropped; c++)
			for (size_t e = 0; e < l->nev; e++) {
				int group = e ? FD(l, t, c, 0) : -1;
				int fd = mp_ev_sys_perf_event_open(&l->attrs[e], l->threads[t],
								l->cpus[c], group,
								PERF_FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int er = errno ? errno : EINVAL;
					if ((er == EACCES || er == EPERM) && l->threads[t] != -1 &&
					    evlist_user_only(l)) {
						/* The kernel refuses kernel-space events to this
						 * user (perf_event_paranoid >= 2): count user space
						 * only, as perf does, from the first thread again. */
						mp_log(MP_LOG_WARN, "the kernel refuses kernel-space "
						       "events to this user (perf_event_paranoid): "
						       "measuring user space only (as ':u')");
						evlist_close(l);
						t = 0;
						dropped = 1;
						break;
					}
					if (er == EINVAL && evlist_weight_u64(l)) {
						mp_log(MP_LOG_INFO, "the kernel refuses "
						       "PERF_SAMPLE_WEIGHT_STRUCT: sampling "
						       "the 64-bit weight instead");
						evlist_close(l);
						t = 0;
						dropped = 1;
						break;
					}
					if (er == ESRCH && l->threads[t] > 0 && l->nthreads > 1) {
						/* exited since /proc/PID/task was listed: skip it,
						 * as perf does */
						mp_log(MP_LOG_INFO, "thread %d exited before its "
						       "counters were opened: skipped",
						       (int)l->threads[t]);
						evlist_drop_thread(l, fdids, t);
						dropped = 1;
						break;
					}
					if (bad_event)
						*bad_event = (int)e;
					evlist_close(l);
					free(fdids);
					if (er == ESRCH && l->threads[t] > 0)
						return mp_err_set(err, -er, "process %d: no such process "
								  "(it exited)", (int)first);
					return mp_err_set(err, -er,
							  "perf_event_open (pid %d, cpu %d): %s",
							  (int)l->threads[t], l->cpus[c],
							  strerror(er));
				}
				FD(l, t, c, e) = fd;
				if (ioctl(fd, PERF_EVENT_IOC_ID,
					  &fdids[(t * l->ncpus + c) * l->nev + e]) < 0) {
					int er = errno;
					if (bad_event)
						*bad_event = (int)e;
					evlist_close(l);
					free(fdids);
					return mp_err_set(err, -er, "PERF_EVENT_IOC_ID: %s",
							  strerror(er));
				}
			}
		if (!dropped)
			t++;
	}
	for (size_t t = 0; t < l->nthreads; t++)
		for (size_t c = 0; c < l->ncpus; c++)
			for (size_t e = 0; e < l->nev; e++)
				ID(l, e, t, c) = fdids[(t * l->ncpus + c) * l->nev + e];
	free(fdids);
	return 0;
}

int mp_evlist_mmap(mp_evlist *l, struct mp_err *err)
{
	int rc;

	l->rings = calloc(l->ncpus, sizeof(*l->rings));
	if (!l->rings)
		return mp_err_set(err, -ENOMEM, "out of memory for ring buffers");
	for (size_t c = 0; c < l->ncpus; c++) {
		int out = FD(l, 0, c, 0);
		rc = mp_ring_mmap(&l->rings[c], out, l->o.mmap_pages, err);
		if (rc)
			goto fail;
		l->nrings++;
		for (size_t t = 0; t < l->nthreads; t++)
			for (size_t e = 0; e < l->nev; e++) {
				int fd = FD(l, t, c, e);
				if (fd == out)
					continue;
				if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out) < 0) {
					rc = mp_err_set(err, -errno, "PERF_EVENT_IOC_SET_OUTPUT: %s",
							strerror(errno));
					goto fail;
				}
			}
	}
	return 0;
fail:
	evlist_close(l);
	return rc;
}

static int evlist_ioctl_leaders(mp_evlist *l, unsigned long req)
{
	int rc = 0;
	for (size_t t = 0; t < l->nthreads; t++)
		for (size_t c = 0; c < l->ncpus; c++)
			if (FD(l, t, c, 0) >= 0 &&
			    ioctl(FD(l, t, c, 0), req, PERF_IOC_FLAG_GROUP) < 0)
				rc = -errno;
	return rc;
}

int mp_evlist_enable(mp_evlist *l)
{
	return evlist_ioctl_leaders(l, PERF_EVENT_IOC_ENABLE);
}

int mp_evlist_disable(mp_evlist *l)
{
	return evlist_ioctl_leaders(l, PERF_EVENT_IOC_DISABLE);
}

const struct perf_event_attr *mp_evlist_attr(const mp_evlist *l, size_t i)
{
	return i < l->nev ? &l->attrs[i] : NULL;
}

const uint64_t *mp_evlist_ids(const mp_evlist *l, size_t i, size_t *n)
{
	*n = l->nthreads * l->ncpus;
	return &l->ids[i * *n];
}

size_t mp_evlist_nrings(const mp_evlist *l)
{
	return l->nrings;
}

struct mp_ring *mp_evlist_ring(mp_evlist *l, size_t i)
{
	return i < l->nrings ? &l->rings[i] : NULL;
}

int mp_evlist_read_one(mp_evlist *l, size_t i, size_t j, uint64_t *id, struct mp_counts *out)
{
	uint64_t rf, v[4];
	int fd;
	ssize_t n;

	if (i >= l->nev || j >= l->nthreads * l->ncpus)
		return -EINVAL;
	fd = l->fds[j * l->nev + i];
	if (fd < 0)
		return -EBADF;
	rf = l->attrs[i].read_format;
	if (rf & PERF_FORMAT_GROUP) {
		/* The whole group: nr, time enabled, time running, {value, id[, lost]} x nr;
		 * this fd's entry is the one with its id. */
		size_t ent = 2 + !!(rf & PERF_FORMAT_LOST), cap = 3 + ent * l->nev;
		uint64_t *g = calloc(cap, sizeof(*g));
		uint64_t want = l->ids[i * l->nthreads * l->ncpus + j];
		int rc = -ENOENT;
		if (!g)
			return -ENOMEM;
		n = read(fd, g, cap * sizeof(*g));
		if (n < 0)
			rc = -errno;
		else if (n < 3 * 8 || g[0] > l->nev || (size_t)n < (3 + g[0] * ent) * 8)
			rc = -EIO;
		else
			for (uint64_t k = 0; k < g[0]; k++)
				if (g[3 + k * ent + 1] == want) {
					*out = (struct mp_counts){ g[3 + k * ent], g[1], g[2] };
					*id = want;
					rc = 0;
					break;
				}
		free(g);
		return rc;
	}
	n = read(fd, v, sizeof(v));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	*out = (struct mp_counts){ v[0], v[1], v[2] };
	*id = v[3];
	return 0;
}

int mp_evlist_read(mp_evlist *l, size_t i, struct mp_counts *out)
{
	uint64_t id = 0;
	struct mp_counts c = { 0, 0, 0 }; /* gcc 12 -O3 for aarch64 sees a path leaving it unset */
	int rc;

	*out = (struct mp_counts){ 0, 0, 0 };
	for (size_t j = 0; j < l->nthreads * l->ncpus; j++) {
		rc = mp_evlist_read_one(l, i, j, &id, &c);
		if (rc)
			return rc;
		mp_counts_add(out, &c);
	}
	return 0;
}

void mp_evlist_free(mp_evlist *l)
{
	if (!l)
		return;
	if (l->fds)
		evlist_close(l);
	free(l->attrs);
	free(l->threads);
	free(l->cpus);
	free(l->fds);
	free(l->ids);
	free(l);
}
