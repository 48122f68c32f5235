/* tui_view.h - the model's core (tui_view.c): the stack of views, cursor and scroll, the
 * status message, the prompt and the colouring metric.
 *
 * A view is a struct of its own kind that starts with struct tui_view: the list views
 * (tui_list.c), annotate (tui_annview.c), the text views (tui_text.c), the views with call
 * trees (tui_chains.c), the diff view (tui_diff.c), the data views (tui_dview.c) and the
 * tables of text (tui_tview.c) each own their state and render their
 * own rows. The model reaches them only through their tui_view_ops: nothing tests which
 * view it has, what differs is a hook or a flag.
 *
 * The files form layers, each using only those below it (its headers include only lower
 * ones):
 *   tui_data.c (tui_internal.h) < tui_view.c (this) < tui_render.c (tui_render.h)
 *   < tui_text.c, tui_diff.c, tui_annview.c, tui_tview.c < tui_list.c, tui_dview.c
 *   < tui_chains.c
 *   < tui_keys.c (the key table, tui_keys.h) < tui_model.c (the model of mp_tui.h)
 * and beside them tui_source.c (data from a recording), tui_draw.c and tui_loop.c (the
 * terminal, tui_term.h). */
#ifndef TUI_VIEW_H
#define TUI_VIEW_H

#include "tui_internal.h"

struct tui_line; /* a row being rendered (tui_render.h) */
struct tui_view;

/* Binding masks: the views a key binding applies to (a view's ops->bit). */
enum {
	TUI_V_SYMBOLS = 1,
	TUI_V_RATIOS = 2,
	TUI_V_ANNOTATE = 4,
	TUI_V_SUMMARY = 8,
	TUI_V_HELP = 16,
	TUI_V_DIFF = 32,
	TUI_V_CHILDREN = 64, /* the symbol list with Children and call trees */
	TUI_V_CALLS = 128,   /* callers and callees of one function */
	TUI_V_DATA = 256,    /* data objects, cache lines, levels (data addresses) */
	TUI_V_DCODE = 512,   /* the code that touched one of them */
	TUI_V_TABLE = 1024,  /* a table of text (c2c's cache lines), the first view */
	TUI_V_SUBTABLE = 2048, /* a row's own table (a line's offsets) */
	TUI_V_TABLES = TUI_V_TABLE | TUI_V_SUBTABLE,
	TUI_V_LISTS = TUI_V_SYMBOLS | TUI_V_RATIOS | TUI_V_CHILDREN,
	TUI_V_CHAINS = TUI_V_CHILDREN | TUI_V_CALLS, /* views with call trees */
	TUI_V_DVIEWS = TUI_V_DATA | TUI_V_DCODE,
	TUI_V_BROWSE = TUI_V_LISTS | TUI_V_ANNOTATE | TUI_V_SUMMARY | TUI_V_DIFF | TUI_V_CALLS |
		       TUI_V_DVIEWS,
	/* all but help */
	TUI_V_ALL = TUI_V_BROWSE | TUI_V_HELP | TUI_V_TABLES,
};

/* View flags. */
enum {
	TUI_VF_CURSOR = 1,     /* rows have a cursor ('>'); without, UP/DOWN scroll the text */
	TUI_VF_MOVE_CLEAR = 2, /* moving the cursor clears the status message */
	TUI_VF_MODAL = 4,      /* keys without a binding here are taken (and do nothing) */
};

/* The symbols of a list view (the symbol and ratio lists, the children list): indexes of
 * the data's symbols, filtered by name and sorted by a column. tui_list.c builds it;
 * annotate's < and > walk it. */
struct tui_list {
	size_t *rows;
	size_t nrows;
	int sort_col;
	char filter[128];
	int children; /* event columns sort by Children, then Self */
	/* perf's zooms (t, d): only the rows of the thread, the object of these symbols (-1:
	 * none); zoom[] the zooms in the order taken ('t', 'd'), ESC and LEFT undo the last */
	long zthread, zdso;
	char zoom[2];
	int nzoom;
};

/* A view's behaviour. Hooks marked "NULL:" may be left out. */
struct tui_view_ops {
	enum tui_view_kind kind;
	const char *name; /* "Symbols", "Ratios", ...: a list's title starts with it */
	unsigned bit;     /* TUI_V_*: the bindings that apply */
	unsigned flags;   /* TUI_VF_* */
	/* the keys the status line names, 0-terminated; what it says of each is its binding's
	 * status text in this view (tui_status_line(), tui_keys.c) */
	const int *status;
	int cells; /* count cells an event (2: Children and Self); 0 = 1 */
	/* the columns the event cells may take (NULL: all but 40 for the names) */
	int (*count_room)(const tui_model *m);
	void (*free)(struct tui_view *v); /* the view and all it owns */
	size_t (*rows)(const struct tui_view *v);
	void (*title)(tui_model *m, struct tui_line *l, const struct tui_view *v);
	void (*header)(tui_model *m, struct tui_line *l, const struct tui_view *v); /* NULL: none */
	void (*row)(tui_model *m, struct tui_line *l, const struct tui_view *v, size_t i);
	/* the colouring metric changed (NULL: nothing to redo) */
	void (*metric)(tui_model *m, struct tui_view *v);
	/* the metric after m->metric in direction dir (NULL: the next event or ratio) */
	int (*next_metric)(const tui_model *m, const struct tui_view *v, int dir);
	/* the symbol under the cursor or shown (NULL: none) */
	const char *(*symbol)(const tui_model *m, const struct tui_view *v);
	/* the source line and instruction address of the cursor row (NULL: none) */
	void (*position)(const struct tui_view *v, unsigned *line, uint64_t *addr);
	/* list views: their symbol list (NULL: not a list) */
	struct tui_list *(*list)(struct tui_view *v);
	/* lists whose cursor is not an index of the list's rows (rows with call trees): the
	 * index in the rows of the cursor's entry, and the rows made again after the list
	 * changed (the cursor then is an index of the list's rows); NULL: the cursor is an
	 * index of the rows */
	size_t (*entry)(const struct tui_view *v);
	void (*relist)(tui_model *m, struct tui_view *v);
};

