#!/bin/bash
# memprof list: a pattern filter, an alias line, --pmu skl, bad model and pattern errors.
set -u
fail() { echo "FAIL: $*"; exit 1; }
out=$("$MEMPROF" list --pmu skl L1D) || fail "list --pmu skl L1D exited $?"
echo "$out" | grep -q '^Events for model skl ' || fail "no header for skl"
echo "$out" | grep -qE '^  L1D_REPL +-> L1D:REPLACEMENT \[exact\]$' || fail "no L1D_REPL alias line"
echo "$out" | grep -qE '^  L1D +default/min +10000 +500' || fail "no skl L1D event line"
echo "$out" | grep -qE '^ +:REPLACEMENT ' || fail "no REPLACEMENT unit mask"
echo "$out" | grep -q 'cpu-clock ' && fail "pattern L1D let cpu-clock through"
echo "$out" | grep -qF 'Groups: {EV1,EV2,...}[:MODS] as perf writes them' || fail "no group syntax in the spelling summary"
echo "$out" | grep -qF '{EV1,EV2,...}:S leader' || fail "no :S in the spelling summary"
# descriptions whole, never cut at a column (issue 19: they were cut at 45 characters)
echo "$out" | grep -qE '^ +:FB_FULL +Number of times a request needed a fill buffer \(FB\) entry but there was no entry available for it\. .* or SW prefetch$' ||
	fail "FB_FULL's description cut: $(echo "$out" | grep ':FB_FULL')"
"$MEMPROF" list --pmu cachegrind | grep -qE "^  ILmr +last-level cache instruction read misses \(this machine's L2 by default\)$" ||
	fail "ILmr's description cut: $("$MEMPROF" list --pmu cachegrind | grep ILmr)"
out=$("$MEMPROF" list --pmu amd64_fam19h_zen4 'L2_LINES_IN*') || fail "glob pattern exited $?"
echo "$out" | grep -qE '^  L2_LINES_IN.SELF.ANY +-> CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C:IC_FILL_MISS \[approx\]$' \
  || fail "no zen4 L2_LINES_IN alias line"
out=$("$MEMPROF" list cpu-clock) || fail "list cpu-clock exited $?"
echo "$out" | grep -qE '^  cpu-clock +CPU time .* 100000 +10000  yes$' || fail "cpu-clock does not open here: $out"
out=$(MEMPROF_SYSFS_ROOT="$TESTS_DATA/events/sysfs" "$MEMPROF" list inst_retired) || fail "sysfs list exited $?"
echo "$out" | grep -qE '^  armv8_pmuv3/inst_retired/ +type 10 config 0x8 ' || fail "no fake sysfs event: $out"
"$MEMPROF" list --models | grep -qE '^  skl ' || fail "--models lacks skl"
err=$("$MEMPROF" list --pmu nosuch 2>&1); rc=$?
[ $rc -eq 1 ] || fail "bad model: exit $rc"
[ "$err" = "memprof list: unknown PMU model 'nosuch' (memprof list --models names them)" ] || fail "bad model message: $err"
err=$("$MEMPROF" list zzzqqq 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "no event matches 'zzzqqq'" || fail "no-match: $rc $err"
"$MEMPROF" list a b >/dev/null 2>&1; [ $? -eq 2 ] || fail "two patterns must be a usage error"
echo ok
