#!/usr/bin/env bats
# What a program says when memory runs short. A count or length in the
# stream that cannot be honoured (a string, array or map claiming more
# than the stream holds; ids, seg ids and thread ids up to 2^64-1) is the
# input's fault: 65 and the place, in little memory. A valid input that
# needs more memory than the process may have is not: 74 "out of memory",
# never 65 and never an abort. The limits are set with ulimit -v, which
# AddressSanitizer cannot run under: on the sanitizer build the hostile
# streams run without a limit (ASan's allocator then reports any
# allocation of the sizes they claim), and the test of a real shortage is
# skipped.

load test_helper

setup() {
    tmp=$(mktemp -d)
}

teardown() {
    rm -rf "$tmp"
}

asan() { grep -q __asan_init "$ARGUS_BIN/argus-validate"; }

# PROGRAM ARGS... in 64 MB of address space (no limit under ASan).
in_64mb() {
    if asan; then
        "$@"
    else
        (ulimit -v 65536; "$@")
    fi
}

# PROGRAM ARGS..., its stderr on stdout, its stdout dropped.
stderr_of() {
    "$@" 2>&1 >/dev/null
}

events() {
    cbor_records <<EOF2
$HEADER
{'type':'thread','tid':5,'pid':5,'name':'main'}
{'type':'syscall','id':1,'ts':10,'tid':5,'pid':5,'name':'read'}
EOF2
}

@test "a head claiming 2^32 to 2^64-1 items is 65 in 64 MB, in every program" {
    n=0
    for head in '\x7b\x00\x00\x01\x00\x00\x00\x00\x00' '\x7b\xff\xff\xff\xff\xff\xff\xff\xff' \
                '\x9b\x00\x00\x00\x01\x00\x00\x00\x00' '\xbb\x10\x00\x00\x00\x00\x00\x00\x00' \
                '\x5a\xff\xff\xff\xff'; do
        n=$((n + 1))
        { events; printf '\xa2\x64type\x67syscall\x64args'; printf "$head"; printf 'abc'; } >"$tmp/s$n.cbor"
        for p in validate to-json cull-interrupts segment link-ipc link-dispatch link-flags \
                 link-wakeups; do
            run in_64mb stderr_of "argus-$p" "$tmp/s$n.cbor"
            echo "$p s$n: $output"
            [ "$status" -eq 65 ]
            assert_output --regexp "^argus-$p: $tmp/s$n.cbor: record 4 \(byte [0-9]+\): "
        done
        run in_64mb argus-decode --format argus "$tmp/s$n.cbor"
        [ "$status" -eq 65 ]
        run in_64mb argus-chain segment link-ipc "$tmp/s$n.cbor"
        [ "$status" -eq 65 ]
    done
}

@test "ids up to 2^64-1: every analysis program ends 0 or 65, in 64 MB, in 10 s" {
    H="{'type':'stream','format':'argus','version':1,'source':'test','stages':['decode x','segment']}"
    cbor_records >"$tmp/segs.graph" <<EOF2
$H
{'type':'thread','tid':5,'pid':5,'name':'main'}
{'type':'syscall','id':1,'ts':10,'tid':5,'pid':5,'seg':1}
{'type':'syscall','id':2,'ts':20,'tid':5,'pid':5,'seg':18446744073709551615}
{'type':'syscall','id':1099511627776,'ts':30,'tid':5,'pid':5,'seg':1099511627776}
EOF2
    cbor_records >"$tmp/tids.graph" <<EOF2
$H
{'type':'thread','tid':18446744073709551615,'pid':9223372036854775808,'name':'x'}
{'type':'syscall','id':18446744073709551614,'ts':10,'tid':18446744073709551615,'pid':9223372036854775808,'seg':1}
{'type':'edge','kind':'wakeup','from':18446744073709551614,'to':18446744073709551614}
EOF2
    cbor_records >"$tmp/path.graph" <<EOF2
$H
{'type':'thread','tid':5,'pid':5,'name':'main'}
{'type':'syscall','id':1,'ts':10,'tid':5,'pid':5,'seg':1}
{'type':'hang','hang':1,'seg':18446744073709551615,'tid':5,'pid':5,'class':'blocked'}
{'type':'path','hang':1,'segs':[18446744073709551615, 1099511627776, 1]}
EOF2
    for g in segs tids path; do
        for p in find-spinning diff report analyze export validate to-json; do
            run in_64mb timeout 10 "argus-$p" "$tmp/$g.graph"
            echo "$p $g: $status $output"
            [ "$status" -eq 0 ] || [ "$status" -eq 65 ]
        done
        run in_64mb timeout 10 argus-similar --in "$tmp/$g.graph" "$tmp/$g.graph"
        [ "$status" -eq 0 ] || [ "$status" -eq 65 ]
        run in_64mb timeout 10 argus-analyze --baseline "$tmp/$g.graph" "$tmp/$g.graph"
        [ "$status" -eq 0 ] || [ "$status" -eq 65 ]
    done
}

@test "a graph bigger than the memory allowed: 74 out of memory, never an abort" {
    if asan; then
        skip "AddressSanitizer does not run under ulimit -v"
    fi
    bench/gen -n 150000 -s 3 | argus-chain cull-interrupts segment link-ipc link-dispatch \
        link-flags link-wakeups >"$tmp/big.graph"
    argus-validate -q "$tmp/big.graph"
    for p in find-spinning report analyze "export --output-format dot"; do
        run bash -c "ulimit -v 16000; exec argus-$p $tmp/big.graph >/dev/null"
        echo "$p: $status $output"
        [ "$status" -eq 74 ]
        assert_output --regexp "^argus-${p%% *}: out of memory( \(.*\))?$"
    done
    run bash -c "(ulimit -v 16000; exec argus-export --output-format perfetto $tmp/big.graph) | jq '.traceEvents | length'"
    assert_success
    [ "$output" -gt 150000 ]
}

@test "a decoder short of memory ends 74 naming what grew, never an abort" {
    if asan; then
        skip "AddressSanitizer does not run under ulimit -v"
    fi
    # 30 lines of 900 kB: the reorder window keeps a buffer for each
    run bash -c 'awk "BEGIN { pad = \"x\"; while (length(pad) < 900000) pad = pad pad
            pad = substr(pad, 1, 900000)
            for (i = 0; i < 30; i++)
                printf \"  t-101  [000] .... 1.%06d: tracing_mark_write: %s\n\", i, pad }" |
        (ulimit -v 40000; exec argus-decode --format ftrace) >/dev/null'
    [ "$status" -eq 74 ]
    assert_output "argus-decode: out of memory (a line of the trace)"
}
