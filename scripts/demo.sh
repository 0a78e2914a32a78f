#!/bin/sh
# make demo: the longest pipeline that exists today (argus graph), on a
# bundled trace of a real-looking hang (fixtures/demo/hang.jsonl), shown
# as segments and the edges between them.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PATH="$root/bin:$PATH"
trace=fixtures/demo/hang.jsonl

echo "== The trace: $trace"
sed -n '/^# /p' "$trace" | sed -n '1,6p'
echo
echo "== argus graph $trace | argus validate"
argus graph "$trace" | argus validate
echo
echo "== Execution segments (nodes), per thread, with their events"
argus graph "$trace" | argus to-json | jq -rs '
    (map(select(.type == "thread")) | map({key: (.tid|tostring), value: "\(.proc):\(.name // .tid)"}) | from_entries) as $who
    | map(select(.seg)) | group_by(.seg)[]
    | "  seg \(.[0].seg)  \($who[.[0].tid|tostring])  \(((.[-1].ts - .[0].ts) / 1e6 * 1000 | floor) / 1000) ms\(if .[0].ctx then "  [\(.[0].ctx)]" else "" end)\n"
      + (map("      #\(.id) \(.type)" + (if .kind then " \(.kind)" elif .name then " \(.name) \(.phase // "")" elif .dir then " \(.dir) port \(.port)" elif .target then " -> tid \(.target)" elif .frames then " \(.frames[0])" elif .reason then " \(.reason)" elif .result then " \(.result)" else "" end)) | join("\n"))'
echo
echo "== Edges between segments"
argus graph "$trace" | argus to-json | jq -rs '
    (map(select(.id)) | map({key: (.id|tostring), value: .seg}) | from_entries) as $seg
    | .[] | select(.type == "edge")
    | "  seg \($seg[.from|tostring]) -> seg \($seg[.to|tostring])  \(.kind)\(if .weak then " (weak)" else "" end)   event #\(.from) -> #\(.to)"'
echo
echo "Read backwards from App's main thread (seg 8): its reply came from"
echo "syncd (seg 7), woken by the net thread (seg 6), which the network"
echo "interrupt resumed after 3.2 s; the keyDown is in seg 1. Finding the hang"
echo "and the culprit automatically (find-spinning, similar, diff) comes next."
