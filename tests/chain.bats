#!/usr/bin/env bats
# argus-chain: the built-in graph stages run in one process, each record
# handed from stage to stage in memory. What it writes must be
# what the pipe of the separate programs writes, byte for byte.

load test_helper
bats_require_minimum_version 1.5.0

STAGES="cull-interrupts segment link-ipc link-dispatch link-flags link-wakeups"

# The pipe of the programs of the stages named, over stdin.
pipe_of() {
    local cmd="cat" s
    for s in "$@"; do cmd="$cmd | argus-$s"; done
    sh -c "$cmd"
}

# Every decodable trace of the project: the hand-written fixtures and the
# real recordings (unpacked), decoded once each.
decoded_traces() {
    local f dir=$BATS_TEST_TMPDIR/decoded
    mkdir -p "$dir"
    for f in fixtures/*/*.jsonl fixtures/ftrace/*.txt fixtures/ftrace/*.html; do
        case $f in *.expected.jsonl) continue ;; esac
        argus-decode "$f" > "$dir/$(echo "$f" | tr / _)" 2>/dev/null || true
    done
    for f in fixtures/real/*/*.txt.gz; do
        zcat "$f" | argus-decode > "$dir/$(echo "$f" | tr / _)"
    done
    find "$dir" -type f -size +0 | sort
}

@test "argus-chain of the six stages equals their pipe byte for byte, everywhere" {
    local n=0 f
    while read -r f; do
        # shellcheck disable=SC2086
        pipe_of $STAGES < "$f" > "$BATS_TEST_TMPDIR/pipe"
        # shellcheck disable=SC2086
        argus-chain $STAGES < "$f" > "$BATS_TEST_TMPDIR/chain"
        cmp "$BATS_TEST_TMPDIR/pipe" "$BATS_TEST_TMPDIR/chain" || { echo "differs: $f"; return 1; }
        n=$((n + 1))
    done < <(decoded_traces)
    # the fixtures and the 14 real recordings' hang and normal runs
    [ "$n" -ge 80 ] || { echo "only $n traces"; return 1; }
}

@test "argus-chain of any run of stages, in any order, equals their pipe" {
    zcat fixtures/real/gui-dbus/hang.txt.gz | argus-decode > "$BATS_TEST_TMPDIR/in"
    local run
    for run in "segment" "link-wakeups" "segment link-wakeups" "link-ipc segment" \
        "cull-interrupts segment link-ipc" "link-flags link-dispatch link-ipc"; do
        # shellcheck disable=SC2086
        pipe_of $run < "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/pipe"
        # shellcheck disable=SC2086
        argus-chain $run "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/chain"
        cmp "$BATS_TEST_TMPDIR/pipe" "$BATS_TEST_TMPDIR/chain" || { echo "differs: $run"; return 1; }
    done
}

@test "argus-chain appends each stage's name to the header's stages" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-chain segment link-ipc | argus-to-json | head -1'
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/demo/hang.jsonl","segment","link-ipc"]}'
}

@test "argus-chain -v prints each stage's counters, stage after stage" {
    argus-decode fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/in"
    argus-segment -v < "$BATS_TEST_TMPDIR/in" 2> "$BATS_TEST_TMPDIR/want" \
        | argus-link-ipc -v > /dev/null 2>> "$BATS_TEST_TMPDIR/want"
    run sh -c "argus-chain -v segment link-ipc < '$BATS_TEST_TMPDIR/in' 2>&1 >/dev/null"
    assert_success
    assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
    assert_line 'argus-segment: segments: 8'
    assert_line 'argus-link-ipc: ipc edges: 2'
}

@test "argus-chain: an unknown stage, or none, is a usage error (exit 64)" {
    run argus-chain segment frobnicate fixtures/demo/hang.jsonl
    assert_failure 64
    assert_line --index 0 "argus-chain: no built-in stage 'frobnicate' (one of cull-interrupts, segment, link-ipc, link-dispatch, link-flags, link-wakeups)"
    run argus-chain
    assert_failure 64
    assert_line --index 0 "argus-chain: no stage given"
}

