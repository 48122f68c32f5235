/* cmd_report_html.c - memprof report --html FILE: the recording's call graph (chains
 * unwound as memprof script shows them) written as one self-contained HTML flame graph
 * (callgraph/mp_cg_html.c); with data addresses, its data-objects section: the objects the
 * samples touched (globals, heap objects by allocation site, stacks), their fields, the
 * code lines that touched each (the TUI data view's ENTER), and the cache lines several
 * threads touched. */

#define MP_PD_MAX_ATTRS_HTML 64
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "memprof/callgraph.h"
#include "mp_analyzer.h"

/* ---- the data-objects section (recordings with data addresses) ---- */

#define TSET_MAX 4096 /* threads counted per object or line; past it, counted as that */

struct tset {
	uint32_t *v;
	size_t n, cap;
};

static int tset_add(struct tset *t, uint32_t tid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i] == tid)
			return 0;
	if (t->n == TSET_MAX)
		return 0;
	if (MP_GROW(t->v, t->cap, t->n + 1))
		return -ENOMEM;
	t->v[t->n++] = tid;
	return 0;
}

/* one table of rows found by name (a string key, KEY_SEP-joined when several) */
struct dtab {
	char **key;
	size_t n, cap;
	struct mp_u64map map;
};

/* The row of key in t (added when new, *isnew): its index, or -ENOMEM. */
static long dtab_row(struct dtab *t, const char *key, int *isnew)
{
	*isnew = 0;
	for (uint64_t h = mp_strhash(key);; h = mp_mix64(h + 1)) {
		int found;
		uint32_t *slot = mp_u64map_slot(&t->map, mp_u64map_key(h), &found);
		if (!slot)
			return -ENOMEM;
		if (found) {
			if (!strcmp(t->key[*slot], key))
				return *slot;
			continue;
		}
		char *k = strdup(key);
		if (!k || MP_GROW(t->key, t->cap, t->n + 1)) {
			free(k);
			mp_u64map_unslot(&t->map, slot);
			return -ENOMEM;
		}
		t->key[t->n] = k;
		*slot = (uint32_t)t->n;
		*isnew = 1;
		return (long)t->n++;
	}
}

static void dtab_fini(struct dtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->key[i]);
	free(t->key);
	mp_u64map_fini(&t->map);
}

struct hdata {
	mp_daddr *dd;
	mp_heap *heap;
	mp_dtype *dt;
	unsigned char want[MP_PD_MAX_ATTRS_HTML], used[MP_PD_MAX_ATTRS_HTML];
	uint64_t samples, weight;
	struct dtab objs, fields, lines, codes;
	struct mp_cg_html_dobj *obj;
	struct tset *oth;      /* the objects' threads */
	size_t capobj, capoth;
	struct mp_cg_html_dfield *field;
	size_t capfield;
	struct mp_cg_html_dline *line;
	struct tset *lth, *lwr; /* the lines' threads and writers */
	uint64_t *lvote;        /* the lines' majority vote for their object: its count */
	size_t capline, caplth, caplwr, capvote;
	struct mp_cg_html_dcode *code;
	char **cstr;            /* each code row's "sym\0line\0dso" */
	size_t capcode, capcstr;
	/* the sample before's code row, when the next is at the same place in the object */
	long last_code, last_obj;
	uint32_t last_map;
	uint64_t last_ip;
	uint16_t last_mode;
};

/* The code row of sample s (its function, source line and object) under object o, or
 * -ENOMEM. */
