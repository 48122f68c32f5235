/* mp_tui.h - the tui module: an interactive browser from hot symbols to annotated source
 * and assembly, in the style of perf report's TUI.
 *
 * Layers:
 *  - data (tui_data_*, tui_annot_*; tui_data.c): what the browser shows, filled by an
 *    adapter from the analyzer's aggregates (tui_source_open(), tui_source.c) or by tests
 *    with synthetic numbers. The TUI never sees samples: rows of symbols with per-event
 *    counts, and on demand the lines and instructions of one function with their counts.
 *  - model (tui_model_*): plain C state (view stack, cursor, scroll, sort, filter, search,
 *    hot-line jumps). tui_model.c dispatches enum tui_key values through one table of key
 *    bindings (tui_keys.c, which also makes the help screen, every view's status line and
 *    the names of --batch keys) to the view on top of the stack (tui_view.c); each view
 *    owns its state, renders its own rows and is reached through its table of operations
 *    (tui_list.c: symbols and ratios, tui_chains.c: the symbols with Children and their
 *    call trees, callers and callees, tui_annview.c: annotate, tui_text.c: summary and help,
 *    tui_diff.c: a diff, tui_dview.c: the data view of recordings with data addresses,
 *    tui_tview.c: tables of text, memprof c2c report's). tui_model_render() gives the screen as text rows (tui_render.c),
 *    so tests drive it all without a terminal.
 *  - terminal (tui_run; tui_loop.c and tui_draw.c, the only file that includes curses):
 *    the key loop and the painting of the rendered rows.
 */
#ifndef MP_TUI_H
#define MP_TUI_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_util.h"

struct mp_predict;

/* ===== data ============================================================================ */

typedef struct tui_data tui_data;
typedef struct tui_annot tui_annot;

#define TUI_MAX_EVENTS 32

/* A symbol as the annotate callback sees it (borrowed from tui_data). */
struct tui_sym_ref {
	const char *name;
	const char *dso;  /* may be NULL */
	uint64_t addr;    /* start address, 0 when unknown */
};

/* One ratio value with its 95% interval. */
enum {
	TUI_RV_VALID = 1,     /* value is meaningful */
	TUI_RV_FEW = 2,       /* rests on too few samples: shown, marked '~' */
	TUI_RV_FLAGGED = 4,   /* past the ratio's threshold: shown, marked '!' */
};
struct tui_ratio_val {
	double value, lo, hi;
	unsigned flags; /* TUI_RV_* ; 0 = not computable (missing event, zero denominator) */
	double weight;  /* the count of the ratio's numerator here (the misses of a miss rate),
			 * or 0 when unknown: a list sorted by the ratio puts the symbols with
			 * the highest weight first (the places that matter, as memprof ratios
			 * orders them), then by value */
};

/* Evaluate ratio number `ratio` on per-event counts (arrays of tui_data_nevents() values,
 * in the order the events were added). Return 0 and fill out, or non-zero when the ratio
 * cannot be computed here (out->flags = 0). Called when a table is built, never per
 * sample. */
typedef int (*tui_ratio_eval_fn)(void *ctx, size_t ratio, const uint64_t *samples,
				 const uint64_t *periods, struct tui_ratio_val *out);

/* Build the annotation of a symbol: return 0 and *out (ownership passes to the caller,
 * freed with tui_annot_free()), or a negative code with err filled (one line naming the
 * symbol or file at fault). */
typedef int (*tui_annotate_fn)(void *ctx, const struct tui_sym_ref *sym, tui_annot **out,
			       struct mp_err *err);

/* A new, empty data set (NULL on ENOMEM). Add events first, then symbols. */
tui_data *tui_data_new(void);
void tui_data_free(tui_data *d); /* NULL-safe */

/* Summary facts shown in the summary view ("command", "host", ...), copied. 0/-ENOMEM. */
int tui_data_add_info(tui_data *d, const char *key, const char *value);
/* An event: name, samples, total period ("event count"), lost samples; when has_count, the
 * exact count read from the file. Returns the event index, or negative (-E2BIG past
 * TUI_MAX_EVENTS, -EINVAL after a symbol was added, -ENOMEM). */
