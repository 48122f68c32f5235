/* mp_perfdata.c - perf.data reader: file and pipe mode, perf 3.x to 6.x, zstd records.
 *
 * The file is mapped and decoded in place. Every load goes through ld64()/ld32() (memcpy)
 * because pipe-mode records are not 8-byte aligned and a hostile file can put anything
 * anywhere; every length is checked against the bytes that remain before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "mp_analyzer.h"
#include "mp_perfdata_internal.h"

#define PD_NTYPES 128
/* Bounds for zstd output: a compressed record holds one ring-buffer flush (perf writes at
 * most its mmap size per record), so 64 MiB is generous; the total ratio bound stops a
 * small hostile file from expanding into gigabytes. */
#define PD_ZSTD_REC_MAX (64u << 20)
#define PD_ZSTD_RATIO_MAX 512
/* The ordering queue is bounded by bytes, as perf's ordered_events: its live entries (in
 * the queue and its merge buffer) plus the queued records, counted alike whether a record
 * lies in a window of the file or was copied out of zstd output, so that a file and its
 * uncompressed form are delivered in the same order. Past the bound the older half is
 * delivered (perf's OE_FLUSH__HALF): a zstd file whose records expand a hundredfold is read
 * in memory bounded as an uncompressed one's. */
#define PD_QUEUE_BYTES (16u << 20)
#define PD_CHUNK_SIZE (1u << 18)
/* the data section of a file is read in windows of this size into reused buffers: walking
 * a fresh mapping of the whole file pays a first-touch fault per page (most of the time
 * of a report of ten million samples on a virtual machine) */
#define PD_WIN_SIZE PD_CHUNK_SIZE /* within the L2 cache of most CPUs */
#define PD_NSPARE 8
/* files with more data than this are read ahead by a second thread (PD_AHEAD windows);
 * each window has room for a record carried over from the one before (< 64 KiB) */
#define PD_THREAD_MIN (4 * (uint64_t)PD_WIN_SIZE)
#define PD_AHEAD 3
#define PD_HEAD (1u << 16)
/* sample fields after READ: a sample with none of them skips that part in one test */
#define PD_TAIL_BITS                                                                          \
	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |                  \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |                  \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |           \
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |                   \
	 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* ---- small helpers --------------------------------------------------------------- */

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return v;
}

/* ---- the handle ------------------------------------------------------------------ */

struct pd_iattr {               /* decoding facts cached per attr */
	uint64_t st, rf;
	int sid_all;
	unsigned trailer;           /* bytes of the sample_id trailer of non-sample records */
	unsigned nregs_user, nregs_intr;
	int branch_hw_idx;
	unsigned time_off;          /* offset of TIME in a sample record, 0 = none */
	unsigned trailer_time;      /* offset of TIME from the trailer start, UINT_MAX = none */
	/* samples of fixed-size fields only (no READ, CALLCHAIN, RAW, ...): each field's
	 * offset in the record (0 = absent) and the size they need, for one-step decoding */
	int fx;
	uint8_t o_ip, o_tid, o_time, o_addr, o_id, o_stream, o_cpu, o_period;
	unsigned fx_size;
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

struct pd_chunk {               /* arena chunk for queued records that live in zstd output,
				 * or a window of the data section (walk_windows) */
	struct pd_chunk *next;
	size_t used, cap, live;
	int retired;
	uint8_t *data;
	uint64_t foff;              /* read-ahead window: file offset of data + PD_HEAD */
	int ahead;                  /* a read-ahead window: given back to the reader */
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

struct pd_qent {
	uint64_t ts;
	const uint8_t *rec;
	uint64_t off;               /* file offset (of the COMPRESSED record for inner ones) */
	struct pd_chunk *ch;
};

/* One counter as multiplexing sees it: a task's per-CPU counters of an event together
 * (each runs only while the task is on its CPU; together they run while it runs), or one
 * CPU-wide counter (pid -1) alone. */
struct pd_rdctr {
	size_t attr;
	int32_t pid, tid; /* -1: CPU-wide, never merged */
	uint64_t ena, run; /* largest enabled time, summed running time */
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
	int id_pos, is_pos;         /* in u64 from the start / from the end; -1 = none */

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

	/* scratch (grown once, reused: no per-sample allocation) */
	uint64_t *scratch_cc;
	size_t scratch_cc_cap;
	struct perf_branch_entry *scratch_br;
	size_t scratch_br_cap;
	char *scratch_str;
	size_t scratch_str_cap;
};

/* ---- errors ---------------------------------------------------------------------- */

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 4, 5))) static int PD_ERR(const mp_pd *pd, struct mp_err *err, int code,
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

static int pd_err_rec(mp_pd *pd, struct mp_err *err, uint64_t off, const char *what)
{
	mp_err_set(err, -MP_EFORMAT, "%s: record at offset %#" PRIx64 ": %s", pd->path, off, what);
	return -MP_EFORMAT;
}

/* ---- id table --------------------------------------------------------------------- */

static uint64_t sid_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static struct pd_sid *sid_find(const mp_pd *pd, uint64_t id)
{
	if (!pd->sid_cap)
		return NULL;
	size_t mask = pd->sid_cap - 1;
	for (size_t i = sid_hash(id) & mask;; i = (i + 1) & mask) {
		struct pd_sid *s = &pd->sids[i];
		if (!s->used)
			return NULL;
		if (s->id == id)
			return s;
	}
}

static int sid_insert(mp_pd *pd, uint64_t id, uint32_t attr)
{
	if ((pd->nsids + 1) * 2 > pd->sid_cap) {
		size_t ncap = pd->sid_cap ? pd->sid_cap * 2 : 64;
		struct pd_sid *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < pd->sid_cap; i++) {
			if (!pd->sids[i].used)
				continue;
			size_t j = sid_hash(pd->sids[i].id) & (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = pd->sids[i];
		}
		free(pd->sids);
		pd->sids = n;
		pd->sid_cap = ncap;
	}
	size_t mask = pd->sid_cap - 1;
	size_t i = sid_hash(id) & mask;
	while (pd->sids[i].used) {
		if (pd->sids[i].id == id)
			return 0; /* first attr claiming an id wins, as in perf's hash */
		i = (i + 1) & mask;
	}
	pd->sids[i].used = 1;
	pd->sids[i].id = id;
	pd->sids[i].attr = attr;
	pd->sids[i].prev = 0;
	pd->nsids++;
	return 0;
}

/* ---- names ------------------------------------------------------------------------ */

/* perf's evsel__name() for an attr without EVENT_DESC: base name plus modifiers. */
static char *derive_name(const struct perf_event_attr *a)
{
	char buf[128];
	int n = 0;
	uint64_t c = a->config;
	const char *base;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
		if ((base = mp_generic_name(a->type, c)))
			n = snprintf(buf, sizeof(buf), "%s", base);
		else
			n = snprintf(buf, sizeof(buf), "unknown-%s:%#" PRIx64,
				     a->type == PERF_TYPE_HARDWARE ? "hardware" : "software", c);
		break;
	case PERF_TYPE_HW_CACHE:
		if (mp_generic_cache_name(c & 0xffffff, buf, sizeof(buf)))
			n = (int)strlen(buf);
		else
			n = snprintf(buf, sizeof(buf), "invalid-cache:%#" PRIx64, c);
		break;
	case PERF_TYPE_TRACEPOINT:
		n = snprintf(buf, sizeof(buf), "tracepoint:%#" PRIx64, c);
		break;
	case PERF_TYPE_RAW:
		n = snprintf(buf, sizeof(buf), "r%" PRIx64, c);
		break;
	case PERF_TYPE_BREAKPOINT:
		n = snprintf(buf, sizeof(buf), "mem:%#" PRIx64, (uint64_t)a->bp_addr);
		break;
	default:
		n = snprintf(buf, sizeof(buf), "%u/%#" PRIx64 "/", a->type, c);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(buf) - 16)
		n = (int)strlen(buf);
	/* modifiers, as perf's evsel__add_modifiers() */
	int colon = 0, exclude_guest_default = 0;
#define MOD(cond, ch)                                   \
	do {                                            \
		if (cond) {                             \
			if (!colon) {                   \
				buf[n++] = ':';         \
				colon = 1;              \
			}                               \
			buf[n++] = (ch);                \
		}                                       \
	} while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(!a->exclude_kernel, 'k');
		MOD(!a->exclude_user, 'u');
		MOD(!a->exclude_hv, 'h');
		exclude_guest_default = 1;
	}
	if (a->precise_ip) {
		for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
			MOD(1, 'p');
		exclude_guest_default = 1;
	}
	if (a->exclude_host || (int)a->exclude_guest == exclude_guest_default) {
		MOD(!a->exclude_host, 'H');
		MOD(!a->exclude_guest, 'G');
	}
#undef MOD
	buf[n] = 0;
	return strdup(buf);
}

/* Retire a string callers may hold; NULL-safe. On allocation failure it leaks, which
 * is the lesser evil next to a dangling pointer. */
static void retire(mp_pd *pd, char *str)
{
	if (!str)
		return;
	if (pd->ngc == pd->cgc) {
		size_t nc = pd->cgc ? pd->cgc * 2 : 8;
		char **ng = realloc(pd->gc, nc * sizeof(*ng));
		if (!ng)
			return;
		pd->gc = ng;
		pd->cgc = nc;
	}
	pd->gc[pd->ngc++] = str;
}

static void set_name(mp_pd *pd, size_t i, const uint8_t *s, size_t max)
{
	size_t len = strnlen((const char *)s, max);
	char *n = malloc(len + 1);
	if (!n)
		return;
	memcpy(n, s, len);
	n[len] = 0;
	if (pd->ia[i].name && !strcmp(pd->ia[i].name, n)) {
		free(n);
		return;
	}
	retire(pd, pd->ia[i].name);
	pd->ia[i].name = n;
}

/* ---- attrs ------------------------------------------------------------------------ */

static unsigned popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

