#!/bin/bash
# Views of a 13-event --sim recording of a program with its own shared library: the TUI at
# 80x24 shows symbol names and source text beside the columns that fit (the colouring event
# first), -e and the e key choose the columns, [ ] scroll them; annotate -e D1mr,Ir prints
# those two columns in that order; annotate without -e shows 4 key events of 13 (the misses) and says so; report -e.
source "$(dirname "$0")/record_lib.sh"
command -v valgrind >/dev/null || fail "valgrind is not installed (package valgrind)"
S=$(dirname "$0")/../standins
gcc -O1 -g -fPIC -shared -o libwork.so "$S/libwork.c" &&
	gcc -O1 -g -o uselib "$S/uselib.c" -I"$S" -L. -lwork -Wl,-rpath,'$ORIGIN' ||
	fail "cannot build the stand-in"
# callgrind's 13 quantities (memprof's tool counts more by default)
"$MEMPROF" record --sim -e Ir,Dr,Dw,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw,Bc,Bcm,Bi,Bim -o s.data -- ./uselib 100 >/dev/null 2>rec.err || fail "record --sim: $(cat rec.err)"
n=$("$MEMPROF" report -i s.data --csv | grep -v '^#' | head -1 | grep -o ' samples,' | wc -l)
[ "$n" = 13 ] || fail "the --sim recording has $n events, not 13"

# TUI at 80x24: symbols with their names, then the source of sum_local
"$MEMPROF" tui -i s.data --batch "" >t0.txt 2>t.err || fail "tui: $(cat t.err)"
[ "$(wc -l <t0.txt)" = 24 ] || fail "not 24 rows"
awk 'length($0) > 80 { exit 1 }' t0.txt || fail "rows wider than 80"
sed -n 2p t0.txt | grep -Eq '^ +Ir +Dr .* symbol' || fail "header: $(sed -n 2p t0.txt)"
grep -Eq '^> +[0-9.]+%.* (sum_local|work_mix) +(uselib|libwork)' t0.txt || fail "no symbol names: $(sed -n 3,4p t0.txt)"
"$MEMPROF" tui -i s.data --batch "/sum_local<ENTER><ENTER>" >t1.txt 2>t.err || fail "tui annotate: $(cat t.err)"
grep -q 'Annotate sum_local' t1.txt || fail "not annotating: $(head -1 t1.txt)"
grep -q 's += v\[i\] / (double)(r + 1);' t1.txt || fail "no source text at 80x24: $(cat t1.txt)"
# -e chooses the columns, the colouring event (Ir) stays first
"$MEMPROF" tui -i s.data -e D1mr,DLmr --batch "" | sed -n 2p | grep -Eq '^ +Ir +D1mr +DLmr +symbol' ||
	fail "tui -e D1mr,DLmr: $("$MEMPROF" tui -i s.data -e D1mr,DLmr --batch "" | sed -n 2p)"
# the e key does the same; ] scrolls the columns
"$MEMPROF" tui -i s.data --batch "eBc,Bcm<ENTER>" | sed -n 2p | grep -Eq '^ +Ir +Bc +Bcm +symbol' ||
	fail "e key: $("$MEMPROF" tui -i s.data --batch "eBc,Bcm<ENTER>" | sed -n 2p)"
"$MEMPROF" tui -i s.data --batch "]]" | sed -n 2p | grep -Eq '^ +Ir +Dw +I1mr' ||
	fail "] scroll: $("$MEMPROF" tui -i s.data --batch "]]" | sed -n 2p)"
