# record --call-graph fp|dwarf[,SIZE] sets the attr as perf record does on the same
# command (perf evlist -v: the sample_type bits of call chains, sample_regs_user,
# sample_stack_user, exclude_callchain_user, mmap_data), and perf unwinds memprof's dwarf
# file of matmul (built without frame pointers) through main into the three algorithms;
# lbr where the event has no branch stack is refused in one line that says so.
. "$(dirname "$0")/record_lib.sh"
need_perf
# the attr fields that make a call graph, one per line
cgattr() {
	"$PERF" evlist -v -i "$1" 2>/dev/null | head -1 | tr ',' '\n' | sed 's/^ *//' | awk '
		/^sample_type:/ { n = split($2, b, "|"); for (i = 1; i <= n; i++)
			if (b[i] ~ /^(CALLCHAIN|REGS_USER|STACK_USER|BRANCH_STACK|ADDR|DATA_SRC)$/) print "st " b[i]; next }
		/^(sample_regs_user|sample_stack_user|exclude_callchain_user|mmap_data|branch_sample_type):/ { print }' | sort
}
for cg in "-g" "--call-graph fp" "--call-graph dwarf" "--call-graph dwarf,4000" "--call-graph dwarf,100"; do
	# shellcheck disable=SC2086
	"$MEMPROF" record -q -e cpu-clock -c 200000 $cg -o M "$KERNELS/matmul" -N 64 >out 2>err ||
		fail "memprof record $cg: $(cat err)"
	# shellcheck disable=SC2086
	"$PERF" record -q -e cpu-clock -c 200000 $cg -o P "$KERNELS/matmul" -N 64 >/dev/null 2>perr ||
		fail "perf record $cg: $(cat perr)"
	cgattr M >m.attr
	cgattr P >p.attr
	grep -q 'st CALLCHAIN' m.attr || fail "$cg: no CALLCHAIN in memprof's attr"
	diff p.attr m.attr >d.out || fail "$cg: memprof's attr differs from perf's: $(cat d.out)"
done
case "$(cat m.attr)" in *"sample_stack_user: 104"*) ;; *) fail "dwarf,100: $(cat m.attr)" ;; esac

# perf unwinds memprof's dwarf recording: main calls the three algorithms
"$MEMPROF" record -q -e cpu-clock -c 500000 --call-graph dwarf -o D "$KERNELS/matmul" -r 3 >out 2>err ||
	fail "memprof record --call-graph dwarf: $(cat err)"
perf_reads D
"$PERF" script -i D -F ip,sym 2>/dev/null >script.out
for f in mm_naive mm_transposed mm_blocked; do
	# the leaf is the first frame that is a function of its own (perf lists the inlined
	# ones, blocked_body and the SSE2 intrinsics, above it at the same address)
	awk -v f="$f" 'NF == 0 { if (leaf && m) n++; leaf = 0; m = 0; first = 1; next }
		first && $3 == "(inlined)" { next }
		first { leaf = ($2 == f); first = 0; next }
		$2 == "main" { m = 1 }
		END { if (leaf && m) n++; exit !(n > 0) }' script.out ||
		fail "perf script shows no $f sample called from main"
done
"$MEMPROF" record --call-graph dwarf,70000 true >out 2>err && fail "dwarf,70000 accepted"
grep -q "65528" err || fail "dwarf,70000: $(cat err)"
"$MEMPROF" record --call-graph frame true >out 2>err && fail "--call-graph frame accepted"
grep -q "fp, dwarf" err || fail "--call-graph frame: $(cat err)"
# lbr of a software event (no branch stack on any machine: perf refuses it too): one line
# naming the branch call stack, as perf's "doesn't support branch stack sampling"
"$PERF" record -q --call-graph lbr -e cpu-clock -o PL true >/dev/null 2>&1 && fail "perf took lbr of cpu-clock"
"$MEMPROF" record -q --call-graph lbr -e cpu-clock -o L true >out 2>err && fail "lbr of cpu-clock accepted"
[ "$(wc -l <err)" = 1 ] && grep -q "call-graph lbr: .*cannot sample the branch call stack" err ||
	fail "lbr of cpu-clock: $(cat err)"
[ -e L ] && fail "lbr of cpu-clock: L written"
echo "OK: --call-graph attrs as perf's; perf unwinds memprof's dwarf file"
