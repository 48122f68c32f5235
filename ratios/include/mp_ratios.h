/* mp_ratios.h - the ratios module: a small formula language over event counts, ratio
 * definition files (*.ratios), and evaluation of ratios with 95% intervals from the
 * sample counts they rest on.
 *
 * Sections: (1) formulas, mp_formula_*; (2) ratio definitions, mp_ratio_set_*;
 * (3) binding a ratio to the events of a run and evaluating it, mp_ratio_*;
 * (4) glue to perf.data files, the events module and `memprof stat`.
 *
 * ---- The formula language -------------------------------------------------------------
 *   formula := sum
 *   sum     := product { ("+" | "-") product }
 *   product := unary { ("*" | "/") unary }
 *   unary   := "-" unary | primary
 *   primary := NUMBER | EVENT | "`" any text but "`" "`" | "(" sum ")"
 * Tokenizing rule: the text is split at whitespace and at "(" and ")". A piece that is
 * exactly "+", "-", "*" or "/" is an operator; a piece that starts with a digit or "."
 * is a NUMBER (strtod syntax, e.g. 6, 0.5, 1e3) and must be one as a whole; any other
 * piece is an EVENT name. So binary operators need whitespace (or a parenthesis) on both
 * sides: "LLC-load-misses" and "DISPATCH_STALLS_1:FE_NO_OPS:c=6" are single names, and
 * "a/b" is one (unknown) name, not a division. A name that holds whitespace or
 * parentheses is written between backticks: `cpu/event=0x3c,name=my cycles/`.
 * Errors carry the position: "article.ratios:12:27: expected an event, a number or '('".
 */
#ifndef MP_RATIOS_H
#define MP_RATIOS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_perfdata.h" /* struct mp_counts */
#include "mp_util.h"

/* ===== (1) formulas ===================================================================== */

typedef struct mp_formula mp_formula;

/* Parse text. src, line and col place the text in its file for error messages: the first
 * character of text is at src:line:col (1-based). NULL + err on a syntax error
 * ("src:line:col: message"). */
mp_formula *mp_formula_parse(const char *text, const char *src, unsigned line, unsigned col,
			     struct mp_err *err);
void mp_formula_free(mp_formula *f); /* NULL-safe */

/* The distinct event names of f, in order of first appearance; borrowed, valid until
 * mp_formula_free(). col = the column of the first use in the file. */
size_t mp_formula_nevents(const mp_formula *f);
const char *mp_formula_event(const mp_formula *f, size_t i);
unsigned mp_formula_event_col(const mp_formula *f, size_t i);
/* The text as parsed; borrowed. */
const char *mp_formula_src(const mp_formula *f);
/* 1 when the formula has a binary or unary '-' (the estimate may then go negative). */
int mp_formula_has_minus(const mp_formula *f);

/* Maximal sums of events only ("( D1mr + D1mw )"), each of whose events occurs once in
 * the formula: group_of[i] = 1.. the group of event i, 0 = in no such sum. Returns the
 * number of groups. (A simulated event can stand for such a sum as a whole.) */
size_t mp_formula_sum_groups(const mp_formula *f, unsigned *group_of /* OUT: [nevents] */);

/* Which side of the formula's main division each event is on: side[i] = 1 numerator,
 * -1 denominator, 0 neither (only when an event is in both: it counts as numerator). The
 * main division is the root, or the one under constant factors and signs ("100 * a / b",
 * "- a / b"). Returns 1 when there is such a division, else 0 with every event marked as
 * numerator. (The numerator's count orders places: the misses, not the accesses.) */
int mp_formula_sides(const mp_formula *f, int *side /* OUT: [nevents] */);

/* Check that every event name is known: known(ctx, name) returns non-zero for a known
 * name. First unknown name -> -MP_EPARSE, err "src:line:col: unknown event 'cyles'". */
int mp_formula_check(const mp_formula *f, int (*known)(void *ctx, const char *name),
		     void *ctx, struct mp_err *err);

/* Evaluate with values[i] = the value of event i (mp_formula_event order). grad may be
 * NULL; else grad[i] = d result / d values[i] (nevents entries, for error propagation).
 * A division by zero returns -EDOM with err "src:line:col: division by zero" (the
 * column of the '/'); a non-finite result returns -ERANGE. */
