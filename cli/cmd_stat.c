/* cmd_stat.c - memprof stat: count events of a command, like perf stat / ocount. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mp_collector.h"
#include "mp_events.h"
#include "mp_ratios.h"
#include "mp_sim.h"

static const char stat_usage[] = "[-e EVENTS] [-a | -p PID] [-i] [--csv | --json | -x SEP] "
				 "[-o FILE] [--] [COMMAND [ARGS...]]";
static const char stat_summary[] =
	"Run COMMAND and count the events (default: task-clock, context-switches,\n"
	"cpu-migrations, page-faults, and cycles, instructions, branches, branch-misses where\n"
	"the machine has them). When the kernel multiplexes the counters, counts are scaled\n"
	"by time enabled / time running and the share of time counted is shown.";

static const char *const stat_defaults[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses",
};

static int is_clock(const struct mp_event *ev)
{
	return ev->attr.type == PERF_TYPE_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		ev->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The default set: each event that parses and that the kernel can open here. */
static int default_events(const struct mp_evopts *eo, struct mp_event **evs, size_t *n)
{
	size_t k = sizeof(stat_defaults) / sizeof(stat_defaults[0]);
	struct mp_event *v = calloc(k, sizeof(*v));

	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++) {
		struct mp_err err = { 0 };
		if (mp_event_parse(stat_defaults[i], eo, &v[*n], &err))
			continue;
		memset(&err, 0, sizeof(err));
		if (mp_event_probe(&v[*n], &err))
			continue;
		(*n)++;
	}
	*evs = v;
	return *n ? 0 : -ENOENT;
}

static const char *ev_name(const struct mp_event *e)
{
	return e->resolved[0] ? e->resolved : e->spec;
}

/* --ratios: the ratio table of memprof ratios, from the exact counts (ratios module). */
static void stat_print_ratios(FILE *f, const struct mp_event *evs,
			      const struct mp_event_result *res, size_t nev, const char *pmu)
{
	struct mp_ratio_counted *c = calloc(nev ? nev : 1, sizeof(*c));
	struct mp_evopts eo = { 0 };
	struct mp_buf out = { 0 };
	struct mp_err err = { 0 };
	char model[64];

	if (!c)
		return;
	for (size_t i = 0; i < nev; i++) {
		c[i].attr = evs[i].attr;
		c[i].name = evs[i].resolved;
		c[i].counts = res[i].counts;
	}
	eo.pmu_model = pmu;
	if (mp_ratio_stat_report(c, nev, mp_events_host_model(&eo, model, sizeof(model)), NULL,
				 &out, &err))
		cli_warn("stat", "--ratios: %s", err.msg);
	else if (out.data)
		fputs(out.data, f);
	mp_buf_fini(&out);
	free(c);
}

/* What was counted, as the header says it: the command line, the process or the system. */
static void target_name(char *cmd, size_t len, int nargs, char **argv, int pid)
{
	cmd[0] = 0;
	if (nargs)
		for (int i = 1; i <= nargs; i++) {
			size_t l = strlen(cmd);
			snprintf(cmd + l, len - l, "%s%s", i > 1 ? " " : "", argv[i]);
		}
	else if (pid)
		snprintf(cmd, len, "process %d", pid);
	else
		snprintf(cmd, len, "system wide");
}

/* One event's line (text), row (CSV) or object (JSON); scaled: the count scaled by
 * enabled/running time, pct: the share of time it was counted. */
