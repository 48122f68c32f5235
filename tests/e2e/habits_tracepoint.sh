#!/bin/bash
# Tracepoints (issue 28.12): memprof record -e sched:sched_switch as perf records it (type
# TRACEPOINT, config = tracefs's id, period 1, RAW samples, the tracing data perf script
# decodes them with); memprof list tracepoint lists what perf list tracepoint lists; without a
# readable tracefs the refusal is one line naming the path.
. "$(dirname "$0")/e2e_lib.sh"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
	{ echo "skip: no readable tracefs here"; exit 77; }

"$MEMPROF" record -q -e sched:sched_switch -o m.data -- sleep 0.05 >/dev/null 2>err ||
	{ echo "FAIL memprof record -e sched:sched_switch: $(cat err)"; exit 1; }
"$PERF" evlist -v -i m.data 2>/dev/null >evlist.txt
id=$(cat /sys/kernel/tracing/events/sched/sched_switch/id 2>/dev/null ||
	cat /sys/kernel/debug/tracing/events/sched/sched_switch/id)
grep -q "sched:sched_switch: type: 2, .*config: $(printf "%#x" "$id"), { sample_period, sample_freq }: 1, sample_type: [A-Z|]*PERIOD|RAW" evlist.txt ||
	{ echo "FAIL perf evlist: $(cat evlist.txt)"; fail=1; }
# perf script decodes the payload with the formats memprof wrote
"$PERF" script -i m.data 2>perr >perf.txt || { echo "FAIL perf script: $(cat perr)"; fail=1; }
grep -q 'sched:sched_switch: prev_comm=sleep prev_pid=[0-9]* prev_prio=[0-9]* prev_state=S ==> next_comm=' perf.txt ||
	{ echo "FAIL perf script shows no decoded switch-out of sleep: $(head -3 perf.txt)"; fail=1; }
# memprof script shows the same events (pid, time, name) as perf script
"$MEMPROF" script -i m.data 2>err | awk '/sched:sched_switch:/ { print $2, $3, $5 }' >mp.ev
awk '/sched:sched_switch:/ { print $2 "/" $2, $4, $5 }' perf.txt >perf.ev
[ -s mp.ev ] && cmp -s mp.ev perf.ev ||
	{ echo "FAIL memprof script vs perf script:"; diff mp.ev perf.ev | head; fail=1; }
# perf's pipe format (-o -): the formats in a HEADER_TRACING_DATA record before the samples
"$MEMPROF" record -q -e sched:sched_switch -o - -- sleep 0.05 2>err >p.pipe ||
	{ echo "FAIL memprof record -o -: $(cat err)"; fail=1; }
"$PERF" script -i - <p.pipe 2>&1 | grep -q 'sched:sched_switch: prev_comm=sleep .* ==> next_comm=' ||
	{ echo "FAIL perf script on the pipe: $("$PERF" script -i - <p.pipe 2>&1 | head -2)"; fail=1; }
"$MEMPROF" script -i - <p.pipe 2>&1 | grep -q ' sched:sched_switch: prev_comm=sleep .* ==> next_comm=' ||
	{ echo "FAIL memprof script on the pipe: $("$MEMPROF" script -i - <p.pipe 2>&1 | head -2)"; fail=1; }

# memprof list tracepoint: the events perf list tracepoint names
"$MEMPROF" list tracepoint | awk '{ print $1 }' | sort >mp.list
"$PERF" list tracepoint 2>/dev/null | awk '/Tracepoint event/ { print $1 }' | sort >perf.list
[ "$(wc -l <mp.list)" -gt 10 ] && cmp -s mp.list perf.list ||
	{ echo "FAIL list tracepoint: $(wc -l <mp.list) vs perf's $(wc -l <perf.list)"; diff mp.list perf.list | head -5; fail=1; }
"$MEMPROF" list sched_switch | grep -q '^  sched:sched_switch  *\[Tracepoint event\]' ||
	{ echo "FAIL list sched_switch does not name the tracepoint"; fail=1; }

# no tracefs: one line naming the path, as record and list say it
mkdir -p empty
MEMPROF_SYSFS_ROOT=$T/empty "$MEMPROF" record -e sched:sched_switch -o x.data -- true >/dev/null 2>err
rc=$?
[ $rc != 0 ] && [ "$(wc -l <err)" = 1 ] && grep -qF "$T/empty/kernel/tracing/events" err ||
	{ echo "FAIL refusal without tracefs (rc $rc): $(cat err)"; fail=1; }
"$MEMPROF" record -e sched:no_such_tp -o x.data -- true >/dev/null 2>err
grep -q "no tracepoint 'no_such_tp' in .*/events/sched" err ||
	{ echo "FAIL unknown tracepoint: $(cat err)"; fail=1; }

[ $fail = 0 ] && echo "ok: tracepoints recorded as perf records them, perf script decodes them"
exit $fail
