/* mp_pdw_int.h - the perf.data writer's state (struct mp_pdw), shared by its files:
 * mp_pdw.c (create, write, close), mp_pdw_features.c (the header features), mp_pdw_topo.c
 * (the topology features), mp_pdw_track.c (what the written records hit) and
 * mp_pdw_bytes.c (the byte primitives). Private to perfdata/. */
#ifndef MP_PDW_INT_H
#define MP_PDW_INT_H

#include <stdlib.h>

#include "mp_perfdata.h"
#include "mp_util.h"

#define PDW_ATTR_SIZE MP_PERF_ATTR_SIZE
#define PDW_BUF_SIZE (4u << 20)
#define PDW_NAME_ALIGN MP_PERF_NAME_ALIGN
#define PDW_HEADER_SIZE MP_PERF_FILE_HEADER_SIZE

struct pdw_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nids;
	char *name, *spec;
	uint64_t samples, throttled, lost;
	struct mp_sample_layout lay; /* of attr's sample_type, read_format, sample_id_all */
};

struct pdw_id { uint64_t id; int attr; };

struct pdw_file {
	char *name;
	int kernel;
	int hit;
};

struct pdw_map {
	int32_t pid;
	uint64_t start, end;
	int file;
};

struct pdw_fork { int32_t pid, ppid; };

struct pdw_bid {
	int32_t pid;
	int cpumode;
	uint8_t id[20];
	size_t len;
	char *file;
};

struct pdw_count {
	int attr;
	uint64_t id;
	struct mp_counts c;
};

struct pdw_kv { char *key, *value; };

struct mp_pdw {
	int fd;
	int pipe;  /* perf's pipe format, written in order to fd (a copy of stdout) */
	char *path, *tmp;
	struct pdw_attr *attrs;
	size_t nattrs;
	struct pdw_id *idmap; /* sorted by id */
	size_t nidmap;
	int frozen;
	uint64_t data_off, flushed;
	unsigned char *buf;
	size_t blen;
	int error; /* first write error (negative errno) */
	char *str[16];
	struct mp_buf raw[32]; /* payloads given whole (mp_pdw_set_feature) */
	char **cmdline;
	int ncmdline;
	uint32_t cpus_online, cpus_avail;
	int have_nrcpus;
	uint64_t total_mem_kb;
	struct pdw_kv *meta;
	size_t nmeta;
	struct pdw_count *counts;
	size_t ncounts;
	struct pdw_bid *bids;
	size_t nbids;
	int auto_bids;
	struct pdw_file *files;
	size_t nfiles;
	struct pdw_map *maps;
	size_t nmaps;
	struct pdw_fork *forks;
	size_t nforks;
	size_t last_map;
	/* User-mode sample IPs that no map held yet: the rings are drained one CPU at a time,
	 * so a sample can be written before the MMAP of its object from another CPU's ring.
	 * Looked up again at close (one entry per process and page, bounded). */
	struct pdw_pending { int32_t pid; uint64_t page; } *pending;
	size_t npending;
	int kernel_hit;
	uint64_t lost_total, nrecords;
	int32_t read_pid; /* pid/tid of the PERF_RECORD_READ records */
	int mp_feature;   /* write MP_HEADER_MEMPROF */
	size_t group_leader, group_nr; /* HEADER_GROUP_DESC: one group, group_nr > 1 */
	/* Sample layout of attr 0 (all attrs share sample_type and sample_id_all: checked in
	 * add_attr); all zero before the first attr. */
	struct mp_sample_layout layout;
	struct pdw_alloc *alloc; /* allocation records (mp_pdw_alloc.c), NULL when none */
};

/* Capacities kept apart from struct mp_pdw to keep the struct readable. */
struct pdw_caps { size_t attrs, meta, counts, bids, files, maps, forks, pending; };

struct pdw_with_caps {
	struct mp_pdw w;
	struct pdw_caps caps;
};

static inline struct pdw_caps *caps_of(mp_pdw *w)
{
	return &((struct pdw_with_caps *)w)->caps;
}

/* The writer's files, each calling only those below it: mp_pdw.c (create, write, close)
 * -> mp_pdw_features.c (the header features), mp_pdw_topo.c (the topology features)
 * -> mp_pdw_track.c (what the written records hit) -> mp_pdw_bytes.c (below). */

/* mp_pdw_alloc.c: 1 and *len = the MP_HEADER_ALLOC payload's size when there is one, 0
 * when none; mp_pdw_alloc_emit() hands it to emit in pieces of at most piece bytes
 * (records sorted by time); mp_pdw_alloc_free() at the writer's end. */
int mp_pdw_alloc_payload(mp_pdw *w, uint64_t *len);
int mp_pdw_alloc_emit(mp_pdw *w, size_t piece, int (*emit)(void *ctx, const void *p, size_t n),
		      void *ctx);
void mp_pdw_alloc_free(mp_pdw *w);

/* mp_pdw_features.c */
void mp_pdw_features_build(mp_pdw *w, struct mp_buf feat[32], uint64_t flags[4]);

/* mp_pdw_track.c */
int mp_pdw_mark_hit(mp_pdw *w, int32_t pid, uint64_t ip);
void mp_pdw_parse(mp_pdw *w, const struct perf_event_header *h);

/* mp_pdw_bytes.c */
/* All of p[0..n) at file offset off (pwrite(2)), or in order with off < 0 (write(2): pipe
 * mode); 0 or -errno. mp_pdw_write_all: in order. */
int mp_pdw_pwrite_all(int fd, const void *p, size_t n, int64_t off);
int mp_pdw_write_all(int fd, const void *p, size_t n);
/* The data buffer out to the file (w->error set and returned on failure). */
int mp_pdw_flush(mp_pdw *w);
int mp_pdw_append(mp_pdw *w, const void *rec, size_t len);
/* perf's header words and strings; 0 or -ENOMEM */
int mp_pdw_put_u32(struct mp_buf *b, uint32_t v);
int mp_pdw_put_u64(struct mp_buf *b, uint64_t v);
int mp_pdw_put_string(struct mp_buf *b, const char *s);
/* The attr of a sample id (0 with one attr), -1 when unknown; after the first write. */
int mp_pdw_attr_of_id(const mp_pdw *w, uint64_t id);

#endif
