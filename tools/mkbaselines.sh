#!/bin/bash
# mkbaselines.sh MEMPROF KERNELS SHARED_PERFDATA > ratios/baselines.tsv
# The ratio values memprof ships as baselines (memprof ratios --baseline shipped): the
# program-level ratios of the real-hardware fixtures (measured on their CPUs: one set per
# fixture and model) and of the kernels recorded under the simulator (record --sim: one set
# per kernel and arguments, with the caches fixed: 32K 8-way L1s, a 1M 8-way L2, not the
# host's). Rerun when the kernels, the simulator or the ratio formulas change; the e2e test
# ratios_baseline checks the shipped values against fresh recordings.
set -euo pipefail
M=$(readlink -f "$1"); K=$(readlink -f "$2"); S=$(readlink -f "$3")
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat <<'HEAD'
# baselines.tsv - ratio values to compare a recording with (memprof ratios --baseline
# shipped[:NAME]), made by tools/mkbaselines.sh; embedded in the binary and installed to
# share/memprof/. One row per set and ratio: the set's name, the model its values belong to
# (a libpfm4 model, perf, or cachegrind for simulated counts), the workload (what followed
# "--" in the recording's command line, the program without its folder; "-" when the file
# does not say), the ratio id, its program-level value, and where the value comes from.
HEAD
printf 'name\tmodel\tworkload\tratio\tvalue\tsource\n'
rows() { # NAME SOURCE FILE
	"$M" ratios -i "$3" --json 2>/dev/null | NAME="$1" SRC="$2" python3 -c '
import json, os, sys
d = json.load(sys.stdin)
wl = os.environ.get("WL", "-")
src = os.environ["SRC"]
if d.get("simulated"):
    s = d["simulated"]
    src += ": %s, I1 %s D1 %s LL %s" % (s.get("by"), s.get("I1"), s.get("D1"), s.get("LL"))
for r in d["ratios"]:
    p = [x for x in r["places"] if x["place"] == "program"]
    if p and p[0]["value"] is not None:
        print("\t".join([os.environ["NAME"], d["model"], wl, r["id"], "%.9g" % p[0]["value"], src]))'
}
for f in "$S"/*.data; do
	b=$(basename "$f" .data)
	case $b in *.orig-*) continue ;; esac
	WL=$("$M" report -i "$f" --header-only 2>/dev/null | sed -n "s/^# command: .* -- //p" | head -1)
	prog=${WL%% *}; WL="${prog##*/}${WL#"$prog"}"; WL=${WL:--}; export WL
	rows "$b" "fixture $b.data (real hardware)" "$f"
done
sim() { # NAME ARGS...
	local n=$1; shift
	(cd "$T" && "$M" record --sim --I1 32768,8,64 --D1 32768,8,64 --LL 1048576,8,64 -o "$n.data" -- "$K/$1" "${@:2}" >/dev/null 2>&1)
	WL="$*"; export WL
	rows "$n" "memprof record --sim" "$T/$n.data"
}
for a in naive transposed blocked scalar; do sim "matmul-$a-256" matmul -N 256 -a "$a"; done
sim cachebench-seq-16K cachebench -s 16K -r 200
sim cachebench-seq-4M cachebench -s 4M -r 2
sim cachebench-random-4M cachebench -s 4M -o random -r 2
