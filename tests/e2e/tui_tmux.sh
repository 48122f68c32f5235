#!/bin/bash
# Drive the real `memprof tui` in a tmux pane on a recording of cachebench: walk() is the
# first symbol, Enter annotates it at the pointer-chase line, TAB goes to the next hot
# line, the assembly view shows instructions with counts, q leaves with status 0 and the
# terminal as it was. Then the same without colour (TERM=vt100) and after SIGTERM.
# Environment: MEMPROF, KERNELS, SRCDIR (the source tree), PERF, TMUX_BIN.
set -euo pipefail

: "${MEMPROF:?}" "${KERNELS:?}" "${SRCDIR:?}"
PERF=${PERF:-perf}
TMUX=${TMUX_BIN:-tmux}
command -v "$TMUX" >/dev/null || { echo "FAIL: tmux is not installed"; exit 1; }

T=$(mktemp -d)
SOCK=$T/tmux.sock
cleanup() {
	"$TMUX" -S "$SOCK" kill-server 2>/dev/null || true
	sleep 0.2
	rm -rf "$T" 2>/dev/null || true
}
trap cleanup EXIT
cd "$T"

fail() {
	echo "FAIL: $*"
	echo "---- screen ----"
	cat "$T/screen" 2>/dev/null || true
	exit 1
}

# The recording: memprof's own record when it works, else perf's (same file format).
DATA=$T/cb.data
# a fixed amount of work (about 0.8 s of CPU here), so that the sample counts do not
# depend on the load
WORKLOAD=("$KERNELS/cachebench" -s 16M -o random -r 10)
if ! "$MEMPROF" record -e cpu-clock -c 100000 -o "$DATA" "${WORKLOAD[@]}" >rec.out 2>&1 ||
	[ ! -s "$DATA" ]; then
	echo "note: memprof record failed ($(tail -1 rec.out)); recording with perf"
	"$PERF" record -q -e cpu-clock -c 100000 -o "$DATA" "${WORKLOAD[@]}" >rec.out 2>&1 ||
		fail "perf record: $(tail -3 rec.out)"
fi

HOT=$(grep -n 'HOT: pointer chase' "$SRCDIR/kernels/cachebench.c" | cut -d: -f1)
[ -n "$HOT" ] || fail "no HOT: pointer chase line in cachebench.c"

capture() { "$TMUX" -S "$SOCK" capture-pane -p -t tui >"$T/screen"; }
keys() { "$TMUX" -S "$SOCK" send-keys -t tui "$@"; }
# wait_for REGEX: until the screen shows it (the 90-s bound is a safety net below the
# test's timeout: under load the screen may be slow to come)
wait_for() {
	for _ in $(seq 900); do
		capture
		if grep -qE -- "$1" "$T/screen"; then return 0; fi
		sleep 0.1
	done
	fail "timed out waiting for /$1/"
}
# the cursor row: the body row marked '>' in column 0
cursor_row() { capture; grep -E '^>' "$T/screen" | head -1; }

"$TMUX" -S "$SOCK" new-session -d -s tui -x 80 -y 24 "env -i PATH=$PATH HOME=$T TERM=screen bash --norc --noprofile"
keys "PS1='ready\$ '; cd $T; stty -a > stty.before" Enter
wait_for '^ready\$ ?$'
keys "$MEMPROF tui -i $DATA; echo EXIT=\$?" Enter

# 1. the symbol list, walk first
wait_for 'Symbols: [0-9]+ samples'
row=$(cursor_row)
echo "first row: $row"
[[ "$row" =~ walk ]] || fail "walk is not the first symbol: '$row'"
sed -n 3p "$T/screen" | grep -q '^>.*walk' || fail "the first body row is not walk"
pct=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+%' | head -1 | tr -d %)
awk -v p="$pct" 'BEGIN { exit !(p > 50) }' || fail "walk has only $pct%"

# 2. Enter: annotate, the cursor on the pointer-chase line
keys Enter
wait_for 'Annotate walk'
row=$(cursor_row)
echo "hottest: $row"
[[ "$row" =~ HOT:\ pointer\ chase ]] || fail "the cursor is not on the HOT line: '$row'"
[[ "$row" =~ [[:space:]]$HOT[[:space:]] ]] || fail "the cursor row is not line $HOT: '$row'"
grep -q "hot 1/[0-9]*: line $HOT" "$T/screen" || fail "status does not name hot line $HOT"
[[ "$row" =~ \*\ +$HOT[[:space:]] ]] || fail "line $HOT is not marked hot (*): '$row'"
hotpct=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+%' | head -1 | tr -d %)

