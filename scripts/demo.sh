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
# the same diagnosis, written to look at (docs/viewing.md): the page, the
# findings stream, and the exports of the findings
mkdir -p build
argus diagnose --baseline "$baseline" --keep build/demo.findings --html build/demo.html "$trace"
argus export --output-format perfetto build/demo.findings > build/demo.json
echo
echo "== To look at it (docs/viewing.md):"
echo "   build/demo.html  open in a browser (offline): the verdict, the report, a timeline"
if command -v dot >/dev/null 2>&1; then
    argus export --output-format dot build/demo.findings | dot -Tsvg > build/demo.svg
    echo "   build/demo.svg   the causal path and wait chain (Graphviz)"
fi
echo "   build/demo.json  open in ui.perfetto.dev or Chromium's DevTools (Performance): every thread"
echo
echo "== To run argus yourself: the programs are in $root/bin; put them on PATH"
echo "   for this shell (or run make install):"
echo "   export PATH=\"$root/bin:\$PATH\""
echo "   argus diagnose $trace    # the same, without the baseline"
echo "   sudo env PATH=\"\$PATH\" argus watch --dir ~/hangs    # catch your desktop's next hang"
