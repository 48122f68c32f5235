/* fuzz_allocspool.c - libFuzzer harness for record --alloc's spool parser (what the preload
 * library writes, mp_alloc_spool_parse): the input as one spool file into a writer, then
 * the recording read back and every heap object looked up (analyzer/mp_heap.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_alloc.h"
#include "mp_analyzer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/mp-fuzz-spool-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	close(fd);
	struct mp_err err = { 0 };
	mp_pdw *w = mp_pdw_create(path, &err);
	if (!w) {
		unlink(path);
		return 0;
	}
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
	a.sample_id_all = 1;
	uint64_t id = 1;
	mp_pdw_add_attr(w, &a, &id, 1, "page-faults", NULL);
	mp_pdw_set_auto_build_ids(w, 0);
	struct mp_alloc_stats st = { 0 };
	mp_alloc_spool_parse(data, size, "fuzz.spool", w, &st);
	uint64_t sum = st.records + st.lost + st.bad;
	if (mp_pdw_close(w, &err)) {
		unlink(path);
		return 0;
	}
	mp_pd *pd = mp_pd_open(path, &err);
	unlink(path);
	if (!pd)
		return 0;
	mp_heap *h = mp_heap_new(pd);
	struct mp_pd_allocs in;
	if (h && mp_pd_allocs(pd, &in) == 0) {
		for (uint64_t i = 0; i < in.nr_recs && i < 4096; i++) {
			struct mp_alloc_rec r;
			if (mp_pd_alloc_rec(pd, i, &r))
				break;
			struct mp_heap_obj o;
			/* looked up at its own time and, every few, earlier (a replay) */
			mp_heap_find(h, r.pid, r.addr + (r.size >> 1), r.time, &o);
			if (i % 7 == 3)
				mp_heap_find(h, r.pid, r.addr, r.time >> 1, &o);
			sum += o.found + o.offset + strlen(mp_heap_site_name(h, NULL, o.site));
		}
		const struct mp_heap_stats *hs = mp_heap_stats(h);
		sum += hs->live + hs->unknown_free + hs->stale;
	}
	mp_heap_free(h);
	mp_pd_close(pd);
	return sum == 0x5a5a5a5a5a5a5a5aULL;
}
