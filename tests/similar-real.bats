#!/usr/bin/env bats
# SIM-MATCH, SIM-SIG, SIM-FIRST, SIM-KINDS on real recordings
# (fixtures/real): each hang below had no similar node in its normal run
# before those rules (docs/stages/similar.md says why each failed); the
# rank-1 match record of the truth's hang is pinned. Diagnosed as make
# accuracy does with the baseline: --proc of the truth, --baseline its
# normal run. The tids are the recordings' own (fixtures/real/NAME/truth).

load test_helper
load real_helper

setup_file() {
    unpack fcntl-lock http-proxy http-proxy-loaded http-slow lowprio-holder midwait \
           pool-wait sqlite-poll tk-lock-io x11-busy tcp-backlog
}

# match NAME TID [ARGS...]: the rank-1 match record (or the no_match
# record) of the hang of thread TID, diagnosed with NAME's normal run as
# baseline, without its "baseline" (a temporary path)
match() {
    local n=$1 t=$2
    shift 2
    diagnose "$n" --baseline "$R/$n.normal.txt" "$@"
    jq -sc --argjson t "$t" '[.[] | select(.type == "hang" and .tid == $t)][0].hang as $h
        | .[] | select((.type == "match" and .rank == 1 or .type == "no_match") and .hang == $h)
        | del(.baseline)' "$R/$n.json"
}

@test "SIM-FIRST: a wait retried after timeouts matches by its first segment" {
    run match http-slow 1360 --proc curl
    assert_output '{"type":"match","hang":0,"seg":57,"rank":1,"baseline_seg":28,"distance":0,"percent":0,"size":3,"baseline_size":3}'
    run match http-proxy 29507 --proc curl
    assert_output '{"type":"match","hang":0,"seg":57,"rank":1,"baseline_seg":15,"distance":0,"percent":0,"size":33,"baseline_size":33}'
    run match http-proxy-loaded 10042 --proc curl
    assert_output '{"type":"match","hang":0,"seg":97,"rank":1,"baseline_seg":56,"distance":0,"percent":0,"size":33,"baseline_size":33}'
    run match pool-wait 28430 --proc xz
    assert_output '{"type":"match","hang":0,"seg":16,"rank":1,"baseline_seg":9,"distance":0,"percent":0,"size":11,"baseline_size":11}'
}

@test "SIM-SIG, SIM-MATCH: redis-cli asleep at the trace's start reads as recvfrom" {
    run match midwait 1197 --proc redis-cli
    assert_output '{"type":"match","hang":0,"seg":18,"rank":1,"baseline_seg":8,"distance":0,"percent":0,"size":1,"baseline_size":14}'
}

@test "SIM-KINDS: the same work cut at other waits matches by kinds of event" {
    run match fcntl-lock 31119 --proc lockf-waiter
    assert_output '{"type":"match","hang":0,"seg":35,"rank":1,"baseline_seg":25,"distance":2,"percent":25,"size":32,"baseline_size":14,"by":"kinds"}'
    run match lowprio-holder 11888 --proc flock
    assert_output '{"type":"match","hang":0,"seg":546,"rank":1,"baseline_seg":23,"distance":0,"percent":0,"size":16,"baseline_size":27,"by":"kinds"}'
    run match tk-lock-io 12298
    assert_output '{"type":"match","hang":0,"seg":174,"rank":1,"baseline_seg":176,"distance":3,"percent":42,"size":9,"baseline_size":4,"by":"kinds"}'
    run match x11-busy 10408 --proc x11-busy-app
    assert_output '{"type":"match","hang":0,"seg":171,"rank":1,"baseline_seg":95,"distance":1,"percent":33,"size":2,"baseline_size":3,"by":"kinds"}'
    # the report's details say how alike (argus report -v)
    run sh -c "argus-report -v '$R/x11-busy.findings' | tr '\\n' ' ' | tr -s ' '"
    assert_output --partial "(rank 1 of 1), alike by kinds of event (SIM-KINDS): 1 kind in one and not the other (33% of the kinds of both), signatures of 2 and 3 elements."
    run match sqlite-poll 28121 --proc sqlite3
    assert_output '{"type":"match","hang":0,"seg":291,"rank":1,"baseline_seg":50,"distance":1,"percent":50,"size":2,"baseline_size":1,"by":"kinds"}'
    run match tcp-backlog 3784 --proc curl
    assert_output '{"type":"match","hang":0,"seg":87,"rank":1,"baseline_seg":238,"distance":4,"percent":33,"size":40,"baseline_size":21,"by":"kinds"}'
}

@test "SIM-NONE: no node alike by either rule: no_match names the nearest" {
    cp "$R/tcp-backlog.normal.txt" "$R/http-slow.other.txt"
    diagnose http-slow --proc curl --baseline "$R/http-slow.other.txt"
    run records http-slow 'select(.type == "match" or .type == "no_match") | del(.baseline)'
    assert_output '{"type":"no_match","hang":0,"seg":1192,"why":"unlike","size":1,"nearest":238,"distance":9,"percent":90,"baseline_size":21}'
    run sh -c "tr '\\n' ' ' < '$R/http-slow.report' | tr -s ' '"
    assert_output --partial "No part of it is like hang 0, so that hang's culprits are named from this trace alone. The nearest node of its role, seg 238, has 90% of their kinds of event not in both."
}
