/* test_perfdata.c - the perf.data reader against perf 6.1's reading of the shared
 * fixtures (18 files from real hardware), and against hostile input.
 *
 * Expected values come from perf itself: tests/data/perfdata-expect.tsv (per-event sample
 * counts and period sums, made by tests/data/gen-perfdata-expect.sh), the fixtures'
 * *.stats.txt (record counts per type) and *.perf-script-ip.txt (sample order and IPs).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "mp_perfdata.h"
#include "mp_pd_int.h"
#include "mp_test_fixture.h"
#include "mp_test_pdw.h"

#include <unistd.h>

#define PD_NTYPES_TEST 128

static char fixdir[4096];
static char datadir[4096];

static void path_of(char *out, size_t n, const char *file)
{
	snprintf(out, n, "%s/%s", fixdir, file);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static const struct mp_pd_attr *attr_by_name(const mp_pd *pd, const char *name)
{
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		if (!strcmp(mp_pd_attr(pd, i)->name, name))
			return mp_pd_attr(pd, i);
	return NULL;
}

/* ---- sample collection ------------------------------------------------------------ */

struct rec_sample {
	size_t attr;
	uint64_t ip, time, period, id, nr_cc, nr_br;
	uint32_t pid, tid, cpu;
};

struct collect {
	struct rec_sample *s;
	size_t n, cap;
	uint64_t mmaps, comms, forks, exits, lost;
	uint64_t cc_sum;        /* sum of all callchain entries: touches every one */
};

static int c_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct collect *c = ctx;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->s = realloc(c->s, c->cap * sizeof(*c->s));
		assert_non_null(c->s);
	}
	struct rec_sample *r = &c->s[c->n++];
	r->attr = s->attr_idx;
	r->ip = s->ip;
	r->time = s->time;
	r->period = s->period;
	r->id = s->id;
	r->nr_cc = s->nr_callchain;
	r->nr_br = s->nr_branch;
	r->pid = s->pid;
	r->tid = s->tid;
	r->cpu = s->cpu;
	for (uint64_t i = 0; i < s->nr_callchain; i++)
		c->cc_sum += s->callchain[i];
	for (uint64_t i = 0; i < s->nr_branch; i++)
		c->cc_sum += s->branch[i].from;
	return 0;
}

static int c_mmap(void *ctx, const struct mp_pd_mmap *m)
{
	struct collect *c = ctx;
	assert_non_null(m->filename);
	c->mmaps++;
	return 0;
}

static int c_comm(void *ctx, const struct mp_pd_task *t)
{
	struct collect *c = ctx;
	assert_non_null(t->comm);
	c->comms++;
	return 0;
}

static int c_fork(void *ctx, const struct mp_pd_task *t)
{
	(void)t;
	((struct collect *)ctx)->forks++;
	return 0;
}

static int c_exit(void *ctx, const struct mp_pd_task *t)
{
	(void)t;
	((struct collect *)ctx)->exits++;
	return 0;
}

static int c_lost(void *ctx, size_t attr, uint64_t n)
{
	(void)attr;
	((struct collect *)ctx)->lost += n;
	return 0;
}

static mp_pd *open_fixture(const char *file, struct collect *c, int with_tasks)
{
	char p[8192];
	struct mp_err err = { 0 };
	path_of(p, sizeof(p), file);
	mp_pd *pd = mp_pd_open(p, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	struct mp_pd_handler h = { .ctx = c, .sample = c_sample, .lost = c_lost };
	if (with_tasks) {
		h.mmap = c_mmap;
		h.comm = c_comm;
		h.fork = c_fork;
		h.exit = c_exit;
	}
	int rc = mp_pd_process(pd, &h, &err);
	if (rc)
		fail_msg("%s", err.msg);
	return pd;
}

/* ---- per-event sample counts and estimated counts --------------------------------- */

static void fixtures__counts__equal_perf_report(void **state)
{
	(void)state;
	char p[8192];
	snprintf(p, sizeof(p), "%s/perfdata-expect.tsv", datadir);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	char line[1024], cur[512] = "";
	mp_pd *pd = NULL;
	struct collect c = { 0 };
	int nfiles = 0, nevents = 0;
	uint64_t matched_samples = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		char file[512], ev[512];
		uint64_t ns, np;
		assert_int_equal(sscanf(line, "%511[^\t]\t%511[^\t]\t%" SCNu64 "\t%" SCNu64, file, ev, &ns, &np), 4);
		if (strcmp(file, cur)) {
			if (pd) {
				/* every event perf reported was found; no event has samples perf lacks */
				uint64_t tot = 0;
				for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
					tot += mp_pd_attr(pd, i)->nr_samples;
				assert_int_equal(tot, matched_samples);
				assert_int_equal(tot, c.n);
				mp_pd_close(pd);
			}
			free(c.s);
			memset(&c, 0, sizeof(c));
			pd = open_fixture(file, &c, 1);
			snprintf(cur, sizeof(cur), "%s", file);
			matched_samples = 0;
			nfiles++;
		}
		const struct mp_pd_attr *a = attr_by_name(pd, ev);
		if (!a)
			fail_msg("%s: no event named '%s'", file, ev);
		if (a->nr_samples != ns || a->total_period != np)
			fail_msg("%s '%s': samples %" PRIu64 " period %" PRIu64 ", perf says %" PRIu64 " / %" PRIu64,
				 file, ev, a->nr_samples, a->total_period, ns, np);
		matched_samples += a->nr_samples;
		nevents++;
	}
	fclose(f);
	if (pd) {
		uint64_t tot = 0;
		for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
			tot += mp_pd_attr(pd, i)->nr_samples;
		assert_int_equal(tot, matched_samples);
		mp_pd_close(pd);
	}
	free(c.s);
	assert_int_equal(nfiles, 18);
	assert_true(nevents >= 30);
}

/* ---- record counts per type, as perf report --stats ------------------------------- */

static const struct {
	const char *name;
	unsigned type;
} perf_type_names[] = {
	{ "MMAP", 1 }, { "LOST", 2 }, { "COMM", 3 }, { "EXIT", 4 }, { "THROTTLE", 5 },
	{ "UNTHROTTLE", 6 }, { "FORK", 7 }, { "READ", 8 }, { "SAMPLE", 9 }, { "MMAP2", 10 },
	{ "AUX", 11 }, { "ITRACE_START", 12 }, { "LOST_SAMPLES", 13 }, { "SWITCH", 14 },
	{ "SWITCH_CPU_WIDE", 15 }, { "NAMESPACES", 16 }, { "KSYMBOL", 17 }, { "BPF_EVENT", 18 },
	{ "CGROUP", 19 }, { "TEXT_POKE", 20 }, { "AUX_OUTPUT_HW_ID", 21 }, { "ATTR", 64 },
	{ "EVENT_TYPE", 65 }, { "TRACING_DATA", 66 }, { "BUILD_ID", 67 }, { "FINISHED_ROUND", 68 },
	{ "ID_INDEX", 69 }, { "AUXTRACE_INFO", 70 }, { "AUXTRACE", 71 }, { "AUXTRACE_ERROR", 72 },
	{ "THREAD_MAP", 73 }, { "CPU_MAP", 74 }, { "STAT_CONFIG", 75 }, { "STAT", 76 },
	{ "STAT_ROUND", 77 }, { "EVENT_UPDATE", 78 }, { "TIME_CONV", 79 }, { "FEATURE", 80 },
	{ "COMPRESSED", 81 }, { "FINISHED_INIT", 82 },
};

static const char *const fixtures[] = {
	"hotspot-sample-read-group", "kdab-parallel-zstd-zen2", "kdab-vector-dwarf-bdw",
	"kdab-vector-lbr-cfl", "lpd-graviton-zstd-pipe", "numatop-perf-mem-ivb",
	"pdc-amd-raw-branch-stack", "pdc-armv7-3.4", "pdc-callgraph-snb-3.8", "pdc-group-desc-4.14",
	"pdc-group-precise-lost-4.4", "pdc-hw-and-sw-3.4", "pdc-i686-atom-3.4", "pdc-intel-hybrid",
	"pdc-mem-load-latency-skx", "pdc-pipe-group-6.8", "pdc-raw-callgraph-branch-3.4",
	"simd-hw-cache-cfl",
};
#define NFIX (sizeof(fixtures) / sizeof(fixtures[0]))

static void fixtures__record_counts__equal_perf_stats(void **state)
{
	(void)state;
	int checked = 0;
	for (size_t k = 0; k < NFIX; k++) {
		char p[8192], file[600];
		snprintf(file, sizeof(file), "%s.stats.txt", fixtures[k]);
		path_of(p, sizeof(p), file);
		FILE *f = fopen(p, "r");
		assert_non_null(f);
		uint64_t expect[PD_NTYPES_TEST] = { 0 };
		uint64_t total = 0;
		int in_agg = 0, seen = 0;
		char line[512];
		while (fgets(line, sizeof(line), f)) {
			if (strstr(line, "Aggregated stats:")) {
				in_agg = 1;
				continue;
			}
			if (!in_agg)
				continue;
			char name[64];
			uint64_t n;
			if (sscanf(line, " %63s events: %" SCNu64, name, &n) != 2)
				break; /* the per-event part starts */
			if (!strcmp(name, "TOTAL")) {
				total = n;
				continue;
			}
			size_t i;
			for (i = 0; i < sizeof(perf_type_names) / sizeof(perf_type_names[0]); i++)
				if (!strcmp(perf_type_names[i].name, name))
					break;
			if (i == sizeof(perf_type_names) / sizeof(perf_type_names[0]))
				fail_msg("%s: unknown record type name %s", file, name);
			expect[perf_type_names[i].type] = n;
			seen++;
		}
		fclose(f);
		if (!seen)
			continue; /* perf 6.1 cannot decompress lpd-graviton-zstd-pipe: no reference */
		struct collect c = { 0 };
		snprintf(file, sizeof(file), "%s.data", fixtures[k]);
		mp_pd *pd = open_fixture(file, &c, 1);
		uint64_t sum = 0;
		for (unsigned t = 0; t < PD_NTYPES_TEST; t++) {
			if (mp_pd_record_count(pd, t) != expect[t])
				fail_msg("%s: type %u: %" PRIu64 " records, perf says %" PRIu64, file, t,
					 mp_pd_record_count(pd, t), expect[t]);
			sum += mp_pd_record_count(pd, t);
		}
		assert_int_equal(sum, total);
		/* callbacks saw the records the counts say */
		assert_int_equal(c.mmaps, expect[1] + expect[10]);
		assert_int_equal(c.comms, expect[3]);
		assert_int_equal(c.forks, expect[7]);
		assert_int_equal(c.exits, expect[4]);
		mp_pd_close(pd);
		free(c.s);
		checked++;
	}
	assert_int_equal(checked, (int)NFIX - 1);
}

