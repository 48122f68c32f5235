/* The topology handle: hwloc 2 reads this machine, or a copy of another machine's /sys and
 * /proc. */
#include "numa_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* hwloc 2 takes a foreign /sys only from the HWLOC_FSROOT environment variable, read while
 * the topology loads. The environment is process-wide and not thread-safe, so a library must
 * not change its caller's: the snapshot is read in a forked child (whose environment is its
 * own) and handed back as hwloc XML through a pipe. */
/* hwloc 2 drops instruction caches unless asked; lstopo and perf's HEADER_CACHE list them. */
static int numa_keep_icaches(hwloc_topology_t t)
{
	return hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
}

static int load_child(const char *fsroot, int fd)
{
	/* hwloc's complaints about a snapshot go nowhere: the library never prints */
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 2);
		close(devnull);
	}
	if (setenv("HWLOC_FSROOT", fsroot, 1) || setenv("HWLOC_COMPONENTS", "linux,stop", 1) ||
	    setenv("HWLOC_THISSYSTEM", "0", 1))
		return 1;
	unsetenv("HWLOC_XMLFILE");
	unsetenv("HWLOC_SYNTHETIC");
	hwloc_topology_t t;
	char *xml;
	int len;
	if (hwloc_topology_init(&t) || numa_keep_icaches(t) || hwloc_topology_load(t) ||
	    hwloc_topology_export_xmlbuffer(t, &xml, &len, 0))
		return 1;
	uint64_t n = (uint64_t)len;
	if (write(fd, &n, sizeof n) != (ssize_t)sizeof n)
		return 1;
	for (int off = 0; off < len;) {
		ssize_t w = write(fd, xml + off, (size_t)(len - off));
		if (w <= 0)
			return 1;
		off += (int)w;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t r = read(fd, (char *)buf + off, len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		off += (size_t)r;
	}
	return 0;
}

