/* memprof/numa.h: the machine's CPUs, caches, memory nodes and memory modules.
 *
 * The interface proposed in section 12 of "What every programmer should know about memory"
 * (libNUMA: memnode_set_t, MEMNODE_*_S, NUMA_cpu_*, NUMA_memnode_*, NUMA_mem_*), plus a
 * handle (NUMA_topo) that reads the topology once, of this machine or of a snapshot of
 * another machine's /sys and /proc, and the memory modules and memory controllers of the
 * article's section 11 (SMBIOS type 17 entries, EDAC).
 *
 * Usable without the rest of memprof: static library libmemprof-numa.a,
 * `pkg-config --cflags --libs memprof-numa`. The topology comes from hwloc 2; the memory
 * policy calls (get_mempolicy, move_pages) from libnuma's <numaif.h>.
 *
 * Conventions, as the article's prototypes imply:
 *  - CPU sets are glibc's cpu_set_t used with their size in bytes (CPU_ALLOC_SIZE), so sets
 *    of any size work; memnode_set_t is the same for memory nodes (MEMNODE_ALLOC_SIZE).
 *    CPU n is Linux's CPU n, node n is Linux's node n.
 *  - Functions that fill a set clear it first. A result that does not fit in the set given
 *    fails with ERANGE.
 *  - Errors: -1 (NULL for constructors) with errno set. The library never prints (hwloc's
 *    own messages included).
 *  - /sys must be mounted: the article warns that in a chroot jail without it the functions
 *    fail or give inaccurate answers. Here they fail: the topology calls return -1 with
 *    errno ENOSYS when this machine has no /sys/devices/system/cpu (a chroot, a container
 *    without sysfs), ENOENT when a snapshot folder has none; never guessed package ids.
 *    The calls that need no topology (NUMA_cpu_self_count/_mask/_current_idx, the
 *    NUMA_mem_* calls) work without /sys.
 *  - The NUMA_cpu_* and NUMA_memnode_* calls without a handle read this machine's topology
 *    afresh at each call (about 2 to 20 ms); programs asking many questions open a
 *    NUMA_topo once and use the NUMA_topo_* variants.
 */
#ifndef MEMPROF_NUMA_H
#define MEMPROF_NUMA_H

#ifndef _GNU_SOURCE
#error "memprof/numa.h needs _GNU_SOURCE (for cpu_set_t and the CPU_*_S macros)"
#endif

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory node sets ------------------------------------------------------------------ */

#define MEMNODE_SETSIZE 1024
#define NUMA_NBITS_ (8 * sizeof(unsigned long))

/* A set of memory nodes, the equivalent of cpu_set_t. The fixed type holds MEMNODE_SETSIZE
 * nodes; larger sets come from MEMNODE_ALLOC(count). */
typedef struct {
	unsigned long bits[MEMNODE_SETSIZE / NUMA_NBITS_];
} memnode_set_t;

/* Bytes needed for a set of `count` nodes (a multiple of sizeof(unsigned long)). */
#define MEMNODE_ALLOC_SIZE(count) \
	((((size_t)(count) + NUMA_NBITS_ - 1) / NUMA_NBITS_) * sizeof(unsigned long))
/* A zeroed set for `count` nodes, or NULL (errno ENOMEM); free with MEMNODE_FREE. */
#define MEMNODE_ALLOC(count) ((memnode_set_t *)calloc(1, MEMNODE_ALLOC_SIZE(count)))
#define MEMNODE_FREE(memnodeset) free(memnodeset)

static inline unsigned long *NUMA_set_words_(void *set)
{
	return (unsigned long *)set;
}
static inline const unsigned long *NUMA_set_cwords_(const void *set)
{
	return (const unsigned long *)set;
}

#define MEMNODE_ZERO_S(setsize, memnodesetp) memset((memnodesetp), 0, (setsize))
/* Each argument is evaluated once, as glibc's CPU_*_S macros do (MEMNODE_SET_S(n++, ...)
 * sets node n and increments n once). */