/* ---- sample order and IPs, as perf script ----------------------------------------- */

struct script_line {
	char name[128];
	uint64_t ip;
	int has_ip;
};

static size_t read_script(const char *file, struct script_line **out)
{
	char p[8192];
	path_of(p, sizeof(p), file);
	FILE *f = fopen(p, "r");
	assert_non_null(f);
	size_t n = 0, cap = 0;
	struct script_line *v = NULL;
	char line[1024];
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '\t') { /* callchain entry of the previous sample */
			continue;
		}
		char *s = line;
		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			continue;
		char *br = strstr(s, " [");
		if (br)
			*br = 0;
		size_t l = strlen(s);
		while (l && (s[l - 1] == '\n' || s[l - 1] == ' '))
			s[--l] = 0;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		struct script_line *e = &v[n++];
		memset(e, 0, sizeof(*e));
		char *sp = strrchr(s, ' ');
		if (sp && l && s[l - 1] != ':') {
			e->ip = strtoull(sp + 1, NULL, 16);
			e->has_ip = 1;
			*sp = 0;
			l = strlen(s);
			while (l && s[l - 1] == ' ')
				s[--l] = 0;
		}
		if (l && s[l - 1] == ':')
			s[--l] = 0;
		snprintf(e->name, sizeof(e->name), "%s", s);
	}
	fclose(f);
	*out = v;
	return n;
}

static void fixtures__sample_order__equal_perf_script(void **state)
{
	(void)state;
	int checked = 0;
	for (size_t k = 0; k < NFIX; k++) {
		if (!strcmp(fixtures[k], "hotspot-sample-read-group"))
			continue; /* perf script shows group reads unsplit */
		char file[600];
		struct script_line *sl;
		snprintf(file, sizeof(file), "%s.perf-script-ip.txt", fixtures[k]);
		size_t ns = read_script(file, &sl);
		struct collect c = { 0 };
		snprintf(file, sizeof(file), "%s.data", fixtures[k]);
		mp_pd *pd = open_fixture(file, &c, 1);
		if (c.n != ns)
			fail_msg("%s: %zu samples, perf script shows %zu", file, c.n, ns);
		for (size_t i = 0; i < ns; i++) {
			const char *nm = mp_pd_attr(pd, c.s[i].attr)->name;
			if (strcmp(nm, sl[i].name) || (sl[i].has_ip && sl[i].ip != c.s[i].ip))
				fail_msg("%s: sample %zu is %s %#" PRIx64 ", perf script has %s %#" PRIx64, file, i,
					 nm, c.s[i].ip, sl[i].name, sl[i].ip);
		}
		mp_pd_close(pd);
		free(c.s);
		free(sl);
		checked++;
	}
	assert_int_equal(checked, (int)NFIX - 1);
}

/* Delivery order is time order when ordering is on; sample-only walks get the same
 * samples in file order. */
static void fixtures__unordered__same_samples(void **state)
{
	(void)state;
	struct collect a = { 0 }, b = { 0 };
	mp_pd *pd = open_fixture("pdc-armv7-3.4.data", &a, 1);
	uint64_t last = 0;
	for (size_t i = 0; i < a.n; i++) {
		assert_true(a.s[i].time >= last);
		last = a.s[i].time;
	}
	mp_pd_close(pd);
	pd = open_fixture("pdc-armv7-3.4.data", &b, 0);
	assert_int_equal(a.n, b.n);
	int out_of_order = 0;
	uint64_t sa = 0, sb = 0;
	for (size_t i = 0; i < b.n; i++) {
		sa += a.s[i].period ^ a.s[i].ip;
		sb += b.s[i].period ^ b.s[i].ip;
		if (i && b.s[i].time < b.s[i - 1].time)
			out_of_order = 1;
	}
	assert_int_equal(sa, sb);
	assert_true(out_of_order); /* -a with per-CPU buffers: the file itself is not in order */
	mp_pd_close(pd);
	free(a.s);
	free(b.s);
}

/* ---- group reads: both versions of the hotspot file -------------------------------- */

static void group_read__attr128_and_attr136__same_samples(void **state)
{
	(void)state;
	struct collect a = { 0 }, b = { 0 };
	mp_pd *pa = open_fixture("hotspot-sample-read-group.data", &a, 1);
	mp_pd *pb = open_fixture("hotspot-sample-read-group.orig-attr136.data", &b, 1);
	assert_int_equal(mp_pd_attr(pa, 0)->file_attr_size, 128);
	assert_int_equal(mp_pd_attr(pb, 0)->file_attr_size, 136);
	size_t ncc = 0;
	assert_int_equal(a.n, 68);
	assert_int_equal(b.n, 68);
	assert_int_equal(a.cc_sum, b.cc_sum);
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.s[i].attr, b.s[i].attr);
		assert_int_equal(a.s[i].ip, b.s[i].ip);
		assert_int_equal(a.s[i].time, b.s[i].time);
		assert_int_equal(a.s[i].period, b.s[i].period);
		assert_int_equal(a.s[i].id, b.s[i].id);
		assert_int_equal(a.s[i].nr_cc, b.s[i].nr_cc);
		ncc += a.s[i].nr_cc > 0;
	}
	assert_int_equal(ncc, 62); /* 3 of the 34 records have an empty kernel callchain */
	/* split per member: the two samples of a record alternate between the attrs */
	for (size_t i = 0; i + 1 < a.n; i += 2) {
		assert_int_not_equal(a.s[i].attr, a.s[i + 1].attr);
		assert_int_equal(a.s[i].time, a.s[i + 1].time);
	}
	assert_int_equal(mp_pd_attr(pa, 1)->group_leader_idx, 0);
	assert_string_equal(mp_pd_attr(pa, 0)->name, "cycles");
	assert_string_equal(mp_pd_attr(pa, 1)->name, "instructions");
	assert_int_equal(mp_pd_attr(pa, 0)->attr.read_format,
			 PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST);
	mp_pd_close(pa);
	mp_pd_close(pb);
	free(a.s);
	free(b.s);
}

/* ---- header features and attrs ------------------------------------------------------ */

static void fixtures__features__match_perf_header(void **state)
{
	(void)state;
	struct collect c = { 0 };
	mp_pd *pd = open_fixture("pdc-pipe-group-6.8.data", &c, 0);
	assert_true(mp_pd_is_pipe(pd));
	assert_string_equal(mp_pd_feature_str(pd, MP_HEADER_HOSTNAME), "skanev.svl.corp.google.com");
	assert_string_equal(mp_pd_feature_str(pd, MP_HEADER_OSRELEASE), "6.6.15-2rodete2-amd64");
	assert_string_equal(mp_pd_feature_str(pd, MP_HEADER_ARCH), "x86_64");
	assert_int_equal(mp_pd_nr_cpus(pd), 12);
	assert_int_equal(mp_pd_nattrs(pd), 2);
	assert_int_equal(mp_pd_attr(pd, 0)->file_attr_size, 136);
	assert_int_equal(mp_pd_attr(pd, 1)->group_leader_idx, 0);
	assert_null(mp_pd_meta(pd, "simulated"));
	mp_pd_close(pd);
	free(c.s);

	memset(&c, 0, sizeof(c));
	pd = open_fixture("pdc-armv7-3.4.data", &c, 0);
	assert_false(mp_pd_is_pipe(pd));
	assert_string_equal(mp_pd_feature_str(pd, MP_HEADER_ARCH), "armv7l");
	assert_int_equal(mp_pd_attr(pd, 0)->file_attr_size, 80);
	assert_int_equal(mp_pd_attr(pd, 5)->group_leader_idx, 5);
	assert_non_null(mp_pd_feature_str(pd, MP_HEADER_CMDLINE));
	assert_non_null(strstr(mp_pd_feature_str(pd, MP_HEADER_CMDLINE), "record"));
	assert_true(mp_pd_nbuild_ids(pd) > 0);
	const struct mp_pd_build_id *b = mp_pd_build_id(pd, 0);
	assert_non_null(b);
	assert_true(b->id_len > 0 && b->id_len <= 20);
	assert_non_null(b->filename);
	mp_pd_close(pd);
	free(c.s);

	memset(&c, 0, sizeof(c));
	pd = open_fixture("pdc-group-precise-lost-4.4.data", &c, 0);
	assert_int_equal(mp_pd_attr(pd, 0)->lost, 1);
	assert_int_equal(mp_pd_attr(pd, 1)->lost, 0);
	assert_int_equal(mp_pd_attr(pd, 2)->lost, 1);
	assert_int_equal(c.lost, 2);
	assert_int_equal(mp_pd_attr(pd, 2)->group_leader_idx, 0);
	mp_pd_close(pd);
	free(c.s);

	memset(&c, 0, sizeof(c));
	pd = open_fixture("pdc-amd-raw-branch-stack.data", &c, 0);
	assert_int_equal(c.n, 8);
	for (size_t i = 0; i < c.n; i++)
		assert_int_equal(c.s[i].nr_br, 16);
	assert_int_equal(mp_pd_nr_cpus(pd), 384);
	mp_pd_close(pd);
	free(c.s);

	memset(&c, 0, sizeof(c));
	pd = open_fixture("pdc-i686-atom-3.4.data", &c, 0);
	assert_string_equal(mp_pd_feature_str(pd, MP_HEADER_ARCH), "i686");
	mp_pd_close(pd);
	free(c.s);
}

