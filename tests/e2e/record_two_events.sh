# Two events in one run, each with its own sample period, both in perf report.
. "$(dirname "$0")/record_lib.sh"
need_perf
"$MEMPROF" record -c 100000 -e cpu-clock -e task-clock:250000 -o F \
	"$KERNELS/cachebench" -r 2500 >out 2>err || fail "memprof record failed: $(cat err)"
perf_reads F
for ev in cpu-clock task-clock; do
	grep -q "^# Samples: .* of event '$ev'" "$W/report.out" || fail "no $ev section in perf report"
done
"$PERF" script -i F -F event,period 2>/dev/null | awk '{print $2, $1}' | sort | uniq -c >periods
cat periods
[ "$(wc -l <periods)" = 2 ] || fail "expected one period per event: $(cat periods)"
grep -q ' cpu-clock: 100000$' periods || fail "cpu-clock samples lack period 100000"
grep -q ' task-clock: 250000$' periods || fail "task-clock samples lack period 250000"
for ev in cpu-clock task-clock; do
	n_mp=$(mp_samples err $ev)
	n_pf=$(awk -v e="$ev:" '$2 == e {print $1}' periods)
	[ "$n_mp" = "$n_pf" ] || fail "$ev: memprof says $n_mp samples, perf script $n_pf"
done
# about 2.5 times as many cpu-clock samples as task-clock ones
awk '{n[$2] = $1} END {r = n["cpu-clock:"] / n["task-clock:"]; exit !(r > 2 && r < 3)}' periods ||
	fail "sample ratio is not about 2.5"
echo ok
