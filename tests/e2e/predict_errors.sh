#!/bin/bash
# memprof predict on bad input: a program built without -DDEBUGPRED (or without the
# header) gets one line saying so and how to build it, with the program's exit status;
# truncated and hostile predict files give one line naming the file and the offset, exit 1,
# and nothing on stdout; usage errors exit 2; a command that cannot run exits 127; a
# workload's exit status and death by signal come through.
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0
expect() { # label want-rc want-stderr-regex cmd...
	local lbl=$1 wrc=$2 re=$3
	shift 3
	"$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc -ne "$wrc" ] || ! grep -qE -- "$re" err.txt || [ "$(wc -l <err.txt)" -ne 1 ]; then
		echo "FAIL $lbl: rc=$rc (want $wrc), stderr:"; cat err.txt; fail=1
	fi
}
gcc -O2 -I"$PREDICT_INC" "$PREDICT_SRC/known.c" -o plain
expect "no DEBUGPRED" 0 "wrote no branch-prediction counts: build it with -DDEBUGPRED and #include <memprof/debugpred.h>" \
	"$MEMPROF" predict -- ./plain
grep -q 9990700 out.txt || { echo "FAIL: the workload's output"; fail=1; }
printf 'int main(void) { return 3; }\n' >three.c && gcc three.c -o three
expect "exit status" 3 "wrote no branch-prediction counts" "$MEMPROF" predict -- ./three
printf '#include <signal.h>\nint main(void) { raise(SIGKILL); return 0; }\n' >kill.c && gcc kill.c -o killed
expect "killed" 137 "killed by signal 9" "$MEMPROF" predict -- ./killed
expect "not found" 127 "cannot run ./nonexistent" "$MEMPROF" predict -- ./nonexistent

gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$PREDICT_SRC/known.c" -o k
"$MEMPROF" predict -o good.pred -- ./k >/dev/null 2>&1 || { echo "FAIL: good run"; fail=1; }
size=$(stat -c %s good.pred)
head -c $((size - 7)) good.pred >trunc.pred
expect "truncated" 1 "^memprof predict: trunc.pred: offset [0-9]+: " "$MEMPROF" predict -i trunc.pred
[ -s out.txt ] && { echo "FAIL: truncated file printed rows"; fail=1; }
sed 's/^uses 2$/uses 3/' good.pred >lying.pred
expect "uses count" 1 "^memprof predict: lying.pred: offset [0-9]+: " "$MEMPROF" predict -i lying.pred
sed 's/^object \([0-9]*\):/object 99999\1:/' good.pred >strlen.pred
expect "string length" 1 "^memprof predict: strlen.pred: offset [0-9]+: (string longer|number out of range)" \
	"$MEMPROF" predict -i strlen.pred
{ cat good.pred; printf 'garbage\n'; } >tail.pred
expect "garbage after" 1 "^memprof predict: tail.pred: offset $size: expected 'MEMPROF-PREDICT '" "$MEMPROF" predict -i tail.pred
: >empty.pred
expect "empty" 1 "empty.pred holds no records" "$MEMPROF" predict -i empty.pred
expect "missing" 1 "nope.pred: No such file" "$MEMPROF" predict -i nope.pred
expect "bad --by" 2 "--by 'macro': expected use, line, expr or function" "$MEMPROF" predict -i good.pred --by macro
expect "bad --sort" 2 "--sort 'size'" "$MEMPROF" predict -i good.pred --sort size
expect "bad threshold" 2 "--threshold 101" "$MEMPROF" predict -i good.pred --threshold 101
expect "csv and json" 2 "either --csv or --json" "$MEMPROF" predict -i good.pred --csv --json
expect "nothing" 2 "no command to run" "$MEMPROF" predict
"$MEMPROF" predict --help | grep -q -- "--atomic-hint" || { echo "FAIL: --help"; fail=1; }
# --atomic-hint names the object whose counters are not atomic, not the atomic one
"$MEMPROF" predict --atomic-hint -o p.pred -- ./k >/dev/null 2>hint.txt
grep -q "$T/k: 2 of 2 uses count without atomics.*-DDEBUGPRED_ATOMIC" hint.txt || { echo "FAIL: --atomic-hint"; cat hint.txt; fail=1; }
gcc -O2 -DDEBUGPRED -DDEBUGPRED_ATOMIC -I"$PREDICT_INC" "$PREDICT_SRC/known.c" -o ka
"$MEMPROF" predict --atomic-hint -o p.pred -- ./ka >/dev/null 2>hint.txt
[ -s hint.txt ] && { echo "FAIL: --atomic-hint on an atomic build"; cat hint.txt; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
