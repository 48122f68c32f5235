/* memprof annotate: the source of a function (or a whole file) with per-line samples and
 * percentages per event, the hottest lines marked, optionally the disassembly under each
 * line with per-instruction counts, like opannotate --source [--assembly]. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mp_analyzer.h"
#include "mp_predict.h"

#define CMD "annotate"
/* More events than this and no -e: only the first SHOWN_EVENTS are columns. */
#define MANY_EVENTS 6
#define SHOWN_EVENTS ((size_t)4)

struct ann_opts {
	const char *input, *symfs, *kallsyms, *predict, *archive, *events;
	const char *target;  /* SYMBOL, DSO:SYMBOL or SOURCE-FILE; NULL: the hot symbols */
	const char *data_type; /* --data-type[=TYPE]: "" every type; NULL not asked */
	int asm_, quiet, no_skid, period, samples, force;
	double threshold, hot;
};

static double pct(uint64_t v, uint64_t t)
{
	return t ? 100.0 * (double)v / (double)t : 0.0;
}

/* The count column is the number of samples, or with period the sum of their periods
 * (the estimated count; for a simulated file the exact simulated count); then the share of
 * the event in the whole recording (%all) and in the function or file (%func, what the
 * TUI's annotate shows as "percent of function"). */
static void print_counts(FILE *f, const struct mp_hist_counts *c, const struct mp_ann_info *in,
			 const size_t *ev, size_t nev, int period)
{
	for (size_t j = 0; j < nev; j++) {
		if (c[ev[j]].samples)
			fprintf(f, period ? " %12" PRIu64 " %7.2f%% %7.2f%%"
					  : " %9" PRIu64 " %7.2f%% %7.2f%%",
				period ? c[ev[j]].period : c[ev[j]].samples,
				pct(c[ev[j]].period, in->evtotal[ev[j]].period),
				pct(c[ev[j]].period, in->total[ev[j]].period));
		else
			fprintf(f, period ? " %12s %8s %8s" : " %9s %8s %8s", "", "", "");
	}
}

static void print_insn(FILE *f, const struct mp_ann_insn *ins, const struct mp_ann_info *in,
		       const size_t *ev, size_t nev, int period)
{
	fputs("  ", f);
	print_counts(f, ins->c, in, ev, nev, period);
	fprintf(f, " :   %12" PRIx64 ":  %s\n", ins->addr, ins->text);
}

static int same_file(const char *a, const char *b)
{
	if (a == b)
		return 1;
	return a && b && !strcmp(a, b);
}

/* --predict: the predict file's counts, and the recording's branch events (-1: none). */
struct ann_predict {
	const struct mp_predict *p;
	long br, miss;
};

/* After a hinted line: its hint and counts, and the measured misprediction rate there. */
static void print_predict_note(FILE *f, const struct ann_predict *ap, const struct mp_ann_line *L)
{
	char note[256];
	int warn;
	uint64_t br = 0, miss = 0;
	if (!ap || !ap->p || !L->line)
		return;
	if (ap->br >= 0 && ap->miss >= 0) {
		br = L->c[ap->br].period;
		miss = L->c[ap->miss].period;
	}
	if (mp_predict_note(ap->p, L->srcfile, L->line, br, miss, note, sizeof(note), &warn))
		fprintf(f, "   <-- %s", note);
}

