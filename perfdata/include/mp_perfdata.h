/* mp_perfabi.h - the perf.data ABI as memprof uses it, one definition per fact, shared by
 * the writer (collector/), the reader (analyzer/) and everything that reads their results.
 * Values from perf's tools/perf/util/event.h, header.h and evsel.c (a stable file format).
 */
#ifndef MP_PERFABI_H
#define MP_PERFABI_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "mp_version.h" /* MP_VERSION: project(VERSION) of the top CMakeLists.txt */

/* ---- file layout ---- */
#define MP_PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" little-endian */
#define MP_PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define MP_PERF_FILE_HEADER_SIZE 104
#define MP_PERF_PIPE_HEADER_SIZE 16
/* attr.size memprof writes: perf 6.1 refuses larger attrs in files */
#define MP_PERF_ATTR_SIZE PERF_ATTR_SIZE_VER7
/* perf aligns the strings of its features (perf_header_string) to this */
#define MP_PERF_NAME_ALIGN 64

/* perf's user record types (PERF_RECORD_* not written by the kernel). */
enum mp_perf_record {
	MP_RECORD_USER_START = 64,
	MP_RECORD_HEADER_ATTR = 64,
	MP_RECORD_HEADER_EVENT_TYPE = 65,
	MP_RECORD_HEADER_TRACING_DATA = 66,
	MP_RECORD_HEADER_BUILD_ID = 67,
	MP_RECORD_FINISHED_ROUND = 68,
	MP_RECORD_ID_INDEX = 69,
	MP_RECORD_AUXTRACE_INFO = 70,
	MP_RECORD_AUXTRACE = 71,
	MP_RECORD_AUXTRACE_ERROR = 72,
	MP_RECORD_THREAD_MAP = 73,
	MP_RECORD_CPU_MAP = 74,
	MP_RECORD_STAT_CONFIG = 75,
	MP_RECORD_STAT = 76,
	MP_RECORD_STAT_ROUND = 77,
	MP_RECORD_EVENT_UPDATE = 78,
	MP_RECORD_TIME_CONV = 79,
	MP_RECORD_HEADER_FEATURE = 80,
	MP_RECORD_COMPRESSED = 81,
	MP_RECORD_FINISHED_INIT = 82,
	MP_RECORD_COMPRESSED2 = 83,
};

/* Header feature bits (HEADER_* in perf's header.h). */
enum mp_perf_feature {
	MP_HEADER_TRACING_DATA = 1,
	MP_HEADER_BUILD_ID = 2,
	MP_HEADER_HOSTNAME = 3,
	MP_HEADER_OSRELEASE = 4,
	MP_HEADER_VERSION = 5,
	MP_HEADER_ARCH = 6,
	MP_HEADER_NRCPUS = 7,
	MP_HEADER_CPUDESC = 8,
	MP_HEADER_CPUID = 9,
	MP_HEADER_TOTAL_MEM = 10,
	MP_HEADER_CMDLINE = 11,
	MP_HEADER_EVENT_DESC = 12,
	MP_HEADER_CPU_TOPOLOGY = 13,
	MP_HEADER_NUMA_TOPOLOGY = 14,
	MP_HEADER_GROUP_DESC = 17,
	MP_HEADER_CACHE = 20,
	MP_HEADER_MEM_TOPOLOGY = 22,
	MP_HEADER_COMPRESSED = 27,
	/* memprof's own feature (key=value lines, see collector/README.md); far above perf's
	 * last feature so that perf never assigns it. */
	MP_HEADER_MEMPROF = 200,
	MP_HEADER_FEAT_BITS = 256,
};

/* PERF_RECORD_EVENT_UPDATE type carrying an event's name */
#define MP_EVENT_UPDATE_NAME 2
/* misc bit of a HEADER_BUILD_ID entry whose size byte is valid */
#define MP_MISC_BUILD_ID_SIZE (1u << 15)

/* ---- memprof's meta keys (the MP_HEADER_MEMPROF feature, key=value lines) ---- */
#define MP_META_SIMULATED "simulated"      /* the simulator that made the counts ("callgrind") */
#define MP_META_SIM_I1 "sim.I1"            /* simulated cache geometry "SIZE,ASSOC,LINE" */
#define MP_META_SIM_D1 "sim.D1"
#define MP_META_SIM_LL "sim.LL"
#define MP_META_SIM_VALGRIND "sim.valgrind" /* the simulator's version */
#define MP_META_SIM_EVENT "sim.event."      /* + event name: what the event is made of */
#define MP_META_EVENT "event."              /* + "N.spec", "N.name", "N.alias": attr N */
/* EDAC memory errors summed over the controllers, "CORRECTED,UNCORRECTED", when the
 * recording started and ended; or why they could not be read */
#define MP_META_EDAC_BEFORE "edac.before"
#define MP_META_EDAC_AFTER "edac.after"
#define MP_META_EDAC_MISSING "edac.missing"

