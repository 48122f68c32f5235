/* mp_annotate.c - the annotate model: one function's (or one source file's) lines and
 * instructions with their samples, disassembled with capstone. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_analyzer.h"
#include "mp_util.h"
#include "mp_disasm.h"

struct src_text {
	char *path;
	char *buf;
	char **lines; /* lines[0] = line 1 */
	size_t n;
	int ok;
};

struct mp_ann {
	struct mp_ann_info info;
	size_t nattrs;
	struct mp_hist_counts *total, *evtotal;

	struct mp_ann_insn *insns;
	size_t ninsns, capinsns;
	struct mp_hist_counts *icounts; /* [ninsns * nattrs] */
	size_t capicounts;

	struct mp_ann_line *lines;
	size_t nlines;
	struct mp_hist_counts *lcounts;
	size_t *lineinsns;

	struct src_text *srcs;
	size_t nsrcs, capsrcs;
	char *dso, *sym, *srcfile;
	char note[512];
	int skid_moved;
	double hot_pct;
	const char *b_main;   /* build_lines()' arguments, to build the lines again */
	unsigned b_lo, b_hi;
	int b_trim;
};

void mp_ann_free(mp_ann *a)
{
	if (!a)
		return;
	free(a->total);
	free(a->evtotal);
	free(a->insns);
	free(a->icounts);
	free(a->lines);
	free(a->lcounts);
	free(a->lineinsns);
	for (size_t i = 0; i < a->nsrcs; i++) {
		free(a->srcs[i].path);
		free(a->srcs[i].buf);
		free(a->srcs[i].lines);
	}
	free(a->srcs);
	free(a->dso);
	free(a->sym);
	free(a->srcfile);
	free(a);
}

const struct mp_ann_info *mp_ann_info(const mp_ann *a)
{
	return &a->info;
}

size_t mp_ann_nlines(const mp_ann *a)
{
	return a->nlines;
}

const struct mp_ann_line *mp_ann_line(const mp_ann *a, size_t i)
{
	return i < a->nlines ? &a->lines[i] : NULL;
}

size_t mp_ann_ninsns(const mp_ann *a)
{
	return a->ninsns;
}

const struct mp_ann_insn *mp_ann_insn(const mp_ann *a, size_t i)
{
	return i < a->ninsns ? &a->insns[i] : NULL;
}

static void add_note(mp_ann *a, const char *fmt, const char *arg)
{
	size_t n = strlen(a->note);
	if (n && n + 2 < sizeof(a->note)) {
		a->note[n++] = ';';
		a->note[n++] = ' ';
		a->note[n] = 0;
	}
	snprintf(a->note + n, sizeof(a->note) - n, fmt, arg);
}

static struct src_text *get_src(mp_ann *a, const char *path)
{
	for (size_t i = 0; i < a->nsrcs; i++)
		if (!strcmp(a->srcs[i].path, path))
			return &a->srcs[i];
	if (mp_grow((void **)&a->srcs, &a->capsrcs, a->nsrcs + 1, sizeof(*a->srcs)))
		return NULL;
	struct src_text *t = &a->srcs[a->nsrcs];
	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	if (!t->path)
		return NULL;
	a->nsrcs++;
	size_t len = 0;
	/* A source file named by the debug info: regular files only (a FIFO there would hang
	 * annotate in open()), at most MP_READ_FILE_MAX bytes. */
	int fd = mp_open_input(path, MP_OPEN_REGULAR, NULL);
	if (fd < 0)
		return t;
	FILE *f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return t;
	}
	struct mp_buf b = { 0 };
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (b.len > MP_READ_FILE_MAX || mp_buf_append(&b, chunk, n)) {
			fclose(f);
			mp_buf_fini(&b);
			return t;
		}
	fclose(f);
	if (mp_buf_append(&b, "", 1)) {
		mp_buf_fini(&b);
		return t;
	}
	len = b.len - 1;
	t->buf = b.data;
	size_t cnt = 0;
	for (size_t i = 0; i < len; i++)
		cnt += t->buf[i] == '\n';
	t->lines = calloc(cnt + 2, sizeof(char *));
	if (!t->lines)
		return t;
	char *p = t->buf;
	while (*p || p < t->buf + len) {
		t->lines[t->n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
		if (p >= t->buf + len)
			break;
	}
	t->ok = 1;
	return t;
}

static const char *src_line(mp_ann *a, const char *file, unsigned line)
{
	if (!file || !line)
		return NULL;
	struct src_text *t = get_src(a, file);
	if (!t || !t->ok || line > t->n)
		return NULL;
	return t->lines[line - 1];
}

