/* The recorded topology: perf's HEADER_CPU_TOPOLOGY, NUMA_TOPOLOGY and CACHE payloads
 * (tools/perf/util/header.c: process_cpu_topology, process_numa_topology, process_cache). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_perfdata.h"

struct rd {
	const uint8_t *p;
	size_t n, off;
};

static int rd32(struct rd *r, uint32_t *v)
{
	if (r->n - r->off < 4)
		return -1;
	memcpy(v, r->p + r->off, 4);
	r->off += 4;
	return 0;
}

static int rd64(struct rd *r, uint64_t *v)
{
	if (r->n - r->off < 8)
		return -1;
	memcpy(v, r->p + r->off, 8);
	r->off += 8;
	return 0;
}

/* u32 length then the bytes (NUL-padded); *s points into the payload, *len its length */
static int rdstr(struct rd *r, const char **s, size_t *len)
{
	uint32_t l;
	if (rd32(r, &l) || l > r->n - r->off)
		return -1;
	*s = (const char *)r->p + r->off;
	*len = strnlen(*s, l);
	r->off += l;
	return 0;
}

/* Calls fn(ctx, cpu) for each CPU of a Linux list ("0-3,8") of len bytes. */
static int each_cpu(const char *s, size_t len, void (*fn)(void *, uint32_t), void *ctx)
{
	char buf[8192];
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	for (char *p = buf; *p;) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;
		if (end == p)
			return -1;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long c = a; c <= b && c < (1u << 20); c++)
			fn(ctx, (uint32_t)c);
		p = *end == ',' ? end + 1 : end;
		if (*p && *p != ',' && (*p < '0' || *p > '9'))
			break;
	}
	return 0;
}

struct node_ctx {
	struct mp_pd_topo *t;
	int32_t node;
};

static void set_node(void *ctx, uint32_t cpu)
{
	struct node_ctx *c = ctx;
	if (cpu < c->t->ncpus)
		c->t->node[cpu] = c->node;
}

void mp_pd_topo_fini(struct mp_pd_topo *t)
{
	free(t->socket);
	free(t->core);
	free(t->node);
	free(t->node_mem_kb);
	free(t->node_ids);
	memset(t, 0, sizeof(*t));
}

static void caches_summary(const mp_pd *pd, struct mp_pd_topo *t)
{
	size_t n;
	const uint8_t *p = mp_pd_feature_raw(pd, MP_HEADER_CACHE, &n);
	struct rd r = { p, n, 0 };
	uint32_t version, cnt;
	if (!p || rd32(&r, &version) || version != 1 || rd32(&r, &cnt))
		return;
	/* one entry per kind (level, type, size): how many caches of that kind */
	struct kind {
		uint32_t level;
		char type[16], size[24];
		unsigned count;
	} k[32];
	unsigned nk = 0;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t level, line, sets, ways;
		const char *type, *size, *map;
		size_t tl, sl, ml;
		if (rd32(&r, &level) || rd32(&r, &line) || rd32(&r, &sets) || rd32(&r, &ways) ||
		    rdstr(&r, &type, &tl) || rdstr(&r, &size, &sl) || rdstr(&r, &map, &ml))
			return;
		char ty[16], sz[24];
		snprintf(ty, sizeof(ty), "%.*s", (int)tl, type);
		snprintf(sz, sizeof(sz), "%.*s", (int)sl, size);
		unsigned j;
		for (j = 0; j < nk; j++)
			if (k[j].level == level && !strcmp(k[j].type, ty) && !strcmp(k[j].size, sz))
				break;
		if (j == nk && nk < 32) {
			k[nk] = (struct kind){ .level = level };
			snprintf(k[nk].type, sizeof(k[nk].type), "%s", ty);
			snprintf(k[nk].size, sizeof(k[nk].size), "%s", sz);
			nk++;
		}
		if (j < 32)
			k[j].count++;
	}
	size_t off = 0;
	for (unsigned j = 0; j < nk && off < sizeof(t->caches); j++)
		off += (size_t)snprintf(t->caches + off, sizeof(t->caches) - off, "%sL%u%s %s x%u",
					j ? ", " : "", k[j].level,
					!strcmp(k[j].type, "Data") ? "d"
					: !strcmp(k[j].type, "Instruction") ? "i" : "",
					k[j].size, k[j].count);
}

uint32_t mp_pd_cache_line_size(const mp_pd *pd)
{
	const char *d1 = mp_pd_meta(pd, MP_META_SIM_D1);
	unsigned long long size;
	unsigned assoc, line;

	if (d1 && sscanf(d1, "%llu,%u,%u", &size, &assoc, &line) == 3 && line && line <= 4096)
		return line;
	size_t n;
	const uint8_t *p = mp_pd_feature_raw(pd, MP_HEADER_CACHE, &n);
	struct rd r = { p, n, 0 };
	uint32_t version, cnt;
	if (!p || rd32(&r, &version) || version != 1 || rd32(&r, &cnt))
		return 0;
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t level, ln, sets, ways;
		const char *type, *sz, *map;
		size_t tl, sl, ml;
		if (rd32(&r, &level) || rd32(&r, &ln) || rd32(&r, &sets) || rd32(&r, &ways) ||
		    rdstr(&r, &type, &tl) || rdstr(&r, &sz, &sl) || rdstr(&r, &map, &ml))
			return 0;
		if (ln && ln <= 4096 && ((tl >= 4 && !strncmp(type, "Data", 4)) ||
					 (tl >= 7 && !strncmp(type, "Unified", 7))))
			return ln;
	}
	return 0;
}

