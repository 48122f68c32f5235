#!/bin/bash
# annotate of a function with an inlined helper defined far above it (issue 28, item 7):
# only the lines of the function and of the helper, as perf's annotate shows only the lines
# of what is in the function; a "..." line where the others are left out. The TUI's TAB
# visits the hot lines only.
source "$(dirname "$0")/record_lib.sh"
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
S=$(dirname "$0")/../standins
gcc -O2 -g -o inl "$S/inlspan.c" || fail "cannot build the stand-in"
"$MEMPROF" record --sim -e Ir -o i.data -- ./inl 200 >/dev/null 2>rec.err || fail "record --sim: $(cat rec.err)"
"$MEMPROF" annotate -i i.data work >a.txt 2>a.err || fail "annotate work: $(cat a.err)"
grep -q OTHER a.txt && fail "annotate work prints the lines between the helper and work: $(grep -c OTHER a.txt) OTHER lines"
ln() { grep -n "$1" "$S/inlspan.c" | head -1 | cut -d: -f1; }
for l in "$(ln 's += v\[i\] \* 3;')" "$(ln 'long work(long')" "$(ln 't += helper(v, n);')"; do
	grep -Eq "^.{2}[ 0-9.%]* : +$l  " a.txt || { cat a.txt; fail "annotate work: line $l missing"; }
done
grep -Eq '^ + :   \.\.\.$' a.txt || { cat a.txt; fail "annotate work: no '...' where lines are left out"; }
# every line perf's annotate attributes to work is printed
if command -v "${PERF:-perf}" >/dev/null; then
	"${PERF:-perf}" annotate -i i.data --stdio -l work 2>/dev/null | grep -o 'inlspan.c:[0-9]*' | sort -u |
		cut -d: -f2 >perf.lines
	while read -r l; do
		grep -Eq "^.{2}[ 0-9.%]* : +$l  " a.txt || fail "perf annotate shows line $l, memprof does not"
	done <perf.lines
fi
# the TUI's TAB goes round the hot lines only (the '*' and '=>' lines), not every line
# with samples (main: "hot 2/9")
nhot=$(grep -Ec '^(=>|\* )' a.txt)
"$MEMPROF" tui -i i.data --size 100x30 --batch "/work<ENTER><ENTER><TAB>" >t.txt 2>t.err || fail "tui: $(cat t.err)"
msg=$(tail -1 t.txt)
case $msg in "hot 2/$nhot: line "*) ;; *) fail "tui TAB: '$msg', want 'hot 2/$nhot' (the $nhot hot lines)";; esac
echo "annotate_inline_span: ok ($(grep -c '' perf.lines 2>/dev/null) lines of perf annotate, all shown)"
