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
 *   instruction count as clock, and merged in that time, instruction by instruction,
 *   before they reach the caches. A thread in a system call holds nobody back.
 *
 * Built out of tree against Debian's valgrind package (sim/vgtool/CMakeLists.txt).
 */
#include "pub_tool_basics.h"
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

#include "mp_vgsim.h"

/* ---- quantities, in the order of the file's events: line ---------------------------- */
enum {
	Q_IR, Q_DR, Q_DW, Q_I1MR, Q_D1MR, Q_D1MW, Q_ILMR, Q_DLMR, Q_DLMW,
	Q_BC, Q_BCM, Q_BI, Q_BIM,
	Q_HITM, Q_INV,
	Q_ITLBM, Q_DTLBM, Q_STLBM, Q_PFX, Q_PFM, Q_PFL, Q_CYC, Q_IFST,
	NQ
};
static const HChar *const q_names[NQ] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw",
	"Bc", "Bcm", "Bi", "Bim",
	"HITM", "Inv",
	"ITLBm", "DTLBm", "STLBm", "PFx", "PFm", "PFl", "Cyc", "IFst",
};

/* ---- options -------------------------------------------------------------------------- */
struct cache_cfg {
	Long size;
	Int assoc, line;
};
static struct cache_cfg clo_i1 = { 32768, 8, 64 }, clo_d1 = { 32768, 8, 64 },
			clo_ll = { 1048576, 16, 64 };
static const HChar *clo_out = "mpsim.out.%p";
/* TLBs: entries and ways; pages of clo_page bytes */
struct tlb_cfg {
	Int entries, assoc;
};
static struct tlb_cfg clo_itlb = { 128, 8 }, clo_dtlb = { 64, 4 }, clo_stlb = { 1536, 12 };
static Int clo_page = 4096;
static Bool clo_swpf = True; /* software prefetches bring lines in */
/* latencies in cycles (one instruction is one cycle): an L1 miss that L2 holds, a miss
 * of L2 (memory), a line from another core (HITM), a second-level TLB hit, a page walk */
static Int lat_l2 = 14, lat_mem = 200, lat_hitm = 60, lat_stlb = 7, lat_walk = 30;

/* "ENTRIES,ASSOC" with a power-of-two number of sets. */
static Bool parse_tlb(const HChar *s, struct tlb_cfg *t)
{
	HChar *end;
	Long e = VG_(strtoll10)(s, &end), a;
	if (end == s || *end != ',' || e <= 0)
		return False;
	s = end + 1;
	a = VG_(strtoll10)(s, &end);
	if (end == s || *end || a <= 0 || e % a || ((e / a) & (e / a - 1)))
		return False;
	t->entries = (Int)e;
	t->assoc = (Int)a;
	return True;
}

/* "L2,MEM,HITM,STLB,WALK" cycles */
static Bool parse_lat(const HChar *s)
{
	Int *v[5] = { &lat_l2, &lat_mem, &lat_hitm, &lat_stlb, &lat_walk };
	HChar *end;
	for (Int i = 0; i < 5; i++) {
		Long x = VG_(strtoll10)(s, &end);
		if (end == s || x < 0 || x > 100000 || (i < 4 && *end != ',') || (i == 4 && *end) ||
		    (i == 1 && x < lat_l2))
			return False;
		*v[i] = (Int)x;
		s = end + 1;
	}
	return True;
}
static Int clo_cores = 1;
static Int clo_quantum = 1;
/* memory samples: every clo_mem_period-th load (of those waiting clo_ldlat cycles or more)
 * and store, written to clo_mem_out (0: none) */
static Int clo_mem_period = 0, clo_ldlat = 0;
static const HChar *clo_mem_out = "mpsim.mem.%p";

/* "SIZE,ASSOC,LINE" as valgrind's --D1 (memprof checked it; refuse what is still bad). */
static Bool parse_cache(const HChar *s, struct cache_cfg *c)
{
	HChar *end;
	Long v[3];
	for (Int i = 0; i < 3; i++) {
		v[i] = VG_(strtoll10)(s, &end);
		if (end == s || v[i] <= 0 || (i < 2 && *end != ',') || (i == 2 && *end))
			return False;
		s = end + 1;
	}
	Long sets = v[0] / v[2] / v[1];
	if (v[2] < 16 || (v[2] & (v[2] - 1)) || sets < 1 || (sets & (sets - 1)) ||
	    sets * v[1] * v[2] != v[0])
		return False;
	c->size = v[0];
	c->assoc = (Int)v[1];
	c->line = (Int)v[2];
	return True;
}

