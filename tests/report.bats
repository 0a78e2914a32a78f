#!/usr/bin/env bats
# argus-report: renders the hang, path, wait_chain, match, culprit and branch
# records of a graph stream as text (SPIN-CLASS, SPIN-INDICATOR, SPIN-HANG,
# SPIN-PATH, SIM-MATCH, DIFF-CULPRIT, DIFF-ASK). The inputs are rendered
# streams kept as fixtures (fixtures/report/NAME-findings.jsonl: a graph with
# the analysis records appended), the expected reports beside them. See
# docs/stages/report.md.

load test_helper

# findings NAME: fixtures/report/NAME-findings.jsonl back to CBOR
# (argus-decode --format jsonl takes a rendered stream as it is).
findings() {
    findings_of "fixtures/report/$1-findings.jsonl"
}
findings_of() {
    argus-decode --format jsonl < "$1"
}
# report NAME [FLAGS...]
report() {
    local n=$1
    shift
    findings "$n" | argus-report "$@"
}
# report_of FILE [FLAGS...]: the same for any rendered stream.
report_of() {
    local f=$1
    shift
    findings_of "$f" | argus-report "$@"
}
# edited NAME SED-SCRIPT: the fixture with its JSON lines edited, in $T.
T="$BATS_TEST_TMPDIR/edited.jsonl"
edited() {
    sed "$2" "fixtures/report/$1-findings.jsonl" > "$T"
}

@test "SPIN-CLASS, SPIN-PATH, SIM-MATCH, DIFF-CULPRIT: the demo's report, as expected" {
    run report demo
    assert_success
    assert_output "$(cat fixtures/report/demo-findings.expected.txt)"
}

@test "the verdict opens the report: hung thread, wait, chain's end, UI event, culprit" {
    run report demo
    assert_success
    assert_line --index 0 "Verdict: App/main [1001] was blocked 3.199 s in mach_msg receive on 0x5207, waiting on"
    assert_line --index 1 "syncd/net [2002] (through 1 other thread), which was blocked 3.199 s in soreceive on 0x9c00 until"
    assert_line --index 2 "an interrupt (I/O) ended it; the keyDown at 0.001 s started it. Culprit: syncd/net [2002], the"
    assert_line --index 3 "thread at the end of that wait."
    assert_line --index 4 "Baseline: compared with demo-base.cbor, a normal run."
    # without argus-similar's stage in the header: no baseline, said so
    grep -v '^#' fixtures/report/demo-findings.jsonl |
        jq -c 'if .type == "stream" then .stages |= map(select(startswith("similar") | not)) else . end' > "$T"
    run report_of "$T"
    assert_line --index 4 "Baseline: none given (--baseline), so the culprits are named from this trace alone."
}

@test "--verbose adds a details section per hang in the paper's terms" {
    run report demo -v
    assert_success
    assert_output "$(cat fixtures/report/demo-findings.verbose.txt)"
    # the plain report is its start
    plain=$(cat fixtures/report/demo-findings.expected.txt)
    [ "${output:0:${#plain}}" = "$plain" ]
    run report demo
    refute_output --partial "Details"
}

@test "SPIN-CLASS: a wait hang says how long, in what wait on what, and how it ended" {
    run report demo
    assert_success
    assert_line "  When:      0.001 s to 3.200 s (3.199 s)"
    assert_line "  Class:     wait - blocked 3.199 s in mach_msg receive on 0x5207, then woken"
}

@test "SPIN-INDICATOR: the spinning cursor is named with its time, event and thread" {
    run report demo
    assert_success
    assert_line "  Found by:  spinning cursor, CGSConnectionSetSpinning at 2.001 s (event 12 on"
    assert_line "             App/NSEventThread [1002])"
}

