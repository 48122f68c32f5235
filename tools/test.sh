#!/usr/bin/env bash
# README's test command: install dependencies, build, run every test (ctest).
#   tools/test.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
shift || true
"$top/tools/install-deps.sh"
cmake -S "$top" -B "$build" "$@"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
