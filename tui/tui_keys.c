/* tui_keys.c - the key bindings: one table of {key, views, action, help, status} that the
 * model dispatches on, that makes the help screen, --help's key list and the views' status
 * lines, and the names of the keys for --batch strings. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tui_annview.h"
#include "tui_chains.h"
#include "tui_dview.h"
#include "tui_keys.h"
#include "tui_list.h"
#include "tui_text.h"
#include "tui_tview.h"

/* ---- key names (--batch "<ENTER><TAB>q") ---- */

static const struct {
	int key;
	const char *name;
} key_names[] = {
	{ TUI_KEY_UP, "UP" },       { TUI_KEY_DOWN, "DOWN" },   { TUI_KEY_LEFT, "LEFT" },
	{ TUI_KEY_RIGHT, "RIGHT" }, { TUI_KEY_PGUP, "PGUP" },   { TUI_KEY_PGDN, "PGDN" },
	{ TUI_KEY_HOME, "HOME" },   { TUI_KEY_END, "END" },     { TUI_KEY_ENTER, "ENTER" },
	{ TUI_KEY_ESC, "ESC" },     { TUI_KEY_TAB, "TAB" },     { TUI_KEY_BTAB, "BTAB" },
	{ TUI_KEY_BACKSPACE, "BS" }, { TUI_KEY_F1, "F1" },
};

const char *tui_key_name(int key)
{
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
		if (key_names[i].key == key)
			return key_names[i].name;
	return NULL;
}

int tui_key_parse(const char **p)
{
	const char *s = *p;
	if (*s == '<')
		for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
			size_t n = strlen(key_names[i].name);
			if (!strncmp(s + 1, key_names[i].name, n) && s[1 + n] == '>') {
				*p = s + n + 2;
				return key_names[i].key;
			}
		}
	*p = s + 1;
	return *s == '\n' ? TUI_KEY_ENTER : (unsigned char)*s;
}

/* ---- actions that are the same in every view ---- */

static unsigned act_move(tui_model *m, struct tui_view *v, int key)
{
	return tui_move_cursor(m, v, key);
}

static unsigned act_quit(tui_model *m, struct tui_view *v, int key)
{
	(void)m, (void)v, (void)key;
	return TUI_HANDLED | TUI_QUIT;
}

/* The key means nothing more here (i in the summary, R in the ratio list). */
static unsigned act_none(tui_model *m, struct tui_view *v, int key)
{
	(void)m, (void)v, (void)key;
	return TUI_HANDLED;
}

/* q, ESC, LEFT: back to the previous view; at the bottom q quits, ESC and LEFT zoom out
 * (t, d), then ESC clears a filter. */
static unsigned act_back(tui_model *m, struct tui_view *v, int key)
{
	m->msg[0] = 0;
	if (m->depth > 1) {
		tui_pop_view(m);
		tui_clamp_scroll(m, tui_top_view(m));
		return TUI_HANDLED | TUI_RESCAN;
	}
	if (key == 'q')
		return TUI_HANDLED | TUI_QUIT;
	if (tui_list_unzoom(m, v)) /* ESC and LEFT zoom out first, as perf's */
		return TUI_HANDLED | TUI_RESCAN;
	struct tui_list *l = tui_view_list(v);
	if (l && l->filter[0]) { /* ESC zooms out of a filter, as in perf */
		l->filter[0] = 0;
		tui_list_rebuild(m, v);
		return TUI_HANDLED | TUI_RESCAN;
	}
	return TUI_HANDLED;
}

