#!/usr/bin/env bats
# argus-decode --format perfdata: perf's perf.data of tracepoints.
# The recordings are real (fixtures/perfdata/, its README.md says
# how each was made): each sample is rendered through its event's format
# into the ftrace line tracefs prints and decoded as ftrace
# (docs/inputs/perf.md). hang.data.gz was recorded by perf inside an
# argus-record of the same run, so the two diagnoses can be compared
# tests/live/perf.bats records one afresh as root.

bats_require_minimum_version 1.5.0
load test_helper

F=fixtures/perfdata

setup() {
    T="$BATS_TEST_TMPDIR"
    gunzip -c $F/hang.data.gz > "$T/hang.data"
}

# The verdict argus diagnose --proc hangui gave of argus-record's text of
# the same run (fixtures/perfdata/README.md): the hang thread, how long,
# and the culprit.
RECORD_VERDICT_HANG="hangui/main [24926] was blocked 599.5 ms in read on fd 6, waiting on"
RECORD_VERDICT_CULPRIT="Culprit: hangsvc/cruncher [24937], the thread at the end of that"

@test "a perf record hang names the thread and culprit argus-record's named" {
    run --separate-stderr argus diagnose --proc hangui "$T/hang.data"
    assert_success
    assert_line --index 0 "Verdict: $RECORD_VERDICT_HANG"
    assert_line --index 1 "hangsvc/cruncher [24937] (through 1 other thread), which was running 413.4 ms on the CPU; no UI"
    assert_line --index 2 "event was found that led to it. $RECORD_VERDICT_CULPRIT"
    assert_line --index 8 "  When:      23873.677641 s to 23874.281189 s (603.5 ms)"
    assert_line --index 9 "  Class:     wait - blocked 599.5 ms in read on fd 6, then woken"
}

@test "a perf.data decodes to a valid stream with threads, wakeups and syscall waits" {
    run --separate-stderr sh -c "argus-decode $T/hang.data | argus-validate"
    assert_success
    assert_output "<stdin>: valid: 5559 records, 5477 events, 50 threads, 0 edges, 0 segments, ts 0..647509112 (0.647509112 s)"
    argus-decode "$T/hang.data" | argus-to-json > "$T/hang.jsonl"
    run jq -c 'select(.tid == 24926 and .id >= 197 and .id <= 198)' "$T/hang.jsonl"
    assert_output '{"type":"syscall","id":197,"ts":22662471,"tid":24926,"pid":24926,"cpu":0,"name":"read","phase":"begin","args":[6,140734067516256,16]}
{"type":"wait","id":198,"ts":22672650,"tid":24926,"pid":24926,"cpu":0,"reason":"read","resource":"0x6"}'
    run sh -c "jq -r 'select(.type == \"wakeup\" or .type == \"woken\" or .type == \"ipc\" or .type == \"thread\") | .type' $T/hang.jsonl | sort | uniq -c"
    assert_output "     40 ipc
     81 thread
    319 wakeup
    294 woken"
    # the thread list perf wrote at the start: a kernel thread is told by its
    # parent kthreadd; a process forked in the trace named at its fork, then renamed
    run jq -c 'select(.type == "thread" and (.tid == 15 or .tid == 24936))' "$T/hang.jsonl"
    assert_output '{"type":"thread","tid":15,"pid":15,"proc":"rcu_preempt","name":"rcu_preempt","main":true,"kernel":true,"parent":2}
{"type":"thread","tid":24936,"pid":24936,"proc":"hang-demo","name":"hang-demo","main":true,"parent":24926}
{"type":"thread","tid":24936,"pid":24936,"proc":"hangsvc","name":"hangsvc","main":true,"parent":24926}'
}

