/* mp_events.h - the events module: turn what a user types into perf_event_attr.
 *
 * Accepted spellings (one event each; a list is comma-separated, commas inside
 * PMU/.../ or {...} do not split):
 *   perf generic:   cycles, instructions, cache-misses, L1-dcache-load-misses, cpu-clock, ...
 *   libpfm4:        L1D:REPLACEMENT (detected PMU), skl::L1D:REPLACEMENT (any model)
 *   dotted:         L2_LINES_IN.SELF.ANY  (the article's Core 2 spelling)
 *   raw:            r01c2, cpu/event=0xc0,umask=0x01/, armv8_pmuv3/inst_retired/ (sysfs)
 *   modifiers:      :u :k (and :p... for precise), e.g. cycles:u
 *   oprofile:       CPU_CLK_UNHALTED:30000:0:1:1  (NAME:COUNT:UNITMASK:KERNEL:USER)
 *   per-event count: NAME:COUNT beside -c COUNT
 *   groups:         {cycles,instructions} (perf's syntax; memprof opens all the events of a
 *                   run as one group anyway), {..}:u (a modifier after '}' applies to every
 *                   member), {cycles,instructions}:S (leader sampling, see leader_sample)
 *   aliases:        the article's Core 2 names (L1D_REPL, INST_RETIRED, ...) mapped to the
 *                   host model's equivalent through events/aliases.tsv
 * A name is tried as: perf generic, alias, libpfm4 event of the host model, named sysfs
 * event. Defaults, minimums and the reasons: docs/events.md. libpfm4 is initialised on
 * first use, with LIBPFM_ENCODE_INACTIVE=1 (unless set) so that any model:: encodes.
 * The sysfs root is opts->sysfs_root, else $MEMPROF_SYSFS_ROOT, else /sys; the procfs
 * root (perf_event_paranoid, ...) is $MEMPROF_PROC_ROOT, else /proc.
 */
#ifndef MP_EVENTS_H
#define MP_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp_util.h"

enum mp_ev_kind {
	MP_EV_SOFTWARE,  /* cpu-clock, page-faults, ... (PERF_TYPE_SOFTWARE) */
	MP_EV_HARDWARE,  /* perf generic hw event / hw cache event */
	MP_EV_PMU,       /* model-specific (libpfm4, raw rNNNN, PMU/.../, sysfs) */
};

struct mp_event {
	char spec[256];       /* as the user wrote it */
	char resolved[256];   /* canonical name: "skl::L1D:REPLACEMENT", "cpu-clock", "r01c2" */
	char pmu[64];         /* libpfm4 model or sysfs PMU name; "" for generic/software */
	char alias[64];       /* article alias this came from ("L1D_REPL"), or "" */
	char note[256];       /* why an alias is approximate, or "" */
	int approx;           /* 1: alias maps to an approximate equivalent */
	enum mp_ev_kind kind;
	struct perf_event_attr attr; /* type, config, config1/2, exclude_*, precise_ip,
					sample_period or (freq=1, sample_freq) filled in */
	uint64_t min_count;   /* smallest allowed sample period for this event */
	/* Leader sampling ({a,b}:S): only the group leader samples; its samples read the whole
	 * group (PERF_SAMPLE_READ, PERF_FORMAT_GROUP) and the members' counts are split per
	 * member as perf does. MP_LEADER_SAMPLE_LEADER on the group's first event, which is the
	 * first event of the list (a :S group must be the whole list): its attr keeps its
	 * sample_period or freq. MP_LEADER_SAMPLE_MEMBER on the others: attr sample_period =
	 * 0, freq = 0, sample_freq = 0 (a member's own count is ignored, as perf does). All
	 * of them, as perf sets them: sample_type |= PERF_SAMPLE_READ, read_format |=
	 * PERF_FORMAT_GROUP | PERF_FORMAT_ID. In counting mode (count_only) only the marks
	 * are set. 0: not in a :S group. */
	int leader_sample;
};
#define MP_LEADER_SAMPLE_LEADER 1
#define MP_LEADER_SAMPLE_MEMBER 2

struct mp_evopts {
	uint64_t default_count; /* -c COUNT; 0 = the per-kind default */
	unsigned freq_hz;       /* -F HZ; 0 = period mode. -c wins when both are given */
	const char *pmu_model;  /* --pmu MODEL / LIBPFM_FORCE_PMU override; NULL = detected */
	int count_only;         /* memprof stat: no sample period needed */
	const char *sysfs_root; /* NULL = $MEMPROF_SYSFS_ROOT, else "/sys" (tests use a fake tree) */
};

