/* test_c2c.c - memprof c2c report on synthetic recordings with known HITM lines, written by
 * perfdata's writer: this test's own mappings (from /proc/self/maps), its own globals as
 * the data and its own functions as the code, so that both memprof and perf resolve the
 * data symbols, functions and source lines. Four lines:
 *   c2c_pair (false sharing): offset 0x0 written by thread 1 in c2c_writer_a, 0x8 by
 *     thread 2 in c2c_writer_b; local HITM loads by each, two remote HITMs at 0x8;
 *   c2c_true (true sharing): offset 0x0 written by both threads (c2c_writer_a, _b);
 *   c2c_peer: loads that hit a peer core's L2 (snoopx PEER) only;
 *   c2c_quiet: L1 hits and DRAM loads of one thread, no store: no shared line.
 * and samples perf rejects (no address, no mapping). The counts per line and offset are
 * asserted exactly on memprof's --csv; where perf is installed, perf c2c report --stdio on
 * the same file must give the same lines with the same HITM, load and store counts.
 * `test_c2c FILE [phys]` only writes the recording (to look at it by hand). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mp_test_fixture.h"

#include "mp_test_pdw.h"

/* The data: each global on its own line (64 bytes; this machine's lines are 64). */
__attribute__((aligned(64))) long c2c_pair[8] = { 1 };
__attribute__((aligned(64))) long c2c_true[8] = { 1 };
__attribute__((aligned(64))) long c2c_peer[8] = { 1 };
__attribute__((aligned(64))) long c2c_quiet[8] = { 1 };
/* Two objects in one line, c2c_v1 at its start, c2c_v2 32 bytes on (assembler: C does
 * not promise where globals go). */
__asm__(".pushsection .data\n.balign 64\n"
	".globl c2c_v1\n.type c2c_v1, @object\n.size c2c_v1, 32\nc2c_v1:\n.zero 32\n"
	".globl c2c_v2\n.type c2c_v2, @object\n.size c2c_v2, 32\nc2c_v2:\n.zero 32\n"
	".popsection");
extern long c2c_v1[4], c2c_v2[4];

/* The code that "touched" them (never called for its work: its addresses are the IPs). */
__attribute__((noinline)) void c2c_writer_a(volatile long *p)
{
	p[0]++;
}
__attribute__((noinline)) void c2c_writer_b(volatile long *p)
{
	p[1]++;
}
__attribute__((noinline)) long c2c_reader(const volatile long *p)
{
	return p[0] + p[2];
}

#define ST_MEM (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |    \
		PERF_SAMPLE_DATA_SRC)

/* data_src words as Intel's PEBS gives them (perf_mem_data_src) */
#define OP(x) ((uint64_t)PERF_MEM_OP_##x << PERF_MEM_OP_SHIFT)
#define LVL(x) ((uint64_t)PERF_MEM_LVL_##x << PERF_MEM_LVL_SHIFT)
#define SNP(x) ((uint64_t)PERF_MEM_SNOOP_##x << PERF_MEM_SNOOP_SHIFT)
#define SNPX(x) ((uint64_t)PERF_MEM_SNOOPX_##x << PERF_MEM_SNOOPX_SHIFT)
#define LD_L1 (OP(LOAD) | LVL(L1) | LVL(HIT) | SNP(NONE))
#define LD_LCL_HITM (OP(LOAD) | LVL(L3) | LVL(HIT) | SNP(HITM))
#define LD_RMT_HITM (OP(LOAD) | LVL(REM_CCE1) | LVL(HIT) | SNP(HITM))
#define LD_PEER (OP(LOAD) | LVL(L2) | LVL(HIT) | SNP(NONE) | SNPX(PEER))
#define LD_LCL_DRAM (OP(LOAD) | LVL(LOC_RAM) | LVL(HIT) | SNP(MISS))
#define ST_L1HIT (OP(STORE) | LVL(L1) | LVL(HIT))
#define ST_L1MISS (OP(STORE) | LVL(L1) | LVL(MISS))

#define TID1 4242001u
#define TID2 4242002u

struct batch {
	int n;
	uint32_t tid, cpu;
	void *code;
	const volatile long *data;
	unsigned off;
	uint64_t data_src, weight;
};

static uint64_t fn_ip(void *f, unsigned k)
{
	return (uint64_t)(uintptr_t)f + k;
}

