#!/usr/bin/env bats
# argus-similar: SIM-SIG, SIM-MATCH. Expected records were worked out by
# hand from the rules (docs/stages/similar.md): a signature's
# size is its number of elements after collapsing, the distance is the
# edit distance of two signatures, percent = distance * 100 / the longer.

load test_helper

TMP="$BATS_TEST_TMPDIR"

# graph NAME TRACE: the graph stream of TRACE (argus graph) as $TMP/NAME.
graph() { argus graph "$2" > "$TMP/$1"; }

# with_hangs STREAM OUT RECORD...: $TMP/STREAM with the hang records
# appended as argus-find-spinning would, as $TMP/OUT.
with_hangs() {
    local s=$1 o=$2
    shift 2
    { argus-to-json "$TMP/$s"; printf '%s\n' "$@"; } | argus-decode --format jsonl > "$TMP/$o"
}

# similar BASE STREAM [FLAGS...]: argus-similar --in BASE < STREAM, run in
# $TMP (so the records name the baseline as BASE), rendered as JSON lines.
similar() {
    local b=$1 s=$2
    shift 2
    (cd "$TMP" && set -o pipefail && argus-similar --in "$b" "$@" < "$s" | argus-to-json)
}

# matches BASE STREAM [FLAGS...]: only the match records.
matches() {
    set -o pipefail
    similar "$@" | jq -c 'select(.type=="match")'
}

