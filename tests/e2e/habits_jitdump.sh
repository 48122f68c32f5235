#!/bin/bash
# JIT code named through jitdump files (issue 28.8): a stand-in JIT (habits_jitdump.c)
# writes jit-PID.dump as the jitdump specification says (marker mmap, DEBUG_INFO, LOAD of
# jit_hot and jit_cold, a MOVE of jit_cold) and runs the code. memprof inject --jit then:
# (1) (recorded with -k monotonic, the JIT's clock) replaces the marker by mmaps of jitted-PID-N.so (0600 ELF objects with the symbol):
#     report names jit_hot (3/5 of the work) and jit_cold, no sample is left in //anon, and
#     the rows equal perf report's on the same injected file; recorded on memprof's default
#     clock, at most two samples stay in //anon;
# (2) script names jit_hot in as many samples as perf script; annotate jit_hot shows its
#     instructions with every sample; tui --batch shows it;
# (3) perf as referee: perf record -k 1 + perf inject --jit + perf report gives the rows
#     memprof inject + memprof report gives on that file;
# (4) errors: no --jit (2), a dump gone or corrupt (1, one line naming it).
# x86-64 only (the stand-in writes x86-64 code): skipped (77) elsewhere.
[ "$(uname -m)" = x86_64 ] || { echo "skip: the stand-in JIT writes x86-64 code"; exit 77; }
. "$(dirname "$0")/e2e_lib.sh"
cc -O1 -o jitdump "$E2E/habits_jitdump.c" || { echo "skip: no C compiler"; exit 77; }
F() { echo "FAIL $*"; fail=1; }
# the rows of a report's dso,sym table: "dso sym" with their share
rows() { grep -E '(jitted-|//anon).*\[\.\]' | sed -E 's/^ +([0-9]+ +)?//; s/\[\.\] //; s/ +$//; s/  +/ /g'; }

# -k monotonic: the jitdump's clock, so that each function is mapped when it was loaded
"$MEMPROF" record -q -k monotonic -e cpu-clock -o m.data ./jitdump 20000000 >m.out 2>err || { echo "FAIL record: $(cat err)"; exit 1; }
dump=$(cat m.out)
pid=$(basename "$dump" .dump | sed 's/jit-//')
"$MEMPROF" report -i m.data --sort dso,sym --stdio 2>/dev/null | rows >before
grep -q '^[0-9.]*% //anon' before || F "the un-injected recording has no //anon samples: $(cat before)"

# (1)
"$MEMPROF" inject --jit -i m.data -o j.data 2>err || F "inject: $(cat err)"
grep -q "^j.data: 2 JIT'ed functions of 1 jitdump files named (1 moves)$" err || F "inject summary: $(cat err)"
[ "$(stat -c %a "jitted-$pid-1.so")" = 600 ] || F "jitted-$pid-1.so: mode $(stat -c %a "jitted-$pid-1.so" 2>&1)"
readelf -s "jitted-$pid-1.so" 2>/dev/null | grep -q ' FUNC .* jit_hot$' || F "jitted-$pid-1.so has no jit_hot symbol"
"$MEMPROF" report -i j.data --sort dso,sym --stdio 2>/dev/null | rows >after
grep -q '//anon' after && F "samples left in //anon after inject: $(cat after)"
hot=$(awk -v d="jitted-$pid-1.so" '$2 == d && $3 == "jit_hot" { print $1 + 0 }' after)
cold=$(awk -v d="jitted-$pid-2.so" '$2 == d && $3 == "LazyCompile:*jit_cold" { print $1 + 0 }' after)
awk -v h="$hot" -v c="$cold" 'BEGIN { exit !(h > 0 && c > 0) }' ||
	F "jit_hot $hot%, jit_cold $cold%: $(cat after)"
# the move by address, not by shares (on a loaded VM cpu-clock gave jit_hot, the longest
# phase, up to twice its samples: 70.56% against jit_cold's 23.7% once in CI, 3:1 where
# the work is 3:2): jit_cold ran twice, on its load's page and on the moved copy's, the
# same work each, and both are named jit_cold; jit_hot (three times the work of one run)
# never lies on the moved copy's page
"$MEMPROF" script -i j.data -F ip,sym 2>/dev/null | awk '
	$2 == "jit_hot" { hot++; hp[substr($1, 1, length($1) - 3)]++ }
	$2 == "LazyCompile:*jit_cold" { cold++; cp[substr($1, 1, length($1) - 3)]++ }
	END {
		for (p in cp) n++
		if (n != 2)
			exit 1
		for (p in cp) {
			if (cp[p] < cold / 4)
				exit 1
			if (!(p in hp)) { m++; moved = p }
		}
		exit !(m == 1 && hot >= 1.5 * cp[moved])
	}' || F "jit_cold's two runs (its load and the moved copy) by page, and jit_hot's: $("$MEMPROF" script -i j.data -F ip,sym 2>/dev/null | awk '$2 ~ /jit_/ { print substr($1, 1, length($1) - 3), $2 }' | sort | uniq -c | tr '\n' ' ')"
# every sample that was //anon is now in one of the two
awk '/\/\/anon/ { s += $1 } END { printf "%.1f\n", s }' before >b.sum
awk '{ s += $1 } END { printf "%.1f\n", s }' after >a.sum
awk -v b="$(cat b.sum)" -v a="$(cat a.sum)" 'BEGIN { d = a - b; exit !(d > -0.2 && d < 0.2) }' ||
	F "//anon had $(cat b.sum)%, the JIT objects have $(cat a.sum)%"
