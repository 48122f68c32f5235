#!/bin/bash
# PLT entries and the vDSO named as perf names them: report's rows of a program calling
# through the PLT (malloc@plt, clock_gettime@plt) and into [vdso] (__vdso_clock_gettime)
# equal perf report's, with the same samples; annotate --asm names call targets as
# objdump does (call 0x1070 <malloc@plt>); the TUI follows a call to malloc@plt on to malloc.
source "$(dirname "$0")/record_lib.sh"
need_perf
CMP=$(cd "$(dirname "$0")" && pwd)/report_perfcmp.py
S=$(dirname "$0")/../standins
gcc -O1 -g -o pltcall "$S/pltcall.c" || fail "cannot build the stand-in"
# A PLT stub is one jmp: the stand-in calls clock_gettime (the vDSO's slow clock read) only
# every 16th iteration, so that about 130 of its 5,000 samples fall in the PLT (see pltcall.c)
"$MEMPROF" record -e cpu-clock -c 50000 -o m.data -- ./pltcall 20000000 >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
"$PERF" report -i m.data --stdio --sort dso,sym >perf.txt 2>/dev/null || fail "perf report"
"$MEMPROF" report -i m.data --sort dso,sym --csv >mp.csv 2>mp.err || fail "report: $(cat mp.err)"
# perf 6.1 may name a PLT sample pltcall's _init (its size-0 _init stretched over .plt; see
# the script check below), where memprof names the PLT entry: that row is left out of
# perf's table, and its share widens the tolerance of the others (the entry's row)
shadow=$(awk '$2 == "pltcall" && $3 == "[.]" && $4 == "_init" && NF == 4 { sub("%", "", $1); s += $1 }
	END { printf "%.2f", s + 0 }' perf.txt)
awk '!($2 == "pltcall" && $3 == "[.]" && $4 == "_init" && NF == 4)' perf.txt >perf-noinit.txt
python3 "$CMP" perf-noinit.txt mp.csv rows "$(awk -v s="$shadow" 'BEGIN { printf "%.2f", 0.01 + s }')" 0.1 >cmp 2>&1 ||
	fail "report differs from perf's (perf's _init over .plt: $shadow%): $(head -5 cmp)"
# every sample's symbol as perf script names it. One exception, perf 6.1's: pltcall's _init
# has size 0, perf stretches it to the next symbol over .plt and its lookup then finds either
# _init or the PLT entry inside it (newer perf ends _init where .plt starts, as memprof does);
# a sample in the PLT's unnamed header is perf's _init too.
# (memprof script: a line per sample, then its frames; the first frame is the sample's place)
"$MEMPROF" script --no-inline -i m.data | awk '/^\t/ { if (!done) print $1, $2; done = 1; next } NF { done = 0 }' |
	sed 's/+0x[0-9a-f]*$//' >mp.s
"$PERF" script -i m.data -F ip,sym 2>/dev/null | awk 'NF { print $1, ($2 == "" ? "[unknown]" : $2) }' >pf.s
plt=$(readelf -SW pltcall | sed 's/^ *\[ *[0-9]*\]//' | awk '$1 == ".plt" { print $3, $5 }')
python3 - mp.s pf.s $plt <<'PY' || exit 1
import sys
plt_lo = int(sys.argv[3], 16) if len(sys.argv) > 4 else 0
plt_hi = plt_lo + int(sys.argv[4], 16) if len(sys.argv) > 4 else 0
mine = [l.split() for l in open(sys.argv[1])]
ref = [l.split() for l in open(sys.argv[2])]
if len(mine) != len(ref):
    sys.exit("FAIL: memprof script %d samples, perf script %d" % (len(mine), len(ref)))
bad, shadow, plt = [], 0, {}
for (ip, s1), (ip2, s2) in zip(mine, ref):
    if s1.endswith('@plt'):
        plt[s1] = plt.get(s1, 0) + 1
    if s1 == s2:
        continue
    if s2 == '_init' and s1.endswith('@plt'):
        shadow += 1; continue
    # the PLT's header (the lazy binder's stub) has no name; perf 6.1's stretched _init
    # covers it too
    if s2 == '_init' and s1 == '[unknown]' and plt_lo <= int(ip, 16) < plt_hi:
        shadow += 1; continue
    bad.append((ip, s1, ip2, s2))
if bad:
    sys.exit("FAIL: %d samples named otherwise than perf script: %s" % (len(bad), bad[:4]))
if not any(k.endswith('@plt') for k in plt):
    sys.exit("FAIL: no sample in pltcall's PLT: %s" % plt)
print("ok: %d samples named as perf names them; PLT: %s; %d PLT samples perf gives to _init" % (
    len(mine), ' '.join('%s %d' % kv for kv in sorted(plt.items())), shadow))
PY
python3 - mp.csv <<'PY' >mp.rows
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['sym'].endswith('@plt') or r['dso'] == '[vdso]':
        print(r['dso'], r['sym'], r['cpu-clock samples'])
PY
if awk '$1 == "[vdso]" { n += $3 } END { exit !(n >= 20) }' mp.rows; then
	grep -q '^\[vdso\] __vdso_[a-z_]* [1-9]' mp.rows ||
		fail "[vdso] has samples but no vDSO symbol is named: $(grep vdso mp.rows)"
	echo "ok: [vdso] names: $(awk '$1 == "[vdso]" && $2 !~ /^0x/ { print $2 }' mp.rows | tr '\n' ' ')"
else
	echo "note: [vdso] has under 20 samples here: names not judged beyond perf's rows"
fi
# annotate --asm: each named call target as objdump names it
"$MEMPROF" annotate -i m.data --asm main >ann.txt 2>ann.err || fail "annotate: $(cat ann.err)"
objdump -d --no-show-raw-insn pltcall >objd.txt || fail "objdump"
grep -q 'call 0x[0-9a-f]* <malloc@plt>' ann.txt || fail "annotate names no call to malloc@plt: $(grep call ann.txt)"
python3 - ann.txt objd.txt <<'PY' || exit 1
import re, sys
mine = {}
for l in open(sys.argv[1]):
    m = re.search(r'\b([0-9a-f]+):\s+call 0x([0-9a-f]+) <([^>]+)>', l)
    if m:
        mine[int(m.group(1), 16)] = (int(m.group(2), 16), m.group(3))
ref = {}
for l in open(sys.argv[2]):
    m = re.match(r'\s*([0-9a-f]+):\s+call\s+([0-9a-f]+) <([^>]+)>', l)
    if m:
        ref[int(m.group(1), 16)] = (int(m.group(2), 16), m.group(3))
bad = [(hex(a), v, ref.get(a)) for a, v in mine.items() if ref.get(a) != v]
if len(mine) < 4 or bad:
    sys.exit("FAIL: annotate's call targets against objdump: %d named, differ %s" % (len(mine), bad[:3]))
print("ok: %d call targets named as objdump names them" % len(mine))
PY
# TUI: Enter on the call to malloc@plt opens malloc in libc (where the stub jumps)
"$MEMPROF" tui -i m.data --size 120x30 \
	--batch '/main<ENTER><ENTER>a/malloc@plt<ENTER><ENTER>' >tui.txt 2>tui.err ||
	fail "tui: $(cat tui.err)"
head -1 tui.txt | grep -q '^ *Annotate malloc (libc[.]so[.]6)' &&
	grep -q 'malloc@plt: followed to malloc (libc.so.6)' tui.txt ||
	fail "the TUI did not follow malloc@plt: $(head -1 tui.txt) / $(tail -1 tui.txt)"
echo "ok: PLT and [vdso] as perf: $(wc -l <mp.rows) rows"
