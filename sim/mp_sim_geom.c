/* mp_sim_geom.c - the caches record --sim simulates: valgrind's SIZE,ASSOC,LINE options,
 * and this machine's L1i, L1d and L2, read from sysfs or, where sysfs lacks them (some
 * VMs and containers), decoded from CPUID (x86: leaf 4 on Intel, 0x8000001D or the older
 * 0x80000005/0x80000006 on AMD and Hygon).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "mp_sim.h"

static int is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* valgrind's own checks (cachegrind's check_cache), so that a bad geometry fails here
 * with memprof's message rather than inside valgrind. */
static const char *cache_problem(const struct mp_sim_cache *c)
{
	if (!c->size || !c->assoc || !c->line)
		return "size, ways and line size must all be positive";
	if (!is_pow2(c->line))
		return "the line size is not a power of two";
	if (c->line < 16)
		return "the line size is below 16 bytes";
	if (c->size % ((uint64_t)c->line * c->assoc) || !is_pow2(c->size / c->line / c->assoc))
		return "the number of sets (size / (ways * line)) is not a power of two";
	return NULL;
}

static int parse_u64_suffix(const char *s, uint64_t *v, const char **end)
{
	char *e;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long long x = strtoull(s, &e, 10);
	if (errno)
		return -1;
	if (*e == 'K' || *e == 'k')
		x <<= 10, e++;
	else if (*e == 'M' || *e == 'm')
		x <<= 20, e++;
	*v = x;
	*end = e;
	return 0;
}

int mp_sim_parse_cache(const char *what, const char *s, struct mp_sim_cache *c,
		       struct mp_err *err)
{
	uint64_t size, assoc, line;
	const char *e;

	if (parse_u64_suffix(s, &size, &e) || *e != ',' || parse_u64_suffix(e + 1, &assoc, &e) ||
	    *e != ',' || parse_u64_suffix(e + 1, &line, &e) || *e || assoc > 1u << 20 ||
	    line > 1u << 20)
		return mp_err_set(err, -MP_EPARSE, "%s '%s': expected SIZE,ASSOC,LINE_SIZE "
				  "(e.g. 32768,8,64)", what, s);
	struct mp_sim_cache t = { size, (uint32_t)assoc, (uint32_t)line };
	const char *why = cache_problem(&t);
	if (why)
		return mp_err_set(err, -MP_EPARSE, "%s '%s': valgrind cannot simulate this cache: %s",
				  what, s, why);
	*c = t;
	return 0;
}

static int read_sysfs_u64(const char *dir, const char *idx, const char *file, uint64_t *v)
{
	char path[512], buf[64];
	snprintf(path, sizeof(path), "%s/%s/%s", dir, idx, file);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	const char *e;
	if (parse_u64_suffix(buf, v, &e))
		return -1;
	return 0;
}

/* ---- sysfs -------------------------------------------------------------------------- */

/* Which of g's caches a sysfs cache directory of this level and type is, or NULL. */
static struct mp_sim_cache *sysfs_slot(struct mp_sim_geometry *g, uint64_t level,
				       const char *type, int *unified)
{
	*unified = 0;
	if (level == 1 && !strcmp(type, "Data"))
		return &g->d1;
	if (level == 1 && !strcmp(type, "Instruction"))
		return &g->i1;
	if (level == 2)
		return &g->ll;
	if (level == 1 && !strcmp(type, "Unified")) {
		*unified = 1;
		return &g->d1;
	}
	return NULL;
}

/* The type of sysfs cache folder dir/indexI into type ("Data", "Unified"; "" when it has
 * none), its name into idx. Returns -1 when there is no such folder (the list's end). */
static int sysfs_index(const char *dir, int i, char idx[16], char type[32])
{
	char path[512];
	snprintf(idx, 16, "index%d", i);
	snprintf(path, sizeof(path), "%s/%s/type", dir, idx);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(type, 32, f))
		type[0] = 0;
	fclose(f);
	type[strcspn(type, "\n")] = 0;
	return 0;
}

