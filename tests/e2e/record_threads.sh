# falseshare with two threads: samples from both threads (inherit), one pid; with
# --no-inherit only the main thread is followed.
. "$(dirname "$0")/record_lib.sh"
need_perf
"$MEMPROF" record -e cpu-clock -c 100000 -o F "$KERNELS/falseshare" -T 2 -i 1000000000 \
	>out 2>err || fail "memprof record failed: $(cat err)"
perf_reads F
"$PERF" script -i F -F comm,pid,tid 2>/dev/null | awk '{print $2}' | sort | uniq -c | sort -rn >tids
cat tids
pids=$(awk '{split($2, a, "/"); print a[1]}' tids | sort -u | wc -l)
[ "$pids" = 1 ] || fail "expected one process, got $pids"
busy=$(awk '$1 >= 100' tids | wc -l)
[ "$busy" -ge 2 ] || fail "expected >= 2 threads with 100+ samples each: $(cat tids)"
grep -q ' falseshare ' <("$PERF" script -i F -F comm,pid,tid 2>/dev/null | sed 's/^ */ /') ||
	fail "comm falseshare missing"

"$MEMPROF" record -i -e cpu-clock -c 100000 -o G "$KERNELS/falseshare" -T 2 -i 300000000 \
	>out 2>err || fail "memprof record -i failed: $(cat err)"
n=$("$PERF" script -i G -F tid 2>/dev/null | sort -u | wc -l)
[ "$n" = 1 ] || fail "--no-inherit followed $n threads"
echo ok
