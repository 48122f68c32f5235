#!/bin/bash
# memprof c2c report's browser (issue 26), on kernels/falseshare under c2c record --sim (two
# threads, their counters 8 bytes apart, the allocation site --sim-alloc):
#  - --batch: the first view is the Shared Data Cache Line Table, its rows the text
#    report's (--stdio) rows; ENTER opens line 0's Pareto by offset: the text report's rows
#    for that line (offsets 0x0 and 0x8), the verdict (false sharing) under them, the title
#    naming the line and the verdict; q comes back, q again quits; } scrolls the rows;
#  - on a terminal (tmux) memprof c2c report without options opens the browser, Enter shows
#    the offsets, q q leaves with status 0; with stdout not a terminal, the text (the same
#    bytes as --stdio); --tui without a terminal and --tui with --csv are usage errors (2).
# Skipped (77) where mpsim is not built or writes no memory samples.
. "$(dirname "$0")/record_lib.sh"
[ -n "${MEMPROF_VGTOOL:-}" ] && [ -x "$MEMPROF_VGTOOL" ] || { echo "SKIP: mpsim not built"; exit 77; }
export MEMPROF_VGTOOL
TMUX=${TMUX_BIN:-tmux}
if ! "$MEMPROF" record --sim -d -o probe.data -- true >/dev/null 2>probe.err; then
	grep -q "the simulator does not write them" probe.err && { echo "SKIP: record --sim -d writes no memory samples here"; exit 77; }
	fail "record --sim -d: $(cat probe.err)"
	exit 1
fi
# mpsim's threads now and then run apart and share nothing: at most 4 runs
for try in 1 2 3 4; do
	"$MEMPROF" c2c record --sim --sim-alloc -c 97 -o fs.data -- "$KERNELS/falseshare" -T 2 -d 8 -i 100000 \
		>rec.out 2>rec.err || { fail "c2c record --sim: $(cat rec.err)"; exit 1; }
	"$MEMPROF" c2c report -i fs.data --csv -c tid >fs.csv || { fail "c2c report --csv"; exit 1; }
	[ "$(awk -F, '$1 == 0 && $12 > 0' fs.csv | wc -l)" -gt 0 ] && break
	echo "run $try: no HITM on line 0: again"
done
"$MEMPROF" c2c report -i fs.data --stdio >stdio.txt || fail "--stdio"
"$MEMPROF" c2c report -i fs.data >plain.txt || fail "report without a terminal"
cmp -s stdio.txt plain.txt || fail "without a terminal the report is not --stdio's: $(diff stdio.txt plain.txt | head -5)"
nlines=$(sed -n '/Shared Data Cache Line Table *$/,/Shared Cache Line Distribution Pareto/p' stdio.txt | grep -c '^ *[0-9]')
[ "$nlines" -ge 1 ] || fail "no line in the text report: $(head -40 stdio.txt)"

tui() { "$MEMPROF" c2c report -i fs.data --batch "$1" --size "$2" 2>&1; }
# the cache-line table: title, the text report's rows (the screen is 400 wide: no cut)
tui '' 400x20 >t0.txt
head -1 t0.txt | grep -q "^ Shared Data Cache Line Table of fs.data | $nlines lines by Tot HITM, 64-byte lines" ||
	fail "table title: $(head -1 t0.txt)"
sed -n 2p t0.txt | grep -q '^ # Index  *Address  Node  PA cnt' || fail "table header: $(sed -n 2p t0.txt)"
row0=$(grep -m1 '^ *0  *0x[0-9a-f]*  *N/A' stdio.txt)
[ "$(sed -n 3p t0.txt)" = ">$row0" ] ||
	fail "line 0's row differs from --stdio's: '$(sed -n 3p t0.txt)' vs '$row0'"
tail -1 t0.txt | grep -q '^ENTER offsets  { } scroll  h help  q quit$' || fail "status: $(tail -1 t0.txt)"

