/* mp_stat.c - the stat run: the steps of mp_run.c, then wait for the workload (answering
 * the markers, handing over interval counts) and read the counts. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mp_collector_internal.h"

/* ---- stat ---- */

static void stat_done(struct mp_run *r, struct mp_record_result *res, int status,
		      const struct rusage *ru)
{
	res->workload_status = status;
	res->have_rusage = 1;
	res->user_ns = (uint64_t)ru->ru_utime.tv_sec * 1000000000u +
		       (uint64_t)ru->ru_utime.tv_usec * 1000u;
	res->sys_ns = (uint64_t)ru->ru_stime.tv_sec * 1000000000u +
		      (uint64_t)ru->ru_stime.tv_usec * 1000u;
	r->wl.pid = -1;
}

/* -I: the counts so far to the caller's callback. */
static void stat_interval(struct mp_run *r)
{
	const struct mp_stat_opts *o = r->t;
	struct mp_event_result *ev = calloc(o->nevents + 1, sizeof(*ev));
	if (!ev)
		return;
	for (size_t i = 0; i < o->nevents; i++)
		if (mp_evlist_read(r->l, i, &ev[i].counts))
			memset(&ev[i], 0, sizeof(ev[i]));
	o->interval(o->interval_ctx, mp_run_now_ns() - r->t0, ev);
	free(ev);
}

/* Wait for the workload (or the -p process) while forwarding Ctrl-C; with --regions
 * answer the markers, with an interval hand the counts over every interval. */
static void stat_wait(struct mp_run *r, struct mp_record_result *res)
{
	const struct mp_stat_opts *o = r->t;
	uint64_t next = o->interval_ns && o->interval ? r->t0 + o->interval_ns : 0;
	struct rusage ru;
	int status = 0;
	while (r->ctl_fd >= 0 || next) {
		if (mp_run_forward_stop(r))
			return;
		if (r->wl.pid > 0) {
			if (wait4(r->wl.pid, &status, WNOHANG, &ru) == r->wl.pid) {
				stat_done(r, res, status, &ru);
				if (r->ctl_fd >= 0)
					mp_run_control(r); /* what came before the end */
				return;
			}
		} else if (mp_run_target_gone(r)) {
			return;
		}
		struct pollfd pfd[2];
		nfds_t n = 0;
		int ctl = -1;
		if (r->ctl_fd >= 0) {
			ctl = (int)n;
			pfd[n++] = (struct pollfd){ .fd = r->ctl_fd, .events = POLLIN };
		}
		if (r->wl.pid > 0 && r->wl.pidfd >= 0)
			pfd[n++] = (struct pollfd){ .fd = r->wl.pidfd, .events = POLLIN };
		int timeout = 100;
		if (next) {
			uint64_t now = mp_run_now_ns();
			uint64_t ms = now >= next ? 0 : (next - now + 999999) / 1000000;
			timeout = ms < 100 ? (int)ms : 100;
		}
		poll(pfd, n, timeout);
		if (ctl >= 0 && pfd[ctl].revents)
			mp_run_control(r);
		if (next && mp_run_now_ns() >= next) {
			stat_interval(r);
			next += o->interval_ns;
		}
	}
	for (;;) {
		if (mp_run_forward_stop(r))
			break;
		if (r->wl.pid > 0) {
			pid_t p = wait4(r->wl.pid, &status, 0, &ru);
			if (p == r->wl.pid) {
				stat_done(r, res, status, &ru);
				break;
			}
			if (p < 0 && errno != EINTR)
				break;
		} else {
			if (mp_run_target_gone(r))
				break;
			usleep(100000);
		}
	}
}

int mp_stat_run(const struct mp_stat_opts *o, struct mp_record_result *res, struct mp_err *err)
{
	struct mp_run r;
	int rc;

	mp_run_init(&r, o);
	if ((rc = mp_run_check(&r, "count", 0, res, err)))
		return rc;
	if ((rc = mp_run_targets(&r, 0, err)) || (rc = mp_run_open(&r, NULL, err)) ||
	    (o->regions && (rc = mp_run_regions(&r, o->nevents, err))) ||
	    (rc = mp_run_start(&r, res, err)))
		goto out;
	stat_wait(&r, res);
	if (r.reg) {
		if ((rc = mp_regions_finish(r.reg))) {
			rc = mp_err_set(err, rc, "out of memory for the regions table");
			goto out;
		}
		res->regions = r.reg;
	}
	res->wall_ns = mp_run_now_ns() - r.t0;
	mp_evlist_disable(r.l);
	for (size_t i = 0; i < o->nevents; i++)
		if ((rc = mp_evlist_read(r.l, i, &res->ev[i].counts))) {
			rc = mp_err_set(err, rc, "cannot read the count of '%s': %s",
					o->events[i].spec, strerror(-rc));
			goto out;
		}
out:
	mp_run_release(&r, res);
	return rc;
}
