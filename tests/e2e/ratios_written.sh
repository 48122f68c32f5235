#!/bin/bash
# memprof ratios on perf.data files written with known samples (tests/ratios_mkdata):
# core::L1D_REPL (raw 0x530f45, overrun 1000) and core::INST_RETIRED:ANY_P (raw 0x5300c0,
# overrun 20000) at the hot lines of cachebench's walk() and inc(). The L1D Miss Rate must
# come out exactly as computed by hand below, at program, symbol and line level.
set -u
: "${MEMPROF:?}" "${KERNELS:?}" "${MKDATA:?}"
PERF=${PERF:-perf}
T=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
fail=0
BIN=$KERNELS/cachebench
SRC=$(dirname "$0")/../../kernels/cachebench.c
err() { echo "FAIL $*"; fail=1; }

# addresses from the binary's own symbols and line table
hot=$(grep -n 'HOT: pointer chase' "$SRC" | cut -d: -f1)
hot_inc=$(grep -n 'HOT: increment' "$SRC" | cut -d: -f1)
walk=0x$(nm "$BIN" | awk '$3 == "walk" { print $1 }')
inc=0x$(nm "$BIN" | awk '$3 == "inc" { print $1 }')
objdump --dwarf=decodedline "$BIN" | awk '$1 == "cachebench.c" { print $2, $3 }' |
	while read -r l a; do echo "$l $((a))"; done > "$T/lines"
a_hot=$(awk -v l="$hot" -v lo=$((walk)) -v hi=$((inc)) '$1 == l && $2 >= lo && $2 < hi { printf "0x%x", $2; exit }' "$T/lines")
a_prev=$(awk -v l=$((hot - 1)) -v lo=$((a_hot)) -v hi=$((inc)) '$1 == l && $2 > lo && $2 < hi { printf "0x%x", $2; exit }' "$T/lines")
a_inc=$(awk -v l="$hot_inc" -v lo=$((inc)) '$1 == l && $2 >= lo { printf "0x%x", $2; exit }' "$T/lines")
[ -n "$a_hot" ] && [ -n "$a_prev" ] && [ -n "$a_inc" ] || { echo "FAIL no addresses: '$a_hot' '$a_prev' '$a_inc'"; exit 1; }
# The text segment (PT_LOAD R E) as the loader maps a PIE at 0x555555554000
read -r off vaddr len < <(readelf -lW "$BIN" | awk '$1 == "LOAD" && / R E / { print $2, $3, $5 }')
base=0x555555554000
ip() { printf '0x%x' $((base + $1)); }

spec() {
	cat <<SPEC
cpuid GenuineIntel,6,15,11
cmdline memprof record -e core::L1D_REPL,core::INST_RETIRED:ANY_P -- $BIN -s 1M
attr core::L1D_REPL 4 530f45 1000
attr core::INST_RETIRED:ANY_P 4 5300c0 20000
comm 4242 cachebench
mmap 4242 $(printf '%x' $((base + vaddr))) $(printf '%x' $(((len + 0xfff) & ~0xfff))) $(printf '%x' $((off))) $BIN
sample 0 4242 $(ip "$a_hot") 300
sample 1 4242 $(ip "$a_hot") 100
sample 1 4242 $(ip "$a_prev") 50
sample 0 4242 $(ip "$a_inc") 40
sample 1 4242 $(ip "$a_inc") 250
SPEC
}
spec > "$T/spec"
"$MKDATA" "$T/a.data" < "$T/spec" || { echo "FAIL mkdata"; exit 1; }

# perf reads the same samples: per (event, symbol) sample counts
if command -v "$PERF" > /dev/null; then
	"$PERF" script -i "$T/a.data" -F event,ip,sym 2>/dev/null | awk '{ n[$1 " " $3]++ } END { for (k in n) print k, n[k] }' | sort > "$T/perf.txt"
	printf '%s\n' "core::INST_RETIRED:ANY_P: inc 250" "core::INST_RETIRED:ANY_P: walk 150" \
		"core::L1D_REPL: inc 40" "core::L1D_REPL: walk 300" > "$T/want.txt"
	diff -u "$T/want.txt" "$T/perf.txt" || err "perf script sees other samples"
fi

