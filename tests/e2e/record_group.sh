# An event group '{cpu-clock,task-clock}': memprof writes GROUP_DESC as perf does, so perf
# report shows its group view ("anon group { ... }" with the samples and estimated count
# summed over the members), and memprof report --group prints the same header numbers,
# the members' columns side by side.
. "$(dirname "$0")/record_lib.sh"
need_perf
"$MEMPROF" record -q -e '{cpu-clock,task-clock}' -c 100000 -o G "$KERNELS/cachebench" \
	-s 64K -r 10000 >out 2>err || fail "record failed: $(cat err)"
perf_reads G
"$PERF" report -i G --stdio 2>/dev/null >perf.txt
grep -q "^# Samples: .* of events 'anon group { cpu-clock, task-clock }'" perf.txt ||
	fail "perf report shows no group view: $(grep '^# Samples' perf.txt)"
ps=$(sed -n "s/^# Samples: \([0-9]*\) *of events 'anon group.*/\1/p" perf.txt)
pc=$(sed -n 's/^# Event count (approx.): \([0-9]*\)$/\1/p' perf.txt)
"$MEMPROF" report -q -i G --group >mp.txt 2>mp.err || fail "memprof report --group: $(cat mp.err)"
grep -q "^# Samples: $ps of events 'anon group { cpu-clock, task-clock }'$" mp.txt ||
	fail "memprof report --group: $(grep '^# Samples' mp.txt), perf: $ps samples"
grep -q "^# Event count (approx.): $pc$" mp.txt ||
	fail "memprof report --group: $(grep '^# Event count' mp.txt), perf: $pc"
[ "$ps" -ge 20 ] || fail "only $ps samples"
# the members' sums are the group's (each member samples on its own)
m=$(sed -n 's/^#   \[[01]\] [a-z-]*: .*, samples \([0-9]*\),.*/\1/p' mp.txt | paste -sd+ | bc)
[ "$m" = "$ps" ] || fail "members' samples sum to $m, group $ps"
grep -q '^# cpu-clock  *task-clock' mp.txt || fail "no side-by-side group columns"
# a list without braces is no group: perf shows one section per event
"$MEMPROF" record -q -e cpu-clock,task-clock -c 100000 -o N "$KERNELS/cachebench" \
	-s 64K -r 100 >out 2>err || fail "record failed: $(cat err)"
"$PERF" report -i N --stdio 2>/dev/null | grep -q 'anon group' && fail "no group written, perf shows one"
echo ok
