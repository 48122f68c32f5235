#!/bin/bash
# must-show 4: without DEBUGPRED, a function using likely()/unlikely() from the header
# compiles to exactly the instructions of the same function written with
# __builtin_expect(!!(e), 1/0) (objdump -d of find(), with the raw bytes), for gcc and
# clang at -O0, -O2 and -O3. With -DDEBUGPRED it does not (the check can fail).
set -u
: "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
S=$PREDICT_SRC/objcode.c
fail=0
dis() { objdump -d --section=.text "$1" | sed -n '/<find>:/,$p'; }
for cc in gcc clang; do
	for opt in -O0 -O2 -O3; do
		$cc $opt -c -I"$PREDICT_INC" -DUSE_HEADER "$S" -o h.o && $cc $opt -c "$S" -o b.o || { fail=1; continue; }
		dis h.o >h.txt; dis b.o >b.txt
		[ -s h.txt ] || { echo "FAIL $cc $opt: no find() in the disassembly"; fail=1; }
		diff h.txt b.txt >/dev/null || { echo "FAIL $cc $opt: code differs"; diff h.txt b.txt | head; fail=1; }
	done
done
# the comparison sees a difference when there is one
gcc -O2 -c -I"$PREDICT_INC" -DUSE_HEADER -DDEBUGPRED "$S" -o d.o && dis d.o >d.txt
gcc -O2 -c "$S" -o b.o && dis b.o >b.txt
diff d.txt b.txt >/dev/null && { echo "FAIL: -DDEBUGPRED code equal to __builtin_expect's"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