static Bool mps_process_cmd_line_option(const HChar *arg)
{
	const HChar *s;
	if VG_STR_CLO(arg, "--I1", s) {
		if (!parse_cache(s, &clo_i1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--D1", s) {
		if (!parse_cache(s, &clo_d1))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--LL", s) {
		if (!parse_cache(s, &clo_ll))
			VG_(fmsg_bad_option)(arg, "SIZE,ASSOC,LINE with power-of-two sets and line\n");
	} else if VG_STR_CLO(arg, "--itlb", s) {
		if (!parse_tlb(s, &clo_itlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--dtlb", s) {
		if (!parse_tlb(s, &clo_dtlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--stlb", s) {
		if (!parse_tlb(s, &clo_stlb))
			VG_(fmsg_bad_option)(arg, "ENTRIES,ASSOC with a power-of-two number of sets\n");
	} else if VG_STR_CLO(arg, "--latency", s) {
		if (!parse_lat(s))
			VG_(fmsg_bad_option)(arg, "L2,MEM,HITM,STLB,WALK cycles\n");
	} else if VG_BINT_CLO(arg, "--page-size", clo_page, 4096, 1 << 30) {
		if (clo_page & (clo_page - 1))
			VG_(fmsg_bad_option)(arg, "a power of two\n");
	} else if VG_BOOL_CLO(arg, "--sw-prefetch", clo_swpf) {
	} else if VG_STR_CLO(arg, "--out-file", clo_out) {
	} else if VG_BINT_CLO(arg, "--cores", clo_cores, 1, 256) {
	} else if VG_BINT_CLO(arg, "--quantum", clo_quantum, 1, 1000000) {
	} else if VG_BINT_CLO(arg, "--mem-period", clo_mem_period, 0, 1000000000) {
	} else if VG_BINT_CLO(arg, "--ldlat", clo_ldlat, 0, 65535) {
	} else if VG_STR_CLO(arg, "--mem-out", clo_mem_out) {
	} else
		return mps_alloc_option(arg);
	return True;
}

static void mps_print_usage(void)
{
	VG_(printf)("    --I1=SIZE,ASSOC,LINE  L1 instruction cache of each core [32768,8,64]\n"
		    "    --D1=SIZE,ASSOC,LINE  L1 data cache of each core [32768,8,64]\n"
		    "    --LL=SIZE,ASSOC,LINE  L2 of each core [1048576,16,64]\n"
		    "    --cores=N             simulated cores [1]\n"
		    "    --quantum=N           instructions a thread may run past the next [1]\n"
		    "    --itlb=ENTRIES,ASSOC  instruction TLB of each core [128,8]\n"
		    "    --dtlb=ENTRIES,ASSOC  data TLB of each core [64,4]\n"
		    "    --stlb=ENTRIES,ASSOC  second-level TLB of each core [1536,12]\n"
		    "    --page-size=BYTES     page size [4096]\n"
		    "    --sw-prefetch=no      prefetch instructions are counted but fetch nothing\n"
		    "    --latency=L2,MEM,HITM,STLB,WALK  cycles of each [14,200,60,7,30]\n"
		    "    --out-file=FILE       counts per instruction (%%p: pid) [mpsim.out.%%p]\n"
		    "    --mem-period=N        a memory sample every N loads and every N stores [0: none]\n"
		    "    --ldlat=CYCLES        loads sampled only when they wait this long [0]\n"
		    "    --mem-out=FILE        the memory samples (%%p: pid) [mpsim.mem.%%p]\n");
	mps_alloc_usage();
}

static void mps_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- one simulated cache: LRU sets of lines, MRU first ------------------------------
 * An entry is tag << 2 | MESI state (0 invalid, S, E, M); the tag is the address above
 * the set bits, as callgrind's. */
enum { ST_I, ST_S, ST_E, ST_M };
struct cache {
	UWord *tags;
	Int assoc, sets_min_1, line_bits, tag_shift;
};

static void cache_init(struct cache *c, const struct cache_cfg *cfg, const HChar *what)
{
	Int sets = (Int)(cfg->size / cfg->line / cfg->assoc);
	c->assoc = cfg->assoc;
	c->sets_min_1 = sets - 1;
	c->line_bits = VG_(log2)((UInt)cfg->line);
	c->tag_shift = c->line_bits + VG_(log2)((UInt)sets);
	c->tags = VG_(calloc)(what, (SizeT)sets * (SizeT)cfg->assoc, sizeof(UWord));
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
	for (Int i = 1; i < c->assoc; i++)
		if ((s[i] ^ t2) - 1 < 3) {
			UWord e = s[i];
			for (Int j = i; j > 0; j--)
				s[j] = s[j - 1];
			s[0] = e;
			return e & 3;
		}
	Int victim = c->assoc - 1;
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
	UWord tag = line >> (c->tag_shift - c->line_bits);
	UWord *s = c->tags + (SizeT)(line & (UWord)c->sets_min_1) * (SizeT)c->assoc;
	for (Int i = 0; i < c->assoc; i++)
		if ((s[i] >> 2) == tag && (s[i] & 3))
			return &s[i];
	return NULL;
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
struct ins {
	Addr addr;          /* where it runs */
	UInt size;
	UInt obj, fn;       /* indexes into objs/fns */
	Addr rel;           /* address relative to the object's text bias (callgrind's) */
	struct ins *next;   /* hash chain */
	ULong v[NQ];
};

#define INS_HASH (1u << 18)
static struct ins **ins_hash;
static XArray *ins_all;   /* struct ins * in creation order */
static XArray *objs, *fns; /* HChar * (names, VG_(strdup)) */

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

static struct ins *ins_get(Addr addr, UInt size)
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
		i->obj = name_index(objs, VG_(DebugInfo_get_filename)(di));
		i->rel = addr - (Addr)VG_(DebugInfo_get_text_bias)(di);
	} else {
		i->obj = name_index(objs, "???");
		i->rel = addr;
	}
	i->fn = name_index(fns, VG_(get_fnname)(ep, addr, &fn) && fn && *fn ? fn : "???");
	i->next = ins_hash[h];
	ins_hash[h] = i;
	VG_(addToXA)(ins_all, &i);
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
	struct inflight pf[N_INFLIGHT];
	UInt npf;                       /* entries of pf in use (0: no load looks) */
};
static struct core *cores;
static UChar *core_used; /* [clo_cores]: a thread has run there */
static Bool multi;       /* threads have run on more than one core: coherence matters */

static void use_core(Int k)
{
	if (core_used[k])
		return;
	core_used[k] = 1;
	Int n = 0;
	for (Int i = 0; i < clo_cores; i++)
		n += core_used[i];
	multi = n > 1;
}

/* A buffered event: an instruction's fetch (k = EV_IR) or one of its data accesses. */
enum { EV_IR, EV_DR, EV_DW, EV_PF };
struct ev {
	struct ins *ii;
	UWord k; /* kind | size << 2 | locked << 10 | address << 11 (user addresses have 47
		  * bits); size is the access's bytes (8 bits) with LOCKED (bit 8) for atomics */
};

/* The branch predictor of a thread: 2-bit counters indexed by global history and the
 * branch's address (7 bits each), and the last target per indirect branch (512). */
struct bpred {
	UWord hist;
	UChar ctr[1 << 14];
	Addr btac[512];
};

struct thr {
	Bool alive, blocked;
	Bool woken;      /* blocked in a futex wait that another thread woke */
	Addr futex;      /* the futex it waits on (0: none) */
	Int core;
	ULong clock;     /* virtual time at the end of its buffer (instructions) */
	ULong ptime;     /* virtual time of its first unprocessed event */
	struct ev *buf;
	UInt head, n, cap; /* a ring of cap (a power of two) events: those from head to n
			    * (counters, taken modulo cap) are not yet processed */
	struct bpred *bp;
	Int lwp;         /* its kernel thread id (0: not yet seen running) */
};

#define MAX_THREADS 1024
#define MAX_AHEAD (1u << 20) /* events a thread buffers before one in a syscall is idle */
static struct thr thr[MAX_THREADS];
static Int next_core;
static ULong vnow; /* everything before this virtual time has reached the caches */
static struct thr *cur; /* the running thread (its buffer takes the events) */
static Int max_tid; /* the highest thread id seen */

/* The virtual time of the event being simulated (its thread's instruction clock), and
 * its thread. */
static ULong sim_now;
static struct thr *sim_thr;

/* ---- memory samples --------------------------------------------------------------------
 * Every clo_mem_period-th load (of those that waited clo_ldlat cycles or more) and store,
 * as the caches saw it: one record each in clo_mem_out, which sim/ turns into perf's
 * memory samples (PERF_SAMPLE_DATA_SRC bits; sim/mp_sim_mem.c reads this layout). */
enum { ML_LFB, ML_L1, ML_L2, ML_PEER, ML_MEM }; /* where the data came from */
enum { MS_NONE, MS_HIT, MS_HITM };              /* what another core held */
struct memrec {
	ULong ip, addr, time;
	UInt tid, cpu, weight;
	UChar op;    /* 1 load, 2 store; 0 the last record: ip loads, addr stores counted,
		      * weight the period, tid the load-latency threshold */
	UChar lvl;   /* ML_* */
	UChar snoop; /* MS_* */
	UChar tlb;   /* 1 DTLB hit, 2 second-level TLB hit, 3 page walk */
	UChar lock;  /* a locked (atomic) access */
	UChar pad[7];
};
#define MEM_BUF 4096
static struct memrec *mem_buf;
static UInt mem_n;
static Int mem_fd = -1;
static ULong mem_loads, mem_stores;
static Int ld_left, st_left;
static UInt m_tlb, m_snoop; /* what the access being simulated met */

static void mem_flush(void)
{
	if (mem_fd < 0) {
		HChar *path = VG_(expand_file_name)("--mem-out", clo_mem_out);
		SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
		if (sr_isError(sr)) {
			VG_(umsg)("mpsim: cannot write %s\n", path);
			VG_(exit)(1);
		}
		mem_fd = (Int)sr_Res(sr);
	}
	if (mem_n)
		VG_(write)(mem_fd, mem_buf, (Int)(mem_n * sizeof(*mem_buf)));
	mem_n = 0;
}

static void mem_sample(const struct ins *ii, Addr a, Bool w, UInt lvl, UInt snoop, ULong lat,
		       Bool lock)
{
	if (w) {
		mem_stores++;
		if (--st_left > 0)
			return;
		st_left = clo_mem_period;
		lat = 0; /* stores go through the store buffer */
	} else {
		if (lat < (ULong)clo_ldlat)
			return;
		mem_loads++;
		if (--ld_left > 0)
			return;
		ld_left = clo_mem_period;
	}
	struct memrec *r = &mem_buf[mem_n++];
	VG_(memset)(r, 0, sizeof(*r));
	r->ip = ii->addr;
	r->addr = a;
	r->time = sim_now;
	r->tid = (UInt)sim_thr->lwp;
	r->cpu = (UInt)sim_thr->core;
	r->weight = lat > 0xffffffffULL ? 0xffffffffu : (UInt)lat;
	r->op = w ? 2 : 1;
	r->lvl = (UChar)lvl;
	r->snoop = (UChar)snoop;
	r->tlb = (UChar)m_tlb;
	r->lock = lock ? 1 : 0;
	if (mem_n == MEM_BUF)
		mem_flush();
}

/* Translate a through first-level TLB t (last: the page it saw last, + 1) and, when it
 * misses there, the core's second-level TLB; counts the misses in ii (qm: the first
 * level's quantity, Q_STLBM for walks). Returns the cycles the translation cost. */
static __attribute__((noinline)) ULong tlb_walk(struct core *c, struct cache *t, UWord *last,
						  Addr a, struct ins *ii, Int qm)
{
	UWord page = a >> t->line_bits, ev;
	*last = page + 1;
	m_tlb = 1;
	if (set_ref(t, (UInt)(page & (UWord)t->sets_min_1), a >> t->tag_shift, ST_S, &ev))
		return 0;
	ii->v[qm]++;
	m_tlb = 2;
	if (set_ref(&c->stlb, (UInt)(page & (UWord)c->stlb.sets_min_1), a >> c->stlb.tag_shift,
		    ST_S, &ev))
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

/* Coherence for core ci taking line (a data line number) to read (w False) or write:
 * other cores' copies are downgraded to S (read) or invalidated (write). A read that
 * finds the line Modified elsewhere is a HITM. Returns the state the line gets here. */
static UWord snoop(Int ci, UWord line, Bool w, struct ins *ii)
{
	Bool shared = False;
	for (Int k = 0; k < clo_cores; k++) {
		if (k == ci)
			continue;
		struct core *o = &cores[k];
		UWord *e1 = cache_find(&o->d1, line), *e2 = cache_find(&o->l2, line);
		if (!e1 && !e2)
			continue;
		Bool dirty = (e1 && (*e1 & 3) == ST_M) || (e2 && (*e2 & 3) == ST_M);
		if (w) {
			ii->v[Q_INV]++;
			if (e1)
				*e1 &= ~(UWord)3;
			if (e2)
				*e2 &= ~(UWord)3;
		} else {
			if (dirty) {
				ii->v[Q_HITM]++;
				ii->v[Q_CYC] += (ULong)lat_hitm;
				m_snoop = MS_HITM;
			} else if (m_snoop == MS_NONE) {
				m_snoop = MS_HIT;
			}
			shared = True;
			if (e1)
				*e1 = (*e1 & ~(UWord)3) | ST_S;
			if (e2)
				*e2 = (*e2 & ~(UWord)3) | ST_S;
		}
	}
	return w ? ST_M : shared ? ST_S : ST_E;
}

/* The head (most recently used entry) of line's set in c. */
static inline UWord *set_head(struct cache *c, UWord line)
{
	return c->tags + (SizeT)(line & (UWord)c->sets_min_1) * (SizeT)c->assoc;
}

/* A data reference by core ci: callgrind's two-level lookup, then (with more than one
 * core) MESI on each line touched. */
static void d_ref(Int ci, struct ins *ii, Addr a, UWord size, Bool w, Bool lock)
{
	struct core *c = &cores[ci];
	UWord st1[2], st2[2] = { ST_I, ST_I }, ev1[2], ev2[2], line[2], line2[2];
	UWord fill = w ? ST_M : ST_E;
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
				lat += (ULong)(lat_mem - lat_l2);
				lvl = ML_MEM;
			}
		} else if (!w) {
			ULong late = pf_late(c, a >> c->d1.line_bits, ii);
			if (late)
				lat += late, lvl = ML_LFB;
		}
		if (!w && lat)
			ii->v[Q_CYC] += lat;
		if (clo_mem_period)
			mem_sample(ii, a, w, lvl, MS_NONE, lat, lock);
		return;
	}
	m_snoop = MS_NONE;
	Int n = cache_ref(&c->d1, a, size, fill, st1, ev1, line);
	Bool m1 = any_miss(st1, n);
	if (m1) {
		ii->v[w ? Q_D1MW : Q_D1MR]++;
		lat += lat_l2;
		lvl = ML_L2;
		cache_ref(&c->l2, a, size, fill, st2, ev2, line2);
		if (any_miss(st2, n)) {
			ii->v[w ? Q_DLMW : Q_DLMR]++;
			lat += (ULong)(lat_mem - lat_l2);
			lvl = ML_MEM;
		}
	} else if (!w) {
		ULong late = pf_late(c, line[0], ii);
		if (late)
			lat += late, lvl = ML_LFB;
	}
	if (!w)
		ii->v[Q_CYC] += lat;
	for (Int k = 0; k < n; k++) {
		/* a dirty line leaving L1d stays dirty in L2 */
		if ((ev1[k] & 3) == ST_M) {
			UWord set = line[k] & (UWord)c->d1.sets_min_1;
			UWord eline = ((ev1[k] >> 2) << (c->d1.tag_shift - c->d1.line_bits)) | set;
			UWord *e2 = cache_find(&c->l2, eline);
			if (e2)
				*e2 |= ST_M;
		}
		UWord own = st1[k] != ST_I ? st1[k] : m1 ? st2[k] : ST_I;
		UWord now;
		if (w)
			now = own == ST_M || own == ST_E ? ST_M : snoop(ci, line[k], True, ii);
		else
			now = own != ST_I ? own : snoop(ci, line[k], False, ii);
		UWord *e1 = set_head(&c->d1, line[k]);
		*e1 = (*e1 & ~(UWord)3) | now;
		/* a line L2 just took gets the same state */
		if (m1 && st2[k] == ST_I && now != fill) {
			UWord *e2 = set_head(&c->l2, line[k]);
			*e2 = (*e2 & ~(UWord)3) | now;
		}
	}
	if (clo_mem_period) {
		/* a load served by another core's copy; a HITM waited for its write-back too */
		if (!w && m_snoop != MS_NONE)
			lvl = ML_PEER;
		if (!w && m_snoop == MS_HITM)
			lat += (ULong)lat_hitm;
		mem_sample(ii, a, w, lvl, w ? MS_NONE : m_snoop, lat, lock);
	}
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
	ULong lat = cache_ref1(&c->l2, a, 1, ST_E) ? (ULong)lat_mem : (ULong)lat_l2;
	UWord line = a >> c->d1.line_bits;
	if (multi) {
		UWord st = snoop(ci, line, False, ii);
		*set_head(&c->d1, line) = (*set_head(&c->d1, line) & ~(UWord)3) | st;
	}
	struct inflight *f = &c->pf[line & (N_INFLIGHT - 1)];
	if (!f->line)
		c->npf++;
	f->line = line + 1;
	f->ready = sim_now + lat;
}

static void sim_event(Int ci, const struct ev *e)
{
	struct core *c = &cores[ci];
	struct ins *ii = e->ii;
	switch (e->k & 3) {
	case EV_IR: {
		ULong lat = tlb_ref(c, &c->itlb, &c->ipage, ii->addr, ii, Q_ITLBM);
		ii->v[Q_IR]++;
		if (cache_ref1(&c->i1, ii->addr, ii->size, ST_S)) {
			ii->v[Q_I1MR]++;
			lat += (ULong)lat_l2;
			if (cache_ref1(&c->l2, ii->addr, ii->size, ST_S)) {
				ii->v[Q_ILMR]++;
				lat += (ULong)(lat_mem - lat_l2);
			}
		}
		/* Cyc's one cycle per instruction is added when the counts are written */
		if (lat) {
			ii->v[Q_CYC] += lat;
			ii->v[Q_IFST] += lat;
		}
		break;
	}
	case EV_PF:
		prefetch(ci, ii, e->k >> 11);
		break;
	case EV_DR:
		ii->v[Q_DR]++;
		d_ref(ci, ii, e->k >> 11, (e->k >> 2) & 0xff, False, (e->k >> 10) & 1);
		break;
	case EV_DW:
		ii->v[Q_DW]++;
		d_ref(ci, ii, e->k >> 11, (e->k >> 2) & 0xff, True, (e->k >> 10) & 1);
		break;
	}
}

/* Run thread t's buffered events up to virtual time limit (an instruction and its data
 * accesses go together). */
static void thr_run_until(struct thr *t, ULong limit)
{
	UInt i = t->head, mask = t->cap - 1;
	while (i != t->n) {
		const struct ev *e = &t->buf[i & mask];
		if ((e->k & 3) == EV_IR) {
			if (t->ptime >= limit)
				break;
			t->ptime++;
		}
		sim_now = t->ptime;
		sim_thr = t;
		sim_event(t->core, e);
		i++;
	}
	t->head = i;
}

/* Run the threads act[0..na) (ascending thread ids, each with events) up to virtual time
 * limit in the order of that time: the thread furthest behind runs until it passes the
 * next one (by clo_quantum - 1 instructions more; at equal times the lower thread id goes
 * first). With the default quantum of 1 the caches see the instructions of all threads in
 * one order that depends only on their clocks, not on when valgrind ran them: two threads
 * writing one line alternate instruction by instruction, as on two cores. */
static void merge(const Int *act, Int na, ULong limit)
{
	for (;;) {
		Int a = -1, b = -1;
		ULong ta = ~0ULL, tb = ~0ULL;
		for (Int k = 0; k < na; k++) {
			const struct thr *t = &thr[act[k]];
			if (t->head == t->n)
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
		thr_run_until(&thr[act[a]], end);
	}
}

/* Send what every thread buffered up to the time the slowest running thread has reached
 * through the caches, merged in virtual time. all: everything (exit). */
static void flush(Bool all)
{
	ULong limit = ~0ULL, top = vnow;
	Int act[MAX_THREADS], na = 0;
	for (Int k = 1; k <= max_tid; k++) {
		struct thr *t = &thr[k];
		if (t->n != t->head) {
			act[na++] = k;
			if (t->clock > top)
				top = t->clock;
		}
		if (t->alive && (!t->blocked || t->woken) && t->clock < limit)
			limit = t->clock;
	}
	if (all || limit == ~0ULL)
		limit = top;
	if (na == 1)
		thr_run_until(&thr[act[0]], limit);
	else if (na > 1)
		merge(act, na, limit);
	if (limit > vnow)
		vnow = limit;
}

static void thr_start(ThreadId tid, ULong clock)
{
	struct thr *t = &thr[tid];
	if (t->buf == NULL) {
		t->cap = 1u << 16;
		t->buf = VG_(malloc)("mpsim.buf", t->cap * sizeof(*t->buf));
		t->bp = VG_(calloc)("mpsim.bp", 1, sizeof(*t->bp));
	}
	t->alive = True;
	t->blocked = False;
	if ((Int)tid > max_tid)
		max_tid = (Int)tid;
	t->clock = t->ptime = clock;
	t->n = t->head = 0;
	t->lwp = 0;
	t->core = next_core++ % clo_cores;
	use_core(t->core);
}

/* Make room for a few events in the running thread's buffer. */
static void room(void)
{
	struct thr *t = cur;
	if (t->n - t->head + 4 <= t->cap)
		return;
	flush(False);
	/* Threads in a system call hold the others back too: one woken from a futex returns
	 * only when valgrind schedules it, after the running thread's slice, and must find
	 * the others' accesses of that time still waiting. Up to a limit (about a slice):
	 * beyond it a thread still in its call is taken as idle and moves up to the time
	 * MAX_AHEAD / 2 instructions before the running thread's. */
	if (t->n - t->head > MAX_AHEAD) {
		ULong to = t->clock > MAX_AHEAD / 2 ? t->clock - MAX_AHEAD / 2 : 0;
		for (Int k = 1; k <= max_tid; k++) {
			struct thr *o = &thr[k];
			if (o != t && o->alive && o->blocked && o->clock < to) {
				o->clock = to;
				if (o->n == o->head)
					o->ptime = to;
			}
		}
		flush(False);
	}
	/* the buffer is a ring: grow it (twice the size, the pending events in order at
	 * its start) when the others still hold its events back */
	if (t->n - t->head + 4 > t->cap) {
		UInt pend = t->n - t->head, mask = t->cap - 1;
		struct ev *nb = VG_(malloc)("mpsim.buf", 2 * (SizeT)t->cap * sizeof(*nb));
		for (UInt i = 0; i < pend; i++)
			nb[i] = t->buf[(t->head + i) & mask];
		VG_(free)(t->buf);
		t->buf = nb;
		t->cap *= 2;
		t->head = 0;
		t->n = pend;
	}
}

static inline void put_ir(struct ins *ii)
{
	struct ev *e = &cur->buf[cur->n++ & (cur->cap - 1)];
	e->ii = ii;
	e->k = EV_IR;
	cur->clock++;
}

static inline void put_d(struct ins *ii, Addr a, UWord size, UWord kind)
{
	struct ev *e = &cur->buf[cur->n++ & (cur->cap - 1)];
	e->ii = ii;
	e->k = kind | size << 2 | a << 11;
}

/* ---- helpers called from the instrumented code ---------------------------------------- */
static VG_REGPARM(1) void h_ir1(struct ins *a)
{
	room();
	put_ir(a);
}

static VG_REGPARM(2) void h_ir2(struct ins *a, struct ins *b)
{
	room();
	put_ir(a);
	put_ir(b);
}

static VG_REGPARM(3) void h_ir3(struct ins *a, struct ins *b, struct ins *c)
{
	room();
	put_ir(a);
	put_ir(b);
	put_ir(c);
}

static VG_REGPARM(3) void h_ir_dr(struct ins *ii, Addr a, UWord size)
{
	room();
	put_ir(ii);
	put_d(ii, a, size, EV_DR);
}

static VG_REGPARM(3) void h_ir_dw(struct ins *ii, Addr a, UWord size)
{
	room();
	put_ir(ii);
	put_d(ii, a, size, EV_DW);
}

static VG_REGPARM(3) void h_dr(struct ins *ii, Addr a, UWord size)
{
	room();
	put_d(ii, a, size, EV_DR);
}

static VG_REGPARM(3) void h_dw(struct ins *ii, Addr a, UWord size)
{
	room();
	put_d(ii, a, size, EV_DW);
}

static VG_REGPARM(3) void h_pf(struct ins *ii, Addr a, UWord hint)
{
	room();
	put_d(ii, a, hint, EV_PF);
}

/* Conditional branches: a thread's own predictor, so no ordering between threads. */
static VG_REGPARM(2) void h_bc(struct ins *ii, UWord taken)
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

static VG_REGPARM(2) void h_bi(struct ins *ii, Addr dst)
{
	struct bpred *p = cur->bp;
	UWord idx = ii->addr & 511;
	ii->v[Q_BI]++;
	if (p->btac[idx] != dst)
		ii->v[Q_BIM]++;
	p->btac[idx] = dst;
}

/* ---- instrumentation ------------------------------------------------------------------ */
/* Events of the instructions seen since the last flush, as callgrind queues them: an
 * instruction's fetch and its data accesses, in order; a write to what the same
 * instruction just read (same address and size) is one access, counted as a write. */
enum { P_IR, P_DR, P_DW };
struct pend {
	Int tag;
	struct ins *ii;
	IRExpr *ea;
	Int size;
};
#define N_PEND 16
struct ist {
	IRSB *out;
	struct pend p[N_PEND];
	Int n;
};

static void emit(struct ist *s, const HChar *name, void *fn, Int regparms, IRExpr **args,
		 IRExpr *guard)
{
	IRDirty *di = unsafeIRDirty_0_N(regparms, name, VG_(fnptr_to_fnentry)(fn), args);
	if (guard)
		di->guard = guard;
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

static IRExpr *ptr(const void *p)
{
	return mkIRExpr_HWord((HWord)p);
}

static void pend_flush(struct ist *s)
{
	for (Int i = 0; i < s->n;) {
		struct pend *e = &s->p[i], *e2 = i + 1 < s->n ? &s->p[i + 1] : NULL,
			    *e3 = i + 2 < s->n ? &s->p[i + 2] : NULL;
		if (e->tag == P_IR) {
			if (e2 && e2->tag == P_DR) {
				emit(s, "h_ir_dr", h_ir_dr, 3,
				     mkIRExprVec_3(ptr(e->ii), e2->ea, mkIRExpr_HWord((HWord)e2->size)),
				     NULL);
				i += 2;
			} else if (e2 && e2->tag == P_DW) {
				emit(s, "h_ir_dw", h_ir_dw, 3,
				     mkIRExprVec_3(ptr(e->ii), e2->ea, mkIRExpr_HWord((HWord)e2->size)),
				     NULL);
				i += 2;
			} else if (e2 && e3 && e2->tag == P_IR && e3->tag == P_IR) {
				emit(s, "h_ir3", h_ir3, 3,
				     mkIRExprVec_3(ptr(e->ii), ptr(e2->ii), ptr(e3->ii)), NULL);
				i += 3;
			} else if (e2 && e2->tag == P_IR) {
				emit(s, "h_ir2", h_ir2, 2, mkIRExprVec_2(ptr(e->ii), ptr(e2->ii)), NULL);
				i += 2;
			} else {
				emit(s, "h_ir1", h_ir1, 1, mkIRExprVec_1(ptr(e->ii)), NULL);
				i++;
			}
		} else {
			Bool w = e->tag == P_DW;
			emit(s, w ? "h_dw" : "h_dr", w ? (void *)h_dw : (void *)h_dr, 3,
			     mkIRExprVec_3(ptr(e->ii), e->ea, mkIRExpr_HWord((HWord)e->size)), NULL);
			i++;
		}
	}
	s->n = 0;
}

static void pend_add(struct ist *s, Int tag, struct ins *ii, IRExpr *ea, Int size)
{
	if (tag == P_DW && s->n > 0) {
		struct pend *l = &s->p[s->n - 1];
		if (l->tag == P_DR && l->ii == ii && l->size == size && eqIRAtom(l->ea, ea)) {
			l->tag = P_DW;
			return;
		}
	}
	if (s->n == N_PEND)
		pend_flush(s);
	s->p[s->n].tag = tag;
	s->p[s->n].ii = ii;
	s->p[s->n].ea = ea;
	s->p[s->n].size = size;
	s->n++;
}

static Int min_line;
#define SZ_LOCKED 0x100 /* with an access's size: it is atomic */

/* The guest register r (0 RAX .. 15 R15) as a temporary of sb. */
static IRExpr *get_reg(IRSB *sb, Int r)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(offsetof(VexGuestAMD64State, guest_RAX) +
						      8 * r, Ity_I64)));
	return IRExpr_RdTmp(t);
}

static IRExpr *add64(IRSB *sb, IRExpr *x, IRExpr *y)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Add64, x, y)));
	return IRExpr_RdTmp(t);
}

