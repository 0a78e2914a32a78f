#!/usr/bin/env bats
# argus-diff: DIFF-CULPRIT, DIFF-ASK (docs/stages/diff.md). Each scenario
# is a pair of hand-written traces, fixtures/diff/NAME.base.jsonl (the
# normal run) and NAME.bug.jsonl (the run that hangs); the comments in
# them give the segments and the culprits expected. The expected records
# were worked out by hand from the rules: a = the hang node's begin + (the
# time the thread acted in the baseline - the similar node's begin); a
# thread is a culprit when, at the hang's time, it was blocked (or busy)
# since no later than a + (hang time - a) / 2.
#
# The tests leave argus-similar out of the pipeline (argus-diff finds the
# similar node itself when no match record is in the stream) but for one,
# which checks that the result is the same with it.

load test_helper

TMP="$BATS_TEST_TMPDIR"

# pair NAME BASE_TRACE BUG_TRACE: the baseline's graph as $TMP/NAME.graph,
# and the buggy run's graph with find-spinning's records as $TMP/NAME.hangs.
pair() {
    set -o pipefail
    argus graph "$2" > "$TMP/$1.graph" &&
        argus graph "$3" | argus-find-spinning > "$TMP/$1.hangs"
}

# records NAME [FLAGS...]: the culprit and branch records argus-diff
# appends to $TMP/NAME.hangs, comparing with $TMP/NAME.graph.
records() {
    local n=$1
    shift
    set -o pipefail
    argus-diff --baseline "$TMP/$n.graph" "$@" "$TMP/$n.hangs" | argus-to-json |
        jq -c 'select(.type=="culprit" or .type=="branch")'
}

# diff_run NAME [FLAGS...]: the pipeline on fixtures/diff/NAME.*.jsonl,
#   argus graph NAME.bug.jsonl | argus-find-spinning
#     | argus-diff --baseline NAME.base's graph [FLAGS] | argus-to-json
# keeping the culprit and branch records.
diff_run() {
    local n=$1
    shift
    pair "$n" "fixtures/diff/$n.base.jsonl" "fixtures/diff/$n.bug.jsonl" && records "$n" "$@"
}

# pick FILTER: jq FILTER over the records in $output, on one line.
pick() { printf '%s\n' "$output" | jq -c "$1" | tr -d '\n'; }

# counts NAME [FLAGS...]: what argus-diff -v prints on stderr.
counts() {
    local n=$1
    shift
    pair "$n" "fixtures/diff/$n.base.jsonl" "fixtures/diff/$n.bug.jsonl" &&
        argus-diff -v --baseline "$TMP/$n.graph" "$@" "$TMP/$n.hangs" 2>&1 >/dev/null
}

# ---- DIFF-CULPRIT ------------------------------------------------------------

@test "DIFF-CULPRIT: the walk's threads blocked from their act to the hang are culprits" {
    run diff_run chain
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":7102,"pid":710,"proc":"netd","thread":"io","seg":8,"state":"blocked","since":200000000,"until":3200000000,"duration":3000000000,"wait":18,"resource":"0x710d000","reason":"socket_read","baseline_seg":10,"missing":"wakeup","evidence":"in the baseline it acted at +0.120 s (wakeup of syncd worker [6002], wakeup edge, baseline seg 10); here it was blocked 3.000 s in socket_read from 0.200 s, up to the hang at 2.120 s"}
{"type":"culprit","hang":0,"rank":2,"root":false,"depth":0,"branch":1,"tid":6102,"pid":610,"proc":"syncd","thread":"worker","seg":5,"state":"blocked","since":140000000,"until":3230000000,"duration":3090000000,"wait":9,"resource":"0x610b000","reason":"reply_wait","waits_on":7102,"baseline_seg":11,"missing":"wakeup","evidence":"in the baseline it acted at +0.140 s (wakeup of Notes main [5001], wakeup edge, baseline seg 11); here it was blocked 3.090 s in reply_wait from 0.140 s, up to the hang at 2.120 s"}'
}

@test "DIFF-CULPRIT: a thread not blocked, or blocked only after the middle, is none" {
    run diff_run chain
    assert_success
    run pick '[.tid, .thread]'
    assert_output '[7102,"io"][6102,"worker"]'
}

