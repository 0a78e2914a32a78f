#!/usr/bin/env bats
# argus-link-wakeups: WAKE-EDGE, WAKE-WEAK, WAKE-EXTERNAL, WAKE-WORKQ.
# Expected outputs were worked out by hand from the rules (see
# docs/stages/link-wakeups.md).

load test_helper

# link FIXTURE [FLAGS...]: decoded, culled, linked, as JSON lines.
link() {
    local f=$1
    shift
    argus-decode "fixtures/graph/$f.jsonl" | argus-cull-interrupts | argus-link-wakeups "$@" | argus-to-json
}
# edges FILE [FLAGS...]: only the edges, one per line.
edges() {
    local f=$1
    shift
    argus-decode "$f" | argus-cull-interrupts | argus-link-wakeups "$@" | argus-to-json | jq -c 'select(.type=="edge")'
}
trace() { printf '%s\n' "$@" > "$BATS_TEST_TMPDIR/t.jsonl"; }
T="$BATS_TEST_TMPDIR/t.jsonl"
THREADS=('{"type":"thread","tid":1,"pid":10,"proc":"app","main":true}'
         '{"type":"thread","tid":2,"pid":20,"proc":"daemon"}'
         '{"type":"thread","tid":3,"pid":20,"proc":"daemon"}')

@test "WAKE-EDGE WAKE-WEAK: the paper's daemon: wakeup to woken strong, wait weak" {
    argus-decode fixtures/graph/wake-daemon.jsonl | argus-link-wakeups | argus-to-json > "$BATS_TEST_TMPDIR/out"
    run cat "$BATS_TEST_TMPDIR/out"
    assert_output "$(cat fixtures/graph/wake-daemon.link-wakeups.expected.jsonl)"
}

@test "WAKE-WEAK: --no-weak drops the wait edges and keeps the wakeup edges" {
    run edges fixtures/graph/wake-daemon.jsonl --no-weak
    assert_success
    assert_output '{"type":"edge","kind":"wakeup","from":6,"to":8}
{"type":"edge","kind":"wakeup","from":11,"to":13}'
}

@test "WAKE-EXTERNAL: a wakeup inside an interrupt gives a resume edge, no waker" {
    run link wake-io-interrupt
    assert_success
    assert_output "$(cat fixtures/graph/wake-io-interrupt.link-wakeups.expected.jsonl)"
}

@test "WAKE-EXTERNAL: --no-external links an interrupt's wakeup like any other" {
    run edges fixtures/graph/wake-io-interrupt.jsonl --no-external
    assert_success
    assert_output '{"type":"edge","kind":"wait","from":2,"to":5,"weak":true}
{"type":"edge","kind":"wakeup","from":5,"to":8}'
}

@test "WAKE-EXTERNAL: after cull-interrupts --drop the woken gets the resume edge" {
    run sh -c "argus-decode fixtures/graph/wake-io-interrupt.jsonl | argus-cull-interrupts --drop | argus-link-wakeups | argus-to-json | jq -c 'select(.type==\"edge\")'"
    assert_success
    assert_output '{"type":"edge","kind":"resume","from":2,"to":8}'
}

@test "WAKE-EXTERNAL: a timed-out woken gets a resume edge" {
    run sh -c "argus-decode fixtures/graph/wake-timed-out.jsonl | argus-link-wakeups | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/graph/wake-timed-out.link-wakeups.expected.jsonl)"
}

@test "WAKE-EXTERNAL: --no-external links timed-out wakeups like any other" {
    run edges fixtures/graph/wake-timed-out.jsonl --no-external
    assert_success
    assert_output '{"type":"edge","kind":"wait","from":1,"to":3,"weak":true}
{"type":"edge","kind":"wakeup","from":3,"to":4}
{"type":"edge","kind":"wait","from":7,"to":9,"weak":true}
{"type":"edge","kind":"wakeup","from":9,"to":10}'
}

