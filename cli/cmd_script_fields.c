/* cmd_script_fields.c - memprof script -F: the fields perf script -F prints, in perf's
 * order and widths (perf 6.1's process_event and perf_sample__fprintf_start), so that
 * both print the same lines for the same file: comm, pid/tid, cpu, time, period, event,
 * addr (with its data symbol and object for page faults), data_src, weight, ins_lat, ip
 * (sym, symoff, dso), phys_addr, data_page_size; and memprof's alloc (the heap object of
 * addr, from record --alloc's records: "site +0xOFF (SIZE bytes)"). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "script.h"

static const char *const sf_names[SF_N] = {
	[SF_COMM] = "comm",     [SF_TID] = "tid",         [SF_PID] = "pid",
	[SF_TIME] = "time",     [SF_CPU] = "cpu",         [SF_EVENT] = "event",
	[SF_IP] = "ip",         [SF_SYM] = "sym",         [SF_SYMOFF] = "symoff",
	[SF_DSO] = "dso",       [SF_ADDR] = "addr",       [SF_DATA_SRC] = "data_src",
	[SF_WEIGHT] = "weight", [SF_INS_LAT] = "ins_lat", [SF_PHYS_ADDR] = "phys_addr",
	[SF_DATA_PAGE_SIZE] = "data_page_size",           [SF_PERIOD] = "period",
	[SF_ALLOC] = "alloc",    [SF_TRACE] = "trace",
};

#define HAS(f, x) ((f)->mask & (1u << (x)))

int script_fields_parse(const char *list, struct script_fields *f)
{
	const char *p = list;

	memset(f, 0, sizeof(*f));
	while (*p) {
		size_t len = strcspn(p, ",");
		int k;
		for (k = 0; k < SF_N; k++)
			if (strlen(sf_names[k]) == len && !strncmp(sf_names[k], p, len))
				break;
		if (k == SF_N) {
			cli_error("script", "-F: unknown field '%.*s' (fields: comm, tid, pid, time, "
				  "cpu, event, ip, sym, symoff, dso, addr, data_src, weight, ins_lat, "
				  "phys_addr, data_page_size, period, alloc, trace)", (int)len, p);
			return -1;
		}
		f->mask |= 1u << k;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!f->mask) {
		cli_error("script", "-F: no field given");
		return -1;
	}
	return 0;
}

int script_fields_check(const struct script_fields *f, const mp_pd *pd)
{
	static const struct {
		int field;
		uint64_t bits;
		const char *what;
	} need[] = {
		{ SF_TIME, PERF_SAMPLE_TIME, "TIME" },
		{ SF_CPU, PERF_SAMPLE_CPU, "CPU" },
		{ SF_ADDR, PERF_SAMPLE_ADDR, "ADDR" },
		{ SF_ALLOC, PERF_SAMPLE_ADDR, "ADDR" },
		{ SF_DATA_SRC, PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
		{ SF_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT" },
		{ SF_INS_LAT, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
		{ SF_PHYS_ADDR, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
		{ SF_DATA_PAGE_SIZE, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	};
	size_t n = mp_pd_nattrs(pd);

	/* as perf: the first event of each type stands for the others of its type */
	for (size_t i = 0; i < n; i++) {
		const struct mp_pd_attr *a = mp_pd_attr(pd, i);
		int first = 1;
		for (size_t j = 0; j < i; j++)
			first &= mp_pd_attr(pd, j)->attr.type != a->attr.type;
		if (!first)
			continue;
		for (size_t k = 0; k < sizeof(need) / sizeof(need[0]); k++)
			if (HAS(f, need[k].field) && !(a->attr.sample_type & need[k].bits)) {
				cli_error("script", "samples for '%s' event do not have %s attribute "
					  "set. Cannot print '%s' field.", a->name ? a->name : "?",
					  need[k].what, sf_names[need[k].field]);
				return -1;
			}
	}
	return 0;
}

/* perf prints the data symbol of an address only where the address belongs to the code's
 * process: page-fault events */