int mp_formula_eval(const mp_formula *f, const double *values, double *out, double *grad,
		    struct mp_err *err);

/* ===== (2) ratio definitions ============================================================ */
/* A *.ratios file is data: sections, one per ratio, of "key = value" lines.
 *
 *   # comment (whole lines only)
 *   [L1D_MISS_RATE]                      ratio id: letters, digits, '_'
 *   name      = L1D Miss Rate            shown in tables (required)
 *   article   = 8                        position in the article's table (optional)
 *   what      = L1d misses per instruction.
 *   high      = prefetching is not effective and L2 is used too often
 *   low       = ...                      what a low value means (optional)
 *   threshold = > 0.02                   flag values above (or "< X": below) (optional)
 *   format    = percent                  print as 12.3% (default: plain number)
 *   core      = exact  L1D_REPL / INSTRUCTION_RETIRED
 *   core.note = lines allocated in L1D (demand and prefetch)
 *   perf      = approx L1-dcache-load-misses / instructions
 *
 * Any other key is a PMU model variant: a libpfm4 model name (core, nhm, snb, skl, icl,
 * spr, amd64_fam17h_zen2, amd64_fam19h_zen3, amd64_fam19h_zen4, armv8...), "perf" (perf's
 * generic events, the fallback for every model) or "cachegrind" (simulated events); the
 * value is "exact" or "approx", then the formula. A later file's ratio with the same id
 * replaces the earlier one as a whole (user files override shipped ones). */

enum mp_ratio_status { MP_RATIO_EXACT, MP_RATIO_APPROX };

struct mp_ratio_variant {
	char model[64];
	enum mp_ratio_status status;
	char *note;      /* "" when none */
	mp_formula *f;
	unsigned line;   /* in the def's file */
};

struct mp_ratio_def {
	char id[64];
	char *name, *what, *high, *low; /* "" when absent */
	int article;                    /* 1..12, 0 = not from the article */
	int has_threshold;
	double threshold;
	int threshold_below;            /* 1: flag values below threshold, 0: above */
	int percent;
	struct mp_ratio_variant *v;
	size_t nv, cap_v;
	char src[256];                  /* file it came from ("article.ratios" for built-ins) */
	unsigned line;
};

typedef struct mp_ratio_set mp_ratio_set;

mp_ratio_set *mp_ratio_set_new(void);
void mp_ratio_set_free(mp_ratio_set *s); /* NULL-safe */
/* Parse definitions from text; src names it in errors. -MP_EPARSE + "src:line:col: ..." */
int mp_ratio_set_load_text(mp_ratio_set *s, const char *text, const char *src,
			   struct mp_err *err);
int mp_ratio_set_load_file(mp_ratio_set *s, const char *path, struct mp_err *err);
/* Every *.ratios file in dir, in name order. A missing dir is not an error (returns 0). */
int mp_ratio_set_load_dir(mp_ratio_set *s, const char *dir, struct mp_err *err);
/* The ratios shipped with memprof (embedded in the binary). */
int mp_ratio_set_load_builtin(mp_ratio_set *s, struct mp_err *err);
/* The standard search: built-ins, then $XDG_CONFIG_HOME/memprof/ratios (default
 * ~/.config/memprof/ratios), then extra (--ratios FILE, may be NULL). */
int mp_ratio_set_load_default(mp_ratio_set *s, const char *extra, struct mp_err *err);

size_t mp_ratio_set_count(const mp_ratio_set *s);
const struct mp_ratio_def *mp_ratio_set_get(const mp_ratio_set *s, size_t i);
/* By id ("L1D_MISS_RATE") or name ("L1D Miss Rate"), case-insensitive, '_' = ' ' = '-'.
 * NULL when absent. */
const struct mp_ratio_def *mp_ratio_set_find(const mp_ratio_set *s, const char *key);

/* ===== (3) binding and evaluation ======================================================= */

/* Resolve an event name for a model into attr (type and config matter). 0 or negative +
 * err. model is a variant key ("core", "perf", ...). */
typedef int (*mp_ratio_resolve_fn)(void *ctx, const char *event, const char *model,
				   struct perf_event_attr *attr, struct mp_err *err);

