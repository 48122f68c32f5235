/* The machine's topology in perf's header features, built through memprof's numa library:
 * HEADER_CPU_TOPOLOGY (package and thread sibling lists, then each CPU's core and socket),
 * HEADER_NUMA_TOPOLOGY (each node's memory and CPUs) and HEADER_CACHE (each distinct cache
 * with the CPUs sharing it), laid out as perf's write_cpu_topology, write_numa_topology and
 * write_cache (tools/perf/util/header.c) write them. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memprof/numa.h"
#include "mp_pdw_int.h"

struct lists {
	char **s;
	size_t n, cap;
};

/* Adds `s` unless present (perf lists each sibling set once). */
static int add_unique(struct lists *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], s))
			return 0;
	if (MP_GROW(l->s, l->cap, l->n + 1))
		return -ENOMEM;
	if (!(l->s[l->n] = strdup(s)))
		return -ENOMEM;
	l->n++;
	return 0;
}

static void lists_free(struct lists *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
}

/* The first line of /sys/devices/system/cpu/cpuN/topology/NAME, without its newline. */
static int read_line_at(int cpu, const char *name, char *buf, size_t len)
{
	char path[128];
	snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int cpu_topology(NUMA_topo *t, int avail, size_t sz, cpu_set_t *one, cpu_set_t *set,
			struct mp_buf *b)
{
	struct lists core = { 0 }, thread = { 0 }, die = { 0 };
	char text[16384];
	int rc = 0, have_die = 0;
	int max = NUMA_topo_cpu_max(t);
	for (int cpu = 0; cpu < max && !rc; cpu++) {
		struct NUMA_cpu_place pl;
		if (NUMA_topo_cpu_place(t, cpu, &pl))
			continue;
		CPU_ZERO_S(sz, one);
		CPU_SET_S(cpu, sz, one);
		if (NUMA_topo_cpu_level_mask(t, sz, set, sz, one, 2) < 0)
			rc = -errno;
		NUMA_set_format(text, sizeof text, sz, set);
		if (!rc)
			rc = add_unique(&core, text);
		if (!rc && NUMA_topo_cpu_level_mask(t, sz, set, sz, one, 1) < 0)
			rc = -errno;
		NUMA_set_format(text, sizeof text, sz, set);
		if (!rc)
			rc = add_unique(&thread, text);
		/* its die's CPUs, where the kernel reports dies (hwloc leaves out a die level
		 * of one die per package, perf reads sysfs): die_cpus_list */
		if (!rc && read_line_at(cpu, "die_cpus_list", text, sizeof text) == 0) {
			have_die = 1;
			rc = add_unique(&die, text);
		}
	}
	if (!rc && mp_pdw_put_u32(b, (uint32_t)core.n))
		rc = -ENOMEM;
	for (size_t i = 0; i < core.n && !rc; i++)
		rc = mp_pdw_put_string(b, core.s[i]) ? -ENOMEM : 0;
	if (!rc && mp_pdw_put_u32(b, (uint32_t)thread.n))
		rc = -ENOMEM;
	for (size_t i = 0; i < thread.n && !rc; i++)
		rc = mp_pdw_put_string(b, thread.s[i]) ? -ENOMEM : 0;
	/* core and socket of every CPU perf counts (HEADER_NRCPUS "available"); -1 for the
	 * ones the topology does not have (offline) */
	for (int cpu = 0; cpu < avail && !rc; cpu++) {
		struct NUMA_cpu_place pl = { -1, -1, -1, -1 };
		NUMA_topo_cpu_place(t, cpu, &pl);
		if (mp_pdw_put_u32(b, (uint32_t)pl.core) || mp_pdw_put_u32(b, (uint32_t)pl.package))
			rc = -ENOMEM;
	}
	/* then, where the kernel reports dies, the die sibling lists and each CPU's die (perf
	 * reads files without this part as written before Linux 5.2) */
	if (!rc && have_die && mp_pdw_put_u32(b, (uint32_t)die.n))
		rc = -ENOMEM;
	for (size_t i = 0; have_die && i < die.n && !rc; i++)
		rc = mp_pdw_put_string(b, die.s[i]) ? -ENOMEM : 0;
	for (int cpu = 0; have_die && cpu < avail && !rc; cpu++) {
		char v[32];
		int id = read_line_at(cpu, "die_id", v, sizeof v) == 0 ? atoi(v) : -1;
		if (mp_pdw_put_u32(b, (uint32_t)id))
			rc = -ENOMEM;
	}
	lists_free(&core);
	lists_free(&thread);
	lists_free(&die);
	return rc;
}

static int numa_topology(NUMA_topo *t, size_t sz, cpu_set_t *set, memnode_set_t *nodes,
			 struct mp_buf *b)
{
	int max = NUMA_topo_memnode_max(t), n = 0;
	for (int node = 0; node < max; node++) {
		uint64_t m;
		n += NUMA_topo_memnode_memory(t, node, &m) == 0;
	}
	if (mp_pdw_put_u32(b, (uint32_t)n))
		return -ENOMEM;
	for (int node = 0; node < max; node++) {
		uint64_t mem, total, avail;
		if (NUMA_topo_memnode_memory(t, node, &mem))
			continue;
		/* perf reads the node's meminfo; hwloc's size where that is unreadable */
		if (NUMA_memnode_meminfo(node, &total, &avail)) {
			total = mem;
			avail = 0;
		}
		MEMNODE_ZERO_S(sz, nodes);
		MEMNODE_SET_S(node, sz, nodes);
		if (NUMA_topo_memnode_to_cpu(t, sz, nodes, sz, set) < 0)
			return -errno;
		char text[16384];
		NUMA_set_format(text, sizeof text, sz, set);
		if (mp_pdw_put_u32(b, (uint32_t)node) || mp_pdw_put_u64(b, total / 1024) ||
		    mp_pdw_put_u64(b, avail / 1024) || mp_pdw_put_string(b, text))
			return -ENOMEM;
	}
	return 0;
}

static int caches(NUMA_topo *t, size_t sz, cpu_set_t *set, struct mp_buf *b)
{
	int n = NUMA_topo_cache_count(t);
	if (n <= 0)
		return -ENOENT;
	/* perf lists each cache of the machine once: distinct (level, type, CPUs) */
	if (mp_pdw_put_u32(b, 1) || mp_pdw_put_u32(b, (uint32_t)n))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct NUMA_cache c;
		if (NUMA_topo_cache_get(t, i, &c, sz, set))
			return -errno;
		unsigned ways = c.ways > 0 ? (unsigned)c.ways
			      : c.ways < 0 && c.line_size ? (unsigned)(c.size / c.line_size) : 0;
		unsigned sets = ways && c.line_size ? (unsigned)(c.size / ((uint64_t)ways * c.line_size))
						    : 0;
		char size[32], map[16384];
		snprintf(size, sizeof size, "%lluK", (unsigned long long)(c.size / 1024));
		NUMA_set_format(map, sizeof map, sz, set);
		const char *type = c.type == NUMA_CACHE_DATA ? "Data"
				   : c.type == NUMA_CACHE_INSTRUCTION ? "Instruction"
								      : "Unified";
		if (mp_pdw_put_u32(b, c.level) || mp_pdw_put_u32(b, c.line_size) || mp_pdw_put_u32(b, sets) ||
		    mp_pdw_put_u32(b, ways) || mp_pdw_put_string(b, type) || mp_pdw_put_string(b, size) || mp_pdw_put_string(b, map))
			return -ENOMEM;
	}
	return 0;
}

