/* cli.h - the memprof command line: dispatch table, option tables, shared helpers.
 * Only cli/ prints to the terminal or exits; the libraries return errors. */
#ifndef MP_CLI_H
#define MP_CLI_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

enum cli_opt_type {
	CLI_END = 0,
	CLI_FLAG,    /* int, set to 1 (or incremented for repeated -v) */
	CLI_STR,     /* const char *, last wins */
	CLI_OPTSTR,  /* const char *, its value optional (perf's -g): from -gV, --opt=V or a
	              * next argument not starting with '-'; alone it stores "" */
	CLI_STRLIST, /* char *: repeated options joined with ',' (malloc'd, caller frees) */
	CLI_U64,     /* uint64_t, decimal or 0x hex */
	CLI_INT,     /* int */
	CLI_DOUBLE,  /* double */
};

struct cli_opt {
	char short_name;       /* 0 = none */
	const char *long_name; /* NULL = none */
	enum cli_opt_type type;
	void *dst;
	const char *argname;   /* "EVENTS"; NULL for flags */
	const char *help;
};

/* The options several commands share: one definition, one help text each. */
#define CLI_OPT_INPUT(dst)                                                             \
	{ 'i', "input", CLI_STR, (dst), "FILE",                                        \
	  "recording to read, - for standard input (default memprof.data, else perf.data)" }
/* -i for commands that read several recordings as one (repeat -i; joined with ','). */
#define CLI_OPT_INPUTS(dst)                                                            \
	{ 'i', "input", CLI_STRLIST, (dst), "FILE",                                    \
	  "recording to read, - for standard input (default memprof.data, else "      \
	  "perf.data); repeated: several recordings of one program, summed" }
#define CLI_OPT_FORCE(dst)                                                             \
	{ 'f', "force", CLI_FLAG, (dst), NULL,                                         \
	  "read a recording owned by another user (not you or root), as perf -f" }
#define CLI_OPT_SYMFS(dst)                                                             \
	{ 0, "symfs", CLI_STR, (dst), "DIR",                                           \
	  "look for objects and debug info under DIR (as perf --symfs)" }
#define CLI_OPT_KALLSYMS(dst)                                                          \
	{ 'k', "kallsyms", CLI_STR, (dst), "FILE",                                     \
	  "kernel symbols from FILE (/dev/null: none; default /proc/kallsyms when it fits)" }
/* --pmu MODEL: for record/stat it resolves event names; list and ratios say what for. */
#define CLI_OPT_PMU(dst, what)                                                         \
	{ 0, "pmu", CLI_STR, (dst), "MODEL", "libpfm4 model (skl, amd64_fam19h_zen4, ...) " what }
#define CLI_PMU_RESOLVE "to resolve event names for, instead of the host's"

/* One command: main.c dispatches by it and cli_parse() prints its --help from it. */
struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *oneline;  /* its line in memprof --help */
	const char *usage;    /* after "usage: memprof NAME " */
	const char *summary;  /* the paragraph of memprof NAME --help, or NULL */
	int stop_at_arg;      /* options end at the first non-option (record/stat: the workload) */
};
extern const struct cli_cmd cli_cmd_record, cli_cmd_stat, cli_cmd_report, cli_cmd_annotate,
	cli_cmd_ratios, cli_cmd_tui, cli_cmd_predict, cli_cmd_list, cli_cmd_topology, cli_cmd_diff,
	cli_cmd_archive, cli_cmd_script, cli_cmd_mem, cli_cmd_c2c, cli_cmd_inject;

/* memprof mem record and memprof c2c record (cmd_mem.c): record the precise memory events
 * of this machine's PMU (events/mem_events.tsv) with data addresses, weights and page sizes
 * through memprof record; cmd names the command in messages. c2c: loads and stores always
 * (perf c2c's), the samples' CPUs too, and --help is c2c's (cli_c2c_help, cmd_c2c.c).
 * Returns the exit status. */
int cli_mem_record(const char *cmd, int argc, char **argv, int c2c);
int cli_c2c_help(FILE *f);