/* Print one model. ev: the events shown (columns). */
static void print_ann(FILE *f, const mp_ann *a, const mp_pd *pd, const size_t *ev, size_t nev,
		      int with_asm, int period, const struct ann_predict *ap)
{
	const struct mp_ann_info *in = mp_ann_info(a);
	size_t nl = mp_ann_nlines(a), ni = mp_ann_ninsns(a);

	if (in->sym)
		fprintf(f, "# %s:%s  [0x%" PRIx64 "-0x%" PRIx64 ")\n", in->dso ? in->dso : "?",
			in->sym, in->start, in->start + in->size);
	else
		fprintf(f, "# source file %s\n", in->srcfile);
	if (in->sym && in->srcfile)
		fprintf(f, "# source: %s\n", in->srcfile);
	char sim[512];
	if (mp_pd_sim_banner(pd, sim, sizeof(sim)))
		fprintf(f, "# %s\n", sim);
	if (in->note)
		fprintf(f, "# note: %s\n", in->note);
	fprintf(f, "# total:");
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *at = mp_pd_attr(pd, ev[j]);
		fprintf(f, "%s %s %" PRIu64 " %s (%.2f%%)", j ? "," : "",
			at->spec && *at->spec ? at->spec : at->name,
			period ? in->total[ev[j]].period : in->total[ev[j]].samples,
			period ? "counted" : "samples",
			pct(in->total[ev[j]].period, in->evtotal[ev[j]].period));
	}
	fprintf(f, "\n# %%all: share of the event in the whole recording; %%func: share of "
		   "the event in this %s (as the TUI's percent of function)\n#\n#  ",
		in->sym ? "function" : "file");
	for (size_t j = 0; j < nev; j++) {
		const struct mp_pd_attr *at = mp_pd_attr(pd, ev[j]);
		fprintf(f, period ? " %-30.30s" : " %-27.27s", at->spec && *at->spec ? at->spec : at->name);
	}
	fprintf(f, "\n#  ");
	for (size_t j = 0; j < nev; j++)
		fprintf(f, period ? " %12s %8s %8s" : " %9s %8s %8s", period ? "count" : "samples",
			"%all", "%func");
	fprintf(f, " : %5s  %s\n", "line", "source  (=> hottest line, * hot line)");

	/* the hottest line by the first event */
	uint64_t best = 0;
	for (size_t i = 0; i < nl; i++)
		if (mp_ann_line(a, i)->c[ev[0]].period > best)
			best = mp_ann_line(a, i)->c[ev[0]].period;
	int printed_total = 0;
	const char *cur_file = in->srcfile;
	/* without the source text: the lines that have code, each with its instructions */
	int no_text = in->has_debuginfo && !in->src_readable;
	if (no_text)
		with_asm = 1;
	if (!in->has_debuginfo) {
		/* assembly only */
		for (size_t i = 0; i < ni; i++)
			print_insn(f, mp_ann_insn(a, i), in, ev, nev, period);
		fputc('\n', f);
		return;
	}
	for (size_t i = 0; i < nl; i++) {
		const struct mp_ann_line *L = mp_ann_line(a, i);
		if (no_text && !L->ninsns && (printed_total || !in->sym))
			continue;
		if (!same_file(L->srcfile, cur_file)) {
			fprintf(f, "#\n# %s\n", L->srcfile ? L->srcfile : "(no line information)");
			cur_file = L->srcfile;
		} else if (i && L->line > mp_ann_line(a, i - 1)->line + 1 && mp_ann_line(a, i - 1)->line &&
			   same_file(mp_ann_line(a, i - 1)->srcfile, in->srcfile) &&
			   same_file(L->srcfile, in->srcfile)) {
			/* lines of other functions left out (between an inlined helper and the
			 * function) */
			fprintf(f, "%*s :   ...\n", (int)(2 + nev * (period ? 31 : 28)), "");
		}
		const char *mark = "  ";
		if (L->hot && L->c[ev[0]].period == best && best)
			mark = "=>";
		else if (L->hot)
			mark = "* ";
		fputs(mark, f);
		print_counts(f, L->c, in, ev, nev, period);
		if (L->line) {
			fprintf(f, " : %5u  %s", L->line, L->text ? L->text : "");
			print_predict_note(f, ap, L);
		}
		else
			fprintf(f, " : %5s  %s", "?", "(addresses without line information)");
		if (!printed_total && in->sym) {
			/* opannotate's "function total" on the function's first line */
			fprintf(f, "  /* %s total:", in->sym);
			for (size_t j = 0; j < nev; j++)
				fprintf(f, " %" PRIu64 " %.2f%%",
					period ? in->total[ev[j]].period : in->total[ev[j]].samples,
					pct(in->total[ev[j]].period, in->evtotal[ev[j]].period));
			fprintf(f, " */");
			printed_total = 1;
		}
		fputc('\n', f);
		if (with_asm)
			for (size_t k = 0; k < L->ninsns; k++)
				print_insn(f, mp_ann_insn(a, L->insns[k]), in, ev, nev, period);
	}
	fputc('\n', f);
}

