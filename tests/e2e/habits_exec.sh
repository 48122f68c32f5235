#!/bin/bash
# Samples inside execve keep their user frame (issue 28.2): a stand-in that execs itself 20
# times (habits_execchain.c), recorded with page-faults, a period of 1 and -g by perf and by
# memprof. The kernel's execve path and the old program's __GI___execve under it get the
# same Children share in memprof report as in perf report (each sample at exec time has
# the old libc's address: the maps before the exec must stay until new ones replace them),
# and memprof script names it as often as perf script.
. "$(dirname "$0")/e2e_lib.sh"
SRC=$E2E/habits_execchain.c

cc -O1 -g -o execchain "$SRC" || { echo "skip: no C compiler"; exit 77; }
if ! "$PERF" record -q -g -e page-faults -c 1 -o p.data ./execchain 20 >/dev/null 2>probe.err; then
	echo "skip: perf record -g: $(head -1 probe.err)"
	exit 77
fi
"$MEMPROF" record -q -g -e page-faults -c 1 -o m.data ./execchain 20 >/dev/null 2>err ||
	{ echo "FAIL memprof record: $(cat err)"; exit 1; }

# "share dso sym" of the rows naming execve, by the command that ran it
rows_perf() { "$PERF" report -i "$1" --stdio --children --sort comm,dso,sym -g none 2>/dev/null |
	awk '/execve/ && !/^#/ { print $3, $1, $4, $6 }' | sort; }
rows_mp() { "$MEMPROF" report -i "$1" --no-objects --sort comm,dso,sym -g none 2>/dev/null |
	awk '/execve/ && !/^#/ { print substr($4, 1, 7), $1, $5, $7 }' | sort; }
for d in p.data m.data; do
	rows_perf $d >perf.$d
	rows_mp $d >mp.$d
	grep -q '__GI___execve' perf.$d || { echo "FAIL perf shows no __GI___execve in $d"; cat perf.$d; fail=1; }
	if ! diff perf.$d mp.$d >diff.$d; then
		echo "FAIL $d: the execve rows differ from perf's:"
		cat diff.$d
		fail=1
	fi
	np=$("$PERF" script -i $d 2>/dev/null | grep -c '__GI___execve')
	nm=$("$MEMPROF" script -i $d 2>/dev/null | grep -c '__GI___execve')
	[ "$np" -gt 0 ] && [ "$np" = "$nm" ] ||
		{ echo "FAIL $d: script names __GI___execve $nm times, perf $np"; fail=1; }
done

[ $fail = 0 ] && echo "ok: samples in execve keep the old program's frame, as perf"
exit $fail
