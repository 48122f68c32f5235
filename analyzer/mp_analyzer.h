/* mp_analyzer.h - the analyzer module: read perf.data files (memprof's and perf's),
 * place samples in objects, symbols and source lines, and aggregate them.
 *
 * Sections: (1) the perf.data reader, mp_pd_*; (2) symbols and aggregation, mp_sym_* and
 * mp_hist_*.
 */
#ifndef MP_ANALYZER_H
#define MP_ANALYZER_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mp_util.h"

/* ===== (1) perf.data reader ============================================================ */

typedef struct mp_pd mp_pd;

struct mp_pd_attr {
	struct perf_event_attr attr; /* normalised: fields the file lacked are zero */
	uint32_t file_attr_size;     /* attr.size as stored */
	const uint64_t *ids;         /* borrowed, valid until mp_pd_close() */
	size_t nids;
	const char *name;            /* EVENT_DESC name, or one derived from type/config */
	const char *spec;            /* memprof: what the user typed; else == name */
	uint64_t nr_samples;         /* filled by mp_pd_process() as it goes */
	uint64_t total_period;       /* sum of sample periods (perf's "Event count (approx.)") */
	uint64_t lost;               /* lost samples attributed to this attr */
	int has_counts;              /* memprof/READ exact counts present */
	uint64_t count_value, count_ena, count_run;
	int group_leader_idx;        /* index of the group leader attr, or own index */
};

/* Open a file (file mode or pipe mode; "-" = stdin is not supported, use a path).
 * Validates header, attrs and the feature table against the file size. NULL + err on
 * error; err names the file and what is wrong ("x.data: not a perf.data file (bad magic)"). */
mp_pd *mp_pd_open(const char *path, struct mp_err *err);
void mp_pd_close(mp_pd *pd); /* NULL-safe */

size_t mp_pd_nattrs(const mp_pd *pd);
const struct mp_pd_attr *mp_pd_attr(const mp_pd *pd, size_t idx);
int mp_pd_is_pipe(const mp_pd *pd);

/* Header features as strings (NULL when absent): HEADER_HOSTNAME, HEADER_OSRELEASE,
 * HEADER_VERSION, HEADER_ARCH, HEADER_CPUDESC, HEADER_CPUID, HEADER_CMDLINE (joined with
 * spaces). feature = the HEADER_* number from perf's header.h. */
const char *mp_pd_feature_str(const mp_pd *pd, int feature);
uint32_t mp_pd_nr_cpus(const mp_pd *pd);
/* memprof meta key (see mp_pdw_set_meta), NULL when absent. */
const char *mp_pd_meta(const mp_pd *pd, const char *key);

struct mp_pd_build_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t id[20];
	uint8_t id_len;
	const char *filename;
};
size_t mp_pd_nbuild_ids(const mp_pd *pd);
const struct mp_pd_build_id *mp_pd_build_id(const mp_pd *pd, size_t idx);

/* One sample after decoding. Group reads (PERF_SAMPLE_READ with PERF_FORMAT_GROUP) are
 * split into one sample per member, as perf does: attr_idx = the member's attr and
 * period = the delta of that member's value since the previous sample of that group in
 * the same stream. */
struct mp_pd_sample {
	size_t attr_idx;
	uint16_t cpumode;         /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t ip, addr, time, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t nr_callchain;    /* 0 when absent */
	const uint64_t *callchain;/* borrowed for the duration of the callback */
	uint64_t weight, data_src;
};

struct mp_pd_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint16_t cpumode;
	int has_build_id;
	uint8_t build_id[20];
	uint8_t build_id_len;
	const char *filename;     /* borrowed */
	uint32_t prot, flags;     /* MMAP2 only */
};

struct mp_pd_task {   /* COMM, FORK, EXIT */
	uint32_t pid, tid, ppid, ptid;
	const char *comm;     /* COMM only */
	int exec;             /* COMM with PERF_RECORD_MISC_COMM_EXEC */
	uint64_t time;
};

struct mp_pd_handler {
	void *ctx;
	/* Any callback may be NULL; a non-zero return stops processing and is returned. */
	int (*sample)(void *ctx, const struct mp_pd_sample *s);
	int (*mmap)(void *ctx, const struct mp_pd_mmap *m);
	int (*comm)(void *ctx, const struct mp_pd_task *t);
	int (*fork)(void *ctx, const struct mp_pd_task *t);
	int (*exit)(void *ctx, const struct mp_pd_task *t);
	int (*lost)(void *ctx, size_t attr_idx, uint64_t lost);
	/* progress: called about every 1% of the data with bytes done and total. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
};

/* Walk the data section (decompressing PERF_RECORD_COMPRESSED with zstd), calling h for
 * each record. Unknown record types are skipped by their size. Every length and offset is
 * checked against the file; a bad record stops with err naming the offset. Samples
 * already delivered stay delivered. Fills per-attr nr_samples / total_period / lost. */
int mp_pd_process(mp_pd *pd, const struct mp_pd_handler *h, struct mp_err *err);

/* Statistics of the last mp_pd_process(): record counts by type (index = PERF_RECORD_*
 * type, 0..127), as `perf report --stats` shows them. */
uint64_t mp_pd_record_count(const mp_pd *pd, unsigned type);

/* ===== (2) symbols and aggregation ===================================================== */
/* (owned by the report/annotate work; see analyzer/mp_sym.c, analyzer/mp_hist.c) */

#endif
