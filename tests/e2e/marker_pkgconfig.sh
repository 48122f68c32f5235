#!/usr/bin/env bash
# The markers library used alone: install it (library, header, pkg-config file) into an
# empty prefix, build the regions test program with nothing but pkg-config's flags, and
# count its regions with memprof stat --regions; without memprof it runs as a plain program.
set -euo pipefail
: "${BUILD_DIR:?}" "${SRC_DIR:?}" "${MEMPROF:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DCMAKE_INSTALL_PREFIX="$tmp/prefix" -P "$BUILD_DIR/marker/cmake_install.cmake" >/dev/null
for f in include/memprof/marker.h lib/libmemprof-marker.a lib/pkgconfig/memprof-marker.pc; do
  [ -f "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cd "$tmp"
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o prog "$SRC_DIR/tests/regions_prog.c" \
  $(pkg-config --cflags --libs --static memprof-marker)
./prog faults 10 1
if ./prog names; then echo "markers on without memprof"; exit 1; fi # exits 3: markers off
"$MEMPROF" stat --regions --csv -o out.csv -e page-faults -- ./prog faults 10 2
grep -q '^touch,0,0,2,0,page-faults,20,' out.csv || { cat out.csv; echo "touch is not 20 in 2 calls"; exit 1; }
echo "ok: installed library, header and pkg-config file; a program built from them counted"
