/* mp_cg_util.c - the call graph's growable arrays and u64 -> u32 hash map. */
#include "mp_cg_int.h"

int cg_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *np = realloc(*p, ncap * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

static int map_grow(struct cg_map *m)
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
		size_t j = cg_mix(m->keys[i]) & (ncap - 1);
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

uint32_t *cg_map_slot(struct cg_map *m, uint64_t key, int *found)
{
	if (key == UINT64_MAX)
		key = UINT64_MAX - 1; /* the reserved key: callers compare full keys anyway */
	if ((m->n + 1) * 2 > m->cap && map_grow(m))
		return NULL;
	size_t j = cg_mix(key) & (m->cap - 1);
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

void cg_map_unslot(struct cg_map *m, uint32_t *slot)
{
	/* the slot was the last one created and nothing was placed after it in its probe run */
	size_t j = (size_t)(slot - m->vals);
	m->keys[j] = UINT64_MAX;
	m->n--;
}

const uint32_t *cg_map_get(const struct cg_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	if (key == UINT64_MAX)
		key = UINT64_MAX - 1;
	size_t j = cg_mix(key) & (m->cap - 1);
	while (m->keys[j] != UINT64_MAX) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

void cg_map_fini(struct cg_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
