#!/usr/bin/env bats
# The argus front command and the build's install and clean.

load test_helper

@test "argus STAGE runs argus-STAGE with its arguments" {
    run sh -c 'argus decode fixtures/demo/hang.jsonl | argus validate -q && echo fine'
    assert_success
    assert_output "fine"
}

@test "argus help lists the stages with their summaries" {
    run argus help
    assert_success
    assert_line --partial "decode"
    assert_line --partial "to-json"
    assert_line --partial "validate           Check an argus event stream against the contract and summarize it."
    # a usage that takes several lines: the summary is the line after them
    assert_line "  diff               Name each hang's culprits against its similar node in a baseline graph."
    assert_line "  analyze            Find the hangs of a graph, their culprits against a baseline, and print the report."
}

@test "argus with an unknown stage exits 64" {
    run argus frobnicate
    assert_failure 64
    assert_output "argus: no stage 'frobnicate' (argus help lists them)"
}

@test "every program answers --version" {
    for p in decode to-json validate; do
        run "argus-$p" --version
        assert_success
        assert_output "argus-$p 0.1.0"
    done
}

@test "make install puts argus-* programs, argus and the docs under DESTDIR/PREFIX" {
    run make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    assert_success
    for p in argus argus-decode argus-to-json argus-validate; do
        [ -x "$BATS_TEST_TMPDIR/root/opt/argus/bin/$p" ]
    done
    [ -f "$BATS_TEST_TMPDIR/root/opt/argus/share/doc/argus/stream-format.md" ]
    [ -f "$BATS_TEST_TMPDIR/root/opt/argus/share/doc/argus/stages/decode.md" ]
    run "$BATS_TEST_TMPDIR/root/opt/argus/bin/argus" decode --version
    assert_success
    assert_output "argus-decode 0.1.0"
}
