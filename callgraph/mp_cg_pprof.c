/* mp_cg_pprof.c - the call graph as pprof's profile.proto (gzipped), encoded by hand:
 * varints and length-delimited fields, messages built inside out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mp_cg_int.h"

struct pb {
	uint8_t *p;
	size_t n, cap;
	int err;
};

static void pb_raw(struct pb *b, const void *d, size_t len)
{
	if (b->err)
		return;
	if (mp_grow((void **)&b->p, &b->cap, b->n + len, 1)) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(b->p + b->n, d, len);
	b->n += len;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t k = 0;
	do {
		tmp[k] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[k] |= 0x80;
		k++;
	} while (v);
	pb_raw(b, tmp, k);
}

/* wire types: 0 varint, 2 length-delimited */
static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3 | 0);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *d, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, len);
	pb_raw(b, d, len);
}

static void pb_msg(struct pb *b, unsigned field, struct pb *m)
{
	if (m->err)
		b->err = m->err;
	pb_bytes(b, field, m->p, m->n);
	m->n = 0;
}

/* the string table */
struct strtab {
	char **s;
	size_t n, cap;
	struct mp_u64map idx;
};

static int64_t str_id(struct strtab *t, const char *s, int *err)
{
	if (!s)
		s = "";
	uint64_t h = mp_strhash(s);
	uint32_t *slot;
	for (size_t probe = 0;; probe++) {
		int found;
		slot = cg_map_slot(&t->idx, h + probe * 0x9e3779b97f4a7c15ULL, &found);
		if (!slot) {
			*err = -ENOMEM;
			return 0;
		}
		if (!found)
			break;
		if (!strcmp(t->s[*slot], s))
			return *slot;
	}
	char *d = strdup(s);
	if (!d || mp_grow((void **)&t->s, &t->cap, t->n + 1, sizeof(*t->s))) {
		free(d);
		mp_u64map_unslot(&t->idx, slot);
		*err = -ENOMEM;
		return 0;
	}
	t->s[t->n] = d;
	*slot = (uint32_t)t->n;
	return (int64_t)t->n++;
}

static void value_type(struct pb *b, unsigned field, struct pb *m, struct strtab *st,
		       const char *type, const char *unit, int *err)
{
	pb_uint(m, 1, (uint64_t)str_id(st, type, err));
	pb_uint(m, 2, (uint64_t)str_id(st, unit, err));
	pb_msg(b, field, m);
}

