/* test_pd_queue.c - the reader's sample queue (perfdata/mp_pd_queue.c) alone, without a
 * perf.data file: records with given times (and CPUs) pushed in given orders, rounds and
 * flushes; each case checks what every flush delivered, in which order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_pd_queue.h"

/* A test record: a perf_event_header (type 9, 32 bytes), the time at offset 8 (the
 * queue's sample_time), the CPU at 16 and the push's index at 24. */
#define REC 32
#define T_OFF 8

struct trace {
	char out[4096];
	size_t len;
	int stop_in;                /* > 0: the delivery that many from now returns 1 */
	uint64_t last_ts;
	unsigned ndone;
};

static void emit(struct trace *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->out + t->len, sizeof(t->out) - t->len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < sizeof(t->out) - t->len);
	t->len += (size_t)n;
}

static int deliver(void *ctx, const uint8_t *rec, size_t size, uint64_t off)
{
	struct trace *t = ctx;
	uint64_t ts, cpu, idx;
	assert_int_equal(size, REC);
	memcpy(&ts, rec + 8, 8);
	memcpy(&cpu, rec + 16, 8);
	memcpy(&idx, rec + 24, 8);
	assert_int_equal(off, idx * REC); /* the offset pushed with it */
	if (t->len && t->out[t->len - 1] != '[')
		emit(t, " ");
	if (cpu)
		emit(t, "%llu.%llu", (unsigned long long)ts, (unsigned long long)cpu);
	else
		emit(t, "%llu", (unsigned long long)ts);
	if (t->stop_in > 0 && --t->stop_in == 0) {
		emit(t, "!");
		return 1;
	}
	return 0;
}

static int done(void *ctx)
{
	((struct trace *)ctx)->ndone++;
	return 0;
}

static void make_rec(uint8_t *p, uint64_t ts, uint64_t cpu, uint64_t idx)
{
	memset(p, 0, REC);
	uint32_t type = 9;
	uint16_t misc = 0, size = REC;
	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &size, 2);
	memcpy(p + 8, &ts, 8);
	memcpy(p + 16, &cpu, 8);
	memcpy(p + 24, &idx, 8);
}

/* Runs ops, a space-separated list, and returns what was delivered:
 *   T[.C]  push a record of time T (on CPU C) that stays where it is (WALK_TOP)
 *   zT[.C] push it from a buffer overwritten right after (WALK_INNER: the queue copies it)
 *   W ... E  a window: the samples between are added as runs (pd_q_batch_*), then the
 *          window is retired
 *   R  a FINISHED_ROUND (pd_q_round)   F  the final flush   Ln  pd_q_flush(n)
 *   Bn  the byte bound n               Sn  the n-th delivery from now stops the flush
 * Output: R[...], F[...], Ln[...] with the records each delivered ("!" after the one that
 * stopped it), ^[...] for a push that delivered (the byte bound's half flush). */
