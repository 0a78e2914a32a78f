#!/usr/bin/env bats
# argus-decode --format ctf: CTF trace directories, LTTng kernel traces and
# perf data convert --to-ctf, read with libbabeltrace2
# (docs/inputs/ctf.md). The traces are real (fixtures/ctf/, its README.md
# says where each comes from); each event becomes the ftrace line of its
# tracepoint and the ftrace decoder maps it.

bats_require_minimum_version 1.5.0
load test_helper

F=fixtures/ctf

setup() {
    T="$BATS_TEST_TMPDIR"
    LTTNG=$T/lttng-many-threads
    tar xzf $F/lttng-many-threads.tar.gz -C "$T"
}

# stream DIR [ARGS]: DIR decoded, as JSON lines
stream() {
    set -o pipefail
    argus-decode "${@:2}" "$1" | argus-to-json
}

# ---- LTTng ------------------------------------------------------------------

@test "an LTTng session directory decodes without --format, a valid stream" {
    run sh -c "argus-decode $LTTNG | argus-validate"
    assert_success
    assert_output '<stdin>: valid: 3313 records, 3269 events, 40 threads, 0 edges, 0 segments, ts 0..21934189 (0.021934189 s)'
}

@test "LTTng: the header's origin is the first event's time, t0 the same instant" {
    run sh -c "argus-decode $LTTNG | argus-to-json | head -1"
    assert_output "{\"type\":\"stream\",\"format\":\"argus\",\"version\":1,\"source\":\"ftrace\",\"t0\":1457113582794565804,\"origin\":1457113582794565804,\"stages\":[\"decode $LTTNG\"]}"
}

@test "LTTng without pid context: a thread's process comes from the statedump" {
    stream $LTTNG > "$T/s.jsonl"
    run grep -E '"type":"thread","tid":(856|989|4),' "$T/s.jsonl"
    assert_output '{"type":"thread","tid":4,"pid":4,"proc":"kworker/0:0","name":"kworker/0:0","main":true,"kernel":true,"parent":2}
{"type":"thread","tid":856,"pid":856,"proc":"xchat","name":"xchat","main":true,"parent":697}
{"type":"thread","tid":989,"pid":856,"proc":"xchat","name":"xchat"}'
}

@test "LTTng: a thread forked during the trace is in the process the fork names" {
    stream $LTTNG > "$T/s.jsonl"
    run grep -E '"type":"thread","tid":(2673|2674),' "$T/s.jsonl"
    assert_output '{"type":"thread","tid":2673,"pid":2673,"proc":"genKernelTraces","name":"genKernelTraces","main":true,"parent":2656}
{"type":"thread","tid":2674,"pid":2673,"proc":"genKernelTraces","name":"multithread"}
{"type":"thread","tid":2673,"pid":2673,"proc":"multithread","name":"multithread","main":true,"parent":2656}
{"type":"thread","tid":2674,"pid":2673,"proc":"multithread","name":"fluffy"}'
}

@test "LTTng: a futex wait, its wakeup and the woken at the switch back" {
    stream $LTTNG > "$T/s.jsonl"
    run grep -E '"id":(2294|2300|2302),' "$T/s.jsonl"
    assert_output '{"type":"wait","id":2294,"ts":3805837,"tid":856,"pid":856,"cpu":3,"reason":"futex","resource":"0x24c9194"}
{"type":"wakeup","id":2300,"ts":3812109,"tid":989,"pid":856,"cpu":1,"target":856}
{"type":"woken","id":2302,"ts":3814258,"tid":856,"pid":856,"cpu":3,"result":"awakened","runnable":2149}'
}

@test "LTTng: syscall_entry_X/syscall_exit_X are syscalls; sched_switch the thread" {
    stream $LTTNG > "$T/s.jsonl"
    run grep -E '"id":(2292|2304),' "$T/s.jsonl"
    assert_output '{"type":"syscall","id":2292,"ts":3804340,"tid":856,"pid":856,"cpu":3,"name":"futex","phase":"begin","args":[38572436,128,46801,0,38093312,23400]}
{"type":"syscall","id":2304,"ts":3815120,"tid":856,"pid":856,"cpu":3,"name":"futex","phase":"end","ret":0}'
}