static size_t pick_events(const mp_pd *pd, const mp_hist *h, size_t *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		if (mp_hist_total(h, i)->samples)
			ev[n++] = i;
	if (!n)
		ev[n++] = 0;
	return n;
}

/* "dso:sym": split at a single ':' (not C++'s "::") when dso names an object. */
static int split_target(mp_sym *s, const char *arg, char **dso, const char **sym)
{
	for (const char *p = arg; (p = strchr(p, ':')); p++) {
		if (p[1] == ':') {
			p++;
			continue;
		}
		if (p > arg && p[-1] == ':')
			continue;
		char *d = strndup(arg, (size_t)(p - arg));
		if (!d)
			return -ENOMEM;
		if (mp_sym_dso_find(s, d) >= 0) {
			*dso = d;
			*sym = p + 1;
			return 0;
		}
		free(d);
		break;
	}
	*dso = NULL;
	*sym = arg;
	return 0;
}

/* The last "::" component of a name without its template arguments, for "did you mean". */
static const char *unqualified(const char *name, char *buf, size_t n)
{
	mp_sym_short_name(name, buf, n);
	for (char *p = buf; (p = strstr(p, "<...>"));)
		memmove(p, p + 5, strlen(p + 5) + 1);
	const char *c = strrchr(buf, ':');
	return c ? c + 1 : buf;
}

/* The sampled symbol the user meant by want (in dso, when given): the hottest of those
 * whose name matches best (mp_sym_name_match), a mangled name demangled first. NULL when
 * none matches; then hint holds the closest names. *others counts the other matches. */
static const struct mp_hist_row *find_symbol(mp_sym *syms, const struct mp_hist_result *r,
					     const char *want, char *hint, size_t nhint,
					     size_t *others)
{
	char *dm = mp_sym_demangle(syms, want);
	const char *w = dm ? dm : want;
	const struct mp_hist_row *best = NULL;
	int lvl = 0;
	*others = 0;
	hint[0] = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct mp_hist_row *R = &r->rows[i];
		int m = R->sym_resolved ? mp_sym_name_match(R->sym, w) : 0;
		if (m > lvl) {
			best = R;
			lvl = m;
			*others = 0;
		} else if (m && m == lvl && !(best && !strcmp(best->sym, R->sym))) {
			(*others)++;
		}
	}
	if (!best) {
		/* did you mean: the sampled names nearest to what was typed */
		char a[256], b[256];
		const char *uw = unqualified(w, a, sizeof(a));
		size_t lim = strlen(uw) / 3 + 1, used = 0;
		for (size_t d = 0; d <= lim; d++)
			for (size_t i = 0; i < r->nrows && used < 3; i++) {
				const struct mp_hist_row *R = &r->rows[i];
				if (!R->sym_resolved || strlen(R->sym) > sizeof(b) - 1)
					continue;
				if (mp_edit_distance(uw, unqualified(R->sym, b, sizeof(b)), 0) != d)
					continue;
				size_t len = strlen(hint);
				snprintf(hint + len, nhint - len, "%s%s", used ? ", " : "", R->sym);
				used++;
			}
	}
	free(dm);
	return best;
}

/* annotate -i A -i B: the recordings after the first, each with its attr for each of the
 * first's attrs and its own skid flags. */
struct ann_multi {
	struct mp_multi m;
	int on;
	size_t **amap;           /* [n][nattrs of the first]: file i's attr, SIZE_MAX none */
	unsigned char **skid;    /* [n][nattrs of file i] */
};

static void ann_multi_fini(struct ann_multi *am)
{
	for (size_t i = 0; am->on && i < am->m.n; i++) {
		free(am->amap ? am->amap[i] : NULL);
		free(am->skid ? am->skid[i] : NULL);
	}
	free(am->amap);
	free(am->skid);
	mp_multi_close(&am->m);
	am->on = 0;
}