/* Parse argv[1..] (argv[0] is the command name). With cmd->stop_at_arg, parsing ends at
 * the first non-option (the workload of record/stat); otherwise options and arguments may
 * mix. On return the non-option arguments are argv[1..*nargs], NULL-terminated (so
 * argv + 1 is a ready execvp() argument vector). nargs NULL: the command takes no
 * argument (its recording is -i FILE), and one is a usage error naming it.
 * Returns 0 to go on, 1 when --help was printed (exit 0), or CLI_EXIT_USAGE after printing
 * a one-line usage error to stderr. */
int cli_parse(const struct cli_cmd *cmd, const struct cli_opt *opts, int argc, char **argv,
	      int *nargs);
void cli_print_help(const struct cli_cmd *cmd, const struct cli_opt *opts);

/* Exit status (DEVELOPERS.md): a runtime error (bad file, refused event) and a usage error
 * (unknown option, bad value), told apart by code. */
#define CLI_EXIT_RUNTIME 1
#define CLI_EXIT_USAGE 2

/* Print "memprof CMD: msg" to stderr. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* How many lines cli_error has printed (main's one-line rule for an unwritable stdout). */
unsigned cli_errors_printed(void);

/* -e/--events of report and annotate: the recording's events named in list
 * (comma-separated, as report's header names them), in the order given, into ev (room for
 * every attr); *nev their number. 0, or CLI_EXIT_USAGE after naming the unknown event
 * and the recording's events. */
struct mp_pd;
int cli_select_events(const char *cmd, const struct mp_pd *pd, const char *list, size_t *ev,
		      size_t *nev);
/* A simulated recording of more than CLI_SIM_MANY_EVENTS events (record --sim writes 13,
 * 13 columns before any name): its key events (Ir, D1mr, DLmr, D1mw, DLmw, those present,
 * at most max) first in ev and their number returned, the others after them and named in
 * note ("# columns: ..." line, "" when nothing is hidden). Else nev, ev unchanged. */
#define CLI_SIM_MANY_EVENTS 6
size_t cli_sim_key_events(const struct mp_pd *pd, size_t *ev, size_t nev, size_t max, char *note,
			  size_t len);

/* The default input file: memprof.data, else perf.data, in the current directory. */
const char *cli_default_input(void);
/* As perf: a recording owned by someone other than the user or root is not read (it may
 * be planted to feed root hostile input) unless --force. 0 to go on; else prints one line
 * and returns CLI_EXIT_RUNTIME. "-" (standard input) always goes on. PATHS may join
 * several recordings with ',' (repeated -i): each is checked. */
int cli_input_owner_ok(const char *cmd, const char *paths, int force);
/* Make stdout of a text command (report, annotate, diff, ratios, script, topology, predict)
 * show control characters from a recording's names and sources as \xHH (C1 controls as
 * \uXXXX) instead of sending them to the terminal or the text file; tab and newline pass.
 * Left alone with --tui (curses) and --json (escaped by cli_json_str). 0, or -1 when the
 * stream could not be made (stdout unchanged). */
int cli_text_guard(int argc, char **argv);
/* s with each newline written as \n (in buf, n bytes, cut when longer), so that a name
 * holding one cannot forge a line of a line-based format (script, --folded); s itself when
 * it has none. */
const char *cli_nl(const char *s, char *buf, size_t n);
/* *input, or when NULL the default recording (cli_default_input_of), checked for its
 * owner (cli_input_owner_ok). 0 to go on; else prints one line and returns
 * CLI_EXIT_RUNTIME. */
int cli_input_ready(const char *cmd, const char **input, int force);
/* The recording named as the one argument (argv[1]) instead of with -i: into *input when
 * -i was not given. 0, or CLI_EXIT_USAGE after naming the argument too many. */
int cli_input_arg(const char *cmd, const char **input, int nargs, char **argv);
/* --symfs DIR must be a directory and --kallsyms FILE readable (or /dev/null); NULL: not
 * given. 0 to go on; else prints one line naming the option and returns CLI_EXIT_RUNTIME. */
int cli_sym_paths_ok(const char *cmd, const char *symfs, const char *kallsyms);
/* The same for a command that reads it: NULL after an error naming both files when
 * neither exists. */
