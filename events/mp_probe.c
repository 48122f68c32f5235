/* mp_probe.c - can this event be opened here, and if not, why, in one line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mp_events_internal.h"

static int read_int(const char *root, const char *rel, int *out)
{
	char path[512], buf[32];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	char *e;
	long v = strtol(buf, &e, 10);
	if (e == buf)
		return -1;
	*out = (int)v;
	return 0;
}

static const char *proc_root(void)
{
	const char *r = getenv("MEMPROF_PROC_ROOT");
	return r && *r ? r : "/proc";
}

void mp_events_host_caps(const struct mp_evopts *opts, struct mp_host_caps *caps)
{
	memset(caps, 0, sizeof(*caps));
	caps->perf_event_paranoid = caps->kptr_restrict = caps->max_sample_rate = -1;
	read_int(proc_root(), "sys/kernel/perf_event_paranoid", &caps->perf_event_paranoid);
	read_int(proc_root(), "sys/kernel/kptr_restrict", &caps->kptr_restrict);
	read_int(proc_root(), "sys/kernel/perf_event_max_sample_rate", &caps->max_sample_rate);
	caps->has_cpu_pmu = mp_sysfs_has_cpu_pmu(opts, caps->cpu_pmu, sizeof(caps->cpu_pmu));
	mp_events_host_model(opts, caps->model, sizeof(caps->model));
}

int mp_events_host_warnings(const struct mp_event *evs, size_t n, const struct mp_evopts *opts,
			    int privileged, struct mp_buf *out)
{
	struct mp_host_caps caps;
	const struct mp_event *kern = NULL;
	int lines = 0;

	for (size_t i = 0; i < n && !kern; i++)
		if (!evs[i].attr.exclude_kernel)
			kern = &evs[i];
	if (!kern)
		return 0;
	mp_events_host_caps(opts, &caps);
	if (!privileged && caps.perf_event_paranoid >= 2) {
		if (mp_buf_printf(out,
				  "kernel.perf_event_paranoid is %d: event '%s' counts kernel space, which needs root, CAP_PERFMON or 'sysctl kernel.perf_event_paranoid=1'; add ':u' to count user space only\n",
				  caps.perf_event_paranoid, kern->spec) < 0)
			return -ENOMEM;
		lines++;
	}
	if (caps.kptr_restrict >= 2 || (caps.kptr_restrict == 1 && !privileged)) {
		if (mp_buf_printf(out,
				  "kernel.kptr_restrict is %d: kernel addresses are hidden, so kernel samples of '%s' get no symbols; 'sysctl kernel.kptr_restrict=0' shows them, or add ':u'\n",
				  caps.kptr_restrict, kern->spec) < 0)
			return -ENOMEM;
		lines++;
	}
	return lines;
}

/* "event 'L1D_REPL' (amd64_fam19h_zen4::ANY_DATA_CACHE_FILLS_FROM_SYSTEM:...)" */
static int ev_head(const struct mp_event *ev, char *buf, size_t len)
{
	if (ev->resolved[0] && strcmp(ev->resolved, ev->spec))
		return snprintf(buf, len, "event '%s' (%s)", ev->spec, ev->resolved);
	return snprintf(buf, len, "event '%s'", ev->spec);
}

