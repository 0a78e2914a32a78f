#!/usr/bin/env bats
# argus-link-flags: FLAG-RW, FLAG-CA. Expected outputs were worked out by
# hand from the rules (docs/stages/link-flags.md).

load test_helper

# link FIXTURE [FLAGS...]: the fixture decoded and linked, as JSON lines.
link() {
    local f=$1
    shift
    argus-decode "fixtures/graph/$f.jsonl" | argus-link-flags "$@" | argus-to-json
}
# edges FILE [FLAGS...]: only the edges, one per line.
edges() {
    local f=$1
    shift
    argus-decode "$f" | argus-link-flags "$@" | argus-to-json | jq -c 'select(.type=="edge")'
}
trace() { printf '%s\n' "$@" > "$BATS_TEST_TMPDIR/t.jsonl"; }
T="$BATS_TEST_TMPDIR/t.jsonl"

@test "FLAG-RW: the paper's spinning-cursor flags link write to read and back" {
    run link flag-spinning
    assert_success
    assert_output "$(cat fixtures/graph/flag-spinning.link-flags.expected.jsonl)"
}

@test "FLAG-RW: a read by the latest writer's thread links from another's write" {
    run link flag-own-write
    assert_success
    assert_output "$(cat fixtures/graph/flag-own-write.link-flags.expected.jsonl)"
}

@test "FLAG-RW: a read of another value is not linked; a read without value is" {
    run link flag-value-differs
    assert_success
    assert_output "$(cat fixtures/graph/flag-value-differs.link-flags.expected.jsonl)"
}

@test "FLAG-RW: a read with no write before it is not linked, and counted" {
    run link flag-no-write
    assert_success
    assert_output "$(cat fixtures/graph/flag-no-write.link-flags.expected.jsonl)"
    run sh -c "argus-decode fixtures/graph/flag-no-write.jsonl | argus-link-flags -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-link-flags: flag reads with no write by another thread: 1
argus-link-flags: flag edges: 2"
}

@test "FLAG-RW: --same-process leaves out another process's write" {
    run edges fixtures/graph/flag-no-write.jsonl --same-process
    assert_success
    assert_output '{"type":"edge","kind":"flag","from":4,"to":5}'
}

@test "FLAG-RW: the edge is written right after the read" {
    run sh -c "argus-decode fixtures/graph/flag-spinning.jsonl | argus-link-flags | argus-to-json | jq -c 'select(.type==\"edge\" or .type==\"flag_read\") | [.type, .id // .to]' | tr -d '\n'"
    assert_success
    assert_output '["flag_read",4]["flag_read",5]["flag_read",8]["flag_read",13]["edge",13]["flag_read",17]["edge",17]["flag_read",18]["edge",18]["flag_read",19]'
}

@test "FLAG-RW: values are equal as uints, as texts, or as the same CBOR bytes" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":10,"proc":"a"}' \
        '{"type":"flag_write","ts":1,"tid":1,"addr":16,"value":"ready"}' \
        '{"type":"flag_read","ts":2,"tid":2,"addr":16,"value":"ready"}' \
        '{"type":"flag_read","ts":3,"tid":2,"addr":16,"value":"done"}' \
        '{"type":"flag_read","ts":4,"tid":2,"addr":16,"value":0}' \
        '{"type":"flag_write","ts":5,"tid":1,"addr":32,"value":[1,-2]}' \
        '{"type":"flag_read","ts":6,"tid":2,"addr":32,"value":[1,-2]}' \
        '{"type":"flag_read","ts":7,"tid":2,"addr":32,"value":[1,2]}' \
        '{"type":"flag_write","ts":8,"tid":1,"addr":48,"value":18446744073709551615}' \
        '{"type":"flag_read","ts":9,"tid":2,"addr":48,"value":18446744073709551615}' \
        '{"type":"flag_read","ts":10,"tid":2,"addr":48,"value":-1}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"flag","from":1,"to":2}
{"type":"edge","kind":"flag","from":5,"to":6}
{"type":"edge","kind":"flag","from":8,"to":9}'
}

