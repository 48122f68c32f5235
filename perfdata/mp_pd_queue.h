/* mp_pd_queue.h - the reader's sample queue: perf's ordered-events as an object of its own.
 *
 * Records are pushed with their time and delivered in time order by flushes: at each
 * FINISHED_ROUND up to the newest time of the round before (pd_q_round, perf's
 * OE_FLUSH__ROUND), the older half when the queued bytes reach their bound (inside
 * pd_q_push, OE_FLUSH__HALF), everything at the end (pd_q_flush(UINT64_MAX), OE_FLUSH__FINAL).
 * Equal times keep the order of their pushes. A record stays where it lies while queued:
 * in the caller's memory (WALK_TOP: a file mapped whole), in a window of the file (a
 * chunk the walk made, WALK_WINDOW) or copied into an arena chunk (WALK_INNER: zstd output
 * that is overwritten). Samples that follow each other in time order in a window are kept
 * as one entry (a run, pd_q_batch_*) until the order needs them apart.
 *
 * Delivery goes to Q->deliver; the queue knows nothing of record types beyond the header's
 * size and, for runs, the time's offset in a sample. Private to perfdata/ (the reader's
 * walk, zstd and decoding) and tests/test_pd_queue.c. */
#ifndef MP_PD_QUEUE_H
#define MP_PD_QUEUE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mp_util.h"

/* The queue is bounded by bytes, as perf's ordered_events: its live entries (in the queue
 * and its merge buffer) plus the queued records, counted alike whether a record lies in a
 * window of the file or was copied out of zstd output, so that a file and its uncompressed
 * form are delivered in the same order. Past the bound the older half is delivered (perf's
 * OE_FLUSH__HALF): a zstd file whose records expand a hundredfold is read in memory bounded
 * as an uncompressed one's. */
#define PD_QUEUE_BYTES (16u << 20)
#define PD_CHUNK_SIZE (1u << 18)
#define PD_NSPARE 8
/* a read-ahead window has room before its data for a record carried over from the window
 * before (< 64 KiB) */
#define PD_HEAD (1u << 16)

/* Where a pushed record lies (the walk's modes, mp_pd_walk). */
enum { WALK_TOP, WALK_INNER, WALK_WINDOW };

struct pd_chunk {               /* arena chunk for queued records that live in zstd output,
				 * or a window of the data section (walk_windows) */
	struct pd_chunk *next;
	size_t used, cap, live;
	int retired;
	uint8_t *data;
	uint64_t foff;              /* read-ahead window: file offset of data + PD_HEAD */
	int ahead;                  /* a read-ahead window: given back to the reader */
};

/* A queued record, or (n >= 1) a run of n samples that the walk found one after the other
 * in a window, in time order, each with its time at Q->sample_time: ts, rec and off are
 * the first one's. A run stays one entry while the queue needs no sort (the records come
 * in time order, as one CPU's or one thread's do); pd_q_settle splits runs otherwise. */
struct pd_qent {
	uint64_t ts;
	const uint8_t *rec;
	uint64_t off;               /* file offset (of the COMPRESSED record for inner ones) */
	struct pd_chunk *ch;
	uint32_t n;                 /* 0: one record of any type; else a run of n samples */
};

/* One record due: a non-zero return stops the flush (the record counts as delivered) and
 * is the flush's return. */
typedef int (*pd_q_deliver_fn)(void *ctx, const uint8_t *rec, size_t size, uint64_t off);

struct pd_queue {
	/* set by the owner (pd_q_init, then these) before the first push */
	pd_q_deliver_fn deliver;
	int (*done)(void *ctx);     /* after a flush whose records all returned 0: its return
				     * is the flush's (NULL: none) */
	void *ctx;
	/* a read-ahead window whose records are all delivered goes back to its reader */
	void (*give_back)(void *ctx, struct pd_chunk *c);
	void *give_back_ctx;
	const char *name;           /* for "NAME: out of memory" in *err */
	struct mp_err *err;
	size_t sample_time;         /* runs: the time's offset in their samples */
	size_t max_bytes;           /* the byte bound (PD_QUEUE_BYTES) */
	uint32_t any_order_type;    /* not 0: records of this header type (the owner's samples;
				     * runs are of it) may be delivered in any order among
				     * themselves while no record of another type is due with
				     * them (pd_q_flush_with neither sorts nor splits runs then) */