# 3. TAB: the next hot line, with fewer samples. walk() may have one hot line only (its
# loop is one load, and the skid rule puts every sample on it), so TAB is tried on main(),
# whose list setup and verification loops are hot lines of their own: q back to the list,
# /main filters it, Enter annotates main.
keys q
wait_for 'Symbols: [0-9]+ samples'
keys / ; keys "main" Enter
wait_for '^>.* main( |$)'
keys Enter
wait_for 'Annotate main'
wait_for 'hot 1/[0-9]+: line [0-9]+'
mainhot=$(grep -oE 'hot 1/[0-9]+: line [0-9]+' "$T/screen" | awk '{print $NF}')
row=$(cursor_row)
mainpct=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+%' | head -1 | tr -d %)
# TAB visits the hot lines only (issue 28.7): main may have one (then TAB stays on it)
nmainhot=$(grep -oE 'hot 1/[0-9]+: line' "$T/screen" | head -1 | sed 's|hot 1/||; s|: line||')
keys Tab
if [ "${nmainhot:-0}" -ge 2 ]; then
	wait_for 'hot 2/[0-9]+: line'
	row=$(cursor_row)
	echo "next hot: $row"
	line2=$(grep -oE 'hot 2/[0-9]+: line [0-9]+' "$T/screen" | awk '{print $NF}')
	[ "$line2" != "$mainhot" ] || fail "TAB did not move from line $mainhot"
	[[ "$row" =~ [[:space:]]$line2[[:space:]] ]] || fail "the cursor row is not line $line2: '$row'"
	[[ "$row" =~ (\*|=>)\ +$line2[[:space:]] ]] || fail "TAB went to line $line2, not marked hot: '$row'"
	pct2=$(echo "$row" | grep -oE '[0-9]+\.[0-9]+%' | head -1 | tr -d %)
	awk -v a="$pct2" -v b="$mainpct" 'BEGIN { exit !(a <= b) }' || fail "line $line2 ($pct2%) is hotter than $mainhot ($mainpct%)"
else
	wait_for "hot 1/1: line $mainhot"
	line2=$mainhot
fi
keys q
wait_for 'Symbols: [0-9]+ samples'
keys Escape
wait_for 'walk'
keys Home
wait_for '^>.*walk'
keys Enter
wait_for 'Annotate walk'

# 4. assembly: s shows instructions, the hottest with a share; t shows sample counts
keys H
wait_for "hot 1/[0-9]+: line $HOT"
keys s
wait_for 'assembly only'
ninsn=$(grep -cE '^[> ] +([0-9]+\.[0-9]+%)? +[0-9a-f]+:  [a-z]' "$T/screen" || true)
[ "$ninsn" -ge 3 ] || fail "the assembly view shows $ninsn instructions"
keys H
wait_for 'hot 1/[0-9]+: [0-9a-f]+'
row=$(cursor_row)
echo "hottest insn: $row"
[[ "$row" =~ [0-9]+\.[0-9]+%\ +[0-9a-f]+:\ \ [a-z] ]] || fail "hottest instruction has no share: '$row'"
keys t
wait_for 'showing samples'
row=$(cursor_row)
echo "samples: $row"
[[ "$row" =~ ^\>\ +[0-9]+\ +[0-9a-f]+:\ \  ]] || fail "no sample count on the hottest instruction: '$row'"
n=$(echo "$row" | awk '{print $2}')
[ "$n" -ge 10 ] || fail "only $n samples on the hottest instruction"

# 5. q back to the list, q quits with status 0, and the terminal is sane
keys q
wait_for 'Symbols: '
keys q
wait_for '^EXIT=[0-9]+'
grep -q '^EXIT=0' "$T/screen" || fail "memprof tui exited with $(grep -o 'EXIT=[0-9]*' "$T/screen")"
keys "stty -a > stty.after; echo SANE-\$((40+2))" Enter
wait_for '^SANE-42$'
diff stty.before stty.after || fail "terminal settings changed"

# 6. without colour (vt100) it draws and quits the same way
keys "clear; TERM=vt100 $MEMPROF tui -i $DATA; echo EXIT2=\$?" Enter
wait_for 'Symbols: [0-9]+ samples'
cursor_row | grep -q walk || fail "vt100: walk is not first"
keys Enter
wait_for 'Annotate walk'
cursor_row | grep -q "HOT: pointer chase" || fail "vt100: not on the HOT line"
keys q q
wait_for '^EXIT2=0'

# 7. SIGTERM: the browser leaves, restores the terminal, status 128+15
keys "clear; sh -c 'echo \$\$ > tui.pid; exec $MEMPROF tui -i $DATA'; echo EXIT3=\$?" Enter
wait_for 'Symbols: [0-9]+ samples'
kill -TERM "$(cat tui.pid)"
wait_for '^EXIT3=[0-9]+'
grep -q '^EXIT3=143' "$T/screen" || fail "after SIGTERM: $(grep -o 'EXIT3=[0-9]*' "$T/screen")"
keys "stty -a > stty.after3; echo SANE-\$((50+3))" Enter
wait_for '^SANE-53$'
diff stty.before stty.after3 || fail "terminal settings changed after SIGTERM"

# 8. a crash (SIGSEGV): the handler puts the saved terminal settings back, then dies
keys "clear; ulimit -c 0; sh -c 'echo \$\$ > tui.pid; exec $MEMPROF tui -i $DATA'; echo EXIT4=\$?" Enter
wait_for 'Symbols: [0-9]+ samples'
kill -SEGV "$(cat tui.pid)"
wait_for '^EXIT4=[0-9]+'
grep -q '^EXIT4=139' "$T/screen" || fail "after SIGSEGV: $(grep -o 'EXIT4=[0-9]*' "$T/screen")"
keys "stty -a > stty.after4; echo SANE-\$((60+4))" Enter
wait_for '^SANE-64$'
diff stty.before stty.after4 || fail "terminal settings changed after SIGSEGV"

echo "PASS: tui in tmux (walk first, hot line $HOT, next hot line $line2, assembly with counts)"
