#!/usr/bin/env bats
# argus-link-ipc: IPC-MSG, IPC-REPLY, IPC-FREE, IPC-REUSE, IPC-BOUND.

load test_helper

LINK_STAGE=link-ipc
load link_helper

@test "IPC-MSG IPC-REPLY: an app's request and a daemon's reply, each edge in place" {
    expect_fixture ipc-request-reply
}

@test "IPC-MSG IPC-REPLY: edges run send to recv, recv to reply, reply to recv" {
    run sh -c "$fns; edges ipc-request-reply"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":4}
{"type":"edge","kind":"reply","from":4,"to":7}
{"type":"edge","kind":"ipc","from":7,"to":10}'
}

@test "IPC-REPLY: a reply sent by another thread links from the request's recv" {
    expect_fixture ipc-reply-other-thread
}

@test "IPC-REPLY: the receiving thread's next send (to another port) is not the reply" {
    run sh -c "$fns; edges ipc-reply-other-thread | jq -c 'select(.kind==\"reply\")'"
    assert_success
    assert_output '{"type":"edge","kind":"reply","from":3,"to":7}'
}

@test "IPC-REPLY: a send to the reply port before the request's receipt is no reply" {
    run sh -c "$fns; printf '%s\n' \
        '{\"type\":\"ipc\",\"ts\":1,\"tid\":1,\"pid\":1,\"dir\":\"send\",\"port\":\"0x10\",\"reply_port\":\"0x20\"}' \
        '{\"type\":\"ipc\",\"ts\":2,\"tid\":3,\"pid\":3,\"dir\":\"send\",\"port\":\"0x20\"}' \
        '{\"type\":\"ipc\",\"ts\":3,\"tid\":2,\"pid\":2,\"dir\":\"recv\",\"port\":\"0x10\"}' \
        '{\"type\":\"ipc\",\"ts\":4,\"tid\":2,\"pid\":2,\"dir\":\"send\",\"port\":\"0x20\"}' \
        '{\"type\":\"ipc\",\"ts\":5,\"tid\":2,\"pid\":2,\"dir\":\"send\",\"port\":\"0x20\"}' | edges_of"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":1,"to":3}
{"type":"edge","kind":"reply","from":3,"to":4}'
}

@test "IPC-REPLY: --no-reply leaves out the reply edges and keeps the ipc edges" {
    run sh -c "$fns; edges ipc-reply-other-thread --no-reply"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":1,"to":3}
{"type":"edge","kind":"ipc","from":7,"to":11}
{"type":"edge","kind":"ipc","from":5,"to":12}'
}

@test "IPC-MSG: a reused msg address sent to a peer matches only a recv there" {
    expect_fixture ipc-msg-reused
}

@test "IPC-MSG: two messages on one port received out of order each find their send" {
    run sh -c "$fns; edges ipc-msg-reused"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":3}
{"type":"edge","kind":"ipc","from":5,"to":6}
{"type":"edge","kind":"ipc","from":4,"to":7}'
}

@test "IPC-MSG: --no-msg-match matches by port in FIFO order" {
    run sh -c "$fns; edges ipc-msg-reused --no-msg-match; edges ipc-port-fifo --no-msg-match | tail -2"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":3}
{"type":"edge","kind":"ipc","from":4,"to":6}
{"type":"edge","kind":"ipc","from":5,"to":7}
{"type":"edge","kind":"ipc","from":7,"to":9}
{"type":"edge","kind":"ipc","from":8,"to":10}'
}

@test "IPC-MSG: without msg, a recv takes the oldest unmatched send to its port" {
    expect_fixture ipc-port-fifo
    run sh -c "$fns; edges ipc-port-fifo"
    assert_output '{"type":"edge","kind":"ipc","from":1,"to":4}
{"type":"edge","kind":"ipc","from":3,"to":5}
{"type":"edge","kind":"ipc","from":2,"to":6}
{"type":"edge","kind":"ipc","from":8,"to":9}
{"type":"edge","kind":"ipc","from":7,"to":10}'
}

@test "IPC-MSG: a recv naming its peer matches only a send from that process" {
    run sh -c "$fns; printf '%s\n' \
        '{\"type\":\"ipc\",\"ts\":1,\"tid\":1,\"pid\":1,\"dir\":\"send\",\"port\":\"0x10\"}' \
        '{\"type\":\"ipc\",\"ts\":2,\"tid\":2,\"pid\":2,\"dir\":\"send\",\"port\":\"0x10\"}' \
        '{\"type\":\"ipc\",\"ts\":3,\"tid\":9,\"pid\":9,\"dir\":\"recv\",\"port\":\"0x10\",\"peer\":2}' \
        '{\"type\":\"ipc\",\"ts\":4,\"tid\":8,\"pid\":8,\"dir\":\"recv\",\"port\":\"0x10\"}' | edges_of"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":3}
{"type":"edge","kind":"ipc","from":1,"to":4}'
}

