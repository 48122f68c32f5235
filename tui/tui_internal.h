/* tui_internal.h - bodies of the tui module's data types (shared by its .c files). */
#ifndef TUI_INTERNAL_H
#define TUI_INTERNAL_H

#include "mp_tui.h"

struct tui_event {
	char *name;
	uint64_t samples, period, lost, count;
	int has_count;
	int freq;          /* sampling: -1 unknown, 0 every `rate` events, 1 `rate` per second */
	uint64_t rate;
};

struct tui_sym {
	char *name, *dso;
	uint64_t addr;
	uint64_t *cnt; /* samples[nev] then periods[nev] */
	uint64_t *ch;  /* children: samples[nev] then periods[nev]; NULL = none */
};

/* A call tree node: cnt = cumulative samples[nev], periods[nev], then self samples[nev],
 * periods[nev]. */
struct tui_cnode {
	size_t sym;
	long parent, first, last, next; /* -1 = none */
	uint64_t *cnt;
};

struct tui_chain {
	size_t nev;
	struct tui_cnode *n;
	size_t nn, cap;
	long first, last; /* top-level nodes */
};

struct tui_ratio {
	char *name, *desc;
	double threshold;
	struct tui_ratio_val prog;
	int prog_set;
	size_t evs[TUI_RATIO_EVENTS], nevs; /* its events, numerator's first */
};

struct tui_data {
	size_t nev;
	struct tui_event ev[TUI_MAX_EVENTS];
	struct tui_sym *syms;
	size_t nsyms, capsyms;
	struct {
		char *key, *value;
	} *info;
	size_t ninfo, capinfo;
	struct tui_ratio *ratios;
	size_t nratios, capratios;
	tui_ratio_eval_fn rfn;
	void *rctx;
	tui_annotate_fn afn;
	void *actx;
	char *sim, *sim_note; /* simulated counts: the simulator and how; NULL = measured */
	int diff;             /* events in pairs (baseline, new): the model opens the diff view */
	int children;         /* symbols have children counts (tui_data_set_sym_children) */
	tui_chain_fn cfn;
	void *cctx;
	double chain_pct;     /* tree nodes below this share are not shown */
};

struct tui_aline {
	unsigned lineno;
	int hot;
	char *file, *text;
	char *note;    /* a likely()/unlikely() hint's counts (memprof predict), or NULL */
	int note_warn; /* the hint is wrong: the note is drawn hot */
	uint64_t *cnt; /* samples[nev] then periods[nev] */
};

struct tui_ainsn {
	size_t line;
	uint64_t addr, target;
	enum tui_insn_kind kind;
	char *text, *tname;
	uint64_t *cnt;
};

struct tui_annot {
	size_t nev;
	char *name, *file;
	struct tui_aline *lines;
	size_t nlines, caplines;
	struct tui_ainsn *insns;
	size_t ninsns, capinsns;
};

/* ---- the model (tui_model.c), its views and bindings ---- */

/* An annotate row: a source line or an instruction (index in the annotation). */
enum { IT_LINE, IT_INSN };
struct item {
	int kind;
	size_t idx;
};

struct tui_view_ops;

/* A call tree shown in a view: the adapter's tree (built when first shown) and which of
 * its nodes are unfolded. */
struct tui_ctree {
	tui_chain *t;
	unsigned char *open; /* per node */
	int expanded;        /* the tree is shown under its entry (or heading) */
	int failed;          /* the adapter could not build it (said once) */
};

/* A row of a view with call trees: an entry (a symbol of the list, or a heading of the
 * caller/callee view) or a tree node. row: the entry's index in v->rows (the children
 * list) or the tree's (the caller/callee view: 0 callers, 1 callees). A run of nodes with
 * one child each is drawn as perf does: one node a row at the same level, the first (head)
 * with the fold sign and the percentage. */
enum { CR_ENTRY, CR_NODE };
struct crow {
	int kind;
	int level;
	size_t row;
	long node, head;
};

/* One view on the model's stack. Which fields are used depends on the view: lists (symbols,
 * ratios) use rows..filter, annotate an..hot_pos, text views (summary, help) lines. */
