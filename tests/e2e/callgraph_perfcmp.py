#!/usr/bin/env python3
"""Compare memprof report's call-graph outputs with perf's (tests/e2e/callgraph_perf.sh).

  children PERF_TXT MEMPROF_CSV  Children/Self per symbol within 0.1 point above 0.5%
  trees PERF MEMPROF K [TOL]     the top K entries' -g folded lines are the same (or
                                 their percentages within TOL)
  graph PERF MEMPROF K           the top K entries' -g graph drawings are the same
  flat PERF MEMPROF K            the top K entries' -g flat chains are the same
  selfeq NOCHILDREN_TXT CSV      --no-children's Overhead = the children report's Self
  fold PERF_SCRIPT               fold `perf script -F comm,ip,sym` as stackcollapse does
  foldcmp A B                    two folded files have the same stacks and counts
  json JSON CSV                  --json's children equal --csv's, the top row has chains
  pproftop TOP CSV INDEX         go tool pprof -top's flat, cum = Self, Children
  pproftraces TRACES FOLDED      go tool pprof -traces = report --folded
  pprofinline RAW                go tool pprof -raw has a location with an inlined line
  pproflines RAW PERF_SCRIPT     -raw's lines of inlined addresses = perf script srclines
  kdab PERF_TXT SCRIPT FOLDED FOLDED_PERIOD CSV NM
                                 the DWARF fixture: perf's chains = memprof's cut after the
                                 first user address, and the Children they give
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


BRANCH = re.compile(r'--([\d.]+)%--(.*)$')


def parse_graph(lines):
    """perf's drawing as a tree: (percent or None, [names], [children]). A node's own
    further names stand 11 columns right of the '|' its branch hangs from, where its
    children's branches hang."""
    root = (None, [], [])
    stack = [(-1, root)]
    for l in lines:
        m = BRANCH.search(l)
        if m:
            pipe = m.start() - 1
            node = (m.group(1), [m.group(2).strip()], [])
            while len(stack) > 1 and stack[-1][0] > pipe:
                stack.pop()
            stack[-1][1][2].append(node)
            stack.append((pipe + 11, node))
            continue
        i = l.find('---')
        if i >= 0 and l[i + 3:].strip() and '|' not in l[i:]:
            node = (None, [l[i + 3:].strip()], [])
            root[2].append(node)
            stack = [(-1, root), (i + 3, node)]
            continue
        t = l.rstrip()
        name = t.lstrip(' |')
        if not name:
            continue
        col = len(t) - len(name)
        for c, node in reversed(stack):
            if c == col:
                node[1].append(name)
                break
        else:
            return None  # not a drawing perf makes
    return root


def canon(node):
    """siblings of equal percentage in any order (perf orders those by object pointers)"""
    kids = [canon(c) for c in node[2]]
    pcts = [float(c[0]) for c in node[2] if c[0] is not None]
    ordered = all(a >= b for a, b in zip(pcts, pcts[1:]))
    return (node[0], tuple(node[1]), tuple(sorted(kids)), ordered)


def near(a, b, tol):
    """folded lines "P% chain": the same chains with percentages within tol; a chain on
    one side only is allowed below the limit + tol (it may sit on either side of it)"""
    def load(ls):
        d = {}
        for l in ls:
            m = re.match(r'^\s*([\d.]+)%\s+(.*)$', l)
            if m:
                d[m.group(2)] = d.get(m.group(2), 0.0) + float(m.group(1))
        return d
    x, y = load(a), load(b)
    if not x:
        return False
    low = min(list(x.values()) + list(y.values()))
    for k in set(x) | set(y):
        if k in x and k in y:
            if abs(x[k] - y[k]) > tol:
                return False
        elif max(x.get(k, 0), y.get(k, 0)) > low + tol:
            return False
    return True


