#!/bin/bash
# tests/live/corpus.sh [NAME...]: records the real corpus (tests/live/README.md,
# "The real corpus"): runs tests/live/scenarios/NAME.sh for each NAME (all
# of them without arguments) and keeps its two recordings, gzipped, as
# fixtures/real/NAME/hang.txt.gz and normal.txt.gz, with the truth the
# scenario wrote (fixtures/real/NAME/truth). A scenario that cannot
# run here (exit 77) is skipped with its reason; one that fails leaves its
# old recordings as they were. Needs root, tracefs and the scenario's
# programs; run it from the top of the tree after make.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$top/bin:$PATH"
cd "$top"
names=("$@")
if [ ${#names[@]} = 0 ]; then
    for f in tests/live/scenarios/*.sh; do
        n=$(basename "$f" .sh)
        [ "$n" = lib ] || names+=("$n")
    done
fi
failed=0
for n in "${names[@]}"; do
    script=tests/live/scenarios/$n.sh
    [ -x "$script" ] || { echo "corpus: no scenario $script" >&2; failed=1; continue; }
    tmp=$(mktemp -d)
    status=0
    timeout 600 "$script" "$tmp" || status=$?
    if [ $status = 77 ]; then
        echo "corpus: $n: skipped" >&2
    elif [ $status != 0 ] || [ ! -s "$tmp/hang.txt" ] || [ ! -s "$tmp/normal.txt" ] ||
        ! grep -q '^hang=' "$tmp/truth" || ! grep -q '^culprit=' "$tmp/truth"; then
        echo "corpus: $n: failed (exit $status)" >&2
        failed=1
    else
        mkdir -p "fixtures/real/$n"
        for run in hang normal; do
            gzip -9 -n -c "$tmp/$run.txt" > "fixtures/real/$n/$run.txt.gz"
        done
        cp "$tmp/truth" "fixtures/real/$n/truth"
        echo "corpus: $n: $(du -ch fixtures/real/$n/*.gz | tail -1 | cut -f1) in fixtures/real/$n" >&2
    fi
    rm -rf "$tmp"
done
exit $failed
