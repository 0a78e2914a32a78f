#!/bin/bash
# make live: records every scenario of tests/live/scenarios afresh (root,
# tracefs, the scenarios' programs) into a temporary copy of the corpus and
# scores it with scripts/accuracy.sh, leaving fixtures/real as it is (to
# keep new recordings, run tests/live/corpus.sh NAME), and runs the live
# Bats files tests/live/*.bats. A live run depends on
# this machine's timing: its verdict is not part of make test's.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$top/bin:$PATH"
[ "$(id -u)" = 0 ] || { echo "live: skipped: recording with tracefs needs root"; exit 0; }
grep -qw tracefs /proc/filesystems || { echo "live: skipped: this kernel has no tracefs"; exit 0; }
out=$(mktemp -d "${TMPDIR:-/tmp}/argus-live.XXXXXX")
trap 'rm -rf "$out"' EXIT
dirs=()
for f in "$top"/tests/live/scenarios/*.sh; do
    n=$(basename "$f" .sh)
    [ "$n" != lib ] || continue
    mkdir -p "$out/$n"
    status=0
    timeout 600 "$f" "$out/$n.raw" > "$out/$n.log" 2>&1 || status=$?
    if [ $status = 77 ]; then
        echo "live: $n: $(tail -1 "$out/$n.log")"
        continue
    elif [ $status != 0 ]; then
        echo "live: $n: failed (exit $status): $(tail -1 "$out/$n.log")"
        continue
    fi
    for run in hang normal; do
        gzip -c "$out/$n.raw/$run.txt" > "$out/$n/$run.txt.gz"
    done
    cp "$out/$n.raw/truth" "$out/$n/truth"
    dirs+=("$out/$n")
done
# the live Bats files (tests/live/*.bats: one run recorded two ways)
live_status=0
BATS_LIB_PATH="${BATS_LIB_PATH:-/usr/lib/bats}" ARGUS_BIN="$top/bin" ARGUS_ROOT="$top" \
    bats "$top"/tests/live/*.bats || live_status=$?
[ ${#dirs[@]} = 0 ] && { echo "live: no scenario could run here"; exit $live_status; }
"$top/scripts/accuracy.sh" "${dirs[@]}" && exit $live_status