static int ann_multi_init(struct ann_multi *am, int no_skid)
{
	size_t n = am->m.n, na0 = mp_pd_nattrs(mp_session_pd(am->m.ss[0]));
	am->amap = calloc(n, sizeof(*am->amap));
	am->skid = calloc(n, sizeof(*am->skid));
	if (!am->amap || !am->skid)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t nai = mp_pd_nattrs(mp_session_pd(am->m.ss[i]));
		am->amap[i] = malloc((na0 + 1) * sizeof(size_t));
		am->skid[i] = calloc(nai + 1, 1);
		if (!am->amap[i] || !am->skid[i])
			return -ENOMEM;
		for (size_t e = 0; e < na0; e++)
			am->amap[i][e] = SIZE_MAX;
		for (size_t j = 0; j < am->m.nev; j++)
			am->amap[i][am->m.ev[j]] = am->m.map[i * am->m.nev + j];
		for (size_t k = 0; k < nai && !no_skid; k++)
			am->skid[i][k] = (unsigned char)mp_ann_event_skids(
				&mp_pd_attr(mp_session_pd(am->m.ss[i]), k)->attr);
	}
	return 0;
}

/* Add the same function (or source file) of the other recordings into a: 0, or -EXDEV
 * with err when one holds another build of it. */
static int ann_multi_add(const struct ann_multi *am, mp_ann *a, const char *file, double hot,
			 struct mp_err *err)
{
	const struct mp_ann_info *in = mp_ann_info(a);
	for (size_t i = 1; am->on && i < am->m.n; i++) {
		mp_hist *hi = mp_session_hist(am->m.ss[i]);
		mp_sym *si = mp_session_sym(am->m.ss[i]);
		struct mp_ann_opts ao = { .hot_pct = hot, .skid = am->skid[i] };
		struct mp_err e2 = { 0 };
		mp_ann *b = file ? mp_ann_new_file(hi, si, file, hot, &e2)
				 : mp_ann_new_opts(hi, si, in->dso, in->sym, &ao, &e2);
		int rc = mp_ann_add(a, b, hi, am->amap[i], err);
		mp_ann_free(b);
		if (rc) {
			char msg[sizeof(err->msg)];
			snprintf(msg, sizeof(msg), "%s", err->msg);
			mp_err_set(err, rc, "%s: %s", am->m.paths[i], msg);
			return rc;
		}
	}
	return 0;
}

struct hot_row {
	uint64_t period;
	size_t row;
};

