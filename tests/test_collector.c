/* Unit tests of the collector: the perf.data writer (round trips checked by parsing the
 * file and, where perf is installed, with perf script), the ring reader, the event list
 * against a fake perf_event_open (-Wl,--wrap), and live record/stat runs on software
 * events. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_collector_internal.h"

/* ---- fake perf_event_open / ioctl ---- */

struct fake_call {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd, fd;
};

static int fake_on;          /* 0: the real syscall */
static int fake_fail_at = -1; /* call index that fails */
static int fake_errno;
static struct fake_call fake_calls[64];
static int fake_ncalls;

int __real_mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				  int group_fd, unsigned long flags);
int __wrap_mp_ev_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
				  int group_fd, unsigned long flags)
{
	if (!fake_on)
		return __real_mp_ev_sys_perf_event_open(attr, pid, cpu, group_fd, flags);
	int i = fake_ncalls++;
	if (i == fake_fail_at) {
		errno = fake_errno;
		return -1;
	}
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (i < 64)
		fake_calls[i] = (struct fake_call){ *attr, pid, cpu, group_fd, fd };
	return fd;
}

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (fake_on && req == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = 1000 + (uint64_t)fd;
		return 0;
	}
	if (fake_on && (req == PERF_EVENT_IOC_ENABLE || req == PERF_EVENT_IOC_DISABLE ||
			req == PERF_EVENT_IOC_SET_OUTPUT))
		return 0;
	return __real_ioctl(fd, req, arg);
}

static void fake_reset(int fail_at, int err)
{
	fake_on = 1;
	fake_fail_at = fail_at;
	fake_errno = err;
	fake_ncalls = 0;
	memset(fake_calls, 0, sizeof(fake_calls));
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static struct mp_event sw_event(const char *name, uint64_t config, uint64_t period)
{
	struct mp_event ev;
	memset(&ev, 0, sizeof(ev));
	snprintf(ev.spec, sizeof(ev.spec), "%s", name);
	snprintf(ev.resolved, sizeof(ev.resolved), "%s", name);
	ev.kind = MP_EV_SOFTWARE;
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.config = config;
	ev.attr.sample_period = period;
	ev.min_count = 1;
	return ev;
}

static char tmpdir[256];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_collector.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *path_in(const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long sz;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* ---- writer ---- */

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* What the collector asks for a fixed period (-c): no PERIOD, as perf (issue 19). */
#define ST_FIXED (ST & ~(uint64_t)PERF_SAMPLE_PERIOD)

static struct perf_event_attr file_attr(uint64_t config, uint64_t period)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = period;
	a.sample_type = ST;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.task = 1;
	return a;
}

static void put_sample(mp_pdw *w, uint64_t id, uint64_t ip, uint32_t pid, uint32_t tid,
		       uint64_t time, uint64_t period)
{
	uint64_t s[7];
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(s);
	s[1] = id;
	s[2] = ip;
	s[3] = (uint64_t)pid | (uint64_t)tid << 32;
	s[4] = time;
	s[5] = 0;
	s[6] = period;
	assert_int_equal(mp_pdw_write(w, s, sizeof(s)), 0);
}

static void put_comm(mp_pdw *w, uint32_t pid, uint32_t tid, const char *comm)
{
	uint64_t rec[32];
	struct perf_event_header *h = (void *)rec;
	uint32_t *p = (uint32_t *)(h + 1);
	memset(rec, 0, sizeof(rec));
	p[0] = pid;
	p[1] = tid;
	strcpy((char *)(p + 2), comm);
	size_t sz = 8 + 8 + ((strlen(comm) + 1 + 7) & ~(size_t)7);
	sz += mp_pdw_id_trailer(w, 0, pid, tid, 1, 0, (unsigned char *)rec + sz);
	h->type = PERF_RECORD_COMM;
	h->size = (uint16_t)sz;
	assert_int_equal(mp_pdw_write(w, rec, sz), 0);
}

static void put_mmap2(mp_pdw *w, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		      const char *file)
{
	uint64_t rec[128];
	struct perf_event_header *h = (void *)rec;
	unsigned char *b = (unsigned char *)(h + 1);
	memset(rec, 0, sizeof(rec));
	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	uint32_t prot = 5, flags = 2;
	memcpy(b + 56, &prot, 4);
	memcpy(b + 60, &flags, 4);
	strcpy((char *)b + 64, file);
	size_t sz = 8 + 64 + ((strlen(file) + 1 + 7) & ~(size_t)7);
	sz += mp_pdw_id_trailer(w, 0, pid, pid, 1, 0, (unsigned char *)rec + sz);
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)sz;
	assert_int_equal(mp_pdw_write(w, rec, sz), 0);
}

struct fhdr {
	char magic[8];
	uint64_t size, attr_size;
	uint64_t attrs_off, attrs_size, data_off, data_size, et_off, et_size;
	uint64_t flags[4];
};

