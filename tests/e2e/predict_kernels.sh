#!/bin/bash
# The kernels built with -DDEBUGPRED (build/kernels/predict/) work with memprof predict out
# of the box: cachebench's walk loop hint likely(steps--) is correct once per step (the
# steps cachebench prints) and incorrect once (the end of the walk); matmul -a all compares
# 2 x N x N results (correct, never incorrect) and spot-checks 64 per algorithm;
# falseshare's thread-creation hint is correct once per thread. The normal build
# (build/kernels/) writes nothing.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
P=$KERNELS/predict
fail=0
for m in walk inc addnext; do
	"$MEMPROF" predict -o p.pred --csv -- "$P/cachebench" -m $m -s 256K -r 7 >out.txt 2>err.txt ||
		{ echo "FAIL cachebench $m: $(cat err.txt)"; fail=1; continue; }
	steps=$(sed -n 's/.* steps=\([0-9]*\) .*/\1/p' out.txt)
	grep -qE "^likely,$steps,1,[0-9.]+,0,steps--,$m," out.txt ||
		{ echo "FAIL cachebench $m: no row likely,$steps,1,...,steps--,$m"; cat out.txt; fail=1; }
	grep -qE "^unlikely,1,0,0.00,0,p != head,main," out.txt || { echo "FAIL: p != head"; fail=1; }
done
"$MEMPROF" predict -o p.pred --csv -- "$P/matmul" -N 64 -a all >out.txt 2>err.txt || { echo "FAIL matmul: $(cat err.txt)"; fail=1; }
grep -qF "unlikely,$((2 * 64 * 64)),0,0.00,0,\"!close_enough(a[i], b[i])\",compare," out.txt &&
	grep -qF "unlikely,64,0,0.00,0,\"!close_enough(sum," out.txt ||
	{ echo "FAIL matmul rows"; cat out.txt; fail=1; }
"$MEMPROF" predict -o p.pred --csv -- "$P/falseshare" -T 3 -d 64 -i 1000 >out.txt 2>err.txt || { echo "FAIL falseshare: $(cat err.txt)"; fail=1; }
grep -qE '^unlikely,3,0,0.00,0,rc,main,' out.txt || { echo "FAIL falseshare rows"; cat out.txt; fail=1; }
"$MEMPROF" predict -o p.pred -- "$KERNELS/cachebench" -s 64K -r 1 >/dev/null 2>err.txt
grep -q "wrote no branch-prediction counts" err.txt || { echo "FAIL: the normal build wrote counts"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
