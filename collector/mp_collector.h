/* mp_collector.h - the collector module: open one event group for a workload, drain the
 * ring buffers, and write a perf.data (PERFILE2) file that `perf report` reads.
 *
 * Two parts:
 *  - mp_pdw_*: a perf.data writer, also used by the simulator (record --sim) and by tests
 *    that write files with known contents.
 *  - mp_record_run / mp_stat_run: the sampling and counting runs behind `memprof record`
 *    and `memprof stat`.
 */
#ifndef MP_COLLECTOR_H
#define MP_COLLECTOR_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp_events.h"
#include "mp_util.h"

/* ---- perf.data writer -------------------------------------------------------------- */

typedef struct mp_pdw mp_pdw;

/* Create a writer that writes to path. Data goes to "path.tmp" (same directory) and is
 * renamed to path by mp_pdw_close(): a failed run leaves no half-written file at path.
 * If the process dies mid-run, the .tmp file is still a readable perf.data file up to the
 * last mp_pdw_sync() (the header is rewritten there). NULL on error (err set). */
mp_pdw *mp_pdw_create(const char *path, struct mp_err *err);

/* Add an event attribute with its sample ids. attr is copied, and written with
 * attr.size <= 128 (perf 6.1 refuses larger ones in file mode). name is the EVENT_DESC
 * name (the resolved name); spec is what the user wrote (kept in memprof's own feature).
 * Returns the attribute's index. */
int mp_pdw_add_attr(mp_pdw *w, const struct perf_event_attr *attr, const uint64_t *ids,
		    size_t nids, const char *name, const char *spec);

/* Append one perf record (struct perf_event_header first, header.size bytes). */
int mp_pdw_write(mp_pdw *w, const void *rec, size_t len);

/* String features: HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_ARCH, HEADER_CPUDESC,
 * HEADER_CPUID, HEADER_VERSION. Fill from uname()/cpuinfo with mp_pdw_set_host_features(). */
int mp_pdw_set_string(mp_pdw *w, int feature, const char *value);
int mp_pdw_set_host_features(mp_pdw *w);
int mp_pdw_set_cmdline(mp_pdw *w, int argc, char *const argv[]);
int mp_pdw_set_nrcpus(mp_pdw *w, uint32_t online, uint32_t avail);

/* Build-id of an object that got samples (HEADER_BUILD_ID). */
int mp_pdw_add_build_id(mp_pdw *w, pid_t pid, int cpumode, const uint8_t *id, size_t id_len,
			const char *filename);
/* Read the build-id of every MMAP'ed object named in the data written so far whose
 * samples hit it, and add it. Called by mp_pdw_close() unless disabled. */
void mp_pdw_set_auto_build_ids(mp_pdw *w, int on);

/* pid/tid written into the PERF_RECORD_READ records of mp_pdw_add_counts() (the
 * workload's pid; -1 = none, the default). */
void mp_pdw_set_read_pid(mp_pdw *w, pid_t pid);

/* Exact final counts of an event (value, time enabled, time running), stored in the file
 * (PERF_RECORD_READ per event id at the end of data, and memprof's counts feature). */
int mp_pdw_add_counts(mp_pdw *w, int attr_idx, uint64_t id, uint64_t value, uint64_t ena,
		      uint64_t run);

/* Header feature bit of memprof's own section (key=value lines, see collector/README.md).
 * perf ignores feature bits it does not know. */
#define MP_PDW_FEAT_MEMPROF 200

/* memprof key=value metadata kept in memprof's own feature section, e.g.
 * "simulated"="callgrind", "sim.D1"="32768,8,64". perf ignores it. */
int mp_pdw_set_meta(mp_pdw *w, const char *key, const char *value);

/* Rewrite the header so the file is readable as it stands now. */
int mp_pdw_sync(mp_pdw *w, struct mp_err *err);
/* Write features and header, close, rename .tmp to path. 0 or negative code. */
int mp_pdw_close(mp_pdw *w, struct mp_err *err);
/* Close and delete the .tmp file (a run that never started). NULL-safe. */
void mp_pdw_abort(mp_pdw *w);

/* ---- record / stat ------------------------------------------------------------------ */

struct mp_record_opts {
	struct mp_event *events;  /* borrowed */
	size_t nevents;
	const char *output;       /* perf.data path */
	char *const *argv;        /* workload; NULL with pid or system_wide */
	pid_t pid;                /* -p PID, 0 = none */
	int system_wide;          /* -a */
	int callgraph;            /* -g: PERF_SAMPLE_CALLCHAIN */
	int no_inherit;           /* -i/--no-inherit */
	unsigned mmap_pages;      /* ring size per buffer in pages (power of two), 0 = default */
	int quiet;
	volatile sig_atomic_t *stop; /* set by the CLI's SIGINT/SIGTERM handler */
	int argc_all; char *const *argv_all; /* memprof's own command line for HEADER_CMDLINE */
	const struct mp_evopts *evopts; /* how the events were parsed (for error messages);
					   may be NULL */
};

struct mp_event_result {
	uint64_t samples, lost, throttled;
	uint64_t value, ena, run;  /* exact final counts */
};

