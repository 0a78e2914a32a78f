#!/usr/bin/env bats
# argus-decode --format jsonl: hand-written traces and rendered streams.

load test_helper

@test "DEC-WOKEN: synthetic woken with the waker's result; pids from thread records" {
    run sh -c 'argus-decode fixtures/decode/woken.jsonl | argus-to-json'
    assert_success
    assert_output "$(cat fixtures/decode/woken.expected.jsonl)"
}

@test "DEC-ORDER: ids follow output order, synthetic woken included" {
    run sh -c 'argus-decode fixtures/decode/woken.jsonl | argus-to-json | jq -c "select(.id) | [.id, .type]" | tr -d "\n"'
    assert_success
    assert_output '[1,"wait"][2,"wakeup"][3,"woken"][4,"wait"][5,"wakeup"][6,"woken"][7,"syscall"][8,"wait"][9,"woken"][10,"ipc"][11,"wait"]'
}

@test "DEC-ORDER: input out of ts order exits naming the line; records before kept" {
    printf '%s\n' '{"type":"wait","ts":500,"tid":1,"pid":1}' '# comment' \
        '{"type":"wakeup","ts":400,"tid":2,"pid":1,"target":1}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/t.jsonl:3: ts 400 is before ts 500 of line 1: input must be in ts order"
    run argus-validate "$BATS_TEST_TMPDIR/out.cbor"
    assert_success
    assert_output --partial "valid: 2 records, 1 events"
}

@test "hand-written trace: header written, keys reordered, input ids replaced" {
    run sh -c 'echo "{\"name\":\"x\",\"type\":\"syscall\",\"id\":99,\"pid\":4,\"tid\":5,\"ts\":7,\"phase\":\"begin\"}" | argus-decode | argus-to-json'
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode"]}
{"type":"syscall","id":1,"ts":7,"tid":5,"pid":4,"name":"x","phase":"begin"}'
}

@test "hand-written trace: comments, blank lines, CRLF and 0x strings are read" {
    run sh -c 'printf "# c\n\n  \n{\"type\":\"wakeup\",\"ts\":\"0x10\",\"tid\":\"0X2\",\"pid\":1,\"target\":3}\r\n" | argus-decode --format jsonl | argus-to-json | tail -1'
    assert_success
    assert_output '{"type":"wakeup","id":1,"ts":16,"tid":2,"pid":1,"target":3}'
}

@test "hand-written trace: unknown keys and record types pass through in order" {
    printf '%s\n' '{"type":"my_marker","label":"x","nested":{"a":[1,-2,3.5,null,true]}}' \
        '{"type":"exec","ts":5,"tid":1,"pid":2,"path":"/bin/sh","note":"mine"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-to-json | tail -2"
    assert_success
    assert_output '{"type":"my_marker","label":"x","nested":{"a":[1,-2,3.5,null,true]}}
{"type":"exec","id":1,"ts":5,"tid":1,"pid":2,"path":"/bin/sh","note":"mine"}'
}

@test "empty input is refused: exit 65, nothing written" {
    run sh -c 'argus-decode --format jsonl < /dev/null | wc -c'
    assert_output 'argus-decode: <stdin>: empty input: no trace in it (0 bytes)
0'
    run argus-decode --format jsonl < /dev/null
    assert_failure 65
}

@test "rendered stream: decode of to-json output is byte for byte the original" {
    argus-decode fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/a.cbor"
    argus-to-json "$BATS_TEST_TMPDIR/a.cbor" > "$BATS_TEST_TMPDIR/a.jsonl"
    argus-decode --format jsonl "$BATS_TEST_TMPDIR/a.jsonl" > "$BATS_TEST_TMPDIR/b.cbor"
    run cmp "$BATS_TEST_TMPDIR/a.cbor" "$BATS_TEST_TMPDIR/b.cbor"
    assert_success
}

