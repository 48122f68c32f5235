/* The numa library on a real multi-node kernel (the pmulab guest booted with two NUMA
 * nodes and two sockets, docs/pmulab.md): each check prints "ok ..." or "FAIL ..."; the
 * exit status is the number of failures. Expected values come from the guest's own sysfs
 * and from move_pages after touching, never typed in. */
#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memprof/numa.h>

static int fails;

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void check(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%s ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fails += !ok;
}

static int read_list(const char *path, size_t sz, void *set)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof buf, f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	return NUMA_set_parse(buf, sz, set);
}

/* the node sysfs links to CPU `cpu` */
static int sysfs_node_of(int cpu)
{
	for (int n = 0; n < 64; n++) {
		char p[128];
		snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/node%d", cpu, n);
		if (access(p, F_OK) == 0)
			return n;
	}
	return -1;
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof s, &s))
		perror("sched_setaffinity");
}

static unsigned long one_node(int node)
{
	return 1UL << node;
}

int main(void)
{
	size_t sz = CPU_ALLOC_SIZE(1024);
	cpu_set_t *one = CPU_ALLOC(1024), *got = CPU_ALLOC(1024), *want = CPU_ALLOC(1024);
	memnode_set_t nodes, wantn;
	long page = sysconf(_SC_PAGESIZE);

	int nn = NUMA_memnode_system_count();
	read_list("/sys/devices/system/node/online", sizeof wantn, &wantn);
	check(nn == MEMNODE_COUNT_S(sizeof wantn, &wantn) && nn == 2,
	      "NUMA_memnode_system_count %d, sysfs node/online has %d", nn,
	      MEMNODE_COUNT_S(sizeof wantn, &wantn));
	int ncpu = NUMA_cpu_system_count();
	check(ncpu == sysconf(_SC_NPROCESSORS_ONLN), "NUMA_cpu_system_count %d", ncpu);

	/* every CPU: the current CPU and node follow sched_setaffinity; levels 1 and 2 and the
	 * CPU's node against sysfs */
	for (int cpu = 0; cpu < ncpu; cpu++) {
		pin(cpu);
		int cur = NUMA_cpu_self_current_idx(), node = NUMA_memnode_self_current_idx();
		check(cur == cpu, "pinned to CPU %d: NUMA_cpu_self_current_idx %d", cpu, cur);
		check(node == sysfs_node_of(cpu), "pinned to CPU %d: NUMA_memnode_self_current_idx %d, sysfs node%d",
		      cpu, node, sysfs_node_of(cpu));
		CPU_ZERO_S(sz, one);
		CPU_SET_S(cpu, sz, one);
		char p[128], g[256], w[256];
		static const char *const files[] = { "thread_siblings_list", "core_siblings_list" };
		for (unsigned lvl = 1; lvl <= 2; lvl++) {
			snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, files[lvl - 1]);
			read_list(p, sz, want);
			ssize_t n = NUMA_cpu_level_mask(sz, got, sz, one, lvl);
			NUMA_set_format(g, sizeof g, sz, got);
			NUMA_set_format(w, sizeof w, sz, want);
			check(n == CPU_COUNT_S(sz, want) && !memcmp(got, want, sz),
			      "CPU %d level %u {%s}, sysfs %s {%s}", cpu, lvl, g, files[lvl - 1], w);
		}
		NUMA_cpu_to_memnode(sz, one, sizeof nodes, &nodes);
		check(MEMNODE_COUNT_S(sizeof nodes, &nodes) == 1 &&
			      MEMNODE_ISSET_S(sysfs_node_of(cpu), sizeof nodes, &nodes),
		      "NUMA_cpu_to_memnode(CPU %d) is node %d alone", cpu, sysfs_node_of(cpu));
	}
	for (int n = 0; n < nn; n++) {
		char p[128], g[256], w[256];
		MEMNODE_ZERO_S(sizeof nodes, &nodes);
		MEMNODE_SET_S(n, sizeof nodes, &nodes);
		NUMA_memnode_to_cpu(sizeof nodes, &nodes, sz, got);
		snprintf(p, sizeof p, "/sys/devices/system/node/node%d/cpulist", n);
		read_list(p, sz, want);
		NUMA_set_format(g, sizeof g, sz, got);
		NUMA_set_format(w, sizeof w, sz, want);
		check(!memcmp(got, want, sz), "NUMA_memnode_to_cpu(node %d) {%s}, sysfs cpulist {%s}", n, g, w);
	}

	/* memory bound to node 1 (mbind), from a CPU of node 0: untouched pages say where the
	 * policy puts them, touched ones where they are */
	pin(0);
	size_t len = 16 * (size_t)page;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long mask = one_node(1);
	int rc = mbind(m, len, MPOL_BIND, &mask, 64, 0);
	check(rc == 0, "mbind MPOL_BIND node 1: %s", rc ? strerror(errno) : "done");
	check(NUMA_mem_get_node_idx(m) == 1, "untouched, bound to node 1: NUMA_mem_get_node_idx %d",
	      NUMA_mem_get_node_idx(m));
	memset(m, 1, len);
	int status = -1;
	void *pg = m;
	move_pages(0, 1, &pg, NULL, &status, 0);
	check(status == 1 && NUMA_mem_get_node_idx(m + 5 * page) == 1,
	      "touched, bound to node 1: move_pages %d, NUMA_mem_get_node_idx %d", status,
	      NUMA_mem_get_node_idx(m + 5 * page));
	int k = NUMA_mem_get_node_mask(m, len, sizeof nodes, &nodes);
	check(k == 1 && MEMNODE_ISSET_S(1, sizeof nodes, &nodes), "NUMA_mem_get_node_mask: %d node(s), node 1 %s",
	      k, MEMNODE_ISSET_S(1, sizeof nodes, &nodes) ? "in" : "not in");
	munmap(m, len);

	/* no policy: untouched pages go to the local node, for a CPU of each node */
	for (int cpu = 0; cpu < ncpu; cpu++) {
		pin(cpu);
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int pred = NUMA_mem_get_node_idx(m);
		m[0] = 1;
		pg = m;
		move_pages(0, 1, &pg, NULL, &status, 0);
		check(pred == sysfs_node_of(cpu) && status == pred,
		      "CPU %d, default policy: untouched page predicted on node %d, touched on %d", cpu,
		      pred, status);
		munmap(m, len);
	}

	/* the thread's policy (set_mempolicy MPOL_PREFERRED node 1) from node 0 */
	pin(0);
	mask = one_node(1);
	set_mempolicy(MPOL_PREFERRED, &mask, 64);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int pred = NUMA_mem_get_node_idx(m);
	m[0] = 1;
	pg = m;
	move_pages(0, 1, &pg, NULL, &status, 0);
	check(pred == 1 && status == 1, "thread prefers node 1: predicted %d, touched on %d", pred, status);
	munmap(m, len);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);

	/* interleave over both nodes: each untouched page's predicted node is where it lands */
	mask = one_node(0) | one_node(1);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mbind(m, len, MPOL_INTERLEAVE, &mask, 64, 0);
	int preds[16], agree = 0;
	for (int i = 0; i < 16; i++)
		preds[i] = NUMA_mem_get_node_idx(m + i * page);
	k = NUMA_mem_get_node_mask(m, len, sizeof nodes, &nodes);
	memset(m, 1, len);
	for (int i = 0; i < 16; i++) {
		pg = m + i * page;
		move_pages(0, 1, &pg, NULL, &status, 0);
		agree += status == preds[i];
	}
	check(k == 2 && agree == 16, "interleave: mask of %d nodes, %d of 16 pages where predicted", k, agree);
	munmap(m, len);
	printf("numacheck: %d failure(s)\n", fails);
	return fails;
}
