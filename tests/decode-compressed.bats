#!/usr/bin/env bats
# DEC-COMPRESSED (docs/stages/decode.md): a trace compressed with gzip or
# zstd is read as the bytes it holds, whatever the format inside and with
# no flag. The recordings are the real corpus's own gzip files
# (fixtures/real/late-start) and trace.dat fixtures compressed here.

bats_require_minimum_version 1.5.0
load test_helper
load decode_helper

REAL=fixtures/real/late-start

setup() {
    T="$BATS_TEST_TMPDIR"
}


@test "DEC-COMPRESSED: a gzipped recording decodes to its text's stream" {
    gzip -dc "$REAL/hang.txt.gz" > "$T/hang.txt"
    same_stream "$REAL/hang.txt.gz" "$T/hang.txt"
    run --separate-stderr stream "$REAL/hang.txt.gz" --format ftrace
    assert_success
    assert_output "$(cat "$T/other.jsonl")"
    # the header names the file given
    run bash -c "argus-decode '$REAL/hang.txt.gz' | argus-to-json | head -1 | jq -c .stages"
    assert_output "[\"decode $REAL/hang.txt.gz\"]"
}

@test "DEC-COMPRESSED: zstd, gzip members in a row and stdin decode as plain text" {
    gzip -dc "$REAL/hang.txt.gz" > "$T/hang.txt"
    zstd -q -o "$T/hang.txt.zst" "$T/hang.txt"
    same_stream "$T/hang.txt.zst" "$T/hang.txt"
    # gzip -c a >> b: the members are one input
    head -c 100000 "$T/hang.txt" > "$T/a"
    tail -c +100001 "$T/hang.txt" > "$T/b"
    { gzip -c "$T/a"; gzip -c "$T/b"; } > "$T/two.gz"
    same_stream "$T/two.gz" "$T/hang.txt"
    # stdin from the file: the first pass too; from a pipe, as plain text
    # from a pipe (no first pass)
    run --separate-stderr bash -c "argus-decode < '$REAL/hang.txt.gz' | argus-to-json | sed 1d"
    assert_output "$(cat "$T/other.jsonl")"
    run --separate-stderr bash -c "cat '$REAL/hang.txt.gz' | argus-decode | argus-to-json | sed 1d"
    assert_output "$(cat "$T/hang.txt" | argus-decode | argus-to-json | sed 1d)"
}

@test "a compressed trace.dat decodes as the file itself (DEC-COMPRESSED, tracedat)" {
    gzip -c fixtures/tracedat/sleep-v6.dat > "$T/sleep-v6.dat.gz"
    same_stream "$T/sleep-v6.dat.gz" fixtures/tracedat/sleep-v6.dat
    zstd -q -o "$T/sleep-v7.dat.zst" fixtures/tracedat/sleep-v7.dat
    same_stream "$T/sleep-v7.dat.zst" fixtures/tracedat/sleep-v7.dat
}

@test "DEC-COMPRESSED: argus diagnose of a gzipped recording says what its text does" {
    gzip -dc "$REAL/hang.txt.gz" > "$T/hang.txt"
    gzip -dc "$REAL/normal.txt.gz" > "$T/normal.txt"
    argus diagnose --proc gz-waiter --baseline "$T/normal.txt" "$T/hang.txt" > "$T/plain.report"
    run argus diagnose --proc gz-waiter --baseline "$REAL/normal.txt.gz" "$REAL/hang.txt.gz"
    assert_success
    assert_output "$(sed 's|normal.txt|normal.txt.gz|' "$T/plain.report" | sed "s|$T/|$REAL/|")"
    assert_line --index 0 --regexp '^Verdict: gz-waiter/main \[30971\] was blocked 2\.122 s in wait4'
}

@test "DEC-COMPRESSED: the stream programs read a compressed argus stream" {
    argus-decode "$REAL/hang.txt.gz" > "$T/s.cbor"
    gzip -c "$T/s.cbor" > "$T/s.cbor.gz"
    run argus-validate "$T/s.cbor.gz"
    assert_success
    run bash -c "argus-to-json '$T/s.cbor.gz' | sed 1d | md5sum"
    assert_output "$(argus-to-json "$T/s.cbor" | sed 1d | md5sum)"
}

@test "DEC-COMPRESSED: bad compressed data exits 65 naming the compressed byte" {
    head -c 60000 "$REAL/hang.txt.gz" > "$T/cut.gz"
    run --separate-stderr argus-decode "$T/cut.gz"
    assert_failure 65
    assert_equal "$stderr" "argus-decode: $T/cut.gz: gzip data cut short: the file ends inside it, after 60000 compressed bytes"
    gzip -dc "$REAL/hang.txt.gz" | zstd -q -c | head -c 50000 > "$T/cut.zst"
    run --separate-stderr argus-decode "$T/cut.zst"
    assert_failure 65
    assert_equal "$stderr" "argus-decode: $T/cut.zst: zstd data cut short: the file ends inside it, after 50000 compressed bytes"
    # a bit flipped inside the deflate data: zlib's words, at the byte where it saw it
    python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); d[5000] ^= 0xff
open(sys.argv[2], 'wb').write(d)" "$REAL/hang.txt.gz" "$T/bad.gz"
    run --separate-stderr argus-decode "$T/bad.gz"
    assert_failure 65
    [[ "$stderr" =~ ^argus-decode:\ $T/bad\.gz:\ gzip\ data\ corrupt\ at\ compressed\ byte\ [0-9]+:\ [a-z] ]]
    { cat "$REAL/hang.txt.gz"; echo junk; } > "$T/junk.gz"
    run --separate-stderr argus-decode "$T/junk.gz"
    assert_failure 65
    assert_equal "$stderr" "argus-decode: $T/junk.gz: gzip data: bytes that are not gzip after its end, at compressed byte $(stat -c %s "$REAL/hang.txt.gz")"
}

@test "bzip2 and xz are named and refused with the command that helps (DEC-COMPRESSED)" {
    printf 'a line\n' | xz -c > "$T/t.xz"
    run --separate-stderr argus-decode "$T/t.xz"
    assert_failure 65
    assert_equal "$stderr" "argus-decode: $T/t.xz: xz-compressed data (argus reads gzip and zstd, not xz): unxz -k $T/t.xz, then argus-decode $T/t"
}
