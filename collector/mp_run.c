/* mp_run.c - what the record and stat runs share: the precheck of what the kernel allows,
 * the cpus and threads the events are opened on, the held workload, opening the group
 * (a refused open explained), starting, Ctrl-C forwarding, the markers' control socket and
 * the release of it all. mp_record.c drains the rings into a file, mp_stat.c reads counts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mp_collector_internal.h"

int mp_exit_code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 1;
}

uint64_t mp_run_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int read_int_file(const char *path, int dflt)
{
	char *s = mp_read_file(path, NULL, NULL);
	int v = dflt;
	if (s) {
		v = atoi(s);
		free(s);
	}
	return v;
}

/* ---- precheck ---- */

static int privileged(void)
{
	char *st;
	const char *c;
	int priv = 0;

	if (geteuid() == 0)
		return 1;
	st = mp_read_file("/proc/self/status", NULL, NULL);
	if (st && (c = strstr(st, "CapEff:"))) {
		unsigned long long caps = strtoull(c + 7, NULL, 16);
		priv = !!(caps & (1ull << 38 /* CAP_PERFMON */)) ||
		       !!(caps & (1ull << 21 /* CAP_SYS_ADMIN */));
	}
	free(st);
	return priv;
}

/* Address of the kernel's _text (or _stext) in /proc/kallsyms, 0 when hidden or missing.
 * A line scan over big reads that stops at the first of them: they come after the per-cpu
 * symbols at the start of the file, so the rest (hundreds of thousands of lines) is not read. */
static uint64_t kallsyms_text(void)
{
	enum { BUFSZ = 65536 };
	char *buf = malloc(BUFSZ);
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	uint64_t addr = 0;
	int found = 0;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return 0;
	}
	while (!found) {
		ssize_t n = read(fd, buf + len, BUFSZ - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = 0;
		char *line = buf, *nl;
		while (!found && (nl = memchr(line, '\n', len - (size_t)(line - buf)))) {
			/* "ADDR T NAME[\t[MODULE]]" */
			char *sp = memchr(line, ' ', (size_t)(nl - line));
			if (sp && nl - sp > 3 && sp[2] == ' ') {
				char *name = sp + 3;
				size_t nlen = (size_t)(nl - name);
				if ((nlen == 5 && !memcmp(name, "_text", 5)) ||
				    (nlen == 6 && !memcmp(name, "_stext", 6))) {
					addr = strtoull(line, NULL, 16);
					found = 1;
				}
			}
			line = nl + 1;
		}
		/* keep the partial last line */
		len -= (size_t)(line - buf);
		memmove(buf, line, len);
		if (len == BUFSZ - 1)
			len = 0; /* a line longer than the buffer: drop it */
	}
	close(fd);
	free(buf);
	return addr;
}

int mp_collector_precheck(const struct mp_event *evs, size_t n, int system_wide,
			  struct mp_precheck *pc, struct mp_err *err)
{
	DIR *d;
	struct dirent *de;
	int want_kernel = 0;