/* Parse a comma-separated event list. On success *out is a malloc'd array of *n events
 * (free with free()). On error returns a negative code and err names the bad part:
 * "event 'L1D_REPLX': unknown event (did you mean L1D_REPL?)". */
int mp_events_parse(const char *list, const struct mp_evopts *opts, struct mp_event **out,
		    size_t *n, struct mp_err *err);

/* Parse one event spec into ev. */
int mp_event_parse(const char *spec, const struct mp_evopts *opts, struct mp_event *ev,
		   struct mp_err *err);

/* Default sample period for an event of this kind (docs/events.md; ev->min_count is the
 * smallest count mp_event_parse accepts). */
uint64_t mp_event_default_count(const struct mp_event *ev);

/* The libpfm4 model memprof resolves against: LIBPFM_FORCE_PMU or --pmu, else the
 * detected default PMU ("amd64_fam19h_zen4"), else "perf" when libpfm finds none.
 * Writes into buf; returns buf. */
const char *mp_events_host_model(const struct mp_evopts *opts, char *buf, size_t len);

/* 0 when --pmu MODEL names a model list --pmu accepts ("perf" or a libpfm4 model); else
 * -ENOENT with a one-line message. */
int mp_events_model_check(const char *model, struct mp_err *err);

/* The perf_event_open(2) syscall, alone in events/mp_sys.c so that tests can replace it
 * with -Wl,--wrap=mp_ev_sys_perf_event_open (the one wrapper: the probe and the
 * collector both call it). Returns an fd, or -1 with errno set. */
int mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			      unsigned long flags);

/* Can the kernel open this event here? 0, or a negative errno with err explaining it in
 * one line, including the sysctl/option that would fix it where one exists. */
int mp_event_probe(const struct mp_event *ev, struct mp_err *err);

/* Explain a failed perf_event_open(errno_val) for ev in one line into err: names the event,
 * the host model, what the kernel offers (e.g. "the kernel offers no hardware counters
 * here"), and what can be recorded instead. Returns -errno_val. */
int mp_event_explain_open_error(const struct mp_event *ev, int errno_val,
				const struct mp_evopts *opts, struct mp_err *err);

/* Human-readable event name for a perf_event_attr read back from a file
 * ("cpu-clock", "cycles", "r53003c", "L1-dcache-load-misses"). */
const char *mp_event_attr_name(const struct perf_event_attr *attr, char *buf, size_t len);

/* memprof list: print events (filtered by glob/substring PATTERN, NULL = all) for model
 * (NULL = host) to f. Returns 0 or negative code. */
int mp_events_list(FILE *f, const char *model, const char *pattern, struct mp_err *err);
/* The same with flags: MP_LIST_ATTR adds each event's perf_event_attr type and config. */
#define MP_LIST_ATTR 1u
int mp_events_list_ex(FILE *f, const char *model, const char *pattern, unsigned flags,
		      struct mp_err *err);
/* memprof list's tracepoints (perf list tracepoint): "subsys:name" of <sysfs>/kernel/tracing
 * (or kernel/debug/tracing) matching pattern (substring or glob, NULL = all), one a line.
 * The number listed, or a negative code with err naming the unreadable path. */
int mp_tp_list(FILE *f, const struct mp_evopts *opts, const char *pattern, struct mp_err *err);
/* perf's HEADER_TRACING_DATA payload for the tracepoints among evs (their formats, the
 * tracefs headers, printk formats and saved command names) appended to b: what perf script
 * decodes RAW samples with. 0, or a negative code with err naming the file. */
int mp_tp_tracing_data(const struct mp_event *evs, size_t n, const struct mp_evopts *opts,
		       struct mp_buf *b, struct mp_err *err);
/* memprof list --models: the libpfm4 models known, the detected one marked. Returns the
 * number listed or a negative code. */
int mp_events_list_models(FILE *f, struct mp_err *err);

/* ---- the portable alias table (events/aliases.tsv, embedded in the binary) ----
 * One row per (alias, model): the article's Core 2 event and what the model calls it.
 * model is a libpfm4 model name, "perf" (generic events) or "cachegrind" (simulated).
 * status is "exact", "approx" or "none"; event may be a sum ("A + B") or "none". A
 * cachegrind row's event and status are the simulator's (sim_events.tsv): the sum of its
 * quantities and "approx", or "none" for an event it refuses. */
struct mp_alias_row {
	char alias[64];    /* "L2_LINES_IN.SELF.ANY" */
	char model[32];
	char event[512];   /* "L2_LINES_IN:ALL", "D1mr + D1mw", "none" */
	char status[8];
	char closest[256]; /* for "none": what comes closest, or "" */
	char note[256];
};

