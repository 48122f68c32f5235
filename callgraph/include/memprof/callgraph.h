/* memprof/callgraph.h - the callgraph module: samples' call chains aggregated by distinct
 * stack, and what report, the TUI and the exports build from them (children and self per
 * symbol, caller and callee trees as perf report -g shows them, folded stacks, pprof).
 *
 * Feeding: every sample goes through mp_cg_add_sample(), which asks one function for the
 * sample's instruction addresses (leaf first, perf's order, possibly with PERF_CONTEXT_*
 * markers between kernel and user parts): mp_cg_sample_ips() by default (the file's
 * PERF_SAMPLE_CALLCHAIN, or the sample ip alone), or an unwinder's function with the same
 * signature (DWARF, LBR) set in mp_cg_opts. Each address is placed in its map at that point
 * of the file, and the stack is added to a prefix tree of (map, ip) frames: memory grows
 * with distinct stacks, never with samples.
 *
 * After the file is read, mp_cg_resolve() names every distinct address once, and the
 * queries (mp_cg_foreach_stack, mp_cg_table, mp_cg_tree) work on function-level stacks.
 */
#ifndef MEMPROF_CALLGRAPH_H
#define MEMPROF_CALLGRAPH_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "mp_analyzer.h"

typedef struct mp_cg mp_cg;

/* A sample's instruction addresses, leaf first, as PERF_SAMPLE_CALLCHAIN holds them: values
 * >= PERF_CONTEXT_MAX are context markers (PERF_CONTEXT_KERNEL, _USER, ...) that set the
 * cpumode of the addresses after them; before any marker the sample's cpumode applies.
 * *ips is borrowed: valid until the next call or the end of the sample callback. Returns 0
 * (n = 0: the sample adds nothing to the call graph) or a negative code. */
typedef int (*mp_cg_ips_fn)(void *ctx, mp_sym *sym, const struct mp_pd_sample *s,
			    const uint64_t **ips /* OUT */, size_t *n /* OUT */);

/* The default: the file's callchain when the sample has one, else the sample ip alone. */
int mp_cg_sample_ips(void *ctx, mp_sym *sym, const struct mp_pd_sample *s,
		     const uint64_t **ips /* OUT */, size_t *n /* OUT */);

struct mp_cg_opts {
	mp_cg_ips_fn ips;      /* NULL = mp_cg_sample_ips */
	void *ips_ctx;
	int want_comm;         /* key stacks by the thread's comm (a root above the stack) */
	/* perf's --max-stack: keep at most this many addresses (markers not counted) of each
	 * chain, the leaf-most ones, or with caller_limit the root-most ones as perf report -g
	 * caller does. 0 = all. */
	unsigned max_stack;
	int caller_limit;
	/* 1: mp_cg_table() and mp_cg_tree() count inlined functions as entries and frames of
	 * their own, as perf report --inline (its default) does: an inlined function's entry
	 * has children (samples with it in the stack) and no self (a sample's self goes to
	 * the symbol holding the address). Needs mp_cg_resolve() with want_line 2. */
	int inline_entries;
	/* mp_cg_session_new(): keep the samples' memory fields per address stack, event and
	 * data place (the data symbol and object of the address, placed by the session's
	 * data-address context): their weights summed and their data sources counted by
	 * level, for pprof's memory sample types and data labels */
	int want_mem;
};

/* New, empty call graph; NULL on allocation failure. o may be NULL (defaults). */
mp_cg *mp_cg_new(const struct mp_cg_opts *o);
void mp_cg_free(mp_cg *cg); /* NULL-safe */

/* Add one sample: its addresses from the ips function, placed in maps through sym (which
 * must have seen the task records up to this sample). 0, or -ENOMEM, or the ips
 * function's error. */
int mp_cg_add_sample(mp_cg *cg, mp_sym *sym, const struct mp_pd_sample *s);
/* The same with the addresses given (leaf first, markers allowed). */
int mp_cg_add(mp_cg *cg, mp_sym *sym, size_t attr, uint32_t pid, uint32_t tid,
	      uint16_t cpumode, const uint64_t *ips, size_t n, uint64_t period);

