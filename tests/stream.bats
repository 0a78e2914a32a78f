#!/usr/bin/env bats
# The stream reader every stage uses (lib/stream/stream.c), seen through
# argus-to-json and argus-validate: header, framing, order, errors.

bats_require_minimum_version 1.5.0
load test_helper

# header 64 bytes, then events of 41 and 46 bytes
three_records() {
    cbor_records <<PY
$HEADER
{'type':'wait','id':1,'ts':10,'tid':5,'pid':2,'resource':0xdead}
{'type':'woken','id':2,'ts':20,'tid':5,'pid':2,'result':'awakened'}
PY
}

@test "empty input: no stream header, exit 65" {
    run argus-to-json < /dev/null
    assert_failure 65
    assert_output "argus-to-json: <stdin>: empty input: no stream header"
}

@test "a stream without header is refused" {
    run sh -c "echo \"{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}\" | cbor-records | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 1 (byte 0): no stream header: the first record has type \"wait\""
}

@test "a header of another format is refused" {
    run sh -c "echo \"{'type':'stream','format':'ctf','version':1}\" | cbor-records | argus-to-json"
    assert_failure 65
    assert_output "argus-to-json: <stdin>: record 1 (byte 0): unknown format \"ctf\" (expected \"argus\")"
}

@test "a header of an unknown version is refused" {
    run sh -c "echo \"{'type':'stream','format':'argus','version':2}\" | cbor-records | argus-to-json"
    assert_failure 65
    assert_output "argus-to-json: <stdin>: record 1 (byte 0): unsupported version 2 (this program reads version 1)"
}

@test "truncated CBOR inside the header: exit 65 with record and byte offset" {
    three_records | head -c 30 > "$BATS_TEST_TMPDIR/t.cbor"
    run argus-to-json "$BATS_TEST_TMPDIR/t.cbor"
    assert_failure 65
    assert_output "argus-to-json: $BATS_TEST_TMPDIR/t.cbor: record 1 (byte 0): truncated: the stream ends 30 bytes into the record"
}

@test "truncated CBOR inside the second record: the header before it is written" {
    three_records | head -c 70 > "$BATS_TEST_TMPDIR/t.cbor"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/t.cbor 2>$BATS_TEST_TMPDIR/err"
    assert_failure 65
    assert_output '{"type":"stream","format":"argus","version":1,"source":"test","stages":["decode x"]}'
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-to-json: $BATS_TEST_TMPDIR/t.cbor: record 2 (byte 64): truncated: the stream ends 6 bytes into the record"
}

@test "truncated CBOR one byte short of the end: every complete record is written" {
    three_records | head -c 150 > "$BATS_TEST_TMPDIR/t.cbor"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/t.cbor 2>$BATS_TEST_TMPDIR/err"
    assert_failure 65
    assert_output '{"type":"stream","format":"argus","version":1,"source":"test","stages":["decode x"]}
{"type":"wait","id":1,"ts":10,"tid":5,"pid":2,"resource":"0xdead"}'
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-to-json: $BATS_TEST_TMPDIR/t.cbor: record 3 (byte 105): truncated: the stream ends 45 bytes into the record"
}

@test "malformed CBOR (a reserved additional-information value) is named" {
    { three_records | head -c 105; printf '\xa1\x1c'; } > "$BATS_TEST_TMPDIR/t.cbor"
    run argus-validate "$BATS_TEST_TMPDIR/t.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/t.cbor: record 3 (byte 105): malformed CBOR at byte 1 of the record"
}

@test "a record that is not a map is refused" {
    { three_records; printf '\x05'; } > "$BATS_TEST_TMPDIR/t.cbor"
    run argus-validate "$BATS_TEST_TMPDIR/t.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/t.cbor: record 4 (byte 151): record is not a CBOR map"
}

@test "an event missing a required field is refused" {
    run sh -c "printf '%s\n' \"$HEADER\" \"{'type':'wait','id':1,'ts':10,'tid':5}\" | cbor-records | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 2 (byte 64): wait record has no \"pid\""
}

