/* cmd_record.c - memprof record: sample events of a command into a perf.data file. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "mp_collector.h"
#include "mp_sim.h"
#include "mp_events.h"

static const char record_usage[] = "[-e EVENTS] [-c COUNT | -F HZ] [-o FILE] [-g | --call-graph MODE] [-a] "
				   "[-p PID] [-i] [-m PAGES] [-q] [-d] [-W] [--alloc] [--data-page-size] [--phys-data] [--] [COMMAND [ARGS...]]";
static const char record_summary[] =
	"Run COMMAND (or attach to -p PID, or watch every CPU with -a) and sample the events\n"
	"into FILE (default memprof.data), a perf.data file that memprof report and perf\n"
	"report read (-o - writes perf's pipe format to standard output). Without -e, records cycles, or cpu-clock where there are no hardware\n"
	"counters. With --sim, simulates the caches and branch predictor instead (valgrind).\n"
	"Exits with the command's status (128+signal when it was killed).";

/* The events to use without -e: cycles where the kernel offers it, else cpu-clock. */
static int default_events(const struct mp_evopts *eo, struct mp_event **evs, size_t *n,
			  int quiet)
{
	struct mp_err err = { 0 };

	if (mp_events_parse("cycles", eo, evs, n, &err) == 0) {
		struct mp_err perr = { 0 };
		if (mp_event_probe(&(*evs)[0], &perr) == 0)
			return 0;
		free(*evs);
		*evs = NULL;
		if (!quiet)
			cli_warn("record", "%s; recording cpu-clock instead",
				 perr.msg[0] ? perr.msg : "event 'cycles': no hardware counters here");
	}
	memset(&err, 0, sizeof(err));
	if (mp_events_parse("cpu-clock", eo, evs, n, &err)) {
		cli_error("record", "%s", err.msg);
		return 1;
	}
	return 0;
}

static void print_summary(const char *out, const struct mp_event *evs, size_t n,
			  const struct mp_record_result *res)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += res->ev[i].samples;
	fprintf(stderr, "[ memprof record: wrote %.3f MB to %s (%llu samples) ]\n",
		(double)res->bytes_written / 1e6, strcmp(out, "-") ? out : "standard output",
		(unsigned long long)total);
	for (size_t i = 0; i < n; i++) {
		const struct mp_event_result *r = &res->ev[i];
		const struct perf_event_attr *a = &evs[i].attr;
		char period[64];
		if (evs[i].leader_sample == MP_LEADER_SAMPLE_MEMBER) {
			/* No samples of its own: its counts come in the leader's (evs[0]). */
			fprintf(stderr,
				"[ memprof record: %s: read through %s's samples, count %llu ]\n",
				evs[i].resolved[0] ? evs[i].resolved : evs[i].spec,
				evs[0].resolved[0] ? evs[0].resolved : evs[0].spec,
				(unsigned long long)r->counts.val);
			continue;
		}
		if (a->freq)
			snprintf(period, sizeof(period), "%llu Hz", (unsigned long long)a->sample_freq);
		else
			snprintf(period, sizeof(period), "every %llu",
				 (unsigned long long)a->sample_period);
		fprintf(stderr,
			"[ memprof record: %s: %llu samples (%s), %llu lost, %llu throttled, "
			"count %llu ]\n",
			evs[i].resolved[0] ? evs[i].resolved : evs[i].spec,
			(unsigned long long)r->samples, period, (unsigned long long)r->lost,
			(unsigned long long)r->throttled, (unsigned long long)r->counts.val);
	}
	if (res->alloc)
		fprintf(stderr, "[ memprof record: --alloc: %llu allocation records from %llu "
			"process images, %llu lost ]\n", (unsigned long long)res->alloc_records,
			(unsigned long long)res->alloc_images, (unsigned long long)res->alloc_lost);
	if (res->lost_total)
		fprintf(stderr,
			"[ memprof record: WARNING: %llu samples lost: use a larger -m or a larger "
			"-c ]\n",
			(unsigned long long)res->lost_total);
}

/* A long simulation says it is still going (valgrind runs programs 20-100 times slower). */
static void sim_progress(void *ctx, unsigned seconds)
{
	(void)ctx;
	fprintf(stderr, "[ memprof record --sim: simulating for %u s (valgrind runs programs "
		"20 to 100 times slower than natively) ]\n", seconds);
}

