/* tui_dview.h - the data view (tui_dview.c): the rows of a data sort key (data objects,
 * cache lines, memory levels: any key the adapter offers) with their counts, and below a
 * row the code places whose samples touched it. */
#ifndef TUI_DVIEW_H
#define TUI_DVIEW_H

#include "tui_render.h"

extern const struct tui_view_ops tui_data_ops, tui_dcode_ops;

/* Key actions. */
unsigned tui_data_open(tui_model *m, struct tui_view *v, int key);     /* D: the data view */
unsigned tui_data_next_key(tui_model *m, struct tui_view *v, int key); /* TAB: next key */
unsigned tui_data_code(tui_model *m, struct tui_view *v, int key);     /* ENTER: its code */
unsigned tui_dcode_annotate(tui_model *m, struct tui_view *v, int key); /* ENTER: annotate */

#endif