/* ---- hostile input ----------------------------------------------------------------- */

static int open_and_process_mem(const uint8_t *buf, size_t len, const char *name, struct mp_err *err)
{
	mp_pd *pd = mp_pd_open_mem(buf, len, name, err);
	if (!pd)
		return -1;
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample, .mmap = c_mmap, .comm = c_comm };
	int rc = mp_pd_process(pd, &h, err);
	mp_pd_close(pd);
	free(c.s);
	return rc ? -2 : 0;
}

static void assert_msg(const struct mp_err *err, const char *name, const char *what)
{
	if (strncmp(err->msg, name, strlen(name)) || !strstr(err->msg, what))
		fail_msg("message '%s' lacks '%s' or '%s'", err->msg, name, what);
	assert_null(strchr(err->msg, '\n'));
	assert_true(err->code < 0);
}

static void hostile__empty_and_missing__clear_error(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	assert_int_equal(open_and_process_mem((const uint8_t *)"", 0, "e.data", &err), -1);
	assert_msg(&err, "e.data: ", "empty");
	assert_null(mp_pd_open("/nonexistent/x.data", &err));
	assert_msg(&err, "/nonexistent/x.data: ", "No such file");
	/* the real empty file path */
	char t[] = "/tmp/mp-pd-empty-XXXXXX";
	int fd = mkstemp(t);
	assert_true(fd >= 0);
	close(fd);
	assert_null(mp_pd_open(t, &err));
	assert_msg(&err, t, "empty");
	unlink(t);
}

static void hostile__bad_magic__names_it(void **state)
{
	(void)state;
	struct mp_err err = { 0 };
	static const char junk[] = "XXXXYYYYzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz";
	assert_int_equal(open_and_process_mem((const uint8_t *)junk, sizeof(junk), "j.data", &err), -1);
	assert_msg(&err, "j.data: ", "not a perf.data file (bad magic 'XXXXYYYY')");
	static const char v1[] = "PERFFILE0123456789abcdef0123456789abcdef";
	assert_int_equal(open_and_process_mem((const uint8_t *)v1, sizeof(v1), "v1.data", &err), -1);
	assert_msg(&err, "v1.data: ", "version 1");
	uint8_t sw[64] = { 0 };
	uint64_t m = MP_PERF_MAGIC2_SWAPPED;
	memcpy(sw, &m, 8);
	assert_int_equal(open_and_process_mem(sw, sizeof(sw), "be.data", &err), -1);
	assert_msg(&err, "be.data: ", "big-endian");
	uint8_t bin[8] = { 1, 2, 3, 0x7f, 'P', 'E', 'R', 'F' };
	assert_int_equal(open_and_process_mem(bin, sizeof(bin), "b.data", &err), -1);
	assert_msg(&err, "b.data: ", "bad magic '\\x01\\x02\\x03\\x7fPERF'");
}

/* Cut every fixture at several offsets (header, attrs, inside the data, one byte short):
 * each gives an error naming the file and the truncation, never a crash. A file-mode file
 * cut after its data loses header features only: read, with a warning (as perf). */
static void hostile__truncated_files__error_not_crash(void **state)
{
	(void)state;
	int cuts = 0;
	for (size_t k = 0; k < NFIX; k++) {
		char p[8192], file[600];
		snprintf(file, sizeof(file), "%s.data", fixtures[k]);
		path_of(p, sizeof(p), file);
		size_t len;
		uint8_t *b = slurp(p, &len);
		/* the last byte that belongs to something: the end of the furthest feature
		 * section in file mode (a file may end with padding), the last byte in pipe mode */
		size_t last = len, data_end = len;
		uint64_t hs;
		memcpy(&hs, b + 8, 8);
		if (hs == MP_PERF_FILE_HEADER_SIZE) {
			uint64_t doff, dsz, feats[4], t, end = 0;
			int nf = 0;
			memcpy(&doff, b + 40, 8);
			memcpy(&dsz, b + 48, 8);
			memcpy(feats, b + 72, 32);
			for (int w = 0; w < 4; w++)
				nf += __builtin_popcountll(feats[w]);
			t = doff + dsz;
			data_end = (size_t)t;
			for (int i = 0; i < nf; i++) {
				uint64_t so, ss;
				memcpy(&so, b + t + 16 * i, 8);
				memcpy(&ss, b + t + 16 * i + 8, 8);
				if (so + ss > end)
					end = so + ss;
			}
			last = (size_t)end;
		}
		size_t at[] = { 1, 8, 15, 16, 40, 100, 103, 200, 1000, len / 3, len / 2, last - 9, last - 1 };
		for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
			if (at[i] >= len)
				continue;
			uint8_t *cut = malloc(at[i]);
			memcpy(cut, b, at[i]);
			struct mp_err err = { 0 };
			int rc = open_and_process_mem(cut, at[i], file, &err);
			free(cut);
			if (at[i] >= data_end) {
				if (rc)
					fail_msg("%s cut at %zu, in its features: '%s'", file, at[i], err.msg);
				cuts++;
				continue;
			}
			if (rc == 0)
				fail_msg("%s cut at %zu: no error", file, at[i]);
			if (strncmp(err.msg, file, strlen(file)))
				fail_msg("%s cut at %zu: message '%s' does not name the file", file, at[i], err.msg);
			if (!strstr(err.msg, "truncated") && !strstr(err.msg, "bad magic"))
				fail_msg("%s cut at %zu: message '%s' does not say truncated", file, at[i], err.msg);
			cuts++;
		}
		free(b);
	}
	assert_true(cuts > 200);
}

/* The data-section bound of a file-mode header against the file size: exact message. */
static void hostile__data_past_eof__exact_message(void **state)
{
	(void)state;
	char p[8192];
	path_of(p, sizeof(p), "pdc-group-desc-4.14.data");
	size_t len;
	uint8_t *b = slurp(p, &len);
	uint64_t doff, dsize;
	memcpy(&doff, b + 40, 8);
	memcpy(&dsize, b + 48, 8);
	size_t cut = (size_t)(doff + dsize / 2);
	struct mp_err err = { 0 };
	assert_int_equal(open_and_process_mem(b, cut, "g.data", &err), -1);
	char want[200];
	snprintf(want, sizeof(want), "g.data: truncated: data section ends at %" PRIu64 " but file has %zu bytes",
		 doff + dsize, cut);
	assert_string_equal(err.msg, want);
	free(b);
}

/* ---- synthetic pipe-mode files ----------------------------------------------------- */

struct fb {
	uint8_t b[1 << 16];
	size_t n;
};

static void put(struct fb *f, const void *p, size_t n)
{
	assert_true(f->n + n <= sizeof(f->b));
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

static void put64(struct fb *f, uint64_t v)
{
	put(f, &v, 8);
}

static void put_hdr(struct fb *f, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };
	put(f, &h, sizeof(h));
}

/* pipe header + one HEADER_ATTR (ids 100 + i for attr i) */
static void pipe_start(struct fb *f, uint64_t st, uint64_t rf, int nattrs)
{
	f->n = 0;
	put64(f, MP_PERF_MAGIC2);
	put64(f, 16);
	for (int i = 0; i < nattrs; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = PERF_ATTR_SIZE_VER5;
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_type = st;
		a.read_format = rf;
		a.sample_period = 1000;
		a.sample_id_all = 1;
		put_hdr(f, MP_RECORD_HEADER_ATTR, 0, 8 + PERF_ATTR_SIZE_VER5 + 8);
		put(f, &a, PERF_ATTR_SIZE_VER5);
		put64(f, 100 + (uint64_t)i);
	}
}

static void synthetic__callchain_nr_huge__error(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0, 1);
	size_t off = f->n;
	put_hdr(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 + 8 + 16);
	put64(f, 0x401000);
	put64(f, UINT64_MAX / 4); /* nr that would overflow nr*8 */
	put64(f, 1);
	put64(f, 2);
	assert_int_equal(open_and_process_mem(f->b, f->n, "cc.data", &err), -2);
	char want[128];
	snprintf(want, sizeof(want), "record at offset %#zx: callchain nr", off);
	assert_msg(&err, "cc.data: ", want);

	/* the same with a sane nr: two entries delivered */
	f->n = off + 16;
	put64(f, 2);
	put64(f, 0x401000);
	put64(f, 0x402000);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "cc.data", &err);
	assert_non_null(pd);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample };
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.s[0].nr_cc, 2);
	assert_int_equal(c.cc_sum, 0x401000 + 0x402000);
	assert_int_equal(c.s[0].period, 1000); /* no PERIOD: attr.sample_period */
	assert_int_equal(mp_pd_attr(pd, 0)->total_period, 1000);
	assert_string_equal(mp_pd_attr(pd, 0)->name, "task-clock:HG"); /* as perf names it */
	mp_pd_close(pd);
	free(c.s);
	free(f);
}

