/* mp_events_internal.h - shared between the files of events/ and its unit tests. */
#ifndef MP_EVENTS_INTERNAL_H
#define MP_EVENTS_INTERNAL_H

#include "mp_events.h"
#include "mp_perfdata.h"

/* Event classes decide the default and minimum sample period (docs/events.md). */
enum mp_evclass {
	MP_CLS_FREQUENT, /* cycles, instructions, stall cycles: tick up to every cycle */
	MP_CLS_HW,       /* other hardware events: cache, TLB, branch, raw codes */
	MP_CLS_TIMER,    /* cpu-clock, task-clock: the period is in nanoseconds */
	MP_CLS_FAULTS,   /* page-faults, minor-faults */
	MP_CLS_RARE_SW,  /* major-faults, context-switches, cpu-migrations, ... */
};

enum mp_evclass mp_ev_class(const struct mp_event *ev);
uint64_t mp_ev_class_default(enum mp_evclass c);
uint64_t mp_ev_class_min(enum mp_evclass c);
const char *mp_ev_class_name(enum mp_evclass c);

/* ---- perf's generic names: mp_generic_* in perfdata/include/mp_perfdata.h ---- */

/* ---- mp_pfm.c: libpfm4 ---- */
struct mp_pfm_enc {
	uint32_t type;
	uint64_t config, config1, config2;
	int exclude_user, exclude_kernel, exclude_hv, precise_ip;
	char fstr[256]; /* libpfm's canonical name, default modifiers stripped */
	char pmu[64];   /* the libpfm model that encoded it */
};
/* Load (on first use) and initialise libpfm4: 0, or -MP_ENOTSUP when it cannot be loaded or
 * fails to initialise. */
int mp_pfm_init(void);
/* NULL when libpfm4 is ready, else one line saying why not ("cannot load libpfm.so.4
 * (libpfm4, for PMU models and their events): ..."). */
const char *mp_pfm_unavailable(void);
/* Forced (LIBPFM_FORCE_PMU) or the first present core PMU; NULL when none. */
const char *mp_pfm_detected(char *buf, size_t len);
/* 1 when libpfm knows a PMU model of that name. */
int mp_pfm_model_known(const char *model);
/* Encode str (as libpfm takes it). 0, or a negative PFM_ERR_* code. */
int mp_pfm_encode(const char *str, struct mp_pfm_enc *enc);
const char *mp_pfm_strerror(int code);
/* Explain a failed encode of model::name:attrs in msg: which attribute is bad, or which
 * event names come closest. */
void mp_pfm_diagnose(const char *model, const char *name, char *const *attrs, size_t nattrs,
		     int code, char *msg, size_t len);
/* Iterate over a model's events: fn gets the libpfm event index. Returns the count or
 * a negative code when the model is unknown. */
int mp_pfm_foreach_event(const char *model, int (*fn)(int idx, void *ctx), void *ctx);

/* ---- mp_alias.c: the portable alias table (events/aliases.tsv, embedded) ---- */
/* (struct mp_alias_row and the lookup are public: see mp_events.h) */
/* The rows of an alias table (aliases.tsv's columns; text is modified in place): 0 and a
 * malloc'd *rows, or -MP_EPARSE with err naming file and line. */
/* A row of pmu_models.tsv: its kind and the columns after it ("" when absent). */
#define PMU_MAXF 6
struct pmu_row {
	const char *kind;
	const char *f[PMU_MAXF];
};
/* The rows of a PMU model table (text is modified in place and the rows point into it):
 * 0 and a malloc'd *rows, or -MP_EPARSE with err naming file and line. */
int mp_pmu_table_parse(char *text, const char *file, struct pmu_row **rows, size_t *n,
		       struct mp_err *err);
int mp_alias_table_parse(char *text, const char *file, struct mp_alias_row **rows, size_t *n,
			 struct mp_err *err);

/* ---- mp_sysfs.c: PMUs under <root>/bus/event_source/devices ---- */
const char *mp_sysfs_root(const struct mp_evopts *opts);
/* A tracepoint "subsys:name" (mp_tracepoint.c): 0 with ev filled (PERF_TYPE_TRACEPOINT,
 * config = its id, period 1, sample_type RAW); 1 when spec is no tracepoint (err then
 * names the tracefs path when tracefs could not be read); negative with err for a subsystem
 * that lacks the name. */
int mp_tp_parse(const char *spec, const struct mp_evopts *opts, struct mp_event *ev,
		struct mp_err *err);
/* Parse "PMU/terms/" (the part up to and including the last '/') into ev->attr. */
int mp_sysfs_parse(const char *spec, const char *pmuspec, const struct mp_evopts *opts,
		   struct mp_event *ev, uint64_t *period, int *has_period, struct mp_err *err);
/* A bare name published by some PMU's events/ directory: 1 found (ev filled), 0 not,
 * negative on a malformed sysfs file. */
int mp_sysfs_find_named(const char *spec, const char *name, const struct mp_evopts *opts,
			struct mp_event *ev, struct mp_err *err);
/* Name of the PMU whose type file says type, or NULL. */
const char *mp_sysfs_pmu_by_type(const struct mp_evopts *opts, uint32_t type, char *buf,
				 size_t len);
/* 1 when a CPU PMU (cpu, cpu_core, cpu_atom, armv*_pmu*) exists. */
int mp_sysfs_has_cpu_pmu(const struct mp_evopts *opts, char *name, size_t len);

/* small helpers (mp_evspec.c) */
int mp_ev_strcasecmp_eq(const char *a, const char *b);

#endif
