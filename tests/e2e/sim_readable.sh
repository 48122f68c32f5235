#!/bin/bash
# A simulated recording of every quantity (record --sim writes 13 events) reads by default
# (issue 28, item 6):
#   - report's text table: the key columns (Ir, D1mr, DLmr, D1mw, DLmw), not 13 before any
#     name; a "# columns:" line names the others; -e all gives every one; --csv keeps all
#   - annotate: the misses (Ir, D1mr, DLmr, D1mw) are columns, not Ir, Dr, Dw, I1mr
#   - report --csv and ratios --csv start with their header row (the banner on stderr)
#   - ratios: L2 Instruction Miss Rate ("> 0" in the article) is no WARNING below 1e-04
. "$(dirname "$0")/sim_lib.sh"
"$MEMPROF" record --sim -o sim.data -- "$KERNELS/cachebench" -s 64K -r 4 >rec.out 2>&1 ||
	{ cat rec.out; fail "record --sim failed"; }

"$MEMPROF" report -i sim.data >r.txt 2>r.err || { cat r.err; fail "report failed"; }
hdr=$(grep -m1 '^# Ir ' r.txt)
[ "$(echo "$hdr" | awk '{ $1 = ""; print }' | xargs)" = "Ir D1mr DLmr D1mw DLmw" ] ||
	fail "report: columns '$hdr', want Ir D1mr DLmr D1mw DLmw"
nall=$(grep -c '^#   \[[0-9]*\] ' r.txt)
[ "$nall" = 5 ] || fail "report: $nall events in the header, want the 5 shown"
grep -q '^# columns: 5 of the [1-9][0-9] simulated events .*not shown: Dr, Dw, I1mr, ILmr, .*-e all' r.txt ||
	fail "report: no '# columns:' line naming the others: $(grep '^# columns' r.txt)"
w=$(awk '/^# By dso,sym/ { t = 1 } t && $NF == "walk" { sub(/ +$/, ""); print length($0); exit }' r.txt)
[ -n "$w" ] && [ "$w" -le 160 ] || fail "report: walk's row is ${w:-no} characters wide, want at most 160"
walk=$(awk '/^# By dso,sym/ { t = 1 } t && $NF == "walk" { print $3; exit }' r.txt)
perf_walk=$(perf_sym_period sim.data D1mr walk)
[ "$walk" = "$perf_walk" ] || fail "report: walk's D1mr $walk, perf report says $perf_walk"
"$MEMPROF" report -i sim.data -e all >all.txt || fail "report -e all failed"
n=$(grep -m1 '^# Ir ' all.txt | awk '{ print NF - 1 }')
[ "$n" -ge 13 ] || fail "report -e all: $n columns, want every event (13 or more)"
grep -q '^# columns:' all.txt && fail "report -e all: still hides events"
"$MEMPROF" report -i sim.data -e D1mr,Ir >two.txt || fail "report -e D1mr,Ir failed"
[ "$(grep -m1 '^# D1mr ' two.txt | awk '{ print $2, $3 }')" = "D1mr Ir" ] || fail "report -e D1mr,Ir: $(grep -m1 '^# D1mr' two.txt)"

# csv: every event, the header row first
"$MEMPROF" report -i sim.data --csv >r.csv 2>c.err || fail "report --csv failed"
head -1 r.csv | grep -q '^dso,level,sym,Ir samples,Ir period,Ir %,Dr samples,' ||
	fail "report --csv: first line '$(head -1 r.csv | cut -c1-80)', want the header row with every event"
grep -q "^memprof report: SIMULATED: " c.err || fail "report --csv: no SIMULATED banner on stderr"
"$MEMPROF" ratios -i sim.data --csv >ra.csv 2>/dev/null || fail "ratios --csv failed"
head -1 ra.csv | grep -q '^ratio_id,ratio,' || fail "ratios --csv: first line '$(head -1 ra.csv | cut -c1-60)'"

# annotate: the misses
"$MEMPROF" annotate -i sim.data walk >a.txt 2>a.err || { cat a.err; fail "annotate walk failed"; }
grep -q '^# columns: 4 of the [1-9][0-9] simulated events' a.txt || fail "annotate: no '# columns:' line"
cols=$(grep -m1 '^#   Ir ' a.txt | awk '{ $1 = ""; print }' | xargs)
[ "$cols" = "Ir D1mr DLmr D1mw" ] || fail "annotate: columns '$cols', want Ir D1mr DLmr D1mw"
line=$(grep -n 'HOT: pointer chase' "$(dirname "$0")/../../kernels/cachebench.c" | cut -d: -f1)
# the pointer chase: its D1mr (the 4th field: Ir count, %all, %func, D1mr count) >= 1024
d1=$(awk -v l="$line" '$0 ~ ":[ ]+"l"  " { sub(/^[=*>]+/, ""); print $4; exit }' a.txt)
[ -n "$d1" ] && [ "$d1" -ge 1024 ] || { grep ":  *$line  " a.txt; fail "annotate: pointer-chase D1mr '$d1' < 1024"; }

# ratios: tiny L2 instruction miss rates are not a WARNING (matmul's 2,021 in 120 million
# instructions, more misses than missing instructions: not only cold ones)
"$MEMPROF" record --sim -o mm.data -- "$KERNELS/matmul" -N 256 -a naive >mrec.out 2>&1 ||
	{ cat mrec.out; fail "record --sim matmul failed"; }
"$MEMPROF" ratios -i mm.data >rt.txt 2>/dev/null || fail "ratios failed"
l2=$(grep '^L2 Instruction Miss Rate ' rt.txt)
v=$(echo "$l2" | awk '{ print $5 }')
check "$v < 1e-4" "L2 Instruction Miss Rate $v: the test wants a tiny one"
case $l2 in *WARNING*) fail "L2 Instruction Miss Rate $v is a WARNING: $l2";; esac
echo "sim_readable: ok (walk D1mr $walk, pointer chase D1mr $d1, L2 instruction miss rate $v)"
