#!/usr/bin/env bats
# The pipeline mutation test (tests/tools/mutation-run): fixture and bench
# streams mutated (tests/tools/mutate-stream) through every program. A
# program given a broken stream says so with 65 and the place, or gets on
# with what it can use; it never crashes, hangs, fails an I/O it did not
# have, or leaves a broken stream behind. ARGUS_MUTANTS sets how many
# mutants (60 by default, 24 on the sanitizer build, where a program runs
# eight times slower), ARGUS_MUTATION_SEED which ones.

load test_helper

setup() {
    tmp=$(mktemp -d)
}

teardown() {
    rm -rf "$tmp"
}

mutants() {
    if [ -n "${ARGUS_MUTANTS:-}" ]; then
        echo "$ARGUS_MUTANTS"
    elif grep -q __asan_init "$ARGUS_BIN/argus-validate"; then
        echo 24
    else
        echo 60
    fi
}

@test "mutated streams through every program: no sanitizer report, 0 or 65" {
    run tests/tools/mutation-run --seed "${ARGUS_MUTATION_SEED:-1}" --count "$(mutants)" \
        --keep "$tmp/failed"
    echo "$output" | head -40
    assert_success
    assert_line --regexp "^$(mutants) mutants, 25 programs each, 0 failures$"
}

@test "mutants are the same bytes for the same seed, other bytes for another seed" {
    argus-decode --format jsonl fixtures/demo/hang.jsonl >"$tmp/hang.cbor"
    tests/tools/mutate-stream --seed 5 --count 40 --out "$tmp/a" "$tmp/hang.cbor"
    tests/tools/mutate-stream --seed 5 --count 40 --out "$tmp/b" "$tmp/hang.cbor"
    tests/tools/mutate-stream --seed 6 --count 40 --out "$tmp/c" "$tmp/hang.cbor"
    [ "$(ls "$tmp/a" | wc -l)" -eq 40 ]
    diff -r "$tmp/a" "$tmp/b"
    run diff -rq "$tmp/a" "$tmp/c"
    assert_failure
    # every kind of mutation is made
    tests/tools/mutate-stream --seed 1 --count 100 --out "$tmp/all" "$tmp/hang.cbor"
    for kind in flip truncate dup reorder drop splice huge-count huge-value \
                retype deep utf8 id-gap combo; do
        ls "$tmp/all" | grep -q "\.$kind\$"
    done
}

# The checks can fail: a program that leaves half a record behind, or
# says 74, is caught.
fake_bin() {
    rm -rf "$tmp/bin"; mkdir -p "$tmp/bin"
    for p in "$ARGUS_BIN"/argus*; do
        ln -s "$p" "$tmp/bin/$(basename "$p")"
    done
    rm "$tmp/bin/argus-segment"
    printf '#!/bin/sh\n%s\n' "$1" >"$tmp/bin/argus-segment"
    chmod +x "$tmp/bin/argus-segment"
}

@test "the mutation test catches a stage that leaves half a record behind on error" {
    fake_bin "head -c 40 \"\$1\"; echo \"argus-segment: \$1: record 2 (byte 40): bad\" >&2; exit 65"
    ARGUS_BIN="$tmp/bin" run tests/tools/mutation-run --count 3 --fixtures 1
    assert_failure
    assert_output --regexp "FAIL [^ ]+ segment: status 65, output not a valid stream"
}

@test "the mutation test catches exit 74 on bad input, or 65 without the place" {
    fake_bin 'echo "argus-segment: out of memory" >&2; exit 74'
    ARGUS_BIN="$tmp/bin" run tests/tools/mutation-run --count 2 --fixtures 1
    assert_failure
    assert_output --regexp "FAIL [^ ]+ segment: status 74: argus-segment: out of memory"
    fake_bin 'echo "argus-segment: bad record" >&2; exit 65'
    ARGUS_BIN="$tmp/bin" run tests/tools/mutation-run --count 2 --fixtures 1
    assert_failure
    assert_output --partial "segment: 65 without one line naming the file"
}

@test "the mutation test catches a stage that hangs" {
    fake_bin 'sleep 30'
    ARGUS_BIN="$tmp/bin" run tests/tools/mutation-run --count 1 --fixtures 1 --timeout 1
    assert_failure
    assert_output --regexp "FAIL [^ ]+ segment: no end within 1 s"
}
