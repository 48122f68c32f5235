/* fuzz_hist.c - libFuzzer harness for the histogram and annotate path (issue 18): the
 * input shapes a histogram of samples in a real object (this harness's own executable,
 * mapped into two fake processes as the kernel mapped it, with its symbols and DWARF),
 * in the kernel (no kallsyms) and outside any map; then queries it with the grouping
 * keys, sort, filters and hot threshold the input picks, lists the objects missing
 * symbols, and annotates a function and a source file of the rows, touching every field
 * of the results.
 *
 * Input: 16 header bytes [nattrs, keys lo, keys hi, sort attr, flags, hot, filters,
 * filter picks x3, annotate pick, file pick, 4 spare], then 8 bytes per sample
 * [attr, who (pid/tid/kernel/cpu bits), offset x3, period x2, where]. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "mp_analyzer.h"

static mp_sym *S;
static uint64_t text_start, text_end;
static char exe[4096];

/* The symbol context is made once: loading this executable's DWARF for each input would
 * leave no time for the inputs. */
static int setup(void)
{
	struct mp_err err = { 0 };
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	char line[8192];
	uint64_t pgoff = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, off;
		char perm[8], path[4096] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &a, &b, perm, &off, path) >= 4 &&
		    perm[2] == 'x' && !strcmp(path, exe)) {
			text_start = a;
			text_end = b;
			pgoff = off;
			break;
		}
	}
	fclose(f);
	if (!text_end)
		return -1;
	struct mp_sym_opts so = { .kallsyms = "/dev/null" };
	S = mp_sym_new(&so, NULL, 0, &err);
	if (!S)
		return -1;
	for (uint32_t pid = 100; pid <= 101; pid++) {
		struct mp_pd_task t = { .pid = pid, .tid = pid, .comm = pid == 100 ? "fz" : "fz2",
					.exec = 1 };
		mp_sym_comm(S, &t);
		struct mp_pd_mmap m = { .pid = pid, .tid = pid, .start = text_start,
					.len = text_end - text_start, .pgoff = pgoff,
					.cpumode = PERF_RECORD_MISC_USER, .filename = exe,
					.prot = PROT_READ | PROT_EXEC };
		mp_sym_mmap(S, &m);
	}
	return 0;
}

static uint64_t touch_counts(const struct mp_hist_counts *c, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; c && i < n; i++)
		s += c[i].samples + c[i].period;
	return s;
}

