#!/bin/bash
# Issue 29 items 3, 5 and 6: outputs written whole. report --html/--pprof and archive -o go
# through a temporary file renamed into place: a device given as the output is written in
# place and never removed when writing fails (/dev/full's numbers), the input's own name
# is refused with the recording intact, a failed write leaves an existing file as it was,
# outputs are 0600 and names of 245-255 bytes work. record keeps a complete recording
# when its -o path turned into a FIFO meanwhile, its workload dies with it (SIGKILL), and
# the next record names the temporary file a killed one left. archive packs the other
# objects when one's path cannot be a tar member (too long) and takes "x.." folders.
. "$(dirname "$0")/record_lib.sh"
cp "$KERNELS/cachebench" cb
# -r 400: the walk runs about 10 ms, so that cb has samples at 100 us (at -r 2 it ran 50 us,
# and a recording without samples in cb made the device check below look at nothing)
"$MEMPROF" record -q -g -e cpu-clock -c 100000 -o R.data ./cb -m walk -s 1M -r 400 >/dev/null \
	2>err || fail "record: $(cat err)"
"$MEMPROF" report -q -i R.data -k /dev/null --sort dso --csv 2>/dev/null | grep -q '^cb,' ||
	fail "no samples in cb: $("$MEMPROF" report -q -i R.data -k /dev/null --sort dso 2>&1 | head -5)"
cp R.data R.orig
# out_fails WHAT ARGS...: exit 1, one line naming WHAT
out_fails() {
	local what=$1; shift
	timeout 60 "$MEMPROF" "$@" >o 2>e
	rc=$?
	[ $rc = 1 ] || fail "memprof $*: exit $rc (want 1): $(cat e)"
	grep -v '^\[ memprof' e >e1
	[ "$(wc -l <e1)" = 1 ] || fail "memprof $*: not one line: $(cat e)"
	grep -q -- "$what" e1 || fail "memprof $*: no '$what' in: $(cat e)"
}
OUTS=("report -q -i R.data -k /dev/null --html" "report -q -i R.data -k /dev/null --pprof"
      "archive -q -i R.data -k /dev/null -o")
# the input's own name (and a link to it): refused, the recording intact
ln -s R.data link.data
for c in "${OUTS[@]}"; do
	for o in R.data link.data; do
		out_fails "is the input R.data itself" $c $o
		cmp -s R.data R.orig || fail "$c $o changed the recording"
	done
done
# a device that fails every write (/dev/full's numbers): written in place, never removed
if [ "$(id -u)" = 0 ]; then
	mknod full c 1 7
	for c in "${OUTS[@]}"; do
		out_fails "full: No space left on device" $c full
		[ -c full ] || fail "$c full: the device node was removed"
	done
	# stat -o a device with a command that cannot run: the node stays
	"$MEMPROF" stat -e cpu-clock -o full -- ./no-such-command >o 2>e && fail "stat of no command succeeded"
	[ -c full ] || fail "stat -o full: the device node was removed"
fi
# a file that cannot be replaced (a folder without write permission, as another user):
# the old file stays, no temporary file is left
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	mkdir ro && echo old >ro/out && chmod 555 ro && chmod 644 ro/out && chmod 755 "$W" &&
		chmod 644 R.data
	for c in "${OUTS[@]}"; do
		timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$MEMPROF" $c ro/out \
			>o 2>e && fail "$c ro/out as nobody succeeded"
		[ "$(cat ro/out)" = old ] || fail "$c ro/out: the old file was changed"
		[ "$(ls ro)" = out ] || fail "$c ro/out: left $(ls ro)"
	done
	chmod 600 R.data
fi
# an object of the recording turned into a device: its type is checked through O_PATH,
# never opened to read (opening a device can have effects: a watchdog)
if [ "$(id -u)" = 0 ] && command -v strace >/dev/null; then
	mv cb cb.keep && mknod cb c 1 3
	HOME=$W ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat,open -o tr "$MEMPROF" report -q -i R.data -k /dev/null \
		>/dev/null 2>&1 || fail "report with cb a device failed"
	grep -q "\"$W/cb\"" tr || fail "report never looked at $W/cb"
	grep "\"$W/cb\"" tr | grep -v O_PATH && fail "the device $W/cb was opened"
	rm cb && mv cb.keep cb
