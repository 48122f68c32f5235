#!/bin/bash
# Times memprof report against perf report on the same recordings and prints the ratios
# and both peak memory figures (never run by ctest).
#   1e6 and 1e7 samples: perf record -e page-faults -c 1 on bench/pagetouch.c
#   1e5 cpu-clock samples of a kernel: --sort srcline (perf runs addr2line)
#   1e6 and 2e6 samples with call chains (-g, page-faults of pagetouch built with frame
#   pointers, touching 20 calls deep): the children report against perf report --children
#   python3 with call chains (cpu-clock -g, 20 kHz): many distinct stacks, the same report
# and the realistic set (issue 27), each memprof against perf, best of 3, with the ratio and
# both peak RSS: two threads faulting in eight functions (pagetouch2.c) at 1e6 and 1e7
# samples (report and script), python3 -g and --call-graph dwarf (children, script), make -j2
# -g (children, flat by comm, script), sqlite3 -g (children, script) and --call-graph dwarf
# (script), the dwarf scripts also beside two nice'd busy loops, and chains of 1,000
# and 8,000 distinct frames (report, script; needs root to raise kernel.perf_event_max_stack
# for the recording). Set ONLY=realistic to run that set alone.
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
if [ "${ONLY:-}" != realistic ]; then
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

fi # ONLY

# ---- the realistic set (issue 27): recordings as users make them, each command best of 3
# for memprof and for perf on the same file, the ratio of the wall times and both peak RSS
# best LABEL CMD...: the least wall time of 3 runs (ms, from the clock around the run) and
# that run's peak RSS (KiB) in $W/LABEL.best
best() {
	local lbl=$1 b="" bm=0 t0 t1 ms k; shift
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$W/$lbl.t" "$@" >"$W/$lbl.out" 2>"$W/$lbl.err" ||
			{ echo "$lbl failed: $(tail -2 "$W/$lbl.err")"; return 1; }
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		k=$(tail -1 "$W/$lbl.t")
		if [ -z "$b" ] || [ "$ms" -lt "$b" ]; then b=$ms bm=$k; fi
	done
	echo "$b $bm" >"$W/$lbl.best"
}
# vs LABEL MEMPROF_ARGS -- PERF_ARGS: one line, memprof against perf
vs() {
	local lbl=$1 m=() p=(); shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do m+=("$1"); shift; done
	shift
	p=("$@")
	best "m-$lbl" "$MEMPROF" "${m[@]}" && best "p-$lbl" "$PERF" "${p[@]}" || return 0
	read -r ms mk <"$W/m-$lbl.best"
	read -r ps pk <"$W/p-$lbl.best"
	printf '%-26s memprof %7.3f s %6.1f MiB   perf %7.3f s %7.1f MiB   => %sx\n' "$lbl" \
		"$(echo "$ms / 1000" | bc -l)" "$(echo "$mk / 1024" | bc -l)" "$(echo "$ps / 1000" | bc -l)" \
		"$(echo "$pk / 1024" | bc -l)" "$(echo "scale=1; $ps / ($ms + ($ms == 0))" | bc -l)"
}
# loaded CMD...: CMD with two busy loops at nice 19 beside it on the machine (script must
# not be slower than perf script on a shared machine either)
loaded() {
	nice -n 19 sh -c 'while :; do :; done' &
	local l1=$!
	nice -n 19 sh -c 'while :; do :; done' &
	local l2=$!
	"$@"
	kill "$l1" "$l2"
	wait "$l1" "$l2" 2>/dev/null || true
}
echo "# realistic set: best of 3 each, ratio = perf's wall time / memprof's"
# two threads faulting in eight functions: interleaved CPU buffers, distinct addresses
cc -O2 -g -pthread -o "$W/pagetouch2" "$HERE/pagetouch2.c"
for n in 1000000 10000000; do
	"$PERF" record -q -e page-faults -c 1 -o "$W/pt$n.data" "$W/pagetouch2" "$n" >/dev/null 2>&1
	cat "$W/pt$n.data" >/dev/null
	vs "2threads-$n" report -q -i "$W/pt$n.data" --sort dso,sym -- report -i "$W/pt$n.data" --stdio --sort dso,sym
	[ "$n" = 1000000 ] && vs "2threads-$n-script" script -i "$W/pt$n.data" -- script -i "$W/pt$n.data"
done
rm -f "$W"/pt1000000*.data "$W"/pt10000000*.data
if command -v python3 >/dev/null; then
	[ -f "$W/pyg.data" ] ||
		"$PERF" record -q -g -e cpu-clock -F 20000 -o "$W/pyg.data" python3 "$W/work.py" >/dev/null 2>&1
	vs python3-g-children report -q -i "$W/pyg.data" -- report -i "$W/pyg.data" --stdio --children
	vs python3-g-script script -i "$W/pyg.data" -- script -i "$W/pyg.data"
	"$PERF" record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$W/pyd.data" python3 "$W/work.py" \
		>/dev/null 2>&1
	vs python3-dwarf-children report -q -i "$W/pyd.data" -- report -i "$W/pyd.data" --stdio --children
	vs python3-dwarf-script script -i "$W/pyd.data" -- script -i "$W/pyd.data"
	loaded vs python3-dwarf-script-loaded script -i "$W/pyd.data" -- script -i "$W/pyd.data"