@test "SPIN-PATH: the wait chain names each link, its waker, and how it ends" {
    run report demo
    assert_success
    assert_line "    1. App/main [1001]: blocked 3.199 s in mach_msg receive on 0x5207"
    assert_line "    2. syncd/main [2001], which woke 1: blocked 3.199 s in psynch_cvwait on 0x6a10"
    assert_line "    3. syncd/net [2002], which woke 2: blocked 3.199 s in soreceive on 0x9c00"
    assert_line "    Ends: an interrupt (I/O) ended the last wait, not another thread."
    # --verbose: with the segment ids and the chain's end as find-spinning names it
    run report demo -v
    assert_line "    1. App/main [1001], seg 1: blocked 3.199 s in mach_msg receive on 0x5207"
    assert_line "    2. syncd/main [2001], which woke 1: blocked 3.199 s in psynch_cvwait on 0x6a10"
    assert_line "    Ends: io, an interrupt (I/O) ended the last wait, not another thread."
}

# chain_of TRACE [FLAGS...]: "What it waits on" of the report of TRACE,
# from the graph through find-spinning (a chain with each link's since and
# until, as find-spinning writes it)
chain_of() {
    local t=$1
    shift
    argus graph "$t" | argus-find-spinning | argus-report "$@" | sed -n '/What it waits on/,/Ends:/p'
}

@test "SPIN-PATH, IPC-MSG: a chain hop an ipc edge explains names the message" {
    run chain_of fixtures/demo/hang.jsonl
    assert_success
    assert_output "  What it waits on:
    1. App/main [1001]: blocked 3.199 s in mach_msg receive on 0x5207
    2. syncd/main [2001], which sent 1 a message (msg_id 4342): blocked 3.199 s in psynch_cvwait
       on 0x6a10
    3. syncd/net [2002], which woke 2: blocked 3.199 s in soreceive on 0x9c00
    Ends: an interrupt (I/O) ended the last wait, not another thread."
    run chain_of fixtures/demo/hang.jsonl --format markdown
    assert_success
    assert_line '2. syncd/main [2001], which sent 1 a message (msg_id 4342): blocked 3.199 s in `psynch_cvwait` on'
    assert_line '   `0x6a10`'
}

@test "SPIN-PATH, IPC-MSG: no message is named where the ipc edge explains no wakeup" {
    local t="$BATS_TEST_TMPDIR/hop.jsonl"
    # the reply sent by App's own NSEventThread: syncd main still woke App
    sed 's/"ts":3200300000,"tid":2001,"dir":"send"/"ts":3200300000,"tid":1002,"dir":"send"/' \
        fixtures/demo/hang.jsonl > "$t"
    run chain_of "$t"
    assert_line "    2. syncd/main [2001], which woke 1: blocked 3.199 s in psynch_cvwait on 0x6a10"
    # the reply sent at 1.205 ms, before App's wait (1.210 ms): the edge is
    # there, the message was waiting before App did
    sed -e '/"ts":3200300000,"tid":2001,"dir":"send"/d' \
        -e '/"ts":1200000,"tid":1001,"dir":"send"/a {"type":"ipc","ts":1205000,"tid":2001,"dir":"send","port":"0x5207","msg":"0xffffff80a1b2d000","msg_id":4342,"peer":100}' \
        fixtures/demo/hang.jsonl > "$t"
    run sh -c "argus graph '$t' | argus-to-json | jq -c 'select(.type == \"edge\" and .kind == \"ipc\")'"
    assert_output '{"type":"edge","kind":"ipc","from":3,"to":6}
{"type":"edge","kind":"ipc","from":4,"to":23}'
    run chain_of "$t"
    assert_line "    2. syncd/main [2001], which woke 1: blocked 3.199 s in psynch_cvwait on 0x6a10"
    # once woken, App first reads a message of its own NSEventThread, then
    # syncd's reply
    sed '/"ts":3200310000,"tid":2001,"target":1001/a {"type":"ipc","ts":3200320000,"tid":1002,"dir":"send","port":"0x6003","msg":"0xffffff80a1b2e000","msg_id":77,"peer":100}\n{"type":"ipc","ts":3200350000,"tid":1001,"dir":"recv","port":"0x6003","msg":"0xffffff80a1b2e000","msg_id":77,"peer":100}' \
        fixtures/demo/hang.jsonl > "$t"
    run chain_of "$t"
    assert_line "    2. syncd/main [2001], which woke 1: blocked 3.199 s in psynch_cvwait on 0x6a10"
}