static char *run_ops(const char *ops, struct trace *t)
{
	struct pd_queue Q;
	struct mp_err err = { 0 };
	static uint8_t top[4096 * REC];
	uint8_t scratch[REC];
	uint64_t idx = 0;
	struct pd_chunk *win = NULL;
	struct pd_qbatch b = { 0 };
	int rc;

	memset(t, 0, sizeof(*t));
	pd_q_init(&Q, deliver, t, "test", &err);
	Q.done = done;
	Q.sample_time = T_OFF;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", ops);
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		char op = tok[0];
		if (op == 'R' || op == 'F' || op == 'L') {
			emit(t, t->len ? " %s[" : "%s[", tok);
			size_t seg = t->len;
			if (op == 'R')
				rc = pd_q_round(&Q);
			else
				rc = pd_q_flush(&Q, op == 'F' ? UINT64_MAX : strtoull(tok + 1, NULL, 10));
			/* a stopped flush returns the delivery's value */
			assert_int_equal(rc, memchr(t->out + seg, '!', t->len - seg) ? 1 : 0);
			emit(t, "]");
			continue;
		}
		if (op == 'B') {
			Q.max_bytes = strtoull(tok + 1, NULL, 10);
			continue;
		}
		if (op == 'S') {
			t->stop_in = atoi(tok + 1);
			continue;
		}
		if (op == 'W') {
			win = pd_q_chunk_new(&Q, 4096 * REC);
			assert_non_null(win);
			Q.win = win;
			pd_q_batch_begin(&Q, &b);
			continue;
		}
		if (op == 'E') {
			pd_q_batch_put(&Q, &b);
			Q.win = NULL;
			pd_q_chunk_retire(&Q, win);
			win = NULL;
			continue;
		}
		int inner = op == 'z';
		char *end;
		uint64_t ts = strtoull(tok + inner, &end, 10), cpu = 0;
		if (*end == '.')
			cpu = strtoull(end + 1, NULL, 10);
		size_t before = t->len;
		emit(t, t->len ? " ^[" : "^[");
		size_t mark = t->len;
		if (win) { /* a sample of the window, laid after the one before */
			uint8_t *p = win->data + win->used;
			make_rec(p, ts, cpu, idx);
			win->used += REC;
			if (!pd_q_batch_add(&b, p, REC, idx * REC, ts, win)) {
				pd_q_batch_put(&Q, &b);
				rc = pd_q_push(&Q, p, REC, idx * REC, ts, WALK_WINDOW);
				assert_int_equal(rc, 0);
				pd_q_batch_begin(&Q, &b);
			}
		} else if (inner) {
			make_rec(scratch, ts, cpu, idx);
			rc = pd_q_push(&Q, scratch, REC, idx * REC, ts, WALK_INNER);
			memset(scratch, 0xee, sizeof(scratch)); /* the next zstd output */
			assert_int_equal(rc, 0);
		} else {
			uint8_t *p = top + idx * REC;
			make_rec(p, ts, cpu, idx);
			rc = pd_q_push(&Q, p, REC, idx * REC, ts, WALK_TOP);
			assert_int_equal(rc, 0);
		}
		idx++;
		if (t->len == mark)
			t->len = before; /* delivered nothing */
		else
			emit(t, "]");
		t->out[t->len] = 0;
	}
	pd_q_fini(&Q);
	return t->out;
}

static const struct {
	const char *name, *ops, *want;
} cases[] = {
	{ "in order, one round", "1 2 3 R F", "R[] F[1 2 3]" },
	/* perf's OE_FLUSH__ROUND: a round's records go out at the end of the next round, up
	 * to the newest time of the round before it */
	{ "rounds flush up to the round before", "1 5 R 2 6 R 3 7 R F", "R[] R[1 2 5] R[3 6] F[7]" },
	{ "two CPUs interleaved", "10.1 20.1 11.2 21.2 R 30.1 12.2 R F",
	  "R[] R[10.1 11.2 12.2 20.1 21.2] F[30.1]" },
	{ "equal times keep the push order", "5.1 5.2 4.1 5.3 R F", "R[] F[4.1 5.1 5.2 5.3]" },
	{ "late record still delivered, at the next flush", "10 R 20 R 5 F", "R[] R[10] F[5 20]" },
	{ "explicit limit", "9 1 7 3 L4 L4 F", "L4[1 3] L4[] F[7 9]" },
	{ "empty flushes", "R F L9", "R[] F[] L9[]" },
	/* OE_FLUSH__HALF: an entry counts 2 * 40 bytes and its record 32: 112 a record; at
	 * 4 queued records (448 > 400) a push delivers up to the middle of the queued times */
	{ "byte bound delivers the older half", "B400 1 2 3 4 5 6 F", "^[1 2] F[3 4 5 6]" },
	{ "byte bound, out of order", "B400 8 2 6 4 1 F", "^[2 4] F[1 6 8]" },
	{ "zstd copies outlive their buffer", "z3.1 z1.2 z2.1 R z0.2 F", "R[] F[0.2 1.2 2.1 3.1]" },
	{ "a window's samples as one run", "W 1 2 3 E R F", "R[] F[1 2 3]" },
	{ "runs out of order are split", "W 10 11 12 E W 5 6 13 E R F", "R[] F[5 6 10 11 12 13]" },
	{ "a run delivered in part", "W 1 3 5 7 9 E L6 L6 F", "L6[1 3 5] L6[] F[7 9]" },
	{ "a run and pushed records merged", "W 1 4 7 E 2 5 z3 R F", "R[] F[1 2 3 4 5 7]" },
	{ "a run cut by a late record", "W 1 5 9 E R 6 R F", "R[] R[1 5 6 9] F[]" },
	{ "a stopped flush keeps the rest", "1 2 3 4 S2 F F", "F[1 2!] F[3 4]" },
	{ "a stopped run keeps the rest", "W 1 2 3 4 E S3 F F", "F[1 2 3!] F[4]" },
};

