/* mp_vgsim.c - memprof's valgrind tool ("mpsim"): the simulated PMU behind
 * `memprof record --sim`. It sees every instruction, load and store of every thread,
 * runs them through simulated caches and a branch predictor, and writes the exact counts
 * per instruction in callgrind's file format (a subset: positions: instr), which sim/
 * reads (mp_sim_profile_read) and turns into perf.data.
 *
 * The model (docs/memprof-record-sim.md):
 * - each simulated core has private L1i, L1d and L2 caches (LRU, write-allocate, a
 *   reference straddling two lines counts once, a miss when either line misses: the rules
 *   callgrind's --cache-sim follows, so that one thread's counts equal callgrind's for the
 *   same geometry);
 * - each thread runs on a core (round robin by thread, or its CPU when it pins itself);
 * - threads advance in virtual time: their accesses are buffered with their own
 *   instruction count as clock, and merged in that time, batch by batch (a batch: the
 *   run of a block's events one helper call buffers), before they reach the caches, up
 *   to the clock of the slowest thread that holds the others back;
 * - a thread holds the others back unless it is in a blocking system call, known by what
 *   the call is: a futex wait whose word still holds the value expected, or a call that
 *   waits for another thread or process, a child, a signal or time. Other calls return
 *   promptly: the thread holds the others at its clock until valgrind runs it again. A
 *   blocking call ends at the waker's time when the wake is seen here (a futex wake,
 *   taken when the waker enters its call, before the kernel acts; a thread's exit for
 *   its joiner), else at the time all threads have reached. So the interleave of threads
 *   that meet in barriers, locks and joins depends only on who reaches each meeting
 *   first, not on which thread valgrind runs afterwards ("threads in system calls").
 *
 * This file holds the caches, cores, threads and their merge, and the helpers the
 * instrumented code calls; the options are in mp_vgsim_opts.c, the instrumentation in
 * mp_vgsim_instr.c, the outputs (counts file, memory samples) in mp_vgsim_out.c and
 * allocation tracking in mp_vgsim_alloc.c (what they share: mp_vgsim.h).
 *
 * Built out of tree against Debian's valgrind package (sim/vgtool/CMakeLists.txt).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_amd64.h"
#include "pub_tool_xarray.h"

#include <immintrin.h>

#include "mp_vgsim.h"

/* ---- one simulated cache: LRU sets of lines, MRU first ------------------------------
 * An entry is tag << 2 | MESI state (0 invalid, S, E, M); the tag is the address above
 * the set bits, as callgrind's. */
enum { ST_I, ST_S, ST_E, ST_M };
struct cache {
	UWord *tags;
	Int assoc, sets_min_1, line_bits, tag_shift;
	Int mc_shift; /* an L2: 64 less the log2 of the slots of its core's Modified counts */
	Int mc_lanes; /* ... and the log2 of the cores a slot holds counts for (its group's) */
	/* A snoop has invalidated an entry: an invalid entry may lie above valid ones. Until
	 * then the only invalid entries are those never filled, below every valid one, and
	 * the last entry is a miss's victim (the same place the look for an invalid one
	 * finds, for the same result). */
	Bool holes;
	/* An L2, once threads run on two cores, looks in its sets past their most recent
	 * entry four ways at a time (set_ref_vec) when the host has AVX2, --simd=yes, and
	 * the ways are a multiple of 4 from 16 to 32: the function for its ways
	 * (multi_start), else NULL. */
	UWord (*vec)(struct cache *c, UWord *s, UInt set, UWord t2, UWord fill, UWord *evicted);
	UWord *(*find)(struct cache *c, UWord line); /* cache_find with AVX2, set with vec */
	/* A first-level TLB of 4 ways, over a second level of 4 ways or more, translates with
	 * AVX2 (tlb_walk_vec) when the host has it and --simd=yes. */
	Bool vtlb;
};

/* Modified counts, kept once threads run on two cores (multi_start): for each slot, how
 * many entries of a core's L1d and L2 hold a line hashed there in state M. A read that
 * misses its L2 looks for the line only in the cores whose count is not zero: a Modified
 * copy is the only one among the cores, and all a read needs to find (mc_check). A byte
 * each, four slots a line of the L2, from 2^12 to 2^18 slots; a count that reaches
 * MC_STUCK stays there, a slot a read always looks behind. A count may stay above the
 * entries it counts (an entry a prefetch or a fetch evicts is not taken off: a look that
 * finds nothing), never below. */
#define MC_MIN_BITS 12
#define MC_MAX_BITS 18
#define MC_STUCK 255
static inline void mc_add(UChar *p, Int d)
{
	if (*p != MC_STUCK)
		*p = (UChar)(*p + d);
}

/* The host runs AVX2 and --simd=yes (set by mps_post_clo_init): struct cache's vec. */
static Bool simd_ok;

/* set_ref past the set's most recent entry (which neither holds the line valid nor holds
 * it invalidated), for a cache whose sets are looked in four ways at a time (c->vec): the
 * ways that hold the line valid and those invalid come as bit masks, without a loop that
 * ends at a way that changes from access to access (a mispredicted branch on the host at
 * nearly every lookup of a set whose lines are all in use, as a random walk over an L2
 * makes), and the entries above the one taken move down one way in whole vectors, each
 * taking its upper neighbour where its way is above the taken one's. The same LRU, entry
 * for entry, as the loop of set_ref. nv: the set's vectors (ways / 4), a constant in each
 * of set_ref_v4..v8, so that the set stays in registers. */
/* The ways of set s (nv vectors of 4, loaded into v) that hold tag t2 (shifted, as in
 * set_ref) valid, as a bit mask; *inv gets those invalid. */
static inline __attribute__((always_inline, target("avx2"))) UInt
ways_holding(const UWord *s, UWord t2, const Int nv, __m256i *v, UInt *inv)
{
	const __m256i tag = _mm256_set1_epi64x((Long)t2), state = _mm256_set1_epi64x(3),
		      zero = _mm256_setzero_si256();
	UInt hit = 0, none_at = 0;
#pragma GCC unroll 8
	for (Int k = 0; k < nv; k++) {
		v[k] = _mm256_load_si256((const __m256i *)(s + 4 * k));
		__m256i st = _mm256_and_si256(v[k], state);
		__m256i none = _mm256_cmpeq_epi64(st, zero);
		/* the tag matches: the entry less its state bits is t2 */
		__m256i same = _mm256_cmpeq_epi64(_mm256_xor_si256(v[k], st), tag);
		hit |= (UInt)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_andnot_si256(none, same)))
		       << (4 * k);
		none_at |= (UInt)_mm256_movemask_pd(_mm256_castsi256_pd(none)) << (4 * k);
	}
	*inv = none_at;
	return hit;
}

static inline __attribute__((always_inline, target("avx2"))) UWord
set_ref_vec(struct cache *c, UWord *s, UInt set, UWord t2, UWord fill, UWord *evicted,
	    const Int nv)
{
	__m256i v[8];
	UInt inv, hit = ways_holding(s, t2, nv, v, &inv);
	Int at;
	UWord e, ret;
	if (hit) {
		at = __builtin_ctz(hit);
		e = s[at];
		ret = e & 3;
	} else {
		at = c->holes && inv ? __builtin_ctz(inv) : 4 * nv - 1;
		*evicted = s[at] & 3 ? s[at] : 0;
		e = t2 | fill;
		ret = ST_I;
	}
	/* way w (1..at) takes the entry of way w - 1, way 0 gets e: each vector's ways with
	 * the last of the vector before it ([p3, c0, c1, c2]; in the first vector, e in way 0) */
	const __m256i upto = _mm256_set1_epi64x(at + 1);
#pragma GCC unroll 8
	for (Int k = 0; k < nv; k++) {
		__m256i prev = k ? v[k - 1] : v[0];
		__m256i up = _mm256_alignr_epi8(v[k], _mm256_permute2x128_si256(prev, v[k], 0x21), 8);
		__m256i way = _mm256_setr_epi64x(4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3);
		__m256i take = _mm256_cmpgt_epi64(upto, way);
		__m256i out = _mm256_blendv_epi8(v[k], up, take);
		if (k == 0)
			out = _mm256_blend_epi32(out, _mm256_set1_epi64x((Long)e), 0x03);
		_mm256_store_si256((__m256i *)(s + 4 * k), out);
	}
	return ret;
}

#define SET_REF_V(n)                                                                          \
	static __attribute__((noinline, target("avx2"))) UWord set_ref_v##n(                     \
		struct cache *c, UWord *s, UInt set, UWord t2, UWord fill, UWord *evicted)        \
	{                                                                                         \
		return set_ref_vec(c, s, set, t2, fill, evicted, n);                              \
	}
SET_REF_V(4)
SET_REF_V(5)
SET_REF_V(6)
SET_REF_V(7)
SET_REF_V(8)

static void cache_init(struct cache *c, const struct cache_cfg *cfg, const HChar *what)
{
	Int sets = (Int)(cfg->size / cfg->line / cfg->assoc);
	c->assoc = cfg->assoc;
	c->sets_min_1 = sets - 1;
	c->line_bits = VG_(log2)((UInt)cfg->line);
	c->tag_shift = c->line_bits + VG_(log2)((UInt)sets);
	/* on a host cache line, so that a set of 8 ways is one line of the host's and one of
	 * 16 two */
	UWord *m = VG_(calloc)(what, (SizeT)sets * (SizeT)cfg->assoc + 8, sizeof(UWord));
	c->tags = (UWord *)(((Addr)m + 63) & ~(Addr)63);
}

/* The line's state in set (ST_I when absent); it becomes the set's most recently used.
 * On a miss it is installed with state fill, in the way of an invalid entry or else the
 * least recently used one; *evicted gets what it replaced (0: nothing valid). */
static inline __attribute__((always_inline)) UWord set_ref(struct cache *c, UInt set, UWord tag,
								   UWord fill, UWord *evicted)
{
	UWord *s = c->tags + (SizeT)set * (SizeT)c->assoc;
	UWord t2 = tag << 2;
	/* the tag matches and the state is valid: s ^ t2 is the state, 1..3 */
	if ((s[0] ^ t2) - 1 < 3)
		return s[0] & 3;
	/* the most recent entry holds the line, invalidated (another core wrote it): it is
	 * the first invalid entry, where the line goes back, and no other entry holds it
	 * valid (it would have been the most recent) */
	if (s[0] == t2) {
		*evicted = 0;
		s[0] = t2 | fill;
		return ST_I;
	}
	/* the vector lookup is a call: it pays where an L2 is looked in at a different way
	 * from one access to the next (threads on several cores sharing data at random: 7%
	 * off four threads walking one list, 9% off sixteen), not on one core's path, where a
	 * loop that ends at the same way every time (matmul's) costs the host less: an L2
	 * has one once threads run on two cores */
	if (c->vec)
		return c->vec(c, s, set, t2, fill, evicted);
	for (Int i = 1; i < c->assoc; i++)
		if ((s[i] ^ t2) - 1 < 3) {
			UWord e = s[i];
			for (Int j = i; j > 0; j--)
				s[j] = s[j - 1];
			s[0] = e;
			return e & 3;
		}
	Int victim = c->assoc - 1;
	if (c->holes)
		for (Int i = 0; i < c->assoc; i++)
			if (!(s[i] & 3)) {
				victim = i;
				break;
			}
	*evicted = s[victim] & 3 ? s[victim] : 0;
	for (Int j = victim; j > 0; j--)
		s[j] = s[j - 1];
	s[0] = t2 | fill;
	return ST_I;
}

/* The entry of line (an address's line number) in c, or NULL; no LRU update. */
static inline UWord *cache_find(struct cache *c, UWord line)
{
	UWord t2 = line >> (c->tag_shift - c->line_bits) << 2;
	UWord *s = c->tags + (SizeT)(line & (UWord)c->sets_min_1) * (SizeT)c->assoc;
	/* the tag matches and the state is valid: s ^ t2 is the state, 1..3 */
	for (Int i = 0; i < c->assoc; i++)
		if ((s[i] ^ t2) - 1 < 3)
			return &s[i];
	return NULL;
}

/* cache_find for an L2 that looks in its sets with AVX2 (c->vec; nv vectors of 4 ways): the
 * way that holds the line valid as a bit mask, without a loop that ends at a way that
 * changes from snoop to snoop (where threads on several cores read one list at random,
 * an L2 miss looks in each other core's L2). */
static inline __attribute__((always_inline, target("avx2"))) UWord *
find_vec(struct cache *c, UWord line, const Int nv)
{
	UWord *s = c->tags + (SizeT)(line & (UWord)c->sets_min_1) * (SizeT)c->assoc;
	__m256i v[8];
	UInt inv, hit = ways_holding(s, line >> (c->tag_shift - c->line_bits) << 2, nv, v, &inv);
	return hit ? &s[__builtin_ctz(hit)] : NULL;
}

#define FIND_V(n)                                                                             \
	static __attribute__((noinline, target("avx2"))) UWord *find_v##n(struct cache *c,       \
									  UWord line)             \
	{                                                                                         \
		return find_vec(c, line, n);                                                      \
	}
FIND_V(4)
FIND_V(5)
FIND_V(6)
FIND_V(7)
FIND_V(8)

/* The entry of line in L2 c, or NULL, as cache_find (with AVX2 where c has find). */
static inline UWord *l2_find(struct cache *c, UWord line)
{
	if (c->find)
		return c->find(c, line);
	return cache_find(c, line);
}

/* A reference of size bytes at a: one access, a miss when either line it touches missed
 * (callgrind's rule). st[0..1] get each line's state before (ST_I: it missed), ev[] what
 * each install evicted. Returns the number of lines touched. */
static inline Int cache_ref(struct cache *c, Addr a, UWord size, UWord fill, UWord st[2],
			    UWord ev[2], UWord line[2])
{
	UInt set1 = (UInt)((a >> c->line_bits) & (UWord)c->sets_min_1);
	UInt set2 = (UInt)(((a + size - 1) >> c->line_bits) & (UWord)c->sets_min_1);
	line[0] = a >> c->line_bits;
	ev[0] = ev[1] = 0;
	st[0] = set_ref(c, set1, a >> c->tag_shift, fill, &ev[0]);
	if (set1 == set2)
		return 1;
	line[1] = (a + size - 1) >> c->line_bits;
	st[1] = set_ref(c, set2, (a + size - 1) >> c->tag_shift, fill, &ev[1]);
	return 2;
}

/* The same without the details: 1 on a miss. A write (fill ST_M) leaves the lines
 * Modified. */
static inline __attribute__((always_inline)) Int cache_ref1(struct cache *c, Addr a, UWord size,
							    UWord fill)
{
	UWord ev;
	UInt set1 = (UInt)((a >> c->line_bits) & (UWord)c->sets_min_1);
	UInt set2 = (UInt)(((a + size - 1) >> c->line_bits) & (UWord)c->sets_min_1);
	UWord st = set_ref(c, set1, a >> c->tag_shift, fill, &ev);
	if (fill == ST_M)
		c->tags[(SizeT)set1 * (SizeT)c->assoc] |= ST_M;
	if (set1 == set2)
		return st == ST_I;
	UWord st2 = set_ref(c, set2, (a + size - 1) >> c->tag_shift, fill, &ev);
	if (fill == ST_M)
		c->tags[(SizeT)set2 * (SizeT)c->assoc] |= ST_M;
	return st == ST_I || st2 == ST_I;
}