static long dcode_row(struct hdata *h, mp_sym *sym, const struct mp_pd_sample *s, long o)
{
	uint32_t map = mp_sym_map_find(sym, s->pid, s->cpumode, s->ip);
	if (h->last_code >= 0 && h->last_obj == o && h->last_map == map && h->last_ip == s->ip &&
	    h->last_mode == s->cpumode)
		return h->last_code;
	struct mp_sym_loc cl;
	mp_sym_resolve(sym, map, s->cpumode, s->ip, 1, &cl);
	const char *base = cl.srcfile ? strrchr(cl.srcfile, '/') : NULL;
	base = base ? base + 1 : cl.srcfile;
	char line[300] = "", key[1400];
	if (base && cl.line)
		snprintf(line, sizeof(line), "%s:%u", base, cl.line);
	snprintf(key, sizeof(key), "%ld\x1f%s\x1f%s\x1f%s", o, cl.sym, line, cl.dso);
	int isnew;
	long c = dtab_row(&h->codes, key, &isnew);
	if (c < 0 || MP_GROW(h->code, h->capcode, h->codes.n) ||
	    MP_GROW_ZERO(h->cstr, h->capcstr, h->codes.n))
		return -ENOMEM;
	if (isnew) {
		/* the key's parts, each its own string */
		char *p = h->cstr[c] = strdup(h->codes.key[c]), *f[4];
		if (!p)
			return -ENOMEM;
		for (int i = 0; i < 4; i++) {
			f[i] = p;
			p += strcspn(p, "\x1f");
			if (*p)
				*p++ = 0;
		}
		h->code[c] = (struct mp_cg_html_dcode){ .obj = (size_t)o, .sym = f[1],
							 .line = f[2][0] ? f[2] : NULL, .dso = f[3] };
	}
	h->last_code = c;
	h->last_obj = o;
	h->last_map = map;
	h->last_ip = s->ip;
	h->last_mode = s->cpumode;
	return c;
}

/* The object of a sample's data place: its name, kind and size. */
static void dobj_of(struct hdata *h, mp_sym *sym, const struct mp_pd_sample *s,
		    const struct mp_daddr_loc *dl, const struct mp_heap_obj *ho, char *name,
		    size_t n, const char **kind, uint64_t *size)
{
	*size = 0;
	if (ho->found) {
		snprintf(name, n, "%s", mp_heap_site_name(h->heap, sym, ho->site));
		*kind = "heap";
		*size = ho->size;
	} else if (dl->sym) {
		snprintf(name, n, "%s (%s)", dl->sym, dl->dso);
		*kind = "global";
		*size = dl->sym_size;
	} else if (dl->kind == MP_DADDR_STACK) {
		mp_daddr_sym_str(dl, s->addr, '.', name, n);
		memmove(name, name + 4 * !strncmp(name, "[.] ", 4), strlen(name) + 1);
		*kind = "stack";
	} else {
		snprintf(name, n, "%s", dl->dso);
		*kind = "other";
	}
}

