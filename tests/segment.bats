#!/usr/bin/env bats
# argus-segment: execution segments (SEG-* of docs/stages/segment.md).

load test_helper

# The whole graph-stage pipeline of a fixture, as to-json renders it.
pipeline() {
    local f=$1; shift
    argus-decode "fixtures/graph/$f.jsonl" | argus-cull-interrupts | argus-segment "$@" | argus-to-json
}

# Compact view: "ID:SEG" per event (with "/CTX" when it has ctx), and
# "edge KIND FROM->TO [weak]" per edge, on one line.
segs_of() {
    jq -r 'if .type == "edge" then "edge \(.kind) \(.from)->\(.to)\(if .weak then " weak" else "" end)"
           elif .id then "\(.id):\(.seg)\(if .ctx then "/" + .ctx else "" end)"
           else empty end' | tr '\n' ' ' | sed 's/ $//'
}

segs() { local f=$1; shift; pipeline "$f" "$@" | segs_of; }

# An inline hand-written trace in $BATS_TEST_TMPDIR/t.jsonl, its segments.
trace() { printf '%s\n' "$@" > "$BATS_TEST_TMPDIR/t.jsonl"; }
# The -v counters go to $BATS_TEST_TMPDIR/err.
trace_segs() {
    argus-decode "$BATS_TEST_TMPDIR/t.jsonl" | argus-segment "$@" 2> "$BATS_TEST_TMPDIR/err" | argus-to-json | segs_of
}

# ---- fixtures: the seeds' scenarios, exact output --------------------------

@test "SEG-WAIT: a worker parked in a low-priority dispatch block stays one node" {
    run pipeline dispatch-park
    assert_success
    assert_output "$(cat fixtures/graph/dispatch-park.segment.expected.jsonl)"
    run segs dispatch-park
    assert_output "1:1 2:2 3:2 4:2 5:2 6:2 7:2 8:2 9:2"
}

@test "SEG-IPC, SEG-LINK: fontd's MIG callout splits at Chrome's request, weak edge" {
    run pipeline fontd-mig-server
    assert_success
    assert_output "$(cat fixtures/graph/fontd-mig-server.segment.expected.jsonl)"
    # the reply to Terminal (10) ends segment 3, Chrome's request (11) starts 5
    run segs fontd-mig-server
    assert_output "1:1 2:2 3:2 4:3 5:3 6:3 7:3 8:4 9:4 10:3 11:5 edge split 10->11 weak 12:6 13:6 14:5 15:5 16:5 17:5 18:7 19:7"
    run sh -c 'argus-decode fixtures/graph/fontd-mig-server.jsonl | argus-segment | argus-to-json | jq -c "select(.type==\"edge\")"'
    assert_output '{"type":"edge","kind":"split","from":10,"to":11,"weak":true}'
}

@test "SEG-IPC: vouchers tying fontd's two requests to Terminal keep one segment" {
    run pipeline fontd-voucher
    assert_success
    assert_output "$(cat fixtures/graph/fontd-voucher.segment.expected.jsonl)"
    # fontd's main thread (ids 6-9, 12, 13, 16-19) is all segment 5, no edge;
    # fontworker's recv from Terminal and send to fontd (5, 10, 11) are one
    run segs fontd-voucher
    assert_output "1:1 2:2 3:3 4:3 5:4 6:5 7:5 8:5 9:5 10:4 11:4 12:5 13:5 14:6 15:6 16:5 17:5 18:5 19:5 20:7 21:7"
}

@test "SEG-IPC, SEG-LINK: WindowServer's send+receive splits at each other app" {
    run pipeline windowserver-send-recv
    assert_success
    assert_output "$(cat fixtures/graph/windowserver-send-recv.segment.expected.jsonl)"
    # WindowServer: 3-6,9-11 segment 2 (Terminal), 12,13,16,19-21 segment 4
    # (Safari), 22,23 segment 6 (Terminal again)
    run segs windowserver-send-recv
    assert_output "1:1 2:1 3:2 4:2 5:2 6:2 7:3 8:3 9:2 10:2 11:2 12:4 edge split 11->12 weak 13:4 14:5 15:5 16:4 17:5 18:5 19:4 20:4 21:4 22:6 edge split 21->22 weak 23:6 24:7 25:7"
}

