#!/usr/bin/env bats
# argus-analyze: find-spinning, similar, diff and report in one process,
# each graph loaded once. What it prints must be what the pipe
# of the four programs prints, byte for byte.

load test_helper
bats_require_minimum_version 1.5.0

# Graphs of every diagnosis fixture and real recording with its normal run:
# lines "TRACE.graph BASELINE.graph".
graph_pairs() {
    local dir=$BATS_TEST_TMPDIR/graphs b d n=0
    mkdir -p "$dir"
    for b in fixtures/diagnose/*.bug.jsonl fixtures/diff/*.bug.jsonl fixtures/demo/hang.jsonl; do
        n=$((n + 1))
        argus graph "$b" > "$dir/$n.graph"
        case $b in
        *.bug.jsonl) argus graph "${b%.bug.jsonl}.base.jsonl" > "$dir/$n.base.graph" ;;
        *) argus graph fixtures/demo/normal.jsonl > "$dir/$n.base.graph" ;;
        esac
        echo "$dir/$n.graph $dir/$n.base.graph"
    done
    for d in fixtures/real/*/; do
        n=$((n + 1))
        zcat "$d/hang.txt.gz" | argus graph > "$dir/$n.graph"
        zcat "$d/normal.txt.gz" | argus graph > "$dir/$n.base.graph"
        echo "$dir/$n.graph $dir/$n.base.graph"
    done
}

@test "argus-analyze prints the analysis pipe's report byte for byte, everywhere" {
    local n=0 g b fmt
    while read -r g b; do
        for fmt in text markdown; do
            argus-find-spinning "$g" | argus-similar --in "$b" | argus-diff --baseline "$b" \
                | argus-report --format "$fmt" > "$BATS_TEST_TMPDIR/pipe"
            argus-analyze --baseline "$b" --format "$fmt" "$g" > "$BATS_TEST_TMPDIR/one"
            cmp "$BATS_TEST_TMPDIR/pipe" "$BATS_TEST_TMPDIR/one" || { echo "differs: $g $fmt"; return 1; }
            argus-find-spinning "$g" | argus-diff | argus-report --format "$fmt" > "$BATS_TEST_TMPDIR/pipe"
            argus-analyze --format "$fmt" "$g" > "$BATS_TEST_TMPDIR/one"
            cmp "$BATS_TEST_TMPDIR/pipe" "$BATS_TEST_TMPDIR/one" || { echo "differs without baseline: $g $fmt"; return 1; }
        done
        n=$((n + 1))
    done < <(graph_pairs)
    # the diagnosis pairs, the demo, every real recording
    local want
    want=$(ls fixtures/diagnose/*.bug.jsonl fixtures/diff/*.bug.jsonl fixtures/demo/hang.jsonl fixtures/real/*/hang.txt.gz | wc -l)
    [ "$n" -eq "$want" ] || { echo "$n pairs, not $want"; return 1; }
}

@test "argus-analyze --keep writes the pipe's findings stream" {
    argus graph fixtures/diagnose/textedit.bug.jsonl > "$BATS_TEST_TMPDIR/t.graph"
    argus graph fixtures/diagnose/textedit.base.jsonl > "$BATS_TEST_TMPDIR/b.graph"
    cd "$BATS_TEST_TMPDIR"
    argus-find-spinning t.graph | argus-similar --in b.graph | argus-diff --baseline b.graph > pipe
    argus-analyze --baseline b.graph --keep kept t.graph > /dev/null
    run bash -c 'cmp <(argus-to-json kept | tail -n +2) <(argus-to-json pipe | tail -n +2)'
    assert_success
    run sh -c 'argus-to-json kept | head -1 | jq -c .stages[-1]'
    assert_output '"analyze --baseline b.graph --keep kept t.graph"'
    run sh -c 'argus-to-json kept | jq -r .type | uniq -c | tail -6 | tr -s " "'
    assert_output ' 1 hang
 1 path
 1 wait_chain
 1 critical_path
 1 match
 1 culprit'
}