struct view {
	const struct tui_view_ops *ops;
	size_t cur, top;
	/* lists */
	size_t *rows;
	size_t nrows;
	int sort_col;
	char filter[128];
	/* annotate */
	tui_annot *an;
	long sym;          /* index in data, -1 when the symbol is not in the list */
	char *name, *dso;
	struct item *items;
	size_t nitems;
	unsigned char *open; /* per line: assembly shown */
	long *first, *next;  /* per line first insn; per insn next insn of the same line */
	int asm_all, hide_src;
	size_t hscroll;    /* source and assembly text shown from this column ({ and }) */
	uint64_t ltot[2 * TUI_MAX_EVENTS], itot[2 * TUI_MAX_EVENTS];
	struct tui_ratio_val *lrv; /* nlines * nratios */
	size_t *hot;
	size_t nhot;
	long hot_pos;
	/* text views */
	char **lines;
	size_t nlines;
	/* call trees: the children list (ct per data symbol) and the caller/callee view (ct[2]:
	 * callers and callees of the symbol csym) */
	struct tui_ctree *ct;
	size_t nct;
	struct crow *crows;
	size_t ncrows;
	long csym;
};

/* What the prompt's text is for when ENTER accepts it (the view on top, the text). */
typedef unsigned (*tui_prompt_fn)(tui_model *m, struct view *v, const char *text, int kind);

struct tui_model {
	tui_data *d;
	int cols, rows;
	struct view *stack;
	size_t depth, cap;
	int metric; /* 0..nev-1 an event, nev.. a ratio */
	enum tui_show show;
	int prompt; /* 0, '/' or '?' */
	const char *prompt_label; /* "Filter", "Search", ... */
	tui_prompt_fn prompt_done;
	char pbuf[128];
	size_t plen;
	char last_search[128];
	int last_dir;
	char msg[256];
	struct tui_ratio_val *srv; /* nsyms * nratios, computed on first use */
	int srv_done;
	struct tui_screen scr;
	char *textbuf;
	char *rowbuf;
	/* the event columns: the ones chosen (-e, the e key; all by default), the first
	 * shown ([ and ] scroll them), and those shown at the last render, in order (the
	 * colouring event first when the window left it out) */
	unsigned char evsel[TUI_MAX_EVENTS];
	size_t evscroll;
	size_t vis[TUI_MAX_EVENTS], nvis, nsel;
	/* the ratio list's columns: the first shown ([ and ] scroll them) and those shown at
	 * the last render (the sorting ratio first) */
	size_t ratscroll;
	size_t *rvis, nrvis;
	int full_names; /* names whole: no <...> for a template name too wide */
};

#define NEV(m) ((m)->d->nev)
/* The event columns that fit beside the names (tui_render.c): fills m->vis. */
void tui_visible_events(tui_model *m);
/* e: choose the event columns; [ ]: scroll them (tui_render.c). */
unsigned tui_events_prompt(tui_model *m, struct view *v, int key);
unsigned tui_events_scroll(tui_model *m, struct view *v, int key);
/* The ratio list's columns that fit beside the names (tui_render.c): fills m->rvis. */
void tui_visible_ratios(tui_model *m, const struct view *v);
#define NRAT(m) ((m)->d->nratios)

/* A row being rendered into its text buffer (tui_render.c). */
struct tui_line {
	struct tui_row *row;
	int cols, pos;
	int tab0; /* tabs expand to 4 columns from here (the start of the source text) */
};

/* Binding masks: the views a key binding applies to. */
enum {
	TUI_V_SYMBOLS = 1,
	TUI_V_RATIOS = 2,
	TUI_V_ANNOTATE = 4,
	TUI_V_SUMMARY = 8,
	TUI_V_HELP = 16,
	TUI_V_DIFF = 32,
	TUI_V_CHILDREN = 64, /* the symbol list with Children and call trees */
	TUI_V_CALLS = 128,   /* callers and callees of one function */
	TUI_V_LISTS = TUI_V_SYMBOLS | TUI_V_RATIOS | TUI_V_CHILDREN,
	TUI_V_CHAINS = TUI_V_CHILDREN | TUI_V_CALLS, /* views with call trees */
	TUI_V_BROWSE = TUI_V_LISTS | TUI_V_ANNOTATE | TUI_V_SUMMARY | TUI_V_DIFF | TUI_V_CALLS,
	/* all but help */
	TUI_V_ALL = TUI_V_BROWSE | TUI_V_HELP,
};