static int load_fsroot(hwloc_topology_t t, const char *fsroot)
{
	struct stat st;
	if (stat(fsroot, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(load_child(fsroot, p[1]));
	}
	close(p[1]);
	uint64_t n = 0;
	char *xml = NULL;
	int rc = -1;
	if (read_full(p[0], &n, sizeof n) == 0 && n > 0 && n < (1u << 30) &&
	    (xml = malloc(n + 1)) && read_full(p[0], xml, n) == 0) {
		xml[n] = 0;
		rc = 0;
	}
	close(p[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0)
		rc = hwloc_topology_set_xmlbuffer(t, xml, (int)n);
	if (rc == 0)
		rc = hwloc_topology_load(t);
	free(xml);
	if (rc) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static void load_distances(NUMA_topo *nt)
{
	unsigned nr = 1;
	struct hwloc_distances_s *d = NULL;
	if (hwloc_distances_get_by_type(nt->topo, HWLOC_OBJ_NUMANODE, &nr, &d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) ||
	    nr < 1)
		return;
	nt->dist_os = calloc(d->nbobjs, sizeof *nt->dist_os);
	nt->dist = calloc((size_t)d->nbobjs * d->nbobjs, sizeof *nt->dist);
	if (nt->dist_os && nt->dist) {
		nt->ndist = (int)d->nbobjs;
		for (unsigned i = 0; i < d->nbobjs; i++)
			nt->dist_os[i] = (int)d->objs[i]->os_index;
		memcpy(nt->dist, d->values, (size_t)d->nbobjs * d->nbobjs * sizeof *nt->dist);
	}
	hwloc_distances_release(nt->topo, d);
}

/* The article's chroot caveat: without sysfs hwloc falls back to guesses (cpuid's package
 * ids on x86) after printing to stderr; refuse instead. */
static int sysfs_present(const char *fsroot)
{
	char path[4096];
	struct stat st;

	if (fsroot && stat(fsroot, &st))
		return -1;
	if (fsroot && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	snprintf(path, sizeof path, "%s/sys/devices/system/cpu", fsroot ? fsroot : "");
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		errno = fsroot ? ENOENT : ENOSYS;
		return -1;
	}
	return 0;
}

NUMA_topo *NUMA_topo_open(const char *fsroot)
{
	if (sysfs_present(fsroot))
		return NULL;
	NUMA_topo *nt = calloc(1, sizeof *nt);
	if (!nt)
		return NULL;
	nt->fsroot = strdup(fsroot ? fsroot : "/");
	if (nt->fsroot && hwloc_topology_init(&nt->topo) == 0 && numa_keep_icaches(nt->topo)) {
		hwloc_topology_destroy(nt->topo);
		nt->topo = NULL;
	}
	if (!nt->topo) {
		free(nt->fsroot);
		free(nt);
		errno = ENOMEM;
		return NULL;
	}
	int rc = fsroot ? load_fsroot(nt->topo, fsroot) : hwloc_topology_load(nt->topo);
	if (rc) {
		int e = errno ? errno : EIO;
		hwloc_topology_destroy(nt->topo);
		free(nt->fsroot);
		free(nt);
		errno = e;
		return NULL;
	}
	load_distances(nt);
	return nt;
}

void NUMA_topo_close(NUMA_topo *t)
{
	if (!t)
		return;
	hwloc_topology_destroy(t->topo);
	free(t->dist_os);
	free(t->dist);
	free(t->fsroot);
	free(t);
}

const char *NUMA_topo_fsroot(const NUMA_topo *t)
{
	return t->fsroot;
}

int NUMA_topo_cpu_count(const NUMA_topo *t)
{
	return hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(t->topo));
}

int NUMA_topo_cpu_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest)
{
	return numa_bitmap_to_set(hwloc_topology_get_topology_cpuset(t->topo), destsize, dest);
}

int NUMA_topo_cpu_max(const NUMA_topo *t)
{
	return hwloc_bitmap_last(hwloc_topology_get_topology_cpuset(t->topo)) + 1;
}

int NUMA_topo_memnode_count(const NUMA_topo *t)
{
	return hwloc_bitmap_weight(hwloc_topology_get_topology_nodeset(t->topo));
}

int NUMA_topo_memnode_mask(const NUMA_topo *t, size_t destsize, memnode_set_t *dest)
{
	return numa_bitmap_to_set(hwloc_topology_get_topology_nodeset(t->topo), destsize, dest);
}

int NUMA_topo_memnode_max(const NUMA_topo *t)
{
	return hwloc_bitmap_last(hwloc_topology_get_topology_nodeset(t->topo)) + 1;
}

static hwloc_obj_t pu_of(const NUMA_topo *t, unsigned cpu)
{
	return hwloc_get_pu_obj_by_os_index(t->topo, cpu);
}

/* The object whose CPUs are `pu`'s relatives at `level`, or NULL with errno. */
static hwloc_obj_t level_obj(const NUMA_topo *t, hwloc_obj_t pu, unsigned level)
{
	hwloc_obj_t o;
	switch (level) {
	case 1:
		o = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, pu);
		return o ? o : pu;
	case 2:
		o = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pu);
		return o ? o : hwloc_get_root_obj(t->topo);
	case 3:
		/* The object the CPU's nearest memory node hangs from. */
		for (o = pu->parent; o; o = o->parent)
			if (o->memory_arity > 0)
				return o;
		return hwloc_get_root_obj(t->topo);
	case 4:
		return hwloc_get_root_obj(t->topo);
	default:
		errno = EINVAL;
		return NULL;
	}
}

static hwloc_obj_t cache_obj(hwloc_obj_t pu, unsigned cache_level)
{
	for (hwloc_obj_t o = pu->parent; o; o = o->parent)
		if (hwloc_obj_type_is_dcache(o->type) && o->attr->cache.depth == cache_level)
			return o;
	errno = ENOENT;
	return NULL;
}

/* The union, over each element i of set src (srcsize bytes), of the set each(t, i, arg)
 * gives (NULL with errno: stop), written into dest (destsize bytes). The number of elements
 * of dest, or -1 with errno. */
static int union_of(const NUMA_topo *t, size_t destsize, void *dest, size_t srcsize,
		    const void *src, unsigned arg,
		    hwloc_const_bitmap_t (*each)(const NUMA_topo *, unsigned, unsigned))
{
	hwloc_bitmap_t in = numa_set_to_bitmap(srcsize, src), out = hwloc_bitmap_alloc();
	int rc = -1;
	if (!in || !out) {
		errno = ENOMEM;
		goto done;
	}
	unsigned i;
	hwloc_bitmap_foreach_begin(i, in)
	{
		hwloc_const_bitmap_t set = each(t, i, arg);
		if (!set)
			goto done;
		hwloc_bitmap_or(out, out, set);
	}
	hwloc_bitmap_foreach_end();
	rc = numa_bitmap_to_set(out, destsize, dest);
done:
	hwloc_bitmap_free(in);
	hwloc_bitmap_free(out);
	return rc;
}