/* VEX turns software prefetches into nothing, so they are decoded here: when the len
 * bytes at a are prefetchnta/t0/t1/t2 (0F 18 /0-3) or prefetchw (0F 0D /0-1), the IR
 * computing their address is added to sb and returned (*hint: 0 nta, 1-3 t0-t2, 4 w);
 * else NULL. 32-bit addressing (0x67) is not decoded. */
static IRExpr *prefetch_ea(IRSB *sb, Addr a, UInt len, UWord *hint)
{
	const UChar *p = (const UChar *)a, *end = p + len;
	UInt rex = 0;
	while (p < end && (*p == 0x66 || *p == 0xF2 || *p == 0xF3 || *p == 0x2E || *p == 0x3E ||
			   *p == 0x26 || *p == 0x36 || *p == 0x64 || *p == 0x65))
		p++;
	if (p < end && (*p & 0xF0) == 0x40)
		rex = *p++;
	if (end - p < 3 || p[0] != 0x0F || (p[1] != 0x18 && p[1] != 0x0D))
		return NULL;
	UInt mod = p[2] >> 6, reg = (p[2] >> 3) & 7, rm = p[2] & 7;
	Bool w = p[1] == 0x0D;
	p += 3;
	if (mod == 3 || (!w && reg > 3) || (w && reg > 1))
		return NULL;
	*hint = w ? 4 : reg;
	Int base = -1, index = -1, scale = 0;
	Bool rip = False, d32 = mod == 2;
	if (rm == 4) {
		if (p >= end)
			return NULL;
		UInt sib = *p++;
		scale = (Int)(sib >> 6);
		index = (Int)(((sib >> 3) & 7) | (rex & 2 ? 8 : 0));
		if (index == 4)
			index = -1;
		base = (Int)((sib & 7) | (rex & 1 ? 8 : 0));
		if ((sib & 7) == 5 && mod == 0) {
			base = -1;
			d32 = True;
		}
	} else if (rm == 5 && mod == 0) {
		rip = d32 = True;
	} else {
		base = (Int)(rm | (rex & 1 ? 8 : 0));
	}
	Long disp = 0;
	if (mod == 1) {
		if (p >= end)
			return NULL;
		disp = (Char)*p++;
	} else if (d32) {
		if (end - p < 4)
			return NULL;
		disp = (Int)((UInt)p[0] | (UInt)p[1] << 8 | (UInt)p[2] << 16 | (UInt)p[3] << 24);
		p += 4;
	}
	IRExpr *e = mkIRExpr_HWord((HWord)(disp + (rip ? (Long)(a + len) : 0)));
	if (base >= 0)
		e = add64(sb, get_reg(sb, base), e);
	if (index >= 0) {
		IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
		addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_Shl64, get_reg(sb, index),
							       IRExpr_Const(IRConst_U8((UChar)scale)))));
		e = add64(sb, e, IRExpr_RdTmp(t));
	}
	return e;
}