/* View flags. */
enum {
	TUI_VF_CURSOR = 1,     /* rows have a cursor ('>'); without, UP/DOWN scroll the text */
	TUI_VF_LIST = 2,       /* a symbol list: annotate's < > and the sort column follow it */
	TUI_VF_MOVE_CLEAR = 4, /* moving the cursor clears the status message */
	TUI_VF_MODAL = 8,      /* keys without a binding here are taken (and do nothing) */
	TUI_VF_CHILDREN = 16,  /* rows show Children and Self, sorted by Children */
};

/* A view's behaviour: the model calls these instead of testing which view is on top. */
struct tui_view_ops {
	enum tui_view_kind kind;
	const char *name; /* "Symbols", "Ratios", ...: a list's title starts with it */
	unsigned bit;   /* TUI_V_*: the bindings that apply */
	unsigned flags; /* TUI_VF_* */
	const char *status; /* key hint on the status line */
	size_t (*rows)(const struct view *v);
	void (*title)(tui_model *m, struct tui_line *l, const struct view *v);
	void (*header)(tui_model *m, struct tui_line *l, const struct view *v); /* NULL: none */
	void (*row)(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
	/* the colouring metric changed (NULL: nothing to redo) */
	void (*metric)(tui_model *m, struct view *v);
	/* the symbol under the cursor or shown (NULL: none) */
	const char *(*symbol)(const tui_model *m, const struct view *v);
	/* lists whose cursor is not an index of v->rows (rows with call trees): the index in
	 * v->rows of the cursor's entry, and the rows made again after v->rows changed (the
	 * cursor then is an index of v->rows); NULL: the cursor is an index of v->rows */
	size_t (*entry)(const struct view *v);
	void (*relist)(tui_model *m, struct view *v);
};

extern const struct tui_view_ops tui_symbols_ops, tui_ratios_ops, tui_annotate_ops,
	tui_summary_ops, tui_help_ops, tui_diff_ops, tui_children_ops, tui_calls_ops;

/* A key binding: key in the views of the mask runs action. help is the binding's line on
 * the help screen ("keys\tmeaning", a second line after '\n'), NULL when an earlier
 * binding's line covers it; key 0 is a heading of the help screen. clamp: the view's
 * scroll is clamped after the action (keys of one view; global keys leave it to the
 * next render). */
typedef unsigned (*tui_action_fn)(tui_model *m, struct view *v, int key);
struct tui_binding {
	int key;
	unsigned views;
	tui_action_fn action;
	const char *help;
	int clamp;
};
extern const struct tui_binding tui_bindings[];
extern const size_t tui_nbindings;

/* tui_model.c: the stack, cursor and shared helpers */
struct view *tui_top_view(const tui_model *m);
int tui_body_rows(const tui_model *m);
size_t tui_view_nrows(const struct view *v);
void tui_set_msg(tui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct view *tui_push_view(tui_model *m, const struct tui_view_ops *ops);
void tui_pop_view(tui_model *m);
void tui_view_fini(struct view *v);
void tui_clamp_scroll(const tui_model *m, struct view *v);
void tui_center_cursor(const tui_model *m, struct view *v);
unsigned tui_move_cursor(tui_model *m, struct view *v, int key);
unsigned tui_set_metric(tui_model *m, int dir);
void tui_start_prompt(tui_model *m, int kind, const char *init, const char *label,
		      tui_prompt_fn done);
/* Simulated counts are exact: no interval, never "few samples". */
void tui_sim_exact(const tui_data *d, struct tui_ratio_val *v);
/* Every ratio of d (d->rfn set) for one place's counts (samples[nev], periods[nev]) into
 * out[nratios]; a ratio that cannot be evaluated gets flags 0; tui_sim_exact applied. */
void tui_eval_ratios(const tui_data *d, const uint64_t *samples, const uint64_t *periods,
		     struct tui_ratio_val *out);
void tui_compute_sym_ratios(tui_model *m);
const struct tui_ratio_val *tui_sym_rv(tui_model *m, size_t sym, size_t r);
int tui_hot_event(const tui_model *m);
const char *tui_col_name(const tui_model *m, int col);
/* The list view the annotate views on top of it were opened from. */
struct view *tui_parent_list(const tui_model *m);

/* tui_list.c: symbol and ratio lists */
int tui_push_list(tui_model *m, const struct tui_view_ops *ops);
void tui_list_rebuild(tui_model *m, struct view *v);
unsigned tui_list_sort(tui_model *m, struct view *v, int key);
unsigned tui_list_filter(tui_model *m, struct view *v, int key);
unsigned tui_list_annotate(tui_model *m, struct view *v, int key);
/* The index in l->rows of the list's cursor entry (SIZE_MAX when empty); put the cursor
 * on entry pos. */
size_t tui_list_entry(const struct view *l);
void tui_list_set_entry(tui_model *m, struct view *l, size_t pos);

/* tui_chains.c: call trees in the children list and the caller/callee view */
unsigned tui_chain_plus(tui_model *m, struct view *v, int key);
unsigned tui_chain_entry(tui_model *m, struct view *v, int key);
unsigned tui_chain_all(tui_model *m, struct view *v, int key);
unsigned tui_chain_annotate(tui_model *m, struct view *v, int key);
unsigned tui_chain_calls(tui_model *m, struct view *v, int key);
/* The tree of a row, its node's symbol (or the entry's), the share of event ev (period
 * or samples) through node n, whether a head node has nodes under it shown, the
 * limit of a shown node. */
struct tui_ctree *tui_crow_tree(const struct view *v, const struct crow *c);
size_t tui_crow_sym(const struct view *v, const struct crow *c);
uint64_t tui_cnode_val(const tui_chain *t, long n, size_t ev, int period);
int tui_cnode_more(const tui_model *m, const tui_chain *t, long n);

/* tui_diff.c: the diff view (the first view of a diff's data) */
int tui_push_diff(tui_model *m);
/* tui_text.c: summary and help */
int tui_push_help(tui_model *m);
int tui_push_summary(tui_model *m);

/* tui_annview.c: the annotate view */
uint64_t tui_item_val(const struct view *v, const struct item *it, size_t ev, int period);
int tui_open_annotate(tui_model *m, long sym, const struct tui_sym_ref *ref, int replace);
unsigned tui_annot_hottest(tui_model *m, struct view *v, int key);
unsigned tui_annot_next_hot(tui_model *m, struct view *v, int key);
unsigned tui_annot_toggle_src(tui_model *m, struct view *v, int key);
unsigned tui_annot_toggle_asm(tui_model *m, struct view *v, int key);
unsigned tui_annot_plus(tui_model *m, struct view *v, int key);
unsigned tui_annot_follow(tui_model *m, struct view *v, int key);
unsigned tui_annot_search_prompt(tui_model *m, struct view *v, int key);
unsigned tui_annot_search_next(tui_model *m, struct view *v, int key);
unsigned tui_annot_neighbour(tui_model *m, struct view *v, int key);
unsigned tui_annot_hscroll(tui_model *m, struct view *v, int key);

/* tui_render.c: views to text rows */
void tui_put(struct tui_line *l, const char *s);
void tui_putf(struct tui_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tui_fmt_ratio(char *out, size_t n, const struct tui_ratio_val *v);
const char *tui_show_name(enum tui_show show);
void tui_render_list_title(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_sym_header(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_sym_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
void tui_render_ratio_header(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_ratio_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
void tui_render_annot_title(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_annot_header(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_annot_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
void tui_render_summary_title(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_help_title(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_text_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
void tui_render_children_header(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_children_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);
void tui_render_calls_title(tui_model *m, struct tui_line *l, const struct view *v);
void tui_render_calls_row(tui_model *m, struct tui_line *l, const struct view *v, size_t i);

/* ---- the terminal (tui_draw.c, the only user of curses) ---- */

/* Curses key codes the loop maps to enum tui_key (values of KEY_* and friends). */
struct tui_term_keys {
	int none, resize, up, down, left, right, ppage, npage, home, end, enter, btab,
	    backspace, f1;
};
const struct tui_term_keys *tui_term_keys(void);
/* Open the terminal: a handle (the curses SCREEN), or NULL with err (no tty, unknown
 * TERM). Sets *color to whether colours are used (never with no_color, NO_COLOR set, or a
 * terminal without colours). */
void *tui_term_open(int no_color, int *color, struct mp_err *err);
/* Restore the terminal and free the handle (NULL-safe). */
void tui_term_close(void *term);
void tui_term_size(int *cols, int *rows);
/* Next key within timeout_ms, or keys->none. */
int tui_term_getkey(int timeout_ms);
void tui_term_draw(const struct tui_screen *s, int color, int clear_first);

#endif
