#!/bin/bash
# mpsim's L3 the cores share (record --L3 SIZE,ASSOC,LINE|host, or the tool's own --L3
# through --sim-tool-opts): main writes a 4 MB
# buffer, a thread walks it twice on one simulated core, then another thread twice on
# another core (sim_l3.c). Each core's own 1 MB L2 misses every line of every pass
# (DLmr 2 x 65,536 in each walker, and the few lines of its stack, globals and code), and an
# 8 MB L3 holds the buffer main brought in: no walker misses it (L3m at most those few
# lines), and their memory samples say L3 hit, as perf mem report
# reads them. With a 2 MB L3 (smaller than the buffer, LRU) every one of those misses
# misses the L3 too. Without --L3 there is no L3 (L3m 0, loads from memory).
. "$(dirname "$0")/sim_lib.sh"
[ -x "${MEMPROF_VGTOOL:-/nonexistent}" ] || { echo "SKIP: memprof built without its valgrind tool"; exit 77; }
cc -O1 -g -pthread -o l3 "$(dirname "$0")/sim_l3.c" || fail "cannot build sim_l3.c"
GEO=(--I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64)
rec() { # NAME L3 (record's --L3, or the tool's own with tool:)
	local opts=()
	case "$2" in
	tool:*) opts=(--sim-tool-opts="--L3=${2#tool:}") ;;
	?*) opts=(--L3 "$2") ;;
	esac
	"$MEMPROF" record --sim --sim-cores 2 "${GEO[@]}" "${opts[@]}" -d -c 101 -e DLmr,L3m \
		-o $1.data -- ./l3 >$1.out 2>$1.err || fail "record --sim $*: $(cat $1.err)"
	grep -q walked $1.out || fail "$1: $(cat $1.out)"
}
rec big 8388608,16,64
grep -q "; L3 8388608,16,64 shared by the cores ]" big.err || fail "big: $(cat big.err)"
rec small tool:2097152,16,64
grep -q "; L3 2097152,16,64 shared by the cores ]" small.err || fail "small: $(cat small.err)"
rec none ""
grep -q "shared by the cores" none.err && fail "none: $(cat none.err)"
# --L3 host: this machine's from sysfs, or an error that says why not
if "$MEMPROF" record --sim --L3 host -e L3m -o host.data -- true >host.out 2>host.err; then
	grep -q "; L3 [0-9]*,[0-9]*,64 shared by the cores ]" host.err || fail "host: $(cat host.err)"
else
	grep -Eq "no level 3 unified cache|not a power of two" host.err || fail "host: $(cat host.err)"
fi
N=$((2 * 65536))
for f in first second; do
	for r in big small none; do
		d=$(perf_sym_period $r.data DLmr $f)
		check "$d >= $N && $d <= $N + 4" "$r: $f DLmr $d, not 2 x 65536 (+4)"
	done
	b=$(perf_sym_period big.data L3m $f)
	check "$b <= 4" "8 MB L3: $f L3m $b, not 0 (+4)"
	s=$(perf_sym_period small.data L3m $f)
	check "$s >= $N && $s <= $N + 4" "2 MB L3: $f L3m $s, not 2 x 65536 (+4)"
	m=$(perf_sym_period none.data L3m $f)
	[ "$m" = 0 ] || fail "no L3: $f L3m $m"
	echo "$f: DLmr $d; L3m $b (8 MB L3), $s (2 MB)"
done
# the walkers' sampled loads, as perf mem report sees them: with the 8 MB L3 all from the
# L3 (or from main's core, which wrote the buffer's last megabyte: perf says L3 hit for
# both), none from memory; without an L3, most from memory (RAM)
lvls() { # FILE SYM -> the levels of SYM's sampled loads, one a line
	"$PERF" mem report -i $1 --stdio --sort sym,mem -F overhead,sym,mem 2>/dev/null |
		awk -v s="$2" '/^# Samples: .* of event / { ld = /mem-loads/ }
			ld && $0 ~ "\\] " s " " { sub(/.*\] [^ ]+ +/, ""); print }'
}
for f in first second; do
	l=$(lvls big.data $f)
	echo "$l" | grep -q 'L3 hit' && ! echo "$l" | grep -q RAM || fail "8 MB L3: $f's loads from: $l"
	l=$(lvls none.data $f)
	echo "$l" | grep -q 'RAM hit' || fail "no L3: $f's loads from: $l"
done
echo "ok"
