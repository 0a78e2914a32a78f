#!/usr/bin/env bats
# argus graph: the default pipeline, its stage cache, and graph-level
# scenarios that need several stages together.

load test_helper

# Edges between segments: "TID:sSEG -> TID:sSEG KIND [weak]".
seg_edges() {
    argus graph "$@" | argus-to-json | jq -rsc '
        (map(select(.id)) | map({key: (.id|tostring), value: {seg, tid}}) | from_entries) as $m
        | .[] | select(.type == "edge")
        | "\($m[.from|tostring].tid):s\($m[.from|tostring].seg) -> \($m[.to|tostring].tid):s\($m[.to|tostring].seg) \(.kind)\(if .weak then " weak" else "" end)"'
}

@test "argus graph runs decode, cull-interrupts, segment and the four link stages, in that order" {
    run sh -c 'argus graph fixtures/demo/hang.jsonl | argus-to-json | head -1'
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/demo/hang.jsonl","cull-interrupts","segment","link-ipc","link-dispatch","link-flags","link-wakeups"]}'
    run sh -c 'argus graph fixtures/demo/hang.jsonl | argus-validate'
    assert_success
    assert_output '<stdin>: valid: 38 records, 24 events, 5 threads, 8 edges, 8 segments, ts 1000000..3200500000 (3.199500000 s)'
}

@test "argus graph equals the hand-written pipeline, from a file or stdin" {
    argus-decode fixtures/demo/hang.jsonl | argus-cull-interrupts | argus-segment | argus-link-ipc \
        | argus-link-dispatch | argus-link-flags | argus-link-wakeups > "$BATS_TEST_TMPDIR/by-hand"
    argus graph fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/graph"
    run cmp "$BATS_TEST_TMPDIR/by-hand" "$BATS_TEST_TMPDIR/graph"
    assert_success
    argus graph < fixtures/demo/hang.jsonl | argus-to-json | head -1 > "$BATS_TEST_TMPDIR/stdin"
    run cat "$BATS_TEST_TMPDIR/stdin"
    assert_output --partial '"stages":["decode","cull-interrupts",'
}

@test "SEG-WAIT WAKE-EDGE WAKE-WEAK: seed 000's daemon thread: its segments 1 and 3 are joined only through the waker's segment 2" {
    run seg_edges fixtures/graph/wake-daemon.jsonl
    assert_success
    assert_output '2101:s1 -> 1001:s2 wait weak
1001:s2 -> 2101:s3 wakeup
1001:s2 -> 2101:s3 ipc
2101:s3 -> 2101:s3 reply
1001:s2 -> 2101:s3 wait weak
2101:s3 -> 1001:s4 wakeup
2101:s3 -> 1001:s4 ipc'
}

@test "SEG-CTX WAKE-EXTERNAL: seed 000's thread waiting for I/O: its segments before and after the wait are joined, the interrupt left out" {
    run seg_edges fixtures/graph/wake-io-interrupt.jsonl
    assert_success
    assert_output '2201:s1 -> 2201:s4 resume'
}

@test "-S replaces one stage's arguments" {
    run sh -c "argus graph -S 'segment --no-wait-split' fixtures/graph/wake-daemon.jsonl | argus-to-json | head -1"
    assert_success
    assert_output --partial '"segment --no-wait-split","link-ipc"'
    run argus graph -S 'frobnicate --x' fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus graph: -S 'frobnicate --x': no stage 'frobnicate' in the pipeline (decode cull-interrupts segment link-ipc link-dispatch link-flags link-wakeups)
Try 'argus graph --help' for more information."
}

