# Issue 18: a ratio file of 40,000 definitions loads in linear time and memory (it took
# 10-30 s and 1.3 GB: a linear id search per definition and 1024 formula nodes allocated
# per formula). Checked by memory, not time: under a 600 MB address-space limit.
. "$(dirname "$0")/record_lib.sh"
python3 - <<'PY'
with open('big.ratios', 'w') as f:
    for i in range(40000):
        f.write(f'[R_{i}]\nname = ratio {i}\nperf = exact cache-misses / cache-references\n\n')
PY
lim=600000
ldd "$MEMPROF" 2>/dev/null | grep -q libasan && lim=unlimited # ASan reserves terabytes
(ulimit -v $lim && "$MEMPROF" ratios --ratios big.ratios --list >out 2>err) ||
	fail "ratios --list with 40,000 definitions under ulimit -v $lim: $(tail -2 err)"
[ "$(grep -c '^R_' out)" = 40000 ] || fail "listed $(grep -c '^R_' out) of 40000: $(head -3 out)"
(ulimit -v $lim && "$MEMPROF" ratios --ratios big.ratios --list R_39999 >one 2>err) ||
	fail "describe R_39999: $(cat err)"
grep -q 'ratio 39999' one || fail "R_39999: $(head -3 one)"
exit 0
