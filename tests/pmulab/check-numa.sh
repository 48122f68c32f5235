#!/bin/bash
# Judge the two-node guest's results (guest-numa.sh) on the host: the library's checks
# passed, memprof topology shows the guest's two nodes with sysfs's distance matrix, and
# falseshare -P package put its two threads on CPUs of different packages (-P smt on the
# hardware threads of one core).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dir=${PMULAB_NUMA_DIR:-${PMULAB_BUILD:-$src/build-aarch64}/pmulab-numa}
o=$dir/out
fail=0
err() { echo "FAIL $*"; fail=1; }
cat "$o/numacheck.out"
[ "$(cat "$o/numacheck.rc")" = 0 ] || err "numacheck: $(tail -1 "$o/numacheck.out")"
grep -q ' 2 NUMA nodes$' "$o/topology.out" || err "memprof topology does not show 2 NUMA nodes"
# the distance matrix rows against each node's sysfs distance
while read -r node cpus dist; do
  n=${node#node}
  row=$(awk -v n="$n" '/^distances/ { on = 1; next } on && $1 == n { $1 = ""; print; exit }' "$o/topology.out" | xargs)
  [ "$row" = "$dist" ] || err "distances from node $n: memprof '$row', sysfs '$dist'"
  grep -Eq "^ +$n +[0-9]+ MiB +$cpus\$" "$o/topology.out" || err "node $n with CPUs $cpus not shown"
done < "$o/sysfs-nodes.txt"
pkg() { awk -v c="cpu$1" '$1 == c { print $2 }' "$o/sysfs-cpus.txt"; }
for p in package smt; do
  [ "$(cat "$o/falseshare-$p.rc")" = 0 ] || { err "falseshare -P $p failed: $(cat "$o/falseshare-$p.err")"; continue; }
  cpus=$(sed -n 's/^falseshare: cpus=\([^ ]*\) ran_on=\(.*\)$/\2/p' "$o/falseshare-$p.out")
  a=${cpus%,*}; b=${cpus#*,}
  if [ $p = package ]; then
    [ "$(pkg "$a")" != "$(pkg "$b")" ] || err "-P package: CPUs $a and $b are both in package $(pkg "$a")"
  else
    sib=$(awk -v c="cpu$a" '$1 == c { print $3 }' "$o/sysfs-cpus.txt")
    echo ",$sib," | grep -q ",$b," || [ "$sib" = "$a-$b" ] || err "-P smt: CPU $b is not a hardware thread of CPU $a's core ($sib)"
  fi
  echo "falseshare -P $p: threads on CPUs $cpus"
done
cat "$o/topology.out"
[ $fail = 0 ] && echo "pmulab numa: all checks passed"
exit $fail
