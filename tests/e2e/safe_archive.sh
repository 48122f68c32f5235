#!/bin/bash
# Issue 29 item 1: report/annotate --archive with hostile tars. Nothing is ever written
# outside the unpacking folder: a symlink member followed by a member below it or of its
# name, absolute names, "..", links leaving the folder, duplicate names, devices, hard
# links and FIFOs are refused with one line naming the archive and member, exit 1. A FIFO
# given as the archive is refused at once (item 8), and the folder is always removed.
. "$(dirname "$0")/record_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
"$MEMPROF" record -q -e cpu-clock -c 100000 -o R.data "$KERNELS/cachebench" -m walk -s 1M \
	-r 1 >/dev/null 2>err || fail "record: $(cat err)"
mkdir -p out tmp
echo original >out/victim
export TMPDIR=$W/tmp
# mktar NAME SPEC...: SPEC is type:name[:target-or-content] (f file, d dir, l symlink,
# h hard link, c char device, p fifo)
mktar() {
	python3 - "$@" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.USTAR_FORMAT) as t:
    for spec in sys.argv[2:]:
        kind, name, *rest = spec.split(":", 2)
        arg = rest[0] if rest else ""
        i = tarfile.TarInfo(name)
        data = None
        if kind == "f":
            data = arg.encode(); i.size = len(data)
        elif kind == "d": i.type = tarfile.DIRTYPE
        elif kind == "l": i.type = tarfile.SYMTYPE; i.linkname = arg
        elif kind == "h": i.type = tarfile.LNKTYPE; i.linkname = arg
        elif kind == "c": i.type = tarfile.CHRTYPE; i.devmajor, i.devminor = 1, 3
        elif kind == "p": i.type = tarfile.FIFOTYPE
        t.addfile(i, io.BytesIO(data) if data is not None else None)
PY
}
# refused TAR WHAT: report and annotate --archive TAR exit 1 with one line containing
# WHAT, out/ is untouched and the temporary folder is gone
refused() {
	local tar=$1 what=$2
	for c in report annotate; do
		timeout 20 "$MEMPROF" $c -q -i R.data -k /dev/null --archive "$tar" >o 2>e
		rc=$?
		[ $rc = 1 ] || fail "$c --archive $tar: exit $rc (want 1): $(cat e)"
		[ "$(wc -l <e)" = 1 ] || fail "$c --archive $tar: not one line: $(cat e)"
		grep -q -- "$what" e || fail "$c --archive $tar: no '$what' in: $(cat e)"
	done
	[ "$(cat out/victim)" = original ] || fail "$tar: out/victim overwritten"
	[ "$(ls out)" = victim ] || fail "$tar: written outside the folder: $(ls out)"
	[ -z "$(ls tmp)" ] || fail "$tar: the unpacking folder was left: $(ls tmp)"
}
mktar dirlink.tar "l:a:$W/out" "f:a/planted:owned"
refused dirlink.tar "link to '$W/out'"
mktar through.tar "d:d" "l:a:d" "f:a/planted:owned"
refused through.tar "'a/planted': would be written through a link"
mktar filelink.tar "l:x:$W/out/victim" "f:x:owned"
refused filelink.tar "link to '$W/out/victim'"
mktar rellink.tar "l:x:../../out/victim" "f:x:owned"
refused rellink.tar "link to '../../out/victim'"
mktar climb.tar "d:d" "l:d/s:." "l:y:d/s/../../out/victim"
refused climb.tar "link to 'd/s/../../out/victim'"
mktar dup.tar "f:y:one" "l:x:y" "f:x:two"
refused dup.tar "second member"
mktar dupfile.tar "f:x:one" "f:x:two"
refused dupfile.tar "second member"
mktar abs.tar "f:$W/out/abs:owned"
refused abs.tar "outside the folder"
mktar dotdot.tar "f:../../out/up:owned"
refused dotdot.tar "outside the folder"
mktar dev.tar "c:null"
refused dev.tar "a device"
mktar hard.tar "f:x:one" "h:y:x"
refused hard.tar "a hard link"
mktar fifo.tar "p:f"
refused fifo.tar "a FIFO"
mkfifo fifo.tar.p
refused fifo.tar.p "FIFO"
# a well-formed archive with a .build-id link inside still reads
mktar ok.tar "d:usr/bin/x/abcd" "f:usr/bin/x/abcd/elf:x" "l:.build-id/ab/cd:../../usr/bin/x/abcd"
"$MEMPROF" report -q -i R.data -k /dev/null --archive ok.tar >o 2>e || fail "ok.tar: $(cat e)"
[ -z "$(ls tmp)" ] || fail "ok.tar: the unpacking folder was left: $(ls tmp)"
echo "PASS safe_archive"
