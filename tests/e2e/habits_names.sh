#!/bin/bash
# Names as perf gives them (issue 28, naming):
# (1) a C++ function of a -fPIC -fno-semantic-interposition library whose symbols a version
#     script makes local has a local alias at its address (demo::work and its .localalias):
#     perf picks the alias (the longer name) and shows it without parameters or clone
#     suffix, "demo::work"; memprof report, script and annotate give that one name, no
#     "[clone .localalias]", no signature, the same share as perf report;
# (2) glibc's clone3 (assembler: gas gives __clone3, __GI___clone3 and clone3 one DWARF
#     subprogram each over the same code) in DWARF-unwound chains: perf report --children
#     says "clone3", as script does; memprof report says the same, not "__clone3 (inlined)".
#     Needs libc's debug info (libc6-dbg): skipped (77) without it.
. "$(dirname "$0")/e2e_lib.sh"
command -v g++ >/dev/null || { echo "skip: no g++"; exit 77; }
F() { echo "FAIL $*"; fail=1; }

# (1)
cat >lib.cpp <<'CPP'
#include <vector>
namespace demo {
__attribute__((noinline)) long work(const std::vector<int> &v, int k)
{
	long s = 0;
	for (int r = 0; r < k; r++)
		for (int x : v)
			s += x * r;
	return s;
}
long drive(int k)
{
	std::vector<int> v(1000, 3);
	long s = 0;
	for (int i = 0; i < 3000; i++)
		s += work(v, k + i % 3);
	return s;
}
}
CPP
printf '#include <cstdio>\nnamespace demo { long drive(int); }\nint main() { printf("%%ld\\n", demo::drive(20)); return 0; }\n' >main.cpp
echo '{ global: _ZN4demo5driveEi; local: *; };' >vs.map
g++ -O2 -g -fPIC -fno-semantic-interposition -shared -Wl,--version-script=vs.map -o libla.so lib.cpp &&
	g++ -O2 -g -o la main.cpp -L. -lla -Wl,-rpath,"$T" || { echo "FAIL cannot build"; exit 1; }
nm libla.so | grep -q ' t _ZN4demo4work.*\.localalias$' || { echo "skip: this g++ makes no .localalias"; exit 77; }
"$MEMPROF" record -q -e cpu-clock -o la.data ./la >/dev/null 2>err || { echo "FAIL record: $(cat err)"; exit 1; }
"$MEMPROF" report -i la.data --stdio --sort dso,sym 2>/dev/null | grep '\[\.\]' >rep
grep -q 'clone\|localalias\|std::vector' rep && F "report: a clone suffix or a signature: $(grep 'clone\|vector' rep)"
mp=$(awk '$3 == "libla.so" && $5 == "demo::work" { print $2 }' rep)
[ -n "$mp" ] || F "report has no demo::work row: $(cat rep)"
[ "$(grep -c 'demo::work' rep)" = 1 ] || F "demo::work in $(grep -c 'demo::work' rep) rows"
"$MEMPROF" script -i la.data 2>/dev/null | grep -c ' demo::work+0x[0-9a-f]* (libla.so)$' >n.mp
[ "$(cat n.mp)" -gt 50 ] || F "script names demo::work $(cat n.mp) times: $("$MEMPROF" script -i la.data | grep -m1 libla)"
"$MEMPROF" annotate -i la.data demo::work 2>err | head -1 | grep -q '^# libla.so:demo::work ' ||
	F "annotate demo::work: $(cat err)"
if command -v "$PERF" >/dev/null 2>&1; then
	pp=$("$PERF" report -i la.data --stdio --sort dso,sym 2>/dev/null | awk '$2 == "libla.so" && $4 == "demo::work" { print $1 }')
	[ "$pp" = "$mp" ] || F "demo::work: perf $pp, memprof $mp"
	np=$("$PERF" script -i la.data 2>/dev/null | grep -c ' demo::work+0x[0-9a-f]* (')
	[ "$np" = "$(cat n.mp)" ] || F "script names demo::work $(cat n.mp) times, perf $np"
fi

# (2)
libc=$(ldd ./la | awk '/libc.so.6/ { print $3 }')
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -z "$bid" ] || [ ! -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
	echo "skip (2): no debug info of $libc (libc6-dbg)"
	[ $fail = 0 ] && exit 77
	exit $fail
fi
printf '#include <pthread.h>\nvolatile long s;\nstatic void *run(void *a) { for (long i = 0; i < 100000000; i++) s += i; return a; }\nint main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_join(t, 0); return 0; }\n' >thr.c
cc -O1 -g -o thr thr.c -lpthread || { echo "FAIL cannot build thr"; exit 1; }
"$MEMPROF" record -q --call-graph dwarf -e cpu-clock -o t.data ./thr >/dev/null 2>err || { echo "FAIL record -g dwarf: $(cat err)"; exit 1; }
"$MEMPROF" report -i t.data --stdio --children -g none --sort sym 2>/dev/null | grep '\[\.\]' >crep
grep -q '__clone3' crep && F "report names __clone3: $(grep clone crep)"
mc=$(awk '$5 == "clone3" { print $1 }' crep)
awk -v c="${mc%\%}" 'BEGIN { exit !(c + 0 > 90) }' || F "clone3's children $mc: $(head -5 crep)"
"$MEMPROF" script -i t.data 2>/dev/null | grep -q ' clone3+0x' || F "script names no clone3"
if command -v "$PERF" >/dev/null 2>&1; then
	pc=$("$PERF" report -i t.data --stdio --children -g none --sort sym 2>/dev/null | awk '$4 == "clone3" { print $1 }')
	[ "$pc" = "$mc" ] || F "clone3: perf $pc, memprof $mc"
fi
[ $fail = 0 ] && echo "ok: C++ local aliases and assembler aliases named as perf"
exit $fail