@test "SPIN-PATH: a path segment shows its frames, its IPC peer by name, its wait" {
    run report demo
    assert_success
    assert_line "    App/main [1001]  0.001..3.200 s (hang): input keyDown; backtrace -[Document save:] <"
    assert_line "        -[SyncClient fetch] < mach_msg; send msg_id 4242 -> syncd(200); wait mach_msg receive on"
    run report demo -v
    assert_line "    seg 1  App/main [1001]  0.001..3.200 s (hang): ui keyDown; backtrace -[Document save:] <"
}

@test "DIFF-CULPRIT: culprits in rank order, the root marked, with their waits" {
    run report demo
    assert_success
    assert_line "    1. syncd/net [2002] (the root cause): blocked 3.199 s in soreceive on 0x9c00 (0.002 s to"
    assert_line "       in the baseline it handed the work on by waking the next thread; here that never came"
    refute_output --partial "baseline seg"
    run report demo -v
    assert_success
    assert_line "    1. root: syncd/net [2002], seg 3: blocked 3.199 s in soreceive on 0x9c00 (0.002 s to 3.200 s)"
    assert_line "       baseline seg 5, missing edge: wakeup, depth 0, branch 1"
    assert_line "    2. syncd/main [2001], seg 2: blocked 3.199 s in psynch_cvwait on 0x6a10 (0.001 s to 3.200 s),"
    assert_line "       waiting on syncd/net [2002]"
    assert_line --partial "       evidence: in the baseline it acted at +0.002 s"
}

@test "SIM-MATCH, DIFF-ASK: --verbose shows the similar node and branch points" {
    run report demo
    refute_output --partial "Similar node"
    refute_output --partial "Branch points"
    run report demo -v
    assert_success
    assert_line "    Seg 1 of demo-base.cbor (rank 1 of 1): 0 edits between signatures of 3 and 3 elements (0%)."
    assert_line "    at baseline seg 6, the path goes on from seg 5 or seg 2; every branch reported"
}

@test "--format markdown: the same findings with headings, a table and code spans" {
    run report demo --format markdown
    assert_success
    assert_output "$(cat fixtures/report/demo-findings.expected.md)"
}

@test "--format text is the default" {
    run report demo --format text
    assert_success
    assert_output "$(cat fixtures/report/demo-findings.expected.txt)"
}

@test "SPIN-CLASS, SPIN-PATH: a busy hang's report, with --verbose's other ranks" {
    run report busy
    assert_success
    assert_output "$(cat fixtures/report/busy-findings.expected.txt)"
    assert_line "  Class:     busy - ran 2.400 s without blocking (45 events)"
    assert_line "      -> ipc"
    refute_output --partial "rank 2"
    run report busy -v
    assert_line "      -> ipc, event 3 -> 5"
    assert_line "      rank 2, score -2, complete (keyDown): seg 1 -ipc-> seg 2 -ipc-> seg 3"
}

@test "SPIN-PATH: repeated syscalls read as one with their count" {
    run report busy
    assert_success
    assert_line "        -[NSApplication sendEvent:]; pread ×10; pwrite ×10; wait mach_msg receive on 0x1503 (not"
}

@test "SPIN-PATH: a busy hang's report leaves out the wait chain of its last wait" {
    run grep -c '"type":"wait_chain"' fixtures/report/busy-findings.jsonl
    assert_output 1
    run report busy
    assert_success
    refute_output --partial "What it waits on"
}

@test "--format markdown: a busy hang's path is a table, a row per segment" {
    run report busy --format markdown
    assert_success
    assert_output "$(cat fixtures/report/busy-findings.expected.md)"
    assert_line '| thread | time | key events | next edge |'
    assert_line --partial '| pboard/main [4001] | 0.500..0.501 s | recv msg_id 9001 <- TextEdit(300); `read`;'
    run report busy --format markdown -v
    assert_line '| seg | thread | time | key events | next edge |'
    assert_line --partial '| 2 | pboard/main [4001] | 0.500..0.501 s | recv msg_id 9001 <- TextEdit(300); `read`;'
}