static unsigned act_help(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	tui_push_help(m, tui_help_line);
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned act_close(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	tui_pop_view(m);
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned act_summary(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	tui_push_summary(m);
	return TUI_HANDLED | TUI_RESCAN;
}

static unsigned act_show(tui_model *m, struct tui_view *v, int key)
{
	(void)v, (void)key;
	m->show = (m->show + 1) % 4;
	tui_set_msg(m, "showing %s", tui_show_name(m->show));
	return TUI_HANDLED | TUI_REDRAW;
}

static unsigned act_metric(tui_model *m, struct tui_view *v, int key)
{
	(void)v;
	return tui_set_metric(m, key == 'x' || key == TUI_KEY_TAB ? 1 : -1);
}

/* ---- the table ---- */

#define V_BROWSE TUI_V_BROWSE
#define V_LISTS TUI_V_LISTS
#define V_CHILD TUI_V_CHILDREN
#define V_CHAINS TUI_V_CHAINS
#define V_ANN TUI_V_ANNOTATE
#define V_HELP TUI_V_HELP
#define V_ALL TUI_V_ALL
#define HEADING(text) { 0, 0, NULL, text, 0, NULL }

/* In table order: the first binding of a key in the top view runs; the help screen lists
 * the headings and help lines in this order. A key whose status text differs between views
 * has a binding for each. */
const struct tui_binding tui_bindings[] = {
	HEADING("Everywhere"),
	{ TUI_KEY_UP, V_ALL, act_move, "UP/DOWN, k/j\tmove the cursor", 0, NULL },
	{ TUI_KEY_DOWN, V_ALL, act_move, NULL, 0, NULL },
	{ 'k', V_ALL, act_move, NULL, 0, NULL },
	{ 'j', V_ALL, act_move, NULL, 0, NULL },
	{ TUI_KEY_PGUP, V_ALL, act_move, "PGUP/PGDN, SPACE\tpage up / down", 0, NULL },
	{ TUI_KEY_PGDN, V_ALL, act_move, NULL, 0, NULL },
	{ ' ', V_ALL, act_move, NULL, 0, NULL },
	{ TUI_KEY_HOME, V_ALL, act_move, "HOME/END\tfirst / last row", 0, NULL },
	{ TUI_KEY_END, V_ALL, act_move, NULL, 0, NULL },
	{ 'q', V_LISTS | TUI_V_DIFF | TUI_V_TABLE, act_back,
	  "q, ESC, LEFT\tback to the previous view; q in the symbol list quits,\n"
	  "ESC, LEFT there: zoom out (t, d), then clear the filter", 0, "q quit" },
	{ 'q', V_ANN | TUI_V_SUMMARY | TUI_V_CALLS | TUI_V_DVIEWS | TUI_V_SUBTABLE, act_back, NULL,
	  0, "q back" },
	{ TUI_KEY_ESC, V_BROWSE | TUI_V_TABLES, act_back, NULL, 0, NULL },
	{ TUI_KEY_LEFT, V_BROWSE | TUI_V_TABLES, act_back, NULL, 0, NULL },
	{ TUI_KEY_CTRL_C, V_ALL, act_quit, "CTRL-C\tquit", 0, NULL },
	{ 'h', V_BROWSE | TUI_V_TABLES, act_help, "h, ?, F1\tthis help (in annotate ? searches backwards: use h)",
	  0, "h help" },
	{ TUI_KEY_F1, V_BROWSE | TUI_V_TABLES, act_help, NULL, 0, NULL },
	{ '?', V_LISTS | TUI_V_SUMMARY, act_help, NULL, 1, NULL },
	{ 'i', V_BROWSE & ~TUI_V_SUMMARY, act_summary,
	  "i\tsummary: command, events, samples, lost, program ratios", 0, "i summary" },
	{ 'i', TUI_V_SUMMARY, act_none, NULL, 0, NULL },
	{ 'R', V_BROWSE & ~TUI_V_RATIOS, tui_list_ratios, "R\tper-symbol ratios", 0, "R ratios" },
	{ 'R', TUI_V_RATIOS, act_none, NULL, 0, "R ratios" },
	{ 'T', V_BROWSE, act_show,
	  "T, t\tshow percent / samples / period / percent of recording;\n"
	  "t in the lists zooms (below)", 0,
	  NULL },
	{ 't', V_BROWSE & ~V_LISTS, act_show, NULL, 0, NULL },
	{ 'x', V_BROWSE & ~TUI_V_DIFF, act_metric,
	  "x, X\tnext / previous event (or ratio) that sorts and colours", 0, "x event" },
	{ 'x', TUI_V_DIFF, act_metric, NULL, 0, "x next event" },
	{ 'X', V_BROWSE, act_metric, NULL, 0, NULL },
	{ 'e', (V_LISTS & ~V_CHILD) | V_ANN, tui_events_prompt,
	  "e, v	choose the event columns by name (empty: all);\n"
	  "with call chains e unfolds (see below): use v",
	  0, NULL },
	{ 'v', V_LISTS | V_ANN, tui_events_prompt, NULL, 0, NULL },
	{ '[', (V_LISTS & ~TUI_V_RATIOS) | V_ANN, tui_events_scroll,
	  "[, ]	scroll the event (or ratio) columns left / right", 0, NULL },
	{ ']', (V_LISTS & ~TUI_V_RATIOS) | V_ANN, tui_events_scroll, NULL, 0, NULL },
	{ '[', TUI_V_RATIOS, tui_ratios_scroll, NULL, 0, NULL },
	{ ']', TUI_V_RATIOS, tui_ratios_scroll, NULL, 0, NULL },
	HEADING("Symbol lists"),
	{ TUI_KEY_ENTER, V_LISTS & ~V_CHILD, tui_list_annotate,
	  "ENTER, RIGHT, a\tannotate the symbol under the cursor", 1, "ENTER annotate" },
	{ TUI_KEY_RIGHT, V_LISTS & ~V_CHILD, tui_list_annotate, NULL, 1, NULL },
	{ 'a', V_LISTS & ~V_CHILD, tui_list_annotate, NULL, 1, NULL },
	{ '/', V_LISTS, tui_list_filter, "/\tfilter symbols by name (empty filter: show all)", 1,
	  "/ filter" },
	{ 'o', V_LISTS, tui_list_sort,
	  "o, O\tsort by next / previous column: events, ratios, name, dso", 1, "o sort" },
	{ 'O', V_LISTS, tui_list_sort, NULL, 1, NULL },
	{ TUI_KEY_TAB, V_LISTS, act_metric, "TAB, shift-TAB\tnext / previous event (as x, X)", 1,
	  NULL },
	{ 't', V_LISTS, tui_list_zoom,
	  "t\tzoom into the row's thread (process), or out of it", 1,
	  NULL },
	{ 'd', V_LISTS, tui_list_zoom, "d\tzoom into the row's object (DSO), or out of it", 1,
	  NULL },
	{ 'P', V_LISTS, tui_list_print, "P\tprint the list, every row, to perf.hist.N", 1, NULL },
	{ TUI_KEY_BTAB, V_LISTS, act_metric, NULL, 1, NULL },
	HEADING("Call chains (Children and Self columns: recordings with call chains)"),
	{ '+', V_CHAINS, tui_chain_plus, "+\tunfold / fold one level of the call tree under the cursor",
	  1, "+ unfold" },
	{ 'e', V_CHAINS, tui_chain_entry, "e\tunfold / fold the whole call tree of the cursor's entry",
	  1, "e/E/C chains" },
	{ 'E', V_CHAINS, tui_chain_all, "E, C\tunfold every call tree / fold them all", 1, NULL },
	{ 'C', V_CHAINS, tui_chain_all, NULL, 1, NULL },
	{ TUI_KEY_ENTER, V_CHAINS, tui_chain_annotate,
	  "ENTER, RIGHT, a\tannotate the symbol, or the function of a call chain row", 1,
	  "ENTER annotate" },
	{ TUI_KEY_RIGHT, V_CHAINS, tui_chain_annotate, NULL, 1, NULL },
	{ 'a', V_CHAINS, tui_chain_annotate, NULL, 1, NULL },
	{ 'c', V_CHILD, tui_chain_calls, "c\tcallers and callees of the function under the cursor",
	  1, "c callers" },
	{ 'c', TUI_V_CALLS, tui_chain_calls, NULL, 1, "c recentre here" },
	HEADING("Data (recordings with data addresses: record -d, memprof mem record)"),
	{ 'D', V_BROWSE & ~TUI_V_DATA, tui_data_open,
	  "D\tdata view: objects, cache lines, levels, heap sites, fields", 0, NULL },
	{ 'D', TUI_V_DATA, tui_data_next_key, NULL, 1, NULL },
	{ TUI_KEY_TAB, TUI_V_DATA, tui_data_next_key,
	  "TAB, shift-TAB\tin it: the next / previous sort key", 1,
	  "TAB key" },
	{ TUI_KEY_BTAB, TUI_V_DATA, tui_data_next_key, NULL, 1, NULL },
	{ TUI_KEY_ENTER, TUI_V_DATA, tui_data_code,
	  "ENTER, RIGHT\tthe code (symbols and lines) whose samples touched the row;\n"
	  "there ENTER annotates the symbol, q or LEFT goes back",
	  1, "ENTER code" },
	{ TUI_KEY_RIGHT, TUI_V_DATA, tui_data_code, NULL, 1, NULL },
	{ TUI_KEY_ENTER, TUI_V_DCODE, tui_dcode_annotate, NULL, 1, "ENTER annotate" },
	{ TUI_KEY_RIGHT, TUI_V_DCODE, tui_dcode_annotate, NULL, 1, NULL },
	{ 'a', TUI_V_DCODE, tui_dcode_annotate, NULL, 1, NULL },
	HEADING("Tables (memprof c2c report: cache lines, then one line's offsets)"),
	{ TUI_KEY_ENTER, TUI_V_TABLE, tui_table_open,
	  "ENTER, RIGHT\ta cache line: its offsets, threads, code and verdict", 1,
	  "ENTER offsets" },
	{ TUI_KEY_RIGHT, TUI_V_TABLE, tui_table_open, NULL, 1, NULL },
	{ '{', TUI_V_TABLES, tui_table_hscroll, "{, }\tscroll the wide rows left / right", 1,
	  "{ } scroll" },
	{ '}', TUI_V_TABLES, tui_table_hscroll, NULL, 1, NULL },
	HEADING("Annotate"),
	{ 'H', V_ANN, tui_annot_hottest, "H\tgo to the hottest line", 1, "H hottest" },
	{ TUI_KEY_TAB, V_ANN, tui_annot_next_hot,
	  "TAB, shift-TAB\tnext / previous hot line, hottest first", 1, "TAB next hot" },
	{ TUI_KEY_BTAB, V_ANN, tui_annot_next_hot, NULL, 1, NULL },
	{ 's', V_ANN, tui_annot_toggle_src,
	  "s\ttoggle source code view: source lines / assembly only", 1, "s source" },
	{ 'a', V_ANN, tui_annot_toggle_asm, "a\tassembly under every source line on / off", 1,
	  "a asm" },
	{ TUI_KEY_ENTER, V_ANN, tui_annot_follow,
	  "ENTER, RIGHT\ton a call: open the callee; on a jump: go to its target;\n"
	  "on a source line: show / hide its assembly (also +)",
	  1, "ENTER follow" },
	{ TUI_KEY_RIGHT, V_ANN, tui_annot_follow, NULL, 1, NULL },
	{ '+', V_ANN, tui_annot_plus, NULL, 1, NULL },
	{ '/', V_ANN, tui_annot_search_prompt,
	  "/, ?, n\tsearch forward, backwards, repeat the last search", 1, "/ search" },
	{ '?', V_ANN, tui_annot_search_prompt, NULL, 1, NULL },
	{ 'n', V_ANN, tui_annot_search_next, NULL, 1, NULL },
	{ '{', V_ANN, tui_annot_hscroll,
	  "{, }\tscroll long source and assembly lines left / right", 1, NULL },
	{ '}', V_ANN, tui_annot_hscroll, NULL, 1, NULL },
	{ '<', V_ANN, tui_annot_neighbour, "<, >\tprevious / next symbol of the list", 1,
	  "< > symbol" },
	{ '>', V_ANN, tui_annot_neighbour, NULL, 1, NULL },
	/* the help screen: these close it, the moves above scroll it, other keys do nothing */
	{ 'q', V_HELP, act_close, NULL, 0, "q back" },
	{ TUI_KEY_ESC, V_HELP, act_close, NULL, 0, NULL },
	{ TUI_KEY_LEFT, V_HELP, act_close, NULL, 0, NULL },
	{ 'h', V_HELP, act_close, NULL, 0, NULL },
	{ '?', V_HELP, act_close, NULL, 0, NULL },
	{ TUI_KEY_F1, V_HELP, act_close, NULL, 0, NULL },
};
const size_t tui_nbindings = sizeof(tui_bindings) / sizeof(tui_bindings[0]);

/* ---- the help screen ---- */

int tui_help_line(size_t i, char *buf, size_t n)
{
	size_t k = 0;
	for (size_t b = 0; b < tui_nbindings; b++) {
		const char *h = tui_bindings[b].help;
		if (!h)
			continue;
		if (!tui_bindings[b].key) { /* a heading */
			if (k++ == i) {
				snprintf(buf, n, "%s", h);
				return 0;
			}
			continue;
		}
		const char *tab = strchr(h, '\t'), *nl = strchr(h, '\n');
		if (k++ == i) {
			snprintf(buf, n, "  %-17.*s %.*s", (int)(tab - h), h,
				 (int)(nl ? nl - tab - 1 : (long)strlen(tab + 1)), tab + 1);
			return 0;
		}
		if (nl && k++ == i) {
			snprintf(buf, n, "  %-17s %s", "", nl + 1);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- dispatch and the status line ---- */

const struct tui_binding *tui_find_binding(unsigned bit, int key)
{
	for (size_t i = 0; i < tui_nbindings; i++) {
		const struct tui_binding *b = &tui_bindings[i];
		if (b->key == key && b->action && (b->views & bit))
			return b;
	}
	return NULL;
}

void tui_status_line(const struct tui_view_ops *ops, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = 0;
	for (const int *k = ops->status; k && *k && len < n; k++) {
		const struct tui_binding *b = tui_find_binding(ops->bit, *k);
		if (!b || !b->status)
			continue;
		int w = snprintf(buf + len, n - len, "%s%s", len ? "  " : "", b->status);
		len += w > 0 ? (size_t)w : 0;
	}
}
