# kernels.sh CASE - the kernels run small: each run must exit 0 (the program's own check of
# its result) and print the values the options imply. CASE: cachebench_modes,
# falseshare_totals, help.
set -u
: "${KERNELS:?set KERNELS}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
fail() { echo "FAIL: $*" >&2; exit 1; }
# run NAME ARGS...: run a kernel; its status must be 0; its stdout is left in $out.
run() {
	local k=$1; shift
	out=$("$KERNELS/$k" "$@" 2>err); local rc=$?
	[ $rc -eq 0 ] || fail "$k $* exited $rc: $(cat err)"
}
case ${1:-} in
cachebench_modes)
	# -s 256K of 64-byte elements = 4096 elements; -r 20 = 81920 steps
	for m in walk inc addnext; do for o in seq random; do
		run cachebench -m "$m" -o "$o" -s 256K -r 20
		echo "$out" | grep -q "^cachebench: mode=$m order=$o size=262144 npad=7 elements=4096 steps=81920 ns/element=" ||
			fail "cachebench -m $m -o $o: $out"
	done; done
	# -t: whole walks (chunks of 4096 * 245 steps for 256 elements: a multiple of 256)
	run cachebench -m inc -t 0.05 -s 16K
	steps=$(echo "$out" | sed -n 's/.* elements=256 steps=\([0-9]*\) .*/\1/p')
	[ -n "$steps" ] && [ "$steps" -gt 0 ] && [ $((steps % 256)) -eq 0 ] ||
		fail "cachebench -t: steps not whole walks of 256: $out"
	# -T: three threads walk the one list at once (each its 81920 steps, each back at the
	# head); the walk only, for -r only; 1 to 64 threads
	run cachebench -T 3 -o random -s 256K -r 20
	echo "$out" | grep -q "^cachebench: mode=walk order=random size=262144 npad=7 elements=4096 steps=81920 ns/element=[0-9.]* threads=3$" ||
		fail "cachebench -T 3: $out"
	for bad in "-T 2 -m inc -r 1|only the walk" "-T 2 -t 0.01|only the walk" "-T 0 -r 1|1 to 64 threads" "-T 65 -r 1|1 to 64 threads"; do
		# shellcheck disable=SC2086
		"$KERNELS/cachebench" ${bad%%|*} > /dev/null 2> err; rc=$?
		[ $rc -eq 2 ] && grep -q "${bad#*|}" err || fail "cachebench ${bad%%|*}: exit $rc, $(cat err)"
	done
	;;
falseshare_totals)
	for a in "2 8 -" "2 0 -A" "3 64 -" "1 16 -"; do
		set -- $a
		t=$1 d=$2 x=$3; [ "$x" = - ] && x=
		run falseshare -T "$t" -d "$d" $x -i 100000
		want=$((t * 100000))
		echo "$out" | grep -q "^falseshare: threads=$t displacement=$d atomic=$([ -n "$x" ] && echo 1 || echo 0) iters=100000 total=$want " ||
			fail "falseshare -T $t -d $d $x: total is not $want: $out"
	done
	;;
falseshare_article)
	# The article's 9.3 form (issue 30, point 4): DISP in longs, NTHREADS, ATOMIC, with its
	# defaults (0 2 1) and its N (1e7 atomic increments; -i still sets the count).
	# case: ARGS -> threads displacement(bytes) atomic iters total
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run falseshare $args
		echo "$out" | grep -q "^falseshare: $want time=" || fail "falseshare $args: want '$want': $out"
		echo "$out" | grep -q "^falseshare: cpu_share=[0-9.,]* cpus_used=[0-9.]* span=" ||
			fail "falseshare $args: no CPU shares: $out"
	done <<'C'
