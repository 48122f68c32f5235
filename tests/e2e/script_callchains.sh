# memprof script prints each sample's call chain (mp_unwind_sample) as perf script does:
#  - fp (-g) chains of cachebench: the same addresses as perf script, sample by sample;
#  - --call-graph dwarf of matmul (built without frame pointers), recorded by memprof and
#    by perf: the user stacks unwound with libdw give perf's chains (addresses, callers at
#    their call instruction) for nearly every sample, and the top chains equal;
#  - kdab-vector-dwarf-bdw (a static binary from ../shared/perfdata/bin): perf 6.1's
#    libunwind stops after the first user frame on it, so the leaves are compared with
#    perf's and the whole chains with hotspot's perfparser's expected output for the file
#    (KDAB/perfparser tests/auto/perfdata/vector_static_gcc/perf.data.expected.txt, its
#    first 14 user samples, as object-relative addresses: perfparser's minus 0x400000);
#    inline frames as perfparser lists them;
#  - kdab-vector-lbr-cfl: the LBR call stacks give perf's chains, without inline frames
#    unless --inline (as perf 6.1's default shows them: only in DWARF-unwound chains).
. "$(dirname "$0")/record_lib.sh"
need_perf
P=${SHARED_DIR:?}/perfdata
# chains.py FILE: one line per sample, its frame addresses (consecutive repeats of an
# address, the inlined frames, once)
cat >chains.py <<'PY'
import sys
cur = None
for line in open(sys.argv[1]):
    line = line.rstrip('\n')
    if not line.strip():
        if cur is not None:
            print(' '.join(cur))
        cur = None
        continue
    if not line.startswith('\t'):
        cur = []
        continue
    if cur is None:
        cur = []
    a = line.split()[0]
    if not cur or cur[-1] != a:
        cur.append(a)
if cur is not None:
    print(' '.join(cur))
PY
chains() { python3 chains.py "$1"; }

# fp
"$MEMPROF" record -q -e cpu-clock -c 100000 -g -o G "$KERNELS/cachebench" -s 1M -r 1000 >out 2>err ||
	fail "record -g: $(cat err)"
"$MEMPROF" script -i G >g.mp 2>err || fail "script -i G: $(cat err)"
"$PERF" script -i G -F ip,sym >g.perf 2>/dev/null
chains g.mp >g.mpc
chains g.perf >g.pc
[ "$(wc -l <g.mpc)" -gt 50 ] || fail "fp: only $(wc -l <g.mpc) samples"
cmp -s g.mpc g.pc || fail "fp chains differ from perf script's: $(diff g.pc g.mpc | head -5)"

# dwarf, a kernel without frame pointers
"$MEMPROF" record -q -e cpu-clock -c 500000 --call-graph dwarf -o D "$KERNELS/matmul" -r 3 >out 2>err ||
	fail "record --call-graph dwarf: $(cat err)"
"$MEMPROF" script -i D >d.mp 2>err || fail "script -i D: $(cat err)"
"$PERF" script -i D -F ip,sym >d.perf 2>/dev/null
chains d.mp >d.mpc
chains d.perf >d.pc
n=$(wc -l <d.pc)
[ "$n" -gt 100 ] && [ "$(wc -l <d.mpc)" = "$n" ] || fail "dwarf: $(wc -l <d.mpc) samples, perf $n"
same=$(paste -d'|' d.mpc d.pc | awk -F'|' '$1 == $2' | wc -l)
# a sample or two may sit in [vdso], which perf reads from its own copy
[ $((same * 100)) -ge $((n * 98)) ] || fail "dwarf: only $same of $n chains equal perf's"
sort d.mpc | uniq -c | sort -rn | head -5 >d.mtop
sort d.pc | uniq -c | sort -rn | head -5 >d.ptop
cmp -s d.mtop d.ptop || fail "dwarf: top chains differ: $(diff d.ptop d.mtop)"
for f in mm_naive mm_transposed mm_blocked; do
	grep -A1 -m1 "^[[:space:]]*[0-9a-f]* $f+" d.mp | tail -1 | grep -q ' main+' ||
		fail "dwarf: $f not called from main: $(grep -A3 -m1 " $f+" d.mp)"
done

# perf's own --call-graph dwarf recording of matmul, read by memprof
"$PERF" record -q -e cpu-clock -c 500000 --call-graph dwarf -o PD "$KERNELS/matmul" -r 3 >/dev/null 2>perr ||
	fail "perf record --call-graph dwarf: $(cat perr)"
