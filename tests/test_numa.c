/* Unit tests of the numa library (memprof/numa.h). They use nothing else of memprof, so the
 * same file is also built against the installed library with only pkg-config
 * (tests/e2e/numa_pkgconfig.sh).
 *
 * The snapshot test reads every machine of ../shared/topology (README.md's table gives the
 * tarball, its top folder and hwloc's reference topology, a .console or an .xml), extracts
 * it, and compares what the library says about every CPU with what the reference shows:
 * level 1, 2 and 3 relatives, each data/unified cache level's sharing set, the CPU's memory
 * nodes and each node's CPUs. Expected values come only from the references. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include <memprof/numa.h>

#include "mp_test_fixture.h"

#define NBITS 4096
#define SETSZ CPU_ALLOC_SIZE(NBITS)

/* SHARED_DIR: main() runs the tests that call this only when it has the snapshots. */
static const char *shared_dir(void)
{
	return getenv("SHARED_DIR");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (cap - len < 2)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* ---- sets and text ---- */

static void memnode_macros__large_sets__behave_like_cpu_macros(void **state)
{
	(void)state;
	size_t sz = MEMNODE_ALLOC_SIZE(2000);
	memnode_set_t *a = MEMNODE_ALLOC(2000), *b = MEMNODE_ALLOC(2000), *c = MEMNODE_ALLOC(2000);
	assert_non_null(a);
	assert_true(sz * 8 >= 2000);
	cpu_set_t *ca = CPU_ALLOC(2000), *cb = CPU_ALLOC(2000), *cc = CPU_ALLOC(2000);
	CPU_ZERO_S(sz, ca);
	CPU_ZERO_S(sz, cb);
	MEMNODE_ZERO_S(sz, a);
	MEMNODE_ZERO_S(sz, b);
	int bits_a[] = { 0, 63, 64, 1023, 1024, 1999 }, bits_b[] = { 1, 64, 1999 };
	for (size_t i = 0; i < sizeof bits_a / sizeof *bits_a; i++) {
		MEMNODE_SET_S(bits_a[i], sz, a);
		CPU_SET_S(bits_a[i], sz, ca);
	}
	for (size_t i = 0; i < sizeof bits_b / sizeof *bits_b; i++) {
		MEMNODE_SET_S(bits_b[i], sz, b);
		CPU_SET_S(bits_b[i], sz, cb);
	}
	MEMNODE_SET_S(5000, sz, a); /* beyond the set: ignored, as CPU_SET_S does */
	assert_int_equal(MEMNODE_COUNT_S(sz, a), CPU_COUNT_S(sz, ca));
	assert_int_equal(MEMNODE_ISSET_S(1024, sz, a), 1);
	assert_int_equal(MEMNODE_ISSET_S(1025, sz, a), 0);
	assert_int_equal(MEMNODE_ISSET_S(5000, sz, a), 0);
	/* and, or, xor agree with glibc's CPU_*_S on the same bits */
	MEMNODE_AND_S(sz, c, a, b);
	CPU_AND_S(sz, cc, ca, cb);
	assert_memory_equal(c, cc, sz);
	MEMNODE_OR_S(sz, c, a, b);
	CPU_OR_S(sz, cc, ca, cb);
	assert_memory_equal(c, cc, sz);
	MEMNODE_XOR_S(sz, c, a, b);
	CPU_XOR_S(sz, cc, ca, cb);
	assert_memory_equal(c, cc, sz);
	assert_true(MEMNODE_EQUAL_S(sz, a, a));
	assert_false(MEMNODE_EQUAL_S(sz, a, b));
	MEMNODE_CLR_S(1999, sz, a);
	assert_int_equal(MEMNODE_ISSET_S(1999, sz, a), 0);

	char text[256];
	assert_int_equal(NUMA_set_format(text, sizeof text, sz, b), (int)strlen("1,64,1999"));
	assert_string_equal(text, "1,64,1999");
	assert_int_equal(NUMA_set_parse("0-3,8,10-11\n", sz, c), 0);
	NUMA_set_format(text, sizeof text, sz, c);
	assert_string_equal(text, "0-3,8,10-11");
	assert_int_equal(NUMA_set_parse("3-1", sz, c), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(NUMA_set_parse("5000", sz, c), -1);
	assert_int_equal(errno, ERANGE);
	/* a short buffer gets a terminated prefix, and the length it needs */
	assert_int_equal(NUMA_set_format(text, 4, sz, b), (int)strlen("1,64,1999"));
	assert_true(strlen(text) < 4);
	MEMNODE_FREE(a);
	MEMNODE_FREE(b);
	MEMNODE_FREE(c);
	CPU_FREE(ca);
	CPU_FREE(cb);
	CPU_FREE(cc);
}

/* Table 11.1 of the article, read from the article: for each data width W, the SEC and
 * SEC/DED check-bit counts. */
static void ecc_kind__article_table_11_1__sec_and_secded_rows(void **state)
{
	(void)state;
	char path[4096];
	snprintf(path, sizeof path, "%s/reference/000-article.md", shared_dir());
	char *text = slurp(path);
	if (!text)
		skip();
	int rows = 0;
	char *head = strstr(text, "Data Bits W");
	assert_non_null(head);
	for (char *line = strchr(head, '\n'); line && line[1]; line = strchr(line, '\n')) {
		line++;
		unsigned w, sec, secded;
		if (sscanf(line, "%u | %u | %*[0-9.]%% | %u |", &w, &sec, &secded) != 3)
			break;
		assert_string_equal(NUMA_ecc_kind(w, (int)sec), "SEC");
		assert_string_equal(NUMA_ecc_kind(w, (int)secded), "SEC/DED");
		assert_string_not_equal(NUMA_ecc_kind(w, (int)sec - 1), "SEC");
		rows++;
	}
	assert_int_equal(rows, 5);
	assert_string_equal(NUMA_ecc_kind(64, 0), "none");
	free(text);
}

/* ---- hwloc's reference topologies ---- */

struct robj {
	char type[32];
	int os; /* P#, -1 if none */
	int parent;
	int tier; /* a NUMA node behind a DAX device: a memory-only tier */
};

struct ref {
	struct robj *o;
	int n, cap;
};

static int radd(struct ref *r, const char *type, int os, int parent)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		r->o = realloc(r->o, (size_t)r->cap * sizeof *r->o);
	}
	struct robj *o = &r->o[r->n];
	snprintf(o->type, sizeof o->type, "%.*s", (int)strcspn(type, "( \t"), type);
	o->os = os;
	o->parent = parent;
	o->tier = strstr(type, "DAXDevice=") != NULL;
	return r->n++;
}