@test "FLAG-RW: a uint value compares by value, whatever its CBOR width" {
    # the write's value 1 is one byte (0x01), the read's nine (0x1b 0...01)
    /usr/bin/python3 -c '
import sys, cbor2
def rec(d, extra=b""):
    b = cbor2.dumps(d)
    return bytes([b[0] + (1 if extra else 0)]) + b[1:] + extra
out = cbor2.dumps({"type":"stream","format":"argus","version":1,"stages":[]})
out += rec({"type":"flag_write","id":1,"ts":1,"tid":1,"pid":1,"addr":8,"value":1})
out += rec({"type":"flag_read","id":2,"ts":2,"tid":2,"pid":1,"addr":8},
           cbor2.dumps("value") + bytes([0x1b,0,0,0,0,0,0,0,1]))
sys.stdout.buffer.write(out)' > "$BATS_TEST_TMPDIR/a.cbor"
    run sh -c "argus-link-flags $BATS_TEST_TMPDIR/a.cbor | argus-to-json | tail -2"
    assert_success
    assert_output '{"type":"flag_read","id":2,"ts":2,"tid":2,"pid":1,"addr":"0x8","value":1}
{"type":"edge","kind":"flag","from":1,"to":2}'
}

@test "FLAG-RW: the reader's own write is not linked; another thread's earlier is" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":10,"proc":"a"}' \
        '{"type":"flag_write","ts":1,"tid":1,"addr":16}' \
        '{"type":"flag_read","ts":2,"tid":1,"addr":16}' \
        '{"type":"flag_write","ts":3,"tid":2,"addr":16}' \
        '{"type":"flag_write","ts":4,"tid":1,"addr":16}' \
        '{"type":"flag_write","ts":5,"tid":1,"addr":16}' \
        '{"type":"flag_read","ts":6,"tid":1,"addr":16}' \
        '{"type":"flag_read","ts":7,"tid":2,"addr":16}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"flag","from":3,"to":6}
{"type":"edge","kind":"flag","from":5,"to":7}'
}

@test "FLAG-CA: a worker's needs-display marks link to the main thread's display" {
    run link ca-needs-display
    assert_success
    assert_output "$(cat fixtures/graph/ca-needs-display.link-flags.expected.jsonl)"
}

@test "FLAG-CA: a display without phase links like a begin; --same-process too" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":20,"proc":"b"}' \
        '{"type":"ca_set","ts":1,"tid":1,"obj":"0x600000c01200"}' \
        '{"type":"ca_set","ts":2,"tid":2,"obj":"0x600000c01200"}' \
        '{"type":"ca_display","ts":3,"tid":1,"obj":"0x600000c01200"}' \
        '{"type":"ca_display","ts":4,"tid":1,"obj":"0x600000c01200"}' \
        '{"type":"ca_display","ts":5,"tid":2,"obj":"0x600000c01200","phase":"end"}' \
        '{"type":"ca_display","ts":6,"tid":2,"obj":"0x600000c01200","phase":"begin"}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"display","from":1,"to":3}
{"type":"edge","kind":"display","from":2,"to":3}'
    run edges "$T" --same-process
    assert_success
    assert_output '{"type":"edge","kind":"display","from":1,"to":3}
{"type":"edge","kind":"display","from":2,"to":6}'
}

@test "FLAG-RW: --no-rw writes no flag edges and FLAG-CA still applies" {
    run edges fixtures/graph/flag-spinning.jsonl --no-rw
    assert_success
    assert_output ''
    run sh -c "argus-decode fixtures/graph/ca-needs-display.jsonl | argus-link-flags --no-rw | argus-to-json | jq -c 'select(.type==\"edge\")' | wc -l"
    assert_output 5
}

