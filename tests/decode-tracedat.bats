#!/usr/bin/env bats
# argus-decode --format tracedat: trace-cmd's trace.dat, versions 6 and 7
# The recordings are real (fixtures/tracedat/, its
# README.md says how each was made), each beside the text `trace-cmd
# report -t` printed of it: a trace.dat must decode to the stream of that
# text read as ftrace (docs/stages/decode.md, "tracedat"), so the tests
# need no trace-cmd.

bats_require_minimum_version 1.5.0
load test_helper
load decode_helper

F=fixtures/tracedat

setup() {
    T="$BATS_TEST_TMPDIR"
}


# ---- One stream for the file and its text --------------------------------

@test "trace.dat v7, zstd: the stream of its trace-cmd report -t text" {
    same_stream $F/sleep-v7.dat $F/sleep.txt
}

@test "trace.dat v6 of the same recording: the same stream as v7's and the text's" {
    same_stream $F/sleep-v6.dat $F/sleep.txt
    stream $F/sleep-v7.dat > "$T/v7.jsonl"
    run stream $F/sleep-v6.dat
    assert_output "$(cat "$T/v7.jsonl")"
}

@test "trace.dat v7: a blocked pipe reader's wait, ipc pair and woken" {
    same_stream $F/pipe-v7.dat $F/pipe.txt
    run sh -c "argus-decode $F/pipe-v7.dat | argus-to-json | grep -E '\"(wait|woken|ipc)\"' | grep -E '\"id\":(210|224|239|240),'"
    assert_output '{"type":"wait","id":210,"ts":84544175,"tid":5508,"pid":5508,"cpu":0,"reason":"read","resource":"0x0"}
{"type":"ipc","id":224,"ts":678604328,"tid":5507,"pid":5507,"cpu":0,"dir":"send","msg":"0x1","peer":5508,"via":"fd"}
{"type":"woken","id":239,"ts":684467336,"tid":5508,"pid":5508,"cpu":0,"result":"awakened","runnable":5863008,"cpu_holder":10347}
{"type":"ipc","id":240,"ts":684605699,"tid":5508,"pid":5508,"cpu":0,"dir":"recv","msg":"0x1","peer":5507,"via":"fd"}'
}

@test "DEC-ORIGIN: a trace.dat's header: source ftrace, origin its first timestamp" {
    run sh -c "argus-decode $F/sleep-v7.dat | argus-to-json | head -1"
    assert_output '{"type":"stream","format":"argus","version":1,"source":"ftrace","origin":14631525423489,"stages":["decode fixtures/tracedat/sleep-v7.dat"]}'
    run head -2 $F/sleep.txt
    assert_line --index 1 --partial ' 14631.525423489: '
}

@test "a trace.dat's first pass gives threads asleep at the start a wait at ts 0" {
    run sh -c "argus-decode $F/sleep-v7.dat | argus-to-json | jq -c 'select(.type == \"wait\" and .synth)' | head -2"
    assert_output '{"type":"wait","id":1,"ts":0,"tid":14,"pid":14,"cpu":0,"reason":"sleeping","synth":true}
{"type":"wait","id":2,"ts":0,"tid":18,"pid":18,"cpu":0,"reason":"sleeping","synth":true}'
    # the text's first line of each: a wakeup of it
    run grep -m1 -E '(pid=|:|-)18 ' $F/sleep.txt
    assert_output --partial ': sched_waking:         comm=migration/0 pid=18 '
}

# ---- Telling it, reading it ---------------------------------------------

@test "a trace.dat is told by its magic; --format tracedat reads it alike" {
    stream $F/sleep-v6.dat > "$T/auto.jsonl"
    run stream $F/sleep-v6.dat --format tracedat
    assert_success
    assert_output "$(cat "$T/auto.jsonl")"
}

@test "a trace.dat on stdin gives the file's stream" {
    stream $F/pipe-v7.dat > "$T/file.jsonl"
    run sh -c "cat $F/pipe-v7.dat | argus-decode | argus-to-json | sed 1d"
    assert_success
    assert_output "$(cat "$T/file.jsonl")"
}

