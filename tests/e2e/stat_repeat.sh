#!/bin/bash
# memprof stat as perf stat prints it beyond the counts: the rates (CPUs utilized, /sec),
# user and system seconds, -r N (each count's mean and the spread of the mean), -I MS
# (counts per interval, summing to the whole run's); each against perf stat.
source "$(dirname "$0")/record_lib.sh"
need_perf
S=$(dirname "$0")/../standins
gcc -O1 -g -o faulter "$S/faulter.c" || fail "cannot build the stand-in"
num() { tr -d ','; }

# rates, user and sys: the notes are the printed counts' ratios, user+sys is task-clock
"$MEMPROF" stat -e task-clock,page-faults -- ./faulter 20000 >/dev/null 2>mp.txt ||
	fail "stat: $(cat mp.txt)"
"$PERF" stat -e task-clock,page-faults -- ./faulter 20000 2>pf.txt >/dev/null || fail "perf stat"
python3 - mp.txt pf.txt <<'PY' || exit 1
import re, sys
def parse(p):
    d = {}
    for l in open(p):
        l = l.replace(',', '')
        m = re.match(r'\s*([\d.]+)\s+(msec)?\s*(task-clock|page-faults)\s+#\s+([\d.]+) (CPUs utilized|([KMG]?)/sec)', l)
        if m:
            d[m.group(3)] = (float(m.group(1)), float(m.group(4)), m.group(5), m.group(6) or '')
        m = re.match(r'\s*([\d.]+) seconds (time elapsed|user|sys)', l)
        if m:
            d[m.group(2)] = float(m.group(1))
    return d
mp, pf = parse(sys.argv[1]), parse(sys.argv[2])
need = ['task-clock', 'page-faults', 'time elapsed', 'user', 'sys']
for d, who in ((mp, 'memprof'), (pf, 'perf')):
    miss = [k for k in need if k not in d]
    if miss:
        sys.exit("FAIL: %s stat lacks %s" % (who, miss))
msec, cpus, kind, _ = mp['task-clock']
if kind != 'CPUs utilized' or abs(cpus - msec / 1e3 / mp['time elapsed']) > 0.002 + 0.002 * cpus:
    sys.exit("FAIL: CPUs utilized %s, task-clock/elapsed %.4f" % (cpus, msec / 1e3 / mp['time elapsed']))
pfc, rate, _, unit = mp['page-faults']
scale = {'': 1, 'K': 1e3, 'M': 1e6, 'G': 1e9}[unit]
want = pfc / (msec / 1e3)
if abs(rate * scale - want) > 0.001 * want + 0.0005 * scale:
    sys.exit("FAIL: page-faults rate %s %s/sec, count/task-clock %.3f/sec" % (rate, unit, want))
if abs(pfc - pf['page-faults'][0]) > 0.05 * pf['page-faults'][0]:
    sys.exit("FAIL: page-faults %d, perf %d" % (pfc, pf['page-faults'][0]))
if mp['page-faults'][3] != pf['page-faults'][3]:
    print("note: rate unit %r, perf's %r (other run)" % (mp['page-faults'][3], pf['page-faults'][3]))
cpu = mp['user'] + mp['sys']
if abs(cpu - msec / 1e3) > 0.15 * msec / 1e3 + 0.01:
    sys.exit("FAIL: user+sys %.4f s, task-clock %.4f s" % (cpu, msec / 1e3))
print("ok: %.2f msec, %.3f CPUs utilized, %d faults at %s %s/sec, user %.3f sys %.3f (perf: %d faults)" % (
    msec, cpus, pfc, rate, unit, mp['user'], mp['sys'], pf['page-faults'][0]))
PY

# -r 3: the runs fault 4000, 8000 and 12000 pages (and the same start-up): the mean and
# the spread of the mean against three single perf stat runs of the same, and against perf
# stat -r 3's spread (perf 6.1 prints the last run's count there, with the spread of the
# mean in percent of that count: the absolute spread is compared)
cat >runs.sh <<'SH'
n=$(cat c); echo $((n + 1)) >c; exec ./faulter $((n * 4000)) >/dev/null
SH
echo 1 >c
"$MEMPROF" stat -r 3 -e page-faults -- sh runs.sh 2>mp3.txt || fail "stat -r: $(cat mp3.txt)"
echo 1 >c
"$PERF" stat -r 3 -e page-faults -- sh runs.sh 2>pf3.txt || fail "perf stat -r"
echo 1 >c
for i in 1 2 3; do
	"$PERF" stat -x, -e page-faults -- sh runs.sh 2>&1 >/dev/null | awk -F, '$3 == "page-faults" { print $1 }'
