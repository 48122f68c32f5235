# Issue 18: bad option values are refused with one line (not silently the default), and an
# output that cannot be written (> /dev/full, stat -o /dev/full) fails the command.
. "$(dirname "$0")/record_lib.sh"
# refused CODE ARGS...: memprof ARGS exits CODE with exactly one line on stderr, no output file
refused() {
	want=$1
	shift
	rm -f R.data
	"$MEMPROF" "$@" >out 2>err
	rc=$?
	[ "$rc" = "$want" ] || fail "memprof $* exited $rc, want $want: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "memprof $*: not one line: $(cat err)"
	[ -e R.data ] && fail "memprof $* wrote R.data"
	return 0
}
refused 2 record -c 0 -o R.data -- true
grep -q -- '-c 0' err || fail "-c 0: message does not name it: $(cat err)"
refused 2 record -F 0 -o R.data -- true
grep -q -- '-F 0' err || fail "-F 0: message does not name it: $(cat err)"
refused 2 record -c 100000 -F 100 -o R.data -- true
grep -q -- 'not both' err || fail "-c with -F: $(cat err)"
refused 2 stat -x "" -- true
refused 2 ratios --record-cmd --counters -1
grep -q -- '--counters -1' err || fail "--counters -1: $(cat err)"
refused 1 ratios --record-cmd --pmu nosuchmodel
grep -q "unknown PMU model 'nosuchmodel'" err || fail "--pmu nosuchmodel: $(cat err)"
refused 1 list --pmu nosuchmodel
# the accepted forms still work
"$MEMPROF" ratios --record-cmd --pmu cachegrind >out 2>err || fail "--pmu cachegrind: $(cat err)"
"$MEMPROF" ratios --record-cmd --counters 2 >out 2>err || fail "--counters 2: $(cat err)"
"$MEMPROF" stat -x ';' -e task-clock -- true 2>err || fail "stat -x ';': $(cat err)"
grep -q '^task-clock;' err || fail "stat -x ';' output: $(cat err)"

# Output that cannot be written: exit 1 and one line naming the cause.
[ -w /dev/full ] || { echo "SKIP: no /dev/full"; exit 77; }
full() {
	"$MEMPROF" "$@" >/dev/full 2>err
	rc=$?
	[ "$rc" = 1 ] || fail "memprof $* >/dev/full exited $rc: $(cat err)"
	grep -Eq 'cannot write the output|writing( the (report|diff))?: No space left' err ||
		fail "memprof $* >/dev/full: $(cat err)"
	# one line: a command that says why its flush failed gets no second line from main
	[ "$(wc -l <err)" = 1 ] || fail "memprof $* >/dev/full: not one line: $(cat err)"
}
full list
full list --models
full ratios --list
"$MEMPROF" record -q -e cpu-clock -c 100000 -o R.data -- "$KERNELS/matmul" -N 64 -a naive \
	>/dev/null 2>err || fail "record: $(cat err)"
full report -i R.data -k /dev/null
full report -i R.data -k /dev/null --csv
full report -i R.data,R.data -k /dev/null
full annotate -i R.data -k /dev/null
full ratios -i R.data -k /dev/null
full tui --batch q -i R.data -k /dev/null
full script -i R.data -k /dev/null
full diff R.data R.data -k /dev/null
"$MEMPROF" stat -o /dev/full -e task-clock -- true 2>err
[ $? = 1 ] || fail "stat -o /dev/full did not fail: $(cat err)"
grep -q '/dev/full: cannot write' err || fail "stat -o /dev/full: $(cat err)"
exit 0
