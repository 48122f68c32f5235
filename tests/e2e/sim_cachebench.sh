#!/bin/bash
# record --sim on cachebench (the article's list walk): with a working set well inside
# L1d the walk misses nowhere; far past L2 it misses L1d once per element walked
# (memprof ratios' L1D Miss Rate, and perf's reading of the same file). The totals equal
# callgrind_annotate's for the same run; memprof report and perf report show the same
# top symbols with the same counts; the misses are on the pointer-chasing line.
. "$(dirname "$0")/sim_lib.sh"
SRC=${KERNELS_SRC:?}/cachebench.c
HOT=$(hot_lines "$SRC" 'HOT: pointer chase')
HOT=${HOT% }
[ -n "$HOT" ] || fail "no HOT: pointer chase line in $SRC"
# memprof ratios picks the simulated model itself once it reads the file's meta; --pmu
# cachegrind names it (the ratio definitions' variant for callgrind's quantities).
RATIO_ARGS=(--pmu cachegrind)

# 16 KiB = 256 elements of 64 bytes, 200 walks; 4 MiB = 65536 elements, 8 walks.
SMALL_STEPS=$((256 * 200))
LARGE_STEPS=$((65536 * 8))
"$MEMPROF" record --sim -o small.data --callgrind-out small.cg \
	-- "$KERNELS/cachebench" -s 16K -r 200 >small.out 2>small.err ||
	fail "record --sim (16K) exited $?: $(cat small.err)"
"$MEMPROF" record --sim -e D1mr,D1mw,Ir,DLmr,Bcm -o large.data --callgrind-out large.cg \
	-- "$KERNELS/cachebench" -s 4M -r 8 >large.out 2>large.err ||
	fail "record --sim (4M) exited $?: $(cat large.err)"
grep -q "steps=$SMALL_STEPS" small.out || fail "cachebench output: $(cat small.out)"
grep -q "steps=$LARGE_STEPS" large.out || fail "cachebench output: $(cat large.out)"

# L1D Miss Rate (misses per instruction) from memprof ratios.
sp=$(memprof_ratio small.data program 'L1D Miss Rate' program "${RATIO_ARGS[@]}")
sw=$(memprof_ratio small.data symbol 'L1D Miss Rate' walk "${RATIO_ARGS[@]}")
lp=$(memprof_ratio large.data program 'L1D Miss Rate' program "${RATIO_ARGS[@]}")
lw=$(memprof_ratio large.data symbol 'L1D Miss Rate' walk "${RATIO_ARGS[@]}")
echo "L1D Miss Rate: 16K program $sp walk $sw; 4M program $lp walk $lw"
[ -n "$sp" ] && [ -n "$sw" ] && [ -n "$lp" ] && [ -n "$lw" ] ||
	fail "memprof ratios gave no L1D Miss Rate: $("$MEMPROF" ratios -i small.data "${RATIO_ARGS[@]}" 2>&1 | head -5)"
check "$sw < 0.001" "16K: walk's L1D Miss Rate $sw is not near zero"
check "$sp < 0.02" "16K: program L1D Miss Rate $sp"
check "$lp > 5 * $sp" "4M: program L1D Miss Rate $lp not well above 16K's $sp"
# Misses per element walked = rate * instructions in walk / steps.
li=$(perf_sym_period large.data Ir walk)
check "$li >= 2 * $LARGE_STEPS" "4M walk: only $li instructions for $LARGE_STEPS steps"
check "$lw * $li / $LARGE_STEPS > 0.97 && $lw * $li / $LARGE_STEPS < 1.03" \
	"4M walk: $lw misses per instruction x $li instructions / $LARGE_STEPS steps is not about 1 per element"

# The same from perf's reading of the files: D1 misses (read + write) in walk per step.
sm=$(( $(perf_sym_period small.data D1mr walk) + $(perf_sym_period small.data D1mw walk) ))
lm=$(( $(perf_sym_period large.data D1mr walk) + $(perf_sym_period large.data D1mw walk) ))
check "$sm <= $SMALL_STEPS / 1000" "16K walk: $sm L1d misses for $SMALL_STEPS steps"
check "$lm >= 0.97 * $LARGE_STEPS && $lm <= 1.03 * $LARGE_STEPS" \
	"4M walk: $lm L1d misses for $LARGE_STEPS steps, expected about one per element"
# Far past L2 (1 MiB simulated by default) the walk misses the last level too.
ll=$(perf_sym_period large.data DLmr walk)
check "$ll >= 0.97 * $LARGE_STEPS" "4M walk: $ll LL misses for $LARGE_STEPS steps"

# Totals equal callgrind_annotate's (the sum of its function rows) for the same runs.
for f in small large; do
	qs="Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim"
	[ $f = large ] && qs="D1mr D1mw Ir DLmr Bcm"
	for q in $qs; do
		want=$(cg_sum $f.cg $q)
		got=$(perf_event_count $f.data $q)
		[ "$got" = "$want" ] || fail "$f: $q total $got, callgrind_annotate $want"
	done
	[ "$(perf_event_count $f.data Ir)" -gt 100000 ] || fail "$f: too few instructions"
done

# perf report and memprof report agree on the top symbols and their counts.
for q in Ir D1mr Bcm; do
	p=$(perf_top large.data $q 5)
	m=$(memprof_top large.data $q 5)
	[ "$p" = "$m" ] || fail "4M $q top symbols: perf '$p', memprof '$m'"
done
case "$(perf_top large.data D1mr 1)" in walk:*) ;; *) fail "perf: top D1mr symbol is not walk" ;; esac
case "$(perf_top small.data Ir 1)" in walk:*) ;; *) fail "perf: 16K top Ir symbol is not walk" ;; esac

# ... and the source line (memprof report's): the misses are on the pointer chase.
line=$(memprof_top_line large.data D1mr)
[ "$line" = "cachebench.c:$HOT" ] || fail "top D1mr line is $line, not cachebench.c:$HOT"
# memprof annotate marks it as walk's hottest line for the first event, D1mr.
"$MEMPROF" annotate -i large.data walk >ann.txt 2>ann.err || fail "annotate walk: $(cat ann.err)"
grep '^=>' ann.txt | grep -q "HOT: pointer chase" || fail "annotate walk: hottest line is not the pointer chase: $(grep '^=>' ann.txt)"
grep -q 'skidding' ann.txt && fail "annotate moved simulated (zero-skid) counts as skidding"
echo "ok"
