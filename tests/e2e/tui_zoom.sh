#!/bin/bash
# The TUI on a recording of several processes (issue 28 item 13), by memprof tui --batch
# screens of `sh -c './faulter 3000 & ./faulter 1000; wait'` (page faults, every one):
#  - the symbol list has perf's pid:command column: touch of the first faulter (3000 faults)
#    then of the second (1000), as report --sort pid,comm,dso,sym and perf report;
#  - t on the second row zooms into that process: only its rows, the column elided, the
#    title "| Thread: faulter(PID)" with its samples (report --pid's sum); d then zooms into
#    the object too ("| DSO: faulter"); t and ESC zoom out, the last zoom first;
#  - P writes the whole list to perf.hist.0 (mode 0600), perf's file;
#  - with call chains: a command column (perf's comm,sym), t zooms into "Thread: faulter";
#  - one process: no column, t says so.
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
tui() { "$MEMPROF" tui -i "$1" -k /dev/null --size "$2" --batch "$3" 2>&1; }
row() { sed -n "$(($2 + 2))p" "$1" | sed 's/^>/ /'; } # row N (1-based) of a screen

gcc -O2 -g -o faulter "$D/../standins/faulter.c" || fail "cannot build faulter"
"$MEMPROF" record -q -e page-faults -c 1 -o m.data -- sh -c './faulter 3000 & ./faulter 1000; wait' \
	>/dev/null 2>rec.err || fail "record: $(cat rec.err)"
"$MEMPROF" report -i m.data -k /dev/null --sort pid,comm,dso,sym --csv >rep.csv || fail "report"
p1=$(awk -F, '$5 == "touch" && $6 >= 3000 { print $2 }' rep.csv)
p2=$(awk -F, '$5 == "touch" && $6 >= 1000 && $6 < 3000 { print $2 }' rep.csv)
[ -n "$p1" ] && [ -n "$p2" ] || fail "report has no two touch rows: $(cat rep.csv)"

tui m.data 160x30 '' >s0.txt
sed -n 2p s0.txt | grep -q ' pid:command  *symbol' || fail "no pid:command head: $(sed -n 2p s0.txt)"
row s0.txt 1 | grep -Eq "^ +[0-9.]+% \[[# ]+\] +$p1:faulter +touch +faulter$" ||
	fail "first row is not touch of $p1: $(row s0.txt 1)"
row s0.txt 2 | grep -Eq "^ +[0-9.]+% \[[# ]+\] +$p2:faulter +touch +faulter$" ||
	fail "second row is not touch of $p2: $(row s0.txt 2)"
if command -v "$PERF" >/dev/null 2>&1; then
	# perf's percentages of the two rows (its pid key is the thread: one each here)
	"$PERF" report -i m.data --stdio --sort pid,sym 2>/dev/null | grep -v '^#' >perf.txt
	for p in "$p1" "$p2"; do
		want=$(awk -v p="$p:faulter" '$2 == p && $NF == "touch" { print $1 }' perf.txt)
		got=$(grep -E " $p:faulter +touch " s0.txt | grep -o '[0-9.]*%' | head -1)
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "touch of $p: perf $want, tui $got"
	done
fi

# t on the second row: that process only
n2=$(awk -F, -v p="$p2" '$2 == p { s += $6 } END { print s }' rep.csv)
nr2=$(awk -F, -v p="$p2" '$2 == p' rep.csv | wc -l)
tui m.data 160x200 'jt' >s1.txt
head -1 s1.txt | grep -q "^ Symbols: $n2 of [0-9]* samples of 'page-faults', event count $n2 of [0-9]* | Thread: faulter($p2) | sort:" ||
	fail "t title ($n2 samples of $p2): $(head -1 s1.txt)"
[ "$(sed -n '3,$p' s1.txt | grep -c '%')" = "$nr2" ] || fail "t rows: not the $nr2 of $p2: $(cat s1.txt)"
grep -q 'pid:command' s1.txt && fail "t: the thread column is not elided"
row s1.txt 1 | grep -Eq '\]  touch +faulter$' || fail "t: first row $(row s1.txt 1)"
# d on it: the process's rows in faulter
tui m.data 160x200 'jtd' >s2.txt
nd=$(awk -F, -v p="$p2" '$2 == p && $3 == "faulter"' rep.csv | wc -l)
head -1 s2.txt | grep -q "| Thread: faulter($p2) | DSO: faulter | sort:" || fail "d title: $(head -1 s2.txt)"
[ "$(sed -n '3,$p' s2.txt | grep -c '%')" = "$nd" ] || fail "t d rows: not $nd: $(cat s2.txt)"
# t again: out of the thread, still in faulter (both touch rows and more); ESC: all rows
tui m.data 160x200 'jtdt' >s3.txt
head -1 s3.txt | grep -q "| Thread:" && fail "t again: still zoomed into the thread: $(head -1 s3.txt)"
head -1 s3.txt | grep -q "| DSO: faulter | sort:" || fail "t again: not in faulter: $(head -1 s3.txt)"
grep -q "$p1:faulter" s3.txt || fail "t again: $p1's rows are not back"
all=$(($(wc -l <rep.csv) - 1))
tui m.data 160x200 'jtd<ESC>' | head -1 | grep -q "| Thread: faulter($p2) | sort:" || fail "ESC: not out of the DSO first"
tui m.data 160x200 'jtd<ESC><ESC>' >s4.txt
[ "$(sed -n '3,$p' s4.txt | grep -c '%')" = "$all" ] || fail "ESC ESC: not the $all rows: $(head -3 s4.txt)"

# P: the whole list, perf's file name, 0600
tui m.data 160x10 'P' | tail -1 | grep -q '^perf.hist.0 written' || fail "P: $(tui m.data 160x10 P | tail -1)"
[ "$(stat -c %a perf.hist.0)" = 600 ] || fail "perf.hist.0 mode $(stat -c %a perf.hist.0)"
[ "$(grep -c '%' perf.hist.0)" = "$all" ] || fail "perf.hist.0: not $all rows"
tui m.data 160x10 'P' | tail -1 | grep -q '^perf.hist.1 written' || fail "P again: not perf.hist.1"

# call chains: perf's comm,sym entries (a command column), t by command
"$MEMPROF" record -q -g -e page-faults -c 1 -o g.data -- sh -c './faulter 3000 & ./faulter 1000; wait' \
	>/dev/null 2>rec.err || fail "record -g: $(cat rec.err)"
tui g.data 160x30 '' >c0.txt
sed -n 2p c0.txt | grep -q 'Self  command  *symbol' || fail "-g: no command head: $(sed -n 2p c0.txt)"
grep -Eq '^.+%  faulter +touch +faulter$' c0.txt || fail "-g: no faulter touch row: $(cat c0.txt)"
grep -Eq '%  sh  ' c0.txt || fail "-g: no sh row"
tui g.data 160x30 't' | head -1 | grep -q "| Thread: faulter | sort:" || fail "-g t: $(tui g.data 160x30 t | head -1)"

# one process: no column, t says why
"$MEMPROF" record -q -e page-faults -c 1 -o one.data -- ./faulter 100 >/dev/null 2>&1 || fail "record one"
tui one.data 160x10 '' | sed -n 2p | grep -q 'pid:command' && fail "one process: a thread column"
tui one.data 160x10 't' | tail -1 | grep -q '^one process in the recording: no thread to zoom into' ||
	fail "one process t: $(tui one.data 160x10 t | tail -1)"
echo ok
