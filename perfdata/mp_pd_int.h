/* mp_pd_int.h - the reader's state (struct mp_pd, one mp_pd_process() run),
 * shared by its files (mp_pd.c, mp_pd_*.c) and its tests. Not a public contract.
 * The perf.data layout constants live in include/mp_perfdata.h. */
#ifndef MP_PD_INT_H
#define MP_PD_INT_H

#include <stdint.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "mp_perfdata.h"
#include "mp_pd_queue.h"

#define PD_NTYPES 128
/* Bounds for zstd output: a compressed record holds one ring-buffer flush (perf writes at
 * most its mmap size per record), so 64 MiB is generous; the total ratio bound stops a
 * small hostile file from expanding into gigabytes. */
#define PD_ZSTD_REC_MAX (64u << 20)
#define PD_ZSTD_RATIO_MAX 512
/* decompressed data is walked whenever this much is buffered */
#define PD_ZSTD_WALK_CHUNK (1u << 20)
/* the data section of a file is read in windows of this size into reused buffers: walking
 * a fresh mapping of the whole file pays a first-touch fault per page (most of the time
 * of a report of ten million samples on a virtual machine) */
#define PD_WIN_SIZE PD_CHUNK_SIZE /* within the L2 cache of most CPUs */
/* files with more data than this are read ahead by a second thread (PD_AHEAD windows);
 * each window has room for a record carried over from the one before (PD_HEAD) */
#define PD_THREAD_MIN (4 * (uint64_t)PD_WIN_SIZE)
#define PD_AHEAD 3
/* sample fields after READ: a sample with none of them skips that part in one test */
#define PD_TAIL_BITS                                                                          \
	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |                  \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |                  \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |           \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                   \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* ---- the handle ------------------------------------------------------------------ */

struct pd_iattr {               /* decoding facts cached per attr */
	/* where the fields sit; samples of fixed-size fields only (lay.fixed_only: no READ,
	 * CALLCHAIN, RAW, ...) are decoded in one step from its offsets */
	struct mp_sample_layout lay;
	int sid_all;                /* lay.sample_id_all */
	unsigned nregs_user, nregs_intr;
	int branch_hw_idx;
	char *name;                 /* owned */
	char *spec;                 /* owned, memprof only */
	uint64_t *ids;              /* owned */
};

struct pd_sid {
	uint64_t id;
	uint64_t prev;              /* last group-read value (PERF_SAMPLE_READ deltas) */
	uint32_t attr;
	uint32_t used;
};

struct pd_bid {
	struct mp_pd_build_id pub;
	char *fname;
};

struct pd_meta {
	char *key, *val;
};

/* The read-ahead thread: reads the data section window by window (PD_AHEAD ahead of the
 * walk) into buffers the walk gives back once their records are delivered. */
struct pd_reader {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_ready, cv_space;
	int fd;
	uint64_t fpos, dend;
	struct pd_chunk *ready, *ready_tail, *free;
	size_t nready, nfree;
	int stop, done, err; /* err: 0, -errno, or 1 for a short file */
	uint64_t err_off;
};

/* One counter as multiplexing sees it: a task's per-CPU counters of an event together
 * (each runs only while the task is on its CPU; together they run while it runs), or one
 * CPU-wide counter (pid -1) alone. */
struct pd_rdctr {
	size_t attr;
	int32_t pid, tid; /* -1: CPU-wide, never merged */
	struct mp_counts c; /* summed value and running time, the largest enabled time */
};

struct mp_pd {
	char *path;
	int fd;
	const uint8_t *map;
	size_t size;
	int own_map;
	int pipe;
	uint64_t data_off, data_size;
	uint64_t prescan_end;       /* pipe mode: user records before this were read at open */

	struct mp_pd_attr *attrs;
	struct pd_iattr *ia;
	size_t nattrs, cattrs;
	/* the id that tells a record's event (attr 0's layout: one for all attrs): in a
	 * sample, its byte offset (mp_sample_layout.event_id); in the trailer of another
	 * record, bytes back from its end (tr_event_id); 0 = none */
	unsigned id_off, id_back;

	struct pd_sid *sids;
	size_t sid_cap, nsids;

	struct {
		uint64_t off, size;
		int present;
	} feat[MP_HEADER_FEAT_BITS];
	char *fstr[MP_HEADER_FEAT_BITS];  /* owned strings of the string features */
	struct mp_buf fraw[32];            /* payloads kept whole (topology features) */
	uint32_t nr_cpus_avail, nr_cpus_online;

	struct pd_bid *bids;
	size_t nbids, cbids;

	struct pd_meta *meta;
	size_t nmeta, cmeta;

