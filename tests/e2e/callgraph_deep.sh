# Call chains thousands of frames deep (a recording of 3 samples, each a user chain of 8000
# frames: its own leaf, 7998 of one recursive caller, one root; written here: perf record
# needs kernel.perf_event_max_stack raised to make one, and the kernel caps a sample's
# chain near 8190 frames):
#  - report and script cut chains at 127 addresses by default, as perf report and perf
#    script do (the default of the sysctl kernel.perf_event_max_stack): 127 levels in a
#    folded stack, 127 frames a sample in script, the trees equal perf report's;
#  - --max-stack 0 keeps all 8000: -g flat, folded, caller and script run through
#    (flat and folded paths were printed by a recursion that overflowed
#    the stack at about 7000 frames) and print all of them.
set -u
: "${MEMPROF:?}"
PERF=${PERF:-perf}
CMP=$(cd "$(dirname "$0")" && pwd)/callgraph_perfcmp.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail() { echo "FAIL: $*"; exit 1; }

python3 - D 8000 3 <<'PY'
import struct, sys
out, depth, nsamp = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ATTR = 128
sample_type = 0x1 | 0x2 | 0x100 | 0x20  # IP TID PERIOD CALLCHAIN
attr = struct.pack('<IIQQQQQ', 1, ATTR, 2, 1, sample_type, 0, 0)  # page-faults, period 1
attr += b'\0' * (ATTR - len(attr))
recs = b''
for k in range(nsamp):
    ips = [0xfffffffffffffe00, 0x500000 + 16 * k] + [0x400010] * (depth - 2) + [0x400000]
    body = struct.pack('<QIIQQ', ips[1], 100, 100, 1, len(ips)) + struct.pack('<%dQ' % len(ips), *ips)
    recs += struct.pack('<IHH', 9, 2, 8 + len(body)) + body  # SAMPLE, user
hdr = b'PERFILE2' + struct.pack('<QQ', 104, ATTR + 16)
hdr += struct.pack('<QQQQQQ', 104, ATTR + 16, 104 + ATTR + 16, len(recs), 0, 0) + b'\0' * 32
open(out, 'wb').write(hdr + attr + struct.pack('<QQ', 0, 0) + recs)
PY

# levels FILE: the most frames of a folded line (';'-joined)
levels() { awk -F';' '/;/ { if (NF > m) m = NF } END { print m + 0 }' "$1"; }

"$MEMPROF" report -q -i D -g folded,0,caller >f.txt 2>err || fail "report -g folded: $(cat err)"
[ "$(levels f.txt)" = 127 ] || fail "default cut: $(levels f.txt) levels, not 127"
"$MEMPROF" script -i D >s.txt 2>err || fail "script: $(cat err)"
[ "$(grep -c '^	' s.txt)" = $((3 * 127)) ] || fail "script: $(grep -c '^	' s.txt) frames, not 3 x 127"

for g in "-g folded,0,caller" "-g flat" "-g caller"; do
	"$MEMPROF" report -q -i D --max-stack 0 $g >all.txt 2>err ||
		fail "report --max-stack 0 $g: exit $?: $(head -c 300 err)"
done
"$MEMPROF" report -q -i D --max-stack 0 -g folded,0,caller >all.txt 2>err || fail "$(cat err)"
[ "$(levels all.txt)" = 8000 ] || fail "--max-stack 0: $(levels all.txt) levels, not 8000"
"$MEMPROF" script -i D --max-stack 0 >sall.txt 2>err || fail "script --max-stack 0: $(cat err)"
[ "$(grep -c '^	' sall.txt)" = 24000 ] || fail "script --max-stack 0: $(grep -c '^	' sall.txt) frames"

# --json: each node of a tree names its function and its parent's index, so the list grows
# with the nodes (whole stacks per node made 8000^2 / 2 names a tree, about 1 GB): the
# stacks put together again from the parents reach all 8000 frames, and every one of them
# is its parent's stack and one more frame
"$MEMPROF" report -q -i D --max-stack 0 --json >j.json 2>err || fail "report --json: $(cat err)"
python3 - j.json <<'PY' >jcheck.txt || fail "json trees: $(cat jcheck.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
deepest = nodes = 0
for row in d['rows']:
    depth = []
    for i, n in enumerate(row['callchains']):
        p = n['parent']
        if p >= i or (p >= 0 and row['callchains'][p]['period'] < n['period']):
            sys.exit('row %s node %d: parent %d' % (row['sym'], i, p))
        depth.append(1 if p < 0 else depth[p] + 1)
    deepest = max([deepest] + depth)
    nodes += len(depth)
print(deepest, nodes)
PY
read -r deepest nodes <jcheck.txt
[ "$deepest" = 8000 ] || fail "json: the deepest stack has $deepest frames, not 8000"
[ "$(wc -c <j.json)" -lt 20000000 ] || fail "json: $(wc -c <j.json) bytes for $nodes nodes"

# perf's trees of the same file, with its default cut
if command -v "$PERF" >/dev/null 2>&1; then
	mkdir -p empty
	PERF_BUILDID_DIR=$T/empty "$PERF" report -i D --children --stdio --sort dso,sym \
		-g folded,0,caller --kallsyms=/dev/null 2>/dev/null >p.txt
	python3 "$CMP" trees p.txt f.txt 3 >cmp.txt || fail "trees differ from perf's: $(tail -5 cmp.txt)"
	grep -q '^[3-9] entries compared, 0 differ' cmp.txt || fail "perf trees: $(tail -1 cmp.txt)"
fi
echo "ok"
