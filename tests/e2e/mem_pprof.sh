#!/bin/bash
# report --pprof of recordings with memory fields (issue 25): go tool pprof reads the
# memory sample types and data labels, with report --mem-mode's numbers:
#  - the Skylake-SP perf mem fixture: mem_latency sums the weights (1725, report
#    --mem-mode's total weight), the loads by level equal report --mem-mode --sort mem's
#    rows (LFB 5, L3 4, L1 4, L2 1), mem_l1_miss is the samples not served by L1 (10);
#  - globtouch's page faults with data addresses (-d): the data_symbol label gives
#    glob_bss 64 samples and glob_data 16, data_object globtouch, as report --mem-mode
#    --sort symbol_daddr;
#  - a recording without memory fields keeps the events' sample types only.
D=$(cd "$(dirname "$0")" && pwd)
source "$D/record_lib.sh"
GO=${GO:-go}
command -v "$GO" >/dev/null || { echo "SKIP: no go (golang-go) for go tool pprof"; exit 77; }
FIX=${SHARED_DIR:-}/perfdata
SKX=$FIX/pdc-mem-load-latency-skx.data
[ -f "$SKX" ] || { echo "SKIP: no $FIX fixtures"; exit 77; }
export HOME=$W GOCACHE=$W/gocache PPROF_TMPDIR=$W PPROF_BINARY_PATH=$W/none
mkdir empty
H="--symfs $W/empty -k /dev/null"
# total FILE INDEX: the total go tool pprof -top gives for a sample type
total() {
	"$GO" tool pprof -symbolize=none -top -sample_index="$2" "$1" 2>&1 |
		sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)[a-z]* total.*/\1/p' | head -1
}

"$MEMPROF" report -q -i "$SKX" $H --pprof skx.pb.gz 2>err || fail "--pprof: $(cat err)"
"$GO" tool pprof -symbolize=none -raw skx.pb.gz >raw.txt 2>err || fail "go tool pprof -raw: $(cat err)"
types=$(sed -n '/^Samples:/{n;p;q}' raw.txt)
echo "$types" | grep -q '_samples/count .*/events[^ ]* mem_latency/cycles mem_l1_hit/count mem_lfb_hit/count mem_l2_hit/count mem_l3_hit/count mem_dram_hit/count mem_other/count mem_l1_miss/count mem_llc_miss/count' ||
	fail "sample types: $types"
"$MEMPROF" report -i "$SKX" $H --mem-mode --sort mem >m.txt || fail "report --mem-mode"
tw=$(sed -n 's/^# Total weight: //p' m.txt | head -1)
[ "$tw" = 1725 ] || fail "report's total weight $tw"
[ "$(total skx.pb.gz mem_latency)" = "$tw" ] || fail "mem_latency total $(total skx.pb.gz mem_latency), report $tw"
lvl() { sed 's/^ *//' m.txt | awk -v l="$1" '$0 ~ "^[0-9]" && index($0, "  " l " or " l " hit") { print $1 }'; }
for p in L1:mem_l1_hit LFB/MAB:mem_lfb_hit L2:mem_l2_hit L3:mem_l3_hit; do
	want=$(lvl "${p%%:*}")
	got=$(total skx.pb.gz "${p##*:}")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "${p##*:}: pprof $got, report --mem-mode '$want'"
done
[ "$(lvl LFB/MAB) $(lvl L3) $(lvl L1) $(lvl L2)" = "5 4 4 1" ] || fail "report's levels: $(cat m.txt)"
[ "$(total skx.pb.gz mem_l1_miss)" = 10 ] || fail "mem_l1_miss $(total skx.pb.gz mem_l1_miss)"
[ "$(total skx.pb.gz mem_dram_hit)" = 0 ] || fail "mem_dram_hit $(total skx.pb.gz mem_dram_hit)"

gcc -O2 -g -o globtouch "$D/../standins/globtouch.c" || fail "cannot build globtouch"
"$MEMPROF" record -q -e page-faults -c 1 -d -o g.data -- ./globtouch >/dev/null 2>rec.err ||
	fail "record: $(cat rec.err)"
"$MEMPROF" report -q -i g.data -k /dev/null --pprof g.pb.gz 2>err || fail "--pprof of g.data: $(cat err)"
"$GO" tool pprof -symbolize=none -tags -sample_index=page_faults_samples g.pb.gz >tags.txt 2>err ||
	fail "go tool pprof -tags: $(cat err)"
tag() { awk -v k="$1:" -v v="$2" '$1 == k { on = 1; next } /^ *[a-z_]*:/ && $1 != k { on = 0 }
	on && $NF == v { print $1 + 0 }' tags.txt; }
[ "$(tag data_symbol glob_bss)" = 64 ] || fail "data_symbol glob_bss: '$(tag data_symbol glob_bss)': $(cat tags.txt)"
[ "$(tag data_symbol glob_data)" = 16 ] || fail "data_symbol glob_data: '$(tag data_symbol glob_data)'"
"$MEMPROF" report -i g.data -k /dev/null --mem-mode --sort dso_daddr --csv >dso.csv
want=$(awk -F, '$4 == "globtouch" { print $2 }' dso.csv)
[ -n "$want" ] && [ "$(tag data_object globtouch)" = "$want" ] ||
	fail "data_object globtouch: '$(tag data_object globtouch)', report '$want'"
[ "$(total g.pb.gz page_faults_samples)" = "$(grep -c . <("$MEMPROF" script -i g.data -F ip))" ] ||
	fail "page_faults_samples total $(total g.pb.gz page_faults_samples)"

# no memory fields: the events' types only
"$MEMPROF" record -q -e page-faults -c 1 -o n.data -- ./globtouch >/dev/null 2>&1 || fail "record n.data"
"$MEMPROF" report -q -i n.data -k /dev/null --pprof n.pb.gz 2>err || fail "--pprof of n.data: $(cat err)"
"$GO" tool pprof -symbolize=none -raw n.pb.gz 2>/dev/null | sed -n '/^Samples:/{n;p;q}' | grep -q mem_ &&
	fail "memory types in a recording without memory fields"
echo ok
