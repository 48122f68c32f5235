/* mp_sample_layout.c - where a sample's fields, the read block and the sample_id trailer
 * sit for a sample_type and read_format (perf's evsel__parse_sample, evsel__parse_id_sample
 * and perf_evsel__read_size). */
#include <stddef.h>
#include <string.h>

#include "mp_perfdata.h"

#define LAYOUT_AT(f) offsetof(struct mp_sample_layout, f)

/* a field of sample_type and where its offset goes in struct mp_sample_layout */
struct layout_field {
	uint64_t bit;
	size_t at;
};

/* the fixed-size fields of a sample, in record order */
static const struct layout_field sample_fields[] = {
	{ PERF_SAMPLE_IDENTIFIER, LAYOUT_AT(identifier) }, { PERF_SAMPLE_IP, LAYOUT_AT(ip) },
	{ PERF_SAMPLE_TID, LAYOUT_AT(tid) },               { PERF_SAMPLE_TIME, LAYOUT_AT(time) },
	{ PERF_SAMPLE_ADDR, LAYOUT_AT(addr) },             { PERF_SAMPLE_ID, LAYOUT_AT(id) },
	{ PERF_SAMPLE_STREAM_ID, LAYOUT_AT(stream_id) },   { PERF_SAMPLE_CPU, LAYOUT_AT(cpu) },
	{ PERF_SAMPLE_PERIOD, LAYOUT_AT(period) },
};

/* the sample_id trailer, in record order */
static const struct layout_field trailer_fields[] = {
	{ PERF_SAMPLE_TID, LAYOUT_AT(tr_tid) },
	{ PERF_SAMPLE_TIME, LAYOUT_AT(tr_time) },
	{ PERF_SAMPLE_ID, LAYOUT_AT(tr_id) },
	{ PERF_SAMPLE_STREAM_ID, LAYOUT_AT(tr_stream_id) },
	{ PERF_SAMPLE_CPU, LAYOUT_AT(tr_cpu) },
	{ PERF_SAMPLE_IDENTIFIER, LAYOUT_AT(tr_identifier) },
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

/* A present u64 field: its position *o goes to the member at byte at of *L, and *o moves
 * by step (8 from the start, -8 from the end). */
static void place(struct mp_sample_layout *L, int present, size_t at, unsigned *o, int step)
{
	if (!present)
		return;
	((uint8_t *)L)[at] = (uint8_t)*o;
	*o += (unsigned)step;
}

/* PERF_FORMAT_*: the read block and, with GROUP, its entries */
static void read_layout(struct mp_sample_layout *L, uint64_t rf)
{
	unsigned o = 8; /* the value, or GROUP's nr */
	place(L, !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED), LAYOUT_AT(read_ena), &o, 8);
	place(L, !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING), LAYOUT_AT(read_run), &o, 8);
	if (rf & PERF_FORMAT_GROUP) {
		L->read_size = o;
		o = 8; /* an entry: value, [id], [lost] */
	}
	place(L, !!(rf & PERF_FORMAT_ID), LAYOUT_AT(read_id), &o, 8);
	place(L, !!(rf & PERF_FORMAT_LOST), LAYOUT_AT(read_lost), &o, 8);
	L->read_entry = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	if (!(rf & PERF_FORMAT_GROUP))
		L->read_size = o;
}

void mp_sample_layout_init(struct mp_sample_layout *L, uint64_t sample_type,
			   uint64_t read_format, int sample_id_all)
{
	unsigned o = 8;

	memset(L, 0, sizeof(*L));
	L->sample_type = sample_type;
	L->read_format = read_format;
	L->sample_id_all = !!sample_id_all;
	for (size_t i = 0; i < NFIELDS(sample_fields); i++)
		place(L, !!(sample_type & sample_fields[i].bit), sample_fields[i].at, &o, 8);
	L->fixed_size = o;
	L->fixed_only = !(sample_type & ~(uint64_t)MP_SAMPLE_FIXED_BITS);
	/* perf reads IDENTIFIER into sample->id, then ID over it */
	L->sample_id = L->id ? L->id : L->identifier;
	L->event_id = L->identifier ? L->identifier : L->id;
	read_layout(L, read_format);
	if (!sample_id_all)
		return;
	L->trailer_size = 8 * (unsigned)__builtin_popcountll(sample_type & MP_SAMPLE_TRAILER_BITS);
	unsigned back = L->trailer_size;
	for (size_t i = 0; i < NFIELDS(trailer_fields); i++)
		place(L, !!(sample_type & trailer_fields[i].bit), trailer_fields[i].at, &back, -8);
	L->tr_event_id = L->tr_identifier ? L->tr_identifier : L->tr_id;
}
