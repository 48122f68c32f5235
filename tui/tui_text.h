/* tui_text.h - the text views (tui_text.c): the summary and the help screen. */
#ifndef TUI_TEXT_H
#define TUI_TEXT_H

#include "tui_render.h"

extern const struct tui_view_ops tui_summary_ops, tui_help_ops;

/* The summary: what was recorded, how, the program's ratios. 0 or -ENOMEM. */
int tui_push_summary(tui_model *m);
/* The help screen: the lines line(0), line(1), ... until it returns non-zero (the key
 * table's, tui_help_line()). 0 or -ENOMEM. */
int tui_push_help(tui_model *m, int (*line)(size_t i, char *buf, size_t n));

#endif
