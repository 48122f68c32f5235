#!/bin/bash
# Data addresses end to end, perf as the referee:
#  - perf report --mem-mode, perf mem report and perf c2c report read memprof's file
#    without warnings, with the same sample counts;
#  - record -e page-faults -c 1 -d of globtouch (64 pages of a .bss array, 16 of a .data
#    one): report --mem-mode --sort symbol_daddr names glob_bss with exactly 64 samples and
#    glob_data with 16 (perf 6.1 shows the .bss as anon addresses);
#  - script -F: byte-equal to perf script -F on that file and on the two real perf mem
#    fixtures (Skylake-SP WEIGHT_STRUCT, Ivy Bridge WEIGHT);
#  - the Skylake file's levels and weights: report --mem-mode --sort mem equals perf's
#    (LFB 5, L3 4, L1 4, L2 1 samples, weight 1725), in --csv and --json too;
#  - synthetic samples with every level, level number, hops, snoop and snoopx value, and
#    bad memory fields (reserved bits, weights 0 and 2^32-1 and 2^64-1, addresses in no
#    mapping): memprof script -F equals perf's, report --mem-mode does not fail.
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
need_perf
FIX=${SHARED_DIR:-}/perfdata
[ -f "$FIX/pdc-mem-load-latency-skx.data" ] || { echo "SKIP: no $FIX fixtures"; exit 77; }
mkdir empty
H_P="--symfs=$W/empty --kallsyms=/dev/null"
H_M="--symfs $W/empty -k /dev/null"
export PERF_BUILDID_DIR=$W/empty
# same_script FILE FIELDS [hermetic]: memprof script -F and perf script -F print the same
same_script() {
	local h_p="" h_m=""
	[ "${3:-}" ] && h_p=$H_P h_m=$H_M
	"$PERF" script -i "$1" $h_p -F "$2" >p.out 2>&1
	"$MEMPROF" script -i "$1" $h_m -F "$2" >m.out 2>&1
	cmp -s p.out m.out || fail "script -F $2 of $1 differs from perf's: $(diff p.out m.out | head -6)"
}

gcc -O2 -g -o globtouch "$D/../standins/globtouch.c" || fail "cannot build globtouch"
"$MEMPROF" record -q -e page-faults -c 1 -d -W --data-page-size -o m.data -- ./globtouch >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
"$MEMPROF" report -i m.data --mem-mode --sort symbol_daddr >rep.txt 2>rep.err ||
	fail "report --mem-mode: $(cat rep.err)"
row() { awk -v s="$1" '$3 == "[.]" && $4 == s { print $1 }' rep.txt; }
[ "$(row glob_bss)" = 64 ] || fail "glob_bss: '$(row glob_bss)' samples, want 64: $(head -20 rep.txt)"
[ "$(row glob_data)" = 16 ] || fail "glob_data: '$(row glob_data)' samples, want 16"
# dso_daddr: both arrays are globtouch's
"$MEMPROF" report -i m.data --mem-mode --sort symbol_daddr,dso_daddr --csv >rep.csv ||
	fail "report --mem-mode --csv"
grep -q '^page-faults,64,[0-9.]*,\[\.\] glob_bss,globtouch$' rep.csv || fail "csv: $(head -5 rep.csv)"
# first-touch placement: the node of each fault's CPU, from the recorded topology
"$MEMPROF" report -i m.data --mem-mode --sort symbol_daddr,node --csv >node.csv || fail "--sort node"
nodes=$(awk -F, '$4 == "[.] glob_bss" { print $5 }' node.csv | sort -u | tr '\n' ' ')
[ -n "$nodes" ] && ! echo "$nodes" | grep -q -- '-1' || fail "glob_bss nodes: '$nodes' ($(head -3 node.csv))"
[ "$(awk -F, '$4 == "[.] glob_bss" { s += $2 } END { print s }' node.csv)" = 64 ] || fail "node rows: $(cat node.csv | head)"
for f in addr comm,tid,pid,time,cpu,event,ip,sym,dso,addr,data_src,weight,period \
	addr,sym,dso,symoff tid,ip,sym,symoff ip,addr,data_page_size,ins_lat,cpu,time; do
	same_script m.data "$f"
done

