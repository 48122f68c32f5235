/* mp_perfdata.h - the perfdata module: the perf.data file format in one place. memprof's
 * one face for it: record -> perf.data -> analyzer.
 *
 * Sections: (1) the ABI as memprof uses it, one definition per fact, shared by the writer,
 * the reader and everything that reads their results (values from perf's
 * tools/perf/util/event.h, header.h and evsel.c: a stable file format); (2) the reader,
 * mp_pd_*; (3) the writer, mp_pdw_* (record, the simulator, tests that write files with
 * known contents).
 */
#ifndef MP_PERFDATA_H
#define MP_PERFDATA_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mp_util.h"
#include "mp_version.h" /* MP_VERSION: project(VERSION) of the top CMakeLists.txt */

/* ===== (1) the ABI ===================================================================== */

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
	/* memprof's own feature (key=value lines, see perfdata/README.md); far above perf's
	 * last feature so that perf never assigns it. */
	MP_HEADER_MEMPROF = 200,
	/* memprof's allocation records (record --alloc, the simulator): see below */
	MP_HEADER_ALLOC = 201,
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
#define MP_META_SIM_MEM "sim.mem"           /* memory samples: "period N ldlat L" */
#define MP_META_EVENT "event."              /* + "N.spec", "N.name", "N.alias": attr N */
/* EDAC memory errors summed over the controllers, "CORRECTED,UNCORRECTED", when the
 * recording started and ended; or why they could not be read */
#define MP_META_EDAC_BEFORE "edac.before"
#define MP_META_EDAC_AFTER "edac.after"
#define MP_META_EDAC_MISSING "edac.missing"

/* ---- allocation records (the MP_HEADER_ALLOC feature) ----
 * What memprof record --alloc (the preload library alloc/) and the simulator saw the
 * workload allocate and free. perf skips the feature (an unknown bit) in a file; in pipe
 * mode it travels in HEADER_EVENT_TYPE records (u64 MP_HEADER_ALLOC, then a piece of the
 * payload), which perf skips too. Payload (little-endian, see perfdata/README.md):
 *   u64 magic MP_ALLOC_MAGIC, u32 header size (64), u32 record size (48),
 *   u64 nr_sites, u64 nr_recs, u64 lost, u64 sites_bytes, u64 0, u64 0;
 *   sites: per site u32 pid, u32 nr, u64 ip[nr] (ip[0] = the return address into the
 *   caller of malloc, then its callers); records: nr_recs struct mp_alloc_rec, by time. */
#define MP_ALLOC_MAGIC 0x31434f4c4c41504dULL /* "MPALLOC1" */
#define MP_ALLOC_MAX_DEPTH 64                /* ips per site kept (more are cut) */
#define MP_ALLOC_NO_SITE UINT32_MAX
enum mp_alloc_kind {
	MP_ALLOC_MALLOC = 1,  /* addr, size */
	MP_ALLOC_CALLOC = 2,  /* addr, size = nmemb * size */
	MP_ALLOC_REALLOC = 3, /* addr = new, old = the block it replaced (0: none), size */
	MP_ALLOC_MEMALIGN = 4,/* posix_memalign, aligned_alloc, memalign, valloc, pvalloc */
	MP_ALLOC_MMAP = 5,    /* anonymous or file mmap of the workload: addr, size = length */
	MP_ALLOC_FREE = 6,    /* addr */
	MP_ALLOC_MUNMAP = 7,  /* addr, size = length */
	MP_ALLOC_FORK = 8,    /* pid = the child, old = the parent's pid: the child starts
	                       * with a copy of the parent's live objects */
	MP_ALLOC_EXEC = 9,    /* pid's address space starts afresh (exec, or the first
	                       * program): nothing before it is live */
	MP_ALLOC_LOST = 10,   /* size = records the tracker of pid/tid could not write */
	MP_ALLOC_KIND_MAX = 10,
};
/* One record as stored (48 bytes). time: CLOCK_MONOTONIC ns, the clock of the samples
 * (record --alloc sets use_clockid). site: index into the sites, or MP_ALLOC_NO_SITE. */
struct mp_alloc_rec {
	uint64_t time, addr, size, old;
	uint32_t pid, tid, site;
	uint8_t kind, pad[3];
};
_Static_assert(sizeof(struct mp_alloc_rec) == 48, "mp_alloc_rec is the file's layout");
/* The kind's name ("malloc", "free", ...; "?" out of range). */
const char *mp_alloc_kind_name(unsigned kind);

/* ---- counts: a counter's value with its enabled and running times ---- */
struct mp_counts {
	uint64_t val, ena, run;
};
/* The value scaled by enabled/running when the counter was multiplexed (run < ena), as
 * perf stat does; the value itself otherwise (also when it never ran: check run). */
double mp_counts_scaled(const struct mp_counts *c);
/* sum += c, each of value, enabled and running (counters of one event summed). */
static inline void mp_counts_add(struct mp_counts *sum, const struct mp_counts *c)
{
	sum->val += c->val;
	sum->ena += c->ena;
	sum->run += c->run;
}

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