@test "WAKE-EXTERNAL: a woken that no wakeup explains gets a resume edge, counted" {
    trace "${THREADS[@]}" \
        '{"type":"wait","ts":1,"tid":2,"reason":"biowait"}' \
        '{"type":"syscall","ts":5,"tid":2,"name":"read","phase":"end","ret":512}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"resume","from":1,"to":2}'
    run sh -c "argus-decode $T | argus-link-wakeups -v 2>&1 >/dev/null"
    assert_output 'argus-link-wakeups: woken without wakeup: 1
argus-link-wakeups: resume edges: 1'
    run edges "$T" --no-external
    assert_output ''
}

@test "WAKE-WORKQ: a handover between dispatch workers is a weak edge, held" {
    run sh -c "argus-decode fixtures/graph/wake-workq.jsonl | argus-link-wakeups | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/graph/wake-workq.link-wakeups.expected.jsonl)"
}

@test "WAKE-WORKQ: --no-workq makes every wakeup edge strong, after the woken" {
    run sh -c "argus-decode fixtures/graph/wake-workq.jsonl | argus-link-wakeups --no-workq | argus-to-json | jq -c 'select(.id >= 7 or .type==\"edge\") | [.type, .id // .from, .to, .weak]' | tr -d '\n'"
    assert_success
    assert_output '["woken",7,null,null]["edge",1,6,true]["edge",6,7,null]["dispatch_invoke",8,null,null]["wait",9,null,null]["dispatch_invoke",10,null,null]["wakeup",11,null,null]["woken",12,null,null]["edge",9,11,true]["edge",11,12,null]["ipc",13,null,null]'
    run edges fixtures/graph/wake-workq.jsonl --no-workq
    assert_output '{"type":"edge","kind":"wait","from":1,"to":6,"weak":true}
{"type":"edge","kind":"wakeup","from":6,"to":7}
{"type":"edge","kind":"wait","from":9,"to":11,"weak":true}
{"type":"edge","kind":"wakeup","from":11,"to":12}'
}

@test "WAKE-WORKQ: strong from a main thread, another process, or later work" {
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a","main":true}' \
        '{"type":"thread","tid":2,"pid":10,"proc":"a"}' '{"type":"thread","tid":3,"pid":10,"proc":"a"}' \
        '{"type":"thread","tid":4,"pid":40,"proc":"b"}' \
        '{"type":"wait","ts":1,"tid":2}' \
        '{"type":"dispatch_invoke","ts":2,"tid":1,"phase":"end","queue":1,"item":2}' \
        '{"type":"wakeup","ts":3,"tid":1,"target":2}' \
        '{"type":"dispatch_invoke","ts":4,"tid":2,"phase":"begin","queue":1,"item":3}' \
        '{"type":"wait","ts":5,"tid":3}' \
        '{"type":"dispatch_invoke","ts":6,"tid":4,"phase":"end","queue":1,"item":4}' \
        '{"type":"wakeup","ts":7,"tid":4,"target":3}' \
        '{"type":"dispatch_invoke","ts":8,"tid":3,"phase":"begin","queue":1,"item":5}' \
        '{"type":"dispatch_invoke","ts":9,"tid":2,"phase":"end","queue":1,"item":3}' \
        '{"type":"wait","ts":10,"tid":3}' \
        '{"type":"syscall","ts":11,"tid":2,"name":"write"}' \
        '{"type":"wakeup","ts":12,"tid":2,"target":3}' \
        '{"type":"dispatch_invoke","ts":13,"tid":3,"phase":"begin","queue":1,"item":6}'
    run sh -c "argus-decode $T | argus-link-wakeups --no-weak | argus-to-json | jq -c 'select(.type==\"edge\")'"
    assert_success
    assert_output '{"type":"edge","kind":"wakeup","from":3,"to":4}
{"type":"edge","kind":"wakeup","from":8,"to":9}
{"type":"edge","kind":"wakeup","from":14,"to":15}'
}