# The resolver acted in the baseline 70 ms after the similar node began:
# a = 0.1 s + 70 ms = 0.17 s; the hang's time is 2.12 s; the middle is
# 0.17 + (2.12 - 0.17) / 2 = 1.145 s. chain.bug.jsonl with the resolver's
# retries cut: its last wait (until 2.163 s) starts at TS.
resolver_from() {
    sed -e 's/"ts":1161000000/"ts":1144000000/' -e "s/\"ts\":1162000000/\"ts\":$1/" \
        -e '/"ts":166[23]000000/d' fixtures/diff/chain.bug.jsonl > "$TMP/resolver.bug.jsonl"
    pair resolver fixtures/diff/chain.base.jsonl "$TMP/resolver.bug.jsonl"
}

@test "DIFF-CULPRIT: blocked since the middle of [act, hang] counts; 1 ns later not" {
    resolver_from 1145000000
    run records resolver
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":7103,"pid":710,"proc":"netd","thread":"resolver","seg":10,"state":"blocked","since":1145000000,"until":2163000000,"duration":1018000000,"wait":22,"resource":"0x710e000","reason":"dns_retry","baseline_seg":8,"missing":"timer","evidence":"in the baseline it acted at +0.070 s (timer_arm dns_rate_limit, timer edge, baseline seg 8); here it was blocked 1.018 s in dns_retry from 1.145 s, up to the hang at 2.120 s"}
{"type":"culprit","hang":0,"rank":2,"root":false,"depth":0,"branch":1,"tid":7102,"pid":710,"proc":"netd","thread":"io","seg":8,"state":"blocked","since":200000000,"until":3200000000,"duration":3000000000,"wait":18,"resource":"0x710d000","reason":"socket_read","baseline_seg":10,"missing":"wakeup","evidence":"in the baseline it acted at +0.120 s (wakeup of syncd worker [6002], wakeup edge, baseline seg 10); here it was blocked 3.000 s in socket_read from 0.200 s, up to the hang at 2.120 s"}
{"type":"culprit","hang":0,"rank":3,"root":false,"depth":0,"branch":1,"tid":6102,"pid":610,"proc":"syncd","thread":"worker","seg":5,"state":"blocked","since":140000000,"until":3230000000,"duration":3090000000,"wait":9,"resource":"0x610b000","reason":"reply_wait","waits_on":7102,"baseline_seg":11,"missing":"wakeup","evidence":"in the baseline it acted at +0.140 s (wakeup of Notes main [5001], wakeup edge, baseline seg 11); here it was blocked 3.090 s in reply_wait from 0.140 s, up to the hang at 2.120 s"}'
    resolver_from 1145000001
    run records resolver
    assert_success
    run pick .thread
    assert_output '"io""worker"'
}

# shift_base OUT FROM BY: chain.base.jsonl with BY added to every ts and
# timer deadline from FROM on (integers beyond jq 1.6's doubles).
shift_base() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
out, start, by = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open("fixtures/diff/chain.base.jsonl") as f, open(out, "w") as o:
    for line in f:
        if line.strip() and not line.startswith("#"):
            r = json.loads(line)
            for k in ("ts", "deadline"):
                if k in r and r[k] >= start:
                    r[k] += by
            line = json.dumps(r, separators=(",", ":")) + "\n"
        o.write(line)
PY
}

@test "DIFF-CULPRIT: baseline times crossing 2^63 or ending at 2^64-1 do not wrap" {
    resolver_from 1145000000
    records resolver > "$TMP/expected"
    # the similar node (keyDown at 0.1 s) before 2^63, the acts after it;
    # then the last event at 2^64-1
    for by in $(((1 << 63) - 135000000)) $((-1 - 270000000)); do
        shift_base "$TMP/shifted.base.jsonl" 0 "$(printf '%u' "$by")"
        pair resolver "$TMP/shifted.base.jsonl" "$TMP/resolver.bug.jsonl"
        run records resolver
        assert_success
        assert_output "$(cat "$TMP/expected")"
    done
}

@test "DIFF-CULPRIT: a thread acting 2^63 ns after the similar node stays after it" {
    resolver_from 1145000000
    # every event after the similar node's beginning 2^63 ns later
    shift_base "$TMP/far.base.jsonl" 135000000 "$(printf '%u' $((1 << 63)))"
    pair resolver "$TMP/far.base.jsonl" "$TMP/resolver.bug.jsonl"
    run records resolver
    assert_success
    run pick '[.thread, (.evidence | sub(" \\(.*"; ""))]'
    assert_output '["resolver","in the baseline it acted at +9223372036.925 s"]["io","in the baseline it acted at +9223372036.975 s"]["worker","in the baseline it acted at +9223372036.995 s"]'
}

