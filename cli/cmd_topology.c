/* memprof topology [--json] [--fsroot DIR]: the machine as the article reasons about it:
 * which CPUs share a core, a cache, a package and a memory node; the nodes' memory and
 * distances; the memory modules (type, registered, ECC) and the memory controllers' error
 * counts. */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "memprof/numa.h"

#define TOPO_NBITS 8192
#define TOPO_SETSZ CPU_ALLOC_SIZE(TOPO_NBITS)
#define TOPO_MAXDIMM 256
#define TOPO_MAXMC 64

/* --fsroot: hwloc and the readers below open the snapshot's files as they are, so a FIFO
 * would block them forever and a device (a link to /dev/zero as proc/cpuinfo) feed them
 * without end. Every entry must be a folder or a regular file, or a link to one. */
#define FSROOT_MAX_ENTRIES 1000000
static char fsroot_bad[4200];
static long fsroot_seen;

static int fsroot_entry(const char *path, const struct stat *lst, int flag, struct FTW *f)
{
	struct stat st;
	(void)f;
	if (++fsroot_seen > FSROOT_MAX_ENTRIES) {
		snprintf(fsroot_bad, sizeof(fsroot_bad), "more than %d entries: not a /sys and /proc "
			 "snapshot", FSROOT_MAX_ENTRIES);
		return 1;
	}
	if (flag == FTW_SL ? stat(path, &st) : (st = *lst, 0))
		return 0; /* a dangling link is as good as a missing file */
	if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0;
	snprintf(fsroot_bad, sizeof(fsroot_bad), "%s: %s%s, not a regular file: not read", path,
		 flag == FTW_SL ? "a link to " : "is ", S_ISFIFO(st.st_mode) ? "a FIFO" :
		 S_ISSOCK(st.st_mode) ? "a socket" : "a device");
	return 1;
}

/* 0 when every entry under fsroot can be read safely; else prints one line, 1. */
static int fsroot_check(const char *fsroot)
{
	fsroot_bad[0] = 0;
	fsroot_seen = 0;
	if (nftw(fsroot, fsroot_entry, 32, FTW_PHYS) < 0 && !fsroot_bad[0])
		return 0; /* unreadable: said as before, by what cannot read it */
	if (!fsroot_bad[0])
		return 0;
	cli_error("topology", "--fsroot %s", fsroot_bad);
	return 1;
}

/* What a missing part means, in one line: the path and why it is missing. */
static void why_missing(char *buf, size_t len, const char *fsroot, const char *rel, int err,
			const char *absent_means)
{
	const char *sep = fsroot[strlen(fsroot) - 1] == '/' ? "" : "/";
	if (err == EACCES || err == EPERM)
		snprintf(buf, len, "%s%s%s is readable by root only", fsroot, sep, rel);
	else if (err == ENOENT && strcmp(fsroot, "/"))
		snprintf(buf, len, "%s%s%s is not in this snapshot", fsroot, sep, rel);
	else if (err == ENOENT)
		snprintf(buf, len, "no /%s (%s)", rel, absent_means);
	else
		snprintf(buf, len, "%s%s%s: %s", fsroot, sep, rel, strerror(err));
}

static const char *const dmi_absent = "firmware without SMBIOS";
static const char *const edac_absent = "no EDAC driver loaded";

/* A set as a list, wrapped at 80 columns: continuation lines start at column `col`. */
static void print_list(FILE *f, const void *set, size_t sz, int col, int width)
{
	char buf[65536];
	NUMA_set_format(buf, sizeof buf, sz, set);
	int x = col;
	for (char *p = buf; *p;) {
		size_t n = strcspn(p, ",");
		int comma = p[n] == ',';
		if (x > col && x + (int)n + comma > width) {
			fprintf(f, "\n%*s", col, "");
			x = col;
		}
		fprintf(f, "%.*s%s", (int)n, p, comma ? "," : "");
		x += (int)n + comma;
		p += n + comma;
	}
	fputc('\n', f);
}

static void json_list(struct cli_json *j, const char *key, const void *set, size_t sz)
{
	const unsigned char *p = set;
	cli_json_open(j, key, '[', CLI_JSON_INLINE);
	for (size_t i = 0; i < sz * 8; i++)
		if (p[i / 8] & (1u << (i % 8)))
			cli_json_value(j, NULL, "%zu", i);
	cli_json_close(j);
}

