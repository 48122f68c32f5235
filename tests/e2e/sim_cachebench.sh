#!/bin/bash
# record --sim on cachebench (the article's list walk): with a working set well inside
# L1d the walk misses nowhere; far past L2 it misses L1d once per element walked. The
# totals equal callgrind_annotate's for the same run, and perf reads the file and finds
# the same top symbols.
. "$(dirname "$0")/sim_lib.sh"
SRC=${KERNELS_SRC:?}/cachebench.c
HOT=$(hot_lines "$SRC" 'HOT: pointer chase')
[ -n "$HOT" ] || fail "no HOT: pointer chase line in $SRC"
HOT=${HOT% }

# 16 KiB = 256 elements of 64 bytes, 200 walks; 4 MiB = 65536 elements, 8 walks.
SMALL_STEPS=$((256 * 200))
LARGE_STEPS=$((65536 * 8))
"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o small.data --callgrind-out small.cg \
	-- "$KERNELS/cachebench" -s 16K -r 200 >small.out 2>small.err ||
	fail "record --sim (16K) exited $?: $(cat small.err)"
"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o large.data --callgrind-out large.cg \
	-- "$KERNELS/cachebench" -s 4M -r 8 >large.out 2>large.err ||
	fail "record --sim (4M) exited $?: $(cat large.err)"
grep -q 'steps=51200' small.out || fail "cachebench output: $(cat small.out)"
grep -q 'steps=524288' large.out || fail "cachebench output: $(cat large.out)"

# The walk itself, from perf's reading of the files.
sm=$(perf_sym_period small.data L1D_REPL walk)
si=$(perf_sym_period small.data INST_RETIRED walk)
lm=$(perf_sym_period large.data L1D_REPL walk)
li=$(perf_sym_period large.data INST_RETIRED walk)
echo "walk 16K: L1D_REPL $sm INST_RETIRED $si; walk 4M: L1D_REPL $lm INST_RETIRED $li"
check "$si >= 2 * $SMALL_STEPS" "16K walk: only $si instructions for $SMALL_STEPS steps"
check "$sm <= $SMALL_STEPS / 1000" "16K walk: $sm L1d misses for $SMALL_STEPS steps (inside L1d)"
check "$sm / $si < 0.001" "16K walk: L1D Miss Rate $sm/$si is not near zero"
check "$lm >= 0.97 * $LARGE_STEPS && $lm <= 1.03 * $LARGE_STEPS" \
	"4M walk: $lm L1d misses for $LARGE_STEPS steps, expected about one per element"
check "$lm / $li > 0.1" "4M walk: L1D Miss Rate $lm/$li"

# Whole program: L1D Miss Rate near zero inside L1d, far higher past L2.
st=$(perf_event_count small.data L1D_REPL); sti=$(perf_event_count small.data INST_RETIRED)
lt=$(perf_event_count large.data L1D_REPL); lti=$(perf_event_count large.data INST_RETIRED)
check "$st / $sti < 0.02" "16K: program L1D Miss Rate $st/$sti"
check "$lt / $lti > 5 * $st / $sti" "4M: program L1D Miss Rate $lt/$lti not above 16K's"

# Totals equal callgrind_annotate's (sum of its function rows) for the same runs.
for f in small large; do
	want=$(( $(cg_sum $f.cg D1mr) + $(cg_sum $f.cg D1mw) ))
	got=$(perf_event_count $f.data L1D_REPL)
	[ "$got" = "$want" ] || fail "$f: L1D_REPL total $got, callgrind_annotate D1mr+D1mw $want"
	want=$(cg_sum $f.cg Ir)
	got=$(perf_event_count $f.data INST_RETIRED)
	[ "$got" = "$want" ] || fail "$f: INST_RETIRED total $got, callgrind_annotate Ir $want"
	[ "$got" -gt 100000 ] || fail "$f: only $got instructions"
done

# perf report resolves the symbols: walk has the most misses past L2 (main's list
# building and memset's clearing come next), and the most instructions inside L1d.
[ "$(perf_top_sym large.data L1D_REPL)" = walk ] || fail "perf: top L1D_REPL symbol is not walk"
[ "$(perf_top_sym small.data INST_RETIRED)" = walk ] || fail "perf: 16K top symbol is not walk"

# ... and the source line: the misses are on the pointer chase.
line=$(perf_report large.data --sort srcline -F period,srcline |
	awk '/^# Samples: .* of event .L1D_REPL/ { f = 1; next } /^# Samples/ { f = 0 }
	     f && $1 ~ /^[0-9]+$/ && $1 + 0 > best { best = $1 + 0; l = $2 } END { print l }')
[ "$line" = "cachebench.c:$HOT" ] || fail "perf: top L1D_REPL line is $line, not cachebench.c:$HOT"
echo "ok"
