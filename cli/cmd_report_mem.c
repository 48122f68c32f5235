/* cmd_report_mem.c - memprof report --mem-mode: samples grouped by perf's memory sort keys
 * (data symbol and object, cache line, level, snoop, TLB, lock, weight, page size,
 * physical address) next to the code keys, per event, with perf's overhead: each sample
 * costs its weight (1 when the weight is 0, as perf's mem mode counts). Data addresses go
 * through mp_daddr (every mapping, .bss included); the levels through the DATA_SRC
 * decoder. Rows of one data symbol are one row (perf keeps one per address). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

enum mk {
	MK_SYMBOL_DADDR, MK_DSO_DADDR, MK_DCACHELINE, MK_MEM, MK_SNOOP, MK_TLB, MK_LOCKED,
	MK_BLOCKED, MK_LOCAL_WEIGHT, MK_WEIGHT, MK_LOCAL_INS_LAT, MK_INS_LAT, MK_DATA_PAGE_SIZE,
	MK_PHYS_DADDR, MK_SYM, MK_DSO, MK_COMM, MK_PID, MK_TID, MK_CPU, MK_NODE, MK_ALLOC,
	MK_ALLOC_SIZE, MK_ALLOC_OFFSET, MK_TYPE, MK_TYPEOFF, MK_N
};

/* perf's key names and column titles; value keys are sums shown per row, not groups */
static const struct {
	const char *name, *title;
	int value;
} mkeys[MK_N] = {
	[MK_SYMBOL_DADDR] = { "symbol_daddr", "Data Symbol", 0 },
	[MK_DSO_DADDR] = { "dso_daddr", "Data Object", 0 },
	[MK_DCACHELINE] = { "dcacheline", "Data Cacheline", 0 },
	[MK_MEM] = { "mem", "Memory access", 0 },
	[MK_SNOOP] = { "snoop", "Snoop", 0 },
	[MK_TLB] = { "tlb", "TLB access", 0 },
	[MK_LOCKED] = { "locked", "Locked", 0 },
	[MK_BLOCKED] = { "blocked", "Blocked", 0 },
	[MK_LOCAL_WEIGHT] = { "local_weight", "Local Weight", 0 },
	[MK_WEIGHT] = { "weight", "Weight", 1 },
	[MK_LOCAL_INS_LAT] = { "local_ins_lat", "Local INSTR Latency", 0 },
	[MK_INS_LAT] = { "ins_lat", "INSTR Latency", 1 },
	[MK_DATA_PAGE_SIZE] = { "data_page_size", "Data Page Size", 0 },
	[MK_PHYS_DADDR] = { "phys_daddr", "Data Physical Address", 0 },
	[MK_SYM] = { "sym", "Symbol", 0 },
	[MK_DSO] = { "dso", "Shared Object", 0 },
	[MK_COMM] = { "comm", "Command", 0 },
	[MK_PID] = { "pid", "Pid", 0 },
	[MK_TID] = { "tid", "Tid", 0 },
	[MK_CPU] = { "cpu", "CPU", 0 },
	[MK_NODE] = { "node", "Node", 0 },
	/* memprof's: the heap object (record --alloc) */
	[MK_ALLOC] = { "alloc", "Allocation Site", 0 },
	[MK_ALLOC_SIZE] = { "alloc_size", "Object Size", 0 },
	[MK_ALLOC_OFFSET] = { "alloc_offset", "Object Offset", 0 },
	/* perf's data-type keys, for globals with DWARF */
	[MK_TYPE] = { "type", "Data Type", 0 },
	[MK_TYPEOFF] = { "typeoff", "Data Type Offset", 0 },
};

/* perf report --mem-mode's default order (6.1, without local_p_stage_cyc) */
#define MEM_DEFAULT_SORT                                                                   \
	"local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,local_ins_lat"