static int add_attr(mp_pd *pd, const uint8_t *raw, size_t rawlen, const uint8_t *ids,
		    size_t nids)
{
	if (pd->nattrs == pd->cattrs) {
		size_t nc = pd->cattrs ? pd->cattrs * 2 : 8;
		struct mp_pd_attr *na = realloc(pd->attrs, nc * sizeof(*na));
		if (!na)
			return -ENOMEM;
		pd->attrs = na;
		struct pd_iattr *ni = realloc(pd->ia, nc * sizeof(*ni));
		if (!ni)
			return -ENOMEM;
		pd->ia = ni;
		pd->cattrs = nc;
	}
	size_t idx = pd->nattrs;
	struct mp_pd_attr *a = &pd->attrs[idx];
	struct pd_iattr *ia = &pd->ia[idx];
	memset(a, 0, sizeof(*a));
	memset(ia, 0, sizeof(*ia));
	/* normalise: copy what the file has (attr.size, 0 = VER0), zero the rest */
	size_t asz = ld32(raw + 4) ? ld32(raw + 4) : PERF_ATTR_SIZE_VER0;
	if (asz > rawlen)
		asz = rawlen;
	memcpy(&a->attr, raw, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
	a->file_attr_size = a->attr.size ? a->attr.size : PERF_ATTR_SIZE_VER0;
	if (a->attr.size == 0)
		a->attr.size = PERF_ATTR_SIZE_VER0;
	a->group_leader_idx = (int)idx;
	if (nids) {
		ia->ids = malloc(nids * sizeof(uint64_t));
		if (!ia->ids)
			return -ENOMEM;
		for (size_t k = 0; k < nids; k++)
			ia->ids[k] = ld64(ids + 8 * k);
	}
	pd->nattrs++;
	a->ids = ia->ids;
	a->nids = nids;
	ia->st = a->attr.sample_type;
	ia->rf = a->attr.read_format;
	ia->sid_all = a->attr.sample_id_all;
	if (ia->sid_all)
		ia->trailer = 8 * popcount64(ia->st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						       PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
						       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
	ia->time_off = (ia->st & PERF_SAMPLE_TIME)
			       ? 8 + 8 * popcount64(ia->st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							      PERF_SAMPLE_TID))
			       : 0;
	ia->trailer_time = ia->sid_all && (ia->st & PERF_SAMPLE_TIME) ? ((ia->st & PERF_SAMPLE_TID) ? 8 : 0)
								      : UINT_MAX;
	const uint64_t fixed = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	ia->fx = !(ia->st & ~fixed);
	unsigned o = 8;
	/* in deliver_sample's order; ID after IDENTIFIER gives the id, as there */
#define FX_FIELD(bit, field)                     \
	if (ia->st & (bit)) {                    \
		ia->field = (uint8_t)o;          \
		o += 8;                          \
	}
	FX_FIELD(PERF_SAMPLE_IDENTIFIER, o_id)
	FX_FIELD(PERF_SAMPLE_IP, o_ip)
	FX_FIELD(PERF_SAMPLE_TID, o_tid)
	FX_FIELD(PERF_SAMPLE_TIME, o_time)
	FX_FIELD(PERF_SAMPLE_ADDR, o_addr)
	FX_FIELD(PERF_SAMPLE_ID, o_id)
	FX_FIELD(PERF_SAMPLE_STREAM_ID, o_stream)
	FX_FIELD(PERF_SAMPLE_CPU, o_cpu)
	FX_FIELD(PERF_SAMPLE_PERIOD, o_period)
#undef FX_FIELD
	ia->fx_size = o;
	ia->nregs_user = popcount64(a->attr.sample_regs_user);
	ia->nregs_intr = popcount64(a->attr.sample_regs_intr);
	ia->branch_hw_idx = !!(a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	for (size_t k = 0; k < nids; k++)
		if (sid_insert(pd, ia->ids[k], (uint32_t)idx))
			return -ENOMEM;
	return 0;
}

/* After all attrs are known: names, id positions, public pointers. */
static int finish_attrs(mp_pd *pd)
{
	for (size_t i = 0; i < pd->nattrs; i++) {
		struct mp_pd_attr *a = &pd->attrs[i];
		struct pd_iattr *ia = &pd->ia[i];
		if (!ia->name)
			ia->name = derive_name(&a->attr);
		if (!ia->name)
			return -ENOMEM;
		a->name = ia->name;
		a->spec = ia->spec ? ia->spec : ia->name;
		a->ids = ia->ids;
	}
	uint64_t st = pd->ia[0].st;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		pd->id_pos = 0;
		pd->is_pos = 1;
	} else if (st & PERF_SAMPLE_ID) {
		pd->id_pos = (int)popcount64(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						    PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
		pd->is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	} else {
		pd->id_pos = -1;
		pd->is_pos = -1;
	}
	return 0;
}

/* ---- features --------------------------------------------------------------------- */

/* perf_header_string: u32 len, then len bytes, NUL-padded. */
static int feat_string(const uint8_t *p, size_t n, size_t *used, char **out)
{
	if (n < 4)
		return -1;
	uint32_t len = ld32(p);
	if (len > n - 4)
		return -1;
	size_t sl = strnlen((const char *)p + 4, len);
	char *s = malloc(sl + 1);
	if (!s)
		return -1;
	memcpy(s, p + 4, sl);
	s[sl] = 0;
	*out = s;
	*used = 4 + (size_t)len;
	return 0;
}

static int add_build_id(mp_pd *pd, const uint8_t *r, size_t size)
{
	/* header(8), pid s32, build_id[24] (20 + size byte + pad), filename[] */
	if (size < 36)
		return -1;
	if (pd->nbids == pd->cbids) {
		size_t nc = pd->cbids ? pd->cbids * 2 : 16;
		struct pd_bid *nb = realloc(pd->bids, nc * sizeof(*nb));
		if (!nb)
			return -1;
		pd->bids = nb;
		pd->cbids = nc;
	}
	struct pd_bid *b = &pd->bids[pd->nbids];
	memset(b, 0, sizeof(*b));
	uint16_t misc = ld16(r + 4);
	b->pub.pid = (int32_t)ld32(r + 8);
	b->pub.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	memcpy(b->pub.id, r + 12, 20);
	b->pub.id_len = 20;
	if (misc & MP_MISC_BUILD_ID_SIZE) {
		uint8_t l = r[32];
		b->pub.id_len = l <= 20 ? l : 20;
	} else {
		/* old perf: size unknown, trailing zero bytes are padding of a shorter id */
		while (b->pub.id_len > 0 && b->pub.id[b->pub.id_len - 1] == 0)
			b->pub.id_len--;
	}
	size_t fl = strnlen((const char *)r + 36, size - 36);
	b->fname = malloc(fl + 1);
	if (!b->fname)
		return -1;
	memcpy(b->fname, r + 36, fl);
	b->fname[fl] = 0;
	b->pub.filename = b->fname;
	pd->nbids++;
	return 0;
}

static void parse_meta_blob(mp_pd *pd, const uint8_t *p, size_t n);

/* Parse one feature payload (file section or pipe HEADER_FEATURE body). Malformed feature
 * payloads are ignored, as perf does (it warns and goes on): they never affect samples. */
static int parse_feature(mp_pd *pd, unsigned feat, const uint8_t *p, size_t n)
{
	size_t used;
	char *s = NULL;

	switch (feat) {
	case MP_HEADER_HOSTNAME:
	case MP_HEADER_OSRELEASE:
	case MP_HEADER_VERSION:
	case MP_HEADER_ARCH:
	case MP_HEADER_CPUDESC:
	case MP_HEADER_CPUID:
		if (feat_string(p, n, &used, &s) == 0) {
			retire(pd, pd->fstr[feat]);
			pd->fstr[feat] = s;
		}
		return 0;
	case MP_HEADER_CPU_TOPOLOGY:
	case MP_HEADER_NUMA_TOPOLOGY:
	case MP_HEADER_CACHE:
		pd->fraw[feat].len = 0;
		if (mp_buf_append(&pd->fraw[feat], p, n))
			pd->fraw[feat].len = 0;
		return 0;
	case MP_HEADER_NRCPUS:
		if (n >= 8) {
			pd->nr_cpus_avail = ld32(p);
			pd->nr_cpus_online = ld32(p + 4);
		}
		return 0;
	case MP_HEADER_CMDLINE: {
		if (n < 4)
			return 0;
		uint32_t nr = ld32(p);
		size_t off = 4;
		struct mp_buf b = { 0 };
		for (uint32_t i = 0; i < nr && off < n; i++) {
			if (feat_string(p + off, n - off, &used, &s))
				break;
			if (i)
				mp_buf_append(&b, " ", 1);
			mp_buf_append(&b, s, strlen(s));
			free(s);
			off += used;
		}
		if (mp_buf_append(&b, "", 1) == 0) {
			retire(pd, pd->fstr[feat]);
			pd->fstr[feat] = b.data;
		} else {
			mp_buf_fini(&b);
		}
		return 0;
	}
	case MP_HEADER_EVENT_DESC: {
		if (n < 8)
			return 0;
		uint32_t nr = ld32(p), asz = ld32(p + 4);
		size_t off = 8;
		for (uint32_t i = 0; i < nr; i++) {
			if (asz > n - off)
				break;
			off += asz;
			if (n - off < 4)
				break;
			uint32_t nids = ld32(p + off);
			off += 4;
			if (feat_string(p + off, n - off, &used, &s))
				break;
			off += used;
			if (i < pd->nattrs && !pd->ia[i].name)
				pd->ia[i].name = s;
			else
				free(s);
			if (nids > (n - off) / 8)
				break;
			off += 8 * (size_t)nids;
		}
		return 0;
	}
	case MP_HEADER_GROUP_DESC: {
		if (n < 4)
			return 0;
		uint32_t nr = ld32(p);
		size_t off = 4;
		for (uint32_t i = 0; i < nr; i++) {
			if (feat_string(p + off, n - off, &used, &s))
				break;
			free(s);
			off += used;
			if (n - off < 8)
				break;
			uint32_t leader = ld32(p + off), nmem = ld32(p + off + 4);
			off += 8;
			if (leader >= pd->nattrs || nmem > pd->nattrs - leader)
				continue;
			for (uint32_t k = 0; k < nmem; k++)
				pd->attrs[leader + k].group_leader_idx = (int)leader;
		}
		return 0;
	}
	case MP_HEADER_BUILD_ID: {
		size_t off = 0;
		while (n - off >= 8) {
			uint16_t sz = ld16(p + off + 6);
			if (sz < 8 || sz > n - off)
				break;
			add_build_id(pd, p + off, sz);
			off += sz;
		}
		return 0;
	}
	case MP_HEADER_MEMPROF:
		parse_meta_blob(pd, p, n);
		return 0;
	default:
		return 0;
	}
}

/* ---- memprof's feature: key=value metadata and event specs --------------------------
 * Payload: "key=value\n" lines (optionally inside a perf_header_string, u32 length
 * first). Keys "event.N.spec" / "event.N.name" describe attr N; the rest is free metadata
 * for mp_pd_meta(). */
static void meta_set(mp_pd *pd, const char *k, size_t kl, const char *v, size_t vl)
{
	const size_t pl = sizeof(MP_META_EVENT) - 1;
	if (kl > pl && !strncmp(k, MP_META_EVENT, pl)) {
		char *e;
		unsigned long i = strtoul(k + pl, &e, 10);
		if (e > k + pl && i < pd->nattrs && (size_t)(k + kl - e) == 5 &&
		    !strncmp(e, ".spec", 5)) {
			char *sp = strndup(v, vl);
			if (sp) {
				free(pd->ia[i].spec);
				pd->ia[i].spec = sp;
			}
		}
	}
	if (pd->nmeta == pd->cmeta) {
		size_t nc = pd->cmeta ? pd->cmeta * 2 : 8;
		struct pd_meta *nm = realloc(pd->meta, nc * sizeof(*nm));
		if (!nm)
			return;
		pd->meta = nm;
		pd->cmeta = nc;
	}
	char *key = strndup(k, kl), *val = strndup(v, vl);
	if (!key || !val) {
		free(key);
		free(val);
		return;
	}
	pd->meta[pd->nmeta].key = key;
	pd->meta[pd->nmeta].val = val;
	pd->nmeta++;
}

static void parse_meta_blob(mp_pd *pd, const uint8_t *p, size_t n)
{
	if (n >= 4 && p[3] == 0) { /* perf_header_string wrapper */
		uint32_t len = ld32(p);
		p += 4;
		n -= 4;
		if (len < n)
			n = len;
	}
	const char *s = (const char *)p, *end = s + strnlen(s, n);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		const char *eq = memchr(s, '=', (size_t)(le - s));
		if (eq && eq > s)
			meta_set(pd, s, (size_t)(eq - s), eq + 1, (size_t)(le - eq - 1));
		s = nl ? nl + 1 : end;
	}
}

/* ---- open ------------------------------------------------------------------------- */

static void magic_text(const uint8_t *p, size_t n, char *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n && i < 8; i++) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)sprintf(out + k, "\\x%02x", c);
	}
	out[k] = 0;
}

static int sec_ok(const mp_pd *pd, uint64_t off, uint64_t size)
{
	return off <= pd->size && size <= pd->size - off;
}

/* perf's name of a header feature bit (for messages). */
static const char *feat_name(unsigned b)
{
	static const char *const names[] = {
		"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION",
		"ARCH", "NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC",
		"CPU_TOPOLOGY", "NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC",
		"AUXTRACE", "STAT", "CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID",
		"DIR_FORMAT", "BPF_PROG_INFO", "BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS",
		"CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
	};
	if (b == MP_HEADER_MEMPROF)
		return "memprof's own";
	return b < sizeof(names) / sizeof(names[0]) ? names[b] : "unknown";
}