/* Append one instruction (counts zero). Returns its index or -1. */
static long add_insn(mp_ann *a, uint32_t dso, uint64_t addr, uint8_t size, const char *text)
{
	if (mp_grow((void **)&a->insns, &a->capinsns, a->ninsns + 1, sizeof(*a->insns)) ||
	    mp_grow((void **)&a->icounts, &a->capicounts, (a->ninsns + 1) * a->nattrs,
		    sizeof(*a->icounts)))
		return -1;
	struct mp_ann_insn *in = &a->insns[a->ninsns];
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->size = size;
	snprintf(in->text, sizeof(in->text), "%s", text);
	memset(&a->icounts[a->ninsns * a->nattrs], 0, a->nattrs * sizeof(*a->icounts));
	(void)dso;
	return (long)a->ninsns++;
}

/* A call or jump to a constant address outside the function [lo, hi): its target named
 * after the operand as objdump does (" <malloc@plt>", " <main+0x1c>") into text (n bytes). */
static void name_target(mp_sym *s, uint32_t dso, const char *mn, const char *op, uint64_t lo,
			uint64_t hi, char *text, size_t n)
{
	int branch = !strncmp(mn, "call", 4) || mn[0] == 'j' || !strcmp(mn, "bl") ||
		     !strcmp(mn, "b") || !strncmp(mn, "b.", 2) || !strcmp(mn, "blx");
	if (!branch)
		return;
	if (*op == '#')
		op++;
	char *end;
	if (strncmp(op, "0x", 2))
		return;
	uint64_t to = strtoull(op, &end, 16);
	if (*end || (to >= lo && to < hi))
		return;
	uint64_t off = 0;
	const char *nm = mp_sym_name_at(s, dso, to, &off);
	size_t len = strlen(text);
	if (!nm || len + 4 >= n)
		return;
	if (off)
		snprintf(text + len, n - len, " <%s+0x%" PRIx64 ">", nm, off);
	else
		snprintf(text + len, n - len, " <%s>", nm);
}

/* Disassemble [start, start+size) of object dso into a, its branches inside it into br.
 * Returns 0, or -1 when there is no code to disassemble (the caller falls back to the
 * sampled addresses). */
static int disassemble(mp_ann *a, mp_sym *s, uint32_t dso, uint64_t start, uint64_t size,
		       struct mp_branches *br)
{
	if (!size || size > (64u << 20))
		return -1;
	uint8_t *code = malloc(size);
	if (!code)
		return -1;
	long got = mp_sym_read_code(s, dso, start, code, size);
	if (got <= 0) {
		free(code);
		return -1;
	}
	int is64 = 0;
	int mach = mp_sym_machine(s, dso, &is64);
	csh cs;
	const struct mp_cs_api *cs_api;
	const char *why;
	if (mp_disasm_open(mach, is64, &cs, &cs_api, &why)) {
		free(code);
		add_note(a, "%s", why);
		return -1;
	}
	cs_insn *insn = cs_api->malloc(cs);
	const uint8_t *p = code;
	size_t left = (size_t)got;
	uint64_t addr = start;
	int rc = 0;
	while (left > 0) {
		const uint8_t *before = p;
		if (cs_api->disasm_iter(cs, &p, &left, &addr, insn)) {
			char text[sizeof(a->insns->text)];
			snprintf(text, sizeof(text), "%s%s%s", insn->mnemonic,
				 insn->op_str[0] ? " " : "", insn->op_str);
			name_target(s, dso, insn->mnemonic, insn->op_str, start, start + size, text,
				    sizeof(text));
			uint64_t to;
			if (add_insn(a, dso, insn->address, (uint8_t)insn->size, text) < 0 ||
			    (mp_disasm_branch_to(insn->mnemonic, insn->op_str, &to) &&
			     mp_branches_add(br, insn->address, to, start, start + size))) {
				rc = -1;
				break;
			}
		} else {
			/* undecodable byte: show it and go on */
			char text[32];
			snprintf(text, sizeof(text), ".byte 0x%02x", *before);
			if (add_insn(a, dso, addr, 1, text) < 0) {
				rc = -1;
				break;
			}
			p = before + 1;
			left--;
			addr++;
		}
	}
	cs_api->free(insn, 1);
	cs_api->close(&cs);
	free(code);
	return rc;
}

struct insn_key {
	const struct mp_ann_insn *v;
	uint64_t addr;
};

static int starts_at_or_before(const void *ctx, size_t i)
{
	const struct insn_key *k = ctx;
	return k->v[i].addr <= k->addr;
}