/* Offset and size of feature bit feat in the file, or -1. */
static int feature_sec(const unsigned char *f, int feat, uint64_t *off, uint64_t *size)
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
static void readelf_build_id(const char *path, char *out, size_t len)
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
static size_t n_matching(const char *pattern)
{
	glob_t g;
	size_t n = glob(pattern, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	return n;
}

static void pdw__known_samples__file_layout_and_features(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	const char *out = path_in("known.data");
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	struct perf_event_attr a0 = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	struct perf_event_attr a1 = file_attr(PERF_COUNT_SW_TASK_CLOCK, 250000);
	a1.mmap = a1.mmap2 = a1.comm = a1.task = 0;
	uint64_t ids0[2] = { 11, 12 }, ids1[2] = { 21, 22 };
	assert_int_equal(mp_pdw_add_attr(w, &a0, ids0, 2, "cpu-clock", "cpu-clock"), 0);
	assert_int_equal(mp_pdw_add_attr(w, &a1, ids1, 2, "task-clock", "task-clock:250000"), 1);
	assert_int_equal(mp_pdw_set_host_features(w), 0);
	char *argv[] = { "memprof", "record", "-e", "cpu-clock", "./x" };
	assert_int_equal(mp_pdw_set_cmdline(w, 5, argv), 0);
	assert_int_equal(mp_pdw_set_meta(w, "simulated", "no"), 0);

	/* The test program itself is the mapped object: its build-id must be found. */
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	put_comm(w, 4242, 4242, "walker");
	put_comm(w, 4242, 4243, "walker");
	put_mmap2(w, 4242, 0x400000, 0x10000, 0, self);
	put_mmap2(w, 4242, 0x7f0000000000, 0x1000, 0, "/nonexistent/never-hit.so");
	for (int i = 0; i < 30; i++)
		put_sample(w, i % 3 ? 11 : 22, 0x401000 + (uint64_t)i, 4242, i % 2 ? 4243 : 4242,
			   1000 + (uint64_t)i, i % 3 ? 100000 : 250000);
	/* one lost record (id 12: cpu-clock, 7 lost) and one throttle (id 21) */
	uint64_t lost[3 + 4] = { 0 };
	struct perf_event_header *lh = (void *)lost;
	lh->type = PERF_RECORD_LOST;
	lh->size = 8 + 16 + 40;
	lost[1] = 12;
	lost[2] = 7;
	assert_int_equal(mp_pdw_write(w, lost, 24), -EINVAL); /* size says 64, only 24 given */
	lh->size = 24;
	assert_int_equal(mp_pdw_write(w, lost, 24), 0);
	uint64_t thr[4] = { 0, 5, 21, 21 };
	struct perf_event_header *th = (void *)thr;
	th->type = PERF_RECORD_THROTTLE;
	th->size = sizeof(thr);
	assert_int_equal(mp_pdw_write(w, thr, sizeof(thr)), 0);
	/* a second count of the same id replaces the first: one READ per id */
	assert_int_equal(mp_pdw_add_counts(w, 0, 11, 1000000, 400, 200), 0);
	assert_int_equal(mp_pdw_add_counts(w, 0, 11, 2000000, 900, 450), 0);
	assert_int_equal(mp_pdw_add_counts(w, 1, 22, 2500000, 900, 900), 0);
	assert_int_equal(mp_pdw_add_counts(w, 5, 22, 1, 1, 1), -EINVAL);
	mp_pdw_set_read_pid(w, 4242);

	/* attrs are frozen once data is written */
	assert_int_equal(mp_pdw_add_attr(w, &a0, ids0, 1, "late", "late"), -EBUSY);
	uint64_t s, t, l;
	assert_int_equal(mp_pdw_get_stats(w, 0, &s, &t, &l), 0);
	assert_int_equal(s, 20);
	assert_int_equal(t, 0);
	assert_int_equal(l, 7);
	assert_int_equal(mp_pdw_get_stats(w, 1, &s, &t, &l), 0);
	assert_int_equal(s, 10);
	assert_int_equal(t, 1);
	assert_int_equal(mp_pdw_lost_total(w), 7);
	assert_int_equal(mp_pdw_close(w, &err), 0);

	/* no .tmp left, the file is at its name */
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp*", out);
	assert_int_equal(n_matching(tmp), 0);
	size_t n;
	unsigned char *f = slurp(out, &n);
	assert_non_null(f);
	const struct fhdr *h = (const void *)f;
	assert_memory_equal(h->magic, "PERFILE2", 8);
	assert_int_equal(h->size, 104);
	assert_int_equal(h->attr_size, 128 + 16);
	assert_int_equal(h->attrs_size, 2 * 144);
	const struct perf_event_attr *fa = (const void *)(f + h->attrs_off);
	assert_int_equal(fa->size, 128);
	assert_int_equal(fa->sample_period, 100000);
	const uint64_t *sec = (const void *)(f + h->attrs_off + 128 + 144);
	assert_int_equal(sec[1], 16);
	assert_int_equal(((const uint64_t *)(f + sec[0]))[1], 22);
	/* data: 2 comm + 2 mmap2 + 30 samples + lost + throttle + 2 READ */
	size_t nrec = 0, nread = 0;
	for (uint64_t o = 0; o < h->data_size;) {
		const struct perf_event_header *r = (const void *)(f + h->data_off + o);
		assert_true(r->size >= 8);
		nrec++;
		if (r->type == PERF_RECORD_READ) {
			const uint64_t *u = (const void *)(r + 1);
			assert_int_equal((uint32_t)u[0], 4242);
			if (u[4] == 11) {
				assert_int_equal(u[1], 2000000);
				assert_int_equal(u[2], 900);
				assert_int_equal(u[3], 450);
			}
			/* the trailer's IDENTIFIER names the same id */
			assert_int_equal(((const uint64_t *)r)[r->size / 8 - 1], u[4]);
			nread++;
		}
		o += r->size;
	}
	assert_int_equal(nrec, 2 + 2 + 30 + 1 + 1 + 2);
	assert_int_equal(nread, 2);
	int feats[] = { 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, MP_HEADER_MEMPROF };
	uint64_t off = 0, size = 0;
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++)
		assert_int_equal(feature_sec(f, feats[i], &off, &size), 0);
	/* BUILD_ID: exactly one entry (the hit object; the never-hit .so is not read) */
	assert_int_equal(feature_sec(f, 2, &off, &size), 0);
	const struct perf_event_header *bh = (const void *)(f + off);
	assert_int_equal(bh->size, size);
	char hex[64] = "", want[64];
	for (int i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", f[off + 12 + (size_t)i]);
	assert_string_equal((const char *)f + off + 36, self);
	readelf_build_id(self, want, sizeof(want));
	if (want[0])
		assert_string_equal(hex, want);
	/* EVENT_DESC: two events, names and ids */
	assert_int_equal(feature_sec(f, 12, &off, &size), 0);
	const uint32_t *ed = (const void *)(f + off);
	assert_int_equal(ed[0], 2);
	assert_int_equal(ed[1], 128);
	assert_int_equal(*(const uint32_t *)(f + off + 8 + 128), 2);
	assert_string_equal((const char *)f + off + 8 + 128 + 4 + 4, "cpu-clock");
	/* memprof's feature: key=value lines */
	assert_int_equal(feature_sec(f, MP_HEADER_MEMPROF, &off, &size), 0);
	char *meta = strndup((const char *)f + off, size);
	assert_non_null(strstr(meta, "event.1.spec=task-clock:250000\n"));
	assert_non_null(strstr(meta, "simulated=no\n"));
	free(meta);
	/* CMDLINE */
	assert_int_equal(feature_sec(f, 11, &off, &size), 0);
	assert_int_equal(*(const uint32_t *)(f + off), 5);
	assert_string_equal((const char *)f + off + 8, "memprof");
	free(f);
}


/* Walk the BUILD_ID feature of file f: count its entries, set *has to 1 for each name in
 * names[] that is there, and fail on a name listed in never. */
static int bid_entries(const unsigned char *f, const char *const *names, int *has, size_t nnames,
		       const char *never)
{
	uint64_t off = 0, size = 0;
	int count = 0;
	assert_int_equal(feature_sec(f, 2, &off, &size), 0);
	for (uint64_t o = off; o < off + size;) {
		const struct perf_event_header *b = (const void *)(f + o);
		const char *name = (const char *)f + o + 36;
		for (size_t i = 0; i < nnames; i++)
			has[i] |= !strcmp(name, names[i]);
		assert_string_not_equal(name, never);
		count++;
		o += b->size;
	}
	return count;
}

static void pdw__callchain_objects__build_ids_of_both(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	const char *out = path_in("chain.data");
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	struct perf_event_attr a = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	uint64_t id = 11;
	mp_pdw_add_attr(w, &a, &id, 1, "cpu-clock", "cpu-clock");
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	const char *other = "/bin/true", *never = "/bin/sh";
	put_comm(w, 9, 9, "chain");
	put_mmap2(w, 9, 0x400000, 0x10000, 0, self);
	put_mmap2(w, 9, 0x500000, 0x10000, 0, other);
	put_mmap2(w, 9, 0x600000, 0x10000, 0, never);
	/* ip in self; the chain passes through /bin/true; /bin/sh is never hit */
	uint64_t s[11];
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(s);
	s[1] = 11;
	s[2] = 0x401000;
	s[3] = 9ull | 9ull << 32;
	s[4] = 5;
	s[5] = 0;
	s[6] = 100000;
	s[7] = 3;
	s[8] = (uint64_t)PERF_CONTEXT_USER;
	s[9] = 0x401000;
	s[10] = 0x501234;
	assert_int_equal(mp_pdw_write(w, s, sizeof(s)), 0);
	assert_int_equal(mp_pdw_close(w, &err), 0);
	size_t n;
	unsigned char *f = slurp(out, &n);
	assert_non_null(f);
	const char *names[] = { self, other };
	int has[2] = { 0, 0 };
	int count = bid_entries(f, names, has, 2, never);
	char want[64];
	readelf_build_id(other, want, sizeof(want));
	assert_true(has[0]);
	if (want[0]) /* /bin/true has a build-id on Debian */
		assert_true(has[1]);
	assert_int_equal(count, want[0] ? 2 : 1);
	free(f);
}

/* The rings are drained one CPU at a time: a sample can reach the writer before the MMAP2
 * of its object from another CPU's ring. The object still gets its build-id. */
static void pdw__sample_before_its_mmap__build_id_kept(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	const char *out = path_in("late-mmap.data");
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	struct perf_event_attr a = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	uint64_t id = 11;
	mp_pdw_add_attr(w, &a, &id, 1, "cpu-clock", "cpu-clock");
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	put_comm(w, 9, 9, "late");
	uint64_t s[7];
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = sizeof(s);
	s[1] = 11;
	s[2] = 0x401000;
	s[3] = 9ull | 9ull << 32;
	s[4] = 5;
	s[5] = 0;
	s[6] = 100000;
	assert_int_equal(mp_pdw_write(w, s, sizeof(s)), 0);
	put_mmap2(w, 9, 0x400000, 0x10000, 0, self); /* arrives after the sample */
	put_mmap2(w, 9, 0x600000, 0x10000, 0, "/bin/sh"); /* never hit */
	assert_int_equal(mp_pdw_close(w, &err), 0);
	size_t n;
	unsigned char *f = slurp(out, &n);
	assert_non_null(f);
	const char *names[] = { self };
	int has[1] = { 0 };
	assert_int_equal(bid_entries(f, names, has, 1, "/bin/sh"), 1);
	assert_true(has[0]);
	free(f);
}

static int have_perf(void)
{
	return system("perf --version >/dev/null 2>&1") == 0;
}

static void pdw__known_samples__perf_script_agrees(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	struct mp_err err = { 0 };
	const char *out = path_in("script.data");
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	struct perf_event_attr a0 = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	struct perf_event_attr a1 = file_attr(PERF_COUNT_SW_TASK_CLOCK, 250000);
	a1.mmap = a1.mmap2 = a1.comm = a1.task = 0;
	uint64_t id0 = 11, id1 = 21;
	mp_pdw_add_attr(w, &a0, &id0, 1, "cpu-clock", "cpu-clock");
	mp_pdw_add_attr(w, &a1, &id1, 1, "task-clock", "task-clock");
	mp_pdw_set_host_features(w);
	put_comm(w, 4242, 4242, "walker");
	put_comm(w, 4242, 4243, "walker");
	for (int i = 0; i < 12; i++)
		put_sample(w, i < 9 ? 11 : 21, 0x401000, 4242, 4242 + (uint32_t)(i % 2),
			   1000 + (uint64_t)i, i < 9 ? 100000 : 250000);
	assert_int_equal(mp_pdw_close(w, &err), 0);

	char cmd[700], line[256];
	snprintf(cmd, sizeof(cmd),
		 "perf script -i '%s' -F comm,pid,tid,event,period 2>&1 | "
		 "awk '{print $1, $2, $3, $4}' | sort | uniq -c",
		 out);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char all[1024] = "";
	while (fgets(line, sizeof(line), p))
		strncat(all, line, sizeof(all) - strlen(all) - 1);
	pclose(p);
	/* perf prints comm, pid/tid, period, event: */
	assert_non_null(strstr(all, "5 walker 4242/4242 100000 cpu-clock:"));
	assert_non_null(strstr(all, "4 walker 4242/4243 100000 cpu-clock:"));
	assert_non_null(strstr(all, "2 walker 4242/4243 250000 task-clock:"));
	assert_non_null(strstr(all, "1 walker 4242/4242 250000 task-clock:"));
	assert_null(strstr(all, "arning"));
}

static void pdw__sync__tmp_file_readable_before_close(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	const char *out = path_in("sync.data");
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	struct perf_event_attr a0 = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	uint64_t id0 = 11;
	mp_pdw_add_attr(w, &a0, &id0, 1, "cpu-clock", "cpu-clock");
	put_comm(w, 7, 7, "w");
	for (int i = 0; i < 5; i++)
		put_sample(w, 11, 0x1000, 7, 7, (uint64_t)i, 100000);
	assert_int_equal(mp_pdw_sync(w, &err), 0);
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s", mp_pdw_tmp_path(w));
	assert_non_null(strstr(tmp, "sync.data.tmp."));
	struct stat st;
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	size_t n;
	unsigned char *f = slurp(tmp, &n);
	assert_non_null(f);
	const struct fhdr *h = (const void *)f;
	assert_int_equal(h->data_size, 56 + 5 * 56); /* comm "w" 24 + trailer 32 */
	assert_int_equal(h->data_off + h->data_size, n);
	free(f);
	assert_int_equal(access(out, F_OK), -1);
	mp_pdw_abort(w); /* a run that never started: nothing left */
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(access(out, F_OK), -1);
}

static void pdw__bad_input__errors(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	assert_null(mp_pdw_create("/nonexistent-dir/x.data", &err));
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.data.tmp"));
	mp_pdw *w = mp_pdw_create(path_in("bad.data"), &err);
	assert_non_null(w);
	struct perf_event_attr a0 = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
	struct perf_event_attr a1 = a0;
	a1.sample_type |= PERF_SAMPLE_ADDR;
	uint64_t id = 1;
	assert_int_equal(mp_pdw_add_attr(w, &a0, &id, 1, "a", "a"), 0);
	assert_int_equal(mp_pdw_add_attr(w, &a1, &id, 1, "b", "b"), -EINVAL);
	struct {
		struct perf_event_header h;
		uint64_t pad;
	} junk = { { PERF_RECORD_SAMPLE, 0, 4 }, 0 };
	assert_int_equal(mp_pdw_write(w, &junk, sizeof(junk)), -EINVAL);
	assert_int_equal(mp_pdw_add_build_id(w, -1, PERF_RECORD_MISC_USER,
					     (const uint8_t *)"x", 0, "/x"), -EINVAL);
	mp_pdw_abort(w);
	mp_pdw_abort(NULL);
}

/* ---- ring ---- */

static void ring__wrapped_record__bounce_copy(void **state)
{
	(void)state;
	/* A fake ring of 256 data bytes after a control page. */
	size_t page = 4096;
	unsigned char *mem = calloc(1, page + 256);
	struct mp_ring r;
	memset(&r, 0, sizeof(r));
	r.pc = (void *)mem;
	r.data = mem + page;
	r.size = 256;
	r.mask = 255;
	/* records of 40 bytes starting at offset 200: the first wraps after 56 bytes? no: 200+40
	 * = 240 fits; the second (240..280) wraps. Positions are absolute (head grows). */
	uint64_t start = 200;
	r.cur = start;
	r.pc->data_tail = start;
	for (int k = 0; k < 3; k++) {
		unsigned char rec[40];
		struct perf_event_header *h = (void *)rec;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = 0;
		h->size = 40;
		for (int i = 8; i < 40; i++)
			rec[i] = (unsigned char)(k * 50 + i);
		for (int i = 0; i < 40; i++)
			r.data[(start + (uint64_t)k * 40 + (uint64_t)i) & 255] = rec[i];
	}
	r.pc->data_head = start + 120;
	assert_int_equal(mp_ring_read_init(&r), 120);
	for (int k = 0; k < 3; k++) {
		const struct perf_event_header *h = mp_ring_read_event(&r);
		assert_non_null(h);
		assert_int_equal(h->size, 40);
		const unsigned char *b = (const void *)h;
		for (int i = 8; i < 40; i++)
			assert_int_equal(b[i], (unsigned char)(k * 50 + i));
		if (k == 1)
			assert_ptr_equal(b, r.bounce); /* the wrapped one */
		mp_ring_consume(&r);
	}
	assert_null(mp_ring_read_event(&r));
	mp_ring_read_done(&r);
	assert_int_equal(r.pc->data_tail, start + 120);
	/* a corrupt size skips to head instead of looping */
	r.data[(start + 120) & 255] = 0;
	memset(&r.data[(start + 120) & 255], 0, 8);
	r.pc->data_head = start + 160;
	mp_ring_read_init(&r);
	assert_null(mp_ring_read_event(&r));
	assert_int_equal(r.cur, start + 160);
	free(r.bounce);
	free(mem);
}

/* ---- evlist with the fake syscall ---- */

static void evlist__group_per_cpu__leader_and_members(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 250000) };
	pid_t th[1] = { 1234 };
	int cpus[2] = { 0, 1 };
	struct mp_evlist_opts o = { .sampling = 1, .callgraph = 1, .inherit = 1,
				    .enable_on_exec = 1, .tracking = 1, .mmap_pages = 8 };
	struct mp_err err = { 0 };
	fake_reset(-1, 0);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 2, &o, &err);
	assert_non_null(l);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 4);
	for (int c = 0; c < 2; c++) {
		struct fake_call *ld = &fake_calls[c * 2], *mb = &fake_calls[c * 2 + 1];
		assert_int_equal(ld->cpu, c);
		assert_int_equal(ld->pid, 1234);
		assert_int_equal(ld->group_fd, -1);
		assert_int_equal(ld->attr.disabled, 1);
		assert_int_equal(ld->attr.enable_on_exec, 1);
		assert_int_equal(ld->attr.mmap, 1);
		assert_int_equal(ld->attr.comm, 1);
		assert_int_equal(ld->attr.task, 1);
		assert_int_equal(mb->group_fd, ld->fd);
		assert_int_equal(mb->cpu, c);
		assert_int_equal(mb->attr.disabled, 0);
		assert_int_equal(mb->attr.enable_on_exec, 0);
		assert_int_equal(mb->attr.mmap, 0);
		assert_int_equal(mb->attr.sample_period, 250000);
		for (int k = 0; k < 2; k++) {
			struct perf_event_attr *a = &fake_calls[c * 2 + k].attr;
			assert_int_equal(a->inherit, 1);
			assert_int_equal(a->sample_id_all, 1);
			assert_int_equal(a->sample_type, ST_FIXED | PERF_SAMPLE_CALLCHAIN);
			assert_int_equal(a->read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
								 PERF_FORMAT_TOTAL_TIME_RUNNING |
								 PERF_FORMAT_ID);
		}
	}
	size_t n;
	const uint64_t *ids = mp_evlist_ids(l, 1, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1000 + (uint64_t)fake_calls[1].fd);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[3].fd);
	int fd0 = fake_calls[0].fd;
	mp_evlist_free(l);
	assert_false(fd_is_open(fd0));
	fake_on = 0;
}

