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

@test "argus graph runs decode, cull-interrupts, segment and the link stages" {
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

@test "SEG-WAIT WAKE-EDGE WAKE-WEAK: the daemon's segments join via the waker's" {
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

@test "SEG-CTX WAKE-EXTERNAL: an I/O wait's segments join, the interrupt left out" {
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

@test "--cache: a rerun reuses every stage; new segment flags rerun what follows" {
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
    assert_output "argus graph: $BATS_TEST_TMPDIR/bad.jsonl:2: ts 4 is before ts 5 of line 1: input must be in ts order"
    run ls "$BATS_TEST_TMPDIR/c"
    assert_output ""
    run sh -c "argus graph $BATS_TEST_TMPDIR/bad.jsonl > /dev/null"
    assert_failure 65
    assert_output "argus graph: $BATS_TEST_TMPDIR/bad.jsonl:2: ts 4 is before ts 5 of line 1: input must be in ts order"
}

@test "a failing stage's message is printed alone, not those after it" {
    run sh -c "argus graph /bin/sh > /dev/null"
    assert_failure 65
    assert_output "argus graph: /bin/sh: an ELF executable or library, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh"
    run sh -c "argus graph --no-chain /bin/sh > /dev/null"
    assert_failure 65
    assert_output "argus graph: /bin/sh: an ELF executable or library, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh"
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

@test "a trace argus graph cannot open exits 66; a usage error is one line" {
    run argus graph fixtures/nonexistent.txt
    assert_failure 66
    assert_output "argus graph: fixtures/nonexistent.txt: No such file or directory"
    run argus graph fixtures/demo
    assert_failure 66
    assert_output "argus graph: fixtures/demo: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)"
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

# A bin directory of links to the programs under test, in which a test
# replaces a stage by a program of its own (the front command runs the
# stages beside it first).
stage_bin() {
    local d=$BATS_TEST_TMPDIR/bin p
    mkdir -p "$d"
    for p in "$ARGUS_BIN"/argus "$ARGUS_BIN"/argus-*; do ln -sf "$p" "$d/"; done
    echo "$d"
}

# What is in cache directory $1 besides entries (KEY.SIZE.SUM.argus).
cache_leftovers() {
    ls -A "$1" | grep -Ev '^[0-9a-f]{16}\.[0-9]+\.[0-9a-f]{16}\.argus$' | LC_ALL=C sort
}

@test "--cache: a stage program changed, same size and mtime, is run again" {
    cache="$BATS_TEST_TMPDIR/cache"
    bin=$(stage_bin)
    rm "$bin/argus-segment"
    # two wrappers of one length: the flags differ, not the size
    printf '#!/bin/sh\nexec %s/argus-segment --no-wait-split "$@"\n' "$ARGUS_BIN" > "$bin/argus-segment"
    chmod +x "$bin/argus-segment"
    touch -d '2020-01-01 00:00' "$bin/argus-segment"
    "$bin/argus" graph --cache "$cache" fixtures/demo/hang.jsonl > /dev/null
    printf '#!/bin/sh\nexec %s/argus-segment --no-ipc-split  "$@"\n' "$ARGUS_BIN" > "$bin/argus-segment"
    touch -d '2020-01-01 00:00' "$bin/argus-segment"
    run sh -c "'$bin/argus' graph --cache $cache -v fixtures/demo/hang.jsonl 2>&1 >$BATS_TEST_TMPDIR/cached | sed 's/ \(cached\|ran, kept as\) .*/ \1/'"
    assert_success
    assert_output 'argus graph: decode: cached
argus graph: cull-interrupts: cached
argus graph: segment: ran, kept as
argus graph: link-ipc: ran, kept as
argus graph: link-dispatch: ran, kept as
argus graph: link-flags: ran, kept as
argus graph: link-wakeups: ran, kept as'
    argus graph -S 'segment --no-ipc-split' fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/plain"
    run cmp "$BATS_TEST_TMPDIR/cached" "$BATS_TEST_TMPDIR/plain"
    assert_success
}

@test "--cache: two overlapping runs on one directory both succeed" {
    "$ARGUS_ROOT/bench/gen" -n 20000 -s 7 > "$BATS_TEST_TMPDIR/gen.argus"
    argus graph "$BATS_TEST_TMPDIR/gen.argus" > "$BATS_TEST_TMPDIR/expected"
    local trial s1 s2
    for trial in 1 2 3 4 5 6; do
        c="$BATS_TEST_TMPDIR/c$trial"
        s1=0 s2=0
        argus graph --cache "$c" "$BATS_TEST_TMPDIR/gen.argus" > "$BATS_TEST_TMPDIR/out1" &
        p1=$!
        # the second run starts at another moment of the first in each trial
        sleep "0.$((trial * 15))"
        argus graph --cache "$c" "$BATS_TEST_TMPDIR/gen.argus" > "$BATS_TEST_TMPDIR/out2" || s2=$?
        wait $p1 || s1=$?
        run echo "trial $trial: exit $s1 $s2"
        assert_output "trial $trial: exit 0 0"
        run cmp "$BATS_TEST_TMPDIR/out1" "$BATS_TEST_TMPDIR/expected"
        assert_success
        run cmp "$BATS_TEST_TMPDIR/out2" "$BATS_TEST_TMPDIR/expected"
        assert_success
        run cache_leftovers "$c"
        assert_output ''
    done
}

@test "--cache: a run killed with -9 mid-stage leaves the rerun right, no leftovers" {
    cache="$BATS_TEST_TMPDIR/cache"
    bin=$(stage_bin)
    rm "$bin/argus-link-ipc"
    # link-ipc that, while the file slow exists, writes part of its output
    # and stops there (the same program either way: the same key)
    cat > "$bin/argus-link-ipc" <<EOF
#!/bin/sh
if [ -e "$BATS_TEST_TMPDIR/slow" ]; then
    $ARGUS_BIN/argus-link-ipc "\$@" | { head -c 1000; cut -d' ' -f5 /proc/\$\$/stat > "$BATS_TEST_TMPDIR/writing"; sleep 60; }
else
    exec $ARGUS_BIN/argus-link-ipc "\$@"
fi
EOF
    chmod +x "$bin/argus-link-ipc"
    : > "$BATS_TEST_TMPDIR/slow"
    # in a process group of its own, killed whole as a job would be
    setsid "$bin/argus" graph --cache "$cache" - < fixtures/demo/hang.jsonl > /dev/null &
    pid=$!
    for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/writing" ] && break; sleep 0.1; done
    # the process group, as the stage saw it (setsid may have forked)
    pgid=$(cat "$BATS_TEST_TMPDIR/writing")
    [ -n "$pgid" ] && [ "$pgid" != "$(cut -d' ' -f5 /proc/$$/stat)" ]
    kill -9 -- -"$pgid"
    wait "$pid" || true
    run cache_leftovers "$cache"
    assert_output --regexp '^run\.[0-9]+\.'  # what the rerun has to clean
    rm "$BATS_TEST_TMPDIR/slow"
    run sh -c "'$bin/argus' graph --cache $cache - < fixtures/demo/hang.jsonl > $BATS_TEST_TMPDIR/rerun"
    assert_success
    argus graph - < fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/plain"
    run cmp "$BATS_TEST_TMPDIR/rerun" "$BATS_TEST_TMPDIR/plain"
    assert_success
    run cache_leftovers "$cache"
    assert_output ''
}

@test "--cache: the next run removes a dead run's directory, keeps live ones" {
    cache="$BATS_TEST_TMPDIR/cache"
    host=$(uname -n | tr -c 'A-Za-z0-9\n-' _)
    sleep 60 &
    live=$!
    sh -c 'exit 0' &
    dead=$!
    wait $dead
    mkdir -p "$cache/run.$live.$host.aaaaaa" "$cache/run.$dead.$host.bbbbbb" "$cache/run.$dead.otherhost.cccccc"
    echo partial > "$cache/run.$live.$host.aaaaaa/3"
    echo partial > "$cache/run.$dead.$host.bbbbbb/3"
    argus graph --cache "$cache" fixtures/demo/hang.jsonl > /dev/null
    run cache_leftovers "$cache"
    kill $live
    # another host's pids are not this host's: its directory is its own
    assert_output "$(printf '%s\n' "run.$dead.otherhost.cccccc" "run.$live.$host.aaaaaa" | LC_ALL=C sort)"
    run cat "$cache/run.$live.$host.aaaaaa/3"
    assert_output partial
}

# damage_entry MODE: builds the cache, damages the final stage's entry
# (the one whose content argus graph prints) and reruns.
damage_entry() {
    cache="$BATS_TEST_TMPDIR/cache"
    argus graph --cache "$cache" -v fixtures/demo/hang.jsonl 2> "$BATS_TEST_TMPDIR/log" > /dev/null
    entry=$(sed -n 's/^argus graph: link-wakeups: ran, kept as //p' "$BATS_TEST_TMPDIR/log")
    [ -f "$entry" ]
    case $1 in
        truncate) truncate -s -100 "$entry" ;;
        flip) printf '\377' | dd of="$entry" bs=1 seek=1500 conv=notrunc status=none ;;
    esac
    argus graph fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/plain"
    run sh -c "argus graph --cache $cache -v fixtures/demo/hang.jsonl 2>&1 > $BATS_TEST_TMPDIR/out | sed 's/ \(cached\|ran, kept as\) .*/ \1/'"
    assert_success
    assert_output "argus graph: decode: cached
argus graph: cull-interrupts: cached
argus graph: segment: cached
argus graph: link-ipc: cached
argus graph: link-dispatch: cached
argus graph: link-flags: cached
argus graph: $entry: damaged cache entry (not the size or checksum its name gives), discarded
argus graph: link-wakeups: ran, kept as"
    run cmp "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/plain"
    assert_success
    # rebuilt: the next run takes it as it is
    run sh -c "argus graph --cache $cache -v fixtures/demo/hang.jsonl 2>&1 > $BATS_TEST_TMPDIR/out | grep -c cached"
    assert_output 7
    run cmp "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/plain"
    assert_success
}

@test "--cache: a truncated entry is discarded and rebuilt, not served" {
    damage_entry truncate
}

@test "--cache: an entry with a flipped byte is discarded and rebuilt, not served" {
    damage_entry flip
}

@test "argus graph on a generated stream: decode passes an argus stream through" {
    "$ARGUS_ROOT/bench/gen" -n 20000 -s 7 > "$BATS_TEST_TMPDIR/gen.argus"
    run sh -c "argus graph $BATS_TEST_TMPDIR/gen.argus | argus-validate | sed 's/, ts .*//'"
    assert_success
    assert_output --regexp '^<stdin>: valid: [0-9]+ records, 20000 events, 204 threads, [1-9][0-9]+ edges, [1-9][0-9]+ segments$'
}

@test "an edge naming a missing event passes through every graph stage unchanged" {
    printf '%s\n' "$HEADER" "{'type':'wait','id':1,'ts':1,'tid':1,'pid':1}" \
        "{'type':'edge','kind':'mine','from':99,'to':1}" "{'type':'woken','id':2,'ts':2,'tid':1,'pid':1}" \
        | cbor-records > "$BATS_TEST_TMPDIR/in.cbor"
    run sh -c "argus-cull-interrupts < $BATS_TEST_TMPDIR/in.cbor | argus-segment | argus-link-ipc | argus-link-dispatch | argus-link-flags | argus-link-wakeups | argus-to-json | jq -c 'select(.type==\"edge\")'"
    assert_success
    assert_output '{"type":"edge","kind":"mine","from":99,"to":1}
{"type":"edge","kind":"resume","from":1,"to":2}'
}
