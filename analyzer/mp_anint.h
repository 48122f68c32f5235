/* mp_anint.h - helpers shared by the symbol, aggregation and annotate files of the
 * analyzer, and by the call graph (callgraph/ sits above the analyzer and uses its hash
 * map and growable arrays). Not a public header. */
#ifndef MP_ANINT_H
#define MP_ANINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_util.h" /* mp_grow */

static inline uint64_t mp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t mp_strhash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	if (!s)
		return 0;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static inline int mp_streq(const char *a, const char *b)
{
	if (a == b)
		return 1;
	if (!a || !b)
		return 0;
	return !strcmp(a, b);
}

/* u64 -> u32 open-addressing map; key UINT64_MAX is reserved (empty slot). */
struct mp_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n; /* cap is a power of two */
};

/* key folded into the map's range: the reserved UINT64_MAX becomes UINT64_MAX - 1 (for keys
 * that are hashes, or ids that may be UINT64_MAX). */
static inline uint64_t mp_u64map_key(uint64_t key)
{
	return key == UINT64_MAX ? UINT64_MAX - 1 : key;
}

static inline int mp_u64map_grow(struct mp_u64map *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nk = malloc(ncap * sizeof(*nk));
	uint32_t *nv = malloc(ncap * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -1;
	}
	memset(nk, 0xff, ncap * sizeof(*nk));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->keys[i] == UINT64_MAX)
			continue;
		size_t j = mp_mix64(m->keys[i]) & (ncap - 1);
		while (nk[j] != UINT64_MAX)
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

/* Returns a pointer to the value slot for key; *found says whether it existed. NULL on
 * allocation failure. */
static inline uint32_t *mp_u64map_slot(struct mp_u64map *m, uint64_t key, int *found)
{
	if ((m->n + 1) * 2 > m->cap && mp_u64map_grow(m))
		return NULL;
	size_t j = mp_mix64(key) & (m->cap - 1);
	while (m->keys[j] != UINT64_MAX) {
		if (m->keys[j] == key) {
			*found = 1;
			return &m->vals[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->keys[j] = key;
	m->n++;
	*found = 0;
	return &m->vals[j];
}

/* Undo the creation of the slot mp_u64map_slot() just returned (its caller failed to
 * fill it): valid only while nothing was placed after it in its probe run. */
static inline void mp_u64map_unslot(struct mp_u64map *m, uint32_t *slot)
{
	m->keys[slot - m->vals] = UINT64_MAX;
	m->n--;
}

static inline const uint32_t *mp_u64map_get(const struct mp_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t j = mp_mix64(key) & (m->cap - 1);
	while (m->keys[j] != UINT64_MAX) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

static inline void mp_u64map_fini(struct mp_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

#endif
