/* cmd_mem.c - memprof mem record / mem report, as perf mem: the precise memory events of
 * the host's PMU (events/mem_events.tsv: Intel PEBS load latency and precise stores,
 * hybrid cpu_core/cpu_atom, AMD IBS op, Arm SPE) recorded with data addresses, weights and
 * page sizes, and the report in memory mode. Where the machine has none, one line says
 * which PMU is missing and what to record instead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_events.h"

#define CMD "mem"
#define MEM_MAX_ROWS 8

static const char mem_usage[] =
	"record [-t load|store|load,store] [--ldlat N] [-e list] [RECORD OPTIONS] [--] COMMAND "
	"| report [REPORT OPTIONS]";
static const char mem_summary[] =
	"record: sample the precise memory events of this machine's PMU (Intel PEBS load\n"
	"latency and precise stores, hybrid cpu_core/cpu_atom, AMD IBS op with -a, as perf mem)\n"
	"with data addresses, weights and page sizes (memprof record -d -W --data-page-size);\n"
	"-e list names them and whether the kernel offers them. report: memprof report\n"
	"--mem-mode. Without such events (VMs), record page faults with -d or use --sim.";

static int mem_help(FILE *f)
{
	fprintf(f, "usage: memprof %s %s\n\n%s\n\n", CMD, mem_usage, mem_summary);
	fprintf(f, "record options:\n"
		   "  -t, --type OPS      load, store or load,store (default load,store)\n"
		   "      --ldlat N       load-latency threshold in cycles (default 30)\n"
		   "  -e list             the events per operation, their encodings, and whether\n"
		   "                      the kernel offers them\n"
		   "      --alloc         track the command's heap (memprof record --alloc): mem\n"
		   "                      report --sort alloc,type names a sample's heap object\n"
		   "  other options go to memprof record (-o FILE, -a, -c COUNT, -g, ...)\n"
		   "\nSee memprof-mem(1).\n");
	return 0;
}

/* The events of op for this host: *n rows, the chosen ones (PMU present) first. */
static size_t op_rows(const struct mp_evopts *eo, const char *model, const char *op,
		      unsigned ldlat, struct mp_memev *rows)
{
	return mp_memev_rows(eo, model, op, ldlat, rows, MEM_MAX_ROWS);
}

static int mem_list(const struct mp_evopts *eo, const char *model, const char **ops, int nops,
		    unsigned ldlat)
{
	printf("# precise memory events for model %s\n", model);
	for (int i = 0; i < nops; i++) {
		struct mp_memev rows[MEM_MAX_ROWS];
		size_t n = op_rows(eo, model, ops[i], ldlat, rows);
		if (!n)
			printf("%-6s (none known for %s)\n", ops[i], model);
		for (size_t k = 0; k < n; k++) {
			struct mp_event *ev = NULL;
			size_t nev = 0;
			struct mp_err err = { 0 };
			printf("%-6s %s  [%s, PMU %s%s]: %s", ops[i], rows[k].spec, rows[k].what,
			       rows[k].pmu,
			       rows[k].kind == MP_MEMEV_PER_CPU ? ", per CPU"
			       : rows[k].kind == MP_MEMEV_AUX   ? ", AUX buffer"
								: "",
			       rows[k].present ? "available" : "not offered by this kernel");
			if (!mp_events_parse(rows[k].spec, eo, &ev, &nev, &err) && nev)
				printf("  type %u config 0x%llx config1 0x%llx precise %u",
				       ev[0].attr.type, (unsigned long long)ev[0].attr.config,
				       (unsigned long long)ev[0].attr.config1,
				       (unsigned)ev[0].attr.precise_ip);
			putchar('\n');
			free(ev);
		}
	}
	return 0;
}

/* memprof record's options that take a value in the next argument */
static int record_takes_value(const char *a)
{
	static const char *const with_value[] = { "-c", "--count", "-F", "--freq", "-o", "--output",
						  "-p", "--pid", "-m", "--mmap-pages",
						  "--call-graph", "--pmu", "--I1", "--D1", "--LL",
						  "--callgrind-out", "--sim-cores", "--sim-engine",
						  "--sim-tool-opts" };
	for (size_t i = 0; i < sizeof(with_value) / sizeof(with_value[0]); i++)
		if (!strcmp(a, with_value[i]))
			return 1;
	return 0;
}