static int hot_row_cmp(const void *pa, const void *pb)
{
	const struct hot_row *a = pa, *b = pb;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* What a step of the run returns to go on (else the exit status). */
#define ANN_GO (-1)

/* The run, from the recording's opening to the printed annotations (ann_close frees it). */
struct ann_state {
	struct mp_err err;
	struct mp_predict pred;   /* --predict */
	struct ann_predict ap;
	char *adir, *akall;       /* --archive: its folder and kernel symbols */
	mp_session *ss;           /* the recording, or the first of several (am's) */
	int opened;               /* ss is a session of its own */
	struct ann_multi am;
	char *plist;
	const char **paths;       /* several recordings: their names (in plist) */
	size_t *ev, nev;          /* the events shown */
	int show_period;
	unsigned char *skid;
	struct mp_ann_opts ao;
};

/* The command line into o. ANN_GO, or the exit status (--help, a usage error, no input). */
static int ann_parse_args(int argc, char **argv, char **inputs, struct ann_opts *o)
{
	const struct cli_opt opts[] = {
		CLI_OPT_INPUTS(inputs),
		CLI_OPT_FORCE(&o->force),
		{ 'e', "events", CLI_STR, &o->events, "EVENTS",
		  "show these events' columns, in this order (default: every event with samples; "
		  "the first 4 when there are more than 6)" },
		{ 'a', "asm", CLI_FLAG, &o->asm_, NULL,
		  "interleave the disassembly with per-instruction counts" },
		{ 't', "threshold", CLI_DOUBLE, &o->threshold, "PCT",
		  "without SYMBOL: annotate the symbols above PCT percent (default 1)" },
		{ 0, "hot", CLI_DOUBLE, &o->hot, "PCT",
		  "mark lines with PCT percent of the function or more (default 5, as the TUI)" },
		CLI_OPT_SYMFS(&o->symfs),
		CLI_OPT_KALLSYMS(&o->kallsyms),
		CLI_OPT_ARCHIVE(&o->archive),
		{ 0, "period", CLI_FLAG, &o->period, NULL,
		  "show the sum of sample periods (estimated count) instead of the number of samples; the default for simulated recordings" },
		{ 0, "samples", CLI_FLAG, &o->samples, NULL,
		  "show the number of samples (the default, except for simulated recordings)" },
		{ 0, "no-skid", CLI_FLAG, &o->no_skid, NULL,
		  "count samples at the sampled IP, without moving skidding events' samples back "
		  "one instruction" },
		{ 0, "predict", CLI_STR, &o->predict, "FILE",
		  "after each line with a likely()/unlikely() hint, its counts from the predict FILE "
		  "(memprof predict), WARNING where the hint is wrong, and the branch misses "
		  "measured there when the recording has branch events" },
		{ 'q', "quiet", CLI_FLAG, &o->quiet, NULL, "no progress display" },
		{ 0, "data-type", CLI_OPTSTR, &o->data_type, "TYPE",
		  "instead of code: the data types the samples' addresses fell in (or TYPE: "
		  "'struct rec', 'rec'), each member with its samples, the holes, padding and "
		  "cache line boundaries (perf annotate --data-type; globals, statics and heap "
		  "objects recorded with --alloc)" },
		{ CLI_END, NULL, CLI_END, NULL, NULL, NULL },
	};
	int nargs = 0;
	int rc = cli_parse(&cli_cmd_annotate, opts, argc, argv, &nargs);
	if (rc == 1)
		return 0;
	if (rc)
		return CLI_EXIT_USAGE;
	o->input = *inputs;
	if (nargs > 1) {
		cli_error(CMD, "one SYMBOL or source file at a time ('%s' is extra)", argv[2]);
		return CLI_EXIT_USAGE;
	}
	o->target = nargs == 1 ? argv[1] : NULL;
	if (o->data_type && o->target) {
		cli_error(CMD, "--data-type annotates types, not '%s' (name the type: "
			  "--data-type='struct rec')", o->target);
		return CLI_EXIT_USAGE;
	}
	if (o->threshold < 0 || o->threshold > 100 || isnan(o->threshold) || o->hot < 0 ||
	    o->hot > 100 || isnan(o->hot)) {
		cli_error(CMD, "--threshold and --hot take a percentage between 0 and 100");
		return CLI_EXIT_USAGE;
	}
	if (cli_input_ready(CMD, &o->input, o->force))
		return CLI_EXIT_RUNTIME;
	if (cli_sym_paths_ok(CMD, o->symfs, o->kallsyms))
		return CLI_EXIT_RUNTIME;
	return ANN_GO;
}

/* -i A -i B: the recordings opened together (s->am), their list printed. 0 or a negative
 * errno with s->err set. */
static int ann_open_many(const struct ann_opts *o, struct ann_state *s,
			 const struct mp_session_opts *so)
{
	struct ann_multi *am = &s->am;
	size_t n = 1;
	for (const char *p = o->input; *p; p++)
		n += *p == ',';
	s->plist = strdup(o->input);
	s->paths = calloc(n, sizeof(*s->paths));
	if (!s->plist || !s->paths)
		return mp_err_set(&s->err, -ENOMEM, "out of memory");
	n = 0;
	for (char *sp = s->plist, *tok; (tok = strsep(&sp, ","));)
		s->paths[n++] = tok;
	int rc = mp_multi_open(&am->m, s->paths, NULL, n, 1, so, &s->err);
	if (rc)
		return rc;
	am->on = 1;
	s->ss = am->m.ss[0];
	for (size_t i = 1; i < n; i++) {
		const char *what = mp_pd_build_id_differs(mp_session_pd(am->m.ss[0]),
							  mp_session_pd(am->m.ss[i]));
		if (what)
			cli_warn(CMD, "%s: %s has another build-id than in %s", s->paths[i], what,
				 s->paths[0]);
	}
	if (ann_multi_init(am, o->no_skid)) {
		ann_multi_fini(am);
		return mp_err_set(&s->err, -ENOMEM, "out of memory");
	}
	printf("# %zu recordings summed (instructions matched by address, events by "
	       "attributes):\n", n);
	for (size_t i = 0; i < n; i++)
		printf("#   %s: %" PRIu64 " samples of %s\n", s->paths[i],
		       mp_hist_total(mp_session_hist(am->m.ss[i]), am->m.map[i * am->m.nev])
			       ->samples,
		       mp_pd_attr(mp_session_pd(am->m.ss[i]), am->m.map[i * am->m.nev])->name);
	printf("#\n");
	return 0;
}

/* --predict read, the objects' places (--archive, the build-id cache), the recording or
 * recordings opened. ANN_GO, or the exit status. */
static int ann_open(const struct ann_opts *o, struct ann_state *s)
{
	s->ap = (struct ann_predict){ NULL, -1, -1 };
	if (o->predict) {
		if (mp_predict_read(&s->pred, o->predict, &s->err)) {
			cli_error(CMD, "--predict %s", s->err.msg);
			return 1;
		}
		s->ap.p = &s->pred;
	}
	if (o->archive && cli_archive_use(CMD, o->archive, o->input, &s->adir, &s->akall))
		return 1;
	char *bdir = s->adir ? strdup(s->adir) : cli_buildid_dir(o->symfs);
	struct mp_session_opts so = { .symfs = o->symfs, .buildid_dir = bdir,
				      .kallsyms = o->kallsyms ? o->kallsyms : s->akall };
	int rc = strchr(o->input, ',')                            ? ann_open_many(o, s, &so)
		 : (s->ss = mp_session_new(o->input, &so, &s->err)) ? 0
								    : s->err.code;
	free(bdir); /* copied by the session */
	if (rc) {
		cli_error(CMD, "%s", s->err.msg[0] ? s->err.msg : mp_strerror(rc));
		return 1;
	}
	s->opened = !s->am.on;
	return ANN_GO;
}

/* The events shown (-e, else those with samples, at most SHOWN_EVENTS of many), the
 * branch events for --predict's notes, counts or periods, the skid rule. ANN_GO, or the
 * exit status. */
static int ann_events(const struct ann_opts *o, struct ann_state *s)
{
	const mp_pd *pd = mp_session_pd(s->ss);
	for (size_t i = 0; i < mp_pd_nattrs(pd) && s->ap.p; i++) {
		const struct mp_pd_attr *at = mp_pd_attr(pd, i);
		int k = mp_predict_branch_event(at->attr.type, at->attr.config, at->name);
		if (k == MP_PREDICT_EV_BRANCHES && s->ap.br < 0)
			s->ap.br = (long)i;
		else if (k == MP_PREDICT_EV_MISSES && s->ap.miss < 0)
			s->ap.miss = (long)i;
	}
	s->ev = calloc(mp_pd_nattrs(pd) + 1, sizeof(size_t));
	if (!s->ev) {
		cli_error(CMD, "out of memory");
		return 1;
	}
	s->nev = pick_events(pd, mp_session_hist(s->ss), s->ev);
	if (o->events) {
		int rc = cli_select_events(CMD, pd, o->events, s->ev, &s->nev);
		if (rc)
			return rc;
	} else if (mp_pd_meta(pd, MP_META_SIMULATED) && s->nev > CLI_SIM_MANY_EVENTS) {
		/* the misses, not only the first events (Ir, Dr, Dw, I1mr) */
		char note[1024];
		s->nev = cli_sim_key_events(pd, s->ev, s->nev, SHOWN_EVENTS, note, sizeof(note));
		if (note[0])
			fprintf(stdout, "%s\n", note);
	}
	if (!o->events && s->nev > MANY_EVENTS) {
		/* 13 simulated events make 491 columns: the first ones, and how to choose */
		fprintf(stdout, "# showing %zu of %zu events (-e to choose):", SHOWN_EVENTS, s->nev);
		for (size_t j = 0; j < s->nev; j++) {
			const struct mp_pd_attr *at = mp_pd_attr(pd, s->ev[j]);
			fprintf(stdout, "%s %s%s", j ? "," : "",
				at->spec && *at->spec ? at->spec : at->name,
				j < SHOWN_EVENTS ? "" : " (hidden)");
		}
		fputc('\n', stdout);
		s->nev = SHOWN_EVENTS;
	}
	/* A simulated recording's samples are one per address: their number means nothing. */
	s->show_period = o->period || (!o->samples && mp_pd_meta(pd, MP_META_SIMULATED));
	s->skid = calloc(mp_pd_nattrs(pd) + 1, 1);
	if (!s->skid) {
		cli_error(CMD, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < mp_pd_nattrs(pd) && !o->no_skid; i++)
		s->skid[i] = (unsigned char)mp_ann_event_skids(&mp_pd_attr(pd, i)->attr);
	s->ao = (struct mp_ann_opts){ .hot_pct = o->hot, .skid = s->skid };
	return ANN_GO;
}

/* stdout flushed: status, or 1 after saying why it could not be written. */
static int ann_flush(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		cli_error(CMD, "writing: %s", strerror(errno));
		status = 1;
	}
	return status;
}

/* annotate SYMBOL, DSO:SYMBOL or a source file. Returns the exit status. */
static int ann_target(const struct ann_opts *o, struct ann_state *s)
{
	mp_hist *hist = mp_session_hist(s->ss);
	mp_sym *syms = mp_session_sym(s->ss);
	struct mp_err *err = &s->err;
	const char *arg = o->target;
	char *dso = NULL;
	const char *sym;
	if (split_target(syms, arg, &dso, &sym)) {
		cli_error(CMD, "out of memory");
		return 1;
	}
	mp_ann *a = mp_ann_new_opts(hist, syms, dso, sym, &s->ao, err);
	char hint[1024] = "";
	if (!a) {
		/* C++: "scan", "lexer::scan" or the mangled name of demo::lexer::scan */
		struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM, .sort_attr = s->ev[0],
					   .dso = dso };
		struct mp_hist_result r;
		size_t others = 0;
		if (!mp_hist_query(hist, syms, &q, &r)) {
			const struct mp_hist_row *R =
				find_symbol(syms, &r, sym, hint, sizeof(hint), &others);
			if (R) {
				struct mp_err e2 = { 0 };
				a = mp_ann_new_opts(hist, syms, R->dso, R->sym, &s->ao, &e2);
				if (a && others)
					cli_warn(CMD, "'%s' matches %zu more symbol%s; annotating "
						 "the hottest, %s (name it as shown by report "
						 "to choose)", sym, others, others > 1 ? "s" : "",
						 R->sym);
				if (!a)
					*err = e2;
			}
			mp_hist_result_fini(&r);
		}
	}
	if (!a && !dso) {
		struct mp_err ferr = { 0 };
		a = mp_ann_new_file(hist, syms, arg, o->hot, &ferr);
		if (!a && strpbrk(arg, "./"))
			*err = ferr;
	}
	free(dso);
	if (!a) {
		cli_error(CMD, "%s: %s%s%s%s", s->am.on ? s->paths[0] : o->input, err->msg,
			  hint[0] ? " (did you mean " : "", hint, hint[0] ? "?)" : "");
		return 1;
	}
	if (ann_multi_add(&s->am, a, mp_ann_info(a)->sym ? NULL : arg, o->hot, err)) {
		cli_error(CMD, "%s", err->msg);
		mp_ann_free(a);
		return 1;
	}
	print_ann(stdout, a, mp_session_pd(s->ss), s->ev, s->nev, o->asm_, s->show_period, &s->ap);
	mp_ann_free(a);
	return ann_flush(0);
}

