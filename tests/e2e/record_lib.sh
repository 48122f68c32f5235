# record_lib.sh - shared helpers of the record_*.sh / stat_*.sh e2e tests (sourced).
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
: "${KERNELS:?set KERNELS}"
W=$T
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_until CMD...: poll until CMD succeeds (state, not time: the bound is only a safety
# net below the test's timeout).
wait_until() {
	for _ in $(seq 900); do "$@" && return 0; sleep 0.1; done
	fail "timed out waiting for: $*"
}
# cpu_ticks PID: the user+system CPU time PID has used, in clock ticks.
cpu_ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# ran_ticks PID N: PID has used at least N ticks of CPU.
ran_ticks() { [ "$(cpu_ticks "$1")" -ge "$2" ]; }
need_perf() { command -v "$PERF" >/dev/null 2>&1 || { echo "SKIP: no perf"; exit 77; }; }
# perf report must read the file without a warning or error on stderr.
perf_reads() {
	"$PERF" report -i "$1" --stdio >"$W/report.out" 2>"$W/report.err" ||
		fail "perf report -i $1 failed: $(cat "$W/report.err")"
	[ -s "$W/report.err" ] && fail "perf report -i $1 warns: $(cat "$W/report.err")"
	# perf's warnings, not symbols that happen to contain the word (rows have a '%')
	grep -i 'warning' "$W/report.out" | grep -qv '%' &&
		fail "perf report -i $1 warns: $(grep -i warning "$W/report.out" | grep -v '%')"
	return 0
}
# The sample count memprof printed for EVENT in stderr file ERR.
mp_samples() { sed -n "s/^\[ memprof record: $2: \([0-9]*\) samples.*/\1/p" "$1"; }
# Number of samples of EVENT in perf's view: the sum of the -n column.
perf_samples() {
	"$PERF" report -i "$1" --stdio -n --sort pid 2>/dev/null | awk -v ev="$2" '
		/^# Samples: .* of event/ { cur = $0; sub(/.*of event \047/, "", cur); sub(/\047.*/, "", cur) }
		/^#/ || NF < 2 { next }
		cur == ev { s += $2 }
		END { print s + 0 }'
}
