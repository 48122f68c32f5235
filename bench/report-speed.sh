#!/bin/bash
# Times memprof report against perf report on the same recordings and prints the ratios
# and both peak memory figures (never run by ctest).
#   1e6 and 1e7 samples: perf record -e page-faults -c 1 on bench/pagetouch.c
#   1e5 cpu-clock samples of a kernel: --sort srcline (perf runs addr2line)
#   1e6 and 2e6 samples with call chains (-g, page-faults of pagetouch built with frame
#   pointers, touching 20 calls deep): the children report against perf report --children
#   python3 with call chains (cpu-clock -g, 20 kHz): many distinct stacks, the same report
# usage: bench/report-speed.sh [BUILD_DIR]   (default: build)
# Needs GNU time (/usr/bin/time, Debian package "time") for the peak memory.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-$HERE/../build}
MEMPROF=$B/memprof
KERNELS=$B/kernels
PERF=${PERF:-perf}
[ -x "$MEMPROF" ] || { echo "no $MEMPROF (build first)"; exit 1; }
[ -x /usr/bin/time ] || { echo "need /usr/bin/time: apt-get install time"; exit 1; }
W=${WORK:-$(mktemp -d /tmp/report-speed.XXXXXX)}
trap '[ -z "${KEEP:-}" ] && rm -rf "$W"' EXIT
cc -O2 -g -o "$W/pagetouch" "$HERE/pagetouch.c"

# run LABEL CMD...: prints wall seconds and peak RSS (MiB) into $W/LABEL.t
run() {
	local lbl=$1; shift
	/usr/bin/time -f '%e %M %U %S' -o "$W/$lbl.t" "$@" >"$W/$lbl.out" 2>"$W/$lbl.err" ||
		{ echo "$lbl failed: $(tail -2 "$W/$lbl.err")"; return 1; }
	read -r sec kib us ss <"$W/$lbl.t"
	printf '%-28s %7.2f s wall %7.2f s cpu %8.1f MiB peak RSS\n' "$lbl" "$sec" \
		"$(echo "$us + $ss" | bc -l)" "$(echo "$kib / 1024" | bc -l)"
	eval "${lbl//[-.]/_}_s=$sec; ${lbl//[-.]/_}_m=$kib; ${lbl//[-.]/_}_c=$(echo "$us + $ss" | bc -l)"
}

ratio() { echo "scale=1; $1 / $2" | bc -l; }

echo "# recordings in $W"
for n in 1000000 10000000; do
	"$PERF" record -q -e page-faults -c 1 -o "$W/pf$n.data" "$W/pagetouch" "$n" >/dev/null 2>&1
	s=$("$MEMPROF" report -q -i "$W/pf$n.data" --csv --sort dso | awk -F, 'NR>1 {s+=$2} END {print s}')
	echo "# pf$n.data: $(du -m "$W/pf$n.data" | cut -f1) MiB, $s samples"
	# warm the page cache for both
	cat "$W/pf$n.data" >/dev/null
	run "perf-sym-$n" "$PERF" report -i "$W/pf$n.data" --stdio --sort dso,sym
	run "memprof-sym-$n" "$MEMPROF" report -q -i "$W/pf$n.data" --sort dso,sym
	eval "ps=\$perf_sym_${n}_s pm=\$perf_sym_${n}_m ms=\$memprof_sym_${n}_s mm=\$memprof_sym_${n}_m"
	eval "pc=\$perf_sym_${n}_c mc=\$memprof_sym_${n}_c"
	echo "  => memprof is $(ratio "$ps" "$ms")x faster than perf by symbol (cpu time: $(ratio "$pc" "$mc")x); peak RSS perf $((pm / 1024)) MiB, memprof $((mm / 1024)) MiB"
done

# srcline on ~1e5 cpu-clock samples (20 kHz). perf runs addr2line for each distinct
# address, so the cost shows with many of them: a python3 run (a big interpreter, with
# debug info where installed) when there is one, else matmul.
cat >"$W/work.py" <<'PY'
import json, re
d = {}
for i in range(300000):
    d[str(i)] = [i, str(i) * 3, {"a": i}]
s = json.dumps(d)
x = json.loads(s)
r = re.findall(r"\d+", s)
sorted(r)
PY
if command -v python3 >/dev/null; then
	"$PERF" record -q -e cpu-clock -c 50000 -o "$W/cpu.data" python3 "$W/work.py" >/dev/null 2>&1