/* phys: PHYS_ADDR's word after DATA_SRC when the file has it (phys_file) */
static int phys_file;

static void put_mem_sample_pa(mp_pdw *w, int attr, uint64_t ip, uint32_t pid, uint32_t tid,
			      uint64_t time, uint64_t addr, uint32_t cpu, uint64_t weight,
			      uint64_t data_src, uint64_t phys)
{
	uint64_t s[11];
	struct perf_event_header *h = (void *)s;
	h->type = PERF_RECORD_SAMPLE;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(phys_file ? 88 : 80);
	s[10] = phys;
	s[1] = (uint64_t)attr + 1; /* the id */
	s[2] = ip;
	s[3] = (uint64_t)pid | (uint64_t)tid << 32;
	s[4] = time;
	s[5] = addr;
	s[6] = cpu;
	s[7] = 1;
	s[8] = weight;
	s[9] = data_src;
	assert_int_equal(mp_pdw_write(w, s, h->size), 0);
}

static void put_mem_sample(mp_pdw *w, int attr, uint64_t ip, uint32_t pid, uint32_t tid,
			   uint64_t time, uint64_t addr, uint32_t cpu, uint64_t weight,
			   uint64_t data_src)
{
	put_mem_sample_pa(w, attr, ip, pid, tid, time, addr, cpu, weight, data_src, 0);
}

/* The physical side of the phys file: node 0 owns memory blocks 0-7 of 128 MiB ([0, 1 GiB),
 * HEADER_MEM_TOPOLOGY as perf writes it); c2c_pair's samples are on two pages, the page
 * changing every third sample; c2c_true's have no physical address; c2c_peer's lie in no
 * node's memory (perf skips them); c2c_quiet's on one page. */
#define PA_BLOCK 0x8000000ULL
static uint64_t phys_of(const volatile long *line, unsigned off, int k)
{
	if (line == c2c_pair)
		return 0x1000000 + (k % 3 == 2 ? 0x5000 : 0) + off;
	if (line == c2c_peer)
		return 16 * PA_BLOCK + off;
	if (line == c2c_quiet)
		return 0x3000000 + off;
	return 0;
}

static void put_mem_topology(mp_pdw *w)
{
	const uint64_t mt[] = { 1, PA_BLOCK, 1, /* node */ 0, 8, 8, 0xff };
	assert_int_equal(mp_pdw_set_feature(w, MP_HEADER_MEM_TOPOLOGY, mt, sizeof(mt)), 0);
}

/* This process's mappings of its own executable as MMAP2 records (text and data). */
static void put_self_maps(mp_pdw *w, uint32_t pid)
{
	char exe[4096], line[4600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &lo, &hi, perms, &off, path) < 4 ||
		    strcmp(path, exe))
			continue;
		uint32_t prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) |
				(perms[2] == 'x' ? 4 : 0);
		put_mmap2_prot(w, pid, lo, hi - lo, off, prot, exe);
	}
	fclose(f);
}

static int vote_file; /* write_synth: the line of c2c_v1 and c2c_v2 only */
static int heap_file; /* write_synth: a heap line reused only (HEAP_LINE) */
/* A heap line: a startup object of the main thread's (TID3) there, written and freed, then
 * the block the threads share, from aligned_alloc. No mapping needed: a line counts
 * without one, and the allocation records name its objects. */
#define HEAP_LINE 0x7f0000400000ULL
#define TID3 4242003u

static void put_alloc(mp_pdw *w, uint64_t t, uint8_t kind, uint32_t pid, uint64_t addr,
		      uint64_t size, uint32_t site)
{
	struct mp_alloc_rec r = { .time = t, .addr = addr, .size = size, .pid = pid, .tid = pid,
				  .site = site, .kind = kind };
	assert_int_equal(mp_pdw_alloc_add(w, &r), 0);
}

