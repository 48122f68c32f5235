#!/bin/bash
# Judge, on the host, what the pmulab guest sent back ($PMULAB_DIR/out, console.log).
# Environment: MEMPROF (host memprof, default build/memprof), PERF (default perf).
# Prints one line per check and "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dir=${PMULAB_DIR:-$src/build-aarch64/pmulab}
o=$dir/out
MEMPROF=${MEMPROF:-$src/build/memprof}
PERF=${PERF:-perf}
npass=0 nfail=0
pass() { echo "PASS $*"; npass=$((npass + 1)); }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
check() { # check NAME CONDITION-COMMAND...
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
# kv FILE KEY: the value of KEY=VALUE in the "pmucheck ..." lines of FILE
kv() { sed -n "s/.*[ ]$2=\([^ ]*\).*/\1/p" "$1" | head -1; }
# within A B PCT: |A-B| <= PCT% of B
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b != 0 && d <= b * p / 100) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
rc_of() { cat "$o/$1.rc" 2>/dev/null || echo missing; }

[ -d "$o" ] || { echo "FAIL no results in $o (run run.sh)"; echo "0 passed, 1 failed"; exit 1; }

# --- the PMU itself, probed without memprof -----------------------------------------
check "sysfs: armv8_pmuv3 with cpu_cycles and inst_retired" \
	grep -q '^cpu_cycles\|[[:space:]]cpu_cycles' "$o/sysfs.out"
grep -qw inst_retired "$o/sysfs.out" || fail "sysfs: inst_retired missing (is -icount shift=0 set?)"
p=$o/pmucheck.out
check "pmucheck: probe ran (rc $(rc_of pmucheck))" [ "$(rc_of pmucheck)" = 0 ]
cyc=$(kv "$p" cycles) ins=$(kv "$p" instructions)
check "pmucheck: group {cycles,instructions} = 5e6 instructions of the loop ($cyc, $ins)" \
	eval 'within "${ins:-0}" 5000000 0.1 && within "${cyc:-0}" 5000000 0.1'
ns=$(kv "$p" samples) nin=$(kv "$p" in_spin)
check "pmucheck: cycles sampling at 100000 gives 50 samples, all in the loop ($ns, $nin)" \
	eval '[ "${ns:-0}" -ge 49 ] && [ "${ns:-0}" -le 51 ] && [ "${nin:-0}" -ge $((ns - 1)) ]'
mux=$(kv "$p" multiplexed)
check "pmucheck: 12 instruction counters are multiplexed ($mux of 12)" [ "${mux:-0}" = 12 ]
bad=0
while read -r line; do
	e=$(echo "$line" | kv /dev/stdin enabled) r=$(echo "$line" | kv /dev/stdin running) s=$(echo "$line" | kv /dev/stdin scaled)
	lt "$r" "$e" || bad=1
	within "$s" 100000000 10 || bad=1
done < <(grep 'pmucheck mux' "$p")
check "pmucheck: multiplexed counters run < enabled and scale to 1e8 within 10%" [ $bad = 0 ]

p=$o/pmucheck-ins.out
ns=$(kv "$p" samples) nin=$(kv "$p" in_spin) ps=$(kv "$p" period_sum)
# qemu 7.2 takes an event counter's overflow late (about once a timer tick), so fewer
# samples than count/period come; each still has the period asked for and a right IP.
check "pmucheck: instructions sampling: period 100000 each, most IPs in the loop ($ns samples, $nin in loop)" \
	eval '[ "${ns:-0}" -ge 1 ] && [ "${ps:-0}" = $((ns * 100000)) ] && [ $((2 * nin)) -ge "$ns" ]'
# ev TYPE CONFIG: the "open=..." / "value=..." result for that event
ev() { grep "type=$1 config=$2 " "$o/pmucheck-events.out" | sed 's/.* open=//'; }
check "pmucheck: generic cycles, instructions and raw r08, r11 count the 5e6 loop instructions" \
	eval '[ "$(ev 0 0)" = "ok value=5000021" ] && [ "$(ev 0 0x1)" = "ok value=5000021" ] &&
	      [ "$(ev 4 0x8)" = "ok value=5000021" ] && [ "$(ev 4 0x11)" = "ok value=5000021" ]'
check "pmucheck: generic cache-misses, branch-misses and HW_CACHE L1D read misses are refused" \
	eval '[ "$(ev 0 0x3)" = "No such file or directory" ] && [ "$(ev 0 0x5)" = "No such file or directory" ] &&
	      [ "$(ev 3 0x10000)" = "No such file or directory" ]'

echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
