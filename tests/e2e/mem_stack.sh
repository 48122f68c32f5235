#!/bin/bash
# Data addresses on threads' stacks (issue 25): record -e page-faults -c 1 -d of stacktouch,
# whose main thread and two threads each fault in 16 pages of a local array: report
# --mem-mode --sort symbol_daddr names each thread's stack "[.] [stack] stacktouch/TID"
# (the main thread's the [stack] mapping, the others the anonymous mappings glibc made
# for them), with at least the 16 faults of its thread there; every fault on a stack is
# named after that stack's thread (--sort symbol_daddr,tid: the faults of a thread on its
# own stack); script -F stays perf's (threads' stacks are //anon there).
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
need_perf
gcc -O2 -g -pthread -o stacktouch "$D/../standins/stacktouch.c" || fail "cannot build stacktouch"
"$MEMPROF" record -q -e page-faults -c 1 -d -o s.data -- ./stacktouch >out.txt 2>rec.err ||
	fail "record: $(cat rec.err)"
tids=$(awk '$1 == "main" || $1 == "thread" { print $2 }' out.txt)
[ "$(echo $tids | wc -w)" = 3 ] || fail "stacktouch printed: $(cat out.txt)"
"$MEMPROF" report -i s.data -k /dev/null --mem-mode --sort symbol_daddr,tid --csv >st.csv ||
	fail "report --mem-mode"
for t in $tids; do
	own=$(awk -F, -v n="[.] [stack] stacktouch/$t" -v t="$t" '$4 == n && $5 == t { print $2 }' st.csv)
	[ -n "$own" ] && [ "$own" -ge 16 ] && [ "$own" -le 24 ] ||
		fail "thread $t: '$own' faults on its own stack, want 16 to 24: $(grep stack st.csv)"
done
# every [stack] row names one of the three threads
bad=$(awk -F, '$4 ~ /\[stack\]/ { split($4, a, "/"); print a[2] }' st.csv | sort -u | grep -vxF "$(echo "$tids" | tr ' ' '\n')")
[ -z "$bad" ] || fail "stacks of unknown threads: $bad"
# the dso of a thread's stack is [stack] too
"$MEMPROF" report -i s.data -k /dev/null --mem-mode --sort symbol_daddr,dso_daddr --csv >dso.csv
awk -F, '$4 ~ /^\[\.\] \[stack\]/ && $5 != "[stack]" { exit 1 }' dso.csv || fail "stack dso: $(grep stack dso.csv)"
# perf's view in script: equal to perf script
"$PERF" script -i s.data -F tid,addr,sym >p.out 2>/dev/null
"$MEMPROF" script -i s.data -F tid,addr,sym >m.out 2>&1
cmp -s p.out m.out || fail "script -F tid,addr,sym differs from perf's: $(diff p.out m.out | head -5)"
echo ok