static void write_synth(const char *path)
{
	struct mp_err err = { 0 };
	mp_pdw *w = mp_pdw_create(path, &err);
	assert_non_null(w);
	uint32_t pid = (uint32_t)getpid();
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd; /* MEM_TRANS_RETIRED.LOAD_LATENCY */
	a.config1 = 30;
	a.precise_ip = 2;
	a.sample_period = 1;
	a.sample_type = ST_MEM | (phys_file ? PERF_SAMPLE_PHYS_ADDR : 0);
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.task = a.mmap_data = 1;
	uint64_t id = 1;
	assert_int_equal(mp_pdw_add_attr(w, &a, &id, 1, "cpu/mem-loads,ldlat=30/P", NULL), 0);
	a.config = 0x82d0; /* MEM_INST_RETIRED.ALL_STORES */
	a.config1 = 0;
	a.mmap = a.mmap2 = a.comm = a.task = a.mmap_data = 0;
	id = 2;
	assert_int_equal(mp_pdw_add_attr(w, &a, &id, 1, "cpu/mem-stores/P", NULL), 1);
	mp_pdw_set_host_features(w);
	mp_pdw_set_topology(w);
	if (phys_file)
		put_mem_topology(w);
	mp_pdw_set_nrcpus(w, 2, 2);
	mp_pdw_set_auto_build_ids(w, 0);
	put_comm(w, pid, pid, "c2csynth");
	put_self_maps(w, pid);
	put_comm(w, pid, TID1, "c2csynth");
	put_comm(w, pid, TID2, "c2csynth");
	if (heap_file) {
		/* return addresses into the allocating functions (a site names ip - 1) */
		uint64_t ip_old = fn_ip(c2c_reader, 4), ip_new = fn_ip(c2c_writer_a, 4);
		uint32_t s_old, s_new;
		assert_int_equal(mp_pdw_alloc_site(w, pid, &ip_old, 1, &s_old), 0);
		assert_int_equal(mp_pdw_alloc_site(w, pid, &ip_new, 1, &s_new), 0);
		put_alloc(w, 100, MP_ALLOC_EXEC, pid, 0, 0, MP_ALLOC_NO_SITE);
		put_alloc(w, 200, MP_ALLOC_MALLOC, pid, HEAP_LINE, 64, s_old);
		put_alloc(w, 300, MP_ALLOC_FREE, pid, HEAP_LINE, 0, MP_ALLOC_NO_SITE);
		put_alloc(w, 400, MP_ALLOC_MEMALIGN, pid, HEAP_LINE, 64, s_new);
		/* the old object's store at 0x8, by the main thread, while it lived */
		put_mem_sample(w, 1, fn_ip(c2c_reader, 1), pid, TID3, 250, HEAP_LINE + 8, 0, 0,
			       ST_L1HIT);
	}
	/* the line of c2c_v1 and c2c_v2: one store to c2c_v1 first, then the threads share
	 * c2c_v2 (vote_file) */
	const struct batch bv[] = {
		{ 1, TID1, 0, c2c_writer_a, c2c_v1, 0, ST_L1HIT, 0 },
		{ 6, TID1, 0, c2c_writer_a, c2c_v2, 0, ST_L1HIT, 0 },
		{ 4, TID1, 0, c2c_writer_a, c2c_v2, 0, LD_LCL_HITM, 180 },
		{ 6, TID2, 1, c2c_writer_b, c2c_v2, 8, ST_L1HIT, 0 },
		{ 4, TID2, 1, c2c_writer_b, c2c_v2, 8, LD_LCL_HITM, 200 },
	};
	/* n samples of (tid, cpu, code, data line, offset, data_src, weight) */
	const struct batch b[] = {
		/* c2c_pair: false sharing, 0x0 by thread 1, 0x8 by thread 2 */
		{ 20, TID1, 0, c2c_writer_a, c2c_pair, 0, ST_L1HIT, 0 },
		{ 10, TID1, 0, c2c_writer_a, c2c_pair, 0, ST_L1MISS, 0 },
		{ 12, TID1, 0, c2c_writer_a, c2c_pair, 0, LD_LCL_HITM, 180 },
		{ 5, TID1, 0, c2c_writer_a, c2c_pair, 0, LD_L1, 4 },
		{ 25, TID2, 1, c2c_writer_b, c2c_pair, 8, ST_L1HIT, 0 },
		{ 8, TID2, 1, c2c_writer_b, c2c_pair, 8, LD_LCL_HITM, 200 },
		{ 2, TID2, 1, c2c_writer_b, c2c_pair, 8, LD_RMT_HITM, 400 },
		/* c2c_true: true sharing, both threads write 0x0 */
		{ 10, TID1, 0, c2c_writer_a, c2c_true, 0, ST_L1HIT, 0 },
		{ 10, TID2, 1, c2c_writer_b, c2c_true, 0, ST_L1MISS, 0 },
		{ 3, TID1, 0, c2c_writer_a, c2c_true, 0, LD_LCL_HITM, 150 },
		{ 3, TID2, 1, c2c_writer_b, c2c_true, 0, LD_LCL_HITM, 170 },
		/* c2c_peer: peer hits only */
		{ 4, TID1, 0, c2c_reader, c2c_peer, 16, LD_PEER, 40 },
		/* c2c_quiet: one thread's loads */
		{ 7, TID1, 0, c2c_reader, c2c_quiet, 0, LD_L1, 4 },
		{ 3, TID1, 0, c2c_reader, c2c_quiet, 16, LD_LCL_DRAM, 300 },
	};
	uint64_t t = 1000;
	const volatile long *hl = (const volatile long *)(uintptr_t)HEAP_LINE;
	const struct batch bh[] = {
		{ 6, TID1, 0, c2c_writer_a, hl, 0, ST_L1HIT, 0 },
		{ 4, TID1, 0, c2c_writer_a, hl, 0, LD_LCL_HITM, 180 },
		{ 6, TID2, 1, c2c_writer_b, hl, 8, ST_L1HIT, 0 },
		{ 4, TID2, 1, c2c_writer_b, hl, 8, LD_LCL_HITM, 200 },
	};
	const struct batch *bs = vote_file ? bv : heap_file ? bh : b;
	size_t nb = vote_file ? sizeof(bv) / sizeof(bv[0])
		    : heap_file ? sizeof(bh) / sizeof(bh[0]) : sizeof(b) / sizeof(b[0]);
	for (size_t i = 0; i < nb; i++)
		for (int k = 0; k < bs[i].n; k++)
			put_mem_sample_pa(w, (bs[i].data_src & OP(STORE)) ? 1 : 0,
					  fn_ip(bs[i].code, (unsigned)k % 4), pid, bs[i].tid, t++,
					  (uint64_t)(uintptr_t)bs[i].data + bs[i].off, bs[i].cpu,
					  bs[i].weight, bs[i].data_src,
					  phys_of(bs[i].data, bs[i].off, k));
	/* what perf rejects: a load without an address, one in no mapping */
	put_mem_sample(w, 0, fn_ip(c2c_reader, 0), pid, TID1, t++, 0, 0, 10, LD_L1);
	put_mem_sample(w, 0, fn_ip(c2c_reader, 0), pid, TID1, t++, 0x10, 0, 10, LD_LCL_HITM);
	assert_int_equal(mp_pdw_close(w, &err), 0);
}