static void pd_q__cases__delivered_in_time_order(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct trace t;
		const char *got = run_ops(cases[i].ops, &t);
		if (strcmp(got, cases[i].want))
			fail_msg("%s: ops '%s': got '%s', want '%s'", cases[i].name, cases[i].ops, got,
				 cases[i].want);
	}
}

/* ---- many CPUs: perf's round invariant kept, every record out once, in time order ---- */

struct order {
	uint64_t last_ts, last_idx, n;
	uint8_t *seen;
	int per_flush, fresh;       /* compare within each flush only */
};

static int done_check(void *ctx)
{
	struct order *o = ctx;
	o->fresh = o->per_flush;
	return 0;
}

static int deliver_check(void *ctx, const uint8_t *rec, size_t size, uint64_t off)
{
	struct order *o = ctx;
	uint64_t ts, idx;
	(void)size;
	(void)off;
	memcpy(&ts, rec + 8, 8);
	memcpy(&idx, rec + 24, 8);
	if (o->n && !o->fresh && (ts < o->last_ts || (ts == o->last_ts && idx < o->last_idx)))
		fail_msg("record %llu (time %llu) delivered after record %llu (time %llu)",
			 (unsigned long long)idx, (unsigned long long)ts,
			 (unsigned long long)o->last_idx, (unsigned long long)o->last_ts);
	assert_int_equal(o->seen[idx], 0);
	o->seen[idx] = 1;
	o->last_ts = ts;
	o->last_idx = idx;
	o->n++;
	o->fresh = 0;
	return 0;
}

/* Rounds of 8 CPUs' records (each CPU's in time order, all newer than the newest record of
 * the round before the last, perf's invariant), pushed CPU after CPU as perf's rings are
 * drained, each CPU's as a window's runs, as copies or in place: delivered in time order
 * (equal times in push order), each once. Then with a small byte bound, whose half flushes
 * may deliver a record before an older one pushed later (as perf's): each flush in order. */
static void pd_q__random_rounds__sorted_and_complete(void **state)
{
	(void)state;
	enum { NCPU = 8, NROUND = 60, MAXPER = 40 };
	static uint8_t recs[NCPU * NROUND * MAXPER * REC];
	uint8_t seen[NCPU * NROUND * MAXPER] = { 0 };
	uint64_t next_time[NCPU] = { 0 };
	for (int bound = 0; bound < 2; bound++) {
		struct order o = { .seen = seen, .per_flush = bound };
		struct pd_queue Q;
		struct mp_err err = { 0 };
		memset(seen, 0, sizeof(seen));
		pd_q_init(&Q, deliver_check, &o, "test", &err);
		Q.done = done_check;
		Q.sample_time = T_OFF;
		if (bound)
			Q.max_bytes = 64 * 112;
		srand(7 + bound);
		uint64_t idx = 0, prev_max = 1000, max = 1000;
		memset(next_time, 0, sizeof(next_time));
		for (int r = 0; r < NROUND; r++) {
			uint64_t start = prev_max + 1;
			for (int c = 0; c < NCPU; c++) {
				int n = rand() % MAXPER, how = rand() % 3;
				uint64_t t = start + (uint64_t)(rand() % 5);
				struct pd_chunk *win = NULL;
				struct pd_qbatch b = { 0 };
				if (how == 2) {
					win = pd_q_chunk_new(&Q, MAXPER * REC);
					assert_non_null(win);
					Q.win = win;
					pd_q_batch_begin(&Q, &b);
				}
				for (int k = 0; k < n; k++) {
					t += (uint64_t)(rand() % 4); /* equal times too */
					uint8_t *p = how == 2 ? win->data + win->used : recs + idx * REC;
					make_rec(p, t, (uint64_t)c, idx);
					if (how == 2) {
						win->used += REC;
						if (!pd_q_batch_add(&b, p, REC, idx * REC, t, win)) {
							pd_q_batch_put(&Q, &b);
							assert_int_equal(pd_q_push(&Q, p, REC, idx * REC, t, WALK_WINDOW), 0);
							pd_q_batch_begin(&Q, &b);
						}
					} else {
						assert_int_equal(pd_q_push(&Q, p, REC, idx * REC, t,
									   how ? WALK_INNER : WALK_TOP), 0);
					}
					idx++;
				}
				next_time[c] = t;
				if (how == 2) {
					pd_q_batch_put(&Q, &b);
					Q.win = NULL;
					pd_q_chunk_retire(&Q, win);
				}
			}
			prev_max = max;
			for (int c = 0; c < NCPU; c++)
				if (next_time[c] > max)
					max = next_time[c];
			assert_int_equal(pd_q_round(&Q), 0);
		}
		assert_int_equal(pd_q_flush(&Q, UINT64_MAX), 0);
		assert_true(pd_q_empty(&Q));
		assert_int_equal(o.n, idx);
		pd_q_fini(&Q);
	}
}

