# e2e_lib.sh - how an e2e script starts (sourced first: . "$(dirname "$0")/e2e_lib.sh").
# Needs MEMPROF (a script that needs KERNELS checks it itself); sets PERF (default perf),
# E2E (this folder, absolute: the stand-ins' sources), T (a mktemp -d work folder, removed
# on exit, the current folder) and fail=0 (the script exits with it); recorded_path.
set -u
: "${MEMPROF:?}"
PERF=${PERF:-perf}
E2E=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d)
trap "rm -rf '$T'" EXIT # T's value now: a script may reuse the name
cd "$T" || exit 1
fail=0

# recorded_path FILE NAME: the path recording FILE has for its object NAME, on the machine
# it was recorded on (a --symfs for it is built from it), as memprof script prints it.
recorded_path() {
	"$MEMPROF" script -i "$1" -F ip,dso 2>/dev/null | awk -v b="/$2" '
		{ p = substr($NF, 2, length($NF) - 2) }
		substr(p, length(p) - length(b) + 1) == b { print p; found = 1; exit }
		END { exit !found }'
}