def trees(perf, mp, k, graph=False, tol=0.0):
    pb = top(blocks(perf, PERF_ROW), int(k))
    mb = {b[0]: b for b in blocks(mp, MP_ROW)}
    bad = 0
    for key, ch, lines in pb:
        if key not in mb:
            print('%s: not in memprof\'s report' % (key,))
            bad += 1
            continue
        mine = mb[key][2]
        # [vdso] functions: perf names them from its copy of the vdso, memprof by address
        # when it has none
        vd = re.compile(r'(?<=[;\s-])(__vdso_\w+|0x[0-9a-f]+)(?=;|$)')
        strip = lambda ls: [vd.sub('[unknown]', l) for l in ls if l.strip()]
        a, b = strip(lines), strip(mine)
        if tol:
            same = near(a, b, tol)
        elif graph:
            same = a == b or canon(parse_graph(a) or (0, [], [])) == canon(
                parse_graph(b) or (1, [], []))
        else:
            same = sorted(a) == sorted(b)
        if not same:
            bad += 1
            print('%s %.2f%%: trees differ' % (key, ch))
            print('  perf:'), [print('    ' + l) for l in a]
            print('  memprof:'), [print('    ' + l) for l in b]
    print('%d entries compared, %d differ' % (len(pb), bad))
    return 1 if bad or not pb else 0


def flat_chains(lines):
    """-g flat: blocks of a percentage line and the chain's names, as a sorted list"""
    out, cur = [], None
    for l in lines:
        t = l.strip()
        if re.fullmatch(r'[\d.]+%', t):
            cur = [t]
            out.append(cur)
        elif t and cur is not None:
            cur.append(t)
        elif not t:
            cur = None
    return sorted(tuple(c) for c in out)


def flat(perf, mp, k):
    """the top K entries' -g flat chains: the same chains with the same percentages (in
    any order: perf sorts them by the samples ending there, and prints the cumulated
    percentage in children mode, memprof by what it prints)"""
    pb = top(blocks(perf, PERF_ROW), int(k))
    mb = {b[0]: b for b in blocks(mp, MP_ROW)}
    bad = 0
    for key, ch, lines in pb:
        a = flat_chains(lines)
        b = flat_chains(mb[key][2]) if key in mb else None
        if not a or a != b:
            bad += 1
            print('%s %.2f%%: flat chains differ\n  perf: %s\n  memprof: %s' % (key, ch, a, b))
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


def num(v):
    # pprof prints plain counts, or with a unit suffix it knows; ours have none it knows
    return float(re.match(r'[\d.]+(?:e[+-]\d+)?', v).group(0))


def pproftop(top, mp_csv, index):
    """go tool pprof -top -noinlines: flat = Self, cum = Children per function"""
    row = re.compile(r'^\s*([\d.]+\S*)\s+[\d.]+%\s+[\d.]+%\s+([\d.]+\S*)\s+[\d.]+%\s+(.*?)\s*$')
    got = {}
    for line in open(top):
        m = row.match(line)
        if m:
            got[m.group(3)] = (num(m.group(1)), num(m.group(2)))
    rows = list(csv.reader(l for l in open(mp_csv) if not l.startswith('#')))
    hdr = rows[0]
    # sample types: per event, its samples then its estimated count (period)
    ev, what = divmod(int(index), 2)
    what = 'period' if what else 'samples'
    isf = [i for i, h in enumerate(hdr) if h.endswith(' ' + what) and 'children' not in h][ev]
    ich = [i for i, h in enumerate(hdr) if h.endswith(' children ' + what)][ev]
    isy = hdr.index('sym')
    names = [r[isy] for r in rows[1:]]
    bad = checked = 0
    for r in rows[1:]:
        name = r[isy]
        if name.startswith('0x') or names.count(name) > 1 or float(r[ich]) == 0:
            continue  # unresolved, or one name in two objects (pprof merges them)
        checked += 1
        want = (float(r[isf]), float(r[ich]))
        have = got.get(name)
        if have is None or abs(have[0] - want[0]) > 0.5 or abs(have[1] - want[1]) > 0.5:
            print('%s: pprof flat, cum %s, memprof self, children %s' % (name, have, want))
            bad += 1
    print('%d functions compared, %d differ' % (checked, bad))
    return 1 if bad or checked < 3 else 0


def unk(name):
    return '[unknown]' if re.fullmatch(r'0x[0-9a-f]+', name) else name


