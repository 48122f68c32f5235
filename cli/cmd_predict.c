/* cmd_predict.c - memprof predict: run a program built with -DDEBUGPRED (or read its predict
 * file) and print, for every likely()/unlikely() use, how often the hint was right. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mp_collector.h"
#include "mp_predict.h"

static const char predict_usage[] =
	"[-o FILE] [--atomic-hint] [--by KEY] [--sort KEY] [--threshold PCT] [--csv | --json] "
	"-- COMMAND [ARGS...]\n       memprof predict -i FILE [--by KEY] [--sort KEY] "
	"[--threshold PCT] [--csv | --json]";
static const char predict_summary[] =
	"Run COMMAND with MEMPROF_PREDICT=FILE, so that every executable and shared object built\n"
	"with -DDEBUGPRED and <memprof/debugpred.h> appends its likely()/unlikely() counts at\n"
	"exit, then print one row per use: the hint, how often it was correct and incorrect,\n"
	"WARNING where incorrect exceeds correct (the hint is wrong), the expression, function,\n"
	"file:line and object. Exit status: COMMAND's. With -i, print an existing FILE.";

#define BUILD_HINT                                                                          \
	"build it with -DDEBUGPRED and #include <memprof/debugpred.h> around likely()/unlikely(), " \
	"e.g. cc -DDEBUGPRED $(pkg-config --cflags memprof-debugpred) prog.c"

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

static void print_csv(FILE *f, const struct mp_predict_row *rows, size_t n)
{
	fprintf(f, "hint,correct,incorrect,pct_incorrect,warning,expression,function,file,line,"
		   "object,uses,locations,atomic\n");
	for (size_t i = 0; i < n; i++) {
		const struct mp_predict_row *r = &rows[i];
		fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%.2f,%d,", mp_predict_hint_name(r->hint),
			r->correct, r->incorrect, r->pct_incorrect, r->warning);
		cli_csv_str(f, r->expr);
		fputc(',', f);
		cli_csv_str(f, r->func);
		fputc(',', f);
		cli_csv_str(f, r->file);
		fprintf(f, ",%" PRIu32 ",", r->line);
		cli_csv_str(f, r->object);
		fprintf(f, ",%zu,%zu,%d\n", r->nuses, r->nlocations, r->atomic);
	}
}

static void print_json(FILE *f, const struct mp_predict *p, const char *by,
		       const struct mp_predict_row *rows, size_t n)
{
	struct cli_json j;
	cli_json_start(&j, f, ": ", ", ", 1);
	/* "by" and "records" inline, then the members one a line indented once: the document
	 * counts as laying out lines (its arrays' items two spaces in) but starts inline */
	cli_json_open(&j, NULL, '{', CLI_JSON_LINES_OPEN);
	cli_json_relayout(&j, CLI_JSON_INLINE);
	cli_json_string(&j, "by", by);
	cli_json_open(&j, "records", '[', CLI_JSON_LINES_OPEN);
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct mp_predict_record *r = &p->records[i];
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(&j, "pid", "%" PRIu64, r->pid);
		cli_json_string(&j, "object", r->object);
		cli_json_string(&j, "build_id", r->build_id);
		cli_json_string(&j, "arch", r->arch);
		cli_json_value(&j, "word", "%u", r->word);
		cli_json_value(&j, "uses", "%zu", r->nuses);
		if (r->exec)
			cli_json_bool(&j, "exec", 1);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	cli_json_relayout(&j, CLI_JSON_LINES_OPEN);
	cli_json_open(&j, "rows", '[', CLI_JSON_LINES_OPEN);
	for (size_t i = 0; i < n; i++) {
		const struct mp_predict_row *r = &rows[i];
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "hint", mp_predict_hint_name(r->hint));
		cli_json_value(&j, "correct", "%" PRIu64, r->correct);
		cli_json_value(&j, "incorrect", "%" PRIu64, r->incorrect);
		cli_json_value(&j, "pct_incorrect", "%.2f", r->pct_incorrect);
		cli_json_bool(&j, "warning", r->warning);
		cli_json_string(&j, "expression", r->expr);
		if (r->macro) {
			cli_json_string(&j, "macro", r->macro);
			cli_json_string(&j, "macro_file", r->macro_file);
			cli_json_value(&j, "macro_line", "%" PRIu32, r->macro_line);
		}
		cli_json_string(&j, "function", r->func);
		cli_json_string(&j, "file", r->file);
		cli_json_value(&j, "line", "%" PRIu32, r->line);
		cli_json_string(&j, "object", r->object);
		cli_json_value(&j, "uses", "%zu", r->nuses);
		cli_json_value(&j, "locations", "%zu", r->nlocations);
		cli_json_bool(&j, "atomic", r->atomic);
		cli_json_close(&j);
	}
	cli_json_close(&j);
	cli_json_close(&j);
	fputc('\n', f);
}