/* ---- memory samples: PERF_SAMPLE_DATA_SRC and WEIGHT_STRUCT (mp_datasrc.c) ----
 * The fields of the kernel's union perf_mem_data_src, and the words perf 6.1 prints for
 * them (perf mem/report --mem-mode columns, perf script -F data_src), so that memprof's
 * outputs equal perf's on the same file. */
struct mp_datasrc {
	uint8_t op;      /* PERF_MEM_OP_*: NA, LOAD, STORE, PFETCH, EXEC (5 bits) */
	uint16_t lvl;    /* PERF_MEM_LVL_*: NA, HIT, MISS, L1, LFB, L2, L3, LOC_RAM, REM_RAM1/2,
			  * REM_CCE1/2, IO, UNC (14 bits) */
	uint8_t snoop;   /* PERF_MEM_SNOOP_*: NA, NONE, HIT, MISS, HITM (5 bits) */
	uint8_t lock;    /* PERF_MEM_LOCK_*: NA, LOCKED (2 bits) */
	uint8_t dtlb;    /* PERF_MEM_TLB_*: NA, HIT, MISS, L1, L2, WK, OS (7 bits) */
	uint8_t lvl_num; /* PERF_MEM_LVLNUM_*: 1..4 L1..L4, CXL 9, IO, ANY_CACHE, LFB (LFB/MAB),
			  * RAM, PMEM, NA 15 (4 bits) */
	uint8_t remote;  /* 1 bit */
	uint8_t snoopx;  /* PERF_MEM_SNOOPX_*: FWD, PEER (2 bits) */
	uint8_t blk;     /* PERF_MEM_BLK_*: NA, DATA, ADDR (3 bits) */
	uint8_t hops;    /* PERF_MEM_HOPS_*: 0 none, 1 core same node .. 4 board (3 bits) */
	uint32_t rsvd;   /* bits 46..63, which no kernel sets (18 bits) */
};
#define MP_DATASRC_RSVD_SHIFT 46
/* The word sample data_src (the kernel's bit layout, PERF_MEM_*_SHIFT) split into fields,
 * and put back together (mp_datasrc_encode(mp_datasrc_decode(v)) == v for every v). */
void mp_datasrc_decode(uint64_t v, struct mp_datasrc *d /* OUT */);
uint64_t mp_datasrc_encode(const struct mp_datasrc *d);
/* perf's words for each part of v, written into buf (size n, always terminated; the
 * length written is returned):
 *  _op:    "N/A", "LOAD", "STORE", "PFETCH", "EXEC" or "No" (the first bit set);
 *  _lvl:   the memory level, perf's "mem" key and "Memory access" column: "L1 hit",
 *          "LFB/MAB or LFB/MAB hit" (level bits, then the level number, joined by " or "),
 *          "Remote node, same socket RAM hit" (remote and hops), "N/A";
 *  _snoop: "None", "Hit", "Miss", "HitM", "Fwd", "Peer" joined by " or ", else "N/A";
 *  _tlb:   "L1 or L2 hit", "Walker miss", "N/A";
 *  _lock:  "Yes", "No", "N/A";
 *  _blk:   " Data", " Addr", " Data Addr" or " N/A" (perf's leading space kept);
 *  _script: perf script's data_src field without its padding: the word in hex (16
 *          wide), then "|OP ..|LVL ..|SNP ..|TLB ..|LCK ..|BLK ..", cut at 99 bytes as
 *          perf cuts it. */
size_t mp_datasrc_op_str(uint64_t v, char *buf, size_t n);
size_t mp_datasrc_lvl_str(uint64_t v, char *buf, size_t n);
size_t mp_datasrc_snoop_str(uint64_t v, char *buf, size_t n);
size_t mp_datasrc_tlb_str(uint64_t v, char *buf, size_t n);
size_t mp_datasrc_lock_str(uint64_t v, char *buf, size_t n);
/* A data page size as perf names it (its get_page_size_name): 4K, 2M, 1G; N/A for 0. */
void mp_page_size_name(uint64_t sz, char *buf, size_t n);
size_t mp_datasrc_blk_str(uint64_t v, char *buf, size_t n);
size_t mp_datasrc_script_str(uint64_t v, char *buf, size_t n);
/* perf c2c's counts of memory samples (its "Trace Event Information"): what kind of
 * access each sample was, from its data_src word, summed over samples. */
