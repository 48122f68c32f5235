#!/bin/bash
# Call chains against perf, on perf's and memprof's -g recordings of cachebench and matmul
# (built with frame pointers: build/kernels/fp/):
# (1) every symbol above 0.5% has the Children and Self percentages of
#     `perf report --children --stdio` within 0.1 point;
# (2) the caller and callee trees of the top symbols equal perf's -g folded output
#     and -g flat output
#     (same chains, same percentages), and the graph form draws the same trees (siblings
#     of equal percentage in either order: perf orders those by its objects' pointers);
#     and with --max-stack 3 (Children/Self and trees, both orders);
# (3) --no-children is the self report (no Children column, Self = the children report's);
# (4) --folded equals a folding of `perf script` written here (same stacks, same counts);
# (5) the LBR fixture kdab-vector-lbr-cfl's Children/Self equal perf's reference;
# (6) DWARF: a perf record --call-graph dwarf recording of matmul (no frame pointers) and
#     the fixture kdab-vector-dwarf-bdw, with inlined functions as entries (below).
. "$(dirname "$0")/e2e_lib.sh"
: "${KERNELS:?}"
CMP=$E2E/callgraph_perfcmp.py
n=0

if ! "$PERF" record -q -g -e cpu-clock -o probe.data true >/dev/null 2>probe.err; then
	echo "skip: perf record -g: $(head -1 probe.err)"
	exit 77
fi

check() { # data label [tree limit %]
	local f=$1 lbl=$2 lim=${3:-0}
	"$PERF" report -i "$f" --children --stdio --sort dso,sym -g none 2>/dev/null >"$lbl.perf.txt"
	grep -q '^# Children' "$lbl.perf.txt" || { echo "FAIL $lbl: perf report shows no children"; fail=1; return; }
	"$MEMPROF" report -q -i "$f" --csv >"$lbl.csv" 2>"$lbl.err" ||
		{ echo "FAIL $lbl: memprof report --csv: $(cat "$lbl.err")"; fail=1; return; }
	python3 "$CMP" children "$lbl.perf.txt" "$lbl.csv" >"$lbl.cmp" ||
		{ echo "FAIL $lbl children/self:"; cat "$lbl.cmp"; fail=1; }
	# --json: the same numbers, and the call trees
	"$MEMPROF" report -q -i "$f" --json >"$lbl.json" 2>"$lbl.err" &&
		python3 "$CMP" json "$lbl.json" "$lbl.csv" >"$lbl.cmp" ||
		{ echo "FAIL $lbl --json: $(cat "$lbl.err" "$lbl.cmp")"; fail=1; }
	# the top symbols' trees, both orders, as perf's folded form (no limit)
	for order in caller callee; do
		"$PERF" report -i "$f" --children --stdio --sort dso,sym -g folded,$lim,$order \
			2>/dev/null >"$lbl.perf.$order"
		"$MEMPROF" report -q -i "$f" -g folded,$lim,$order >"$lbl.mp.$order" 2>"$lbl.err" ||
			{ echo "FAIL $lbl -g $order: $(cat "$lbl.err")"; fail=1; continue; }
		python3 "$CMP" trees "$lbl.perf.$order" "$lbl.mp.$order" 3 ${4:+0.3} >"$lbl.cmp" ||
			{ echo "FAIL $lbl -g folded,$lim,$order:"; cat "$lbl.cmp"; fail=1; }
		# flat form: the same chains with the same percentages
		"$PERF" report -i "$f" --children --stdio --sort dso,sym -g flat,0.5,$order \
			2>/dev/null >"$lbl.perff.$order"
		"$MEMPROF" report -q -i "$f" -g flat,0.5,$order >"$lbl.mpf.$order" 2>"$lbl.err"
		[ -n "${4:-}" ] || python3 "$CMP" flat "$lbl.perff.$order" "$lbl.mpf.$order" 4 >"$lbl.cmp" ||
			{ echo "FAIL $lbl -g flat,0.5,$order:"; cat "$lbl.cmp"; fail=1; }
		# graph form: the same chains in perf's drawing, for the top symbol (the
		# folded lines within 0.1 point suffice where the unwinders may differ)
		[ -n "${4:-}" ] && continue
		"$PERF" report -i "$f" --children --stdio --sort dso,sym -g graph,0.5,$order \
			2>/dev/null >"$lbl.perfg.$order"
		"$MEMPROF" report -q -i "$f" -g graph,0.5,$order >"$lbl.mpg.$order" 2>"$lbl.err"
		python3 "$CMP" graph "$lbl.perfg.$order" "$lbl.mpg.$order" 4 >"$lbl.cmp" ||
			{ echo "FAIL $lbl -g graph,0.5,$order:"; cat "$lbl.cmp"; fail=1; }
	done
	# --max-stack 3: perf's chains cut (the outermost 3 in caller order, the innermost in
	# callee order) with the sampled symbol still the self
	for order in caller callee; do
		[ -n "${4:-}" ] && break
		"$PERF" report -i "$f" --children --stdio --sort dso,sym -g folded,0,$order \
			--max-stack 3 2>/dev/null >"$lbl.perfms.$order"
		"$MEMPROF" report -q -i "$f" --csv --max-stack 3 -g folded,0,$order >"$lbl.ms.csv" \
			2>"$lbl.err" && "$MEMPROF" report -q -i "$f" --max-stack 3 -g folded,0,$order \
			>"$lbl.mpms.$order" 2>>"$lbl.err" ||
			{ echo "FAIL $lbl --max-stack: $(cat "$lbl.err")"; fail=1; continue; }
		python3 "$CMP" children "$lbl.perfms.$order" "$lbl.ms.csv" >"$lbl.cmp" &&
			python3 "$CMP" trees "$lbl.perfms.$order" "$lbl.mpms.$order" 3 >>"$lbl.cmp" ||
			{ echo "FAIL $lbl --max-stack 3 -g $order:"; cat "$lbl.cmp"; fail=1; }
	done
	# --no-children: today's table; its Self column is the children report's
	"$MEMPROF" report -q -i "$f" --no-children >"$lbl.nc.txt" 2>"$lbl.err" ||
		{ echo "FAIL $lbl --no-children: $(cat "$lbl.err")"; fail=1; }
	if grep -q 'Children' "$lbl.nc.txt" || ! grep -q '^# By dso,sym$' "$lbl.nc.txt"; then
		echo "FAIL $lbl: --no-children is not the self report"; fail=1
	fi
	python3 "$CMP" selfeq "$lbl.nc.txt" "$lbl.csv" >"$lbl.cmp" ||
		{ echo "FAIL $lbl --no-children vs Self:"; cat "$lbl.cmp"; fail=1; }
	# --folded against perf script folded here
	"$PERF" script -i "$f" -F comm,ip,sym 2>/dev/null >"$lbl.script"
	python3 "$CMP" fold "$lbl.script" >"$lbl.perf.folded"
	"$MEMPROF" report -q -i "$f" --folded >"$lbl.mp.folded" 2>"$lbl.err" ||
		{ echo "FAIL $lbl --folded: $(cat "$lbl.err")"; fail=1; }
	python3 "$CMP" foldcmp "$lbl.perf.folded" "$lbl.mp.folded" ${4:-} >"$lbl.cmp" ||
		{ echo "FAIL $lbl: --folded differs from perf script's folding:"; cat "$lbl.cmp"; fail=1; }
	[ -s "$lbl.mp.folded" ] || { echo "FAIL $lbl: --folded printed nothing"; fail=1; }
	n=$((n + 1))
}

