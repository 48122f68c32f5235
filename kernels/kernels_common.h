/* Small helpers shared by the benchmark kernels (header-only, no library). */
#ifndef KERNELS_COMMON_H
#define KERNELS_COMMON_H

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <numaif.h>
#include <pthread.h>

#include "memprof/numa.h"

/* Every kernel answers --help as it answers -h, and cachebench and matmul take --node N
 * (getopt_long with this table). */
#define KERN_OPT_NODE 1000
static const struct option kern_long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "node", required_argument, NULL, KERN_OPT_NODE },
	{ NULL, 0, NULL, 0 },
};

static inline double kern_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parse an unsigned number with an optional K/M/G suffix (powers of 1024). */
static inline int kern_parse_size(const char *prog, const char *opt, const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || s[0] == '-') {
		fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s ? s : "");
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s);
	return -1;
}

static inline int kern_parse_double(const char *prog, const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || errno || end == s || *end || v < 0) {
		fprintf(stderr, "%s: option %s: bad value '%s'\n", prog, opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

/* xorshift64*: a deterministic generator so that runs are repeatable. */
static inline uint64_t kern_rand(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* --node N: parse and check that the machine has node N. */
static inline int kern_parse_node(const char *prog, const char *s, int *node)
{
	uint64_t v;
	if (kern_parse_size(prog, "--node", s, &v))
		return -1;
	memnode_set_t nodes;
	if (NUMA_memnode_system_mask(sizeof nodes, &nodes) < 0 || v >= MEMNODE_SETSIZE ||
	    !MEMNODE_ISSET_S(v, sizeof nodes, &nodes)) {
		char list[256] = "?";
		NUMA_set_format(list, sizeof list, sizeof nodes, &nodes);
		fprintf(stderr, "%s: --node %llu: this machine has nodes %s\n", prog,
			(unsigned long long)v, list);
		return -1;
	}
	*node = (int)v;
	return 0;
}

/* Memory for a kernel's data, 64-byte aligned. With node >= 0 an anonymous mapping bound to
 * that node (mbind MPOL_BIND) before anything touches it. Free with kern_free(). */
static inline void *kern_alloc(size_t bytes, int node)
{
	if (node < 0)
		return aligned_alloc(64, (bytes + 63) / 64 * 64);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	unsigned long mask[MEMNODE_SETSIZE / (8 * sizeof(unsigned long))] = { 0 };
	mask[node / (8 * sizeof(unsigned long))] = 1UL << (node % (8 * sizeof(unsigned long)));
	if (mbind(p, bytes, MPOL_BIND, mask, MEMNODE_SETSIZE, 0)) {
		munmap(p, bytes);
		return NULL;
	}
	return p;
}

static inline void kern_free(void *p, size_t bytes, int node)
{
	if (node < 0)
		free(p);
	else if (p)
		munmap(p, bytes);
}

/* After the data is written: print where NUMA_mem_get_node_mask says it is; 1 if that is
 * not only the node asked for. */
static inline int kern_report_node(const char *prog, const char *what, void *p, size_t bytes,
				   int node)
{
	memnode_set_t where;
	int n = NUMA_mem_get_node_mask(p, bytes, sizeof where, &where);
	if (n < 0) {
		fprintf(stderr, "%s: NUMA_mem_get_node_mask: %s\n", prog, strerror(errno));
		return 1;
	}
	char list[256];
	NUMA_set_format(list, sizeof list, sizeof where, &where);
	printf("%s: --node %d: %s (%zu bytes) is on node %s\n", prog, node, what, bytes, list);
	if (n != 1 || !MEMNODE_ISSET_S(node, sizeof where, &where)) {
		fprintf(stderr, "%s: %s is on node %s, not only on node %d\n", prog, what, list, node);
		return 1;
	}
	return 0;
}

/* likely()/unlikely(): __builtin_expect, or with -DDEBUGPRED the counts memprof predict reads
 * (build/kernels/predict/). Last, so that no kernel line moves. */
#include <memprof/debugpred.h>

#endif