static int hdata_sample(void *ctx, mp_sym *sym, const struct mp_pd_sample *s, const uint64_t *ips,
			size_t nips)
{
	(void)ips, (void)nips;
	struct hdata *h = ctx;
	/* a sample without a data address (0: the event's others) is no access to data */
	if (s->attr_idx >= MP_PD_MAX_ATTRS_HTML || !h->want[s->attr_idx] || !s->addr)
		return 0;
	h->used[s->attr_idx] = 1;
	struct mp_daddr_loc dl;
	struct mp_heap_obj ho = { 0 };
	memset(&dl, 0, sizeof(dl));
	dl.dso = "[unknown]";
	if (!(s->addr >> 63)) {
		mp_daddr_resolve(h->dd, s->pid, s->addr, &dl);
		if (mp_heap_find(h->heap, s->pid, s->addr, s->time, &ho) < 0)
			return -ENOMEM;
	}
	uint64_t w = s->weight ? s->weight : 1, size;
	struct mp_c2c_stats one = { 0 };
	mp_c2c_count(&one, s->data_src, s->addr);
	int store = one.stores != 0, isnew;
	const char *kind;
	char name[512], key[1024];
	h->samples++;
	h->weight += w;
	dobj_of(h, sym, s, &dl, &ho, name, sizeof(name), &kind, &size);
	long o = dtab_row(&h->objs, name, &isnew);
	if (o < 0 || MP_GROW(h->obj, h->capobj, h->objs.n) || MP_GROW_ZERO(h->oth, h->capoth, h->objs.n))
		return -ENOMEM;
	struct mp_cg_html_dobj *ob = &h->obj[o];
	if (isnew)
		*ob = (struct mp_cg_html_dobj){ .name = h->objs.key[o], .kind = kind,
						 .size_min = size, .size_max = size };
	ob->size_min = size < ob->size_min ? size : ob->size_min;
	ob->size_max = size > ob->size_max ? size : ob->size_max;
	ob->samples++;
	ob->weight += w;
	ob->stores += store;
	if (tset_add(&h->oth[o], s->tid))
		return -ENOMEM;
	long c = dcode_row(h, sym, s, o);
	if (c < 0)
		return (int)c;
	h->code[c].samples++;
	h->code[c].weight += w;
	/* the field: the type and member at the address (DWARF of globals, and of the heap
	 * objects whose allocation goes to a typed pointer) */
	struct mp_dtype_loc tl;
	if (mp_dtype_of_sample(h->dt, &dl, &ho, h->heap, sym, &tl) == 1) {
		char tb[512];
		snprintf(key, sizeof(key), "%ld\x1f%s", o, mp_dtype_typeoff_str(&tl, tb, sizeof(tb)));
		long f = dtab_row(&h->fields, key, &isnew);
		if (f < 0 || MP_GROW(h->field, h->capfield, h->fields.n))
			return -ENOMEM;
		if (isnew)
			h->field[f] = (struct mp_cg_html_dfield){ .obj = (size_t)o,
								  .field = strchr(h->fields.key[f], '\x1f') + 1 };
		h->field[f].samples++;
		h->field[f].weight += w;
	}
	/* the cache line: who touched it, who wrote it */
	mp_daddr_cacheline_str(&dl, s->addr, '.', name, sizeof(name));
	long l = dtab_row(&h->lines, name + 4 * !strncmp(name, "[.] ", 4), &isnew);
	if (l < 0 || MP_GROW(h->line, h->capline, h->lines.n) ||
	    MP_GROW_ZERO(h->lth, h->caplth, h->lines.n) || MP_GROW_ZERO(h->lwr, h->caplwr, h->lines.n) ||
	    MP_GROW_ZERO(h->lvote, h->capvote, h->lines.n))
		return -ENOMEM;
	if (isnew)
		h->line[l] = (struct mp_cg_html_dline){ .line = h->lines.key[l], .obj = (size_t)o };
	/* the line's object: the one most of its samples touched (Boyer-Moore's vote: a
	 * first sample may place the line elsewhere, before its allocation is replayed) */
	if (h->line[l].obj == (size_t)o) {
		h->lvote[l]++;
	} else if (h->lvote[l]) {
		h->lvote[l]--;
	} else {
		h->line[l].obj = (size_t)o;
		h->lvote[l] = 1;
	}
	h->line[l].samples++;
	h->line[l].stores += store;
	if (tset_add(&h->lth[l], s->tid) || (store && tset_add(&h->lwr[l], s->tid)))
		return -ENOMEM;
	return 0;
}

static void hdata_fini(struct hdata *h)
{
	/* (after a failed growth a table may hold a key more than its arrays) */
	for (size_t i = 0; i < h->objs.n && i < h->capoth; i++)
		free(h->oth[i].v);
	for (size_t i = 0; i < h->lines.n && i < h->caplth; i++)
		free(h->lth[i].v);
	for (size_t i = 0; i < h->lines.n && i < h->caplwr; i++)
		free(h->lwr[i].v);
	for (size_t i = 0; i < h->codes.n && i < h->capcstr; i++)
		free(h->cstr[i]);
	free(h->cstr);
	free(h->code);
	free(h->oth);
	free(h->lth);
	free(h->lwr);
	free(h->lvote);
	free(h->obj);
	free(h->field);
	free(h->line);
	dtab_fini(&h->objs);
	dtab_fini(&h->fields);
	dtab_fini(&h->lines);
	dtab_fini(&h->codes);
	mp_heap_free(h->heap);
	mp_dtype_free(h->dt);
}

/* The section of input's samples with data addresses into *out (its rows in h): 1, 0
 * when the recording has none, -1 with the error printed. */
