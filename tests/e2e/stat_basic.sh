# memprof stat: counts like perf stat, --csv, -x, --json, exit status.
. "$(dirname "$0")/record_lib.sh"
"$MEMPROF" stat -e task-clock,page-faults "$KERNELS/cachebench" -s 64M -r 2 >out 2>err ||
	fail "memprof stat failed: $(cat err)"
grep -q "Performance counter stats for '$KERNELS/cachebench -s 64M -r 2'" err || fail "no title: $(cat err)"
grep -qE '^ +[0-9.]+ msec +task-clock' err || fail "no task-clock line: $(cat err)"
pf=$(awk '$2 == "page-faults" {print $1}' err)
# 64 MiB of fresh pages: at least 16384 faults (4 KiB pages), fewer with huge pages
[ -n "$pf" ] && [ "$pf" -gt 1000 ] || fail "page-faults '$pf' too small"
if command -v "$PERF" >/dev/null 2>&1; then
	ppf=$("$PERF" stat -x, -e page-faults "$KERNELS/cachebench" -s 64M -r 2 2>&1 >/dev/null |
		awk -F, '$3 == "page-faults" {print $1}')
	awk -v a="$pf" -v b="$ppf" 'BEGIN {exit !(a > 0.8 * b && a < 1.25 * b)}' ||
		fail "page-faults: memprof $pf, perf $ppf"
fi

"$MEMPROF" stat --csv -e task-clock,page-faults "$KERNELS/cachebench" -s 1M -r 2 >out 2>csv ||
	fail "stat --csv failed"
grep -q '^cachebench: ' out || fail "the workload's stdout was not left alone"
head -1 csv | grep -qx 'event,value,unit,raw,time_enabled,time_running,percent_running' ||
	fail "bad CSV header: $(head -1 csv)"
awk -F, '$1 == "task-clock" && $3 == "ns" && $2 > 0 && $7 == "100.00" {ok = 1} END {exit !ok}' csv ||
	fail "bad task-clock CSV row: $(cat csv)"
awk -F, '$1 == "page-faults" && $2 == $4 && $2 > 0 {ok = 1} END {exit !ok}' csv ||
	fail "bad page-faults CSV row"

"$MEMPROF" stat -x ';' -o semi -e page-faults true 2>err || fail "stat -x -o failed"
[ -s err ] && fail "stat -o still printed: $(cat err)"
grep -q '^page-faults;[0-9]*;;' semi || fail "-x ';' not used: $(cat semi)"

"$MEMPROF" stat --json -e task-clock,context-switches sh -c 'exit 4' 2>json
rc=$?
[ $rc = 4 ] || fail "stat exit status: $rc, want 4"
python3 - json <<'PY' || fail "bad JSON: $(cat json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_status"] == 4, d
ev = {e["event"]: e for e in d["events"]}
assert ev["task-clock"]["value"] > 0 and ev["task-clock"]["unit"] == "ns", ev
assert ev["task-clock"]["time_running"] <= ev["task-clock"]["time_enabled"], ev
assert "context-switches" in ev, ev
PY

"$MEMPROF" stat -e task-clock sh -c 'kill -KILL $$' 2>err; rc=$?
[ $rc = 137 ] || fail "killed workload: rc $rc, want 137"
grep -q 'signal 9' err || fail "no kill note: $(cat err)"

"$MEMPROF" stat 2>err >/dev/null; rc=$?
[ $rc = 2 ] || fail "stat with no command: rc $rc"
"$MEMPROF" stat -e no-such-event true 2>err; rc=$?
[ $rc != 0 ] && grep -q 'no-such-event' err || fail "bad event: rc $rc: $(cat err)"
# default events: the software ones at least
"$MEMPROF" stat true 2>err || fail "default stat failed"
for e in task-clock context-switches page-faults; do grep -q " $e" err || fail "default lacks $e"; done
echo ok
