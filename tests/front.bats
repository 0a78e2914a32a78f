#!/usr/bin/env bats
# The argus front command and the build's install and clean.

load test_helper

@test "argus STAGE runs argus-STAGE with its arguments" {
    run sh -c 'argus decode fixtures/demo/hang.jsonl | argus validate -q && echo fine'
    assert_success
    assert_output "fine"
}

@test "argus help lists the stages with their summaries" {
    run argus help
    assert_success
    assert_line --partial "decode"
    assert_line --partial "to-json"
    assert_line --partial "validate           Check an argus event stream against the contract and summarize it."
    # a usage that takes several lines: the summary is the line after them
    assert_line "  diff               Name each hang's culprits against its similar node in a baseline graph."
    assert_line "  analyze            Find the hangs of a graph, their culprits against a baseline, and print the report."
}

@test "argus with an unknown stage exits 64" {
    run argus frobnicate
    assert_failure 64
    assert_output "argus: no stage 'frobnicate' (argus help lists them)"
}

@test "every program answers --version" {
    for p in decode to-json validate; do
        run "argus-$p" --version
        assert_success
        assert_output "argus-$p 0.1.0"
    done
}

@test "make demo ends with its PATH line, and the commands it shows run with it" {
    run scripts/demo.sh
    assert_success
    assert_line "   export PATH=\"$ARGUS_ROOT/bin:\$PATH\""
    assert_line "   argus diagnose fixtures/demo/hang.jsonl    # the same, without the baseline"
    run env PATH="$ARGUS_ROOT/bin:/usr/bin:/bin" sh -c 'argus diagnose fixtures/demo/hang.jsonl | head -1'
    assert_output --partial "Verdict: "
}

@test "make install puts argus-* programs, argus and the docs under DESTDIR/PREFIX" {
    run make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    assert_success
    for p in argus argus-decode argus-to-json argus-validate; do
        [ -x "$BATS_TEST_TMPDIR/root/opt/argus/bin/$p" ]
    done
    [ -f "$BATS_TEST_TMPDIR/root/opt/argus/share/doc/argus/stream-format.md" ]
    [ -f "$BATS_TEST_TMPDIR/root/opt/argus/share/doc/argus/stages/decode.md" ]
    run "$BATS_TEST_TMPDIR/root/opt/argus/bin/argus" decode --version
    assert_success
    assert_output "argus-decode 0.1.0"
}

@test "make install puts argus-watch's unit and settings; uninstall unless changed" {
    local root=$BATS_TEST_TMPDIR/root
    make -s install DESTDIR="$root" PREFIX=/opt/argus
    run grep -E '^(ExecStart|EnvironmentFile|WantedBy)=' "$root/opt/argus/lib/systemd/system/argus-watch.service"
    assert_output 'EnvironmentFile=-/etc/default/argus-watch
ExecStart=/opt/argus/bin/argus-watch $ARGUS_WATCH_OPTS
WantedBy=multi-user.target'
    run grep '^ARGUS_WATCH_OPTS=' "$root/etc/default/argus-watch"
    assert_output 'ARGUS_WATCH_OPTS="--dir /var/lib/argus-watch"'
    [ ! -e "$root/etc/systemd" ]
    echo 'ARGUS_WATCH_OPTS="--hang 1000"' > "$root/etc/default/argus-watch"
    make -s install DESTDIR="$root" PREFIX=/opt/argus
    run cat "$root/etc/default/argus-watch"
    assert_output 'ARGUS_WATCH_OPTS="--hang 1000"'
    make -s uninstall DESTDIR="$root" PREFIX=/opt/argus
    run find "$root" -type f
    assert_output "$root/etc/default/argus-watch"
}

@test "make install puts a man page for argus and every program, from its --help" {
    make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    man1="$BATS_TEST_TMPDIR/root/opt/argus/share/man/man1"
    for p in bin/argus bin/argus-*; do
        [ -f "$man1/${p#bin/}.1" ] || fail "no man page for ${p#bin/}"
    done
    run sh -c "MANWIDTH=200 man -l '$man1/argus-decode.1' 2>/dev/null | sed -n '/^NAME/,/^SYNOPSIS/p' | sed 's/  */ /g'"
    assert_output "NAME
 argus-decode - Decode a trace into an argus event stream (CBOR) on stdout.

SYNOPSIS"
    run grep -c '^\.SH' "$man1/argus.1"
    [ "$output" -ge 5 ]
    run sh -c "MANWIDTH=200 man -l '$man1/argus.1' 2>/dev/null | grep -E '^(GRAPH|DIAGNOSE|SEE ALSO)\$'"
    assert_output "GRAPH
DIAGNOSE
SEE ALSO"
}

