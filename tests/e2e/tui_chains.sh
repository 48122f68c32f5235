#!/bin/bash
# memprof tui on -g recordings of matmul built with frame pointers (build/kernels/fp/), one
# by memprof record and one by perf record, driven with --batch:
# (1) the symbol list's Children and Self equal memprof report --children's (--csv, every
#     entry, at the two decimals shown) and perf report --children --stdio's (within 0.1
#     point above 0.5%);
# (2) e unfolds the first entry's whole tree: the functions and branch percentages of its
#     drawing in memprof report -g graph,0.5,caller (perf's default with children);
# (3) + unfolds one level, E everything, C folds all back to the list;
# (4) c on mm_naive: the callers and callees view (-g caller,0: no node left out), its
#     direct callers adding up to its children, its direct callees to children - self;
# (5) ENTER on a chain row annotates that frame's function.
set -u
: "${MEMPROF:?}" "${KERNELS:?}"
PERF=${PERF:-perf}
CMP=$(cd "$(dirname "$0")" && pwd)/tui_chains_cmp.py
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
fail=0 n=0
bad() { echo "FAIL $*"; fail=1; }
tui() { # data size keys [options]
	local f=$1 s=$2 k=$3
	shift 3
	"$MEMPROF" tui -i "$f" --size "$s" --batch "$k" "$@" 2>tui.err
}

[ -x "$KERNELS/fp/matmul" ] || { echo "skip: no $KERNELS/fp/matmul"; exit 77; }
have_perf=1
"$PERF" --version >/dev/null 2>&1 || have_perf=0

check() { # data label
	local f=$1 l=$2
	"$MEMPROF" report -q -i "$f" --csv >"$l.csv" 2>"$l.err" ||
		{ bad "$l: memprof report --csv: $(cat "$l.err")"; return; }
	local perf=-
	if [ $have_perf = 1 ]; then
		"$PERF" report -i "$f" --children --stdio --sort dso,sym -g none 2>/dev/null >"$l.perf"
		grep -q '^# Children' "$l.perf" && perf=$l.perf || echo "note: perf report has no children on $l"
	fi
	# (1) the list, tall enough for every entry
	tui "$f" 200x500 "" >"$l.list" || { bad "$l: tui: $(cat tui.err)"; return; }
	grep -q '^  *Children  *Self  symbol' "$l.list" || bad "$l: no Children and Self columns"
	python3 "$CMP" list "$l.list" "$l.csv" "$perf" >"$l.cmp" || { bad "$l list:"; cat "$l.cmp"; }
	sed "s/^/$l: /" "$l.cmp" | grep -E " (tui entries|symbols against)"
	# (2) the first entry's tree against the report's drawing
	"$MEMPROF" report -q -i "$f" --sort dso,sym -g graph,0.5,caller \
		>"$l.graph" 2>"$l.err" || bad "$l: memprof report -g: $(cat "$l.err")"
	tui "$f" 200x500 "e" >"$l.tree"
	python3 "$CMP" tree "$l.tree" "$l.graph" >"$l.cmp" || { bad "$l tree:"; cat "$l.cmp"; }
	sed "s/^/$l: /" "$l.cmp" | grep "tree rows"
	# (3) row counts: + one level, E all, C none
	local n0 n1 nE nC
	n0=$(grep -c '^[> ][-+ ]  *[0-9.]*%' "$l.list")
	n1=$(tui "$f" 200x500 "+" | sed '1,2d;$d' | grep -c .)
	nE=$(tui "$f" 200x500 "E" | tail -1 | sed -n 's/^all call chains unfolded (\([0-9]*\) rows)$/\1/p')
	nC=$(tui "$f" 200x500 "EC" | sed '1,2d;$d' | grep -c .)
	if ! [ "$n1" -gt "$n0" ] || ! [ "${nE:-0}" -gt "$n1" ] || [ "$nC" != "$n0" ]; then
		bad "$l: rows: list $n0, + $n1, E ${nE:-?}, EC $nC"
	fi
	echo "$l: rows: list $n0, + $n1, E $nE, EC $nC"
	# (4) callers and callees of mm_naive
	tui "$f" 120x60 "/mm_naive<ENTER>c" -g caller,0 >"$l.calls"
	python3 "$CMP" calls "$l.calls" "$l.csv" mm_naive >"$l.cmp" || { bad "$l calls:"; cat "$l.cmp"; }
	sed "s/^/$l: /" "$l.cmp" | grep "callers ("
	# (5) ENTER on a chain row under main: the first row naming one of the multiplications
	tui "$f" 200x500 "/main<ENTER>" >"$l.main"
	local row
	row=$(sed '1,2d' "$l.main" | grep -n '^[> ][-+ ]  *[0-9.]*%  *\([0-9.]*%  *\)\?main  ' | head -1 | cut -d: -f1)
	if [ -z "$row" ]; then
		bad "$l: no main entry"; cat "$l.main"
	else
		local keys="/main<ENTER>" i
		for ((i = 1; i < row; i++)); do keys="$keys<DOWN>"; done
		tui "$f" 200x500 "${keys}e" >"$l.e"
		local d
		d=$(sed '1,2d' "$l.e" | grep -n ' mm_\(naive\|blocked\|transposed\)$' | head -1 | cut -d: -f1)
		if [ -z "$d" ]; then
			bad "$l: no multiplication under main"; cat "$l.e"
		else
			keys="${keys}e"
			for ((i = row; i < d; i++)); do keys="$keys<DOWN>"; done
			tui "$f" 200x500 "$keys" >"$l.at"
			local fn
			fn=$(python3 "$CMP" cursor "$l.at")
			case $fn in mm_naive | mm_blocked | mm_transposed) ;;
			*) bad "$l: the cursor is on '$fn', not on the chain row $d" ;; esac
			tui "$f" 200x500 "$keys<ENTER>" >"$l.ann"
			head -1 "$l.ann" | grep -q "^ Annotate $fn (matmul)  matmul.c " ||
				{ bad "$l: ENTER on the chain row of '$fn': $(head -1 "$l.ann")"; }
		fi
	fi
	n=$((n + 1))
}

if "$MEMPROF" record -g -e cpu-clock -F 2000 -o mp.data "$KERNELS/fp/matmul" -N 256 -a all -r 2 \
	>/dev/null 2>rec.err; then
	check mp.data memprof
else
	echo "note: memprof record -g: $(head -1 rec.err)"
fi
if [ $have_perf = 1 ] && "$PERF" record -q -g -e cpu-clock -F 2000 -o perf.data \
	"$KERNELS/fp/matmul" -N 256 -a all -r 2 >/dev/null 2>prec.err; then
	check perf.data perf
else
	echo "note: perf record -g unavailable"
fi
[ $n -ge 1 ] || { echo "skip: no -g recording could be made"; exit 77; }
[ $fail = 0 ] && echo "ok: $n recordings"
exit $fail