static const char *cache_type_name(enum NUMA_cache_type t)
{
	return t == NUMA_CACHE_DATA ? "data" : t == NUMA_CACHE_INSTRUCTION ? "instr" : "unified";
}

static const char *cache_label(const struct NUMA_cache *c, char *buf, size_t len)
{
	snprintf(buf, len, "L%u%s", c->level,
		 c->type == NUMA_CACHE_DATA	     ? "d"
		 : c->type == NUMA_CACHE_INSTRUCTION ? "i"
						     : "");
	return buf;
}

static void size_text(char *buf, size_t len, uint64_t bytes)
{
	if (bytes == 0)
		snprintf(buf, len, "?");
	else if (bytes % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(bytes >> 30));
	else if (bytes % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(bytes >> 20));
	else if (bytes % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
}

struct topo_view {
	NUMA_topo *t;
	const char *fsroot;
	char topo_why[512];
	struct NUMA_dimm dimm[TOPO_MAXDIMM];
	int ndimm;
	char dimm_why[512];
	struct NUMA_edac_mc mc[TOPO_MAXMC];
	int nmc;
	char edac_why[512];
	cpu_set_t *a, *b, *one;
	memnode_set_t *n;
};

/* v->one: CPU cpu alone. */
static void one_cpu(struct topo_view *v, int cpu)
{
	CPU_ZERO_S(TOPO_SETSZ, v->one);
	CPU_SET_S(cpu, TOPO_SETSZ, v->one);
}

/* Memory node `node`: its memory in *mem and its CPUs in v->a. 0, or -1 when there is no
 * such node. */
static int node_cpus(struct topo_view *v, int node, uint64_t *mem)
{
	size_t sz = TOPO_SETSZ;
	if (NUMA_topo_memnode_memory(v->t, node, mem))
		return -1;
	MEMNODE_ZERO_S(sz, v->n);
	MEMNODE_SET_S(node, sz, v->n);
	NUMA_topo_memnode_to_cpu(v->t, sz, v->n, sz, v->a);
	return 0;
}

static void print_cpus(FILE *f, struct topo_view *v)
{
	size_t sz = TOPO_SETSZ;
	int max = NUMA_topo_cpu_max(v->t);
	fprintf(f,
		"\nCPUs (threads: the same core, level 1; package: the same package, level 2)\n");
	fprintf(f, "  cpu  pkg  die  core  node  threads     package\n");
	for (int cpu = 0; cpu < max; cpu++) {
		struct NUMA_cpu_place pl;
		if (NUMA_topo_cpu_place(v->t, cpu, &pl))
			continue;
		one_cpu(v, cpu);
		NUMA_topo_cpu_level_mask(v->t, sz, v->a, sz, v->one, 1);
		NUMA_topo_cpu_level_mask(v->t, sz, v->b, sz, v->one, 2);
		char th[64], num[4][16];
		int vals[4] = { pl.package, pl.die, pl.core, pl.node };
		for (int i = 0; i < 4; i++)
			snprintf(num[i], sizeof num[i], vals[i] < 0 ? "-" : "%d", vals[i]);
		NUMA_set_format(th, sizeof th, sz, v->a);
		fprintf(f, "  %3d  %3s  %3s  %4s  %4s  %-10s  ", cpu, num[0], num[1], num[2],
			num[3], th);
		print_list(f, v->b, sz, 48, 80);
	}
}

static int same_geometry(const struct NUMA_cache *a, const struct NUMA_cache *b)
{
	return a->level == b->level && a->type == b->type && a->size == b->size &&
	       a->line_size == b->line_size && a->ways == b->ways;
}

/* One row per kind of cache (level, type, size, line, ways); the row lists each cache of
 * that kind by the CPUs sharing it, separated by '|'. */
static void print_caches(FILE *f, struct topo_view *v)
{
	size_t sz = TOPO_SETSZ;
	int n = NUMA_topo_cache_count(v->t);
	if (n <= 0) {
		fprintf(f, "\ncaches: unknown: neither sysfs nor the processor describes them\n");
		return;
	}
	fprintf(f, "\ncaches (one entry per cache: the CPUs sharing it)\n");
	fprintf(f, "  cache  type      size     line  ways  CPUs\n");
	struct NUMA_cache prev = { 0 }, c;
	int x = 0;
	for (int i = 0; i < n; i++) {
		if (NUMA_topo_cache_get(v->t, i, &c, sz, v->a))
			continue;
		if (i == 0 || !same_geometry(&c, &prev)) {
			char lbl[16], size[32], line[16], ways[16];
			size_text(size, sizeof size, c.size);
			snprintf(line, sizeof line, c.line_size ? "%u" : "?", c.line_size);
			snprintf(ways, sizeof ways,
				 c.ways > 0   ? "%d"
				 : c.ways < 0 ? "full"
					      : "?",
				 c.ways);
			fprintf(f, "%s  %-5s  %-8s  %-8s %4s  %4s  ", i ? "\n" : "",
				cache_label(&c, lbl, sizeof lbl), cache_type_name(c.type), size,
				line, ways);
			x = 45;
		} else {
			fprintf(f, " |");
			x += 2;
		}
		char list[4096];
		int len = NUMA_set_format(list, sizeof list, sz, v->a);
		if (x > 45 && x + 1 + len > 80) {
			fprintf(f, "\n%*s", 45, "");
			x = 45;
		} else if (x > 45) {
			fputc(' ', f);
			x++;
		}
		fprintf(f, "%s", list);
		x += len;
		prev = c;
	}
	fputc('\n', f);
}

static void print_nodes(FILE *f, struct topo_view *v)
{
	size_t sz = TOPO_SETSZ;
	int max = NUMA_topo_memnode_max(v->t);
	fprintf(f, "\nNUMA nodes (memory, and the CPUs it is attached to)\n");
	fprintf(f, "  node  memory      CPUs\n");
	for (int node = 0; node < max; node++) {
		uint64_t mem;
		if (node_cpus(v, node, &mem))
			continue;
		char m[32];
		snprintf(m, sizeof m, "%llu MiB", (unsigned long long)((mem + (1u << 19)) >> 20));
		fprintf(f, "  %4d  %-10s  ", node, m);
		if (CPU_COUNT_S(sz, v->a))
			print_list(f, v->a, sz, 20, 80);
		else
			fprintf(f, "(none)\n");
	}
	if (NUMA_topo_distance(v->t, 0, 0) < 0 && errno == ENODATA) {
		fprintf(f, "distances: the firmware gives none\n");
		return;
	}
	/* The matrix in blocks of 16 columns, so that 64 nodes still fit 80 columns. */
	int nodes[TOPO_NBITS], nn = 0;
	for (int node = 0; node < max; node++)
		if (NUMA_topo_distance(v->t, node, node) >= 0)
			nodes[nn++] = node;
	fprintf(f, "distances (relative, 10 = local)\n");
	for (int c0 = 0; c0 < nn; c0 += 16) {
		fprintf(f, "  from\\to");
		for (int c = c0; c < nn && c < c0 + 16; c++)
			fprintf(f, "%4d", nodes[c]);
		fputc('\n', f);
		for (int r = 0; r < nn; r++) {
			fprintf(f, "  %7d", nodes[r]);
			for (int c = c0; c < nn && c < c0 + 16; c++)
				fprintf(f, "%4d", NUMA_topo_distance(v->t, nodes[r], nodes[c]));
			fputc('\n', f);
		}
	}
}

static const char *registered_text(int r)
{
	return r == 1 ? "registered" : r == 0 ? "unbuffered" : "?";
}

static void print_dimms(FILE *f, struct topo_view *v)
{
	if (v->ndimm < 0) {
		fprintf(f, "\nmemory modules: unknown: %s\n", v->dimm_why);
		return;
	}
	int used = 0;
	for (int i = 0; i < v->ndimm && i < TOPO_MAXDIMM; i++)
		used += v->dimm[i].size_mb > 0;
	fprintf(f, "\nmemory modules (SMBIOS type 17): %d slots, %d in use\n", v->ndimm, used);
	fprintf(f, "  slot       type   size      speed      buffer      width  ECC check bits\n");
	for (int i = 0; i < v->ndimm && i < TOPO_MAXDIMM; i++) {
		const struct NUMA_dimm *d = &v->dimm[i];
		if (!d->size_mb) {
			fprintf(f, "  %-10s (empty)\n", d->locator);
			continue;
		}
		char size[32], speed[32], width[32], ecc[48];
		snprintf(size, sizeof size, "%llu MB", (unsigned long long)d->size_mb);
		snprintf(speed, sizeof speed, d->speed_mts ? "%u MT/s" : "?", d->speed_mts);
		if (d->total_width && d->data_width)
			snprintf(width, sizeof width, "%u/%u", d->total_width, d->data_width);
		else
			snprintf(width, sizeof width, "?");
		if (d->check_bits > 0)
			snprintf(ecc, sizeof ecc, "%d bits %s", d->check_bits, d->ecc);
		else
			snprintf(ecc, sizeof ecc, "%s", d->ecc);
		fprintf(f, "  %-10s %-6s %-9s %-10s %-11s %-6s %s\n", d->locator, d->type, size,
			speed, registered_text(d->registered), width, ecc);
	}
}

/* Table 11.1 for one data width: SEC and SEC/DED check bits and their overhead. */
static void print_ecc_row(FILE *f, unsigned w)
{
	unsigned sec, secded;

	if (NUMA_ecc_bits(w, &sec, &secded))
		return;
	/* tenths of a percent rounded half up, as the article's table rounds 31.25 */
	unsigned long long o1 = (1000ull * sec + w / 2) / w, o2 = (1000ull * secded + w / 2) / w;
	char a[16], b[16];
	snprintf(a, sizeof a, "%llu.%llu%%", o1 / 10, o1 % 10);
	snprintf(b, sizeof b, "%llu.%llu%%", o2 / 10, o2 % 10);
	fprintf(f, "  %5u  %5u  %8s  %7u  %8s\n", w, sec, a, secded, b);
}

static void print_ecc_head(FILE *f, const char *what)
{
	fprintf(f, "\n%s (Table 11.1)\n", what);
	fprintf(f, "  SEC needs E = ceil(log2(W+E+1)) check bits for W data bits, SEC/DED E+1\n");
	fprintf(f, "  %5s  %5s  %8s  %7s  %8s\n", "W", "SEC E", "overhead", "SEC/DED", "overhead");
}

/* The modules' data widths, each once, in the order met. */
static void print_dimm_ecc(FILE *f, struct topo_view *v)
{
	unsigned seen[TOPO_MAXDIMM];
	int n = 0;

	for (int i = 0; i < v->ndimm && i < TOPO_MAXDIMM; i++) {
		const struct NUMA_dimm *d = &v->dimm[i];
		int dup = 0;
		if (!d->size_mb || !d->data_width)
			continue;
		for (int k = 0; k < n; k++)
			dup |= seen[k] == d->data_width;
		if (!dup)
			seen[n++] = d->data_width;
	}
	if (!n)
		return;
	print_ecc_head(f, "ECC check bits for the modules' data width");
	for (int k = 0; k < n; k++)
		print_ecc_row(f, seen[k]);
}

static void print_edac(FILE *f, struct topo_view *v)
{
	if (v->nmc < 0) {
		fprintf(f, "\nEDAC: unknown: %s\n", v->edac_why);
		return;
	}
	fprintf(f, "\nmemory controllers (EDAC): errors since the driver loaded or was reset\n");
	fprintf(f, "  mc  ECC mode   memory type        size        corrected  uncorrected\n");
	for (int i = 0; i < v->nmc && i < TOPO_MAXMC; i++) {
		const struct NUMA_edac_mc *m = &v->mc[i];
		char size[32];
		snprintf(size, sizeof size, "%llu MB", (unsigned long long)m->size_mb);
		fprintf(f, "  %2d  %-9s  %-17s  %-10s  %9llu  %11llu\n", m->index,
			m->edac_mode[0] ? m->edac_mode : "?", m->mem_type[0] ? m->mem_type : "?",
			size, (unsigned long long)m->ce_count, (unsigned long long)m->ue_count);
		if (m->name[0])
			fprintf(f, "      %s\n", m->name);
	}
}

static void print_text(FILE *f, struct topo_view *v)
{
	if (v->t) {
		int packages = 0, cores = 0, max = NUMA_topo_cpu_max(v->t);
		/* count distinct packages and cores from level-2 and level-1 sets */
		cpu_set_t *seen_p = CPU_ALLOC(TOPO_NBITS), *seen_c = CPU_ALLOC(TOPO_NBITS);
		size_t sz = TOPO_SETSZ;
		CPU_ZERO_S(sz, seen_p);
		CPU_ZERO_S(sz, seen_c);
		for (int cpu = 0; cpu < max; cpu++) {
			one_cpu(v, cpu);
			if (NUMA_topo_cpu_level_mask(v->t, sz, v->a, sz, v->one, 2) < 0)
				continue;
			if (!CPU_ISSET_S(cpu, sz, seen_p)) {
				packages++;
				CPU_OR_S(sz, seen_p, seen_p, v->a);
			}
			NUMA_topo_cpu_level_mask(v->t, sz, v->a, sz, v->one, 1);
			if (!CPU_ISSET_S(cpu, sz, seen_c)) {
				cores++;
				CPU_OR_S(sz, seen_c, seen_c, v->a);
			}
		}
		CPU_FREE(seen_p);
		CPU_FREE(seen_c);
		int ncpu = NUMA_topo_cpu_count(v->t), nnode = NUMA_topo_memnode_count(v->t);
		fprintf(f, "machine %s: %d CPU%s, %d core%s, %d package%s, %d NUMA node%s\n",
			v->fsroot, ncpu, ncpu == 1 ? "" : "s", cores, cores == 1 ? "" : "s",
			packages, packages == 1 ? "" : "s", nnode, nnode == 1 ? "" : "s");
		print_cpus(f, v);
		print_caches(f, v);
		print_nodes(f, v);
	} else {
		fprintf(f, "machine %s: CPUs, caches and nodes unknown: %s\n", v->fsroot,
			v->topo_why);
	}
	print_dimms(f, v);
	print_dimm_ecc(f, v);
	print_edac(f, v);
}

/* The CPUs with their places and sibling sets, the caches, the memory nodes with their
 * distances (null: the machine gives none). */
static void json_topology(struct cli_json *j, struct topo_view *v)
{
	size_t sz = TOPO_SETSZ;
	cli_json_open(j, "cpus", '[', CLI_JSON_LINES_OPEN);
	int max = NUMA_topo_cpu_max(v->t);
	for (int cpu = 0; cpu < max; cpu++) {
		struct NUMA_cpu_place pl;
		if (NUMA_topo_cpu_place(v->t, cpu, &pl))
			continue;
		one_cpu(v, cpu);
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(j, "cpu", "%d", cpu);
		cli_json_value(j, "package", "%d", pl.package);
		cli_json_value(j, "die", "%d", pl.die);
		cli_json_value(j, "core", "%d", pl.core);
		cli_json_value(j, "node", "%d", pl.node);
		static const char *const names[] = { "threads", "package_cpus", "node_cpus" };
		for (unsigned lvl = 1; lvl <= 3; lvl++) {
			NUMA_topo_cpu_level_mask(v->t, sz, v->a, sz, v->one, lvl);
			json_list(j, names[lvl - 1], v->a, sz);
		}
		cli_json_close(j);
	}
	cli_json_close(j);
	/* the rest one member a line */
	cli_json_relayout(j, CLI_JSON_LINES_OPEN);
	cli_json_open(j, "caches", '[', CLI_JSON_LINES_OPEN);
	int n = NUMA_topo_cache_count(v->t);
	for (int i = 0; i < n; i++) {
		struct NUMA_cache c;
		if (NUMA_topo_cache_get(v->t, i, &c, sz, v->a))
			continue;
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(j, "level", "%u", c.level);
		cli_json_string(j, "type", cache_type_name(c.type));
		cli_json_value(j, "size", "%llu", (unsigned long long)c.size);
		cli_json_value(j, "line_size", "%u", c.line_size);
		cli_json_value(j, "ways", "%d", c.ways);
		json_list(j, "cpus", v->a, sz);
		cli_json_close(j);
	}
	cli_json_close(j);
	cli_json_open(j, "nodes", '[', CLI_JSON_LINES_OPEN);
	max = NUMA_topo_memnode_max(v->t);
	for (int node = 0; node < max; node++) {
		uint64_t mem;
		if (node_cpus(v, node, &mem))
			continue;
		cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
		cli_json_value(j, "node", "%d", node);
		cli_json_value(j, "memory", "%llu", (unsigned long long)mem);
		json_list(j, "cpus", v->a, sz);
		if (NUMA_topo_distance(v->t, node, node) < 0) {
			cli_json_value(j, "distances", "null");
		} else {
			cli_json_open(j, "distances", '{', CLI_JSON_INLINE);
			for (int to = 0; to < max; to++) {
				int d = NUMA_topo_distance(v->t, node, to);
				char key[16];
				snprintf(key, sizeof(key), "%d", to);
				if (d >= 0)
					cli_json_value(j, key, "%d", d);
			}
			cli_json_close(j);
		}
		cli_json_close(j);
	}
	cli_json_close(j);
}

/* The memory modules (SMBIOS) and the memory controllers' error counts (EDAC). */
static void json_memory(struct cli_json *j, struct topo_view *v)
{
	if (v->ndimm < 0) {
		cli_json_string(j, "dimms_missing", v->dimm_why);
	} else {
		cli_json_open(j, "dimms", '[', CLI_JSON_LINES_OPEN);
		for (int i = 0; i < v->ndimm && i < TOPO_MAXDIMM; i++) {
			const struct NUMA_dimm *d = &v->dimm[i];
			cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
			cli_json_string(j, "locator", d->locator);
			cli_json_string(j, "bank", d->bank);
			cli_json_string(j, "type", d->type);
			cli_json_value(j, "size_mb", "%llu", (unsigned long long)d->size_mb);
			cli_json_value(j, "speed_mts", "%u", d->speed_mts);
			cli_json_value(j, "configured_mts", "%u", d->configured_mts);
			cli_json_value(j, "registered", "%s",
				       d->registered < 0 ? "null" : d->registered ? "true" : "false");
			cli_json_value(j, "total_width", "%u", d->total_width);
			cli_json_value(j, "data_width", "%u", d->data_width);
			cli_json_value(j, "check_bits", "%d", d->check_bits);
			cli_json_string(j, "ecc", d->ecc);
			unsigned sec, secded;
			if (!NUMA_ecc_bits(d->data_width, &sec, &secded)) {
				cli_json_value(j, "sec_bits", "%u", sec);
				cli_json_value(j, "secded_bits", "%u", secded);
			}
			cli_json_close(j);
		}
		cli_json_close(j);
	}
	if (v->nmc < 0) {
		cli_json_string(j, "edac_missing", v->edac_why);
	} else {
		cli_json_open(j, "edac", '[', CLI_JSON_LINES_OPEN);
		for (int i = 0; i < v->nmc && i < TOPO_MAXMC; i++) {
			const struct NUMA_edac_mc *m = &v->mc[i];
			cli_json_open(j, NULL, '{', CLI_JSON_INLINE);
			cli_json_value(j, "mc", "%d", m->index);
			cli_json_string(j, "name", m->name);
			cli_json_string(j, "edac_mode", m->edac_mode);
			cli_json_string(j, "mem_type", m->mem_type);
			cli_json_value(j, "size_mb", "%llu", (unsigned long long)m->size_mb);
			cli_json_value(j, "ce_count", "%llu", (unsigned long long)m->ce_count);
			cli_json_value(j, "ue_count", "%llu", (unsigned long long)m->ue_count);
			cli_json_close(j);
		}
		cli_json_close(j);
	}
}

static void print_json(FILE *f, struct topo_view *v)
{
	struct cli_json j;
	cli_json_start(&j, f, ":", ",", 0);
	cli_json_open(&j, NULL, '{', CLI_JSON_INLINE);
	cli_json_string(&j, "fsroot", v->fsroot);
	if (!v->t) {
		cli_json_string(&j, "topology_missing", v->topo_why);
		cli_json_relayout(&j, CLI_JSON_LINES_OPEN);
	} else {
		json_topology(&j, v);
	}
	json_memory(&j, v);
	cli_json_close(&j);
	fputc('\n', f);
}

static int cmd_topology(int argc, char **argv)
{
	const char *fsroot = NULL, *ecc = NULL;
	int json = 0, nargs = 0;
	const struct cli_opt opts[] = {
		{ 0, "json", CLI_FLAG, &json, NULL, "print JSON instead of text" },
		{ 0, "ecc", CLI_STR, &ecc, "W[,W...]",
		  "print only the SEC and SEC/DED check bits and overhead for W data bits (Table 11.1)" },
		{ 0, "fsroot", CLI_STR, &fsroot, "DIR",
		  "show the machine whose /sys and /proc were copied under DIR" },
		{ 0, NULL, CLI_END, NULL, NULL, NULL },
	};
	int rc = cli_parse(&cli_cmd_topology, opts, argc, argv, &nargs);
	if (rc)
		return rc == 1 ? 0 : CLI_EXIT_USAGE;
	if (nargs > 0) {
		cli_error("topology", "takes no arguments (got '%s')", argv[1]);
		return CLI_EXIT_USAGE;
	}
	if (ecc) {
		unsigned w[64];
		int n = 0;
		for (const char *p = ecc; *p && n < 64;) {
			char *e;
			errno = 0;
			unsigned long x = strtoul(p, &e, 10);
			if (e == p || x == 0 || x > 65536 || errno || (*e && *e != ',') || *p == '-') {
				cli_error("topology", "--ecc %s: data widths are numbers of bits from 1 to 65536, comma-separated", ecc);
				return CLI_EXIT_USAGE;
			}
			w[n++] = (unsigned)x;
			p = *e ? e + 1 : e;
		}
		print_ecc_head(stdout, "ECC check bits");
		for (int k = 0; k < n; k++)
			print_ecc_row(stdout, w[k]);
		return 0;
	}
	if (fsroot && fsroot_check(fsroot))
		return CLI_EXIT_RUNTIME;
	/* hwloc's own complaints about a snapshot ("[hwloc/linux] failed to ...") are not
	 * memprof's messages: what is missing is said below, once */
	setenv("HWLOC_HIDE_ERRORS", "2", 0);
	struct topo_view *v = calloc(1, sizeof *v);
	if (!v)
		return CLI_EXIT_RUNTIME;
	v->fsroot = fsroot ? fsroot : "/";
	v->a = CPU_ALLOC(TOPO_NBITS);
	v->b = CPU_ALLOC(TOPO_NBITS);
	v->one = CPU_ALLOC(TOPO_NBITS);
	v->n = MEMNODE_ALLOC(TOPO_NBITS);
	v->t = NUMA_topo_open(fsroot);
	if (!v->t) {
		int e = errno;
		struct stat st;
		if (fsroot && (e == ENOTDIR || (e == ENOENT && stat(fsroot, &st)))) {
			cli_error("topology", "--fsroot %s: %s", fsroot, strerror(e));
			rc = CLI_EXIT_RUNTIME;
			goto out;
		}
		if (e == ENOSYS || e == ENOENT)
			snprintf(v->topo_why, sizeof v->topo_why,
				 "no %s%ssys/devices/system/cpu (sysfs not mounted: a chroot or a container without /sys)",
				 v->fsroot, v->fsroot[strlen(v->fsroot) - 1] == '/' ? "" : "/");
		else
			snprintf(v->topo_why, sizeof v->topo_why,
				 "hwloc could not read %s%ssys/devices/system (%s)", v->fsroot,
				 v->fsroot[strlen(v->fsroot) - 1] == '/' ? "" : "/", strerror(e));
	}
	v->ndimm = NUMA_dimm_read(fsroot, v->dimm, TOPO_MAXDIMM);
	if (v->ndimm < 0)
		why_missing(v->dimm_why, sizeof v->dimm_why, v->fsroot, "sys/firmware/dmi/entries",
			    errno, dmi_absent);
	else if (v->ndimm == 0)
		snprintf(v->dimm_why, sizeof v->dimm_why, "no SMBIOS type 17 entry decodes");
	v->nmc = NUMA_edac_read(fsroot, v->mc, TOPO_MAXMC);
	if (v->nmc < 0)
		why_missing(v->edac_why, sizeof v->edac_why, v->fsroot,
			    "sys/devices/system/edac/mc", errno, edac_absent);
	if (json)
		print_json(stdout, v);
	else
		print_text(stdout, v);
	rc = 0;
out:
	NUMA_topo_close(v->t);
	CPU_FREE(v->a);
	CPU_FREE(v->b);
	CPU_FREE(v->one);
	MEMNODE_FREE(v->n);
	free(v);
	return rc;
}

const struct cli_cmd cli_cmd_topology = {
	"topology",
	cmd_topology,
	"CPUs, caches, NUMA nodes, memory modules and ECC of a machine",
	"[--json] [--fsroot DIR] | --ecc W[,W...]",
	"For each CPU its hardware-thread siblings, package siblings, package, core and\n"
	"NUMA node; each cache with its size, line size, associativity and the CPUs\n"
	"sharing it; the NUMA nodes with their memory and distances; the memory modules\n"
	"(SMBIOS type 17: type, size, speed, registered or unbuffered, ECC check bits) and\n"
	"the EDAC memory controllers (ECC mode, memory type, corrected and uncorrected\n"
	"errors), and the SEC and SEC/DED check bits for the modules' data width. What\n"
	"cannot be read is said in one line, with the reason. --ecc prints the check bits\n"
	"for any data widths (the article's Table 11.1: --ecc 4,8,16,32,64).",
	0,
};
