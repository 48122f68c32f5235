/* mp_sim.c - memprof record --sim: a simulated PMU. The workload runs under valgrind's
 * callgrind (cache and branch simulation); its per-instruction counts become a perf.data
 * file whose samples carry each address's exact count as their period.
 *
 * The parsers for callgrind's output and valgrind's log are in mp_sim_cg.c.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mp_sim.h"

/* ---- events ------------------------------------------------------------------------- */

#define Q(x) (1u << MP_SIM_##x)
#define HWC(c, op, res) ((uint64_t)PERF_COUNT_HW_CACHE_##c | \
			 ((uint64_t)PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			 ((uint64_t)PERF_COUNT_HW_CACHE_RESULT_##res << 16))

struct sim_alias {
	const char *names; /* spellings separated by '|' */
	uint32_t mask;     /* 0: refused, see why */
	uint32_t type;
	uint64_t config;
	const char *why;
};

/* The article's Core 2 names map to what the simulator counts where that is honest; the
 * simulator has no prefetcher, so every line brought in is a demand miss. Core 2's
 * BR_INST_RETIRED also counts direct jumps and calls, which callgrind does not
 * simulate (they cannot mispredict): branches here are conditional + indirect. */
static const struct sim_alias sim_aliases[] = {
	/* callgrind's own quantities, by its names (the "cachegrind" variants of the ratio
	 * definitions are written in these) */
	{ "Ir", Q(IR), PERF_TYPE_RAW, 0, NULL },
	{ "Dr", Q(DR), PERF_TYPE_RAW, 0, NULL },
	{ "Dw", Q(DW), PERF_TYPE_RAW, 0, NULL },
	{ "I1mr", Q(I1MR), PERF_TYPE_RAW, 0, NULL },
	{ "D1mr", Q(D1MR), PERF_TYPE_RAW, 0, NULL },
	{ "D1mw", Q(D1MW), PERF_TYPE_RAW, 0, NULL },
	{ "ILmr", Q(ILMR), PERF_TYPE_RAW, 0, NULL },
	{ "DLmr", Q(DLMR), PERF_TYPE_RAW, 0, NULL },
	{ "DLmw", Q(DLMW), PERF_TYPE_RAW, 0, NULL },
	{ "Bc", Q(BC), PERF_TYPE_RAW, 0, NULL },
	{ "Bcm", Q(BCM), PERF_TYPE_RAW, 0, NULL },
	{ "Bi", Q(BI), PERF_TYPE_RAW, 0, NULL },
	{ "Bim", Q(BIM), PERF_TYPE_RAW, 0, NULL },
	/* the article's Core 2 events (and libpfm4's names for them) */
	{ "INST_RETIRED|INST_RETIRED.ANY|INST_RETIRED.ANY_P|INSTRUCTION_RETIRED|INSTRUCTIONS_RETIRED", Q(IR), PERF_TYPE_RAW, 0, NULL },
	{ "L1D_REPL|L1D_REPL.ANY", Q(D1MR) | Q(D1MW), PERF_TYPE_RAW, 0, NULL },
	{ "L1I_MISSES", Q(I1MR), PERF_TYPE_RAW, 0, NULL },
	{ "L2_LINES_IN|L2_LINES_IN.SELF|L2_LINES_IN.SELF.ANY|L2_LINES_IN.ANY|L2_LINES_IN.SELF.DEMAND|L2_LINES_IN.DEMAND|L2_LINES_IN.SELF.EXCL_PREFETCH",
	  Q(ILMR) | Q(DLMR) | Q(DLMW), PERF_TYPE_RAW, 0, NULL },
	{ "L2_IFETCH.SELF.I_STATE|L2_IFETCH.I_STATE", Q(ILMR), PERF_TYPE_RAW, 0, NULL },
	{ "L2_IFETCH|L2_IFETCH.SELF|L2_IFETCH.SELF.MESI", Q(I1MR), PERF_TYPE_RAW, 0, NULL },
	{ "L1D_CACHE_LD|L1D_CACHE_LD.MESI", Q(DR), PERF_TYPE_RAW, 0, NULL },
	{ "L1D_CACHE_ST|L1D_CACHE_ST.MESI", Q(DW), PERF_TYPE_RAW, 0, NULL },
	{ "L1D_ALL_REF|L1D_ALL_CACHE_REF", Q(DR) | Q(DW), PERF_TYPE_RAW, 0, NULL },
	{ "BR_INST_RETIRED|BR_INST_RETIRED.ANY|BR_INST_EXEC|BR_INST_EXEC.ANY", Q(BC) | Q(BI), PERF_TYPE_RAW, 0, NULL },
	{ "BR_INST_RETIRED.MISPRED|BR_MISSP_EXEC|BR_INST_RETIRED_MISPRED|BR_MISP_RETIRED|BR_MISP_RETIRED.ALL_BRANCHES",
	  Q(BCM) | Q(BIM), PERF_TYPE_RAW, 0, NULL },
	{ "BR_CND_EXEC", Q(BC), PERF_TYPE_RAW, 0, NULL },
	{ "BR_CND_MISSP_EXEC", Q(BCM), PERF_TYPE_RAW, 0, NULL },
	{ "BR_IND_EXEC", Q(BI), PERF_TYPE_RAW, 0, NULL },
	{ "BR_IND_MISSP_EXEC", Q(BIM), PERF_TYPE_RAW, 0, NULL },
	/* perf's generic names */
	{ "instructions", Q(IR), PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, NULL },
	{ "branches|branch-instructions", Q(BC) | Q(BI), PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, NULL },
	{ "branch-misses", Q(BCM) | Q(BIM), PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, NULL },
	{ "cache-references", Q(I1MR) | Q(D1MR) | Q(D1MW), PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, NULL },
	{ "cache-misses", Q(ILMR) | Q(DLMR) | Q(DLMW), PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, NULL },
	{ "L1-dcache-loads", Q(DR), PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS), NULL },
	{ "L1-dcache-load-misses", Q(D1MR), PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), NULL },
	{ "L1-dcache-stores", Q(DW), PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, ACCESS), NULL },
	{ "L1-dcache-store-misses", Q(D1MW), PERF_TYPE_HW_CACHE, HWC(L1D, WRITE, MISS), NULL },
	{ "L1-icache-load-misses", Q(I1MR), PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS), NULL },
	{ "LLC-loads", Q(D1MR), PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS), NULL },
	{ "LLC-load-misses", Q(DLMR), PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), NULL },
	{ "LLC-stores", Q(D1MW), PERF_TYPE_HW_CACHE, HWC(LL, WRITE, ACCESS), NULL },
	{ "LLC-store-misses", Q(DLMW), PERF_TYPE_HW_CACHE, HWC(LL, WRITE, MISS), NULL },
	/* what the simulator cannot give */
	{ "cycles|cpu-cycles|ref-cycles|bus-cycles|UNHALTED_CORE_CYCLES|UNHALTED_REFERENCE_CYCLES|CPU_CLK_UNHALTED|CPU_CLK_UNHALTED.CORE|CPU_CLK_UNHALTED.CORE_P|CPU_CLK_UNHALTED.BUS|CPU_CLK_UNHALTED.REF|CPU_CLK_UNHALTED.THREAD|CPU_CLK_UNHALTED.THREAD_P",
	  0, 0, 0, "the simulator has no timing model: it counts instructions, cache and branch events, not cycles" },
	{ "CYCLES_L1I_MEM_STALLED|stalled-cycles-frontend|stalled-cycles-backend|idle-cycles-frontend|idle-cycles-backend|RESOURCE_STALLS|RESOURCE_STALLS.ANY",
	  0, 0, 0, "the simulator has no pipeline model, so it cannot count stall cycles" },
	{ "ITLB_MISS_RETIRED|ITLB_MISSES|ITLB.MISS_RETIRED|ITLB.MISSES|DTLB_MISSES|DTLB_MISSES.ANY|DTLB_MISSES.MISS_LD|iTLB-loads|iTLB-load-misses|dTLB-loads|dTLB-load-misses|dTLB-stores|dTLB-store-misses",
	  0, 0, 0, "the simulator has no TLB model" },
	{ "SSE_PRE_MISS|SSE_PRE_MISS.NTA|SSE_PRE_MISS.L1|SSE_PRE_MISS.L2|SSE_PRE_EXEC|SSE_PRE_EXEC.NTA|SSE_PRE_EXEC.L1|SSE_PRE_EXEC.L2|SSS_PRE_EXEC.NTA|LOAD_HIT_PRE|L1D_PREFETCH|L1D_PREFETCH.REQUESTS|L2_LINES_IN.SELF.PREFETCH|L2_LINES_IN.PREFETCH|L1-dcache-prefetches|L1-dcache-prefetch-misses|L1-icache-prefetches",
	  0, 0, 0, "the simulator has no prefetch model (it ignores prefetch instructions and has no hardware prefetcher)" },
	{ "STORE_BLOCK|STORE_BLOCK.ORDER|STORE_BLOCK.SNOOP|LOAD_BLOCK|LOAD_BLOCK.L1D|LOAD_BLOCK.STA|LOAD_BLOCK.STD|LOAD_BLOCK.OVERLAP_STORE|LOAD_BLOCK.UNTIL_RETIRE",
	  0, 0, 0, "the simulator has no model of load and store blocking" },
	{ "cpu-clock|task-clock|page-faults|faults|minor-faults|major-faults|context-switches|cs|cpu-migrations|migrations|alignment-faults|emulation-faults",
	  0, 0, 0, "a software event, which the kernel counts for real: record it without --sim" },
};