static inline Bool any_miss(const UWord st[2], Int n)
{
	return st[0] == ST_I || (n == 2 && st[1] == ST_I);
}

/* ---- per instruction ------------------------------------------------------------------ */
#define INS_HASH (1u << 18)
static struct ins **ins_hash;
XArray *mps_ins_all;
XArray *mps_objs, *mps_fns;

static UInt name_index(XArray *xa, const HChar *name)
{
	Word n = VG_(sizeXA)(xa);
	/* recent names repeat: search backwards */
	for (Word i = n - 1; i >= 0 && i >= n - 64; i--)
		if (!VG_(strcmp)(*(HChar **)VG_(indexXA)(xa, i), name))
			return (UInt)i;
	for (Word i = n - 65; i >= 0; i--)
		if (!VG_(strcmp)(*(HChar **)VG_(indexXA)(xa, i), name))
			return (UInt)i;
	HChar *copy = VG_(strdup)("mpsim.name", name);
	VG_(addToXA)(xa, &copy);
	return (UInt)n;
}

struct ins *mps_ins_get(Addr addr, UInt size)
{
	UInt h = (UInt)((addr * 0x9e3779b97f4a7c15ULL) >> 46) & (INS_HASH - 1);
	for (struct ins *i = ins_hash[h]; i; i = i->next)
		if (i->addr == addr && i->size == size)
			return i;
	struct ins *i = VG_(calloc)("mpsim.ins", 1, sizeof(*i));
	i->addr = addr;
	i->size = size;
	DiEpoch ep = VG_(current_DiEpoch)();
	DebugInfo *di = VG_(find_DebugInfo)(ep, addr);
	const HChar *fn = NULL, *oname = NULL;
	/* PLT stubs are outside the text: their object by section */
	if (!di && VG_(DebugInfo_sect_kind)(&oname, addr) != Vg_SectUnknown && oname)
		for (const DebugInfo *d = VG_(next_DebugInfo)(NULL); d; d = VG_(next_DebugInfo)(d))
			if (!VG_(strcmp)(VG_(DebugInfo_get_filename)(d), oname)) {
				di = (DebugInfo *)d;
				break;
			}
	if (di) {
		i->obj = name_index(mps_objs, VG_(DebugInfo_get_filename)(di));
		i->rel = addr - (Addr)VG_(DebugInfo_get_text_bias)(di);
	} else {
		i->obj = name_index(mps_objs, "???");
		i->rel = addr;
	}
	i->fn = name_index(mps_fns, VG_(get_fnname)(ep, addr, &fn) && fn && *fn ? fn : "???");
	i->next = ins_hash[h];
	ins_hash[h] = i;
	VG_(addToXA)(mps_ins_all, &i);
	return i;
}

/* ---- cores and threads ---------------------------------------------------------------- */
/* A prefetch on its way: the line and the virtual time it arrives. */
struct inflight {
	UWord line;
	ULong ready;
};
#define N_INFLIGHT 64
struct core {
	struct cache i1, d1, l2;
	struct cache itlb, dtlb, stlb; /* lines are pages */
	UWord ipage, dpage;             /* the last page each TLB saw (+1; 0 = none) */
	UWord iline;                    /* the I1 line of the last fetch (+1; 0: none, or the
					 * fetch straddled two) */
	struct inflight pf[N_INFLIGHT];
	UInt npf;                       /* entries of pf in use (0: no load looks) */
	UChar *mc;                      /* its lane of its group's Modified counts (mc_at) */
};
static struct core *cores;
static struct cache llc; /* the L3 all cores share (clo_l3.size: there is one) */

/* An L2 miss of size bytes at a by ii: the cycles it adds to an L2 hit's and, in *lvl,
 * where the line came from: the L3 when there is one and it holds the line, else memory
 * (an L3 miss). The L3 keeps lines by LRU, whatever the cores' caches hold. */
static inline ULong l3_ref(struct ins *ii, Addr a, UWord size, UInt *lvl)
{
	if (clo_l3.size && !cache_ref1(&llc, a, size, ST_E)) {
		*lvl = ML_L3;
		return (ULong)(lat_l3 - lat_l2);
	}
	if (clo_l3.size)
		ii->v[Q_L3M]++;
	*lvl = ML_MEM;
	return (ULong)(lat_mem - lat_l2);
}
static UChar *core_used; /* [clo_cores]: a thread has run there */
static Int *used_list, n_used; /* those cores (the only ones whose caches hold lines) */
static Int *core_n;      /* [clo_cores]: scratch of merge() */
static Bool multi;       /* threads have run on more than one core: coherence matters */

/* The Modified counts of the cores (above), eight to a group (1 << MC_GROUP_BITS), a byte
 * each in each slot, allocated as a group's first core starts counting (multi_start): a
 * read that misses its L2 reads one line of the host's for all the other cores. */
#define MC_GROUP_BITS 3
static UChar **mc_groups;
static ULong mc_lanes_mask; /* the bytes of one slot's lanes, read as one word */

/* The count of core c's slot for line. */
static inline UChar *mc_at(const struct core *c, UWord line)
{
	const struct cache *x = &c->l2;
	return &c->mc[(SizeT)(UInt)((line * 0x9e3779b97f4a7c15ULL) >> x->mc_shift) << x->mc_lanes];
}

/* The line of entry e of set of cache x. */
static inline UWord entry_line(const struct cache *x, UWord e, UWord set)
{
	return (e >> 2) << (x->tag_shift - x->line_bits) | set;
}

/* Core k joins the cores whose caches coherence looks in (threads run on two cores): its
 * Modified counts start (its L1d's and L2's Modified entries counted), and its L2 looks in
 * its sets with AVX2 where it can (vec, find). */
static void multi_start(Int k)
{
	struct cache *x = &cores[k].l2;
	ULong lines = (ULong)(x->sets_min_1 + 1) * (ULong)x->assoc;
	Int bits = MC_MIN_BITS, lanes = 0;
	while (bits < MC_MAX_BITS && (1ULL << bits) < 4 * lines)
		bits++;
	while (lanes < MC_GROUP_BITS && (1 << lanes) < clo_cores)
		lanes++;
	x->mc_shift = 64 - bits;
	x->mc_lanes = lanes;
	mc_lanes_mask = lanes == MC_GROUP_BITS ? ~0ULL : (1ULL << (8 << lanes)) - 1;
	UChar **g = &mc_groups[k >> MC_GROUP_BITS];
	/* a word past the last slot: mc_check reads eight lanes at a time */
	if (!*g)
		*g = VG_(calloc)("mpsim.mcount", ((SizeT)1 << (bits + lanes)) + sizeof(ULong), 1);
	cores[k].mc = *g + (k & ((1 << MC_GROUP_BITS) - 1));
	struct cache *in[2] = { &cores[k].d1, x };
	for (Int j = 0; j < 2; j++)
		for (UWord set = 0; set <= (UWord)in[j]->sets_min_1; set++)
			for (Int w = 0; w < in[j]->assoc; w++) {
				UWord e = in[j]->tags[set * (UWord)in[j]->assoc + (UWord)w];
				if ((e & 3) == ST_M)
					mc_add(mc_at(&cores[k], entry_line(in[j], e, set)), 1);
			}
	if (simd_ok && x->assoc % 4 == 0 && x->assoc >= 16 && x->assoc <= 32) {
		static UWord (*const by_vectors[9])(struct cache *, UWord *, UInt, UWord, UWord,
						    UWord *) = {
			[4] = set_ref_v4, [5] = set_ref_v5, [6] = set_ref_v6, [7] = set_ref_v7,
			[8] = set_ref_v8
		};
		static UWord *(*const finds[9])(struct cache *, UWord) = {
			[4] = find_v4, [5] = find_v5, [6] = find_v6, [7] = find_v7, [8] = find_v8
		};
		x->vec = by_vectors[x->assoc / 4];
		x->find = finds[x->assoc / 4];
	}
}

static void use_core(Int k)
{
	if (core_used[k])
		return;
	core_used[k] = 1;
	used_list[n_used++] = k;
	multi = n_used > 1;
	/* from two cores on, coherence looks in the others' caches */
	if (n_used == 2)
		multi_start(used_list[0]);
	if (n_used >= 2)
		multi_start(k);
}

/* A thread's buffer is a ring of words holding records, told apart by their low bits:
 * - a batch run (struct batch *, 8-aligned: low bits 0; its data lines' set groups folded
 *   in the top 16 bits, REC_FOLD_SHIFT), then the addresses of its nd data accesses, one
 *   word each; its fetches need nothing more;
 * - a lone data access or prefetch (h_dr, h_dw, h_pf): ins * | REC_ONE, then
 *   kind | size << 2 | address << 11 (size: bytes | SZ_LOCKED, or the hint; user
 *   addresses have 47 bits);
 * - a jump of the thread's clock (thr_resume): time << 3 | REC_JUMP: its next instruction
 *   comes at that time;
 * - a repeat: count << 8 | back << 3 | REC_REPEAT: the batch record back words before it
 *   (in one segment) runs count more times, with the same addresses, one after another
 *   (a loop that finds the same data at every turn: a counter, a lock, a flag). A repeat
 *   partly run keeps the count still to run; the thread's next run of that batch with
 *   those addresses adds one to it while it is pending. */
enum { REC_BATCH, REC_ONE, REC_JUMP, REC_REPEAT };
#define REP_SHIFT 8
/* A batch run's word has the set groups of its data lines (mps_set_bit), folded to 16
 * bits, above the pointer's 48: what a look at whether it meets another thread needs
 * first (batch_meets()). */
#define REC_FOLD_SHIFT 48
#define REC_PTR_MASK ((1ULL << REC_FOLD_SHIFT) - 1)
static inline UWord rec_fold(ULong m)
{
	return (UWord)((m | m >> 16 | m >> 32 | m >> 48) & 0xffff);
}
#define REC_MAX 8 /* words a helper call adds at most (a batch of BATCH_ARGS accesses) */

/* The branch predictor of a thread: 2-bit counters indexed by global history and the
 * branch's address (7 bits each), and the last target per indirect branch (512). */
struct bpred {
	UWord hist;
	UChar ctr[1 << 14];
	Addr btac[512];
};

/* A thread's pending records' set groups (mps_set_bit) are kept per chunk of
 * 1 << CHUNK_BITS words of its ring: a record counts in the chunk it starts in, and a
 * chunk counts while the oldest pending record starts there or later. */
#define CHUNK_BITS 9
struct chunkm {
	ULong d, f;
};

/* Threads' buffers are rings of segments of SEG_WORDS words, taken from a pool as a
 * thread writes and given back once all their records are processed: the memory the
 * records need at once, reused while it is still in the host's caches, instead of rings
 * that double (and are touched afresh) while the others hold a thread back. */
#define SEG_BITS 14
#define SEG_WORDS (1u << SEG_BITS)
static UWord *seg_pool; /* free segments, a list through their first word */

static UWord *seg_get(void)
{
	UWord *s = seg_pool;
	if (!s)
		return VG_(malloc)("mpsim.seg", SEG_WORDS * sizeof(*s));
	seg_pool = (UWord *)s[0];
	return s;
}

static void seg_put(UWord *s)
{
	s[0] = (UWord)seg_pool;
	seg_pool = s;
}

struct thr {
	Bool alive;
	Bool blocked;    /* in a blocking system call (see "Threads in system calls") */
	Bool woken;      /* ... which a wake seen here ends: it holds the others back again */
	Bool sure;       /* ... and the wake covered every waiter: it surely comes back */
	Bool insys;      /* in a system call, blocking or not */
	Bool nonstop;    /* ... a futex wake, which never sleeps in the kernel */
	UInt sysno;      /* the call, and its first argument: what the kernel shows of it */
	UWord sysarg0;
	Addr futex;      /* the futex word it waits on (0: none) */
	UWord fmask;     /* ... with this bitset (FUTEX_WAIT_BITSET; else all bits) */
	ULong wseq;      /* when its wait started (the kernel wakes waiters first come first) */
	Addr ctid;       /* the word the kernel clears and wakes when it exits (join's) */
	Addr child_ctid; /* the one its clone in progress gives the new thread */
	Int core;
	ULong clock;     /* virtual time at the end of its buffer (instructions) */
	ULong ptime;     /* virtual time of its last instruction processed */
	UWord **seg;     /* its buffer: a ring of cap = nseg << SEG_BITS words in segments, */
	UInt nseg, cap;  /* the one of word counter x seg[(x >> SEG_BITS) & (nseg - 1)] */
	UInt head, n;    /* the words from head to n (counters) are not yet processed, */
	UInt lo, hi;     /* those from lo to hi have segments (lo <= head <= n <= hi) */
	UInt probe_at;   /* words waiting at which it next asks the kernel (room()) */
	struct chunkm *chm; /* [2 * cap >> CHUNK_BITS]: the set groups of the data (d) and
			     * fetch (f) lines of the records that start in each chunk of the
			     * ring's words (counter >> CHUNK_BITS); the chunk written now (wck)
			     * keeps them in wd, wf */
	UInt wck;
	ULong wd, wf;
	/* the last batch record written when it lies in one segment (rep_rec), its data
	 * lines' set groups and the counter of its repeat word (rep_y: ~0 none yet), while
	 * the buffer ends with them (rep_n == n) */
	UWord *rep_rec;
	ULong rep_d;
	UInt rep_n, rep_y;
	struct bpred *bp;
	Int lwp;         /* its kernel thread id (0: not yet seen running) */
};

#define MAX_THREADS 1024
#define MAX_AHEAD (1u << 20) /* words a thread buffers before it asks the kernel about
			      * the threads in a system call that hold it back */
#define YIELD_AHEAD (1u << 16) /* words at which it gives up its valgrind time slice
				* (looked at as a segment fills: a multiple of SEG_WORDS) */
/* Threads are records: valgrind gives a thread id of a thread that exited to the next
 * one created, and the one that exited may still have records buffered (held back by the
 * others). by_tid gives a thread id's record; nthr records are in use. */
#define MAX_RECS (2 * MAX_THREADS)
static struct thr thr[MAX_RECS];
static struct thr *by_tid[MAX_THREADS];
static Int nthr;
static Int next_core;
UWord mps_set_fold;
static ULong vnow; /* everything before this virtual time has reached the caches */
static struct thr *cur; /* the running thread (its buffer takes the events) */

/* The virtual time of the event being simulated (its thread's instruction clock), and
 * its thread. */
static ULong sim_now;
static struct thr *sim_thr;

static UInt m_tlb, m_snoop; /* what the access being simulated met */
#define MEM_SAMPLE(ii, a, w, lvl, snp, lat, lock)                                            \
	mps_mem_sample(ii, a, w, lvl, snp, lat, lock, m_tlb, sim_now, (UInt)sim_thr->lwp,     \
		       (UInt)sim_thr->core)

/* The set of page in TLB t, and in *e the entry that holds it. A TLB's entries are Shared
 * or never filled (0, below every other) and never invalidated: an entry is the page's
 * when it equals it. */
static inline UWord *tlb_set(const struct cache *t, UWord page, UWord *e)
{
	*e = page >> (t->tag_shift - t->line_bits) << 2 | ST_S;
	return t->tags + (SizeT)(page & (UWord)t->sets_min_1) * (SizeT)t->assoc;
}

