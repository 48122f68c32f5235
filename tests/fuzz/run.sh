#!/bin/bash
# Build the libFuzzer harnesses with clang (ASan+UBSan, coverage on every library) in their
# own build dir and run each one. Exit status non-zero when a fuzzer finds a crash, leak or
# timeout; the input that did it is kept in $OUT (default build-fuzz/artifacts/) and should
# be added to tests/fuzz/corpus/<name>/ once fixed. At the end: executions per harness.
# The new units a fuzzer finds that add coverage are merged into its corpus,
# tests/fuzz/corpus/<name>/ (libFuzzer -merge=1), so the corpus grows between runs: commit
# them (-K leaves the corpora alone).
#   tests/fuzz/run.sh [-b BUILD_DIR] [-s SECONDS] [-t] [-n RUNS] [-K] [NAME...]
# Two budgets:
#   default (CI, every change): each harness for SECONDS (default 20; perfdata, the
#     biggest parser, three times as long);
#   -t (the long campaign, once per release of a parser, by hand or the optional CI step
#     MEMPROF_CI_FUZZ_LONG=1 .ci/run): each harness until RUNS executions (default
#     1000000), with no time limit.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$src/build-fuzz
secs=20
long=0
runs=1000000
keep=1
usage() { echo "usage: $0 [-b BUILD_DIR] [-s SECONDS] [-t] [-n RUNS] [-K] [NAME...]" >&2; exit 2; }
while getopts "b:s:tn:Kh" o; do
  case $o in
    K) keep=0 ;;
    b) build=$OPTARG ;;
    s) secs=$OPTARG ;;
    t) long=1 ;;
    n) runs=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
case $secs$runs in *[!0-9]*) usage ;; esac
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
summary=()
for n in "${names[@]}"; do
  if [ $long = 1 ]; then
    budget=(-runs="$runs"); what="$runs executions"
  else
    t=$secs; [ "$n" = perfdata ] && t=$((3 * secs))
    budget=(-max_total_time="$t"); what="${t}s"
  fi
  work=$(mktemp -d)        # new inputs go here, never into the source corpus
  seeds=$src/tests/fuzz/corpus/$n
  [ -d "$seeds" ] || seeds=
  echo "== fuzz_$n for $what"
  t0=$(date +%s)
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$build/tests/fuzz_$n" "${budget[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/$n-" "$work" ${seeds:+"$seeds"} >"$out/$n.log" 2>&1; then
    echo "fuzz_$n FAILED (log: $out/$n.log):" >&2
    grep -E "ERROR|SUMMARY|Test unit written|runtime error" "$out/$n.log" | head -20 >&2
    status=1
    res=FAILED
  else
    res=ok
  fi
  el=$(( $(date +%s) - t0 ))
  kept=0
  if [ $keep = 1 ] && [ $res = ok ] && [ -n "$(ls -A "$work")" ]; then
    # the units that add coverage to the corpus, minimized by libFuzzer, go into it
    mkdir -p "$src/tests/fuzz/corpus/$n"
    before=$(ls "$src/tests/fuzz/corpus/$n" | wc -l)
    ASAN_OPTIONS=detect_leaks=0 "$build/tests/fuzz_$n" -merge=1 -timeout=10 -rss_limit_mb=2048 \
      "$src/tests/fuzz/corpus/$n" "$work" >"$out/$n.merge.log" 2>&1 ||
      echo "fuzz_$n: merging the new units failed (log: $out/$n.merge.log)" >&2
    kept=$(( $(ls "$src/tests/fuzz/corpus/$n" | wc -l) - before ))
  fi
  ex=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$n.log" | tail -1)
  nu=$(sed -n 's/^stat::new_units_added: *//p' "$out/$n.log" | tail -1)
  summary+=("$(printf '%-12s %12s %8s %10s %6s' "$n" "${ex:-?}" "${el}s" \
    "$([ -n "$ex" ] && [ "$el" -gt 0 ] && echo $((ex / el)) || echo '?')" "$res") new units ${nu:-?}, kept in the corpus $kept")
  rm -rf "$work"
done
echo
echo "== executions per harness ($([ $long = 1 ] && echo "long campaign, $runs runs each" || echo "short budget"))"
printf '%-12s %12s %8s %10s %6s\n' harness executions time exec/s status
printf '%s\n' "${summary[@]}"
exit $status