/* ---- the checks ---------------------------------------------------------------------- */

static char synth[512];

static int setup_synth(void **state)
{
	if (setup_dir(state))
		return -1;
	snprintf(synth, sizeof(synth), "%s", path_in("synth.data"));
	write_synth(synth);
	return 0;
}

/* Run a shell command, its stdout into a malloc'd string; *status its exit status. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	size_t n;
	while ((n = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 4096) {
			out = realloc(out, cap *= 2);
			assert_non_null(out);
		}
	}
	out[len] = 0;
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	return out;
}

static const char *memprof(void)
{
	const char *m = getenv("MEMPROF");
	return m && *m ? m : "memprof";
}

/* One --csv row: its fields by the header's names. */
struct csv_row {
	char *f[40];
	int n;
};
static const char *csv_col(char *const *hdr, int nh, const struct csv_row *r, const char *name)
{
	for (int i = 0; i < nh && i < r->n; i++)
		if (!strcmp(hdr[i], name))
			return r->f[i];
	fail_msg("no column %s", name);
	return NULL;
}
static int split(char *line, char **f, int max)
{
	int n = 0;
	for (char *p = line; p && n < max;) {
		f[n++] = p;
		p = strchr(p, ',');
		if (p)
			*p++ = 0;
	}
	return n;
}

struct want {
	const char *data_symbol;
	unsigned off, tid;
	const char *symbol, *srcfile;
	unsigned hitm, lcl_hitm, rmt_hitm, loads, stores;
	const char *verdict;
};

