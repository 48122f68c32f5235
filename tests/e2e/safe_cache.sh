#!/bin/bash
# Issue 29 item 2: record keeps the kernel's symbols in the build-id cache only in folders
# of the user's own, never through a link: a cache folder owned by another user (sudo -E
# keeps HOME) and a [kernel.kallsyms] level planted as a link are refused with a warning,
# nothing is written there or at the link's target, and the recording is complete; an
# own cache gets its 0600 copy.
. "$(dirname "$0")/record_lib.sh"
text=$(awk '$3 == "_text" || $3 == "_stext" { print $1; exit }' /proc/kallsyms)
case $text in ""|0000000000000000) echo "SKIP: kernel addresses hidden"; exit 77 ;; esac
bid=$(od -An -tx1 -v /sys/kernel/notes | tr -d ' \n' | sed -n 's/.*040000001400000003000000474e5500\(.\{40\}\).*/\1/p')
[ -n "$bid" ] || { echo "SKIP: no kernel build-id in /sys/kernel/notes"; exit 77; }
rec() { # CACHE: record a kernel-sampling event with the cache at CACHE
	PERF_BUILDID_DIR=$1 "$MEMPROF" record -e cpu-clock -c 100000 -o K "$KERNELS/cachebench" \
		-s 64K -r 20 >out 2>err || fail "record with cache $1 failed: $(cat err)"
	"$MEMPROF" report -q -i K -k /dev/null >/dev/null 2>&1 || fail "recording with cache $1 unreadable"
}
# a link in place of [kernel.kallsyms]
mkdir -p planted elsewhere
ln -s "$W/elsewhere" "planted/[kernel.kallsyms]"
rec "$W/planted"
[ -z "$(ls elsewhere)" ] || fail "kallsyms written through the planted link: $(ls -R elsewhere)"
grep -q "kernel symbols not kept" err || fail "no warning for the planted link: $(cat err)"
# a link in place of the build-id level
mkdir -p planted2/[kernel.kallsyms]
ln -s "$W/elsewhere" "planted2/[kernel.kallsyms]/$bid"
rec "$W/planted2"
[ -z "$(ls elsewhere)" ] || fail "kallsyms written through the planted link: $(ls -R elsewhere)"
# another user's cache
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p foreign && chown nobody foreign
	rec "$W/foreign"
	[ -z "$(ls foreign)" ] || fail "written into another user's cache: $(ls -R foreign)"
	grep -q "another user's" err || fail "no warning naming another user's folder: $(cat err)"
fi
# our own: the copy, 0600
rec "$W/own"
copy="own/[kernel.kallsyms]/$bid/kallsyms"
[ -s "$copy" ] || fail "no $copy: $(cat err)"
[ "$(stat -c %a "$copy")" = 600 ] || fail "$copy is $(stat -c %a "$copy"), not 600"
ls own/[kernel.kallsyms]/$bid | grep -q tmp && fail "a temporary file was left: $(ls own/[kernel.kallsyms]/$bid)"
echo "PASS safe_cache"
