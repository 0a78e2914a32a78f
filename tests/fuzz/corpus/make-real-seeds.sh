#!/bin/bash
# Seeds made from the real recordings (fixtures/real/*/hang.txt.gz and
# normal.txt.gz), for fuzz-graph (a graph and its findings) and fuzz-link
# (a decoded stream behind option byte 0), small enough for libFuzzer:
#
#   tests/fuzz/corpus/make-real-seeds.sh [MAX_BYTES]     (default 16384)
#
# writes corpus/fuzz-graph/real-NAME-RUN.argus and
# corpus/fuzz-link/real-NAME-RUN.cbor, replacing those of an earlier run.
# For each recording: argus diagnose --hang 100 --keep finds its hangs;
# the trace is cut down to the lines of the threads of the first three
# hangs and their wait chains (the lines those threads ran, and the
# wakeups and switches naming them), kept in order; that trace's graph
# (argus graph) is trimmed to its first records up to MAX_BYTES, whole
# records only, and argus-analyze --hang 100 --keep writes the seed: the
# trimmed graph with the hangs, paths, wait chains and culprits found in
# it. The decoded stream of the same lines, trimmed alike, is the
# fuzz-link seed. A recording with no hang at 100 ms makes no seed.
# Uses bin/ (make all), jq, perl and /usr/bin/python3 with python3-cbor2.
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
max=${1:-16384}
bin=$top/bin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/argus-real-seeds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
graph_dir=$top/tests/fuzz/corpus/fuzz-graph
link_dir=$top/tests/fuzz/corpus/fuzz-link
rm -f "$graph_dir"/real-*.argus "$link_dir"/real-*.cbor

# trim IN OUT MAX [PREFIX_BYTE]: the first whole CBOR records of IN, at
# most MAX bytes in all (with the prefix byte, when given, first)
trim() {
    /usr/bin/python3 - "$@" <<'PY'
import sys, cbor2
src, dst, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
prefix = bytes([int(sys.argv[4])]) if len(sys.argv) > 4 else b""
limit -= len(prefix)
with open(src, "rb") as f:
    data = f.read()
    f.seek(0)
    end = 0
    while end < len(data):
        try:
            cbor2.load(f)
        except Exception:
            break
        if f.tell() > limit:
            break
        end = f.tell()
with open(dst, "wb") as out:
    out.write(prefix + data[:end])
PY
}

made=0
for dir in "$top"/fixtures/real/*/; do
    dir=${dir%/}
    name=${dir##*/}
    for run in hang normal; do
        [ -e "$dir/$run.txt.gz" ] || continue
        t=$tmp/$name-$run.txt
        gzip -dc "$dir/$run.txt.gz" > "$t"
        "$bin/argus" diagnose --hang 100 --keep "$tmp/findings" "$t" > /dev/null 2>&1 || true
        [ -s "$tmp/findings" ] || continue
        tids=$("$bin/argus-to-json" "$tmp/findings" |
            jq -r 'select((.type == "hang" or .type == "wait_chain") and (.hang // 0) < 3)
                   | (.tids // [.tid]) | .[] | select(. != null)' | sort -un | tr '\n' ' ')
        [ -n "$tids" ] || continue
        # hang 0's end, on the trace's clock (origin + ts, in ns)
        read -r origin end < <("$bin/argus-to-json" "$tmp/findings" |
            jq -r -s '"\(.[0].origin // 0) \([.[] | select(.type == "hang" and .hang == 0)][0].end // 0)"')
        rm -f "$tmp/findings"
        # the lines of those threads: a task TID's own, or one naming TID
        # as pid=, next_pid= or prev_pid= (wakeups, switches); # lines
        # kept; within a window ending 5 ms after the hang's end, halved
        # from 4 s until the graph fits in three quarters of MAX
        win=4000
        while :; do
            TIDS=$tids LO=$(((origin + end) / 1000 - win * 1000)) HI=$(((origin + end) / 1000 + 5000)) perl -ne '
                BEGIN { %k = map { $_ => 1 } split " ", $ENV{TIDS} }
                if (/^#/) { print; next }
                next unless /\]\s+\S*\s*(\d+)\.(\d{6}):/;
                $us = $1 * 1000000 + $2;
                next if $us < $ENV{LO} || $us > $ENV{HI};
                if (/-(\d+)\s+\(\s*[\d-]+\)\s+\[\d+\]/ && $k{$1}) { print; next }
                while (/\b(?:pid|next_pid|prev_pid)=(\d+)/g) { if ($k{$1}) { print; last } }
            ' "$t" > "$t.cut"
            "$bin/argus" graph "$t.cut" > "$tmp/graph" 2> /dev/null || break
            [ "$(wc -c < "$tmp/graph")" -gt $((max * 3 / 4)) ] && [ $win -gt 10 ] || break
            win=$((win / 2))
        done
        [ -s "$tmp/graph" ] || continue
        trim "$tmp/graph" "$tmp/graph.trim" "$((max * 3 / 4))"
        hang_ms=$((win / 4 > 100 ? 100 : (win / 4 < 1 ? 1 : win / 4)))
        "$bin/argus-analyze" --hang "$hang_ms" --keep "$tmp/seed" "$tmp/graph.trim" > /dev/null 2>&1 || true
        [ -s "$tmp/seed" ] || continue
        trim "$tmp/seed" "$graph_dir/real-$name-$run.argus" "$max"
        "$bin/argus" decode "$t.cut" > "$tmp/decoded" 2> /dev/null || continue
        trim "$tmp/decoded" "$link_dir/real-$name-$run.cbor" "$max" 0
        made=$((made + 1))
        rm -f "$tmp/seed" "$tmp/graph" "$tmp/graph.trim" "$tmp/decoded" "$t" "$t.cut"
    done
done
echo "made $made seeds of each kind (at most $max bytes)"
