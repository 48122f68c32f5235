# sim_lib.sh - helpers for the record --sim end-to-end tests (sourced, not run).
# Needs MEMPROF, KERNELS, PERF in the environment.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v valgrind >/dev/null || fail "valgrind is not installed (package valgrind)"
: "${PERF:=perf}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# perf's view of a file, independent of this machine's build-id cache.
# Each distinct report is made once (perf report takes a while) and kept in $WORK.
perf_report() { # FILE ARGS...
	local f=$1; shift
	local key
	key=$(echo "$f $*" | md5sum | cut -c1-16)
	if [ ! -f "$WORK/.rep.$key" ]; then
		mkdir -p "$WORK/.bid"
		PERF_BUILDID_DIR="$WORK/.bid" "$PERF" report -i "$f" --stdio --kallsyms=/dev/null \
			"$@" >"$WORK/.rep.$key" 2>/dev/null || fail "perf report -i $f $* failed"
	fi
	cat "$WORK/.rep.$key"
}

# The sum of periods of EVENT in SYM (0 when absent), from perf report.
perf_sym_period() { # FILE EVENT SYM
	perf_report "$1" --sort sym -F period,sym |
		awk -v ev="$2" -v sym="$3" '
			/^# Samples: .* of event / { cur = $0; sub(/.* of event .?/, "", cur); sub(/.$/, "", cur); next }
			cur == ev && NF >= 3 && $NF == sym && $(NF-1) == "[.]" { s += $1 }
			END { print s + 0 }'
}

# perf's "Event count (approx.)" of EVENT: the sum of its periods.
perf_event_count() { # FILE EVENT
	perf_report "$1" --sort sym |
		awk -v ev="$2" '
			/^# Samples: .* of event / { cur = $0; sub(/.* of event .?/, "", cur); sub(/.$/, "", cur); next }
			cur == ev && /^# Event count/ { print $NF; exit }'
}

# The symbol with the largest period of EVENT.
perf_top_sym() { # FILE EVENT
	perf_report "$1" --sort sym -F period,sym |
		awk -v ev="$2" '
			/^# Samples: .* of event / { cur = $0; sub(/.* of event .?/, "", cur); sub(/.$/, "", cur); next }
			cur == ev && NF >= 3 && $(NF-1) == "[.]" && $1 + 0 > best { best = $1 + 0; sym = $NF }
			END { print sym }'
}

# The sum over every function callgrind_annotate lists of QUANTITY (e.g. D1mr): one
# callgrind_annotate run per file, its rows summed per column ("." is zero).
cg_sum() { # CALLGRIND_OUT QUANTITY
	if [ ! -f "$1.sums" ]; then
		callgrind_annotate --threshold=100 --auto=no "$1" | sed 's/([^)]*)//g' |
			awk '/file:function/ && !f { f = 1; n = NF - 1; for (i = 1; i <= n; i++) name[i] = $i; next }
			     f && $1 ~ /^([0-9,]+|\.)$/ {
				for (i = 1; i <= n; i++) { v = $i; gsub(",", "", v); if (v != ".") s[i] += v } }
			     END { for (i = 1; i <= n; i++) print name[i], s[i] + 0 }' >"$1.sums"
	fi
	awk -v q="$2" '$1 == q { print $2; found = 1 } END { if (!found) print "none" }' "$1.sums"
}

# awk arithmetic assertion: check "EXPR" "message"
check() { awk "BEGIN { exit !($1) }" || fail "$2"; }

# The line numbers of a HOT comment in a kernel source.
hot_lines() { # FILE PATTERN
	grep -n "$2" "$1" | cut -d: -f1 | tr '\n' ' '
}

# "sym:period" of the N symbols with the largest periods of EVENT (ties by name).
perf_top() { # FILE EVENT N
	perf_report "$1" --sort sym -F period,sym |
		awk -v ev="$2" '
			/^# Samples: .* of event / { cur = $0; sub(/.* of event .?/, "", cur); sub(/.$/, "", cur); next }
			cur == ev && NF >= 3 && $(NF-1) == "[.]" { s[$NF] += $1 }
			END { for (k in s) print s[k], k }' |
		sort -k1,1nr -k2,2 | head -n "$3" | awk '{ printf "%s:%s ", $2, $1 }'
}

# The same from memprof report --sort sym --csv.
memprof_top() { # FILE EVENT N
	[ -f "$1.sym.csv" ] || "$MEMPROF" report -i "$1" --sort sym --csv -q >"$1.sym.csv" 2>/dev/null ||
		fail "memprof report -i $1 failed"
	awk -F, -v col="$2 period" '
			/^#/ { next } # the SIMULATED banner before the header
			!h { h = 1; for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
			c && $c > 0 { s[$2] += $c }
			END { for (k in s) print s[k], k }' "$1.sym.csv" |
		sort -k1,1nr -k2,2 | head -n "$3" | awk '{ printf "%s:%s ", $2, $1 }'
}

# One ratio's value at one place from memprof ratios --csv (empty when absent).
memprof_ratio() { # FILE LEVEL RATIO PLACE [ARGS...]
	local f=$1 level=$2 ratio=$3 place=$4; shift 4
	"$MEMPROF" ratios -i "$f" --level "$level" --csv --top 0 "$@" "$ratio" 2>/dev/null |
		awk -F, -v place="$place" 'NR > 1 && $4 == place { print $7; exit }'
}

# "file:line" with the largest period of EVENT, from memprof report --sort sym,srcline
# (only in symbol SYM when given).
memprof_top_line() { # FILE EVENT [SYM]
	[ -f "$1.line.csv" ] || "$MEMPROF" report -i "$1" --sort sym,srcline --csv -q >"$1.line.csv" 2>/dev/null ||
		fail "memprof report --sort sym,srcline -i $1 failed"
	awk -F, -v col="$2 period" -v sym="${3:-}" '
		/^#/ { next }
		!h { h = 1; for (i = 1; i <= NF; i++) { if ($i == col) c = i; if ($i == "sym") y = i; if ($i == "srcfile") fl = i; if ($i == "line") ln = i } next }
		c && (sym == "" || $y == sym) && $c + 0 > best { best = $c + 0; n = split($fl, p, "/"); l = p[n] ":" $ln }
		END { print l }' "$1.line.csv"
}
