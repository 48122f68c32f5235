#!/usr/bin/env python3
"""mem_patch.py IN OUT FIELD V1 V2 ...: copy numatop's Ivy Bridge perf mem file (one attr,
sample_type IP|TID|TIME|ADDR|PERIOD|WEIGHT|DATA_SRC) with FIELD (addr, weight or data_src)
of sample i set to V[i % n] (hex): synthetic samples with known memory fields, for the
memprof-vs-perf checks of mem_report.sh."""
import struct
import sys

src, out, field = sys.argv[1], sys.argv[2], sys.argv[3]
vals = [int(v, 16) for v in sys.argv[4:]]
# u64 index of each field after the 8-byte header: ip, pid/tid, time, addr, period, weight,
# data_src
slot = {'addr': 3, 'weight': 5, 'data_src': 6}[field]
b = bytearray(open(src, 'rb').read())
do, ds = struct.unpack_from('<QQ', b, 40)
pos, i = do, 0
while pos + 8 <= do + ds:
    typ, misc, size = struct.unpack_from('<IHH', b, pos)
    if size < 8:
        break
    if typ == 9:  # PERF_RECORD_SAMPLE
        struct.pack_into('<Q', b, pos + 8 + 8 * slot, vals[i % len(vals)])
        i += 1
    pos += size
open(out, 'wb').write(b)