/* memprof record --sim: the workload runs under valgrind's cache and branch simulation
 * (sim/mp_sim.c); see docs/memprof-record-sim.md. */
static int record_sim(const char *events, const char *i1, const char *d1, const char *ll,
		      const char *keep, const char *output, int quiet, int callgraph, char **argv,
		      int all_argc, char **all_argv, const char *engine, int cores,
		      const char *tool_opts, uint64_t mem_period, int allocs)
{
	struct mp_sim_event *evs = NULL;
	size_t nev = 0;
	struct mp_sim_opts so = { 0 };
	struct mp_sim_result res = { 0 };
	struct mp_err err = { 0 }, warn = { 0 };
	const char *const geo_val[3] = { i1, d1, ll };
	static const char *const geo_opt[3] = { "--I1", "--D1", "--LL" };
	struct mp_sim_cache geo;
	int rc;

	/* A bad --I1/--D1/--LL is a usage error (2); the rest of the setup fails at run time. */
	for (int k = 0; k < 3; k++)
		if (geo_val[k] && mp_sim_parse_cache(geo_opt[k], geo_val[k], &geo, &err)) {
			cli_error("record", "%s", err.msg);
			return CLI_EXIT_USAGE;
		}
	if (engine && strcmp(engine, "mpsim") && strcmp(engine, "callgrind")) {
		cli_error("record", "--sim-engine: '%s' is neither mpsim nor callgrind", engine);
		return CLI_EXIT_USAGE;
	}
	if (cores < 0 || cores > 256) {
		cli_error("record", "--sim-cores: %d is not between 1 and 256", cores);
		return CLI_EXIT_USAGE;
	}
	so.engine = !engine ? MP_SIM_ENGINE_AUTO
		    : !strcmp(engine, "mpsim") ? MP_SIM_ENGINE_MPSIM : MP_SIM_ENGINE_CALLGRIND;
	so.cores = (unsigned)cores;
	if (tool_opts && engine && !strcmp(engine, "callgrind")) {
		cli_error("record", "--sim-tool-opts are mpsim's options: not with --sim-engine=callgrind");
		return CLI_EXIT_USAGE;
	}
	if (tool_opts && strlen(tool_opts) >= 1000) {
		cli_error("record", "--sim-tool-opts: longer than 1000 characters");
		return CLI_EXIT_USAGE;
	}
	so.tool_opts = tool_opts;
	so.mem_period = mem_period;
	so.allocs = allocs;
	/* without -e: everything the simulator that will run counts */
	char tool[4096];
	if (!events && so.engine != MP_SIM_ENGINE_CALLGRIND && !callgraph &&
	    !mp_sim_tool_path(tool, sizeof(tool)))
		events = MP_SIM_DEFAULT_EVENTS_MPSIM;
	rc = mp_sim_setup(events, i1, d1, ll, NULL, &evs, &nev, &so.geom, &warn, &err);
	if (rc) {
		cli_error("record", "%s", err.msg);
		return 1;
	}
	if (warn.msg[0] && !quiet)
		cli_warn("record", "%s", warn.msg);
	so.events = evs;
	so.nevents = nev;
	so.output = output;
	so.argv = argv;
	so.keep_callgrind = keep;
	so.callgraph = callgraph;
	so.quiet = quiet;
	so.stop = &cli_stop_flag;
	if (!quiet) {
		/* every 10 s (MEMPROF_SIM_PROGRESS=SECONDS to change, 0 for never) */
		const char *pe = getenv("MEMPROF_SIM_PROGRESS");
		so.progress = sim_progress;
		so.progress_every = pe ? (unsigned)atoi(pe) : 10;
	}
	so.argc_all = all_argc;
	so.argv_all = all_argv;
	cli_install_stop_handler();
	rc = mp_sim_record(&so, &res, &err);
	if (rc) {
		cli_error("record", "%s", err.msg);
		rc = res.workload_started ? mp_exit_code(res.workload_status)
		     : (rc == -ENOENT || rc == -EACCES) ? 127 : 1;
		free(res.totals);
		free(evs);
		return rc ? rc : 1;
	}
	if (!quiet) {
		const struct mp_sim_cache *c[3] = { &so.geom.i1, &so.geom.d1, &so.geom.ll };
		static const char *const cn[3] = { "I1", "D1", "LL" };
		fprintf(stderr, "[ memprof record: SIMULATED by valgrind's %s: wrote %s "
			"(%llu samples, exact counts); caches", res.engine,
			strcmp(output, "-") ? output : "standard output", (unsigned long long)res.samples);
		for (int k = 0; k < 3; k++)
			if (c[k]->size)
				fprintf(stderr, " %s %llu,%u,%u", cn[k], (unsigned long long)c[k]->size,
					c[k]->assoc, c[k]->line);
			else
				fprintf(stderr, " %s valgrind's choice", cn[k]);
		if (so.geom.source[0])
			fprintf(stderr, " (from %s)", so.geom.source);
		const char *l3 = tool_opts ? strstr(tool_opts, "--L3=") : NULL;
		if (l3)
			fprintf(stderr, "; L3 %.*s shared by the cores", (int)strcspn(l3 + 5, " "),
				l3 + 5);
		fprintf(stderr, " ]\n");
		if (res.nprocs > 1)
			fprintf(stderr, "[ memprof record: simulated %zu processes (the workload and "
				"its children): %s ]\n", res.nprocs, res.procs);
		for (size_t i = 0; i < nev; i++)
			fprintf(stderr, "[ memprof record: %s = %s: %llu ]\n", evs[i].name,
				evs[i].formula, (unsigned long long)res.totals[i]);
		if (mem_period)
			fprintf(stderr, "[ memprof record: memory samples every %llu loads and stores "
				"(cpu/mem-loads,ldlat=0/P of %llu loads, cpu/mem-stores/P of %llu "
				"stores) ]\n", (unsigned long long)mem_period,
				(unsigned long long)res.totals[nev],
				(unsigned long long)res.totals[nev + 1]);
	}
	rc = mp_exit_code(res.workload_status);
	if (rc && !quiet)
		fprintf(stderr, "[ memprof record: %s exited with status %d ]\n", argv[0], rc);
	free(res.totals);
	free(evs);
	return rc;
}

