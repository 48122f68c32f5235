#!/bin/bash
# Issue 29 item 4: a recording's names and sources carry no terminal control into the text
# outputs. A workload whose comm holds an OSC title sequence, a BEL, a newline and a byte
# that is not UTF-8, with a source line holding "clear screen": report (text and csv),
# script (text and csv), --folded, annotate, diff and ratios print no ESC, BEL or other
# control character but tab and newline; the comm's newline forges no line in script and
# --folded; --json is valid UTF-8 JSON with the comm's characters escaped.
. "$(dirname "$0")/record_lib.sh"
command -v gcc >/dev/null || { echo "SKIP: no gcc"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
printf '%s\n' '#include <sys/prctl.h>' 'volatile double sink;' \
	'int main(void)' '{' \
	'	prctl(PR_SET_NAME, "\x1b]0;T\x07\nforged\xff");' \
	'	double s = 0;' \
	"	for (long i = 0; i < 40000000; i++) /* $(printf '\033[2J\033[H') */" \
	'		s += (double)i * 0.5;' \
	'	sink = s;' '	return 0;' '}' >evil.c
gcc -g -O1 -o evil evil.c || fail "gcc"
"$MEMPROF" record -q -g -e cpu-clock -c 100000 -o E.data ./evil >/dev/null 2>err || fail "record: $(cat err)"
# clean FILE WHAT: no control character but tab and newline
clean() {
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$1" &&
		fail "$2 passes control characters: $(LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$1" | head -3 | od -c | head -5)"
	[ -s "$1" ] || fail "$2 printed nothing"
}
K="-k /dev/null"
"$MEMPROF" report -i E.data $K --sort comm,sym >r.txt 2>&1 || fail "report: $(cat r.txt)"
grep -q 'forged' r.txt || fail "report shows no comm: $(head -20 r.txt)"
clean r.txt "report"
"$MEMPROF" report -q -i E.data $K --sort comm,sym --csv >r.csv 2>&1 || fail "report --csv"
clean r.csv "report --csv"
"$MEMPROF" script -i E.data $K >s.txt 2>&1 || fail "script: $(head -3 s.txt)"
clean s.txt "script"
grep -q '^forged' s.txt && fail "script: the comm's newline forged a line: $(grep -m1 '^forged' s.txt)"
"$MEMPROF" script -i E.data $K --csv >s.csv 2>&1 || fail "script --csv"
clean s.csv "script --csv"
"$MEMPROF" report -q -i E.data $K --folded >f.txt 2>&1 || fail "report --folded: $(head -3 f.txt)"
clean f.txt "--folded"
grep -q '^forged' f.txt && fail "--folded: the comm's newline forged a stack: $(grep -m1 '^forged' f.txt)"
grep -q 'forged' f.txt || fail "--folded shows no comm: $(head -3 f.txt)"
"$MEMPROF" annotate -i E.data $K main >a.txt 2>&1 || fail "annotate: $(head -3 a.txt)"
grep -q 'for (long i' a.txt || fail "annotate shows no source: $(head a.txt)"
clean a.txt "annotate"
"$MEMPROF" diff --sort comm,sym E.data E.data $K >d.txt 2>&1 || fail "diff: $(head -3 d.txt)"
clean d.txt "diff"
"$MEMPROF" ratios -i E.data $K >q.txt 2>&1
clean q.txt "ratios"
"$MEMPROF" report -q -i E.data $K --sort comm,sym --json >j.json 2>&1 || fail "report --json"
python3 - j.json <<'PY' || fail "report --json is not valid UTF-8 JSON with the comm escaped"
import json, sys
raw = open(sys.argv[1], "rb").read()
text = raw.decode("utf-8")              # strict: fails on invalid UTF-8
assert "\x1b" not in text and "\x07" not in text
doc = json.loads(text)
assert any(r.get("comm") == "\x1b]0;T\x07\nforged\ufffd" for r in doc["rows"]), "comm not kept"
PY
echo "PASS safe_escape"
