/* mp_record.c - the record run: fork the workload held on a pipe, open the group, let it
 * exec, drain the rings into the perf.data writer until it exits (the steps shared with
 * stat are in mp_run.c). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memprof/numa.h"
#include "mp_alloc.h"
#include "mp_collector_internal.h"

/* ---- synthesized records ---- */

static int synth_kernel_mmap(mp_pdw *w, uint64_t text)
{
	struct mp_pdw_map m = { .pid = (uint32_t)-1, .tid = 0, .start = text, .len = ~0ull - text,
				.pgoff = text, .misc = PERF_RECORD_MISC_KERNEL,
				.file = "[kernel.kallsyms]_text" };
	return mp_pdw_put_mmap(w, &m);
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
		struct mp_pdw_map m = {
			.pid = (uint32_t)pid, .tid = (uint32_t)pid, .start = start,
			.len = end - start, .pgoff = pgoff, .maj = maj, .min = min, .ino = ino,
			.prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) | 4,
			.flags = perms[3] == 's' ? 1 /* MAP_SHARED */ : 2 /* MAP_PRIVATE */,
			.misc = PERF_RECORD_MISC_USER, .mmap2 = 1, .file = *name ? name : "//anon",
		};
		mp_pdw_put_mmap(w, &m); /* a name too long for a record is left out */
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

	if (mp_run_task_threads(pid, &tids, &n, NULL))
		return;
	for (size_t i = 0; i < n; i++) {
		read_comm(pid, tids[i], comm, sizeof(comm));
		mp_pdw_put_comm(w, (uint32_t)pid, (uint32_t)tids[i], comm, 0);
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
static int record_file_start(struct mp_run *r, const struct mp_record_opts *o, mp_pdw *w,
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
	for (size_t i = 0; i < o->nevents; i++) {
		if (o->events[i].attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		/* the tracepoints' formats, as perf writes them: perf script decodes with them */
		struct mp_buf td = { 0 };
		int rc = mp_tp_tracing_data(o->events, o->nevents, NULL, &td, err);
		if (!rc)
			rc = mp_pdw_set_feature(w, MP_HEADER_TRACING_DATA, td.data, td.len);
		mp_buf_fini(&td);
		if (rc)
			return rc == -ENOMEM ? mp_err_set(err, rc, "out of memory") : rc;
		break;
	}
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
	struct mp_run *r = ctx;
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
static void record_region_meta(struct mp_run *r, mp_pdw *w)
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
static int record_loop(struct mp_run *r, const struct mp_record_opts *o, mp_pdw *w,
		       int *status, int *have_status, struct mp_err *err)
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
			mp_run_control(r);
			if (r->ctl_fd < 0)
				pfd[ctl_slot].fd = -1;
		}
		if ((rc = drain(l, w, &wrote))) {
			mp_pdw_write_failed(w, rc, err);
			break;
		}
		done = mp_run_forward_stop(r);
		if (r->wl.pid > 0) {
			if (waitpid(r->wl.pid, status, WNOHANG) == r->wl.pid)
				*have_status = done = 1;
		} else if (mp_run_target_gone(r)) {
			done = 1;
		}
		uint64_t t = mp_run_now_ns();
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
static void record_counts(struct mp_run *r, const struct mp_record_opts *o, mp_pdw *w,
			  struct mp_record_result *res)
{
	mp_pdw_set_read_pid(w, r->wl.pid > 0 ? r->wl.pid : o->pid ? o->pid : -1);
	for (size_t i = 0; i < o->nevents; i++) {
		size_t nids;
		mp_evlist_ids(r->l, i, &nids);
		struct mp_counts sum = { 0, 0, 0 };
		uint64_t emax = 0;
		for (size_t j = 0; j < nids; j++) {
			uint64_t id;
			struct mp_counts c;
			if (mp_evlist_read_one(r->l, i, j, &id, &c))
				continue;
			mp_pdw_add_counts(w, (int)i, id, &c);
			mp_counts_add(&sum, &c);
			if (c.ena > emax)
				emax = c.ena;
		}
		/* A task's event on cpu N is enabled for all the task's run time but runs only
		 * while it is on N: the enabled time is the longest, the running time the sum.
		 * System-wide events each have their own enabled time. */
		if (!o->system_wide)
			sum.ena = emax;
		res->ev[i].counts = sum;
	}
}

/* After the loop: disable, last drain, counts, statistics; closes w (*wp = NULL). */
/* record --alloc: the workload runs with alloc/'s library preloaded (before any the user
 * gave) and a private spool folder; the events take the library's clock. */
static int record_alloc_setup(struct mp_run *r, char *dir, size_t dlen, char env[3][4200],
			      struct mp_err *err)
{
	char lib[4096];
	int rc = mp_alloc_lib_path(lib, sizeof(lib), err);
	if (rc)
		return rc;
	if (strchr(lib, ':') || strchr(lib, ' '))
		return mp_err_set(err, -EINVAL, "%s: LD_PRELOAD cannot name a path with ':' or ' '",
				  lib);
	if ((rc = mp_alloc_spool_new(dir, dlen, err)))
		return rc;
	const char *pre = getenv("LD_PRELOAD");
	snprintf(env[0], 4200, "LD_PRELOAD=%s%s%s", lib, pre && *pre ? ":" : "", pre ? pre : "");
	snprintf(env[1], 4200, "%s=%s", MP_ALLOC_ENV_DIR, dir);
	r->wl.env[0] = env[0];
	r->wl.env[1] = env[1];
	r->wl.env[2] = NULL;
	r->eo.clock_monotonic = 1;
	return 0;
}

static int record_finish(struct mp_run *r, const struct mp_record_opts *o, mp_pdw **wp,
			 int status, int have_status, const char *alloc_dir,
			 struct mp_record_result *res, struct mp_err *err)
{
	mp_pdw *w = *wp;
	int rc, wrote;
	res->wall_ns = mp_run_now_ns() - r->t0;
	if (r->reg) {
		if (r->ctl_fd >= 0)
			mp_run_control(r); /* what came before the end */
		if ((rc = mp_regions_finish(r->reg)))
			return mp_err_set(err, rc, "out of memory for the regions");
		record_region_meta(r, w);
	}
	mp_evlist_disable(r->l);
	if ((rc = drain(r->l, w, &wrote)))
		return mp_pdw_write_failed(w, rc, err);
	record_counts(r, o, w, res);
	if (have_status) {
		res->workload_status = status;
		r->wl.pid = -1;
	}
	if (alloc_dir && alloc_dir[0]) {
		struct mp_alloc_stats st;
		if ((rc = mp_alloc_spool_collect(alloc_dir, w, &st, err)))
			return rc;
		res->alloc = 1;
		res->alloc_records = st.records;
		res->alloc_lost = st.lost;
		res->alloc_images = st.files;
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

/* One level of the cache below fd: opened without following a link (made 0700 if missing)
 * and owned by us, or -1 with errno (EPERM: another user's). */
static int cache_level(int fd, const char *name)
{
	struct stat st;
	int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 && errno == ENOENT && !mkdirat(fd, name, 0700))
		sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub >= 0 && (fstat(sub, &st) || st.st_uid != geteuid())) {
		close(sub);
		errno = EPERM;
		return -1;
	}
	return sub;
}

/* One file of perf's build-id cache, <dir>/<folder>/<hex>/<leaf>, written once (as perf
 * record does). Only in folders of our own, never through a link (a cache another user
 * owns, kept by sudo -E, could point it anywhere): each level is opened with O_NOFOLLOW and
 * the copy goes through a new O_EXCL file renamed into place. Failures only warn (what:
 * what is not kept): the recording is complete without it. */
static void keep_cached(const char *dir, const char *folder, const char *hex, const char *leaf,
			const void *data, size_t n, const char *what)
{
	char tmp[64];
	mkdir(dir, 0700);
	int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), kdir = -1, fd = -1;
	int bid = top < 0 ? -1 : cache_level(top, ".");
	if (bid >= 0) {
		kdir = cache_level(bid, folder);
		close(bid);
		bid = kdir < 0 ? -1 : cache_level(kdir, hex);
	}
	if (bid < 0) {
		mp_log(MP_LOG_WARN, "%s: %s: %s not kept", dir, errno == EPERM ?
		       "a folder of another user's in the build-id cache" : strerror(errno), what);
		goto out;
	}
	if (!faccessat(bid, leaf, F_OK, AT_SYMLINK_NOFOLLOW))
		goto out;
	for (unsigned k = 0; data && n && k < 100 && fd < 0; k++) {
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d.%u", leaf, (int)getpid(), k);
		fd = openat(bid, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	int bad = fd < 0;
	for (size_t off = 0; !bad && off < n;) {
		ssize_t w = write(fd, (const char *)data + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		bad = w <= 0;
		off += w > 0 ? (size_t)w : 0;
	}
	if (fd >= 0)
		bad |= close(fd) != 0;
	if (bad || renameat(bid, tmp, bid, leaf)) {
		mp_log(MP_LOG_WARN, "%s/%s/%s/%s: %s: %s not kept", dir, folder, hex, leaf,
		       strerror(errno), what);
		if (fd >= 0)
			unlinkat(bid, tmp, 0);
	}
out:
	if (top >= 0)
		close(top);
	if (kdir >= 0)
		close(kdir);
	if (bid >= 0)
		close(bid);
}

static void hex_of(const uint8_t *id, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

/* The running kernel's symbols, <dir>/[kernel.kallsyms]/<build-id>/kallsyms, so that
 * reports read a plain file instead of having the kernel generate /proc/kallsyms each
 * time. */
static void keep_kallsyms(const char *dir)
{
	size_t n = 0, len = 0;
	uint8_t id[20];
	char *notes = mp_read_file("/sys/kernel/notes", &n, NULL);
	int ok = notes && mp_note_build_id(notes, n, id, sizeof(id), &len) == 0 && len;
	free(notes);
	if (!ok)
		return;
	char hex[41];
	hex_of(id, len, hex);
	char *text = NULL;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
	if (access(path, F_OK))
		text = mp_read_file("/proc/kallsyms", &n, NULL);
	keep_cached(dir, "[kernel.kallsyms]", hex, "kallsyms", text, text ? n : 0,
		    "kernel symbols");
	free(text);
}

/* The vDSO, <dir>/[vdso]/<build-id>/vdso (the recording names it by that build-id): its
 * CFI unwinds --call-graph dwarf samples taken in it, its symbols name them, after a
 * reboot into another kernel and on other machines (memprof archive), as perf's copy. */
static void keep_vdso(const char *dir)
{
	size_t n, len;
	uint8_t id[20];
	const void *img = mp_note_vdso(&n, id, &len);
	if (!img || !len)
		return;
	char hex[41];
	hex_of(id, len, hex);
	keep_cached(dir, "[vdso]", hex, "vdso", img, n, "the vDSO");
	/* and perf's link to it, .build-id/<xx>/<rest> -> ../../[vdso]/<hex>, by which reports
	 * find objects by build-id: made in folders of our own, never through a link */
	int top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int bid = top < 0 ? -1 : cache_level(top, ".build-id");
	char two[3] = { hex[0], hex[1], 0 }, target[80];
	int xx = bid < 0 ? -1 : cache_level(bid, two);
	snprintf(target, sizeof(target), "../../[vdso]/%s", hex);
	if (xx < 0 || (symlinkat(target, xx, hex + 2) && errno != EEXIST))
		mp_log(MP_LOG_WARN, "%s/.build-id: %s: the vDSO's link not made", dir, strerror(errno));
	if (xx >= 0)
		close(xx);
	if (bid >= 0)
		close(bid);
	if (top >= 0)
		close(top);
}

int mp_record_run(const struct mp_record_opts *o, struct mp_record_result *res,
		  struct mp_err *err)
{
	/* the target, as mp_stat_run() gets it */
	struct mp_stat_opts t = { .events = o->events, .nevents = o->nevents, .argv = o->argv,
				  .pid = o->pid, .system_wide = o->system_wide,
				  .no_inherit = o->no_inherit, .stop = o->stop,
				  .regions = o->regions || o->regions_only };
	struct mp_run r;
	mp_pdw *w = NULL;
	int rc, status = 0, have_status = 0;
	char alloc_dir[4096] = "", alloc_env[3][4200];

	mp_run_init(&r, &t);
	r.wl.out_to_err = o->output && !strcmp(o->output, "-");
	if ((rc = mp_run_check(&r, "record", o->mmap_pages, res, err)))
		return rc;
	if (!(w = mp_pdw_create(o->output, err))) {
		rc = err->code;
		goto out;
	}
	/* before the workload is forked: its environment */
	if (o->alloc && (rc = record_alloc_setup(&r, alloc_dir, sizeof(alloc_dir), alloc_env, err)))
		goto out;
	if ((rc = mp_run_targets(&r, 1, err)))
		goto out;
	r.eo.sampling = 1;
	r.eo.callgraph = o->callgraph;
	r.eo.cg_stack_size = o->cg_stack_size;
	r.eo.tracking = 1;
	r.eo.switch_events = o->switch_events;
	r.eo.sample_mem = o->sample_mem;
	r.eo.use_clockid = o->use_clockid;
	r.eo.clockid = o->clockid;
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
	if ((rc = mp_run_open(&r, o->evopts, err)) || (rc = mp_evlist_mmap(r.l, err)) ||
	    (rc = record_file_start(&r, o, w, err)) ||
	    (t.regions && (rc = mp_run_regions(&r, 0, err))) ||
	    (t.regions && (mp_regions_set_hook(r.reg, record_region_hook, &r), 0)) ||
	    (rc = mp_run_start(&r, res, err)) ||
	    (rc = record_loop(&r, o, w, &status, &have_status, err)))
		goto out;
	rc = record_finish(&r, o, &w, status, have_status, alloc_dir, res, err);
	if (!rc && r.pc.kernel_syms && o->buildid_dir)
		keep_kallsyms(o->buildid_dir);
	if (!rc && o->buildid_dir)
		keep_vdso(o->buildid_dir);
out:
	mp_run_release(&r, res);
	mp_pdw_abort(w);
	mp_alloc_spool_remove(alloc_dir);
	return rc;
}