@test "SPIN-CLASS, SPIN-INDICATOR: a yield hang counts its yields, names the flag" {
    run report yield
    assert_success
    assert_output "$(cat fixtures/report/yield-findings.expected.txt)"
    assert_line "  Class:     yield - yield loop: 60 of 64 events are yields, over 2.360 s"
    assert_line --partial "  Found by:  spinning-cursor flag sCGEventIsMainThreadSpinning set at 2.200 s"
}

@test "SPIN-HANG: a hang found by --hang names the limit given, from the stages" {
    argus graph fixtures/real/pipe-full/hang.txt.gz > "$BATS_TEST_TMPDIR/g"
    run sh -c "argus-find-spinning --hang 300 '$BATS_TEST_TMPDIR/g' | argus-report"
    assert_success
    assert_line "  Found by:  a main thread blocked or busy past --hang's 300 ms, crossed at 1001.318239 s"
    run sh -c "argus-find-spinning '$BATS_TEST_TMPDIR/g' | argus-report | grep -c 'the default limit (500 ms'"
    assert_output 10
}

@test "SPIN-HANG: a hang found by the default limit says which and when it was crossed" {
    edited busy 's/"indicator":"CGSConnectionSetSpinning","at":2501200000,"event":48,/"indicator":"hang","at":751100000,/'
    run sh -c "grep -c '\"indicator\":\"hang\"' '$T'"
    assert_output 1
    run report_of "$T"
    assert_success
    assert_line "  Found by:  a main thread blocked or busy past the default limit (500 ms; 2 s for GUI programs"
    assert_line "             when a GUI main loop is seen; --hang MS sets it), crossed at 0.751 s (250.0 ms into"
}

@test "SPIN-PATH: a hang without path records says that no path was recorded" {
    edited yield '/"type":"path"/d'
    run report_of "$T"
    assert_success
    assert_line "    None found: no causal path was recorded."
    assert_line "    None recorded."
}

@test "text lines stay under 100 columns" {
    for n in demo busy yield; do
        run report "$n"
        assert_success
        # bytes, so an upper bound of columns (× is two bytes)
        run sh -c "LC_ALL=C awk 'length > 99' fixtures/report/$n-findings.expected.txt"
        assert_output ""
    done
}

@test "no hang record: 'no hang found' and a one-line summary of the trace, exit 0" {
    run sh -c "argus graph fixtures/demo/hang.jsonl | argus-report"
    assert_success
    assert_output "no hang found
Trace: 5 threads in 3 processes, 8 segments, 24 events, 0.001 s to 3.201 s (3.200 s), times in
seconds from the trace's zero."
    run sh -c "argus graph fixtures/demo/hang.jsonl | argus-report --format markdown"
    assert_success
    assert_output "# No hang found

Trace: 5 threads in 3 processes, 8 segments, 24 events, 0.001 s to 3.201 s (3.200 s), times in
seconds from the trace's zero."
}

@test "the stream can be given as a FILE" {
    findings demo > "$BATS_TEST_TMPDIR/demo.cbor"
    run argus-report "$BATS_TEST_TMPDIR/demo.cbor"
    assert_success
    assert_output "$(cat fixtures/report/demo-findings.expected.txt)"
}

@test "each findings fixture's graph is what argus graph makes of its trace today" {
    for pair in demo:fixtures/demo/hang.jsonl busy:fixtures/report/busy-paste.jsonl \
                yield:fixtures/report/yield-poll.jsonl; do
        run sh -c "argus graph ${pair#*:} | argus-to-json | tail -n +2"
        assert_success
        expected=$output
        run sh -c "grep -v '^#' fixtures/report/${pair%%:*}-findings.jsonl | tail -n +2 |
                   grep -v '\"type\":\"\\(hang\\|path\\|wait_chain\\|match\\|culprit\\|branch\\)\"'"
        assert_output "$expected"
    done
}