# a ratio that sorts shows its events first: L1D Load Miss Ratio = D1mr / Dr (the last ratio: X)
"$MEMPROF" tui -i s.data --batch "X" >tx.txt || fail "tui X"
sed -n 1p tx.txt | grep -q 'sort: L1D Load Miss Ratio' || fail "X: $(sed -n 1p tx.txt)"
sed -n 2p tx.txt | grep -Eq '^ +D1mr +Dr .*L1D Load Miss +symbol' || fail "X: not D1mr, Dr first: $(sed -n 2p tx.txt)"
grep -Eq '^[> ] .* (sum_local|work_mix) ' tx.txt || fail "X: no symbol names: $(sed -n 3,4p tx.txt)"
# the ratio list at 80x24: names in view, the sorting ratio first, x the next ratio, ] scrolls
"$MEMPROF" tui -i s.data --batch "R" >tr.txt || fail "tui R"
awk 'length($0) > 80 { exit 1 }' tr.txt || fail "ratio rows wider than 80"
first=$(sed -n 1p tr.txt | sed -n 's/.*| sort: //p')
[ -n "$first" ] || fail "R: no sort in the title: $(sed -n 1p tr.txt)"
sed -n 2p tr.txt | grep -Eq "^ +${first:0:13} .* symbol\$" || fail "R: header $(sed -n 2p tr.txt)"
grep -Eq '^> +[0-9.e+-]+[~!]? .* [a-z_]{3,}' tr.txt || fail "R: no symbol names at 80x24: $(sed -n 3,4p tr.txt)"
"$MEMPROF" tui -i s.data --size 120x24 --batch "Rx" | tail -1 | grep -q 'sorting and colouring by ' || fail "Rx: no message"
second=$("$MEMPROF" tui -i s.data --size 120x24 --batch "Rx" | tail -1 | sed 's/sorting and colouring by //')
[ -n "$second" ] && [ "$second" != "$first" ] || fail "R then x sorts by '$second' again ('$first' sorted)"
"$MEMPROF" tui -i s.data --batch "R]" | sed -n 2p | grep -Eq "^ +${first:0:13} " || fail "R]: sorting ratio not first"
"$MEMPROF" tui -i s.data --batch "R]" | tail -1 | grep -q '^ratio columns 2-2 of ' || fail "R]: $("$MEMPROF" tui -i s.data --batch "R]" | tail -1)"
"$MEMPROF" tui -i s.data -e nope --batch "" >/dev/null 2>e.out; [ $? = 2 ] || fail "tui -e nope accepted"
grep -q "no event 'nope'" e.out || fail "tui -e nope: $(cat e.out)"

# annotate -e D1mr,Ir: two event columns, in that order, with the recording's counts
"$MEMPROF" annotate -i s.data -e D1mr,Ir sum_local >a.txt 2>a.err || fail "annotate -e: $(cat a.err)"
grep -Eq '^#  +D1mr +Ir *$' a.txt || fail "column heads: $(grep -E '^#  ' a.txt | head -2)"
[ "$(grep -Ec '^#  +count +%all +%func +count +%all +%func :' a.txt)" = 1 ] || fail "not two count columns"
ir=$("$MEMPROF" report -i s.data --csv --sort sym | awk -F, '$2 == "sum_local" { print $4 }')
grep -q "^# total: D1mr [0-9]* counted ([0-9.]*%), Ir $ir counted" a.txt || fail "total: $(grep '^# total' a.txt), report Ir $ir"
"$MEMPROF" annotate -i s.data sum_local >b.txt || fail "annotate"
# the key columns, the misses among them (was the first 4: Ir, Dr, Dw, I1mr; issue 28.6)
grep -q '^# columns: 4 of the 13 simulated events (instructions, L1 and last-level data misses); not shown: Dr, Dw, I1mr, ILmr, DLmw, Bc, Bcm, Bi, Bim (' b.txt ||
	fail "no note: $(head -1 b.txt)"
grep -Eq '^#  +Ir +D1mr +DLmr +D1mw *$' b.txt || fail "column heads: $(grep -E '^#  +Ir' b.txt | head -1)"
awk 'length($0) > 180 && !/^# / && !/total:/ { exit 1 }' b.txt || fail "annotate rows still wide"
# a simulated report shows counts, not samples (one sample per address means nothing)
"$MEMPROF" report -i s.data -e Ir --no-objects --sort sym >rc.txt || fail "report"
grep -Eq '^# +Count +Overhead +Symbol' rc.txt || fail "no Count column: $(grep Overhead rc.txt | head -2)"
[ "$(awk '$4 == "sum_local" { print $1 }' rc.txt)" = "$ir" ] || fail "sum_local count $(awk '$4 == "sum_local"' rc.txt), want $ir"
# report -e
"$MEMPROF" report -i s.data -e DLmr,Ir --no-objects --sort sym | grep -Eq '^# DLmr +Ir *$' || fail "report -e"
# memprof list names the simulated events, with --pmu cachegrind as ratios takes it
"$MEMPROF" list --pmu cachegrind >l.txt || fail "list --pmu cachegrind"
grep -Eq '^  D1mr +L1 data cache read misses$' l.txt || fail "no D1mr: $(head -5 l.txt)"
grep -Eq '^  L1D_REPL +- D1mr\+D1mw$' l.txt || grep -Eq '^  L1D_REPL += D1mr\+D1mw$' l.txt || fail "no L1D_REPL"
"$MEMPROF" list | grep -q '^Simulated events (memprof record --sim' || fail "list has no simulated events"
"$MEMPROF" list DLmw | grep -Eq '^  DLmw +last-level cache data write misses$' || fail "list DLmw"
echo ok
