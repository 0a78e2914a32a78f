#!/bin/sh
# make demo: the longest pipeline that exists today, on a bundled trace of
# a real-looking hang (fixtures/demo/hang.jsonl).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PATH="$root/bin:$PATH"
trace=fixtures/demo/hang.jsonl

echo "== The trace: $trace"
sed -n '/^# /p' "$trace" | sed -n '1,6p'
echo
echo "== argus decode --format jsonl $trace | argus to-json"
echo "   (ids given, pids filled from thread records, synthetic woken events"
echo "   after each wait per DEC-WOKEN)"
argus decode --format jsonl "$trace" | argus to-json
echo
echo "== argus decode --format jsonl $trace | argus validate"
argus decode --format jsonl "$trace" | argus validate
echo
echo "Graph construction (segment, link-*) and diagnosis (find-spinning,"
echo "similar, diff) come next; see README.md."
