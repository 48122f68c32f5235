#!/bin/bash
# memprof diff of simulated recordings (issue 28, item 5): exact counts get practical
# significance, so that the program's rows and the hot functions come first:
#   - a ratio's change is significant from --min-change percent (default 1) of the larger
#     value on and on 10 events or more (two runs of one program: not at 7e-7), and a
#     place's share from a tenth of that in points; both bars are in the headers
#   - the program's ratio values come first
#   - the unresolved addresses of a stripped object are one place per object, not a row
#     per instruction
#   - the text diff shows the places that vanished: Delta = -Baseline
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
bad() { echo "FAIL $*"; fail=1; }
for o in seq random random2; do
	"$MEMPROF" record --sim -o $o.data -- "$KERNELS/cachebench" -s 256K -n 0 -o ${o%2} -r 5 \
		>/dev/null 2>$o.err || { echo "FAIL record --sim $o: $(tail -1 $o.err)"; exit 1; }
done
"$MEMPROF" diff --ratios --csv random.data random2.data >rr.csv 2>/dev/null || bad "diff --ratios --csv"
# side,ratio_id,ratio,level,place,dso,symbol,baseline,value,change,lo,hi,exact,significant
awk -F, 'NR > 1 && $13 == 1 && $14 == 1 {
		b = $8 < 0 ? -$8 : $8; v = $9 < 0 ? -$9 : $9; m = b > v ? b : v; c = $10 < 0 ? -$10 : $10
		if (c < 0.01 * m) { print "FAIL exact change below 1% marked significant: " $0; exit 1 } }' rr.csv ||
	fail=1
n=$(awk -F, 'NR > 1 && $4 == "program" && $14 == 1' rr.csv | wc -l)
[ "$n" = 0 ] || bad "two runs of one program: $n significant program-level changes"
# --min-change 0: any change on 10 events or more. One walk more (-r 6) changes walk's L1D
# Miss Rate by about 0.002% of its value, on thousands of events: significant with 0, not
# with the default. (Two runs of one program are no test of it: they differ only by what
# cachebench prints of its timing, and now and then by fewer than 10 events.)
"$MEMPROF" record --sim -o random6.data -- "$KERNELS/cachebench" -s 256K -n 0 -o random -r 6 \
	>/dev/null 2>random6.err || { echo "FAIL record --sim random -r 6: $(tail -1 random6.err)"; exit 1; }
"$MEMPROF" diff --ratios --csv random.data random6.data >r6.csv 2>/dev/null &&
	"$MEMPROF" diff --ratios --csv --min-change 0 random.data random6.data >r0.csv 2>/dev/null ||
	bad "diff --min-change 0"
walk() { awk -F, '$2 == "L1D_MISS_RATE" && $4 == "symbol" && $7 == "walk" { print $14 }' "$1"; }
[ "$(walk r6.csv)" = 0 ] && [ "$(walk r0.csv)" = 1 ] ||
	bad "walk's L1D Miss Rate, one walk more: significant '$(walk r6.csv)' by default, '$(walk r0.csv)' with --min-change 0 (want 0, 1): $(grep 'L1D_MISS_RATE,.*,walk,' r0.csv)"
"$MEMPROF" diff --min-change 101 random.data random2.data >/dev/null 2>&1; [ $? = 2 ] || bad "--min-change 101 accepted"

# the text: both bars stated; the program's ratio values first
"$MEMPROF" diff seq.data random.data >d.txt 2>/dev/null || bad "diff seq random"
grep -q '^# \*: .*simulated shares are exact, a change of at least 0.10 percentage points' d.txt ||
	bad "no share bar in the header: $(grep '^# \*' d.txt)"
grep -q '^# [0-9]* of [0-9]* ratio values changed significantly .*a change of at least 1% of the larger value' d.txt ||
	bad "no ratio bar in the header: $(grep 'changed significantly' d.txt)"
first=$(sed -n '/^# new ratio/{n;p;q}' d.txt)
case $first in *" program "*significant) ;; *) bad "first ratio change not the program's: $first";; esac

# unresolved addresses: one place per object
"$MEMPROF" diff --csv random.data random2.data >p.csv 2>/dev/null || bad "diff --csv"
n=$(grep -c ',0x[0-9a-f]*,' p.csv)
[ "$n" = 0 ] || bad "$n per-address rows of unresolved addresses: $(grep -m2 ',0x[0-9a-f]*,' p.csv)"
dup=$(awk -F, '$4 == "[unresolved addresses]" { print $1, $2 }' p.csv | sort | uniq -d | head -1)
[ -z "$dup" ] || bad "two unresolved places of one object: $dup"
grep -q '^Ir,libnuma[^,]*,\.,\[unresolved addresses\],' p.csv || bad "libnuma's unresolved addresses not folded"

# vanished places: mm_blocked is in the baseline only
"$MEMPROF" record --sim -e Ir -o n.data -- "$KERNELS/matmul" -N 64 -a blocked >/dev/null 2>&1 &&
	"$MEMPROF" record --sim -e Ir -o t.data -- "$KERNELS/matmul" -N 64 -a transposed >/dev/null 2>&1 ||
	bad "record --sim matmul"
"$MEMPROF" diff n.data t.data >v.txt 2>/dev/null || bad "diff blocked transposed"
row=$(grep ' \[\.\] mm_blocked$' v.txt)
b=$(echo "$row" | awk '{ print $1 }'); dl=$(echo "$row" | awk '{ print $2 }')
[ -n "$b" ] && [ "$dl" = "-$b*" ] || bad "mm_blocked vanished: row '$row', want Delta -Baseline, significant"
# and it ranks by that delta: among the first three places
rank=$(awk '/^# Baseline/ { t = 1; next } t && /^ / { n++ } t && / mm_blocked$/ { print n; exit }' v.txt)
[ -n "$rank" ] && [ "$rank" -le 3 ] || bad "mm_blocked ranks ${rank:-nowhere}, want among the first 3"
[ $fail = 0 ] && echo "PASS: diff of simulated runs: practical significance, folded addresses, vanished places"
exit $fail
