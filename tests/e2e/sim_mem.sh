#!/bin/bash
# Memory samples from the simulator (record --sim -d; issue 31's "Output"), perf as the
# referee: falseshare's two threads on two simulated cores, counters 8 bytes apart, a
# sample every 97 loads and every 97 stores.
#  - perf c2c report and perf mem report read the file without a word on stderr;
#  - perf c2c report's Load Local HITM on the shared line is the exact HITM count over the
#    period (within 2%), at least 10% of the line's sampled stores, on the first shared line;
#    with the counters 64 bytes apart under 1% of that;
#  - memprof report --mem-mode counts the same L3 HitM loads as perf report --mem-mode;
#  - memprof script -F with the memory fields prints what perf script prints (sym left
#    out: perf names a sample at the first byte of .init _init, memprof [unknown]).
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
ITERS=200000
P=97
rec() { # DISP
	"$MEMPROF" record --sim --sim-cores 2 -d -c $P -e HITM -o m$1.data -- \
		"$KERNELS/falseshare" -T 2 -d $1 -i $ITERS -P any >m$1.out 2>m$1.err ||
		fail "record --sim -d falseshare -d $1: $(cat m$1.err)"
	grep -q "memory samples every $P loads and stores" m$1.err || fail "-d $1: $(cat m$1.err)"
}
rec 8
rec 64
mkdir -p empty
for f in m8 m64; do
	PERF_BUILDID_DIR=$WORK/empty "$PERF" c2c report -i $f.data --stdio >$f.c2c 2>$f.c2c.err ||
		fail "perf c2c report $f: $(cat $f.c2c.err)"
	[ -s $f.c2c.err ] && fail "perf c2c report $f warns: $(cat $f.c2c.err)"
done
PERF_BUILDID_DIR=$WORK/empty "$PERF" mem report -i m8.data --stdio >mem.txt 2>mem.err ||
	fail "perf mem report: $(cat mem.err)"
[ -s mem.err ] && fail "perf mem report warns: $(cat mem.err)"
grep -q "of event 'cpu/mem-loads,ldlat=0/P'" mem.txt || fail "perf mem report: $(head -20 mem.txt)"
grep -q "of event 'cpu/mem-stores/P'" mem.txt || fail "perf mem report: no stores"

stat() { awk -v k="$2" -F: '$1 ~ "^ *" k " *$" { gsub(/ /, "", $2); print $2; exit }' "$1"; }
hitm8=$(perf_event_count m8.data HITM)
c2c8=$(stat m8.c2c "Load Local HITM")
c2c64=$(stat m64.c2c "Load Local HITM")
lines8=$(stat m8.c2c "Total Shared Cache Lines")
# the shared line's row of the Shared Data Cache Line Table: its HITM and stores
row=$(awk '/Shared Data Cache Line Table/ { t = 1 } t && /^ +0 +0x/ { print; exit }' m8.c2c)
line_hitm=$(echo "$row" | awk '{ print $6 }')
line_st=$(echo "$row" | awk '{ print $11 }')
echo "HITM exact $hitm8, c2c: Load Local HITM $c2c8 (line $line_hitm, stores $line_st), padded $c2c64"
[ -n "$row" ] || fail "no shared line in perf c2c report: $(sed -n '/Cache Line Table/,+10p' m8.c2c)"
# the counters' line first, with nearly all HITM (libc's locks add one or two lines)
check "$lines8 >= 1 && $line_hitm >= 0.99 * $c2c8" \
	"perf c2c: the first of $lines8 shared lines has $line_hitm HITM of $c2c8"
check "$c2c8 * $P >= 0.98 * $hitm8 && $c2c8 * $P <= 1.02 * $hitm8" \
	"perf c2c: $c2c8 HITM samples x $P is not the exact HITM count $hitm8 (2%)"
check "$line_hitm >= 0.10 * $line_st" "HITM loads $line_hitm under 10% of the line's stores $line_st"
check "$c2c64 < 0.01 * $c2c8" "padded: $c2c64 HITM samples not under 1% of $c2c8"

# memprof's reading of the same samples
pm=$("$PERF" report -i m8.data --mem-mode --sort mem,snoop --stdio -n 2>/dev/null |
	awk '!/^#/ && /L3 or L3 hit/ && /HitM/ { s += $2 } END { print s + 0 }')
mm=$("$MEMPROF" report -i m8.data --mem-mode --sort mem,snoop |
	awk '!/^#/ && /L3 or L3 hit/ && /HitM/ { s += $1 } END { print s + 0 }')
check "$pm == $c2c8 && $mm == $c2c8" "HitM loads: perf report $pm, memprof $mm, perf c2c $c2c8"
F=tid,cpu,event,ip,addr,data_src,weight,period
PERF_BUILDID_DIR=$WORK/empty "$PERF" script -i m8.data -F $F >p.script 2>/dev/null
"$MEMPROF" script -i m8.data -F $F >m.script 2>/dev/null
cmp -s p.script m.script || fail "script -F $F differs from perf's: $(diff p.script m.script | head -6)"
grep -q 'L3 hit.*SNP HitM' m.script || fail "no HitM in memprof script: $(grep mem-loads m.script | head -3)"

# what -d and -c mean with --sim, and what they refuse
"$MEMPROF" record --sim -c 97 -o x.data -- true >x.out 2>&1 && fail "--sim -c without -d accepted"
grep -q "with -d" x.out || fail "-c without -d: $(cat x.out)"
"$MEMPROF" record --sim --sim-engine=callgrind -d -o x.data -- true >x.out 2>&1 &&
	fail "--sim -d with callgrind accepted"
grep -q "memprof's valgrind tool (mpsim), not callgrind" x.out || fail "callgrind -d: $(cat x.out)"
echo "ok"
