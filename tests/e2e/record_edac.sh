#!/usr/bin/env bash
# memprof record snapshots the EDAC error counts before and after the run, and memprof
# report says how many memory errors happened during the recording. The machines that run
# the tests have no EDAC driver, so in a private mount namespace (root: unshare -m) the
# fixture controllers of tests/data/edac/dimm-layout (3 corrected, 1 uncorrected in all)
# are put at /sys/devices/system/edac, the other entries of /sys/devices/system bound back,
# and the workload itself raises the counts as a driver would: mc0 corrected 3 -> 5, mc1
# uncorrected 1 -> 2. The report must say 2 corrected, 1 uncorrected; a run that changes
# nothing, 0 and 0.
set -euo pipefail
: "${MEMPROF:?}" "${TESTS_DATA:?}"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for a mount namespace"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: unshare -m refused"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp -r "$TESTS_DATA/edac/dimm-layout/sys/devices/system/edac" edac
mc=/sys/devices/system/edac/mc
cat > inside.sh <<EOF
set -e
mkdir orig
mount --bind /sys/devices/system orig
mount -t tmpfs none /sys/devices/system
for d in orig/*/; do
  n=\$(basename "\$d")
  mkdir /sys/devices/system/\$n
  mount --bind "orig/\$n" /sys/devices/system/\$n
done
cp -r edac /sys/devices/system/edac
"$MEMPROF" record -e cpu-clock -o raise.data -- sh -c 'echo 5 > $mc/mc0/ce_count; echo 2 > $mc/mc1/ue_count' \
  >/dev/null
"$MEMPROF" record -e cpu-clock -o same.data -- true >/dev/null
"$MEMPROF" topology > topo.txt
EOF
unshare -m bash inside.sh
! cat /sys/devices/system/edac/mc/mc*/mc_name 2>/dev/null | grep -q 'Sandy Bridge' ||
  { echo "FAIL: the fixture is seen outside the namespace"; exit 1; }
"$MEMPROF" report -i raise.data > raise.txt
"$MEMPROF" report -i same.data > same.txt
grep '^# memory errors' raise.txt same.txt
grep -qx '# memory errors during the recording: 2 corrected, 1 uncorrected' raise.txt ||
  { echo "FAIL: raise.data"; head -12 raise.txt; exit 1; }
grep -qx '# memory errors during the recording: 0 corrected, 0 uncorrected' same.txt ||
  { echo "FAIL: same.data"; head -12 same.txt; exit 1; }
# memprof topology on this (namespaced) machine reads the same controllers, after the raise
grep -Eq '^ +0 +S4ECD4ED +Registered-DDR3 +16384 MB +5 +0$' topo.txt &&
  grep -Eq '^ +1 +S4ECD4ED +Registered-DDR3 +16384 MB +0 +2$' topo.txt ||
  { echo "FAIL: memprof topology's EDAC table"; sed -n '/EDAC/,$p' topo.txt; exit 1; }
echo ok
