/* Unit tests of the collector: the ring reader, the event list against a fake
 * perf_event_open (-Wl,--wrap), and live record/stat runs on software events. (The writer's
 * tests are perfdata's, in test_perfdata.c.) */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_collector_internal.h"
#include "mp_test_pdw.h"

/* ---- fake perf_event_open / ioctl ---- */

struct fake_call {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd, fd;
};

static int fake_on;          /* 0: the real syscall */
static int fake_fail_at = -1; /* call index that fails */
static int fake_errno;
static struct fake_call fake_calls[64];
static int fake_ncalls;

int __real_mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				  int group_fd, unsigned long flags);
int __wrap_mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				  int group_fd, unsigned long flags)
{
	if (!fake_on)
		return __real_mp_ev_sys_perf_event_open(attr, pid, cpu, group_fd, flags);
	int i = fake_ncalls++;
	if (i == fake_fail_at) {
		errno = fake_errno;
		return -1;
	}
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (i < 64)
		fake_calls[i] = (struct fake_call){ *attr, pid, cpu, group_fd, fd };
	return fd;
}

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (fake_on && req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = 1000 + (uint64_t)fd;
		return 0;
	}
	if (fake_on && (req == PERF_EVENT_IOC_ENABLE || req == PERF_EVENT_IOC_DISABLE ||
			req == PERF_EVENT_IOC_SET_OUTPUT))
		return 0;
	return __real_ioctl(fd, req, arg);
}

static void fake_reset(int fail_at, int err)
{
	fake_on = 1;
	fake_fail_at = fail_at;
	fake_errno = err;
	fake_ncalls = 0;
	memset(fake_calls, 0, sizeof(fake_calls));
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static struct mp_event sw_event(const char *name, uint64_t config, uint64_t period)
{
	struct mp_event ev;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.spec, sizeof(ev.spec), "%s", name);
	snprintf(ev.resolved, sizeof(ev.resolved), "%s", name);
	ev.kind = MP_EV_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = config;
	ev.attr.sample_period = period;
	ev.min_count = 1;
	return ev;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long sz;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* ---- ring ---- */

static void ring__wrapped_record__bounce_copy(void **state)
{
	(void)state;
	/* A fake ring of 256 data bytes after a control page. */
	size_t page = 4096;
	unsigned char *mem = calloc(1, page + 256);
	struct mp_ring r;
	memset(&r, 0, sizeof(r));
	r.pc = (void *)mem;
	r.data = mem + page;
	r.size = 256;
	r.mask = 255;
	/* records of 40 bytes starting at offset 200: the first wraps after 56 bytes? no: 200+40
	 * = 240 fits; the second (240..280) wraps. Positions are absolute (head grows). */
	uint64_t start = 200;
	r.cur = start;
	r.pc->data_tail = start;
	for (int k = 0; k < 3; k++) {
		unsigned char rec[40];
		struct perf_event_header *h = (void *)rec;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = 0;
		h->size = 40;
		for (int i = 8; i < 40; i++)
			rec[i] = (unsigned char)(k * 50 + i);
		for (int i = 0; i < 40; i++)
			r.data[(start + (uint64_t)k * 40 + (uint64_t)i) & 255] = rec[i];
	}
	r.pc->data_head = start + 120;
	assert_int_equal(mp_ring_read_init(&r), 120);
	for (int k = 0; k < 3; k++) {
		const struct perf_event_header *h = mp_ring_read_event(&r);
		assert_non_null(h);
		assert_int_equal(h->size, 40);
		const unsigned char *b = (const void *)h;
		for (int i = 8; i < 40; i++)
			assert_int_equal(b[i], (unsigned char)(k * 50 + i));
		if (k == 1)
			assert_ptr_equal(b, r.bounce); /* the wrapped one */
		mp_ring_consume(&r);
	}
	assert_null(mp_ring_read_event(&r));
	mp_ring_read_done(&r);
	assert_int_equal(r.pc->data_tail, start + 120);
	/* a corrupt size skips to head instead of looping */
	r.data[(start + 120) & 255] = 0;
	memset(&r.data[(start + 120) & 255], 0, 8);
	r.pc->data_head = start + 160;
	mp_ring_read_init(&r);
	assert_null(mp_ring_read_event(&r));
	assert_int_equal(r.cur, start + 160);
	free(r.bounce);
	free(mem);
}

/* ---- evlist with the fake syscall ---- */

static void evlist__group_per_cpu__leader_and_members(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 250000) };
	pid_t th[1] = { 1234 };
	int cpus[2] = { 0, 1 };
	struct mp_evlist_opts o = { .sampling = 1, .callgraph = 1, .inherit = 1,
				    .enable_on_exec = 1, .tracking = 1, .mmap_pages = 8 };
	struct mp_err err = { 0 };
	fake_reset(-1, 0);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 2, &o, &err);
	assert_non_null(l);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 4);
	for (int c = 0; c < 2; c++) {
		struct fake_call *ld = &fake_calls[c * 2], *mb = &fake_calls[c * 2 + 1];
		assert_int_equal(ld->cpu, c);
		assert_int_equal(ld->pid, 1234);
		assert_int_equal(ld->group_fd, -1);
		assert_int_equal(ld->attr.disabled, 1);
		assert_int_equal(ld->attr.enable_on_exec, 1);
		assert_int_equal(ld->attr.mmap, 1);
		assert_int_equal(ld->attr.comm, 1);
		assert_int_equal(ld->attr.task, 1);
		assert_int_equal(mb->group_fd, ld->fd);
		assert_int_equal(mb->cpu, c);
		assert_int_equal(mb->attr.disabled, 0);
		assert_int_equal(mb->attr.enable_on_exec, 0);
		assert_int_equal(mb->attr.mmap, 0);
		assert_int_equal(mb->attr.sample_period, 250000);
		for (int k = 0; k < 2; k++) {
			struct perf_event_attr *a = &fake_calls[c * 2 + k].attr;
			assert_int_equal(a->inherit, 1);
			assert_int_equal(a->sample_id_all, 1);
			assert_int_equal(a->sample_type, ST_FIXED | PERF_SAMPLE_CALLCHAIN);
			assert_int_equal(a->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
								 PERF_FORMAT_TOTAL_TIME_RUNNING |
								 PERF_FORMAT_ID);
		}
	}
	size_t n;
	const uint64_t *ids = mp_evlist_ids(l, 1, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1000 + (uint64_t)fake_calls[1].fd);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[3].fd);
	int fd0 = fake_calls[0].fd;
	mp_evlist_free(l);
	assert_false(fd_is_open(fd0));
	fake_on = 0;
}