/* The rows of memprof c2c report --csv -c tid (one per line, offset and thread). */
static void check_csv(const char *extra, const struct want *w, size_t nw)
{
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --csv -c tid %s", memprof(), synth, extra);
	char *out = run(cmd, &st);
	assert_int_equal(st, 0);
	char *save, *line = strtok_r(out, "\n", &save);
	assert_non_null(line);
	char *hdr[40];
	int nh = split(line, hdr, 40);
	size_t seen = 0;
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct csv_row r;
		r.n = split(line, r.f, 40);
		const char *ds = csv_col(hdr, nh, &r, "data_symbol");
		unsigned tid = (unsigned)strtoul(csv_col(hdr, nh, &r, "tid"), NULL, 10);
		unsigned off = (unsigned)strtoul(csv_col(hdr, nh, &r, "offset"), NULL, 16);
		size_t i;
		for (i = 0; i < nw; i++)
			if (!strcmp(w[i].data_symbol, ds) && w[i].tid == tid && w[i].off == off)
				break;
		if (i == nw)
			fail_msg("unexpected row %s tid %u (%s)", ds, tid, extra);
		seen++;
		assert_string_equal(csv_col(hdr, nh, &r, "symbol"), w[i].symbol);
		const char *src = csv_col(hdr, nh, &r, "srcline");
		if (strncmp(src, w[i].srcfile, strlen(w[i].srcfile)))
			fail_msg("%s tid %u: srcline %s, want %s:N", ds, tid, src, w[i].srcfile);
		assert_int_equal(atoi(csv_col(hdr, nh, &r, "hitm")), w[i].hitm);
		assert_int_equal(atoi(csv_col(hdr, nh, &r, "lcl_hitm")), w[i].lcl_hitm);
		assert_int_equal(atoi(csv_col(hdr, nh, &r, "rmt_hitm")), w[i].rmt_hitm);
		assert_int_equal(atoi(csv_col(hdr, nh, &r, "loads")), w[i].loads);
		assert_int_equal(atoi(csv_col(hdr, nh, &r, "stores")), w[i].stores);
		assert_string_equal(csv_col(hdr, nh, &r, "verdict"), w[i].verdict);
	}
	assert_int_equal(seen, nw);
	free(out);
}

/* The HITM lines, their offsets and writers, counted exactly; false vs true sharing. */
static void c2c_report__synthetic__exact_lines_and_offsets(void **state)
{
	(void)state;
	const struct want tot[] = {
		{ "c2c_pair+0x0", 0, TID1, "c2c_writer_a", "test_c2c.c", 12, 12, 0, 17, 30,
		  "false sharing" },
		{ "c2c_pair+0x8", 8, TID2, "c2c_writer_b", "test_c2c.c", 10, 8, 2, 10, 25,
		  "false sharing" },
		{ "c2c_true+0x0", 0, TID1, "c2c_writer_a", "test_c2c.c", 3, 3, 0, 3, 10,
		  "true sharing" },
		{ "c2c_true+0x0", 0, TID2, "c2c_writer_b", "test_c2c.c", 3, 3, 0, 3, 10,
		  "true sharing" },
		/* the load in no mapping: its HITM counts, in line 0 (as perf), with the load
		 * without an address */
		{ "[unknown]", 0x10, TID1, "c2c_reader", "test_c2c.c", 1, 1, 0, 1, 0, "one thread" },
		{ "[unknown]", 0, TID1, "c2c_reader", "test_c2c.c", 0, 0, 0, 1, 0, "one thread" },
	};
	check_csv("", tot, sizeof(tot) / sizeof(tot[0]));
	/* remote HITMs: only c2c_pair has them */
	check_csv("-d rmt", tot, 2);
	/* peer snoops: only c2c_peer */
	const struct want peer[] = {
		{ "c2c_peer+0x10", 0x10, TID1, "c2c_reader", "test_c2c.c", 0, 0, 0, 4, 0, "one thread" },
	};
	check_csv("-d peer", peer, 1);
}

