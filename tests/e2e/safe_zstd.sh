# Issue 18: a zstd recording that expands a lot (a real perf record -z file's records
# repeated to 160 MiB in one round, recompressed: a 4 MB file) is read in bounded memory
# (the ordering queue counts bytes, its survivors repacked after a flush): peak resident size
# under 100 MB, where the queue by record count held it all (180 MB), and the report
# equals that of the same records uncompressed.
: "${MEMPROF:?}" "${SHARED_DIR:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
SRC=$SHARED_DIR/perfdata/kdab-parallel-zstd-zen2.data
[ -r "$SRC" ] || { echo "SKIP: no $SRC"; exit 77; }
mb=$(python3 "$HERE/safe_zstd.py" "$SRC" amp.data plain.data 160) || fail "safe_zstd.py"
[ "$mb" -ge 160 ] || fail "amplified to $mb MiB only"
# peak RSS of a command, in KiB (the children's ru_maxrss)
peak() {
	python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)' "$@"
}
kb=$(peak amp.txt "$MEMPROF" report -i amp.data -k /dev/null)
[ "$kb" -gt 0 ] || fail "report -i amp.data failed"
"$MEMPROF" report -i plain.data -k /dev/null >plain.txt || fail "report -i plain.data"
grep -q '0x0000000000001be3' plain.txt || fail "the plain report lacks its rows: $(head -30 plain.txt)"
cmp <(sed 1d amp.txt) <(sed 1d plain.txt) ||
	fail "the zstd report differs from the uncompressed one: $(diff <(sed 1d amp.txt) <(sed 1d plain.txt) | head)"
echo "amplified file $(stat -c %s amp.data) bytes, $mb MiB of records: peak resident $kb KiB"
# The sanitizer's shadow memory and quarantine make resident sizes meaningless there.
case "${MEMPROF_SANITIZE:-OFF}" in
OFF | off | 0 | "") ;;
*) echo "sanitizer build: the peak memory is not checked"; exit 0 ;;
esac
[ "$kb" -lt 102400 ] || fail "peak resident $kb KiB reading a $(stat -c %s amp.data)-byte zstd file (limit 100 MB)"
# Issue 29: records that each expand to 40 MiB (two level-19 frames, a 57 KB file, within
# the size bound): walked as they come, so the peak stays near the plain file's, where a
# record's whole output was held (80 MB).
python3 "$HERE/safe_zstd.py" "$SRC" big.data bigplain.data 80 $((40 << 20)) 19 >/dev/null || fail "safe_zstd.py big"
kb=$(peak big.txt "$MEMPROF" report -i big.data -k /dev/null)
[ "$kb" -gt 0 ] || fail "report -i big.data failed"
"$MEMPROF" report -i bigplain.data -k /dev/null >bigplain.txt || fail "report -i bigplain.data"
cmp <(sed 1d big.txt) <(sed 1d bigplain.txt) || fail "the 40 MiB-record report differs from the plain one"
echo "40 MiB records: file $(stat -c %s big.data) bytes, peak resident $kb KiB"
[ "$kb" -lt 65536 ] || fail "peak resident $kb KiB reading a $(stat -c %s big.data)-byte zstd file (limit 64 MB)"
exit 0