@test "LTTng: a waking/wakeup pair is one wakeup; irq and softirq are interrupts" {
    run sh -c "argus-decode -v $LTTNG 2>&1 >/dev/null | grep 'sched_wakeup lines'"
    assert_output '  209 sched_wakeup lines after their sched_waking (one counts)'
    stream $LTTNG > "$T/s.jsonl"
    assert_equal "$(grep -c '"type":"wakeup"' "$T/s.jsonl")" 209
    run grep -m2 '"type":"interrupt"' "$T/s.jsonl"
    assert_output '{"type":"interrupt","id":42,"ts":79335,"tid":0,"pid":0,"cpu":4,"phase":"begin","irq":26,"name":"0000:00:1f.2"}
{"type":"interrupt","id":44,"ts":82263,"tid":0,"pid":0,"cpu":4,"phase":"end","irq":26}'
}

@test "LTTng: the statedump is read, not written (no ftrace event of lttng_statedump_*)" {
    stream $LTTNG > "$T/s.jsonl"
    run grep -c 'lttng_statedump' "$T/s.jsonl"
    assert_output 0
}

@test "a CTF trace and the tracefs text of its events decode to the same records" {
    bench/gen-ctf --events 20000 --seed 3 --text "$T/gen.txt" "$T/gen"
    stream "$T/gen.txt" | sed 1d > "$T/text.jsonl"
    run sh -c "argus-decode $T/gen | argus-to-json | sed 1d"
    assert_success
    assert_output "$(cat "$T/text.jsonl")"
    [ "$(grep -c '"type":"wait","id"' "$T/text.jsonl")" -gt 1000 ]
    [ "$(grep -c '"reason":"futex"' "$T/text.jsonl")" -gt 1000 ]
}

@test "LTTng's tid, pid and procname contexts give each event its thread" {
    bench/gen-ctf --events 20000 --seed 3 --contexts --text "$T/ctx.txt" "$T/ctx"
    bench/gen-ctf --events 20000 --seed 3 "$T/plain"
    grep -q 'event.context := struct { int32_t _tid; int32_t _pid; string _procname; };' "$T/ctx/metadata"
    stream "$T/ctx.txt" | sed 1d > "$T/text.jsonl"
    run sh -c "argus-decode $T/ctx | argus-to-json | sed 1d"
    assert_output "$(cat "$T/text.jsonl")"
    run sh -c "argus-decode $T/plain | argus-to-json | sed 1d"
    assert_output "$(cat "$T/text.jsonl")"
}

# ---- perf's CTF ---------------------------------------------------------------

@test "perf's CTF: sample fields give each event its thread; fork, exec and exit" {
    run sh -c "argus-decode $F/perf-sleep | argus-validate"
    assert_output '<stdin>: valid: 53 records, 45 events, 7 threads, 0 edges, 0 segments, ts 0..51674235 (0.051674235 s)'
    stream $F/perf-sleep > "$T/s.jsonl"
    run grep -E '"type":"(thread|exec|exit)","(tid|id)' "$T/s.jsonl"
    assert_line '{"type":"thread","tid":2686,"pid":2686,"proc":"sleep","name":"sleep","main":true,"parent":2676}'
    assert_line '{"type":"exec","id":17,"ts":23776389,"tid":2686,"pid":2686,"cpu":0,"filename":"/usr/bin/sleep"}'
    assert_line '{"type":"exit","id":34,"ts":46215645,"tid":2686,"pid":2686,"cpu":0}'
}

@test "perf's CTF: a clock_nanosleep is a syscall wait that timed out" {
    stream $F/perf-sleep > "$T/s.jsonl"
    run grep -E '"id":(30|31|32|33),' "$T/s.jsonl"
    assert_output '{"type":"syscall","id":30,"ts":35888228,"tid":2686,"pid":2686,"cpu":0,"name":"clock_nanosleep","phase":"begin","args":[0,0,140734079056928,140734079056992]}
{"type":"wait","id":31,"ts":35898979,"tid":2686,"pid":2686,"cpu":0,"reason":"clock_nanosleep"}
{"type":"woken","id":32,"ts":46133960,"tid":2686,"pid":2686,"cpu":0,"result":"timed_out","synth":true}
{"type":"syscall","id":33,"ts":46133960,"tid":2686,"pid":2686,"cpu":0,"name":"clock_nanosleep","phase":"end","ret":0}'
}

