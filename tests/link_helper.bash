# Helpers shared by the tests of one link stage: the test file sets
# LINK_STAGE (e.g. link-ipc), then loads this after test_helper.

# link FIXTURE [FLAGS...]: the fixture decoded, then linked.
link() { f=$1; shift; argus-decode "fixtures/graph/$f.jsonl" | "argus-$LINK_STAGE" "$@"; }
# edges FIXTURE [FLAGS...]: only the edge records, one a line.
edges() { link "$@" | argus-to-json | jq -c 'select(.type=="edge")'; }
# A hand-written trace on stdin, linked; the edges.
edges_of() { argus-decode | "argus-$LINK_STAGE" "$@" | argus-to-json | jq -c 'select(.type=="edge")'; }
# The functions above, for `sh -c "$fns; ..."`.
fns="LINK_STAGE=$LINK_STAGE; $(declare -f link edges edges_of)"

expect_fixture() { # FIXTURE
    run sh -c "$fns; link $1 | argus-to-json"
    assert_success
    assert_output "$(cat "fixtures/graph/$1.$LINK_STAGE.expected.jsonl")"
}
