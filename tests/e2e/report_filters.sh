#!/bin/bash
# report as perf users drive it, on a shell wrapper running a program with its own shared
# library twice at once: --comm, --dso, --pid, --tid, --symbols, --percent-limit, sort keys
# cpu, srcfile and period, columns in --sort order, --stdio, a comm column by default with
# several commands, a multi-line command in the header. Each table equals perf report's
# with the same options on the same file (percent, then the key columns).
source "$(dirname "$0")/record_lib.sh"
need_perf
S=$(dirname "$0")/../standins
gcc -O1 -g -fPIC -shared -o libwork.so "$S/libwork.c" &&
	gcc -O1 -g -o uselib "$S/uselib.c" -I"$S" -L. -lwork -Wl,-rpath,'$ORIGIN' ||
	fail "cannot build the stand-in"
"$MEMPROF" record -e cpu-clock -c 100000 -o w.data -- sh -c './uselib 8000 >/dev/null &
./uselib 8000 >/dev/null; wait; cat libwork.so >/dev/null' 2>rec.err || fail "record: $(cat rec.err)"
perf_reads w.data

# memprof's rows as "PCT KEY..." (the first event's overhead, then the key columns)
mp_rows() {
	"$MEMPROF" report -i w.data --no-objects "$@" >mp.out 2>mp.err || fail "report $*: $(cat mp.err)"
	awk '/^#/ || NF < 3 { next } { $1 = ""; sub(/%/, "", $2); sub(/^ +/, ""); sub(/ +$/, ""); print }' mp.out
}
pf_rows() {
	"$PERF" report -i w.data --stdio "$@" 2>/dev/null |
		awk '/^#/ || NF < 2 { next } { sub(/%/, "", $1); sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ +/, " "); print }' |
		sed -E 's/ ([0-9]+):[^ ]+/ \1/' # perf's pid/tid column is PID:COMM
}
same() {
	# (perf's row of samples without a source file has an empty key: left out of both)
	mp_rows "$@" | sed 's/  */ /g' | grep -v '^[0-9.]* ??$' >a.rows
	pf_rows "$@" >b.rows
	[ -s b.rows ] || fail "perf shows nothing for $*"
	diff a.rows b.rows >d.out || fail "report $* differs from perf (< memprof, > perf): $(cat d.out)"
	echo "same as perf ($(wc -l <a.rows) rows): $*"
}

# must show 4: --comm X --dso Y --percent-limit 1 --sort cpu,sym
same --comm uselib --dso libwork.so --percent-limit 1 --sort cpu,sym
same --comm uselib --dso uselib --percent-limit 1 --sort cpu,sym
# both CPUs took samples of the two processes (the cpu key groups something)
[ "$(mp_rows --comm uselib --sort cpu | wc -l)" -ge 1 ] || fail "no cpu rows"
# (with --comm, perf filters an entry by the first sample's command: the comm key keeps
# perf's entries to one command)
same --comm uselib --sort sym,comm,dso --percent-limit 2
pid=$("$PERF" script -i w.data -F comm,pid 2>/dev/null | awk '$1 == "uselib" { print $2; exit }')
[ -n "$pid" ] || fail "no uselib pid in perf's view"
# (with --pid/--tid, perf filters an entry by the first thread that made it: the pid or
# tid key keeps perf's entries to one process)
same --pid "$pid" --sort pid,dso,sym --percent-limit 0.5
same --tid "$pid" --sort pid,sym --percent-limit 0.5 # (perf has no tid key: its pid is the thread)
same --symbols work_mix,sum_local --sort comm,sym
same --comm uselib --sort srcfile --percent-limit 1
same --comm uselib --sort period,comm,sym --percent-limit 1
same --stdio --comm sh,cat --sort comm --percent-limit 0.1

# by default a comm column: the file holds sh, uselib and cat
"$MEMPROF" report -i w.data --no-objects >def.out 2>&1 || fail "report: $(cat def.out)"
grep -q '^# By comm,dso,sym' def.out || fail "no comm key by default: $(grep '^# By' def.out)"
grep -Eq '^ +[0-9]+ +[0-9.]+% +uselib +uselib +\[\.\] sum_local' def.out || fail "no uselib row: $(cat def.out)"
# the two-line command keeps its '#'
sed -n '/^# command:/,/^# Events/p' def.out | grep -v '^#' && fail "a header line without '#'"
grep -q '^#  *\./uselib 8000 >/dev/null; wait' def.out || fail "second command line missing: $(head -6 def.out)"
# a file of one command keeps dso,sym
"$MEMPROF" record -e cpu-clock -c 100000 -o one.data -- ./uselib 2000 >/dev/null 2>&1 || fail "record one"
"$MEMPROF" report -i one.data --no-objects | grep -q '^# By dso,sym' || fail "comm column for one command"
# errors
"$MEMPROF" report -i w.data --sort cpu,nope >e.out 2>&1; [ $? = 2 ] || fail "bad sort key accepted"
grep -q "unknown sort key 'nope'" e.out || fail "bad key message: $(cat e.out)"
"$MEMPROF" report -i w.data --stdio --csv >e.out 2>&1; [ $? = 2 ] || fail "--stdio --csv accepted"
"$MEMPROF" report -i w.data --csv --sort cpu,srcfile,sym | head -1 | grep -q '^cpu,level,sym,srcfile,' || fail "csv header"
echo ok