static void synthetic__size_zero_and_small__error_not_loop(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP, 0, 1);
	size_t off = f->n;
	put_hdr(f, PERF_RECORD_SAMPLE, 0, 0);
	put64(f, 0);
	assert_true(open_and_process_mem(f->b, f->n, "z.data", &err) < 0);
	char want[128];
	snprintf(want, sizeof(want), "z.data: record at offset %#zx: size 0", off);
	assert_string_equal(err.msg, want);

	f->n = off;
	put_hdr(f, PERF_RECORD_MMAP, 0, 4);
	put64(f, 0);
	assert_true(open_and_process_mem(f->b, f->n, "z.data", &err) < 0);
	assert_msg(&err, "z.data: ", "size 4 is smaller than the record header");

	/* size 0 on a real file-mode fixture: the first record of the data section */
	char p[8192];
	path_of(p, sizeof(p), "pdc-group-desc-4.14.data");
	size_t len;
	uint8_t *b = slurp(p, &len);
	uint64_t doff;
	memcpy(&doff, b + 40, 8);
	memset(b + doff + 6, 0, 2);
	assert_int_equal(open_and_process_mem(b, len, "g.data", &err), -2);
	snprintf(want, sizeof(want), "g.data: record at offset %#" PRIx64 ": size 0", doff);
	assert_string_equal(err.msg, want);
	free(b);
	free(f);
}

static void synthetic__group_read__split_with_deltas(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_READ, rf, 2);
	/* three samples: leader values 10,25,25 member values 7,7,30 */
	uint64_t lv[3] = { 10, 25, 25 }, mv[3] = { 7, 7, 30 };
	for (int i = 0; i < 3; i++) {
		put_hdr(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 16 + 8 + 2 * 24);
		put64(f, 0x1000 + (uint64_t)i);
		put64(f, 100);
		put64(f, 2);
		put64(f, lv[i]);
		put64(f, 100);
		put64(f, 0);
		put64(f, mv[i]);
		put64(f, 101);
		put64(f, 0);
	}
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "g.data", &err);
	assert_non_null(pd);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample };
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	/* deltas: leader 10,15,0(dropped); member 7,0(dropped),23 */
	assert_int_equal(c.n, 4);
	assert_int_equal(mp_pd_attr(pd, 0)->nr_samples, 2);
	assert_int_equal(mp_pd_attr(pd, 0)->total_period, 25);
	assert_int_equal(mp_pd_attr(pd, 1)->nr_samples, 2);
	assert_int_equal(mp_pd_attr(pd, 1)->total_period, 30);
	assert_int_equal(c.s[3].attr, 1);
	assert_int_equal(c.s[3].period, 23);
	assert_int_equal(c.s[3].ip, 0x1002);
	/* processing again gives the same (deltas restart) */
	free(c.s);
	memset(&c, 0, sizeof(c));
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	assert_int_equal(mp_pd_attr(pd, 0)->total_period, 25);
	mp_pd_close(pd);
	free(c.s);

	/* a group nr beyond the record */
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_READ, rf, 2);
	size_t off = f->n;
	put_hdr(f, PERF_RECORD_SAMPLE, 0, 8 + 24 + 24);
	put64(f, 0x1000);
	put64(f, 100);
	put64(f, 1u << 30);
	put64(f, 1);
	put64(f, 100);
	put64(f, 0);
	assert_int_equal(open_and_process_mem(f->b, f->n, "g.data", &err), -2);
	char want[128];
	snprintf(want, sizeof(want), "record at offset %#zx: group read nr 1073741824", off);
	assert_msg(&err, "g.data: ", want);
	free(f);
}

static void synthetic__read_records__exact_counts(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID, rf, 2);
	/* trailer: TID, ID */
	for (int i = 0; i < 2; i++) {
		put_hdr(f, PERF_RECORD_READ, 0, 8 + 8 + 32 + 16);
		uint32_t pt[2] = { 42, 42 };
		put(f, pt, 8);
		put64(f, 1000000 * (uint64_t)(i + 1));
		put64(f, 500);
		put64(f, 400);
		put64(f, 100 + (uint64_t)i);
		put(f, pt, 8);
		put64(f, 100 + (uint64_t)i);
	}
	/* a LOST record for attr 1 */
	put_hdr(f, PERF_RECORD_LOST, 0, 8 + 16 + 16);
	put64(f, 101);
	put64(f, 5);
	put64(f, 0);
	put64(f, 101);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "r.data", &err);
	assert_non_null(pd);
	assert_int_equal(mp_pd_process(pd, NULL, &err), 0);
	const struct mp_pd_attr *a = mp_pd_attr(pd, 1);
	assert_true(a->has_counts);
	assert_int_equal(a->count.val, 2000000);
	assert_int_equal(a->count.ena, 500);
	assert_int_equal(a->count.run, 400);
	assert_int_equal(a->lost, 5);
	assert_int_equal(mp_pd_attr(pd, 0)->count.val, 1000000);
	assert_int_equal(mp_pd_attr(pd, 0)->lost, 0);
	assert_int_equal(mp_pd_record_count(pd, PERF_RECORD_READ), 2);
	assert_int_equal(mp_pd_record_count(pd, MP_RECORD_HEADER_ATTR), 2);
	mp_pd_close(pd);
	free(f);
}

/* READ records of an inherited task event on two CPUs: each per-CPU counter runs only
 * while the task is on its CPU (run 600 and 400 of 1000 enabled) and together they ran all
 * the time: never multiplexed. CPU-wide counters (pid -1) stand alone: one of two ran 250
 * of 1000 ns; a task whose counters ran 500 + 300 of 1000 was multiplexed too. */
static void put_read(struct fb *f, int32_t pid, struct mp_counts c, uint64_t id)
{
	put_hdr(f, PERF_RECORD_READ, 0, 8 + 8 + 32 + 16);
	uint32_t pt[2] = { (uint32_t)pid, (uint32_t)pid };
	put(f, pt, 8);
	put64(f, c.val);
	put64(f, c.ena);
	put64(f, c.run);
	put64(f, id);
	put(f, pt, 8);
	put64(f, id);
}

static void synthetic__read_records__multiplexed_per_counter(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID, rf, 2);
	put_read(f, 42, (struct mp_counts){ 10, 1000, 600 }, 100);
	put_read(f, 42, (struct mp_counts){ 20, 1000, 400 }, 100);
	put_read(f, -1, (struct mp_counts){ 30, 1000, 1000 }, 101);
	put_read(f, -1, (struct mp_counts){ 40, 1000, 250 }, 101);
	put_read(f, 43, (struct mp_counts){ 50, 1000, 500 }, 101);
	put_read(f, 43, (struct mp_counts){ 60, 1000, 300 }, 101);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "r.data", &err);
	assert_non_null(pd);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(mp_pd_process(pd, NULL, &err), 0);
		const struct mp_pd_attr *a = mp_pd_attr(pd, 0);
		assert_int_equal(a->count.val, 30);
		assert_int_equal(a->count.ena, 2000); /* the "X of 2X" sums */
		assert_int_equal(a->count.run, 1000);
		assert_int_equal(a->count_nctr, 1);
		assert_int_equal(a->count_nmux, 0);
		a = mp_pd_attr(pd, 1);
		assert_int_equal(a->count.val, 180);
		assert_int_equal(a->count_nctr, 3);
		assert_int_equal(a->count_nmux, 2);
		assert_int_equal(a->count_mux_run, 250);
		assert_int_equal(a->count_mux_ena, 1000);
	}
	mp_pd_close(pd);
	free(f);
}

/* memprof's own feature: key=value lines, specs per event. */
static void synthetic__memprof_feature__meta_and_spec(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP, 0, 1);
	static const char text[] = "event.0.spec=task-clock:u\nevent.0.name=task-clock\nsimulated=callgrind\n"
				   "sim.D1=32768,8,64\n";
	size_t tl = (sizeof(text) + 7) & ~(size_t)7;
	put_hdr(f, MP_RECORD_HEADER_FEATURE, 0, (uint16_t)(16 + tl));
	put64(f, MP_HEADER_MEMPROF);
	uint8_t pad[256] = { 0 };
	memcpy(pad, text, sizeof(text));
	put(f, pad, tl);
	put_hdr(f, PERF_RECORD_SAMPLE, 0, 16);
	put64(f, 0x1234);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "m.data", &err);
	assert_non_null(pd);
	assert_string_equal(mp_pd_meta(pd, "simulated"), "callgrind");
	assert_string_equal(mp_pd_meta(pd, "sim.D1"), "32768,8,64");
	assert_null(mp_pd_meta(pd, "sim.D2"));
	assert_string_equal(mp_pd_attr(pd, 0)->spec, "task-clock:u");
	assert_int_equal(mp_pd_process(pd, NULL, &err), 0);
	assert_int_equal(mp_pd_attr(pd, 0)->nr_samples, 1);
	mp_pd_close(pd);
	free(f);
}

/* Randomly corrupted bytes in real files: errors or success, never a crash or hang. */
static void hostile__bit_flips__no_crash(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	for (size_t k = 0; k < NFIX; k++) {
		char p[8192], file[600];
		snprintf(file, sizeof(file), "%s.data", fixtures[k]);
		path_of(p, sizeof(p), file);
		size_t len;
		uint8_t *b = slurp(p, &len);
		uint8_t *m = malloc(len);
		for (int round = 0; round < 12; round++) {
			memcpy(m, b, len);
			for (int j = 0; j < 8; j++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				size_t at = (size_t)(seed >> 33) % (round < 6 ? (len < 4096 ? len : 4096) : len);
				m[at] ^= (uint8_t)(1u << ((seed >> 20) & 7));
			}
			struct mp_err err = { 0 };
			if (open_and_process_mem(m, len, file, &err))
				assert_int_equal(strncmp(err.msg, file, strlen(file)), 0);
		}
		free(m);
		free(b);
	}
}