@test "argus-chain refuses bad input at its record (65); records before written" {
    cbor_records > "$BATS_TEST_TMPDIR/in" <<EOF
$HEADER
{'type':'wait','id':1,'ts':10,'tid':7,'pid':1}
{'type':'woken','id':2,'ts':5,'tid':7,'pid':1}
EOF
    run sh -c "argus-chain segment link-wakeups '$BATS_TEST_TMPDIR/in' 2>&1 >'$BATS_TEST_TMPDIR/out'"
    assert_failure 65
    assert_output "argus-chain: $BATS_TEST_TMPDIR/in: record 3 (byte 93): ts goes backwards: event 2 has ts 5, before ts 10 of event 1"
    run sh -c "argus-to-json < '$BATS_TEST_TMPDIR/out'"
    assert_success
    assert_line --index 1 '{"type":"wait","id":1,"ts":10,"tid":7,"pid":1,"seg":1}'
}

# A bin directory whose argus-segment logs each run, to see which stages
# ran as programs of their own.
logging_bin() {
    local bin=$BATS_TEST_TMPDIR/bin
    mkdir -p "$bin"
    cp "$ARGUS_BIN"/argus "$ARGUS_BIN"/argus-* "$bin/"
    mv "$bin/argus-segment" "$bin/argus-segment.real"
    cat > "$bin/argus-segment" <<EOF
#!/bin/bash
echo "argus-segment \$*" >> "$BATS_TEST_TMPDIR/ran"
exec -a argus-segment "$bin/argus-segment.real" "\$@"
EOF
    chmod +x "$bin/argus-segment"
    echo "$bin"
}

@test "argus graph chains the stages; one given -S options runs as its program" {
    local bin
    bin=$(logging_bin)
    "$bin/argus" graph fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/chained"
    [ ! -e "$BATS_TEST_TMPDIR/ran" ] || { echo "segment ran as a program"; return 1; }
    "$bin/argus" graph -S 'segment --no-wait-split' fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/split"
    run cat "$BATS_TEST_TMPDIR/ran"
    assert_output "argus-segment --no-wait-split"
    # the same bytes as every stage in a pipe of its own
    argus graph --no-chain -S 'segment --no-wait-split' fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/separate"
    run cmp "$BATS_TEST_TMPDIR/split" "$BATS_TEST_TMPDIR/separate"
    assert_success
}

@test "argus graph --no-chain runs every stage as its own program, with the same output" {
    local bin
    bin=$(logging_bin)
    "$bin/argus" graph --no-chain fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/separate"
    run cat "$BATS_TEST_TMPDIR/ran"
    assert_output "argus-segment "
    argus graph fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/chained"
    run cmp "$BATS_TEST_TMPDIR/separate" "$BATS_TEST_TMPDIR/chained"
    assert_success
}

@test "argus-chain names a record the next stage refuses as the stage's output" {
    /usr/bin/python3 -c '
import sys, cbor2
def record(*pairs):  # a map written pair by pair: a key may come twice
    return bytes([0xa0 + len(pairs)]) + b"".join(cbor2.dumps(k) + cbor2.dumps(v) for k, v in pairs)
sys.stdout.buffer.write(cbor2.dumps({"type": "stream", "format": "argus", "version": 1, "source": "test", "stages": []})
    + record(("type", "wakeup"), ("id", 1), ("ts", 10), ("tid", 7), ("pid", 7), ("target", 8), ("k", 1), ("k", 2)))
' > "$BATS_TEST_TMPDIR/dup.cbor"
    # segment adds seg without looking into the wakeup; link-wakeups reads it
    run --separate-stderr argus-chain segment link-wakeups "$BATS_TEST_TMPDIR/dup.cbor"
    assert_failure 65
    assert_equal "$stderr" "argus-chain: segment's output: record 2 (byte 63): key \"k\" appears twice"
    run --separate-stderr sh -c "argus-segment < '$BATS_TEST_TMPDIR/dup.cbor' | argus-link-wakeups"
    assert_failure 65
    assert_equal "$stderr" "argus-link-wakeups: <stdin>: record 2 (byte 63): key \"k\" appears twice"
}