/* lstopo --of console -v: one object per line, two spaces of indent per depth, the tree
 * ends at the first unindented line after the Machine. */
static void parse_console(struct ref *r, char *text)
{
	int stack[256];
	int first = 1;
	char *save;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int ind = 0;
		while (line[ind] == ' ')
			ind++;
		if (!first && ind == 0)
			break;
		first = 0;
		int depth = ind / 2;
		char *p = strstr(line, "(P#");
		if (!p)
			p = strstr(line, " P#");
		int os = p ? atoi(p + 3) : -1;
		stack[depth] = radd(r, line + ind, os, depth ? stack[depth - 1] : -1);
	}
}

/* hwloc XML: nested <object type="..." os_index="..."> elements. */
static void parse_xml(struct ref *r, char *text)
{
	int stack[256], depth = 0;
	for (char *p = text; (p = strchr(p, '<')); p++) {
		if (strncmp(p, "</object>", 9) == 0) {
			depth--;
			continue;
		}
		if (strncmp(p, "<info name=\"DAXDevice\"", 22) == 0 && depth) {
			r->o[stack[depth - 1]].tier = 1;
			continue;
		}
		if (strncmp(p, "<object ", 8) != 0)
			continue;
		char *end = strchr(p, '>'), *t = strstr(p, "type=\""),
		     *os = strstr(p, "os_index=\"");
		char type[32] = "";
		if (t && t < end)
			snprintf(type, sizeof type, "%.*s", (int)strcspn(t + 6, "\""), t + 6);
		int idx = radd(r, type, os && os < end ? atoi(os + 10) : -1,
			       depth ? stack[depth - 1] : -1);
		if (end[-1] != '/')
			stack[depth++] = idx;
	}
}

static int is_type(const struct robj *o, const char *t)
{
	return strcmp(o->type, t) == 0;
}

/* Level of a data or unified cache type name (L2Cache, L1dCache, L2uCache), else 0. */
static int dcache_level(const struct robj *o)
{
	const char *t = o->type;
	if (t[0] != 'L' || !isdigit((unsigned char)t[1]))
		return 0;
	const char *rest = t + 2;
	if (*rest == 'd' || *rest == 'u')
		rest++;
	return strcmp(rest, "Cache") == 0 ? t[1] - '0' : 0;
}

static int is_ancestor(const struct ref *r, int anc, int obj)
{
	for (int o = obj; o >= 0; o = r->o[o].parent)
		if (o == anc)
			return 1;
	return 0;
}

