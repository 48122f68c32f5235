/* mp_record.c - the record and stat runs: fork the workload held on a pipe, open the
 * group, let it exec, drain the rings into the perf.data writer until it exits. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memprof/numa.h"
#include "mp_collector_internal.h"

int mp_exit_code(int st)
{
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 1;
}

static uint64_t now_ns(void)
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
			if (*n == cap) {
				int *nv = realloc(v, cap * 2 * sizeof(*v));
				if (!nv)
					break;
				v = nv;
				cap *= 2;
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

static int task_threads(pid_t pid, pid_t **out, size_t *n, struct mp_err *err)
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
		if (*n == cap) {
			pid_t *nv = realloc(v, cap * 2 * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap *= 2;
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

/* ---- synthesized records ---- */

static int synth_kernel_mmap(mp_pdw *w, uint64_t text)
{
	uint64_t rec[64];
	struct perf_event_header *h = (void *)rec;
	unsigned char *b = (unsigned char *)(h + 1);
	const char *name = "[kernel.kallsyms]_text";
	uint32_t pid = (uint32_t)-1, tid = 0;
	uint64_t start = text, len = ~0ull - text, pgoff = text;
	size_t nl = (strlen(name) + 1 + 7) & ~(size_t)7;

	memset(rec, 0, sizeof(rec));
	memcpy(b, &pid, 4);
	memcpy(b + 4, &tid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	memcpy(b + 32, name, strlen(name));
	size_t sz = sizeof(*h) + 32 + nl;
	sz += mp_pdw_id_trailer(w, 0, pid, tid, 0, 0, (unsigned char *)rec + sz);
	h->type = PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = (uint16_t)sz;
	return mp_pdw_write(w, rec, sz);
}

static int synth_comm(mp_pdw *w, pid_t pid, pid_t tid, const char *comm)
{
	uint64_t rec[16];
	struct perf_event_header *h = (void *)rec;
	uint32_t *p = (uint32_t *)(h + 1);
	size_t cl = strnlen(comm, 15);
	size_t nl = (cl + 1 + 7) & ~(size_t)7;

	memset(rec, 0, sizeof(rec));
	p[0] = (uint32_t)pid;
	p[1] = (uint32_t)tid;
	memcpy(p + 2, comm, cl);
	size_t sz = sizeof(*h) + 8 + nl;
	sz += mp_pdw_id_trailer(w, 0, (uint32_t)pid, (uint32_t)tid, 0, 0,
				(unsigned char *)rec + sz);
	h->type = PERF_RECORD_COMM;
	h->misc = 0;
	h->size = (uint16_t)sz;
	return mp_pdw_write(w, rec, sz);
}

static int synth_maps(mp_pdw *w, pid_t pid)
{
	char path[64], line[4608];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int off = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
			   &maj, &min, &ino, &off) < 7 || perms[2] != 'x')
			continue;
		char *name = line + off;
		name[strcspn(name, "\n")] = 0;
		if (!*name)
			name = "//anon";
		uint64_t rec[600];
		struct perf_event_header *h = (void *)rec;
		unsigned char *b = (unsigned char *)(h + 1);
		size_t nlen = strlen(name);
		if (nlen > 4000)
			continue;
		size_t nl = (nlen + 1 + 7) & ~(size_t)7;
		uint32_t v32[2] = { (uint32_t)pid, (uint32_t)pid };
		uint64_t v64[3] = { start, end - start, pgoff };
		uint32_t mm[2] = { maj, min };
		uint64_t ig[2] = { ino, 0 };
		uint32_t pf[2] = { 0, 0 };
		pf[0] = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | 4;
		pf[1] = perms[3] == 's' ? 1 /* MAP_SHARED */ : 2 /* MAP_PRIVATE */;
		memset(rec, 0, 72 + nl + 8);
		memcpy(b, v32, 8);
		memcpy(b + 8, v64, 24);
		memcpy(b + 32, mm, 8);
		memcpy(b + 40, ig, 16);
		memcpy(b + 56, pf, 8);
		memcpy(b + 64, name, nlen);
		size_t sz = sizeof(*h) + 64 + nl;
		sz += mp_pdw_id_trailer(w, 0, (uint32_t)pid, (uint32_t)pid, 0, 0,
					(unsigned char *)rec + sz);
		h->type = PERF_RECORD_MMAP2;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = (uint16_t)sz;
		mp_pdw_write(w, rec, sz);
	}
	fclose(f);
	return 0;
}

