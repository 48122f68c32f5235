/* mp_pd_walk.c - perf.data reader: the record walk: the data section in windows, read ahead by
 * a second thread, and mp_pd_process(). */
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

/* Drop the pages behind the walk every PD_DROP_STEP bytes, so the resident size of a
 * large file stays bounded instead of growing to the file size. The mapping is private
 * and never written: a later access (a queued record) just reads the page in again. */
#define PD_DROP_STEP (32u << 20)
static void drop_behind(struct pd_run *R, uint64_t pos)
{
	mp_pd *pd = R->pd;
	if (!pd->own_map || R->q.win || pos < R->dropped + 2 * (uint64_t)PD_DROP_STEP)
		return;
	uint64_t page = 4096, to = (pos - PD_DROP_STEP) & ~(page - 1);
	madvise((void *)(pd->map + R->dropped), (size_t)(to - R->dropped), MADV_DONTNEED);
	R->dropped = to;
}

static void progress(struct pd_run *R, uint64_t pos)
{
	if (pos < R->prog_next)
		return;
	R->prog_next = pos + R->prog_step;
	drop_behind(R, pos);
	if (R->h && R->h->progress)
		R->h->progress(R->h->ctx, pos - R->pd->data_off, R->pd->data_size);
}

/* The samples from pos on in a window of an ordered file whose samples all have their time
 * at the queue's sample_time (the common records): queued as mp_pd_walk's loop would,
 * without its other cases, as runs (pd_q_batch_*). Returns where it stopped: the end, or a
 * record that loop is to look at (any other type, a bad size, a cut record, no time); *rc
 * set when queueing fails. */
static inline size_t walk_samples(struct pd_run *R, const uint8_t *buf, size_t len, size_t pos,
				  uint64_t base, int *rc)
{
	struct pd_queue *Q = &R->q;
	const size_t to = Q->sample_time;
	struct pd_chunk *win = Q->win;
	uint64_t *nsamples = &R->pd->counts[PERF_RECORD_SAMPLE];
	struct pd_qbatch b;
	pd_q_batch_begin(Q, &b);
	uint64_t prog = R->prog_next > base ? R->prog_next - base : 0; /* progress due here */
	while (len - pos >= 8) {
		const uint8_t *r = buf + pos;
		uint16_t size = mp_ld16(r + 6);
		if (mp_ld32(r) != PERF_RECORD_SAMPLE || size < 8 || size > len - pos || to + 8 > size)
			break;
		uint64_t ts = mp_ld64(r + to);
		if (!ts)
			break;
		if (!pd_q_batch_add(&b, r, size, base + pos, ts, win)) {
			*nsamples += pd_q_batch_put(Q, &b);
			++*nsamples;
			if ((*rc = pd_q_push(Q, r, size, base + pos, ts, WALK_WINDOW)))
				return pos;
			pd_q_batch_begin(Q, &b);
		}
		pos += size;
		if (pos >= prog) {
			*nsamples += pd_q_batch_put(Q, &b);
			progress(R, base + pos);
			prog = R->prog_next > base ? R->prog_next - base : 0;
		}
	}
	*nsamples += pd_q_batch_put(Q, &b);
	return pos;
}

/* Walk records in buf. WALK_TOP: buf is the data section at file offset base; a record
 * running past its end is a truncation error. WALK_INNER (zstd output): a trailing partial
 * record is left for the next COMPRESSED record (*consumed says how far the walk got);
 * base is the COMPRESSED record's file offset, used in messages. WALK_WINDOW: buf is the
 * part of the data section at file offset base (walk_windows); a trailing partial record
 * is left for the next window unless the data ends there, and *consumed goes past len when
 * a record's payload (AUXTRACE) does. */