/* Whether TLB t holds page, looking from entry i of its set on (those before do not hold
 * it); it becomes its set's most recently used, taking the least recently used entry's
 * place on a miss: set_ref's LRU, without states (a miss's victim is the last entry). */
static inline Bool tlb_lookup_from(struct cache *t, UWord page, Int i)
{
	UWord e, *s = tlb_set(t, page, &e);
	Int n = t->assoc;
	while (i < n && s[i] != e)
		i++;
	Bool hit = i < n;
	if (!hit)
		i = n - 1;
	for (; i > 0; i--)
		s[i] = s[i - 1];
	s[0] = e;
	return hit;
}

/* Whether TLB t holds page, as tlb_lookup_from. A DTLB of 4 ways (the default) has its own
 * code, unrolled: a random walk over more pages than it holds looks it up at nearly every
 * access. */
static inline Bool tlb_lookup(struct cache *t, UWord page)
{
	UWord e, *s = tlb_set(t, page, &e);
	if (t->assoc == 4) {
		UWord a = s[0], b = s[1], c = s[2];
		Int at = a == e ? 0 : b == e ? 1 : c == e ? 2 : 3;
		Bool hit = at < 3 || s[3] == e;
		s[3] = at == 3 ? c : s[3];
		s[2] = at >= 2 ? b : c;
		s[1] = at >= 1 ? a : b;
		s[0] = e;
		return hit;
	}
	if (s[0] == e)
		return True;
	return tlb_lookup_from(t, page, 1);
}

/* Translate a through first-level TLB t (last: the page it saw last, + 1) and, when it
 * misses there, the core's second-level TLB; counts the misses in ii (qm: the first
 * level's quantity, Q_STLBM for walks). Returns the cycles the translation cost. */
static __attribute__((noinline)) ULong tlb_walk(struct core *c, struct cache *t, UWord *last,
						  Addr a, struct ins *ii, Int qm)
{
	UWord page = a >> t->line_bits;
	*last = page + 1;
	m_tlb = 1;
	if (tlb_lookup(t, page))
		return 0;
	ii->v[qm]++;
	m_tlb = 2;
	if (tlb_lookup(&c->stlb, a >> c->stlb.line_bits))
		return (ULong)lat_stlb;
	ii->v[Q_STLBM]++;
	m_tlb = 3;
	return (ULong)(lat_stlb + lat_walk);
}

/* Where the way masks of a TLB set's first four entries come from: lane k of row r is all
 * ones when k < r. */
static const ULong tlb_lanes[5][4] __attribute__((aligned(32))) = {
	{ 0, 0, 0, 0 }, { ~0ULL, 0, 0, 0 }, { ~0ULL, ~0ULL, 0, 0 }, { ~0ULL, ~0ULL, ~0ULL, 0 },
	{ ~0ULL, ~0ULL, ~0ULL, ~0ULL }
};

/* tlb_lookup's LRU on the first four entries of set s, four at a time: where e is among
 * them (bit k of the returned mask for entry k), it moves to the front and those before
 * it move down one; where it is not, all four move down when miss4 (a first level of 4
 * ways: the last entry is the victim), else nothing moves. Nothing moves either where go
 * is 0 (go: all ones or 0 in every lane). */
static inline __attribute__((always_inline, target("avx2"))) UInt tlb_front4(UWord *s, UWord e,
									       Bool miss4,
									       __m256i go)
{
	const __m256i ve = _mm256_set1_epi64x((Long)e), v = _mm256_loadu_si256((const __m256i *)s);
	UInt h = (UInt)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, ve)));
	/* the entries that move: those up to e's, or all four on a miss */
	UInt n = h ? (UInt)__builtin_ctz(h) + 1 : miss4 ? 4 : 0;
	__m256i take = _mm256_and_si256(_mm256_load_si256((const __m256i *)tlb_lanes[n]), go);
	/* [e, s0, s1, s2] */
	__m256i down = _mm256_blend_epi32(_mm256_permute4x64_epi64(v, 0x90), ve, 0x03);
	_mm256_storeu_si256((__m256i *)s, _mm256_blendv_epi8(v, down, take));
	return h;
}

/* tlb_front4 on the second level's first eight entries (go: all ones or 0 in every lane):
 * the page's bit mask among them; where it is not among them, nothing moves. */
static inline __attribute__((always_inline, target("avx2"))) UInt tlb_front8(UWord *s, UWord e,
									       __m256i go)
{
	const __m256i ve = _mm256_set1_epi64x((Long)e);
	__m256i v0 = _mm256_loadu_si256((const __m256i *)s),
		v1 = _mm256_loadu_si256((const __m256i *)(s + 4));
	UInt h = (UInt)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v0, ve))) |
		 (UInt)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v1, ve))) << 4;
	UInt n = h ? (UInt)__builtin_ctz(h) + 1 : 0;
	__m256i take0 = _mm256_and_si256(
		_mm256_load_si256((const __m256i *)tlb_lanes[n < 4 ? n : 4]), go);
	__m256i take1 = _mm256_and_si256(
		_mm256_load_si256((const __m256i *)tlb_lanes[n > 4 ? n - 4 : 0]), go);
	/* [e, s0, s1, s2] and [s3, s4, s5, s6] */
	__m256i d0 = _mm256_blend_epi32(_mm256_permute4x64_epi64(v0, 0x90), ve, 0x03);
	__m256i d1 = _mm256_blend_epi32(_mm256_permute4x64_epi64(v1, 0x90),
					_mm256_permute4x64_epi64(v0, 0xff), 0x03);
	_mm256_storeu_si256((__m256i *)s, _mm256_blendv_epi8(v0, d0, take0));
	_mm256_storeu_si256((__m256i *)(s + 4), _mm256_blendv_epi8(v1, d1, take1));
	return h;
}

/* tlb_walk for a first-level TLB of 4 ways (vtlb): both levels looked up at once, with
 * neither's outcome a branch while the page is among the second level's eight most recent
 * entries (four where it has fewer than 8 ways). A walk over more pages than the first
 * level holds misses it at random and finds its page in the second at any of its first
 * ways: the loops of tlb_lookup end at a different way from one access to the next, a
 * mispredicted branch on the host at nearly every access (four threads walking one list
 * at random: 7.6 against 13.5 ns a translation, measured outside valgrind). Eight, not
 * four: a list of 4 MB puts eight pages in each set of the default STLB, at random places
 * among its first eight ways (4% less time). A page further down the second level's set,
 * or not in it, takes tlb_lookup's loop from there on. */
static __attribute__((noinline, target("avx2"))) ULong tlb_walk_vec(struct core *c,
								      struct cache *t, UWord *last,
								      Addr a, struct ins *ii, Int qm)
{
	UWord page = a >> t->line_bits, e, f;
	struct cache *t2 = &c->stlb;
	*last = page + 1;
	m_tlb = 1;
	UWord *s = tlb_set(t, page, &e);
	/* its set's most recent: the commonest hit, and a branch the host predicts where
	 * accesses keep to their pages (matmul's) */
	if (s[0] == e)
		return 0;
	UWord p2 = a >> t2->line_bits, *u = tlb_set(t2, p2, &f);
	UInt miss = tlb_front4(s, e, True, _mm256_set1_epi64x(-1)) == 0;
	Int front = t2->assoc >= 8 ? 8 : 4;
	UInt near = (front == 8 ? tlb_front8(u, f, _mm256_set1_epi64x(-(Long)miss))
				: tlb_front4(u, f, False, _mm256_set1_epi64x(-(Long)miss))) != 0;
	ii->v[qm] += miss;
	m_tlb = 1 + miss;
	if (!miss || near)
		return miss * (ULong)lat_stlb;
	if (tlb_lookup_from(t2, p2, front))
		return (ULong)lat_stlb;
	ii->v[Q_STLBM]++;
	m_tlb = 3;
	return (ULong)(lat_stlb + lat_walk);
}

static inline __attribute__((always_inline)) ULong tlb_ref(struct core *c, struct cache *t,
							   UWord *last, Addr a, struct ins *ii,
							   Int qm)
{
	/* the page seen last is its set's most recent: a hit with nothing to move */
	if ((a >> t->line_bits) + 1 == *last)
		return 0;
	if (t->vtlb)
		return tlb_walk_vec(c, t, last, a, ii, qm);
	return tlb_walk(c, t, last, a, ii, qm);
}

/* A load that hit line in L1d: when a prefetch is still bringing it, the load is late
 * (LOAD_HIT_PRE) and waits for the rest. Returns the cycles it waits. */
static inline ULong pf_late(struct core *c, UWord line, struct ins *ii)
{
	struct inflight *f = &c->pf[line & (N_INFLIGHT - 1)];
	if (!c->npf || f->line != line + 1)
		return 0;
	f->line = 0;
	c->npf--;
	if (f->ready <= sim_now)
		return 0;
	ii->v[Q_PFL]++;
	return f->ready - sim_now;
}

/* The core that last took a line alone (-1: none): snoops look there first. Where threads
 * take turns writing a line (a lock, a counter, false sharing), that core holds it, and
 * the snoop ends there without looking in the cores that do not (2 to 3% of falseshare
 * and of four atomic increments). The order in which a snoop looks changes no count. */
static Int snoop_first = -1;

/* A load that took its line for the store after it (read_for_own): that line + 1 (0:
 * none), which the store then finds Exclusive and takes alone. */
static UWord rfo_line;

/* Whether a write to line, which its core holds in state st, is the store a load just
 * took the line for: Exclusive, it needs no other core. */
static inline Bool rfo_store(UWord line, UWord st)
{
	return st == ST_E && rfo_line == line + 1;
}

/* How many of a core's entries e1 (L1d) and e2 (L2) of one line, either NULL, are
 * Modified: what its Modified count loses when they lose that state. */
static inline Int n_modified(const UWord *e1, const UWord *e2)
{
	return (e1 && (*e1 & 3) == ST_M) + (e2 && (*e2 & 3) == ST_M);
}

/* Coherence for core ci taking line (a data line number) to write it (inv: the storing
 * instruction): the other cores' copies are invalidated. A load whose store to the line
 * follows in the same batch (nothing of another core comes between them) takes it for
 * the store (rd: the load; read_for_own), with the read's counts and the write's at once,
 * a HITM where the line was Modified elsewhere, and gets it Exclusive for the store
 * (rfo_line). Reads alone go by mc_check. Returns the state the line gets here. */
static UWord snoop(Int ci, UWord line, struct ins *rd, struct ins *inv)
{
	Int first = snoop_first;
	/* only cores a thread ran on hold lines; the order changes nothing but the time */
	for (Int u = -1; u < n_used; u++) {
		Int k = u < 0 ? first : used_list[u];
		if (k < 0 || k == ci || (u >= 0 && k == first))
			continue;
		struct core *o = &cores[k];
		UWord *e1 = cache_find(&o->d1, line), *e2 = l2_find(&o->l2, line);
		if (!e1 && !e2)
			continue;
		/* a copy Modified here is the only one among the cores (one Exclusive may not
		 * be: reads take it so without a look, mc_check) */
		Int nm = n_modified(e1, e2);
		if (nm)
			mc_add(mc_at(o, line), -nm);
		if (rd && nm) {
			rd->v[Q_HITM]++;
			rd->v[Q_CYC] += (ULong)lat_hitm;
			m_snoop = MS_HITM;
		} else if (rd && m_snoop == MS_NONE) {
			m_snoop = MS_HIT;
		}
		inv->v[Q_INV]++;
		if (e1) {
			*e1 &= ~(UWord)3;
			o->d1.holes = True;
		}
		if (e2) {
			*e2 &= ~(UWord)3;
			o->l2.holes = True;
		}
		/* a line Modified in one core is in no other */
		if (nm)
			break;
	}
	snoop_first = ci;
	if (rd)
		rfo_line = line + 1;
	return rd ? ST_E : ST_M;
}

/* The store that follows the load being simulated in its batch, to the load's line (NULL:
 * none): the load takes the line for it (snoop()), and the store then finds it Exclusive
 * and goes on alone, with the same counts as the two one after the other. */
static struct ins *read_for_own;

/* The head (most recently used entry) of line's set in c. */
static inline UWord *set_head(struct cache *c, UWord line)
{
	return c->tags + (SizeT)(line & (UWord)c->sets_min_1) * (SizeT)c->assoc;
}

/* Exclusive, taken lazily. A read that misses its core's L1d and L2 takes the line
 * Exclusive without a look in the other cores, unless one holds it Modified (a HITM: the
 * other core keeps it Shared, and so does this one); mc_check finds that core by the
 * Modified counts. An Exclusive line is then not known to be the only copy, and a write
 * to it looks in the other cores (snoop()) as a write to a Shared one does; only a
 * Modified line is written alone. The counts are MESI's all the same: which cores hold a
 * copy does not depend on whether a copy is called Shared or Exclusive (nothing evicts by
 * state), a write invalidates every copy the look finds, and a read needs the other
 * cores only for a HITM. Where threads read data larger than their L2s, a read that
 * misses its L2 looked in every other core's L1d and L2 before (in an L2 where counts of
 * what it held let it: counts kept at every L2 miss, gone with that look; a write looks
 * in every other core's L2); now it reads one count. Memory samples still say whether
 * another core held the line (snoop HIT, level peer): a load that will be sampled
 * (mps_mem_load_next) looks, and changes nothing. Returns the state the line gets here. */
static UWord mc_check(Int ci, UWord line, struct ins *rd, ULong lat)
{
	/* up to eight cores: their counts of the slot in one read, the core's own left out
	 * (one core at most holds the line Modified, so the order they are looked in does not
	 * matter) */
	ULong nz = ~0ULL;
	if (clo_cores <= 1 << MC_GROUP_BITS) {
		const UChar *p = mc_at(&cores[ci], line) - ci;
		__builtin_memcpy(&nz, p, sizeof nz);
		nz &= mc_lanes_mask & ~(0xffULL << 8 * ci);
	}
	for (Int u = 0; nz && u < n_used; u++) {
		Int k = used_list[u];
		struct core *o = &cores[k];
		if (k == ci || !*mc_at(o, line))
			continue;
		UWord *e1 = cache_find(&o->d1, line), *e2 = l2_find(&o->l2, line);
		Int nm = n_modified(e1, e2);
		if (!nm)
			continue;
		rd->v[Q_HITM]++;
		rd->v[Q_CYC] += (ULong)lat_hitm;
		m_snoop = MS_HITM;
		mc_add(mc_at(o, line), -nm);
		if (e1)
			*e1 = (*e1 & ~(UWord)3) | ST_S;
		if (e2)
			*e2 = (*e2 & ~(UWord)3) | ST_S;
		return ST_S;
	}
	if (clo_mem_period && m_snoop == MS_NONE && mps_mem_load_next(lat, (UInt)ci))
		for (Int u = 0; u < n_used; u++) {
			Int k = used_list[u];
			struct core *o = &cores[k];
			if (k != ci && (cache_find(&o->d1, line) ||
					l2_find(&o->l2, line))) {
				m_snoop = MS_HIT;
				break;
			}
		}
	return ST_E;
}

/* A Modified line ev (an L1d entry) evicted from set of core c's L1d stays dirty in its
 * L2 (the Modified counts follow). */