	memset(pc, 0, sizeof(*pc));
	pc->paranoid = read_int_file("/proc/sys/kernel/perf_event_paranoid", -100);
	pc->kptr_restrict = read_int_file("/proc/sys/kernel/kptr_restrict", -1);
	pc->privileged = privileged();
	if ((d = opendir("/sys/bus/event_source/devices"))) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			size_t l = strlen(pc->pmus);
			snprintf(pc->pmus + l, sizeof(pc->pmus) - l, "%s%s", l ? " " : "",
				 de->d_name);
			if (!strcmp(de->d_name, "cpu") || !strncmp(de->d_name, "cpu_", 4) ||
			    !strncmp(de->d_name, "armv", 4) || strstr(de->d_name, "pmu"))
				pc->hw_pmu = 1;
		}
		closedir(d);
	}
	mp_log(MP_LOG_INFO, "perf_event_paranoid=%d kptr_restrict=%d%s; PMUs: %s%s",
	       pc->paranoid, pc->kptr_restrict, pc->privileged ? " (privileged)" : "",
	       pc->pmus[0] ? pc->pmus : "none", pc->hw_pmu ? "" : " (no hardware PMU)");
	for (size_t i = 0; i < n; i++)
		want_kernel |= !evs[i].attr.exclude_kernel;
	if (want_kernel) {
		pc->kernel_text = kallsyms_text();
		pc->kernel_syms = pc->kernel_text != 0;
	}
	if (pc->paranoid == -100)
		return mp_err_set(err, -ENOSYS,
				  "/proc/sys/kernel/perf_event_paranoid is missing: this kernel "
				  "has no perf events (CONFIG_PERF_EVENTS)");
	if (!pc->privileged) {
		/* No refusal for paranoid >= 3: what it means is the kernel's (mainline treats
		 * it as 2); a refused open is explained afterwards. */
		if (system_wide && pc->paranoid > 0)
			return mp_err_set(err, -EACCES,
					  "system-wide recording (-a) needs kernel.perf_event_paranoid "
					  "<= 0 (it is %d) or CAP_PERFMON: run 'sysctl "
					  "kernel.perf_event_paranoid=0' as root",
					  pc->paranoid);
		/* Info only: a refused open says the same in its one error line. */
		if (want_kernel && pc->paranoid >= 2)
			mp_log(MP_LOG_INFO,
			       "kernel.perf_event_paranoid=%d allows only user-space events to "
			       "unprivileged users: add ':u' to the events, or run 'sysctl "
			       "kernel.perf_event_paranoid=1' as root",
			       pc->paranoid);
	}
	/* /proc/kallsyms shows zeros when kptr_restrict is 2, or 1 without CAP_SYSLOG; at 0
	 * it still does to users without CAP_SYSLOG when perf_event_paranoid >= 2. */
	if (want_kernel && !pc->kernel_syms && pc->kptr_restrict == 0 && pc->paranoid >= 2)
		mp_log(MP_LOG_WARN,
		       "kernel symbols are hidden from this user (kernel.perf_event_paranoid=%d "
		       "hides kernel addresses even at kptr_restrict=0): kernel samples will show "
		       "as [unknown]; run as root or 'sysctl kernel.perf_event_paranoid=1'",
		       pc->paranoid);
	else if (want_kernel && !pc->kernel_syms)
		mp_log(MP_LOG_WARN,
		       "kernel symbols are hidden (kernel.kptr_restrict=%d): kernel samples "
		       "will show as [unknown]; run 'sysctl kernel.kptr_restrict=0' to name them",
		       pc->kptr_restrict);
	return 0;
}

/* ---- cpus and threads ---- */

static int online_cpus(int **out, size_t *n)
{
	char *s = mp_read_file("/sys/devices/system/cpu/online", NULL, NULL);
	size_t cap = 16;
	int *v = malloc(cap * sizeof(*v));
	const char *p = s;

	*n = 0;
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	if (!s) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		for (long i = 0; i < nc && i < 16; i++)
			v[(*n)++] = (int)i;
	}
	while (p && *p && *p != '\n') {
		char *e;
		long a = strtol(p, &e, 10), b = a;
		if (e == p)
			break;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (long c = a; c <= b; c++) {
			if (MP_GROW(v, cap, *n + 1)) {
				free(v);
				free(s);
				return -ENOMEM;
			}
			v[(*n)++] = (int)c;
		}
		p = *e == ',' ? e + 1 : e;
	}
	free(s);
	if (!*n) {
		free(v);
		return -ENOENT;
	}
	*out = v;
	return 0;
}