@test "SEG-KERNEL, SEG-LINK: the timer thread splits where it wakes another process" {
    run pipeline kernel-timers
    assert_success
    assert_output "$(cat fixtures/graph/kernel-timers.segment.expected.jsonl)"
    # kernel thread: timer 1 (8-11) segment 6; timer 2 (12-15) segment 7 by
    # SEG-CALLOUT; the wakeup of Dock (16) starts 8; Calendar's two threads
    # (14, 15) stay together; Mail's worker (18) after the end starts 9
    run segs kernel-timers
    assert_output "1:1 2:1 3:2 4:2 5:3 6:4 7:5 8:6 9:6 10:6 11:6 12:7 13:7 14:7 15:7 16:8 edge split 15->16 weak 17:8 18:9 19:10 20:10 21:11 22:11 23:12 24:12 25:13 26:13 27:14 28:14"
}

@test "SEG-KERNEL: a kernel thread's timer_fire starts a segment, SEG-CALLOUT or not" {
    run segs kernel-timers --no-callout
    assert_success
    assert_output "1:1 2:1 3:2 4:2 5:3 6:4 7:5 8:6 9:6 10:6 11:6 12:7 edge split 11->12 weak 13:7 14:7 15:7 16:8 edge split 15->16 weak 17:8 18:9 edge split 17->18 weak 19:10 20:10 21:11 22:11 23:12 24:12 25:13 26:13 27:14 28:14"
}

@test "SEG-CTX, CULL-1: interrupt and maintenance windows are segments of their own" {
    run pipeline interrupt-window
    assert_success
    assert_output "$(cat fixtures/graph/interrupt-window.segment.expected.jsonl)"
    # Music's thread: segment 2 before, between and after the windows 3 and 5
    run segs interrupt-window
    assert_output "1:1 2:1 3:2 4:3/interrupt 5:3/interrupt 6:3/interrupt 7:4 8:4 9:2 10:5/maintenance 11:5/maintenance 12:2"
}

@test "SEG-WAIT: the paper's thread A: its wait ends a segment, it resumes in a third" {
    run pipeline seed000-block-wake
    assert_success
    assert_output "$(cat fixtures/graph/seed000-block-wake.segment.expected.jsonl)"
    run sh -c 'argus-decode fixtures/graph/seed000-block-wake.jsonl | argus-segment | argus-to-json | jq -c "select(.id) | [.id, .tid, .type, .seg]" | tr -d "\n"'
    assert_output '[1,8001,"syscall",1][2,8001,"syscall",1][3,8001,"wait",1][4,8002,"syscall",2][5,8002,"syscall",2][6,8002,"wakeup",2][7,8001,"woken",3][8,8001,"syscall",3][9,8001,"syscall",3]'
}

@test "SEG-RUNLOOP, SEG-CALLOUT, SEG-WAIT: callouts and timer fires are segments" {
    run pipeline runloop-timer
    assert_success
    assert_output "$(cat fixtures/graph/runloop-timer.segment.expected.jsonl)"
    # 11-13 the block, 20-23 and 29-32 the timer fires; 14 and 33 follow a
    # callout end; 35, the entry after the exit, starts segment 12
    run segs runloop-timer
    assert_output "1:1 2:1 3:1 4:1 5:1 6:1 7:2 8:2 9:3 10:3 11:4 12:4 13:4 14:5 15:5 16:5 17:5 18:6 19:6 20:7 21:7 22:7 23:7 24:8 25:8 26:8 27:9 28:9 29:10 30:10 31:10 32:10 33:11 34:11 35:12 36:12"
}

@test "SEG-UI: a ui_event at callout level 0 starts a segment, one inside does not" {
    run pipeline ui-event
    assert_success
    assert_output "$(cat fixtures/graph/ui-event.segment.expected.jsonl)"
    # keyDown 10 and keyUp 13 start segments; mouseDown 15 stays in the
    # source1 callout's segment 6
    run segs ui-event
    assert_output "1:1 2:1 3:2 4:2 5:2 6:2 7:3 8:3 9:3 10:4 11:4 12:4 13:5 14:6 15:6 16:6 17:6 18:7 19:7"
}

