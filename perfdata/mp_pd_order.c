/* mp_pd_order.c - perf.data reader: ordered delivery: records queued by time (in file windows
 * or arena chunks), delivered at each round and when the queue reaches its byte bound. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "mp_perfdata.h"
#include "mp_pd_int.h"
#include <stdarg.h>
#include <stdio.h>

/* ---- ordered queue ------------------------------------------------------------------ */

/* bytes of a chunk's buffer (a read-ahead window has room for a carried record before it) */
static size_t chunk_mem(const struct pd_chunk *c)
{
	return c->cap + (c->ahead ? PD_HEAD : 0);
}

/* c (new, or a window from the read-ahead thread) on R->chunks */
void mp_pd_chunk_link(struct pd_run *R, struct pd_chunk *c)
{
	c->next = R->chunks;
	R->chunks = c;
	R->chunk_bytes += chunk_mem(c);
}

void mp_pd_chunk_release(struct pd_run *R, struct pd_chunk *c)
{
	if (!c)
		return;
	if (--c->live == 0 && c->retired) {
		struct pd_chunk **pp = &R->chunks;
		while (*pp && *pp != c)
			pp = &(*pp)->next;
		if (*pp) {
			*pp = c->next;
			R->chunk_bytes -= chunk_mem(c);
		}
		if (c->ahead && R->rd) {
			struct pd_reader *rd = R->rd;
			pthread_mutex_lock(&rd->mu);
			c->next = rd->free;
			rd->free = c;
			rd->nfree++;
			pthread_mutex_unlock(&rd->mu);
			return;
		}
		if (!c->ahead && R->nspare < PD_NSPARE && c->cap == PD_CHUNK_SIZE) {
			c->next = R->spare;
			R->spare = c;
			R->nspare++;
			return;
		}
		free(c->data);
		free(c);
	}
}

/* A chunk of cap bytes (a spare one when it is of the standard size), on R->chunks. */
struct pd_chunk *mp_pd_chunk_new(struct pd_run *R, size_t cap)
{
	struct pd_chunk *c = NULL;
	if (cap == PD_CHUNK_SIZE && R->spare) {
		c = R->spare;
		R->spare = c->next;
		R->nspare--;
	} else {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		c->cap = cap;
		c->data = malloc(cap);
		if (!c->data) {
			free(c);
			return NULL;
		}
	}
	c->used = c->live = 0;
	c->retired = 0;
	mp_pd_chunk_link(R, c);
	return c;
}

void mp_pd_chunks_free(struct pd_run *R)
{
	for (int list = 0; list < 2; list++) {
		struct pd_chunk *c = list ? R->spare : R->chunks;
		while (c) {
			struct pd_chunk *n = c->next;
			free(c->data);
			free(c);
			c = n;
		}
	}
	R->chunks = R->cur = R->spare = R->win = NULL;
	R->nspare = 0;
	R->chunk_bytes = 0;
}

/* Copy a record out of the zstd buffer so it survives until it is delivered. */
static const uint8_t *chunk_copy(struct pd_run *R, const uint8_t *r, size_t size, struct pd_chunk **out)
{
	struct pd_chunk *c = R->cur;
	size_t need = (size + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < need) {
		if (c) {
			c->retired = 1;
			if (c->live == 0) {
				c->live = 1;
				mp_pd_chunk_release(R, c);
			}
		}
		c = mp_pd_chunk_new(R, need > PD_CHUNK_SIZE ? need : PD_CHUNK_SIZE);
		R->cur = c;
		if (!c)
			return NULL;
	}
	uint8_t *d = c->data + c->used;
	memcpy(d, r, size);
	c->used += need;
	c->live++;
	*out = c;
	return d;
}

/* Stable merge of q[0..mid) and q[mid..n) (both sorted by ts), through tmp. Only the
 * overlap moves: the left run's entries up to the right run's first ts, and the right
 * run's from the left run's last ts on, are in place already (rounds overlap little). */