static uint64_t touch_ann(mp_ann *a)
{
	uint64_t s = 0;
	if (!a)
		return 0;
	const struct mp_ann_info *in = mp_ann_info(a);
	s += (in->dso ? strlen(in->dso) : 0) + (in->sym ? strlen(in->sym) : 0) + in->start + in->size + in->has_debuginfo +
	     (in->srcfile ? strlen(in->srcfile) : 0) + (in->note ? strlen(in->note) : 0) +
	     touch_counts(in->total, in->nattrs) + touch_counts(in->evtotal, in->nattrs);
	for (size_t i = 0; i < mp_ann_nlines(a); i++) {
		const struct mp_ann_line *l = mp_ann_line(a, i);
		s += l->line + (unsigned)l->hot + (l->text ? strlen(l->text) : 0) +
		     (l->srcfile ? strlen(l->srcfile) : 0) + touch_counts(l->c, in->nattrs);
		for (size_t k = 0; k < l->ninsns; k++)
			if (l->insns[k] >= mp_ann_ninsns(a))
				abort(); /* an instruction index out of range */
			else
				s += mp_ann_insn(a, l->insns[k])->addr;
	}
	for (size_t i = 0; i < mp_ann_ninsns(a); i++) {
		const struct mp_ann_insn *x = mp_ann_insn(a, i);
		s += x->addr + x->size + strlen(x->text) + x->line +
		     (x->srcfile ? strlen(x->srcfile) : 0) + touch_counts(x->c, in->nattrs);
	}
	mp_ann_free(a);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t size)
{
	static int ready = -2;
	if (ready == -2)
		ready = setup();
	if (ready || size < 16)
		return 0;
	static const char *const picks[] = { "fz", "fz2", "100", "101", "[unknown]",
					     "[kernel.kallsyms]", "main", "LLVMFuzzerTestOneInput",
					     "nosuch", "fuzz_hist", "100,101", "" };
	const size_t npick = sizeof(picks) / sizeof(picks[0]);
	size_t nattrs = 1 + d[0] % 3;
	unsigned keys = (unsigned)(d[1] | d[2] << 8) & 0x1ff;
	int want_line = (keys & (MP_HK_SRCLINE | MP_HK_SRCFILE)) || (d[4] & 2);
	double hot = d[5] / 2.55;
	mp_hist *h = mp_hist_new(nattrs);
	if (!h)
		return 0;
	uint64_t span = text_end - text_start;
	for (size_t o = 16; o + 8 <= size; o += 8) {
		const uint8_t *b = d + o;
		size_t attr = b[0] % nattrs;
		uint32_t pid = 100 + (b[1] & 1), tid = pid + 1000 * ((b[1] >> 1) & 1);
		uint16_t cpumode = (b[1] & 4) ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		uint32_t cpu = b[1] >> 4;
		uint64_t off = (uint64_t)b[2] | (uint64_t)b[3] << 8 | (uint64_t)b[4] << 16;
		uint64_t period = (uint64_t)(b[5] | b[6] << 8) + (b[7] & 0x80 ? (1ull << 40) : 0);
		uint64_t ip = (b[7] & 1) ? 0x10000 + off : text_start + off % span;
		if (cpumode == PERF_RECORD_MISC_KERNEL)
			ip = 0xffffffff81000000ull + off;
		uint32_t map = mp_sym_map_find(S, pid, cpumode, ip);
		if (mp_hist_add_cpu(h, attr, pid, tid, mp_sym_comm_id(S, pid, tid), cpu, map, cpumode,
				    ip, period))
			break;
	}
	volatile uint64_t sum = mp_hist_nplaces(h) + mp_hist_nattrs(h);
	for (size_t a = 0; a < nattrs; a++)
		sum += touch_counts(mp_hist_total(h, a), 1);
	if (mp_hist_resolve(h, S, want_line) == 0) {
		struct mp_hist_query q = { .keys = keys, .sort_by_key = d[4] & 1,
					   .sort_attr = d[3] % (nattrs + 1) == nattrs ? SIZE_MAX
										  : d[3] % (nattrs + 1) };
		const char **flt[] = { &q.filter.comms, &q.filter.pids, &q.filter.tids,
				       &q.filter.dsos, &q.filter.syms, &q.dso, &q.sym };
		for (size_t k = 0; k < sizeof(flt) / sizeof(flt[0]); k++)
			if (d[6] >> k & 1)
				*flt[k] = picks[d[7 + k % 3] % npick];
		struct mp_hist_result res;
		if (mp_hist_query(h, S, &q, &res) == 0) {
			const char *fn = NULL, *dso = NULL, *file = NULL;
			for (size_t i = 0; i < res.nrows; i++) {
				const struct mp_hist_row *r = &res.rows[i];
				sum += r->pid + r->tid + r->cpu + r->line + r->addr + r->elf_addr +
				       r->sym_off + (unsigned)r->level +
				       (r->comm ? strlen(r->comm) : 0) + (r->dso ? strlen(r->dso) : 0) +
				       (r->sym ? strlen(r->sym) : 0) +
				       (r->srcfile ? strlen(r->srcfile) : 0) + touch_counts(r->c, nattrs);
				if (i == d[10] % res.nrows && r->sym && r->sym_resolved) {
					fn = r->sym;
					dso = r->dso;
				}
				if (i == d[11] % res.nrows && r->srcfile)
					file = r->srcfile;
			}
			struct mp_err err = { 0 };
			if (fn)
				sum += touch_ann(mp_ann_new(h, S, (d[4] & 4) ? NULL : dso, fn, hot, &err));
			if (file && (d[4] & 8))
				sum += touch_ann(mp_ann_new_file(h, S, file, hot, &err));
			mp_hist_result_fini(&res);
		}
		struct mp_hist_missing *miss = NULL;
		long nm = mp_hist_missing(h, S, want_line, &miss);
		for (long i = 0; i < nm; i++)
			sum += strlen(miss[i].dso) + miss[i].flags + (uint64_t)miss[i].pct_max;
		free(miss);
	}
	(void)sum;
	mp_hist_free(h);
	return 0;
}
