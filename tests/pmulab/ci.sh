#!/bin/bash
# The pmulab step, end to end: install (setup.sh), cross-build (build.sh), pack the
# initramfs, boot the arm64 guest and run the hardware-event tests in it (run.sh), and
# judge the results on the host (check.sh). Prints the wall time of each part.
# Fails (non-zero) on any missing package or failed part; it never skips. Stops at once,
# with one line, when the host build of memprof is missing.
# Environment: MEMPROF (host memprof for check.sh; default build/memprof),
# PMULAB_BUILD (cross build dir, default build-aarch64), PMULAB_DIR, PMULAB_TIMEOUT.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
# check.sh reads the guest's recordings with the host memprof: without a host build, stop
# now with one line instead of failing half the checks after the guest run.
MEMPROF=${MEMPROF:-$src/build/memprof}
[ -x "$MEMPROF" ] || {
	echo "pmulab: host memprof $MEMPROF missing: build it first (cmake -S $src -B $src/build && cmake --build $src/build)" >&2
	exit 1
}
export MEMPROF
export PMULAB_BUILD=${PMULAB_BUILD:-$src/build-aarch64}
export PMULAB_DIR=${PMULAB_DIR:-$PMULAB_BUILD/pmulab}
mkdir -p "$PMULAB_DIR"
now() { date +%s.%N; }
t_all=$(now)
times=""
part() {
	local name=$1; shift
	local t0; t0=$(now)
	echo "--- pmulab: $name"
	local rc=0
	"$@" || rc=$?
	times="$times$(awk -v a="$t0" -v b="$(now)" -v n="$name" 'BEGIN { printf "%s %.1f s, ", n, b - a }')"
	if [ $rc != 0 ]; then
		summary
		echo "pmulab: $name FAILED (exit $rc)" >&2
		exit 1
	fi
}
summary() {
	echo "pmulab wall time: ${times}total $(awk -v a="$t_all" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }')"
}
part setup bash "$here/setup.sh"
part build bash "$here/build.sh"
part initramfs bash "$here/mkinitramfs.sh"
part guest bash "$here/run.sh" "${PMULAB_SMP:-1}"
part check bash "$here/check.sh"
# A second boot with two NUMA nodes and two sockets: the numa library, memprof topology and
# falseshare -P against a real multi-node kernel.
numa_dir=$PMULAB_BUILD/pmulab-numa
mkdir -p "$numa_dir"
ln -sf "$PMULAB_DIR/vmlinuz" "$numa_dir/vmlinuz"
ln -sf "$PMULAB_DIR/busybox" "$numa_dir/busybox"
rm -rf "$numa_dir/guest-bin" "$numa_dir/guest-lib"
cp -a "$PMULAB_DIR/guest-bin" "$PMULAB_DIR/guest-lib" "$numa_dir/"
part numa-initramfs env PMULAB_DIR="$numa_dir" PMULAB_GUEST_SCRIPT=guest-numa.sh bash "$here/mkinitramfs.sh"
part numa-guest env PMULAB_DIR="$numa_dir" PMULAB_NUMA=1 bash "$here/run.sh"
part numa-check env PMULAB_NUMA_DIR="$numa_dir" bash "$here/check-numa.sh"
summary