int cli_mem_record(const char *cmd, int argc, char **argv, int c2c)
{
	const char *type = "load,store", *ev_arg = NULL;
	const char *sim_hint = c2c ? "memprof c2c record --sim -- CMD" : "memprof record --sim -- CMD";
	unsigned ldlat = 30;
	int all = 0, sim = 0, ldlat_set = 0, cores_set = 0, no_alloc = 0, alloc = 0;
	char **fwd = calloc((size_t)argc + 12, sizeof(*fwd));
	int nf = 0, i;

	if (!fwd) {
		cli_error(cmd, "out of memory");
		return CLI_EXIT_RUNTIME;
	}
	fwd[nf++] = "record";
	fwd[nf++] = NULL; /* -e */
	fwd[nf++] = NULL; /* the events */
	fwd[nf++] = "-d";
	fwd[nf++] = "-W";
	fwd[nf++] = "--data-page-size";
	if (c2c)
		fwd[nf++] = "--sample-cpu"; /* perf c2c's: the CPUs and nodes of each line */
	/* memprof mem's own options, up to the command; the rest goes to memprof record */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			free(fwd);
			return c2c ? cli_c2c_help(stdout) : mem_help(stdout);
		}
		if (!c2c && (!strcmp(a, "-t") || !strcmp(a, "--type")) && i + 1 < argc) {
			type = argv[++i];
		} else if (!c2c && !strncmp(a, "--type=", 7)) {
			type = a + 7;
		} else if (!strcmp(a, "--ldlat") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);
			if (*end || !v || v > 65535) {
				cli_error(cmd, "--ldlat %s: a latency of 1 to 65535 cycles", argv[i]);
				free(fwd);
				return CLI_EXIT_USAGE;
			}
			ldlat = (unsigned)v;
			ldlat_set = 1;
		} else if (!strcmp(a, "-e") && i + 1 < argc) {
			ev_arg = argv[++i];
		} else if (c2c && !strcmp(a, "--sim")) {
			sim = 1;
		} else if (c2c && !strcmp(a, "--no-alloc")) {
			no_alloc = 1;
		} else if (!strcmp(a, "--")) {
			fwd[nf++] = argv[i++];
			break;
		} else if (a[0] != '-') {
			break; /* the command: it and its arguments go as they are */
		} else {
			all |= !strcmp(a, "-a") || !strcmp(a, "--all-cpus");
			cores_set |= !strcmp(a, "--sim-cores") || !strncmp(a, "--sim-cores=", 12);
			alloc |= !strcmp(a, "--alloc") || !strcmp(a, "--sim-alloc");
			fwd[nf++] = argv[i];
			if (record_takes_value(a) && i + 1 < argc)
				fwd[nf++] = argv[++i];
		}
	}
	for (; i < argc; i++)
		fwd[nf++] = argv[i];
	if (no_alloc && alloc) {
		cli_error(cmd, "--alloc and --no-alloc exclude each other");
		free(fwd);
		return CLI_EXIT_USAGE;
	}
	if (no_alloc && !sim) {
		cli_error(cmd, "--no-alloc goes with --sim (without it the heap is tracked only "
			  "when --alloc asks)");
		free(fwd);
		return CLI_EXIT_USAGE;
	}
	if (c2c && sim) {
		/* the simulator's memory samples: every load (no latency threshold) and store of
		 * the simulated cores, with HITM where another core had the line modified */
		if (ldlat_set || ev_arg) {
			cli_error(cmd, "%s with --sim: the simulator samples every load and store "
				  "(record --sim -c N sets the period)", ldlat_set ? "--ldlat" : "-e");
			free(fwd);
			return CLI_EXIT_USAGE;
		}
		/* "record --sim -d" after memprof record's own options: drop the hardware ones */
		int nf2 = 1;
		fwd[nf2++] = "--sim";
		fwd[nf2++] = "-d";
		if (!cores_set) {
			fwd[nf2++] = "--sim-cores"; /* threads on cores of their own: sharing shows */
			fwd[nf2++] = "2";
		}
		/* the simulator's heap unless --no-alloc: it holds a freed block back until
		 * every thread is past the free in simulated time (else a block one thread frees
		 * is often the next another gets while both run side by side, a sharing the
		 * program does not have), and names heap lines by their allocation sites */
		if (!no_alloc)
			fwd[nf2++] = "--sim-alloc";
		for (int k = 6 + c2c; k < nf; k++)
			fwd[nf2++] = fwd[k];
		fwd[nf2] = NULL;
		int rc = cli_cmd_record.fn(nf2, fwd);
		free(fwd);
		return rc;
	}
	const char *ops[2];
	int nops = 0;
	if (!strcmp(type, "load") || !strcmp(type, "load,store") || !strcmp(type, "store,load"))
		ops[nops++] = "load";
	if (!strcmp(type, "store") || !strcmp(type, "load,store") || !strcmp(type, "store,load"))
		ops[nops++] = "store";
	if (!nops) {
		cli_error(cmd, "-t %s: load, store or load,store", type);
		free(fwd);
		return CLI_EXIT_USAGE;
	}
	struct mp_evopts eo = { 0 };
	char model[64];
	mp_events_host_model(&eo, model, sizeof(model));
	if (ev_arg && !strcmp(ev_arg, "list")) {
		free(fwd);
		return mem_list(&eo, model, ops, nops, ldlat);
	}
	if (ev_arg) {
		cli_error(cmd, "-e %s: memprof %s record chooses the events (-e list names them); "
			  "memprof record -e EVENT -d -W records others", ev_arg, cmd);
		free(fwd);
		return CLI_EXIT_USAGE;
	}
	char events[1024] = "";
	for (int k = 0; k < nops; k++) {
		struct mp_memev rows[MEM_MAX_ROWS];
		size_t n = op_rows(&eo, model, ops[k], ldlat, rows), used = 0;
		for (size_t r = 0; r < n; r++) {
			if (!rows[r].present)
				continue;
			if (rows[r].kind == MP_MEMEV_AUX) {
				cli_error(cmd, "%s (PMU %s) writes its samples into an AUX buffer, which "
					  "memprof record does not map; record page faults with their data "
					  "addresses instead (memprof record -e page-faults -c 1 -d -- CMD) or "
					  "simulate the caches (%s)",
					  rows[r].what, rows[r].pmu, sim_hint);
				free(fwd);
				return CLI_EXIT_RUNTIME;
			}
			if (rows[r].kind == MP_MEMEV_PER_CPU && !all) {
				cli_error(cmd, "%s (PMU %s) samples CPUs, not a command's threads: add -a "
					  "(memprof %s record -a -- CMD records every CPU while CMD runs)",
					  rows[r].what, rows[r].pmu, cmd);
				free(fwd);
				return CLI_EXIT_USAGE;
			}
			/* IBS samples loads and stores with one event */
			if (strstr(events, rows[r].spec))
				continue;
			size_t len = strlen(events);
			snprintf(events + len, sizeof(events) - len, "%s%s", len ? "," : "",
				 rows[r].spec);
			used++;
		}
		if (!used) {
			char pmus[128] = "";
			for (size_t r = 0; r < n; r++)
				snprintf(pmus + strlen(pmus), sizeof(pmus) - strlen(pmus), "%s'%s'",
					 r ? " or " : "", rows[r].pmu);
			if (n)
				cli_error(cmd, "no precise memory events for %ss here: %s needs the "
					  "kernel's %s PMU (model %s), which /sys/bus/event_source/devices "
					  "does not have; record page faults with their data addresses "
					  "instead (memprof record -e page-faults -c 1 -d -- CMD) or simulate "
					  "the caches (%s)",
					  ops[k], rows[0].what, pmus, model, sim_hint);
			else
				cli_error(cmd, "no precise memory events for %ss known for model %s "
					  "(events/mem_events.tsv); record page faults with their data "
					  "addresses instead (memprof record -e page-faults -c 1 -d -- CMD) "
					  "or simulate the caches (%s)",
					  ops[k], model, sim_hint);
			free(fwd);
			return CLI_EXIT_RUNTIME;
		}
	}
	fwd[1] = "-e";
	fwd[2] = events;
	fwd[nf] = NULL;
	int rc = cli_cmd_record.fn(nf, fwd);
	free(fwd);
	return rc;
}

static int cmd_mem(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		if (argc < 2) {
			cli_error(CMD, "say record or report (memprof mem --help)");
			return CLI_EXIT_USAGE;
		}
		return mem_help(stdout);
	}
	if (!strcmp(argv[1], "record"))
		return cli_mem_record(CMD, argc - 1, argv + 1, 0);
	if (!strcmp(argv[1], "report")) {
		char **a = calloc((size_t)argc + 2, sizeof(*a));
		if (!a) {
			cli_error(CMD, "out of memory");
			return CLI_EXIT_RUNTIME;
		}
		a[0] = "report";
		a[1] = "--mem-mode";
		for (int i = 2; i < argc; i++)
			a[i] = argv[i];
		int rc = cli_cmd_report.fn(argc, a);
		free(a);
		return rc;
	}
	cli_error(CMD, "'%s': say record or report (memprof mem --help)", argv[1]);
	return CLI_EXIT_USAGE;
}

const struct cli_cmd cli_cmd_mem = {
	CMD, cmd_mem, "record and report precise memory samples (as perf mem)", mem_usage,
	mem_summary, 1,
};
