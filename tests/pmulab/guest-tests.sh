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
CB="$B/cachebench -s 64K -r 10000"    # ~10M list steps in walk(): the dynamic loader's start-up stays under 10%
SPIN=2000000                          # pmucheck spin: exactly 5 instructions an iteration
MUXSPIN=20000000                      # 1e8 instructions: 25 rotations of the 4 ms mux timer

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

# memprof on the guest's PMU.
step list memprof list
step list-pmu memprof list armv8_pmuv3
# Sampling: generic names, raw codes, sysfs names; cycles and instructions in one group.
step rec-generic memprof record -e cycles,instructions -c 100000 -o $out/generic.data $CB
step rec-raw memprof record -e r11,r08 -c 100000 -o $out/raw.data $CB
step rec-sysfs memprof record -e armv8_pmuv3/cpu_cycles/,armv8_pmuv3/inst_retired/ -c 100000 -o $out/sysfs.data $CB
# libpfm4 names of the detected model (qemu's neoverse-n1 is libpfm4's arm_n1).
step rec-pfm memprof record -e arm_n1::CPU_CYCLES,arm_n1::INST_RETIRED -c 100000 -o $out/pfm.data $CB
# Instructions alone: qemu takes the event counter's overflow late (see docs/pmulab.md).
step rec-inst memprof record -e instructions -c 100000 -o $out/inst.data $CB
# One group, each event on its own period (NAME:COUNT): 4 cycle samples per instruction one.
step rec-periods memprof record -e '{cycles:25000,instructions:100000}' -o $out/periods.data $B/pmucheck spin $SPIN
# Leader sampling: cycles samples, each sample reads instructions too.
step rec-leader memprof record -e '{cycles,instructions}:S' -c 100000 -o $out/leader.data $CB
# System-wide on every CPU.
step rec-all memprof record -a -e cycles -c 100000 -o $out/all.data $CB
# The guest's own memprof report of its recordings (compared with the host's).
for r in generic raw sysfs pfm periods leader; do
	step report-$r memprof report -q -i $out/$r.data --csv
done
# Ratios computed in the guest: IPC at program level (exact counts) and per symbol from
# samples with different overruns (cycles every 25000, instructions every 100000).
step ratios-ipc memprof ratios -i $out/generic.data --csv IPC
step ratios-sym memprof ratios -i $out/periods.data --level symbol --csv IPC
# Ratios from Arm event names (issue 30): libpfm4's arm_n1 names bind the Arm formulas
# (IPC), and the article's L1D_REPL/INST_RETIRED record and give the L1D Miss Rate.
step ratios-pfm memprof ratios -i $out/pfm.data --csv IPC
step rec-article memprof record -e L1D_REPL,INST_RETIRED -c 100000 -o $out/article.data $CB
step ratios-article memprof ratios -i $out/article.data --csv L1D_MISS_RATE
step ratios-cmd memprof ratios --record-cmd
# Counting: one event alone and in a group.
step stat-alone memprof stat --csv -e instructions $B/pmucheck spin $SPIN
step stat-group memprof stat --csv -e cycles,instructions $B/pmucheck spin $SPIN
# Regions (issue 15): instructions per region of a loop of known length, IPC per region.
step stat-regions memprof stat --regions --csv -e instructions:u,cycles:u $B/regionspin $SPIN
step stat-regions-ipc memprof stat --regions -e instructions:u,cycles:u $B/regionspin $SPIN
# Multiplexing: 6 system-wide counters held on every CPU by another program take the
# PMU's 6 event counters; memprof's system-wide group shares them by rotation.
step stat-all memprof stat -a --csv -e cycles,instructions $B/pmucheck spin $MUXSPIN
pmucheck hold 6 600 > $out/hold.out 2>&1 &
hold=$!
sleep 1
step stat-mux memprof stat -a --csv -e cycles,instructions $B/pmucheck spin $MUXSPIN
kill $hold
wait $hold 2>/dev/null
# More events than the PMU has counters, in memprof's one group.
step stat-many memprof stat --csv -e instructions,instructions,instructions,instructions,instructions,instructions,instructions,instructions $B/pmucheck spin $SPIN
# Events libpfm4 knows for arm_n1 that qemu does not implement: they open and count 0.
step stat-zero memprof stat --csv -e arm_n1::L1D_CACHE_REFILL,arm_n1::BR_MIS_PRED,instructions $B/pmucheck spin $SPIN
# Article aliases with no arm64 equivalent, and an event the kernel refuses.
step missing memprof record -e SSE_PRE_MISS -o $out/missing.data $CB
step missing-stat memprof stat -e LOAD_HIT_PRE $CB
# An article alias with an arm_n1 equivalent: L1D_REPL is L1D_CACHE_REFILL there (it opens;
# qemu counts it as 0).
step alias-stat memprof stat --csv -e L1D_REPL,instructions $B/pmucheck spin $SPIN
step refused memprof record -e cache-misses -o $out/refused.data $CB
ls -a $out > $out/files.txt

for f in $out/*; do
	[ -f "$f" ] || continue
	n=${f##*/}
	echo "PMULAB-FILE $n"
	base64 "$f"
	echo "PMULAB-END $n"
done
