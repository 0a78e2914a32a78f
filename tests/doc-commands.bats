#!/usr/bin/env bats
# Every command README.md and docs/ show runs as written after the README's
# set-up (make demo, then the PATH line it prints), in a fresh clone, from
# the repository's root. tests/tools/doc-commands finds the commands; each
# is run here or skipped for a reason named below, by pattern: a new
# example in the docs matches a class or fails the test of its page.

load test_helper

DOCS="README.md docs/*.md docs/*/*.md"

# The commands that cannot run here, each class with its reason. The first
# class a command matches is its class.
SKIPS=(
    'the set-up, done once for every page (setup_file)|^make demo|^export PATH="\$PWD/bin:\$PATH"'
    'needs root (records the kernel or runs a service)|(^|[;&|(] *)sudo |systemctl|^mount |/sys/kernel/tracing|^echo .* > |^cd (\.\.|/sys)|rmdir mine|instances/mine|/enable|tracing_on|^cat trace |argus[- ]record|argus[- ]watch|lttng|trace-cmd record|perf (record|data)|tracebox'
    'runs on an Android device|^adb |^atrace '
    'runs on macOS or on its traces|ktrace|\.atrc|\.raw\b|DYLD_|^trace |trace-text'
    'a make target that builds, installs or runs a suite (minutes)|^make( |$)'
    'a benchmark or sweep on generated traces (docs/performance.md: minutes)|bench/|/usr/bin/time|scripts/sweep|tests/tools/mutation|bats tests/|t200k|k2000|g1m'
    'needs the library installed (make install: pkg-config argus)|pkg-config|\./wait-times'
    'a synopsis or a placeholder (TRACE, FILE, BASE ...)|\[-|\[FILE|\[TRACE|\b(TRACE|FILE|BASE|BASE_TRACE|BASELINE|GRAPH|STAGE|OPTIONS)\b|argus-STAGE|\| \.\.\.|-e \.\.\.'
    'interactive (a pager)|\| less'
    'a file the reader records or writes first (not in the tree)|myapp|~/hangs|(^| )(hang\.(txt|data|ctf|jsonl|perfetto-trace|argus)|trace\.(txt|dat|pftrace|argus|bin|ktrace|jsonl)|normal\.(txt|trace|jsonl|graph|perfetto-trace)|buggy\.trace|(trace|baseline)\.graph|argus\.pbtx|findings\b|mark-waits)|(^| )(rw|ca|daemon|io|timeout|workq|t|edges|bad|mail\.(base|bug)|rendered|odd3|tsback|ok|a|b|noheader)\.(jsonl|cbor|graph)|my trace\.jsonl'
)

# The commands run here: on the files in the tree (or made by the command
# before them on the page), and the errors a page shows on purpose.
RUN='fixtures/|^/usr/bin/python3 - <<|odd\.cbor|gui-dbus\.txt|chain\.graph|demo-base\.cbor|demo\.findings|^argus (--help|help|nosuch|-x)|^(: |echo |printf ).*\| argus decode|/nonexistent|--bogus|--format ktrace x|^argus decode a b'

# Commands whose page shows an error on purpose (its message, its status).
SHOWS_ERROR='^: \| argus decode|18446744073709551615|^argus (nosuch|-x)|/nonexistent|--bogus|--format ktrace x|^argus decode a b'

# The programs a command names that are not argus's own: a user's stage,
# the unknown command front-command.md shows.
NOT_OURS='mark-waits|nosuch'
STAGE_WORD='(^|[ |(/])argus[- ]([a-z][a-z-]*)'
SUDO_BARE='(^|[;&|] *)sudo +argus'

