#!/bin/bash
# mpsim's L2 lookup with AVX2 (once threads run on two cores: the ways that hold a line
# found as bit masks, the entries above it moved in whole vectors) keeps the same LRU as
# the way-by-way loop: four threads on four simulated cores reading and writing one 4 MB
# array at random (sim_simd.c; a 2 MB 16-way L2 each, so that lines hit at any way, miss,
# are evicted and are invalidated by the others' writes) count exactly the same per
# quantity with --simd=yes (the default) and --simd=no. So does a snoop's look in another
# core's L2 with AVX2 (find_vec: a wrong way there changes HITM, Inv and the misses that
# follow), and so do the TLBs: a first level of 4 ways and the second level looked up
# with AVX2 at once (tlb_walk_vec). Skipped (77) where the host has no AVX2: both runs
# would take the loops.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
grep -qw avx2 /proc/cpuinfo || { echo "SKIP: this host has no AVX2"; exit 77; }
cc -O1 -g -pthread -o simd "$(dirname "$0")/sim_simd.c" || fail "cannot build sim_simd.c"
QS="Ir Dr Dw D1mr D1mw DLmr DLmw HITM Inv DTLBm STLBm"
# the default TLBs (1024 pages: DTLB misses, second-level hits at any of its 12 ways), then
# a second level of 256 entries, 8 ways (misses there; hits in the DTLB now and then,
# which must leave the second level alone)
for tlb in "" "--stlb=256,8"; do
	for v in yes no; do
		"$MEMPROF" record --sim --sim-cores 4 --I1 32768,8,64 --D1 32768,8,64 --LL 2097152,16,64 \
			--sim-tool-opts="--simd=$v $tlb" -e "${QS// /,}" -o $v$tlb.data -- ./simd 60000 \
			>$v.out 2>$v.err || fail "record --sim --simd=$v $tlb: $(cat $v.err)"
		grep -q "^done 60000 " $v.out || fail "--simd=$v $tlb: $(cat $v.out)"
	done
	cmp -s yes.out no.out || fail "the program's output differs: $(cat yes.out) / $(cat no.out)"
	for q in $QS; do
		y=$(perf_sym_period yes$tlb.data $q mix)
		n=$(perf_sym_period no$tlb.data $q mix)
		[ "$y" = "$n" ] || fail "mix $q${tlb:+ ($tlb)}: $y with AVX2, $n without"
	done
done
s=$(perf_sym_period yes--stlb=256,8.data STLBm mix)
check "$s > 10000" "mix with --stlb=256,8: STLBm $s, want page walks"
# the run went where the vector lookup matters: L2 misses, other cores' lines taken
dl=$(perf_sym_period yes.data DLmr mix)
hitm=$(perf_sym_period yes.data HITM mix)
inv=$(perf_sym_period yes.data Inv mix)
check "$dl > 10000 && $hitm > 100 && $inv > 1000" "mix: DLmr $dl, HITM $hitm, Inv $inv"
echo "mix: $(perf_sym_period yes.data Dr mix) loads, $dl L2 read misses, $hitm HITM, $inv invalidations, $(perf_sym_period yes.data DTLBm mix) DTLB misses; $s page walks with a small STLB: equal with and without AVX2"
echo "ok"
