/* Where memory is: move_pages for pages in memory, the memory policy for the others. */
#include "numa_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <unistd.h>

#define NUMA_MAXNODE 4096
/* the mode flags get_mempolicy ORs into the mode: static, relative nodes, NUMA balancing */
#define MODE_FLAGS ((1 << 15) | (1 << 14) | (1 << 13))

#ifndef MPOL_LOCAL
#define MPOL_LOCAL 4
#endif
#ifndef MPOL_PREFERRED_MANY
#define MPOL_PREFERRED_MANY 5
#endif

struct policy {
	int mode;
	unsigned long mask[NUMA_MAXNODE / (8 * sizeof(unsigned long))];
};

static int in_mask(const struct policy *p, int node)
{
	return node >= 0 && node < NUMA_MAXNODE &&
	       (p->mask[node / (8 * sizeof(unsigned long))] >>
		(node % (8 * sizeof(unsigned long)))) &
		       1;
}

static int mask_weight(const struct policy *p)
{
	int n = 0;
	for (size_t i = 0; i < sizeof p->mask / sizeof *p->mask; i++)
		n += __builtin_popcountl(p->mask[i]);
	return n;
}

/* The node in the mask nearest to `from` by the firmware's distances (ties: the lower
 * number), as the kernel's zonelist of `from` orders them. */
static int nearest_in_mask(const struct policy *p, int from)
{
	char path[64], line[4096];
	snprintf(path, sizeof path, "/sys/devices/system/node/node%d/distance", from);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, line, sizeof line - 1) : -1;
	if (fd >= 0)
		close(fd);
	int best = -1;
	long bestd = 0;
	if (len > 0) {
		line[len] = 0;
		char *s = line, *end;
		/* The file lists the distance to each online node in order; read the online list to
         * know which node each number is for. */
		char onl[4096];
		fd = open("/sys/devices/system/node/online", O_RDONLY | O_CLOEXEC);
		ssize_t ol = fd >= 0 ? read(fd, onl, sizeof onl - 1) : -1;
		if (fd >= 0)
			close(fd);
		memnode_set_t online;
		if (ol > 0) {
			onl[ol] = 0;
			if (NUMA_set_parse(onl, sizeof online, &online) == 0) {
				for (int n = 0; n < MEMNODE_SETSIZE; n++) {
					if (!MEMNODE_ISSET_S(n, sizeof online, &online))
						continue;
					long d = strtol(s, &end, 10);
					if (end == s)
						break;
					s = end;
					if (in_mask(p, n) && (best < 0 || d < bestd)) {
						best = n;
						bestd = d;
					}
				}
			}
		}
	}
	if (best < 0) /* no distances: the lowest node of the mask */
		for (int n = 0; n < NUMA_MAXNODE && best < 0; n++)
			if (in_mask(p, n))
				best = n;
	return best;
}

/* The mapping's offset in pages at addr, as the kernel counts it for interleaving:
 * vm_pgoff + (addr - vm_start) / page; an anonymous mapping's vm_pgoff is vm_start / page. */
static long interleave_index(void *addr, long page)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	char line[512];
	long idx = -1;
	unsigned long a = (unsigned long)addr;
	while (fgets(line, sizeof line, f)) {
		unsigned long start, end, off;
		unsigned long inode;
		char perms[8], dev[16];
		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu", &start, &end, perms, &off, dev,
			   &inode) != 6)
			continue;
		if (a < start || a >= end)
			continue;
		idx = inode ? (long)(off / (unsigned long)page + (a - start) / (unsigned long)page)
			    : (long)(a / (unsigned long)page);
		break;
	}
	fclose(f);
	return idx;
}

static int policy_node(void *addr, long page)
{
	struct policy p;
	memset(&p, 0, sizeof p);
	if (get_mempolicy(&p.mode, p.mask, NUMA_MAXNODE, addr, MPOL_F_ADDR))
		return -1;
	if ((p.mode & ~MODE_FLAGS) == MPOL_DEFAULT) {
		memset(&p, 0, sizeof p);
		if (get_mempolicy(&p.mode, p.mask, NUMA_MAXNODE, NULL, 0))
			return -1;
	}
	unsigned cpu, local;
	if (getcpu(&cpu, &local))
		return -1;
	switch (p.mode & ~MODE_FLAGS) {
	case MPOL_DEFAULT:
	case MPOL_LOCAL:
		return (int)local;
	case MPOL_PREFERRED:
		if (mask_weight(&p) == 0)
			return (int)local;
		/* one node in the mask: the nearest in the mask is that one */
		__attribute__((fallthrough));
	case MPOL_BIND:
	case MPOL_PREFERRED_MANY:
		return in_mask(&p, (int)local) ? (int)local : nearest_in_mask(&p, (int)local);
	case MPOL_INTERLEAVE: {
		int w = mask_weight(&p);
		long idx = interleave_index(addr, page);
		if (w == 0 || idx < 0) {
			errno = EFAULT;
			return -1;
		}
		long target = idx % w;
		for (int n = 0; n < NUMA_MAXNODE; n++)
			if (in_mask(&p, n) && target-- == 0)
				return n;
		errno = EINVAL;
		return -1;
	}
	default:
		errno = ENOTSUP; /* a newer policy (weighted interleave) that this library cannot place */
		return -1;
	}
}

int NUMA_mem_get_node_idx(void *addr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = (void *)((uintptr_t)addr & ~(uintptr_t)(page - 1));
	int status = -1;
	if (move_pages(0, 1, &p, NULL, &status, 0) == 0 && status >= 0)
		return status;
	if (errno == ENOSYS) /* a kernel without NUMA: one node */
		return 0;
	/* not in memory (ENOENT), or the shared zero page (EFAULT): where it would go */
	return policy_node(addr, page);
}

int NUMA_mem_get_node_mask(void *addr, size_t size, size_t destsize, memnode_set_t *dest)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	uintptr_t end = (uintptr_t)addr + size;
	memset(dest, 0, destsize);
	enum { BATCH = 512 };
	void *pages[BATCH];
	int status[BATCH];
	while (a < end) {
		unsigned long n = 0;
		for (; n < BATCH && a < end; n++, a += (uintptr_t)page)
			pages[n] = (void *)a;
		int nosys = 0;
		if (move_pages(0, n, pages, NULL, status, 0)) {
			if (errno != ENOSYS)
				return -1;
			nosys = 1;
		}
		for (unsigned long i = 0; i < n; i++) {
			int node = nosys ? 0 : status[i];
			if (node < 0 && (node = policy_node(pages[i], page)) < 0)
				return -1;
			if ((size_t)node / 8 >= destsize) {
				errno = ERANGE;
				return -1;
			}
			MEMNODE_SET_S(node, destsize, dest);
		}
	}
	return MEMNODE_COUNT_S(destsize, dest);
}
