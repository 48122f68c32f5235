/* A program that uses memprof's numa library and nothing else of memprof: the article's
 * 12.1 and 12.2 (hyper-thread siblings, then the other cores of the processor, one CPU per
 * core) for the CPU given, printed as lists. Built with only
 * `pkg-config --cflags --libs memprof-numa` by tests/e2e/numa_pkgconfig.sh. */
#include <stdio.h>
#include <stdlib.h>

#include <memprof/numa.h>

int main(int argc, char **argv)
{
	int cpunr = argc > 1 ? atoi(argv[1]) : 0;
	int ncpu = NUMA_cpu_system_count();
	if (ncpu < 0) {
		perror("NUMA_cpu_system_count");
		return 1;
	}
	size_t sz = CPU_ALLOC_SIZE(4096);
	cpu_set_t *cur = CPU_ALLOC(4096), *hyperths = CPU_ALLOC(4096), *coreths = CPU_ALLOC(4096);
	CPU_ZERO_S(sz, cur);
	CPU_SET_S(cpunr, sz, cur);
	ssize_t nhts = NUMA_cpu_level_mask(sz, hyperths, sz, cur, 1);
	ssize_t ncs = NUMA_cpu_level_mask(sz, coreths, sz, cur, 2);
	if (nhts < 0 || ncs < 0) {
		perror("NUMA_cpu_level_mask");
		return 1;
	}
	char buf[4096];
	NUMA_set_format(buf, sizeof buf, sz, hyperths);
	printf("threads %s\n", buf);
	NUMA_set_format(buf, sizeof buf, sz, coreths);
	printf("package %s\n", buf);
	CPU_XOR_S(sz, coreths, coreths, hyperths);
	ncs -= nhts;
	/* the article's loop: one CPU per other core */
	printf("other cores:");
	while (ncs > 0) {
		int idx = 0;
		while (!CPU_ISSET_S(idx, sz, coreths))
			++idx;
		CPU_ZERO_S(sz, cur);
		CPU_SET_S(idx, sz, cur);
		nhts = NUMA_cpu_level_mask(sz, hyperths, sz, cur, 1);
		CPU_XOR_S(sz, coreths, coreths, hyperths);
		ncs -= nhts;
		printf(" %d", idx);
	}
	printf("\n");
	memnode_set_t *nodes = MEMNODE_ALLOC(NUMA_memnode_system_count() + 1);
	size_t nsz = MEMNODE_ALLOC_SIZE(NUMA_memnode_system_count() + 1);
	CPU_ZERO_S(sz, cur);
	CPU_SET_S(cpunr, sz, cur);
	if (NUMA_cpu_to_memnode(sz, cur, nsz, nodes) < 0) {
		perror("NUMA_cpu_to_memnode");
		return 1;
	}
	NUMA_set_format(buf, sizeof buf, nsz, nodes);
	printf("nodes %s\n", buf);
	MEMNODE_FREE(nodes);
	CPU_FREE(cur);
	CPU_FREE(hyperths);
	CPU_FREE(coreths);
	return 0;
}
