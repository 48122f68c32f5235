#!/bin/bash
# Issue 29 items 8 and 10 (topology): no command blocks on a FIFO or reads a device without
# end. predict -i, annotate and tui --predict given a FIFO: one line, exit 1, at once;
# topology --fsroot with proc/cpuinfo a FIFO or a link to /dev/zero: one line naming it,
# exit 1 (it blocked or spun forever); hwloc's own complaints about a thin snapshot do not
# reach the user.
. "$(dirname "$0")/record_lib.sh"
"$MEMPROF" record -q -e cpu-clock -c 100000 -o R.data "$KERNELS/cachebench" -m walk -s 1M -r 1 \
	>/dev/null 2>err || fail "record: $(cat err)"
mkfifo fifo
one_line() { # WHAT CMD...: exit 1 within the timeout, one line containing WHAT
	local what=$1; shift
	timeout 20 "$MEMPROF" "$@" >out 2>err
	rc=$?
	[ $rc = 1 ] || fail "memprof $*: exit $rc (124: blocked): $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "memprof $*: not one line: $(cat err)"
	grep -q -- "$what" err || fail "memprof $*: no '$what' in: $(cat err)"
}
one_line "fifo: is a FIFO" predict -i fifo
one_line "fifo: is a FIFO" annotate -i R.data -k /dev/null --predict fifo main
one_line "fifo: is a FIFO" tui --batch q -i R.data -k /dev/null --predict fifo
# a snapshot of a real machine with proc/cpuinfo replaced
snap="$SHARED_DIR/topology/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2"
if [ -f "$snap" ]; then
	mkdir s && tar xjf "$snap" -C s --exclude='*/sys/devices/pci*' --exclude='*/sys/bus/pci'
	m="s/32em64t-2n8c+1mic"
	timeout 60 "$MEMPROF" topology --fsroot "$m" >out 2>err || fail "topology of the snapshot: $(cat err)"
	rm "$m/proc/cpuinfo" && mkfifo "$m/proc/cpuinfo"
	one_line "$m/proc/cpuinfo: is a FIFO" topology --fsroot "$m"
	rm "$m/proc/cpuinfo" && ln -s /dev/zero "$m/proc/cpuinfo"
	one_line "$m/proc/cpuinfo: a link to a device" topology --fsroot "$m"
fi
# a thin snapshot: hwloc gives up on it, memprof says what is missing, hwloc says nothing
mkdir -p thin/proc thin/sys/devices/system/cpu/cpu0/topology
echo 0 >thin/sys/devices/system/cpu/online
echo garbage >thin/proc/cpuinfo
timeout 20 "$MEMPROF" topology --fsroot thin >out 2>err || fail "topology --fsroot thin: $(cat err)"
grep -q hwloc/ err && fail "hwloc's text reached the user: $(cat err)"
echo "PASS safe_hang"