/* {a,b}:S as the events module marks it: the leader samples and reads the group. */
static void leader_mark(struct mp_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		evs[i].leader_sample = i ? MP_LEADER_SAMPLE_MEMBER : MP_LEADER_SAMPLE_LEADER;
		evs[i].attr.sample_type |= PERF_SAMPLE_READ;
		evs[i].attr.read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
		if (i)
			evs[i].attr.sample_period = 0;
	}
}

static void evlist__leader_sampling__group_read_no_inherit(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	pid_t th[1] = { 1234 };
	int cpus[1] = { 0 };
	struct mp_evlist_opts o = { .sampling = 1, .inherit = 1, .enable_on_exec = 1,
				    .tracking = 1, .mmap_pages = 8 };
	struct mp_err err = { 0 };
	leader_mark(evs, 2);
	fake_reset(-1, 0);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_non_null(l);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 2);
	for (int k = 0; k < 2; k++) {
		struct perf_event_attr *a = &fake_calls[k].attr;
		assert_int_equal(a->inherit, 0);
		assert_int_equal(a->sample_type, ST_FIXED | PERF_SAMPLE_READ);
		assert_int_equal(a->read_format,
				 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
					 PERF_FORMAT_ID | PERF_FORMAT_GROUP);
	}
	assert_int_equal(fake_calls[1].attr.sample_period, 0);
	mp_evlist_free(l);
	/* counting (stat): each fd is read alone, inherit stays */
	o.sampling = 0;
	fake_reset(-1, 0);
	l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_calls[0].attr.inherit, 1);
	assert_int_equal(fake_calls[0].attr.read_format, PERF_FORMAT_TOTAL_TIME_ENABLED |
								  PERF_FORMAT_TOTAL_TIME_RUNNING |
								  PERF_FORMAT_ID);
	mp_evlist_free(l);
	fake_on = 0;
}

