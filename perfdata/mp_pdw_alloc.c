/* mp_pdw_alloc.c - perf.data writer: the allocation records (MP_HEADER_ALLOC) of record
 * --alloc and the simulator. Sites (pid + call chain) are interned in memory (a program has
 * few); records wait in an unlinked temporary file so that millions of them cost disk, not
 * memory, and are sorted by time at close (a stable merge sort over two mappings). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mp_pdw_int.h"

#define SPOOL_BUF (64 * 1024)

struct pdw_alloc {
	int spool;          /* unlinked temporary file of records, -1 until the first */
	uint64_t nrecs, lost;
	unsigned char *buf; /* records not yet written to the spool */
	size_t blen;
	struct mp_buf sites;      /* the payload's sites, as written */
	uint64_t *site_off;       /* [nsites] offset of each in sites */
	uint32_t *site_next;      /* [nsites] next site of the same hash, UINT32_MAX ends */
	size_t nsites, csites, cnext;
	struct mp_u64map byhash;  /* hash of (pid, chain) -> first site */
};

const char *mp_alloc_kind_name(unsigned kind)
{
	static const char *const names[] = { "?", "malloc", "calloc", "realloc", "memalign",
					     "mmap", "free", "munmap", "fork", "exec", "lost" };
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

static struct pdw_alloc *alloc_of(mp_pdw *w)
{
	if (!w->alloc) {
		w->alloc = calloc(1, sizeof(*w->alloc));
		if (!w->alloc)
			return NULL;
		w->alloc->spool = -1;
	}
	return w->alloc;
}

static int tmp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	snprintf(path, sizeof(path), "%s/memprof-alloc.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

int mp_pdw_alloc_site(mp_pdw *w, uint32_t pid, const uint64_t *ips, uint32_t nr, uint32_t *site)
{
	struct pdw_alloc *a = alloc_of(w);
	if (!a)
		return -ENOMEM;
	if (nr > MP_ALLOC_MAX_DEPTH)
		nr = MP_ALLOC_MAX_DEPTH;
	uint64_t h = mp_mix64(pid + ((uint64_t)nr << 32));
	for (uint32_t i = 0; i < nr; i++)
		h = mp_mix64(h ^ ips[i]);
	int found;
	uint32_t *slot = mp_u64map_slot(&a->byhash, h, &found);
	if (!slot)
		return -ENOMEM;
	if (found) {
		for (uint32_t s = *slot; s != UINT32_MAX; s = a->site_next[s]) {
			const unsigned char *p = (const unsigned char *)a->sites.data + a->site_off[s];
			uint32_t spid, snr;
			memcpy(&spid, p, 4);
			memcpy(&snr, p + 4, 4);
			if (spid == pid && snr == nr && !memcmp(p + 8, ips, (size_t)nr * 8)) {
				*site = s;
				return 0;
			}
		}
	}
	if (a->nsites >= UINT32_MAX - 1 || MP_GROW(a->site_off, a->csites, a->nsites + 1) ||
	    MP_GROW(a->site_next, a->cnext, a->nsites + 1)) {
		if (!found)
			mp_u64map_unslot(&a->byhash, slot);
		return -ENOMEM;
	}
	uint32_t s = (uint32_t)a->nsites;
	a->site_off[s] = a->sites.len;
	if (mp_pdw_put_u32(&a->sites, pid) || mp_pdw_put_u32(&a->sites, nr) ||
	    mp_buf_append(&a->sites, ips, (size_t)nr * 8)) {
		a->sites.len = a->site_off[s];
		if (!found)
			mp_u64map_unslot(&a->byhash, slot);
		return -ENOMEM;
	}
	a->site_next[s] = found ? *slot : UINT32_MAX;
	*slot = s;
	a->nsites++;
	*site = s;
	return 0;
}

static int spool_flush(struct pdw_alloc *a)
{
	if (!a->blen)
		return 0;
	if (a->spool < 0 && (a->spool = tmp_fd()) < 0) {
		int rc = a->spool;
		a->spool = -1;
		return rc;
	}
	int rc = mp_pdw_write_all(a->spool, a->buf, a->blen);
	a->blen = 0;
	return rc;
}

int mp_pdw_alloc_add(mp_pdw *w, const struct mp_alloc_rec *r)
{
	struct pdw_alloc *a = alloc_of(w);
	if (!a)
		return -ENOMEM;
	if (r->kind < 1 || r->kind > MP_ALLOC_KIND_MAX ||
	    (r->site != MP_ALLOC_NO_SITE && r->site >= a->nsites))
		return -EINVAL;
	if (!a->buf && !(a->buf = malloc(SPOOL_BUF)))
		return -ENOMEM;
	if (a->blen + sizeof(*r) > SPOOL_BUF) {
		int rc = spool_flush(a);
		if (rc)
			return rc;
	}
	struct mp_alloc_rec c = *r;
	memset(c.pad, 0, sizeof(c.pad));
	memcpy(a->buf + a->blen, &c, sizeof(c));
	a->blen += sizeof(c);
	a->nrecs++;
	return 0;
}

void mp_pdw_alloc_lost(mp_pdw *w, uint64_t n)
{
	struct pdw_alloc *a = alloc_of(w);
	if (a)
		a->lost += n;
}

uint64_t mp_pdw_alloc_count(const mp_pdw *w)
{
	return w->alloc ? w->alloc->nrecs : 0;
}

/* Stable natural merge sort of n records by time, between a and b: the runs already in
 * order (a thread's records, one process's when it has one thread) are merged pairwise, so
 * a sorted spool costs one pass to find that out. Returns where the sorted records are, or
 * NULL when out of memory. */
static struct mp_alloc_rec *sort_by_time(struct mp_alloc_rec *a, struct mp_alloc_rec *b,
					 uint64_t n)
{
	uint64_t *runs = NULL;
	size_t nruns = 0, cap = 0;
	for (uint64_t i = 0; i < n; i++)
		if (i == 0 || a[i].time < a[i - 1].time) {
			if (MP_GROW(runs, cap, nruns + 2)) {
				free(runs);
				return NULL;
			}
			runs[nruns++] = i;
		}
	if (MP_GROW(runs, cap, nruns + 1)) {
		free(runs);
		return NULL;
	}
	runs[nruns] = n; /* runs[k]..runs[k+1] is run k */
	while (nruns > 1) {
		size_t out = 0;
		for (size_t k = 0; k < nruns; k += 2) {
			uint64_t lo = runs[k], mid = runs[k + 1];
			uint64_t hi = k + 1 < nruns ? runs[k + 2] : mid; /* an odd last run: copied */
			uint64_t i = lo, j = mid, o = lo;
			while (i < mid && j < hi)
				b[o++] = a[j].time < a[i].time ? a[j++] : a[i++];
			while (i < mid)
				b[o++] = a[i++];
			while (j < hi)
				b[o++] = a[j++];
			runs[out++] = lo;
		}
		runs[out] = n;
		nruns = out;
		struct mp_alloc_rec *t = a;
		a = b;
		b = t;
	}
	free(runs);
	return a;
}

static int map_fd(int fd, size_t len, void **out)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

int mp_pdw_alloc_payload(mp_pdw *w, uint64_t *len)
{
	struct pdw_alloc *a = w->alloc;
	*len = 0;
	if (!a || (!a->nrecs && !a->nsites && !a->lost))
		return 0;
	*len = 64 + a->sites.len + a->nrecs * sizeof(struct mp_alloc_rec);
	return 1;
}

/* The payload in pieces of at most piece bytes, each handed to emit in order. */
int mp_pdw_alloc_emit(mp_pdw *w, size_t piece, int (*emit)(void *ctx, const void *p, size_t n),
		      void *ctx)
{
	struct pdw_alloc *a = w->alloc;
	int rc = spool_flush(a);
	if (rc)
		return rc;
	uint64_t hdr[8] = { MP_ALLOC_MAGIC, 64 | ((uint64_t)sizeof(struct mp_alloc_rec) << 32),
			    a->nsites, a->nrecs, a->lost, a->sites.len, 0, 0 };
	struct mp_buf head = { 0 };
	if (mp_buf_append(&head, hdr, sizeof(hdr)) ||
	    (a->sites.len && mp_buf_append(&head, a->sites.data, a->sites.len))) {
		mp_buf_fini(&head);
		return -ENOMEM;
	}
	for (size_t off = 0; off < head.len && !rc; off += piece)
		rc = emit(ctx, head.data + off, head.len - off < piece ? head.len - off : piece);
	mp_buf_fini(&head);
	if (rc || !a->nrecs)
		return rc;

	size_t bytes = (size_t)a->nrecs * sizeof(struct mp_alloc_rec);
	int other = tmp_fd();
	void *m1 = NULL, *m2 = NULL;
	if (other < 0)
		return other;
	if (ftruncate(other, (off_t)bytes) < 0)
		rc = -errno;
	if (!rc)
		rc = map_fd(a->spool, bytes, &m1);
	if (!rc)
		rc = map_fd(other, bytes, &m2);
	if (!rc) {
		const unsigned char *p =
			(const unsigned char *)sort_by_time(m1, m2, a->nrecs);
		if (!p)
			rc = -ENOMEM;
		for (size_t off = 0; p && off < bytes && !rc; off += piece)
			rc = emit(ctx, p + off, bytes - off < piece ? bytes - off : piece);
	}
	if (m1)
		munmap(m1, bytes);
	if (m2)
		munmap(m2, bytes);
	close(other);
	return rc;
}

void mp_pdw_alloc_free(mp_pdw *w)
{
	struct pdw_alloc *a = w->alloc;
	if (!a)
		return;
	if (a->spool >= 0)
		close(a->spool);
	free(a->buf);
	mp_buf_fini(&a->sites);
	free(a->site_off);
	free(a->site_next);
	mp_u64map_fini(&a->byhash);
	free(a);
	w->alloc = NULL;
}
