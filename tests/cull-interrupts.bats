#!/usr/bin/env bats
# argus-cull-interrupts: CULL-1, CULL-2, CULL-3.

load test_helper

cull() { argus-decode fixtures/graph/cull-windows.jsonl | argus-cull-interrupts "$@"; }

@test "CULL-1 CULL-3: interrupt and maintenance windows marked, nesting counted, lone end marked, open begin closed by a wait" {
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

@test "CULL-2: --drop removes the windows, the wakeup inside included, and keeps the rest" {
    run sh -c "$(declare -f cull); cull --drop | argus-to-json | jq -c 'select(.id) | .id' | tr '\n' ' '"
    assert_success
    assert_output "1 5 14 17 "
}

@test "CULL-1: the header lists the stage and every other record passes through unchanged" {
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
    assert_line --index 0 "Usage: argus-cull-interrupts [--drop] [-v] [FILE|-]"
    for rule in CULL-1 CULL-2 CULL-3 --drop --verbose; do
        assert_output --partial "$rule"
    done
}
