#!/usr/bin/env bats
# The findings module (lib/analysis/findings.c): each analysis record kind
# of docs/stream-format.md's "Analysis records" has one struct, one writer
# and one reader. build/tests/findings-roundtrip reads every such record
# of a stream into its struct and writes it again: the stream must come
# out byte for byte, so that a field the writer puts and the reader does
# not take (or the other way) fails here.

load test_helper

TMP="$BATS_TEST_TMPDIR"
ROUNDTRIP="$ARGUS_ROOT/build/tests/findings-roundtrip"

setup() {
    [ -x "$ROUNDTRIP" ] || skip "no $ROUNDTRIP (make all builds it)"
}

# findings NAME: the findings stream of fixtures/real/NAME against its
# normal run, as argus diagnose keeps it, in $TMP/NAME.findings.
findings() {
    argus graph "fixtures/real/$1/hang.txt.gz" > "$TMP/$1.graph"
    argus graph "fixtures/real/$1/normal.txt.gz" > "$TMP/$1.base"
    argus-analyze --baseline "$TMP/$1.base" --baseline-name normal \
        --keep "$TMP/$1.findings" "$TMP/$1.graph" > /dev/null
}

@test "Analysis records: 8 kinds from 3 real recordings round-trip byte for byte" {
    for s in cond-var cpu-quota pipe-full; do
        findings "$s"
        "$ROUNDTRIP" "$TMP/$s.findings" > "$TMP/$s.again"
        cmp "$TMP/$s.findings" "$TMP/$s.again"
        run sh -c "'$ROUNDTRIP' -k '$TMP/$s.findings' | sort -u | tr '\n' ' '"
        assert_output "branch critical_path culprit hang match no_match path wait_chain "
    done
}

@test "Analysis records: hand-written report fixtures round-trip byte for byte" {
    for f in demo-findings busy-findings yield-findings; do
        argus decode "fixtures/report/$f.jsonl" > "$TMP/$f.cbor"
        "$ROUNDTRIP" "$TMP/$f.cbor" > "$TMP/$f.again"
        cmp "$TMP/$f.cbor" "$TMP/$f.again"
    done
}

# one RECORD: a stream of the header and RECORD (a JSON object) in $TMP/one.
one() {
    printf '{"type":"stream","format":"argus","version":1,"source":"test","stages":[]}\n%s\n' "$1" |
        argus decode --format jsonl > "$TMP/one"
}

@test "Analysis records: a record lacking a needed field is refused, the field named" {
    one '{"type":"hang","hang":0,"begin":1}'
    run "$ROUNDTRIP" "$TMP/one"
    assert_failure 65
    assert_output --regexp 'record 2 \(byte [0-9]+\): hang record: "seg" is missing or not an unsigned integer$'
    one '{"type":"path","hang":0,"segs":["a"]}'
    run "$ROUNDTRIP" "$TMP/one"
    assert_failure 65
    assert_output --regexp 'path record: "segs" is not an array of unsigned integers$'
    one '{"type":"culprit","hang":0,"seg":3}'
    run "$ROUNDTRIP" "$TMP/one"
    assert_failure 65
    assert_output --regexp 'culprit record: "tid" is missing or not an unsigned integer$'
    one '{"type":"critical_path","hang":0,"steps":[{"tid":1,"from":2,"to":3}]}'
    run "$ROUNDTRIP" "$TMP/one"
    assert_failure 65
    assert_output --regexp 'critical_path record: step 0 lacks tid, from, to or state$'
}

@test "Analysis records: a field no writer knows is not written again" {
    one '{"type":"match","hang":0,"seg":4,"rank":1,"baseline_seg":9,"distance":0,"percent":0,"size":3,"baseline_size":3,"baseline":"b","colour":"red"}'
    run sh -c "'$ROUNDTRIP' '$TMP/one' | argus-to-json | tail -1"
    assert_success
    assert_output '{"type":"match","hang":0,"seg":4,"rank":1,"baseline_seg":9,"distance":0,"percent":0,"size":3,"baseline_size":3,"baseline":"b"}'
}