static void q_merge(struct pd_qent *q, struct pd_qent *tmp, size_t mid, size_t n)
{
	if (mid == 0 || mid == n || q[mid - 1].ts <= q[mid].ts)
		return;
	size_t lo = 0, hi = mid; /* first left entry with ts > q[mid].ts */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (q[m].ts <= q[mid].ts)
			lo = m + 1;
		else
			hi = m;
	}
	size_t i0 = lo;
	lo = mid;
	hi = n; /* first right entry with ts >= q[mid - 1].ts: it and the rest stay */
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (q[m].ts < q[mid - 1].ts)
			lo = m + 1;
		else
			hi = m;
	}
	size_t j1 = lo, nl = mid - i0;
	memcpy(tmp, q + i0, nl * sizeof(*q));
	size_t i = 0, j = mid, k = i0;
	while (i < nl && j < j1)
		q[k++] = q[j].ts < tmp[i].ts ? q[j++] : tmp[i++];
	while (i < nl)
		q[k++] = tmp[i++];
	/* the right run's rest (j..j1) is in place: k == j once the left run is out */
}

/* Natural merge sort of q[0..len): records of one ring buffer come in time order, so a
 * round is a few long sorted runs (one per CPU buffer) and this is nearly linear. Runs
 * are merged as in a binary counter (merge while the newest run is at least as long as
 * the one below it), which keeps the stack of pending runs logarithmic. */
static void q_sort(struct pd_qent *q, struct pd_qent *tmp, size_t len)
{
	size_t ends[72]; /* end of each pending run; run k starts at ends[k-1] (or 0) */
	size_t nr = 0, start = 0;

	while (start < len) {
		size_t e = start + 1;
		while (e < len && q[e - 1].ts <= q[e].ts)
			e++;
		ends[nr++] = e;
		start = e;
		while (nr >= 2) {
			size_t b = nr >= 3 ? ends[nr - 3] : 0;
			size_t l1 = ends[nr - 2] - b, l2 = ends[nr - 1] - ends[nr - 2];
			if (l2 < l1 && nr < 64 && start < len)
				break;
			q_merge(q + b, tmp, l1, ends[nr - 1] - b);
			ends[nr - 2] = ends[nr - 1];
			nr--;
		}
	}
}

/* Room for n entries in the queue's array (and its merge buffer). */
static int q_reserve(struct pd_run *R, size_t n)
{
	if (n <= R->cq)
		return 0;
	/* 4096 entries at least: a recording's first records come in thousands */
	if (MP_GROW2(R->q, R->tmp, R->cq, n < 4096 ? 4096 : n))
		return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
	return 0;
}

/* Every run of q[qh..nq) as one entry per record (each sample's time at R->sample_time),
 * in place, from the back. */
static int q_split_runs(struct pd_run *R)
{
	size_t extra = 0, extra_head = 0;
	for (size_t i = R->qh; i < R->nq; i++)
		if (R->q[i].n > 1) {
			extra += R->q[i].n - 1u;
			if (i < R->nsorted)
				extra_head += R->q[i].n - 1u;
		}
	if (!extra)
		return 0;
	int rc = q_reserve(R, R->nq + extra);
	if (rc)
		return rc;
	struct pd_qent *q = R->q;
	size_t dst = R->nq + extra;
	for (size_t i = R->nq; i-- > R->qh;) {
		struct pd_qent e = q[i];
		if (e.n <= 1) {
			q[--dst] = e;
			continue;
		}
		/* its records go to q[dst - n .. dst), all at or above i: nothing unread is hit */
		size_t at = dst - e.n;
		const uint8_t *r = e.rec;
		uint64_t off = e.off;
		for (uint32_t j = 0; j < e.n; j++) {
			uint16_t size = ld16(r + 6);
			q[at + j] = (struct pd_qent){ .ts = ld64(r + R->sample_time), .rec = r, .off = off,
						      .ch = e.ch, .n = 1 };
			r += size;
			off += size;
		}
		dst = at;
	}
	R->nq += extra;
	R->nsorted += extra_head;
	return 0;
}

/* Sort the unsorted tail of the queue and merge it into the sorted head. Runs stay whole
 * when the queue is in time order as it is (the tail in order, after the head's last). */
