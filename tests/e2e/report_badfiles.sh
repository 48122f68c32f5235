#!/bin/bash
# (4) Empty, wrong-magic, truncated and missing files: memprof report and annotate print
# exactly one error line naming the file and exit 1.
set -u
: "${MEMPROF:?}" "${SHARED_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
src=$SHARED_DIR/perfdata/pdc-armv7-3.4.data
: >"$T/empty.data"
printf 'hello world, this is not a perf.data file at all....' >"$T/magic.data"
head -c 5000 "$src" >"$T/trunc-data.data"
head -c 100 "$src" >"$T/trunc-header.data"
head -c 300000 "$src" >"$T/trunc-mid.data"
fail=0
for f in empty magic trunc-data trunc-header trunc-mid missing; do
	for cmd in report annotate; do
		"$MEMPROF" $cmd -i "$T/$f.data" >"$T/out" 2>"$T/err"
		rc=$?
		lines=$(wc -l <"$T/err")
		if [ $rc -ne 1 ] || [ "$lines" -ne 1 ] || ! grep -q "$T/$f.data" "$T/err"; then
			echo "FAIL $cmd $f: rc=$rc, $lines stderr lines:"
			cat "$T/err"
			fail=1
		fi
	done
done
# the reader's fuzz corpus (real files, cut and hostile ones): report and annotate read
# them or fail with one line naming the file (after a warning when header features are
# damaged: they are skipped); never a crash or sanitizer report
CORPUS=$(cd "$(dirname "$0")/../fuzz/corpus/perfdata" 2>/dev/null && pwd)
mkdir -p "$T/empty"
for f in "${CORPUS:-/nonexistent}"/*; do
	[ -f "$f" ] || continue
	for cmd in report annotate; do
		"$MEMPROF" $cmd -q -i "$f" --symfs "$T/empty" --kallsyms /dev/null >/dev/null 2>"$T/err"
		rc=$?
		if grep -q 'Sanitizer\|runtime error' "$T/err" || [ $rc -gt 1 ] ||
			{ [ $rc -eq 1 ] && { [ "$(grep -vc '^memprof: warning: ' "$T/err")" -ne 1 ] ||
				! grep -v '^memprof: warning: ' "$T/err" | grep -q "$f"; }; }; then
			echo "FAIL $cmd on corpus file $(basename "$f"): rc=$rc"
			head -5 "$T/err"
			fail=1
		fi
	done
done
# the default input: memprof.data, then perf.data, in the current directory
# (every command that reads a recording by default names both)
cd "$T" || exit 1
for cmd in report annotate tui ratios script archive; do
	"$MEMPROF" $cmd >/dev/null 2>"$T/err"
	[ $? -eq 1 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
		grep -q "^memprof $cmd: no memprof.data or perf.data in the current directory" "$T/err" ||
		{ echo "FAIL default input of $cmd:"; cat "$T/err"; fail=1; }
done
cp "$SHARED_DIR/perfdata/pdc-group-desc-4.14.data" "$T/perf.data"
"$MEMPROF" report -q --kallsyms /dev/null | grep -q '^# memprof report of perf.data' ||
	{ echo "FAIL: perf.data not used by default"; fail=1; }
# usage errors exit 2
"$MEMPROF" report --sort bogus -i x 2>"$T/err"; [ $? -eq 2 ] && grep -q "bogus" "$T/err" ||
	{ echo "FAIL --sort bogus"; fail=1; }
"$MEMPROF" report --csv --json -i x 2>/dev/null; [ $? -eq 2 ] || { echo "FAIL --csv --json"; fail=1; }
[ $fail -eq 0 ] && echo OK
exit $fail