/* annotate without a target: the symbols above --threshold, hottest first (of all the
 * recordings together). Returns the exit status. */
static int ann_hot(const struct ann_opts *o, struct ann_state *s)
{
	mp_hist *hist = mp_session_hist(s->ss);
	mp_sym *syms = mp_session_sym(s->ss);
	struct ann_multi *am = &s->am;
	const size_t *ev = s->ev;
	struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM, .sort_attr = ev[0] };
	struct mp_hist_result r = { 0 };
	struct mp_hist_merged mg = { 0 };
	struct hot_row *order = NULL;
	size_t nrows = 0;
	int status = 0;
	uint64_t tot = mp_hist_total(hist, ev[0])->period;
	if (am->on) {
		size_t col = 0;
		for (size_t j = 0; j < am->m.nev; j++)
			if (am->m.ev[j] == ev[0])
				col = j;
		if (!mp_multi_query(&am->m, &q, &mg) &&
		    (order = calloc(mg.nrows + 1, sizeof(*order)))) {
			nrows = mg.nrows;
			for (size_t i = 0; i < nrows; i++)
				order[i] = (struct hot_row){
					mg.counts[i * mg.ncols * mg.ngroups + col].period, i };
			qsort(order, nrows, sizeof(*order), hot_row_cmp);
			tot = am->m.total[col].period;
		}
	} else if (!mp_hist_query(hist, syms, &q, &r) &&
		   (order = calloc(r.nrows + 1, sizeof(*order)))) {
		nrows = r.nrows;
		for (size_t i = 0; i < nrows; i++)
			order[i] = (struct hot_row){ r.rows[i].c[ev[0]].period, i };
	}
	if (!order) {
		mp_hist_merged_fini(&mg);
		mp_hist_result_fini(&r);
		cli_error(CMD, "out of memory");
		return 1;
	}
	size_t shown = 0;
	for (size_t i = 0; i < nrows && status == 0; i++) {
		const struct mp_hist_row *R = am->on ? &mg.rows[order[i].row] : &r.rows[order[i].row];
		if (!R->sym_resolved || pct(order[i].period, tot) < o->threshold)
			continue;
		mp_ann *a = mp_ann_new_opts(hist, syms, R->dso, R->sym, &s->ao, &s->err);
		if (!a) {
			if (am->on)
				printf("# %s (%s): no samples in %s, the first recording: not "
				       "annotated (name it to -i first)\n\n", R->sym,
				       R->dso ? R->dso : "?", s->paths[0]);
			else
				cli_warn(CMD, "%s", s->err.msg);
			continue;
		}
		if (ann_multi_add(am, a, NULL, o->hot, &s->err)) {
			cli_error(CMD, "%s", s->err.msg);
			status = 1;
		} else {
			print_ann(stdout, a, mp_session_pd(s->ss), ev, s->nev, o->asm_,
				  s->show_period, &s->ap);
			shown++;
		}
		mp_ann_free(a);
	}
	free(order);
	mp_hist_merged_fini(&mg);
	mp_hist_result_fini(&r);
	if (!shown)
		printf("# no resolved symbol holds %.2f%% of the samples or more\n", o->threshold);
	return ann_flush(status);
}