/* HEADER_MEM_TOPOLOGY as perf's write_mem_topology: version 1, the memory block size, then
 * each node's number, its count of memory blocks and the bitmap of its blocks
 * (/sys/devices/system/node/nodeN/memoryM), as perf reads them. -ENOENT where sysfs has no
 * memory blocks (perf then writes none either). */
static int mem_topology(const char *sysfs, struct mp_buf *b)
{
	char path[512], line[64];
	snprintf(path, sizeof path, "%s/devices/system/memory/block_size_bytes", sysfs);
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	unsigned long long bsize = 0;
	int ok = fgets(line, sizeof line, f) && sscanf(line, "%llx", &bsize) == 1 && bsize;
	fclose(f);
	if (!ok)
		return -ENOENT;
	struct node {
		uint64_t id, nbits;
		uint64_t *bits;
	} *nodes = NULL;
	size_t nn = 0, cap_nodes = 0;
	int rc = 0;
	snprintf(path, sizeof path, "%s/devices/system/node", sysfs);
	DIR *d = opendir(path);
	if (!d)
		return -ENOENT;
	struct dirent *de;
	while (!rc && (de = readdir(d))) {
		unsigned id;
		char c;
		if (sscanf(de->d_name, "node%u%c", &id, &c) != 1)
			continue;
		char np[600];
		snprintf(np, sizeof np, "%s/%s", path, de->d_name);
		DIR *nd = opendir(np);
		if (!nd)
			continue;
		if (MP_GROW(nodes, cap_nodes, nn + 1)) {
			closedir(nd);
			rc = -ENOMEM;
			break;
		}
		struct node *n = &nodes[nn++];
		*n = (struct node){ id, 0, NULL };
		size_t cap = 0;
		struct dirent *me;
		while ((me = readdir(nd))) {
			unsigned blk;
			if (sscanf(me->d_name, "memory%u%c", &blk, &c) != 1)
				continue;
			size_t words = blk / 64 + 1;
			if (MP_GROW_ZERO(n->bits, cap, words)) {
				rc = -ENOMEM;
				break;
			}
			n->bits[blk / 64] |= 1ULL << (blk % 64);
			if (blk + 1 > n->nbits)
				n->nbits = blk + 1;
		}
		closedir(nd);
	}
	closedir(d);
	/* perf lists the nodes in their number's order */
	for (size_t i = 1; i < nn; i++)
		for (size_t j = i; j > 0 && nodes[j - 1].id > nodes[j].id; j--) {
			struct node x = nodes[j];
			nodes[j] = nodes[j - 1];
			nodes[j - 1] = x;
		}
	size_t nblk = 0;
	for (size_t i = 0; i < nn; i++)
		nblk += nodes[i].nbits;
	if (!rc && (!nn || !nblk))
		rc = -ENOENT;
	if (!rc && (mp_pdw_put_u64(b, 1) || mp_pdw_put_u64(b, bsize) || mp_pdw_put_u64(b, nn)))
		rc = -ENOMEM;
	for (size_t i = 0; i < nn && !rc; i++) {
		const struct node *n = &nodes[i];
		if (mp_pdw_put_u64(b, n->id) || mp_pdw_put_u64(b, n->nbits) || mp_pdw_put_u64(b, n->nbits))
			rc = -ENOMEM;
		for (size_t k = 0; k < (n->nbits + 63) / 64 && !rc; k++)
			if (mp_pdw_put_u64(b, n->bits[k]))
				rc = -ENOMEM;
	}
	for (size_t i = 0; i < nn; i++)
		free(nodes[i].bits);
	free(nodes);
	return rc;
}

