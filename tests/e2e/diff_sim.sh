#!/bin/bash
# memprof diff --ratios on simulated recordings (record --sim, callgrind): cachebench's
# walk over the same working set in sequential and in random order. The L1D Miss Rate of
# walk rises, both values are exactly those of each file's own `memprof ratios`, the change
# is exact and significant; a recording against a copy of itself, and two recordings of
# the random walk at walk, show no significant change.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0
# 8-byte elements (-n 0): in order, one L1D miss per 8 loads; at random nearly every load misses
for o in seq random random2; do
	"$MEMPROF" record --sim -o $o.data -- "$KERNELS/cachebench" -s 256K -n 0 -o ${o%2} -r 5 \
		>/dev/null 2>$o.err || { echo "FAIL record --sim $o: $(tail -1 $o.err)"; exit 1; }
done
"$MEMPROF" diff --ratios --csv seq.data random.data >d.csv 2>d.err || { echo "FAIL diff: $(cat d.err)"; exit 1; }
for f in seq random; do
	"$MEMPROF" ratios --csv --level symbol -i $f.data >$f.ratios.csv 2>/dev/null ||
		{ echo "FAIL ratios $f"; exit 1; }
done
python3 - d.csv seq.ratios.csv random.ratios.csv <<'PY' || fail=1
import csv, sys
d = [r for r in csv.DictReader(open(sys.argv[1]))]
def own(path):
    rows = csv.DictReader(l for l in open(path) if not l.startswith('#'))
    return {(r['ratio_id'], r['place'], r['dso']): r['value'] for r in rows if r['level'] == 'symbol'}
base, new = own(sys.argv[2]), own(sys.argv[3])
w = [r for r in d if r['ratio_id'] == 'L1D_MISS_RATE' and r['level'] == 'symbol' and r['place'] == 'walk']
if len(w) != 1:
    sys.exit("FAIL: no L1D Miss Rate row for walk: %d" % len(w))
w = w[0]
ok = True
k = ('L1D_MISS_RATE', 'walk', 'cachebench')
if w['baseline'] != base[k] or w['value'] != new[k]:
    print("FAIL: values %s -> %s, ratios says %s -> %s" % (w['baseline'], w['value'], base[k], new[k])); ok = False
b, v = float(w['baseline']), float(w['value'])
if not v > 3 * b:
    print("FAIL: the miss rate does not rise: %g -> %g" % (b, v)); ok = False
if (w['exact'], w['significant']) != ('1', '1') or float(w['lo']) != float(w['change']):
    print("FAIL: not exact and significant:", w); ok = False
if abs(float(w['change']) - (v - b)) > 1e-12:
    print("FAIL: change %s is not %g" % (w['change'], v - b)); ok = False
# every value the diff shows is the file's own value at that place
bad = [r for r in d if r['level'] == 'symbol' and
       (base.get((r['ratio_id'], r['place'], r['dso'])) not in (None, r['baseline']) or
        new.get((r['ratio_id'], r['place'], r['dso'])) not in (None, r['value']))]
if bad:
    print("FAIL: %d values differ from ratios' own, first %s" % (len(bad), bad[0])); ok = False
# significant changes come first, the walk's L1D rise among them
sig = [r['significant'] for r in d]
if sig != sorted(sig, reverse=True):
    print("FAIL: significant changes are not first"); ok = False
print("walk L1D Miss Rate %.4f -> %.4f, %d of %d values significant" % (b, v, sig.count('1'), len(sig)))
sys.exit(0 if ok else 1)
PY
cp seq.data same.data
"$MEMPROF" diff --ratios --csv seq.data same.data >s.csv || { echo "FAIL diff same"; fail=1; }
n=$(awk -F, 'NR > 1 && $NF == 1' s.csv | wc -l)
[ "$n" = 0 ] || { echo "FAIL: a recording against itself: $n significant changes"; fail=1; }
[ "$(wc -l <s.csv)" -gt 10 ] || { echo "FAIL: a recording against itself: no values"; fail=1; }
"$MEMPROF" diff --ratios --csv random.data random2.data >r.csv || { echo "FAIL diff random"; fail=1; }
n=$(awk -F, 'NR > 1 && $6 == "cachebench" && $7 == "walk" && $NF == 1' r.csv | wc -l)
[ "$n" = 0 ] || { echo "FAIL: two random walks: $n significant changes at walk"; fail=1; }
# the text form says it, largest first
"$MEMPROF" diff --ratios seq.data random.data >d.txt
grep -q 'L1D Miss Rate .* walk .* exact .*significant' d.txt || { echo "FAIL: text: walk's L1D change"; fail=1; }
# without --ratios the text form adds the same comparison after the places (both files
# have the ratios' events)
"$MEMPROF" diff seq.data random.data >plain.txt || { echo "FAIL: diff without --ratios"; fail=1; }
grep -q "^# Event 'Ir'" plain.txt && sed -n '/^# memprof diff --ratios/,$p' plain.txt | cmp -s - d.txt ||
	{ echo "FAIL: diff without --ratios does not end with the ratio comparison"; fail=1; }
# ratios -i A -i B: the two recordings summed: numerators and denominators of every ratio
# at every symbol are the sums of each file's own
"$MEMPROF" ratios --csv --level symbol -i seq.data -i random.data >sum.ratios.csv 2>/dev/null ||
	{ echo "FAIL ratios -i seq -i random"; fail=1; }
python3 - seq.ratios.csv random.ratios.csv sum.ratios.csv <<'PY' || fail=1
import csv, sys
def load(p):
    return {(r['ratio_id'], r['place'], r['dso']): (float(r['numerator']), float(r['denominator']))
            for r in csv.DictReader(l for l in open(p) if not l.startswith('#'))}
a, b, ab = (load(p) for p in sys.argv[1:4])
bad = [k for k in ab if k in a and k in b and
       (ab[k][0] != a[k][0] + b[k][0] or ab[k][1] != a[k][1] + b[k][1])]
k = ('L1D_MISS_RATE', 'walk', 'cachebench')
if bad or k not in ab:
    sys.exit("FAIL ratios -i: %d places are not the sums, first %s" % (len(bad), bad[:1]))
print("ratios -i: walk L1D %g/%g = sums of %g/%g and %g/%g" % (ab[k] + a[k] + b[k]))
PY
"$MEMPROF" ratios -i seq.data -i seq.data --level symbol --csv >/dev/null 2>&1 || { echo "FAIL: ratios -i a -i a"; fail=1; }
[ $fail = 0 ] && echo "PASS diff_sim"
exit $fail