struct mp_c2c_stats {
	uint64_t records, locks, blk_data, blk_addr;
	uint64_t loads, ld_noadrs, ld_uncache, ld_io, ld_miss, ld_fbhit, ld_l1hit, ld_l2hit,
		ld_llchit, lcl_hitm, rmt_hitm, rmt_hit, lcl_dram, rmt_dram, ld_shared, ld_excl,
		lcl_peer, rmt_peer;
	uint64_t stores, st_noadrs, st_uncache, st_l1hit, st_l1miss, st_na;
	uint64_t nomap, noparse; /* no mapping of the address or code (the caller's); not a
				  * load nor a store */
};
/* Count one sample of data source v at data address addr into st, as perf c2c (6.1) does:
 * HITM in the LLC is a local HITM (not an ld_llchit: perf prints "Load LLC hit" as
 * ld_llchit + lcl_hitm), in a remote cache (REM_CCE1/2, or remote without hops) a remote
 * one; peer hits are L2/L3 hits with snoopx PEER (remote: a remote cache). Returns 1 when
 * the sample is a load or store with an address, 0 when not (no address, neither load nor
 * store: perf still counts it in its address's line, as records and loads). */
int mp_c2c_count(struct mp_c2c_stats *st, uint64_t v, uint64_t addr);
void mp_c2c_stats_add(struct mp_c2c_stats *to, const struct mp_c2c_stats *from);
static inline uint64_t mp_c2c_tot_hitm(const struct mp_c2c_stats *s)
{
	return s->lcl_hitm + s->rmt_hitm;
}
static inline uint64_t mp_c2c_tot_peer(const struct mp_c2c_stats *s)
{
	return s->lcl_peer + s->rmt_peer;
}
/* perf c2c's "Total records" and "Total Loads" of a line: the samples of a known kind. */
static inline uint64_t mp_c2c_line_loads(const struct mp_c2c_stats *s)
{
	return s->lcl_dram + s->rmt_dram + s->rmt_hitm + s->rmt_hit + s->ld_fbhit + s->ld_l1hit +
	       s->ld_l2hit + s->ld_llchit + s->lcl_hitm;
}
static inline uint64_t mp_c2c_line_records(const struct mp_c2c_stats *s)
{
	return mp_c2c_line_loads(s) + s->st_l1hit + s->st_l1miss;
}
/* Loads that missed the LLC: local and remote DRAM, remote cache hits and HITMs. */
static inline uint64_t mp_c2c_llc_misses(const struct mp_c2c_stats *s)
{
	return s->lcl_dram + s->rmt_dram + s->rmt_hit + s->rmt_hitm;
}
/* The 64-bit WEIGHT_STRUCT word: var1 (latency, perf's weight), var2 (instruction
 * latency, perf's ins_lat), var3 (pipeline stage cycles on POWER, perf's p_stage_cyc). */
static inline uint32_t mp_weight_var1(uint64_t w) { return (uint32_t)w; }
static inline uint16_t mp_weight_var2(uint64_t w) { return (uint16_t)(w >> 32); }
static inline uint16_t mp_weight_var3(uint64_t w) { return (uint16_t)(w >> 48); }

/* ---- build-id ---- */
/* The GNU build-id (NT_GNU_BUILD_ID note named "GNU") among the ELF notes notes[0..len)
 * (native byte order, 4-byte aligned: an SHT_NOTE section, PT_NOTE segment or
 * /sys/kernel/notes). Copies at most max bytes to out and sets *out_len; 0, or -ENOENT
 * when there is none. */
int mp_note_build_id(const void *notes, size_t len, uint8_t *out, size_t max,
		     size_t *out_len);
/* The running vDSO (getauxval(AT_SYSINFO_EHDR): the image the kernel maps into every
 * process, an ELF file whole): its address and length (to the end of its section
 * headers), its build-id in id[20] with *id_len (0 when it has none). NULL when there is
 * none or it does not read as ELF. Borrowed: valid for the life of the process. */
const void *mp_note_vdso(size_t *len, uint8_t *id, size_t *id_len);


/* ===== (2) the reader ================================================================== */

typedef struct mp_pd mp_pd;

struct mp_pd_attr {
	struct perf_event_attr attr; /* normalised: fields the file lacked are zero */
	uint32_t file_attr_size;     /* attr.size as stored */
	const uint64_t *ids;         /* borrowed, valid until mp_pd_close() */
	size_t nids;
	const char *name;            /* EVENT_DESC (pipe: EVENT_UPDATE) name, or one derived
	                              * from type/config/modifiers as perf does ("cycles:u");
	                              * valid until mp_pd_close() */
	const char *spec;            /* memprof: what the user typed; else == name */
	uint64_t nr_samples;         /* filled by mp_pd_process() as it goes */
	uint64_t total_period;       /* sum of sample periods (perf's "Event count (approx.)") */
	uint64_t lost;               /* lost samples attributed to this attr */
	int has_counts;              /* memprof/READ exact counts present */
	struct mp_counts count;      /* summed over the event's counters */
	uint64_t count_nctr;         /* counters read (one per CPU or thread and id) */
	uint64_t count_nmux;         /* of them, counters that ran less than enabled */
	uint64_t count_mux_run, count_mux_ena; /* the least running share of those counters */
	int group_leader_idx;        /* index of the group leader attr, or own index */
};

/* Open a file (file mode or pipe mode; "-" = standard input, as perf -i -; FIFOs and
 * devices are refused without blocking).
 * Validates header, attrs and the feature table against the file size. NULL + err on
 * error; err names the file and what is wrong ("x.data: not a perf.data file (bad magic)"). */
