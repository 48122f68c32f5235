#!/bin/bash
# memprof archive: record a kernel copied into a build folder, pack the archive, delete the
# folder: report, annotate, script, tui and diff --archive give the same symbols, lines and
# source annotation as before (and without the archive they do not); perf report finds the
# objects after the archive is unpacked into a fresh ~/.debug; an object that is gone when
# the archive is made is named with its share of samples.
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}"
export HOME=$T/home # no build-id cache of the caller's
mkdir -p kbuild home
cp "$KERNELS/cachebench" kbuild/
"$PERF" record -q --no-buildid-cache -e cpu-clock -F 2000 -o p.data kbuild/cachebench -m walk \
	-s 4M -o random -r 3 >/dev/null 2>rec.err || { echo "SKIP: perf record: $(tail -1 rec.err)"; exit 77; }
views() { # prefix args...
	local p=$1; shift
	"$MEMPROF" report -q -i p.data --csv "$@" >$p.sym.csv
	"$MEMPROF" report -q -i p.data --csv --sort dso,sym,srcline "$@" >$p.line.csv
	"$MEMPROF" annotate -q -i p.data walk "$@" >$p.ann.txt 2>&1
	# script, tui and diff take --archive too (issue 28, item 11)
	"$MEMPROF" script -i p.data "$@" >$p.script.txt 2>&1
	"$MEMPROF" tui -i p.data --batch '' --size 120x20 "$@" >$p.tui.txt 2>&1
	"$MEMPROF" diff p.data p.data "$@" >$p.diff.txt 2>&1
}
views before
grep -q ',\.,walk,' before.sym.csv || { echo "FAIL: walk not resolved before the move"; exit 1; }
grep -q 'cachebench.c' before.ann.txt || { echo "FAIL: no source annotation before the move"; exit 1; }
"$MEMPROF" archive -i p.data -o p.tar >arch.out 2>arch.err || { echo "FAIL archive: $(cat arch.err)"; exit 1; }
grep -q "^p.tar: [1-9]" arch.out || { echo "FAIL: archive summary: $(cat arch.out)"; fail=1; }
bid=$("$PERF" buildid-list -i p.data 2>/dev/null | awk '/cachebench/ {print $1}')
tar tf p.tar | grep -q "^\.build-id/${bid:0:2}/${bid:2}$" || { echo "FAIL: no .build-id link for $bid"; fail=1; }
rm -rf kbuild
views moved
for v in sym.csv script.txt tui.txt diff.txt; do
	cmp -s before.$v moved.$v && { echo "FAIL: the move changed nothing in $v (the test would not see the archive)"; fail=1; }
done
mkdir -p tmp
TMPDIR=$T/tmp views after --archive p.tar
for v in sym.csv line.csv ann.txt script.txt tui.txt diff.txt; do
	cmp -s before.$v after.$v || { echo "FAIL: $v differs with --archive:"; diff before.$v after.$v | head -5; fail=1; }
done
[ -z "$(ls tmp)" ] || { echo "FAIL: --archive left its folder behind: $(ls tmp)"; fail=1; }
# perf report after unpacking into a fresh ~/.debug
mkdir -p home/.debug && tar xf p.tar -C home/.debug || { echo "FAIL: tar xf"; fail=1; }
"$PERF" report -i p.data --stdio --sort dso,sym 2>/dev/null | grep -q 'cachebench .*\[\.\] walk' ||
	{ echo "FAIL: perf report does not find walk after unpacking"; fail=1; }
rm -rf home/.debug
# gone before archiving: named with its share
"$MEMPROF" archive -i p.data -o q.tar >q.out 2>&1
pct=$(sed -n 's/.*not packed: cachebench (file not found): \([0-9.]*\)% of the samples/\1/p' q.out)
want=$("$MEMPROF" report -q -i p.data --sort dso --csv | awk -F, '$1 == "cachebench" {print $4}')
python3 -c "import sys; sys.exit(0 if abs(float('$pct' or -1) - float('${want:-0}')) < 0.006 else 1)" ||
	{ echo "FAIL: missing cachebench named with $pct%, report says $want%: $(cat q.out)"; fail=1; }
[ $fail = 0 ] && echo "PASS archive"
exit $fail
