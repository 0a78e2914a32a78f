#!/usr/bin/env bats
# scripts/sweep.sh (make sweep, make check): that it passes the programs
# on a trace, and that it fails on each kind of crash it looks for, with
# the command and the messages. The programs that crash here are stand-ins
# (a copy of ARGUS_BIN with argus-analyze or argus-export replaced).

load test_helper

setup() {
    tmp=$(mktemp -d)
    mkdir "$tmp/bin"
    cp "$ARGUS_BIN"/argus* "$tmp/bin/"
}

teardown() {
    rm -rf "$tmp"
}

# stand_in PROGRAM SCRIPT: replaces PROGRAM in the copy with a shell script
stand_in() {
    printf '#!/bin/sh\n%s\n' "$2" > "$tmp/bin/$1"
    chmod +x "$tmp/bin/$1"
}

@test "sweep: the demo's hang, whole and cut, passes graph, diagnose and export" {
    ARGUS_BIN=$ARGUS_BIN run scripts/sweep.sh fixtures/demo/hang.jsonl
    assert_success
    assert_output --partial "sweep: 1 traces, 3 cases"
    assert_output --partial "sweep: 3 cases, no crash"
}

@test "sweep: a program killed by a signal fails it, naming command and input" {
    stand_in argus-analyze 'kill -SEGV $$'
    TMPDIR=$tmp SWEEP_CUTS=0 ARGUS_BIN=$tmp/bin run scripts/sweep.sh fixtures/demo/hang.jsonl
    assert_failure 1
    assert_output --partial "FAIL: killed by signal 11: argus diagnose"
    assert_output --partial "input: fixtures/demo/hang.jsonl (whole)"
    assert_output --regexp "sweep: [0-9]+ failures in 1 cases"
}

@test "sweep: a sanitizer's report fails it whatever the exit status" {
    stand_in argus-export 'echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow" >&2; exit 1'
    TMPDIR=$tmp SWEEP_CUTS=0 ARGUS_BIN=$tmp/bin run scripts/sweep.sh fixtures/demo/hang.jsonl
    assert_failure 1
    assert_output --partial "FAIL: sanitizer report: argus export --output-format"
    assert_output --partial "ERROR: AddressSanitizer: heap-buffer-overflow"
}

@test "sweep: an exit status the spec does not give (70, 74) fails the sweep" {
    stand_in argus-export 'exit 74'
    TMPDIR=$tmp SWEEP_CUTS=0 ARGUS_BIN=$tmp/bin run scripts/sweep.sh fixtures/demo/hang.jsonl
    assert_failure 1
    assert_output --partial "FAIL: exit status 74 (allowed: 0 1 65): argus export"
}

@test "sweep: exit 65 with more than one line of messages fails it" {
    stand_in argus-export 'echo "argus-export: x: record 2 (byte 9): bad" >&2; echo more >&2; exit 65'
    TMPDIR=$tmp SWEEP_CUTS=0 ARGUS_BIN=$tmp/bin run scripts/sweep.sh fixtures/demo/hang.jsonl
    assert_failure 1
    assert_output --partial "FAIL: exit 65 without one line PROGRAM: WHERE: what: argus export"
}