	uint64_t counts[PD_NTYPES];
	uint64_t nr_unknown;
	struct pd_rdctr *rdctr;     /* counters of the READ records, per task or CPU */
	size_t nrdctr, crdctr;
	int ordered;
	int runs;                   /* mp_pd_process() calls so far */

	/* strings replaced while callers may still hold them (names from EVENT_UPDATE,
	 * features repeated in the stream): freed at close only */
	char **gc;
	size_t ngc, cgc;

	/* allocation records (MP_HEADER_ALLOC, mp_pd_alloc.c): the payload (in the map, or
	 * the pipe's pieces joined in abuf), checked at open; ok = usable */
	struct pd_allocs {
		const uint8_t *p, *recs;
		size_t n;
		struct mp_buf abuf;
		int ok;
		uint64_t nrecs, nsites, lost;
		uint64_t *ips;     /* every site's ips, copied (aligned) */
		uint64_t *first;   /* [nsites + 1] index of each site's first ip in ips */
		uint32_t *pid;     /* [nsites] */
	} alloc;

	/* scratch (grown once, reused: no per-sample allocation) */
	void *scratch_cc;           /* call chains (u64) */
	size_t scratch_cc_cap;
	void *scratch_br;           /* branch stacks (struct perf_branch_entry) */
	size_t scratch_br_cap;
	char *scratch_str;
	size_t scratch_str_cap;
};

/* mp_pd_alloc.c: a payload of MP_HEADER_ALLOC (file: whole; pipe: one piece of it,
 * joined in order), checked by mp_pd_alloc_load() at the end of the open; freed by
 * mp_pd_alloc_fini(). */
void mp_pd_alloc_piece(mp_pd *pd, const uint8_t *p, size_t n, int whole);
void mp_pd_alloc_load(mp_pd *pd);
void mp_pd_alloc_fini(mp_pd *pd);

/* Bytes a record carries after its header-declared size: HEADER_TRACING_DATA's tracing
 * data and AUXTRACE's trace follow the record in the stream. */
static inline uint64_t mp_pd_record_extra(uint32_t type, const uint8_t *r, uint16_t size)
{
	if (type == MP_RECORD_HEADER_TRACING_DATA && size >= 12)
		return ((uint64_t)mp_ld32(r + 8) + 7) & ~7ULL;
	if (type == MP_RECORD_AUXTRACE && size >= 16)
		return mp_ld64(r + 8);
	return 0;
}