/* CPU cpu's object, or NULL with ENOENT. */
static hwloc_obj_t pu_known(const NUMA_topo *t, unsigned cpu)
{
	hwloc_obj_t pu = pu_of(t, cpu);
	if (!pu)
		errno = ENOENT;
	return pu;
}

static hwloc_const_bitmap_t level_cpus(const NUMA_topo *t, unsigned cpu, unsigned level)
{
	hwloc_obj_t pu = pu_known(t, cpu), o = pu ? level_obj(t, pu, level) : NULL;
	return o ? o->cpuset : NULL;
}

static hwloc_const_bitmap_t cache_cpus(const NUMA_topo *t, unsigned cpu, unsigned level)
{
	hwloc_obj_t pu = pu_known(t, cpu), o = pu ? cache_obj(pu, level) : NULL;
	return o ? o->cpuset : NULL;
}

/* A memory-only tier: a node hwloc found behind a DAX device (kmem-onlined HBM, NVM, CXL
 * memory), which Linux gives no CPUs of its own. */
static int node_is_tier(hwloc_obj_t n)
{
	return hwloc_obj_get_info_by_name(n, "DAXDevice") != NULL;
}

/* The CPU's own node: among the nodes local to it, the first that is no memory-only tier
 * (the first local node when all are). pu->nodeset would give the tiers too. */
static hwloc_obj_t cpu_node(const NUMA_topo *t, hwloc_obj_t pu)
{
	hwloc_obj_t n = NULL, first = NULL;
	while ((n = hwloc_get_next_obj_by_type(t->topo, HWLOC_OBJ_NUMANODE, n))) {
		if (!hwloc_bitmap_isset(pu->nodeset, n->os_index))
			continue;
		if (!node_is_tier(n) && (!first || node_is_tier(first) || n->os_index < first->os_index))
			first = n;
		else if (!first)
			first = n;
	}
	return first;
}

static hwloc_const_bitmap_t cpu_nodes(const NUMA_topo *t, unsigned cpu, unsigned unused)
{
	(void)unused;
	hwloc_obj_t pu = pu_known(t, cpu), n = pu ? cpu_node(t, pu) : NULL;
	/* a CPU outside every node (a restricted cpuset): its empty nodeset */
	return n ? n->nodeset : pu ? pu->nodeset : NULL;
}

static hwloc_const_bitmap_t cpu_nodes_tiers(const NUMA_topo *t, unsigned cpu, unsigned unused)
{
	(void)unused;
	hwloc_obj_t pu = pu_known(t, cpu);
	return pu ? pu->nodeset : NULL;
}

static hwloc_const_bitmap_t node_cpus(const NUMA_topo *t, unsigned node, unsigned unused)
{
	(void)unused;
	hwloc_obj_t n = hwloc_get_numanode_obj_by_os_index(t->topo, node);
	if (!n)
		errno = ENOENT;
	return n ? n->cpuset : NULL;
}

ssize_t NUMA_topo_cpu_level_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest,
				 size_t srcsize, const cpu_set_t *src, unsigned int level)
{
	if (level < 1 || level > 4) {
		errno = EINVAL;
		return -1;
	}
	return union_of(t, destsize, dest, srcsize, src, level, level_cpus);
}

ssize_t NUMA_topo_cpu_cache_mask(const NUMA_topo *t, size_t destsize, cpu_set_t *dest,
				 size_t srcsize, const cpu_set_t *src, unsigned int cache_level)
{
	return union_of(t, destsize, dest, srcsize, src, cache_level, cache_cpus);
}

int NUMA_topo_cpu_to_memnode(const NUMA_topo *t, size_t cpusetsize, const cpu_set_t *cpuset,
			     size_t memnodesize, memnode_set_t *memnodeset)
{
	return union_of(t, memnodesize, memnodeset, cpusetsize, cpuset, 0, cpu_nodes);
}

int NUMA_topo_cpu_to_memnode_tiers(const NUMA_topo *t, size_t cpusetsize,
				   const cpu_set_t *cpuset, size_t memnodesize,
				   memnode_set_t *memnodeset)
{
	return union_of(t, memnodesize, memnodeset, cpusetsize, cpuset, 0, cpu_nodes_tiers);
}

