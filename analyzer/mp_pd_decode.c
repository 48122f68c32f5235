/* mp_pd_decode.c - perf.data reader: record decoding: samples (sample_type's fields in order),
 * counts, and the kernel records' delivery to the callbacks. */
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
#include "mp_analyzer.h"
#include "mp_perfdata_internal.h"
#include <stdarg.h>
#include <stdio.h>

/* attr of a sample record; SIZE_MAX when the id is unknown */
static size_t sample_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	if (pd->nattrs == 1 || !pd->id_off)
		return 0;
	size_t o = pd->id_off;
	if (o + 8 > size)
		return SIZE_MAX;
	struct pd_sid *s = mp_pd_sid_find(pd, ld64(r + o));
	return s ? s->attr : SIZE_MAX;
}

/* attr of a non-sample record through its sample_id trailer; 0 when it cannot tell */
static size_t other_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	/* no trailer id (0) also without sample_id_all */
	if (pd->nattrs == 1 || !pd->id_back)
		return 0;
	if ((size_t)pd->id_back + 8 > size)
		return 0;
	struct pd_sid *s = mp_pd_sid_find(pd, ld64(r + size - pd->id_back));
	return s ? s->attr : 0;
}

/* Timestamp used for ordering, UINT64_MAX when the record has none. */
uint64_t mp_pd_rec_time(const mp_pd *pd, const uint8_t *r, size_t size, uint32_t type)
{
	if (type == PERF_RECORD_SAMPLE) {
		size_t ai = sample_attr(pd, r, size);
		if (ai == SIZE_MAX)
			ai = 0;
		size_t o = pd->ia[ai].lay.time;
		if (!o || o + 8 > size)
			return UINT64_MAX;
		uint64_t t = ld64(r + o);
		return t ? t : UINT64_MAX;
	}
	const struct mp_sample_layout *L = &pd->ia[other_attr(pd, r, size)].lay;
	if (!L->tr_time || L->trailer_size > size)
		return UINT64_MAX;
	uint64_t t = ld64(r + size - L->tr_time);
	return t ? t : UINT64_MAX;
}

/* sample_id trailer fields of a non-sample record */
struct pd_trail {
	uint32_t pid, tid, cpu;
	uint64_t time;
};

static size_t parse_trailer(const mp_pd *pd, const uint8_t *r, size_t size, size_t body_min,
			    struct pd_trail *t)
{
	memset(t, 0, sizeof(*t));
	const struct mp_sample_layout *L = &pd->ia[other_attr(pd, r, size)].lay;
	/* trailer_size is 0 without sample_id_all */
	if (!L->trailer_size || L->trailer_size > size || size - L->trailer_size < body_min)
		return size;
	const uint8_t *end = r + size;
	if (L->tr_tid) {
		t->pid = ld32(end - L->tr_tid);
		t->tid = ld32(end - L->tr_tid + 4);
	}
	if (L->tr_time)
		t->time = ld64(end - L->tr_time);
	if (L->tr_cpu)
		t->cpu = ld32(end - L->tr_cpu);
	return size - L->trailer_size;
}

/* NUL-terminated string at r[off..end): in place when terminated there, else a copy. */
static const char *rec_str(mp_pd *pd, const uint8_t *r, size_t off, size_t end)
{
	if (off >= end)
		return "";
	const uint8_t *z = memchr(r + off, 0, end - off);
	if (z)
		return (const char *)r + off;
	size_t n = end - off;
	if (n + 1 > pd->scratch_str_cap) {
		char *ns = realloc(pd->scratch_str, n + 1);
		if (!ns)
			return "";
		pd->scratch_str = ns;
		pd->scratch_str_cap = n + 1;
	}
	memcpy(pd->scratch_str, r + off, n);
	pd->scratch_str[n] = 0;
	return pd->scratch_str;
}

