/* tui_term.h - the terminal (tui_draw.c, the only user of curses), for the key loop
 * (tui_loop.c). Nothing of the model's insides: the loop drives it through mp_tui.h. */
#ifndef TUI_TERM_H
#define TUI_TERM_H

#include "mp_tui.h"

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