@test "rendered stream: taken as it is, no woken added, ids kept, stages not extended" {
    printf '%s\n' '{"type":"stream","format":"argus","version":1,"stages":["decode z"]}' \
        '{"type":"wait","id":10,"ts":1,"tid":1,"pid":1}' \
        '{"type":"syscall","id":12,"ts":2,"tid":1,"pid":1,"name":"read"}' > "$BATS_TEST_TMPDIR/r.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/r.jsonl | argus-to-json"
    assert_success
    assert_output "$(cat "$BATS_TEST_TMPDIR/r.jsonl")"
}

@test "rendered stream: an event without id is an error" {
    printf '%s\n' '{"type":"stream","format":"argus","version":1}' \
        '{"type":"wait","ts":1,"tid":1,"pid":1}' > "$BATS_TEST_TMPDIR/r.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/r.jsonl > /dev/null"
    assert_failure 65
    assert_output --partial "argus-decode: $BATS_TEST_TMPDIR/r.jsonl:2: wait record has no \"id\""
}

@test "rendered stream: ids must increase" {
    printf '%s\n' '{"type":"stream","format":"argus","version":1}' \
        '{"type":"wait","id":5,"ts":1,"tid":1,"pid":1}' '{"type":"woken","id":5,"ts":2,"tid":1,"pid":1}' > "$BATS_TEST_TMPDIR/r.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/r.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/r.jsonl:3: event id 5 is not above the previous event id 5"
}

@test "an edge to a later or missing event exits 65 naming its line" {
    printf '%s\n' '{"type":"syscall","id":1,"ts":1,"tid":1,"pid":1,"name":"read"}' \
        '{"type":"edge","from":1,"to":2,"kind":"wakeup"}' \
        '{"type":"syscall","id":2,"ts":2,"tid":1,"pid":1,"name":"read"}' > "$BATS_TEST_TMPDIR/later.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/later.jsonl 2>&1 > $BATS_TEST_TMPDIR/later.cbor"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/later.jsonl:2: edge to 2: no event 2 earlier in the stream"
    run argus-validate "$BATS_TEST_TMPDIR/later.cbor"
    assert_success
    printf '%s\n' '{"type":"syscall","id":1,"ts":1,"tid":1,"pid":1,"name":"read"}' \
        '{"type":"edge","from":7,"to":1,"kind":"wakeup"}' > "$BATS_TEST_TMPDIR/missing.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/missing.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/missing.jsonl:2: edge from 7: no event 7 earlier in the stream"
}

@test "64-bit integers are exact both ways" {
    line='{"type":"stream","format":"argus","version":1}
{"type":"x","id":18446744073709551615,"ts":18446744073709551615,"tid":1,"pid":1,"big":-18446744073709551616,"small":-9223372036854775809,"port":"0xffffffffffffffff"}'
    run sh -c "printf '%s\n' '$line' | argus-decode | argus-to-json"
    assert_success
    assert_output "$line"
}

# Errors: each names FILE:LINE and exits 65.
bad_line() { # JSON line, expected message after "FILE:1: "
    printf '%s\n' "$1" > "$BATS_TEST_TMPDIR/bad.jsonl"
    run sh -c "argus-decode --format jsonl $BATS_TEST_TMPDIR/bad.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.jsonl:1: $2"
}

@test "bad input: a line that is not JSON" {
    bad_line '{"type":"wait",ts:1}' 'bad JSON: invalid string in json text'
}

@test "bad input: a record split over two lines" {
    bad_line '{"type":"wait",' 'unterminated JSON object (a record must be on one line)'
}

@test "bad input: two records on one line" {
    bad_line '{"type":"wait","ts":1,"tid":1,"pid":1} {"type":"wait","ts":1,"tid":1,"pid":1}' 'more than one JSON value on the line'
}

@test "bad input: a line that is not an object" {
    bad_line '[1,2]' 'a record must be a JSON object'
}

@test "bad input: a record without type" {
    bad_line '{"ts":1,"tid":1}' 'record has no "type"'
}

@test "bad input: an event without ts" {
    bad_line '{"type":"wait","tid":1,"pid":1}' 'event has no "ts"'
}

@test "bad input: an event without tid" {
    bad_line '{"type":"wait","ts":1,"pid":1}' 'event has no "tid"'
}