@test "every fixture's output is a valid stream with seg on every event (validate)" {
    local f
    for f in dispatch-park fontd-mig-server fontd-voucher windowserver-send-recv \
             kernel-timers interrupt-window seed000-block-wake runloop-timer ui-event; do
        run sh -c "argus-decode fixtures/graph/$f.jsonl | argus-cull-interrupts | argus-segment | argus-validate"
        assert_success
        assert_output --partial "valid:"
    done
}

# ---- each rule in detail ---------------------------------------------------

@test "SEG-WAIT: the wait ends its segment, the thread's next event starts one" {
    trace '{"type":"syscall","ts":1,"tid":1,"pid":1,"name":"a"}' \
          '{"type":"wait","ts":2,"tid":1,"pid":1}' \
          '{"type":"syscall","ts":3,"tid":2,"pid":1,"name":"b"}' \
          '{"type":"woken","ts":4,"tid":1,"pid":1}' \
          '{"type":"syscall","ts":5,"tid":1,"pid":1,"name":"c"}'
    run trace_segs
    assert_output "1:1 2:1 3:2 4:3 5:3"
}

@test "SEG-WAIT: two waits in a row: the woken between and the second form a segment" {
    trace '{"type":"wait","ts":1,"tid":1,"pid":1}' '{"type":"wait","ts":2,"tid":1,"pid":1}' \
          '{"type":"syscall","ts":3,"tid":1,"pid":1,"name":"x"}'
    run sh -c "argus-decode --format jsonl $BATS_TEST_TMPDIR/t.jsonl | argus-to-json | jq -c 'select(.id) | .type' | tr -d '\n'"
    assert_output '"wait""woken""wait""woken""syscall"'
    run trace_segs
    assert_output "1:1 2:2 3:2 4:3 5:3"
}

@test "SEG-CALLOUT: a nested callout neither starts nor closes a segment" {
    trace '{"type":"syscall","ts":1,"tid":1,"pid":1,"name":"before"}' \
          '{"type":"runloop_invoke","ts":2,"tid":1,"pid":1,"phase":"begin","kind":"dispatch"}' \
          '{"type":"dispatch_invoke","ts":3,"tid":1,"pid":1,"phase":"begin","item":"0x10"}' \
          '{"type":"dispatch_invoke","ts":4,"tid":1,"pid":1,"phase":"end","item":"0x10"}' \
          '{"type":"wait","ts":5,"tid":1,"pid":1}' \
          '{"type":"woken","ts":6,"tid":1,"pid":1}' \
          '{"type":"runloop_invoke","ts":7,"tid":1,"pid":1,"phase":"end","kind":"dispatch"}' \
          '{"type":"syscall","ts":8,"tid":1,"pid":1,"name":"after"}'
    run trace_segs
    assert_output "1:1 2:2 3:2 4:2 5:2 6:2 7:2 8:3"
}

@test "SEG-CALLOUT: a callout begin right after an end or a first event starts one" {
    trace '{"type":"dispatch_invoke","ts":1,"tid":1,"pid":1,"phase":"begin"}' \
          '{"type":"dispatch_invoke","ts":2,"tid":1,"pid":1,"phase":"end"}' \
          '{"type":"dispatch_invoke","ts":3,"tid":1,"pid":1,"phase":"begin"}' \
          '{"type":"dispatch_invoke","ts":4,"tid":1,"pid":1,"phase":"end"}'
    run trace_segs -v
    assert_output "1:1 2:1 3:2 4:2"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line --index 0 "argus-segment: segments: 2"
    assert_line "argus-segment: segments started by a thread's first event: 1"
    assert_line "argus-segment: segments started by callouts (SEG-CALLOUT): 1"
}

@test "SEG-CALLOUT, SEG-WAIT: after a wait, the woken and a callout start segments" {
    trace '{"type":"wait","ts":1,"tid":1,"pid":1}' \
          '{"type":"dispatch_invoke","ts":2,"tid":1,"pid":1,"phase":"begin"}' \
          '{"type":"dispatch_invoke","ts":3,"tid":1,"pid":1,"phase":"end"}'
    run trace_segs
    assert_output "1:1 2:2 3:3 4:3"
}