@test "argus-analyze reads the graph on stdin and a baseline FIFO once each" {
    argus graph fixtures/diagnose/copy-paste.bug.jsonl > "$BATS_TEST_TMPDIR/t.graph"
    argus graph fixtures/diagnose/copy-paste.base.jsonl > "$BATS_TEST_TMPDIR/b.graph"
    argus-find-spinning "$BATS_TEST_TMPDIR/t.graph" | argus-similar --in "$BATS_TEST_TMPDIR/b.graph" \
        | argus-diff --baseline "$BATS_TEST_TMPDIR/b.graph" | argus-report > "$BATS_TEST_TMPDIR/want"
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    cat "$BATS_TEST_TMPDIR/b.graph" > "$BATS_TEST_TMPDIR/fifo" &
    # bounded: a baseline opened twice would wait for a second writer for ever
    run timeout 120 sh -c "argus-analyze --baseline '$BATS_TEST_TMPDIR/fifo' --baseline-name '$BATS_TEST_TMPDIR/b.graph' < '$BATS_TEST_TMPDIR/t.graph'"
    assert_success
    assert_output "$(cat "$BATS_TEST_TMPDIR/want")"
    assert_line --partial 'Culprits'
}

@test "argus-analyze -v prints the stages' counters as the programs' -v do" {
    argus graph fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/t.graph"
    argus graph fixtures/demo/normal.jsonl > "$BATS_TEST_TMPDIR/b.graph"
    cd "$BATS_TEST_TMPDIR"
    { argus-find-spinning -v t.graph | argus-similar -v --in b.graph \
        | argus-diff -v --baseline b.graph > /dev/null; } 2> want
    run sh -c 'argus-analyze -v --baseline b.graph t.graph 2>&1 >/dev/null'
    assert_success
    assert_output "$(cat want)"
    assert_line 'argus-find-spinning: hang nodes: 1'
    assert_line 'argus-similar: matches: 1'
}

@test "argus-analyze: bad flags are usage errors (64); a missing baseline is 66" {
    argus graph fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/t.graph"
    run argus-analyze --baseline-name x "$BATS_TEST_TMPDIR/t.graph"
    assert_failure 64
    assert_line --index 0 'argus-analyze: --baseline-name needs --baseline'
    run argus-analyze --format html "$BATS_TEST_TMPDIR/t.graph"
    assert_failure 64
    assert_line --index 0 "argus-analyze: --output-format: unknown format 'html' (text or markdown)"
    run argus-analyze --hang 1x "$BATS_TEST_TMPDIR/t.graph"
    assert_failure 64
    assert_line --index 0 "argus-analyze: --hang: '1x' is not a number"
    run argus-analyze --baseline "$BATS_TEST_TMPDIR/nonexistent" "$BATS_TEST_TMPDIR/t.graph"
    assert_failure 66
}

@test "argus diagnose runs argus-analyze, not the four programs" {
    local bin=$BATS_TEST_TMPDIR/bin s
    mkdir -p "$bin"
    cp "$ARGUS_BIN"/argus "$ARGUS_BIN"/argus-* "$bin/"
    for s in find-spinning similar diff report; do
        printf '#!/bin/sh\necho %s >> "%s/ran"\nexit 70\n' "$s" "$BATS_TEST_TMPDIR" > "$bin/argus-$s"
    done
    run "$bin/argus" diagnose --baseline fixtures/demo/normal.jsonl fixtures/demo/hang.jsonl
    assert_success
    assert_line 'Hang 0: App/main [1001] (pid 100)'
    [ ! -e "$BATS_TEST_TMPDIR/ran" ]
}

# A stream's event ids may skip (a stage drops events), by any amount:
# the loader maps ids to segments in runs, so memory follows the events.
hostile_ids() { # BIG_ID
    cbor_records <<EOF2
{'type':'stream','format':'argus','version':1,'source':'test','stages':['decode x','segment']}
{'type':'syscall','id':1,'ts':10,'tid':2,'pid':2,'name':'read','phase':'begin','seg':1}
{'type':'wakeup','id':$1,'ts':20,'tid':3,'pid':3,'target':2,'seg':2}
{'type':'edge','from':$1,'to':1,'kind':'wakeup'}
EOF2
}