@test "IPC-MSG bad input: a recv before any send is passed through, counted, not linked" {
    expect_fixture ipc-recv-first
    run sh -c "$fns; link ipc-recv-first -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-link-ipc: ipc edges: 2
argus-link-ipc: reply edges: 0
argus-link-ipc: recvs without send: 1
argus-link-ipc: ipc events without dir, or without both port and msg: 0
argus-link-ipc: pending sends dropped: 0
argus-link-ipc: pending replies dropped: 0
argus-link-ipc: pending sends whose msg was freed: 0
argus-link-ipc: pending sends whose msg was reused: 0
argus-link-ipc: sends left unmatched: 0
argus-link-ipc: requests left without reply: 1"
}

@test "IPC-MSG IPC-REPLY: -v counts edges per kind and what was left pending" {
    run sh -c "$fns; link ipc-msg-reused -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-link-ipc: ipc edges: 3
argus-link-ipc: reply edges: 0
argus-link-ipc: recvs without send: 0
argus-link-ipc: ipc events without dir, or without both port and msg: 0
argus-link-ipc: pending sends dropped: 0
argus-link-ipc: pending replies dropped: 0
argus-link-ipc: pending sends whose msg was freed: 0
argus-link-ipc: pending sends whose msg was reused: 0
argus-link-ipc: sends left unmatched: 1
argus-link-ipc: requests left without reply: 0"
}

@test "IPC-MSG: an ipc event without dir or port passes through and is counted" {
    printf '%s\n' '{"type":"ipc","ts":1,"tid":1,"pid":1,"port":"0x10"}' \
        '{"type":"ipc","ts":2,"tid":1,"pid":1,"dir":"send"}' \
        '{"type":"ipc","ts":3,"tid":1,"pid":1,"dir":"sideways","port":"0x10"}' \
        '{"type":"ipc","ts":4,"tid":2,"pid":2,"dir":"recv","port":"0x10"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-ipc -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | jq -c 'select(.id) | [.id, .type]' | tr -d '\n'; grep -v ': 0$' $BATS_TEST_TMPDIR/err"
    assert_success
    assert_output '[1,"ipc"][2,"ipc"][3,"ipc"][4,"ipc"]argus-link-ipc: recvs without send: 1
argus-link-ipc: ipc events without dir, or without both port and msg: 3'
}

@test "IPC-MSG: events without a port match by msg alone, never by FIFO" {
    run sh -c "$fns; printf '%s\n' \
        '{\"type\":\"ipc\",\"ts\":1,\"tid\":1,\"pid\":1,\"dir\":\"send\",\"msg\":\"0xa0\",\"via\":\"mach\"}' \
        '{\"type\":\"ipc\",\"ts\":2,\"tid\":1,\"pid\":1,\"dir\":\"send\",\"msg\":\"0xb0\",\"via\":\"mach\"}' \
        '{\"type\":\"ipc\",\"ts\":3,\"tid\":2,\"pid\":2,\"dir\":\"recv\",\"msg\":\"0xb0\",\"via\":\"mach\"}' \
        '{\"type\":\"ipc\",\"ts\":4,\"tid\":2,\"pid\":2,\"dir\":\"recv\",\"msg\":\"0xc0\",\"via\":\"mach\"}' \
        | edges_of"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":3}'
}

@test "IPC-FREE: freeing a buffer drops its pending unreceived send, not a received" {
    expect_fixture ipc-kmsg-free
    run sh -c "$fns; edges ipc-kmsg-free; link ipc-kmsg-free -v 2>&1 >/dev/null"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":1,"to":2}
argus-link-ipc: ipc edges: 1
argus-link-ipc: reply edges: 0
argus-link-ipc: recvs without send: 1
argus-link-ipc: ipc events without dir, or without both port and msg: 0
argus-link-ipc: pending sends dropped: 0
argus-link-ipc: pending replies dropped: 0
argus-link-ipc: pending sends whose msg was freed: 1
argus-link-ipc: pending sends whose msg was reused: 0
argus-link-ipc: sends left unmatched: 0
argus-link-ipc: requests left without reply: 0'
}

