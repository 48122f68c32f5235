#!/usr/bin/env python3
"""safe_features.py IN OUT MODE - for e2e_safe_features (issue 18): a copy of a file-mode
perf.data file with one header feature damaged. MODE: hostname or topology (that section
pointed 1 GiB past the end), unknown (a feature bit nobody knows, 100, added with its
section past the end), table (the file cut 8 bytes into the feature table)."""
import struct, sys

src, out, mode = sys.argv[1:4]
d = bytearray(open(src, 'rb').read())
data_off, data_size = struct.unpack_from('<QQ', d, 40)
flags = list(struct.unpack_from('<4Q', d, 72))
toff = data_off + data_size
bits = [b for b in range(256) if flags[b // 64] >> (b % 64) & 1]
far = len(d) + (1 << 30)
if mode in ('hostname', 'topology'):
    b = 3 if mode == 'hostname' else 13
    if b not in bits:
        sys.exit('no feature %d' % b)
    struct.pack_into('<QQ', d, toff + 16 * bits.index(b), far, 4096)
elif mode == 'unknown':
    # a feature bit nobody knows (100), its section far past the end
    ents = [struct.unpack_from('<QQ', d, toff + 16 * i) for i in range(len(bits))]
    blobs_start = toff + 16 * len(bits)
    nb = sorted(bits + [100])
    flags[100 // 64] |= 1 << (100 % 64)
    new = []
    for b in nb:
        if b == 100:
            new.append((far, 64))
        else:
            o, s = ents[bits.index(b)]
            new.append((o + 16, s))  # blobs move by one table entry
    tab = b''.join(struct.pack('<QQ', o, s) for o, s in new)
    d = d[:toff] + tab + d[blobs_start:]
    struct.pack_into('<4Q', d, 72, *flags)
elif mode == 'table':
    d = d[:toff + 8]  # the feature table cut: nothing after the data but 8 bytes
open(out, 'wb').write(bytes(d))