/* The PUs (Linux CPU numbers) below object `obj`. */
static void pus_below(const struct ref *r, int obj, size_t sz, cpu_set_t *set)
{
	CPU_ZERO_S(sz, set);
	for (int i = 0; i < r->n; i++)
		if (is_type(&r->o[i], "PU") && is_ancestor(r, obj, i))
			CPU_SET_S(r->o[i].os, sz, set);
}

static int ancestor_of_type(const struct ref *r, int obj, const char *type)
{
	for (int o = r->o[obj].parent; o >= 0; o = r->o[o].parent)
		if (is_type(&r->o[o], type))
			return o;
	return -1;
}

/* What a NUMA node is attached to: its parent, above memory-side caches. */
static int attach_of(const struct ref *r, int node)
{
	int a = r->o[node].parent;
	while (a >= 0 && is_type(&r->o[a], "MemCache"))
		a = r->o[a].parent;
	return a;
}

static void expect_set(const char *snap, int cpu, const char *what, size_t sz, const void *got,
		       const void *want, ssize_t rc)
{
	if (rc >= 0 && memcmp(got, want, sz) == 0 && rc == CPU_COUNT_S(sz, (const cpu_set_t *)want))
		return;
	char g[1024], w[1024];
	NUMA_set_format(g, sizeof g, sz, got);
	NUMA_set_format(w, sizeof w, sz, want);
	fail_msg("%s: CPU %d: %s: library says {%s} (rc %zd, errno %d), reference says {%s}", snap,
		 cpu, what, rc < 0 ? "error" : g, rc, rc < 0 ? errno : 0, w);
}

static int check_snapshot(const char *top, const char *refname, int *ncpus_out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/topology/%s", shared_dir(), refname);
	char *text = slurp(path);
	assert_non_null(text);
	struct ref r = { 0 };
	if (strstr(refname, ".xml"))
		parse_xml(&r, text);
	else
		parse_console(&r, text);
	free(text);

	NUMA_topo *t = NUMA_topo_open(top);
	if (!t)
		fail_msg("%s: NUMA_topo_open: %s", top, strerror(errno));
	size_t sz = SETSZ;
	cpu_set_t *want = CPU_ALLOC(NBITS), *got = CPU_ALLOC(NBITS), *one = CPU_ALLOC(NBITS);
	memnode_set_t *nwant = MEMNODE_ALLOC(NBITS), *ngot = MEMNODE_ALLOC(NBITS);
	const char *snap = refname;

	int npus = 0, nnodes = 0;
	for (int i = 0; i < r.n; i++) {
		npus += is_type(&r.o[i], "PU");
		nnodes += is_type(&r.o[i], "NUMANode");
	}
	assert_true(npus > 0);
	if (NUMA_topo_cpu_count(t) != npus || NUMA_topo_memnode_count(t) != nnodes)
		fail_msg("%s: %d CPUs and %d nodes, reference has %d and %d", snap,
			 NUMA_topo_cpu_count(t), NUMA_topo_memnode_count(t), npus, nnodes);

	for (int i = 0; i < r.n; i++) {
		if (!is_type(&r.o[i], "PU"))
			continue;
		int cpu = r.o[i].os;
		CPU_ZERO_S(sz, one);
		CPU_SET_S(cpu, sz, one);

		int core = ancestor_of_type(&r, i, "Core");
		if (core >= 0)
			pus_below(&r, core, sz, want);
		else
			memcpy(want, one, sz);
		expect_set(snap, cpu, "level 1 (same core)", sz, got, want,
			   NUMA_topo_cpu_level_mask(t, sz, got, sz, one, 1));

		int pkg = ancestor_of_type(&r, i, "Package");
		pus_below(&r, pkg >= 0 ? pkg : 0, sz, want);
		expect_set(snap, cpu, "level 2 (same package)", sz, got, want,
			   NUMA_topo_cpu_level_mask(t, sz, got, sz, one, 2));

		/* level 3: the CPUs of the object the CPU's nearest memory node hangs from */
		int near = -1;
		for (int a = r.o[i].parent; a >= 0 && near < 0; a = r.o[a].parent)
			for (int k = 0; k < r.n && near < 0; k++)
				if (is_type(&r.o[k], "NUMANode") && attach_of(&r, k) == a)
					near = a;
		pus_below(&r, near >= 0 ? near : 0, sz, want);
		expect_set(snap, cpu, "level 3 (same node)", sz, got, want,
			   NUMA_topo_cpu_level_mask(t, sz, got, sz, one, 3));

		/* each data/unified cache level: the PUs below the cache that holds this CPU */
		for (int lvl = 1; lvl <= 5; lvl++) {
			int cache = -1;
			for (int a = r.o[i].parent; a >= 0 && cache < 0; a = r.o[a].parent)
				if (dcache_level(&r.o[a]) == lvl)
					cache = a;
			ssize_t rc = NUMA_topo_cpu_cache_mask(t, sz, got, sz, one, (unsigned)lvl);
			char what[64];
			snprintf(what, sizeof what, "L%d cache sharing", lvl);
			if (cache < 0) {
				if (rc >= 0 || errno != ENOENT)
					fail_msg("%s: CPU %d: %s: library gives %zd, reference has "
						 "no such cache",
						 snap, cpu, what, rc);
				continue;
			}
			pus_below(&r, cache, sz, want);
			expect_set(snap, cpu, what, sz, got, want, rc);
		}

		/* its memory nodes: those attached to the CPU's ancestors, tiers included;
		 * its own node: the lowest of them that is no memory-only tier */
		MEMNODE_ZERO_S(sz, nwant);
		int own = -1, own_tier = 1;
		for (int k = 0; k < r.n; k++)
			if (is_type(&r.o[k], "NUMANode") && attach_of(&r, k) >= 0 &&
			    is_ancestor(&r, attach_of(&r, k), i)) {
				MEMNODE_SET_S(r.o[k].os, sz, nwant);
				if (own < 0 || (own_tier && !r.o[k].tier) ||
				    (own_tier == r.o[k].tier && r.o[k].os < own)) {
					own = r.o[k].os;
					own_tier = r.o[k].tier;
				}
			}
		expect_set(snap, cpu, "NUMA_cpu_to_memnode_tiers", sz, ngot, nwant,
			   NUMA_topo_cpu_to_memnode_tiers(t, sz, one, sz, ngot));
		MEMNODE_ZERO_S(sz, nwant);
		if (own >= 0)
			MEMNODE_SET_S(own, sz, nwant);
		expect_set(snap, cpu, "NUMA_cpu_to_memnode", sz, ngot, nwant,
			   NUMA_topo_cpu_to_memnode(t, sz, one, sz, ngot));
		struct NUMA_cpu_place pl;
		assert_int_equal(NUMA_topo_cpu_place(t, cpu, &pl), 0);
		if (pl.node != own)
			fail_msg("%s: CPU %d: NUMA_topo_cpu_place node %d, want %d", snap, cpu, pl.node, own);
	}
	for (int k = 0; k < r.n; k++) {
		if (!is_type(&r.o[k], "NUMANode"))
			continue;
		MEMNODE_ZERO_S(sz, nwant);
		MEMNODE_SET_S(r.o[k].os, sz, nwant);
		pus_below(&r, attach_of(&r, k), sz, want);
		expect_set(snap, -1, "NUMA_memnode_to_cpu", sz, got, want,
			   NUMA_topo_memnode_to_cpu(t, sz, nwant, sz, got));
	}
	CPU_FREE(want);
	CPU_FREE(got);
	CPU_FREE(one);
	MEMNODE_FREE(nwant);
	MEMNODE_FREE(ngot);
	NUMA_topo_close(t);
	free(r.o);
	*ncpus_out = npus;
	return 0;
}