/* What each of callgrind's quantities counts (enum mp_sim_quantity order). */
static const char *const sim_quantity_desc[MP_SIM_NQ] = {
	"instructions executed",
	"data reads (loads)",
	"data writes (stores)",
	"L1 instruction cache read misses",
	"L1 data cache read misses",
	"L1 data cache write misses",
	"last-level cache instruction read misses (this machine's L2 by default)",
	"last-level cache data read misses",
	"last-level cache data write misses",
	"conditional branches executed",
	"conditional branches mispredicted",
	"indirect branches executed",
	"indirect branches mispredicted",
};

/* A pattern as memprof list takes it: a case-insensitive substring (globs: their
 * literal prefix up to the first '*' or '?'). */
static int sim_list_match(const char *name, const char *pat)
{
	char lit[128];
	size_t n = 0;
	if (!pat || !*pat)
		return 1;
	while (pat[n] && pat[n] != '*' && pat[n] != '?' && n + 1 < sizeof(lit)) {
		lit[n] = pat[n];
		n++;
	}
	lit[n] = 0;
	return !n || strcasestr(name, lit) != NULL;
}

int mp_sim_list(FILE *f, const char *pattern)
{
	int n = 0;
	for (int q = 0; q < MP_SIM_NQ; q++)
		n += sim_list_match(mp_sim_quantity_name(q), pattern);
	for (size_t i = 0; i < sizeof(sim_aliases) / sizeof(sim_aliases[0]); i++)
		n += sim_list_match(sim_aliases[i].names, pattern);
	if (!n)
		return 0;
	fprintf(f, "\nSimulated events (memprof record --sim: valgrind's callgrind, exact counts, "
		   "no PMU needed; memprof list --pmu cachegrind lists only these):\n");
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (sim_list_match(mp_sim_quantity_name(q), pattern))
			fprintf(f, "  %-28s %s\n", mp_sim_quantity_name(q), sim_quantity_desc[q]);
	fprintf(f, "  Also by these names (each the sum of the quantities after '='):\n");
	for (size_t i = 0; i < sizeof(sim_aliases) / sizeof(sim_aliases[0]); i++) {
		const struct sim_alias *a = &sim_aliases[i];
		char first[128];
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(a->names, "|"), a->names);
		int own = 0; /* callgrind's own names are listed above */
		for (int q = 0; q < MP_SIM_NQ; q++)
			own |= !strcasecmp(first, mp_sim_quantity_name(q));
		if (own || !a->mask || !sim_list_match(a->names, pattern))
			continue;
		fprintf(f, "  %-28s =", first);
		int plus = 0;
		for (int q = 0; q < MP_SIM_NQ; q++)
			if (a->mask & (1u << q)) {
				fprintf(f, "%s%s", plus ? "+" : " ", mp_sim_quantity_name(q));
				plus = 1;
			}
		fputc('\n', f);
	}
	fprintf(f, "  Not simulated (record them on a PMU, or without --sim):\n");
	for (size_t i = 0; i < sizeof(sim_aliases) / sizeof(sim_aliases[0]); i++) {
		const struct sim_alias *a = &sim_aliases[i];
		if (a->mask || !sim_list_match(a->names, pattern))
			continue;
		fprintf(f, "  %.*s...: %s\n", (int)strcspn(a->names, "|"), a->names, a->why);
	}
	return ferror(f) ? -EIO : n;
}

static const char *sim_offer =
	"callgrind's Ir, Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw, Bc, Bcm, Bi, Bim; INST_RETIRED, L1D_REPL, L1I_MISSES, L2_LINES_IN, L2_IFETCH.SELF.I_STATE, L1D_CACHE_LD, "
	"L1D_CACHE_ST, BR_INST_RETIRED, BR_MISSP_EXEC, BR_CND_EXEC, BR_IND_EXEC, instructions, "
	"branches, branch-misses, cache-references, cache-misses, L1-dcache-loads, "
	"L1-dcache-load-misses, L1-icache-load-misses, LLC-loads, LLC-load-misses";