/* Add the samples of (dso, sym) at each instruction (query per address). */
static int add_counts(mp_ann *a, mp_hist *h, mp_sym *s, const char *dso, const char *sym,
		      uint32_t dso_idx, size_t first_insn, const unsigned char *skid,
		      const struct mp_branches *br)
{
	struct mp_hist_query q = { .keys = MP_HK_ADDR | MP_HK_DSO, .dso = dso, .sym = sym,
				   .sort_by_key = 1 };
	struct mp_hist_result r;
	int rc = mp_hist_query(h, s, &q, &r);
	if (rc)
		return rc;
	for (size_t i = 0; i < r.nrows; i++) {
		const struct mp_hist_row *R = &r.rows[i];
		if (R->dso_idx != dso_idx)
			continue;
		/* the instruction containing the address (samples may point inside one) */
		struct insn_key key = { a->insns, R->elf_addr };
		size_t lo = mp_partition_point(first_insn, a->ninsns, &key, starts_at_or_before);
		long k = -1;
		if (lo > first_insn) {
			const struct mp_ann_insn *in = &a->insns[lo - 1];
			if (R->elf_addr < in->addr + (in->size ? in->size : 1))
				k = (long)lo - 1;
		}
		if (k < 0) {
			/* no code known there: a row of its own, kept in address order */
			k = add_insn(a, dso_idx, R->elf_addr, 0, "(no code available)");
			if (k < 0) {
				mp_hist_result_fini(&r);
				return -ENOMEM;
			}
		}
		int at_start = a->insns[k].addr == R->elf_addr && a->insns[k].size;
		/* a skidding sample's instruction: the loop's closing branch at a loop's head,
		 * else the one before in memory */
		long back = -1;
		uint64_t from = at_start && br ? mp_disasm_came_from(br, R->elf_addr) : 0;
		if (from) {
			struct insn_key fk = { a->insns, from };
			size_t f = mp_partition_point(first_insn, a->ninsns, &fk, starts_at_or_before);
			if (f > first_insn && a->insns[f - 1].addr == from)
				back = (long)f - 1;
		} else if (at_start && (size_t)k > first_insn) {
			back = k - 1;
		}
		for (size_t e = 0; e < a->nattrs; e++) {
			size_t t = (size_t)k;
			if (skid && skid[e] && back >= 0 && R->c[e].samples) {
				t = (size_t)back;
				a->skid_moved = 1;
			}
			a->icounts[t * a->nattrs + e].samples += R->c[e].samples;
			a->icounts[t * a->nattrs + e].period += R->c[e].period;
		}
	}
	mp_hist_result_fini(&r);
	/* keep instructions of this function sorted by address (counts move along) */
	size_t n = a->ninsns - first_insn;
	for (size_t i = first_insn + 1; i < a->ninsns; i++) {
		if (a->insns[i].addr >= a->insns[i - 1].addr)
			continue;
		/* rare: re-sort with a permutation */
		size_t *perm = malloc(n * sizeof(size_t));
		struct mp_ann_insn *ci = malloc(n * sizeof(*ci));
		struct mp_hist_counts *cc = malloc(n * a->nattrs * sizeof(*cc));
		if (!perm || !ci || !cc) {
			free(perm);
			free(ci);
			free(cc);
			return -ENOMEM;
		}
		memcpy(ci, &a->insns[first_insn], n * sizeof(*ci));
		memcpy(cc, &a->icounts[first_insn * a->nattrs], n * a->nattrs * sizeof(*cc));
		/* stash the original index in size's place: sort a copy with indexes */
		for (size_t j = 0; j < n; j++)
			perm[j] = j;
		for (size_t x = 1; x < n; x++) {
			size_t v = perm[x], y = x;
			while (y > 0 && ci[perm[y - 1]].addr > ci[v].addr) {
				perm[y] = perm[y - 1];
				y--;
			}
			perm[y] = v;
		}
		for (size_t j = 0; j < n; j++) {
			a->insns[first_insn + j] = ci[perm[j]];
			memcpy(&a->icounts[(first_insn + j) * a->nattrs], &cc[perm[j] * a->nattrs],
			       a->nattrs * sizeof(*cc));
		}
		free(perm);
		free(ci);
		free(cc);
		break;
	}
	return 0;
}

struct line_key {
	const char *file;
	unsigned line;
	size_t insn;
};

static int line_key_cmp(const void *pa, const void *pb)
{
	const struct line_key *x = pa, *y = pb;
	int c;
	if (x->file != y->file) {
		if (!x->file)
			return 1;
		if (!y->file)
			return -1;
		if ((c = strcmp(x->file, y->file)))
			return c;
	}
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->insn < y->insn ? -1 : x->insn > y->insn;
}

static void sum_lines(mp_ann *a);