int mp_pd_walk(struct pd_run *R, const uint8_t *buf, size_t len, uint64_t base, int mode, size_t *consumed)
{
	mp_pd *pd = R->pd;
	size_t pos = 0;
	int rc = 0, inner = mode == WALK_INNER;
	char why[200];
	/* a window that ends before the data section does may end inside a record */
	int more = mode == WALK_WINDOW && base + len < pd->data_off + pd->data_size;

	const int fast = mode == WALK_WINDOW && R->q.sample_time;
	while (len - pos >= 8 || (!inner && pos < len)) {
		if (fast) {
			pos = walk_samples(R, buf, len, pos, base, &rc);
			if (rc)
				return rc;
			if (pos == len)
				break;
		}
		uint64_t off = inner ? base : base + pos;
		if (len - pos < 8 && more)
			break;
		if (len - pos < 8) {
			mp_err_set(R->err, -MP_ETRUNC, "%s: truncated: record header at offset %#" PRIx64
				   " needs 8 bytes but the data ends at %#" PRIx64, pd->path, off, base + len);
			return -MP_ETRUNC;
		}
		const uint8_t *r = buf + pos;
		uint32_t type = mp_ld32(r);
		uint16_t size = mp_ld16(r + 6);
		if (size < 8) {
			if (size == 0)
				snprintf(why, sizeof(why), "size 0");
			else
				snprintf(why, sizeof(why), "size %u is smaller than the record header", size);
			if (inner)
				snprintf(why + strlen(why), sizeof(why) - strlen(why), " (inside the compressed data)");
			return pd_err_rec(pd, R->err, off, why);
		}
		if (size > len - pos) {
			if (inner || more)
				break;
			mp_err_set(R->err, -MP_ETRUNC, "%s: truncated: record at offset %#" PRIx64
				   " (type %u, size %u) ends at %#" PRIx64 " but the data ends at %#" PRIx64,
				   pd->path, off, type, size, off + size, base + len);
			return -MP_ETRUNC;
		}
		uint64_t adv = size + mp_pd_record_extra(type, r, size);
		if (type < PD_NTYPES)
			pd->counts[type]++;
		if (type < MP_RECORD_USER_START) {
			uint64_t ts;
			const size_t to = R->q.sample_time;
			if (type == PERF_RECORD_SAMPLE && to)
				ts = to + 8 <= size && mp_ld64(r + to) ? mp_ld64(r + to) : UINT64_MAX;
			else
				ts = R->ordered ? mp_pd_rec_time(pd, r, size, type) : UINT64_MAX;
			if (ts != UINT64_MAX)
				rc = pd_q_push_fast(&R->q, r, size, off, ts, mode);
			else if ((R->rk.state = RK_NONE, rc = mp_pd_sample_fast(R, r, size)) == PD_SLOW)
				rc = mp_pd_deliver(R, r, size, off);
		} else {
			switch (type) {
			case MP_RECORD_FINISHED_ROUND:
				if (R->ordered)
					rc = pd_run_round(R);
				break;
			case MP_RECORD_COMPRESSED:
				if (inner)
					return pd_err_rec(pd, R->err, off, "compressed record inside compressed data");
				rc = mp_pd_do_compressed(R, r + 8, size - 8u, off);
				break;
			case MP_RECORD_COMPRESSED2:
				if (inner)
					return pd_err_rec(pd, R->err, off, "compressed record inside compressed data");
				if (size < 16)
					return pd_err_rec(pd, R->err, off, "compressed2 record too short");
				if (mp_ld64(r + 8) > size - 16u)
					return pd_err_rec(pd, R->err, off, "compressed2 data size exceeds the record");
				rc = mp_pd_do_compressed(R, r + 16, (size_t)mp_ld64(r + 8), off);
				break;
			/* header-like records after the pipe-mode prescan (or in a file's data):
			 * applied once, on the first run */
			case MP_RECORD_EVENT_UPDATE:
				if (pd->runs == 1 && (!pd->pipe || inner || base + pos >= pd->prescan_end))
					mp_pd_handle_event_update(pd, r, size);
				break;
			case MP_RECORD_HEADER_BUILD_ID:
				if (pd->runs == 1 && !inner && pd->pipe && base + pos >= pd->prescan_end)
					mp_pd_add_build_id(pd, r, size);
				break;
			case MP_RECORD_HEADER_FEATURE:
				if (pd->runs == 1 && !inner && pd->pipe && base + pos >= pd->prescan_end && size >= 16 &&
				    mp_ld64(r + 8) < MP_HEADER_FEAT_BITS)
					mp_pd_parse_feature(pd, (unsigned)mp_ld64(r + 8), r + 16, size - 16u);
				break;
			default:
				break; /* HEADER_ATTR (read at open), ID_INDEX, maps, STAT*, TIME_CONV ... */
			}
		}
		if (rc)
			return rc;
		if (adv > len - pos && mode == WALK_WINDOW &&
		    adv - (len - pos) <= pd->data_off + pd->data_size - (base + len)) {
			pos += (size_t)adv; /* the payload goes on past the window: skipped */
			break;
		}
		if (adv > len - pos) {
			snprintf(why, sizeof(why), "payload of %" PRIu64 " bytes runs past the end of the data",
				 adv - size);
			return pd_err_rec(pd, R->err, off, why);
		}
		pos += (size_t)adv;
		if (!inner)
			progress(R, base + pos);
	}
	if (consumed)
		*consumed = pos;
	return 0;
}

