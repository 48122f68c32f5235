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

# The sum over every function callgrind_annotate lists of QUANTITY (e.g. D1mr).
cg_sum() { # CALLGRIND_OUT QUANTITY
	callgrind_annotate --show="$2" --threshold=100 --auto=no "$1" |
		awk '/file:function/ { f = 1; next }
		     f && NF >= 2 && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); s += $1 }
		     END { print s + 0 }'
}

# awk arithmetic assertion: check "EXPR" "message"
check() { awk "BEGIN { exit !($1) }" || fail "$2"; }

# The line numbers of a HOT comment in a kernel source.
hot_lines() { # FILE PATTERN
	grep -n "$2" "$1" | cut -d: -f1 | tr '\n' ' '
}