static Addr const_addr(const IRConst *c)
{
	return c->tag == Ico_U64 ? (Addr)c->Ico.U64 : (Addr)c->Ico.U32;
}

static IRSB *mps_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			    IRType gWordTy, IRType hWordTy)
{
	struct ist s;
	struct ins *ci = NULL;
	Int i = 0;

	(void)closure, (void)layout, (void)vge, (void)archinfo_host, (void)gWordTy;
	s.out = deepCopyIRSBExceptStmts(in);
	s.n = 0;
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(s.out, in->stmts[i++]);

	/* VEX may invert the block's last conditional exit, the one that jumps to the next
	 * instruction: its guard is then the branch's "not taken" (callgrind's heuristic) */
	Int nexits = 0, last_exit = -1;
	Bool inverted = False;
	{
		Addr ia = 0;
		UInt il = 0;
		for (Int k = i; k < in->stmts_used; k++) {
			IRStmt *st = in->stmts[k];
			if (st->tag == Ist_IMark) {
				ia = st->Ist.IMark.addr;
				il = st->Ist.IMark.len;
			} else if (st->tag == Ist_Exit) {
				inverted = const_addr(st->Ist.Exit.dst) == ia + il;
				last_exit = nexits++;
			}
		}
	}
	Int exit_no = 0;

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];
		switch (st->tag) {
		case Ist_IMark: {
			UInt len = st->Ist.IMark.len;
			if (len == 0)
				len = VG_MIN_INSTR_SZB;
			ci = ins_get(st->Ist.IMark.addr + (Addr)st->Ist.IMark.delta, len);
			pend_add(&s, P_IR, ci, NULL, 0);
			UWord hint;
			IRExpr *ea = prefetch_ea(s.out, ci->addr, len, &hint);
			if (ea) {
				pend_flush(&s);
				emit(&s, "h_pf", h_pf, 3,
				     mkIRExprVec_3(ptr(ci), ea, mkIRExpr_HWord(hint)), NULL);
			}
			break;
		}
		case Ist_WrTmp: {
			IRExpr *d = st->Ist.WrTmp.data;
			if (d->tag == Iex_Load)
				pend_add(&s, P_DR, ci, d->Iex.Load.addr, sizeofIRType(d->Iex.Load.ty));
			break;
		}
		case Ist_Store:
			pend_add(&s, P_DW, ci, st->Ist.Store.addr,
				 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.Store.data)));
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			pend_flush(&s);
			emit(&s, "h_dw", h_dw, 3,
			     mkIRExprVec_3(ptr(ci), sg->addr,
					   mkIRExpr_HWord((HWord)sizeofIRType(
						   typeOfIRExpr(in->tyenv, sg->data)))),
			     sg->guard);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			pend_flush(&s);
			emit(&s, "h_dr", h_dr, 3,
			     mkIRExprVec_3(ptr(ci), lg->addr, mkIRExpr_HWord((HWord)sizeofIRType(ty))),
			     lg->guard);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (d->mFx != Ifx_None) {
				Int sz = d->mSize > min_line ? min_line : d->mSize;
				if (sz > 128) /* the size field has 8 bits */
					sz = 128;
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					pend_add(&s, P_DR, ci, d->mAddr, sz);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					pend_add(&s, P_DW, ci, d->mAddr, sz);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(in->tyenv, cas->dataLo));
			if (cas->dataHi)
				sz *= 2;
			/* lock-prefixed instructions come as CAS */
			pend_add(&s, P_DR, ci, cas->addr, sz | SZ_LOCKED);
			pend_add(&s, P_DW, ci, cas->addr, sz | SZ_LOCKED);
			break;
		}
		case Ist_LLSC:
			if (!st->Ist.LLSC.storedata) {
				pend_add(&s, P_DR, ci, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRTemp(in->tyenv, st->Ist.LLSC.result)));
				pend_flush(&s);
			} else {
				pend_add(&s, P_DW, ci, st->Ist.LLSC.addr,
					 sizeofIRType(typeOfIRExpr(in->tyenv, st->Ist.LLSC.storedata)));
			}
			break;
		case Ist_Exit: {
			IRJumpKind jk = st->Ist.Exit.jk;
			if (jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret) {
				/* the guard as a word, inverted when VEX inverted the branch */
				IRTemp g1 = newIRTemp(s.out->tyenv, Ity_I1);
				IRTemp gw = newIRTemp(s.out->tyenv, hWordTy);
				addStmtToIRSB(s.out, IRStmt_WrTmp(g1, st->Ist.Exit.guard));
				addStmtToIRSB(s.out, IRStmt_WrTmp(gw, IRExpr_Unop(Iop_1Uto64,
										 IRExpr_RdTmp(g1))));
				IRExpr *g = IRExpr_RdTmp(gw);
				if (exit_no == last_exit && inverted) {
					IRTemp gi = newIRTemp(s.out->tyenv, hWordTy);
					addStmtToIRSB(s.out,
						      IRStmt_WrTmp(gi, IRExpr_Binop(Iop_Xor64, g,
										    IRExpr_Const(IRConst_U64(1)))));
					g = IRExpr_RdTmp(gi);
				}
				pend_flush(&s);
				emit(&s, "h_bc", h_bc, 2, mkIRExprVec_2(ptr(ci), g), NULL);
			}
			pend_flush(&s);
			exit_no++;
			break;
		}
		default:
			break;
		}
		addStmtToIRSB(s.out, st);
	}
	/* an indirect jump or call (returns are taken as always predicted) */
	if ((in->jumpkind == Ijk_Boring || in->jumpkind == Ijk_Call) && in->next->tag == Iex_RdTmp) {
		pend_flush(&s);
		emit(&s, "h_bi", h_bi, 2, mkIRExprVec_2(ptr(ci), in->next), NULL);
	}
	pend_flush(&s);
	return s.out;
}

