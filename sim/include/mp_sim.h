/* mp_sim.h - the sim module: the simulated PMU behind `memprof record --sim`. Runs the
 * workload under valgrind's callgrind and writes what it counted as a perf.data file
 * through perfdata/'s writer (mp_pdw_*).
 */
#ifndef MP_SIM_H
#define MP_SIM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mp_perfdata.h"
#include "mp_util.h"

/* ---- simulated PMU (memprof record --sim) -------------------------------------------- */
/* On machines without hardware counters, memprof runs the workload under valgrind's
 * callgrind with cache and branch simulation and turns its exact per-instruction counts
 * into a perf.data file: one attr per requested event, one sample per (instruction
 * address, event) whose period is the simulated count there, COMM and MMAP2 records that
 * place the objects where valgrind loaded them, exact totals (mp_pdw_add_counts), and the
 * meta keys "simulated"="callgrind", "sim.I1"/"sim.D1"/"sim.LL"="SIZE,ASSOC,LINE" (the
 * geometry callgrind simulated; LL is this machine's L2), "sim.valgrind" (version) and
 * "sim.event.NAME"="D1mr+D1mw" (what each event is made of). */

/* What callgrind counts, in the order of its events: line. */
enum mp_sim_quantity {
	MP_SIM_IR,   /* instructions executed */
	MP_SIM_DR,   /* data reads */
	MP_SIM_DW,   /* data writes */
	MP_SIM_I1MR, /* L1 instruction read misses */
	MP_SIM_D1MR, /* L1 data read misses */
	MP_SIM_D1MW, /* L1 data write misses */
	MP_SIM_ILMR, /* last-level instruction read misses */
	MP_SIM_DLMR, /* last-level data read misses */
	MP_SIM_DLMW, /* last-level data write misses */
	MP_SIM_BC,   /* conditional branches executed */
	MP_SIM_BCM,  /* conditional branches mispredicted */
	MP_SIM_BI,   /* indirect branches executed */
	MP_SIM_BIM,  /* indirect branches mispredicted */
	MP_SIM_NCG,  /* the quantities above are callgrind's; those below only mpsim's */
	MP_SIM_HITM = MP_SIM_NCG, /* loads that found their line Modified in another core */
	MP_SIM_INV,  /* copies in other cores invalidated by writes */
	MP_SIM_ITLBM, /* instruction fetches that missed the first-level ITLB */
	MP_SIM_DTLBM, /* data accesses that missed the first-level DTLB */
	MP_SIM_STLBM, /* misses of the second-level TLB (page walks) */
	MP_SIM_PFX,  /* software prefetches executed */
	MP_SIM_PFM,  /* software prefetches that brought a line into L1d (useful) */
	MP_SIM_PFL,  /* loads that found their line still coming from a prefetch (late) */
	MP_SIM_CYC,  /* cycles of the latency model: one per instruction plus load and fetch
		      * miss latencies */
	MP_SIM_IFST, /* of those, cycles instruction fetches waited (I1, L2, ITLB misses) */
	MP_SIM_L3M,  /* misses of the L3 the cores share (the tool's --L3), code and data */
	MP_SIM_NQ
};

/* callgrind's name of a quantity ("Ir", "D1mr"); NULL out of range. */
const char *mp_sim_quantity_name(int q);

/* A requested event and the sum of simulated quantities it stands for. */
struct mp_sim_event {
	char spec[256];     /* as the user wrote it */
	char name[64];      /* canonical name written to the file ("L1D_REPL", "instructions") */
	uint32_t mask;      /* bit (1u << MP_SIM_*) for each quantity summed */
	char formula[64];   /* "D1mr+D1mw" */
	uint32_t type;      /* perf_event_attr type/config written for it: perf's generic */
	uint64_t config;    /* event when it is one, else PERF_TYPE_RAW with config =
			     * mp_pmu_sim_config(mask) */
};

/* Parse one event spec for the simulator: callgrind's quantity names (Ir, D1mr, ...),
 * the article's aliases (INST_RETIRED, L1D_REPL, L1I_MISSES, L2_LINES_IN, L1D_CACHE_LD,
 * BR_INST_RETIRED, ... with or without their .SUFFIX, or libpfm4's :SUFFIX) and perf's
 * generic names (instructions, branches, branch-misses, cache-references, cache-misses,
 * L1-dcache-loads, L1-dcache-load-misses, ...), case-insensitive, with an optional :u
 * modifier or oprofile :COUNT:... fields (ignored: the counts are exact). Events the
 * simulator cannot give (cycles, TLB, prefetch, stall events, kernel-only counting) fail
 * with MP_ENOTSUP and a message saying why. */