static void ann_close(struct ann_state *s)
{
	free(s->skid);
	free(s->ev);
	if (s->am.on)
		ann_multi_fini(&s->am);
	else if (s->opened)
		mp_session_free(s->ss);
	free(s->plist);
	free(s->paths);
	mp_predict_fini(&s->pred);
	cli_archive_done(&s->adir, &s->akall); /* objects are read lazily: only now */
}

static int cmd_annotate(int argc, char **argv)
{
	char *inputs = NULL; /* -i FILE, repeated: joined with ',' */
	struct ann_opts o = { .threshold = 1.0, .hot = 5.0 };
	struct ann_state s = { 0 };
	int rc = ann_parse_args(argc, argv, &inputs, &o);
	if (rc == ANN_GO && o.data_type) {
		rc = annotate_data_type(o.input, o.symfs, o.kallsyms, o.data_type, o.period);
		free(inputs);
		return rc;
	}
	if (rc == ANN_GO)
		rc = ann_open(&o, &s);
	if (rc == ANN_GO)
		rc = ann_events(&o, &s);
	if (rc == ANN_GO)
		rc = o.target ? ann_target(&o, &s) : ann_hot(&o, &s);
	ann_close(&s);
	free(inputs);
	return rc;
}

const struct cli_cmd cli_cmd_annotate = {
	"annotate", cmd_annotate, "source and assembly with per-line hits, like opannotate",
	"[-i FILE] [-e EVENTS] [--asm] [SYMBOL | DSO:SYMBOL | SOURCE-FILE]",
	"Source lines (and instructions) of a function or file with their "
	"samples per event, the hottest lines marked.", 0,
};
