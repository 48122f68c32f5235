/* test_perfabi.c - the shared perf.data ABI module: the sample layout
 * (mp_sample_layout_init) against layouts computed by hand, and against records encoded
 * field by field in the kernel's order for every set of fixed-size fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mp_perfdata.h"

#define S(x) PERF_SAMPLE_##x
#define F(x) PERF_FORMAT_##x

/* one layout computed by hand: offsets from the record start (header included), trailer
 * positions in bytes back from the record end, 0 = absent */
struct layout_case {
	uint64_t st, rf;
	int sid_all;
	unsigned identifier, ip, tid, time, addr, id, stream_id, cpu, period;
	unsigned sample_id, event_id, fixed_size, fixed_only;
	unsigned read_ena, read_run, read_id, read_lost, read_size, read_entry;
	unsigned trailer_size, tr_tid, tr_time, tr_id, tr_stream_id, tr_cpu, tr_identifier,
		tr_event_id;
	int line;
};

static const struct layout_case cases[] = {
	/* perf record -e page-faults -c 1: IP|TID|TIME, read_format ID|LOST */
	{ .st = S(IP) | S(TID) | S(TIME), .rf = F(ID) | F(LOST), .sid_all = 1,
	  .ip = 8, .tid = 16, .time = 24, .fixed_size = 32, .fixed_only = 1,
	  .read_id = 8, .read_lost = 16, .read_size = 24, .read_entry = 24,
	  .trailer_size = 16, .tr_tid = 16, .tr_time = 8, .line = __LINE__ },
	/* memprof record: IDENTIFIER first, the id without PERF_SAMPLE_ID */
	{ .st = S(IDENTIFIER) | S(IP) | S(TID) | S(TIME) | S(CPU) | S(PERIOD),
	  .rf = F(TOTAL_TIME_ENABLED) | F(TOTAL_TIME_RUNNING) | F(ID), .sid_all = 1,
	  .identifier = 8, .ip = 16, .tid = 24, .time = 32, .cpu = 40, .period = 48,
	  .sample_id = 8, .event_id = 8, .fixed_size = 56, .fixed_only = 1,
	  .read_ena = 8, .read_run = 16, .read_id = 24, .read_size = 32, .read_entry = 16,
	  .trailer_size = 32, .tr_tid = 32, .tr_time = 24, .tr_cpu = 16, .tr_identifier = 8,
	  .tr_event_id = 8, .line = __LINE__ },
	/* every fixed field, READ of a group with everything, a call chain */
	{ .st = S(IDENTIFIER) | S(IP) | S(TID) | S(TIME) | S(ADDR) | S(ID) | S(STREAM_ID) |
		S(CPU) | S(PERIOD) | S(READ) | S(CALLCHAIN),
	  .rf = F(GROUP) | F(TOTAL_TIME_ENABLED) | F(TOTAL_TIME_RUNNING) | F(ID) | F(LOST),
	  .sid_all = 1, .identifier = 8, .ip = 16, .tid = 24, .time = 32, .addr = 40,
	  .id = 48, .stream_id = 56, .cpu = 64, .period = 72, .sample_id = 48, .event_id = 8,
	  .fixed_size = 80, .read_ena = 8, .read_run = 16, .read_id = 8, .read_lost = 16,
	  .read_size = 24, .read_entry = 24, .trailer_size = 48, .tr_tid = 48, .tr_time = 40,
	  .tr_id = 32, .tr_stream_id = 24, .tr_cpu = 16, .tr_identifier = 8, .tr_event_id = 8,
	  .line = __LINE__ },
	/* the same without sample_id_all: no trailer */
	{ .st = S(IDENTIFIER) | S(IP) | S(TID) | S(TIME) | S(ADDR) | S(ID) | S(STREAM_ID) |
		S(CPU) | S(PERIOD) | S(READ) | S(CALLCHAIN),
	  .rf = F(GROUP) | F(TOTAL_TIME_ENABLED) | F(TOTAL_TIME_RUNNING) | F(ID) | F(LOST),
	  .identifier = 8, .ip = 16, .tid = 24, .time = 32, .addr = 40, .id = 48,
	  .stream_id = 56, .cpu = 64, .period = 72, .sample_id = 48, .event_id = 8,
	  .fixed_size = 80, .read_ena = 8, .read_run = 16, .read_id = 8, .read_lost = 16,
	  .read_size = 24, .read_entry = 24, .line = __LINE__ },
	/* PERF_SAMPLE_ID without IDENTIFIER (perf before 3.12); a group read without times */
	{ .st = S(IP) | S(TID) | S(TIME) | S(ID) | S(CPU) | S(PERIOD) | S(READ),
	  .rf = F(GROUP) | F(ID), .sid_all = 1, .ip = 8, .tid = 16, .time = 24, .id = 32,
	  .cpu = 40, .period = 48, .sample_id = 32, .event_id = 32, .fixed_size = 56,
	  .read_id = 8, .read_size = 8, .read_entry = 16, .trailer_size = 32, .tr_tid = 32,
	  .tr_time = 24, .tr_id = 16, .tr_cpu = 8, .tr_event_id = 16, .line = __LINE__ },
	/* a single value with times and lost, no id */
	{ .st = S(ID) | S(STREAM_ID) | S(READ), .rf = F(TOTAL_TIME_RUNNING) | F(LOST),
	  .sid_all = 1, .id = 8, .stream_id = 16, .sample_id = 8, .event_id = 8,
	  .fixed_size = 24, .read_run = 8, .read_lost = 16, .read_size = 24, .read_entry = 16,
	  .trailer_size = 16, .tr_id = 16, .tr_stream_id = 8, .tr_event_id = 16,
	  .line = __LINE__ },
	/* nothing at all */
	{ .sid_all = 1, .fixed_size = 8, .fixed_only = 1, .read_size = 8, .read_entry = 8,
	  .line = __LINE__ },
	/* a field after PERIOD only (RAW): none fixed, not fixed_only */
	{ .st = S(RAW), .fixed_size = 8, .read_size = 8, .read_entry = 8, .line = __LINE__ },
};