int tui_data_add_event(tui_data *d, const char *name, uint64_t samples, uint64_t period,
		       uint64_t lost, int has_count, uint64_t count);
/* How an event was sampled, for the summary: every `value` events (freq 0, perf's -c) or
 * `value` times a second (freq 1, perf's -F). 0 or -EINVAL. */
int tui_data_set_event_sampling(tui_data *d, size_t ev, int freq, uint64_t value);
/* A symbol (strings copied). Returns its index or -ENOMEM. Counts start at zero. */
long tui_data_add_sym(tui_data *d, const char *name, const char *dso, uint64_t addr);
/* The thread a symbol's row belongs to, for recordings of several processes (perf's
 * Command and Pid columns): its command (copied) and process (-1: the command only). Any
 * set turns the lists' thread column and the t zoom on. 0, -EINVAL or -ENOMEM. */
int tui_data_set_sym_thread(tui_data *d, size_t sym, const char *comm, long pid);
/* Set one event's counts of a symbol. 0, or -EINVAL for a bad index. */
int tui_data_set_sym_count(tui_data *d, size_t sym, size_t ev, uint64_t samples,
			   uint64_t period);
/* A ratio column: name, what it means, a threshold (or NAN) past which values are flagged.
 * Returns its index or a negative code. */
int tui_data_add_ratio(tui_data *d, const char *name, const char *desc, double threshold);
/* The whole-program value of a ratio when the adapter knows better than an evaluation on
 * the event totals (exact counts). */
int tui_data_set_program_ratio(tui_data *d, size_t ratio, const struct tui_ratio_val *v);
/* The events a ratio is computed from, its numerator's first (indexes as tui_data_add_event
 * gave them; at most TUI_RATIO_EVENTS, the rest ignored). When the ratio sorts and colours,
 * the lists and annotate show these event columns first. 0, or -EINVAL for a bad index. */
#define TUI_RATIO_EVENTS 8
int tui_data_set_ratio_events(tui_data *d, size_t ratio, const size_t *ev, size_t n);
void tui_data_set_ratio_fn(tui_data *d, tui_ratio_eval_fn fn, void *ctx);
/* The counts were simulated, not measured (memprof record --sim): by names the simulator
 * ("callgrind"), note says how ("counts from valgrind's callgrind cache simulation (I1
 * ...)", may be NULL). Every view's title then says "SIMULATED (callgrind)", the summary
 * starts with the note, and ratio values carry no few-sample mark or interval (the
 * counts are exact). Strings copied; 0 or -ENOMEM. */
int tui_data_set_simulated(tui_data *d, const char *by, const char *note);
/* The simulator set by tui_data_set_simulated(), or NULL for measured counts. */
const char *tui_data_simulated(const tui_data *d);
void tui_data_set_annotate_fn(tui_data *d, tui_annotate_fn fn, void *ctx);
/* The data is a diff (memprof diff --tui): its events come in pairs, event 2k the
 * baseline's and 2k+1 the new recording's count of the same event, and the symbols are
 * the places of both. The model then opens the diff view: the two shares side by side and
 * the change, coloured when its 95% interval excludes zero. 0, or -EINVAL for an odd
 * number of events. */
int tui_data_set_diff(tui_data *d);

/* ---- call chains (recordings with call chains: perf report --children's view) ---- */

/* The children counts of a symbol: the samples with it anywhere in their call chain (once
 * per sample), beside its own (self) counts of tui_data_set_sym_count(). Setting any
 * turns the data's children mode on: the symbol list shows Children and Self columns,
 * sorted by Children, and its entries expand into call trees. */
int tui_data_set_sym_children(tui_data *d, size_t sym, size_t ev, uint64_t samples,
			      uint64_t period);
/* 1 when the data has children counts. */
int tui_data_has_children(const tui_data *d);

/* A call tree: nodes are symbols of the data (functions), each with the samples through
 * it (cumulative) and those whose chain ends there (self), per event. Siblings in the
 * order they were added (the adapter's: most first). */
