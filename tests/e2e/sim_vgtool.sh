#!/bin/bash
# record --sim's own valgrind tool (mpsim) against callgrind, the cross-check: for the same
# cache geometry, one thread's counts are callgrind's. Per function of the kernels' work
# (cachebench's walk, matmul's three products) the nine cache quantities are equal, to 4
# counts: the lines left in the caches by the code before (which prints timings, and so
# runs differently from run to run) may differ by one; mm_blocked within 8: it calls
# through the PLT once, and callgrind, --skip-plt=yes, charges the stub and its jump to the
# call site, where mpsim keeps them on the stub's own addresses, as perf would. The
# program's totals differ only by what the kernels' timing code does differently from
# run to run (callgrind against itself differs as much), under 0.5%.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
GEO=(--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64)
QS="Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"
run() { # NAME ENGINE ARGS...
	local name=$1 engine=$2; shift 2
	# mpsim's prefetches fill caches; callgrind's do nothing
	local po=()
	[ "$engine" = mpsim ] && po=(--sim-tool-opts=--sw-prefetch=no)
	"$MEMPROF" record --sim --sim-engine="$engine" "${po[@]}" "${GEO[@]}" -e "${QS// /,}" -o "$name.data" \
		-- "$@" >"$name.out" 2>"$name.err" || fail "record --sim --sim-engine=$engine $*: $(cat "$name.err")"
	grep -q "SIMULATED by valgrind's $engine" "$name.err" || fail "$name: $(cat "$name.err")"
}
compare() { # A B SYM[:SLACK]...
	local a=$1 b=$2; shift 2
	for s in "$@"; do
		sym=${s%%:*} slack=0
		[ "$sym" = "$s" ] || slack=${s#*:}
		for q in $QS; do
			x=$(perf_sym_period "$a.data" "$q" "$sym")
			y=$(perf_sym_period "$b.data" "$q" "$sym")
			check "$x - $y <= $slack && $y - $x <= $slack" "$sym $q: mpsim $x, callgrind $y"
		done
		echo "$sym: equal ($(perf_sym_period "$a.data" Ir "$sym") Ir, $(perf_sym_period "$a.data" D1mr "$sym") D1mr)"
	done
	for q in $QS; do
		x=$(perf_event_count "$a.data" "$q")
		y=$(perf_event_count "$b.data" "$q")
		check "($x - $y) <= 0.005 * $y + 50 && ($y - $x) <= 0.005 * $y + 50" "$a: total $q: mpsim $x, callgrind $y"
	done
}
run cb_mp mpsim "$KERNELS/cachebench" -s 4M -r 8
run cb_cg callgrind "$KERNELS/cachebench" -s 4M -r 8
compare cb_mp cb_cg walk:4
run cs_mp mpsim "$KERNELS/cachebench" -s 16K -r 200
run cs_cg callgrind "$KERNELS/cachebench" -s 16K -r 200
compare cs_mp cs_cg walk:4
run mm_mp mpsim "$KERNELS/matmul" -N 64 -a all
run mm_cg callgrind "$KERNELS/matmul" -N 64 -a all
compare mm_mp mm_cg mm_naive:4 mm_transposed:4 mm_blocked:8
echo "ok"