setup_file() {
    clone="$BATS_FILE_TMPDIR/clone"
    git clone -q "$ARGUS_ROOT" "$clone"
    # The README's set-up: make demo in the clone, with the programs
    # already built: bin/, build/ and bench/'s programs copied with their
    # times, the clone's sources dated before them, so that make has
    # nothing to rebuild; then the PATH line make demo prints.
    git -C "$clone" ls-files -z | (cd "$clone" && xargs -0 touch -d 2000-01-01)
    (cd "$ARGUS_ROOT" && git ls-files -o -i --exclude-standard -z -- build bench) |
        (cd "$ARGUS_ROOT" && xargs -0 cp -a --parents -t "$clone")
    cp -a "$ARGUS_BIN/." "$clone/bin"
    (cd "$clone" && make demo > "$BATS_FILE_TMPDIR/demo.out" 2>&1) || {
        cat "$BATS_FILE_TMPDIR/demo.out" >&3; return 1; }
    grep -q "export PATH=\"$clone/bin:\$PATH\"" "$BATS_FILE_TMPDIR/demo.out"
    export CLONE="$clone"
}

# class_of COMMAND: sets CLASS to "run", or to "skip: REASON"; to nothing
# when no class fits.
class_of() {
    local c=$1 s
    CLASS=
    for s in "${SKIPS[@]}"; do
        if [[ $c =~ ${s#*|} ]]; then CLASS="skip: ${s%%|*}"; return; fi
    done
    if [[ $c =~ $RUN ]]; then CLASS=run; fi
}

# run_page PAGE: runs the page's runnable commands in order in the clone,
# as the PATH line of make demo leaves the shell; fails on the first one
# that exits non-zero or prints "command not found", "No such file" or a
# usage error, and on a command no class fits.
run_page() {
    local page=$1 where cmd class stage rest ran=0 skipped=0 out status
    cd "$CLONE"
    # the PATH of a user's shell (test_helper's directories out), then the
    # README's own PATH line, run from the clone's root
    PATH=$(tr ':' '\n' <<< "$PATH" | grep -vxF -e "$ARGUS_BIN" -e "$ARGUS_ROOT/tests/tools" | paste -sd:)
    local path_line
    path_line=$(tests/tools/doc-commands README.md | tr '\0' '\n' | grep -m1 -P '^README.md:\d+\texport PATH=' | cut -f2-)
    [ -n "$path_line" ] || fail "README.md's set-up has no export PATH= line"
    eval "$path_line"
    [ "$(command -v argus)" = "$CLONE/bin/argus" ]
    while IFS=$'\t' read -r -d '' where cmd; do
        class_of "$cmd"
        class=$CLASS
        [ -n "$class" ] || fail "$where: no class fits: $cmd"
        # skipped or not, the stages it names exist (none renamed)
        rest=$cmd
        while [[ $rest =~ $STAGE_WORD ]]; do
            stage=${BASH_REMATCH[2]}
            rest=${rest#*"${BASH_REMATCH[0]}"}
            [ -x "bin/argus-$stage" ] || [[ $stage =~ ^(graph|diagnose|help|$NOT_OURS)$ ]] ||
                fail "$where: no stage $stage: $cmd"
        done
        # sudo resets PATH (its secure_path): the README's PATH line reaches
        # an argus program under sudo only through env PATH="$PATH" or bin/
        if [[ $cmd =~ $SUDO_BARE ]]; then
            fail "$where: sudo does not find argus on the README's PATH: $cmd"
        fi
        if [ "$class" != run ]; then
            skipped=$((skipped + 1))
            continue
        fi
        ran=$((ran + 1))
        status=0
        out=$(bash -o pipefail -c "$cmd" 2>&1) || status=$?
        # 141: a stage cut off by head, as in the shell the page shows
        if [ "$status" = 141 ] && [[ $cmd =~ \|\ *head ]]; then status=0; fi
        [ "$status" = 0 ] || [[ $cmd =~ $SHOWS_ERROR ]] || fail "$where: exit $status: $cmd"$'\n'"$out"
        if [[ $out =~ command\ not\ found ]] ||
            { ! [[ $cmd =~ $SHOWS_ERROR ]] &&
                [[ $out =~ No\ such\ file|unknown\ option|Try\ \'.*--help ]]; }; then
            fail "$where: $cmd"$'\n'"$out"
        fi
    done < <("$ARGUS_ROOT/tests/tools/doc-commands" "$page")
    echo "# $page: $ran run, $skipped skipped" >&3
}

@test "every page with a command has its test here" {
    run bash -c "tests/tools/doc-commands $DOCS | tr '\0\t' '\n:' | grep -oE '^(README|docs/)[^:]*\.md' | sort -u"
    assert_success
    [ "${#lines[@]}" -gt 25 ]
    for page in "${lines[@]}"; do
        grep -qF "@test \"$page: " "$BATS_TEST_FILENAME" || fail "$page has no test"
    done
}

@test "the class list names each command's reason, and runs at least 30" {
    local where cmd class ran=0
    while IFS=$'\t' read -r -d '' where cmd; do
        class_of "$cmd"
        class=$CLASS
        [ -n "$class" ] || fail "$where: no class fits: $cmd"
        [ "$class" != run ] || ran=$((ran + 1))
    done < <(tests/tools/doc-commands $DOCS)
    echo "# $ran commands run on the pages below" >&3
    [ "$ran" -ge 30 ]
}

@test "README.md: its commands run as written from a fresh clone" {
    run_page README.md
}
@test "docs/diagnose.md: its commands run as written" {
    run_page docs/diagnose.md
}
@test "docs/front-command.md: its commands run as written" {
    run_page docs/front-command.md
}
@test "docs/inputs/android.md: its commands run as written" {
    run_page docs/inputs/android.md
}
@test "docs/inputs/ctf.md: its commands run as written" {
    run_page docs/inputs/ctf.md
}
@test "docs/inputs/linux.md: its commands run as written" {
    run_page docs/inputs/linux.md
}
@test "docs/inputs/macos.md: its commands run as written" {
    run_page docs/inputs/macos.md
}
@test "docs/inputs/perf.md: its commands run as written" {
    run_page docs/inputs/perf.md
}
@test "docs/inputs/perfetto.md: its commands run as written" {
    run_page docs/inputs/perfetto.md
}
@test "docs/library.md: its commands run as written" {
    run_page docs/library.md
}
@test "docs/performance.md: its commands run as written" {
    run_page docs/performance.md
}
@test "docs/reliability.md: its commands run as written" {
    run_page docs/reliability.md
}
@test "docs/stages/analyze.md: its commands run as written" {
    run_page docs/stages/analyze.md
}
@test "docs/stages/chain.md: its commands run as written" {
    run_page docs/stages/chain.md
}
@test "docs/stages/cull-interrupts.md: its commands run as written" {
    run_page docs/stages/cull-interrupts.md
}
@test "docs/stages/decode.md: its commands run as written" {
    run_page docs/stages/decode.md
}
@test "docs/stages/diff.md: its commands run as written" {
    run_page docs/stages/diff.md
}
@test "docs/stages/export.md: its commands run as written" {
    run_page docs/stages/export.md
}
@test "docs/stages/find-spinning.md: its commands run as written" {
    run_page docs/stages/find-spinning.md
}
@test "docs/stages/link-dispatch.md: its commands run as written" {
    run_page docs/stages/link-dispatch.md
}
@test "docs/stages/link-flags.md: its commands run as written" {
    run_page docs/stages/link-flags.md
}
@test "docs/stages/link-ipc.md: its commands run as written" {
    run_page docs/stages/link-ipc.md
}
@test "docs/stages/link-wakeups.md: its commands run as written" {
    run_page docs/stages/link-wakeups.md
}
@test "docs/stages/record.md: its commands run as written" {
    run_page docs/stages/record.md
}
@test "docs/stages/report.md: its commands run as written" {
    run_page docs/stages/report.md
}
@test "docs/stages/segment.md: its commands run as written" {
    run_page docs/stages/segment.md
}
@test "docs/stages/similar.md: its commands run as written" {
    run_page docs/stages/similar.md
}
@test "docs/stages/to-json.md: its commands run as written" {
    run_page docs/stages/to-json.md
}
@test "docs/stages/validate.md: its commands run as written" {
    run_page docs/stages/validate.md
}
@test "docs/stages/watch.md: its commands run as written" {
    run_page docs/stages/watch.md
}
@test "docs/stream-format.md: its commands run as written" {
    run_page docs/stream-format.md
}
@test "docs/viewing.md: its commands run as written" {
    run_page docs/viewing.md
}