typedef struct tui_chain tui_chain;
enum tui_chain_kind {
	TUI_CHAIN_ENTRY,   /* perf report -g's tree of a children entry (caller or callee order,
			    * the adapter's choice) */
	TUI_CHAIN_CALLERS, /* who calls the function: its callers, their callers, ... */
	TUI_CHAIN_CALLEES, /* what it calls: its callees, theirs, ... */
};
/* Build the tree of kind for symbol sym: 0 and *out (the caller frees it with
 * tui_chain_free()), or a negative code with err. Called when a tree is first shown. */
typedef int (*tui_chain_fn)(void *ctx, size_t sym, enum tui_chain_kind kind, tui_chain **out,
			    struct mp_err *err);
void tui_data_set_chain_fn(tui_data *d, tui_chain_fn fn, void *ctx);
/* Nodes below pct percent of an event's total are not shown (perf's -g limit; 0.5 by
 * default, as perf's). */
void tui_data_set_chain_limit(tui_data *d, double pct);

tui_chain *tui_chain_new(size_t nevents); /* NULL on ENOMEM */
void tui_chain_free(tui_chain *c);         /* NULL-safe */
/* A node for symbol sym (an index of the data's symbols) as the last child of parent (-1:
 * a top-level node). Its index, or -EINVAL (no such parent) or -ENOMEM. */
long tui_chain_add(tui_chain *c, long parent, size_t sym);
int tui_chain_set_count(tui_chain *c, size_t node, size_t ev, uint64_t samples,
			uint64_t period, uint64_t self_samples, uint64_t self_period);
size_t tui_chain_nnodes(const tui_chain *c);

/* ---- data addresses (recordings with PERF_SAMPLE_ADDR or DATA_SRC: record -d, mem) ---- */

/* A table of the data view: the rows of one data sort key (perf's symbol_daddr, dcacheline,
 * mem, ...: data objects, cache lines, memory levels), each with per-event counts, and for
 * each row the code places (symbol and source line) whose samples touched it. Counts are
 * samples, cost (perf's mem-mode overhead: each sample's weight, 1 when it has none; the
 * view's percentages are of it) and the weight summed. */
typedef struct tui_dtable tui_dtable;
/* Build the table of data key number key: 0 and *out (the caller frees it with
 * tui_dtable_free()), or a negative code with err (one line). Called when a key is first
 * shown. */
typedef int (*tui_dtable_fn)(void *ctx, size_t key, tui_dtable **out, struct mp_err *err);
#define TUI_MAX_DKEYS 8
/* The data view's keys (names as perf's sort keys, "symbol_daddr"; copied, at most
 * TUI_MAX_DKEYS) and the function that builds their tables. 0, -EINVAL or -ENOMEM. */
int tui_data_set_dkeys(tui_data *d, const char *const *keys, size_t n, tui_dtable_fn fn,
		       void *ctx);
/* The table of data key number key: built by the keys' function the first time it is asked
 * for, then kept by d (borrowed, valid until tui_data_free()), so that the data view
 * shown again reads nothing. NULL with err (one line) when it cannot be built. */
const tui_dtable *tui_data_dtable(tui_data *d, size_t key, struct mp_err *err);
/* The recording has no data addresses: why (one line, copied) is what the data view's key
 * says instead. 0 or -ENOMEM. */
int tui_data_set_no_dkeys(tui_data *d, const char *why);

/* A table of nevents events; title names its rows ("Data Symbol"; copied). NULL on
 * ENOMEM. */
tui_dtable *tui_dtable_new(size_t nevents, const char *title);
void tui_dtable_free(tui_dtable *t); /* NULL-safe */
/* A row (name copied): its index or -ENOMEM. */
long tui_dtable_add_row(tui_dtable *t, const char *name);
/* A code place of row: symbol, object (may be NULL) and source line ("file.c:12", NULL when
 * unknown), copied: its index or -EINVAL, -ENOMEM. */
long tui_dtable_add_code(tui_dtable *t, size_t row, const char *sym, const char *dso,
			 const char *line);
/* Add one sample's counts (or many: samples, their cost and weight) to a row, or to a code
 * place and its row. 0 or -EINVAL. */