@test "make install puts the bash completion: stages, their options, the formats" {
    make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    comp="$BATS_TEST_TMPDIR/root/opt/argus/share/bash-completion/completions"
    [ -L "$comp/argus-decode" ]
    run bash -c "PATH='$BATS_TEST_TMPDIR/root/opt/argus/bin':\$PATH; source '$comp/argus'
        t() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=()
              if [ \"\$1\" = argus ]; then _argus; else _argus_program; fi; echo \"\${COMPREPLY[*]}\"; }
        t argus link-
        t argus decode --form
        t argus diagnose --format ''
        t argus report --output-format ''
        t argus-export --output-format ''
        t argus-segment --no-w"
    assert_output "link-dispatch link-flags link-ipc link-wakeups
--format
argus jsonl kdebug trace-text ftrace tracedat perfdata ctf
text markdown
perfetto dot
--no-wait-split"
}

@test "make install puts libargus.a, headers and argus.pc; the example builds" {
    command -v pkg-config > /dev/null || skip "no pkg-config (Debian package pkg-config)"
    make -s install DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    root="$BATS_TEST_TMPDIR/root/opt/argus"
    [ -f "$root/lib/libargus.a" ]
    [ -f "$root/include/argus/stream/stream.h" ]
    flags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --define-variable=prefix="$root" --cflags --libs argus)
    cc -std=c11 -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/wait-times" \
        "$root/share/doc/argus/examples/wait-times.c" $flags
    run sh -c "argus decode fixtures/demo/hang.jsonl | '$BATS_TEST_TMPDIR/wait-times'"
    assert_success
    assert_output "tid 1001: 1 waits, 3199190000 ns waiting
tid 2001: 1 waits, 3198890000 ns waiting
tid 2002: 1 waits, 3198590000 ns waiting
30 records"
    run make -s uninstall DESTDIR="$BATS_TEST_TMPDIR/root" PREFIX=/opt/argus
    assert_success
    run find "$root" -type f
    assert_output ""
}

@test "libargus.a exports only argus_ names (LeakSanitizer's hooks aside)" {
    # an installed library must not take its users' names (field, map_line)
    command -v nm > /dev/null || skip "no nm (Debian package binutils)"
    [ -f build/libargus.a ] || skip "no build/libargus.a (make all)"
    run sh -c "nm build/libargus.a | awk '\$2 ~ /^[TDBR]\$/ && \$3 !~ /^(argus_|__lsan_)/ { print \$3 }'"
    assert_success
    assert_output ""
}

@test "argus and its subcommands answer -h and --version; usage errors one line" {
    for sub in "" help graph diagnose; do
        run argus $sub --version
        assert_success
        assert_output "argus 0.1.0"
        run argus $sub -h
        assert_success
        assert_line --index 0 --regexp "^Usage: argus( $sub)?"
    done
    run argus help --bogus
    assert_failure 64
    assert_output "argus help: bad argument '--bogus'
Try 'argus help --help' for more information."
}

@test "argus diagnose and graph name why an input cannot be opened (exit 66)" {
    ln -s loop-b "$BATS_TEST_TMPDIR/loop-a"
    ln -s loop-a "$BATS_TEST_TMPDIR/loop-b"
    for cmd in diagnose graph; do
        run argus $cmd "$BATS_TEST_TMPDIR/loop-a"
        assert_failure 66
        assert_output "argus $cmd: $BATS_TEST_TMPDIR/loop-a: Too many levels of symbolic links"
        run argus $cmd fixtures/demo/hang.jsonl/x
        assert_failure 66
        assert_output "argus $cmd: fixtures/demo/hang.jsonl/x: Not a directory"
        run argus $cmd "$BATS_TEST_TMPDIR/none.txt"
        assert_failure 66
        assert_output "argus $cmd: $BATS_TEST_TMPDIR/none.txt: No such file or directory"
    done
    # the stage says the same
    run argus-decode "$BATS_TEST_TMPDIR/loop-a"
    assert_failure 66
    assert_output "argus-decode: $BATS_TEST_TMPDIR/loop-a: Too many levels of symbolic links"
}

@test "argus diagnose reads a directory as CTF; --html to a directory exits 73" {
    mkdir "$BATS_TEST_TMPDIR/dir"
    run argus diagnose "$BATS_TEST_TMPDIR/dir"
    assert_failure 66
    assert_output --regexp "^argus diagnose: $BATS_TEST_TMPDIR/dir: Is a directory, with no CTF trace in it"
    run argus diagnose fixtures/demo/hang.jsonl --html "$BATS_TEST_TMPDIR/dir"
    assert_failure 73
    assert_line "argus diagnose: $BATS_TEST_TMPDIR/dir: cannot write it (Is a directory)"
    ln -s loop-b "$BATS_TEST_TMPDIR/loop-a"
    ln -s loop-a "$BATS_TEST_TMPDIR/loop-b"
    run argus diagnose fixtures/demo/hang.jsonl --html "$BATS_TEST_TMPDIR/loop-a"
    assert_failure 73
    assert_line "argus diagnose: $BATS_TEST_TMPDIR/loop-a: cannot write it (Too many levels of symbolic links)"
}

@test "argus diagnose names an unreadable trace 'Permission denied' (exit 66)" {
    [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null || skip "needs root to run as nobody (setpriv)"
    dir=$(mktemp -d /tmp/argus-front.XXXXXX)
    chmod 755 "$dir"
    cp fixtures/demo/hang.jsonl "$dir/secret.jsonl"
    chmod 600 "$dir/secret.jsonl"
    run setpriv --reuid=nobody --regid=nogroup --clear-groups "$ARGUS_BIN/argus" diagnose "$dir/secret.jsonl"
    rm -rf "$dir"
    assert_failure 66
    assert_output "argus diagnose: $dir/secret.jsonl: Permission denied"
}