static void read_comm(pid_t pid, pid_t tid, char *out, size_t len)
{
	char path[64];
	char *s;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	s = mp_read_file(path, NULL, NULL);
	snprintf(out, len, "%s", s ? s : ":unknown");
	out[strcspn(out, "\n")] = 0;
	free(s);
}

/* COMM per thread and MMAP2 per executable mapping of an already running process. */
static void synth_process(mp_pdw *w, pid_t pid)
{
	pid_t *tids = NULL;
	size_t n = 0;
	char comm[64];

	if (task_threads(pid, &tids, &n, NULL))
		return;
	for (size_t i = 0; i < n; i++) {
		read_comm(pid, tids[i], comm, sizeof(comm));
		synth_comm(w, pid, tids[i], comm);
	}
	free(tids);
	synth_maps(w, pid);
}

static void synth_all(mp_pdw *w)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			synth_process(w, (pid_t)atoi(de->d_name));
	closedir(d);
}

/* ---- draining ---- */

static int drain(mp_evlist *l, mp_pdw *w, int *wrote)
{
	int rc = 0;

	*wrote = 0;
	for (size_t r = 0; r < mp_evlist_nrings(l); r++) {
		struct mp_ring *ring = mp_evlist_ring(l, r);
		const struct perf_event_header *h;
		if (!mp_ring_read_init(ring))
			continue;
		while ((h = mp_ring_read_event(ring))) {
			if (!rc)
				rc = mp_pdw_write(w, h, h->size);
			mp_ring_consume(ring);
			*wrote = 1;
		}
		mp_ring_read_done(ring);
	}
	if (*wrote && !rc) {
		struct perf_event_header fr = { MP_RECORD_FINISHED_ROUND, 0, sizeof(fr) };
		rc = mp_pdw_write(w, &fr, sizeof(fr));
	}
	return rc;
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

/* The state of one record or stat run: the held workload, the cpus and threads the
 * events are opened on, and the event list. */
struct run {
	const struct mp_stat_opts *t; /* what the run opens its events on */
	struct mp_workload wl;
	struct mp_precheck pc;
	struct mp_evlist_opts eo;
	mp_evlist *l;
	int *cpus, one_cpu;
	size_t ncpus, nthreads;
	pid_t *threads, sys_thread;
	int forwarded; /* a Ctrl-C went to the workload already */
	uint64_t t0;
	/* --regions: the markers' control socket (our end), what came in not yet parsed */
	int ctl_fd;
	mp_regions *reg;
	unsigned char cbuf[4096];
	size_t clen;
	/* record --regions: the file, the transitions so far ("tid node begin time;"), and
	 * --regions-only (the events start disabled and follow the open regions) */
	mp_pdw *rw;
	struct mp_buf rtr;
	int start_disabled;
};

static void run_init(struct run *r, const struct mp_stat_opts *t)
{
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->wl = (struct mp_workload){ -1, -1, -1, -1, -1 };
	r->ctl_fd = -1;
	r->one_cpu = -1;
	r->sys_thread = -1;
}

/* Check the request (mmap_pages: record's -m, 0 = default), allocate res->ev, read what
 * the kernel allows. what: "record" or "count". */
static int run_check(struct run *r, const char *what, unsigned mmap_pages,
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
static int run_targets(struct run *r, int per_cpu, struct mp_err *err)
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
	} else if (t->pid && (rc = task_threads(t->pid, &r->threads, &r->nthreads, err))) {
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
static int run_open(struct run *r, const struct mp_evopts *evopts, struct mp_err *err)
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
		return explain(t->events, t->nevents, bad, rc, evopts, err);
	}
	return 0;
}

static int run_start(struct run *r, struct mp_record_result *res, struct mp_err *err)
{
	r->t0 = now_ns();
	return start_counting(r->l, r->eo.enable_on_exec || r->start_disabled,
			      r->t->argv ? &r->wl : NULL, r->t->argv, res, err);
}

/* A SIGINT/SIGTERM arrived: the first goes to the workload, a second kills it. Returns 1
 * when the run itself should end (no workload of ours). */
static int run_forward_stop(struct run *r)
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
static int run_target_gone(const struct run *r)
{
	return r->t->pid && !r->t->argv && kill(r->t->pid, 0) < 0 && errno == ESRCH;
}

/* --regions: the region table's counting groups are the events' counting attrs (none
 * when nev is 0: record marks transitions only). */
static int run_regions(struct run *r, size_t nev, struct mp_err *err)
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
static void run_control(struct run *r)
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

