#!/usr/bin/env bash
# README's main job: install, build, and profile a benchmark kernel the way the article
# does - on any machine, with or without a hardware PMU.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
"$top/tools/install-deps.sh"
cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
mp=$build/memprof
kern=$build/kernels
work=${DEMO_DIR:-$(mktemp -d /tmp/memprof-demo.XXXXXX)}
cd "$work"
echo "# working in $work"
set -x
# 1. Where does the time go? cpu-clock samples for real on every Linux machine.
"$mp" record -e cpu-clock -c 100000 -o time.data "$kern/cachebench" -s 16M -o random -r 4
"$mp" report -i time.data
"$mp" annotate -i time.data walk
