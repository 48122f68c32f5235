#!/bin/bash
# perf report habits with call chains (issue 28.3), on perf's own -g recording of matmul
# (frame pointers, page-faults with a period of 1: the same samples every run):
# (1) `--no-children -g caller` and `--no-children -g` (perf's callee default) print the
#     self table with its trees, every row and tree line equal to perf's (the Command column
#     and memprof's Samples column aside);
# (2) `--no-children -g none`: the self rows (Samples, Overhead), no Children column, no trees;
# (3) `--sort sym,dso -g none`: the Symbol column before Shared Object, with and without
#     children; -g alone takes no value (perf's optional SPEC);
# (4) report's -n, --header, --header-only and --percentage relative|absolute (issue 28.11):
#     with --dso libc.so.6 the shares equal perf report's in both modes, --header-only
#     prints the header and no table.
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}"

if ! "$PERF" record -q -g -e page-faults -c 1 -o pf.data "$KERNELS/fp/matmul" >/dev/null 2>probe.err; then
	echo "skip: perf record -g: $(head -1 probe.err)"
	exit 77
fi

# perf's rows without the Command column, memprof's without Samples; trees as they are
norm_perf() { grep -v '^$' | grep -v '^#' | sed -E 's/^ +([0-9.]+%) +\S+ +(\S+) +(\[.\] .*\S) *$/\1 \2 \3/'; }
norm_mp() { grep -v '^$' | grep -v '^#' | sed -E 's/^ +[0-9]+ +([0-9.]+%) +(\S+) +(\[.\] .*\S) *$/\1 \2 \3/'; }

# (1)
for g in caller callee ""; do
	"$PERF" report -i pf.data --no-children ${g:+-g $g} --stdio 2>/dev/null | norm_perf >p.$g.txt
	"$MEMPROF" report -i pf.data --no-objects --no-children -g $g >m.$g.raw 2>err ||
		{ echo "FAIL --no-children -g $g: $(cat err)"; fail=1; continue; }
	norm_mp <m.$g.raw >m.$g.txt
	n=$(grep -c -- '---' p.$g.txt)
	[ "$n" -ge 5 ] || { echo "FAIL perf's --no-children -g $g has $n trees"; fail=1; }
	if ! diff p.$g.txt m.$g.txt >d.$g; then
		echo "FAIL --no-children -g $g differs from perf ($(grep -c '^[<>]' d.$g) lines):"
		head -20 d.$g
		fail=1
	fi
	grep -q '^#   Samples  Overhead  Shared Object' m.$g.raw && ! grep -q Children m.$g.raw ||
		{ echo "FAIL --no-children -g $g: not the self table"; sed -n 1,5p m.$g.raw; fail=1; }
done

# (2)
"$MEMPROF" report -i pf.data --no-objects --no-children -g none >none.txt 2>err
"$MEMPROF" report -i pf.data --no-objects --no-children --sort dso,sym -g none >none2.txt 2>>err
"$PERF" report -i pf.data --no-children -g none --stdio 2>/dev/null | norm_perf >pnone.txt
if grep -q -e Children -e '---' none.txt || ! norm_mp <none.txt | diff -q pnone.txt - >/dev/null; then
	echo "FAIL --no-children -g none is not perf's self table: $(cat err)"
	norm_mp <none.txt | diff pnone.txt - | head
	fail=1
fi

# (3)
for nc in "" --no-children; do
	"$MEMPROF" report -i pf.data --no-objects $nc --sort sym,dso -g none >sd.txt 2>err
	hdr=$(grep -m1 'Symbol' sd.txt)
	case $hdr in
	*Symbol*Shared\ Object*) ;;
	*) echo "FAIL --sort sym,dso -g none $nc: columns '$hdr'"; fail=1 ;;
	esac
	row=$(grep -m1 '\[\.\] mm_transposed' sd.txt)
	[[ $row == *"[.] mm_transposed"*matmul* ]] ||
		{ echo "FAIL --sort sym,dso -g none $nc: row '$row'"; fail=1; }
done

# (4)
for pc in relative absolute; do
	"$PERF" report -i pf.data --no-children --dso libc.so.6 --percentage $pc --stdio 2>/dev/null |
		awk '/^ +[0-9.]+%/ { print $1, $NF }' >p.$pc
	"$MEMPROF" report -i pf.data --no-objects --no-children -n --header --dso libc.so.6 --percentage $pc -g none \
		2>err | awk '/^ +[0-9]+ +[0-9.]+%/ { print $2, $NF }' >m.$pc
	[ -s p.$pc ] && diff p.$pc m.$pc >/dev/null ||
		{ echo "FAIL --percentage $pc differs from perf's: $(cat err)"; diff p.$pc m.$pc | head -5; fail=1; }
done
"$MEMPROF" report -i pf.data --header-only >ho.txt 2>err
grep -q '^# Events:' ho.txt && ! grep -q -e '^# By' -e '\[\.\]' ho.txt ||
	{ echo "FAIL --header-only: $(cat err; head -3 ho.txt)"; fail=1; }

[ $fail = 0 ] && echo "ok: --no-children with -g, --sort sym,dso -g none, -n, --header-only, --percentage as perf"
exit $fail
