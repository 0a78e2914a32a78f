#!/usr/bin/env bats
# The docs against the code: the rules cited are the project's own, the
# files a --help names exist, the docs speak of the project alone.

load test_helper

RULE='\b(DEC|CULL|SEG|IPC|DISP|FLAG|WAKE|GRAPH|SPIN|SIM|DIFF|WATCH)-[A-Z0-9]+(-[A-Z0-9]+)*\b'

# Rule ids defined on the stage pages: a heading "### ID" or a paragraph
# opening "**ID.**".
defined_rules() {
    grep -hE '^(### |\*\*)' docs/stages/*.md | grep -oE "^(### |\*\*)$RULE" |
        sed 's/^### //; s/^\*\*//' | sort -u
}

@test "every rule id cited in code, tests and docs is defined on a stage page" {
    run bash -c "git ls-files filters lib include tests scripts docs bench README.md |
        grep -v '^tests/fuzz/corpus/' | xargs grep -hoE '$RULE' | sort -u"
    cited=$output
    [ -n "$cited" ]
    run comm -23 <(echo "$cited") <(defined_rules)
    assert_output ""
}

@test "docs/rules.md lists every rule defined on a stage page, with its page" {
    while read -r id; do
        page=$(grep -lE "^(### |\*\*)$id\b" docs/stages/*.md | head -1)
        grep -qF -- "- **$id** ([stages/${page#docs/stages/}](stages/${page#docs/stages/}))" docs/rules.md ||
            fail "$id ($page) is not listed in docs/rules.md"
    done < <(defined_rules)
    run grep -oE "^- \*\*[A-Z]+-[A-Z0-9-]+\*\*" docs/rules.md
    [ "${#lines[@]}" = "$(defined_rules | wc -l)" ]
}

@test "every file a --help names exists in the repository (no spec kept elsewhere)" {
    for p in "$ARGUS_BIN"/argus-*; do
        "$p" --help | grep -oE '\b(docs|fixtures|tests)/[A-Za-z0-9_./-]+\.md\b' | while read -r f; do
            [ -f "$f" ] || { echo "$(basename "$p") --help names $f"; }
        done
    done > "$BATS_TEST_TMPDIR/missing"
    run cat "$BATS_TEST_TMPDIR/missing"
    assert_output ""
    run grep -l 'graph-rules' "$ARGUS_BIN"/argus-*
    assert_failure
}

@test "no tracked file, fixtures included, cites an issue number (history is git's)" {
    run bash -c "git ls-files -z | xargs -0 grep -nPIi '\bissues?\s+#?\d+'"
    assert_output ""
}

@test "the docs, code, tests and scripts cite no seed number (history is git's)" {
    run bash -c "git ls-files | grep -v '^fixtures/' | xargs grep -nPi '\bseeds?\s+0\d\d\b'"
    assert_output ""
}

# A test's name says what it proves in a line, its rule id first when it
# has one (about 80 characters); 100 is the most.
@test "every test's name is at most 100 characters" {
    names=$(grep -h '^@test' tests/*.bats tests/live/*.bats | sed -E 's/^@test "(.*)" \{ *$/\1/')
    [ "$(wc -l <<< "$names")" -gt 800 ]
    run awk 'length($0) > 100' <<< "$names"
    assert_output ""
}

@test "argus help gives each program its summary, the line after its usage" {
    run argus help
    assert_success
    assert_line "  diff               Name each hang's culprits against its similar node in a baseline graph."
    assert_line "  find-spinning      Find the hang nodes of a graph stream, their causal paths and wait chains."
    refute_line --regexp '^  [a-z-]+ +$'
    refute_line --regexp '^  [a-z-]+ +Usage:'
}

# The words each default threshold is stated in, everywhere (help, man
# page, docs); its number is find-spinning's constant.
threshold_words() {
    LOOP=$(sed -n 's/^#define ARGUS_LOOP_HANG_MS \([0-9][0-9]*\).*/\1/p' include/argus/analysis/find-spinning.h)
    HANG=$(sed -n 's/^#define ARGUS_LINUX_HANG_MS \([0-9][0-9]*\).*/\1/p' include/argus/analysis/find-spinning.h)
    ANR=$(sed -n 's/^#define ANR_MS \([0-9][0-9]*\).*/\1/p' lib/analysis/find-spinning.c)
    [ -n "$LOOP" ] && [ -n "$HANG" ] && [ -n "$ANR" ] || fail "find-spinning's constants not found"
    LOOP_SAYS="main loop away from its wait for $LOOP ms"
    HANG_SAYS="blocked or busy for $HANG ms"
}

# flat FILE...: the text on one line, spaces squeezed (a sentence may
# break anywhere)
flat() { cat "$@" | tr '\n' ' ' | tr -s ' '; }

@test "each default hang threshold is stated once, in find-spinning's Thresholds table" {
    threshold_words
    run grep -cF "| a GUI program's main loop away from its wait | $LOOP ms | SPIN-LOOP |" docs/stages/find-spinning.md
    assert_output 1
    run grep -cF "| a main thread blocked or busy, where no GUI loop is seen | $HANG ms | SPIN-HANG |" docs/stages/find-spinning.md
    assert_output 1
    run grep -cF "| an Android app's input not handled | $ANR ms | SPIN-ANR |" docs/stages/find-spinning.md
    assert_output 1
}

@test "help, man page and docs state the thresholds alike and link their table" {
    threshold_words
    argus diagnose --help > "$BATS_TEST_TMPDIR/diagnose.help"
    argus find-spinning --help > "$BATS_TEST_TMPDIR/fs.help"
    argus watch --help > "$BATS_TEST_TMPDIR/watch.help"
    for f in diagnose.help fs.help watch.help; do
        run flat "$BATS_TEST_TMPDIR/$f"
        assert_output --partial "$LOOP_SAYS"
        assert_output --partial "$HANG_SAYS"
        assert_output --regexp "docs/stages/ ?find-spinning.md, Thresholds"
    done
    # the man page is made from --help (scripts/mkman)
    if command -v help2man > /dev/null; then
        scripts/mkman "$ARGUS_BIN/argus" "$BATS_TEST_TMPDIR/argus.1"
        run flat "$BATS_TEST_TMPDIR/argus.1"
        assert_output --partial "$LOOP_SAYS"
        assert_output --partial "$HANG_SAYS"
    fi
    for f in README.md docs/inputs/linux.md docs/stages/watch.md docs/diagnose.md; do
        run flat "$f"
        assert_output --partial "$HANG_SAYS"
        assert_output --partial "$LOOP_SAYS"
        assert_output --partial "find-spinning.md#thresholds)"
    done
    # no other number said for them anywhere, nor the old wordings
    run sh -c "cat README.md docs/*.md docs/*/*.md | tr '\n' ' ' | tr -s ' ' |
        grep -oE 'away from its (wait|input) for [0-9.,]+ (ms|s)|blocked or busy for [0-9.,]+ (ms|s)|its wait within [0-9.,]+ (ms|s)' | sort -u"
    assert_output "away from its wait for $LOOP ms
blocked or busy for $HANG ms
its wait within $ANR ms"
}
