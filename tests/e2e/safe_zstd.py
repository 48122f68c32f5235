#!/usr/bin/env python3
"""safe_zstd.py IN.data AMPLIFIED.data PLAIN.data MIN_MB [FRAME_BYTES LEVEL] - for
e2e_safe_zstd (issues 18 and 29).

From a zstd-compressed perf.data file (file mode, perf record -z), write:
  AMPLIFIED: the decompressed data records repeated until they are at least MIN_MB MiB,
             every FINISHED_ROUND turned into FINISHED_INIT (one round: a reader that
             queues by record count holds it all), compressed again: one zstd frame
             per COMPRESSED record of 60000 input bytes;
  PLAIN:     the same records with each COMPRESSED record replaced by its decompressed
             bytes (libzstd through ctypes), the COMPRESSED feature cleared.
Both hold the same records in the same order, so their reports must be equal.
Prints the decompressed size of AMPLIFIED in MiB."""
import ctypes, ctypes.util, struct, sys

FINISHED_ROUND, FINISHED_INIT, COMPRESSED, COMPRESSED2 = 68, 82, 81, 83
HEADER_COMPRESSED = 27

class ZBuf(ctypes.Structure):
    _fields_ = [('ptr', ctypes.c_void_p), ('size', ctypes.c_size_t), ('pos', ctypes.c_size_t)]

def zstd():
    lib = ctypes.CDLL(ctypes.util.find_library('zstd') or 'libzstd.so.1')
    lib.ZSTD_createDStream.restype = ctypes.c_void_p
    lib.ZSTD_initDStream.argtypes = [ctypes.c_void_p]
    lib.ZSTD_initDStream.restype = ctypes.c_size_t
    lib.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(ZBuf), ctypes.POINTER(ZBuf)]
    lib.ZSTD_decompressStream.restype = ctypes.c_size_t
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    lib.ZSTD_createCCtx.restype = ctypes.c_void_p
    lib.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    lib.ZSTD_CCtx_setParameter.restype = ctypes.c_size_t
    lib.ZSTD_compressStream2.argtypes = [ctypes.c_void_p, ctypes.POINTER(ZBuf), ctypes.POINTER(ZBuf), ctypes.c_int]
    lib.ZSTD_compressStream2.restype = ctypes.c_size_t
    return lib

def compress_records(lib, data, step=60000, level=3):
    """data as COMPRESSED records: one zstd frame per step input bytes (60000: its output
    stays under a record's 64 KiB); a larger frame's output is split over as many
    records as it needs (one record may then expand to tens of MiB)."""
    cs = lib.ZSTD_createCCtx()
    lib.ZSTD_CCtx_setParameter(cs, 100, level)    # ZSTD_c_compressionLevel
    out = bytearray()
    dst = ctypes.create_string_buffer(max(1 << 17, step))
    for i in range(0, len(data), step):
        chunk = data[i:i + step]
        src = ctypes.create_string_buffer(chunk, len(chunk))
        inb = ZBuf(ctypes.cast(src, ctypes.c_void_p), len(chunk), 0)
        ob = ZBuf(ctypes.cast(dst, ctypes.c_void_p), len(dst), 0)
        mode = 2  # ZSTD_e_end
        while True:
            r = lib.ZSTD_compressStream2(cs, ctypes.byref(ob), ctypes.byref(inb), mode)
            if lib.ZSTD_isError(r):
                sys.exit('zstd compress error')
            if r == 0:
                break
        payload = dst.raw[:ob.pos]
        if step <= 60000 and 8 + len(payload) > 65535:
            sys.exit('a flush does not fit a record')
        for j in range(0, len(payload), 65000):
            part = payload[j:j + 65000]
            out += struct.pack('<IHH', COMPRESSED, 0, 8 + len(part)) + part
    return bytes(out)

def decompress(lib, ds, payload):
    src = ctypes.create_string_buffer(payload, len(payload))
    inb = ZBuf(ctypes.cast(src, ctypes.c_void_p), len(payload), 0)
    out = bytearray()
    dst = ctypes.create_string_buffer(1 << 20)
    while True:
        ob = ZBuf(ctypes.cast(dst, ctypes.c_void_p), len(dst), 0)
        r = lib.ZSTD_decompressStream(ds, ctypes.byref(ob), ctypes.byref(inb))
        if lib.ZSTD_isError(r):
            sys.exit('zstd error')
        out += dst.raw[:ob.pos]
        if inb.pos == inb.size and ob.pos < ob.size:
            return bytes(out)

def records(d, off, end):
    while off + 8 <= end:
        t, _, sz = struct.unpack_from('<IHH', d, off)
        if sz < 8:
            sys.exit('bad record at %#x' % off)
        yield t, d[off:off + sz]
        off += sz

def write(path, d, data, flags_clear=()):
    hdr = list(struct.unpack_from('<8sQQQQQQQQ4Q', d, 0))
    data_off, data_size = hdr[5], hdr[6]
    flags = hdr[9:13]
    secs, toff = [], data_off + data_size
    for bit in range(256):
        if flags[bit // 64] >> (bit % 64) & 1:
            o, s = struct.unpack_from('<QQ', d, toff)
            toff += 16
            if bit not in flags_clear:
                secs.append((bit, d[o:o + s]))
    for bit in flags_clear:
        flags[bit // 64] &= ~(1 << (bit % 64))
    hdr[6] = len(data)
    hdr[9:13] = flags
    table = data_off + len(data)
    pos = table + 16 * len(secs)
    tab, blobs = b'', b''
    for _, blob in secs:
        tab += struct.pack('<QQ', pos, len(blob))
        pos += len(blob)
        blobs += blob
    with open(path, 'wb') as f:
        f.write(struct.pack('<8sQQQQQQQQ4Q', *hdr))
        f.write(d[104:data_off])
        f.write(data)
        f.write(tab)
        f.write(blobs)

def main():
    src, amp, plain, min_mb = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    step = int(sys.argv[5]) if len(sys.argv) > 5 else 60000
    level = int(sys.argv[6]) if len(sys.argv) > 6 else 3
    d = open(src, 'rb').read()
    if d[:8] != b'PERFILE2' or struct.unpack_from('<Q', d, 8)[0] != 104:
        sys.exit(src + ': not a file-mode perf.data file')
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    lib = zstd()
    ds = lib.ZSTD_createDStream()
    lib.ZSTD_initDStream(ds)
    pparts, unz, compressed = [], 0, 0
    for t, r in records(d, data_off, data_off + data_size):
        if t == FINISHED_ROUND:
            r = struct.pack('<IHH', FINISHED_INIT, 0, 8)
        if t == COMPRESSED:
            r = decompress(lib, ds, r[8:])
            compressed += 1
        elif t == COMPRESSED2:
            r = decompress(lib, ds, r[16:16 + struct.unpack_from('<Q', r, 8)[0]])
            compressed += 1
        pparts.append(r)
    if not compressed:
        sys.exit(src + ': no compressed records')
    one = b''.join(pparts)
    plain_data = one * max(1, (min_mb << 20) // len(one) + 1)
    write(amp, d, compress_records(lib, plain_data, step, level))
    write(plain, d, plain_data, flags_clear=(HEADER_COMPRESSED,))
    print(len(plain_data) >> 20)

main()