__attribute__((format(printf, 4, 5))) static inline int PD_ERR(const mp_pd *pd, struct mp_err *err, int code,
							 const char *fmt, ...)
{
	char msg[MP_ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mp_err_set(err, code, "%s: %s", pd->path, msg);
	return code;
}

static inline int pd_err_rec(mp_pd *pd, struct mp_err *err, uint64_t off, const char *what)
{
	mp_err_set(err, -MP_EFORMAT, "%s: record at offset %#" PRIx64 ": %s", pd->path, off, what);
	return -MP_EFORMAT;
}

/* ---- one mp_pd_process() run -----------------------------------------------------
 * Made and freed by mp_pd_process() (mp_pd_walk.c), which owns the walk's own parts: the
 * window being walked, the read-ahead thread, progress. Every other part has one owner:
 * q, the sample queue (mp_pd_queue.c); z, the zstd stream (mp_pd_zstd.c); fs and rk, the
 * fast path's sample and the repeat key (mp_pd_decode.c, where the queue delivers). */

struct pd_zstd {
	ZSTD_DStream *zs;
	uint8_t *zbuf;              /* decompressed bytes not yet walked (a partial record) */
	size_t zlen, zcap;
	uint64_t zin_total, zout_total;
};

struct pd_run {
	mp_pd *pd;
	const struct mp_pd_handler *h;
	struct mp_err *err;
	int ordered;

	struct pd_queue q;          /* ordered delivery (its sample_time: the time's offset in
				     * every sample when one attr, or samples without an id, and
				     * ordered; 0 when the samples' attrs differ: mp_pd_rec_time
				     * tells then) */
	struct pd_zstd z;
	struct pd_reader *rd;       /* the read-ahead thread, when there is one */

	/* the fast path's sample: the fields sample_fixed does not set stay 0 */
	struct mp_pd_sample fs;
	/* the sample the queue's flush delivered last through the fast path, while nothing
	 * else has been delivered since: its header word and the words of its key (attr
	 * ids, ip, pid/tid, cpu) at their offsets (0, the header's, for a field it lacks),
	 * for mp_pd_sample_repeat. state: RK_NONE, RK_ASK (h->sample_again not asked yet
	 * for this sample), RK_TAKEN (it took a repeat: it takes every further one); nrep,
	 * prep: the repeats it took in this flush, not yet given to the handler. */
	struct {
		int state;
		size_t attr;
		uint64_t hdr, period;
		uint8_t off[4], o_period;
		uint64_t val[4];
		uint64_t nrep, prep;
	} rk;

	/* progress */
	uint64_t prog_step, prog_next;
	uint64_t dropped;           /* file bytes below this were given back (MADV_DONTNEED) */
};

#define PD_SLOW INT_MIN /* sample_fast: not a sample it decodes */

/* mp_pd.c */
void mp_pd_handle_event_update(mp_pd *pd, const uint8_t *r, size_t size);

/* mp_pd_header.c */
struct pd_sid *mp_pd_sid_find(const mp_pd *pd, uint64_t id);
void mp_pd_set_name(mp_pd *pd, size_t i, const uint8_t *s, size_t max);
int mp_pd_add_attr(mp_pd *pd, const uint8_t *raw, size_t rawlen, const uint8_t *ids,
		   size_t nids);
int mp_pd_finish_attrs(mp_pd *pd);
int mp_pd_add_build_id(mp_pd *pd, const uint8_t *r, size_t size);
int mp_pd_parse_feature(mp_pd *pd, unsigned feat, const uint8_t *p, size_t n);
const char *mp_pd_feat_name(unsigned b);

/* mp_pd_decode.c */
uint64_t mp_pd_rec_time(const mp_pd *pd, const uint8_t *r, size_t size, uint32_t type);
void mp_pd_finish_counts(mp_pd *pd);
int mp_pd_deliver(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off);
/* The queue's delivery (ctx: the run): a queued record (pd_run_deliver, below, for the
 * queue's own flushes), and the end of a flush (the repeats counted in it go to the
 * handler). */
int mp_pd_deliver_queued(void *ctx, const uint8_t *rec, size_t size, uint64_t off);
int mp_pd_deliver_done(void *ctx);

/* mp_pd_zstd.c */
int mp_pd_do_compressed(struct pd_run *R, const uint8_t *payload, size_t n, uint64_t off);
void mp_pd_zstd_fini(struct pd_zstd *z);

/* mp_pd_walk.c */
int mp_pd_walk(struct pd_run *R, const uint8_t *buf, size_t len, uint64_t base, int mode,
	       size_t *consumed);

/* ---- the sample fast path, inline in the walk and the queue's flush (mp_pd_decode.c's
 * slow path shares its parts) ---- */

/* attr of a sample record; SIZE_MAX when the id is unknown */
static inline size_t mp_pd_sample_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	if (pd->nattrs == 1 || !pd->id_off)
		return 0;
	size_t o = pd->id_off;
	if (o + 8 > size)
		return SIZE_MAX;
	struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(r + o));
	return s ? s->attr : SIZE_MAX;
}

static inline int mp_pd_call_sample(struct pd_run *R, const struct mp_pd_sample *s)
{
	struct mp_pd_attr *a = &R->pd->attrs[s->attr_idx];
	a->nr_samples++;
	a->total_period += s->period;
	if (R->h && R->h->sample)
		return R->h->sample(R->h->ctx, s);
	return 0;
}

/* The fixed-size fields, IDENTIFIER to PERIOD, each at its offset (0 when absent), of a
 * sample of at least L->fixed_size bytes (record r, attr ai). */
static inline void mp_pd_sample_fixed(const mp_pd *pd, size_t ai, const struct mp_sample_layout *L,
				      const uint8_t *r, struct mp_pd_sample *s)
{
	s->id = L->sample_id ? mp_ld64(r + L->sample_id) : 0;
	s->ip = L->ip ? mp_ld64(r + L->ip) : 0;
	s->pid = L->tid ? mp_ld32(r + L->tid) : 0;
	s->tid = L->tid ? mp_ld32(r + L->tid + 4) : 0;
	s->time = L->time ? mp_ld64(r + L->time) : 0;
	s->addr = L->addr ? mp_ld64(r + L->addr) : 0;
	s->stream_id = L->stream_id ? mp_ld64(r + L->stream_id) : 0;
	s->cpu = L->cpu ? mp_ld32(r + L->cpu) : 0;
	s->period = L->period ? mp_ld64(r + L->period) : pd->attrs[ai].attr.sample_period;
}

/* A sample of fixed-size fields only (the common case), apart from mp_pd_deliver (whose
 * frame, for every record type, is large); PD_SLOW for any other record. */