@test "DIFF-CULPRIT, DIFF-RELAY: a thread busy over the time is a culprit, state busy" {
    # io polls the socket in a loop instead of blocking in socket_read
    sed 's/{"type":"wait","ts":200000000,"tid":7102,[^}]*}/{"type":"syscall","ts":200000000,"tid":7102,"name":"poll"}/' \
        fixtures/diff/chain.bug.jsonl > "$TMP/poll.bug.jsonl"
    pair poll fixtures/diff/chain.base.jsonl "$TMP/poll.bug.jsonl"
    run records poll
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":7102,"pid":710,"proc":"netd","thread":"io","seg":8,"state":"busy","since":190000000,"until":3220000000,"duration":3030000000,"baseline_seg":10,"missing":"wakeup","evidence":"in the baseline it acted at +0.120 s (wakeup of syncd worker [6002], wakeup edge, baseline seg 10); here it was running 3.030 s without blocking from 0.190 s, up to the hang at 2.120 s"}'
}

@test "DIFF-CULPRIT: a baseline thread whose role nobody plays is skipped and counted" {
    run counts chain --depth 0
    assert_success
    assert_output 'argus-diff: chain links that only relayed, not culprits: 1
argus-diff: baseline threads with no counterpart: 1
argus-diff: culprits: 2'
}

@test "DIFF-CULPRIT: a baseline thread with no counterpart is counted once" {
    run counts chain
    assert_success
    assert_output 'argus-diff: chain links that only relayed, not culprits: 1
argus-diff: baseline threads with no counterpart: 1
argus-diff: culprits: 2'
}

@test "DIFF-CULPRIT: a busy hang names its own thread, with its baseline node" {
    run diff_run busy
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5901,"pid":590,"proc":"Safari","thread":"main","seg":1,"state":"busy","since":100000000,"until":2600000000,"duration":2500000000,"baseline_seg":1,"evidence":"the hang'"'"'s own thread was running 2.500 s without blocking from 0.100 s; its baseline node (seg 1) ran 0.060 s"}'
}

@test "DIFF-CULPRIT: recursion finds the culprit behind the culprit; --depth 0 not" {
    run diff_run depth
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":1,"branch":1,"tid":6303,"pid":630,"proc":"photolibraryd","thread":"db","seg":2,"state":"blocked","since":90000000,"until":3100000000,"duration":3010000000,"wait":3,"resource":"0x630d000","reason":"biowait","baseline_seg":5,"missing":"wakeup","evidence":"in the baseline it acted at +0.015 s (wakeup of photolibraryd worker [6202], wakeup edge, baseline seg 5); here it was blocked 3.010 s in biowait from 0.090 s, up to the hang at 2.220 s"}
{"type":"culprit","hang":0,"rank":2,"root":false,"depth":0,"branch":1,"tid":6302,"pid":630,"proc":"photolibraryd","thread":"worker","seg":4,"state":"blocked","since":240000000,"until":3130000000,"duration":2890000000,"wait":9,"resource":"0x630c000","reason":"db_lock","waits_on":6303,"baseline_seg":9,"missing":"wakeup","evidence":"in the baseline it acted at +0.040 s (wakeup of Photos main [5201], wakeup edge, baseline seg 9); here it was blocked 2.890 s in db_lock from 0.240 s, up to the hang at 2.220 s"}'
    run records depth --depth 0
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":6302,"pid":630,"proc":"photolibraryd","thread":"worker","seg":4,"state":"blocked","since":240000000,"until":3130000000,"duration":2890000000,"wait":9,"resource":"0x630c000","reason":"db_lock","waits_on":6303,"baseline_seg":9,"missing":"wakeup","evidence":"in the baseline it acted at +0.040 s (wakeup of Photos main [5201], wakeup edge, baseline seg 9); here it was blocked 2.890 s in db_lock from 0.240 s, up to the hang at 2.220 s"}'
}