static int open_file_mode(mp_pd *pd, struct mp_err *err)
{
	const uint8_t *h = pd->map;
	uint64_t hsize = ld64(h + 8);
	if (hsize < 72)
		return PD_ERR(pd, err, -MP_EFORMAT, "bad header size %" PRIu64, hsize);
	if (hsize > pd->size)
		return PD_ERR(pd, err, -MP_ETRUNC, "truncated: header is %" PRIu64 " bytes but file has %zu bytes",
			      hsize, pd->size);
	uint64_t attr_size = ld64(h + 16);
	uint64_t a_off = ld64(h + 24), a_size = ld64(h + 32);
	pd->data_off = ld64(h + 40);
	pd->data_size = ld64(h + 48);

	if (!sec_ok(pd, pd->data_off, pd->data_size))
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: data section ends at %" PRIu64 " but file has %zu bytes",
			      pd->data_off + pd->data_size < pd->data_off ? UINT64_MAX
									    : pd->data_off + pd->data_size,
			      pd->size);
	if (!sec_ok(pd, a_off, a_size))
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: attrs section ends at %" PRIu64 " but file has %zu bytes",
			      a_off + a_size < a_off ? UINT64_MAX : a_off + a_size, pd->size);
	if (attr_size < 16 + PERF_ATTR_SIZE_VER0 || attr_size > (1u << 16))
		return PD_ERR(pd, err, -MP_EFORMAT, "bad attr size %" PRIu64 " in header", attr_size);
	uint64_t nattrs = a_size / attr_size;
	if (nattrs == 0)
		return PD_ERR(pd, err, -MP_EFORMAT, "no event attributes in the file");
	for (uint64_t i = 0; i < nattrs; i++) {
		const uint8_t *ap = pd->map + a_off + i * attr_size;
		size_t bytes = (size_t)attr_size - 16;
		uint32_t asz = ld32(ap + 4);
		if (asz > bytes)
			return PD_ERR(pd, err, -MP_EFORMAT,
				      "attr %" PRIu64 ": size %u exceeds its slot of %zu bytes", i, asz, bytes);
		uint64_t ioff = ld64(ap + bytes), isz = ld64(ap + bytes + 8);
		if (!sec_ok(pd, ioff, isz))
			return PD_ERR(pd, err, -MP_ETRUNC,
				      "truncated: ids of attr %" PRIu64 " end at %" PRIu64 " but file has %zu bytes",
				      i, ioff + isz < ioff ? UINT64_MAX : ioff + isz, pd->size);
		if (add_attr(pd, ap, bytes, pd->map + ioff, (size_t)(isz / 8)))
			return PD_ERR(pd, err, -ENOMEM, "out of memory");
	}
	/* features: a table of {offset,size} after the data, one per set bit */
	if (hsize >= MP_PERF_FILE_HEADER_SIZE) {
		uint64_t toff = pd->data_off + pd->data_size, nf = 0;
		for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
			if (ld64(h + 72 + 8 * (b / 64)) >> (b % 64) & 1)
				nf++;
		/* A damaged feature table or section is skipped with a warning, as perf goes on
		 * without it: only a command that needs the feature fails (it finds it absent). */
		if (nf && !sec_ok(pd, toff, nf * 16)) {
			mp_log(MP_LOG_WARN, "%s: the feature table (%" PRIu64 " entries at %#" PRIx64
			       ") runs past the end of the file (%zu bytes): header features ignored",
			       pd->path, nf, toff, pd->size);
			nf = 0;
		}
		uint64_t k = 0, bad_off = 0, bad_size = 0;
		unsigned nbad = 0, bad = 0;
		for (unsigned b = 0; nf && b < MP_HEADER_FEAT_BITS; b++) {
			if (!(ld64(h + 72 + 8 * (b / 64)) >> (b % 64) & 1))
				continue;
			uint64_t so = ld64(pd->map + toff + 16 * k), ss = ld64(pd->map + toff + 16 * k + 8);
			k++;
			if (!sec_ok(pd, so, ss)) {
				if (!nbad++) {
					bad = b;
					bad_off = so;
					bad_size = ss;
				}
				continue;
			}
			pd->feat[b].present = 1;
			pd->feat[b].off = so;
			pd->feat[b].size = ss;
		}
		/* one warning per file, naming the first damaged feature */
		if (nbad == 1)
			mp_log(MP_LOG_WARN, "%s: header feature %u (%s) at %#" PRIx64 ", %" PRIu64
			       " bytes, runs past the end of the file (%zu bytes): ignored",
			       pd->path, bad, feat_name(bad), bad_off, bad_size, pd->size);
		else if (nbad)
			mp_log(MP_LOG_WARN, "%s: %u header features run past the end of the file (%zu "
			       "bytes), the first feature %u (%s): ignored", pd->path, nbad, pd->size,
			       bad, feat_name(bad));
		for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
			if (pd->feat[b].present)
				parse_feature(pd, b, pd->map + pd->feat[b].off, (size_t)pd->feat[b].size);
	}
	return 0;
}

static void handle_event_update(mp_pd *pd, const uint8_t *r, size_t size)
{
	if (size < 24 || ld64(r + 8) != MP_EVENT_UPDATE_NAME)
		return;
	struct pd_sid *s = sid_find(pd, ld64(r + 16));
	if (!s)
		return;
	set_name(pd, s->attr, r + 24, size - 24);
	pd->attrs[s->attr].name = pd->ia[s->attr].name;
	if (!pd->ia[s->attr].spec)
		pd->attrs[s->attr].spec = pd->ia[s->attr].name;
}

/* memprof's feature in pipe mode (memprof record -o -): a HEADER_EVENT_TYPE record (a
 * type perf has ignored since it was deprecated; perf refuses unknown HEADER_FEATURE ids)
 * whose payload is the feature's: u64 MP_HEADER_MEMPROF, then the key=value text. */
static void pipe_meta_record(mp_pd *pd, const uint8_t *r, uint16_t size)
{
	if (size >= 16 && ld64(r + 8) == MP_HEADER_MEMPROF)
		parse_feature(pd, MP_HEADER_MEMPROF, r + 16, (size_t)size - 16);
}

/* Pipe mode, after the first kernel record: the header-like records of the rest of the
 * stream (memprof record -o - writes its features, build-ids and metadata after the data)
 * are read now, so that the whole header is known before the first sample. Returns where
 * the walk stopped (the end, or a record it cannot step over). */
static uint64_t pipe_tail_scan(mp_pd *pd, uint64_t off)
{
	while (pd->size - off >= 8) {
		const uint8_t *r = pd->map + off;
		uint32_t type = ld32(r);
		uint16_t size = ld16(r + 6);
		uint64_t adv = size;
		if (size < 8 || size > pd->size - off)
			break;
		switch (type) {
		case MP_RECORD_HEADER_FEATURE:
			if (size >= 16 && ld64(r + 8) < MP_HEADER_FEAT_BITS)
				parse_feature(pd, (unsigned)ld64(r + 8), r + 16, (size_t)size - 16);
			break;
		case MP_RECORD_HEADER_EVENT_TYPE:
			pipe_meta_record(pd, r, size);
			break;
		case MP_RECORD_HEADER_BUILD_ID:
			add_build_id(pd, r, size);
			break;
		case MP_RECORD_EVENT_UPDATE:
			handle_event_update(pd, r, size);
			break;
		case MP_RECORD_HEADER_TRACING_DATA:
			if (size >= 12)
				adv += ((uint64_t)ld32(r + 8) + 7) & ~7ULL;
			break;
		case MP_RECORD_AUXTRACE:
			if (size >= 16)
				adv += ld64(r + 8);
			break;
		default:
			break;
		}
		if (adv > pd->size - off)
			break;
		off += adv;
	}
	return off;
}

/* Pipe mode: attrs and features are records at the start of the stream (memprof's own
 * come after the data: see pipe_tail_scan). */
static int open_pipe_mode(mp_pd *pd, struct mp_err *err)
{
	uint64_t off = MP_PERF_PIPE_HEADER_SIZE;
	pd->data_off = off;
	pd->data_size = pd->size - off;
	while (pd->size - off >= 8) {
		const uint8_t *r = pd->map + off;
		uint32_t type = ld32(r);
		uint16_t size = ld16(r + 6);
		if (size < 8)
		{
			char why[80];
			if (size)
				snprintf(why, sizeof(why), "size %u is smaller than the record header", size);
			else
				snprintf(why, sizeof(why), "size 0");
			return pd_err_rec(pd, err, off, why);
		}
		if (size > pd->size - off)
			return PD_ERR(pd, err, -MP_ETRUNC,
				      "truncated: record at offset %#" PRIx64 " (type %u, size %u) ends at %#" PRIx64
				      " but the file ends at %#zx",
				      off, type, size, off + size, pd->size);
		if (type < MP_RECORD_USER_START || type == MP_RECORD_COMPRESSED ||
		    type == MP_RECORD_COMPRESSED2)
			break;
		uint64_t adv = size;
		switch (type) {
		case MP_RECORD_HEADER_ATTR: {
			if (size < 8 + PERF_ATTR_SIZE_VER0)
				return pd_err_rec(pd, err, off, "attr record too short");
			uint32_t asz = ld32(r + 8 + 4);
			if (asz == 0)
				asz = PERF_ATTR_SIZE_VER0;
			if (asz > (uint32_t)size - 8)
				return pd_err_rec(pd, err, off, "attr size exceeds the record");
			if (add_attr(pd, r + 8, asz, r + 8 + asz, ((size_t)size - 8 - asz) / 8))
				return PD_ERR(pd, err, -ENOMEM, "out of memory");
			break;
		}
		case MP_RECORD_HEADER_FEATURE:
			if (size >= 16) {
				uint64_t f = ld64(r + 8);
				if (f < MP_HEADER_FEAT_BITS && f != MP_HEADER_EVENT_DESC)
					parse_feature(pd, (unsigned)f, r + 16, (size_t)size - 16);
				else if (f == MP_HEADER_EVENT_DESC && pd->nattrs)
					parse_feature(pd, (unsigned)f, r + 16, (size_t)size - 16);
			}
			break;
		case MP_RECORD_EVENT_UPDATE:
			handle_event_update(pd, r, size);
			break;
		case MP_RECORD_HEADER_BUILD_ID:
			add_build_id(pd, r, size);
			break;
		case MP_RECORD_HEADER_EVENT_TYPE:
			pipe_meta_record(pd, r, size);
			break;
		case MP_RECORD_HEADER_TRACING_DATA:
			if (size >= 12)
				adv += ((uint64_t)ld32(r + 8) + 7) & ~7ULL;
			break;
		case MP_RECORD_AUXTRACE:
			if (size >= 16)
				adv += ld64(r + 8);
			break;
		default:
			break;
		}
		if (adv > pd->size - off)
			break;
		off += adv;
	}
	pd->prescan_end = pd->nattrs ? pipe_tail_scan(pd, off) : off;
	if (!pd->nattrs && pd->size - off < 8)
		return PD_ERR(pd, err, -MP_ETRUNC,
			      "truncated: the file ends at %zu bytes before any event attribute (HEADER_ATTR)",
			      pd->size);
	if (!pd->nattrs)
		return PD_ERR(pd, err, -MP_EFORMAT, "pipe-mode file without event attributes (no HEADER_ATTR record)");
	return 0;
}

static mp_pd *pd_new(const char *name)
{
	mp_pd *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->fd = -1;
	pd->ordered = 1;
	pd->path = strdup(name ? name : "(memory)");
	if (!pd->path) {
		free(pd);
		return NULL;
	}
	return pd;
}