	/* the entries */
	struct pd_qent *q, *tmp;
	size_t nq, cq;
	size_t qh;                  /* the queue is q[qh..nq): delivered entries are not moved */
	size_t nsorted;             /* q[qh..nsorted) is sorted */
	uint64_t tail_last;         /* ts of the record queued last after nsorted (0: none) */
	uint64_t head_last;         /* ts of the last record of q[qh..nsorted) */
	int tail_mixed;             /* q[nsorted..nq) is out of ts order (else it needs no sort) */
	size_t rec_bytes;           /* sizes of the queued records */
	size_t qrecs;               /* queued records (a run's each): the byte bound counts an
	                             * entry for each, as if runs were not */
	uint64_t next_flush, max_ts; /* the round's flush point, the newest time pushed */

	/* the chunks */
	size_t chunk_bytes;         /* buffers of the chunks and windows on chunks */
	struct pd_chunk *chunks, *cur;
	struct pd_chunk *spare;     /* released chunks kept for reuse (their pages stay mapped) */
	size_t nspare;
	struct pd_chunk *win;       /* the window being walked (WALK_WINDOW pushes go there) */
};

/* An empty queue delivering to deliver(ctx, ...); name and err for its messages. */
void pd_q_init(struct pd_queue *Q, pd_q_deliver_fn deliver, void *ctx, const char *name,
	       struct mp_err *err);
/* Drop what is still queued (nothing delivered) and free the chunks and arrays. */
void pd_q_fini(struct pd_queue *Q);

/* Queue record r (size bytes, file offset off) at time ts; mode says where it lies. May
 * deliver the older half first (the byte bound). 0, a delivery's stop value, or -ENOMEM
 * (err set). */
int pd_q_push(struct pd_queue *Q, const uint8_t *r, size_t size, uint64_t off, uint64_t ts,
	      int mode);
/* Deliver the queued records with ts <= limit (all with UINT64_MAX), in time order. */
int pd_q_flush(struct pd_queue *Q, uint64_t limit);
/* A FINISHED_ROUND: deliver up to the newest time of the rounds before the last one, and
 * make this round's newest the next flush point (records of the round just ended may
 * still be older than records of the next one on another CPU). */
int pd_q_round(struct pd_queue *Q);
static inline int pd_q_empty(const struct pd_queue *Q)
{
	return Q->nq == Q->qh;
}

/* Chunks: c (new, or a window from the read-ahead thread) on the list; a new one of cap
 * bytes (a spare when of the standard size) on the list, NULL when out of memory; one
 * life of c let go (a delivered record, or its maker's hold once retired). */
void pd_q_chunk_link(struct pd_queue *Q, struct pd_chunk *c);
struct pd_chunk *pd_q_chunk_new(struct pd_queue *Q, size_t cap);
void pd_q_chunk_release(struct pd_queue *Q, struct pd_chunk *c);
/* The walk is done with c (a window, or the arena chunk being filled): freed once its
 * queued records are delivered. */
static inline void pd_q_chunk_retire(struct pd_queue *Q, struct pd_chunk *c)
{
	c->retired = 1;
	c->live++;
	pd_q_chunk_release(Q, c);
}

/* pd_q_push's common case inline: a window's record, room in the queue's array and under
 * its byte bound (anything else: pd_q_push, which flushes, compacts or grows). */
static inline int pd_q_push_fast(struct pd_queue *Q, const uint8_t *r, size_t size,
				 uint64_t off, uint64_t ts, int mode)
{
	if (mode != WALK_WINDOW || Q->nq == Q->cq || Q->nq == Q->qh ||
	    Q->qrecs * 2 * sizeof(*Q->q) + Q->rec_bytes + size > Q->max_bytes)
		return pd_q_push(Q, r, size, off, ts, mode);
	Q->win->live++; /* the record stays in its window until delivered */
	Q->rec_bytes += size;
	Q->qrecs++;
	struct pd_qent *e = &Q->q[Q->nq++];
	Q->tail_mixed |= ts < Q->tail_last;
	Q->tail_last = ts;
	e->ts = ts;
	e->rec = r;
	e->off = off;
	e->ch = Q->win;
	e->n = 0;
	if (ts > Q->max_ts)
		Q->max_ts = ts;
	return 0;
}

/* Sort what came since the last flush and merge it into the sorted head (for the
 * flushes). 0 or -ENOMEM. */
int pd_q_settle(struct pd_queue *Q);

/* The records of entry e due at limit to deliver(ctx, ...): a record, or a run's first
 * records while they are due (its records come in time order; the rest stays as e).
 * *held, *nheld: the chunk of the records delivered last and their number, released
 * together (pd_q_held_release). Returns the delivery's stop value; *whole: e is all
 * delivered. */
