#!/usr/bin/env bats
# argus-link-dispatch: DISP-QUEUE, DISP-RUNLOOP, DISP-TIMER.

load test_helper

LINK_STAGE=link-dispatch
load link_helper

# One link of each kind: dispatch 1->4, runloop 2->5, timer 3->6.
all_kinds() {
    printf '%s\n' '{"type":"dispatch_enqueue","ts":1,"tid":1,"pid":1,"item":"0x10"}' \
        '{"type":"runloop_submit","ts":2,"tid":1,"pid":1,"item":"0x20"}' \
        '{"type":"timer_arm","ts":3,"tid":1,"pid":1,"timer":"0x30"}' \
        '{"type":"dispatch_invoke","ts":4,"tid":2,"pid":1,"phase":"begin","item":"0x10"}' \
        '{"type":"runloop_invoke","ts":5,"tid":1,"pid":1,"phase":"begin","kind":"block","item":"0x20"}' \
        '{"type":"timer_fire","ts":6,"tid":3,"pid":0,"phase":"begin","timer":"0x30"}'
}
fns="$fns; $(declare -f all_kinds)"

@test "DISP-QUEUE: each worker's invoke begin links from its item's enqueue" {
    expect_fixture dispatch-workers
}

@test "DISP-QUEUE: an item address in another process, or reused, is another item" {
    run sh -c "$fns; edges dispatch-workers"
    assert_success
    assert_output '{"type":"edge","kind":"dispatch","from":1,"to":4}
{"type":"edge","kind":"dispatch","from":2,"to":5}
{"type":"edge","kind":"dispatch","from":8,"to":9}
{"type":"edge","kind":"dispatch","from":3,"to":11}'
}

@test "DISP-QUEUE: an invoke with no enqueue passes through, counted, not linked" {
    expect_fixture dispatch-invoke-alone
    run sh -c "$fns; edges dispatch-invoke-alone; link dispatch-invoke-alone -v 2>&1 >/dev/null | grep -v ': 0$'"
    assert_success
    assert_output '{"type":"edge","kind":"dispatch","from":2,"to":3}
argus-link-dispatch: dispatch edges: 1
argus-link-dispatch: dispatch invokes without enqueue: 2'
}

@test "DISP-RUNLOOP: a block submitted from another thread links to the main's run" {
    expect_fixture runloop-block
    run sh -c "$fns; edges runloop-block"
    assert_output '{"type":"edge","kind":"runloop","from":4,"to":9}
{"type":"edge","kind":"runloop","from":5,"to":13}'
}

@test "DISP-RUNLOOP: a source callout with no submission is counted, not linked" {
    run sh -c "$fns; link runloop-block -v 2>&1 >/dev/null | grep runloop"
    assert_success
    assert_output 'argus-link-dispatch: runloop edges: 2
argus-link-dispatch: runloop invokes without submit: 1'
}

@test "DISP-TIMER: a timer's fires link from its arm; none after its cancel" {
    expect_fixture timer-kernel-fire
    run sh -c "$fns; edges timer-kernel-fire"
    assert_output '{"type":"edge","kind":"timer","from":1,"to":2}
{"type":"edge","kind":"timer","from":1,"to":4}'
}

@test "DISP-TIMER: -v counts the edges and the fire after the cancel" {
    run sh -c "$fns; link timer-kernel-fire -v 2>&1 >/dev/null"
    assert_success
    assert_output 'argus-link-dispatch: dispatch edges: 0
argus-link-dispatch: runloop edges: 0
argus-link-dispatch: timer edges: 2
argus-link-dispatch: dispatch invokes without enqueue: 0
argus-link-dispatch: runloop invokes without submit: 0
argus-link-dispatch: timer fires without arm: 1
argus-link-dispatch: timer cancels without arm: 0
argus-link-dispatch: events without item or timer: 0
argus-link-dispatch: pending enqueues dropped: 0
argus-link-dispatch: pending submits dropped: 0
argus-link-dispatch: armed timers dropped: 0
argus-link-dispatch: enqueues left pending: 0
argus-link-dispatch: submits left pending: 0
argus-link-dispatch: timers left armed: 0'
}

@test "DISP-TIMER: a timer armed again links its next fires to the new arm only" {
    expect_fixture timer-rearm
    run sh -c "$fns; edges timer-rearm"
    assert_output '{"type":"edge","kind":"timer","from":1,"to":2}
{"type":"edge","kind":"timer","from":3,"to":5}'
}