static void expect(unsigned got, unsigned want, const char *what, int line)
{
	if (got != want)
		fail_msg("case at line %d: %s is %u, expected %u", line, what, got, want);
}

static void sample_layout_init__hand_computed__matches(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct layout_case *c = &cases[i];
		struct mp_sample_layout L;
		memset(&L, 0xa5, sizeof(L)); /* every field must be set */
		mp_sample_layout_init(&L, c->st, c->rf, c->sid_all);
#define X(f) expect(L.f, c->f, #f, c->line)
		X(identifier); X(ip); X(tid); X(time); X(addr); X(id); X(stream_id); X(cpu);
		X(period); X(sample_id); X(event_id); X(fixed_size); X(fixed_only);
		X(read_ena); X(read_run); X(read_id); X(read_lost); X(read_size); X(read_entry);
		X(trailer_size); X(tr_tid); X(tr_time); X(tr_id); X(tr_stream_id); X(tr_cpu);
		X(tr_identifier); X(tr_event_id);
#undef X
		assert_true(L.sample_type == c->st && L.read_format == c->rf &&
			    L.sample_id_all == c->sid_all);
	}
}

/* the fixed-size fields and the trailer fields, each in the kernel's order */
static const uint64_t sample_order[] = { S(IDENTIFIER), S(IP),        S(TID),
					 S(TIME),       S(ADDR),      S(ID),
					 S(STREAM_ID),  S(CPU),       S(PERIOD) };
static const uint64_t trailer_order[] = { S(TID), S(TIME),  S(ID),
					  S(STREAM_ID), S(CPU), S(IDENTIFIER) };

/* Where layout L puts the field of bit (sample: offset from the start; trailer: back from
 * the end). */
static unsigned sample_at(const struct mp_sample_layout *L, uint64_t bit)
{
	switch (bit) {
	case S(IDENTIFIER): return L->identifier;
	case S(IP): return L->ip;
	case S(TID): return L->tid;
	case S(TIME): return L->time;
	case S(ADDR): return L->addr;
	case S(ID): return L->id;
	case S(STREAM_ID): return L->stream_id;
	case S(CPU): return L->cpu;
	default: return L->period;
	}
}

static unsigned trailer_at(const struct mp_sample_layout *L, uint64_t bit)
{
	switch (bit) {
	case S(TID): return L->tr_tid;
	case S(TIME): return L->tr_time;
	case S(ID): return L->tr_id;
	case S(STREAM_ID): return L->tr_stream_id;
	case S(CPU): return L->tr_cpu;
	default: return L->tr_identifier;
	}
}

