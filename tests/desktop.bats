#!/usr/bin/env bats
# Linux desktop apps, recorded live with argus-record's uprobes
# on GLib's main loop, GTK 3's, Qt 5's and Tk's input (fixtures/real,
# README.md there: the scenario, the truth, the trace lines). Every test
# here failed before these rules. The tids are the recordings' own
# (fixtures/real/NAME/truth). No root needed.

bats_require_minimum_version 1.5.0
load test_helper
load real_helper

setup_file() {
    unpack gui-dbus qt-dbus gui-worker gui-busy gtk-dialog gtk-dialog-spinner clip-paste tk-dialog qt-dialog
}

@test "DEC-PROBE: GLib's dispatch and poll and GTK's key press decode (gui-dbus)" {
    run sh -c "argus-decode '$R/gui-dbus.txt' | argus-to-json | jq -c 'select(.tid == 25605 and (.type == \"runloop_invoke\" or .type == \"runloop_phase\" or .type == \"ui_event\")) | [.type, .phase // .stage // .kind, .item // .timeout // .key]' | head -6"
    # the default context's dispatch holds the key handler; the private
    # context of g_dbus_connection_call_sync is polled (what is left of
    # its 10 s timeout) and dispatched inside it
    assert_output '["runloop_invoke","begin","0x34cf18f0"]
["ui_event","keyDown",104]
["runloop_phase","before_waiting",9999000000]
["runloop_phase","after_waiting",null]
["runloop_invoke","begin","0x35114740"]
["runloop_invoke","end","0x35114740"]'
    # none of them in an interrupt window (cull-interrupts would mark it)
    run sh -c "argus-decode '$R/gui-dbus.txt' | argus-cull-interrupts | argus-to-json | jq -c 'select((.type == \"runloop_invoke\" or .type == \"runloop_phase\" or .type == \"ui_event\") and .ctx)' | wc -l"
    assert_output '0'
}

@test "SPIN-LOOP: the GTK app's loop 3 s from its wait, chained to the service" {
    diagnose gui-dbus
    run records gui-dbus 'select(.type == "hang") | [.tid, .indicator, .class, .reason, (.duration / 1000000 | floor)]'
    assert_output '[25605,"loop","wait","poll",3021]'
    run records gui-dbus 'select(.type == "path" and .rank == 1) | [.complete, .ui_kind]'
    assert_output '[true,"keyDown"]'
    run records gui-dbus 'select(.type == "wait_chain") | [.tids, .end]'
    assert_output '[[25605,25651,25578,25603,25586],"timeout"]'
    run records gui-dbus 'select(.type == "culprit" and .rank == 1) | [.tid, .state, .reason]'
    assert_output '[25586,"blocked","clock_nanosleep"]'
    # the report names the key press, the loop and the culprit
    run cat "$R/gui-dbus.report"
    assert_line --partial 'keyDown at 13507.243398 s on gtk-dbus-app/main [25605]'
    assert_line --partial 'its main loop did not get back to waiting for events within 2.000 s'
    assert_line --partial '1. slow-dbus-svc/main [25586] (the root cause)'
}

@test "SPIN-LOOP: a Qt 5 app on GLib's loop, chained through QtDBus (qt-dbus)" {
    diagnose qt-dbus
    run records qt-dbus 'select(.type == "hang") | [.tid, .indicator, .class]'
    assert_output '[26373,"loop","wait"]'
    run records qt-dbus 'select(.type == "path" and .rank == 1) | .ui_kind'
    assert_output '"keyDown"'
    run records qt-dbus 'select(.type == "wait_chain") | [.tids, .end]'
    assert_output '[[26373,26433,26313,26362,26331],"timeout"]'
    diagnose qt-dbus --baseline "$R/qt-dbus.normal.txt"
    run records qt-dbus 'select(.type == "culprit") | [.rank, .tid]'
    assert_line --index 0 '[1,26331]'
}