#define MEMNODE_SET_S(node, setsize, memnodesetp) \
	NUMA_set_bit_((size_t)(node), (setsize), (memnodesetp), 1)
#define MEMNODE_CLR_S(node, setsize, memnodesetp) \
	NUMA_set_bit_((size_t)(node), (setsize), (memnodesetp), 0)
#define MEMNODE_ISSET_S(node, setsize, memnodesetp) \
	NUMA_isset_bit_((size_t)(node), (setsize), (memnodesetp))
#define MEMNODE_COUNT_S(setsize, memnodesetp) NUMA_set_count_((setsize), (memnodesetp))
#define MEMNODE_EQUAL_S(setsize, memnodesetp1, memnodesetp2) \
	(memcmp((memnodesetp1), (memnodesetp2), (setsize)) == 0)
#define MEMNODE_AND_S(setsize, destset, srcset1, srcset2) \
	NUMA_set_op_((setsize), (destset), (srcset1), (srcset2), '&')
#define MEMNODE_OR_S(setsize, destset, srcset1, srcset2) \
	NUMA_set_op_((setsize), (destset), (srcset1), (srcset2), '|')
#define MEMNODE_XOR_S(setsize, destset, srcset1, srcset2) \
	NUMA_set_op_((setsize), (destset), (srcset1), (srcset2), '^')

static inline unsigned long NUMA_set_bit_(size_t node, size_t setsize, void *set, int on)
{
	if (node / 8 >= setsize)
		return 0;
	unsigned long *w = &NUMA_set_words_(set)[node / NUMA_NBITS_];
	unsigned long bit = 1UL << (node % NUMA_NBITS_);
	return on ? (*w |= bit) : (*w &= ~bit);
}

static inline int NUMA_isset_bit_(size_t node, size_t setsize, const void *set)
{
	if (node / 8 >= setsize)
		return 0;
	return (int)((NUMA_set_cwords_(set)[node / NUMA_NBITS_] >> (node % NUMA_NBITS_)) & 1UL);
}

static inline int NUMA_set_count_(size_t setsize, const void *set)
{
	const unsigned char *p = (const unsigned char *)set;
	int n = 0;
	for (size_t i = 0; i < setsize; i++)
		n += __builtin_popcount(p[i]);
	return n;
}

static inline void *NUMA_set_op_(size_t setsize, void *dest, const void *a, const void *b, char op)
{
	unsigned char *d = (unsigned char *)dest;
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	for (size_t i = 0; i < setsize; i++)
		d[i] = op == '&' ? (x[i] & y[i]) : op == '|' ? (x[i] | y[i]) : (x[i] ^ y[i]);
	return dest;
}

/* ---- the article's interface: this machine, this thread ---------------------------------- */

/* Number of CPUs of the system (online, as the topology shows them) / the set of them. */
int NUMA_cpu_system_count(void);
int NUMA_cpu_system_mask(size_t destsize, cpu_set_t *dest);

/* CPUs this thread may run on (its affinity): count / set. */
int NUMA_cpu_self_count(void);
int NUMA_cpu_self_mask(size_t destsize, cpu_set_t *dest);

/* The CPU this thread runs on now (stale as soon as it returns: a hint) / as a set. */
int NUMA_cpu_self_current_idx(void);
int NUMA_cpu_self_current_mask(size_t destsize, cpu_set_t *dest);

/* The CPUs related to any CPU of `src` at `level`, into `dest`; returns how many there are.
 *   level 1  the hardware threads of the same core (the article's 12.1);
 *   level 2  the CPUs of the same package (the article's 12.2: the cores of the processor);
 *   level 3  the CPUs of the same NUMA node (those whose memory node is the same);
 *   level 4  all CPUs of the system.
 * A machine that does not report cores (or packages, or nodes) gives at that level the
 * CPUs of the next level up that contains the CPU. Other levels: EINVAL. A CPU of `src`
 * that the system does not have: ENOENT. */
