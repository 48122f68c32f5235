/* cmd_tui.c - memprof tui: browse a recording's hot symbols, source and assembly. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "mp_predict.h"
#include "mp_tui.h"

static const char tui_usage[] = "[-i FILE] [options]";
static const char tui_summary[] =
	"Browse the hot symbols of a recording, their annotated source and assembly, and the\n"
	"memory ratios, with perf report's keys. Without a terminal, --batch KEYS prints the\n"
	"screen after the keys.";

/* The terminal as it was before the browser started, for the fatal-signal handler: the
 * CLI owns this state (libraries keep none). */
static struct termios tui_saved_tty;
static volatile sig_atomic_t tui_tty_saved;

static void tui_on_fatal(int sig)
{
	static const char restore[] = "\033[0m\033[?25h\033[?1049l\r\n";
	if (tui_tty_saved) {
		tcsetattr(STDIN_FILENO, TCSANOW, &tui_saved_tty);
		if (write(STDOUT_FILENO, restore, sizeof(restore) - 1) < 0)
			tui_tty_saved = 0;
	}
	if (sig == SIGBUS)
		cli_sigbus_exit(); /* a mapped file shrank: one line, exit 1 */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tui_install_fatal_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = tui_on_fatal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* While curses owns the screen, log lines must not go to stderr: warnings go to the
 * status line and are printed once the terminal is back. */
struct tui_log {
	tui_model *m;
	struct mp_buf held;
};

static void tui_log_fn(enum mp_log_level lvl, const char *msg, void *ctx)
{
	struct tui_log *tl = ctx;
	if (lvl > MP_LOG_WARN)
		return;
	tui_model_set_message(tl->m, msg);
	mp_buf_printf(&tl->held, "memprof tui: %s%s\n", lvl == MP_LOG_WARN ? "warning: " : "", msg);
}

int cli_tui_size(const char *cmd, const char *size, int *cols, int *rows)
{
	*cols = 80;
	*rows = 24;
	if (size) {
		char x;
		if (sscanf(size, "%d%c%d", cols, &x, rows) != 3 || x != 'x' || *cols < 20 ||
		    *rows < 5 || *cols > 1000 || *rows > 1000) {
			cli_error(cmd, "--size '%s': expected COLSxROWS, at least 20x5", size);
			return -1;
		}
	}
	return 0;
}

/* --batch: feed keys to the model and print the screen it renders (no terminal). */
int cli_tui_batch(tui_model *m, const char *keys, int cols, int rows)
{
	tui_model_resize(m, cols, rows);
	for (const char *p = keys; *p;) {
		unsigned r = tui_model_key(m, tui_key_parse(&p));
		if (r & TUI_QUIT)
			break;
	}
	const struct tui_screen *s = tui_model_render(m);
	if (!s)
		return 1;
	for (int y = 0; y < s->rows; y++) {
		int n = s->cols;
		while (n > 0 && s->row[y].text[n - 1] == ' ')
			n--;
		printf("%.*s\n", n, s->row[y].text);
	}
	return 0;
}

/* What cmd_tui runs once the options are checked: the recording read, the browser run.
 * The exit status. */
static int tui_browse(const char *input, struct tui_source_opts so, const char *predict,
		      const char *events, int full_names, const char *batch, int cols, int rows,
		      int no_color)
{
	int rc;
	struct mp_err err = { 0 };
	struct mp_predict pred = { 0 };
	if (predict && mp_predict_read(&pred, predict, &err)) {
		cli_error("tui", "--predict %s", err.msg);
		return 1;
	}
	so.predict = predict ? &pred : NULL;
	tui_data *d = NULL;
	tui_source *src = tui_source_open(input, &so, &d, &err);
	if (!src) {
		cli_error("tui", "%s", err.msg);
		mp_predict_fini(&pred);
		return 1;
	}
	if (!tui_data_nsyms(d)) {
		cli_error("tui", "%s: no samples to browse", input);
		tui_data_free(d);
		tui_source_free(src);
		mp_predict_fini(&pred);
		return 1;
	}
	tui_model *m = tui_model_new(d, cols, rows, &err);
	if (!m) {
		cli_error("tui", "%s", err.msg);
		tui_source_free(src);
		mp_predict_fini(&pred);
		return 1;
	}
	if (events && tui_model_set_events(m, events, &err)) {
		cli_error("tui", "-e: %s", err.msg);
		tui_model_free(m);
		tui_source_free(src);
		mp_predict_fini(&pred);
		return CLI_EXIT_USAGE;
	}
	tui_model_set_full_names(m, full_names);
	if (batch)
		rc = cli_tui_batch(m, batch, cols, rows);
	else
		rc = cli_tui_interactive(m, no_color);
	tui_model_free(m);
	tui_source_free(src);
	mp_predict_fini(&pred);
	return rc;
}

static int cmd_tui(int argc, char **argv)
{
	const char *input = NULL, *symfs = NULL, *kallsyms = NULL, *ratios = NULL, *batch = NULL;
	const char *size = NULL, *predict = NULL, *events = NULL, *cgspec = NULL, *archive = NULL;
	int no_color = 0, no_ratios = 0, no_skid = 0, force = 0, no_children = 0;
	int full_names = 0;
	double hot_pct = 5.0;
	const struct cli_opt opts[] = {
		CLI_OPT_INPUT(&input),
		CLI_OPT_FORCE(&force),
		CLI_OPT_SYMFS(&symfs),
		CLI_OPT_KALLSYMS(&kallsyms),
		CLI_OPT_ARCHIVE(&archive),
		{ 0, "ratios", CLI_STR, &ratios, "FILE", "also load ratio definitions from FILE" },
		{ 0, "no-ratios", CLI_FLAG, &no_ratios, NULL, "do not compute ratios" },
		{ 0, "hot", CLI_DOUBLE, &hot_pct, "PCT", "annotate: lines with >= PCT% of samples are hot (5)" },
		{ 0, "no-skid", CLI_FLAG, &no_skid, NULL, "annotate: count samples at the sampled IP, without skid correction" },
		{ 0, "predict", CLI_STR, &predict, "FILE", "annotate: likely()/unlikely() counts from the predict FILE after their lines, wrong hints marked" },
		{ 0, "no-color", CLI_FLAG, &no_color, NULL, "draw without colour (also NO_COLOR=1, TERM=vt100)" },
		{ 0, "batch", CLI_STR, &batch, "KEYS", "no terminal: apply KEYS (<ENTER>, <TAB>, ...) and print the screen" },
		{ 0, "size", CLI_STR, &size, "COLSxROWS", "screen size for --batch (default 80x24)" },
		{ 'e', "events", CLI_STR, &events, "EVENTS",
		  "event columns to show (comma-separated; default all that fit, keys e, v)" },
		{ 0, "full-names", CLI_FLAG, &full_names, NULL,
		  "C++ names whole (default: a template name too wide for its column as <...>)" },
		{ 0, "no-children", CLI_FLAG, &no_children, NULL,
		  "a recording with call chains: the symbol list without Children and call trees" },
		{ 'g', "call-graph", CLI_OPTSTR, &cgspec, "SPEC",
		  "call trees as perf's -g: caller|callee and the percent under which nodes are "
		  "left out, comma-separated (default caller,0.5)" },
		{ 0, NULL, CLI_END, NULL, NULL, NULL },
	};
	int rc = cli_parse(&cli_cmd_tui, opts, argc, argv, NULL);
	if (rc == 1) {
		char line[256];
		printf("\nkeys:\n");
		for (size_t i = 0; tui_help_line(i, line, sizeof(line)) == 0; i++)
			printf("  %s\n", line);
		return 0;
	}
	if (rc)
		return CLI_EXIT_USAGE;
	int cols, rows;
	if (cli_tui_size("tui", size, &cols, &rows))
		return CLI_EXIT_USAGE;
	struct report_cg cg = { .mode = REPORT_CG_GRAPH, .min_pct = 0.5, .children = 1 };
	char cgerr[256];
	if (cgspec && report_cg_parse(cgspec, &cg, cgerr, sizeof(cgerr))) {
		cli_error("tui", "-g %s: %s", cgspec, cgerr);
		return CLI_EXIT_USAGE;
	}
	if (cg.mode != REPORT_CG_GRAPH) {
		cli_error("tui", "-g %s: the browser draws call graphs (graph); flat and folded forms "
			  "are memprof report's", cgspec);
		return CLI_EXIT_USAGE;
	}
	if (!(hot_pct > 0 && hot_pct <= 100)) {
		cli_error("tui", "--hot %g: expected a percentage in (0, 100]", hot_pct);
		return CLI_EXIT_USAGE;
	}
	if (cli_input_ready("tui", &input, force))
		return CLI_EXIT_RUNTIME;
	if (!batch && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cli_error("tui", "needs a terminal on stdin and stdout (use memprof report, or --batch)");
		return 1;
	}

	struct tui_source_opts so = { symfs, kallsyms, ratios, no_ratios, hot_pct, no_skid,
				      NULL, no_children, cg.callee,
				      cg.min_pct > 0 ? cg.min_pct : -1, NULL };
	/* --archive: its objects and kernel symbols, as report's */
	char *adir = NULL, *akall = NULL;
	if (archive && cli_archive_use("tui", archive, input, &adir, &akall))
		return 1;
	if (!so.kallsyms)
		so.kallsyms = akall;
	so.buildid_dir = adir;
	rc = tui_browse(input, so, predict, events, full_names, batch, cols, rows, no_color);
	cli_archive_done(&adir, &akall);
	return rc;
}

int cli_tui_interactive(tui_model *m, int no_color)
{
	struct mp_err err = { 0, "" };
	int rc;
	{
		const char *term = getenv("TERM");
		struct tui_run_opts ro = { &cli_stop_flag, no_color };
		if (term && (!strcmp(term, "vt100") || !strcmp(term, "dumb")))
			ro.no_color = 1;
		if (tcgetattr(STDIN_FILENO, &tui_saved_tty) == 0)
			tui_tty_saved = 1;
		tui_install_fatal_handlers();
		cli_install_stop_handler();
		struct tui_log tl = { m, { 0 } };
		mp_log_fn prev_fn;
		void *prev_ctx;
		mp_log_get_fn(&prev_fn, &prev_ctx);
		mp_log_set_fn(tui_log_fn, &tl);
		rc = tui_run(m, &ro, &err);
		mp_log_set_fn(prev_fn, prev_ctx);
		if (tl.held.len)
			fwrite(tl.held.data, 1, tl.held.len, stderr);
		mp_buf_fini(&tl.held);
		if (rc) {
			cli_error("tui", "%s", err.msg);
			rc = 1;
		} else if (cli_stop_flag && cli_stop_flag != SIGINT) {
			rc = 128 + cli_stop_flag;
		}
	}
	return rc;
}

const struct cli_cmd cli_cmd_tui = {
	"tui", cmd_tui, "browse hot symbols, source and assembly in the terminal",
	tui_usage,
	tui_summary, 0,
};