static inline void dirty_to_l2(struct core *c, UWord ev, UWord set)
{
	if ((ev & 3) != ST_M)
		return;
	UWord line = entry_line(&c->d1, ev, set), *e2 = l2_find(&c->l2, line);
	/* the L2 entry takes the Modified state in the L1d entry's place: one count */
	if (e2 && (*e2 & 3) != ST_M)
		*e2 |= ST_M;
	else
		mc_add(mc_at(c, line), -1);
}

/* The state line gets in core ci for a read or write (w) that found it own (ST_I: not in
 * the core): other cores are looked in when the core cannot go on alone (a write to a
 * line not Modified here, but for the store a load took it for; a read that missed).
 * lat: the read's cycles so far (whether it will be sampled). */
static inline UWord mesi_take(Int ci, UWord line, UWord own, Bool w, struct ins *ii, ULong lat)
{
	if (w)
		return own == ST_M || rfo_store(line, own) ? ST_M : snoop(ci, line, NULL, ii);
	if (own != ST_I)
		return own;
	return read_for_own ? snoop(ci, line, ii, read_for_own) : mc_check(ci, line, ii, lat);
}

/* Whether a write to line l1, in state hs in core c's L1d, goes on alone (with more than one
 * core busy): the line is Modified, or Exclusive for the store a load just took it for
 * (read_for_own), which makes it Modified here (the count follows). */
static inline Bool write_alone(struct core *c, UWord l1, UWord hs)
{
	if (hs == ST_M)
		return True;
	if (!rfo_store(l1, hs))
		return False;
	mc_add(mc_at(c, l1), 1);
	return True;
}

/* The memory sample of a coherent access (lvl, lat: where it found the line and what it
 * waited): a load served by another core's copy; a HITM waited for its write-back too. */
static inline void coherent_sample(struct ins *ii, Addr a, Bool w, UInt lvl, ULong lat,
				   Bool lock)
{
	if (!clo_mem_period)
		return;
	if (!w && m_snoop != MS_NONE)
		lvl = ML_PEER;
	if (!w && m_snoop == MS_HITM)
		lat += (ULong)lat_hitm;
	MEM_SAMPLE(ii, a, w, lvl, w ? MS_NONE : m_snoop, lat, lock);
}

/* d_ref's MESI path for an access that lies in one line of L1d and of L2 (most do): the
 * general path's lookup for one line, without its arrays. lat: the translation's cycles. */
static __attribute__((noinline)) void d_ref_line(Int ci, struct core *c, struct ins *ii, Addr a,
						  UWord size, Bool w, Bool lock, ULong lat)
{
	UWord fill = w ? ST_M : ST_E, ev = 0, own, s2 = ST_I, now;
	UInt lvl = ML_L1;
	struct cache *d1 = &c->d1, *l2 = &c->l2;
	UWord l1 = a >> d1->line_bits;
	UInt set1 = (UInt)(l1 & (UWord)d1->sets_min_1);
	UWord *h1 = d1->tags + (SizeT)set1 * (SizeT)d1->assoc;
	UWord st1 = own = set_ref(d1, set1, a >> d1->tag_shift, fill, &ev);
	Bool m1 = own == ST_I;
	UWord *h2 = NULL;
	if (m1) {
		ii->v[w ? Q_D1MW : Q_D1MR]++;
		lat += lat_l2;
		lvl = ML_L2;
		dirty_to_l2(c, ev, set1);
		UWord ev2 = 0;
		UInt set2 = (UInt)((a >> l2->line_bits) & (UWord)l2->sets_min_1);
		h2 = l2->tags + (SizeT)set2 * (SizeT)l2->assoc;
		own = s2 = set_ref(l2, set2, a >> l2->tag_shift, fill, &ev2);
		if (s2 == ST_I) {
			ii->v[w ? Q_DLMW : Q_DLMR]++;
			lat += l3_ref(ii, a, size, &lvl);
			if ((ev2 & 3) == ST_M)
				mc_add(mc_at(c, entry_line(l2, ev2, set2)), -1);
		}
	} else if (!w) {
		ULong late = pf_late(c, l1, ii);
		if (late)
			lat += late, lvl = ML_LFB;
	}
	if (!w)
		ii->v[Q_CYC] += lat;
	now = mesi_take(ci, l1, own, w, ii, lat);
	*h1 = (*h1 & ~(UWord)3) | now;
	/* a line L2 just took gets the same state */
	if (m1 && s2 == ST_I && now != fill)
		*h2 = (*h2 & ~(UWord)3) | now;
	if (now == ST_M)
		mc_add(mc_at(c, l1), (st1 != ST_M) + (m1 && s2 == ST_I));
	coherent_sample(ii, a, w, lvl, lat, lock);
}

/* d_ref's MESI path for an access that straddles two lines. lat: the translation's
 * cycles. */
static __attribute__((noinline)) void d_ref_two(Int ci, struct core *c, struct ins *ii, Addr a,
						 UWord size, Bool w, Bool lock, ULong lat)
{
	UWord st1[2], st2[2] = { ST_I, ST_I }, ev1[2], ev2[2], line[2], line2[2];
	UWord fill = w ? ST_M : ST_E;
	UInt lvl = ML_L1;
	Int n = cache_ref(&c->d1, a, size, fill, st1, ev1, line);
	Bool m1 = any_miss(st1, n);
	if (m1) {
		ii->v[w ? Q_D1MW : Q_D1MR]++;
		lat += lat_l2;
		lvl = ML_L2;
		cache_ref(&c->l2, a, size, fill, st2, ev2, line2);
		if (any_miss(st2, n)) {
			ii->v[w ? Q_DLMW : Q_DLMR]++;
			lat += l3_ref(ii, a, size, &lvl);
		}
	} else if (!w) {
		ULong late = pf_late(c, line[0], ii);
		if (late)
			lat += late, lvl = ML_LFB;
	}
	if (!w)
		ii->v[Q_CYC] += lat;
	for (Int k = 0; k < n; k++) {
		dirty_to_l2(c, ev1[k], line[k] & (UWord)c->d1.sets_min_1);
		if (m1 && st2[k] == ST_I && (ev2[k] & 3) == ST_M)
			mc_add(mc_at(c, entry_line(&c->l2, ev2[k],
						    line2[k] & (UWord)c->l2.sets_min_1)), -1);
		UWord own = st1[k] != ST_I ? st1[k] : m1 ? st2[k] : ST_I;
		UWord now = mesi_take(ci, line[k], own, w, ii, lat);
		UWord *e1 = set_head(&c->d1, line[k]);
		*e1 = (*e1 & ~(UWord)3) | now;
		/* a line L2 just took gets the same state */
		if (m1 && st2[k] == ST_I && now != fill) {
			UWord *e2 = set_head(&c->l2, line[k]);
			*e2 = (*e2 & ~(UWord)3) | now;
		}
		if (now == ST_M)
			mc_add(mc_at(c, line[k]), (st1[k] != ST_M) + (m1 && st2[k] == ST_I));
	}
	coherent_sample(ii, a, w, lvl, lat, lock);
}

/* A data reference by core ci: callgrind's two-level lookup, then (with more than one
 * core) MESI on each line touched. */
static __attribute__((noinline)) void d_ref(Int ci, struct ins *ii, Addr a, UWord size, Bool w,
					    Bool lock)
{
	struct core *c = &cores[ci];
	UWord fill = w ? ST_M : ST_E;
	/* the line's L2 set (two lines of the host's at 16 ways), on its way into the host's
	 * caches while the TLBs and L1d are looked in: an access that reaches d_ref left the
	 * page or set it touched last and so may well miss L1d, and the L2s of four cores
	 * (512 KB of tags at 1 MB each) no longer fit beside the rest */
	if (multi) {
		const UWord *p2 = set_head(&c->l2, a >> c->l2.line_bits);
		__builtin_prefetch(p2);
		__builtin_prefetch(p2 + 8);
	}
	/* loads wait for their data; stores go through the store buffer */
	UInt lvl = ML_L1;
	m_tlb = 1;
	ULong lat = tlb_ref(c, &c->dtlb, &c->dpage, a, ii, Q_DTLBM);
	if (!multi) {
		/* one core busy: nobody to snoop (callgrind's path) */
		if (cache_ref1(&c->d1, a, size, fill)) {
			ii->v[w ? Q_D1MW : Q_D1MR]++;
			lat += lat_l2;
			lvl = ML_L2;
			if (cache_ref1(&c->l2, a, size, fill)) {
				ii->v[w ? Q_DLMW : Q_DLMR]++;
				lat += l3_ref(ii, a, size, &lvl);
			}
		} else if (!w) {
			ULong late = pf_late(c, a >> c->d1.line_bits, ii);
			if (late)
				lat += late, lvl = ML_LFB;
		}
		if (!w && lat)
			ii->v[Q_CYC] += lat;
		if (clo_mem_period)
			MEM_SAMPLE(ii, a, w, lvl, MS_NONE, lat, lock);
		return;
	}
	/* a hit on the most recent line of its set, in a state that needs no other core (any
	 * for a read, Modified for a write: mc_check): what the lookup below does then,
	 * without its bookkeeping */
	UWord l1 = a >> c->d1.line_bits, *h = set_head(&c->d1, l1);
	UWord hs = *h ^ (a >> c->d1.tag_shift << 2);
	if (hs - 1 < 3 && (a + size - 1) >> c->d1.line_bits == l1 && (!w || write_alone(c, l1, hs))) {
		if (w) {
			*h |= ST_M;
		} else {
			ULong late = pf_late(c, l1, ii);
			if (late)
				lat += late, lvl = ML_LFB;
			ii->v[Q_CYC] += lat;
		}
		if (clo_mem_period)
			MEM_SAMPLE(ii, a, w, lvl, MS_NONE, lat, lock);
		return;
	}
	m_snoop = MS_NONE;
	if ((a + size - 1) >> c->d1.line_bits == l1 &&
	    (a + size - 1) >> c->l2.line_bits == a >> c->l2.line_bits) {
		d_ref_line(ci, c, ii, a, size, w, lock, lat);
		return;
	}
	d_ref_two(ci, c, ii, a, size, w, lock, lat);
}

/* A software prefetch (any hint) of the line at a by core ci: useful when L1d did not hold
 * the line (it is brought in, from L2 or memory, and arrives after that latency), else
 * nothing. The prefetch translates its address like a load. */
static void prefetch(Int ci, struct ins *ii, Addr a)
{
	struct core *c = &cores[ci];
	ii->v[Q_PFX]++;
	if (!clo_swpf)
		return;
	tlb_ref(c, &c->dtlb, &c->dpage, a, ii, Q_DTLBM);
	if (!cache_ref1(&c->d1, a, 1, ST_E))
		return;
	ii->v[Q_PFM]++;
	UInt lvl;
	ULong lat = (ULong)lat_l2 + (cache_ref1(&c->l2, a, 1, ST_E) ? l3_ref(ii, a, 1, &lvl) : 0);
	UWord line = a >> c->d1.line_bits;
	if (multi) {
		UWord st = mc_check(ci, line, ii, 0);
		*set_head(&c->d1, line) = (*set_head(&c->d1, line) & ~(UWord)3) | st;
		m_snoop = MS_NONE;
	}
	struct inflight *f = &c->pf[line & (N_INFLIGHT - 1)];
	if (!f->line)
		c->npf++;
	f->line = line + 1;
	f->ready = sim_now + lat;
}

/* An instruction's fetch by core ci. */
static inline __attribute__((always_inline)) void sim_ir(Int ci, struct ins *ii)
{
	struct core *c = &cores[ci];
	/* in the line the core fetched last, and so its page: the most recent entry of its
	 * I1 set and of its ITLB set, a hit that changes nothing (a loop's first fetch at each
	 * turn) */
	UWord il = ii->addr >> c->i1.line_bits;
	if (il + 1 == c->iline && (ii->addr + ii->size - 1) >> c->i1.line_bits == il)
		return;
	ULong lat = tlb_ref(c, &c->itlb, &c->ipage, ii->addr, ii, Q_ITLBM);
	c->iline = (ii->addr + ii->size - 1) >> c->i1.line_bits == il ? il + 1 : 0;
	/* its Ir is its batch's runs (mps_batch_fold) */
	if (cache_ref1(&c->i1, ii->addr, ii->size, ST_S)) {
		ii->v[Q_I1MR]++;
		lat += (ULong)lat_l2;
		if (cache_ref1(&c->l2, ii->addr, ii->size, ST_S)) {
			UInt lvl;
			ii->v[Q_ILMR]++;
			lat += l3_ref(ii, ii->addr, ii->size, &lvl);
		}
	}
	/* Cyc's one cycle per instruction is added when the counts are written */
	if (lat) {
		ii->v[Q_CYC] += lat;
		ii->v[Q_IFST] += lat;
	}
}

/* What d_ref does for the commonest access, in line: one that lies in the most recent
 * line of its L1d set and in the page the DTLB saw last, in a state that needs no other
 * core (with one core busy, any; else Modified for a write), when no prefetch is in flight
 * on the core; with more than one core busy, any other access to one line in that page
 * goes to d_ref_line at once. False: d_ref must look. */
static inline __attribute__((always_inline)) Bool d_hit(Int ci, struct ins *ii, Addr a,
							UWord size, Bool w, Bool lock)
{
	struct core *c = &cores[ci];
	UWord l1 = a >> c->d1.line_bits;
	if ((a >> c->dtlb.line_bits) + 1 != c->dpage || (a + size - 1) >> c->d1.line_bits != l1)
		return False;
	UWord *h = set_head(&c->d1, l1);
	UWord hs = *h ^ (a >> c->d1.tag_shift << 2);
	if (hs - 1 >= 3 || (w ? multi && !write_alone(c, l1, hs) : c->npf != 0)) {
		/* with more than one core busy, the coherent lookup of one line (the translation
		 * hit: no cycles, level 1) */
		if (!multi || (a + size - 1) >> c->l2.line_bits != a >> c->l2.line_bits)
			return False;
		m_tlb = 1;
		m_snoop = MS_NONE;
		d_ref_line(ci, c, ii, a, size, w, lock, 0);
		return True;
	}
	if (w)
		*h |= ST_M;
	if (clo_mem_period) {
		m_tlb = 1;
		MEM_SAMPLE(ii, a, w, ML_L1, MS_NONE, 0, lock);
	}
	return True;
}

/* A data access or prefetch (kind EV_DR, EV_DW, EV_PF) by core ci; size has the LOCKED
 * bit (SZ_LOCKED of the instrumentation) for atomics, a prefetch's is its hint. */
static inline __attribute__((always_inline)) void sim_d(Int ci, struct ins *ii, Addr a,
							UWord size, UWord kind)
{
	if (kind == EV_PF) {
		prefetch(ci, ii, a);
	} else if (kind == EV_DR) {
		ii->v[Q_DR]++;
		if (!d_hit(ci, ii, a, size & 0xff, False, (size >> 8) & 1))
			d_ref(ci, ii, a, size & 0xff, False, (size >> 8) & 1);
	} else {
		ii->v[Q_DW]++;
		if (!d_hit(ci, ii, a, size & 0xff, True, (size >> 8) & 1))
			d_ref(ci, ii, a, size & 0xff, True, (size >> 8) & 1);
	}
}

/* The word of t's buffer at counter x. */
static inline UWord *thr_word(const struct thr *t, UInt x)
{
	return &t->seg[(x >> SEG_BITS) & (t->nseg - 1)][x & (SEG_WORDS - 1)];
}

/* Whether t has records not yet processed. */
static inline Bool pending(const struct thr *t)
{
	return t->head != t->n;
}

