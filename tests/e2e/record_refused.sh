# An event the machine cannot count: one clear line, non-zero exit, no file.
. "$(dirname "$0")/record_lib.sh"
if ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|armv[0-9].*)$'; then
	echo "SKIP: this machine has a hardware PMU"; exit 77
fi
"$MEMPROF" record -e L1D_REPL,INST_RETIRED -o F "$KERNELS/cachebench" -t 0.2 >out 2>err
rc=$?
cat err
[ $rc != 0 ] || fail "memprof record succeeded"
[ "$(wc -l <err)" = 1 ] || fail "expected one line on stderr, got $(wc -l <err)"
grep -q 'L1D_REPL' err || fail "the line does not name the event"
grep -qi 'no hardware counters' err || fail "the line does not say there are no hardware counters"
grep -q 'cpu-clock' err || fail "the line does not say what can be recorded instead"
model=$("$MEMPROF" list 2>/dev/null | sed -n 's/.*(this machine: \([a-z0-9_]*\).*/\1/p' | head -1)
if [ -n "$model" ]; then
	grep -q "$model" err || fail "the line does not name the host model $model"
else
	grep -qE 'model [a-z][a-z0-9_]+' err || fail "the line names no host PMU model"
fi
[ -s out ] && fail "the workload ran: $(cat out)"
[ -e F ] && fail "a file was left"
compgen -G "F.tmp*" >/dev/null && fail "a .tmp file was left"
# the default event falls back to cpu-clock and says so
"$MEMPROF" record -o D "$KERNELS/cachebench" -t 0.2 >out 2>err || fail "default record failed: $(cat err)"
grep -q 'cpu-clock instead' err || fail "no fallback note: $(cat err)"
grep -q "^\[ memprof record: cpu-clock: [1-9]" err || fail "default did not record cpu-clock"
echo ok