@test "bad input: an event without pid and no thread record for its tid" {
    bad_line '{"type":"wait","ts":1,"tid":8}' 'event has no "pid" and no thread record gives tid 8 one'
}

@test "bad input: wrong type for a known key" {
    bad_line '{"type":"wait","ts":"soon","tid":1,"pid":1}' '"ts" must be an unsigned integer (a number or a "0x..." string)'
}

@test "bad input: a negative tid" {
    bad_line '{"type":"wait","ts":1,"tid":-1,"pid":1}' '"tid" must be an unsigned integer (a number or a "0x..." string)'
}

@test "bad input: a text field given a number" {
    bad_line '{"type":"syscall","ts":1,"tid":1,"pid":1,"name":3}' '"name" must be a string'
}

@test "bad input: an array element of the wrong kind" {
    bad_line '{"type":"syscall","ts":1,"tid":1,"pid":1,"args":[1,"two"]}' 'elements of "args" must be unsigned integers'
}

@test "bad input: bad hex" {
    bad_line '{"type":"wait","ts":1,"tid":1,"pid":1,"resource":"0x12g4"}' 'bad hex "0x12g4"'
}

@test "bad input: hex wider than 64 bits" {
    bad_line '{"type":"wait","ts":1,"tid":1,"pid":1,"resource":"0x1ffffffffffffffff"}' 'bad hex "0x1ffffffffffffffff"'
}

@test "bad input: integer out of range" {
    bad_line '{"type":"wait","ts":18446744073709551616,"tid":1,"pid":1}' 'integer 18446744073709551616 is out of range'
}

@test "bad input: a key twice" {
    bad_line '{"type":"wait","ts":1,"ts":2,"tid":1,"pid":1}' 'key "ts" appears twice'
}

@test "bad input: unknown format in a stream header" {
    bad_line '{"type":"stream","format":"perfetto","version":1}' 'unknown format "perfetto" (expected "argus")'
}

@test "bad input: unknown version in a stream header" {
    bad_line '{"type":"stream","format":"argus","version":2}' 'unsupported version 2 (this program reads version 1)'
}

@test "bad input: a second stream header" {
    printf '%s\n' '{"type":"wait","ts":1,"tid":1,"pid":1}' '{"type":"stream","format":"argus","version":1}' > "$BATS_TEST_TMPDIR/bad.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/bad.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.jsonl:2: a second stream header"
}

@test "a missing input file exits 66" {
    run argus-decode --format jsonl /nonexistent/trace.jsonl
    assert_failure 66
    assert_output "argus-decode: /nonexistent/trace.jsonl: No such file or directory"
}

@test "an unknown format or option exits 64" {
    run argus-decode --format pcap x
    assert_failure 64
    assert_output "argus-decode: unknown format 'pcap' (the formats: argus, jsonl, kdebug, trace-text, ftrace, tracedat, perfdata, perfetto, ctf); argus tells the format from the trace itself: argus-decode x
Try 'argus-decode --help' for more information."
    run argus-decode --frobnicate
    assert_failure 64
    assert_line --index 0 "argus-decode: bad option '--frobnicate' (unknown, or missing its value)"
}

@test "input that is not JSON lines cannot be told without --format" {
    run sh -c 'printf "\x55\xaa\x01\x01" | argus-decode'
    assert_failure 65
    assert_output "argus-decode: <stdin>: text, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
}

@test "--help lists the flags and rules" {
    run argus-decode --help
    assert_success
    assert_line --index 0 "Usage: argus-decode [--format FORMAT] [OPTIONS] [FILE|-]"
    assert_output --partial "DEC-WOKEN"
    assert_output --partial "DEC-ORDER"
}

@test "rendered stream: ts going backwards names both events and the line" {
    printf '%s\n' '{"type":"stream","format":"argus","version":1}' \
        '{"type":"wait","id":3,"ts":5,"tid":1,"pid":1}' '{"type":"woken","id":4,"ts":2,"tid":1,"pid":1}' > "$BATS_TEST_TMPDIR/r.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/r.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/r.jsonl:3: ts goes backwards: event 4 has ts 2, before ts 5 of event 3 on line 2"
}
