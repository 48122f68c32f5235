/* mp_collector.h - the collector module: open one event group for a workload, drain the
 * ring buffers, and write a perf.data (PERFILE2) file that `perf report` reads, through
 * perfdata/'s writer (mp_pdw_*, perfdata/include/mp_perfdata.h).
 *
 * mp_record_run / mp_stat_run: the sampling and counting runs behind `memprof record` and
 * `memprof stat`.
 */
#ifndef MP_COLLECTOR_H
#define MP_COLLECTOR_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp_events.h"
#include "mp_perfdata.h"
#include "mp_util.h"

/* ---- record / stat ------------------------------------------------------------------ */

/* How samples get their call chains (perf record --call-graph). */
enum mp_callgraph {
	MP_CG_NONE = 0,
	MP_CG_FP,    /* frame pointers: the kernel walks the chain (PERF_SAMPLE_CALLCHAIN) */
	MP_CG_DWARF, /* + the user registers and a copy of the user stack, unwound later */
	MP_CG_LBR,   /* + the LBR call stack (BRANCH_STACK with CALL_STACK) */
};
#define MP_CG_DWARF_DEFAULT_SIZE 8192u  /* perf's default dump size */
#define MP_CG_DWARF_MAX_SIZE 65528u     /* perf's limit: USHRT_MAX rounded down to 8 */

/* Parse perf's --call-graph value: "fp", "dwarf", "dwarf,SIZE" (rounded up to 8 bytes,
 * at most MP_CG_DWARF_MAX_SIZE) or "lbr". 0, or -EINVAL with err naming the value. */
int mp_callgraph_parse(const char *s, int *mode /* OUT */, uint32_t *stack_size /* OUT */,
		       struct mp_err *err);
/* Set what perf record sets on a sampling attr for mode (sample_type bits,
 * sample_regs_user, sample_stack_user, exclude_callchain_user, branch_sample_type; the
 * record run also sets mmap_data on the tracking event for dwarf, as perf does).
 * stack_size 0 = the default. */
void mp_callgraph_attr(struct perf_event_attr *a, int mode, uint32_t stack_size);

struct mp_record_opts {
	struct mp_event *events;  /* borrowed */
	size_t nevents;
	const char *output;       /* perf.data path */
	char *const *argv;        /* workload; NULL with pid or system_wide */
	pid_t pid;                /* -p PID, 0 = none */
	int system_wide;          /* -a */
	int switch_events;        /* --switch-events: PERF_RECORD_SWITCH records (when each
				   * thread is switched in and out), as perf record's */
	int callgraph;            /* enum mp_callgraph: -g / --call-graph MODE */
	uint32_t cg_stack_size;   /* --call-graph dwarf,SIZE: user stack bytes per sample */
	int no_inherit;           /* -i/--no-inherit */
	unsigned mmap_pages;      /* ring size per buffer in pages (power of two), 0 = default */
	int quiet;
	volatile sig_atomic_t *stop; /* set by the CLI's SIGINT/SIGTERM handler */
	int argc_all; char *const *argv_all; /* memprof's own command line for HEADER_CMDLINE */
	const struct mp_evopts *evopts; /* how the events were parsed (for error messages);
					   may be NULL */
	int regions;              /* --regions: the markers' regions, stored in the file */
	int regions_only;         /* --regions-only: sample only while a region is open */
	int alloc;                /* --alloc: preload alloc/'s library into the workload and
				   * store its allocation records (MP_HEADER_ALLOC); the events
				   * use CLOCK_MONOTONIC, the library's clock */
	int group;                /* the events were written as one group ('{a,b}'): say so in
				   * the file (HEADER_GROUP_DESC) */
	uint64_t sample_mem;      /* perf record's -d/-W/--data-page-size/--phys-data/
				   * --sample-cpu: PERF_SAMPLE_ADDR|DATA_SRC, WEIGHT_STRUCT (WEIGHT
				   * where the kernel refuses it), DATA_PAGE_SIZE, PHYS_ADDR, CPU
				   * added to every event's sample_type; ADDR also records data
				   * mmaps, as perf does */
	int use_clockid, clockid; /* -k: sample times on this clock (perf's use_clockid: a JIT's
				   * jitdump times are CLOCK_MONOTONIC); 0: the kernel's */
	const char *buildid_dir;  /* perf's build-id cache (~/.debug): when an event can sample
				   * the kernel, keep a copy of /proc/kallsyms there as perf
				   * record does, once per kernel build-id; NULL = do not */
};