/* An event's name as a pprof sample type: letters, digits, '_' and '.' */
static void type_name(const char *name, const char *suffix, char *buf, size_t n)
{
	size_t k = 0;
	for (const char *c = name ? name : "event"; *c && k + 1 < n; c++)
		buf[k++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
				   (*c >= '0' && *c <= '9') || *c == '.' ? *c : '_';
	buf[k] = 0;
	snprintf(buf + k, n - k, "%s", suffix);
}

/* The profile being encoded: the message, two scratch messages for the nested ones, the
 * string table, the first error (-ENOMEM). */
struct pp {
	struct pb b, m, m2;
	struct strtab st;
	int e;
};

/* The memory sample types (mp_cg_opts.want_mem), in CG_MEM_* order. */
static const char *const mem_types[CG_MEM_NV][2] = {
	[CG_MEM_LATENCY] = { "mem_latency", "cycles" }, [CG_MEM_L1] = { "mem_l1_hit", "count" },
	[CG_MEM_LFB] = { "mem_lfb_hit", "count" },      [CG_MEM_L2] = { "mem_l2_hit", "count" },
	[CG_MEM_L3] = { "mem_l3_hit", "count" },        [CG_MEM_DRAM] = { "mem_dram_hit", "count" },
	[CG_MEM_OTHER] = { "mem_other", "count" },      [CG_MEM_L1_MISS] = { "mem_l1_miss", "count" },
	[CG_MEM_LLC_MISS] = { "mem_llc_miss", "count" },
};

static void pp_label(struct pp *pp, const char *key, const char *value)
{
	pb_uint(&pp->m2, 1, (uint64_t)str_id(&pp->st, key, &pp->e));
	pb_uint(&pp->m2, 2, (uint64_t)str_id(&pp->st, value, &pp->e));
	pb_msg(&pp->m, 3, &pp->m2);
}

/* One sample: the stack of node (packed location ids, leaf first), the values (per event
 * its samples and count from c[stride], then the memory ones when mem), the comm and the
 * data labels (label ids + 1, 0: none). */
static void pp_sample(struct pp *pp, const mp_cg *cg, uint32_t node,
		      const struct mp_cg_pprof_event *ev, size_t nev,
		      const struct mp_hist_counts *c, const uint64_t *mem, uint32_t sym_lbl,
		      uint32_t obj_lbl)
{
	struct pb *m = &pp->m, *m2 = &pp->m2;
	for (uint32_t p = node; p != UINT32_MAX; p = cg->nodes[p].parent)
		if (!cg->nodes[p].self_only)
			pb_varint(m2, (uint64_t)cg->nodes[p].frame + 1);
	pb_msg(m, 1, m2); /* packed location_id */
	for (size_t j = 0; j < nev; j++) {
		struct mp_hist_counts v = ev[j].attr < cg->stride ? c[ev[j].attr]
								  : (struct mp_hist_counts){ 0, 0 };
		pb_varint(m2, v.samples);
		pb_varint(m2, v.period);
	}
	for (size_t k = 0; mem && k < CG_MEM_NV; k++)
		pb_varint(m2, mem[k]);
	pb_msg(m, 2, m2); /* packed value */
	if (cg->o.want_comm)
		pp_label(pp, "comm", mp_cg_comm_name(cg, cg->nodes[node].comm));
	if (sym_lbl)
		pp_label(pp, "data_symbol", cg->lbl[sym_lbl - 1]);
	if (obj_lbl)
		pp_label(pp, "data_object", cg->lbl[obj_lbl - 1]);
	pb_msg(&pp->b, 2, m);
}

/* sample_type per event (its samples, its estimated count), then the samples: every
 * distinct address stack, leaf first; with the memory side (samples with weights, data
 * sources or addresses, want_mem), the memory sample types after them and a sample per
 * address stack, event and data place. */
static void pp_samples(struct pp *pp, const mp_cg *cg, const struct mp_cg_pprof_event *ev,
		       size_t nev)
{
	struct pb *b = &pp->b, *m = &pp->m;
	char tn[256];
	int mem = cg->o.want_mem && cg->mem_any;
	for (size_t j = 0; j < nev; j++) {
		type_name(ev[j].name, "_samples", tn, sizeof(tn));
		value_type(b, 1, m, &pp->st, tn, "count", &pp->e);
		type_name(ev[j].name, "", tn, sizeof(tn));
		value_type(b, 1, m, &pp->st, tn, "events", &pp->e);
	}
	for (size_t k = 0; mem && k < CG_MEM_NV; k++)
		value_type(b, 1, m, &pp->st, mem_types[k][0], mem_types[k][1], &pp->e);
	struct mp_hist_counts *c = mem ? calloc(cg->stride + 1, sizeof(*c)) : NULL;
	if (mem && !c)
		pp->e = -ENOMEM;
	for (size_t i = 0; mem && c && i < cg->nmem && !pp->e; i++) {
		const struct cg_mem *e = &cg->mem[i];
		memset(c, 0, (cg->stride + 1) * sizeof(*c));
		if (e->attr < cg->stride)
			c[e->attr] = (struct mp_hist_counts){ e->samples, e->period };
		pp_sample(pp, cg, e->node, ev, nev, c, e->v, e->sym_lbl, e->obj_lbl);
	}
	free(c);
	for (size_t i = 0; !mem && i < cg->nnodes && !pp->e; i++) {
		const struct mp_hist_counts *nc = cg->cnt + i * cg->stride;
		int any = 0;
		for (size_t j = 0; j < nev; j++)
			any |= ev[j].attr < cg->stride && nc[ev[j].attr].samples;
		if (any)
			pp_sample(pp, cg, (uint32_t)i, ev, nev, nc, NULL, 0, 0);
	}
}

/* mappings: one per object with samples, user objects first (pprof takes the first
 * mapping for the main program). */
static void pp_mappings(struct pp *pp, const mp_cg *cg, mp_sym *sym, size_t ndso)
{
	struct pb *b = &pp->b, *m = &pp->m;
	unsigned char *used = calloc(ndso + 1, 1);
	if (!used)
		pp->e = -ENOMEM;
	for (size_t i = 0; used && i < cg->nframes; i++)
		if (cg->frames[i].loc.dso_idx < ndso)
			used[cg->frames[i].loc.dso_idx] = 1;
	for (size_t k = 0; used && k < 2 * ndso && !pp->e; k++) {
		size_t d = k % ndso;
		const struct mp_sym_dso_info *di = mp_sym_dso(sym, d, 0);
		int kern = di && (di->flags & MP_DSO_KERNEL);
		if (!used[d] || kern != (k >= ndso))
			continue;
		char bid[41] = "";
		for (size_t q = 0; di && q < di->build_id_len && q < 20; q++)
			snprintf(bid + 2 * q, 3, "%02x", di->build_id[q]);
		pb_uint(m, 1, d + 1);
		pb_uint(m, 5, (uint64_t)str_id(&pp->st, di && di->path ? di->path : "", &pp->e));
		pb_uint(m, 6, (uint64_t)str_id(&pp->st, bid, &pp->e));
		pb_uint(m, 7, 1);                                  /* has_functions */
		pb_uint(m, 8, 1);                                  /* has_filenames */
		pb_uint(m, 9, 1);                                  /* has_line_numbers */
		pb_uint(m, 10, 1);                                 /* has_inline_frames */
		pb_msg(b, 3, m);
	}
	free(used);
}

/* locations: one per distinct address, lines innermost (inlined) first; then the
 * functions. */
static void pp_locations(struct pp *pp, const mp_cg *cg, size_t ndso)
{
	struct pb *b = &pp->b, *m = &pp->m, *m2 = &pp->m2;
	for (size_t i = 0; i < cg->nframes && !pp->e; i++) {
		const struct cg_frame *fr = &cg->frames[i];
		pb_uint(m, 1, i + 1);
		if (fr->loc.dso_idx < ndso)
			pb_uint(m, 2, (uint64_t)fr->loc.dso_idx + 1);
		pb_uint(m, 3, fr->ip);
		/* pprof's order: the innermost inlined function first, each at its own line
		 * (the next one's call site), the symbol last at the outermost call's site */
		for (uint32_t k = fr->ninl; k-- > (uint32_t)fr->renamed;) {
			const struct cg_inl *x = &cg->inl[fr->inl + k];
			pb_uint(m2, 1, (uint64_t)x->fn + 1);
			pb_uint(m2, 2, x->line);
			pb_msg(m, 4, m2);
		}
		pb_uint(m2, 1, (uint64_t)fr->fn + 1);
		pb_uint(m2, 2, fr->fn_line);
		pb_msg(m, 4, m2);
		pb_msg(b, 4, m);
	}
	for (size_t i = 0; i < cg->nfns && !pp->e; i++) {
		const struct mp_cg_frame *f = &cg->fns[i];
		char ab[64];
		const char *nm = f->sym;
		if (!f->sym_resolved) {
			snprintf(ab, sizeof(ab), "0x%llx", (unsigned long long)f->ip);
			nm = ab;
		}
		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, (uint64_t)str_id(&pp->st, nm, &pp->e));
		pb_uint(m, 3, (uint64_t)str_id(&pp->st, nm, &pp->e));
		pb_uint(m, 4, (uint64_t)str_id(&pp->st, f->srcfile, &pp->e));
		pb_msg(b, 5, m);
	}
}