static int html_data(const char *input, const mp_pd *pd, const struct mp_session_opts *base,
		     struct hdata *h, struct mp_cg_html_data *out, struct mp_buf *evs)
{
	size_t n = mp_pd_nattrs(pd);
	int any = 0;
	for (size_t i = 0; i < n && i < MP_PD_MAX_ATTRS_HTML; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		h->want[i] = a->nr_samples && (a->attr.sample_type & PERF_SAMPLE_ADDR);
		any |= h->want[i];
	}
	if (!any)
		return 0;
	struct mp_err err = { 0 };
	struct mp_session_opts so = *base;
	so.no_hist = 1;
	so.daddr = &h->dd;
	so.sample = hdata_sample;
	so.sample_ctx = h;
	h->heap = mp_heap_new(pd); /* NULL without allocation records */
	mp_session *ss = (h->dt = mp_dtype_new(base->symfs)) ? mp_session_new(input, &so, &err) : NULL;
	if (!ss) {
		cli_error("report", "%s", err.msg[0] ? err.msg : "out of memory");
		return -1;
	}
	mp_session_free(ss);
	if (!h->samples)
		return 0;
	any = 0;
	for (size_t i = 0; i < n && i < MP_PD_MAX_ATTRS_HTML; i++)
		if (h->used[i] && mp_buf_printf(evs, "%s%s", any++ ? ", " : "", mp_pd_attr(pd, i)->name)) {
			cli_error("report", "out of memory");
			return -1;
		}
	/* the shared lines only: touched by two threads or more */
	size_t k = 0;
	for (size_t i = 0; i < h->objs.n; i++)
		h->obj[i].threads = (uint32_t)h->oth[i].n;
	for (size_t i = 0; i < h->lines.n; i++)
		if (h->lth[i].n > 1) {
			h->line[k] = h->line[i];
			h->line[k].threads = (uint32_t)h->lth[i].n;
			h->line[k++].writers = (uint32_t)h->lwr[i].n;
		}
	*out = (struct mp_cg_html_data){ .events = evs->data, .samples = h->samples,
					 .weight = h->weight, .obj = h->obj, .nobj = h->objs.n,
					 .field = h->field, .nfield = h->fields.n, .line = h->line,
					 .nline = k, .code = h->code, .ncode = h->codes.n };
	return 1;
}

int cli_report_html(const char *input, const char *out, const char *symfs, const char *kallsyms,
		    const char *buildid_dir)
{
	struct mp_err err = { 0 };
	mp_cg *cg = NULL;
	struct mp_session_opts so = { .symfs = symfs, .kallsyms = kallsyms,
				      .buildid_dir = buildid_dir };
	mp_session *ss = mp_cg_session_new(input, &so, NULL, &cg, &err);
	if (!ss) {
		cli_error("report", "%s", err.msg);
		return 1;
	}
	const mp_pd *pd = mp_session_pd(ss);
	int rc = 1;
	size_t nattrs = mp_pd_nattrs(pd);
	size_t *ev = calloc(nattrs ? nattrs : 1, sizeof(*ev));
	const char **names = calloc(nattrs ? nattrs : 1, sizeof(*names));
	struct mp_out of = { 0 };
	struct hdata hdat = { .last_code = -1 };
	struct mp_cg_html_data data;
	struct mp_buf evs = { 0 };
	if (!ev || !names || mp_cg_resolve(cg, mp_session_sym(ss), 2)) {
		cli_error("report", "%s: out of memory", input);
		goto out;
	}
	size_t nev = mp_session_events(ss, ev);
	for (size_t i = 0; i < nev; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, ev[i]);
		names[i] = a->spec && a->spec[0] ? a->spec : a->name;
	}
	char banner[512];
	struct mp_cg_html_opts ho = { .path = out, .title = input,
				      .banner = mp_pd_sim_banner(pd, banner, sizeof(banner)),
				      .ev = ev, .ev_names = names, .nev = nev, .inline_frames = 1 };
	int hd = html_data(input, pd, &so, &hdat, &data, &evs);
	if (hd < 0)
		goto out;
	ho.data = hd ? &data : NULL;
	if (mp_out_open(&of, out, input, &err) || mp_cg_html_write(cg, &ho, of.f, &err) ||
	    mp_out_commit(&of, &err)) {
		cli_error("report", "--html %s", err.msg);
		goto out;
	}
	rc = 0;
	fprintf(stderr, "[ memprof report: wrote the flame graph of %s to %s%s ]\n", input, out,
		ho.data ? ", with its data objects" : "");
out:
	hdata_fini(&hdat);
	mp_buf_fini(&evs);
	mp_out_abort(&of);
	free(ev);
	free(names);
	mp_cg_free(cg);
	mp_session_free(ss);
	return rc;
}