@test "SEG-CALLOUT: timer_fire and runloop_invoke point events are no callouts" {
    trace '{"type":"syscall","ts":1,"tid":1,"pid":1,"name":"a"}' \
          '{"type":"timer_fire","ts":2,"tid":1,"pid":1,"timer":"0x1"}' \
          '{"type":"runloop_invoke","ts":3,"tid":1,"pid":1,"kind":"block"}' \
          '{"type":"wait","ts":4,"tid":1,"pid":1}'
    run trace_segs
    assert_output "1:1 2:1 3:1 4:1"
}

@test "SEG-RUNLOOP: runloop_phase entry starts a segment even inside a callout" {
    trace '{"type":"runloop_phase","ts":1,"tid":1,"pid":1,"stage":"before_timers"}' \
          '{"type":"runloop_invoke","ts":2,"tid":1,"pid":1,"phase":"begin","kind":"source0"}' \
          '{"type":"runloop_phase","ts":3,"tid":1,"pid":1,"stage":"entry"}' \
          '{"type":"runloop_phase","ts":4,"tid":1,"pid":1,"stage":"exit"}' \
          '{"type":"runloop_invoke","ts":5,"tid":1,"pid":1,"phase":"end","kind":"source0"}'
    run trace_segs
    assert_output "1:1 2:2 3:3 4:3 5:3"
}

@test "SEG-IPC, SEG-LINK: a split at any callout level joins the pieces by a weak edge" {
    trace '{"type":"dispatch_invoke","ts":1,"tid":1,"pid":9,"phase":"begin"}' \
          '{"type":"runloop_invoke","ts":2,"tid":1,"pid":9,"phase":"begin"}' \
          '{"type":"ipc","ts":3,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"ipc","ts":4,"tid":1,"pid":9,"dir":"send","peer":30}' \
          '{"type":"runloop_invoke","ts":5,"tid":1,"pid":9,"phase":"end"}' \
          '{"type":"dispatch_invoke","ts":6,"tid":1,"pid":9,"phase":"end"}'
    run trace_segs
    assert_output "1:1 2:1 3:1 4:2 edge split 3->4 weak 5:2 6:2"
}

@test "SEG-IPC: the peer set starts empty in a new segment and grows with messages" {
    # 20, then 20 with voucher 30: set {20,30}; 30 alone stays; 40 splits;
    # after the wait, 20 starts a fresh set
    trace '{"type":"ipc","ts":1,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"ipc","ts":2,"tid":1,"pid":9,"dir":"send","peer":20,"voucher_pids":[30]}' \
          '{"type":"ipc","ts":3,"tid":1,"pid":9,"dir":"send","peer":30}' \
          '{"type":"ipc","ts":4,"tid":1,"pid":9,"dir":"send","peer":40}' \
          '{"type":"wait","ts":5,"tid":1,"pid":9}' \
          '{"type":"ipc","ts":6,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"ipc","ts":7,"tid":1,"pid":9,"dir":"recv","peer":40}'
    run trace_segs
    assert_output "1:1 2:1 3:1 4:2 edge split 3->4 weak 5:2 6:3 7:3 8:4 edge split 7->8 weak"
}

@test "SEG-IPC: the thread's own process and unknown peers name no client" {
    # after peer 20: a message to its own process, one without peer, and
    # one whose voucher names only the thread's process neither split nor
    # add to the set, which is still {20} when a message to 30 splits it
    trace '{"type":"ipc","ts":1,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"ipc","ts":2,"tid":1,"pid":9,"dir":"send","peer":9}' \
          '{"type":"ipc","ts":3,"tid":1,"pid":9,"dir":"send","port":"0x5"}' \
          '{"type":"ipc","ts":4,"tid":1,"pid":9,"dir":"send","peer":9,"voucher_pids":[9]}' \
          '{"type":"ipc","ts":5,"tid":1,"pid":9,"dir":"send","peer":30}'
    run trace_segs
    assert_output "1:1 2:1 3:1 4:1 5:2 edge split 4->5 weak"
    # and a first message with no known process leaves the set empty
    trace '{"type":"ipc","ts":1,"tid":1,"pid":9,"dir":"recv"}' \
          '{"type":"ipc","ts":2,"tid":1,"pid":9,"dir":"send","peer":30}' \
          '{"type":"ipc","ts":3,"tid":1,"pid":9,"dir":"send","peer":30}'
    run trace_segs
    assert_output "1:1 2:1 3:1"
}

