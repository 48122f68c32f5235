#!/bin/bash
# alloc-cost.sh - what record --alloc costs the workload (issue 26): a malloc/free loop of
# 64-byte blocks (tests/alloc_prog.c churn N, N = 2,000,000 pairs: 4 million records, with
# a call chain of 3 frames each) timed plain, under memprof record -e page-faults (no
# --alloc) and under memprof record -e page-faults --alloc; prints ns per malloc+free pair
# and the ratios, the recording's size and the memory report --sort alloc needs to resolve
# it (the most objects live at once), best of 3 runs. Not run by ctest.
#
# usage: bench/alloc-cost.sh [BUILD_DIR] [PAIRS]
set -u
B=${1:-build}
N=${2:-2000000}
M=${MEMPROF:-$B/memprof}
P=$B/tests/alloc_prog
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
[ -x "$P" ] || { echo "alloc-cost: no $P (build the tests)" >&2; exit 2; }
best() { # best CMD...: the shortest wall time of 3 runs, in seconds
	local b=""
	for _ in 1 2 3; do
		local t0 t1
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || { echo "alloc-cost: failed: $*" >&2; exit 1; }
		t1=$(date +%s.%N)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { d = z - a; print (b == "" || d < b) ? d : b }')
	done
	echo "$b"
}
plain=$(best "$P" churn "$N")
rec=$(best "$M" record -q -e page-faults -c 1 -d -o "$T/r.data" -- "$P" churn "$N")
LIB=$B/lib/memprof/libmemprof-alloc.so
mkdir "$T/spool"
lib() { rm -f "$T"/spool/*; MEMPROF_ALLOC_DIR=$T/spool LD_PRELOAD=$LIB "$@"; }
libonly=$(best lib "$P" churn "$N")
alloc=$(best "$M" record -q -e page-faults -c 1 -d --alloc -o "$T/a.data" -- "$P" churn "$N")
awk -v n="$N" -v p="$plain" -v r="$rec" -v a="$alloc" -v l="$libonly" 'BEGIN {
	printf "malloc+free pairs: %d\n", n
	printf "  plain:                  %7.3f s  %7.1f ns/pair\n", p, p * 1e9 / n
	printf "  memprof record:         %7.3f s  %7.1f ns/pair  ratio %.2f\n", r, r * 1e9 / n, r / p
	printf "  the library alone:      %7.3f s  %7.1f ns/pair  ratio %.2f (the workload itself)\n", l, l * 1e9 / n, l / p
	printf "  memprof record --alloc: %7.3f s  %7.1f ns/pair  ratio %.2f (vs record without --alloc: %.2f)\n", a, a * 1e9 / n, a / p, a / r
}'
echo "  recording with --alloc: $(du -k "$T/a.data" | cut -f1) KiB"
/usr/bin/time -f "  report --mem-mode --sort alloc: %e s, %M KiB peak RSS" \
	"$M" report -i "$T/a.data" --mem-mode --sort alloc >"$T/rep.txt" 2>"$T/time.txt"
cat "$T/time.txt"
grep "^# Allocation records" "$T/rep.txt" | sed 's/^# /  /'
