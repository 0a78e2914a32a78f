#!/usr/bin/env bats
# argus diagnose --html / argus export --format html: the self-contained
# page, opened in a real browser (headless Chromium, Debian's chromium;
# the browser tests skip without it). The browser runs once, in
# setup_file, on the demo's page: it dumps the DOM after the page's script
# ran and takes a screenshot, which the tests read (tests/tools/page-dom,
# tests/tools/png-colours); one more run drives it through the DevTools
# protocol (tests/tools/page-drive). scripts/make-screenshots.sh keeps that
# screenshot for docs/viewing.md (ARGUS_SCREENSHOTS=DIR: copied there).

load test_helper

# browse URL OUT: the page in headless Chromium, 1280x860: OUT.dom (the
# DOM after the page's script ran), OUT.png (the screenshot), OUT.log (the
# browser's stderr, where each console message is an INFO:CONSOLE line).
browse() {
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --user-data-dir="$BATS_FILE_TMPDIR/profile" \
        --enable-logging=stderr --v=0 --window-size=1280,860 \
        --screenshot="$2.png" --dump-dom "$1" > "$2.dom" 2> "$2.log"
}

setup_file() {
    local d=$BATS_FILE_TMPDIR
    argus diagnose --baseline fixtures/demo/normal.jsonl --keep "$d/demo.findings" \
        --html "$d/demo.html" fixtures/demo/hang.jsonl > "$d/report.txt"
    # #seg=3 selects the culprit's bar, as a click does: its events listed
    if command -v chromium >/dev/null 2>&1; then
        browse "file://$d/demo.html#seg=3" "$d/demo" || true
    fi
}

teardown_file() {
    if [ -n "${ARGUS_SCREENSHOTS-}" ] && [ -s "$BATS_FILE_TMPDIR/demo.png" ]; then
        cp "$BATS_FILE_TMPDIR/demo.png" "$ARGUS_SCREENSHOTS/demo-html.png"
    fi
}

D() { echo "$BATS_FILE_TMPDIR"; }

# page_data FILE: the page's data island, the JSON its script draws
page_data() {
    awk '/^const DATA = /{p = 1; sub(/^const DATA = /, "")} p {print} p && /;$/ {exit}' "$1" |
        sed '$s/;$//'
}

need_browser() {
    command -v chromium >/dev/null 2>&1 || skip "no chromium (Debian package chromium)"
    [ -s "$(D)/demo.dom" ] || {
        cat "$(D)/demo.log" >&2
        false
    }
}

@test "diagnose --html writes the page and still prints the report" {
    run cat "$(D)/report.txt"
    assert_line --index 0 --partial "Verdict: App/main [1001] was blocked 3.199 s in mach_msg receive"
    assert_line "Hang 0: App/main [1001] (pid 100)"
    run grep -c '<pre id="report">Verdict: App/main \[1001\] was blocked' "$(D)/demo.html"
    assert_output 1
}

@test "the page fetches nothing: no URL to load, and a policy that forbids every fetch" {
    # the SVG namespace is a name, not a fetch; url(#id) names an element
    # of the page
    run sh -c "grep -v '^const SVGNS = \"http://www.w3.org/2000/svg\";\$' '$(D)/demo.html' |
        grep -cE 'src=|href=|url\([^#]|@import|fetch\(|XMLHttpRequest|WebSocket|https?:'"
    assert_output 0
    run grep -c "Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'\"" "$(D)/demo.html"
    assert_output 1
}

@test "browser: the page's script ran to its end with no error and no console message" {
    need_browser
    run page-dom "$(D)/demo.dom" body
    assert_output "data-ready=1"
    run grep -c 'INFO:CONSOLE' "$(D)/demo.log"
    assert_output 0
}