# trace NAME TID SEG...: a trace where Mail's main thread (tid and pid TID)
# runs each SEG, then waits; its graph stream as $TMP/NAME. A SEG is a
# string of letters, each a syscall of that name: one SIM-SIG element per
# letter (a repeat collapses), and one for the wait. Segment K of the
# graph is the K-th SEG; every one but the first starts with the woken
# that decode adds (one more event, no signature element). A last SEG
# ending in "-" has no wait: the trace ends while it runs.
trace() {
    local name=$1 tid=$2 s i ts=1000
    shift 2
    {
        printf '{"type":"thread","tid":%d,"pid":%d,"proc":"Mail","main":true}\n' "$tid" "$tid"
        for s in "$@"; do
            for ((i = 0; i < ${#s}; i++)); do
                [ "${s:i:1}" != - ] || continue
                ts=$((ts + 10))
                printf '{"type":"syscall","ts":%d,"tid":%d,"name":"%s"}\n' "$ts" "$tid" "${s:i:1}"
            done
            [ "${s: -1}" != - ] || continue
            ts=$((ts + 10))
            printf '{"type":"wait","ts":%d,"tid":%d,"resource":%d,"reason":"psynch_cvwait"}\n' \
                "$ts" "$tid" $((tid * 4096 + ts))
        done
    } > "$TMP/$name.jsonl"
    graph "$name" "$TMP/$name.jsonl"
}

# The buggy Mail run with two hang records: hang 0 on the main thread's
# keyDown segment (seg 2), hang 1 on accountsd's segment (seg 3).
HANG0='{"type":"hang","hang":0,"seg":2,"tid":73301,"pid":733,"proc":"Mail","thread":"main","begin":7000000,"end":7510000,"duration":510000,"class":"wait","indicator":"hang","at":7510000,"events":7,"yields":0,"wait":9,"resource":"0x3c0b","reason":"mach_msg receive"}'
HANG1='{"type":"hang","hang":1,"seg":3,"tid":31805,"pid":318,"proc":"accountsd","thread":"server","begin":7600000,"end":7800000,"duration":200000,"class":"wait","indicator":"hang","at":7800000,"events":5,"yields":0,"wait":14,"resource":"0x7fb2d8c0a0c0","reason":"psynch_mutexwait"}'
mail() {
    graph base.graph fixtures/similar/mail.base.jsonl
    graph bug.graph fixtures/similar/mail.bug.jsonl
    with_hangs bug.graph hangs.graph "$HANG0" "$HANG1"
}

@test "SIM-SIG, SIM-MATCH: the hang matches its counterpart in another run at 0" {
    mail
    run matches base.graph hangs.graph
    assert_success
    assert_output '{"type":"match","hang":0,"seg":2,"rank":1,"baseline_seg":2,"distance":0,"percent":0,"size":5,"baseline_size":5,"baseline":"base.graph"}
{"type":"match","hang":0,"seg":2,"rank":2,"baseline_seg":6,"distance":1,"percent":20,"size":5,"baseline_size":4,"baseline":"base.graph"}'
}

@test "SIM-MATCH: the hang records of argus-find-spinning name the nodes" {
    graph base.graph fixtures/similar/mail.base.jsonl
    argus graph fixtures/similar/mail.bug.jsonl | argus-find-spinning > "$TMP/spin.graph"
    run matches base.graph spin.graph
    assert_success
    assert_output '{"type":"match","hang":0,"seg":2,"rank":1,"baseline_seg":2,"distance":0,"percent":0,"size":5,"baseline_size":5,"baseline":"base.graph"}
{"type":"match","hang":0,"seg":2,"rank":2,"baseline_seg":6,"distance":1,"percent":20,"size":5,"baseline_size":4,"baseline":"base.graph"}'
}

@test "SIM-SIG: ipc peers count by process name and msg_id, not by pid" {
    peer() { # TID PID PEER_PID MSG_ID: one segment, an ipc send then open, read, wait
        printf '{"type":"ipc","ts":%d,"tid":%d,"dir":"send","port":"0x1a03","msg_id":%d,"peer":%d}\n' "$1" "$2" "$4" "$3"
        printf '{"type":"syscall","ts":%d,"tid":%d,"name":"open"}\n' $(($1 + 1)) "$2"
        printf '{"type":"syscall","ts":%d,"tid":%d,"name":"read"}\n' $(($1 + 2)) "$2"
        printf '{"type":"wait","ts":%d,"tid":%d,"resource":"0x2b07","reason":"mach_msg receive"}\n' $(($1 + 3)) "$2"
    }
    {
        echo '{"type":"thread","tid":501,"pid":501,"proc":"Mail","main":true}'
        echo '{"type":"thread","tid":302,"pid":302,"proc":"accountsd"}'
        peer 1000 501 302 401
    } > "$TMP/base.jsonl"
    {
        echo '{"type":"thread","tid":733,"pid":733,"proc":"Mail","main":true}'
        echo '{"type":"thread","tid":318,"pid":318,"proc":"accountsd"}'
        echo '{"type":"thread","tid":319,"pid":319,"proc":"securityd"}'
        peer 1000 733 318 401     # seg 1: accountsd under another pid
        peer 2000 733 318 402     # seg 2: another msg_id
        peer 3000 733 319 401     # seg 3: another process
    } > "$TMP/bug.jsonl"
    graph base.graph "$TMP/base.jsonl"
    graph bug.graph "$TMP/bug.jsonl"
    run matches base.graph bug.graph --seg 1 --seg 2 --seg 3
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":4,"baseline_size":4,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":1,"baseline_seg":1,"distance":1,"percent":25,"size":4,"baseline_size":4,"baseline":"base.graph"}
{"type":"match","seg":3,"rank":1,"baseline_seg":1,"distance":1,"percent":25,"size":4,"baseline_size":4,"baseline":"base.graph"}'
}

@test "SIM-SIG: a loop run 5 times and one run 500 times read the same" {
    loop() { # TID N: Finder's main thread: keyDown, N turns of stat, read, flag_read, then a wait
        local t=$1 n=$2 i ts=1000
        printf '{"type":"thread","tid":%d,"pid":%d,"proc":"Finder","main":true}\n' "$t" "$t"
        printf '{"type":"ui_event","ts":%d,"tid":%d,"kind":"keyDown"}\n' "$ts" "$t"
        for ((i = 0; i < n; i++)); do
            printf '{"type":"syscall","ts":%d,"tid":%d,"name":"stat","phase":"begin"}\n' $((ts += 10)) "$t"
            printf '{"type":"syscall","ts":%d,"tid":%d,"name":"stat","phase":"end","ret":0}\n' $((ts += 10)) "$t"
            printf '{"type":"syscall","ts":%d,"tid":%d,"name":"read"}\n' $((ts += 10)) "$t"
            printf '{"type":"flag_read","ts":%d,"tid":%d,"addr":"0x7fff8a2c1040","value":0,"name":"kBusy"}\n' $((ts += 10)) "$t"
        done
        printf '{"type":"wait","ts":%d,"tid":%d,"resource":"0x1000","reason":"mach_msg receive"}\n' $((ts += 10)) "$t"
    }
    loop 101 5 > "$TMP/base.jsonl"
    loop 202 500 > "$TMP/bug.jsonl"
    graph base.graph "$TMP/base.jsonl"
    graph bug.graph "$TMP/bug.jsonl"
    # keyDown, stat, read, flag_read kBusy, wait: 5 elements in both
    run matches base.graph bug.graph --seg 1
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":5,"baseline_size":5,"baseline":"base.graph"}'
}

@test "SIM-MATCH: only nodes of the same thread role match" {
    graph base.graph fixtures/similar/roles.base.jsonl
    graph roles.graph fixtures/similar/roles.jsonl
    # segs 1-3 of the baseline have the same signature, but another
    # process name (1, 2) or another thread name (3)
    run matches base.graph roles.graph --seg 1 --seg 2
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":4,"distance":0,"percent":0,"size":3,"baseline_size":3,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":1,"baseline_seg":5,"distance":0,"percent":0,"size":3,"baseline_size":3,"baseline":"base.graph"}'
}

@test "SIM-MATCH: signature sizes differing by over 20% do not match" {
    # query abcdefghi+wait (10): sizes 8..12 are within 20%
    trace base.graph 101 abcdef abcdefghijkl abcdefghijk abcdefg
    trace bug.graph 202 x abcdefghi
    # seg 1: size 7 (3 edits, 30%), seg 2: size 13 (3 edits, 23%): too
    # small and too big; seg 3: 12, seg 4: 8, both 2 edits; the same
    # event count difference (2), so the earlier first
    run matches base.graph bug.graph --seg 2
    assert_success
    assert_output '{"type":"match","seg":2,"rank":1,"baseline_seg":3,"distance":2,"percent":16,"size":10,"baseline_size":12,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":2,"baseline_seg":4,"distance":2,"percent":20,"size":10,"baseline_size":8,"baseline":"base.graph"}'
}

@test "SIM-MATCH: an edit distance of 40% of the longer signature does not match" {
    # query abcdefghi+wait (10): 4 edits (40%) no, 3 edits (30%) yes;
    # abcd+wait (5): 2 edits (40%) no, 1 edit (20%) yes
    trace base.graph 101 abcdewxyz abcdefxyz axxd abxd
    trace bug.graph 202 abcdefghi abcd
    run matches base.graph bug.graph --seg 1 --seg 2
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":2,"distance":3,"percent":30,"size":10,"baseline_size":10,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":1,"baseline_seg":4,"distance":1,"percent":20,"size":5,"baseline_size":5,"baseline":"base.graph"}'
}