done >pf1.txt
python3 - mp3.txt pf3.txt pf1.txt <<'PY' || exit 1
import re, sys
def parse(p):
    t = open(p).read().replace(',', '')
    m = re.search(r'^\s*(\d+)\s+page-faults.*\(\s*\+-\s*([\d.]+)%\s*\)', t, re.M)
    e = re.search(r'([\d.]+) \+- ([\d.]+) seconds time elapsed\s+\(\s*\+-\s*([\d.]+)%\s*\)', t)
    if not m or not e or '(3 runs)' not in t:
        sys.exit("FAIL: no -r 3 page-faults/elapsed lines in %s:\n%s" % (p, t))
    return int(m.group(1)), float(m.group(2)), float(e.group(1)), float(e.group(2)), float(e.group(3))
mp, pf = parse(sys.argv[1]), parse(sys.argv[2])
one = [int(x) for x in open(sys.argv[3]).read().split()]
if len(one) != 3:
    sys.exit("FAIL: perf stat single runs: %s" % one)
mean = sum(one) / 3.0
sd = (sum((x - mean) ** 2 for x in one) / 2 / 3) ** 0.5
sd_mp, sd_pf = mp[0] * mp[1] / 100, pf[0] * pf[1] / 100
if abs(mp[0] - mean) > 0.03 * mean:
    sys.exit("FAIL: -r 3 mean %d, perf's three runs %s: %.0f" % (mp[0], one, mean))
if abs(sd_mp - sd) > 0.05 * sd + 20 or abs(sd_mp - sd_pf) > 0.05 * sd_pf + 20:
    sys.exit("FAIL: -r 3 spread %.0f (%.2f%%), perf's runs %.0f, perf -r %.0f" % (sd_mp, mp[1], sd, sd_pf))
if abs(mp[4] - 100 * mp[3] / mp[2]) > 0.05 + 0.05 * mp[4]:
    sys.exit("FAIL: elapsed %s +- %s is not +- %.2f%%" % (mp[2], mp[3], mp[4]))
print("ok: -r 3: %d page-faults +- %.2f%% (= %.0f); perf's runs %s: mean %.0f, spread %.0f; perf -r: %.0f" % (
    mp[0], mp[1], sd_mp, one, mean, sd, sd_pf))
PY

# -I 50: per-interval counts; their sum is the run's count (against perf stat -I)
cmd="./faulter 20000 >/dev/null; sleep 0.2; ./faulter 10000 >/dev/null"
"$MEMPROF" stat -I 50 -e task-clock,page-faults -- sh -c "$cmd" 2>mpi.txt || fail "stat -I: $(cat mpi.txt)"
"$PERF" stat -I 50 -e task-clock,page-faults -- sh -c "$cmd" 2>pfi.txt || fail "perf stat -I"
python3 - mpi.txt pfi.txt <<'PY' || exit 1
import re, sys
def parse(p):
    rows = []
    for l in open(p):
        m = re.match(r'\s*(\d+\.\d{9})\s+([\d.,]+)\s+(msec)?\s*(task-clock|page-faults)\b', l)
        if m:
            rows.append((float(m.group(1)), float(m.group(2).replace(',', '')), m.group(4), l))
    return rows
mp, pf = parse(sys.argv[1]), parse(sys.argv[2])
if not mp or not open(sys.argv[1]).read().startswith('#           time             counts unit events'):
    sys.exit("FAIL: no -I lines or header:\n%s" % open(sys.argv[1]).read())
for ev in ('task-clock', 'page-faults'):
    ts = [t for t, v, e, l in mp if e == ev]
    if ts != sorted(ts) or len(set(ts)) != len(ts):
        sys.exit("FAIL: %s interval times not increasing: %s" % (ev, ts))
    if any('#' not in l for t, v, e, l in mp if e == ev and v > 0):
        sys.exit("FAIL: %s interval without its rate" % ev)
s_mp = sum(v for t, v, e, l in mp if e == 'page-faults')
s_pf = sum(v for t, v, e, l in pf if e == 'page-faults')
if not 30000 * 0.5 < s_mp or abs(s_mp - s_pf) > 0.05 * s_pf:
    sys.exit("FAIL: page-faults over the intervals %d, perf's %d" % (s_mp, s_pf))
print("ok: -I 50: %d intervals, page-faults summed %d (perf %d over %d)" % (
    len(mp) // 2, s_mp, s_pf, len(pf) // 2))
PY
"$MEMPROF" stat -r 0 true 2>err; [ $? = 2 ] || fail "-r 0 accepted"
"$MEMPROF" stat -r 2 --csv true 2>err; [ $? = 2 ] && grep -q -- '-r and -I print text' err || fail "-r --csv: $(cat err)"
echo "ok: stat rates, user/sys, -r and -I as perf stat"
