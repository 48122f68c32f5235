#!/usr/bin/env bash
# memprof stat --regions (issue 15, must-show 1 and 5): exact page faults per region of
# tests/regions_prog, calls, nesting, 4 threads, dying and unclosed regions, odd names; the
# kernels' regions (matmul's algorithms, cachebench's walk); the same markers drive perf stat
# --control and perf record -D -1 --control (perf's protocol), whose counts are checked too.
set -euo pipefail
: "${MEMPROF:?}" "${PROG:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
N=137 R=3

fail() { echo "FAIL: $*"; cat out.csv 2>/dev/null || true; exit 1; }
# value of event EV in the CSV row of region REG (and tid TID, 0 = summed)
val() { awk -F, -v r="$1" -v t="${2:-0}" -v e="${3:-page-faults}" \
  '$1==r && ($3==t || $3=="") && $6==e {print $7; exit}' out.csv; }
calls() { awk -F, -v r="$1" '$1==r && $3==0 {print $4; exit}' out.csv; }

"$MEMPROF" stat --regions --csv -o out.csv -e page-faults -- "$PROG" faults $N $R
[ "$(val touch)" = $((N * R)) ] || fail "touch: $(val touch) page faults, not $((N * R))"
[ "$(val idle)" = 0 ] || fail "idle: $(val idle) page faults, not 0"
[ "$(calls touch)" = $R ] && [ "$(calls idle)" = $R ] || fail "calls: touch $(calls touch), idle $(calls idle), not $R"
[ "$(val inner)" = $((2 * N)) ] && [ "$(calls inner)" = 2 ] || fail "inner: $(val inner) in $(calls inner) calls"
[ "$(val outer)" = "$(val inner)" ] || fail "outer $(val outer) is not its inner region's $(val inner)"
awk -F, '$1=="inner" && $2==1' out.csv | grep -q . || fail "inner is not nested (depth 1)"
out=$(val "(outside any region)") whole=$(val "(whole run)")
[ "$out" -gt 0 ] && [ "$out" -lt 200 ] || fail "outside any region: $out"
[ $((whole - out)) = $(( N * R + 2 * N )) ] || fail "whole $whole - outside $out is not the top regions' sum"
echo "ok: touch $((N * R)), idle 0, nested inner = outer = $((2 * N)), outside $out of $whole"

# 4 threads in one region: one row each, N faults each, summing to the total
"$MEMPROF" stat --regions --csv -o out.csv -e page-faults -- "$PROG" threads $N
rows=$(awk -F, '$1=="work" && $3!=0' out.csv | wc -l)
[ "$rows" = 4 ] || fail "$rows thread rows for work, not 4"
# N each; a fault that races with another thread's mmap may count twice (kernel retry)
awk -F, -v n=$N '$1=="work" && $3!=0 && ($7<n || $7>n+2) {bad=1} END {exit bad}' out.csv ||
  fail "a thread's count is not $N (+2 at most)"
sum=$(awk -F, '$1=="work" && $3!=0 {s+=$7} END {print s}' out.csv)
[ "$(val work)" = "$sum" ] && [ "$(calls work)" = 4 ] || fail "work: $(val work) in $(calls work) calls, threads sum to $sum"
[ "$sum" -ge $((4 * N)) ] && [ "$sum" -le $((4 * N + 8)) ] || fail "work: $sum, not about $((4 * N))"
echo "ok: 4 threads of $N page faults each, summed to $sum"

# a workload that dies inside a region, one that never closes it: a table that says so
set +e
"$MEMPROF" stat --regions -e page-faults -- "$PROG" die $N 2> die.txt
rc=$?
set -e
cat die.txt
[ $rc = 137 ] || fail "killed workload: exit $rc, not 137"
# counted to the thread's end: N, and the few pages of code raise() and exit() fault in
in_range() { awk -v n=$N -v v="$1" 'BEGIN {exit !(v >= n && v <= n + 20)}'; }
v=$(awk '$1=="dying" && $2=="0+1" && $3=="open" {print $4}' die.txt)
in_range "$v" || fail "no row 'dying 0+1 open $N' (+ the exit's faults): '$v'"
grep -q "region 'dying' was never closed" die.txt || fail "the note about 'dying'"
grep -q "killed by signal 9" die.txt || fail "not told the workload was killed"
"$MEMPROF" stat --regions -e page-faults -- "$PROG" open $N 2> open.txt
v=$(awk '$1=="unclosed" && $2=="0+1" && $3=="open" {print $4}' open.txt)
in_range "$v" || fail "no row 'unclosed 0+1 open $N' (+ the exit's faults): '$v'"
echo "ok: dying and unclosed regions reported"

