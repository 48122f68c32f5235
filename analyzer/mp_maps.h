/* mp_maps.h - process maps from MMAP/MMAP2 records per pid, across fork and exec, and the
 * comm of each thread (internal to the analyzer; the mp_sym_mmap/comm/fork/exit and
 * mp_sym_map_find/comm_* calls of mp_analyzer.h are in mp_maps.c). */
#ifndef MP_MAPS_H
#define MP_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "mp_analyzer.h"

#define MP_KERNEL_PID UINT32_MAX /* the process holding the kernel's maps */

struct mp_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	uint8_t kernel;
};

struct mp_proc {
	uint32_t pid;
	uint32_t *maps; /* map ids sorted by start, non-overlapping */
	size_t n, cap;
	uint32_t last;
	/* the maps before the last exec (sorted, malloc'd): a sample taken inside execve
	 * still has the old program's user address (perf keeps them too). Looked at for user
	 * addresses the maps do not hold, until one user address is found in the maps (the
	 * process runs its new program): then dropped. */
	uint32_t *old;
	size_t nold;
};

#endif
