#!/usr/bin/env bats
# argus-to-json: the contract's JSON rendering.

load test_helper

@test "address fields are hex strings, other integers numbers, 64-bit exact" {
    run sh -c "printf '%s\n' \"\$HEADER\" \"{'type':'ipc','id':1,'ts':2,'tid':3,'pid':4,'dir':'send','port':0x5103,'msg':0xffffffffffffffff,'msg_id':18446744073709551615,'reply_port':0,'voucher':255,'ret':-5}\" | cbor-records | argus-to-json | tail -1"
    assert_success
    assert_output '{"type":"ipc","id":1,"ts":2,"tid":3,"pid":4,"dir":"send","port":"0x5103","msg":"0xffffffffffffffff","msg_id":18446744073709551615,"reply_port":"0x0","voucher":"0xff","ret":-5}'
}

@test "strings are escaped, floats read back as floats" {
    run sh -c "printf '%s\n' \"\$HEADER\" \"{'type':'x','note':'a \\\"q\\\" \\\\\\\\ tab\\t nl\\n \\x01','f':2.0,'g':0.1}\" | cbor-records | argus-to-json | tail -1"
    assert_success
    assert_output '{"type":"x","note":"a \"q\" \\ tab\t nl\n \u0001","f":2.0,"g":0.1}'
}

@test "round trip: unknown keys and types survive to-json then decode" {
    printf '%s\n' "$HEADER" \
        "{'type':'thread','tid':5,'pid':2,'proc':'App','main':True,'color':'blue'}" \
        "{'type':'wait','id':1,'ts':10,'tid':5,'pid':2,'resource':0xdead,'note':'mine','extra':{'a':[1,-1,None,False,1.5]}}" \
        "{'type':'my_record','payload':[18446744073709551615,-18446744073709551616]}" \
        "{'type':'edge','kind':'my_kind','from':1,'to':1,'weight':3}" | cbor-records > "$BATS_TEST_TMPDIR/a.cbor"
    argus-to-json "$BATS_TEST_TMPDIR/a.cbor" | argus-decode --format jsonl > "$BATS_TEST_TMPDIR/b.cbor"
    run cmp "$BATS_TEST_TMPDIR/a.cbor" "$BATS_TEST_TMPDIR/b.cbor"
    assert_success
}

@test "the header line is the stream's own: to-json adds no stage" {
    run sh -c "echo \"\$HEADER\" | cbor-records | argus-to-json"
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"test","stages":["decode x"]}'
}

@test "--help names the address fields" {
    run argus-to-json --help
    assert_success
    assert_line --index 0 "Usage: argus-to-json [FILE|-]"
    assert_output --partial "reply_port"
}

@test "JSON lines or a trace given to a stage exits 65 with a hint to decode" {
    printf '{"type":"wait","ts":1,"tid":1,"pid":1}\n' > "$BATS_TEST_TMPDIR/t.jsonl"
    run argus-to-json "$BATS_TEST_TMPDIR/t.jsonl"
    assert_failure 65
    assert_output "argus-to-json: $BATS_TEST_TMPDIR/t.jsonl: record 1 (byte 0): truncated: the stream ends 39 bytes into the record; it looks like JSON lines: run 'argus decode' on it first"
    run sh -c "argus-to-json < fixtures/demo/hang.jsonl"
    assert_failure 65
    assert_output "argus-to-json: <stdin>: record 1 (byte 0): record is not a CBOR map; it looks like text (a trace?): run 'argus decode' on it first"
    # a malformed stream gets no such hint
    run sh -c "printf '\241\001' | argus-to-json"
    assert_failure 65
    assert_output "argus-to-json: <stdin>: record 1 (byte 0): a key is not a text string"
}
