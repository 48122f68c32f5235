#!/bin/bash
# must-show 6: memprof annotate --predict (and the TUI's annotate view) show on each line
# with a hint its hint and correct/incorrect counts, WARNING on the wrong one; with a
# `record --sim -e branches,branch-misses` recording of the same program, the branch misses
# measured on the same lines. known.c at -O0 keeps one conditional branch per `if`: each
# hinted line executes 1000 branches, and the note's miss count is the one in the line's
# branch-misses column. The predict counts come from the -DDEBUGPRED build, the recording
# from the normal build of the same source (lines are matched by file and line).
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
command -v valgrind >/dev/null || { echo "skip: valgrind (record --sim) is not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
SRC=$PREDICT_SRC/known.c
LL=$(grep -n 'KNOWN-LIKELY' "$SRC" | cut -d: -f1)
UL=$(grep -n 'KNOWN-UNLIKELY' "$SRC" | cut -d: -f1)
fail=0
gcc -O0 -g -I"$PREDICT_INC" "$SRC" -o kn && gcc -O0 -g -DDEBUGPRED -I"$PREDICT_INC" "$SRC" -o knp || exit 1
"$MEMPROF" predict -o kn.pred -- ./knp >/dev/null 2>&1 || { echo "FAIL: predict run"; exit 1; }
"$MEMPROF" record --sim -e branches,branch-misses -o sim.data -- ./kn >/dev/null 2>rec.err ||
	{ echo "FAIL: record --sim"; cat rec.err; exit 1; }
"$MEMPROF" annotate -q -i sim.data --predict kn.pred loop >ann.txt 2>ann.err ||
	{ echo "FAIL: annotate"; cat ann.err; exit 1; }
# a source line of annotate: "   BRANCHES  PCT  MISSES  PCT :  LINE  text   <-- note"
python3 - ann.txt "$LL" "$UL" <<'PY' || fail=1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
want = {int(sys.argv[2]): ("likely", 999, 1, "0.10", False), int(sys.argv[3]): ("unlikely", 300, 700, "70.00", True)}
ok = True
seen = set()
for l in lines:
    # per event: count, %all, %func (issue 19)
    m = re.match(r"^..\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+[\d.]+%\s+:\s+(\d+)\s", l)
    m0 = re.match(r"^.*:\s+(\d+)\s", l)
    num = int(m.group(3)) if m else (int(m0.group(1)) if m0 and " : " in l else None)
    if "<--" in l and num not in want:
        print("FAIL: a note on line", num, ":", l); ok = False
    if num in want:
        hint, c, i, pct, warn = want[num]
        if not m:
            print("FAIL: no branch counts on line", num, ":", l); ok = False; continue
        br, miss = int(m.group(1)), int(m.group(2))
        note = "<-- %s: correct %d, incorrect %d (%s%%)%s; branch misses %.2f%% (%d of %d)" % (
            hint, c, i, pct, " WARNING" if warn else "", 100.0 * miss / br, miss, br)
        if br != 1000 or not l.endswith(note):
            print("FAIL: line %d: want ...%s (1000 branches)\n got %s" % (num, note, l)); ok = False
        seen.add(num)
if seen != set(want):
    print("FAIL: hinted lines shown:", sorted(seen)); ok = False
sys.exit(0 if ok else 1)
PY
"$MEMPROF" annotate -q -i sim.data loop | grep -q -- '<--' && { echo "FAIL: a note without --predict"; fail=1; }
# a recording without branch events: the hints only
"$MEMPROF" record --sim -e Ir -o ir.data -- ./kn >/dev/null 2>&1 &&
	"$MEMPROF" annotate -q -i ir.data --predict kn.pred loop >ir.txt &&
	grep -qE ": +$UL  .*<-- unlikely: correct 300, incorrect 700 \(70.00%\) WARNING$" ir.txt ||
	{ echo "FAIL: hints without branch events"; cat ir.txt; fail=1; }
# the TUI's annotate view: the same notes
"$MEMPROF" tui -i sim.data --predict kn.pred --size 220x24 --batch '/loop<ENTER><ENTER>' >tui.txt 2>&1
grep -qE "^.* $UL  .*<-- unlikely: correct 300, incorrect 700 \(70.00%\) WARNING; branch misses [0-9.]+% \([0-9]+ of 1000\)" tui.txt &&
	grep -qE "^.* $LL  .*<-- likely: correct 999, incorrect 1 \(0.10%\); branch misses" tui.txt ||
	{ echo "FAIL: tui"; cat tui.txt; fail=1; }
# a bad predict file: one line, exit 1
head -c 50 kn.pred >bad.pred
"$MEMPROF" annotate -q -i sim.data --predict bad.pred loop >/dev/null 2>err.txt
rc=$?
[ $rc -eq 1 ] && grep -q "bad.pred: offset" err.txt && [ "$(wc -l <err.txt)" -eq 1 ] ||
	{ echo "FAIL: bad --predict rc=$rc"; cat err.txt; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
