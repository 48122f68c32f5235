# memprof record -e cpu-clock -c 100000 on cachebench (a fixed amount of work, -r, so that the
# sample count does not depend on the load): perf report reads the file with no
# warning and names walk as the top symbol; perf script shows the workload's comm, pid and
# tid; memprof's sample count equals perf's; the header has the host features and the
# build-ids of the objects that got samples.
. "$(dirname "$0")/record_lib.sh"
need_perf
sh -c 'echo $$ > pid; exec "$0" "$@"' "$MEMPROF" record -e cpu-clock -c 100000 -o F \
	"$KERNELS/cachebench" -s 4M -r 2500 >out 2>err
rc=$?
[ $rc = 0 ] || fail "memprof record exited $rc: $(cat err)"
[ -f F ] || fail "no output file"
compgen -G "F.tmp*" >/dev/null && fail "F.tmp left behind"
perf_reads F
top=$(grep -v '^#' "$W/report.out" | grep -m1 '%')
echo "$top" | grep -q '\[\.\] walk *$' || fail "top symbol is not walk: $top"
grep -q "^# Samples: .* of event 'cpu-clock'" "$W/report.out" || fail "no cpu-clock section"

# perf script: comm cachebench, and the pid/tid of the workload (pid file written by the
# shell that exec'ed memprof: memprof's pid; the workload is its child).
mp_pid=$(cat pid)
"$PERF" script -i F -F comm,pid,tid 2>/dev/null >script.out
n_script=$(wc -l <script.out)
[ "$n_script" -gt 1000 ] || fail "only $n_script samples in perf script"
awk '{print $1}' script.out | sort -u | grep -qx cachebench || fail "comm cachebench missing"
wl=$(awk '{split($2, a, "/"); print a[1]}' script.out | sort | uniq -c | sort -rn | awk 'NR==1 {print $2}')
[ -n "$wl" ] || fail "no pid in perf script"
[ "$wl" != "$mp_pid" ] || fail "samples carry memprof's pid, not the workload's"
awk -v p="$wl" '{split($2, a, "/"); if (a[1] == p && a[2] != p) bad = 1} END {exit bad}' script.out ||
	fail "single-threaded workload has tid != pid"
# memprof's count = perf script's = perf report's
n_mp=$(mp_samples err cpu-clock)
[ -n "$n_mp" ] || fail "memprof printed no sample count: $(cat err)"
[ "$n_mp" = "$n_script" ] || fail "memprof says $n_mp samples, perf script shows $n_script"
n_rep=$(perf_samples F cpu-clock)
[ "$n_mp" = "$n_rep" ] || fail "memprof says $n_mp samples, perf report counts $n_rep"
"$PERF" report -i F --stats 2>/dev/null | grep -q "SAMPLE events: *$n_mp\b" ||
	fail "perf report --stats disagrees with $n_mp"

# header features
"$PERF" report -i F --header-only >hdr 2>&1
for k in "hostname : $(uname -n)" "os release : $(uname -r)" "arch : $(uname -m)" \
	"nrcpus online : $(nproc)" "cmdline : memprof record -e cpu-clock" "event : name = cpu-clock"; do
	grep -qF "# $k" hdr || fail "header lacks '$k'"
done
grep -q '^# cpudesc : ' hdr || fail "no cpudesc"
grep -q '^# cpuid : ' hdr || fail "no cpuid"
# build-id of cachebench as readelf reads it
want=$(readelf -n "$KERNELS/cachebench" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
"$PERF" buildid-list -i F >bids 2>/dev/null
grep -q "^$want .*cachebench$" bids || fail "build-id $want of cachebench not in file: $(cat bids)"
# exact count kept in the file (PERF_RECORD_READ), larger than samples*period
"$PERF" report -i F --stats 2>/dev/null | grep -q "READ events: *[1-9]" || fail "no READ records"
echo ok