mp_pd *mp_pd_open(const char *path, struct mp_err *err);
/* The same on a buffer in memory (borrowed: it must outlive the handle); name is used in
 * error messages. For tests and the fuzz harness. */
mp_pd *mp_pd_open_mem(const void *buf, size_t len, const char *name, struct mp_err *err);
void mp_pd_close(mp_pd *pd); /* NULL-safe */

size_t mp_pd_nattrs(const mp_pd *pd);
const struct mp_pd_attr *mp_pd_attr(const mp_pd *pd, size_t idx);
/* 1 when an event of the recording samples call chains (PERF_SAMPLE_CALLCHAIN). */
int mp_pd_has_chains(const mp_pd *pd);
int mp_pd_is_pipe(const mp_pd *pd);

/* Header features as strings (NULL when absent): HEADER_HOSTNAME, HEADER_OSRELEASE,
 * HEADER_VERSION, HEADER_ARCH, HEADER_CPUDESC, HEADER_CPUID, HEADER_CMDLINE (joined with
 * spaces). feature = the HEADER_* number from perf's header.h. */
const char *mp_pd_feature_str(const mp_pd *pd, int feature);
/* The payload of HEADER_CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE or MEM_TOPOLOGY as recorded
 * (NULL when absent); borrowed, valid until mp_pd_close(). */
const void *mp_pd_feature_raw(const mp_pd *pd, int feature, size_t *len /* OUT */);

/* The recorded machine (perf's topology features, as memprof record and perf record write
 * them): each CPU's socket, core and NUMA node, and the caches. */
struct mp_pd_topo {
	uint32_t ncpus;           /* CPUs with a socket/core entry */
	int32_t *socket, *core;   /* [ncpus], -1 unknown */
	int32_t *node;            /* [ncpus], -1 when the recording has no NUMA_TOPOLOGY */
	uint32_t nsockets, nnodes, nthreads_sets;
	uint64_t *node_mem_kb;    /* [nnodes] in node order, node_ids[i] its number */
	int32_t *node_ids;
	char caches[512];         /* "L1d 48K x2, L2 1024K x2, ..." ("" when no CACHE) */
};
/* Fills t from the recording's features: 0, -ENOENT when there is no CPU_TOPOLOGY,
 * -EINVAL when it is malformed, -ENOMEM. Free with mp_pd_topo_fini(). */
int mp_pd_topo_read(const mp_pd *pd, struct mp_pd_topo *t /* OUT */);
void mp_pd_topo_fini(struct mp_pd_topo *t);
/* Physical memory by NUMA node (HEADER_MEM_TOPOLOGY: each node's memory blocks), as perf's
 * mem2node reads it: the node of a sample's physical address. */
struct mp_pd_memrange {
	uint64_t start, end; /* [start, end) */
	int32_t node;
};
struct mp_pd_memtopo {
	struct mp_pd_memrange *r; /* by start, adjacent blocks of a node joined */
	size_t n;
};
/* 0, -ENOENT when the recording has none, -EINVAL when it is malformed, -ENOMEM. Free
 * with mp_pd_memtopo_fini(). */
int mp_pd_memtopo_read(const mp_pd *pd, struct mp_pd_memtopo *m /* OUT */);
void mp_pd_memtopo_fini(struct mp_pd_memtopo *m);
/* The node holding physical address pa, -1 when none does (or m has no ranges). */
int mp_pd_memtopo_node(const struct mp_pd_memtopo *m, uint64_t pa);

/* Tracepoints' formats (mp_pd_trace.c): the HEADER_TRACING_DATA payload perf record and
 * memprof record write (trace-event-info: header_page, header_event, ftrace's and the
 * events' format files, kallsyms, printk formats, saved cmdlines), parsed into each event's
 * fields (name, offset, size, signed) and print format, and a RAW payload printed as perf
 * script prints it. Handles untrusted input: every length and offset is checked. */
typedef struct mp_pd_trace mp_pd_trace;
enum {
	MP_TPF_SIGNED = 1, MP_TPF_ARRAY = 2, MP_TPF_STRING = 4 /* char[N] */,
	MP_TPF_DYNAMIC = 8 /* __data_loc: u32 (len << 16 | offset) */, MP_TPF_POINTER = 16,
	MP_TPF_LONG = 32,
};
struct mp_pd_tp_field {
	const char *name, *type; /* "prev_pid", "pid_t" */
	uint32_t offset, size;
	unsigned flags;          /* MP_TPF_* */
};
struct mp_pd_tp_event {
	const char *system, *name; /* "sched", "sched_switch" */
	uint64_t id;               /* the attr's config */
	size_t nfields;            /* the common_* fields first, as the format lists them */
	const struct mp_pd_tp_field *fields;
	const char *print_fmt;     /* the text after "print fmt: " ("" when none) */
};
/* Parses a tracing-data payload (data, len bytes; name for errors). NULL + err (one line:
 * name, what is wrong and where) on malformed input. The result does not borrow data. */