@test "ts going backwards names both events" {
    run sh -c "printf '%s\n' \"$HEADER\" \"{'type':'wait','id':1,'ts':10,'tid':5,'pid':1}\" \"{'type':'woken','id':2,'ts':9,'tid':5,'pid':1}\" | cbor-records | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 3 (byte 93): ts goes backwards: event 2 has ts 9, before ts 10 of event 1"
}

@test "ids must strictly increase" {
    run sh -c "printf '%s\n' \"$HEADER\" \"{'type':'wait','id':7,'ts':10,'tid':5,'pid':1}\" \"{'type':'woken','id':3,'ts':11,'tid':5,'pid':1}\" | cbor-records | argus-validate"
    assert_failure 65
    assert_output "argus-validate: <stdin>: record 3 (byte 93): event id 3 is not above the previous event id 7"
}

@test "indefinite-length maps, arrays and strings are read" {
    printf '%s' 'a564747970656673747265616d66666f726d61746561726775736776657273696f6e0166736f7572636564746573746673746167657381686465636f64652078' \
        'bf647479706564776169746269640162747301637469640563706964027f6272656173ff9f0102ffff' | xxd -r -p > "$BATS_TEST_TMPDIR/t.cbor"
    run argus-to-json "$BATS_TEST_TMPDIR/t.cbor"
    assert_success
    assert_line --index 1 '{"type":"wait","id":1,"ts":1,"tid":5,"pid":2,"res":[1,2]}'
}

@test "a second header in the stream is refused" {
    run sh -c "printf '%s\n' \"$HEADER\" \"$HEADER\" | cbor-records | argus-to-json > /dev/null"
    assert_failure 65
    assert_output "argus-to-json: <stdin>: record 2 (byte 64): a second stream header"
}

@test "a missing file exits 66, a bad option 64" {
    run argus-validate /nonexistent.cbor
    assert_failure 66
    assert_output "argus-validate: /nonexistent.cbor: No such file or directory"
    run argus-to-json -x
    assert_failure 64
    assert_line --index 0 "argus-to-json: bad option '-x' (unknown, or missing its value)"
}

@test "| head -1 ends quietly: the writer dies of SIGPIPE and prints nothing" {
    /usr/bin/python3 -c '
import sys
print("{\"type\":\"thread\",\"tid\":1,\"pid\":1}")
for i in range(200000):
    print("{\"type\":\"syscall\",\"ts\":%d,\"tid\":1,\"name\":\"read\",\"phase\":\"begin\"}" % i)
' > "$BATS_TEST_TMPDIR/big.jsonl"
    run bash -c "set -o pipefail; argus-decode $BATS_TEST_TMPDIR/big.jsonl 2>$BATS_TEST_TMPDIR/e1 | argus-to-json 2>$BATS_TEST_TMPDIR/e2 | head -1"
    assert_failure 141
    assert_output --partial '"type":"stream"'
    assert_equal "$(cat "$BATS_TEST_TMPDIR/e1" "$BATS_TEST_TMPDIR/e2")" ""
}

@test "a key twice in one record is refused, unknown keys too" {
    printf 'a564747970656673747265616d66666f726d61746561726775736776657273696f6e0166736f7572636564746573746673746167657381686465636f64652078a364747970656178616b01616b02' | xxd -r -p > "$BATS_TEST_TMPDIR/t.cbor"
    run argus-validate "$BATS_TEST_TMPDIR/t.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/t.cbor: record 2 (byte 64): key \"k\" appears twice"
}

@test "a short option inside a cluster is named" {
    run argus-validate -qx
    assert_failure 64
    assert_line --index 0 "argus-validate: bad option '-x' (unknown, or missing its value)"
}