/* Look up a spelling (separators ':' or '.', case-insensitive) for model. A spelling
 * matches an alias when equal to it or to a leading part of it ("L2_LINES_IN" and
 * "L2_LINES_IN.SELF" match "L2_LINES_IN.SELF.ANY"); the first row in table order wins.
 * Returns 1 and fills row, 0 when the spelling is no alias, -1 when it is an alias
 * but the table has no row for model (row then holds the "perf" row). */
int mp_alias_find(const char *spelling, const char *model, struct mp_alias_row *row);
/* Rows in table order: 0..mp_alias_count()-1. Returns 0, or -ERANGE. */
size_t mp_alias_count(void);
int mp_alias_get(size_t i, struct mp_alias_row *row);
/* The embedded table text (aliases.tsv as installed to share/memprof/). */
const char *mp_alias_table_text(void);

/* ---- PMU models as data (events/pmu_models.tsv, embedded; installed to share/memprof) ----
 * A new CPU model is new rows in that table, no code. Strings returned below live as long
 * as the process (the table is parsed once). */
#define MP_PMU_MAX_VARIANTS 3
struct mp_pmu_model {
	const char *name;                          /* "skl", "amd64_fam19h_zen4", "cachegrind" */
	unsigned programmable, fixed;              /* counters per core (4 and 0 when not known) */
	const char *variant[MP_PMU_MAX_VARIANTS];  /* ratio variant keys to try before "perf" */
	size_t nvariants;
};
/* The libpfm4 model of a CPU, from perf's cpuid string ("GenuineIntel,6,158,10",
 * "AuthenticAMD,25,17,0", an arm64 MIDR "0x00000000410fd080"); NULL when no row says. */
const char *mp_pmu_model_for_cpuid(const char *cpuid);
/* A model's row: 1 and m filled; 0 when the table lacks it (m then holds the defaults:
 * 4 programmable, 0 fixed counters, no variants). */
int mp_pmu_model_get(const char *model, struct mp_pmu_model *m);
/* 1 when the model is an Arm PMUv3 core (its variants include armv8). */
int mp_pmu_pmuv3(const char *model);
/* An Arm PMUv3 common event of a PMUv3 model ("CPU_CYCLES" -> 0x11, case-insensitive):
 * 1 and *code; 0 when the model is no PMUv3 model or the table lacks the name. */
int mp_pmu_pmuv3_code(const char *model, const char *name, uint64_t *code /* OUT */);
/* 1 when a sysfs PMU of this name (bus/event_source/devices) is a CPU core PMU. */
int mp_pmu_is_core(const char *sysfs_name);
/* 1 when a fixed counter takes this event ("cycles", "INST_RETIRED.ANY"). */
int mp_pmu_fixed_event(const char *name);
/* 1 when a model-specific event of this name ticks about once per cycle (..CYCLES..,
 * ..UOPS..): it gets the cycle counters' default and minimum sample period. */
int mp_pmu_frequent_name(const char *name);
/* The minimum sample period of one event, as oprofile's per-model event lists give it
 * (pmu_models.tsv's minimum rows): resolved is an event's canonical name
 * ("core::BR_INST_EXEC", "core::INST_RETIRED:ANY_P:u"); its model and its name up to the
 * first ':' or '.' are looked up, case-insensitively. The minimum, or 0 when the table has
 * none for the event (then its kind's minimum applies). */
uint64_t mp_pmu_event_min(const char *resolved);
/* callgrind's simulated quantities ("Ir", "D1mr"): the bit the simulator sets for one in
 * a PERF_TYPE_RAW config, or -1; and the name of a bit, or NULL. */
int mp_pmu_sim_quantity(const char *name);
const char *mp_pmu_sim_quantity_name(int bit);
/* The perf_event_attr config of a sum of simulated quantities (mask: bit q per quantity):
 * quantity q at the q-th bit position that is not one of 16, 17, 20 and 22, which libpfm's
 * raw codes use for USR|OS|INT|EN and the ratio matching ignores (callgrind's quantities,
 * 0..12, keep their own bit). */
uint64_t mp_pmu_sim_config(uint32_t mask);
/* The embedded table text (pmu_models.tsv as installed to share/memprof/). */
const char *mp_pmu_table_text(void);

/* ---- the simulator's event table (events/sim_events.tsv, embedded; installed to
 * share/memprof) ----
 * The events record --sim gives as sums of callgrind's quantities (the simq rows of
 * pmu_models.tsv), and the ones it refuses. sim/ (record/stat --sim, list) reads it, and
 * so does aliases.tsv's "cachegrind" model (its rows say "sim"). */

/* One row: an event the simulator gives, as a sum of its quantities, or one it refuses.
 * Strings are borrowed from the table. */
