#!/bin/bash
# memprof predict, must-show 5: a hint inside a macro used in three places. By use: three
# rows (one per place); --by expr: one row with the three uses' sums (true 1+2+3 = 6 of
# 10+20+30 = 60: unlikely() incorrect 6, correct 54), 3 uses, 3 locations; --by function:
# one row per function; --by line: one row per line.
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
S=$PREDICT_SRC/macro.c
fail=0
A=$(grep -n 'USE-A' "$S" | cut -d: -f1)
B=$(grep -n 'USE-B' "$S" | cut -d: -f1)
C=$(grep -n 'USE-C' "$S" | cut -d: -f1)
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$S" -o m || exit 1
"$MEMPROF" predict -o p.pred --csv -- ./m >use.csv 2>err.txt || { cat err.txt; exit 1; }
for w in "unlikely,9,1,10.00,0,(r)->head == (r)->tail,drain_a,$S,$A," \
	"unlikely,18,2,10.00,0,(r)->head == (r)->tail,drain_b,$S,$B," \
	"unlikely,27,3,10.00,0,(r)->head == (r)->tail,drain_c,$S,$C,"; do
	grep -qF "$w" use.csv || { echo "FAIL: by use, no row $w"; cat use.csv; fail=1; }
done
"$MEMPROF" predict -i p.pred --by expr --csv >expr.csv
[ "$(wc -l <expr.csv)" -eq 2 ] &&
	grep -qF "unlikely,54,6,10.00,0,(r)->head == (r)->tail," expr.csv &&
	grep -qE ',3,3,0$' expr.csv ||
	{ echo "FAIL: --by expr"; cat expr.csv; fail=1; }
"$MEMPROF" predict -i p.pred --by expr >expr.txt
grep -qF "(+2)" expr.txt || { echo "FAIL: table of --by expr does not say +2 places"; cat expr.txt; fail=1; }
[ "$(grep -c '^unlikely' <("$MEMPROF" predict -i p.pred --by function))" -eq 3 ] ||
	{ echo "FAIL: --by function"; fail=1; }
# --threshold keeps rows at or above the percentage; --sort location orders by line
[ "$("$MEMPROF" predict -i p.pred --threshold 10 --csv | wc -l)" -eq 4 ] &&
	[ "$("$MEMPROF" predict -i p.pred --threshold 10.01 --csv | wc -l)" -eq 1 ] ||
	{ echo "FAIL: --threshold"; fail=1; }
"$MEMPROF" predict -i p.pred --sort location --csv | cut -d, -f9 | tail -n +2 | tr '\n' ' ' >loc.txt
[ "$(cat loc.txt)" = "$A $B $C " ] || { echo "FAIL: --sort location: $(cat loc.txt)"; fail=1; }
"$MEMPROF" predict -i p.pred --sort incorrect --csv | cut -d, -f9 | tail -n +2 | tr '\n' ' ' >inc.txt
[ "$(cat inc.txt)" = "$C $B $A " ] || { echo "FAIL: --sort incorrect: $(cat inc.txt)"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