int mp_sim_event_parse(const char *spec, struct mp_sim_event *ev, struct mp_err *err);
/* memprof list's section of simulated events to f: callgrind's quantities with what they
 * count, the other names they answer to, and what cannot be simulated and why; those
 * matching pattern (a case-insensitive substring; NULL = all). The number of names matched (0:
 * nothing printed), or -EIO. */
int mp_sim_list(FILE *f, const char *pattern);
/* Comma-separated list; *out malloc'd (free()), *n entries. */
int mp_sim_events_parse(const char *list, struct mp_sim_event **out, size_t *n,
			struct mp_err *err);
/* The events recorded when --sim is given without -e: everything callgrind counts, by
 * its own names (the ratio definitions' "cachegrind" variants use them); MP_SIM_NCG of
 * them. */
#define MP_SIM_DEFAULT_EVENTS "Ir,Dr,Dw,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw,Bc,Bcm,Bi,Bim"
/* ... and when memprof's valgrind tool runs: also everything it counts besides */
#define MP_SIM_DEFAULT_EVENTS_MPSIM MP_SIM_DEFAULT_EVENTS \
	",HITM,Inv,ITLBm,DTLBm,STLBm,PFx,PFm,PFl,Cyc,IFst"

/* One simulated cache: total bytes, ways, line bytes (valgrind's --D1=SIZE,ASSOC,LINE). */
struct mp_sim_cache {
	uint64_t size;
	uint32_t assoc, line;
};
struct mp_sim_geometry {
	struct mp_sim_cache i1, d1, ll; /* size 0 = let valgrind choose */
	char source[96];  /* where mp_sim_host_geometry() found them: "sysfs", "CPUID leaf 4",
			     "sysfs and CPUID leaves 0x80000005/0x80000006", ...; "" for none */
};

/* Parse "SIZE,ASSOC,LINE" (SIZE may end in K or M) and check it the way valgrind does
 * (power-of-two set count and line size, line >= 16). what names the option in err. */
int mp_sim_parse_cache(const char *what, const char *s, struct mp_sim_cache *c,
		       struct mp_err *err);
/* Read L1d, L1i and L2 of cpu0 from dir (NULL = /sys/devices/system/cpu/cpu0/cache, and
 * for caches sysfs lacks, this CPU's CPUID: mp_sim_cpuid_read + mp_sim_cpuid_geometry).
 * Caches that are missing or that valgrind could not simulate are left at size 0 and
 * named in err (code 0 when something was found; callers may show it as a warning).
 * g->source says where the caches came from. */
int mp_sim_host_geometry(const char *dir, struct mp_sim_geometry *g, struct mp_err *err);
/* This machine's level 3 unified cache from sysfs (dir, or NULL for cpu0's) into *c, for
 * mpsim's L3 all cores share (record --sim --L3 host). -ENOENT when there is none, -EINVAL
 * when valgrind's rules cannot simulate it (sets not a power of two): err names the
 * folder and why. */
int mp_sim_host_l3(const char *dir, struct mp_sim_cache *c, struct mp_err *err);

/* One CPUID answer (x86): the leaf and subleaf asked, and EAX..EDX. */
struct mp_sim_cpuid {
	uint32_t leaf, sub;
	uint32_t eax, ebx, ecx, edx;
};
/* Ask this CPU the leaves mp_sim_cpuid_geometry() decodes (0, 4, 0x80000001, 0x80000005,
 * 0x80000006, 0x8000001D, as far as the CPU has them). Fills at most max answers and
 * returns their number (0 on CPUs other than x86). */
size_t mp_sim_cpuid_read(struct mp_sim_cpuid *r, size_t max);
/* Decode L1i, L1d and L2 from CPUID answers (leaf 0's vendor; Intel: leaf 4; AMD and
 * Hygon: leaf 0x8000001D when 0x80000001 says it exists, then 0x80000005/0x80000006),
 * filling only the caches of g that are still size 0 and that valgrind can simulate, and
 * appending the leaves used to g->source. Returns the number of caches filled, or
 * -ENOENT with err saying why none was. */
