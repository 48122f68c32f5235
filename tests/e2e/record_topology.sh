#!/usr/bin/env bash
# memprof record writes perf's topology header features (CPU_TOPOLOGY with its dies,
# NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY) and the EDAC counts around the run;
# perf report --header-only -I reads them back the same as from perf's own recording here;
# memprof report --sort cpu,socket on a two-thread falseshare recording pinned by -P puts
# the samples on the CPUs falseshare chose, with perf report's own shares.
set -euo pipefail
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
command -v "$PERF" >/dev/null || { echo "no perf"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

place=core
"$KERNELS/falseshare" -T 2 -i 1000 -P core >/dev/null 2>&1 || place=any
"$MEMPROF" record -e cpu-clock -o fs.data -- "$KERNELS/falseshare" -T 2 -P $place -i 100000000 \
  > rec.txt 2> rec.err || { cat rec.txt rec.err; exit 1; }
cpus=$(sed -n 's/^falseshare: cpus=\([^ ]*\) ran_on=\(.*\)$/\2/p' rec.txt)
[ -n "$cpus" ] || { cat rec.txt; exit 1; }

# 1. the features, as perf reads them, against perf's own recording on this machine
"$PERF" report -i fs.data --header-only > hdr.txt 2>&1
for f in CPU_TOPOLOGY NUMA_TOPOLOGY CACHE; do
  grep -q "# $f info available" hdr.txt || { echo "perf does not see $f"; cat hdr.txt; exit 1; }
done
"$PERF" record -q -e cpu-clock -o perf.data -- true >/dev/null 2>&1 || { echo "perf record refused"; exit 77; }
topo() {
  "$PERF" report -i "$1" --header-only -I 2>/dev/null |
    grep -E '^# (sibling sockets|sibling dies|sibling threads|CPU [0-9]+: Core ID|node[0-9]+ cpu list|memory nodes)|^# +[0-9]+ \[[0-9.]+[KMGT]?\]: '
}
topo fs.data > mine.txt
topo perf.data > perfs.txt
[ -s perfs.txt ] || { echo "perf wrote no topology here"; exit 77; }
diff perfs.txt mine.txt || { echo "topology differs from perf's own recording"; exit 1; }
# the caches perf finds in sysfs (none on a VM without /sys/devices/system/cpu/cpu0/cache)
if [ -d /sys/devices/system/cpu/cpu0/cache ]; then
  "$PERF" report -i perf.data --header-only -I 2>/dev/null | grep -E '^#  L[0-9]' > pc.txt || true
  "$PERF" report -i fs.data --header-only -I 2>/dev/null | grep -E '^#  L[0-9]' > mc.txt || true
  diff <(sort pc.txt) <(sort mc.txt) || { echo "caches differ from perf's"; exit 1; }
fi

# 2. memprof report's header: topology and memory errors
"$MEMPROF" report -i fs.data > rep.txt
grep -q "^# topology: $(grep -c ^processor /proc/cpuinfo) CPUs" rep.txt || { cat rep.txt; exit 1; }
if [ -d /sys/devices/system/edac/mc ]; then
  grep -Eq '^# memory errors during the recording: [0-9]+ corrected, [0-9]+ uncorrected$' rep.txt
else
  grep -qx '# memory errors during the recording: unknown, EDAC absent: no /sys/devices/system/edac/mc (no EDAC driver loaded)' rep.txt
fi

# 3. --sort cpu: the samples are on the CPUs the threads ran on, with perf's shares
"$MEMPROF" report -i fs.data --sort cpu > bycpu.txt
cat bycpu.txt
awk '/^ +[0-9]+ +[0-9.]+% +[0-9]+$/ { sub("%", "", $2); printf "%d %.2f\n", $3, $2 }' bycpu.txt | sort > m.txt
[ -s m.txt ] || { echo "no CPU rows"; exit 1; }
"$PERF" report -i fs.data --sort cpu --stdio 2>/dev/null |
  awk '/^ +[0-9.]+%/ { sub("%", "", $1); printf "%d %.2f\n", $2, $1 }' | sort > p.txt
diff p.txt m.txt || { echo "memprof and perf disagree on the CPUs"; exit 1; }
if [ $place = core ]; then
  for c in ${cpus//,/ }; do
    grep -q "^$c " m.txt || { echo "no samples on CPU $c, where a thread ran"; exit 1; }
  done
  share=$(awk -v l=",$cpus," 'index(l, "," $1 ",") { s += $2 } END { print s }' m.txt)
  awk -v s="$share" 'BEGIN { exit !(s >= 95) }' || { echo "only $share% on CPUs $cpus"; exit 1; }
fi
"$MEMPROF" report -i fs.data --sort cpu,socket,node > bytopo.txt
cat bytopo.txt
# the same CPUs and shares with their socket and node (from the recorded topology)
awk '/^ +[0-9.]+%/ { sub("%", "", $1); printf "%d %.2f\n", $3, $1 }' bytopo.txt | sort > mt.txt
diff m.txt mt.txt || { echo "--sort cpu,socket,node disagrees with --sort cpu"; exit 1; }
"$MEMPROF" report -i fs.data --sort socket | awk '/^ +[0-9.]+%/ { sub("%", "", $1); printf "%d %.2f\n", $3, $1 }' | sort > ms.txt
"$PERF" report -i fs.data --sort socket --stdio 2>/dev/null |
  awk '/^ +[0-9.]+%/ { sub("%", "", $1); printf "%d %.2f\n", $2, $1 }' | sort > ps.txt
diff ps.txt ms.txt || { echo "memprof and perf disagree on the sockets"; exit 1; }
grep -q '  Node$' bytopo.txt
set +e
"$MEMPROF" report -i fs.data --sort socket,sym 2> err.txt; rc=$?
set -e
[ $rc -eq 2 ] && grep -q 'socket and node group only with cpu and each other' err.txt
echo ok
