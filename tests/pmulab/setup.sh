#!/bin/bash
# Install what the pmulab step needs (qemu, the aarch64 cross compiler, the arm64
# -dev libraries memprof links against, and Debian's arm64 kernel) and extract the
# kernel image into $PMULAB_DIR (default: build-aarch64/pmulab next to the sources).
# Fails loudly (non-zero, one line naming what is missing) when a package cannot be had.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
out=${PMULAB_DIR:-${PMULAB_BUILD:-$src/build-aarch64}/pmulab}
mkdir -p "$out"

die() { echo "pmulab setup: $*" >&2; exit 1; }

host_pkgs="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio gzip file pkg-config cmake make"
arm_pkgs="libpfm4-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 libzstd-dev:arm64
 libcapstone-dev:arm64 libncurses-dev:arm64 libcmocka-dev:arm64 zlib1g-dev:arm64
 liblzma-dev:arm64 libbz2-dev:arm64 libhwloc-dev:arm64 libnuma-dev:arm64 libiberty-dev:arm64"

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
fi

need=0
for p in $host_pkgs $arm_pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || need=1
done
kimg_existing=$(ls "$out"/vmlinuz 2>/dev/null || true)
[ -x "$out/busybox" ] || kimg_existing=
if [ "$need" = 1 ] || [ -z "$kimg_existing" ]; then
  apt-get update -qq || die "apt-get update failed"
fi
if [ "$need" = 1 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    $host_pkgs $arm_pkgs >/dev/null || die "apt-get install of $host_pkgs $arm_pkgs failed"
fi
for p in $host_pkgs $arm_pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || die "package $p is not installed"
done

if [ -z "$kimg_existing" ]; then
  # The newest linux-image-<ver>-arm64 (unsigned) kernel the archive has.
  kpkg=$(apt-cache search --names-only '^linux-image-[0-9.]+-[0-9]+-arm64$' 2>/dev/null \
         | awk '{print $1}' | sort -V | tail -1)
  [ -n "$kpkg" ] || die "no linux-image-<ver>-arm64 package found by apt-cache"
  tmp=$(mktemp -d); chmod 755 "$tmp"
  (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$kpkg:arm64") || die "apt-get download $kpkg:arm64 failed"
  dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/x" || die "dpkg-deb -x of $kpkg failed"
  vml=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -1)
  [ -n "$vml" ] || die "$kpkg has no boot/vmlinuz-*"
  cp "$vml" "$out/vmlinuz"
  # busybox-static:arm64 is fetched, not installed: installed it would replace the
  # host's /bin/busybox with an arm64 binary.
  (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root busybox-static:arm64) || die "apt-get download busybox-static:arm64 failed"
  dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/bb" || die "dpkg-deb -x of busybox-static failed"
  cp "$tmp/bb/bin/busybox" "$out/busybox" || die "busybox-static:arm64 has no bin/busybox"
  echo "$kpkg" > "$out/kernel-package"
  rm -rf "$tmp"
fi
echo "pmulab setup: kernel $(cat "$out/kernel-package" 2>/dev/null) in $out/vmlinuz"