/* The events of one run (one perf.data file or one `memprof stat` run). */
struct mp_ratio_event {
	struct perf_event_attr attr;
	const char *name;       /* borrowed */
	int has_count;          /* exact count below is valid */
	double count;           /* exact count, already scaled for multiplexing */
	double mean_period;     /* the run's mean sample period of this event (0: unknown) */
	int exact_samples;      /* the periods are exact counts, not samples (simulation):
				 * values at every place are exact, no interval */
	double coverage;        /* the share of the event's count its samples stand for: the
				 * sum of periods over the exact count, else samples over
				 * samples + lost; 0 = unknown. Below 1 when the kernel
				 * throttled the event (an overrun too low), samples were
				 * lost, or the counter was multiplexed */
	int at_min;             /* sampled at a fixed overrun no larger than the event's
				 * minimum (the events module's, per event or per kind) in a
				 * file without its exact count: throttling, which such an
				 * overrun invites, cannot be checked */
};

/* Do two attrs count the same thing? Compares type and config: for raw x86 configs
 * the USR/OS/INT/EN bits (0x530000) are ignored, for generic events the PMU-type bits
 * 32-63 (hybrid); config1 is compared for raw events (FRONTEND_RETIRED's MSR value). */
int mp_ratio_attr_same(const struct perf_event_attr *a, const struct perf_event_attr *b);

/* Map CPUID ("GenuineIntel,6,158,10", "AuthenticAMD,25,17,0") or a libpfm model name to
 * the variant keys to try, best first, ending with "perf". Writes up to max keys into
 * keys (static strings); returns the count. */
size_t mp_ratio_models_for(const char *cpuid_or_model, const char **keys, size_t max);

#define MP_RATIO_MAX_EVENTS 16
/* A "> 0" threshold on simulated counts warns from this value on (mp_ratio_eval). */
#define MP_RATIO_SIM_ANY_FLOOR 1e-4
#define MP_RATIO_FOLDED (-2)

struct mp_ratio_binding {
	const struct mp_ratio_def *def;
	const struct mp_ratio_variant *var;  /* the chosen variant (NULL: no variant at all) */
	int complete;                        /* every event found */
	size_t n;                            /* mp_formula_nevents(var->f) */
	int ev[MP_RATIO_MAX_EVENTS];         /* index into the run's events, -1 = missing,
					      * MP_RATIO_FOLDED = counted in another member's
					      * event (one simulated event for a whole sum) */
	char missing[512];                   /* "L1D_REPL, INSTRUCTION_RETIRED" when incomplete */
};

/* Choose the first variant (in models order) whose events all occur in ev; when none is
 * complete, b describes the variant that lacks the fewest events (the first of those in
 * models order), for the "missing" message.
 * Returns 0 when complete, -ENOENT when incomplete or no variant fits (b filled), or
 * another negative code when resolving failed (err). Events that do not resolve for the
 * model (also a model without libpfm support here) count as missing, except that a name
 * equal to an event's name in the run always matches (cachegrind, odd spellings). */
int mp_ratio_bind(const struct mp_ratio_def *d, const char *const *models, size_t nmodels,
		  const struct mp_ratio_event *ev, size_t nev, mp_ratio_resolve_fn resolve,
		  void *rctx, struct mp_ratio_binding *b, struct mp_err *err);

/* Per place (program, object, symbol or line) and event: the samples and their periods. */
struct mp_ratio_cell {
	uint64_t samples;
	double period;     /* sum of sample periods = the count estimate */
	double period_sq;  /* sum of squared periods; 0 = assume equal periods */
};

struct mp_ratio_value {
	int defined;            /* 0: undefined here (e.g. no denominator samples) */
	double value, lo, hi;   /* estimate and 95% interval */
	uint64_t min_samples;   /* fewest samples of any event of the ratio at this place */
	int few;                /* min_samples < the min_samples asked for */
	int exact;              /* from exact counts: lo == hi == value */
	int flagged;            /* past the definition's threshold */
	int cold;               /* simulated: past the threshold, but the numerator's misses
				 * fell once each on another instruction (at most 1% more
				 * misses than instructions that missed): the cold misses of a
				 * first pass through code or data, not flagged */
	double skew;            /* sampled, below program level: the events' samples stand for
				 * different shares of their counts (ev[].coverage, largest over
				 * smallest, when above 1.05): where throttling or lost
				 * samples struck is unknown, so the value may be off by this
				 * factor either way; the interval is widened by it and the row
				 * says so. 0 otherwise */
	int unchecked;          /* sampled, below program level: an event of the value was
				 * sampled at its minimum overrun and the file has no exact
				 * count to check its coverage (ev[].at_min): the interval
				 * cannot account for throttling, and the row says so */
};