/* ---- threads come and go -------------------------------------------------------------- */
static void mps_thread_create(ThreadId parent, ThreadId child)
{
	/* the first thread is announced too, after start-up made it */
	if (child < MAX_THREADS && !thr[child].alive)
		thr_start(child, parent < MAX_THREADS && thr[parent].alive ? thr[parent].clock : vnow);
}

static void mps_thread_exit(ThreadId tid)
{
	if (tid < MAX_THREADS)
		thr[tid].alive = False;
}

static void mps_start_client(ThreadId tid, ULong blocks)
{
	(void)blocks;
	tl_assert(tid < MAX_THREADS);
	if (!thr[tid].alive && !thr[tid].buf)
		thr_start(tid, vnow);
	cur = &thr[tid];
	if (!cur->lwp)
		cur->lwp = VG_(gettid)();
}

static void mps_stop_client(ThreadId tid, ULong blocks)
{
	(void)tid, (void)blocks;
	flush(False);
}

void mps_thread_info(ThreadId tid, ULong *time, UInt *lwp)
{
	const struct thr *t = tid < MAX_THREADS ? &thr[tid] : NULL;
	*time = t ? t->clock : vnow;
	*lwp = t ? (UInt)t->lwp : 0;
}

/* futex operations (linux/futex.h, without the PRIVATE and CLOCK_REALTIME flags) */
enum { FX_WAIT = 0, FX_WAKE = 1, FX_REQUEUE = 3, FX_CMP_REQUEUE = 4, FX_WAKE_OP = 5,
       FX_UNLOCK_PI = 7, FX_WAIT_BITSET = 9, FX_WAKE_BITSET = 10 };