/* An empty event list, thread list or cpu list is a usage error (EINVAL) named in the
 * message, not "out of memory". */
static void evlist__nothing_to_open__einval(void **state)
{
	(void)state;
	struct mp_event evs[1] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0) };
	pid_t th[1] = { 100 };
	int cpus[1] = { -1 };
	struct mp_evlist_opts o = { .inherit = 1 };
	struct mp_err err = { 0 };
	assert_null(mp_evlist_new(evs, 1, th, 0, cpus, 1, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 threads"));
	assert_null(mp_evlist_new(evs, 0, th, 1, cpus, 1, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 events"));
	assert_null(mp_evlist_new(evs, 1, th, 1, cpus, 0, &o, &err));
	assert_int_equal(err.code, -EINVAL);
	assert_non_null(strstr(err.msg, "0 cpus"));
}

/* -p PID: a thread that exited between the /proc/PID/task listing and its open (ESRCH)
 * is skipped, as perf does; the last one gone is an error. */
static void evlist__thread_gone__skipped(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 0),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	pid_t th[3] = { 100, 101, 102 };
	int cpus[1] = { -1 };
	struct mp_evlist_opts o = { .inherit = 1 };
	struct mp_err err = { 0 };
	/* call 3 is thread 101's member: its leader (call 2) is closed again */
	fake_reset(3, ESRCH);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 3, cpus, 1, &o, &err);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), 0);
	assert_int_equal(fake_ncalls, 6);
	/* closed: the next open (thread 102's leader) gets the lowest free fd, the same */
	assert_int_equal(fake_calls[4].fd, fake_calls[2].fd);
	assert_int_equal(fake_calls[4].pid, 102);
	size_t n;
	const uint64_t *ids = mp_evlist_ids(l, 0, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 1000 + (uint64_t)fake_calls[0].fd);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[4].fd);
	ids = mp_evlist_ids(l, 1, &n);
	assert_int_equal(ids[1], 1000 + (uint64_t)fake_calls[5].fd);
	mp_evlist_free(l);
	/* one thread, gone: an error naming the process */
	fake_reset(0, ESRCH);
	l = mp_evlist_new(evs, 2, th, 1, cpus, 1, &o, &err);
	assert_int_equal(mp_evlist_open(l, &bad, &err), -ESRCH);
	assert_non_null(strstr(err.msg, "process 100"));
	mp_evlist_free(l);
	fake_on = 0;
}

