#!/bin/bash
# memprof mem record / report: the events of events/mem_events.tsv per forced PMU model,
# their encodings against the real files' attrs (Skylake-SP: config 0x1cd, ldlat 64 in
# config1, precise 2; Ivy Bridge-EP: config 0x1cd, ldlat 3), and the one-line refusals:
# no PMU (this machine, or a fake sysfs tree without it), AMD IBS without -a, Arm SPE's AUX
# buffer; --alloc reaches memprof record. mem report is report --mem-mode.
source "$(dirname "$0")/record_lib.sh"
FIX=${SHARED_DIR:-}/perfdata
fake=$W/sys
mkdir -p "$fake/bus/event_source/devices/software"
export MEMPROF_SYSFS_ROOT=$fake
# one_line FILE: exactly one line, pointing to page faults with -d and to --sim
one_line() {
	[ "$(wc -l <"$1")" = 1 ] || fail "not one line: $(cat "$1")"
	grep -q 'memprof record -e page-faults -c 1 -d -- CMD' "$1" && grep -q 'memprof record --sim' "$1" ||
		fail "no pointer to -e page-faults -d and --sim: $(cat "$1")"
}
for m in skl skx icl spr hsw bdw_ep ivb snb_ep; do
	LIBPFM_FORCE_PMU=$m "$MEMPROF" mem record -o m.data -- true >out.txt 2>err.txt && fail "$m: recorded without a PMU"
	[ $? = 1 ] || fail "$m: exit status"
	one_line err.txt
	grep -q "^memprof mem: no precise memory events for loads here: PEBS load latency needs the kernel's 'cpu' PMU (model $m), which /sys/bus/event_source/devices does not have;" err.txt ||
		fail "$m: $(cat err.txt)"
done
# encodings (libpfm4's), as the real recordings' attrs
LIBPFM_FORCE_PMU=skx "$MEMPROF" mem record -t load --ldlat 64 -e list >skx.txt || fail "-e list"
grep -q '^load   MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2  \[PEBS load latency, PMU cpu\]: not offered by this kernel  type 4 config 0x1cd config1 0x40 precise 2$' skx.txt ||
	fail "skx: $(cat skx.txt)"
if [ -f "$FIX/pdc-mem-load-latency-skx.evlist.txt" ] && [ -f "$FIX/numatop-perf-mem-ivb.evlist.txt" ]; then
	grep -q 'config: 0x1cd,.*config1 }: 0x40' "$FIX/pdc-mem-load-latency-skx.evlist.txt" &&
		grep -q 'config: 0x1cd,.*config1 }: 0x3' "$FIX/numatop-perf-mem-ivb.evlist.txt" ||
		fail "the fixtures' attrs are not the encodings checked here"
fi
LIBPFM_FORCE_PMU=ivb_ep "$MEMPROF" mem record -t load --ldlat 3 -e list >ivb.txt || fail "-e list"
grep -q 'type 4 config 0x1cd config1 0x3 precise 2$' ivb.txt || fail "ivb_ep: $(cat ivb.txt)"
LIBPFM_FORCE_PMU=skl "$MEMPROF" mem record -t store -e list >st.txt || fail "-e list"
grep -q '^store  MEM_INST_RETIRED:ALL_STORES:precise=2 .* type 4 config 0x82d0 config1 0x0 precise 2$' st.txt ||
	fail "skl stores: $(cat st.txt)"
# hybrid: each core type's PMU, when the kernel offers it
mkdir -p "$fake/bus/event_source/devices/cpu_core" "$fake/bus/event_source/devices/cpu_atom"
LIBPFM_FORCE_PMU=skl "$MEMPROF" mem record -t load -e list >hy.txt || fail "-e list"
grep -q 'cpu_core/mem-loads,ldlat=30/P  \[PEBS load latency (P-cores), PMU cpu_core\]: available' hy.txt &&
	grep -q 'cpu_atom/mem-loads,ldlat=30/P  \[PEBS load latency (E-cores), PMU cpu_atom\]: available' hy.txt ||
	fail "hybrid: $(cat hy.txt)"
