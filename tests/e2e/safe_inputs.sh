# Issue 18: special files as inputs. A FIFO as the recording, as an object named by the
# recording's MMAP events and as a source file: one line and exit 1 (or a warning when
# only symbols are lost), never a hang in open(); files read whole are bounded; -i - reads
# perf's pipe format from standard input (memprof and perf record -o -).
. "$(dirname "$0")/record_lib.sh"
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
T="timeout 30" # a hang, not a slow machine (a loaded CI host took over 10 s once)
cat >hot.c <<'C'
#include <stdlib.h>
volatile double sink;
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
	return 0;
}
C
gcc -g -O1 -o hot hot.c || fail "gcc"
"$MEMPROF" record -q -e cpu-clock -c 100000 -o R.data ./hot >/dev/null 2>err || fail "record: $(cat err)"
"$MEMPROF" annotate -i R.data -k /dev/null main >ann.ok 2>err || fail "annotate: $(cat err)"
grep -q 's += (double)i' ann.ok || fail "annotate shows no source line: $(head ann.ok)"

# one_line_fail CMD...: exit 1 within the timeout, one line on stderr
one_line_fail() {
	$T "$MEMPROF" "$@" >out 2>err
	rc=$?
	[ "$rc" = 1 ] || fail "memprof $* exited $rc (124: hung): $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "memprof $*: not one line: $(cat err)"
	grep -q 'FIFO' err || fail "memprof $*: the message does not say FIFO: $(cat err)"
}
mkfifo fifo
for c in report annotate ratios; do one_line_fail $c -i fifo -k /dev/null; done
one_line_fail tui --batch q -i fifo -k /dev/null
one_line_fail ratios --ratios fifo -i R.data -k /dev/null

# The source file replaced by a FIFO: annotate and the TUI show the code without source.
mv hot.c hot.c.keep && mkfifo hot.c
$T "$MEMPROF" annotate -i R.data -k /dev/null main >ann 2>err || fail "annotate, FIFO source: rc $?: $(cat err)"
grep -q 's += (double)i' ann && fail "annotate read the FIFO"
grep -q 'main' ann || fail "annotate shows nothing: $(cat err)"
$T "$MEMPROF" tui --batch 'Enter a' -i R.data -k /dev/null >tui 2>err || fail "tui, FIFO source: rc $?: $(cat err)"
rm hot.c && mv hot.c.keep hot.c

# The object named by the MMAP event replaced by a FIFO: report says the symbols are
# missing and why (not "file not found": it is there), never blocks.
mv hot hot.keep && mkfifo hot
for c in ratios report; do
	$T "$MEMPROF" $c -i R.data -k /dev/null >out 2>err || fail "$c, FIFO object: rc $?: $(cat err)"
done
grep -q '^#   no symbols for hot (not a regular ELF file): ' out ||
	fail "report, FIFO object: the cause is not named: $(grep 'no symbols' out)"
$T "$MEMPROF" annotate -i R.data -k /dev/null main >out 2>err
[ $? = 124 ] && fail "annotate hung on a FIFO object"
$T "$MEMPROF" tui --batch q -i R.data -k /dev/null >out 2>err || fail "tui, FIFO object: rc $?: $(cat err)"
rm hot && mv hot.keep hot

# Files read whole are bounded: /dev/zero is refused with a message, not read forever.
$T "$MEMPROF" ratios --ratios /dev/zero -i R.data -k /dev/null >out 2>err
[ $? = 1 ] || fail "ratios --ratios /dev/zero: $(cat err)"
grep -q 'limit' err || fail "ratios --ratios /dev/zero: $(cat err)"
# report reads kallsyms only for a recording with kernel samples: hot's are a few at its
# start and exit, and a loaded CI host once recorded none (no warning, the check failed);
# dd copying 256 MB from /dev/zero spends most of its time in the kernel
"$MEMPROF" record -q -e cpu-clock -c 100000 -o K.data dd if=/dev/zero of=/dev/null bs=64k count=4096 \
	>/dev/null 2>err || fail "record dd: $(cat err)"
"$MEMPROF" report -i K.data -k /dev/null --sort dso >kdso 2>err || fail "report K.data: $(cat err)"
grep -Eq '^ +[1-9][0-9]* +[0-9.]+% +\[kernel\.kallsyms\]' kdso ||
	fail "dd's recording has no kernel sample: $(grep -A8 '^# By dso' kdso)"
$T "$MEMPROF" report --kallsyms /dev/zero -i K.data >out 2>err || fail "report --kallsyms /dev/zero: $(cat err)"
grep -q '/dev/zero: larger than .* limit' err || fail "report --kallsyms /dev/zero: no warning: $(cat err)"

# -i -: standard input, from a pipe and from a redirected file, equals the file's report.
"$MEMPROF" report -i R.data -k /dev/null | sed 1d >rep.file
cat R.data | "$MEMPROF" report -i - -k /dev/null | sed 1d >rep.pipe
cmp rep.file rep.pipe || fail "report -i - (pipe) differs: $(diff rep.file rep.pipe | head)"
"$MEMPROF" report -i - -k /dev/null <R.data | sed 1d >rep.redir
cmp rep.file rep.redir || fail "report -i - <file differs"
if command -v "$PERF" >/dev/null; then
	"$PERF" record -q -e cpu-clock -c 100000 -o - ./hot 2>/dev/null >P.pipe ||
		fail "perf record -o -"
	"$MEMPROF" report -i P.pipe -k /dev/null | sed 1d >prep.file
	"$PERF" record -q -e cpu-clock -c 100000 -o - ./hot 2>/dev/null |
		"$MEMPROF" report -i - -k /dev/null >prep.pipe 2>err || fail "perf | report -i -: $(cat err)"
	grep -q '(pipe mode)' prep.pipe || fail "perf | report -i -: not pipe mode"
	grep -q '\[\.\] main' prep.pipe || fail "perf | report -i -: no main: $(head -30 prep.pipe)"
	cat P.pipe | "$MEMPROF" report -i - -k /dev/null | sed 1d >prep.pipe2
	cmp prep.file prep.pipe2 || fail "perf's pipe file vs -i -: $(diff prep.file prep.pipe2 | head)"
fi
exit 0