static mp_pd *pd_open_common(mp_pd *pd, struct mp_err *err)
{
	if (pd->size == 0) {
		PD_ERR(pd, err, -MP_EFORMAT, "empty file, not a perf.data file");
		goto fail;
	}
	if (pd->size < 16) {
		char m[40];
		magic_text(pd->map, pd->size, m);
		if (pd->size >= 8 && ld64(pd->map) == MP_PERF_MAGIC2)
			PD_ERR(pd, err, -MP_ETRUNC, "truncated: header needs 16 bytes but file has %zu bytes", pd->size);
		else
			PD_ERR(pd, err, -MP_EFORMAT, "not a perf.data file (bad magic '%s', %zu bytes)", m, pd->size);
		goto fail;
	}
	uint64_t magic = ld64(pd->map);
	if (magic != MP_PERF_MAGIC2) {
		char m[40];
		magic_text(pd->map, 8, m);
		if (magic == MP_PERF_MAGIC2_SWAPPED)
			PD_ERR(pd, err, -MP_ENOTSUP, "big-endian perf.data files are not supported");
		else if (!memcmp(pd->map, "PERFFILE", 8))
			PD_ERR(pd, err, -MP_ENOTSUP, "perf.data version 1 ('PERFFILE') is not supported");
		else
			PD_ERR(pd, err, -MP_EFORMAT, "not a perf.data file (bad magic '%s')", m);
		goto fail;
	}
	int rc;
	if (ld64(pd->map + 8) == MP_PERF_PIPE_HEADER_SIZE) {
		pd->pipe = 1;
		rc = open_pipe_mode(pd, err);
	} else {
		rc = open_file_mode(pd, err);
	}
	if (rc)
		goto fail;
	if (finish_attrs(pd)) {
		PD_ERR(pd, err, -ENOMEM, "out of memory");
		goto fail;
	}
	return pd;
fail:
	mp_pd_close(pd);
	return NULL;
}

/* "-i -": standard input (perf's pipe mode from memprof/perf record -o -, or a file
 * redirected in). A regular file is read in place; a pipe is copied to an unlinked file in
 * $TMPDIR (else /tmp) so that it is mapped and read like any recording. fd or -errno. */
static int spool_stdin(struct mp_err *err)
{
	struct stat st;
	const char *dir = getenv("TMPDIR");
	char tmpl[4096];
	int fd;

	if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
		return fd >= 0 ? fd : mp_err_set(err, -errno, "-: standard input: %s", strerror(errno));
	}
	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(tmpl, sizeof(tmpl), "%s/memprof-stdin-XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0)
			return mp_err_set(err, -errno, "-: cannot hold standard input in %s: %s", dir,
					  strerror(errno));
		unlink(tmpl);
	}
	for (;;) {
		char chunk[1 << 16];
		ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return mp_err_set(err, -e, "-: reading standard input: %s", strerror(e));
		}
		if (n == 0)
			break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(fd, chunk + off, (size_t)(n - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;
				close(fd);
				return mp_err_set(err, -e, "-: cannot hold standard input in %s: %s", dir,
						  strerror(e));
			}
			off += w;
		}
	}
	return fd;
}

mp_pd *mp_pd_open(const char *path, struct mp_err *err)
{
	mp_pd *pd = pd_new(path);
	if (!pd) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	if (!strcmp(path, "-"))
		pd->fd = spool_stdin(err);
	else
		pd->fd = mp_open_input(path, MP_OPEN_REGULAR, err); /* never blocks on a FIFO */
	if (pd->fd < 0) {
		mp_pd_close(pd);
		return NULL;
	}
	struct stat st;
	if (fstat(pd->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mp_err_set(err, -EINVAL, "%s: not a regular file", path);
		mp_pd_close(pd);
		return NULL;
	}
	pd->size = (size_t)st.st_size;
	if (pd->size) {
		void *m = mmap(NULL, pd->size, PROT_READ, MAP_PRIVATE, pd->fd, 0);
		if (m == MAP_FAILED) {
			int e = errno;
			mp_err_set(err, -e, "%s: mmap: %s", path, strerror(e));
			pd->size = 0;
			mp_pd_close(pd);
			return NULL;
		}
		madvise(m, pd->size, MADV_SEQUENTIAL);
		pd->map = m;
		pd->own_map = 1;
	}
	return pd_open_common(pd, err);
}

mp_pd *mp_pd_open_mem(const void *buf, size_t len, const char *name, struct mp_err *err)
{
	mp_pd *pd = pd_new(name);
	if (!pd) {
		mp_err_set(err, -ENOMEM, "%s: out of memory", name ? name : "(memory)");
		return NULL;
	}
	static const uint8_t empty[1];
	pd->map = len ? buf : empty;
	pd->size = len;
	return pd_open_common(pd, err);
}

void mp_pd_close(mp_pd *pd)
{
	if (!pd)
		return;
	if (pd->own_map && pd->map)
		munmap((void *)pd->map, pd->size);
	if (pd->fd >= 0)
		close(pd->fd);
	for (size_t i = 0; i < pd->nattrs; i++) {
		free(pd->ia[i].name);
		free(pd->ia[i].spec);
		free(pd->ia[i].ids);
	}
	free(pd->attrs);
	free(pd->ia);
	free(pd->sids);
	free(pd->rdctr);
	for (unsigned b = 0; b < MP_HEADER_FEAT_BITS; b++)
		free(pd->fstr[b]);
	for (unsigned b = 0; b < 32; b++)
		mp_buf_fini(&pd->fraw[b]);
	for (size_t i = 0; i < pd->nbids; i++)
		free(pd->bids[i].fname);
	free(pd->bids);
	for (size_t i = 0; i < pd->nmeta; i++) {
		free(pd->meta[i].key);
		free(pd->meta[i].val);
	}
	free(pd->meta);
	for (size_t i = 0; i < pd->ngc; i++)
		free(pd->gc[i]);
	free(pd->gc);
	free(pd->scratch_cc);
	free(pd->scratch_br);
	free(pd->scratch_str);
	free(pd->path);
	free(pd);
}

size_t mp_pd_nattrs(const mp_pd *pd)
{
	return pd ? pd->nattrs : 0;
}

const struct mp_pd_attr *mp_pd_attr(const mp_pd *pd, size_t idx)
{
	return pd && idx < pd->nattrs ? &pd->attrs[idx] : NULL;
}

int mp_pd_is_pipe(const mp_pd *pd)
{
	return pd ? pd->pipe : 0;
}

const void *mp_pd_feature_raw(const mp_pd *pd, int feature, size_t *len)
{
	if (!pd || feature < 0 || feature >= 32 || !pd->fraw[feature].len)
		return NULL;
	*len = pd->fraw[feature].len;
	return pd->fraw[feature].data;
}

const char *mp_pd_feature_str(const mp_pd *pd, int feature)
{
	if (!pd || feature < 0 || feature >= MP_HEADER_FEAT_BITS)
		return NULL;
	return pd->fstr[feature];
}

uint32_t mp_pd_nr_cpus_avail(const mp_pd *pd)
{
	return pd ? pd->nr_cpus_avail : 0;
}

uint32_t mp_pd_nr_cpus(const mp_pd *pd)
{
	if (!pd)
		return 0;
	return pd->nr_cpus_online ? pd->nr_cpus_online : pd->nr_cpus_avail;
}

const char *mp_pd_meta(const mp_pd *pd, const char *key)
{
	if (!pd || !key)
		return NULL;
	for (size_t i = pd->nmeta; i-- > 0;)
		if (!strcmp(pd->meta[i].key, key))
			return pd->meta[i].val;
	return NULL;
}

size_t mp_pd_nbuild_ids(const mp_pd *pd)
{
	return pd ? pd->nbids : 0;
}

const struct mp_pd_build_id *mp_pd_build_id(const mp_pd *pd, size_t idx)
{
	if (!pd || idx >= pd->nbids)
		return NULL;
	return &pd->bids[idx].pub;
}

uint64_t mp_pd_record_count(const mp_pd *pd, unsigned type)
{
	return pd && type < PD_NTYPES ? pd->counts[type] : 0;
}

uint64_t mp_pd_nr_unknown_id(const mp_pd *pd)
{
	return pd ? pd->nr_unknown : 0;
}

void mp_pd_set_ordered(mp_pd *pd, int on)
{
	if (pd)
		pd->ordered = !!on;
}

/* ---- processing ------------------------------------------------------------------- */

struct pd_run {
	mp_pd *pd;
	const struct mp_pd_handler *h;
	struct mp_err *err;
	int ordered;
	int rc;                     /* first callback stop value or error */

	/* ordered delivery */
	struct pd_qent *q, *tmp;
	size_t nq, cq;
	size_t qh;                  /* the queue is q[qh..nq): delivered entries are not moved */
	size_t nsorted;             /* q[qh..nsorted) is sorted */
	size_t rec_bytes;           /* sizes of the queued records */
	size_t chunk_bytes;         /* buffers of the chunks and windows on R->chunks */
	uint64_t next_flush, max_ts;
	struct pd_chunk *chunks, *cur;
	struct pd_chunk *spare;     /* released chunks kept for reuse (their pages stay mapped) */
	size_t nspare;
	struct pd_chunk *win;       /* the window being walked */
	struct pd_reader *rd;       /* the read-ahead thread, when there is one */

	/* zstd */
	ZSTD_DStream *zs;
	uint8_t *zbuf;              /* decompressed bytes not yet walked (a partial record) */
	size_t zlen, zcap;
	uint64_t zin_total, zout_total;

	/* progress */
	uint64_t prog_step, prog_next;
	uint64_t dropped;           /* file bytes below this were given back (MADV_DONTNEED) */
};

/* attr of a sample record; SIZE_MAX when the id is unknown */
static size_t sample_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	if (pd->nattrs == 1 || pd->id_pos < 0)
		return 0;
	size_t o = 8 + 8 * (size_t)pd->id_pos;
	if (o + 8 > size)
		return SIZE_MAX;
	struct pd_sid *s = sid_find(pd, ld64(r + o));
	return s ? s->attr : SIZE_MAX;
}

/* attr of a non-sample record through its sample_id trailer; 0 when it cannot tell */
static size_t other_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	if (pd->nattrs == 1 || pd->is_pos < 0 || !pd->ia[0].sid_all)
		return 0;
	if ((size_t)pd->is_pos * 8 + 8 > size)
		return 0;
	struct pd_sid *s = sid_find(pd, ld64(r + size - 8 * (size_t)pd->is_pos));
	return s ? s->attr : 0;
}

/* Timestamp used for ordering, UINT64_MAX when the record has none. */
static uint64_t rec_time(const mp_pd *pd, const uint8_t *r, size_t size, uint32_t type)
{
	if (type == PERF_RECORD_SAMPLE) {
		size_t ai = sample_attr(pd, r, size);
		if (ai == SIZE_MAX)
			ai = 0;
		size_t o = pd->ia[ai].time_off;
		if (!o || o + 8 > size)
			return UINT64_MAX;
		uint64_t t = ld64(r + o);
		return t ? t : UINT64_MAX;
	}
	size_t ai = other_attr(pd, r, size);
	const struct pd_iattr *ia = &pd->ia[ai];
	if (ia->trailer_time == UINT_MAX || ia->trailer > size)
		return UINT64_MAX;
	size_t o = size - ia->trailer + ia->trailer_time;
	uint64_t t = ld64(r + o);
	return t ? t : UINT64_MAX;
}

/* sample_id trailer fields of a non-sample record */
struct pd_trail {
	uint32_t pid, tid, cpu;
	uint64_t time;
};