"$MEMPROF" script -i PD >pd.mp 2>err || fail "script -i PD: $(cat err)"
"$PERF" script -i PD -F ip,sym >pd.perf 2>/dev/null
chains pd.mp >pd.mpc
chains pd.perf >pd.pc
np=$(wc -l <pd.pc)
[ "$np" -gt 100 ] && [ "$(wc -l <pd.mpc)" = "$np" ] || fail "perf's dwarf file: $(wc -l <pd.mpc) samples, perf $np"
samep=$(paste -d'|' pd.mpc pd.pc | awk -F'|' '$1 == $2' | wc -l)
[ $((samep * 100)) -ge $((np * 98)) ] || fail "perf's dwarf file: only $samep of $np chains equal perf's"
sort pd.mpc | uniq -c | sort -rn | head -5 >pd.mtop
sort pd.pc | uniq -c | sort -rn | head -5 >pd.ptop
cmp -s pd.mtop pd.ptop || fail "perf's dwarf file: top chains differ: $(diff pd.ptop pd.mtop)"

# dwarf: kdab-vector-dwarf-bdw with its binary
t=$(mktemp -d "$W/symfs.XXXX")
rp=$(dirname "$(recorded_path "$P/kdab-vector-dwarf-bdw.data" vector_static_gcc_v9.1.0)")
mkdir -p "$t$rp"
cp "$P/bin/vector_static_gcc_v9.1.0" "$t$rp/"
"$MEMPROF" script -i "$P/kdab-vector-dwarf-bdw.data" --symfs "$t" -k /dev/null >k.mp 2>err ||
	fail "script kdab-vector-dwarf-bdw: $(cat err)"
mkdir -p empty
PERF_BUILDID_DIR=$W/empty "$PERF" script -i "$P/kdab-vector-dwarf-bdw.data" --symfs "$t" \
	--kallsyms=/dev/null -F ip,sym >k.perf 2>/dev/null
chains k.mp | awk '{ u = ""; for (i = 1; i <= NF; i++) if ($i !~ /^ffff/) u = u " " $i; print u }' >k.user
chains k.perf | awk '{ u = ""; for (i = 1; i <= NF; i++) if ($i !~ /^ffff/) { u = $i; break } print u }' >k.pleaf
awk '{ print $1 }' k.user >k.mleaf
nk=$(grep -c . k.pleaf)
[ "$nk" -gt 30 ] || fail "kdab dwarf: $nk user samples in perf's script"
cmp -s k.mleaf k.pleaf || fail "kdab dwarf: leaves differ from perf's: $(diff k.pleaf k.mleaf | head)"
cat >k.expected <<'EXP'
18cc1 1572 2089f 1b6d
5a1d3 1d4b 15a4 2089f 1b6d
5a1d3 1d4b 15a4 2089f 1b6d
5a1d3 1d4b 15a4 2089f 1b6d
5a1d3 1d4b 15a4 2089f 1b6d
1822c 155c 2089f 1b6d
18b3d 1572 2089f 1b6d
1b3c5 17a57 1585 2089f 1b6d
1b503 17a57 1585 2089f 1b6d
184de 155c 2089f 1b6d
1530 2089f 1b6d
18cbd 1572 2089f 1b6d
181b4 155c 2089f 1b6d
18b65 1572 2089f 1b6d
EXP
grep . k.user | sed 's/^ //' | head -14 >k.got
cmp -s k.expected k.got || fail "kdab dwarf: chains differ from perfparser's: $(diff k.expected k.got)"
# every sample of the program unwinds to _start
nu=$(grep -c 'cycles:' k.mp)
awk 'BEGIN { RS = "" } /^vector_static_g/ && /\(vector_static_gcc_v9.1.0\)/ { n++; if (/_start\+/) ok++ }
	END { exit !(n > 30 && ok == n) }' k.mp || fail "kdab dwarf: not every chain reaches _start"
# inline frames as perfparser lists them at the memmove sample's caller
grep -A5 -m1 '__memmove_avx_unaligned_erms+0x53' k.mp | grep -c '(inlined)' | grep -qx 4 ||
	fail "kdab dwarf: inline frames: $(grep -A6 -m1 '__memmove_avx_unaligned_erms' k.mp)"
grep -q '_S_relocate (inlined)' k.mp || fail "kdab dwarf: no _S_relocate inline frame"

