# Issue 18: privilege. The kernel decides, not the paranoid number: at
# perf_event_paranoid 2 (and 3, which this kernel treats as 2) an unprivileged user's
# stat and record fall back to user-space events with a note, as perf does; the hidden
# kernel symbols are blamed on the real cause. The setting is restored afterwards.
. "$(dirname "$0")/record_lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (sets perf_event_paranoid, runs as a user)"; exit 77; }
PAR=/proc/sys/kernel/perf_event_paranoid
old=$(cat $PAR)
[ -w $PAR ] || { echo "SKIP: $PAR is not writable"; exit 77; }
U=memprof-safe-test
cleanup() { echo "$old" >$PAR; [ -n "${made_user:-}" ] && userdel "$U" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -d /nonexistent -s /usr/sbin/nologin "$U" 2>/dev/null ||
		{ echo "SKIP: cannot create a user"; exit 77; }
	made_user=1
fi
chmod 755 "$W"
mkdir -m 1777 "$W/u"
as_user() { su -s /bin/sh "$U" -c "cd '$W/u' && $*"; }

for p in 2 3; do
	echo $p >$PAR
	as_user "'$MEMPROF' stat -- true" >out 2>err || fail "paranoid $p: stat -- true as $U: $(cat err)"
	grep -q "measuring user space only" err || fail "paranoid $p: stat does not say user-only: $(cat err)"
	grep -q 'task-clock' err || fail "paranoid $p: stat printed no counts: $(cat err)"
	as_user "'$MEMPROF' record -o R$p.data -- true" >out 2>err ||
		fail "paranoid $p: record -- true as $U: $(cat err)"
	grep -q "measuring user space only" err || fail "paranoid $p: record does not say user-only: $(cat err)"
	# the recording says what was measured: user space only
	if command -v "$PERF" >/dev/null; then
		"$PERF" evlist -f -v -i "$W/u/R$p.data" 2>/dev/null | grep -q 'exclude_kernel: 1' ||
			fail "paranoid $p: the recorded attr is not user-only: $("$PERF" evlist -f -v -i "$W/u/R$p.data" 2>&1)"
	fi
done
# kptr_restrict 0 with paranoid 2: the advice names perf_event_paranoid, not kptr_restrict
echo 2 >$PAR
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 0 ]; then
	as_user "'$MEMPROF' record -o K.data -- true" >out 2>err || fail "record: $(cat err)"
	grep -q 'kernel symbols are hidden from this user (kernel.perf_event_paranoid=2' err ||
		fail "kptr advice: $(cat err)"
	grep -q "sysctl kernel.kptr_restrict=0" err && fail "kptr_restrict=0 advised while it is 0: $(cat err)"
fi
# -p of another user's process: the message names that, not system-wide events
sleep 60 &
sp=$!
as_user "'$MEMPROF' record -o P.data -p $sp" >out 2>err && fail "record -p of root's process succeeded"
grep -q "process $sp belongs to another user (uid 0)" err || fail "-p message: $(cat err)"
grep -q "system-wide" err && fail "-p message blames system-wide events: $(cat err)"
as_user "'$MEMPROF' stat -p $sp" >out 2>err && fail "stat -p of root's process succeeded"
grep -q "process $sp belongs to another user" err || fail "stat -p message: $(cat err)"
kill $sp
# root does not read a recording another user owns (planted input) unless --force, as perf
cp "$W/u/R2.data" O.data
chown "$U" O.data
for c in report annotate ratios script "tui --batch q"; do
	"$MEMPROF" $c -i O.data -k /dev/null >out 2>err && fail "$c read $U's file"
	[ "$(wc -l <err)" = 1 ] || fail "$c: not one line: $(cat err)"
	grep -q "O.data: owned by another user (uid $(id -u "$U"))" err || fail "$c: $(cat err)"
	"$MEMPROF" $c --force -i O.data -k /dev/null >out 2>err || fail "$c --force: $(cat err)"
done
# root is not limited: no fallback note
echo 2 >$PAR
"$MEMPROF" stat -- true >out 2>err || fail "stat as root: $(cat err)"
grep -q "user space only" err && fail "root fell back to user space: $(cat err)"
exit 0