@test "WAKE-WORKQ: a held edge whose target does nothing more is strong at the end" {
    trace '{"type":"thread","tid":2,"pid":10,"proc":"a"}' '{"type":"thread","tid":3,"pid":10,"proc":"a"}' \
        '{"type":"wait","ts":1,"tid":3}' \
        '{"type":"dispatch_invoke","ts":2,"tid":2,"phase":"end","queue":1,"item":2}' \
        '{"type":"wakeup","ts":3,"tid":2,"target":3}' \
        '{"type":"woken","ts":4,"tid":3}' \
        '{"type":"interrupt","ts":5,"tid":3,"phase":"begin","irq":1}' \
        '{"type":"interrupt","ts":6,"tid":3,"phase":"end","irq":1}' \
        '{"type":"syscall","ts":7,"tid":2,"name":"write"}'
    run sh -c "argus-decode $T | argus-cull-interrupts | argus-link-wakeups | argus-to-json | jq -c 'select(.id or .type==\"edge\") | [.type, .id // .from, .to, .weak]' | tr -d '\n'"
    assert_success
    assert_output '["wait",1,null,null]["dispatch_invoke",2,null,null]["wakeup",3,null,null]["woken",4,null,null]["edge",1,3,true]["interrupt",5,null,null]["interrupt",6,null,null]["syscall",7,null,null]["edge",3,4,null]'
}

@test "WAKE-EDGE: of several wakeups before the woken the last wins, others counted" {
    trace "${THREADS[@]}" \
        '{"type":"wait","ts":1,"tid":1}' \
        '{"type":"wakeup","ts":2,"tid":2,"target":1}' \
        '{"type":"wakeup","ts":3,"tid":3,"target":1}' \
        '{"type":"syscall","ts":4,"tid":1,"name":"write"}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"wait","from":1,"to":3,"weak":true}
{"type":"edge","kind":"wakeup","from":3,"to":4}'
    run sh -c "argus-decode $T | argus-link-wakeups -v 2>&1 >/dev/null"
    assert_output 'argus-link-wakeups: wakeups replaced by a later one: 1
argus-link-wakeups: wait edges: 1
argus-link-wakeups: wakeup edges: 1'
}

@test "WAKE-EDGE: a wakeup of an unknown thread is linked when its woken comes" {
    trace "${THREADS[@]}" \
        '{"type":"wakeup","ts":1,"tid":2,"target":77}' \
        '{"type":"wakeup","ts":2,"tid":2,"target":78}' \
        '{"type":"woken","ts":3,"tid":77,"pid":70}' \
        '{"type":"syscall","ts":4,"tid":77,"pid":70,"name":"write"}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"wakeup","from":1,"to":3}'
    run sh -c "argus-decode $T | argus-link-wakeups -v 2>&1 >/dev/null"
    assert_output 'argus-link-wakeups: wakeups of an unknown thread: 2
argus-link-wakeups: woken without wait: 1
argus-link-wakeups: wakeup edges: 1
argus-link-wakeups: wakeups left without woken: 1'
}

@test "WAKE-EDGE: a wakeup of a thread not waiting is ignored and counted" {
    trace "${THREADS[@]}" \
        '{"type":"wakeup","ts":1,"tid":2,"target":3}' \
        '{"type":"woken","ts":2,"tid":3}' \
        '{"type":"syscall","ts":3,"tid":1,"name":"write"}' \
        '{"type":"wakeup","ts":4,"tid":2,"target":1}' \
        '{"type":"wait","ts":5,"tid":1}' \
        '{"type":"syscall","ts":6,"tid":1,"name":"write"}'
    run edges "$T"
    assert_success
    assert_output '{"type":"edge","kind":"wakeup","from":1,"to":2}
{"type":"edge","kind":"resume","from":5,"to":6}'
    run sh -c "argus-decode $T | argus-link-wakeups -v 2>&1 >/dev/null | head -2"
    assert_output 'argus-link-wakeups: woken without wait: 1
argus-link-wakeups: wakeup edges: 1'
    run sh -c "argus-decode $T | argus-link-wakeups -v 2>&1 >/dev/null | grep 'not waiting'"
    assert_output 'argus-link-wakeups: wakeups of a thread not waiting: 1'
}