static void evlist__second_open_refused__all_closed(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 100000) };
	pid_t th[1] = { 1234 };
	int cpus[2] = { 0, 1 };
	struct mp_evlist_opts o = { .sampling = 0, .inherit = 1 };
	struct mp_err err = { 0 };
	fake_reset(3, ENOENT);
	mp_evlist *l = mp_evlist_new(evs, 2, th, 1, cpus, 2, &o, &err);
	int bad = -1;
	assert_int_equal(mp_evlist_open(l, &bad, &err), -ENOENT);
	assert_int_equal(bad, 1);
	assert_non_null(strstr(err.msg, "cpu 1"));
	for (int i = 0; i < 3; i++)
		assert_false(fd_is_open(fake_calls[i].fd));
	/* counting mode: no sampling fields */
	assert_int_equal(fake_calls[0].attr.sample_type, 0);
	assert_int_equal(fake_calls[0].attr.sample_period, 0);
	mp_evlist_free(l);
	fake_on = 0;
}

/* ---- record / stat runs ---- */

static void record__open_refused__no_file_child_reaped(void **state)
{
	(void)state;
	struct mp_event ev = sw_event("L1D_REPL", 0, 100000);
	ev.attr.type = PERF_TYPE_RAW;
	ev.attr.config = 0x151;
	ev.kind = MP_EV_PMU;
	const char *out = path_in("refused.data");
	char *argv[] = { "true", NULL };
	struct mp_record_opts o = { .events = &ev, .nevents = 1, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	fake_reset(0, ENOENT);
	int rc = mp_record_run(&o, &res, &err);
	fake_on = 0;
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err.msg, "L1D_REPL"));
	assert_int_equal(res.workload_started, 0);
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp*", out);
	assert_int_equal(access(out, F_OK), -1);
	assert_int_equal(n_matching(tmp), 0);
	/* the held child was reaped */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	free(res.ev);
}

