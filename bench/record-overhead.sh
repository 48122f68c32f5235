#!/bin/bash
# record-overhead.sh - time a ~2 s kernel bare, under `memprof record` and under `perf record`
# with the same event and count, and print memprof's overhead over the bare run and over
# perf's. Also times recording `true`. Not run by ctest (timings vary with the machine).
#
# usage: bench/record-overhead.sh [BUILD_DIR]   (default: build)
#   env: RUNS (default 5: runs are interleaved and the best of RUNS is shown), PERF
set -u
B=${1:-build}
M=${MEMPROF:-$B/memprof}
K=${KERNELS:-$B/kernels}
PERF=${PERF:-perf}
RUNS=${RUNS:-5}
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

# Calibrate the work so that a bare run takes about 2 s (two passes: start-up is not linear).
scale() { # VALUE MS -> VALUE scaled to 2000 ms
	echo $(($1 * 2000 / ($2 > 0 ? $2 : 1)))
}
R=200000
for _ in 1 2 3; do R=$(scale $R "$(RUNS=2 timeit "$K/cachebench" -s 16K -r $R)"); done
I=300000000
for _ in 1 2 3; do I=$(scale $I "$(RUNS=2 timeit "$K/falseshare" -T 2 -d 64 -i $I)"); done
echo "workloads: cachebench -s 16K -r $R (1 thread), falseshare -T 2 -d 64 -i $I (2 threads);"
echo "wall times, best of $RUNS interleaved runs. Two pinned threads on a busy 2-CPU machine"
echo "vary a lot from run to run: compare those rows with care."
echo

WL1=("$K/cachebench" -s 16K -r $R)
WL2=("$K/falseshare" -T 2 -d 64 -i $I)

# One run of "$@": wall ms.
once() {
	local t0 t1
	t0=$(now)
	"$@" >/dev/null 2>"$T/err" || { echo "record-overhead: failed: $*" >&2; cat "$T/err" >&2; }
	t1=$(now)
	echo $(((t1 - t0) / 1000000))
}
min() { printf '%s\n' "$@" | sort -n | head -1; }

printf '%-38s %9s %9s %9s %8s %8s %5s %5s\n' "workload / event" bare memprof perf "mp/bare" "mp/perf" lost lostp
for threads in 1 2; do
	if [ $threads = 1 ]; then WL=("${WL1[@]}"); else WL=("${WL2[@]}"); fi
	for c in 1000000 100000; do
		for g in "" -g; do
			hz=$((1000000000 / c))
			label="$threads thr cpu-clock -c $c ($((hz / 1000)) kHz) $g"
			b=() m=() p=()
			# Interleaved, best of RUNS: other load on the machine hits all three alike.
			for ((i = 0; i < RUNS; i++)); do
				b+=($(once "${WL[@]}"))
				m+=($(once "$M" record -q -e cpu-clock -c $c $g -o "$T/m.data" "${WL[@]}"))
				[ $have_perf = 1 ] && p+=($(once "$PERF" record -q -e cpu-clock -c $c $g -o "$T/p.data" "${WL[@]}"))
			done
			bare=$(min "${b[@]}") mp=$(min "${m[@]}") pf=0
			[ $have_perf = 1 ] && pf=$(min "${p[@]}")
			"$M" record -e cpu-clock -c $c $g -o "$T/m.data" "${WL[@]}" >/dev/null 2>"$T/m.err"
			lost=$(sed -n 's/.*, \([0-9]*\) lost,.*/\1/p' "$T/m.err" | awk '{s+=$1} END {print s+0}')
			lostp=-
			[ $have_perf = 1 ] && lostp=$("$PERF" report -i "$T/p.data" --stats 2>/dev/null |
				awk '/LOST events/ {print $3; f=1} END {if (!f) print 0}')
			awk -v l="$label" -v b="$bare" -v m="$mp" -v p="$pf" -v lo="$lost" -v lp="$lostp" \
				'BEGIN { printf "%-38s %6d ms %6d ms %6d ms %7.3fx %7.3fx %5s %5s\n", l, b, m, p,
					 m / b, (p > 0 ? m / p : 0), lo, lp }'
		done
	done
done
t=() tp=() tb=()
for ((i = 0; i < RUNS; i++)); do
	tb+=($(once true))
	t+=($(once "$M" record -q -e cpu-clock -o "$T/t.data" true))
	[ $have_perf = 1 ] && tp+=($(once "$PERF" record -q -e cpu-clock -o "$T/tp.data" true))
done
echo
echo "recording 'true' (best of $RUNS): memprof $(min "${t[@]}") ms, perf $([ $have_perf = 1 ] && min "${tp[@]}" || echo -) ms, bare $(min "${tb[@]}") ms"
