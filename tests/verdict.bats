#!/usr/bin/env bats
# The report opens with its verdict (docs/stages/report.md, "The verdict"):
# one or two sentences that name the hung thread, what it waited on, the
# UI event that started it and the culprit, in plain words; then the
# baseline it compared with, or why none. Checked against the truth of
# every real recording (fixtures/real/NAME/truth) and of the hand-written
# diagnoses (fixtures/diagnose/*.truth, fixtures/demo/hang.truth). No root
# needed.

bats_require_minimum_version 1.5.0

load test_helper
load real_helper

setup_file() {
    local d
    for d in "$ARGUS_ROOT"/fixtures/real/*/; do
        unpack "$(basename "$d")"
    done
}

# verdict REPORT: the first hang's verdict paragraph of REPORT, on one line
verdict() {
    awk 'NR == 1 && !/^(\*\*)?Verdict/ { exit }
         NR > 1 && (/^$/ || /^(\*\*)?(Verdict|Baseline)/) { exit }
         { printf "%s%s", (NR > 1 ? " " : ""), $0 } END { print "" }' "$1"
}

# label TRUTH KEY: "PROC/NAME [TID]" of each KEY=TID PROC/NAME line of TRUTH
label() { sed -n "s/^$2=\([0-9]*\) \(.*\)/\2 [\1]/p" "$1"; }

# judge NAME VERDICT TRUTH: the verdict names the truth's hang thread first
# and one of its culprits after "Culprit: "; prints what is wrong
judge() {
    local name=$1 v=$2 truth=$3 hang c ok=no
    hang=$(label "$truth" hang)
    case "$v" in "Verdict: $hang "*|"Verdict (hang 0): $hang "*) ;; *)
        echo "$name: the verdict does not open with the hang $hang: $v"; return ;;
    esac
    while read -r c; do
        case "$v" in *"Culprit: $c"*) ok=yes ;; esac
    done < <(label "$truth" culprit)
    [ $ok = yes ] || echo "$name: the verdict names no culprit of the truth's: $v"
}

# A truth with an open= line is a case argus is not right on yet (make
# accuracy counts it wrong): left out here.
@test "every real recording's verdict names its truth's hung thread and culprit" {
    local d n truth proc wrong=""
    for d in "$ARGUS_ROOT"/fixtures/real/*/; do
        n=$(basename "$d")
        truth=$d/truth
        grep -q '^open=' "$truth" && continue
        proc=$(sed -n 's/^proc=//p' "$truth")
        argus diagnose ${proc:+--proc "$proc"} --baseline "$R/$n.normal.txt" "$R/$n.txt" > "$R/$n.base.report"
        argus diagnose ${proc:+--proc "$proc"} "$R/$n.txt" > "$R/$n.alone.report"
        wrong+=$(judge "$n (with its baseline)" "$(verdict "$R/$n.base.report")" "$truth")
        wrong+=$(judge "$n (alone)" "$(verdict "$R/$n.alone.report")" "$truth")
    done
    [ -z "$wrong" ] || { echo "$wrong"; false; }
}