-i 200000 0|threads=2 displacement=0 atomic=1 iters=200000 total=400000
2 3 0 -i 100000|threads=3 displacement=16 atomic=0 iters=100000 total=300000
-i 1000 4 0 0|threads=1 displacement=32 atomic=0 iters=1000 total=1000
0 1|threads=1 displacement=0 atomic=1 iters=10000000 total=10000000
C
	"$KERNELS/falseshare" 0 2 2 > /dev/null 2> err && fail "ATOMIC 2 accepted"
	grep -q "ATOMIC 2: 0 or 1" err || fail "ATOMIC 2: $(cat err)"
	"$KERNELS/falseshare" 0 2 1 1 > /dev/null 2> err && fail "a fourth argument accepted"
	# Two unpinned threads on one CPU cannot run in parallel: their shares add up to at
	# most one CPU, and the kernel says so.
	command -v taskset > /dev/null || { echo "no taskset"; exit 77; }
	out=$(taskset -c 0 "$KERNELS/falseshare" -P any -T 2 -i 5000000 2> err) || fail "taskset run: $(cat err)"
	used=$(echo "$out" | sed -n 's/.* cpus_used=\([0-9.]*\) .*/\1/p')
	awk -v u="$used" 'BEGIN { exit !(u != "" && u <= 1.05) }' || fail "one CPU, two threads used $used CPUs: $out"
	grep -q "warning: the threads did not run in parallel" err || fail "no warning on one CPU: $(cat err)"
	;;
matmul_checks)
	# Issue 30, point 6. The blocks follow the machine's coherency_line_size.
	f=/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size
	cls=$(cat "$f" 2>/dev/null || getconf LEVEL1_DCACHE_LINESIZE)
	run matmul -N 64 -a scalar
	echo "$out" | grep -q "^matmul: CLS=$cls bytes (.*), blocks of $((cls / 8)) doubles$" || fail "CLS not $cls: $out"
	echo "$out" | grep -q "^matmul: scalar     N=64 " || fail "no scalar run: $out"
	# The scalar form has no SSE2 multiply (mulpd) in it; the blocked one has.
	dis() { objdump -d --no-show-raw-insn "$KERNELS/matmul" | awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'; }
	dis mm_scalar | grep -q 'mulsd' && ! dis mm_scalar | grep -q 'mulpd' || fail "mm_scalar is not scalar: $(dis mm_scalar | grep mul | head -3)"
	dis mm_blocked | grep -q 'mulpd' || fail "mm_blocked has no mulpd"
	# Other line sizes (--cls): 128-byte lines give blocks of 16, every algorithm agrees.
	run matmul -N 128 --cls 128 -a naive,transposed,blocked,scalar
	echo "$out" | grep -q "^matmul: CLS=128 bytes (--cls), blocks of 16 doubles$" || fail "--cls 128: $out"
	[ "$(echo "$out" | grep -c ' s per product$')" = 4 ] || fail "not 4 algorithms: $out"
	"$KERNELS/matmul" -N 64 --cls 24 > /dev/null 2> err && fail "--cls 24 accepted"
	grep -q "a multiple of 16" err || fail "--cls 24: $(cat err)"
	"$KERNELS/matmul" -N 72 --cls 128 > /dev/null 2> err && fail "-N 72 with blocks of 16 accepted"
	# One wrong entry in one 8x8 block fails each single-algorithm run.
	for a in blocked scalar; do
		"$MATMUL_FAULT" -N 256 -a $a > /dev/null 2> err && fail "a wrong block passes -a $a"
		grep -q "naive and $a differ at \[$((cls / 8 + 3))\]\[$((2 * cls / 8 + 5))\]" err || fail "-a $a: $(cat err)"
	done
	"$MATMUL_FAULT" -N 256 -a transposed > /dev/null 2>&1 || fail "the fault build fails an untouched algorithm"
	;;
help)
	for k in cachebench matmul falseshare; do
		for h in --help -h; do
			run "$k" "$h"
			echo "$out" | head -1 | grep -q "^usage: $k " || fail "$k $h: no usage line: $out"
			echo "$out" | grep -q -- '-h, --help' || fail "$k $h: usage does not list --help"
		done
		"$KERNELS/$k" --frobnicate >/dev/null 2>err; rc=$?
		grep -q '^usage: ' err || fail "$k --frobnicate: no usage on stderr"
		[ $rc -eq 2 ] || fail "$k --frobnicate exited $rc, not 2"
	done
	;;
*) fail "unknown case '${1:-}'" ;;
esac
echo ok
