/* tui_diff.h - the diff view (tui_diff.c), the first view of a diff's data (memprof diff
 * --tui). */
#ifndef TUI_DIFF_H
#define TUI_DIFF_H

#include "tui_render.h"

extern const struct tui_view_ops tui_diff_ops;

/* The diff view of the model's data (its events in pairs): 0 or -ENOMEM. */
int tui_push_diff(tui_model *m);

#endif
