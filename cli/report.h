/* report.h - the parts of memprof report, shared by its files (private to cli/):
 * cmd_report.c (options and the run), cmd_report_text.c (the text header and tables),
 * cmd_report_data.c (--csv, --json), cmd_report_many.c (several recordings summed). */
#ifndef MP_CLI_REPORT_H
#define MP_CLI_REPORT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "memprof/callgraph.h"
#include "mp_analyzer.h"

#define REPORT_CMD "report"
/* what a step of the run returns to go on (else the exit status) */
#define REPORT_GO (-1)
#define REPORT_SKID_NOTE                                                                   \
	"# Skid: samples of skidding events (cpu-clock, imprecise hardware events) count for " \
	"the line of the instruction before the sampled one, as annotate counts them "         \
	"(--no-skid: at the sampled address, as perf)\n#\n"

/* The table's columns after the event columns, in --sort order (as perf). */
enum report_col { COL_REGION, COL_COMM, COL_PID, COL_TID, COL_CPU, COL_DSO, COL_ADDR, COL_SYM, COL_SRCLINE,
		  COL_SRCFILE, COL_PERIOD };
#define MAX_COLS 16
/* call chains' default cut, perf's (kernel.perf_event_max_stack's default); --max-stack
 * not given is REPORT_MAX_STACK_UNSET */
#define REPORT_MAX_STACK 127
#define REPORT_MAX_STACK_UNSET INT_MIN
struct report_cols {
	enum report_col c[MAX_COLS];
	size_t n;
};

/* perf's layouts (report_perf.c): -F/--fields and --hierarchy. The fields shown, in order,
 * and the order rows sort by (report_pf_setup); each a REPORT_PF_* of report_perf.c. */
#define REPORT_PF_MAX 24
struct report_pf {
	int on;
	int strict;   /* -F without '+': only the fields given (and --sort's keys) */
	int children; /* rows by function: Children from the call chains when read */
	int self;     /* perf's default columns with Children: "Self" for Overhead */
	unsigned char out[REPORT_PF_MAX], sort[REPORT_PF_MAX];
	size_t nout, nsort;
	unsigned char elide[REPORT_PF_MAX]; /* out[i] not shown: a filter of one value */
};

/* The command line of memprof report, and what follows from it (report_check and the
 * --sort list fill the fields after the options). */
struct report_opts {
	const char *input;
	const char *sort;
	const char *symfs;
	const char *kallsyms;
	const char *archive;
	const char *html;      /* --html FILE: the flame graph page instead of the table */
	double threshold;
	int csv, json, no_objects, quiet, stdio, full_names, group, no_group, force, no_skid;
	int mem_mode;          /* --mem-mode: cmd_report_mem.c */
	int off_cpu;           /* --off-cpu: report_offcpu.c */
	int show_nr, header, header_only; /* perf's -n, --header, --header-only */
	const char *percentage;           /* perf's --percentage relative|absolute */
	const char *fields;               /* perf's -F/--fields */
	int hierarchy, threads;           /* perf's --hierarchy, -T/--threads */
	struct mp_filter filter; /* perf report's --comm, --pid, --tid, --dso, --symbols */
	const char *events;
	/* call chains */
	int children, no_children, max_stack, folded, folded_period, inline_, no_inline;
	const char *callgraph, *pprof, *event;
	/* derived */
	struct report_cg cgo;  /* -g, --children, --max-stack */
	int cg_asked;          /* call chains asked for (else: shown when the recording has them) */
	unsigned keys;         /* MP_HK_* of --sort */
	struct report_cols cols;
	struct report_pf pf;   /* -F, --hierarchy */
};

/* cmd_report_text.c */
double report_pct(uint64_t v, uint64_t total);
int report_row_above(const struct mp_hist_row *r, const struct mp_hist_counts *tot,
		     const size_t *ev, size_t nev, double thr);
/* A row's source line as perf names it (file:line, else sym+off, sym or ??:0). */
void report_fmt_srcline(const struct mp_hist_row *r, char *buf, size_t n, int full);
/* elost: each shown event's lost samples summed over several recordings (NULL: the
 * recording's own; several recordings show no exact counts, one file's is not the sum's) */
void report_print_header(FILE *f, const char *path, const mp_pd *pd,
			 const struct mp_hist_counts *tot, const uint64_t *elost, const size_t *ev,
			 size_t nev);
void report_print_groups(FILE *f, const mp_pd *pd, const struct mp_hist_counts *tot);
void report_print_table(FILE *f, const char *title, const struct report_cols *cols,
			const struct mp_hist_result *res, const struct mp_hist_counts *tot,
			const mp_pd *pd, const size_t *ev, size_t nev, double thr, int full);
void report_print_missing(FILE *f, const struct mp_hist_missing *m, long n, const mp_pd *pd,
			  const struct mp_hist_counts *tot, const size_t *ev, size_t nev,
			  int csv_style);

/* cmd_report_data.c */
void report_print_csv(FILE *f, unsigned keys, const struct mp_hist_result *res,
		      const struct mp_hist_counts *tot, const mp_pd *pd, const size_t *ev,
		      size_t nev, double thr);
/* The call graph's rows in place of res's (report_cg_print_json_rows). */
struct report_json_cg {
	mp_cg *cg;
	const struct mp_cg_table *t;
	const struct report_cg *o;
};
void report_print_json(FILE *f, const char *path, unsigned keys,
		       const struct mp_hist_result *res, const struct mp_hist_counts *tot,
		       const mp_pd *pd, const size_t *ev, size_t nev, double thr,
		       const struct mp_hist_missing *m, long nm, const struct report_json_cg *jc);

/* report_perf.c: perf's layouts. report_pf_setup: -F and --hierarchy with --sort into
 * o->pf and o->keys (REPORT_GO, or the exit status of a usage error, said). */
int report_pf_setup(struct report_opts *o);
/* Each event's table (perf's "# Samples: ... of event" section) in perf's layout; the rows
 * by function of cgt (NULL: of res) with their Children. 0 or -ENOMEM. */
int report_pf_print(FILE *f, const struct report_opts *o, const mp_pd *pd, mp_sym *sym,
		    const struct mp_cg_table *cgt, const struct mp_hist_result *res, const struct mp_hist_counts *tot,
		    const size_t *ev, size_t nev);
/* -T: perf report -T's table, each thread's counts of the READ records (record -s). */
void report_print_threads(FILE *f, const mp_pd *pd);

/* cmd_report_many.c: report -i A -i B, the recordings summed. Returns the exit status. */
int report_many(const struct report_opts *o, const char *bdir);

/* cmd_report_mem.c: --mem-mode, perf's memory sort keys; the exit status. */
int report_mem(const struct report_opts *o);
/* report_offcpu.c: --off-cpu, the time threads spent off the CPU per call chain (a
 * recording of sched:sched_switch -g); the exit status. */
int report_offcpu(const struct report_opts *o);

#endif