@test "SEG-IPC: a full peer set drops its oldest pid and counts it" {
    # a chain of vouchers: 8 pids fill the set, the 9th drops 10, so a
    # message to 10 alone then splits
    local lines=() i
    for i in 1 2 3 4 5 6 7 8; do
        lines+=("{\"type\":\"ipc\",\"ts\":$i,\"tid\":1,\"pid\":9,\"dir\":\"recv\",\"peer\":$((i * 10)),\"voucher_pids\":[$((i * 10 + 10))]}")
    done
    lines+=('{"type":"ipc","ts":20,"tid":1,"pid":9,"dir":"send","peer":10}')
    trace "${lines[@]}"
    run trace_segs -v
    assert_output "1:1 2:1 3:1 4:1 5:1 6:1 7:1 8:1 9:2 edge split 8->9 weak"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line "argus-segment: pids dropped from a full IPC peer set: 1"
}

@test "SEG-IPC: voucher_pids past the first 16 are left out and counted" {
    trace '{"type":"ipc","ts":1,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"ipc","ts":2,"tid":1,"pid":9,"dir":"recv","voucher_pids":[1,2,3,4,5,6,7,8,10,11,12,13,14,15,16,17,20]}'
    # the 17th, 20, is the one pid the set {20} has: left out, so a split
    run trace_segs -v
    assert_output "1:1 2:2 edge split 1->2 weak"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line "argus-segment: ipc events with voucher_pids past the first 16: 1"
}

@test "SEG-KERNEL: only kernel threads split at wakeups of other processes" {
    # thread 5 has no thread record: its pid 50 is known from its event
    trace '{"type":"thread","tid":7,"pid":0,"proc":"kernel_task","kernel":true}' \
          '{"type":"thread","tid":8,"pid":1,"proc":"user"}' \
          '{"type":"thread","tid":4,"pid":40,"proc":"a"}' \
          '{"type":"syscall","ts":1,"tid":5,"pid":50,"name":"x"}' \
          '{"type":"wakeup","ts":2,"tid":8,"target":4}' \
          '{"type":"wakeup","ts":3,"tid":8,"target":5}' \
          '{"type":"wakeup","ts":4,"tid":7,"target":4}' \
          '{"type":"wakeup","ts":5,"tid":7,"target":4}' \
          '{"type":"wakeup","ts":6,"tid":7,"target":5}'
    run trace_segs
    assert_output "1:1 2:2 3:2 4:3 5:3 6:4 edge split 5->6 weak"
}

@test "SEG-KERNEL: a later thread record turns a thread into a kernel thread (and back)" {
    trace '{"type":"thread","tid":7,"pid":0,"proc":"kernel_task"}' \
          '{"type":"thread","tid":4,"pid":40,"proc":"a"}' \
          '{"type":"thread","tid":5,"pid":50,"proc":"b"}' \
          '{"type":"wakeup","ts":1,"tid":7,"target":4}' \
          '{"type":"wakeup","ts":2,"tid":7,"target":5}' \
          '{"type":"thread","tid":7,"pid":0,"proc":"kernel_task","kernel":true}' \
          '{"type":"wakeup","ts":3,"tid":7,"target":4}' \
          '{"type":"wakeup","ts":4,"tid":7,"target":5}' \
          '{"type":"thread","tid":7,"pid":0,"proc":"kernel_task"}' \
          '{"type":"wakeup","ts":5,"tid":7,"target":4}'
    run trace_segs
    assert_output "1:1 2:1 3:1 4:2 edge split 3->4 weak 5:2"
}

@test "SEG-KERNEL: a wakeup of an unknown process or without target does not split" {
    trace '{"type":"thread","tid":7,"pid":0,"proc":"kernel_task","kernel":true}' \
          '{"type":"thread","tid":4,"pid":40,"proc":"a"}' \
          '{"type":"wakeup","ts":1,"tid":7,"target":4}' \
          '{"type":"wakeup","ts":2,"tid":7,"target":999}' \
          '{"type":"wakeup","ts":3,"tid":7}' \
          '{"type":"wakeup","ts":4,"tid":7,"target":4}'
    run trace_segs -v
    assert_output "1:1 2:1 3:1 4:1"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line "argus-segment: kernel wakeups of a thread of unknown process: 2"
}

