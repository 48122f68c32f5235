#!/usr/bin/env bash
# memprof topology: the snapshot with DIMMs (24 SMBIOS type-17 entries) with EDAC fixtures
# laid out as the kernel documents them copied in; modules checked against dmidecode's
# decoding of the same entries, ECC against the article's Table 11.1, EDAC against the
# fixture files, node distances against the snapshot's sysfs; then this machine.
set -euo pipefail
: "${MEMPROF:?}" "${SHARED_DIR:?}" "${TESTS_DATA:?}"
command -v dmidecode >/dev/null || { echo "dmidecode not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xjf "$SHARED_DIR/topology/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2" -C "$tmp" \
  --exclude='*/sys/devices/pci*' --exclude='*/sys/bus/pci'
m="$tmp/32em64t-2n8c+1mic"
cp -r "$TESTS_DATA/edac/dimm-layout/sys/devices/system/edac" "$m/sys/devices/system/"

# dmidecode reads a dump: an SMBIOS 3 entry point, then the table (the entries, in order)
python3 - "$m/sys/firmware/dmi/entries" "$tmp/dmi.bin" <<'PY'
import glob, struct, sys
ents = sorted(glob.glob(sys.argv[1] + '/17-*'), key=lambda p: int(p.rsplit('-', 1)[1]))
table = b''.join(open(e + '/raw', 'rb').read() for e in ents) + bytes([127, 4, 0xff, 0xfe, 0, 0])
ep = bytearray(b'_SM3_' + bytes(1) + bytes([0x18, 3, 0, 0, 1, 0]) + struct.pack('<IQ', len(table), 32))
ep[5] = (-sum(ep)) & 0xff
open(sys.argv[2], 'wb').write(bytes(ep) + bytes(32 - len(ep)) + table)
PY
dmidecode --from-dump "$tmp/dmi.bin" -t 17 > "$tmp/dmidecode.txt"
"$MEMPROF" topology --json --fsroot "$m" > "$tmp/topo.json"
"$MEMPROF" topology --fsroot "$m" > "$tmp/topo.txt"
cat "$tmp/topo.txt"

python3 - "$tmp/dmidecode.txt" "$tmp/topo.json" "$tmp/topo.txt" "$m" "$SHARED_DIR/reference/000-article.md" <<'PY'
import json, re, sys, os
dmi, topo, text, root, article = sys.argv[1:]
t = json.load(open(topo))
# dmidecode's devices
devs = []
for block in open(dmi).read().split('\nHandle ')[1:]:
    kv = dict(re.findall(r'^\t([^:\t]+): (.*)$', block, re.M))
    devs.append(kv)
assert len(devs) == 24, len(devs)
assert len(t['dimms']) == len(devs), (len(t['dimms']), len(devs))
# Table 11.1 from the article: data bits -> SEC/DED check bits
rows = re.findall(r'^(\d+) \| (\d+) \| [\d.]+% \| (\d+) \|', open(article).read(), re.M)
secded = {int(w): int(e2) for w, e1, e2 in rows}
assert 64 in secded
used = 0
for d, kv in zip(t['dimms'], devs):
    assert d['locator'] == kv['Locator'].strip(), (d['locator'], kv['Locator'])
    if kv['Size'] == 'No Module Installed':
        assert d['size_mb'] == 0, d
        continue
    used += 1
    n, unit = kv['Size'].split()
    assert d['size_mb'] == int(n) * {'MB': 1, 'GB': 1024}[unit], (d, kv['Size'])
    assert d['type'] == kv['Type'], (d['type'], kv['Type'])
    assert d['speed_mts'] == int(kv['Speed'].split()[0]), (d, kv['Speed'])
    assert d['registered'] == ('Registered' in kv['Type Detail']), (d, kv['Type Detail'])
    tw, dw = int(kv['Total Width'].split()[0]), int(kv['Data Width'].split()[0])
    assert (d['total_width'], d['data_width']) == (tw, dw), d
    assert d['check_bits'] == tw - dw, d
    if secded.get(dw) == tw - dw:
        assert d['ecc'] == 'SEC/DED', d
    # the text line of this module
    line = [l for l in open(text) if l.split()[:1] == [d['locator']]]
    assert len(line) == 1 and 'registered' in line[0] and f"{tw}/{dw}" in line[0] \
        and f"{tw - dw} bits {d['ecc']}" in line[0] and d['type'] in line[0], line
print(f"{len(devs)} slots, {used} modules agree with dmidecode")
assert f"24 slots, {used} in use" in open(text).read()
# EDAC: the fixture files themselves
mcdir = os.path.join(root, 'sys/devices/system/edac/mc')
mcs = sorted(os.listdir(mcdir))
assert len(t['edac']) == len(mcs) == 2
rd = lambda *p: open(os.path.join(mcdir, *p)).read().strip()
for e, mc in zip(t['edac'], mcs):
    assert e['name'] == rd(mc, 'mc_name'), e
    assert e['ce_count'] == int(rd(mc, 'ce_count')) and e['ue_count'] == int(rd(mc, 'ue_count')), e
    assert e['edac_mode'] == rd(mc, 'dimm0', 'dimm_edac_mode'), e
    assert e['mem_type'] == rd(mc, 'dimm0', 'dimm_mem_type'), e
    line = [l for l in open(text) if l.split()[:2] == [mc[2:], e['edac_mode']]]
    assert len(line) == 1 and e['edac_mode'] in line[0] and e['mem_type'] in line[0], line
# node distances: the snapshot's sysfs
for n in t['nodes']:
    dist = open(os.path.join(root, f"sys/devices/system/node/node{n['node']}/distance")).read().split()
    assert [n['distances'][str(k)] for k in range(len(dist))] == [int(x) for x in dist], n
# 80 columns, except lines that carry the snapshot's path
long = [l for l in open(text) if len(l.rstrip('\n')) > 80 and root not in l]
assert not long, long
print("ok: modules, ECC, EDAC, distances, 80 columns")
# Table 11.1 for the modules' data width (issue 30, point 8): the article's row, exactly
txt = open(text).read()
assert "ECC check bits for the modules' data width" in txt, txt
arow = [r for r in re.findall(r'^(\d+) \| (\d+) \| ([\d.]+%) \| (\d+) \| ([\d.]+%)', open(article).read(), re.M) if r[0] == '64']
assert [l.split() for l in txt.splitlines() if l.split()[:1] == ['64']] == [list(arow[0])], arow
for d in t['dimms']:
    if d['size_mb']:
        assert (d['sec_bits'], d['secded_bits']) == (7, 8), d
print("ok: the modules' SEC and SEC/DED check bits as in Table 11.1")
PY
# --ecc: the whole of Table 11.1 as the article prints it
"$MEMPROF" topology --ecc 4,8,16,32,64 | awk 'NR > 4 { print $1 " | " $2 " | " $3 " | " $4 " | " $5 }' > "$tmp/ecc.txt"
grep -E '^[0-9]+ \| [0-9]+ \| [0-9.]+% \| [0-9]+ \| [0-9.]+%$' "$SHARED_DIR/reference/000-article.md" > "$tmp/table11.txt"
diff "$tmp/table11.txt" "$tmp/ecc.txt" && echo "ok: --ecc gives Table 11.1"
! "$MEMPROF" topology --ecc 0 2> /dev/null
# The man page's worked Hamming example (Figure 11.3): r for d = (1 0 0 1) and the syndrome
# of the article's r', computed here, are what the page says (6, where the article says 5).
python3 - "$(dirname "$0")/../../docs/memprof-topology.1" <<'PY'
import sys
pos = {'d1': 3, 'd2': 5, 'd3': 6, 'd4': 7}
d = dict(zip(['d1', 'd2', 'd3', 'd4'], [1, 0, 0, 1]))
par = {p: sum(d[k] for k in d if pos[k] & p) % 2 for p in (1, 2, 4)}
r = [d['d1'], d['d2'], d['d3'], d['d4'], par[1], par[2], par[4]]
assert r == [1, 0, 0, 1, 0, 0, 1], r
rp = [1, 0, 1, 1, 0, 0, 1]                     # the article's r'
dp = dict(zip(['d1', 'd2', 'd3', 'd4'], rp[:4]))
s = [(sum(dp[k] for k in dp if pos[k] & p) + rp[4 + i]) % 2 for i, p in enumerate((1, 2, 4))]
syn = s[0] + 2 * s[1] + 4 * s[2]
assert syn == 6, syn
page = open(sys.argv[1]).read()
assert "binary 110 = \\fB6\\fP" in page and "The article says 5" in page
print("ok: the Hamming example's syndrome is 6, as the man page says")
PY

# Without /sys (issue 30, point 3): a snapshot folder without sys/, and this machine with
# an empty /sys (a private mount namespace, as in a chroot without sysfs): one line says
# so, nothing of hwloc's on stderr, no guessed package ids.
mkdir -p "$tmp/nosys/proc" && cp /proc/cpuinfo "$tmp/nosys/proc/"
"$MEMPROF" topology --fsroot "$tmp/nosys" > "$tmp/nosys.txt" 2> "$tmp/nosys.err"
grep -qx "machine $tmp/nosys: CPUs, caches and nodes unknown: no $tmp/nosys/sys/devices/system/cpu (sysfs not mounted: a chroot or a container without /sys)" "$tmp/nosys.txt"
[ ! -s "$tmp/nosys.err" ] || { echo "FAIL: printed: $(cat "$tmp/nosys.err")"; exit 1; }
if unshare -m true 2> /dev/null; then
  unshare -m sh -c "mount -t tmpfs none /sys && '$MEMPROF' topology" > "$tmp/chroot.txt" 2> "$tmp/chroot.err"
  grep -qx "machine /: CPUs, caches and nodes unknown: no /sys/devices/system/cpu (sysfs not mounted: a chroot or a container without /sys)" "$tmp/chroot.txt"
  [ ! -s "$tmp/chroot.err" ] || { echo "FAIL: printed: $(cat "$tmp/chroot.err")"; exit 1; }
  echo "ok: no /sys: said in one line, nothing printed"
fi

# This machine: whatever it lacks is said in one line.
"$MEMPROF" topology > "$tmp/here.txt"
grep -q "^machine /: $(grep -c ^processor /proc/cpuinfo) CPU" "$tmp/here.txt"
if [ ! -d /sys/firmware/dmi/entries ]; then
  grep -qx 'memory modules: unknown: no /sys/firmware/dmi/entries (firmware without SMBIOS)' "$tmp/here.txt"
fi
if [ ! -d /sys/devices/system/edac/mc ]; then
  grep -qx 'EDAC: unknown: no /sys/devices/system/edac/mc (no EDAC driver loaded)' "$tmp/here.txt"
fi
"$MEMPROF" topology --json | python3 -c 'import json,sys; json.load(sys.stdin)'
# a missing folder is a runtime error
set +e
"$MEMPROF" topology --fsroot "$tmp/nothere" 2> "$tmp/err.txt"; rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "nothere" "$tmp/err.txt"
echo "ok"