/* The part of every view that the model moves: the cursor row and the first row shown. */
struct tui_view {
	const struct tui_view_ops *ops;
	size_t cur, top;
};

/* What the prompt's text is for when ENTER accepts it (the view on top, the text). */
typedef unsigned (*tui_prompt_fn)(tui_model *m, struct tui_view *v, const char *text, int kind);

struct tui_model {
	tui_data *d;
	int cols, rows;
	struct tui_view **stack; /* owned, the top last */
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
	/* the event columns of every view: the ones chosen (-e, the e key; all by default),
	 * the first shown ([ and ] scroll them), and those shown at the last render, in order
	 * (the colouring event first when the window left it out) */
	unsigned char evsel[TUI_MAX_EVENTS];
	size_t evscroll;
	size_t vis[TUI_MAX_EVENTS], nvis, nsel;
	size_t ratscroll; /* the ratio lists' first ratio column shown ([ and ] scroll them) */
	int full_names;   /* names whole: no <...> for a template name too wide */
};

#define NEV(m) ((m)->d->nev)
#define NRAT(m) ((m)->d->nratios)

/* ---- the stack ---- */
struct tui_view *tui_top_view(const tui_model *m);
/* Push v (the caller's, allocated by its view; the model owns it from here): 0, or -ENOMEM
 * with v freed. */
int tui_push_view(tui_model *m, struct tui_view *v);
/* Put v in place of the top view, which is freed. */
void tui_replace_top(tui_model *m, struct tui_view *v);
void tui_pop_view(tui_model *m); /* never the last view */
void tui_view_free(struct tui_view *v); /* NULL-safe */

/* ---- cursor and scroll ---- */
int tui_body_rows(const tui_model *m);
size_t tui_view_nrows(const struct tui_view *v);
void tui_clamp_scroll(const tui_model *m, struct tui_view *v);
void tui_center_cursor(const tui_model *m, struct tui_view *v);
unsigned tui_move_cursor(tui_model *m, struct tui_view *v, int key);

/* ---- symbol lists ---- */
/* The symbol list of a list view, NULL for the others. */
struct tui_list *tui_view_list(const struct tui_view *v);
/* The list view the views on top of it were opened from, NULL when none. */
struct tui_view *tui_parent_list(const tui_model *m);
/* The index in the list's rows of the cursor's entry (SIZE_MAX when empty); put the
 * cursor on entry pos. */
size_t tui_list_entry(const struct tui_view *l);
void tui_list_set_entry(tui_model *m, struct tui_view *l, size_t pos);

/* ---- status line, prompt, metric ---- */
void tui_set_msg(tui_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tui_start_prompt(tui_model *m, int kind, const char *init, const char *label,
		      tui_prompt_fn done);
/* A key while the prompt is open: edit it, ESC cancels, ENTER runs its done function. */
unsigned tui_prompt_key(tui_model *m, int key);
/* x, X: the next metric in direction dir (the top view's next_metric), its rows redone. */
unsigned tui_set_metric(tui_model *m, int dir);
/* The event that colours: the metric, or event 0 when a ratio colours. */
int tui_hot_event(const tui_model *m);
/* The name of a sort column or metric (an event, a ratio, TUI_COL_SYMBOL, TUI_COL_DSO). */
const char *tui_col_name(const tui_model *m, int col);

/* ---- ratios ---- */
/* Simulated counts are exact: no interval, never "few samples". */
void tui_sim_exact(const tui_data *d, struct tui_ratio_val *v);
/* Every ratio of d (d->rfn set) for one place's counts (samples[nev], periods[nev]) into
 * out[nratios]; a ratio that cannot be evaluated gets flags 0; tui_sim_exact applied. */
void tui_eval_ratios(const tui_data *d, const uint64_t *samples, const uint64_t *periods,
		     struct tui_ratio_val *out);
/* The ratios of every symbol, computed on first use; ratio r of symbol sym (NULL when out
 * of memory). */
void tui_compute_sym_ratios(tui_model *m);
const struct tui_ratio_val *tui_sym_rv(tui_model *m, size_t sym, size_t r);

#endif