int tui_dtable_add_count(tui_dtable *t, size_t row, size_t ev, uint64_t samples, uint64_t cost,
			 uint64_t weight);
int tui_dtable_add_code_count(tui_dtable *t, size_t code, size_t ev, uint64_t samples,
			      uint64_t cost, uint64_t weight);

/* ---- tables of text (memprof c2c report's browser) ---- */

/* A table whose rows the caller wrote (text, one row a line; a share in percent that
 * colours it), each row maybe opening a table of its own (ENTER), and notes under the
 * rows. The data's table is the browser's first view (tui_data_set_table()). */
typedef struct tui_ttable tui_ttable;
/* title (the view's title line) and header (the column names, scrolled with the rows),
 * copied. NULL on ENOMEM. */
tui_ttable *tui_ttable_new(const char *title, const char *header);
void tui_ttable_free(tui_ttable *t); /* NULL-safe; frees the rows' tables */
/* A row (copied) with its share pct (0..100: its heat). Its index or -ENOMEM. */
long tui_ttable_add_row(tui_ttable *t, const char *text, double pct);
/* The table ENTER opens on row: ownership of sub passes to t (freed on error too). 0,
 * -EINVAL (no such row, or it has one). */
int tui_ttable_set_sub(tui_ttable *t, size_t row, tui_ttable *sub);
/* A note under the rows (copied): 0 or -ENOMEM. */
int tui_ttable_add_note(tui_ttable *t, const char *text);
/* The browser opens on t (ownership passes to d, freed on error too): 0, -EINVAL when d
 * has one. d still needs an event (tui_data_add_event). */
int tui_data_set_table(tui_data *d, tui_ttable *t);

size_t tui_data_nevents(const tui_data *d);
size_t tui_data_nsyms(const tui_data *d);
size_t tui_data_nratios(const tui_data *d);

/* Annotation of one function: source lines in display order, each with its instructions.
 * nevents must equal the data's event count. file may be NULL (no debug info). */
tui_annot *tui_annot_new(size_t nevents, const char *name, const char *file);
void tui_annot_free(tui_annot *a); /* NULL-safe */
/* A source line (lineno 0 = no line information: instructions without a line). file NULL
 * = the annotation's file. Returns the line index or -ENOMEM. */
long tui_annot_add_line(tui_annot *a, unsigned lineno, const char *file, const char *text);
int tui_annot_set_line_count(tui_annot *a, size_t line, size_t ev, uint64_t samples,
			     uint64_t period);
/* Mark a line hot (the analyzer's verdict: the hottest line, and lines past --hot): drawn
 * with a '*' before its number. */
int tui_annot_set_line_hot(tui_annot *a, size_t line, int hot);
/* A note after the line's text (copied): the counts of its likely()/unlikely() hint from a
 * predict file; warn = the hint is wrong (drawn hot). 0, -EINVAL or -ENOMEM. */
int tui_annot_set_line_note(tui_annot *a, size_t line, const char *note, int warn);
enum tui_insn_kind { TUI_INSN_PLAIN, TUI_INSN_CALL, TUI_INSN_JUMP, TUI_INSN_RET };
/* An instruction under source line `line`. For calls and jumps, target is the destination
 * address (0 = indirect) and target_name the callee (may be NULL). Returns its index. */
long tui_annot_add_insn(tui_annot *a, size_t line, uint64_t addr, const char *text,
			enum tui_insn_kind kind, uint64_t target, const char *target_name);
int tui_annot_set_insn_count(tui_annot *a, size_t insn, size_t ev, uint64_t samples,
			     uint64_t period);

/* ===== model =========================================================================== */

typedef struct tui_model tui_model;

/* Keys: printable ASCII characters are their own value; the rest are below. */
enum tui_key {
	TUI_KEY_NONE = 0,
	TUI_KEY_UP = 0x100,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_ENTER,
	TUI_KEY_ESC,
	TUI_KEY_TAB,
	TUI_KEY_BTAB, /* shift-TAB */
	TUI_KEY_BACKSPACE,
	TUI_KEY_F1,
	TUI_KEY_CTRL_C,
};