int mp_pdw_set_topology(mp_pdw *w)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	if (!t)
		return -errno;
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
	int avail = (int)(conf > onln ? conf : onln);
	if (avail < NUMA_topo_cpu_max(t))
		avail = NUMA_topo_cpu_max(t);
	int bits = NUMA_topo_cpu_max(t) > NUMA_topo_memnode_max(t) ? NUMA_topo_cpu_max(t)
								   : NUMA_topo_memnode_max(t);
	size_t sz = CPU_ALLOC_SIZE(bits + 1);
	cpu_set_t *one = CPU_ALLOC(bits + 1), *set = CPU_ALLOC(bits + 1);
	memnode_set_t *nodes = MEMNODE_ALLOC(bits + 1);
	struct mp_buf b[4] = { 0 };
	int rc = !one || !set || !nodes ? -ENOMEM : 0;
	if (!rc)
		rc = cpu_topology(t, avail, sz, one, set, &b[0]);
	if (!rc)
		rc = mp_pdw_set_feature(w, MP_HEADER_CPU_TOPOLOGY, b[0].data, b[0].len);
	if (!rc && !numa_topology(t, sz, set, nodes, &b[1]))
		rc = mp_pdw_set_feature(w, MP_HEADER_NUMA_TOPOLOGY, b[1].data, b[1].len);
	if (!rc && !caches(t, sz, set, &b[2]))
		rc = mp_pdw_set_feature(w, MP_HEADER_CACHE, b[2].data, b[2].len);
	if (!rc && !mem_topology("/sys", &b[3]))
		rc = mp_pdw_set_feature(w, MP_HEADER_MEM_TOPOLOGY, b[3].data, b[3].len);
	for (int i = 0; i < 4; i++)
		mp_buf_fini(&b[i]);
	CPU_FREE(one);
	CPU_FREE(set);
	MEMNODE_FREE(nodes);
	NUMA_topo_close(t);
	return rc;
}
