#!/bin/bash
# mpsim loses no thread's accesses: a worker that exits while its accesses still wait for
# a slower thread (in virtual time), and a thread created after it, which valgrind gives
# the exited one's thread id (sim_reuse.c). Each thread is its own record in the tool, so
# wide(), run by the two, counts exactly callgrind's instructions, loads and stores (it
# lost most of the first worker's once: 9,589,364 Ir of 10,436,427). slow() and main too.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
cc -O1 -g -pthread -o reuse "$(dirname "$0")/sim_reuse.c" || fail "cannot build sim_reuse.c"
for engine in mpsim callgrind; do
	"$MEMPROF" record --sim --sim-engine=$engine -e Ir,Dr,Dw -o $engine.data -- ./reuse 40000 \
		>$engine.out 2>$engine.err || fail "record --sim --sim-engine=$engine: $(cat $engine.err)"
	grep -q "done 40000" $engine.out || fail "$engine: $(cat $engine.out)"
done
for sym in wide slow; do
	for q in Ir Dr Dw; do
		m=$(perf_sym_period mpsim.data $q $sym)
		c=$(perf_sym_period callgrind.data $q $sym)
		[ "$m" -gt 0 ] && [ "$m" = "$c" ] || fail "$sym $q: mpsim $m, callgrind $c"
	done
	echo "$sym: $(perf_sym_period mpsim.data Ir $sym) Ir, as callgrind"
done
# wide's loop: 20 loads and 20 stores an iteration, two threads
dr=$(perf_sym_period mpsim.data Dr wide)
[ "$dr" -ge $((2 * 20 * 40000)) ] && [ "$dr" -le $((2 * 20 * 40000 + 16)) ] || fail "wide: Dr $dr"
echo "ok"
