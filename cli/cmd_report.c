/* memprof report: samples and estimated counts per object, symbol and source line, one
 * column pair (samples, %) per event, like opreport and perf report --stdio.
 * This file is the run: options, their checks, opening the recording, the query. The
 * forms it prints are cmd_report_text.c, cmd_report_data.c (--csv, --json) and report_cg.c
 * (call chains); several recordings summed are cmd_report_many.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"

#define CMD REPORT_CMD

/* Columns and keys of a --sort list: each key where it stands, "period" a column of the
 * estimated count (perf's Period) that groups nothing. 0, or -EINVAL with err set. */
static int parse_cols(const char *list, unsigned *keys, struct report_cols *cols,
		      struct mp_err *err)
{
	static const struct {
		unsigned bit;
		enum report_col col;
	} map[] = {
		{ MP_HK_COMM, COL_COMM }, { MP_HK_PID, COL_PID },	  { MP_HK_TID, COL_TID },
		{ MP_HK_CPU, COL_CPU },	  { MP_HK_DSO, COL_DSO },	  { MP_HK_ADDR, COL_ADDR },
		{ MP_HK_SYM, COL_SYM },	  { MP_HK_SRCLINE, COL_SRCLINE }, { MP_HK_SRCFILE, COL_SRCFILE },
		{ MP_HK_REGION, COL_REGION },
	};
	char tok[64];
	*keys = 0;
	cols->n = 0;
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ",");
		if (n >= sizeof(tok) || cols->n == MAX_COLS)
			return mp_err_set(err, -EINVAL, "sort key '%.*s' too long or too many keys",
					  (int)n, p);
		memcpy(tok, p, n);
		tok[n] = 0;
		p += n + (p[n] == ',');
		unsigned bit = 0;
		if (!strcmp(tok, "period")) {
			cols->c[cols->n++] = COL_PERIOD;
			continue;
		}
		if (mp_hist_parse_sort(tok, &bit, err))
			return mp_err_set(err, -EINVAL,
					  "unknown sort key '%s' (comm, pid, tid, cpu, region, dso, "
					  "sym, srcline, srcfile, addr, period)", tok);
		if (*keys & bit)
			continue;
		*keys |= bit;
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].bit == bit)
				cols->c[cols->n++] = map[i].col;
	}
	if (!*keys && !cols->n)
		return mp_err_set(err, -EINVAL, "empty sort key list");
	return 0;
}

struct progress_state {
	int on;
	int last_pct;
	const char *path;
};

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct progress_state *p = ctx;
	if (!p->on || !total)
		return;
	int pct = (int)(100.0 * (double)done / (double)total);
	if (pct == p->last_pct)
		return;
	p->last_pct = pct;
	fprintf(stderr, "\rmemprof: reading %s: %3d%%", p->path, pct);
	if (done >= total)
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

/* The attrs that had samples or are sampling events; counting-only and dummy events
 * without samples are left out of the columns. */
static size_t pick_events(const mp_pd *pd, const mp_hist *h, size_t *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		if (mp_hist_total(h, i)->samples || a->nr_samples ||
		    (a->attr.sample_period && !(a->attr.type == PERF_TYPE_SOFTWARE &&
						a->attr.config == 9 /* PERF_COUNT_SW_DUMMY */)))
			ev[n++] = i;
	}
	if (!n && mp_pd_nattrs(pd))
		ev[n++] = 0;
	return n;
}

/* A filter of one value makes its column the same on every row: left out, as perf does. */
static void elide_single(struct report_cols *cols, enum report_col c, const char *filter)
{
	if (!filter || strchr(filter, ',') || cols->n < 2)
		return;
	for (size_t k = 0; k < cols->n; k++)
		if (cols->c[k] == c) {
			memmove(&cols->c[k], &cols->c[k + 1], (cols->n - k - 1) * sizeof(cols->c[0]));
			cols->n--;
			return;
		}
}

/* Does the recording hold samples of more than one command? */
static int several_comms(const mp_session *ss)
{
	struct mp_hist_query q = { .keys = MP_HK_COMM };
	struct mp_hist_result r;
	if (mp_hist_query(mp_session_hist(ss), mp_session_sym(ss), &q, &r))
		return 0;
	int several = r.nrows > 1;
	mp_hist_result_fini(&r);
	return several;
}

