#!/usr/bin/env bats
# argus-watch (docs/stages/watch.md): its rules on real recordings replayed
# (--replay: the same detection and reports as live, with no root), its
# command line, and, as root, that it leaves tracefs as it found it. The
# live hang runs are tests/live/watch.bats (make live).

load test_helper

setup() {
    D=$BATS_TEST_TMPDIR/hangs
    NOTIFY_DIR=
}

teardown() {
    [ -z "$NOTIFY_DIR" ] || rm -rf "$NOTIFY_DIR"
}

real() { echo "$ARGUS_ROOT/fixtures/real/$1/$2.txt.gz"; }

@test "WATCH-LOOP, WATCH-REPORT: a 3 s D-Bus call is one line and one folder" {
    run argus-watch --no-notify --replay "$(real gui-dbus hang)" --dir "$D"
    assert_success
    assert_output "13507.243398 s  gtk-dbus-app [25605]  gtk-dbus-app/main [25605] was blocked 3.009 s in poll, waiting over D-Bus on slow-dbus-svc/main [25586] (through 3 other threads), which slept 3.000 s in clock_nanosleep; the keyDown at 13507.243398 s started it.  ($D/t13507-gtk-dbus-app-25605)
argus-watch: 1 hangs reported, 0 not confirmed; 42978 events"
    run ls "$D/t13507-gtk-dbus-app-25605"
    assert_output "diagnose.log
report.html
report.txt
trace.txt.gz"
    f=$D/t13507-gtk-dbus-app-25605
    # the trace began 0.07 s before the hang: the report says what the
    # window misses, then argus diagnose's report
    run head -5 "$f/report.txt"
    assert_output "argus watch: the trace held events from 13507.171125 s on only: the 2.928 s of the window before it are missing (the ring's size is --buffer-mb).
Verdict: gtk-dbus-app/main [25605] was blocked 3.009 s in poll, waiting over D-Bus on
slow-dbus-svc/main [25586] (through 3 other threads), which slept 3.000 s in clock_nanosleep; the
keyDown at 13507.243398 s started it. Culprit: slow-dbus-svc/main [25586], the thread at the end
of that wait."
    # the window: the header, then events up to the hang's end + 0.5 s (here
    # the trace's end, 3 ms after the hang's)
    run sh -c "zcat '$f/trace.txt.gz' | grep -v '^#' | tail -1 | grep -o ' [0-9]*\.[0-9]*: '"
    assert_output " 13510.268767: "
    run sh -c "zcat '$f/trace.txt.gz' | grep -c '^# argus-thread:'"
    assert_output 130
    grep -q 'id="timelines"' "$f/report.html"
    run cat "$f/diagnose.log"
    assert_output ""
}

@test "WATCH-LOOP: a clipboard wait is the app's hang; a dialog up 3 s none, the wait after its answer one" {
    # clip-paste: GTK's wait_for_text polls on its 1 s timer in a nested
    # loop of the app's own context: the app's line comes first
    run argus-watch -q --no-notify --replay "$(real clip-paste hang)" --dir "$D"
    assert_success
    assert_line --index 0 --partial '  gtk-clip-app [13792]  gtk-clip-app/main [13792] was blocked 2.357 s in poll, waiting on stall/main [13892] (through 2 other threads)'
    # the dialogs' nested loops wait with no deadline, or draw a spinner;
    # the hang after the answer: the window begins inside the key's
    # callout, so its wait4 is a segment's final wait, the hang node's
    run argus-watch -q --no-notify --replay "$(real gtk-dialog hang)" --dir "$D"
    assert_success
    assert_output --partial '  gtk-dialog-app [6140]  gtk-dialog-app/main [6140] was blocked 2.501 s in wait4, waiting on sleep/main [6200]'
    for name in gtk-dialog gtk-dialog-spinner tk-dialog qt-dialog; do
        run argus-watch -q --no-notify --replay "$(real $name normal)" --dir "$D"
        assert_success
        assert_output ""
    done
}

@test "WATCH-REPORT: no hang, no line and no folder" {
    run argus-watch --no-notify --replay "$(real gui-dbus normal)" --dir "$D"
    assert_success
    assert_output "argus-watch: 0 hangs reported, 0 not confirmed; 2131 events"
    run ls -A "$D"
    assert_output ""
}

@test "WATCH-SCOPE: a program no GUI or --proc names is not watched" {
    run argus-watch -q --no-notify --replay "$(real wait-child hang)" --dir "$D"
    assert_success
    assert_output ""
    run argus-watch -q --no-notify --proc gz-waiter --replay "$(real wait-child hang)" --dir "$D"
    assert_success
    assert_output --regexp "^[0-9-]+ [0-9:]+  gz-waiter \[9463\]  gz-waiter/main \[9463\] was blocked [0-9.]+ s in wait4, waiting on gzip/main \[9473\].*  \($D/[0-9]{8}-[0-9]{6}-gz-waiter-9463\)$"
}

@test "WATCH-SCOPE: --proc hang.sh watches bash ./hang.sh, known by its command line" {
    # shell-script: `bash ./hang.sh` (comm bash) waits 2 s on a fifo; the
    # trace's `# argus-cmdline:` line names the script
    run argus-watch -q --no-notify --replay "$(real shell-script hang)" --dir "$D"
    assert_success
    assert_output ""
    run argus-watch -q --no-notify --proc hang.sh --replay "$(real shell-script hang)" --dir "$D"
    assert_success
    assert_output --regexp "^[0-9-]+ [0-9:]+  bash \[14653\]  bash/main \[14653\] was blocked 2\.000 s in pselect6, waiting on reply-writer/main \[14793\], which slept 1\.999 s in clock_nanosleep; no UI event was found that led to it\.  \($D/[0-9]{8}-[0-9]{6}-bash-14653\)$"
}