@test "--cache: a rerun reuses every stage; changing segment's flags reruns segment and what follows only" {
    cache="$BATS_TEST_TMPDIR/cache"
    run sh -c "argus graph --cache $cache -v fixtures/demo/hang.jsonl 2>&1 >/dev/null | sed 's/ \(cached\|ran, kept as\) .*/ \1/'"
    assert_success
    assert_output 'argus graph: decode: ran, kept as
argus graph: cull-interrupts: ran, kept as
argus graph: segment: ran, kept as
argus graph: link-ipc: ran, kept as
argus graph: link-dispatch: ran, kept as
argus graph: link-flags: ran, kept as
argus graph: link-wakeups: ran, kept as'
    run sh -c "argus graph --cache $cache -v fixtures/demo/hang.jsonl 2>&1 >/dev/null | sed 's/ \(cached\|ran, kept as\) .*/ \1/'"
    assert_output 'argus graph: decode: cached
argus graph: cull-interrupts: cached
argus graph: segment: cached
argus graph: link-ipc: cached
argus graph: link-dispatch: cached
argus graph: link-flags: cached
argus graph: link-wakeups: cached'
    run sh -c "argus graph --cache $cache -v -S 'segment --no-ipc-split' fixtures/demo/hang.jsonl 2>&1 >/dev/null | sed 's/ \(cached\|ran, kept as\) .*/ \1/'"
    assert_output 'argus graph: decode: cached
argus graph: cull-interrupts: cached
argus graph: segment --no-ipc-split: ran, kept as
argus graph: link-ipc: ran, kept as
argus graph: link-dispatch: ran, kept as
argus graph: link-flags: ran, kept as
argus graph: link-wakeups: ran, kept as'
    # the cached result is the same stream as the uncached pipeline
    argus graph --cache "$cache" -S 'segment --no-ipc-split' fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/cached"
    argus graph -S 'segment --no-ipc-split' fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/plain"
    run cmp "$BATS_TEST_TMPDIR/cached" "$BATS_TEST_TMPDIR/plain"
    assert_success
    run sh -c "ls $cache | wc -l"
    assert_output 12
}

@test "--cache: a changed trace misses from the first stage on" {
    cache="$BATS_TEST_TMPDIR/cache"
    argus graph --cache "$cache" fixtures/demo/hang.jsonl > /dev/null
    sed 's/"keyDown"/"keyUp"/' fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/other.jsonl"
    run sh -c "argus graph --cache $cache -v $BATS_TEST_TMPDIR/other.jsonl 2>&1 >/dev/null | grep -c 'ran, kept as'"
    assert_output 7
}

@test "--cache: editing a --codes file decode reads misses from the first stage on" {
    cache="$BATS_TEST_TMPDIR/cache"
    # a RAW_VERSION1 file: one thread, one record of code 0x31000004
    python3 -c 'import struct,sys; h=struct.pack("<IiQI4x",0x55aa0101,1,0,0)+struct.pack("<Qi20s",7,9,b"app"); sys.stdout.buffer.write(h+bytes(4096-len(h))+struct.pack("<QQQQQQIIQ",5,1,2,3,4,7,0x31000004,0,0))' > "$BATS_TEST_TMPDIR/t.kdebug"
    echo '0x31000004 MyApp_draw' > "$BATS_TEST_TMPDIR/app.codes"
    argus graph --cache "$cache" -S "decode --codes $BATS_TEST_TMPDIR/app.codes" "$BATS_TEST_TMPDIR/t.kdebug" > /dev/null
    echo '0x31000004 MyApp_draw ui_event' > "$BATS_TEST_TMPDIR/app.codes"
    run sh -c "argus graph --cache $cache -v -S 'decode --codes $BATS_TEST_TMPDIR/app.codes' $BATS_TEST_TMPDIR/t.kdebug 2>&1 >/dev/null | grep -c 'ran, kept as'"
    assert_output 7
}

