#!/bin/sh
# Regenerates the images of docs/viewing.md from the demo
# (fixtures/demo/hang.jsonl against fixtures/demo/normal.jsonl):
#   docs/images/demo-html.png    the page of argus diagnose --html, as the
#                                browser tests see it (tests/html.bats'
#                                own screenshot, headless Chromium)
#   docs/images/demo-devtools.png  that export opened in the Performance
#                                panel of Chromium's own DevTools front end
#                                (tests/export.bats' own screenshot, headless
#                                Chromium: tests/tools/devtools-trace)
#   docs/images/demo-dot.svg     argus export --output-format dot | dot -Tsvg
#   docs/images/demo-perfetto.json  argus export --output-format perfetto, to
#                                open in ui.perfetto.dev or chrome://tracing
# Needs the build (make), bats, chromium and graphviz (make deps).
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
PATH="$root/bin:$PATH"
out=docs/images
command -v chromium >/dev/null 2>&1 || { echo "make-screenshots: no chromium (apt-get install chromium)" >&2; exit 1; }
command -v dot >/dev/null 2>&1 || { echo "make-screenshots: no dot (apt-get install graphviz)" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/demo-html.png" "$out/demo-devtools.png"
ARGUS_SCREENSHOTS="$root/$out" ARGUS_BIN="$root/bin" ARGUS_ROOT="$root" \
    BATS_LIB_PATH="${BATS_LIB_PATH:-/usr/lib/bats}" bats tests/html.bats
ARGUS_SCREENSHOTS="$root/$out" ARGUS_BIN="$root/bin" ARGUS_ROOT="$root" \
    BATS_LIB_PATH="${BATS_LIB_PATH:-/usr/lib/bats}" bats --filter DevTools tests/export.bats
for f in demo-html.png demo-devtools.png; do
    [ -s "$out/$f" ] || { echo "make-screenshots: the tests made no $f" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/argus-shots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
argus diagnose --baseline fixtures/demo/normal.jsonl --keep "$tmp/demo.findings" \
    fixtures/demo/hang.jsonl > /dev/null
argus export --output-format dot "$tmp/demo.findings" | dot -Tsvg > "$out/demo-dot.svg"
argus export --output-format perfetto "$tmp/demo.findings" > "$out/demo-perfetto.json"
ls -l "$out"
