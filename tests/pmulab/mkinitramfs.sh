#!/bin/bash
# Pack the guest's initramfs: busybox (static arm64), /init, guest-tests.sh and every
# file in $PMULAB_DIR/guest-bin (static aarch64 programs, or dynamic ones with their
# libraries under $PMULAB_DIR/guest-lib, copied to /lib/aarch64-linux-gnu and /lib).
# Usage: mkinitramfs.sh [OUT]   (default $PMULAB_DIR/initrd.gz)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
dir=${PMULAB_DIR:-${PMULAB_BUILD:-$src/build-aarch64}/pmulab}
out=${1:-$dir/initrd.gz}
die() { echo "pmulab mkinitramfs: $*" >&2; exit 1; }
[ -x "$dir/busybox" ] || die "$dir/busybox missing (run setup.sh)"
[ -d "$dir/guest-bin" ] || die "$dir/guest-bin missing (run build.sh)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,proc,sys,dev,tmp,pmulab/bin,lib/aarch64-linux-gnu}
cp "$dir/busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
# PMULAB_GUEST_SCRIPT: what /init runs (default guest-tests.sh; guest-numa.sh for the
# two-node boot)
cp "$here/${PMULAB_GUEST_SCRIPT:-guest-tests.sh}" "$root/pmulab/guest-tests.sh"
cp -a "$dir/guest-bin/." "$root/pmulab/bin/"
if [ -d "$dir/guest-src" ]; then
  mkdir -p "$root/pmulab/src"; cp -a "$dir/guest-src/." "$root/pmulab/src/"
fi
if [ -d "$dir/guest-lib" ]; then
  cp -a "$dir/guest-lib/." "$root/lib/aarch64-linux-gnu/"
  [ -e "$root/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1" ] && \
    ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"
fi
chmod 755 "$root/init" "$root/bin/busybox"
(cd "$root" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) | gzip -1 > "$out"
echo "pmulab mkinitramfs: $out ($(stat -c %s "$out") bytes)"
