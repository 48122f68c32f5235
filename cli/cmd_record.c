/* cmd_record.c - memprof record: sample events of a command into a perf.data file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "mp_collector.h"
#include "mp_sim.h"
#include "mp_events.h"

static const char record_usage[] = "[-e EVENTS] [-c COUNT | -F HZ] [-o FILE] [-g] [-a] "
				   "[-p PID] [-i] [-m PAGES] [-q] [--] [COMMAND [ARGS...]]";
static const char record_summary[] =
	"Run COMMAND (or attach to -p PID, or watch every CPU with -a) and sample the events\n"
	"into FILE (default memprof.data), a perf.data file that memprof report and perf\n"
	"report read. Without -e, records cycles, or cpu-clock where there are no hardware\n"
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
		(double)res->bytes_written / 1e6, out, (unsigned long long)total);
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
				(unsigned long long)r->value);
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
			(unsigned long long)r->throttled, (unsigned long long)r->value);
	}
	if (res->lost_total)
		fprintf(stderr,
			"[ memprof record: WARNING: %llu samples lost: use a larger -m or a larger "
			"-c ]\n",
			(unsigned long long)res->lost_total);
}

/* memprof record --sim: the workload runs under valgrind's cache and branch simulation
 * (sim/mp_sim.c); see docs/memprof-record-sim.md. */