@test "SEG-CTX: windows split by a thread event are two segments, back-to-back one" {
    # the ipc to 30 inside a window adds nothing to the thread's peer set
    # {20} (so the later ipc to 30 splits), and the callout begin inside it
    # does not raise the thread's level (so the wait splits)
    trace '{"type":"ipc","ts":1,"tid":1,"pid":9,"dir":"recv","peer":20}' \
          '{"type":"interrupt","ts":2,"tid":1,"pid":9,"phase":"begin","ctx":"interrupt"}' \
          '{"type":"ipc","ts":3,"tid":1,"pid":9,"dir":"send","peer":30,"ctx":"interrupt"}' \
          '{"type":"dispatch_invoke","ts":3,"tid":1,"pid":9,"phase":"begin","ctx":"interrupt"}' \
          '{"type":"interrupt","ts":4,"tid":1,"pid":9,"phase":"end","ctx":"interrupt"}' \
          '{"type":"sched_maintenance","ts":5,"tid":1,"pid":9,"phase":"begin","ctx":"maintenance"}' \
          '{"type":"sched_maintenance","ts":6,"tid":1,"pid":9,"phase":"end","ctx":"maintenance"}' \
          '{"type":"syscall","ts":7,"tid":1,"pid":9,"name":"x"}' \
          '{"type":"interrupt","ts":8,"tid":1,"pid":9,"phase":"begin","ctx":"interrupt"}' \
          '{"type":"interrupt","ts":9,"tid":1,"pid":9,"phase":"end","ctx":"interrupt"}' \
          '{"type":"ipc","ts":10,"tid":1,"pid":9,"dir":"send","peer":30}' \
          '{"type":"wait","ts":11,"tid":1,"pid":9}' \
          '{"type":"syscall","ts":12,"tid":1,"pid":9,"name":"y"}'
    run trace_segs
    assert_output "1:1 2:2/interrupt 3:2/interrupt 4:2/interrupt 5:2/interrupt 6:2/maintenance 7:2/maintenance 8:1 9:3/interrupt 10:3/interrupt 11:4 edge split 8->11 weak 12:4 13:5 14:5"
}

@test "SEG-CTX: a thread that begins with a window: the thread's own segment follows" {
    trace '{"type":"interrupt","ts":1,"tid":1,"pid":9,"phase":"begin","ctx":"interrupt"}' \
          '{"type":"interrupt","ts":2,"tid":1,"pid":9,"phase":"end","ctx":"interrupt"}' \
          '{"type":"syscall","ts":3,"tid":1,"pid":9,"name":"x"}'
    run trace_segs
    assert_output "1:1/interrupt 2:1/interrupt 3:2"
}

# ---- flags: each turns its rule off -----------------------------------------

@test "--no-wait-split turns SEG-WAIT off: thread A is one segment across its wait" {
    run segs seed000-block-wake --no-wait-split
    assert_success
    assert_output "1:1 2:1 3:1 4:2 5:2 6:2 7:1 8:1 9:1"
}

@test "--no-callout turns SEG-CALLOUT off; a wait inside a callout stays whole" {
    run segs runloop-timer --no-callout
    assert_success
    assert_output "1:1 2:1 3:1 4:1 5:1 6:1 7:2 8:2 9:3 10:3 11:3 12:3 13:3 14:3 15:3 16:3 17:3 18:4 19:4 20:4 21:4 22:4 23:4 24:4 25:4 26:4 27:5 28:5 29:5 30:5 31:5 32:5 33:5 34:5 35:6 36:6"
    run segs dispatch-park --no-callout
    assert_output "1:1 2:2 3:2 4:2 5:2 6:2 7:2 8:2 9:2"
}

@test "--no-runloop-split turns SEG-RUNLOOP off: the re-entry stays in one segment" {
    run segs runloop-timer --no-runloop-split
    assert_success
    assert_output "1:1 2:1 3:1 4:1 5:1 6:1 7:2 8:2 9:3 10:3 11:4 12:4 13:4 14:5 15:5 16:5 17:5 18:6 19:6 20:7 21:7 22:7 23:7 24:8 25:8 26:8 27:9 28:9 29:10 30:10 31:10 32:10 33:11 34:11 35:11 36:11"
}

