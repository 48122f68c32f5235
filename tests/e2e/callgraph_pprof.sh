#!/bin/bash
# report --pprof: on a -g recording of matmul (frame pointers), `go tool pprof` reads the
# exported file and gives memprof report's numbers: -top (flat, cum per function, for both
# sample types of the event: samples and estimated count) equals the Self and Children
# columns, -traces equals report --folded (same stacks, same counts), source lines are
# there (-lines), and inlined functions are frames of their own (-raw); on a perf record
# --call-graph dwarf recording (perf expands inlined functions there), every address with
# inlined functions has the lines of perf script's srcline field: the innermost at the
# address's line, each outer function at its inlined call's site, none 0.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
GO=${GO:-go}
CMP=$(cd "$(dirname "$0")" && pwd)/callgraph_perfcmp.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
export HOME=$T GOCACHE=$T/gocache PPROF_TMPDIR=$T PPROF_BINARY_PATH=$T/none
fail=0
command -v "$GO" >/dev/null || { echo "skip: no go (golang-go) for go tool pprof"; exit 77; }
if ! "$PERF" record -q -g -e cpu-clock -F 2000 -o mm.data "$KERNELS/fp/matmul" -N 256 -a all -r 2 \
	>/dev/null 2>rec.err; then
	echo "skip: perf record -g: $(head -1 rec.err)"
	exit 77
fi
"$MEMPROF" report -q -i mm.data --pprof mm.pb.gz 2>err || { echo "FAIL --pprof: $(cat err)"; exit 1; }
gzip -t mm.pb.gz || { echo "FAIL: not a gzip file"; exit 1; }
"$MEMPROF" report -q -i mm.data --csv >mm.csv
"$MEMPROF" report -q -i mm.data --folded >mm.folded
# sample types: cpu-clock's samples and estimated count
"$GO" tool pprof -raw mm.pb.gz >raw.txt 2>err || { echo "FAIL go tool pprof -raw: $(cat err)"; exit 1; }
grep -q 'cpu_clock/count' raw.txt || grep -q 'cpu_clock_samples/count' raw.txt ||
	{ echo "FAIL: no samples type in: $(grep -m1 -i 'samples/' raw.txt)"; fail=1; }
for i in 0 1; do
	"$GO" tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -noinlines -sample_index=$i mm.pb.gz >top$i.txt 2>err ||
		{ echo "FAIL go tool pprof -top: $(cat err)"; fail=1; continue; }
	python3 "$CMP" pproftop top$i.txt mm.csv $i >cmp.txt || { echo "FAIL -top index $i:"; cat cmp.txt; fail=1; }
done
"$GO" tool pprof -traces -noinlines -nodefraction=0 -sample_index=0 mm.pb.gz >traces.txt 2>err ||
	{ echo "FAIL go tool pprof -traces: $(cat err)"; fail=1; }
python3 "$CMP" pproftraces traces.txt mm.folded >cmp.txt || { echo "FAIL -traces vs --folded:"; cat cmp.txt; fail=1; }
# lines: the hot function's lines are in matmul.c
"$GO" tool pprof -top -lines -sample_index=0 mm.pb.gz >lines.txt 2>/dev/null
grep -q 'mm_naive .*matmul\.c:[0-9]' lines.txt || { echo "FAIL: no source line of mm_naive"; head -20 lines.txt; fail=1; }
# inline frames: main's inlined helpers (static init) are locations with two lines
python3 "$CMP" pprofinline raw.txt >cmp.txt || { echo "FAIL inline frames:"; cat cmp.txt; fail=1; }
# two events (memprof record -g -e cpu-clock,page-faults): two sample types per event, each
# index's -top equal to that event's Self and Children
if "$MEMPROF" record -g -e cpu-clock,page-faults -F 2000 -o two.data "$KERNELS/fp/matmul" \
	-N 200 -a all -r 1 >/dev/null 2>rec.err; then
	"$MEMPROF" report -q -i two.data --pprof two.pb.gz 2>err && "$MEMPROF" report -q -i two.data --csv >two.csv ||
		{ echo "FAIL --pprof of two events: $(cat err)"; fail=1; }
	"$GO" tool pprof -raw two.pb.gz >two.raw 2>/dev/null
	types=$(sed -n '/^Samples:/{n;p;q}' two.raw)
	echo "$types" | grep -q 'cpu_clock_samples/count.*cpu_clock/events.*page_faults_samples/count.*page_faults/events' ||
		{ echo "FAIL: sample types of two events: $types"; fail=1; }
	for i in 0 1 2 3; do
		"$GO" tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -noinlines \
			-sample_index=$i two.pb.gz >two$i.txt 2>err &&
			python3 "$CMP" pproftop two$i.txt two.csv $i >cmp.txt ||
			{ echo "FAIL two events -top index $i:"; cat err cmp.txt; fail=1; }
	done
else
	echo "note: memprof record -g of two events unavailable: $(tail -1 rec.err)"
fi
# lines of inlined frames against perf script's srclines (a DWARF recording)
if "$PERF" record -q --call-graph dwarf -e cpu-clock -F 1000 -o dw.data "$KERNELS/matmul" \
	-N 256 -a all -r 1 >/dev/null 2>rec.err; then
	"$MEMPROF" report -q -i dw.data --pprof dw.pb.gz 2>err || { echo "FAIL --pprof dwarf: $(cat err)"; fail=1; }
	"$GO" tool pprof -raw dw.pb.gz >dw.raw 2>err || { echo "FAIL -raw dwarf: $(cat err)"; fail=1; }
	"$PERF" script -i dw.data -F ip,sym,srcline >dw.script 2>/dev/null
	python3 "$CMP" pproflines dw.raw dw.script >cmp.txt || { echo "FAIL inlined lines:"; cat cmp.txt; fail=1; }
	grep -q 'matmul\.c:' dw.raw || { echo "FAIL: no matmul.c line in the dwarf profile"; fail=1; }
else
	echo "FAIL: perf record --call-graph dwarf: $(cat rec.err)"; fail=1
fi
[ $fail = 0 ] && echo ok
exit $fail
