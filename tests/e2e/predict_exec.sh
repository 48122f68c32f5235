#!/bin/bash
# memprof predict across exec (issue 30.5): exec() replaces the image without destructors,
# so the header writes the counts so far before it (a record marked exec) and the new image
# writes its own. exec.c runs use A 100 times, an exec that fails, use A 100 times more,
# then execs itself ("b": use B) or another program (known.c): A is correct 180 and
# incorrect 20, B 40 and 10, known's 300 and 700. Before the fix, A showed 0/0.
. "$(dirname "$0")/e2e_lib.sh"
: "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
S=$PREDICT_SRC
line() { grep -n "$1" "$2" | cut -d: -f1; }
AL=$(line "/\* USE-A" "$S/exec.c")
BL=$(line "/\* USE-B" "$S/exec.c")
KU=$(line "/\* KNOWN-UNLIKELY" "$S/known.c")
for cc in gcc clang; do
	rm -f ex k p.pred
	$cc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$S/exec.c" -o ex &&
		$cc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$S/known.c" -o k ||
		{ echo "FAIL $cc: build"; fail=1; continue; }
	# itself: one object, one process, two records written at exec (one failed)
	"$MEMPROF" predict -o p.pred --csv -- ./ex >self.csv 2>err.txt ||
		{ echo "FAIL $cc: rc=$? $(cat err.txt)"; fail=1; continue; }
	for want in "unlikely,180,20,10.00,0,i % 10 == 0,use_a,$S/exec.c,$AL,$T/ex,1,1,0" \
		"likely,40,10,20.00,0,i < 40,use_b,$S/exec.c,$BL,$T/ex,1,1,0"; do
		grep -qxF "$want" self.csv || { echo "FAIL $cc: no row $want"; cat self.csv; fail=1; }
	done
	"$MEMPROF" predict -i p.pred >self.txt
	grep -q "in 1 object, 1 process, 2 execs;" self.txt ||
		{ echo "FAIL $cc: header"; head -1 self.txt; fail=1; }
	[ "$(grep -c '^exec$' p.pred)" -eq 2 ] && [ "$(grep -c '^MEMPROF-PREDICT' p.pred)" -eq 3 ] ||
		{ echo "FAIL $cc: records"; grep -a -E '^(MEMPROF|pid|exec)' p.pred; fail=1; }
	"$MEMPROF" predict -i p.pred --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
ex = [r.get("exec", False) for r in d["records"]]
assert ex == [True, True, False], ex
assert len({r["pid"] for r in d["records"]}) == 1' || { echo "FAIL $cc: json"; fail=1; }
	# another program: both images' rows, each with its object
	"$MEMPROF" predict -o p2.pred --csv -- ./ex other ./k >other.csv 2>err.txt ||
		{ echo "FAIL $cc other: rc=$? $(cat err.txt)"; fail=1; continue; }
	for want in "unlikely,180,20,10.00,0,i % 10 == 0,use_a,$S/exec.c,$AL,$T/ex,1,1,0" \
		"unlikely,300,700,70.00,1,i % 10 < 7,loop,$S/known.c,$KU,$T/k,1,1,0"; do
		grep -qxF "$want" other.csv || { echo "FAIL $cc other: no row $want"; cat other.csv; fail=1; }
	done
	"$MEMPROF" predict -i p2.pred | head -1 | grep -q "in 2 objects, 1 process, 2 execs;" ||
		{ echo "FAIL $cc other: header"; "$MEMPROF" predict -i p2.pred | head -1; fail=1; }
	# without MEMPROF_PREDICT the article's lines go to stderr, the first image's too
	./ex 2>plain.txt >/dev/null
	grep -qxF "$S/exec.c:$AL: incorrect=10, correct=90" plain.txt &&
		grep -qxF "$S/exec.c:$BL: incorrect=10, correct=40" plain.txt ||
		{ echo "FAIL $cc: stderr lines"; cat plain.txt; fail=1; }
done
[ $fail -eq 0 ] && echo ok
exit $fail
