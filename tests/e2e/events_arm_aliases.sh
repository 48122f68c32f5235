#!/bin/bash
# The arm64 rows of events/aliases.tsv and leader sampling, resolved by memprof's events
# module built for aarch64 and run under qemu-aarch64: libpfm4's arm models (arm_n1,
# arm_ac57) exist only in its arm64 build. Expected codes are the Arm PMUv3 event
# numbers (Arm ARM D7.10 / the Neoverse N1 and Cortex-A57 TRMs), not libpfm4's output.
# Env: SRC (source tree), ALIASES_C, PMU_MODELS_C and SIM_EVENTS_C (the generated
# mp_aliases_tsv.c, mp_pmu_models_tsv.c and mp_sim_events_tsv.c of a host build; the
# memprof mem table mp_mem_events_tsv.c is taken from beside the last),
# CC_AARCH64, QEMU_AARCH64, TESTS_DATA.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
die() { echo "FAIL: $*"; exit 1; }
"$CC_AARCH64" -std=c11 -D_GNU_SOURCE -O1 -static -I"$SRC/events/include" -I"$SRC/events" -I"$SRC/perfdata/include" -I"$SRC/util/include" \
	-I"$(dirname "$ALIASES_C")/../perfdata/include" -o "$tmp/probe" \
	"$SRC/tests/e2e/events_arm_probe.c" "$SRC"/events/mp_*.c "$SRC"/perfdata/mp_generic.c "$SRC"/perfdata/mp_note.c "$SRC"/perfdata/mp_sample_layout.c \
	"$SRC/util/mp_util.c" "$ALIASES_C" "$PMU_MODELS_C" "$SIM_EVENTS_C" "$(dirname "$SIM_EVENTS_C")/mp_mem_events_tsv.c" \
	-lpfm -lpthread 2> "$tmp/cc.err" || { cat "$tmp/cc.err"; die "the aarch64 probe does not build"; }
# A sysfs tree with the arm PMU only, as in the pmulab guest.
mkdir -p "$tmp/sys/bus/event_source/devices"
cp -a "$TESTS_DATA/sysfs/bus/event_source/devices/armv8_pmuv3" "$tmp/sys/bus/event_source/devices/"
export MEMPROF_SYSFS_ROOT=$tmp/sys

probe() { # MODEL ARGS...
	local m=$1; shift
	LIBPFM_FORCE_PMU=$m "$QEMU_AARCH64" "$tmp/probe" "$@"
}
expect_line() { # OUTPUT-FILE LINE
	if grep -qxF -- "$2" "$1"; then echo "ok: $2"; else echo "FAIL: no line '$2' in:"; cat "$1"; fail=1; fi
}
expect_sub() { # OUTPUT-FILE SUBSTRING
	if grep -qF -- "$2" "$1"; then echo "ok: ...$2..."; else echo "FAIL: no '$2' in:"; cat "$1"; fail=1; fi
}

# alias spelling, model, type (4 = PERF_TYPE_RAW), PMUv3 code, approx, libpfm name
cat > "$tmp/want" <<'W'
CPU_CLK_UNHALTED arm_n1 4 0x11 0 CPU_CYCLES
INST_RETIRED arm_n1 4 0x8 0 INST_RETIRED
L1D_REPL arm_n1 4 0x3 0 L1D_CACHE_REFILL
ITLB_MISS_RETIRED arm_n1 4 0x2 1 L1I_TLB_REFILL
L1I_MISSES arm_n1 4 0x1 0 L1I_CACHE_REFILL
L1D_CACHE_LD arm_n1 4 0x40 0 L1D_CACHE_RD
L2_LINES_IN arm_n1 4 0x17 0 L2D_CACHE_REFILL
L2_LINES_IN.SELF.DEMAND arm_n1 4 0x17 1 L2D_CACHE_REFILL
CYCLES_L1I_MEM_STALLED arm_n1 4 0x23 1 STALL_FRONTEND
CPU_CLK_UNHALTED arm_ac57 4 0x11 0 CPU_CYCLES
INST_RETIRED arm_ac57 4 0x8 0 INST_RETIRED
L1D_REPL arm_ac57 4 0x3 0 L1D_CACHE_REFILL
ITLB_MISS_RETIRED arm_ac57 4 0x2 1 L1I_TLB_REFILL
L1I_MISSES arm_ac57 4 0x1 0 L1I_CACHE_REFILL
L1D_CACHE_LD arm_ac57 4 0x40 0 L1D_READ_ACCESS
L2_LINES_IN arm_ac57 4 0x17 0 L2D_CACHE_REFILL
L2_LINES_IN.SELF.DEMAND arm_ac57 4 0x17 1 L2D_CACHE_REFILL
W
for m in arm_n1 arm_ac57; do
	specs=$(awk -v m=$m '$2 == m { print $1 }' "$tmp/want")
	# shellcheck disable=SC2086
	probe $m $specs > "$tmp/$m.out" 2>&1
	while read -r spec model type code approx name; do
		[ "$model" = $m ] || continue
		full=$(awk -F'\t' -v a="$spec" -v m=$m '$2 == m && (index($1, a ".") == 1 || $1 == a) { print $1; exit }' "$SRC/events/aliases.tsv")
		expect_line "$tmp/$m.out" "OK $spec type=$type config=$code alias=$full approx=$approx resolved=$m::$name"
	done < "$tmp/want"
	# the same code with the user's modifier, and the model's own name unprefixed
	probe $m L1D_REPL:u CPU_CYCLES > "$tmp/$m.mod" 2>&1
	expect_line "$tmp/$m.mod" "OK L1D_REPL:u type=4 config=0x3 alias=L1D_REPL approx=0 resolved=$m::L1D_CACHE_REFILL:u"
	expect_line "$tmp/$m.mod" "OK CPU_CYCLES type=4 config=0x11 alias=- approx=0 resolved=$m::CPU_CYCLES"
