#!/usr/bin/env bats
# argus diagnose: the whole analysis on the scenarios of the published
# evaluation (fixtures/diagnose/README.md), each a baseline and a buggy
# run. Each test asserts the hang found (node, thread, class), the UI event
# its path leads back to, and the culprit (thread and node) ranked first.

bats_require_minimum_version 1.5.0

load test_helper

# diagnose NAME [ARGS...]: argus diagnose on NAME's two runs, keeping the
# findings stream as $BATS_TEST_TMPDIR/findings.
diagnose() {
    local name=$1
    shift
    run argus diagnose --baseline "fixtures/diagnose/$name.base.jsonl" \
        --keep "$BATS_TEST_TMPDIR/findings" "$@" "fixtures/diagnose/$name.bug.jsonl"
}

# The records of TYPE in the findings, reduced to the keys named.
found() {
    argus-to-json "$BATS_TEST_TMPDIR/findings" | jq -c "select(.type == \"$1\") | $2"
}

assert_diagnosis() { # HANG UI CULPRIT: the expected JSON of each
    assert_success
    run found hang '{seg, tid, class}'
    assert_output "$1"
    run found path 'select(.rank == 1) | {complete, ui, ui_kind}'
    assert_output "$2"
    run found culprit 'select(.rank == 1) | {root, tid, proc, thread, seg, state}'
    assert_output "$3"
}

@test "SPIN-CLASS, SPIN-PATH, SIM-MATCH, DIFF-CULPRIT: Sequel Pro's network thread" {
    diagnose sequel-pro
    assert_diagnosis '{"seg":1,"tid":93311,"class":"wait"}' \
        '{"complete":true,"ui":1,"ui_kind":"keyDown"}' \
        '{"root":true,"tid":95104,"proc":"ssh","thread":"network","seg":5,"state":"blocked"}'
    run found wait_chain '{segs, tids, links, "end": .end}'
    assert_output '{"segs":[1,4,5],"tids":[93311,317,95104],"links":["wakeup","wakeup"],"end":"io"}'
    run found culprit 'select(.rank == 2) | {tid, thread, seg, waits_on}'
    assert_output '{"tid":317,"thread":"ssh tunnel io","seg":4,"waits_on":95104}'
}

@test "DIFF-CULPRIT: Installer's culprit is SecurityAgent, whose notice never came" {
    diagnose installer
    assert_diagnosis '{"seg":1,"tid":65501,"class":"wait"}' \
        '{"complete":true,"ui":1,"ui_kind":"mouseDown"}' \
        '{"root":true,"tid":70401,"proc":"SecurityAgent","thread":"main","seg":2,"state":"blocked"}'
    # the buggy trace alone only reaches authd: the baseline names SecurityAgent
    run found wait_chain '{tids, links, "end": .end}'
    assert_output '{"tids":[65501,15101],"links":["ipc"],"end":"no_reply"}'
    run found culprit 'select(.rank == 2) | {tid, proc, seg}'
    assert_output '{"tid":15101,"proc":"authd","seg":4}'
}

@test "SPIN-CLASS, DIFF-CULPRIT: System Preferences' yield loop and missing write" {
    diagnose sysprefs
    assert_diagnosis '{"seg":1,"tid":58803,"class":"yield"}' \
        '{"complete":true,"ui":1,"ui_kind":"mouseDown"}' \
        '{"root":true,"tid":58817,"proc":"System Preferences","thread":"com.apple.root.user-initiated-qos","seg":2,"state":"blocked"}'
    run found culprit '{missing, reason, baseline_seg, evidence}'
    assert_output '{"missing":"flag","reason":"psynch_mutexwait","baseline_seg":2,"evidence":"in the baseline it acted at +0.023 s (flag_write gPaneLoaded = 1, flag edge, baseline seg 2); here it was blocked 2.402 s in psynch_mutexwait from 0.003 s, up to the hang at 2.001 s"}'
}

@test "DIFF-CULPRIT: TextEdit's culprit is the kernel flush thread on the disk" {
    diagnose textedit
    assert_diagnosis '{"seg":1,"tid":47702,"class":"wait"}' \
        '{"complete":true,"ui":1,"ui_kind":"keyDown"}' \
        '{"root":true,"tid":231,"proc":"kernel_task","thread":"apfs flush","seg":4,"state":"blocked"}'
    run found culprit '{reason, duration}'
    assert_output '{"reason":"biowait","duration":3000100000}'
}

@test "SPIN-CLASS, DIFF-CULPRIT: Chromium IME's livelock; the IME thread culprit" {
    diagnose chromium-ime
    assert_diagnosis '{"seg":6,"tid":71601,"class":"wait"}' \
        '{"complete":true,"ui":1,"ui_kind":"keyDown"}' \
        '{"root":true,"tid":75805,"proc":"Chromium Helper","thread":"Chrome_IMEThread","seg":4,"state":"blocked"}'
    run found hang '{result, timeouts}'
    assert_output '{"result":"timed_out","timeouts":2}'
    # the path back to the keyDown goes over the main thread's own timed-out waits
    run found path 'select(.rank == 1) | {segs, edge_kinds}'
    assert_output '{"segs":[1,6],"edge_kinds":["resume"]}'
    # the culprit waits on the hanging browser thread itself: the cycle
    run found culprit 'select(.rank == 1) | .waits_on'
    assert_output '71601'
}

