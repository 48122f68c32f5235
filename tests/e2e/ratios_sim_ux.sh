#!/bin/bash
# memprof ratios and memprof tui on a simulated recording (memprof record --sim) say so
# where a reader cannot miss it, show exact values (no intervals; '~' only where an event
# was counted fewer than --min-samples times, and --sort puts those places last),
# put the places with the most misses first, and print record commands for the missing
# ratios that work.
#   - the SIMULATED line with the cache geometry record printed, in text, csv and json
#   - cachebench -s 4M -r 4: walk() has most of the L1 misses (one per element walked,
#     262144), so it comes first at --level symbol, and its pointer-chase line first at
#     --level line; the order is by the numerator's count, as perf report's periods say
#   - the "not computable" list names only ratios with a cachegrind formula, with a
#     `memprof record --sim` command; running it (on a tiny workload) gives the ratio
#   - --record-cmd --pmu cachegrind: one valgrind run for every simulable ratio
#   - memprof tui --batch: "SIMULATED (callgrind)" in the title and the summary
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
command -v valgrind > /dev/null || { echo "SKIP: no valgrind"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }
cd "$T" || exit 1

"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o sim.data -- "$KERNELS/cachebench" -s 4M -r 4 \
	> rec.out 2> rec.err || { echo "FAIL record --sim"; cat rec.err; exit 1; }
geom=$(sed -n 's/.*caches \(I1 [0-9,]* D1 [0-9,]* LL [0-9,]*\) .*/\1/p' rec.err)
[ -n "$geom" ] || { echo "FAIL no cache geometry in record's output"; cat rec.err; exit 1; }
repl=$(sed -n 's/.*L1D_REPL = D1mr+D1mw: \([0-9]*\) .*/\1/p' rec.err)
inst=$(sed -n 's/.*INST_RETIRED = Ir: \([0-9]*\) .*/\1/p' rec.err)
# the simulator that ran (record's summary names it): memprof's mpsim, or callgrind
by=$(sed -n "s/.*SIMULATED by valgrind's \([a-z]*\): .*/\1/p" rec.err)
case $by in mpsim|callgrind) ;; *) echo "FAIL record names no simulator"; cat rec.err; exit 1;; esac

# ---- text: the SIMULATED header at every level, no interval
want="# SIMULATED: counts from valgrind's $by cache simulation ($geom), not measured by a PMU"
for level in program symbol line; do
	"$MEMPROF" ratios -i sim.data --level "$level" > "$level.txt" 2> "$level.err" ||
		{ bad "ratios --level $level"; cat "$level.err"; continue; }
	grep -qxF "$want" "$level.txt" || { bad "$level: no '$want'"; head -4 "$level.txt"; }
	if grep -q "95% interval\|+-" "$level.txt"; then
		bad "$level: intervals on a simulated file"
		grep "95% interval\|+-" "$level.txt" | head -3
	fi
done
# program level: the counts column holds the totals record printed
grep -q "^L1D Miss Rate .* $repl/$inst  ( D1mr + D1mw ) / Ir" program.txt ||
	{ bad "program: no L1D Miss Rate with counts $repl/$inst"; grep "L1D Miss" program.txt; }

# ---- symbol level: walk first, with perf report's periods; order by the misses
first=$(awk '/^L1D Miss Rate = /{ getline; getline; print $3; exit }' symbol.txt)
[ "$first" = walk ] || { bad "symbol: '$first' first, want walk"; sed -n '/^L1D Miss Rate =/,+5p' symbol.txt; }
"$MEMPROF" ratios -i sim.data --level symbol --csv L1D_MISS_RATE > sym.csv 2> sym.err || bad "ratios --csv"
# the csv starts with its header row; the banner goes to stderr
grep -qxF "memprof ratios: ${want#\# }" sym.err || { bad "csv: no '$want' on stderr"; cat sym.err; }
cp sym.csv sym.rows.csv
awk -F, 'NR == 2 && $4 != "walk" { print "FAIL csv: " $4 " first, want walk"; exit 1 }
	 NR > 2 && $16 > prev { print "FAIL csv: not ordered by the numerator at " $4; exit 1 }
	 NR > 1 { prev = $16 }' sym.rows.csv || fail=1