@test "FLAG-CA: --no-ca writes no display edges and FLAG-RW still applies" {
    run edges fixtures/graph/ca-needs-display.jsonl --no-ca
    assert_success
    assert_output ''
    run sh -c "argus-decode fixtures/graph/flag-spinning.jsonl | argus-link-flags --no-ca | argus-to-json | jq -c 'select(.type==\"edge\")' | wc -l"
    assert_output 3
}

@test "FLAG-RW FLAG-CA: --max-pending drops the oldest address and mark, counted" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":10,"proc":"a"}' \
        '{"type":"flag_write","ts":1,"tid":1,"addr":16}' \
        '{"type":"flag_write","ts":2,"tid":1,"addr":32}' \
        '{"type":"flag_write","ts":3,"tid":1,"addr":48}' \
        '{"type":"flag_read","ts":4,"tid":2,"addr":16}' \
        '{"type":"flag_read","ts":5,"tid":2,"addr":32}' \
        '{"type":"flag_read","ts":6,"tid":2,"addr":48}' \
        '{"type":"ca_set","ts":7,"tid":1,"obj":1}' \
        '{"type":"ca_set","ts":8,"tid":1,"obj":2}' \
        '{"type":"ca_set","ts":9,"tid":1,"obj":2}' \
        '{"type":"ca_display","ts":10,"tid":2,"obj":1}' \
        '{"type":"ca_display","ts":11,"tid":2,"obj":2}'
    run edges "$T" --max-pending 2
    assert_success
    assert_output '{"type":"edge","kind":"flag","from":2,"to":5}
{"type":"edge","kind":"flag","from":3,"to":6}
{"type":"edge","kind":"display","from":8,"to":11}
{"type":"edge","kind":"display","from":9,"to":11}'
    run sh -c "argus-decode $T | argus-link-flags -v --max-pending 2 2>&1 >/dev/null"
    assert_output "argus-link-flags: flag addresses dropped (max-pending): 1
argus-link-flags: flag reads with no write by another thread: 1
argus-link-flags: flag edges: 2
argus-link-flags: ca_set marks dropped (max-pending): 1
argus-link-flags: ca_display with no ca_set: 1
argus-link-flags: display edges: 2"
}

@test "FLAG-RW: -v counts edges, reads with no write and reads of another value" {
    run sh -c "argus-decode fixtures/graph/flag-spinning.jsonl | argus-link-flags -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-link-flags: flag reads with no write by another thread: 3
argus-link-flags: flag edges: 3
argus-link-flags: flag reads of another value: 1"
}

@test "FLAG-CA: -v counts display edges, empty displays and marks never displayed" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' \
        '{"type":"ca_set","ts":1,"tid":1,"obj":1}' '{"type":"ca_set","ts":2,"tid":1,"obj":2}' \
        '{"type":"ca_display","ts":3,"tid":1,"obj":1}' '{"type":"ca_display","ts":4,"tid":1,"obj":3}'
    run sh -c "argus-decode $T | argus-link-flags -v 2>&1 >/dev/null"
    assert_success
    assert_output "argus-link-flags: display edges: 1
argus-link-flags: ca_display with no ca_set: 1
argus-link-flags: ca_set marks left without display: 1"
}

@test "bad input: flag and ca events without addr or obj pass through and are counted" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' \
        '{"type":"flag_write","ts":1,"tid":1,"value":1}' '{"type":"flag_read","ts":2,"tid":1}' \
        '{"type":"ca_set","ts":3,"tid":1}' '{"type":"ca_display","ts":4,"tid":1,"phase":"begin"}'
    run sh -c "argus-decode $T | argus-link-flags -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | tail -n +2"
    assert_success
    assert_output '{"type":"thread","tid":1,"pid":10,"proc":"a"}
{"type":"flag_write","id":1,"ts":1,"tid":1,"pid":10,"value":1}
{"type":"flag_read","id":2,"ts":2,"tid":1,"pid":10}
{"type":"ca_set","id":3,"ts":3,"tid":1,"pid":10}
{"type":"ca_display","id":4,"ts":4,"tid":1,"pid":10,"phase":"begin"}'
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-link-flags: flag events without addr: 2
argus-link-flags: ca events without obj: 2"
}

