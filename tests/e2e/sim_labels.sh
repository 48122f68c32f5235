#!/bin/bash
# Every output of report and annotate built from a simulated recording says SIMULATED;
# a measured recording does not.
. "$(dirname "$0")/sim_lib.sh"
"$MEMPROF" record --sim -e L1D_REPL,INST_RETIRED -o sim.data -- "$KERNELS/cachebench" -s 64K -r 4 \
	>rec.out 2>&1 || { cat rec.out; fail "record --sim failed"; }
grep -q 'SIMULATED' rec.out || fail "record --sim does not say SIMULATED"
by=$(sed -n "s/.*SIMULATED by valgrind's \([a-z]*\): .*/\1/p" rec.out)
case $by in mpsim|callgrind) ;; *) fail "record names no simulator: $(cat rec.out)";; esac
banner="SIMULATED: counts from valgrind's $by cache simulation (I1 "
"$MEMPROF" report -i sim.data >r.txt || fail "report failed"
sed -n 2p r.txt | grep -qF "# $banner" || { head -3 r.txt; fail "report text: no SIMULATED banner on line 2"; }
"$MEMPROF" report -i sim.data --csv >r.csv 2>r.err || fail "report --csv failed"
# the csv starts with its header row (a comment line broke csv readers); the banner on stderr
head -1 r.csv | grep -q "^dso,level,sym,[A-Za-z0-9_]* samples," || fail "report --csv: not the header row first: $(head -1 r.csv)"
grep -qF "memprof report: $banner" r.err || fail "report --csv: no SIMULATED banner on stderr"
"$MEMPROF" report -i sim.data --json >r.json || fail "report --json failed"
python3 -c 'import json,sys; d=json.load(open("r.json")); s=d["simulated"]; assert s["by"]==sys.argv[1] and s["D1"].count(",")==2, s' "$by" ||
	fail "report --json: no simulated object"
"$MEMPROF" annotate -i sim.data walk >a.txt || fail "annotate failed"
grep -qF "# $banner" a.txt || fail "annotate: no SIMULATED banner"
# Counts, not samples, in a simulated annotation: the pointer-chase line holds one L1d
# miss per element (64K / 64-byte elements = 1024, 4 walks + the check walk = 5120 steps,
# so at least 1024 misses: the first walk brings each line in once).
line=$(grep -n 'HOT: pointer chase' "$(dirname "$0")/../../kernels/cachebench.c" | cut -d: -f1)
grep -q '^#.* count .*%' a.txt || fail "annotate of a simulated file does not show counts"
n=$(awk -v l="$line" '$0 ~ ":[ ]+"l"  " { print $2; exit }' a.txt)
[ -n "$n" ] && [ "$n" -ge 1024 ] || { cat a.txt; fail "annotate: pointer-chase line $line count '$n' < 1024"; }
"$MEMPROF" annotate -i sim.data --samples walk | grep -q '^#.* samples .*%' || fail "annotate --samples"
# A measured recording carries no such label.
"$MEMPROF" record -q -e cpu-clock -c 100000 -o real.data -- "$KERNELS/cachebench" -s 64K -r 200 >/dev/null 2>&1 ||
	fail "record cpu-clock failed"
"$MEMPROF" report -i real.data | grep -q SIMULATED && fail "a measured recording is labelled SIMULATED"
"$MEMPROF" report -i real.data --json | python3 -c 'import json,sys; assert "simulated" not in json.load(sys.stdin)' ||
	fail "report --json of a measured recording has a simulated object"
echo "sim_labels: ok"