static size_t parse_trailer(const mp_pd *pd, const uint8_t *r, size_t size, size_t body_min,
			    struct pd_trail *t)
{
	memset(t, 0, sizeof(*t));
	size_t ai = other_attr(pd, r, size);
	const struct pd_iattr *ia = &pd->ia[ai];
	if (!ia->sid_all || !ia->trailer || ia->trailer > size || size - ia->trailer < body_min)
		return size;
	const uint8_t *p = r + size - ia->trailer;
	if (ia->st & PERF_SAMPLE_TID) {
		t->pid = ld32(p);
		t->tid = ld32(p + 4);
		p += 8;
	}
	if (ia->st & PERF_SAMPLE_TIME) {
		t->time = ld64(p);
		p += 8;
	}
	if (ia->st & PERF_SAMPLE_ID)
		p += 8;
	if (ia->st & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (ia->st & PERF_SAMPLE_CPU)
		t->cpu = ld32(p);
	return size - ia->trailer;
}

/* NUL-terminated string at r[off..end): in place when terminated there, else a copy. */
static const char *rec_str(mp_pd *pd, const uint8_t *r, size_t off, size_t end)
{
	if (off >= end)
		return "";
	const uint8_t *z = memchr(r + off, 0, end - off);
	if (z)
		return (const char *)r + off;
	size_t n = end - off;
	if (n + 1 > pd->scratch_str_cap) {
		char *ns = realloc(pd->scratch_str, n + 1);
		if (!ns)
			return "";
		pd->scratch_str = ns;
		pd->scratch_str_cap = n + 1;
	}
	memcpy(pd->scratch_str, r + off, n);
	pd->scratch_str[n] = 0;
	return pd->scratch_str;
}

static int call_sample(struct pd_run *R, struct mp_pd_sample *s)
{
	struct mp_pd_attr *a = &R->pd->attrs[s->attr_idx];
	a->nr_samples++;
	a->total_period += s->period;
	if (R->h && R->h->sample)
		return R->h->sample(R->h->ctx, s);
	return 0;
}

/* Zero the fields a decoder may leave unset. Field by field: a memset of the whole
 * struct (rep stos) was half the cost of decoding a small sample. */
static inline void sample_clear(struct mp_pd_sample *s)
{
	s->ip = s->addr = s->time = s->id = s->stream_id = 0;
	s->pid = s->tid = s->cpu = 0;
	s->nr_callchain = 0;
	s->callchain = NULL;
	s->weight = s->data_src = 0;
	s->ins_lat = 0;
	s->transaction = s->phys_addr = s->cgroup = s->data_page_size = s->code_page_size = 0;
	s->nr_branch = 0;
	s->branch = NULL;
	s->branch_sample_type = 0;
	s->raw_size = 0;
	s->raw = NULL;
	s->user_stack_size = 0;
	s->user_stack = NULL;
	s->regs_user_abi = 0;
	s->regs_user_mask = 0;
	s->regs_user = NULL;
}

#define PD_SLOW INT_MIN /* sample_fast: not a sample it decodes */

/* A sample of fixed-size fields only (the common case), each at its offset, in a small
 * function of its own (deliver's frame, for every record type, is large); PD_SLOW for
 * any other record. */
static int sample_fast(struct pd_run *R, const uint8_t *r, size_t size)
{
	mp_pd *pd = R->pd;
	if (ld32(r) != PERF_RECORD_SAMPLE)
		return PD_SLOW;
	size_t ai = sample_attr(pd, r, size);
	if (ai == SIZE_MAX)
		return PD_SLOW;
	const struct pd_iattr *ia = &pd->ia[ai];
	if (!ia->fx || size < ia->fx_size)
		return PD_SLOW;
	struct mp_pd_sample s;
	sample_clear(&s);
	s.attr_idx = ai;
	s.cpumode = ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	s.id = ia->o_id ? ld64(r + ia->o_id) : 0;
	s.ip = ia->o_ip ? ld64(r + ia->o_ip) : 0;
	s.pid = ia->o_tid ? ld32(r + ia->o_tid) : 0;
	s.tid = ia->o_tid ? ld32(r + ia->o_tid + 4) : 0;
	s.time = ia->o_time ? ld64(r + ia->o_time) : 0;
	s.addr = ia->o_addr ? ld64(r + ia->o_addr) : 0;
	s.stream_id = ia->o_stream ? ld64(r + ia->o_stream) : 0;
	s.cpu = ia->o_cpu ? ld32(r + ia->o_cpu) : 0;
	s.period = ia->o_period ? ld64(r + ia->o_period) : pd->attrs[ai].attr.sample_period;
	return call_sample(R, &s);
}

static int deliver_sample(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	size_t ai = sample_attr(pd, r, size);
	char why[160];

	if (ai == SIZE_MAX) {
		pd->nr_unknown++;
		return 0;
	}
	const struct pd_iattr *ia = &pd->ia[ai];
	const uint64_t st = ia->st, rf = ia->rf;
	const uint8_t *p = r + 8, *end = r + size;
	int full = R->h && R->h->sample;
	struct mp_pd_sample s;

#define NEED(n)                                                   \
	do {                                                      \
		if ((size_t)(end - p) < (size_t)(n))              \
			goto short_rec;                           \
	} while (0)
	sample_clear(&s);
	s.attr_idx = ai;
	s.cpumode = ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		NEED(8);
		s.id = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		NEED(8);
		s.ip = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		s.pid = ld32(p);
		s.tid = ld32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		s.time = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		s.addr = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		NEED(8);
		s.id = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		NEED(8);
		s.stream_id = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(8);
		s.cpu = ld32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(8);
		s.period = ld64(p);
		p += 8;
	} else {
		s.period = pd->attrs[ai].attr.sample_period;
	}
	const uint8_t *rvals = NULL;
	uint64_t rnr = 0;
	size_t rent = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	if (st & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP) {
			NEED(8);
			rnr = ld64(p);
			p += 8;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
				NEED(8);
				p += 8;
			}
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
				NEED(8);
				p += 8;
			}
			if (rnr > (size_t)(end - p) / rent) {
				snprintf(why, sizeof(why), "group read nr %" PRIu64 " exceeds the record size %zu", rnr,
					 size);
				return pd_err_rec(pd, R->err, off, why);
			}
			rvals = p;
			p += rnr * rent;
		} else {
			/* value, [ena], [run], [id], [lost]: normalise to one {value,[id],[lost]} */
			size_t n = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
					!!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(rf & PERF_FORMAT_ID) +
					!!(rf & PERF_FORMAT_LOST));
			NEED(n);
			rvals = p;
			rnr = 1;
			p += n;
		}
	}
	if (!full || !(st & PD_TAIL_BITS))
		goto deliver;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		uint64_t nr = ld64(p);
		p += 8;
		if (nr > (size_t)(end - p) / 8) {
			snprintf(why, sizeof(why), "callchain nr %" PRIu64 " exceeds the record size %zu", nr, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s.nr_callchain = nr;
		if (((uintptr_t)p & 7) == 0) {
			s.callchain = (const uint64_t *)(const void *)p;
		} else if (nr) {
			if (nr > pd->scratch_cc_cap) {
				uint64_t *n = realloc(pd->scratch_cc, nr * 8);
				if (!n)
					return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
				pd->scratch_cc = n;
				pd->scratch_cc_cap = nr;
			}
			memcpy(pd->scratch_cc, p, nr * 8);
			s.callchain = pd->scratch_cc;
		}
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		uint32_t rs = ld32(p);
		p += 4;
		if (rs > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "raw size %u exceeds the record size %zu", rs, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s.raw_size = rs;
		s.raw = p;
		p += rs;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(8);
		uint64_t nr = ld64(p);
		p += 8;
		if (ia->branch_hw_idx) {
			NEED(8);
			p += 8;
		}
		if (nr > (size_t)(end - p) / sizeof(struct perf_branch_entry)) {
			snprintf(why, sizeof(why), "branch stack nr %" PRIu64 " exceeds the record size %zu", nr,
				 size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s.nr_branch = nr;
		s.branch_sample_type = pd->attrs[ai].attr.branch_sample_type;
		if (((uintptr_t)p & 7) == 0) {
			s.branch = (const struct perf_branch_entry *)(const void *)p;
		} else if (nr) {
			if (nr > pd->scratch_br_cap) {
				struct perf_branch_entry *n = realloc(pd->scratch_br, nr * sizeof(*n));
				if (!n)
					return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
				pd->scratch_br = n;
				pd->scratch_br_cap = nr;
			}
			memcpy(pd->scratch_br, p, nr * sizeof(*pd->scratch_br));
			s.branch = pd->scratch_br;
		}
		p += nr * sizeof(struct perf_branch_entry);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		uint64_t abi = ld64(p);
		p += 8;
		if (abi) {
			NEED(8 * (size_t)ia->nregs_user);
			s.regs_user_abi = abi;
			s.regs_user_mask = pd->attrs[ai].attr.sample_regs_user;
			s.regs_user = p;
			p += 8 * (size_t)ia->nregs_user;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(8);
		uint64_t sz = ld64(p);
		p += 8;
		if (sz > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "user stack size %" PRIu64 " exceeds the record size %zu", sz,
				 size);
			return pd_err_rec(pd, R->err, off, why);
		}
		const uint8_t *stk = p;
		p += sz;
		if (sz) {
			NEED(8);
			s.user_stack = stk;
			s.user_stack_size = ld64(p); /* dyn_size: bytes actually dumped */
			if (s.user_stack_size > sz)
				s.user_stack_size = sz;
			p += 8;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8);
		uint64_t w = ld64(p);
		p += 8;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			s.weight = w & 0xffffffffu;
			s.ins_lat = (uint16_t)(w >> 32);
		} else {
			s.weight = w;
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		NEED(8);
		s.data_src = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TRANSACTION) {
		NEED(8);
		s.transaction = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		NEED(8);
		uint64_t abi = ld64(p);
		p += 8;
		if (abi) {
			NEED(8 * (size_t)ia->nregs_intr);
			p += 8 * (size_t)ia->nregs_intr;
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR) {
		NEED(8);
		s.phys_addr = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CGROUP) {
		NEED(8);
		s.cgroup = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) {
		NEED(8);
		s.data_page_size = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) {
		NEED(8);
		s.code_page_size = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_AUX) {
		NEED(8);
		uint64_t sz = ld64(p);
		p += 8;
		if (sz > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "aux size %" PRIu64 " exceeds the record size %zu", sz, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		p += sz;
	}
#undef NEED

deliver:
	if (!(st & PERF_SAMPLE_READ))
		return call_sample(R, &s);
	/* PERF_SAMPLE_READ: one sample per value with the delta of that counter, as perf's
	 * deliver_sample_value(); unknown ids and zero deltas are dropped. */
	for (uint64_t i = 0; i < rnr; i++) {
		const uint8_t *v = rvals + i * rent;
		uint64_t val = ld64(v), vid = 0;
		if (rf & PERF_FORMAT_GROUP) {
			if (rf & PERF_FORMAT_ID)
				vid = ld64(v + 8);
		} else {
			size_t io = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
					 !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
			if (rf & PERF_FORMAT_ID)
				vid = ld64(v + io);
		}
		struct pd_sid *sid = (rf & PERF_FORMAT_ID) ? sid_find(pd, vid) : NULL;
		if (!sid) {
			pd->nr_unknown++;
			continue;
		}
		s.id = vid;
		s.period = val - sid->prev;
		sid->prev = val;
		s.attr_idx = sid->attr;
		if (!s.period)
			continue;
		int rc = call_sample(R, &s);
		if (rc)
			return rc;
	}
	return 0;

short_rec:
	snprintf(why, sizeof(why), "sample of %zu bytes too short for its sample_type %#" PRIx64, size, st);
	return pd_err_rec(pd, R->err, off, why);
}

/* One counter's value and times into its event's sums and into its task's counter
 * (pd_rdctr); -ENOMEM. */
static int add_count(mp_pd *pd, size_t ai, int32_t pid, int32_t tid, uint64_t val,
		     uint64_t ena, uint64_t run)
{
	struct mp_pd_attr *a = &pd->attrs[ai];
	a->has_counts = 1;
	a->count_value += val;
	a->count_ena += ena;
	a->count_run += run;
	struct pd_rdctr *c = NULL;
	if (pid != -1)
		for (size_t i = pd->nrdctr; i-- > 0 && !c;)
			if (pd->rdctr[i].attr == ai && pd->rdctr[i].pid == pid && pd->rdctr[i].tid == tid)
				c = &pd->rdctr[i];
	if (!c) {
		if (pd->nrdctr == pd->crdctr) {
			size_t nc = pd->crdctr ? 2 * pd->crdctr : 16;
			struct pd_rdctr *nv = realloc(pd->rdctr, nc * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			pd->rdctr = nv;
			pd->crdctr = nc;
		}
		c = &pd->rdctr[pd->nrdctr++];
		*c = (struct pd_rdctr){ ai, pid, tid, 0, 0 };
	}
	if (ena > c->ena)
		c->ena = ena;
	c->run += run;
	return 0;
}

/* Per event: how many counters, how many ran less than they were enabled (multiplexed)
 * and the least running share among those. */
static void finish_counts(mp_pd *pd)
{
	for (size_t i = 0; i < pd->nrdctr; i++) {
		const struct pd_rdctr *c = &pd->rdctr[i];
		struct mp_pd_attr *a = &pd->attrs[c->attr];
		a->count_nctr++;
		if (c->run >= c->ena)
			continue;
		/* run/ena < mux_run/mux_ena, in integers */
		if (!a->count_nmux++ || (unsigned __int128)c->run * a->count_mux_ena <
						(unsigned __int128)a->count_mux_run * c->ena) {
			a->count_mux_run = c->run;
			a->count_mux_ena = c->ena;
		}
	}
}

static int deliver_read(struct pd_run *R, const uint8_t *r, size_t size)
{
	mp_pd *pd = R->pd;
	struct pd_trail t;
	size_t body = parse_trailer(pd, r, size, 16, &t);
	size_t ai0 = other_attr(pd, r, size);
	const uint8_t *p = r + 16, *end = r + body;
	uint64_t rf = pd->ia[ai0].rf;

	if (body < 16)
		return 0;
	if (rf & PERF_FORMAT_GROUP) {
		if (end - p < 8)
			return 0;
		uint64_t nr = ld64(p);
		p += 8;
		uint64_t ena = 0, run = 0;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
			if (end - p < 8)
				return 0;
			ena = ld64(p);
			p += 8;
		}
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
			if (end - p < 8)
				return 0;
			run = ld64(p);
			p += 8;
		}
		size_t ent = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
		for (uint64_t i = 0; i < nr && (size_t)(end - p) >= ent; i++, p += ent) {
			size_t ai = ai0;
			if (rf & PERF_FORMAT_ID) {
				struct pd_sid *s = sid_find(pd, ld64(p + 8));
				if (!s)
					continue;
				ai = s->attr;
			}
			if (add_count(pd, ai, (int32_t)ld32(r + 8), (int32_t)ld32(r + 12), ld64(p),
				      ena, run))
				return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		}
		return 0;
	}
	size_t n = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
			!!(rf & PERF_FORMAT_ID));
	if ((size_t)(end - p) < n)
		return 0;
	uint64_t val = ld64(p), ena = 0, run = 0;
	const uint8_t *q = p + 8;
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		ena = ld64(q);
		q += 8;
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		run = ld64(q);
		q += 8;
	}
	size_t ai = ai0;
	if (rf & PERF_FORMAT_ID) {
		struct pd_sid *s = sid_find(pd, ld64(q));
		if (s)
			ai = s->attr;
	}
	if (add_count(pd, ai, (int32_t)ld32(r + 8), (int32_t)ld32(r + 12), val, ena, run))
		return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
	return 0;
}

/* Deliver one kernel record (type < 64) to the callbacks. */
static int deliver(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	const struct mp_pd_handler *h = R->h;
	uint32_t type = ld32(r);
	uint16_t misc = ld16(r + 4);
	struct pd_trail t;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		return deliver_sample(R, r, size, off);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (!h || !h->mmap)
			return 0;
		size_t fo = type == PERF_RECORD_MMAP ? 40 : 72;
		size_t body = parse_trailer(pd, r, size, fo, &t);
		if (size < fo)
			return pd_err_rec(pd, R->err, off, "mmap record too short");
		struct mp_pd_mmap m;
		memset(&m, 0, sizeof(m));
		m.pid = ld32(r + 8);
		m.tid = ld32(r + 12);
		m.start = ld64(r + 16);
		m.len = ld64(r + 24);
		m.pgoff = ld64(r + 32);
		m.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t l = r[40];
				m.has_build_id = 1;
				m.build_id_len = l <= 20 ? l : 20;
				memcpy(m.build_id, r + 44, 20);
			}
			m.prot = ld32(r + 64);
			m.flags = ld32(r + 68);
		}
		m.filename = rec_str(pd, r, fo, body);
		return h->mmap(h->ctx, &m);
	}
	case PERF_RECORD_COMM: {
		if (!h || !h->comm)
			return 0;
		if (size < 16)
			return pd_err_rec(pd, R->err, off, "comm record too short");
		size_t body = parse_trailer(pd, r, size, 16, &t);
		struct mp_pd_task k;
		memset(&k, 0, sizeof(k));
		k.pid = ld32(r + 8);
		k.tid = ld32(r + 12);
		k.ppid = k.pid;
		k.ptid = k.tid;
		k.comm = rec_str(pd, r, 16, body);
		k.exec = !!(misc & PERF_RECORD_MISC_COMM_EXEC);
		k.time = t.time;
		return h->comm(h->ctx, &k);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		int (*cb)(void *, const struct mp_pd_task *) = !h ? NULL : type == PERF_RECORD_FORK ? h->fork : h->exit;
		if (!cb)
			return 0;
		if (size < 32)
			return pd_err_rec(pd, R->err, off, "fork/exit record too short");
		struct mp_pd_task k;
		memset(&k, 0, sizeof(k));
		k.pid = ld32(r + 8);
		k.ppid = ld32(r + 12);
		k.tid = ld32(r + 16);
		k.ptid = ld32(r + 20);
		k.time = ld64(r + 24);
		return cb(h->ctx, &k);
	}
	case PERF_RECORD_LOST: {
		if (size < 24)
			return pd_err_rec(pd, R->err, off, "lost record too short");
		struct pd_sid *s = sid_find(pd, ld64(r + 8));
		size_t ai = s ? s->attr : other_attr(pd, r, size);
		uint64_t n = ld64(r + 16);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		if (size < 16)
			return pd_err_rec(pd, R->err, off, "lost-samples record too short");
		size_t ai = other_attr(pd, r, size);
		uint64_t n = ld64(r + 8);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_READ:
		return deliver_read(R, r, size);
	default:
		return 0;
	}
}