/* Build lines from the instructions: main_file lines from lo to hi (all of them, with
 * source), then the other (file, line) pairs that have instructions. file_mode: main_file
 * only, lo..hi = the whole file. */
/* More lines than this without an instruction between two lines of the function's main
 * file: they belong to neither (the other functions between an inlined helper and the
 * function), so they are left out, as perf's annotate shows only the lines of the function
 * and of what is inlined into it. */
#define ANN_GAP 30

/* Of the nmain rows of the main file's range (the first rows of a->lines, then nl - nmain
 * rows of other files), keep those with instructions, the lines between two of them fewer
 * than ANN_GAP apart, and the line above each run (the signature); the rows compacted.
 * Returns the new number of rows. */
static size_t trim_gaps(mp_ann *a, size_t nl, size_t nmain)
{
	size_t w = 0, prev = SIZE_MAX; /* prev: the last main row with instructions */
	for (size_t i = 0; i < nl; i++) {
		int keep = i >= nmain || a->lines[i].ninsns;
		if (i < nmain && !keep) {
			/* the next row with instructions */
			size_t next = i + 1;
			while (next < nmain && !a->lines[next].ninsns)
				next++;
			if (next < nmain && next == i + 1)
				keep = 1; /* the line above a run */
			else if (next < nmain && prev != SIZE_MAX && next - prev <= ANN_GAP)
				keep = 1; /* inside the function */
		}
		if (i < nmain && a->lines[i].ninsns)
			prev = i;
		if (keep)
			a->lines[w++] = a->lines[i];
	}
	return w;
}

