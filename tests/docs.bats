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

@test "every rule id cited in the programs, the library, the tests and the docs is defined on a stage page" {
    run bash -c "git ls-files filters lib include tests scripts docs bench README.md |
        grep -v '^tests/fuzz/corpus/' | xargs grep -hoE '$RULE' | sort -u"
    cited=$output
    [ -n "$cited" ]
    run comm -23 <(echo "$cited") <(defined_rules)
    assert_output ""
}

@test "docs/rules.md lists every rule defined on a stage page, with the page that defines it" {
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

@test "the docs, code, tests and scripts speak of the project alone: no seed or issue numbers (history is git's)" {
    run bash -c "git ls-files | grep -v '^fixtures/' | xargs grep -nPi '\bseeds?\s+0\d\d\b|\bissues?\s+\d+'"
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