/* Read dir/index0.. into g; caches valgrind could not simulate are named in bad.
 * Returns 1 when at least one cache was taken. */
static int sysfs_geometry(const char *dir, struct mp_sim_geometry *g, char *bad, size_t badlen)
{
	int found = 0;

	for (int i = 0; i < 16; i++) {
		char idx[16], type[32] = "";
		uint64_t level, size, ways, line;
		if (sysfs_index(dir, i, idx, type))
			break;
		if (read_sysfs_u64(dir, idx, "level", &level) ||
		    read_sysfs_u64(dir, idx, "size", &size) ||
		    read_sysfs_u64(dir, idx, "ways_of_associativity", &ways) ||
		    read_sysfs_u64(dir, idx, "coherency_line_size", &line))
			continue;
		struct mp_sim_cache c = { size, (uint32_t)ways, (uint32_t)line };
		int unified;
		struct mp_sim_cache *dst = sysfs_slot(g, level, type, &unified);
		if (!dst)
			continue;
		const char *why = cache_problem(&c);
		if (why) {
			size_t o = strlen(bad);
			snprintf(bad + o, badlen - o, "%s%s (%s)", o ? "; " : "", idx, why);
			memset(dst, 0, sizeof(*dst));
			continue;
		}
		*dst = c;
		if (unified)
			g->i1 = c;
		found = 1;
	}
	return found;
}

int mp_sim_host_l3(const char *dir, struct mp_sim_cache *c, struct mp_err *err)
{
	const char *sysdir = dir ? dir : "/sys/devices/system/cpu/cpu0/cache";
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 16; i++) {
		char idx[16], type[32] = "";
		uint64_t level, size, ways, line;
		if (sysfs_index(sysdir, i, idx, type))
			break;
		if (read_sysfs_u64(sysdir, idx, "level", &level) || level != 3 ||
		    strcmp(type, "Unified"))
			continue;
		if (read_sysfs_u64(sysdir, idx, "size", &size) ||
		    read_sysfs_u64(sysdir, idx, "ways_of_associativity", &ways) ||
		    read_sysfs_u64(sysdir, idx, "coherency_line_size", &line))
			return mp_err_set(err, -ENOENT, "%s/%s: the L3's size, ways or line size "
					  "cannot be read", sysdir, idx);
		struct mp_sim_cache l3 = { size, (uint32_t)ways, (uint32_t)line };
		const char *why = cache_problem(&l3);
		if (why)
			return mp_err_set(err, -EINVAL, "%s/%s: L3 %llu,%u,%u: %s (give --L3 "
					  "SIZE,ASSOC,LINE)", sysdir, idx, (unsigned long long)size,
					  l3.assoc, l3.line, why);
		*c = l3;
		return 0;
	}
	return mp_err_set(err, -ENOENT, "%s: no level 3 unified cache (give --L3 SIZE,ASSOC,LINE)",
			  sysdir);
}

/* ---- CPUID ---------------------------------------------------------------------------- */

#define CPUID_AMD_L1 0x80000005u
#define CPUID_AMD_L2 0x80000006u
#define CPUID_AMD_CACHE 0x8000001Du
#define CPUID_AMD_TOPOEXT_ECX (1u << 22) /* 0x80000001 ECX: leaf 0x8000001D exists */

/* The answer for (leaf, sub) among r, or NULL when it was not recorded. */
static const struct mp_sim_cpuid *cpuid_find(const struct mp_sim_cpuid *r, size_t n,
					     uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].leaf == leaf && r[i].sub == sub)
			return &r[i];
	return NULL;
}

static int cpuid_vendor(const struct mp_sim_cpuid *r, size_t n, char vendor[13])
{
	const struct mp_sim_cpuid *v = cpuid_find(r, n, 0, 0);
	if (!v)
		return -1;
	memcpy(vendor, &v->ebx, 4);
	memcpy(vendor + 4, &v->edx, 4);
	memcpy(vendor + 8, &v->ecx, 4);
	vendor[12] = 0;
	return 0;
}

