/* mp_cg_mem.c - the memory side of the call graph (mp_cg_opts.want_mem): per address
 * stack, event and data place (the data symbol and object the sample's address lies in),
 * the samples with their weights summed and their data sources counted by level, for
 * pprof's memory sample types and data labels. */
#include <errno.h>
#include <stdio.h>

#include "mp_cg_int.h"

/* A label's id + 1 (0: none), or 0 with -ENOMEM in *err. */
static uint32_t label(mp_cg *cg, const char *s, int *err)
{
	for (uint64_t h = mp_strhash(s);; h = mp_mix64(h + 1)) {
		int found;
		uint32_t *slot = cg_map_slot(&cg->lidx, h, &found);
		if (!slot)
			break;
		if (found) {
			if (!strcmp(cg->lbl[*slot], s))
				return *slot + 1;
			continue;
		}
		char *d = strdup(s);
		if (!d || mp_grow((void **)&cg->lbl, &cg->caplbl, cg->nlbl + 1, sizeof(*cg->lbl))) {
			free(d);
			mp_u64map_unslot(&cg->lidx, slot);
			break;
		}
		cg->lbl[cg->nlbl] = d;
		*slot = (uint32_t)cg->nlbl++;
		return *slot + 1;
	}
	*err = -ENOMEM;
	return 0;
}

/* The counts of a data source word by level (CG_MEM_*), as perf's mem key reads it: the
 * level number when the word has one, else the level bits; a miss at a level is no hit
 * there. */
static void count_levels(uint64_t ds, uint64_t *v)
{
	struct mp_datasrc d;
	mp_datasrc_decode(ds, &d);
	int lv = -1;
	switch (d.lvl_num) {
	case PERF_MEM_LVLNUM_L1: lv = CG_MEM_L1; break;
	case PERF_MEM_LVLNUM_L2: lv = CG_MEM_L2; break;
	case PERF_MEM_LVLNUM_L3: lv = CG_MEM_L3; break;
	case PERF_MEM_LVLNUM_LFB: lv = CG_MEM_LFB; break;
	case PERF_MEM_LVLNUM_RAM: lv = CG_MEM_DRAM; break;
	default:
		lv = d.lvl & PERF_MEM_LVL_L1    ? CG_MEM_L1
		     : d.lvl & PERF_MEM_LVL_LFB ? CG_MEM_LFB
		     : d.lvl & PERF_MEM_LVL_L2  ? CG_MEM_L2
		     : d.lvl & PERF_MEM_LVL_L3  ? CG_MEM_L3
		     : d.lvl & (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2)
			     ? CG_MEM_DRAM
			     : -1;
	}
	int miss = !!(d.lvl & PERF_MEM_LVL_MISS);
	int hit = lv >= 0 && !miss;
	v[hit ? lv : CG_MEM_OTHER]++;
	if (!(hit && lv == CG_MEM_L1))
		v[CG_MEM_L1_MISS]++;
	/* served beyond the last-level cache */
	if ((hit && lv == CG_MEM_DRAM) || (miss && lv == CG_MEM_L3) ||
	    d.lvl_num == PERF_MEM_LVLNUM_PMEM || d.lvl_num == PERF_MEM_LVLNUM_CXL)
		v[CG_MEM_LLC_MISS]++;
}

int cg_mem_add(mp_cg *cg, uint32_t node, const struct mp_pd_sample *s)
{
	int err = 0;
	uint32_t sl = 0, ol = 0;
	if (s->addr && cg->dd && !(s->addr >> 63)) {
		struct mp_daddr_loc dl;
		char b[512];
		mp_daddr_resolve(cg->dd, s->pid, s->addr, &dl);
		if (dl.sym || dl.kind == MP_DADDR_STACK) {
			mp_daddr_sym_str(&dl, s->addr, '.', b, sizeof(b));
			sl = label(cg, b + 4, &err); /* without perf's "[.] " */
		}
		ol = label(cg, dl.dso, &err);
		if (err)
			return err;
	}
	uint64_t h = mp_mix64((uint64_t)node << 32 ^ (uint64_t)s->attr_idx << 48 ^
			      (uint64_t)sl << 20 ^ ol);
	for (;; h = mp_mix64(h + 1)) {
		int found;
		uint32_t *slot = cg_map_slot(&cg->midx, h, &found);
		if (!slot)
			return -ENOMEM;
		struct cg_mem *e;
		if (found) {
			e = &cg->mem[*slot];
			if (e->node != node || e->attr != s->attr_idx || e->sym_lbl != sl ||
			    e->obj_lbl != ol)
				continue;
		} else {
			if (mp_grow((void **)&cg->mem, &cg->capmem, cg->nmem + 1, sizeof(*cg->mem))) {
				mp_u64map_unslot(&cg->midx, slot);
				return -ENOMEM;
			}
			e = &cg->mem[cg->nmem];
			memset(e, 0, sizeof(*e));
			*e = (struct cg_mem){ .node = node, .attr = (uint32_t)s->attr_idx,
					      .sym_lbl = sl, .obj_lbl = ol };
			*slot = (uint32_t)cg->nmem++;
		}
		e->samples++;
		e->period += s->period;
		e->v[CG_MEM_LATENCY] += s->weight;
		if (s->data_src)
			count_levels(s->data_src, e->v);
		cg->mem_any |= s->weight || s->data_src || sl || ol;
		return 0;
	}
}

void cg_mem_fini(mp_cg *cg)
{
	for (size_t i = 0; i < cg->nlbl; i++)
		free(cg->lbl[i]);
	free(cg->lbl);
	free(cg->mem);
	mp_u64map_fini(&cg->lidx);
	mp_u64map_fini(&cg->midx);
}