@test "perf's CTF: common_flags are the flags column: hardirq wakeups in a window" {
    stream $F/perf-sleep > "$T/s.jsonl"
    run grep -E '"id":(20|21|22),' "$T/s.jsonl"
    assert_output '{"type":"interrupt","id":20,"ts":29301394,"tid":2686,"pid":2686,"cpu":0,"phase":"begin","name":"hardirq context"}
{"type":"wakeup","id":21,"ts":29301394,"tid":2686,"pid":2686,"cpu":0,"target":16404}
{"type":"interrupt","id":22,"ts":29375926,"tid":2686,"pid":2686,"cpu":0,"phase":"end","name":"hardirq context"}'
}

@test "perf's CTF of a 3.10 kernel: prev_state is the task's state then" {
    tar xzf $F/perf-taskset2.tar.gz -C "$T"
    run sh -c "argus-decode $T/perf-taskset2 | argus-validate"
    assert_output '<stdin>: valid: 1790 records, 1778 events, 9 threads, 0 edges, 0 segments, ts 0..58324167 (0.058324167 s)'
    run sh -c "argus-decode $T/perf-taskset2 | argus-to-json | jq -r 'select(.type == \"wait\") | .reason' | sort | uniq -c"
    assert_output '     40 disk
    299 sleeping'
}

# ---- Telling and opening a CTF trace ---------------------------------------

@test "a CTF directory needs no --format, nor its metadata file given alone" {
    stream $F/perf-sleep --format ctf | sed 1d > "$T/ctf.jsonl"
    run sh -c "argus-decode $F/perf-sleep | argus-to-json | sed 1d"
    assert_output "$(cat "$T/ctf.jsonl")"
    run sh -c "argus-decode $F/perf-sleep/metadata | argus-to-json | sed 1d"
    assert_output "$(cat "$T/ctf.jsonl")"
    [ "$(wc -l < "$T/ctf.jsonl")" -gt 40 ]
}

@test "argus diagnose DIR: a CTF trace through the whole pipeline with no --format" {
    run argus diagnose $F/perf-sleep
    assert_failure 1
    assert_line --index 0 'no hang found'
    assert_line --index 1 'Trace: 7 threads in 7 processes, 18 segments, 45 events, 23592.526448 s to 23592.578122 s'
}

@test "argus graph --cache DIR: the trace directory's files key the decode stage" {
    argus graph --cache "$T/cache" $F/perf-sleep > "$T/first.argus"
    run --separate-stderr argus graph --cache "$T/cache" -v $F/perf-sleep
    assert_success
    [[ "${stderr_lines[0]}" == "argus graph: decode: cached "* ]]
    cp -r $F/perf-sleep "$T/changed"
    printf x >> "$T/changed/perf_stream_0"
    run argus-cache-key --input $F/perf-sleep
    refute_output "$(argus-cache-key --input "$T/changed")"
}

# ---- Bad input --------------------------------------------------------------

@test "a directory with no CTF trace in it: exit 66 saying so, nothing written" {
    mkdir "$T/empty"
    run --separate-stderr argus-decode "$T/empty"
    assert_failure 66
    assert_output ''
    assert_equal "$stderr" "argus-decode: $T/empty: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)"
}

@test "a directory with a format that reads files: exit 66" {
    run argus-decode --format ftrace $F/perf-sleep
    assert_failure 66
    assert_output "argus-decode: $F/perf-sleep: a directory: --format ftrace reads a file (a directory is read as a CTF trace)"
}

@test "CTF metadata cut short exits 65 naming the metadata file and line" {
    mkdir "$T/cut"
    head -c 5000 $F/perf-sleep/metadata > "$T/cut/metadata"
    cp $F/perf-sleep/perf_stream_0 "$T/cut/"
    run argus-decode "$T/cut"
    assert_failure 65
    assert_output "argus-decode: $T/cut/metadata:93: syntax error, unexpected \$end, expecting CTF_SEMICOLON: token=\"\" (the CTF metadata does not parse)"
}