static void run_release(struct run *r, struct mp_record_result *res)
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

/* ---- record ---- */

/* The memory controllers' error counts summed (EDAC), as meta key `key`
 * ("CORRECTED,UNCORRECTED"); when they cannot be read, MP_META_EDAC_MISSING says why. */
static void record_edac(mp_pdw *w, const char *key)
{
	struct NUMA_edac_mc mc[64];
	int n = NUMA_edac_read(NULL, mc, 64);
	if (n < 0) {
		mp_pdw_set_meta(w, MP_META_EDAC_MISSING,
				errno == ENOENT ? "no /sys/devices/system/edac/mc (no EDAC driver loaded)"
				: errno == EACCES ? "/sys/devices/system/edac/mc is readable by root only"
						  : strerror(errno));
		return;
	}
	uint64_t ce = 0, ue = 0;
	for (int i = 0; i < n && i < 64; i++) {
		ce += mc[i].ce_count;
		ue += mc[i].ue_count;
	}
	char v[64];
	snprintf(v, sizeof(v), "%llu,%llu", (unsigned long long)ce, (unsigned long long)ue);
	mp_pdw_set_meta(w, key, v);
}

/* The attrs with their ids, host features, command line, aliases, and the records of
 * what already runs (kernel map, -a processes, -p process). */
static int record_file_start(struct run *r, const struct mp_record_opts *o, mp_pdw *w,
			     struct mp_err *err)
{
	for (size_t i = 0; i < o->nevents; i++) {
		size_t nids;
		const uint64_t *ids = mp_evlist_ids(r->l, i, &nids);
		const char *name = o->events[i].resolved[0] ? o->events[i].resolved
							     : o->events[i].spec;
		if (mp_pdw_add_attr(w, mp_evlist_attr(r->l, i), ids, nids, name,
				    o->events[i].spec) < 0)
			return mp_err_set(err, -ENOMEM, "out of memory");
	}
	mp_pdw_set_host_features(w);
	/* without a readable topology the recording is still a recording: the features are
	 * left out, as perf leaves them out */
	(void)mp_pdw_set_topology(w);
	record_edac(w, MP_META_EDAC_BEFORE);
	if (o->group)
		mp_pdw_set_group(w, 0, o->nevents);
	if (o->argv_all)
		mp_pdw_set_cmdline(w, o->argc_all, o->argv_all);
	for (size_t i = 0; i < o->nevents; i++) {
		char key[64];
		if (o->events[i].alias[0]) {
			snprintf(key, sizeof(key), MP_META_EVENT "%zu.alias", i);
			mp_pdw_set_meta(w, key, o->events[i].alias);
		}
	}
	if (r->pc.kernel_syms)
		synth_kernel_mmap(w, r->pc.kernel_text);
	if (o->system_wide)
		synth_all(w);
	else if (o->pid)
		synth_process(w, o->pid);
	return mp_pdw_sync(w, err);
}

/* record --regions: a thread's begin or end, while it waits for its ack. The transition is
 * kept for the file; with --regions-only the first region to open enables the events (after
 * the maps and threads as they are now, which the disabled events did not see) and the last
 * to close disables them, as perf's -D -1 with enable/disable does. */
static void record_region_hook(void *ctx, pid_t tid, int node, int begin, uint64_t t)
{
	struct run *r = ctx;
	unsigned open = mp_regions_open_count(r->reg);
	mp_buf_printf(&r->rtr, "%d %d %d %" PRIu64 ";", (int)tid, node, begin, t);
	if (!r->start_disabled || !r->l)
		return;
	if (begin && open == 1) {
		synth_process(r->rw, r->wl.pid);
		mp_evlist_enable(r->l);
	} else if (!begin && !open) {
		mp_evlist_disable(r->l);
	}
}

/* The regions into memprof's meta (perf skips the section): "regions.nodes" lists each
 * region as PARENT:HEXNAME; (its index is its position, -1 = top level), and
 * "regions.transitions" each begin/end as TID NODE BEGIN TIME; on the samples' clock
 * (CLOCK_MONOTONIC: the events have use_clockid). A sample of thread TID at time T is in the
 * innermost region TID had open at T. */