/* {a,b}:S as the events module marks it: the leader samples and reads the group. */
static void leader_mark(struct mp_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		evs[i].leader_sample = i ? MP_LEADER_SAMPLE_MEMBER : MP_LEADER_SAMPLE_LEADER;
		evs[i].attr.sample_type |= PERF_SAMPLE_READ;
		evs[i].attr.read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		if (i)
			evs[i].attr.sample_period = 0;
	}
}

static void evlist__leader_sampling__group_read_no_inherit(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	pid_t th[1] = { 1234 };
	int cpus[1] = { 0 };
	struct mp_evlist_opts o = { .sampling = 1, .inherit = 1, .enable_on_exec = 1,
				    .tracking = 1, .mmap_pages = 8 };
	struct mp_err err = { 0 };
	leader_mark(evs, 2);
	fake_reset(-1, 0);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_non_null(l);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 2);
	for (int k = 0; k < 2; k++) {
		struct perf_event_attr *a = &fake_calls[k].attr;
		assert_int_equal(a->inherit, 0);
		assert_int_equal(a->sample_type, ST_FIXED | PERF_SAMPLE_READ);
		assert_int_equal(a->read_format,
				 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
					 PERF_FORMAT_ID | PERF_FORMAT_GROUP);
	}
	assert_int_equal(fake_calls[1].attr.sample_period, 0);
	mp_evlist_free(l);
	/* counting (stat): each fd is read alone, inherit stays */
	o.sampling = 0;
	fake_reset(-1, 0);
	l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_calls[0].attr.inherit, 1);
	assert_int_equal(fake_calls[0].attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
								  PERF_FORMAT_TOTAL_TIME_RUNNING |
								  PERF_FORMAT_ID);
	mp_evlist_free(l);
	fake_on = 0;
}

/* An empty event list, thread list or cpu list is a usage error (EINVAL) named in the
 * message, not "out of memory". */