@test "LTTng's packetized metadata is CTF; cut short, exit 65 with its line" {
    mkdir "$T/packed"
    cp $F/lttng-metadata-packet-head "$T/packed/metadata"
    run argus-decode "$T/packed"
    assert_failure 65
    assert_output "argus-decode: $T/packed/metadata:36: syntax error, unexpected \$end: token=\"\" (the CTF metadata does not parse)"
}

@test "a CTF stream file cut short: exit 65 naming the file" {
    mkdir "$T/short"
    cp $F/perf-sleep/metadata "$T/short/"
    head -c 1000 $F/perf-sleep/perf_stream_0 > "$T/short/perf_stream_0"
    run argus-decode "$T/short"
    assert_failure 65
    assert_output "argus-decode: $T/short/perf_stream_0: a CTF stream file babeltrace2 cannot index: its packets are cut short or damaged"
}

@test "a CTF stream damaged in its middle exits 65 naming the last event read" {
    mkdir "$T/bad"
    cp $F/perf-sleep/metadata "$T/bad/"
    cp $F/perf-sleep/perf_stream_0 "$T/bad/"
    printf '\377%.0s' $(seq 100) | dd of="$T/bad/perf_stream_0" bs=1 seek=3000 conv=notrunc status=none
    run argus-decode "$T/bad"
    assert_failure 65
    assert_output "argus-decode: $T/bad/perf_stream_0: the trace does not read on after its event 34 (ts 23592.577824072, the last read, from this stream file): Youngest upstream message iterator wrapper's timestamp is less than muxer's message iterator's last returned timestamp"
}

@test "CTF metadata on stdin: exit 65, the trace is a directory" {
    run sh -c "argus-decode < $F/perf-sleep/metadata"
    assert_failure 65
    assert_output "argus-decode: <stdin>: CTF metadata on stdin: give the trace's directory (its metadata and stream files)"
}

@test "metadata babeltrace2 aborts on exits 65 with its words, no crash" {
    sed -i '0,/ _prev_comm;/s// _prev_prio;/' "$LTTNG/wilbrod/metadata"
    run argus-decode "$LTTNG"
    assert_failure 65
    assert_output "argus-decode: $LTTNG: babeltrace2 dies reading its metadata and packet headers: Duplicate member/option name in structure/variant field class (a damaged trace, or one babeltrace2 cannot read)"
}

# ---- What the trace lost (DEC-LOSS) ------------------------------------------

@test "DEC-LOSS: LTTng's 25 discarded events and a skipped packet: one dropped record of CPU 1" {
    run --separate-stderr stream $F/lttng-lost
    assert_success
    [ "${stderr_lines[0]}" = "argus-decode: $F/lttng-lost:6: warning: CPU:1 [LOST 25 EVENTS]" ]
    [ "${stderr_lines[1]}" = "argus-decode: $F/lttng-lost:9: warning: CPU:1 [LOST EVENTS]" ]
    [ "${#stderr_lines[@]}" = 2 ]
    [ "${#lines[@]}" = 19 ]
    assert_line --index 18 '{"type":"loss","kind":"dropped","cpu":1,"events":25,"from":12000000,"to":22000000}'
}

@test "DEC-LOSS: argus diagnose of that trace says first that the tracer dropped events, and when" {
    run --separate-stderr argus diagnose $F/lttng-lost
    assert_line --index 1 "Incomplete trace: the tracer dropped 25 events (about 1457111226.012000..1457111226.022000 s)."
}

# ---- CTF 2 -----------------------------------------------------------------------

@test "a CTF 2 trace is told as CTF and refused by name (65): the babeltrace2 it needs, how to record 1.8" {
    tar xzf $F/ctf2-lttng-crash.tar.gz -C "$T"
    msg="$T/ctf2-lttng-crash/metadata: a CTF 2 trace, which libbabeltrace2 2.0.4 does not read (it reads CTF 1.8; CTF 2 needs babeltrace2 2.1 or later): record it as CTF 1.8 (lttng create SESSION --trace-format=ctf-1.8)"
    for input in "$T/ctf2-lttng-crash" "$T/ctf2-lttng-crash/metadata" "$T"; do
        run --separate-stderr argus-decode "$input"
        assert_failure 65
        [ "$stderr" = "argus-decode: $msg" ]
    done
    run --separate-stderr argus diagnose "$T/ctf2-lttng-crash"
    assert_failure 65
    [ "$stderr" = "argus diagnose: $msg" ]
}