@test "browser: the verdict names the hang, the culprit and the similar node" {
    need_browser
    run page-dom "$(D)/demo.dom" text verdict
    assert_output "Hang 0 App/main [1001] hung 3.199 s (wait: blocked in mach_msg receive), from 0.001 s to 3.200 s; found by the spinning cursor, CGSConnectionSetSpinning."
    run page-dom "$(D)/demo.dom" text verdict-culprit
    assert_output "Culprit syncd/net [2002]: blocked 3.199 s in soreceive. 2 culprits in all, ranked in the report."
    run page-dom "$(D)/demo.dom" text verdict-similar
    assert_output "Baseline the stretch of work most like the hang's in fixtures/demo/normal.jsonl: 0 events apart (0%)."
}

@test "browser: the page shows the report's own verdict and baseline, word for word" {
    need_browser
    run page-dom "$(D)/demo.dom" text verdict-words
    assert_output "$(sed -n '/^Verdict/,/^Baseline/p' "$(D)/report.txt" | sed '$d' | tr '\n' ' ' | sed 's/ $//')"
    assert_output --partial "Verdict: App/main [1001] was blocked 3.199 s in mach_msg receive on 0x5207, waiting on syncd/net [2002]"
    assert_output --partial "Culprit: syncd/net [2002]"
    run page-dom "$(D)/demo.dom" text verdict-baseline
    assert_output "Baseline: compared with fixtures/demo/normal.jsonl, a normal run."
}

@test "browser: a row per thread of the wait chain, the baseline's beside them" {
    need_browser
    run page-dom "$(D)/demo.dom" rows
    assert_output "trace App/main [1001]
trace syncd/main [2001]
trace syncd/net [2002]
baseline App/main [3001]
baseline syncd/net [4002]
baseline syncd/main [4001]"
}

@test "browser: a bar per segment, hang, culprits and similar node marked" {
    need_browser
    run page-dom "$(D)/demo.dom" segs
    assert_output "trace 1 hang path chain
trace 8 
trace 2 chain culprit
trace 7 
trace 3 chain culprit selected
trace 6 
baseline 1 similar
baseline 7 
baseline 3 
baseline 5 counterpart
baseline 2 
baseline 6 counterpart"
}

@test "browser: every arrow runs from the bar its edge leaves to the one it enters" {
    need_browser
    run page-dom "$(D)/demo.dom" edges
    assert_output "trace 1->2 ipc joined
trace 3->6 resume joined
trace 2->6 wait weak joined
trace 6->7 wakeup joined
trace 2->7 reply joined
trace 1->7 wait weak joined
trace 7->8 wakeup joined
trace 7->8 ipc joined
baseline 1->2 ipc joined
baseline 3->5 resume joined
baseline 2->5 wait weak joined
baseline 5->6 wakeup joined
baseline 2->6 reply joined
baseline 1->6 wait weak joined
baseline 6->7 wakeup joined
baseline 6->7 ipc joined"
}

@test "browser: the arrow check catches an arrow drawn to the wrong bar" {
    need_browser
    # the ipc arrow 1->2 said to enter seg 3 (syncd net's bar, a row lower)
    sed '0,/data-to-seg="2" data-kind="ipc"/s//data-to-seg="3" data-kind="ipc"/' \
        "$(D)/demo.dom" > "$BATS_TEST_TMPDIR/wrong.dom"
    run page-dom "$BATS_TEST_TMPDIR/wrong.dom" edges
    assert_line --index 0 --regexp '^trace 1->3 ipc loose: end \([0-9]+,[0-9]+\) outside bar 3$'
}

@test "browser: the 'waits on' arrows follow the chain from App to syncd's net thread" {
    need_browser
    run page-dom "$(D)/demo.dom" links
    assert_output "trace 1->2
trace 2->3"
}

@test "browser: #seg=3 in the address selects the culprit's bar, as a click does" {
    need_browser
    run page-dom "$(D)/demo.dom" text details-body
    assert_output --partial "seg 3: wait soreceive syncd/net [2002] events 0.002 s to 0.002 s (10.0 µs) then blocked 3.199 s marked: chain, culprit (rank 1)"
    assert_output --partial "Events 10 0.002 recvfrom 11 0.002 wait soreceive"
    assert_output --partial "resume → seg 6"
}