#define MEM_DEFAULT_SORT_ALLOC                                                             \
	"local_weight,mem,sym,dso,symbol_daddr,alloc,dso_daddr,snoop,tlb,locked,blocked,"  \
	"local_ins_lat"
#define MEM_MAX_KEYS 24
#define KEY_SEP '\x1f'

struct mrow {
	size_t attr;
	char *key; /* the group keys' strings, KEY_SEP between them */
	uint64_t samples, cost, weight, ins_lat;
};

struct mem_ctx {
	mp_pd *pd;
	mp_sym *sym;
	mp_daddr *dd;
	mp_heap *heap;          /* the allocation records, NULL without */
	mp_dtype *dt;           /* the type keys' DWARF */
	enum mk keys[MEM_MAX_KEYS];
	size_t nkeys;
	struct mp_pd_topo topo;
	int has_topo;
	struct mrow *rows;
	size_t nrows, caprows;
	struct mp_u64map by_key;
	struct mp_buf kb;
	int err;
};

static int parse_keys(const char *list, enum mk *keys, size_t *n)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t k;
		for (k = 0; k < MK_N; k++)
			if (strlen(mkeys[k].name) == len && !strncmp(mkeys[k].name, p, len))
				break;
		if (k == MK_N || *n == MEM_MAX_KEYS) {
			cli_error(REPORT_CMD, "--mem-mode --sort: %s '%.*s' (keys: symbol_daddr, "
				  "dso_daddr, dcacheline, mem, snoop, tlb, locked, blocked, "
				  "local_weight, weight, local_ins_lat, ins_lat, data_page_size, "
				  "phys_daddr, sym, dso, comm, pid, tid, cpu, node, alloc, "
				  "alloc_size, alloc_offset, type, typeoff)",
				  k == MK_N ? "unknown sort key" : "too many keys", (int)len, p);
			return -1;
		}
		keys[(*n)++] = (enum mk)k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*n) {
		cli_error(REPORT_CMD, "--mem-mode --sort: empty key list");
		return -1;
	}
	return 0;
}

static int on_mmap(void *c, const struct mp_pd_mmap *m)
{
	struct mem_ctx *x = c;
	int rc = mp_sym_mmap(x->sym, m);
	return rc ? rc : mp_daddr_mmap(x->dd, m);
}
static int on_comm(void *c, const struct mp_pd_task *t)
{
	struct mem_ctx *x = c;
	int rc = mp_sym_comm(x->sym, t);
	return rc ? rc : mp_daddr_comm(x->dd, t);
}
static int on_fork(void *c, const struct mp_pd_task *t)
{
	struct mem_ctx *x = c;
	int rc = mp_sym_fork(x->sym, t);
	return rc ? rc : mp_daddr_fork(x->dd, t);
}
static int on_exit_(void *c, const struct mp_pd_task *t)
{
	struct mem_ctx *x = c;
	if (x->heap && t->pid == t->tid) {
		int rc = mp_heap_exit(x->heap, t->pid, t->time);
		if (rc)
			return rc;
	}
	return mp_sym_exit(x->sym, t);
}

static int user_addr(uint64_t a)
{
	return !(a >> 63);
}