@test "bad input: events without seg (not a graph) exit 65 naming the record" {
    run sh -c "argus-decode fixtures/demo/hang.jsonl | argus-report"
    assert_failure 65
    assert_output "argus-report: <stdin>: record 7 (byte 352): event 1 has no seg: run argus-segment (argus graph) before the analysis"
}

@test "bad input: a hang record naming a segment not in the graph exits 65" {
    edited yield 's/"type":"hang","hang":0,"seg":1,/"type":"hang","hang":0,"seg":99,/'
    run report_of "$T"
    assert_failure 65
    assert_output "argus-report: <stdin>: record 73: hang record: hang 0: seg 99 is not in the graph"
}

@test "bad input: a path record whose segs is not an array of uints exits 65" {
    edited yield 's/"segs":\[1\]/"segs":"1"/'
    run report_of "$T"
    assert_failure 65
    assert_output "argus-report: <stdin>: record 74: path record: \"segs\" is not an array of unsigned integers"
}

@test "bad input: not a stream exits 65; a missing file 66" {
    run sh -c "echo garbage | argus-report"
    assert_failure 65
    assert_output --partial "argus-report: <stdin>: record 1 (byte 0): "
    run argus-report fixtures/report/no-such.cbor
    assert_failure 66
    assert_output "argus-report: fixtures/report/no-such.cbor: No such file or directory"
}

@test "an unknown --format or option, or two files, exit 64; --help exits 0" {
    run argus-report --format html
    assert_failure 64
    assert_line "argus-report: --output-format: unknown format 'html' (text or markdown)"
    run argus-report --no-such-flag
    assert_failure 64
    run argus-report a b
    assert_failure 64
    assert_line "argus-report: more than one input file"
    run argus-report --help
    assert_success
    assert_line "Usage: argus-report [--output-format text|markdown] [-v] [FILE|-]"
}

@test "--output-format names the report's format; --format is the same" {
    argus graph fixtures/demo/hang.jsonl | argus find-spinning > "$BATS_TEST_TMPDIR/f.graph"
    run argus-report --output-format markdown "$BATS_TEST_TMPDIR/f.graph"
    assert_success
    assert_line --regexp '^#'
    md=$output
    run argus-report --format markdown "$BATS_TEST_TMPDIR/f.graph"
    assert_equal "$output" "$md"
    run argus-report --output-format text "$BATS_TEST_TMPDIR/f.graph"
    refute_line --regexp '^#'
}

@test "a main thread named as its process shows as PROC/main; others keep their name" {
    edited demo 's/"tid":1001,"pid":100,"proc":"App","name":"main"/"tid":1001,"pid":100,"proc":"App","name":"App"/; s/"tid":2001,"pid":200,"proc":"syncd","name":"main","main":true/"tid":2001,"pid":200,"proc":"syncd","name":"syncd"/'
    run report_of "$T"
    assert_success
    assert_line "Hang 0: App/main [1001] (pid 100)"
    assert_line --partial "2. syncd/syncd [2001], which woke 1"
}

# ---- what a file descriptor is (argus-decode's DEC-FD on the wait) ----------

# fd_verdict FILE [ARGS...]: the first verdict paragraph of argus diagnose
# --proc webd on FILE (a hand-written ftrace of fixtures/ftrace), on one line
fd_verdict() {
    local f=$1
    shift
    argus diagnose --proc webd "$@" "$f" | awk '/^(\*\*)?Verdict/ { on = 1 }
        on && (/^$/ || /^(\*\*)?Baseline/) { exit }
        on { printf "%s%s", (n++ ? " " : ""), $0 } END { print "" }'
}

