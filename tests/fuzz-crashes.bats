#!/usr/bin/env bats
# The reproducers of tests/fuzz/crashes/ whose target is no program's
# input (argus-record's parsers run as root on a live system), replayed
# through their libFuzzer harness without libFuzzer
# (tests/tools/fuzz-replay.c), with AddressSanitizer and UBSan, on any
# build. The other targets' reproducers replay through the programs in
# the tests of those programs. And the fuzz-link and fuzz-unpack
# harnesses, the same way with LeakSanitizer on: a run cut short frees
# what it held.

load test_helper

setup() {
    tmp=$(mktemp -d)
}

teardown() {
    rm -rf "$tmp"
}

# The fuzz-record harness with argus-record's parsers, sanitized.
build_record_replay() {
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -g \
        -fsanitize=address,undefined -fno-sanitize-recover=all \
        -o "$tmp/replay" tests/fuzz/fuzz-record.c tests/tools/fuzz-replay.c \
        filters/record/parse.c filters/record/symbols.c lib/stream/cli.c -pthread
}

@test "argus-record's ELF reader refuses a misaligned section table offset" {
    build_record_replay
    ASAN_OPTIONS=detect_leaks=0 run "$tmp/replay" tests/fuzz/crashes/record-elf-misaligned-section-table
    assert_success
    assert_output "tests/fuzz/crashes/record-elf-misaligned-section-table: ok"
    refute_output --partial "runtime error"
}

@test "argus-record's parsers take every fuzz-record seed and reproducer cleanly" {
    build_record_replay
    ASAN_OPTIONS=detect_leaks=0 run "$tmp/replay" tests/fuzz/corpus/fuzz-record/* tests/fuzz/crashes/record-*
    assert_success
    refute_output --partial "runtime error"
    refute_output --partial "Sanitizer"
    [ "$(grep -c ': ok$' <<<"$output")" -eq "$(ls tests/fuzz/corpus/fuzz-record/* tests/fuzz/crashes/record-* | wc -l)" ]
}

# The fuzz-link harness with the library's stream and stage code,
# sanitized, LeakSanitizer on.
build_link_replay() {
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -g \
        -fsanitize=address,undefined -fno-sanitize-recover=all \
        -o "$tmp/replay" tests/fuzz/fuzz-link.c tests/tools/fuzz-replay.c \
        lib/stream/*.c lib/stages/*.c -lcbor -lxxhash -lyajl -lz -lzstd -lm -pthread
}

@test "a six-stage run cut short by a bad record frees what it held (fuzz-link)" {
    build_link_replay
    seed=tests/fuzz/corpus/fuzz-link/real-cond-var-hang.cbor
    printf '\000' > "$tmp/empty"                    # no stream header
    printf '\000\240' > "$tmp/bad-header"           # a header of no format
    head -c 3001 "$seed" > "$tmp/cut"               # a record cut short
    { printf '\200'; tail -c +2 "$tmp/cut"; } > "$tmp/cut-max-pending"
    ASAN_OPTIONS=detect_leaks=1 run "$tmp/replay" "$tmp/empty" "$tmp/bad-header" \
        "$tmp/cut" "$tmp/cut-max-pending" "$seed"
    assert_success
    refute_output --partial "Sanitizer"
    [ "$(grep -c ': ok$' <<<"$output")" -eq 5 ]
}

# The fuzz-unpack harness with the library's input code, sanitized,
# LeakSanitizer on.
build_unpack_replay() {
    ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -g \
        -fsanitize=address,undefined -fno-sanitize-recover=all \
        -o "$tmp/replay" tests/fuzz/fuzz-unpack.c tests/tools/fuzz-replay.c \
        lib/stream/*.c -lcbor -lxxhash -lyajl -lz -lzstd -lm -pthread
}

@test "compressed input cut short or corrupt closes its input (fuzz-unpack)" {
    build_unpack_replay
    seq 1 5000 | gzip -c > "$tmp/whole.gz"
    head -c 300 "$tmp/whole.gz" > "$tmp/cut.gz"                 # cut short
    { cat "$tmp/whole.gz"; printf 'not gzip'; } > "$tmp/trailing.gz"
    seq 1 5000 | zstd -q -c > "$tmp/whole.zst"
    { head -c 40 "$tmp/whole.zst"; printf '\377%.0s' $(seq 64); } > "$tmp/corrupt.zst"
    # each 50 times, in a process of 64 files at most: a run cut short
    # that left its file open would run out of them
    inputs=()
    for i in $(seq 50); do
        inputs+=("$tmp/cut.gz" "$tmp/trailing.gz" "$tmp/corrupt.zst" "$tmp/whole.gz")
    done
    ASAN_OPTIONS=detect_leaks=1 run bash -c 'ulimit -n 64 && exec "$@"' - "$tmp/replay" "${inputs[@]}"
    assert_success
    refute_output --partial "Sanitizer"
    [ "$(grep -c ': ok$' <<<"$output")" -eq 200 ]
}