def pproftraces(traces, folded):
    got = {}
    blocks, cur = [], None
    for line in open(traces):
        line = line.rstrip('\n')
        if line.startswith('-----------+'):
            if cur:
                blocks.append(cur)
            cur = []
        elif cur is not None and line.strip():
            cur.append(line)
    for b in blocks:
        # label lines ("comm:  matmul") come before the value line
        at = next((i for i, l in enumerate(b) if re.match(r'^\s*\d+\s+\S', l)), None)
        if at is None:
            continue
        m = re.match(r'^\s*(\d+)\s+(.*?)\s*$', b[at])
        frames = [m.group(2)] + [l.strip() for l in b[at + 1:]]
        k = ';'.join(unk(f) for f in frames[::-1])
        got[k] = got.get(k, 0) + int(m.group(1))
    want = {}
    for line in open(folded):
        stack, n = line.rstrip('\n').rsplit(' ', 1)
        k = stack.split(';', 1)[1] if ';' in stack else ''
        want[k] = want.get(k, 0) + int(n)
    if got != want:
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                print('%s: pprof %s, --folded %s' % (k, got.get(k), want.get(k)))
        return 1
    print('%d stacks equal' % len(got))
    return 0 if got else 1


def pproflines(raw, script):
    """the source lines of every address with inlined functions: go tool pprof -raw's
    location lines (innermost first, each outer function at its inlined call's site) equal
    perf script -F ip,sym,srcline's lines of that address's frames (file:line, the same
    order); and no line 0 among them"""
    got = set()
    cur = None
    inloc = False
    for line in open(raw):
        line = line.rstrip('\n')
        if line.startswith('Locations'):
            inloc = True
            continue
        if inloc and line and not line[0].isspace():
            break
        if not inloc:
            continue
        m = re.match(r'^\s+\d+: 0x[0-9a-f]+ (?:M=\d+ )?(.*)$', line)
        text = m.group(1) if m else line.strip()
        if m:
            if cur and len(cur) > 1:
                got.add(tuple(cur))
            cur = []
        fl = re.search(r' (\S*):(\d+) s=\d+$', text)
        if cur is not None and fl:
            cur.append('%s:%s' % (fl.group(1).rsplit('/', 1)[-1], fl.group(2)))
    if cur and len(cur) > 1:
        got.add(tuple(cur))
    want = set()
    grp, last_ip = [], None
    lines = open(script, errors='replace').read().split('\n')
    i = 0
    def flush():
        if len(grp) > 1:
            want.add(tuple(grp))
    while i < len(lines):
        m = re.match(r'^\s+([0-9a-f]+) (.*)$', lines[i])
        if m and i + 1 < len(lines):
            src = lines[i + 1].strip()
            sm = re.match(r'^(\S+?):(\d+)( \(inlined\))?$', src)
            ip = m.group(1)
            if ip != last_ip:
                flush()
                grp = []
            last_ip = ip
            if sm:
                grp.append('%s:%s' % (sm.group(1).rsplit('/', 1)[-1], sm.group(2)))
            i += 2
            continue
        flush()
        grp, last_ip = [], None
        i += 1
    flush()
    zero = [t for t in got if any(x.endswith(':0') for x in t)]
    for t in zero[:5]:
        print('line 0 in an inlined location: %s' % (t,))
    miss = sorted(want - got)
    for t in miss[:10]:
        print('perf script %s: not a location of the profile' % (t,))
    print('%d inlined addresses in perf script, %d in the profile, %d missing' %
          (len(want), len(got), len(miss)))
    return 1 if zero or miss or not want else 0


def load_folded(path):
    d = {}
    for line in open(path):
        stack, n = line.rstrip('\n').rsplit(' ', 1)
        d[stack] = d.get(stack, 0) + int(n)
    return d


def nm_canon(nm_txt):
    """symbols at one address as one name (the first in sort order): perf names an address
    without a DWARF function by the alias addr2line picks, as inlined"""
    by_addr = {}
    for line in open(nm_txt):
        p = line.split()
        if len(p) == 3 and p[1] in 'TtWw':
            by_addr.setdefault(p[0], []).append(p[2])
    canon = {}
    for names in by_addr.values():
        for n in names:
            canon[n] = min(names)
    def c(f):
        base = f[:-len(' (inlined)')] if f.endswith(' (inlined)') else f
        return canon.get(base, f)
    return c


