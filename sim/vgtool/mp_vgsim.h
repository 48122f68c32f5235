/* mp_vgsim.h - what mpsim's files share: the simulation (mp_vgsim.c), its options
 * (mp_vgsim_opts.c), the instrumentation (mp_vgsim_instr.c), the outputs (mp_vgsim_out.c)
 * and allocation tracking (mp_vgsim_alloc.c). Not a public contract: valgrind's tool API
 * only. */
#ifndef MP_VGSIM_H
#define MP_VGSIM_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_xarray.h"
#include "libvex.h"

/* ---- quantities, in the order of the counts file's events: line ---- */
enum {
	Q_IR, Q_DR, Q_DW, Q_I1MR, Q_D1MR, Q_D1MW, Q_ILMR, Q_DLMR, Q_DLMW,
	Q_BC, Q_BCM, Q_BI, Q_BIM,
	Q_HITM, Q_INV,
	Q_ITLBM, Q_DTLBM, Q_STLBM, Q_PFX, Q_PFM, Q_PFL, Q_CYC, Q_IFST,
	Q_L3M,
	NQ
};
extern const HChar *const mps_q_names[NQ];

/* ---- options (mp_vgsim_opts.c) ---- */
struct cache_cfg {
	Long size;
	Int assoc, line;
};
struct tlb_cfg {
	Int entries, assoc;
};
extern struct cache_cfg clo_i1, clo_d1, clo_ll, clo_l3; /* clo_l3.size 0: no L3 */
extern struct tlb_cfg clo_itlb, clo_dtlb, clo_stlb;
extern Int clo_page, clo_cores, clo_quantum, clo_mem_period, clo_ldlat;
extern Bool clo_swpf, clo_simd, clo_turns;
extern const HChar *clo_out, *clo_mem_out;
/* latencies in cycles: an L1 miss that L2 holds, a miss of L2 (memory), a line from
 * another core (HITM), a second-level TLB hit, a page walk; an L2 miss the L3 holds */
extern Int lat_l2, lat_mem, lat_hitm, lat_stlb, lat_walk, lat_l3;
Bool mps_process_cmd_line_option(const HChar *arg);
void mps_print_usage(void);
void mps_print_debug_usage(void);

/* ---- per instruction (mp_vgsim.c) ---- */
struct ins {
	Addr addr;          /* where it runs */
	UInt size;
	UInt obj, fn;       /* indexes into objs/fns */
	Addr rel;           /* address relative to the object's text bias (callgrind's) */
	struct ins *next;   /* hash chain */
	ULong v[NQ];
};

extern XArray *mps_ins_all;      /* struct ins * in creation order */
extern XArray *mps_objs, *mps_fns; /* HChar * (names) */
struct ins *mps_ins_get(Addr addr, UInt size);
/* everything buffered through the caches (the end) */
void mps_flush_all(void);

/* ---- the instrumented code's helpers (mp_vgsim.c) and instrumentation (mp_vgsim_instr.c) */
/* What an instruction does: its fetch, a data read, write, or software prefetch. */
enum { EV_IR, EV_DR, EV_DW, EV_PF };
#define SZ_LOCKED 0x100 /* with an access's size: it is atomic */
/* A run of a block's events in one helper call (as callgrind's log_* helpers): fetches
 * and data accesses in order, the data accesses' addresses the call's arguments after the
 * batch (in order), then, when bc is set, the conditional branch of instruction bc, whose
 * last argument is 1 when taken. One per content, kept for the run. */