@test "browser through the DevTools protocol: hover, click, wheel zoom and drag pan" {
    need_browser
    run timeout 120 page-drive "file://$(D)/demo.html" "$BATS_TEST_TMPDIR/profile"
    assert_success
    assert_line --index 0 "ready: 1"
    assert_line --index 1 "hover: seg 3: wait soreceive syncd/net [2002] events 0.002 s to 0.002 s (10.0 µs) then blocked 3.199 s marked: chain, culprit (rank 1) 2 events; click for the list"
    assert_line --index 2 "click: seg 3: wait soreceive syncd/net [2002] events 0.002 s to 0.002 s (10.0 µs) then blocked 3.199 s marked: chain, culprit (rank 1) Edges resume → seg 6 Events 10 0.002 recvfrom 11 0.002 wait soreceive"
    # one notch of the wheel widens the bar by a quarter; a 200 px drag
    # moves it 200 px
    local w0 w1
    read -r _ w0 w1 _ <<< "${lines[3]}"
    [ "$w1" -gt $((w0 * 11 / 10)) ] || fail "zoom: the bar went from $w0 px to $w1 px"
    assert_line --index 4 --regexp '^pan: 200 '
    refute_line --partial "console:"
}

# After `run png-colours ...`: each colour NAME counts at least MIN
# pixels in the box it looked at (WHERE, for the message).
at_least() { # MIN WHERE NAME...
    local min=$1 where=$2 name count
    shift 2
    for name; do
        count=$(printf '%s\n' "$output" | sed -n "s/^$name //p")
        [ "${count:-0}" -ge "$min" ] || fail "$name: ${count:-0} pixels (of $min at least) on $where"
    done
}

@test "browser: the screenshot shows the hang, culprits, run and block colours" {
    need_browser
    # the two timelines' boxes in a 1280x860 window (the verdict's tags,
    # in the same colours, are above them)
    run png-colours "$(D)/demo.png" 220 330 900 470 hang=#d22f2f culprit=#f08c00 running=#3d6fc4 blocked=#c9ccd3
    assert_line "size 1280 860"
    at_least 300 "the timeline" hang culprit running blocked
    run png-colours "$(D)/demo.png" 220 555 900 700 similar=#2b8a3e counterpart=#f08c00
    at_least 100 "the baseline's timeline" similar counterpart
}

@test "firefox (when installed): the page draws the same timeline and colours" {
    command -v firefox-esr >/dev/null 2>&1 || skip "no firefox-esr (Debian package firefox-esr)"
    mkdir -p "$BATS_TEST_TMPDIR/ff"
    HOME="$BATS_TEST_TMPDIR/ff" timeout 120 firefox-esr --headless --no-remote \
        --profile "$BATS_TEST_TMPDIR/ff" --window-size=1280,860 \
        --screenshot "$BATS_TEST_TMPDIR/ff.png" "file://$(D)/demo.html#seg=3" > /dev/null 2>&1
    run png-colours "$BATS_TEST_TMPDIR/ff.png" 220 330 900 470 hang=#d22f2f culprit=#f08c00 running=#3d6fc4 blocked=#c9ccd3
    assert_line "size 1280 860"
    at_least 300 "the timeline" hang culprit running blocked
}

@test "no baseline: no second timeline; no hang: the page says so, diagnose exits 1" {
    run argus diagnose --html "$BATS_TEST_TMPDIR/one.html" fixtures/demo/hang.jsonl
    assert_success
    run grep -c '"id":"baseline"' "$BATS_TEST_TMPDIR/one.html"
    assert_output 0
    run grep -c 'id="verdict-similar"' "$BATS_TEST_TMPDIR/one.html"
    assert_output 0
    run argus diagnose --html "$BATS_TEST_TMPDIR/none.html" fixtures/demo/normal.jsonl
    assert_failure 1
    run grep -o '<p class="verdict none" id="verdict">[^<]*</p>' "$BATS_TEST_TMPDIR/none.html"
    assert_output '<p class="verdict none" id="verdict">No hang found.</p>'
    page_data "$BATS_TEST_TMPDIR/none.html" > "$BATS_TEST_TMPDIR/none.json"
    run jq -c . "$BATS_TEST_TMPDIR/none.json"
    assert_output '{"panels":[]}'
}

