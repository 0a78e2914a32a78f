#!/usr/bin/env bats
# argus-decode --format ftrace: Linux ftrace text. The scenarios are hand-written in fixtures/ftrace/ (described in its
# README.md), their expected outputs checked line by line against the
# mapping (docs/inputs/linux.md); the real traces come from
# ../shared/traces (those tests skip when it is absent).

bats_require_minimum_version 1.5.0
load test_helper

ARGUS_TRACES="${ARGUS_TRACES:-$ARGUS_ROOT/../shared/traces}"

need_traces() {
    [ -f "$ARGUS_TRACES/ftrace-x86-syscalls.txt" ] ||
        skip "no real traces at $ARGUS_TRACES (set ARGUS_TRACES)"
}

# fixture FILE: decodes fixtures/ftrace/FILE and checks the output against
# its NAME.expected.jsonl (warnings on stderr left out)
fixture() {
    run --separate-stderr bash -c "set -o pipefail; argus-decode --format ftrace fixtures/ftrace/$1 | argus-to-json"
    assert_success
    assert_output "$(cat "fixtures/ftrace/${1%.*}.expected.jsonl")"
}

# decoded_counts FILE: "TYPE COUNT" per event type of FILE decoded
decoded_counts() {
    set -o pipefail
    argus-decode "$1" | argus-to-json | jq -r 'select(.id) | .type' | sort | uniq -c |
        awk '{print $2, $1}'
}

setup() {
    T="$BATS_TEST_TMPDIR"
}

# ---- Line shapes -------------------------------------------------

@test "DEC-WOKEN: tracefs with irq flags: switches, wakeups and spaced comms map" {
    fixture tracefs-flags.txt
}

@test "tracefs trace without the irq-flags column decodes to the same events" {
    sed -E 's/^( *[^[]+\[[0-9]+\]) [dNhs.X]{4} /\1 /' fixtures/ftrace/tracefs-flags.txt > "$T/noflags.txt"
    run grep -c ' d\.\.\. ' "$T/noflags.txt"
    assert_output 0
    run sh -c "argus-decode --format ftrace $T/noflags.txt | argus-to-json | jq -c 'select(.type != \"stream\")'"
    assert_success
    assert_output "$(grep -v '"type":"stream"' fixtures/ftrace/tracefs-flags.expected.jsonl)"
}

@test "the (tgid) column gives the pid; 9-decimal timestamps step by 1 ns" {
    fixture tracefs-tgid.txt
}

@test "trace-cmd report: its preamble skipped, numeric prev_state read as letters" {
    fixture trace-cmd-report.txt
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/trace-cmd-report.txt 2>&1 >/dev/null'
    assert_output "argus-decode: 10 lines read, 6 events written
  2 comment and header lines
  2 woken at the switch that ran a waiting thread
  1 wakeups with success=0 (the target was running)"
}

@test "atrace text: its preamble skipped, tracing_mark_write kept as ftrace events" {
    fixture atrace.txt
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/atrace.txt 2>&1 >/dev/null'
    assert_output "argus-decode: 18 lines read, 6 events written
  2 lines not understood, kept as ftrace events
  13 comment and header lines
  1 woken at the switch that ran a waiting thread"
}

@test "systrace HTML: the text trace-data block read, JSON and HTML skipped" {
    fixture systrace.html
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/systrace.html 2>&1 >/dev/null'
    assert_output "argus-decode: 24 lines read, 4 events written
  4 comment and header lines
  18 HTML lines around the trace
  1 woken at the switch that ran a waiting thread
  1 threads asleep when the trace began (a first wakeup before any line of theirs): a wait at its start"
}

@test "sys_foo(args) / sys_foo -> ret: args hex, ret signed; a pipe write is an ipc" {
    fixture x86-syscalls.txt
}

@test "a comm with spaces, dashes and digits: the tid is the number after the last dash" {
    {
        echo '   my app-v2-10-4001  [000] .... 10.000001: sys_enter_getpid:'
        echo ' Web Content-2 x-4002  ( 4001) [000] .... 10.000002: sys_enter_getpid:'
        echo '  -1-4003  [000] .... 10.000003: sys_enter_getpid:'
    } > "$T/comms.txt"
    run sh -c "argus-decode --format ftrace $T/comms.txt | argus-to-json | jq -c 'select(.type == \"thread\") | [.tid, .pid, .name]'"
    assert_output '[4001,4001,"my app-v2-10"]
[4002,4001,"Web Content-2 x"]
[4003,4003,"-1"]'
}

@test "6- and 9-decimal timestamps mix: ts is ns since the first line" {
    {
        echo '  a-1  [000] .... 812.000000500: sys_enter_getpid:'
        echo '  a-1  [000] .... 812.000001: sys_exit_getpid: 0x1'
        echo '  a-1  [000] .... 813.000001001: sys_enter_getpid:'
    } > "$T/ts.txt"
    run sh -c "argus-decode --format ftrace $T/ts.txt | argus-to-json | jq -c 'select(.id) | .ts'"
    assert_output '0
500
1000000501'
}

# ---- The mapping ---------------------------------------------------