/* Find name among the '|'-separated spellings; the matched spelling goes to out. */
static int alias_match(const char *names, const char *name, char *out, size_t outlen)
{
	size_t n = strlen(name);
	for (const char *s = names; *s;) {
		const char *e = strchr(s, '|');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == n && !strncasecmp(s, name, n)) {
			snprintf(out, outlen, "%.*s", (int)len, s);
			return 1;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

static void mask_formula(uint32_t mask, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (mask & (1u << q))
			o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "+" : "",
					      mp_sim_quantity_name(q));
}

/* Look name up in the table; NULL when unknown. */
static const struct sim_alias *alias_find(const char *name, char *canon, size_t len)
{
	for (size_t i = 0; i < sizeof(sim_aliases) / sizeof(sim_aliases[0]); i++)
		if (alias_match(sim_aliases[i].names, name, canon, len))
			return &sim_aliases[i];
	return NULL;
}

/* Modifiers after the name: perf's ":u" letters, or oprofile's COUNT:UNITMASK:KERNEL:USER
 * (the count is ignored: simulated counts are exact). Sets *user = 0 when user-space
 * counting is off. */
static int parse_mods(const char *spec, char *mods, int *user, int *kernel_only,
		      struct mp_err *err)
{
	*user = 1;
	*kernel_only = 0;
	if (!mods[0])
		return 0;
	if (mods[0] >= '0' && mods[0] <= '9') {
		char *f[4] = { 0 }, *save;
		int nf = 0;
		for (char *t = strtok_r(mods, ":", &save); t && nf < 4; t = strtok_r(NULL, ":", &save))
			f[nf++] = t;
		if (nf == 4 && !strcmp(f[3], "0"))
			*user = 0, *kernel_only = strcmp(f[2], "0") != 0;
		return 0;
	}
	for (const char *m = mods; *m; m++)
		if (!strchr("ukphHGIDSP", *m))
			return mp_err_set(err, -MP_EPARSE, "event '%s': unknown modifier '%c'", spec, *m);
	if (strchr(mods, 'k') && !strchr(mods, 'u'))
		*user = 0, *kernel_only = 1;
	return 0;
}

int mp_sim_event_parse(const char *spec, struct mp_sim_event *ev, struct mp_err *err)
{
	char name[256], mods[256] = "";
	const struct sim_alias *a = NULL;

	memset(ev, 0, sizeof(*ev));
	while (*spec == ' ')
		spec++;
	snprintf(ev->spec, sizeof(ev->spec), "%s", spec);
	size_t sl = strlen(ev->spec);
	while (sl && ev->spec[sl - 1] == ' ')
		ev->spec[--sl] = 0;
	if (!sl)
		return mp_err_set(err, -MP_EPARSE, "empty event name in the event list");
	if (strchr(ev->spec, '/') || strchr(ev->spec, '{'))
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': raw PMU events and groups are not simulated; "
				  "--sim takes the events it can simulate: %s", ev->spec, sim_offer);
	/* The longest prefix of ':'-separated fields that names an event wins, with ':'
	 * read as '.', so that libpfm's L2_LINES_IN:SELF:ANY is the article's
	 * L2_LINES_IN.SELF.ANY; what follows are modifiers. */
	snprintf(name, sizeof(name), "%s", ev->spec);
	for (;;) {
		char dotted[256];
		snprintf(dotted, sizeof(dotted), "%s", name);
		for (char *c = dotted; *c; c++)
			if (*c == ':')
				*c = '.';
		if ((a = alias_find(dotted, ev->name, sizeof(ev->name))))
			break;
		char *last = strrchr(name, ':');
		if (!last)
			break;
		*last = 0;
	}
	if (!a) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(ev->spec, ":"), ev->spec);
		return mp_err_set(err, -MP_ENOTSUP, "event '%s': not an event the simulator counts; "
				  "--sim offers %s", ev->spec, sim_offer);
	}
	if (ev->spec[strlen(name)] == ':')
		snprintf(mods, sizeof(mods), "%s", ev->spec + strlen(name) + 1);
	int user, kernel_only, rc;
	if ((rc = parse_mods(ev->spec, mods, &user, &kernel_only, err)))
		return rc;
	if (!a->mask)
		return mp_err_set(err, -MP_ENOTSUP, "event '%s': cannot be simulated: %s", ev->spec,
				  a->why);
	if (!user)
		return mp_err_set(err, -MP_ENOTSUP,
				  "event '%s': the simulator sees only user-space code, so it cannot "
				  "count %s", ev->spec,
				  kernel_only ? "kernel-only events" : "with user counting off");
	ev->mask = a->mask;
	ev->type = a->type;
	ev->config = a->type == PERF_TYPE_RAW ? a->mask : a->config;
	mask_formula(ev->mask, ev->formula, sizeof(ev->formula));
	return 0;
}

int mp_sim_events_parse(const char *list, struct mp_sim_event **out, size_t *n,
			struct mp_err *err)
{
	struct mp_sim_event *evs = NULL;
	size_t ne = 0;
	const char *s = list;

	*out = NULL;
	*n = 0;
	if (!list || !*list)
		return mp_err_set(err, -MP_EPARSE, "empty event list");
	for (;;) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		char one[256];
		if (len >= sizeof(one)) {
			free(evs);
			return mp_err_set(err, -MP_EPARSE, "event '%.40s...': name too long", s);
		}
		snprintf(one, sizeof(one), "%.*s", (int)len, s);
		struct mp_sim_event *nn = realloc(evs, (ne + 1) * sizeof(*nn));
		if (!nn) {
			free(evs);
			return mp_err_set(err, -ENOMEM, "out of memory");
		}
		evs = nn;
		int rc = mp_sim_event_parse(one, &evs[ne], err);
		if (rc) {
			free(evs);
			return rc;
		}
		for (size_t i = 0; i < ne; i++)
			if (!strcmp(evs[i].name, evs[ne].name)) {
				mp_err_set(err, -MP_EPARSE, "event '%s' is given twice", evs[ne].spec);
				free(evs);
				return -MP_EPARSE;
			}
		ne++;
		if (!e)
			break;
		s = e + 1;
	}
	*out = evs;
	*n = ne;
	return 0;
}

/* ---- objects: where the samples' addresses live ------------------------------------- */

struct sim_seg {
	uint64_t start, len, pgoff; /* the MMAP2 record */
};

struct sim_obj {
	const char *path;
	uint64_t bias;
	int elf_ok;
	struct sim_seg segs[8];
	int nsegs;
	struct stat st;
};

/* The executable PT_LOAD segments of a 64-bit ELF file, page-aligned as the kernel maps
 * them, so that ip -> (start, pgoff) -> file offset -> ELF vaddr holds for symbolizers. */
static int elf_exec_segments(const char *path, struct sim_obj *o, uint16_t *etype)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	int rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &o->st) || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256)
		goto out;
	*etype = eh.e_type;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	for (unsigned i = 0; i < eh.e_phnum && o->nsegs < 8; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != (ssize_t)sizeof(ph))
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		uint64_t start = ph.p_vaddr & ~(pg - 1);
		uint64_t end = (ph.p_vaddr + ph.p_memsz + pg - 1) & ~(pg - 1);
		o->segs[o->nsegs].start = start;
		o->segs[o->nsegs].len = end - start;
		o->segs[o->nsegs].pgoff = ph.p_offset & ~(pg - 1);
		o->nsegs++;
	}
	rc = o->nsegs ? 0 : -1;
out:
	close(fd);
	return rc;
}

/* ---- perf.data records -------------------------------------------------------------- */

struct sim_sample {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, id, period;
};

static int write_comm(mp_pdw *w, uint32_t pid, const char *comm)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[24];
	} r;
	memset(&r, 0, sizeof(r));
	r.h.type = PERF_RECORD_COMM;
	r.h.misc = PERF_RECORD_MISC_COMM_EXEC;
	r.pid = r.tid = pid;
	snprintf(r.comm, 16, "%s", comm); /* the kernel's TASK_COMM_LEN */
	size_t len = 8 + 8 + ((strlen(r.comm) + 1 + 7) & ~(size_t)7);
	r.h.size = (uint16_t)len;
	return mp_pdw_write(w, &r, len);
}

