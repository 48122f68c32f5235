/* mp_sim_mem.c - mpsim's memory samples (record --sim -d, c2c record --sim): reading the
 * tool's records and giving each perf's data_src word. mp_sim_write.c writes them as
 * cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P samples.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_sim_int.h"

_Static_assert(sizeof(struct mp_sim_memrec) == 48, "mpsim's memory record is 48 bytes");

void mp_sim_c2c_opts(struct mp_sim_opts *o, uint64_t period)
{
	o->mem_period = period ? period : MP_SIM_MEM_PERIOD;
	o->ldlat = 0; /* every load, as memprof c2c record --sim (perf c2c's 30 would keep L1
		       * and L2 hits out) */
	if (o->cores < 2)
		o->cores = 2;
	o->engine = MP_SIM_ENGINE_MPSIM;
	o->allocs = 1; /* freed blocks held back: no sharing the program does not have */
}

uint64_t mp_sim_mem_datasrc(const struct mp_sim_memrec *r)
{
	struct mp_datasrc d = { 0 };
	if (r->op == 2) {
		/* Intel's precise stores: L1 hit or miss, nothing of the snoop */
		d.op = PERF_MEM_OP_STORE;
		d.lvl = PERF_MEM_LVL_L1 | (r->lvl == MP_SIM_ML_L1 ? PERF_MEM_LVL_HIT : PERF_MEM_LVL_MISS);
		d.lvl_num = PERF_MEM_LVLNUM_L1;
		d.snoop = PERF_MEM_SNOOP_NA;
	} else {
		d.op = PERF_MEM_OP_LOAD;
		d.lvl = PERF_MEM_LVL_HIT;
		d.snoop = PERF_MEM_SNOOP_NONE;
		switch (r->lvl) {
		case MP_SIM_ML_LFB:
			d.lvl |= PERF_MEM_LVL_LFB;
			d.lvl_num = PERF_MEM_LVLNUM_LFB;
			break;
		case MP_SIM_ML_L1:
			d.lvl |= PERF_MEM_LVL_L1;
			d.lvl_num = PERF_MEM_LVLNUM_L1;
			break;
		case MP_SIM_ML_L2:
			d.lvl |= PERF_MEM_LVL_L2;
			d.lvl_num = PERF_MEM_LVLNUM_L2;
			break;
		case MP_SIM_ML_L3:
			/* the L3 the cores share, no other core's copy */
			d.lvl |= PERF_MEM_LVL_L3;
			d.lvl_num = PERF_MEM_LVLNUM_L3;
			break;
		case MP_SIM_ML_PEER:
			/* another core's copy: Intel says L3 hit, snoop HitM (Modified there) or
			 * Hit; the peer bit says it came from that core */
			d.lvl |= PERF_MEM_LVL_L3;
			d.lvl_num = PERF_MEM_LVLNUM_L3;
			d.snoop = r->snoop == MP_SIM_MS_HITM ? PERF_MEM_SNOOP_HITM : PERF_MEM_SNOOP_HIT;
			d.snoopx = PERF_MEM_SNOOPX_PEER;
			break;
		default:
			d.lvl |= PERF_MEM_LVL_LOC_RAM;
			d.lvl_num = PERF_MEM_LVLNUM_RAM;
			d.snoop = PERF_MEM_SNOOP_MISS;
			break;
		}
	}
	d.dtlb = r->tlb == 1   ? PERF_MEM_TLB_HIT | PERF_MEM_TLB_L1
		 : r->tlb == 2 ? PERF_MEM_TLB_HIT | PERF_MEM_TLB_L2
		 : r->tlb == 3 ? PERF_MEM_TLB_MISS | PERF_MEM_TLB_WK
			       : PERF_MEM_TLB_NA;
	d.lock = r->lock ? PERF_MEM_LOCK_LOCKED : 0;
	return mp_datasrc_encode(&d);
}

struct sim_mem_key {
	uint64_t time;
	uint32_t cpu;
	size_t i;
};

static int sim_mem_key_cmp(const void *a, const void *b)
{
	const struct sim_mem_key *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Records r[0..n) in time order, those of one time by core, then as they came: the tool
 * simulates the cores' accesses that cannot meet in a cache in any order, so a sample of
 * one core may come after a later one of another. */
static int sim_mem_sort(struct mp_sim_memrec *r, size_t n)
{
	size_t i = 1;
	while (i < n && (r[i - 1].time < r[i].time ||
			 (r[i - 1].time == r[i].time && r[i - 1].cpu <= r[i].cpu)))
		i++;
	if (i >= n)
		return 0;
	struct sim_mem_key *k = malloc(n * sizeof(*k));
	struct mp_sim_memrec *c = malloc(n * sizeof(*c));
	if (!k || !c) {
		free(k);
		free(c);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		k[i] = (struct sim_mem_key){ r[i].time, r[i].cpu, i };
	qsort(k, n, sizeof(*k), sim_mem_key_cmp);
	for (i = 0; i < n; i++)
		c[i] = r[k[i].i];
	memcpy(r, c, n * sizeof(*c));
	free(k);
	free(c);
	return 0;
}

int mp_sim_mem_read(const char *path, struct mp_sim_memrec **recs, size_t *n, uint64_t *loads,
		    uint64_t *stores, struct mp_err *err)
{
	uint8_t *buf;
	size_t sz = 0;
	int rc;
	*recs = NULL;
	*n = 0;
	*loads = *stores = 0;
	if ((rc = mp_sim_read_all(path, &buf, &sz, err)))
		return rc;
	size_t nr = sz / sizeof(**recs);
	if (sz % sizeof(**recs) || !nr) {
		free(buf);
		return mp_err_set(err, -MP_EFORMAT, "%s: %zu bytes: not whole records of %zu with "
				  "the last one (mpsim's memory samples)", path, sz, sizeof(**recs));
	}
	struct mp_sim_memrec *r = (struct mp_sim_memrec *)buf;
	const struct mp_sim_memrec *last = &r[nr - 1];
	for (size_t i = 0; i + 1 < nr; i++)
		if (r[i].op != 1 && r[i].op != 2) {
			rc = mp_err_set(err, -MP_EFORMAT, "%s: record %zu: operation %u is neither "
					"load (1) nor store (2)", path, i, r[i].op);
			break;
		}
	if (!rc && last->op != 0)
		rc = mp_err_set(err, -MP_EFORMAT, "%s: no final record (mpsim stopped before "
				"its end)", path);
	if (!rc && sim_mem_sort(r, nr - 1))
		rc = mp_err_set(err, -ENOMEM, "%s: %zu samples: out of memory", path, nr - 1);
	if (rc) {
		free(r);
		return rc;
	}
	*loads = last->ip;
	*stores = last->addr;
	*recs = r;
	*n = nr - 1;
	return 0;
}
