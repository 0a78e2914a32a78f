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