@test "DEC-FD: an accepted connection's reader: the report says which fd and when" {
    run fd_verdict fixtures/ftrace/fd-accept.txt
    assert_output "Verdict: webd/main [5000] was blocked 2.000 s in read on fd 5 (a connection it accepted on fd 3 at 100.000020 s), waiting on slowcli/main [6000], which slept 2.000 s in clock_nanosleep; no UI event was found that led to it. Culprit: slowcli/main [6000], the thread at the end of that wait."
    run argus diagnose --proc webd fixtures/ftrace/fd-accept.txt
    assert_line "  Class:     wait - blocked 2.000 s in read on fd 5 (a connection it accepted on fd 3 at"
    assert_line "             100.000020 s), then woken"
    assert_line "    1. webd/main [5000]: blocked 2.000 s in read on fd 5 (a connection it accepted on fd 3 at"
    assert_line "       100.000020 s)"
    # the path's key event stays short
    assert_line "    webd/main [5000]  100.000020..102.000120 s (hang): accept4; read; wait read on fd 5 (2.000 s)"
    # that moment is the accept4 line's, the one that names the listening fd
    run grep -c ' 100\.000020: sys_enter_accept4: fd: 0x00000003' fixtures/ftrace/fd-accept.txt
    assert_output 1
}

@test "DEC-FD: the same fd words in markdown and in the HTML page's verdict" {
    run fd_verdict fixtures/ftrace/fd-accept.txt --output-format markdown
    assert_output "**Verdict:** webd/main [5000] was blocked 2.000 s in \`read\` on fd 5 (a connection it accepted on fd 3 at 100.000020 s), waiting on slowcli/main [6000], which slept 2.000 s in \`clock_nanosleep\`; no UI event was found that led to it. **Culprit:** slowcli/main [6000], the thread at the end of that wait."
    argus diagnose --proc webd --html "$BATS_TEST_TMPDIR/fd.html" fixtures/ftrace/fd-accept.txt > /dev/null
    run grep -c 'blocked 2.000 s in read on fd 5 (a connection it accepted on fd 3 at 100.000020 s), waiting on' "$BATS_TEST_TMPDIR/fd.html"
    refute_output 0
}

@test "DEC-FD: an fd of unknown origin, or closed since, is 'fd 5' alone" {
    run fd_verdict fixtures/ftrace/fd-unknown.txt
    assert_output "Verdict: webd/main [5000] was blocked 2.000 s in read on fd 5, waiting on slowcli/main [6000], which slept 2.000 s in clock_nanosleep; no UI event was found that led to it. Culprit: slowcli/main [6000], the thread at the end of that wait."
    run fd_verdict fixtures/ftrace/fd-closed.txt
    assert_output "Verdict: webd/main [5000] was blocked 2.000 s in read on fd 5, waiting on slowcli/main [6000], which slept 2.000 s in clock_nanosleep; no UI event was found that led to it. Culprit: slowcli/main [6000], the thread at the end of that wait."
    run sh -c "argus diagnose --proc webd fixtures/ftrace/fd-closed.txt | grep -c 'accepted'"
    assert_output 0
}

@test "DEC-FD: an fd named by another thread, connect_started and flock in words" {
    argus-decode fixtures/ftrace/fd-accept.txt | argus-to-json |
        sed 's/"fd_origin_tid":5000/"fd_origin_tid":5001/; 1a {"type":"thread","tid":5001,"pid":5000,"proc":"webd","name":"acceptor"}' > "$T"
    run fd_verdict "$T"
    assert_output --partial "was blocked 2.000 s in read on fd 5 (a connection webd/acceptor [5001] accepted on fd 3 at 100.000020 s), waiting on"
    argus-decode fixtures/ftrace/fd-accept.txt | argus-to-json | sed 's/"fd_origin":"accept"/"fd_origin":"connect_started"/' > "$T"
    run fd_verdict "$T"
    assert_output --partial "was blocked 2.000 s in read on fd 5 (a socket it began to connect at 100.000020 s), waiting on"
    argus-decode fixtures/ftrace/fd-accept.txt | argus-to-json | sed 's/"fd_origin":"accept"/"fd_origin":"flock"/' > "$T"
    run fd_verdict "$T"
    assert_output --partial "was blocked 2.000 s in read on fd 5 (a file it locked at 100.000020 s), waiting on"
    argus-decode fixtures/ftrace/fd-accept.txt | argus-to-json | sed 's/"fd_origin":"accept"/"fd_origin":"inherited"/' > "$T"
    run fd_verdict "$T"
    assert_output --partial "was blocked 2.000 s in read on fd 5, waiting on"
}