# The workloads bind their PLT at start (LD_BIND_NOW): a sample in the PLT's header (the
# lazy binder's stub, run at each first call of a function) is _init for perf 6.1 (its
# size-0 _init stretched over .plt) and unnamed for memprof (see plt_vdso.sh); one such
# sample under load made perf's trees and folded stacks differ from memprof's
# (main;_init against main;[unknown], 1 run of 17).
rec() { # label -- command
	local lbl=$1; shift 2
	LD_BIND_NOW=1 "$PERF" record -q -g -e cpu-clock -F 2000 -o "$lbl.perf.data" "$@" >/dev/null 2>"$lbl.rec.err" ||
		{ echo "FAIL $lbl: perf record: $(cat "$lbl.rec.err")"; fail=1; return; }
	check "$lbl.perf.data" "perf-$lbl"
	if LD_BIND_NOW=1 "$MEMPROF" record -g -e cpu-clock -F 2000 -o "$lbl.mp.data" "$@" >/dev/null 2>"$lbl.mrec.err"; then
		check "$lbl.mp.data" "memprof-$lbl"
	else
		echo "note: memprof record -g unavailable: $(head -1 "$lbl.mrec.err")"
	fi
}

# LBR call stacks (chains stitched by the unwinder, as perf does): the shared fixture's
# Children/Self against perf's reference, its binary at its recorded path in a symfs
if [ -n "${SHARED_DIR:-}" ] && [ -f "$SHARED_DIR/perfdata/kdab-vector-lbr-cfl.data" ]; then
	P=$SHARED_DIR/perfdata
	rp=$(recorded_path "$P/kdab-vector-lbr-cfl.data" vector_static_gcc_v9.1.0)
	mkdir -p "symfs$(dirname "$rp")" empty
	cp "$P/bin/vector_static_gcc_v9.1.0" "symfs$rp"
	if "$MEMPROF" report -q -i "$P/kdab-vector-lbr-cfl.data" --symfs symfs --kallsyms /dev/null \
		--csv >lbr.csv 2>lbr.err; then
		python3 "$CMP" children "$P/kdab-vector-lbr-cfl.perf-report-symbolized.txt" lbr.csv \
			>lbr.cmp || { echo "FAIL lbr children/self:"; cat lbr.cmp; fail=1; }
	else
		echo "FAIL lbr: memprof report: $(cat lbr.err)"; fail=1
	fi