@test "a numeric option past its range, 2^32 or 2^64 exits 64 naming the range" {
    local prog opt min max unit v
    # PROGRAM OPTION MIN MAX [UNIT]
    while read -r prog opt min max unit; do
        for v in $((max + 1)) 4294967297 18446744073709551616 99999999999999999999999; do
            [ "$v" != "$min" ] || continue
            run "$prog" "$opt" "$v" < /dev/null
            assert_failure 64
            assert_line --index 0 "$prog: $opt must be $min..$max${unit:+ $unit}"
        done
    done <<'TABLE'
argus-find-spinning --hang 0 1000000000 ms (0: off)
argus-find-spinning --beam 1 1000
argus-find-spinning --max-steps 1 100000
argus-analyze --hang 0 1000000000 ms (0: off)
argus-analyze --beam 1 1000
argus-analyze --depth 0 32
argus-analyze --max-branches 1 1000
argus-diff --depth 0 32
argus-diff --max-branches 1 1000
argus-diff --choose 0 4294967295
argus-export --around 0 2147483647
argus-decode --window 1 268435456 records
argus-decode --record-size 32 64 (32 or 64)
argus-record --buffer-mb 1 65536 (MB per CPU)
TABLE
    # --hang 18446744073710: hang_ms * 1e6 wrapped, finding more hangs than --hang 1
    run argus-find-spinning --hang 18446744073710 < /dev/null
    assert_failure 64
    assert_line --index 0 "argus-find-spinning: --hang must be 0..1000000000 ms (0: off)"
    # options without an upper bound: 0, and past 2^64
    for prog in "argus-similar --max" "argus-link-ipc --max-pending" "argus-link-wakeups --max-pending"; do
        run ${prog} 0 < /dev/null
        assert_failure 64
        assert_line --index 0 "${prog% *}: ${prog#* }: must be at least 1"
        run ${prog} 18446744073709551616 < /dev/null
        assert_failure 64
        assert_line --index 0 "${prog% *}: ${prog#* } must be 1..18446744073709551615"
    done
    run argus-similar --seg 18446744073709551616 < /dev/null
    assert_failure 64
    assert_line --index 0 "argus-similar: --seg must be 0..18446744073709551615"
}

@test "a numeric option is an unsigned decimal or 0x-hex: no sign, blank, octal" {
    local v
    for v in -1 +5 ' 5' '5 ' 5x 0x 1e3 ''; do
        run argus-find-spinning --beam "$v" < /dev/null
        assert_failure 64
        assert_line --index 0 "argus-find-spinning: --beam: '$v' is not a number"
    done
    # a leading zero is decimal: 0200000 is 200000 (octal, it was 65536)
    run argus-find-spinning --max-steps 0200000 < /dev/null
    assert_failure 64
    assert_line --index 0 "argus-find-spinning: --max-steps must be 1..100000"
    run sh -c 'argus graph fixtures/demo/hang.jsonl | argus-find-spinning --beam 0x3E8 --max-steps 0100000 | argus-validate'
    assert_success
}

@test "a write error on stdout exits 74" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-validate > /dev/full'
    assert_failure 74
    assert_output "argus-validate: write error: No space left on device"
    run sh -c 'argus-decode fixtures/demo/hang.jsonl > /dev/full'
    assert_failure 74
    assert_output "argus-decode: write error: No space left on device"
}

# ---- a stage decodes only the records it looks into -------------

# stream_py SCRIPT [ARG...]: runs the Python SCRIPT with record(*pairs) (a
# map written pair by pair: a key may come twice) and HEADER (a stream
# header's bytes) defined, and sys and cbor2 imported
stream_py() {
    /usr/bin/python3 -c 'import sys, cbor2
def record(*pairs):
    return bytes([0xa0 + len(pairs)]) + b"".join(cbor2.dumps(k) + cbor2.dumps(v) for k, v in pairs)
HEADER = cbor2.dumps({"type": "stream", "format": "argus", "version": 1, "source": "test", "stages": []})
'"$1" "${@:2}"
}