/* The set groups of the lines an access of size bytes at a touches. */
static inline ULong line_bits(Addr a, UWord size)
{
	UWord lb = (UWord)cores[0].d1.line_bits;
	return mps_set_bit(a >> lb) | mps_set_bit((a + (size ? size : 1) - 1) >> lb);
}

/* Whether thread t's fetch of ii would miss its core's I1 and L2 (and so reach the L3 the
 * cores share, where another thread's fetches meet it): a look that changes nothing. */
static Bool fetch_reaches_l3(const struct thr *t, const struct ins *ii)
{
	struct core *c = &cores[t->core];
	UWord lb = (UWord)c->i1.line_bits;
	for (UWord l = ii->addr >> lb; l <= (ii->addr + ii->size - 1) >> lb; l++)
		if (!cache_find(&c->i1, l) && !cache_find(&c->l2, l))
			return True;
	return False;
}

/* Whether batch b of thread t (its record's first word w) may meet another thread's
 * accesses in a cache set: its fetch lines' groups among od (the others' data), its data
 * lines' among oa (the others' data and fetches; compared folded, so a few that do not
 * meet are taken as meeting: the thread then waits, which changes nothing the caches
 * see), its fetches among of (the others' fetches, in an L3 the cores share) when one of
 * them would reach the L3. */
static inline Bool batch_meets(const struct thr *t, const struct batch *b, UWord w, ULong od,
			       ULong oa, ULong of)
{
	if (b->fm & od)
		return True;
	if (b->fm & of)
		for (UInt j = 0; j < b->n; j++)
			if (b->e[j].kind == EV_IR && (line_bits(b->e[j].ii->addr, b->e[j].ii->size) & of) &&
			    fetch_reaches_l3(t, b->e[j].ii))
				return True;
	/* its data lines' groups, folded, came with its record (w): none among the others'
	 * folded, none among theirs; a fold that meets is taken as meeting (the thread then
	 * waits for the others' time, the order the caches would see anyway) */
	return (rec_fold(oa) & w >> REC_FOLD_SHIFT) != 0;
}

/* Whether accesses of sa bytes at a and sb bytes at b lie in one L1d line (and so one
 * L2 line: L2's lines are no smaller). */
static inline Bool same_line(Addr a, UWord sa, Addr b, UWord sb)
{
	UWord lb = (UWord)cores[0].d1.line_bits;
	return (a >> lb) == ((a + sa - 1) >> lb) && (a >> lb) == (b >> lb) &&
	       (b >> lb) == ((b + sb - 1) >> lb);
}

/* Batch b's events that the caches see, on core ci from virtual time t0 (its data
 * addresses at x): its run. */
static inline __attribute__((always_inline)) void batch_sim(Int ci, const struct batch *b, ULong t0,
							    const UWord *x)
{
	for (const struct bev *e = b->e + b->n, *end = e + b->nop; e < end; e++) {
		sim_now = t0 + e->dt;
		if (e->kind == EV_IR) {
			sim_ir(ci, e->ii);
		} else if (multi && e->kind == EV_DR && e + 1 < end && e[1].kind == EV_DW &&
			   same_line(x[0], e->size & 0xff, x[1], e[1].size & 0xff)) {
			/* a load, then a store to its line: a read for ownership */
			read_for_own = e[1].ii;
			sim_d(ci, e->ii, *x++, e->size, e->kind);
			read_for_own = NULL;
			e++;
			sim_now = t0 + e->dt;
			sim_d(ci, e->ii, *x++, e->size, e->kind);
			rfo_line = 0;
		} else {
			sim_d(ci, e->ii, *x++, e->size, e->kind);
		}
	}
	((struct batch *)b)->execs++;
}

/* The segments of t wholly processed go back to the pool, but for the REC_MAX words
 * before the head: a pending repeat's batch record. */
static inline void thr_release(struct thr *t)
{
	while (t->head - t->lo >= SEG_WORDS + REC_MAX) {
		seg_put(t->seg[(t->lo >> SEG_BITS) & (t->nseg - 1)]);
		t->lo += SEG_WORDS;
	}
}

/* Batch b's run from t's record whose addresses start at word counter *x, on core ci at
 * virtual time *now; both move past it. */
static inline __attribute__((always_inline)) void batch_rec(const struct thr *t, Int ci,
							    const struct batch *b, UInt *x,
							    ULong *now)
{
	const UWord *p = thr_word(t, *x);
	UWord cut[REC_MAX];
	if ((*x & (SEG_WORDS - 1)) + b->nd > SEG_WORDS) {
		/* its addresses run over the end of a segment */
		for (UInt k = 0; k < b->nd; k++)
			cut[k] = *thr_word(t, *x + k);
		p = cut;
	}
	batch_sim(ci, b, *now, p);
	*x += b->nd;
	*now += b->nir;
}

/* The lone access of record w (ins * | REC_ONE) and k (put_d's word: kind, size, address)
 * through the caches of core ci. */
static inline __attribute__((always_inline)) void one_sim(Int ci, UWord w, UWord k)
{
	sim_d(ci, (struct ins *)(w & ~(UWord)7), k >> 11, (k >> 2) & 0x1ff, k & 3);
}

/* Run thread t's buffered records up to virtual time limit, a batch at a time (a batch
 * that starts before the limit runs whole: threads interleave by blocks), past time end
 * only the batches that meet no other thread's accesses in a cache set (batch_meets(): od,
 * oa, of; with end = limit: all). A batch's events reach the caches together, so only
 * those the caches see are run (struct batch's ops): a fetch in the I1 line and page of
 * the fetch just before it is a hit that changes nothing. */
static void thr_run_until(struct thr *t, ULong end, ULong limit, ULong od, ULong oa, ULong of)
{
	UInt x = t->head, n = t->n;
	Int ci = t->core;
	ULong now = t->ptime;
	sim_thr = t;
	while (x != n) {
		UWord w = *thr_word(t, x);
		if ((w & 7) == REC_ONE) {
			UWord k = *thr_word(t, x + 1);
			sim_now = now;
			one_sim(ci, w, k);
			x += 2;
			continue;
		}
		if ((w & 7) == REC_JUMP) {
			if (now < w >> 3)
				now = w >> 3;
			x++;
			continue;
		}
		if ((w & 7) == REC_REPEAT) {
			const UWord *r = thr_word(t, x - ((w >> 3) & 31));
			const struct batch *b = (const struct batch *)(*r & REC_PTR_MASK);
			UWord c = w >> REP_SHIFT;
			for (; c; c--) {
				if (now >= end && (now >= limit || batch_meets(t, b, *r, od, oa, of)))
					break;
				batch_sim(ci, b, now, r + 1);
				now += b->nir;
			}
			if (c) {
				*thr_word(t, x) = c << REP_SHIFT | (w & ((1u << REP_SHIFT) - 1));
				break;
			}
			x++;
			continue;
		}
		const struct batch *b = (const struct batch *)(w & REC_PTR_MASK);
		if (now >= end && (now >= limit || batch_meets(t, b, w, od, oa, of)))
			break;
		x++;
		batch_rec(t, ci, b, &x, &now);
	}
	t->head = x;
	t->ptime = now;
	thr_release(t);
}

/* Whether thread record i at time ti comes before record j at tj: the order of time, the
 * lower record first at equal times. */
static inline Bool before(ULong ti, Int i, ULong tj, Int j)
{
	return ti < tj || (ti == tj && i < j);
}

/* Rounds: the threads of a merge that run one loop each, every turn finding the same data
 * (each at a repeat word: a counter, a lock word), take turns in a fixed order for as long
 * as all repeat. When their batches have one length N and their times lie within N of
 * each other, the order of time is the round of the threads sorted by time (then record):
 * the first runs a batch, its next comes after the last's, and so on. Run so, the batches
 * need neither a look for the next thread nor a look at whom they meet. The threads
 * act[0..na) with records pending are taken (at most MAX_ROUND); False when they are
 * not all so (nothing run). */
#define MAX_ROUND 16
static Bool rounds(const Int *act, Int na, ULong limit)
{
	struct turn {
		struct thr *t;
		const UWord *r;
		const struct batch *b;
		UWord c;
		ULong now;
		Int ci;
	} v[MAX_ROUND];
	Int m = 0;
	UInt nir = 0;
	for (Int k = 0; k < na; k++) {
		struct thr *t = &thr[act[k]];
		if (!pending(t))
			continue;
		if (m == MAX_ROUND)
			return False;
		UWord w = *thr_word(t, t->head);
		if ((w & 7) != REC_REPEAT)
			return False;
		const UWord *r = thr_word(t, t->head - ((w >> 3) & 31));
		const struct batch *b = (const struct batch *)(*r & REC_PTR_MASK);
		if (m == 0)
			nir = b->nir;
		else if (b->nir != nir)
			return False;
		/* sorted by time, then record (act has equal times so) */
		Int i = m++;
		for (; i > 0 && v[i - 1].now > t->ptime; i--)
			v[i] = v[i - 1];
		v[i] = (struct turn){ t, r, b, w >> REP_SHIFT, t->ptime, t->core };
	}
	/* the first's next batch comes after the last's */
	if (m < 2 || nir == 0 ||
	    !before(v[m - 1].now, (Int)(v[m - 1].t - thr), v[0].now + nir, (Int)(v[0].t - thr)))
		return False;
	Bool go = True;
	while (go)
		for (Int i = 0; i < m; i++) {
			struct turn *u = &v[i];
			if (!u->c || u->now >= limit) {
				go = False;
				break;
			}
			sim_thr = u->t;
			batch_sim(u->ci, u->b, u->now, u->r + 1);
			u->now += nir;
			u->c--;
		}
	for (Int i = 0; i < m; i++) {
		struct thr *t = v[i].t;
		t->ptime = v[i].now;
		UWord *w = thr_word(t, t->head);
		if (v[i].c) {
			*w = v[i].c << REP_SHIFT | (*w & ((1u << REP_SHIFT) - 1));
		} else {
			t->head++;
			thr_release(t);
		}
	}
	return True;
}

/* Thread t's next record, a batch run (or one run of a repeat), then the lone accesses and
 * clock jumps that follow it (thr_run_until takes those at once too). */
/* Words of a thread's buffer that thr_step asks the host to fetch ahead: the buffers were
 * written a valgrind time slice ago (YIELD_AHEAD words each), and where threads take turns
 * batch by batch their reads make streams the host's own prefetch does not keep up with
 * (four threads walking one list at random: 3% less time). */
#define STEP_AHEAD 64
static inline void thr_tail(struct thr *t);
static inline void thr_step(struct thr *t)
{
	Int ci = t->core;
	UInt x = t->head;
	ULong now = t->ptime;
	sim_thr = t;
	__builtin_prefetch(thr_word(t, x + STEP_AHEAD));
	UWord w = *thr_word(t, x);
	if ((w & 7) == REC_REPEAT) {
		const UWord *r = thr_word(t, x - ((w >> 3) & 31));
		const struct batch *b = (const struct batch *)(*r & REC_PTR_MASK);
		batch_sim(ci, b, now, r + 1);
		now += b->nir;
		if (w >> REP_SHIFT > 1)
			*thr_word(t, x) = w - ((UWord)1 << REP_SHIFT);
		else
			x++;
	} else if ((w & 7) == REC_BATCH) {
		x++;
		batch_rec(t, ci, (const struct batch *)(w & REC_PTR_MASK), &x, &now);
	}
	t->head = x;
	t->ptime = now;
	thr_tail(t);
}

/* The lone accesses and clock jumps at t's head (those that follow a batch run). */
static inline void thr_tail(struct thr *t)
{
	Int ci = t->core;
	UInt x = t->head, n = t->n;
	ULong now = t->ptime;
	sim_thr = t;
	while (x != n) {
		UWord w = *thr_word(t, x);
		if ((w & 7) == REC_ONE) {
			UWord k = *thr_word(t, x + 1);
			sim_now = now;
			one_sim(ci, w, k);
			x += 2;
		} else if ((w & 7) == REC_JUMP) {
			if (now < w >> 3)
				now = w >> 3;
			x++;
		} else {
			break;
		}
	}
	t->head = x;
	t->ptime = now;
}

/* turns()'s place of thread t: the word at its head (*p, *x), the words from there to the
 * end of its segment or of its records (*left), its time (*now). */
static inline void turn_load(const UWord **p, UInt *x, UInt *left, ULong *now,
			     const struct thr *t)
{
	UInt seg = SEG_WORDS - (t->head & (SEG_WORDS - 1)), n = t->n - t->head;
	*x = t->head;
	*p = thr_word(t, t->head);
	*left = seg < n ? seg : n;
	*now = t->ptime;
}

/* turns()'s place in each thread's buffer as a pointer (the tool runs one thread at a
 * time: off valgrind's small stack). */
static struct turn_at {
	struct thr *t;
	const UWord *p; /* word x */
	UInt x, left;   /* left: words from x to the end of its segment or buffer */
	ULong now;
	Int ci, rec;    /* rec: its record (thr[rec]), what breaks a tie in time */
} turn_v[MAX_RECS];

/* One turn of u (a batch record at its place, at time u->now): a turn whose batch record
 * lies in the segment and buffer with the record after it, and is not followed by a lone
 * access or a clock jump (thr_step's part), runs from the pointer; any other as thr_step.
 * False when the thread has nothing more to run (its buffer is empty). */
static inline __attribute__((always_inline)) Bool turn_one(struct turn_at *u,
							    const struct batch *b)
{
	ULong at = u->now;
	UInt len = 1 + b->nd;
	struct thr *t = u->t;
	if (len < u->left) {
		__builtin_prefetch(u->p + STEP_AHEAD);
		sim_thr = t;
		batch_sim(u->ci, b, at, u->p + 1);
		u->p += len;
		u->x += len;
		u->left -= len;
		u->now = at += b->nir;
		/* the lone accesses that follow it (guarded loads and stores, prefetches) */
		while ((*u->p & 7) == REC_ONE && u->left >= 2) {
			UWord k = u->p[1];
			sim_now = at;
			one_sim(u->ci, *u->p, k);
			u->p += 2;
			u->x += 2;
			if ((u->left -= 2) == 0)
				break;
		}
		if (u->left && ((*u->p & 7) == REC_BATCH || (*u->p & 7) == REC_REPEAT))
			return True;
		/* a jump, or the end of the segment */
		t->head = u->x;
		t->ptime = at;
		thr_tail(t);
	} else {
		t->head = u->x;
		t->ptime = at;
		thr_step(t);
	}
	turn_load(&u->p, &u->x, &u->left, &u->now, t);
	return pending(t);
}

/* Turns: the threads ord[0..m) (sorted by time, then record; the first's before limit),
 * each at a batch record, run batch by batch in lockstep's order, the one earliest in time
 * (then record) first, for as long as each next record is a batch; each turn as thr_step,
 * so that lone accesses after a batch come with it. False when they are not so (nothing
 * run).
 * - Batches of one length N, with times such that the first's next batch comes after the
 *   last's: the threads take turns in that order (see rounds()), for as long as nothing
 *   moves a clock otherwise (a jump).
 * - Otherwise (batches of different lengths: VEX cuts a loop into blocks of unequal
 *   lengths, and a call within it makes more; or threads out of that phase): the next is
 *   the earliest at each turn, among eight threads at most (four threads reading 4 MB at
 *   random, each adding to its word of one line, in batches of 1 and 13 instructions:
 *   0.85 s against 0.88 s by lockstep's own steps, which looked for the next thread in a
 *   sorted list and ran it through thr_step).
 * Lone accesses after a batch (guarded loads and stores, prefetches) run from the pointer
 * too.
 * The turns are lockstep's; where threads take one at every batch, what they cost is
 * mostly this (four threads walking one list at random: 5% less time). */