# The chain is the app's main -> syncd worker -> netd io; the worker was
# blocked on netd io all along: it only relayed.
@test "DIFF-CULPRIT, DIFF-RELAY: without a baseline, the chain's threads that held it" {
    pair chain fixtures/diff/chain.base.jsonl fixtures/diff/chain.bug.jsonl
    run bash -c "set -o pipefail; argus-diff '$TMP/chain.hangs' | argus-to-json | jq -c 'select(.type==\"culprit\" or .type==\"branch\")'"
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":1,"branch":1,"tid":7102,"pid":710,"proc":"netd","thread":"io","seg":8,"state":"blocked","since":200000000,"until":3200000000,"duration":3000000000,"wait":18,"resource":"0x710d000","reason":"socket_read","evidence":"link 2 of the wait chain (via wakeup; the chain ends: io); it was blocked 3.000 s in socket_read from 0.200 s"}'
    run bash -c "argus-diff '$TMP/chain.hangs' | argus-to-json | jq -c 'select(.type==\"wait_chain\") | .tids'"
    assert_output '[5101,6102,7102]'
}

@test "DIFF-CULPRIT: without --baseline a busy hang still names its own thread" {
    pair busy fixtures/diff/busy.base.jsonl fixtures/diff/busy.bug.jsonl
    run bash -c "set -o pipefail; argus-diff '$TMP/busy.hangs' | argus-to-json | jq -c 'select(.type==\"culprit\")'"
    assert_success
    assert_output '{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5901,"pid":590,"proc":"Safari","thread":"main","seg":1,"state":"busy","since":100000000,"until":2600000000,"duration":2500000000,"evidence":"the hang'"'"'s own thread was running 2.500 s without blocking from 0.100 s"}'
}

@test "DIFF-CULPRIT: with argus-similar's match record the culprits are the same" {
    pair chain fixtures/diff/chain.base.jsonl fixtures/diff/chain.bug.jsonl
    expected=$(records chain)
    run bash -c "set -o pipefail; argus-similar --in '$TMP/chain.graph' '$TMP/chain.hangs' | argus-diff --baseline '$TMP/chain.graph' | argus-to-json | jq -c 'select(.type==\"match\" or .type==\"culprit\" or .type==\"branch\") | del(.baseline)'"
    assert_success
    assert_output "{\"type\":\"match\",\"hang\":0,\"seg\":4,\"rank\":1,\"baseline_seg\":5,\"distance\":0,\"percent\":0,\"size\":2,\"baseline_size\":2}
$expected"
}

@test "DIFF-CULPRIT: the stream passes through; records appended, stage named" {
    pair chain fixtures/diff/chain.base.jsonl fixtures/diff/chain.bug.jsonl
    cd "$TMP"
    argus-to-json chain.hangs > in.json
    argus-diff --baseline chain.graph chain.hangs | argus-to-json > out.json
    n=$(wc -l < in.json)
    run sh -c "head -1 in.json | jq -c '.stages += [\"diff --baseline chain.graph chain.hangs\"]' | cmp - out.json -n $(head -1 out.json | wc -c)"
    assert_success
    run sh -c "tail -n +2 in.json | cmp - out.json -i 0:$(head -1 out.json | wc -c) -n $(tail -n +2 in.json | wc -c)"
    assert_success
    run sh -c "tail -n +$((n + 1)) out.json | jq -r .type | tr '\n' ' '"
    assert_output 'culprit culprit '
}

# ---- DIFF-ASK ------------------------------------------------------------------

@test "DIFF-ASK: two strong causes on other threads: both branches are followed" {
    run diff_run branches
    assert_success
    assert_output '{"type":"branch","hang":0,"at":6,"choices":[5,4]}
{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5504,"pid":550,"proc":"Preview","thread":"thumbnailer","seg":5,"state":"blocked","since":160000000,"until":3100000000,"duration":2940000000,"wait":12,"resource":"0x550e000","reason":"biowait","baseline_seg":5,"missing":"wakeup","evidence":"in the baseline it acted at +0.080 s (wakeup of Preview main [5401], wakeup edge, baseline seg 5); here it was blocked 2.940 s in biowait from 0.160 s, up to the hang at 2.130 s"}
{"type":"culprit","hang":0,"rank":2,"root":true,"depth":0,"branch":2,"tid":5505,"pid":550,"proc":"Preview","thread":"decoder","seg":4,"state":"blocked","since":155000000,"until":3050000000,"duration":2895000000,"wait":11,"resource":"0x550f000","reason":"vm_pagein","baseline_seg":4,"missing":"flag","evidence":"in the baseline it acted at +0.060 s (flag_write kDecodeDone = 1, flag edge, baseline seg 4); here it was blocked 2.895 s in vm_pagein from 0.155 s, up to the hang at 2.130 s"}'
}