@test "DISP-TIMER: cancels never armed and events without item are counted" {
    printf '%s\n' '{"type":"timer_cancel","ts":1,"tid":1,"pid":1,"timer":"0x30"}' \
        '{"type":"timer_fire","ts":2,"tid":1,"pid":1,"phase":"begin"}' \
        '{"type":"dispatch_enqueue","ts":3,"tid":1,"pid":1}' \
        '{"type":"dispatch_invoke","ts":4,"tid":1,"pid":1,"phase":"begin"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-dispatch -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | jq -c 'select(.id) | [.id, .type]' | tr -d '\n'; grep -v ': 0$' $BATS_TEST_TMPDIR/err"
    assert_success
    assert_output '[1,"timer_cancel"][2,"timer_fire"][3,"dispatch_enqueue"][4,"dispatch_invoke"]argus-link-dispatch: timer cancels without arm: 1
argus-link-dispatch: events without item or timer: 3'
}

@test "DISP-QUEUE DISP-RUNLOOP DISP-TIMER: one edge of each, after invoke or fire" {
    run sh -c "$fns; all_kinds | argus-decode | argus-link-dispatch | argus-to-json | jq -c '[.type, .id // .from]' | tr -d '\n'"
    assert_success
    assert_output '["stream",null]["dispatch_enqueue",1]["runloop_submit",2]["timer_arm",3]["dispatch_invoke",4]["edge",1]["runloop_invoke",5]["edge",2]["timer_fire",6]["edge",3]'
}

@test "DISP-QUEUE: --no-queue turns off dispatch edges only" {
    run sh -c "$fns; all_kinds | edges_of --no-queue"
    assert_success
    assert_output '{"type":"edge","kind":"runloop","from":2,"to":5}
{"type":"edge","kind":"timer","from":3,"to":6}'
}

@test "DISP-RUNLOOP: --no-runloop turns off runloop edges only" {
    run sh -c "$fns; all_kinds | edges_of --no-runloop"
    assert_success
    assert_output '{"type":"edge","kind":"dispatch","from":1,"to":4}
{"type":"edge","kind":"timer","from":3,"to":6}'
}

@test "DISP-TIMER: --no-timer turns off timer edges only" {
    run sh -c "$fns; all_kinds | edges_of --no-timer"
    assert_success
    assert_output '{"type":"edge","kind":"dispatch","from":1,"to":4}
{"type":"edge","kind":"runloop","from":2,"to":5}'
}

@test "DISP-QUEUE: --max-pending drops the oldest pending enqueue and counts it" {
    run sh -c "$fns; edges dispatch-workers --max-pending 1; link dispatch-workers --max-pending 1 -v 2>&1 >/dev/null | grep -v ': 0$'"
    assert_success
    assert_output '{"type":"edge","kind":"dispatch","from":8,"to":9}
argus-link-dispatch: dispatch edges: 1
argus-link-dispatch: dispatch invokes without enqueue: 3
argus-link-dispatch: pending enqueues dropped: 3'
}

@test "DISP-TIMER: --max-pending drops the timer idle longest" {
    run sh -c "$fns; printf '%s\n' \
        '{\"type\":\"timer_arm\",\"ts\":1,\"tid\":1,\"pid\":1,\"timer\":\"0xa\"}' \
        '{\"type\":\"timer_arm\",\"ts\":2,\"tid\":1,\"pid\":1,\"timer\":\"0xb\"}' \
        '{\"type\":\"timer_fire\",\"ts\":3,\"tid\":1,\"pid\":1,\"phase\":\"begin\",\"timer\":\"0xa\"}' \
        '{\"type\":\"timer_arm\",\"ts\":4,\"tid\":1,\"pid\":1,\"timer\":\"0xc\"}' \
        '{\"type\":\"timer_fire\",\"ts\":5,\"tid\":1,\"pid\":1,\"phase\":\"begin\",\"timer\":\"0xa\"}' \
        '{\"type\":\"timer_fire\",\"ts\":6,\"tid\":1,\"pid\":1,\"phase\":\"begin\",\"timer\":\"0xb\"}' \
        > $BATS_TEST_TMPDIR/t.jsonl; edges_of --max-pending 2 < $BATS_TEST_TMPDIR/t.jsonl
        argus-decode $BATS_TEST_TMPDIR/t.jsonl | argus-link-dispatch --max-pending 2 -v 2>&1 >/dev/null | grep timer"
    assert_success
    assert_output '{"type":"edge","kind":"timer","from":1,"to":3}
{"type":"edge","kind":"timer","from":1,"to":5}
argus-link-dispatch: timer edges: 2
argus-link-dispatch: timer fires without arm: 1
argus-link-dispatch: timer cancels without arm: 0
argus-link-dispatch: events without item or timer: 0
argus-link-dispatch: armed timers dropped: 1
argus-link-dispatch: timers left armed: 2'
}

