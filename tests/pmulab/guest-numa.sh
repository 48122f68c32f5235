#!/bin/sh
# Runs inside the pmulab guest booted with two NUMA nodes and two sockets (run.sh with
# PMULAB_NUMA=1): the numa library against the kernel (numacheck), memprof topology, and
# falseshare -P package. Files go back as guest-tests.sh sends them; check-numa.sh judges.
out=/tmp/out
mkdir -p $out
B=/pmulab/bin
step() {
	name=$1; shift
	"$@" > $out/$name.out 2> $out/$name.err
	echo $? > $out/$name.rc
	echo "PMULAB-STEP $name rc=$(cat $out/$name.rc)"
}
step numacheck numacheck
step topology memprof topology
step topology-json memprof topology --json
step falseshare-package falseshare -T 2 -i 200000 -P package
step falseshare-smt falseshare -T 2 -i 200000 -P smt
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	echo "${c##*/} $(cat $c/topology/physical_package_id) $(cat $c/topology/thread_siblings_list)"
done > $out/sysfs-cpus.txt
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*/} $(cat $n/cpulist) $(cat $n/distance)"
done > $out/sysfs-nodes.txt
for f in $out/*; do
	[ -f "$f" ] || continue
	n=${f##*/}
	echo "PMULAB-FILE $n"
	base64 "$f"
	echo "PMULAB-END $n"
done