/* ---- zstd records (synthetic): a record split across two COMPRESSED records,
 * COMPRESSED2, a bomb, garbage --------------------------------------------------------- */

static void put_compressed(struct fb *f, const uint8_t *raw, size_t n, int v2)
{
	uint8_t z[4096];
	size_t zn = ZSTD_compress(z, sizeof(z), raw, n, 3);
	assert_false(ZSTD_isError(zn));
	if (v2) {
		size_t sz = (16 + zn + 7) & ~(size_t)7;
		put_hdr(f, MP_RECORD_COMPRESSED2, 0, (uint16_t)sz);
		put64(f, zn);
		put(f, z, zn);
		uint8_t pad[8] = { 0 };
		put(f, pad, sz - 16 - zn);
	} else {
		put_hdr(f, MP_RECORD_COMPRESSED, 0, (uint16_t)(8 + zn));
		put(f, z, zn);
	}
}

static void synthetic__zstd_records__decoded_across_boundaries(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f)), *raw = calloc(1, sizeof(*raw));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 0, 1);
	raw->n = 0;
	for (int i = 0; i < 6; i++) {
		put_hdr(raw, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 24);
		put64(raw, 0x5000 + (uint64_t)i);
		put64(raw, 10 * (uint64_t)(i + 1));
	}
	/* 6 records of 24 bytes: split at 50 (inside record 3), at 100, rest in COMPRESSED2 */
	put_compressed(f, raw->b, 50, 0);
	put_compressed(f, raw->b + 50, 50, 0);
	put_compressed(f, raw->b + 100, raw->n - 100, 1);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "z.data", &err);
	assert_non_null(pd);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.n, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(c.s[i].ip, 0x5000 + (uint64_t)i);
		assert_int_equal(c.s[i].period, 10 * (uint64_t)(i + 1));
	}
	assert_int_equal(mp_pd_attr(pd, 0)->total_period, 210);
	assert_int_equal(mp_pd_record_count(pd, MP_RECORD_COMPRESSED), 2);
	assert_int_equal(mp_pd_record_count(pd, MP_RECORD_COMPRESSED2), 1);
	assert_int_equal(mp_pd_record_count(pd, PERF_RECORD_SAMPLE), 6);
	mp_pd_close(pd);
	free(c.s);

	/* the stream ends inside a decompressed record */
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 0, 1);
	put_compressed(f, raw->b, 50, 0);
	assert_int_equal(open_and_process_mem(f->b, f->n, "z.data", &err), -2);
	assert_msg(&err, "z.data: ", "compressed data ends inside a record");

	/* garbage instead of a zstd frame */
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD, 0, 1);
	size_t off = f->n;
	put_hdr(f, MP_RECORD_COMPRESSED, 0, 40);
	for (int i = 0; i < 4; i++)
		put64(f, 0x0123456789abcdefULL);
	assert_int_equal(open_and_process_mem(f->b, f->n, "z.data", &err), -2);
	char want[80];
	snprintf(want, sizeof(want), "record at offset %#zx: zstd: ", off);
	assert_msg(&err, "z.data: ", want);
	free(raw);
	free(f);
}

static void synthetic__zstd_bomb__bounded(void **state)
{
	(void)state;
	size_t big = 80u << 20; /* more than the per-record bound */
	uint8_t *zeros = calloc(1, big);
	/* valid records (FINISHED_INIT, 8 bytes each: the zstd output is walked as it comes,
	 * so the bound, not a bad record, must be what stops it) */
	for (size_t i = 0; i + 8 <= big; i += 8) {
		struct perf_event_header h = { 82, 0, 8 };
		memcpy(zeros + i, &h, sizeof(h));
	}
	size_t zcap = ZSTD_compressBound(big);
	uint8_t *z = malloc(zcap);
	size_t zn = ZSTD_compress(z, zcap, zeros, big, 19);
	assert_false(ZSTD_isError(zn));
	assert_true(zn < 60000);
	struct fb *f = calloc(1, sizeof(*f));
	pipe_start(f, PERF_SAMPLE_IP, 0, 1);
	put_hdr(f, MP_RECORD_COMPRESSED, 0, (uint16_t)(8 + zn));
	put(f, z, zn);
	struct mp_err err = { 0 };
	assert_int_equal(open_and_process_mem(f->b, f->n, "bomb.data", &err), -2);
	assert_msg(&err, "bomb.data: ", "expands beyond the size limit");
	free(f);
	free(z);
	free(zeros);
}

/* Pipe-mode TRACING_DATA carries its payload after the record; AUXTRACE too. */
static void synthetic__payload_after_record__skipped(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP, 0, 1);
	put_hdr(f, MP_RECORD_HEADER_TRACING_DATA, 0, 16);
	uint32_t tsz[2] = { 13, 0 };
	put(f, tsz, 8);
	uint8_t junk[16];
	memset(junk, 0, sizeof(junk)); /* size 0 "records" if the payload were not skipped */
	put(f, junk, 16);              /* 13 bytes padded to 16 */
	put_hdr(f, PERF_RECORD_SAMPLE, 0, 16);
	put64(f, 0x77);
	put_hdr(f, MP_RECORD_AUXTRACE, 0, 48);
	put64(f, 24); /* size of the aux payload */
	for (int i = 0; i < 4; i++)
		put64(f, 0);
	put(f, junk, 16);
	put64(f, 0);
	put_hdr(f, PERF_RECORD_SAMPLE, 0, 16);
	put64(f, 0x78);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "t.data", &err);
	assert_non_null(pd);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.s[1].ip, 0x78);
	mp_pd_close(pd);
	free(c.s);

	/* an AUXTRACE payload running past the end */
	pipe_start(f, PERF_SAMPLE_IP, 0, 1);
	size_t off = f->n;
	put_hdr(f, MP_RECORD_AUXTRACE, 0, 48);
	put64(f, 1u << 30);
	for (int i = 0; i < 4; i++)
		put64(f, 0);
	assert_true(open_and_process_mem(f->b, f->n, "t.data", &err) < 0);
	char want[80];
	snprintf(want, sizeof(want), "t.data: record at offset %#zx: payload of 1073741824 bytes", off);
	assert_msg(&err, want, "runs past the end");
	free(f);
}

/* ---- memprof's own files: collector's writer -> this reader ------------------------- */

static void writer_roundtrip__counts_meta_spec(void **state)
{
	(void)state;
	char path[] = "/tmp/mp-pd-rt-XXXXXX";
	temp_file(path);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK, 100000,
					   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						   PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	a.exclude_kernel = 1;
	uint64_t id = 77;
	mp_pdw *w = writer_of(path, &a, id, "task-clock:u", "tclock:u");
	struct mp_err err = { 0 };
	mp_pdw_set_meta(w, "simulated", "callgrind");
	for (int i = 0; i < 5; i++) {
		uint64_t r[6];
		struct perf_event_header *h = (void *)r;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = sizeof(r);
		r[1] = 0x400000 + 16 * (uint64_t)i;
		r[2] = 42ull << 32 | 42;
		r[3] = 1000 + (uint64_t)i;
		r[4] = id;
		r[5] = 100000 + (uint64_t)i;
		assert_int_equal(mp_pdw_write(w, r, sizeof(r)), 0);
	}
	assert_int_equal(mp_pdw_add_counts(w, 0, id, &(struct mp_counts){ 555555, 9000, 8000 }), 0);
	if (mp_pdw_close(w, &err))
		fail_msg("%s", err.msg);
	mp_pd *pd = mp_pd_open(path, &err);
	if (!pd)
		fail_msg("%s", err.msg);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample, .mmap = c_mmap };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	const struct mp_pd_attr *pa = mp_pd_attr(pd, 0);
	assert_string_equal(pa->name, "task-clock:u");
	assert_string_equal(pa->spec, "tclock:u");
	assert_int_equal(pa->nr_samples, 5);
	assert_int_equal(pa->total_period, 500010);
	assert_true(pa->has_counts);
	assert_int_equal(pa->count.val, 555555);
	assert_int_equal(pa->count.ena, 9000);
	assert_int_equal(pa->count.run, 8000);
	assert_string_equal(mp_pd_meta(pd, "simulated"), "callgrind");
	assert_int_equal(c.s[4].time, 1004);
	assert_int_equal(c.s[4].pid, 42);
	mp_pd_close(pd);
	free(c.s);
	unlink(path);
}

/* ---- ordering (synthetic): perf's FINISHED_ROUND rule and a large shuffled round ---- */

static void put_tsample(struct fb *f, uint64_t ip, uint64_t t)
{
	put_hdr(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 24);
	put64(f, ip);
	put64(f, t);
}

