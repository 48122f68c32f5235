#!/bin/sh
# Runs inside the pmulab guest (busybox sh, /pmulab/bin on PATH, cwd /tmp).
# Every step leaves STEP.out, STEP.err and STEP.rc in /tmp/out; recordings go there too.
# At the end every file of /tmp/out is sent over the console as a base64 block
# "PMULAB-FILE NAME" ... "PMULAB-END NAME"; check.sh judges them on the host.
out=/tmp/out
mkdir -p $out
B=/pmulab/bin

step() {
	name=$1; shift
	t0=$(cut -d' ' -f1 /proc/uptime)
	"$@" > $out/$name.out 2> $out/$name.err
	echo $? > $out/$name.rc
	echo "PMULAB-STEP $name rc=$(cat $out/$name.rc) uptime=$t0..$(cut -d' ' -f1 /proc/uptime)"
}

# The workloads, small: TCG runs 10 to 50 times slower than the host.
CB="$B/cachebench -s 64K -r 3000"     # ~3M list steps in walk()
SPIN=2000000                          # pmucheck spin: exactly 5 instructions an iteration

# The guest's PMU as the kernel presents it, and memprof-independent probes of it.
step sysfs ls /sys/bus/event_source/devices /sys/bus/event_source/devices/armv8_pmuv3/events
cat /sys/bus/event_source/devices/armv8_pmuv3/events/* > $out/sysfs-events.txt 2>&1
cat /proc/cpuinfo > $out/cpuinfo.txt
step pmucheck pmucheck 1000000 100000 0
step pmucheck-ins pmucheck 2000000 100000 1
# What opens and what counts: generic 0..9 (type 0), raw codes (type 4), one HW_CACHE (type 3).
{
	for c in 0 1 2 3 4 5 6 7 8 9; do pmucheck count 0 $c; done
	for c in 0x8 0x11 0x3 0x10; do pmucheck count 4 $c; done
	pmucheck count 3 0x10000
} > $out/pmucheck-events.out 2>&1

if [ -x $B/memprof ]; then
	step list memprof list
	step list-pmu memprof list armv8_pmuv3
	# Sampling: generic names, raw codes, sysfs names.
	step rec-generic memprof record -e cycles,instructions -c 100000 -o $out/generic.data $CB
	step rec-raw memprof record -e r11,r08 -c 100000 -o $out/raw.data $CB
	step rec-sysfs memprof record -e armv8_pmuv3/cpu_cycles/,armv8_pmuv3/inst_retired/ -c 100000 -o $out/sysfs.data $CB
	step rec-period memprof record -e cycles:20000 -o $out/period.data $B/pmucheck spin $SPIN
	# Counting: one event alone, in a group, and multiplexed with more events than counters.
	step stat-alone memprof stat --csv -e instructions $B/pmucheck spin $SPIN
	step stat-group memprof stat --csv -e cycles,instructions $B/pmucheck spin $SPIN
	step stat-mux memprof stat --csv -e instructions,instructions,instructions,instructions,instructions,instructions,instructions,instructions,instructions,instructions $B/pmucheck spin $SPIN
	# An article alias with no arm64 equivalent.
	step missing memprof record -e SSE_PRE_MISS -o $out/missing.data $CB
	step missing-stat memprof stat -e L1D_REPL $CB
	ls $out > $out/files.txt
fi

for f in $out/*; do
	[ -f "$f" ] || continue
	n=${f##*/}
	echo "PMULAB-FILE $n"
	base64 "$f"
	echo "PMULAB-END $n"
done
