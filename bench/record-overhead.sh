#!/bin/bash
# record-overhead.sh - time a ~2 s kernel bare, under `memprof record` and under `perf record`
# with the same event and count, and print memprof's overhead over the bare run and over
# perf's. Also times recording `true`. Not run by ctest (timings vary with the machine).
#
# usage: bench/record-overhead.sh [BUILD_DIR]   (default: build)
#   env: RUNS (default 3: the median of RUNS runs is shown), PERF (default perf)
set -u
B=${1:-build}
M=${MEMPROF:-$B/memprof}
K=${KERNELS:-$B/kernels}
PERF=${PERF:-perf}
RUNS=${RUNS:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

[ -x "$M" ] || { echo "record-overhead: no memprof at $M" >&2; exit 2; }
[ -x "$K/cachebench" ] || { echo "record-overhead: no kernels in $K" >&2; exit 2; }
have_perf=1
command -v "$PERF" >/dev/null 2>&1 || have_perf=0

now() { date +%s%N; }
# Median wall time in ms of RUNS runs of "$@".
timeit() {
	local i t0 t1 v=()
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now)
		"$@" >/dev/null 2>"$T/err" || { echo "record-overhead: failed: $*" >&2; cat "$T/err" >&2; }
		t1=$(now)
		v+=($(((t1 - t0) / 1000000)))
	done
	printf '%s\n' "${v[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

# Calibrate the work so that a bare run takes about 2 s.
one=(cachebench -s 16K -r)
calib() { # prog args... ; last arg is the knob
	local t
	t=$(timeit "$@")
	echo "$t"
}
R=20000
t=$(calib "$K/cachebench" -s 16K -r $R)
R=$((R * 2000 / (t > 0 ? t : 1)))
I=50000000
t=$(calib "$K/falseshare" -T 2 -d 64 -i $I)
I=$((I * 2000 / (t > 0 ? t : 1)))

WL1=("$K/cachebench" -s 16K -r $R)
WL2=("$K/falseshare" -T 2 -d 64 -i $I)

printf '%-34s %8s %8s %8s %9s %9s %6s %6s\n' "workload / event" bare memprof perf "mp/bare" "mp/perf" lost lostp
for threads in 1 2; do
	if [ $threads = 1 ]; then WL=("${WL1[@]}"); else WL=("${WL2[@]}"); fi
	bare=$(timeit "${WL[@]}")
	for c in 1000000 100000; do
		for g in "" -g; do
			hz=$((1000000000 / c))
			label="$threads thr cpu-clock -c $c ($((hz / 1000)) kHz) $g"
			mp=$(timeit "$M" record -q -e cpu-clock -c $c $g -o "$T/m.data" "${WL[@]}")
			"$M" record -e cpu-clock -c $c $g -o "$T/m.data" "${WL[@]}" >/dev/null 2>"$T/m.err"
			lost=$(sed -n 's/.*, \([0-9]*\) lost,.*/\1/p' "$T/m.err" | awk '{s+=$1} END {print s+0}')
			if [ $have_perf = 1 ]; then
				pf=$(timeit "$PERF" record -q -e cpu-clock -c $c $g -o "$T/p.data" "${WL[@]}")
				lostp=$("$PERF" report -i "$T/p.data" --stats 2>/dev/null |
					awk '/LOST events/ {print $3; f=1} END {if (!f) print 0}')
			else
				pf=0 lostp=-
			fi
			awk -v l="$label" -v b="$bare" -v m="$mp" -v p="$pf" -v lo="$lost" -v lp="$lostp" \
				'BEGIN { printf "%-34s %6d ms %6d ms %6d ms %8.3fx %8.3fx %6s %6s\n", l, b, m, p,
					 m / b, (p > 0 ? m / p : 0), lo, lp }'
		done
	done
done
mt=$(timeit "$M" record -q -e cpu-clock -o "$T/t.data" true)
bt=$(timeit true)
if [ $have_perf = 1 ]; then
	pt=$(timeit "$PERF" record -q -e cpu-clock -o "$T/tp.data" true)
else
	pt=0
fi
echo
echo "recording 'true': memprof $mt ms, perf $pt ms (bare $bt ms)"
