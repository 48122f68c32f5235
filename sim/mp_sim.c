/* mp_sim.c - memprof record --sim: a simulated PMU. The workload runs under valgrind's
 * callgrind (cache and branch simulation); its per-instruction counts become a perf.data
 * file whose samples carry each address's exact count as their period.
 *
 * This file runs valgrind and turns its outputs into the file; the events are in
 * mp_sim_events.c, the writing in mp_sim_write.c, the parsers for callgrind's output and
 * valgrind's log in mp_sim_cg.c, the cache geometry in mp_sim_geom.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mp_sim_int.h"

/* ---- running valgrind --------------------------------------------------------------- */

/* Find prog in PATH (or as given when it has a '/'); path gets the file. */
static int find_exec(const char *prog, char *path, size_t len)
{
	if (strchr(prog, '/')) {
		snprintf(path, len, "%s", prog);
		return access(path, X_OK) ? -errno : 0;
	}
	const char *env = getenv("PATH");
	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	int rc = -ENOENT;
	for (const char *s = env;;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		snprintf(path, len, "%.*s/%s", (int)n, n ? s : ".", prog);
		struct stat st;
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (!access(path, X_OK))
				return 0;
			rc = -EACCES;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return rc;
}

/* The first line of valgrind's log that says what went wrong. */
static void log_error_line(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[512];
	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "rror") || strstr(line, "annot") || strstr(line, "valgrind:")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line);
			break;
		}
	}
	fclose(f);
}

static int copy_file(const char *from, const char *to, struct mp_err *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return mp_err_set(err, -errno, "%s: %s", from, strerror(errno));
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		rc = mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = mp_err_set(err, -EIO, "%s: write error", to);
			goto out;
		}
	if (n < 0)
		rc = mp_err_set(err, -errno, "%s: %s", from, strerror(errno));
out:
	close(in);
	if (out >= 0 && close(out) && !rc)
		rc = mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
	return rc;
}

/* The files of one valgrind run, in a private temporary directory. */
struct sim_run {
	char vg[4096], dir[4096], cg[4200], log[4200], optcg[4300], optlog[4300];
	char geo[3][64], cores[32];
	char mem[4200], optmem[4300], optmp[48], optldlat[32]; /* memory samples */
	char alloc[4200], optalloc[4300];                     /* allocation calls */
	char topts[1024];  /* a copy of o->tool_opts, cut into arguments */
	char vglib[4200];  /* mpsim: valgrind's tool folder with our tool added (VALGRIND_LIB) */
	int mpsim;
};

int mp_sim_tool_path(char *path, size_t len)
{
	const char *env = getenv("MEMPROF_VGTOOL");
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, X_OK) ? -ENOENT : 0;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	static const char *const rel[] = { "lib/memprof", "../lib/memprof" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, len, "%s/%s/mpsim-amd64-linux", exe, rel[i]);
		if (!access(path, X_OK))
			return 0;
	}
	return -ENOENT;
}

/* valgrind's own tool folder (what its launcher reads: $VALGRIND_LIB or where the package
 * put it), found by its core preload. */
static int valgrind_libexec(char *dir, size_t len)
{
	static const char *const cand[] = { "/usr/libexec/valgrind", "/usr/lib/valgrind",
					    "/usr/lib/x86_64-linux-gnu/valgrind",
					    "/usr/local/libexec/valgrind", "/usr/local/lib/valgrind" };
	const char *env = getenv("VALGRIND_LIB");
	char probe[4400];
	if (env && *env) {
		snprintf(probe, sizeof(probe), "%s/vgpreload_core-amd64-linux.so", env);
		if (!access(probe, R_OK)) {
			snprintf(dir, len, "%s", env);
			return 0;
		}
	}
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/vgpreload_core-amd64-linux.so", cand[i]);
		if (!access(probe, R_OK)) {
			snprintf(dir, len, "%s", cand[i]);
			return 0;
		}
	}
	return -ENOENT;
}

/* A folder for VALGRIND_LIB: links to every file of valgrind's own and to mpsim; with
 * allocs, mpsim's preload is massif's (the replacement malloc and nothing else, which
 * calls whichever tool runs). */
