#!/usr/bin/env bash
# memprof record --regions / --regions-only (issue 15, must-show 3) on matmul -a all, whose
# algorithms are regions. --regions: the file's memprof meta holds the regions and their
# begin/end times on the samples' clock; every sample perf script shows in mm_naive,
# mm_transposed and mm_blocked falls in its own algorithm's region. --regions-only: the
# algorithms have samples, the start-up and the matrices' initialisation (in main) none.
# report --sort region,sym and ratios --level region: each algorithm's function under its own
# region, and the samples per region equal those counted from perf script's tid and time of
# every sample with the regions' begin/end times (the innermost region open in the thread).
set -euo pipefail
: "${MEMPROF:?}" "${KERNELS:?}"
command -v perf >/dev/null || { echo "no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }

"$MEMPROF" record -q --regions -e cpu-clock -c 50000 -o rg.data -- "$KERNELS/matmul" -a all >/dev/null
perf script -i rg.data -F tid,time,ip,sym > rg.txt 2>/dev/null
strings -n 8 rg.data | grep -a '^regions\.' > meta.txt
python3 - <<'PY'
import sys
meta = dict(l.rstrip("\n").split("=", 1) for l in open("meta.txt"))
assert meta["regions.clock"] == "monotonic", meta
nodes = [bytes.fromhex(n.split(":")[1]).decode() for n in meta["regions.nodes"].split(";") if n]
assert nodes == ["naive", "transposed", "blocked"], nodes
iv, open_ = {}, {}
for t in meta["regions.transitions"].split(";"):
    if not t:
        continue
    tid, node, begin, ns = map(int, t.split())
    if begin:
        open_[node] = ns
    else:
        iv[nodes[node]] = (tid, open_.pop(node), ns)
assert len(iv) == 3, iv
n = 0
for l in open("rg.txt"):
    f = l.split()
    # the algorithms' own functions (a kernel function named mm_... is not one of them:
    # mm_get_unmapped_area_vmflags, sampled once in CI)
    if len(f) < 4 or f[3] not in ("mm_naive", "mm_transposed", "mm_blocked"):
        continue
    tid, t, sym = int(f[0]), round(float(f[1].rstrip(":")) * 1e9), f[3]
    rtid, b, e = iv[sym[3:]]
    if not (tid == rtid and b - 1000 <= t <= e + 1000):
        sys.exit(f"FAIL: sample of {sym} at {t} outside its region [{b}, {e}]")
    n += 1
if n < 50:
    sys.exit(f"FAIL: only {n} samples in the algorithms")
print(f"ok: {n} samples of the algorithms each inside its own region")
PY

# report --sort region,sym: the algorithms' functions each under its own region
"$MEMPROF" report -i rg.data --sort region,sym --csv > region.csv
python3 - <<'PY'
import csv, sys
rows = list(csv.reader(l for l in open("region.csv") if not l.startswith("#")))
head, rows = rows[0], rows[1:]
assert head[:3] == ["region", "level", "sym"], head
by = {}
for r in rows:
    by.setdefault(r[2], {})[r[0]] = int(r[3])
for alg in ("naive", "transposed", "blocked"):
    regs = by.get("mm_" + alg, {})
    if regs.get(alg, 0) < 20:
        sys.exit(f"FAIL: --sort region,sym: mm_{alg} has {regs.get(alg, 0)} samples in region {alg}: {regs}")
    other = {k: v for k, v in regs.items() if k != alg}
    if other:
        sys.exit(f"FAIL: --sort region,sym: mm_{alg} also under {other}")
print("ok: report --sort region,sym puts each algorithm under its own region")
PY
# the samples per region, counted from perf script with the same rule
perf script --ns -i rg.data -F tid,time > rgt.txt 2>/dev/null
"$MEMPROF" report -i rg.data --sort region --csv > byregion.csv
python3 - <<'PY'
import csv, sys
meta = dict(l.rstrip("\n").split("=", 1) for l in open("meta.txt"))
nodes = [n for n in meta["regions.nodes"].split(";") if n]
names = []
for n in nodes:
    par, hx = n.split(":")
    nm = bytes.fromhex(hx).decode()
    names.append(names[int(par)] + "/" + nm if int(par) >= 0 else nm)
steps = {}
stack = {}
for t in meta["regions.transitions"].split(";"):
    if not t:
        continue
    tid, node, begin, ns = map(int, t.split())
    st = stack.setdefault(tid, [])
    if begin:
        st.append(node)
    elif node in st:
        del st[st.index(node):]
    steps.setdefault(tid, []).append((ns, names[st[-1]] if st else "[no region]"))
want = {}
for l in open("rgt.txt"):
    f = l.split()
    if len(f) < 2:
        continue
    tid, t = int(f[0]), int(f[1].rstrip(":").replace(".", ""))
    reg = "[no region]"
    for ns, r in steps.get(tid, []):
        if ns <= t:
            reg = r
        else:
            break
    want[reg] = want.get(reg, 0) + 1
got = {}
rows = list(csv.reader(l for l in open("byregion.csv") if not l.startswith("#")))
for r in rows[1:]:
    got[r[0]] = int(r[1])
if got != want:
    sys.exit(f"FAIL: samples per region: memprof {got}, from perf script {want}")
print(f"ok: samples per region equal perf script's: {got}")
PY
# ratios --level region: one place per region, each with its samples
cat > clocks.ratios <<'R'
[CLOCK_AGREE]
name = cpu-clock per task-clock
what = two software clocks sampled side by side
perf = exact cpu-clock / task-clock
R
"$MEMPROF" record -q --regions -e cpu-clock,task-clock -c 100000 -o rg3.data -- "$KERNELS/matmul" -a all >/dev/null
"$MEMPROF" ratios -i rg3.data --ratios clocks.ratios --level region --csv CLOCK_AGREE > rr.csv
"$MEMPROF" report -i rg3.data --sort region --csv > rr-report.csv
python3 - <<'PY'
import csv, sys
rr = list(csv.DictReader(open("rr.csv")))
rep = {r[0]: int(r[1]) for r in list(csv.reader(l for l in open("rr-report.csv") if not l.startswith("#")))[1:]}
places = {r["place"]: r for r in rr}
for alg in ("naive", "transposed", "blocked"):
    r = places.get(alg)
    if not r or r["level"] != "region":
        sys.exit(f"FAIL: ratios --level region: no place {alg}: {list(places)}")
    num = r["samples"].split("/")[0]
    if int(num) != rep[alg]:
        sys.exit(f"FAIL: ratios --level region: {alg} has {num} cpu-clock samples, report {rep[alg]}")
    if not 0.8 <= float(r["value"]) <= 1.25:
        sys.exit(f"FAIL: ratios --level region: {alg}: cpu-clock/task-clock = {r['value']}")
print("ok: ratios --level region: a place per region, samples as report's")
PY

# sampling only inside regions: main (start-up, init) keeps no sample; a full record has them
"$MEMPROF" record -q --regions-only -e cpu-clock -c 50000 -o ro.data -- "$KERNELS/matmul" -a all >/dev/null
"$MEMPROF" record -q -e cpu-clock -c 50000 -o all.data -- "$KERNELS/matmul" -a all >/dev/null
count() { perf report -i "$1" --stdio --sort sym -F sample,sym 2>/dev/null | awk -v s="$2" '$NF==s {print $1; f=1} END {if (!f) print 0}'; }
for s in mm_naive mm_transposed mm_blocked; do
  [ "$(count ro.data $s)" -gt 0 ] || fail "--regions-only: no samples in $s"
done
main_all=$(count all.data main) main_ro=$(count ro.data main)
[ "$main_all" -ge 5 ] || fail "a full record has only $main_all samples in main: nothing to leave out"
[ "$main_ro" -le 1 ] || fail "--regions-only: $main_ro samples in main (start-up and initialisation)"
for s in compare spot_check __libc_start_main _dl_start _start; do
  [ "$(count ro.data $s)" = 0 ] || fail "--regions-only: samples in $s"
done
echo "ok: --regions-only: main $main_ro samples (a full record: $main_all), the algorithms sampled"
"$MEMPROF" report -i all.data --sort region,sym >/dev/null 2>err.txt && fail "--sort region on a file without regions succeeded"
grep -q "has no regions" err.txt || fail "--sort region without regions: $(cat err.txt)"
