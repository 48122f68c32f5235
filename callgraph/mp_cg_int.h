/* mp_cg_int.h - the call graph's internals, shared by its files and its unit tests. */
#ifndef MP_CG_INT_H
#define MP_CG_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "memprof/callgraph.h"
#include "mp_util.h"

#define CG_ROOT 0x80000000u /* parent key of a top-level node: CG_ROOT | comm id */
#define CG_SELF 0x80000000u /* in a node key: a self-only node (below) */

/* The call graph's maps are util's u64 -> u32 map and growable arrays
 * (mp_util.h: mp_u64map_*, mp_grow, mp_mix64, mp_strhash). Its keys are hashes, so
 * cg_map_slot/cg_map_get take the map's reserved key UINT64_MAX as UINT64_MAX - 1
 * (mp_u64map_key; callers compare full keys anyway). */
/* The value slot of key (created when absent: *found = 0). NULL on allocation failure. */
uint32_t *cg_map_slot(struct mp_u64map *m, uint64_t key, int *found);
const uint32_t *cg_map_get(const struct mp_u64map *m, uint64_t key);

struct cg_frame {
	uint64_t ip;
	uint32_t map;
	uint16_t cpumode;
	uint8_t want_line;
	uint32_t fn;             /* function id of the symbol */
	uint32_t inl, ninl;      /* its inlined functions: cg->inl[inl .. inl + ninl), outermost
	                          * first (want_line 2) */
	const char *fn_file;     /* the symbol's own line here: the outermost inlined call's */
	unsigned fn_line;        /* site, else loc's */
	int renamed;             /* inl[inl] is the function holding the address under its
	                          * DWARF name, which differs from the symbol's (an alias, a
	                          * .part clone): chains show it, not the symbol, as perf's */
	struct mp_sym_loc loc;
};

/* One inlined function at an address, with the line it is at there (the innermost: the
 * address's line; the others: the call site of the one inlined into them). */
struct cg_inl {
	uint32_t fn;
	unsigned line;
	const char *file;
};

struct cg_node {
	uint32_t parent;         /* UINT32_MAX at the top */
	uint32_t frame;          /* address tree: frame index; function tree: fn id */
	uint32_t comm;
	uint32_t depth;          /* function tree only */
	uint32_t owner;          /* function tree: the symbol (fn id) holding the address of
	                          * the node's frame: a sample ending here is its self */
	int self_only;           /* the sampled address below a chain cut by max_stack in
	                          * caller order: the samples' self (as perf's), not a frame */
};

struct cg_ftree {
	struct cg_node *nodes;
	size_t n, capnodes;
	struct mp_hist_counts *cnt; /* [n * stride] */
	size_t capcnt;
	struct mp_u64map idx;
	/* built on first need (mp_cg_tree): for each fn id f, the nodes with counts whose
	 * stack holds f or whose self f is, in node order: fn_nodes[fn_first[f] ..
	 * fn_first[f + 1]) */
	uint32_t *fn_first, *fn_nodes;
	/* mp_cg_tree's caller-order memo, [n] each: a node's tree node for its whole stack
	 * (memo[0]) and for its stack from the entry's outermost occurrence (memo[1]), valid
	 * where stamp[k] is the tree's epoch */
	uint32_t *memo[2], *stamp[2], epoch;
	/* mp_cg_tree's (parent, fn) -> tree node index, kept from tree to tree: a slot is
	 * taken when tgen[j] is the tree's tgen (no clearing, no growing again per tree) */
	uint64_t *tkeys;
	uint32_t *tvals, *tgens, tgen;
	size_t tcap, tn;
};

/* The memory side (want_mem; mp_cg_mem.c): values per address stack, event and data
 * place. */
enum { CG_MEM_LATENCY, CG_MEM_L1, CG_MEM_LFB, CG_MEM_L2, CG_MEM_L3, CG_MEM_DRAM, CG_MEM_OTHER,
       CG_MEM_L1_MISS, CG_MEM_LLC_MISS, CG_MEM_NV };
struct cg_mem {
	uint32_t node, attr;
	uint32_t sym_lbl, obj_lbl; /* data symbol and object: label id + 1, 0 = none */
	uint64_t samples, period;
	uint64_t v[CG_MEM_NV];     /* weights summed, data sources by level */
};

struct mp_cg {
	struct mp_cg_opts o;
	mp_sym *sym;                 /* of the last resolve (comm names) */
	struct cg_frame *frames;
	size_t nframes, capframes;
	struct mp_u64map fidx;
	uint32_t last_frame;
	struct cg_node *nodes;
	size_t nnodes, capnodes;
	struct mp_hist_counts *cnt;  /* [nnodes * stride]: samples whose stack ends here */
	size_t capcnt;
	struct mp_u64map nidx;
	size_t stride;
	struct mp_hist_counts *total;/* [stride] */
	uint64_t nr_chains;
	struct { uint64_t ip; uint16_t mode; } *ipbuf;
	size_t capipbuf;
	uint64_t *lead;              /* a chain with the sample ip in front */
	size_t caplead;
	/* the last chain added and its node: the same chain again in the same thread with
	 * the same maps (mp_sym_generation) lands there without a lookup */
	uint64_t *last_ips;
	size_t last_n, caplast;
	uint32_t last_pid, last_tid, last_node;
	uint16_t last_mode;
	uint64_t last_gen;
	int last_ok, last_chain;
	/* resolution */
	int resolved, want_line;
	struct mp_cg_frame *fns;
	size_t nfns, capfns;
	struct cg_inl *inl;
	size_t ninl, capinl;
	struct mp_u64map fnidx;
	/* function tree */
	struct cg_ftree ft;
	int ft_built, ft_inline;
	size_t ft_stride;
	/* memory side */
	mp_daddr *dd;                /* the session's (mp_cg_session_new), NULL: no labels */
	struct cg_mem *mem;
	size_t nmem, capmem;
	struct mp_u64map midx;
	char **lbl;                  /* data labels */
	size_t nlbl, caplbl;
	struct mp_u64map lidx;
	int mem_any;                 /* a sample had a weight, data source or data place */
};

/* Add sample s, whose stack ended at node, to the memory side. 0 or -ENOMEM. */
int cg_mem_add(mp_cg *cg, uint32_t node, const struct mp_pd_sample *s);
void cg_mem_fini(mp_cg *cg);

int cg_ftree_build(mp_cg *cg, int inline_frames);

static inline const char *mp_cg_comm_name(const mp_cg *cg, uint32_t comm)
{
	return cg->sym ? mp_sym_comm_name(cg->sym, comm) : NULL;
}

#endif