# the report's "What it waits on", from its heading to its Ends line
waits_on() { sed -n '/What it waits on/,/Ends:/p'; }

@test "SPIN-PATH, IPC-MSG: a chain hop an ipc edge explains names the D-Bus reply" {
    diagnose gui-dbus
    # before: "which woke N" at every hop. The reply answers the call's
    # serial 4 (fixtures/real/gui-dbus/README.md, the lines that prove it);
    # the service's main thread numbered it, its gdbus thread wrote it
    run waits_on < "$R/gui-dbus.report"
    assert_output '  What it waits on:
    1. gtk-dbus-app/main [25605]: blocked 3.009 s in poll
    2. gtk-dbus-app/gdbus [25651], which sent 1 a message through an fd: blocked 3.004 s in poll
    3. dbus-daemon/main [25578], which sent 2 a D-Bus method return (serial 6): blocked 3.002 s in
       epoll_wait on fd 3
    4. slow-dbus-svc/gdbus [25603], which sent 3 a D-Bus method return (serial 6): blocked 3.001 s
       in poll
    5. slow-dbus-svc/main [25586], which sent 4 a message through an fd: blocked 3.000 s in
       clock_nanosleep
    Ends: the last thread'"'"'s own timer ended its wait: the sleep or timeout expired.'
    run sh -c "argus-report --format markdown '$R/gui-dbus.findings' | sed -n '/What it waits on/,/Ends:/p'"
    assert_output '### What it waits on

1. gtk-dbus-app/main [25605]: blocked 3.009 s in `poll`
2. gtk-dbus-app/gdbus [25651], which sent 1 a message through an fd: blocked 3.004 s in `poll`
3. dbus-daemon/main [25578], which sent 2 a D-Bus method return (serial 6): blocked 3.002 s in
   `epoll_wait` on fd 3
4. slow-dbus-svc/gdbus [25603], which sent 3 a D-Bus method return (serial 6): blocked 3.001 s in
   `poll`
5. slow-dbus-svc/main [25586], which sent 4 a message through an fd: blocked 3.000 s in
   `clock_nanosleep`

Ends: the last thread'"'"'s own timer ended its wait: the sleep or timeout expired.'
}

@test "SPIN-PATH, IPC-MSG: QtDBus's reply is named; its futex hop stays a wakeup" {
    diagnose qt-dbus
    run waits_on < "$R/qt-dbus.report"
    assert_output '  What it waits on:
    1. qt-dbus-app/main [26373]: blocked 3.020 s in futex on 0x7fab6c0014e0
    2. qt-dbus-app/QDBusConnection [26433], which woke 1: blocked 3.012 s in poll
    3. dbus-daemon/main [26313], which sent 2 a D-Bus method return (serial 7): blocked 3.003 s in
       epoll_wait on fd 3
    4. slow-dbus-svc/gdbus [26362], which sent 3 a D-Bus method return (serial 7): blocked 3.001 s
       in poll
    5. slow-dbus-svc/main [26331], which sent 4 a message through an fd: blocked 3.000 s in
       clock_nanosleep
    Ends: the last thread'"'"'s own timer ended its wait: the sleep or timeout expired.'
}

@test "waits inside a callout are the chain's: handler, worker, server (gui-worker)" {
    diagnose gui-worker
    run records gui-worker 'select(.type == "hang") | [.tid, .indicator, .class, .reason]'
    assert_output '[2715,"loop","wait","futex"]'
    run records gui-worker 'select(.type == "wait_chain") | [.tids, .links, .end]'
    assert_output '[[2715,3034,2690],["wakeup","wakeup"],"timeout"]'
    run records gui-worker 'select(.type == "culprit") | [.rank, .tid, .reason]'
    assert_line --index 0 '[1,2690,"clock_nanosleep"]'
    diagnose gui-worker --baseline "$R/gui-worker.normal.txt"
    run records gui-worker 'select(.type == "culprit" and .rank == 1) | .tid'
    assert_output '2690'
}