static int q_settle(struct pd_run *R)
{
	if (R->nsorted < R->nq) {
		if (!R->tail_mixed && (R->qh == R->nsorted || R->q[R->nsorted].ts >= R->head_last)) {
			R->head_last = R->tail_last;
		} else {
			int rc = q_split_runs(R);
			if (rc)
				return rc;
			if (R->tail_mixed)
				q_sort(R->q + R->nsorted, R->tmp, R->nq - R->nsorted);
			q_merge(R->q + R->qh, R->tmp, R->nsorted - R->qh, R->nq - R->qh);
			R->head_last = R->q[R->nq - 1].ts;
		}
		R->tail_mixed = 0;
		R->tail_last = 0;
		R->nsorted = R->nq;
	}
	return 0;
}

/* Give the repeats counted in the flush to the handler (once it took one, it takes all). */
static int flush_repeats(struct pd_run *R, uint64_t *n, uint64_t *period)
{
	if (!*n)
		return 0;
	struct mp_pd_attr *a = &R->pd->attrs[R->rk.attr];
	a->nr_samples += *n;
	a->total_period += *period;
	int rc = R->h->sample_again(R->h->ctx, R->rk.attr, *n, *period);
	*n = *period = 0;
	return rc > 0 ? 0 : rc;
}

/* One queued record: the remembered sample again (counted in *nrep, *prep while the
 * handler takes repeats), a sample of fixed fields (remembered), or any other record. */
static inline __attribute__((always_inline)) int flush_one(struct pd_run *R, const uint8_t *rec, size_t size, uint64_t off,
			    int again, uint64_t *nrep, uint64_t *prep)
{
	int rc;
	uint64_t period;
	if (again && R->rk.state != RK_NONE && mp_pd_sample_repeat(R, rec, &period)) {
		if (R->rk.state == RK_TAKEN) {
			++*nrep;
			*prep += period;
			return 0;
		}
		rc = R->h->sample_again(R->h->ctx, R->rk.attr, 1, period);
		if (rc <= 0) {
			if (!rc) {
				R->rk.state = RK_TAKEN;
				struct mp_pd_attr *a = &R->pd->attrs[R->rk.attr];
				a->nr_samples++;
				a->total_period += period;
			}
			return rc;
		}
	}
	if ((rc = flush_repeats(R, nrep, prep)))
		return rc;
	rc = mp_pd_sample_fast(R, rec, size);
	if (rc == PD_SLOW)
		return mp_pd_deliver(R, rec, size, off);
	if (again)
		mp_pd_sample_remember(R, rec);
	return rc;
}

/* Deliver queued records with ts <= limit (all when limit == UINT64_MAX). */
int mp_pd_q_flush(struct pd_run *R, uint64_t limit)
{
	if (R->nq == R->qh)
		return 0;
	int rc = q_settle(R);
	if (rc)
		return rc;
	size_t k = R->qh, nheld = 0;
	struct pd_chunk *held = NULL; /* delivered records of one chunk, released together */
	int again = R->h && R->h->sample_again;
	uint64_t nrep = 0, prep = 0; /* repeats not yet given to the handler */
	struct pd_qent *q = R->q; /* delivering queues nothing: the queue stays */
	const size_t nq = R->nq, to = R->sample_time;
	while (k < nq && q[k].ts <= limit) {
		struct pd_qent *e = &q[k];
		if (e->ch != held) {
			if (held) {
				held->live -= nheld - 1;
				mp_pd_chunk_release(R, held);
			}
			held = e->ch;
			nheld = 0;
		}
		if (e->n <= 1) {
			size_t size = ld16(e->rec + 6);
			nheld++;
			R->rec_bytes -= size;
			R->qrecs--;
			k++;
			if ((rc = flush_one(R, e->rec, size, e->off, again, &nrep, &prep)))
				break;
			continue;
		}
		/* a run: its records while they are due (the queue is in time order: when one
		 * is not, none after it is; the rest of the run stays queued as its entry) */
		const uint8_t *r = e->rec;
		uint64_t off = e->off, ts;
		uint32_t left = e->n;
		do {
			size_t size = ld16(r + 6);
			nheld++;
			R->rec_bytes -= size;
			R->qrecs--;
			rc = flush_one(R, r, size, off, again, &nrep, &prep);
			r += size;
			off += size;
			left--;
		} while (!rc && left && (ts = ld64(r + to)) <= limit);
		if (left) {
			e->ts = ld64(r + to);
			e->rec = r;
			e->off = off;
			e->n = left;
			break;
		}
		k++;
		if (rc)
			break;
	}
	if (!rc)
		rc = flush_repeats(R, &nrep, &prep);
	if (held) {
		held->live -= nheld - 1;
		mp_pd_chunk_release(R, held);
	}
	R->qh = k;
	if (k == R->nq)
		R->qh = R->nq = R->nsorted = 0;
	return rc;
}

