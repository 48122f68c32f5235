#!/usr/bin/env python3
"""Compare memprof report's call-graph outputs with perf's (tests/e2e/callgraph_perf.sh).

  children PERF_TXT MEMPROF_CSV  Children/Self per symbol within 0.1 point above 0.5%
  trees PERF MEMPROF K           the top K entries' -g folded lines are the same
  graph PERF MEMPROF K           the top K entries' -g graph drawings are the same
  selfeq NOCHILDREN_TXT CSV      --no-children's Overhead = the children report's Self
  fold PERF_SCRIPT               fold `perf script -F comm,ip,sym` as stackcollapse does
"""
import csv
import re
import sys

PERF_ROW = re.compile(r'^\s+([\d.]+)%\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$')
MP_ROW = re.compile(r'^\s+([\d.]+)%\s+([\d.]+)%\s+\d+\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$')


def norm(sym):
    # unresolved addresses: perf pads them to 16 digits, memprof too; compare as numbers
    # (perf prints 0 as 0000000000000000)
    if re.fullmatch(r'0x[0-9a-f]+|[0-9a-f]{16}', sym):
        return hex(int(sym, 16))
    return sym


def pool(d, k, v):
    # Unresolved places are left out: perf names a sample's own unresolved address by its
    # object-relative value and the same address in call chains by the sampled one, two
    # entries where memprof has one.
    if k[1].startswith('0x'):
        return
    o = d.get(k, (0.0, 0.0))
    d[k] = (o[0] + v[0], o[1] + v[1])


def children(perf_txt, mp_csv):
    perf = {}
    for line in open(perf_txt):
        m = PERF_ROW.match(line)
        if m:
            pool(perf, (m.group(3), norm(m.group(5))), (float(m.group(1)), float(m.group(2))))
    rows = list(csv.reader(l for l in open(mp_csv) if not l.startswith('#')))
    hdr = rows[0]
    ich = next(i for i, h in enumerate(hdr) if h.endswith(' children %'))
    isf = next(i for i, h in enumerate(hdr) if h.endswith(' %') and 'children' not in h)
    ido, isy = hdr.index('dso'), hdr.index('sym')
    mp = {}
    for r in rows[1:]:
        pool(mp, (r[ido], norm(r[isy])), (float(r[ich]), float(r[isf])))
    bad = 0
    checked = 0
    for k in sorted(set(perf) | set(mp)):
        p = perf.get(k, (0.0, 0.0))
        q = mp.get(k, (0.0, 0.0))
        if max(p + q) < 0.5:
            continue
        checked += 1
        if abs(p[0] - q[0]) > 0.1 or abs(p[1] - q[1]) > 0.1:
            print('%s %s: perf children %.2f self %.2f, memprof %.2f %.2f' % (k + p + q))
            bad += 1
    print('%d symbols compared, %d differ' % (checked, bad))
    if checked < 3:
        print('too few symbols')
        return 1
    return 1 if bad else 0


def blocks(path, row_re):
    """entries in order: ((dso, sym), children, [lines of the tree])"""
    out = []
    for line in open(path):
        line = line.rstrip('\n')
        m = row_re.match(line)
        if m:
            g = m.groups()
            out.append(((g[-3], norm(g[-1])), float(g[0]), []))
        elif out and not line.startswith('#'):
            out[-1][2].append(line.rstrip())
    return out


def top(bl, k):
    # the top k by children, and any other entry tied with the last one
    bl = [b for b in bl if b[2] and any(x.strip() for x in b[2])]
    if len(bl) <= k:
        return bl
    lim = bl[k - 1][1]
    return [b for b in bl if b[1] >= lim]


def trees(perf, mp, k, graph=False):
    pb = top(blocks(perf, PERF_ROW), int(k))
    mb = {b[0]: b for b in blocks(mp, MP_ROW)}
    bad = 0
    for key, ch, lines in pb:
        if key not in mb:
            print('%s: not in memprof\'s report' % (key,))
            bad += 1
            continue
        mine = mb[key][2]
        strip = lambda ls: [l for l in ls if l.strip()]
        a, b = strip(lines), strip(mine)
        if not graph:
            a, b = sorted(a), sorted(b)
        if a != b:
            bad += 1
            print('%s %.2f%%: trees differ' % (key, ch))
            print('  perf:'), [print('    ' + l) for l in a]
            print('  memprof:'), [print('    ' + l) for l in b]
    print('%d entries compared, %d differ' % (len(pb), bad))
    return 1 if bad or not pb else 0


def selfeq(txt, mp_csv):
    row = re.compile(r'^\s+(\d+)\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*?)\s*$')
    nc = {}
    inby = False
    for line in open(txt):
        if line.startswith('# By '):
            inby = True
        m = row.match(line)
        if inby and m:
            nc[(m.group(3), norm(m.group(5)))] = float(m.group(2))
    rows = list(csv.reader(l for l in open(mp_csv) if not l.startswith('#')))
    hdr = rows[0]
    isf = next(i for i, h in enumerate(hdr) if h.endswith(' %') and 'children' not in h)
    ido, isy = hdr.index('dso'), hdr.index('sym')
    bad = 0
    for r in rows[1:]:
        k = (r[ido], norm(r[isy]))
        v = float(r[isf])
        # the text has 2 decimals, the csv 4
        if v >= 0.005 and abs(nc.get(k, 0.0) - v) > 0.0051:
            print('%s: --no-children %.2f, Self %.2f' % (k, nc.get(k, 0.0), v))
            bad += 1
    if not nc:
        print('no rows in the --no-children report')
        return 1
    return 1 if bad else 0


def jsoncmp(js, mp_csv):
    import json
    d = json.load(open(js))
    rows = list(csv.reader(l for l in open(mp_csv) if not l.startswith('#')))
    hdr = rows[0]
    ich = next(i for i, h in enumerate(hdr) if h.endswith(' children %'))
    want = {(r[hdr.index('dso')], r[hdr.index('sym')]): float(r[ich]) for r in rows[1:]}
    got = {(r['dso'], r['sym']): r['children_percent'][0] for r in d['rows']}
    if want != got:
        print('json children differ from csv')
        return 1
    top = d['rows'][0]
    if not top.get('callchains') or top['callchains'][0]['percent'] <= 0:
        print('no call chains in the json of the top symbol')
        return 1
    return 0


def fold(script):
    counts = {}
    comm, frames = None, []

    def flush():
        if comm is not None and frames:
            k = ';'.join([comm] + frames[::-1])
            counts[k] = counts.get(k, 0) + 1

    for line in open(script, errors='replace'):
        line = line.rstrip('\n')
        if not line.strip():
            flush()
            comm, frames = None, []
        elif not line[0].isspace():
            flush()
            comm, frames = line.strip(), []
        else:
            parts = line.split(None, 1)
            sym = parts[1].strip() if len(parts) > 1 else '[unknown]'
            frames.append(sym)
    flush()
    for k in sorted(counts):
        print('%s %d' % (k, counts[k]))
    return 0


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'children':
        sys.exit(children(sys.argv[2], sys.argv[3]))
    if mode == 'trees':
        sys.exit(trees(sys.argv[2], sys.argv[3], sys.argv[4]))
    if mode == 'graph':
        sys.exit(trees(sys.argv[2], sys.argv[3], sys.argv[4], graph=True))
    if mode == 'selfeq':
        sys.exit(selfeq(sys.argv[2], sys.argv[3]))
    if mode == 'json':
        sys.exit(jsoncmp(sys.argv[2], sys.argv[3]))
    if mode == 'fold':
        sys.exit(fold(sys.argv[2]))
    sys.exit(2)