/* The same with the sample's call chain given (ips[0..n), perf's callchain spelling, as
 * mp_session_opts.sample gets it): the sample's ip goes in front when the chain does not
 * start there. */
int mp_cg_add_chain(mp_cg *cg, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
		    size_t n);

/* Open a recording as mp_session_new() does, its call chains unwound by the session and
 * fed into a new call graph (*cg, free with mp_cg_free() before mp_session_free(); co->ips
 * is not used). so and co may be NULL. NULL with err naming the file; on error nothing is
 * left open. */
mp_session *mp_cg_session_new(const char *path, const struct mp_session_opts *so,
			      const struct mp_cg_opts *co, mp_cg **cg /* OUT */,
			      struct mp_err *err);

/* Samples added with more than one address (1 when the recording has call chains). */
uint64_t mp_cg_nr_chains(const mp_cg *cg);
size_t mp_cg_nattrs(const mp_cg *cg);
/* Totals per attr over every sample added ({0,0} for an attr never seen). */
struct mp_hist_counts mp_cg_total(const mp_cg *cg, size_t attr);
size_t mp_cg_nstacks(const mp_cg *cg);      /* distinct address stacks */

/* Name every distinct address once (want_line: 0 none, 1 source lines, 2 also inlined
 * functions). Idempotent; a later call with a higher want_line adds to it. 0 or -ENOMEM. */
int mp_cg_resolve(mp_cg *cg, mp_sym *sym, int want_line);

/* --- stacks ------------------------------------------------------------------------- */

/* One frame of a stack. Strings borrowed from the call graph and its sym context. */
struct mp_cg_frame {
	const char *sym;        /* function ("0x..." of the address when unresolved) */
	const char *dso;        /* object's short name, "[unknown]" when in no map */
	uint32_t dso_idx;       /* mp_sym_dso() index, UINT32_MAX when none */
	uint32_t fn;            /* function id: frames of one function share it */
	uint64_t ip;            /* the recorded address (a representative one at function
	                         * level) */
	uint64_t addr;          /* map-relative address as perf prints it */
	uint64_t sym_start;     /* the function's start (ELF vaddr), 0 when unresolved; an
	                         * inlined function's: the symbol's it is inlined into */
	const char *srcfile;    /* NULL when unknown */
	unsigned line;          /* 0 when unknown */
	int inlined;            /* 1: a function inlined at this address (the frame before it,
	                         * toward the root, is the one it was inlined into) */
	char level;             /* 'k' kernel, '.' user, ... as mp_sym_loc.level */
	int sym_resolved;
};

struct mp_cg_stack {
	const char *comm;                  /* with want_comm, else NULL */
	size_t nframes;
	const struct mp_cg_frame *frames;  /* [nframes] root first, leaf last */
	size_t nattrs;
	const struct mp_hist_counts *c;    /* [nattrs]: samples whose stack is exactly this */
};

struct mp_cg_iter_opts {
	int address;       /* 1: one stack per distinct address path (pprof); 0: per distinct
	                    * function path, frames of one function merged (flame graphs) */
	int inline_frames; /* 1: inlined functions as frames of their own (needs
	                    * mp_cg_resolve() with want_line 2) */
};

/* Call fn for each distinct stack with samples (needs mp_cg_resolve()). The stack and its
 * frames are borrowed for the duration of the call. A non-zero return of fn stops and is
 * returned; else 0 or -ENOMEM. */
int mp_cg_foreach_stack(mp_cg *cg, const struct mp_cg_iter_opts *o,
			int (*fn)(void *ctx, const struct mp_cg_stack *st), void *ctx);

/* --- children and self per function (perf report --children) --------------------- */

struct mp_cg_entry {
	const char *comm;           /* with by_comm, else NULL */
	struct mp_cg_frame f;       /* the function (sym, dso, level; fn id) */
	const struct mp_hist_counts *self;     /* [nattrs]: samples with it as the leaf */
	const struct mp_hist_counts *children; /* [nattrs]: samples with it anywhere in the
	                                        * stack (once per sample) */
};