static int write_mmap2(mp_pdw *w, uint32_t pid, const struct sim_obj *o, const struct sim_seg *s)
{
	size_t flen = strlen(o->path) + 1;
	size_t len = sizeof(struct perf_event_header) + 4 + 4 + 8 * 3 + 4 + 4 + 8 + 8 + 4 + 4 +
		     ((flen + 7) & ~(size_t)7);
	if (len > 65535)
		return 0; /* a path longer than a record can hold: its samples stay unresolved */
	uint8_t *r = calloc(1, len), *p = r;
	if (!r)
		return -ENOMEM;
	struct perf_event_header h = { PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)len };
	uint32_t u32;
	uint64_t u64;
#define PUT(v) (memcpy(p, &(v), sizeof(v)), p += sizeof(v))
	PUT(h);
	PUT(pid);
	PUT(pid);
	u64 = o->bias + s->start; PUT(u64);
	PUT(s->len);
	PUT(s->pgoff);
	u32 = major(o->st.st_dev); PUT(u32);
	u32 = minor(o->st.st_dev); PUT(u32);
	u64 = o->st.st_ino; PUT(u64);
	u64 = 0; PUT(u64); /* ino_generation */
	u32 = PROT_READ | PROT_EXEC; PUT(u32);
	u32 = MAP_PRIVATE; PUT(u32);
#undef PUT
	memcpy(p, o->path, flen);
	int rc = mp_pdw_write(w, r, len);
	free(r);
	return rc;
}

static const char *basename_of(const char *s)
{
	const char *b = strrchr(s, '/');
	return b ? b + 1 : s;
}

static void geom_str(const struct mp_sim_cache *c, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ",%u,%u", c->size, c->assoc, c->line);
}

/* Every quantity the events sum must be in the callgrind output. */
static int sim_check_quantities(const struct mp_sim_opts *o, const mp_sim_profile *p,
				struct mp_err *err)
{
	for (size_t i = 0; i < o->nevents; i++)
		for (int q = 0; q < MP_SIM_NQ; q++)
			if ((o->events[i].mask & (1u << q)) && !mp_sim_profile_has(p, q))
				return mp_err_set(err, -MP_ENOTSUP,
						  "event '%s': the callgrind output has no %s counts",
						  o->events[i].spec, mp_sim_quantity_name(q));
	return 0;
}

/* Where each object of the profile lives: valgrind's load bias, its executable segments. */
static void sim_place_objects(const mp_sim_profile *p, const struct mp_sim_load *loads,
			      size_t nloads, struct sim_obj *objs, size_t nobj)
{
	uint64_t synth = 0x7f0000000000ULL;
	for (size_t i = 0; i < nobj; i++) {
		struct sim_obj *so = &objs[i];
		uint16_t etype = 0;
		int found = 0;
		so->path = mp_sim_profile_obj(p, i);
		for (size_t k = 0; k < nloads; k++)
			if (!strcmp(loads[k].path, so->path)) {
				so->bias = loads[k].bias;
				found = 1;
				break;
			}
		/* "???" (addresses callgrind could not place, already absolute) and objects we
		 * cannot read get no MMAP2: their samples stay unresolved, but counted. */
		if (so->path[0] != '/' || elf_exec_segments(so->path, so, &etype)) {
			so->nsegs = 0;
			continue;
		}
		so->elf_ok = 1;
		/* Without valgrind's word on it, a position-independent object goes to a
		 * synthetic base; MMAP2 and sample IPs agree on it. */
		if (!found && etype == ET_DYN) {
			so->bias = synth;
			synth += 1ULL << 32;
		}
	}
}

/* One attr per event (id 1000 + i); the first carries mmap/comm. */
static int sim_add_attrs(const struct mp_sim_opts *o, mp_pdw *w, uint64_t *ids, int *attr_idx,
			 struct mp_err *err)
{
	for (size_t i = 0; i < o->nevents; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = o->events[i].type;
		a.config = o->events[i].config;
		a.sample_period = 1;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				PERF_SAMPLE_PERIOD;
		if (o->callgraph)
			a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
				PERF_FORMAT_ID;
		a.disabled = 1;
		a.enable_on_exec = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		/* The counts belong to the very instruction that caused them: zero skid, so
		 * that annotators do not move them back an instruction as for interrupts. */
		a.precise_ip = 3;
		if (i == 0) {
			a.mmap = 1;
			a.comm = 1;
			a.mmap2 = 1;
			a.comm_exec = 1;
		}
		ids[i] = 1000 + i;
		attr_idx[i] = mp_pdw_add_attr(w, &a, &ids[i], 1, o->events[i].name, o->events[i].spec);
		if (attr_idx[i] < 0)
			return mp_err_set(err, attr_idx[i], "%s: cannot add event '%s': %s",
					  o->output, o->events[i].name, mp_strerror(attr_idx[i]));
	}
	return 0;
}

/* COMM of the workload (argv[0]'s basename, else the profile's cmd: line) and MMAP2 per
 * executable segment of every object. */
static int sim_write_tasks(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w,
			   const struct sim_obj *objs, size_t nobj, int several)
{
	uint32_t pid = mp_sim_profile_pid(p);
	char comm[256];
	int rc;
	if (o->argv && o->argv[0] && !several)
		snprintf(comm, sizeof(comm), "%s", basename_of(o->argv[0]));
	else {
		const char *cmd = mp_sim_profile_cmd(p);
		while (*cmd == ' ')
			cmd++;
		snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(cmd, " "), cmd);
		memmove(comm, basename_of(comm), strlen(basename_of(comm)) + 1);
	}
	if ((rc = write_comm(w, pid, comm)))
		return rc;
	for (size_t i = 0; i < nobj; i++)
		for (int s = 0; s < objs[i].nsegs; s++)
			if ((rc = write_mmap2(w, pid, &objs[i], &objs[i].segs[s])))
				return rc;
	return 0;
}

/* ---- call chains from callgrind's call graph (record --sim -g) ----
 *
 * callgrind gives each function's self cost per instruction and, per call site, the call's
 * inclusive cost; not whole stacks. A cost of function F is spread over F's callers in
 * proportion to their calls' inclusive cost of the same event, and so on up to a function
 * nobody calls (as gprof and callgrind_annotate --tree do): exact wherever a function has
 * one caller, and the parts of a cost always add up to the cost. */

#define SIM_CG_MAX_DEPTH 127
#define SIM_CG_MAX_PATHS 64

struct sim_cg {
	const mp_sim_profile *p;
	const struct sim_obj *objs;
	size_t *in_first, *in_next; /* incoming calls of each function: a linked list */
	size_t nfns;
};

struct sim_path {
	double w;
	size_t n;
	uint64_t ips[SIM_CG_MAX_DEPTH];
};

struct sim_paths {
	struct sim_path *v;
	size_t n;
	uint32_t mask; /* the event's quantities */
};

