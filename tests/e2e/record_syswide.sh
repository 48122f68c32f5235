# record -a with a command: the counters run before the workload is let go,
# so its exec (COMM exec record) and its first samples are in the file; one READ record
# per counter id, and memprof report's exact count is the one record printed.
. "$(dirname "$0")/record_lib.sh"
need_perf
# Pinned to one CPU, as in a one-CPU guest: the workload runs before memprof gets the CPU.
# System-wide, the file also holds other tests' cachebench runs: the workload runs under a
# name of its own (its comm), so that its exec record is found for sure.
wlname=cbsw$$
cp "$KERNELS/cachebench" "./$wlname"
taskset -c 0 "$MEMPROF" record -a -e cpu-clock -c 100000 -o A \
	"./$wlname" -s 64K -r 60000 >out 2>err || fail "record -a failed: $(cat err)"
perf_reads A
"$PERF" script -i A --show-task-events -F comm,pid,event 2>/dev/null >tasks
pid=$(sed -n "s/.*PERF_RECORD_COMM exec: $wlname:\([0-9]*\)\/.*/\1/p" tasks | head -1)
[ -n "$pid" ] ||
	fail "record -a: no COMM exec record of the workload: $(grep -i comm tasks | head -3)"
n=$("$PERF" script -i A -F comm,pid 2>/dev/null | awk -v p="$pid" -v c="$wlname" '$1 == c && $2 == p' | wc -l)
[ "$n" -ge 5 ] || fail "record -a: $n samples of $wlname $pid"
# its top user-space symbol (under load, kernel time charged to it, such as interrupts and
# scheduling, can outweigh any one user symbol)
"$PERF" report -i A --stdio --pid "$pid" --sort sym 2>/dev/null | grep -v '^#' |
	grep -m1 '%.*\[\.\]' | grep -q '\[\.\] walk' ||
	fail "record -a: walk is not the workload's top user symbol"

# One PERF_RECORD_READ per counter id (one per CPU for a workload), and memprof report's
# exact count equals what record printed.
"$MEMPROF" record -e cpu-clock -c 100000 -o R "$KERNELS/cachebench" -s 64K -r 300 \
	>out 2>err || fail "record failed: $(cat err)"
cnt=$(sed -n 's/^\[ memprof record: cpu-clock: .* count \([0-9]*\).*/\1/p' err)
[ -n "$cnt" ] || fail "record printed no count: $(cat err)"
nread=$("$PERF" report -D -i R 2>/dev/null | grep -c 'PERF_RECORD_READ')
[ "$nread" = "$(nproc)" ] || fail "$nread PERF_RECORD_READ records, expected one per CPU ($(nproc))"
"$PERF" report -D -i R 2>/dev/null | grep 'PERF_RECORD_READ' | awk '{print $NF}' |
	awk '{s += $1} END {print s}' >psum
[ "$(cat psum)" = "$cnt" ] || fail "the READ records sum to $(cat psum), record printed $cnt"
"$MEMPROF" report -i R 2>&1 | sed -n 's/.*exact count \([0-9]*\).*/\1/p' >mcnt
[ "$(cat mcnt)" = "$cnt" ] || fail "memprof report: exact count $(cat mcnt), record printed $cnt"
echo ok