@test "a baseline without the findings' segments: no baseline timeline, said why" {
    cbor_records > "$BATS_TEST_TMPDIR/other.cbor" <<EOF2
$HEADER
{'type':'thread','tid':7,'pid':7,'proc':'a','main':True}
{'type':'wait','id':1,'ts':10,'tid':7,'pid':7,'seg':100}
EOF2
    run sh -c "argus export --format html --baseline '$BATS_TEST_TMPDIR/other.cbor' '$(D)/demo.findings' 2>&1 > '$BATS_TEST_TMPDIR/other.html'"
    assert_success
    assert_output "argus-export: $BATS_TEST_TMPDIR/other.cbor: none of the baseline segments the findings name (seg 1, ...): the baseline is not drawn"
    run grep -c '"id":"baseline"' "$BATS_TEST_TMPDIR/other.html"
    assert_output 0
}

@test "export --format html reads a pipe as a file, and a stream without a report" {
    run sh -c "argus export --format html < '$(D)/demo.findings' > '$BATS_TEST_TMPDIR/pipe.html' &&
               argus export --format html '$(D)/demo.findings' | cmp - '$BATS_TEST_TMPDIR/pipe.html'"
    assert_success
    run grep -c 'No report given' "$BATS_TEST_TMPDIR/pipe.html"
    assert_output 1
}

@test "a process named </script> on the page is text, never markup" {
    cbor_records > "$BATS_TEST_TMPDIR/odd.cbor" <<EOF2
$HEADER
{'type':'thread','tid':7,'pid':7,'proc':'</script><b>x','name':'a&b','main':True}
{'type':'wait','id':1,'ts':10,'tid':7,'pid':7,'seg':1,'reason':'</script>'}
{'type':'woken','id':2,'ts':2000000000,'tid':7,'pid':7,'seg':2}
{'type':'edge','kind':'resume','from':1,'to':2}
{'type':'hang','hang':0,'seg':1,'tid':7,'pid':7,'proc':'</script><b>x','thread':'a&b','begin':10,'end':2000000000,'duration':1999999990,'class':'wait','indicator':'hang','reason':'</script>'}
EOF2
    printf 'a <report> & more\n' > "$BATS_TEST_TMPDIR/report.txt"
    run sh -c "argus export --format html --report '$BATS_TEST_TMPDIR/report.txt' '$BATS_TEST_TMPDIR/odd.cbor' > '$BATS_TEST_TMPDIR/odd.html'"
    assert_success
    # the template's one </script> only
    run grep -c '</script>' "$BATS_TEST_TMPDIR/odd.html"
    assert_output 1
    run grep -o '<b>&lt;/script&gt;&lt;b&gt;x/a&amp;b \[7\]</b>' "$BATS_TEST_TMPDIR/odd.html"
    assert_success
    run grep -c '"label":"\\u003c/script>\\u003cb>x/a&b \[7\]"' "$BATS_TEST_TMPDIR/odd.html"
    assert_output 1
    run grep -c '<pre id="report">a &lt;report&gt; &amp; more' "$BATS_TEST_TMPDIR/odd.html"
    assert_output 1
}