static void record_region_meta(struct run *r, mp_pdw *w)
{
	struct mp_buf nodes = { 0 };
	for (size_t i = 0; i < mp_regions_nnodes(r->reg); i++) {
		size_t len;
		const unsigned char *name =
			(const unsigned char *)mp_regions_node_name(r->reg, (int)i, &len);
		mp_buf_printf(&nodes, "%d:", mp_regions_node_parent(r->reg, (int)i));
		for (size_t k = 0; k < len; k++)
			mp_buf_printf(&nodes, "%02x", name[k]);
		mp_buf_printf(&nodes, ";");
	}
	mp_pdw_set_meta(w, "regions.clock", "monotonic");
	mp_pdw_set_meta(w, "regions.nodes", nodes.data ? nodes.data : "");
	mp_pdw_set_meta(w, "regions.transitions", r->rtr.data ? r->rtr.data : "");
	mp_buf_fini(&nodes);
}

/* Drain the rings into w until the workload exits, the -p process is gone or a stop
 * ends the run. The workload's wait status goes to *status (*have_status = 1). */
static int record_loop(struct run *r, const struct mp_record_opts *o, mp_pdw *w, int *status,
		       int *have_status, struct mp_err *err)
{
	mp_evlist *l = r->l;
	struct pollfd *pfd = calloc(mp_evlist_nrings(l) + 3, sizeof(*pfd));
	size_t npfd = 0;
	int rc = 0;
	if (!pfd)
		return mp_err_set(err, -ENOMEM, "out of memory");
	for (size_t k = 0; k < mp_evlist_nrings(l); k++)
		pfd[npfd++] = (struct pollfd){ .fd = mp_evlist_ring(l, k)->fd, .events = POLLIN };
	int target_pidfd = r->wl.pidfd;
	if (o->pid && !o->argv)
		target_pidfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	if (target_pidfd >= 0)
		pfd[npfd++] = (struct pollfd){ .fd = target_pidfd, .events = POLLIN };
	size_t ctl_slot = npfd;
	if (r->ctl_fd >= 0)
		pfd[npfd++] = (struct pollfd){ .fd = r->ctl_fd, .events = POLLIN };
	int done = 0, wrote;
	uint64_t last_sync = r->t0;
	while (!done) {
		poll(pfd, npfd, target_pidfd >= 0 ? 1000 : 100);
		if (r->ctl_fd >= 0 && ctl_slot < npfd && pfd[ctl_slot].revents) {
			run_control(r);
			if (r->ctl_fd < 0)
				pfd[ctl_slot].fd = -1;
		}
		if ((rc = drain(l, w, &wrote))) {
			mp_err_set(err, rc, "%s: write failed: %s: the recording is lost (%s left as "
				   "it was)", mp_pdw_tmp_path(w), strerror(-rc), o->output);
			break;
		}
		done = run_forward_stop(r);
		if (r->wl.pid > 0) {
			if (waitpid(r->wl.pid, status, WNOHANG) == r->wl.pid)
				*have_status = done = 1;
		} else if (run_target_gone(r)) {
			done = 1;
		}
		uint64_t t = now_ns();
		if (t - last_sync > 1000000000ull) {
			mp_pdw_sync(w, NULL);
			last_sync = t;
		}
	}
	free(pfd);
	if (o->pid && !o->argv && target_pidfd >= 0)
		close(target_pidfd);
	return rc;
}

/* Exact totals: one PERF_RECORD_READ per fd into w, and the summary in res. */
static void record_counts(struct run *r, const struct mp_record_opts *o, mp_pdw *w,
			  struct mp_record_result *res)
{
	mp_pdw_set_read_pid(w, r->wl.pid > 0 ? r->wl.pid : o->pid ? o->pid : -1);
	for (size_t i = 0; i < o->nevents; i++) {
		size_t nids;
		mp_evlist_ids(r->l, i, &nids);
		uint64_t vs = 0, es = 0, rs = 0, emax = 0;
		for (size_t j = 0; j < nids; j++) {
			uint64_t id, v, e, rn;
			if (mp_evlist_read_one(r->l, i, j, &id, &v, &e, &rn))
				continue;
			mp_pdw_add_counts(w, (int)i, id, v, e, rn);
			vs += v;
			es += e;
			rs += rn;
			if (e > emax)
				emax = e;
		}
		res->ev[i].value = vs;
		/* A task's event on cpu N is enabled for all the task's run time but runs only
		 * while it is on N: the enabled time is the longest, the running time the sum.
		 * System-wide events each have their own enabled time. */
		res->ev[i].ena = o->system_wide ? es : emax;
		res->ev[i].run = rs;
	}
}

