#!/usr/bin/env bats
# Every exit status the README's table "Each program's statuses" gives a
# program is provoked here, with its exact message. The table is read
# from the README, so a status added there without a case here fails.

load test_helper

# documented [STATUS]: "PROGRAM STATUS" lines of the README's table.
documented() {
    sed -n '/^| program | statuses | also |$/,/^$/p' README.md | sed '1,2d;/^$/d' |
        while IFS='|' read -r _ progs statuses _; do
            for p in $(echo "$progs" | grep -o '`[^`]*`' | tr -d '`' | tr ' ' '_'); do
                for s in $(echo "$statuses" | tr -d ' ' | tr ',' ' '); do
                    [ -z "${1-}" ] || [ "$s" = "$1" ] || continue
                    echo "${p//_/ } $s"
                done
            done
        done
}

setup_file() {
    argus graph fixtures/demo/hang.jsonl > "$BATS_FILE_TMPDIR/g.graph"
    argus graph fixtures/demo/normal.jsonl > "$BATS_FILE_TMPDIR/b.graph"
}

# The command line of a stream program on its input (a graph stream).
stage_cmd() {
    case $1 in
        argus-similar) echo "argus-similar --in $BATS_FILE_TMPDIR/b.graph" ;;
        argus-chain) echo "argus-chain segment" ;;
        *) echo "$1" ;;
    esac
}

# check PROGRAM STATUS: the case that exits STATUS, its status and its
# whole stderr (stdout goes to a file, or to /dev/full for 74).
check() {
    local p=$1 st=$2 cmd expect
    local G="$BATS_FILE_TMPDIR/g.graph" out="$BATS_TEST_TMPDIR/out"
    case "$p:$st" in
        "argus:0") cmd="argus --version" expect="" ;;
        "argus:64") cmd="argus --bogus"
            expect="argus: unknown option '--bogus'
Try 'argus --help' for more information." ;;
        "argus graph:0") cmd="argus graph fixtures/demo/hang.jsonl" expect="" ;;
        "argus graph:64") cmd="argus graph --bogus"
            expect="argus graph: bad option '--bogus'
Try 'argus graph --help' for more information." ;;
        "argus graph:65") cmd="argus graph /bin/sh"
            expect="argus graph: /bin/sh: an ELF executable or library, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh" ;;
        "argus graph:66") cmd="argus graph fixtures/none.txt"
            expect="argus graph: fixtures/none.txt: No such file or directory" ;;
        "argus graph:74") cmd="argus graph fixtures/demo/hang.jsonl" out=/dev/full
            expect="argus-chain: write error: No space left on device" ;;
        "argus diagnose:0") cmd="argus diagnose fixtures/demo/hang.jsonl" expect="" ;;
        "argus diagnose:1") cmd="argus diagnose fixtures/demo/normal.jsonl" expect="" ;;
        "argus diagnose:64") cmd="argus diagnose --bogus"
            expect="argus diagnose: bad option '--bogus'