int mp_pd_topo_read(const mp_pd *pd, struct mp_pd_topo *t)
{
	size_t n;
	memset(t, 0, sizeof(*t));
	const uint8_t *p = mp_pd_feature_raw(pd, MP_HEADER_CPU_TOPOLOGY, &n);
	if (!p)
		return -ENOENT;
	struct rd r = { p, n, 0 };
	uint32_t nr;
	const char *s;
	size_t len;
	/* package sibling lists, then thread sibling lists */
	for (int pass = 0; pass < 2; pass++) {
		if (rd32(&r, &nr))
			return -EINVAL;
		if (pass == 0)
			t->nsockets = nr;
		else
			t->nthreads_sets = nr;
		for (uint32_t i = 0; i < nr; i++)
			if (rdstr(&r, &s, &len))
				return -EINVAL;
	}
	/* then core and socket of each CPU perf counted (HEADER_NRCPUS avail); older files
	 * stop before */
	uint32_t ncpus = (uint32_t)((r.n - r.off) / 8), avail = mp_pd_nr_cpus_avail(pd);
	if (avail && avail < ncpus) /* a die section follows (newer perf) */
		ncpus = avail;
	t->ncpus = ncpus;
	t->socket = malloc((ncpus + 1) * sizeof(int32_t));
	t->core = malloc((ncpus + 1) * sizeof(int32_t));
	t->node = malloc((ncpus + 1) * sizeof(int32_t));
	if (!t->socket || !t->core || !t->node) {
		mp_pd_topo_fini(t);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < ncpus; c++) {
		uint32_t core = UINT32_MAX, sock = UINT32_MAX;
		if (rd32(&r, &core) || rd32(&r, &sock))
			break;
		t->core[c] = (int32_t)core;
		t->socket[c] = (int32_t)sock;
		t->node[c] = -1;
	}
	p = mp_pd_feature_raw(pd, MP_HEADER_NUMA_TOPOLOGY, &n);
	if (p) {
		struct rd q = { p, n, 0 };
		if (rd32(&q, &nr) == 0 && nr < 4096) {
			t->node_mem_kb = calloc(nr + 1, sizeof(uint64_t));
			t->node_ids = calloc(nr + 1, sizeof(int32_t));
			if (!t->node_mem_kb || !t->node_ids) {
				mp_pd_topo_fini(t);
				return -ENOMEM;
			}
			for (uint32_t i = 0; i < nr; i++) {
				uint32_t node;
				uint64_t total, freemem;
				if (rd32(&q, &node) || rd64(&q, &total) || rd64(&q, &freemem) ||
				    rdstr(&q, &s, &len))
					break;
				struct node_ctx c = { t, (int32_t)node };
				each_cpu(s, len, set_node, &c);
				t->node_ids[t->nnodes] = (int32_t)node;
				t->node_mem_kb[t->nnodes++] = total;
			}
		}
	}
	caches_summary(pd, t);
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct mp_pd_memrange *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* version 1, the block size, the node count, then per node: its number, its bitmap's size
 * in bits twice (perf's node size and do_write_bitmap's), the bitmap's u64 words */
int mp_pd_memtopo_read(const mp_pd *pd, struct mp_pd_memtopo *m)
{
	memset(m, 0, sizeof(*m));
	size_t n;
	const uint8_t *p = mp_pd_feature_raw(pd, MP_HEADER_MEM_TOPOLOGY, &n);
	if (!p)
		return -ENOENT;
	struct rd r = { p, n, 0 };
	uint64_t ver, bsize, nr;
	if (rd64(&r, &ver) || ver != 1 || rd64(&r, &bsize) || !bsize || rd64(&r, &nr) ||
	    nr > 4096)
		return -EINVAL;
	size_t cap = 0;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t node, size, bits;
		if (rd64(&r, &node) || rd64(&r, &size) || rd64(&r, &bits) || bits > (1u << 24) ||
		    (bits + 63) / 64 > (r.n - r.off) / 8) {
			mp_pd_memtopo_fini(m);
			return -EINVAL;
		}
		for (uint64_t w = 0; w < (bits + 63) / 64; w++) {
			uint64_t word = 0;
			rd64(&r, &word);
			for (unsigned b = 0; b < 64 && w * 64 + b < bits; b++) {
				if (!(word >> b & 1))
					continue;
				uint64_t start = (w * 64 + b) * bsize;
				if (m->n && m->r[m->n - 1].node == (int32_t)node &&
				    m->r[m->n - 1].end == start) {
					m->r[m->n - 1].end += bsize;
					continue;
				}
				int big = m->n >= (1u << 20); /* bounded, whatever the payload */
				if (big || MP_GROW(m->r, cap, m->n + 1)) {
					mp_pd_memtopo_fini(m);
					return big ? -EINVAL : -ENOMEM;
				}
				m->r[m->n++] = (struct mp_pd_memrange){ start, start + bsize, (int32_t)node };
			}
		}
	}
	if (m->n > 1) /* qsort of NULL (no ranges) is undefined */
		qsort(m->r, m->n, sizeof(*m->r), range_cmp);
	return 0;
}

void mp_pd_memtopo_fini(struct mp_pd_memtopo *m)
{
	free(m->r);
	m->r = NULL;
	m->n = 0;
}

int mp_pd_memtopo_node(const struct mp_pd_memtopo *m, uint64_t pa)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->r[mid].end <= pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->r[lo].start <= pa ? m->r[lo].node : -1;
}