# lazy_stream: a header, an ipc send with a key twice ("k"), a syscall with
# a key twice ("name"), as the reader's lazy path meets them
lazy_stream() {
    stream_py '
sys.stdout.buffer.write(HEADER
    + record(("type", "syscall"), ("id", 1), ("ts", 10), ("tid", 7), ("pid", 7), ("name", "read"), ("name", "write"))
    + record(("type", "ipc"), ("id", 2), ("ts", 20), ("tid", 7), ("pid", 7), ("dir", "send"), ("port", 5), ("k", 1), ("k", 2)))
' > "$BATS_TEST_TMPDIR/lazy.cbor"
}

@test "a record a stage does not look into passes as bytes; a bad one it reads 65" {
    lazy_stream
    # link-ipc reads the ipc event, not the syscall: the syscall's key
    # twice passes, the ipc's is refused
    run --separate-stderr argus-link-ipc "$BATS_TEST_TMPDIR/lazy.cbor"
    assert_failure 65
    assert_equal "$stderr" "argus-link-ipc: $BATS_TEST_TMPDIR/lazy.cbor: record 3 (byte 108): key \"k\" appears twice"
    # argus-validate decodes every record: the first one is refused
    run argus-validate "$BATS_TEST_TMPDIR/lazy.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/lazy.cbor: record 2 (byte 55): key \"name\" appears twice"
}

# events in the field order of the decoders' argus_put_event_head (type,
# id, ts, tid, pid, cpu), which the head pass reads as bytes; DUP: one of
# the six again at the end, or "none"
written_order_stream() {
    stream_py '
head = [("type", "syscall"), ("id", 1), ("ts", 10), ("tid", 7), ("pid", 7), ("cpu", 1)]
dup = sys.argv[1]
extra = [(dup, dict(head)[dup])] if dup != "none" else []
sys.stdout.buffer.write(HEADER
    + record(*head, ("name", "read"), *extra)
    + record(("type", "wait"), ("id", 2), ("ts", 20), ("tid", 7), ("pid", 7), ("cpu", 0), ("resource", 9)))
' "$1" > "$BATS_TEST_TMPDIR/written.cbor"
}

@test "events in the decoders' field order read as whole; a key twice is refused" {
    local k
    written_order_stream none
    argus-segment "$BATS_TEST_TMPDIR/written.cbor" > "$BATS_TEST_TMPDIR/seg.cbor"
    ARGUS_READ_WHOLE=1 argus-segment "$BATS_TEST_TMPDIR/written.cbor" > "$BATS_TEST_TMPDIR/whole.cbor"
    cmp "$BATS_TEST_TMPDIR/seg.cbor" "$BATS_TEST_TMPDIR/whole.cbor"
    argus-to-json "$BATS_TEST_TMPDIR/seg.cbor" > "$BATS_TEST_TMPDIR/seg.json"
    run sed -n 2,3p "$BATS_TEST_TMPDIR/seg.json"
    assert_output '{"type":"syscall","id":1,"ts":10,"tid":7,"pid":7,"cpu":1,"name":"read","seg":1}
{"type":"wait","id":2,"ts":20,"tid":7,"pid":7,"cpu":0,"resource":"0x9","seg":1}'
    # the five keys of the event head: refused where the record is read
    for k in type id ts tid pid; do
        written_order_stream $k
        run --separate-stderr argus-segment "$BATS_TEST_TMPDIR/written.cbor"
        assert_failure 65
        assert_equal "$stderr" "argus-segment: $BATS_TEST_TMPDIR/written.cbor: record 2 (byte 55): key \"$k\" appears twice"
    done
    # cpu is not read by segment: the record passes as its bytes, and is
    # refused where it is decoded
    written_order_stream cpu
    run --separate-stderr argus-segment "$BATS_TEST_TMPDIR/written.cbor"
    assert_success
    run argus-validate "$BATS_TEST_TMPDIR/written.cbor"
    assert_failure 65
    assert_output "argus-validate: $BATS_TEST_TMPDIR/written.cbor: record 2 (byte 55): key \"cpu\" appears twice"
}

