/* mp_pd_alloc.c - perf.data reader: the allocation records (MP_HEADER_ALLOC) of record
 * --alloc and the simulator. The payload is checked whole at open (sizes that add up, every
 * site inside its bytes); records are read one at a time by copy (the payload may be
 * unaligned), their sites and kinds checked by the callers. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mp_pd_int.h"

void mp_pd_alloc_piece(mp_pd *pd, const uint8_t *p, size_t n, int whole)
{
	struct pd_allocs *a = &pd->alloc;
	if (whole) {
		a->p = p;
		a->n = n;
		return;
	}
	if (mp_buf_append(&a->abuf, p, n)) {
		mp_log(MP_LOG_WARN, "%s: out of memory for the allocation records: left out",
		       pd->path);
		mp_buf_fini(&a->abuf);
		a->abuf.len = 0;
	}
}

static void drop(mp_pd *pd, const char *why, uint64_t v)
{
	struct pd_allocs *a = &pd->alloc;
	mp_log(MP_LOG_WARN, "%s: allocation records (memprof's feature %d): %s (%" PRIu64
	       "): left out", pd->path, MP_HEADER_ALLOC, why, v);
	free(a->ips);
	free(a->first);
	free(a->pid);
	a->ips = a->first = NULL;
	a->pid = NULL;
	a->ok = 0;
}

#define DROP(why, v)                                                                     \
	do {                                                                             \
		drop(pd, why, v);                                                        \
		return;                                                                  \
	} while (0)

void mp_pd_alloc_load(mp_pd *pd)
{
	struct pd_allocs *a = &pd->alloc;
	if (!a->p && a->abuf.len) {
		a->p = (const uint8_t *)a->abuf.data;
		a->n = a->abuf.len;
	}
	if (!a->p)
		return;
	const uint8_t *p = a->p;
	size_t n = a->n;
	if (n < 64)
		DROP("shorter than its header, bytes", n);
	if (mp_ld64(p) != MP_ALLOC_MAGIC)
		DROP("bad magic", mp_ld64(p));
	uint32_t hsize = mp_ld32(p + 8), rsize = mp_ld32(p + 12);
	if (hsize < 64 || hsize > n)
		DROP("bad header size", hsize);
	if (rsize != sizeof(struct mp_alloc_rec))
		DROP("unknown record size", rsize);
	uint64_t nsites = mp_ld64(p + 16), nrecs = mp_ld64(p + 24), sbytes = mp_ld64(p + 40);
	a->lost = mp_ld64(p + 32);
	if (sbytes > n - hsize)
		DROP("sites run past the end, bytes", sbytes);
	if (nrecs != (n - hsize - sbytes) / rsize || (n - hsize - sbytes) % rsize)
		DROP("record count does not match the size", nrecs);
	if (nsites > sbytes / 8)
		DROP("more sites than their bytes hold", nsites);
	a->first = malloc((nsites + 1) * sizeof(*a->first));
	a->pid = malloc((nsites ? nsites : 1) * sizeof(*a->pid));
	a->ips = malloc(sbytes ? sbytes : 1);
	if (!a->first || !a->pid || !a->ips)
		DROP("out of memory for sites", nsites);
	const uint8_t *s = p + hsize, *end = s + sbytes;
	uint64_t nips = 0;
	for (uint64_t i = 0; i < nsites; i++) {
		if (end - s < 8)
			DROP("site runs past the end", i);
		uint32_t nr = mp_ld32(s + 4);
		if (nr > MP_ALLOC_MAX_DEPTH || (uint64_t)(end - s - 8) < (uint64_t)nr * 8)
			DROP("site's call chain runs past the end", i);
		a->pid[i] = mp_ld32(s);
		a->first[i] = nips;
		memcpy(a->ips + nips, s + 8, (size_t)nr * 8);
		nips += nr;
		s += 8 + (size_t)nr * 8;
	}
	if (s != end)
		DROP("bytes left after the sites", (uint64_t)(end - s));
	a->first[nsites] = nips;
	a->nsites = nsites;
	a->nrecs = nrecs;
	a->recs = end;
	a->ok = 1;
}

void mp_pd_alloc_fini(mp_pd *pd)
{
	struct pd_allocs *a = &pd->alloc;
	free(a->ips);
	free(a->first);
	free(a->pid);
	mp_buf_fini(&a->abuf);
	memset(a, 0, sizeof(*a));
}

int mp_pd_allocs(const mp_pd *pd, struct mp_pd_allocs *out)
{
	const struct pd_allocs *a = &pd->alloc;
	memset(out, 0, sizeof(*out));
	if (!a->ok)
		return -ENOENT;
	out->nr_recs = a->nrecs;
	out->nr_sites = a->nsites;
	out->lost = a->lost;
	return 0;
}

int mp_pd_alloc_rec(const mp_pd *pd, uint64_t idx, struct mp_alloc_rec *r)
{
	const struct pd_allocs *a = &pd->alloc;
	if (!a->ok || idx >= a->nrecs)
		return -ERANGE;
	memcpy(r, a->recs + idx * sizeof(*r), sizeof(*r));
	if (r->site >= a->nsites)
		r->site = MP_ALLOC_NO_SITE;
	return 0;
}

int mp_pd_alloc_site(const mp_pd *pd, uint32_t idx, uint32_t *pid, const uint64_t **ips,
		     uint32_t *nr)
{
	const struct pd_allocs *a = &pd->alloc;
	if (!a->ok || idx >= a->nsites)
		return -ERANGE;
	*pid = a->pid[idx];
	*ips = a->ips + a->first[idx];
	*nr = (uint32_t)(a->first[idx + 1] - a->first[idx]);
	return 0;
}
