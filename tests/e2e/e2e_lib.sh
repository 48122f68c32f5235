# e2e_lib.sh - how an e2e script starts (sourced first: . "$(dirname "$0")/e2e_lib.sh").
# Needs MEMPROF (a script that needs KERNELS checks it itself); sets PERF (default perf),
# E2E (this folder, absolute: the stand-ins' sources), T (a mktemp -d work folder, removed
# on exit, the current folder) and fail=0 (the script exits with it).
set -u
: "${MEMPROF:?}"
PERF=${PERF:-perf}
E2E=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