val() { # LEVEL PLACE -> the L1D Miss Rate value printed in --json
	"$MEMPROF" ratios -i "$1" --level "$2" --json L1D_MISS_RATE > "$T/out.json" || { err "memprof ratios --level $2"; return; }
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ratios"][0]
assert r["id"] == "L1D_MISS_RATE" and r["model"] == "core" and r["status"] == "exact", r
for p in r["places"]:
    if p["place"] == sys.argv[2]:
        print(repr(p["value"]), p["exact"], p["few"], "%.12g %.12g" % (p["lo"], p["hi"]))
' "$T/out.json" "$3"
}
check() { # DATA LEVEL PLACE WANT
	got=$(val "$1" "$2" "$3")
	[ "$got" = "$4" ] && echo "ok   $2 $3: $got" || err "$2 $3: got '$got', want '$4'"
}
# Hand computation (count = samples x overrun; 95% half width = 1.959964 x R x
# sqrt(1/n_num + 1/n_den) for fixed overruns, z = 1.959964):
#  program: L1D = (300 + 40) * 1000 = 340000; INST = (100 + 50 + 250) * 20000 = 8000000
#           R = 340000 / 8000000 = 0.0425; sqrt(1/340 + 1/400) = 0.0737643
#           half = 1.959964 * 0.0425 * 0.0737643 = 0.00614446 -> [0.0363555, 0.0486445]
#  walk:    300000 / (150 * 20000) = 0.1; sqrt(1/300 + 1/150) = 0.1
#           half = 1.959964 * 0.1 * 0.1 = 0.0195996 -> [0.0804004, 0.1195996]
#  inc:     40000 / (250 * 20000) = 0.008; sqrt(1/40 + 1/250) = 0.170294
#           half = 1.959964 * 0.008 * 0.170294 = 0.00267016 -> [0.00532984, 0.0106702]
#  line $hot (pointer chase): 300000 / (100 * 20000) = 0.15; sqrt(1/300 + 1/100) = 0.115470
#           half = 1.959964 * 0.15 * 0.115470 = 0.0339476 -> [0.1160524, 0.1839476]
#  line $((hot - 1)) (loop): 0 / (50 * 20000) = 0, no L1D_REPL sample (few): upper bound
#           from one sample of the mean overrun: 1.959964 * 1000 / 1000000 = 0.00195996
#  line $hot_inc (increment): as inc, 0.008
check "$T/a.data" program program "0.0425 False False 0.0363555441679 0.0486444558321"
check "$T/a.data" symbol walk "0.1 False False 0.0804003601546 0.119599639845"
check "$T/a.data" symbol inc "0.008 False False 0.00532984128352 0.0106701587165"
check "$T/a.data" line "cachebench.c:$hot" "0.15 False False 0.116052427978 0.183947572022"
check "$T/a.data" line "cachebench.c:$((hot - 1))" "0 False True 0 0.00195996398454"
check "$T/a.data" line "cachebench.c:$hot_inc" "0.008 False False 0.00532984128352 0.0106701587165"

# the text table prints the same values
"$MEMPROF" ratios -i "$T/a.data" --level symbol L1D_MISS_RATE > "$T/sym.txt"
grep -Eq '^ +0\.1000 +\[0\.0804, 0\.1196\] +300/150 +walk +\[cachebench\]$' "$T/sym.txt" || { err "text symbol table"; cat "$T/sym.txt"; }
"$MEMPROF" ratios -i "$T/a.data" --level line --sort L1D_MISS_RATE L1D_MISS_RATE > "$T/line.txt"
first=$(awk '/^ +[~0-9]/ { print $NF == "[cachebench]" ? $(NF-2) : $NF; exit }' "$T/line.txt")
[ "$first" = "cachebench.c:$hot" ] || { err "--sort: first line '$first'"; cat "$T/line.txt"; }
grep -q "~0.0000 .* few samples" "$T/line.txt" || { err "few samples not marked"; cat "$T/line.txt"; }

# exact counts in the file are used for the program level (and said so)
{ spec; echo "counts 0 345678"; echo "counts 1 8000000"; } > "$T/spec2"
"$MKDATA" "$T/b.data" < "$T/spec2" || err "mkdata b"
check "$T/b.data" program program "0.04320975 True False 0.04320975 0.04320975"
check "$T/b.data" symbol walk "0.1 False False 0.0804003601546 0.119599639845"
"$MEMPROF" ratios -i "$T/b.data" L1D_MISS_RATE | grep -q "exact counts from the file" || err "exact counts not said"

# baseline: b against a, side by side with the change (0.04320975 / 0.0425 - 1 = +1.7%)
"$MEMPROF" ratios -i "$T/b.data" --baseline "$T/a.data" L1D_MISS_RATE > "$T/base.txt"
grep -Eq '^L1D Miss Rate +0\.0432 +\[exact count\] +counted +0\.0425 +\+1\.7% ' "$T/base.txt" || { err "baseline"; cat "$T/base.txt"; }