@test "SPIN-CLASS, SPIN-PATH: copy and paste's busy main thread is its own culprit" {
    diagnose copy-paste
    assert_diagnosis '{"seg":2,"tid":38901,"class":"busy"}' \
        '{"complete":true,"ui":1,"ui_kind":"keyDown"}' \
        '{"root":true,"tid":38901,"proc":"Finder","thread":"main","seg":2,"state":"busy"}'
    run found path 'select(.rank == 1) | {segs, edge_from, edge_to, edge_kinds}'
    assert_output '{"segs":[1,2],"edge_from":[5],"edge_to":[6],"edge_kinds":["dispatch"]}'
    run found match '{seg, rank, baseline_seg, distance}'
    assert_output '{"seg":2,"rank":1,"baseline_seg":2,"distance":0}'
}

@test "argus diagnose finds no hang in a normal run: exit 1 and the report says so" {
    run argus diagnose fixtures/diagnose/sequel-pro.base.jsonl
    assert_failure 1
    assert_output --partial 'no hang found'
}

# The demo's chain: App main -> syncd worker (2001, blocked on the net
# thread all along) -> syncd net (2002, 3 s in soreceive until the device
# answered). The worker only handed the work on: it is on the chain, no
# culprit.
@test "DIFF-CULPRIT, DIFF-RELAY: without a baseline, the chain's holders, no relays" {
    run argus diagnose --keep "$BATS_TEST_TMPDIR/findings" fixtures/demo/hang.jsonl
    assert_success
    run found culprit '{rank, root, tid, seg, reason}'
    assert_output '{"rank":1,"root":true,"tid":2002,"seg":3,"reason":"soreceive"}'
    run found wait_chain '.tids'
    assert_output '[1001,2001,2002]'
    run sh -c 'argus graph fixtures/demo/hang.jsonl | argus-find-spinning | argus-diff -v 2>&1 >/dev/null | grep "only relayed"'
    assert_output 'argus-diff: chain links that only relayed, not culprits: 1'
}

@test "argus diagnose prints the hang, the UI event, the path and the culprit" {
    run argus diagnose --baseline fixtures/diagnose/sequel-pro.base.jsonl fixtures/diagnose/sequel-pro.bug.jsonl
    assert_success
    assert_output --partial 'Sequel Pro'
    assert_output --partial 'keyDown'
    assert_output --partial 'network'
    run argus diagnose --format markdown --baseline fixtures/diagnose/sequel-pro.base.jsonl fixtures/diagnose/sequel-pro.bug.jsonl
    assert_success
    assert_line --regexp '^#'
}

@test "SPIN-HANG: argus diagnose gives --hang to find-spinning" {
    # the demo trace without its cursor backtrace
    grep -v CGSConnectionSetSpinning fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/quiet.jsonl"
    run argus diagnose "$BATS_TEST_TMPDIR/quiet.jsonl"
    assert_failure 1
    run argus diagnose --hang 2000 --proc App --keep "$BATS_TEST_TMPDIR/findings" "$BATS_TEST_TMPDIR/quiet.jsonl"
    assert_success
    run found hang '{seg, tid, class, indicator, at}'
    assert_output '{"seg":1,"tid":1001,"class":"wait","indicator":"hang","at":2001210000}'
}

@test "argus diagnose: bad input exits 65 with the failing stage's message alone" {
    printf '{"type":"wait","ts":5,"tid":1}\n{"type":"wait","ts":1,"tid":1}\n' > "$BATS_TEST_TMPDIR/bad.jsonl"
    run argus diagnose "$BATS_TEST_TMPDIR/bad.jsonl"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/bad.jsonl:1: event has no \"pid\" and no thread record gives tid 1 one"
    run argus diagnose --baseline "$BATS_TEST_TMPDIR/bad.jsonl" fixtures/demo/hang.jsonl
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/bad.jsonl:1: event has no \"pid\" and no thread record gives tid 1 one"
    # a binary file: decode's message, not those of the stages left without input
    run argus diagnose /bin/sh
    assert_failure 65
    assert_output "argus diagnose: /bin/sh: an ELF executable or library, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh"
}

@test "argus diagnose: an empty trace or an empty baseline exits 65, saying it is empty" {
    : > "$BATS_TEST_TMPDIR/empty.txt"
    run argus diagnose "$BATS_TEST_TMPDIR/empty.txt"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/empty.txt: empty input: no trace in it (0 bytes)"
    run argus diagnose --baseline "$BATS_TEST_TMPDIR/empty.txt" fixtures/demo/hang.jsonl
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/empty.txt: empty input: no trace in it (0 bytes)"
}