/* After the loop: disable, last drain, counts, statistics; closes w (*wp = NULL). */
static int record_finish(struct run *r, const struct mp_record_opts *o, mp_pdw **wp,
			 int status, int have_status, struct mp_record_result *res,
			 struct mp_err *err)
{
	mp_pdw *w = *wp;
	int rc, wrote;
	res->wall_ns = now_ns() - r->t0;
	if (r->reg) {
		if (r->ctl_fd >= 0)
			run_control(r); /* what came before the end */
		if ((rc = mp_regions_finish(r->reg)))
			return mp_err_set(err, rc, "out of memory for the regions");
		record_region_meta(r, w);
	}
	mp_evlist_disable(r->l);
	if ((rc = drain(r->l, w, &wrote)))
		return mp_err_set(err, rc, "%s: write failed: %s: the recording is lost (%s left as "
				   "it was)", mp_pdw_tmp_path(w), strerror(-rc), o->output);
	record_counts(r, o, w, res);
	if (have_status) {
		res->workload_status = status;
		r->wl.pid = -1;
	}
	for (size_t i = 0; i < o->nevents; i++)
		mp_pdw_get_stats(w, (int)i, &res->ev[i].samples, &res->ev[i].throttled,
				 &res->ev[i].lost);
	res->lost_total = mp_pdw_lost_total(w);
	res->bytes_written = mp_pdw_bytes(w);
	record_edac(w, MP_META_EDAC_AFTER);
	mp_evlist_free(r->l);
	r->l = NULL;
	*wp = NULL;
	return mp_pdw_close(w, err);
}

/* perf's build-id cache copy of the running kernel's symbols,
 * <dir>/[kernel.kallsyms]/<build-id>/kallsyms, written once per kernel (as perf record
 * does) so that reports read a plain file instead of having the kernel generate
 * /proc/kallsyms each time. Failures only warn: the recording is complete without it. */
