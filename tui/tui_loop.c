/* tui_loop.c - the browser's event loop: curses keys to enum tui_key, model to screen. The
 * terminal is restored on every way out (quit, error, SIGINT/SIGTERM through opts->stop);
 * fatal signals are the CLI's to catch (it restores the saved termios). */
#include <errno.h>
#include <stdio.h>

#include "tui_term.h"

static int map_key(int c)
{
	const struct tui_term_keys *k = tui_term_keys();

	if (c == k->up)
		return TUI_KEY_UP;
	if (c == k->down)
		return TUI_KEY_DOWN;
	if (c == k->left)
		return TUI_KEY_LEFT;
	if (c == k->right)
		return TUI_KEY_RIGHT;
	if (c == k->ppage)
		return TUI_KEY_PGUP;
	if (c == k->npage)
		return TUI_KEY_PGDN;
	if (c == k->home)
		return TUI_KEY_HOME;
	if (c == k->end)
		return TUI_KEY_END;
	if (c == k->enter || c == '\n' || c == '\r')
		return TUI_KEY_ENTER;
	if (c == k->btab)
		return TUI_KEY_BTAB;
	if (c == k->backspace || c == 127 || c == 8)
		return TUI_KEY_BACKSPACE;
	if (c == k->f1)
		return TUI_KEY_F1;
	switch (c) {
	case 27:
		return TUI_KEY_ESC;
	case '\t':
		return TUI_KEY_TAB;
	case 3:
		return TUI_KEY_CTRL_C;
	}
	if (c >= 32 && c < 127)
		return c;
	return TUI_KEY_NONE;
}

int tui_run(tui_model *m, const struct tui_run_opts *opts, struct mp_err *err)
{
	const struct tui_term_keys *k = tui_term_keys();
	int color = 0, cols, rows;
	void *term = tui_term_open(opts && opts->no_color, &color, err);

	if (!term)
		return err && err->code ? err->code : -EINVAL;
	tui_term_size(&cols, &rows);
	tui_model_resize(m, cols, rows);
	tui_term_draw(tui_model_render(m), color, 1);
	for (;;) {
		if (opts && opts->stop && *opts->stop)
			break;
		int c = tui_term_getkey(200);
		if (c == k->none)
			continue;
		if (c == k->resize) {
			tui_term_size(&cols, &rows);
			tui_model_resize(m, cols, rows);
			tui_term_draw(tui_model_render(m), color, 1);
			continue;
		}
		int key = map_key(c);
		if (key == TUI_KEY_NONE)
			continue;
		unsigned r = tui_model_key(m, key);
		if (r & TUI_QUIT)
			break;
		if (r & (TUI_REDRAW | TUI_RESCAN))
			tui_term_draw(tui_model_render(m), color, (r & TUI_RESCAN) != 0);
	}
	tui_term_close(term);
	return 0;
}