@test "a perf.data is told by its magic; --format, a pipe and gzip give one stream" {
    argus-decode "$T/hang.data" | argus-to-json | sed 1d > "$T/auto.jsonl"
    [ "$(wc -l < "$T/auto.jsonl")" -gt 5000 ]
    run sh -c "argus-decode --format perfdata $T/hang.data | argus-to-json | sed 1d"
    assert_output "$(cat "$T/auto.jsonl")"
    run sh -c "cat $T/hang.data | argus-decode | argus-to-json | sed 1d"
    assert_output "$(cat "$T/auto.jsonl")"
    # gzipped, as committed: read as the bytes it holds (DEC-COMPRESSED)
    run sh -c "argus-decode $F/hang.data.gz | argus-to-json | sed 1d"
    assert_output "$(cat "$T/auto.jsonl")"
}

@test "a piped perf.data: attributes from its records; a sleep's wait and woken" {
    gunzip -c $F/pipe-sleep.data.gz > "$T/pipe.data"
    run --separate-stderr sh -c "argus-decode $T/pipe.data | argus-validate"
    assert_success
    assert_output "<stdin>: valid: 1119 records, 1017 events, 67 threads, 0 edges, 0 segments, ts 0..477330119 (0.477330119 s)"
    run sh -c "argus-decode $T/pipe.data | argus-to-json | jq -c 'select(.tid == 25884 and (.type == \"wait\" or .type == \"woken\" or .type == \"exec\"))'"
    assert_output '{"type":"exec","id":119,"ts":29970767,"tid":25884,"pid":25884,"cpu":1,"filename":"/usr/bin/sleep"}
{"type":"wait","id":138,"ts":40036256,"tid":25884,"pid":25884,"cpu":1,"reason":"clock_nanosleep"}
{"type":"woken","id":725,"ts":340169207,"tid":25884,"pid":25884,"cpu":1,"result":"awakened","runnable":31339}'
}

@test "-v on a perf.data: the ftrace decoder's counters, every line understood" {
    run --separate-stderr argus-decode -v "$T/hang.data"
    assert_success
    [[ "$stderr" == "argus-decode: 5822 lines read, 5477 events written"* ]]
    [[ "$stderr" != *"not understood"* ]]
}

# ---- Bad input: exit 65, one message with the place -------------------------

# fails FILE MESSAGE: decoding FILE exits 65 with MESSAGE, nothing written
fails() {
    run --separate-stderr argus-decode "$1"
    assert_failure 65
    assert_output ""
    [ "$stderr" = "argus-decode: $2" ] || { echo "got: $stderr"; false; }
}

@test "a perf.data cut short in its data exits 65 naming the place and sizes" {
    head -c 300000 "$T/hang.data" > "$T/cut.data"
    fails "$T/cut.data" "$T/cut.data: byte 40: the data section (594864 bytes at byte 15304) is not inside the file of 300000 bytes (a file cut short, or a recording not stopped cleanly)"
}

@test "a perf.data cut inside its header, or its magic alone, exits 65 at the byte" {
    head -c 60 "$T/hang.data" > "$T/head.data"
    fails "$T/head.data" "$T/head.data: byte 8: a header of 104 bytes in a file of 60 (a perf.data header has 104)"
    run --separate-stderr sh -c "printf PERFILE2 | argus-decode"
    assert_failure 65
    [ "$stderr" = "argus-decode: <stdin>: byte 8: the file ends inside its header (8 bytes)" ]
}

@test "a record smaller than its header exits 65 naming its byte and type" {
    cp "$T/hang.data" "$T/bad.data"
    printf '\000\000' | dd of="$T/bad.data" bs=1 seek=15310 conv=notrunc status=none
    fails "$T/bad.data" "$T/bad.data: byte 15304: a record of 0 bytes (type 69), less than its header"
}

@test "tracing data without its magic: exit 65 naming where it should be" {
    cp "$T/hang.data" "$T/bad.data"
    # the tracing data is the first feature section (the table after the data)
    off=$(od -An -tu8 -j 610168 -N 8 "$T/hang.data" | tr -d ' ')
    printf 'X' | dd of="$T/bad.data" bs=1 seek="$off" conv=notrunc status=none
    fails "$T/bad.data" "$T/bad.data: byte $off: the tracing data has not its magic \"\\027\\010Dtracing\""
}