struct mp_cg_table {
	size_t n;
	struct mp_cg_entry *e;      /* [n], by children of sort_attr, then self, then name */
	size_t nattrs;
	struct mp_hist_counts *counts; /* storage of self and children */
};

/* Children and self of every function with samples (needs mp_cg_resolve()). sort_attr:
 * the attr whose children period orders the entries (ties: the other attrs in order).
 * by_comm (needs want_comm): one entry per command and function, else per function.
 * 0 or -ENOMEM; free with mp_cg_table_fini(). */
int mp_cg_table(mp_cg *cg, size_t sort_attr, int by_comm, struct mp_cg_table *t /* OUT */);
void mp_cg_table_fini(struct mp_cg_table *t); /* NULL-safe */

/* --- the call tree of one entry (perf report -g graph/flat/folded) ------------------ */

/* perf's rule: in caller order an entry's tree holds the whole chain (root to leaf) of
 * the samples where it is the leaf, and the part from the entry to the leaf of the samples
 * where it is a caller; in callee order the same, leaf to root. With children = 0 (perf's
 * --no-children) only the first kind. Nodes are functions. */
struct mp_cg_tnode {
	uint32_t fn;                /* function id (mp_cg_fn()) */
	uint32_t parent;            /* UINT32_MAX for the top level */
	uint32_t first_child, next; /* UINT32_MAX = none; siblings by cumul of the tree's
	                             * attr, largest first */
	const struct mp_hist_counts *hit;   /* [nattrs]: samples whose chain ends here */
	const struct mp_hist_counts *cumul; /* [nattrs]: samples through this node */
};

struct mp_cg_tree {
	size_t n;
	struct mp_cg_tnode *nodes;   /* [n] */
	uint32_t first;              /* first top-level node, UINT32_MAX when empty */
	size_t nattrs;
	struct mp_hist_counts *counts;
};

struct mp_cg_tree_opts {
	int callee;      /* 0: caller order (root first, perf's default), 1: callee order */
	int children;    /* 1: perf's --children rule above; 0: only the entry's own samples */
	size_t sort_attr;
};

/* The tree of entry e of table t (needs mp_cg_resolve()). 0 or -ENOMEM, -EINVAL when e
 * is out of range; free with mp_cg_tree_fini(). */
int mp_cg_tree(mp_cg *cg, const struct mp_cg_table *t, size_t e,
	       const struct mp_cg_tree_opts *o, struct mp_cg_tree *out /* OUT */);
void mp_cg_tree_fini(struct mp_cg_tree *tr); /* NULL-safe */

/* --- pprof export ------------------------------------------------------------------ */

struct mp_cg_pprof_event {
	const char *name;  /* the event's name: sample types "<name>_samples" (count) and
	                    * "<name>" (events: the estimated count), with the characters
	                    * pprof takes badly in names as '_' */
	size_t attr;
	uint64_t period;   /* its sampling period, 0 in frequency mode */
};

/* Write the call graph as pprof's profile.proto, gzipped, to path: one sample per distinct
 * address stack (leaf first) with two values per event, locations per address with their
 * source lines (an inlined function's line first, then the function it is in), functions,
 * mappings per object with their build-ids, the comm as a label, and comment. With
 * want_mem and samples that have weights, data sources or data addresses, the memory
 * sample types follow the events' (mem_latency in cycles: the weights summed; by the data
 * source's level, as report --mem-mode's mem key: mem_l1_hit, mem_lfb_hit, mem_l2_hit,
 * mem_l3_hit, mem_dram_hit, mem_other, then mem_l1_miss and mem_llc_miss) and a sample
 * is written per address stack, event and data place, labelled data_symbol and
 * data_object. Resolves
 * with lines and inline functions (mp_cg_resolve(cg, sym, 2)). Written whole through a
 * temporary file (mp_out_open: path unchanged on failure, input's own file refused; input
 * may be NULL). 0, or a negative code with err naming the file. */
