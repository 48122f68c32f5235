#!/bin/bash
# (1) Differential test: on recordings of the kernels (cpu-clock, one and two events, made
# by perf record and, when it works here, by memprof record), memprof report's per-symbol
# percentages equal `perf report --stdio --sort dso,sym` within 0.1 point for every symbol
# above 0.5%, and the sample and estimated counts per event are the same.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
CMP=$(cd "$(dirname "$0")" && pwd)/report_perfcmp.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0 n=0

compare() { # data label
	local f=$1 lbl=$2
	"$PERF" report -i "$f" --stdio --sort dso,sym --no-children -g none 2>/dev/null |
		grep -v '^# (Tip' >"$lbl.perf.txt"
	grep -q '^# Samples' "$lbl.perf.txt" || { echo "FAIL $lbl: perf report read nothing"; fail=1; return; }
	if ! "$MEMPROF" report -q -i "$f" --csv >"$lbl.csv" 2>"$lbl.err"; then
		echo "FAIL $lbl: memprof report: $(cat "$lbl.err")"; fail=1; return
	fi
	if ! python3 "$CMP" "$lbl.perf.txt" "$lbl.csv" rows 0.1 0.5 >"$lbl.cmp"; then
		echo "FAIL $lbl:"; cat "$lbl.cmp"; fail=1
	fi
	# symbols really resolved on both sides: the kernel's hot function is named
	grep -q ",\.,$3," "$lbl.csv" || { echo "FAIL $lbl: no row for $3"; fail=1; }
	n=$((n + 1))
}

rec() { # label symbol perf-event-args... -- command
	local lbl=$1 sym=$2; shift 2
	local ev=()
	while [ "$1" != "--" ]; do ev+=("$1"); shift; done
	shift
	"$PERF" record -q "${ev[@]}" -o "$lbl.perf.data" "$@" >/dev/null 2>"$lbl.rec.err" ||
		{ echo "FAIL $lbl: perf record: $(cat "$lbl.rec.err")"; fail=1; return; }
	compare "$lbl.perf.data" "perf-$lbl" "$sym"
	if [ "${have_mrec:-1}" = 1 ]; then
		if "$MEMPROF" record "${ev[@]}" -o "$lbl.mp.data" "$@" >/dev/null 2>"$lbl.mrec.err"; then
			compare "$lbl.mp.data" "memprof-$lbl" "$sym"
		else
			echo "note: memprof record unavailable: $(head -1 "$lbl.mrec.err")"
			have_mrec=0
		fi
	fi
}

rec walk walk -e cpu-clock -F 4000 -- "$KERNELS/cachebench" -m walk -s 32M -o random -r 3
# -r 4: enough samples that one startup sample (ld.so _start, whose line perf prints as
# ":0" and memprof as _start+3) stays below the 0.5% rows compared by source line
rec matmul mm_naive -e cpu-clock -F 4000 -- "$KERNELS/matmul" -N 256 -a naive -r 4
rec two-events walk -e cpu-clock -e task-clock -F 2000 -- \
	"$KERNELS/cachebench" -m walk -s 32M -o random -r 3
rec group inc -e '{cpu-clock,task-clock}' -F 2000 -- \
	"$KERNELS/cachebench" -m inc -s 32M -o random -r 3
# by source line: perf report --sort srcline (through addr2line) on the matmul recording
if [ -f matmul.perf.data ]; then
	"$PERF" report -i matmul.perf.data --stdio --sort srcline --no-children -g none 2>/dev/null \
		>srcline.perf.txt
	"$MEMPROF" report -q -i matmul.perf.data --sort srcline --no-skid --csv >srcline.csv
	python3 - srcline.perf.txt srcline.csv <<'PY' || fail=1
import csv, os, re, sys
perf = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s+([\d.]+)%\s+(\S.*)$', l)
    if m:
        perf[m.group(2).strip()] = float(m.group(1))
mp = {}
rows = list(csv.reader(open(sys.argv[2])))
for r in rows[1:]:
    key = '%s:%s' % (os.path.basename(r[0]), r[1]) if r[1] != '0' else r[0]
    mp[key] = mp.get(key, 0.0) + float(r[4])
bad = [(k, v, mp.get(k, 0.0)) for k, v in perf.items() if v >= 0.5 and abs(v - mp.get(k, 0.0)) > 0.1]
hot = [k for k, v in perf.items() if v >= 0.5 and k.startswith('matmul.c:')]
if bad or not hot:
    print('FAIL srcline: %s (matmul.c lines above 0.5%%: %d)' % (bad[:10], len(hot)))
    sys.exit(1)
PY
	n=$((n + 1))
fi
[ $fail -eq 0 ] && echo "OK: $n recordings agree with perf report"
exit $fail
