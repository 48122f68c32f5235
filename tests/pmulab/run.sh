#!/bin/bash
# Boot the pmulab guest under qemu-system-aarch64 (TCG, -cpu neoverse-n1 or $PMULAB_CPU,
# PMUv3, -icount shift=0),
# save the serial console to $PMULAB_DIR/console.log and unpack the files the guest sent
# back (blocks "PMULAB-FILE <name>" ... "PMULAB-END <name>" of base64) into $PMULAB_DIR/out.
# Usage: run.sh [SMP]   (default 1). Environment: PMULAB_TIMEOUT seconds (default 420);
# PMULAB_NUMA=1 boots two NUMA nodes of 512 MiB and two sockets of one core with two
# hardware threads each (CPUs 0-1 on node 0, 2-3 on node 1), SMP ignored.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dir=${PMULAB_DIR:-${PMULAB_BUILD:-$src/build-aarch64}/pmulab}
smp=${1:-1}
die() { echo "pmulab run: $*" >&2; exit 1; }
[ -f "$dir/vmlinuz" ] || die "$dir/vmlinuz missing (run setup.sh)"
[ -f "$dir/initrd.gz" ] || die "$dir/initrd.gz missing (run mkinitramfs.sh)"
command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 not found (run setup.sh)"

log=$dir/console.log
t0=$(date +%s.%N)
rc=0
topo=(-smp "$smp")
if [ "${PMULAB_NUMA:-0}" = 1 ]; then
  topo=(-smp 4,sockets=2,cores=1,threads=2
        -object memory-backend-ram,id=m0,size=512M -object memory-backend-ram,id=m1,size=512M
        -numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1)
fi
timeout --foreground -k 5 "${PMULAB_TIMEOUT:-420}" qemu-system-aarch64 \
  -M virt -cpu ${PMULAB_CPU:-neoverse-n1} "${topo[@]}" -m 1024 -icount shift=0 -nographic -no-reboot -nic none \
  -kernel "$dir/vmlinuz" -initrd "$dir/initrd.gz" \
  -append "console=ttyAMA0 rdinit=/init quiet loglevel=1" \
  </dev/null > "$log" 2>&1 || rc=$?
t1=$(date +%s.%N)
tr -d '\r' < "$log" > "$log.tmp" && mv "$log.tmp" "$log"
awk -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { printf "pmulab run: qemu exit %d after %.1f s wall\n", rc, b - a }'
[ "$rc" = 0 ] || die "qemu failed or timed out (exit $rc); console in $log"
grep -q '^PMULAB-GUEST-DONE' "$log" || die "the guest did not finish its tests; console in $log"

rm -rf "$dir/out"; mkdir -p "$dir/out"
awk -v out="$dir/out" '
  /^PMULAB-FILE / { name = $2; file = out "/" name ".b64"; printf "" > file; next }
  /^PMULAB-END /  { close(file); name = ""; next }
  name != ""      { print >> file }
' "$log"
for f in "$dir"/out/*.b64; do
  [ -e "$f" ] || continue
  base64 -d "$f" > "${f%.b64}" || die "bad base64 block for $(basename "${f%.b64}")"
  rm -f "$f"
done
sed -n 's/^PMULAB-GUEST-START uptime=/guest uptime at init: /p; s/^PMULAB-GUEST-DONE rc=[0-9]* uptime=/guest uptime at end: /p' "$log"
echo "pmulab run: $(ls "$dir/out" | wc -l) files brought back into $dir/out"