static inline __attribute__((always_inline)) int
pd_q_deliver_due(struct pd_queue *Q, struct pd_qent *e, uint64_t limit, pd_q_deliver_fn deliver,
		 void *ctx, struct pd_chunk **held, size_t *nheld, int *whole)
{
	if (e->ch != *held) {
		if (*held) {
			(*held)->live -= *nheld - 1;
			pd_q_chunk_release(Q, *held);
		}
		*held = e->ch;
		*nheld = 0;
	}
	*whole = 1;
	if (e->n <= 1) {
		size_t size = mp_ld16(e->rec + 6);
		++*nheld;
		Q->rec_bytes -= size;
		Q->qrecs--;
		return deliver(ctx, e->rec, size, e->off);
	}
	const size_t to = Q->sample_time;
	const uint8_t *r = e->rec;
	uint64_t off = e->off;
	uint32_t left = e->n;
	int rc;
	do {
		size_t size = mp_ld16(r + 6);
		++*nheld;
		Q->rec_bytes -= size;
		Q->qrecs--;
		rc = deliver(ctx, r, size, off);
		r += size;
		off += size;
		left--;
	} while (!rc && left && mp_ld64(r + to) <= limit);
	if (left) {
		e->ts = mp_ld64(r + to);
		e->rec = r;
		e->off = off;
		e->n = left;
		*whole = 0;
	}
	return rc;
}

/* The end of a flush: Q->done after a flush that was not stopped, the last chunk's
 * delivered records released. */
static inline int pd_q_flush_end(struct pd_queue *Q, int rc, void *ctx, struct pd_chunk *held,
				 size_t nheld)
{
	if (!rc && Q->done)
		rc = Q->done(ctx);
	if (held) {
		held->live -= nheld - 1;
		pd_q_chunk_release(Q, held);
	}
	return rc;
}

/* Are the records due at limit all of Q->any_order_type (the other records queued all
 * later)? Entries are looked at, not records: a run is of that type. */
static inline int pd_q_any_order_due(const struct pd_queue *Q, uint64_t limit)
{
	for (size_t k = Q->qh; k < Q->nq; k++) {
		const struct pd_qent *e = &Q->q[k];
		if (!e->n && e->ts <= limit && mp_ld32(e->rec) != Q->any_order_type)
			return 0;
	}
	return 1;
}

/* pd_q_flush_with when pd_q_any_order_due: the due records in the queue's own order, each
 * entry's in turn, unsorted; the entries left keep their order, moved down together, and
 * are all the unsorted tail then (a sort later keeps equal times in push order: the head's
 * entries left were pushed before the tail's). */
static inline __attribute__((always_inline)) int
pd_q_flush_any_with(struct pd_queue *Q, uint64_t limit, pd_q_deliver_fn deliver, void *ctx)
{
	struct pd_qent *q = Q->q;
	const size_t nq = Q->nq;
	size_t k = Q->qh, w = Q->qh, nheld = 0;
	struct pd_chunk *held = NULL;
	int rc = 0, whole;
	for (; k < nq && !rc; k++) {
		if (q[k].ts > limit ||
		    ((rc = pd_q_deliver_due(Q, &q[k], limit, deliver, ctx, &held, &nheld, &whole)),
		     !whole))
			q[w++] = q[k];
	}
	for (; k < nq; k++) /* a delivery stopped the flush: the rest stays */
		q[w++] = q[k];
	rc = pd_q_flush_end(Q, rc, ctx, held, nheld);
	Q->nq = w;
	Q->tail_mixed = w > Q->qh;
	Q->tail_last = w > Q->qh ? q[w - 1].ts : 0;
	Q->nsorted = Q->qh;
	if (w == Q->qh)
		Q->qh = Q->nq = Q->nsorted = 0;
	return rc;
}

/* pd_q_flush with deliver(ctx, ...) in place of Q's: a caller that passes its own
 * function gets it inlined into the loop (the reader's rounds and final flush). */
