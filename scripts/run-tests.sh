#!/bin/sh
# Runs the Bats suite on the programs in bin/ (or ARGUS_BIN) and ends with
# "N passed, N failed" and bats' exit status.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
export ARGUS_BIN="${ARGUS_BIN:-$root/bin}"
export ARGUS_ROOT="$root"
out=$(mktemp)
rc=$(mktemp)
trap 'rm -f "$out" "$rc"' EXIT
{ BATS_LIB_PATH="${BATS_LIB_PATH:-/usr/lib/bats}" bats --tap "$root/tests"; echo $? >"$rc"; } | tee "$out"
status=$(cat "$rc")
passed=$(grep -c '^ok ' "$out")
failed=$(grep -c '^not ok ' "$out")
skipped=$(grep -c '^ok .* # skip' "$out")
passed=$((passed - skipped))
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
