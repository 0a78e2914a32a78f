#!/bin/sh
# make demo: the whole diagnosis (argus diagnose) on a bundled trace of a
# real-looking hang (fixtures/demo/hang.jsonl), compared with a normal run
# of the same action (fixtures/demo/normal.jsonl).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PATH="$root/bin:$PATH"
trace=fixtures/demo/hang.jsonl
baseline=fixtures/demo/normal.jsonl

echo "== The trace: $trace"
sed -n '/^# /p' "$trace" | sed -n '1,6p'
echo
echo "== Its event graph: argus graph $trace | argus validate"
argus graph "$trace" | argus validate
echo
echo "== argus diagnose --baseline $baseline $trace"
echo
argus diagnose --baseline "$baseline" "$trace"