static int sim_make_vglib(struct sim_run *sr, const char *tool, int allocs,
			  struct mp_err *err)
{
	char stock[4096], from[8300], to[8300];
	if (valgrind_libexec(stock, sizeof(stock)))
		return mp_err_set(err, -ENOENT, "valgrind's tool folder not found (no "
				  "vgpreload_core-amd64-linux.so under /usr/libexec/valgrind or "
				  "$VALGRIND_LIB)");
	snprintf(sr->vglib, sizeof(sr->vglib), "%s/vglib", sr->dir);
	if (mkdir(sr->vglib, 0700))
		return mp_err_set(err, -errno, "%s: %s", sr->vglib, strerror(errno));
	DIR *d = opendir(stock);
	struct dirent *e;
	if (!d)
		return mp_err_set(err, -errno, "%s: %s", stock, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "mpsim-", 6))
			continue;
		snprintf(from, sizeof(from), "%s/%s", stock, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", sr->vglib, e->d_name);
		if (symlink(from, to)) {
			int rc = mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
			closedir(d);
			return rc;
		}
	}
	closedir(d);
	snprintf(to, sizeof(to), "%s/mpsim-amd64-linux", sr->vglib);
	if (symlink(tool, to))
		return mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
	if (allocs) {
		snprintf(from, sizeof(from), "%s/vgpreload_massif-amd64-linux.so", stock);
		snprintf(to, sizeof(to), "%s/vgpreload_mpsim-amd64-linux.so", sr->vglib);
		if (access(from, R_OK))
			return mp_err_set(err, -ENOENT, "%s: not found: allocation tracking uses "
					  "valgrind's replacement malloc (massif's preload)", from);
		if (symlink(from, to))
			return mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
	}
	return 0;
}

/* valgrind's command line followed by the workload's; malloc'd (free()), NULL on ENOMEM. */
static char **sim_valgrind_argv(const struct mp_sim_opts *o, struct sim_run *sr)
{
	const char *argv_vg[48 + 1];
	int n = 0;
	snprintf(sr->optcg, sizeof(sr->optcg), "--callgrind-out-file=%s.%%p", sr->cg);
	snprintf(sr->optlog, sizeof(sr->optlog), "--log-file=%s.%%p", sr->log);
	argv_vg[n++] = sr->vg;
	if (sr->mpsim) {
		argv_vg[n++] = "--tool=mpsim";
		/* threads take turns by slice (valgrind's lock is otherwise unfair, and a thread
		 * may run for many slices while the others' accesses wait in its buffer) */
		argv_vg[n++] = "--fair-sched=try";
		snprintf(sr->optcg, sizeof(sr->optcg), "--out-file=%s.%%p", sr->cg);
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(sr->cores, sizeof(sr->cores), "--cores=%ld",
			 o->cores ? (long)o->cores : ncpu > 0 ? ncpu : 1);
		argv_vg[n++] = sr->cores;
		if (o->mem_period) {
			snprintf(sr->optmem, sizeof(sr->optmem), "--mem-out=%s.%%p", sr->mem);
			snprintf(sr->optmp, sizeof(sr->optmp), "--mem-period=%" PRIu64, o->mem_period);
			snprintf(sr->optldlat, sizeof(sr->optldlat), "--ldlat=%u", o->ldlat);
			argv_vg[n++] = sr->optmem;
			argv_vg[n++] = sr->optmp;
			argv_vg[n++] = sr->optldlat;
		}
		if (o->allocs) {
			snprintf(sr->optalloc, sizeof(sr->optalloc), "--alloc-out=%s.%%p", sr->alloc);
			argv_vg[n++] = sr->optalloc;
		}
		snprintf(sr->topts, sizeof(sr->topts), "%s", o->tool_opts ? o->tool_opts : "");
		for (char *save, *t = strtok_r(sr->topts, " ", &save); t && n < 30;
		     t = strtok_r(NULL, " ", &save))
			argv_vg[n++] = t;
	} else {
		argv_vg[n++] = "--tool=callgrind";
		argv_vg[n++] = "--cache-sim=yes";
		argv_vg[n++] = "--branch-sim=yes";
		argv_vg[n++] = "--dump-instr=yes";
	}
	/* a shell wrapper's programs too: one output and one log per process (%p) */
	argv_vg[n++] = "--trace-children=yes";
	const struct mp_sim_cache *cs[3] = { &o->geom.i1, &o->geom.d1, &o->geom.ll };
	static const char *const opt[3] = { "--I1", "--D1", "--LL" };
	for (int i = 0; i < 3; i++)
		if (cs[i]->size) {
			snprintf(sr->geo[i], sizeof(sr->geo[i]), "%s=%" PRIu64 ",%u,%u", opt[i],
				 cs[i]->size, cs[i]->assoc, cs[i]->line);
			argv_vg[n++] = sr->geo[i];
		}
	argv_vg[n++] = sr->optcg;
	argv_vg[n++] = sr->optlog;
	argv_vg[n++] = "-v"; /* twice: "svma ..., avma ..." says where objects were loaded */
	argv_vg[n++] = "-v";
	size_t na = 0;
	while (o->argv[na])
		na++;
	char **full = calloc((size_t)n + na + 1, sizeof(*full));
	if (!full)
		return NULL;
	for (int i = 0; i < n; i++)
		full[i] = (char *)argv_vg[i];
	for (size_t i = 0; i < na; i++)
		full[n + i] = o->argv[i];
	return full;
}