@test "SPIN-LOOP: a Tk key handler computing 3 s is one busy hang (gui-busy)" {
    diagnose gui-busy
    run records gui-busy 'select(.type == "hang") | [.tid, .indicator, .class, (.duration / 1000000 | floor)]'
    assert_output '[13660,"loop","busy",3000]'
    run records gui-busy 'select(.type == "path" and .rank == 1) | .ui_kind'
    assert_output '"keyDown"'
    run records gui-busy 'select(.type == "culprit") | [.rank, .tid, .state]'
    assert_output '[1,13660,"busy"]'
}

# SPIN-LOOP's "Answering inside a handler": a nested loop of the app's own
# GLib context answers when it waits with no deadline or draws; one that
# waits on its own timer is the handler waiting (docs/stages/find-spinning.md).
@test "SPIN-LOOP: a modal dialog idle 3 s is no hang; the wait after its answer is (gtk-dialog)" {
    diagnose gtk-dialog
    # the app's one hang is the child it waited for after the answer, from
    # the answer's key (before this rule: the dialog's idle 3 s poll)
    run records gtk-dialog 'select(.type == "hang" and .tid == 6140) | [.indicator, .class, .reason, .begin, .duration]'
    assert_output '["loop","wait","wait4",3040867000,2509482000]'
    run records gtk-dialog 'select(.type == "culprit" and .hang == 0 and .rank == 1) | [.tid, .reason]'
    assert_output '[6200,"clock_nanosleep"]'
    # the normal run: the dialog up 3 s, answered, acted on at once
    diagnose gtk-dialog.normal
    run records gtk-dialog.normal 'select(.type == "hang" and .tid == 6140) | .tid'
    assert_output ''
}

@test "SPIN-LOOP: a dialog that draws its spinner while it waits is answering (gtk-dialog-spinner)" {
    # its loop waits 16 ms on the frame clock and draws (wakes Xvfb) 176
    # times in 3 s: each drawing ends a stretch away
    diagnose gtk-dialog-spinner.normal
    run records gtk-dialog-spinner.normal 'select(.type == "hang" and .tid == 7474) | .tid'
    assert_output ''
    diagnose gtk-dialog-spinner
    run records gtk-dialog-spinner 'select(.type == "hang" and .hang == 0) | [.tid, .indicator, .reason, .duration]'
    assert_output '[7474,"loop","wait4",2509129000]'
}

@test "SPIN-LOOP, DEC-PROBE: Tk's modal dialog idle 3 s is no hang; its wait's Tcl_Time is read (tk-dialog)" {
    # Tcl_WaitForEvent's Tcl_Time: 8 waits with a deadline of 0 (polls),
    # and the dialog's, NULL: no deadline (no timeout key)
    run sh -c "argus-decode '$R/tk-dialog.txt' | argus-to-json | jq -c 'select(.tid == 8622 and .stage == \"before_waiting\") | .timeout' | sort | uniq -c"
    assert_output '      8 0
      1 null'
    diagnose tk-dialog
    run records tk-dialog 'select(.type == "hang" and .hang == 0) | [.tid, .indicator, .class, .reason]'
    assert_output '[8622,"loop","wait","wait4"]'
    run records tk-dialog 'select(.type == "culprit" and .hang == 0 and .rank == 1) | .tid'
    assert_output '8678'
    diagnose tk-dialog.normal
    run records tk-dialog.normal 'select(.type == "hang" and .tid == 8622) | .tid'
    assert_output ''
}

@test "SPIN-LOOP: Qt's QMessageBox idle 3 s, its poll's deadline 24.7 s away, is no hang (qt-dialog)" {
    diagnose qt-dialog
    run records qt-dialog 'select(.type == "hang" and .hang == 0) | [.tid, .indicator, .reason, .duration]'
    assert_output '[7647,"loop","wait4",2502701000]'
    run records qt-dialog 'select(.type == "culprit" and .hang == 0 and .rank == 1) | .tid'
    assert_output '9021'
    diagnose qt-dialog.normal
    run records qt-dialog.normal 'select(.type == "hang" and .tid == 7647) | .tid'
    assert_output ''
}