# LBR call stacks
t2=$(mktemp -d "$W/symfs.XXXX")
rp=$(dirname "$(recorded_path "$P/kdab-vector-lbr-cfl.data" vector_static_gcc_v9.1.0)")
mkdir -p "$t2$rp"
cp "$P/bin/vector_static_gcc_v9.1.0" "$t2$rp/"
"$MEMPROF" script -i "$P/kdab-vector-lbr-cfl.data" --symfs "$t2" -k /dev/null >l.mp 2>err ||
	fail "script kdab-vector-lbr-cfl: $(cat err)"
PERF_BUILDID_DIR=$W/empty "$PERF" script -i "$P/kdab-vector-lbr-cfl.data" --symfs "$t2" \
	--kallsyms=/dev/null -F ip,sym >l.perf 2>/dev/null
chains l.mp >l.mpc
chains l.perf >l.pc
# the samples whose call stack is not empty (perf reads past an empty one)
awk 'BEGIN { RS = "" } { print (/ _start/ ? 1 : 0) }' l.perf >l.full
nl=$(grep -c 1 l.full)
[ "$nl" -ge 20 ] || fail "lbr: only $nl samples with a call stack in perf's script"
paste -d'|' l.full l.mpc l.pc | awk -F'|' '$1 == 1 && $2 != $3 { bad++ } END { exit bad > 0 }' ||
	fail "lbr: chains differ from perf's: $(paste -d'|' l.full l.mpc l.pc | awk -F'|' '$1 == 1 && $2 != $3' | head -3)"
grep -q '__ieee754_hypot+0x0' l.mp || fail "lbr: no hypot leaf"
# inlined functions as perf 6.1's script shows them: none in LBR (or fp) chains by default,
# which --inline adds before their frames (the DWARF chains above have them by default)
! grep -q '(inlined)' l.mp || fail "lbr: inline frames without --inline: $(grep -m2 '(inlined)' l.mp)"
"$MEMPROF" script --inline -i "$P/kdab-vector-lbr-cfl.data" --symfs "$t2" -k /dev/null >l.inl 2>err ||
	fail "script --inline kdab-vector-lbr-cfl: $(cat err)"
[ "$(grep -c '(inlined)' l.inl)" -ge 20 ] || fail "lbr --inline: $(grep -c '(inlined)' l.inl) inline frames"
grep -v '(inlined)' l.inl | cmp -s - l.mp || fail "lbr --inline is not the default with inline frames added"
# --csv: one row per sample, its fields and its chain's symbols as perf script shows them
# (perf script of the same -g file: tid, time in ns, period, event and each frame's symbol)
"$MEMPROF" record -q -g -e cpu-clock -c 500000 -o csv.data -- "$KERNELS/fp/cachebench" -s 4M -o random -r 20 >/dev/null ||
	fail "record -g for --csv"
"$MEMPROF" script --csv --no-inline -i csv.data >csv.mp 2>err || fail "script --csv: $(cat err)"
"$PERF" script --ns -i csv.data -F comm,tid,time,period,event,ip,sym >csv.perf 2>/dev/null
python3 - csv.mp csv.perf <<'PY' || fail "script --csv differs from perf script"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
samples, cur = [], None
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if not line.strip():
        cur = None
        continue
    if not line.startswith("\t"):
        f = line.split()
        # comm tid time: period event:
        i = next(k for k, w in enumerate(f) if w.endswith(":") and "." in w)
        cur = {"tid": f[i - 1], "time": f[i].rstrip(":").replace(".", ""), "period": f[i + 1],
               "event": f[i + 2].rstrip(":"), "chain": []}
        samples.append(cur)
        continue
    sym = line.split(None, 1)[1].rsplit(" (", 1)[0]
    sym = sym.rsplit("+0x", 1)[0]
    cur["chain"].append(sym)
if len(rows) != len(samples) or len(rows) < 20:
    sys.exit(f"{len(rows)} csv rows, {len(samples)} samples in perf script")
bad = 0
for r, p in zip(rows, samples):
    mine = r["chain"].split(";") if r["chain"] else []
    if (r["tid"], r["time"], r["period"], r["event"]) != (p["tid"], p["time"], p["period"], p["event"]) \
            or mine != p["chain"] or (mine and mine[0] != r["symbol"]):
        bad += 1
        if bad < 4:
            print("differs:", dict(r), p, file=sys.stderr)
# perf names PLT stubs and [vdso] from its own copies, memprof may not: allow 2 rows
if bad > 2:
    sys.exit(f"{bad} of {len(rows)} rows differ")
print(f"csv: {len(rows)} rows, {len(rows) - bad} equal perf script's")
PY
echo "OK: fp, dwarf ($same of $n; perf's file $samep of $np), kdab dwarf ($nu samples) and lbr ($nl) chains as perf's"