struct mp_sim_alias {
	const char *names;  /* spellings separated by '|'; the first is the one listed */
	uint32_t mask;      /* bit per quantity summed (mp_pmu_sim_quantity); 0: refused (note: why) */
	uint32_t type;      /* PERF_TYPE_RAW (the event's config is its mask) or the type and */
	uint64_t config;    /* config of perf's generic event */
	const char *hint;   /* the spelling an unknown event's message offers, or NULL */
	const char *note;   /* a quantity's own row: what it counts; refused: why; else NULL */
	unsigned line;      /* in the file */
};
typedef struct mp_sim_table mp_sim_table;

/* Parse a table in sim_events.tsv's format (text: the file's contents; file names it in
 * messages). Every row is checked: five columns, known quantities, 'raw' or a perf generic
 * name, a spelling in one row only, a row for each of callgrind's quantities. 0 with
 * *out (mp_sim_table_free()), or -MP_EPARSE with err as "FILE:LINE: what is wrong". */
int mp_sim_table_parse(const char *text, const char *file, mp_sim_table **out,
		       struct mp_err *err);
void mp_sim_table_free(mp_sim_table *t);
/* The embedded sim_events.tsv, parsed once; NULL with err filled when it is malformed. */
const mp_sim_table *mp_sim_table_get(struct mp_err *err);
/* The embedded table's text (as installed to share/memprof/sim_events.tsv). */
const char *mp_sim_table_text(void);
size_t mp_sim_table_count(const mp_sim_table *t);
const struct mp_sim_alias *mp_sim_table_row(const mp_sim_table *t, size_t i);
/* The row with name among its spellings (case-insensitive), the spelling to canon (may be
 * NULL); NULL when none. */
const struct mp_sim_alias *mp_sim_table_find(const mp_sim_table *t, const char *name,
					     char *canon, size_t len);
/* "callgrind's Ir, ..., Bim; INST_RETIRED, ...": the names an unknown event is offered. */
const char *mp_sim_table_offer(const mp_sim_table *t);
/* What quantity q counts (its own row's note); NULL out of range. */
const char *mp_sim_table_quantity_desc(const mp_sim_table *t, int q);

/* What the kernel allows here, read from procfs/sysfs (-1 where unreadable). */
struct mp_host_caps {
	int perf_event_paranoid;
	int kptr_restrict;
	int max_sample_rate;       /* kernel.perf_event_max_sample_rate */
	int has_cpu_pmu;           /* a cpu/armv8_pmuv3/... PMU under bus/event_source */
	char cpu_pmu[64];          /* its name, or "" */
	char model[64];            /* mp_events_host_model() */
};
/* Fill caps; never fails (unknown values are -1). proc root: $MEMPROF_PROC_ROOT or /proc. */
void mp_events_host_caps(const struct mp_evopts *opts, struct mp_host_caps *caps);

/* Before a run: one line per thing the kernel settings will spoil for these events
 * (kernel samples without symbols under kptr_restrict, kernel space refused under
 * perf_event_paranoid), each with the sysctl or modifier that helps, appended to out.
 * privileged: the caller runs as root / with CAP_PERFMON. Returns the number of lines
 * (0 = nothing to say) or -ENOMEM. */
int mp_events_host_warnings(const struct mp_event *evs, size_t n, const struct mp_evopts *opts,
			    int privileged, struct mp_buf *out);

/* ---- memprof mem record's precise memory events (events/mem_events.tsv, mp_memev.c) ---- */
enum { MP_MEMEV_TASK, MP_MEMEV_PER_CPU, MP_MEMEV_AUX };
struct mp_memev {
	char spec[256];  /* the event spec, the load-latency threshold put in */
	char pmu[32];    /* the PMU under /sys/bus/event_source/devices it needs */
	char what[64];   /* the facility's name: "PEBS load latency" */
	int kind;        /* MP_MEMEV_*: samples tasks, only CPUs, or into an AUX buffer */
	int present;     /* the kernel offers pmu */
};
/* The table's rows for libpfm4 model (may be NULL) and op ("load", "store"): the model's
 * own rows (present or not), then the rows for any model whose PMU the kernel offers
 * (hybrid cpu_core/cpu_atom, Arm SPE). At most max into out; their count. */
size_t mp_memev_rows(const struct mp_evopts *o, const char *model, const char *op,
		     unsigned ldlat, struct mp_memev *out, size_t max);
/* 1 when the kernel offers the PMU (sysfs, or o->sysfs_root / $MEMPROF_SYSFS_ROOT). */
int mp_memev_pmu_present(const struct mp_evopts *o, const char *pmu);
/* The table's text (embedded). */
const char *mp_memev_table_text(void);

#endif