ssize_t NUMA_cpu_level_mask(size_t destsize, cpu_set_t *dest, size_t srcsize, const cpu_set_t *src,
			    unsigned int level);

/* The CPUs that share the level-`cache_level` data (or unified) cache with any CPU of
 * `src`, into `dest`; returns how many. A CPU of `src` without a cache at that level
 * (or unknown caches): ENOENT. This is the set the article's placement advice needs:
 * threads that share data go on CPUs that share a cache. */
ssize_t NUMA_cpu_cache_mask(size_t destsize, cpu_set_t *dest, size_t srcsize, const cpu_set_t *src,
			    unsigned int cache_level);

/* Number of memory nodes / the set of them. */
int NUMA_memnode_system_count(void);
int NUMA_memnode_system_mask(size_t destsize, memnode_set_t *dest);

/* The memory nodes directly attached to the CPUs this thread may run on. */
int NUMA_memnode_self_mask(size_t destsize, memnode_set_t *dest);

/* The memory node of the CPU this thread runs on now (a hint, like the CPU). */
int NUMA_memnode_self_current_idx(void);
int NUMA_memnode_self_current_mask(size_t destsize, memnode_set_t *dest);

/* The memory node of each CPU of `cpuset`, as the article has it: a CPU belongs to one
 * node, its own (on a tiered-memory machine the node of normal memory, not the memory-only
 * HBM/NVM/CXL nodes next to it: NUMA_cpu_to_memnode_tiers gives those) / the CPUs attached
 * to the nodes of `memnodeset` (a memory-only node: the CPUs hwloc attaches it to). Both
 * return the number of elements set in the result. */
int NUMA_cpu_to_memnode(size_t cpusetsize, const cpu_set_t *cpuset, size_t memnodesize,
			memnode_set_t *memnodeset);
/* Every node local to the CPUs of `cpuset`: their own nodes and the memory-only tiers
 * (HBM, NVM, CXL: nodes without CPUs of their own) attached next to them. */
int NUMA_cpu_to_memnode_tiers(size_t cpusetsize, const cpu_set_t *cpuset, size_t memnodesize,
			      memnode_set_t *memnodeset);
int NUMA_memnode_to_cpu(size_t memnodesize, const memnode_set_t *memnodeset, size_t cpusetsize,
			cpu_set_t *cpuset);

/* The node of the page holding `addr`: where it is if it is in memory (move_pages), or
 * where the memory policy in force for it (the mapping's, else the thread's; mbind,
 * set_mempolicy) would allocate it if it has not been touched. EFAULT: not mapped. */
int NUMA_mem_get_node_idx(void *addr);
/* The same for every page of [addr, addr+size), as a set; returns the number of nodes. */
int NUMA_mem_get_node_mask(void *addr, size_t size, size_t destsize, memnode_set_t *dest);

/* ---- a topology read once: this machine or a snapshot ------------------------------------ */

typedef struct NUMA_topo NUMA_topo;

/* Reads the topology of this machine (fsroot NULL) or of the copy of another machine's
 * /sys and /proc under `fsroot` (as in hwloc's test suite). NULL with errno on failure
 * (ENOSYS: this machine has no /sys/devices/system/cpu, sysfs is not mounted; ENOENT:
 * fsroot or its sys/devices/system/cpu missing; EIO: hwloc could not read it). Free with
 * NUMA_topo_close. */
NUMA_topo *NUMA_topo_open(const char *fsroot);
void NUMA_topo_close(NUMA_topo *t);

/* The folder the topology was read from ("/" for this machine); borrowed. */
const char *NUMA_topo_fsroot(const NUMA_topo *t);