static int record_sim(const char *events, const char *i1, const char *d1, const char *ll,
		      const char *keep, const char *output, int quiet, char **argv,
		      int all_argc, char **all_argv)
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
			return 2;
		}
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
	so.quiet = quiet;
	so.stop = &cli_stop_flag;
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
		fprintf(stderr, "[ memprof record: SIMULATED by valgrind's callgrind: wrote %s "
			"(%llu samples, exact counts); caches", output,
			(unsigned long long)res.samples);
		for (int k = 0; k < 3; k++)
			if (c[k]->size)
				fprintf(stderr, " %s %llu,%u,%u", cn[k], (unsigned long long)c[k]->size,
					c[k]->assoc, c[k]->line);
			else
				fprintf(stderr, " %s valgrind's choice", cn[k]);
		if (so.geom.source[0])
			fprintf(stderr, " (from %s)", so.geom.source);
		fprintf(stderr, " ]\n");
		for (size_t i = 0; i < nev; i++)
			fprintf(stderr, "[ memprof record: %s = %s: %llu ]\n", evs[i].name,
				evs[i].formula, (unsigned long long)res.totals[i]);
	}
	rc = mp_exit_code(res.workload_status);
	if (rc && !quiet)
		fprintf(stderr, "[ memprof record: %s exited with status %d ]\n", argv[0], rc);
	free(res.totals);
	free(evs);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	char *events = NULL;
	const char *output = "memprof.data", *pmu = NULL;
	uint64_t count = 0;
	int freq = 0, pid = 0, all = 0, callgraph = 0, no_inherit = 0, pages = 0, quiet = 0;
	int nargs, rc;
	int sim = 0;
	const char *sim_i1 = NULL, *sim_d1 = NULL, *sim_ll = NULL, *sim_keep = NULL;
	char **all_argv;
	int all_argc = argc;
	const struct cli_opt opts[] = {
		{ 'e', "event", CLI_STRLIST, &events, "EVENTS",
		  "events to sample, comma-separated or repeated (see memprof list)" },
		{ 'c', "count", CLI_U64, &count, "COUNT",
		  "sample every COUNT events (default per kind, see memprof-record(1))" },
		{ 'F', "freq", CLI_INT, &freq, "HZ", "sample HZ times a second instead" },
		{ 'o', "output", CLI_STR, &output, "FILE", "output file (default memprof.data)" },
		{ 'g', "call-graph", CLI_FLAG, &callgraph, NULL, "record call chains" },
		{ 'a', "all-cpus", CLI_FLAG, &all, NULL, "sample every CPU (system-wide)" },
		{ 'p', "pid", CLI_INT, &pid, "PID", "attach to a running process" },
		{ 'i', "no-inherit", CLI_FLAG, &no_inherit, NULL,
		  "do not follow new threads and child processes" },
		{ 'm', "mmap-pages", CLI_INT, &pages, "PAGES",
		  "ring buffer size per CPU in pages, a power of two (default 512 as root, else "
		  "128)" },
		{ 'q', "quiet", CLI_FLAG, &quiet, NULL, "print no summary" },
		CLI_OPT_PMU(&pmu, CLI_PMU_RESOLVE),
		{ 0, "sim", CLI_FLAG, &sim, NULL,
		  "simulate caches and branches with valgrind (no PMU needed; exact counts)" },
		{ 0, "I1", CLI_STR, &sim_i1, "SIZE,ASSOC,LINE", "--sim: L1i cache (default: this CPU's)" },
		{ 0, "D1", CLI_STR, &sim_d1, "SIZE,ASSOC,LINE", "--sim: L1d cache (default: this CPU's)" },
		{ 0, "LL", CLI_STR, &sim_ll, "SIZE,ASSOC,LINE",
		  "--sim: last level (default: this CPU's L2)" },
		{ 0, "callgrind-out", CLI_STR, &sim_keep, "FILE", "--sim: keep callgrind's output in FILE" },
		{ 0 },
	};

	/* Keep memprof's own command line for the file header before cli_parse reorders. */
	all_argv = calloc((size_t)argc + 2, sizeof(*all_argv));
	if (!all_argv) {
		cli_error("record", "out of memory");
		return 1;
	}
	all_argv[0] = "memprof";
	for (int i = 0; i < argc; i++)
		all_argv[i + 1] = argv[i];
	all_argc = argc + 1;

	rc = cli_parse("record", record_usage, record_summary, opts, argc, argv, 1, &nargs);
	if (rc) {
		free(events);
		free(all_argv);
		return rc == 1 ? 0 : 2;
	}
	rc = 2;
	if (freq < 0 || pages < 0 || pid < 0) {
		cli_error("record", "%s must not be negative", freq < 0 ? "-F" : pages < 0 ? "-m" : "-p");
		goto out;
	}
	if (pages & (pages - 1)) {
		cli_error("record", "-m %d: the ring size must be a power of two pages", pages);
		goto out;
	}
	if (!nargs && !pid && !all) {
		cli_error("record", "no command to record (see memprof record --help)");
		goto out;
	}
	if (nargs && pid) {
		cli_error("record", "give either -p PID or a command, not both");
		goto out;
	}
	if (pid && all) {
		cli_error("record", "give either -p PID or -a, not both");
		goto out;
	}
	if (!sim && (sim_i1 || sim_d1 || sim_ll || sim_keep)) {
		cli_error("record", "--I1, --D1, --LL and --callgrind-out go with --sim");
		goto out;
	}
	if (sim && (pid || all || callgraph || count || freq)) {
		cli_error("record", "--sim runs a command under valgrind: -p, -a, -g, -c and -F do not apply");
		goto out;
	}
	if (sim) {
		rc = record_sim(events, sim_i1, sim_d1, sim_ll, sim_keep, output, quiet, argv + 1,
				all_argc, all_argv);
		goto out;
	}

	struct mp_evopts eo = { 0 };
	struct mp_event *evs = NULL;
	size_t nev = 0;
	struct mp_err err = { 0 };
	eo.default_count = count;
	eo.freq_hz = (unsigned)freq;
	eo.pmu_model = pmu;
	if (events) {
		if (mp_events_parse(events, &eo, &evs, &nev, &err)) {
			cli_error("record", "%s", err.msg);
			goto out;
		}
	} else if (default_events(&eo, &evs, &nev, quiet)) {
		rc = 1;
		goto out;
	}

	struct mp_record_opts ro = { 0 };
	struct mp_record_result res = { 0 };
	if (nev && evs[0].leader_sample && !no_inherit && !all && !quiet)
		cli_warn("record",
			 "leader sampling (:S): child processes and new threads are not followed "
			 "(the kernel refuses PERF_SAMPLE_READ on inherited counters)");
	ro.events = evs;
	ro.nevents = nev;
	ro.output = output;
	ro.argv = nargs ? argv + 1 : NULL;
	ro.pid = pid;
	ro.system_wide = all;
	ro.callgraph = callgraph;
	ro.no_inherit = no_inherit;
	ro.mmap_pages = (unsigned)pages;
	ro.quiet = quiet;
	ro.stop = &cli_stop_flag;
	ro.argc_all = all_argc;
	ro.argv_all = all_argv;
	ro.evopts = &eo;
	cli_install_stop_handler();
	memset(&err, 0, sizeof(err));
	int r = mp_record_run(&ro, &res, &err);
	if (r) {
		cli_error("record", "%s", err.msg);
		rc = res.exec_errno ? 127 : 1;
		if (res.workload_started)
			rc = mp_exit_code(res.workload_status);
		free(res.ev);
		free(evs);
		goto out;
	}
	if (!quiet)
		print_summary(output, evs, nev, &res);
	rc = 0;
	if (res.workload_started) {
		int st = res.workload_status;
		rc = mp_exit_code(st);
		if (WIFSIGNALED(st) && !quiet)
			fprintf(stderr, "[ memprof record: %s was killed by signal %d (%s) ]\n",
				argv[1], WTERMSIG(st), strsignal(WTERMSIG(st)));
		else if (rc && !quiet)
			fprintf(stderr, "[ memprof record: %s exited with status %d ]\n", argv[1], rc);
	}
	free(res.ev);
	free(evs);
out:
	free(events);
	free(all_argv);
	return rc;
}
