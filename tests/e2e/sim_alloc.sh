#!/bin/bash
# Allocation tracking in the simulator (record --sim --sim-alloc; issue 31): mpsim serves
# the workload's malloc, realloc, calloc and free through valgrind's replacement malloc
# and writes each call as perfdata's allocation records. The stand-in allocs (known
# sizes, each call in its own function) must come back with its sizes, the realloc's old
# block, the frees, and sites whose first return address lies in the calling function.
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
[ -x "${PDINFO:-/nonexistent}" ] || fail "PDINFO (tests/tools/pdinfo) not built"
gcc -O1 -g -no-pie -o allocs "${STANDINS:?}/allocs.c" || fail "cannot build allocs"
"$MEMPROF" record -q --sim --sim-alloc -e Ir,Dw -o a.data -- ./allocs >a.out 2>a.err ||
	fail "record --sim --sim-alloc: $(cat a.err)"
grep -q "allocs: 1 0" a.out || fail "allocs: $(cat a.out)"
"$PDINFO" a.data --allocs >a.txt || fail "pdinfo: $(cat a.txt)"
# the function whose range holds ADDR (nm of the non-PIE stand-in: runtime addresses)
fn_of() {
	local a=$(($1)) f="" v t n
	while read -r v t n; do
		case $t in T | t) ;; *) continue ;; esac
		[ $((16#$v)) -le $a ] && f=$n || { echo "$f"; return; }
	done < <(nm -n allocs)
}
rec() { grep "^alloc $1 .* size=$2 " a.txt | head -1; }
m=$(rec malloc 12345); r=$(rec realloc 23456); c=$(rec calloc 7000)
[ -n "$m" ] && [ -n "$r" ] && [ -n "$c" ] || fail "records: $(cat a.txt)"
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
[ "$(fn_of "$(field "$m" ip0)")" = make_obj ] || fail "malloc's site: $m"
[ "$(fn_of "$(field "$r" ip0)")" = grow ] || fail "realloc's site: $r"
[ "$(fn_of "$(field "$c" ip0)")" = zeroed ] || fail "calloc's site: $c"
[ "$(field "$r" old)" = "$(field "$m" addr)" ] || fail "realloc's old block is not malloc's: $m / $r"
# both blocks freed, after they were made; all on the process's thread
grep -q "^alloc free .* addr=$(field "$r" addr) " a.txt || fail "realloc'd block not freed"
grep -q "^alloc free .* addr=$(field "$c" addr) " a.txt || fail "calloc'd block not freed"
[ "$(field "$m" pid)" = "$(field "$m" tid)" ] || fail "malloc's thread: $m"
check "$(field "$m" time) < $(field "$r" time) && $(field "$r" time) < $(field "$c" time)" \
	"times out of order: $m / $r / $c"
# perf reads the file as without the records
"$PERF" report -i a.data --stdio >/dev/null 2>p.err || fail "perf report: $(cat p.err)"
# callgrind has no replacement malloc here
"$MEMPROF" record --sim --sim-engine=callgrind --sim-alloc -o x.data -- true >x.out 2>&1 &&
	fail "--sim-alloc with callgrind accepted"
grep -q "allocation tracking comes from memprof's valgrind tool (mpsim), not callgrind" x.out ||
	fail "callgrind --sim-alloc: $(cat x.out)"
# --alloc with --sim is the simulator's tracking: the same records as --sim-alloc
"$MEMPROF" record -q --sim --alloc -e Ir,Dw -o b.data -- ./allocs >b.out 2>b.err ||
	fail "record --sim --alloc: $(cat b.err)"
"$PDINFO" b.data --allocs >b.txt || fail "pdinfo: $(cat b.txt)"
[ "$(grep -c '^alloc ' b.txt)" = "$(grep -c '^alloc ' a.txt)" ] && grep -q "^alloc realloc .* size=23456 " b.txt ||
	fail "--sim --alloc: $(grep -c '^alloc ' b.txt) records, --sim-alloc $(grep -c '^alloc ' a.txt)"
echo "ok"
