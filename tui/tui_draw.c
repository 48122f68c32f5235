/* tui_draw.c - paint the model's rendered rows with curses. The only file of memprof that
 * includes <curses.h>: everything above it deals in text rows and enum tui_key. */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui_term.h"

enum { P_TITLE = 1, P_HEADER, P_SELECTED, P_HEAT1, P_HEAT2, P_HEAT3, P_ASM, P_SEL_HOT };

static const struct tui_term_keys keys = {
	.none = ERR,
	.resize = KEY_RESIZE,
	.up = KEY_UP,
	.down = KEY_DOWN,
	.left = KEY_LEFT,
	.right = KEY_RIGHT,
	.ppage = KEY_PPAGE,
	.npage = KEY_NPAGE,
	.home = KEY_HOME,
	.end = KEY_END,
	.enter = KEY_ENTER,
	.btab = KEY_BTAB,
	.backspace = KEY_BACKSPACE,
	.f1 = KEY_F(1),
};

const struct tui_term_keys *tui_term_keys(void)
{
	return &keys;
}

void *tui_term_open(int no_color, int *color, struct mp_err *err)
{
	const char *term = getenv("TERM");
	const char *nc = getenv("NO_COLOR");
	SCREEN *scr;

	*color = 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		mp_err_set(err, -ENOTTY, "the terminal browser needs a terminal on stdin and stdout");
		return NULL;
	}
	if (!term || !term[0]) {
		mp_err_set(err, -EINVAL, "TERM is not set: cannot drive the terminal");
		return NULL;
	}
	/* newterm, unlike initscr, returns NULL instead of exiting on an unknown TERM */
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		mp_err_set(err, -EINVAL, "TERM '%s': unknown terminal type", term);
		return NULL;
	}
	set_term(scr);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (!no_color && !(nc && nc[0]) && has_colors() && start_color() == OK) {
		short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
		init_pair(P_TITLE, COLOR_WHITE, COLOR_BLUE);
		init_pair(P_HEADER, COLOR_YELLOW, bg);
		init_pair(P_SELECTED, COLOR_BLACK, COLOR_CYAN);
		init_pair(P_HEAT1, -1 == bg ? -1 : COLOR_WHITE, bg);
		init_pair(P_HEAT2, COLOR_GREEN, bg);
		init_pair(P_HEAT3, COLOR_RED, bg);
		init_pair(P_ASM, COLOR_CYAN, bg);
		init_pair(P_SEL_HOT, COLOR_RED, COLOR_CYAN);
		*color = 1;
	}
	return scr;
}

void tui_term_close(void *term)
{
	SCREEN *scr = term;
	if (!scr)
		return;
	set_term(scr);
	curs_set(1);
	endwin();
	delscreen(scr);
}

void tui_term_size(int *cols, int *rows)
{
	getmaxyx(stdscr, *rows, *cols);
}

int tui_term_getkey(int timeout_ms)
{
	timeout(timeout_ms);
	return getch();
}

static attr_t row_attr(const struct tui_row *r, int color)
{
	if (r->selected)
		return color ? COLOR_PAIR(P_SELECTED) : A_REVERSE;
	switch (r->kind) {
	case TUI_ROW_TITLE:
	case TUI_ROW_STATUS:
		return color ? COLOR_PAIR(P_TITLE) : A_REVERSE;
	case TUI_ROW_HEADER:
		return color ? COLOR_PAIR(P_HEADER) | A_BOLD : A_BOLD;
	case TUI_ROW_ASM:
		return color ? COLOR_PAIR(P_ASM) : A_NORMAL;
	default:
		return A_NORMAL;
	}
}

static attr_t heat_attr(const struct tui_row *r, int heat, int color)
{
	if (!color) /* vt100: bold for the hottest, plain for the rest */
		return (r->selected ? A_REVERSE : A_NORMAL) | (heat >= TUI_HEAT_MAX ? A_BOLD : 0);
	if (r->selected)
		return heat >= TUI_HEAT_MAX ? COLOR_PAIR(P_SEL_HOT) | A_BOLD : COLOR_PAIR(P_SELECTED);
	return heat >= 3 ? COLOR_PAIR(P_HEAT3) | A_BOLD
	       : heat == 2 ? COLOR_PAIR(P_HEAT2) : COLOR_PAIR(P_HEAT1);
}

void tui_term_draw(const struct tui_screen *s, int color, int clear_first)
{
	if (!s)
		return;
	if (clear_first)
		clear();
	for (int y = 0; y < s->rows && y < LINES; y++) {
		const struct tui_row *r = &s->row[y];
		attr_t base = row_attr(r, color);
		int w = s->cols < COLS ? s->cols : COLS;
		for (int x = 0; x < w; x++) {
			attr_t a = base;
			for (int k = 0; k < r->nspans; k++)
				if (x >= r->span[k].col && x < r->span[k].col + r->span[k].len)
					a = heat_attr(r, r->span[k].heat, color);
			/* the last cell of the screen: curses may refuse it, harmlessly */
			mvaddch(y, x, (chtype)(unsigned char)r->text[x] | a);
		}
	}
	refresh();
}