int mp_cg_pprof_write(mp_cg *cg, mp_sym *sym, const struct mp_cg_pprof_event *ev, size_t nev,
		      const char *comment, const char *path, const char *input,
		      struct mp_err *err);

/* A function by id (a representative frame: its first address seen). NULL when out of
 * range. Borrowed. */
const struct mp_cg_frame *mp_cg_fn(const mp_cg *cg, uint32_t fn);
size_t mp_cg_nfns(const mp_cg *cg);

/* --- the HTML flame graph (mp_cg_html.c; memprof report --html) ---------------------- */

/* The page's data-objects section (report --html of a recording with data addresses): the
 * data objects the samples touched (a global or static, a heap allocation site, a thread's
 * stack, else the mapping), their fields (type and member, from DWARF), and the cache lines
 * that several threads touched (sharing). Strings borrowed. */
struct mp_cg_html_dobj {
	const char *name, *kind;       /* "glob_bss (prog)", "global" | "heap" | "stack" | "other" */
	uint64_t size_min, size_max;   /* the object's size (heap: of its site's objects), 0 = ? */
	uint64_t samples, weight;      /* weight: each sample's, 1 when it has none */
	uint64_t stores;               /* samples that are stores (data source), 0 = none or ? */
	uint32_t threads;              /* threads that touched it */
};
struct mp_cg_html_dfield {
	size_t obj;                    /* its object's index */
	const char *field;             /* "struct pair +0x8 (b)" */
	uint64_t samples, weight;
};
struct mp_cg_html_dline {
	const char *line;              /* "glob+0x40" or the line's address */
	size_t obj;                    /* the object of its first sample */
	uint64_t samples, stores;
	uint32_t threads, writers;     /* threads that touched it, that stored to it */
};
struct mp_cg_html_dcode {
	size_t obj;                    /* the object's index */
	const char *sym;               /* the function whose samples touched it */
	const char *line;              /* its source line, "prog.c:187", or NULL when unknown */
	const char *dso;               /* the code's object */
	uint64_t samples, weight;
};
struct mp_cg_html_data {
	const char *events;            /* the events with data addresses, comma-separated */
	uint64_t samples, weight;      /* of all their samples */
	const struct mp_cg_html_dobj *obj;
	size_t nobj;
	const struct mp_cg_html_dfield *field;
	size_t nfield;
	const struct mp_cg_html_dline *line; /* the shared ones: two threads or more */
	size_t nline;
	const struct mp_cg_html_dcode *code; /* the code places that touched each object */
	size_t ncode;
};

struct mp_cg_html_opts {
	const char *path;            /* the output's name, for error messages */
	const char *title;           /* shown at the top (the recording's path) */
	const char *banner;          /* a line under it (the simulated-recording banner), or NULL */
	const size_t *ev;            /* [nev] attrs shown, in this order */
	const char *const *ev_names; /* [nev] their names */
	size_t nev;
	int inline_frames;           /* inlined functions as frames (mp_cg_resolve want_line 2) */
	const struct mp_cg_html_data *data; /* the data-objects section, NULL = none */
};

/* Write one self-contained HTML page (no network access: data, style and script inline) to
 * f: the function-level stacks (mp_cg_foreach_stack) with their estimated counts and
 * samples per event, drawn by the page as an interactive flame graph of any event (click
 * to zoom, search by regular expression, hover titles with counts and percentages), its
 * inverted caller view, a heat colouring by the ratio of two events per frame (a miss event
 * per instructions by default when there is such a pair), the hot-symbol table (self
 * and children), and with o->data the data objects, their fields, the code lines that
 * touched them (a click on an object shows its own) and the shared lines. Needs
 * mp_cg_resolve(). 0, or -ENOMEM / -EIO with err naming o->path. */
int mp_cg_html_write(mp_cg *cg, const struct mp_cg_html_opts *o, FILE *f, struct mp_err *err);

#endif
