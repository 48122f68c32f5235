/* fuzz_perfdata.c - libFuzzer harness for the perf.data reader: open the input as a
 * perf.data file (in memory, exactly sized so any over-read is caught) and walk it with
 * every callback set, touching every borrowed array the reader hands out, and printing
 * each sample's memory fields (DATA_SRC, WEIGHT) as the views do. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mp_analyzer.h" /* the unwinder over the reader */

struct fz {
	uint64_t sum;
	mp_unwind *uw; /* without symbols: LBR stitching and the plain chains */
};

static int fz_sample(void *c, const struct mp_pd_sample *s)
{
	struct fz *f = c;
	f->sum += s->ip + s->period + s->attr_idx;
	for (uint64_t i = 0; i < s->nr_callchain; i++)
		f->sum += s->callchain[i];
	for (uint64_t i = 0; i < s->nr_branch; i++)
		f->sum += s->branch[i].from ^ s->branch[i].to;
	const uint8_t *raw = s->raw;
	for (uint32_t i = 0; i < s->raw_size; i++)
		f->sum += raw[i];
	const uint8_t *stk = s->user_stack;
	for (uint64_t i = 0; stk && i < s->user_stack_size; i++)
		f->sum += stk[i];
	if (s->regs_user) {
		int n = __builtin_popcountll(s->regs_user_mask);
		for (int i = 0; i < n; i++) {
			uint64_t r;
			memcpy(&r, (const uint8_t *)s->regs_user + 8 * i, 8);
			f->sum += r;
		}
	}
	/* the memory fields, through the decoder every view prints them with */
	char w[160];
	f->sum += mp_datasrc_script_str(s->data_src, w, sizeof(w)) +
		  mp_datasrc_lvl_str(s->data_src, w, sizeof(w)) +
		  mp_datasrc_snoop_str(s->data_src, w, sizeof(w)) +
		  mp_datasrc_tlb_str(s->data_src, w, sizeof(w)) + s->weight + s->ins_lat +
		  s->addr + s->phys_addr + s->data_page_size;
	if (f->uw) {
		const uint64_t *ips;
		size_t n = mp_unwind_sample(f->uw, s, &ips);
		for (size_t i = 0; i < n; i++)
			f->sum += ips[i];
	}
	return 0;
}

static int fz_mmap(void *c, const struct mp_pd_mmap *m)
{
	((struct fz *)c)->sum += strlen(m->filename) + m->start + m->build_id_len;
	return 0;
}

static int fz_task(void *c, const struct mp_pd_task *t)
{
	((struct fz *)c)->sum += t->pid + (t->comm ? strlen(t->comm) : 0);
	return 0;
}

static int fz_lost(void *c, size_t attr, uint64_t n)
{
	((struct fz *)c)->sum += attr + n;
	return 0;
}

static void fz_progress(void *c, uint64_t done, uint64_t total)
{
	((struct fz *)c)->sum += done + total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open_mem(data, size, "fuzz.data", &err);
	if (!pd)
		return 0;
	struct fz f = { 0 };
	f.uw = mp_unwind_new(NULL, pd, &err);
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		f.sum += strlen(a->name) + strlen(a->spec) + a->nids;
		for (size_t k = 0; k < a->nids; k++)
			f.sum += a->ids[k];
	}
	for (size_t i = 0; i < mp_pd_nbuild_ids(pd); i++)
		f.sum += strlen(mp_pd_build_id(pd, i)->filename);
	for (int feat = 0; feat < 32; feat++)
		if (mp_pd_feature_str(pd, feat))
			f.sum += strlen(mp_pd_feature_str(pd, feat));
	struct mp_pd_topo topo;
	if (mp_pd_topo_read(pd, &topo) == 0) {
		for (uint32_t c = 0; c < topo.ncpus; c++)
			f.sum += (size_t)topo.socket[c] + (size_t)topo.core[c] + (size_t)topo.node[c];
		f.sum += strlen(topo.caches) + topo.nnodes;
		mp_pd_topo_fini(&topo);
	}
	struct mp_pd_memtopo mt;
	if (mp_pd_memtopo_read(pd, &mt) == 0) {
		for (size_t i = 0; i < mt.n; i++)
			f.sum += (size_t)mp_pd_memtopo_node(&mt, mt.r[i].start) +
				 (size_t)mp_pd_memtopo_node(&mt, mt.r[i].end - 1);
		mp_pd_memtopo_fini(&mt);
	}
	mp_pd_regions *reg = NULL;
	if (mp_pd_regions_load(pd, &reg, &err) == 0 && reg) {
		for (uint32_t k = 0; k <= mp_pd_regions_count(reg) + 1; k++)
			f.sum += strlen(mp_pd_region_name(reg, k));
		for (uint64_t t = 0; t < 64; t++)
			f.sum += mp_pd_region_of(reg, (uint32_t)t, t * t * 1000003u);
		mp_pd_regions_free(reg);
	}
	struct mp_pd_handler h = {
		.ctx = &f, .sample = fz_sample, .mmap = fz_mmap, .comm = fz_task, .fork = fz_task,
		.exit = fz_task, .lost = fz_lost, .progress = fz_progress,
	};
	mp_pd_process(pd, &h, &err);
	/* and once more without the non-sample callbacks: the unordered path */
	struct mp_pd_handler h2 = { .ctx = &f, .sample = fz_sample };
	mp_pd_process(pd, &h2, &err);
	mp_unwind_free(f.uw);
	mp_pd_close(pd);
	return f.sum == 0x5a5a5a5a5a5a5a5aULL; /* keeps the sums from being optimised away */
}
