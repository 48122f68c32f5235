/* The article's handle-less calls: this machine's topology, this thread's affinity. */
#include "numa_internal.h"

#include <errno.h>
#include <stdio.h>

/* The thread's affinity in a set large enough for the kernel (sizes grow until
 * sched_getaffinity stops saying EINVAL); *size gets its size in bytes. */
static cpu_set_t *self_affinity(size_t *size)
{
	for (int ncpu = 1024; ncpu <= (1 << 22); ncpu *= 2) {
		size_t sz = CPU_ALLOC_SIZE(ncpu);
		cpu_set_t *s = CPU_ALLOC(ncpu);
		if (!s) {
			errno = ENOMEM;
			return NULL;
		}
		if (sched_getaffinity(0, sz, s) == 0) {
			*size = sz;
			return s;
		}
		CPU_FREE(s);
		if (errno != EINVAL)
			return NULL;
	}
	errno = EINVAL;
	return NULL;
}

/* Copies set `src` of srcsize bytes into dest of destsize bytes; ERANGE if it does not fit. */
static int copy_set(size_t destsize, void *dest, size_t srcsize, const void *src)
{
	const unsigned char *s = src;
	for (size_t i = destsize; i < srcsize; i++)
		if (s[i]) {
			errno = ERANGE;
			return -1;
		}
	memset(dest, 0, destsize);
	memcpy(dest, src, srcsize < destsize ? srcsize : destsize);
	return NUMA_set_count_(destsize, dest);
}

static int set_one(size_t destsize, void *dest, int idx)
{
	if (idx < 0)
		return -1;
	if ((size_t)idx / 8 >= destsize) {
		errno = ERANGE;
		return -1;
	}
	memset(dest, 0, destsize);
	((unsigned char *)dest)[idx / 8] |= (unsigned char)(1u << (idx % 8));
	return 1;
}

/* The end of a handle-less call on this machine's topology t: t closed, errno as the call
 * left it, the call's result n returned. */
static ssize_t system_done(NUMA_topo *t, ssize_t n)
{
	int e = errno;
	NUMA_topo_close(t);
	errno = e;
	return n;
}

int NUMA_cpu_system_count(void)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_cpu_count(t)) : -1;
}

int NUMA_cpu_system_mask(size_t destsize, cpu_set_t *dest)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_cpu_mask(t, destsize, dest)) : -1;
}

int NUMA_cpu_self_count(void)
{
	size_t sz;
	cpu_set_t *s = self_affinity(&sz);
	if (!s)
		return -1;
	int n = CPU_COUNT_S(sz, s);
	CPU_FREE(s);
	return n;
}

int NUMA_cpu_self_mask(size_t destsize, cpu_set_t *dest)
{
	size_t sz;
	cpu_set_t *s = self_affinity(&sz);
	if (!s)
		return -1;
	int n = copy_set(destsize, dest, sz, s);
	CPU_FREE(s);
	return n;
}

int NUMA_cpu_self_current_idx(void)
{
	return sched_getcpu();
}

int NUMA_cpu_self_current_mask(size_t destsize, cpu_set_t *dest)
{
	return set_one(destsize, dest, sched_getcpu());
}

ssize_t NUMA_cpu_level_mask(size_t destsize, cpu_set_t *dest, size_t srcsize, const cpu_set_t *src,
			    unsigned int level)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? system_done(t, NUMA_topo_cpu_level_mask(t, destsize, dest, srcsize, src, level))
		 : -1;
}

ssize_t NUMA_cpu_cache_mask(size_t destsize, cpu_set_t *dest, size_t srcsize, const cpu_set_t *src,
			    unsigned int cache_level)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? system_done(t, NUMA_topo_cpu_cache_mask(t, destsize, dest, srcsize, src,
							   cache_level))
		 : -1;
}

int NUMA_memnode_system_count(void)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_memnode_count(t)) : -1;
}

int NUMA_memnode_system_mask(size_t destsize, memnode_set_t *dest)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_memnode_mask(t, destsize, dest)) : -1;
}

int NUMA_memnode_self_mask(size_t destsize, memnode_set_t *dest)
{
	size_t sz;
	cpu_set_t *s = self_affinity(&sz);
	if (!s)
		return -1;
	NUMA_topo *t = NUMA_topo_open(NULL);
	int n = -1;
	if (t) {
		/* CPUs of the affinity mask that are offline are not in the topology. */
		hwloc_bitmap_t bm = numa_set_to_bitmap(sz, s);
		if (bm) {
			hwloc_bitmap_and(bm, bm, hwloc_topology_get_topology_cpuset(t->topo));
			hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
			if (nodes) {
				hwloc_cpuset_to_nodeset(t->topo, bm, nodes);
				n = numa_bitmap_to_set(nodes, destsize, dest);
				hwloc_bitmap_free(nodes);
			}
			hwloc_bitmap_free(bm);
		}
	}
	int e = errno;
	NUMA_topo_close(t);
	CPU_FREE(s);
	errno = e;
	return n;
}

int NUMA_memnode_self_current_idx(void)
{
	unsigned cpu, node;
	if (getcpu(&cpu, &node))
		return -1;
	return (int)node;
}

int NUMA_memnode_self_current_mask(size_t destsize, memnode_set_t *dest)
{
	return set_one(destsize, dest, NUMA_memnode_self_current_idx());
}

int NUMA_cpu_to_memnode(size_t cpusetsize, const cpu_set_t *cpuset, size_t memnodesize,
			memnode_set_t *memnodeset)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_cpu_to_memnode(t, cpusetsize, cpuset, memnodesize,
								memnodeset))
		 : -1;
}

int NUMA_cpu_to_memnode_tiers(size_t cpusetsize, const cpu_set_t *cpuset, size_t memnodesize,
			memnode_set_t *memnodeset)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_cpu_to_memnode_tiers(t, cpusetsize, cpuset, memnodesize,
								memnodeset))
		 : -1;
}

int NUMA_memnode_to_cpu(size_t memnodesize, const memnode_set_t *memnodeset, size_t cpusetsize,
			cpu_set_t *cpuset)
{
	NUMA_topo *t = NUMA_topo_open(NULL);
	return t ? (int)system_done(t, NUMA_topo_memnode_to_cpu(t, memnodesize, memnodeset,
								cpusetsize, cpuset))
		 : -1;
}

int NUMA_memnode_meminfo(int node, uint64_t *total, uint64_t *free_bytes)
{
	char path[96], line[256];
	snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", node);
	FILE *f = node >= 0 ? fopen(path, "re") : NULL;
	if (!f) {
		if (node < 0)
			errno = ENOENT;
		return -1;
	}
	int got = 0;
	*total = *free_bytes = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long kb;
		int n;
		if (sscanf(line, "Node %d MemTotal: %llu kB", &n, &kb) == 2) {
			*total = kb * 1024;
			got |= 1;
		} else if (sscanf(line, "Node %d MemFree: %llu kB", &n, &kb) == 2) {
			*free_bytes = kb * 1024;
			got |= 2;
		}
	}
	fclose(f);
	if (got != 3) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