static void sample_layout_init__every_fixed_set__finds_each_encoded_field(void **state)
{
	(void)state;
	for (uint64_t m = 0; m < 512; m++) {
		uint64_t st = 0, rec[16] = { 0 };
		size_t n = 1; /* the header */
		for (int k = 0; k < 9; k++)
			if (m & (1u << k))
				st |= sample_order[k];
		for (int k = 0; k < 9; k++)
			if (st & sample_order[k])
				rec[n++] = sample_order[k];
		/* the trailer of a non-sample record, at its end */
		uint64_t tr[8];
		size_t nt = 0;
		for (int k = 0; k < 6; k++)
			if (st & trailer_order[k])
				tr[nt++] = trailer_order[k];
		for (int sid_all = 0; sid_all < 2; sid_all++) {
			struct mp_sample_layout L;
			mp_sample_layout_init(&L, st, 0, sid_all);
			assert_int_equal(L.fixed_size, 8 * n);
			for (int k = 0; k < 9; k++) {
				unsigned o = sample_at(&L, sample_order[k]);
				if (!(st & sample_order[k])) {
					assert_int_equal(o, 0);
					continue;
				}
				assert_true(o >= 8 && o % 8 == 0 && o < 8 * n);
				assert_true(rec[o / 8] == sample_order[k]);
			}
			uint64_t want_id = (st & S(ID)) ? S(ID) : (st & S(IDENTIFIER)) ? S(IDENTIFIER) : 0;
			uint64_t want_ev = (st & S(IDENTIFIER)) ? S(IDENTIFIER) : (st & S(ID)) ? S(ID) : 0;
			assert_true(L.sample_id ? rec[L.sample_id / 8] == want_id : !want_id);
			assert_true(L.event_id ? rec[L.event_id / 8] == want_ev : !want_ev);
			assert_int_equal(L.trailer_size, sid_all ? 8 * nt : 0);
			for (int k = 0; k < 6; k++) {
				unsigned b = trailer_at(&L, trailer_order[k]);
				if (!sid_all || !(st & trailer_order[k])) {
					assert_int_equal(b, 0);
					continue;
				}
				assert_true(b >= 8 && b % 8 == 0 && b <= 8 * nt);
				assert_true(tr[nt - b / 8] == trailer_order[k]);
			}
			assert_true(L.tr_event_id ? tr[nt - L.tr_event_id / 8] == want_ev
						  : !(sid_all && want_ev));
		}
	}
}

/* The read block encoded in perf's order (perf_evsel__read_size) for every read_format:
 * the layout names each word. */
static void sample_layout_init__every_read_format__finds_each_word(void **state)
{
	(void)state;
	enum { VAL = 1, NR, ENA, RUN, ID, LOST };
	for (uint64_t rf = 0; rf < 32; rf++) {
		uint64_t b[8] = { 0 };
		size_t n = 0, e0 = 0;
		if (rf & F(GROUP)) {
			b[n++] = NR;
		} else {
			b[n++] = VAL;
		}
		if (rf & F(TOTAL_TIME_ENABLED))
			b[n++] = ENA;
		if (rf & F(TOTAL_TIME_RUNNING))
			b[n++] = RUN;
		size_t head = n;
		if (rf & F(GROUP)) {
			e0 = n; /* one entry */
			b[n++] = VAL;
		}
		if (rf & F(ID))
			b[n++] = ID;
		if (rf & F(LOST))
			b[n++] = LOST;
		struct mp_sample_layout L;
		mp_sample_layout_init(&L, S(READ), rf, 1);
		const uint64_t *ent = (rf & F(GROUP)) ? b + e0 : b;
		assert_int_equal(L.read_size, 8 * ((rf & F(GROUP)) ? head : n));
		assert_int_equal(L.read_entry, 8 * (1 + !!(rf & F(ID)) + !!(rf & F(LOST))));
		assert_true(L.read_ena ? b[L.read_ena / 8] == ENA : !(rf & F(TOTAL_TIME_ENABLED)));
		assert_true(L.read_run ? b[L.read_run / 8] == RUN : !(rf & F(TOTAL_TIME_RUNNING)));
		assert_true(L.read_id ? ent[L.read_id / 8] == ID : !(rf & F(ID)));
		assert_true(L.read_lost ? ent[L.read_lost / 8] == LOST : !(rf & F(LOST)));
		assert_true(ent[0] == VAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_layout_init__hand_computed__matches),
		cmocka_unit_test(sample_layout_init__every_fixed_set__finds_each_encoded_field),
		cmocka_unit_test(sample_layout_init__every_read_format__finds_each_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
