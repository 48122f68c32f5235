# Ctrl-C (SIGINT to memprof) goes to the workload, the file stays readable, exit 130; a
# workload killed by SIGKILL gives a readable file and exit 137; exit codes pass through.
. "$(dirname "$0")/record_lib.sh"
need_perf
# The workload is killed once it has run 0.3 s of CPU under memprof (not after a time).
workload_ran() {
	local c; c=$(pgrep -P "$1") && [ "$(cat /proc/$c/comm 2>/dev/null)" = cachebench ] &&
		ran_ticks "$c" 30
}

"$MEMPROF" record -e cpu-clock -c 100000 -o I "$KERNELS/cachebench" -t 30 >out 2>err &
mp=$!
wait_until compgen -G "I.tmp.*"
wait_until workload_ran $mp
kill -INT $mp
wait $mp
rc=$?
[ $rc = 130 ] || fail "after SIGINT memprof exited $rc, want 130: $(cat err)"
compgen -G "I.tmp*" >/dev/null && fail "I.tmp left"
perf_reads I
grep -q 'walk' "$W/report.out" || fail "no walk samples after SIGINT"
grep -q 'signal 2' err || fail "memprof did not say the workload got SIGINT: $(cat err)"

"$MEMPROF" record -e cpu-clock -c 100000 -o K "$KERNELS/cachebench" -t 30 >out 2>err &
mp=$!
wait_until compgen -G "K.tmp.*"
wait_until workload_ran $mp
child=$(pgrep -P $mp)
[ -n "$child" ] || fail "no workload child"
kill -KILL $child
wait $mp
rc=$?
[ $rc = 137 ] || fail "workload SIGKILLed: memprof exited $rc, want 137"
perf_reads K
n=$(mp_samples err cpu-clock)
[ "$n" -gt 0 ] || fail "no samples before SIGKILL"
grep -q 'signal 9' err || fail "memprof did not say the workload was killed"

"$MEMPROF" record -q -e cpu-clock -o E sh -c 'exit 7'
rc=$?
[ $rc = 7 ] || fail "exit status 7 came back as $rc"
perf_reads E

"$MEMPROF" record -e cpu-clock -o N /nonexistent/prog >out 2>err
rc=$?
[ $rc = 127 ] || fail "missing command: exit $rc, want 127"
grep -q "cannot run '/nonexistent/prog'" err || fail "no clear error: $(cat err)"
[ -e N ] || compgen -G "N.tmp*" >/dev/null && fail "file left for a command that never ran"
echo ok