/* Many rounds of two CPUs' interleaved records, each CPU's as one window run: every round
 * splits the runs, and the round's own records stay queued past its flush (the queue never
 * empties). The queue's array keeps the size of what is queued, not of what went through
 * it (it grew with the delivered entries before their room was reused: 200 MB at 1e7
 * samples). */
static void pd_q__interleaved_rounds__array_stays_small(void **state)
{
	(void)state;
	enum { NROUND = 3000, PER = 40 };
	struct order o = { 0 };
	static uint8_t seen[2 * NROUND * PER];
	struct pd_queue Q;
	struct mp_err err = { 0 };
	o.seen = seen;
	pd_q_init(&Q, deliver_check, &o, "test", &err);
	Q.done = done_check;
	Q.sample_time = T_OFF;
	uint64_t idx = 0;
	for (int r = 0; r < NROUND; r++) {
		for (uint64_t c = 0; c < 2; c++) {
			struct pd_chunk *win = pd_q_chunk_new(&Q, PER * REC);
			struct pd_qbatch b = { 0 };
			assert_non_null(win);
			Q.win = win;
			pd_q_batch_begin(&Q, &b);
			for (uint64_t k = 0; k < PER; k++) {
				uint64_t t = 1000 + (uint64_t)r * 1000 + 2 * k + c;
				uint8_t *p = win->data + win->used;
				make_rec(p, t, c, idx);
				win->used += REC;
				if (!pd_q_batch_add(&b, p, REC, idx * REC, t, win)) {
					pd_q_batch_put(&Q, &b);
					assert_int_equal(pd_q_push(&Q, p, REC, idx * REC, t, WALK_WINDOW), 0);
					pd_q_batch_begin(&Q, &b);
				}
				idx++;
			}
			pd_q_batch_put(&Q, &b);
			Q.win = NULL;
			pd_q_chunk_retire(&Q, win);
		}
		assert_int_equal(pd_q_round(&Q), 0);
		assert_true(Q.cq <= 4096); /* the least it allocates: 2 rounds of 80 fit */
	}
	assert_int_equal(pd_q_flush(&Q, UINT64_MAX), 0);
	assert_int_equal(o.n, idx);
	pd_q_fini(&Q);
}

/* The deliveries of one run: each record's index, and its type (9: sample, 3: another) */
struct seq {
	uint32_t *idx;
	uint8_t *type;
	size_t n;
};

static int deliver_seq(void *ctx, const uint8_t *rec, size_t size, uint64_t off)
{
	struct seq *q = ctx;
	uint64_t idx;
	uint32_t type;
	(void)size;
	(void)off;
	memcpy(&idx, rec + 24, 8);
	memcpy(&type, rec, 4);
	q->idx[q->n] = (uint32_t)idx;
	q->type[q->n++] = (uint8_t)type;
	return 0;
}

/* Random rounds of 8 CPUs' samples, each CPU's as a window's runs or pushed one by one,
 * with now and then another record (a comm, type 3) on a CPU, as perf's rings give them:
 * delivered with any_order_type 9 and without, the other records come in the same order
 * and the same samples come between each two of them, each once; and with any_order_type
 * a flush with no other record due gives each run's samples one after another (most
 * samples follow the one pushed before them, not so in time order). Then the same with a
 * small byte bound (half flushes, in time order, in between). */