# the kernels out of the box: matmul -a all has one region per algorithm, cachebench's walk
# is one region named by its mode; the regions and what lies outside them add up to the run
"$MEMPROF" stat --regions --csv -o out.csv -e task-clock,page-faults -- "$KERNELS/matmul" -N 64 -a all >/dev/null
for alg in naive transposed blocked; do
  [ "$(calls $alg)" = 1 ] || fail "matmul: region $alg called '$(calls $alg)' times, not 1"
done
[ "$(awk -F, '$3==0' out.csv | cut -d, -f1 | sort -u | tr '\n' ' ')" = "blocked naive transposed " ] ||
  fail "matmul: regions other than the three algorithms"
sum=$(( $(val naive 0 task-clock) + $(val transposed 0 task-clock) + $(val blocked 0 task-clock) + $(val "(outside any region)" 0 task-clock) ))
[ "$sum" = "$(val "(whole run)" 0 task-clock)" ] || fail "matmul: regions + outside = $sum ns, whole run $(val "(whole run)" 0 task-clock)"
"$MEMPROF" stat --regions --csv -o out.csv -e task-clock -- "$KERNELS/cachebench" -m walk -s 64K -r 3 >/dev/null
[ "$(calls walk)" = 1 ] && [ "$(val walk 0 task-clock)" -gt 0 ] || fail "cachebench: no region walk of 1 call"
echo "ok: matmul's three algorithms and cachebench's walk are regions"

# names of any bytes and length: the protocol holds, the markers stay on (exit 0)
"$MEMPROF" stat --regions -e page-faults -- "$PROG" names 2> names.txt
grep -q '^ two\\x0alines ' names.txt || fail "name with a newline"
grep -q 'x\.\.\. ' names.txt || fail "long name not cut"
grep -q "end of region 'never opened' with no region open" names.txt || fail "unmatched end"
"$MEMPROF" stat --regions --json -o out.json -e page-faults -- "$PROG" names
python3 -c 'import json,sys; d=json.load(open("out.json")); assert len(d["regions"]) == 4, d["regions"]'
echo "ok: odd names"

# the same markers speak perf's protocol: perf stat -D -1 --control counts only inside
# regions (touch + idle + outer)
if command -v perf >/dev/null && perf stat -e page-faults true 2>/dev/null; then
  mkfifo ctl ack
  exec {c}<>ctl {a}<>ack
  MEMPROF_CONTROL=perf-fd:$c,$a perf stat -D -1 --control fd:$c,$a -x, -o perf.csv \
    -e page-faults -- "$PROG" faults $N $R
  p=$(awk -F, '$3=="page-faults" {print $1}' perf.csv)
  [ "$p" = $((N * R + 2 * N)) ] || fail "perf stat --control: $p page faults, not $((N * R + 2 * N))"
  echo "ok: perf stat --control counts $p in regions"
  # and perf record -D -1 --control: a sample per page fault, only inside regions, all in touch()
  MEMPROF_CONTROL=perf-fd:$c,$a perf record -q -D -1 --control fd:$c,$a -e page-faults -c 1 \
    -o perf.data -- "$PROG" faults $N $R
  s=$(perf script -i perf.data -F ip,sym 2>/dev/null | awk '{n[$NF]++} END {for (k in n) print k, n[k]}')
  [ "$s" = "touch $((N * R + 2 * N))" ] || fail "perf record --control: samples by symbol '$s', not 'touch $((N * R + 2 * N))'"
  echo "ok: perf record --control samples $s in regions"
fi