# ENTER: line 0's Pareto rows, as the text report has them, and the verdict
tui '<ENTER>' 400x30 >t1.txt
cl=$(awk -F, '$1 == 0 { print $2; exit }' fs.csv)
head -1 t1.txt | grep -q "^ Cacheline $cl (line 0) | .* | false" || fail "Pareto title (line $cl): $(head -1 t1.txt)"
sed -n '/^  => /q; /Shared Cache Line Distribution Pareto/,$p' stdio.txt |
	awk '/^  -----/ { n++; next } n == 2' >p0.txt # line 0's offset rows
[ -s p0.txt ] || fail "no Pareto rows in the text report"
while IFS= read -r r; do
	grep -qxF " $r" t1.txt || grep -qxF ">$r" t1.txt || fail "Pareto row missing from the browser: '$r': $(cat t1.txt)"
done <p0.txt
offs=$(awk '$6 ~ /^0x/ { print $6 }' p0.txt | sort -u | tr '\n' ' ')
[ "$offs" = "0x0 0x8 " ] || fail "line 0's offsets '$offs'"
grep -q '^ => false sharing: different threads write different offsets' t1.txt || fail "no verdict: $(cat t1.txt)"
tail -1 t1.txt | grep -q '^{ } scroll  h help  q back$' || fail "Pareto status: $(tail -1 t1.txt)"
# q back to the lines, q again quits (the screen then is the table's)
tui '<ENTER>q' 120x10 | head -1 | grep -q '^ Shared Data Cache Line Table' || fail "q back"
# } scrolls: 16 columns
tui '}' 120x10 >t2.txt
tail -1 t2.txt | grep -q '^columns from 17 of ' || fail "}: $(tail -1 t2.txt)"
[ "$(sed -n 3p t2.txt | cut -c2-)" = "$(sed -n 3p t0.txt | cut -c18-136 | sed "s/ *$//")" ] ||
	fail "} did not scroll the row by 16: '$(sed -n 3p t2.txt)'"

# usage errors
"$MEMPROF" c2c report -i fs.data --tui </dev/null >o.txt 2>e.txt
[ $? = 2 ] && grep -q -- '--tui needs a terminal' e.txt || fail "--tui without a terminal: $(cat e.txt)"
"$MEMPROF" c2c report -i fs.data --tui --csv >o.txt 2>e.txt
[ $? = 2 ] && grep -q 'exclude each other' e.txt || fail "--tui --csv: $(cat e.txt)"

# a terminal: the browser without options
if command -v "$TMUX" >/dev/null; then
	SOCK=$T/tmux.sock
	trap '"$TMUX" -S "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT
	"$TMUX" -S "$SOCK" new-session -d -s c2c -x 120 -y 24 "env -i PATH=$PATH HOME=$T TERM=screen bash --norc --noprofile"
	screen() { "$TMUX" -S "$SOCK" capture-pane -p -t c2c; }
	wait_for() {
		for _ in $(seq 600); do
			screen | grep -qE -- "$1" && return 0
			sleep 0.1
		done
		fail "timed out waiting for /$1/: $(screen)"
		exit 1
	}
	"$TMUX" -S "$SOCK" send-keys -t c2c "PS1='ready\$ '; cd $T" Enter
	wait_for '^ready\$ ?$'
	"$TMUX" -S "$SOCK" send-keys -t c2c "$MEMPROF c2c report -i fs.data; echo EXIT=\$?" Enter
	wait_for '^ Shared Data Cache Line Table of fs.data'
	"$TMUX" -S "$SOCK" send-keys -t c2c Enter
	wait_for "^ Cacheline $cl \\(line 0\\)"
	"$TMUX" -S "$SOCK" send-keys -t c2c q
	wait_for '^ Shared Data Cache Line Table of fs.data'
	"$TMUX" -S "$SOCK" send-keys -t c2c q
	wait_for '^EXIT=0$'
else
	echo "note: no tmux: the terminal part is not run"
fi
echo ok