static int build_lines(mp_ann *a, const char *main_file, unsigned lo, unsigned hi,
		       double hot_pct, int trim)
{
	size_t ni = a->ninsns, na = a->nattrs;
	struct line_key *keys = malloc((ni + 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < ni; i++)
		keys[i] = (struct line_key){ a->insns[i].srcfile, a->insns[i].line, i };
	qsort(keys, ni, sizeof(*keys), line_key_cmp);
	/* upper bound of lines: the main range plus one per instruction */
	size_t maxl = (hi >= lo && main_file ? (size_t)(hi - lo + 1) : 0) + ni + 1;
	a->lines = calloc(maxl, sizeof(*a->lines));
	a->lcounts = calloc(maxl * na, sizeof(*a->lcounts));
	a->lineinsns = malloc((ni + 1) * sizeof(size_t));
	if (!a->lines || !a->lcounts || !a->lineinsns) {
		free(keys);
		return -ENOMEM;
	}
	size_t nl = 0, nli = 0, k = 0;
	/* main file range */
	if (main_file && hi >= lo) {
		/* skip keys before the main file */
		for (unsigned ln = lo; ln <= hi; ln++) {
			struct mp_ann_line *L = &a->lines[nl];
			L->srcfile = main_file;
			L->line = ln;
			L->text = src_line(a, main_file, ln);
			L->insns = &a->lineinsns[nli];
			nl++;
		}
	}
	/* assign instructions: main-file ones to their row, others to rows of their own */
	while (k < ni) {
		const char *f = keys[k].file;
		unsigned ln = keys[k].line;
		size_t row;
		if (main_file && f && !strcmp(f, main_file) && ln >= lo && ln <= hi) {
			row = ln - lo;
		} else {
			row = nl++;
			struct mp_ann_line *L = &a->lines[row];
			L->srcfile = f;
			L->line = ln;
			L->text = src_line(a, f, ln);
		}
		struct mp_ann_line *L = &a->lines[row];
		L->insns = &a->lineinsns[nli];
		size_t cnt = 0;
		/* one group per file name (two CUs may name the file by two copies) */
		while (k < ni && mp_streq(keys[k].file, f) && keys[k].line == ln) {
			a->lineinsns[nli++] = keys[k].insn;
			cnt++;
			k++;
		}
		L->ninsns = cnt;
	}
	free(keys);
	if (trim && main_file && hi >= lo)
		nl = trim_gaps(a, nl, hi - lo + 1);
	a->nlines = nl;
	a->hot_pct = hot_pct;
	a->b_main = main_file;
	a->b_lo = lo;
	a->b_hi = hi;
	a->b_trim = trim;
	for (size_t i = 0; i < nl; i++)
		a->lines[i].c = &a->lcounts[i * na];
	for (size_t i = 0; i < ni; i++)
		a->insns[i].c = &a->icounts[i * na];
	sum_lines(a);
	return 0;
}

/* Line counts from their instructions' counts, the function's totals, and the hot lines. */
static void sum_lines(mp_ann *a)
{
	size_t na = a->nattrs, nl = a->nlines;
	memset(a->total, 0, na * sizeof(*a->total));
	uint64_t best = 0;
	for (size_t i = 0; i < nl; i++) {
		struct mp_ann_line *L = &a->lines[i];
		struct mp_hist_counts *lc = &a->lcounts[i * na];
		memset(lc, 0, na * sizeof(*lc));
		for (size_t k = 0; k < L->ninsns; k++)
			for (size_t e = 0; e < na; e++) {
				lc[e].samples += a->icounts[L->insns[k] * na + e].samples;
				lc[e].period += a->icounts[L->insns[k] * na + e].period;
			}
		for (size_t e = 0; e < na; e++) {
			a->total[e].samples += lc[e].samples;
			a->total[e].period += lc[e].period;
		}
		if (lc[0].period > best)
			best = lc[0].period;
	}
	for (size_t i = 0; i < nl; i++) {
		uint64_t p = a->lines[i].c[0].period;
		a->lines[i].hot = p && (p == best || (a->hot_pct > 0 && a->total[0].period &&
						      100.0 * (double)p / (double)a->total[0].period >=
							      a->hot_pct));
	}
}

struct insn_ord {
	uint64_t addr;
	size_t i;
};

static int insn_ord_cmp(const void *pa, const void *pb)
{
	const struct insn_ord *x = pa, *y = pb;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Instructions back into address order (with their counts), lines built again. */
static int rebuild_lines(mp_ann *a, struct mp_err *err)
{
	size_t n = a->ninsns, na = a->nattrs;
	struct insn_ord *ord = malloc((n + 1) * sizeof(*ord));
	struct mp_ann_insn *ni = malloc((n + 1) * sizeof(*ni));
	struct mp_hist_counts *nc = malloc((n * na + 1) * sizeof(*nc));
	if (!ord || !ni || !nc) {
		free(ord);
		free(ni);
		free(nc);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = (struct insn_ord){ a->insns[i].addr, i };
	qsort(ord, n, sizeof(*ord), insn_ord_cmp);
	for (size_t i = 0; i < n; i++) {
		ni[i] = a->insns[ord[i].i];
		memcpy(&nc[i * na], &a->icounts[ord[i].i * na], na * sizeof(*nc));
	}
	free(ord);
	free(a->insns);
	free(a->icounts);
	a->insns = ni;
	a->icounts = nc;
	a->capinsns = n + 1;
	a->capicounts = n * na + 1;
	free(a->lines);
	free(a->lcounts);
	free(a->lineinsns);
	a->lines = NULL;
	a->lcounts = NULL;
	a->lineinsns = NULL;
	a->nlines = 0;
	if (build_lines(a, a->b_main, a->b_lo, a->b_hi, a->hot_pct, a->b_trim))
		return mp_err_set(err, -ENOMEM, "out of memory");
	return 0;
}

int mp_ann_add(mp_ann *a, const mp_ann *o, const mp_hist *oh, const size_t *map,
	       struct mp_err *err)
{
	size_t na = a->nattrs;
	if (!o) {
		for (size_t e = 0; e < na; e++)
			if (map[e] < mp_hist_nattrs(oh)) {
				a->evtotal[e].samples += mp_hist_total(oh, map[e])->samples;
				a->evtotal[e].period += mp_hist_total(oh, map[e])->period;
			}
		return 0;
	}
	if (o->info.start != a->info.start || o->info.size != a->info.size)
		return mp_err_set(err, -EXDEV, "%s: another build of %s in this recording (0x%" PRIx64
				  "+%" PRIu64 ", not 0x%" PRIx64 "+%" PRIu64 ")",
				  a->sym ? a->sym : a->srcfile ? a->srcfile : "?",
				  a->dso ? a->dso : "the file", o->info.start, o->info.size,
				  a->info.start, a->info.size);
	/* o's instructions in a's (both in address order); unmatched ones are sampled
	 * addresses of code neither could read, added as rows of their own */
	size_t *to = malloc((o->ninsns + 1) * sizeof(size_t));
	if (!to)
		return mp_err_set(err, -ENOMEM, "out of memory");
	size_t added = 0, n0 = a->ninsns;
	for (size_t i = 0, k = 0; i < o->ninsns; i++) {
		const struct mp_ann_insn *oi = &o->insns[i];
		while (k < n0 && a->insns[k].addr < oi->addr)
			k++;
		if (k < n0 && a->insns[k].addr == oi->addr &&
		    (!a->insns[k].size || !oi->size || a->insns[k].size == oi->size)) {
			to[i] = k;
			continue;
		}
		if (oi->size && n0 && a->insns[0].size) {
			free(to);
			return mp_err_set(err, -EXDEV, "%s: another build of %s in this recording "
					  "(no instruction at 0x%" PRIx64 " here)", a->sym ? a->sym : "?",
					  a->dso ? a->dso : "the file", oi->addr);
		}
		long nk = add_insn(a, 0, oi->addr, oi->size, oi->text);
		if (nk < 0) {
			free(to);
			return mp_err_set(err, -ENOMEM, "out of memory");
		}
		a->insns[nk].srcfile = oi->srcfile;
		a->insns[nk].line = oi->line;
		to[i] = (size_t)nk;
		added++;
	}
	size_t ona = o->nattrs;
	for (size_t e = 0; e < na; e++) {
		size_t oe = map[e];
		if (oe >= ona)
			continue;
		for (size_t i = 0; i < o->ninsns; i++) {
			a->icounts[to[i] * na + e].samples += o->icounts[i * ona + oe].samples;
			a->icounts[to[i] * na + e].period += o->icounts[i * ona + oe].period;
		}
		a->evtotal[e].samples += o->evtotal[oe].samples;
		a->evtotal[e].period += o->evtotal[oe].period;
	}
	a->skid_moved |= o->skid_moved;
	free(to);
	if (added)
		return rebuild_lines(a, err);
	sum_lines(a);
	return 0;
}

static mp_ann *ann_alloc(mp_hist *h)
{
	mp_ann *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->nattrs = mp_hist_nattrs(h);
	a->total = calloc(a->nattrs, sizeof(*a->total));
	a->evtotal = calloc(a->nattrs, sizeof(*a->evtotal));
	if (!a->total || !a->evtotal) {
		mp_ann_free(a);
		return NULL;
	}
	for (size_t e = 0; e < a->nattrs; e++)
		a->evtotal[e] = *mp_hist_total(h, e);
	a->info.nattrs = a->nattrs;
	a->info.total = a->total;
	a->info.evtotal = a->evtotal;
	return a;
}

/* Instructions of one function, with line info and counts, appended to a. */
static int add_function(mp_ann *a, mp_hist *h, mp_sym *s, uint32_t dso_idx, const char *dso,
			const char *sym, uint64_t start, uint64_t size, int *have_code,
			const unsigned char *skid)
{
	size_t first = a->ninsns;
	struct mp_branches br = { 0 };
	*have_code = disassemble(a, s, dso_idx, start, size, &br) == 0 && a->ninsns > first;
	/* without the code the previous instruction is unknown: no correction */
	int rc = add_counts(a, h, s, dso, sym, dso_idx, first, *have_code ? skid : NULL, &br);
	mp_branches_fini(&br);
	if (rc)
		return rc;
	for (size_t i = first; i < a->ninsns; i++) {
		const char *f;
		unsigned ln;
		if (!mp_sym_srcline(s, dso_idx, a->insns[i].addr, &f, &ln)) {
			a->insns[i].srcfile = f;
			a->insns[i].line = ln;
		}
	}
	return 0;
}

/* The object holding sym: the one with the most samples in it, else any that defines it. */
static long find_dso_of(mp_hist *h, mp_sym *s, const char *sym)
{
	struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM, .sym = sym };
	struct mp_hist_result r;
	long found = -1;
	if (!mp_hist_query(h, s, &q, &r)) {
		for (size_t i = 0; i < r.nrows && found < 0; i++)
			if (r.rows[i].sym_resolved && r.rows[i].dso_idx != UINT32_MAX)
				found = r.rows[i].dso_idx;
		mp_hist_result_fini(&r);
	}
	if (found >= 0)
		return found;
	for (size_t i = 0; i < mp_sym_ndsos(s); i++) {
		uint64_t st, sz;
		if (!mp_sym_lookup_name(s, i, sym, &st, &sz))
			return (long)i;
	}
	return -1;
}

int mp_ann_event_skids(const struct perf_event_attr *attr)
{
	switch (attr->type) {
	case PERF_TYPE_SOFTWARE:
		return attr->config == PERF_COUNT_SW_CPU_CLOCK ||
		       attr->config == PERF_COUNT_SW_TASK_CLOCK;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return attr->precise_ip < 2;
	default:
		return attr->type >= PERF_TYPE_MAX && attr->precise_ip < 2; /* PMU types */
	}
}

mp_ann *mp_ann_new(mp_hist *h, mp_sym *s, const char *dso, const char *sym, double hot_pct,
		   struct mp_err *err)
{
	struct mp_ann_opts o = { .hot_pct = hot_pct };
	return mp_ann_new_opts(h, s, dso, sym, &o, err);
}

mp_ann *mp_ann_new_opts(mp_hist *h, mp_sym *s, const char *dso, const char *sym,
			const struct mp_ann_opts *opts, struct mp_err *err)
{
	double hot_pct = opts ? opts->hot_pct : 0;
	const unsigned char *skid = opts ? opts->skid : NULL;
	if (!sym || !*sym) {
		mp_err_set(err, -EINVAL, "no symbol given");
		return NULL;
	}
	if (mp_hist_resolve(h, s, 1)) {
		mp_err_set(err, -ENOMEM, "out of memory resolving symbols");
		return NULL;
	}
	long di;
	if (dso) {
		di = mp_sym_dso_find(s, dso);
		if (di < 0) {
			mp_err_set(err, -ENOENT, "no object '%s' in the recording", dso);
			return NULL;
		}
	} else {
		di = find_dso_of(h, s, sym);
		if (di < 0) {
			mp_err_set(err, -ENOENT, "symbol '%s' not found in any object of the "
				   "recording", sym);
			return NULL;
		}
	}
	const struct mp_sym_dso_info *dinfo = mp_sym_dso(s, (size_t)di, 1);
	uint64_t start = 0, size = 0;
	if (mp_sym_lookup_name(s, (size_t)di, sym, &start, &size)) {
		mp_err_set(err, -ENOENT, "symbol '%s' not found in %s%s", sym, dinfo->name,
			   (dinfo->flags & MP_DSO_SYMTAB) ? "" : " (it has no symbols)");
		return NULL;
	}
	mp_ann *a = ann_alloc(h);
	if (!a || !(a->dso = strdup(dinfo->name)) || !(a->sym = strdup(sym)))
		goto nomem;
	a->info.dso = a->dso;
	a->info.sym = a->sym;
	a->info.start = start;
	a->info.size = size;
	int have_code = 0;
	if (add_function(a, h, s, (uint32_t)di, dinfo->name, sym, start, size, &have_code, skid))
		goto nomem;
	if (a->skid_moved)
		add_note(a, "%s", "samples of skidding events (cpu-clock, imprecise hardware "
			 "events) moved back one instruction (at a loop's head: to its closing "
			 "branch), as report --sort srcline counts them (--no-skid: at the "
			 "sampled address, as perf)");
	if (!have_code)
		add_note(a, "no code for %s: showing the sampled addresses only", dinfo->name);
	/* the function's main file: that of its first instruction with a line */
	const char *main_file = NULL;
	unsigned lo = UINT32_MAX, hi = 0;
	for (size_t i = 0; i < a->ninsns && !main_file; i++)
		main_file = a->insns[i].srcfile;
	for (size_t i = 0; i < a->ninsns; i++)
		if (main_file && a->insns[i].srcfile && !strcmp(a->insns[i].srcfile, main_file)) {
			if (a->insns[i].line < lo)
				lo = a->insns[i].line;
			if (a->insns[i].line > hi)
				hi = a->insns[i].line;
		}
	a->info.has_debuginfo = main_file != NULL;
	if (!main_file) {
		add_note(a, (dinfo->flags & MP_DSO_KERNEL) ? "no source lines for kernel code (%s)"
							   : "no debug info for %s: assembly only",
			 dinfo->name);
	} else {
		if (!(a->srcfile = strdup(main_file)))
			goto nomem;
		a->info.srcfile = a->srcfile;
		/* a line of context above: the signature usually sits there */
		if (lo > 1)
			lo--;
		struct src_text *t = get_src(a, main_file);
		a->info.src_readable = t && t->ok;
		if (!a->info.src_readable)
			add_note(a, "source file %s not readable: assembly only", main_file);
		else if (hi > t->n)
			hi = (unsigned)t->n;
		if (lo > hi)
			lo = hi;
	}
	if (build_lines(a, main_file, lo, hi, hot_pct, 1))
		goto nomem;
	a->info.note = a->note[0] ? a->note : NULL;
	return a;
nomem:
	mp_ann_free(a);
	mp_err_set(err, -ENOMEM, "out of memory annotating %s", sym);
	return NULL;
}

static int file_matches(const char *have, const char *want)
{
	if (!have)
		return 0;
	if (!strcmp(have, want))
		return 1;
	if (strchr(want, '/')) {
		size_t a = strlen(have), b = strlen(want);
		return a > b && have[a - b - 1] == '/' && !strcmp(have + a - b, want);
	}
	const char *base = strrchr(have, '/');
	return base && !strcmp(base + 1, want);
}

/* A function with samples on lines of the annotated file. */
struct file_fn {
	uint32_t dso;
	const char *sym;
};

/* The functions with samples on lines of srcfile (rows of r), each once, in *fns; *full is
 * the file's path as DWARF names it (NULL when no row matches). 0 or -ENOMEM. */
static int file_functions(const struct mp_hist_result *r, const char *srcfile,
			  const char **full, struct file_fn **fns, size_t *nfns)
{
	size_t capfns = 0;

	*full = NULL;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct mp_hist_row *R = &r->rows[i];
		if (!file_matches(R->srcfile, srcfile) || !R->sym_resolved)
			continue;
		if (!*full)
			*full = R->srcfile;
		else if (strcmp(*full, R->srcfile))
			continue; /* the same basename in another directory */
		size_t j;
		for (j = 0; j < *nfns; j++)
			if ((*fns)[j].dso == R->dso_idx && !strcmp((*fns)[j].sym, R->sym))
				break;
		if (j < *nfns)
			continue;
		if (mp_grow((void **)fns, &capfns, *nfns + 1, sizeof(**fns)))
			return -ENOMEM;
		(*fns)[(*nfns)++] = (struct file_fn){ R->dso_idx, R->sym };
	}
	return 0;
}

/* The instructions of those functions, then only those on lines of file full (others are
 * inlined from other files). 0 or -ENOMEM. */
static int add_file_functions(mp_ann *a, mp_hist *h, mp_sym *s, const struct file_fn *fns,
			      size_t nfns, const char *full)
{
	for (size_t j = 0; j < nfns; j++) {
		uint64_t st, sz;
		const struct mp_sym_dso_info *d = mp_sym_dso(s, fns[j].dso, 1);
		if (!a->dso && !(a->dso = strdup(d->name)))
			return -ENOMEM;
		if (mp_sym_lookup_name(s, fns[j].dso, fns[j].sym, &st, &sz))
			continue;
		int have_code;
		if (add_function(a, h, s, fns[j].dso, d->name, fns[j].sym, st, sz, &have_code,
				 NULL))
			return -ENOMEM;
	}
	a->info.dso = a->dso;
	size_t w = 0;
	for (size_t i = 0; i < a->ninsns; i++) {
		if (!a->insns[i].srcfile || strcmp(a->insns[i].srcfile, full))
			continue;
		a->insns[w] = a->insns[i];
		memmove(&a->icounts[w * a->nattrs], &a->icounts[i * a->nattrs],
			a->nattrs * sizeof(*a->icounts));
		w++;
	}
	a->ninsns = w;
	return 0;
}

/* The last line to show of file full: its end when readable, else its last line with
 * code. */
static unsigned file_last_line(mp_ann *a, const char *full)
{
	struct src_text *t = get_src(a, full);
	unsigned hi = 0;

	a->info.src_readable = t && t->ok;
	if (a->info.src_readable)
		return (unsigned)t->n;
	add_note(a, "source file %s not readable: assembly only", full);
	for (size_t i = 0; i < a->ninsns; i++)
		if (a->insns[i].line > hi)
			hi = a->insns[i].line;
	return hi;
}

mp_ann *mp_ann_new_file(mp_hist *h, mp_sym *s, const char *srcfile, double hot_pct,
			struct mp_err *err)
{
	if (mp_hist_resolve(h, s, 1)) {
		mp_err_set(err, -ENOMEM, "out of memory resolving symbols");
		return NULL;
	}
	/* the functions with samples on lines of that file */
	struct mp_hist_query q = { .keys = MP_HK_DSO | MP_HK_SYM | MP_HK_SRCLINE };
	struct mp_hist_result r;
	if (mp_hist_query(h, s, &q, &r)) {
		mp_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	const char *full = NULL;
	struct file_fn *fns = NULL;
	size_t nfns = 0;
	mp_ann *a = ann_alloc(h);
	if (!a || file_functions(&r, srcfile, &full, &fns, &nfns))
		goto nomem;
	if (!full) {
		free(fns);
		mp_hist_result_fini(&r);
		mp_ann_free(a);
		mp_err_set(err, -ENOENT, "no samples on lines of a source file named '%s'",
			   srcfile);
		return NULL;
	}
	if (!(a->srcfile = strdup(full)) || !(a->sym = strdup("")))
		goto nomem;
	a->info.srcfile = a->srcfile;
	a->info.sym = NULL;
	a->info.has_debuginfo = 1;
	if (add_file_functions(a, h, s, fns, nfns, full))
		goto nomem;
	free(fns);
	fns = NULL;
	unsigned hi = file_last_line(a, full);
	mp_hist_result_fini(&r);
	if (build_lines(a, full, 1, hi, hot_pct, 0))
		goto nomem;
	a->info.note = a->note[0] ? a->note : NULL;
	return a;
nomem:
	free(fns);
	mp_hist_result_fini(&r);
	mp_ann_free(a);
	mp_err_set(err, -ENOMEM, "out of memory annotating %s", srcfile);
	return NULL;
}
