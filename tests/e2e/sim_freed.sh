#!/bin/bash
# Heap blocks freed by one thread and allocated by another (sim_freed.c, waves of threads
# with a block each): with --sim-alloc mpsim holds a freed block back from valgrind's
# allocator until every thread is past the free in virtual time, so the threads of a wave,
# which run side by side there, never get one block, and their loops on their own blocks
# meet no other core: HITM in fill() stays under 1% of its loads (at most a miss per line
# of a block a thread of an earlier wave wrote: 18 threads x 512 lines; 6,151 here).
# Without the hold, valgrind, which runs one thread at a time, gave the block a thread had
# just freed to the next thread of the same wave: 291,173 HITM of 2,211,858 loads.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
cc -O1 -g -pthread -o freed "$(dirname "$0")/sim_freed.c" || fail "cannot build sim_freed.c"
"$MEMPROF" record --sim --sim-alloc --sim-cores 4 -e HITM,Dr -o f.data -- ./freed >f.out 2>f.err ||
	fail "record --sim --sim-alloc: $(cat f.err)"
grep -q "^freed ok " f.out || fail "freed: $(cat f.out)"
h=$(perf_sym_period f.data HITM fill)
r=$(perf_sym_period f.data Dr fill)
echo "fill: HITM $h, loads $r"
[ "$r" -ge 2211840 ] || fail "fill: $r loads, 3 x 18 x 30 x 4096 = 2,211,840 at least"
[ "$h" -lt $((r / 100)) ] || fail "fill: HITM $h, 1% or more of its $r loads: threads of one wave shared a freed block"