/* The run, from the recording's opening to the printed report (report_close frees it). */
struct report_state {
	char *adir, *akall;  /* --archive: its folder and kernel symbols */
	char *bdir;          /* the build-id cache */
	mp_pd *pd;           /* the recording looked at first, for the session to take over */
	int want_cg;         /* read the call chains */
	int inl;             /* inlined functions in the chains */
	int cg_maybe;        /* ... and show them only if some came */
	struct progress_state ps;
	mp_session *ss;
	mp_cg *cg;
	struct mp_cg_table cgt;
	size_t na, *ev, nev; /* the recording's attrs; the shown events' */
	struct mp_hist_counts *tot;
	struct mp_hist_result res, objs;
	struct mp_hist_missing *miss;
	long nmiss;
	unsigned char *skid;
	int skids, want_objs;
	char keynote[1024];  /* a simulated recording's hidden events ("" when none) */
};

/* The command line into o. REPORT_GO, or the exit status (--help, a usage error, no input). */
static int report_parse_args(int argc, char **argv, char **inputs, struct report_opts *o)
{
	const struct cli_opt opts[] = {
		CLI_OPT_INPUTS(inputs),
		CLI_OPT_FORCE(&o->force),
		{ 's', "sort", CLI_STR, &o->sort, "KEYS",
		  "group by comm,pid,tid,cpu,region,dso,sym,srcline,srcfile,addr, columns in this order; "
		  "period adds the estimated count (default dso,sym; comm,dso,sym with several "
		  "commands); socket,node (with cpu): by the recorded topology" },
		{ 'e', "events", CLI_STR, &o->events, "EVENTS",
		  "show these events' columns, in this order (the first sorts; all: every one; "
		  "default: every sampled event, a simulated recording's key ones)" },
		{ 't', "threshold", CLI_DOUBLE, &o->threshold, "PCT",
		  "hide rows below PCT percent in every event" },
		{ 0, "percent-limit", CLI_DOUBLE, &o->threshold, "PCT", "the same as --threshold (perf's name)" },
		{ 0, "comm", CLI_STR, &o->filter.comms, "COMMS",
		  "only samples of these commands (comma-separated, as perf)" },
		{ 0, "pid", CLI_STR, &o->filter.pids, "PIDS", "only samples of these processes" },
		{ 0, "tid", CLI_STR, &o->filter.tids, "TIDS", "only samples of these threads" },
		{ 'd', "dso", CLI_STR, &o->filter.dsos, "DSOS",
		  "only samples in these objects (short names or paths)" },
		{ 'S', "symbols", CLI_STR, &o->filter.syms, "SYMS", "only samples in these symbols" },
		{ 0, "stdio", CLI_FLAG, &o->stdio, NULL, "text output (the default; accepted as perf)" },
		{ 'n', "show-nr-samples", CLI_FLAG, &o->show_nr, NULL,
		  "the Samples column (always shown; accepted as perf)" },
		{ 0, "header", CLI_FLAG, &o->header, NULL,
		  "the recording's header above the table (always printed; accepted as perf)" },
		{ 0, "header-only", CLI_FLAG, &o->header_only, NULL,
		  "only the header: the recording, its events, counts and lost samples" },
		{ 'F', "fields", CLI_STR, &o->fields, "FIELDS",
		  "perf's output fields, in this order: overhead, overhead_sys, overhead_us, "
		  "overhead_children (with call chains), sample, period and the sort keys comm, pid "
		  "(thread: tid:comm), dso, sym, srcline, srcfile, cpu; rows sort by --sort's keys, "
		  "then by the fields; +FIELDS: after perf's default columns (Children, Self or "
		  "Overhead, then --sort's keys, default comm,dso,sym). perf's layout, one table "
		  "per event" },
		{ 0, "hierarchy", CLI_FLAG, &o->hierarchy, NULL,
		  "perf's hierarchical output: each --sort key (default comm,dso,sym) a level, "
		  "indented under the one before, with its own overhead (-n: and samples)" },
		{ 'T', "threads", CLI_FLAG, &o->threads, NULL,
		  "after the report, each thread's counts of the recording's READ records (perf "
		  "record -s, memprof's exact counts), as perf report -T" },
		{ 0, "percentage", CLI_STR, &o->percentage, "relative|absolute",
		  "with filters, percentages of the samples shown (relative) or of all (absolute, "
		  "the default), as perf" },
		{ 0, "no-skid", CLI_FLAG, &o->no_skid, NULL,
		  "srcline, srcfile: count skidding events' samples at the sampled address, as "
		  "perf (default: one instruction back, as annotate)" },
		{ 0, "full-names", CLI_FLAG, &o->full_names, NULL,
		  "C++ names whole in the text table (long ones have their template arguments "
		  "shortened to <...>)" },
		{ 0, "mem-mode", CLI_FLAG, &o->mem_mode, NULL,
		  "memory samples (record -d) by perf's memory keys: symbol_daddr, dso_daddr, "
		  "dcacheline, mem, snoop, tlb, locked, blocked, local_weight, weight, ins_lat, "
		  "data_page_size, phys_daddr with sym, dso, comm, pid, tid, cpu, node in --sort; "
		  "overhead by weight (memprof-report(1))" },
		{ 0, "off-cpu", CLI_FLAG, &o->off_cpu, NULL,
		  "the time threads spent off the CPU (blocked or preempted) per call chain, from "
		  "a recording of -e sched:sched_switch -g: per thread and per stack, or with "
		  "--folded as folded stacks weighed in nanoseconds (memprof-report(1))" },
		{ 0, "csv", CLI_FLAG, &o->csv, NULL, "comma-separated values, one row per place" },
		{ 0, "json", CLI_FLAG, &o->json, NULL, "JSON with the header, rows and missing info" },
		CLI_OPT_SYMFS(&o->symfs),
		CLI_OPT_KALLSYMS(&o->kallsyms),
		CLI_OPT_ARCHIVE(&o->archive),
		{ 0, "no-objects", CLI_FLAG, &o->no_objects, NULL,
		  "leave out the per-object summary table" },
		{ 'q', "quiet", CLI_FLAG, &o->quiet, NULL, "no progress display" },
		{ 0, "html", CLI_STR, &o->html, "FILE",
		  "write an interactive flame graph of the call chains to FILE, one self-contained "
		  "HTML page (zoom, search, caller view, ratio heat colouring, hot symbols)" },
		{ 0, "group", CLI_FLAG, &o->group, NULL,
		  "perf's group header: each event group's samples summed over its members" },
		{ 0, "no-group", CLI_FLAG, &o->no_group, NULL,
		  "-F, --hierarchy: each event of a group a table of its own (default: a group's "
		  "members side by side, as perf)" },
		{ 0, "children", CLI_FLAG, &o->children, NULL,
		  "Children (samples anywhere in the call chain) beside Self per symbol: the "
		  "default when the recording has call chains" },
		{ 0, "no-children", CLI_FLAG, &o->no_children, NULL,
		  "self samples only, as without call chains" },
		{ 'g', "call-graph", CLI_OPTSTR, &o->callgraph, "SPEC",
		  "call chains under each symbol, as perf's -g: graph|flat|folded|none, a minimum "
		  "percent, caller|callee, comma-separated (default graph,0.5,caller)" },
		{ 0, "inline", CLI_FLAG, &o->inline_, NULL,
		  "inlined functions (DWARF) as call-chain frames and Children entries of their "
		  "own in every chain (default: in DWARF-unwound chains, as perf)" },
		{ 0, "no-inline", CLI_FLAG, &o->no_inline, NULL,
		  "call chains of symbols only: no inlined functions" },
		{ 0, "max-stack", CLI_INT, &o->max_stack, "N",
		  "use at most N addresses of each call chain, 0 for all (default 127, perf's: "
		  "its default kernel.perf_event_max_stack)" },
		{ 0, "folded", CLI_FLAG, &o->folded, NULL,
		  "only the distinct stacks, one line each: comm;caller;...;leaf samples (the "
		  "input of FlameGraph, inferno, speedscope)" },
		{ 0, "folded-period", CLI_FLAG, &o->folded_period, NULL,
		  "--folded with estimated counts (periods) instead of samples" },
		{ 0, "pprof", CLI_STR, &o->pprof, "FILE",
		  "write the call chains as a gzipped pprof profile (profile.proto) to FILE: per "
		  "event samples and estimated counts, source lines, inline frames, build-ids" },
		{ 0, "event", CLI_STR, &o->event, "EVENT",
		  "the event --folded shows (its name or column number; default the first)" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_report, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	o->input = *inputs;
	if (cli_input_arg(CMD, &o->input, nargs, argv))
		return CLI_EXIT_USAGE;
	if (cli_input_ready(CMD, &o->input, o->force))
		return CLI_EXIT_RUNTIME;
	return REPORT_GO;
}

/* Options that exclude each other or are out of range; the call-graph options (o->cgo,
 * o->cg_asked). REPORT_GO, or the exit status. */
static int report_check(struct report_opts *o)
{
	if (o->csv && o->json) {
		cli_error(CMD, "--csv and --json exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o->threshold < 0 || o->threshold > 100 || isnan(o->threshold)) {
		cli_error(CMD, "--threshold %g: must be between 0 and 100", o->threshold);
		return CLI_EXIT_USAGE;
	}
	if (o->percentage && strcmp(o->percentage, "relative") && strcmp(o->percentage, "absolute")) {
		cli_error(CMD, "--percentage %s: relative or absolute", o->percentage);
		return CLI_EXIT_USAGE;
	}
	if (o->threads && (o->csv || o->json)) {
		cli_error(CMD, "-T excludes --csv and --json");
		return CLI_EXIT_USAGE;
	}
	if (o->header_only && (o->csv || o->json)) {
		cli_error(CMD, "--header-only excludes --csv and --json");
		return CLI_EXIT_USAGE;
	}
	if (o->stdio && (o->csv || o->json)) {
		cli_error(CMD, "--stdio and --%s exclude each other", o->csv ? "csv" : "json");
		return CLI_EXIT_USAGE;
	}
	o->cgo = (struct report_cg){ .mode = REPORT_CG_GRAPH, .min_pct = 0.5 };
	char cgerr[256];
	if (o->callgraph && report_cg_parse(o->callgraph, &o->cgo, cgerr, sizeof(cgerr))) {
		cli_error(CMD, "--call-graph %s: %s", o->callgraph, cgerr);
		return CLI_EXIT_USAGE;
	}
	if (o->inline_ && o->no_inline) {
		cli_error(CMD, "--inline and --no-inline exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o->children && o->no_children) {
		cli_error(CMD, "--children and --no-children exclude each other");
		return CLI_EXIT_USAGE;
	}
	if (o->max_stack < 0 && o->max_stack != REPORT_MAX_STACK_UNSET) {
		cli_error(CMD, "--max-stack %d: must be 0 (all) or more", o->max_stack);
		return CLI_EXIT_USAGE;
	}
	o->folded |= o->folded_period;
	if ((o->folded || o->pprof) && (o->csv || o->json || o->stdio)) {
		cli_error(CMD, "--%s excludes --stdio, --csv and --json", o->folded ? "folded" : "pprof");
		return CLI_EXIT_USAGE;
	}
	o->cgo.children = !o->no_children;
	/* perf's default order: callee, caller when Children are shown */
	if (!o->cgo.order_set)
		o->cgo.callee = o->no_children;
	/* the cut named in the header: the one asked for */
	o->cgo.max_stack = o->max_stack > 0 ? (unsigned)o->max_stack : 0;
	/* asked for call chains (else: shown when the recording has them) */
	o->cg_asked = o->callgraph || o->children || o->folded || o->pprof || o->max_stack > 0;
	/* --no-children -g none: the self table, which needs no chains (and takes filters) */
	if (o->no_children && o->callgraph && o->cgo.mode == REPORT_CG_NONE && !o->children &&
	    !o->folded && !o->pprof && o->max_stack <= 0)
		o->cg_asked = 0;
	return REPORT_GO;
}

/* --sort: by cpu, socket or node a report of its own (report_cpu.c); else the keys and
 * columns (o->keys, o->cols). Then the --symfs and --kallsyms given must be there.
 * REPORT_GO, or the exit status. */
static int report_sort(struct report_opts *o)
{
	if (o->fields || o->hierarchy) {
		int rc = report_pf_setup(o);
		o->cg_asked = 0; /* -g none (others are refused): the table needs no chains */
		if (rc == REPORT_GO && cli_sym_paths_ok(CMD, o->symfs, o->kallsyms))
			rc = CLI_EXIT_RUNTIME;
		return rc;
	}
	int ckeys[3], nckeys = 0;
	int bycpu = report_cpu_keys(o->sort, ckeys, &nckeys);
	if (bycpu < 0)
		return CLI_EXIT_USAGE;
	if (bycpu && o->cg_asked) {
		cli_error(CMD, "call chains are shown by symbol: --sort %s does not take them", o->sort);
		return CLI_EXIT_USAGE;
	}
	if (bycpu)
		return report_by_cpu(o->input, o->sort, ckeys, nckeys);
	o->keys = MP_HK_DSO | MP_HK_SYM;
	o->cols = (struct report_cols){ .c = { COL_DSO, COL_SYM }, .n = 2 };
	struct mp_err err = { 0 };
	if (o->sort && parse_cols(o->sort, &o->keys, &o->cols, &err)) {
		cli_error(CMD, "--sort %s: %s", o->sort, err.msg);
		return CLI_EXIT_USAGE;
	}
	if (!o->keys) /* --sort period alone: the default grouping with a Period column */
		o->keys = MP_HK_DSO | MP_HK_SYM;
	elide_single(&o->cols, COL_COMM, o->filter.comms);
	elide_single(&o->cols, COL_DSO, o->filter.dsos);
	elide_single(&o->cols, COL_SYM, o->filter.syms);
	if (cli_sym_paths_ok(CMD, o->symfs, o->kallsyms))
		return CLI_EXIT_RUNTIME;
	return REPORT_GO;
}

/* Where the objects come from (--archive, the build-id cache), then the reports that are
 * not one recording's table: --html and several recordings. Whether to read the call
 * chains (s->want_cg). REPORT_GO, or the exit status. */
static int report_prepare(struct report_opts *o, struct report_state *s)
{
	char *first = strdup(o->input);
	if (first)
		first[strcspn(first, ",")] = 0;
	if (o->archive && (!first || cli_archive_use(CMD, o->archive, first, &s->adir, &s->akall))) {
		free(first);
		return 1;
	}
	free(first);
	if (!o->kallsyms)
		o->kallsyms = s->akall;
	s->bdir = s->adir ? strdup(s->adir) : cli_buildid_dir(o->symfs);
	if (o->html) {
		if (strchr(o->input, ',')) {
			cli_error(CMD, "--html reads one recording");
			return CLI_EXIT_USAGE;
		}
		return cli_report_html(o->input, o->html, o->symfs, o->kallsyms, s->bdir);
	}
	/* call chains: by comm, object and symbol only, of all samples, of one recording */
	unsigned keys = o->keys;
	const char *cg_no = (!o->pf.children && (keys & ~(unsigned)(MP_HK_COMM | MP_HK_DSO | MP_HK_SYM))) ||
					    (o->cols.n && o->cols.c[o->cols.n - 1] == COL_PERIOD)
				    ? "--sort with keys other than comm, dso, sym"
			    : o->pf.on && !o->pf.children ? "-F or --hierarchy"
			    : mp_filter_any(&o->filter) ? "filters"
			    : strchr(o->input, ',') ? "several recordings"
						    : NULL;
	/* a regular file is looked at first (opened once: the session reads it from there); a
	 * pipe (-i -) cannot be: read with the call graph and shown with it when chains came */
	struct stat cst;
	int regular = strcmp(o->input, "-") && !stat(o->input, &cst) && S_ISREG(cst.st_mode);
	s->cg_maybe = !o->cg_asked && !o->no_children && !cg_no && !regular;
	s->want_cg = o->cg_asked || s->cg_maybe;
	if (!s->want_cg && !o->no_children && !cg_no) {
		struct mp_err err = { 0 };
		if (!(s->pd = mp_pd_open(o->input, &err))) {
			cli_error(CMD, "%s", err.msg);
			return 1;
		}
		s->want_cg = mp_pd_has_chains(s->pd);
	}
	if (o->cg_asked && cg_no) {
		cli_error(CMD, "call chains (-g, --children, --folded, --pprof, --max-stack) are not "
			  "shown with %s", cg_no);
		return CLI_EXIT_USAGE;
	}
	if (strchr(o->input, ',')) {
		if (o->pf.on || o->threads) {
			cli_error(CMD, "%s reads one recording",
				  o->fields ? "-F" : o->hierarchy ? "--hierarchy" : "-T");
			return CLI_EXIT_USAGE;
		}
		if (keys & MP_HK_REGION) {
			cli_error(CMD, "--sort region reads one recording at a time");
			return 1;
		}
		return report_many(o, s->bdir);
	}
	return REPORT_GO;
}

/* The recording opened (with its call chains when s->want_cg) and the events shown
 * (s->ev, s->nev) with their totals. REPORT_GO, or the exit status. */
static int report_open(const struct report_opts *o, struct report_state *s)
{
	unsigned keys = o->keys;
	struct mp_err err = { 0 };
	int rc;
	/* progress only where it helps: on a terminal, for files that take a moment */
	struct stat ist;
	int big = stat(o->input, &ist) == 0 && ist.st_size > (16 << 20);
	s->ps = (struct progress_state){ .on = !o->quiet && big && isatty(2), .last_pct = -1,
					 .path = o->input };
	struct mp_session_opts so = { .symfs = o->symfs, .kallsyms = o->kallsyms,
				      .buildid_dir = s->bdir,
				      .want_comm = (keys & MP_HK_COMM) || o->filter.comms ||
						   (!o->sort && !o->csv && !o->json),
				      .want_cpu = (keys & MP_HK_CPU) != 0,
				      .want_region = (keys & MP_HK_REGION) ? "--sort region" : NULL,
				      .progress = progress_cb, .progress_ctx = &s->ps, .pd = s->pd };
	s->pd = NULL; /* the session's now (closed by it on error too) */
	/* chains cut as perf cuts them by default (its --max-stack is the sysctl
	 * kernel.perf_event_max_stack, 127 unless raised): a chain of thousands of frames
	 * gives trees of 127 levels, not of thousands under each of thousands of entries */
	unsigned cut = o->max_stack == REPORT_MAX_STACK_UNSET ? REPORT_MAX_STACK : o->cgo.max_stack;
	struct mp_cg_opts co = { .want_comm = 1, .max_stack = cut,
				 .caller_limit = !o->cgo.callee, .inline_entries = !o->no_inline,
				 .want_mem = o->pprof != NULL };
	s->ss = s->want_cg ? mp_cg_session_new(o->input, &so, &co, &s->cg, &err)
			   : mp_session_new(o->input, &so, &err);
	if (!s->ss) {
		if (s->ps.on)
			fprintf(stderr, "\r\033[K");
		cli_error(CMD, "%s", err.msg[0] ? err.msg : mp_strerror(err.code));
		return 1;
	}
	s->na = mp_pd_nattrs(mp_session_pd(s->ss));
	s->ev = calloc(s->na + 1, sizeof(size_t));
	s->tot = calloc(s->na + 1, sizeof(*s->tot));
	if (!s->ev || !s->tot) {
		cli_error(CMD, "out of memory");
		return 1;
	}
	s->nev = pick_events(mp_session_pd(s->ss), mp_session_hist(s->ss), s->ev);
	for (size_t i = 0; i < s->na; i++)
		s->tot[i] = *mp_hist_total(mp_session_hist(s->ss), i);
	if (o->events &&
	    (rc = cli_select_events(CMD, mp_session_pd(s->ss), o->events, s->ev, &s->nev)))
		return rc;
	/* the text table of a simulated recording: its key columns (--csv, --json, the
	 * exports and --header-only keep every event) */
	if (!o->events && !o->csv && !o->json && !o->pprof && !o->folded && !o->header_only)
		s->nev = cli_sim_key_events(mp_session_pd(s->ss), s->ev, s->nev, 5, s->keynote,
					    sizeof(s->keynote));
	if (s->cg && s->cg_maybe && !mp_cg_nr_chains(s->cg)) {
		mp_cg_free(s->cg); /* no chains came: the report without them */
		s->cg = NULL;
	}
	return REPORT_GO;
}

/* --pprof: the call chains as a pprof profile. 0 or a negative errno (said). */
static int report_pprof(const struct report_opts *o, struct report_state *s)
{
	struct mp_err err = { 0 };
	struct mp_cg_pprof_event *pe = calloc(s->nev + 1, sizeof(*pe));
	char comment[4200];
	snprintf(comment, sizeof(comment), "memprof report --pprof of %s", o->input);
	for (size_t j = 0; pe && j < s->nev; j++) {
		const struct mp_pd_attr *a = mp_pd_attr(mp_session_pd(s->ss), s->ev[j]);
		pe[j] = (struct mp_cg_pprof_event){
			.name = a->spec && *a->spec ? a->spec : a->name, .attr = s->ev[j],
			.period = a->attr.freq ? 0 : a->attr.sample_period };
	}
	int rc = pe ? mp_cg_pprof_write(s->cg, mp_session_sym(s->ss), pe, s->nev, comment,
					o->pprof, o->input, &err)
		    : mp_err_set(&err, -ENOMEM, "%s: out of memory", o->pprof);
	free(pe);
	if (rc)
		cli_error(CMD, "--pprof %s", err.msg);
	return rc;
}

/* --folded: one line per distinct stack on stdout. 0 or a negative errno (said). */
static int report_folded(const struct report_opts *o, struct report_state *s)
{
	size_t fe = 0;
	int rc;
	if (o->event && report_pick_event(mp_session_pd(s->ss), s->ev, s->nev, o->event, &fe)) {
		cli_error(CMD, "--event %s: not an event of %s", o->event, o->input);
		return -EINVAL;
	}
	if ((rc = mp_cg_resolve(s->cg, mp_session_sym(s->ss), s->inl ? 2 : 0)) ||
	    (rc = report_cg_folded(stdout, s->cg, s->nev ? s->ev[fe] : 0, o->folded_period,
				   s->inl))) {
		cli_error(CMD, "%s: %s", o->input, mp_strerror(rc));
		return rc;
	}
	return 0;
}

/* The rows of the table (s->res), of the objects table (s->objs), the missing symbols
 * and the call graph's table. 0 or a negative errno (said). */
static int report_query(struct report_opts *o, struct report_state *s)
{
	int rc;
	if (!o->sort && !o->csv && !o->json && !o->pf.on && several_comms(s->ss)) {
		/* several commands in the file (-a, a shell and its children): say whose (the
		 * text table; --csv and --json keep dso,sym for the scripts that read them) */
		o->keys |= MP_HK_COMM;
		memmove(&o->cols.c[1], &o->cols.c[0], o->cols.n * sizeof(o->cols.c[0]));
		o->cols.c[0] = COL_COMM;
		o->cols.n++;
	}
	unsigned keys = o->keys;
	size_t na = s->na;
	/* one skid rule for lines in report and annotate: back one instruction */
	s->skid = calloc(na + 1, 1);
	for (size_t i = 0; s->skid && i < na && !o->no_skid &&
			   (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE));
	     i++)
		s->skids |= s->skid[i] = (unsigned char)mp_ann_event_skids(
			&mp_pd_attr(mp_session_pd(s->ss), i)->attr);
	struct mp_hist_query q = { .keys = keys, .sort_attr = s->nev ? s->ev[0] : 0,
				   .skid = s->skid, .filter = o->filter,
				   .regions = mp_session_regions(s->ss) };
	rc = mp_hist_query(mp_session_hist(s->ss), mp_session_sym(s->ss), &q, &s->res);
	s->want_objs = !o->no_objects && !o->csv && !o->json && !o->pf.on && keys != MP_HK_DSO;
	if (!rc && s->want_objs) {
		struct mp_hist_query qo = q;
		qo.keys = MP_HK_DSO;
		rc = mp_hist_query(mp_session_hist(s->ss), mp_session_sym(s->ss), &qo, &s->objs);
	}
	if (!rc) {
		s->nmiss =
			mp_hist_missing(mp_session_hist(s->ss), mp_session_sym(s->ss), 1, &s->miss);
		if (s->nmiss < 0)
			rc = (int)s->nmiss;
	}
	if (!rc && o->percentage && !strcmp(o->percentage, "relative") &&
	    mp_filter_any(&o->filter)) {
		/* perf's --percentage relative: of the samples the filters keep */
		memset(s->tot, 0, s->na * sizeof(*s->tot));
		for (size_t r = 0; r < s->res.nrows; r++)
			for (size_t a = 0; a < s->na && a < s->res.nattrs; a++) {
				s->tot[a].samples += s->res.rows[r].c[a].samples;
				s->tot[a].period += s->res.rows[r].c[a].period;
			}
	}
	if (!rc && s->cg && !(rc = mp_cg_resolve(s->cg, mp_session_sym(s->ss), s->inl ? 2 : 0)))
		rc = mp_cg_table(s->cg, s->nev ? s->ev[0] : 0, (keys & MP_HK_COMM) != 0, &s->cgt);
	if (rc)
		cli_error(CMD, "%s: %s", o->input, mp_strerror(rc));
	return rc;
}

/* The report on stdout in the form asked for. 0 or a negative errno (said). */
static int report_print(const struct report_opts *o, struct report_state *s)
{
	FILE *f = stdout;
	const mp_pd *pd = mp_session_pd(s->ss);
	unsigned keys = o->keys;
	int rc = 0;
	if (o->csv && s->cg) {
		report_cg_print_csv(f, s->cg, &s->cgt, pd, s->ev, s->nev, o->threshold);
	} else if (o->csv) {
		report_print_csv(f, keys, &s->res, s->tot, pd, s->ev, s->nev, o->threshold);
	} else if (o->json) {
		struct report_json_cg jc = { s->cg, &s->cgt, &o->cgo };
		report_print_json(f, o->input, keys, &s->res, s->tot, pd, s->ev, s->nev,
				  o->threshold, s->miss, s->nmiss, s->cg ? &jc : NULL);
	} else {
		report_print_header(f, o->input, pd, s->tot, NULL, s->ev, s->nev);
		if (s->keynote[0])
			fprintf(f, "%s\n#\n", s->keynote);
		if (o->group) {
			report_print_groups(f, pd, s->tot);
			fprintf(f, "#\n");
		}
		if (s->skids)
			fputs(REPORT_SKID_NOTE, f);
		report_print_missing(f, s->miss, s->nmiss, pd, s->tot, s->ev, s->nev, 0);
		if (o->pf.on) {
			if ((rc = report_pf_print(f, o, pd, mp_session_sym(s->ss), s->cg ? &s->cgt : NULL, &s->res, s->tot, s->ev, s->nev)))
				cli_error(CMD, "%s: %s", o->input, mp_strerror(rc));
			return rc;
		}
		static const struct report_cols objcols = { .c = { COL_DSO }, .n = 1 };
		if (s->want_objs)
			report_print_table(f, "Objects", &objcols, &s->objs, s->tot, pd, s->ev,
					   s->nev, o->threshold, o->full_names);
		char title[128];
		snprintf(title, sizeof(title), "By %s",
			 o->sort ? o->sort : keys & MP_HK_COMM ? "comm,dso,sym" : "dso,sym");
		if (s->cg) {
			struct report_cg cgo = o->cgo;
			for (size_t c = 0, k = 0; c < o->cols.n && k + 1 < sizeof(cgo.order); c++)
				if (o->cols.c[c] == COL_COMM || o->cols.c[c] == COL_DSO ||
				    o->cols.c[c] == COL_SYM)
					cgo.order[k++] = o->cols.c[c] == COL_COMM  ? 'c'
							 : o->cols.c[c] == COL_DSO ? 'd'
										   : 's';
			rc = report_cg_print_table(f, s->cg, &s->cgt, pd, s->ev, s->nev, &cgo,
						   o->threshold, o->full_names);
		}
		else
			report_print_table(f, title, &o->cols, &s->res, s->tot, pd, s->ev, s->nev,
					   o->threshold, o->full_names);
		if (rc)
			cli_error(CMD, "%s: %s", o->input, mp_strerror(rc));
	}
	return rc;
}

/* One recording's report once it is open: the call-graph outputs (--pprof, --folded) or
 * the table. 0 or a negative errno (said). */
static int report_one(struct report_opts *o, struct report_state *s)
{
	int rc = 0;
	if (s->cg && (o->callgraph || o->folded) && !mp_cg_nr_chains(s->cg)) {
		cli_error(CMD, "%s: no call chains in the recording (record with -g)", o->input);
		return -EINVAL;
	}
	/* inlined functions in the chains: as perf 6.1, in DWARF-unwound chains (by default;
	 * --inline: in every chain) */
	for (size_t i = 0; s->cg && !o->no_inline && i < mp_pd_nattrs(mp_session_pd(s->ss)); i++)
		s->inl |= o->inline_ || (mp_pd_attr(mp_session_pd(s->ss), i)->attr.sample_type &
					 PERF_SAMPLE_STACK_USER);
	if (o->header_only) {
		report_print_header(stdout, o->input, mp_session_pd(s->ss), s->tot, NULL, s->ev,
				    s->nev);
		if (o->group)
			report_print_groups(stdout, mp_session_pd(s->ss), s->tot);
	} else if (s->cg && o->pprof)
		return report_pprof(o, s);
	else if (s->cg && o->folded) {
		if ((rc = report_folded(o, s)))
			return rc;
	} else {
		if ((rc = report_query(o, s)))
			return rc;
		rc = report_print(o, s);
		if (!rc && o->threads)
			report_print_threads(stdout, mp_session_pd(s->ss));
	}
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(CMD, "writing the report: %s", strerror(errno));
		rc = -EIO;
	}
	return rc;
}

static void report_close(struct report_state *s)
{
	free(s->skid);
	free(s->miss);
	mp_hist_result_fini(&s->res);
	mp_hist_result_fini(&s->objs);
	free(s->ev);
	free(s->tot);
	mp_cg_table_fini(&s->cgt);
	mp_cg_free(s->cg);
	mp_pd_close(s->pd);
	mp_session_free(s->ss);
	free(s->bdir);
	cli_archive_done(&s->adir, &s->akall); /* objects are read lazily: only now */
}

static int cmd_report(int argc, char **argv)
{
	char *inputs = NULL; /* -i FILE, repeated: joined with ',' */
	struct report_opts o = { .max_stack = REPORT_MAX_STACK_UNSET };
	struct report_state s = { 0 };
	int rc = report_parse_args(argc, argv, &inputs, &o);
	if (rc == REPORT_GO)
		rc = report_check(&o);
	if (rc == REPORT_GO && o.mem_mode)
		rc = report_mem(&o);
	if (rc == REPORT_GO && o.off_cpu)
		rc = report_offcpu(&o);
	if (rc == REPORT_GO)
		rc = report_sort(&o);
	if (rc == REPORT_GO)
		rc = report_prepare(&o, &s);
	if (rc == REPORT_GO)
		rc = report_open(&o, &s);
	if (rc == REPORT_GO)
		rc = report_one(&o, &s) ? 1 : 0;
	report_close(&s);
	free(inputs);
	return rc;
}

const struct cli_cmd cli_cmd_report = {
	"report", cmd_report, "samples per object, symbol and source line, like opreport",
	"[-i FILE] [-e EVENTS] [--sort KEYS] [--comm C] [--pid P] [--tid T] [--dso D] [--symbols S] "
	"[--percent-limit PCT] [--mem-mode] [--off-cpu] [--stdio|--csv|--json] [--no-children] [-g SPEC] "
	"[--max-stack N] [--folded] [--pprof FILE] [-F FIELDS|--hierarchy] [-T]",
	"Samples, percentages and estimated counts per object, symbol and "
	"source line, one column pair per event.", 0,
};