#define MAX_MIXED 8
static Bool turns(const Int *ord, Int m, ULong limit)
{
	UInt nir = 0;
	Bool mixed = False;
	for (Int i = 0; i < m; i++) {
		const struct thr *t = &thr[ord[i]];
		UWord w = *thr_word(t, t->head);
		if ((w & 7) != REC_BATCH)
			return False;
		UInt n = ((const struct batch *)(w & REC_PTR_MASK))->nir;
		if (i == 0)
			nir = n;
		else if (n != nir)
			mixed = True;
	}
	if (nir == 0 || !before(thr[ord[m - 1]].ptime, ord[m - 1], thr[ord[0]].ptime + nir, ord[0]))
		mixed = True;
	if (mixed && m > MAX_MIXED)
		return False;
	struct turn_at *v = turn_v;
	for (Int i = 0; i < m; i++) {
		struct thr *t = &thr[ord[i]];
		v[i].t = t;
		v[i].ci = t->core;
		v[i].rec = ord[i];
		turn_load(&v[i].p, &v[i].x, &v[i].left, &v[i].now, t);
	}
	if (mixed)
		for (;;) {
			Int i = 0;
			for (Int k = 1; k < m; k++)
				i = before(v[k].now, v[k].rec, v[i].now, v[i].rec) ? k : i;
			struct turn_at *u = &v[i];
			UWord w = *u->p;
			if (u->now >= limit || (w & 7) != REC_BATCH ||
			    !turn_one(u, (const struct batch *)(w & REC_PTR_MASK)))
				goto out;
		}
	for (;;)
		for (Int i = 0; i < m; i++) {
			struct turn_at *u = &v[i];
			ULong at = u->now;
			if (at >= limit)
				goto out;
			UWord w = *u->p;
			const struct batch *b = (const struct batch *)(w & REC_PTR_MASK);
			if ((w & 7) != REC_BATCH || b->nir != nir || !turn_one(u, b) ||
			    u->now != at + nir)
				goto out;
		}
out:
	for (Int i = 0; i < m; i++) {
		v[i].t->head = v[i].x;
		v[i].t->ptime = v[i].now;
	}
	return True;
}

/* The records of from[0..n) with records pending, into ord sorted by time, then record;
 * returns how many (ord may be from). */
static Int by_time(Int *ord, const Int *from, Int n)
{
	Int m = 0;
	for (Int k = 0; k < n; k++) {
		Int v = from[k], i = m;
		if (!pending(&thr[v]))
			continue;
		for (m++; i > 0 && before(thr[v].ptime, v, thr[ord[i - 1]].ptime, ord[i - 1]); i--)
			ord[i] = ord[i - 1];
		ord[i] = v;
	}
	return m;
}

static ULong mod[MAX_RECS], moa[MAX_RECS], mof[MAX_RECS]; /* by record: merge()'s od, oa, of */

/* Whether thread t's next record (a batch run or a repeat's) may meet the others' accesses
 * (batch_meets()). */
static inline Bool next_meets(const struct thr *t, ULong od, ULong oa, ULong of)
{
	UWord w = *thr_word(t, t->head);
	if ((w & 7) == REC_REPEAT)
		w = *thr_word(t, t->head - ((w >> 3) & 31));
	else if ((w & 7) != REC_BATCH)
		return True;
	return batch_meets(t, (const struct batch *)(w & REC_PTR_MASK), w, od, oa, of);
}

/* Run the threads act[0..na) (ascending records, each meeting another's accesses in some
 * cache set) up to virtual time limit in the order of that time, batch by batch: the
 * first of them by time (then record) runs its next batch and takes its place again
 * among the others, in a list kept sorted (the reference order of merge(), without its
 * look for the next thread at each step). Threads that all repeat one batch go by rounds
 * (rounds()), threads at batches of one length by turns (turns()). */
static void lockstep(const Int *act, Int na, ULong limit)
{
	static Int ord[MAX_RECS];
	Int m = by_time(ord, act, na), backoff = 0;
	while (m > 0) {
		struct thr *t = &thr[ord[0]];
		if (t->ptime >= limit)
			break;
		UWord k0 = *thr_word(t, t->head) & 7;
		if (clo_turns && m > 1 && backoff == 0 && (k0 == REC_REPEAT || k0 == REC_BATCH) &&
		    (*thr_word(&thr[ord[1]], thr[ord[1]].head) & 7) == k0) {
			if (k0 == REC_REPEAT ? rounds(ord, m, limit) : turns(ord, m, limit)) {
				/* they ran apart: sort again, and drop those done */
				m = by_time(ord, ord, m);
				continue;
			}
			backoff = 64;
		}
		if (backoff)
			backoff--;
		Int me = ord[0];
		/* then on while it is still first, or its next batch meets nobody's */
		const struct thr *nx = m > 1 ? &thr[ord[1]] : NULL;
		ULong d = mod[me], a = moa[me], f = mof[me];
		do
			thr_step(t);
		while (pending(t) && t->ptime < limit &&
		       (!nx || before(t->ptime, me, nx->ptime, ord[1]) || !next_meets(t, d, a, f)));
		if (!pending(t)) {
			for (Int i = 1; i < m; i++)
				ord[i - 1] = ord[i];
			m--;
			continue;
		}
		Int i = 0;
		for (; i + 1 < m && before(thr[ord[i + 1]].ptime, ord[i + 1], t->ptime, me); i++)
			ord[i] = ord[i + 1];
		ord[i] = me;
	}
	for (Int k = 0; k < na; k++)
		thr_release(&thr[act[k]]);
}

/* Run the threads act[0..na) (ascending records, each with events) up to virtual time
 * limit in the order of that time, a batch (a block's run of events, one helper call) at a
 * time: the thread furthest behind runs until its next batch starts past the next one's
 * time (by clo_quantum - 1 instructions more; at equal times the lower record goes first).
 * With the default quantum of 1 the caches see the batches of all threads in one order
 * that depends only on their clocks, not on when valgrind ran them: two threads writing
 * one line in a loop alternate iteration by iteration, as on two cores.
 *
 * Only the order of accesses that may meet in a cache set matters: an access by one core
 * changes that core's caches and, through the snoop, other cores' copies of its line,
 * nothing else. So a thread runs on past the next one through batches whose lines' set
 * groups no other thread's buffered records touch (data against data and fetches; a fetch
 * changes nothing another core reads but its own L2, so fetch against fetch never meets
 * unless an L3 is shared); the caches end the same, access for access, as in the order of
 * time. Threads that share a core meet everywhere. */
/* The set groups of t's pending records' data lines (*dm) and fetch lines (*fm). */
static void thr_footprint(const struct thr *t, ULong *dm, ULong *fm)
{
	ULong d = 0, f = 0;
	if (t->head != t->n) {
		UInt cm = (2 * t->cap >> CHUNK_BITS) - 1;
		for (UInt ck = t->head >> CHUNK_BITS; ck != t->wck; ck++) {
			d |= t->chm[ck & cm].d;
			f |= t->chm[ck & cm].f;
		}
		d |= t->wd;
		f |= t->wf;
	}
	*dm = d;
	*fm = f;
}

static void merge(const Int *act, Int na, ULong limit)
{
	/* the tool runs one thread at a time: scratch off valgrind's small stack */
	static ULong od[MAX_RECS], oa[MAX_RECS], of[MAX_RECS], dm[MAX_RECS], fm[MAX_RECS];
	ULong pd = 0, pa = 0, pf = 0;
	for (Int k = 0; k < na; k++)
		thr_footprint(&thr[act[k]], &dm[k], &fm[k]);
	for (Int k = 0; k < na; k++) {
		od[k] = pd;
		oa[k] = pa;
		of[k] = pf;
		pd |= dm[k];
		pa |= dm[k] | fm[k];
		pf |= fm[k];
	}
	pd = pa = pf = 0;
	for (Int k = na - 1; k >= 0; k--) {
		od[k] |= pd;
		oa[k] |= pa;
		of[k] |= pf;
		pd |= dm[k];
		pa |= dm[k] | fm[k];
		pf |= fm[k];
	}
	/* fetches meet only in an L3 the cores share */
	for (Int k = 0; k < na && !clo_l3.size; k++)
		of[k] = 0;
	for (Int k = 0; k < na; k++)
		core_n[thr[act[k]].core] = 0;
	for (Int k = 0; k < na; k++)
		core_n[thr[act[k]].core]++;
	for (Int k = 0; k < na; k++) {
		if (core_n[thr[act[k]].core] > 1)
			od[k] = oa[k] = of[k] = ~0ULL;
		/* one whose lines meet nobody's runs to the limit at once */
		if (!(dm[k] & oa[k]) && !(fm[k] & od[k]) && !(fm[k] & of[k]))
			od[k] = oa[k] = of[k] = 0;
	}
	if (clo_quantum == 1) {
		/* those that meet nobody first, to the limit (their order with the others'
		 * changes nothing the caches see), the others in lockstep */
		static Int meet[MAX_RECS];
		Int nm = 0;
		for (Int k = 0; k < na; k++)
			if (od[k] || oa[k] || of[k]) {
				mod[act[k]] = od[k];
				moa[act[k]] = oa[k];
				mof[act[k]] = of[k];
				meet[nm++] = act[k];
			} else
				thr_run_until(&thr[act[k]], limit, limit, 0, 0, 0);
		if (nm)
			lockstep(meet, nm, limit);
		return;
	}
	for (;;) {
		Int a = -1, b = -1;
		ULong ta = ~0ULL, tb = ~0ULL;
		for (Int k = 0; k < na; k++) {
			const struct thr *t = &thr[act[k]];
			if (!pending(t))
				continue;
			if (t->ptime < ta) {
				tb = ta, b = a;
				ta = t->ptime, a = k;
			} else if (t->ptime < tb) {
				tb = t->ptime, b = k;
			}
		}
		if (a < 0 || ta >= limit)
			break;
		ULong end = limit;
		if (b >= 0) {
			end = tb + (ULong)clo_quantum - 1 + (a < b ? 1 : 0);
			if (end > limit)
				end = limit;
		}
		if (!od[a] && !oa[a] && !of[a])
			end = limit;
		thr_run_until(&thr[act[a]], end, limit, od[a], oa[a], of[a]);
	}
}

/* Whether t holds the others back: it can run (it is not in a blocking call), or a wake
 * seen here ended its blocking call. */
static inline Bool holds(const struct thr *t)
{
	return t->alive && (!t->blocked || t->woken);
}

/* Send what every thread buffered up to the time the slowest thread that holds the others
 * back has reached through the caches, merged in virtual time. all: everything (exit). */
static void flush(Bool all)
{
	ULong limit = ~0ULL, top = vnow;
	static Int act[MAX_RECS];
	Int na = 0;
	for (Int k = 0; k < nthr; k++) {
		struct thr *t = &thr[k];
		if (pending(t)) {
			act[na++] = k;
			if (t->clock > top)
				top = t->clock;
		}
		if (holds(t) && t->clock < limit)
			limit = t->clock;
	}
	if (all || limit == ~0ULL)
		limit = top;
	if (na == 1)
		thr_run_until(&thr[act[0]], limit, limit, 0, 0, 0);
	else if (na > 1)
		merge(act, na, limit);
	if (limit > vnow)
		vnow = limit;
}

void mps_flush_all(void)
{
	flush(True);
}

ULong mps_settled(void)
{
	ULong m = ~0ULL;
	for (Int k = 0; k < nthr; k++)
		if (holds(&thr[k]) && thr[k].clock < m)
			m = thr[k].clock;
	return m == ~0ULL ? vnow : m;
}

/* Give back t's segments (it has no records pending) and start its counters at 0. */
static void thr_clear(struct thr *t)
{
	for (; t->lo != t->hi; t->lo += SEG_WORDS)
		seg_put(t->seg[(t->lo >> SEG_BITS) & (t->nseg - 1)]);
	t->n = t->head = t->lo = t->hi = t->wck = 0;
	t->wd = t->wf = 0;
	t->rep_n = ~0u;
	t->probe_at = MAX_AHEAD;
}

static void thr_start(struct thr *t, ULong clock)
{
	if (t->seg == NULL) {
		t->nseg = 4;
		t->cap = t->nseg << SEG_BITS;
		t->seg = VG_(malloc)("mpsim.segs", t->nseg * sizeof(*t->seg));
		t->bp = VG_(calloc)("mpsim.bp", 1, sizeof(*t->bp));
		t->chm = VG_(malloc)("mpsim.chunks", (2 * t->cap >> CHUNK_BITS) * sizeof(*t->chm));
	}
	t->alive = True;
	t->blocked = t->woken = t->sure = t->insys = t->nonstop = False;
	t->futex = t->ctid = t->child_ctid = 0;
	t->clock = t->ptime = clock;
	thr_clear(t);
	t->lwp = 0;
	t->core = next_core++ % clo_cores;
	use_core(t->core);
}

/* The records written next start at word counter n: a new chunk starts when n is past
 * the chunk written so far (which keeps its set groups). */
static inline void chunk_at(struct thr *t, UInt n)
{
	UInt ck = n >> CHUNK_BITS;
	if (ck != t->wck) {
		struct chunkm *m = &t->chm[t->wck & ((2 * t->cap >> CHUNK_BITS) - 1)];
		m->d = t->wd;
		m->f = t->wf;
		t->wd = t->wf = 0;
		t->wck = ck;
	}
}

/* Make room for need more words in t's buffer: segments from the pool; when the ring is
 * full (the others still hold its records back) it doubles, its segments and chunks
 * keeping their counters. */
static void thr_grow(struct thr *t, UInt need)
{
	while (t->n + need - t->lo > t->hi - t->lo) {
		if (t->hi - t->lo == t->cap) {
			UInt ns = 2 * t->nseg, ncap = ns << SEG_BITS;
			UInt ocm = (2 * t->cap >> CHUNK_BITS) - 1, ncm = (2 * ncap >> CHUNK_BITS) - 1;
			UWord **nd = VG_(malloc)("mpsim.segs", ns * sizeof(*nd));
			struct chunkm *nc = VG_(malloc)("mpsim.chunks", (SizeT)(ncm + 1) * sizeof(*nc));
			for (UInt s = t->lo; s != t->hi; s += SEG_WORDS)
				nd[(s >> SEG_BITS) & (ns - 1)] = t->seg[(s >> SEG_BITS) & (t->nseg - 1)];
			if (t->head != t->n)
				for (UInt ck = t->head >> CHUNK_BITS; ck != t->wck; ck++)
					nc[ck & ncm] = t->chm[ck & ocm];
			VG_(free)(t->seg);
			VG_(free)(t->chm);
			t->seg = nd;
			t->chm = nc;
			t->nseg = ns;
			t->cap = ncap;
		}
		t->seg[(t->hi >> SEG_BITS) & (t->nseg - 1)] = seg_get();
		t->hi += SEG_WORDS;
	}
}

/* t's next instruction comes at virtual time at (when that is later than its clock): it
 * resumes there after a system call. */