@test "a big-endian perf.data and --format perfdata on a text: refused by name (65)" {
    { printf '2ELIFREP'; head -c 200 /dev/zero; } > "$T/be.data"
    fails "$T/be.data" "$T/be.data: byte 0: a big-endian perf.data (magic \"2ELIFREP\"): not read; record on a little-endian machine"
    printf 'hello\n' > "$T/t.txt"
    run --separate-stderr argus-decode --format perfdata "$T/t.txt"
    assert_failure 65
    [ "$stderr" = "argus-decode: $T/t.txt: byte 0: not a perf.data: no \"PERFILE2\" magic" ]
}

@test "a perf.data given as --format ftrace is refused, the format named (65)" {
    run --separate-stderr argus-decode --format ftrace "$T/hang.data"
    assert_failure 65
    [ "$stderr" = "argus-decode: $T/hang.data: a perf.data file, not ftrace text: argus tells its format without --format: argus-decode $T/hang.data" ]
}

@test "an unfinished recording or non-zstd compressed data is refused by name (65)" {
    cp "$T/hang.data" "$T/killed.data"
    head -c 8 /dev/zero | dd of="$T/killed.data" bs=1 seek=48 conv=notrunc status=none
    fails "$T/killed.data" "$T/killed.data: byte 48: the data section's size is 0 in a file of 786206 bytes: perf record did not finish writing it (killed?); perf cannot read it either"
    # the first record's type made PERF_RECORD_COMPRESSED (81)
    cp "$T/hang.data" "$T/z.data"
    printf 'Q' | dd of="$T/z.data" bs=1 seek=15304 conv=notrunc status=none
    fails "$T/z.data" "$T/z.data: byte 15304: compressed data that does not decompress (zstd: Unknown frame descriptor)"
}

@test "a perf.data and the ftrace lines it renders decode to the same events" {
    [ -x "$ARGUS_ROOT/bench/perfdata-text" ] || skip "bench/perfdata-text is not built (make all)"
    "$ARGUS_ROOT/bench/perfdata-text" "$T/hang.data" > "$T/hang.txt"
    run sed -n '1p;/hangui-24926 /{p;q}' "$T/hang.txt"
    assert_output --partial '# argus-thread: tid=1 tgid=1 kernel=0 comm='
    assert_output --partial '          hangui-24926   (  24926) [000] 23873.'
    argus-decode --format ftrace "$T/hang.txt" | argus-to-json | sed 1d > "$T/text.jsonl"
    run sh -c "argus-decode $T/hang.data | argus-to-json | sed 1d"
    assert_output "$(cat "$T/text.jsonl")"
    [ "$(wc -l < "$T/text.jsonl")" -gt 5000 ]
}

@test "a damaged printk format list is refused at the record past the data (65)" {
    fails tests/fuzz/crashes/perfdata-printk-formats-libtraceevent-overread "tests/fuzz/crashes/perfdata-printk-formats-libtraceevent-overread: byte 2924: a record of 36352 bytes (type 2399141887) goes past the end of the data at byte 3639 (a file cut short?)"
}

@test "a file with attributes but no sample ids is refused as having no tracepoints (65)" {
    # fuzz-perfdata: the ids' table, never made, was sorted (qsort of NULL)
    fails tests/fuzz/crashes/perfdata-no-sample-ids-qsort-null "tests/fuzz/crashes/perfdata-no-sample-ids-qsort-null: byte 0: no tracepoint events in it (no tracing data): argus reads sched and syscalls tracepoints; record with perf record -e sched:sched_switch ... (docs/inputs/perf.md)"
}

@test "an event format libtraceevent dies on is refused with one message (65)" {
    fails tests/fuzz/crashes/perfdata-event-format-libtraceevent-segv "tests/fuzz/crashes/perfdata-event-format-libtraceevent-segv: libtraceevent crashes parsing its event formats (a damaged file): not read"
}