struct rec_opts {
	char *events;
	const char *output, *pmu, *clockid;
	uint64_t count;
	int freq, pid, all, callgraph, no_inherit, pages, quiet, regions, regions_only, alloc;
	int switch_events;
	int data_addr, weight, data_page_size, phys_data, sample_cpu; /* perf's -d -W ... */
	uint32_t cg_stack_size;
	int nargs;
	char **argv;    /* argv + 1: the workload, NULL-terminated */
	int all_argc;   /* memprof's own command line, for the file header */
	char **all_argv;
};

/* -k CLOCK as perf's: a clock's name (its CLOCK_ prefix optional, any case) or number. */
static int parse_clockid(const char *s, int *id)
{
	static const struct {
		const char *name;
		int id;
	} clocks[] = { { "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
		       { "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "realtime", CLOCK_REALTIME },
		       { "real", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME },
		       { "tai", CLOCK_TAI } };
	const char *n = strncasecmp(s, "CLOCK_", 6) ? s : s + 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(n, clocks[i].name)) {
			*id = clocks[i].id;
			return 0;
		}
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0 && v <= 15) {
		*id = (int)v;
		return 0;
	}
	cli_error("record", "-k %s: unknown clock (monotonic, monotonic_raw, realtime, boottime, "
		  "tai, or a number)", s);
	return -1;
}

