/* tui_list.h - the symbol lists (tui_list.c): the symbol list and the ratio list, and the
 * struct tui_list they and the children list (tui_chains.c) keep their rows in. */
#ifndef TUI_LIST_H
#define TUI_LIST_H

#include "tui_render.h"

extern const struct tui_view_ops tui_symbols_ops, tui_ratios_ops;

/* The symbol list, the first view of measured data without call chains. 0 or -ENOMEM. */
int tui_push_symbols(tui_model *m);

/* The list l of view v (v's list hook returns it): every symbol, sorted by column
 * sort_col (children: event columns by Children, then Self). 0 or -ENOMEM (l then owns
 * nothing). */
int tui_list_init(tui_model *m, struct tui_view *v, struct tui_list *l, int sort_col,
		  int children);
void tui_list_fini(struct tui_list *l);
/* Filter and sort v's list again, the cursor kept on its symbol (then v's relist). */
void tui_list_rebuild(tui_model *m, struct tui_view *v);
/* A list's title: " Symbols: N samples of 'ev', event count C | sort: col | filter: f". */
void tui_list_title(tui_model *m, struct tui_line *l, const struct tui_view *v);
/* The list sorted by the new colouring metric (a list view's metric hook). */
void tui_list_metric(tui_model *m, struct tui_view *v);

/* Key actions of the list views. */
unsigned tui_list_sort(tui_model *m, struct tui_view *v, int key);   /* o, O */
unsigned tui_list_filter(tui_model *m, struct tui_view *v, int key); /* / */
unsigned tui_list_annotate(tui_model *m, struct tui_view *v, int key); /* ENTER */
unsigned tui_list_ratios(tui_model *m, struct tui_view *v, int key);  /* R: the ratio list */
unsigned tui_ratios_scroll(tui_model *m, struct tui_view *v, int key); /* [ ] in it */
/* t, d: zoom into the thread or the object of the cursor's row (only its rows shown, the
 * title naming it), or out of it when zoomed; P: print the list to perf.hist.N. */
unsigned tui_list_zoom(tui_model *m, struct tui_view *v, int key);
unsigned tui_list_print(tui_model *m, struct tui_view *v, int key);
/* ESC, LEFT: undo v's last zoom; 0 when v is not zoomed. */
int tui_list_unzoom(tui_model *m, struct tui_view *v);
/* 1 when symbol sym is in l's zooms. */
int tui_list_zoomed_in(const tui_data *d, const struct tui_list *l, size_t sym);

#endif