/* The string of key k for sample s into the key buffer. */
static void key_str(struct mem_ctx *x, enum mk k, const struct mp_pd_sample *s,
		    const struct mp_daddr_loc *dl, const struct mp_sym_loc *cl,
		    const struct mp_heap_obj *ho)
{
	char b[256];
	char lvl = s->cpumode == PERF_RECORD_MISC_KERNEL ||
			   s->cpumode == PERF_RECORD_MISC_GUEST_KERNEL
		   ? 'k'
		   : '.';
	b[0] = '\0';
	switch (k) {
	case MK_SYMBOL_DADDR:
		mp_daddr_sym_str(dl, s->addr, lvl, b, sizeof(b));
		break;
	case MK_DSO_DADDR:
		snprintf(b, sizeof(b), "%s", dl->dso);
		break;
	case MK_DCACHELINE:
		mp_daddr_cacheline_str(dl, s->addr, lvl, b, sizeof(b));
		break;
	case MK_MEM:
		mp_datasrc_lvl_str(s->data_src, b, sizeof(b));
		break;
	case MK_SNOOP:
		mp_datasrc_snoop_str(s->data_src, b, sizeof(b));
		break;
	case MK_TLB:
		mp_datasrc_tlb_str(s->data_src, b, sizeof(b));
		break;
	case MK_LOCKED:
		mp_datasrc_lock_str(s->data_src, b, sizeof(b));
		break;
	case MK_BLOCKED:
		mp_datasrc_blk_str(s->data_src, b, sizeof(b));
		memmove(b, b + (b[0] == ' '), strlen(b + (b[0] == ' ')) + 1);
		break;
	case MK_LOCAL_WEIGHT:
		snprintf(b, sizeof(b), "%" PRIu64, s->weight);
		break;
	case MK_LOCAL_INS_LAT:
		snprintf(b, sizeof(b), "%u", (unsigned)s->ins_lat);
		break;
	case MK_DATA_PAGE_SIZE:
		mp_page_size_name(s->data_page_size, b, sizeof(b));
		break;
	case MK_PHYS_DADDR:
		snprintf(b, sizeof(b), "0x%016" PRIx64, s->phys_addr);
		break;
	case MK_SYM:
		snprintf(b, sizeof(b), "[%c] %s", cl->level, cl->sym);
		break;
	case MK_DSO:
		snprintf(b, sizeof(b), "%s", cl->dso);
		break;
	case MK_COMM:
		snprintf(b, sizeof(b), "%s", mp_sym_comm_of(x->sym, s->pid, s->tid));
		break;
	case MK_PID:
		snprintf(b, sizeof(b), "%d", (int32_t)s->pid);
		break;
	case MK_TID:
		snprintf(b, sizeof(b), "%d", (int32_t)s->tid);
		break;
	case MK_CPU:
		snprintf(b, sizeof(b), "%u", s->cpu);
		break;
	case MK_NODE:
		snprintf(b, sizeof(b), "%d",
			 x->has_topo && s->cpu < x->topo.ncpus ? x->topo.node[s->cpu] : -1);
		break;
	case MK_ALLOC:
		snprintf(b, sizeof(b), "%s",
			 ho->found ? mp_heap_site_name(x->heap, x->sym, ho->site) : "[not allocated]");
		break;
	case MK_ALLOC_SIZE:
		if (ho->found)
			snprintf(b, sizeof(b), "%" PRIu64, ho->size);
		else
			snprintf(b, sizeof(b), "-");
		break;
	case MK_ALLOC_OFFSET:
		if (ho->found)
			snprintf(b, sizeof(b), "%#" PRIx64, ho->offset);
		else
			snprintf(b, sizeof(b), "-");
		break;
	case MK_TYPE:
	case MK_TYPEOFF: {
		struct mp_dtype_loc tl;
		if (mp_dtype_of_sample(x->dt, dl, ho, x->heap, x->sym, &tl) != 1)
			snprintf(b, sizeof(b), "(unknown)");
		else if (k == MK_TYPE)
			snprintf(b, sizeof(b), "%s", tl.type);
		else
			mp_dtype_typeoff_str(&tl, b, sizeof(b));
		break;
	}
	case MK_WEIGHT:
	case MK_INS_LAT:
	case MK_N:
		return;
	}
	for (char *p = b; *p; p++)
		if (*p == KEY_SEP)
			*p = ' ';
	mp_buf_append(&x->kb, b, strlen(b));
	mp_buf_append(&x->kb, (char[]){ KEY_SEP }, 1);
}

static struct mrow *row_get(struct mem_ctx *x, size_t attr, const char *key)
{
	uint64_t h = mp_mix64(mp_strhash(key) ^ attr);

