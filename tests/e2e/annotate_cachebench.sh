#!/bin/bash
# (2) memprof annotate on a recording of cachebench's walk names the pointer-chasing line
# as the hottest (its number from grep -n 'HOT: pointer chase'), and the per-line (and, with
# --asm, per-instruction) percentages add up to the function's total. Without debug info
# it says so and falls back to assembly. Recorded with perf, and with memprof record when
# it works here.
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}"
CB=$KERNELS/cachebench
SRC=$(cd "$E2E/../../kernels" && pwd)/cachebench.c
want=$(grep -n 'HOT: pointer chase' "$SRC" | cut -d: -f1)
[ -n "$want" ] || { echo "FAIL: no HOT marker in $SRC"; exit 1; }

check() { # file label
	local f=$1 lbl=$2
	if ! "$MEMPROF" annotate -q -i "$f" cachebench:walk >"$T/a.txt" 2>"$T/a.err"; then
		echo "FAIL $lbl: annotate failed: $(cat "$T/a.err")"; fail=1; return
	fi
	hot=$(awk '/^=>/ { for (i = 1; i <= NF; i++) if ($i == ":") { print $(i + 1); exit } }' "$T/a.txt")
	if [ "$hot" != "$want" ]; then
		echo "FAIL $lbl: hottest line is '$hot', want $want (HOT: pointer chase)"
		cat "$T/a.txt"; fail=1
	fi
	# the function total (first line comment) and the sum of the line percentages
	python3 - "$T/a.txt" "$lbl" <<'PY' || fail=1
import re, sys
txt = open(sys.argv[1]).read().splitlines()
tot = None
s = 0.0
n = 0
for l in txt:
    m = re.search(r'/\* walk total: (\d+) ([\d.]+)% \*/', l)
    if m:
        tot = float(m.group(2)); tsamp = int(m.group(1))
    if l.startswith('#'):
        continue
    m = re.match(r'^(=>|\* |  )\s+(\d+)\s+([\d.]+)%\s+(?:[\d.]+%\s+)?:\s+\d+', l)
    if m:
        s += float(m.group(3)); n += 1
if tot is None or n == 0:
    print('FAIL %s: no total or no counted line' % sys.argv[2]); sys.exit(1)
if abs(s - tot) > 0.01 * n + 0.005:
    print('FAIL %s: lines sum to %.2f%%, function total %.2f%%' % (sys.argv[2], s, tot)); sys.exit(1)
if tot < 10:
    print('FAIL %s: walk has only %.2f%% of the samples' % (sys.argv[2], tot)); sys.exit(1)
PY
	# --asm: instruction rows add up to the same total
	"$MEMPROF" annotate -q -i "$f" --asm cachebench:walk >"$T/asm.txt" 2>&1 || {
		echo "FAIL $lbl: --asm"; fail=1; return; }
	python3 - "$T/asm.txt" "$lbl" <<'PY' || fail=1
import re, sys
txt = open(sys.argv[1]).read().splitlines()
tot = None; s = 0.0; n = 0; insns = 0
for l in txt:
    m = re.search(r'/\* walk total: (\d+) ([\d.]+)% \*/', l)
    if m: tot = float(m.group(2))
    m = re.match(r'^\s+(?:(\d+)\s+([\d.]+)%\s+[\d.]+%)?\s+:\s+[0-9a-f]+:\s+\S', l)
    if m:
        insns += 1
        if m.group(2): s += float(m.group(2)); n += 1
if not insns or tot is None or abs(s - tot) > 0.01 * max(n, 1) + 0.005:
    print('FAIL %s: --asm: %d insns, sum %.2f%%, total %s' % (sys.argv[2], insns, s, tot)); sys.exit(1)
if not re.search(r'mov\s+\w+, qword ptr \[|ldr\s', '\n'.join(txt)):
    print('FAIL %s: --asm shows no load' % sys.argv[2]); sys.exit(1)
PY
}

"$PERF" record -q -e cpu-clock -F 4000 -o perf.data "$CB" -m walk -s 64M -o random -r 3 \
	>/dev/null 2>"$T/rec.err" || { echo "FAIL: perf record: $(cat "$T/rec.err")"; exit 1; }
check perf.data perf

# memprof record, when the collector works on this machine
if "$MEMPROF" record -e cpu-clock -F 4000 -o memprof.data "$CB" -m walk -s 64M -o random \
	-r 3 >/dev/null 2>"$T/mrec.err"; then
	check memprof.data memprof
else
	echo "note: memprof record unavailable ($(head -1 "$T/mrec.err")): perf recording only"
fi

# a whole source file
"$MEMPROF" annotate -q -i perf.data cachebench.c >"$T/file.txt" 2>&1 &&
	grep -q "HOT: pointer chase" "$T/file.txt" || { echo "FAIL: annotate cachebench.c"; fail=1; }

# no debug info: a stripped copy at the recorded path under --symfs
mkdir -p "sfs$(dirname "$CB")"
objcopy --strip-debug "$CB" "sfs$CB"
"$MEMPROF" annotate -q -i perf.data --symfs sfs cachebench:walk >"$T/nodbg.txt" 2>&1 || {
	echo "FAIL: annotate without debug info failed"; cat "$T/nodbg.txt"; fail=1; }
grep -q '^# note: .*no debug info for cachebench' "$T/nodbg.txt" &&
	grep -Eq '^ .* :\s+[0-9a-f]+:  mov' "$T/nodbg.txt" ||
	{ echo "FAIL: no note / no assembly fallback without debug info"; cat "$T/nodbg.txt"; fail=1; }
# an unknown symbol: one error line, exit 1
"$MEMPROF" annotate -q -i perf.data no_such_function >/dev/null 2>"$T/err"
[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q no_such_function "$T/err" ||
	{ echo "FAIL: unknown symbol"; cat "$T/err"; fail=1; }
[ $fail -eq 0 ] && echo "OK: hottest line $want"
exit $fail