@test "bad wakeups and waits ended without woken are counted and passed through" {
    printf '%s\n' "{'type':'stream','format':'argus','version':1,'stages':[]}" \
        "{'type':'thread','tid':1,'pid':1,'proc':'a'}" "{'type':'thread','tid':2,'pid':1,'proc':'a'}" \
        "{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}" \
        "{'type':'wakeup','id':2,'ts':2,'tid':2,'pid':1,'target':1}" \
        "{'type':'syscall','id':3,'ts':3,'tid':1,'pid':1,'name':'write'}" \
        "{'type':'wakeup','id':4,'ts':4,'tid':2,'pid':1}" \
        "{'type':'wakeup','id':5,'ts':5,'tid':2,'pid':1,'target':2}" \
        "{'type':'woken','id':6,'ts':6,'tid':1,'pid':1}" | cbor_records > "$BATS_TEST_TMPDIR/in.cbor"
    run sh -c "argus-link-wakeups -v $BATS_TEST_TMPDIR/in.cbor 2>$BATS_TEST_TMPDIR/err | argus-to-json > $BATS_TEST_TMPDIR/out; argus-to-json $BATS_TEST_TMPDIR/in.cbor | tail -n +2 > $BATS_TEST_TMPDIR/in; tail -n +2 $BATS_TEST_TMPDIR/out | diff $BATS_TEST_TMPDIR/in -"
    assert_success
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output 'argus-link-wakeups: waits ended without woken: 1
argus-link-wakeups: wakeups without target: 1
argus-link-wakeups: wakeups of the waker'"'"'s own thread: 1
argus-link-wakeups: woken without wait: 1
argus-link-wakeups: woken without wakeup: 1'
}

@test "WAKE-EDGE: --max-pending drops the oldest pending wakeup, counted" {
    trace "${THREADS[@]}" \
        '{"type":"wait","ts":1,"tid":1}' '{"type":"wait","ts":1,"tid":3}' \
        '{"type":"wakeup","ts":2,"tid":2,"target":1}' \
        '{"type":"wakeup","ts":3,"tid":2,"target":3}' \
        '{"type":"syscall","ts":4,"tid":1,"name":"write"}' \
        '{"type":"syscall","ts":5,"tid":3,"name":"write"}'
    run edges "$T" --max-pending 1 --no-weak
    assert_success
    assert_output '{"type":"edge","kind":"resume","from":1,"to":5}
{"type":"edge","kind":"wakeup","from":4,"to":7}'
    run sh -c "argus-decode $T | argus-link-wakeups --max-pending 1 -v 2>&1 >/dev/null | head -1"
    assert_output 'argus-link-wakeups: pending wakeups dropped (max-pending): 1'
}

@test "WAKE-EDGE WAKE-WEAK WAKE-EXTERNAL WAKE-WORKQ: -v counts every kind of edge" {
    run sh -c "for f in wake-daemon wake-io-interrupt wake-timed-out wake-workq; do argus-decode fixtures/graph/\$f.jsonl | argus-cull-interrupts | argus-link-wakeups -v 2>&1 >/dev/null; done"
    assert_success
    assert_output 'argus-link-wakeups: wait edges: 2
argus-link-wakeups: wakeup edges: 2
argus-link-wakeups: wakeups left out (WAKE-EXTERNAL): 1
argus-link-wakeups: resume edges: 1
argus-link-wakeups: wakeups left out (WAKE-EXTERNAL): 1
argus-link-wakeups: resume edges: 2
argus-link-wakeups: woken without wakeup: 1
argus-link-wakeups: wait edges: 1
argus-link-wakeups: wakeup edges: 1
argus-link-wakeups: wait edges: 2
argus-link-wakeups: wakeup edges made weak (WAKE-WORKQ): 1
argus-link-wakeups: wakeup edges: 1'
}

