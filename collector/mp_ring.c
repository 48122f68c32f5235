/* mp_ring.c - the perf mmap ring buffer: read records between data_tail and data_head. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mp_collector_internal.h"

int mp_ring_mmap(struct mp_ring *r, int fd, unsigned pages, struct mp_err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	if (pages == 0 || (pages & (pages - 1)))
		return mp_err_set(err, -EINVAL, "ring size %u pages: not a power of two", pages);
	r->map_len = page * (pages + 1);
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		int e = errno;
		r->base = NULL;
		if (e == EPERM)
			return mp_err_set(err, -e,
					  "cannot mmap a %zu KiB ring buffer: over the locked-memory "
					  "limit (use a smaller -m, or raise "
					  "kernel.perf_event_mlock_kb / ulimit -l)",
					  page * pages / 1024);
		return mp_err_set(err, -e, "cannot mmap the ring buffer (%zu KiB): %s",
				  page * pages / 1024, strerror(e));
	}
	r->pc = r->base;
	r->data = (unsigned char *)r->base + page;
	r->size = (uint64_t)page * pages;
	r->mask = r->size - 1;
	r->cur = r->head = __atomic_load_n(&r->pc->data_tail, __ATOMIC_RELAXED);
	return 0;
}

void mp_ring_munmap(struct mp_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	free(r->bounce);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

uint64_t mp_ring_read_init(struct mp_ring *r)
{
	/* Pairs with the kernel's smp_wmb() before it publishes data_head. */
	r->head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	r->last_size = 0;
	return r->head - r->cur;
}

const struct perf_event_header *mp_ring_read_event(struct mp_ring *r)
{
	uint64_t avail = r->head - r->cur;
	uint64_t off = r->cur & r->mask;
	const struct perf_event_header *h;
	uint32_t size;

	r->last_size = 0;
	if (avail < sizeof(*h))
		return NULL;
	/* Records are 8-byte aligned and the size is a power of two: a header never wraps. */
	h = (const void *)(r->data + off);
	size = h->size;
	if (size < sizeof(*h) || size > avail) {
		/* A corrupt ring: skip what is left rather than loop on it. */
		r->cur = r->head;
		return NULL;
	}
	if (off + size > r->size) {
		uint64_t first = r->size - off;
		if (MP_GROW(r->bounce, r->bounce_cap, 65536 > size ? 65536 : size)) {
			r->cur = r->head;
			return NULL;
		}
		memcpy(r->bounce, r->data + off, first);
		memcpy(r->bounce + first, r->data, size - first);
		h = (const void *)r->bounce;
	}
	r->last_size = size;
	return h;
}

void mp_ring_consume(struct mp_ring *r)
{
	r->cur += r->last_size;
	r->last_size = 0;
}

void mp_ring_read_done(struct mp_ring *r)
{
	__atomic_store_n(&r->pc->data_tail, r->cur, __ATOMIC_RELEASE);
}
