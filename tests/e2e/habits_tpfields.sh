#!/bin/bash
# Tracepoint fields (issue 28.12): memprof script prints a tracepoint's payload as perf
# script does, from the recording's tracing data (HEADER_TRACING_DATA): sched_switch's
# "prev_comm=... prev_state=S ==> next_comm=...", sched_wakeup's, a syscall's enter and
# exit ("fd: 0x00000003, ..." / "0x340"), on memprof's file, perf's file and memprof's pipe
# format, -F ...,trace field for field against perf script -F; the default line ends with
# them. Damaged tracing data: one warning line naming the file and the fault, samples still
# printed. record -c N on a tracepoint: one sample every N hits, as perf record -c N.
. "$(dirname "$0")/e2e_lib.sh"
[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
	{ echo "skip: no readable tracefs here"; exit 77; }

EVS=sched:sched_switch,sched:sched_wakeup,syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_clock_nanosleep,sched:sched_process_exec
W="sh -c 'sleep 0.01; cat /etc/hostname >/dev/null; sleep 0.01'"
F=comm,tid,cpu,time,event,trace
eval "\"\$MEMPROF\" record -q -g -e $EVS -o m.data -- $W" >/dev/null 2>err ||
	{ echo "FAIL memprof record: $(cat err)"; exit 1; }
eval "\"\$PERF\" record -q -g -e ${EVS//,/ -e } -o p.data -- $W" >/dev/null 2>err ||
	{ echo "FAIL perf record: $(cat err)"; exit 1; }

# field for field: both tools on both files
for f in m.data p.data; do
	"$MEMPROF" script -i $f -F $F >mp.txt 2>err || { echo "FAIL memprof script -F on $f: $(cat err)"; fail=1; }
	"$PERF" script -i $f -F $F >perf.txt 2>/dev/null
	for e in sched_switch sched_wakeup sys_enter_read sys_exit_read sys_enter_clock_nanosleep sched_process_exec; do
		grep -q ":$e: " perf.txt || { echo "FAIL $f: perf script shows no $e"; fail=1; }
	done
	grep -q 'sched:sched_switch: prev_comm=[^ ]* prev_pid=[0-9]* prev_prio=[0-9]* prev_state=[SD] ==> next_comm=' mp.txt &&
		grep -q 'syscalls:sys_enter_read: fd: 0x0000000[0-9], buf: 0x[0-9a-f]*, count: 0x[0-9a-f]*$' mp.txt &&
		grep -q 'sched:sched_process_exec: filename=/usr/bin/cat pid=' mp.txt ||
		{ echo "FAIL $f: memprof script -F $F: $(grep -m3 sched mp.txt)"; fail=1; }
	cmp -s mp.txt perf.txt ||
		{ echo "FAIL $f: memprof script -F $F differs from perf's:"; diff mp.txt perf.txt | head -6; fail=1; }
done

# the default layout: the fields after the event name, the chain below
"$MEMPROF" script -i m.data 2>err >def.txt
grep -q '^sleep [0-9]*/[0-9]* [0-9.]*: 1 sched:sched_switch: prev_comm=sleep prev_pid=[0-9]* prev_prio=[0-9]* prev_state=S ==> next_comm=' def.txt ||
	{ echo "FAIL default layout: $(grep -m2 sched_switch def.txt)"; fail=1; }
# the pipe format carries the tracing data in a record
"$MEMPROF" record -q -e sched:sched_switch -o - -- sleep 0.01 2>err >p.pipe
"$MEMPROF" script -i - <p.pipe -F $F 2>err >mpp.txt
"$PERF" script -i - <p.pipe -F $F 2>/dev/null >perfp.txt
grep -q 'prev_comm=sleep .*prev_state=S ==> ' mpp.txt && cmp -s mpp.txt perfp.txt ||
	{ echo "FAIL pipe: $(cat err) $(diff mpp.txt perfp.txt | head -4)"; fail=1; }

# damaged tracing data: the event format's "ID:" line spoiled
python3 - m.data bad.data <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'\x17\x08\x44tracing')
j = d.find(b'\nID: ', i)
assert i > 0 and j > i
d[j + 1:j + 3] = b'XX'
open(sys.argv[2], 'wb').write(d)
EOF
"$MEMPROF" script -i bad.data -F $F >bad.txt 2>err
rc=$?
[ $rc = 0 ] && [ "$(wc -l <err)" = 1 ] && grep -q "bad.data: tracing data: event format of [a-z]*:[a-z_]*: no 'ID:' line at byte [0-9]* of [0-9]*; tracepoint fields not shown" err &&
	[ "$(wc -l <bad.txt)" = "$("$PERF" script -i m.data -F $F 2>/dev/null | wc -l)" ] ||
	{ echo "FAIL damaged tracing data (rc $rc): $(cat err)"; fail=1; }
# a format's length past the end of the section
python3 - m.data long.data <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
j = d.find(b'name: ', d.find(b'\x17\x08\x44tracing'))
d[j - 8:j] = (1 << 40).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
EOF
"$MEMPROF" script -i long.data -F $F >/dev/null 2>err
[ "$(wc -l <err)" = 1 ] && grep -q "long.data: tracing data: truncated event format at byte [0-9]* of [0-9]*; tracepoint fields not shown" err ||
	{ echo "FAIL a format's length past the end: $(head -3 err)"; fail=1; }

# -c N: every Nth hit; the program calls getppid 3000 times on one CPU
cat >gp.c <<'EOF'
#include <unistd.h>
#include <sys/syscall.h>
int main(void) { for (int i = 0; i < 3000; i++) syscall(SYS_getppid); return 0; }
EOF
cc -O2 -o gp gp.c || { echo "skip -c: no C compiler"; exit $fail; }
taskset -c 0 "$MEMPROF" record -q -c 7 -e syscalls:sys_enter_getppid -o c.data -- ./gp >/dev/null 2>err ||
	{ echo "FAIL memprof record -c 7: $(cat err)"; fail=1; }
"$PERF" script -i c.data -F event,period 2>/dev/null | awk '/getppid/ { n++; s += $1; if ($1 != 7) bad++ }
	END { print n + 0, s + 0, bad + 0 }' >perf.c
n=$("$MEMPROF" script -i c.data 2>/dev/null | grep -c ' 7 syscalls:sys_enter_getppid: $')
# 3000 hits: 428 samples of period 7 (perf's record -c 7 takes every hit, of period 1)
[ "$(cat perf.c)" = "428 2996 0" ] && [ "$n" = 428 ] ||
	{ echo "FAIL -c 7: samples, periods, wrong periods in perf script: $(cat perf.c); memprof script: $n"; fail=1; }

[ $fail = 0 ] && echo "ok: tracepoint fields as perf script prints them; -c N on tracepoints"
exit $fail