static void pd_q__any_order__same_samples_between_other_records(void **state)
{
	(void)state;
	enum { NCPU = 8, NROUND = 80, MAXPER = 40, NREC = NCPU * NROUND * MAXPER };
	static uint8_t recs[NREC * REC];
	static uint32_t idx[2][NREC];
	static uint8_t type[2][NREC], mark[NREC];
	for (int bound = 0; bound < 2; bound++) {
		struct seq sq[2] = { { idx[0], type[0], 0 }, { idx[1], type[1], 0 } };
		size_t nrec = 0, nother = 0, adjacent = 0;
		for (int any = 0; any < 2; any++) {
			struct pd_queue Q;
			struct mp_err err = { 0 };
			pd_q_init(&Q, deliver_seq, &sq[any], "test", &err);
			Q.sample_time = T_OFF;
			Q.any_order_type = any ? 9 : 0;
			if (bound)
				Q.max_bytes = 64 * 112;
			srand(11 + bound);
			uint64_t id = 0, prev_max = 1000, max = 1000;
			for (int r = 0; r < NROUND; r++) {
				uint64_t start = prev_max + 1, newest = max;
				for (int c = 0; c < NCPU; c++) {
					int n = rand() % MAXPER, win_run = rand() % 3 != 0;
					uint64_t t = start + (uint64_t)(rand() % 5);
					struct pd_chunk *win = NULL;
					struct pd_qbatch b = { 0 };
					if (win_run) {
						win = pd_q_chunk_new(&Q, MAXPER * REC);
						assert_non_null(win);
						Q.win = win;
						pd_q_batch_begin(&Q, &b);
					}
					for (int k = 0; k < n; k++) {
						t += (uint64_t)(rand() % 4);
						int other = rand() % 600 == 0;
						uint8_t *p = win_run ? win->data + win->used : recs + id * REC;
						make_rec(p, t, (uint64_t)c, id);
						if (other) {
							uint32_t ty = 3;
							memcpy(p, &ty, 4);
						}
						if (win_run) {
							win->used += REC;
							if (other || !pd_q_batch_add(&b, p, REC, id * REC, t, win)) {
								pd_q_batch_put(&Q, &b);
								assert_int_equal(pd_q_push(&Q, p, REC, id * REC, t,
											   WALK_WINDOW), 0);
								pd_q_batch_begin(&Q, &b);
							}
						} else {
							assert_int_equal(pd_q_push(&Q, p, REC, id * REC, t, WALK_TOP), 0);
						}
						id++;
					}
					if (win_run) {
						pd_q_batch_put(&Q, &b);
						Q.win = NULL;
						pd_q_chunk_retire(&Q, win);
					}
					newest = t > newest ? t : newest;
				}
				prev_max = max;
				max = newest;
				assert_int_equal(pd_q_round(&Q), 0);
			}
			assert_int_equal(pd_q_flush(&Q, UINT64_MAX), 0);
			assert_true(pd_q_empty(&Q));
			assert_int_equal(sq[any].n, id);
			nrec = id;
			pd_q_fini(&Q);
		}
		/* between each two other records (and before the first, after the last): the
		 * same samples, each once */
		size_t i = 0, j = 0;
		for (;;) {
			memset(mark, 0, nrec);
			size_t ni = 0, nj = 0;
			for (; i < nrec && type[0][i] == 9; i++, ni++)
				mark[idx[0][i]] = 1;
			for (; j < nrec && type[1][j] == 9; j++, nj++) {
				assert_int_equal(mark[idx[1][j]], 1);
				mark[idx[1][j]] = 0;
				/* a CPU's samples come in their push order: consecutive indexes */
				adjacent += j && type[1][j - 1] == 9 && idx[1][j] == idx[1][j - 1] + 1;
			}
			assert_int_equal(ni, nj);
			if (i == nrec || j == nrec) {
				assert_true(i == nrec && j == nrec);
				break;
			}
			assert_int_equal(type[0][i], 3);
			assert_int_equal(type[1][j], 3);
			assert_int_equal(idx[0][i], idx[1][j]);
			nother++;
			i++;
			j++;
		}
		assert_true(nother > 10);
		/* time order interleaves the CPUs' samples; any order keeps most of a run's
		 * records together */
		size_t adjacent_ordered = 0;
		for (size_t k = 1; k < nrec; k++)
			adjacent_ordered += type[0][k] == 9 && type[0][k - 1] == 9 &&
					    idx[0][k] == idx[0][k - 1] + 1;
		if (!bound) { /* (half flushes are in time order) */
			assert_true(adjacent > nrec / 2);
			assert_true(adjacent > 2 * adjacent_ordered);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pd_q__cases__delivered_in_time_order),
		cmocka_unit_test(pd_q__random_rounds__sorted_and_complete),
		cmocka_unit_test(pd_q__interleaved_rounds__array_stays_small),
		cmocka_unit_test(pd_q__any_order__same_samples_between_other_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