static void evlist__nothing_to_open__einval(void **state)
{
	(void)state;
	struct mp_event evs[1] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0) };
	pid_t th[1] = { 100 };
	int cpus[1] = { -1 };
	struct mp_evlist_opts o = { .inherit = 1 };
	struct mp_err err = { 0 };
	assert_null(mp_evlist_new(evs, 1, th, 0, cpus, 1, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 threads"));
	assert_null(mp_evlist_new(evs, 0, th, 1, cpus, 1, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 events"));
	assert_null(mp_evlist_new(evs, 1, th, 1, cpus, 0, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 cpus"));
}

/* -p PID: a thread that exited between the /proc/PID/task listing and its open (ESRCH)
 * is skipped, as perf does; the last one gone is an error. */
static void evlist__thread_gone__skipped(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	pid_t th[3] = { 100, 101, 102 };
	int cpus[1] = { -1 };
	struct mp_evlist_opts o = { .inherit = 1 };
	struct mp_err err = { 0 };
	/* call 3 is thread 101's member: its leader (call 2) is closed again */
	fake_reset(3, ESRCH);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 3, cpus, 1, &o, &err);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 6);
	/* closed: the next open (thread 102's leader) gets the lowest free fd, the same */
	assert_int_equal(fake_calls[4].fd, fake_calls[2].fd);
	assert_int_equal(fake_calls[4].pid, 102);
	size_t n;
	const uint64_t *ids = mp_evlist_ids(l, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1000 + (uint64_t)fake_calls[0].fd);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[4].fd);
	ids = mp_evlist_ids(l, 1, &n);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[5].fd);
	mp_evlist_free(l);
	/* one thread, gone: an error naming the process */
	fake_reset(0, ESRCH);
	l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_int_equal(mp_evlist_open(l, &bad, &err), -ESRCH);
	assert_non_null(strstr(err.msg, "process 100"));
	mp_evlist_free(l);
	fake_on = 0;
}

static void evlist__second_open_refused__all_closed(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 100000) };
	pid_t th[1] = { 1234 };
	int cpus[2] = { 0, 1 };
	struct mp_evlist_opts o = { .sampling = 0, .inherit = 1 };
	struct mp_err err = { 0 };
	fake_reset(3, ENOENT);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 2, &o, &err);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), -ENOENT);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(err.msg, "cpu 1"));
	for (int i = 0; i < 3; i++)
		assert_false(fd_is_open(fake_calls[i].fd));
	/* counting mode: no sampling fields */
	assert_int_equal(fake_calls[0].attr.sample_type, 0);
	assert_int_equal(fake_calls[0].attr.sample_period, 0);
	mp_evlist_free(l);
	fake_on = 0;
}

/* ---- record / stat runs ---- */

static void record__open_refused__no_file_child_reaped(void **state)
{
	(void)state;
	struct mp_event ev = sw_event("L1D_REPL", 0, 100000);
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = 0x151;
	ev.kind = MP_EV_PMU;
	const char *out = path_in("refused.data");
	char *argv[] = { "true", NULL };
	struct mp_record_opts o = { .events = &ev, .nevents = 1, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	fake_reset(0, ENOENT);
	int rc = mp_record_run(&o, &res, &err);
	fake_on = 0;
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err.msg, "L1D_REPL"));
	assert_int_equal(res.workload_started, 0);
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp*", out);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(n_matching(tmp), 0);
	/* the held child was reaped */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	free(res.ev);
}

/* A member refused with EINVAL that opens alone: the group is larger than the PMU. */
static void stat__group_too_big__counters_message(void **state)
{
	(void)state;
	struct mp_event evs[3];
	for (int i = 0; i < 3; i++) {
		evs[i] = sw_event("r08", 0, 0);
		evs[i].attr.type = PERF_TYPE_RAW;
		evs[i].attr.config = 0x8;
		evs[i].kind = MP_EV_PMU;
	}
	char *argv[] = { "true", NULL };
	struct mp_stat_opts o = { .events = evs, .nevents = 3, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	fake_reset(2, EINVAL);
	int rc = mp_stat_run(&o, &res, &err);
	int calls = fake_ncalls;
	fake_on = 0;
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(calls, 4); /* three in the group, then the third alone */
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, "the group of 3 hardware events cannot be scheduled "
					 "together on the PMU"));
	assert_non_null(strstr(err.msg, "memprof ratios --record-cmd"));
	assert_non_null(strstr(err.msg, "'r08'"));
	free(res.ev);
	/* a software member refused is not a counter shortage */
	evs[2] = sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0);
	memset(&err, 0, sizeof(err));
	fake_reset(2, EINVAL);
	rc = mp_stat_run(&o, &res, &err);
	fake_on = 0;
	assert_int_equal(rc, -EINVAL);
	assert_null(strstr(err.msg, "cannot be scheduled"));
	free(res.ev);
}

