# -g call chains, -p attach, -a system-wide, -q, and bad options.
. "$(dirname "$0")/record_lib.sh"
need_perf
"$MEMPROF" record -g -e cpu-clock -c 200000 -o G "$KERNELS/matmul" -N 256 -a naive \
	>out 2>err || fail "record -g failed: $(cat err)"
perf_reads G
grep -q '^# Children' "$W/report.out" || fail "no call-graph columns in perf report"
"$PERF" script -i G -F ip,sym 2>/dev/null | grep -c 'mm_naive' >cnt
[ "$(cat cnt)" -gt 10 ] || fail "no mm_naive frames"
"$PERF" script -i G -F ip,sym 2>/dev/null | awk 'NF == 0 {n++} END {exit !(n > 10)}' ||
	fail "perf script shows no multi-line stacks"
"$PERF" script -i G -F ip,sym 2>/dev/null | grep -q '__libc_start_call_main\|main$' ||
	fail "stacks do not reach main"

# -p on a running cachebench: attach once it runs, stop it once it has run 0.3 s of CPU
# under memprof (memprof stops when its target exits).
"$KERNELS/cachebench" -t 60 >/dev/null &
wl=$!
wait_until grep -qx cachebench /proc/$wl/comm
"$MEMPROF" record -p $wl -e cpu-clock -c 100000 -o P >out 2>err &
mp=$!
wait_until compgen -G "P.tmp.*"
t0=$(cpu_ticks $wl)
wait_until ran_ticks $wl $((t0 + 30))
kill $wl
wait $mp || fail "record -p failed: $(cat err)"
wait $wl
perf_reads P
"$PERF" script -i P -F comm,pid 2>/dev/null | awk '{print $1, $2}' | sort | uniq -c | sort -rn >pp
head -1 pp | grep -q "cachebench $wl$" || fail "-p samples are not of pid $wl: $(head -3 pp)"
grep -q '\[\.\] walk' "$W/report.out" || fail "-p: walk not resolved (no synthesized mmaps?)"

"$MEMPROF" record -a -e cpu-clock -c 1000000 -o A sleep 0.3 >out 2>err || fail "record -a failed: $(cat err)"
perf_reads A
"$PERF" script -i A -F cpu 2>/dev/null | sort -u | wc -l >ncpu
[ "$(cat ncpu)" = "$(nproc)" ] || fail "-a saw $(cat ncpu) CPUs, the machine has $(nproc)"

"$MEMPROF" record -q -e cpu-clock -o Q true >out 2>err || fail "record -q failed"
[ -s err ] && fail "-q printed: $(cat err)"

"$MEMPROF" record -m 3 -o B true 2>err; rc=$?
[ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q 'power of two' err || fail "-m 3: rc $rc: $(cat err)"
"$MEMPROF" record --frobnicate true 2>err; rc=$?
[ $rc = 2 ] && grep -q "unknown option '--frobnicate'" err || fail "unknown option: rc $rc"
"$MEMPROF" record -e cpu-clock -o /nonexistent-dir/F true >out 2>err; rc=$?
[ $rc = 1 ] && grep -q '/nonexistent-dir/F' err || fail "bad -o: rc $rc: $(cat err)"
"$MEMPROF" record 2>err; rc=$?
[ $rc = 2 ] || fail "no command: rc $rc"
echo ok