/* A thread in a system call holds nobody back (it may sleep for long), except once a futex
 * wake by another thread has woken it: it resumes at the waker's time, and the others
 * wait for it there. */
static void mps_pre_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs)
{
	if (tid >= MAX_THREADS)
		return;
	struct thr *t = &thr[tid];
	UWord op = nargs >= 2 ? args[1] & 127 : ~0UL;
	t->blocked = True;
	t->woken = False;
	t->futex = no == __NR_futex && (op == FX_WAIT || op == FX_WAIT_BITSET) ? args[0] : 0;
}

static void wake_waiters(struct thr *waker, Addr futex)
{
	for (Int k = 1; k <= max_tid; k++) {
		struct thr *o = &thr[k];
		if (o == waker || !o->alive || !o->blocked || o->futex != futex || !futex)
			continue;
		o->woken = True;
		if (o->clock < waker->clock) {
			o->clock = waker->clock;
			if (o->n == o->head)
				o->ptime = o->clock;
		}
	}
}

static void mps_post_syscall(ThreadId tid, UInt no, UWord *args, UInt nargs, SysRes res)
{
	(void)no, (void)args, (void)nargs, (void)res;
	if (tid >= MAX_THREADS)
		return;
	struct thr *t = &thr[tid];
	t->blocked = False;
	t->woken = False;
	t->futex = 0;
	/* A wake that woke nobody in the kernel (0) still wakes the threads that announced a
	 * wait on that futex here: they are between their pre-syscall and the kernel, will
	 * find the futex changed and come back at once (EAGAIN). Ignoring them let the waker
	 * run its whole slice alone (falseshare's barrier: HITM 1 instead of 60,000, in about
	 * one run of three on a loaded machine). */
	if (no == __NR_futex && nargs >= 2 && !sr_isError(res)) {
		UWord op = args[1] & 127;
		if (op == FX_WAKE || op == FX_WAKE_BITSET || op == FX_REQUEUE ||
		    op == FX_CMP_REQUEUE || op == FX_WAKE_OP || op == FX_UNLOCK_PI)
			wake_waiters(t, args[0]);
		if ((op == FX_REQUEUE || op == FX_CMP_REQUEUE || op == FX_WAKE_OP) && nargs >= 5)
			wake_waiters(t, args[4]);
	}
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
	/* time went on while it slept */
	if (t->clock < vnow) {
		t->clock = vnow;
		if (t->n == t->head)
			t->ptime = vnow;
	}
}