/* Move the queue down to q[0] (when it reaches the end of its array). */
static void q_compact(struct pd_run *R)
{
	if (!R->qh)
		return;
	memmove(R->q, R->q + R->qh, (R->nq - R->qh) * sizeof(*R->q));
	R->nq -= R->qh;
	R->nsorted -= R->qh;
	R->qh = 0;
}

/* After a flush by the byte bound the records still queued are spread over chunks and
 * windows that they alone keep alive: copy them into fresh chunks (the order of the queue
 * does not change) and let the old ones go. Done when the chunks hold half as much again
 * as the queued bytes (beyond the windows and chunks being filled), so that each copy is
 * paid for by the bytes delivered since the one before, however little a flush delivers. */
static int q_repack(struct pd_run *R)
{
	if (R->chunk_bytes <= R->rec_bytes + R->rec_bytes / 2 + 4 * (size_t)(PD_HEAD + PD_CHUNK_SIZE))
		return 0;
	for (size_t i = R->qh; i < R->nq; i++) {
		struct pd_qent *e = &R->q[i];
		struct pd_chunk *old = e->ch, *ch;
		if (!old || old == R->cur || old == R->win)
			continue;
		size_t bytes = ld16(e->rec + 6);
		for (uint32_t j = 1; j < e->n; j++) /* a run: its records one after the other */
			bytes += ld16(e->rec + bytes + 6);
		const uint8_t *r = chunk_copy(R, e->rec, bytes, &ch);
		if (!r)
			return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
		if (e->n > 1) { /* one life per record, as the window had */
			ch->live += e->n - 1u;
			old->live -= e->n - 1u;
		}
		e->rec = r;
		e->ch = ch;
		mp_pd_chunk_release(R, old);
	}
	return 0;
}

int mp_pd_q_push(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off, uint64_t ts, int mode)
{
	if (R->nq > R->qh &&
	    R->qrecs * 2 * sizeof(*R->q) + R->rec_bytes + size > PD_QUEUE_BYTES) {
		/* perf's OE_FLUSH__HALF when the queue hits its memory limit */
		int rc = q_settle(R);
		if (rc)
			return rc;
		uint64_t lo = R->q[R->qh].ts, hi = R->head_last; /* the newest queued record */
		rc = mp_pd_q_flush(R, lo + (hi - lo) / 2);
		if (rc || (rc = q_repack(R)))
			return rc;
	}
	if (R->nq == R->cq) {
		q_compact(R);
		int rc = q_reserve(R, R->nq + 1); /* twice the array when it is full */
		if (rc)
			return rc;
	}
	struct pd_chunk *ch = NULL;
	if (mode == WALK_INNER) {
		r = chunk_copy(R, r, size, &ch);
		if (!r)
			return PD_ERR(R->pd, R->err, -ENOMEM, "out of memory");
	} else if (mode == WALK_WINDOW) {
		ch = R->win; /* the record stays in its window until delivered */
		ch->live++;
	}
	R->rec_bytes += size;
	R->qrecs++;
	R->tail_mixed |= ts < R->tail_last;
	R->tail_last = ts;
	R->q[R->nq].ts = ts;
	R->q[R->nq].rec = r;
	R->q[R->nq].off = off;
	R->q[R->nq].ch = ch;
	R->q[R->nq].n = 0;
	R->nq++;
	if (ts > R->max_ts)
		R->max_ts = ts;
	return 0;
}