/* Expression text in the table: one line, at most 48 columns. */
static void short_text(char *dst, size_t cap, const char *s)
{
	size_t k = 0;
	for (; s && *s && k + 1 < cap; s++)
		dst[k++] = (*s == '\n' || *s == '\t') ? ' ' : *s;
	dst[k] = 0;
	if (s && *s && cap > 4)
		memcpy(dst + cap - 4, "...", 4);
}

/* The expression column: a macro's row (--by expr) names the macro and its #define. */
static void expr_text(char *dst, size_t cap, const struct mp_predict_row *r)
{
	char t[160];
	if (!r->macro) {
		short_text(dst, cap, r->expr);
		return;
	}
	snprintf(t, sizeof t, "%s (macro, %s:%" PRIu32 ")", r->macro, base_name(r->macro_file),
		 r->macro_line);
	short_text(dst, cap, t);
}

static void location(char *dst, size_t cap, const struct mp_predict_row *r)
{
	int l = snprintf(dst, cap, "%s:%" PRIu32, r->file ? r->file : "", r->line);
	if (r->nlocations > 1 && l > 0 && (size_t)l < cap)
		snprintf(dst + l, cap - (size_t)l, " (+%zu)", r->nlocations - 1);
}

static void print_table(FILE *f, const struct mp_predict *p, const char *by, const char *sort,
			const struct mp_predict_row *rows, size_t n)
{
	int we = 10, wf = 8, wl = 9;
	char expr[49], loc[4200];
	size_t objs = 0, pids = 0, execs = 0;
	char images[48] = "";

	for (size_t i = 0; i < p->nrecords; i++) {
		size_t j;
		execs += p->records[i].exec != 0;
		for (j = 0; j < i && strcmp(p->records[j].object, p->records[i].object); j++)
			;
		objs += j == i;
		for (j = 0; j < i && p->records[j].pid != p->records[i].pid; j++)
			;
		pids += j == i;
	}
	/* each exec() wrote the counts of the image it replaced (an exec that failed too: the
	 * image then goes on and writes the rest at exit) */
	if (execs)
		snprintf(images, sizeof images, ", %zu exec%s", execs, execs == 1 ? "" : "s");
	fprintf(f, "# memprof predict: %zu rows by %s from %zu uses in %zu object%s, %zu process%s%s; "
		   "sorted by %s\n",
		n, by, p->nuses, objs, objs == 1 ? "" : "s", pids, pids == 1 ? "" : "es", images, sort);
	for (size_t i = 0; i < n; i++) {
		int l;
		expr_text(expr, sizeof expr, &rows[i]);
		if ((l = (int)strlen(expr)) > we)
			we = l;
		if ((l = (int)strlen(rows[i].func ? rows[i].func : "")) > wf)
			wf = l < 32 ? l : 32;
		location(loc, sizeof loc, &rows[i]);
		if ((l = (int)strlen(loc)) > wl)
			wl = l < 60 ? l : 60;
	}
	fprintf(f, "%-8s %12s %12s %8s %-7s  %-*s  %-*s  %-*s  %s\n", "hint", "correct", "incorrect",
		"%incorr", "", we, "expression", wf, "function", wl, "file:line", "object");
	for (size_t i = 0; i < n; i++) {
		const struct mp_predict_row *r = &rows[i];
		location(loc, sizeof loc, &rows[i]);
		expr_text(expr, sizeof expr, r);
		fprintf(f, "%-8s %12" PRIu64 " %12" PRIu64 " %7.2f%% %-7s  %-*s  %-*s  %-*s  %s\n",
			mp_predict_hint_name(r->hint), r->correct, r->incorrect, r->pct_incorrect,
			r->warning ? "WARNING" : "", we, expr, wf, r->func ? r->func : "", wl, loc,
			base_name(r->object));
	}
}

