#!/bin/bash
# Software events honour -c: `record -e page-faults -c 100` of a program faulting in N pages
# writes about N/100 samples, each of period 100 (no PERF_SAMPLE_PERIOD, as perf: with it the
# kernel writes one sample per fault), and perf reads the same samples as its own recording.
source "$(dirname "$0")/record_lib.sh"
need_perf
N=20000
gcc -O2 -g -o faulter "$(dirname "$0")/../standins/faulter.c" || fail "cannot build faulter"
"$MEMPROF" record -e page-faults -c 100 -o m.data -- ./faulter $N >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
"$PERF" record -q -e page-faults -c 100 -o p.data -- ./faulter $N >/dev/null 2>&1 ||
	fail "perf record failed"
perf_reads m.data
"$PERF" script -i m.data -F period >m.periods 2>/dev/null || fail "perf script m.data"
"$PERF" script -i p.data -F period >p.periods 2>/dev/null || fail "perf script p.data"
ms=$(wc -l <m.periods) ps=$(wc -l <p.periods)
echo "samples: memprof $ms, perf $ps (N=$N)"
# N/100 faults in touch() plus the start-up's few hundred faults / 100; under heavy load the
# kernel may throttle a sample or two (perf's own count varies the same way), so one percent
# below N/100 is allowed: a period of 1 (the bug) would give N samples.
[ "$ms" -ge $((N / 100 - 2)) ] && [ "$ms" -le $((N / 100 + 20)) ] || fail "memprof wrote $ms samples for $N faults at -c 100"
[ "$(sort -u m.periods | tr -d ' ')" = 100 ] || fail "periods other than 100: $(sort -u m.periods | head -3)"
d=$((ms - ps)); [ ${d#-} -le 5 ] || fail "memprof $ms samples, perf $ps"
# memprof's own summary and report say the same
[ "$(mp_samples rec.err page-faults)" = "$ms" ] || fail "summary: $(cat rec.err)"
"$MEMPROF" report -i m.data --sort sym >rep.out 2>&1 || fail "report: $(cat rep.out)"
grep -Eq "^ +[0-9]+ +[0-9.]+% +\[\.\] touch *$" rep.out || fail "touch not in report: $(cat rep.out)"
t=$(awk '$4 == "touch" { print $1 }' rep.out)
[ "$t" -ge $((N / 100 - 2)) ] && [ "$t" -le $((N / 100 + 1)) ] || fail "touch has $t samples"
echo "ok"