static inline int mp_pd_sample_fast(struct pd_run *R, const uint8_t *r, size_t size)
{
	mp_pd *pd = R->pd;
	if (mp_ld32(r) != PERF_RECORD_SAMPLE)
		return PD_SLOW;
	size_t ai = mp_pd_sample_attr(pd, r, size);
	if (ai == SIZE_MAX)
		return PD_SLOW;
	const struct mp_sample_layout *L = &pd->ia[ai].lay;
	if (!L->fixed_only || size < L->fixed_size)
		return PD_SLOW;
	/* R->fs: its other fields were zeroed at the start of the run and nothing else
	 * writes them (the callbacks get it const) */
	struct mp_pd_sample *s = &R->fs;
	s->attr_idx = ai;
	s->cpumode = mp_ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	mp_pd_sample_fixed(pd, ai, L, r, s);
	return mp_pd_call_sample(R, s);
}

enum { RK_NONE, RK_ASK, RK_TAKEN };

/* After mp_pd_sample_fast delivered record r (R->fs) from the queue's flush: its key. */
static inline void mp_pd_sample_remember(struct pd_run *R, const uint8_t *r)
{
	const struct mp_sample_layout *L = &R->pd->ia[R->fs.attr_idx].lay;
	R->rk.state = RK_ASK;
	R->rk.attr = R->fs.attr_idx;
	R->rk.hdr = mp_ld64(r);
	/* the word that tells the attr (as mp_pd_sample_attr reads it), ip, pid/tid and cpu
	 * (whose word holds a reserved half too: compared whole) */
	R->rk.off[0] = R->pd->nattrs == 1 ? 0 : (uint8_t)R->pd->id_off;
	R->rk.off[1] = L->ip;
	R->rk.off[2] = L->tid;
	R->rk.off[3] = L->cpu;
	for (int i = 0; i < 4; i++)
		R->rk.val[i] = mp_ld64(r + R->rk.off[i]);
	R->rk.o_period = L->period;
	R->rk.period = R->pd->attrs[R->fs.attr_idx].attr.sample_period;
}

/* Is record r (of at least 8 bytes) the remembered sample again: the same header (type,
 * misc and size) and key words? Its time, period, addr and stream id may differ. */
static inline int mp_pd_sample_repeat(const struct pd_run *R, const uint8_t *r, uint64_t *period)
{
	if (((mp_ld64(r) ^ R->rk.hdr) | (mp_ld64(r + R->rk.off[0]) ^ R->rk.val[0]) |
	     (mp_ld64(r + R->rk.off[1]) ^ R->rk.val[1]) | (mp_ld64(r + R->rk.off[2]) ^ R->rk.val[2]) |
	     (mp_ld64(r + R->rk.off[3]) ^ R->rk.val[3])) != 0)
		return 0;
	*period = R->rk.o_period ? mp_ld64(r + R->rk.o_period) : R->rk.period;
	return 1;
}

/* One queued record: the remembered sample again (counted in rk.nrep, rk.prep while the
 * handler takes repeats), a sample of fixed fields (remembered), or any other record. */
static inline __attribute__((always_inline)) int pd_run_deliver(void *ctx, const uint8_t *rec,
								 size_t size, uint64_t off)
{
	struct pd_run *R = ctx;
	int rc;
	uint64_t period;
	const int again = R->h && R->h->sample_again;
	if (again && R->rk.state != RK_NONE && mp_pd_sample_repeat(R, rec, &period)) {
		if (R->rk.state == RK_TAKEN) {
			R->rk.nrep++;
			R->rk.prep += period;
			return 0;
		}
		rc = R->h->sample_again(R->h->ctx, R->rk.attr, 1, period);
		if (rc <= 0) {
			if (!rc) {
				R->rk.state = RK_TAKEN;
				struct mp_pd_attr *a = &R->pd->attrs[R->rk.attr];
				a->nr_samples++;
				a->total_period += period;
			}
			return rc;
		}
	}
	if (R->rk.nrep && (rc = mp_pd_deliver_done(R)))
		return rc;
	rc = mp_pd_sample_fast(R, rec, size);
	if (rc == PD_SLOW)
		return mp_pd_deliver(R, rec, size, off);
	if (again)
		mp_pd_sample_remember(R, rec);
	return rc;
}

/* The reader's flushes with pd_run_deliver inlined (the queue's own, at its byte bound,
 * call mp_pd_deliver_queued). */
static inline int pd_run_flush(struct pd_run *R, uint64_t limit)
{
	return pd_q_flush_with(&R->q, limit, pd_run_deliver, R);
}

static inline int pd_run_round(struct pd_run *R)
{
	return pd_q_round_with(&R->q, pd_run_deliver, R);
}

#endif