@test "SIM-MATCH: a node cut short by its trace's end is compared cut to length" {
    # the query runs abcde and the trace ends (size 5, no wait): seg 1
    # (abcdefgh+wait, 9) and seg 2 (abcdxyz+wait, 8) are cut to 5: 0 and
    # 1 edits; seg 3 (abc+wait, 4) is compared whole: 2 edits of 5 (40%)
    trace base.graph 101 abcdefgh abcdxyz abc
    trace bug.graph 202 x abcde-
    run matches base.graph bug.graph --seg 2
    assert_success
    assert_output '{"type":"match","seg":2,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":5,"baseline_size":9,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":2,"baseline_seg":2,"distance":1,"percent":20,"size":5,"baseline_size":8,"baseline":"base.graph"}'
    # the same node ending in its wait (abcde+wait, 6) is compared whole:
    # segs 1 and 2 are too big, seg 3 too small: no SIM-MATCH match (the
    # records are SIM-KINDS's, "by":"kinds": its 6 kinds against seg 3's
    # 4, all shared, 2 apart; seg 1's 9, 3 apart; seg 2's 8, 5 shared, 4
    # apart of 9)
    trace bug.graph 202 x abcde
    run matches base.graph bug.graph --seg 2
    assert_success
    assert_output '{"type":"match","seg":2,"rank":1,"baseline_seg":3,"distance":2,"percent":33,"size":6,"baseline_size":4,"baseline":"base.graph","by":"kinds"}
{"type":"match","seg":2,"rank":2,"baseline_seg":1,"distance":3,"percent":33,"size":6,"baseline_size":9,"baseline":"base.graph","by":"kinds"}
{"type":"match","seg":2,"rank":3,"baseline_seg":2,"distance":4,"percent":44,"size":6,"baseline_size":8,"baseline":"base.graph","by":"kinds"}'
}

