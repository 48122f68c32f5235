#!/bin/bash
# Build the libFuzzer harnesses with clang (ASan+UBSan, coverage on every library) in their
# own build dir and run each for a bounded time. Exit status non-zero when a fuzzer finds
# a crash, leak or timeout; the input that did it is kept in $OUT (default
# build-fuzz/artifacts/) and should be added to tests/fuzz/corpus/<name>/ once fixed.
#   tests/fuzz/run.sh [-b BUILD_DIR] [-t SECONDS_FOR_PERFDATA] [-s SECONDS_FOR_OTHERS] [NAME...]
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
tp=60
to=20
while getopts "b:t:s:" o; do
  case $o in
    b) build=$OPTARG ;;
    t) tp=$OPTARG ;;
    s) to=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-t SECONDS] [-s SECONDS] [NAME...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
command -v clang >/dev/null || { echo "run.sh: clang not found" >&2; exit 1; }

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for h in "$src"/tests/fuzz/fuzz_*.c; do
    n=$(basename "$h" .c); n=${n#fuzz_}
    [ "$n" = replay ] || names+=("$n")
  done
fi

cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMEMPROF_FUZZ=ON -DMEMPROF_SANITIZE=ON -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -Wno-unknown-warning-option" >"$build.configure.log" 2>&1 ||
  { cat "$build.configure.log" >&2; echo "run.sh: cmake failed" >&2; exit 1; }
targets=()
for n in "${names[@]}"; do targets+=("fuzz_$n"); done
make -C "$build" -j"$(nproc)" "${targets[@]}" >"$build/make.log" 2>&1 ||
  { tail -40 "$build/make.log" >&2; echo "run.sh: build failed" >&2; exit 1; }

out=${OUT:-$build/artifacts}
mkdir -p "$out"
status=0
for n in "${names[@]}"; do
  t=$to; [ "$n" = perfdata ] && t=$tp
  work=$(mktemp -d)        # new inputs go here, never into the source corpus
  seeds=$src/tests/fuzz/corpus/$n
  [ -d "$seeds" ] || seeds=
  echo "== fuzz_$n for ${t}s"
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$build/tests/fuzz_$n" -max_total_time="$t" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/$n-" "$work" ${seeds:+"$seeds"} >"$out/$n.log" 2>&1; then
    echo "fuzz_$n FAILED (log: $out/$n.log):" >&2
    grep -E "ERROR|SUMMARY|Test unit written|runtime error" "$out/$n.log" | head -20 >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$out/$n.log" | sed 's/^/  /'
  fi
  rm -rf "$work"
done
exit $status
