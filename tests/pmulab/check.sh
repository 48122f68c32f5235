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

echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