done

# No equivalent: the model is named, and what comes closest.
probe arm_n1 SSE_PRE_MISS L2_IFETCH STORE_BLOCK LOAD_HIT_PRE > "$tmp/none.out" 2>&1
expect_line "$tmp/none.out" "ERR SSE_PRE_MISS event 'SSE_PRE_MISS': model arm_n1 has no equivalent of SSE_PRE_MISS.NTA (no software-prefetch event)"
expect_line "$tmp/none.out" "ERR L2_IFETCH event 'L2_IFETCH': model arm_n1 has no equivalent of L2_IFETCH.SELF.I_STATE (the N1 does not separate instruction-fetch L2 misses); closest: L2D_CACHE_REFILL (0x17: the unified L2 refills, code and data together)"
expect_sub "$tmp/none.out" "ERR STORE_BLOCK event 'STORE_BLOCK': model arm_n1 has no equivalent of STORE_BLOCK.ORDER"
expect_sub "$tmp/none.out" "closest: STALL_BACKEND"
expect_line "$tmp/none.out" "ERR LOAD_HIT_PRE event 'LOAD_HIT_PRE': model arm_n1 has no equivalent of LOAD_HIT_PRE (no load-hit-prefetch event)"
probe arm_ac57 CYCLES_L1I_MEM_STALLED > "$tmp/none57.out" 2>&1
expect_line "$tmp/none57.out" "ERR CYCLES_L1I_MEM_STALLED event 'CYCLES_L1I_MEM_STALLED': model arm_ac57 has no equivalent of CYCLES_L1I_MEM_STALLED (no front-end stall event in libpfm4 for the A57)"

# A model without rows (arm_a64fx, not in pmu_models.tsv): the message says so, not
# 'model perf'. arm_n2 takes arm_n1's rows (the first of its ratio variants with rows).
probe arm_a64fx SSE_PRE_MISS > "$tmp/n2.out" 2>&1
expect_line "$tmp/n2.out" "ERR SSE_PRE_MISS event 'SSE_PRE_MISS': aliases.tsv has no row of SSE_PRE_MISS.NTA for model arm_a64fx, and perf's generic events have no equivalent (generic prefetch events do not separate SW prefetches)"

# The guest's case: the kernel refuses the open (ENOENT = 2) of what the alias maps to.
probe arm_n1 --explain 2 L1D_REPL cache-misses > "$tmp/explain.out" 2>&1
expect_line "$tmp/explain.out" "EXPLAIN L1D_REPL event 'L1D_REPL' (arm_n1::L1D_CACHE_REFILL): the kernel's PMU armv8_pmuv3 does not know this event (No such file or directory), which is what the alias L1D_REPL maps to on model arm_n1 (exact); see memprof list --pmu arm_n1"
expect_line "$tmp/explain.out" "EXPLAIN cache-misses event 'cache-misses': the kernel's PMU armv8_pmuv3 has no mapping for perf's generic event cache-misses (No such file or directory); the events of model arm_n1: memprof list"
probe arm_a64fx --explain 2 L1D_REPL > "$tmp/explain2.out" 2>&1
expect_line "$tmp/explain2.out" "EXPLAIN L1D_REPL event 'L1D_REPL' (L1-dcache-load-misses): the kernel's PMU armv8_pmuv3 does not know this event (No such file or directory): aliases.tsv has no row of L1D_REPL for model arm_a64fx, so perf's generic L1-dcache-load-misses stood in; the model's own events: memprof list --pmu arm_a64fx"
probe arm_n2 --explain 2 L1D_REPL > "$tmp/explain3.out" 2>&1
expect_line "$tmp/explain3.out" "EXPLAIN L1D_REPL event 'L1D_REPL' (arm_n1::L1D_CACHE_REFILL): the kernel's PMU armv8_pmuv3 does not know this event (No such file or directory), which is what the alias L1D_REPL maps to on model arm_n2 (exact); see memprof list --pmu arm_n2"

# Leader sampling with the arm names, as the pmulab guest writes it.
probe arm_n1 '{CPU_CLK_UNHALTED,INST_RETIRED}:S' '{arm_n1::CPU_CYCLES,arm_n1::INST_RETIRED}:u' > "$tmp/group.out" 2>&1
expect_line "$tmp/group.out" "OK CPU_CLK_UNHALTED type=4 config=0x11 alias=CPU_CLK_UNHALTED.CORE approx=0 resolved=arm_n1::CPU_CYCLES"
expect_line "$tmp/group.out" "OK INST_RETIRED type=4 config=0x8 alias=INST_RETIRED.ANY approx=0 resolved=arm_n1::INST_RETIRED"
expect_line "$tmp/group.out" "OK arm_n1::INST_RETIRED:u type=4 config=0x8 alias=- approx=0 resolved=arm_n1::INST_RETIRED:u"
[ $fail = 0 ] && echo "events_arm_aliases: all passed"
exit $fail