static void thr_resume(struct thr *t, ULong at)
{
	if (t->clock >= at)
		return;
	t->clock = at;
	if (!pending(t)) {
		t->ptime = at;
		return;
	}
	thr_grow(t, 1);
	chunk_at(t, t->n);
	*thr_word(t, t->n++) = at << 3 | REC_JUMP;
}

/* A thread that reads the clear-tid word of one that exited sees its end: pthread_join
 * makes no futex call when the kernel has cleared the word already, and the joiner then
 * comes after the exit in virtual time all the same. gone_lo..gone_hi spans the words of
 * exited threads (none: gone_lo > gone_hi); an access there is looked at closely. */
static Addr gone_lo = ~(Addr)0, gone_hi;

static void gone_words(void)
{
	gone_lo = ~(Addr)0;
	gone_hi = 0;
	for (Int k = 0; k < nthr; k++)
		if (!thr[k].alive && thr[k].ctid) {
			if (thr[k].ctid - 7 < gone_lo)
				gone_lo = thr[k].ctid - 7;
			if (thr[k].ctid + 3 > gone_hi)
				gone_hi = thr[k].ctid + 3;
		}
}

/* The running thread accessed size bytes at a (after its batch is buffered): when they
 * hold an exited thread's clear-tid word, it goes on from that thread's end. */
static void saw_gone(Addr a, UWord size)
{
	for (Int k = 0; k < nthr; k++)
		if (!thr[k].alive && thr[k].ctid && a < thr[k].ctid + 4 &&
		    a + (size ? size : 1) > thr[k].ctid)
			thr_resume(cur, thr[k].clock);
}

static inline void seen(Addr a, UWord size)
{
	if (a >= gone_lo && a <= gone_hi)
		saw_gone(a, size);
}

/* Whether the kernel shows thread o still inside the system call it entered (what
 * /proc/self/task/LWP/syscall says: "NR ARG0 ..." in a call, "running" or "-1 ..."
 * outside one). A thread that returned from the call and waits for valgrind's lock shows
 * that wait (a read of valgrind's pipe, a futex of its own), not the client's call. When
 * the file cannot be read the call is taken as still going. */
static Bool in_kernel_call(const struct thr *o)
{
	HChar path[64], buf[256], *end;
	VG_(sprintf)(path, "/proc/self/task/%d/syscall", o->lwp);
	SysRes r = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(r))
		return True;
	Int len = VG_(read)((Int)sr_Res(r), buf, (Int)sizeof(buf) - 1);
	VG_(close)((Int)sr_Res(r));
	if (len <= 0)
		return True;
	buf[len] = 0;
	Long no = VG_(strtoll10)(buf, &end);
	if (end == buf || no != (Long)o->sysno)
		return False;
	return VG_(strtoull16)(end, NULL) == (ULong)o->sysarg0;
}

/* The running thread t, YIELD_AHEAD words ahead of what the merge has taken, ends its
 * valgrind time slice at its next block when another thread holds it back: that thread
 * runs next (valgrind is run with --fair-sched=try), and the merge takes their records
 * while they are still in the host's caches. A whole slice (100,000 blocks) of each of
 * four threads walking one list is 1.6 MB of records, written and read back three
 * slices later, which pushes the four simulated cores' caches out of the host's (5 to 8%
 * of the walk's time). The event check at the start of each block ends the slice when
 * its counter goes below zero. */
static void yield(const struct thr *t)
{
	for (Int k = 0; k < nthr; k++)
		if (&thr[k] != t && holds(&thr[k])) {
			UInt zero = 0;
			VG_(set_shadow_regs_area)(VG_(get_running_tid)(), 0,
						  offsetof(VexGuestAMD64State, host_EvC_COUNTER),
						  sizeof(zero), (const UChar *)&zero);
			return;
		}
}

/* Make room for a few events in the running thread's buffer. */
static void room(void)
{
	struct thr *t = cur;
	if (t->n + REC_MAX - t->lo <= t->hi - t->lo)
		return;
	flush(False);
	/* A thread in a call that does not block holds the others back until it returns,
	 * however long valgrind takes to run it again. When the running thread has MAX_AHEAD
	 * words waiting, those the kernel still shows inside their call (a write to a full
	 * pipe, a waiter woken by a guess of which waiters a wake reaches) are taken as
	 * blocked; asked again at each MAX_AHEAD more. Futex wakes (the kernel never sleeps
	 * in them) and waiters that a wake surely reaches are not asked: they come back. */
	if (t->n - t->head < MAX_AHEAD)
		t->probe_at = MAX_AHEAD;
	if (t->n - t->head >= t->probe_at) {
		t->probe_at = t->n - t->head + MAX_AHEAD;
		Bool idle = False;
		for (Int k = 0; k < nthr; k++) {
			struct thr *o = &thr[k];
			if (o != t && o->insys && holds(o) && !o->nonstop && !(o->woken && o->sure) &&
			    o->clock < t->clock && in_kernel_call(o)) {
				o->blocked = True;
				o->woken = False;
				idle = True;
			}
		}
		if (idle)
			flush(False);
	}
	if (t->n - t->head >= YIELD_AHEAD)
		yield(t);
	thr_grow(t, REC_MAX);
}

/* The running thread is the only one that holds the others back (the others have exited
 * or sleep in a system call nobody has ended) and no other has events buffered: its
 * events go straight to the caches, in the order and at the virtual times the buffer
 * would have given them (every flush would run all of it). Checked when a thread starts
 * running and after each system call (a wake ends it), cleared when a thread is created. */
static Bool solo;

static void solo_check(void)
{
	solo = False;
	if (!cur || !cur->alive || cur->blocked || pending(cur) ||
	    cur->ptime != cur->clock)
		return;
	for (Int k = 0; k < nthr; k++) {
		const struct thr *o = &thr[k];
		if (o != cur && (pending(o) || holds(o)))
			return;
	}
	solo = True;
	sim_thr = cur;
}

static inline __attribute__((always_inline)) void put_d(struct ins *ii, Addr a, UWord size,
							UWord kind)
{
	if (solo) {
		sim_d(cur->core, ii, a, size, kind);
		if (kind != EV_PF)
			seen(a, size & 0xff);
		return;
	}
	struct thr *t = cur;
	chunk_at(t, t->n);
	*thr_word(t, t->n++) = (UWord)ii | REC_ONE;
	*thr_word(t, t->n++) = kind | size << 2 | a << 11;
	if (kind != EV_PF)
		seen(a, size & 0xff);
	t->wd |= line_bits(a, kind == EV_PF ? 1 : size & 0xff);
}

/* A conditional branch by the running thread: its own predictor, so no ordering between
 * threads. */
static inline __attribute__((always_inline)) void branch(struct ins *ii, UWord taken)
{
	struct bpred *p = cur->bp;
	UWord idx = ((p->hist & 0x7f) << 7) | (ii->addr & 0x7f);
	Bool predicted = p->ctr[idx] >= 2;
	ii->v[Q_BC]++;
	if (predicted != (taken != 0))
		ii->v[Q_BCM]++;
	p->hist = (p->hist << 1) | (taken ? 1 : 0);
	if (taken) {
		if (p->ctr[idx] < 3)
			p->ctr[idx]++;
	} else if (p->ctr[idx] > 0) {
		p->ctr[idx]--;
	}
}

/* Whether the nd addresses at r are those at x. */
static inline __attribute__((always_inline)) Bool same_addrs(const UWord *r, const UWord *x,
							     UInt nd)
{
	for (UInt k = 0; k < nd; k++)
		if (r[k] != x[k])
			return False;
	return True;
}

/* The running thread t runs batch b again with the addresses of its last record
 * (t->rep_rec, the buffer's end): one more on its pending repeat, or a repeat word after
 * the record while that is pending. False: neither is pending (processed already), a new
 * record is needed. */
static Bool repeat(struct thr *t, const struct batch *b)
{
	UInt n = t->n;
	if (t->rep_y != ~0u) {
		if (t->rep_y - t->head >= n - t->head)
			return False;
		*thr_word(t, t->rep_y) += (UWord)1 << REP_SHIFT;
		return True;
	}
	UInt back = 1 + b->nd;
	if (n - back - t->head >= n - t->head)
		return False;
	if (n + REC_MAX - t->lo > t->hi - t->lo) {
		room();
		if (t->rep_y != ~0u || t->n - back - t->head >= t->n - t->head)
			return False;
	}
	chunk_at(t, n);
	*thr_word(t, n) = (UWord)1 << REP_SHIFT | back << 3 | REC_REPEAT;
	t->wd |= t->rep_d;
	t->wf |= b->fm;
	t->rep_y = n;
	t->n = t->rep_n = n + 1;
	return True;
}

/* ---- helpers called from the instrumented code ---------------------------------------- */
static inline __attribute__((always_inline)) void batch(const struct batch *b, const UWord *x)
{
	struct thr *t = cur;
	if (solo) {
		batch_sim(t->core, b, t->clock, x);
		t->clock = t->ptime = t->clock + b->nir;
	} else if (t->rep_n == t->n && (t->rep_rec[0] & REC_PTR_MASK) == (UWord)b &&
		   same_addrs(t->rep_rec + 1, x, b->nd) && repeat(t, b)) {
		t->clock += b->nir;
	} else {
		if (t->n + REC_MAX - t->lo > t->hi - t->lo)
			room();
		UInt n = t->n;
		ULong d = 0;
		chunk_at(t, n);
		UWord *p = thr_word(t, n);
		for (UInt k = 0; k < b->nd; k++)
			d |= line_bits(x[k], b->dsize[k]);
		if ((n & (SEG_WORDS - 1)) + 1 + b->nd <= SEG_WORDS) {
			/* the record lies in one segment */
			for (UInt k = 0; k < b->nd; k++)
				p[k + 1] = x[k];
			t->rep_rec = p;
			t->rep_d = d;
			t->rep_y = ~0u;
			t->rep_n = n + 1 + b->nd;
		} else {
			for (UInt k = 0; k < b->nd; k++)
				*thr_word(t, n + 1 + k) = x[k];
		}
		*p = (UWord)b | rec_fold(d) << REC_FOLD_SHIFT;
		t->wd |= d;
		t->wf |= b->fm;
		t->n = n + 1 + b->nd;
		t->clock += b->nir;
	}
	/* after the batch, as its record: its instructions keep their times either way */
	if (gone_hi)
		for (UInt k = 0; k < b->nd; k++)
			seen(x[k], b->dsize[k]);
	if (b->bc0)
		branch(b->bc0, 0);
	if (b->bc)
		branch(b->bc, x[b->nd]); /* taken, after the addresses */
}

void h_batch0(const struct batch *b)
{
	batch(b, NULL);
}

void h_batch1(const struct batch *b, UWord x1)
{
	batch(b, &x1);
}

void h_batch2(const struct batch *b, UWord x1, UWord x2)
{
	const UWord x[2] = { x1, x2 };
	batch(b, x);
}

void h_batch3(const struct batch *b, UWord x1, UWord x2, UWord x3)
{
	const UWord x[3] = { x1, x2, x3 };
	batch(b, x);
}

void h_batch4(const struct batch *b, UWord x1, UWord x2, UWord x3, UWord x4)
{
	const UWord x[4] = { x1, x2, x3, x4 };
	batch(b, x);
}

void h_batch5(const struct batch *b, UWord x1, UWord x2, UWord x3, UWord x4, UWord x5)
{
	const UWord x[5] = { x1, x2, x3, x4, x5 };
	batch(b, x);
}

VG_REGPARM(3) void h_dr(struct ins *ii, Addr a, UWord size)
{
	if (!solo)
		room();
	put_d(ii, a, size, EV_DR);
}

VG_REGPARM(3) void h_dw(struct ins *ii, Addr a, UWord size)
{
	if (!solo)
		room();
	put_d(ii, a, size, EV_DW);
}

VG_REGPARM(3) void h_pf(struct ins *ii, Addr a, UWord hint)
{
	if (!solo)
		room();
	put_d(ii, a, hint, EV_PF);
}

VG_REGPARM(2) void h_bi(struct ins *ii, Addr dst)
{
	struct bpred *p = cur->bp;
	UWord idx = ii->addr & 511;
	ii->v[Q_BI]++;
	if (p->btac[idx] != dst)
		ii->v[Q_BIM]++;
	p->btac[idx] = dst;
}

/* ---- threads in system calls (the rule: this file's header) -------------------------
 * Futex waits and wakes are matched by their word. A wake is taken when the waker enters
 * its call: valgrind gives up its lock for any futex call, so the woken thread can return
 * from the kernel and run before its waker's call comes back. Taken at that return, the
 * wake came too late: the waiter had run its whole loop alone meanwhile, its waker in a
 * call holding nobody back (falseshare: HITM 5 instead of 200,000 in 7 runs of 173 on a
 * loaded machine). */

/* futex operations (linux/futex.h, without the PRIVATE and CLOCK_REALTIME flags) */
enum { FX_WAIT = 0, FX_WAKE = 1, FX_REQUEUE = 3, FX_CMP_REQUEUE = 4, FX_WAKE_OP = 5,
       FX_LOCK_PI = 6, FX_UNLOCK_PI = 7, FX_WAIT_BITSET = 9, FX_WAKE_BITSET = 10,
       FX_WAIT_REQUEUE_PI = 11, FX_CMP_REQUEUE_PI = 12, FX_LOCK_PI2 = 13 };

static ULong wait_seq; /* futex waits started so far */

/* The futex word at a into *v; False when the client cannot read it (the call fails at
 * once). */
static Bool futex_word(Addr a, Int *v)
{
	if (!a || !VG_(am_is_valid_for_client)(a, 4, VKI_PROT_READ))
		return False;
	*v = *(volatile const Int *)a;
	return True;
}

static inline Bool waits_on(const struct thr *o, Addr a, UWord mask)
{
	return o->alive && o->blocked && !o->woken && a && o->futex == a && (o->fmask & mask);
}

/* waker's wake of up to count threads waiting on futex word a with a bitset meeting
 * mask, and the move of up to nreq more to word to (a requeue). The kernel takes the
 * waiters in the order they came. When count covers every waiter known here they surely
 * come back (woken, or their wait finds the word changed); else the first ones are
 * taken, a guess (maybe: the wake itself may not happen, WAKE_OP's second word). They
 * resume at the waker's time. */
static void futex_wake(const struct thr *waker, Addr a, UWord mask, Long count, Addr to,
		       Long nreq, Bool maybe)
{
	Long n = 0;
	for (Int k = 0; k < nthr; k++)
		n += waits_on(&thr[k], a, mask);
	if (count < 1)
		count = 1; /* the kernel wakes one even then */
	if (nreq < 0 || to == a)
		nreq = 0;
	for (Long done = 0; done < count + nreq; done++) {
		struct thr *first = NULL;
		for (Int k = 0; k < nthr; k++)
			if (waits_on(&thr[k], a, mask) && (!first || thr[k].wseq < first->wseq))
				first = &thr[k];
		if (!first)
			break;
		if (done < count) {
			first->woken = True;
			first->sure = count >= n && !maybe;
			thr_resume(first, waker->clock);
		} else {
			first->futex = to;
		}
	}
}

/* t starts waiting on futex word a (bitset mask). A wait on the clear-tid word of a
 * thread that has exited (a join the kernel has not yet answered) ends at its exit. */