int mp_sim_cpuid_geometry(const struct mp_sim_cpuid *r, size_t n, struct mp_sim_geometry *g,
			  struct mp_err *err);

/* A parsed callgrind output file (positions: instr ...). Costs are self costs per
 * (object, instruction address), summed over functions and contexts; the inclusive cost
 * lines after calls=/jump= are skipped. Addresses are as callgrind wrote them: relative
 * to the object's load bias (for "???" objects, absolute). */
typedef struct mp_sim_profile mp_sim_profile;
struct mp_sim_cost {
	uint32_t obj;                 /* index into the objects */
	uint32_t fn;                  /* the function (fn=) whose cost line it was, first seen;
				       * UINT32_MAX when none */
	uint64_t addr;
	uint64_t v[MP_SIM_NQ];
};
/* NULL + err ("F:123: bad position '+x'") on error. Checks the sum of the self costs
 * against the file's totals: line. */
mp_sim_profile *mp_sim_profile_read(const char *path, struct mp_err *err);
void mp_sim_profile_free(mp_sim_profile *p); /* NULL-safe */
size_t mp_sim_profile_nobjs(const mp_sim_profile *p);
const char *mp_sim_profile_obj(const mp_sim_profile *p, size_t i); /* borrowed */
/* Costs sorted by (object, address), borrowed until _free. */
size_t mp_sim_profile_ncosts(const mp_sim_profile *p);
const struct mp_sim_cost *mp_sim_profile_costs(const mp_sim_profile *p);
/* callgrind's call graph: one entry per (caller function, call site, callee function),
 * from its calls= lines, with the call's inclusive cost (summed over its contexts). */
struct mp_sim_call {
	uint32_t caller, callee;      /* function indexes (mp_sim_profile_fn) */
	uint32_t obj;                 /* the caller's object */
	uint64_t addr;                /* the call instruction, as cost addresses are */
	uint64_t calls;               /* how many times */
	uint64_t v[MP_SIM_NQ];        /* inclusive cost */
};
size_t mp_sim_profile_nfns(const mp_sim_profile *p);
const char *mp_sim_profile_fn(const mp_sim_profile *p, size_t i); /* borrowed */
size_t mp_sim_profile_ncalls(const mp_sim_profile *p);
const struct mp_sim_call *mp_sim_profile_calls(const mp_sim_profile *p); /* borrowed */
/* Sum of self costs per quantity (MP_SIM_NQ entries). */
const uint64_t *mp_sim_profile_totals(const mp_sim_profile *p);
/* 1 when the file's events: line has quantity q. */
int mp_sim_profile_has(const mp_sim_profile *p, int q);
uint32_t mp_sim_profile_pid(const mp_sim_profile *p);
/* The cache geometry from the file's "desc: D1 cache: 32768 B, 64 B, 8-way" lines
 * (size 0 when absent), and the creator ("callgrind-3.19.0"). */
const struct mp_sim_geometry *mp_sim_profile_geometry(const mp_sim_profile *p);
const char *mp_sim_profile_creator(const mp_sim_profile *p);
/* The profiled command line from the cmd: line ("" when absent). */
const char *mp_sim_profile_cmd(const mp_sim_profile *p);

/* Where valgrind loaded an object: from `valgrind -v -v` "Reading syms from PATH"
 * followed by "svma 0x..., avma 0x..." (bias = avma - svma). */
struct mp_sim_load {
	char *path;
	uint64_t bias;
};
/* Parse a valgrind log file; *out malloc'd (free with mp_sim_loads_free). */
int mp_sim_read_log(const char *path, struct mp_sim_load **out, size_t *n,
		    struct mp_err *err);
void mp_sim_loads_free(struct mp_sim_load *l, size_t n);

