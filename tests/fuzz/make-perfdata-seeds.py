#!/usr/bin/env python3
"""Make the perf.data seed corpus (tests/fuzz/corpus/perfdata/) from the shared fixtures.

  tests/fuzz/make-perfdata-seeds.py ../shared/perfdata tests/fuzz/corpus/perfdata

* fixtures under 100 KB are copied as they are;
* larger file-mode fixtures are shrunk to a valid file of a few KB: the same header, attrs
  and ids and feature sections, and a data section that keeps the first few records of
  each type (so group reads, DWARF stack dumps, branch stacks, RAW payloads stay in);
* a few truncated variants (cut inside a record, inside the header, inside the features).
"""
import os
import struct
import sys

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)


def shrink(b, per_type=4, max_data=24000, max_feat=8192):
    magic, hsize, asz, ao, asize, do, ds = struct.unpack_from('<7Q', b, 0)
    feats = list(struct.unpack_from('<4Q', b, 72))
    nf = sum(bin(x).count('1') for x in feats)
    t = do + ds
    secs = [struct.unpack_from('<QQ', b, t + 16 * i) for i in range(nf)]
    seen, data, pos = {}, bytearray(), do
    while pos + 8 <= do + ds:
        typ, misc, size = struct.unpack_from('<IHH', b, pos)
        if size < 8:
            break
        rec = b[pos:pos + size]
        if typ == 71:  # AUXTRACE carries its payload after the record
            break
        limit = 2 if typ in (1, 3, 10) else per_type
        if seen.get(typ, 0) < limit and len(data) + size <= max_data:
            data += rec
            seen[typ] = seen.get(typ, 0) + 1
        pos += size
    head = bytearray(b[:do])  # header, ids, attrs (they all precede the data in perf's files)
    ndo = len(head)
    feat_tab = bytearray()
    blobs = bytearray()
    bits = [i for i in range(256) if feats[i // 64] >> (i % 64) & 1]
    keep = [(bit, so, ss) for bit, (so, ss) in zip(bits, secs) if ss <= max_feat]
    for bit, (so, ss) in zip(bits, secs):
        if ss > max_feat:  # big sections (BPF info, PMU caps) are dropped with their bit
            feats[bit // 64] &= ~(1 << (bit % 64))
    base = ndo + len(data) + 16 * len(keep)
    for bit, so, ss in keep:
        feat_tab += struct.pack('<QQ', base + len(blobs), ss)
        blobs += b[so:so + ss]
    struct.pack_into('<QQ', head, 40, ndo, len(data))
    struct.pack_into('<4Q', head, 72, *feats)
    return bytes(head + data + feat_tab + blobs)


written = 0
for name in sorted(os.listdir(src)):
    if not name.endswith('.data'):
        continue
    b = open(os.path.join(src, name), 'rb').read()
    short = name[:-5]
    pipe = struct.unpack_from('<Q', b, 8)[0] == 16
    if len(b) < 100 * 1024:
        open(os.path.join(out, short), 'wb').write(b)
    elif not pipe:
        data_off = struct.unpack_from('<Q', b, 40)[0]
        if data_off > 64 * 1024:
            continue
        open(os.path.join(out, short + '.shrunk'), 'wb').write(shrink(b))
    written += 1

# truncated variants
for short, cuts in (('pdc-pipe-group-6.8', (12, 300, 5001)), ('pdc-group-desc-4.14', (90, 4000, 9900)),
                    ('lpd-graviton-zstd-pipe', (13300,))):
    b = open(os.path.join(src, short + '.data'), 'rb').read()
    for c in cuts:
        open(os.path.join(out, '%s.cut%d' % (short, c)), 'wb').write(b[:c])
