#!/usr/bin/env bats
# argus-validate: the contract checks and the summary line.

load test_helper

stream() { printf '%s\n' "$HEADER" "$@" | cbor-records; }

@test "summary line of a valid stream" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-validate'
    assert_success
    assert_output "<stdin>: valid: 30 records, 24 events, 5 threads, 0 edges, 0 segments, ts 1000000..3200500000 (3.199500000 s)"
}

@test "-q prints nothing on a valid stream" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-validate -q'
    assert_success
    assert_output ""
}

@test "edges and segments are counted; an edge to an earlier event is fine" {
    run sh -c "$(declare -f stream); HEADER=\"{'type':'stream','format':'argus','version':1,'stages':['decode x','segment']}\"; stream \
        \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1,'seg':1}\" \
        \"{'type':'wakeup','id':2,'ts':2,'tid':2,'pid':1,'target':1,'seg':2}\" \
        \"{'type':'woken','id':3,'ts':3,'tid':1,'pid':1,'seg':3}\" \
        \"{'type':'edge','kind':'wakeup','from':2,'to':3}\" \
        \"{'type':'edge','kind':'wait','from':1,'to':2,'weak':True}\" | argus-validate"
    assert_success
    assert_output "<stdin>: valid: 6 records, 3 events, 2 threads, 2 edges, 3 segments, ts 1..3 (0.000000002 s)"
}

@test "an edge naming an event not earlier in the stream is a violation" {
    run sh -c "$(declare -f stream); stream \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}\" \
        \"{'type':'edge','kind':'wakeup','from':1,'to':2}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 3 (byte 93): edge to 2: no event 2 earlier in the stream"
}

@test "an edge without kind is a violation" {
    run sh -c "$(declare -f stream); stream \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}\" \
        \"{'type':'edge','from':1,'to':1}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 3 (byte 93): edge record has no text \"kind\""
}

@test "once segment ran, an event without seg is a violation" {
    run sh -c "$(declare -f stream); HEADER=\"{'type':'stream','format':'argus','version':1,'stages':['segment --no-ipc-split']}\"; stream \
        \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}\" | argus-validate"
    assert_failure 65
    assert_output --partial "record 2 (byte 66): event 1 has no \"seg\" although the segment stage ran"
}

@test "known keys must hold values of their kind" {
    run sh -c "$(declare -f stream); stream \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1,'resource':'here'}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): \"resource\" must be an unsigned integer"
    run sh -c "$(declare -f stream); stream \"{'type':'syscall','id':1,'ts':1,'tid':1,'pid':1,'args':[1,'x']}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): \"args\" must be an array of unsigned integers"
}

@test "phase, dir, ctx and wait results take the contract's values only" {
    run sh -c "$(declare -f stream); stream \"{'type':'interrupt','id':1,'ts':1,'tid':1,'pid':1,'phase':'start'}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): \"phase\" is \"start\", not one of the values the contract names"
    run sh -c "$(declare -f stream); stream \"{'type':'woken','id':1,'ts':1,'tid':1,'pid':1,'result':'ok'}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): \"result\" is \"ok\", not one of the values the contract names"
}

@test "a thread record without pid is a violation" {
    run sh -c "$(declare -f stream); stream \"{'type':'thread','tid':1}\" | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): thread record has no \"pid\""
}

@test "records of unknown types without id are not events and pass" {
    run sh -c "$(declare -f stream); stream \"{'type':'my_finding','seg':4,'score':0.5}\" | argus-validate"
    assert_success
    assert_output "<stdin>: valid: 2 records, 0 events, 0 threads, 0 edges, 0 segments, ts 0..0 (0.000000000 s)"
}

# Writes a header and one thread record whose text PLACE ("value", "key",
# "frame" in a backtrace's frames, "chunk" of an indefinite string) holds
# the bytes 0xff "z" (not UTF-8), or with GOOD an "é" (two bytes).
utf8_stream() { # PLACE [GOOD]
    /usr/bin/python3 - "$@" <<'PY'
import sys, cbor2
place = sys.argv[1]
bad = b'\xc3\xa9' if len(sys.argv) > 2 else b'\xffz'
out = sys.stdout.buffer
out.write(cbor2.dumps({'type': 'stream', 'format': 'argus', 'version': 1,
                       'source': 'test', 'stages': ['decode x']}))
if place == 'frame':
    rec = cbor2.dumps({'type': 'backtrace', 'id': 1, 'ts': 1, 'tid': 1, 'pid': 1,
                       'frames': ['main', 'QQ']})
elif place == 'chunk':   # "proc": an indefinite text of chunks "ab", "QQ"
    rec = (bytes([0xa4]) + cbor2.dumps('type') + cbor2.dumps('thread') +
           cbor2.dumps('tid') + cbor2.dumps(1) + cbor2.dumps('pid') + cbor2.dumps(1) +
           cbor2.dumps('proc') + b'\x7f' + cbor2.dumps('ab') + cbor2.dumps('QQ') + b'\xff')
elif place == 'key':
    rec = cbor2.dumps({'type': 'thread', 'tid': 1, 'pid': 1, 'xQQ': 1})
else:
    rec = cbor2.dumps({'type': 'thread', 'tid': 1, 'pid': 1, 'proc': 'QQ'})
out.write(rec.replace(b'QQ', bad))
PY
}

@test "validate: a text string that is not UTF-8 is refused with 65 and its byte" {
    for place in value key frame chunk; do
        utf8_stream "$place" > "$BATS_TEST_TMPDIR/$place.cbor"
        utf8_stream "$place" good > "$BATS_TEST_TMPDIR/$place-good.cbor"
        run argus-validate "$BATS_TEST_TMPDIR/$place-good.cbor"
        assert_success
    done
    run argus-validate "$BATS_TEST_TMPDIR/value.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/value.cbor: record 2 (byte 64): a text string is not valid UTF-8 (byte 29 of the record)"
    run argus-validate "$BATS_TEST_TMPDIR/key.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/key.cbor: record 2 (byte 64): a text string is not valid UTF-8 (byte 25 of the record)"
    run argus-validate "$BATS_TEST_TMPDIR/frame.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/frame.cbor: record 2 (byte 64): a text string is not valid UTF-8 (byte 48 of the record)"
    run argus-validate "$BATS_TEST_TMPDIR/chunk.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/chunk.cbor: record 2 (byte 64): a text string is not valid UTF-8 (byte 33 of the record)"
}