/* Take c into slot when the slot is still empty and valgrind can simulate c. */
static int cpuid_take(struct mp_sim_cache *slot, struct mp_sim_cache c)
{
	if (slot->size || !c.size || cache_problem(&c))
		return 0;
	*slot = c;
	return 1;
}

/* Intel leaf 4 and AMD leaf 0x8000001D share one layout: EAX type (1 data, 2
 * instruction, 3 unified) and level; EBX ways-1, partitions-1, line-1; ECX sets-1.
 * Subleaves run until type 0. Returns the number of caches taken. */
static int cpuid_deterministic(const struct mp_sim_cpuid *r, size_t n, uint32_t leaf,
			       struct mp_sim_geometry *g)
{
	int got = 0;
	for (uint32_t sub = 0; sub < 16; sub++) {
		const struct mp_sim_cpuid *c = cpuid_find(r, n, leaf, sub);
		if (!c || !(c->eax & 0x1f))
			break;
		uint32_t type = c->eax & 0x1f, level = (c->eax >> 5) & 7;
		uint32_t ways = ((c->ebx >> 22) & 0x3ff) + 1, parts = ((c->ebx >> 12) & 0x3ff) + 1;
		uint32_t line = (c->ebx & 0xfff) + 1;
		uint64_t sets = (uint64_t)c->ecx + 1;
		struct mp_sim_cache k = { (uint64_t)ways * parts * line * sets, ways, line };
		if (level == 1 && type == 1)
			got += cpuid_take(&g->d1, k);
		else if (level == 1 && type == 2)
			got += cpuid_take(&g->i1, k);
		else if (level == 2)
			got += cpuid_take(&g->ll, k);
	}
	return got;
}

/* AMD's L2 associativity code in 0x80000006 ECX[15:12] (0 = no cache; 0xF = fully
 * associative, which valgrind cannot be told). */
static uint32_t amd_l2_ways(uint32_t code)
{
	static const uint32_t ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };
	return ways[code & 15];
}

/* AMD's older cache leaves: 0x80000005 ECX (L1d) and EDX (L1i): size KB [31:24], ways
 * [23:16] (0xFF fully associative), line [7:0]; 0x80000006 ECX (L2): size KB [31:16],
 * ways code [15:12], line [7:0]. */
static int cpuid_amd_legacy(const struct mp_sim_cpuid *r, size_t n, struct mp_sim_geometry *g)
{
	const struct mp_sim_cpuid *l1 = cpuid_find(r, n, CPUID_AMD_L1, 0);
	const struct mp_sim_cpuid *l2 = cpuid_find(r, n, CPUID_AMD_L2, 0);
	int got = 0;
	if (l1) {
		uint32_t d = l1->ecx, i = l1->edx;
		if (((d >> 16) & 0xff) != 0xff)
			got += cpuid_take(&g->d1, (struct mp_sim_cache){ (uint64_t)(d >> 24) << 10,
									 (d >> 16) & 0xff, d & 0xff });
		if (((i >> 16) & 0xff) != 0xff)
			got += cpuid_take(&g->i1, (struct mp_sim_cache){ (uint64_t)(i >> 24) << 10,
									 (i >> 16) & 0xff, i & 0xff });
	}
	if (l2)
		got += cpuid_take(&g->ll, (struct mp_sim_cache){ (uint64_t)(l2->ecx >> 16) << 10,
								 amd_l2_ways((l2->ecx >> 12) & 15),
								 l2->ecx & 0xff });
	return got;
}

static void source_add(struct mp_sim_geometry *g, const char *what)
{
	size_t o = strlen(g->source);
	snprintf(g->source + o, sizeof(g->source) - o, "%s%s", o ? " and " : "", what);
}

int mp_sim_cpuid_geometry(const struct mp_sim_cpuid *r, size_t n, struct mp_sim_geometry *g,
			  struct mp_err *err)
{
	char vendor[13];
	int got = 0;

