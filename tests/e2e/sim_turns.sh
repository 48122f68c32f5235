#!/bin/bash
# mpsim's turns (threads at batch records take turns, each run from a pointer into its
# buffer: in a fixed order where their next batches have one length, else the earliest
# first at each turn: turns(); threads that all repeat one batch go by rounds: rounds())
# give the caches the order of time that lockstep() finds by looking for the next thread
# at every batch: four threads of sim_turns.c (walk: a cycle through an array and a word
# of its own in a line all four write, so that every write takes the line from another
# core; poll: one word read over and over; mixed: random reads and its word again, in
# batches of unequal lengths) count exactly the same per quantity with and without them
# (--turns=no).
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
for f in walk poll mixed; do
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
echo "walk: $w writes, $hitm HITM, $inv invalidations; poll: $(perf_sym_period yes.data Dr poll) loads; mixed: $(perf_sym_period yes.data Dw mixed) writes, $(perf_sym_period yes.data HITM mixed) HITM: equal in turns and in the reference order"
echo "ok"
