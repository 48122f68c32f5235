#!/bin/bash
# JIT code named through perf maps (issue 28.8): a stand-in JIT (habits_jitmap.c) writes two
# functions into anonymous executable memory and names them in /tmp/perf-PID.map as node
# --perf-basic-prof and python3.12 -X perf do. Recorded by memprof and by perf:
# (1) report's rows equal perf report's ([JIT] tid PID, jit_hot about 3/4, the node-style
#     name whole), and --csv and --json name them;
# (2) script names jit_hot in as many samples as perf script;
# (3) annotate jit_hot finds it; tui --batch and diff show it.
# x86-64 only (the stand-in writes x86-64 code): skipped (77) elsewhere.
[ "$(uname -m)" = x86_64 ] || { echo "skip: the stand-in JIT writes x86-64 code"; exit 77; }
. "$(dirname "$0")/e2e_lib.sh"
SRC=$E2E/habits_jitmap.c
maps=()
trap 'rm -rf "$T" "${maps[@]}"' EXIT

cc -O1 -o jitmap "$SRC" || { echo "skip: no C compiler"; exit 77; }
"$MEMPROF" record -q -e cpu-clock -o m.data ./jitmap 60000000 >m.out 2>err ||
	{ echo "FAIL memprof record: $(cat err)"; exit 1; }
maps+=("$(cat m.out)")
if "$PERF" record -q -e cpu-clock -o p.data ./jitmap 60000000 >p.out 2>/dev/null; then
	maps+=("$(cat p.out)")
	datas="m.data p.data"
else
	datas=m.data
fi

for d in $datas; do
	# (1)
	"$PERF" report -i $d --stdio --sort dso,sym 2>/dev/null | grep -v '^#' | grep -v '^$' |
		sed -E 's/^ +//; s/ +$//; s/  +/ /g' | grep JIT >perf.$d
	"$MEMPROF" report -i $d --no-objects --sort dso,sym 2>err | grep 'JIT.*\[\.\]' |
		sed -E 's/^ +[0-9]+ +//; s/ +$//; s/  +/ /g' >mp.$d
	[ "$(wc -l <perf.$d)" = 2 ] || { echo "FAIL perf shows $(wc -l <perf.$d) JIT rows in $d"; fail=1; }
	diff perf.$d mp.$d >/dev/null || { echo "FAIL $d: JIT rows differ from perf's:"; diff perf.$d mp.$d; fail=1; }
	"$MEMPROF" report -i $d --csv | grep -q '^\[JIT\] tid [0-9]*,\.,jit_hot,' ||
		{ echo "FAIL $d: --csv names no jit_hot"; fail=1; }
	"$MEMPROF" report -i $d --json | grep -q '"LazyCompile:\*jit_cold app.js:2"' ||
		{ echo "FAIL $d: --json names no jit_cold"; fail=1; }
	# (2)
	np=$("$PERF" script -i $d 2>/dev/null | grep -c ' jit_hot+')
	nm=$("$MEMPROF" script -i $d 2>/dev/null | grep -c ' jit_hot+')
	[ "$np" -gt 100 ] && [ "$np" = "$nm" ] ||
		{ echo "FAIL $d: script names jit_hot $nm times, perf $np"; fail=1; }
	# (3)
	"$MEMPROF" annotate -i $d jit_hot >ann 2>err && head -1 ann | grep -q 'JIT\] tid [0-9]*:jit_hot ' ||
		{ echo "FAIL $d: annotate jit_hot: $(head -2 err ann)"; fail=1; }
	"$MEMPROF" tui -i $d --batch '' 2>err | grep -q 'jit_hot' ||
		{ echo "FAIL $d: tui shows no jit_hot: $(cat err)"; fail=1; }
	"$MEMPROF" diff $d $d 2>err | grep -q '\[JIT\] tid [0-9]* *\[\.\] jit_hot' ||
		{ echo "FAIL $d: diff shows no jit_hot: $(cat err)"; fail=1; }
done

[ $fail = 0 ] && echo "ok: JIT functions named from perf maps, as perf"
exit $fail
