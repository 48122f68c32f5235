#!/bin/bash
# Issue 29 item 9: report -i - checks perf's magic before keeping a byte of standard input
# (cat /dev/zero | memprof report -i - filled $TMPDIR) and never fills the file system
# holding its spool; stat --sim leaves nothing in $TMPDIR (it left an empty .old per run).
. "$(dirname "$0")/record_lib.sh"
mkdir td
export TMPDIR=$W/td
timeout 20 sh -c 'head -c 100000000 /dev/zero | "$0" report -i - -k /dev/null' "$MEMPROF" >out 2>err
rc=$?
[ $rc = 1 ] || fail "report -i - of zeros: exit $rc: $(cat err)"
grep -q "not a perf.data stream (no PERFILE2 magic)" err || fail "zeros: $(cat err)"
# a real stream still reads
"$MEMPROF" record -q -e cpu-clock -c 100000 -o - "$KERNELS/cachebench" -m walk -s 1M -r 1 2>/dev/null |
	"$MEMPROF" report -q -i - -k /dev/null >out 2>err || fail "report -i - of a recording: $(cat err)"
grep -q cachebench out || fail "report -i - shows no cachebench: $(head out)"
if [ "$(id -u)" = 0 ] && mkdir small && mount -t tmpfs -o size=80m tmpfs small 2>/dev/null; then
	trap 'umount "$W/small" 2>/dev/null; rm -rf "$W"' EXIT
	timeout 60 sh -c '(printf PERFILE2; head -c 200000000 /dev/zero) | TMPDIR="$1" "$0" report -i - -k /dev/null' \
		"$MEMPROF" "$W/small" >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "an endless stream: exit $rc: $(cat err)"
	grep -q "standard input is larger than the .* MiB $W/small can hold" err || fail "endless: $(cat err)"
	used=$(df --output=used -k small | tail -1)
	[ "$used" -lt 1024 ] || fail "the spool left $used KiB behind"
fi
if command -v valgrind >/dev/null; then
	"$MEMPROF" stat --sim -e instructions true >out 2>&1 || fail "stat --sim: $(cat out)"
	[ -z "$(ls -A td)" ] || fail "stat --sim left $(ls -A td) in TMPDIR"
fi
[ -z "$(ls -A td)" ] || fail "left in TMPDIR: $(ls -A td)"
echo "PASS safe_spool"