mp_pd_trace *mp_pd_trace_parse(const void *data, size_t len, const char *name,
			       struct mp_err *err);
/* The recording's tracing data parsed; NULL + err when it has none (err names the file:
 * "x.data: no tracing data (HEADER_TRACING_DATA)") or it is malformed. */
mp_pd_trace *mp_pd_trace_open(const mp_pd *pd, struct mp_err *err);
void mp_pd_trace_free(mp_pd_trace *t); /* NULL-safe */
size_t mp_pd_trace_nevents(const mp_pd_trace *t);
const struct mp_pd_tp_event *mp_pd_trace_event_at(const mp_pd_trace *t, size_t i);
/* The event with this id (attr.config of a PERF_TYPE_TRACEPOINT event), NULL if none. */
const struct mp_pd_tp_event *mp_pd_trace_event(const mp_pd_trace *t, uint64_t id);
const struct mp_pd_tp_field *mp_pd_tp_field(const struct mp_pd_tp_event *e, const char *name);
/* A numeric field's value in a RAW payload (sign-extended when signed): 0, or -ENOENT (no
 * such field, or not numeric) / -ERANGE (outside the payload). */
int mp_pd_tp_num(const struct mp_pd_tp_event *e, const char *field, const void *raw,
		 size_t n, uint64_t *val /* OUT */);
/* The payload as perf script prints it after the event name: the event's print format
 * interpreted where it uses the common subset (conversions %d %i %u %x %o %c %s %p with
 * flags, width and length; REC->field, integer and string constants, C's arithmetic,
 * bitwise, comparison and ?: operators, casts, __get_str, __print_flags and
 * __print_symbolic); other events (and payloads too short for their format) as each
 * field's "name=value" after the common ones. Appended to out: 0, or -ENOMEM. */
int mp_pd_tp_print(const struct mp_pd_tp_event *e, const void *raw, size_t n,
		   struct mp_buf *out);
/* The fields alone, "name=value" separated by spaces, as above. 0 or -ENOMEM. */
int mp_pd_tp_print_fields(const struct mp_pd_tp_event *e, const void *raw, size_t n,
			  struct mp_buf *out);
/* The cache-line size the recording was made with: the simulated L1d's line (meta
 * sim.D1), else the line size of the first data or unified cache of HEADER_CACHE; 0 when
 * the recording says neither. */
uint32_t mp_pd_cache_line_size(const mp_pd *pd);
uint32_t mp_pd_nr_cpus(const mp_pd *pd);
/* HEADER_NRCPUS "available" (0 when absent): the CPUs perf's per-CPU tables count. */
uint32_t mp_pd_nr_cpus_avail(const mp_pd *pd);
/* memprof meta key (see mp_pdw_set_meta), NULL when absent. Read from memprof's own
 * feature (bit MP_HEADER_MEMPROF = 200, "key=value" lines); its "event.N.spec" keys
 * also fill mp_pd_attr.spec. Strings stay valid until mp_pd_close(). */
const char *mp_pd_meta(const mp_pd *pd, const char *key);
/* For a simulated recording (meta "simulated", written by memprof record --sim): one line
 * that says so, with the simulated cache geometry, written into buf; NULL otherwise.
 * Every output built from such a file prints it. */
const char *mp_pd_sim_banner(const mp_pd *pd, char *buf, size_t len);

/* The named regions of a recording made with record --regions (its meta keys "regions.*"):
 * which region a sample of thread tid at time fell in. Region 0 is "[no region]"; region
 * k (1..count) is the k-th region declared, named by its path ("outer/inner"). */
typedef struct mp_pd_regions mp_pd_regions;
/* *out = NULL when the recording has no regions. 0, or -EINVAL (malformed meta, err names
 * the entry) or -ENOMEM. */
int mp_pd_regions_load(const mp_pd *pd, mp_pd_regions **out /* OUT */, struct mp_err *err);
void mp_pd_regions_free(mp_pd_regions *r); /* NULL-safe */
/* The innermost region thread tid had open at time (0 when none, or r is NULL). */
uint32_t mp_pd_region_of(const mp_pd_regions *r, uint32_t tid, uint64_t time);
size_t mp_pd_regions_count(const mp_pd_regions *r);
/* Name of region 0..count ("[no region]" for 0 and out of range); borrowed. */
const char *mp_pd_region_name(const mp_pd_regions *r, uint32_t region);

/* The allocation records of a recording (MP_HEADER_ALLOC), checked at open: a malformed
 * payload (sizes that do not add up, a site past the end) is dropped whole with one
 * warning naming the file. Records come in the file's order (by time); a record's site is
 * checked against nr_sites (out of range reads as MP_ALLOC_NO_SITE) and kind against
 * MP_ALLOC_KIND_MAX by whoever uses it. */