@test "bad input exits 65 naming file and record; missing files 66; bad flags 64" {
    argus decode fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/dec.argus"
    run argus export --format html "$BATS_TEST_TMPDIR/dec.argus"
    assert_failure 65
    assert_output "argus-export: $BATS_TEST_TMPDIR/dec.argus: record 7 (byte 352): event 1 has no seg: run argus-segment (argus graph) before the analysis"
    run argus export --format html --baseline "$BATS_TEST_TMPDIR/dec.argus" "$(D)/demo.findings"
    assert_failure 65
    run argus export --format html --report "$BATS_TEST_TMPDIR/none.txt" "$(D)/demo.findings"
    assert_failure 66
    assert_output "argus-export: $BATS_TEST_TMPDIR/none.txt: No such file or directory"
    run argus export --format html --baseline "$BATS_TEST_TMPDIR/none.graph" "$(D)/demo.findings"
    assert_failure 66
    run argus export --report "$BATS_TEST_TMPDIR/report.txt" "$(D)/demo.findings"
    assert_failure 64
    assert_line "argus-export: --report, --baseline and --baseline-name are for --format html"
    run argus export --format html --around 3 "$(D)/demo.findings"
    assert_failure 1
    assert_output "argus-export: no hang 3 in the stream (it has 1 hang record)"
    run argus diagnose --html
    assert_failure 64
    assert_output "argus diagnose: --html needs a value
Try 'argus diagnose --help' for more information."
}

@test "real recording (gui-dbus): the page draws the GTK app and the D-Bus service" {
    zcat fixtures/real/gui-dbus/hang.txt.gz > "$BATS_TEST_TMPDIR/hang.txt"
    run argus diagnose --html "$BATS_TEST_TMPDIR/real.html" "$BATS_TEST_TMPDIR/hang.txt"
    assert_success
    run grep -o '<p class="verdict" id="verdict[^<]*<[^<]*<[^<]*<b>[^<]*' "$BATS_TEST_TMPDIR/real.html"
    assert_output '<p class="verdict" id="verdict"><span class="tag hang">Hang 0</span> <b>gtk-dbus-app/main [25605]
<p class="verdict" id="verdict-culprit"><span class="tag culprit">Culprit</span> <b>slow-dbus-svc/main [25586]'
    # its rows: the app's main thread first, the service's main thread on them
    page_data "$BATS_TEST_TMPDIR/real.html" > "$BATS_TEST_TMPDIR/real.json"
    run jq -r '.panels[0].threads[].label' "$BATS_TEST_TMPDIR/real.json"
    assert_line --index 0 "gtk-dbus-app/main [25605]"
    assert_line "slow-dbus-svc/main [25586]"
    # the hang's segment, a key handler blocked in poll inside its callout:
    # that wait is drawn blocked over the running bar
    run jq -c '.panels[0].segs[] | select(.seg == 125) | [.cls, (.iw | length > 0)]' "$BATS_TEST_TMPDIR/real.json"
    assert_output '[" hang path chain",true]'
}

# many_segments FILE: a hand-written trace whose hang's threads have more
# segments than a page draws (5000): App's main thread blocked 1.8 s on a
# reply from busyd, whose thread meanwhile waits 6000 times before it
# replies; the hang's wait chain ends at busyd's last segment (6001).
many_segments() {
    awk 'BEGIN {
        print "{\"type\":\"thread\",\"tid\":101,\"pid\":50,\"proc\":\"App\",\"main\":true}"
        print "{\"type\":\"thread\",\"tid\":201,\"pid\":60,\"proc\":\"busyd\"}"
        print "{\"type\":\"ui_event\",\"ts\":1000,\"tid\":101,\"kind\":\"keyDown\"}"
        print "{\"type\":\"ipc\",\"ts\":1200,\"tid\":101,\"dir\":\"send\",\"port\":\"0x1a03\",\"msg\":\"0x99\",\"reply_port\":\"0x2b07\",\"peer\":60}"
        print "{\"type\":\"wait\",\"ts\":1300,\"tid\":101,\"resource\":\"0x2b07\",\"reason\":\"mach_msg\"}"
        print "{\"type\":\"ipc\",\"ts\":1500,\"tid\":201,\"dir\":\"recv\",\"port\":\"0x1a03\",\"msg\":\"0x99\"}"
        ts = 2000
        for (i = 0; i < 6000; i++) {
            printf "{\"type\":\"syscall\",\"ts\":%d,\"tid\":201,\"name\":\"read\",\"phase\":\"begin\"}\n", ts; ts += 100
            printf "{\"type\":\"wait\",\"ts\":%d,\"tid\":201,\"resource\":\"0x%x\",\"reason\":\"psynch_mutexwait\"}\n", ts, 20480 + i % 7; ts += 300000
            printf "{\"type\":\"woken\",\"ts\":%d,\"tid\":201,\"result\":\"awakened\"}\n", ts; ts += 100
        }
        printf "{\"type\":\"ipc\",\"ts\":%d,\"tid\":201,\"dir\":\"send\",\"port\":\"0x2b07\",\"msg\":\"0x77\",\"peer\":50}\n", ts; ts += 100
        printf "{\"type\":\"wakeup\",\"ts\":%d,\"tid\":201,\"target\":101}\n", ts; ts += 100
        printf "{\"type\":\"woken\",\"ts\":%d,\"tid\":101,\"result\":\"awakened\"}\n", ts; ts += 100
        printf "{\"type\":\"ipc\",\"ts\":%d,\"tid\":101,\"dir\":\"recv\",\"port\":\"0x2b07\",\"msg\":\"0x77\"}\n", ts
    }' > "$1"
}