else
	"$PERF" record -q -e cpu-clock -c 50000 -o "$W/cpu.data" "$KERNELS/matmul" -N 512 -a all -r 3 >/dev/null 2>&1
fi
s=$("$MEMPROF" report -q -i "$W/cpu.data" --csv --sort dso | awk -F, 'NR>1 {s+=$2} END {print s}')
echo "# cpu.data: $s samples"
run perf-report-srcline "$PERF" report -i "$W/cpu.data" --stdio --sort srcline --no-children -g none
run memprof-report-srcline "$MEMPROF" report -q -i "$W/cpu.data" --sort srcline
echo "  => memprof is $(ratio "$perf_report_srcline_s" "$memprof_report_srcline_s")x faster than perf by source line (cpu time: $(ratio "$perf_report_srcline_c" "$memprof_report_srcline_c")x); peak RSS perf $((perf_report_srcline_m / 1024)) MiB, memprof $((memprof_report_srcline_m / 1024)) MiB"

# memory of its own (anonymous), apart from the mapped recording: peak RssAnon
anon_peak() { # CMD...: prints the peak RssAnon in MiB
	"$@" >/dev/null 2>&1 &
	local pid=$! peak=0 v
	while kill -0 $pid 2>/dev/null; do
		v=$(awk '/^RssAnon:/ {print $2}' /proc/$pid/status 2>/dev/null || echo 0)
		[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
		sleep 0.01
	done
	wait $pid || true
	echo $((peak / 1024))
}
for n in 1000000 10000000; do
	echo "# pf$n.data: peak anonymous memory (RssAnon, MiB): memprof $(anon_peak "$MEMPROF" report -q -i "$W/pf$n.data"), perf $(anon_peak "$PERF" report -i "$W/pf$n.data" --stdio --sort dso,sym)"
done

# call chains: perf record -g of page faults (kernel fault path and user frames), the
# Children/Self report (memprof's default with chains) against perf report --children;
# peak anonymous memory for 1e6 and 2e6 samples (flat: stacks are aggregated)
cc -O2 -g -fno-omit-frame-pointer -o "$W/pagetouch-fp" "$HERE/pagetouch.c"
for n in 1000000 2000000; do
	"$PERF" record -q -g -e page-faults -c 1 -o "$W/pfg$n.data" "$W/pagetouch-fp" "$n" 16384 20 \
		>/dev/null 2>&1
	cat "$W/pfg$n.data" >/dev/null
	echo "# pfg$n.data: $(du -m "$W/pfg$n.data" | cut -f1) MiB, call chains"
	run "perf-children-$n" "$PERF" report -i "$W/pfg$n.data" --stdio --children --sort dso,sym
	run "memprof-children-$n" "$MEMPROF" report -q -i "$W/pfg$n.data" --sort dso,sym
	eval "ps=\$perf_children_${n}_s ms=\$memprof_children_${n}_s pc=\$perf_children_${n}_c mc=\$memprof_children_${n}_c"
	echo "  => memprof children report is $(ratio "$ps" "$ms")x faster than perf report --children (cpu time: $(ratio "$pc" "$mc")x)"
	echo "# pfg$n.data: peak anonymous memory (RssAnon, MiB): memprof $(anon_peak "$MEMPROF" report -q -i "$W/pfg$n.data" --sort dso,sym)"
done

# call chains of a program with many distinct stacks (python3's interpreter, cpu-clock -g at
# 20 kHz): each symbol's call tree, built for every row of the children report, must not
# walk every stack of the file
if command -v python3 >/dev/null; then
	"$PERF" record -q -g -e cpu-clock -F 20000 -o "$W/pyg.data" python3 "$W/work.py" >/dev/null 2>&1
	cat "$W/pyg.data" >/dev/null
	echo "# pyg.data: $(du -m "$W/pyg.data" | cut -f1) MiB, python3 with call chains"
	run perf-children-py "$PERF" report -i "$W/pyg.data" --stdio --children
	run memprof-children-py "$MEMPROF" report -q -i "$W/pyg.data"
	echo "  => memprof children report is $(ratio "$perf_children_py_s" "$memprof_children_py_s")x faster than perf report --children on many stacks (cpu time: $(ratio "$perf_children_py_c" "$memprof_children_py_c")x)"
fi