/* The counts a complete binding's ratio rests on at one place: the sum of the estimated
 * counts (periods) of the numerator's events and of the denominator's events (see
 * mp_formula_sides(); an event folded into another member's event adds nothing). den may
 * be NULL. Returns the numerator's count (0 for an incomplete binding). */
double mp_ratio_numerator(const struct mp_ratio_binding *b, const struct mp_ratio_cell *cells,
			  double *den /* OUT, may be NULL */);

/* Coverage ratios below this are noise (a sample or two lost): no skew. */
#define MP_RATIO_SKEW_MIN 1.05

/* Evaluate a complete binding at one place. ev = the run's events (as given to
 * mp_ratio_bind); cells is indexed like ev (may be NULL with use_counts). use_counts:
 * use the events' exact counts (ev[].has_count) when every event of the ratio has one,
 * and report exact = 1. The interval: each event's estimate C = sum of periods is
 * compound Poisson, Var(C) = sum of squared periods (C*C/n when period_sq is 0),
 * combined by first-order propagation (gradient of the formula):
 *   value +- 1.96 * sqrt(sum_i (dR/dC_i)^2 Var(C_i));
 * lo is clipped at 0 for formulas without '-'. An event with 0 samples at the place
 * counts, for the variance only, as one sample of its mean period (ev[].mean_period), so
 * that a zero numerator still gets an upper bound. Division by zero -> defined = 0,
 * returns 0. */
int mp_ratio_eval(const struct mp_ratio_binding *b, const struct mp_ratio_event *ev,
		  const struct mp_ratio_cell *cells, int use_counts, uint64_t min_samples,
		  struct mp_ratio_value *out, struct mp_err *err);
/* As mp_ratio_eval, below program level: a value from samples whose events' coverages
 * differ (ev[].coverage: largest over smallest above MP_RATIO_SKEW_MIN) gets out->skew and
 * its interval widened by that factor, [lo / skew, hi * skew] (a negative bound the other
 * way): the samples of an event throttled at a low overrun, or lost, leave the places
 * where it happened short, and which places is unknown. */
/* (and out->unchecked when an event of the value has ev[].at_min) */
int mp_ratio_eval_place(const struct mp_ratio_binding *b, const struct mp_ratio_event *ev,
			const struct mp_ratio_cell *cells, int use_counts, uint64_t min_samples,
			struct mp_ratio_value *out, struct mp_err *err);

/* ===== (4) counters, record commands and exact-count tables ============================== */

/* Counters a model offers: programmable, and fixed (which count cycles, instructions and
 * reference cycles only). Unknown models: 4 programmable, 0 fixed. */
void mp_ratio_model_counters(const char *model, unsigned *programmable, unsigned *fixed);

/* Build the `memprof record` command(s) that measure the given bound ratios (their
 * variants' events) for a workload (NULL -> "COMMAND"). Ratios are packed into runs so
 * that each run fits the counters (both events of a ratio always share a run), one
 * command line per run, "#" comment lines naming the ratios of each run. programmable /
 * fixed: counters (0 = the model's). Appends to out. */
int mp_ratio_record_cmd(const struct mp_ratio_variant *const *vars,
			const char *const *ratio_names, size_t n, const char *model,
			unsigned programmable, unsigned fixed, const char *workload,
			struct mp_buf *out, struct mp_err *err);

/* Format a ratio value as tables show it: "12.34%" for percent ratios, else 4 decimals
 * (or %.3e below 0.001). */
void mp_ratio_format_value(const struct mp_ratio_def *d, double v, char *buf, size_t len);

/* For `memprof stat --ratios`: every ratio of set whose events the run counted, from
 * exact counts, as a text table appended to out ("no ratio can be computed from these
 * events" when none fits). model: the host model (mp_events_host_model()) or NULL;
 * resolve: NULL = mp_ratio_resolve_events (the events module). */