/* The data section of a file read window by window into reused buffers (each queued
 * record keeps its window until it is delivered), a record cut by a window's end carried
 * to the start of the next. */
static int walk_windows(struct pd_run *R)
{
	mp_pd *pd = R->pd;
	const uint64_t dend = pd->data_off + pd->data_size;
	uint64_t fpos = pd->data_off; /* next byte of the file to read */
	struct pd_chunk *prev = NULL;
	size_t carry = 0, carry_at = 0;
	int rc = 0;

	while (fpos < dend || carry) {
		struct pd_chunk *c = pd_q_chunk_new(&R->q, PD_WIN_SIZE);
		if (!c)
			return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		if (carry)
			memcpy(c->data, prev->data + carry_at, carry);
		if (prev) {
			pd_q_chunk_retire(&R->q, prev);
		}
		prev = c;
		uint64_t base = fpos - carry;
		size_t len = carry;
		while (len < c->cap && fpos < dend) {
			size_t want = c->cap - len;
			if (want > dend - fpos)
				want = (size_t)(dend - fpos);
			ssize_t got = pread(pd->fd, c->data + len, want, (off_t)fpos);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				int e = got < 0 ? errno : 0;
				return mp_err_set(R->err, got < 0 ? -e : -MP_ETRUNC,
						  "%s: reading the data at offset %#" PRIx64 ": %s", pd->path,
						  fpos, got < 0 ? strerror(e) : "the file is shorter than its header says");
			}
			len += (size_t)got;
			fpos += (uint64_t)got;
		}
		size_t used = 0;
		R->q.win = c;
		rc = mp_pd_walk(R, c->data, len, base, WALK_WINDOW, &used);
		R->q.win = NULL;
		if (rc)
			break;
		if (used >= len) {
			fpos = base + used; /* past a payload that went on beyond the window */
			carry = 0;
		} else {
			carry = len - used; /* a record cut by the window's end, at most 64 KiB */
			carry_at = used;
		}
	}
	if (prev) {
		pd_q_chunk_retire(&R->q, prev);
	}
	return rc;
}

static void *reader_main(void *arg)
{
	struct pd_reader *rd = arg;
	pthread_mutex_lock(&rd->mu);
	while (!rd->stop && rd->fpos < rd->dend) {
		while (rd->nready >= PD_AHEAD && !rd->stop)
			pthread_cond_wait(&rd->cv_space, &rd->mu);
		if (rd->stop)
			break;
		struct pd_chunk *c = rd->free;
		if (c) {
			rd->free = c->next;
			rd->nfree--;
		}
		uint64_t fpos = rd->fpos;
		pthread_mutex_unlock(&rd->mu);
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (c) {
				c->cap = PD_WIN_SIZE;
				c->ahead = 1;
				c->data = malloc(PD_HEAD + (size_t)PD_WIN_SIZE);
				if (!c->data) {
					free(c);
					c = NULL;
				}
			}
		}
		size_t len = 0, want = PD_WIN_SIZE;
		int e = c ? 0 : -ENOMEM;
		if (want > rd->dend - fpos)
			want = (size_t)(rd->dend - fpos);
		while (!e && len < want) {
			ssize_t got = pread(rd->fd, c->data + PD_HEAD + len, want - len, (off_t)(fpos + len));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				e = got < 0 ? -errno : 1;
			else
				len += (size_t)got;
		}
		pthread_mutex_lock(&rd->mu);
		if (e) {
			rd->err = e;
			rd->err_off = fpos + len;
			if (c) {
				c->next = rd->free;
				rd->free = c;
				rd->nfree++;
			}
			break;
		}
		c->foff = fpos;
		c->used = len;
		c->next = NULL;
		if (rd->ready_tail)
			rd->ready_tail->next = c;
		else
			rd->ready = c;
		rd->ready_tail = c;
		rd->nready++;
		rd->fpos = fpos + len;
		pthread_cond_signal(&rd->cv_ready);
	}
	rd->done = 1;
	pthread_cond_signal(&rd->cv_ready);
	pthread_mutex_unlock(&rd->mu);
	return NULL;
}