fi
# make -j2 -g: many short processes (cc1, as, ld), each with its maps
mkdir -p "$W/mk"
for i in $(seq 1 16); do cp "$HERE/pagetouch2.c" "$W/mk/p$i.c"; done
printf 'all: %s\n%%.o: %%.c\n\tcc -O2 -pthread -c -o $@ $<\n' "$(seq -s ' ' -f 'p%g.o' 1 16)" >"$W/mk/Makefile"
"$PERF" record -q -g -e cpu-clock -F 5000 -o "$W/make.data" make -s -j2 -C "$W/mk" >/dev/null 2>&1
vs make-j2-g-children report -q -i "$W/make.data" -- report -i "$W/make.data" --stdio --children
vs make-j2-g-flat report -q -i "$W/make.data" --no-children --sort comm,dso,sym -- \
	report -i "$W/make.data" --stdio --no-children --sort comm,dso,sym -g none
vs make-j2-g-script script -i "$W/make.data" -- script -i "$W/make.data"
# sqlite3 -g: an inline-rich object where script's default must not look up inline frames
if command -v sqlite3 >/dev/null; then
	printf '%s\n' "create table t(a integer primary key, b text, c real);" \
		"with recursive n(i) as (select 1 union all select i+1 from n where i < 300000) insert into t select i, hex(randomblob(16)), random() % 1000 from n;" \
		"create index tb on t(b);" "select count(*), sum(c) from t where b like '%AB%';" >"$W/sq.sql"
	"$PERF" record -q -g -e cpu-clock -F 10000 -o "$W/sq.data" sqlite3 :memory: <"$W/sq.sql" >/dev/null 2>&1
	vs sqlite3-g-children report -q -i "$W/sq.data" -- report -i "$W/sq.data" --stdio --children
	vs sqlite3-g-script script -i "$W/sq.data" -- script -i "$W/sq.data"
	"$PERF" record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$W/sqd.data" sqlite3 :memory: \
		<"$W/sq.sql" >/dev/null 2>&1
	vs sqlite3-dwarf-script script -i "$W/sqd.data" -- script -i "$W/sqd.data"
	loaded vs sqlite3-dwarf-script-loaded script -i "$W/sqd.data" -- script -i "$W/sqd.data"
fi
# deep chains: 100 faults under 1,000 distinct frames, 10 under 8,000 (perf record writes
# chains up to the sysctl kernel.perf_event_max_stack: raised for the recording, as root)
deep() { # N: deepN.c, N functions each calling the next, the last touching a fresh page
	{
		echo '#include <stdlib.h>'
		echo '#include <sys/mman.h>'
		echo 'static volatile char *pg;'
		echo '__attribute__((noinline)) static void f0(long i) { pg[i * 4096] = 1; __asm__ volatile("" ::: "memory"); }'
		for ((i = 1; i < $1; i++)); do
			echo "__attribute__((noinline)) static void f$i(long i) { f$((i - 1))(i); __asm__ volatile(\"\" ::: \"memory\"); }"
		done
		echo "int main(int argc, char **argv) { long n = atol(argv[1]); pg = mmap(0, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0); for (long i = 0; i < n; i++) f$(($1 - 1))(i); return 0; }"
	} >"$W/deep$1.c"
	cc -O1 -fno-omit-frame-pointer -o "$W/deep$1" "$W/deep$1.c"
}
ms=/proc/sys/kernel/perf_event_max_stack
if old=$(cat $ms 2>/dev/null) && echo 8100 2>/dev/null >$ms; then
	deep 1000 && deep 8000
	"$PERF" record -q -g -e page-faults -c 1 -o "$W/deep1000.data" "$W/deep1000" 100 >/dev/null 2>&1 || true
	"$PERF" record -q -g -e page-faults -c 1 -o "$W/deep8000.data" "$W/deep8000" 10 >/dev/null 2>&1 || true
	echo "$old" >$ms
	for d in 1000 8000; do
		vs "deep$d-children" report -q -i "$W/deep$d.data" -- report -i "$W/deep$d.data" --stdio
		echo "  lines: memprof $(wc -l <"$W/m-deep$d-children.out"), perf $(wc -l <"$W/p-deep$d-children.out")"
		vs "deep$d-script" script -i "$W/deep$d.data" -- script -i "$W/deep$d.data"
	done
	# every frame (--max-stack 0): --json's trees grow with their nodes as the text's do
	# (perf has no json: its text report beside it)
	vs "deep1000-all-json" report -q -i "$W/deep1000.data" --max-stack 0 --json -- \
		report -i "$W/deep1000.data" --stdio --max-stack 1000
	echo "  bytes: memprof --json $(wc -c <"$W/m-deep1000-all-json.out"), perf $(wc -c <"$W/p-deep1000-all-json.out")"
else
	echo "# deep chains skipped: cannot raise $ms (run as root)"
fi