@test "DEC-PROBE: Tcl_WaitForEvent's Tcl_Time is its deadline; a NULL one is none" {
    cat > "$BATS_TEST_TMPDIR/tcl.txt" <<'EOF'
# argus-thread: tid=700 tgid=700 kernel=0 comm=wish
             wish-700     (    700) [000] DBZff 100.000100: argus_tcl_wait: (0x7f0000000c40) time=0x1000 sec=1 usec=500000
             wish-700     (    700) [000] DBZff 100.000200: argus_tcl_wait: (0x7f0000000c40) time=0x0 sec=0 usec=0
             wish-700     (    700) [000] DBZff 100.000300: argus_tcl_wait: (0x7f0000000c40)
             wish-700     (    700) [000] DBZff 100.000400: argus_tcl_wait: (0x7f0000000c40) time=0x1000 sec=0 usec=2500
EOF
    run sh -c "argus-decode --format ftrace '$BATS_TEST_TMPDIR/tcl.txt' | argus-to-json | jq -c 'select(.type == \"runloop_phase\") | .timeout'"
    assert_output '1500000000
null
null
2500000'
}

@test "SPIN-LOOP, SPIN-PATH: a clipboard wait's nested loop is the handler waiting (clip-paste)" {
    diagnose clip-paste
    # the key's callout, 2.364 s away from the loop's wait: hang 0, the app
    run records clip-paste 'select(.type == "hang" and .hang == 0) | [.tid, .indicator, .class, .duration]'
    assert_output '[13792,"loop","wait",2363783000]'
    # its three polls on GTK's 1 s timer and the one Xvfb woke are one
    # wait: the chain goes on to the stopped owner and the subshell
    run records clip-paste 'select(.type == "wait_chain" and .hang == 0) | [.tids, .waits, .end]'
    assert_output '[[13792,13747,13785,13892],[3,2,1,1],"timeout"]'
    run records clip-paste 'select(.type == "culprit" and .hang == 0 and .rank == 1) | .tid'
    assert_output '13892'
    run grep -c 'Verdict (hang 0): gtk-clip-app/main \[13792\] was blocked 2.357 s in poll' "$R/clip-paste.report"
    assert_output '1'
}

@test "an app idle in its loop is never a hang; the loops watched are said" {
    for n in gui-dbus qt-dbus gui-worker gui-busy; do
        run argus diagnose "$R/$n.normal.txt"
        assert_failure 1
        assert_line 'no hang found'
        assert_line "Linux trace: no GUI program's main loop (of 1 seen) stayed away from its wait 2000 ms or more (--hang MS sets how long, and looks at every program's main thread)."
    done
}

@test "SIM-SIG: timing-only elements are none; the key handlers match (gui-dbus)" {
    diagnose gui-dbus --baseline "$R/gui-dbus.normal.txt"
    # before, the handler's 3 waits more (24 elements against 19) left no
    # candidate within 20%
    run records gui-dbus 'select(.type == "match") | [.seg, .baseline_seg, .distance, .size, .baseline_size]'
    assert_output '[125,127,0,19,19]'
    # the first culprit, the service's main thread, misses the D-Bus reply
    # it sent in the normal run (its ipc via dbus)
    run records gui-dbus 'select(.type == "culprit") | [.rank, .tid, .missing]'
    assert_line --index 0 '[1,25586,"ipc"]'
    diagnose gui-busy --baseline "$R/gui-busy.normal.txt"
    run records gui-busy 'select(.type == "match") | [.seg, .baseline_seg, .distance, .size, .baseline_size]'
    assert_output '[73,69,0,3,3]'
}

