/* Inside the numa module: the topology handle and set helpers shared by its files. */
#ifndef NUMA_INTERNAL_H
#define NUMA_INTERNAL_H

#include "memprof/numa.h"

#include <hwloc.h>

struct NUMA_topo {
	hwloc_topology_t topo;
	char *fsroot;
	int ndist;	/* nodes in the distance matrix (0: none) */
	int *dist_os;	/* [ndist] node numbers */
	uint64_t *dist; /* [ndist * ndist] */
};

/* Copies an hwloc bitmap into a CPU or node set of setsize bytes. Returns the number of
 * elements, or -1 with ERANGE if one does not fit. */
int numa_bitmap_to_set(hwloc_const_bitmap_t bm, size_t setsize, void *set);
/* The elements of a set (setsize bytes) as a new hwloc bitmap; NULL with ENOMEM. */
hwloc_bitmap_t numa_set_to_bitmap(size_t setsize, const void *set);

#endif
