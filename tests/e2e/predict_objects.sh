#!/bin/bash
# memprof predict, must-show 2: an executable and the shared object it loads each write
# their own records (their own rows, their own object column, their build-ids), a forked
# child writes its own record counting from zero, and 4 threads counting with
# DEBUGPRED_ATOMIC give exact totals. The records of every process and object are whole
# (no interleaving) and add up to the counts in objects.c's comment.
. "$(dirname "$0")/e2e_lib.sh"
: "${PREDICT_SRC:?}" "${PREDICT_INC:?}"
S=$PREDICT_SRC
line() { grep -n "$1" "$2" | cut -d: -f1; }
TL=$(line "/\* THREAD-LIKELY" "$S/objects.c")
FL=$(line "/\* FORK-UNLIKELY" "$S/objects.c")
LL=$(line "/\* LIB-UNLIKELY" "$S/lib.c")

for cc in gcc clang; do
	for opt in -O0 -O2; do
		lbl="$cc $opt"
		rm -f libpredlib.so objs p.pred
		$cc $opt -fPIC -shared -DDEBUGPRED -I"$PREDICT_INC" "$S/lib.c" -o libpredlib.so &&
			$cc $opt -DDEBUGPRED -DDEBUGPRED_ATOMIC -I"$PREDICT_INC" "$S/objects.c" \
				-L. -lpredlib -Wl,-rpath,"$T" -pthread -o objs ||
			{ echo "FAIL $lbl: build"; fail=1; continue; }
		"$MEMPROF" predict -o p.pred --csv -- ./objs >rows.csv 2>err.txt ||
			{ echo "FAIL $lbl: rc=$? $(cat err.txt)"; fail=1; continue; }
		for want in "likely,3996,4,0.10,0,i < 999,work,$S/objects.c,$TL,$T/objs,1,1,1" \
			"unlikely,3,7,70.00,1,i > 2,child,$S/objects.c,$FL,$T/objs,1,1,1" \
			"unlikely,105,35,25.00,0,i % 4 == 0,predlib_count,$S/lib.c,$LL,$T/libpredlib.so,1,1,0"; do
			grep -qxF "$want" rows.csv || { echo "FAIL $lbl: no row $want"; cat rows.csv; fail=1; }
		done
		[ "$(wc -l <rows.csv)" -eq 4 ] || { echo "FAIL $lbl: rows"; cat rows.csv; fail=1; }
		# four records: (parent, child) x (objs, libpredlib.so), two pids, the build-ids
		# readelf sees
		"$MEMPROF" predict -i p.pred --json >p.json || { echo "FAIL $lbl: -i --json"; fail=1; }
		python3 - "$T" <<'PY' || fail=1
import json, subprocess, sys, re
t = sys.argv[1]
d = json.load(open(t + "/p.json"))
recs = d["records"]
def bid(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)
objs = sorted((r["object"], r["build_id"]) for r in recs)
want = sorted([(t + "/objs", bid(t + "/objs")), (t + "/libpredlib.so", bid(t + "/libpredlib.so"))] * 2)
if objs != want or len({r["pid"] for r in recs}) != 2:
    print("FAIL: records", recs, "want", want); sys.exit(1)
PY
		# the child's record of the executable counts from zero: THREAD-LIKELY sums to 0
		# there and to 3996/4 in the parent's (a compiler may copy a use: sum the copies)
		python3 - "$T/p.pred" "$TL" <<'PY' || fail=1
import sys
data = open(sys.argv[1], "rb").read().decode()
recs = data.split("MEMPROF-PREDICT 1 ")[1:]
if len(recs) != 4:
    print("FAIL: %d records" % len(recs)); sys.exit(1)
sums = []
for r in recs:
    hdr, body = r.split("\n", 1)
    if len(body) != int(hdr):
        print("FAIL: record length %s != %d" % (hdr, len(body))); sys.exit(1)
    c = i = 0
    seen = False
    for l in body.splitlines():
        f = l.split(" ")
        if l.startswith("use likely atomic %s " % sys.argv[2]):
            c += int(f[4]); i += int(f[5]); seen = True
    if seen:
        sums.append((c, i))
if sorted(sums) != [(0, 0), (3996, 4)]:
    print("FAIL: THREAD-LIKELY per record", sums); sys.exit(1)
PY
	done
done
# two translation units including the header: one record (one reporter per object) with
# both units' uses
gcc -O2 -DDEBUGPRED -I"$PREDICT_INC" "$S/tu_a.c" "$S/tu_b.c" -o tu && "$MEMPROF" predict -o tu.pred --csv -- ./tu >tu.csv 2>&1 ||
	{ echo "FAIL: two TUs: $(cat tu.csv)"; fail=1; }
[ "$(grep -c '^MEMPROF-PREDICT' tu.pred)" -eq 1 ] && grep -qF "likely,9,1,10.00,0,i != 3,main,$S/tu_a.c," tu.csv &&
	grep -qF "unlikely,4,1,20.00,0,i == 3,tu_b,$S/tu_b.c," tu.csv || { echo "FAIL: two TUs"; cat tu.pred tu.csv; fail=1; }
[ $fail -eq 0 ] && echo "ok"
exit $fail