walk_num=$(awk -F, '$4 == "walk" { print $16 }' sym.csv)
if command -v "$PERF" > /dev/null; then
	perf_walk=$("$PERF" report -i sim.data --stdio --sort sym --no-group -F period,sym 2>/dev/null |
		awk '/^# Samples:/ { ev = $NF; gsub(/'"'"'/, "", ev) }
		     ev == "L1D_REPL" && $2 == "[.]" && $3 == "walk" { print $1 }')
	[ "$walk_num" = "$perf_walk" ] || bad "walk's misses $walk_num, perf report says $perf_walk"
fi
[ "${walk_num:-0}" -ge 262144 ] || bad "walk has $walk_num misses, want >= 262144 (4M / 64 per walk, 4 walks)"
# '~' (few) exactly where 1 to 9 replacements or fewer than 10 instructions were counted:
# 0 replacements is an exact 0, not "few" (this was "either count below 10", which marked
# every place without a replacement)
awk -F, 'NR > 1 && ($11 == 1) != (($16 > 0 && $16 < 10) || $17 < 10) { print "FAIL few at " $4 ": " $0; exit 1 }' \
	sym.rows.csv || fail=1
# exact counts are never "few samples"; --min-samples 1 marks nothing
grep -q "few samples" symbol.txt && { bad "symbol: 'few samples' on exact counts"; grep "few samples" symbol.txt | head -3; }
"$MEMPROF" ratios -i sim.data --level symbol --csv --min-samples 1 L1D_MISS_RATE > min1.csv 2>/dev/null ||
	bad "ratios --min-samples 1"
awk -F, '/^#/ { next } !h { h = 1; next } $11 == 1 { print "FAIL --min-samples 1: few at " $4 ": " $0; exit 1 }' \
	min1.csv || fail=1
# --sort orders by the ratio's value, the places resting on fewer than 10 counts last
# (one miss in one instruction is 100%, not the worst place)
"$MEMPROF" ratios -i sim.data --level symbol --csv --sort L1D_MISS_RATE L1D_MISS_RATE > sorted.csv
awk -F, '/^#/ { next } !h { h = 1; next }
	n++ && ($11 < pfew || ($11 == pfew && $7 > prev)) { print "FAIL --sort: not by (few, value) at " $4; exit 1 }
	{ prev = $7; pfew = $11 }' sorted.csv || fail=1
awk -F, '/^#/ { next } !h { h = 1; next } { n++; f += $11 } END { exit !(n > f && f > 0) }' sorted.csv ||
	bad "--sort: want both places with 10 or more counts and fewer ($(wc -l <sorted.csv) rows)"
# line level: the pointer chase first
hot=$(grep -n 'HOT: pointer chase' "${KERNELS_SRC:-$KERNELS/../../kernels}/cachebench.c" 2>/dev/null | cut -d: -f1)
lfirst=$(awk '/^L1D Miss Rate = /{ getline; getline; print $3; exit }' line.txt)
if [ -n "$hot" ]; then
	[ "$lfirst" = "cachebench.c:$hot" ] || bad "line: '$lfirst' first, want cachebench.c:$hot"
else
	case $lfirst in cachebench.c:*) ;; *) bad "line: '$lfirst' first, want a cachebench.c line";; esac
fi

# ---- csv and json say SIMULATED
grep -q ',"SIMULATED by valgrind'"'"'s '"$by"' ('"$geom"')"$' sym.csv ||
	{ bad "csv: no simulated column"; head -2 sym.csv; }
head -1 sym.rows.csv | grep -q ',numerator,denominator,simulated$' || bad "csv header: $(head -1 sym.rows.csv)"
"$MEMPROF" ratios -i sim.data --json > prog.json 2>/dev/null || bad "ratios --json"
python3 - "$geom" "$repl" "$inst" prog.json "$by" <<'PY' || fail=1
import json, sys
geom, repl, inst, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
j = json.load(open(path))
s = j.get("simulated")
g = geom.split()
want = {"by": sys.argv[5], g[0]: g[1], g[2]: g[3], g[4]: g[5]}
if not isinstance(s, dict) or any(s.get(k) != v for k, v in want.items()):
    sys.exit("FAIL json: simulated = %r, want %r" % (s, want))
if "SIMULATED" not in json.dumps(j) and "not measured by a PMU" not in s.get("note", ""):
    sys.exit("FAIL json: no note")
r = [x for x in j["ratios"] if x["id"] == "L1D_MISS_RATE"][0]["places"][0]
if r["numerator"] != repl or r["denominator"] != inst or r["few"] or not r["exact"] or r["lo"] != r["hi"]:
    sys.exit("FAIL json: program place %r" % r)
ns = j.get("not_simulable", [])
if "IPC" not in ns or any(m["id"] == "IPC" for m in j["missing"]):
    sys.exit("FAIL json: IPC not in not_simulable (%r)" % ns)
for m in j["missing"]:
    if not m["record"].startswith("memprof record --sim -e "):
        sys.exit("FAIL json: %s: record %r" % (m["id"], m["record"]))
PY

# ---- the missing list: cachegrind ratios with a working command, one line for the rest
sed -n '/^not computable/,$p' program.txt > missing.txt
grep -q -- '--sim cachegrind' missing.txt && bad "missing: '--sim cachegrind' (--sim takes no value)"
if grep -q '^    memprof record -e ' missing.txt; then
	bad "missing: a PMU record command for a simulated file"; grep '^    memprof record -e ' missing.txt