@test "DIFF-ASK: --choose 1 takes the latest cause, --choose 2 the other" {
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    run records branches --choose 1
    assert_success
    assert_output '{"type":"branch","hang":0,"at":6,"choices":[5,4],"chosen":5}
{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5504,"pid":550,"proc":"Preview","thread":"thumbnailer","seg":5,"state":"blocked","since":160000000,"until":3100000000,"duration":2940000000,"wait":12,"resource":"0x550e000","reason":"biowait","baseline_seg":5,"missing":"wakeup","evidence":"in the baseline it acted at +0.080 s (wakeup of Preview main [5401], wakeup edge, baseline seg 5); here it was blocked 2.940 s in biowait from 0.160 s, up to the hang at 2.130 s"}'
    run records branches --choose 2
    assert_success
    assert_output '{"type":"branch","hang":0,"at":6,"choices":[5,4],"chosen":4}
{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5505,"pid":550,"proc":"Preview","thread":"decoder","seg":4,"state":"blocked","since":155000000,"until":3050000000,"duration":2895000000,"wait":11,"resource":"0x550f000","reason":"vm_pagein","baseline_seg":4,"missing":"flag","evidence":"in the baseline it acted at +0.060 s (flag_write kDecodeDone = 1, flag edge, baseline seg 4); here it was blocked 2.895 s in vm_pagein from 0.155 s, up to the hang at 2.130 s"}'
}

@test "DIFF-ASK: --choose 0 follows every branch, as without --choose" {
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    expected=$(records branches)
    run records branches --choose 0
    assert_success
    assert_output "$expected"
    run pick '[.type, .branch, .chosen]'
    assert_output '["branch",null,null]["culprit",1,null]["culprit",2,null]'
}

@test "DIFF-ASK: --choose 5 at a branch point of 2 candidates is a usage error (64)" {
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    run sh -c "argus-diff --baseline '$TMP/branches.graph' --choose 5 '$TMP/branches.hangs' 2>&1 >/dev/null"
    assert_failure 64
    assert_output 'argus-diff: --choose: choice 5 at branch point 1 (seg 6) has only 2 candidates'
}

@test "DIFF-ASK: --max-branches 1 follows the first branch only" {
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    run records branches --max-branches 1
    assert_success
    run pick '[.type, .thread, .branch]'
    assert_output '["branch",null,null]["culprit","thumbnailer",1]'
}

@test "DIFF-ASK: a node left only over a weak edge is a branch point (one choice)" {
    run diff_run weak
    assert_success
    assert_output '{"type":"branch","hang":0,"at":1,"choices":[2]}
{"type":"culprit","hang":0,"rank":1,"root":true,"depth":0,"branch":1,"tid":5703,"pid":570,"proc":"Music","thread":"loader","seg":1,"state":"blocked","since":30000000,"until":3030000000,"duration":3000000000,"wait":3,"resource":"0x570c000","reason":"biowait","baseline_seg":1,"missing":"wakeup","evidence":"in the baseline it acted at +0.050 s (wakeup of Music main [5601], wakeup edge, baseline seg 1); here it was blocked 3.000 s in biowait from 0.030 s, up to the hang at 2.110 s"}'
    run records weak --choose 1
    assert_success
    assert_line --index 0 '{"type":"branch","hang":0,"at":1,"choices":[2],"chosen":2}'
}

# branches.*.jsonl without the mouseDown: both branches go on past the
# main thread's node (seg 3), which the walk can leave only over the weak
# "wait" edges from the helpers' first waits (seg 2, seg 1): one more
# branch point, met on both branches.
@test "DIFF-ASK: a branch point met again on another branch is chosen once" {
    grep -v mouseDown fixtures/diff/branches.base.jsonl > "$TMP/noui.base.jsonl"
    grep -v mouseDown fixtures/diff/branches.bug.jsonl > "$TMP/noui.bug.jsonl"
    pair noui "$TMP/noui.base.jsonl" "$TMP/noui.bug.jsonl"
    run records noui --choose 0,1,5
    assert_success
    run pick 'select(.type=="branch")'
    assert_output '{"type":"branch","hang":0,"at":6,"choices":[5,4]}{"type":"branch","hang":0,"at":3,"choices":[2,1],"chosen":2}'
}

