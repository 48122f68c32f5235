#!/bin/bash
# memprof ratios on a simulated recording (memprof record --sim, valgrind's callgrind): the
# article's L1D Miss Rate from L1D_REPL (= D1mr + D1mw, one event for the whole sum) and
# INST_RETIRED (= Ir). Values are exact (simulated counts): the program level equals the
# totals memprof record prints, the symbol level perf report's per-symbol periods.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
command -v valgrind > /dev/null || { echo "SKIP: no valgrind"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
cd "$T" || exit 1
"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o sim.data -- "$KERNELS/cachebench" -s 65536 -r 20 \
	> rec.out 2> rec.err || { echo "FAIL record --sim"; cat rec.err; exit 1; }
repl=$(sed -n 's/.*L1D_REPL = D1mr+D1mw: \([0-9]*\) .*/\1/p' rec.err)
inst=$(sed -n 's/.*INST_RETIRED = Ir: \([0-9]*\) .*/\1/p' rec.err)
[ -n "$repl" ] && [ -n "$inst" ] || { echo "FAIL no totals"; cat rec.err; exit 1; }
# the simulator that ran (record's summary names it): memprof's mpsim, or callgrind
by=$(sed -n "s/.*SIMULATED by valgrind's \([a-z]*\): .*/\1/p" rec.err)
case $by in mpsim|callgrind) ;; *) echo "FAIL record names no simulator"; cat rec.err; exit 1;; esac

"$MEMPROF" ratios -i sim.data --csv L1D_MISS_RATE > prog.csv 2> prog.err || { echo "FAIL ratios"; exit 1; }
# the csv starts with its header row (a comment line broke csv readers); the banner on stderr
head -1 prog.csv | grep -q "^ratio_id,ratio," || { echo "FAIL csv: not the header row first"; head -2 prog.csv; fail=1; }
grep -q "SIMULATED: counts from valgrind's $by cache simulation" prog.err ||
	{ echo "FAIL csv: no SIMULATED banner on stderr"; cat prog.err; fail=1; }
want=$(awk -v a="$repl" -v b="$inst" 'BEGIN { printf "%.15g", a / b }')
line=$(awk -F, '$1 == "L1D_MISS_RATE" && $3 == "program"' prog.csv)
got=$(echo "$line" | cut -d, -f7)
echo "$line" | grep -q ',0,1,0,cachegrind,approx,'"$repl,$inst"',"SIMULATED by valgrind'"'"'s '"$by"' (I1 [0-9]*,[0-9]*,[0-9]* D1 [0-9]*,[0-9]*,[0-9]* LL [0-9]*,[0-9]*,[0-9]*)"$' ||
	{ echo "FAIL not exact/cachegrind/SIMULATED with counts $repl/$inst: $line"; fail=1; }
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-12 * w) }' &&
	echo "ok   program: $got = $repl / $inst" || { echo "FAIL program $got, want $want"; fail=1; }

if command -v "$PERF" > /dev/null; then
	"$PERF" report -i sim.data --stdio --sort sym --no-group -F period,sym 2>/dev/null |
		awk '/^# Samples:/ { ev = $NF; gsub(/'"'"'/, "", ev) } $2 == "[.]" && $3 == "walk" { p[ev] = $1 }
		     END { printf "%.15g %s %s\n", p["L1D_REPL"] / p["INST_RETIRED"], p["L1D_REPL"], p["INST_RETIRED"] }' > walk.want
	read -r want a b < walk.want
	"$MEMPROF" ratios -i sim.data --level symbol --top 0 --csv L1D_MISS_RATE > sym.csv
	got=$(awk -F, '$4 == "walk" { print $7 }' sym.csv)
	awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-12 * w) }' &&
		echo "ok   walk: $got = $a / $b (perf report periods)" || { echo "FAIL walk $got, want $want"; fail=1; }
fi
exit $fail