int mp_run_task_threads(pid_t pid, pid_t **out, size_t *n, struct mp_err *err)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	size_t cap = 16;
	pid_t *v;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return mp_err_set(err, -ESRCH, "process %d: no such process", (int)pid);
	v = malloc(cap * sizeof(*v));
	*n = 0;
	while (v && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (MP_GROW(v, cap, *n + 1)) {
			closedir(d);
			free(v);
			return mp_err_set(err, -ENOMEM, "process %d: out of memory", (int)pid);
		}
		v[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	if (!v || !*n) {
		free(v);
		return mp_err_set(err, -ESRCH, "process %d: no threads", (int)pid);
	}
	*out = v;
	return 0;
}

static int is_hw(const struct mp_event *ev)
{
	return ev->attr.type != PERF_TYPE_SOFTWARE && ev->attr.type != PERF_TYPE_TRACEPOINT &&
	       ev->attr.type != PERF_TYPE_BREAKPOINT;
}

/* The core PMU's name and, where sysfs says it (caps/num_counters), its counters. */
static void core_pmu(char *name, size_t len, int *counters)
{
	static const char *const pfx[] = { "cpu", "cpu_core", "armv8", "armv7", "riscv" };
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;

	snprintf(name, len, "the PMU");
	*counters = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		int core = 0;
		for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
			core |= !strncmp(de->d_name, pfx[i], strlen(pfx[i]));
		if (!core || !strcmp(de->d_name, "cpu_atom"))
			continue;
		snprintf(name, len, "the PMU %s", de->d_name);
		static const char *const caps[] = { "num_counters", "counters", "num_counters_gp" };
		for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]) && !*counters; i++) {
			char path[512];
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/%s",
				 de->d_name, caps[i]);
			*counters = read_int_file(path, 0);
		}
		break;
	}
	closedir(d);
}

/* A group member refused with EINVAL or ENOSPC although it opens alone: the group needs
 * more counters than the PMU has. */
static int group_too_big(const struct mp_event *evs, size_t nev, int bad, int e)
{
	size_t nhw = 0;
	struct perf_event_attr a;
	int fd;

	if ((e != EINVAL && e != ENOSPC) || bad <= 0 || (size_t)bad >= nev)
		return 0;
	for (size_t i = 0; i < nev; i++)
		nhw += is_hw(&evs[i]);
	if (nhw < 2 || !is_hw(&evs[bad]))
		return 0;
	a = evs[bad].attr;
	a.size = sizeof(a);
	a.disabled = 1;
	a.inherit = 0;
	a.sample_period = 0;
	a.freq = 0;
	a.sample_type = 0;
	a.read_format = 0;
	fd = mp_ev_sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return (int)nhw;
}

static int explain(const struct mp_event *evs, size_t nev, int bad, int rc,
		   const struct mp_evopts *eo, struct mp_err *err)
{
	struct mp_err raw = *err;
	int e = -rc, nhw;

	if (e <= 0 || e >= 4096)
		return rc;
	if ((nhw = group_too_big(evs, nev, bad, e))) {
		char pmu[128], cnt[64];
		int k;
		core_pmu(pmu, sizeof(pmu), &k);
		if (k)
			snprintf(cnt, sizeof(cnt), "it has %d counters", k);
		else
			snprintf(cnt, sizeof(cnt), "too few counters");
		return mp_err_set(err, rc,
				  "event '%s': the group of %d hardware events cannot be scheduled "
				  "together on %s (%s, %s): count fewer events per run (memprof "
				  "ratios --record-cmd splits a set of ratios into runs)",
				  evs[bad].spec, nhw, pmu, cnt, strerror(e));
	}
	mp_event_explain_open_error(&evs[bad], e, eo, err);
	if (!err->msg[0])
		*err = raw;
	return rc;
}

/* Let the counting begin: without enable_on_exec (-a, -p) the group is enabled before the
 * workload is let go, else, on one CPU, the workload runs (and execs) before memprof gets
 * to enable it. Then release the workload (wl NULL: none). */
static int start_counting(mp_evlist *l, int enable_on_exec, struct mp_workload *wl,
			  char *const *argv, struct mp_record_result *res, struct mp_err *err)
{
	int rc;
	if (!enable_on_exec && (rc = mp_evlist_enable(l)))
		return mp_err_set(err, rc, "cannot enable the counters: %s", strerror(-rc));
	if (wl) {
		int e = mp_workload_start(wl);
		if (e) {
			mp_workload_cancel(wl, NULL);
			res->exec_errno = e;
			return mp_err_set(err, -e, "cannot run '%s': %s", argv[0], strerror(e));
		}
		res->workload_started = 1;
	}
	return 0;
}