@test "SIM-SIG, SIM-MATCH: a thread asleep at the trace's start reads as its syscall" {
    # baseline: a, b, recvfrom (blocks: the wait inside it adds nothing),
    # then c and a wait: segs 1 (a b recvfrom, 3) and 2 (c wait, 2)
    cat > "$TMP/b.jsonl" <<'EOF'
{"type":"thread","tid":101,"pid":101,"proc":"cli","main":true}
{"type":"syscall","ts":1000,"tid":101,"name":"a"}
{"type":"syscall","ts":1010,"tid":101,"name":"b"}
{"type":"syscall","ts":1020,"tid":101,"name":"recvfrom","phase":"begin"}
{"type":"wait","ts":1030,"tid":101,"resource":1,"reason":"recvfrom"}
{"type":"syscall","ts":2000,"tid":101,"name":"recvfrom","phase":"end","ret":5}
{"type":"syscall","ts":2010,"tid":101,"name":"c"}
{"type":"wait","ts":2030,"tid":101,"resource":2,"reason":"psynch_cvwait"}
EOF
    # the trace begins while the thread is in recvfrom (decode's synth
    # wait): seg 1 is that wait alone, which reads "syscall recvfrom" (1)
    # and is the end of seg 1 of the baseline
    cat > "$TMP/g.jsonl" <<'EOF'
{"type":"thread","tid":202,"pid":202,"proc":"cli","main":true}
{"type":"wait","ts":1000,"tid":202,"resource":1,"reason":"recvfrom","synth":true}
{"type":"syscall","ts":3000,"tid":202,"name":"recvfrom","phase":"end","ret":5}
{"type":"syscall","ts":3010,"tid":202,"name":"c"}
{"type":"wait","ts":3030,"tid":202,"resource":2,"reason":"psynch_cvwait"}
EOF
    graph base.graph "$TMP/b.jsonl"
    graph bug.graph "$TMP/g.jsonl"
    run matches base.graph bug.graph --seg 1 --seg 2
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":1,"baseline_size":3,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":1,"baseline_seg":2,"distance":0,"percent":0,"size":2,"baseline_size":2,"baseline":"base.graph"}'
}

@test "SIM-FIRST: a retried wait whose last segment has no match uses its first" {
    # the hang is seg 2 (z+wait, 2: no candidate of its size); its first
    # segment, seg 1 (abc+wait), is the baseline's seg 1
    trace base.graph 101 abc pqrs
    trace bug.graph 202 abc z
    with_hangs bug.graph hangs.graph '{"type":"hang","hang":0,"seg":2,"first_seg":1,"waits":2,"tid":202,"pid":202,"proc":"Mail","class":"wait"}'
    run matches base.graph hangs.graph
    assert_success
    assert_output '{"type":"match","hang":0,"seg":1,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":4,"baseline_size":4,"baseline":"base.graph"}'
}