/* Run valgrind and wait for it, forwarding one Ctrl-C. res gets its status. */
static int sim_run_valgrind(const struct mp_sim_opts *o, const struct sim_run *sr, char **full,
			    struct mp_sim_result *res, struct mp_err *err)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return mp_err_set(err, -errno, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int rc = mp_err_set(err, -errno, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (pid == 0) {
		close(pfd[0]);
		/* -o -: standard output carries the recording; the workload's goes to stderr */
		if (o->output && !strcmp(o->output, "-") && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		if (sr->mpsim && setenv("VALGRIND_LIB", sr->vglib, 1))
			_exit(127);
		execv(sr->vg, full);
		int e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	int exec_errno = 0;
	ssize_t got;
	while ((got = read(pfd[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	int status = 0, forwarded = 0;
	/* poll, so that a long simulation can say it is still going */
	unsigned every = o->progress ? o->progress_every : 0, next = every;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return mp_err_set(err, -errno, "waitpid: %s", strerror(errno));
		if (o->stop && *o->stop && !forwarded) {
			kill(pid, SIGINT);
			forwarded = 1;
		}
		struct timespec ts = { 0, 100000000 }; /* 0.1 s */
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		unsigned el = (unsigned)(now.tv_sec - t0.tv_sec);
		if (every && el >= next) {
			o->progress(o->progress_ctx, el);
			next = el + every;
		}
	}
	if (got == (ssize_t)sizeof(exec_errno))
		return mp_err_set(err, -exec_errno, "%s: cannot run: %s", sr->vg,
				  strerror(exec_errno));
	res->workload_started = 1;
	res->workload_pid = (uint32_t)pid;
	res->workload_status = status;
	return 0;
}

uint64_t mp_sim_pid_rank(uint32_t pid, uint32_t first)
{
	return pid >= first ? (uint64_t)(pid - first) : (uint64_t)pid + (1ULL << 32);
}

/* The pids of the callgrind outputs in sr->dir (callgrind.out.PID) in the order the
 * processes started (mp_sim_pid_rank): the workload (pid first) first, then its children.
 * malloc'd; *n their number. */
static int sim_output_pids(const struct sim_run *sr, uint32_t first, uint32_t **pids,
			   size_t *n)
{
	DIR *d = opendir(sr->dir);
	size_t cap = 0;
	*pids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned long pid;
		char *end;
		if (strncmp(e->d_name, "callgrind.out.", 14))
			continue;
		pid = strtoul(e->d_name + 14, &end, 10);
		if (*end || !pid)
			continue;
		if (MP_GROW(*pids, cap, *n + 1)) {
			closedir(d);
			return -ENOMEM;
		}
		(*pids)[(*n)++] = (uint32_t)pid;
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++) /* few: insertion sort */
		for (size_t j = i; j > 0 && mp_sim_pid_rank((*pids)[j - 1], first) >
						mp_sim_pid_rank((*pids)[j], first); j--) {
			uint32_t t = (*pids)[j];
			(*pids)[j] = (*pids)[j - 1];
			(*pids)[j - 1] = t;
		}
	return 0;
}

static void sim_procs_free(struct mp_sim_proc *procs, size_t n)
{
	for (size_t k = 0; procs && k < n; k++) {
		free((struct mp_sim_memrec *)procs[k].mem);
		mp_sim_allocs_fini((struct mp_sim_allocs *)procs[k].allocs);
		free((struct mp_sim_allocs *)procs[k].allocs);
		mp_sim_profile_free((mp_sim_profile *)procs[k].profile);
		mp_sim_loads_free((struct mp_sim_load *)procs[k].loads, procs[k].nloads);
	}
	free(procs);
}

/* callgrind's outputs and valgrind's logs of a finished run (one per process) into the
 * perf.data file. */
static int sim_convert(const struct mp_sim_opts *o, const struct sim_run *sr,
		       struct mp_sim_result *res, struct mp_err *err)
{
	int rc, status = res->workload_status;
	uint32_t *pids = NULL;
	size_t np = 0;
	char cg[4300], log[4300];
	if ((rc = sim_output_pids(sr, res->workload_pid, &pids, &np)))
		return mp_err_set(err, rc, "%s: %s", sr->dir, mp_strerror(rc));
	if (!np) {
		char why[400] = "";
		DIR *d = opendir(sr->dir);
		struct dirent *e;
		while (d && (e = readdir(d)) && !why[0])
			if (!strncmp(e->d_name, "valgrind.log.", 13)) {
				snprintf(log, sizeof(log), "%s/%s", sr->dir, e->d_name);
				log_error_line(log, why, sizeof(why));
			}
		if (d)
			closedir(d);
		free(pids);
		return mp_err_set(err, -EIO, "valgrind wrote no counts (%s %d)%s%s",
				  WIFSIGNALED(status) ? "killed by signal" : "exit status",
				  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
				  why[0] ? ": " : "", why);
	}
	struct mp_sim_proc *procs = calloc(np, sizeof(*procs));
	if (!procs) {
		free(pids);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	rc = 0;
	for (size_t k = 0; k < np && !rc; k++) {
		snprintf(cg, sizeof(cg), "%s.%u", sr->cg, pids[k]);
		snprintf(log, sizeof(log), "%s.%u", sr->log, pids[k]);
		struct mp_sim_load *loads = NULL;
		struct mp_err lerr = { 0 };
		size_t nw = 0;
		if (mp_sim_read_log(log, &loads, &nw, &lerr))
			mp_log(MP_LOG_WARN, "%s (objects go to synthetic addresses)", lerr.msg);
		procs[k].loads = loads;
		procs[k].nloads = nw;
		procs[k].profile = mp_sim_profile_read(cg, err);
		if (!procs[k].profile)
			rc = err->code ? err->code : -MP_EFORMAT;
		else if (o->mem_period) {
			char mem[4300];
			struct mp_sim_memrec *recs = NULL;
			snprintf(mem, sizeof(mem), "%s.%u", sr->mem, pids[k]);
			rc = mp_sim_mem_read(mem, &recs, &procs[k].nmem, &procs[k].mem_loads,
					     &procs[k].mem_stores, err);
			procs[k].mem = recs;
		}
		if (!rc && procs[k].profile && o->allocs) {
			char al[4300];
			struct mp_sim_allocs *a = calloc(1, sizeof(*a));
			snprintf(al, sizeof(al), "%s.%u", sr->alloc, pids[k]);
			if (!a)
				rc = mp_err_set(err, -ENOMEM, "out of memory");
			else if ((rc = mp_sim_allocs_read(al, a, err)))
				free(a);
			else
				procs[k].allocs = a;
		}
		else if (o->keep_callgrind && *o->keep_callgrind) {
			/* one process: FILE; several: FILE.PID each */
			char keep[4300];
			snprintf(keep, sizeof(keep), np > 1 ? "%s.%u" : "%s", o->keep_callgrind,
				 pids[k]);
			rc = copy_file(cg, keep, err);
		}
	}
	if (!rc && np > 1) {
		/* say what was simulated: every process, by name */
		char who[512] = "";
		for (size_t k = 0; k < np; k++) {
			const char *cmd = mp_sim_profile_cmd(procs[k].profile);
			char first[256];
			while (*cmd == ' ')
				cmd++;
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(cmd, " "), cmd);
			size_t len = strlen(who);
			snprintf(who + len, sizeof(who) - len, "%s%s (%u)", k ? ", " : "",
				 mp_sim_basename(first), pids[k]);
		}
		snprintf(res->procs, sizeof(res->procs), "%s", who);
	}
	res->nprocs = np;
	if (!rc)
		rc = mp_sim_write_procs(o, procs, np, res, err);
	sim_procs_free(procs, np);
	free(pids);
	return rc;
}

/* Remove the run's directory and what valgrind left in it. */
static void sim_run_clean(const struct sim_run *sr)
{
	DIR *d = opendir(sr->dir);
	struct dirent *e;
	char path[4400];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", sr->dir, e->d_name);
		if (unlink(path) && errno == EISDIR) {
			/* vglib: links only */
			DIR *v = opendir(path);
			struct dirent *f;
			char link[4700];
			while (v && (f = readdir(v)))
				if (f->d_name[0] != '.') {
					snprintf(link, sizeof(link), "%s/%s", path, f->d_name);
					unlink(link);
				}
			if (v)
				closedir(v);
			rmdir(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(sr->dir);
}

int mp_sim_record(const struct mp_sim_opts *o, struct mp_sim_result *res, struct mp_err *err)
{
	struct sim_run *sr = calloc(1, sizeof(*sr));
	char prog[4096];
	int rc;

	memset(res, 0, sizeof(*res));
	if (!sr)
		return mp_err_set(err, -ENOMEM, "out of memory");
	if (!o->argv || !o->argv[0])
		rc = mp_err_set(err, -EINVAL, "record --sim needs a workload to run");
	else if (!o->nevents && !o->mem_period)
		rc = mp_err_set(err, -EINVAL, "record --sim: no events");
	else if (find_exec(o->valgrind ? o->valgrind : "valgrind", sr->vg, sizeof(sr->vg)))
		rc = mp_err_set(err, -MP_ENOTSUP, "%s: not found in PATH: record --sim runs the "
				"workload under valgrind (Debian/Ubuntu package 'valgrind')",
				o->valgrind ? o->valgrind : "valgrind");
	else if ((rc = find_exec(o->argv[0], prog, sizeof(prog))))
		rc = mp_err_set(err, rc, "cannot run '%s': %s", o->argv[0], strerror(-rc));
	else
		rc = 0;
	if (rc) {
		free(sr);
		return rc;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(sr->dir, sizeof(sr->dir), "%s/memprof-sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sr->dir)) {
		rc = mp_err_set(err, -errno, "%s: cannot create a directory: %s", sr->dir,
				strerror(errno));
		free(sr);
		return rc;
	}
	snprintf(sr->cg, sizeof(sr->cg), "%s/callgrind.out", sr->dir);
	snprintf(sr->log, sizeof(sr->log), "%s/valgrind.log", sr->dir);
	snprintf(sr->mem, sizeof(sr->mem), "%s/mem.out", sr->dir);
	snprintf(sr->alloc, sizeof(sr->alloc), "%s/alloc.out", sr->dir);
	/* memprof's tool when it is there (and asked for, or not refused); callgrind for -g,
	 * whose call graph it keeps */
	char tool[4096];
	int have_tool = !mp_sim_tool_path(tool, sizeof(tool));
	if (o->engine == MP_SIM_ENGINE_MPSIM && !have_tool)
		rc = mp_err_set(err, -MP_ENOTSUP, "record --sim: memprof's valgrind tool "
				"(lib/memprof/mpsim-amd64-linux) is not installed: this memprof was "
				"built without valgrind's tool headers");
	else if (o->engine == MP_SIM_ENGINE_MPSIM && o->callgraph)
		rc = mp_err_set(err, -EINVAL, "record --sim: -g takes callgrind's call graph: "
				"use --sim-engine=callgrind (or leave it out)");
	else if (o->allocs && (!have_tool || o->engine == MP_SIM_ENGINE_CALLGRIND || o->callgraph))
		rc = mp_err_set(err, -MP_ENOTSUP, "record --sim: allocation tracking comes from "
				"memprof's valgrind tool (mpsim)%s",
				!have_tool ? ", which this memprof was built without"
				: o->callgraph ? ", which makes no call chains (-g)"
					       : ", not callgrind");
	else if (o->mem_period && (!have_tool || o->engine == MP_SIM_ENGINE_CALLGRIND ||
				   o->callgraph))
		rc = mp_err_set(err, -MP_ENOTSUP, "record --sim: memory samples (-d) come from "
				"memprof's valgrind tool (mpsim)%s",
				!have_tool ? ", which this memprof was built without"
				: o->callgraph ? ", which makes no call chains (-g)"
					       : ", not callgrind");
	sr->mpsim = !rc && have_tool && o->engine != MP_SIM_ENGINE_CALLGRIND && !o->callgraph;
	for (size_t i = 0; !rc && !sr->mpsim && i < o->nevents; i++)
		if (o->events[i].mask >> MP_SIM_NCG)
			rc = mp_err_set(err, -MP_ENOTSUP, "record --sim: %s counts coherence between "
					"simulated cores, which only memprof's valgrind tool (mpsim) "
					"models, not callgrind%s", o->events[i].spec,
					have_tool ? "" : " (this memprof was built without mpsim)");
	if (sr->mpsim)
		rc = sim_make_vglib(sr, tool, o->allocs, err);
	res->engine = sr->mpsim ? "mpsim" : "callgrind";
	/* valgrind writes FILE.PID per process (--trace-children) */
	char **full = rc ? NULL : sim_valgrind_argv(o, sr);
	if (rc)
		;
	else if (!full)
		rc = mp_err_set(err, -ENOMEM, "out of memory");
	else if (!(rc = sim_run_valgrind(o, sr, full, res, err)))
		rc = sim_convert(o, sr, res, err);
	sim_run_clean(sr);
	free(full);
	free(sr);
	return rc;
}

/* Name the options among g->source: "sysfs and --D1", or "--I1, --D1, --LL" alone. */
static void geometry_source_options(struct mp_sim_geometry *g, const char *i1, const char *d1,
				    const char *ll)
{
	char opts[32] = "";
	const char *given[3] = { i1, d1, ll }, *names[3] = { "--I1", "--D1", "--LL" };
	for (int i = 0; i < 3; i++)
		if (given[i])
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s",
				 opts[0] ? ", " : "", names[i]);
	if (!opts[0])
		return;
	if (i1 && d1 && ll)
		g->source[0] = 0;
	size_t o = strlen(g->source);
	snprintf(g->source + o, sizeof(g->source) - o, "%s%s", o ? " and " : "", opts);
}

int mp_sim_setup(const char *events, const char *i1, const char *d1, const char *ll,
		 const char *cache_dir, struct mp_sim_event **evs, size_t *nevs,
		 struct mp_sim_geometry *g, struct mp_err *warn, struct mp_err *err)
{
	struct mp_err herr = { 0 };
	int rc;

	*evs = NULL;
	*nevs = 0;
	if (warn)
		warn->code = 0, warn->msg[0] = 0;
	mp_sim_host_geometry(cache_dir, g, &herr);
	if ((i1 && (rc = mp_sim_parse_cache("--I1", i1, &g->i1, err))) ||
	    (d1 && (rc = mp_sim_parse_cache("--D1", d1, &g->d1, err))) ||
	    (ll && (rc = mp_sim_parse_cache("--LL", ll, &g->ll, err))))
		return rc;
	if (herr.msg[0] && (!g->i1.size || !g->d1.size || !g->ll.size) && warn)
		snprintf(warn->msg, sizeof(warn->msg), "%s", herr.msg);
	geometry_source_options(g, i1, d1, ll);
	return mp_sim_events_parse(events ? events : MP_SIM_DEFAULT_EVENTS, evs, nevs, err);
}
