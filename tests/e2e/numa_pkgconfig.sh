#!/usr/bin/env bash
# The numa library used alone: install it (library, header, pkg-config file) into an empty
# prefix, build its unit tests and a consumer program with nothing but pkg-config's flags,
# run them. The consumer's answers for CPU 0 are checked against the kernel's own lists.
set -euo pipefail
: "${BUILD_DIR:?}" "${SRC_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DCMAKE_INSTALL_PREFIX="$tmp/prefix" -P "$BUILD_DIR/numa/cmake_install.cmake" >/dev/null
for f in include/memprof/numa.h lib/libmemprof-numa.a lib/pkgconfig/memprof-numa.pc; do
  [ -f "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cd "$tmp"
cp "$SRC_DIR/tests/numa_consumer.c" "$SRC_DIR/tests/test_numa.c" "$SRC_DIR/tests/mp_test_fixture.h" .
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror ${SAN_FLAGS:-} -o consumer numa_consumer.c $(pkg-config --cflags --libs memprof-numa)
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror ${SAN_FLAGS:-} -o test_numa test_numa.c $(pkg-config --cflags --libs memprof-numa cmocka)
./test_numa

./consumer 0 > out.txt
cat out.txt
sys=/sys/devices/system/cpu/cpu0/topology
grep -qx "threads $(cat $sys/thread_siblings_list)" out.txt || { echo "threads differ from $sys/thread_siblings_list"; exit 1; }
grep -qx "package $(cat $sys/core_siblings_list)" out.txt || { echo "package differs from $sys/core_siblings_list"; exit 1; }
node=$(basename /sys/devices/system/cpu/cpu0/node* | sed 's/node//')
grep -qx "nodes $node" out.txt || { echo "node differs from /sys/devices/system/cpu/cpu0/node$node"; exit 1; }
echo "ok: installed library, header and pkg-config file; unit tests and consumer built from them"