static void synthetic__ordering__perf_round_rule(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 0, 1);
	put_tsample(f, 5, 5);
	put_tsample(f, 3, 3);
	put_hdr(f, MP_RECORD_FINISHED_ROUND, 0, 8);
	put_tsample(f, 4, 4);
	put_tsample(f, 10, 10);
	put_hdr(f, MP_RECORD_FINISHED_ROUND, 0, 8); /* flushes up to 5, the first round's newest */
	put_tsample(f, 1, 1);                        /* late: after what was flushed */
	put_tsample(f, 7, 7);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "o.data", &err);
	assert_non_null(pd);
	struct collect c = { 0 };
	struct mp_pd_handler h = { .ctx = &c, .sample = c_sample, .mmap = c_mmap };
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	static const uint64_t want[] = { 3, 4, 5, 1, 7, 10 };
	assert_int_equal(c.n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(c.s[i].ip, want[i]);
	/* ordering off: file order */
	free(c.s);
	memset(&c, 0, sizeof(c));
	mp_pd_set_ordered(pd, 0);
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	static const uint64_t file_order[] = { 5, 3, 4, 10, 1, 7 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(c.s[i].ip, file_order[i]);
	mp_pd_close(pd);
	free(c.s);

	/* 2000 samples, 7 interleaved "CPU buffers" plus random ties: sorted, stable */
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_TIME, 0, 1);
	uint64_t seed = 99;
	for (int i = 0; i < 2000; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t t = (uint64_t)(i % 7) * 100 + (uint64_t)(i / 7) * 3 + ((seed >> 40) & 3);
		put_tsample(f, (uint64_t)i, t);
	}
	pd = mp_pd_open_mem(f->b, f->n, "o.data", &err);
	assert_non_null(pd);
	memset(&c, 0, sizeof(c));
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	assert_int_equal(c.n, 2000);
	uint64_t seen = 0;
	for (size_t i = 0; i < c.n; i++) {
		seen += c.s[i].ip;
		if (i) {
			assert_true(c.s[i - 1].time <= c.s[i].time);
			if (c.s[i - 1].time == c.s[i].time)
				assert_true(c.s[i - 1].ip < c.s[i].ip); /* ties keep file order */
		}
	}
	assert_int_equal(seen, 1999 * 2000 / 2);
	mp_pd_close(pd);
	free(c.s);
	free(f);
}

/* ---- repeats: the flush gives a sample that is the one before again to sample_again ---- */

struct rep_ev {
	char kind;            /* 'S' sample(), 'A' sample_again(), 'M' mmap() */
	uint64_t ip, period, n;
	uint32_t tid, cpu;
	uint16_t cpumode;
};

struct rep {
	struct rep_ev ev[64];
	size_t nev;
	int refuse;           /* sample_again answers "in full, please" */
};

static int r_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct rep *r = ctx;
	assert_true(r->nev < 64);
	r->ev[r->nev++] = (struct rep_ev){ 'S', s->ip, s->period, 1, s->tid, s->cpu, s->cpumode };
	return 0;
}

static int r_again(void *ctx, size_t attr, uint64_t n, uint64_t period)
{
	struct rep *r = ctx;
	assert_int_equal(attr, 0);
	if (r->refuse)
		return 1;
	assert_true(r->nev < 64);
	r->ev[r->nev++] = (struct rep_ev){ 'A', 0, period, n, 0, 0, 0 };
	return 0;
}

static int r_mmap(void *ctx, const struct mp_pd_mmap *m)
{
	struct rep *r = ctx;
	(void)m;
	r->ev[r->nev++] = (struct rep_ev){ .kind = 'M' };
	return 0;
}

/* IP | TID | TIME | CPU | PERIOD */
static void put_rsample(struct fb *f, uint16_t misc, uint64_t ip, uint32_t tid, uint32_t cpu,
			uint64_t t, uint64_t period)
{
	put_hdr(f, PERF_RECORD_SAMPLE, misc, 48);
	put64(f, ip);
	put64(f, (uint64_t)tid << 32 | 7); /* pid 7 */
	put64(f, t);
	put64(f, cpu);
	put64(f, period);
}

static void synthetic__repeats__batched_until_anything_differs(void **state)
{
	(void)state;
	struct fb *f = calloc(1, sizeof(*f));
	struct mp_err err = { 0 };
	const uint16_t U = PERF_RECORD_MISC_USER, K = PERF_RECORD_MISC_KERNEL;
	pipe_start(f, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD, 0, 1);
	put_rsample(f, U, 0xa0, 1, 0, 1, 1);
	put_rsample(f, U, 0xa0, 1, 0, 2, 2);   /* again: asked alone */
	put_rsample(f, U, 0xa0, 1, 0, 3, 3);   /* again: counted with the next */
	put_rsample(f, U, 0xa0, 1, 0, 4, 4);
	put_hdr(f, PERF_RECORD_MMAP, U, 8 + 40 + 24); /* an mmap between: not again */
	put64(f, 7 | (uint64_t)1 << 32);
	put64(f, 0x400000);
	put64(f, 0x1000);
	put64(f, 0);
	put(f, "/bin/x\0\0", 8);
	put64(f, 7 | (uint64_t)1 << 32);
	put64(f, 5);
	put64(f, 0);
	put_rsample(f, U, 0xa0, 1, 0, 6, 5);   /* in full after the mmap */
	put_rsample(f, U, 0xa0, 2, 0, 7, 1);   /* another thread */
	put_rsample(f, U, 0xa0, 2, 1, 8, 1);   /* another CPU */
	put_rsample(f, K, 0xa0, 2, 1, 9, 1);   /* the kernel */
	put_rsample(f, K, 0xb0, 2, 1, 10, 1);  /* another ip */
	put_rsample(f, K, 0xb0, 2, 1, 11, 6);  /* again */
	put_hdr(f, MP_RECORD_FINISHED_ROUND, 0, 8);
	put_hdr(f, MP_RECORD_FINISHED_ROUND, 0, 8);
	put_rsample(f, K, 0xb0, 2, 1, 12, 7);  /* again, in the next flush */
	put_rsample(f, K, 0xb0, 2, 1, 13, 8);
	mp_pd *pd = mp_pd_open_mem(f->b, f->n, "r.data", &err);
	assert_non_null(pd);
	struct rep r = { .nev = 0 };
	struct mp_pd_handler h = { .ctx = &r, .sample = r_sample, .sample_again = r_again,
				   .mmap = r_mmap };
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	static const struct rep_ev want[] = {
		{ 'S', 0xa0, 1, 1, 1, 0, PERF_RECORD_MISC_USER },
		{ 'A', 0, 2, 1, 0, 0, 0 },
		{ 'A', 0, 7, 2, 0, 0, 0 },
		{ 'M', 0, 0, 0, 0, 0, 0 },
		{ 'S', 0xa0, 5, 1, 1, 0, PERF_RECORD_MISC_USER },
		{ 'S', 0xa0, 1, 1, 2, 0, PERF_RECORD_MISC_USER },
		{ 'S', 0xa0, 1, 1, 2, 1, PERF_RECORD_MISC_USER },
		{ 'S', 0xa0, 1, 1, 2, 1, PERF_RECORD_MISC_KERNEL },
		{ 'S', 0xb0, 1, 1, 2, 1, PERF_RECORD_MISC_KERNEL },
		{ 'A', 0, 6, 1, 0, 0, 0 },
		{ 'A', 0, 15, 2, 0, 0, 0 },
	};
	assert_int_equal(r.nev, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.nev; i++) {
		assert_int_equal(r.ev[i].kind, want[i].kind);
		assert_int_equal(r.ev[i].ip, want[i].ip);
		assert_int_equal(r.ev[i].period, want[i].period);
		assert_int_equal(r.ev[i].n, want[i].n);
		assert_int_equal(r.ev[i].tid, want[i].tid);
		assert_int_equal(r.ev[i].cpu, want[i].cpu);
		assert_int_equal(r.ev[i].cpumode, want[i].cpumode);
	}
	assert_int_equal(mp_pd_attr(pd, 0)->nr_samples, 12);
	assert_int_equal(mp_pd_attr(pd, 0)->total_period, 40);

	/* a handler that wants every sample in full gets all 12 from sample() */
	memset(&r, 0, sizeof(r));
	r.refuse = 1;
	assert_int_equal(mp_pd_process(pd, &h, &err), 0);
	assert_int_equal(r.nev, 13);
	uint64_t sum = 0;
	for (size_t i = 0; i < r.nev; i++)
		sum += r.ev[i].kind == 'S' ? r.ev[i].period : 0;
	assert_int_equal(sum, 40);
	assert_int_equal(mp_pd_attr(pd, 0)->nr_samples, 12);
	mp_pd_close(pd);
	free(f);
}

/* ---- windows: a file's data section read in windows of 256 KiB -------------------------- */

struct gbuf {
	uint8_t *b;
	size_t n, cap;
};

static void gput(struct gbuf *g, const void *p, size_t n)
{
	if (g->n + n > g->cap) {
		g->cap = (g->n + n) * 2;
		g->b = realloc(g->b, g->cap);
		assert_non_null(g->b);
	}
	memcpy(g->b + g->n, p, n);
	g->n += n;
}

static void gput64(struct gbuf *g, uint64_t v)
{
	gput(g, &v, 8);
}

static void gput_hdr(struct gbuf *g, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = PERF_RECORD_MISC_USER, .size = size };
	gput(g, &h, sizeof(h));
}

struct wcollect {
	uint64_t n, comms, hash, ipsum, rawsum;
};

static int w_sample(void *ctx, const struct mp_pd_sample *s)
{
	struct wcollect *c = ctx;
	c->n++;
	c->ipsum += s->ip;
	c->hash = (c->hash ^ s->ip ^ s->time << 20 ^ (uint64_t)s->raw_size << 50) * 0x100000001b3ULL;
	for (uint32_t i = 0; i < s->raw_size; i++)
		c->rawsum += ((const uint8_t *)s->raw)[i];
	return 0;
}

static int w_comm(void *ctx, const struct mp_pd_task *t)
{
	struct wcollect *c = ctx;
	c->comms++;
	c->hash = (c->hash ^ t->time ^ (uint64_t)strlen(t->comm) << 40) * 0x100000001b3ULL;
	return 0;
}

/* g's bytes processed from memory (one walk) into *mem, and from a file made of them at
 * path (a mkstemp template, left in place; windows) into *file; *nr: the file's samples
 * of attr 0 as the reader counted them. */