/* A member refused with EINVAL that opens alone: the group is larger than the PMU. */
static void stat__group_too_big__counters_message(void **state)
{
	(void)state;
	struct mp_event evs[3];
	for (int i = 0; i < 3; i++) {
		evs[i] = sw_event("r08", 0, 0);
		evs[i].attr.type = PERF_TYPE_RAW;
		evs[i].attr.config = 0x8;
		evs[i].kind = MP_EV_PMU;
	}
	char *argv[] = { "true", NULL };
	struct mp_stat_opts o = { .events = evs, .nevents = 3, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	fake_reset(2, EINVAL);
	int rc = mp_stat_run(&o, &res, &err);
	int calls = fake_ncalls;
	fake_on = 0;
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(calls, 4); /* three in the group, then the third alone */
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, "the group of 3 hardware events cannot be scheduled "
					 "together on the PMU"));
	assert_non_null(strstr(err.msg, "memprof ratios --record-cmd"));
	assert_non_null(strstr(err.msg, "'r08'"));
	free(res.ev);
	/* a software member refused is not a counter shortage */
	evs[2] = sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0);
	memset(&err, 0, sizeof(err));
	fake_reset(2, EINVAL);
	rc = mp_stat_run(&o, &res, &err);
	fake_on = 0;
	assert_int_equal(rc, -EINVAL);
	assert_null(strstr(err.msg, "cannot be scheduled"));
	free(res.ev);
}

