#!/usr/bin/env bats
# argus-record (point 2): live recordings of this machine's kernel
# through tracefs, as root. Tests that need root or tracefs skip with the
# reason. The tests look at tracefs through a mount of their own ($TFS),
# so that they see the recorder's instance while it records and check
# that nothing is left afterwards; the recorder itself uses
# /sys/kernel/tracing (mounting it when absent). tests/tools/flagprog.c is
# the program with a shared flag for --watch, compiled here with cc.

bats_require_minimum_version 1.5.0
load test_helper

setup_file() {
    export TFS="$BATS_FILE_TMPDIR/tfs" FLAGPROG="$BATS_FILE_TMPDIR/flagprog"
    if [ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems; then
        mkdir -p "$TFS"
        mount -t tracefs nodev "$TFS" 2>/dev/null || true
    fi
    if command -v cc >/dev/null; then
        cc -std=c11 -O1 -pthread -o "$FLAGPROG" "$ARGUS_ROOT/tests/tools/flagprog.c" || true
        # some virtual machines take a breakpoint event and never trip it
        cc -std=c11 -D_GNU_SOURCE -O1 -o "$BATS_FILE_TMPDIR/hwbp-probe" \
            "$ARGUS_ROOT/tests/tools/hwbp-probe.c" || true
        build_fake_libraries || true
    fi
}

teardown_file() {
    if mountpoint -q "$TFS" 2>/dev/null; then umount "$TFS"; fi
}

setup() {
    T="$BATS_TEST_TMPDIR/t.txt"
    NAME="argus-bats-$$-$BATS_TEST_NUMBER"
}

# unique COMMAND: a link to COMMAND under a name no other process on this
# machine execs (the trace is system-wide), as $BATS_TEST_TMPDIR/COMMAND-argus
unique() {
    ln -sf "$(command -v "$1")" "$BATS_TEST_TMPDIR/$1-argus"
}

need_tracefs() {
    [ "$(id -u)" = 0 ] || skip "needs root (tracefs and perf)"
    mountpoint -q "$TFS" || skip "no tracefs on this kernel (cannot mount it)"
}

need_flagprog() {
    [ -x "$FLAGPROG" ] || skip "no C compiler to build tests/tools/flagprog.c"
}

# need_breakpoints: --watch needs hardware breakpoints that fire
# (tests/tools/hwbp-probe.c tells, independently of argus-record)
need_breakpoints() {
    local why
    why=$("$BATS_FILE_TMPDIR/hwbp-probe") || skip "$why"
}

# The top-level settings a recording must leave as they were.
global_settings() {
    for f in tracing_on buffer_size_kb buffer_total_size_kb trace_clock current_tracer \
             options/record-tgid options/overwrite set_event; do
        printf '%s: %s\n' "$f" "$(cat "$TFS/$f" | tr '\n' ' ')"
    done
}

# The events argus-record enables on this kernel (docs/stages/record.md).
expected_events() {
    for e in sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_wakeup_new \
             sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit \
             task/task_newtask task/task_rename irq/irq_handler_entry irq/irq_handler_exit \
             irq/softirq_entry irq/softirq_exit workqueue/workqueue_queue_work \
             workqueue/workqueue_execute_start workqueue/workqueue_execute_end \
             timer/hrtimer_start timer/hrtimer_expire_entry timer/hrtimer_expire_exit \
             timer/hrtimer_cancel; do
        [ -d "$TFS/events/$e" ] && echo "${e%%/*}:${e#*/}"
    done
    for x in futex read write readv writev pread64 pwrite64 recvfrom recvmsg recvmmsg sendto \
             sendmsg sendmmsg poll ppoll select pselect6 epoll_wait epoll_pwait epoll_pwait2 \
             nanosleep clock_nanosleep wait4 waitid accept accept4 connect pipe pipe2 socketpair \
             fcntl flock sched_yield close close_range dup2 dup3; do
        for side in enter exit; do
            [ -d "$TFS/events/syscalls/sys_${side}_$x" ] && echo "syscalls:sys_${side}_$x"
        done
    done
    return 0
}

# wait_recording NAME: until instance NAME is tracing (5 s at most).
wait_recording() {
    for _ in $(seq 100); do
        [ "$(cat "$TFS/instances/$1/tracing_on" 2>/dev/null)" = 1 ] && return 0
        sleep 0.05
    done
    return 1
}

# The timestamps of the event lines of FILE, in order.
event_times() {
    grep -v '^#' "$1" | grep -oE ' [0-9]+\.[0-9]{6,9}: ' | tr -d ' :'
}

# Stand-ins for the desktop's libraries (tests/tools/fakelib.c), each in a
# directory of its own for ARGUS_RECORD_LIBDIRS: $FAKE/glib holds a GLib
# 2.74.6 and fakeloop, a program on it; $FAKE/qt a Qt 5.15.2 (a version
# argus-record does not know); $FAKE/none nothing.
build_fake_libraries() {
    FAKE="$BATS_FILE_TMPDIR/fake"
    mkdir -p "$FAKE/glib" "$FAKE/qt" "$FAKE/none"
    cc -std=c11 -O1 -fPIC -shared -Wl,-soname,libglib-2.0.so.0 \
        -o "$FAKE/glib/libglib-2.0.so.0.7400.6" "$ARGUS_ROOT/tests/tools/fakelib.c" &&
        ln -sf libglib-2.0.so.0.7400.6 "$FAKE/glib/libglib-2.0.so.0" &&
        cc -std=c11 -O1 -fPIC -shared -Wl,-soname,libQt5Gui.so.5 \
            -o "$FAKE/qt/libQt5Gui.so.5.15.2" "$ARGUS_ROOT/tests/tools/fakelib.c" &&
        ln -sf libQt5Gui.so.5.15.2 "$FAKE/qt/libQt5Gui.so.5" &&
        cc -std=c11 -O1 -o "$FAKE/glib/fakeloop" "$ARGUS_ROOT/tests/tools/fakeloop.c" \
            "$FAKE/glib/libglib-2.0.so.0" -Wl,-rpath,"$FAKE/glib"
}

need_uprobes() {
    need_tracefs
    [ -e "$TFS/uprobe_events" ] || skip "no uprobes on this kernel"
    FAKE="$BATS_FILE_TMPDIR/fake"
    [ -x "$FAKE/glib/fakeloop" ] || skip "no C compiler to build tests/tools/fakelib.c"
}

# The file offset of SYMBOL in LIB, as argus-record writes it (0x...): its
# .dynsym value, the text being mapped at its file offset in these builds.
symbol_offset() {
    printf '0x%x\n' "0x$(nm -D --defined-only "$1" | awk -v s="$2" '$3 == s {print $1}')"
}

# ---- Command line (no root needed) -------------------------------------------

@test "-h prints the usage, the events it enables and the exit statuses" {
    run argus-record -h
    assert_success
    assert_line --index 0 "Usage: argus-record [OPTIONS] [--] [CMD [ARGS...]]"
    assert_line "      --watch 0xADDR[@PID]"
    assert_line "socketpair, fcntl, flock, sched_yield, close, close_range, dup2, dup3;"
    assert_line "77 not root, 126/127 CMD not executable/not found."
}

@test "usage errors exit 64 naming the option, before any root check" {
    run argus-record --watch sFlag
    assert_failure 64
    assert_output "argus-record: --watch sFlag: without @PID it watches CMD's process, and there is no CMD
Try 'argus-record --help' for more information."
    run argus-record --watch sFlag@12x -- true
    assert_failure 64
    assert_line --index 0 "argus-record: --watch sFlag@12x: bad PID '12x'"
    run argus-record --watch 0xzz@1
    assert_failure 64
    assert_line --index 0 "argus-record: --watch 0xzz@1: bad address '0xzz'"
    run argus-record --event sched_switch -- true
    assert_failure 64
    assert_line --index 0 "argus-record: --event sched_switch: expected SYS:NAME (like sched:sched_migrate_task)"
    run argus-record --duration 0
    assert_failure 64
    assert_line --index 0 "argus-record: --duration 0: expected seconds > 0 (like 5 or 0.5)"
    run argus-record --buffer-mb 0
    assert_failure 64
    assert_line --index 0 "argus-record: --buffer-mb must be 1..65536 (MB per CPU)"
    run argus-record --instance a/b
    assert_failure 64
    assert_line --index 0 "argus-record: --instance a/b: expected a directory name"
    run argus-record --frobnicate
    assert_failure 64
    assert_line --index 0 "argus-record: bad option '--frobnicate' (unknown, or missing its value)"
}

@test "not root: a clear message and exit 77, nothing created" {
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null || skip "no setpriv to drop root"
        run setpriv --reuid=nobody --regid=nogroup --clear-groups "$ARGUS_BIN/argus-record" -o "$T" -- true
    else
        run argus-record -o "$T" -- true
    fi
    assert_failure 77
    assert_output "argus-record: needs root to use tracefs and perf (run it with sudo)"
    [ ! -e "$T" ]
}

# ---- tracefs ----------------------------------------------------------------

@test "tracefs unavailable under ARGUS_TRACEFS: a clear message and exit 69" {
    [ "$(id -u)" = 0 ] || skip "needs root (the root check comes first)"
    mkdir "$BATS_TEST_TMPDIR/empty"
    ARGUS_TRACEFS="$BATS_TEST_TMPDIR/empty" run argus-record -o "$T" -- true
    assert_failure 69
    assert_output "argus-record: tracefs unavailable: $BATS_TEST_TMPDIR/empty (ARGUS_TRACEFS) is not a tracefs directory with instances/"
}

@test "tracefs not mounted: the recorder mounts it and unmounts it at the end" {
    need_tracefs
    command -v unshare >/dev/null || skip "no unshare for a private mount namespace"
    # a mount namespace of its own: other users of tracefs see no change
    run unshare -m --propagation private sh -c '
        umount /sys/kernel/tracing 2>/dev/null
        mountpoint -q /sys/kernel/tracing && echo "before: mounted" || echo "before: not mounted"
        argus-record -q -o "$1" -- true; echo "status $?"
        mountpoint -q /sys/kernel/tracing && echo "after: mounted" || echo "after: not mounted"' sh "$T"
    assert_success
    assert_output "before: not mounted
status 0
after: not mounted"
    run grep -c 'sched_switch: ' "$T"
    refute_output 0
}

# ---- A recording ------------------------------------------------------------

@test "-- sleep 0.2: (TGID) column, its switches, argus-thread lines, its status" {
    need_tracefs
    unique sleep
    run --separate-stderr argus-record -o "$T" --instance "$NAME" -- "$BATS_TEST_TMPDIR/sleep-argus" 0.2
    assert_success
    assert_output ""
    [[ "$stderr" =~ ^argus-record:\ [0-9]+\ events,\ [0-9]+\ threads,\ [0-9]+\ overwritten\;\ stopped\ by\ the\ command\'s\ end\;\ wrote\ .*/t\.txt$ ]]
    # sleep's pid, from its exec
    run sed -nE "s|.*sched_process_exec: filename=$BATS_TEST_TMPDIR/sleep-argus pid=([0-9]+) .*|\1|p" "$T"
    assert_output --regexp '^[0-9]+$'
    pid=$output
    run grep -cE "^ +sleep-argus-$pid +\( *$pid\) \[[0-9]{3}\] [^ ]+ +[0-9]+\.[0-9]{6}: sched_switch: prev_comm=sleep-argus prev_pid=$pid " "$T"
    refute_output 0
    # the header: the kernel's, then argus's, then the events
    run head -1 "$T"
    assert_output "# tracer: nop"
    run grep -E '^# recorded by' "$T"
    assert_output --regexp "^# recorded by argus-record 0\.1\.0: instance $NAME, trace_clock mono, 16 MB per CPU, overwrite, [0-9]+ events enabled$"
    # one moment on the trace's clock and on the wall clock: decode's t0
    # (DEC-ORIGIN) is the wall clock of the first event, within a minute of now
    run grep -cE '^# argus-clock: mono=[0-9]+\.[0-9]{9} realtime=[0-9]+\.[0-9]{9}$' "$T"
    assert_output 1
    run sh -c "argus-decode '$T' | argus-to-json | head -1 | jq '(.t0 / 1e9 - $(date +%s) | fabs) < 60 and (.origin > 0)'"
    assert_output true
    # kthreadd, and the command's process as it was at the start (forked,
    # not yet exec'd)
    run grep -E '^# argus-thread: tid=(2|'"$pid"') ' "$T"
    assert_line --index 0 "# argus-thread: tid=2 tgid=2 kernel=1 comm=kthreadd"
    # its parent is the recorder (ppid: DEC-PARENT)
    assert_line --index 1 --regexp "^# argus-thread: tid=$pid tgid=$pid kernel=0 ppid=[1-9][0-9]* comm=argus-record\$"
    # every argus-thread line before the first event, one per tid, by tid
    first_event=$(grep -nv '^#' "$T" | head -1 | cut -d: -f1)
    last_thread=$(grep -n '^# argus-thread: ' "$T" | tail -1 | cut -d: -f1)
    [ "$last_thread" -lt "$first_event" ]
    run sh -c "grep '^# argus-thread: ' '$T' | sed -E 's/.*tid=([0-9]+) .*/\1/' | sort -nc && grep '^# argus-thread: ' '$T' | cut -d' ' -f3 | sort | uniq -d"
    assert_success
    assert_output ""
}

@test "while recording, the instance has the buffer, clock, tgid and mapped events" {
    need_tracefs
    # the kernel's events (the probes' have tests of their own)
    argus-record -q -o "$T" --instance "$NAME" --buffer-mb 4 --duration 2 --no-probes &
    pid=$!
    wait_recording "$NAME"
    i="$TFS/instances/$NAME"
    kb=$(cat "$i/buffer_size_kb")
    clock=$(cat "$i/trace_clock")
    overwrite=$(cat "$i/options/overwrite")
    tgid=$(cat "$i/options/record-tgid")
    sort "$i/set_event" > "$BATS_TEST_TMPDIR/enabled"
    wait "$pid"
    # 4 MB per CPU (the kernel rounds up to whole pages)
    [ "$kb" -ge 4096 ] && [ "$kb" -lt 4160 ]
    [[ "$clock" == *"[mono]"* ]]
    [ "$overwrite" = 1 ]
    [ "$tgid" = 1 ]
    expected_events | sort > "$BATS_TEST_TMPDIR/expected"
    run diff "$BATS_TEST_TMPDIR/expected" "$BATS_TEST_TMPDIR/enabled"
    assert_success
    assert_output ""
}

@test "afterwards no instance is left and the global settings are as before" {
    need_tracefs
    before=$(global_settings)
    run argus-record -q -o "$T" --instance "$NAME" --buffer-mb 2 -- sleep 0.1
    assert_success
    [ ! -e "$TFS/instances/$NAME" ]
    after=$(global_settings)
    [ "$before" = "$after" ]
}

@test "the default instance is argus-PID, removed at the end" {
    need_tracefs
    argus-record -q -o "$T" --duration 1 &
    pid=$!
    wait_recording "argus-$pid"
    wait "$pid"
    [ ! -e "$TFS/instances/argus-$pid" ]
    run grep '^# recorded by' "$T"
    assert_output --regexp "^# recorded by argus-record 0\.1\.0: instance argus-$pid, "
}

@test "the command's exit status is the recorder's; a missing command is 127" {
    need_tracefs
    run argus-record -q -o "$T" --instance "$NAME" -- sh -c 'exit 3'
    assert_failure 3
    run -127 argus-record -q -o "$T" --instance "$NAME" -- "$BATS_TEST_TMPDIR/no-such-command"
    assert_output "argus-record: $BATS_TEST_TMPDIR/no-such-command: No such file or directory"
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "--duration stops the recording and writes it" {
    need_tracefs
    start=$(date +%s%N)
    run --separate-stderr argus-record -o "$T" --instance "$NAME" --duration 0.3
    end=$(date +%s%N)
    assert_success
    [[ "$stderr" == *"; stopped by --duration; wrote $T" ]]
    [ $(( (end - start) / 1000000 )) -lt 3000 ]
    run grep -c 'sched_switch: ' "$T"
    refute_output 0
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "DEC-COMPRESSED: -o FILE.gz and FILE.zst write the trace compressed" {
    need_tracefs
    for ext in gz zst; do
        argus-record -q -o "$T.$ext" --instance "$NAME" --duration 0.3
        [ ! -e "$T.$ext.partial" ]
        # gzip's magic 1f 8b, zstd's 28 b5 2f fd
        run sh -c "od -An -tx1 -N4 '$T.$ext' | tr -d ' '"
        [ "$ext" = gz ] && assert_output --regexp '^1f8b' || assert_output '28b52ffd'
        # whole: decode reads it as it is, its end mark there (no loss record)
        run sh -c "argus-decode '$T.$ext' | argus-to-json | grep -c '\"id\":'"
        refute_output 0
        run sh -c "argus-decode '$T.$ext' | argus-to-json | grep -c '\"type\":\"loss\"'"
        assert_output 0
    done
}

@test "DEC-LOSS: a recording is FILE.partial until whole, ending in its end mark" {
    need_tracefs
    argus-record -o "$T" --instance "$NAME" --duration 5 2> "$BATS_TEST_TMPDIR/err" &
    pid=$!
    wait_recording "$NAME"
    [ ! -e "$T" ]
    kill -INT "$pid"
    wait "$pid"
    [ ! -e "$T.partial" ]
    run tail -n 1 "$T"
    assert_output --regexp '^# argus-end: events=[1-9][0-9]* overwritten=0$'
    run grep -c '^# argus-end: expected$' "$T"
    assert_output 1
    run sh -c "argus-decode '$T' | argus-to-json | grep -c '\"type\":\"loss\"'"
    assert_output 0
}

@test "DEC-LOSS: a recorder killed leaves FILE.partial, reaped by the next one" {
    need_tracefs
    argus-record -o "$T" --duration 5 2> /dev/null &
    pid=$!
    wait_recording "argus-$pid"
    kill -9 "$pid"
    wait "$pid" || true
    [ ! -e "$T" ]
    [ -e "$T.partial" ]
    [ -e "$TFS/instances/argus-$pid" ]
    run argus-record --cleanup
    assert_success
    [ ! -e "$TFS/instances/argus-$pid" ]
    # a whole recording cut as a write stopped by SIGKILL would leave it
    argus-record -o "$T" --instance "$NAME-2" --duration 0.3 2> /dev/null
    head -c $(( $(stat -c %s "$T") * 2 / 3 )) "$T" > "$T.cut"
    run sh -c "argus diagnose '$T.cut' | head -n 4 | tr '\n' ' '"     # its first lines say it
    assert_output --regexp '^(no hang found )?Incomplete trace: (its last line \(line [0-9]+\) is cut short: the recording stopped while writing; )?it lacks argus-record.s end mark: the recording did not finish'

}

@test "a killed recorder's own --instance is reaped by its probes, then the probes" {
    need_tracefs
    argus-record -o "$T" --instance "$NAME" --duration 5 2> /dev/null &
    pid=$!
    wait_recording "$NAME"
    ls "$TFS/instances/$NAME/events" | grep -q "^argus_$pid" ||
        { kill -9 "$pid"; wait "$pid" || true; argus-record --cleanup 2>/dev/null || true;
          rmdir "$TFS/instances/$NAME" 2>/dev/null || true; skip "no desktop library to probe here"; }
    kill -9 "$pid"
    wait "$pid" || true
    run --separate-stderr argus-record --cleanup
    assert_success
    [[ "$stderr" == *"instances/$NAME, argus_$pid/"* ]]
    [ ! -e "$TFS/instances/$NAME" ]
    run grep -c "^[pr]:argus_$pid/" "$TFS/uprobe_events"
    assert_output 0
}

@test "SIGINT stops the recording, writes it and restores" {
    need_tracefs
    before=$(global_settings)
    argus-record -o "$T" --instance "$NAME" 2> "$BATS_TEST_TMPDIR/err" &
    pid=$!
    wait_recording "$NAME"
    sleep 0.2
    kill -INT "$pid"
    wait "$pid"
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output --regexp "; stopped by SIGINT; wrote $T\$"
    run grep -c 'sched_switch: ' "$T"
    refute_output 0
    [ ! -e "$TFS/instances/$NAME" ]
    [ "$before" = "$(global_settings)" ]
}

@test "SIGTERM stops the recording too, and the command gets it" {
    need_tracefs
    unique sleep
    argus-record -q -o "$T" --instance "$NAME" -- "$BATS_TEST_TMPDIR/sleep-argus" 30 &
    pid=$!
    wait_recording "$NAME"
    kill -TERM "$pid"
    status=0
    wait "$pid" || status=$?
    [ "$status" = 143 ] # sleep's: killed by SIGTERM
    run grep -c "sched_process_exec: filename=$BATS_TEST_TMPDIR/sleep-argus " "$T"
    assert_output 1
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "a second SIGINT while writing abandons the output, exit 130, no instance left" {
    need_tracefs
    # a FIFO nobody reads: the write blocks once its buffer is full
    mkfifo "$BATS_TEST_TMPDIR/fifo"
    exec {keep}<> "$BATS_TEST_TMPDIR/fifo" # bats owns fd 3
    argus-record -o "$BATS_TEST_TMPDIR/fifo" --instance "$NAME" 2> "$BATS_TEST_TMPDIR/err" &
    pid=$!
    wait_recording "$NAME"
    # 10,000 syscall lines to write: far more than the FIFO holds
    dd if=/dev/zero of=/dev/null bs=1 count=5000 2>/dev/null
    kill -INT "$pid"
    sleep 0.5
    kill -INT "$pid"
    status=0
    wait "$pid" || status=$?
    exec {keep}<&-
    [ "$status" = 130 ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-record: interrupted while writing: $BATS_TEST_TMPDIR/fifo is incomplete"
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "a reader that goes away (head -1): quiet end, instance removed" {
    need_tracefs
    # 10,000 syscall lines: far more than a pipe holds, so the recorder
    # is still writing when head has gone
    run sh -c "argus-record --instance '$NAME' -- sh -c 'dd if=/dev/zero of=/dev/null bs=1 count=5000 2>/dev/null' | head -1"
    assert_success
    assert_output "# tracer: nop"
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "--event SYS:NAME adds an event the default list lacks" {
    need_tracefs
    [ -d "$TFS/events/syscalls/sys_enter_newuname" ] || skip "no sys_enter_newuname on this kernel"
    unique uname
    run argus-record -q -o "$T" --instance "$NAME" -- "$BATS_TEST_TMPDIR/uname-argus" -s
    assert_success
    run grep -c 'sys_newuname(' "$T"
    assert_output 0
    run argus-record -q -o "$T" --instance "$NAME" --event syscalls:sys_enter_newuname -- "$BATS_TEST_TMPDIR/uname-argus" -s
    assert_success
    assert_output "Linux"
    run grep -cE '^ +uname-argus-([0-9]+) +\( *\1\) \[[0-9]{3}\] [^ ]+ +[0-9.]+: sys_newuname\(name: 0x[0-9a-f]+\)$' "$T"
    assert_output 1
    run argus-record -q -o "$T" --instance "$NAME" --event nosuch:event -- true
    assert_failure 64
    assert_output "argus-record: --event nosuch:event: no such event in /sys/kernel/tracing/events"
    [ ! -e "$TFS/instances/$NAME" ]
}

# ---- --watch ----------------------------------------------------------------

# flag_lines: the argus_flag lines of $T
flag_lines() { grep 'argus_flag_' "$T"; }

@test "--watch SYMBOL on the command: exact flag lines, values at the access" {
    need_tracefs
    need_flagprog
    need_breakpoints
    run --separate-stderr argus-record -o "$T" --instance "$NAME" --watch sFlag -- "$FLAGPROG"
    assert_success
    [[ "$output" =~ ^pid=([0-9]+)\ reader=([0-9]+)\ addr=(0x[0-9a-f]+)$ ]]
    pid=${BASH_REMATCH[1]} reader=${BASH_REMATCH[2]} addr=${BASH_REMATCH[3]}
    [[ "$stderr" == *", 3 watch hits (0 lost), "* ]]
    run grep '^# watch: ' "$T"
    assert_output "# watch: name=sFlag addr=$addr len=4 pid=$pid values=at-access"
    ts='\[[0-9]{3}\] \.\.\.\. +[0-9]+\.[0-9]{9}'
    run flag_lines
    assert_line --index 0 --regexp "^ +flagprog-$pid +\( +$pid\) $ts: argus_flag_write: addr=$addr value=0x1 name=sFlag\$"
    assert_line --index 1 --regexp "^ +flagprog-$reader +\( +$pid\) $ts: argus_flag_read: addr=$addr value=0x1 name=sFlag\$"
    assert_line --index 2 --regexp "^ +flagprog-$pid +\( +$pid\) $ts: argus_flag_write: addr=$addr value=0x2 name=sFlag\$"
    [ "${#lines[@]}" = 3 ]
    # the comm column is the kernel's: 16 wide, right-aligned
    [[ "${lines[0]}" == "        flagprog-$pid"* ]]
}

@test "--watch lines are merged into the trace in timestamp order" {
    need_tracefs
    need_flagprog
    need_breakpoints
    run argus-record -q -o "$T" --instance "$NAME" --watch sFlag -- "$FLAGPROG"
    assert_success
    event_times "$T" > "$BATS_TEST_TMPDIR/times"
    # 6-decimal kernel times and 9-decimal watch times compare as numbers
    run sort -n -c "$BATS_TEST_TMPDIR/times"
    assert_success
    # the write of 1 comes after the program's start (its exec) and before its exit
    exec_line=$(grep -n 'sched_process_exec: filename=[^ ]*/flagprog ' "$T" | cut -d: -f1)
    write_line=$(grep -n 'argus_flag_write: .* value=0x1 ' "$T" | cut -d: -f1)
    exit_line=$(grep -n 'sched_process_exit: comm=flagprog .*group_dead=true' "$T" | cut -d: -f1)
    [ "$exec_line" -lt "$write_line" ] && [ "$write_line" -lt "$exit_line" ]
}

@test "--watch with values read at drain time: the same lines" {
    need_tracefs
    need_flagprog
    need_breakpoints
    ARGUS_RECORD_WATCH_VALUES=drain run --separate-stderr argus-record -o "$T" --instance "$NAME" --watch sFlag -- "$FLAGPROG"
    assert_success
    [[ "$output" =~ ^pid=([0-9]+)\ reader=([0-9]+)\ addr=(0x[0-9a-f]+)$ ]]
    pid=${BASH_REMATCH[1]} reader=${BASH_REMATCH[2]} addr=${BASH_REMATCH[3]}
    run grep '^# watch: ' "$T"
    assert_output "# watch: name=sFlag addr=$addr len=4 pid=$pid values=at-drain"
    run sh -c "grep 'argus_flag_' '$T' | sed -E 's/^ *([^ ]+) +\\( *([0-9]+)\\) .*: (argus_flag_[a-z]+: .*)/\\1 \\2 \\3/'"
    assert_output "flagprog-$pid $pid argus_flag_write: addr=$addr value=0x1 name=sFlag
flagprog-$reader $pid argus_flag_read: addr=$addr value=0x1 name=sFlag
flagprog-$pid $pid argus_flag_write: addr=$addr value=0x2 name=sFlag"
}

@test "--watch SYMBOL@PID on a running process: its writes, in order" {
    need_tracefs
    need_flagprog
    need_breakpoints
    "$FLAGPROG" loop 30 > "$BATS_TEST_TMPDIR/out" &
    prog=$!
    sleep 0.2
    run argus-record -q -o "$T" --instance "$NAME" --duration 0.5 --watch "sFlag@$prog"
    assert_success
    wait "$prog"
    addr=$(sed -E 's/.*addr=//' "$BATS_TEST_TMPDIR/out")
    run grep '^# watch: ' "$T"
    assert_output "# watch: name=sFlag addr=$addr len=4 pid=$prog values=at-access"
    # about ten writes, each one more than the one before, no read
    run sh -c "grep 'argus_flag_' '$T' | sed -E 's/^ *([^ ]+) +\\( *([0-9]+)\\) .*: (argus_flag_[a-z]+): addr=([^ ]+) value=0x([0-9a-f]+) name=(.*)/\\1 \\2 \\3 \\4 \\6 \\5/'"
    [ "${#lines[@]}" -ge 5 ]
    first=$(( 16#${lines[0]##* } ))
    for i in "${!lines[@]}"; do
        assert_line --index "$i" "flagprog-$prog $prog argus_flag_write $addr sFlag $(printf '%x' $((first + i)))"
    done
}

@test "--watch errors (unknown symbol, wrong size) stop before the command runs" {
    need_tracefs
    run argus-record -o "$T" --instance "$NAME" --watch "nosuch@$$"
    assert_failure 64
    assert_output "argus-record: --watch nosuch@$$: no symbol 'nosuch' in the ELF symbol tables of process $$'s mapped files"
    [ ! -e "$TFS/instances/$NAME" ]
    run argus-record -o "$T" --instance "$NAME" --watch nosuch -- sh -c 'echo ran'
    assert_failure 64
    assert_output --regexp "^argus-record: --watch nosuch: no symbol 'nosuch' in the ELF symbol tables of the files sh maps \\(process [0-9]+, after its dynamic linker ran\\)\$"
    [ ! -e "$TFS/instances/$NAME" ]
    run argus-record -o "$T" --instance "$NAME" --watch "0x1000@$$"
    assert_failure 64
    assert_output "argus-record: --watch 0x1000@$$: 0x1000 is not mapped in process $$"
    need_flagprog
    run argus-record -o "$T" --instance "$NAME" --watch sWide -- "$FLAGPROG"
    assert_failure 64
    assert_output --regexp "^argus-record: --watch sWide: 'sWide' in [^ ]*/flagprog is 16 bytes; a watchpoint covers 1, 2, 4 or 8 \\(watch 0xADDR@PID of one field\\)\$"
    [ ! -e "$TFS/instances/$NAME" ]
}

@test "--watch a symbol of a shared library of the command" {
    need_tracefs
    # glibc's environ: 8 bytes, read by getenv
    run argus-record -q -o "$T" --instance "$NAME" --watch environ -- sh -c 'echo ok'
    assert_success
    assert_output "ok"
    run grep -E '^# watch: name=environ addr=0x[0-9a-f]+ len=8 pid=[0-9]+ values=at-access$' "$T"
    assert_success
    need_breakpoints
    run grep -c 'argus_flag_read: addr=0x[0-9a-f]* value=0x7ff[0-9a-f]* name=environ$' "$T"
    refute_output 0
}

@test "--all-syscalls: every syscall event instead of the list" {
    need_tracefs
    argus-record -q -o "$T" --instance "$NAME" --all-syscalls --duration 1 &
    pid=$!
    wait_recording "$NAME"
    enabled=$(grep -c '^syscalls:' "$TFS/instances/$NAME/set_event")
    wait "$pid"
    all=$(find "$TFS/events/syscalls" -mindepth 1 -maxdepth 1 -type d | wc -l)
    [ "$enabled" = "$all" ]
    [ "$all" -gt 100 ]
}

# ---- Probes on the desktop's libraries --------------------------

@test "--probes with an unknown set is a usage error, before any root check" {
    run --separate-stderr argus-record --probes glib,gtk4 -o "$T" -- true
    assert_failure 64
    assert_equal "$stderr" "argus-record: --probes glib,gtk4: unknown set 'gtk4' (known: glib, gtk3, qt5, tk, gdbus, libdbus, none)
Try 'argus-record --help' for more information."
}

@test "--probes glib: the loop probed, said in the header, decoded; nothing left" {
    need_uprobes
    lib="$FAKE/glib/libglib-2.0.so.0.7400.6"
    dispatch=$(symbol_offset "$lib" g_main_context_dispatch)
    poll=$(symbol_offset "$lib" g_poll)
    ARGUS_RECORD_LIBDIRS="$FAKE/glib" argus-record -q -o "$T" --instance "$NAME" --probes glib \
        -- sh -c 'sleep 0.5; exec "$0"' "$FAKE/glib/fakeloop" &
    pid=$!
    wait_recording "$NAME"
    run grep -c "^[pr]:argus_$pid/argus_glib_" "$TFS/uprobe_events"
    defined=$output
    run grep -c "^argus_$pid:argus_glib_" "$TFS/instances/$NAME/set_event"
    enabled=$output
    wait "$pid"
    assert_equal "$defined" 4
    assert_equal "$enabled" 4
    run grep '^# probe' "$T"
    assert_output "# probe: set=glib event=argus_glib_dispatch library=$lib offset=$dispatch symbol=g_main_context_dispatch
# probe: set=glib event=argus_glib_dispatch_ret library=$lib offset=$dispatch symbol=g_main_context_dispatch%return
# probe: set=glib event=argus_glib_poll library=$lib offset=$poll symbol=g_poll
# probe: set=glib event=argus_glib_poll_ret library=$lib offset=$poll symbol=g_poll%return"
    # three iterations of fakeloop's loop: poll, then dispatch of its context
    run sh -c "argus-decode --format ftrace '$T' | argus-to-json | grep -E '\"runloop_(phase|invoke)\"' | sed -E 's/\"id\":[0-9]+,\"ts\":[0-9]+,\"tid\":[0-9]+,\"pid\":[0-9]+,\"cpu\":[0-9]+,//' | sort | uniq -c"
    assert_output '      3 {"type":"runloop_invoke","phase":"begin","kind":"source","item":"0x5eed000"}
      3 {"type":"runloop_invoke","phase":"end","kind":"source","item":"0x5eed000"}
      3 {"type":"runloop_phase","stage":"after_waiting"}
      3 {"type":"runloop_phase","stage":"before_waiting","timeout":5000000}'
    run grep -c "argus_$pid/" "$TFS/uprobe_events"
    assert_output 0
    [ ! -e "$TFS/events/argus_$pid" ]
}

@test "--probes qt5 on an unknown Qt version is refused, exit 69; by default off" {
    need_uprobes
    ARGUS_RECORD_LIBDIRS="$FAKE/qt" argus-record -o "$T" --instance "$NAME" --probes qt5 \
        -- true 2>"$BATS_TEST_TMPDIR/err" &
    pid=$!
    status=0
    wait "$pid" || status=$?
    assert_equal "$status" 69
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-record: --probes qt5: $FAKE/qt/libQt5Gui.so.5.15.2: version 5.15.2, which argus_qt_key does not know (known: 5.15.8)"
    [ ! -e "$TFS/instances/$NAME" ]
    run grep -c "argus_$pid/" "$TFS/uprobe_events"
    assert_output 0
    run --separate-stderr env ARGUS_RECORD_LIBDIRS="$FAKE/qt" \
        argus-record -o "$T" --instance "$NAME" -- true
    assert_success
    assert_equal "${stderr%%$'\n'*}" "argus-record: probes qt5 not set: $FAKE/qt/libQt5Gui.so.5.15.2: version 5.15.2, which argus_qt_key does not know (known: 5.15.8)"
    run grep '^# probe' "$T"
    assert_output "# probes: set=glib off=libglib-2.0.so.0 is not installed
# probes: set=gtk3 off=libgtk-3.so.0 is not installed
# probes: set=qt5 off=$FAKE/qt/libQt5Gui.so.5.15.2: version 5.15.2, which argus_qt_key does not know (known: 5.15.8)
# probes: set=tk off=libtcl8.6.so is not installed
# probes: set=gdbus off=libgio-2.0.so.0 is not installed
# probes: set=libdbus off=libdbus-1.so.3 is not installed"
}

@test "--no-probes defines no uprobe; --probes of a missing library exits 69" {
    need_uprobes
    run argus-record -q -o "$T" --instance "$NAME" --no-probes -- true
    assert_success
    run grep -c '^# probe' "$T"
    assert_output 0
    run --separate-stderr env ARGUS_RECORD_LIBDIRS="$FAKE/none" \
        argus-record -o "$T" --instance "$NAME" --probes gtk3 -- true
    assert_failure 69
    assert_equal "$stderr" "argus-record: --probes gtk3: libgtk-3.so.0 is not installed"
    [ ! -e "$TFS/instances/$NAME" ]
}

# ---- D-Bus probes ---------------------------------------------------

# need_dbus_probes: libgio and libdbus of the versions whose struct offsets
# the gdbus and libdbus sets know (filters/record/probes.c), the programs
# that make a call through a private bus, and readelf to check the offsets
need_dbus_probes() {
    local gio dbus
    gio=$(readlink -f /usr/lib/x86_64-linux-gnu/libgio-2.0.so.0 2>/dev/null)
    dbus=$(readlink -f /usr/lib/x86_64-linux-gnu/libdbus-1.so.3 2>/dev/null)
    [[ "$gio" == */libgio-2.0.so.0.7400.* ]] || skip "no libgio-2.0 of GLib 2.74 (the gdbus set's offsets): ${gio:-none}"
    [[ "$dbus" == */libdbus-1.so.3.32.* ]] || skip "no libdbus-1 1.14 (the libdbus set's offsets): ${dbus:-none}"
    for p in dbus-daemon dbus-send gdbus readelf; do
        command -v "$p" >/dev/null || skip "no $p"
    done
    GIO=$gio LIBDBUS=$dbus
}

# dynsym_offset FILE SYMBOL: the symbol's value in .dynsym, as 0x... (the
# file offset in these libraries: their code's LOAD has vaddr == offset)
dynsym_offset() {
    readelf -W --dyn-syms "$1" | awk -v s="$2" '$8 == s || index($8, s "@") == 1 { print "0x" $2; exit }'
}

@test "--probes gdbus,libdbus: a private bus call decodes to ipc pairs via dbus" {
    need_tracefs
    need_dbus_probes
    bus="$BATS_TEST_TMPDIR/bus"
    cat > "$BATS_TEST_TMPDIR/call.sh" <<SH
#!/bin/sh
# the probes while recording (the recorder's group: its parent's pid, not
# another recorder's running beside), then one call from each library
echo \$PPID > "$BATS_TEST_TMPDIR/recorder"
grep -E "^[pr]:argus_\$PPID/argus_(gd|db)_" "$TFS/uprobe_events" > "$BATS_TEST_TMPDIR/uprobes"
cat "$TFS/instances/$NAME/events"/argus_\$PPID/argus_gd_set_serial/enable > "$BATS_TEST_TMPDIR/enabled"
cat "$TFS/events"/argus_\$PPID/argus_gd_set_serial/enable > "$BATS_TEST_TMPDIR/top-enabled"
cat "$TFS/instances/$NAME/events"/argus_\$PPID/argus_db_get_reply_serial/filter > "$BATS_TEST_TMPDIR/filter"
dbus-daemon --session --address=unix:path=$bus --fork --print-pid=3 3> "$BATS_TEST_TMPDIR/daemon.pid"
timeout 5 dbus-send --bus=unix:path=$bus --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetId > /dev/null
timeout 5 gdbus call --address unix:path=$bus --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.GetId > /dev/null
status=\$?
kill "\$(cat "$BATS_TEST_TMPDIR/daemon.pid")"
exit \$status
SH
    chmod +x "$BATS_TEST_TMPDIR/call.sh"
    run argus-record -q -o "$T" --instance "$NAME" --probes gdbus,libdbus -- "$BATS_TEST_TMPDIR/call.sh"
    assert_success
    # eight probes, each at its function's .dynsym offset
    run sed -E 's/^([pr]):argus_[0-9]+\/([a-z_]+) ([^:]+):(0x[0-9a-f]+).*/\1 \2 \3 \4/' "$BATS_TEST_TMPDIR/uprobes"
    expected=""
    # (+3: set_serial and send_preallocated are probed after their first
    # instruction, test %rdi,%rdi, which the kernel would single-step)
    for x in "p argus_gd_set_serial $GIO g_dbus_message_set_serial 0" \
             "p argus_gd_set_reply_serial $GIO g_dbus_message_set_reply_serial 0" \
             "r argus_gd_from_blob $GIO g_dbus_message_new_from_blob 0" \
             "p argus_db_set_serial $LIBDBUS dbus_message_set_serial 3" \
             "p argus_db_set_reply_serial $LIBDBUS dbus_message_set_reply_serial 0" \
             "p argus_db_get_reply_serial $LIBDBUS dbus_message_get_reply_serial 0" \
             "p argus_db_set_sender $LIBDBUS dbus_message_set_sender 0" \
             "p argus_db_send_prealloc $LIBDBUS dbus_connection_send_preallocated 3"; do
        set -- $x
        expected+="$1 $2 $3 $(printf '0x%016x' $(($(dynsym_offset "$3" "$4") + $5)))"$'\n'
    done
    assert_output "${expected%$'\n'}"
    run cat "$BATS_TEST_TMPDIR/enabled" "$BATS_TEST_TMPDIR/top-enabled"
    assert_output "1
0"
    # dbus-daemon's own get_reply_serial calls (5-6 a message) are left out
    # in the kernel: its set_sender says what it received
    run cat "$BATS_TEST_TMPDIR/filter"
    assert_output 'comm != "dbus-daemon"'
    run grep -c '^ *dbus-daemon-[0-9]* .* argus_db_get_reply_serial:' "$T"
    assert_output 0
    run grep -c '^ *dbus-daemon-[0-9]* .* argus_db_set_sender:' "$T"
    refute_output 0
    # the header names them; nothing is left in uprobe_events
    run grep -c '^# probe: set=\(gdbus\|libdbus\) event=argus_\(gd\|db\)_' "$T"
    assert_output 8
    run grep -c "argus_$(cat "$BATS_TEST_TMPDIR/recorder")/argus_\(gd\|db\)_" "$TFS/uprobe_events"
    assert_output 0
    # each program's Hello and GetId: sent, received by the daemon, its
    # reply received back (two clients: at least 4 sends and 4 recvs)
    run sh -c "argus-decode '$T' | argus-link-ipc | argus-to-json | jq -c 'select(.via == \"dbus\") | .dir' | sort | uniq -c | awk '{print \$2, (\$1 >= 8)}'"
    assert_output '"recv" 1
"send" 1'
    run sh -c "argus-decode '$T' | argus-link-ipc | argus-to-json | jq -c 'select(.type == \"edge\" and .kind == \"reply\")' | wc -l"
    [ "$output" -ge 4 ]
}

# ---- Focus on running processes: --pid, --proc --------------------

@test "--pid and --proc: a process not running or a bad number exit 64 first" {
    none=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
    run --separate-stderr argus-record --pid "$none" -o "$T" -- true
    assert_failure 64
    assert_equal "$stderr" "argus-record: --pid $none: no such process is running
Try 'argus-record --help' for more information."
    run --separate-stderr argus-record --proc "argus-none-$$" -o "$T" -- true
    assert_failure 64
    assert_equal "$stderr" "argus-record: --proc argus-none-$$: no process of that name is running
Try 'argus-record --help' for more information."
    run --separate-stderr argus-record --pid 12x -- true
    assert_failure 64
    assert_equal "${stderr%%$'\n'*}" "argus-record: --pid: '12x' is not a number"
    run --separate-stderr argus-record --proc '' -- true
    assert_failure 64
    assert_equal "${stderr%%$'\n'*}" "argus-record: --proc: expected a process name"
    [ ! -e "$T" ]
    run argus-record --help
    assert_line "      --pid PID          focus on this running process (repeatable): the"
    assert_line "      --proc NAME        the same for each running process of that name"
}

@test "--pid and --proc: one argus-focus line per process focused, each once" {
    need_tracefs
    ln -sf "$(command -v sleep)" "$BATS_TEST_TMPDIR/argus-focus-sleeper-$$"
    "$BATS_TEST_TMPDIR/argus-focus-sleeper-$$" 30 &
    named=$!
    sleep 30 &
    plain=$!
    python3 -c 'import threading, time; t = threading.Thread(target=time.sleep, args=(30,)); t.start(); print(t.native_id, flush=True); t.join()' > "$BATS_TEST_TMPDIR/tid" &
    py=$!
    for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/tid" ] && break; sleep 0.05; done
    tid=$(cat "$BATS_TEST_TMPDIR/tid")
    comm=$(cat "/proc/$named/comm")
    run argus-record -q -o "$T" --instance "$NAME" --no-probes --duration 0.2 --pid "$plain" \
        --proc "argus-focus-sleeper-$$" --pid "$named" --pid "$tid" -- true
    kill "$named" "$plain" "$py"
    assert_success
    [ "$tid" != "$py" ]
    run grep '^# argus-\(command\|focus\):' "$T"
    assert_output --regexp "^# argus-command: pid=[0-9]+
# argus-focus: pid=$plain
# argus-focus: pid=$named
# argus-focus: pid=$py\$"
    # its comm is the name's first 15 bytes
    assert_equal "$comm" argus-focus-sle
    run sh -c "argus-decode '$T' | argus-to-json | head -1 | jq -c .focus"
    assert_output "[$plain,$named,$py]"
}

@test "DEC-CMDLINE: a python3 script's command line is noted; --proc SCRIPT focuses it" {
    need_tracefs
    [ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3 (apt-get install python3)"
    # a script of a name no other process has (the trace is system-wide);
    # its comm stays python3. It wakes every 50 ms: a thread record comes
    # with a thread's first event
    script=$BATS_TEST_TMPDIR/argus-cmdline-$$.py
    printf 'import time\nfor _ in range(600):\n    time.sleep(0.05)\n' > "$script"
    /usr/bin/python3 -u "$script" &
    py=$!
    for _ in $(seq 100); do
        grep -qF "$script" "/proc/$py/cmdline" 2>/dev/null && break
        sleep 0.05
    done
    comm=$(cat "/proc/$py/comm")
    # the script's name and its stem name the same process: one focus line
    # no command: one would end the recording at its own end, maybe
    # before the script's next wakeup
    run argus-record -q -o "$T" --instance "$NAME" --no-probes --duration 0.5 \
        --proc "argus-cmdline-$$.py" --proc "argus-cmdline-$$"
    kill "$py"
    wait "$py" || true
    assert_success
    assert_equal "$comm" python3
    run grep "^# argus-\(focus\|cmdline\): pid=$py\( \|$\)" "$T"
    assert_output "# argus-focus: pid=$py
# argus-cmdline: pid=$py /usr/bin/python3 -u $script"
    run sh -c "argus-decode '$T' | argus-to-json | jq -c 'select(.type == \"thread\" and .tid == $py) | [.proc, .main, .cmdline]'"
    assert_output "[\"python3\",true,[\"/usr/bin/python3\",\"-u\",\"$script\"]]"
}

# bundle DIR NAME: a copy of the fake GLib as DIR/NAME, with the soname's link
bundle() {
    mkdir -p "$1"
    cp "$FAKE/glib/libglib-2.0.so.0.7400.6" "$1/$2"
    ln -sf "$2" "$1/libglib-2.0.so.0"
}

# wait_mapped PID TEXT: until PID's maps name TEXT
wait_mapped() {
    for _ in $(seq 100); do
        grep -qF "$2" "/proc/$1/maps" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

@test "--pid: a focused process's copy of a library is probed in a group of its own" {
    need_uprobes
    lib="$FAKE/glib/libglib-2.0.so.0.7400.6" copy="$BATS_TEST_TMPDIR/bundle/libglib-2.0.so.0.7400.6"
    bundle "$BATS_TEST_TMPDIR/bundle" libglib-2.0.so.0.7400.6
    LD_PRELOAD="$copy" sleep 30 &
    app=$!
    LD_PRELOAD="$lib" sleep 30 &
    other=$!
    wait_mapped "$app" "$copy"
    wait_mapped "$other" "$lib"
    dispatch=$(symbol_offset "$lib" g_main_context_dispatch)
    poll=$(symbol_offset "$lib" g_poll)
    ARGUS_RECORD_LIBDIRS="$FAKE/glib" argus-record -q -o "$T" --instance "$NAME" --probes glib \
        --pid "$app" --pid "$other" \
        -- sh -c 'sleep 0.5; LD_LIBRARY_PATH="$1" exec "$0"' "$FAKE/glib/fakeloop" "$BATS_TEST_TMPDIR/bundle" &
    pid=$!
    wait_recording "$NAME"
    run sh -c "grep -E '^[pr]:argus_${pid}(_[0-9]+)?/' '$TFS/uprobe_events' | sed -E 's/^([pr]):([a-z0-9_]+)\/([a-z_]+) ([^:]+):.*/\1 \2 \3 \4/'"
    defined=$output
    run cat "$TFS/instances/$NAME/events/argus_${pid}_1/enable"
    enabled=$output
    wait "$pid"
    kill "$app" "$other"
    assert_equal "$defined" "p argus_$pid argus_glib_dispatch $lib
r argus_$pid argus_glib_dispatch_ret $lib
p argus_$pid argus_glib_poll $lib
r argus_$pid argus_glib_poll_ret $lib
p argus_${pid}_1 argus_glib_dispatch $copy
r argus_${pid}_1 argus_glib_dispatch_ret $copy
p argus_${pid}_1 argus_glib_poll $copy
r argus_${pid}_1 argus_glib_poll_ret $copy"
    assert_equal "$enabled" 1
    run grep '^# probe' "$T"
    assert_output "# probe: set=glib event=argus_glib_dispatch library=$lib offset=$dispatch symbol=g_main_context_dispatch
# probe: set=glib event=argus_glib_dispatch_ret library=$lib offset=$dispatch symbol=g_main_context_dispatch%return
# probe: set=glib event=argus_glib_poll library=$lib offset=$poll symbol=g_poll
# probe: set=glib event=argus_glib_poll_ret library=$lib offset=$poll symbol=g_poll%return
# probe: set=glib event=argus_glib_dispatch library=$copy offset=$dispatch symbol=g_main_context_dispatch
# probe: set=glib event=argus_glib_dispatch_ret library=$copy offset=$dispatch symbol=g_main_context_dispatch%return
# probe: set=glib event=argus_glib_poll library=$copy offset=$poll symbol=g_poll
# probe: set=glib event=argus_glib_poll_ret library=$copy offset=$poll symbol=g_poll%return"
    # fakeloop ran on the copy: its three iterations come from group _1
    run sh -c "argus-decode --format ftrace '$T' | argus-to-json | jq -c 'select(.type == \"runloop_invoke\" and .phase == \"begin\") | .item' | uniq -c"
    assert_output '      3 "0x5eed000"'
    run grep -c "argus_${pid}[_/]" "$TFS/uprobe_events"
    assert_output 0
    [ ! -e "$TFS/events/argus_${pid}_1" ]
}

@test "--pid: a library in another mount namespace is probed through /proc/PID/root" {
    need_uprobes
    command -v unshare >/dev/null || skip "no unshare"
    ns="$BATS_TEST_TMPDIR/ns"
    mkdir -p "$ns"
    unshare -m sh -c 'mount -t tmpfs argus-ns "$0" && cp "$1" "$0/" && LD_PRELOAD="$0/${1##*/}" exec sleep 30' \
        "$ns" "$FAKE/glib/libglib-2.0.so.0.7400.6" &
    app=$!
    wait_mapped "$app" "$ns/libglib" || { kill "$app"; skip "no mount namespace"; }
    [ ! -e "$ns/libglib-2.0.so.0.7400.6" ] # not in this namespace
    bundle "$BATS_TEST_TMPDIR/new" libglib-2.0.so.0.7800.0
    LD_PRELOAD="$BATS_TEST_TMPDIR/new/libglib-2.0.so.0.7800.0" sleep 30 &
    newer=$!
    wait_mapped "$newer" libglib-2.0.so.0.7800.0
    run --separate-stderr env ARGUS_RECORD_LIBDIRS="$FAKE/glib" argus-record -o "$T" \
        --instance "$NAME" --pid "$app" --pid "$newer" --duration 0.2
    assert_success
    assert_equal "${stderr%%$'\n'*}" "argus-record: probes glib not set on process $newer's libraries: $BATS_TEST_TMPDIR/new/libglib-2.0.so.0.7800.0: version 0.7800.0, which argus_glib_dispatch does not know (known: 0.50,0.52,0.54,0.56,0.58,0.60,0.62,0.64,0.66,0.68,0.70,0.72,0.74,0.76)"
    run sh -c "grep '^# probe' '$T' | grep -v 'is not installed' | sed -E 's/ offset=.*//'"
    assert_output "# probe: set=glib event=argus_glib_dispatch library=$FAKE/glib/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_dispatch_ret library=$FAKE/glib/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_poll library=$FAKE/glib/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_poll_ret library=$FAKE/glib/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_dispatch library=/proc/$app/root$ns/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_dispatch_ret library=/proc/$app/root$ns/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_poll library=/proc/$app/root$ns/libglib-2.0.so.0.7400.6
# probe: set=glib event=argus_glib_poll_ret library=/proc/$app/root$ns/libglib-2.0.so.0.7400.6
# probes: set=glib pid=$newer off=$BATS_TEST_TMPDIR/new/libglib-2.0.so.0.7800.0: version 0.7800.0, which argus_glib_dispatch does not know (known: 0.50,0.52,0.54,0.56,0.58,0.60,0.62,0.64,0.66,0.68,0.70,0.72,0.74,0.76)"
    run --separate-stderr env ARGUS_RECORD_LIBDIRS="$FAKE/glib" argus-record -o "$T" \
        --instance "$NAME" --probes glib --pid "$newer" --duration 0.2
    kill "$app" "$newer"
    assert_failure 69
    assert_equal "$stderr" "argus-record: --probes glib: process $newer: $BATS_TEST_TMPDIR/new/libglib-2.0.so.0.7800.0: version 0.7800.0, which argus_glib_dispatch does not know (known: 0.50,0.52,0.54,0.56,0.58,0.60,0.62,0.64,0.66,0.68,0.70,0.72,0.74,0.76)"
    [ ! -e "$TFS/instances/$NAME" ]
    # no probe left on these files (another recorder's may be there)
    run grep -c "$BATS_TEST_TMPDIR" "$TFS/uprobe_events"
    assert_output 0
}

# ---- What a killed recorder leaves (root) --------------------------------------

# dead_pid: a pid whose process has exited (a child of this shell, waited for)
dead_pid() {
    sh -c 'exit 0' &
    local pid=$!
    wait "$pid"
    echo "$pid"
}

@test "--cleanup removes exactly a dead recorder's instances and uprobe group" {
    need_tracefs
    [ -e "$TFS/uprobe_events" ] || skip "no uprobes on this kernel"
    libc=$(ldd "$(command -v sh)" | awk '$1 ~ /^libc\.so/ {print $3}')
    [ -f "$libc" ] || skip "no libc found"
    off=$(printf '0x%x' "0x$(nm -D --defined-only "$libc" | awk '$3 ~ /^getpid(@|$)/ {print $1; exit}')")
    # a live recorder (started first: every run removes the leftovers
    # it finds): its instance and group stay
    argus-record -q --probes glib --duration 20 -o "$T" &
    live=$!
    for _ in $(seq 100); do [ -d "$TFS/instances/argus-$live" ] && break; sleep 0.1; done
    dead=$(dead_pid)
    [ ! -e "/proc/$dead" ]
    # what SIGKILL leaves: the instance tracing, its detector's, its probes
    mkdir "$TFS/instances/argus-$dead" "$TFS/instances/argus-$dead-detect"
    echo "p:argus_$dead/argus_bats_getpid $libc:$off" >> "$TFS/uprobe_events"
    echo "r:argus_$dead/argus_bats_getpid_ret $libc:$off" >> "$TFS/uprobe_events"
    # not argus-PID: another name, another group (their pid is dead too)
    mkdir "$TFS/instances/$NAME" "$TFS/instances/argus-$dead-other"
    echo "p:argusbats_$dead/argus_bats_getpid $libc:$off" >> "$TFS/uprobe_events"
    run argus-record --cleanup
    cleanup_status=$status cleanup_output=$output
    live_instance=0
    [ -d "$TFS/instances/argus-$live" ] && live_instance=1
    kill -INT "$live"; wait "$live" || true
    left_other=$(grep -c "^p:argusbats_$dead/" "$TFS/uprobe_events" || true)
    echo "-:argusbats_$dead/argus_bats_getpid" >> "$TFS/uprobe_events"
    rmdir "$TFS/instances/$NAME" "$TFS/instances/argus-$dead-other"
    [ "$cleanup_status" = 0 ]
    # only this test's dead pid: another suite's killed recorder may be
    # reaped by the same run
    run sh -c 'printf "%s\n" "$1" | sed "s/: /:\n/2; s/, /\n/g" | grep -e "^argus-record" -e "argus[-_]$2\(-detect\)\?\(/\|$\)"' - "$cleanup_output" "$dead"
    assert_output "argus-record: removed what dead recorders left in /sys/kernel/tracing:
instances/argus-$dead
instances/argus-$dead-detect
argus_$dead/argus_bats_getpid
argus_$dead/argus_bats_getpid_ret"
    [ ! -e "$TFS/instances/argus-$dead" ]
    [ ! -e "$TFS/instances/argus-$dead-detect" ]
    run grep -c "argus_$dead/" "$TFS/uprobe_events"
    assert_output 0
    [ "$left_other" = 1 ]
    [ "$live_instance" = 1 ]
}

@test "every recording first removes what a killed recorder left behind" {
    need_uprobes
    argus-record -q --probes glib -o "$T" -- sleep 30 &
    pid=$!
    for _ in $(seq 100); do grep -q "^p:argus_$pid/" "$TFS/uprobe_events" && break; sleep 0.1; done
    sleep 0.3
    child=$(pgrep -P "$pid" || true) # its sleep 30, ended with it
    kill -KILL "$pid" $child
    wait "$pid" || true
    [ -d "$TFS/instances/argus-$pid" ]
    grep -q "^p:argus_$pid/" "$TFS/uprobe_events"
    run --separate-stderr argus-record --no-probes --duration 0.2 -o "$BATS_TEST_TMPDIR/next.txt"
    assert_success
    [[ "$stderr" == *"argus-record: removed what dead recorders left in /sys/kernel/tracing: instances/argus-$pid, argus_$pid/"* ]]
    [ ! -e "$TFS/instances/argus-$pid" ]
    run grep -c "argus_$pid/" "$TFS/uprobe_events"
    assert_output 0
}
