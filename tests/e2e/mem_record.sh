#!/bin/bash
# record -d -W --data-page-size --sample-cpu: the sample_type perf record gives for the same
# options (ADDR|DATA_SRC, WEIGHT_STRUCT, DATA_PAGE_SIZE, CPU, with data mmaps), and with
# -e page-faults -c 1 the faulting addresses are real: globtouch touches each of the 64
# pages of its .bss array once, so perf script -F addr of memprof's file lists the 64 page
# addresses, from touch(), 4096 apart.
S=$(cd "$(dirname "$0")/../standins" && pwd)
source "$(dirname "$0")/record_lib.sh"
need_perf
gcc -O2 -g -o globtouch "$S/globtouch.c" || fail "cannot build globtouch"
"$MEMPROF" record -e page-faults -c 1 -d -W --data-page-size --sample-cpu -o m.data \
	-- ./globtouch >/dev/null 2>rec.err || fail "record: $(cat rec.err)"
perf_reads m.data
"$PERF" evlist -v -i m.data >ev.txt 2>&1 || fail "perf evlist: $(cat ev.txt)"
st=$(sed -n 's/.*sample_type: \([A-Z_|]*\).*/\1/p' ev.txt | head -1)
for b in IP TID TIME ADDR CPU DATA_SRC DATA_PAGE_SIZE WEIGHT_STRUCT; do
	case "|$st|" in *"|$b|"*) ;; *) fail "sample_type $st lacks $b";; esac
done
grep -q 'mmap_data: 1' ev.txt || fail "no data mmaps: $(cat ev.txt)"
"$PERF" script -i m.data -F ip,sym,addr >addr.txt 2>perf.err || fail "perf script: $(cat perf.err)"
awk '$4 == "touch" { print $1 }' addr.txt >touch.txt
base=$(nm globtouch | awk '$3 == "glob_bss" { print $1 }')
# the first touched page's address is glob_bss's (page aligned): the load bias is the rest
first=$(head -1 touch.txt)
[ "$(wc -l <touch.txt)" -ge 64 ] || fail "$(wc -l <touch.txt) faults in touch (want 64 + 16)"
for i in $(seq 0 63); do
	want=$(printf '%x' $((0x$first + i * 4096)))
	[ "$(sed -n "$((i + 1))p" touch.txt)" = "$want" ] || fail "fault $i at $(sed -n "$((i + 1))p" touch.txt), want $want"
done
[ $((0x$first % 4096)) = $((0x$base % 4096)) ] || fail "first fault $first vs glob_bss $base"
# -W without a PMU: the software event's weight is 0; the page size is the base page
"$PERF" script -i m.data -F weight >w.txt 2>/dev/null
[ "$(sort -u w.txt | tr -d ' ')" = 0 ] || fail "weights: $(sort -u w.txt | head -3)"
# --sim writes no page sizes or physical addresses (its -d samples: e2e_sim_mem): refused in one line
"$MEMPROF" record --sim -d --data-page-size -o s.data -- true >/dev/null 2>sim.err && fail "--sim --data-page-size accepted"
[ "$(wc -l <sim.err)" = 1 ] && grep -q "data-page-size" sim.err || fail "--sim --data-page-size: $(cat sim.err)"
echo ok