struct mp_pd_allocs {
	uint64_t nr_recs, nr_sites, lost;
};
/* 0 and *out filled, or -ENOENT when the recording has none. */
int mp_pd_allocs(const mp_pd *pd, struct mp_pd_allocs *out /* OUT */);
/* Record idx (< nr_recs) copied into *r (the payload may be unaligned); -ERANGE past the
 * end. An unknown site is set to MP_ALLOC_NO_SITE. */
int mp_pd_alloc_rec(const mp_pd *pd, uint64_t idx, struct mp_alloc_rec *r /* OUT */);
/* Site idx: its pid, and its ips (borrowed, valid until mp_pd_close(); nr <= 
 * MP_ALLOC_MAX_DEPTH). -ERANGE for an unknown site. */
int mp_pd_alloc_site(const mp_pd *pd, uint32_t idx, uint32_t *pid /* OUT */,
		     const uint64_t **ips /* OUT */, uint32_t *nr /* OUT */);

struct mp_pd_build_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t id[20];
	uint8_t id_len;
	const char *filename;
};
size_t mp_pd_nbuild_ids(const mp_pd *pd);
const struct mp_pd_build_id *mp_pd_build_id(const mp_pd *pd, size_t idx);

/* ---- two recordings compared (mp_pd_match.c): report -i A -i B, diff, annotate ---- */
/* Match the events ev[0..nev) of recording a to those of b by their attributes (type,
 * config, config1/2, exclude_user/kernel/hv/guest; not the sampling period): map[j] = b's
 * attr of a's ev[j]. -EINVAL with err naming b's file and the event when b lacks one, or
 * when b has samples of an event a does not show. apath/bpath name the files. */
int mp_pd_attrs_match(const mp_pd *a, const char *apath, const size_t *ev, size_t nev,
		      const mp_pd *b, const char *bpath, size_t *map /* OUT: [nev] */,
		      struct mp_err *err);

/* The first object of b's build-id table that a's table lists under the same path with
 * another build-id (another build of the program), or NULL; borrowed from b. */
const char *mp_pd_build_id_differs(const mp_pd *a, const mp_pd *b);

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
	/* Further fields, 0/NULL when the sample_type lacks them. Pointers are borrowed for
	 * the duration of the callback. */
	uint16_t ins_lat;         /* WEIGHT_STRUCT: instruction latency (weight = var1) */
	uint64_t transaction, phys_addr, cgroup, data_page_size, code_page_size;
	uint64_t nr_branch;       /* BRANCH_STACK entries */
	const struct perf_branch_entry *branch;
	uint64_t branch_sample_type; /* BRANCH_STACK: the attr's (CALL_STACK: an LBR call stack) */
	uint32_t raw_size;        /* RAW (tracepoint payload) */
	const void *raw;
	uint64_t user_stack_size; /* STACK_USER: bytes dumped (dyn_size) */
	const void *user_stack;   /* STACK_USER: the dump (user_stack_size bytes from the user
	                           * sp), NULL when none; may be unaligned */
	uint64_t regs_user_abi;   /* REGS_USER: PERF_SAMPLE_REGS_ABI_*, 0 = no user registers */
	uint64_t regs_user_mask;  /* REGS_USER: the attr's sample_regs_user */
	const void *regs_user;    /* REGS_USER: one u64 per bit of the mask, in bit order; may
	                           * be unaligned (memcpy); NULL when abi is 0 */
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

struct mp_pd_switch {   /* SWITCH, SWITCH_CPU_WIDE (record --switch-events) */
	uint32_t pid, tid;    /* the task switched in or out (the record's sample_id) */
	uint32_t cpu;         /* with sample_id's CPU, else 0 */
	uint64_t time;        /* 0 without sample_id's time */
	int out;              /* 1: switched out, 0: switched in */
	int preempt;          /* switched out while runnable (preempted) */
	int cpu_wide;         /* SWITCH_CPU_WIDE: other_* below are known */
	uint32_t other_pid, other_tid; /* the task switched in (when out) or out (when in) */
};