# fixtures/diff/diamond.*.jsonl: branch point 2 (seg 5) is met on both
# branches; on the second one, its candidate seg 6 is on the walk already.
@test "DIFF-ASK: a branch point met again keeps the cause chosen, not its number" {
    pair diamond fixtures/diff/diamond.base.jsonl fixtures/diff/diamond.bug.jsonl
    run records diamond --depth 0 --choose 0,2
    assert_success
    run pick 'if .type == "branch" then [.at, .choices, .chosen] else [.branch, .thread, .baseline_seg] end'
    assert_output '[9,[8,6],null][5,[6,4,3],4][1,"net",4][1,"coordinator",5][1,"fetcher",8][2,"parser",6]'
}

@test "DIFF-ASK: --interactive without a terminal is a usage error (64)" {
    command -v setsid >/dev/null || skip "setsid (util-linux) is not installed"
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    run sh -c "setsid -w argus-diff --interactive --baseline '$TMP/branches.graph' '$TMP/branches.hangs' </dev/null 2>&1 >/dev/null"
    assert_failure 64
    assert_output "argus-diff: --interactive needs a terminal (/dev/tty)
Try 'argus-diff --help' for more information."
}

@test "DIFF-ASK: --interactive asks on the terminal; answering 2 takes the decoder" {
    command -v script >/dev/null || skip "script (util-linux/bsdutils) is not installed"
    pair branches fixtures/diff/branches.base.jsonl fixtures/diff/branches.bug.jsonl
    cd "$TMP"
    # the answer comes after the prompt; the terminal echoes it
    { sleep 1; printf '2\n'; } |
        script -qc "argus-diff --interactive --baseline branches.graph branches.hangs > int.out" /dev/null |
        tr -d '\r' > tty.txt
    run sed -e 's/ *$//' -e '/^2$/d' -e 's/^> 2$/>/' tty.txt
    assert_output '
argus-diff: the baseline path branches at seg 6 (Preview main [5401]). Which cause to follow?
  1) seg 5 Preview thumbnailer [5404] via wakeup
       woken awakened
       syscall read
       wakeup of Preview main [5401]
       wait semaphore_wait
  2) seg 4 Preview decoder [5405] via flag
       woken awakened
       syscall mmap
       flag_write kDecodeDone = 1
       wait semaphore_wait
  0) all of them
>'
    run bash -c "set -o pipefail; argus-to-json int.out | jq -c 'select(.type==\"branch\" or .type==\"culprit\") | [.type, .chosen, .thread]' | tr -d '\n'"
    assert_success
    assert_output '["branch",4,null]["culprit",null,"decoder"]'
}

# ---- errors --------------------------------------------------------------------

@test "argus-diff: usage errors exit 64 with a message" {
    run sh -c 'argus-diff --bogus </dev/null 2>&1'
    assert_failure 64
    assert_output "argus-diff: bad option '--bogus' (unknown, or missing its value)
Try 'argus-diff --help' for more information."
    run sh -c 'argus-diff --depth 33 </dev/null 2>&1'
    assert_failure 64
    assert_line --index 0 'argus-diff: --depth must be 0..32'
    run sh -c 'argus-diff --max-branches 0 </dev/null 2>&1'
    assert_failure 64
    assert_line --index 0 'argus-diff: --max-branches must be 1..1000'
    run sh -c 'argus-diff --choose 1,x </dev/null 2>&1'
    assert_failure 64
    assert_line --index 0 "argus-diff: --choose: 'x' is not a number"
    run sh -c 'argus-diff --choose 1 --interactive </dev/null 2>&1'
    assert_failure 64
    assert_line --index 0 'argus-diff: --choose and --interactive exclude each other'
    run sh -c 'argus-diff a b </dev/null 2>&1'
    assert_failure 64
    assert_line --index 0 'argus-diff: more than one input file'
}

@test "argus-diff: a long option missing its value is named in the message" {
    run sh -c 'argus-diff --baseline </dev/null 2>&1'
    assert_failure 64
    assert_output "argus-diff: bad option '--baseline' (unknown, or missing its value)
Try 'argus-diff --help' for more information."
}