static int call_sample(struct pd_run *R, struct mp_pd_sample *s)
{
	struct mp_pd_attr *a = &R->pd->attrs[s->attr_idx];
	a->nr_samples++;
	a->total_period += s->period;
	if (R->h && R->h->sample)
		return R->h->sample(R->h->ctx, s);
	return 0;
}

/* Zero the fields a decoder may leave unset. Field by field: a memset of the whole
 * struct (rep stos) was half the cost of decoding a small sample. */
static inline void sample_clear(struct mp_pd_sample *s)
{
	s->ip = s->addr = s->time = s->id = s->stream_id = 0;
	s->pid = s->tid = s->cpu = 0;
	s->nr_callchain = 0;
	s->callchain = NULL;
	s->weight = s->data_src = 0;
	s->ins_lat = 0;
	s->transaction = s->phys_addr = s->cgroup = s->data_page_size = s->code_page_size = 0;
	s->nr_branch = 0;
	s->branch = NULL;
	s->branch_sample_type = 0;
	s->raw_size = 0;
	s->raw = NULL;
	s->user_stack_size = 0;
	s->user_stack = NULL;
	s->regs_user_abi = 0;
	s->regs_user_mask = 0;
	s->regs_user = NULL;
}

/* The fixed-size fields, IDENTIFIER to PERIOD, each at its offset, of a sample of at
 * least L->fixed_size bytes (record r, attr ai). */
static inline void sample_fixed(const mp_pd *pd, size_t ai, const struct mp_sample_layout *L,
				const uint8_t *r, struct mp_pd_sample *s)
{
	s->id = L->sample_id ? ld64(r + L->sample_id) : 0;
	s->ip = L->ip ? ld64(r + L->ip) : 0;
	s->pid = L->tid ? ld32(r + L->tid) : 0;
	s->tid = L->tid ? ld32(r + L->tid + 4) : 0;
	s->time = L->time ? ld64(r + L->time) : 0;
	s->addr = L->addr ? ld64(r + L->addr) : 0;
	s->stream_id = L->stream_id ? ld64(r + L->stream_id) : 0;
	s->cpu = L->cpu ? ld32(r + L->cpu) : 0;
	s->period = L->period ? ld64(r + L->period) : pd->attrs[ai].attr.sample_period;
}

/* A sample of fixed-size fields only (the common case), in a small function of its own
 * (deliver's frame, for every record type, is large); PD_SLOW for any other record. */
int mp_pd_sample_fast(struct pd_run *R, const uint8_t *r, size_t size)
{
	mp_pd *pd = R->pd;
	if (ld32(r) != PERF_RECORD_SAMPLE)
		return PD_SLOW;
	size_t ai = sample_attr(pd, r, size);
	if (ai == SIZE_MAX)
		return PD_SLOW;
	const struct mp_sample_layout *L = &pd->ia[ai].lay;
	if (!L->fixed_only || size < L->fixed_size)
		return PD_SLOW;
	struct mp_pd_sample s;
	sample_clear(&s);
	s.attr_idx = ai;
	s.cpumode = ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	sample_fixed(pd, ai, L, r, &s);
	return call_sample(R, &s);
}

/* The steps of deliver_sample(), each over the fields of one part of sample_type in
 * order: p is the next field, end the record's end. A step returns 0, PD_SHORT when the
 * record ends before a field, or a negative code (err filled). */
#define PD_SHORT 1

#define NEED(n)                                                   \
	do {                                                      \
		if ((size_t)(end - p) < (size_t)(n))              \
			return PD_SHORT;                          \
	} while (0)

/* PERF_SAMPLE_READ's values in a sample: nr entries of ent bytes at vals. */
struct pd_sread {
	const uint8_t *vals;
	uint64_t nr;
	size_t ent;
};

