# Issue 18: record -o never replaces anything but a regular file, creates its temporary
# file safely (random name, O_EXCL, 0600; a planted symlink or a user's own PATH.tmp is
# untouched), keeps PATH.old, and fails with one line when writing fails mid-run (a full
# disk), leaving the old file as it was. Run as root and as another user in a sticky dir.
. "$(dirname "$0")/record_lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mknod, mount, a second user)"; exit 77; }
REC() { "$MEMPROF" record -q -e cpu-clock -c 100000 "$@"; }
WL="$KERNELS/matmul -N 64 -a naive"

# A character device and a FIFO as -o: refused in one line before anything runs, the
# node untouched.
mknod chr c 1 3 # /dev/null's numbers
mkfifo fifo
for o in chr fifo /dev/null; do
	before=$(stat -c '%F %t:%T %i' "$o")
	timeout 10 "$MEMPROF" record -q -e cpu-clock -o "$o" -- $WL >out 2>err
	rc=$?
	[ "$rc" = 1 ] || fail "-o $o exited $rc: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "-o $o: not one line: $(cat err)"
	grep -q 'writes only regular files' err || fail "-o $o: $(cat err)"
	[ "$(stat -c '%F %t:%T %i' "$o")" = "$before" ] || fail "-o $o: the node was replaced"
done
mkdir adir
REC -o adir -- $WL 2>err && fail "-o a directory succeeded"
[ -d adir ] || fail "-o adir: the directory is gone"

# Mode 0600, PATH.old kept, a user's own PATH.tmp kept.
echo "previous" >R.data
echo "mine" >R.data.tmp
REC -o R.data -- $WL 2>err || fail "record: $(cat err)"
[ "$(stat -c %a R.data)" = 600 ] || fail "R.data mode $(stat -c %a R.data), want 600"
[ "$(cat R.data.old)" = previous ] || fail "R.data.old is not the previous file"
[ "$(cat R.data.tmp)" = mine ] || fail "the user's R.data.tmp was overwritten"
compgen -G "R.data.tmp.*" >/dev/null && fail "a temporary file was left"
"$MEMPROF" report -i R.data -k /dev/null >/dev/null 2>err || fail "report: $(cat err)"

# A sticky shared directory where another user planted R.data.tmp as a link to a file of
# root's: root's record leaves the link and its target alone; the same for that user.
U=memprof-safe-test
if ! id "$U" >/dev/null 2>&1; then
	useradd -M -d /nonexistent -s /usr/sbin/nologin "$U" 2>/dev/null ||
		{ echo "SKIP: cannot create a user"; exit 77; }
	trap 'userdel "$U" 2>/dev/null; rm -rf "$W"' EXIT
fi
S=$W/shared
mkdir -m 1777 "$S"
chmod 755 "$W"
echo "root's secret" >"$W/target"
su -s /bin/sh "$U" -c "ln -s '$W/target' '$S/R.data.tmp'" || fail "ln as $U"
REC -o "$S/R.data" -- $WL 2>err || fail "record into the sticky dir: $(cat err)"
[ "$(cat "$W/target")" = "root's secret" ] || fail "root wrote through $U's link"
[ -L "$S/R.data.tmp" ] || fail "$U's link was removed"
[ "$(stat -c %a "$S/R.data")" = 600 ] || fail "$S/R.data not 0600"
# the other user records too (software events, its own process), same rules
echo "theirs" >"$W/t2"
chmod 666 "$W/t2"
ln -s "$W/t2" "$S/U.data.tmp"
su -s /bin/sh "$U" -c "'$MEMPROF' record -q -e cpu-clock:u -c 100000 -o '$S/U.data' -- $WL" \
	2>err || fail "record as $U: $(cat err)"
[ "$(cat "$W/t2")" = theirs ] || fail "$U wrote through root's link"
[ "$(stat -c '%a %U' "$S/U.data")" = "600 $U" ] || fail "U.data: $(stat -c '%a %U' "$S/U.data")"

# A full disk mid-run: exit non-zero, one line saying what was lost, the old file as it was.
mkdir full
mount -t tmpfs -o size=1m tmpfs full || { echo "SKIP: cannot mount tmpfs"; exit 77; }
trap 'umount "$W/full" 2>/dev/null; userdel "$U" 2>/dev/null; rm -rf "$W"' EXIT
echo "old recording" >full/F.data
# every page fault of a 128 MB walk: 2.5 MB of samples, no fast timer (safe_truncate.sh)
"$MEMPROF" record -q -g -e page-faults -c 1 -o full/F.data -- "$KERNELS/cachebench" -m walk -s 128M -r 1 \
	>out 2>err
rc=$?
[ "$rc" != 0 ] || fail "record on a full disk exited 0"
[ "$(wc -l <err)" = 1 ] || fail "full disk: not one line: $(cat err)"
grep -q 'No space left on device: the recording is lost (full/F.data left as it was)' err ||
	fail "full disk message: $(cat err)"
[ "$(cat full/F.data)" = "old recording" ] || fail "the old file was changed"
[ "$(ls full)" = F.data ] || fail "files left on the full disk: $(ls full)"
exit 0