int NUMA_topo_memnode_tier(const NUMA_topo *t, int node, char *kind, size_t kindlen)
{
	hwloc_obj_t n = node >= 0 ? hwloc_get_numanode_obj_by_os_index(t->topo, (unsigned)node)
				  : NULL;
	if (!n) {
		errno = ENOENT;
		return -1;
	}
	if (kind && kindlen)
		snprintf(kind, kindlen, "%s", n->subtype ? n->subtype : "");
	return node_is_tier(n);
}

int NUMA_topo_memnode_to_cpu(const NUMA_topo *t, size_t memnodesize,
			     const memnode_set_t *memnodeset, size_t cpusetsize, cpu_set_t *cpuset)
{
	return union_of(t, cpusetsize, cpuset, memnodesize, memnodeset, 0, node_cpus);
}

int NUMA_topo_cpu_place(const NUMA_topo *t, int cpu, struct NUMA_cpu_place *out)
{
	hwloc_obj_t pu = cpu >= 0 ? pu_of(t, (unsigned)cpu) : NULL;
	if (!pu) {
		errno = ENOENT;
		return -1;
	}
	hwloc_obj_t o;
	o = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, pu);
	out->package = o && o->os_index != HWLOC_UNKNOWN_INDEX ? (int)o->os_index : -1;
	o = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_DIE, pu);
	out->die = o && o->os_index != HWLOC_UNKNOWN_INDEX ? (int)o->os_index : -1;
	o = hwloc_get_ancestor_obj_by_type(t->topo, HWLOC_OBJ_CORE, pu);
	out->core = o && o->os_index != HWLOC_UNKNOWN_INDEX ? (int)o->os_index : -1;
	o = cpu_node(t, pu);
	out->node = o ? (int)o->os_index : -1;
	return 0;
}

static const hwloc_obj_type_t cache_types[] = {
	HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
	HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
};

int NUMA_topo_cache_count(const NUMA_topo *t)
{
	int n = 0;
	for (size_t i = 0; i < sizeof cache_types / sizeof *cache_types; i++)
		n += hwloc_get_nbobjs_by_type(t->topo, cache_types[i]);
	return n;
}

int NUMA_topo_cache_get(const NUMA_topo *t, int idx, struct NUMA_cache *info, size_t cpusetsize,
			cpu_set_t *cpus)
{
	for (size_t i = 0; idx >= 0 && i < sizeof cache_types / sizeof *cache_types; i++) {
		int n = hwloc_get_nbobjs_by_type(t->topo, cache_types[i]);
		if (idx >= n) {
			idx -= n;
			continue;
		}
		hwloc_obj_t o = hwloc_get_obj_by_type(t->topo, cache_types[i], (unsigned)idx);
		const struct hwloc_cache_attr_s *c = &o->attr->cache;
		info->level = c->depth;
		info->type = c->type == HWLOC_OBJ_CACHE_DATA	      ? NUMA_CACHE_DATA
			     : c->type == HWLOC_OBJ_CACHE_INSTRUCTION ? NUMA_CACHE_INSTRUCTION
								      : NUMA_CACHE_UNIFIED;
		info->size = c->size;
		info->line_size = c->linesize;
		info->ways = c->associativity;
		if (cpus && numa_bitmap_to_set(o->cpuset, cpusetsize, cpus) < 0)
			return -1;
		return 0;
	}
	errno = ENOENT;
	return -1;
}

int NUMA_topo_memnode_memory(const NUMA_topo *t, int node, uint64_t *bytes)
{
	hwloc_obj_t n =
		node >= 0 ? hwloc_get_numanode_obj_by_os_index(t->topo, (unsigned)node) : NULL;
	if (!n) {
		errno = ENOENT;
		return -1;
	}
	*bytes = n->attr->numanode.local_memory;
	return 0;
}

int NUMA_topo_distance(const NUMA_topo *t, int from, int to)
{
	int a = -1, b = -1;
	for (int i = 0; i < t->ndist; i++) {
		if (t->dist_os[i] == from)
			a = i;
		if (t->dist_os[i] == to)
			b = i;
	}
	if (a < 0 || b < 0) {
		errno = t->ndist ? ENOENT : ENODATA;
		return -1;
	}
	return (int)t->dist[(size_t)a * (size_t)t->ndist + (size_t)b];
}
