#!/usr/bin/env bats
# One real hang recorded both ways at once. argus-record
# traces the run of fixtures/perfdata/record.sh (the perf record command of
# docs/inputs/perf.md), which runs tests/live/hang-demo.c; argus diagnose
# of the perf.data must name the hang thread, its wait and the culprit that
# argus diagnose of argus-record's text names. Needs root, tracefs, perf
# and cc: skips without them. Timing decides a live run: `make live` runs
# it (tests/live/live.sh), `make test` does not (bats reads tests/ only,
# not tests/live/). tests/decode-perfdata.bats checks a committed
# recording made this way.

load ../test_helper

why_not_live() {
    if [ "$(id -u)" != 0 ]; then
        echo "recording with tracefs and perf needs root"
    elif ! grep -qw tracefs /proc/filesystems; then
        echo "this kernel has no tracefs"
    elif ! command -v perf > /dev/null || ! perf version > /dev/null 2>&1; then
        echo "no working perf (apt-get install linux-perf)"
    elif ! command -v cc > /dev/null; then
        echo "building tests/live/hang-demo.c needs cc"
    fi
}

setup_file() {
    local dir=$BATS_FILE_TMPDIR reason status=0
    reason=$(why_not_live)
    if [ -n "$reason" ]; then
        echo "$reason" > "$dir/skip"
        return 0
    fi
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -pthread \
        -o "$dir/hang-demo" "$ARGUS_ROOT/tests/live/hang-demo.c"
    argus-record --buffer-mb 64 -o "$dir/hang.txt" -- \
        "$ARGUS_ROOT/fixtures/perfdata/record.sh" "$dir/hang.data" "$dir/hang-demo" --work 1000 \
        > "$dir/record.out" 2>&1 || status=$?
    echo "$status" > "$dir/record.status"
    if [ "$status" = 69 ]; then
        cat "$dir/record.out" > "$dir/skip"
        return 0
    fi
    for f in hang.txt hang.data; do
        status=0
        argus diagnose --hang 500 --proc hangui "$dir/$f" > "$dir/$f.report" 2>&1 || status=$?
        echo "$status" > "$dir/$f.status"
    done
}

setup() {
    [ ! -e "$BATS_FILE_TMPDIR/skip" ] || skip "$(cat "$BATS_FILE_TMPDIR/skip")"
    D=$BATS_FILE_TMPDIR
}

# verdict FILE: the report's verdict paragraph on one line, its durations
# of running (which the two clocks measure apart) cut out
verdict() {
    sed -n '1,/^$/p' "$1" | tr '\n' ' ' | sed 's/which was running [0-9.]* m\{0,1\}s on the CPU/which was running ... on the CPU/'
}

@test "live: argus-record around perf record of hang-demo; both diagnoses succeed" {
    run cat "$D/record.status" "$D/hang.txt.status" "$D/hang.data.status"
    assert_output "0
0
0"
    [ -s "$D/hang.data" ]
}

@test "live: the perf.data's verdict names argus-record's thread, wait and culprit" {
    run verdict "$D/hang.data.report"
    assert_output --regexp '^Verdict: hangui/main \[[0-9]+\] was blocked [0-9.]+ (ms|s) in read on fd [0-9]+, waiting on hangsvc/cruncher \[[0-9]+\] .*Culprit: hangsvc/cruncher \[[0-9]+\]'
    assert_output "$(verdict "$D/hang.txt.report")"
}
