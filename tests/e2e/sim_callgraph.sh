# record --sim -g keeps callgrind's call graph as call chains: on matmul, the three
# algorithms' frames sit right under main, and each one's inclusive L1D_REPL (D1mr+D1mw)
# summed over the samples whose chain holds it (children) equals callgrind_annotate
# --inclusive=yes exactly (main: to a count per callee shared with other callers, the
# rounding of its split); perf report --children on the file gives the same shares.
# The workload binds its symbols at start-up (LD_BIND_NOW), before main: with lazy binding
# each algorithm's first call of a PLT entry runs the loader's resolver, whose subtree all
# callers share, and callgrind keeps no costs per path, so that subtree's split over them
# is in proportion only (mm_blocked was 4 to 17 of 17,400 over, run to run).
. "$(dirname "$0")/sim_lib.sh"
LD_BIND_NOW=1 "$MEMPROF" record -q --sim -g -e L1D_REPL,instructions --callgrind-out cg.out \
	-o S "$KERNELS/matmul" -N 96 >out 2>err || fail "record --sim -g: $(cat err)"
command -v callgrind_annotate >/dev/null || { echo "SKIP: no callgrind_annotate"; exit 77; }
callgrind_annotate --inclusive=yes --threshold=100 cg.out >ann.txt 2>/dev/null ||
	fail "callgrind_annotate failed"
# callgrind's inclusive D1mr+D1mw per function: its largest file:function row (the rows of
# inlined code from other files, emmintrin.h for mm_blocked, are parts of it)
python3 - ann.txt >cg.incl <<'PY'
import re, sys
hdr = None
tot = {}
for line in open(sys.argv[1]):
    if line.startswith('Ir ') and hdr is None:
        hdr = line.split()
        continue
    if hdr is not None and 'PROGRAM TOTALS' in line:
        t = ['0' if x == '.' else x for x in re.sub(r'\(\s*[\d.]+%\)', ' ', line).split()]
        v = dict(zip(hdr, (int(x.replace(',', '')) for x in t[:len(hdr)])))
        total = v['D1mr'] + v['D1mw']
        continue
    if hdr is None or ':' not in line or '[' not in line:
        continue
    toks = re.sub(r'\(\s*[\d.]+%\)', ' ', line).split()
    n = len(hdr) - (1 if hdr[-1] == 'file:function' else 0)
    if len(toks) < n + 1 or not all(re.fullmatch(r'[\d,]+|\.', t) for t in toks[:n]):
        continue
    nums = ['0' if t == '.' else t for t in toks[:n]]
    if 'PROGRAM TOTALS' in line:
        continue
    fn = line.rsplit('[', 1)[0].strip().rsplit(':', 1)[-1]
    v = dict(zip(hdr, (int(n.replace(',', '')) for n in nums)))
    tot[fn] = max(tot.get(fn, 0), v['D1mr'] + v['D1mw'])
for f in ('main', 'mm_naive', 'mm_transposed', 'mm_blocked'):
    print(f, tot.get(f, -1))
open('cg.total', 'w').write('%d\n' % total)
PY
# memprof's children: each L1D_REPL sample's period counted once for every function of its chain
"$MEMPROF" script -i S --no-inline >s.txt 2>err || fail "script: $(cat err)"
python3 - s.txt >mp.incl <<'PY'
import sys
want = ('main', 'mm_naive', 'mm_transposed', 'mm_blocked')
ch = dict((f, 0) for f in want)
under = dict((f, 0) for f in want)
for blk in open(sys.argv[1]).read().split('\n\n'):
    ls = [l for l in blk.split('\n') if l]
    if not ls or not ls[0].endswith(' L1D_REPL:'):
        continue
    per = int(ls[0].split()[-2])
    fns = [l.split()[1].split('+')[0] for l in ls[1:]]
    for f in set(fns) & set(want):
        ch[f] += per
    for i, f in enumerate(fns[:-1]):
        if f in want and f != 'main' and fns[i + 1] == 'main':
            under[f] += per
for f in want:
    print(f, ch[f], under[f] if f != 'main' else ch[f])
PY
while read -r f want; do
	[ "$want" -gt 0 ] || fail "callgrind_annotate shows no $f: $(head -30 ann.txt)"
	got=$(awk -v f="$f" '$1 == f { print $2 }' mp.incl)
	below=$(awk -v f="$f" '$1 == f { print $3 }' mp.incl)
	# the algorithms: exact. main: a callee that has other callers too (memset, libc's
	# start-up) has its costs split over them in proportion to the calls' inclusive costs,
	# each path's share rounded to whole counts: a count off per such function at most
	tol=0
	[ "$f" = main ] && tol=16
	awk -v g="$got" -v w="$want" -v t=$tol 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }' ||
		fail "$f: children L1D_REPL $got, callgrind inclusive $want"
	[ "$f" = main ] || [ "$below" = "$got" ] || fail "$f: only $below of $got under main"
done <cg.incl
# perf reads the chains: its children share of main and mm_naive = callgrind's
total=$(cat cg.total)
# (perf_report: an own build-id cache, so that no other build of matmul is taken for this one.
# --sort dso,sym: with sym alone perf 6.1 sometimes leaves a function's children in two rows,
# main 97.93% and main 0.52% for one main of 98.45%, 2 files of 16 here: its sym-only compare
# orders entries with and without a symbol inconsistently, so some are not merged)
perf_report S --children --sort dso,sym -g none >perf.txt
awk '/^# Samples: .* of event/ { ev = $0 } ev ~ /L1D_REPL/ && $NF ~ /^(main|mm_naive)$/ { print $NF, $1 }' perf.txt |
	tr -d % >perf.pct
[ "$(wc -l <perf.pct)" = 2 ] || fail "perf report --children: $(cat perf.pct) in $(head -40 perf.txt)"
while read -r f pct; do
	want=$(awk -v f="$f" '$1 == f { print $2 }' cg.incl)
	awk -v p="$pct" -v w="$want" -v t="$total" 'BEGIN { d = p - 100 * w / t; exit !(d < 0.011 && d > -0.011) }' ||
		fail "perf report --children: $f $pct%, callgrind $want of $total"
done <perf.pct
echo "OK: $(tr '\n' ' ' <cg.incl)"