struct mp_record_result {
	struct mp_event_result *ev; /* nevents entries, malloc'd; free() */
	uint64_t lost_total;
	int workload_status;        /* wait() status; exit code = mp_exit_code(status) */
	int workload_started;
	uint64_t bytes_written;
	uint64_t wall_ns;           /* from the workload's start to the end of the run */
	int exec_errno;             /* the workload could not be started: execvp's errno */
};

/* What the kernel allows, read before a run (perf_event_paranoid, kptr_restrict, PMUs
 * under /sys/bus/event_source/devices). */
struct mp_precheck {
	int paranoid;          /* kernel.perf_event_paranoid, -100 when unreadable */
	int kptr_restrict;     /* kernel.kptr_restrict, -1 when unreadable */
	int privileged;        /* root, CAP_PERFMON or CAP_SYS_ADMIN */
	int kernel_syms;       /* /proc/kallsyms gives real addresses (read only when an
				* event can sample the kernel: exclude_kernel not set) */
	uint64_t kernel_text;  /* _text (or _stext) from /proc/kallsyms, 0 when unknown */
	int hw_pmu;            /* a hardware PMU (cpu, cpu_core, armv8_*, ...) exists */
	char pmus[256];        /* space-separated PMU names */
};

/* Fill pc. Returns 0, or a negative code with err saying in one line why the run cannot
 * work as asked and the sysctl that fixes it (e.g. -a with perf_event_paranoid > 0 for an
 * unprivileged user). Warnings that do not stop the run go to mp_log(MP_LOG_WARN). */
int mp_collector_precheck(const struct mp_event *evs, size_t n, int system_wide,
			  struct mp_precheck *pc, struct mp_err *err);

int mp_record_run(const struct mp_record_opts *o, struct mp_record_result *res,
		  struct mp_err *err);

struct mp_stat_opts {
	struct mp_event *events;
	size_t nevents;
	char *const *argv;
	pid_t pid;
	int system_wide;
	int no_inherit;
	volatile sig_atomic_t *stop;
};

int mp_stat_run(const struct mp_stat_opts *o, struct mp_record_result *res, struct mp_err *err);

/* 128+signal for a killed workload, else its exit code. */
int mp_exit_code(int wait_status);

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
	uint64_t config;    /* event when it is one, else PERF_TYPE_RAW with config = mask */
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
/* Comma-separated list; *out malloc'd (free()), *n entries. */
int mp_sim_events_parse(const char *list, struct mp_sim_event **out, size_t *n,
			struct mp_err *err);
/* The events recorded when --sim is given without -e: everything callgrind counts, by
 * its own names (the ratio definitions' "cachegrind" variants use them). */
#define MP_SIM_DEFAULT_EVENTS "Ir,Dr,Dw,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw,Bc,Bcm,Bi,Bim"

/* One simulated cache: total bytes, ways, line bytes (valgrind's --D1=SIZE,ASSOC,LINE). */
struct mp_sim_cache {
	uint64_t size;
	uint32_t assoc, line;
};
struct mp_sim_geometry {
	struct mp_sim_cache i1, d1, ll; /* size 0 = let valgrind choose */
};

/* Parse "SIZE,ASSOC,LINE" (SIZE may end in K or M) and check it the way valgrind does
 * (power-of-two set count and line size, line >= 16). what names the option in err. */
int mp_sim_parse_cache(const char *what, const char *s, struct mp_sim_cache *c,
		       struct mp_err *err);
/* Read L1d, L1i and L2 of cpu0 from dir (NULL = /sys/devices/system/cpu/cpu0/cache).
 * Caches that are missing or that valgrind could not simulate are left at size 0 and
 * named in err (code 0 when something was found; callers may show it as a warning). */
int mp_sim_host_geometry(const char *dir, struct mp_sim_geometry *g, struct mp_err *err);

/* A parsed callgrind output file (positions: instr ...). Costs are self costs per
 * (object, instruction address), summed over functions and contexts; the inclusive cost
 * lines after calls=/jump= are skipped. Addresses are as callgrind wrote them: relative
 * to the object's load bias (for "???" objects, absolute). */
typedef struct mp_sim_profile mp_sim_profile;
struct mp_sim_cost {
	uint32_t obj;                 /* index into the objects */
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
	int quiet;
	volatile sig_atomic_t *stop; /* SIGINT/SIGTERM flag, forwarded to valgrind */
	int argc_all; char *const *argv_all; /* memprof's own command line */
};

struct mp_sim_result {
	uint64_t *totals;         /* nevents entries, malloc'd; free() */
	uint64_t samples;         /* sample records written */
	int workload_status;      /* wait() status of valgrind, which exits as the workload */
	int workload_started;
};

/* Write the perf.data file o->output from a parsed profile and the load biases (loads
 * may be NULL: objects are then placed at synthetic bases). res->totals filled. */
int mp_sim_write(const struct mp_sim_opts *o, const mp_sim_profile *p,
		 const struct mp_sim_load *loads, size_t nloads, struct mp_sim_result *res,
		 struct mp_err *err);

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