static void keep_kallsyms(const char *dir)
{
	size_t n = 0, len = 0;
	uint8_t id[20];
	char *notes = mp_read_file("/sys/kernel/notes", &n, NULL);
	int ok = notes && mp_perfabi_note_build_id(notes, n, id, sizeof(id), &len) == 0 && len;
	free(notes);
	if (!ok)
		return;
	char hex[41], *path = NULL, *tmp = NULL;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (asprintf(&path, "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex) < 0)
		return;
	if (!access(path, F_OK)) {
		free(path);
		return;
	}
	/* mkdir -p of the two levels under dir (dir itself too) */
	char *slash = path + strlen(dir);
	mkdir(dir, 0755);
	for (char *q = strchr(slash + 1, '/'); q; q = strchr(q + 1, '/')) {
		*q = 0;
		mkdir(path, 0755);
		*q = '/';
	}
	char *text = mp_read_file("/proc/kallsyms", &n, NULL);
	FILE *f = NULL;
	if (text && n && asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) >= 0 &&
	    (f = fopen(tmp, "w"))) {
		int bad = fwrite(text, 1, n, f) != n;
		bad |= fclose(f) != 0;
		if (bad || rename(tmp, path)) {
			mp_log(MP_LOG_WARN, "%s: %s: kernel symbols not kept", path, strerror(errno));
			unlink(tmp);
		}
	} else {
		mp_log(MP_LOG_WARN, "%s: %s: kernel symbols not kept", path, strerror(errno));
	}
	free(text);
	free(tmp);
	free(path);
}

int mp_record_run(const struct mp_record_opts *o, struct mp_record_result *res,
		  struct mp_err *err)
{
	/* the target, as mp_stat_run() gets it */
	struct mp_stat_opts t = { .events = o->events, .nevents = o->nevents, .argv = o->argv,
				  .pid = o->pid, .system_wide = o->system_wide,
				  .no_inherit = o->no_inherit, .stop = o->stop,
				  .regions = o->regions || o->regions_only };
	struct run r;
	mp_pdw *w = NULL;
	int rc, status = 0, have_status = 0;

	run_init(&r, &t);
	if ((rc = run_check(&r, "record", o->mmap_pages, res, err)))
		return rc;
	if (!(w = mp_pdw_create(o->output, err))) {
		rc = err->code;
		goto out;
	}
	if ((rc = run_targets(&r, 1, err)))
		goto out;
	r.eo.sampling = 1;
	r.eo.callgraph = o->callgraph;
	r.eo.cg_stack_size = o->cg_stack_size;
	r.eo.tracking = 1;
	/* 512 KiB per CPU like perf, 2 MiB for root (no locked-memory limit): at 10 kHz a
	 * ring then holds seconds of samples between two drains. */
	r.eo.mmap_pages = o->mmap_pages ? o->mmap_pages : (r.pc.privileged ? 512 : 128);
	if (t.regions) {
		r.eo.clock_monotonic = 1;
		r.start_disabled = o->regions_only;
		if (o->regions_only)
			r.eo.enable_on_exec = 0;
		r.rw = w;
	}
	if ((rc = run_open(&r, o->evopts, err)) || (rc = mp_evlist_mmap(r.l, err)) ||
	    (rc = record_file_start(&r, o, w, err)) ||
	    (t.regions && (rc = run_regions(&r, 0, err))) ||
	    (t.regions && (mp_regions_set_hook(r.reg, record_region_hook, &r), 0)) ||
	    (rc = run_start(&r, res, err)) ||
	    (rc = record_loop(&r, o, w, &status, &have_status, err)))
		goto out;
	rc = record_finish(&r, o, &w, status, have_status, res, err);
	if (!rc && r.pc.kernel_syms && o->buildid_dir)
		keep_kallsyms(o->buildid_dir);
out:
	run_release(&r, res);
	mp_pdw_abort(w);
	return rc;
}

/* ---- stat ---- */

static void stat_done(struct run *r, struct mp_record_result *res, int status,
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
static void stat_interval(struct run *r)
{
	const struct mp_stat_opts *o = r->t;
	struct mp_event_result *ev = calloc(o->nevents + 1, sizeof(*ev));
	if (!ev)
		return;
	for (size_t i = 0; i < o->nevents; i++)
		if (mp_evlist_read(r->l, i, &ev[i].value, &ev[i].ena, &ev[i].run))
			memset(&ev[i], 0, sizeof(ev[i]));
	o->interval(o->interval_ctx, now_ns() - r->t0, ev);
	free(ev);
}

/* Wait for the workload (or the -p process) while forwarding Ctrl-C; with --regions
 * answer the markers, with an interval hand the counts over every interval. */
static void stat_wait(struct run *r, struct mp_record_result *res)
{
	const struct mp_stat_opts *o = r->t;
	uint64_t next = o->interval_ns && o->interval ? r->t0 + o->interval_ns : 0;
	struct rusage ru;
	int status = 0;
	while (r->ctl_fd >= 0 || next) {
		if (run_forward_stop(r))
			return;
		if (r->wl.pid > 0) {
			if (wait4(r->wl.pid, &status, WNOHANG, &ru) == r->wl.pid) {
				stat_done(r, res, status, &ru);
				if (r->ctl_fd >= 0)
					run_control(r); /* what came before the end */
				return;
			}
		} else if (run_target_gone(r)) {
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
			uint64_t now = now_ns();
			uint64_t ms = now >= next ? 0 : (next - now + 999999) / 1000000;
			timeout = ms < 100 ? (int)ms : 100;
		}
		poll(pfd, n, timeout);
		if (ctl >= 0 && pfd[ctl].revents)
			run_control(r);
		if (next && now_ns() >= next) {
			stat_interval(r);
			next += o->interval_ns;
		}
	}
	for (;;) {
		if (run_forward_stop(r))
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
			if (run_target_gone(r))
				break;
			usleep(100000);
		}
	}
}

int mp_stat_run(const struct mp_stat_opts *o, struct mp_record_result *res, struct mp_err *err)
{
	struct run r;
	int rc;

	run_init(&r, o);
	if ((rc = run_check(&r, "count", 0, res, err)))
		return rc;
	if ((rc = run_targets(&r, 0, err)) || (rc = run_open(&r, NULL, err)) ||
	    (o->regions && (rc = run_regions(&r, o->nevents, err))) ||
	    (rc = run_start(&r, res, err)))
		goto out;
	stat_wait(&r, res);
	if (r.reg) {
		if ((rc = mp_regions_finish(r.reg))) {
			rc = mp_err_set(err, rc, "out of memory for the regions table");
			goto out;
		}
		res->regions = r.reg;
	}
	res->wall_ns = now_ns() - r.t0;
	mp_evlist_disable(r.l);
	for (size_t i = 0; i < o->nevents; i++)
		if ((rc = mp_evlist_read(r.l, i, &res->ev[i].value, &res->ev[i].ena,
					 &res->ev[i].run))) {
			rc = mp_err_set(err, rc, "cannot read the count of '%s': %s",
					o->events[i].spec, strerror(-rc));
			goto out;
		}
out:
	run_release(&r, res);
	return rc;
}
