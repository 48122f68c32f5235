/* mp_sim_events.c - the events record --sim can give: callgrind's quantities, the
 * article's Core 2 names and perf's generic names mapped to sums of them, the events the
 * simulator refuses (and why), `memprof list --sim`, and event specs with modifiers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
