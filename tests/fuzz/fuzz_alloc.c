/* fuzz_alloc.c - libFuzzer harness for the allocation records (MP_HEADER_ALLOC): open the
 * input as a perf.data file in memory (exactly sized) and read every record and site the
 * reader hands out. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mp_perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mp_err err = { 0 };
	mp_pd *pd = mp_pd_open_mem(data, size, "fuzz.data", &err);
	if (!pd)
		return 0;
	uint64_t sum = 0;
	struct mp_pd_allocs in;
	if (mp_pd_allocs(pd, &in) == 0) {
		for (uint64_t i = 0; i <= in.nr_recs; i++) {
			struct mp_alloc_rec r;
			if (mp_pd_alloc_rec(pd, i, &r))
				break;
			sum += r.time + r.addr + r.size + r.old + r.pid + r.tid +
			       strlen(mp_alloc_kind_name(r.kind));
			uint32_t pid, nr;
			const uint64_t *ips;
			if (mp_pd_alloc_site(pd, r.site, &pid, &ips, &nr) == 0)
				for (uint32_t k = 0; k < nr; k++)
					sum += ips[k] + pid;
		}
		for (uint64_t s = 0; s <= in.nr_sites && s < UINT32_MAX; s++) {
			uint32_t pid, nr;
			const uint64_t *ips;
			if (mp_pd_alloc_site(pd, (uint32_t)s, &pid, &ips, &nr))
				break;
			sum += nr ? ips[nr - 1] : pid;
		}
	}
	mp_pd_close(pd);
	return sum == 0x5a5a5a5a5a5a5a5aULL;
}