const char *cli_default_input_of(const char *cmd);

/* Output helpers shared by the commands' --json and --csv forms. NULL prints as "". */
void cli_json_str(FILE *f, const char *s);  /* a JSON string literal, escaped */
void cli_csv_str(FILE *f, const char *s);   /* a CSV field, quoted when it needs to be */

/* A JSON document written as it goes (cli_json.c): the writer puts the separators and
 * the layout, the caller the members in order. Each container lays its members out
 * inline ({"a": 1, "b": 2}) or each on its own line, indented once per enclosing
 * container that lays out lines;
 * CLI_JSON_LINES_OPEN closes right after its last member ("\n  {...}]"). */
enum cli_json_layout { CLI_JSON_INLINE, CLI_JSON_LINES, CLI_JSON_LINES_OPEN };
#define CLI_JSON_DEPTH 16
struct cli_json_level {
	char close;
	unsigned char layout;
	int nlines;   /* containers laying out lines, this one included: the lines' indent */
	size_t count;
};
struct cli_json {
	FILE *f;
	const char *colon, *comma; /* after a key, between inline members: ": " ", " or ":" "," */
	int indent;                /* spaces per indent of a line */
	int depth;
	struct cli_json_level c[CLI_JSON_DEPTH];
};
void cli_json_start(struct cli_json *j, FILE *f, const char *colon, const char *comma,
		    int indent);
/* open: '{' or '['; key: the member's name, NULL for an array's item or the document. */
void cli_json_open(struct cli_json *j, const char *key, char open, enum cli_json_layout layout);
void cli_json_close(struct cli_json *j);
/* The innermost container lays out its next members so (their lines indented as the
 * container's own line): a document that starts inline and goes on line by line. */