int mp_ratio_stat_table(const mp_ratio_set *set, const struct mp_ratio_event *ev, size_t nev,
			const char *model, mp_ratio_resolve_fn resolve, void *rctx,
			struct mp_buf *out, struct mp_err *err);

/* One counted event of a `memprof stat` run. */
struct mp_ratio_counted {
	struct perf_event_attr attr;
	const char *name;               /* the resolved name, borrowed */
	struct mp_counts counts;        /* final count, time enabled, time running */
};

/* `memprof stat --ratios` in one call: load the shipped and user ratios (plus extra, a
 * --ratios FILE, may be NULL), scale multiplexed counts by ena/run, and append the table
 * of mp_ratio_stat_table() to out. model = the host model (NULL: "perf" fallbacks only).
 * 0, or a negative code with err (a bad definition file). */
int mp_ratio_stat_report(const struct mp_ratio_counted *c, size_t n, const char *model,
			 const char *extra, struct mp_buf *out, struct mp_err *err);

/* A resolver backed by the events module (mp_event_parse with opts.pmu_model = model;
 * "perf" and "cachegrind" resolve with the host model). */
int mp_ratio_resolve_events(void *ctx, const char *event, const char *model,
			    struct perf_event_attr *attr, struct mp_err *err);

/* ===== (5) a recording as the ratios see it (perf.data through the analyzer) ============ */

typedef struct mp_ratio_run mp_ratio_run;

/* PROGRAM < DSO < SYMBOL < LINE go deeper; REGION (record --regions: one place per named
 * region) and THREAD (one place per thread: tid and comm) stand apart: a run opened for
 * either gives PROGRAM, DSO, SYMBOL and itself. */
enum mp_ratio_level { MP_RATIO_PROGRAM, MP_RATIO_DSO, MP_RATIO_SYMBOL, MP_RATIO_LINE,
		      MP_RATIO_REGION, MP_RATIO_THREAD };

struct mp_ratio_run_opts {
	const char *symfs;          /* as perf --symfs; NULL = "/" */
	const char *kallsyms;       /* NULL = /proc/kallsyms when it fits, "/dev/null" = none */
	const char *model;          /* override the model detected from the file, or NULL */
	enum mp_ratio_level level;  /* deepest level wanted (symbols and lines cost time) */
};

/* Read a perf.data file: its events (attrs, names, exact counts where the file has them,
 * mean periods), the CPU model (HEADER_CPUID, else the libpfm prefix of the event names,
 * else "perf"), and the samples per place down to opts->level. NULL + err on error. */
mp_ratio_run *mp_ratio_run_open(const char *path, const struct mp_ratio_run_opts *opts,
				struct mp_err *err);
void mp_ratio_run_free(mp_ratio_run *r); /* NULL-safe */

const char *mp_ratio_run_path(const mp_ratio_run *r);
/* The detected (or given) model, "perf" when unknown; CPU description or "". */
const char *mp_ratio_run_model(const mp_ratio_run *r);
const char *mp_ratio_run_cpu(const mp_ratio_run *r);
/* Variant keys to try for this run, best first (mp_ratio_models_for()). */
size_t mp_ratio_run_models(const mp_ratio_run *r, const char **keys, size_t max);
/* The run's events; borrowed until mp_ratio_run_free(). */
const struct mp_ratio_event *mp_ratio_run_events(const mp_ratio_run *r, size_t *n);
/* The workload of the recording (what follows " -- " in HEADER_CMDLINE), or NULL. */
const char *mp_ratio_run_workload(const mp_ratio_run *r);
/* The recording's meta value for key (memprof's own header data: "simulated",
 * "sim.I1", ...), or NULL; borrowed. */
const char *mp_ratio_run_meta(const mp_ratio_run *r, const char *key);
/* The simulator when the counts were simulated (meta "simulated": "callgrind"), else NULL.
 * Then every sample's period is the exact simulated count at its address. */
const char *mp_ratio_run_simulated(const mp_ratio_run *r);
/* Samples that went to an attr (all events together), and lost samples. */
uint64_t mp_ratio_run_samples(const mp_ratio_run *r);
uint64_t mp_ratio_run_lost(const mp_ratio_run *r);

