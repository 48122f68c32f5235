#!/bin/bash
# record --sim: refused events and bad geometry give one clear line and the right exit
# status; the workload's status passes through; default events; the file says it is
# simulated.
. "$(dirname "$0")/sim_lib.sh"

expect() { # STATUS PATTERN CMD...
	local want=$1 pat=$2; shift 2
	"$@" >out 2>err
	local rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, expected $want ($(cat err))"
	grep -q -- "$pat" err || fail "$*: stderr lacks '$pat': $(cat err)"
	[ "$(grep -c 'memprof record' err)" -eq 1 ] || fail "$*: not one error line: $(cat err)"
}

expect 1 "event 'cycles': cannot be simulated: the simulator has no timing model" \
	"$MEMPROF" record --sim -e INST_RETIRED,cycles -o x.data -- /bin/true
expect 1 "event 'ITLB_MISS_RETIRED': cannot be simulated: callgrind has no TLB model; memprof's tool counts ITLBm" \
	"$MEMPROF" record --sim -e ITLB_MISS_RETIRED -o x.data -- /bin/true
expect 1 "event 'SSE_PRE_MISS.NTA': cannot be simulated: callgrind has no prefetch model; memprof's tool counts software prefetches" \
	"$MEMPROF" record --sim -e SSE_PRE_MISS.NTA -o x.data -- /bin/true
expect 1 "event 'CYCLES_L1I_MEM_STALLED': cannot be simulated: .*stall cycles" \
	"$MEMPROF" record --sim -e CYCLES_L1I_MEM_STALLED -o x.data -- /bin/true
expect 1 "event 'L1D_REPL:k': the simulator sees only user-space code" \
	"$MEMPROF" record --sim -e L1D_REPL:k -o x.data -- /bin/true
expect 1 "event 'bogus': not an event the simulator counts; --sim offers .*L1D_REPL" \
	"$MEMPROF" record --sim -e bogus -o x.data -- /bin/true
expect 2 "--L3 '2097152,12,64': valgrind cannot simulate this cache: the number of sets" \
	"$MEMPROF" record --sim --L3 2097152,12,64 -o x.data -- /bin/true
expect 2 "--L3 'big': expected SIZE,ASSOC,LINE_SIZE" \
	"$MEMPROF" record --sim --L3 big -o x.data -- /bin/true
expect 2 "--L3: the L3 the cores share is mpsim's, not callgrind's" \
	"$MEMPROF" record --sim --sim-engine=callgrind --L3 8388608,16,64 -o x.data -- /bin/true
expect 2 "--L3, --callgrind-out, --sim-engine, --sim-cores, --sim-tool-opts and --sim-alloc go with --sim" \
	"$MEMPROF" record --L3 host -o x.data -- /bin/true
[ -e x.data ] && fail "a refused --L3 wrote x.data"
expect 2 "--D1 '40000,8,64': valgrind cannot simulate this cache: the number of sets" \
	"$MEMPROF" record --sim --D1 40000,8,64 -o x.data -- /bin/true
expect 2 "--LL '1M,8': expected SIZE,ASSOC,LINE_SIZE" \
	"$MEMPROF" record --sim --LL 1M,8 -o x.data -- /bin/true
expect 127 "cannot run '/nonexistent/prog'" \
	"$MEMPROF" record --sim -o x.data -- /nonexistent/prog
expect 1 "valgrind: not found in PATH: .*package 'valgrind'" \
	env PATH=/nonexistent "$MEMPROF" record --sim -o x.data -- /bin/true
[ -e x.data ] && fail "a refused run left x.data"

# The workload's exit status passes through, and the file is still written.
"$MEMPROF" record --sim -q -e INST_RETIRED -o st.data -- /bin/sh -c 'exit 3' 2>err
rc=$?
[ $rc -eq 3 ] || fail "exit 3 workload: memprof exited $rc ($(cat err))"
[ -s st.data ] || fail "no st.data after a workload that exited 3"

# Without -e: every simulated quantity, by callgrind's names; geometry from the options.
"$MEMPROF" record --sim -o all.data --D1 16K,4,64 --LL 2M,16,64 -- /bin/true 2>err ||
	fail "record --sim /bin/true: $(cat err)"
grep -q "SIMULATED" err || fail "record's summary does not say SIMULATED: $(cat err)"
grep -q "D1 16384,4,64" err || fail "summary lacks the D1 geometry: $(cat err)"
events=$(perf_report all.data --sort sym | sed -n "s/^# Samples: .* of event '\(.*\)'$/\1/p" | tr '\n' ' ')
cg="Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim "
# memprof's tool adds its own (those with a count: /bin/true has no HITM)
case $(sed -n "s/.*SIMULATED by valgrind's \([a-z]*\): .*/\1/p" err) in
mpsim) extra=$(echo "${events#"$cg"}" | tr ' ' '\n' | grep -v '^$' |
		grep -vxE 'HITM|Inv|ITLBm|DTLBm|STLBm|PFx|PFm|PFl|Cyc|IFst' | tr '\n' ' ')
	[ "${events#"$cg"}" != "$events" ] && [ -z "$extra" ] && [[ $events == *" Cyc "* ]] ||
		fail "default events: '$events'" ;;
*) [ "$events" = "$cg" ] || fail "default events: '$events'" ;;
esac

# Without --sim, on a machine without a hardware PMU, a hardware event's error suggests --sim.
if [ ! -e /sys/bus/event_source/devices/cpu ] && ! ls -d /sys/bus/event_source/devices/armv* >/dev/null 2>&1; then
	"$MEMPROF" record -e instructions -o hw.data -- /bin/true >out 2>err && fail "instructions recorded without a PMU"
	grep -q -- "--sim" err || fail "no-PMU error does not suggest --sim: $(cat err)"
fi
echo "ok"
