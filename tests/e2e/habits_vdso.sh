#!/bin/bash
# DWARF unwinding through the vDSO in memprof's own recordings (issue 28.1): a stand-in
# that calls clock_gettime in a loop (habits_clockloop.c, no frame pointers), recorded by
# memprof record --call-graph dwarf:
# (1) the recording names the vDSO by its build-id and record keeps a copy in the
#     build-id cache (PERF_BUILDID_DIR/[vdso]/<build-id>/vdso, 0600), as perf record does;
#     with perf's link to it (.build-id/xx/rest), and memprof archive packs it;
# (2) memprof report gives inner, outer and main the Children share perf report gives
#     them on the same file, within 0.3 points (perf reading memprof's cache copy): over
#     90%, where the unwinding used to stop at [vdso] (3%).
. "$(dirname "$0")/e2e_lib.sh"
SRC=$E2E/habits_clockloop.c
export PERF_BUILDID_DIR=$T/cache

cc -O2 -g -fomit-frame-pointer -o clockloop "$SRC" || { echo "skip: no C compiler"; exit 77; }
"$MEMPROF" record -q --call-graph dwarf -e cpu-clock -o m.data ./clockloop >/dev/null 2>err ||
	{ echo "FAIL memprof record: $(cat err)"; exit 1; }

# (1)
bid=$("$PERF" buildid-list -i m.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
if [ -z "$bid" ]; then
	echo "FAIL the recording names no [vdso] build-id"
	fail=1
else
	f="cache/[vdso]/$bid/vdso"
	[ -f "$f" ] && [ "$(stat -c %a "$f")" = 600 ] && head -c4 "$f" | grep -q ELF ||
		{ echo "FAIL no 0600 ELF copy at $f: $(find cache -path '*vdso*')"; fail=1; }
	[ "$(readlink "cache/.build-id/${bid:0:2}/${bid:2}")" = "../../[vdso]/$bid" ] ||
		{ echo "FAIL no .build-id link to the vDSO's copy"; fail=1; }
	"$MEMPROF" archive -i m.data -o a.tar >/dev/null 2>err && tar tf a.tar | grep -qxF "[vdso]/$bid/vdso" ||
		{ echo "FAIL archive does not pack the vDSO: $(cat err)"; fail=1; }
fi

# (2)
children() { awk -v s="$2" '$NF == s && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$1"; }
"$PERF" report -i m.data --stdio --children --sort sym -g none 2>/dev/null >perf.txt
"$MEMPROF" report -i m.data --sort sym -g none >mp.txt 2>err ||
	{ echo "FAIL memprof report: $(cat err)"; fail=1; }
for s in inner outer main; do
	p=$(children perf.txt "$s") m=$(children mp.txt "$s")
	# equal in 55 recordings by hand; once, in a landing's loaded test run, main was
	# 99.15% against perf's 99.27% (a few samples of some 800 that the unwinders ended
	# differently; not reproduced): 0.3 points, as callgraph_perf's DWARF trees
	python3 -c "import sys; p, m = float('${p:-0}'), float('${m:-0}'); sys.exit(not (p > 90 and abs(p - m) <= 0.3))" ||
		{ echo "FAIL $s: Children ${m:-none}%, perf ${p:-none}%"; fail=1; }
done

[ $fail = 0 ] && echo "ok: the vDSO kept and unwound through, as perf"
exit $fail