static uint64_t call_value(const struct mp_sim_call *c, uint32_t mask)
{
	uint64_t v = 0;
	for (int q = 0; q < MP_SIM_NQ; q++)
		if (mask & (1u << q))
			v += c->v[q];
	return v;
}

static void sim_paths_add(struct sim_paths *ps, const struct sim_path *cur)
{
	if (ps->n < SIM_CG_MAX_PATHS) {
		ps->v[ps->n++] = *cur;
		return;
	}
	/* full: the lightest path gives way, its weight goes to the heaviest kept */
	size_t lo = 0, hi;
	for (size_t i = 1; i < ps->n; i++)
		if (ps->v[i].w < ps->v[lo].w)
			lo = i;
	hi = lo ? 0 : 1;
	for (size_t i = 0; i < ps->n; i++)
		if (i != lo && ps->v[i].w > ps->v[hi].w)
			hi = i;
	if (cur->w > ps->v[lo].w) {
		ps->v[hi].w += ps->v[lo].w;
		ps->v[lo] = *cur;
	} else {
		ps->v[hi].w += cur->w;
	}
}

/* Walk from function fn (its frame already in cur) up through its callers. onpath marks
 * the functions of cur (recursion ends a path). */
static void sim_paths_up(const struct sim_cg *g, struct sim_paths *ps, struct sim_path *cur,
			 uint32_t fn, unsigned char *onpath)
{
	const struct mp_sim_call *calls = mp_sim_profile_calls(g->p);
	uint64_t total = 0;
	if (fn < g->nfns && cur->n < SIM_CG_MAX_DEPTH)
		for (size_t e = g->in_first[fn]; e != SIZE_MAX; e = g->in_next[e])
			if (calls[e].caller < g->nfns && !onpath[calls[e].caller])
				total += call_value(&calls[e], ps->mask);
	if (!total) {
		sim_paths_add(ps, cur);
		return;
	}
	double w = cur->w;
	for (size_t e = g->in_first[fn]; e != SIZE_MAX; e = g->in_next[e]) {
		const struct mp_sim_call *c = &calls[e];
		uint64_t v = c->caller < g->nfns && !onpath[c->caller] ? call_value(c, ps->mask) : 0;
		if (!v)
			continue;
		cur->w = w * (double)v / (double)total;
		if (cur->w < w * 1e-9)
			continue;
		cur->ips[cur->n++] = g->objs[c->obj].bias + c->addr;
		onpath[c->caller] = 1;
		sim_paths_up(g, ps, cur, c->caller, onpath);
		onpath[c->caller] = 0;
		cur->n--;
	}
	cur->w = w;
}

/* The cost v split over the paths in proportion to their weights, the parts summing to v.
 * carry[] holds each path's rounding error from the function's previous cost lines (the
 * lines of one function come one after the other, with the same paths), so that what a
 * path gets over the whole function is its exact share to within one. */
static void sim_paths_split(const struct sim_paths *ps, uint64_t v, uint64_t *part,
			    double *carry)
{
	double tw = 0;
	uint64_t given = 0;
	for (size_t i = 0; i < ps->n; i++)
		tw += ps->v[i].w;
	for (size_t i = 0; i < ps->n; i++) {
		double x = (tw > 0 ? (double)v * ps->v[i].w / tw : 0) + carry[i];
		part[i] = x > 0 ? (uint64_t)x : 0;
		if (part[i] > v - given)
			part[i] = v - given;
		given += part[i];
		carry[i] = x;
	}
	while (given < v) {
		size_t best = 0;
		for (size_t i = 1; i < ps->n; i++)
			if (carry[i] - (double)part[i] > carry[best] - (double)part[best])
				best = i;
		part[best]++;
		given++;
	}
	for (size_t i = 0; i < ps->n; i++)
		carry[i] -= (double)part[i];
}

static int sim_write_sample(mp_pdw *w, uint64_t ip, uint32_t pid, uint64_t t, uint64_t id,
			    uint64_t period, const struct sim_path *path)
{
	struct sim_sample s = {
		.h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) },
		.ip = ip, .pid = pid, .tid = pid, .time = t, .id = id, .period = period,
	};
	if (!path)
		return mp_pdw_write(w, &s, sizeof(s));
	uint64_t buf[sizeof(s) / 8 + 2 + SIM_CG_MAX_DEPTH];
	size_t nr = 1 + path->n; /* PERF_CONTEXT_USER, then the frames (leaf = ip) */
	s.h.size = (uint16_t)(sizeof(s) + 8 * (1 + nr));
	memcpy(buf, &s, sizeof(s));
	size_t k = sizeof(s) / 8;
	buf[k++] = nr;
	buf[k++] = (uint64_t)PERF_CONTEXT_USER;
	for (size_t i = 0; i < path->n; i++)
		buf[k++] = path->ips[i];
	return mp_pdw_write(w, buf, 8 * k);
}

/* One sample per (cost line, event) with a non-zero sum (with -g, one per caller path of
 * the cost's function, the parts summing to the cost), written by process (the exact totals: sim_write_counts). */
static int sim_write_samples(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w,
			     const struct sim_obj *objs, const uint64_t *ids, uint64_t *totals,
			     uint64_t *time, struct mp_sim_result *res)
{
	const struct mp_sim_cost *costs = mp_sim_profile_costs(p);
	size_t nc = mp_sim_profile_ncosts(p);
	uint32_t pid = mp_sim_profile_pid(p);
	uint64_t t = *time;
	int rc = 0;
	struct sim_cg g = { .p = p, .objs = objs, .nfns = mp_sim_profile_nfns(p) };
	struct sim_paths ps = { 0 };
	struct sim_path *cur = NULL;
	unsigned char *onpath = NULL;
	uint64_t *part = NULL;
	double *carry = NULL;       /* [nevents][SIM_CG_MAX_PATHS] */
	uint32_t *carry_fn = NULL;  /* [nevents]: the function carry[] is about */
	if (o->callgraph) {
		size_t ncalls = mp_sim_profile_ncalls(p);
		const struct mp_sim_call *calls = mp_sim_profile_calls(p);
		g.in_first = malloc((g.nfns ? g.nfns : 1) * sizeof(*g.in_first));
		g.in_next = malloc((ncalls ? ncalls : 1) * sizeof(*g.in_next));
		ps.v = malloc(SIM_CG_MAX_PATHS * sizeof(*ps.v));
		cur = malloc(sizeof(*cur));
		onpath = calloc(g.nfns ? g.nfns : 1, 1);
		part = malloc(SIM_CG_MAX_PATHS * sizeof(*part));
		carry = calloc(o->nevents * SIM_CG_MAX_PATHS, sizeof(*carry));
		carry_fn = malloc(o->nevents * sizeof(*carry_fn));
		if (!g.in_first || !g.in_next || !ps.v || !cur || !onpath || !part || !carry ||
		    !carry_fn) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t f = 0; f < g.nfns; f++)
			g.in_first[f] = SIZE_MAX;
		for (size_t i = 0; i < o->nevents; i++)
			carry_fn[i] = UINT32_MAX - 1;
		for (size_t e = ncalls; e-- > 0;) {
			uint32_t callee = calls[e].callee;
			g.in_next[e] = SIZE_MAX;
			if (callee < g.nfns) {
				g.in_next[e] = g.in_first[callee];
				g.in_first[callee] = e;
			}
		}
	}
	for (size_t c = 0; c < nc; c++, t++, *time = t) {
		uint64_t ip = objs[costs[c].obj].bias + costs[c].addr;
		for (size_t i = 0; i < o->nevents; i++) {
			uint64_t v = 0;
			for (int q = 0; q < MP_SIM_NQ; q++)
				if (o->events[i].mask & (1u << q))
					v += costs[c].v[q];
			if (!v)
				continue;
			totals[i] += v;
			if (!o->callgraph) {
				if ((rc = sim_write_sample(w, ip, pid, t, ids[i], v, NULL)))
					goto out;
				res->samples++;
				continue;
			}
			ps.n = 0;
			ps.mask = o->events[i].mask;
			cur->w = 1;
			cur->n = 1;
			cur->ips[0] = ip;
			uint32_t fn = costs[c].fn;
			if (fn < g.nfns)
				onpath[fn] = 1;
			sim_paths_up(&g, &ps, cur, fn, onpath);
			if (fn < g.nfns)
				onpath[fn] = 0;
			double *cy = carry + i * SIM_CG_MAX_PATHS;
			if (carry_fn[i] != fn) {
				memset(cy, 0, SIM_CG_MAX_PATHS * sizeof(*cy));
				carry_fn[i] = fn;
			}
			sim_paths_split(&ps, v, part, cy);
			for (size_t k = 0; k < ps.n; k++) {
				if (!part[k])
					continue;
				if ((rc = sim_write_sample(w, ip, pid, t, ids[i], part[k], &ps.v[k])))
					goto out;
				res->samples++;
			}
		}
	}
