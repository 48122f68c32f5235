/* mp_callgraph.c - record --call-graph fp|dwarf[,SIZE]|lbr: the attr bits perf sets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mp_collector.h"

/* perf's PERF_REGS_MASK: the user registers a dwarf sample carries (x86-64 leaves out
 * ds, es, fs and gs; arm64 takes x0..x30, sp and pc). */
#if defined(__x86_64__)
#define CG_REGS_MASK 0xff0fffULL
#elif defined(__aarch64__)
#define CG_REGS_MASK ((1ULL << 33) - 1)
#elif defined(__i386__)
#define CG_REGS_MASK 0xff0fffULL
#else
#define CG_REGS_MASK 0ULL
#endif

int mp_callgraph_parse(const char *s, int *mode, uint32_t *stack_size, struct mp_err *err)
{
	*stack_size = 0;
	if (!strcmp(s, "fp")) {
		*mode = MP_CG_FP;
		return 0;
	}
	if (!strcmp(s, "lbr")) {
		*mode = MP_CG_LBR;
		return 0;
	}
	if (!strncmp(s, "dwarf", 5) && (s[5] == 0 || s[5] == ',')) {
		*mode = MP_CG_DWARF;
		*stack_size = MP_CG_DWARF_DEFAULT_SIZE;
		if (s[5] == ',') {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(s + 6, &end, 0);
			if (errno || end == s + 6 || *end || s[6] == '-' || v == 0 ||
			    v > MP_CG_DWARF_MAX_SIZE) {
				mp_err_set(err, -EINVAL,
					   "--call-graph %s: the stack dump size must be 1..%u bytes", s,
					   MP_CG_DWARF_MAX_SIZE);
				return -EINVAL;
			}
			*stack_size = (uint32_t)((v + 7) & ~7ULL);
		}
		if (!CG_REGS_MASK) {
			mp_err_set(err, -EINVAL, "--call-graph %s: not supported on this architecture", s);
			return -EINVAL;
		}
		return 0;
	}
	mp_err_set(err, -EINVAL, "--call-graph %s: expected fp, dwarf[,SIZE] or lbr", s);
	return -EINVAL;
}

void mp_callgraph_attr(struct perf_event_attr *a, int mode, uint32_t stack_size)
{
	if (mode == MP_CG_NONE)
		return;
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (mode == MP_CG_DWARF) {
		/* perf record: dwarf mode also samples the data address (ADDR, DATA_SRC) */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				  PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
		a->sample_regs_user = CG_REGS_MASK;
		a->sample_stack_user = stack_size ? stack_size : MP_CG_DWARF_DEFAULT_SIZE;
		/* the kernel's user chain is useless without frame pointers: the unwinder
		 * makes it from the stack copy */
		a->exclude_callchain_user = 1;
	} else if (mode == MP_CG_LBR) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES |
					PERF_SAMPLE_BRANCH_NO_FLAGS | PERF_SAMPLE_BRANCH_HW_INDEX;
	}
}
