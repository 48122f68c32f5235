# Issue 18: a recording truncated by another process while memprof reads it (mapped):
# one line and exit 1, never death by SIGBUS. Deterministic: a test shim preloaded into
# memprof (safe_truncate_shim.c) cuts the file to 200 KB right after memprof has mapped it,
# so the reader always meets the missing pages, whatever the load.
SHIM_SRC="$(cd "$(dirname "$0")" && pwd)/safe_truncate_shim.c"
. "$(dirname "$0")/record_lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "SKIP: no C compiler for the test shim"; exit 77; }
"$CC" -shared -fPIC -O1 -o shim.so "$SHIM_SRC" -ldl 2>err ||
	fail "building the shim: $(cat err)"
# a big file fast, without a fast timer: every page fault of a 128 MB walk, with its chain
# (cpu-clock every 10 us made the VM's timer softirqs take matmul's time: 300 s beside
# another test)
"$MEMPROF" record -q -g -e page-faults -c 1 -o big.data -- "$KERNELS/cachebench" -m walk -s 128M -r 1 \
	>/dev/null 2>err || fail "record: $(cat err)"
[ "$(stat -c %s big.data)" -gt 1000000 ] || fail "recording too small to cut: $(stat -c %s big.data)"
# The shim comes before the sanitizer runtime in the ASan build: tell it that is meant.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
for c in report "tui --batch q" ratios annotate; do
	cp big.data cut.data
	rm -f cut.data.cut
	MP_SHIM_CUT_NAME=/cut.data MP_SHIM_CUT_SIZE=200000 LD_PRELOAD="$W/shim.so" \
		"$MEMPROF" $c -i cut.data -k /dev/null >out 2>err
	rc=$?
	[ -e cut.data.cut ] && [ "$(stat -c %s cut.data)" = 200000 ] ||
		fail "$c: the shim did not cut the file (memprof no longer maps it?): $(cat err)"
	[ $rc -lt 128 ] || fail "$c died by signal $((rc - 128)) on a truncated file: $(cat err)"
	[ $rc = 1 ] || fail "$c exited $rc on a file truncated under it: $(cat err)"
	grep -q 'truncated by another process' err || fail "$c: $(cat err)"
	[ "$(grep -vc '^memprof: warning' err)" = 1 ] || fail "$c: not one line: $(cat err)"
done
exit 0