static void mem_and_file(const struct gbuf *g, char *path, struct wcollect *mem,
			 struct wcollect *file, uint64_t *nr)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, g->b, g->n), (ssize_t)g->n);
	close(fd);
	struct mp_err err = { 0 };
	struct mp_pd_handler h = { .ctx = mem, .sample = w_sample, .comm = w_comm };
	mp_pd *pd = mp_pd_open_mem(g->b, g->n, "w.data", &err);
	assert_non_null(pd);
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	mp_pd_close(pd);
	h.ctx = file;
	pd = mp_pd_open(path, &err);
	assert_non_null(pd);
	if (mp_pd_process(pd, &h, &err))
		fail_msg("%s", err.msg);
	*nr = mp_pd_attr(pd, 0)->nr_samples;
	mp_pd_close(pd);
}

/* One sample of IP | TID | TIME (32 bytes). */
static void gput_ts(struct gbuf *g, uint64_t ip, uint64_t t)
{
	gput_hdr(g, PERF_RECORD_SAMPLE, 32);
	gput64(g, ip);
	gput64(g, 42 | (uint64_t)42 << 32);
	gput64(g, t);
}

/* A file's samples queued in windows as runs (one entry for the samples that come one after
 * the other in time order) are delivered in the order the memory walk (one entry each)
 * gives: a round of 25 MB in order (past the queue's 16 MiB bound: half of it delivered
 * while a run is queued, the rest repacked), then another buffer's samples of the same time
 * (late for what was delivered, merged with what was not), rounds of two interleaved "CPU
 * buffers" (their runs split and sorted), rounds in order that reach back into the round
 * before (merged whole), and runs cut by comms. */
static void windows__runs__same_order_as_memory(void **state)
{
	(void)state;
	struct gbuf g = { 0 };
	gput64(&g, MP_PERF_MAGIC2);
	gput64(&g, 16);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PERF_ATTR_SIZE_VER5;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_period = 1;
	a.sample_id_all = 1;
	gput_hdr(&g, MP_RECORD_HEADER_ATTR, 8 + PERF_ATTR_SIZE_VER5 + 8);
	gput(&g, &a, PERF_ATTR_SIZE_VER5);
	gput64(&g, 100);
	uint64_t t = 1000, n = 0;
	for (int i = 0; i < 800000; i++, n++)
		gput_ts(&g, 0x400000 + (uint64_t)(i % 13), t++);
	gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
	/* another buffer's samples from the same time, in order: late for the part delivered
	 * by the bound, merged into the part still queued */
	for (int i = 0; i < 1000; i++, n++)
		gput_ts(&g, 0x480000 + (uint64_t)i, 1000 + 800 * (uint64_t)i + 1);
	gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
	for (int r = 0; r < 20; r++) { /* CPU 0's buffer, then CPU 1's, overlapping in time */
		for (int c = 0; c < 2; c++)
			for (int i = 0; i < 500; i++, n++)
				gput_ts(&g, 0x500000 + (uint64_t)c, t + 2 * (uint64_t)i + (uint64_t)c);
		t += 1000;
		gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
	}
	/* rounds of one buffer each, in order, every other one reaching back into the one
	 * before: what is still queued of it merges with the run that comes in order */
	for (int r = 0; r < 20; r++, t += 1000) {
		uint64_t t0 = r % 2 ? t - 499 : t;
		for (int i = 0; i < 500; i++, n++)
			gput_ts(&g, 0x700000 + (uint64_t)r, t0 + 2 * (uint64_t)i);
		gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
	}
	for (int i = 0; i < 30000; i++, n++) {
		gput_ts(&g, 0x600000 + (uint64_t)(i % 5), t++);
		if (i % 97 == 0) {
			char comm[16] = "worker";
			gput_hdr(&g, PERF_RECORD_COMM, 8 + 8 + 16 + 24);
			uint32_t pt[2] = { 42, 42 };
			gput(&g, pt, 8);
			gput(&g, comm, 16);
			gput64(&g, 42 | (uint64_t)42 << 32);
			gput64(&g, t++);
			gput64(&g, 0);
		}
		if (i % 1000 == 999)
			gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
	}
	char path[] = "/tmp/mp-pd-runs-XXXXXX";
	struct wcollect mem = { 0 }, file = { 0 };
	uint64_t nr;
	mem_and_file(&g, path, &mem, &file, &nr);
	assert_int_equal(nr, n);
	unlink(path);
	free(g.b);
	assert_int_equal(mem.n, n);
	assert_int_equal(file.n, n);
	assert_int_equal(file.comms, mem.comms);
	assert_int_equal(file.ipsum, mem.ipsum);
	assert_int_equal(file.hash, mem.hash);
}

/* The same bytes processed from memory (one walk over them) and from a file (windows): the
 * same samples in the same order, records cut by a window's end carried over, an AUXTRACE
 * payload longer than a window skipped, and the same error for a record cut by the file's
 * end. */
static void windows__file_as_memory__same_records(void **state)
{
	(void)state;
	struct gbuf g = { 0 };
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	gput64(&g, MP_PERF_MAGIC2);
	gput64(&g, 16);
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = PERF_ATTR_SIZE_VER5;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_type = st;
	a.sample_period = 1000;
	a.sample_id_all = 1;
	gput_hdr(&g, MP_RECORD_HEADER_ATTR, 8 + PERF_ATTR_SIZE_VER5 + 8);
	gput(&g, &a, PERF_ATTR_SIZE_VER5);
	gput64(&g, 100);
	uint64_t seed = 7, nsamples = 0, ipsum = 0, rawsum = 0;
	uint8_t raw[1024];
	for (int i = 0; g.n < (7u << 19); i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		/* raw data of 4..1000 bytes: records of 24..1024 bytes cross the windows' ends at
		 * every offset modulo 8 */
		uint32_t rs = 4 + (uint32_t)((seed >> 33) % 997);
		rs = ((rs + 4 + 7) & ~7u) - 4;
		for (uint32_t k = 0; k < rs; k++) {
			raw[k] = (uint8_t)(seed >> (k % 50));
			rawsum += raw[k];
		}
		uint64_t t = 1000 + (uint64_t)i * 10 - (uint64_t)(i % 3) * 4; /* runs out of order */
		gput_hdr(&g, PERF_RECORD_SAMPLE, (uint16_t)(8 + 8 + 8 + 4 + rs));
		gput64(&g, 0x400000 + (uint64_t)i);
		gput64(&g, t);
		gput(&g, &rs, 4);
		gput(&g, raw, rs);
		nsamples++;
		ipsum += 0x400000 + (uint64_t)i;
		if (i % 97 == 0) {
			char comm[16] = "worker";
			gput_hdr(&g, PERF_RECORD_COMM, 8 + 8 + 16 + 8);
			uint32_t pt[2] = { 42, 42 };
			gput(&g, pt, 8);
			gput(&g, comm, 16);
			gput64(&g, t + 1);
		}
		if (i % 50 == 49)
			gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);
		if (i == 1500) {
			/* 1.5 MiB of AUXTRACE payload: skipped, past a whole window */
			gput_hdr(&g, MP_RECORD_AUXTRACE, 48);
			gput64(&g, 3u << 19);
			for (int k = 0; k < 4; k++)
				gput64(&g, 0);
			uint8_t *junk = calloc(1, 3u << 19); /* size 0 "records" if not skipped */
			gput(&g, junk, 3u << 19);
			free(junk);
		}
	}
	gput_hdr(&g, MP_RECORD_FINISHED_ROUND, 8);

	char path[] = "/tmp/mp-pd-win-XXXXXX";
	struct wcollect mem = { 0 }, file = { 0 };
	uint64_t nr;
	mem_and_file(&g, path, &mem, &file, &nr);
	assert_int_equal(nr, nsamples);
	struct mp_err err = { 0 };
	struct mp_pd_handler h = { .ctx = &file, .sample = w_sample, .comm = w_comm };
	mp_pd *pd;
	assert_true(g.n > (3u << 20));
	assert_int_equal(mem.n, nsamples);
	assert_int_equal(mem.ipsum, ipsum);
	assert_int_equal(mem.rawsum, rawsum);
	assert_int_equal(file.n, mem.n);
	assert_int_equal(file.comms, mem.comms);
	assert_int_equal(file.rawsum, mem.rawsum);
	assert_int_equal(file.hash, mem.hash);

	/* cut inside a record past the first window: the same message both ways */
	size_t cut = g.n - 20;
	assert_int_equal(truncate(path, (off_t)cut), 0);
	char merr[sizeof(err.msg)];
	assert_true(open_and_process_mem(g.b, cut, path, &err) < 0);
	snprintf(merr, sizeof(merr), "%s", err.msg);
	pd = mp_pd_open(path, &err);
	assert_non_null(pd);
	struct wcollect c3 = { 0 };
	h.ctx = &c3;
	assert_true(mp_pd_process(pd, &h, &err) < 0);
	assert_string_equal(err.msg, merr);
	assert_non_null(strstr(merr, "truncated"));
	mp_pd_close(pd);
	unlink(path);
	free(g.b);
}

/* ---- the writer: files of known records, read back raw and by perf ---- */

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
	assert_int_equal(mp_pdw_add_counts(w, 0, 11, &(struct mp_counts){ 1000000, 400, 200 }), 0);
	assert_int_equal(mp_pdw_add_counts(w, 0, 11, &(struct mp_counts){ 2000000, 900, 450 }), 0);
	assert_int_equal(mp_pdw_add_counts(w, 1, 22, &(struct mp_counts){ 2500000, 900, 900 }), 0);
	assert_int_equal(mp_pdw_add_counts(w, 5, 22, &(struct mp_counts){ 1, 1, 1 }), -EINVAL);
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

/* The build-ids the writer adds: those of the objects samples hit, through the sampled ip
 * or a call chain, and no other (/bin/sh is mapped, never hit). The rings are drained one
 * CPU at a time, so a sample can reach the writer before the MMAP2 of its object from
 * another CPU's ring: the object still gets its build-id. */
