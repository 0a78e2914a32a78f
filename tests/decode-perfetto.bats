#!/usr/bin/env bats
# argus-decode --format perfetto: Perfetto's protobuf traces.
# Two real traces (fixtures/perfetto/, its README.md names their
# sources): systing's Linux trace (compact_sched, process tree) and an
# Android app-only trace (refused). The other traces are made here from
# the ftrace fixtures by bench/gen-perfetto, so that the same trace as
# ftrace text and as Perfetto is checked to give the same stream or the
# same diagnosis (docs/inputs/perfetto.md: each event is rendered as the
# line tracefs prints for it and read by the ftrace decoder).

bats_require_minimum_version 1.5.0
load test_helper

F=fixtures/perfetto
GEN="$ARGUS_ROOT/bench/gen-perfetto"

setup() {
    T="$BATS_TEST_TMPDIR"
    gzip -dc $F/systing-compact.pb.gz > "$T/systing.pb"
}

# stream FILE [ARGS]: FILE decoded, as JSON lines, without the header
# (its "stages" names the file)
stream() {
    set -o pipefail
    argus-decode "${@:2}" "$1" | argus-to-json | sed 1d
}

# same_stream TXT [GEN-ARGS]: the text and the Perfetto trace gen-perfetto
# makes of it give one stream, record for record
same_stream() {
    "$GEN" "${@:2}" < "$1" > "$T/trace.pb" 2> /dev/null
    stream "$1" > "$T/text.jsonl"
    run --separate-stderr stream "$T/trace.pb"
    assert_success
    assert_output "$(cat "$T/text.jsonl")"
    [ "$(wc -l < "$T/text.jsonl")" -gt 10 ]
}

# verdict: the report's verdict paragraphs, their times left out
verdict() {
    awk '/^Verdict/{v=1} v&&/^$/{v=0} v' | sed -E 's/[0-9.]+ (ms|s)\b/T/g'
}

# ---- One trace, two forms ------------------------------------------------

@test "Perfetto ftrace events decode to the stream of the same trace's text" {
    same_stream fixtures/ftrace/syscall-waits.txt
}

@test "compact_sched (delta timestamps, previous task inferred): the same stream" {
    same_stream fixtures/ftrace/syscall-waits.txt --compact
}

@test "zlib-compressed packets, one event a bundle: the same stream" {
    same_stream fixtures/ftrace/syscall-waits.txt --zlib --bundle 1
}

@test "zstd_compressed_packets (field 133), one event a bundle: the same stream" {
    same_stream fixtures/ftrace/syscall-waits.txt --zstd --bundle 1
}

