#!/bin/bash
# record --sim follows a shell wrapper's children (valgrind --trace-children): the file holds
# each process with its command and pid, every uselib with the counts of uselib simulated
# alone, and record says which processes it simulated; --callgrind-out keeps FILE.PID each.
source "$(dirname "$0")/record_lib.sh"
command -v valgrind >/dev/null || fail "valgrind is not installed (package valgrind)"
S=$(dirname "$0")/../standins
gcc -O1 -g -fPIC -shared -o libwork.so "$S/libwork.c" &&
	gcc -O1 -g -o uselib "$S/uselib.c" -I"$S" -L. -lwork -Wl,-rpath,'$ORIGIN' ||
	fail "cannot build the stand-in"
"$MEMPROF" record --sim -e Ir,D1mr -o one.data -- ./uselib 40 >/dev/null 2>one.err || fail "record --sim: $(cat one.err)"
grep -q 'simulated .* processes' one.err && fail "one process said to be several: $(cat one.err)"
"$MEMPROF" record --sim -e Ir,D1mr -o sh.data --callgrind-out cg.out -- \
	sh -c './uselib 40 >/dev/null; ./uselib 40 >/dev/null' >/dev/null 2>sh.err || fail "record --sim sh: $(cat sh.err)"
grep -Eq '^\[ memprof record: simulated 3 processes \(the workload and its children\): sh \([0-9]+\), uselib \([0-9]+\), uselib \([0-9]+\) \]$' sh.err ||
	fail "no processes line: $(cat sh.err)"
[ "$(ls cg.out.* | wc -l)" = 3 ] || fail "--callgrind-out: $(ls)"
perf_reads sh.data
"$MEMPROF" report -i one.data --csv --sort comm,pid,sym >one.csv || fail "report one"
"$MEMPROF" report -i sh.data --csv --sort comm,pid,sym >sh.csv || fail "report sh"
# comm,pid,level,sym,Ir samples,Ir period,...
want=$(awk -F, '$1 == "uselib" && $4 == "sum_local" { print $6 }' one.csv)
[ -n "$want" ] && [ "$want" -gt 0 ] || fail "no sum_local in the single run"
got=$(awk -F, '$1 == "uselib" && $4 == "sum_local" { print $6 }' sh.csv | sort -u)
[ "$(awk -F, '$1 == "uselib" && $4 == "sum_local"' sh.csv | wc -l)" = 2 ] || fail "not two uselib processes: $(grep sum_local sh.csv)"
[ "$got" = "$want" ] || fail "sum_local Ir under sh: $got, alone: $want"
awk -F, '$1 == "sh"' sh.csv | grep -q . || fail "the shell's own counts are missing"
# the exact totals are the sum over the processes: perf sees the same
t=$("$PERF" report -i sh.data --stdio --sort comm -F period,comm 2>/dev/null | awk '/of event .Ir./ { on = 1 } on && $2 == "uselib" { print $1; exit }')
u=$(awk -F, '$1 == "uselib" { s += $6 } END { print s }' sh.csv)
[ "$t" = "$u" ] || fail "perf's uselib Ir $t, memprof's $u"
# progress: a simulation that lasts (sleep 2 takes 2 s however fast the machine) says it
# is still going, each MEMPROF_SIM_PROGRESS seconds; -q says nothing
MEMPROF_SIM_PROGRESS=1 "$MEMPROF" record --sim -e Ir -o sl.data -- sh -c 'sleep 2' 2>sl.err || fail "sleep: $(cat sl.err)"
grep -Eq '^\[ memprof record --sim: simulating for [0-9]+ s ' sl.err || fail "no progress: $(cat sl.err)"
MEMPROF_SIM_PROGRESS=1 "$MEMPROF" record -q --sim -e Ir -o sl.data -- sh -c 'sleep 2' 2>sl.err || fail "sleep -q"
grep -q 'simulating for' sl.err && fail "-q printed progress"
# stat --sim: the same exact totals as record --sim. One process is deterministic, so they are
# equal (its stdout /dev/null in both, as what stdout is changes libc's work); a shell that waits for children runs a few instructions more or fewer depending on when
# SIGCHLD arrives (19 of 4.6 million once in CI), so there the totals agree within 0.01% and
# the children are counted too (more than twice one uselib).
"$MEMPROF" stat --sim -e Ir,D1mr -o st1.out -- ./uselib 40 >/dev/null 2>st1.err || fail "stat --sim one: $(cat st1.err)"
ir=$(awk '$2 == "Ir" { print $1 }' st1.out)
rep=$("$MEMPROF" report -i one.data | sed -n 's/^#   \[0\] Ir: .*exact count \([0-9]*\).*/\1/p')
[ -n "$ir" ] && [ "$ir" = "$rep" ] || fail "stat --sim Ir $ir, record --sim $rep (one process)"
# -o that cannot be created or written: one line naming the file, exit 1
"$MEMPROF" stat --sim -e Ir -o nodir/st.out -- ./uselib 40 >/dev/null 2>bad.err; rc=$?
[ $rc = 1 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q "nodir/st.out: cannot create" bad.err ||
	fail "stat --sim -o nodir/st.out: exit $rc, $(cat bad.err)"
"$MEMPROF" stat --sim -e Ir -o /dev/full -- ./uselib 40 >/dev/null 2>full.err; rc=$?
[ $rc = 1 ] && grep -q "/dev/full: cannot write the counts" full.err ||
	fail "stat --sim -o /dev/full: exit $rc, $(cat full.err)"
"$MEMPROF" stat --sim -e Ir,D1mr -o st.out -- sh -c './uselib 40 >/dev/null; ./uselib 40 >/dev/null' >/dev/null 2>st.err ||
	fail "stat --sim: $(cat st.err)"
grep -q "Simulated counts for 'sh -c ./uselib 40 >/dev/null; ./uselib 40 >/dev/null' .*3 processes" st.out ||
	fail "stat --sim header: $(cat st.out)"
irsh=$(awk '$2 == "Ir" { print $1 }' st.out)
repsh=$("$MEMPROF" report -i sh.data | sed -n 's/^#   \[0\] Ir: .*exact count \([0-9]*\).*/\1/p')
[ -n "$irsh" ] && [ -n "$repsh" ] || fail "no Ir total: stat '$irsh', record '$repsh'"
awk -v a="$irsh" -v b="$repsh" -v one="$ir" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 10000 <= b && a > 2 * one) }' ||
	fail "stat --sim Ir $irsh, record --sim $repsh, one uselib $ir (under sh)"
"$MEMPROF" stat --sim -a >/dev/null 2>&1; [ $? = 2 ] || fail "stat --sim -a accepted"
echo "ok: sum_local Ir $want in each of two uselib under sh, as alone"
