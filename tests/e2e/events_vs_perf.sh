#!/bin/bash
# Every perf generic name memprof lists (hardware, software, the HW_CACHE family) must
# resolve to the perf_event_attr type and config that perf itself uses for that name
# (perf stat -vv prints the attr it tried, even when the kernel refuses the event).
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v "$PERF" >/dev/null || { echo "SKIP: perf not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$MEMPROF" list -v --pmu perf > "$tmp/list" || fail "memprof list -v exited $?"
# name<TAB>type<TAB>config for every generic line (synonyms split)
awk '
  /^Generic hardware events|^Software events|^Hardware cache events/ { on = 1; next }
  /^Portable aliases|^Sysfs PMU events/ { on = 0 }
  on && /^  [A-Za-z]/ && !/^  name / { line = $0; sub(/^  /, "", line); split(line, p, /  +/); names = p[1]; next }
  on && /^      attr: / && names != "" {
    n = split(names, a, /, /); for (i = 1; i <= n; i++) printf "%s\t%s\t%s\n", a[i], $3, $5; names = "" }
' "$tmp/list" > "$tmp/mine"
count=$(wc -l < "$tmp/mine")
[ "$count" -ge 55 ] || fail "only $count generic names listed"
checked=0
while IFS=$'\t' read -r name type config; do
  out=$("$PERF" stat -vv -e "$name" true 2>&1)
  attr=$(echo "$out" | awk '/^perf_event_attr:/ { on = 1; t = 0; c = "0x0"; next }
    on && /^  type / { t = $2 } on && /^  config / { c = $2 }
    on && /^-----/ { print t, c; exit }')
  [ -n "$attr" ] || { echo "perf does not know '$name': skipped"; continue; }
  [ "$attr" = "$type $config" ] || fail "'$name': memprof type $type config $config, perf $attr"
  checked=$((checked + 1))
done < "$tmp/mine"
[ "$checked" -eq "$count" ] || fail "only $checked of $count names cross-checked with perf"
# the named events of this machine's sysfs PMUs (msr/tsc/ on the VMs)
"$MEMPROF" list / | awk '/^  [^ ]+\/ +type [0-9]+ config / { print $1, $3, $5 }' > "$tmp/sysfs"
while read -r name type config; do
  attr=$("$PERF" stat -vv -e "$name" true 2>&1 | awk '/^perf_event_attr:/ { on = 1; t = 0; c = "0x0"; next }
    on && /^  type / { t = $2 } on && /^  config / { c = $2 } on && /^-----/ { print t, c; exit }')
  [ -n "$attr" ] || continue
  [ "$attr" = "$type $config" ] || fail "'$name': memprof type $type config $config, perf $attr"
  checked=$((checked + 1))
done < "$tmp/sysfs"
echo "ok: $checked generic and sysfs events agree with perf"