@test "argus diagnose: a trace it cannot open exits 66 with the reason" {
    run argus diagnose fixtures/nonexistent.jsonl
    assert_failure 66
    assert_output 'argus diagnose: fixtures/nonexistent.jsonl: No such file or directory'
    # a directory is read as a CTF trace (docs/inputs/ctf.md): one with none
    # in it cannot be opened as a trace
    run argus diagnose fixtures/demo
    assert_failure 66
    assert_output "argus diagnose: fixtures/demo: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)"
    run argus diagnose --baseline fixtures/demo fixtures/demo/hang.jsonl
    assert_failure 66
    assert_output "argus diagnose: fixtures/demo: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)"
}

@test "argus diagnose: a usage error exits 64 with one line and where help is" {
    run argus diagnose --bogus fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus diagnose: bad option '--bogus'
Try 'argus diagnose --help' for more information."
    run argus diagnose
    assert_failure 64
    assert_output "argus diagnose: no trace given
Try 'argus diagnose --help' for more information."
    run argus diagnose --output-format html fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus diagnose: --output-format must be text or markdown, not 'html'
Try 'argus diagnose --help' for more information."
}

@test "argus diagnose answers --version and -h" {
    run argus diagnose --version
    assert_success
    assert_output "argus 0.1.0"
    run argus diagnose -h
    assert_success
    assert_line --index 0 "Usage: argus diagnose [--baseline BASE_TRACE] [-f FORMAT] [OPTIONS] TRACE"
}

@test "argus diagnose: -f is the trace's format, --output-format the report's" {
    run argus diagnose --format kdebug fixtures/demo/hang.jsonl
    assert_failure 65
    assert_output --partial "argus diagnose: fixtures/demo/hang.jsonl: "
    run argus diagnose -f jsonl fixtures/demo/hang.jsonl
    assert_success
    assert_line --index 0 --partial "Verdict: App/main [1001] was blocked"
    run argus diagnose --trace-format jsonl --output-format markdown fixtures/demo/hang.jsonl
    assert_success
    md=$output
    assert_line --regexp '^#'
    run argus diagnose --format markdown fixtures/demo/hang.jsonl
    assert_success
    assert_equal "$output" "$md"
}

@test "SIM-BASELINE: the report names its baseline; another program's exits 65" {
    run argus diagnose --baseline fixtures/demo/normal.jsonl fixtures/demo/hang.jsonl
    assert_success
    assert_line "Baseline: compared with fixtures/demo/normal.jsonl, a normal run."
    run argus diagnose -v --baseline fixtures/demo/normal.jsonl fixtures/demo/hang.jsonl
    assert_line "    Seg 1 of fixtures/demo/normal.jsonl (rank 1 of 1): 0 edits between signatures of 3 and 3"
    # App's threads there, but nothing of App's done in it: no node like the hang
    local t=$BATS_TEST_TMPDIR/no-app.jsonl
    { grep '"type":"thread"' fixtures/demo/normal.jsonl
      grep -v '^#' fixtures/demo/normal.jsonl | grep -v '"type":"thread"' | grep -v '"tid":300[12]'; } > "$t"
    run argus diagnose --baseline "$t" fixtures/demo/hang.jsonl
    assert_success
    assert_output --partial "Baseline: compared with $t, a normal run. No part of it is
like hang 0, so that hang's culprits are named from this trace alone."
    # another program's run
    run --separate-stderr argus diagnose --baseline fixtures/diagnose/installer.base.jsonl fixtures/demo/hang.jsonl
    assert_failure 65
    assert_output ""
    assert_equal "$stderr" "argus-analyze: fixtures/diagnose/installer.base.jsonl: a baseline of another program: no thread of it is in a process named App, as the hung thread is (its programs: Installer, authd, SecurityAgent)"
    # a program whose name is part of one named before it is named too
    # ("sh" after "bash")
    sed -e 's/"proc":"Installer"/"proc":"bash"/g' -e 's/"proc":"authd"/"proc":"sh"/g' \
        fixtures/diagnose/installer.base.jsonl > "$BATS_TEST_TMPDIR/bash-sh.jsonl"
    run --separate-stderr argus diagnose --baseline "$BATS_TEST_TMPDIR/bash-sh.jsonl" fixtures/demo/hang.jsonl
    assert_failure 65
    assert_equal "$stderr" "argus-analyze: $BATS_TEST_TMPDIR/bash-sh.jsonl: a baseline of another program: no thread of it is in a process named App, as the hung thread is (its programs: bash, sh, SecurityAgent)"
}

@test "DEC-CMDLINE: the report gives the hung process's command line, in both formats" {
    run argus diagnose --hang 250 --proc tool fixtures/spinning/proc-names.jsonl
    assert_success
    assert_line '  Command:   /usr/bin/python3 -u ./tool.py --fast'
    run argus diagnose --hang 250 --proc tool --output-format markdown fixtures/spinning/proc-names.jsonl
    assert_line -- '- **Command:** `/usr/bin/python3 -u ./tool.py --fast`'
    # a trace without command lines: no such line
    run argus diagnose --hang 250 --proc Maps fixtures/spinning/hang-ms.jsonl
    refute_line --partial 'Command:'
}
