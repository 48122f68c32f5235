#!/bin/bash
# memprof ratios --baseline shipped (issue 30.7): baselines shipped as data
# (ratios/baselines.tsv, tools/mkbaselines.sh): the real-hardware fixtures' ratios per model
# and the simulated kernels'. A fixture compared with its own set shows +0.0%; a fresh
# simulated matmul -N 256 -a blocked finds its set (same workload) within 1%.
set -u
: "${MEMPROF:?}" "${KERNELS:?}" "${SHARED_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
S=$SHARED_DIR/perfdata
"$MEMPROF" ratios --list-baselines >"$T/list.txt" || { echo "FAIL --list-baselines"; fail=1; }
for n in pdc-armv7-3.4 pdc-i686-atom-3.4 simd-hw-cache-cfl matmul-naive-256 matmul-blocked-256 cachebench-random-4M; do
	grep -q "^$n " "$T/list.txt" || { echo "FAIL: no set $n"; cat "$T/list.txt"; fail=1; }
done
# a fixture against its own set: the measured values, +0.0%
"$MEMPROF" ratios -i "$S/pdc-armv7-3.4.data" --baseline shipped >"$T/arm.txt" || { echo "FAIL armv7"; fail=1; }
grep -q '^# baseline: shipped pdc-armv7-3.4  model: perf  workload: sleep 2  (fixture pdc-armv7-3.4.data (real hardware))$' "$T/arm.txt" &&
	grep -qE '^IPC +0\.6436 .* 0\.6436 +\+0\.0% ' "$T/arm.txt" ||
	{ echo "FAIL armv7 text"; cat "$T/arm.txt"; fail=1; }
"$MEMPROF" ratios -i "$S/pdc-i686-atom-3.4.data" --baseline shipped:pdc-i686-atom-3.4 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["baseline"] == "shipped:pdc-i686-atom-3.4" and d["baseline_shipped"]["model"] == "atom", d
v = {r["id"]: r["places"][0] for r in d["ratios"]}
assert abs(v["IPC"]["baseline"] - 0.322213) < 1e-6 and abs(v["IPC"]["value"] - 0.322213) < 1e-6, v["IPC"]
assert abs(v["BRANCH_MISS_RATE"]["baseline"] - 0.0700329) < 1e-7, v["BRANCH_MISS_RATE"]' ||
	{ echo "FAIL atom json"; fail=1; }
# a simulated kernel against the shipped simulation of the same command
(cd "$T" && "$MEMPROF" record --sim -o mm.data -- "$KERNELS/matmul" -N 256 -a blocked >/dev/null 2>&1) ||
	{ echo "FAIL record --sim"; exit 1; }
"$MEMPROF" ratios -i "$T/mm.data" --baseline shipped --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = d["baseline_shipped"]
assert d["baseline"] == "shipped:matmul-blocked-256" and b["model"] == "cachegrind" and b["same_workload"], d
v = {r["id"]: r["places"][0] for r in d["ratios"]}
l1 = v["L1D_MISS_RATE"]
assert abs(l1["baseline"] - 0.08752253) < 1e-7, l1
assert abs(l1["value"] / l1["baseline"] - 1) < 0.01, l1
print("ok   matmul blocked L1D miss rate %.6f, shipped %.6f" % (l1["value"], l1["baseline"]))' ||
	{ echo "FAIL sim matmul"; fail=1; }
# no set of that name; no set of that model
"$MEMPROF" ratios -i "$T/mm.data" --baseline shipped:nope >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no shipped baseline named 'nope'" "$T/err" || { echo "FAIL: unknown set rc=$rc"; cat "$T/err"; fail=1; }
"$MEMPROF" ratios -i "$S/kdab-vector-dwarf-bdw.data" --baseline shipped >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no shipped baseline for model bdw" "$T/err" || { echo "FAIL: model without a set rc=$rc"; cat "$T/err"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