/* ---- one run: what record and stat share ---- */
void mp_run_init(struct mp_run *r, const struct mp_stat_opts *t)
{
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->wl = (struct mp_workload){ .pid = -1, .go_fd = -1, .err_fd = -1, .pidfd = -1, .ctl_child = -1 };
	r->ctl_fd = -1;
	r->one_cpu = -1;
	r->sys_thread = -1;
}

/* Check the request (mmap_pages: record's -m, 0 = default), allocate res->ev, read what
 * the kernel allows. what: "record" or "count". */
int mp_run_check(struct mp_run *r, const char *what, unsigned mmap_pages,
		 struct mp_record_result *res, struct mp_err *err)
{
	const struct mp_stat_opts *t = r->t;
	memset(res, 0, sizeof(*res));
	if (!t->nevents)
		return mp_err_set(err, -EINVAL, "no events to %s", what);
	if (!t->argv && !t->pid && !t->system_wide)
		return mp_err_set(err, -EINVAL, "nothing to %s: give a command, -p PID or -a",
				  what);
	if (mmap_pages & (mmap_pages - 1))
		return mp_err_set(err, -EINVAL, "-m %u: the ring size must be a power of two pages",
				  mmap_pages);
	res->ev = calloc(t->nevents, sizeof(*res->ev));
	if (!res->ev)
		return mp_err_set(err, -ENOMEM, "out of memory");
	return mp_collector_precheck(t->events, t->nevents, t->system_wide, &r->pc, err);
}

/* The cpus (all online ones when per_cpu or -a, else {-1}) and threads (-a: {-1}; -p:
 * the process's tasks; a command: the held workload, forked here). */
int mp_run_targets(struct mp_run *r, int per_cpu, struct mp_err *err)
{
	const struct mp_stat_opts *t = r->t;
	int rc;
	if (per_cpu || t->system_wide) {
		if ((rc = online_cpus(&r->cpus, &r->ncpus)))
			return mp_err_set(err, rc, "cannot read the online CPUs");
	} else {
		r->cpus = &r->one_cpu;
		r->ncpus = 1;
	}
	if (t->system_wide) {
		r->threads = &r->sys_thread;
		r->nthreads = 1;
	} else if (t->pid && (rc = mp_run_task_threads(t->pid, &r->threads, &r->nthreads, err))) {
		return rc;
	}
	if (t->regions) {
		int sv[2];
		if (!t->argv || t->system_wide)
			return mp_err_set(err, -EINVAL, "--regions needs a command to run (not -p "
							"or -a): its markers talk to memprof");
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return mp_err_set(err, -errno, "socketpair: %s", strerror(errno));
		r->ctl_fd = sv[0];
		r->wl.ctl_child = sv[1];
	}
	rc = t->argv ? mp_workload_fork(&r->wl, t->argv, err) : 0;
	if (r->wl.ctl_child >= 0) {
		close(r->wl.ctl_child);
		r->wl.ctl_child = -1;
	}
	if (rc)
		return rc;
	if (t->argv && !t->system_wide) {
		r->threads = &r->wl.pid;
		r->nthreads = 1;
	}
	r->eo.inherit = !t->no_inherit && !t->system_wide;
	r->eo.enable_on_exec = t->argv && !t->system_wide;
	return 0;
}

/* Create and open the event list with r->eo; a refused open is explained. */
int mp_run_open(struct mp_run *r, const struct mp_evopts *evopts, struct mp_err *err)
{
	const struct mp_stat_opts *t = r->t;
	int rc, bad = 0;
	if (!(r->l = mp_evlist_new(t->events, t->nevents, r->threads, r->nthreads, r->cpus,
				   r->ncpus, &r->eo, err)))
		return err->code;
	if ((rc = mp_evlist_open(r->l, &bad, err))) {
		struct stat st;
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/%d", (int)t->pid);
		/* -p of another user's process: that, not the events, is what is refused */
		if (t->pid > 0 && (rc == -EACCES || rc == -EPERM) && !stat(proc, &st) &&
		    st.st_uid != geteuid())
			return mp_err_set(err, rc, "process %d belongs to another user (uid %u): "
					  "attaching to it needs that user, or root (CAP_PERFMON "
					  "and ptrace access): %s", (int)t->pid,
					  (unsigned)st.st_uid, strerror(-rc));
		/* perf's first reason for EOPNOTSUPP: the branch stack that lbr asks for */
		if (rc == -EOPNOTSUPP && r->eo.callgraph == MP_CG_LBR)
			return mp_err_set(err, rc, "event '%s': --call-graph lbr: the PMU or this "
					  "event cannot sample the branch call stack (%s; LBR needs "
					  "an Intel PMU that has it and a hardware event such as "
					  "cycles): use --call-graph fp or dwarf",
					  t->events[bad].spec, strerror(-rc));
		return explain(t->events, t->nevents, bad, rc, evopts, err);
	}
	return 0;
}