@test "every record passes through in order; the same edges around link-flags" {
    argus-decode fixtures/graph/wake-daemon.jsonl | argus-link-wakeups | argus-to-json | jq -c 'select(.type!="edge")' | tail -n +2 > "$BATS_TEST_TMPDIR/a"
    argus-decode fixtures/graph/wake-daemon.jsonl | argus-to-json | tail -n +2 > "$BATS_TEST_TMPDIR/b"
    run diff "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
    assert_success
    argus-decode fixtures/graph/wake-daemon.jsonl | argus-link-flags | argus-link-wakeups | argus-to-json > "$BATS_TEST_TMPDIR/c"
    argus-decode fixtures/graph/wake-daemon.jsonl | argus-link-wakeups | argus-link-flags | argus-to-json > "$BATS_TEST_TMPDIR/d"
    run diff <(tail -n +2 "$BATS_TEST_TMPDIR/c") <(tail -n +2 "$BATS_TEST_TMPDIR/d")
    assert_success
    trace '{"type":"thread","tid":1,"pid":10,"proc":"a"}' '{"type":"thread","tid":2,"pid":10,"proc":"a"}' \
        '{"type":"wait","ts":1,"tid":1,"seg":1,"note":"mine"}' \
        '{"type":"edge","kind":"ipc","from":1,"to":1}' \
        '{"type":"wakeup","ts":2,"tid":2,"target":1,"seg":2}' \
        '{"type":"woken","ts":3,"tid":1,"seg":3}'
    run sh -c "argus-decode $T | argus-link-wakeups | argus-to-json | tail -n +4"
    assert_output '{"type":"wait","id":1,"ts":1,"tid":1,"pid":10,"seg":1,"note":"mine"}
{"type":"edge","kind":"ipc","from":1,"to":1}
{"type":"wakeup","id":2,"ts":2,"tid":2,"pid":10,"target":1,"seg":2}
{"type":"woken","id":3,"ts":3,"tid":1,"pid":10,"seg":3}
{"type":"edge","kind":"wait","from":1,"to":2,"weak":true}
{"type":"edge","kind":"wakeup","from":2,"to":3}'
}

@test "malformed stream: exit 65 naming the record, records before it kept" {
    printf '%s\n' "$HEADER" "{'type':'wait','id':1,'ts':5,'tid':1,'pid':1}" \
        "{'type':'wakeup','id':1,'ts':6,'tid':2,'pid':1,'target':1}" | cbor_records > "$BATS_TEST_TMPDIR/bad.cbor"
    run sh -c "argus-link-wakeups $BATS_TEST_TMPDIR/bad.cbor 2>$BATS_TEST_TMPDIR/err > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --partial "argus-link-wakeups: $BATS_TEST_TMPDIR/bad.cbor: record 3"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/out.cbor | tail -1"
    assert_output '{"type":"wait","id":1,"ts":5,"tid":1,"pid":1}'
}

@test "--help names every rule, edge kind and flag; usage errors exit 64" {
    run argus-link-wakeups --help
    assert_success
    assert_line --index 0 "Usage: argus-link-wakeups [--no-weak] [--no-external] [--no-workq] [--max-pending N] [-v] [FILE|-]"
    assert_line --index 1 "Link wakeups to the woken they cause and waits to the wakeup that ends them."
    for word in WAKE-EDGE WAKE-WEAK WAKE-EXTERNAL WAKE-WORKQ '"wakeup"' '"wait"' '"resume"' \
        --no-weak --no-external --no-workq --max-pending --verbose; do
        assert_output --partial -- "$word"
    done
    run argus-link-wakeups --no-such-flag
    assert_failure 64
    run argus-link-wakeups --max-pending 0
    assert_failure 64
    run argus-link-wakeups a b
    assert_failure 64
}