/* PERF_SAMPLE_READ (size, off: the record's, for messages). */
static int sample_read(struct pd_run *R, const struct mp_sample_layout *L, const uint8_t **pp,
		       const uint8_t *end, size_t size, uint64_t off, struct pd_sread *rd)
{
	const uint8_t *p = *pp;
	char why[160];
	rd->vals = NULL;
	rd->nr = 0;
	rd->ent = L->read_entry;
	if (L->sample_type & PERF_SAMPLE_READ) {
		NEED(L->read_size);
		if (L->read_format & PERF_FORMAT_GROUP) {
			rd->nr = ld64(p);
			p += L->read_size;
			if (rd->nr > (size_t)(end - p) / rd->ent) {
				snprintf(why, sizeof(why), "group read nr %" PRIu64 " exceeds the record size %zu", rd->nr,
					 size);
				return pd_err_rec(R->pd, R->err, off, why);
			}
			rd->vals = p;
			p += rd->nr * rd->ent;
		} else {
			/* value, [ena], [run], [id], [lost]: one entry (its id at L->read_id) */
			rd->vals = p;
			rd->nr = 1;
			p += L->read_size;
		}
	}
	*pp = p;
	return 0;
}

/* CALLCHAIN, RAW and BRANCH_STACK: pointers into the record (copies where it is not
 * 8-byte aligned). */