@test "DISP-QUEUE: every record passes through; only edges and stages are added" {
    run sh -c "$fns; link dispatch-workers | argus-to-json | grep -v '\"type\":\"edge\"' | tail -n +2 > $BATS_TEST_TMPDIR/a; argus-decode fixtures/graph/dispatch-workers.jsonl | argus-to-json | tail -n +2 > $BATS_TEST_TMPDIR/b; cmp $BATS_TEST_TMPDIR/a $BATS_TEST_TMPDIR/b && link dispatch-workers | argus-to-json | head -1"
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"jsonl","stages":["decode fixtures/graph/dispatch-workers.jsonl","link-dispatch"]}'
}

@test "a malformed stream is an error (exit 65) naming the record" {
    run sh -c "printf 'not cbor' | argus-link-dispatch"
    assert_failure 65
    assert_output --partial "argus-link-dispatch: <stdin>: record 1 (byte 0): "
}

@test "--help lists the rules and flags; --max-pending must be a positive number" {
    run argus-link-dispatch --help
    assert_success
    assert_line --index 0 "Usage: argus-link-dispatch [--no-queue] [--no-runloop] [--no-timer] [--kernel-timers]"
    assert_line --index 1 "                           [--max-pending N] [-v] [FILE|-]"
    assert_line --index 2 "Link dispatch enqueues, run loop submissions and armed timers to their callouts."
    for word in DISP-QUEUE DISP-RUNLOOP DISP-TIMER DISP-TIMER-KERNEL --no-queue --no-runloop --no-timer \
                --kernel-timers --max-pending --verbose; do
        assert_output --partial "$word"
    done
    run argus-link-dispatch --max-pending 0 /dev/null
    assert_failure 64
    run argus-link-dispatch --no-such-flag
    assert_failure 64
}

@test "DISP-TIMER-KERNEL: the kernel's own timers get no edge; --kernel-timers" {
    {
        echo '{"type":"thread","tid":0,"pid":0,"proc":"swapper","kernel":true}'
        echo '{"type":"thread","tid":5,"pid":5,"proc":"app","main":true}'
        echo '{"type":"timer_arm","ts":10,"tid":5,"timer":"0xa1","func":"hrtimer_wakeup"}'
        echo '{"type":"timer_arm","ts":20,"tid":0,"timer":"0xb2","func":"tick_nohz_handler"}'
        echo '{"type":"interrupt","ts":30,"tid":5,"phase":"begin","name":"hardirq context"}'
        echo '{"type":"timer_arm","ts":31,"tid":5,"timer":"0xc3","func":"tick_nohz_handler"}'
        echo '{"type":"interrupt","ts":32,"tid":5,"phase":"end","name":"hardirq context"}'
        echo '{"type":"timer_fire","ts":40,"tid":0,"phase":"begin","timer":"0xa1"}'
        echo '{"type":"timer_fire","ts":41,"tid":0,"phase":"begin","timer":"0xb2"}'
        echo '{"type":"timer_fire","ts":42,"tid":0,"phase":"begin","timer":"0xc3"}'
    } > "$BATS_TEST_TMPDIR/ticks.jsonl"
    run sh -c "argus-decode $BATS_TEST_TMPDIR/ticks.jsonl | argus-cull-interrupts | argus-link-dispatch -v 2>$BATS_TEST_TMPDIR/err | argus-to-json | jq -c 'select(.type == \"edge\")'"
    assert_output '{"type":"edge","kind":"timer","from":1,"to":6}'
    run grep -c "fires of the kernel's own timers (DISP-TIMER-KERNEL): 2" "$BATS_TEST_TMPDIR/err"
    assert_output 1
    run sh -c "argus-decode $BATS_TEST_TMPDIR/ticks.jsonl | argus-cull-interrupts | argus-link-dispatch --kernel-timers | argus-to-json | jq -c 'select(.type == \"edge\") | .to' | tr '\n' ' '"
    assert_output '6 7 8 '
}
