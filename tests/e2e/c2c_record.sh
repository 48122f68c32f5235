#!/bin/bash
# memprof c2c record on this machine: without the PMU of perf c2c's events (a VM) it
# refuses in one line that names the event and the PMU and points to --sim (exit 1); where
# the events exist, the file it writes is read by perf c2c report without a warning and
# memprof c2c report gives perf's counts. Usage errors: --ldlat and -e with --sim,
# --no-alloc without --sim or with --alloc.
. "$(dirname "$0")/e2e_lib.sh"
"$MEMPROF" c2c record -o c.data -- true >out 2>err
rc=$?
if [ $rc -ne 0 ]; then
	[ $rc -eq 1 ] || { echo "FAIL: exit $rc, want 1: $(cat err)"; exit 1; }
	[ "$(wc -l <err)" -eq 1 ] || { echo "FAIL: not one line: $(cat err)"; exit 1; }
	grep -q "^memprof c2c: no precise memory events for loads here: .* needs the kernel's '.*' PMU" err &&
		grep -q "memprof c2c record --sim -- CMD" err ||
		{ echo "FAIL: refusal: $(cat err)"; exit 1; }
else
	"$PERF" c2c report -i c.data --stdio >p.txt 2>p.err || { echo "FAIL: perf c2c: $(cat p.err)"; exit 1; }
	grep -v "No memory nodes\|kallsyms" p.err | grep -q . && { echo "FAIL: perf warns: $(cat p.err)"; exit 1; }
	"$MEMPROF" c2c report -i c.data >m.txt || { echo "FAIL: memprof c2c report"; exit 1; }
	for k in "Total records" "Load Operations" "Store Operations" "Load Local HITM"; do
		[ "$(grep "^  $k " p.txt)" = "$(grep "^  $k " m.txt)" ] || { echo "FAIL: $k differs"; exit 1; }
	done
fi
for bad in "--sim --ldlat 5" "--sim -e list"; do
	"$MEMPROF" c2c record $bad -- true 2>err
	[ $? -eq 2 ] && grep -q "with --sim: the simulator samples every load and store" err ||
		{ echo "FAIL: c2c record $bad: $(cat err)"; exit 1; }
done
"$MEMPROF" c2c record --no-alloc -- true 2>err
[ $? -eq 2 ] && grep -q -- "--no-alloc goes with --sim" err || { echo "FAIL: --no-alloc without --sim: $(cat err)"; exit 1; }
"$MEMPROF" c2c record --sim --alloc --no-alloc -- true 2>err
[ $? -eq 2 ] && grep -q -- "--alloc and --no-alloc exclude each other" err || { echo "FAIL: --alloc --no-alloc: $(cat err)"; exit 1; }
"$MEMPROF" c2c frob 2>err; [ $? -eq 2 ] || { echo "FAIL: c2c frob accepted"; exit 1; }
"$MEMPROF" c2c report -d bogus -i c.data 2>err; [ $? -eq 2 ] && grep -q "display modes are tot, lcl, rmt, peer and all" err ||
	{ echo "FAIL: -d bogus: $(cat err)"; exit 1; }
echo ok
