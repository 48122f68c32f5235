#!/bin/bash
# A join that finds its thread already gone orders the joiner after the thread's end in
# virtual time (sim_joined.c): the worker's accesses to the heap block come before main's
# free of it, so every memory sample of the worker on the block names the block (its
# allocation site), none is "[not allocated]". Without it main's free came at its own
# older time (1,176,825 against the worker's accesses up to 1,640,000) and 1,904 of the
# worker's 2,062 samples fell after it; so did falseshare's counters in
# report_html_data's c2c part when valgrind ran both workers to their end before main's
# joins (then the line's object was "[unknown]").
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
export MEMPROF_VGTOOL
cc -O2 -g -pthread -o joined "$(dirname "$0")/sim_joined.c" || fail "cannot build sim_joined.c"
# a regular file of 2 MB or more: each read takes a while
big=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* /usr/lib/*/*.so* 2>/dev/null | head -1)
[ -n "$big" ] || big=$MEMPROF
"$MEMPROF" c2c record --sim --sim-alloc -c 97 -o j.data -- ./joined "$big" >j.out 2>j.err ||
	fail "c2c record --sim --sim-alloc: $(cat j.err)"
buf=$(sed -n 's/^joined buf=0x\([0-9a-f]*\) count=100000$/\1/p' j.out)
[ -n "$buf" ] || fail "joined: $(cat j.out)"
"$MEMPROF" script -i j.data -F tid,event,addr,alloc >j.txt 2>j.err || fail "script: $(cat j.err)"
pid=$(awk 'NR == 1 { print $1 }' j.txt)
awk -v a="$buf" -v p="$pid" '$1 != p && $2 ~ /mem-/ && $3 == a' j.txt >w.txt
n=$(wc -l <w.txt)
[ "$n" -ge 1000 ] || fail "the worker's samples on the block: $n"
bad=$(grep -c 'not allocated' w.txt)
[ "$bad" = 0 ] || fail "$bad of the worker's $n samples on the block after its free: $(grep -m3 'not allocated' w.txt)"
grep -q "main sim_joined.c:[0-9]* +0x0 (64 bytes)" w.txt || fail "the block's site: $(head -3 w.txt)"
echo "ok: $n samples of the worker on the block, all named"