/* The text report: the line table's order, the verdicts' words, the line size. */
static void c2c_report__synthetic__stdio_verdicts(void **state)
{
	(void)state;
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --stdio", memprof(), synth);
	char *out = run(cmd, &st);
	assert_int_equal(st, 0);
	const char *a = strstr(out, "c2c_pair+0x0\n"), *b = strstr(out, "c2c_true+0x0\n");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
	assert_non_null(strstr(out, "=> false sharing: different threads write different "
				    "offsets of c2c_pair"));
	assert_non_null(strstr(out, "offset 0x0 written by tid 4242001 (c2c_writer_a); offset "
				    "0x8 written by tid 4242002 (c2c_writer_b)"));
	assert_non_null(strstr(out, "=> true sharing: the threads use the same data of c2c_true "
				    "(offset 0x0 written by tid 4242001 (c2c_writer_a), tid "
				    "4242002 (c2c_writer_b))"));
	assert_non_null(strstr(out, "Cache line size                   : 64"));
	free(out);
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --line-size 128 --csv -c tid", memprof(),
		 synth);
	out = run(cmd, &st);
	assert_int_equal(st, 0);
	/* 128-byte lines: c2c_pair's counters at their offset in the 128-byte line */
	char want[64];
	snprintf(want, sizeof(want), ",0x%x,c2c_pair+0x0,", (unsigned)((uintptr_t)c2c_pair & 127));
	assert_non_null(strstr(out, want));
	snprintf(want, sizeof(want), ",0x%x,c2c_pair+0x8,",
		 (unsigned)(((uintptr_t)c2c_pair & 127) + 8));
	assert_non_null(strstr(out, want));
	free(out);
}

/* A block of perf c2c's --stdio text: from the line holding `from` to the one holding `to`,
 * without the lines holding `skip` (NULL: none), trailing blanks cut. */
static char *block(const char *text, const char *from, const char *to, const char *skip)
{
	const char *a = strstr(text, from), *b = a ? strstr(a, to) : NULL;
	if (!a || !b)
		return strdup("");
	char *out = calloc(1, (size_t)(b - a) + 2), *o = out;
	for (const char *p = a; p < b;) {
		const char *e = memchr(p, '\n', (size_t)(b - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(b - p);
		const char *next = e ? e + 1 : b;
		if (!skip || !memmem(p, n, skip, strlen(skip))) {
			while (n && p[n - 1] == ' ')
				n--;
			memcpy(o, p, n);
			o += n;
			*o++ = '\n';
		}
		p = next;
	}
	return out;
}

/* The table's rows, each cut to perf's 23 columns. */
static char *table_rows(const char *text)
{
	const char *a = strstr(text, "Shared Data Cache Line Table"),
		   *b = a ? strstr(a, "Shared Cache Line Distribution Pareto") : NULL;
	char *out = calloc(1, 65536), *o = out;
	for (const char *p = a; p && p < b;) {
		const char *e = strchr(p, '\n');
		if (!e)
			break;
		if (p[0] == ' ' && p[1] == ' ' && p[2] == ' ') {
			char ln[1024];
			snprintf(ln, sizeof(ln), "%.*s", (int)(e - p), p);
			char *sv, *t = strtok_r(ln, " ", &sv);
			for (int k = 0; t && k < 23; k++, t = strtok_r(NULL, " ", &sv))
				o += sprintf(o, "%s%s", k ? " " : "", t);
			*o++ = '\n';
		}
		p = e + 1;
	}
	return out;
}

/* perf c2c report on the same files: the same counts and lines. */
static void same_as_perf(const char *file, const char *dmode)
{
	char cmd[1024];
	int st, st2;
	const char *perf = getenv("PERF") ? getenv("PERF") : "perf";
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --stdio -d %s 2>/dev/null", perf, file,
		 dmode);
	char *p = run(cmd, &st);
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --stdio -d %s", memprof(), file, dmode);
	char *m = run(cmd, &st2);
	assert_int_equal(st, 0);
	assert_int_equal(st2, 0);
	/* perf prints 0/0 as -nan% where memprof says n/a */
	char *pb = block(p, "Trace Event Information", "c2c details", "-nan%"),
	     *mb = block(m, "Trace Event Information", "c2c details", " n/a");
	if (strcmp(pb, mb))
		fail_msg("%s: counts differ from perf's:\nperf:\n%s\nmemprof:\n%s", file, pb, mb);
	char *pt = table_rows(p), *mt = table_rows(m);
	if (strcmp(pt, mt))
		fail_msg("%s -d %s: line table differs from perf's:\nperf:\n%s\nmemprof:\n%s", file,
			 dmode, pt, mt);
	free(pb), free(mb), free(pt), free(mt), free(p), free(m);
}

static int have_perf(void)
{
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "%s version >/dev/null 2>&1",
		 getenv("PERF") ? getenv("PERF") : "perf");
	return system(cmd) == 0;
}

static void c2c_report__synthetic__equals_perf(void **state)
{
	(void)state;
	if (!have_perf())
		skip();
	same_as_perf(synth, "tot");
	same_as_perf(synth, "lcl");
	same_as_perf(synth, "rmt");
	same_as_perf(synth, "peer");
}

