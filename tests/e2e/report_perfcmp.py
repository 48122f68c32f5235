#!/usr/bin/env python3
"""Compare `memprof report --csv --sort dso,sym` with a `perf report --stdio --sort dso,sym`
output (flat, no children). Used by tests/e2e/report_*.sh.

usage: report_perfcmp.py PERF_TXT MEMPROF_CSV MODE [TOL] [MINPCT]
  MODE rows:    every (dso, sym) row of perf above MINPCT must match within TOL points
  MODE objects: per-object sums must match (tolerance grows with the rounding of perf rows)
  Also checks per event: sample counts and estimated counts (perf's header lines) where
  perf prints them unabbreviated.
Prints one line per mismatch; exit 1 when any.
"""
import csv, re, sys

def parse_perf(path):
    """-> list of sections: {'events':[names], 'samples':int|None, 'count':int|None,
    'rows':[(dso, level, sym, [pcts])]}"""
    secs = []
    cur = None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r"# Samples: (\S+)\s+of events? '(.*)'$", line)
        if m:
            names = m.group(2)
            g = re.match(r'anon group \{ (.*) \}$', names)
            evs = [x.strip() for x in g.group(1).split(',')] if g else [names]
            n = m.group(1)
            cur = {'events': evs, 'samples': int(n) if n.isdigit() else None,
                   'count': None, 'rows': []}
            secs.append(cur)
            continue
        m = re.match(r'# Event count \(approx\.\): (\d+)', line)
        if m and cur:
            cur['count'] = int(m.group(1))
            continue
        if not line.strip() or line.startswith('#') or cur is None:
            continue
        toks = line.split()
        pcts = []
        while toks and toks[0].endswith('%'):
            pcts.append(float(toks.pop(0)[:-1]))
        if not pcts:
            continue
        # dso may contain spaces? perf pads with spaces; level token is [x]
        li = next((i for i, t in enumerate(toks) if re.match(r'^\[[.kgHu]\]$', t)), None)
        if li is None:
            continue
        dso = ' '.join(toks[:li])
        sym = ' '.join(toks[li + 1:])
        cur['rows'].append((dso, toks[li][1], sym, pcts))
    return secs

def parse_memprof(path):
    rows = list(csv.reader(open(path)))
    hdr = rows[0]
    ev = []
    for i, h in enumerate(hdr):
        if h.endswith(' %'):
            ev.append((h[:-2], i))
    out = {}
    for r in rows[1:]:
        key = (r[0], r[1], r[2])  # dso, level, sym
        out[key] = {name: (int(r[i - 2]), int(r[i - 1]), float(r[i])) for name, i in ev}
    return [n for n, _ in ev], out

def norm_sym(s):
    # perf prints unresolved user symbols as 0x%016llx, kernel too; memprof the same
    return s.strip()

def main():
    perf_txt, mp_csv, mode = sys.argv[1:4]
    tol = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01
    minpct = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
    secs = parse_perf(perf_txt)
    evnames, mp = parse_memprof(mp_csv)
    bad = 0
    # memprof events in order; perf sections in order: map by position
    flat_events = [e for s in secs for e in s['events']]
    if len(flat_events) != len(evnames):
        # perf leaves out (non-group) events without samples
        evnames = [n for n in evnames if sum(v[n][0] for v in mp.values()) > 0]
    if len(flat_events) != len(evnames):
        print('event count differs: perf %s, memprof %s' % (flat_events, evnames))
        return 1
    # perf 6.1 stretches an object's size-0 _init over its .plt (newer perf ends it where
    # .plt starts, as memprof does): a sample in the PLT's unnamed header (the lazy
    # binder's, at a program's first calls) or in an entry perf's lookup then misses is
    # perf's _init, where memprof names the entry (x@plt) or leaves the header's address.
    # Such a memprof row that perf has in no section counts as its object's _init
    # (plt_vdso.sh compares those samples one by one).
    pkeys = set((dso, lvl, norm_sym(sym)) for sec in secs for dso, lvl, sym, _ in sec['rows'])
    for key in list(mp):
        dso, lvl, sym = key
        init = (dso, lvl, '_init')
        if key in pkeys or init not in pkeys or not (sym.startswith('0x') or sym.endswith('@plt')):
            continue
        acc = mp.setdefault(init, {n: (0, 0, 0.0) for n in mp[key]})
        for n, b in mp[key].items():
            a = acc.get(n, (0, 0, 0.0))
            acc[n] = (a[0] + b[0], a[1] + b[1], a[2] + b[2])
        del mp[key]
    k = 0
    for s in secs:
        idxs = list(range(k, k + len(s['events'])))
        k += len(s['events'])
        names = [evnames[i] for i in idxs]
        tot_samples = sum(sum(v[n][0] for v in mp.values()) for n in names)
        tot_count = sum(sum(v[n][1] for v in mp.values()) for n in names)
        if s['samples'] is not None and s['samples'] != tot_samples:
            print('%s: samples: perf %d, memprof %d' % (names, s['samples'], tot_samples)); bad += 1
        if s['count'] is not None and s['count'] != tot_count:
            print('%s: estimated count: perf %d, memprof %d' % (names, s['count'], tot_count)); bad += 1
        if mode == 'rows':
            # perf keeps a row per symbol, memprof per name in an object: perf's rows of
            # one name (libc's IRELATIVE PLT slots, all "@plt") are summed first
            prow, nrow = {}, {}
            for dso, lvl, sym, pcts in s['rows']:
                key = (dso, lvl, norm_sym(sym))
                nrow[key] = nrow.get(key, 0) + 1
                acc = prow.setdefault(key, [0.0] * len(names))
                for j in range(len(names)):
                    acc[j] += pcts[j] if j < len(pcts) else 0.0
            for key, pcts in prow.items():
                for j, n in enumerate(names):
                    pp = pcts[j]
                    if pp < minpct:
                        continue
                    mv = mp.get(key, {}).get(n, (0, 0, 0.0))[2]
                    if abs(mv - pp) > tol + 0.005 * (nrow[key] - 1):
                        print('%s %s [%s] %s: perf %.2f%%, memprof %.4f%%' % (n, key[0], key[1], key[2], pp, mv)); bad += 1
            for key, v in mp.items():
                for n in names:
                    if v[n][2] >= max(minpct, tol) + 0.005 and key not in prow:
                        print('%s %s [%s] %s: memprof %.4f%%, not in perf' % (n, key[0], key[1], key[2], v[n][2])); bad += 1
        else:
            pobj = {}
            cnt = {}
            for dso, lvl, sym, pcts in s['rows']:
                for j, n in enumerate(names):
                    pobj[(n, dso)] = pobj.get((n, dso), 0.0) + (pcts[j] if j < len(pcts) else 0.0)
                    cnt[(n, dso)] = cnt.get((n, dso), 0) + 1
            mobj = {}
            for key, v in mp.items():
                for n in names:
                    mobj[(n, key[0])] = mobj.get((n, key[0]), 0.0) + v[n][2]
            for key in set(pobj) | set(mobj):
                a, b = pobj.get(key, 0.0), mobj.get(key, 0.0)
                t = tol + 0.005 * cnt.get(key, 1)
                if abs(a - b) > t:
                    print('%s %s: perf %.2f%%, memprof %.4f%% (tolerance %.3f)' % (key[0], key[1], a, b, t)); bad += 1
    return 1 if bad else 0

sys.exit(main())
