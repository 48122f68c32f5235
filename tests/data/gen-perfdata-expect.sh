#!/bin/bash
# Regenerates tests/data/perfdata-expect.tsv from perf 6.1's own reading of the shared
# fixtures: per event, the number of samples and the sum of their periods, as
# `perf report --no-group` counts them (group reads split per member, zero deltas dropped).
# Usage: tests/data/gen-perfdata-expect.sh ../shared/perfdata > tests/data/perfdata-expect.tsv
set -eu
dir=${1:?perfdata dir}
e=$(mktemp -d); trap 'rm -rf "$e"' EXIT
printf '# file\tevent\tsamples\tperiod\n'
for f in "$dir"/*.data; do
  b=$(basename "$f")
  case $b in *.orig-attr136.data) continue;; esac
  PERF_BUILDID_DIR=$e perf report -i "$f" --stdio --symfs="$e" --kallsyms=/dev/null \
    --no-children -g none --no-branch-stack --no-group -F sample,period --sort cpu 2>/dev/null |
  awk -v f="$b" '
    /^# Samples: .* of events? / { if (ev != "") printf "%s\t%s\t%d\t%.0f\n", f, ev, ns, np
      ev = $0; sub(/^[^'\'']*'\''/, "", ev); sub(/'\''$/, "", ev); ns = 0; np = 0; next }
    /^#/ || NF < 3 { next }
    { ns += $1; np += $2 }
    END { if (ev != "") printf "%s\t%s\t%d\t%.0f\n", f, ev, ns, np }'
done
