#!/usr/bin/env bash
# README's main job: install, build, and profile the list-walk benchmark the way the
# article does, on any machine, with or without a hardware PMU.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
"$top/tools/install-deps.sh"
cmake -S "$top" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
mp=$build/memprof
kern=$build/kernels
work=${DEMO_DIR:-$(mktemp -d /tmp/memprof-demo.XXXXXX)}
mkdir -p "$work"
cd "$work"
echo "# working in $work"
set -x
# 1. Where does the time go? cpu-clock samples for real on every Linux machine.
"$mp" record -e cpu-clock -c 100000 -o time.data "$kern/cachebench" -s 16M -o random -r 3
"$mp" report -i time.data --threshold 1
# 2. The article's paired counters. With a hardware PMU they are measured; without one
#    (a VM, a CI runner) the caches of this machine are simulated with valgrind.
if "$mp" stat -e INST_RETIRED "$kern/cachebench" -s 16K -r 10 >/dev/null 2>&1; then
  sim=
else
  sim=--sim
fi
"$mp" record $sim -e L1D_REPL,INST_RETIRED -o memprof.data -- "$kern/cachebench" -s 4M -r 4
# 3. The ratio table, normalised by overrun; then per function, hottest first.
"$mp" ratios -i memprof.data
"$mp" ratios -i memprof.data --level symbol --top 5
# 4. The source line to blame.
"$mp" annotate -i memprof.data walk