@test "-v on a trace.dat prints the ftrace decoder's counters" {
    run sh -c "argus-decode -v $F/pipe-v7.dat 2>&1 >/dev/null"
    assert_output "argus-decode: 274 lines read, 257 events written
  108 lines not understood, kept as ftrace events
  1 comment and header lines
  19 woken at the switch that ran a waiting thread
  2 woken synthesized (DEC-WOKEN: the thread's own event came first)
  16 sched_wakeup lines after their sched_waking (one counts)
  2 ipc events paired from a send waking a receive
  4 threads asleep when the trace began (a first wakeup before any line of theirs): a wait at its start
  18 preempted events (switched out runnable, back on a CPU 1 ms or more later)"
    [ "$(wc -l < $F/pipe.txt)" = 274 ]
}

@test "trace.dat v7 uncompressed: the same stream" {
    command -v trace-cmd > /dev/null || skip "no trace-cmd (Debian package trace-cmd)"
    trace-cmd convert -i $F/sleep-v7.dat --file-version 7 --compression none -o "$T/plain.dat" > /dev/null 2>&1
    stream $F/sleep-v7.dat > "$T/v7.jsonl"
    run stream "$T/plain.dat"
    assert_success
    assert_output "$(cat "$T/v7.jsonl")"
}

# ---- Errors (docs/stages/decode.md, Errors; stream-v1: exit 65) -----------

# cut_fails FILE BYTES WHY: FILE's first BYTES bytes are refused with one
# message naming the cut file and WHY, exit 65, nothing written
cut_fails() {
    head -c "$2" "$1" > "$T/cut.dat"
    run --separate-stderr argus-decode "$T/cut.dat"
    assert_failure 65
    assert_output ""
    [ "$stderr" = "argus-decode: $T/cut.dat: not a trace.dat trace-cmd can read: $3" ]
}

@test "a trace.dat cut short in its headers: one message, exit 65, nothing written" {
    cut_fails $F/sleep-v7.dat 20000 "libtracecmd cannot read its headers (a file cut short, or damaged)"
}

@test "a v6 trace.dat that crashes libtracecmd: one message, exit 65, no crash" {
    cut_fails $F/sleep-v6.dat 150000 "libtracecmd crashes reading it (a file cut short or damaged)"
}

@test "a damaged trace.dat libtracecmd warns about: decode's one message, not its warnings" {
    # fuzz-tracedat's find: libtracecmd printed "unknown option 116" and
    # "libtracecmd: No such file or directory" before decode's message
    local f=tests/fuzz/crashes/tracedat-damaged-options-libtracecmd-warns
    run --separate-stderr argus-decode $f
    assert_failure 65
    assert_output ""
    [ "$stderr" = "argus-decode: $f: not a trace.dat trace-cmd can read: libtracecmd cannot read its headers (a file cut short, or damaged)" ]
}

@test "a damaged record libtracecmd gives forever: decode stops at once, one message, exit 65" {
    # fuzz-tracedat's find: libtracecmd 1.3 gave one record of this file
    # (cpu 3, its size -12) again and again, its time moving on: argus-decode
    # ran on for ever (a 56 KB file, 60 s and more)
    local f=tests/fuzz/crashes/tracedat-record-given-forever
    run --separate-stderr timeout 20 argus-decode $f
    assert_failure 65
    assert_output ""
    [ "$stderr" = "argus-decode: $f: not a trace.dat trace-cmd can read: libtracecmd reads one damaged record of it over and over" ]
}

@test "the magic number alone, on stdin: one message, exit 65" {
    run --separate-stderr sh -c "head -c 10 $F/sleep-v7.dat | argus-decode"
    assert_failure 65
    [ "$stderr" = "argus-decode: <stdin>: not a trace.dat trace-cmd can read: libtracecmd cannot read its headers (a file cut short, or damaged)" ]
}

@test "a trace.dat given as --format ftrace is refused, the format named (65)" {
    run --separate-stderr argus-decode --format ftrace $F/sleep-v7.dat
    assert_failure 65
    [ "$stderr" = "argus-decode: fixtures/tracedat/sleep-v7.dat: a trace-cmd trace.dat file, not ftrace text: argus tells its format without --format: argus-decode fixtures/tracedat/sleep-v7.dat" ]
}

@test "--format tracedat given a text: not a trace.dat, exit 65" {
    run --separate-stderr argus-decode --format tracedat $F/pipe.txt
    assert_failure 65
    [ "$stderr" = "argus-decode: fixtures/tracedat/pipe.txt: not a trace.dat trace-cmd can read: libtracecmd cannot read its headers (a file cut short, or damaged)" ]
}

# ---- Everywhere a text trace goes ------------------------------------------

@test "argus graph of a trace.dat: the graph of its text" {
    argus graph $F/pipe.txt | argus-to-json | sed 1d > "$T/text.graph"
    run sh -c "argus graph $F/pipe-v7.dat | argus-to-json | sed 1d"
    assert_success
    assert_output "$(cat "$T/text.graph")"
}

@test "argus diagnose of a trace.dat: the report of its text" {
    argus diagnose $F/pipe.txt > "$T/text.report"
    run argus diagnose $F/pipe-v7.dat
    assert_success
    assert_output "$(cat "$T/text.report")"
    assert_line --index 0 --partial "Verdict (hang 0): head/main [5508] was blocked 594.1 ms in read"
}

# ---- What the trace lost (DEC-LOSS) --------------------------------------

@test "DEC-LOSS: a trace.dat's missed events (small ring, load): dropped records of 1107 and 919" {
    run sh -c "argus-decode $F/lost-v7.dat 2>/dev/null | argus-to-json | grep '\"loss\"'"
    assert_success
    assert_output '{"type":"loss","kind":"dropped","cpu":0,"events":1107}
{"type":"loss","kind":"dropped","cpu":1,"events":919,"from":92968333,"to":92968333}'
    grep -qx 'argus-td: CPU:0 \[1107 EVENTS DROPPED\]' $F/lost.txt
    grep -qx 'argus-td: CPU:1 \[919 EVENTS DROPPED\]' $F/lost.txt
}

@test "DEC-LOSS: trace-cmd report's [N EVENTS DROPPED] lines are losses: the text gives the same stream" {
    same_stream $F/lost-v7.dat $F/lost.txt
    run --separate-stderr argus-decode $F/lost.txt
    assert_success
    [ "${stderr_lines[0]}" = "argus-decode: $F/lost.txt:2: warning: CPU:0 [1107 EVENTS DROPPED]" ]
}

@test "DEC-LOSS: argus diagnose of the trace.dat says first that the tracer dropped 2026 events" {
    run --separate-stderr argus diagnose $F/lost-v7.dat
    assert_failure 1
    assert_line --index 0 "no hang found"
    assert_line --index 1 "Incomplete trace: the tracer dropped 2026 events (about 57317.434379 s)."
}
