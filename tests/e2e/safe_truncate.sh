# Issue 18: a recording truncated by another process while memprof reads it (mapped):
# one line and exit 1, never death by SIGBUS. The reader is stopped as soon as it has
# mapped the file, the file cut to 200 KB, and the reader let go.
. "$(dirname "$0")/record_lib.sh"
"$MEMPROF" record -q -g -e cpu-clock -c 10000 -o big.data -- "$KERNELS/matmul" -N 512 -a naive \
	>/dev/null 2>err || fail "record: $(cat err)"
[ "$(stat -c %s big.data)" -gt 5000000 ] || { echo "SKIP: recording too small to cut"; exit 77; }
for c in report "tui --batch q" ratios; do
	cp big.data cut.data
	"$MEMPROF" $c -i cut.data -k /dev/null >out 2>err &
	p=$!
	# poll without sleeping: the reader must still be early in the file when stopped
	for _ in $(seq 20000); do grep -q "$W/cut.data" /proc/$p/maps 2>/dev/null && break; done
	kill -STOP $p
	truncate -s 200000 cut.data
	kill -CONT $p
	wait $p
	rc=$?
	[ $rc -lt 128 ] || fail "$c died by signal $((rc - 128)) on a truncated file: $(cat err)"
	[ $rc = 1 ] || fail "$c exited $rc on a file truncated under it: $(cat err)"
	grep -q 'truncated by another process' err || fail "$c: $(cat err)"
	[ "$(grep -vc '^memprof: warning' err)" = 1 ] || fail "$c: not one line: $(cat err)"
done
exit 0