@test "the kept deflate and zstd fixtures: the stream of their text; the generator writes them alike" {
    for z in zlib:deflate zstd:zstd; do
        "$GEN" --${z%%:*} --bundle 1 < fixtures/ftrace/syscall-waits.txt 2>/dev/null | cmp - fixtures/perfetto/syscall-waits-${z#*:}.pb
    done
    stream fixtures/ftrace/syscall-waits.txt > "$T/text.jsonl"
    for f in deflate zstd; do
        run --separate-stderr stream fixtures/perfetto/syscall-waits-$f.pb
        assert_success
        assert_output "$(cat "$T/text.jsonl")"
    done
}

@test "zstd-compressed packets whose frame is damaged: exit 65 naming the packet's byte and zstd's reason" {
    cp fixtures/perfetto/syscall-waits-zstd.pb "$T/bad.pb"
    printf '\377\377\377\377' | dd of="$T/bad.pb" bs=1 seek=7 conv=notrunc 2>/dev/null
    run --separate-stderr argus-decode "$T/bad.pb"
    assert_failure 65
    [ "$stderr" = "argus-decode: $T/bad.pb: byte 0: zstd-compressed packets that do not decompress (zstd: Unknown frame descriptor)" ]
}

@test "the process tree gives each thread its process: the same stream" {
    same_stream fixtures/ftrace/tracefs-tgid.txt
    run sh -c "argus-decode '$T/trace.pb' | argus-to-json | grep -m1 '\"tid\":5103'"
    assert_output --partial '"pid":5100'
}

@test "a real hang as Perfetto events: the same report as its ftrace text" {
    gzip -dc fixtures/real/late-start/hang.txt.gz > "$T/hang.txt"
    "$GEN" < "$T/hang.txt" > "$T/hang.pb" 2> /dev/null
    argus diagnose --proc $(sed -n 's/^proc=//p' fixtures/real/late-start/truth) "$T/hang.txt" > "$T/text.report"
    run argus diagnose --proc $(sed -n 's/^proc=//p' fixtures/real/late-start/truth) "$T/hang.pb"
    assert_success
    assert_output "$(cat "$T/text.report")"
    assert_line --partial 'UTC'
}

@test "the same real hang with compact_sched and zlib: the same verdict" {
    gzip -dc fixtures/real/flock-wait/hang.txt.gz > "$T/hang.txt"
    "$GEN" --compact --zlib < "$T/hang.txt" > "$T/hang.pb" 2> /dev/null
    argus diagnose --proc flock "$T/hang.txt" | verdict > "$T/text.verdict"
    [ -s "$T/text.verdict" ]
    run sh -c "argus diagnose --proc flock '$T/hang.pb' | awk '/^Verdict/{v=1} v&&/^\$/{v=0} v' | sed -E 's/[0-9.]+ (ms|s)\b/T/g'"
    assert_success
    assert_output "$(cat "$T/text.verdict")"
}

# ---- A real Linux trace ----------------------------------------------------

@test "systing's trace: told without --format, every record valid, its threads" {
    run --separate-stderr argus-decode -v "$T/systing.pb"
    assert_success
    [[ "$stderr" == *"  739 Perfetto packets"* ]]
    [[ "$stderr" == *"  44 ftrace bundles"* ]]
    [[ "$stderr" == *"  5031 sched_switch (ftrace and compact_sched)"* ]]
    [[ "$stderr" == *"  3678 wakings (ftrace and compact_sched)"* ]]
    [[ "$stderr" == *"  22 compact switches with no task known on their cpu before (left out)"* ]]
    [[ "$stderr" == *"  117 threads from the process tree and stats"* ]]
    [[ "$stderr" != *"moved into ts order"* ]]
    run sh -c "argus-decode '$T/systing.pb' | argus-validate"
    assert_success
    assert_output --partial 'valid: 18064 records, 17812 events, 214 threads'
    run sh -c "argus-decode '$T/systing.pb' | argus-to-json | grep -m1 '\"tid\":1,'"
    assert_output '{"type":"thread","tid":1,"pid":1,"proc":"systemd","name":"systemd","main":true,"cmdline":["/usr/lib/systemd/systemd","--switched-root","--system","--deserialize=56","rhgb"]}'
}

@test "DEC-CMDLINE: the process tree's command lines: on main threads, none on kernel's" {
    run sh -c "argus-decode '$T/systing.pb' | argus-to-json | jq -c 'select(.type == \"thread\" and .cmdline) | [.main, .kernel // false]' | sort | uniq -c"
    assert_output '     46 [true,false]'
    run sh -c "argus-decode '$T/systing.pb' | argus-to-json | jq -r 'select(.type == \"thread\" and .cmdline and .proc == \"systemd-journal\") | .cmdline | join(\" \")'"
    assert_output '/usr/lib/systemd/systemd-journald'
}

@test "DEC-ORIGIN: systing's header: origin its first timestamp, t0 its snapshot" {
    run sh -c "argus-decode '$T/systing.pb' | argus-to-json | head -1"
    assert_output "{\"type\":\"stream\",\"format\":\"argus\",\"version\":1,\"source\":\"ftrace\",\"t0\":1761759997266402619,\"origin\":703770872874348,\"stages\":[\"decode $T/systing.pb\"]}"
}

@test "systing's trace diagnosed: the verdict names the busy recorder" {
    run argus diagnose "$T/systing.pb"
    assert_success
    assert_line --index 0 'Verdict (hang 0): sched_recorder/main [1180500] ran 792.5 ms on the CPU without blocking; no UI'
}

@test "a Perfetto trace from a pipe gives the same stream as from the file" {
    stream "$T/systing.pb" > "$T/file.jsonl"
    run sh -c "cat '$T/systing.pb' | argus-decode - | argus-to-json | sed 1d"
    assert_success
    assert_output "$(cat "$T/file.jsonl")"
}

# ---- Refused, and bad input ------------------------------------------------

@test "an app-only Android trace is refused (65), the missing data source named" {
    gzip -dc $F/nowinandroid-app-only.perfetto-trace.gz > "$T/app.perfetto-trace"
    run --separate-stderr argus-decode "$T/app.perfetto-trace"
    [ "$status" -eq 65 ]
    [ -z "$output" ]
    assert_equal "$stderr" "argus-decode: $T/app.perfetto-trace: no scheduler events: a Perfetto trace without sched_switch (the linux.ftrace data source with sched/sched_switch was not recorded): its 13 ftrace bundles hold 475 events (475 atrace marks) of 24 packets; argus needs the kernel's switches and wakeups to diagnose a hang (docs/inputs/perfetto.md says how to record them)"
    run argus diagnose "$T/app.perfetto-trace"
    [ "$status" -eq 65 ]
    assert_output --partial 'no scheduler events'
    refute_output --partial 'Verdict'
}

@test "a Perfetto file cut short exits 65 naming the packet; records before stay" {
    head -c 200000 "$T/systing.pb" > "$T/cut.pb"
    run --separate-stderr sh -c "argus-decode '$T/cut.pb' | argus-validate"
    assert_output --partial 'valid: 14726 records'
    assert_equal "$stderr" "argus-decode: $T/cut.pb: byte 192304: the file ends inside a packet of 8517 bytes (7693 there)"
    run argus-decode "$T/cut.pb"
    [ "$status" -eq 65 ]
}

@test "a damaged ftrace bundle exits 65 naming its byte; other bundles decode" {
    cp "$T/systing.pb" "$T/bad.pb"
    printf '\377\377\377\377\377\377\377\377\377\377\377' | dd of="$T/bad.pb" bs=1 seek=150000 conv=notrunc 2> /dev/null
    run --separate-stderr sh -c "argus-decode '$T/bad.pb' | argus-validate"
    assert_output --partial 'valid: 12393 records'
    assert_equal "$stderr" "argus-decode: $T/bad.pb: byte 149308: a damaged ftrace bundle: no protobuf field at byte 150000"
}

@test "a Perfetto trace given as --format ftrace: exit 65, the message says what it is" {
    run argus-decode --format ftrace "$T/systing.pb"
    [ "$status" -eq 65 ]
    assert_output "argus-decode: $T/systing.pb: a Perfetto trace, not ftrace text: argus tells its format without --format: argus-decode $T/systing.pb"
}

@test "text starting with a newline is not taken for a Perfetto trace" {
    printf '\n\n# tracer: nop\n' > "$T/nl.txt"
    cat fixtures/ftrace/syscall-waits.txt >> "$T/nl.txt"
    run --separate-stderr stream "$T/nl.txt"
    assert_success
    assert_output "$(stream fixtures/ftrace/syscall-waits.txt)"
}

@test "raw_syscalls numbers are named by the trace's architecture" {
    "$GEN" < fixtures/ftrace/raw-syscalls.txt > "$T/raw.pb" 2> /dev/null
    run sh -c "argus-decode '$T/raw.pb' | argus-to-json | grep -m2 -E '\"(syscall|wait)\"'"
    assert_output '{"type":"syscall","id":1,"ts":0,"tid":4242,"pid":4242,"cpu":0,"name":"futex","phase":"begin","args":[94355073273872,128,0,0,0,0]}
{"type":"wait","id":2,"ts":10000,"tid":4242,"pid":4242,"cpu":0,"reason":"futex","resource":"0x55d0c0a01010"}'
}

@test "argus-decode --help lists the perfetto format" {
    run argus-decode --help
    assert_output --partial '  perfetto    a Perfetto protobuf trace (Linux, Android)'
    assert_output --partial 'ftrace, tracedat, perfdata, perfetto, ctf)'
}

# ---- What the trace lost (DEC-LOSS) ------------------------------------------

# losses GEN-OPTIONS...: the loss records of syscall-waits.txt made a
# Perfetto trace with those options, and decode's warnings after them
losses() {
    "$GEN" "$@" < fixtures/ftrace/syscall-waits.txt > "$T/l.pb" 2> /dev/null
    argus-decode "$T/l.pb" 2> "$T/err" | argus-to-json | grep '"loss"'
    sed "s|$T/||" "$T/err"
}

@test "DEC-LOSS: ftrace_stats, CPU 0's overrun up by 40: a dropped record of 40 events, no time" {
    run losses --overrun 0:40 --overrun 1:0
    assert_success
    assert_output '{"type":"loss","kind":"dropped","cpu":0,"events":40}
argus-decode: l.pb:4: warning: CPU:0 [LOST 40 EVENTS]'
}

@test "DEC-LOSS: trace_stats' chunks overwritten: each CPU's kept events start at its first (cpu_start)" {
    run losses --chunks-overwritten 7
    assert_success
    assert_output '{"type":"loss","kind":"cpu_start","cpu":0,"since":0}
{"type":"loss","kind":"cpu_start","cpu":1,"since":400000}'
}

@test "DEC-LOSS: a bundle's lost_events flag: a dropped record of its CPU, when it opens, no count" {
    run losses --lost-bundle 2
    assert_success
    assert_output '{"type":"loss","kind":"dropped","cpu":1,"events":0,"from":320000,"to":320000}
argus-decode: l.pb:17: warning: CPU:1 [LOST EVENTS]'
}

@test "DEC-LOSS: previous_packet_dropped on a bundle's packet: its CPU dropped events" {
    run losses --dropped-before 2
    assert_success
    assert_output '{"type":"loss","kind":"dropped","cpu":1,"events":0,"from":320000,"to":320000}
argus-decode: l.pb:17: warning: CPU:1 [LOST EVENTS]'
    # on a sequence's first packet it may only say the writer is new
    run losses --dropped-before 1
    assert_success
    assert_output ''
}

@test "DEC-LOSS: trace_stats' chunks_discarded: the buffer filled, the trace ends early" {
    run losses --chunks-discarded 7
    assert_success
    assert_output '{"type":"loss","kind":"full","chunks":7}'
    "$GEN" --chunks-discarded 7 < fixtures/ftrace/syscall-waits.txt > "$T/l.pb" 2> /dev/null
    run --separate-stderr argus diagnose "$T/l.pb"
    assert_line "Incomplete trace: the tracer's buffer filled and it discarded what came after (7 chunks): the"
    assert_line "trace ends early."
}

@test "DEC-LOSS: the stats inside compressed packets are read too" {
    run losses --zstd --overrun 1:3 --chunks-overwritten 2
    assert_success
    assert_output '{"type":"loss","kind":"cpu_start","cpu":0,"since":0}
{"type":"loss","kind":"cpu_start","cpu":1,"since":400000}
{"type":"loss","kind":"dropped","cpu":1,"events":3}
argus-decode: l.pb:4: warning: CPU:1 [LOST 3 EVENTS]'
}

@test "DEC-LOSS: a trace without stats or lost flags has no loss record" {
    run losses
    assert_success
    assert_output ''
}

@test "DEC-LOSS: diagnose, only a lost_events flag: the tracer dropped events it did not count" {
    "$GEN" --lost-bundle 2 < fixtures/ftrace/syscall-waits.txt > "$T/l.pb" 2> /dev/null
    run --separate-stderr argus diagnose "$T/l.pb"
    assert_line --index 1 "Incomplete trace: the tracer dropped events it did not count (about 7200.000420 s)."
}
