#!/bin/bash
# Ratios on Arm recordings (issue 30, point 1): files written with known samples
# (tests/ratios_mkdata) under Arm event names, read on this x86 host, where libpfm4 has no
# arm tables: the PMUv3 common events of events/pmu_models.tsv bind the armv8 and arm_n1
# variants of article.ratios/common.ratios. Also the models chosen from an arm64 MIDR, and
# forced Arm models (LIBPFM_FORCE_PMU, --pmu) for --record-cmd, which must say so.
set -u
: "${MEMPROF:?}" "${MKDATA:?}"
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
fail=0
err() { echo "FAIL $*"; fail=1; }
near() { awk -v v="$1" -v w="$2" 'BEGIN { exit !(v != "" && v - w < 1e-6 && w - v < 1e-6) }'; }
# csv field FIELD of the row of ratio RATIO at program level
field() { # CSVFILE RATIO FIELD
	awk -F, -v r="$2" -v f="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == r && $3 == "program" { print $c[f]; exit }' "$1"
}
# One process, one symbol-less address; PERIOD each: 300 cycle samples of 1000 and 200
# instruction samples of 1000 (IPC 200/300), 40 refills of 100 (L1D Miss Rate 4000/200000).
mk() { # OUT CPUID CYCLES-NAME CYCLES-CODE INST-NAME INST-CODE [REFILL-NAME]
	{
		echo "cpuid $2"
		echo "cmdline memprof record -e $3,$5 -- /bin/true"
		echo "attr $3 4 $4 1000"
		echo "attr $5 4 $6 1000"
		[ -n "${7:-}" ] && echo "attr $7 4 3 100"
		echo "comm 4242 spin"
		echo "sample 0 4242 401000 300"
		echo "sample 1 4242 401000 200"
		[ -n "${7:-}" ] && echo "sample 2 4242 401000 40"
	} | "$MKDATA" "$1" || err "mkdata $1"
}
# 1. libpfm4 names of the Neoverse N1, as the PMU lab guest records them (MIDR of qemu's
# neoverse-n1): IPC and the article's L1D Miss Rate.
mk "$T/n1.data" 0x00000000414fd0c1 arm_n1::CPU_CYCLES 11 arm_n1::INST_RETIRED 8 arm_n1::L1D_CACHE_REFILL
"$MEMPROF" ratios -i "$T/n1.data" --csv > "$T/n1.csv" 2> "$T/n1.err" || err "ratios n1: $(cat "$T/n1.err")"
v=$(field "$T/n1.csv" IPC value); m=$(field "$T/n1.csv" IPC model)
near "$v" 0.6666667 && [ "$m" = armv8 ] && echo "ok: arm_n1 recording: IPC $v ($m)" || err "arm_n1 IPC '$v' model '$m' (want 0.666667 armv8): $(cat "$T/n1.csv" "$T/n1.err")"
v=$(field "$T/n1.csv" L1D_MISS_RATE value)
near "$v" 0.02 && echo "ok: arm_n1 L1D Miss Rate $v" || err "arm_n1 L1D Miss Rate '$v' (want 0.02)"
grep -q "^# file: .* model: arm_n1" <("$MEMPROF" ratios -i "$T/n1.data" IPC 2>&1) && echo "ok: model arm_n1 named" || err "model arm_n1 not named"
# 2. Raw PMUv3 codes on a Cortex-A72 (Graviton's MIDR, as the shared fixture has it): the
# model comes from the MIDR and the armv8 variant binds r11/r08.
mk "$T/a72.data" 0x00000000410fd080 r11 11 r8 8
"$MEMPROF" ratios -i "$T/a72.data" --csv IPC > "$T/a72.csv" 2>&1 || err "ratios a72"
v=$(field "$T/a72.csv" IPC value)
near "$v" 0.6666667 && echo "ok: raw codes on a Cortex-A72: IPC $v" || err "A72 raw IPC '$v': $(cat "$T/a72.csv")"
grep -q "model: arm_ac72" <("$MEMPROF" ratios -i "$T/a72.data" IPC 2>&1) && echo "ok: MIDR 0x410fd080 is arm_ac72" || err "MIDR 0x410fd080 not arm_ac72"
# 3. Apple: perf's generic events only.
mk "$T/apple.data" 0x00000000611f0220 cycles 0 instructions 1
"$MEMPROF" ratios -i "$T/apple.data" IPC > "$T/apple.out" 2>&1
grep -q "model: apple" "$T/apple.out" && echo "ok: an Apple MIDR is model apple" || err "Apple MIDR: $(cat "$T/apple.out")"
# 4. Forced Arm models on this x86 host: the commands name the Arm events, and stderr says
# that libpfm4 has no such table here (never a silent fall back to the host's model).
for m in arm_n1 arm_v1 arm_n2 arm_ac76; do
	LIBPFM_FORCE_PMU=$m "$MEMPROF" ratios --record-cmd > "$T/$m.cmd" 2> "$T/$m.err" || err "$m record-cmd"
	grep -q "arm_n1::STALL_FRONTEND" "$T/$m.cmd" && grep -q "armv8::L1D_CACHE_REFILL" "$T/$m.cmd" &&
		echo "ok: LIBPFM_FORCE_PMU=$m: Arm record commands" || err "$m: $(cat "$T/$m.cmd")"
	grep -q "LIBPFM_FORCE_PMU=$m: libpfm4 here has no $m table" "$T/$m.err" &&
		echo "ok: LIBPFM_FORCE_PMU=$m says so" || err "$m silent: $(cat "$T/$m.err")"
done
"$MEMPROF" ratios --pmu arm_ac72 --record-cmd > "$T/a72.cmd" 2>&1 || err "--pmu arm_ac72"
grep -q "armv8::L1D_CACHE_REFILL" "$T/a72.cmd" && ! grep -q STALL_FRONTEND "$T/a72.cmd" &&
	echo "ok: --pmu arm_ac72: PMUv3 common events, no stall events" || err "arm_ac72: $(cat "$T/a72.cmd")"
LIBPFM_FORCE_PMU=no_such_pmu "$MEMPROF" ratios --record-cmd > /dev/null 2> "$T/bogus.err"
grep -q "LIBPFM_FORCE_PMU=no_such_pmu: no such PMU model" "$T/bogus.err" && echo "ok: an unknown forced model is named" || err "unknown forced model silent"
# 5. The article's aliases on a forced Arm model resolve to PMUv3 codes.
LIBPFM_FORCE_PMU=arm_ac72 "$MEMPROF" ratios --check > /dev/null 2>&1 || err "ratios --check with arm_ac72 forced"
exit $fail