/* A forked child counts from zero (its parent's counts are the parent's). */
static void mps_fork_child(ThreadId tid)
{
	(void)tid;
	for (Word k = 0; k < VG_(sizeXA)(ins_all); k++) {
		struct ins *ii = *(struct ins **)VG_(indexXA)(ins_all, k);
		VG_(memset)(ii->v, 0, sizeof(ii->v));
	}
	for (Int k = 0; k < MAX_THREADS; k++) {
		thr[k].n = thr[k].head = 0;
		thr[k].lwp = 0;
	}
	/* its memory samples go to a file of its own */
	if (mem_fd >= 0)
		VG_(close)(mem_fd);
	mem_fd = -1;
	mem_n = 0;
	mem_loads = mem_stores = 0;
	mps_alloc_fork_child();
}

/* ---- output --------------------------------------------------------------------------- */
struct out {
	Int fd;
	HChar buf[65536];
	Int n;
};

static void out_flush(struct out *o)
{
	if (o->n && o->fd >= 0)
		VG_(write)(o->fd, o->buf, o->n);
	o->n = 0;
}

static void out_printf(struct out *o, const HChar *fmt, ...) PRINTF_CHECK(2, 3);
static void out_printf(struct out *o, const HChar *fmt, ...)
{
	va_list ap;
	if (o->n > (Int)sizeof(o->buf) - 4096)
		out_flush(o);
	va_start(ap, fmt);
	o->n += (Int)VG_(vsnprintf)(o->buf + o->n, (Int)sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (o->n >= (Int)sizeof(o->buf))
		o->n = (Int)sizeof(o->buf) - 1;
}

static void out_cache(struct out *o, const HChar *name, const struct cache_cfg *c)
{
	out_printf(o, "desc: %s cache: %lld B, %d B, %d-way associative\n", name, c->size, c->line,
		   c->assoc);
}

static Int cmp_ins(const void *a, const void *b)
{
	const struct ins *x = *(const struct ins *const *)a, *y = *(const struct ins *const *)b;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->rel != y->rel)
		return x->rel < y->rel ? -1 : 1;
	return 0;
}