/* The next window read ahead (NULL at the end or on an error, *e set then). */
static struct pd_chunk *reader_next(struct pd_reader *rd, int *e, uint64_t *err_off)
{
	pthread_mutex_lock(&rd->mu);
	while (!rd->nready && !rd->done)
		pthread_cond_wait(&rd->cv_ready, &rd->mu);
	struct pd_chunk *c = rd->ready;
	if (c) {
		rd->ready = c->next;
		if (!rd->ready)
			rd->ready_tail = NULL;
		rd->nready--;
		pthread_cond_signal(&rd->cv_space);
	} else {
		*e = rd->err;
		*err_off = rd->err_off;
	}
	pthread_mutex_unlock(&rd->mu);
	return c;
}

/* The queue is done with window c: back on the thread's free list. */
static void reader_give_back(void *ctx, struct pd_chunk *c)
{
	struct pd_reader *rd = ctx;
	pthread_mutex_lock(&rd->mu);
	c->next = rd->free;
	rd->free = c;
	rd->nfree++;
	pthread_mutex_unlock(&rd->mu);
}

static void reader_free_list(struct pd_chunk *c)
{
	while (c) {
		struct pd_chunk *n = c->next;
		free(c->data);
		free(c);
		c = n;
	}
}

/* walk_windows with the reading done ahead by a second thread; -EAGAIN when the thread
 * cannot be started (the caller reads in this one). */
static int walk_ahead(struct pd_run *R)
{
	mp_pd *pd = R->pd;
	struct pd_reader *rd = calloc(1, sizeof(*rd));
	if (!rd)
		return -EAGAIN;
	rd->fd = pd->fd;
	rd->fpos = pd->data_off;
	rd->dend = pd->data_off + pd->data_size;
	pthread_mutex_init(&rd->mu, NULL);
	pthread_cond_init(&rd->cv_ready, NULL);
	pthread_cond_init(&rd->cv_space, NULL);
	if (pthread_create(&rd->th, NULL, reader_main, rd)) {
		pthread_cond_destroy(&rd->cv_space);
		pthread_cond_destroy(&rd->cv_ready);
		pthread_mutex_destroy(&rd->mu);
		free(rd);
		return -EAGAIN;
	}
	R->rd = rd;
	R->q.give_back = reader_give_back;
	R->q.give_back_ctx = rd;
	const uint64_t dend = rd->dend;
	uint64_t fpos = pd->data_off; /* next byte of the data to walk */
	struct pd_chunk *prev = NULL;
	size_t carry = 0, carry_at = 0;
	int rc = 0;

	while (fpos < dend || carry) {
		int e = 0;
		uint64_t eoff = 0;
		struct pd_chunk *c = reader_next(rd, &e, &eoff);
		if (!c) {
			if (e < 0 && e != -ENOMEM)
				rc = mp_err_set(R->err, e, "%s: reading the data at offset %#" PRIx64 ": %s",
						pd->path, eoff, strerror(-e));
			else if (e < 0)
				rc = PD_ERR(pd, R->err, -ENOMEM, "out of memory");
			else if (e > 0)
				rc = mp_err_set(R->err, -MP_ETRUNC, "%s: reading the data at offset %#" PRIx64
						": the file is shorter than its header says", pd->path, eoff);
			else if (carry) /* the data ends inside a record: walk says so */
				c = NULL;
			if (rc || !carry)
				break;
		}
		if (c && c->foff + c->used <= fpos && !carry) {
			/* all of it inside a payload that was skipped */
			c->live = 1;
			c->retired = 1;
			pd_q_chunk_link(&R->q, c);
			pd_q_chunk_release(&R->q, c);
			continue;
		}
		uint8_t *buf;
		size_t len;
		uint64_t base;
		if (!c) {
			/* no more data: the carried bytes alone, walked as the data's end */
			buf = prev->data + carry_at;
			len = carry;
			base = fpos - carry;
		} else {
			c->live = 0;
			c->retired = 0;
			pd_q_chunk_link(&R->q, c);
			size_t skip = fpos > c->foff ? (size_t)(fpos - c->foff) : 0;
			if (carry)
				memcpy(c->data + PD_HEAD - carry, prev->data + carry_at, carry);
			buf = c->data + PD_HEAD + skip - carry;
			len = carry + c->used - skip;
			base = c->foff + skip - carry;
		}
		struct pd_chunk *walked = c ? c : prev;
		if (c && prev) {
			pd_q_chunk_retire(&R->q, prev);
			prev = NULL;
		}
		size_t used = 0;
		R->q.win = walked;
		rc = mp_pd_walk(R, buf, len, base, WALK_WINDOW, &used);
		R->q.win = NULL;
		if (rc || !c)
			break;
		prev = c;
		if (used >= len) {
			fpos = base + used; /* past a payload that went on beyond the window */
			carry = 0;
		} else {
			carry = len - used;
			carry_at = (size_t)(buf - c->data) + used;
			fpos = base + len;
		}
	}
	if (prev) {
		pd_q_chunk_retire(&R->q, prev);
	}
	pthread_mutex_lock(&rd->mu);
	rd->stop = 1;
	pthread_cond_signal(&rd->cv_space);
	pthread_mutex_unlock(&rd->mu);
	pthread_join(rd->th, NULL);
	return rc;
}

