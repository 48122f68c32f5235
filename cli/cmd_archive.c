/* memprof archive: pack the objects a recording needs (by build-id, with separate debug
 * info) and the kernel's symbols, as perf's build-id cache in a tar; and the --archive
 * option of report and annotate, which read such an archive. The packing and the tar are
 * in the analyzer (mp_archive_*). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mp_analyzer.h"

#define CMD "archive"

int cli_archive_use(const char *cmd, const char *archive, const char *input, char **dir,
		    char **kallsyms)
{
	struct mp_err err = { 0, "" };
	const char *tmp = getenv("TMPDIR");
	*dir = NULL;
	if (asprintf(dir, "%s/memprof-archive.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 ||
	    !mkdtemp(*dir)) {
		cli_error(cmd, "--archive %s: a temporary folder: %s", archive, strerror(errno));
		free(*dir);
		*dir = NULL;
		return 1;
	}
	if (mp_archive_extract(archive, *dir, &err)) {
		cli_error(cmd, "--archive %s", err.msg);
		cli_archive_done(dir, NULL);
		return 1;
	}
	if (kallsyms && !*kallsyms) {
		mp_pd *pd = mp_pd_open(input, &err);
		for (size_t i = 0; pd && i < mp_pd_nbuild_ids(pd); i++) {
			const struct mp_pd_build_id *b = mp_pd_build_id(pd, i);
			if (b->filename && !strcmp(b->filename, "[kernel.kallsyms]") &&
			    !mp_archive_kallsyms(*dir, b, kallsyms))
				break;
		}
		mp_pd_close(pd);
	}
	return 0;
}

void cli_archive_done(char **dir, char **kallsyms)
{
	if (dir && *dir) {
		mp_archive_remove_tree(*dir);
		free(*dir);
		*dir = NULL;
	}
	if (kallsyms) {
		free(*kallsyms);
		*kallsyms = NULL;
	}
}

static int cmd_archive(int argc, char **argv)
{
	const char *input = NULL, *output = NULL, *symfs = NULL, *kallsyms = NULL;
	int quiet = 0, force = 0;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&input),
		{ 'o', "output", CLI_STR, &output, "ARCHIVE", "the archive to write (default FILE.tar)" },
		CLI_OPT_SYMFS(&symfs),
		CLI_OPT_KALLSYMS(&kallsyms),
		CLI_OPT_FORCE(&force),
		{ 'q', "quiet", CLI_FLAG, &quiet, NULL, "no summary" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int rc = cli_parse(&cli_cmd_archive, opts, argc, argv, NULL);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	if ((rc = cli_input_ready(CMD, &input, force)))
		return rc;
	char *outbuf = NULL;
	if (!output) {
		if (asprintf(&outbuf, "%s.tar", input) < 0) {
			cli_error(CMD, "out of memory");
			return 1;
		}
		output = outbuf;
	}
	struct mp_err err = { 0, "" };
	char *bdir = cli_buildid_dir(symfs);
	struct mp_session_opts so = { .symfs = symfs, .kallsyms = kallsyms, .buildid_dir = bdir };
	mp_session *ss = mp_session_new(input, &so, &err);
	free(bdir);
	if (!ss) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(err.code));
		free(outbuf);
		return 1;
	}
	struct mp_archive_stats st;
	rc = mp_archive_write(ss, input, output, &st, &err);
	if (rc) {
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(rc));
	} else if (!quiet) {
		printf("%s: %zu objects with samples (%zu separate debug files, %.1f MB) from %s\n",
		       output, st.nobjects, st.ndebug, (double)st.bytes / 1e6, input);
		for (size_t i = 0; i < st.nmissing; i++)
			printf("  not packed: %s (%s): %.2f%% of the samples\n", st.missing[i].name,
			       st.missing[i].why, st.missing[i].pct);
		printf("read it with: memprof report --archive %s -i %s\n"
		       "or unpack it for perf and memprof: mkdir -p ~/.debug && tar xf %s -C ~/.debug\n",
		       output, input, output);
	}
	mp_archive_stats_fini(&st);
	mp_session_free(ss);
	free(outbuf);
	return rc ? 1 : 0;
}

const struct cli_cmd cli_cmd_archive = {
	"archive", cmd_archive, "pack the objects a recording needs, by build-id, as perf archive",
	"[-i FILE] [-o ARCHIVE]",
	"Every object with samples (found by build-id, with its separate debug info where there "
	"is one) and the kernel's symbols, laid out as perf's build-id cache in a tar: unpacked "
	"into ~/.debug both perf report and memprof report find them, and memprof report "
	"--archive ARCHIVE reads it as it is. Objects that cannot be packed are named with "
	"their share of samples.", 0,
};