static int sample_chains(struct pd_run *R, size_t ai, uint64_t st, const uint8_t **pp,
			 const uint8_t *end, size_t size, uint64_t off, struct mp_pd_sample *s)
{
	mp_pd *pd = R->pd;
	const struct pd_iattr *ia = &pd->ia[ai];
	const uint8_t *p = *pp;
	char why[160];
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8);
		uint64_t nr = ld64(p);
		p += 8;
		if (nr > (size_t)(end - p) / 8) {
			snprintf(why, sizeof(why), "callchain nr %" PRIu64 " exceeds the record size %zu", nr, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s->nr_callchain = nr;
		if (((uintptr_t)p & 7) == 0) {
			s->callchain = (const uint64_t *)(const void *)p;
		} else if (nr) {
			if (nr > pd->scratch_cc_cap) {
				uint64_t *n = realloc(pd->scratch_cc, nr * 8);
				if (!n)
					return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
				pd->scratch_cc = n;
				pd->scratch_cc_cap = nr;
			}
			memcpy(pd->scratch_cc, p, nr * 8);
			s->callchain = pd->scratch_cc;
		}
		p += nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		uint32_t rs = ld32(p);
		p += 4;
		if (rs > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "raw size %u exceeds the record size %zu", rs, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s->raw_size = rs;
		s->raw = p;
		p += rs;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(8);
		uint64_t nr = ld64(p);
		p += 8;
		if (ia->branch_hw_idx) {
			NEED(8);
			p += 8;
		}
		if (nr > (size_t)(end - p) / sizeof(struct perf_branch_entry)) {
			snprintf(why, sizeof(why), "branch stack nr %" PRIu64 " exceeds the record size %zu", nr,
				 size);
			return pd_err_rec(pd, R->err, off, why);
		}
		s->nr_branch = nr;
		s->branch_sample_type = pd->attrs[ai].attr.branch_sample_type;
		if (((uintptr_t)p & 7) == 0) {
			s->branch = (const struct perf_branch_entry *)(const void *)p;
		} else if (nr) {
			if (nr > pd->scratch_br_cap) {
				struct perf_branch_entry *n = realloc(pd->scratch_br, nr * sizeof(*n));
				if (!n)
					return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
				pd->scratch_br = n;
				pd->scratch_br_cap = nr;
			}
			memcpy(pd->scratch_br, p, nr * sizeof(*pd->scratch_br));
			s->branch = pd->scratch_br;
		}
		p += nr * sizeof(struct perf_branch_entry);
	}
	*pp = p;
	return 0;
}

/* REGS_USER to AUX. */
static int sample_rest(struct pd_run *R, size_t ai, uint64_t st, const uint8_t **pp,
		       const uint8_t *end, size_t size, uint64_t off, struct mp_pd_sample *s)
{
	mp_pd *pd = R->pd;
	const struct pd_iattr *ia = &pd->ia[ai];
	const uint8_t *p = *pp;
	char why[160];
	if (st & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		uint64_t abi = ld64(p);
		p += 8;
		if (abi) {
			NEED(8 * (size_t)ia->nregs_user);
			s->regs_user_abi = abi;
			s->regs_user_mask = pd->attrs[ai].attr.sample_regs_user;
			s->regs_user = p;
			p += 8 * (size_t)ia->nregs_user;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		NEED(8);
		uint64_t sz = ld64(p);
		p += 8;
		if (sz > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "user stack size %" PRIu64 " exceeds the record size %zu", sz,
				 size);
			return pd_err_rec(pd, R->err, off, why);
		}
		const uint8_t *stk = p;
		p += sz;
		if (sz) {
			NEED(8);
			s->user_stack = stk;
			s->user_stack_size = ld64(p); /* dyn_size: bytes actually dumped */
			if (s->user_stack_size > sz)
				s->user_stack_size = sz;
			p += 8;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8);
		uint64_t w = ld64(p);
		p += 8;
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			s->weight = w & 0xffffffffu;
			s->ins_lat = (uint16_t)(w >> 32);
		} else {
			s->weight = w;
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC) {
		NEED(8);
		s->data_src = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TRANSACTION) {
		NEED(8);
		s->transaction = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		NEED(8);
		uint64_t abi = ld64(p);
		p += 8;
		if (abi) {
			NEED(8 * (size_t)ia->nregs_intr);
			p += 8 * (size_t)ia->nregs_intr;
		}
	}
	if (st & PERF_SAMPLE_PHYS_ADDR) {
		NEED(8);
		s->phys_addr = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CGROUP) {
		NEED(8);
		s->cgroup = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) {
		NEED(8);
		s->data_page_size = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) {
		NEED(8);
		s->code_page_size = ld64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_AUX) {
		NEED(8);
		uint64_t sz = ld64(p);
		p += 8;
		if (sz > (size_t)(end - p)) {
			snprintf(why, sizeof(why), "aux size %" PRIu64 " exceeds the record size %zu", sz, size);
			return pd_err_rec(pd, R->err, off, why);
		}
		p += sz;
	}
	*pp = p;
	return 0;
}
#undef NEED

/* PERF_SAMPLE_READ: one sample per value with the delta of that counter, as perf's
 * deliver_sample_value(); unknown ids and zero deltas are dropped. */
static int sample_read_deliver(struct pd_run *R, struct mp_pd_sample *s,
			       const struct mp_sample_layout *L, const struct pd_sread *rd)
{
	mp_pd *pd = R->pd;
	for (uint64_t i = 0; i < rd->nr; i++) {
		const uint8_t *v = rd->vals + i * rd->ent;
		uint64_t val = ld64(v), vid = L->read_id ? ld64(v + L->read_id) : 0;
		struct pd_sid *sid = L->read_id ? mp_pd_sid_find(pd, vid) : NULL;
		if (!sid) {
			pd->nr_unknown++;
			continue;
		}
		s->id = vid;
		s->period = val - sid->prev;
		sid->prev = val;
		s->attr_idx = sid->attr;
		if (!s->period)
			continue;
		int rc = call_sample(R, s);
		if (rc)
			return rc;
	}
	return 0;
}

static int deliver_sample(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	size_t ai = sample_attr(pd, r, size);
	char why[160];

	if (ai == SIZE_MAX) {
		pd->nr_unknown++;
		return 0;
	}
	const struct mp_sample_layout *L = &pd->ia[ai].lay;
	const uint64_t st = L->sample_type;
	const uint8_t *p, *end = r + size;
	int full = R->h && R->h->sample;
	struct mp_pd_sample s;
	struct pd_sread rd;
	int rc;

	sample_clear(&s);
	s.attr_idx = ai;
	s.cpumode = ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	if (size < L->fixed_size) {
		rc = PD_SHORT;
		goto fail;
	}
	sample_fixed(pd, ai, L, r, &s);
	p = r + L->fixed_size;
	if ((rc = sample_read(R, L, &p, end, size, off, &rd)))
		goto fail;
	if (full && (st & PD_TAIL_BITS) &&
	    ((rc = sample_chains(R, ai, st, &p, end, size, off, &s)) ||
	     (rc = sample_rest(R, ai, st, &p, end, size, off, &s))))
		goto fail;
	if (!(st & PERF_SAMPLE_READ))
		return call_sample(R, &s);
	return sample_read_deliver(R, &s, L, &rd);

fail:
	if (rc != PD_SHORT)
		return rc;
	snprintf(why, sizeof(why), "sample of %zu bytes too short for its sample_type %#" PRIx64, size, st);
	return pd_err_rec(pd, R->err, off, why);
}

/* One counter's value and times into its event's sums and into its task's counter
 * (pd_rdctr); -ENOMEM. */
static int add_count(mp_pd *pd, size_t ai, int32_t pid, int32_t tid, uint64_t val,
		     uint64_t ena, uint64_t run)
{
	struct mp_pd_attr *a = &pd->attrs[ai];
	a->has_counts = 1;
	a->count_value += val;
	a->count_ena += ena;
	a->count_run += run;
	struct pd_rdctr *c = NULL;
	if (pid != -1)
		for (size_t i = pd->nrdctr; i-- > 0 && !c;)
			if (pd->rdctr[i].attr == ai && pd->rdctr[i].pid == pid && pd->rdctr[i].tid == tid)
				c = &pd->rdctr[i];
	if (!c) {
		if (pd->nrdctr == pd->crdctr) {
			size_t nc = pd->crdctr ? 2 * pd->crdctr : 16;
			struct pd_rdctr *nv = realloc(pd->rdctr, nc * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			pd->rdctr = nv;
			pd->crdctr = nc;
		}
		c = &pd->rdctr[pd->nrdctr++];
		*c = (struct pd_rdctr){ ai, pid, tid, 0, 0 };
	}
	if (ena > c->ena)
		c->ena = ena;
	c->run += run;
	return 0;
}

/* Per event: how many counters, how many ran less than they were enabled (multiplexed)
 * and the least running share among those. */
void mp_pd_finish_counts(mp_pd *pd)
{
	for (size_t i = 0; i < pd->nrdctr; i++) {
		const struct pd_rdctr *c = &pd->rdctr[i];
		struct mp_pd_attr *a = &pd->attrs[c->attr];
		a->count_nctr++;
		if (c->run >= c->ena)
			continue;
		/* run/ena < mux_run/mux_ena, in integers */
		if (!a->count_nmux++ || (unsigned __int128)c->run * a->count_mux_ena <
						(unsigned __int128)a->count_mux_run * c->ena) {
			a->count_mux_run = c->run;
			a->count_mux_ena = c->ena;
		}
	}
}

static int deliver_read(struct pd_run *R, const uint8_t *r, size_t size)
{
	mp_pd *pd = R->pd;
	struct pd_trail t;
	size_t body = parse_trailer(pd, r, size, 16, &t);
	size_t ai0 = other_attr(pd, r, size);
	const struct mp_sample_layout *L = &pd->ia[ai0].lay;
	const uint8_t *p = r + 16, *end = r + body;

	if (body < 16)
		return 0;
	/* GROUP: nr and times, then the entries; a single value's lost count is not read */
	size_t need = L->read_size;
	if (!(L->read_format & PERF_FORMAT_GROUP) && L->read_lost)
		need = L->read_lost;
	if ((size_t)(end - p) < need)
		return 0;
	uint64_t ena = L->read_ena ? ld64(p + L->read_ena) : 0;
	uint64_t run = L->read_run ? ld64(p + L->read_run) : 0;
	if (L->read_format & PERF_FORMAT_GROUP) {
		uint64_t nr = ld64(p);
		size_t ent = L->read_entry;
		p += L->read_size;
		for (uint64_t i = 0; i < nr && (size_t)(end - p) >= ent; i++, p += ent) {
			size_t ai = ai0;
			if (L->read_id) {
				struct pd_sid *s = mp_pd_sid_find(pd, ld64(p + L->read_id));
				if (!s)
					continue;
				ai = s->attr;
			}
			if (add_count(pd, ai, (int32_t)ld32(r + 8), (int32_t)ld32(r + 12), ld64(p),
				      ena, run))
				return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		}
		return 0;
	}
	size_t ai = ai0;
	if (L->read_id) {
		struct pd_sid *s = mp_pd_sid_find(pd, ld64(p + L->read_id));
		if (s)
			ai = s->attr;
	}
	if (add_count(pd, ai, (int32_t)ld32(r + 8), (int32_t)ld32(r + 12), ld64(p), ena, run))
		return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
	return 0;
}

/* Deliver one kernel record (type < 64) to the callbacks. */
int mp_pd_deliver(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	const struct mp_pd_handler *h = R->h;
	uint32_t type = ld32(r);
	uint16_t misc = ld16(r + 4);
	struct pd_trail t;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		return deliver_sample(R, r, size, off);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		if (!h || !h->mmap)
			return 0;
		size_t fo = type == PERF_RECORD_MMAP ? 40 : 72;
		size_t body = parse_trailer(pd, r, size, fo, &t);
		if (size < fo)
			return pd_err_rec(pd, R->err, off, "mmap record too short");
		struct mp_pd_mmap m;
		memset(&m, 0, sizeof(m));
		m.pid = ld32(r + 8);
		m.tid = ld32(r + 12);
		m.start = ld64(r + 16);
		m.len = ld64(r + 24);
		m.pgoff = ld64(r + 32);
		m.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t l = r[40];
				m.has_build_id = 1;
				m.build_id_len = l <= 20 ? l : 20;
				memcpy(m.build_id, r + 44, 20);
			}
			m.prot = ld32(r + 64);
			m.flags = ld32(r + 68);
		}
		m.filename = rec_str(pd, r, fo, body);
		return h->mmap(h->ctx, &m);
	}
	case PERF_RECORD_COMM: {
		if (!h || !h->comm)
			return 0;
		if (size < 16)
			return pd_err_rec(pd, R->err, off, "comm record too short");
		size_t body = parse_trailer(pd, r, size, 16, &t);
		struct mp_pd_task k;
		memset(&k, 0, sizeof(k));
		k.pid = ld32(r + 8);
		k.tid = ld32(r + 12);
		k.ppid = k.pid;
		k.ptid = k.tid;
		k.comm = rec_str(pd, r, 16, body);
		k.exec = !!(misc & PERF_RECORD_MISC_COMM_EXEC);
		k.time = t.time;
		return h->comm(h->ctx, &k);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		int (*cb)(void *, const struct mp_pd_task *) = !h ? NULL : type == PERF_RECORD_FORK ? h->fork : h->exit;
		if (!cb)
			return 0;
		if (size < 32)
			return pd_err_rec(pd, R->err, off, "fork/exit record too short");
		struct mp_pd_task k;
		memset(&k, 0, sizeof(k));
		k.pid = ld32(r + 8);
		k.ppid = ld32(r + 12);
		k.tid = ld32(r + 16);
		k.ptid = ld32(r + 20);
		k.time = ld64(r + 24);
		return cb(h->ctx, &k);
	}
	case PERF_RECORD_LOST: {
		if (size < 24)
			return pd_err_rec(pd, R->err, off, "lost record too short");
		struct pd_sid *s = mp_pd_sid_find(pd, ld64(r + 8));
		size_t ai = s ? s->attr : other_attr(pd, r, size);
		uint64_t n = ld64(r + 16);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		if (size < 16)
			return pd_err_rec(pd, R->err, off, "lost-samples record too short");
		size_t ai = other_attr(pd, r, size);
		uint64_t n = ld64(r + 8);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_READ:
		return deliver_read(R, r, size);
	default:
		return 0;
	}
}