struct mp_pd_handler {
	void *ctx;
	/* Any callback may be NULL; a non-zero return stops processing and is returned. */
	int (*sample)(void *ctx, const struct mp_pd_sample *s);
	/* May be given instead of sample() n samples (period: their sum), each the sample
	 * that sample() got last again, with no other record delivered between: the same
	 * attr, cpumode, ip, pid, tid and cpu (times, periods, addr and ids may differ).
	 * Return 0 when taken, > 0 to have them given to sample() in full; a handler that
	 * took one takes all further repeats of that sample (> 0 is then 0). */
	int (*sample_again)(void *ctx, size_t attr_idx, uint64_t n, uint64_t period);
	/* Not 0: what the handler makes of the samples between two other records does not
	 * depend on their order (it sums them), so they may come in any order among
	 * themselves, every other record still in time order between them (the reader then
	 * neither sorts nor splits a CPU buffer's samples when no other record is due with
	 * them; files whose samples carry counter values, PERF_SAMPLE_READ, keep time order) */
	int samples_any_order;
	int (*mmap)(void *ctx, const struct mp_pd_mmap *m);
	int (*comm)(void *ctx, const struct mp_pd_task *t);
	int (*fork)(void *ctx, const struct mp_pd_task *t);
	int (*exit)(void *ctx, const struct mp_pd_task *t);
	int (*lost)(void *ctx, size_t attr_idx, uint64_t lost);
	int (*task_switch)(void *ctx, const struct mp_pd_switch *w);
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
/* Samples of the last mp_pd_process() that no attr claimed (unknown sample id), as perf's
 * nr_unknown_id. */
uint64_t mp_pd_nr_unknown_id(const mp_pd *pd);
/* The counters the last mp_pd_process() read from PERF_RECORD_READ records (perf record
 * -s, inherit_stat: each task's final counts; memprof's exact counts), one per event and
 * task (pid, tid; -1 for a CPU-wide counter), in the order they first came: perf report
 * -T's table. i < mp_pd_nr_task_counts(); *out (OUT) filled. */
struct mp_pd_task_count {
	size_t attr_idx;
	int32_t pid, tid;
	struct mp_counts c; /* values summed; the largest enabled time, running times summed */
};
size_t mp_pd_nr_task_counts(const mp_pd *pd);
void mp_pd_task_count(const mp_pd *pd, size_t i, struct mp_pd_task_count *out);

/* Deliver records in time order as perf report does (queued between FINISHED_ROUND
 * records, flushed up to the previous round's newest timestamp). On by default; it only
 * takes effect when the attrs have sample_id_all and a non-sample callback (mmap, comm,
 * fork, exit) is set, since sample-only consumers do not depend on the order. */
void mp_pd_set_ordered(mp_pd *pd, int on);

/* ---- a recording rewritten (perf inject's way; mp_pd_rewrite.c) ---- */

/* Called with each record of the data section in file order (rec: header.size bytes,
 * borrowed). Return 0 to keep it as it is, 1 when buf (empty on entry) holds what goes in
 * its place (nothing: the record is dropped), or a negative code with err set to stop. */
typedef int (*mp_pd_rewrite_fn)(void *ctx, const struct perf_event_header *rec,
				struct mp_buf *buf, struct mp_err *err);
/* Copy pd's file (perf.data of this machine's byte order, not a pipe, data not compressed)
 * to out (mp_out: a new 0600 file renamed into place, the input refused as output), its
 * records through fn, the header, attrs and features as they are (the data size and the
 * features' offsets moved). 0, or a negative code with err naming the file. */
int mp_pd_rewrite(mp_pd *pd, const char *out, mp_pd_rewrite_fn fn, void *ctx,
		  struct mp_err *err);
/* The size of the sample_id trailer of pd's non-sample records (0: none), and where its
 * time is in it (*time_off, -1: no time). */
size_t mp_pd_trailer(const mp_pd *pd, int *time_off /* OUT */);

/* ===== (3) the writer ================================================================== */

typedef struct mp_pdw mp_pdw;

/* Create a writer that writes to path. path must be absent or a regular file (a device
 * or FIFO is refused, never replaced). Data goes to "path.tmp.XXXXXX" (same directory, a
 * random name created with O_EXCL, mode 0600) and is renamed to path by mp_pdw_close(),
 * the previous path kept as path.old: a failed run leaves no half-written file at path
 * and path unchanged. If the process dies mid-run, the temporary file is still a
 * readable perf.data file up to the last mp_pdw_sync() (the header is rewritten there).
 * path "-": perf's pipe format, written in order to a copy of standard output (attrs as
 * HEADER_ATTR records first, features as records after the data; no temporary file).
 * NULL on error (err set). */
mp_pdw *mp_pdw_create(const char *path, struct mp_err *err);
/* The temporary file's name (for tests and messages); "-" in pipe mode. */
const char *mp_pdw_tmp_path(const mp_pdw *w);
/* Set err to the one line saying that writing failed with rc (a negative errno) and what
 * became of the recording (lost, the old file kept; incomplete on a pipe). Returns rc. */
int mp_pdw_write_failed(const mp_pdw *w, int rc, struct mp_err *err);

/* Add an event attribute with its sample ids. attr is copied, and written with
 * attr.size <= 128 (perf 6.1 refuses larger ones in file mode). name is the EVENT_DESC
 * name (the resolved name); spec is what the user wrote (kept in memprof's own feature).
 * Every event has the first one's sample_type and sample_id_all, but for the memory fields
 * (ADDR, WEIGHT, WEIGHT_STRUCT, DATA_SRC, PHYS_ADDR, DATA_PAGE_SIZE, CODE_PAGE_SIZE) of
 * events with PERF_SAMPLE_IDENTIFIER (-EINVAL else). Returns the attribute's index. */
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

/* The attrs leader .. leader + nr - 1 are one event group (HEADER_GROUP_DESC, as perf
 * writes it for '{a,b}': perf report then shows its group view). nr < 2: no group. */
void mp_pdw_set_group(mp_pdw *w, size_t leader, size_t nr);

/* pid/tid written into the PERF_RECORD_READ records of mp_pdw_add_counts() (the
 * workload's pid; -1 = none, the default). */
void mp_pdw_set_read_pid(mp_pdw *w, pid_t pid);

/* Exact final counts of an event's counter id (value, time enabled, time running), stored
 * in the file (PERF_RECORD_READ per event id at the end of data, and memprof's counts
 * feature). A second call for the same id replaces its counts. */
int mp_pdw_add_counts(mp_pdw *w, int attr_idx, uint64_t id, const struct mp_counts *c);

/* Allocation records (MP_HEADER_ALLOC; the file's layout is in section (1)). Records may
 * come in any order: mp_pdw_close() sorts them by time (stable: records of one time keep
 * their order) and writes them with the sites after the other features. They wait in an
 * unlinked temporary file (TMPDIR or /tmp, 0600), not in memory.
 * mp_pdw_alloc_site: the site of pid's call chain ips[0..nr) (ip[0] = the return address
 * into malloc's caller; nr cut to MP_ALLOC_MAX_DEPTH), the same index for the same chain
 * and pid; *site OUT. 0 or -ENOMEM / -errno. */
int mp_pdw_alloc_site(mp_pdw *w, uint32_t pid, const uint64_t *ips, uint32_t nr,
		      uint32_t *site /* OUT */);
/* One record (r->site from mp_pdw_alloc_site or MP_ALLOC_NO_SITE). 0 or -errno (-EINVAL
 * for a kind out of range or a site not given out). */
int mp_pdw_alloc_add(mp_pdw *w, const struct mp_alloc_rec *r);
/* Records the tracker lost (the payload's lost count; add MP_ALLOC_LOST records to say
 * whose and when). */
void mp_pdw_alloc_lost(mp_pdw *w, uint64_t n);
uint64_t mp_pdw_alloc_count(const mp_pdw *w);

/* memprof key=value metadata kept in memprof's own feature section, e.g.
 * "simulated"="callgrind", "sim.D1"="32768,8,64". perf ignores it. */
int mp_pdw_set_meta(mp_pdw *w, const char *key, const char *value);
/* A header feature given as its finished payload (perf's layout), for the features this
 * writer does not build itself: MP_HEADER_CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE,
 * MEM_TOPOLOGY, TRACING_DATA (the events module's mp_tp_tracing_data). The bytes are copied. 0, -EINVAL (another feature), -ENOMEM. */
int mp_pdw_set_feature(mp_pdw *w, int feature, const void *data, size_t len);
/* The machine's topology as perf records it (CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE), read
 * through memprof's numa library. 0, or a negative errno when the topology is unreadable
 * (the features are then left out). */
int mp_pdw_set_topology(mp_pdw *w);

/* Rewrite the header so the file is readable as it stands now. */
int mp_pdw_sync(mp_pdw *w, struct mp_err *err);
/* Write features and header, close, rename .tmp to path. 0 or negative code. */
int mp_pdw_close(mp_pdw *w, struct mp_err *err);
/* Close and delete the .tmp file (a run that never started). NULL-safe. */
void mp_pdw_abort(mp_pdw *w);

/* What the record run reads back from its writer. */
/* Samples and throttle records written so far for attr idx; lost samples in total. */
int mp_pdw_get_stats(const mp_pdw *w, int attr_idx, uint64_t *samples, uint64_t *throttled,
		     uint64_t *lost);
uint64_t mp_pdw_lost_total(const mp_pdw *w);
uint64_t mp_pdw_bytes(const mp_pdw *w);
/* Size of the sample_id trailer of attr idx and its encoding (buf >= 64 bytes). */
size_t mp_pdw_id_trailer(const mp_pdw *w, int attr_idx, uint32_t pid, uint32_t tid,
			 uint64_t time, uint32_t cpu, void *buf);

/* Synthesized records (mp_pdw_synth.c): what existed before the recording began, as perf's
 * synthetic events, each with attr 0's sample_id trailer (cpu 0, the time given). A COMM
 * (the name cut to the kernel's 15 characters); an MMAP or MMAP2 of m->file. 0, the error
 * of mp_pdw_write(), or -ENAMETOOLONG for a name over MP_PDW_MAP_NAME_MAX bytes. */
int mp_pdw_put_comm(mp_pdw *w, uint32_t pid, uint32_t tid, const char *comm, uint64_t time);
#define MP_PDW_MAP_NAME_MAX 4000
struct mp_pdw_map {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;      /* MMAP2: the device, inode and protection of the mapping */
	uint64_t ino;
	uint32_t prot, flags;
	uint16_t misc;          /* PERF_RECORD_MISC_USER or PERF_RECORD_MISC_KERNEL */
	int mmap2;              /* 0: PERF_RECORD_MMAP (perf's kernel map) */
	uint64_t time;          /* of the trailer */
	const char *file;
};
int mp_pdw_put_mmap(mp_pdw *w, const struct mp_pdw_map *m);

#endif