/* Result bits of tui_model_key(). */
enum {
	TUI_HANDLED = 1, /* the key meant something here */
	TUI_REDRAW = 2,  /* the screen changed */
	TUI_RESCAN = 4,  /* rows were rebuilt (new view, sort, filter): clear and redraw all */
	TUI_QUIT = 8,    /* leave the browser */
};

enum tui_view_kind { TUI_VIEW_SYMBOLS, TUI_VIEW_ANNOTATE, TUI_VIEW_RATIOS, TUI_VIEW_SUMMARY,
		     TUI_VIEW_HELP, TUI_VIEW_DIFF,
		     TUI_VIEW_CALLS /* callers and callees of one function */,
		     TUI_VIEW_DATA /* data objects, cache lines or levels */,
		     TUI_VIEW_DATA_CODE /* the code that touched one of them */,
		     TUI_VIEW_TABLE /* a table of text (c2c's cache lines) */,
		     TUI_VIEW_SUBTABLE /* a row's own table (a line's offsets) */ };
/* percent: of the function in annotate (the CLI's %func), of the recording in the lists;
 * percent of recording: of the recording everywhere (the CLI's %all). */
enum tui_show { TUI_SHOW_PERCENT, TUI_SHOW_SAMPLES, TUI_SHOW_PERIOD, TUI_SHOW_PERCENT_ALL };

/* How a rendered row is drawn. */
enum tui_row_kind { TUI_ROW_TEXT, TUI_ROW_TITLE, TUI_ROW_HEADER, TUI_ROW_STATUS,
		    TUI_ROW_ASM };
/* Heat of a span: 0 none, 1 some, 2 warm (>= 0.5%), 3 hot (>= 5%), or a flagged ratio. */
#define TUI_HEAT_MAX 3
#define TUI_ROW_SPANS 8
struct tui_span {
	int col, len;
	int heat;
};
struct tui_row {
	char *text;            /* exactly cols characters, NUL-terminated, ASCII */
	enum tui_row_kind kind;
	int selected;          /* the cursor row */
	int nspans;
	struct tui_span span[TUI_ROW_SPANS];
};
struct tui_screen {
	int cols, rows;
	struct tui_row *row;   /* rows entries */
};

/* A model over d (ownership of d passes to the model). cols x rows is the initial size
 * (clamped to at least 20x5). NULL with err on error. */
tui_model *tui_model_new(tui_data *d, int cols, int rows, struct mp_err *err);
void tui_model_free(tui_model *m); /* NULL-safe */
void tui_model_resize(tui_model *m, int cols, int rows);
/* Show only the events of list (comma-separated names, NULL or "" = all) as columns; the
 * colouring event is always shown. 0, or -EINVAL with err naming the unknown event. */
int tui_model_set_events(tui_model *m, const char *list, struct mp_err *err);
/* Handle one key: TUI_* result bits (0 = the key means nothing here). */
unsigned tui_model_key(tui_model *m, int key);
/* Render the current view (borrowed, valid until the next call on m). */
const struct tui_screen *tui_model_render(tui_model *m);

/* State, for tests and the loop. */
enum tui_view_kind tui_model_view(const tui_model *m);
size_t tui_model_depth(const tui_model *m);      /* views on the stack, >= 1 */
size_t tui_model_cursor(const tui_model *m);     /* row index in the current view */
size_t tui_model_nrows(const tui_model *m);      /* rows in the current view */
size_t tui_model_top(const tui_model *m);        /* first row shown */
/* The symbol under the cursor (lists) or being annotated; NULL when none. */
const char *tui_model_symbol(const tui_model *m);
/* Annotate: source line number of the cursor row (for an instruction, its line), 0 when
 * none. addr: the instruction's address, 0 on a source row. */
unsigned tui_model_cur_line(const tui_model *m);
uint64_t tui_model_cur_addr(const tui_model *m);
/* The metric that sorts and colours (0..nev-1 an event, nev.. a ratio); the sort column
 * of the list on top, or of the list the annotate views on top were opened from (0..nev-1
 * events, then ratios, then TUI_COL_SYMBOL, TUI_COL_DSO); the count display mode. */
