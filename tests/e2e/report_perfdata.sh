#!/bin/bash
# (3) Every fixture in $SHARED_DIR/perfdata is read without error; per event its sample
# count, estimated count and every (dso, sym) row equal perf's flat reference (hermetic:
# empty --symfs, --kallsyms /dev/null); with the binaries of bin/ under --symfs, the
# per-symbol percentages equal the symbolized references.
. "$(dirname "$0")/e2e_lib.sh"
: "${SHARED_DIR:?}"
P=$SHARED_DIR/perfdata
CMP=$E2E/report_perfcmp.py
mkdir -p "$T/empty"
n=0
for f in "$P"/*.data; do
	s=${f%.data}
	name=$(basename "$s")
	ref=$s.perf-report-flat.txt
	case $name in *.orig-attr136) ref=${s%.orig-attr136}.perf-report-flat.txt ;; esac
	if ! "$MEMPROF" report -q -i "$f" --symfs "$T/empty" --kallsyms /dev/null --no-children --csv \
		>"$T/$name.csv" 2>"$T/$name.err"; then
		echo "FAIL $name: memprof report failed: $(cat "$T/$name.err")"
		fail=1
		continue
	fi
	if [ -s "$T/$name.err" ]; then
		echo "FAIL $name: unexpected messages: $(cat "$T/$name.err")"
		fail=1
	fi
	# lost samples: perf's "Total Lost Samples" against memprof's header
	want_lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\)$/\1/p' "$ref" | head -1)
	got_lost=$("$MEMPROF" report -q -i "$f" --symfs "$T/empty" --kallsyms /dev/null 2>/dev/null |
		sed -n 's/^# Total lost samples: \([0-9]*\)$/\1/p')
	if [ -n "$want_lost" ] && [ "$want_lost" != "$got_lost" ]; then
		echo "FAIL $name: lost samples: perf $want_lost, memprof '$got_lost'"
		fail=1
	fi
	if ! python3 "$CMP" "$ref" "$T/$name.csv" rows 0.01 >"$T/$name.cmp"; then
		echo "FAIL $name vs $(basename "$ref"):"
		head -20 "$T/$name.cmp"
		fail=1
	fi
	n=$((n + 1))
done
[ "$n" -ge 18 ] || { echo "FAIL: only $n fixtures found in $P"; fail=1; }

# symbolized: the binary at its recorded path inside a private symfs
sym() {
	local s=$1 b=$2 t=$T/symfs-$1 rp
	rp=$(recorded_path "$P/$s.data" "$b")
	mkdir -p "$t$(dirname "$rp")"
	cp "$P/bin/$b" "$t$rp"
	if ! "$MEMPROF" report -q -i "$P/$s.data" --symfs "$t" --kallsyms /dev/null --no-children --csv \
		>"$T/$s.sym.csv" 2>"$T/$s.sym.err"; then
		echo "FAIL $s symbolized: $(cat "$T/$s.sym.err")"
		fail=1
		return
	fi
	if ! python3 "$CMP" "$P/$s.perf-report-flat-symbolized.txt" "$T/$s.sym.csv" rows 0.01 \
		>"$T/$s.sym.cmp"; then
		echo "FAIL $s symbolized:"
		head -20 "$T/$s.sym.cmp"
		fail=1
	fi
	# resolved names must really be there (not only addresses)
	grep -q ',\.,__\|,\.,worker\|,\.,main' "$T/$s.sym.csv" || {
		echo "FAIL $s symbolized: no resolved symbol in the output"
		fail=1
	}
}
sym kdab-vector-dwarf-bdw vector_static_gcc_v9.1.0
sym kdab-vector-lbr-cfl vector_static_gcc_v9.1.0
sym kdab-parallel-zstd-zen2 parallel_static_gcc
[ $fail -eq 0 ] && echo "OK: $n fixtures and 3 symbolized references match perf"
exit $fail
