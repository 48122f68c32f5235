#!/bin/bash
# memprof ratios --level thread (issue 30.7): one row per thread, tid and comm, from the
# samples of each. Known samples (tests/ratios_mkdata): core::L1D_REPL (overrun 1000) and
# core::INST_RETIRED:ANY_P (overrun 20000) in three threads of pid 4242: 4242 "main"
# (100 fills, 50 instructions: 100000 / 1000000 = 0.1), 4243 "worker" (300 / 30:
# 300000 / 600000 = 0.5) and 4244 "worker" (10 / 100: 10000 / 2000000 = 0.005). Numerator
# order: worker 4243, main 4242, worker 4244.
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}" "${MKDATA:?}"
BIN=$KERNELS/cachebench
walk=0x$(nm "$BIN" | awk '$3 == "walk" { print $1 }')
read -r off vaddr len < <(readelf -lW "$BIN" | awk '$1 == "LOAD" && / R E / { print $2, $3, $5 }')
base=0x555555554000
ip=$(printf '0x%x' $((base + walk + 4)))
"$MKDATA" "$T/a.data" <<SPEC || { echo "FAIL mkdata"; exit 1; }
cpuid GenuineIntel,6,15,11
attr core::L1D_REPL 4 530f45 1000
attr core::INST_RETIRED:ANY_P 4 5300c0 20000
comm 4242 main
comm 4242 worker 4243
comm 4242 worker 4244
mmap 4242 $(printf '%x' $((base + vaddr))) $(printf '%x' $(((len + 0xfff) & ~0xfff))) $(printf '%x' $((off))) $BIN
sample 0 4242 $ip 100
sample 1 4242 $ip 50
sample 0 4242 $ip 300 4243
sample 1 4242 $ip 30 4243
sample 0 4242 $ip 10 4244
sample 1 4242 $ip 100 4244
SPEC
"$MEMPROF" ratios -i "$T/a.data" --level thread --json L1D_MISS_RATE >"$T/out.json" ||
	{ echo "FAIL ratios --level thread"; exit 1; }
python3 - "$T/out.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["level"] == "thread", d["level"]
got = [(p["place"], p["pid"], p["tid"], p["comm"], p["value"], p["samples"]) for p in d["ratios"][0]["places"]]
want = [("4243:worker", 4242, 4243, "worker", 0.5, [300, 30]),
        ("4242:main", 4242, 4242, "main", 0.1, [100, 50]),
        ("4244:worker", 4242, 4244, "worker", 0.005, [10, 100])]
if got != want:
    print("FAIL: got", got); sys.exit(1)
print("ok   thread rows", got)
PY
"$MEMPROF" ratios -i "$T/a.data" --level thread L1D_MISS_RATE >"$T/out.txt"
grep -qE '^ +0\.5000 .* 300/30 +4243:worker$' "$T/out.txt" ||
	{ echo "FAIL text"; cat "$T/out.txt"; fail=1; }
"$MEMPROF" ratios -i "$T/a.data" --level thread --csv L1D_MISS_RATE | grep -q '^L1D_MISS_RATE,L1D Miss Rate,thread,4244:worker,,,0.00500000000000000[0-9]*,' ||
	{ echo "FAIL csv"; fail=1; }
"$MEMPROF" ratios -i "$T/a.data" --level threads 2>"$T/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "expected program, dso, symbol, line, region or thread" "$T/err" ||
	{ echo "FAIL: bad level rc=$rc $(cat "$T/err")"; fail=1; }
[ $fail -eq 0 ] && echo ok
exit $fail