/* The Pareto's offset rows as "offset node pa_cnt code-address" lines, sorted (perf's
 * columns: the five shares, Offset, Node, PA cnt, Code address; memprof's have Pid and Tid
 * before the code address). */
static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *pareto_pa(const char *text, int is_perf)
{
	const char *a = strstr(text, "Shared Cache Line Distribution Pareto");
	char *rows[256], *out = calloc(1, 65536), *o = out;
	size_t n = 0;
	for (const char *p = a; p && *p && n < 256;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char ln[1024], *t[16], *sv;
		snprintf(ln, sizeof(ln), "%.*s", (int)len, p);
		int k = 0;
		for (char *w = strtok_r(ln, " ", &sv); w && k < 16; w = strtok_r(NULL, " ", &sv))
			t[k++] = w;
		if (k > 10 && t[0][strlen(t[0]) - 1] == '%' && asprintf(&rows[n], "%s %s %s %s", t[5], t[6], t[7], t[is_perf ? 8 : 10]) > 0)
			n++;
		p = e ? e + 1 : NULL;
	}
	qsort(rows, n, sizeof(*rows), line_cmp);
	for (size_t i = 0; i < n; i++) {
		o += sprintf(o, "%s\n", rows[i]);
		free(rows[i]);
	}
	return out;
}

/* write_synth with *variant set into NAME (*path: its path), and memprof c2c report
 * --stdio of it (exit 0 asserted): the output, malloc'd. */
static char *synth_stdio(const char *name, int *variant, const char **path)
{
	*path = path_in(name);
	*variant = 1;
	write_synth(*path);
	*variant = 0;
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --stdio", memprof(), *path);
	char *out = run(cmd, &st);
	assert_int_equal(st, 0);
	return out;
}

/* With physical addresses and the memory topology: the table's Node and PA cnt of each
 * line (c2c_pair on node 0, its address changing 50 times; c2c_true without physical
 * addresses: N/A, 0) and the Pareto's per offset, all as perf c2c report gives them. */
static void c2c_report__phys__node_and_pa_cnt(void **state)
{
	(void)state;
	const char *path;
	char *m = synth_stdio("phys.data", &phys_file, &path);
	char cmd[1024];
	int st;
	char *rows = table_rows(m);
	int seen = 0;
	for (char *l = rows, *e; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		if (e)
			*e = 0;
		char addr[32], node[16];
		unsigned cnt;
		if (sscanf(l, "%*u %31s %15s %u", addr, node, &cnt) != 3)
			continue; /* the table's title */
		uint64_t cl = strtoull(addr, NULL, 16);
		if (cl == (uint64_t)(uintptr_t)c2c_pair) {
			assert_string_equal(node, "0");
			assert_int_equal(cnt, 50);
			seen |= 1;
		} else if (cl == (uint64_t)(uintptr_t)c2c_true) {
			assert_string_equal(node, "N/A");
			assert_int_equal(cnt, 0);
			seen |= 2;
		}
	}
	if (seen != 3)
		fail_msg("lines not found (%d): %s", seen, m);
	free(rows);
	/* csv: c2c_pair's offset 0x8 is on node 0 */
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --csv | grep -c ',c2c_pair+0x8,.*,0,[0-9]*,[0-9]*,[0-9]*,false sharing$'", memprof(), path);
	char *c = run(cmd, &st);
	assert_true(atoi(c) > 0);
	free(c);
	if (!have_perf()) {
		free(m);
		skip();
	}
	same_as_perf(path, "tot");
	same_as_perf(path, "peer");
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s --stdio 2>/dev/null",
		 getenv("PERF") ? getenv("PERF") : "perf", path);
	char *p = run(cmd, &st);
	assert_int_equal(st, 0);
	char *pp = pareto_pa(p, 1), *mp = pareto_pa(m, 0);
	if (strcmp(pp, mp) || !*pp)
		fail_msg("Pareto's Offset, Node, PA cnt differ from perf's:\nperf:\n%s\nmemprof:\n%s",
			 pp, mp);
	free(pp), free(mp), free(p), free(m);
}

/* The real perf mem recordings (Skylake-SP load latency with WEIGHT_STRUCT, Ivy Bridge perf
 * mem): perf's counts, no line with HITMs. */
static char fx_skx[4096], fx_ivb[4096];