out:
	free(g.in_first);
	free(g.in_next);
	free(ps.v);
	free(cur);
	free(onpath);
	free(part);
	free(carry);
	free(carry_fn);
	return rc;
}

/* The exact totals, summed over the processes. */
static int sim_write_counts(const struct mp_sim_opts *o, mp_pdw *w, const uint64_t *ids,
			    const int *attr_idx, const uint64_t *totals)
{
	int rc;
	for (size_t i = 0; i < o->nevents; i++)
		if ((rc = mp_pdw_add_counts(w, attr_idx[i], ids[i], totals[i], 1, 1)))
			return rc;
	return 0;
}

/* memprof's meta keys ("simulated", "sim.*") and the host features. */
static int sim_write_meta(const struct mp_sim_opts *o, const mp_sim_profile *p, mp_pdw *w)
{
	const struct mp_sim_geometry *g = mp_sim_profile_geometry(p);
	char buf[128];
	int rc = mp_pdw_set_meta(w, MP_META_SIMULATED, "callgrind");
	if (!rc && g->i1.size)
		geom_str(&g->i1, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_I1, buf);
	if (!rc && g->d1.size)
		geom_str(&g->d1, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_D1, buf);
	if (!rc && g->ll.size)
		geom_str(&g->ll, buf, sizeof(buf)), rc = mp_pdw_set_meta(w, MP_META_SIM_LL, buf);
	if (!rc && mp_sim_profile_creator(p)[0])
		rc = mp_pdw_set_meta(w, MP_META_SIM_VALGRIND, mp_sim_profile_creator(p));
	for (size_t i = 0; !rc && i < o->nevents; i++) {
		char key[96];
		snprintf(key, sizeof(key), MP_META_SIM_EVENT "%s", o->events[i].name);
		rc = mp_pdw_set_meta(w, key, o->events[i].formula);
	}
	if (rc)
		return rc;
	mp_pdw_set_host_features(w);
	if (o->argc_all && o->argv_all)
		mp_pdw_set_cmdline(w, o->argc_all, o->argv_all);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	mp_pdw_set_nrcpus(w, ncpu > 0 ? (uint32_t)ncpu : 1, ncpu > 0 ? (uint32_t)ncpu : 1);
	return 0;
}

/* One process's COMM, MMAP2s and samples. */
static int sim_write_process(const struct mp_sim_opts *o, const mp_sim_profile *p,
			     const struct mp_sim_load *loads, size_t nloads, mp_pdw *w,
			     const uint64_t *ids, uint64_t *totals, uint64_t *time, int several,
			     struct mp_sim_result *res)
{
	size_t nobj = mp_sim_profile_nobjs(p);
	struct sim_obj *objs = calloc(nobj ? nobj : 1, sizeof(*objs));
	int rc;
	if (!objs)
		return -ENOMEM;
	sim_place_objects(p, loads, nloads, objs, nobj);
	rc = sim_write_tasks(o, p, w, objs, nobj, several);
	if (!rc)
		rc = sim_write_samples(o, p, w, objs, ids, totals, time, res);
	free(objs);
	return rc;
}

int mp_sim_write_procs(const struct mp_sim_opts *o, const struct mp_sim_proc *procs, size_t n,
		       struct mp_sim_result *res, struct mp_err *err)
{
	uint64_t *ids = calloc(o->nevents ? o->nevents : 1, sizeof(*ids));
	uint64_t *totals = calloc(o->nevents ? o->nevents : 1, sizeof(*totals));
	int *attr_idx = calloc(o->nevents ? o->nevents : 1, sizeof(*attr_idx));
	mp_pdw *w = NULL;
	uint64_t time = 1000000;
	int rc = 0;

	res->totals = NULL;
	res->samples = 0;
	if (!ids || !totals || !attr_idx || !n) {
		rc = mp_err_set(err, n ? -ENOMEM : -EINVAL, n ? "out of memory" : "no process");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if ((rc = sim_check_quantities(o, procs[k].profile, err)))
			goto out;
	if (!(w = mp_pdw_create(o->output, err))) {
		rc = err && err->code ? err->code : -EIO;
		goto out;
	}
	mp_pdw_set_read_pid(w, (pid_t)mp_sim_profile_pid(procs[0].profile));
	if ((rc = sim_add_attrs(o, w, ids, attr_idx, err)))
		goto out;
	for (size_t k = 0; k < n && !rc; k++)
		rc = sim_write_process(o, procs[k].profile, procs[k].loads, procs[k].nloads, w, ids,
				       totals, &time, n > 1, res);
	if (!rc)
		rc = sim_write_counts(o, w, ids, attr_idx, totals);
	if (!rc)
		rc = sim_write_meta(o, procs[0].profile, w);
	if (rc) {
		mp_err_set(err, rc, "%s: %s", o->output, mp_strerror(rc));
		goto out;
	}
	rc = mp_pdw_close(w, err);
	w = NULL;
	if (rc)
		goto out;
	res->totals = totals;
	totals = NULL;
out:
	if (w)
		mp_pdw_abort(w);
	free(ids);
	free(totals);
	free(attr_idx);
	return rc;
}

int mp_sim_write(const struct mp_sim_opts *o, const mp_sim_profile *p,
		 const struct mp_sim_load *loads, size_t nloads, struct mp_sim_result *res,
		 struct mp_err *err)
{
	struct mp_sim_proc one = { p, loads, nloads };
	return mp_sim_write_procs(o, &one, 1, res, err);
}

/* ---- running valgrind --------------------------------------------------------------- */

/* Find prog in PATH (or as given when it has a '/'); path gets the file. */
static int find_exec(const char *prog, char *path, size_t len)
{
	if (strchr(prog, '/')) {
		snprintf(path, len, "%s", prog);
		return access(path, X_OK) ? -errno : 0;
	}
	const char *env = getenv("PATH");
	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	int rc = -ENOENT;
	for (const char *s = env;;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		snprintf(path, len, "%.*s/%s", (int)n, n ? s : ".", prog);
		struct stat st;
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			if (!access(path, X_OK))
				return 0;
			rc = -EACCES;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return rc;
}

/* The first line of valgrind's log that says what went wrong. */
static void log_error_line(const char *log, char *buf, size_t len)
{
	FILE *f = fopen(log, "r");
	char line[512];
	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "rror") || strstr(line, "annot") || strstr(line, "valgrind:")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, len, "%s", line);
			break;
		}
	}
	fclose(f);
}

