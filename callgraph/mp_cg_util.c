/* mp_cg_util.c - the call graph's keys on util's u64 -> u32 map (mp_util.h). */
#include "mp_cg_int.h"

uint32_t *cg_map_slot(struct mp_u64map *m, uint64_t key, int *found)
{
	return mp_u64map_slot(m, mp_u64map_key(key), found);
}

const uint32_t *cg_map_get(const struct mp_u64map *m, uint64_t key)
{
	return mp_u64map_get(m, mp_u64map_key(key));
}
