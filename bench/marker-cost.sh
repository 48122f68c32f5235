#!/bin/bash
# marker-cost.sh - what the region markers cost (issue 15): not under memprof, a begin/end
# pair around each iteration of a tight loop (bare vs marked time per iteration, for loop
# bodies of 50, 200 and 1000 LCG steps, in the thread's CPU time); under memprof stat --regions, one begin/end pair
# (two synchronous reads of the thread's counters), beside perf stat --control's
# enable/disable pair driven by the same markers. Not run by ctest.
#
# usage: bench/marker-cost.sh [BUILD_DIR]   (default: build)
set -u
B=${1:-build}
M=${MEMPROF:-$B/memprof}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -f "$B/marker/libmemprof-marker.a" ] || { echo "marker-cost: no $B/marker/libmemprof-marker.a" >&2; exit 2; }
cc -std=c11 -O2 -D_GNU_SOURCE -I"$SRC/marker/include" -o "$T/mc" "$SRC/bench/marker_cost.c" \
  "$B/marker/libmemprof-marker.a" -lpthread || exit 2

echo "not under memprof: ns (thread CPU time) per iteration of a tight loop, bare / with a begin+end pair"
for w in 50 200 1000; do
  read -r bare marked < <("$T/mc" loop $((20000000 / w * 10)) $w)
  awk -v w=$w -v b="$bare" -v m="$marked" \
    'BEGIN {printf "  body %4d steps: %8.2f / %8.2f ns  marked/bare %.4f (%+.2f%%)\n", w, b, m, m/b, 100*(m/b-1)}'
done
echo "under memprof stat --regions: ns per begin/end pair (two synchronous counter reads)"
for ev in task-clock page-faults task-clock,page-faults,context-switches; do
  ns=$("$M" stat --regions -e $ev -o "$T/s.txt" -- "$T/mc" pairs 20000)
  echo "  -e $ev: $ns ns per pair"
done
if command -v perf >/dev/null 2>&1; then
  mkfifo "$T/ctl" "$T/ack"
  exec {c}<>"$T/ctl" {a}<>"$T/ack"
  ns=$(MEMPROF_CONTROL=perf-fd:$c,$a perf stat -D -1 --control fd:$c,$a -e task-clock \
    -o "$T/p.txt" -- "$T/mc" pairs 20000 2>/dev/null | tail -1)
  echo "  perf stat -D -1 --control (enable+disable): $ns ns per pair"
fi
