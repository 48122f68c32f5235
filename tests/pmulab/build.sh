#!/bin/bash
# Cross-build memprof, the kernels and pmucheck for aarch64 (static) into
# $PMULAB_BUILD (default build-aarch64 next to the sources) and put the programs the
# guest runs into $PMULAB_DIR/guest-bin.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
bld=${PMULAB_BUILD:-$src/build-aarch64}
dir=${PMULAB_DIR:-$bld/pmulab}
die() { echo "pmulab build: $*" >&2; exit 1; }
command -v aarch64-linux-gnu-gcc >/dev/null || die "aarch64-linux-gnu-gcc not found (run setup.sh)"

mkdir -p "$bld"
cmake -S "$src" -B "$bld" -DCMAKE_TOOLCHAIN_FILE="$here/aarch64-toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release >"$bld/pmulab-configure.log" 2>&1 || { tail -30 "$bld/pmulab-configure.log"; die "cmake configure failed (log $bld/pmulab-configure.log)"; }
# Only the programs the guest runs: the unit tests are not cross-built.
make -C "$bld" -j"$(nproc)" memprof cachebench matmul falseshare >"$bld/pmulab-make.log" 2>&1 || { grep -E 'error|Error' "$bld/pmulab-make.log" | head -30; die "cross build failed (log $bld/pmulab-make.log)"; }

mkdir -p "$dir"
rm -rf "$dir/guest-bin"; mkdir -p "$dir/guest-bin"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/guest-bin/pmucheck" "$here/pmucheck.c" || die "pmucheck does not build"
cp "$bld/memprof" "$dir/guest-bin/"
cp "$bld"/kernels/cachebench "$bld"/kernels/matmul "$bld"/kernels/falseshare "$dir/guest-bin/"
for f in "$dir"/guest-bin/*; do
  file -b "$f" | grep -q 'ARM aarch64.*statically linked' || die "$f is not a static aarch64 program: $(file -b "$f")"
done
# The host reads the guest's recordings with --symfs: the objects at their guest paths.
rm -rf "$dir/symfs"; mkdir -p "$dir/symfs/pmulab"
cp -a "$dir/guest-bin" "$dir/symfs/pmulab/bin"
echo "pmulab build: $(ls "$dir/guest-bin" | tr '\n' ' ')in $dir/guest-bin"