/* ---- counts: a counter's value with its enabled and running times ---- */
struct mp_counts {
	uint64_t val, ena, run;
};
/* The value scaled by enabled/running when the counter was multiplexed (run < ena), as
 * perf stat does; the value itself otherwise (also when it never ran: check run). */
double mp_counts_scaled(const struct mp_counts *c);

/* ---- perf's generic event names (mp_generic.c) ---- */
struct mp_generic {
	const char *name;
	uint32_t type;   /* PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	uint64_t config;
	const char *desc;
};
/* The first name of each type/config is the one perf prints; later rows are aliases.
 * mp_generic_nevents: the rows memprof accepts and lists as events. */
extern const struct mp_generic mp_generic_events[];
extern const size_t mp_generic_nevents;
/* The name perf prints for a hardware or software config (also for the few that memprof
 * does not offer: bpf-output, cgroup-switches), NULL when it has none. */
const char *mp_generic_name(uint32_t type, uint64_t config);
/* hardware/software generic name, or a HW_CACHE name (L1-dcache-load-misses); 1 if
 * found (type/config filled, canon = the name perf prints), 0 if not. */
int mp_generic_lookup(const char *name, uint32_t *type, uint64_t *config, char *canon,
		      size_t canon_len);
/* The perf name of a HW_CACHE config ("L1-dcache-load-misses"); NULL if invalid. */
const char *mp_generic_cache_name(uint64_t config, char *buf, size_t len);
/* 1 when perf accepts the cache/op pair of a HW_CACHE config (iTLB has loads only). */
int mp_generic_cache_valid(uint64_t config);
/* The number of HW_CACHE caches/ops/results, for listing. */
void mp_generic_cache_dims(unsigned *ncache, unsigned *nop, unsigned *nresult);

/* ---- sample layout ---- */
/* Where the fields of one event's records sit, for its sample_type, read_format and
 * sample_id_all: a PERF_RECORD_SAMPLE's fixed-size fields (IDENTIFIER to PERIOD, the
 * kernel's perf_output_sample order), the read block (PERF_SAMPLE_READ, and the body of
 * PERF_RECORD_READ after pid/tid) and the sample_id trailer of the other kernel records
 * (perf_event__output_id_sample: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). The one
 * definition the writer (collector/) and the reader (analyzer/) decode with. */
struct mp_sample_layout {
	/* PERF_RECORD_SAMPLE: each fixed-size field's byte offset from the record's start
	 * (its 8-byte perf_event_header included), 0 when sample_type lacks the field */
	uint8_t identifier, ip, tid, time, addr, id, stream_id, cpu, period;
	uint8_t sample_id; /* the sample's id as perf reads it: ID's, else IDENTIFIER's */
	uint8_t event_id;  /* the id that tells the event: IDENTIFIER's, else ID's */
	uint8_t fixed_only; /* 1 when sample_type has no field but these nine */
	unsigned fixed_size; /* bytes up to the end of the fixed fields (where READ starts) */
	/* The read block: read_size bytes without the group's entries (nr and times with
	 * PERF_FORMAT_GROUP; value, times, id and lost without), then nr entries of
	 * read_entry bytes (value, [id], [lost]) with it. read_ena, read_run: offsets in the
	 * block; read_id, read_lost: in an entry (GROUP) or in the block; 0 = absent. */
	uint8_t read_ena, read_run, read_id, read_lost;
	unsigned read_size, read_entry;
	/* The sample_id trailer of non-sample records: trailer_size bytes at the record's
	 * end (0 without sample_id_all); each field's position as bytes back from the
	 * record's end (the field starts at end - tr_x), 0 = absent. tr_event_id: the id
	 * that tells the event (IDENTIFIER's, else ID's). */
	unsigned trailer_size;
	uint8_t tr_tid, tr_time, tr_id, tr_stream_id, tr_cpu, tr_identifier, tr_event_id;
	uint64_t sample_type, read_format;
	int sample_id_all;
};
/* sample_type bits of the fixed-size fields (what fixed_only allows) */
#define MP_SAMPLE_FIXED_BITS                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |        \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD)
/* sample_type bits of the sample_id trailer */
#define MP_SAMPLE_TRAILER_BITS                                                                \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |          \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* Fill *L (OUT) for an event's attr.sample_type, read_format and sample_id_all. */
void mp_sample_layout_init(struct mp_sample_layout *L, uint64_t sample_type,
			   uint64_t read_format, int sample_id_all);

/* ---- build-id ---- */
/* The GNU build-id (NT_GNU_BUILD_ID note named "GNU") among the ELF notes notes[0..len)
 * (native byte order, 4-byte aligned: an SHT_NOTE section, PT_NOTE segment or
 * /sys/kernel/notes). Copies at most max bytes to out and sets *out_len; 0, or -ENOENT
 * when there is none. */
int mp_perfabi_note_build_id(const void *notes, size_t len, uint8_t *out, size_t max,
			     size_t *out_len);

#endif
