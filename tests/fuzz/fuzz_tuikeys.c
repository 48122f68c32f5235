/* fuzz_tuikeys.c - libFuzzer harness for the TUI model's key handling: the first bytes
 * shape a data set (events, symbols with counts, a ratio, annotations with lines and
 * instructions, children counts and call trees; with 39 symbols a table of text, c2c's
 * browser, as the first view), the rest are keys (printable characters and every special key), with a
 * resize and a render now and then. Every view reachable by keys is rendered and checked:
 * each row exactly cols characters. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_tui.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static size_t g_nev;   /* events of the current input */
static size_t g_nsyms; /* its symbols */

static int ratio_eval(void *ctx, size_t ratio, const uint64_t *samples, const uint64_t *periods,
		      struct tui_ratio_val *out)
{
	(void)ctx;
	(void)ratio;
	memset(out, 0, sizeof(*out));
	if (!periods[0])
		return 0;
	out->value = (double)periods[g_nev - 1] / (double)periods[0];
	out->lo = out->value * 0.9;
	out->hi = out->value * 1.1;
	out->flags = 1;
	out->weight = (double)samples[0];
	return 0;
}

static int annotate(void *ctx, const struct tui_sym_ref *sym, tui_annot **out, struct mp_err *err)
{
	struct in *in = ctx;
	(void)err;
	tui_annot *a = tui_annot_new(g_nev, sym->name, (take(in) & 1) ? "src.c" : NULL);
	if (!a)
		return -1;
	unsigned nl = take(in) % 12;
	for (unsigned l = 0; l < nl; l++) {
		char text[32];
		snprintf(text, sizeof(text), "line %u\t%c", l, (char)(32 + take(in) % 95));
		long li = tui_annot_add_line(a, take(in) % 4 ? l + 1 : 0, NULL, text);
		if (li < 0)
			break;
		for (size_t e = 0; e < g_nev; e++)
			tui_annot_set_line_count(a, (size_t)li, e, take(in), take(in) * 1000u);
		tui_annot_set_line_hot(a, (size_t)li, take(in) & 1);
		if (take(in) & 1)
			tui_annot_set_line_note(a, (size_t)li, "hint: 3 correct, 1 wrong", take(in) & 1);
		unsigned ni = take(in) % 4;
		for (unsigned k = 0; k < ni; k++) {
			long ii = tui_annot_add_insn(a, (size_t)li, 0x1000 + l * 16 + k * 4, "mov %rax,%rbx",
						     (enum tui_insn_kind)(take(in) % 4),
						     take(in) & 1 ? 0x1000 + take(in) : 0, NULL);
			if (ii >= 0)
				for (size_t e = 0; e < g_nev; e++)
					tui_annot_set_insn_count(a, (size_t)ii, e, take(in), take(in));
		}
	}
	*out = a;
	return 0;
}

/* A call tree of up to 23 nodes on random symbols and parents, or now and then a failure. */
static int chains(void *ctx, size_t sym, enum tui_chain_kind kind, tui_chain **out,
		  struct mp_err *err)
{
	struct in *in = ctx;
	(void)sym, (void)kind, (void)err;
	if (take(in) % 16 == 1)
		return -5;
	tui_chain *c = tui_chain_new(g_nev);
	if (!c)
		return -1;
	unsigned nn = take(in) % 24;
	for (unsigned k = 0; k < nn && g_nsyms; k++) {
		long parent = k ? (long)(take(in) % (k + 1)) - 1 : -1;
		long n = tui_chain_add(c, parent, take(in) % g_nsyms);
		if (n < 0)
			break;
		for (size_t e = 0; e < g_nev; e++)
			tui_chain_set_count(c, (size_t)n, e, take(in), take(in) * 997u, take(in),
					    take(in) * 997u);
	}
	*out = c;
	return 0;
}

/* text of up to 300 characters from the input (long rows scroll with { }) */
static void text_of(struct in *in, char *buf)
{
	size_t n = take(in) * 300u / 256u;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(32 + take(in) % 95);
	buf[n] = 0;
}

/* A table of rows (each maybe with its own table of rows and notes) as the data's first
 * view. */
