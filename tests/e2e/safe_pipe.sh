# Issue 18: record -o - writes perf's pipe format to standard output. A simulated recording
# (deterministic) piped into report -i - equals the file-mode recording's report, line for
# line; a sampled one piped into memprof report equals memprof's report of the same stream
# kept in a file, perf reads that stream without a warning and agrees row by row; the
# command's own output goes to standard error, never into the stream; perf record -o -
# piped into memprof report -i - agrees with perf report of the same stream.
CMP=$(cd "$(dirname "$0")" && pwd)/report_perfcmp.py
. "$(dirname "$0")/record_lib.sh"
need_perf
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
cat >hot.c <<'C'
#include <stdio.h>
#include <stdlib.h>
volatile double sink;
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	sink = s;
	if (argc > 2)
		puts("HOT-OUTPUT-LINE");
	return 0;
}
C
gcc -g -O1 -o hot hot.c || fail "gcc"
# body REPORT: the report without the lines naming the input and memprof's command line
body() { grep -v -e '^# memprof report of' -e '^# command:' "$1"; }

# 1. simulated (valgrind): the same counts in both modes, so the same report
if command -v valgrind >/dev/null; then
	"$MEMPROF" record -q --sim -o S.data -- ./hot 200000 2>err || fail "record --sim: $(cat err)"
	"$MEMPROF" record -q --sim -o - -- ./hot 200000 2>err | "$MEMPROF" report -i - >pipe.txt 2>rerr ||
		fail "record --sim -o - | report -i -: $(cat err rerr)"
	"$MEMPROF" report -i S.data >file.txt || fail "report -i S.data"
	grep -q '(pipe mode)' pipe.txt || fail "report -i - did not read the pipe format: $(head -3 pipe.txt)"
	grep -q '\[\.\] main' file.txt || fail "no main in the simulated report: $(head -30 file.txt)"
	cmp <(body file.txt) <(body pipe.txt) ||
		fail "--sim: the pipe's report differs from the file's: $(diff <(body file.txt) <(body pipe.txt) | head)"
	"$MEMPROF" record -q --sim -o - -- ./hot 200000 2>/dev/null >S.pipe
	"$MEMPROF" ratios -i S.data >rf.txt 2>&1 || fail "ratios -i S.data: $(cat rf.txt)"
	"$MEMPROF" ratios -i - <S.pipe >rp.txt 2>&1 || fail "ratios -i - (pipe format): $(cat rp.txt)"
	cmp <(body rf.txt | grep -v '^# file:') <(body rp.txt | grep -v '^# file:') ||
		fail "--sim: ratios differ: $(diff rf.txt rp.txt | head)"
fi

# 2. sampled: the stream piped to report equals the report of the same stream in a file;
# the command's output (printed by hot) is on stderr, not in the stream.
"$MEMPROF" record -e cpu-clock:u -c 100000 -o - -- ./hot 30000000 print 2>err |
	tee P.pipe | "$MEMPROF" report -i - >rp.txt 2>rerr || fail "record -o - | report -i -: $(cat err rerr)"
grep -q '^HOT-OUTPUT-LINE$' err || fail "the command's output is not on stderr: $(cat err)"
grep -q 'HOT-OUTPUT-LINE' P.pipe && fail "the command's output went into the stream"
grep -q 'wrote .* to standard output' err || fail "record's summary: $(cat err)"
"$MEMPROF" report -i P.pipe >rf.txt || fail "report -i P.pipe"
cmp <(body rf.txt) <(body rp.txt) || fail "report -i - differs from the file's: $(diff rf.txt rp.txt | head)"
grep -q '\[\.\] main' rp.txt || fail "no main: $(head -30 rp.txt)"
n=$(mp_samples err cpu-clock:u)
grep -q "samples $n," rp.txt || fail "record wrote $n samples, report read: $(grep samples rp.txt)"
# perf reads memprof's pipe format: no warning, the same samples and rows.
perf_reads P.pipe
"$PERF" report -i P.pipe --stdio --sort dso,sym --no-children -g none 2>/dev/null |
	grep -v '^# (Tip' >perf.txt
"$MEMPROF" report -q -i P.pipe --csv >mp.csv || fail "report --csv"
python3 "$CMP" perf.txt mp.csv rows 0.1 0.5 >cmp 2>&1 || fail "perf and memprof differ on the stream: $(head -5 cmp)"
grep -q "^# Samples: $n " perf.txt || grep -q "^# Samples: [0-9.]*K " perf.txt ||
	fail "perf sees other samples than $n: $(grep Samples perf.txt)"

# 3. perf record -o - | memprof report -i -: rows as perf report's of the same stream.
"$PERF" record -q -e cpu-clock:u -c 100000 -o - ./hot 2>/dev/null | tee Q.pipe |
	"$MEMPROF" report -q -i - --csv >mq.csv 2>err || fail "perf record -o - | memprof report -i -: $(cat err)"
"$PERF" report -i Q.pipe --stdio --sort dso,sym --no-children -g none 2>/dev/null |
	grep -v '^# (Tip' >perfq.txt
python3 "$CMP" perfq.txt mq.csv rows 0.1 0.5 >cmp 2>&1 || fail "perf's stream: memprof and perf differ: $(head -5 cmp)"
grep -q 'main' mq.csv || fail "perf's stream: no main: $(head mq.csv)"
exit 0
