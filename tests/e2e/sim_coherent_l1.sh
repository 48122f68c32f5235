#!/bin/bash
# mpsim's coherence where L1d and L2 disagree (sim_coherent_l1.c): a line that core 1's L1d
# still holds after its L2 evicted it (the caches are not inclusive, as callgrind's), then
# written by core 0. The write invalidates core 1's copy (Inv 1 in clobber), and core 1's
# next read of the line misses L1d and finds it Modified in core 0 (D1mr 1 and HITM 1 in
# again). A snoop that looked only behind the L2's presence counts would find no copy
# (Inv 0, and again would hit). And a write to a line its core holds Exclusive while the
# other core holds it too (both read it, share() and look()): Inv 1 in own, then D1mr 1
# and HITM 1 in reread; a write that took Exclusive as the only copy would give Inv 0.
# And a read by core 0 of a line core 1 wrote (mark): D1mr 1 and HITM 1 in peek.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
cc -O1 -g -pthread -o col1 "$(dirname "$0")/sim_coherent_l1.c" || fail "cannot build sim_coherent_l1.c"
"$MEMPROF" record --sim --sim-cores 2 --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 \
	-e D1mr,DLmr,HITM,Inv -o col1.data -- ./col1 >col1.out 2>col1.err ||
	fail "record --sim: $(cat col1.err)"
grep -q "^sum " col1.out || fail "sim_coherent_l1: $(cat col1.out)"
inv=$(perf_sym_period col1.data Inv clobber)
d1=$(perf_sym_period col1.data D1mr again)
hitm=$(perf_sym_period col1.data HITM again)
# keep: X and the 16 others miss L1d and L2 once each (X's rereads hit L1d), and so may
# the load of the pointer buf (a global core 1 has not read yet)
kd1=$(perf_sym_period col1.data D1mr keep)
kdl=$(perf_sym_period col1.data DLmr keep)
oinv=$(perf_sym_period col1.data Inv own)
rd1=$(perf_sym_period col1.data D1mr reread)
rhitm=$(perf_sym_period col1.data HITM reread)
echo "keep: D1mr $kd1, DLmr $kdl; clobber: Inv $inv; again: D1mr $d1, HITM $hitm"
pd1=$(perf_sym_period col1.data D1mr peek)
phitm=$(perf_sym_period col1.data HITM peek)
echo "own: Inv $oinv; reread: D1mr $rd1, HITM $rhitm; peek: D1mr $pd1, HITM $phitm"
check "$kd1 >= 17 && $kd1 <= 18 && $kdl >= 17 && $kdl <= 18" "keep: D1mr $kd1, DLmr $kdl, want 17 (+1)"
[ "$inv" = 1 ] || fail "clobber: Inv $inv, want 1 (core 1's L1d copy invalidated)"
[ "$d1" = 1 ] && [ "$hitm" = 1 ] || fail "again: D1mr $d1, HITM $hitm, want 1 and 1"
[ "$oinv" = 1 ] || fail "own: Inv $oinv, want 1 (the thread's copy of Y invalidated)"
[ "$rd1" = 1 ] && [ "$rhitm" = 1 ] || fail "reread: D1mr $rd1, HITM $rhitm, want 1 and 1"
[ "$pd1" = 1 ] && [ "$phitm" = 1 ] || fail "peek: D1mr $pd1, HITM $phitm, want 1 and 1 (core 1's Modified copy of Z)"
echo ok