void cli_json_relayout(struct cli_json *j, enum cli_json_layout layout);
/* The separator and "key": of the next member (key NULL: an array's item). */
void cli_json_key(struct cli_json *j, const char *key);
void cli_json_string(struct cli_json *j, const char *key, const char *s);
void cli_json_string_or_null(struct cli_json *j, const char *key, const char *s);
void cli_json_bool(struct cli_json *j, const char *key, int v);
/* A number (or any literal) as fmt prints it: "%" PRIu64, "%.4f". */
void cli_json_value(struct cli_json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* --archive ARCHIVE of report and annotate (a memprof archive): unpacked into a private
 * temporary folder that serves as the build-id cache (*dir, malloc'd), and, when *kallsyms
 * is NULL, *kallsyms set to the kernel symbols it holds for the recording input. 0, or 1
 * after printing the error. cli_archive_done() removes the folder and frees both. */
int cli_archive_use(const char *cmd, const char *archive, const char *input, char **dir,
		    char **kallsyms);
void cli_archive_done(char **dir, char **kallsyms);
#define CLI_OPT_ARCHIVE(dst)                                                           \
	{ 0, "archive", CLI_STR, (dst), "ARCHIVE",                                     \
	  "objects and kernel symbols from a memprof archive (no need to unpack it)" }

/* The TUI on a model (cmd_tui.c, also for memprof diff --tui): --batch KEYS applied and the
 * screen printed (cols x rows), or the interactive browser on the terminal. They return
 * the exit status; the model stays the caller's. */
struct tui_model;
int cli_tui_batch(struct tui_model *m, const char *keys, int cols, int rows);
int cli_tui_interactive(struct tui_model *m, int no_color);
/* Parse --size COLSxROWS (NULL: 80x24). 0, or -1 after a usage error naming cmd. */
int cli_tui_size(const char *cmd, const char *size, int *cols, int *rows);

/* memprof report --html OUT (cmd_report_html.c): the recording's call graph as one
 * self-contained HTML flame graph. Returns the exit status after printing any error. */
int cli_report_html(const char *input, const char *out, const char *symfs, const char *kallsyms,
		    const char *buildid_dir);

/* perf's build-id cache as perf report uses it: $PERF_BUILDID_DIR, else ~/.debug; NULL with
 * --symfs (which is meant to be the only place objects come from). malloc'd. */
char *cli_buildid_dir(const char *symfs);

/* The host's coherency line size (sysfs), else 64 (a power of two up to 4096). */
unsigned cli_host_line_size(void);

/* memprof annotate --data-type[=TYPE] (cmd_annotate_type.c): the data types the samples'
 * addresses of the recording input fell in (those named want; "" every one), each laid
 * out with the samples (period: the periods) of its members, holes, padding and cache
 * line boundaries. Returns the exit status after printing any error. */
int annotate_data_type(const char *input, const char *symfs, const char *kallsyms,
		       const char *want, int period);

/* memprof stat --regions: the regions table of a run (cmd_stat_regions.c); with j (not
 * NULL), the members "regions", "outside_regions", "region_notes" of the stat document.
 * model: the host model for the ratios (mp_events_host_model()). */
struct mp_event;
struct mp_event_result;
struct mp_regions;
void cli_stat_regions(FILE *f, const struct mp_regions *reg, const struct mp_event *evs,
		      size_t nev, const struct mp_event_result *total, int csv, struct cli_json *j,
		      const char *sep, const char *model);
/* memprof report's machine lines (recorded topology, memory errors during the recording)
 * and its --sort cpu,socket,node tables (report_cpu.c). */
struct mp_pd;
void report_print_machine(FILE *f, const struct mp_pd *pd);
/* 1 when the --sort list names socket or node (keys filled; only cpu may come with them),
 * 0 when it names neither, -1 (said) when it mixes them with other keys. */
int report_cpu_keys(const char *sort, int keys[3], int *nkeys);
int report_by_cpu(const char *input, const char *sort, const int keys[3], int nkeys);

/* SIGBUS: a file memprof has mapped shrank under it (truncated by another process): print
 * one line and exit 1 instead of dying by the signal. Installed by main for every command;
 * cli_sigbus_exit() is what the TUI's own fatal handler calls once the terminal is back. */
void cli_install_sigbus_handler(void);
void cli_sigbus_exit(void);

/* report_cg.c: memprof report with call chains (memprof/callgraph.h) */
struct mp_cg;
struct mp_cg_table;
enum report_cg_mode { REPORT_CG_GRAPH, REPORT_CG_FLAT, REPORT_CG_FOLDED, REPORT_CG_NONE };
struct report_cg {
	enum report_cg_mode mode;
	double min_pct;       /* perf's -g threshold: tree nodes below it are left out */
	int callee;           /* 0: caller order (root first), 1: callee order */
	int order_set;        /* caller or callee given (else perf's: callee, caller with
	                       * children) */
	int children;         /* Children column and perf's --children trees */
	unsigned max_stack;
	char order[4];        /* the key columns in --sort's order: 'c' comm, 'd' dso, 's'
	                       * sym ("" = comm, dso, sym) */
};
/* -g SPEC as perf spells it; 0, or -EINVAL with err filled. */
int report_cg_parse(const char *spec, struct report_cg *o, char *err, size_t errlen);
/* --event NAME|N among the shown events ev[nev]: *idx into ev; 0 or -ENOENT. */
int report_pick_event(const struct mp_pd *pd, const size_t *ev, size_t nev, const char *want,
		      size_t *idx);
int report_cg_print_table(FILE *f, struct mp_cg *cg, const struct mp_cg_table *t,
			  const struct mp_pd *pd, const size_t *ev, size_t nev, const struct report_cg *o,
			  double thr, int full);
void report_cg_print_csv(FILE *f, struct mp_cg *cg, const struct mp_cg_table *t,
			 const struct mp_pd *pd, const size_t *ev, size_t nev, double thr);
int report_cg_print_json_rows(struct cli_json *j, struct mp_cg *cg, const struct mp_cg_table *t,
			      const size_t *ev, size_t nev, const struct report_cg *o, double thr);
int report_cg_folded(FILE *f, struct mp_cg *cg, size_t attr, int period, int inline_frames);

/* Set by SIGINT/SIGTERM while record/stat run (the CLI's only global state). */
extern volatile sig_atomic_t cli_stop_flag;
void cli_install_stop_handler(void);


#endif
