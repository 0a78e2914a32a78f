#!/usr/bin/env bats
# argus-decode --format trace-text: the text macOS trace(1) prints
# (fixtures/kdebug/text-*.txt, described in fixtures/kdebug/README.md).

load test_helper

# A trace(1) event line: ABSTIME DELTA NAME A1 A2 A3 A4 THREAD CPU COMMAND
line() { printf '%13s %10s             %-28s  %-16s %-16s %-16s %-16s  %-16s  %-2s %s\n' "$@"; }

@test "DEC-WOKEN: syscall, wait, wakeup and the switch back as woken; made-up pids" {
    run sh -c 'argus-decode --format trace-text fixtures/kdebug/text-sched.txt | argus-to-json'
    assert_success
    assert_output "$(cat fixtures/kdebug/text-sched.expected.jsonl)"
}

@test "32-bit trace(1) output (%-8lx columns) decodes like the 64-bit one" {
    run sh -c 'argus-decode --format trace-text fixtures/kdebug/text-32bit.txt | argus-to-json'
    assert_success
    assert_output "$(cat fixtures/kdebug/text-32bit.expected.jsonl)"
    # the same events as text-sched.txt, with 32-bit values
    run sh -c 'for f in sched 32bit; do argus-decode fixtures/kdebug/text-$f.txt | argus-to-json | jq -c "select(.id) | [.type, .ts, .phase, .name, .result]"; done | sort | uniq -u'
    assert_output ""
}

@test "names: hex debugids, 28-character cuts, VFS_LOOKUP, unknown names" {
    run sh -c 'argus-decode --format trace-text fixtures/kdebug/text-names.txt | argus-to-json'
    assert_success
    assert_output "$(cat fixtures/kdebug/text-names.expected.jsonl)"
}

@test "exec: the command changes at execve's END: a new thread record; page breaks" {
    run sh -c 'argus-decode --format trace-text fixtures/kdebug/text-exec.txt | argus-to-json'
    assert_success
    assert_output "$(cat fixtures/kdebug/text-exec.expected.jsonl)"
}

@test "auto-detection: trace(1) text is told without --format" {
    run sh -c 'argus-decode fixtures/kdebug/text-sched.txt | argus-to-json | head -1'
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"trace-text","stages":["decode fixtures/kdebug/text-sched.txt"]}'
    run sh -c "$(declare -f line); line 0.0 0.0 BSC_read 5 0 0 0 1c3f5 0 TextEdit | argus-decode | argus-to-json | tail -1"
    assert_output '{"type":"syscall","id":1,"ts":0,"tid":115701,"pid":100000,"cpu":0,"name":"read","phase":"begin","args":[5,0,0,0]}'
}

@test "--codes: a name trace(1) printed is resolved through a codes file, with its type" {
    echo '0x31000010 MyApp_keyDown ui_event' > "$BATS_TEST_TMPDIR/app.codes"
    run sh -c "$(declare -f line); line 0.0 0.0 MyApp_keyDown a 0 0 0 1c3f5 0 TextEdit | argus-decode --format trace-text --codes $BATS_TEST_TMPDIR/app.codes | argus-to-json | tail -1"
    assert_success
    assert_output '{"type":"ui_event","id":1,"ts":0,"tid":115701,"pid":100000,"cpu":0,"kind":"keyDown"}'
}

@test "a field that does not parse exits 65 naming FILE:LINE and the field" {
    { line 0.0 0.0 BSC_read 5 0 0 0 1c3f5 0 TextEdit; line 1.0 1.0 BSC_read zz 0 0 0 1c3f5 0 TextEdit; } > "$BATS_TEST_TMPDIR/bad.txt"
    run sh -c "argus-decode --format trace-text $BATS_TEST_TMPDIR/bad.txt > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.txt:2: arg1 'zz' is not hex"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/out.cbor | jq -c 'select(.id) | [.id, .name, .phase]'"
    assert_output '[1,"read","begin"]'
}

@test "DEC-ORDER: a line later than the window allows exits 65 naming its line" {
    { line 5.0 0.0 BSC_read 1 0 0 0 1c3f5 0 TextEdit; line 9.0 4.0 BSC_read 1 0 0 0 1c3f5 0 TextEdit; line 1.0 0.0 BSC_read 1 0 0 0 1c3f5 0 TextEdit; } > "$BATS_TEST_TMPDIR/late.txt"
    run sh -c "argus-decode --window 1 $BATS_TEST_TMPDIR/late.txt > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/late.txt:3: ts 1000 is before ts 5000 already written (beyond the reorder window of 1 records; try a larger --window)"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/out.cbor | jq -c 'select(.id) | [.id, .ts]' | tr -d '\n'"
    assert_output '[1,0][2,4000]'
    # within the default window the same lines are merged into ts order
    run sh -c "argus-decode $BATS_TEST_TMPDIR/late.txt | argus-to-json | jq -c 'select(.id) | .ts' | tr '\n' ' '"
    assert_output '0 4000 8000 '
}