Try 'argus diagnose --help' for more information." ;;
        "argus diagnose:65") cmd="argus diagnose --format ftrace /bin/sh"
            expect="argus diagnose: /bin/sh: an ELF executable or library, neither ftrace text nor another trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace of it running: sudo argus record -o trace.txt -- /bin/sh" ;;
        "argus diagnose:66") cmd="argus diagnose fixtures/demo"
            expect="argus diagnose: fixtures/demo: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)" ;;
        "argus diagnose:73") cmd="argus diagnose --html $BATS_TEST_TMPDIR/no/such/dir/p.html fixtures/demo/hang.jsonl"
            expect="argus diagnose: $BATS_TEST_TMPDIR/no/such/dir/p.html: cannot write it (No such file or directory)" ;;
        "argus diagnose:74") cmd="argus diagnose fixtures/demo/hang.jsonl" out=/dev/full
            expect="argus-analyze: write error: No space left on device" ;;
        "argus-decode:0") cmd="argus-decode fixtures/demo/hang.jsonl" expect="" ;;
        "argus-decode:65") cmd="argus-decode --format ftrace fixtures/demo/hang.jsonl"
            expect="argus-decode: fixtures/demo/hang.jsonl: not ftrace text: none of its 26 lines has the head 'TASK-PID [CPU] TIMESTAMP: EVENT:' (the first: '{\"type\":\"thread\",\"tid\":1001,\"pid\":100,\"proc\":\"App\",\"name\":\"m'); perf script output is not read" ;;
        "argus-decode:66") cmd="argus-decode fixtures/demo"
            expect="argus-decode: fixtures/demo: Is a directory, with no CTF trace in it (no file 'metadata' beginning '/* CTF 1.8' or with CTF's metadata magic, in it or 4 levels below)" ;;
        "argus-decode:74") cmd="argus-decode fixtures/demo/hang.jsonl" out=/dev/full
            expect="argus-decode: write error: No space left on device" ;;
        "argus-export:1") cmd="argus-export --around 5 $G"
            expect="argus-export: no hang 5 in the stream (it has 0 hang records)" ;;
        "argus-cache-key:0") cmd="argus-cache-key --input $G x" expect="" ;;
        "argus-cache-key:66") cmd="argus-cache-key --input fixtures/none.txt"
            expect="argus-cache-key: fixtures/none.txt: No such file or directory" ;;
        "argus-cache-key:74") cmd="argus-cache-key x" out=/dev/full
            expect="argus-cache-key: write error: No space left on device" ;;
        "argus-record:0") cmd="argus-record --help" expect="" ;;
        "argus-watch:0") cmd="argus-watch -q --replay fixtures/real/gui-dbus/normal.txt.gz --dir $BATS_TEST_TMPDIR/w"
            expect="" ;;
        "argus-watch:65") cmd="argus-watch -q --replay fixtures/demo/hang.jsonl --dir $BATS_TEST_TMPDIR/w"
            expect="argus-watch: fixtures/demo/hang.jsonl: no event line (argus-watch --replay reads ftrace text, as argus-record writes it)" ;;
        "argus-watch:69") [ "$(id -u)" = 0 ] || return 2
            mkdir -p "$BATS_TEST_TMPDIR/notracefs"
            cmd="env ARGUS_TRACEFS=$BATS_TEST_TMPDIR/notracefs argus-watch --dir $BATS_TEST_TMPDIR/w"
            expect="argus-watch: tracefs unavailable: $BATS_TEST_TMPDIR/notracefs (ARGUS_TRACEFS) is not a tracefs directory with instances/" ;;
        "argus-watch:73") cmd="argus-watch --replay fixtures/real/gui-dbus/normal.txt.gz --dir /dev/null/w"
            expect="argus-watch: /dev/null/w: cannot create it (Not a directory)" ;;
        "argus-watch:77") [ "$(id -u)" != 0 ] || command -v setpriv > /dev/null || return 2
            cmd="argus-watch --dir $BATS_TEST_TMPDIR/w"
            [ "$(id -u)" != 0 ] || cmd="setpriv --reuid=nobody --regid=nogroup --clear-groups $ARGUS_BIN/$cmd"
            expect="argus-watch: needs root to use tracefs (run it with sudo)" ;;
        "argus-record:69") [ "$(id -u)" = 0 ] || return 2
            mkdir -p "$BATS_TEST_TMPDIR/notracefs"
            cmd="env ARGUS_TRACEFS=$BATS_TEST_TMPDIR/notracefs argus-record -o $BATS_TEST_TMPDIR/t -- true"
            expect="argus-record: tracefs unavailable: $BATS_TEST_TMPDIR/notracefs (ARGUS_TRACEFS) is not a tracefs directory with instances/" ;;
        "argus-record:73") [ "$(id -u)" = 0 ] || return 2
            cmd="argus-record -o $BATS_TEST_TMPDIR/no/such/dir/t -- true"
            expect="argus-record: $BATS_TEST_TMPDIR/no/such/dir/t: cannot create (No such file or directory)" ;;
        "argus-record:74") [ "$(id -u)" = 0 ] || return 2
            cmd="argus-record --no-probes -o /dev/full -- true"
            expect="argus-record: /dev/full: write error (No space left on device)" ;;
        "argus-record:77") [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null || return 2
            cmd="setpriv --reuid=nobody --regid=nogroup --clear-groups $ARGUS_BIN/argus-record -o $BATS_TEST_TMPDIR/t -- true"
            expect="argus-record: needs root to use tracefs and perf (run it with sudo)" ;;
        argus-*:0) cmd="$(stage_cmd "$p") $G" expect="" ;;
        argus-*:64) cmd="$p --bogus"
            expect="$p: bad option '--bogus' (unknown, or missing its value)
Try '$p --help' for more information." ;;
        argus-*:65) cmd="$(stage_cmd "$p") fixtures/demo/hang.jsonl"
            expect="$p: fixtures/demo/hang.jsonl: record 1 (byte 0): record is not a CBOR map; it looks like text (a trace?): run 'argus decode' on it first" ;;
        argus-*:66) cmd="$(stage_cmd "$p") fixtures/none.txt"
            expect="$p: fixtures/none.txt: No such file or directory" ;;
        argus-*:74) cmd="$(stage_cmd "$p") $G" out=/dev/full
            expect="$p: write error: No space left on device" ;;
        *) fail "no case for '$p' exiting $st: add one to tests/exit-status.bats" ;;
    esac
    run sh -c "$cmd > $out"
    # another suite's killed recorder may have left tracefs state, which
    # any argus-record run reaps and names first: not this test's message
    [ "$p" = argus-record ] &&
        output=$(printf '%s\n' "$output" | grep -v '^argus-record: removed what dead recorders left in ')
    [ "$status" = "$st" ] || fail "$cmd: exit $status, not $st: $output"
    [ "$output" = "$expect" ] || fail "$cmd: exit $st with
$output
instead of
$expect"
}

# check_all STATUS: every program documented with STATUS.
check_all() {
    local n=0 p st rc
    while read -r line; do
        st=${line##* } p=${line% *}
        rc=0
        check "$p" "$st" || rc=$?
        [ $rc = 0 ] || [ $rc = 2 ] || return $rc  # 2: needs root, checked below
        n=$((n + 1))
    done < <(documented "$1")
    [ $n -gt 0 ] || fail "no program documents exit status $1"
}

@test "every program exits 0 on success, with nothing on stderr" {
    check_all 0
}

@test "argus diagnose exits 1 on no hang; argus-export on nothing to draw" {
    check_all 1
}

@test "every program exits 64 on a usage error, with one line and where help is" {
    check_all 64
}

@test "every program that reads input exits 65 on bad input, with the reason" {
    check_all 65
}

@test "every program exits 66 on a file it cannot open, with strerror's reason" {
    check_all 66
}

@test "every program that writes exits 74 on a write error" {
    check_all 74
}

@test "argus diagnose exits 73 when its --html page cannot be written" {
    check_all 73
}

@test "argus-record exits 69 without tracefs, 73 on a bad -o, 77 when not root" {
    [ "$(id -u)" = 0 ] || skip "needs root: argus-record checks for it first"
    check argus-record 69
    check argus-record 73
    check argus-record 77
}

@test "each status in the README's table is one of those provoked here" {
    run bash -c "cd $ARGUS_ROOT; $(declare -f documented); documented | awk '{print \$NF}' | sort -un | tr '\n' ' '"
    assert_output "0 1 64 65 66 69 73 74 77 "
}