static void print_event(FILE *f, const struct mp_event *ev, const struct mp_event_result *r,
			int counted, double scaled, double pct, int clock, struct cli_json *j,
			int csv, const char *sep, const char *note, double noise)
{
	const char *unit = clock ? "msec" : "";
	double shown = clock ? scaled / 1e6 : scaled;
	if (j) {
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(j, "event", ev_name(ev));
		cli_json_string(j, "spec", ev->spec);
		if (counted)
			cli_json_value(j, "value", "%.2f", scaled);
		else
			cli_json_value(j, "value", "null");
		cli_json_string(j, "unit", clock ? "ns" : "");
		cli_json_value(j, "raw", "%" PRIu64, r->counts.val);
		cli_json_value(j, "time_enabled", "%" PRIu64, r->counts.ena);
		cli_json_value(j, "time_running", "%" PRIu64, r->counts.run);
		cli_json_value(j, "percent_running", "%.2f", pct);
		cli_json_close(j);
	} else if (csv) {
		if (counted)
			fprintf(f, "%s%s%.0f%s%s%s", ev_name(ev), sep,
				scaled, sep, clock ? "ns" : "", sep);
		else
			fprintf(f, "%s%s<not counted>%s%s%s", ev_name(ev), sep, sep,
				clock ? "ns" : "", sep);
		fprintf(f, "%" PRIu64 "%s%" PRIu64 "%s%" PRIu64 "%s%.2f\n", r->counts.val, sep,
			r->counts.ena, sep, r->counts.run, sep, pct);
	} else if (!counted) {
		fprintf(f, "   %18s %-5s %-28s\n", "<not counted>", unit, ev_name(ev));
	} else {
		char num[64];
		if (clock)
			snprintf(num, sizeof(num), "%.2f", shown);
		else
			snprintf(num, sizeof(num), "%.0f", shown);
		fprintf(f, "   %18s %-5s %-28s", num, unit, ev_name(ev));
		if (note && *note)
			fprintf(f, noise >= 0 ? " %-26s" : " %s", note);
		if (noise >= 0)
			fprintf(f, "  ( +-%6.2f%% )", noise);
		if (r->counts.run < r->counts.ena)
			fprintf(f, " (%.2f%% counted, scaled)", pct);
		fputc('\n', f);
	}
}

static long find_hw(const struct mp_event *evs, const int *counted, size_t nev, uint64_t config)
{
	for (size_t i = 0; i < nev; i++)
		if (counted[i] && evs[i].attr.type == PERF_TYPE_HARDWARE && evs[i].attr.config == config)
			return (long)i;
	return -1;
}

/* The note perf stat prints after a count (its shadow metrics): CPUs utilized for the
 * clocks (clock time / wall time), GHz for cycles, instructions per cycle, the share of
 * branches missed, else the rate per second of task-clock (K/M/G above 1e3/1e6/1e9). val:
 * each event's (scaled) count; wall_ns: the time counted. */
