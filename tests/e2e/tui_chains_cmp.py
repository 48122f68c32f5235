#!/usr/bin/env python3
"""Compare memprof tui --batch screens of a recording with call chains (tests/e2e/tui_chains.sh).

  list TUI CSV PERF    the list's Children and Self: equal to memprof report --csv's at two
                       decimals (every entry), within 0.1 point of perf report --children's
                       above 0.5% (PERF '-' = no perf)
  tree TUI REPORT      the first entry's unfolded tree (tui --batch e) against its drawing
                       in memprof report -g graph,0.5,caller: the same functions, the same
                       percentages on the same branches
  calls TUI CSV NAME   the callers and callees view of NAME: its title's children and self
                       are the csv's, its direct callers add up to its children, its direct
                       callees to children - self
  cursor TUI           print the function on the cursor row (an entry or a chain row)
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgraph_perfcmp as cp  # noqa: E402  (perf's --children rows, names of addresses)

ENTRY = re.compile(r'^([> ])([-+ ])\s*([\d.]+)%\s+(?:([\d.]+)%\s+)?(\S.*?)\s{2,}(\S+)$')
NODE = re.compile(r'^([> ])(\s*)([-+ ]) ([\d.]+)% (.*)$')


def screen(path):
    return [l.rstrip('\n') for l in open(path)]


def body(lines):
    # title, header, rows, status line
    return lines[2:-1]


def entries(lines):
    out = []
    for l in body(lines):
        m = ENTRY.match(l)
        if m:
            out.append((m.group(6), m.group(5), float(m.group(3)),
                        float(m.group(4)) if m.group(4) else 0.0))
    return out


def csv_rows(path):
    rows = list(csv.reader(l for l in open(path) if not l.startswith('#')))
    hdr = rows[0]
    ich = next(i for i, h in enumerate(hdr) if h.endswith(' children %'))
    isf = next(i for i, h in enumerate(hdr) if h.endswith(' %') and 'children' not in h)
    ido, isy = hdr.index('dso'), hdr.index('sym')
    out = {}
    for r in rows[1:]:
        k = (r[ido], r[isy])
        o = out.get(k, (0.0, 0.0))
        out[k] = (o[0] + float(r[ich]), o[1] + float(r[isf]))
    return out


def cmp_list(tui, mp_csv, perf_txt):
    rows = entries(screen(tui))
    mp = csv_rows(mp_csv)
    bad = 0
    seen = set()
    for dso, sym, ch, sf in rows:
        seen.add((dso, sym))
        q = mp.get((dso, sym))
        if q is None:
            print('tui %s %s: not in memprof report' % (dso, sym))
            bad += 1
            continue
        if abs(ch - q[0]) > 0.0051 or abs(sf - q[1]) > 0.0051:
            print('%s %s: tui children %.2f self %.2f, report %.4f %.4f' % (dso, sym, ch, sf,
                                                                          q[0], q[1]))
            bad += 1
    missing = [k for k, v in mp.items() if k not in seen and v[0] >= 0.5]
    for k in missing:
        print('report %s %s (%.2f%%): not in the tui list' % (k + (mp[k][0],)))
    bad += len(missing)
    print('%d tui entries against memprof report, %d differ' % (len(rows), bad))
    if perf_txt != '-':
        perf, tu = {}, {}
        for line in open(perf_txt):
            m = cp.PERF_ROW.match(line)
            if m:
                cp.pool(perf, (m.group(3), cp.norm(m.group(5))),
                        (float(m.group(1)), float(m.group(2))))
        for dso, sym, ch, sf in rows:
            cp.pool(tu, (dso, cp.norm(sym)), (ch, sf))
        checked = pbad = 0
        for k in sorted(set(perf) | set(tu)):
            p, q = perf.get(k, (0.0, 0.0)), tu.get(k, (0.0, 0.0))
            if max(p + q) < 0.5:
                continue
            checked += 1
            if abs(p[0] - q[0]) > 0.1 or abs(p[1] - q[1]) > 0.1:
                print('%s %s: perf children %.2f self %.2f, tui %.2f %.2f' % (k + p + q))
                pbad += 1
        print('%d symbols against perf report --children, %d differ' % (checked, pbad))
        if checked < 3:
            print('too few symbols compared with perf')
            pbad += 1
        bad += pbad
    if len(rows) < 3:
        print('too few entries')
        bad += 1
    return 1 if bad else 0


def tui_tree(lines):
    """The first entry and the rows of its tree: [(indent, pct or None, name)]."""
    b = body(lines)
    first = ENTRY.match(b[0])
    out = []
    for l in b[1:]:
        if ENTRY.match(l):
            break
        m = NODE.match(l)
        if m:
            out.append((len(m.group(2)), float(m.group(4)), m.group(5)))
        elif l.strip():
            out.append((None, None, l.strip()))
    return (first.group(6), first.group(5)), out


GRAPH_ENTRY = re.compile(r'^\s+([\d.]+)%\s+([\d.]+)%\s+\d+\s+(\S+)\s+\[.\]\s+(.*?)\s*$')


def report_tree(path, key):
    """The -g graph drawing under entry key: [(pct or None, name)] in drawing order."""
    out, inside = [], False
    for l in open(path):
        l = l.rstrip('\n')
        m = GRAPH_ENTRY.match(l)
        if m:
            if inside:
                break
            inside = (m.group(3), m.group(4)) == key
            continue
        if not inside or not l.replace('|', '').strip():
            continue
        m = re.search(r'--([\d.]+)%--(.*)$', l)
        if m:
            out.append((float(m.group(1)), m.group(2).strip()))
        elif '---' in l:
            out.append((None, l.split('---', 1)[1].strip()))
        else:
            out.append((None, l.replace('|', ' ').strip()))
    return out


def cmp_tree(tui, report):
    key, rows = tui_tree(screen(tui))
    rep = report_tree(report, key)
    if not rep:
        print('no tree under %s %s in the report' % key)
        return 1
    tnames = sorted(n for _, _, n in rows)
    rnames = sorted(n for _, n in rep)
    bad = 0
    if tnames != rnames:
        print('functions differ:\n  tui    %s\n  report %s' % (tnames, rnames))
        bad += 1
    theads = sorted((p, n) for _, p, n in rows if p is not None)
    rheads = sorted((p, n) for p, n in rep if p is not None)
    extra = list(theads)
    for h in rheads:
        if h in extra:
            extra.remove(h)
        else:
            print('report branch %.2f%% %s: not in the tui tree' % h)
            bad += 1
    # the report draws a single root holding the whole entry without its percentage
    roots = [n for p, n in rep if p is None][:1]
    for p, n in extra:
        if n not in roots:
            print('tui branch %.2f%% %s: not in the report' % (p, n))
            bad += 1
    print('%s %s: %d tree rows, %d branches with percentages, %d differ' %
          (key + (len(rows), len(rheads), bad)))
    if len(rheads) < 2:
        print('too few branches')
        bad += 1
    return 1 if bad else 0


def cmp_calls(tui, mp_csv, name):
    lines = screen(tui)
    m = re.match(r'^ Calls of (\S+) \((\S+)\) \| .*: children ([\d.]+)%, self ([\d.]+)%', lines[0])
    if not m or m.group(1) != name:
        print('title: %s' % lines[0])
        return 1
    ch, sf = float(m.group(3)), float(m.group(4))
    q = csv_rows(mp_csv).get((m.group(2), name))
    bad = 0
    if q is None or abs(ch - q[0]) > 0.0051 or abs(sf - q[1]) > 0.0051:
        print('title children %.2f self %.2f, report %s' % (ch, sf, q))
        bad += 1
    part, sums, n = None, {'Callers': 0.0, 'Callees': 0.0}, {'Callers': 0, 'Callees': 0}
    for l in body(lines):
        h = re.match(r'^[> ][-+ ] (Callers|Callees) of ', l)
        if h:
            part = h.group(1)
            continue
        nm = NODE.match(l)
        if nm and part and len(nm.group(2)) == 3:  # a direct caller or callee
            sums[part] += float(nm.group(4))
            n[part] += 1
    if abs(sums['Callers'] - ch) > 0.01 * n['Callers'] + 0.006:
        print('direct callers add up to %.2f%%, children %.2f%%' % (sums['Callers'], ch))
        bad += 1
    if abs(sums['Callees'] - (ch - sf)) > 0.01 * n['Callees'] + 0.011:
        print('direct callees add up to %.2f%%, children - self %.2f%%' % (sums['Callees'],
                                                                          ch - sf))
        bad += 1
    print('%s: %d callers (%.2f%%), %d callees (%.2f%%), children %.2f%% self %.2f%%, %d differ' %
          (name, n['Callers'], sums['Callers'], n['Callees'], sums['Callees'], ch, sf, bad))
    if not n['Callers']:
        print('no callers')
        bad += 1
    return 1 if bad else 0


def cursor(tui):
    for l in body(screen(tui)):
        if l.startswith('>'):
            m = ENTRY.match(l)
            if m:
                print(m.group(5))
                return 0
            m = NODE.match(l)
            print(m.group(5) if m else l[1:].strip())
            return 0
    return 1


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'list':
        sys.exit(cmp_list(sys.argv[2], sys.argv[3], sys.argv[4]))
    if mode == 'tree':
        sys.exit(cmp_tree(sys.argv[2], sys.argv[3]))
    if mode == 'calls':
        sys.exit(cmp_calls(sys.argv[2], sys.argv[3], sys.argv[4]))
    if mode == 'cursor':
        sys.exit(cursor(sys.argv[2]))
    sys.exit(2)