	if (cpuid_vendor(r, n, vendor))
		return mp_err_set(err, -ENOENT, "CPUID: not available on this CPU");
	if (!strcmp(vendor, "GenuineIntel")) {
		if ((got = cpuid_deterministic(r, n, 4, g)))
			source_add(g, "CPUID leaf 4");
	} else if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		const struct mp_sim_cpuid *ext = cpuid_find(r, n, 0x80000001u, 0);
		if (ext && (ext->ecx & CPUID_AMD_TOPOEXT_ECX) &&
		    (got = cpuid_deterministic(r, n, CPUID_AMD_CACHE, g)))
			source_add(g, "CPUID leaf 0x8000001D");
		int old = cpuid_amd_legacy(r, n, g);
		if (old)
			source_add(g, "CPUID leaves 0x80000005/0x80000006");
		got += old;
	} else {
		return mp_err_set(err, -ENOENT, "CPUID: vendor '%s' has no cache leaves memprof reads",
				  vendor);
	}
	if (!got)
		return mp_err_set(err, -ENOENT, "CPUID (%s): no cache valgrind can simulate", vendor);
	return got;
}

size_t mp_sim_cpuid_read(struct mp_sim_cpuid *r, size_t max)
{
	size_t n = 0;
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	uint32_t top = __get_cpuid_max(0, NULL), ext = __get_cpuid_max(0x80000000u, NULL);
#define ASK(leaf, sub)                                                                   \
	do {                                                                             \
		if (n < max) {                                                           \
			__cpuid_count((leaf), (sub), a, b, c, d);                        \
			r[n++] = (struct mp_sim_cpuid){ (leaf), (sub), a, b, c, d };     \
		}                                                                        \
	} while (0)
	ASK(0u, 0u);
	for (uint32_t s = 0; top >= 4 && s < 16; s++)
		ASK(4u, s);
	if (ext >= 0x80000001u)
		ASK(0x80000001u, 0u);
	if (ext >= CPUID_AMD_L2) {
		ASK(CPUID_AMD_L1, 0u);
		ASK(CPUID_AMD_L2, 0u);
	}
	for (uint32_t s = 0; ext >= CPUID_AMD_CACHE && s < 16; s++)
		ASK(CPUID_AMD_CACHE, s);
#undef ASK
#else
	(void)r;
	(void)max;
#endif
	return n;
}

/* ---- this machine ---------------------------------------------------------------------- */

int mp_sim_host_geometry(const char *dir, struct mp_sim_geometry *g, struct mp_err *err)
{
	char missing[384] = "";
	const char *sysdir = dir ? dir : "/sys/devices/system/cpu/cpu0/cache";

	memset(g, 0, sizeof(*g));
	if (sysfs_geometry(sysdir, g, missing, sizeof(missing)))
		source_add(g, dir ? dir : "sysfs");
	const char *names[3] = { "L1i", "L1d", "L2" };
	const struct mp_sim_cache *cs[3] = { &g->i1, &g->d1, &g->ll };
	struct mp_err cerr = { 0 };
	if (!dir && (!g->i1.size || !g->d1.size || !g->ll.size)) {
		/* no sysfs caches (some VMs and containers): ask the CPU */
		struct mp_sim_cpuid r[48] = { 0 };
		mp_sim_cpuid_geometry(r, mp_sim_cpuid_read(r, 48), g, &cerr);
	}
	for (int i = 0; i < 3; i++)
		if (!cs[i]->size) {
			size_t o = strlen(missing);
			snprintf(missing + o, sizeof(missing) - o, "%s%s not found", o ? "; " : "",
				 names[i]);
		}
	int found = g->i1.size || g->d1.size || g->ll.size;
	if (missing[0])
		mp_err_set(err, found ? 0 : -ENOENT, "%s: %s%s%s; valgrind chooses those caches "
			   "itself (override with --I1, --D1, --LL)", sysdir, missing,
			   cerr.code ? "; " : "", cerr.code ? cerr.msg : "");
	else if (err)
		err->code = 0, err->msg[0] = 0;
	return found ? 0 : -ENOENT;
}