struct mp_sim_opts {
	const struct mp_sim_event *events; /* borrowed */
	size_t nevents;
	const char *output;       /* perf.data path */
	char *const *argv;        /* workload */
	struct mp_sim_geometry geom; /* size 0 entries: valgrind's own choice */
	const char *valgrind;     /* NULL = "valgrind" from PATH */
	const char *keep_callgrind; /* copy callgrind's output here, or NULL */
	int callgraph;            /* -g: each sample carries a call chain made from callgrind's
				   * call graph (PERF_SAMPLE_CALLCHAIN) */
	int quiet;
	volatile sig_atomic_t *stop; /* SIGINT/SIGTERM flag, forwarded to valgrind */
	int argc_all; char *const *argv_all; /* memprof's own command line */
	/* called every progress_every seconds while valgrind runs (NULL: never) */
	void (*progress)(void *ctx, unsigned seconds);
	void *progress_ctx;
	unsigned progress_every;
	int engine;               /* MP_SIM_ENGINE_* */
	unsigned cores;           /* simulated cores (mpsim; 0 = this machine's CPUs) */
	const char *tool_opts;    /* more options for mpsim, separated by spaces, or NULL */
	/* Memory samples (record --sim -d, c2c record --sim; mpsim only): a sample every
	 * mem_period loads (of those waiting ldlat cycles or more) and every mem_period
	 * stores, as perf's cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P samples with IP,
	 * TID, TIME, ADDR, CPU (the simulated core), PERIOD, WEIGHT (the latency model's
	 * cycles) and DATA_SRC (load/store, L1/LFB/L2/L3/RAM, snoop HitM or Hit from a peer
	 * core, DTLB, lock), which memprof report --mem-mode, memprof c2c report, perf mem
	 * report and perf c2c report read. 0: none. With it, nevents may be 0 (memory
	 * samples only). */
	uint64_t mem_period;
	unsigned ldlat;
	/* Allocation tracking (mpsim only): the workload's malloc, calloc, realloc, memalign,
	 * free, new and delete go through valgrind's replacement malloc (so their own
	 * instructions are no longer simulated: the counts then differ from callgrind's by
	 * them), and each call is written as perfdata's allocation records (MP_HEADER_ALLOC:
	 * time on the samples' clock, address, size, thread, call site). */
	int allocs;
};

/* The options c2c record --sim gives: memory samples every period accesses (0: 1009),
 * every load (ldlat 0), two cores at least, mpsim, allocation tracking (allocs), and no
 * exact-count events but those of evs (may be NULL, n 0). Fills o's memory fields, cores,
 * engine and allocs; the caller fills the rest
 * (output, argv, geometry from mp_sim_setup()) and calls mp_sim_record(). */
void mp_sim_c2c_opts(struct mp_sim_opts *o, uint64_t period);
/* The default period of memory samples: a prime, so that it does not beat with a loop's
 * accesses (every 4th load of a loop sampled every 1000 would always be the same one). */
#define MP_SIM_MEM_PERIOD 1009

/* One sampled access, as mpsim writes them (--mem-out; 48 bytes, host byte order). */
struct mp_sim_memrec {
	uint64_t ip, addr, time; /* time: the thread's virtual time (instructions) */
	uint32_t tid, cpu, weight;
	uint8_t op;    /* 1 load, 2 store; 0 the file's last record: ip = loads counted,
			* addr = stores counted, weight = period, tid = ldlat */
	uint8_t lvl;   /* MP_SIM_ML_* */
	uint8_t snoop; /* MP_SIM_MS_* */
	uint8_t tlb;   /* 1 DTLB hit, 2 second-level TLB hit, 3 page walk */
	uint8_t lock;
	uint8_t pad[7];
};
enum { MP_SIM_ML_LFB, MP_SIM_ML_L1, MP_SIM_ML_L2, MP_SIM_ML_PEER, MP_SIM_ML_MEM, MP_SIM_ML_L3 };
enum { MP_SIM_MS_NONE, MP_SIM_MS_HIT, MP_SIM_MS_HITM };
/* perf's data_src word of a sampled access: loads by where their data came from (L1,
 * LFB for a line a prefetch was still bringing, L2, L3 with snoop HitM or Hit and snoopx
 * Peer for another core's copy, as Intel reports a cross-core hit, local RAM with snoop
 * Miss), stores as L1 hit or miss (as Intel's precise stores), DTLB L1/L2 hit or walker
 * miss, lock. */
uint64_t mp_sim_mem_datasrc(const struct mp_sim_memrec *r);
/* Read mpsim's memory samples: *recs malloc'd (free()), *n of them, *loads and *stores
 * the accesses counted (from the last record); *period and *ldlat as mpsim used them.
 * err: "F: 100 bytes: not whole records" and the like. */
int mp_sim_mem_read(const char *path, struct mp_sim_memrec **recs, size_t *n, uint64_t *loads,
		    uint64_t *stores, struct mp_err *err);