@test "every record passes through unchanged and in order" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":10,"proc":"a"}' \
        '{"type":"my_marker","label":"x"}' \
        '{"type":"flag_write","ts":1,"tid":1,"addr":16,"value":1,"note":"mine","seg":4}' \
        '{"type":"edge","kind":"ipc","from":1,"to":1}' \
        '{"type":"exec","ts":2,"tid":2,"path":"/bin/sh"}' \
        '{"type":"flag_read","ts":3,"tid":2,"addr":16,"value":1,"seg":5}'
    run sh -c "argus-decode $T | argus-link-flags | argus-to-json | tail -n +2"
    assert_success
    assert_output '{"type":"thread","tid":1,"pid":10,"proc":"a"}
{"type":"thread","tid":2,"pid":10,"proc":"a"}
{"type":"my_marker","label":"x"}
{"type":"flag_write","id":1,"ts":1,"tid":1,"pid":10,"addr":"0x10","value":1,"note":"mine","seg":4}
{"type":"edge","kind":"ipc","from":1,"to":1}
{"type":"exec","id":2,"ts":2,"tid":2,"pid":10,"path":"/bin/sh"}
{"type":"flag_read","id":3,"ts":3,"tid":2,"pid":10,"addr":"0x10","value":1,"seg":5}
{"type":"edge","kind":"flag","from":1,"to":3}'
}

@test "FLAG-RW FLAG-CA: the same edges before or after link-wakeups; stage listed" {
    argus-decode fixtures/graph/flag-spinning.jsonl | argus-link-wakeups | argus-link-flags | argus-to-json > "$BATS_TEST_TMPDIR/a"
    argus-decode fixtures/graph/flag-spinning.jsonl | argus-link-flags | argus-link-wakeups | argus-to-json > "$BATS_TEST_TMPDIR/b"
    run sh -c "jq -c 'select(.kind==\"flag\")' $BATS_TEST_TMPDIR/a"
    assert_output "$(jq -c 'select(.kind=="flag")' "$BATS_TEST_TMPDIR/b")"
    run sh -c "head -1 $BATS_TEST_TMPDIR/a"
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/graph/flag-spinning.jsonl","link-wakeups","link-flags"]}'
}

@test "malformed stream: exit 65 naming the record, records before it kept" {
    printf '%s\n' "$HEADER" "{'type':'flag_write','id':1,'ts':5,'tid':1,'pid':1,'addr':8}" \
        "{'type':'flag_read','id':2,'ts':4,'tid':2,'pid':1,'addr':8}" | cbor_records > "$BATS_TEST_TMPDIR/bad.cbor"
    run sh -c "argus-link-flags $BATS_TEST_TMPDIR/bad.cbor 2>$BATS_TEST_TMPDIR/err > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "argus-link-flags: $BATS_TEST_TMPDIR/bad.cbor: record 3"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/out.cbor | tail -1"
    assert_output '{"type":"flag_write","id":1,"ts":5,"tid":1,"pid":1,"addr":"0x8"}'
}

@test "--help names every rule and flag; usage errors exit 64" {
    run argus-link-flags --help
    assert_success
    assert_line --index 0 "Usage: argus-link-flags [--no-rw] [--no-ca] [--same-process] [--max-pending N] [-v] [FILE|-]"
    assert_line --index 1 "Link shared-flag writes to their reads and needs-display marks to their display."
    for word in FLAG-RW FLAG-CA --no-rw --no-ca --same-process --max-pending --verbose '"flag"' '"display"'; do
        assert_output --partial "$word"
    done
    run argus-link-flags --no-such-flag
    assert_failure 64
    run argus-link-flags --max-pending 0
    assert_failure 64
    assert_output --partial "--max-pending: must be at least 1"
    run argus-link-flags --max-pending x
    assert_failure 64
}
