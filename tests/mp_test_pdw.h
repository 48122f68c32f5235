/* mp_test_pdw.h - what the tests that write perf.data files share (test_collector's
 * record runs, test_perfdata's writer round trips): a temporary folder (setup_dir as the
 * group's setup, teardown_dir to remove it, path_in for names in it), attrs and records
 * written through mp_pdw_*, and the file header read back raw. Include after <cmocka.h>. */
#ifndef MP_TEST_PDW_H
#define MP_TEST_PDW_H

#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_perfdata.h"

static char tmpdir[256];

static inline int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/mp_test_pdw.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int teardown_dir(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline char *path_in(const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* What the collector asks for a fixed period (-c): no PERIOD, as perf (issue 19). */
#define ST_FIXED (ST & ~(uint64_t)PERF_SAMPLE_PERIOD)

/* An empty file at the mkstemp template tmpl (its XXXXXX replaced), for a writer. */
static inline void temp_file(char *tmpl)
{
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
}

/* A software event's attr: config, period, sample_type, sample_id_all. */
static inline struct perf_event_attr sw_attr(uint64_t config, uint64_t period,
					     uint64_t sample_type)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = period;
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	return a;
}

/* A writer of path ("-": standard output) with the one attr a (its id, its event name and
 * the name it was asked for), without build-id scans. */
static inline mp_pdw *writer_of(const char *path, const struct perf_event_attr *a, uint64_t id,
				const char *name, const char *asked)
{
	struct mp_err err = { 0 };
	mp_pdw *w = mp_pdw_create(path, &err);
	if (!w)
		fail_msg("%s", err.msg);
	assert_int_equal(mp_pdw_add_attr(w, a, &id, 1, name, asked), 0);
	mp_pdw_set_auto_build_ids(w, 0);
	return w;
}

/* Close writer w of path and open path for reading. */
static inline mp_pd *close_and_open(mp_pdw *w, const char *path)
{
	struct mp_err err = { 0 };
	if (mp_pdw_close(w, &err))
		fail_msg("%s", err.msg);
	mp_pd *pd = mp_pd_open(path, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	return pd;
}

static inline struct perf_event_attr file_attr(uint64_t config, uint64_t period)
{
	struct perf_event_attr a = sw_attr(config, period, ST);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID;
	a.mmap = a.mmap2 = a.comm = a.task = 1;
	return a;
}

static inline void put_sample(mp_pdw *w, uint64_t id, uint64_t ip, uint32_t pid, uint32_t tid,
		       uint64_t time, uint64_t period)
{
	/* IDENTIFIER IP TID TIME CPU PERIOD */
	uint64_t s[7] = { 0, id, ip, (uint64_t)pid | (uint64_t)tid << 32, time, 0, period };
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(s);
	assert_int_equal(mp_pdw_write(w, s, sizeof(s)), 0);
}

static inline void put_comm(mp_pdw *w, uint32_t pid, uint32_t tid, const char *comm)
{
	assert_int_equal(mp_pdw_put_comm(w, pid, tid, comm, 1), 0);
}

/* An MMAP2 record of file with protection prot (PROT_* bits), MAP_PRIVATE. */
static inline void put_mmap2_prot(mp_pdw *w, uint32_t pid, uint64_t start, uint64_t len,
				  uint64_t pgoff, uint32_t prot, const char *file)
{
	struct mp_pdw_map m = { .pid = pid, .tid = pid, .start = start, .len = len, .pgoff = pgoff,
				.prot = prot, .flags = 2 /* MAP_PRIVATE */, .misc = PERF_RECORD_MISC_USER,
				.mmap2 = 1, .time = 1, .file = file };
	assert_int_equal(mp_pdw_put_mmap(w, &m), 0);
}

static inline void put_mmap2(mp_pdw *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		      const char *file)
{
	put_mmap2_prot(w, pid, start, len, pgoff, 5 /* r-x */, file);
}

struct fhdr {
	char magic[8];
	uint64_t size, attr_size;
	uint64_t attrs_off, attrs_size, data_off, data_size, et_off, et_size;
	uint64_t flags[4];
};

/* Offset and size of feature bit feat in the file, or -1. */
static inline int feature_sec(const unsigned char *f, int feat, uint64_t *off, uint64_t *size)
{
	const struct fhdr *h = (const void *)f;
	int k = 0;
	if (!(h->flags[feat / 64] & (1ull << (feat % 64))))
		return -1;
	for (int i = 0; i < feat; i++)
		k += !!(h->flags[i / 64] & (1ull << (i % 64)));
	const uint64_t *sec = (const void *)(f + h->data_off + h->data_size + (size_t)k * 16);
	*off = sec[0];
	*size = sec[1];
	return 0;
}

/* The GNU build-id of path as readelf prints it, or "". */
static inline void readelf_build_id(const char *path, char *out, size_t len)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: *\\([0-9a-f]*\\).*/\\1/p'",
		 path);
	FILE *p = popen(cmd, "r");
	out[0] = 0;
	if (p) {
		if (fgets(out, (int)len, p))
			out[strcspn(out, "\n")] = 0;
		pclose(p);
	}
}

/* How many files match a glob pattern (the writer's temporary files are PATH.tmp.XXXXXX). */
static inline size_t n_matching(const char *pattern)
{
	glob_t g;
	size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

#endif