static void rate_note(const struct mp_event *evs, const double *val, const int *counted,
		      size_t nev, size_t i, double wall_ns, char *buf, size_t n)
{
	long clk = -1;
	buf[0] = 0;
	for (size_t k = 0; k < nev && clk < 0; k++)
		if (counted[k] && is_clock(&evs[k]))
			clk = (long)k;
	if (!counted[i])
		return;
	const struct perf_event_attr *a = &evs[i].attr;
	int hw = a->type == PERF_TYPE_HARDWARE;
	long cyc = find_hw(evs, counted, nev, PERF_COUNT_HW_CPU_CYCLES);
	long br = find_hw(evs, counted, nev, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	double clk_ns = clk >= 0 ? val[clk] : 0;
	if (is_clock(&evs[i])) {
		if (wall_ns > 0)
			snprintf(buf, n, "# %8.3f CPUs utilized", val[i] / wall_ns);
	} else if (hw && a->config == PERF_COUNT_HW_CPU_CYCLES && clk_ns > 0) {
		snprintf(buf, n, "# %8.3f GHz", val[i] / clk_ns);
	} else if (hw && a->config == PERF_COUNT_HW_INSTRUCTIONS && cyc >= 0 && val[cyc] > 0) {
		snprintf(buf, n, "# %8.2f insn per cycle", val[i] / val[cyc]);
	} else if (hw && a->config == PERF_COUNT_HW_BRANCH_MISSES && br >= 0 && val[br] > 0) {
		snprintf(buf, n, "# %7.2f%% of all branches", 100.0 * val[i] / val[br]);
	} else if (clk_ns > 0) {
		double r = val[i] * 1e9 / clk_ns;
		const char *u = "";
		if (r > 1e9)
			r /= 1e9, u = "G";
		else if (r > 1e6)
			r /= 1e6, u = "M";
		else if (r > 1e3)
			r /= 1e3, u = "K";
		snprintf(buf, n, "# %8.3f %s/sec", r, u);
	}
}

static double scaled_of(const struct mp_event_result *r)
{
	return r->counts.run ? mp_counts_scaled(&r->counts) : 0;
}

/* -I: each interval's counts (the differences from the last interval's) as text lines
 * with perf stat -I's time column. */
struct stat_iv {
	FILE *f;
	const struct mp_event *evs;
	size_t nev;
	struct mp_event_result *prev;
	uint64_t prev_ns;
	int header_done;
};

static void stat_iv_print(struct stat_iv *iv, uint64_t t_ns, const struct mp_event_result *cur)
{
	size_t nev = iv->nev;
	double *val = calloc(nev + 1, sizeof(*val));
	int *counted = calloc(nev + 1, sizeof(*counted));
	struct mp_event_result *d = calloc(nev + 1, sizeof(*d));
	if (!val || !counted || !d)
		goto out;
	if (!iv->header_done) {
		fprintf(iv->f, "#           time             counts unit events\n");
		iv->header_done = 1;
	}
	for (size_t i = 0; i < nev; i++) {
		d[i].counts.val = cur[i].counts.val - iv->prev[i].counts.val;
		d[i].counts.ena = cur[i].counts.ena - iv->prev[i].counts.ena;
		d[i].counts.run = cur[i].counts.run - iv->prev[i].counts.run;
		counted[i] = d[i].counts.run > 0;
		val[i] = scaled_of(&d[i]);
	}
	for (size_t i = 0; i < nev; i++) {
		char note[64], ts[32];
		rate_note(iv->evs, val, counted, nev, i, (double)(t_ns - iv->prev_ns), note,
			  sizeof(note));
		snprintf(ts, sizeof(ts), "%6" PRIu64 ".%09" PRIu64, t_ns / 1000000000u,
			 t_ns % 1000000000u);
		fprintf(iv->f, "%s", ts);
		print_event(iv->f, &iv->evs[i], &d[i], counted[i], val[i],
			    d[i].counts.ena ? 100.0 * (double)d[i].counts.run / (double)d[i].counts.ena : 0,
			    is_clock(&iv->evs[i]), NULL, 0, ",", note, -1);
	}
	memcpy(iv->prev, cur, nev * sizeof(*cur));
	iv->prev_ns = t_ns;
out:
	free(val);
	free(counted);
	free(d);
}

static void stat_iv_cb(void *ctx, uint64_t t_ns, const struct mp_event_result *cur)
{
	stat_iv_print(ctx, t_ns, cur);
}

/* perf's get_precision(): digits to show for a spread of sd */
static int precision_of(double sd)
{
	if (sd > 1 || sd <= 0)
		return sd <= 0 ? 6 : 0;
	return (int)lround(ceil(-log10(sd)));
}

/* stat --sim: the workload under valgrind's callgrind, its exact simulated totals printed
 * as counts (the perf.data record --sim would write goes to a temporary file, removed). */
static int stat_sim(const char *events, char **argv, FILE *f)
{
	struct mp_sim_event *evs = NULL;
	size_t nev = 0;
	struct mp_sim_opts so = { 0 };
	struct mp_sim_result res = { 0 };
	struct mp_err err = { 0 }, warn = { 0 };
	char dir[4096], tmp[4200];
	const char *td = getenv("TMPDIR");
	int rc;

	if (mp_sim_setup(events, NULL, NULL, NULL, NULL, &evs, &nev, &so.geom, &warn, &err)) {
		cli_error("stat", "%s", err.msg);
		return 1;
	}
	/* a private folder: the recording is written there (the writer would keep a file
	 * already at its path as PATH.old, and leave it behind) and removed with it */
	snprintf(dir, sizeof(dir), "%s/memprof-stat-sim.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(dir)) {
		cli_error("stat", "%s: cannot create: %s", dir, strerror(errno));
		free(evs);
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s/sim.data", dir);
	so.events = evs;
	so.nevents = nev;
	so.output = tmp;
	so.argv = argv;
	so.stop = &cli_stop_flag;
	cli_install_stop_handler();
	rc = mp_sim_record(&so, &res, &err);
	unlink(tmp);
	rmdir(dir);
	if (rc) {
		cli_error("stat", "%s", err.msg);
		rc = res.workload_started ? mp_exit_code(res.workload_status) : 1;
		free(res.totals);
		free(evs);
		return rc ? rc : 1;
	}
	char cmd[1024] = "";
	for (int i = 0; argv[i]; i++) {
		size_t l = strlen(cmd);
		snprintf(cmd + l, sizeof(cmd) - l, "%s%s", i ? " " : "", argv[i]);
	}
	fprintf(f, "\n Simulated counts for '%s' (valgrind's callgrind: exact, no PMU", cmd);
	if (res.nprocs > 1)
		fprintf(f, "; %zu processes", res.nprocs);
	fprintf(f, "):\n\n");
	for (size_t i = 0; i < nev; i++)
		fprintf(f, "   %18" PRIu64 "       %-28s %s\n", res.totals[i], evs[i].name,
			strcmp(evs[i].name, evs[i].formula) ? evs[i].formula : "");
	fputc('\n', f);
	rc = res.workload_started ? mp_exit_code(res.workload_status) : 0;
	free(res.totals);
	free(evs);
	return rc;
}

/* What a step of cmd_stat returns to go on (else the exit status). */
#define STAT_GO (-1)

struct stat_opts {
	char *events;  /* -e, repeated ones joined (malloc'd) */
	const char *sep, *outpath, *pmu;
	int pid, all, no_inherit, csv, json, ratios, regions, sim, repeat, interval;
	int nargs;     /* the command: argv[1..nargs] */
	char **argv;
};

/* The counting: its events, the last run's result, -r's running mean and squares of the
 * differences per event and for the wall time (index nev). */
struct stat_run {
	FILE *f;       /* the counts go there: -o FILE, else stderr */
	int made;      /* -o FILE did not exist before: ours to remove on failure */
	struct mp_event *evs;
	size_t nev;
	struct mp_record_result res;
	struct stat_iv iv;
	double *mean, *m2;
	int *any;      /* per event: counted in some run */
	int runs;
};

/* The command line into o, its combinations checked. STAT_GO, or the exit status. */
static int stat_parse_args(int argc, char **argv, struct stat_opts *o)
{
	const struct cli_opt opts[] = {
		{ 'e', "event", CLI_STRLIST, &o->events, "EVENTS",
		  "events to count, comma-separated or repeated (see memprof list)" },
		{ 'a', "all-cpus", CLI_FLAG, &o->all, NULL, "count on every CPU (system-wide)" },
		{ 'p', "pid", CLI_INT, &o->pid, "PID", "attach to a running process until it exits "
						     "or Ctrl-C" },
		{ 'i', "no-inherit", CLI_FLAG, &o->no_inherit, NULL,
		  "do not count new threads and child processes" },
		{ 0, "csv", CLI_FLAG, &o->csv, NULL, "print CSV (event,value,unit,...)" },
		{ 0, "json", CLI_FLAG, &o->json, NULL, "print one JSON document" },
		{ 'x', "field-separator", CLI_STR, &o->sep, "SEP", "CSV with SEP between fields" },
		{ 'o', "output", CLI_STR, &o->outpath, "FILE", "write the counts to FILE" },
		CLI_OPT_PMU(&o->pmu, CLI_PMU_RESOLVE),
		{ 0, "ratios", CLI_FLAG, &o->ratios, NULL,
		  "then the ratios the counts give (IPC, L1D Miss Rate, ...: memprof ratios)" },
		{ 0, "regions", CLI_FLAG, &o->regions, NULL,
		  "count per region of the program's markers (memprof/marker.h): calls, counts "
		  "and ratios per region and thread, and outside any region" },
		{ 'r', "repeat", CLI_INT, &o->repeat, "N",
		  "run the command N times: each count's mean and the spread of the mean (as "
		  "perf stat -r)" },
		{ 'I', "interval-print", CLI_INT, &o->interval, "MS",
		  "print the counts of every MS milliseconds while the target runs (as perf stat "
		  "-I; the last line: up to the end)" },
		{ 0, "sim", CLI_FLAG, &o->sim, NULL,
		  "count under valgrind's cache and branch simulation (record --sim's events; "
		  "exact counts, no PMU)" },
		{ 0 },
	};

	int rc = cli_parse(&cli_cmd_stat, opts, argc, argv, &o->nargs);
	if (rc)
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	o->argv = argv;
	int nargs = o->nargs, pid = o->pid, repeat = o->repeat, interval = o->interval;
	if (o->sep && !*o->sep) {
		cli_error("stat", "-x \"\": the field separator must not be empty");
		return CLI_EXIT_USAGE;
	}
	if (o->sep)
		o->csv = 1;
	else
		o->sep = ",";
	if (o->csv && o->json) {
		cli_error("stat", "give either --csv (-x) or --json, not both");
		return CLI_EXIT_USAGE;
	}
	if (pid < 0) {
		cli_error("stat", "-p %d: not a process id", pid);
		return CLI_EXIT_USAGE;
	}
	if (!nargs && !pid && !o->all) {
		cli_error("stat", "no command to count (see memprof stat --help)");
		return CLI_EXIT_USAGE;
	}
	if (o->regions && !nargs) {
		cli_error("stat", "--regions needs a command (its markers talk to memprof)");
		return CLI_EXIT_USAGE;
	}
	if ((nargs && pid) || (pid && o->all)) {
		cli_error("stat", "give one of a command, -p PID or -a");
		return CLI_EXIT_USAGE;
	}
	if (repeat < 1 || interval < 0) {
		cli_error("stat", repeat < 1 ? "-r %d: not a number of runs" : "-I %d: not a number "
			  "of milliseconds", repeat < 1 ? repeat : interval);
		return CLI_EXIT_USAGE;
	}
	if ((repeat > 1 || interval) &&
	    (o->csv || o->json || o->regions || o->sim || (repeat > 1 && interval))) {
		cli_error("stat", "-r and -I print text (not with each other, --csv, --json, "
			  "--regions or --sim)");
		return CLI_EXIT_USAGE;
	}
	if (repeat > 1 && !nargs) {
		cli_error("stat", "-r needs a command to run again");
		return CLI_EXIT_USAGE;
	}
	if (o->sim && (pid || o->all || o->csv || o->json || o->ratios || o->no_inherit || o->pmu)) {
		cli_error("stat", "--sim runs a command and prints its counts: it takes -e and -o "
			  "only");
		return CLI_EXIT_USAGE;
	}
	return STAT_GO;
}

/* --sim: the counts on stdout, or in the -o file. Returns the exit status. */
static int stat_sim_out(const struct stat_opts *o)
{
	FILE *sf = stdout;
	if (o->outpath && !(sf = fopen(o->outpath, "w"))) {
		cli_error("stat", "%s: cannot create: %s", o->outpath, strerror(errno));
		return 1;
	}
	int rc = stat_sim(o->events, o->argv + 1, sf);
	if (o->outpath && (ferror(sf) | fclose(sf))) {
		cli_error("stat", "%s: cannot write the counts: %s", o->outpath, strerror(errno));
		rc = rc ? rc : 1;
	}
	return rc;
}

/* The events (-e, else the default set) and where the counts go (-o). STAT_GO, or the
 * exit status. */
static int stat_events(const struct stat_opts *o, struct stat_run *r)
{
	struct mp_evopts eo = { 0 };
	struct mp_err err = { 0 };
	eo.count_only = 1;
	eo.pmu_model = o->pmu;
	if (o->events) {
		if (mp_events_parse(o->events, &eo, &r->evs, &r->nev, &err)) {
			r->evs = NULL;
			cli_error("stat", "%s", err.msg);
			return CLI_EXIT_USAGE;
		}
	} else if (default_events(&eo, &r->evs, &r->nev)) {
		cli_error("stat", "the kernel can open none of the default events here");
		return 1;
	}
	struct stat st;
	r->made = o->outpath && lstat(o->outpath, &st) && errno == ENOENT;
	if (o->outpath && !(r->f = fopen(o->outpath, "w"))) {
		cli_error("stat", "%s: cannot create: %s", o->outpath, strerror(errno));
		return 1;
	}
	if (!r->f)
		r->f = stderr; /* like perf stat: stdout stays the workload's */
	return STAT_GO;
}

/* Count: the command run -r times (or the process or system until it ends), -I's lines
 * printed as it goes. STAT_GO, or the exit status (the -o file removed). */
static int stat_measure(const struct stat_opts *o, struct stat_run *r)
{
	struct mp_err err = { 0 };
	struct mp_stat_opts so = { 0 };
	size_t nev = r->nev;
	so.events = r->evs;
	so.nevents = nev;
	so.argv = o->nargs ? o->argv + 1 : NULL;
	so.pid = o->pid;
	so.system_wide = o->all;
	so.no_inherit = o->no_inherit;
	so.stop = &cli_stop_flag;
	so.regions = o->regions;
	r->iv = (struct stat_iv){ r->f, r->evs, nev,
				  calloc(nev + 1, sizeof(struct mp_event_result)), 0, 0 };
	r->mean = calloc(2 * nev + 3, sizeof(double));
	r->m2 = r->mean ? r->mean + nev + 1 : NULL;
	r->any = calloc(nev + 1, sizeof(int));
	if (!r->iv.prev || !r->mean || !r->any) {
		cli_error("stat", "out of memory");
		return 1;
	}
	if (o->interval) {
		so.interval_ns = (uint64_t)o->interval * 1000000u;
		so.interval = stat_iv_cb;
		so.interval_ctx = &r->iv;
	}
	cli_install_stop_handler();
	for (int k = 0; k < o->repeat; k++) {
		if (k) {
			free(r->res.ev);
			mp_regions_free(r->res.regions);
			memset(&r->res, 0, sizeof(r->res));
		}
		if (mp_stat_run(&so, &r->res, &err)) {
			cli_error("stat", "%s", err.msg);
			if (o->outpath) {
				fclose(r->f);
				if (r->made) /* never what was there before */
					remove(o->outpath);
			}
			return r->res.exec_errno ? 127 : 1;
		}
		/* each event's scaled count and the wall time: running mean and squares of the
		 * differences (Welford), for -r's spread */
		r->runs++;
		for (size_t i = 0; i <= nev; i++) {
			double x = i < nev ? scaled_of(&r->res.ev[i]) : (double)r->res.wall_ns;
			if (i < nev)
				r->any[i] |= r->res.ev[i].counts.run > 0;
			double dl = x - r->mean[i];
			r->mean[i] += dl / r->runs;
			r->m2[i] += dl * (x - r->mean[i]);
		}
		if (r->res.workload_started && WIFSIGNALED(r->res.workload_status))
			break; /* Ctrl-C or killed: no more runs */
	}
	return STAT_GO;
}

/* The counts in the form asked for: text (perf stat's), CSV or JSON, then --ratios and
 * --regions. */
static void stat_print(const struct stat_opts *o, struct stat_run *r)
{
	FILE *f = r->f;
	const struct mp_event *evs = r->evs;
	const struct mp_record_result *res = &r->res;
	size_t nev = r->nev;
	int runs = r->runs, csv = o->csv, json = o->json, regions = o->regions;
	const double *mean = r->mean, *m2 = r->m2;
	char cmd[512];
	target_name(cmd, sizeof(cmd), o->nargs, o->argv, o->pid);

	char model[64];
	struct mp_evopts meo = { 0 };
	meo.pmu_model = o->pmu;
	mp_events_host_model(&meo, model, sizeof(model));
	if (o->interval) {
		/* the last interval: from the previous one to the end */
		stat_iv_print(&r->iv, res->wall_ns, res->ev);
		return;
	}
	if (regions && csv) {
		cli_stat_regions(f, res->regions, evs, nev, res->ev, 1, NULL, o->sep, model);
		return;
	}
	struct cli_json j;
	if (json) {
		cli_json_start(&j, f, ": ", ", ", 2);
		cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
		cli_json_string(&j, "command", cmd);
		cli_json_value(&j, "elapsed_ns", "%" PRIu64, res->wall_ns);
		if (res->have_rusage) {
			cli_json_value(&j, "user_ns", "%" PRIu64, res->user_ns);
			cli_json_value(&j, "sys_ns", "%" PRIu64, res->sys_ns);
		}
		if (res->workload_started)
			cli_json_value(&j, "exit_status", "%d", mp_exit_code(res->workload_status));
		cli_json_open(&j, "events", '[', CLI_JSON_LINES);
	} else if (csv) {
		fprintf(f, "event%svalue%sunit%sraw%stime_enabled%stime_running%spercent_running\n",
			o->sep, o->sep, o->sep, o->sep, o->sep, o->sep);
	} else if (runs > 1) {
		fprintf(f, "\n Performance counter stats for '%s' (%d runs):\n\n", cmd, runs);
	} else {
		fprintf(f, "\n Performance counter stats for '%s':\n\n", cmd);
	}
	for (size_t i = 0; i < nev; i++) {
		const struct mp_event_result *e = &res->ev[i];
		int counted = runs > 1 ? r->any[i] : e->counts.run > 0;
		double scaled = counted ? mean[i] : 0;
		double pct = e->counts.ena ? 100.0 * (double)e->counts.run / (double)e->counts.ena : 0;
		int clock = is_clock(&evs[i]);
		char note[64];
		rate_note(evs, mean, r->any, nev, i, mean[nev], note, sizeof(note));
		/* the spread of the mean, in percent of it (perf's stddev_stats) */
		double noise = runs > 1 && mean[i] > 0
				       ? 100.0 * sqrt(m2[i] / (runs - 1) / runs) / mean[i]
				       : -1;
		print_event(f, &evs[i], e, counted, scaled, pct, clock, json ? &j : NULL, csv, o->sep,
			    note, noise);
	}
	if (json) {
		cli_json_close(&j); /* the events */
		if (regions) {
			/* then the regions' members, one a line */
			cli_json_relayout(&j, CLI_JSON_LINES_OPEN);
			cli_stat_regions(f, res->regions, evs, nev, res->ev, 0, &j, o->sep, model);
		}
		cli_json_close(&j);
		fputc('\n', f);
	} else if (!csv && runs > 1) {
		double avg = mean[nev] / 1e9, sd = sqrt(m2[nev] / (runs - 1) / runs) / 1e9;
		int prec = precision_of(sd) + 2;
		fprintf(f, "\n   %18.*f +- %.*f seconds time elapsed  ( +-%6.2f%% )\n\n", prec, avg,
			prec, sd, avg > 0 ? 100.0 * sd / avg : 0.0);
	} else if (!csv) {
		fprintf(f, "\n   %18.6f seconds time elapsed\n\n", (double)res->wall_ns / 1e9);
		if (res->have_rusage)
			fprintf(f, "   %18.6f seconds user\n   %18.6f seconds sys\n\n",
				(double)res->user_ns / 1e9, (double)res->sys_ns / 1e9);
	}
	if (o->ratios && !json && !csv)
		stat_print_ratios(f, evs, res->ev, nev, o->pmu);
	if (regions && !json && !csv)
		cli_stat_regions(f, res->regions, evs, nev, res->ev, 0, NULL, o->sep, model);
}

/* The -o file closed, the command's end said. The exit status: the command's, or 1 when
 * the counts could not be written. */
static int stat_finish(const struct stat_opts *o, struct stat_run *r)
{
	int rc = 0;
	if (o->outpath && (ferror(r->f) | fclose(r->f))) {
		cli_error("stat", "%s: cannot write the counts: %s", o->outpath,
			  strerror(errno ? errno : EIO));
		rc = 1;
	}
	if (r->res.workload_started) {
		if (!rc) /* a lost output fails even when the command succeeded */
			rc = mp_exit_code(r->res.workload_status);
		if (WIFSIGNALED(r->res.workload_status))
			fprintf(stderr, "memprof stat: %s was killed by signal %d (%s)\n", o->argv[1],
				WTERMSIG(r->res.workload_status),
				strsignal(WTERMSIG(r->res.workload_status)));
	}
	return rc;
}

static int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { .repeat = 1 };
	struct stat_run r = { 0 };
	int rc = stat_parse_args(argc, argv, &o);
	if (rc == STAT_GO && o.sim)
		rc = stat_sim_out(&o);
	if (rc == STAT_GO)
		rc = stat_events(&o, &r);
	if (rc == STAT_GO)
		rc = stat_measure(&o, &r);
	if (rc == STAT_GO) {
		stat_print(&o, &r);
		rc = stat_finish(&o, &r);
	}
	mp_regions_free(r.res.regions);
	free(r.res.ev);
	free(r.evs);
	free(r.iv.prev);
	free(r.mean);
	free(r.any);
	free(o.events);
	return rc;
}

const struct cli_cmd cli_cmd_stat = {
	"stat", cmd_stat, "count events of a command, like perf stat / ocount",
	stat_usage,
	stat_summary, 1,
};
