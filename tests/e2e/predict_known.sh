#!/bin/bash
# memprof predict, must-show 1 and 2 (exit/return): a loop of 1000 iterations with
# likely(i < 999) is correct 999 and incorrect 1; unlikely(i % 10 < 7) is incorrect 700,
# correct 300 with WARNING. Exactly, for gcc and clang, -O0 and -O2, PIE and non-PIE, the
# inline-asm form, the plain-C form (-DDEBUGPRED_GENERIC) and atomic counters; for a
# program that returns from main and one that calls exit(). Without MEMPROF_PREDICT the
# header prints the article's lines on stderr.
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
SRC=$PREDICT_SRC/known.c
LL=$(grep -n 'KNOWN-LIKELY' "$SRC" | cut -d: -f1)
UL=$(grep -n 'KNOWN-UNLIKELY' "$SRC" | cut -d: -f1)
fail=0
n=0

check() { # label csv-file
	local want1="likely,999,1,0.10,0,i < 999,loop,$SRC,$LL,"
	local want2="unlikely,300,700,70.00,1,i % 10 < 7,loop,$SRC,$UL,"
	if ! grep -qF "$want1" "$2" || ! grep -qF "$want2" "$2" || [ "$(wc -l <"$2")" -ne 3 ]; then
		echo "FAIL $1: want rows"; echo "  $want1"; echo "  $want2"; echo "got:"; cat "$2"
		fail=1
	fi
}

for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "FAIL: $cc not found"; fail=1; continue; }
	for opt in -O0 -O2; do
		for pie in "-fPIE -pie" "-fno-pie -no-pie"; do
			for form in "" -DDEBUGPRED_GENERIC -DDEBUGPRED_ATOMIC; do
				lbl="$cc $opt $pie $form"
				# shellcheck disable=SC2086
				if ! $cc -std=c11 -Wall -Wextra -Werror $opt $pie -DDEBUGPRED $form \
					-I"$PREDICT_INC" "$SRC" -o k 2>cc.err; then
					echo "FAIL $lbl: build: $(head -5 cc.err)"; fail=1; continue
				fi
				for how in return exit; do
					arg=; [ $how = exit ] && arg=exit
					out=$("$MEMPROF" predict -o p.pred --csv -- ./k $arg 2>err.txt)
					rc=$?
					if [ $rc -ne 0 ]; then
						echo "FAIL $lbl $how: rc=$rc $(cat err.txt)"; fail=1; continue
					fi
					# the workload's own output comes first, then the table
					echo "$out" | grep -v '^9990700$' >rows.csv
					echo "$out" | grep -q '^9990700$' || { echo "FAIL $lbl $how: no workload output"; fail=1; }
					check "$lbl $how" rows.csv
					n=$((n + 1))
				done
			done
		done
	done
done

# the table: WARNING on the wrong hint only; -i reads the same file again
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$SRC" -o k
"$MEMPROF" predict -o p.pred -- ./k >table.txt 2>&1 || { echo "FAIL: table run"; fail=1; }
grep -E '^unlikely +300 +700 +70\.00% WARNING +i % 10 < 7 +loop ' table.txt >/dev/null &&
	grep -E '^likely +999 +1 +0\.10% +i < 999 +loop ' table.txt >/dev/null ||
	{ echo "FAIL: table"; cat table.txt; fail=1; }
"$MEMPROF" predict -i p.pred --csv >again.csv && check "-i" again.csv

# no MEMPROF_PREDICT: the article's lines on stderr
./k 2>art.txt >/dev/null
printf '%s:%s: incorrect=1, correct=999\n%s:%s: incorrect=700, correct=300   <==== WARNING\n' \
	"$SRC" "$LL" "$SRC" "$UL" >art.want
sort art.txt | diff - <(sort art.want) || { echo "FAIL: stderr lines differ"; fail=1; }

[ $fail -eq 0 ] && echo "ok: $n runs with exact counts"
exit $fail
