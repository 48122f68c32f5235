#!/usr/bin/env bash
# memprof record --regions / --regions-only (issue 15, must-show 3) on matmul -a all, whose
# algorithms are regions. --regions: the file's memprof meta holds the regions and their
# begin/end times on the samples' clock; every sample perf script shows in mm_naive,
# mm_transposed and mm_blocked falls in its own algorithm's region. --regions-only: the
# algorithms have samples, the start-up and the matrices' initialisation (in main) none.
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
    if len(f) < 4 or not f[3].startswith("mm_"):
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