/* Run argv with MEMPROF_PREDICT=path; returns the wait() status, or -1 (errno) when the
 * fork failed; *exec_errno is set when the command could not be started. */
static int run_workload(char **argv, const char *path, int *exec_errno)
{
	int pfd[2], st = 0;
	pid_t pid;
	struct sigaction ign = { 0 }, old_int, old_quit;

	*exec_errno = 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int e;
		close(pfd[0]);
		setenv("MEMPROF_PREDICT", path, 1);
		execvp(argv[0], argv);
		e = errno;
		if (write(pfd[1], &e, sizeof e) != (ssize_t)sizeof e)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], exec_errno, sizeof *exec_errno) != (ssize_t)sizeof *exec_errno)
		*exec_errno = 0;
	close(pfd[0]);
	/* Ctrl-C goes to the workload (same process group); we wait and report what it wrote. */
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return st;
}

/* What a step of cmd_predict returns to go on (else the exit status). */
#define PREDICT_GO (-1)

struct predict_opts {
	const char *input, *output, *by_s, *sort_s;
	int atomic_hint, csv, json;
	double threshold;
	struct mp_predict_opts po;  /* --by, --sort, --threshold parsed */
	int nargs;                  /* the command: argv[1..nargs] */
	char **argv;
};

/* The command line into o, checked. PREDICT_GO, or the exit status. */
static int predict_parse_args(int argc, char **argv, struct predict_opts *o)
{
	struct mp_err err = { 0 };
	const struct cli_opt opts[] = {
		{ 'o', "output", CLI_STR, &o->output, "FILE",
		  "predict file the run appends to (default memprof.predict; emptied first)" },
		{ 'i', "input", CLI_STR, &o->input, "FILE", "print an existing predict file (no run)" },
		{ 0, "atomic-hint", CLI_FLAG, &o->atomic_hint, NULL,
		  "say which objects count without atomics (their counts may miss increments "
		  "when threads run the same use at once) and how to build them exact" },
		{ 0, "by", CLI_STR, &o->by_s, "KEY",
		  "merge uses: use (default), line, expr (a macro's uses together), function" },
		{ 0, "sort", CLI_STR, &o->sort_s, "KEY",
		  "incorrect (default), correct, percent, total, location" },
		{ 0, "threshold", CLI_DOUBLE, &o->threshold, "PCT",
		  "only rows whose hint is incorrect at least PCT% of the time" },
		{ 0, "csv", CLI_FLAG, &o->csv, NULL, "print CSV" },
		{ 0, "json", CLI_FLAG, &o->json, NULL, "print one JSON document" },
		{ 0 },
	};

	int rc = cli_parse(&cli_cmd_predict, opts, argc, argv, &o->nargs);
	if (rc)
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	o->argv = argv;
	if (o->csv && o->json) {
		cli_error("predict", "give either --csv or --json, not both");
		return CLI_EXIT_USAGE;
	}
	if (mp_predict_by_parse(o->by_s, &o->po.by, &err) ||
	    mp_predict_sort_parse(o->sort_s, &o->po.sort, &err)) {
		cli_error("predict", "%s", err.msg);
		return CLI_EXIT_USAGE;
	}
	if (o->threshold < 0 || o->threshold > 100) {
		cli_error("predict", "--threshold %g: expected a percentage from 0 to 100",
			  o->threshold);
		return CLI_EXIT_USAGE;
	}
	o->po.threshold = o->threshold;
	if (o->input && (o->nargs || o->output)) {
		cli_error("predict", "-i reads an existing file: give no command and no -o");
		return CLI_EXIT_USAGE;
	}
	if (!o->input && !o->nargs) {
		cli_error("predict", "no command to run and no -i FILE (see memprof predict --help)");
		return CLI_EXIT_USAGE;
	}
	return PREDICT_GO;
}