struct bev {
	struct ins *ii;
	UShort kind; /* EV_IR, EV_DR or EV_DW */
	UShort size; /* data: bytes | SZ_LOCKED; fetch: 1 when it lies in the I1 line and page
		      * of the batch's fetch before it (a hit that changes nothing: the
		      * batch's events reach the caches together) */
	UInt dt;     /* the batch's instructions up to this event's, its own included */
};
#define BATCH_ARGS 5 /* arguments after the batch (amd64 helpers take six) */
struct batch {
	struct ins *bc;
	struct ins *bc0;    /* a conditional branch before bc's, never taken: a lock-prefixed
			     * instruction's retry when its compare-and-swap failed, which
			     * valgrind, running one thread at a time, never sees */
	UInt n;
	UShort nir, nd;     /* its fetches and its data accesses (addresses after it) */
	UChar dsize[BATCH_ARGS]; /* the bytes of each data access */
	UChar nop;          /* its events the caches see, after the n: e[n .. n + nop) (the
			     * fetches of size 0 and the data accesses) */
	ULong fm;           /* the sets its fetches' lines fall in (mps_set_bit) */
	ULong execs;        /* times run whole: its instructions' Ir (mps_batch_fold) */
	struct batch *next; /* the instrumentation's table of batches (one per content) */
	struct bev e[];
};
void h_batch0(const struct batch *b);
void h_batch1(const struct batch *b, UWord x1);
void h_batch2(const struct batch *b, UWord x1, UWord x2);
void h_batch3(const struct batch *b, UWord x1, UWord x2, UWord x3);
void h_batch4(const struct batch *b, UWord x1, UWord x2, UWord x3, UWord x4);
void h_batch5(const struct batch *b, UWord x1, UWord x2, UWord x3, UWord x4, UWord x5);
VG_REGPARM(3) void h_dr(struct ins *ii, Addr a, UWord size);
VG_REGPARM(3) void h_dw(struct ins *ii, Addr a, UWord size);
VG_REGPARM(3) void h_pf(struct ins *ii, Addr a, UWord hint);
VG_REGPARM(2) void h_bi(struct ins *ii, Addr dst);
/* Lines fall in one of 64 groups of sets (the line number modulo the fewest sets of the
 * data caches, at most 64): two accesses of different groups never meet in any core's
 * cache set. The bit of the group of line number l is 1 << (l & mps_set_fold). */
extern UWord mps_set_fold;
static inline ULong mps_set_bit(UWord line)
{
	return 1ULL << (line & mps_set_fold);
}
extern Int mps_min_line; /* the smallest line of the caches: dirty helpers' accesses are cut to it */
/* Add each batch's runs to its instructions' Ir (keep), or forget them (a forked child),
 * and start counting again. */
void mps_batch_fold(Bool keep);
IRSB *mps_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		     const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
		     IRType gWordTy, IRType hWordTy);

/* ---- outputs (mp_vgsim_out.c): the counts file at the end, memory samples ---- */
enum { ML_LFB, ML_L1, ML_L2, ML_PEER, ML_MEM, ML_L3 }; /* where the data came from */
enum { MS_NONE, MS_HIT, MS_HITM };              /* what another core held */
void mps_fini(Int exitcode);
Int mps_cmp_ins(const void *a, const void *b);
void mps_mem_init(void);
void mps_mem_fork_child(void);
/* Whether a load of lat cycles by core cpu is the next one mps_mem_sample keeps (the
 * caches then look whether another core holds its line, for the sample's snoop). */
Bool mps_mem_load_next(ULong lat, UInt cpu);
/* A sampled access candidate (every clo_mem_period-th is written): tlb 1..3, time the
 * thread's virtual time, tid its kernel id, cpu its core. */
void mps_mem_sample(const struct ins *ii, Addr a, Bool w, UInt lvl, UInt snoop, ULong lat,
		    Bool lock, UInt tlb, ULong time, UInt tid, UInt cpu);

/* mp_vgsim.c: the virtual time (instructions) valgrind thread tid has reached and its
 * kernel thread id (0 when not yet seen running). */
void mps_thread_info(ThreadId tid, ULong *time, UInt *lwp);
/* mp_vgsim.c: the virtual time every thread has reached or resumes after: the earliest
 * clock of those that hold the others back (a thread in a blocking call resumes at its
 * waker's time or later). */
ULong mps_settled(void);

/* mp_vgsim_alloc.c: malloc, calloc, realloc, memalign, free, new and delete through
 * valgrind's replacement-malloc machinery (its preload, vgpreload_mpsim-amd64-linux.so,
 * must be in VALGRIND_LIB: memprof links massif's there, which replaces those functions
 * and nothing else). With --alloc-out=FILE each call is written there with its thread,
 * virtual time and call site (sim/mp_sim_alloc.c reads it). */
void mps_alloc_pre_clo_init(void);
Bool mps_alloc_option(const HChar *arg);
void mps_alloc_usage(void);
void mps_alloc_fork_child(void);
void mps_alloc_fini(void);

#endif