int mp_event_explain_open_error(const struct mp_event *ev, int errno_val,
				const struct mp_evopts *opts, struct mp_err *err)
{
	struct mp_host_caps caps;
	char head[600];
	int code = -errno_val;
	int hw = ev->kind != MP_EV_SOFTWARE;

	if (errno_val < 0)
		errno_val = -errno_val, code = -errno_val;
	mp_events_host_caps(opts, &caps);
	ev_head(ev, head, sizeof(head));
	const char *root = mp_sysfs_root(opts);

	switch (errno_val) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (hw && !caps.has_cpu_pmu)
			return mp_err_set(err, code,
					  "%s: the kernel offers no hardware counters on this machine (host PMU model %s; no cpu PMU under %s/bus/event_source/devices: running in a VM?); software events such as cpu-clock, task-clock, page-faults can be recorded instead, or use --sim for simulated cache events",
					  head, caps.model, root);
		if (errno_val == EOPNOTSUPP && ev->attr.precise_ip)
			return mp_err_set(err, code,
					  "%s: the PMU cannot sample this event precisely (precise_ip=%u): drop the 'p' modifier",
					  head, ev->attr.precise_ip);
		if (errno_val == EOPNOTSUPP && (ev->attr.sample_period || ev->attr.freq))
			return mp_err_set(err, code,
					  "%s: the PMU %s cannot sample this event (EOPNOTSUPP); count it with memprof stat instead",
					  head, caps.cpu_pmu[0] ? caps.cpu_pmu : ev->pmu);
		if (hw && ev->alias[0]) {
			struct mp_alias_row row;
			if (mp_alias_find(ev->alias, caps.model, &row) > 0)
				return mp_err_set(err, code,
						  "%s: the kernel's PMU %s does not know this event (%s), which is what the alias %s maps to on model %s (%s); see memprof list --pmu %s",
						  head, caps.cpu_pmu, strerror(errno_val), ev->alias, caps.model,
						  row.status, caps.model);
			return mp_err_set(err, code,
					  "%s: the kernel's PMU %s does not know this event (%s): aliases.tsv has no row of %s for model %s, so perf's generic %s stood in; the model's own events: memprof list --pmu %s",
					  head, caps.cpu_pmu, strerror(errno_val), ev->alias, caps.model,
					  ev->resolved, caps.model);
		}
		if (hw && !ev->pmu[0])
			return mp_err_set(err, code,
					  "%s: the kernel's PMU %s has no mapping for perf's generic event %s (%s); the events of model %s: memprof list",
					  head, caps.cpu_pmu, ev->resolved, strerror(errno_val), caps.model);
		if (hw)
			return mp_err_set(err, code,
					  "%s: the kernel's PMU %s does not know this event (%s); libpfm4 encoded it for model %s: if the CPU is another model, name it with --pmu (memprof list --models)",
					  head, caps.cpu_pmu, strerror(errno_val), ev->pmu[0] ? ev->pmu : caps.model);
		return mp_err_set(err, code, "%s: the kernel does not support this event (%s)", head,
				  strerror(errno_val));
	case EACCES:
	case EPERM: {
		int par = caps.perf_event_paranoid;
		int want_kernel = !ev->attr.exclude_kernel;
		if (par >= 3)
			return mp_err_set(err, code,
					  "%s: permission denied: kernel.perf_event_paranoid is %d, which forbids perf events to users; run 'sysctl kernel.perf_event_paranoid=1' as root (or give memprof CAP_PERFMON)",
					  head, par);
		if (want_kernel && par >= 2)
			return mp_err_set(err, code,
					  "%s: permission denied: kernel.perf_event_paranoid is %d, which allows user-space counting only; add ':u' (e.g. -e %s:u) or run 'sysctl kernel.perf_event_paranoid=1' as root",
					  head, par, ev->spec);
		if (par >= 1)
			return mp_err_set(err, code,
					  "%s: permission denied: kernel.perf_event_paranoid is %d; system-wide (-a) or CPU-bound events need 'sysctl kernel.perf_event_paranoid=0' or CAP_PERFMON",
					  head, par);
		return mp_err_set(err, code,
				  "%s: permission denied (%s) although kernel.perf_event_paranoid is %d: the process needs CAP_PERFMON or the target belongs to another user",
				  head, strerror(errno_val), par);
	}
	case EINVAL:
		if (ev->attr.freq && caps.max_sample_rate > 0 &&
		    ev->attr.sample_freq > (uint64_t)caps.max_sample_rate)
			return mp_err_set(err, code,
					  "%s: frequency %llu Hz is above kernel.perf_event_max_sample_rate=%d: use -F %d or less, or 'sysctl kernel.perf_event_max_sample_rate=%llu'",
					  head, (unsigned long long)ev->attr.sample_freq,
					  caps.max_sample_rate, caps.max_sample_rate,
					  (unsigned long long)ev->attr.sample_freq);
		if (!ev->attr.freq && (ev->attr.sample_period >> 63))
			return mp_err_set(err, code, "%s: sample period %llu is too large", head,
					  (unsigned long long)ev->attr.sample_period);
		if (ev->attr.precise_ip)
			return mp_err_set(err, code,
					  "%s: the kernel rejected the attributes (EINVAL): precise_ip=%u may be more than the PMU offers; try fewer 'p' modifiers",
					  head, ev->attr.precise_ip);
		return mp_err_set(err, code,
				  "%s: the kernel rejected the attributes (EINVAL): config 0x%llx, period %llu%s; check the event code, unit mask and count (memprof list)",
				  head, (unsigned long long)ev->attr.config,
				  (unsigned long long)ev->attr.sample_period, ev->attr.freq ? " (frequency)" : "");
	case EMFILE: {
		struct rlimit rl;
		long lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long)rl.rlim_cur : -1;
		return mp_err_set(err, code,
				  "%s: too many open files (EMFILE): one descriptor per event, thread and CPU; raise the limit with 'ulimit -n' (now %ld) or record fewer events/threads",
				  head, lim);
	}
	case EBUSY:
		return mp_err_set(err, code,
				  "%s: the counter is busy (EBUSY): another tool holds it (the NMI watchdog: 'sysctl kernel.nmi_watchdog=0'; or another perf/oprofile session)",
				  head);
	case ENOSPC:
		return mp_err_set(err, code,
				  "%s: the PMU has no free counter for this event (ENOSPC): record fewer hardware events per run",
				  head);
	case E2BIG:
		return mp_err_set(err, code,
				  "%s: the kernel is older than this attribute layout (E2BIG, attr size %u)",
				  head, ev->attr.size);
	case ESRCH:
		return mp_err_set(err, code, "%s: no such process (ESRCH)", head);
	default:
		return mp_err_set(err, code, "%s: perf_event_open failed: %s", head,
				  strerror(errno_val));
	}
}

int mp_event_probe(const struct mp_event *ev, struct mp_err *err)
{
	struct perf_event_attr a = ev->attr;
	int fd;

	a.size = sizeof(a);
	a.disabled = 1;
	a.inherit = 0;
	a.enable_on_exec = 0;
	fd = mp_ev_sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a.exclude_kernel) {
		/* Refused for kernel space (perf_event_paranoid >= 2): the event opens in user
		 * space, which record and stat then fall back to, as perf does. */
		int e = errno;
		a.exclude_kernel = a.exclude_hv = 1;
		fd = mp_ev_sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			errno = e;
	}
	if (fd < 0)
		return mp_event_explain_open_error(ev, errno, NULL, err);
	close(fd);
	return 0;
}
