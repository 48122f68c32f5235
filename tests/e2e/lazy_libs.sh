#!/bin/bash
# libpfm4 and capstone are loaded only by what needs them (events of PMU models, list,
# annotate's disassembly): report runs the same with both unloadable (empty files of their
# names first in LD_LIBRARY_PATH), and what needs one says in one line which library it could
# not load. Env: MEMPROF, SHARED_DIR, PFM_SONAME, CAPSTONE_SONAME.
set -u
: "${MEMPROF:?}" "${SHARED_DIR:?}" "${PFM_SONAME:?}" "${CAPSTONE_SONAME:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/lib"
: >"$T/lib/$PFM_SONAME"
: >"$T/lib/$CAPSTONE_SONAME"
fail=0
f=$SHARED_DIR/perfdata/pdc-pipe-group-6.8.data
nolibs() { LD_LIBRARY_PATH=$T/lib "$@"; }

# not linked: the program starts without them
if readelf -d "$MEMPROF" | grep -E "NEEDED.*(libpfm|libcapstone)"; then
	echo "FAIL: $MEMPROF is linked with libpfm4 or capstone"; fail=1
fi
# report and a generic event's record never load them
"$MEMPROF" report -i "$f" --stdio >"$T/r1" 2>&1
nolibs "$MEMPROF" report -i "$f" --stdio >"$T/r2" 2>&1 ||
	{ echo "FAIL: report without the libraries: $(tail -1 "$T/r2")"; fail=1; }
cmp -s "$T/r1" "$T/r2" || { echo "FAIL: report differs without the libraries"; diff "$T/r1" "$T/r2" | head; fail=1; }
nolibs "$MEMPROF" record -q -e cpu-clock -o "$T/cpu.data" -- true >"$T/out" 2>&1 ||
	{ echo "FAIL: record -e cpu-clock without libpfm4: $(cat "$T/out")"; fail=1; }

# one line naming the library (exit: 2 for an event that cannot be parsed, 1 for list)
want="cannot load $PFM_SONAME (libpfm4, for PMU models and their events): $T/lib/$PFM_SONAME: "
expect() { # RC CMD...: exit status RC and one stderr line with $want
	local rc=$1; shift
	nolibs "$@" >"$T/out" 2>"$T/err"
	local got=$?
	if [ $got -ne "$rc" ] || [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -qF -- "$want" "$T/err"; then
		echo "FAIL: $* exit $got (want $rc), stderr:"; cat "$T/err"; fail=1
	else
		echo "ok: $*: $(cat "$T/err")"
	fi
}
expect 2 "$MEMPROF" record -e skl::L1D:REPLACEMENT -o "$T/x.data" -- true
expect 2 "$MEMPROF" stat --pmu skl -e L1D:REPLACEMENT -- true
expect 1 "$MEMPROF" list --models
nolibs "$MEMPROF" list >"$T/list" 2>&1
grep -qF "No libpfm4 events: $want" "$T/list" || { echo "FAIL: list does not say libpfm4 is missing"; head -3 "$T/list"; fail=1; }
# with the library, the same commands get past it
"$MEMPROF" list --models >"$T/out" 2>&1 || { echo "FAIL: list --models: $(tail -1 "$T/out")"; fail=1; }
grep -q "^  skl " "$T/out" || { echo "FAIL: list --models names no skl"; fail=1; }

# annotate without capstone: the sampled addresses, and a note naming the library
nolibs "$MEMPROF" annotate -i "$f" >"$T/ann" 2>&1 || { echo "FAIL: annotate without capstone exits $?"; fail=1; }
grep -qF "# note: cannot load $CAPSTONE_SONAME (capstone, to disassemble): $T/lib/$CAPSTONE_SONAME: " "$T/ann" ||
	{ echo "FAIL: annotate's note does not name $CAPSTONE_SONAME:"; head -4 "$T/ann"; fail=1; }
"$MEMPROF" annotate -i "$f" >"$T/ann" 2>&1
grep -q "movzx eax, byte ptr \[rdi + 4\]" "$T/ann" || { echo "FAIL: annotate with capstone disassembles nothing"; fail=1; }
[ $fail = 0 ] && echo "lazy_libs: all passed"
exit $fail