# ... and below program level, places matched by name (same samples: no change)
"$MEMPROF" ratios -i "$T/b.data" --baseline "$T/a.data" --level symbol L1D_MISS_RATE > "$T/base2.txt"
grep -Eq '^ +0\.1000 +\[0\.0804, 0\.1196\] +300/150 +0\.1000 +\+0\.0% +walk +\[cachebench\]$' "$T/base2.txt" || { err "baseline symbol"; cat "$T/base2.txt"; }

# a missing event: named, with the record command (workload from the recording's cmdline)
grep -v '^sample 0\|^attr core::L1D_REPL' "$T/spec" | sed 's/^sample 1/sample 0/' > "$T/spec3"
"$MKDATA" "$T/c.data" < "$T/spec3" || err "mkdata c"
"$MEMPROF" ratios -i "$T/c.data" L1D_MISS_RATE > "$T/miss.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || err "missing event: exit $rc"
grep -q "L1D Miss Rate: the recording has no L1D_REPL (core, exact); record it with:" "$T/miss.txt" &&
grep -q "memprof record -e core::L1D_REPL,core::INSTRUCTION_RETIRED -- $BIN -s 1M" "$T/miss.txt" ||
	{ err "missing event message"; cat "$T/miss.txt"; }

# an unknown ratio name is a clear usage error
"$MEMPROF" ratios -i "$T/a.data" L1D_MISS_RATES > "$T/unk.txt" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "memprof ratios: unknown ratio 'L1D_MISS_RATES' (did you mean L1D_MISS_RATE?)" "$T/unk.txt" ||
	{ err "unknown ratio: exit $rc"; cat "$T/unk.txt"; }

# --record-cmd splits the article's ratios over runs for Core 2's 2 programmable counters
"$MEMPROF" ratios --record-cmd --pmu core L1D_MISS_RATE L2_DATA_MISS_RATE L1I_MISS_RATE -- ./cachebench -s 1M > "$T/rec.txt"
cat > "$T/rec.want" <<'W'
# run 1 of 2: L1D Miss Rate, L2 Data Miss Rate (core events, 2 of 2 programmable counters)
memprof record -e core::L1D_REPL,core::INSTRUCTION_RETIRED,core::L2_LINES_IN:SELF:ANY -o memprof-1.data -- ./cachebench -s 1M
# run 2 of 2: L1I Miss Rate (core events, 1 of 2 programmable counters)
memprof record -e core::L1I_MISSES,core::INSTRUCTION_RETIRED -o memprof-2.data -- ./cachebench -s 1M
W
diff -u "$T/rec.want" "$T/rec.txt" || err "--record-cmd"
# user definitions: ~/.config/memprof/ratios/*.ratios (XDG_CONFIG_HOME) and --ratios FILE
mkdir -p "$T/cfg/memprof/ratios"
cat > "$T/cfg/memprof/ratios/mine.ratios" <<'R'
# per thousand instructions, as a user might prefer
[L1D_MPKI]
name = L1D MPKI
what = L1D lines allocated per 1000 instructions
threshold = > 100
core = exact 1000 * L1D_REPL / INSTRUCTION_RETIRED
R
XDG_CONFIG_HOME="$T/cfg" "$MEMPROF" ratios -i "$T/a.data" --level symbol L1D_MPKI > "$T/mpki.txt"
# walk: 1000 * 0.1 = 100 (not past 100); inc: 8; program level: 42.5
grep -Eq '^ +100\.0000 +\[80\.4004, 119\.5996\] +300/150 +walk +\[cachebench\]$' "$T/mpki.txt" || { err "user folder ratio"; cat "$T/mpki.txt"; }
printf '[BAD]\nname = Bad\ncore = exact L1D_REPL /* INSTRUCTION_RETIRED\n' > "$T/bad.ratios"
"$MEMPROF" ratios -i "$T/a.data" --ratios "$T/bad.ratios" > "$T/bad.txt" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qx "memprof ratios: $T/bad.ratios:3:23: operator '/' needs a space after it" "$T/bad.txt" ||
	{ err "bad --ratios file: exit $rc"; cat "$T/bad.txt"; }
# thresholds flag like the article's branch-debug WARNING
printf '[HOT_L1D]\nname = Hot L1D\nthreshold = > 0.1\ncore = exact L1D_REPL / INSTRUCTION_RETIRED\n' > "$T/hot.ratios"
"$MEMPROF" ratios -i "$T/a.data" --ratios "$T/hot.ratios" --level line HOT_L1D > "$T/hot.txt"
grep -q "0.1500 .*cachebench.c:$hot .*<==== WARNING (above threshold)" "$T/hot.txt" &&
	! grep -q "cachebench.c:$hot_inc .*WARNING" "$T/hot.txt" || { err "threshold flag"; cat "$T/hot.txt"; }
exit $fail