/* ---- regions (stat/record --regions, the markers of include/memprof/marker.h) ----------- */

typedef struct mp_regions mp_regions;

/* The control protocol the workload's markers speak (marker.h): parse one message at
 * buf[0..n). Returns the bytes it takes (> 0, m filled, m->name points into buf), 0 when
 * the message is not complete yet, or a negative code with err saying what is wrong. Any
 * bytes are safe: the header line is at most 64 bytes, names at most 1024. */
enum mp_ctl_kind { MP_CTL_BEGIN, MP_CTL_END, MP_CTL_ENABLE, MP_CTL_DISABLE, MP_CTL_PING };
struct mp_ctl_msg {
	enum mp_ctl_kind kind;
	pid_t tid;                 /* begin/end: the thread */
	const unsigned char *name; /* begin/end: len bytes, any value */
	size_t len;
};
int mp_ctl_parse(const unsigned char *buf, size_t n, struct mp_ctl_msg *m, struct mp_err *err);

/* One row of the regions table. Rows come in tree order: a region, then the regions
 * opened inside it. Each region has its row summed over threads (tid 0), followed by one
 * row per thread that entered it when more than one did. */
struct mp_region_stat {
	const unsigned char *name; /* len bytes as the program gave them (any bytes) */
	size_t len;
	int depth;                 /* 0 = top level */
	pid_t tid;                 /* 0 = summed over threads */
	uint64_t calls;            /* begin..end pairs completed */
	uint64_t unclosed;         /* still open when the thread or the workload ended: counted
				    * to the thread's last count */
	const struct mp_counts *counts; /* [nevents] summed deltas */
	const double *scaled;      /* [nevents] sum over calls of delta * ena/run */
};
size_t mp_regions_nrows(const mp_regions *r);
const struct mp_region_stat *mp_regions_row(const mp_regions *r, size_t i);
/* What went wrong, one line each (a bad message, an end without its begin, a thread that
 * could not be counted), or NULL past the last. */
const char *mp_regions_note(const mp_regions *r, size_t i);
/* The name, printable: bytes outside ASCII graphic characters and space as \xNN. */
void mp_region_name_str(const unsigned char *name, size_t len, char *buf, size_t size);
void mp_regions_free(mp_regions *r); /* NULL-safe */

struct mp_event_result {
	uint64_t samples, lost, throttled;
	struct mp_counts counts;   /* exact final counts */
};

struct mp_record_result {
	struct mp_event_result *ev; /* nevents entries, malloc'd; free() */
	uint64_t lost_total;
	int workload_status;        /* wait() status; exit code = mp_exit_code(status) */
	int workload_started;
	uint64_t bytes_written;
	uint64_t wall_ns;           /* from the workload's start to the end of the run */
	int exec_errno;             /* the workload could not be started: execvp's errno */
	mp_regions *regions;        /* with opts regions: the regions table (free with
				     * mp_regions_free()), else NULL */
	int have_rusage;            /* stat of a command: its CPU times (wait4's rusage: the
				     * workload and the children it waited for) */
	uint64_t user_ns, sys_ns;
	int alloc;                  /* record --alloc: what the workload's library wrote */
	uint64_t alloc_records, alloc_lost, alloc_images;
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
	int regions;              /* --regions: give the workload the markers' control fds
				   * (MEMPROF_CONTROL) and count per region (res->regions) */
	/* interval_ns > 0: interval(ctx, elapsed, ev) every interval_ns while the target
	 * runs, with each event's counts so far (nevents entries; the final counts are the
	 * result's) */
	uint64_t interval_ns;
	void (*interval)(void *ctx, uint64_t elapsed_ns, const struct mp_event_result *ev);
	void *interval_ctx;
};

int mp_stat_run(const struct mp_stat_opts *o, struct mp_record_result *res, struct mp_err *err);

/* 128+signal for a killed workload, else its exit code. */
int mp_exit_code(int wait_status);

#endif