# a stream of two events and one edge of kind CASE (see the cases below)
edge_stream() {
    stream_py '
head = [("type", "edge"), ("kind", "wakeup"), ("from", 1), ("to", 2)]
cases = {
    "plain": head,
    "weak": head + [("weak", True)],
    "float-tag-map": head + [("f", 1.5), ("t", cbor2.CBORTag(42, 1)), ("m", {"a": [1, 2]})],
    "from-twice": head + [("from", 1)],
    "type-twice": head + [("type", "edge")],
    "no-kind": [head[0]] + head[2:],
    "kind-a-number": [head[0], ("kind", 5)] + head[2:],
    "from-a-text": head[:2] + [("from", "1"), head[3]],
    "from-negative": head[:2] + [("from", -1), head[3]],
}
if sys.argv[1] != "simple-value":
    edge = record(*cases[sys.argv[1]])
else:  # a simple value (16) no reader takes
    edge = bytes([0xa5]) + b"".join(cbor2.dumps(x) for x in ("type", "edge", "kind", "x", "from", 1, "to", 2, "s")) + bytes([0xf0])
sys.stdout.buffer.write(HEADER
    + record(("type", "wait"), ("id", 1), ("ts", 10), ("tid", 7), ("pid", 7), ("cpu", 0))
    + record(("type", "woken"), ("id", 2), ("ts", 20), ("tid", 7), ("pid", 7), ("cpu", 0))
    + edge)
' "$1" > "$BATS_TEST_TMPDIR/edge.cbor"
}

@test "an edge decoded from the head pass's framing matches the general parse" {
    local c s
    for c in plain weak float-tag-map from-twice type-twice no-kind kind-a-number from-a-text from-negative simple-value; do
        edge_stream $c
        for s in link-ipc link-wakeups validate to-json; do
            run -0 sh -c "argus-$s '$BATS_TEST_TMPDIR/edge.cbor' > '$BATS_TEST_TMPDIR/framed' 2>&1; echo \$?; ARGUS_READ_WHOLE=1 argus-$s '$BATS_TEST_TMPDIR/edge.cbor' > '$BATS_TEST_TMPDIR/whole' 2>&1; echo \$?"
            assert_equal "${lines[0]}" "${lines[1]}"
            cmp "$BATS_TEST_TMPDIR/framed" "$BATS_TEST_TMPDIR/whole"
        done
    done
    # what they say, in the order of the cases
    for c in from-twice no-kind from-a-text simple-value; do
        edge_stream $c
        run argus-validate "$BATS_TEST_TMPDIR/edge.cbor"
        assert_failure 65
        printf '%s\n' "$output" >> "$BATS_TEST_TMPDIR/said"
    done
    run cat "$BATS_TEST_TMPDIR/said"
    assert_output "argus-validate: $BATS_TEST_TMPDIR/edge.cbor: record 4 (byte 124): key \"from\" appears twice
argus-validate: $BATS_TEST_TMPDIR/edge.cbor: record 4 (byte 124): edge record has no text \"kind\"
argus-validate: $BATS_TEST_TMPDIR/edge.cbor: record 4 (byte 124): \"from\" of edge record is not an unsigned integer
argus-validate: $BATS_TEST_TMPDIR/edge.cbor: record 4 (byte 124): malformed CBOR at byte 30 of the record"
}