static int copy_file(const char *from, const char *to, struct mp_err *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return mp_err_set(err, -errno, "%s: %s", from, strerror(errno));
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		rc = mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = mp_err_set(err, -EIO, "%s: write error", to);
			goto out;
		}
	if (n < 0)
		rc = mp_err_set(err, -errno, "%s: %s", from, strerror(errno));
out:
	close(in);
	if (out >= 0 && close(out) && !rc)
		rc = mp_err_set(err, -errno, "%s: %s", to, strerror(errno));
	return rc;
}

/* The files of one valgrind run, in a private temporary directory. */
struct sim_run {
	char vg[4096], dir[4096], cg[4200], log[4200], optcg[4300], optlog[4300];
	char geo[3][64];
};

/* valgrind's command line followed by the workload's; malloc'd (free()), NULL on ENOMEM. */
static char **sim_valgrind_argv(const struct mp_sim_opts *o, struct sim_run *sr)
{
	const char *argv_vg[32 + 1];
	int n = 0;
	snprintf(sr->optcg, sizeof(sr->optcg), "--callgrind-out-file=%s.%%p", sr->cg);
	snprintf(sr->optlog, sizeof(sr->optlog), "--log-file=%s.%%p", sr->log);
	argv_vg[n++] = sr->vg;
	argv_vg[n++] = "--tool=callgrind";
	argv_vg[n++] = "--cache-sim=yes";
	argv_vg[n++] = "--branch-sim=yes";
	argv_vg[n++] = "--dump-instr=yes";
	/* a shell wrapper's programs too: one output and one log per process (%p) */
	argv_vg[n++] = "--trace-children=yes";
	const struct mp_sim_cache *cs[3] = { &o->geom.i1, &o->geom.d1, &o->geom.ll };
	static const char *const opt[3] = { "--I1", "--D1", "--LL" };
	for (int i = 0; i < 3; i++)
		if (cs[i]->size) {
			snprintf(sr->geo[i], sizeof(sr->geo[i]), "%s=%" PRIu64 ",%u,%u", opt[i],
				 cs[i]->size, cs[i]->assoc, cs[i]->line);
			argv_vg[n++] = sr->geo[i];
		}
	argv_vg[n++] = sr->optcg;
	argv_vg[n++] = sr->optlog;
	argv_vg[n++] = "-v"; /* twice: "svma ..., avma ..." says where objects were loaded */
	argv_vg[n++] = "-v";
	size_t na = 0;
	while (o->argv[na])
		na++;
	char **full = calloc((size_t)n + na + 1, sizeof(*full));
	if (!full)
		return NULL;
	for (int i = 0; i < n; i++)
		full[i] = (char *)argv_vg[i];
	for (size_t i = 0; i < na; i++)
		full[n + i] = o->argv[i];
	return full;
}