static void record__missing_command__exec_errno(void **state)
{
	(void)state;
	struct mp_event ev = sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 100000);
	const char *out = path_in("noexec.data");
	char *argv[] = { "/nonexistent/prog", NULL };
	struct mp_record_opts o = { .events = &ev, .nevents = 1, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip(); /* perf_event_paranoid forbids it here */
	}
	assert_int_equal(rc, -ENOENT);
	assert_int_equal(res.exec_errno, ENOENT);
	assert_non_null(strstr(err.msg, "cannot run '/nonexistent/prog'"));
	assert_int_equal(access(out, F_OK), -1);
	free(res.ev);
}

static void record__live_cpu_clock__samples_and_counts(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1000000),
				   sw_event("page-faults", PERF_COUNT_SW_PAGE_FAULTS, 1) };
	const char *out = path_in("live.data");
	/* about 0.2 s of user time, touching 2000 fresh pages, exit status 3 */
	char *argv[] = { "sh", "-c",
			 "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; "
			 "head -c 8192000 /dev/zero | cat >/dev/null; exit 3",
			 NULL };
	struct mp_record_opts o = { .events = evs, .nevents = 2, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(res.workload_started, 1);
	assert_int_equal(mp_exit_code(res.workload_status), 3);
	assert_true(res.ev[0].samples > 0);
	assert_true(res.ev[1].samples > 0);
	/* page-faults with period 1: every fault is a sample, and the exact count says so */
	assert_int_equal(res.ev[1].samples + res.ev[1].lost, res.ev[1].value);
	assert_true(res.ev[0].value >= res.ev[0].samples * 1000000);
	assert_int_equal(res.lost_total, 0);
	assert_int_equal(access(out, F_OK), 0);
	free(res.ev);
}

/* A live {cpu-clock,task-clock}:S recording: the leader's samples carry the group's read
 * block (nr 2, both ids), the member has no samples and its exact count. */
static void record__live_leader_sampling__group_reads(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, 1000000),
				   sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0) };
	const char *out = path_in("leader.data");
	char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	struct mp_record_opts o = { .events = evs, .nevents = 2, .output = out, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	leader_mark(evs, 2);
	int rc = mp_record_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_true(res.ev[0].samples > 0);
	assert_int_equal(res.ev[1].samples, 0);
	assert_true(res.ev[1].value >= res.ev[0].samples * 1000000 / 2);
	size_t n;
	unsigned char *f = slurp(out, &n);
	assert_non_null(f);
	const struct fhdr *h = (const void *)f;
	size_t nsamples = 0, nread = 0;
	for (uint64_t off = 0; off < h->data_size;) {
		const struct perf_event_header *r = (const void *)(f + h->data_off + off);
		const uint64_t *u = (const void *)(r + 1);
		assert_true(r->size >= 8);
		/* IDENTIFIER IP TID TIME CPU (a fixed period: no PERIOD), then nr, ena, run,
		 * {value, id} x nr */
		if (r->type == PERF_RECORD_SAMPLE) {
			assert_int_equal(r->size, 8 + 8 * (5 + 3 + 2 * 2));
			assert_int_equal(u[5], 2);
			assert_int_equal(u[9], u[0]); /* the leader's id first */
			assert_true(u[11] != u[9]);
			nsamples++;
		}
		if (r->type == PERF_RECORD_READ) {
			/* one counter in the group layout: pid/tid, nr 1, ena, run, value, id */
			assert_int_equal(u[1], 1);
			nread++;
		}
		off += r->size;
	}
	assert_int_equal(nsamples, res.ev[0].samples);
	assert_int_equal(nread, 2 * (size_t)sysconf(_SC_NPROCESSORS_ONLN));
	free(f);
	free(res.ev);
}