/* Extracts a snapshot into `dir` (once: the cache folder SNAPSHOT_CACHE keeps them between
 * runs; PCI devices, which the topology does not use, are left out). Returns the folder of
 * its top directory in `out`. */
static void extract(const char *dir, const char *file, const char *top, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, top);
	if (access(out, F_OK) == 0)
		return;
	char cmd[8192];
	snprintf(cmd, sizeof cmd,
		 "set -e; t=$(mktemp -d '%s/x.XXXXXX'); tar xjf '%s/topology/%s' -C \"$t\" "
		 "--exclude='*/sys/devices/pci*' --exclude='*/sys/bus/pci' "
		 "--exclude='*/sys/class/net' --exclude='*/sys/class/block'; "
		 "mv \"$t/%s\" '%s' 2>/dev/null || test -d '%s'; rm -rf \"$t\"",
		 dir, shared_dir(), file, top, out, out);
	if (system(cmd))
		fail_msg("could not extract %s", file);
}

static void topo__every_snapshot__matches_hwloc_reference(void **state)
{
	(void)state;
	char path[4096], tmp[] = "/tmp/test_numa.XXXXXX";
	snprintf(path, sizeof path, "%s/topology/README.md", shared_dir());
	char *readme = slurp(path);
	if (!readme)
		skip();
	const char *cache = getenv("SNAPSHOT_CACHE");
	if (cache && *cache) {
		snprintf(path, sizeof path, "mkdir -p '%s'", cache);
		assert_int_equal(system(path), 0);
	} else {
		assert_non_null(mkdtemp(tmp));
		cache = NULL;
	}
	int machines = 0, cpus = 0;
	char *save;
	for (char *line = strtok_r(readme, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char file[256], top[256], ref[256];
		if (sscanf(line, "| %255s | %255s | %255s |", file, top, ref) != 3 ||
		    !strstr(file, ".tar"))
			continue;
		char dir[4096];
		extract(cache ? cache : tmp, file, top, dir, sizeof dir);
		int n = 0;
		check_snapshot(dir, ref, &n);
		cpus += n;
		machines++;
	}
	print_message("checked %d machines, %d CPUs\n", machines, cpus);
	assert_int_equal(machines, 28);
	if (!cache) {
		snprintf(path, sizeof path, "rm -rf '%s'", tmp);
		assert_int_equal(system(path), 0);
	}
	free(readme);
}

static void topo_open__missing_fsroot__enoent(void **state)
{
	(void)state;
	errno = 0;
	assert_null(NUMA_topo_open("/nonexistent/machine"));
	assert_int_equal(errno, ENOENT);
	assert_null(NUMA_topo_open("/etc/hostname"));
	assert_int_equal(errno, ENOTDIR);
}

/* A machine copied without /sys (a chroot's view): ENOENT, and nothing on stderr (hwloc
 * would print "failed to find sysfs cpu topology directory" and guess). */
static void topo_open__fsroot_without_sys__enoent_silent(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_numa_nosys.XXXXXX", path[4096];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "mkdir -p %s/proc && cp /proc/cpuinfo %s/proc/", dir, dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof path, "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	errno = 0;
	NUMA_topo *t = NUMA_topo_open(dir);
	int e = errno;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	assert_null(t);
	assert_int_equal(e, ENOENT);
	char *err = slurp(path);
	assert_non_null(err);
	if (*err)
		fail_msg("the library printed: %s", err);
	free(err);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* MEMNODE_*_S evaluate their node argument once, as CPU_*_S do. */
static void memnode_macros__side_effects__evaluated_once(void **state)
{
	(void)state;
	memnode_set_t s;
	size_t sz = sizeof s;
	int n = 3;
	MEMNODE_ZERO_S(sz, &s);
	MEMNODE_SET_S(n++, sz, &s);
	assert_int_equal(n, 4);
	assert_true(MEMNODE_ISSET_S(3, sz, &s));
	assert_false(MEMNODE_ISSET_S(4, sz, &s));
	assert_true(MEMNODE_ISSET_S(--n, sz, &s));
	assert_int_equal(n, 3);
	MEMNODE_CLR_S(n++, sz, &s);
	assert_int_equal(n, 4);
	assert_int_equal(MEMNODE_COUNT_S(sz, &s), 0);
	n = 0;
	MEMNODE_SET_S(n += 1000000, sz, &s); /* beyond the set: ignored, still once */
	assert_int_equal(n, 1000000);
	assert_int_equal(MEMNODE_COUNT_S(sz, &s), 0);
}

/* fakeheteromemtiers: each Group has DRAM and memory-only HBM/NVM nodes (DAX); a CPU
 * belongs to its DRAM node, the tiers come separately. */
static void cpu_to_memnode__tiered_memory__one_node_tiers_apart(void **state)
{
	(void)state;
	char path[4096], tmp[] = "/tmp/test_numa_tiers.XXXXXX";
	const char *cache = getenv("SNAPSHOT_CACHE");
	if (!cache || !*cache) {
		assert_non_null(mkdtemp(tmp));
		cache = tmp;
	} else {
		snprintf(path, sizeof path, "mkdir -p '%s'", cache);
		assert_int_equal(system(path), 0);
	}
	char dir[4096];
	extract(cache, "fakeheteromemtiers.tar.bz2", "fakeheteromemtiers", dir, sizeof dir);
	NUMA_topo *t = NUMA_topo_open(dir);
	assert_non_null(t);
	size_t sz = sizeof(memnode_set_t);
	cpu_set_t one;
	memnode_set_t got;
	CPU_ZERO(&one);
	CPU_SET(2, &one);
	assert_int_equal(NUMA_topo_cpu_to_memnode(t, sizeof one, &one, sz, &got), 1);
	assert_true(MEMNODE_ISSET_S(1, sz, &got));
	assert_int_equal(NUMA_topo_cpu_to_memnode_tiers(t, sizeof one, &one, sz, &got), 3);
	assert_true(MEMNODE_ISSET_S(1, sz, &got) && MEMNODE_ISSET_S(4, sz, &got) &&
		    MEMNODE_ISSET_S(6, sz, &got));
	char kind[32];
	assert_int_equal(NUMA_topo_memnode_tier(t, 1, kind, sizeof kind), 0);
	assert_string_equal(kind, "DRAM");
	assert_int_equal(NUMA_topo_memnode_tier(t, 4, kind, sizeof kind), 1);
	assert_string_equal(kind, "HBM");
	assert_int_equal(NUMA_topo_memnode_tier(t, 6, kind, sizeof kind), 1);
	assert_string_equal(kind, "NVM");
	assert_int_equal(NUMA_topo_memnode_tier(t, 5, kind, sizeof kind), -1);
	assert_int_equal(errno, ENOENT);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(NUMA_topo_cpu_to_memnode(t, sizeof one, &one, sz, &got), 1);
	assert_true(MEMNODE_ISSET_S(0, sz, &got));
	NUMA_topo_close(t);
	if (cache == tmp) {
		snprintf(path, sizeof path, "rm -rf '%s'", tmp);
		assert_int_equal(system(path), 0);
	}
}

/* ---- memory modules: SMBIOS type 17, cross-checked with hwloc's view (the .xml) ---- */

static void dimm_read__snapshot_with_dimms__matches_hwloc_xml(void **state)
{
	(void)state;
	char tmp[] = "/tmp/test_numa.XXXXXX", cmd[8192], path[4096];
	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof cmd,
		 "tar xjf '%s/topology/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2' -C %s "
		 "32em64t-2n8c+1mic/sys/firmware",
		 shared_dir(), tmp);
	if (system(cmd))
		skip();
	snprintf(path, sizeof path, "%s/32em64t-2n8c+1mic", tmp);
	struct NUMA_dimm d[64];
	int n = NUMA_dimm_read(path, d, 64);
	assert_true(n > 0);

	snprintf(path, sizeof path, "%s/topology/32em64t-2n8c+dax+nvme+mic+dimms.xml",
		 shared_dir());
	char *xml = slurp(path);
	assert_non_null(xml);
	/* every MemoryModule hwloc reports is a populated slot with the same type and size */
	int modules = 0;
	for (char *p = xml; (p = strstr(p, "subtype=\"MemoryModule\"")); p++) {
		char *end = strstr(p, "</object>"), loc[64] = "", type[32] = "";
		unsigned long long kib = 0;
		char *q = strstr(p, "name=\"DeviceLocation\" value=\"");
		if (q && q < end)
			snprintf(loc, sizeof loc, "%.*s", (int)strcspn(q + 29, "\""), q + 29);
		q = strstr(p, "name=\"Type\" value=\"");
		if (q && q < end)
			snprintf(type, sizeof type, "%.*s", (int)strcspn(q + 19, "\""), q + 19);
		q = strstr(p, "name=\"Size\" value=\"");
		if (q && q < end)
			kib = strtoull(q + 19, NULL, 10);
		while (strlen(loc) && loc[strlen(loc) - 1] == ' ')
			loc[strlen(loc) - 1] = 0;
		int found = 0;
		for (int i = 0; i < n; i++)
			if (strcmp(d[i].locator, loc) == 0) {
				found = 1;
				assert_string_equal(d[i].type, type);
				assert_int_equal(d[i].size_mb * 1024, kib);
			}
		if (!found)
			fail_msg("hwloc's module %s is not in the library's list", loc);
		modules++;
	}
	int populated = 0;
	for (int i = 0; i < n; i++) {
		populated += d[i].size_mb > 0;
		/* check bits are the difference of the widths, classified by Table 11.1 */
		assert_int_equal(d[i].check_bits, (int)d[i].total_width - (int)d[i].data_width);
		assert_string_equal(d[i].ecc, NUMA_ecc_kind(d[i].data_width, d[i].check_bits));
	}
	assert_int_equal(populated, modules);
	free(xml);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

static void dimm_decode__bad_entries__einval(void **state)
{
	(void)state;
	unsigned char raw[0x40] = { 17, 0x22 };
	struct NUMA_dimm d;
	assert_int_equal(NUMA_dimm_decode(raw, 0x10, &d), -1);
	assert_int_equal(errno, EINVAL);
	raw[0] = 16;
	assert_int_equal(NUMA_dimm_decode(raw, sizeof raw, &d), -1);
	raw[0] = 17;
	raw[1] = 0x50; /* claims more than it has */
	assert_int_equal(NUMA_dimm_decode(raw, sizeof raw, &d), -1);
	/* widths unknown (0xFFFF): no check bits, ECC unknown; extended size 0x7FFF */
	unsigned char r2[0x24] = { 17, 0x22 };
	r2[0x08] = r2[0x09] = r2[0x0A] = r2[0x0B] = 0xFF;
	r2[0x0C] = 0xFF;
	r2[0x0D] = 0x7F;
	r2[0x1C] = 0x00;
	r2[0x1D] = 0x00;
	r2[0x1E] = 0x01; /* 65536 MB */
	r2[0x12] = 0x22;
	assert_int_equal(NUMA_dimm_decode(r2, sizeof r2, &d), 0);
	assert_int_equal(d.check_bits, -1);
	assert_string_equal(d.ecc, "unknown");
	assert_int_equal(d.size_mb, 65536);
	assert_string_equal(d.type, "DDR5");
}

/* ---- EDAC: fixtures laid out as Documentation/ABI/testing/sysfs-devices-edac says ---- */

static void edac_read__fixtures__modes_types_counts(void **state)
{
	(void)state;
	const char *data = getenv("TESTS_DATA");
	if (!data)
		skip();
	char root[4096];
	struct NUMA_edac_mc mc[8];
	/* dimmN layout (kernels since 3.6): two controllers */
	snprintf(root, sizeof root, "%s/edac/dimm-layout", data);
	assert_int_equal(NUMA_edac_read(root, mc, 8), 2);
	assert_int_equal(mc[0].index, 0);
	assert_string_equal(mc[0].name, "Sandy Bridge SrcID#0_Ha#0");
	assert_string_equal(mc[0].edac_mode, "S4ECD4ED");
	assert_string_equal(mc[0].mem_type, "Registered-DDR3");
	assert_int_equal(mc[0].size_mb, 16384);
	assert_int_equal(mc[0].ce_count, 3);
	assert_int_equal(mc[0].ue_count, 0);
	assert_int_equal(mc[1].index, 1);
	assert_int_equal(mc[1].ce_count, 0);
	assert_int_equal(mc[1].ue_count, 1);
	/* csrowN layout (older drivers) */
	snprintf(root, sizeof root, "%s/edac/csrow-layout", data);
	assert_int_equal(NUMA_edac_read(root, mc, 8), 1);
	assert_string_equal(mc[0].edac_mode, "SECDED");
	assert_string_equal(mc[0].mem_type, "Unbuffered-DDR2");
	assert_int_equal(mc[0].ce_count, 12);
	/* no EDAC at all */
	snprintf(root, sizeof root, "%s/edac/none", data);
	assert_int_equal(NUMA_edac_read(root, mc, 8), -1);
	assert_int_equal(errno, ENOENT);
}

/* ---- this machine ---- */

static int read_list(const char *path, size_t sz, void *set)
{
	char *t = slurp(path);
	if (!t)
		return -1;
	int rc = NUMA_set_parse(t, sz, set);
	free(t);
	return rc;
}

static void self__this_machine__agrees_with_sysfs_and_kernel(void **state)
{
	(void)state;
	size_t sz = SETSZ;
	cpu_set_t *a = CPU_ALLOC(NBITS), *b = CPU_ALLOC(NBITS), *one = CPU_ALLOC(NBITS);
	memnode_set_t *n = MEMNODE_ALLOC(NBITS), *m = MEMNODE_ALLOC(NBITS);

	assert_int_equal(read_list("/sys/devices/system/cpu/online", sz, b), 0);
	assert_int_equal(NUMA_cpu_system_mask(sz, a), CPU_COUNT_S(sz, b));
	assert_memory_equal(a, b, sz);
	assert_int_equal(NUMA_cpu_system_count(), CPU_COUNT_S(sz, b));

	assert_int_equal(sched_getaffinity(0, sz, b), 0);
	assert_int_equal(NUMA_cpu_self_mask(sz, a), CPU_COUNT_S(sz, b));
	assert_memory_equal(a, b, sz);
	assert_int_equal(NUMA_cpu_self_count(), CPU_COUNT_S(sz, b));
	/* a set too small for the CPUs: ERANGE, as the article's "exercise for the reader" */
	if (CPU_COUNT_S(sz, b) > 1) {
		int last = 0;
		for (int i = 0; i < NBITS; i++)
			if (CPU_ISSET_S(i, sz, b))
				last = i;
		if (last >= 8) {
			assert_int_equal(NUMA_cpu_self_mask(1, a), -1);
			assert_int_equal(errno, ERANGE);
		}
	}

	/* the article's 12.1 and 12.2 for CPU 0, against the kernel's own lists */
	CPU_ZERO_S(sz, one);
	CPU_SET_S(0, sz, one);
	if (read_list("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", sz, b) == 0) {
		assert_int_equal(NUMA_cpu_level_mask(sz, a, sz, one, 1), CPU_COUNT_S(sz, b));
		assert_memory_equal(a, b, sz);
	}
	if (read_list("/sys/devices/system/cpu/cpu0/topology/core_siblings_list", sz, b) == 0) {
		assert_int_equal(NUMA_cpu_level_mask(sz, a, sz, one, 2), CPU_COUNT_S(sz, b));
		assert_memory_equal(a, b, sz);
	}
	assert_int_equal(NUMA_cpu_level_mask(sz, a, sz, one, 9), -1);
	assert_int_equal(errno, EINVAL);

	assert_int_equal(read_list("/sys/devices/system/node/online", sz, m), 0);
	assert_int_equal(NUMA_memnode_system_mask(sz, n), MEMNODE_COUNT_S(sz, m));
	assert_memory_equal(n, m, sz);
	assert_int_equal(NUMA_memnode_system_count(), MEMNODE_COUNT_S(sz, m));

	/* pinned to each allowed CPU in turn: current CPU and node follow the affinity */
	cpu_set_t *saved = CPU_ALLOC(NBITS);
	assert_int_equal(sched_getaffinity(0, sz, saved), 0);
	for (int cpu = 0; cpu < NBITS; cpu++) {
		if (!CPU_ISSET_S(cpu, sz, saved))
			continue;
		CPU_ZERO_S(sz, one);
		CPU_SET_S(cpu, sz, one);
		assert_int_equal(sched_setaffinity(0, sz, one), 0);
		assert_int_equal(NUMA_cpu_self_current_idx(), cpu);
		assert_int_equal(NUMA_cpu_self_current_mask(sz, a), 1);
		assert_memory_equal(a, one, sz);
		assert_int_equal(NUMA_cpu_to_memnode(sz, one, sz, n), 1);
		int node = 0;
		while (!MEMNODE_ISSET_S(node, sz, n))
			node++;
		assert_int_equal(NUMA_memnode_self_current_idx(), node);
		/* the node's CPUs include this one */
		assert_true(NUMA_memnode_to_cpu(sz, n, sz, a) >= 1);
		assert_true(CPU_ISSET_S(cpu, sz, a));
	}
	assert_int_equal(sched_setaffinity(0, sz, saved), 0);
	CPU_FREE(saved);

	/* memory: touched pages are where move_pages says, untouched ones where the policy
     * (default: local) would put them; a hole is EFAULT */
	long page = sysconf(_SC_PAGESIZE);
	char *mem = mmap(NULL, (size_t)page * 8, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	int local = NUMA_memnode_self_current_idx();
	assert_int_equal(NUMA_mem_get_node_idx(mem), local);
	memset(mem, 1, (size_t)page * 4);
	assert_true(NUMA_mem_get_node_idx(mem) >= 0);
	assert_true(MEMNODE_ISSET_S(NUMA_mem_get_node_idx(mem), sz, m));
	assert_int_equal(NUMA_mem_get_node_mask(mem, (size_t)page * 8, sz, n),
			 MEMNODE_COUNT_S(sz, n));
	assert_true(MEMNODE_COUNT_S(sz, n) >= 1);
	munmap(mem + page * 4, (size_t)page * 4);
	assert_int_equal(NUMA_mem_get_node_idx(mem + page * 5), -1);
	assert_int_equal(errno, EFAULT);
	munmap(mem, (size_t)page * 4);

	CPU_FREE(a);
	CPU_FREE(b);
	CPU_FREE(one);
	MEMNODE_FREE(n);
	MEMNODE_FREE(m);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(memnode_macros__large_sets__behave_like_cpu_macros),
		cmocka_unit_test(topo_open__missing_fsroot__enoent),
		cmocka_unit_test(topo_open__fsroot_without_sys__enoent_silent),
		cmocka_unit_test(memnode_macros__side_effects__evaluated_once),
		cmocka_unit_test(dimm_decode__bad_entries__einval),
		cmocka_unit_test(edac_read__fixtures__modes_types_counts),
		cmocka_unit_test(self__this_machine__agrees_with_sysfs_and_kernel),
	};
	/* the snapshots and the article's tables in SHARED_DIR */
	const struct CMUnitTest fixtures[] = {
		cmocka_unit_test(ecc_kind__article_table_11_1__sec_and_secded_rows),
		cmocka_unit_test(cpu_to_memnode__tiered_memory__one_node_tiers_apart),
		cmocka_unit_test(topo__every_snapshot__matches_hwloc_reference),
		cmocka_unit_test(dimm_read__snapshot_with_dimms__matches_hwloc_xml),
	};
	char dir[4096];
	int failed = cmocka_run_group_tests(plain, NULL, NULL);
	if (mp_test_fixture(dir, sizeof(dir), MP_FIXTURE_TOPOLOGY))
		return mp_test_skipped(failed);
	return failed + cmocka_run_group_tests(fixtures, NULL, NULL);
}
