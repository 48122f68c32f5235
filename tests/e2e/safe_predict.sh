#!/bin/bash
# Issue 29 items 5, 7 and 10 (the predict side): programs built with -DDEBUGPRED and
# --gc-sections (lld, GNU ld -z start-stop-gc) keep their counts and exit normally; a
# setuid program ignores MEMPROF_PREDICT (secure_getenv's rule); memprof predict -o on a
# full file system says so in one line and exits 1, never blaming the build; -o on a
# device is refused, never removed.
set -u
: "${MEMPROF:?}" "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
W=$(mktemp -d)
trap 'umount "$W/full" 2>/dev/null; rm -rf "$W"' EXIT
cd "$W"
fail() { echo "FAIL: $*" >&2; exit 1; }
# the known program: 700 incorrect, 300 correct for its one unlikely()
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for ld in -fuse-ld=lld -Wl,-z,start-stop-gc -Wl,-z,nostart-stop-gc; do # (the last: the old default)
		[ $ld = -fuse-ld=lld ] && ! command -v ld.lld >/dev/null && continue
		$cc -O2 -DDEBUGPRED -I"$PREDICT_INC" -ffunction-sections -fdata-sections \
			-Wl,--gc-sections $ld "$PREDICT_SRC/known.c" -o k 2>cc.err ||
			{ echo "($cc $ld: cannot link: $(head -1 cc.err))"; continue; }
		./k >/dev/null 2>err
		rc=$?
		[ $rc = 0 ] || fail "$cc $ld --gc-sections: the program exited $rc: $(head -3 err)"
		grep -q 'incorrect=700, correct=300' err || fail "$cc $ld --gc-sections: counts: $(head -3 err)"
		"$MEMPROF" predict -- ./k >out 2>err || fail "$cc $ld: memprof predict: $(cat err)"
		grep -q '700' out || fail "$cc $ld: memprof predict shows no counts: $(head out)"
	done
done
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$PREDICT_SRC/known.c" -o k || fail "gcc"
# setuid: MEMPROF_PREDICT ignored (as root: a program setuid to nobody)
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	cp k ksuid && chown nobody ksuid && chmod 4755 ksuid && mkdir -m 777 pub && chmod 755 "$W"
	MEMPROF_PREDICT=$W/pub/planted ./ksuid >/dev/null 2>err
	[ -e pub/planted ] && fail "a setuid program wrote MEMPROF_PREDICT's file"
	grep -q 'incorrect=700, correct=300' err || fail "setuid: no counts on stderr: $(head -3 err)"
fi
if [ "$(id -u)" = 0 ]; then
	# -o on a device: refused, the node kept
	mknod dev c 1 3
	"$MEMPROF" predict -o dev -- ./k >out 2>err && fail "predict -o a device succeeded"
	[ -c dev ] || fail "predict -o dev removed the device"
	[ "$(wc -l <err)" = 1 ] || fail "predict -o dev: not one line: $(cat err)"
	# a full file system: one line naming the file, exit 1
	mkdir full && mount -t tmpfs -o size=64k tmpfs full || { echo "SKIP: tmpfs"; exit 77; }
	dd if=/dev/zero of=full/fill bs=4k count=100 2>/dev/null
	"$MEMPROF" predict -o full/p -- ./k >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "predict -o on a full disk exited $rc: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "full disk: not one line: $(cat err)"
	grep -q "full/p: .*No space left on device" err || fail "full disk: $(cat err)"
	grep -q DEBUGPRED err && fail "full disk blamed on the build: $(cat err)"
fi
echo "PASS safe_predict"