struct mp_ratio_place {
	const char *label;   /* "program", "libc.so.6", "walk", "cachebench.c:42", "4242:matmul" */
	const char *dso;     /* object (NULL at program level) */
	const char *sym;     /* symbol (symbol and line levels) */
	const char *srcfile; /* line level, NULL = unknown */
	unsigned line;
	uint32_t pid, tid;   /* thread level */
	const char *comm;    /* thread level: the thread's command */
	const struct mp_ratio_cell *cells; /* [nevents] */
	uint64_t samples;    /* all events' samples at the place */
};

/* The places of a level, most samples first. level must not be deeper than opts->level.
 * Program level: one place, with sums of squared periods. Borrowed until the next call
 * or mp_ratio_run_free(). */
int mp_ratio_run_places(mp_ratio_run *r, enum mp_ratio_level level,
			const struct mp_ratio_place **out, size_t *n, struct mp_err *err);

/* ---- the ratio table (memprof ratios, stat --ratios, the TUI) -------------------------- */

struct mp_ratio_row {             /* one ratio at one place */
	const struct mp_ratio_place *place;
	struct mp_ratio_value v;
	double num, den;          /* counts of the numerator's and the denominator's events */
	int have_base;            /* base holds the baseline's value at the same place */
	struct mp_ratio_value base;
};

struct mp_ratio_result {          /* one ratio over the places */
	const struct mp_ratio_def *def;
	struct mp_ratio_binding b;
	int base_complete;        /* bb binds the baseline's events */
	struct mp_ratio_binding bb;
	struct mp_ratio_row *rows; /* rows[k] is at place k (most samples first) */
	size_t nrows;
	size_t *perm;             /* the order shown: indices into rows */
	char samples_prog[128];   /* per-event samples "100/400" at the program level, or "counted" */
	int exact_counts;
};

struct mp_ratio_missing {         /* a ratio the recording cannot give */
	const struct mp_ratio_def *def;
	struct mp_ratio_binding b; /* b.var NULL: no formula for the models; else b.missing */
	int nosim;                /* a simulated recording, and the ratio has no cachegrind formula */
};

/* What a table is built from: a recording's events, the variant keys to try (best first),
 * and its places (a single place with cells NULL for exact counts, as stat --ratios has). */
struct mp_ratio_source {
	const struct mp_ratio_event *ev;
	size_t nev;
	const char *const *models;
	size_t nmodels;
	const struct mp_ratio_place *places;
	size_t nplaces;
	int simulated;            /* recorded by record --sim: cachegrind formulas as a fallback */
};

struct mp_ratio_table {
	struct mp_ratio_result *r; /* the ratios computed, in the order of defs */
	size_t n;
	struct mp_ratio_missing *miss; /* the ratios that could not be, in the order of defs */
	size_t nmiss;
	size_t nplaces;
};

struct mp_ratio_table_opts {
	const struct mp_ratio_def *const *defs; /* the ratios wanted, in order */
	size_t ndefs;
	enum mp_ratio_level level;
	uint64_t min_samples;     /* values resting on fewer samples are marked few */
	const struct mp_ratio_def *sort; /* order places by this ratio's value; NULL: each
					  * ratio by its numerator's count */
	mp_ratio_resolve_fn resolve; /* NULL: mp_ratio_resolve_events */
	void *rctx;
};

/* Build the table: bind each def to src (with the simulated fallback), evaluate it at every
 * place, the baseline's value at the same place (base may be NULL), numerator counts, and
 * the order of places (below program level). t is zeroed first; free with
 * mp_ratio_table_fini() also on error. Returns 0; -ENOENT when opts->sort is not among the
 * computed ratios (err names it); another negative code on an evaluation error. */
int mp_ratio_table_build(const struct mp_ratio_source *src, const struct mp_ratio_source *base,
			 const struct mp_ratio_table_opts *opts, struct mp_ratio_table *t,
			 struct mp_err *err);
void mp_ratio_table_fini(struct mp_ratio_table *t);
/* Per-event sample counts of a binding at a place ("100/400"), into buf. */
void mp_ratio_samples_str(const struct mp_ratio_binding *b, const struct mp_ratio_cell *cells,
			  char *buf, size_t len);