@test "DEC-WOKEN: syscall waits name their futex or fd; sendto to recvfrom is an ipc" {
    fixture syscall-waits.txt
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/syscall-waits.txt 2>&1 >/dev/null'
    assert_output "argus-decode: 20 lines read, 19 events written
  4 comment and header lines
  1 woken at the switch that ran a waiting thread
  1 woken synthesized (DEC-WOKEN: the thread's own event came first)
  1 sched_wakeup lines after their sched_waking (one counts)
  2 ipc events paired from a send waking a receive"
}

@test "DEC-FD: a wait on an accepted fd carries its accept's origin and listening fd" {
    fixture fd-accept.txt
    run sh -c "argus-decode --format ftrace fixtures/ftrace/fd-accept.txt | argus-to-json | jq -c 'select(.type == \"wait\" and .reason == \"read\")'"
    assert_output '{"type":"wait","id":6,"ts":50000,"tid":5000,"pid":5000,"cpu":0,"reason":"read","resource":"0x5","fd_origin":"accept","fd_origin_ts":20000,"fd_origin_tid":5000,"fd_listen":3}'
}

@test "DEC-FD: no fd_origin for an fd of unknown origin, nor after a close" {
    fixture fd-unknown.txt
    fixture fd-closed.txt
    run sh -c "cat fixtures/ftrace/fd-unknown.expected.jsonl fixtures/ftrace/fd-closed.expected.jsonl | grep -c fd_origin"
    assert_output 0
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/fd-closed.txt 2>&1 >/dev/null | grep DEC-FD'
    assert_output "  2 fds named by an accept, connect or flock (DEC-FD)
  1 fd names forgotten on close, dup2, dup3, close_range, exec or exit (DEC-FD)"
}

@test "DEC-FD: connect in progress and flock name an fd; failed connect, dup2, exec not" {
    fixture fd-origins.txt
    run sh -c "argus-decode --format ftrace fixtures/ftrace/fd-origins.txt | argus-to-json | jq -r 'select(.type == \"wait\") | [.tid, .resource, .fd_origin // \"-\", .fd_origin_ts // \"-\", .fd_origin_tid // \"-\"] | @tsv'"
    assert_output "$(printf '%s\t%s\t%s\t%s\t%s\n' 7000 0x3 connect_started 0 7000 7001 0x3 connect_started 0 7000 \
        7000 0x4 - - - 7000 0x6 flock 190000 7000 7000 0x3 - - - 7000 0x6 - - -)"
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/fd-origins.txt 2>&1 >/dev/null | grep DEC-FD'
    assert_output "  2 fds named by an accept, connect or flock (DEC-FD)
  2 fd names forgotten on close, dup2, dup3, close_range, exec or exit (DEC-FD)"
}

@test "sched_waking and its sched_wakeup count once; -v says how many were dropped" {
    {
        echo '  waker-10  [000] d... 1.000001: sched_waking: comm=a pid=20 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000002: sched_wakeup: comm=a pid=20 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000003: sched_wakeup: comm=a pid=20 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000004: sched_waking: comm=b pid=21 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000005: sched_waking: comm=a pid=20 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000006: sched_wakeup: comm=b pid=21 prio=120 target_cpu=001'
        echo '  waker-10  [000] d... 1.000007: sched_wakeup: comm=a pid=20 prio=120 target_cpu=001'
    } > "$T/pairs.txt"
    run sh -c "argus-decode --format ftrace $T/pairs.txt | argus-to-json | jq -c 'select(.type == \"wakeup\") | [.ts, .target]' | tr -d '\n'"
    assert_output '[0,20][2000,20][3000,21][4000,20]'
    run sh -c "argus-decode -v --format ftrace $T/pairs.txt 2>&1 >/dev/null"
    assert_output "argus-decode: 7 lines read, 6 events written
  3 sched_wakeup lines after their sched_waking (one counts)
  2 threads asleep when the trace began (a first wakeup before any line of theirs): a wait at its start"
}

@test "a wake outside a receiving syscall, or a futex wake, makes no ipc" {
    {
        echo '  w-10  (   10) [000] .... 1.000001: sys_enter_futex: uaddr: 0x00001000, op: 0x00000080, val: 0x00000000, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000'
        echo '  w-10  (   10) [000] d..2 1.000002: sched_switch: prev_comm=w prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=s next_pid=11 next_prio=120'
        echo '  s-11  (   11) [000] .... 1.000003: sys_enter_write: fd: 0x00000004, buf: 0x00002000, count: 0x00000001'
        echo '  s-11  (   11) [000] d..3 1.000004: sched_waking: comm=w pid=10 prio=120 target_cpu=000'
        echo '  s-11  (   11) [000] .... 1.000005: sys_exit_write: 0x1'
        echo '  s-11  (   11) [000] .... 1.000006: sys_enter_futex: uaddr: 0x00001000, op: 0x00000081, val: 0x00000001, utime: 0x00000000, uaddr2: 0x00000000, val3: 0x00000000'
        echo '  s-11  (   11) [000] d..3 1.000007: sched_waking: comm=w pid=10 prio=120 target_cpu=000'
    } > "$T/noipc.txt"
    run sh -c "argus-decode --format ftrace $T/noipc.txt | argus-to-json | jq -r 'select(.id) | .type' | sort | uniq -c | tr -s ' ' | tr '\n' ';'"
    assert_output ' 4 syscall; 1 wait; 2 wakeup;'
}

@test "irq_handler and softirq entry/exit are interrupt begin/end with their names" {
    fixture interrupts.txt
}

@test "workqueue queue_work and execute_start/end are dispatch enqueue and invoke" {
    fixture workqueue.txt
}

@test "a named workqueue's queue is XXH3-64 of its name, not a hex prefix of it" {
    command -v xxhsum > /dev/null || skip "no xxhsum (Debian package xxhash)"
    for name in events_power_efficient events; do
        want=$(printf %s "$name" | xxhsum -H3 | awk '{print "0x" $NF}')
        run sh -c "echo '  k-1  [000] .... 1.0: workqueue_queue_work: work struct=0000000000001000 function=f workqueue=$name req_cpu=8 cpu=0' | argus-decode --format ftrace | argus-to-json | jq -r 'select(.id) | .queue'"
        assert_output "$want"
    done
}

@test "hrtimer and timer start/expire/cancel are timer arm, fire and cancel" {
    fixture timers.txt
}

@test "tasks: newtask, fork, rename, exec and exit give threads and their names" {
    fixture tasks.txt
}

@test "DEC-LAUNCHED, DEC-PARENT: an old recording's thread list gives the command" {
    fixture launched.txt
}

@test "DEC-LAUNCHED: the command line gives launched; no recorder line, no guess" {
    { sed -n 1,3p fixtures/ftrace/launched.txt; echo '# argus-command: pid=6050'
      sed -n '4,$p' fixtures/ftrace/launched.txt; } > "$T/given.txt"
    run sh -c "argus-decode --format ftrace '$T/given.txt' | argus-to-json | head -1 | jq -c .launched"
    assert_output 6050
    grep -v '^# recorded by' fixtures/ftrace/launched.txt > "$T/no-recorder.txt"
    run sh -c "argus-decode --format ftrace '$T/no-recorder.txt' | argus-to-json | head -1 | jq -c .launched"
    assert_output null
}

@test "DEC-FOCUS: argus-record's focus lines give the header's focus, each once" {
    { sed -n 1,3p fixtures/ftrace/launched.txt; echo '# argus-command: pid=6050'
      printf '# argus-focus: pid=%s\n' 6110 6050 6110 x12 6111
      sed -n '4,$p' fixtures/ftrace/launched.txt; } > "$T/focus.txt"
    run sh -c "argus-decode --format ftrace '$T/focus.txt' | argus-to-json | head -1 | jq -c '[keys_unsorted[5:8], .launched, .focus]'"
    assert_output '[["origin","launched","focus"],6050,[6110,6050,6111]]'
    run sh -c "argus-decode --format ftrace fixtures/ftrace/launched.txt | argus-to-json | head -1 | jq -c .focus"
    assert_output null
}

@test "raw_syscalls sys_enter/sys_exit are syscalls named NR_N, with no resource" {
    fixture raw-syscalls.txt
}

@test "DEC-PARENT: argus-record's thread lines and flag lines map as the contract says" {
    fixture argus-record.txt
}

@test "DEC-CMDLINE: a process's command line on its main thread's record only" {
    run sh -c "argus-decode --format ftrace fixtures/ftrace/argus-record.txt | argus-to-json | jq -c 'select(.type == \"thread\") | [.tid, .cmdline]'"
    assert_output '[4243,null]
[4242,["/usr/bin/python3","-u","./hang ui.py","","café","a\\b?"]]
[731,null]
[5000,["/usr/sbin/daemon?","--foreground"]]'
}

@test "the idle task is thread 0: a kernel thread named swapper, never a main thread" {
    {
        echo '# argus-thread: tid=0 tgid=0 kernel=0 comm=idle'
        echo '  <idle>-0  (    0) [003] d... 1.000001: cpu_idle: state=1 cpu_id=3'
        echo '  swapper/1-0  (-----) [001] d... 1.000002: cpu_idle: state=1 cpu_id=1'
    } > "$T/idle.txt"
    run sh -c "argus-decode --format ftrace $T/idle.txt | argus-to-json | jq -c 'select(.type == \"thread\")'"
    assert_output '{"type":"thread","tid":0,"pid":0,"proc":"swapper","name":"swapper","kernel":true}'
}

@test "hardirq-flagged lines outside irq events open a synthetic interrupt window" {
    {
        echo '  a-1  [000] d.h. 1.000001: irq_handler_entry: irq=5 name=x'
        echo '  a-1  [000] d... 1.000002: sys_enter_getpid:'
        echo '  a-1  [000] d.h. 1.000003: sched_waking: comm=b pid=2 prio=120 target_cpu=000'
        echo '  a-1  [000] d.h. 1.000004: hrtimer_cancel: hrtimer=ffff0001'
        echo '  a-1  [000] d... 1.000005: sys_exit_getpid: 0x1'
        echo '  a-1  [000] ..s. 1.000006: timer_cancel: timer=ffff0002'
    } > "$T/ctx.txt"
    run sh -c "argus-decode --format ftrace $T/ctx.txt | argus-to-json | jq -c 'select(.id) | [.ts, .type, .phase, .name // .target // .timer]' | tr -d '\n'"
    # b (2), first named by a wakeup, was asleep when the trace began
    assert_output '[0,"wait",null,null][0,"interrupt","begin","x"][1000,"syscall","begin","getpid"][2000,"interrupt","begin","hardirq context"][2000,"wakeup",null,2][3000,"timer_cancel",null,"0xffff0001"][4000,"interrupt","end","hardirq context"][4000,"syscall","end","getpid"][5000,"interrupt","begin","softirq context"][5000,"timer_cancel",null,"0xffff0002"][5000,"interrupt","end","softirq context"]'
}

@test "DEC-LOSS: unknown events and headless lines stay ftrace events; LOST warns" {
    fixture unknown-lines.txt
    run sh -c 'argus-decode -v --format ftrace fixtures/ftrace/unknown-lines.txt 2>&1 >/dev/null'
    assert_output "argus-decode: fixtures/ftrace/unknown-lines.txt:7: warning: CPU:2 [LOST 113 EVENTS]
argus-decode: 13 lines read, 8 events written
  8 lines not understood, kept as ftrace events
  4 comment and header lines
  1 lost-events lines"
}

# ---- What the trace lost (DEC-LOSS) --------------------------------

@test "DEC-LOSS: more entries written than kept gives overwritten and cpu_start records" {
    printf '%s\n' '# tracer: nop' '#' '# entries-in-buffer/entries-written: 3/10   #P:2' '#' \
        '##### CPU 1 buffer started ####' \
        '          <idle>-0     [000] d... 500.000100: cpu_idle: state=1 cpu_id=0' \
        '          <idle>-0     [000] d... 500.000200: cpu_idle: state=1 cpu_id=0' \
        '          <idle>-0     [001] d... 500.000300: cpu_idle: state=1 cpu_id=1' > "$T/ow.txt"
    run sh -c "argus-decode '$T/ow.txt' | argus-to-json | jq -c 'select(.type == \"loss\")'"
    assert_output '{"type":"loss","kind":"overwritten","events":7,"written":10}
{"type":"loss","kind":"cpu_start","cpu":0,"since":0}
{"type":"loss","kind":"cpu_start","cpu":1,"since":200000}'
    run sh -c "argus-decode -v '$T/ow.txt' 2>&1 >/dev/null | grep DEC-LOSS"
    assert_output "  7 events of 10 written overwritten by the ring (DEC-LOSS)"
}

@test "DEC-LOSS: a last line cut short is not read and gives a cut record" {
    printf '%s\n%s' '  bash-100  [000] .... 5.000001: sys_getpid()' '  bash-100  [000] .... 5.000002: sys_read(fd: 3, buf: 0x1' > "$T/cut1.txt"
    run sh -c "argus-decode '$T/cut1.txt' | argus-to-json | jq -c 'select(.type == \"loss\" or .type == \"syscall\") | [.type, .kind, .line, .name]'"
    assert_output '["syscall",null,null,"getpid"]
["loss","cut",2,null]'
    printf '%s\n%s' '  bash-100  [000] .... 5.000001: sys_getpid()' '  bash-100  [000] .... 5.0000' > "$T/cut2.txt"
    run sh -c "argus-decode '$T/cut2.txt' | argus-to-json | jq -c 'select(.type == \"loss\")'"
    assert_output '{"type":"loss","kind":"cut","line":2}'
    printf '%s\n%s' '  bash-100  [000] .... 5.000001: sys_getpid()' '  bash-100  [000] .... 5.000002: sys_getpid()' > "$T/whole.txt"
    run sh -c "argus-decode '$T/whole.txt' | argus-to-json | jq -c 'select(.type == \"loss\" or .type == \"syscall\") | .type'"
    assert_output '"syscall"
"syscall"'
}

@test "DEC-LOSS: a promised end mark never written gives a no_end record" {
    printf '%s\n' '# tracer: nop' '# argus-end: expected' '  bash-100  [000] .... 5.000001: sys_getpid()' > "$T/noend.txt"
    run sh -c "argus-decode '$T/noend.txt' | argus-to-json | jq -c 'select(.type == \"loss\")'"
    assert_output '{"type":"loss","kind":"no_end"}'
    printf '%s\n' '# argus-end: events=1 overwritten=0' >> "$T/noend.txt"
    run sh -c "argus-decode '$T/noend.txt' | argus-to-json | jq -c 'select(.type == \"loss\")'"
    assert_output ''
}

@test "DEC-LOSS: LOST lines give a dropped record per CPU, counted by validate" {
    printf '%s\n' '  bash-100  [000] .... 5.000001: sys_getpid()' 'CPU:0 [LOST 40 EVENTS]' \
        '  bash-100  [000] .... 5.000003: sys_getpid()' 'CPU:0 [LOST 2 EVENTS]' \
        '  bash-100  [000] .... 5.000005: sys_getpid()' > "$T/lost.txt"
    run sh -c "argus-decode '$T/lost.txt' 2>/dev/null | argus-to-json | jq -c 'select(.type == \"loss\")'"
    assert_output '{"type":"loss","kind":"dropped","cpu":0,"events":42,"from":0,"to":2000}'
    run sh -c "argus-decode '$T/lost.txt' 2>/dev/null | argus-validate"
    assert_line --index 1 "<stdin>: incomplete: 1 loss records (DEC-LOSS), 42 events lost"
}

# ---- Bad input -----------------------------------------------------

@test "truncated lines are kept as ftrace events and counted; the stream valid" {
    {
        echo '  bash-100  [000] .... 5.000001: sys_enter_getpid:'
        echo '  bash-100  [000] ....'
        echo '  bash-100  [000] .... 5.000002'
        echo '  bash-100  [000] .... 5.000003: '
        echo '  bash-100  [000] .... 5.000004: sched_wak'
        echo '  bash-100  [000] .... 5.000005: sched_waking: comm=a'
    } > "$T/cut.txt"
    run sh -c "argus-decode --format ftrace $T/cut.txt | argus-to-json | jq -c 'select(.id) | [.ts, .tid, .type, .event]' | tr -d '\n'"
    assert_output '[0,100,"syscall",null][0,0,"ftrace",null][0,0,"ftrace",null][2000,100,"ftrace",null][3000,100,"ftrace",null][4000,100,"ftrace","sched_waking"]'
    run sh -c "argus-decode -v --format ftrace $T/cut.txt 2>&1 >/dev/null | grep 'not understood'"
    assert_output '  5 lines not understood, kept as ftrace events'
    run sh -c "argus-decode --format ftrace $T/cut.txt | argus-validate"
    assert_output --partial 'valid: 9 records, 6 events, 2 threads'
}

@test "broken field lists of known events are kept as ftrace events" {
    {
        echo '  k-9  [000] d.h. 5.000001: irq_handler_entry: name=eth0'
        echo '  k-9  [000] d.h. 5.000002: irq_handler_exit: irq=x ret=handled'
        echo '  k-9  [000] .... 5.000003: workqueue_execute_start: function vmstat_update'
        echo '  k-9  [000] d... 5.000004: hrtimer_start: function=tick_sched_timer expires=1'
        echo '  k-9  [000] d... 5.000005: sys_enter: 202 (1, 2)'
        echo '  k-9  [000] d... 5.000006: softirq_entry: [action=TIMER]'
        echo '  k-9  [000] d... 5.000007: task_rename: pid=9 oldcomm=k'
    } > "$T/fields.txt"
    run sh -c "argus-decode --format ftrace $T/fields.txt | argus-to-json | jq -r 'select(.id) | .type + \" \" + .event' | tr '\n' ';'"
    assert_output 'ftrace irq_handler_entry;ftrace irq_handler_exit;ftrace workqueue_execute_start;ftrace hrtimer_start;ftrace sys_enter;ftrace softirq_entry;ftrace task_rename;'
}

@test "a sched_switch without a parsable next_pid is kept whole as an ftrace event" {
    {
        echo '  a-10  [000] d... 5.000001: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=b'
        echo '  b-11  [000] d... 5.000002: sched_switch: prev_comm=b prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=a next_pid=x'
    } > "$T/nonext.txt"
    run sh -c "argus-decode --format ftrace $T/nonext.txt | argus-to-json | jq -c 'select(.id) | [.type, .tid, .event]' | tr -d '\n'"
    assert_output '["ftrace",10,"sched_switch"]["ftrace",11,"sched_switch"]'
    run sh -c "argus-decode -v --format ftrace $T/nonext.txt 2>&1 >/dev/null"
    assert_output 'argus-decode: 2 lines read, 2 events written
  2 lines not understood, kept as ftrace events'
}

@test "invalid UTF-8 in comms and lines is replaced; the stream stays valid" {
    printf '  bad\xff\xfename-99  [002] .... 7.000001: sched_waking: comm=x\xc3 pid=98 prio=120 target_cpu=002\n  bad\xff\xfename-99  [002] .... 7.000002: my_event: \xe2\x82 ok\n' > "$T/utf8.txt"
    run sh -c "argus-decode --format ftrace $T/utf8.txt | argus-validate"
    assert_success
    # (x, first named by a wakeup, asleep when the trace began: its wait)
    assert_output --partial 'valid: 6 records, 3 events, 2 threads'
    # names are cut to valid UTF-8 with '?' for a bad byte, texts with U+FFFD
    run sh -c "argus-decode --format ftrace $T/utf8.txt | argus-to-json | jq -ac 'select(.tid == 99) | .name // .text // empty'"
    assert_output '"bad??name"
"bad\ufffd\ufffdname-99  [002] .... 7.000002: my_event: \ufffd\ufffd ok"'
}

@test "DEC-ORDER: out-of-order lines of several CPUs within the window are merged" {
    {
        echo '  a-1  [000] .... 300.000010: sys_enter_getpid:'
        echo '  b-2  [001] .... 300.000030: sys_enter_getpid:'
        echo '  c-3  [002] .... 300.000020: sys_enter_getpid:'
        echo '  d-4  [003] .... 300.000005: sys_enter_getpid:'
        echo '  e-5  [003] .... 300.000040: sys_enter_getpid:'
    } > "$T/order.txt"
    run sh -c "argus-decode --format ftrace $T/order.txt | argus-to-json | jq -c 'select(.id) | [.id, .ts, .tid]' | tr -d '\n'"
    assert_output '[1,0,4][2,5000,1][3,15000,3][4,25000,2][5,35000,5]'
    run sh -c "argus-decode -v --format ftrace $T/order.txt 2>&1 >/dev/null"
    assert_output 'argus-decode: 5 lines read, 5 events written
  2 lines moved into ts order by the reorder window'
}

@test "DEC-ORDER: a line earlier than the window allows exits 65 naming FILE:LINE" {
    {
        echo '  a-1  [000] .... 300.000010: sys_enter_getpid:'
        echo '  b-2  [001] .... 300.000030: sys_enter_getpid:'
        echo '  c-3  [002] .... 300.000020: sys_enter_getpid:'
        echo '  d-4  [003] .... 300.000005: sys_enter_getpid:'
        echo '  e-5  [003] .... 300.000040: sys_enter_getpid:'
    } > "$T/late.txt"
    run sh -c "argus-decode --format ftrace --window 2 $T/late.txt > $T/late.cbor"
    assert_failure 65
    assert_output "argus-decode: $T/late.txt:4: ts 300.000005000 is before 300.000010000 already written (beyond the reorder window of 2 lines; try a larger --window)"
    run argus-validate "$T/late.cbor"
    assert_success
    assert_output "$T/late.cbor: valid: 7 records, 3 events, 3 threads, 0 edges, 0 segments, ts 0..20000 (0.000020000 s)"
    run sh -c "argus-to-json $T/late.cbor | jq -c 'select(.id) | [.ts, .tid]' | tr -d '\n'"
    assert_output '[0,1][10000,3][20000,2]'
}

# hostile_line LINE NAME: an ftrace text of two good lines then LINE, in
# $T/NAME.txt
hostile_line() {
    {
        echo '  a-1  [000] .... 300.000010: sys_enter_getpid:'
        echo '  b-2  [001] .... 300.000020: sys_enter_getpid:'
        echo "$1"
    } > "$T/$2.txt"
}

# refused NAME MESSAGE: argus-decode of $T/NAME.txt exits 65 with MESSAGE
# (FILE:LINE: what), and the two lines before it are a valid stream
refused() {
    run sh -c "argus-decode --format ftrace $T/$1.txt > $T/$1.cbor"
    assert_failure 65
    assert_output "argus-decode: $T/$1.txt:3: $2"
    run sh -c "argus-to-json $T/$1.cbor | jq -c 'select(.id) | [.ts, .tid]' | tr -d '\n'"
    assert_output '[0,1][10000,2]'
    run argus-validate "$T/$1.cbor"
    assert_success
}

@test "DEC-RANGE: a negative timestamp exits 65 naming FILE:LINE" {
    hostile_line '  c-3  [002] .... -5.000000: sys_enter_getpid:' negative
    refused negative 'a negative timestamp'
    hostile_line '  c-3  [002] -5.000000: sys_enter_getpid:' negative-noflags
    refused negative-noflags 'a negative timestamp'
}

@test "DEC-ORDER: a timestamp before the trace's start exits 65 naming FILE:LINE" {
    hostile_line '  c-3  [002] .... 299.999999: sys_enter_getpid:' before-start
    run sh -c "argus-decode --format ftrace --window 1 $T/before-start.txt > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $T/before-start.txt:3: ts 299.999999000 is before 300.000010000 already written (beyond the reorder window of 1 lines; try a larger --window)"
}

@test "DEC-RANGE: a tid or tgid above PID_MAX_LIMIT exits 65 naming FILE:LINE" {
    hostile_line '  c-18446744073709551615  [002] .... 300.000030: sys_enter_getpid:' tid-max
    refused tid-max 'tid 18446744073709551615 is out of the kernel'"'"'s range (at most 4194304)'
    hostile_line '  c-99999999999999999999999  [002] .... 300.000030: sys_enter_getpid:' tid-wide
    refused tid-wide 'tid 99999999999999999999999 is out of the kernel'"'"'s range (at most 4194304)'
    hostile_line '  c-4194305  [002] .... 300.000030: sys_enter_getpid:' tid-above
    refused tid-above 'tid 4194305 is out of the kernel'"'"'s range (at most 4194304)'
    hostile_line '  c-3  ( 9223372036854775808) [002] .... 300.000030: sys_enter_getpid:' tgid
    refused tgid 'tgid 9223372036854775808 is out of the kernel'"'"'s range (at most 4194304)'
    hostile_line '  c-4194304  [002] .... 300.000030: sys_enter_getpid:' tid-limit
    run sh -c "argus-decode --format ftrace $T/tid-limit.txt | argus-to-json | jq -c 'select(.id) | .tid' | tr -d '\n'"
    assert_output '124194304'
}

@test "DEC-RANGE: a scheduler event's pid out of range exits 65 naming the field" {
    hostile_line '  b-2  [001] d..2. 300.000030: sched_switch: prev_comm=b prev_pid=2 prev_prio=120 prev_state=S ==> next_comm=x next_pid=18446744073709551615 next_prio=120' next-pid
    refused next-pid 'next_pid=18446744073709551615 is out of the kernel'"'"'s range (0 to 4194304)'
    hostile_line '  b-2  [001] d..2. 300.000030: sched_waking: comm=x pid=-1 prio=120 target_cpu=000' waking
    refused waking 'pid=-1 is out of the kernel'"'"'s range (0 to 4194304)'
    hostile_line '  b-2  [001] .... 300.000030: sched_process_fork: comm=b pid=2 child_comm=b child_pid=5000000' fork
    refused fork 'child_pid=5000000 is out of the kernel'"'"'s range (0 to 4194304)'
    hostile_line '# argus-thread: tid=18446744073709551615 tgid=1 kernel=0 comm=x' thread-line
    refused thread-line 'tid=18446744073709551615 is out of the kernel'"'"'s range (0 to 4194304)'
}

@test "a 200 kB line is kept whole; one over 1 MiB exits 65 naming FILE:LINE" {
    {
        echo '  a-1  [000] .... 1.000001: sys_enter_getpid:'
        printf '  a-1  [000] .... 1.000002: print: tracing_mark_write: %s\n' "$(head -c 200000 /dev/zero | tr '\0' x)"
    } > "$T/long.txt"
    run sh -c "argus-decode --format ftrace $T/long.txt | argus-to-json | jq -r 'select(.type == \"ftrace\") | .text | length'"
    assert_output 200053 # the line but its two leading blanks
    printf '  a-1  [000] .... 1.000003: print: tracing_mark_write: %s\n' "$(head -c 1100000 /dev/zero | tr '\0' y)" >> "$T/long.txt"
    run sh -c "argus-decode --format ftrace $T/long.txt > $T/long.cbor"
    assert_failure 65
    assert_output "argus-decode: $T/long.txt:3: a line of 1100055 bytes (at most 1048576)"
    run sh -c "argus-to-json $T/long.cbor | jq -c 'select(.id) | .type' | tr -d '\n'"
    assert_output '"syscall""ftrace"'
}

@test "long lines of brackets or spaces decode in linear time" {
    # a line with no head: every "[1]" a candidate [CPU] with a ")" before it
    # (after one with a head: a text of none is refused as not ftrace)
    printf '  a-1  [000] .... 1.000000: mine: x\n' > "$T/brackets.txt"
    awk 'BEGIN { for (i = 0; i < 250000; i++) printf ")[1]"; print "" }' >> "$T/brackets.txt"
    awk 'BEGIN { printf "  a-1  [000] .... 1.000001: sched_switch: prev_comm=a"; for (i = 0; i < 1000000; i++) printf " "; print "b prev_pid=1 prev_state=S ==> next_comm=c next_pid=2" }' > "$T/spaces.txt"
    run timeout 5 sh -c "argus-decode --format ftrace $T/brackets.txt | argus-to-json | jq -r 'select(.id) | [.tid, .type, (.text | length)] | @tsv'"
    assert_success
    assert_output "$(printf '1\tftrace\t33\n0\tftrace\t1000000')"
    run timeout 5 sh -c "argus-decode --format ftrace $T/spaces.txt | argus-to-json | jq -r 'select(.id) | .type'"
    assert_success
    assert_output 'wait'
}

@test "an empty file, or one of comment lines only, is refused (65)" {
    : > "$T/empty.txt"
    run sh -c "argus-decode --format ftrace $T/empty.txt > $T/out"
    assert_failure 65
    assert_output "argus-decode: $T/empty.txt: empty input: no trace in it (0 bytes)"
    [ ! -s "$T/out" ]
    run argus-decode "$T/empty.txt"
    assert_failure 65
    assert_output "argus-decode: $T/empty.txt: empty input: no trace in it (0 bytes)"
    printf '# tracer: nop\n#\n' > "$T/header.txt"
    run argus-decode "$T/header.txt"
    assert_failure 65
    assert_output "argus-decode: $T/header.txt: no events: 2 comment and header lines, no trace line (an empty trace)"
}

@test "a binary file given as ftrace is refused (65), saying what it looks like" {
    run sh -c "argus-decode --format ftrace /bin/sh > $T/out"
    assert_failure 65
    assert_output "argus-decode: /bin/sh: an ELF executable or library, neither ftrace text nor another trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh"
    [ ! -s "$T/out" ]
    printf 'text\0more\n' > "$T/nul.txt"
    run argus-decode --format ftrace "$T/nul.txt"
    assert_failure 65
    assert_output "argus-decode: $T/nul.txt: binary data (a NUL byte at byte 4), neither ftrace text nor another trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
    run argus-decode /bin/sh
    assert_failure 65
    assert_output "argus-decode: /bin/sh: an ELF executable or library, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh"
}

@test "perf script text given as ftrace is refused (65), the perf.data named" {
    cat > "$T/perf.txt" <<'EOF'
            perf 12345 [001]  1076.578125: sched:sched_switch: prev_comm=perf prev_pid=12345 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
         swapper     0 [001]  1076.578200:       sched:sched_wakeup: comm=perf pid=12345 prio=120 target_cpu=001
EOF
    run sh -c "argus-decode --format ftrace $T/perf.txt 2>&1 >/dev/null"
    assert_failure 65
    assert_output "argus-decode: $T/perf.txt: not ftrace text: none of its 2 lines has the head 'TASK-PID [CPU] TIMESTAMP: EVENT:' (the first: 'perf 12345 [001]  1076.578125: sched:sched_switch: prev_comm'); it is perf script text, which argus does not read (its default fields drop the process ids and nanoseconds): give argus the perf.data it printed instead (argus diagnose perf.data; docs/inputs/perf.md)"
    seq 1 5000 | sed 's/^/log line /' > "$T/log.txt"
    run sh -c "argus-decode --format ftrace $T/log.txt 2>&1 >/dev/null"
    assert_failure 65
    assert_output "argus-decode: $T/log.txt: not ftrace text: none of its first 1000 lines has the head 'TASK-PID [CPU] TIMESTAMP: EVENT:' (the first: 'log line 1'); perf script output is not read"
}

@test "a text most of whose lines are not understood is refused (65)" {
    # perf script's ':-1 -1' lines (a thread perf did not know) parse as heads
    cat > "$T/mixed.txt" <<'EOF'
            perf 12345 [001]  1076.578125: sched:sched_switch: prev_comm=perf prev_pid=12345 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
             :-1    -1 [000]  1076.578150: sched:sched_switch: prev_comm=a prev_pid=7 prev_prio=120 prev_state=X ==> next_comm=b next_pid=8 next_prio=120
         swapper     0 [001]  1076.578200:       sched:sched_wakeup: comm=perf pid=12345 prio=120 target_cpu=001
EOF
    run sh -c "argus-decode --format ftrace $T/mixed.txt 2>&1 >/dev/null"
    assert_failure 65
    assert_output "argus-decode: $T/mixed.txt: not ftrace text: 2 of its 3 lines have no head 'TASK-PID [CPU] TIMESTAMP: EVENT:' and 1 have one (the first line: 'perf 12345 [001]  1076.578125: sched:sched_switch: prev_comm'); it is perf script text, which argus does not read (its default fields drop the process ids and nanoseconds): give argus the perf.data it printed instead (argus diagnose perf.data; docs/inputs/perf.md)"
    run argus diagnose --format ftrace "$T/mixed.txt"
    assert_failure 65
    refute_output --partial "Verdict"
    # without --format it is told as perf script text from its first line
    run argus diagnose "$T/mixed.txt"
    assert_failure 65
    assert_output "argus diagnose: $T/mixed.txt: perf script text, which argus does not read (its default fields drop the process ids and nanoseconds): give argus the perf.data it printed instead (argus diagnose perf.data; docs/inputs/perf.md)"
    # a line not understood among ftrace lines (not most) is kept as an ftrace event
    printf '  a-1  [000] .... 1.000000: mine: x\nsome note\n  a-1  [000] .... 1.000001: mine: y\n' > "$T/few.txt"
    run sh -c "argus-decode --format ftrace $T/few.txt | argus-to-json | jq -c 'select(.id) | .type' | uniq -c"
    assert_success
    assert_output '      3 "ftrace"'
    # stack trace lines are ftrace's own, not lines not understood
    printf '  a-1  [000] .... 1.000000: mine: x\n => f\n => g\n <stack trace>\n' > "$T/stack.txt"
    run sh -c "argus-decode --format ftrace $T/stack.txt > /dev/null"
    assert_success
}

@test "auto-detection tells every ftrace shape without --format" {
    for f in tracefs-flags.txt tracefs-tgid.txt trace-cmd-report.txt atrace.txt systrace.html x86-syscalls.txt argus-record.txt unknown-lines.txt; do
        run --separate-stderr sh -c "argus-decode fixtures/ftrace/$f | argus-to-json | jq -c 'select(.type != \"stream\")'"
        assert_success
        assert_output "$(grep -v '"type":"stream"' "fixtures/ftrace/${f%.*}.expected.jsonl")"
        run --separate-stderr sh -c "argus-decode fixtures/ftrace/$f | argus-to-json | head -1 | jq -r .source"
        assert_output ftrace
    done
    # tracefs without its header: the first line's shape
    run sh -c "grep -v '^#' fixtures/ftrace/tracefs-flags.txt | argus-decode | argus-to-json | head -1 | jq -r .source"
    assert_output ftrace
}

# ---- Real traces ---------------------------------------------------

# expected_counts FILE: "TYPE COUNT" per event type, computed from the text
# by the mapping's rules alone (not by the decoder):
#   wait      sched_switch lines whose prev_state blocks (a letter of
#             S D I T t P K W first, or a number with bit 1, 2, 4 or 8),
#             unless prev already waits or is the idle task (tid 0)
#   woken     the switch-in of a waiting thread, or (synthetic) a line of
#             the waiting thread itself before it (DEC-WOKEN)
#   wakeup    sched_waking and sched_wakeup_new lines, sched_wakeup lines
#             but those after a sched_waking of the same target and those
#             with success=0
#   interrupt irq_handler_entry/exit, softirq_entry/exit; and a synthetic
#             window (a begin and an end) on the interrupted thread around
#             the lines in interrupt context by their flags (h, H, s, z or
#             Z third) outside those events, per CPU: it ends at a line of
#             the CPU in task context, at an irq or softirq event, on
#             another thread, or with the trace (a line in task context
#             also ends any irq or softirq left open on its CPU)
#   timer_*   hrtimer_/timer_ start (arm), expire_entry/exit (fire), cancel
#   syscall   sys_X(...) and sys_X -> RET lines, sys_enter_X / sys_exit_X
#   ipc       a wakeup by a thread in write/writev/send* of a thread in
#             read/readv/recv*/poll/select/epoll*: a send, and a recv when
#             that syscall ends
#   exec/exit sched_process_exec / sched_process_exit
#   preempted a thread switched out runnable (R, or a number with no
#             state bit) and switched in again 1 ms or more later
#   ftrace    any other line with a head (sched_process_fork, task_newtask
#             and task_rename only name threads)
expected_counts() {
    awk '
    function val(key,   r) {
        if (!match($0, " " key "=[^ ]*")) return ""
        return substr($0, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
    }
    function blocks(st) {
        if (st ~ /^[0-9]+$/) return int(st / 1) % 16 != 0
        return st ~ /^[SDITtPKW]/
    }
    function sendsys(s) { return s ~ /^(write|writev|sendto|sendmsg|sendmmsg)$/ }
    function recvsys(s) {
        return s ~ /^(read|readv|recvfrom|recvmsg|recvmmsg|poll|ppoll|select|pselect6|epoll_wait|epoll_pwait|epoll_pwait2)$/
    }
    function wake(target) {
        n["wakeup"]++
        if (sys[tid] != "" && sys[target] != "" && target != tid && sendsys(sys[tid]) && recvsys(sys[target])) {
            n["ipc"]++; inbox[target] = 1
        }
    }
    /^ *#/ || /^version = / || /^cpus=/ || /^TRACE:$/ { next }
    # first pass: a thread whose first mention is a wakeup of it was asleep
    # when the trace began (a switch to it: runnable; a line of its own:
    # running)
    FNR == NR {
        if (!match($0, /-[0-9]+ +(\( *[0-9-]+\) +)?\[[0-9]+\]/)) next
        seen[substr($0, RSTART + 1) + 0] = 1
        if ($0 ~ /: sched_switch: /) { t = val("next_pid"); seen[t] = 1 }
        else if ($0 ~ /: sched_wak(ing|eup): /) { t = val("pid"); if (!seen[t]) asleep[t] = 1; seen[t] = 1 }
        else if ($0 ~ /: sched_wakeup_new: /) seen[val("pid")] = 1
        next
    }
    !started { started = 1; for (t in asleep) if (t != 0) { n["wait"]++; waiting[t] = 1 } }
    {
        if (!match($0, /-[0-9]+ +(\( *[0-9-]+\) +)?\[[0-9]+\]/)) { n["ftrace"]++; next }
        tid = substr($0, RSTART + 1) + 0
        head = substr($0, RSTART, RLENGTH); sub(/.*\[/, "", head); cpu = head + 0
        flags = substr($0, RSTART + RLENGTH); sub(/^ +/, "", flags); sub(/ .*/, "", flags)
        hasflags = flags !~ /^[0-9.]+:$/ && length(flags) >= 4
        ctx = hasflags && substr(flags, 3, 1) ~ /[hHszZ]/
        if (hasflags && !ctx) depth[cpu] = 0
        if (waiting[tid]) { n["woken"]++; waiting[tid] = 0 }
        match($0, /[0-9]\.[0-9]+: +[A-Za-z0-9_]+/)
        ev = substr($0, RSTART, RLENGTH); sub(/.*: +/, "", ev)
        real = ev ~ /^(irq_handler|softirq)_(entry|exit)$/
        if (open[cpu] && (!ctx || real || tid != stid[cpu])) { n["interrupt"]++; open[cpu] = 0 }
        if (ctx && !real && !depth[cpu]) { if (!open[cpu]) n["interrupt"]++; open[cpu] = 1; stid[cpu] = tid }
        if (ev ~ /_entry$/ && real) depth[cpu]++
        else if (ev ~ /_exit$/ && real && depth[cpu]) depth[cpu]--
        after = substr($0, RSTART + RLENGTH, 4)
        if (ev ~ /^sys_/ && after ~ /^(\(| ->)/) { name = substr(ev, 5) }
        else if (ev ~ /^sys_enter_/) { name = substr(ev, 11); after = "(" }
        else if (ev ~ /^sys_exit_/) { name = substr(ev, 10); after = " ->" }
        else name = ""
        if (name != "") {
            n["syscall"]++
            if (after ~ /^\(/) sys[tid] = name
            else { if (inbox[tid]) { n["ipc"]++; inbox[tid] = 0 } sys[tid] = "" }
        } else if (ev == "sched_switch") {
            prev = val("prev_pid"); next_pid = val("next_pid"); st = val("prev_state")
            match($0, /[0-9]+\.[0-9]+: +sched_switch/); ts = substr($0, RSTART, RLENGTH) + 0
            if (prev != 0 && blocks(st) && !waiting[prev]) { n["wait"]++; waiting[prev] = 1 }
            else if (prev != 0 && (st ~ /^R/ || (st ~ /^[0-9]+$/ && int(st) % 256 == 0))) preempted[prev] = ts
            if (next_pid in preempted) { if (ts - preempted[next_pid] >= 0.001) n["preempted"]++; delete preempted[next_pid] }
            if (waiting[next_pid]) { n["woken"]++; waiting[next_pid] = 0 }
        } else if (ev == "sched_waking") { wake(val("pid")); pending[val("pid")] = 1 }
        else if (ev == "sched_wakeup") {
            p = val("pid")
            if (val("success") == "0") { }
            else if (pending[p]) pending[p] = 0
            else wake(p)
        } else if (ev == "sched_wakeup_new") { wake(val("pid")); pending[val("pid")] = 0 }
        else if (ev ~ /^(irq_handler|softirq)_(entry|exit)$/) n["interrupt"]++
        else if (ev ~ /^(hr)?timer_start$/) n["timer_arm"]++
        else if (ev ~ /^(hr)?timer_expire_(entry|exit)$/) n["timer_fire"]++
        else if (ev ~ /^(hr)?timer_cancel$/) n["timer_cancel"]++
        else if (ev == "sched_process_exec") n["exec"]++
        else if (ev == "sched_process_exit") n["exit"]++
        else if (ev !~ /^(sched_process_fork|task_newtask|task_rename)$/) n["ftrace"]++
    }
    END { for (c in open) if (open[c]) n["interrupt"]++; for (t in n) print t, n[t] }' "$1" "$1" | sort
}

@test "real traces: every ftrace file of ../shared/traces decodes and validates" {
    need_traces
    for f in "$ARGUS_TRACES"/ftrace-*.txt; do
        run bash -c "set -o pipefail; argus-decode '$f' | argus-validate"
        assert_success
        assert_output --partial ': valid: '
        run sh -c "argus-decode '$f' | argus-to-json | head -1 | jq -r .source"
        assert_output ftrace
    done
}

@test "real ftrace-android-atrace.txt: event counts by type match the text" {
    need_traces
    f="$ARGUS_TRACES/ftrace-android-atrace.txt"
    # 116 event lines: 72 sched_switch (35 prev_state=S, 9 D: 44 waits; 27
    # R or R+; 1 x, dead) and 44 sched_wakeup, 11 of them by the idle task
    # in hardirq context (d.h5) between task-context lines: 11 synthetic
    # interrupt windows; 20 threads are first named by a wakeup of them
    # (asleep when the trace began: a wait at its start each, 64 waits)
    want='interrupt 22
wait 64
wakeup 44
woken 44'
    run expected_counts "$f"
    assert_output "$want"
    run decoded_counts "$f"
    assert_output "$want"
}

@test "real ftrace-desktop-critical-path.txt: event counts by type match the text" {
    need_traces
    f="$ARGUS_TRACES/ftrace-desktop-critical-path.txt"
    # 146 event lines; unknown to the mapping: 7 hrtimer_init, 7
    # softirq_raise, 5 tick_stop (19 ftrace); 12 sched_waking each followed
    # by its sched_wakeup (12 wakeups); 18 irq and softirq lines, and 6
    # synthetic windows around hardirq-context lines (the local timer's
    # hrtimer_cancel/expire/start) outside them: 30 interrupt events; 7
    # threads first named by a wakeup (asleep when the trace began)
    want='ftrace 19
interrupt 30
timer_arm 22
timer_cancel 23
timer_fire 12
wait 22
wakeup 12
woken 9'
    run expected_counts "$f"
    assert_output "$want"
    run decoded_counts "$f"
    assert_output "$want"
    run grep -cE ': (hrtimer_init|softirq_raise|tick_stop):' "$f"
    assert_output 19
}

@test "real ftrace-juno-trace-cmd-report.txt: event counts by type match the text" {
    need_traces
    f="$ARGUS_TRACES/ftrace-juno-trace-cmd-report.txt"
    # numeric prev_state: 929 of 1, 134 of 2, 3 of 130 block (1066 waits);
    # 438 of 0, 335 of 4096 (preempted), 17 of 64 (dead) do not; 1068
    # sched_wakeup; 14 print and 3 sched_overutilized lines (17 ftrace); 32
    # threads first named by a wakeup: asleep when the trace began
    want='ftrace 17
wait 1098
wakeup 1068
woken 1066'
    run expected_counts "$f"
    assert_output "$want"
    run decoded_counts "$f"
    assert_output "$want"
    run sh -c "grep -o 'prev_state=[0-9]*' '$f' | sort | uniq -c | awk '{print \$2, \$1}' | tr '\n' ';'"
    assert_output 'prev_state=0 438;prev_state=1 929;prev_state=130 3;prev_state=2 134;prev_state=4096 335;prev_state=64 17;'
}

@test "real ftrace-x86-syscalls.txt: event counts by type match the text" {
    need_traces
    f="$ARGUS_TRACES/ftrace-x86-syscalls.txt"
    # 842 sys_X(...) / sys_X -> lines; 60 sched_switch: 16 prev_state=D, 2
    # P, 2 T (20 waits), 15 R+, and 25 S of the idle task (this kernel
    # prints S for swapper: no wait); 30 sched_waking + 1 sched_wakeup_new
    # (the 30 sched_wakeup follow their waking); irq 2 + softirq 8, and 5
    # synthetic windows around hardirq-context lines outside them; 75
    # ftrace: 40 sched_stat_runtime, 24 sched_wake_idle_without_ipi, 4
    # sched_process_wait, 4 softirq_raise, 3 sched_migrate_task; ipc: sshd
    # writing wakes ssh in a select, twice (a send and a recv each); 13
    # threads asleep when the trace began (first named by a wakeup): 33
    # waits; one thread switched out runnable (R+) is back on a CPU 1 ms or
    # more later: a preempted event
    want='exec 1
exit 2
ftrace 75
interrupt 20
ipc 4
preempted 1
syscall 842
wait 33
wakeup 31
woken 22'
    run expected_counts "$f"
    assert_output "$want"
    run decoded_counts "$f"
    assert_output "$want"
    run grep -cE ': sys_[a-z0-9_]+(\(| -> )' "$f"
    assert_output 842
    run sh -c "grep 'sched_switch:' '$f' | grep -v 'prev_comm=swapper' | grep -o 'prev_state=[^ ]*' | sort | uniq -c | tr -s ' ' | tr '\n' ';'"
    assert_output ' 16 prev_state=D; 2 prev_state=P; 15 prev_state=R+; 2 prev_state=T;'
}

@test "real ftrace-desktop-critical-path.txt: a wait, woken, wakeup and irq by line" {
    need_traces
    f="$ARGUS_TRACES/ftrace-desktop-critical-path.txt"
    # the first event line (line 10) is at 26186.336630: ts 0
    run sed -n '10p;13p;20p;23p;24p;78p;79p;81p' "$f"
    assert_output '      Compositor-3487  [000] d.h. 26186.336630: irq_handler_entry: irq=28 name=radeon
      Compositor-3487  [000] d.h. 26186.336653: irq_handler_exit: irq=28 ret=handled
      Compositor-3487  [000] d... 26186.336715: sched_switch: prev_comm=Compositor prev_pid=3487 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
 CompositorTileW-3490  [003] d... 26186.336819: sched_waking: comm=Compositor pid=3487 prio=120 target_cpu=000
 CompositorTileW-3490  [003] d... 26186.336823: sched_wakeup: comm=Compositor pid=3487 prio=120 target_cpu=001
 Chrome_ChildIOT-3485  [003] d... 26186.337882: sched_waking: comm=Compositor pid=3487 prio=120 target_cpu=001
 Chrome_ChildIOT-3485  [003] d... 26186.337889: sched_wakeup: comm=Compositor pid=3487 prio=120 target_cpu=000
          <idle>-0     [000] d... 26186.337902: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Compositor next_pid=3487 next_prio=120'
    run sh -c "argus-decode '$f' | argus-to-json | jq -c 'select(.id and (.tid == 3487 or .target == 3487) and .ts <= 1272000) | del(.id, .deadline)'"
    # line 10: irq 28 begins at 0; line 13: it ends 23 us later; line 20:
    # Compositor sleeps (S) at 85 us; lines 23-24: one wakeup by
    # CompositorTileW at 189 us (the sched_wakeup dropped); lines 78-79:
    # Chrome_ChildIOT wakes it again at 1252 us; line 81: the switch to
    # Compositor 1272 us after the first line is its woken, awakened.
    # Compositor's own hrtimer lines 18-19 come before its wait; the
    # deadline is left out: this trace's clock is not the hrtimer's
    # (CLOCK_MONOTONIC; the expire line 91 says now=26193634001564 at
    # 26186.337972), so expires minus the first line's ts is 7.3 s off.
    assert_output '{"type":"interrupt","ts":0,"tid":3487,"pid":3487,"cpu":0,"phase":"begin","irq":28,"name":"radeon"}
{"type":"interrupt","ts":23000,"tid":3487,"pid":3487,"cpu":0,"phase":"end","irq":28}
{"type":"ftrace","ts":73000,"tid":3487,"pid":3487,"cpu":0,"event":"hrtimer_init","text":"Compositor-3487  [000] .... 26186.336703: hrtimer_init: hrtimer=ffffaf6e0126bd18 clockid=CLOCK_MONOTONIC mode=HRTIMER_MODE_ABS"}
{"type":"timer_arm","ts":75000,"tid":3487,"pid":3487,"cpu":0,"timer":"0xffffaf6e0126bd18","func":"hrtimer_wakeup"}
{"type":"wait","ts":85000,"tid":3487,"pid":3487,"cpu":0,"reason":"sleeping"}
{"type":"wakeup","ts":189000,"tid":3490,"pid":3490,"cpu":3,"target":3487}
{"type":"wakeup","ts":1252000,"tid":3485,"pid":3485,"cpu":3,"target":3487}
{"type":"woken","ts":1272000,"tid":3487,"pid":3487,"cpu":0,"result":"awakened","runnable":20000}'
}

@test "real ftrace-juno-trace-cmd-report.txt: a numeric prev_state=1 wait and woken" {
    need_traces
    f="$ARGUS_TRACES/ftrace-juno-trace-cmd-report.txt"
    # the first line (line 3) is at 76.211513: ts 0
    run sed -n '6p;9p;11p;12p;13p' "$f"
    assert_output '              sh-1642  [002]    76.211696: sched_wakeup:          comm=kworker/u12:1 pid=46 prio=120 success=1 target_cpu=2
   kworker/u12:1-46    [002]    76.211715: sched_switch:          prev_comm=kworker/u12:1 prev_pid=46 prev_prio=120 prev_state=1 next_comm=sh next_pid=1642 next_prio=120
              sh-1642  [002]    76.211752: sched_wakeup:          comm=kworker/u12:1 pid=46 prio=120 success=1 target_cpu=2
              sh-1642  [002]    76.211756: sched_switch:          prev_comm=sh prev_pid=1642 prev_prio=120 prev_state=4096 next_comm=kworker/u12:1 next_pid=46 next_prio=120
   kworker/u12:1-46    [002]    76.211762: sched_switch:          prev_comm=kworker/u12:1 prev_pid=46 prev_prio=120 prev_state=1 next_comm=sh next_pid=1642 next_prio=120'
    run sh -c "argus-decode '$f' | argus-to-json | jq -c 'select(.id and (.tid == 46 or .target == 46) and .ts >= 183000 and .ts <= 249000) | del(.id)'"
    # line 6 (183 us): sh wakes kworker 46, first named here (asleep when
    # the trace began: a wait at ts 0), which runs at 188 us, runnable 5 us
    # (too short to name who held the CPU, cpu_holder),
    # line 9 (202 us): 46 sleeps (prev_state=1); line 11 (239
    # us): sh wakes it; line 12 (243 us): sh is preempted (4096) for it: its
    # woken, awakened, runnable 4 us; line 13 (249 us): it sleeps again
    assert_output '{"type":"wakeup","ts":183000,"tid":1642,"pid":1642,"cpu":2,"target":46}
{"type":"woken","ts":188000,"tid":46,"pid":46,"cpu":2,"result":"awakened","runnable":5000}
{"type":"wait","ts":202000,"tid":46,"pid":46,"cpu":2,"reason":"sleeping"}
{"type":"wakeup","ts":239000,"tid":1642,"pid":1642,"cpu":2,"target":46}
{"type":"woken","ts":243000,"tid":46,"pid":46,"cpu":2,"result":"awakened","runnable":4000}
{"type":"wait","ts":249000,"tid":46,"pid":46,"cpu":2,"reason":"sleeping"}'
}

@test "real ftrace-x86-syscalls.txt: an irq, and a write waking a select as an ipc" {
    need_traces
    f="$ARGUS_TRACES/ftrace-x86-syscalls.txt"
    run sh -c "argus-decode '$f' | argus-to-json | jq -c 'select(.type == \"interrupt\" and .irq and (.softirq | not)) | del(.id)'"
    # the first line is at 395.705673; the ahci irq 30 lines at 395.708011
    # and 395.708031 on CPU 2, in the idle task
    assert_output '{"type":"interrupt","ts":2338000,"tid":0,"pid":0,"cpu":2,"phase":"begin","irq":30,"name":"ahci[0000:01:00.0]"}
{"type":"interrupt","ts":2358000,"tid":0,"pid":0,"cpu":2,"phase":"end","irq":30}'
    run grep -c 'irq_handler_entry: irq=30 name=ahci\[0000:01:00.0\]' "$f"
    assert_output 1
    run sed -n '370p;607p;610p;621p' "$f"
    assert_output '             ssh-3963  [006] ....   395.706129: sys_select(n: 7, inp: 561a828ce860, outp: 561a828d4450, exp: 0, tvp: 0)
            sshd-3976  [001] ....   395.706541: sys_write(fd: 3, buf: 5638b60cd0c0, count: 34)
            sshd-3976  [001] d.s1   395.706570: sched_waking: comm=ssh pid=3963 prio=120 target_cpu=006
             ssh-3963  [006] ....   395.706630: sys_select -> 0x1'
    # ssh waits in select (line 370); sshd, in write (line 607), wakes it
    # (line 610, 897 us): a send, msg 1, peer ssh; ssh's select ends (line
    # 621, 957 us): the recv, peer sshd, just before the syscall end
    run sh -c "argus-decode '$f' | argus-to-json | jq -c 'select(.type == \"ipc\" and .msg == \"0x1\") | del(.id)'"
    assert_output '{"type":"ipc","ts":897000,"tid":3976,"pid":3976,"cpu":1,"dir":"send","msg":"0x1","peer":3963,"via":"fd"}
{"type":"ipc","ts":957000,"tid":3963,"pid":3963,"cpu":6,"dir":"recv","msg":"0x1","peer":3976,"via":"fd"}'
}