# What argus-chain [--format F] decode STAGES TRACE must give: the output
# of argus-decode [--format F] TRACE | argus-chain STAGES, the status and
# messages of decode when it fails (what argus graph tells), else of the
# chain. Prints "differs: WHAT" and fails when the fused run gives other.
same_as_decode_pipe() { # same_as_decode_pipe TRACE [FORMAT]
    local t=$BATS_TEST_TMPDIR f=$1 st=0
    local -a fmt=()
    [ -z "${2-}" ] || fmt=(--format "$2")
    # shellcheck disable=SC2086
    { s=0; argus-decode "${fmt[@]}" "$f" 2> "$t/decode.err" || s=$?; echo $s > "$t/decode.st"; } |
        argus-chain $STAGES > "$t/want" 2> "$t/chain.err" || st=$?
    if [ "$(cat "$t/decode.st")" != 0 ]; then
        st=$(cat "$t/decode.st")
        cp "$t/decode.err" "$t/want.err"
    else
        cat "$t/decode.err" "$t/chain.err" > "$t/want.err"
    fi
    local got=0
    # shellcheck disable=SC2086
    argus-chain "${fmt[@]}" decode $STAGES "$f" > "$t/got" 2> "$t/got.err" || got=$?
    cmp -s "$t/want" "$t/got" || { echo "differs: output of $f"; return 1; }
    cmp -s "$t/want.err" "$t/got.err" || { echo "differs: messages of $f"; diff "$t/want.err" "$t/got.err"; return 1; }
    [ "$st" = "$got" ] || { echo "differs: status of $f: $st, fused $got"; return 1; }
}

@test "argus-chain decode equals the pipe from argus-decode, status and messages" {
    local n=0 f
    for f in fixtures/*/*.jsonl fixtures/ftrace/*.txt fixtures/ftrace/*.html fixtures/kdebug/*.txt; do
        case $f in *.expected.jsonl) continue ;; esac
        same_as_decode_pipe "$f" || return 1
        n=$((n + 1))
    done
    for f in fixtures/real/*/*.txt.gz; do
        zcat "$f" > "$BATS_TEST_TMPDIR/real.txt"
        same_as_decode_pipe "$BATS_TEST_TMPDIR/real.txt" ftrace || { echo "($f)"; return 1; }
        n=$((n + 1))
    done
    # a kdebug file of several blocks of the channel between the threads
    bench/gen-kdebug --size-mb 4 --seed 5 > "$BATS_TEST_TMPDIR/k.bin"
    same_as_decode_pipe "$BATS_TEST_TMPDIR/k.bin" kdebug
    [ "$n" -ge 80 ] || { echo "only $n traces"; return 1; }
}

@test "argus-chain decode: on a decode error the stages finish what came before" {
    # a line cut short in the middle of the demo trace
    { head -30 fixtures/demo/hang.jsonl; echo '{"type":"wakeup"'; tail -n +31 fixtures/demo/hang.jsonl; } \
        > "$BATS_TEST_TMPDIR/cut.jsonl"
    run --separate-stderr sh -c "argus-chain -v decode $STAGES '$BATS_TEST_TMPDIR/cut.jsonl' > '$BATS_TEST_TMPDIR/out'"
    assert_failure 65
    assert_equal "$stderr" "argus-decode: $BATS_TEST_TMPDIR/cut.jsonl:31: unterminated JSON object (a record must be on one line)"
    # the records before line 31 went through every stage: segments, and
    # link-ipc's edge
    run sh -c "argus-to-json < '$BATS_TEST_TMPDIR/out'"
    assert_success
    assert_line --index 0 "{\"type\":\"stream\",\"format\":\"argus\",\"version\":1,\"source\":\"jsonl\",\"stages\":[\"decode $BATS_TEST_TMPDIR/cut.jsonl\",\"cull-interrupts\",\"segment\",\"link-ipc\",\"link-dispatch\",\"link-flags\",\"link-wakeups\"]}"
    assert_line '{"type":"edge","kind":"ipc","from":3,"to":5}'
    assert_line '{"type":"wakeup","id":8,"ts":1400000,"tid":2001,"pid":200,"target":2002,"seg":2}'
    same_as_decode_pipe "$BATS_TEST_TMPDIR/cut.jsonl"
    # a kdebug file cut inside a record, and an empty file
    bench/gen-kdebug --size-mb 3 --seed 5 | head -c 1000003 > "$BATS_TEST_TMPDIR/cut.bin"
    same_as_decode_pipe "$BATS_TEST_TMPDIR/cut.bin" kdebug
    : > "$BATS_TEST_TMPDIR/empty"
    same_as_decode_pipe "$BATS_TEST_TMPDIR/empty"
    run argus-chain decode segment "$BATS_TEST_TMPDIR/empty"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/empty: empty input: no trace in it (0 bytes)"
}

