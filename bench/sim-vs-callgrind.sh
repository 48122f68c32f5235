#!/bin/bash
# sim-vs-callgrind.sh - what memprof's valgrind tool (mpsim, record --sim) costs against
# callgrind with --cache-sim=yes --branch-sim=yes on the same programs and caches (issue
# 31: no slower). Each program runs under both, the tools alone (valgrind straight, no
# memprof conversion; both with --fair-sched=try, as record --sim runs mpsim), best of 3
# user+system CPU seconds; prints mpsim/callgrind. Not run by ctest. Four threads walking
# a 4M list at random miss their 1M L2s at nearly every step: each miss looks in the other
# cores' caches (coherence, which callgrind does not have), mpsim's dearest case.
#
# usage: bench/sim-vs-callgrind.sh [BUILD_DIR]   (default: build)
set -u
B=${1:-build}
TOOL=$B/lib/memprof/mpsim-amd64-linux
K=$B/kernels
[ -x "$TOOL" ] || { echo "sim-vs-callgrind: no $TOOL (built without valgrind's tool headers)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
STOCK=
for d in "${VALGRIND_LIB:-}" /usr/libexec/valgrind /usr/lib/valgrind /usr/lib/x86_64-linux-gnu/valgrind; do
	[ -n "$d" ] && [ -f "$d/vgpreload_core-amd64-linux.so" ] && { STOCK=$d; break; }
done
[ -n "$STOCK" ] || { echo "sim-vs-callgrind: valgrind's tool folder not found" >&2; exit 2; }
mkdir "$T/lib"
for f in "$STOCK"/*; do ln -s "$f" "$T/lib/"; done
ln -s "$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")" "$T/lib/"
GEO=(--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64)

cpu() { # command... -> user+sys seconds, best of 3
	local best=
	for _ in 1 2 3; do
		/usr/bin/time -f "%U %S" -o "$T/t" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		s=$(awk '{ print $1 + $2 }' "$T/t")
		best=$(awk -v a="$s" -v b="${best:-$s}" 'BEGIN { print (a < b) ? a : b }')
	done
	echo "$best"
}

status=0
printf "%-44s %10s %10s %8s\n" program mpsim_s callgrind_s ratio
# single-threaded: sequential and random walks (the random one misses the caches and the
# DTLB at nearly every element, and writes), the matmul of section 6; threaded: threads
# walking one list (section 3.3.4: every line shared, read-only), two threads writing one
# line or two, and four incrementing one counter atomically. Each threaded program runs a
# second time four times longer: valgrind's start (about 0.25 s under either tool) weighs
# less there, and what each tool spends per access shows (four threads walking one list
# at random a third time, 64 walks: mpsim's worst case, threads sharing data they read).
for prog in "cachebench -s 4M -r 16" "cachebench -s 16K -r 2000" \
	"cachebench -s 2M -o random -m inc -r 8" "matmul -N 128 -a all" "matmul -N 256 -a all" \
	"cachebench -T 2 -s 1M -r 16" "cachebench -T 2 -s 1M -r 64" \
	"cachebench -T 4 -o random -s 1M -r 4" "cachebench -T 4 -o random -s 1M -r 16" \
	"cachebench -T 4 -o random -s 1M -r 64" "cachebench -T 4 -o random -s 4M -r 16" \
	"falseshare -T 2 -d 8 -i 1000000 -P any" "falseshare -T 2 -d 8 -i 4000000 -P any" \
	"falseshare -T 2 -d 64 -i 1000000 -P any" "falseshare -T 2 -d 64 -i 4000000 -P any" \
	"falseshare -T 4 -d 0 -A -i 250000 -P any" "falseshare -T 4 -d 0 -A -i 1000000 -P any"; do
	set -- $prog
	# a program that fails under either tool (a kernel built without an option, say)
	# gets its row, and the script's status says so
	if ! m=$(cpu env VALGRIND_LIB="$T/lib" valgrind -q --fair-sched=try --tool=mpsim --cores=4 "${GEO[@]}" \
		--out-file="$T/mp.%p" "$K/$1" "${@:2}") ||
	   ! c=$(cpu env VALGRIND_LIB="$T/lib" valgrind -q --fair-sched=try --tool=callgrind --cache-sim=yes --branch-sim=yes \
		"${GEO[@]}" --callgrind-out-file="$T/cg.%p" "$K/$1" "${@:2}"); then
		printf "%-44s %10s %10s %8s\n" "$prog" failed - -
		status=1
		continue
	fi
	awk -v p="$prog" -v m="$m" -v c="$c" 'BEGIN { printf "%-44s %10.2f %10.2f %8.3f\n", p, m, c, m / c }'
done
exit $status