rm -r "$fake/bus/event_source/devices/cpu_core" "$fake/bus/event_source/devices/cpu_atom"
# AMD IBS: per CPU only
mkdir -p "$fake/bus/event_source/devices/ibs_op"
LIBPFM_FORCE_PMU=amd64_fam19h_zen4 "$MEMPROF" mem record -- true >/dev/null 2>ibs.txt && fail "IBS without -a"
grep -qx "memprof mem: AMD IBS op sampling (PMU ibs_op) samples CPUs, not a command's threads: add -a (memprof mem record -a -- CMD records every CPU while CMD runs)" ibs.txt ||
	fail "ibs: $(cat ibs.txt)"
rm -r "$fake/bus/event_source/devices/ibs_op"
LIBPFM_FORCE_PMU=amd64_fam19h_zen4 "$MEMPROF" mem record -a -- true >/dev/null 2>ibs2.txt && fail "IBS without its PMU"
grep -q "AMD IBS op sampling needs the kernel's 'ibs_op' PMU" ibs2.txt || fail "ibs2: $(cat ibs2.txt)"
one_line ibs2.txt
# --alloc goes to memprof record for mem record and c2c record alike (the heap tracked beside
# the memory samples): record looks for its library first, and names it when it is missing
mkdir -p "$fake/bus/event_source/devices/cpu"
for c in mem c2c; do
	MEMPROF_ALLOC_LIB=$W/none.so LIBPFM_FORCE_PMU=skl "$MEMPROF" $c record --alloc -o a.data -- true >/dev/null 2>al.txt &&
		fail "$c record --alloc: recorded with no library"
	grep -qx "memprof record: $W/none.so (from MEMPROF_ALLOC_LIB): No such file or directory" al.txt ||
		fail "$c record --alloc did not reach record --alloc: $(cat al.txt)"
done
rm -r "$fake/bus/event_source/devices/cpu"
# Arm SPE: an AUX buffer
mkdir -p "$fake/bus/event_source/devices/arm_spe_0"
# (the forced Arm model's own warning from the events module left out)
LIBPFM_FORCE_PMU=arm_n1 "$MEMPROF" mem record -- true >/dev/null 2>spe.all && fail "SPE accepted"
grep -v '^memprof: warning: LIBPFM_FORCE_PMU=arm_n1' spe.all >spe.txt
grep -q "^memprof mem: Arm SPE (PMU arm_spe_0) writes its samples into an AUX buffer, which memprof record does not map;" spe.txt ||
	fail "spe: $(cat spe.txt)"
one_line spe.txt
unset MEMPROF_SYSFS_ROOT
# this machine, as it is: one line (the detected model's PMU), unless it has one
if ! ls /sys/bus/event_source/devices | grep -qE '^(cpu|cpu_core|cpu_atom|ibs_op|arm_spe_0)$'; then
	"$MEMPROF" mem record -- true >/dev/null 2>here.txt && fail "recorded here"
	one_line here.txt
	grep -q "PMU" here.txt || fail "$(cat here.txt)"
fi
# usage errors
"$MEMPROF" mem record -t both -- true 2>/dev/null; [ $? = 2 ] || fail "-t both accepted"
"$MEMPROF" mem frob 2>/dev/null; [ $? = 2 ] || fail "mem frob accepted"
# mem report is report --mem-mode
if [ -f "$FIX/pdc-mem-load-latency-skx.data" ]; then
	mkdir -p e
	"$MEMPROF" mem report -i "$FIX/pdc-mem-load-latency-skx.data" --symfs e -k /dev/null --sort mem >a.txt || fail "mem report"
	"$MEMPROF" report --mem-mode -i "$FIX/pdc-mem-load-latency-skx.data" --symfs e -k /dev/null --sort mem >b.txt
	cmp -s a.txt b.txt || fail "mem report differs from report --mem-mode"
fi
echo ok