def first_user(stack):
    """perf 6.1's libunwind on a static (ET_EXEC) binary: the chain stops after the first
    user address (its symbol and the functions inlined there); kernel frames, unresolved
    here, fold as [unknown]"""
    f = stack.split(';')
    comm, fr = f[0], f[1:]
    i = len(fr) - 1
    while i >= 0 and fr[i] == '[unknown]':
        i -= 1
    while i > 0 and fr[i].endswith(' (inlined)'):
        i -= 1
    return [comm] + fr[max(i, 0):]


def kdab(perf_txt, perf_script, mp_folded, mp_period, mp_csv, nm_txt):
    """kdab-vector-dwarf-bdw: perf's chains are memprof's cut after the first user address
    (same stacks, same counts); perf's Children of user symbols are what memprof's chains
    cut so give, within 0.1 point; Self equal; memprof's own Children never less"""
    c = nm_canon(nm_txt)
    canon_stack = lambda fr: ';'.join(c(f) for f in fr)
    bad = 0
    # (1) the chains
    pf = {}
    for line in fold_lines(perf_script):
        stack, n = line.rsplit(' ', 1)
        k = canon_stack(stack.split(';'))
        pf[k] = pf.get(k, 0) + int(n)
    mf = {}
    for stack, n in load_folded(mp_folded).items():
        k = canon_stack(first_user(stack))
        mf[k] = mf.get(k, 0) + n
    for k in sorted(set(pf) | set(mf)):
        if pf.get(k) != mf.get(k):
            print('chain %s: perf %s, memprof cut %s' % (k, pf.get(k), mf.get(k)))
            bad += 1
    print('%d chains, %d differ' % (len(pf), bad))
    # (2) children of user entries from the cut chains (periods)
    per = load_folded(mp_period)
    total = float(sum(per.values()))
    cut_ch, full_ch = {}, {}
    for stack, n in per.items():
        for d, fr in ((cut_ch, first_user(stack)[1:]), (full_ch, stack.split(';')[1:])):
            for name in set(c(f) for f in fr if f != '[unknown]'):
                d[name] = d.get(name, 0) + n
    perf = {}
    for line in open(perf_txt):
        m = PERF_ROW.match(line)
        if m and m.group(4) == '.':
            # the symbol's entry and its alias's "inlined" one are one function: the
            # same samples under two names (children the larger, self the sum)
            k = c(m.group(5))
            o = perf.get(k, (0.0, 0.0))
            perf[k] = (max(o[0], float(m.group(1))), o[1] + float(m.group(2)))
    rows = list(csv.reader(l for l in open(mp_csv) if not l.startswith('#')))
    hdr = rows[0]
    ich = next(i for i, h in enumerate(hdr) if h.endswith(' children %'))
    isf = next(i for i, h in enumerate(hdr) if h.endswith(' %') and 'children' not in h)
    il, isy = hdr.index('level'), hdr.index('sym')
    mp = {}
    for r in rows[1:]:
        if r[il] == '.':
            k = c(r[isy])
            o = mp.get(k, (0.0, 0.0))
            mp[k] = (o[0] + float(r[ich]), o[1] + float(r[isf]))
    checked = 0
    for k in sorted(set(perf) | set(cut_ch)):
        want = perf.get(k, (0.0, 0.0))
        cut = 100.0 * cut_ch.get(k, 0) / total
        if max(want[0], cut) < 0.5:
            continue
        checked += 1
        if abs(want[0] - cut) > 0.1:
            print('%s: perf children %.2f, memprof chains cut %.2f' % (k, want[0], cut))
            bad += 1
    for k in sorted(set(perf) | set(mp)):
        sp, sm = perf.get(k, (0, 0))[1], mp.get(k, (0, 0))[1]
        if abs(sp - sm) > 0.1:
            print('%s: perf self %.2f, memprof %.2f' % (k, sp, sm))
            bad += 1
        full = 100.0 * full_ch.get(k, 0) / total
        if k in mp and abs(mp[k][0] - full) > 0.1:
            print('%s: memprof children %.2f, its chains give %.2f' % (k, mp[k][0], full))
            bad += 1
        if mp.get(k, (0, 0))[0] + 0.1 < 100.0 * cut_ch.get(k, 0) / total:
            print('%s: memprof children below the cut chains\' %s' % (k, cut_ch.get(k)))
            bad += 1
    print('%d user entries compared' % checked)
    return 1 if bad or checked < 5 or not pf else 0