/* memprof record on the PMU (or software events): parse, run, summarize. */
static int record_hw(const struct rec_opts *o)
{
	struct mp_evopts eo = { 0 };
	struct mp_event *evs = NULL;
	size_t nev = 0;
	struct mp_err err = { 0 };
	eo.default_count = o->count;
	eo.freq_hz = (unsigned)o->freq;
	eo.pmu_model = o->pmu;
	if (o->events) {
		if (mp_events_parse(o->events, &eo, &evs, &nev, &err)) {
			cli_error("record", "%s", err.msg);
			return CLI_EXIT_USAGE;
		}
	} else if (default_events(&eo, &evs, &nev, o->quiet)) {
		return 1;
	}

	struct mp_record_opts ro = { 0 };
	struct mp_record_result res = { 0 };
	int rc;
	if (nev && evs[0].leader_sample && !o->no_inherit && !o->all && !o->quiet)
		cli_warn("record",
			 "leader sampling (:S): child processes and new threads are not followed "
			 "(the kernel refuses PERF_SAMPLE_READ on inherited counters)");
	ro.events = evs;
	ro.nevents = nev;
	ro.output = o->output;
	ro.argv = o->nargs ? o->argv : NULL;
	ro.pid = o->pid;
	ro.system_wide = o->all;
	/* report --off-cpu ends a thread's off-CPU time where it is switched in again: the
	 * switch records say when, sched_switch samples only say it of the thread switched
	 * out (in a -a recording also of the one switched in) */
	ro.switch_events = o->switch_events;
	for (size_t i = 0; i < nev; i++)
		ro.switch_events |= evs[i].attr.type == PERF_TYPE_TRACEPOINT &&
				    !strcmp(evs[i].resolved, "sched:sched_switch");
	ro.callgraph = o->callgraph;
	ro.cg_stack_size = o->cg_stack_size;
	ro.no_inherit = o->no_inherit;
	ro.mmap_pages = (unsigned)o->pages;
	ro.quiet = o->quiet;
	ro.stop = &cli_stop_flag;
	ro.argc_all = o->all_argc;
	ro.argv_all = o->all_argv;
	ro.evopts = &eo;
	ro.regions = o->regions;
	ro.regions_only = o->regions_only;
	ro.alloc = o->alloc;
	ro.use_clockid = o->clockid != NULL;
	if (o->clockid && parse_clockid(o->clockid, &ro.clockid))
		return CLI_EXIT_USAGE;
	ro.sample_mem = (o->data_addr ? PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC : 0) |
			(o->weight ? PERF_SAMPLE_WEIGHT_STRUCT : 0) |
			(o->data_page_size ? PERF_SAMPLE_DATA_PAGE_SIZE : 0) |
			(o->phys_data ? PERF_SAMPLE_PHYS_ADDR : 0) |
			(o->sample_cpu ? PERF_SAMPLE_CPU : 0);
	/* memprof opens all the events of a run as one group; a '{...}' list says so in the
	 * file, for perf report's group view */
	ro.group = o->events && strchr(o->events, '{') && nev > 1 && !evs[0].leader_sample;
	char *bdir = cli_buildid_dir(NULL);
	ro.buildid_dir = bdir;
	cli_install_stop_handler();
	memset(&err, 0, sizeof(err));
	if (mp_record_run(&ro, &res, &err)) {
		cli_error("record", "%s", err.msg);
		rc = res.exec_errno ? 127 : 1;
		/* the workload's status, unless it succeeded: a lost recording is a failure */
		if (res.workload_started && mp_exit_code(res.workload_status))
			rc = mp_exit_code(res.workload_status);
		free(res.ev);
		free(evs);
		free(bdir);
		return rc;
	}
	if (!o->quiet)
		print_summary(o->output, evs, nev, &res);
	rc = 0;
	if (res.workload_started) {
		int st = res.workload_status;
		rc = mp_exit_code(st);
		if (WIFSIGNALED(st) && !o->quiet)
			fprintf(stderr, "[ memprof record: %s was killed by signal %d (%s) ]\n",
				o->argv[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (rc && !o->quiet)
			fprintf(stderr, "[ memprof record: %s exited with status %d ]\n", o->argv[0], rc);
	}
	free(res.ev);
	free(evs);
	free(bdir);
	return rc;
}

static int cmd_record(int argc, char **argv)
{
	/* -c and -F start at "not given" so that -c 0 and -F 0 can be refused. */
	struct rec_opts o = { .output = "memprof.data", .count = UINT64_MAX, .freq = INT_MIN };
	int rc;
	int sim = 0;
	const char *sim_i1 = NULL, *sim_d1 = NULL, *sim_ll = NULL, *sim_keep = NULL, *sim_l3 = NULL;
	const char *sim_engine = NULL;
	int sim_cores = 0;
	const char *sim_tool_opts = NULL;
	int sim_alloc = 0;
	const char *cg_mode = NULL;
	const struct cli_opt opts[] = {
		{ 'e', "event", CLI_STRLIST, &o.events, "EVENTS",
		  "events to sample, comma-separated or repeated (see memprof list)" },
		{ 'c', "count", CLI_U64, &o.count, "COUNT",
		  "sample every COUNT events (default per kind, see memprof-record(1))" },
		{ 'F', "freq", CLI_INT, &o.freq, "HZ", "sample HZ times a second instead" },
		{ 'k', "clockid", CLI_STR, &o.clockid, "CLOCK",
		  "sample times on CLOCK, as perf -k: monotonic (a JIT's jitdump times, for "
		  "memprof inject --jit), monotonic_raw, realtime, boottime, tai or its number" },
		{ 'o', "output", CLI_STR, &o.output, "FILE",
		  "output file (default memprof.data); - writes perf's pipe format to standard "
		  "output (the command's own output then goes to standard error)" },
		{ 'g', NULL, CLI_FLAG, &o.callgraph, NULL,
		  "record call chains (frame pointers: --call-graph fp; with --sim, callgrind's call "
		  "graph)" },
		{ 0, "call-graph", CLI_STR, &cg_mode, "MODE",
		  "record call chains: fp (frame pointers), dwarf[,SIZE] (registers and SIZE bytes "
		  "of user stack, default 8192, unwound with libdw when read) or lbr (the LBR call stack), as "
		  "perf" },
		{ 'a', "all-cpus", CLI_FLAG, &o.all, NULL, "sample every CPU (system-wide)" },
		{ 0, "switch-events", CLI_FLAG, &o.switch_events, NULL,
		  "record when each thread is switched in and out (PERF_RECORD_SWITCH, as perf; on "
		  "by itself with -e sched:sched_switch, for report --off-cpu)" },
		{ 'p', "pid", CLI_INT, &o.pid, "PID", "attach to a running process" },
		{ 'i', "no-inherit", CLI_FLAG, &o.no_inherit, NULL,
		  "do not follow new threads and child processes" },
		{ 'm', "mmap-pages", CLI_INT, &o.pages, "PAGES",
		  "ring buffer size per CPU in pages, a power of two (default 512 as root, else "
		  "128)" },
		{ 'q', "quiet", CLI_FLAG, &o.quiet, NULL, "print no summary" },
		{ 0, "regions", CLI_FLAG, &o.regions, NULL,
		  "store the regions of the program's markers (memprof/marker.h) and their begin/end "
		  "times with the samples (memprof-record(1))" },
		{ 0, "regions-only", CLI_FLAG, &o.regions_only, NULL,
		  "sample only while a region is open (implies --regions; perf's -D -1 with "
		  "enable/disable)" },
		{ 0, "alloc", CLI_FLAG, &o.alloc, NULL,
		  "track the command's heap: malloc, free and the rest, and mmap/munmap, with their "
		  "call chains, in every thread and child (a preloaded library; report --sort alloc "
		  "names the allocation a sample's data address fell in)" },
		{ 'd', "data", CLI_FLAG, &o.data_addr, NULL,
		  "record the data address and data source of each sample (perf's "
		  "PERF_SAMPLE_ADDR and DATA_SRC; with -e page-faults, the faulting address)" },
		{ 'W', "weight", CLI_FLAG, &o.weight, NULL,
		  "record each sample's weight (the load latency of precise memory events; "
		  "WEIGHT_STRUCT, or the 64-bit WEIGHT on kernels without it)" },
		{ 0, "data-page-size", CLI_FLAG, &o.data_page_size, NULL,
		  "record the size of the page of each sample's data address" },
		{ 0, "phys-data", CLI_FLAG, &o.phys_data, NULL,
		  "record the physical address of each sample's data (privileged)" },
		{ 0, "sample-cpu", CLI_FLAG, &o.sample_cpu, NULL,
		  "record the CPU of each sample (memprof always does; for perf's command lines)" },
		CLI_OPT_PMU(&o.pmu, CLI_PMU_RESOLVE),
		{ 0, "sim", CLI_FLAG, &sim, NULL,
		  "simulate caches and branches with valgrind (no PMU needed; exact counts)" },
		{ 0, "I1", CLI_STR, &sim_i1, "SIZE,ASSOC,LINE", "--sim: L1i cache (default: this CPU's)" },
		{ 0, "D1", CLI_STR, &sim_d1, "SIZE,ASSOC,LINE", "--sim: L1d cache (default: this CPU's)" },
		{ 0, "LL", CLI_STR, &sim_ll, "SIZE,ASSOC,LINE",
		  "--sim: last level (default: this CPU's L2)" },
		{ 0, "L3", CLI_STR, &sim_l3, "SIZE,ASSOC,LINE|host",
		  "--sim: an L3 the simulated cores share, behind their L2 (mpsim; default none; "
		  "host: this CPU's, from sysfs)" },
		{ 0, "callgrind-out", CLI_STR, &sim_keep, "FILE",
		  "--sim: keep the counts per instruction in FILE (callgrind's format)" },
		{ 0, "sim-engine", CLI_STR, &sim_engine, "NAME",
		  "--sim: mpsim (memprof's valgrind tool, the default when installed) or callgrind "
		  "(the cross-check; -g uses it)" },
		{ 0, "sim-cores", CLI_INT, &sim_cores, "N",
		  "--sim: simulated cores, each with its own L1i, L1d and L2 (default: this "
		  "machine's CPUs)" },
		{ 0, "sim-tool-opts", CLI_STR, &sim_tool_opts, "OPTIONS",
		  "--sim: more options for mpsim, separated by spaces (--itlb, --dtlb, --stlb, "
		  "--page-size, --latency, --sw-prefetch=no, --quantum, --L3, --l3-latency, "
		  "--simd=no, --turns=no; "
		  "memprof-record(1))" },
		{ 0, "sim-alloc", CLI_FLAG, &sim_alloc, NULL,
		  "--sim: track malloc, calloc, realloc, memalign, free, new and delete with their "
		  "call sites (mpsim; their own instructions are then not simulated)" },
		{ 0 },
	};

	/* Keep memprof's own command line for the file header before cli_parse reorders. */
	o.all_argv = calloc((size_t)argc + 2, sizeof(*o.all_argv));
	if (!o.all_argv) {
		cli_error("record", "out of memory");
		return 1;
	}
	o.all_argv[0] = "memprof";
	for (int i = 0; i < argc; i++)
		o.all_argv[i + 1] = argv[i];
	o.all_argc = argc + 1;

	rc = cli_parse(&cli_cmd_record, opts, argc, argv, &o.nargs);
	if (rc) {
		free(o.events);
		free(o.all_argv);
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	}
	rc = CLI_EXIT_USAGE;
	if (o.count != UINT64_MAX && o.freq != INT_MIN) {
		cli_error("record", "give either -c COUNT or -F HZ, not both");
		goto out;
	}
	if (o.count == 0 || o.freq == 0) {
		cli_error("record", "%s 0: %s", o.count == 0 ? "-c" : "-F",
			  o.count == 0 ? "the sample period must be 1 or more"
				       : "the sample frequency must be 1 Hz or more");
		goto out;
	}
	if (o.count == UINT64_MAX)
		o.count = 0;
	if (o.freq == INT_MIN)
		o.freq = 0;
	if (o.freq < 0 || o.pages < 0 || o.pid < 0) {
		cli_error("record", "%s must not be negative", o.freq < 0 ? "-F" : o.pages < 0 ? "-m" : "-p");
		goto out;
	}
	if ((o.regions || o.regions_only) && (!o.nargs || sim)) {
		cli_error("record", "--regions%s needs a command to run, without --sim",
			  o.regions_only ? "-only" : "");
		goto out;
	}
	if (o.clockid && (o.regions || o.regions_only || o.alloc)) {
		int id = -1;
		if (parse_clockid(o.clockid, &id))
			goto out;
		if (id != CLOCK_MONOTONIC) {
			cli_error("record", "-k %s: --regions and --alloc time their records on the "
				  "monotonic clock (-k monotonic)", o.clockid);
			goto out;
		}
	}
	if (o.alloc && !o.nargs) {
		cli_error("record", "--alloc needs a command to run (its library is preloaded into "
			  "it): not with -p or -a");
		goto out;
	}
	/* under --sim the simulator tracks the heap and writes the same allocation records */
	if (o.alloc && sim) {
		sim_alloc = 1;
		o.alloc = 0;
	}
	if (o.pages & (o.pages - 1)) {
		cli_error("record", "-m %d: the ring size must be a power of two pages", o.pages);
		goto out;
	}
	if (!strcmp(o.output, "-") && isatty(STDOUT_FILENO)) {
		cli_error("record", "-o -: standard output is a terminal; pipe it to a reader "
			  "(memprof record -o - ... | memprof report -i -) or a file");
		goto out;
	}
	if (!o.nargs && !o.pid && !o.all) {
		cli_error("record", "no command to record (see memprof record --help)");
		goto out;
	}
	if (o.nargs && o.pid) {
		cli_error("record", "give either -p PID or a command, not both");
		goto out;
	}
	if (o.pid && o.all) {
		cli_error("record", "give either -p PID or -a, not both");
		goto out;
	}
	if (cg_mode) {
		struct mp_err cerr = { 0 };
		if (mp_callgraph_parse(cg_mode, &o.callgraph, &o.cg_stack_size, &cerr)) {
			cli_error("record", "%s", cerr.msg);
			goto out;
		}
	}
	if (!sim && (sim_i1 || sim_d1 || sim_ll || sim_l3 || sim_keep || sim_engine || sim_cores ||
		     sim_tool_opts || sim_alloc)) {
		cli_error("record", "--I1, --D1, --LL, --L3, --callgrind-out, --sim-engine, "
			  "--sim-cores, --sim-tool-opts and --sim-alloc go with --sim");
		goto out;
	}
	/* --L3 is mpsim's --L3=SIZE,ASSOC,LINE among its options */
	static char l3opts[1100];
	if (sim && sim_l3) {
		struct mp_sim_cache l3;
		struct mp_err lerr = { 0 };
		if (sim_engine && !strcmp(sim_engine, "callgrind")) {
			cli_error("record", "--L3: the L3 the cores share is mpsim's, not callgrind's");
			goto out;
		}
		if (!strcmp(sim_l3, "host") ? mp_sim_host_l3(NULL, &l3, &lerr)
					    : mp_sim_parse_cache("--L3", sim_l3, &l3, &lerr)) {
			cli_error("record", "%s", lerr.msg);
			goto out;
		}
		snprintf(l3opts, sizeof(l3opts), "%s%s--L3=%llu,%u,%u",
			 sim_tool_opts ? sim_tool_opts : "", sim_tool_opts ? " " : "",
			 (unsigned long long)l3.size, l3.assoc, l3.line);
		sim_tool_opts = l3opts;
	}
	if (sim && (o.pid || o.all || o.freq)) {
		cli_error("record", "--sim runs a command under valgrind: -p, -a and -F do not apply");
		goto out;
	}
	if (sim && o.count && !o.data_addr) {
		cli_error("record", "--sim: -c %llu sets the period of memory samples: with -d (the "
			  "counts per instruction are exact)", (unsigned long long)o.count);
		goto out;
	}
	if (sim && (o.data_page_size || o.phys_data)) {
		cli_error("record", "--sim: --data-page-size and --phys-data are the kernel's; the "
			  "simulator does not write them");
		goto out;
	}
	if (sim && o.weight && !o.data_addr) {
		cli_error("record", "--sim: -W goes with -d (the memory samples carry the latency "
			  "model's cycles)");
		goto out;
	}
	if (sim && o.callgraph && o.callgraph != MP_CG_FP) {
		cli_error("record", "--sim: the call chains come from callgrind's call graph: use -g");
		goto out;
	}
	if (sim) {
		rc = record_sim(o.events, sim_i1, sim_d1, sim_ll, sim_keep, o.output, o.quiet,
				o.callgraph, argv + 1,
				o.all_argc, o.all_argv, sim_engine, sim_cores, sim_tool_opts,
				o.data_addr ? (o.count ? o.count : MP_SIM_MEM_PERIOD) : 0, sim_alloc);
		goto out;
	}

	o.argv = argv + 1;
	rc = record_hw(&o);
out:
	free(o.events);
	free(o.all_argv);
	return rc;
}

const struct cli_cmd cli_cmd_record = {
	"record", cmd_record, "sample events of a command into memprof.data (perf.data format)",
	record_usage,
	record_summary, 1,
};