/* As the handle-less calls above, against this topology. */
int NUMA_topo_cpu_count(const NUMA_topo *t);
int NUMA_topo_cpu_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest);
int NUMA_topo_memnode_count(const NUMA_topo *t);
int NUMA_topo_memnode_mask(const NUMA_topo *t, size_t destsize, memnode_set_t *dest);
ssize_t NUMA_topo_cpu_level_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest,
				 size_t srcsize, const cpu_set_t *src, unsigned int level);
ssize_t NUMA_topo_cpu_cache_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest,
				 size_t srcsize, const cpu_set_t *src, unsigned int cache_level);
int NUMA_topo_cpu_to_memnode(const NUMA_topo *t, size_t cpusetsize, const cpu_set_t *cpuset,
			     size_t memnodesize, memnode_set_t *memnodeset);
int NUMA_topo_memnode_to_cpu(const NUMA_topo *t, size_t memnodesize,
			     const memnode_set_t *memnodeset, size_t cpusetsize, cpu_set_t *cpuset);
int NUMA_topo_cpu_to_memnode_tiers(const NUMA_topo *t, size_t cpusetsize,
				   const cpu_set_t *cpuset, size_t memnodesize,
				   memnode_set_t *memnodeset);
/* What kind of memory node `node` is: 0 a CPU's own node, 1 a memory-only tier (a node
 * hwloc found behind a DAX device: HBM, NVM, CXL memory), -1 with ENOENT when there is no
 * such node. kind (may be NULL) gets hwloc's memory type ("DRAM", "HBM", "NVM", ...) or ""
 * when the machine does not say. */
int NUMA_topo_memnode_tier(const NUMA_topo *t, int node, char *kind, size_t kindlen);

/* Largest CPU number + 1 and largest node number + 1: what to size sets with. */
int NUMA_topo_cpu_max(const NUMA_topo *t);
int NUMA_topo_memnode_max(const NUMA_topo *t);

/* Where a CPU is. -1 in a field: the machine does not say. */
struct NUMA_cpu_place {
	int package; /* physical package (socket) number */
	int die;     /* die number inside the package, -1 if not reported */
	int core;    /* core number (Linux's core_id) */
	int node;    /* the first memory node attached to this CPU */
};
/* ENOENT: the system has no such CPU. */
int NUMA_topo_cpu_place(const NUMA_topo *t, int cpu, struct NUMA_cpu_place *out /* OUT */);

enum NUMA_cache_type { NUMA_CACHE_UNIFIED, NUMA_CACHE_DATA, NUMA_CACHE_INSTRUCTION };

struct NUMA_cache {
	unsigned level; /* 1, 2, 3, ... */
	enum NUMA_cache_type type;
	uint64_t size;	    /* bytes, 0 if unknown */
	unsigned line_size; /* bytes, 0 if unknown */
	int ways;	    /* associativity; -1 fully associative, 0 unknown */
};
/* The CPU caches, in the topology's order (by level, then by first CPU). Returns the number
 * of caches; fills `info` and the set of CPUs sharing cache number `idx`. */
int NUMA_topo_cache_count(const NUMA_topo *t);
int NUMA_topo_cache_get(const NUMA_topo *t, int idx, struct NUMA_cache *info /* OUT */,
			size_t cpusetsize, cpu_set_t *cpus /* OUT, may be NULL */);

/* Memory of a node in bytes (the node's local memory; 0 if unknown), ENOENT if none. */
int NUMA_topo_memnode_memory(const NUMA_topo *t, int node, uint64_t *bytes /* OUT */);
/* This machine's node `node` as /sys/devices/system/node/nodeN/meminfo gives it now:
 * total and free memory in bytes. -1 with errno (ENOENT: no such node). */
int NUMA_memnode_meminfo(int node, uint64_t *total /* OUT */, uint64_t *free_bytes /* OUT */);

/* The firmware's relative distance from node `from` to node `to` (10 = local, as in
 * /sys/devices/system/node/nodeN/distance); ENODATA if the machine gives none. */