/* When the program wrote no counts to path: could it have? A write of one byte there (taken
 * back) says whether the file system is full or read-only, which no build mode would
 * change. 0, or that write's errno. */
static int predict_probe_write(const char *path)
{
	int made = 0, fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		made = fd >= 0;
	}
	if (fd < 0)
		return errno == ENOENT ? 0 : errno;
	struct stat st;
	int e = 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size == 0) {
		if (write(fd, "", 1) != 1 || fsync(fd))
			e = errno ? errno : EIO;
		if (ftruncate(fd, 0) && !e)
			e = errno;
	}
	close(fd);
	if (made)
		unlink(path);
	return e;
}

/* Run the command with MEMPROF_PREDICT set to the predict file (emptied first), whose
 * absolute path is then *abs (malloc'd) and o->input; *status the command's wait status.
 * PREDICT_GO, or the exit status when it could not run or wrote no counts. */
static int predict_run_command(struct predict_opts *o, char **abs, int *status)
{
	char **argv = o->argv;
	int exec_errno = 0;
	const char *path = o->output ? o->output : "memprof.predict";
	struct stat st;
	/* a previous predict file is emptied (removed); a device or FIFO is never touched */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		cli_error("predict", "%s: is %s: predict writes only regular files", path,
			  S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			  "a device");
		return CLI_EXIT_RUNTIME;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		cli_error("predict", "%s: %s", path, strerror(errno));
		return CLI_EXIT_RUNTIME;
	}
	*abs = realpath(".", NULL);
	if (path[0] != '/' && *abs) {
		char *full = malloc(strlen(*abs) + strlen(path) + 2);
		if (full)
			sprintf(full, "%s/%s", *abs, path);
		free(*abs);
		*abs = full;
	} else {
		free(*abs);
		*abs = strdup(path);
	}
	if (!*abs) {
		cli_error("predict", "out of memory");
		return CLI_EXIT_RUNTIME;
	}
	fflush(NULL);
	*status = run_workload(argv + 1, *abs, &exec_errno);
	if (*status < 0) {
		cli_error("predict", "cannot start %s: %s", argv[1], strerror(errno));
		return CLI_EXIT_RUNTIME;
	}
	if (exec_errno) {
		cli_error("predict", "cannot run %s: %s", argv[1], strerror(exec_errno));
		return 127;
	}
	o->input = *abs;
	if (stat(o->input, &st) < 0 || st.st_size == 0) {
		int e = predict_probe_write(o->input);
		if (e) {
			cli_error("predict", "%s: %s: the counts could not be written", path,
				  strerror(e));
			return CLI_EXIT_RUNTIME;
		}
		if (WIFSIGNALED(*status))
			cli_error("predict", "%s was killed by signal %d before its destructors "
					     "could write counts",
				  argv[1], WTERMSIG(*status));
		else
			cli_error("predict", "%s wrote no branch-prediction counts: " BUILD_HINT,
				  argv[1]);
		return mp_exit_code(*status);
	}
	return PREDICT_GO;
}

/* --atomic-hint: on stderr, each object whose uses count without atomics. */
static void print_atomic_hint(const struct mp_predict *p)
{
	for (size_t i = 0; i < p->nrecords; i++) {
		const struct mp_predict_record *r = &p->records[i];
		size_t plain = 0, j;
		for (j = 0; j < r->nuses; j++)
			plain += !p->uses[r->first_use + j].atomic;
		for (j = 0; j < i && strcmp(p->records[j].object, r->object); j++)
			;
		if (plain && j == i)
			fprintf(stderr,
				"memprof predict: %s: %zu of %zu uses count without atomics: when "
				"threads run them at once, increments can be lost; rebuild with "
				"-DDEBUGPRED -DDEBUGPRED_ATOMIC for exact counts\n",
				r->object, plain, r->nuses);
	}
}