def pprofinline(raw):
    """a location of -raw with a second line: a function inlined there"""
    inloc = False
    prev_loc = False
    for line in open(raw):
        line = line.rstrip('\n')
        if line.startswith('Locations'):
            inloc = True
            continue
        if inloc and line and not line[0].isspace():
            break
        if inloc:
            if re.match(r'^\s+\d+: 0x', line):
                prev_loc = True
            elif prev_loc and line.strip() and re.search(r'\.c:\d+|s=', line):
                print('inlined frame: ' + line.strip())
                return 0
    print('no location with an inlined function')
    return 1


def fold(script):
    for line in fold_lines(script):
        print(line)
    return 0


def fold_lines(script):
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
    return ['%s %d' % (k, counts[k]) for k in sorted(counts)]


def glibc_alias(f):
    """glibc's aliases of one function (__GI_x, __x, x) as one name: perf 6.1 names a
    syscall stub (no DWARF function there) by the alias addr2line picks, as inlined"""
    m = re.fullmatch(r'(?:__GI_|__)?(\w+?)(?: \(inlined\))?', f)
    return m.group(1) if m else f


def foldcmp(a, b, aliases=False):
    """two folded files: the same stacks with the same counts; [vdso] functions count as
    [unknown] (perf names them from its copy of the vdso, memprof when it finds one)"""
    def load(path):
        d = {}
        for line in open(path):
            stack, n = line.rstrip('\n').rsplit(' ', 1)
            k = ';'.join('[unknown]' if f.startswith('__vdso_') else
                         glibc_alias(f) if aliases else f
                         for f in stack.split(';'))
            d[k] = d.get(k, 0) + int(n)
        return d
    x, y = load(a), load(b)
    bad = [k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)]
    for k in bad[:20]:
        print('%s: perf script %s, memprof %s' % (k, x.get(k), y.get(k)))
    print('%d stacks, %d differ' % (len(x), len(bad)))
    if aliases and x:
        # DWARF unwinding: perf's libunwind stops early on the odd sample (a [vdso] frame,
        # an exit handler) where libdw goes on: at most 1% of the samples may differ
        moved = sum(abs(x.get(k, 0) - y.get(k, 0)) for k in bad) / 2.0
        total = sum(x.values())
        print('%.0f of %d samples in other stacks' % (moved, total))
        return 1 if moved > 0.01 * total else 0
    return 1 if bad or not x else 0


if __name__ == '__main__':
    mode = sys.argv[1]
    if mode == 'children':
        sys.exit(children(sys.argv[2], sys.argv[3]))
    if mode == 'trees':
        sys.exit(trees(sys.argv[2], sys.argv[3], sys.argv[4],
                       tol=float(sys.argv[5]) if len(sys.argv) > 5 else 0.0))
    if mode == 'graph':
        sys.exit(trees(sys.argv[2], sys.argv[3], sys.argv[4], graph=True))
    if mode == 'flat':
        sys.exit(flat(sys.argv[2], sys.argv[3], sys.argv[4]))
    if mode == 'selfeq':
        sys.exit(selfeq(sys.argv[2], sys.argv[3]))
    if mode == 'json':
        sys.exit(jsoncmp(sys.argv[2], sys.argv[3]))
    if mode == 'pproftop':
        sys.exit(pproftop(sys.argv[2], sys.argv[3], sys.argv[4]))
    if mode == 'pproftraces':
        sys.exit(pproftraces(sys.argv[2], sys.argv[3]))
    if mode == 'kdab':
        sys.exit(kdab(*sys.argv[2:8]))
    if mode == 'pproflines':
        sys.exit(pproflines(sys.argv[2], sys.argv[3]))
    if mode == 'pprofinline':
        sys.exit(pprofinline(sys.argv[2]))
    if mode == 'foldcmp':
        sys.exit(foldcmp(sys.argv[2], sys.argv[3], len(sys.argv) > 4))
    if mode == 'fold':
        sys.exit(fold(sys.argv[2]))
    sys.exit(2)