static inline __attribute__((always_inline)) int
pd_q_flush_with(struct pd_queue *Q, uint64_t limit, pd_q_deliver_fn deliver, void *ctx)
{
	if (Q->nq == Q->qh)
		return 0;
	if (Q->any_order_type && pd_q_any_order_due(Q, limit))
		return pd_q_flush_any_with(Q, limit, deliver, ctx);
	int rc = pd_q_settle(Q);
	if (rc)
		return rc;
	size_t k = Q->qh, nheld = 0;
	struct pd_chunk *held = NULL;
	struct pd_qent *q = Q->q; /* delivering queues nothing: the queue stays */
	const size_t nq = Q->nq;
	int whole = 1;
	/* the queue is in time order: once a record is not due, none after it is */
	while (k < nq && q[k].ts <= limit && whole) {
		rc = pd_q_deliver_due(Q, &q[k], limit, deliver, ctx, &held, &nheld, &whole);
		k += whole;
		if (rc)
			break;
	}
	rc = pd_q_flush_end(Q, rc, ctx, held, nheld);
	Q->qh = k;
	if (k == Q->nq)
		Q->qh = Q->nq = Q->nsorted = 0;
	return rc;
}

static inline __attribute__((always_inline)) int
pd_q_round_with(struct pd_queue *Q, pd_q_deliver_fn deliver, void *ctx)
{
	int rc = pd_q_flush_with(Q, Q->next_flush, deliver, ctx);
	Q->next_flush = Q->max_ts;
	return rc;
}

/* ---- runs: a window's samples appended in one go (the walk's loop) ----
 * Between pd_q_batch_begin and pd_q_batch_put the queue's state is in the batch's locals:
 * nothing else may look at the queue but through pd_q_batch_put. pd_q_batch_add appends
 * a sample of window win (time ts) to the run of the sample added before, or as a new run;
 * 0 when it cannot (no room in the array, or past the byte bound): the caller puts the
 * batch, pushes the record with pd_q_push and begins again. */
struct pd_qbatch {
	struct pd_qent *q, *run;    /* run: the entry of the sample added before, while it
				     * can grow */
	size_t nq, stop, nrec;
	int64_t budget0, budget;
	uint64_t last, mx;
	int mixed;
};

static inline void pd_q_batch_get(const struct pd_queue *Q, struct pd_qbatch *b)
{
	b->q = Q->q;
	b->nq = Q->nq;
	b->nrec = 0;
	/* entries may be added up to stop (an empty queue's first one goes the general way),
	 * bytes while budget lasts (the byte bound of pd_q_push, an entry counted twice) */
	b->stop = b->nq == Q->qh ? b->nq : Q->cq;
	b->budget0 = b->budget = (int64_t)Q->max_bytes -
				 (int64_t)(Q->qrecs * 2 * sizeof(*b->q) + Q->rec_bytes);
	b->last = Q->tail_last;
	b->mx = 0;
	b->mixed = 0;
}

static inline void pd_q_batch_begin(const struct pd_queue *Q, struct pd_qbatch *b)
{
	pd_q_batch_get(Q, b);
	b->run = NULL;
}

static inline int pd_q_batch_add(struct pd_qbatch *b, const uint8_t *r, uint16_t size,
				 uint64_t off, uint64_t ts, struct pd_chunk *win)
{
	struct pd_qent *run = b->run;
	if (run && ts >= b->last && (int64_t)size <= b->budget && run->n < UINT32_MAX) {
		run->n++; /* the next record of the run, in time order */
		b->last = ts;
		b->budget -= (int64_t)(2 * sizeof(*run) + size);
		b->nrec++;
		return 1;
	}
	if (b->nq == b->stop || (int64_t)size > b->budget)
		return 0;
	if (ts < b->last)
		b->mixed = 1;
	b->mx = b->last > b->mx ? b->last : b->mx;
	run = b->run = &b->q[b->nq++];
	run->ts = ts;
	run->rec = r;
	run->off = off;
	run->ch = win;
	run->n = 1;
	b->last = ts;
	b->budget -= (int64_t)(2 * sizeof(*run) + size);
	b->nrec++;
	return 1;
}

/* The batch's entries into the queue, which others may then look at; returns the samples
 * added since the last put. The batch goes on (its run may still grow) until it is begun
 * again. */
static inline size_t pd_q_batch_put(struct pd_queue *Q, struct pd_qbatch *b)
{
	size_t n = b->nrec;
	if (!n)
		return 0;
	Q->nq = b->nq;
	Q->rec_bytes += (size_t)(b->budget0 - b->budget) - n * 2 * sizeof(*b->q);
	Q->qrecs += n;
	/* each entry's records come in time order: the newest is one entry's last */
	uint64_t mx = b->mx > b->last ? b->mx : b->last;
	Q->max_ts = mx > Q->max_ts ? mx : Q->max_ts;
	Q->tail_last = b->last;
	Q->tail_mixed |= b->mixed;
	Q->win->live += n;
	pd_q_batch_get(Q, b);
	return n;
}

#endif
