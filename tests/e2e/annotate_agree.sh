#!/bin/bash
# One meaning per number: annotate's %all (share of the recording) and %func (share of the
# function) are labelled, and the TUI's annotate shows the same numbers on every line
# ("percent of function", t: "percent of recording"); report --sort srcline counts skidding
# events one instruction back as annotate does, so both give the hottest line the same
# share, and both headers say so. On cachebench's walk, sampled with cpu-clock (skids).
source "$(dirname "$0")/record_lib.sh"
"$MEMPROF" record -e cpu-clock -c 100000 -o cb.data -- "$KERNELS/cachebench" -s 32M -o random -r 2 \
	>/dev/null 2>rec.err || fail "record: $(cat rec.err)"
"$MEMPROF" annotate -i cb.data walk >a.txt 2>a.err || fail "annotate: $(cat a.err)"
grep -q '^# %all: share of the event in the whole recording; %func: share of the event in this function' a.txt ||
	fail "no legend: $(head -6 a.txt)"
grep -Eq '^#  +samples +%all +%func :' a.txt || fail "column heads: $(grep '^#  ' a.txt)"
grep -q "^# note: .*moved back one instruction (at a loop's head: to its closing branch), as report --sort srcline counts them" a.txt || fail "skid note"
# per source line: "LINE ALL FUNC" from the CLI, from the TUI in both percent modes; on walk
# (one hot load) and on main (list setup inlined from other lines, a second source file): the
# TUI drawn tall enough to show every line of the function
agree() { # SYMBOL
	"$MEMPROF" annotate -i cb.data "$1" >c.txt 2>c.err || fail "annotate $1: $(cat c.err)"
	awk '!/^#/ && / : +[0-9]+  / { for (i = 1; i <= NF; i++) if ($i == ":") break;
		if ($(i - 1) ~ /%$/) { a = $(i - 2); f = $(i - 1); sub(/%/, "", a); sub(/%/, "", f); print $(i + 1), a, f } }' c.txt >cli.rows
	[ -s cli.rows ] || fail "no counted lines in $1: $(cat c.txt)"
	tui_rows "$1" "" >tf.rows
	tui_rows "$1" "ttt" >ta.rows
	head -1 t.txt | grep -q 'percent of recording' || fail "tui title: $(head -1 t.txt)"
	awk '{ print $1, $3 }' cli.rows | diff - tf.rows >d.out || fail "$1: %func differs from the TUI's percent of function: $(cat d.out)"
	awk '{ print $1, $2 }' cli.rows | diff - ta.rows >d.out || fail "$1: %all differs from the TUI's percent of recording: $(cat d.out)"
	echo "CLI and TUI agree on $(wc -l <cli.rows) lines of $1"
}
tui_rows() { # SYMBOL KEYS: "LINE PCT" of each counted line
	"$MEMPROF" tui -i cb.data --size 160x400 --batch "/$1<ENTER><ENTER>$2" >t.txt 2>t.err || fail "tui: $(cat t.err)"
	awk 'NR > 2 { sub(/^> ?/, " ") } NR > 2 && $1 ~ /^[0-9.]+%$/ { sub(/%/, "", $1); n = $2 == "*" ? $3 : $2; print n, $1 }' t.txt
}
agree walk
agree main
[ "$(wc -l <cli.rows)" -ge 3 ] || fail "main has $(wc -l <cli.rows) counted lines: too few to compare"
# report --sort srcline: the hottest line, its share equal to annotate's %all
hot=$(awk '/^=>/ { for (i = 1; i <= NF; i++) if ($i == ":") { print $(i + 1), $(i - 2); exit } }' a.txt)
want=$(grep -n 'HOT: pointer chase' "$(dirname "$0")/../../kernels/cachebench.c" | cut -d: -f1)
[ "${hot% *}" = "$want" ] || fail "annotate's hottest line ${hot% *}, want $want"
"$MEMPROF" report -i cb.data --sort srcline --no-objects >r.txt 2>&1 || fail "report: $(cat r.txt)"
grep -q '^# Skid: samples of skidding events .* as annotate counts them' r.txt || fail "report header says no skid rule"
got=$(awk '$3 == "cachebench.c:'"$want"'" { print $2 }' r.txt)
[ "$got" = "${hot#* }" ] || fail "report --sort srcline gives line $want $got, annotate ${hot#* }"
echo "hottest line $want: annotate and report both ${hot#* }"
# --no-skid on both: at the sampled address, as perf; they still agree
"$MEMPROF" annotate -i cb.data --no-skid walk >an.txt || fail "annotate --no-skid"
"$MEMPROF" report -i cb.data --sort srcline --no-objects --no-skid >rn.txt || fail "report --no-skid"
grep -q '^# Skid' rn.txt && fail "--no-skid report still states the skid rule"
# (the counted lines: a share before the ':'; the function's first line has its total in a comment)
n=0
for l in $(awk '!/^#/ && / : +[0-9]+  / { for (i = 3; i <= NF; i++) if ($i == ":" && $(i - 1) ~ /%$/) print $(i + 1) }' an.txt); do
	a=$(awk -v l="$l" '!/^#/ { for (i = 1; i <= NF; i++) if ($i == ":" && $(i + 1) == l) print $(i - 2) }' an.txt)
	r=$(awk '$3 == "cachebench.c:'"$l"'" { print $2 }' rn.txt)
	[ -n "$a" ] && [ "$a" = "$r" ] || fail "--no-skid line $l: annotate $a, report $r"
	n=$((n + 1))
done
[ $n -ge 1 ] || fail "--no-skid: no counted line in annotate: $(cat an.txt)"
echo "--no-skid: annotate and report agree on $n lines"
echo ok
