#!/bin/bash
# Off-CPU time (issue 28.12): memprof report --off-cpu on a recording of
# -e sched:sched_switch -g of a program that blocks in known places (habits_offcpu.c):
# sleeper's 20 nanosleeps of 10 ms (200 ms), reader's 5 pipe reads (100 ms), the writer
# thread's 5 nanosleeps of 20 ms (100 ms), each under its own blocking stack, within a
# tolerance (the time to be switched in again after the wake-up counts: a loaded machine
# adds to it, hence the upper bounds); the totals equal what perf script's switch records and sched_switch fields
# give (perf as referee: the same rule applied by awk, to the nanosecond); --folded weighs
# the stacks in nanoseconds; report's filters (--tid, --pid, --comm) keep the intervals of the
# threads they name, to the nanosecond of the referee's count for that thread; perf's own
# file (perf record --switch-events) works too.
. "$(dirname "$0")/e2e_lib.sh"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
	{ echo "skip: no readable tracefs here"; exit 77; }
cc -O1 -g -fno-omit-frame-pointer -pthread -o offcpu "$E2E/habits_offcpu.c" ||
	{ echo "skip: no C compiler"; exit 77; }

"$MEMPROF" record -q -g -e sched:sched_switch -o m.data ./offcpu >/dev/null 2>err ||
	{ echo "FAIL memprof record: $(cat err)"; exit 1; }
"$MEMPROF" report -i m.data --off-cpu >rep.txt 2>err || { echo "FAIL report --off-cpu: $(cat err)"; exit 1; }

# STACK_RE MIN_MS MAX_MS SWITCHES: the stack row's time and switch-outs (a loaded machine may
# also preempt the thread on its way out of the call, under the same stack: the Threads
# table's Preempted column; seen once in 12 concurrent runs, 6 switches for the writer's 5)
stack() {
	awk -v re="$1" -v lo="$2" -v hi="$3" -v n="$4" '
		/^# Stacks/ { s = 1 } s && $0 ~ re { found++; ms = $2; sw = $3 }
		END { ok = found == 1 && ms >= lo && ms <= hi && (n == "" || (sw >= n && sw <= n + 2))
		      if (!ok) printf "FAIL stack /%s/: %d rows, %s ms (want %s..%s), %s switches (want %s, or up to 2 more)\n",
				       re, found, ms, lo, hi, sw, n
		      exit !ok }' rep.txt || fail=1
}
stack 'do_nanosleep <- .* <- sleeper <- main' 195 600 20
stack '(anon_)?pipe_read <- vfs_read <- .* <- reader <- main' 95 400 ''
stack 'do_nanosleep <- .* <- writer <- start_thread' 95 400 5
[ $fail = 0 ] || cat rep.txt

# the referee: perf script's switch records and sched_switch fields, the same rule
"$PERF" script -i m.data --ns --show-switch-events -F tid,time,event,trace 2>/dev/null | awk '
{ tid = $1; t = $2; sub(":", "", t); split(t, p, "."); ns = p[1] * 1000000000 + p[2] }
function end_(x) { if (x in start) { tot[x] += ns - start[x]; all += ns - start[x]; delete start[x] } }
/PERF_RECORD_SWITCH IN/ { end_(tid); next }
/PERF_RECORD_SWITCH/ { next }
{ end_(tid) }
/sched:sched_switch:/ {
	if (match($0, /next_pid=[0-9]+/)) end_(substr($0, RSTART + 9, RLENGTH - 9))
	if (match($0, /prev_pid=[0-9]+/) && substr($0, RSTART + 9, RLENGTH - 9) == tid) start[tid] = ns
}
END { print all; for (x in tot) { printf "%.3f/%s\n", tot[x] / 1e6, x; printf "%d %s\n", tot[x], x >"perf.ns" } }' >perf.tot
awk '/^# Threads/ { s = 1 } /^# Stacks/ { s = 0 } s && /^ / { n = split($NF, c, "/"); printf "%s/%s\n", $2, c[n] }' rep.txt | sort >mp.threads
sed 1d perf.tot | sort >perf.threads
"$MEMPROF" report -i m.data --off-cpu --folded >folded.txt 2>err
awk '{ s += $NF } END { print s }' folded.txt >mp.tot
[ -s mp.threads ] && cmp -s mp.threads perf.threads && [ "$(cat mp.tot)" = "$(head -1 perf.tot)" ] ||
	{ echo "FAIL vs perf script: threads $(cat mp.threads | tr '\n' ' ') vs $(cat perf.threads | tr '\n' ' '), folded total $(cat mp.tot) ns vs $(head -1 perf.tot)"; fail=1; }