/* ---- ordered queue ------------------------------------------------------------------ */

/* bytes of a chunk's buffer (a read-ahead window has room for a carried record before it) */
static size_t chunk_mem(const struct pd_chunk *c)
{
	return c->cap + (c->ahead ? PD_HEAD : 0);
}

/* c (new, or a window from the read-ahead thread) on R->chunks */
static void chunk_link(struct pd_run *R, struct pd_chunk *c)
{
	c->next = R->chunks;
	R->chunks = c;
	R->chunk_bytes += chunk_mem(c);
}

static void chunk_release(struct pd_run *R, struct pd_chunk *c)
{
	if (!c)
		return;
	if (--c->live == 0 && c->retired) {
		struct pd_chunk **pp = &R->chunks;
		while (*pp && *pp != c)
			pp = &(*pp)->next;
		if (*pp) {
			*pp = c->next;
			R->chunk_bytes -= chunk_mem(c);
		}
		if (c->ahead && R->rd) {
			struct pd_reader *rd = R->rd;
			pthread_mutex_lock(&rd->mu);
			c->next = rd->free;
			rd->free = c;
			rd->nfree++;
			pthread_mutex_unlock(&rd->mu);
			return;
		}
		if (!c->ahead && R->nspare < PD_NSPARE && c->cap == PD_CHUNK_SIZE) {
			c->next = R->spare;
			R->spare = c;
			R->nspare++;
			return;
		}
		free(c->data);
		free(c);
	}
}

/* A chunk of cap bytes (a spare one when it is of the standard size), on R->chunks. */
static struct pd_chunk *chunk_new(struct pd_run *R, size_t cap)
{
	struct pd_chunk *c = NULL;
	if (cap == PD_CHUNK_SIZE && R->spare) {
		c = R->spare;
		R->spare = c->next;
		R->nspare--;
	} else {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->cap = cap;
		c->data = malloc(cap);
		if (!c->data) {
			free(c);
			return NULL;
		}
	}
	c->used = c->live = 0;
	c->retired = 0;
	chunk_link(R, c);
	return c;
}

static void chunks_free(struct pd_run *R)
{
	for (int list = 0; list < 2; list++) {
		struct pd_chunk *c = list ? R->spare : R->chunks;
		while (c) {
			struct pd_chunk *n = c->next;
			free(c->data);
			free(c);
			c = n;
		}
	}
	R->chunks = R->cur = R->spare = R->win = NULL;
	R->nspare = 0;
	R->chunk_bytes = 0;
}

/* Copy a record out of the zstd buffer so it survives until it is delivered. */
static const uint8_t *chunk_copy(struct pd_run *R, const uint8_t *r, size_t size, struct pd_chunk **out)
{
	struct pd_chunk *c = R->cur;
	size_t need = (size + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < need) {
		if (c) {
			c->retired = 1;
			if (c->live == 0) {
				c->live = 1;
				chunk_release(R, c);
			}
		}
		c = chunk_new(R, need > PD_CHUNK_SIZE ? need : PD_CHUNK_SIZE);
		R->cur = c;
		if (!c)
			return NULL;
	}
	uint8_t *d = c->data + c->used;
	memcpy(d, r, size);
	c->used += need;
	c->live++;
	*out = c;
	return d;
}

/* Stable merge of q[0..mid) and q[mid..n) (both sorted by ts), through tmp. Only the
 * overlap moves: the left run's entries up to the right run's first ts, and the right
 * run's from the left run's last ts on, are in place already (rounds overlap little). */
static void q_merge(struct pd_qent *q, struct pd_qent *tmp, size_t mid, size_t n)
{
	if (mid == 0 || mid == n || q[mid - 1].ts <= q[mid].ts)
		return;
	size_t lo = 0, hi = mid; /* first left entry with ts > q[mid].ts */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (q[m].ts <= q[mid].ts)
			lo = m + 1;
		else
			hi = m;
	}
	size_t i0 = lo;
	lo = mid;
	hi = n; /* first right entry with ts >= q[mid - 1].ts: it and the rest stay */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (q[m].ts < q[mid - 1].ts)
			lo = m + 1;
		else
			hi = m;
	}
	size_t j1 = lo, nl = mid - i0;
	memcpy(tmp, q + i0, nl * sizeof(*q));
	size_t i = 0, j = mid, k = i0;
	while (i < nl && j < j1)
		q[k++] = q[j].ts < tmp[i].ts ? q[j++] : tmp[i++];
	while (i < nl)
		q[k++] = tmp[i++];
	/* the right run's rest (j..j1) is in place: k == j once the left run is out */
}

/* Natural merge sort of q[0..len): records of one ring buffer come in time order, so a
 * round is a few long sorted runs (one per CPU buffer) and this is nearly linear. Runs
 * are merged as in a binary counter (merge while the newest run is at least as long as
 * the one below it), which keeps the stack of pending runs logarithmic. */
static void q_sort(struct pd_qent *q, struct pd_qent *tmp, size_t len)
{
	size_t ends[72]; /* end of each pending run; run k starts at ends[k-1] (or 0) */
	size_t nr = 0, start = 0;

	while (start < len) {
		size_t e = start + 1;
		while (e < len && q[e - 1].ts <= q[e].ts)
			e++;
		ends[nr++] = e;
		start = e;
		while (nr >= 2) {
			size_t b = nr >= 3 ? ends[nr - 3] : 0;
			size_t l1 = ends[nr - 2] - b, l2 = ends[nr - 1] - ends[nr - 2];
			if (l2 < l1 && nr < 64 && start < len)
				break;
			q_merge(q + b, tmp, l1, ends[nr - 1] - b);
			ends[nr - 2] = ends[nr - 1];
			nr--;
		}
	}
}

/* Sort the unsorted tail of the queue and merge it into the sorted head. */
static void q_settle(struct pd_run *R)
{
	if (R->nsorted < R->nq) {
		q_sort(R->q + R->nsorted, R->tmp, R->nq - R->nsorted);
		q_merge(R->q + R->qh, R->tmp, R->nsorted - R->qh, R->nq - R->qh);
		R->nsorted = R->nq;
	}
}