/* Run valgrind and wait for it, forwarding one Ctrl-C. res gets its status. */
static int sim_run_valgrind(const struct mp_sim_opts *o, const struct sim_run *sr, char **full,
			    struct mp_sim_result *res, struct mp_err *err)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return mp_err_set(err, -errno, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int rc = mp_err_set(err, -errno, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (pid == 0) {
		close(pfd[0]);
		execv(sr->vg, full);
		int e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	int exec_errno = 0;
	ssize_t got;
	while ((got = read(pfd[0], &exec_errno, sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	int status = 0, forwarded = 0;
	/* poll, so that a long simulation can say it is still going */
	unsigned every = o->progress ? o->progress_every : 0, next = every;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return mp_err_set(err, -errno, "waitpid: %s", strerror(errno));
		if (o->stop && *o->stop && !forwarded) {
			kill(pid, SIGINT);
			forwarded = 1;
		}
		struct timespec ts = { 0, 100000000 }; /* 0.1 s */
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		unsigned el = (unsigned)(now.tv_sec - t0.tv_sec);
		if (every && el >= next) {
			o->progress(o->progress_ctx, el);
			next = el + every;
		}
	}
	if (got == (ssize_t)sizeof(exec_errno))
		return mp_err_set(err, -exec_errno, "%s: cannot run: %s", sr->vg,
				  strerror(exec_errno));
	res->workload_started = 1;
	res->workload_status = status;
	return 0;
}

/* The pids of the callgrind outputs in sr->dir (callgrind.out.PID), ascending: the
 * workload first, then its children. malloc'd; *n their number. */
static int sim_output_pids(const struct sim_run *sr, uint32_t **pids, size_t *n)
{
	DIR *d = opendir(sr->dir);
	size_t cap = 0;
	*pids = NULL;
	*n = 0;
	if (!d)
		return -errno;
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned long pid;
		char *end;
		if (strncmp(e->d_name, "callgrind.out.", 14))
			continue;
		pid = strtoul(e->d_name + 14, &end, 10);
		if (*end || !pid)
			continue;
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			uint32_t *np = realloc(*pids, nc * sizeof(**pids));
			if (!np) {
				closedir(d);
				return -ENOMEM;
			}
			*pids = np;
			cap = nc;
		}
		(*pids)[(*n)++] = (uint32_t)pid;
	}
	closedir(d);
	for (size_t i = 1; i < *n; i++) /* few: insertion sort */
		for (size_t j = i; j > 0 && (*pids)[j - 1] > (*pids)[j]; j--) {
			uint32_t t = (*pids)[j];
			(*pids)[j] = (*pids)[j - 1];
			(*pids)[j - 1] = t;
		}
	return 0;
}

static void sim_procs_free(struct mp_sim_proc *procs, size_t n)
{
	for (size_t k = 0; procs && k < n; k++) {
		mp_sim_profile_free((mp_sim_profile *)procs[k].profile);
		mp_sim_loads_free((struct mp_sim_load *)procs[k].loads, procs[k].nloads);
	}
	free(procs);
}

/* callgrind's outputs and valgrind's logs of a finished run (one per process) into the
 * perf.data file. */
static int sim_convert(const struct mp_sim_opts *o, const struct sim_run *sr,
		       struct mp_sim_result *res, struct mp_err *err)
{
	int rc, status = res->workload_status;
	uint32_t *pids = NULL;
	size_t np = 0;
	char cg[4300], log[4300];
	if ((rc = sim_output_pids(sr, &pids, &np)))
		return mp_err_set(err, rc, "%s: %s", sr->dir, mp_strerror(rc));
	if (!np) {
		char why[400] = "";
		DIR *d = opendir(sr->dir);
		struct dirent *e;
		while (d && (e = readdir(d)) && !why[0])
			if (!strncmp(e->d_name, "valgrind.log.", 13)) {
				snprintf(log, sizeof(log), "%s/%s", sr->dir, e->d_name);
				log_error_line(log, why, sizeof(why));
			}
		if (d)
			closedir(d);
		free(pids);
		return mp_err_set(err, -EIO, "valgrind wrote no callgrind output (%s %d)%s%s",
				  WIFSIGNALED(status) ? "killed by signal" : "exit status",
				  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
				  why[0] ? ": " : "", why);
	}
	struct mp_sim_proc *procs = calloc(np, sizeof(*procs));
	if (!procs) {
		free(pids);
		return mp_err_set(err, -ENOMEM, "out of memory");
	}
	rc = 0;
	for (size_t k = 0; k < np && !rc; k++) {
		snprintf(cg, sizeof(cg), "%s.%u", sr->cg, pids[k]);
		snprintf(log, sizeof(log), "%s.%u", sr->log, pids[k]);
		struct mp_sim_load *loads = NULL;
		struct mp_err lerr = { 0 };
		size_t nw = 0;
		if (mp_sim_read_log(log, &loads, &nw, &lerr))
			mp_log(MP_LOG_WARN, "%s (objects go to synthetic addresses)", lerr.msg);
		procs[k].loads = loads;
		procs[k].nloads = nw;
		procs[k].profile = mp_sim_profile_read(cg, err);
		if (!procs[k].profile)
			rc = err->code ? err->code : -MP_EFORMAT;
		else if (o->keep_callgrind && *o->keep_callgrind) {
			/* one process: FILE; several: FILE.PID each */
			char keep[4300];
			snprintf(keep, sizeof(keep), np > 1 ? "%s.%u" : "%s", o->keep_callgrind,
				 pids[k]);
			rc = copy_file(cg, keep, err);
		}
	}
	if (!rc && np > 1) {
		/* say what was simulated: every process, by name */
		char who[512] = "";
		for (size_t k = 0; k < np; k++) {
			const char *cmd = mp_sim_profile_cmd(procs[k].profile);
			char first[256];
			while (*cmd == ' ')
				cmd++;
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(cmd, " "), cmd);
			size_t len = strlen(who);
			snprintf(who + len, sizeof(who) - len, "%s%s (%u)", k ? ", " : "",
				 basename_of(first), pids[k]);
		}
		snprintf(res->procs, sizeof(res->procs), "%s", who);
	}
	res->nprocs = np;
	if (!rc)
		rc = mp_sim_write_procs(o, procs, np, res, err);
	sim_procs_free(procs, np);
	free(pids);
	return rc;
}

/* Remove the run's directory and what valgrind left in it. */
static void sim_run_clean(const struct sim_run *sr)
{
	DIR *d = opendir(sr->dir);
	struct dirent *e;
	char path[4400];
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", sr->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(sr->dir);
}

int mp_sim_record(const struct mp_sim_opts *o, struct mp_sim_result *res, struct mp_err *err)
{
	struct sim_run *sr = calloc(1, sizeof(*sr));
	char prog[4096];
	int rc;

	memset(res, 0, sizeof(*res));
	if (!sr)
		return mp_err_set(err, -ENOMEM, "out of memory");
	if (!o->argv || !o->argv[0])
		rc = mp_err_set(err, -EINVAL, "record --sim needs a workload to run");
	else if (!o->nevents)
		rc = mp_err_set(err, -EINVAL, "record --sim: no events");
	else if (find_exec(o->valgrind ? o->valgrind : "valgrind", sr->vg, sizeof(sr->vg)))
		rc = mp_err_set(err, -MP_ENOTSUP, "%s: not found in PATH: record --sim runs the "
				"workload under valgrind (Debian/Ubuntu package 'valgrind')",
				o->valgrind ? o->valgrind : "valgrind");
	else if ((rc = find_exec(o->argv[0], prog, sizeof(prog))))
		rc = mp_err_set(err, rc, "cannot run '%s': %s", o->argv[0], strerror(-rc));
	else
		rc = 0;
	if (rc) {
		free(sr);
		return rc;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(sr->dir, sizeof(sr->dir), "%s/memprof-sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sr->dir)) {
		rc = mp_err_set(err, -errno, "%s: cannot create a directory: %s", sr->dir,
				strerror(errno));
		free(sr);
		return rc;
	}
	snprintf(sr->cg, sizeof(sr->cg), "%s/callgrind.out", sr->dir);
	snprintf(sr->log, sizeof(sr->log), "%s/valgrind.log", sr->dir);
	/* valgrind writes FILE.PID per process (--trace-children) */
	char **full = sim_valgrind_argv(o, sr);
	if (!full)
		rc = mp_err_set(err, -ENOMEM, "out of memory");
	else if (!(rc = sim_run_valgrind(o, sr, full, res, err)))
		rc = sim_convert(o, sr, res, err);
	sim_run_clean(sr);
	free(full);
	free(sr);
	return rc;
}

/* Name the options among g->source: "sysfs and --D1", or "--I1, --D1, --LL" alone. */
static void geometry_source_options(struct mp_sim_geometry *g, const char *i1, const char *d1,
				    const char *ll)
{
	char opts[32] = "";
	const char *given[3] = { i1, d1, ll }, *names[3] = { "--I1", "--D1", "--LL" };
	for (int i = 0; i < 3; i++)
		if (given[i])
			snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s",
				 opts[0] ? ", " : "", names[i]);
	if (!opts[0])
		return;
	if (i1 && d1 && ll)
		g->source[0] = 0;
	size_t o = strlen(g->source);
	snprintf(g->source + o, sizeof(g->source) - o, "%s%s", o ? " and " : "", opts);
}

int mp_sim_setup(const char *events, const char *i1, const char *d1, const char *ll,
		 const char *cache_dir, struct mp_sim_event **evs, size_t *nevs,
		 struct mp_sim_geometry *g, struct mp_err *warn, struct mp_err *err)
{
	struct mp_err herr = { 0 };
	int rc;

	*evs = NULL;
	*nevs = 0;
	if (warn)
		warn->code = 0, warn->msg[0] = 0;
	mp_sim_host_geometry(cache_dir, g, &herr);
	if ((i1 && (rc = mp_sim_parse_cache("--I1", i1, &g->i1, err))) ||
	    (d1 && (rc = mp_sim_parse_cache("--D1", d1, &g->d1, err))) ||
	    (ll && (rc = mp_sim_parse_cache("--LL", ll, &g->ll, err))))
		return rc;
	if (herr.msg[0] && (!g->i1.size || !g->d1.size || !g->ll.size) && warn)
		snprintf(warn->msg, sizeof(warn->msg), "%s", herr.msg);
	geometry_source_options(g, i1, d1, ll);
	return mp_sim_events_parse(events ? events : MP_SIM_DEFAULT_EVENTS, evs, nevs, err);
}
