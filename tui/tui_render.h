/* tui_render.h - rows as text (tui_render.c): the pieces every view renders its rows with
 * (text, count cells, ratio cells, names, titles, spans of heat), the event columns that fit
 * the window, and the screen around a view's rows. Pure: tui_draw.c paints the result with
 * curses, tests read the strings. */
#ifndef TUI_RENDER_H
#define TUI_RENDER_H

#include <stdio.h>

#include "tui_view.h"

/* A row being rendered into its text buffer. */
struct tui_line {
	struct tui_row *row;
	int cols, pos;
	int tab0; /* tabs expand to 4 columns from here (the start of the source text) */
};

/* ---- text ---- */
void tui_put(struct tui_line *l, const char *s);
void tui_putf(struct tui_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text from its column skip on, tabs at 4-column stops from its start. */
void tui_put_from(struct tui_line *l, const char *s, size_t skip);
/* A title too wide for the row loses whole " | " parts from the end, then whole words
 * (t is cut in place). */
void tui_put_title(struct tui_line *l, char *t);
/* " SIMULATED (callgrind) |" before a title when the counts are simulated. */
void tui_put_sim(const tui_model *m, struct tui_line *l);
/* The columns from col to the current position drawn with heat (nothing for heat 0). */
void tui_span(struct tui_line *l, int col, int heat);
/* A symbol's name for `room` columns: a C++ name wider than that has its template
 * arguments shortened (demo::table<...>::insert), unless --full-names; buf holds it. */
const char *tui_short_name(const tui_model *m, const char *name, int room, char *buf,
			   size_t n);

/* ---- counts and ratios ---- */
/* Heat of a share in percent: 0 none, 1 some, 2 >= 0.5%, 3 >= 5%. */
int tui_heat_of(double pct);
void tui_fmt_ratio(char *out, size_t n, const struct tui_ratio_val *v);
int tui_ratio_heat(const struct tui_ratio_val *v);
const char *tui_show_name(enum tui_show show); /* "percent", "samples", ... */
int tui_cell_width(const tui_model *m, size_t e);
/* One count cell of event e (s samples, p period of totals tot_s, tot_p) as the model
 * shows counts; returns its heat. */
int tui_put_cell(const tui_model *m, struct tui_line *l, size_t e, uint64_t s, uint64_t p,
		 uint64_t tot_s, uint64_t tot_p);
/* The same with the recording's totals of "percent of recording" given (all_s, all_p):
 * where p is not the event's period (the data view's cost is each sample's weight). */
int tui_put_cell_of(const tui_model *m, struct tui_line *l, size_t e, uint64_t s, uint64_t p,
		    uint64_t tot_s, uint64_t tot_p, uint64_t all_s, uint64_t all_p);
/* Ratio r of symbol sym in a 13-column cell coloured by its heat. */
void tui_put_sym_ratio(tui_model *m, struct tui_line *l, size_t sym, size_t r);
/* The rest of a symbol's row: with thread (and data with threads) its pid and command, then
 * its name (coloured hot) and its object's base name. */
void tui_put_sym_name(const tui_model *m, struct tui_line *l, const struct tui_sym *s,
		      int hot, int thread);
/* The head of the thread column of tui_put_sym_name (nothing without thread, or for data
 * without threads). */
void tui_put_thread_head(const tui_model *m, struct tui_line *l, int thread);
/* The heads of the shown event columns, then the colouring ratio's. */
void tui_event_heads(tui_model *m, struct tui_line *l);

/* ---- event columns ---- */
/* The event columns that fit the top view beside its names: fills m->vis. */
void tui_visible_events(tui_model *m);
/* e, v: choose the event columns by name; [ ]: scroll them. */
unsigned tui_events_prompt(tui_model *m, struct tui_view *v, int key);
unsigned tui_events_scroll(tui_model *m, struct tui_view *v, int key);

/* ---- the screen ---- */
/* The top view in the screen: its title, header and rows, then the status line (the
 * prompt, else the message, else status). NULL when out of memory. */
const struct tui_screen *tui_render_screen(tui_model *m, const char *status);
/* The top view's title, header and every row (not only those on the screen), each with its
 * trailing blanks cut, to out (perf's P: perf.hist.N). 0, -ENOMEM or -EIO. */
int tui_render_print(tui_model *m, FILE *out);

#endif