@test "GRAPH-LOAD: ids 1 and 2^64-2 load fast and small, not by the ids' value" {
    # under the sanitizers address space is reserved in terabytes: the
    # memory bound is checked on the plain build only
    limit=unlimited
    case "$ARGUS_BIN" in *build-san*) ;; *) limit=200000 ;; esac
    for big in 1073741824 1099511627776 18446744073709551614; do
        hostile_ids "$big" > "$BATS_TEST_TMPDIR/in"
        run bash -c "ulimit -v $limit; timeout 10 argus-analyze --baseline '$BATS_TEST_TMPDIR/in' '$BATS_TEST_TMPDIR/in'"
        assert_success
        assert_output "no hang found
Trace: 2 threads in 2 processes, 2 segments, 2 events, 0.000 s to 0.000 s (10 ns), times in
seconds from the trace's zero."
    done
}

@test "GRAPH-LOAD: edges join their segments across short and long id gaps" {
    cbor_records > "$BATS_TEST_TMPDIR/in" <<EOF2
$HEADER
{'type':'syscall','id':1,'ts':10,'tid':2,'pid':2,'name':'read','phase':'begin','seg':1}
{'type':'wakeup','id':3,'ts':20,'tid':3,'pid':3,'target':2,'seg':2}
{'type':'wakeup','id':1099511627776,'ts':30,'tid':4,'pid':4,'target':3,'seg':3}
{'type':'edge','from':3,'to':1,'kind':'wakeup'}
{'type':'edge','from':1099511627776,'to':3,'kind':'wakeup'}
{'type':'edge','from':2,'to':1,'kind':'wakeup'}
EOF2
    run bash -c "argus-export --format dot '$BATS_TEST_TMPDIR/in' | grep -- '->'"
    assert_success
    assert_output '  s2 -> s1 [label="wakeup"];
  s3 -> s2 [label="wakeup"];'
}

@test "GRAPH-LOAD: segment ids out of order are found as in order" {
    cbor_records > "$BATS_TEST_TMPDIR/in" <<EOF2
$HEADER
{'type':'syscall','id':1,'ts':10,'tid':2,'pid':2,'name':'read','phase':'begin','seg':7}
{'type':'wakeup','id':2,'ts':20,'tid':3,'pid':3,'target':2,'seg':3}
{'type':'syscall','id':3,'ts':30,'tid':2,'pid':2,'name':'read','phase':'end','seg':7}
{'type':'syscall','id':4,'ts':40,'tid':3,'pid':3,'name':'write','phase':'begin','seg':9}
{'type':'syscall','id':5,'ts':50,'tid':2,'pid':2,'name':'poll','phase':'begin','seg':4}
{'type':'edge','from':2,'to':3,'kind':'wakeup'}
{'type':'edge','from':4,'to':5,'kind':'wakeup'}
EOF2
    run bash -c "argus-export --format dot '$BATS_TEST_TMPDIR/in' | grep -- '->'"
    assert_success
    assert_output '  s3 -> s7 [label="wakeup"];
  s9 -> s4 [label="wakeup"];'
}

@test "GRAPH-LOAD: a 4 MB process name is kept to 255 bytes, cut at a character" {
    /usr/bin/python3 - > "$BATS_TEST_TMPDIR/in" <<'PY'
import cbor2, sys
o = sys.stdout.buffer
o.write(cbor2.dumps({'type': 'stream', 'format': 'argus', 'version': 1,
                     'source': 'test', 'stages': ['decode x', 'segment']}))
o.write(cbor2.dumps({'type': 'thread', 'tid': 2, 'pid': 2, 'proc': '\u00e9' * 2000000}))
o.write(cbor2.dumps({'type': 'syscall', 'id': 1, 'ts': 10, 'tid': 2, 'pid': 2,
                     'name': 'read', 'phase': 'begin', 'seg': 1}))
PY
    run bash -c "argus-export --format dot '$BATS_TEST_TMPDIR/in' | grep '^    label='"
    assert_success
    assert_output "    label=\"$(printf '\303\251%.0s' $(seq 127)) (2)\";"
}

