/* tui_internal.h - bodies of the tui module's data types (shared by its .c files). */
#ifndef TUI_INTERNAL_H
#define TUI_INTERNAL_H

#include "mp_tui.h"

struct tui_event {
	char *name;
	uint64_t samples, period, lost, count;
	int has_count;
	int freq;          /* sampling: -1 unknown, 0 every `rate` events, 1 `rate` per second */
	uint64_t rate;
};

struct tui_sym {
	char *name, *dso;
	uint64_t addr;
	uint64_t *cnt; /* samples[nev] then periods[nev] */
};

struct tui_ratio {
	char *name, *desc;
	double threshold;
	struct tui_ratio_val prog;
	int prog_set;
};

struct tui_data {
	size_t nev;
	struct tui_event ev[TUI_MAX_EVENTS];
	struct tui_sym *syms;
	size_t nsyms, capsyms;
	struct {
		char *key, *value;
	} *info;
	size_t ninfo, capinfo;
	struct tui_ratio *ratios;
	size_t nratios, capratios;
	tui_ratio_eval_fn rfn;
	void *rctx;
	tui_annotate_fn afn;
	void *actx;
	char *sim, *sim_note; /* simulated counts: the simulator and how; NULL = measured */
};

struct tui_aline {
	unsigned lineno;
	int hot;
	char *file, *text;
	uint64_t *cnt; /* samples[nev] then periods[nev] */
};

struct tui_ainsn {
	size_t line;
	uint64_t addr, target;
	enum tui_insn_kind kind;
	char *text, *tname;
	uint64_t *cnt;
};

struct tui_annot {
	size_t nev;
	char *name, *file;
	struct tui_aline *lines;
	size_t nlines, caplines;
	struct tui_ainsn *insns;
	size_t ninsns, capinsns;
};

/* ---- the terminal (tui_draw.c, the only user of curses) ---- */

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