# ---- D-Bus: hand-written excerpts, fixtures/ftrace/dbus-*.txt ----

# dbus_ipc FILE: the ipc events of fixtures/ftrace/FILE decoded, and the
# edges link-ipc adds, as compact JSON lines
dbus_ipc() {
    argus-decode --format ftrace "$ARGUS_ROOT/fixtures/ftrace/$1" | argus-link-ipc | argus-to-json |
        jq -c 'select(.type == "ipc" or .type == "edge") | del(.ts, .cpu)'
}

@test "IPC-MSG, IPC-REPLY: GDBus app, dbus-daemon and service hops as ipc via dbus" {
    run dbus_ipc dbus-gdbus.txt
    assert_success
    # the app's call (serial 57, main thread), the daemon's receipt
    # (set_sender :1.3) and forward (send_preallocated), the service's
    # gdbus thread receiving it, the service's reply (serial 61, answering
    # 57), the daemon's receipt and forward, the app's gdbus thread
    # receiving it; the daemon's get_reply_serial lines and the service's
    # set_reply_serial make no event, and the daemon's sendmsg that wakes
    # the service's poll makes no socket ipc (the D-Bus pair wins). Every
    # hop of a message has its sender's serial: the daemon forwards it as
    # it is
    assert_output '{"type":"ipc","id":4,"tid":26282,"pid":26282,"dir":"send","msg":"0x1","reply_port":"0xdb50000000000001","via":"dbus","serial":57,"dbus_type":"method_call"}
{"type":"ipc","id":5,"tid":26272,"pid":26272,"dir":"recv","msg":"0x1","peer":26282,"via":"dbus","serial":57,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":4,"to":5}
{"type":"ipc","id":6,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000001","msg":"0x2","reply_port":"0xdb50000000000002","via":"dbus","serial":57,"dbus_type":"method_call"}
{"type":"edge","kind":"reply","from":5,"to":6}
{"type":"ipc","id":12,"tid":26279,"pid":26274,"dir":"recv","msg":"0x2","peer":26272,"via":"dbus","serial":57,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":6,"to":12}
{"type":"ipc","id":13,"tid":26274,"pid":26274,"dir":"send","port":"0xdb50000000000002","msg":"0x3","reply_port":"0xdb50000000000003","via":"dbus","serial":61,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":12,"to":13}
{"type":"ipc","id":14,"tid":26272,"pid":26272,"dir":"recv","msg":"0x3","peer":26274,"via":"dbus","serial":61,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":13,"to":14}
{"type":"ipc","id":15,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000003","msg":"0x4","via":"dbus","serial":61,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":14,"to":15}
{"type":"ipc","id":16,"tid":26295,"pid":26282,"dir":"recv","msg":"0x4","peer":26272,"via":"dbus","serial":61,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":15,"to":16}'
    # the whole decode, line by line
    run --separate-stderr bash -c "set -o pipefail; argus-decode --format ftrace fixtures/ftrace/dbus-gdbus.txt | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/ftrace/dbus-gdbus.expected.jsonl)"
}

@test "IPC-MSG, IPC-REPLY: dbus-send's Hello, the daemon's reply, libdbus receipts" {
    run dbus_ipc dbus-libdbus.txt
    assert_success
    # Hello (serial 1): received once though stamped ":not.active.yet"
    # then ":1.5"; the daemon's reply to it (sender org.freedesktop.DBus,
    # its own set_serial: ftrace events) answers the receipt; dbus-send's
    # second get_reply_serial of the reply is no second receipt. Then the
    # call (serial 2) to the service and its reply (58), forwarded to the
    # connection dbus-send received the Hello reply on: its peer is known
    assert_output '{"type":"ipc","id":1,"tid":31261,"pid":31261,"dir":"send","msg":"0x1","reply_port":"0xdb50000000000001","via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"ipc","id":2,"tid":26272,"pid":26272,"dir":"recv","msg":"0x1","peer":31261,"via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":1,"to":2}
{"type":"ipc","id":5,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000001","msg":"0x2","via":"dbus","serial":1,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":2,"to":5}
{"type":"ipc","id":6,"tid":31261,"pid":31261,"dir":"recv","msg":"0x2","peer":26272,"via":"dbus","serial":1,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":5,"to":6}
{"type":"ipc","id":7,"tid":31261,"pid":31261,"dir":"send","msg":"0x3","reply_port":"0xdb50000000000002","via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"ipc","id":8,"tid":26272,"pid":26272,"dir":"recv","msg":"0x3","peer":31261,"via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":7,"to":8}
{"type":"ipc","id":9,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000002","msg":"0x4","reply_port":"0xdb50000000000003","via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"edge","kind":"reply","from":8,"to":9}
{"type":"ipc","id":10,"tid":26279,"pid":26274,"dir":"recv","msg":"0x4","peer":26272,"via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":9,"to":10}
{"type":"ipc","id":11,"tid":26274,"pid":26274,"dir":"send","port":"0xdb50000000000003","msg":"0x5","reply_port":"0xdb50000000000004","via":"dbus","serial":58,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":10,"to":11}
{"type":"ipc","id":12,"tid":26272,"pid":26272,"dir":"recv","msg":"0x5","peer":26274,"via":"dbus","serial":58,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":11,"to":12}
{"type":"ipc","id":13,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000004","msg":"0x6","peer":31261,"via":"dbus","serial":58,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":12,"to":13}
{"type":"ipc","id":14,"tid":31261,"pid":31261,"dir":"recv","msg":"0x6","peer":26272,"via":"dbus","serial":58,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":13,"to":14}'
    run --separate-stderr bash -c "set -o pipefail; argus-decode --format ftrace fixtures/ftrace/dbus-libdbus.txt | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/ftrace/dbus-libdbus.expected.jsonl)"
}

@test "IPC-MSG, IPC-REPLY: one process with two unique names pairs each connection" {
    run dbus_ipc dbus-two-names.txt
    assert_success
    # two-conn-app calls the bus on its GDBus connection (serial 5, stamped
    # :1.3: its first name), then opens a libdbus one: its Hello (serial 1)
    # is stamped :not.active.yet, then :1.7, its second name; dbus-send's
    # Hello, sent just after, becomes :1.8. Each calls the bus on it
    # (serial 2, stamped :1.7 and :1.8); the app calls again on its first
    # connection (serial 6, :1.3). Before, the app's Hello went to
    # dbus-send (recv peer 31261, edge 8 -> 9: the only pending serial 1
    # of a process with no name), :1.7 was learnt as dbus-send's, the
    # daemon's answer to the app's Hello went to dbus-send's port, the
    # app's call on :1.7 was paired with dbus-send's (edge 20 -> 21), and
    # dbus-send's Hello and call were left unmatched (ftrace events). Last,
    # a call of the app stamped :1.9, a third connection whose Hello the
    # trace lacks: the app has other names, so the daemon's receipt is not
    # paired with its send (it stays an ftrace event) rather than guessed
    assert_output '{"type":"ipc","id":1,"tid":27100,"pid":27100,"dir":"send","msg":"0x1","reply_port":"0xdb50000000000001","via":"dbus","serial":5,"dbus_type":"method_call"}
{"type":"ipc","id":2,"tid":26272,"pid":26272,"dir":"recv","msg":"0x1","peer":27100,"via":"dbus","serial":5,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":1,"to":2}
{"type":"ipc","id":5,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000001","msg":"0x2","via":"dbus","serial":10,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":2,"to":5}
{"type":"ipc","id":6,"tid":27105,"pid":27100,"dir":"recv","msg":"0x2","peer":26272,"via":"dbus","serial":10,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":5,"to":6}
{"type":"ipc","id":7,"tid":27100,"pid":27100,"dir":"send","msg":"0x3","reply_port":"0xdb50000000000002","via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"ipc","id":8,"tid":31261,"pid":31261,"dir":"send","msg":"0x4","reply_port":"0xdb50000000000003","via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"ipc","id":9,"tid":26272,"pid":26272,"dir":"recv","msg":"0x3","peer":27100,"via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":7,"to":9}
{"type":"ipc","id":12,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000002","msg":"0x5","via":"dbus","serial":11,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":9,"to":12}
{"type":"ipc","id":13,"tid":26272,"pid":26272,"dir":"recv","msg":"0x4","peer":31261,"via":"dbus","serial":1,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":8,"to":13}
{"type":"ipc","id":16,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000003","msg":"0x6","via":"dbus","serial":12,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":13,"to":16}
{"type":"ipc","id":17,"tid":27100,"pid":27100,"dir":"recv","msg":"0x5","peer":26272,"via":"dbus","serial":11,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":12,"to":17}
{"type":"ipc","id":18,"tid":31261,"pid":31261,"dir":"recv","msg":"0x6","peer":26272,"via":"dbus","serial":12,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":16,"to":18}
{"type":"ipc","id":19,"tid":27100,"pid":27100,"dir":"send","msg":"0x7","reply_port":"0xdb50000000000004","via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"ipc","id":20,"tid":31261,"pid":31261,"dir":"send","msg":"0x8","reply_port":"0xdb50000000000005","via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"ipc","id":21,"tid":26272,"pid":26272,"dir":"recv","msg":"0x7","peer":27100,"via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":19,"to":21}
{"type":"ipc","id":24,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000004","msg":"0x9","peer":27100,"via":"dbus","serial":13,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":21,"to":24}
{"type":"ipc","id":25,"tid":26272,"pid":26272,"dir":"recv","msg":"0x8","peer":31261,"via":"dbus","serial":2,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":20,"to":25}
{"type":"ipc","id":28,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000005","msg":"0xa","peer":31261,"via":"dbus","serial":14,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":25,"to":28}
{"type":"ipc","id":29,"tid":27100,"pid":27100,"dir":"recv","msg":"0x9","peer":26272,"via":"dbus","serial":13,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":24,"to":29}
{"type":"ipc","id":30,"tid":31261,"pid":31261,"dir":"recv","msg":"0xa","peer":26272,"via":"dbus","serial":14,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":28,"to":30}
{"type":"ipc","id":31,"tid":27100,"pid":27100,"dir":"send","msg":"0xb","reply_port":"0xdb50000000000006","via":"dbus","serial":6,"dbus_type":"method_call"}
{"type":"ipc","id":32,"tid":26272,"pid":26272,"dir":"recv","msg":"0xb","peer":27100,"via":"dbus","serial":6,"dbus_type":"method_call"}
{"type":"edge","kind":"ipc","from":31,"to":32}
{"type":"ipc","id":35,"tid":26272,"pid":26272,"dir":"send","port":"0xdb50000000000006","msg":"0xc","peer":27100,"via":"dbus","serial":15,"dbus_type":"method_return"}
{"type":"edge","kind":"reply","from":32,"to":35}
{"type":"ipc","id":36,"tid":27105,"pid":27100,"dir":"recv","msg":"0xc","peer":26272,"via":"dbus","serial":15,"dbus_type":"method_return"}
{"type":"edge","kind":"ipc","from":35,"to":36}
{"type":"ipc","id":37,"tid":27100,"pid":27100,"dir":"send","msg":"0xd","reply_port":"0xdb50000000000007","via":"dbus","serial":7,"dbus_type":"method_call"}'
    run --separate-stderr bash -c "set -o pipefail; argus-decode --format ftrace fixtures/ftrace/dbus-two-names.txt | argus-to-json"
    assert_success
    assert_output "$(cat fixtures/ftrace/dbus-two-names.expected.jsonl)"
    # read from a pipe, the same events
    run bash -c "set -o pipefail; cat fixtures/ftrace/dbus-two-names.txt | argus-decode --format ftrace | argus-to-json | jq -c 'select(.id)'"
    assert_success
    assert_output "$(jq -c 'select(.id)' fixtures/ftrace/dbus-two-names.expected.jsonl)"
}

@test "IPC-MSG: D-Bus read from a pipe knows the daemon by its name: same events" {
    run bash -c "set -o pipefail; cat fixtures/ftrace/dbus-gdbus.txt | argus-decode --format ftrace | argus-to-json | jq -c 'select(.id)'"
    assert_success
    assert_output "$(jq -c 'select(.id)' fixtures/ftrace/dbus-gdbus.expected.jsonl)"
}

# dbus_chain NAME: the D-Bus ipc events of NAME's hang as [tid, dir, peer],
# then the link-ipc edges between them as [kind, from's tid, to's tid]
dbus_chain() {
    argus-decode "$R/$1.txt" | argus-link-ipc | argus-to-json | jq -c -s '
        [.[] | select(.via == "dbus")] as $d
        | ($d | map({key: (.id | tostring), value: .tid}) | from_entries) as $tid
        | ($d[] | [.tid, .dir, .peer]),
          (.[] | select(.type == "edge" and $tid[.from | tostring] and $tid[.to | tostring])
               | [.kind, $tid[.from | tostring], $tid[.to | tostring]])'
}

@test "IPC-MSG, IPC-REPLY: a live GDBus call joined across three processes" {
    run dbus_chain gui-dbus
    assert_success
    # app main 25605 -> dbus-daemon 25578 -> service gdbus 25603; the
    # service's main thread 25586 replies -> dbus-daemon -> app gdbus 25651
    assert_output '[25605,"send",null]
[25578,"recv",25605]
[25578,"send",null]
[25603,"recv",25578]
[25586,"send",null]
[25578,"recv",25586]
[25578,"send",null]
[25651,"recv",25578]
["ipc",25605,25578]
["reply",25578,25578]
["ipc",25578,25603]
["reply",25603,25586]
["ipc",25586,25578]
["reply",25578,25578]
["ipc",25578,25651]'
}

@test "IPC-MSG, IPC-REPLY: a live QtDBus call; its unsent timeout error makes none" {
    run dbus_chain qt-dbus
    assert_success
    # QDBusConnection 26433 (pid 26373) -> dbus-daemon 26313 -> service
    # gdbus 26362; the service's main thread 26331 replies
    assert_output '[26433,"send",null]
[26313,"recv",26373]
[26313,"send",null]
[26362,"recv",26313]
[26331,"send",null]
[26313,"recv",26331]
[26313,"send",null]
[26433,"recv",26313]
["ipc",26433,26313]
["reply",26313,26313]
["ipc",26313,26362]
["reply",26362,26331]
["ipc",26331,26313]
["reply",26313,26313]
["ipc",26313,26433]'
}

@test "D-Bus messages in flight are bounded at 1,024; the oldest dropped, counted" {
    {
        echo '# argus-thread: tid=700 tgid=700 kernel=0 comm=app'
        for i in $(seq 1 1030); do
            printf '             app-700     (    700) [000] DBZff 100.%06d: argus_gd_set_serial: (0x7f0000000c40) msg=0x1000 serial=%d type=1\n' "$i" "$i"
        done
    } > "$BATS_TEST_TMPDIR/sends.txt"
    run --separate-stderr bash -c "argus-decode -v --format ftrace '$BATS_TEST_TMPDIR/sends.txt' | argus-to-json | jq -c 'select(.via == \"dbus\")' | wc -l"
    assert_output 1030
    [[ "$stderr" == *"  1030 ipc events of D-Bus messages (via dbus)"* ]]
    [[ "$stderr" == *"  6 D-Bus messages dropped unmatched from a full pending table"* ]]
}
