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
#include "mp_perfdata.h"
#include "mp_pd_int.h"
#include <stdarg.h>
#include <stdio.h>

/* attr of a non-sample record through its sample_id trailer; 0 when it cannot tell.
 * Out of line: inlined, it made mp_pd_rec_time's sample path longer. */
__attribute__((noinline)) static size_t other_attr(const mp_pd *pd, const uint8_t *r, size_t size)
{
	/* no trailer id (0) also without sample_id_all */
	if (pd->nattrs == 1 || !pd->id_back)
		return 0;
	if ((size_t)pd->id_back + 8 > size)
		return 0;
	struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(r + size - pd->id_back));
	return s ? s->attr : 0;
}

/* Timestamp used for ordering, UINT64_MAX when the record has none. */
uint64_t mp_pd_rec_time(const mp_pd *pd, const uint8_t *r, size_t size, uint32_t type)
{
	if (type == PERF_RECORD_SAMPLE) {
		size_t ai = mp_pd_sample_attr(pd, r, size);
		if (ai == SIZE_MAX)
			ai = 0;
		size_t o = pd->ia[ai].lay.time;
		if (!o || o + 8 > size)
			return UINT64_MAX;
		uint64_t t = mp_ld64(r + o);
		return t ? t : UINT64_MAX;
	}
	const struct mp_sample_layout *L = &pd->ia[other_attr(pd, r, size)].lay;
	if (!L->tr_time || L->trailer_size > size)
		return UINT64_MAX;
	uint64_t t = mp_ld64(r + size - L->tr_time);
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
		t->pid = mp_ld32(end - L->tr_tid);
		t->tid = mp_ld32(end - L->tr_tid + 4);
	}
	if (L->tr_time)
		t->time = mp_ld64(end - L->tr_time);
	if (L->tr_cpu)
		t->cpu = mp_ld32(end - L->tr_cpu);
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
	if (MP_GROW(pd->scratch_str, pd->scratch_str_cap, n + 1))
		return "";
	memcpy(pd->scratch_str, r + off, n);
	pd->scratch_str[n] = 0;
	return pd->scratch_str;
}

/* Zero the fields a decoder may leave unset (sample_fixed sets the fixed ones, each).
 * Field by field: a memset of the whole struct (rep stos) was half the cost of decoding
 * a small sample. */