static void stat__live_task_clock__counted_and_status(void **state)
{
	(void)state;
	struct mp_event evs[2] = { sw_event("task-clock", PERF_COUNT_SW_TASK_CLOCK, 0),
				   sw_event("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES,
					    0) };
	char *argv[] = { "sh", "-c", "sleep 0.05; kill -TERM $$", NULL };
	struct mp_stat_opts o = { .events = evs, .nevents = 2, .argv = argv };
	struct mp_record_result res;
	struct mp_err err = { 0 };
	int rc = mp_stat_run(&o, &res, &err);
	if (rc == -EACCES || rc == -EPERM) {
		free(res.ev);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(mp_exit_code(res.workload_status), 128 + SIGTERM);
	assert_true(res.ev[0].value > 0);
	assert_true(res.ev[0].ena > 0);
	assert_true(res.ev[0].run <= res.ev[0].ena);
	assert_true(res.ev[1].value >= 1); /* sleep switches at least once */
	free(res.ev);
}

static void exit_code__status_kinds(void **state)
{
	(void)state;
	assert_int_equal(mp_exit_code(0), 0);
	assert_int_equal(mp_exit_code(3 << 8), 3);
	assert_int_equal(mp_exit_code(SIGKILL), 137);
	assert_int_equal(mp_exit_code(SIGINT), 130);
}

/* perf record's --call-graph parsing and attr bits (tools/perf/util/callchain.c and
 * evsel__config_callchain): dwarf,SIZE rounds up to 8 bytes, at most 65528; lbr asks for
 * the user call stack without flags or cycles, as the LBR fixture's attr shows, plus
 * HW_INDEX (perf 5.7 on). */
static void callgraph__perf_spellings__attrs_as_perf(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		int rc, mode;
		uint32_t size;
		int line;
	} cases[] = {
		{ "fp", 0, MP_CG_FP, 0, __LINE__ },
		{ "dwarf", 0, MP_CG_DWARF, 8192, __LINE__ },
		{ "dwarf,4000", 0, MP_CG_DWARF, 4000, __LINE__ },
		{ "dwarf,100", 0, MP_CG_DWARF, 104, __LINE__ },
		{ "dwarf,65528", 0, MP_CG_DWARF, 65528, __LINE__ },
		{ "dwarf,65529", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,0", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,", -EINVAL, 0, 0, __LINE__ },
		{ "dwarf,-8", -EINVAL, 0, 0, __LINE__ },
		{ "dwarfx", -EINVAL, 0, 0, __LINE__ },
		{ "lbr", 0, MP_CG_LBR, 0, __LINE__ },
		{ "", -EINVAL, 0, 0, __LINE__ },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mp_err err = { 0 };
		int mode = -1;
		uint32_t size = 1;
		int rc = mp_callgraph_parse(cases[i].in, &mode, &size, &err);
		if (rc != cases[i].rc)
			fail_msg("line %d: '%s' gives %d", cases[i].line, cases[i].in, rc);
		if (rc) {
			assert_non_null(strstr(err.msg, cases[i].in));
			continue;
		}
		if (mode != cases[i].mode || size != cases[i].size)
			fail_msg("line %d: '%s' gives mode %d size %u", cases[i].line, cases[i].in,
				 mode, size);
	}
	struct perf_event_attr a = { 0 };
	mp_callgraph_attr(&a, MP_CG_LBR, 0);
	assert_int_equal(a.sample_type, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK);
	assert_int_equal(a.branch_sample_type,
			 PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
				 PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_NO_CYCLES |
				 PERF_SAMPLE_BRANCH_HW_INDEX);
	assert_int_equal(a.exclude_callchain_user, 0);
	memset(&a, 0, sizeof(a));
	mp_callgraph_attr(&a, MP_CG_FP, 0);
	assert_int_equal(a.sample_type, PERF_SAMPLE_CALLCHAIN);
	memset(&a, 0, sizeof(a));
	mp_callgraph_attr(&a, MP_CG_DWARF, 0);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.exclude_callchain_user, 1);
#if defined(__x86_64__)
	assert_int_equal(a.sample_regs_user, 0xff0fff);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(callgraph__perf_spellings__attrs_as_perf),
		cmocka_unit_test(pdw__known_samples__file_layout_and_features),
		cmocka_unit_test(pdw__known_samples__perf_script_agrees),
		cmocka_unit_test(pdw__callchain_objects__build_ids_of_both),
		cmocka_unit_test(pdw__sample_before_its_mmap__build_id_kept),
		cmocka_unit_test(pdw__sync__tmp_file_readable_before_close),
		cmocka_unit_test(pdw__bad_input__errors),
		cmocka_unit_test(ring__wrapped_record__bounce_copy),
		cmocka_unit_test(evlist__group_per_cpu__leader_and_members),
		cmocka_unit_test(evlist__second_open_refused__all_closed),
		cmocka_unit_test(evlist__nothing_to_open__einval),
		cmocka_unit_test(evlist__thread_gone__skipped),
		cmocka_unit_test(record__open_refused__no_file_child_reaped),
		cmocka_unit_test(record__missing_command__exec_errno),
		cmocka_unit_test(stat__group_too_big__counters_message),
		cmocka_unit_test(record__live_cpu_clock__samples_and_counts),
		cmocka_unit_test(record__live_leader_sampling__group_reads),
		cmocka_unit_test(evlist__leader_sampling__group_read_no_inherit),
		cmocka_unit_test(stat__live_task_clock__counted_and_status),
		cmocka_unit_test(exit_code__status_kinds),
	};
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