@test "past 5000 segments the timeline keeps the hang's and says what it left out" {
    local d=$BATS_TEST_TMPDIR
    many_segments "$d/many.jsonl"
    run argus diagnose --hang 500 --baseline "$d/many.jsonl" --keep "$d/many.findings" \
        --html "$d/many.html" "$d/many.jsonl"
    assert_success
    page_data "$d/many.html" > "$d/data.json"
    # the hang (seg 1), the end of its wait chain (6001) and its culprit
    # drawn, with the chain's arrow, though 1003 of busyd's segments are not
    run jq -c '.panels[0] | [(.segs | length), .left_out, [.segs[] | select(.cls != "") | .seg], .links]' "$d/data.json"
    assert_output '[5000,1003,[1,1667,6001],[[1,6001]]]'
    run jq -r '.panels[0].left_note' "$d/data.json"
    assert_output "Not all drawn: these threads have 6003 segments in this time, and a page draws at most 5000. Drawn: the segments of the hang, its causal path, wait chain and culprits (3), then the others thread by thread. Left out: 1003 segments of 1 thread, with their arrows: busyd/? [201] (1003). To see every segment, open the Perfetto export of this hang in ui.perfetto.dev: argus export --output-format perfetto --around 0 FINDINGS > hang.json, FINDINGS being the findings stream (argus diagnose --keep FILE keeps it)."
    run jq -r '.panels[1] | [(.segs | length), .left_out, .left_note] | @tsv' "$d/data.json"
    assert_output --partial "5000	1003	Not all drawn: these threads have 6003 segments in this time, and a page draws at most 5000. Drawn: the similar node and the culprits' counterparts (2), then the others thread by thread."
    # the commands the notes give draw every segment
    run sh -c "argus export --output-format perfetto --around 0 '$d/many.findings' | grep -c '\"ph\":\"X\"'"
    assert_output 6003
    window=$(jq -r '.panels[1].left_note' "$d/data.json" | sed -n 's/.* --window \([0-9.]*\) BASELINE .*/\1/p')
    assert_equal "$window" "0.000001..1.801203"   # seconds of ts: the trace has no origin
    run sh -c "argus graph '$d/many.jsonl' | argus export --output-format perfetto --window $window | grep -c '\"ph\":\"X\"'"
    assert_output 6003
    # in the browser (the hang's timeline alone: 5000 bars are enough), the
    # note stands above the timeline, and the script draws it all with no
    # console message
    command -v chromium >/dev/null 2>&1 || skip "no chromium (Debian package chromium)"
    argus export --output-format html "$d/many.findings" > "$d/one.html"
    browse "file://$d/one.html" "$d/many"
    run page-dom "$d/many.dom" text left-out-trace
    assert_output "$(jq -r '.panels[0].left_note' "$d/data.json")"
    run page-dom "$d/many.dom" links
    assert_output "trace 1->6001"
    run page-dom "$d/many.dom" body
    assert_output "data-ready=1"
    run grep -c 'INFO:CONSOLE' "$d/many.log"
    assert_output 0
}
