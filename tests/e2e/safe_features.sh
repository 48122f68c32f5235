# Issue 18: a damaged or unknown header feature that a command does not need is skipped
# with one warning naming it, once per command (report looks at the file before reading it:
# one open serves both), and the report is the intact file's (perf reads these files too);
# a command that needs the damaged feature (--sort cpu,socket: CPU_TOPOLOGY) fails in one
# line.
DMG=$(cd "$(dirname "$0")" && pwd)/safe_features.py
. "$(dirname "$0")/record_lib.sh"
"$MEMPROF" record -q -e cpu-clock -c 100000 -o R.data -- "$KERNELS/cachebench" -s 64K -r 2000 \
	>/dev/null 2>err || fail "record: $(cat err)"
"$MEMPROF" report -i R.data -k /dev/null >R.txt 2>err || fail "report -i R.data: $(cat err)"
[ -s err ] && fail "the intact file warns: $(cat err)"
grep -q '\[\.\] walk' R.txt || fail "no walk in the intact report: $(head -30 R.txt)"
"$MEMPROF" report -i R.data --sort cpu,socket -k /dev/null >/dev/null 2>err ||
	fail "--sort cpu,socket on the intact file: $(cat err)"
for m in hostname topology unknown table; do
	python3 "$DMG" R.data $m.data $m || fail "making $m.data"
	"$MEMPROF" report -i $m.data -k /dev/null >$m.txt 2>err || fail "$m: report exited $?: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: not one warning: $(cat err)"
	case $m in
	hostname) grep -q 'warning: .*feature 3 (HOSTNAME) .*ignored' err ;;
	topology) grep -q 'warning: .*feature 13 (CPU_TOPOLOGY) .*ignored' err ;;
	unknown) grep -q 'warning: .*feature 100 (unknown) .*ignored' err ;;
	table) grep -q 'warning: .*feature table .*header features ignored' err ;;
	esac || fail "$m: the warning does not name the feature: $(cat err)"
	# a table cut loses every feature: without OSRELEASE the [vdso] is not taken to be this
	# kernel's, so a sample there (clock_gettime, now and then) is left unnamed
	skip='^#'
	[ $m = table ] && skip='^#|\[vdso\]'
	cmp <(grep -Ev "$skip" R.txt) <(grep -Ev "$skip" $m.txt) ||
		fail "$m: the rows differ from the intact file's: $(diff R.txt $m.txt | head)"
	# every reading command opens the file and warns once
	"$MEMPROF" report -i $m.data -k /dev/null --csv >/dev/null 2>err || fail "$m: report --csv: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: report --csv: not one warning: $(cat err)"
	"$MEMPROF" ratios -i $m.data -k /dev/null >/dev/null 2>err || fail "$m: ratios: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: ratios: not one warning: $(cat err)"
	"$MEMPROF" annotate -i $m.data -k /dev/null walk >/dev/null 2>err || fail "$m: annotate: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: annotate: not one warning: $(cat err)"
	"$MEMPROF" tui -i $m.data -k /dev/null --batch '' >/dev/null 2>err || fail "$m: tui: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: tui --batch: not one warning: $(cat err)"
	"$MEMPROF" script -i $m.data >/dev/null 2>err || fail "$m: script: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$m: script: not one warning: $(cat err)"
	if command -v "$PERF" >/dev/null; then
		"$PERF" report -i $m.data --stdio >perf.txt 2>/dev/null || fail "$m: perf report refuses it too"
		grep -q 'walk' perf.txt || fail "$m: perf shows no walk"
	fi
done
# the command that needs the damaged feature fails, in one line
"$MEMPROF" report -i topology.data --sort cpu,socket -k /dev/null >out 2>err
[ $? = 1 ] || fail "--sort cpu,socket without CPU_TOPOLOGY: $(cat err)"
[ "$(grep -vc 'warning' err)" = 1 ] && grep -q 'no CPU_TOPOLOGY' err || fail "--sort cpu,socket: $(cat err)"
exit 0