static void futex_block(struct thr *t, Addr a, UWord mask)
{
	if (!mask)
		return; /* EINVAL */
	t->blocked = True;
	t->futex = a;
	t->fmask = mask;
	t->wseq = ++wait_seq;
	for (Int k = 0; k < nthr; k++)
		if (!thr[k].alive && thr[k].ctid == a) {
			t->woken = t->sure = True;
			thr_resume(t, thr[k].clock);
		}
}

/* t makes futex call args: a wait may block, a wake ends other threads' waits. */
static void futex_pre(struct thr *t, const UWord *args, UInt nargs)
{
	if (nargs < 6)
		return;
	UWord op = args[1] & 127;
	Int v;
	switch (op) {
	case FX_WAIT:
	case FX_WAIT_BITSET:
	case FX_WAIT_REQUEUE_PI:
		/* a word that no longer holds the value expected: EAGAIN at once */
		if (futex_word(args[0], &v) && v == (Int)args[2])
			futex_block(t, args[0], op == FX_WAIT_BITSET ? args[5] : ~0UL);
		return;
	case FX_LOCK_PI:
	case FX_LOCK_PI2:
		/* a free lock is taken at once */
		if (futex_word(args[0], &v) && v != 0)
			futex_block(t, args[0], ~0UL);
		return;
	case FX_WAKE:
	case FX_WAKE_BITSET:
		futex_wake(t, args[0], op == FX_WAKE_BITSET ? args[5] : ~0UL, (Int)args[2], 0, 0,
			   False);
		break;
	case FX_CMP_REQUEUE:
	case FX_CMP_REQUEUE_PI:
		/* the word changed: EAGAIN, nothing moves */
		if (!futex_word(args[0], &v) || v != (Int)args[5])
			return;
		/* fall through */
	case FX_REQUEUE:
		futex_wake(t, args[0], ~0UL, (Int)args[2], args[4], (Int)args[3], False);
		break;
	case FX_WAKE_OP:
		futex_wake(t, args[0], ~0UL, (Int)args[2], 0, 0, False);
		/* the second word's waiters only when the operation's comparison holds */
		futex_wake(t, args[4], ~0UL, (Int)args[3], 0, 0, True);
		break;
	case FX_UNLOCK_PI:
		futex_wake(t, args[0], ~0UL, 1, 0, 0, False);
		break;
	default:
		return;
	}
	t->nonstop = True;
}

/* Whether system call no (not futex) blocks: it waits for another thread or process, a
 * child, a signal or time. Reads and writes block on pipes, sockets and terminals, not
 * on files and block devices. */
static Bool blocking_call(UInt no, const UWord *args, UInt nargs)
{
	struct vg_stat st;
	switch (no) {
	case __NR_read:
	case __NR_readv:
	case __NR_write:
	case __NR_writev:
		return !(nargs >= 1 && VG_(fstat)((Int)args[0], &st) == 0 &&
			 (VKI_S_ISREG(st.mode) || VKI_S_ISBLK(st.mode)));
	case __NR_fcntl:
		return nargs >= 2 && (args[1] == VKI_F_SETLKW || args[1] == 38 /* F_OFD_SETLKW */);
	case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
	case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
	case __NR_accept: case __NR_accept4: case __NR_connect:
	case __NR_poll: case __NR_ppoll: case __NR_select: case __NR_pselect6:
	case __NR_epoll_wait: case __NR_epoll_pwait:
	case __NR_nanosleep: case __NR_clock_nanosleep: case __NR_pause:
	case __NR_rt_sigsuspend: case __NR_rt_sigtimedwait:
	case __NR_wait4: case __NR_waitid:
	case __NR_msgrcv: case __NR_msgsnd: case __NR_semop: case __NR_semtimedop:
	case __NR_flock: case __NR_io_getevents: case __NR_io_pgetevents:
	case __NR_io_uring_enter:
	case __NR_mq_timedreceive: case __NR_mq_timedsend:
	case __NR_sendfile: case __NR_splice: case __NR_tee: case __NR_vmsplice:
		return True;
	default:
		return False;
	}
}

static void mps_pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	struct thr *t = tid < MAX_THREADS ? by_tid[tid] : NULL;
	if (!t)
		return;
	t->insys = True;
	t->blocked = t->woken = t->sure = t->nonstop = False;
	t->futex = 0;
	t->sysno = no;
	t->sysarg0 = nargs ? args[0] : 0;
	if (no == __NR_futex)
		futex_pre(t, args, nargs);
	else
		t->blocked = blocking_call(no, args, nargs);
	if (no == __NR_clone && nargs >= 4)
		t->child_ctid = args[0] & VKI_CLONE_CHILD_CLEARTID ? args[3] : 0;
	else if (no == __NR_set_tid_address && nargs >= 1)
		t->ctid = args[0];
}

static void mps_post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
	struct thr *t = tid < MAX_THREADS ? by_tid[tid] : NULL;
	if (!t)
		return;
	t->insys = t->blocked = t->woken = t->sure = t->nonstop = False;
	t->futex = 0;
	/* a thread pinned to a CPU runs on that CPU's core (modulo the cores simulated) */
	if (no == __NR_sched_setaffinity && !sr_isError(res) && nargs >= 3 &&
	    (args[0] == 0 || (Int)args[0] == VG_(gettid)())) {
		const UChar *mask = (const UChar *)args[2];
		for (UWord b = 0; mask && b < args[1] * 8; b++)
			if (mask[b / 8] & (1u << (b % 8))) {
				/* what it ran so far goes first to the caches of its old core */
				flush(False);
				t->core = (Int)(b % (UWord)clo_cores);
				use_core(t->core);
				break;
			}
	}
	/* one that held the others back is at its own time or its waker's; one that was
	 * blocked without a wake seen here resumes at the time all have reached */
	thr_resume(t, vnow);
}

/* ---- threads come and go -------------------------------------------------------------- */
/* The record for a new thread of id tid: its id's last one when that has nothing left to
 * process, else one never used, else any other such. */
static struct thr *thr_new(ThreadId tid)
{
	struct thr *t = by_tid[tid];
	if (!t || t->alive || pending(t)) {
		t = NULL;
		if (nthr < MAX_RECS)
			t = &thr[nthr++];
		/* every record taken by a live thread or one whose accesses still wait: they
		 * all go to the caches now, in time order (those to come from the threads that
		 * held them back may then come out of order: a limit of the model) */
		for (Int pass = 0; !t && pass < 2; pass++) {
			if (pass)
				flush(True);
			for (Int k = 0; !t && k < nthr; k++)
				if (!thr[k].alive && !pending(&thr[k]))
					t = &thr[k];
		}
		if (!t)
			VG_(tool_panic)("mpsim: more than 2048 threads alive at once");
		for (Int k = 0; k < MAX_THREADS; k++)
			if (by_tid[k] == t)
				by_tid[k] = NULL;
	}
	by_tid[tid] = t;
	return t;
}

static void mps_thread_create(ThreadId parent, ThreadId child)
{
	/* the first thread is announced too, after start-up made it */
	if (child >= MAX_THREADS || (by_tid[child] && by_tid[child]->alive))
		return;
	const struct thr *p = parent < MAX_THREADS ? by_tid[parent] : NULL;
	if (p && !p->alive)
		p = NULL;
	solo = False;
	struct thr *t = thr_new(child);
	thr_start(t, p ? p->clock : vnow);
	/* the word its clone has the kernel clear at its exit; a thread gone before whose
	 * memory it reuses no longer answers a wait on it */
	Addr ctid = p ? p->child_ctid : 0;
	for (Int k = 0; ctid && k < nthr; k++)
		if (!thr[k].alive && thr[k].ctid == ctid)
			thr[k].ctid = 0;
	t->ctid = ctid;
	gone_words();
}

/* A thread's end: the kernel clears its clear-tid word and wakes its waiters (join),
 * which resume at its last instruction's time. */
static void mps_thread_exit(ThreadId tid)
{
	struct thr *t = tid < MAX_THREADS ? by_tid[tid] : NULL;
	if (!t)
		return;
	t->alive = False;
	if (t->ctid)
		futex_wake(t, t->ctid, ~0UL, 0x7fffffff, 0, 0, False);
	gone_words();
}

static void mps_start_client(ThreadId tid, ULong blocks)
{
	(void)blocks;
	tl_assert(tid < MAX_THREADS);
	if (!by_tid[tid])
		thr_start(thr_new(tid), vnow);
	cur = by_tid[tid];
	if (!cur->lwp)
		cur->lwp = VG_(gettid)();
	solo_check();
}

static void mps_stop_client(ThreadId tid, ULong blocks)
{
	(void)tid, (void)blocks;
	flush(False);
}

void mps_thread_info(ThreadId tid, ULong *time, UInt *lwp)
{
	const struct thr *t = tid < MAX_THREADS ? by_tid[tid] : NULL;
	*time = t ? t->clock : vnow;
	*lwp = t ? (UInt)t->lwp : 0;
}

/* A system call may end other threads' calls (a futex wake): they hold the running
 * thread back again. */
static void mps_pre_syscall_solo(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	mps_pre_syscall(tid, no, args, nargs);
	solo_check();
}

static void mps_post_syscall_solo(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
	mps_post_syscall(tid, no, args, nargs, res);
	solo_check();
}

/* A forked child counts from zero (its parent's counts are the parent's). */
static void mps_fork_child(ThreadId tid)
{
	mps_batch_fold(False);
	for (Word k = 0; k < VG_(sizeXA)(mps_ins_all); k++) {
		struct ins *ii = *(struct ins **)VG_(indexXA)(mps_ins_all, k);
		VG_(memset)(ii->v, 0, sizeof(ii->v));
	}
	for (Int k = 0; k < nthr; k++) {
		thr[k].head = thr[k].n;
		thr_clear(&thr[k]);
		thr[k].ptime = thr[k].clock;
		thr[k].lwp = 0;
		/* the forking thread is its only one */
		if (&thr[k] != by_tid[tid])
			thr[k].alive = False;
	}
	/* its memory samples go to a file of its own */
	mps_mem_fork_child();
	mps_alloc_fork_child();
	gone_words();
}

/* ---- start-up ------------------------------------------------------------------------- */
static void mps_post_clo_init(void)
{
	/* one guest block at a time, as callgrind: VEX's block shapes decide which
	 * conditional branch may come inverted */
	VG_(clo_vex_control).guest_chase = False;
	VexArch arch;
	VexArchInfo vai;
	VG_(machine_get_VexArchInfo)(&arch, &vai);
	simd_ok = clo_simd && (vai.hwcaps & VEX_HWCAPS_AMD64_AVX2);
	mps_min_line = clo_i1.line;
	if (clo_d1.line < mps_min_line)
		mps_min_line = clo_d1.line;
	if (clo_ll.line < mps_min_line)
		mps_min_line = clo_ll.line;
	if (clo_cores > 1 && (clo_d1.line != clo_ll.line || clo_i1.line != clo_ll.line))
		VG_(fmsg_bad_option)("--cores", "more than one core needs one line size in "
				     "--I1, --D1 and --LL\n");
	Long sets = clo_d1.size / clo_d1.line / clo_d1.assoc;
	if (clo_ll.size / clo_ll.line / clo_ll.assoc < sets)
		sets = clo_ll.size / clo_ll.line / clo_ll.assoc;
	if (clo_l3.size) {
		if (clo_l3.line != clo_d1.line || clo_l3.line != clo_ll.line ||
		    clo_l3.line != clo_i1.line)
			VG_(fmsg_bad_option)("--L3", "the L3's line must be --I1's, --D1's and --LL's\n");
		if (lat_l3 < lat_l2 || lat_l3 > lat_mem)
			VG_(fmsg_bad_option)("--l3-latency", "between the L2's and memory's (--latency)\n");
		if (clo_l3.size / clo_l3.line / clo_l3.assoc < sets)
			sets = clo_l3.size / clo_l3.line / clo_l3.assoc;
		cache_init(&llc, &clo_l3, "mpsim.l3");
	}
	mps_set_fold = (UWord)(sets < 64 ? sets : 64) - 1;
	cores = VG_(calloc)("mpsim.cores", (SizeT)clo_cores, sizeof(*cores));
	core_used = VG_(calloc)("mpsim.used", (SizeT)clo_cores, 1);
	used_list = VG_(calloc)("mpsim.used", (SizeT)clo_cores, sizeof(*used_list));
	core_n = VG_(calloc)("mpsim.used", (SizeT)clo_cores, sizeof(*core_n));
	mc_groups = VG_(calloc)("mpsim.mcount", (SizeT)(clo_cores >> MC_GROUP_BITS) + 1,
				sizeof(*mc_groups));
	for (Int k = 0; k < clo_cores; k++) {
		cache_init(&cores[k].i1, &clo_i1, "mpsim.i1");
		cache_init(&cores[k].d1, &clo_d1, "mpsim.d1");
		cache_init(&cores[k].l2, &clo_ll, "mpsim.l2");
		const struct tlb_cfg *tc[3] = { &clo_itlb, &clo_dtlb, &clo_stlb };
		struct cache *tl[3] = { &cores[k].itlb, &cores[k].dtlb, &cores[k].stlb };
		for (Int j = 0; j < 3; j++) {
			struct cache_cfg cc = { (Long)tc[j]->entries * clo_page, tc[j]->assoc, clo_page };
			cache_init(tl[j], &cc, "mpsim.tlb");
		}
		for (Int j = 0; j < 2; j++)
			tl[j]->vtlb = simd_ok && tc[j]->assoc == 4 && clo_stlb.assoc >= 4;
	}
	ins_hash = VG_(calloc)("mpsim.hash", INS_HASH, sizeof(*ins_hash));
	mps_ins_all = VG_(newXA)(VG_(malloc), "mpsim.insall", VG_(free), sizeof(struct ins *));
	VG_(setCmpFnXA)(mps_ins_all, mps_cmp_ins);
	mps_objs = VG_(newXA)(VG_(malloc), "mpsim.mps_objs", VG_(free), sizeof(HChar *));
	mps_fns = VG_(newXA)(VG_(malloc), "mpsim.mps_fns", VG_(free), sizeof(HChar *));
	mps_mem_init();
	cur = thr_new(1);
	thr_start(cur, 0);
}

static void mps_pre_clo_init(void)
{
	VG_(details_name)("mpsim");
	VG_(details_version)("1");
	VG_(details_description)("memprof's simulated PMU: caches, threads on cores");
	VG_(details_copyright_author)("memprof authors");
	VG_(details_bug_reports_to)("memprof's issue tracker");
	VG_(details_avg_translation_sizeB)(500);
	VG_(basic_tool_funcs)(mps_post_clo_init, mps_instrument, mps_fini);
	VG_(needs_command_line_options)(mps_process_cmd_line_option, mps_print_usage,
					mps_print_debug_usage);
	VG_(needs_syscall_wrapper)(mps_pre_syscall_solo, mps_post_syscall_solo);
	VG_(track_pre_thread_ll_create)(mps_thread_create);
	VG_(track_pre_thread_ll_exit)(mps_thread_exit);
	VG_(track_start_client_code)(mps_start_client);
	VG_(track_stop_client_code)(mps_stop_client);
	VG_(atfork)(NULL, NULL, mps_fork_child);
	mps_alloc_pre_clo_init();
}

VG_DETERMINE_INTERFACE_VERSION(mps_pre_clo_init)