size_t tui_model_color_event(const tui_model *m);
int tui_model_sort_col(const tui_model *m);
enum tui_show tui_model_show(const tui_model *m);
const char *tui_model_message(const tui_model *m); /* status line message, "" when none */
/* Put a message on the status line (copied; replaced by the next key's message). */
void tui_model_set_message(tui_model *m, const char *msg);
/* full: C++ names always whole (cut at the column's edge); by default a template name wider
 * than its column shows its template arguments as <...> (demo::table<...>::insert). */
void tui_model_set_full_names(tui_model *m, int full);
/* Text of row i of the current view as rendered (borrowed, valid until the next call). */
const char *tui_model_row_text(tui_model *m, size_t i);
#define TUI_COL_SYMBOL 1000
#define TUI_COL_DSO 1001

/* Line i of the key map as the help screen shows it (a heading, or "  keys  meaning"),
 * made from the key bindings: written to buf (n bytes), 0; -ENOENT past the last line.
 * For --help and docs. */
int tui_help_line(size_t i, char *buf, size_t n);
/* A key of a --batch string at *p: a key name in angle brackets ("<ENTER>", "<TAB>", see
 * tui_key_name()) or one character ('\n' is ENTER). Advances *p past it; *p must not be
 * at the end of the string. */
int tui_key_parse(const char **p);
/* The name of a key that is not a printable character ("ENTER" for TUI_KEY_ENTER), NULL
 * when it has none. */
const char *tui_key_name(int key);

/* ===== source: a recording through the analyzer (tui_source.c) ======================== */

typedef struct tui_source tui_source;

struct tui_source_opts {
	const char *symfs;    /* as perf --symfs; NULL = "/" */
	const char *kallsyms; /* NULL = /proc/kallsyms when it fits, "/dev/null" = none */
	const char *ratios;   /* an extra ratio definition file, or NULL */
	int no_ratios;        /* do not load or evaluate ratios */
	double hot_pct;       /* annotate: lines at or above this share are hot (0 = 5%) */
	int no_skid;          /* annotate: no skid correction (see mp_ann_event_skids()) */
	/* annotate: the counts of likely()/unlikely() hints after their lines, with the branch
	 * misses measured there when the recording has branch events; borrowed, valid until
	 * tui_source_free(); NULL = none */
	const struct mp_predict *predict;
	/* call chains (recordings with PERF_SAMPLE_CALLCHAIN: frame pointers as recorded,
	 * dwarf and lbr unwound as memprof report does): Children and Self per function and
	 * call trees, as perf report --children */
	int no_children;      /* the symbol list without chains (perf's --no-children) */
	int callee;           /* the trees under the entries in callee order (-g callee) */
	double chain_pct;     /* tree nodes below this share are not shown (0 = 0.5%, as perf's
	                       * -g; negative: all shown) */
	const char *buildid_dir; /* the build-id cache (an unpacked --archive); NULL = none */
};

/* Read a perf.data file, let the analyzer aggregate it per symbol, and fill *data (a new
 * tui_data with the annotate, ratio and call-chain callbacks bound to the returned source).
 * When samples came with call chains, the symbols are functions with their children and
 * self counts (mp_cg_table()), else the analyzer's (dso, symbol) rows with their counts. The source
 * keeps the analyzer's state for annotations, so free it after the model that owns *data.
 * NULL with err (naming the file) on error. */
tui_source *tui_source_open(const char *path, const struct tui_source_opts *opts,
			    tui_data **data /* OUT */, struct mp_err *err);
void tui_source_free(tui_source *src); /* NULL-safe */

/* ===== terminal ======================================================================== */

struct tui_run_opts {
	volatile sig_atomic_t *stop; /* set by the caller's SIGINT/SIGTERM handler: leave */
	int no_color;                /* draw without colour even if the terminal has it */
};

/* Run the browser on the terminal until the user quits or *stop is set. Always restores
 * the terminal (endwin) before returning. 0 on a normal exit; negative with err when the
 * terminal cannot be used (not a tty, unknown TERM). */
int tui_run(tui_model *m, const struct tui_run_opts *opts, struct mp_err *err);

#endif