int mp_run_start(struct mp_run *r, struct mp_record_result *res, struct mp_err *err)
{
	r->t0 = mp_run_now_ns();
	return start_counting(r->l, r->eo.enable_on_exec || r->start_disabled,
			      r->t->argv ? &r->wl : NULL, r->t->argv, res, err);
}

/* A SIGINT/SIGTERM arrived: the first goes to the workload, a second kills it. Returns 1
 * when the run itself should end (no workload of ours). */
int mp_run_forward_stop(struct mp_run *r)
{
	volatile sig_atomic_t *stop = r->t->stop;
	if (!stop || !*stop)
		return 0;
	int sig = *stop;
	*stop = 0;
	if (r->wl.pid <= 0)
		return 1;
	kill(r->wl.pid, r->forwarded ? SIGKILL : sig);
	r->forwarded = 1;
	return 0;
}

/* -p PID without a command: the process is gone. */
int mp_run_target_gone(const struct mp_run *r)
{
	return r->t->pid && !r->t->argv && kill(r->t->pid, 0) < 0 && errno == ESRCH;
}

/* --regions: the region table's counting groups are the events' counting attrs (none
 * when nev is 0: record marks transitions only). */
int mp_run_regions(struct mp_run *r, size_t nev, struct mp_err *err)
{
	struct perf_event_attr *a = calloc(nev ? nev : 1, sizeof(*a));
	if (!a)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < nev; i++)
		a[i] = *mp_evlist_attr(r->l, i);
	r->reg = mp_regions_new(a, nev);
	free(a);
	return r->reg ? 0 : mp_err_set(err, -ENOMEM, "out of memory");
}

/* Read what the markers sent, count, acknowledge each message as perf does ("ack\n\0").
 * A broken stream closes the socket: the markers see EOF and switch themselves off. */
void mp_run_control(struct mp_run *r)
{
	static const char ack[] = "ack\n";
	for (;;) {
		ssize_t n = recv(r->ctl_fd, r->cbuf + r->clen, sizeof(r->cbuf) - r->clen,
				 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0) { /* every copy of the workload's end is closed */
				close(r->ctl_fd);
				r->ctl_fd = -1;
			}
			return;
		}
		r->clen += (size_t)n;
		size_t used;
		int acks = mp_regions_feed(r->reg, r->cbuf, r->clen, &used);
		for (int i = 0; i < acks; i++)
			if (send(r->ctl_fd, ack, sizeof(ack), MSG_NOSIGNAL) < 0)
				break;
		memmove(r->cbuf, r->cbuf + used, r->clen - used);
		r->clen -= used;
		if (acks < 0 || mp_regions_broken(r->reg)) {
			close(r->ctl_fd);
			r->ctl_fd = -1;
			return;
		}
	}
}

void mp_run_release(struct mp_run *r, struct mp_record_result *res)
{
	if (r->ctl_fd >= 0)
		close(r->ctl_fd);
	r->ctl_fd = -1;
	if (r->reg && !res->regions)
		mp_regions_free(r->reg);
	r->reg = NULL;
	mp_buf_fini(&r->rtr);
	mp_workload_release(&r->wl, res);
	mp_evlist_free(r->l);
	r->l = NULL;
	if (r->threads != &r->sys_thread && r->threads != &r->wl.pid)
		free(r->threads);
	if (r->cpus != &r->one_cpu)
		free(r->cpus);
}