# perf reads memprof's memory samples without a word on stderr, with the same numbers
for c in "report --mem-mode --stdio" "mem report --stdio" "c2c report --stdio"; do
	"$PERF" ${c% *} -i m.data ${c##* } >pc.out 2>pc.err || fail "perf $c: $(cat pc.err)"
	[ -s pc.err ] && fail "perf $c warns: $(cat pc.err)"
done
grep -q 'Total records *: *'"$(grep -c . <("$PERF" script -i m.data -F ip 2>/dev/null))"'$' pc.out ||
	fail "perf c2c: $(head -5 pc.out)"
pm=$("$PERF" report -i m.data --mem-mode --sort mem --stdio -n 2>/dev/null | awk '!/^#/ && NF { print $2 }')
mm=$("$MEMPROF" report -i m.data --mem-mode --sort mem | awk '!/^#/ && NF { print $1 }')
[ "$pm" = "$mm" ] && [ -n "$mm" ] || fail "mem: perf $pm, memprof $mm"

# the real perf mem recordings
ALL=comm,tid,pid,time,event,ip,sym,dso,addr,data_src,weight,period
same_script "$FIX/pdc-mem-load-latency-skx.data" "$ALL,cpu,ins_lat" h
same_script "$FIX/numatop-perf-mem-ivb.data" "$ALL" h
same_script "$FIX/numatop-perf-mem-ivb.data" addr h
# perf's refusal, one line, for a field the recording lacks
"$MEMPROF" script -i "$FIX/numatop-perf-mem-ivb.data" -F addr,cpu >/dev/null 2>cpu.err &&
	fail "-F cpu of a recording without CPU accepted"
grep -q "do not have CPU attribute set. Cannot print 'cpu' field." cpu.err || fail "$(cat cpu.err)"

SKX=$FIX/pdc-mem-load-latency-skx.data
"$PERF" report -i "$SKX" $H_P --mem-mode --sort mem --stdio -n 2>/dev/null |
	awk '!/^#/ && NF { n = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ +$/, ""); print $0 "=" n }' |
	sort >p.mem
"$MEMPROF" report -i "$SKX" $H_M --mem-mode --sort mem >m.txt || fail "report --mem-mode"
awk '!/^#/ && NF { n = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); print $0 "=" n }' m.txt | sort >m.mem
cmp -s p.mem m.mem || fail "levels differ from perf's: $(diff p.mem m.mem)"
grep -qx 'LFB/MAB or LFB/MAB hit=5' m.mem && grep -qx 'L3 or L3 hit=4' m.mem &&
	grep -qx 'L1 or L1 hit=4' m.mem && grep -qx 'L2 or L2 hit=1' m.mem || fail "levels: $(cat m.mem)"
grep -qx '# Total weight: 1725' m.txt || fail "weight: $(grep weight m.txt)"
"$PERF" report -i "$SKX" $H_P --mem-mode --sort mem --stdio 2>/dev/null | grep -q '^# Total weight : 1725$' ||
	fail "perf's weight is not 1725"
"$MEMPROF" report -i "$SKX" $H_M --mem-mode --sort mem,weight --json >m.json || fail "--json"
python3 - m.json <<'PY' || fail "json: $(cat m.json)"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["events"][0]
assert e["samples"] == 14 and e["total_weight"] == 1725, e
lv = {r["mem"]: (r["samples"], r["weight"]) for r in e["rows"]}
assert lv["LFB/MAB or LFB/MAB hit"][0] == 5 and lv["L3 or L3 hit"][0] == 4, lv
assert sum(w for _, w in lv.values()) == 1725, lv
PY

# synthetic data_src words: every level bit, level number, remote and hops, snoop and
# snoopx kind, TLB, lock and block value
IVB=$FIX/numatop-perf-mem-ivb.data
vals=$(python3 -c '
v = [1 << (5 + i) | 2 << 5 for i in range(14)]
v += [n << 33 | 2 << 5 for n in range(16)] + [1 << 37 | 0xd << 33 | 2 << 5]
v += [h << 43 | 1 << 37 | 0xd << 33 | 2 << 5 for h in range(1, 5)]
v += [s << 19 for s in range(32)] + [x << 38 | 0x10 << 19 for x in range(4)]
v += [t << 26 for t in range(128)] + [l << 24 for l in range(4)] + [k << 40 for k in range(8)]
v += [(1 << 64) - 1, 0x3ffff << 46 | 0x68100142]
print(" ".join("%x" % x for x in v))')
set -- $vals
n=0
while [ $# -gt 0 ]; do
	chunk=""
	for _ in $(seq 14); do [ $# -gt 0 ] && { chunk="$chunk $1"; shift; }; done
	python3 "$D/mem_patch.py" "$IVB" s$n.data data_src $chunk || fail "mem_patch"
	same_script s$n.data addr,data_src,weight h
	"$MEMPROF" report -i s$n.data $H_M --mem-mode --sort mem,snoop,tlb,locked,blocked >/dev/null ||
		fail "report --mem-mode of s$n.data"
	n=$((n + 1))
done
# weights 0, 2^32-1, 2^64-1 and addresses in no mapping (0, the top of user space, kernel)
python3 "$D/mem_patch.py" "$IVB" w.data weight 0 ffffffff ffffffffffffffff 1 || fail mem_patch
same_script w.data addr,data_src,weight h
python3 "$D/mem_patch.py" "$IVB" a.data addr 0 7ffffffff000 ffffffffffffffff 1 || fail mem_patch
same_script a.data addr,data_src,weight h
for f in w.data a.data; do
	"$MEMPROF" report -i $f $H_M --mem-mode --sort symbol_daddr,dso_daddr,dcacheline,local_weight,weight >r.txt ||
		fail "report --mem-mode of $f"
done
grep -q '18446744073709551615' <("$MEMPROF" report -i w.data $H_M --mem-mode --sort local_weight) ||
	fail "weight 2^64-1 not shown"
echo ok