fi
grep -q '^  cannot be simulated at all (.*): .*IPC' missing.txt || bad "missing: no 'cannot be simulated' line naming IPC"
cmd=$(awk '/^  L1D Load Miss Ratio: /{ getline; print; exit }' missing.txt)
case $cmd in
"    memprof record --sim -e "*" -- $KERNELS/cachebench -s 4M -r 4") ;;
*) bad "missing: L1D Load Miss Ratio command '$cmd'"; cmd="";;
esac
if [ -n "$cmd" ]; then
	# the printed command, with this build's memprof and a tiny workload
	read -r -a argv <<< "${cmd%% -- *}"
	argv[0]=$MEMPROF
	mkdir run1 && (cd run1 && "${argv[@]}" -- "$KERNELS/cachebench" -s 64K -r 1 > out 2> err) ||
		{ bad "running '${cmd}' failed"; cat run1/err; }
	"$MEMPROF" ratios -i run1/memprof.data L1D_LOAD_MISS_RATIO > run1.txt 2>&1 ||
		{ bad "L1D Load Miss Ratio not computable after its record command"; cat run1.txt; }
	grep -q '^L1D Load Miss Ratio  *[0-9.]*%  ' run1.txt || { bad "no L1D Load Miss Ratio value"; cat run1.txt; }
fi

# ---- --record-cmd --pmu cachegrind: one run that computes every simulable ratio
"$MEMPROF" ratios --record-cmd --pmu cachegrind -- "$KERNELS/cachebench" -s 64K -r 1 > rc.txt ||
	bad "--record-cmd --pmu cachegrind"
[ "$(grep -c '^memprof record' rc.txt)" = 1 ] || { bad "--record-cmd --pmu cachegrind: not one command"; cat rc.txt; }
grep -q '^# cannot be simulated at all (.*): .*IPC' rc.txt || bad "--record-cmd: no 'cannot be simulated' line"
cmd=$(grep '^memprof record --sim -e ' rc.txt)
if [ -n "$cmd" ]; then
	read -r -a argv <<< "$cmd"
	argv[0]=$MEMPROF
	mkdir run2 && (cd run2 && "${argv[@]}" > out 2> err) || { bad "running '$cmd' failed"; cat run2/err; }
	"$MEMPROF" ratios -i run2/memprof.data > run2.txt 2>&1 || bad "ratios on the --record-cmd recording"
	n=$(sed -n '/^ratio /,/^$/p' run2.txt | grep -c ' (cachegrind, ')
	want_n=$(grep '^# run 1 of 1: ' rc.txt | sed 's/ (cachegrind.*//' | tr ',' '\n' | wc -l)
	[ "$n" = "$want_n" ] && [ "$n" -ge 8 ] || { bad "--record-cmd recording: $n ratios, want $want_n"; cat run2.txt; }
	sed -n '/^not computable/,$p' run2.txt | grep -q 'record it with' &&
		bad "--record-cmd recording still misses a simulable ratio"
else
	bad "--record-cmd --pmu cachegrind printed no --sim command"; cat rc.txt
fi

# ---- on a machine without a hardware PMU (this VM, CI runners) the PMU commands say so
if ! ls /sys/bus/event_source/devices/ 2>/dev/null | grep -qE '^(cpu|cpu_core|cpu_atom|armv8.*|arm_.*pmu.*)$'; then
	"$MEMPROF" ratios --record-cmd L1D_MISS_RATE -- ls > nopmu.txt
	grep -q '^# this machine has no hardware PMU.*--sim\|^# recorded with memprof record --sim' nopmu.txt ||
		{ bad "--record-cmd without a PMU: no --sim hint"; cat nopmu.txt; }
	"$MEMPROF" record -q -e task-clock -o measured.data -- "$KERNELS/cachebench" -s 64K -r 1 > /dev/null 2>&1 &&
		"$MEMPROF" ratios -i measured.data > measured.txt 2>&1
	grep -q '^  this machine has no hardware PMU: memprof record --sim ' measured.txt ||
		{ bad "ratios of a measured file without a PMU: no --sim hint"; tail -3 measured.txt; }
fi

# ---- the TUI
"$MEMPROF" tui -i sim.data --batch "" --size 100x10 > tui1.txt 2>&1 || bad "tui --batch"
head -1 tui1.txt | grep -q "^ SIMULATED ($by) | Symbols: " || { bad "tui title"; head -1 tui1.txt; }
"$MEMPROF" tui -i sim.data --batch "i" --size 100x40 > tui2.txt 2>&1 || bad "tui --batch i"
grep -q "^ SIMULATED ($by):" tui2.txt && grep -qF "caches $geom" tui2.txt ||
	{ bad "tui summary: no SIMULATED note with $geom"; cat tui2.txt; }
grep -q "^ L1D Miss Rate  *0\.0" tui2.txt || { bad "tui summary: no L1D Miss Rate"; cat tui2.txt; }
"$MEMPROF" tui -i sim.data --batch "R" --size 100x30 > tui3.txt 2>&1 || bad "tui --batch R"
grep -q "L1D Miss Rate" tui3.txt || { bad "tui ratios: no L1D Miss Rate column"; cat tui3.txt; }

[ $fail = 0 ] && echo "PASS: simulated ratios and tui ($geom; walk $walk_num misses first)"
exit $fail
