#!/bin/bash
# memprof ratios on the shared perf.data fixtures from real hardware: every ratio listed in
# tests/data/ratios/*.expect equals numerator/denominator of perf report's event counts.
# The counts in the .expect files are checked against perf itself first (perf is the referee).
set -u
: "${MEMPROF:?}" "${SHARED_DIR:?}" "${TESTS_DATA:?}"
PERF=${PERF:-perf}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/empty"
fail=0
checked=0

for exp in "$TESTS_DATA"/ratios/*.expect; do
	name=$(basename "$exp" .expect)
	data="$SHARED_DIR/perfdata/$name.data"
	[ -f "$data" ] || { echo "FAIL $name: $data missing"; fail=1; continue; }

	# 1. the counts written down are perf's
	if command -v "$PERF" >/dev/null; then
		PERF_BUILDID_DIR="$T/empty" "$PERF" report -i "$data" --stdio --symfs="$T/empty" \
			--kallsyms=/dev/null --sort dso --no-group 2>/dev/null |
			awk '/^# Samples:/ { match($0, /of events? .*$/); s = substr($0, RSTART);
				sub(/^of events? /, "", s); gsub(/'"'"'/, "", s); name = s }
			     /^# Event count/ { print "count", name, $NF }' > "$T/perf.counts"
		grep '^count ' "$exp" > "$T/exp.counts"
		if ! diff -u "$T/exp.counts" "$T/perf.counts"; then
			echo "FAIL $name: perf's event counts differ from $exp"
			fail=1
		fi
	fi

	# 2. memprof's program-level value of each ratio = the hand computation
	ids=$(awk '$1 == "ratio" { print $2 }' "$exp")
	if ! "$MEMPROF" ratios -i "$data" --kallsyms /dev/null --csv $ids > "$T/out.csv" 2> "$T/err"; then
		echo "FAIL $name: memprof ratios failed:"; cat "$T/err"; fail=1; continue
	fi
	while read -r _ id num den; do
		want=$(awk -v n="$num" -v d="$den" '$1 == "count" && $2 == n { a = $3 }
			$1 == "count" && $2 == d { b = $3 } END { printf "%.15g", a / b }' "$exp")
		got=$(awk -F, -v id="$id" '$1 == id && $3 == "program" { print $7 }' "$T/out.csv")
		if [ -z "$got" ]; then
			echo "FAIL $name: no $id in memprof's output:"; cat "$T/out.csv"; fail=1; continue
		fi
		if ! awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d;
				exit !(d <= 1e-12 * (w < 0 ? -w : w)) }'; then
			echo "FAIL $name: $id = $got, want $num/$den = $want"
			fail=1
		else
			echo "ok   $name: $id = $got ($num / $den)"
			checked=$((checked + 1))
		fi
	done < <(grep '^ratio ' "$exp")
done

# 3. the text table says which events a missing ratio needs and how to record them
"$MEMPROF" ratios -i "$SHARED_DIR/perfdata/simd-hw-cache-cfl.data" --kallsyms /dev/null \
	L1D_MISS_RATE > "$T/miss.txt" 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q "L1D Miss Rate: the recording has no instructions (perf, approx)" "$T/miss.txt" ||
   ! grep -q "memprof record -e L1-dcache-load-misses,instructions -- COMMAND" "$T/miss.txt"; then
	echo "FAIL missing event: rc $rc"; cat "$T/miss.txt"; fail=1
fi
# 4. lost samples are reported
"$MEMPROF" ratios -i "$SHARED_DIR/perfdata/pdc-group-precise-lost-4.4.data" --kallsyms /dev/null IPC > "$T/lost.txt"
grep -q "^# lost samples: " "$T/lost.txt" || { echo "FAIL lost samples not reported"; cat "$T/lost.txt"; fail=1; }

# 5. object level: IPC per dso of the ARMv7 file = instructions / cycles of perf's per-dso
#    periods (perf report --sort dso -F period,dso), for every dso with both events
if command -v "$PERF" >/dev/null; then
	f="$SHARED_DIR/perfdata/pdc-armv7-3.4.data"
	PERF_BUILDID_DIR="$T/empty" "$PERF" report -i "$f" --stdio --symfs="$T/empty" --kallsyms=/dev/null \
		--sort dso --no-group -F period,dso 2>/dev/null |
		awk '/^# Samples:/ { ev = $NF; gsub(/'"'"'/, "", ev) } /^ +[0-9]+ / { p[ev, $2] = $1; d[$2] = 1 }
		     END { for (k in d) if (p["cycles", k] > 0 && p["instructions", k] > 0)
			printf "%s %.15g\n", k, p["instructions", k] / p["cycles", k] }' | sort > "$T/dso.want"
	"$MEMPROF" ratios -i "$f" --kallsyms /dev/null --level dso --top 0 --min-samples 0 --csv IPC |
		awk -F, 'NR > 1 { print $4, $7 }' | sort > "$T/dso.got"
	n=0
	while read -r dso want; do
		got=$(awk -v d="$dso" '$1 == d { print $2 }' "$T/dso.got")
		if [ -z "$got" ] || ! awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-12 * w) }'; then
			echo "FAIL dso $dso: IPC '$got', want $want"; fail=1
		fi
		n=$((n + 1))
	done < "$T/dso.want"
	[ $n -ge 5 ] && echo "ok   pdc-armv7-3.4: IPC of $n objects = perf's per-dso periods" || { echo "FAIL only $n dsos"; fail=1; }
fi

[ $checked -ge 13 ] || { echo "FAIL only $checked ratios checked"; fail=1; }
exit $fail
