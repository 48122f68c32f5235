/* memprof list [--pmu MODEL] [--models] [PATTERN]: the events memprof can resolve. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mp_events.h"
#include "mp_sim.h"

static int cmd_list(int argc, char **argv)
{
	const char *pmu = NULL;
	int models = 0, verbose = 0, nargs = 0;
	const struct cli_opt opts[] = {
		CLI_OPT_PMU(&pmu, "to list the events of, instead of the host's"),
		{ 0, "models", CLI_FLAG, &models, NULL, "list the libpfm4 models memprof knows" },
		{ 'v', "verbose", CLI_FLAG, &verbose, NULL,
		  "also print each event's perf_event_attr (type, config, config1, config2)" },
		{ 0, NULL, CLI_END, NULL, NULL, NULL },
	};
	struct mp_err err = { 0, "" };
	int rc = cli_parse(&cli_cmd_list, opts, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	if (nargs > 1) {
		cli_error("list", "one PATTERN at most (got '%s' and '%s')", argv[1], argv[2]);
		return CLI_EXIT_USAGE;
	}
	if (models) {
		if (mp_events_list_models(stdout, &err) < 0) {
			cli_error("list", "%s", err.msg);
			return 1;
		}
		return 0;
	}
	/* perf list tracepoint: the kernel's tracepoints only */
	if (nargs && !strcmp(argv[1], "tracepoint")) {
		int n = mp_tp_list(stdout, NULL, NULL, &err);
		if (n < 0)
			cli_error("list", "%s", err.msg);
		return n < 0 ? 1 : 0;
	}
	/* --pmu cachegrind (as memprof ratios takes it): the simulated events only */
	int sim_only = pmu && !strcmp(pmu, "cachegrind");
	int host = sim_only ? 0
		   : mp_events_list_ex(stdout, pmu, nargs ? argv[1] : NULL,
				       verbose ? MP_LIST_ATTR : 0, &err);
	if (host && !nargs) { /* a bad --pmu: nothing to add to */
		cli_error("list", "%s", err.msg);
		return 1;
	}
	int nsim = mp_sim_list(stdout, nargs ? argv[1] : NULL);
	if (nsim < 0) { /* stdout unwritable: main says so in one line */
		if (!ferror(stdout))
			cli_error("list", "writing the list failed");
		return 1;
	}
	/* a PATTERN also finds the tracepoints it names (sched_switch) */
	int ntp = nargs && !sim_only && !pmu ? mp_tp_list(stdout, NULL, argv[1], NULL) : 0;
	if (ntp > 0)
		nsim += ntp;
	if (host && !(nargs && nsim > 0)) {
		cli_error("list", "%s", err.msg);
		return 1;
	}
	if (sim_only && !nsim) {
		cli_error("list", "no simulated event matches '%s'", argv[1]);
		return 1;
	}
	return 0;
}

const struct cli_cmd cli_cmd_list = {
	"list", cmd_list, "the events this machine, or any PMU model, offers",
	"[--pmu MODEL] [--models] [-v] [PATTERN | tracepoint]",
	"Events with descriptions and unit masks, the portable aliases and what they\n"
	"resolve to, default and minimum counts, and whether each opens on this machine.\n"
	"PATTERN is a substring or a glob (*, ?), matched without regard to case; it also\n"
	"finds the kernel's tracepoints (subsys:name), which 'memprof list tracepoint' lists.", 0,
};