@test "argus-diff: a missing baseline file exits 66" {
    pair chain fixtures/diff/chain.base.jsonl fixtures/diff/chain.bug.jsonl
    run sh -c "argus-diff --baseline '$TMP/nope.graph' '$TMP/chain.hangs' 2>&1 >/dev/null"
    assert_failure 66
    assert_output "argus-diff: $TMP/nope.graph: No such file or directory"
}

@test "argus-diff: a stream or a baseline that was not segmented exits 65" {
    pair chain fixtures/diff/chain.base.jsonl fixtures/diff/chain.bug.jsonl
    run sh -c "argus-decode fixtures/diff/chain.bug.jsonl | argus-diff --baseline '$TMP/chain.graph' 2>&1 >/dev/null"
    assert_failure 65
    assert_output 'argus-diff: <stdin>: record 8 (byte 410): event 1 has no seg: run argus-segment (argus graph) before the analysis'
    argus-decode fixtures/diff/chain.base.jsonl > "$TMP/unsegmented"
    run sh -c "argus-diff --baseline '$TMP/unsegmented' '$TMP/chain.hangs' 2>&1 >/dev/null"
    assert_failure 65
    assert_output "argus-diff: $TMP/unsegmented: record 9 (byte 472): event 1 has no seg: run argus-segment (argus graph) before the analysis"
}

@test "argus-diff: --help lists the flags and the rules, --version the version" {
    run argus-diff --help
    assert_success
    assert_line --index 0 'Usage: argus-diff [--baseline FILE] [--depth N] [--choose LIST | --interactive]'
    assert_line --partial 'DIFF-CULPRIT'
    assert_line --partial 'DIFF-ASK'
    run argus-diff --version
    assert_success
    assert_output --regexp '^argus-diff [0-9]'
}

@test "DIFF-CULPRIT: the evidence names the baseline event and its ts" {
    # io's seg 10 of the baseline: the wakeup of the worker between eight
    # syscalls before and eight after, so that it is not among the first
    # six and last six key events a segment keeps
    awk '/"ts":220000000,"tid":7002,"target":6002/ {
             for (i = 1; i <= 8; i++)
                 printf "{\"type\":\"syscall\",\"ts\":%d,\"tid\":7002,\"name\":\"before%d\"}\n", 210000000 + i * 1000000, i
             print
             for (i = 1; i <= 8; i++)
                 printf "{\"type\":\"syscall\",\"ts\":%d,\"tid\":7002,\"name\":\"after%d\"}\n", 220000000 + i * 1000000, i
             next }
         { print }' fixtures/diff/chain.base.jsonl > "$TMP/long.base.jsonl"
    run grep -c '"tid":7002,"name":"\(before\|after\)' "$TMP/long.base.jsonl"
    assert_output 16
    pair long "$TMP/long.base.jsonl" fixtures/diff/chain.bug.jsonl
    run records long
    assert_success
    run pick 'select(.tid == 7102) | .evidence'
    assert_output '"in the baseline it acted at +0.120 s (wakeup of syncd worker [6002], wakeup edge, baseline seg 10); here it was blocked 3.000 s in socket_read from 0.200 s, up to the hang at 2.120 s"'
}

@test "DIFF-CULPRIT: a recording's evidence times are on the trace's own clock" {
    gzip -dc "$ARGUS_ROOT/fixtures/real/gui-dbus/hang.txt.gz" > "$TMP/hang.txt"
    gzip -dc "$ARGUS_ROOT/fixtures/real/gui-dbus/normal.txt.gz" > "$TMP/normal.txt"
    argus graph "$TMP/normal.txt" > "$TMP/normal.graph"
    argus graph "$TMP/hang.txt" | argus-find-spinning > "$TMP/hang.findings" || true
    run sh -c "argus-diff --baseline '$TMP/normal.graph' '$TMP/hang.findings' | argus-to-json | jq -r 'select(.type == \"culprit\" and .root) | .evidence'"
    assert_success
    assert_output "in the baseline it acted at +0.002 s (ipc send, ipc edge, baseline seg 151); here it was blocked 3.000 s in clock_nanosleep from 13507.256807 s, up to the hang at 13509.243398 s"
    run grep -c ' 13507\.256807: ' "$TMP/hang.txt"
    assert_success
}
