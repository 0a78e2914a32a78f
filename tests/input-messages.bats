#!/usr/bin/env bats
# What argus says when it is given a file that is no trace it reads, or a
# --format it does not know: each message names what
# the file is, what argus reads, and the one command that would help, in
# the words of the command the user typed (argus diagnose, argus graph),
# never an internal program's (argus-chain, argus-decode); bad input exits
# 65, a bad option 64 (../shared/spec/stream-v1.md). The decoder tells
# them in lib/decode/decode.c; scripts/argus passes the command typed
# (ARGUS_USER_COMMAND).

load test_helper

# what every "not a trace" message says argus reads
READS="it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream"

@test "a Python script given as a trace: named, with the argus record command" {
    printf '#!/usr/bin/env python3\nimport gi\ngi.require_version("Gtk", "3.0")\n' > "$BATS_TEST_TMPDIR/gtkapp.py"
    run argus diagnose "$BATS_TEST_TMPDIR/gtkapp.py"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/gtkapp.py: a python3 script, not a trace argus reads ($READS); record a trace of it running: sudo argus record -o trace.txt -- python3 $BATS_TEST_TMPDIR/gtkapp.py"
    # with no #! line, its first statement tells it
    printf 'import gi\nfrom gi.repository import Gtk\n' > "$BATS_TEST_TMPDIR/app.py"
    run argus diagnose "$BATS_TEST_TMPDIR/app.py"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/app.py: a Python program, not a trace argus reads ($READS); record a trace of it running: sudo argus record -o trace.txt -- python3 $BATS_TEST_TMPDIR/app.py"
    # a shell script: its interpreter's name
    printf '#!/bin/sh\necho hi\n' > "$BATS_TEST_TMPDIR/run.sh"
    run argus graph "$BATS_TEST_TMPDIR/run.sh"
    assert_failure 65
    assert_output "argus graph: $BATS_TEST_TMPDIR/run.sh: a sh script, not a trace argus reads ($READS); record a trace of it running: sudo argus record -o trace.txt -- sh $BATS_TEST_TMPDIR/run.sh"
}

@test "argus's own HTML page given as a trace: named, and what reads its trace" {
    argus diagnose --html "$BATS_TEST_TMPDIR/page.html" fixtures/demo/hang.jsonl > /dev/null
    run argus diagnose "$BATS_TEST_TMPDIR/page.html"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/page.html: argus's own HTML page (argus diagnose --html wrote it), not a trace: open it in a browser (xdg-open $BATS_TEST_TMPDIR/page.html); argus diagnose reads the trace the page was made from"
    # another HTML page (not systrace's, which holds a trace): not a trace
    printf '<!DOCTYPE html>\n<html><body>hello</body></html>\n' > "$BATS_TEST_TMPDIR/other.html"
    run argus diagnose "$BATS_TEST_TMPDIR/other.html"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/other.html: an HTML page, not a trace argus reads ($READS); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
}

@test "-f perf: an unknown format says perf.data is perfdata, told alone" {
    run argus diagnose -f perf fixtures/perfdata/hang.data.gz
    assert_failure 64
    assert_output "argus diagnose: unknown format 'perf': perf's perf.data is --format perfdata, and argus tells it without --format: argus diagnose fixtures/perfdata/hang.data.gz
Try 'argus diagnose --help' for more information."
    run argus graph --format trace.dat x.dat
    assert_failure 66      # the file is looked at first
    run argus graph --format lttng fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus graph: unknown format 'lttng': an LTTng trace is --format ctf, and argus tells it without --format: argus graph fixtures/demo/hang.jsonl
Try 'argus graph --help' for more information."
    run argus diagnose --format frobnicate fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus diagnose: unknown format 'frobnicate' (the formats: argus, jsonl, kdebug, trace-text, ftrace, tracedat, perfdata, perfetto, ctf); argus tells the format from the trace itself: argus diagnose fixtures/demo/hang.jsonl
Try 'argus diagnose --help' for more information."
    # the program itself, run alone, names itself
    run argus-decode --format perf fixtures/demo/hang.jsonl
    assert_failure 64
    assert_output "argus-decode: unknown format 'perf': perf's perf.data is --format perfdata, and argus tells it without --format: argus-decode fixtures/demo/hang.jsonl
Try 'argus-decode --help' for more information."
}

@test "a perf.data given with a text format: named, with the command that reads it" {
    zcat fixtures/perfdata/hang.data.gz > "$BATS_TEST_TMPDIR/perf.data"
    run argus diagnose --format ftrace "$BATS_TEST_TMPDIR/perf.data"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/perf.data: a perf.data file, not ftrace text: argus tells its format without --format: argus diagnose $BATS_TEST_TMPDIR/perf.data"
    # and without --format it is read (no message about its format)
    run sh -c "argus diagnose '$BATS_TEST_TMPDIR/perf.data' 2>&1 >/dev/null"
    refute_output --partial "format"
}

@test "text or binary data of no format: what argus reads and how to record" {
    printf 'hello world\nthese are my notes\n' > "$BATS_TEST_TMPDIR/notes.txt"
    run argus diagnose "$BATS_TEST_TMPDIR/notes.txt"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/notes.txt: text, not a trace argus reads ($READS); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
    printf 'junk\000\001\002 more junk\n' > "$BATS_TEST_TMPDIR/junk.bin"
    run argus diagnose "$BATS_TEST_TMPDIR/junk.bin"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/junk.bin: binary data, not a trace argus reads ($READS); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
    # a compressed trace in a compression argus does not read
    command -v bzip2 >/dev/null || skip "no bzip2"
    bzip2 -c fixtures/demo/hang.jsonl > "$BATS_TEST_TMPDIR/hang.jsonl.bz2"
    run argus diagnose "$BATS_TEST_TMPDIR/hang.jsonl.bz2"
    assert_failure 65
    assert_output "argus diagnose: $BATS_TEST_TMPDIR/hang.jsonl.bz2: bzip2-compressed data (argus reads gzip and zstd, not bzip2): bunzip2 -k $BATS_TEST_TMPDIR/hang.jsonl.bz2, then argus diagnose $BATS_TEST_TMPDIR/hang.jsonl"
    # the command it suggests works
    bunzip2 -k "$BATS_TEST_TMPDIR/hang.jsonl.bz2"
    run argus diagnose "$BATS_TEST_TMPDIR/hang.jsonl"
    assert_success
}

@test "no message about a trace names argus-chain or suggests a useless --format" {
    printf 'hello\n' > "$BATS_TEST_TMPDIR/a.txt"
    printf '#!/usr/bin/python3\n' > "$BATS_TEST_TMPDIR/b.py"
    printf 'x\000y' > "$BATS_TEST_TMPDIR/c.bin"
    for f in a.txt b.py c.bin; do
        run argus diagnose "$BATS_TEST_TMPDIR/$f"
        assert_failure 65
        refute_output --partial "argus-chain"
        refute_output --partial "argus-decode"
        refute_output --partial "give --format"
        refute_output --partial "bad JSON"
    done
}
