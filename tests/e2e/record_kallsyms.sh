# The synthesized kernel map: [kernel.kallsyms]_text at _text of /proc/kallsyms when an
# event can sample the kernel; none (and /proc/kallsyms not read) for user-only events.
# A copy of /proc/kallsyms kept in perf's build-id cache as perf record keeps it, and
# memprof report reading it instead of /proc/kallsyms.
. "$(dirname "$0")/record_lib.sh"
need_perf
text=$(awk '$3 == "_text" || $3 == "_stext" { print $1; exit }' /proc/kallsyms)
case $text in ""|0000000000000000) echo "SKIP: kernel addresses hidden"; exit 77 ;; esac
PERF_BUILDID_DIR=$PWD/cache "$MEMPROF" record -e cpu-clock -c 100000 -o K "$KERNELS/cachebench" \
	-s 64K -r 100 >out 2>err || fail "record failed: $(cat err)"
bid=$(od -An -tx1 -v /sys/kernel/notes | tr -d ' \n' | sed -n 's/.*040000001400000003000000474e5500\(.\{40\}\).*/\1/p')
[ -n "$bid" ] || fail "no kernel build-id in /sys/kernel/notes"
copy="cache/[kernel.kallsyms]/$bid/kallsyms"
[ -s "$copy" ] || fail "no $copy: $(ls -R cache 2>&1 | head -5)"
[ "$(awk '$3 == "_text" || $3 == "_stext" { print $1; exit }' "$copy")" = "$text" ] ||
	fail "$copy: _text differs from /proc/kallsyms"
# (LeakSanitizer cannot run under ptrace: off for this traced run in the sanitizer build)
PERF_BUILDID_DIR=$PWD/cache ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -e trace=openat -o rtr "$MEMPROF" report -i K >rep 2>&1 ||
	fail "report failed: $(tail -3 rep)"
grep -q "$bid/kallsyms" rtr || fail "report did not read $copy"
grep -q '/proc/kallsyms' rtr && fail "report read /proc/kallsyms with the cache copy there"
grep -q '\[k\]\|kernel.kallsyms' rep || fail "report shows no kernel symbol: $(head -40 rep)"
perf_reads K
"$PERF" report -D -i K 2>/dev/null | grep 'PERF_RECORD_MMAP -1/0' >kmap
grep -q "\[0x0*$text(.*\[kernel.kallsyms\]_text" kmap ||
	fail "kernel map is not at _text $text: $(cat kmap)"
"$MEMPROF" record -e cpu-clock:u -c 100000 -o U "$KERNELS/cachebench" -s 64K -r 100 \
	>out 2>err || fail "record :u failed: $(cat err)"
perf_reads U
"$PERF" report -D -i U 2>/dev/null | grep -q 'kernel.kallsyms' &&
	fail "user-only recording has a kernel map"
strace -f -e trace=openat -o tr "$MEMPROF" record -q -e cpu-clock:u -o U2 true 2>/dev/null &&
	grep -q kallsyms tr && fail "user-only recording read /proc/kallsyms"
echo ok