if command -v "$PERF" >/dev/null 2>&1; then
	"$PERF" report -i j.data --stdio --sort dso,sym 2>/dev/null | grep -v '^#' | rows >perf.rows
	diff perf.rows after >/dev/null || F "perf report on memprof's injected file differs: $(diff perf.rows after)"
fi

# the recording's own clock: times moved by the clocks' difference, at most a sample or
# two (taken in the microseconds between the dump's header and its mmap) left in //anon,
# or 4% when the JIT was preempted there (9 of 358 once, beside other tests on 2 CPUs);
# unmoved, the JIT's times are off by the clocks' whole difference
"$MEMPROF" record -q -e cpu-clock -o d.data ./jitdump 20000000 >d.out 2>err || F "record: $(cat err)"
"$MEMPROF" inject -q --jit -i d.data -o dj.data 2>err || F "inject d.data: $(cat err)"
"$MEMPROF" report -i dj.data --sort dso,sym --csv 2>/dev/null | awk -F, '
	$1 == "//anon" { a += $4 } $1 ~ /^jitted-/ { j += $4 }
	END { exit !((a <= 2 || a * 25 <= j) && j > 100) }' ||
	F "the default clock: $("$MEMPROF" report -i dj.data --sort dso,sym --stdio 2>&1 | grep '\[\.\]' | head -4)"

# (2)
nm=$("$MEMPROF" script -i j.data 2>/dev/null | grep -c ' jit_hot+')
[ "$nm" -gt 50 ] || F "script names jit_hot $nm times"
if command -v "$PERF" >/dev/null 2>&1; then
	np=$("$PERF" script -i j.data 2>/dev/null | grep -c ' jit_hot+')
	[ "$np" = "$nm" ] || F "script names jit_hot $nm times, perf $np"
fi
"$MEMPROF" annotate -i j.data jit_hot >ann 2>err || F "annotate jit_hot: $(cat err)"
head -1 ann | grep -q "^# jitted-$pid-1.so:jit_hot " || F "annotate title: $(head -1 ann)"
ns=$("$MEMPROF" report -i j.data --sort sym --csv 2>/dev/null | awk -F, '$2 == "jit_hot" { print $3 }')
# every sample of jit_hot is on one of its instructions, all but one at most in the loop
# (dec rcx; jne back to it: a tick can fall after the loop's last jne). Where they were
# taken (--no-skid) depends on the host: skid moves a sample back one instruction, and
# one at the loop's head (dec) onto the loop's closing jne, never before the loop (movabs)
"$MEMPROF" annotate --no-skid -i j.data jit_hot >ann0 2>err || F "annotate --no-skid jit_hot: $(cat err)"
# at INSN FILE: the samples on the instruction whose text ends with INSN
at() { awk -v w="$1" '/^ +[0-9]+ +[0-9.]+% +[0-9.]+% : +[0-9a-f]+: / { t = $0; sub(/^.*: +[0-9a-f]+: +/, "", t); if (t == w) n += $1 }
	END { print n + 0 }' "$2"; }
d0=$(at "dec rcx" ann0) j0=$(at "jne 0x8a" ann0) r0=$(at ret ann0) d1=$(at "dec rcx" ann) j1=$(at "jne 0x8a" ann)
[ "$ns" -gt 0 ] && [ $((d0 + j0)) -ge $((ns - 1)) ] || F "annotate --no-skid: the $ns samples not in the loop: $(cat ann0)"
[ "$j1" = $((d0 + r0)) ] && [ "$d1" = "$j0" ] ||
	F "annotate: skid moved dec's $d0, jne's $j0 and ret's $r0 samples to jne $j1 and dec $d1 (want $((d0 + r0)) and $j0): $(cat ann)"
"$MEMPROF" tui -i j.data --size 160x10 --batch '' 2>err | grep -q "jit_hot .*jitted-$pid-1.so" || F "tui shows no jit_hot"

# (3) perf's own: record -k 1, perf inject --jit, the same rows from memprof inject
if command -v "$PERF" >/dev/null 2>&1 &&
	"$PERF" record -q -k 1 -e cpu-clock -o p.data ./jitdump 20000000 >p.out 2>/dev/null &&
	"$PERF" inject --jit -i p.data -o pj.data 2>/dev/null; then
	"$PERF" report -i pj.data --stdio --sort dso,sym 2>/dev/null | grep -v '^#' | rows >perf.p
	"$MEMPROF" inject -q --jit -i p.data -o mj.data 2>err || F "inject p.data: $(cat err)"
	"$MEMPROF" report -i mj.data --sort dso,sym --stdio 2>/dev/null | rows >mp.p
	[ "$(wc -l <perf.p)" -ge 2 ] || F "perf inject named $(wc -l <perf.p) JIT rows"
	diff perf.p mp.p >/dev/null || F "perf inject + report vs memprof's: $(diff perf.p mp.p)"
else
	echo "note: no perf record -k 1 / perf inject --jit here: (3) not checked"
fi

# (4)
"$MEMPROF" inject -i m.data -o x.data 2>err; [ $? = 2 ] || F "inject without --jit: not a usage error"
cp "$dump" saved.dump
printf 'JUNK' | dd of="$dump" conv=notrunc 2>/dev/null
"$MEMPROF" inject --jit -i m.data -o x.data 2>err; rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "jit-$pid.dump: not a jitdump file" err ||
	F "corrupt dump: rc $rc: $(cat err)"
[ -e x.data ] && F "a failed inject left x.data"
rm -f "$dump"
"$MEMPROF" inject --jit -i m.data -o x.data 2>err; rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "jit-$pid.dump" err || F "dump gone: rc $rc: $(cat err)"
[ $fail = 0 ] && echo "ok: JIT functions named from jitdump files, as perf inject --jit"
exit $fail
