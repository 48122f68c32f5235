#!/bin/bash
# Cross-build memprof, the kernels, pmucheck (static) and numacheck for aarch64 into
# $PMULAB_BUILD (default build-aarch64 next to the sources) and put the programs the
# guest runs into $PMULAB_DIR/guest-bin, the loader and the shared libraries they need
# (hwloc has no static build: see aarch64-toolchain.cmake) into $PMULAB_DIR/guest-lib.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
bld=${PMULAB_BUILD:-$src/build-aarch64}
dir=${PMULAB_DIR:-$bld/pmulab}
die() { echo "pmulab build: $*" >&2; exit 1; }
command -v aarch64-linux-gnu-gcc >/dev/null || die "aarch64-linux-gnu-gcc not found (run setup.sh)"

mkdir -p "$bld"
cmake -S "$src" -B "$bld" -DCMAKE_TOOLCHAIN_FILE="$here/aarch64-toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DMEMPROF_STATIC=OFF >"$bld/pmulab-configure.log" 2>&1 || { tail -30 "$bld/pmulab-configure.log"; die "cmake configure failed (log $bld/pmulab-configure.log)"; }
# Only the programs the guest runs: the unit tests are not cross-built.
make -C "$bld" -j"$(nproc)" memprof cachebench matmul falseshare mp_numa >"$bld/pmulab-make.log" 2>&1 || { grep -E 'error|Error' "$bld/pmulab-make.log" | head -30; die "cross build failed (log $bld/pmulab-make.log)"; }

mkdir -p "$dir"
rm -rf "$dir/guest-bin"; mkdir -p "$dir/guest-bin"
aarch64-linux-gnu-gcc -O2 -static -Wall -Wextra -Werror -o "$dir/guest-bin/pmucheck" "$here/pmucheck.c" || die "pmucheck does not build"
aarch64-linux-gnu-gcc -O2 -static -D_GNU_SOURCE -Wall -Wextra -Werror -I"$src/marker/include" -o "$dir/guest-bin/regionspin" \
  "$here/regionspin.c" "$src/marker/marker.c" -pthread || die "regionspin does not build"
cp "$bld/memprof" "$dir/guest-bin/"
cp "$bld"/kernels/cachebench "$bld"/kernels/matmul "$bld"/kernels/falseshare "$dir/guest-bin/"
aarch64-linux-gnu-gcc -O2 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$src/numa/include" \
  -o "$dir/guest-bin/numacheck" "$here/numacheck.c" "$bld/numa/libmemprof-numa.a" -lhwloc -lnuma \
  || die "numacheck does not build"
for f in "$dir"/guest-bin/*; do
  file -b "$f" | grep -q 'ARM aarch64' || die "$f is not an aarch64 program: $(file -b "$f")"
done
# The libraries the dynamic programs need, found as the cross linker found them, and the
# loader: mkinitramfs.sh puts them under /lib/aarch64-linux-gnu.
rm -rf "$dir/guest-lib"; mkdir -p "$dir/guest-lib"
libdirs="/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
need() { aarch64-linux-gnu-readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# and those memprof loads when first needed (libpfm4, capstone: dlopen-libs.txt of the build)
todo=$({ for f in "$dir"/guest-bin/*; do need "$f"; done; cat "$bld/dlopen-libs.txt" 2>/dev/null; } | sort -u)
while [ -n "$todo" ]; do
  next=""
  for l in $todo; do
    [ -e "$dir/guest-lib/$l" ] && continue
    p=""
    for d in $libdirs; do [ -e "$d/$l" ] && { p="$d/$l"; break; }; done
    [ -n "$p" ] || die "library $l (needed by the guest programs) not found in $libdirs"
    cp -L "$p" "$dir/guest-lib/$l"
    next="$next $(need "$p")"
  done
  todo=$(echo "$next" | tr ' ' '\n' | sort -u | grep -v '^$' || true)
done
for d in $libdirs; do
  [ -e "$d/ld-linux-aarch64.so.1" ] && { cp -L "$d/ld-linux-aarch64.so.1" "$dir/guest-lib/"; break; }
done
[ -e "$dir/guest-lib/ld-linux-aarch64.so.1" ] || die "no ld-linux-aarch64.so.1 in $libdirs"
# The host reads the guest's recordings with --symfs: the objects at their guest paths.
rm -rf "$dir/symfs"; mkdir -p "$dir/symfs/pmulab"
cp -a "$dir/guest-bin" "$dir/symfs/pmulab/bin"
mkdir -p "$dir/symfs/lib/aarch64-linux-gnu"
cp -a "$dir/guest-lib/." "$dir/symfs/lib/aarch64-linux-gnu/"
echo "pmulab build: $(ls "$dir/guest-bin" | tr '\n' ' ')in $dir/guest-bin"