# ---- perf record -z: PERF_RECORD_COMPRESSED ------------------------------------
# system-z.data and system.data: the whole system recorded at once by two
# perf sessions, with and without -z (fixtures/perfdata/record-z.sh).

# zdata: the compressed recording, unpacked into $T/system-z.data
zdata() {
    gunzip -c $F/system-z.data.gz > "$T/system-z.data"
}

@test "perf record -z: a whole-system zstd recording decodes to a valid stream" {
    zdata
    # its data: synthesized records, then 5 PERF_RECORD_COMPRESSED (type 81), the first at byte 34048
    run od -An -tu4 -j34048 -N4 "$T/system-z.data"
    assert_output --regexp '^ +81$'
    run sh -c "argus-decode '$T/system-z.data' | argus-validate"
    assert_success
    assert_output --partial 'valid: 3072 records, 2962 events, 80 threads'
    run sh -c "argus-decode '$T/system-z.data' | argus-to-json | jq -c 'select(.type != \"thread\" and .type != \"stream\" and (.synth | not))' | sed -n '1,4p;\$p'"
    assert_output '{"type":"wakeup","id":38,"ts":0,"tid":28623,"pid":28623,"cpu":0,"target":18}
{"type":"wait","id":39,"ts":3426,"tid":28623,"pid":28623,"cpu":0,"reason":"disk"}
{"type":"woken","id":40,"ts":3426,"tid":18,"pid":18,"cpu":0,"result":"awakened","runnable":3426}
{"type":"wakeup","id":41,"ts":8075,"tid":18,"pid":18,"cpu":0,"target":28623}
{"type":"woken","id":2962,"ts":515483485,"tid":28410,"pid":28382,"cpu":1,"result":"awakened","runnable":5527380,"cpu_holder":28672}'
}

@test "perf record -z: the samples decompressed are the 2373 perf script prints" {
    [ -x "$ARGUS_ROOT/bench/perfdata-text" ] || skip "bench/perfdata-text is not built (make all)"
    zdata
    "$ARGUS_ROOT/bench/perfdata-text" "$T/system-z.data" | grep -v '^#' > "$T/z.txt"
    run grep -cE ' sched_(switch|waking): ' "$T/z.txt"
    assert_output 2373
    run sed -n '1,2p;$p' "$T/z.txt"
    assert_output '            perf-28623   (  28623) [000] 47078.684150276: sched_waking: comm=migration/0 pid=18 prio=0 target_cpu=000
            perf-28623   (  28623) [000] 47078.684153702: sched_switch: prev_comm=perf prev_pid=28623 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0
 ThreadPoolForeg-28410   (  28382) [001] 47079.199721027: sched_switch: prev_comm=ThreadPoolForeg prev_pid=28410 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=28623 next_prio=120'
}

# window FILE LO HI: the event lines of FILE between LO and HI seconds,
# their timestamps left out, sorted
window() {
    awk -v lo="$2" -v hi="$3" '{ if (match($0, / [0-9]+\.[0-9]+: /)) { t = substr($0, RSTART + 1, RLENGTH - 3) + 0; if (t >= lo && t <= hi) { sub(/ [0-9]+\.[0-9]+: /, " "); print } } }' "$1" | sort
}

