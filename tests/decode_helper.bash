# Shared by the tests of inputs that must decode to the stream of another
# form of the same trace (tests/decode-tracedat.bats: a trace.dat and its
# report text; tests/decode-compressed.bats: a compressed file and its
# bytes). $T is the test's own folder.

# stream FILE [ARGS]: FILE decoded, as JSON lines, without the header
# (its "stages" names the file)
stream() {
    set -o pipefail
    argus-decode "${@:2}" "$1" | argus-to-json | sed 1d
}

# same_stream FILE OTHER: FILE and OTHER give one stream, of more than 100
# records (OTHER's is kept in $T/other.jsonl)
same_stream() {
    stream "$2" > "$T/other.jsonl"
    run --separate-stderr stream "$1"
    assert_success
    assert_output "$(cat "$T/other.jsonl")"
    [ "$(wc -l < "$T/other.jsonl")" -gt 100 ]
}
