#!/usr/bin/env bash
# The kernels place threads and memory through the numa library: falseshare -P, cachebench
# and matmul --node. Checked against this machine's sysfs (a real multi-node, multi-package
# run is in the arm64 lab guest, tests/pmulab).
set -euo pipefail
: "${KERNELS:?}"
sys=/sys/devices/system/cpu
out=$("$KERNELS/falseshare" -T 2 -i 100000 -P core 2>&1) || true
if echo "$out" | grep -q '^falseshare: cpus='; then
  cpus=$(echo "$out" | sed -n 's/^falseshare: cpus=\([^ ]*\) ran_on=\(.*\)$/\1/p')
  ran=$(echo "$out" | sed -n 's/^falseshare: cpus=\([^ ]*\) ran_on=\(.*\)$/\2/p')
  [ "$cpus" = "$ran" ] || { echo "threads ran on $ran, chosen $cpus"; exit 1; }
  a=${cpus%,*}; b=${cpus#*,}
  [ "$(cat $sys/cpu$a/topology/physical_package_id)" = "$(cat $sys/cpu$b/topology/physical_package_id)" ] \
    || { echo "-P core: CPUs $a and $b are in different packages"; exit 1; }
  grep -qw "$b" <(tr ',' '\n' < $sys/cpu$a/topology/thread_siblings_list) \
    && { echo "-P core: CPUs $a and $b are hardware threads of one core"; exit 1; }
else
  echo "$out" | grep -q 'cores in that package' || { echo "$out"; exit 1; }
fi
# as many packages as sysfs counts: asking one more fails and says how many there are
npkg=$(cat $sys/cpu[0-9]*/topology/physical_package_id | sort -u | wc -l)
set +e
out=$("$KERNELS/falseshare" -T $((npkg + 1)) -i 1000 -P package 2>&1); rc=$?
set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "give $npkg packages" || { echo "rc=$rc $out"; exit 1; }
out=$("$KERNELS/falseshare" -T "$npkg" -i 1000 -P package)
cpus=$(echo "$out" | sed -n 's/^falseshare: cpus=\([^ ]*\) .*/\1/p')
[ "$(for c in ${cpus//,/ }; do cat $sys/cpu$c/topology/physical_package_id; done | sort -u | wc -l)" -eq "$npkg" ]
set +e
"$KERNELS/falseshare" -P sideways 2>&1 | grep -q "unknown placement 'sideways'"; [ "${PIPESTATUS[0]}" -eq 2 ] || exit 1
set -e
# memory on a node: every node sysfs lists, and one it does not
for n in $(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//'); do
  "$KERNELS/cachebench" -s 256K -r 2 --node "$n" | grep -qx "cachebench: --node $n: the list (262144 bytes) is on node $n"
  "$KERNELS/matmul" -N 64 -a naive --node "$n" | grep -qx "matmul: --node $n: matrix 1 (32768 bytes) is on node $n"
done
set +e
out=$("$KERNELS/cachebench" --node 4095 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && echo "$out" | grep -q 'this machine has nodes' || { echo "rc=$rc $out"; exit 1; }
echo ok