	for (uint64_t k = h;; k = mp_mix64(k + 1)) {
		int found;
		uint32_t *slot = mp_u64map_slot(&x->by_key, k, &found);
		if (!slot)
			return NULL;
		if (found) {
			struct mrow *r = &x->rows[*slot];
			if (r->attr == attr && !strcmp(r->key, key))
				return r;
			continue;
		}
		if (mp_grow((void **)&x->rows, &x->caprows, x->nrows + 1, sizeof(*x->rows))) {
			mp_u64map_unslot(&x->by_key, slot);
			return NULL;
		}
		struct mrow *r = &x->rows[x->nrows];
		memset(r, 0, sizeof(*r));
		r->attr = attr;
		if (!(r->key = strdup(key))) {
			mp_u64map_unslot(&x->by_key, slot);
			return NULL;
		}
		*slot = (uint32_t)x->nrows++;
		return r;
	}
}

static int on_sample(void *c, const struct mp_pd_sample *s)
{
	struct mem_ctx *x = c;
	struct mp_daddr_loc dl;
	struct mp_sym_loc cl;
	struct mp_heap_obj ho = { 0 };
	int need_code = 0, need_data = 0, need_heap = 0;

	for (size_t i = 0; i < x->nkeys; i++) {
		need_heap |= x->keys[i] == MK_ALLOC || x->keys[i] == MK_ALLOC_SIZE ||
			     x->keys[i] == MK_ALLOC_OFFSET || x->keys[i] == MK_TYPE ||
			     x->keys[i] == MK_TYPEOFF;
		need_code |= x->keys[i] == MK_SYM || x->keys[i] == MK_DSO;
		need_data |= x->keys[i] == MK_SYMBOL_DADDR || x->keys[i] == MK_DSO_DADDR ||
			     x->keys[i] == MK_DCACHELINE || x->keys[i] == MK_TYPE ||
			     x->keys[i] == MK_TYPEOFF;
	}
	memset(&dl, 0, sizeof(dl));
	dl.dso = "[unknown]";
	if (need_data && user_addr(s->addr))
		mp_daddr_resolve(x->dd, s->pid, s->addr, &dl);
	if (need_code) {
		uint32_t map = mp_sym_map_find(x->sym, s->pid, s->cpumode, s->ip);
		mp_sym_resolve(x->sym, map, s->cpumode, s->ip, 0, &cl);
	}
	if (need_heap && user_addr(s->addr) && mp_heap_find(x->heap, s->pid, s->addr, s->time, &ho) < 0)
		return -ENOMEM;
	x->kb.len = 0;
	for (size_t i = 0; i < x->nkeys; i++)
		key_str(x, x->keys[i], s, &dl, &cl, &ho);
	if (mp_buf_append(&x->kb, "", 1))
		return -ENOMEM;
	struct mrow *r = row_get(x, s->attr_idx, x->kb.data);
	if (!r)
		return -ENOMEM;
	r->samples++;
	r->cost += s->weight ? s->weight : 1;
	r->weight += s->weight;
	r->ins_lat += s->ins_lat;
	return 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct mrow *a = pa, *b = pb;

	if (a->attr != b->attr)
		return a->attr < b->attr ? -1 : 1;
	if (a->cost != b->cost)
		return a->cost > b->cost ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The i-th group key of row r (its length in *len). */
static const char *row_field(const struct mrow *r, size_t i, size_t *len)
{
	const char *p = r->key;

	while (i--)
		p = strchr(p, KEY_SEP) + 1;
	*len = strcspn(p, (char[]){ KEY_SEP, 0 });
	return p;
}

/* Column j's text for row r (group key or value) into buf. */
static const char *cell(const struct mem_ctx *x, const struct mrow *r, size_t j, char *buf,
			size_t n)
{
	size_t gi = 0, len;
	for (size_t i = 0; i < j; i++)
		gi += !mkeys[x->keys[i]].value;
	if (x->keys[j] == MK_WEIGHT)
		snprintf(buf, n, "%" PRIu64, r->weight);
	else if (x->keys[j] == MK_INS_LAT)
		snprintf(buf, n, "%" PRIu64, r->ins_lat);
	else {
		const char *p = row_field(r, gi, &len);
		snprintf(buf, n, "%.*s", (int)len, p);
	}
	return buf;
}

static void print_text(FILE *f, const struct mem_ctx *x, const char *path, size_t a0, size_t a1,
		       double thr)
{
	const struct mp_pd_attr *a = mp_pd_attr(x->pd, x->rows[a0].attr);
	uint64_t samples = 0, cost = 0;
	size_t w[MEM_MAX_KEYS];
	char buf[512];

	for (size_t i = a0; i < a1; i++) {
		samples += x->rows[i].samples;
		cost += x->rows[i].cost;
	}
	fprintf(f, "# memprof report --mem-mode of %s\n#\n", path);
	fprintf(f, "# Samples: %" PRIu64 " of event '%s'\n", samples, a && a->name ? a->name : "?");
	fprintf(f, "# Total weight: %" PRIu64 "\n", cost);
	if (x->heap) {
		const struct mp_heap_stats *hs = mp_heap_stats(x->heap);
		struct mp_pd_allocs in;
		mp_pd_allocs(x->pd, &in);
		fprintf(f, "# Allocation records: %" PRIu64 " (%" PRIu64 " lost), at most %" PRIu64
			" objects live, %" PRIu64 " frees of unknown addresses\n", in.nr_recs,
			in.lost, hs->live_max, hs->unknown_free);
	}
	fputs("# Sort order: ", f);
	for (size_t j = 0; j < x->nkeys; j++)
		fprintf(f, "%s%s", j ? "," : "", mkeys[x->keys[j]].name);
	fputs("\n#\n", f);
	for (size_t j = 0; j < x->nkeys; j++) {
		w[j] = strlen(mkeys[x->keys[j]].title);
		for (size_t i = a0; i < a1; i++) {
			size_t l = strlen(cell(x, &x->rows[i], j, buf, sizeof(buf)));
			w[j] = l > w[j] ? l : w[j];
		}
	}
	fprintf(f, "#  Samples  Overhead");
	for (size_t j = 0; j < x->nkeys; j++)
		fprintf(f, "  %-*s", j + 1 < x->nkeys ? (int)w[j] : 0, mkeys[x->keys[j]].title);
	fputs("\n#\n", f);
	for (size_t i = a0; i < a1; i++) {
		const struct mrow *r = &x->rows[i];
		double pct = report_pct(r->cost, cost);
		if (pct < thr)
			continue;
		fprintf(f, "%10" PRIu64 "  %7.2f%%", r->samples, pct);
		for (size_t j = 0; j < x->nkeys; j++)
			fprintf(f, "  %-*s", j + 1 < x->nkeys ? (int)w[j] : 0,
				cell(x, r, j, buf, sizeof(buf)));
		fputc('\n', f);
	}
}

static void print_csv(FILE *f, const struct mem_ctx *x, double thr)
{
	char buf[512];
	uint64_t *tot = calloc(mp_pd_nattrs(x->pd) + 1, sizeof(*tot));

	if (!tot)
		return;
	for (size_t i = 0; i < x->nrows; i++)
		tot[x->rows[i].attr] += x->rows[i].cost;
	fputs("event,samples,overhead", f);
	for (size_t j = 0; j < x->nkeys; j++)
		fprintf(f, ",%s", mkeys[x->keys[j]].name);
	fputc('\n', f);
	for (size_t i = 0; i < x->nrows; i++) {
		const struct mrow *r = &x->rows[i];
		const struct mp_pd_attr *a = mp_pd_attr(x->pd, r->attr);
		double pct = report_pct(r->cost, tot[r->attr]);
		if (pct < thr)
			continue;
		cli_csv_str(f, a && a->name ? a->name : "?");
		fprintf(f, ",%" PRIu64 ",%.4f", r->samples, pct);
		for (size_t j = 0; j < x->nkeys; j++) {
			fputc(',', f);
			cli_csv_str(f, cell(x, r, j, buf, sizeof(buf)));
		}
		fputc('\n', f);
	}
	free(tot);
}

static void print_json(FILE *f, const struct mem_ctx *x, const char *path, double thr)
{
	char buf[512];

	fputs("{\n  \"file\": ", f);
	cli_json_str(f, path);
	fputs(",\n  \"sort\": [", f);
	for (size_t j = 0; j < x->nkeys; j++) {
		fputs(j ? ", " : "", f);
		cli_json_str(f, mkeys[x->keys[j]].name);
	}
	fputs("],\n  \"events\": [", f);
	for (size_t a0 = 0, a1, ne = 0; a0 < x->nrows; a0 = a1, ne++) {
		uint64_t samples = 0, cost = 0;
		for (a1 = a0; a1 < x->nrows && x->rows[a1].attr == x->rows[a0].attr; a1++) {
			samples += x->rows[a1].samples;
			cost += x->rows[a1].cost;
		}
		const struct mp_pd_attr *a = mp_pd_attr(x->pd, x->rows[a0].attr);
		fprintf(f, "%s\n    {\"event\": ", ne ? "," : "");
		cli_json_str(f, a && a->name ? a->name : "?");
		fprintf(f, ", \"samples\": %" PRIu64 ", \"total_weight\": %" PRIu64 ", \"rows\": [",
			samples, cost);
		int first = 1;
		for (size_t i = a0; i < a1; i++) {
			const struct mrow *r = &x->rows[i];
			double pct = report_pct(r->cost, cost);
			if (pct < thr)
				continue;
			fprintf(f, "%s\n      {\"samples\": %" PRIu64 ", \"overhead\": %.4f",
				first ? "" : ",", r->samples, pct);
			first = 0;
			for (size_t j = 0; j < x->nkeys; j++) {
				fprintf(f, ", \"%s\": ", mkeys[x->keys[j]].name);
				cell(x, r, j, buf, sizeof(buf));
				if (mkeys[x->keys[j]].value || x->keys[j] == MK_LOCAL_WEIGHT ||
				    x->keys[j] == MK_LOCAL_INS_LAT || x->keys[j] == MK_PID ||
				    x->keys[j] == MK_TID || x->keys[j] == MK_CPU || x->keys[j] == MK_NODE)
					fputs(buf, f);
				else
					cli_json_str(f, buf);
			}
			fputc('}', f);
		}
		fputs("\n    ]}", f);
	}
	fputs("\n  ]\n}\n", f);
}

int report_mem(const struct report_opts *o)
{
	struct mem_ctx x = { 0 };
	struct mp_err err = { 0 };
	int rc = 1;

	x.pd = mp_pd_open(o->input, &err);
	if (!x.pd) {
		cli_error(REPORT_CMD, "%s", err.msg);
		return 1;
	}
	struct mp_pd_allocs allocs;
	int has_allocs = mp_pd_allocs(x.pd, &allocs) == 0;
	/* with allocation records the default order shows the heap object beside the symbol */
	if (parse_keys(o->sort ? o->sort : has_allocs ? MEM_DEFAULT_SORT_ALLOC : MEM_DEFAULT_SORT,
		       x.keys, &x.nkeys)) {
		mp_pd_close(x.pd);
		return CLI_EXIT_USAGE;
	}
	int want_heap = 0;
	for (size_t i = 0; i < x.nkeys; i++)
		want_heap |= x.keys[i] == MK_ALLOC || x.keys[i] == MK_ALLOC_SIZE ||
			     x.keys[i] == MK_ALLOC_OFFSET;
	if (want_heap && !has_allocs) {
		cli_error(REPORT_CMD, "%s: --sort alloc: the recording has no allocation records "
			  "(record with --alloc: memprof record --alloc -e page-faults -c 1 -d CMD)",
			  o->input);
		goto out;
	}
	int want_types = 0;
	for (size_t i = 0; i < x.nkeys; i++)
		want_types |= x.keys[i] == MK_TYPE || x.keys[i] == MK_TYPEOFF;
	/* heap objects have types too, when the recording has their allocations */
	if ((want_heap || (want_types && has_allocs)) && !(x.heap = mp_heap_new(x.pd))) {
		cli_error(REPORT_CMD, "%s: out of memory for the allocation records", o->input);
		goto out;
	}
	int has_addr = 0;
	for (size_t i = 0; i < mp_pd_nattrs(x.pd); i++)
		has_addr |= !!(mp_pd_attr(x.pd, i)->attr.sample_type &
			       (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC));
	if (!has_addr) {
		cli_error(REPORT_CMD, "%s: --mem-mode: no event of the recording has data addresses "
			  "or sources (record with -d: memprof record -e page-faults -c 1 -d, or "
			  "memprof mem record)", o->input);
		goto out;
	}
	x.has_topo = mp_pd_topo_read(x.pd, &x.topo) == 0;
	size_t nb = mp_pd_nbuild_ids(x.pd);
	struct mp_pd_build_id *bids = nb ? calloc(nb, sizeof(*bids)) : NULL;
	for (size_t i = 0; bids && i < nb; i++)
		bids[i] = *mp_pd_build_id(x.pd, i);
	char *bdir = cli_buildid_dir(o->symfs);
	struct mp_sym_opts so = { .symfs = o->symfs, .kallsyms = o->kallsyms, .buildid_dir = bdir,
				  .no_srcline = !want_heap,
				  .osrelease = mp_pd_feature_str(x.pd, 4 /* HEADER_OSRELEASE */) };
	x.sym = mp_sym_new(&so, bids, nb, &err);
	x.dd = x.sym ? mp_daddr_new(x.sym, o->symfs, 0) : NULL;
	x.dt = x.dd ? mp_dtype_new(o->symfs) : NULL;
	if (!x.dt) {
		cli_error(REPORT_CMD, "%s: %s", o->input, err.msg[0] ? err.msg : "out of memory");
		goto out2;
	}
	struct mp_pd_handler h = { .ctx = &x, .sample = on_sample, .mmap = on_mmap,
				   .comm = on_comm, .fork = on_fork, .exit = on_exit_ };
	if (mp_pd_process(x.pd, &h, &err)) {
		cli_error(REPORT_CMD, "%s", err.msg[0] ? err.msg : "out of memory");
		goto out2;
	}
	qsort(x.rows, x.nrows, sizeof(*x.rows), row_cmp);
	if (o->csv)
		print_csv(stdout, &x, o->threshold);
	else if (o->json)
		print_json(stdout, &x, o->input, o->threshold);
	else
		for (size_t a0 = 0, a1; a0 < x.nrows; a0 = a1) {
			for (a1 = a0; a1 < x.nrows && x.rows[a1].attr == x.rows[a0].attr; a1++)
				;
			if (a0)
				fputs("\n", stdout);
			print_text(stdout, &x, o->input, a0, a1, o->threshold);
		}
	rc = fflush(stdout) ? 1 : 0;
out2:
	mp_dtype_free(x.dt);
	mp_daddr_free(x.dd);
	mp_sym_free(x.sym);
	free(bids);
	free(bdir);
out:
	mp_heap_free(x.heap);
	for (size_t i = 0; i < x.nrows; i++)
		free(x.rows[i].key);
	free(x.rows);
	mp_u64map_fini(&x.by_key);
	mp_buf_fini(&x.kb);
	if (x.has_topo)
		mp_pd_topo_fini(&x.topo);
	mp_pd_close(x.pd);
	return rc;
}
