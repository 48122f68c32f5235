/* mp_pd_queue.c - perf.data reader: the sample queue (mp_pd_queue.h): records queued by
 * time in file windows or arena chunks, sorted and merged as they come, delivered at each
 * round, at the byte bound and at the end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_pd_queue.h"

static int q_nomem(struct pd_queue *Q)
{
	return mp_err_set(Q->err, -ENOMEM, "%s: out of memory", Q->name);
}

void pd_q_init(struct pd_queue *Q, pd_q_deliver_fn deliver, void *ctx, const char *name,
	       struct mp_err *err)
{
	memset(Q, 0, sizeof(*Q));
	Q->deliver = deliver;
	Q->ctx = ctx;
	Q->name = name;
	Q->err = err;
	Q->max_bytes = PD_QUEUE_BYTES;
}

/* ---- ordered queue ------------------------------------------------------------------ */

/* bytes of a chunk's buffer (a read-ahead window has room for a carried record before it) */
static size_t chunk_mem(const struct pd_chunk *c)
{
	return c->cap + (c->ahead ? PD_HEAD : 0);
}

/* c (new, or a window from the read-ahead thread) on Q->chunks */
void pd_q_chunk_link(struct pd_queue *Q, struct pd_chunk *c)
{
	c->next = Q->chunks;
	Q->chunks = c;
	Q->chunk_bytes += chunk_mem(c);
}

void pd_q_chunk_release(struct pd_queue *Q, struct pd_chunk *c)
{
	if (!c)
		return;
	if (--c->live == 0 && c->retired) {
		struct pd_chunk **pp = &Q->chunks;
		while (*pp && *pp != c)
			pp = &(*pp)->next;
		if (*pp) {
			*pp = c->next;
			Q->chunk_bytes -= chunk_mem(c);
		}
		if (c->ahead && Q->give_back) {
			Q->give_back(Q->give_back_ctx, c);
			return;
		}
		if (!c->ahead && Q->nspare < PD_NSPARE && c->cap == PD_CHUNK_SIZE) {
			c->next = Q->spare;
			Q->spare = c;
			Q->nspare++;
			return;
		}
		free(c->data);
		free(c);
	}
}