# With no flag at all, as a new user first runs it: the recordings hold
# the usual daemons, and several a CPU hog or a compile beside the
# program (SPIN-ORDER's tiers, SPIN-IDLE, DEC-LAUNCHED, DEC-PARENT).
@test "SPIN-ORDER: with no flag, every real recording's verdict names its truth" {
    local d n truth wrong=""
    for d in "$ARGUS_ROOT"/fixtures/real/*/; do
        n=$(basename "$d")
        truth=$d/truth
        grep -q '^open=' "$truth" && continue
        argus diagnose "$R/$n.txt" > "$R/$n.noflag.report"
        wrong+=$(judge "$n (no flag)" "$(verdict "$R/$n.noflag.report")" "$truth")
    done
    [ -z "$wrong" ] || { echo "$wrong"; false; }
}

@test "every hand-written diagnosis and the demo name their truth's thread, culprit" {
    local truth bug base wrong=""
    for truth in "$ARGUS_ROOT"/fixtures/diagnose/*.truth "$ARGUS_ROOT"/fixtures/demo/hang.truth; do
        bug=${truth%.truth}.bug.jsonl base=${truth%.truth}.base.jsonl
        [ -f "$bug" ] || { bug=${truth%.truth}.jsonl; base=$(dirname "$truth")/normal.jsonl; }
        argus diagnose --baseline "$base" "$bug" > "$R/hw.report"
        wrong+=$(judge "$(basename "$truth")" "$(verdict "$R/hw.report")" "$truth")
    done
    [ -z "$wrong" ] || { echo "$wrong"; false; }
}

@test "gui-dbus: the verdict tells the D-Bus wait, the sleeper and the key press" {
    argus diagnose --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gd.report"
    run verdict "$R/gd.report"
    assert_output "Verdict: gtk-dbus-app/main [25605] was blocked 3.009 s in poll, waiting over D-Bus on slow-dbus-svc/main [25586] (through 3 other threads), which slept 3.000 s in clock_nanosleep; the keyDown at 13507.243398 s started it. Culprit: slow-dbus-svc/main [25586], the thread at the end of that wait."
    # that time is a TIMESTAMP of the trace's lines: the main loop's
    # dispatch of the key press
    run grep -c '(  25605) \[000\] DBZff 13507\.243398: argus_glib_dispatch' "$R/gui-dbus.txt"
    assert_output 1
}

@test "gui-busy: a busy hang's main thread ran on the CPU and is its own culprit" {
    argus diagnose "$R/gui-busy.txt" > "$R/gb.report"
    run verdict "$R/gb.report"
    assert_output --regexp '^Verdict: tk-busy-app/main \[13660\] ran [0-9.]+ s on the CPU without blocking; the [A-Za-z]+ at [0-9]+\.[0-9]{6} s started it\. Culprit: tk-busy-app/main \[13660\] itself, busy in its own code\.$'
}

@test "cpu-starved: a thread kept off the CPU is 'held off it by' the one that ran" {
    argus diagnose --proc redis-cli "$R/cpu-starved.txt" > "$R/cs.report"
    run verdict "$R/cs.report"
    assert_output --regexp '^Verdict: redis-cli/main \[1110\] was runnable [0-9.]+ s, waiting for a CPU, held off it by stress-ng-cpu/main \[1114\], which was running [0-9.]+ s on the CPU; '
}

@test "SPIN-HOLDER: a thread held off the CPU by no one thread is the culprit" {
    argus diagnose --proc cat "$R/cpu-quota.txt" > "$R/cq.report"
    run verdict "$R/cq.report"
    assert_output --regexp '^Verdict \(hang 0\): cat/main \[13217\] was blocked [0-9.]+ s in read on fd 3, waiting on quota-producer/main \[13168\], which was runnable [0-9.]+ s, waiting for a CPU that no one thread held \(the load of many, or a CPU quota of its own\); .* Culprit: quota-producer/main \[13168\], the thread at the end of that wait\.$'
}

@test "SPIN-DEADLOCK: a lock wait goes on to the thread it woke, blocked since" {
    argus diagnose --proc cycle-app "$R/lock-cycle.txt" > "$R/lc.report"
    run verdict "$R/lc.report"
    assert_output --regexp '^Verdict: cycle-app/main \[23559\] was blocked [0-9.]+ s in futex on 0x1dab0ee0, waiting on cycle-app/locker \[23571\], which was blocked [0-9.]+ s in futex on 0x1dab2770, for a lock that cycle-app/main \[23559\] held \(a deadlock; that thread.s timeout broke it\); .* Culprit: cycle-app/locker \[23571\], the thread at the end of that wait\.$'
}

@test "SPIN-YIELD: a yield loop's culprit is the thread it gave its CPU to" {
    argus diagnose --proc spin-waiter "$R/spin-yield.txt" > "$R/sy.report"
    run verdict "$R/sy.report"
    assert_output --regexp '^Verdict: spin-waiter/main \[26167\] spun [0-9.]+ s in a yield loop, giving its CPU to flag-setter/main \[26156\], which ran meanwhile \(no event shows what ended the loop: most likely what that thread did\); .* Culprit: flag-setter/main \[26156\], the thread at the end of that wait\.$'
}

@test "DEC-LOSS: a ring that overwrote 99% of its events is said before the verdict" {
    sed 's|entries-written: 41365/41365|entries-written: 41365/4136500|' "$R/cpu-quota.txt" > "$R/cq-lost.txt"
    run sh -c "argus diagnose --proc cat '$R/cq-lost.txt' | head -n 5"
    assert_output "Incomplete trace: the ring buffer overwrote 4095135 of the 4136500 events written, so this answer
rests on 1% of them; the events kept of CPU 0 start only at 4634.040042 s (2.8 ms after the
trace's first). The windows of all 4 hangs, or the 3 s before them where their causes would be,
fall where events were lost: their causes may be among them.
Verdict (hang 0): cat/main [13217] was blocked 1.975 s in read on fd 3, waiting on"
}

@test "the report's first and last times are the trace's first and last TIMESTAMPs" {
    argus diagnose "$R/redis-sleep.txt" > "$R/rs.report"
    first=$(grep -v '^#' "$R/redis-sleep.txt" | head -1 | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/')
    run grep -c "^Trace: .* $first s to " "$R/rs.report"
    assert_output 1
    # every moment the report prints is one the trace's lines hold (to the
    # microsecond): none is counted from the first event any more (but the
    # moment a hang crossed its threshold, which no line marks)
    run sh -c "awk '/Found by/ { skip = 1; next } skip && /^             / { next } { skip = 0; print }' '$R/rs.report' | grep -oE '[0-9]+\.[0-9]{6} s' | sort -u | while read t s; do grep -q \" \$t[0-9]*: \" '$R/redis-sleep.txt' || echo \"not in the trace: \$t\"; done"
    assert_output ""
}

@test "plain words by default: no ids, ranks or scores; --verbose adds them" {
    argus diagnose --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gd.report"
    run grep -E -c '\bseg [0-9]|[Rr]ank [0-9]|score|depth [0-9]|branch [0-9]|missing edge|Branch points|0x[0-9a-f]' "$R/gd.report"
    assert_output 0
    run grep -c 'epoll_wait on fd 3' "$R/gd.report"
    refute_output 0
    argus diagnose --verbose --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gdv.report"
    run grep -c '^  Details (--verbose):$' "$R/gdv.report"
    assert_output 1
    run grep -c 'missing edge: ipc, depth 1, branch 1' "$R/gdv.report"
    assert_output 1
    run grep -c '^  Branch points:$' "$R/gdv.report"
    assert_output 1
    # the default report is the verbose one up to its details
    run sh -c "sed '/^  Details (--verbose):\$/,\$d' '$R/gdv.report' | sed '\$d' | diff - '$R/gd.report'"
    assert_success
}

@test "plain key events: a main-loop callback, a timeout, no kernel timer; -v's words" {
    argus diagnose -v "$R/gtk-timeout.txt" > "$R/gt.report"
    # the report before its details, and the details
    sed '/^  Details (--verbose):$/,$d' "$R/gt.report" > "$R/gt.plain"
    sed -n '/^  Details (--verbose):$/,$p' "$R/gt.report" > "$R/gt.details"
    run grep -c -E 'main-loop callback|woken by its timeout' "$R/gt.plain"
    refute_output 0
    run grep -c -E 'runloop|callout|timed_out|timer_arm|timer_cancel|hrtimer|dl_task_timer|\bui ' "$R/gt.plain"
    assert_output 0
    run grep -c -E 'runloop callout' "$R/gt.details"
    refute_output 0
    run grep -c -E 'timer_arm hrtimer_wakeup' "$R/gt.details"
    refute_output 0
    run grep -c -E 'woken timed_out' "$R/gt.details"
    refute_output 0
}

@test "the page names what bars did in the report's words; Perfetto keeps the stream's" {
    argus diagnose --html "$R/gt.html" "$R/gtk-timeout.txt" > /dev/null
    # one table of words (lib/view/words.c) for the report and the page
    grep -o '"name":"[^"]*"' "$R/gt.html" > "$R/gt.names"
    run grep -c -E '"name":"(main-loop callback|timer fired|woken by its timeout|input keyDown)"' "$R/gt.names"
    refute_output 0
    run grep -c -E 'runloop|callout|timed_out|timer_arm|timer_fire|hrtimer|awakened|"ui ' "$R/gt.names"
    assert_output 0
    argus graph "$R/gtk-timeout.txt" | argus-analyze --keep "$R/gt.findings" > /dev/null
    argus-export "$R/gt.findings" > "$R/gt.json"
    run grep -c -E '"name":"(runloop|timer_fire|ui keyDown)' "$R/gt.json"
    refute_output 0
}

@test "the report names its baseline: compared with the file given, or none given" {
    argus diagnose --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gd.report"
    run grep '^Baseline:' "$R/gd.report"
    assert_output "Baseline: compared with $R/gui-dbus.normal.txt, a normal run."
    argus diagnose "$R/gui-dbus.txt" > "$R/gd1.report"
    run grep '^Baseline:' "$R/gd1.report"
    assert_output "Baseline: none given (--baseline), so the culprits are named from this trace alone."
}

@test "SIM-BASELINE: a baseline of another program is rejected with 65" {
    run --separate-stderr argus diagnose --baseline "$R/gui-busy.normal.txt" "$R/gui-dbus.txt"
    assert_failure 65
    assert_output ""
    assert_equal "$stderr" "argus-analyze: $R/gui-busy.normal.txt: a baseline of another program: no thread of it is in a process named gtk-dbus-app, as the hung thread is (its programs: memfd:sealed-91, Xvfb, tk-busy-app, press, argus-record, xdotool)"
    # argus-similar, in the pipe, says the same
    argus graph "$R/gui-busy.normal.txt" > "$R/busy.graph"
    run --separate-stderr sh -c "argus graph '$R/gui-dbus.txt' | argus-find-spinning | argus-similar --in '$R/busy.graph' > /dev/null"
    assert_failure 65
    assert_equal "$stderr" "argus-similar: $R/busy.graph: a baseline of another program: no thread of it is in a process named gtk-dbus-app, as the hung thread is (its programs: memfd:sealed-91, Xvfb, tk-busy-app, press, argus-record, xdotool)"
}

@test "SIM-BASELINE: an empty baseline is rejected with 65" {
    : > "$R/empty.txt"
    run --separate-stderr argus diagnose --baseline "$R/empty.txt" "$R/gui-dbus.txt"
    assert_failure 65
    assert_equal "$stderr" "argus diagnose: $R/empty.txt: empty input: no trace in it (0 bytes)"
    argus graph "$R/gui-dbus.txt" | argus-to-json | head -1 | argus-decode > "$R/nothing.graph"
    run --separate-stderr sh -c "argus graph '$R/gui-dbus.txt' | argus-analyze --baseline '$R/nothing.graph' > /dev/null"
    assert_failure 65
    assert_equal "$stderr" "argus-analyze: $R/nothing.graph: an empty baseline: no thread ran in it (0 events)"
}

@test "--output-format markdown says the same verdict, in bold labels and code spans" {
    argus diagnose --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gd.report"
    argus diagnose --output-format markdown --baseline "$R/gui-dbus.normal.txt" "$R/gui-dbus.txt" > "$R/gd.md"
    run sed -n 3p "$R/gd.md"
    assert_output --partial '**Verdict:** gtk-dbus-app/main [25605] was blocked 3.009 s in `poll`'
    # the words are the text report's, once the marks are dropped
    run sh -c "{ sed -n '3,/^\*\*Baseline/p' '$R/gd.md'; } | tr -d '*\`\\\\' | tr '\n' ' ' | sed 's/  */ /g; s/ \$//'"
    want=$(sed -n '1,/^Baseline/p' "$R/gd.report" | tr '\n' ' ' | sed 's/  */ /g; s/ $//')
    assert_output "$want"
}

@test "the wall clock is beside the trace's clock where the header's t0 gives it" {
    # the demo with an origin and a t0 in its header, as decode writes them
    argus-decode fixtures/demo/hang.jsonl | argus-to-json |
        jq -c 'if .type == "stream" then .origin = 1000000000000 | .t0 = 1764150000000000000 else . end' > "$R/clock.jsonl"
    run argus diagnose "$R/clock.jsonl"
    assert_success
    assert_line "  When:      1000.001000 s (2025-11-26 09:40:00.001 UTC) to 1003.200400 s (3.199 s)"
    assert_line --partial "times on the trace's own clock (wall clock UTC in brackets)."
}

@test "SPIN-HANG: a wait begun again is said in plain words, N waits in a row (cond-var)" {
    argus diagnose fixtures/real/cond-var/hang.txt.gz > "$BATS_TEST_TMPDIR/cv.report"
    run grep -c '^    1\. cv-waiter/main \[32689\]: blocked 2.005 s in futex on 0x39924ed0 (6 waits in a row)$' "$BATS_TEST_TMPDIR/cv.report"
    assert_output 1
    run grep -c 'taken up again' "$BATS_TEST_TMPDIR/cv.report"
    assert_output 0
}