fi

# DWARF: perf record --call-graph dwarf of the kernel built without frame pointers, both
# unwinding the user stack: inlined functions are entries and chain frames of their own
# (perf 6.1 expands DWARF-unwound frames); the same checks as above, the trees above 0.5%
# with percentages within 0.3 (perf's libunwind stops early on the odd sample where libdw
# goes on: 0.12 points of __libc_start_call_main's tree once on a loaded machine, 99.79%
# for perf and 99.91% for memprof), folded stacks with at most 1% of the samples elsewhere and glibc's aliases of
# one function as one name (perf names a syscall stub, where DWARF has no function, by
# the alias addr2line picks, as inlined)
if LD_BIND_NOW=1 "$PERF" record -q --call-graph dwarf -e cpu-clock -F 2000 -o dw.perf.data \
	"$KERNELS/matmul" -N 512 -a all -r 2 >/dev/null 2>dw.rec.err; then
	check dw.perf.data perf-dwarf-matmul 0.5 aliases
	grep -q '(inlined)' perf-dwarf-matmul.perf.txt && grep -q '(inlined)' perf-dwarf-matmul.csv ||
		{ echo "FAIL dwarf: no inlined entries (perf: $(grep -c '(inlined)' perf-dwarf-matmul.perf.txt))"; fail=1; }
else
	echo "FAIL: perf record --call-graph dwarf: $(cat dw.rec.err)"; fail=1
fi
# the DWARF fixture kdab-vector-dwarf-bdw with its binary: perf 6.1's libunwind stops after
# the first user address on this static (ET_EXEC) binary, where libdw (memprof, perfparser)
# goes on to _start: perf's chains (perf script, inlined functions included) are memprof's
# cut there, perf's Children of every user symbol and inlined function above 0.5% are what
# the cut chains give (within 0.1), Self equal, memprof's Children those of its chains
if [ -n "${SHARED_DIR:-}" ] && [ -f "$SHARED_DIR/perfdata/kdab-vector-dwarf-bdw.data" ] &&
	command -v nm >/dev/null; then
	P=$SHARED_DIR/perfdata D=$SHARED_DIR/perfdata/kdab-vector-dwarf-bdw.data
	rp=$(recorded_path "$D" vector_static_gcc_v9.1.0)
	mkdir -p "dsymfs$(dirname "$rp")"
	cp "$P/bin/vector_static_gcc_v9.1.0" "dsymfs$rp"
	"$PERF" report -i "$D" --symfs dsymfs --children --stdio --sort dso,sym -g none \
		2>/dev/null >kd.perf.txt
	"$PERF" script -i "$D" --symfs dsymfs -F comm,ip,sym 2>/dev/null >kd.script
	nm "$P/bin/vector_static_gcc_v9.1.0" >kd.nm
	mo="-q -i $D --symfs dsymfs --kallsyms /dev/null"
	if "$MEMPROF" report $mo --folded >kd.folded 2>kd.err &&
		"$MEMPROF" report $mo --folded-period >kd.period 2>>kd.err &&
		"$MEMPROF" report $mo --csv >kd.csv 2>>kd.err; then
		python3 "$CMP" kdab kd.perf.txt kd.script kd.folded kd.period kd.csv kd.nm >kd.cmp ||
			{ echo "FAIL kdab dwarf:"; cat kd.cmp; fail=1; }
		grep -q '(inlined)' kd.perf.txt && grep -q '(inlined)' kd.csv ||
			{ echo "FAIL kdab dwarf: no inlined entries"; fail=1; }
	else
		echo "FAIL kdab dwarf: memprof report: $(cat kd.err)"; fail=1
	fi
fi

rec matmul -- "$KERNELS/fp/matmul" -N 256 -a all -r 2
rec cachebench -- "$KERNELS/fp/cachebench" -m walk -s 16M -o random -r 3
[ $n -ge 3 ] || { echo "FAIL: only $n recordings compared"; fail=1; }
[ $fail = 0 ] && echo "ok: $n recordings"
exit $fail
