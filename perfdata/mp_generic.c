/* mp_generic.c - perf's generic event names: hardware, software, hardware cache. The one
 * table: events/ parses and lists them, the analyzer names attrs with them, the simulator
 * maps them to its quantities. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mp_perfdata.h"

#define HW(n, c, d) { n, PERF_TYPE_HARDWARE, c, d }
#define SW(n, c, d) { n, PERF_TYPE_SOFTWARE, c, d }

/* The first name of each config is the one perf prints. */
const struct mp_generic mp_generic_events[] = {
	HW("cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (unhalted)"),
	HW("cpu-cycles", PERF_COUNT_HW_CPU_CYCLES, "CPU cycles (unhalted)"),
	HW("instructions", PERF_COUNT_HW_INSTRUCTIONS, "retired instructions"),
	HW("cache-references", PERF_COUNT_HW_CACHE_REFERENCES, "last-level cache accesses (Intel L3; AMD L2 from DC+IC)"),
	HW("cache-misses", PERF_COUNT_HW_CACHE_MISSES, "last-level cache misses (Intel L3; AMD L2 from DC+IC)"),
	HW("branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "retired branch instructions"),
	HW("branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "retired branch instructions"),
	HW("branch-misses", PERF_COUNT_HW_BRANCH_MISSES, "mispredicted branches"),
	HW("bus-cycles", PERF_COUNT_HW_BUS_CYCLES, "bus cycles"),
	HW("stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end issued nothing"),
	HW("idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "cycles the front end issued nothing"),
	HW("stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end executed nothing"),
	HW("idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "cycles the back end executed nothing"),
	HW("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES, "reference cycles (constant rate, unhalted)"),
	SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK, "CPU time of the task per CPU timer, period in ns"),
	SW("task-clock", PERF_COUNT_SW_TASK_CLOCK, "task run time, period in ns"),
	SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults (minor and major)"),
	SW("faults", PERF_COUNT_SW_PAGE_FAULTS, "page faults (minor and major)"),
	SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"),
	SW("cs", PERF_COUNT_SW_CONTEXT_SWITCHES, "context switches"),
	SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves of the task to another CPU"),
	SW("migrations", PERF_COUNT_SW_CPU_MIGRATIONS, "moves of the task to another CPU"),
	SW("minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN, "page faults served without I/O"),
	SW("major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "page faults that needed I/O"),
	SW("alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS, "unaligned accesses fixed up by the kernel"),
	SW("emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS, "instructions emulated by the kernel"),
	SW("dummy", PERF_COUNT_SW_DUMMY, "counts nothing (carries side-band records)"),
	/* the last NAME_ONLY rows name attrs found in files; memprof does not offer them */
	SW("bpf-output", PERF_COUNT_SW_BPF_OUTPUT, "output of BPF programs"),
	SW("cgroup-switches", PERF_COUNT_SW_CGROUP_SWITCHES, "switches between tasks of different cgroups"),
};
#define NAME_ONLY 2
#define NROWS (sizeof(mp_generic_events) / sizeof(mp_generic_events[0]))
const size_t mp_generic_nevents = NROWS - NAME_ONLY;

/* perf's parse-events.l spellings; the first of each row is the canonical one. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D] = { "L1-dcache", "l1-d", "l1d", "L1-data", NULL },
	[PERF_COUNT_HW_CACHE_L1I] = { "L1-icache", "l1-i", "l1i", "L1-instruction", NULL },
	[PERF_COUNT_HW_CACHE_LL] = { "LLC", "L2", NULL },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB", NULL },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB", NULL },
	[PERF_COUNT_HW_CACHE_BPU] = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node", NULL },
};
static const char *const op_names[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "load", "loads", "read", NULL },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "store", "stores", "write", NULL },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches", "speculative-read",
					      "speculative-load", NULL },
};
static const char *const op_plural[PERF_COUNT_HW_CACHE_OP_MAX] = { "loads", "stores",
								   "prefetches" };
static const char *const result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access", "accesses" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS] = { "misses", "miss", NULL },
};

/* perf's evsel__is_cache_op_valid(): which ops each cache has (bit per op). */
static const unsigned cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = 7, [PERF_COUNT_HW_CACHE_L1I] = 5, [PERF_COUNT_HW_CACHE_LL] = 7,
	[PERF_COUNT_HW_CACHE_DTLB] = 7, [PERF_COUNT_HW_CACHE_ITLB] = 1, [PERF_COUNT_HW_CACHE_BPU] = 1,
	[PERF_COUNT_HW_CACHE_NODE] = 7,
};

int mp_generic_cache_valid(uint64_t config)
{
	unsigned c = config & 0xff, op = (config >> 8) & 0xff;
	return c < PERF_COUNT_HW_CACHE_MAX && op < PERF_COUNT_HW_CACHE_OP_MAX &&
	       (cache_ops[c] >> op & 1);
}

void mp_generic_cache_dims(unsigned *ncache, unsigned *nop, unsigned *nresult)
{
	*ncache = PERF_COUNT_HW_CACHE_MAX;
	*nop = PERF_COUNT_HW_CACHE_OP_MAX;
	*nresult = PERF_COUNT_HW_CACHE_RESULT_MAX;
}

const char *mp_generic_cache_name(uint64_t config, char *buf, size_t len)
{
	unsigned c = config & 0xff, op = (config >> 8) & 0xff, res = (config >> 16) & 0xff;

	if (c >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    res >= PERF_COUNT_HW_CACHE_RESULT_MAX || (config >> 24))
		return NULL;
	if (res == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, len, "%s-%s", cache_names[c][0], op_plural[op]);
	else
		snprintf(buf, len, "%s-%s-misses", cache_names[c][0], op_names[op][0]);
	return buf;
}

/* Match one of names[] as a case-insensitive prefix of s ending at '-' or '\0'. */
static size_t match_word(const char *s, const char *const *names, size_t n)
{
	size_t best = 0;
	for (size_t i = 0; i < n && names[i]; i++) {
		size_t l = strlen(names[i]);
		if (l > best && strncasecmp(s, names[i], l) == 0 && (s[l] == '-' || !s[l]))
			best = l;
	}
	return best;
}

static int cache_lookup(const char *name, uint64_t *config)
{
	for (unsigned c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		size_t l = match_word(name, cache_names[c], 5);
		if (!l)
			continue;
		const char *p = name + l;
		unsigned op = PERF_COUNT_HW_CACHE_OP_READ, res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
		int have_op = 0, have_res = 0;
		while (*p == '-') {
			p++;
			size_t m = 0;
			if (!have_op && !have_res) {
				for (unsigned o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX && !m; o++)
					if ((m = match_word(p, op_names[o], 5)))
						op = o, have_op = 1;
			}
			if (!m && !have_res) {
				for (unsigned r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX && !m; r++)
					if ((m = match_word(p, result_names[r], 5)))
						res = r, have_res = 1;
			}
			if (!m)
				return 0;
			p += m;
		}
		if (*p)
			return 0;
		*config = c | (op << 8) | ((uint64_t)res << 16);
		return 1;
	}
	return 0;
}

int mp_generic_lookup(const char *name, uint32_t *type, uint64_t *config, char *canon,
		      size_t canon_len)
{
	for (size_t i = 0; i < mp_generic_nevents; i++) {
		if (strcmp(name, mp_generic_events[i].name))
			continue;
		*type = mp_generic_events[i].type;
		*config = mp_generic_events[i].config;
		snprintf(canon, canon_len, "%s", name);
		return 1;
	}
	if (cache_lookup(name, config)) {
		*type = PERF_TYPE_HW_CACHE;
		mp_generic_cache_name(*config, canon, canon_len);
		return 1;
	}
	return 0;
}

const char *mp_generic_name(uint32_t type, uint64_t config)
{
	for (size_t i = 0; i < NROWS; i++)
		if (mp_generic_events[i].type == type && mp_generic_events[i].config == config)
			return mp_generic_events[i].name;
	return NULL;
}