/* --by expr: the macros the hints come from, in the sources found as the uses name them
 * (absolute), or relative to here, to the predict file's folder or to an object's. */
static int predict_macros(struct mp_predict *p, const char *input, struct mp_err *err)
{
	const char **dirs = calloc(p->nrecords + 2, sizeof(*dirs));
	char **own = calloc(p->nrecords + 2, sizeof(*own));
	size_t n = 0;
	int rc;
	if (!dirs || !own) {
		free(dirs);
		free(own);
		return mp_err_set(err, -ENOMEM, "predict: out of memory");
	}
	dirs[n++] = ".";
	for (size_t i = 0; i <= p->nrecords; i++) {
		const char *path = i ? p->records[i - 1].object : input, *sl = strrchr(path, '/');
		if (!sl || !(own[n] = strndup(path, (size_t)(sl - path) + (sl == path))))
			continue;
		size_t k;
		for (k = 0; k < n && strcmp(dirs[k], own[n]); k++)
			;
		if (k < n) {
			free(own[n]);
			own[n] = NULL;
			continue;
		}
		dirs[n] = own[n];
		n++;
	}
	rc = mp_predict_find_macros(p, dirs, n, err);
	for (size_t i = 0; i < n; i++)
		free(own[i]);
	free(own);
	free(dirs);
	return rc;
}

/* The predict file read, aggregated and printed. ran: it was the command's run (then the
 * exit status is the command's, from status). Returns the exit status. */
static int predict_print(const struct predict_opts *o, int ran, int status)
{
	struct mp_predict p = { 0 };
	struct mp_predict_row *rows = NULL;
	size_t nrows = 0;
	struct mp_err err = { 0 };
	int rc = mp_predict_read(&p, o->input, &err);
	if (rc) {
		cli_error("predict", "%s", err.msg);
		return CLI_EXIT_RUNTIME;
	}
	if (p.nrecords == 0) {
		cli_error("predict", "%s holds no records: " BUILD_HINT, o->input);
		mp_predict_fini(&p);
		return ran ? mp_exit_code(status) : CLI_EXIT_RUNTIME;
	}
	if ((o->po.by == MP_PREDICT_BY_EXPR && predict_macros(&p, o->input, &err)) ||
	    mp_predict_aggregate(&p, &o->po, &rows, &nrows, &err)) {
		cli_error("predict", "%s", err.msg);
		rc = CLI_EXIT_RUNTIME;
		goto out;
	}
	if (o->csv)
		print_csv(stdout, rows, nrows);
	else if (o->json)
		print_json(stdout, &p, o->by_s, rows, nrows);
	else
		print_table(stdout, &p, o->by_s, o->sort_s, rows, nrows);
	if (p.nuses == 0)
		cli_warn("predict", "%s: the objects include <memprof/debugpred.h> with -DDEBUGPRED "
				    "but have no likely()/unlikely() use",
			 o->input);
	if (o->atomic_hint)
		print_atomic_hint(&p);
	rc = ran ? mp_exit_code(status) : 0;
out:
	free(rows);
	mp_predict_fini(&p);
	return rc;
}

static int cmd_predict(int argc, char **argv)
{
	struct predict_opts o = { .by_s = "use", .sort_s = "incorrect" };
	char *abs = NULL;
	int status = 0, ran = 0;
	int rc = predict_parse_args(argc, argv, &o);
	if (rc == PREDICT_GO && !o.input) {
		rc = predict_run_command(&o, &abs, &status);
		ran = 1;
	}
	if (rc == PREDICT_GO)
		rc = predict_print(&o, ran, status);
	free(abs);
	return rc;
}

const struct cli_cmd cli_cmd_predict = {
	"predict", cmd_predict,
	"likely()/unlikely() hints right and wrong (-DDEBUGPRED, memprof/debugpred.h)",
	predict_usage, predict_summary, 1,
};