fi
# written whole, 0600; names of 245-255 bytes
for n in 200 245 250 255; do
	name=$(printf 'n%.0s' $(seq $n))
	for c in "${OUTS[@]}"; do
		"$MEMPROF" $c "$name" >o 2>e || fail "$c with a $n-byte name: $(cat e)"
		[ "$(stat -c %a "$name")" = 600 ] || fail "$c $n bytes: mode $(stat -c %a "$name")"
		rm -f "$name"
	done
	"$MEMPROF" record -q -e cpu-clock -o "$name" true 2>e || fail "record -o a $n-byte name: $(cat e)"
	[ -s "$name" ] || fail "record -o a $n-byte name wrote nothing"
	rm -f "$name"
done
ls | grep -q 'tmp\.' && fail "temporary files left: $(ls | grep tmp)"
# archive: one object under a path too long for a tar member, another in a folder "x..":
# both recorded, the short one packed, the long one named, exit 0. Each runs about 40 ms, so
# that both have samples at 100 us (at -r 2 they ran 40 us and often had none)
long=$W/$(printf 'd%.0s' $(seq 90))/$(printf 'e%.0s' $(seq 90))/$(printf 'f%.0s' $(seq 90))
mkdir -p "$long" "x.."
cp "$KERNELS/cachebench" "$long/cb"
cp "$KERNELS/cachebench" "x../cb2"
"$MEMPROF" record -q -e cpu-clock -c 100000 -o L.data sh -c "'$long/cb' -m walk -s 1M -r 2000; ./x../cb2 -m walk -s 1M -r 2000" \
	>/dev/null 2>err || fail "record L: $(cat err)"
"$MEMPROF" archive -i L.data -k /dev/null -o L.tar >o 2>e || fail "archive with a long path: $(cat e)"
grep -q "not packed: cb (a path a tar member cannot hold)" o || fail "the long path not named: $(cat o)"
tar tf L.tar | grep -q '/x\.\./cb2/[0-9a-f]*/elf$' || fail "x../cb2 not packed: $(tar tf L.tar)"
"$MEMPROF" report -q -i L.data -k /dev/null --archive L.tar >o 2>e || fail "report --archive L.tar: $(cat e)"

# record: -o turned into a FIFO while recording: the recording is kept and named
"$MEMPROF" record -q -e cpu-clock -c 100000 -o F.data -- sleep 2 >o 2>e &
rp=$!
wait_until compgen -G "F.data.tmp.*" >/dev/null
mkfifo F.data
wait $rp
rc=$?
[ $rc != 0 ] || fail "record with -o turned into a FIFO exited 0"
tmp=$(compgen -G "F.data.tmp.*") || fail "the recording was deleted: $(cat e)"
grep -q "kept as $tmp" e || fail "the message does not name $tmp: $(cat e)"
"$MEMPROF" report -q -i "$tmp" -k /dev/null >/dev/null 2>&1 || fail "$tmp unreadable"
rm -f F.data "$tmp"
# record killed with SIGKILL: the workload dies too; the next record names the leftover
"$MEMPROF" record -q -e cpu-clock -c 100000 -o K.data -- sleep 30 >/dev/null 2>&1 &
rp=$!
wait_until pgrep -P $rp -x sleep >/dev/null
wl=$(pgrep -P $rp -x sleep)
kill -9 $rp
wait $rp 2>/dev/null
wait_until sh -c "! kill -0 $wl 2>/dev/null || grep -q '^State:.*Z' /proc/$wl/status"
tmp=$(compgen -G "K.data.tmp.*") || fail "no temporary file after SIGKILL"
"$MEMPROF" report -i K.data -k /dev/null >o 2>e && fail "report -i K.data succeeded without K.data"
grep -q "K.data: no such file; $tmp was left by a record that did not finish.*memprof report -i $tmp" e ||
	fail "report does not offer $tmp: $(cat e)"
"$MEMPROF" report -q -i "$tmp" -k /dev/null >o 2>e || fail "report -i $tmp: $(cat e)"
"$MEMPROF" record -q -e cpu-clock -o K.data true 2>e || fail "record after SIGKILL: $(cat e)"
grep -q "$tmp: left by a record that did not finish.*memprof report -i $tmp" e ||
	fail "the leftover $tmp is not named: $(cat e)"
echo "PASS safe_outfile"
