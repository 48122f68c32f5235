/* tui_internal.h - bodies of the tui module's data types (tui_data.c), the bottom layer: the
 * adapter (tui_source.c), the views and the tests read them; nothing here knows a view. */
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
	uint64_t *ch;  /* children: samples[nev] then periods[nev]; NULL = none */
	char *comm;    /* the thread's command (tui_data_set_sym_thread), NULL = none */
	long pid;      /* its process, -1 = the command only */
};

/* A call tree node: cnt = cumulative samples[nev], periods[nev], then self samples[nev],
 * periods[nev]. */
struct tui_cnode {
	size_t sym;
	long parent, first, last, next; /* -1 = none */
	uint64_t *cnt;
};

struct tui_chain {
	size_t nev;
	struct tui_cnode *n;
	size_t nn, cap;
	long first, last; /* top-level nodes */
};

struct tui_ratio {
	char *name, *desc;
	double threshold;
	struct tui_ratio_val prog;
	int prog_set;
	size_t evs[TUI_RATIO_EVENTS], nevs; /* its events, numerator's first */
};

/* counts of the data view: samples[nev], cost[nev], weight[nev] */
#define TUI_DCNT 3
struct tui_drow {
	char *name;
	uint64_t *cnt;
};
struct tui_dcode {
	size_t row;
	char *sym, *dso, *line;
	uint64_t *cnt;
};
struct tui_dtable {
	size_t nev;
	char *title;
	struct tui_drow *rows;
	size_t nrows, caprows;
	struct tui_dcode *codes;
	size_t ncodes, capcodes;
	uint64_t tot[TUI_DCNT * TUI_MAX_EVENTS]; /* of all rows */
};

/* a table of text (tui_ttable_*) */
struct tui_trow {
	char *text;
	double pct;
	struct tui_ttable *sub; /* ENTER's table, NULL = none */
};
struct tui_ttable {
	char *title, *header;
	struct tui_trow *rows;
	size_t nrows, caprows;
	char **notes;
	size_t nnotes, capnotes;
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
	int diff;             /* events in pairs (baseline, new): the model opens the diff view */
	int children;         /* symbols have children counts (tui_data_set_sym_children) */
	int threads;          /* symbols have a thread (tui_data_set_sym_thread): 1 commands, 2
	                       * processes too */
	tui_chain_fn cfn;
	void *cctx;
	double chain_pct;     /* tree nodes below this share are not shown */
	char *dkeys[TUI_MAX_DKEYS]; /* the data view's keys */
	size_t ndkeys;
	tui_dtable_fn dfn;
	void *dctx;
	tui_dtable *dtab[TUI_MAX_DKEYS]; /* the keys' tables, built on first use and kept */
	char *no_dkeys;       /* why there is no data view, NULL when there is one */
	tui_ttable *table;    /* the first view's table (c2c report), NULL = the symbols */
};

struct tui_aline {
	unsigned lineno;
	int hot;
	char *file, *text;
	char *note;    /* a likely()/unlikely() hint's counts (memprof predict), or NULL */
	int note_warn; /* the hint is wrong: the note is drawn hot */
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

#endif