/* A chunk of cap bytes (a spare one when it is of the standard size), on Q->chunks. */
struct pd_chunk *pd_q_chunk_new(struct pd_queue *Q, size_t cap)
{
	struct pd_chunk *c = NULL;
	if (cap == PD_CHUNK_SIZE && Q->spare) {
		c = Q->spare;
		Q->spare = c->next;
		Q->nspare--;
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
	pd_q_chunk_link(Q, c);
	return c;
}

static void q_chunks_free(struct pd_queue *Q)
{
	for (int list = 0; list < 2; list++) {
		struct pd_chunk *c = list ? Q->spare : Q->chunks;
		while (c) {
			struct pd_chunk *n = c->next;
			free(c->data);
			free(c);
			c = n;
		}
	}
	Q->chunks = Q->cur = Q->spare = Q->win = NULL;
	Q->nspare = 0;
	Q->chunk_bytes = 0;
}

/* Copy a record out of the zstd buffer so it survives until it is delivered. */
static const uint8_t *chunk_copy(struct pd_queue *Q, const uint8_t *r, size_t size, struct pd_chunk **out)
{
	struct pd_chunk *c = Q->cur;
	size_t need = (size + 7) & ~(size_t)7;
	if (!c || c->cap - c->used < need) {
		if (c) {
			c->retired = 1;
			if (c->live == 0) {
				c->live = 1;
				pd_q_chunk_release(Q, c);
			}
		}
		c = pd_q_chunk_new(Q, need > PD_CHUNK_SIZE ? need : PD_CHUNK_SIZE);
		Q->cur = c;
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
static int q_reserve(struct pd_queue *Q, size_t n)
{
	if (n <= Q->cq)
		return 0;
	/* 4096 entries at least: a recording's first records come in thousands */
	if (MP_GROW2(Q->q, Q->tmp, Q->cq, n < 4096 ? 4096 : n))
		return q_nomem(Q);
	return 0;
}

/* Move the queue down to q[0] (when it reaches the end of its array). */
static void q_compact(struct pd_queue *Q)
{
	if (!Q->qh)
		return;
	memmove(Q->q, Q->q + Q->qh, (Q->nq - Q->qh) * sizeof(*Q->q));
	Q->nq -= Q->qh;
	Q->nsorted -= Q->qh;
	Q->qh = 0;
}

/* Every run of q[qh..nq) as one entry per record (each sample's time at Q->sample_time),
 * in place, from the back. */
static int q_split_runs(struct pd_queue *Q)
{
	size_t extra = 0, extra_head = 0;
	for (size_t i = Q->qh; i < Q->nq; i++)
		if (Q->q[i].n > 1) {
			extra += Q->q[i].n - 1u;
			if (i < Q->nsorted)
				extra_head += Q->q[i].n - 1u;
		}
	if (!extra)
		return 0;
	if (Q->nq + extra > Q->cq)
		q_compact(Q); /* the delivered entries' room first: the array stays the queue's size */
	int rc = q_reserve(Q, Q->nq + extra);
	if (rc)
		return rc;
	struct pd_qent *q = Q->q;
	size_t dst = Q->nq + extra;
	for (size_t i = Q->nq; i-- > Q->qh;) {
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
			uint16_t size = mp_ld16(r + 6);
			q[at + j] = (struct pd_qent){ .ts = mp_ld64(r + Q->sample_time), .rec = r, .off = off,
						      .ch = e.ch, .n = 1 };
			r += size;
			off += size;
		}
		dst = at;
	}
	Q->nq += extra;
	Q->nsorted += extra_head;
	return 0;
}

/* Sort the unsorted tail of the queue and merge it into the sorted head. Runs stay whole
 * when the queue is in time order as it is (the tail in order, after the head's last). */
int pd_q_settle(struct pd_queue *Q)
{
	if (Q->nsorted < Q->nq) {
		if (!Q->tail_mixed && (Q->qh == Q->nsorted || Q->q[Q->nsorted].ts >= Q->head_last)) {
			Q->head_last = Q->tail_last;
		} else {
			int rc = q_split_runs(Q);
			if (rc)
				return rc;
			if (Q->tail_mixed)
				q_sort(Q->q + Q->nsorted, Q->tmp, Q->nq - Q->nsorted);
			q_merge(Q->q + Q->qh, Q->tmp, Q->nsorted - Q->qh, Q->nq - Q->qh);
			Q->head_last = Q->q[Q->nq - 1].ts;
		}
		Q->tail_mixed = 0;
		Q->tail_last = 0;
		Q->nsorted = Q->nq;
	}
	return 0;
}

int pd_q_flush(struct pd_queue *Q, uint64_t limit)
{
	return pd_q_flush_with(Q, limit, Q->deliver, Q->ctx);
}

int pd_q_round(struct pd_queue *Q)
{
	return pd_q_round_with(Q, Q->deliver, Q->ctx);
}

/* After a flush by the byte bound the records still queued are spread over chunks and
 * windows that they alone keep alive: copy them into fresh chunks (the order of the queue
 * does not change) and let the old ones go. Done when the chunks hold half as much again
 * as the queued bytes (beyond the windows and chunks being filled), so that each copy is
 * paid for by the bytes delivered since the one before, however little a flush delivers. */
static int q_repack(struct pd_queue *Q)
{
	if (Q->chunk_bytes <= Q->rec_bytes + Q->rec_bytes / 2 + 4 * (size_t)(PD_HEAD + PD_CHUNK_SIZE))
		return 0;
	for (size_t i = Q->qh; i < Q->nq; i++) {
		struct pd_qent *e = &Q->q[i];
		struct pd_chunk *old = e->ch, *ch;
		if (!old || old == Q->cur || old == Q->win)
			continue;
		size_t bytes = mp_ld16(e->rec + 6);
		for (uint32_t j = 1; j < e->n; j++) /* a run: its records one after the other */
			bytes += mp_ld16(e->rec + bytes + 6);
		const uint8_t *r = chunk_copy(Q, e->rec, bytes, &ch);
		if (!r)
			return q_nomem(Q);
		if (e->n > 1) { /* one life per record, as the window had */
			ch->live += e->n - 1u;
			old->live -= e->n - 1u;
		}
		e->rec = r;
		e->ch = ch;
		pd_q_chunk_release(Q, old);
	}
	return 0;
}

int pd_q_push(struct pd_queue *Q, const uint8_t *r, size_t size, uint64_t off, uint64_t ts, int mode)
{
	if (Q->nq > Q->qh &&
	    Q->qrecs * 2 * sizeof(*Q->q) + Q->rec_bytes + size > Q->max_bytes) {
		/* perf's OE_FLUSH__HALF when the queue hits its memory limit */
		int rc = pd_q_settle(Q);
		if (rc)
			return rc;
		uint64_t lo = Q->q[Q->qh].ts, hi = Q->head_last; /* the newest queued record */
		rc = pd_q_flush(Q, lo + (hi - lo) / 2);
		if (rc || (rc = q_repack(Q)))
			return rc;
	}
	if (Q->nq == Q->cq) {
		q_compact(Q);
		int rc = q_reserve(Q, Q->nq + 1); /* twice the array when it is full */
		if (rc)
			return rc;
	}
	struct pd_chunk *ch = NULL;
	if (mode == WALK_INNER) {
		r = chunk_copy(Q, r, size, &ch);
		if (!r)
			return q_nomem(Q);
	} else if (mode == WALK_WINDOW) {
		ch = Q->win; /* the record stays in its window until delivered */
		ch->live++;
	}
	Q->rec_bytes += size;
	Q->qrecs++;
	Q->tail_mixed |= ts < Q->tail_last;
	Q->tail_last = ts;
	Q->q[Q->nq].ts = ts;
	Q->q[Q->nq].rec = r;
	Q->q[Q->nq].off = off;
	Q->q[Q->nq].ch = ch;
	Q->q[Q->nq].n = 0;
	Q->nq++;
	if (ts > Q->max_ts)
		Q->max_ts = ts;
	return 0;
}

void pd_q_fini(struct pd_queue *Q)
{
	for (size_t i = Q->qh; i < Q->nq; i++) {
		if (Q->q[i].ch && Q->q[i].n > 1)
			Q->q[i].ch->live -= Q->q[i].n - 1u; /* a run's records but its last */
		pd_q_chunk_release(Q, Q->q[i].ch);
	}
	q_chunks_free(Q);
	free(Q->q);
	free(Q->tmp);
	Q->q = Q->tmp = NULL;
	Q->qh = Q->nq = Q->cq = Q->nsorted = 0;
}