/* Fill src from a run at level: its events, variant keys (into keys[max], best first) and
 * places (borrowed until mp_ratio_run_free()). */
int mp_ratio_run_source(mp_ratio_run *r, enum mp_ratio_level level, const char **keys,
			size_t max, struct mp_ratio_source *src, struct mp_err *err);

/* The change of a ratio from a baseline recording to another (memprof diff --ratios). */
struct mp_ratio_change {
	double delta;           /* v - base */
	double lo, hi;          /* its 95% interval: the two estimates are independent, so
				 * their variances add (half-widths combined in quadrature) */
	int exact;              /* both values exact (simulated or counted): lo == hi == delta */
	int significant;        /* the interval excludes zero (exact: delta != 0) */
};
/* 0, or -1 when either value is undefined (out zeroed). */
int mp_ratio_change(const struct mp_ratio_value *base, const struct mp_ratio_value *v,
		    struct mp_ratio_change *out /* OUT */);

/* The change of a place's share of samples (p1 of n1 samples, then p2 of n2; shares
 * 0..1) with its 95% interval (binomial proportions, normal approximation), as memprof
 * diff marks its delta column. 0, or -1 when a side has no samples. */
int mp_ratio_share_change(double p1, uint64_t n1, double p2, uint64_t n2,
			  struct mp_ratio_change *out /* OUT */);

/* Several recordings of one program as one source (memprof ratios -i A -i B): the first
 * source's events, each found in the others by mp_ratio_attr_same() (-EINVAL with err
 * naming the file, from names[], whose events differ), exact counts summed (kept only when
 * every file has them), and the places matched by label and object with their cells summed,
 * most samples first. out->src borrows labels and models from srcs; free with
 * mp_ratio_sum_fini(). */
struct mp_ratio_sum {
	struct mp_ratio_source src;
	struct mp_ratio_event *ev;
	struct mp_ratio_place *places;
	struct mp_ratio_cell *cells;
};
int mp_ratio_source_sum(const struct mp_ratio_source *srcs, const char *const *names, size_t n,
			struct mp_ratio_sum *out /* OUT */, struct mp_err *err);
void mp_ratio_sum_fini(struct mp_ratio_sum *s); /* NULL-safe */

/* ---- baselines shipped as data (ratios/baselines.tsv, tools/mkbaselines.sh) ---------------- */

/* One set of program-level ratio values: one recording (a real-hardware fixture, or a
 * kernel recorded with record --sim), the model its values belong to and its workload (the
 * program without its folder, and its arguments; "-" when unknown). Strings borrowed from
 * the mp_ratio_baselines. */
struct mp_ratio_baseline {
	const char *name, *model, *workload, *source;
	size_t first, n;        /* its values (private) */
};
typedef struct mp_ratio_baselines mp_ratio_baselines;

/* Parse a baselines table (columns name, model, workload, ratio, value, source; a set's
 * rows together). NULL + err "file:line: ..." on a bad row. */
mp_ratio_baselines *mp_ratio_baselines_parse(const char *text, const char *file,
					     struct mp_err *err);
/* The shipped table (embedded in the binary). */
mp_ratio_baselines *mp_ratio_baselines_builtin(struct mp_err *err);
void mp_ratio_baselines_free(mp_ratio_baselines *b); /* NULL-safe */
size_t mp_ratio_baselines_count(const mp_ratio_baselines *b);
const struct mp_ratio_baseline *mp_ratio_baselines_get(const mp_ratio_baselines *b, size_t i);
/* The set named name; without a name, the set of this model whose workload is the
 * recording's (the program compared without its folder: *exact = 1), else the first of
 * this model running the same program, else the first of this model (*exact = 0). NULL
 * when there is none. */
const struct mp_ratio_baseline *mp_ratio_baselines_pick(const mp_ratio_baselines *b,
							 const char *name, const char *model,
							 const char *workload, int *exact /* OUT */);
/* The set's value of a ratio (by id): 1 with *value, or 0. */
int mp_ratio_baseline_value(const mp_ratio_baselines *b, const struct mp_ratio_baseline *s,
			    const char *ratio_id, double *value /* OUT */);

#endif