@test "--no-ui-split turns SEG-UI off: keyDown and keyUp stay in their segment" {
    run segs ui-event --no-ui-split
    assert_success
    assert_output "1:1 2:1 3:2 4:2 5:2 6:2 7:3 8:3 9:3 10:3 11:3 12:3 13:3 14:4 15:4 16:4 17:4 18:5 19:5"
}

@test "--no-ipc-split turns SEG-IPC off: fontd's callout is one segment, no split edge" {
    run segs fontd-mig-server --no-ipc-split
    assert_success
    assert_output "1:1 2:2 3:2 4:3 5:3 6:3 7:3 8:4 9:4 10:3 11:3 12:5 13:5 14:3 15:3 16:3 17:3 18:6 19:6"
}

@test "--no-kernel-split turns SEG-KERNEL off: the timer pass is one segment" {
    run segs kernel-timers --no-kernel-split
    assert_success
    assert_output "1:1 2:1 3:2 4:2 5:3 6:4 7:5 8:6 9:6 10:6 11:6 12:7 13:7 14:7 15:7 16:7 17:7 18:8 19:9 20:9 21:10 22:10 23:11 24:11 25:12 26:12 27:13 28:13"
}

@test "--no-ctx-split turns SEG-CTX off: windows join the interrupted thread's segment" {
    run segs interrupt-window --no-ctx-split
    assert_success
    assert_output "1:1 2:1 3:2 4:2/interrupt 5:2/interrupt 6:2/interrupt 7:3 8:3 9:2 10:2/maintenance 11:2/maintenance 12:2"
}

@test "--no-split-edges turns SEG-LINK off: the same segments, no split edge" {
    run segs windowserver-send-recv --no-split-edges
    assert_success
    assert_output "1:1 2:1 3:2 4:2 5:2 6:2 7:3 8:3 9:2 10:2 11:2 12:4 13:4 14:5 15:5 16:4 17:5 18:5 19:4 20:4 21:4 22:6 23:6 24:7 25:7"
}

# ---- counters, bad input, pass-through, command line -------------------------

@test "-v prints every counter, segments per rule adding up to the segments made" {
    run sh -c 'argus-decode fixtures/graph/windowserver-send-recv.jsonl | argus-segment -v 2>&1 >/dev/null'
    assert_success
    assert_output "argus-segment: segments: 7
argus-segment: segments started by a thread's first event: 3
argus-segment: segments started after a wait (SEG-WAIT): 2
argus-segment: segments started by callouts (SEG-CALLOUT): 0
argus-segment: segments started by run loop entry (SEG-RUNLOOP): 0
argus-segment: segments started by ui events (SEG-UI): 0
argus-segment: segments started by a new IPC peer (SEG-IPC): 2
argus-segment: segments started in kernel threads (SEG-KERNEL): 0
argus-segment: interrupt and maintenance windows (SEG-CTX): 0
argus-segment: split edges written (SEG-LINK): 2
argus-segment: callout ends without begin: 0
argus-segment: kernel wakeups of a thread of unknown process: 0
argus-segment: pids dropped from a full IPC peer set: 0
argus-segment: ipc events with voucher_pids past the first 16: 0"
}

@test "-v: windows counted under SEG-CTX, callouts under SEG-CALLOUT" {
    run sh -c 'argus-decode fixtures/graph/interrupt-window.jsonl | argus-cull-interrupts | argus-segment -v 2>&1 >/dev/null | grep -E "segments:|SEG-CTX"'
    assert_output "argus-segment: segments: 5
argus-segment: interrupt and maintenance windows (SEG-CTX): 2"
    run sh -c 'argus-decode fixtures/graph/runloop-timer.jsonl | argus-segment -v 2>&1 >/dev/null | grep -E "SEG-(CALLOUT|RUNLOOP|WAIT)"'
    assert_output "argus-segment: segments started after a wait (SEG-WAIT): 3
argus-segment: segments started by callouts (SEG-CALLOUT): 6
argus-segment: segments started by run loop entry (SEG-RUNLOOP): 1"
}