# ui_trace NAME TID KIND:LETTERS...: like trace, each segment opening with
# a ui_event of KIND
ui_trace() {
    local name=$1 tid=$2 ts=1000 s k i
    shift 2
    {
        printf '{"type":"thread","tid":%d,"pid":%d,"proc":"Mail","main":true}\n' "$tid" "$tid"
        for s in "$@"; do
            k=${s%%:*}
            ts=$((ts + 10))
            printf '{"type":"ui_event","ts":%d,"tid":%d,"kind":"%s"}\n' "$ts" "$tid" "$k"
            s=${s#*:}
            for ((i = 0; i < ${#s}; i++)); do
                ts=$((ts + 10))
                printf '{"type":"syscall","ts":%d,"tid":%d,"name":"%s"}\n' "$ts" "$tid" "${s:i:1}"
            done
            ts=$((ts + 10))
            printf '{"type":"wait","ts":%d,"tid":%d,"resource":%d,"reason":"psynch_cvwait"}\n' "$ts" "$tid" "$ts"
        done
    } > "$TMP/$name.jsonl"
    graph "$name" "$TMP/$name.jsonl"
}

@test "SIM-KINDS: without SIM-MATCH, a candidate of the same UI kind sharing half" {
    # the node: keyDown a b c d wait (6 elements, 6 kinds). Seg 1: a
    # mouseDown with a b c d in reverse (5 kinds of 7 shared, 4 edits);
    # seg 3 (after seg 2, the woken alone): a keyDown, d c x (4 of 7
    # shared, 3 edits of 6: 50%)
    ui_trace base.graph 101 mouseDown:dcba keyDown:dcx
    ui_trace bug.graph 202 keyDown:abcd
    run matches base.graph bug.graph --seg 1
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":3,"distance":3,"percent":42,"size":6,"baseline_size":5,"baseline":"base.graph","by":"kinds"}'
}

@test "SIM-KINDS, SIM-NONE: under half the kinds shared is no match, nearest named" {
    # abcde+wait against abxyzw+wait: a, b and the wait shared, 3 of 10
    trace base.graph 101 abxyzw
    trace bug.graph 202 x abcde
    run sh -c "cd $TMP && argus-similar --in base.graph --seg 2 bug.graph | argus-to-json | jq -c 'select(.type == \"match\" or .type == \"no_match\")'"
    assert_success
    assert_output '{"type":"no_match","seg":2,"why":"unlike","size":6,"nearest":1,"distance":7,"percent":70,"baseline_size":7,"baseline":"base.graph"}'
}

@test "SIM-NONE, SIM-BASELINE: a program not in the baseline gets no_match program" {
    # the baseline's accountsd renamed keychaind: hang 1 (accountsd) has
    # no program there; hang 0 (Mail) still matches its keyDown (its
    # send names keychaind there: 1 edit)
    sed 's/"proc":"accountsd"/"proc":"keychaind"/' fixtures/similar/mail.base.jsonl > "$TMP/other.jsonl"
    graph base.graph "$TMP/other.jsonl"
    graph bug.graph fixtures/similar/mail.bug.jsonl
    with_hangs bug.graph hangs.graph "$HANG0" "$HANG1"
    run sh -c "cd $TMP && argus-similar --in base.graph hangs.graph | argus-to-json | jq -c 'select(.type == \"match\" or .type == \"no_match\")'"
    assert_success
    assert_output '{"type":"match","hang":0,"seg":2,"rank":1,"baseline_seg":2,"distance":1,"percent":20,"size":5,"baseline_size":5,"baseline":"base.graph"}
{"type":"no_match","hang":1,"seg":3,"why":"program","size":3,"baseline":"base.graph"}'
    run sh -c "cd $TMP && argus-similar --in base.graph hangs.graph | argus-report | tr '\n' ' ' | tr -s ' '"
    assert_success
    assert_output --partial "Hang 1's program, accountsd, is not in it, so that hang is diagnosed without it."
    # the thread renamed instead: the program is there, not the role
    sed 's/"proc":"accountsd","name":"server"/"proc":"accountsd","name":"worker"/' fixtures/similar/mail.base.jsonl > "$TMP/role.jsonl"
    graph base.graph "$TMP/role.jsonl"
    run sh -c "cd $TMP && argus-similar --in base.graph hangs.graph | argus-to-json | jq -c 'select(.type == \"no_match\")'"
    assert_success
    assert_output '{"type":"no_match","hang":1,"seg":3,"why":"role","size":3,"baseline":"base.graph"}'
}

# The ranking baseline: query abcdefghij+wait (11, 12 events as seg 2).
ranking() {
    # seg 1: 2 edits; seg 2: 0 edits, 13 events (hh collapses); seg 3:
    # 1 edit; seg 4: 0 edits, 12 events; seg 5: 5 edits (no match); seg 6:
    # 0 edits, 12 events; seg 7: 3 edits
    trace base.graph 101 abcdefgxyj abcdefghhij abcdefghiz abcdefghij abcdqrstuj abcdefghij abcxyzghij
    trace bug.graph 202 x abcdefghij
}

@test "SIM-MATCH: matches rank by distance, then closest event count, then earliest" {
    ranking
    run matches base.graph bug.graph --seg 2 --max 10
    assert_success
    assert_output '{"type":"match","seg":2,"rank":1,"baseline_seg":4,"distance":0,"percent":0,"size":11,"baseline_size":11,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":2,"baseline_seg":6,"distance":0,"percent":0,"size":11,"baseline_size":11,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":3,"baseline_seg":2,"distance":0,"percent":0,"size":11,"baseline_size":11,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":4,"baseline_seg":3,"distance":1,"percent":9,"size":11,"baseline_size":11,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":5,"baseline_seg":1,"distance":2,"percent":18,"size":11,"baseline_size":11,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":6,"baseline_seg":7,"distance":3,"percent":27,"size":11,"baseline_size":11,"baseline":"base.graph"}'
}

@test "--max N writes the N best matches per node; 5 by default" {
    ranking
    run sh -c "cd $TMP && argus-similar --in base.graph --seg 2 < bug.graph | argus-to-json | jq -c 'select(.type==\"match\") | [.rank, .baseline_seg]' | tr -d '\n'"
    assert_success
    assert_output '[1,4][2,6][3,2][4,3][5,1]'
    run sh -c "cd $TMP && argus-similar --in base.graph --seg 2 --seg 1 --max 2 < bug.graph | argus-to-json | jq -c 'select(.type==\"match\") | [.seg, .rank, .baseline_seg]' | tr -d '\n'"
    assert_success
    assert_output '[2,1,4][2,2,6]'
}

@test "--seg: matches for the segments given, in order; hang records left aside" {
    mail
    run matches base.graph hangs.graph --seg 1 --seg 2
    assert_success
    assert_output '{"type":"match","seg":1,"rank":1,"baseline_seg":1,"distance":0,"percent":0,"size":1,"baseline_size":1,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":1,"baseline_seg":2,"distance":0,"percent":0,"size":5,"baseline_size":5,"baseline":"base.graph"}
{"type":"match","seg":2,"rank":2,"baseline_seg":6,"distance":1,"percent":20,"size":5,"baseline_size":4,"baseline":"base.graph"}'
}

@test "SIM-NONE: the stream passes through; match and no_match records come last" {
    mail
    run similar base.graph hangs.graph
    assert_success
    expected="$(argus-to-json "$TMP/hangs.graph" | sed '1s/\]}$/,"similar --in base.graph"]}/')"
    assert_output "$expected
{\"type\":\"match\",\"hang\":0,\"seg\":2,\"rank\":1,\"baseline_seg\":2,\"distance\":0,\"percent\":0,\"size\":5,\"baseline_size\":5,\"baseline\":\"base.graph\"}
{\"type\":\"match\",\"hang\":0,\"seg\":2,\"rank\":2,\"baseline_seg\":6,\"distance\":1,\"percent\":20,\"size\":5,\"baseline_size\":4,\"baseline\":\"base.graph\"}
{\"type\":\"no_match\",\"hang\":1,\"seg\":3,\"why\":\"unlike\",\"size\":3,\"nearest\":3,\"distance\":3,\"percent\":60,\"baseline_size\":4,\"baseline\":\"base.graph\"}"
    # the last two records read are the hang records
    run sh -c "argus-to-json $TMP/hangs.graph | tail -2 | jq -c '[.type, .hang]' | tr -d '\n'"
    assert_output '["hang",0]["hang",1]'
}

@test "SIM-NONE: a node without a match gets a no_match record; -v counts" {
    mail
    run sh -c "cd $TMP && argus-similar -v --in base.graph hangs.graph 2>&1 >/dev/null"
    assert_success
    assert_output 'argus-similar: nodes: 2
argus-similar: matches: 2
argus-similar: nodes without a match: 1'
    run sh -c "cd $TMP && argus-similar --in base.graph hangs.graph | argus-to-json | jq -c 'select(.hang == 1 and (.type == \"match\" or .type == \"no_match\")) | .type'"
    assert_output '"no_match"'
}

@test "a stream with no hang record and no --seg passes through with nothing appended" {
    mail
    run sh -c "cd $TMP && argus-similar --in base.graph bug.graph | argus-to-json | tail -n +2"
    assert_success
    assert_output "$(argus-to-json "$TMP/bug.graph" | tail -n +2)"
}

@test "usage errors exit 64: no --in, an unknown or bad --seg, --max 0" {
    mail
    run argus-similar "$TMP/bug.graph"
    assert_failure 64
    assert_line --index 0 'argus-similar: --in BASELINE is required (the graph stream of a normal run)'
    run sh -c "cd $TMP && argus-similar --in base.graph --seg 2 --seg 99 bug.graph 2>&1 >/dev/null"
    assert_failure 64
    assert_line --index 0 'argus-similar: --seg 99: no segment 99 in bug.graph'
    # known once the stream is read: it has been passed through, whole
    run sh -c "cd $TMP && argus-similar --in base.graph --seg 99 bug.graph 2>/dev/null | argus-to-json | tail -n +2"
    assert_output "$(argus-to-json "$TMP/bug.graph" | tail -n +2)"
    run argus-similar --in "$TMP/base.graph" --max 0 "$TMP/bug.graph"
    assert_failure 64
    assert_line --index 0 'argus-similar: --max: must be at least 1'
    run argus-similar --in "$TMP/base.graph" --seg two "$TMP/bug.graph"
    assert_failure 64
    assert_line --index 0 "argus-similar: --seg: 'two' is not a number"
}

@test "a missing baseline exits 66 before anything is written" {
    mail
    run sh -c "argus-similar --in /nonexistent/base.graph $TMP/bug.graph | wc -c"
    assert_success
    assert_output 'argus-similar: /nonexistent/base.graph: No such file or directory
0'
}

@test "a stream or a baseline that was not segmented exits 65" {
    mail
    argus-decode fixtures/similar/mail.bug.jsonl > "$TMP/flat"
    run sh -c "cd $TMP && argus-similar --in base.graph flat > /dev/null"
    assert_failure 65
    assert_output 'argus-similar: flat: record 5 (byte 273): event 1 has no seg: run argus-segment (argus graph) before the analysis'
    run sh -c "cd $TMP && argus-similar --in flat bug.graph > /dev/null"
    assert_failure 65
    assert_output 'argus-similar: flat: record 5 (byte 273): event 1 has no seg: run argus-segment (argus graph) before the analysis'
}

@test "a hang record naming a segment the stream does not have exits 65" {
    mail
    with_hangs bug.graph bad.graph '{"type":"hang","hang":0,"seg":42}'
    run sh -c "cd $TMP && argus-similar --in base.graph bad.graph > /dev/null"
    assert_failure 65
    # the hang record is the stream's last: its place is the number of records
    local n
    n=$(argus-to-json "$TMP/bad.graph" | wc -l)
    assert_output "argus-similar: bad.graph: record $n: hang 0 names seg 42, which is not a segment of the stream"
}