static void c2c_report__fixtures__equal_perf(void **state)
{
	(void)state;
	same_as_perf(fx_skx, "tot");
	same_as_perf(fx_ivb, "tot");
}

/* A recording without data addresses: one line naming the file, exit 1. */
static void c2c_report__no_addresses__one_line_error(void **state)
{
	(void)state;
	const char *path = path_in("plain.data");
	struct mp_err err = { 0 };
	mp_pdw *w = mp_pdw_create(path, &err);
	assert_non_null(w);
	struct perf_event_attr a = file_attr(PERF_COUNT_SW_CPU_CLOCK, 1000);
	uint64_t id = 1;
	assert_int_equal(mp_pdw_add_attr(w, &a, &id, 1, "cpu-clock", NULL), 0);
	put_sample(w, 1, 0x1000, 1, 1, 1, 1000);
	assert_int_equal(mp_pdw_close(w, &err), 0);
	char cmd[1024];
	int st;
	snprintf(cmd, sizeof(cmd), "%s c2c report -i %s 2>&1", memprof(), path);
	char *out = run(cmd, &st);
	assert_int_equal(st, 1);
	assert_non_null(strstr(out, "plain.data: no event of the recording has data addresses"));
	assert_null(strchr(out, '\n') + 1 < out + strlen(out) ? strchr(strchr(out, '\n') + 1, '\n') : NULL);
	free(out);
}

/* A line whose first sample names other data than most of its samples (the memory held
 * a startup buffer before the block the threads share, in a simulated falseshare): the
 * line and its verdict are named after most of them, c2c_v2, not the first, c2c_v1. */
static void c2c_report__line_reused__named_by_most_samples(void **state)
{
	(void)state;
	const char *path;
	char *out = synth_stdio("vote.data", &vote_file, &path);
	assert_non_null(strstr(out, "=> false sharing: different threads write different "
				    "offsets of c2c_v2, one 64-byte line"));
	assert_non_null(strstr(out, "  c2c_v2 (test_c2c)\n"));
	free(out);
}

/* A heap line whose memory held another object first, written by a third thread while it
 * lived: that store does not share the line with the threads' (the two objects were
 * never live at once), so the line is false sharing only (a simulated falseshare under
 * ASan's environment: main's store in _IO_default_finish at 0x8 of a FILE object there
 * made it "false and true sharing"). */
static void c2c_report__heap_line_reused__objects_apart_in_time(void **state)
{
	(void)state;
	const char *path;
	char *out = synth_stdio("heap.data", &heap_file, &path);
	if (!strstr(out, "=> false sharing: different threads write different offsets of c2c_writer_a") ||
	    strstr(out, "true sharing"))
		fail_msg("the reused heap line's verdict:\n%s", out);
	free(out);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		phys_file = argc > 2 && !strcmp(argv[2], "phys");
		vote_file = argc > 2 && !strcmp(argv[2], "vote");
		heap_file = argc > 2 && !strcmp(argv[2], "heap");
		write_synth(argv[1]);
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(c2c_report__synthetic__exact_lines_and_offsets),
		cmocka_unit_test(c2c_report__synthetic__stdio_verdicts),
		cmocka_unit_test(c2c_report__synthetic__equals_perf),
		cmocka_unit_test(c2c_report__no_addresses__one_line_error),
		cmocka_unit_test(c2c_report__phys__node_and_pa_cnt),
		cmocka_unit_test(c2c_report__line_reused__named_by_most_samples),
		cmocka_unit_test(c2c_report__heap_line_reused__objects_apart_in_time),
	};
	int rc = cmocka_run_group_tests_name("c2c", tests, setup_synth, teardown_dir);
	/* the real recordings, with perf as referee: skipped (77) when either is missing */
	if (mp_test_fixture(fx_skx, sizeof(fx_skx), "perfdata/pdc-mem-load-latency-skx.data") ||
	    mp_test_fixture(fx_ivb, sizeof(fx_ivb), "perfdata/numatop-perf-mem-ivb.data"))
		return mp_test_skipped(rc);
	if (!have_perf()) {
		printf("skipped: no perf to compare the fixtures with\n");
		return mp_test_skipped(rc);
	}
	const struct CMUnitTest fixture_tests[] = {
		cmocka_unit_test(c2c_report__fixtures__equal_perf),
	};
	return rc | cmocka_run_group_tests_name("c2c fixtures", fixture_tests, NULL, NULL);
}