@test "perf record -z and plain perf record of one system give the same events" {
    [ -x "$ARGUS_ROOT/bench/perfdata-text" ] || skip "bench/perfdata-text is not built (make all)"
    zdata
    gunzip -c $F/system.data.gz > "$T/system.data"
    run od -An -tu4 -j34048 -N4 "$T/system.data"
    refute_output --regexp '^ +81$'
    for f in system-z system; do
        "$ARGUS_ROOT/bench/perfdata-text" "$T/$f.data" | grep -v '^#' > "$T/$f.txt"
        run sh -c "argus-decode '$T/$f.data' | argus-validate"
        assert_success
    done
    # the later first event and the earlier last one, 10 ms inside: both
    # sessions were on every CPU then
    lo=$(head -qn1 "$T/system-z.txt" "$T/system.txt" | grep -oE ' [0-9]+\.[0-9]+: ' | tr -d ' :' | sort -g | tail -1)
    hi=$(tail -qn1 "$T/system-z.txt" "$T/system.txt" | grep -oE ' [0-9]+\.[0-9]+: ' | tr -d ' :' | sort -g | head -1)
    window "$T/system-z.txt" "$(echo "$lo + 0.01" | bc)" "$(echo "$hi - 0.01" | bc)" > "$T/z.window"
    window "$T/system.txt" "$(echo "$lo + 0.01" | bc)" "$(echo "$hi - 0.01" | bc)" > "$T/plain.window"
    [ "$(wc -l < "$T/z.window")" -eq 2287 ]
    run diff "$T/z.window" "$T/plain.window"
    assert_success
}

@test "perf record -z: bad compressed data exits 65 naming the record and place" {
    zdata
    # damaged AT BYTES MESSAGE: the -z file with BYTES (printf's) written at
    # byte AT fails with MESSAGE (after the file's name)
    damaged() {
        cp "$T/system-z.data" "$T/bad.data"
        printf "$2" | dd of="$T/bad.data" bs=1 seek="$1" conv=notrunc status=none
        fails "$T/bad.data" "$T/bad.data: $3"
    }
    # the first compressed record's zstd frame magic damaged
    damaged 34056 '\377\377\377\377' "byte 34048: compressed data that does not decompress (zstd: Unknown frame descriptor)"
    # damage inside the fourth's blocks: the records it gives are wrong
    damaged 40000 '\377\377\377\377\377\377\377\377' "byte 35599: in the data of a compressed record, byte 129872 of the data decompressed: a record of 0 bytes (type 10), less than its header"
    # ... and a stream that ends inside a record
    damaged 60000 '\377\377\377\377\377\377\377\377' "byte 56934: in the data of a compressed record, byte 293057 of the data decompressed: the compressed data ends inside a record (6719 bytes of it)"
    # the compression feature (HEADER_COMPRESSED at byte 159820) naming another method
    damaged 159824 '\002' "byte 159820: data compressed by method 2: not read (perf record -z writes zstd, method 1)"
}

@test "perf record -z of newer perf (COMPRESSED2): the same stream; bad size 65" {
    zdata
    perfdata-compressed2 "$T/system-z.data" "$T/c2.data"
    run od -An -tu4 -j34048 -N4 "$T/c2.data"
    assert_output --regexp '^ +83$'
    argus-decode "$T/system-z.data" | argus-to-json | sed 1d > "$T/z.jsonl"
    run sh -c "argus-decode '$T/c2.data' | argus-to-json | sed 1d"
    assert_success
    assert_output "$(cat "$T/z.jsonl")"
    [ "$(wc -l < "$T/z.jsonl")" -eq 3071 ]
    # the first one's data size (a u64 at byte 34056) made larger than its record
    printf '\377\377' | dd of="$T/c2.data" bs=1 seek=34056 conv=notrunc status=none
    fails "$T/c2.data" "$T/c2.data: byte 34048: a compressed record of 936 bytes whose data size says 65535"
}

# ---- What the trace lost (DEC-LOSS) --------------------------------------

@test "DEC-LOSS: perf record -m 1 under load: 266 LOST events as dropped records, not counted twice" {
    gunzip -c $F/lost.data.gz > "$T/lost.data"
    run sh -c "argus-decode '$T/lost.data' 2>/dev/null | argus-to-json | grep '\"loss\"'"
    assert_success
    assert_output '{"type":"loss","kind":"dropped","cpu":0,"events":146,"from":423379977,"to":435376608}
{"type":"loss","kind":"dropped","cpu":1,"events":120,"from":319628,"to":715487789}'
    run sh -c "argus-decode '$T/lost.data' 2>/dev/null | argus validate"
    assert_line --index 1 "<stdin>: incomplete: 2 loss records (DEC-LOSS), 266 events lost"
}
