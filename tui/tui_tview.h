/* tui_tview.h - the table view (tui_tview.c): rows of text made by the caller (memprof c2c
 * report's cache lines), each row maybe opening a table of its own (a line's offsets),
 * and notes under the rows (the line's verdict). */
#ifndef TUI_TVIEW_H
#define TUI_TVIEW_H

#include "tui_render.h"

extern const struct tui_view_ops tui_table_ops, tui_subtable_ops;

/* The data's table as the first view. 0 or -ENOMEM. */
int tui_push_table(tui_model *m);

/* Key actions. */
unsigned tui_table_open(tui_model *m, struct tui_view *v, int key);    /* ENTER: its table */
unsigned tui_table_hscroll(tui_model *m, struct tui_view *v, int key); /* { }: left, right */

#endif