@test "GRAPH-LOAD: a graph from a file rereads key events: reports as from stdin" {
    local n=0 g b fmt t=$BATS_TEST_TMPDIR
    while read -r g b; do
        for fmt in text markdown; do
            argus-analyze -v --baseline "$b" --format "$fmt" --keep "$t/findings" < "$g" > "$t/kept" 2>&1
            argus-analyze -v --baseline "$b" --format "$fmt" "$g" > "$t/read" 2>&1
            cmp "$t/kept" "$t/read" || { echo "differs: $g $fmt"; return 1; }
            argus-report -v --format "$fmt" < "$t/findings" > "$t/report-kept"
            argus-report -v --format "$fmt" "$t/findings" > "$t/report-read"
            cmp "$t/report-kept" "$t/report-read" || { echo "report differs: $g $fmt"; return 1; }
            # a hang's segment shown by what it did, not as "N events"
            if [ "$fmt" = text ] && grep -qE '\(hang\): [a-z]' "$t/read"; then
                n=$((n + 1))
            fi
        done
    done < <(graph_pairs)
    [ "$n" -ge 20 ] || { echo "only $n reports show a hang's key events"; return 1; }
}

@test "GRAPH-LOAD: a segment holding another thread's events shows its own's" {
    local f=tests/fuzz/crashes/graph-segment-of-two-threads
    argus-report -v "$f" > "$BATS_TEST_TMPDIR/read"
    argus-report -v < "$f" > "$BATS_TEST_TMPDIR/kept"
    cmp "$BATS_TEST_TMPDIR/kept" "$BATS_TEST_TMPDIR/read"
    # seg 1 is thread 16001's keyDown; the write in it is thread 16009's
    run grep -c 'seg 1  Terminal \[16001\]  0.001..0.002 s: ui keyDown$' "$BATS_TEST_TMPDIR/read"
    assert_output 1
}

@test "GRAPH-LOAD: decoding only the fields read gives the same reports" {
    local g b t=$BATS_TEST_TMPDIR
    while read -r g b; do
        argus-analyze -v --baseline "$b" "$g" > "$t/sparse" 2>&1
        ARGUS_READ_WHOLE=1 argus-analyze -v --baseline "$b" "$g" > "$t/whole" 2>&1
        cmp "$t/sparse" "$t/whole" || { echo "differs: $g"; return 1; }
    done < <(graph_pairs)
}

@test "GRAPH-LOAD: a key twice among those read is refused (65); others pass" {
    /usr/bin/python3 -c '
import sys, cbor2
def record(*pairs):  # a map written pair by pair: a key may come twice
    return bytes([0xa0 + len(pairs)]) + b"".join(cbor2.dumps(k) + cbor2.dumps(v) for k, v in pairs)
sys.stdout.buffer.write(cbor2.dumps({"type": "stream", "format": "argus", "version": 1, "source": "test", "stages": []})
    + record(("type", "syscall"), ("id", 1), ("ts", 10), ("tid", 7), ("pid", 7), ("name", "read"), ("phase", "begin"), ("cpu", 1), ("cpu", 2), ("seg", 1))
    + record(("type", "syscall"), ("id", 2), ("ts", 20), ("tid", 7), ("pid", 7), ("name", "read"), ("name", "write"), ("phase", "end"), ("seg", 1)))
' > "$BATS_TEST_TMPDIR/twice.graph"
    # the syscall's name is read (SIM-SIG, yields, file locks), its cpu not
    run --separate-stderr argus-analyze "$BATS_TEST_TMPDIR/twice.graph"
    assert_failure 65
    assert_equal "$stderr" "argus-analyze: $BATS_TEST_TMPDIR/twice.graph: record 3 (byte 124): key \"name\" appears twice"
    # the reader that decodes every field refuses the first
    run --separate-stderr env ARGUS_READ_WHOLE=1 argus-analyze "$BATS_TEST_TMPDIR/twice.graph"
    assert_failure 65
    assert_equal "$stderr" "argus-analyze: $BATS_TEST_TMPDIR/twice.graph: record 2 (byte 55): key \"cpu\" appears twice"
}
