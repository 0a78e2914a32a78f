#!/usr/bin/env bats
# argus-watch live (docs/stages/watch.md): the gui-dbus scenario (a GTK 3
# app whose key handler makes a D-Bus call to a service that sleeps 3 s;
# tests/live/scenarios/gui-dbus.sh) run with WATCH_MODE=1: argus-watch is
# started, key n (the service answers at once), key h (the hang). Root,
# tracefs, Xvfb, dbus and python3-gi, else skipped. Run by make live.

load ../test_helper

setup() {
    [ "$(id -u)" = 0 ] || skip "argus-watch needs root"
    grep -qw tracefs /proc/filesystems || skip "no tracefs"
    export PATH="$ARGUS_BIN:$PATH"
    OUT=$BATS_TEST_TMPDIR/out
}

# run_watched [ENV...]: the scenario with argus-watch; skips when it cannot
# run here
run_watched() {
    local status=0
    env "$@" WATCH_MODE=1 timeout 600 "$ARGUS_ROOT/tests/live/scenarios/gui-dbus.sh" "$OUT" \
        > "$BATS_TEST_TMPDIR/log" 2>&1 || status=$?
    [ $status != 77 ] || skip "$(tail -1 "$BATS_TEST_TMPDIR/log")"
    [ $status = 0 ] || { cat "$BATS_TEST_TMPDIR/log"; return 1; }
}

# check_one_report: exactly one line and one folder, the app's hang, whose
# report names the service first; tracefs as it was
check_one_report() {
    local app service folder
    app=$(sed -n 's/^hang=\([0-9]*\) .*/\1/p' "$OUT/truth")
    service=$(sed -n 's/^culprit=\([0-9]*\) .*/\1/p' "$OUT/truth")
    run cat "$OUT/watch.lines"
    [ "${#lines[@]}" = 1 ] || { cat "$OUT/watch.err"; false; }
    [[ "${lines[0]}" == *"  gtk-dbus-app [$app]  gtk-dbus-app/main [$app] was blocked "*" waiting over D-Bus on slow-dbus-svc/main [$service]"* ]]
    folder=$(ls -d "$OUT"/watch/*-gtk-dbus-app-"$app")
    [ "$(ls "$OUT/watch" | wc -l)" = 1 ]
    [ -s "$folder/trace.txt.gz" ] && [ -s "$folder/report.html" ]
    tr '\n' ' ' < "$folder/report.txt" | grep -q "Culprit: slow-dbus-svc/main \[$service\]"
    grep -q "^argus-watch: 1 hangs reported, " "$OUT/watch.err"
    diff "$OUT/tracefs.before" "$OUT/tracefs.after"
}

@test "WATCH-LOOP, WATCH-REPORT: one report of a GTK app's D-Bus hang, tracefs restored" {
    run_watched
    check_one_report
}

@test "WATCH-LOOP, WATCH-REPORT: the same one report with the CPUs loaded" {
    run_watched LOAD_CPU=2
    check_one_report
}
