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
# A macro expanded with different arguments (and through another macro), defined in an
# included header (issue 30.5): --by expr merges by the #define, not by the arguments' text
M=$PREDICT_SRC/macro_args.c
MA=$(grep -n 'MACRO-DEF' "$PREDICT_SRC/macro_args.h" | cut -d: -f1)
UA=$(grep -n 'USE-A' "$M" | cut -d: -f1)
UD=$(grep -n 'USE-D' "$M" | cut -d: -f1)
UE=$(grep -n 'USE-E' "$M" | cut -d: -f1)
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$M" -o ma || exit 1
"$MEMPROF" predict -o ma.pred -- ./ma >/dev/null 2>err.txt || { cat err.txt; exit 1; }
"$MEMPROF" predict -i ma.pred --by expr --csv >ma.csv
[ "$(wc -l <ma.csv)" -eq 4 ] &&
	grep -qxF "unlikely,54,6,10.00,0,(in)->head == (in)->tail,drain,$M,$UA,$T/ma,3,3,0" ma.csv &&
	grep -qxF "unlikely,7,1,12.50,0,(in)->head - (in)->tail == 7,drain,$M,$UD,$T/ma,1,1,0" ma.csv &&
	grep -qxF "unlikely,18,2,10.00,0,n % 10 == i,count_a,$M,$UE,$T/ma,2,2,0" ma.csv ||
	{ echo "FAIL: --by expr of a macro with different arguments"; cat ma.csv; fail=1; }
"$MEMPROF" predict -i ma.pred --by expr >ma.txt
grep -qF "Q_EMPTY (macro, macro_args.h:$MA)" ma.txt ||
	{ echo "FAIL: the table names the macro"; cat ma.txt; fail=1; }
"$MEMPROF" predict -i ma.pred --by expr --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)["rows"]
m = [r for r in rows if r.get("macro") == "Q_EMPTY"]
assert len(m) == 1 and m[0]["macro_line"] == '"$MA"' and m[0]["macro_file"].endswith("/macro_args.h"), m
assert m[0]["correct"] == 54 and m[0]["incorrect"] == 6' || { echo "FAIL: json macro"; fail=1; }
# the sources gone: the hints merge by their text as before (Q_EMPTY's three texts apart)
mkdir src && cp "$M" "$PREDICT_SRC/macro_args.h" src/
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$T/src/macro_args.c" -o ma2 || exit 1
"$MEMPROF" predict -o ma2.pred -- ./ma2 >/dev/null 2>&1
rm -r src
[ "$("$MEMPROF" predict -i ma2.pred --by expr --csv | wc -l)" -eq 6 ] ||
	{ echo "FAIL: --by expr without the sources"; "$MEMPROF" predict -i ma2.pred --by expr --csv; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