@test "WATCH-RETRY: a busy handler sleeping 34 times is one hang, one report" {
    run argus-watch -q --no-notify --proc sqlite3 --replay "$(real sqlite-poll hang)" --dir "$D"
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_output --partial "  sqlite3 [28121]  sqlite3/main [28121] was blocked "
}

@test "WATCH-BUSY: an Xlib app computing 3 s in its key handler is found" {
    run argus-watch -q --no-notify --replay "$(real x11-busy hang)" --dir "$D"
    assert_success
    assert_equal "${#lines[@]}" 1
    assert_output --partial "  x11-busy-app [10408]  x11-busy-app/main [10408] ran 3."
}

@test "WATCH-CAP: a hang past --max-hang is diagnosed then, once, marked cut" {
    run argus-watch -q --no-notify --max-hang 2500 --replay "$(real gui-dbus hang)" --dir "$D"
    assert_success
    assert_equal "${#lines[@]}" 1
    run sed -n 2p "$D/t13507-gtk-dbus-app-25605/report.txt"
    assert_output "argus watch: the hang was still going at 13509.743398 s, 2.500 s after it began; this report covers it up to there."
    run sh -c "zcat '$D/t13507-gtk-dbus-app-25605/trace.txt.gz' | grep -v '^#' | tail -1 | grep -o ' [0-9]*\.[0-9]*: '"
    assert_output " 13509.743023: "
}

@test "argus-watch: bad values exit 64; a replayed file with no event line 65" {
    run argus-watch --hang x
    assert_failure 64
    assert_output "argus-watch: --hang: 'x' is not a number
Try 'argus-watch --help' for more information."
    run argus-watch --replay x.txt extra
    assert_failure 64
    assert_line --index 0 "argus-watch: unexpected argument 'extra' (argus-watch takes no command)"
    echo '{"type":"stream"}' > "$BATS_TEST_TMPDIR/x.json"
    run argus-watch --replay "$BATS_TEST_TMPDIR/x.json" --dir "$D"
    assert_failure 65
    assert_output "argus-watch: $BATS_TEST_TMPDIR/x.json: no event line (argus-watch --replay reads ftrace text, as argus-record writes it)"
    run argus watch --help
    assert_success
    assert_line --index 0 "Usage: argus-watch [OPTIONS]"
}

@test "WATCH-EVENTS: argus-watch live stops at --duration and leaves nothing" {
    [ "$(id -u)" = 0 ] || skip "argus-watch needs root"
    grep -qw tracefs /proc/filesystems || skip "no tracefs"
    local name=argus-watch-test-$$ pid status=0
    argus-watch --no-notify --instance "$name" --duration 1 --dir "$D" 2> "$BATS_TEST_TMPDIR/err" &
    pid=$!
    wait $pid || status=$?
    [ $status = 0 ]
    run cat "$BATS_TEST_TMPDIR/err"
    assert_line --index 0 --regexp "^argus-watch: watching \(instance $name, [0-9]+ events enabled, [0-9]+ probes\); folders in $D$"
    assert_line --index 1 --regexp "^argus-watch: 0 hangs reported, 0 not confirmed; [0-9]+ events \([0-9]+ lost\); stopped by --duration$"
    local tracefs=/sys/kernel/tracing
    [ -d $tracefs/instances ] || tracefs=/sys/kernel/debug/tracing
    [ ! -e "$tracefs/instances/$name" ]
    [ ! -e "$tracefs/instances/$name-detect" ]
    run grep -c "argus_$pid/" "$tracefs/uprobe_events"
    assert_output 0
}

@test "WATCH-REPORT: each session's user is notified of the program and folder" {
    [ "$(id -u)" = 0 ] || skip "switching to the session's user needs root"
    local t uid
    uid=$(id -u nobody) || skip "no user nobody"
    # a folder the user nobody can reach (the test's own is root's alone)
    t=$(mktemp -d /tmp/argus-notify.XXXXXX)
    NOTIFY_DIR=$t
    chmod 777 "$t"
    mkdir -p "$t/run/$uid"
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$t/run/$uid/bus"
    printf '#!/bin/sh\n{ id -u; echo "$DBUS_SESSION_BUS_ADDRESS"; printf "%%s|" "$@"; echo; } > %s/notified\n' "$t" > "$t/notify-send"
    chmod 755 "$t/notify-send"
    ARGUS_NOTIFY_SEND=$t/notify-send ARGUS_RUNTIME_DIR=$t/run \
        run argus-watch -q --notify --replay "$(real gui-dbus hang)" --dir "$D"
    assert_success
    run cat "$t/notified"
    assert_output "$uid
unix:path=$t/run/$uid/bus
-a|argus|gtk-dbus-app [25605] hung|gtk-dbus-app/main [25605] was blocked 3.009 s in poll, waiting over D-Bus on slow-dbus-svc/main [25586] (through 3 other threads), which slept 3.000 s in clock_nanosleep; the keyDown at 13507.243398 s started it.
$D/t13507-gtk-dbus-app-25605|"
}