grep -q '^offcpu;.*;main;sleeper;clock_nanosleep[^;]*;.*;do_nanosleep;schedule;__schedule [0-9]*$' folded.txt ||
	{ echo "FAIL --folded: $(head -3 folded.txt)"; fail=1; }
pct=$(awk '/^# Stacks/ { s = 1 } s && /^ / { sub("%", "", $1); p += $1 } END { printf "%.0f", p }' rep.txt)
[ "$pct" = 100 ] || { echo "FAIL the stacks' percentages sum to $pct"; fail=1; }

# report's filters: --tid of the writer thread keeps exactly its intervals (its row and
# nanoseconds as the referee counts them, its stacks: none of sleeper's or reader's; it may
# also be preempted once where it starts); --pid of the process keeps all;
# --comm of another command keeps none
wtid=$("$PERF" script -i m.data -F pid,tid 2>/dev/null | tr -d ' ' | awk -F/ '$1 != $2 { print $2; exit }')
"$MEMPROF" report -i m.data --off-cpu --tid "$wtid" >tid.txt 2>err || { echo "FAIL --tid $wtid: $(cat err)"; fail=1; }
awk '/^# Threads/ { s = 1 } /^# Stacks/ { s = 0 } s && /^ / { n = split($NF, c, "/"); printf "%s/%s\n", $2, c[n] }' tid.txt >mp.tid
"$MEMPROF" report -i m.data --off-cpu --folded --tid "$wtid" | awk '{ s += $NF } END { print s + 0 }' >mp.tidns
[ -n "$wtid" ] && [ "$(cat mp.tid)" = "$(grep "/$wtid\$" perf.threads)" ] &&
	[ "$(cat mp.tidns)" = "$(awk -v t="$wtid" '$2 == t { print $1 }' perf.ns)" ] &&
	awk '/^# Stacks/ { s = 1 } s && /^ /' tid.txt >tid.stacks &&
	grep -q 'do_nanosleep <- .* <- writer <- start_thread' tid.stacks && ! grep -q ' <- \(sleeper\|reader\) <- ' tid.stacks ||
	{ echo "FAIL --tid $wtid: $(cat mp.tid) $(cat mp.tidns) ns vs perf script's $(grep "/$wtid\$" perf.threads) $(grep " $wtid\$" perf.ns)"; cat tid.txt; fail=1; }
mpid=$("$PERF" script -i m.data -F pid 2>/dev/null | awk '{ print $1; exit }')
"$MEMPROF" report -i m.data --off-cpu --pid "$mpid" |
	awk '/^# Threads/ { s = 1 } /^# Stacks/ { s = 0 } s && /^ / { n = split($NF, c, "/"); printf "%s/%s\n", $2, c[n] }' |
	sort >mp.pid
cmp -s mp.pid perf.threads || { echo "FAIL --pid $mpid: $(cat mp.pid | tr '\n' ' ') vs $(cat perf.threads | tr '\n' ' ')"; fail=1; }
"$MEMPROF" report -i m.data --off-cpu --folded --comm no-such-command >none.txt
[ ! -s none.txt ] || { echo "FAIL --comm no-such-command keeps: $(head -2 none.txt)"; fail=1; }

# perf's file: sched_switch with --switch-events
"$PERF" record -q -g -e sched:sched_switch --switch-events -o p.data ./offcpu >/dev/null 2>&1
"$MEMPROF" report -i p.data --off-cpu >rep.txt 2>err || { echo "FAIL report --off-cpu on perf's file: $(cat err)"; fail=1; }
stack 'do_nanosleep <- .* <- sleeper <- main' 195 600 20

# a recording without sched_switch: one line naming the file and what to record
"$MEMPROF" record -q -e cpu-clock -o c.data true >/dev/null 2>&1
"$MEMPROF" report -i c.data --off-cpu >out 2>err
rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q 'c.data: --off-cpu: the recording has no sched:sched_switch samples (record them with call chains: memprof record -e sched:sched_switch -g CMD)' err ||
	{ echo "FAIL without sched_switch (rc $rc): $(cat err)"; fail=1; }

[ $fail = 0 ] && echo "ok: off-CPU time per blocking stack, as perf script's records give it"
exit $fail