/* After the run: the read-ahead thread's buffers freed (queued records' windows are the
 * queue's and freed with it). */
static void reader_fini(struct pd_run *R)
{
	struct pd_reader *rd = R->rd;
	if (!rd)
		return;
	R->rd = NULL;
	R->q.give_back = NULL;
	reader_free_list(rd->ready);
	reader_free_list(rd->free);
	pthread_cond_destroy(&rd->cv_space);
	pthread_cond_destroy(&rd->cv_ready);
	pthread_mutex_destroy(&rd->mu);
	free(rd);
}

int mp_pd_process(mp_pd *pd, const struct mp_pd_handler *h, struct mp_err *err)
{
	if (!pd)
		return mp_err_set(err, -EINVAL, "mp_pd_process: no file");
	struct pd_run R;
	memset(&R, 0, sizeof(R));
	R.pd = pd;
	R.h = h;
	R.err = err;
	R.ordered = pd->ordered && pd->ia[0].sid_all && h &&
		    (h->mmap || h->comm || h->fork || h->exit);
	pd_q_init(&R.q, mp_pd_deliver_queued, &R, pd->path, err);
	R.q.done = mp_pd_deliver_done;
	if (R.ordered && (pd->nattrs == 1 || !pd->id_off))
		R.q.sample_time = pd->ia[0].lay.time; /* as mp_pd_rec_time's sample_attr says 0 */
	if (R.ordered && h->samples_any_order) {
		R.q.any_order_type = PERF_RECORD_SAMPLE;
		for (size_t i = 0; i < pd->nattrs; i++)
			if (pd->attrs[i].attr.sample_type & PERF_SAMPLE_READ)
				R.q.any_order_type = 0; /* each value's delta is to the one before */
	}
	R.prog_step = pd->data_size / 100 + 1;
	R.prog_next = pd->data_off + R.prog_step;

	memset(pd->counts, 0, sizeof(pd->counts));
	pd->nr_unknown = 0;
	pd->nrdctr = 0;
	pd->runs++;
	for (size_t i = 0; i < pd->nattrs; i++) {
		struct mp_pd_attr *a = &pd->attrs[i];
		a->nr_samples = a->total_period = a->lost = 0;
		a->has_counts = 0;
		a->count = (struct mp_counts){ 0, 0, 0 };
		a->count_nctr = a->count_nmux = a->count_mux_run = a->count_mux_ena = 0;
	}
	for (size_t i = 0; i < pd->sid_cap; i++)
		pd->sids[i].prev = 0;

	int rc = -EAGAIN;
	if (pd->own_map && pd->fd >= 0 && pd->data_size > PD_THREAD_MIN)
		rc = walk_ahead(&R);
	if (rc == -EAGAIN)
		rc = pd->own_map && pd->fd >= 0 ? walk_windows(&R)
						: mp_pd_walk(&R, pd->map + pd->data_off, (size_t)pd->data_size,
						       pd->data_off, WALK_TOP, NULL);
	if (rc == 0 && R.z.zlen) {
		/* a partial record left in the zstd output at the end of the file */
		rc = pd_err_rec(pd, err, pd->data_off + pd->data_size,
				"truncated: the compressed data ends inside a record");
	}
	if (rc == 0 && R.ordered)
		rc = pd_run_flush(&R, UINT64_MAX);
	mp_pd_finish_counts(pd);
	if (h && h->progress)
		h->progress(h->ctx, pd->data_size, pd->data_size);
	pd_q_fini(&R.q);
	reader_fini(&R);
	mp_pd_zstd_fini(&R.z);
	return rc;
}