static void mps_fini(Int exitcode)
{
	(void)exitcode;
	flush(True);
	mps_alloc_fini();
	if (clo_mem_period) {
		struct memrec *r = &mem_buf[mem_n++];
		VG_(memset)(r, 0, sizeof(*r));
		r->ip = mem_loads;
		r->addr = mem_stores;
		r->weight = (UInt)clo_mem_period;
		r->tid = (UInt)clo_ldlat;
		mem_flush();
		VG_(close)(mem_fd);
		mem_fd = -1;
	}
	HChar *path = VG_(expand_file_name)("--out-file", clo_out);
	SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
	if (sr_isError(sr)) {
		VG_(umsg)("mpsim: cannot write %s\n", path);
		return;
	}
	struct out *o = VG_(malloc)("mpsim.out", sizeof(*o));
	o->fd = (Int)sr_Res(sr);
	o->n = 0;
	out_printf(o, "# callgrind format\nversion: 1\ncreator: memprof-sim-1\n");
	out_printf(o, "pid: %d\ncmd: %s", VG_(getpid)(), VG_(args_the_exename));
	for (Word k = 0; k < VG_(sizeXA)(VG_(args_for_client)); k++)
		out_printf(o, " %s", *(HChar **)VG_(indexXA)(VG_(args_for_client), k));
	out_printf(o, "\n");
	out_cache(o, "I1", &clo_i1);
	out_cache(o, "D1", &clo_d1);
	out_cache(o, "LL", &clo_ll);
	out_printf(o, "desc: Cores: %d\n", clo_cores);
	out_printf(o, "desc: TLBs: ITLB %d,%d DTLB %d,%d STLB %d,%d page %d\n", clo_itlb.entries,
		   clo_itlb.assoc, clo_dtlb.entries, clo_dtlb.assoc, clo_stlb.entries,
		   clo_stlb.assoc, clo_page);
	out_printf(o, "desc: Latencies: L2 %d memory %d HITM %d STLB %d walk %d\n", lat_l2,
		   lat_mem, lat_hitm, lat_stlb, lat_walk);
	out_printf(o, "positions: instr\nevents:");
	for (Int q = 0; q < NQ; q++)
		out_printf(o, " %s", q_names[q]);
	/* no source positions (memprof finds lines from the addresses); callgrind_annotate
	 * wants a file name */
	out_printf(o, "\nfl=(1) ???\n");

	VG_(sortXA)(ins_all);
	ULong tot[NQ] = { 0 };
	UInt last_obj = ~0u, last_fn = ~0u;
	HChar **on = VG_(indexXA)(objs, 0);
	HChar **fnn = VG_(sizeXA)(fns) ? VG_(indexXA)(fns, 0) : NULL;
	UChar *ob_done = VG_(calloc)("mpsim.done", (SizeT)VG_(sizeXA)(objs) + 1, 1);
	UChar *fn_done = VG_(calloc)("mpsim.done", (SizeT)VG_(sizeXA)(fns) + 1, 1);
	for (Word k = 0; k < VG_(sizeXA)(ins_all); k++) {
		struct ins *ii = *(struct ins **)VG_(indexXA)(ins_all, k);
		Bool any = False;
		for (Int q = 0; q < NQ; q++)
			any |= ii->v[q] != 0;
		if (!any)
			continue;
		/* names numbered, "(N) name" the first time and "(N)" after: a name may
		 * itself start with '(' ("(below main)") */
		if (ii->obj != last_obj) {
			if (ob_done[ii->obj])
				out_printf(o, "ob=(%u)\n", ii->obj + 1);
			else
				out_printf(o, "ob=(%u) %s\n", ii->obj + 1, on[ii->obj]);
			ob_done[ii->obj] = 1;
			last_obj = ii->obj;
			last_fn = ~0u;
		}
		if (ii->fn != last_fn) {
			if (fn_done[ii->fn])
				out_printf(o, "fn=(%u)\n", ii->fn + 1);
			else
				out_printf(o, "fn=(%u) %s\n", ii->fn + 1, fnn[ii->fn]);
			fn_done[ii->fn] = 1;
			last_fn = ii->fn;
		}
		ii->v[Q_CYC] += ii->v[Q_IR]; /* one cycle per instruction */
		out_printf(o, "0x%lx", ii->rel);
		for (Int q = 0; q < NQ; q++) {
			out_printf(o, " %llu", ii->v[q]);
			tot[q] += ii->v[q];
		}
		out_printf(o, "\n");
	}
	out_printf(o, "totals:");
	for (Int q = 0; q < NQ; q++)
		out_printf(o, " %llu", tot[q]);
	out_printf(o, "\n");
	out_flush(o);
	VG_(free)(ob_done);
	VG_(free)(fn_done);
	VG_(close)(o->fd);
	VG_(free)(o);
}

/* ---- start-up ------------------------------------------------------------------------- */
static void mps_post_clo_init(void)
{
	/* one guest block at a time, as callgrind: VEX's block shapes decide which
	 * conditional branch may come inverted */
	VG_(clo_vex_control).guest_chase = False;
	min_line = clo_i1.line;
	if (clo_d1.line < min_line)
		min_line = clo_d1.line;
	if (clo_ll.line < min_line)
		min_line = clo_ll.line;
	if (clo_cores > 1 && (clo_d1.line != clo_ll.line || clo_i1.line != clo_ll.line))
		VG_(fmsg_bad_option)("--cores", "more than one core needs one line size in "
				     "--I1, --D1 and --LL\n");
	cores = VG_(calloc)("mpsim.cores", (SizeT)clo_cores, sizeof(*cores));
	core_used = VG_(calloc)("mpsim.used", (SizeT)clo_cores, 1);
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
	}
	ins_hash = VG_(calloc)("mpsim.hash", INS_HASH, sizeof(*ins_hash));
	ins_all = VG_(newXA)(VG_(malloc), "mpsim.insall", VG_(free), sizeof(struct ins *));
	VG_(setCmpFnXA)(ins_all, cmp_ins);
	objs = VG_(newXA)(VG_(malloc), "mpsim.objs", VG_(free), sizeof(HChar *));
	fns = VG_(newXA)(VG_(malloc), "mpsim.fns", VG_(free), sizeof(HChar *));
	if (clo_mem_period) {
		mem_buf = VG_(malloc)("mpsim.mem", MEM_BUF * sizeof(*mem_buf));
		ld_left = st_left = clo_mem_period;
	}
	thr_start(1, 0);
	cur = &thr[1];
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
	VG_(needs_syscall_wrapper)(mps_pre_syscall, mps_post_syscall);
	VG_(track_pre_thread_ll_create)(mps_thread_create);
	VG_(track_pre_thread_ll_exit)(mps_thread_exit);
	VG_(track_start_client_code)(mps_start_client);
	VG_(track_stop_client_code)(mps_stop_client);
	VG_(atfork)(NULL, NULL, mps_fork_child);
	mps_alloc_pre_clo_init();
}

VG_DETERMINE_INTERFACE_VERSION(mps_pre_clo_init)
