#!/bin/bash
# predict-cost.sh - the cost of -DDEBUGPRED: cachebench built normally (build/kernels/),
# with -DDEBUGPRED (build/kernels/predict/) and with -DDEBUGPRED -DDEBUGPRED_ATOMIC
# (build/kernels/predict-atomic/), whose walk loop carries likely(steps--): one counted hint
# per element. Prints ns/element (best of RUNS, runs interleaved) and the slowdown of each
# debug build over the normal one, for a working set in L1d and one in memory, walk and inc.
# Not run by ctest (timings vary with the machine).
#
# usage: bench/predict-cost.sh [BUILD_DIR]   (default: build)
#   env: RUNS (default 5), SIZES (default "16K 64M"), MODES (default "walk inc")
set -u
B=${1:-build}
K=${KERNELS:-$B/kernels}
RUNS=${RUNS:-5}
SIZES=${SIZES:-16K 64M}
MODES=${MODES:-walk inc}
for v in "" predict predict-atomic; do
	[ -x "$K/$v/cachebench" ] || { echo "predict-cost: no $K/$v/cachebench (build first)" >&2; exit 2; }
done
best() { # prints the smallest of its arguments
	printf '%s\n' "$@" | sort -g | head -1
}
printf '%-5s %-5s %12s %12s %12s %9s %9s\n' mode size "plain ns" "debugpred" "atomic" "slowdown" "atomic"
for m in $MODES; do
	for s in $SIZES; do
		a=() b=() c=()
		for ((i = 0; i < RUNS; i++)); do
			for v in normal predict predict-atomic; do
				d=$K/$v; [ $v = normal ] && d=$K
				ns=$("$d/cachebench" -m "$m" -s "$s" -t 0.5 2>/dev/null | sed -n 's/.*ns\/element=\([0-9.]*\).*/\1/p')
				[ -n "$ns" ] || { echo "predict-cost: $d/cachebench -m $m -s $s failed" >&2; exit 1; }
				case $v in normal) a+=("$ns") ;; predict) b+=("$ns") ;; *) c+=("$ns") ;; esac
			done
		done
		x=$(best "${a[@]}") y=$(best "${b[@]}") z=$(best "${c[@]}")
		awk -v m="$m" -v s="$s" -v x="$x" -v y="$y" -v z="$z" \
			'BEGIN { printf "%-5s %-5s %12.3f %12.3f %12.3f %8.2fx %8.2fx\n", m, s, x, y, z, y / x, z / x }'
	done
done
