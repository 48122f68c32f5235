#!/bin/bash
# memprof report -i A -i B: two recordings of the same program read as one equal the sum of
# their own reports (samples and estimated counts per symbol, per object; the totals), the
# header names both files; a recording whose events differ is refused with one line, exit 1.
# annotate -i A -i B: each source line the sum of the two annotations.
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}"
rec() { # out event args...
	local o=$1 e=$2; shift 2
	"$PERF" record -q -e "$e" -F 2000 -o "$o" "$KERNELS/cachebench" "$@" >/dev/null 2>"$o.err" ||
		{ echo "SKIP: perf record: $(tail -1 "$o.err")"; exit 77; }
}
rec a.data cpu-clock -m walk -s 4M -o seq -r 30
rec b.data cpu-clock -m walk -s 4M -o random -r 3
rec t.data task-clock -m walk -s 1M -r 3
for k in dso,sym dso srcline; do
	"$MEMPROF" report -q -i a.data --sort $k --csv >a.$k.csv
	"$MEMPROF" report -q -i b.data --sort $k --csv >b.$k.csv
	"$MEMPROF" report -q -i a.data -i b.data --sort $k --csv >ab.$k.csv ||
		{ echo "FAIL report -i a -i b --sort $k"; fail=1; continue; }
	python3 - a.$k.csv b.$k.csv ab.$k.csv $k <<'PY' || fail=1
import csv, sys
def load(p):
    rows = list(csv.reader(l for l in open(p) if not l.startswith('#')))
    h = rows[0]
    nk = h.index('cpu-clock samples')
    return {tuple(r[:nk]): (int(r[nk]), int(r[nk + 1])) for r in rows[1:]}
a, b, ab = (load(p) for p in sys.argv[1:4])
want = {}
for d in (a, b):
    for k, (s, p) in d.items():
        w = want.setdefault(k, [0, 0]); w[0] += s; w[1] += p
bad = [k for k in set(want) | set(ab) if tuple(want.get(k, (0, 0))) != ab.get(k)]
# by object only cachebench and the kernel are sure to have samples (ld.so, libc: maybe)
if bad or len(ab) < (2 if sys.argv[4] == 'dso' else 3):
    sys.exit("FAIL %s: %d places differ from the sum, first %s: sum %s, report %s" % (
        sys.argv[4], len(bad), bad[:1], [want.get(k) for k in bad[:1]], [ab.get(k) for k in bad[:1]]))