static int addr_has_sym(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_PAGE_FAULTS || a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

static const char *dso_path(mp_sym *sym, const struct mp_sym_loc *l)
{
	const struct mp_sym_dso_info *d =
		l->dso_idx != UINT32_MAX && !l->kernel ? mp_sym_dso(sym, l->dso_idx, 0) : NULL;
	return d && d->path ? d->path : l->dso;
}

static void print_addr(FILE *out, struct script_fields *f, mp_sym *sym,
		       const struct perf_event_attr *a, const struct mp_pd_sample *s)
{
	fprintf(out, "%16" PRIx64, s->addr);
	if (!addr_has_sym(a) || !(HAS(f, SF_SYM) || HAS(f, SF_DSO)))
		return;
	const char *name = NULL, *dso = "[unknown]";
	uint64_t off = 0;
	if (s->addr >> 63) {
		struct mp_sym_loc l;
		uint32_t map = mp_sym_map_find(sym, s->pid, PERF_RECORD_MISC_KERNEL, s->addr);
		mp_sym_resolve(sym, map, PERF_RECORD_MISC_KERNEL, s->addr, 0, &l);
		name = l.sym_resolved ? l.sym : NULL;
		off = l.elf_addr - l.sym_start;
		dso = l.dso;
	} else if (f->dd) {
		struct mp_daddr_loc l;
		mp_daddr_resolve(f->dd, s->pid, s->addr, &l);
		name = l.sym;
		off = l.vaddr - l.sym_start;
		dso = l.path ? l.path : l.dso;
	}
	if (HAS(f, SF_SYM)) {
		fprintf(out, " %s", name ? name : "[unknown]");
		if (name && HAS(f, SF_SYMOFF))
			fprintf(out, "+0x%" PRIx64, off);
	}
	if (HAS(f, SF_DSO))
		fprintf(out, " (%s)", dso);
}

static void print_ip(FILE *out, const struct script_fields *f, mp_sym *sym,
		     const struct mp_pd_sample *s)
{
	struct mp_sym_loc l;
	uint32_t map = mp_sym_map_find(sym, s->pid, s->cpumode, s->ip);

	mp_sym_resolve(sym, map, s->cpumode, s->ip, 0, &l);
	fprintf(out, " %16" PRIx64, s->ip);
	if (HAS(f, SF_SYM)) {
		fprintf(out, " %s", l.sym_resolved ? l.sym : "[unknown]");
		if (l.sym_resolved && HAS(f, SF_SYMOFF))
			fprintf(out, "+0x%" PRIx64, l.elf_addr - l.sym_start);
	}
	if (HAS(f, SF_DSO))
		fprintf(out, " (%s)", dso_path(sym, &l));
}

void script_fields_print(FILE *out, struct script_fields *f, const mp_pd *pd, mp_sym *sym,
			 const struct mp_pd_sample *s)
{
	const struct mp_pd_attr *a = mp_pd_attr(pd, s->attr_idx);
	const char *ev = a && a->name ? a->name : "[unknown]";

	if (!f->name_width)
		for (size_t i = 0; i < mp_pd_nattrs(pd); i++) {
			const char *n = mp_pd_attr(pd, i)->name;
			int w = n ? (int)strlen(n) : 0;
			f->name_width = w > f->name_width ? w : f->name_width;
		}
	if (HAS(f, SF_COMM))
		fprintf(out, "%16s ", mp_sym_comm_of(sym, s->pid, s->tid));
	/* signed, as perf: a task that had exited when sampled is -1 */
	if (HAS(f, SF_PID) && HAS(f, SF_TID))
		fprintf(out, "%5d/%-5d ", (int32_t)s->pid, (int32_t)s->tid);
	else if (HAS(f, SF_PID))
		fprintf(out, "%5d ", (int32_t)s->pid);
	else if (HAS(f, SF_TID))
		fprintf(out, "%5d ", (int32_t)s->tid);
	if (HAS(f, SF_CPU))
		fprintf(out, "[%03u] ", s->cpu);
	if (HAS(f, SF_TIME)) {
		char t[48];
		uint64_t us = s->time / 1000;
		snprintf(t, sizeof(t), "%" PRIu64 ".%06" PRIu64, us / 1000000, us % 1000000);
		fprintf(out, "%12s: ", t);
	}
	if (HAS(f, SF_PERIOD))
		fprintf(out, "%10" PRIu64 " ", s->period);
	if (HAS(f, SF_EVENT))
		fprintf(out, "%*s: ", f->name_width, ev);
	if (HAS(f, SF_TRACE)) {
		const char *t = script_trace_text(f->trace, pd, s, &f->tbuf);
		if (t)
			fputs(t, out);
	}
	if (HAS(f, SF_ADDR) && a)
		print_addr(out, f, sym, &a->attr, s);
	if (HAS(f, SF_DATA_SRC)) {
		char b[128];
		int n = (int)mp_datasrc_script_str(s->data_src, b, sizeof(b));
		f->src_width = n > f->src_width ? n : f->src_width;
		fprintf(out, "%-*s", f->src_width, b);
	}
	if (HAS(f, SF_WEIGHT))
		fprintf(out, "%16" PRIu64, s->weight);
	if (HAS(f, SF_INS_LAT))
		fprintf(out, "%16u", (unsigned)s->ins_lat);
	if (HAS(f, SF_IP))
		print_ip(out, f, sym, s);
	if (HAS(f, SF_PHYS_ADDR))
		fprintf(out, "%16" PRIx64, s->phys_addr);
	if (HAS(f, SF_DATA_PAGE_SIZE)) {
		char b[32];
		mp_page_size_name(s->data_page_size, b, sizeof(b));
		fprintf(out, " %s", b);
	}
	if (HAS(f, SF_ALLOC)) {
		/* memprof's: "site +0xOFF (SIZE bytes)", the heap object the address lay in */
		struct mp_heap_obj o;
		if (!(s->addr >> 63) && mp_heap_find(f->heap, s->pid, s->addr, s->time, &o) == 1)
			fprintf(out, " %s +0x%" PRIx64 " (%" PRIu64 " bytes)",
				mp_heap_site_name(f->heap, sym, o.site), o.offset, o.size);
		else
			fputs(" [not allocated]", out);
	}
	fputc('\n', out);
}

/* the reading: the code side's symbols and the data side's maps fed the same records */
struct fields_run {
	mp_pd *pd;
	mp_sym *sym;
	struct script_fields *f;
};

static int fr_mmap(void *c, const struct mp_pd_mmap *m)
{
	struct fields_run *r = c;
	int rc = mp_sym_mmap(r->sym, m);
	return rc || !r->f->dd ? rc : mp_daddr_mmap(r->f->dd, m);
}
static int fr_comm(void *c, const struct mp_pd_task *t)
{
	struct fields_run *r = c;
	int rc = mp_sym_comm(r->sym, t);
	return rc || !r->f->dd ? rc : mp_daddr_comm(r->f->dd, t);
}
static int fr_fork(void *c, const struct mp_pd_task *t)
{
	struct fields_run *r = c;
	int rc = mp_sym_fork(r->sym, t);
	return rc || !r->f->dd ? rc : mp_daddr_fork(r->f->dd, t);
}
static int fr_exit(void *c, const struct mp_pd_task *t)
{
	struct fields_run *r = c;
	if (r->f->heap && t->pid == t->tid) {
		int rc = mp_heap_exit(r->f->heap, t->pid, t->time);
		if (rc)
			return rc;
	}
	return mp_sym_exit(r->sym, t);
}
static int fr_sample(void *c, const struct mp_pd_sample *s)
{
	struct fields_run *r = c;
	script_fields_print(stdout, r->f, r->pd, r->sym, s);
	return ferror(stdout) ? -EIO : 0;
}

int script_fields_run(mp_pd *pd, const char *input, const char *symfs, const char *kallsyms,
		      const char *bdir_in, struct script_fields *f)
{
	struct fields_run r = { .pd = pd, .f = f };
	struct mp_err err = { 0 };
	int rc = 1;

	if (script_fields_check(f, pd)) {
		mp_pd_close(pd);
		return 1;
	}
	size_t nb = mp_pd_nbuild_ids(pd);
	struct mp_pd_build_id *bids = nb ? calloc(nb, sizeof(*bids)) : NULL;
	for (size_t i = 0; bids && i < nb; i++)
		bids[i] = *mp_pd_build_id(pd, i);
	char *bdir = bdir_in ? strdup(bdir_in) : cli_buildid_dir(symfs);
	struct mp_sym_opts so = { .symfs = symfs, .kallsyms = kallsyms, .buildid_dir = bdir,
				  .no_srcline = !(f->mask & (1u << SF_ALLOC)),
				  .osrelease = mp_pd_feature_str(pd, 4 /* HEADER_OSRELEASE */) };
	if ((f->mask & (1u << SF_ALLOC)) && !(f->heap = mp_heap_new(pd))) {
		cli_error("script", "%s: -F alloc: the recording has no allocation records (record "
			  "with --alloc)", input);
		goto out;
	}
	if (HAS(f, SF_TRACE))
		f->trace = script_trace_open(pd);
	if (!(nb && !bids))
		r.sym = mp_sym_new(&so, bids, nb, &err);
	if (r.sym && (f->mask & (1u << SF_ADDR)))
		f->dd = mp_daddr_new(r.sym, symfs, MP_DADDR_NO_BSS);
	if (!r.sym || ((f->mask & (1u << SF_ADDR)) && !f->dd)) {
		cli_error("script", "%s: %s", input, err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	struct mp_pd_handler h = { .ctx = &r, .sample = fr_sample, .mmap = fr_mmap,
				   .comm = fr_comm, .fork = fr_fork, .exit = fr_exit };
	if (mp_pd_process(pd, &h, &err)) {
		fflush(stdout);
		cli_error("script", "%s", err.msg[0] ? err.msg : "cannot write the output");
		goto out;
	}
	rc = fflush(stdout) ? 1 : 0;
out:
	mp_pd_trace_free(f->trace);
	f->trace = NULL;
	mp_buf_fini(&f->tbuf);
	mp_heap_free(f->heap);
	f->heap = NULL;
	mp_daddr_free(f->dd);
	f->dd = NULL;
	mp_sym_free(r.sym);
	mp_pd_close(pd);
	free(bids);
	free(bdir);
	return rc;
}

mp_pd_trace *script_trace_open(const mp_pd *pd)
{
	struct mp_err err = { 0 };
	int any = 0;
	for (size_t i = 0; i < mp_pd_nattrs(pd); i++)
		any |= mp_pd_attr(pd, i)->attr.type == PERF_TYPE_TRACEPOINT;
	if (!any)
		return NULL;
	mp_pd_trace *t = mp_pd_trace_open(pd, &err);
	if (!t)
		cli_warn("script", "%s; tracepoint fields not shown", err.msg);
	return t;
}

const char *script_trace_text(const mp_pd_trace *t, const mp_pd *pd,
			      const struct mp_pd_sample *s, struct mp_buf *b)
{
	const struct mp_pd_attr *a = mp_pd_attr(pd, s->attr_idx);
	if (!t || !a || a->attr.type != PERF_TYPE_TRACEPOINT || !s->raw)
		return NULL;
	const struct mp_pd_tp_event *e = mp_pd_trace_event(t, a->attr.config);
	b->len = 0;
	if (!e || mp_pd_tp_print(e, s->raw, s->raw_size, b) || mp_buf_append(b, "", 1))
		return NULL;
	if (!memchr(b->data, '\n', b->len))
		return b->data;
	/* a payload's newline must not forge a line */
	struct mp_buf e2 = { 0 };
	for (size_t i = 0; i + 1 < b->len; i++)
		if (b->data[i] == '\n' ? mp_buf_append(&e2, "\\n", 2) : mp_buf_append(&e2, &b->data[i], 1))
			break;
	b->len = 0;
	mp_buf_append(b, e2.data, e2.len);
	mp_buf_append(b, "", 1);
	mp_buf_fini(&e2);
	return b->data;
}