@test "a callout end without begin is kept, closes the segment, and is counted" {
    # after the stray end, one begin makes level 1: the wait inside does not
    # split (a level of -1 or 0 would have split it)
    trace '{"type":"syscall","ts":1,"tid":1,"pid":1,"name":"x"}' \
          '{"type":"dispatch_invoke","ts":2,"tid":1,"pid":1,"phase":"end"}' \
          '{"type":"dispatch_invoke","ts":3,"tid":1,"pid":1,"phase":"begin"}' \
          '{"type":"wait","ts":4,"tid":1,"pid":1}' \
          '{"type":"woken","ts":5,"tid":1,"pid":1}' \
          '{"type":"dispatch_invoke","ts":6,"tid":1,"pid":1,"phase":"end"}'
    run trace_segs -v
    assert_output "1:1 2:1 3:2 4:2 5:2 6:2"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line "argus-segment: callout ends without begin: 1"
}

@test "a malformed stream exits 65 naming the record; the records before stay" {
    argus-decode fixtures/graph/seed000-block-wake.jsonl > "$BATS_TEST_TMPDIR/s.cbor"
    head -c -3 "$BATS_TEST_TMPDIR/s.cbor" > "$BATS_TEST_TMPDIR/cut.cbor"
    run sh -c "argus-segment $BATS_TEST_TMPDIR/cut.cbor > $BATS_TEST_TMPDIR/out.cbor"
    assert_failure 65
    assert_output --partial "argus-segment: $BATS_TEST_TMPDIR/cut.cbor: record 12"
    run sh -c "argus-to-json $BATS_TEST_TMPDIR/out.cbor | jq -c 'select(.id) | [.id, .seg]' | tr -d '\n'"
    assert_output '[1,1][2,1][3,1][4,2][5,2][6,2][7,3][8,3]'
    run sh -c 'printf "garbage" | argus-segment'
    assert_failure 65
}

@test "pass-through: thread records, edges and unknown records kept in order" {
    printf '%s\n' '{"type":"stream","format":"argus","version":1,"stages":["decode x"]}' \
        '{"type":"thread","tid":1,"pid":1,"proc":"p","kernel":false}' \
        '{"type":"my_marker","label":"x"}' \
        '{"type":"exec","id":1,"ts":1,"tid":1,"pid":1,"path":"/bin/sh","note":"mine","seg":77}' \
        '{"type":"edge","kind":"wakeup","from":1,"to":1}' \
        '{"type":"syscall","id":2,"ts":2,"tid":1,"pid":1,"seg":5,"name":"x"}' > "$BATS_TEST_TMPDIR/r.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/r.jsonl | argus-segment | argus-to-json"
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"stages":["decode x","segment"]}
{"type":"thread","tid":1,"pid":1,"proc":"p","kernel":false}
{"type":"my_marker","label":"x"}
{"type":"exec","id":1,"ts":1,"tid":1,"pid":1,"path":"/bin/sh","note":"mine","seg":1}
{"type":"edge","kind":"wakeup","from":1,"to":1}
{"type":"syscall","id":2,"ts":2,"tid":1,"pid":1,"seg":1,"name":"x"}'
}

@test "running segment twice gives the same segments" {
    run sh -c 'argus-decode fixtures/graph/fontd-mig-server.jsonl | argus-segment | argus-segment --no-split-edges | argus-to-json | tail -n +2'
    assert_output "$(tail -n +2 fixtures/graph/fontd-mig-server.segment.expected.jsonl)"
}

@test "--help: usage first, a summary second, every rule id and every flag" {
    run argus-segment --help
    assert_success
    assert_line --index 0 --regexp '^Usage: argus-segment '
    assert_line --index 1 'Divide each thread'"'"'s events into execution segments: add "seg" to every event.'
    for id in SEG-WAIT SEG-CALLOUT SEG-RUNLOOP SEG-UI SEG-IPC SEG-KERNEL SEG-CTX SEG-LINK; do
        assert_output --partial "  $id "
    done
    for flag in --no-wait-split --no-callout --no-runloop-split --no-ui-split \
                --no-ipc-split --no-kernel-split --no-ctx-split --no-split-edges --verbose; do
        assert_output --partial "$flag"
    done
}

@test "a bad option or two inputs is a usage error (64); a missing file 66" {
    run argus-segment --no-such-split
    assert_failure 64
    assert_line --index 0 "argus-segment: bad option '--no-such-split' (unknown, or missing its value)"
    run argus-segment a b
    assert_failure 64
    run argus-segment /nonexistent
    assert_failure 66
}