/* Deliver queued records with ts <= limit (all when limit == UINT64_MAX). */
static int q_flush(struct pd_run *R, uint64_t limit)
{
	if (R->nq == R->qh)
		return 0;
	q_settle(R);
	size_t k = R->qh, nheld = 0;
	struct pd_chunk *held = NULL; /* delivered records of one chunk, released together */
	int rc = 0;
	while (k < R->nq && R->q[k].ts <= limit) {
		struct pd_qent *e = &R->q[k++];
		if (e->ch != held) {
			if (held) {
				held->live -= nheld - 1;
				chunk_release(R, held);
			}
			held = e->ch;
			nheld = 0;
		}
		nheld++;
		R->rec_bytes -= ld16(e->rec + 6);
		rc = sample_fast(R, e->rec, ld16(e->rec + 6));
		if (rc == PD_SLOW)
			rc = deliver(R, e->rec, ld16(e->rec + 6), e->off);
		if (rc)
			break;
	}
	if (held) {
		held->live -= nheld - 1;
		chunk_release(R, held);
	}
	R->qh = k;
	if (k == R->nq)
		R->qh = R->nq = R->nsorted = 0;
	return rc;
}

/* Move the queue down to q[0] (when it reaches the end of its array). */
static void q_compact(struct pd_run *R)
{
	if (!R->qh)
		return;
	memmove(R->q, R->q + R->qh, (R->nq - R->qh) * sizeof(*R->q));
	R->nq -= R->qh;
	R->nsorted -= R->qh;
	R->qh = 0;
}

enum { WALK_TOP, WALK_INNER, WALK_WINDOW };

/* After a flush by the byte bound the records still queued are spread over chunks and
 * windows that they alone keep alive: copy them into fresh chunks (the order of the queue
 * does not change) and let the old ones go. Done when the chunks hold half as much again
 * as the queued bytes (beyond the windows and chunks being filled), so that each copy is
 * paid for by the bytes delivered since the one before, however little a flush delivers. */
static int q_repack(struct pd_run *R)
{
	if (R->chunk_bytes <= R->rec_bytes + R->rec_bytes / 2 + 4 * (size_t)(PD_HEAD + PD_CHUNK_SIZE))
		return 0;
	for (size_t i = R->qh; i < R->nq; i++) {
		struct pd_qent *e = &R->q[i];
		struct pd_chunk *old = e->ch, *ch;
		if (!old || old == R->cur || old == R->win)
			continue;
		const uint8_t *r = chunk_copy(R, e->rec, ld16(e->rec + 6), &ch);
		if (!r)
			return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
		e->rec = r;
		e->ch = ch;
		chunk_release(R, old);
	}
	return 0;
}

static int q_push(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off, uint64_t ts, int mode)
{
	if (R->nq > R->qh &&
	    (R->nq - R->qh) * 2 * sizeof(*R->q) + R->rec_bytes + size > PD_QUEUE_BYTES) {
		/* perf's OE_FLUSH__HALF when the queue hits its memory limit */
		q_settle(R);
		uint64_t lo = R->q[R->qh].ts, hi = R->q[R->nq - 1].ts;
		int rc = q_flush(R, lo + (hi - lo) / 2);
		if (rc || (rc = q_repack(R)))
			return rc;
	}
	if (R->nq == R->cq) {
		q_compact(R);
		if (R->nq == R->cq) {
			size_t nc = R->cq ? R->cq * 2 : 4096;
			struct pd_qent *nq = realloc(R->q, nc * sizeof(*nq));
			if (!nq)
				return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
			R->q = nq;
			struct pd_qent *nt = realloc(R->tmp, nc * sizeof(*nt));
			if (!nt)
				return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
			R->tmp = nt;
			R->cq = nc;
		}
	}
	struct pd_chunk *ch = NULL;
	if (mode == WALK_INNER) {
		r = chunk_copy(R, r, size, &ch);
		if (!r)
			return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
	} else if (mode == WALK_WINDOW) {
		ch = R->win; /* the record stays in its window until delivered */
		ch->live++;
	}
	R->rec_bytes += size;
	R->q[R->nq].ts = ts;
	R->q[R->nq].rec = r;
	R->q[R->nq].off = off;
	R->q[R->nq].ch = ch;
	R->nq++;
	if (ts > R->max_ts)
		R->max_ts = ts;
	return 0;
}

/* ---- record walk ------------------------------------------------------------------- */

static int walk(struct pd_run *R, const uint8_t *buf, size_t len, uint64_t base, int mode, size_t *consumed);

static int do_compressed(struct pd_run *R, const uint8_t *payload, size_t n, uint64_t off)
{
	mp_pd *pd = R->pd;
	if (!R->zs) {
		R->zs = ZSTD_createDStream();
		if (!R->zs || ZSTD_isError(ZSTD_initDStream(R->zs)))
			return PD_ERR(pd, R->err, -ENOMEM, "out of memory (zstd)");
	}
	R->zin_total += n;
	ZSTD_inBuffer in = { payload, n, 0 };
	size_t produced = 0;
	for (;;) {
		if (R->zcap - R->zlen < (64u << 10)) {
			size_t nc = R->zcap ? R->zcap * 2 : (1u << 20);
			uint8_t *nb = realloc(R->zbuf, nc);
			if (!nb)
				return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
			R->zbuf = nb;
			R->zcap = nc;
		}
		ZSTD_outBuffer out = { R->zbuf + R->zlen, R->zcap - R->zlen, 0 };
		size_t in_before = in.pos;
		size_t zr = ZSTD_decompressStream(R->zs, &out, &in);
		if (ZSTD_isError(zr)) {
			char why[160];
			snprintf(why, sizeof(why), "zstd: %s", ZSTD_getErrorName(zr));
			return pd_err_rec(pd, R->err, off, why);
		}
		R->zlen += out.pos;
		produced += out.pos;
		R->zout_total += out.pos;
		if (produced > PD_ZSTD_REC_MAX ||
		    R->zout_total > (uint64_t)PD_ZSTD_REC_MAX + PD_ZSTD_RATIO_MAX * R->zin_total)
			return pd_err_rec(pd, R->err, off, "compressed record expands beyond the size limit");
		if (in.pos == in.size && out.pos < out.size)
			break; /* all input consumed and everything decodable flushed */
		if (out.pos == 0 && in.pos == in_before)
			break; /* no progress: stop rather than spin */
	}
	size_t used = 0;
	int rc = walk(R, R->zbuf, R->zlen, off, WALK_INNER, &used);
	if (rc)
		return rc;
	memmove(R->zbuf, R->zbuf + used, R->zlen - used);
	R->zlen -= used;
	return 0;
}

/* Drop the pages behind the walk every PD_DROP_STEP bytes, so the resident size of a
 * large file stays bounded instead of growing to the file size. The mapping is private
 * and never written: a later access (a queued record) just reads the page in again. */
#define PD_DROP_STEP (32u << 20)
static void drop_behind(struct pd_run *R, uint64_t pos)
{
	mp_pd *pd = R->pd;
	if (!pd->own_map || R->win || pos < R->dropped + 2 * (uint64_t)PD_DROP_STEP)
		return;
	uint64_t page = 4096, to = (pos - PD_DROP_STEP) & ~(page - 1);
	madvise((void *)(pd->map + R->dropped), (size_t)(to - R->dropped), MADV_DONTNEED);
	R->dropped = to;
}

static void progress(struct pd_run *R, uint64_t pos)
{
	if (pos < R->prog_next)
		return;
	R->prog_next = pos + R->prog_step;
	drop_behind(R, pos);
	if (R->h && R->h->progress)
		R->h->progress(R->h->ctx, pos - R->pd->data_off, R->pd->data_size);
}

/* Walk records in buf. WALK_TOP: buf is the data section at file offset base; a record
 * running past its end is a truncation error. WALK_INNER (zstd output): a trailing partial
 * record is left for the next COMPRESSED record (*consumed says how far the walk got);
 * base is the COMPRESSED record's file offset, used in messages. WALK_WINDOW: buf is the
 * part of the data section at file offset base (walk_windows); a trailing partial record
 * is left for the next window unless the data ends there, and *consumed goes past len when
 * a record's payload (AUXTRACE) does. */
static int walk(struct pd_run *R, const uint8_t *buf, size_t len, uint64_t base, int mode, size_t *consumed)
{
	mp_pd *pd = R->pd;
	size_t pos = 0;
	int rc = 0, inner = mode == WALK_INNER;
	char why[200];
	/* a window that ends before the data section does may end inside a record */
	int more = mode == WALK_WINDOW && base + len < pd->data_off + pd->data_size;

	while (len - pos >= 8 || (!inner && pos < len)) {
		uint64_t off = inner ? base : base + pos;
		if (len - pos < 8 && more)
			break;
		if (len - pos < 8) {
			mp_err_set(R->err, -MP_ETRUNC, "%s: truncated: record header at offset %#" PRIx64
				   " needs 8 bytes but the data ends at %#" PRIx64, pd->path, off, base + len);
			return -MP_ETRUNC;
		}
		const uint8_t *r = buf + pos;
		uint32_t type = ld32(r);
		uint16_t size = ld16(r + 6);
		if (size < 8) {
			if (size == 0)
				snprintf(why, sizeof(why), "size 0");
			else
				snprintf(why, sizeof(why), "size %u is smaller than the record header", size);
			if (inner)
				snprintf(why + strlen(why), sizeof(why) - strlen(why), " (inside the compressed data)");
			return pd_err_rec(pd, R->err, off, why);
		}
		if (size > len - pos) {
			if (inner || more)
				break;
			mp_err_set(R->err, -MP_ETRUNC, "%s: truncated: record at offset %#" PRIx64
				   " (type %u, size %u) ends at %#" PRIx64 " but the data ends at %#" PRIx64,
				   pd->path, off, type, size, off + size, base + len);
			return -MP_ETRUNC;
		}
		uint64_t adv = size;
		if (type < PD_NTYPES)
			pd->counts[type]++;
		if (type < MP_RECORD_USER_START) {
			uint64_t ts = R->ordered ? rec_time(pd, r, size, type) : UINT64_MAX;
			if (ts != UINT64_MAX)
				rc = q_push(R, r, size, off, ts, mode);
			else if ((rc = sample_fast(R, r, size)) == PD_SLOW)
				rc = deliver(R, r, size, off);
		} else {
			switch (type) {
			case MP_RECORD_FINISHED_ROUND:
				if (R->ordered) {
					rc = q_flush(R, R->next_flush);
					R->next_flush = R->max_ts;
				}
				break;
			case MP_RECORD_COMPRESSED:
				if (inner)
					return pd_err_rec(pd, R->err, off, "compressed record inside compressed data");
				rc = do_compressed(R, r + 8, size - 8u, off);
				break;
			case MP_RECORD_COMPRESSED2:
				if (inner)
					return pd_err_rec(pd, R->err, off, "compressed record inside compressed data");
				if (size < 16)
					return pd_err_rec(pd, R->err, off, "compressed2 record too short");
				if (ld64(r + 8) > size - 16u)
					return pd_err_rec(pd, R->err, off, "compressed2 data size exceeds the record");
				rc = do_compressed(R, r + 16, (size_t)ld64(r + 8), off);
				break;
			case MP_RECORD_HEADER_TRACING_DATA:
				if (size >= 12)
					adv += ((uint64_t)ld32(r + 8) + 7) & ~7ULL;
				break;
			case MP_RECORD_AUXTRACE:
				if (size >= 16)
					adv += ld64(r + 8);
				break;
			/* header-like records after the pipe-mode prescan (or in a file's data):
			 * applied once, on the first run */
			case MP_RECORD_EVENT_UPDATE:
				if (pd->runs == 1 && (!pd->pipe || inner || base + pos >= pd->prescan_end))
					handle_event_update(pd, r, size);
				break;
			case MP_RECORD_HEADER_BUILD_ID:
				if (pd->runs == 1 && !inner && pd->pipe && base + pos >= pd->prescan_end)
					add_build_id(pd, r, size);
				break;
			case MP_RECORD_HEADER_FEATURE:
				if (pd->runs == 1 && !inner && pd->pipe && base + pos >= pd->prescan_end && size >= 16 &&
				    ld64(r + 8) < MP_HEADER_FEAT_BITS)
					parse_feature(pd, (unsigned)ld64(r + 8), r + 16, size - 16u);
				break;
			default:
				break; /* HEADER_ATTR (read at open), ID_INDEX, maps, STAT*, TIME_CONV ... */
			}
		}
		if (rc)
			return rc;
		if (adv > len - pos && mode == WALK_WINDOW &&
		    adv - (len - pos) <= pd->data_off + pd->data_size - (base + len)) {
			pos += (size_t)adv; /* the payload goes on past the window: skipped */
			break;
		}
		if (adv > len - pos) {
			snprintf(why, sizeof(why), "payload of %" PRIu64 " bytes runs past the end of the data",
				 adv - size);
			return pd_err_rec(pd, R->err, off, why);
		}
		pos += (size_t)adv;
		if (!inner)
			progress(R, base + pos);
	}
	if (consumed)
		*consumed = pos;
	return 0;
}

