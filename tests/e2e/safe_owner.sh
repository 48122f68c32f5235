#!/bin/bash
# Issue 29 items 5 and 7: diff and archive refuse a recording owned by another user (not
# the user or root) as the other commands do, with one line, unless --force; diff
# --ratios of recordings with no ratio in common prints an empty table (it sorted a NULL
# array: UBSan stops the sanitizer build there).
. "$(dirname "$0")/record_lib.sh"
"$MEMPROF" record -q -e cpu-clock -c 100000 -o A.data "$KERNELS/cachebench" -m walk -s 1M -r 1 \
	>/dev/null 2>err || fail "record: $(cat err)"
cp A.data B.data
"$MEMPROF" diff --ratios A.data B.data >out 2>err || fail "diff --ratios: $(cat err)"
grep -q "^# 0 of 0 ratio values changed" out || fail "diff --ratios: $(head -5 out)"
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || { echo "SKIP: the owner checks need root"; exit 77; }
chown nobody B.data
for c in "diff A.data B.data" "diff B.data,A.data A.data" "archive -q -i B.data -o B.tar"; do
	"$MEMPROF" $c >out 2>err && fail "memprof $c read another user's file"
	[ "$(wc -l <err)" = 1 ] || fail "memprof $c: not one line: $(cat err)"
	grep -q "B.data: owned by another user" err || fail "memprof $c: $(cat err)"
	"$MEMPROF" $c -f >out 2>err || fail "memprof $c -f: $(cat err)"
done
echo "PASS safe_owner"