@test "a failing stage stops argus graph with its status and leaves no cache entry" {
    printf '{"type":"wait","ts":5,"tid":1,"pid":1}\n{"type":"wait","ts":4,"tid":1,"pid":1}\n' > "$BATS_TEST_TMPDIR/bad.jsonl"
    run argus graph --cache "$BATS_TEST_TMPDIR/c" "$BATS_TEST_TMPDIR/bad.jsonl"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.jsonl:2: ts 4 is before ts 5 of line 1: input must be in ts order"
    run ls "$BATS_TEST_TMPDIR/c"
    assert_output ""
    run sh -c "argus graph $BATS_TEST_TMPDIR/bad.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.jsonl:2: ts 4 is before ts 5 of line 1: input must be in ts order"
}

@test "a failing stage's message is printed alone: not those of the stages after it, left with an empty input" {
    run sh -c "argus graph /bin/sh > /dev/null"
    assert_failure 65
    assert_output "argus-decode: /bin/sh: cannot tell the input format: binary data, an ELF executable or library, not a kdebug file nor an argus stream; give --format if it is one"
    run sh -c "argus graph --no-chain /bin/sh > /dev/null"
    assert_failure 65
    assert_output "argus-decode: /bin/sh: cannot tell the input format: binary data, an ELF executable or library, not a kdebug file nor an argus stream; give --format if it is one"
    # a stage after decode fails: its message and status, not decode's SIGPIPE
    run sh -c "argus graph -S 'segment --bogus' fixtures/demo/hang.jsonl > /dev/null"
    assert_failure 64
    assert_output "argus-segment: bad option '--bogus' (unknown, or missing its value)
Try 'argus-segment --help' for more information."
}

@test "the messages of stages that succeed still reach stderr, in pipeline order" {
    run sh -c "argus graph -S 'segment -v' -S 'link-wakeups -v' fixtures/demo/hang.jsonl 2>&1 >/dev/null | cut -d: -f1 | uniq"
    assert_success
    assert_output "argus-segment
argus-link-wakeups"
}

@test "argus graph: a trace it cannot open exits 66 with the reason; a usage error is one line and where help is" {
    run argus graph fixtures/nonexistent.txt
    assert_failure 66
    assert_output "argus graph: fixtures/nonexistent.txt: No such file or directory"
    run argus graph fixtures
    assert_failure 66
    assert_output "argus graph: fixtures: Is a directory"
    run argus graph --bogus
    assert_failure 64
    assert_output "argus graph: bad option '--bogus'
Try 'argus graph --help' for more information."
    run argus graph fixtures/demo/hang.jsonl fixtures/demo/normal.jsonl
    assert_failure 64
    assert_output "argus graph: more than one trace
Try 'argus graph --help' for more information."
    run argus graph --version
    assert_success
    assert_output "argus 0.1.0"
}

@test "argus graph on a generated stream: decode passes an argus stream through" {
    "$ARGUS_ROOT/bench/gen" -n 20000 -s 7 > "$BATS_TEST_TMPDIR/gen.argus"
    run sh -c "argus graph $BATS_TEST_TMPDIR/gen.argus | argus-validate | sed 's/, ts .*//'"
    assert_success
    assert_output --regexp '^<stdin>: valid: [0-9]+ records, 20000 events, 204 threads, [1-9][0-9]+ edges, [1-9][0-9]+ segments$'
}

@test "bad input: an edge naming a missing event passes through every graph stage unchanged" {
    printf '%s\n' "$HEADER" "{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}" \
        "{'type':'edge','kind':'mine','from':99,'to':1}" "{'type':'woken','id':2,'ts':2,'tid':1,'pid':1}" \
        | cbor-records > "$BATS_TEST_TMPDIR/in.cbor"
    run sh -c "argus-cull-interrupts < $BATS_TEST_TMPDIR/in.cbor | argus-segment | argus-link-ipc | argus-link-dispatch | argus-link-flags | argus-link-wakeups | argus-to-json | jq -c 'select(.type==\"edge\")'"
    assert_success
    assert_output '{"type":"edge","kind":"mine","from":99,"to":1}
{"type":"edge","kind":"resume","from":1,"to":2}'
}
