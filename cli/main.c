/* memprof - a memory-behaviour profiler built on perf_event_open. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_perfdata.h"
#include "mp_util.h"


/* The commands in the order memprof --help lists them; each descriptor is in its cmd_*.c. */
static const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_record, &cli_cmd_stat, &cli_cmd_report, &cli_cmd_annotate,
	&cli_cmd_diff, &cli_cmd_ratios, &cli_cmd_tui, &cli_cmd_predict, &cli_cmd_list,
	&cli_cmd_archive, &cli_cmd_topology, &cli_cmd_script, &cli_cmd_mem, &cli_cmd_c2c,
	&cli_cmd_inject,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: memprof [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cli_cmds[i]->name, cli_cmds[i]->oneline);
	fprintf(f, "\n'memprof COMMAND --help' and memprof-COMMAND(1) describe each command.\n");
}

static void log_to_stderr(enum mp_log_level lvl, const char *msg, void *ctx)
{
	int verbose = *(int *)ctx;
	if (lvl == MP_LOG_DEBUG && verbose < 2)
		return;
	if (lvl == MP_LOG_INFO && verbose < 1)
		return;
	fprintf(stderr, "memprof: %s%s\n", lvl == MP_LOG_WARN ? "warning: " : "", msg);
}

/* A command's output that never reached stdout (> /dev/full, a closed pipe's EIO) is a
 * failure, not a silent exit 0 that scripts take for a result. */
static int stdout_checked(const char *cmd, int rc)
{
	int bad;

	errno = 0;
	bad = fflush(stdout) != 0;
	if (!bad && !ferror(stdout))
		return rc;
	/* The command failed and said why (its own flush, "writing the report: ..."): one line. */
	if (rc && cli_errors_printed())
		return rc;
	/* An earlier failed write leaves only the error flag: its errno is gone. */
	fprintf(stderr, "memprof %s: cannot write the output to stdout: %s\n", cmd,
		bad && errno ? strerror(errno) : "a write failed (disk full, device error?)");
	return rc ? rc : CLI_EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	static int verbose;
	const char *v = getenv("MEMPROF_VERBOSE");

	if (v)
		verbose = atoi(v);
	mp_log_set_fn(log_to_stderr, &verbose);
	cli_install_sigbus_handler();
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("memprof %s\n", MP_VERSION);
		return 0;
	}
	static const char *const text_cmds[] = { "report", "annotate", "diff", "ratios",
						  "script", "topology", "predict" };
	for (size_t i = 0; i < sizeof(text_cmds) / sizeof(text_cmds[0]); i++)
		if (!strcmp(argv[1], text_cmds[i]))
			cli_text_guard(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(cli_cmds) / sizeof(cli_cmds[0]); i++)
		if (!strcmp(argv[1], cli_cmds[i]->name))
			return stdout_checked(cli_cmds[i]->name, cli_cmds[i]->fn(argc - 1, argv + 1));
	fprintf(stderr, "memprof: '%s' is not a memprof command (see memprof --help)\n", argv[1]);
	return CLI_EXIT_USAGE;
}