static void add_table(tui_data *d, struct in *in)
{
	char text[301], head[301];
	text_of(in, head);
	tui_ttable *t = tui_ttable_new("fuzz table", head);
	if (!t)
		return;
	unsigned nr = take(in) % 20;
	for (unsigned i = 0; i < nr; i++) {
		text_of(in, text);
		long r = tui_ttable_add_row(t, text, take(in) * 100.0 / 255.0);
		if (r < 0 || !(take(in) & 1))
			continue;
		text_of(in, head);
		tui_ttable *sub = tui_ttable_new("fuzz sub", head);
		for (unsigned k = take(in) % 10; sub && k; k--) {
			text_of(in, text);
			tui_ttable_add_row(sub, text, take(in) % 101);
		}
		for (unsigned k = take(in) % 4; sub && k; k--) {
			text_of(in, text);
			tui_ttable_add_note(sub, text);
		}
		if (sub)
			tui_ttable_set_sub(t, (size_t)r, sub);
	}
	tui_data_set_table(d, t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int special[] = {
		TUI_KEY_UP, TUI_KEY_DOWN, TUI_KEY_LEFT, TUI_KEY_RIGHT, TUI_KEY_PGUP, TUI_KEY_PGDN,
		TUI_KEY_HOME, TUI_KEY_END, TUI_KEY_ENTER, TUI_KEY_ESC, TUI_KEY_TAB, TUI_KEY_BTAB,
		TUI_KEY_BACKSPACE, TUI_KEY_F1, TUI_KEY_CTRL_C,
	};
	struct in in = { data, size };
	struct mp_err err = { 0 };
	tui_data *d = tui_data_new();
	if (!d)
		return 0;
	g_nev = 1 + take(&in) % 3;
	for (size_t e = 0; e < g_nev; e++) {
		char name[16];
		snprintf(name, sizeof(name), "ev%zu", e);
		tui_data_add_event(d, name, 100, 100000, take(&in) % 3, (int)(take(&in) & 1), 123456);
		tui_data_set_event_sampling(d, e, (int)(take(&in) & 1), 1000);
	}
	tui_data_add_info(d, "command", "fuzz");
	unsigned ns = take(&in) % 40;
	for (unsigned i = 0; i < ns; i++) {
		char name[24];
		snprintf(name, sizeof(name), "sym%u_%c", i, (char)(33 + take(&in) % 94));
		long si = tui_data_add_sym(d, name, (take(&in) & 1) ? "a.out" : NULL, 0x1000 * i);
		if (si < 0)
			break;
		for (size_t e = 0; e < g_nev; e++)
			tui_data_set_sym_count(d, (size_t)si, e, take(&in), take(&in) * 997u);
	}
	if (take(&in) & 1) {
		tui_data_add_ratio(d, "R1", "a ratio", (take(&in) & 1) ? 0.5 : NAN);
		tui_data_set_ratio_fn(d, ratio_eval, NULL);
	}
	if (take(&in) & 1)
		tui_data_set_simulated(d, "callgrind", NULL);
	struct in ann = in; /* the annotate callback reads from its own copy */
	tui_data_set_annotate_fn(d, annotate, &ann);
	struct in chn = in; /* the chain callback too */
	g_nsyms = tui_data_nsyms(d);
	if (take(&in) & 1) {
		for (size_t i = 0; i < g_nsyms; i++)
			for (size_t e = 0; e < g_nev; e++)
				tui_data_set_sym_children(d, i, e, take(&in), take(&in) * 997u);
		tui_data_set_chain_fn(d, chains, &chn);
		tui_data_set_chain_limit(d, take(&in) % 3);
	}
	if (ns == 39) /* a table of text opens first (c2c report's browser) */
		add_table(d, &in);
	int cols = 20 + (int)(take(&in) % 120), rows = 5 + (int)(take(&in) % 50);
	tui_model *m = tui_model_new(d, cols, rows, &err);
	if (!m)
		return 0;
	while (in.n) {
		unsigned b = take(&in);
		int key = b < 0x80 ? (int)b : special[b % (sizeof(special) / sizeof(special[0]))];
		if (b == 0xff) {
			cols = 20 + (int)(take(&in) % 200);
			rows = 5 + (int)(take(&in) % 80);
			tui_model_resize(m, cols, rows);
		}
		unsigned r = tui_model_key(m, key);
		if (r & TUI_QUIT)
			break;
		if ((r & TUI_REDRAW) || b == 0xfe) {
			const struct tui_screen *s = tui_model_render(m);
			if (!s)
				abort();
			if (tui_model_cursor(m) >= tui_model_nrows(m) && tui_model_nrows(m))
				abort(); /* the cursor on a row */
			for (int y = 0; y < s->rows; y++)
				if ((int)strlen(s->row[y].text) != s->cols)
					abort(); /* each row exactly cols characters */
		}
	}
	tui_model_free(m);
	return 0;
}