/* Which simulator runs the workload: memprof's valgrind tool (mpsim, sim/vgtool/) when it
 * is installed, else callgrind (AUTO); or the one named (callgrind stays as a cross-check;
 * -g always uses it, for its call graph). */
enum { MP_SIM_ENGINE_AUTO, MP_SIM_ENGINE_MPSIM, MP_SIM_ENGINE_CALLGRIND };

/* Where memprof's valgrind tool is: $MEMPROF_VGTOOL, else lib/memprof/mpsim-amd64-linux
 * beside the running memprof (the build tree) or under its prefix (bin/../lib/memprof).
 * 0 with path filled, or -ENOENT. */
int mp_sim_tool_path(char *path, size_t len);

struct mp_sim_result {
	uint64_t *totals;         /* nevents entries, malloc'd; free() */
	uint64_t samples;         /* sample records written */
	int workload_status;      /* wait() status of valgrind, which exits as the workload */
	int workload_started;
	uint32_t workload_pid;    /* valgrind's pid, which is the workload's */
	size_t nprocs;            /* processes simulated (the workload and its children) */
	char procs[512];          /* "sh (1234), prog (1235)" when more than one */
	const char *engine;       /* "mpsim" or "callgrind": the simulator that ran */
};

/* Write the perf.data file o->output from a parsed profile and the load biases (loads
 * may be NULL: objects are then placed at synthetic bases). res->totals filled. */
int mp_sim_write(const struct mp_sim_opts *o, const mp_sim_profile *p,
		 const struct mp_sim_load *loads, size_t nloads, struct mp_sim_result *res,
		 struct mp_err *err);

/* The allocation calls of one process as mpsim wrote them (--alloc-out): sites (call
 * chains) and calls, times in the thread's virtual time. */
struct mp_sim_allocs {
	uint64_t *ips;          /* every site's chain, one after another */
	size_t *site_at;        /* [nsites + 1]: site i is ips[site_at[i] .. site_at[i + 1]) */
	size_t nsites;
	struct mp_alloc_rec *recs; /* pid 0 (the process's), site: mpsim's index */
	size_t nrecs;
};
/* Read mpsim's allocation file; a fills (free with mp_sim_allocs_fini). err: "F: byte
 * 123: ..." for what does not parse, a site used before it was given, or no end. */
int mp_sim_allocs_read(const char *path, struct mp_sim_allocs *a, struct mp_err *err);
void mp_sim_allocs_fini(struct mp_sim_allocs *a);

/* One simulated process: its profile and where its objects were loaded. */
struct mp_sim_proc {
	const mp_sim_profile *profile;
	const struct mp_sim_load *loads;
	size_t nloads;
	const struct mp_sim_memrec *mem; /* its memory samples (o->mem_period) */
	size_t nmem;
	uint64_t mem_loads, mem_stores;  /* the accesses they were taken from */
	const struct mp_sim_allocs *allocs; /* o->allocs: its allocation calls, or NULL */
};
/* The same for several processes (a workload and its children, valgrind's
 * --trace-children): one file, each process with its COMM, mappings and samples, the
 * exact totals summed. procs[0] gives the meta data. */
int mp_sim_write_procs(const struct mp_sim_opts *o, const struct mp_sim_proc *procs, size_t n,
		       struct mp_sim_result *res, struct mp_err *err);

/* For memprof record --sim: parse events (NULL = MP_SIM_DEFAULT_EVENTS) into *evs
 * (malloc'd), and set g from this machine's caches (cache_dir, NULL = sysfs), each
 * overridden by i1/d1/ll ("SIZE,ASSOC,LINE" as valgrind's --I1/--D1/--LL, or NULL).
 * A host cache that cannot be read, and is not overridden, is left to valgrind and
 * explained in warn->msg (empty otherwise). */
int mp_sim_setup(const char *events, const char *i1, const char *d1, const char *ll,
		 const char *cache_dir, struct mp_sim_event **evs, size_t *nevs,
		 struct mp_sim_geometry *g, struct mp_err *warn, struct mp_err *err);

/* memprof record --sim: run o->argv under valgrind --tool=callgrind --cache-sim=yes
 * --branch-sim=yes --dump-instr=yes, then mp_sim_write(). The workload's stdout and
 * stderr pass through; valgrind's own messages go to a log file (named in err when
 * valgrind fails). */
int mp_sim_record(const struct mp_sim_opts *o, struct mp_sim_result *res, struct mp_err *err);

#endif
