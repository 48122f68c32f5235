#!/bin/bash
# memprof's valgrind tool (mpsim) beyond callgrind: TLBs, software prefetch and the
# latency model, and the article's ratios they make computable (issue 31).
# - cachebench's sequential 4 MiB walk visits 1024 pages 8 times: one DTLB miss per page
#   visited (64 elements of 64 bytes a page) and no page walk (1024 pages fit the 1536-entry
#   second-level TLB); a random walk over 16 MiB (4096 pages) walks the page tables for
#   most steps;
# - a sequential walk of one 4 KiB element a page: over 80 pages, each of the 16 sets of
#   the 64-entry 4-way DTLB sees 5 pages in turn and LRU loses every one (a DTLB miss at
#   every load, 640 for 8 walks, and one more at walk's return); over 64 pages they all
#   fit (at most one miss a page, in the first walk);
# - matmul's blocked product prefetches (prefetchnta) and the others do not;
# - from a --sim recording of matmul at least 9 of the article's 12 ratios have a value.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
"$MEMPROF" record --sim -e Ir,DTLBm,STLBm,Cyc -o seq.data -- "$KERNELS/cachebench" -s 4M -r 8 \
	>seq.out 2>seq.err || fail "record --sim cachebench 4M: $(cat seq.err)"
grep -q "steps=524288" seq.out || fail "cachebench: $(cat seq.out)"
d=$(perf_sym_period seq.data DTLBm walk)
s=$(perf_sym_period seq.data STLBm walk)
echo "seq 4M walk: DTLB misses $d for 8192 page visits, STLB misses $s"
check "$d >= 8192 && $d <= 8192 + 64" "seq 4M walk: $d DTLB misses, want one per page visited (8192)"
[ "$s" = 0 ] || fail "seq 4M walk: $s page walks, want 0 (1024 pages in a 1536-entry STLB)"
"$MEMPROF" record --sim -e DTLBm,STLBm -o rnd.data -- "$KERNELS/cachebench" -s 16M -o random -r 1 \
	>rnd.out 2>rnd.err || fail "record --sim cachebench 16M random: $(cat rnd.err)"
steps=$(sed -n 's/.* steps=\([0-9]*\) .*/\1/p' rnd.out)
s=$(perf_sym_period rnd.data STLBm walk)
echo "random 16M walk: $s page walks for $steps steps"
check "$s >= 0.5 * $steps" "random 16M walk: $s page walks for $steps steps"
for k in 80 64; do
	"$MEMPROF" record --sim -e DTLBm,STLBm -o p$k.data -- "$KERNELS/cachebench" -n 511 \
		-s $((k * 4096)) -r 8 >p$k.out 2>p$k.err || fail "record --sim cachebench $k pages: $(cat p$k.err)"
	grep -q "steps=$((k * 8))" p$k.out || fail "cachebench $k pages: $(cat p$k.out)"
	d=$(perf_sym_period p$k.data DTLBm walk)
	s=$(perf_sym_period p$k.data STLBm walk)
	echo "walk of $k pages 8 times: DTLB misses $d, STLB misses $s"
	[ "$s" = 0 ] || fail "walk of $k pages: $s page walks, want 0"
	if [ $k = 80 ]; then
		check "$d >= 640 && $d <= 641" "walk of 80 pages: $d DTLB misses, want 640 (LRU loses each)"
	else
		check "$d <= 65" "walk of 64 pages: $d DTLB misses, want at most one a page"
	fi
done

"$MEMPROF" record --sim -o mm.data -- "$KERNELS/matmul" -N 64 -a all >mm.out 2>mm.err ||
	fail "record --sim matmul: $(cat mm.err)"
px=$(perf_sym_period mm.data PFx mm_blocked)
pm=$(perf_sym_period mm.data PFm mm_blocked)
pn=$(perf_sym_period mm.data PFx mm_naive)
echo "mm_blocked: $px prefetches, $pm useful; mm_naive: $pn"
check "$px >= 64 * 64 * 64 / 8 / 8 && $pm >= 1 && $pm <= $px" "mm_blocked prefetches: $px executed, $pm useful"
[ "$pn" = 0 ] || fail "mm_naive executed $pn prefetches"
"$MEMPROF" ratios -i mm.data --csv >r.csv 2>r.err || fail "ratios: $(cat r.err)"
ok=0 list=
for id in IFETCH_STALL ITLB_MISS_RATE L1I_MISS_RATE L2_INSTR_MISS_RATE LOAD_RATE STORE_ORDER_BLOCK \
	L1D_BLOCKING_LOADS L1D_MISS_RATE L2_DATA_MISS_RATE L2_DEMAND_MISS_RATE USEFUL_NTA_PREFETCH_RATE \
	LATE_NTA_PREFETCH_RATE; do
	v=$(awk -F, -v id="$id" '$1 == id && $3 == "program" { print $7 }' r.csv)
	if [ -n "$v" ]; then ok=$((ok + 1)); list="$list $id=$v"; fi
done
echo "ratios with a value: $ok of 12:$list"
check "$ok >= 9" "only $ok of the article's 12 ratios computable from a --sim recording of matmul"
echo "ok"