/* The data section of a file read window by window into reused buffers (each queued
 * record keeps its window until it is delivered), a record cut by a window's end carried
 * to the start of the next. */
static int walk_windows(struct pd_run *R)
{
	mp_pd *pd = R->pd;
	const uint64_t dend = pd->data_off + pd->data_size;
	uint64_t fpos = pd->data_off; /* next byte of the file to read */
	struct pd_chunk *prev = NULL;
	size_t carry = 0, carry_at = 0;
	int rc = 0;

	while (fpos < dend || carry) {
		struct pd_chunk *c = chunk_new(R, PD_WIN_SIZE);
		if (!c)
			return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		if (carry)
			memcpy(c->data, prev->data + carry_at, carry);
		if (prev) {
			prev->retired = 1;
			prev->live++;
			chunk_release(R, prev);
		}
		prev = c;
		uint64_t base = fpos - carry;
		size_t len = carry;
		while (len < c->cap && fpos < dend) {
			size_t want = c->cap - len;
			if (want > dend - fpos)
				want = (size_t)(dend - fpos);
			ssize_t got = pread(pd->fd, c->data + len, want, (off_t)fpos);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				int e = got < 0 ? errno : 0;
				return mp_err_set(R->err, got < 0 ? -e : -MP_ETRUNC,
						  "%s: reading the data at offset %#" PRIx64 ": %s", pd->path,
						  fpos, got < 0 ? strerror(e) : "the file is shorter than its header says");
			}
			len += (size_t)got;
			fpos += (uint64_t)got;
		}
		size_t used = 0;
		R->win = c;
		rc = walk(R, c->data, len, base, WALK_WINDOW, &used);
		R->win = NULL;
		if (rc)
			break;
		if (used >= len) {
			fpos = base + used; /* past a payload that went on beyond the window */
			carry = 0;
		} else {
			carry = len - used; /* a record cut by the window's end, at most 64 KiB */
			carry_at = used;
		}
	}
	if (prev) {
		prev->retired = 1;
		prev->live++;
		chunk_release(R, prev);
	}
	return rc;
}

static void *reader_main(void *arg)
{
	struct pd_reader *rd = arg;
	pthread_mutex_lock(&rd->mu);
	while (!rd->stop && rd->fpos < rd->dend) {
		while (rd->nready >= PD_AHEAD && !rd->stop)
			pthread_cond_wait(&rd->cv_space, &rd->mu);
		if (rd->stop)
			break;
		struct pd_chunk *c = rd->free;
		if (c) {
			rd->free = c->next;
			rd->nfree--;
		}
		uint64_t fpos = rd->fpos;
		pthread_mutex_unlock(&rd->mu);
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (c) {
				c->cap = PD_WIN_SIZE;
				c->ahead = 1;
				c->data = malloc(PD_HEAD + (size_t)PD_WIN_SIZE);
				if (!c->data) {
					free(c);
					c = NULL;
				}
			}
		}
		size_t len = 0, want = PD_WIN_SIZE;
		int e = c ? 0 : -ENOMEM;
		if (want > rd->dend - fpos)
			want = (size_t)(rd->dend - fpos);
		while (!e && len < want) {
			ssize_t got = pread(rd->fd, c->data + PD_HEAD + len, want - len, (off_t)(fpos + len));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				e = got < 0 ? -errno : 1;
			else
				len += (size_t)got;
		}
		pthread_mutex_lock(&rd->mu);
		if (e) {
			rd->err = e;
			rd->err_off = fpos + len;
			if (c) {
				c->next = rd->free;
				rd->free = c;
				rd->nfree++;
			}
			break;
		}
		c->foff = fpos;
		c->used = len;
		c->next = NULL;
		if (rd->ready_tail)
			rd->ready_tail->next = c;
		else
			rd->ready = c;
		rd->ready_tail = c;
		rd->nready++;
		rd->fpos = fpos + len;
		pthread_cond_signal(&rd->cv_ready);
	}
	rd->done = 1;
	pthread_cond_signal(&rd->cv_ready);
	pthread_mutex_unlock(&rd->mu);
	return NULL;
}

/* The next window read ahead (NULL at the end or on an error, *e set then). */
static struct pd_chunk *reader_next(struct pd_reader *rd, int *e, uint64_t *err_off)
{
	pthread_mutex_lock(&rd->mu);
	while (!rd->nready && !rd->done)
		pthread_cond_wait(&rd->cv_ready, &rd->mu);
	struct pd_chunk *c = rd->ready;
	if (c) {
		rd->ready = c->next;
		if (!rd->ready)
			rd->ready_tail = NULL;
		rd->nready--;
		pthread_cond_signal(&rd->cv_space);
	} else {
		*e = rd->err;
		*err_off = rd->err_off;
	}
	pthread_mutex_unlock(&rd->mu);
	return c;
}

static void reader_free_list(struct pd_chunk *c)
{
	while (c) {
		struct pd_chunk *n = c->next;
		free(c->data);
		free(c);
		c = n;
	}
}

/* walk_windows with the reading done ahead by a second thread; -EAGAIN when the thread
 * cannot be started (the caller reads in this one). */
static int walk_ahead(struct pd_run *R)
{
	mp_pd *pd = R->pd;
	struct pd_reader *rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -EAGAIN;
	rd->fd = pd->fd;
	rd->fpos = pd->data_off;
	rd->dend = pd->data_off + pd->data_size;
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv_ready, NULL);
	pthread_cond_init(&rd->cv_space, NULL);
	if (pthread_create(&rd->th, NULL, reader_main, rd)) {
		pthread_cond_destroy(&rd->cv_space);
		pthread_cond_destroy(&rd->cv_ready);
		pthread_mutex_destroy(&rd->mu);
		free(rd);
		return -EAGAIN;
	}
	R->rd = rd;
	const uint64_t dend = rd->dend;
	uint64_t fpos = pd->data_off; /* next byte of the data to walk */
	struct pd_chunk *prev = NULL;
	size_t carry = 0, carry_at = 0;
	int rc = 0;

	while (fpos < dend || carry) {
		int e = 0;
		uint64_t eoff = 0;
		struct pd_chunk *c = reader_next(rd, &e, &eoff);
		if (!c) {
			if (e < 0 && e != -ENOMEM)
				rc = mp_err_set(R->err, e, "%s: reading the data at offset %#" PRIx64 ": %s",
						pd->path, eoff, strerror(-e));
			else if (e < 0)
				rc = PD_ERR(pd, R->err, -ENOMEM, "out of memory");
			else if (e > 0)
				rc = mp_err_set(R->err, -MP_ETRUNC, "%s: reading the data at offset %#" PRIx64
						": the file is shorter than its header says", pd->path, eoff);
			else if (carry) /* the data ends inside a record: walk says so */
				c = NULL;
			if (rc || !carry)
				break;
		}
		if (c && c->foff + c->used <= fpos && !carry) {
			/* all of it inside a payload that was skipped */
			c->live = 1;
			c->retired = 1;
			chunk_link(R, c);
			chunk_release(R, c);
			continue;
		}
		uint8_t *buf;
		size_t len;
		uint64_t base;
		if (!c) {
			/* no more data: the carried bytes alone, walked as the data's end */
			buf = prev->data + carry_at;
			len = carry;
			base = fpos - carry;
		} else {
			c->live = 0;
			c->retired = 0;
			chunk_link(R, c);
			size_t skip = fpos > c->foff ? (size_t)(fpos - c->foff) : 0;
			if (carry)
				memcpy(c->data + PD_HEAD - carry, prev->data + carry_at, carry);
			buf = c->data + PD_HEAD + skip - carry;
			len = carry + c->used - skip;
			base = c->foff + skip - carry;
		}
		struct pd_chunk *walked = c ? c : prev;
		if (c && prev) {
			prev->retired = 1;
			prev->live++;
			chunk_release(R, prev);
			prev = NULL;
		}
		size_t used = 0;
		R->win = walked;
		rc = walk(R, buf, len, base, WALK_WINDOW, &used);
		R->win = NULL;
		if (rc || !c)
			break;
		prev = c;
		if (used >= len) {
			fpos = base + used; /* past a payload that went on beyond the window */
			carry = 0;
		} else {
			carry = len - used;
			carry_at = (size_t)(buf - c->data) + used;
			fpos = base + len;
		}
	}
	if (prev) {
		prev->retired = 1;
		prev->live++;
		chunk_release(R, prev);
	}
	pthread_mutex_lock(&rd->mu);
	rd->stop = 1;
	pthread_cond_signal(&rd->cv_space);
	pthread_mutex_unlock(&rd->mu);
	pthread_join(rd->th, NULL);
	return rc;
}

/* After the run: the read-ahead thread's buffers freed (queued records' windows are on
 * R->chunks and freed with them). */
static void reader_fini(struct pd_run *R)
{
	struct pd_reader *rd = R->rd;
	if (!rd)
		return;
	R->rd = NULL;
	reader_free_list(rd->ready);
	reader_free_list(rd->free);
	pthread_cond_destroy(&rd->cv_space);
	pthread_cond_destroy(&rd->cv_ready);
	pthread_mutex_destroy(&rd->mu);
	free(rd);
}

int mp_pd_process(mp_pd *pd, const struct mp_pd_handler *h, struct mp_err *err)
{
	if (!pd)
		return mp_err_set(err, -EINVAL, "mp_pd_process: no file");
	struct pd_run R;
	memset(&R, 0, sizeof(R));
	R.pd = pd;
	R.h = h;
	R.err = err;
	R.ordered = pd->ordered && pd->ia[0].sid_all && h &&
		    (h->mmap || h->comm || h->fork || h->exit);
	R.prog_step = pd->data_size / 100 + 1;
	R.prog_next = pd->data_off + R.prog_step;

	memset(pd->counts, 0, sizeof(pd->counts));
	pd->nr_unknown = 0;
	pd->nrdctr = 0;
	pd->runs++;
	for (size_t i = 0; i < pd->nattrs; i++) {
		struct mp_pd_attr *a = &pd->attrs[i];
		a->nr_samples = a->total_period = a->lost = 0;
		a->has_counts = 0;
		a->count_value = a->count_ena = a->count_run = 0;
		a->count_nctr = a->count_nmux = a->count_mux_run = a->count_mux_ena = 0;
	}
	for (size_t i = 0; i < pd->sid_cap; i++)
		pd->sids[i].prev = 0;

	int rc = -EAGAIN;
	if (pd->own_map && pd->fd >= 0 && pd->data_size > PD_THREAD_MIN)
		rc = walk_ahead(&R);
	if (rc == -EAGAIN)
		rc = pd->own_map && pd->fd >= 0 ? walk_windows(&R)
						: walk(&R, pd->map + pd->data_off, (size_t)pd->data_size,
						       pd->data_off, WALK_TOP, NULL);
	if (rc == 0 && R.zlen) {
		/* a partial record left in the zstd output at the end of the file */
		rc = pd_err_rec(pd, err, pd->data_off + pd->data_size,
				"truncated: the compressed data ends inside a record");
	}
	if (rc == 0 && R.ordered)
		rc = q_flush(&R, UINT64_MAX);
	finish_counts(pd);
	if (h && h->progress)
		h->progress(h->ctx, pd->data_size, pd->data_size);
	for (size_t i = R.qh; i < R.nq; i++)
		chunk_release(&R, R.q[i].ch);
	chunks_free(&R);
	reader_fini(&R);
	free(R.q);
	free(R.tmp);
	free(R.zbuf);
	ZSTD_freeDStream(R.zs);
	return rc;
}