@test "IPC-FREE: a receive after a free is not linked to the freed send" {
    printf '%s\n' '{"type":"ipc","ts":1,"tid":1,"pid":1,"dir":"send","msg":"0xa0","via":"mach"}' \
        '{"type":"ipc_free","ts":2,"tid":2,"pid":2,"msg":"0xa0"}' \
        '{"type":"ipc","ts":3,"tid":2,"pid":2,"dir":"recv","msg":"0xa0","via":"mach"}' \
        '{"type":"ipc","ts":4,"tid":1,"pid":1,"dir":"send","msg":"0xa0","via":"mach"}' \
        '{"type":"ipc","ts":5,"tid":2,"pid":2,"dir":"recv","msg":"0xa0","via":"mach"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "$fns; edges_of < $BATS_TEST_TMPDIR/t.jsonl; argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-ipc -v 2>&1 >/dev/null | grep -v ': 0$'"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":4,"to":5}
argus-link-ipc: ipc edges: 1
argus-link-ipc: recvs without send: 1
argus-link-ipc: pending sends whose msg was freed: 1'
}

@test "IPC-REUSE: a new send in a pending send's buffer replaces the older" {
    expect_fixture ipc-kmsg-reuse
    run sh -c "$fns; edges ipc-kmsg-reuse; link ipc-kmsg-reuse -v 2>&1 >/dev/null"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":2,"to":3}
{"type":"edge","kind":"ipc","from":4,"to":5}
{"type":"edge","kind":"ipc","from":7,"to":8}
argus-link-ipc: ipc edges: 3
argus-link-ipc: reply edges: 0
argus-link-ipc: recvs without send: 0
argus-link-ipc: ipc events without dir, or without both port and msg: 0
argus-link-ipc: pending sends dropped: 0
argus-link-ipc: pending replies dropped: 0
argus-link-ipc: pending sends whose msg was freed: 0
argus-link-ipc: pending sends whose msg was reused: 1
argus-link-ipc: sends left unmatched: 0
argus-link-ipc: requests left without reply: 0'
}

@test "IPC-FREE IPC-REUSE: sends that carry a port are left to IPC-MSG's peers" {
    printf '%s\n' '{"type":"ipc","ts":1,"tid":1,"pid":1,"dir":"send","port":"0x10","msg":"0xa0","peer":2}' \
        '{"type":"ipc_free","ts":2,"tid":9,"pid":9,"msg":"0xa0"}' \
        '{"type":"ipc","ts":3,"tid":1,"pid":1,"dir":"send","port":"0x10","msg":"0xa0","peer":3}' \
        '{"type":"ipc","ts":4,"tid":1,"pid":1,"dir":"send","msg":"0xa0","via":"mach"}' \
        '{"type":"ipc","ts":5,"tid":2,"pid":2,"dir":"recv","port":"0x10","msg":"0xa0"}' \
        '{"type":"ipc","ts":6,"tid":3,"pid":3,"dir":"recv","port":"0x10","msg":"0xa0"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "$fns; edges_of < $BATS_TEST_TMPDIR/t.jsonl; argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-ipc -v 2>&1 >/dev/null | grep -v ': 0$'"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":1,"to":5}
{"type":"edge","kind":"ipc","from":3,"to":6}
argus-link-ipc: ipc edges: 2
argus-link-ipc: sends left unmatched: 1'
}

@test "IPC-FREE IPC-REUSE: a decoded kdebug file's kmsg frees retire unreceived sends" {
    mkkdebug -o "$BATS_TEST_TMPDIR/t.bin" <<'EOF'
thread 0x2001 300 Safari
thread 0x3001 400 mds
rec 1000 0x0120002a 300 400 0 0 0x2001 0          # MACH_IPC_kmsg_info END: Safari -> mds
rec 1100 0x0120000c 0xb00 0x1513 200 0 0x2001 0   # MACH_IPC_msg_send, kmsg 0xb00
rec 1200 0x01200018 0xb00 0 0 0 0x3001 1          # MACH_IPC_kmsg_free: freed unread
rec 1300 0x01200010 0xb00 0x1513 9000 0 0x3001 1  # msg_recv of a message whose send is not traced
rec 1400 0x0120000c 0xc00 0x1513 300 0 0x2001 0   # a send whose receive and free were lost
rec 1500 0x0120000c 0xc00 0x1513 301 0 0x2001 0   # the same kmsg again: the older is gone
rec 1600 0x01200010 0xc00 0x1513 301 0 0x3001 1   # its receive
EOF
    run sh -c "argus-decode --format kdebug $BATS_TEST_TMPDIR/t.bin | argus-link-ipc -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | jq -c 'select(.type==\"edge\" or .type==\"ipc_free\")'; grep -v ': 0$' $BATS_TEST_TMPDIR/err"
    assert_success
    assert_output '{"type":"ipc_free","id":2,"ts":200,"tid":12289,"pid":400,"cpu":1,"msg":"0xb00"}
{"type":"edge","kind":"ipc","from":5,"to":6}
argus-link-ipc: ipc edges: 1
argus-link-ipc: recvs without send: 1
argus-link-ipc: pending sends whose msg was freed: 1
argus-link-ipc: pending sends whose msg was reused: 1'
}

