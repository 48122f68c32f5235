#!/bin/bash
# memprof report's output forms on a fixture: --json parses and holds the same numbers as
# --csv and the text table; --threshold hides small rows; --sort keys; objects missing
# symbols are listed with their share.
set -u
: "${MEMPROF:?}" "${SHARED_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/empty"
F=$SHARED_DIR/perfdata/pdc-hw-and-sw-3.4.data
H=(--symfs "$T/empty" --kallsyms /dev/null)
fail=0
"$MEMPROF" report -q -i "$F" "${H[@]}" --json >"$T/r.json" || fail=1
"$MEMPROF" report -q -i "$F" "${H[@]}" --csv >"$T/r.csv" || fail=1
"$MEMPROF" report -q -i "$F" "${H[@]}" >"$T/r.txt" || fail=1
"$MEMPROF" report -q -i "$F" "${H[@]}" --threshold 1 >"$T/t.txt" || fail=1
"$MEMPROF" report -q -i "$F" "${H[@]}" --sort comm,pid --csv >"$T/c.csv" || fail=1
python3 - "$T" <<'PY' || fail=1
import csv, json, re, sys
t = sys.argv[1]
j = json.load(open(t + '/r.json'))
ev = [e['name'] for e in j['events']]
# pdc-hw-and-sw-3.4: cycles 207 samples, cpu-clock 4734 (perf's stats), period 1000000 each
want = {'cycles': 207, 'cpu-clock': 4734}
for e in j['events']:
    if e['name'] in want and e['samples'] != want[e['name']]:
        sys.exit('json: %s samples %d, want %d' % (e['name'], e['samples'], want[e['name']]))
    if e['samples'] and e['estimated_count'] != e['samples'] * 1000000:
        sys.exit('json: %s estimated count %d' % (e['name'], e['estimated_count']))
for k, e in enumerate(j['events']):
    s = sum(r['samples'][k] for r in j['rows'])
    p = sum(r['percent'][k] for r in j['rows'])
    if s != e['samples'] or (s and abs(p - 100) > 0.01):
        sys.exit('json: rows of %s sum to %d samples, %.3f%%' % (e['name'], s, p))
rows = list(csv.reader(open(t + '/r.csv')))
if len(rows) - 1 != len(j['rows']):
    sys.exit('csv has %d rows, json %d' % (len(rows) - 1, len(j['rows'])))
if not j['missing'] or not any(m['dso'] == '[kernel.kallsyms]' for m in j['missing']):
    sys.exit('json: no missing-symbols entry for the kernel')
txt = open(t + '/r.txt').read()
if not re.search(r'no symbols for \[kernel.kallsyms\] \(no kallsyms\): [\d.]+% of cycles', txt):
    sys.exit('text: no missing-symbols line')
for name in ('cycles', 'cpu-clock'):
    if not re.search(r"\] %s: count \(overrun\) 1000000, samples \d+" % name, txt):
        sys.exit('text: header for %s' % name)
# threshold: every row shown has >= 1% in some event, and rows were hidden
thr = open(t + '/t.txt').read().split('# By comm,dso,sym')[1]  # several commands: comm first
n = 0
for l in thr.splitlines():
    m = re.findall(r'(\d+)\s+([\d.]+)%', l)
    if m and not l.startswith('#'):
        n += 1
        if max(float(x[1]) for x in m) < 1.0:
            sys.exit('threshold: row below 1%%: %s' % l)
if not n or 'rows below 1.00% not shown' not in thr:
    sys.exit('threshold: %d rows, no hidden-rows note' % n)
c = list(csv.reader(open(t + '/c.csv')))
if c[0][:2] != ['comm', 'pid'] or len(c) < 3:
    sys.exit('sort comm,pid: header %s, %d rows' % (c[0], len(c)))
PY
[ $fail -eq 0 ] && echo OK
exit $fail
