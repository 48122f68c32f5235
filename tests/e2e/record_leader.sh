# Leader sampling {cpu-clock,task-clock}:S: only the leader samples, each sample reads the
# group; memprof report and perf report agree per member (samples, estimated counts, rows).
CMP=$(cd "$(dirname "$0")" && pwd)/report_perfcmp.py
. "$(dirname "$0")/record_lib.sh"
need_perf
"$MEMPROF" record -e '{cpu-clock,task-clock}:S' -c 100000 -o L \
	"$KERNELS/cachebench" -s 64K -r 10000 >out 2>err || fail "record :S failed: $(cat err)"
grep -q 'not followed' err || fail "no note that children/threads are not followed: $(cat err)"
grep -q '^\[ memprof record: task-clock: read through cpu-clock.s samples, count [0-9]* \]$' err ||
	fail "the member's summary: $(grep task-clock err)"
grep -q 'every 0' err && fail "a member is summarized as sampling every 0: $(cat err)"
ns=$(mp_samples err cpu-clock)
[ "${ns:-0}" -ge 10 ] || fail "cpu-clock: ${ns:-0} samples"
perf_reads L
# perf splits the group reads per member: both events have the leader's samples.
[ "$(perf_samples L cpu-clock)" = "$ns" ] || fail "perf: cpu-clock $(perf_samples L cpu-clock) samples, memprof printed $ns"
[ "$(perf_samples L task-clock)" = "$ns" ] || fail "perf: task-clock $(perf_samples L task-clock) samples, expected $ns"
"$PERF" script -i L -F event,period 2>/dev/null | awk '$2 == "task-clock:" && $1 > 0' | wc -l >tn
[ "$(cat tn)" -ge $((ns - 1)) ] || fail "perf script: $(cat tn) task-clock samples with a period"
# Row by row on user-space samples (perf and memprof may name a kernel address by
# different aliases, memcpy / __pi_memcpy).
"$MEMPROF" record -q -e '{cpu-clock,task-clock}:uS' -c 100000 -o U \
	"$KERNELS/cachebench" -s 64K -r 10000 >out 2>erru || fail "record :uS failed: $(cat erru)"
"$PERF" report -i U --stdio --sort dso,sym --no-children -g none 2>/dev/null |
	grep -v '^# (Tip' >perf.txt
"$MEMPROF" report -q -i U --csv >mp.csv 2>mp.err || fail "memprof report failed: $(cat mp.err)"
python3 "$CMP" perf.txt mp.csv rows 0.1 0.5 >cmp 2>&1 ||
	fail "memprof report and perf report differ: $(head -5 cmp)"
grep -q 'walk' perf.txt || fail "walk not in perf report"
# memprof report's exact counts are the ones record printed (one READ per counter id).
for e in cpu-clock task-clock; do
	c=$(sed -n "s/^\[ memprof record: $e: .*count \([0-9]*\) \]$/\1/p" err)
	m=$("$MEMPROF" report -i L 2>&1 | sed -n "s/^#   \[[01]\] $e: .*exact count \([0-9]*\).*/\1/p")
	[ -n "$c" ] && [ "$c" = "$m" ] || fail "$e: memprof report exact count '$m', record printed '$c'"
done
# -g with :S: the call chains come after the read block.
"$MEMPROF" record -g -e '{cpu-clock,task-clock}:S' -c 100000 -o G \
	"$KERNELS/cachebench" -s 64K -r 10000 >out 2>err || fail "record -g :S failed: $(cat err)"
perf_reads G
n=$("$PERF" script -i G -F ip,sym 2>/dev/null | grep -c ' walk$')
[ "$n" -ge 10 ] || fail "-g :S: $n walk frames in perf script"
# Kernel call chains too: a workload that lives in system calls, so that samples land there
# for sure (cachebench's few page faults may get none).
"$MEMPROF" record -g -e '{cpu-clock,task-clock}:S' -c 100000 -o GK \
	dd if=/dev/zero of=/dev/null bs=4k count=200000 >out 2>err || fail "record -g :S dd failed: $(cat err)"
perf_reads GK
"$PERF" script -i GK -F ip,sym 2>/dev/null | grep -q 'do_syscall_64$' ||
	fail "-g :S: no kernel call chains in perf script"
echo ok
