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
# a simulated kernel against the shipped simulation of the same command, with the set's
# caches (the host's differ from machine to machine: 48K 12-way L1d, 2M L2 on one CI host)
G32="--I1 32768,8,64 --D1 32768,8,64 --LL 1048576,8,64"
(cd "$T" && "$MEMPROF" record --sim $G32 -o mm.data -- "$KERNELS/matmul" -N 256 -a blocked >/dev/null 2>&1) ||
	{ echo "FAIL record --sim"; exit 1; }
"$MEMPROF" ratios -i "$T/mm.data" --baseline shipped --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = d["baseline_shipped"]
assert d["baseline"] == "shipped:matmul-blocked-256" and b["model"] == "cachegrind" and b["same_workload"], d
assert b["same_geometry"], b
v = {r["id"]: r["places"][0] for r in d["ratios"]}
l1 = v["L1D_MISS_RATE"]
assert abs(l1["baseline"] - 0.08752253) < 1e-7, l1
assert abs(l1["value"] / l1["baseline"] - 1) < 0.01, l1
print("ok   matmul blocked L1D miss rate %.6f, shipped %.6f" % (l1["value"], l1["baseline"]))' ||
	{ echo "FAIL sim matmul"; fail=1; }
grep -q '^# note: this recording simulated other caches' <("$MEMPROF" ratios -i "$T/mm.data" --baseline shipped) &&
	{ echo "FAIL: a note of other caches where they are the set's"; fail=1; }
# other caches than the set's: compared, with a note naming the recording's
(cd "$T" && "$MEMPROF" record --sim --I1 32768,8,64 --D1 49152,12,64 --LL 2097152,16,64 -o mm48.data -- \
	"$KERNELS/matmul" -N 64 -a blocked >/dev/null 2>&1) || { echo "FAIL record --sim 48K"; exit 1; }
"$MEMPROF" ratios -i "$T/mm48.data" --baseline shipped >"$T/mm48.txt" 2>&1 &&
	grep -q '^# note: this recording simulated other caches (I1 32768,8,64 D1 49152,12,64 LL 2097152,16,64) than the baseline' "$T/mm48.txt" ||
	{ echo "FAIL: no note of other caches"; cat "$T/mm48.txt"; fail=1; }
"$MEMPROF" ratios -i "$T/mm48.data" --baseline shipped --json | python3 -c '
import json, sys
b = json.load(sys.stdin)["baseline_shipped"]
assert b["same_geometry"] is False, b' || { echo "FAIL: same_geometry of other caches"; fail=1; }
# no set of that name; no set of that model
"$MEMPROF" ratios -i "$T/mm.data" --baseline shipped:nope >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no shipped baseline named 'nope'" "$T/err" || { echo "FAIL: unknown set rc=$rc"; cat "$T/err"; fail=1; }
"$MEMPROF" ratios -i "$S/kdab-vector-dwarf-bdw.data" --baseline shipped >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no shipped baseline for model bdw" "$T/err" || { echo "FAIL: model without a set rc=$rc"; cat "$T/err"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