static void record__missing_command__exec_errno(void **state)
{
	(void)state;
	struct mp_event ev = sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000);
	const char *out = path_in("noexec.data");
	char *argv[] = { "/nonexistent/prog", NULL };
	struct mp_record_opts o = { .events = &ev, .nevents = 1, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip(); /* perf_event_paranoid forbids it here */
	}
	assert_int_equal(rc, -ENOENT);
	assert_int_equal(res.exec_errno, ENOENT);
	assert_non_null(strstr(err.msg, "cannot run '/nonexistent/prog'"));
	assert_int_equal(access(out, F_OK), -1);
	free(res.ev);
}

static void record__live_cpu_clock__samples_and_counts(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1000000),
				   sw_event("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 1) };
	const char *out = path_in("live.data");
	/* about 0.2 s of user time, touching 2000 fresh pages, exit status 3 */
	char *argv[] = { "sh", "-c",
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; "
			 "head -c 8192000 /dev/zero | cat >/dev/null; exit 3",
			 NULL };
	struct mp_record_opts o = { .events = evs, .nevents = 2, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(res.workload_started, 1);
	assert_int_equal(mp_exit_code(res.workload_status), 3);
	assert_true(res.ev[0].samples > 0);
	assert_true(res.ev[1].samples > 0);
	/* page-faults with period 1: every fault is a sample, and the exact count says so */
	assert_int_equal(res.ev[1].samples + res.ev[1].lost, res.ev[1].counts.val);
	assert_true(res.ev[0].counts.val >= res.ev[0].samples * 1000000);
	assert_int_equal(res.lost_total, 0);
	assert_int_equal(access(out, F_OK), 0);
	free(res.ev);
}

/* A live {cpu-clock,task-clock}:S recording: the leader's samples carry the group's read
 * block (nr 2, both ids), the member has no samples and its exact count. */
static void record__live_leader_sampling__group_reads(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1000000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	const char *out = path_in("leader.data");
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	struct mp_record_opts o = { .events = evs, .nevents = 2, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	leader_mark(evs, 2);
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_true(res.ev[0].samples > 0);
	assert_int_equal(res.ev[1].samples, 0);
	assert_true(res.ev[1].counts.val >= res.ev[0].samples * 1000000 / 2);
	size_t n;
	unsigned char *f = slurp(out, &n);
	assert_non_null(f);
	const struct fhdr *h = (const void *)f;
	size_t nsamples = 0, nread = 0;
	for (uint64_t off = 0; off < h->data_size;) {
		const struct perf_event_header *r = (const void *)(f + h->data_off + off);
		const uint64_t *u = (const void *)(r + 1);
		assert_true(r->size >= 8);
		/* IDENTIFIER IP TID TIME CPU (a fixed period: no PERIOD), then nr, ena, run,
		 * {value, id} x nr */
		if (r->type == PERF_RECORD_SAMPLE) {
			assert_int_equal(r->size, 8 + 8 * (5 + 3 + 2 * 2));
			assert_int_equal(u[5], 2);
			assert_int_equal(u[9], u[0]); /* the leader's id first */
			assert_true(u[11] != u[9]);
			nsamples++;
		}
		if (r->type == PERF_RECORD_READ) {
			/* one counter in the group layout: pid/tid, nr 1, ena, run, value, id */
			assert_int_equal(u[1], 1);
			nread++;
		}
		off += r->size;
	}
	assert_int_equal(nsamples, res.ev[0].samples);
	assert_int_equal(nread, 2 * (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	free(f);
	free(res.ev);
}

static void stat__live_task_clock__counted_and_status(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0),
				   sw_event("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES,
					    0) };
	char *argv[] = { "sh", "-c", "sleep 0.05; kill -TERM $$", NULL };
	struct mp_stat_opts o = { .events = evs, .nevents = 2, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_stat_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(mp_exit_code(res.workload_status), 128 + SIGTERM);
	assert_true(res.ev[0].counts.val > 0);
	assert_true(res.ev[0].counts.ena > 0);
	assert_true(res.ev[0].counts.run <= res.ev[0].counts.ena);
	assert_true(res.ev[1].counts.val >= 1); /* sleep switches at least once */
	free(res.ev);
}

static void exit_code__status_kinds(void **state)
{
	(void)state;
	assert_int_equal(mp_exit_code(0), 0);
	assert_int_equal(mp_exit_code(3 << 8), 3);
	assert_int_equal(mp_exit_code(SIGKILL), 137);
	assert_int_equal(mp_exit_code(SIGINT), 130);
}

/* perf record's --call-graph parsing and attr bits (tools/perf/util/callchain.c and
 * evsel__config_callchain): dwarf,SIZE rounds up to 8 bytes, at most 65528; lbr asks for
 * the user call stack without flags or cycles, as the LBR fixture's attr shows, plus
 * HW_INDEX (perf 5.7 on). */
static void callgraph__perf_spellings__attrs_as_perf(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		int rc, mode;
		uint32_t size;
		int line;
	} cases[] = {
		{ "fp", 0, MP_CG_FP, 0, __LINE__ },
		{ "dwarf", 0, MP_CG_DWARF, 8192, __LINE__ },
		{ "dwarf,4000", 0, MP_CG_DWARF, 4000, __LINE__ },
		{ "dwarf,100", 0, MP_CG_DWARF, 104, __LINE__ },
		{ "dwarf,65528", 0, MP_CG_DWARF, 65528, __LINE__ },
		{ "dwarf,65529", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,0", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,-8", -EINVAL, 0, 0, __LINE__ },
		{ "dwarfx", -EINVAL, 0, 0, __LINE__ },
		{ "lbr", 0, MP_CG_LBR, 0, __LINE__ },
		{ "", -EINVAL, 0, 0, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_err err = { 0 };
		int mode = -1;
		uint32_t size = 1;
		int rc = mp_callgraph_parse(cases[i].in, &mode, &size, &err);
		if (rc != cases[i].rc)
			fail_msg("line %d: '%s' gives %d", cases[i].line, cases[i].in, rc);
		if (rc) {
			assert_non_null(strstr(err.msg, cases[i].in));
			continue;
		}
		if (mode != cases[i].mode || size != cases[i].size)
			fail_msg("line %d: '%s' gives mode %d size %u", cases[i].line, cases[i].in,
				 mode, size);
	}
	struct perf_event_attr a = { 0 };
	mp_callgraph_attr(&a, MP_CG_LBR, 0);
	assert_int_equal(a.sample_type, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK);
	assert_int_equal(a.branch_sample_type,
			 PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
				 PERF_SAMPLE_BRANCH_HW_INDEX);
	assert_int_equal(a.exclude_callchain_user, 0);
	memset(&a, 0, sizeof(a));
	mp_callgraph_attr(&a, MP_CG_FP, 0);
	assert_int_equal(a.sample_type, PERF_SAMPLE_CALLCHAIN);
	memset(&a, 0, sizeof(a));
	mp_callgraph_attr(&a, MP_CG_DWARF, 0);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.exclude_callchain_user, 1);
#if defined(__x86_64__)
	assert_int_equal(a.sample_regs_user, 0xff0fff);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(callgraph__perf_spellings__attrs_as_perf),
		cmocka_unit_test(ring__wrapped_record__bounce_copy),
		cmocka_unit_test(evlist__group_per_cpu__leader_and_members),
		cmocka_unit_test(evlist__second_open_refused__all_closed),
		cmocka_unit_test(evlist__nothing_to_open__einval),
		cmocka_unit_test(evlist__thread_gone__skipped),
		cmocka_unit_test(record__open_refused__no_file_child_reaped),
		cmocka_unit_test(record__missing_command__exec_errno),
		cmocka_unit_test(stat__group_too_big__counters_message),
		cmocka_unit_test(record__live_cpu_clock__samples_and_counts),
		cmocka_unit_test(record__live_leader_sampling__group_reads),
		cmocka_unit_test(evlist__leader_sampling__group_read_no_inherit),
		cmocka_unit_test(stat__live_task_clock__counted_and_status),
		cmocka_unit_test(exit_code__status_kinds),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
