#!/usr/bin/env bats
# A real hang, recorded live and diagnosed end to end.
# tests/live/hang-demo.c (README.md beside it): hangui's main thread asks
# the process hangsvc over a pipe and blocks reading the reply; hangsvc's
# main thread hands the work to its thread cruncher and blocks on a
# condition variable; cruncher spins for the work (1500 ms; 20 ms with
# --normal). setup_file builds it, records a normal and a hanging run with
# argus-record and diagnoses the hang against the normal run once; each
# test checks one part of the diagnosis, in the report and in the findings
# stream. Times vary between runs: the numbers are matched by pattern (and
# checked for range in the findings), everything else exactly. Needs root
# and tracefs; the tests skip without them.

load test_helper

# Why this machine cannot record live (empty when it can).
why_not_live() {
    if [ "$(id -u)" != 0 ]; then
        echo "recording with tracefs needs root"
    elif ! grep -qw tracefs /proc/filesystems; then
        echo "this kernel has no tracefs"
    elif ! command -v cc > /dev/null; then
        echo "building tests/live/hang-demo.c needs cc"
    fi
}

# bats 1.8 cannot skip from setup_file: it leaves the reason for setup.
setup_file() {
    local dir=$BATS_FILE_TMPDIR reason
    reason=$(why_not_live)
    if [ -n "$reason" ]; then
        echo "$reason" > "$dir/skip"
        return 0
    fi
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -pthread \
        -o "$dir/hang-demo" "$ARGUS_ROOT/tests/live/hang-demo.c"
    # each step's output and status go to files, for the tests to assert
    # (setup_file stops at the first failing command)
    local status=0
    # 64 MB per cpu: nothing of the 1.5 s is overwritten on a busy machine
    argus-record --buffer-mb 64 -o "$dir/normal.txt" -- "$dir/hang-demo" --normal \
        > "$dir/record-normal.out" 2>&1 || status=$?
    echo "$status" > "$dir/record-normal.status"
    if [ "$status" = 69 ]; then # tracefs (or an event it needs) unavailable
        cat "$dir/record-normal.out" > "$dir/skip"
        return 0
    fi
    status=0
    argus-record --buffer-mb 64 -o "$dir/hang.txt" -- "$dir/hang-demo" \
        > "$dir/record-hang.out" 2>&1 || status=$?
    echo "$status" > "$dir/record-hang.status"
    # from inside $dir, so that the report names the baseline normal.txt
    status=0
    (cd "$dir" && argus diagnose --hang 500 --proc hangui --baseline normal.txt \
        -v --keep findings hang.txt > report 2> report.err) || status=$?
    echo "$status" > "$dir/report.status"
}

setup() {
    [ ! -e "$BATS_FILE_TMPDIR/skip" ] || skip "$(cat "$BATS_FILE_TMPDIR/skip")"
}