@test "argus-chain -v decode prints decode's counters, then each stage's" {
    bench/gen-kdebug --size-mb 1 --seed 2 > "$BATS_TEST_TMPDIR/k.bin"
    { argus-decode -v --format kdebug "$BATS_TEST_TMPDIR/k.bin" 2> "$BATS_TEST_TMPDIR/want" |
        argus-chain -v segment link-wakeups > /dev/null 2>> "$BATS_TEST_TMPDIR/want"; }
    run --separate-stderr sh -c "argus-chain -v --format kdebug decode segment link-wakeups '$BATS_TEST_TMPDIR/k.bin' > /dev/null"
    assert_success
    assert_equal "$stderr" "$(cat "$BATS_TEST_TMPDIR/want")"
    assert_equal "$(head -1 <<< "$stderr" | cut -d' ' -f1-4)" "argus-decode: 15113 records read,"
    assert_equal "$(tail -1 <<< "$stderr" | cut -d: -f1)" "argus-link-wakeups"
}

@test "argus-chain: --format misplaced or unknown is a usage error (64)" {
    run argus-chain --format kdebug segment x.bin
    assert_failure 64
    assert_line --index 0 "argus-chain: --format is decode's: give decode as the first stage"
    run argus-chain segment decode x.bin
    assert_failure 64
    assert_line --index 0 "argus-chain: decode is the first stage or none"
    run argus-chain --format pcap decode segment x.bin
    assert_failure 64
    assert_line --index 0 "argus-chain: unknown format 'pcap' (the formats: argus, jsonl, kdebug, trace-text, ftrace, tracedat, perfdata, perfetto, ctf); argus tells the format from the trace itself: argus diagnose x.bin"
    run argus-chain decode x.bin
    assert_failure 64
    assert_line --index 0 "argus-chain: no stage given after decode"
}

# A bin directory whose argus-decode fails, to see whether decode ran as a
# program of its own.
no_decode_bin() {
    local bin=$BATS_TEST_TMPDIR/nodecode
    mkdir -p "$bin"
    cp "$ARGUS_BIN"/argus "$ARGUS_BIN"/argus-* "$bin/"
    printf '#!/bin/sh\necho "argus-decode ran" >&2\nexit 99\n' > "$bin/argus-decode"
    echo "$bin"
}

@test "argus graph decodes in its chain; other decode options run argus-decode" {
    local bin
    bin=$(no_decode_bin)
    "$bin/argus" graph -f jsonl fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/fused"
    argus graph --no-chain -f jsonl fixtures/graph/wake-daemon.jsonl > "$BATS_TEST_TMPDIR/separate"
    run cmp "$BATS_TEST_TMPDIR/fused" "$BATS_TEST_TMPDIR/separate"
    assert_success
    run "$bin/argus" graph -S 'decode --window 100' fixtures/kdebug/text-sched.txt
    assert_failure 99
    assert_output "argus-decode ran"
    run "$bin/argus" graph --no-chain fixtures/graph/wake-daemon.jsonl
    assert_failure 99
}

@test "argus-chain decode forks a decoder's trial child before the stages' thread" {
    command -v strace > /dev/null || skip "no strace"
    local T=$BATS_TEST_TMPDIR f
    zcat fixtures/perfdata/pipe-sleep.data.gz > "$T/sleep.data"
    for f in "$T/sleep.data" fixtures/tracedat/sleep-v6.dat fixtures/ctf/perf-sleep; do
        strace -f -e trace=clone,clone3,fork,vfork -o "$T/clones" \
            argus-chain decode segment "$f" > "$T/out"
        [ -s "$T/out" ]
        # the first clone of the process is the trial's fork (no CLONE_THREAD),
        # and a thread is made after it
        run awk '/CLONE_THREAD/ { print "thread"; next } /clone|fork/ { print "fork" }' "$T/clones"
        [ "${lines[0]}" = fork ] || { echo "$f: $output"; false; }
        assert_line thread
    done
}
