/* tui_annview.h - the annotate view (tui_annview.c): the source lines of one function with
 * their counts, the assembly under them on demand. */
#ifndef TUI_ANNVIEW_H
#define TUI_ANNVIEW_H

#include "tui_render.h"

extern const struct tui_view_ops tui_annotate_ops;

/* Annotate a symbol (sym: index in the data, or -1 with ref filled): pushed, or in place
 * of the top view when replace. 0, or a negative code with the message set and the stack
 * as it was. */
int tui_open_annotate(tui_model *m, long sym, const struct tui_sym_ref *ref, int replace);

/* Key actions of the annotate view. */
unsigned tui_annot_hottest(tui_model *m, struct tui_view *v, int key);       /* H */
unsigned tui_annot_next_hot(tui_model *m, struct tui_view *v, int key);      /* TAB */
unsigned tui_annot_toggle_src(tui_model *m, struct tui_view *v, int key);    /* s */
unsigned tui_annot_toggle_asm(tui_model *m, struct tui_view *v, int key);    /* a */
unsigned tui_annot_plus(tui_model *m, struct tui_view *v, int key);          /* + */
unsigned tui_annot_follow(tui_model *m, struct tui_view *v, int key);        /* ENTER */
unsigned tui_annot_search_prompt(tui_model *m, struct tui_view *v, int key); /* / ? */
unsigned tui_annot_search_next(tui_model *m, struct tui_view *v, int key);   /* n */
unsigned tui_annot_neighbour(tui_model *m, struct tui_view *v, int key);     /* < > */
unsigned tui_annot_hscroll(tui_model *m, struct tui_view *v, int key);       /* { } */

#endif