# found TYPE FILTER: the records of TYPE in the findings, reduced by the jq
# FILTER, where $name[TID] names each thread of the graph as the report
# does: "PROC/main" for a main thread, else "PROC/NAME" (the latest thread
# record of the tid counts: a rename writes a new one).
found() {
    argus-to-json "$BATS_FILE_TMPDIR/findings" | jq -sc "
        (map(select(.type == \"thread\")) | map({key: (.tid | tostring),
            value: (.proc + \"/\" + (if .main then \"main\" else .name // \"?\" end))})
         | from_entries) as \$name
        | .[] | select(.type == \"$1\") | $2"
}

@test "argus-record records both runs of hang-demo with all three threads named" {
    local which
    for which in normal hang; do
        [ "$(cat "$BATS_FILE_TMPDIR/record-$which.status")" = 0 ] \
            || fail "argus-record of the $which run failed: $(cat "$BATS_FILE_TMPDIR/record-$which.out")"
        # the whole run is in the trace: an overwritten start misleads the
        # rest (other lines: warnings, e.g. a tracefs another recorder holds)
        run cat "$BATS_FILE_TMPDIR/record-$which.out"
        assert_line --regexp "^argus-record: [0-9]+ events, [0-9]+ threads, 0 overwritten; stopped by the command's end; wrote .*/$which\.txt\$"
    done
    run bash -c "argus-decode '$BATS_FILE_TMPDIR/hang.txt' | argus-to-json \
        | jq -sc 'map(select(.type == \"thread\" and (.proc == \"hangui\" or .proc == \"hangsvc\")))
                  | group_by(.tid) | map(last | {proc, name, main: (.main // false)})
                  | sort_by(.proc, .name) | .[]'"
    assert_success
    assert_output - <<'EOF'
{"proc":"hangsvc","name":"cruncher","main":false}
{"proc":"hangsvc","name":"hangsvc","main":true}
{"proc":"hangui","name":"hangui","main":true}
EOF
    # cruncher is a thread of hangsvc: its pid is hangsvc main's tid
    run bash -c "argus-decode '$BATS_FILE_TMPDIR/hang.txt' | argus-to-json \
        | jq -sc 'map(select(.type == \"thread\" and .proc == \"hangsvc\"))
                  | (map(select(.name == \"cruncher\")) | last | .pid)
                    == (map(select(.main)) | last | .tid)'"
    assert_output true
}

@test "SPIN-HANG, SPIN-CLASS: hangui's main thread blocked 1.5 s reading its reply" {
    [ "$(cat "$BATS_FILE_TMPDIR/report.status")" = 0 ] \
        || fail "argus diagnose failed: $(cat "$BATS_FILE_TMPDIR/report.err")"
    run cat "$BATS_FILE_TMPDIR/report"
    assert_line --regexp '^Verdict: hangui/main \[[0-9]+\] was blocked [0-9.]+ s in read on fd [0-9]+, waiting on'
    assert_line --regexp '^Hang 0: hangui/main \[[0-9]+\] \(pid [0-9]+\)$'
    assert_line --regexp '^    The hang is seg [0-9]+ \(hang 0\)\.$'
    refute_line --regexp '^Hang 1:'
    # (a CPU wait at its end is told when it is a tenth of it or more)
    assert_line --regexp '^  Class: +wait - blocked [0-9.]+ s in read on fd [0-9]+, then woken(;.*)?$'
    assert_line --regexp "^  Found by: +a main thread blocked or busy past --hang's 500 ms, crossed at [0-9.]+ s\$"
    run found hang '{hang, thread: $name[.tid | tostring], class, indicator, reason, result}'
    assert_output '{"hang":0,"thread":"hangui/main","class":"wait","indicator":"hang","reason":"read","result":"awakened"}'
    # cruncher's 1500 ms of work, give or take the scheduling of a busy machine
    run found hang '.blocked >= 1400000000 and .blocked < 3000000000'
    assert_output true
}

@test "SPIN-PATH, IPC-MSG: the chain goes from hangui to hangsvc to cruncher" {
    run cat "$BATS_FILE_TMPDIR/report"
    assert_line '  What it waits on:'
    assert_line --regexp '^    1\. hangui/main \[[0-9]+\]: blocked [0-9.]+ s in read on fd [0-9]+$'
    assert_line --regexp '^    1\. hangui/main \[[0-9]+\], seg [0-9]+: blocked [0-9.]+ s in read on fd [0-9]+$'
    # hangsvc's reply is an ipc pair via fd (its write woke hangui's read):
    # the report names it. (The line may wrap at 98 columns before "in" or
    # "futex": the wait is checked below, in the findings.)
    assert_line --regexp '^    2\. hangsvc/main \[[0-9]+\], seg [0-9]+, which sent 1 a message through an fd: blocked [0-9.]+ s( |$)'
    assert_line --regexp '^    3\. hangsvc/cruncher \[[0-9]+\], which woke 2: running [0-9.]+ m?s, [0-9.]+\.\.[0-9.]+ s$'
    assert_line '    Ends: the last thread was running, not blocked.'
    assert_line '    Ends: running, the last thread was running, not blocked.'
    run found wait_chain '{names: [.tids[] | $name[tostring]], links, "end": .end}'
    assert_output '{"names":["hangui/main","hangsvc/main","hangsvc/cruncher"],"links":["wakeup","wakeup"],"end":"running"}'
    # hangsvc main waited on the futex word that cruncher woke when done:
    # the resource of its wait is the uaddr of cruncher's FUTEX_WAKE_PRIVATE
    # (op 129) that ended it
    run found wait_chain '.segs[1]'
    local seg=$output
    run found wait "select(.seg == $seg) | .resource"
    local word=$((${lines[-1]//\"/}))
    run found wait_chain '.tids[2]'
    local cruncher=$output
    run found syscall "select(.tid == $cruncher and .name == \"futex\" and .phase == \"begin\"
                             and .args[0] == $word) | .args[1]"
    assert_line 129
}

@test "SIM-MATCH, DIFF-CULPRIT, DIFF-RELAY: cruncher's work is the root culprit" {
    run cat "$BATS_FILE_TMPDIR/report"
    assert_line --regexp '^    Seg [0-9]+ of normal\.txt \(rank 1 of [0-9]+\): '
    assert_line --regexp '^    1\. root: hangsvc/cruncher \[[0-9]+\], seg [0-9]+: busy [0-9.]+ s \([0-9.]+ s to [0-9.]+ s\)$'
    run found culprit 'select(.rank == 1) | {root, thread: $name[.tid | tostring], state, missing}'
    assert_output '{"root":true,"thread":"hangsvc/cruncher","state":"busy","missing":"wakeup"}'
    run found culprit 'select(.rank == 1) | .duration >= 1400000000'
    assert_output true
    run found culprit '$name[.tid | tostring]'
    assert_output '"hangsvc/cruncher"'
}

@test "SPIN-HANG: the normal run has no 500 ms hang; argus diagnose exits 1" {
    run argus diagnose --hang 500 --proc hangui "$BATS_FILE_TMPDIR/normal.txt"
    assert_failure 1
    assert_line 'no hang found'
}