/* The encoded profile gzipped to path, through mp_out (a temporary file renamed into
 * place; path untouched on failure). 0, or a negative errno with err set. */
static int pp_write_gz(const struct pb *b, const char *path, const char *input,
		       struct mp_err *err)
{
	struct mp_out o;
	int rc = mp_out_open(&o, path, input, err);
	if (rc)
		return rc;
	int fd = dup(fileno(o.f));
	gzFile gz = fd >= 0 ? gzdopen(fd, "wb") : NULL;
	if (!gz) {
		if (fd >= 0)
			close(fd);
		mp_out_abort(&o);
		return mp_err_set(err, -ENOMEM, "%s: out of memory", path);
	}
	int w = b->n ? gzwrite(gz, b->p, (unsigned)b->n) : 0;
	int c = gzclose(gz);
	if ((b->n && w != (int)b->n) || c != Z_OK) {
		int e = errno ? errno : EIO;
		mp_out_abort(&o);
		return mp_err_set(err, -e, "%s: %s", path, strerror(e));
	}
	return mp_out_commit(&o, err);
}

int mp_cg_pprof_write(mp_cg *cg, mp_sym *sym, const struct mp_cg_pprof_event *ev, size_t nev,
		      const char *comment, const char *path, const char *input,
		      struct mp_err *err)
{
	int rc = mp_cg_resolve(cg, sym, 2);
	if (rc)
		return mp_err_set(err, rc, "%s: out of memory", path);
	struct pp pp = { 0 };
	struct pb *b = &pp.b;
	str_id(&pp.st, "", &pp.e); /* string_table[0] must be "" */
	pp_samples(&pp, cg, ev, nev);
	size_t ndso = mp_sym_ndsos(sym);
	pp_mappings(&pp, cg, sym, ndso);
	pp_locations(&pp, cg, ndso);
	/* the rest refer to strings: added before the table is written */
	int64_t cm = comment ? str_id(&pp.st, comment, &pp.e) : 0;
	if (nev) {
		char tn[256];
		type_name(ev[0].name, "", tn, sizeof(tn));
		value_type(b, 11, &pp.m, &pp.st, tn, "events", &pp.e); /* period_type */
		pb_uint(b, 12, ev[0].period);
		pb_uint(b, 14, (uint64_t)str_id(&pp.st, tn, &pp.e)); /* default_sample_type */
	}
	if (comment)
		pb_uint(b, 13, (uint64_t)cm);
	for (size_t i = 0; i < pp.st.n; i++)
		pb_bytes(b, 6, pp.st.s[i], strlen(pp.st.s[i]));
	int e = pp.e;
	if (!e)
		e = b->err ? b->err : pp.m.err ? pp.m.err : pp.m2.err;
	if (e)
		rc = mp_err_set(err, e, "%s: out of memory", path);
	else
		rc = pp_write_gz(b, path, input, err);
	for (size_t i = 0; i < pp.st.n; i++)
		free(pp.st.s[i]);
	free(pp.st.s);
	mp_u64map_fini(&pp.st.idx);
	free(pp.b.p);
	free(pp.m.p);
	free(pp.m2.p);
	return rc;
}
