#!/bin/bash
# record --sim on matmul (the article's section 6.2.1): L1D Miss Rate per function is
# naive > transposed > blocked, and the misses sit on the inner-loop lines.
. "$(dirname "$0")/sim_lib.sh"
SRC=${KERNELS_SRC:?}/matmul.c
N=128

"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o mm.data -- "$KERNELS/matmul" -N $N -a all \
	>mm.out 2>mm.err || fail "record --sim exited $?: $(cat mm.err)"
grep -q "naive *N=$N" mm.out || fail "matmul output: $(cat mm.out)"

declare -A rate
for f in mm_naive mm_transposed mm_blocked; do
	m=$(perf_sym_period mm.data L1D_REPL $f)
	i=$(perf_sym_period mm.data INST_RETIRED $f)
	check "$i > $N * $N * $N" "$f: only $i instructions for N=$N"
	rate[$f]=$(awk "BEGIN { printf \"%.6f\", $m / $i }")
	echo "$f: L1D_REPL $m INST_RETIRED $i rate ${rate[$f]}"
done
check "${rate[mm_naive]} > 2 * ${rate[mm_transposed]}" "naive ${rate[mm_naive]} not well above transposed ${rate[mm_transposed]}"
check "${rate[mm_transposed]} > 2 * ${rate[mm_blocked]}" "transposed ${rate[mm_transposed]} not well above blocked ${rate[mm_blocked]}"

# transposed reads tmp along rows: one miss per 8 doubles of the N^3 inner iterations.
m=$(perf_sym_period mm.data L1D_REPL mm_transposed)
check "$m >= $N * $N * $N / 8 && $m <= 1.2 * $N * $N * $N / 8 + 3 * $N * $N" \
	"transposed: $m L1d misses, expected about N^3/8 = $((N * N * N / 8))"

# The misses sit on the inner-loop lines (memprof report's source lines). blocked's inner
# loop is SSE2 intrinsics inlined from emmintrin.h, where the debug info puts its loads.
hot=$(hot_lines "$SRC" 'HOT: inner loop')
for f in mm_naive mm_transposed mm_blocked; do
	line=$(memprof_top_line mm.data L1D_REPL $f)
	case "$f:$line" in
	mm_blocked:emmintrin.h:*) continue ;;
	*:matmul.c:*) n=${line#matmul.c:} ;;
	*) fail "$f: most L1d misses on '$line'" ;;
	esac
	case " $hot " in *" $n "*) ;; *) fail "$f: most L1d misses on $line, not a HOT line ($hot)" ;; esac
done
# memprof annotate marks the inner loop as the hottest line for L1D_REPL (the first event).
for f in mm_naive mm_transposed; do
	"$MEMPROF" annotate -i mm.data $f >$f.ann 2>$f.err || fail "annotate $f: $(cat $f.err)"
	grep '^=>' $f.ann | grep -q 'HOT: inner loop' || fail "annotate $f: hottest line: $(grep '^=>' $f.ann)"
done
echo "ok"