static void pdw__build_ids__of_the_objects_hit(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		int chain;     /* ip in the test, its chain passing through /bin/true */
		int late_mmap; /* the test's MMAP2 after the sample */
	} cases[] = { { "chain.data", 1, 0 }, { "late-mmap.data", 0, 1 } };
	const char *other = "/bin/true", *never = "/bin/sh";
	char self[4096], want[64];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(sl > 0);
	self[sl] = 0;
	readelf_build_id(other, want, sizeof(want));
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct mp_err err = { 0 };
		const char *out = path_in(cases[c].file);
		mp_pdw *w = mp_pdw_create(out, &err);
		assert_non_null(w);
		struct perf_event_attr a = file_attr(PERF_COUNT_SW_CPU_CLOCK, 100000);
		if (cases[c].chain)
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		uint64_t id = 11;
		mp_pdw_add_attr(w, &a, &id, 1, "cpu-clock", "cpu-clock");
		put_comm(w, 9, 9, "bids");
		if (!cases[c].late_mmap)
			put_mmap2(w, 9, 0x400000, 0x10000, 0, self);
		put_mmap2(w, 9, 0x500000, 0x10000, 0, other);
		put_mmap2(w, 9, 0x600000, 0x10000, 0, never);
		/* IDENTIFIER IP TID TIME CPU PERIOD [nr, USER, ip in self, ip in /bin/true] */
		uint64_t s[11] = { 0, 11, 0x401000, 9ull | 9ull << 32, 5, 0, 100000,
				   3, (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x501234 };
		struct perf_event_header *h = (void *)s;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = cases[c].chain ? 11 * 8 : 7 * 8;
		assert_int_equal(mp_pdw_write(w, s, h->size), 0);
		if (cases[c].late_mmap)
			put_mmap2(w, 9, 0x400000, 0x10000, 0, self);
		assert_int_equal(mp_pdw_close(w, &err), 0);
		size_t n;
		unsigned char *f = slurp(out, &n);
		assert_non_null(f);
		const char *names[] = { self, other };
		int has[2] = { 0, 0 };
		int count = bid_entries(f, names, has, 2, never);
		int other_hit = cases[c].chain && want[0]; /* /bin/true has a build-id on Debian */
		assert_true(has[0]);
		assert_int_equal(has[1], other_hit);
		assert_int_equal(count, 1 + other_hit);
		free(f);
	}
}

/* A recording of the software events config[0..n) (ids 11, 12, ...) with /bin/x's
 * build-id byte bid: with call chains and no sample when chains, else one sample of event
 * sampled; opened and walked (nr_samples filled). */
static mp_pd *two_rec(const char *name, const uint64_t *config, size_t n, int chains,
		      size_t sampled, uint8_t bid)
{
	static const char *const ev_name[] = { [PERF_COUNT_SW_CPU_CLOCK] = "cpu-clock",
		[PERF_COUNT_SW_TASK_CLOCK] = "task-clock", [PERF_COUNT_SW_PAGE_FAULTS] = "page-faults" };
	struct mp_err err = { 0 };
	const char *out = path_in(name);
	mp_pdw *w = mp_pdw_create(out, &err);
	assert_non_null(w);
	mp_pdw_set_auto_build_ids(w, 0);
	for (size_t i = 0; i < n; i++) {
		struct perf_event_attr a = file_attr(config[i], 1000 * (i + 1));
		if (chains)
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		uint64_t id = 11 + i;
		assert_int_equal(mp_pdw_add_attr(w, &a, &id, 1, ev_name[config[i]], ev_name[config[i]]),
				 (int)i);
	}
	uint8_t id[20] = { 0xab, bid };
	assert_int_equal(mp_pdw_add_build_id(w, 5, PERF_RECORD_MISC_USER, id, 20, "/bin/x"), 0);
	if (!chains)
		put_sample(w, 11 + sampled, 0x1000, 5, 5, 1, 1000);
	assert_int_equal(mp_pdw_close(w, &err), 0);
	mp_pd *pd = mp_pd_open(out, &err);
	assert_non_null(pd);
	assert_int_equal(mp_pd_process(pd, NULL, &err), 0);
	return pd;
}

/* Two recordings side by side (report -i A -i B, diff): events matched by their attributes
 * whatever their order and period, a missing event or one with samples that the first does
 * not show refused naming the file and event; a build-id differing under the same path;
 * which recording has call chains. */
static void pd_match__two_recordings__events_and_build_ids(void **state)
{
	(void)state;
	const uint64_t ab[] = { PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_TASK_CLOCK };
	const uint64_t ba[] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK };
	const uint64_t pf[] = { PERF_COUNT_SW_PAGE_FAULTS };
	mp_pd *a = two_rec("ma.data", ab, 2, 1, 0, 1);
	mp_pd *b = two_rec("mb.data", ba, 2, 0, 1, 2);
	mp_pd *c = two_rec("mc.data", pf, 1, 0, 0, 1);
	struct mp_err err = { 0 };
	size_t ev[2] = { 0, 1 }, map[2];

	assert_int_equal(mp_pd_has_chains(a), 1);
	assert_int_equal(mp_pd_has_chains(b), 0);
	assert_int_equal(mp_pd_attrs_match(a, "ma.data", ev, 2, b, "mb.data", map, &err), 0);
	assert_int_equal(map[0], 1);
	assert_int_equal(map[1], 0);
	assert_int_equal(mp_pd_attrs_match(a, "ma.data", ev, 2, c, "mc.data", map, &err), -EINVAL);
	assert_string_equal(err.msg, "mc.data: has no event cpu-clock as ma.data has (events differ)");
	/* b's cpu-clock has a sample; a shown without it */
	assert_int_equal(mp_pd_attrs_match(a, "ma.data", ev + 1, 1, b, "mb.data", map, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "mb.data: event cpu-clock has samples but ma.data has no "
				     "such event (events differ)");
	assert_string_equal(mp_pd_build_id_differs(a, b), "/bin/x");
	assert_null(mp_pd_build_id_differs(a, c));
	mp_pd_close(a);
	mp_pd_close(b);
	mp_pd_close(c);
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
	struct perf_event_attr a1 = a0, a2 = a0;
	a1.sample_type |= PERF_SAMPLE_CALLCHAIN;
	uint64_t id = 1, id2 = 2;
	assert_int_equal(mp_pdw_add_attr(w, &a0, &id, 1, "a", "a"), 0);
	/* layouts differ in no more than the memory fields of events with IDENTIFIER */
	assert_int_equal(mp_pdw_add_attr(w, &a1, &id, 1, "b", "b"), -EINVAL);
	a2.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	a2.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	a2.sample_type |= PERF_SAMPLE_ID;
	assert_int_equal(mp_pdw_add_attr(w, &a2, &id2, 1, "c", "c"), -EINVAL);
	a2.sample_type = a0.sample_type | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	assert_int_equal(mp_pdw_add_attr(w, &a2, &id2, 1, "c", "c"), 1);
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

int main(void)
{
	const char *td = getenv("TESTS_DATA");
	snprintf(datadir, sizeof(datadir), "%s", td ? td : "tests/data");
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(windows__file_as_memory__same_records),
		cmocka_unit_test(windows__runs__same_order_as_memory),
		cmocka_unit_test(hostile__empty_and_missing__clear_error),
		cmocka_unit_test(hostile__bad_magic__names_it),
		cmocka_unit_test(synthetic__callchain_nr_huge__error),
		cmocka_unit_test(synthetic__group_read__split_with_deltas),
		cmocka_unit_test(synthetic__read_records__exact_counts),
		cmocka_unit_test(synthetic__read_records__multiplexed_per_counter),
		cmocka_unit_test(synthetic__memprof_feature__meta_and_spec),
		cmocka_unit_test(synthetic__zstd_records__decoded_across_boundaries),
		cmocka_unit_test(synthetic__zstd_bomb__bounded),
		cmocka_unit_test(synthetic__payload_after_record__skipped),
		cmocka_unit_test(writer_roundtrip__counts_meta_spec),
		cmocka_unit_test(synthetic__ordering__perf_round_rule),
		cmocka_unit_test(synthetic__repeats__batched_until_anything_differs),
	};
	/* the recordings of ../shared/perfdata with perf's outputs beside them */
	const struct CMUnitTest fixtures[] = {
		cmocka_unit_test(fixtures__counts__equal_perf_report),
		cmocka_unit_test(fixtures__record_counts__equal_perf_stats),
		cmocka_unit_test(fixtures__sample_order__equal_perf_script),
		cmocka_unit_test(fixtures__unordered__same_samples),
		cmocka_unit_test(group_read__attr128_and_attr136__same_samples),
		cmocka_unit_test(fixtures__features__match_perf_header),
		cmocka_unit_test(hostile__truncated_files__error_not_crash),
		cmocka_unit_test(hostile__data_past_eof__exact_message),
		cmocka_unit_test(hostile__bit_flips__no_crash),
		cmocka_unit_test(synthetic__size_zero_and_small__error_not_loop),
	};
	/* the writer's files, in a temporary folder */
	const struct CMUnitTest writer[] = {
		cmocka_unit_test(pdw__known_samples__file_layout_and_features),
		cmocka_unit_test(pdw__known_samples__perf_script_agrees),
		cmocka_unit_test(pdw__build_ids__of_the_objects_hit),
		cmocka_unit_test(pd_match__two_recordings__events_and_build_ids),
		cmocka_unit_test(pdw__sync__tmp_file_readable_before_close),
		cmocka_unit_test(pdw__bad_input__errors),
	};
	int failed = cmocka_run_group_tests(plain, NULL, NULL);
	failed += cmocka_run_group_tests(writer, setup_dir, teardown_dir);
	if (mp_test_fixture(fixdir, sizeof(fixdir), MP_FIXTURE_PERFDATA))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(fixtures, NULL, NULL);
}