static inline void sample_clear(struct mp_pd_sample *s)
{
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

/* The steps of deliver_sample(), each over the fields of one part of sample_type in
 * order, with a cursor on the record. A step returns 0, PD_SHORT when the record ends
 * before a field, or a negative code (err filled). */
#define PD_SHORT 1

/* The cursor is passed only to inline functions: once its address reaches a function out
 * of line, it lives in memory for the whole sample (1% more instructions in a report of
 * call chains). */
struct pd_cur {
	struct pd_run *R;
	size_t ai;                  /* the sample's attr */
	uint64_t st;                /* its sample_type */
	const uint8_t *p, *end;     /* the next field, the record's end */
	size_t size;                /* the record's size and offset, for messages */
	uint64_t off;
};

#define NEED(n)                                                   \
	do {                                                      \
		if ((size_t)(c->end - c->p) < (size_t)(n))        \
			return PD_SHORT;                          \
	} while (0)
/* the next u64 field into dst */
#define TAKE64(dst)                                               \
	do {                                                      \
		NEED(8);                                          \
		(dst) = mp_ld64(c->p);                               \
		c->p += 8;                                        \
	} while (0)

/* The error of a count or size n (what) that does not fit in the record (size bytes at
 * offset off). Given values, not the cursor: its address taken, the cursor would live in
 * memory for the whole sample. */
static int pd_too_big(struct pd_run *R, size_t size, uint64_t off, const char *what, uint64_t n)
{
	char why[160];
	snprintf(why, sizeof(why), "%s %" PRIu64 " exceeds the record size %zu", what, n, size);
	return pd_err_rec(R->pd, R->err, off, why);
}
/* n items of unit bytes fit in the rest of the record, else that error */
#define FITS(n, unit, what)                                       \
	do {                                                      \
		if ((n) > (size_t)(c->end - c->p) / (unit))       \
			return pd_too_big(c->R, c->size, c->off, what, n); \
	} while (0)

/* A copy of nr items of elem bytes at p in the scratch buffer *buf (grown to *cap items
 * and kept); NULL when out of memory. */
static void *pd_copy(const uint8_t *p, uint64_t nr, size_t elem, void **buf, size_t *cap)
{
	if (nr > SIZE_MAX || mp_grow(buf, cap, (size_t)nr, elem))
		return NULL;
	return memcpy(*buf, p, nr * elem);
}

/* nr items of elem bytes at the cursor (fits checked): *out points into the record when
 * it is 8-byte aligned, else to a copy (pd_copy); *out stays as it is for no items out of
 * place. */
static inline int pd_array(struct pd_cur *c, uint64_t nr, size_t elem, void **buf,
			   size_t *cap, const void **out)
{
	if (((uintptr_t)c->p & 7) == 0)
		*out = c->p;
	else if (nr && !(*out = pd_copy(c->p, nr, elem, buf, cap)))
		return PD_ERR(c->R->pd, c->R->err, -ENOMEM, "out of memory");
	c->p += nr * elem;
	return 0;
}

/* PERF_SAMPLE_READ's values in a sample: nr entries of ent bytes at vals. */
struct pd_sread {
	const uint8_t *vals;
	uint64_t nr;
	size_t ent;
};

/* PERF_SAMPLE_READ. */
static int sample_read(struct pd_cur *c, const struct mp_sample_layout *L, struct pd_sread *rd)
{
	rd->vals = NULL;
	rd->nr = 0;
	rd->ent = L->read_entry;
	if (!(c->st & PERF_SAMPLE_READ))
		return 0;
	NEED(L->read_size);
	if (L->read_format & PERF_FORMAT_GROUP) {
		rd->nr = mp_ld64(c->p);
		c->p += L->read_size;
		FITS(rd->nr, rd->ent, "group read nr");
		rd->vals = c->p;
		c->p += rd->nr * rd->ent;
	} else {
		/* value, [ena], [run], [id], [lost]: one entry (its id at L->read_id) */
		rd->vals = c->p;
		rd->nr = 1;
		c->p += L->read_size;
	}
	return 0;
}

/* CALLCHAIN, RAW and BRANCH_STACK: pointers into the record (copies where it is not
 * 8-byte aligned). */
static int sample_chains(struct pd_cur *c, struct mp_pd_sample *s)
{
	mp_pd *pd = c->R->pd;
	uint64_t nr;
	int rc;
	if (c->st & PERF_SAMPLE_CALLCHAIN) {
		TAKE64(nr);
		FITS(nr, 8, "callchain nr");
		const void *cc = s->callchain;
		if ((rc = pd_array(c, nr, 8, &pd->scratch_cc, &pd->scratch_cc_cap, &cc)))
			return rc;
		s->nr_callchain = nr;
		s->callchain = cc;
	}
	if (c->st & PERF_SAMPLE_RAW) {
		NEED(4);
		uint32_t rs = mp_ld32(c->p);
		c->p += 4;
		FITS(rs, 1, "raw size");
		s->raw_size = rs;
		s->raw = c->p;
		c->p += rs;
	}
	if (c->st & PERF_SAMPLE_BRANCH_STACK) {
		TAKE64(nr);
		if (pd->ia[c->ai].branch_hw_idx) {
			NEED(8);
			c->p += 8;
		}
		FITS(nr, sizeof(struct perf_branch_entry), "branch stack nr");
		const void *br = s->branch;
		if ((rc = pd_array(c, nr, sizeof(struct perf_branch_entry), &pd->scratch_br,
				   &pd->scratch_br_cap, &br)))
			return rc;
		s->nr_branch = nr;
		s->branch_sample_type = pd->attrs[c->ai].attr.branch_sample_type;
		s->branch = br;
	}
	return 0;
}

/* REGS_USER or REGS_INTR: the abi, then nregs registers when it is not 0 (*regs: where
 * they start). */
static inline int sample_regs(struct pd_cur *c, unsigned nregs, uint64_t *abi, const uint8_t **regs)
{
	TAKE64(*abi);
	if (*abi) {
		NEED(8 * (size_t)nregs);
		*regs = c->p;
		c->p += 8 * (size_t)nregs;
	}
	return 0;
}

/* STACK_USER and AUX: a size, then that many bytes (*data: where they start). */
static inline int sample_sized(struct pd_cur *c, const char *what, uint64_t *sz, const uint8_t **data)
{
	TAKE64(*sz);
	FITS(*sz, 1, what);
	*data = c->p;
	c->p += *sz;
	return 0;
}

/* REGS_USER to AUX. */
static int sample_rest(struct pd_cur *c, struct mp_pd_sample *s)
{
	const struct pd_iattr *ia = &c->R->pd->ia[c->ai];
	const uint64_t st = c->st;
	const uint8_t *at;
	uint64_t v;
	int rc;
	if (st & PERF_SAMPLE_REGS_USER) {
		if ((rc = sample_regs(c, ia->nregs_user, &v, &at)))
			return rc;
		if (v) {
			s->regs_user_abi = v;
			s->regs_user_mask = c->R->pd->attrs[c->ai].attr.sample_regs_user;
			s->regs_user = at;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		if ((rc = sample_sized(c, "user stack size", &v, &at)))
			return rc;
		if (v) {
			s->user_stack = at;
			TAKE64(s->user_stack_size); /* dyn_size: bytes actually dumped */
			if (s->user_stack_size > v)
				s->user_stack_size = v;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		TAKE64(v);
		if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
			s->weight = v & 0xffffffffu;
			s->ins_lat = (uint16_t)(v >> 32);
		} else {
			s->weight = v;
		}
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		TAKE64(s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		TAKE64(s->transaction);
	if ((st & PERF_SAMPLE_REGS_INTR) && (rc = sample_regs(c, ia->nregs_intr, &v, &at)))
		return rc;
	if (st & PERF_SAMPLE_PHYS_ADDR)
		TAKE64(s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		TAKE64(s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		TAKE64(s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		TAKE64(s->code_page_size);
	if ((st & PERF_SAMPLE_AUX) && (rc = sample_sized(c, "aux size", &v, &at)))
		return rc;
	return 0;
}
#undef FITS
#undef TAKE64
#undef NEED

/* PERF_SAMPLE_READ: one sample per value with the delta of that counter, as perf's
 * deliver_sample_value(); unknown ids and zero deltas are dropped. */
static int sample_read_deliver(struct pd_run *R, struct mp_pd_sample *s,
			       const struct mp_sample_layout *L, const struct pd_sread *rd)
{
	mp_pd *pd = R->pd;
	for (uint64_t i = 0; i < rd->nr; i++) {
		const uint8_t *v = rd->vals + i * rd->ent;
		uint64_t val = mp_ld64(v), vid = L->read_id ? mp_ld64(v + L->read_id) : 0;
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
		int rc = mp_pd_call_sample(R, s);
		if (rc)
			return rc;
	}
	return 0;
}

static int deliver_sample(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	size_t ai = mp_pd_sample_attr(pd, r, size);
	char why[160];

	if (ai == SIZE_MAX) {
		pd->nr_unknown++;
		return 0;
	}
	const struct mp_sample_layout *L = &pd->ia[ai].lay;
	struct pd_cur c = { R, ai, L->sample_type, NULL, r + size, size, off };
	int full = R->h && R->h->sample;
	struct mp_pd_sample s;
	struct pd_sread rd;
	int rc;

	sample_clear(&s);
	s.attr_idx = ai;
	s.cpumode = mp_ld16(r + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
	if (size < L->fixed_size) {
		rc = PD_SHORT;
		goto fail;
	}
	mp_pd_sample_fixed(pd, ai, L, r, &s);
	c.p = r + L->fixed_size;
	if ((rc = sample_read(&c, L, &rd)))
		goto fail;
	if (full && (c.st & PD_TAIL_BITS) &&
	    ((rc = sample_chains(&c, &s)) || (rc = sample_rest(&c, &s))))
		goto fail;
	if (!(c.st & PERF_SAMPLE_READ))
		return mp_pd_call_sample(R, &s);
	return sample_read_deliver(R, &s, L, &rd);

fail:
	if (rc != PD_SHORT)
		return rc;
	snprintf(why, sizeof(why), "sample of %zu bytes too short for its sample_type %#" PRIx64, size, c.st);
	return pd_err_rec(pd, R->err, off, why);
}

/* One counter's value and times into its event's sums and into its task's counter
 * (pd_rdctr); -ENOMEM. */
static int add_count(mp_pd *pd, size_t ai, int32_t pid, int32_t tid, const struct mp_counts *v)
{
	struct mp_pd_attr *a = &pd->attrs[ai];
	a->has_counts = 1;
	mp_counts_add(&a->count, v);
	struct pd_rdctr *c = NULL;
	if (pid != -1)
		for (size_t i = pd->nrdctr; i-- > 0 && !c;)
			if (pd->rdctr[i].attr == ai && pd->rdctr[i].pid == pid && pd->rdctr[i].tid == tid)
				c = &pd->rdctr[i];
	if (!c) {
		if (MP_GROW(pd->rdctr, pd->crdctr, pd->nrdctr + 1))
			return -ENOMEM;
		c = &pd->rdctr[pd->nrdctr++];
		*c = (struct pd_rdctr){ ai, pid, tid, { 0, 0, 0 } };
	}
	c->c.val += v->val;
	if (v->ena > c->c.ena)
		c->c.ena = v->ena;
	c->c.run += v->run;
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
		if (c->c.run >= c->c.ena)
			continue;
		/* run/ena < mux_run/mux_ena, in integers */
		if (!a->count_nmux++ || (unsigned __int128)c->c.run * a->count_mux_ena <
						(unsigned __int128)a->count_mux_run * c->c.ena) {
			a->count_mux_run = c->c.run;
			a->count_mux_ena = c->c.ena;
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
	/* the times, for every value of the record */
	struct mp_counts v = { 0, L->read_ena ? mp_ld64(p + L->read_ena) : 0,
			       L->read_run ? mp_ld64(p + L->read_run) : 0 };
	if (L->read_format & PERF_FORMAT_GROUP) {
		uint64_t nr = mp_ld64(p);
		size_t ent = L->read_entry;
		p += L->read_size;
		for (uint64_t i = 0; i < nr && (size_t)(end - p) >= ent; i++, p += ent) {
			size_t ai = ai0;
			if (L->read_id) {
				struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(p + L->read_id));
				if (!s)
					continue;
				ai = s->attr;
			}
			v.val = mp_ld64(p);
			if (add_count(pd, ai, (int32_t)mp_ld32(r + 8), (int32_t)mp_ld32(r + 12), &v))
				return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
		}
		return 0;
	}
	size_t ai = ai0;
	if (L->read_id) {
		struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(p + L->read_id));
		if (s)
			ai = s->attr;
	}
	v.val = mp_ld64(p);
	if (add_count(pd, ai, (int32_t)mp_ld32(r + 8), (int32_t)mp_ld32(r + 12), &v))
		return PD_ERR(pd, R->err, -ENOMEM, "out of memory");
	return 0;
}

/* Deliver one kernel record (type < 64) to the callbacks. */
int mp_pd_deliver(struct pd_run *R, const uint8_t *r, size_t size, uint64_t off)
{
	mp_pd *pd = R->pd;
	const struct mp_pd_handler *h = R->h;
	uint32_t type = mp_ld32(r);
	uint16_t misc = mp_ld16(r + 4);
	struct pd_trail t;

	R->rk.state = RK_NONE; /* a record other than the flush's fast samples: no repeat after it */
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
		struct mp_pd_mmap m = { .pid = mp_ld32(r + 8), .tid = mp_ld32(r + 12), .start = mp_ld64(r + 16),
					.len = mp_ld64(r + 24), .pgoff = mp_ld64(r + 32),
					.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK };
		if (type == PERF_RECORD_MMAP2) {
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t l = r[40];
				m.has_build_id = 1;
				m.build_id_len = l <= 20 ? l : 20;
				memcpy(m.build_id, r + 44, 20);
			}
			m.prot = mp_ld32(r + 64);
			m.flags = mp_ld32(r + 68);
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
		uint32_t pid = mp_ld32(r + 8), tid = mp_ld32(r + 12);
		struct mp_pd_task k = { .pid = pid, .tid = tid, .ppid = pid, .ptid = tid,
					.comm = rec_str(pd, r, 16, body),
					.exec = !!(misc & PERF_RECORD_MISC_COMM_EXEC), .time = t.time };
		return h->comm(h->ctx, &k);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		int (*cb)(void *, const struct mp_pd_task *) = !h ? NULL : type == PERF_RECORD_FORK ? h->fork : h->exit;
		if (!cb)
			return 0;
		if (size < 32)
			return pd_err_rec(pd, R->err, off, "fork/exit record too short");
		struct mp_pd_task k = { .pid = mp_ld32(r + 8), .ppid = mp_ld32(r + 12), .tid = mp_ld32(r + 16),
					.ptid = mp_ld32(r + 20), .time = mp_ld64(r + 24) };
		return cb(h->ctx, &k);
	}
	case PERF_RECORD_LOST: {
		if (size < 24)
			return pd_err_rec(pd, R->err, off, "lost record too short");
		struct pd_sid *s = mp_pd_sid_find(pd, mp_ld64(r + 8));
		size_t ai = s ? s->attr : other_attr(pd, r, size);
		uint64_t n = mp_ld64(r + 16);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_LOST_SAMPLES: {
		if (size < 16)
			return pd_err_rec(pd, R->err, off, "lost-samples record too short");
		size_t ai = other_attr(pd, r, size);
		uint64_t n = mp_ld64(r + 8);
		pd->attrs[ai].lost += n;
		if (h && h->lost)
			return h->lost(h->ctx, ai, n);
		return 0;
	}
	case PERF_RECORD_READ:
		return deliver_read(R, r, size);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		if (!h || !h->task_switch)
			return 0;
		size_t fixed = type == PERF_RECORD_SWITCH ? 8 : 16;
		if (size < fixed)
			return pd_err_rec(pd, R->err, off, "switch record too short");
		parse_trailer(pd, r, size, fixed, &t);
		struct mp_pd_switch w = { .pid = t.pid, .tid = t.tid, .cpu = t.cpu, .time = t.time,
					  .out = !!(misc & PERF_RECORD_MISC_SWITCH_OUT),
					  .preempt = !!(misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT),
					  .cpu_wide = type == PERF_RECORD_SWITCH_CPU_WIDE };
		if (w.cpu_wide) {
			w.other_pid = mp_ld32(r + 8);
			w.other_tid = mp_ld32(r + 12);
		}
		return h->task_switch(h->ctx, &w);
	}
	default:
		return 0;
	}
}

/* ---- the queue's delivery ---------------------------------------------------------- */

/* Give the repeats counted in the flush to the handler (once it took one, it takes all). */
int mp_pd_deliver_done(void *ctx)
{
	struct pd_run *R = ctx;
	if (!R->rk.nrep)
		return 0;
	struct mp_pd_attr *a = &R->pd->attrs[R->rk.attr];
	a->nr_samples += R->rk.nrep;
	a->total_period += R->rk.prep;
	int rc = R->h->sample_again(R->h->ctx, R->rk.attr, R->rk.nrep, R->rk.prep);
	R->rk.nrep = R->rk.prep = 0;
	return rc > 0 ? 0 : rc;
}

int mp_pd_deliver_queued(void *ctx, const uint8_t *rec, size_t size, uint64_t off)
{
	return pd_run_deliver(ctx, rec, size, off);
}
