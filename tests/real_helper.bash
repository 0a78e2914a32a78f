# Shared by the tests on the real recordings (tests/real.bats,
# tests/desktop.bats): fixtures/real/NAME unpacked once per file, argus
# diagnose on them, their findings through jq.

# unpack NAME...: each recording's hang and normal run as $R/NAME.txt and
# $R/NAME.normal.txt
unpack() {
    local n
    for n in "$@"; do
        gzip -dc "$ARGUS_ROOT/fixtures/real/$n/hang.txt.gz" > "$BATS_FILE_TMPDIR/$n.txt"
        gzip -dc "$ARGUS_ROOT/fixtures/real/$n/normal.txt.gz" > "$BATS_FILE_TMPDIR/$n.normal.txt"
    done
}

setup() {
    R=$BATS_FILE_TMPDIR
}

# diagnose NAME [ARGS...]: argus diagnose on NAME's hang, with no flag but
# ARGS; the findings kept as $R/NAME.findings (as JSON lines in
# $R/NAME.json) and the report in $R/NAME.report.
diagnose() {
    local n=$1
    shift
    argus diagnose --keep "$R/$n.findings" "$@" "$R/$n.txt" > "$R/$n.report"
    argus-to-json "$R/$n.findings" > "$R/$n.json"
}

# records NAME JQ: the findings of the last diagnose of NAME through JQ
records() { jq -c "$2" "$R/$1.json"; }