int NUMA_topo_distance(const NUMA_topo *t, int from, int to);

/* ---- memory modules (SMBIOS type 17) and memory controllers (EDAC) ------------------------ */

struct NUMA_dimm {
	char locator[64];	 /* "DIMM_A1" */
	char bank[64];		 /* "NODE 0 CHANNEL 0 DIMM 0", may be empty */
	char type[16];		 /* "DDR3", "DDR4", ... "Other", "Unknown" */
	uint64_t size_mb;	 /* 0: no module in this slot */
	unsigned speed_mts;	 /* maximum speed, MT/s; 0 unknown */
	unsigned configured_mts; /* configured speed, MT/s; 0 unknown */
	int registered;		 /* 1 registered (buffered), 0 unbuffered, -1 not said */
	unsigned total_width;	 /* bits, 0 unknown */
	unsigned data_width;	 /* bits, 0 unknown */
	int check_bits;		 /* total - data width: 8 for 64 data bits is SEC/DED */
	const char *ecc;	 /* "SEC/DED", "SEC", "none", "unknown": Table 11.1 */
};

/* Reads `fsroot`/sys/firmware/dmi/entries/17-N/raw (fsroot NULL: "/"). Returns the number
 * of entries, up to `max` filled into `out` (sorted by entry number). -1 with errno: ENOENT
 * no entries (no SMBIOS: most VMs and non-x86 machines), EACCES unreadable (not root). */
int NUMA_dimm_read(const char *fsroot, struct NUMA_dimm *out, int max);
/* Decodes one raw type-17 structure (formatted area then strings). EINVAL: not type 17 or
 * too short. */
int NUMA_dimm_decode(const unsigned char *raw, size_t len, struct NUMA_dimm *out);
/* The ECC the check bits allow for `data_bits` (Table 11.1): "SEC/DED" when check_bits is
 * the SEC/DED count, "SEC" when it is the SEC count, "none" for 0, else "unknown". */
const char *NUMA_ecc_kind(unsigned data_bits, int check_bits);
/* The check bits a Hamming code needs for `data_bits` data bits (Table 11.1): *sec = the
 * least E with 2^E >= W + E + 1, i.e. E = ceil(log2(W + E + 1)) (SEC, single error
 * correction); *secded = *sec + 1 (the parity bit of SEC/DED, double error detection).
 * Overhead = E / W. 0, or -1 with errno EINVAL for data_bits 0. */
int NUMA_ecc_bits(unsigned data_bits, unsigned *sec /* OUT */, unsigned *secded /* OUT */);

struct NUMA_edac_mc {
	int index;	    /* mcN */
	char name[64];	    /* mc_name */
	char edac_mode[32]; /* "SECDED", "S4ECD4ED", ... of the first dimm/csrow, "" unknown */
	char mem_type[32];  /* "Registered-DDR3", ... */
	uint64_t size_mb;
	uint64_t ce_count, ue_count; /* corrected / uncorrected errors since load or reset */
};
/* Reads `fsroot`/sys/devices/system/edac/mc/mcN. Returns the number of controllers, up to
 * `max` filled. -1 with errno ENOENT when EDAC is absent (no driver for this machine's
 * memory controller, or a VM). */
int NUMA_edac_read(const char *fsroot, struct NUMA_edac_mc *out, int max);

/* ---- text helpers ------------------------------------------------------------------------ */

/* Writes the set as a Linux CPU list ("0-3,8,10-11") into buf; returns the length it needs
 * (snprintf-like). Works for memnode_set_t as well. */
int NUMA_set_format(char *buf, size_t buflen, size_t setsize, const void *set);
/* Parses a Linux list into a zeroed set. EINVAL bad text, ERANGE an element beyond setsize. */
int NUMA_set_parse(const char *list, size_t setsize, void *set /* OUT */);

#ifdef __cplusplus
}
#endif
#endif