print("%s: %d places, each the sum of the two reports" % (sys.argv[4], len(ab)))
PY
done
"$MEMPROF" report -q -i a.data -i b.data >ab.txt
grep -q '^#   a.data: ' ab.txt && grep -q '^#   b.data: ' ab.txt || { echo "FAIL: the header does not name both files"; fail=1; }
sa=$(sed -n 's/.*cpu-clock: .*samples \([0-9]*\),.*/\1/p' ab.txt)
na=$("$PERF" report -i a.data --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
nb=$("$PERF" report -i b.data --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
[ -n "$na" ] && [ "$sa" = "$((na + nb))" ] || { echo "FAIL: total samples $sa, perf says $na + $nb"; fail=1; }
"$MEMPROF" report -q -i a.data -i t.data >mm.out 2>mm.err
rc=$?
[ $rc = 1 ] && [ "$(wc -l <mm.err)" = 1 ] && grep -q "t.data: has no event cpu-clock" mm.err ||
	{ echo "FAIL: mismatched events: rc $rc, $(cat mm.err)"; fail=1; }
# annotate -i A -i B: every line of walk() holds the sum of its samples in the two
# annotations, and the hottest line is the pointer chase
"$MEMPROF" annotate -i a.data walk >ann.a || { echo "FAIL: annotate -i a.data walk"; fail=1; }
"$MEMPROF" annotate -i b.data walk >ann.b || { echo "FAIL: annotate -i b.data walk"; fail=1; }
"$MEMPROF" annotate -i a.data -i b.data walk >ann.ab || { echo "FAIL: annotate -i a -i b walk"; fail=1; }
python3 - ann.a ann.b ann.ab <<'PY' || fail=1
import re, sys
def lines(p):
    d = {}
    for l in open(p):
        m = re.match(r"^(=>|\*)? +(\d+) +[\d.]+% +[\d.]+% : +(\d+) ", l)  # count %all %func
        if m:
            d[int(m.group(3))] = int(m.group(2))
    return d
a, b, ab = (lines(p) for p in sys.argv[1:4])
want = {k: a.get(k, 0) + b.get(k, 0) for k in set(a) | set(b)}
if not ab or want != ab:
    sys.exit(f"FAIL annotate -i a -i b: lines {ab}, the sums {want}")
hot = [l for l in open(sys.argv[3]) if l.startswith("=>")]
if len(hot) != 1 or "HOT: pointer chase" not in hot[0]:
    sys.exit(f"FAIL annotate -i a -i b: hottest line {hot}")
print(f"annotate: {len(ab)} lines of walk, each the sum of the two annotations")
PY
grep -q '^#   a.data: [0-9]* samples' ann.ab && grep -q '^#   b.data: ' ann.ab ||
	{ echo "FAIL: annotate's header does not name both files"; fail=1; }
"$MEMPROF" annotate -i a.data -i t.data walk >/dev/null 2>am.err
rc=$?
[ $rc = 1 ] && [ "$(wc -l <am.err)" = 1 ] || { echo "FAIL: annotate, mismatched events: rc $rc, $(cat am.err)"; fail=1; }
# two builds of the program (the same name, another build-id): summed by name, with a warning
# naming the object
mkdir -p kb
cp "$KERNELS/cachebench" kb/cachebench
"$PERF" record -q -e cpu-clock -F 2000 -o v1.data kb/cachebench -s 1M -o random -r 300 >/dev/null 2>&1
python3 - kb/cachebench <<'PY'
import re, subprocess, sys
bid = re.search(r'Build ID: ([0-9a-f]+)', subprocess.run(['readelf', '-n', sys.argv[1]],
                capture_output=True, text=True).stdout).group(1)
b = open(sys.argv[1], 'rb').read()
old = bytes.fromhex(bid)
assert b.count(old) == 1, b.count(old)
open(sys.argv[1], 'wb').write(b.replace(old, bytes(x ^ 0xff for x in old)))
PY
"$PERF" record -q -e cpu-clock -F 2000 -o v2.data kb/cachebench -s 1M -o random -r 300 >/dev/null 2>&1
"$MEMPROF" report -i v1.data -i v2.data --csv >v.csv 2>v.err || { echo "FAIL: report -i v1 -i v2: $(cat v.err)"; fail=1; }
grep -q '^memprof report: warning: v2.data: .*/kb/cachebench has another build-id than in v1.data' v.err ||
	{ echo "FAIL: two builds without a warning: $(cat v.err)"; fail=1; }
# walk of both builds is one row, the sum of the two
s1=$("$MEMPROF" report -q -i v1.data --csv | awk -F, '$3 == "walk" { print $4 }')
s2=$("$MEMPROF" report -q -i v2.data --csv | awk -F, '$3 == "walk" { print $4 }')
s12=$(awk -F, '$3 == "walk" { print $4 }' v.csv)
[ -n "$s1" ] && [ -n "$s2" ] && [ "$s12" = "$((s1 + s2))" ] ||
	{ echo "FAIL: two builds: walk $s12 samples, not $s1 + $s2"; fail=1; }
"$MEMPROF" report -i v1.data -i v1.data --csv >/dev/null 2>vv.err
[ ! -s vv.err ] || { echo "FAIL: one build warned about: $(cat vv.err)"; fail=1; }
[ $fail = 0 ] && echo "PASS report_many"
exit $fail
