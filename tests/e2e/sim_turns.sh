#!/bin/bash
# mpsim's turns (threads whose next batches have one length take turns in a fixed order,
# each run from a pointer into its buffer: turns(); threads that all repeat one batch go
# by rounds: rounds()) give the caches the order of time that lockstep() finds by looking
# for the next thread at every batch: four threads of sim_turns.c (walk: reads at random
# and a word of its own in a line all four write, so that every write takes the line from
# another core; poll: one word read over and over) count exactly the same per quantity
# with and without them (--turns=no).
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
cc -O1 -g -pthread -o turns "$(dirname "$0")/sim_turns.c" || fail "cannot build sim_turns.c"
QS="Ir Dr Dw D1mr D1mw DLmr DLmw HITM Inv DTLBm STLBm Cyc"
for v in yes no; do
	"$MEMPROF" record --sim --sim-cores 4 --I1 32768,8,64 --D1 32768,8,64 --LL 2097152,16,64 \
		--sim-tool-opts=--turns=$v -e "${QS// /,}" -o $v.data -- ./turns 50000 \
		>$v.out 2>$v.err || fail "record --sim --turns=$v: $(cat $v.err)"
	grep -q "^done 50000 " $v.out || fail "--turns=$v: $(cat $v.out)"
done
cmp -s yes.out no.out || fail "the program's output differs: $(cat yes.out) / $(cat no.out)"
for f in walk poll; do
	for q in $QS; do
		y=$(perf_sym_period yes.data $q $f)
		n=$(perf_sym_period no.data $q $f)
		[ "$y" = "$n" ] || fail "$f $q: $y in turns, $n in the reference order"
	done
done
# the writes to the shared line took it from another core nearly every time
w=$(perf_sym_period yes.data Dw walk)
hitm=$(perf_sym_period yes.data HITM walk)
inv=$(perf_sym_period yes.data Inv walk)
check "$w == 200000 && $hitm * 10 > $w * 9 && $inv * 10 > $w * 9" "walk: Dw $w, HITM $hitm, Inv $inv"
echo "walk: $w writes, $hitm HITM, $inv invalidations; poll: $(perf_sym_period yes.data Dr poll) loads: equal in turns and in the reference order"
echo "ok"