@test "IPC-BOUND: --max-pending drops the oldest unmatched send and counts it" {
    run sh -c "$fns; edges ipc-port-fifo --max-pending 1; link ipc-port-fifo --max-pending 1 -v 2>&1 >/dev/null | grep -v ': 0$'"
    assert_success
    assert_output '{"type":"edge","kind":"ipc","from":3,"to":5}
{"type":"edge","kind":"ipc","from":8,"to":9}
argus-link-ipc: ipc edges: 2
argus-link-ipc: recvs without send: 3
argus-link-ipc: pending sends dropped: 3'
}

@test "IPC-BOUND: requests waiting for their reply are bounded by --max-pending too" {
    printf '%s\n' '{"type":"ipc","ts":1,"tid":1,"pid":1,"dir":"send","port":"0x10","reply_port":"0x21"}' \
        '{"type":"ipc","ts":2,"tid":9,"pid":9,"dir":"recv","port":"0x10"}' \
        '{"type":"ipc","ts":3,"tid":2,"pid":2,"dir":"send","port":"0x10","reply_port":"0x22"}' \
        '{"type":"ipc","ts":4,"tid":9,"pid":9,"dir":"recv","port":"0x10"}' \
        '{"type":"ipc","ts":5,"tid":9,"pid":9,"dir":"send","port":"0x21"}' \
        '{"type":"ipc","ts":6,"tid":9,"pid":9,"dir":"send","port":"0x22"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-ipc --max-pending 1 -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | jq -c 'select(.kind==\"reply\")'; grep dropped $BATS_TEST_TMPDIR/err"
    assert_success
    assert_output '{"type":"edge","kind":"reply","from":4,"to":6}
argus-link-ipc: pending sends dropped: 1
argus-link-ipc: pending replies dropped: 1'
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-ipc | argus-to-json | jq -c 'select(.kind==\"reply\")'"
    assert_output '{"type":"edge","kind":"reply","from":2,"to":5}
{"type":"edge","kind":"reply","from":4,"to":6}'
}

@test "IPC-MSG: every record passes through unchanged; only edges and stages added" {
    run sh -c "$fns; link ipc-reply-other-thread | argus-to-json | grep -v '\"type\":\"edge\"' | tail -n +2 > $BATS_TEST_TMPDIR/a; argus-decode fixtures/graph/ipc-reply-other-thread.jsonl | argus-to-json | tail -n +2 > $BATS_TEST_TMPDIR/b; cmp $BATS_TEST_TMPDIR/a $BATS_TEST_TMPDIR/b && link ipc-reply-other-thread | argus-to-json | head -1"
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/graph/ipc-reply-other-thread.jsonl","link-ipc"]}'
}

@test "IPC-MSG IPC-REPLY: link-ipc and link-dispatch in either order agree" {
    f=fixtures/graph/ipc-reply-other-thread.jsonl
    run sh -c "argus-decode $f | argus-link-ipc | argus-link-dispatch | argus-to-json | tail -n +2 > $BATS_TEST_TMPDIR/a; argus-decode $f | argus-link-dispatch | argus-link-ipc | argus-to-json | tail -n +2 > $BATS_TEST_TMPDIR/b; cmp $BATS_TEST_TMPDIR/a $BATS_TEST_TMPDIR/b && grep -c '\"type\":\"edge\"' $BATS_TEST_TMPDIR/a"
    assert_success
    assert_output 5
}

@test "a malformed stream is an error (exit 65) naming the record" {
    run sh -c "printf 'not cbor' | argus-link-ipc"
    assert_failure 65
    assert_output --partial "argus-link-ipc: <stdin>: record 1 (byte 0): "
}

@test "--help lists the rules and flags; --max-pending must be a positive number" {
    run argus-link-ipc --help
    assert_success
    assert_line --index 0 "Usage: argus-link-ipc [--no-msg-match] [--no-reply] [--max-pending N] [-v] [FILE|-]"
    assert_line --index 1 "Link each IPC receive to its send, and a request's receive to its reply."
    for word in IPC-MSG IPC-REPLY IPC-FREE IPC-REUSE IPC-BOUND --no-msg-match --no-reply --max-pending --verbose; do
        assert_output --partial "$word"
    done
    run argus-link-ipc --max-pending 0 /dev/null
    assert_failure 64
    run argus-link-ipc --max-pending x /dev/null
    assert_failure 64
    assert_output --partial "--max-pending: 'x' is not a number"
    run argus-link-ipc --bogus
    assert_failure 64
}
