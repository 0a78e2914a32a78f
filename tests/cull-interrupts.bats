#!/usr/bin/env bats
# argus-cull-interrupts: CULL-1, CULL-2, CULL-3, CULL-SYSCALL.

load test_helper

cull() { argus-decode fixtures/graph/cull-windows.jsonl | argus-cull-interrupts "$@"; }

@test "CULL-1 CULL-3: interrupt and maintenance windows marked, nesting counted" {
    run sh -c "$(declare -f cull); cull | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/graph/cull-windows.cull-interrupts.expected.jsonl)"
}

@test "CULL-3: -v counts marked events, ends without begin and begins left open" {
    run sh -c "$(declare -f cull); cull -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-cull-interrupts: events marked: 13
argus-cull-interrupts: end without begin: 1
argus-cull-interrupts: begin left open: 1"
}

@test "CULL-2: --drop removes the windows and the wakeups inside, keeps the rest" {
    run sh -c "$(declare -f cull); cull --drop | argus-to-json | jq -c 'select(.id) | .id' | tr '\n' ' '"
    assert_success
    assert_output "1 5 14 17 "
}

@test "CULL-1: the header lists the stage; every other record passes unchanged" {
    run sh -c "$(declare -f cull); cull | argus-to-json | jq -c 'del(.ctx)' > $BATS_TEST_TMPDIR/a; argus-decode fixtures/graph/cull-windows.jsonl | argus-to-json > $BATS_TEST_TMPDIR/b; diff $BATS_TEST_TMPDIR/a $BATS_TEST_TMPDIR/b"
    assert_failure 1
    assert_output '1c1
< {"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/graph/cull-windows.jsonl","cull-interrupts"]}
---
> {"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/graph/cull-windows.jsonl"]}'
}

@test "CULL-1: a rerun replaces ctx in place instead of adding a second one" {
    run sh -c "$(declare -f cull); cull | argus-cull-interrupts | argus-to-json | sed -n 5p"
    assert_success
    assert_output '{"type":"interrupt","id":2,"ts":110,"tid":1,"pid":10,"phase":"begin","irq":33,"ctx":"interrupt"}'
}

@test "--help lists the rules and flags" {
    run argus-cull-interrupts --help
    assert_success
    assert_line --index 0 "Usage: argus-cull-interrupts [--drop] [--no-in-syscall] [-v] [FILE|-]"
    for rule in CULL-1 CULL-2 CULL-3 CULL-SYSCALL --drop --no-in-syscall --verbose; do
        assert_output --partial "$rule"
    done
}

@test "CULL-SYSCALL: a softirq its thread's own syscall ran is not marked" {
    run sh -c "argus-decode fixtures/graph/cull-syscall.jsonl | argus-cull-interrupts | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/graph/cull-syscall.cull-interrupts.expected.jsonl)"
    run sh -c "argus-decode fixtures/graph/cull-syscall.jsonl | argus-cull-interrupts | argus-to-json | jq -c 'select(.ctx) | .id' | tr '\n' ' '"
    assert_output "5 6 11 12 13 "
}

@test "CULL-SYSCALL: so the server's wakeup links to the client's woken" {
    run sh -c "argus graph fixtures/graph/cull-syscall.jsonl | argus-to-json | jq -c 'select(.type == \"edge\")'"
    assert_output '{"type":"edge","kind":"wait","from":1,"to":4,"weak":true}
{"type":"edge","kind":"wakeup","from":4,"to":9}
{"type":"edge","kind":"resume","from":10,"to":14}'
}

@test "CULL-SYSCALL: --no-in-syscall marks those windows; -v counts them" {
    run sh -c "argus-decode fixtures/graph/cull-syscall.jsonl | argus-cull-interrupts --no-in-syscall | argus-to-json | jq -c 'select(.ctx) | .id' | tr '\n' ' '"
    assert_output "3 4 5 6 7 11 12 13 "
    run sh -c "argus-decode fixtures/graph/cull-syscall.jsonl | argus-cull-interrupts -v 2>&1 >/dev/null"
    assert_output "argus-cull-interrupts: softirqs of the thread's own system call (CULL-SYSCALL): 1
argus-cull-interrupts: events marked: 5"
}