@test "every stage writes the same bytes whether records are decoded whole or not" {
    local n s out
    for n in demo/hang.jsonl spinning/flag.jsonl; do
        argus-decode "$ARGUS_ROOT/fixtures/$n" > "$BATS_TEST_TMPDIR/in.cbor"
        argus graph "$ARGUS_ROOT/fixtures/$n" > "$BATS_TEST_TMPDIR/in.graph"
        for s in cull-interrupts segment link-ipc link-dispatch link-flags link-wakeups to-json validate; do
            out=$(argus-$s "$BATS_TEST_TMPDIR/in.cbor" 2>&1 | od -An -tx1 | md5sum)
            assert_equal "$(ARGUS_READ_WHOLE=1 argus-$s "$BATS_TEST_TMPDIR/in.cbor" 2>&1 | od -An -tx1 | md5sum)" "$out"
        done
        for s in find-spinning report; do
            out=$(argus-$s "$BATS_TEST_TMPDIR/in.graph" 2>&1 | od -An -tx1 | md5sum)
            assert_equal "$(ARGUS_READ_WHOLE=1 argus-$s "$BATS_TEST_TMPDIR/in.graph" 2>&1 | od -An -tx1 | md5sum)" "$out"
        done
    done
    # a Linux recording through the whole graph
    gzip -dc "$ARGUS_ROOT/fixtures/real/gui-dbus/hang.txt.gz" > "$BATS_TEST_TMPDIR/gd.txt"
    out=$(argus graph "$BATS_TEST_TMPDIR/gd.txt" | argus-find-spinning | md5sum)
    assert_equal "$(ARGUS_READ_WHOLE=1 argus graph "$BATS_TEST_TMPDIR/gd.txt" | ARGUS_READ_WHOLE=1 argus-find-spinning | md5sum)" "$out"
}

@test "a binary-output program refuses a terminal with a hint, exit 64" {
    command -v script > /dev/null || skip "script (util-linux) is not installed"
    script -qec true /dev/null > /dev/null 2>&1 || skip "script cannot open a pseudo-terminal here"
    run script -qec "argus-decode fixtures/demo/hang.jsonl" /dev/null
    assert_failure 64
    assert_output --partial "argus-decode: not writing a binary stream to a terminal: pipe it (| argus to-json, | argus export) or redirect it to a file"
    run script -qec "argus-decode fixtures/demo/hang.jsonl | argus-segment" /dev/null
    assert_failure 64
    assert_output --partial "argus-segment: not writing a binary stream to a terminal"
    run script -qec "argus graph fixtures/demo/hang.jsonl" /dev/null
    assert_failure 64
    assert_output --partial "argus-chain: not writing a binary stream to a terminal"
    run script -qec "argus-decode fixtures/demo/hang.jsonl | argus-to-json | head -1" /dev/null
    assert_success
    assert_output --partial '{"type":"stream","format":"argus","version":1,"source":"jsonl"'
}

# ---- a full disk leaves whole records --------------------------

teardown() {
    if [ -n "${FULL_FS:-}" ]; then
        umount "$FULL_FS" 2>/dev/null || true
    fi
}

@test "a full disk: decode, a stage and argus-chain exit 74, output valid" {
    [ "$(id -u)" = 0 ] || skip "needs root to mount a small tmpfs"
    FULL_FS="$BATS_TEST_TMPDIR/full"
    mkdir -p "$FULL_FS"
    mount -t tmpfs -o size=64k tmpfs "$FULL_FS" || { FULL_FS=; skip "cannot mount a tmpfs here"; }
    # 1.7 MB, flushed in blocks of 1 MiB: the first block fills the disk
    "$ARGUS_ROOT/bench/gen" -n 20000 -s 7 > "$BATS_TEST_TMPDIR/gen.argus"
    argus-to-json "$BATS_TEST_TMPDIR/gen.argus" > "$BATS_TEST_TMPDIR/gen.jsonl"
    local filler prog
    # the space a filler file leaves moves where the disk fills up
    for filler in 0 777 5000; do
        for prog in "argus-decode --format jsonl $BATS_TEST_TMPDIR/gen.jsonl" \
            "argus-segment $BATS_TEST_TMPDIR/gen.argus" \
            "argus-chain cull-interrupts segment link-ipc $BATS_TEST_TMPDIR/gen.argus"; do
            rm -f "$FULL_FS"/*
            head -c "$filler" /dev/zero > "$FULL_FS/filler"
            run sh -c "$prog > $FULL_FS/out"
            assert_failure 74
            assert_output "${prog%% *}: write error: No space left on device"
            run argus-validate "$FULL_FS/out"
            assert_success
            # something was written: the test is not of an empty file
            run test -s "$FULL_FS/out"
            assert_success
        done
    done
}
