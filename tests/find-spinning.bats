#!/usr/bin/env bats
# argus-find-spinning: SPIN-INDICATOR, SPIN-HANG, SPIN-CLASS, SPIN-PATH.
# Expected records were worked out by hand from the rules of
# docs/stages/find-spinning.md; each fixture under fixtures/spinning/ says
# in its comments what it expects and why (segment numbers are the ones
# argus graph gives, in order of each segment's first event).

load test_helper

TMP="$BATS_TEST_TMPDIR"
F=fixtures/spinning

# spin TRACE [FLAGS...]: the records argus-find-spinning appends to the
# graph of TRACE (argus graph), as JSON lines.
spin() {
    local f=$1
    shift
    set -o pipefail
    argus graph "$f" | argus-find-spinning "$@" | argus-to-json \
        | jq -c 'select(.type=="hang" or .type=="path" or .type=="wait_chain")'
}

# only TYPE TRACE [FLAGS...]: the appended records of one type.
only() {
    local t=$1 f=$2
    shift 2
    set -o pipefail
    argus graph "$f" | argus-find-spinning "$@" | argus-to-json | jq -c "select(.type==\"$t\")"
}

# counts TRACE [FLAGS...]: the -v counters (stderr), the stream dropped.
counts() {
    local f=$1
    shift
    set -o pipefail
    argus graph "$f" | argus-find-spinning -v "$@" 2>&1 >/dev/null
}

# ---- SPIN-INDICATOR ---------------------------------------------------------

@test "SPIN-INDICATOR: a SetSpinning backtrace picks the main thread's segment then" {
    run spin $F/cursor.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":1001,"pid":100,"proc":"TextEdit","thread":"main","begin":1000000,"end":2510000000,"duration":2509000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":7,"events":3,"yields":0,"blocked":2500000000,"timeouts":0,"wait":3,"resource":"0x7100","reason":"psynch_cvwait","result":"awakened"}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}
{"type":"wait_chain","hang":0,"segs":[1,2],"tids":[1001,1003],"links":["wakeup"],"states":["blocked","running"],"since":[10000000,20000000],"until":[2510000000,2510000000],"waits":[1,0],"end":"running"}
{"type":"hang","hang":1,"seg":3,"tid":2001,"pid":200,"proc":"Preview","thread":"main","begin":500000000,"end":2600000000,"duration":2100000000,"class":"busy","indicator":"ConnectionSetSpinning","at":2100000000,"event":8,"events":3,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":1,"rank":1,"score":0,"complete":true,"segs":[3],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":5,"ui_kind":"mouseDown"}'
}

@test "SPIN-INDICATOR: flag_write of sCGEventIsMainThreadSpinning = 1 is an indicator" {
    # the fixture without its backtrace: the flag alone
    grep -v CGSConnectionSetSpinning $F/flag.jsonl > "$TMP/flag.jsonl"
    run spin "$TMP/flag.jsonl"
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":3001,"pid":300,"proc":"Safari","thread":"main","begin":200000000,"end":3000000000,"duration":2800000000,"class":"busy","indicator":"sCGEventIsMainThreadSpinning","at":2200000000,"event":6,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":2,"complete":true,"segs":[1,3],"edge_from":[4],"edge_to":[5],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}'
    run counts "$TMP/flag.jsonl"
    assert_success
    assert_output 'argus-find-spinning: indicators: 1
argus-find-spinning: hang nodes: 1'
}

@test "SPIN-INDICATOR: two indicators on one hang node give one hang record" {
    run spin $F/flag.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":3001,"pid":300,"proc":"Safari","thread":"main","begin":200000000,"end":3000000000,"duration":2800000000,"class":"busy","indicator":"sCGEventIsMainThreadSpinning","at":2200000000,"event":6,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":2,"complete":true,"segs":[1,3],"edge_from":[4],"edge_to":[5],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}'
    run counts $F/flag.jsonl
    assert_success
    assert_output 'argus-find-spinning: indicators: 2
argus-find-spinning: indicators on a hang already found: 1
argus-find-spinning: hang nodes: 1'
}

@test "SPIN-INDICATOR: --indicator SYMBOL adds a backtrace frame and a flag" {
    run spin $F/indicator.jsonl
    assert_success
    assert_output ''
    run counts $F/indicator.jsonl
    assert_output 'argus-find-spinning: indicators: 0
argus-find-spinning: hang nodes: 0'
    run spin $F/indicator.jsonl --indicator HangReporter
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":4001,"pid":400,"proc":"Mail","thread":"main","begin":1000000000,"end":2500000000,"duration":1500000000,"class":"busy","indicator":"HangReporter","at":2000000000,"event":6,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":2,"complete":true,"segs":[1,3],"edge_from":[4],"edge_to":[5],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}'
    run spin $F/indicator.jsonl --indicator HangReporter --indicator gMainThreadHung
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":4001,"pid":400,"proc":"Mail","thread":"main","begin":1000000,"end":900000000,"duration":899000000,"class":"busy","indicator":"gMainThreadHung","at":500000000,"event":3,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}
{"type":"hang","hang":1,"seg":3,"tid":4001,"pid":400,"proc":"Mail","thread":"main","begin":1000000000,"end":2500000000,"duration":1500000000,"class":"busy","indicator":"HangReporter","at":2000000000,"event":6,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":1,"rank":1,"score":2,"complete":true,"segs":[1,3],"edge_from":[4],"edge_to":[5],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}'
}

@test "SPIN-INDICATOR: with no segment ongoing, the latest begun within 1.5 s" {
    run spin $F/search-back.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":2,"tid":5001,"pid":500,"proc":"Notes","thread":"main","begin":900000000,"end":1000000000,"duration":100000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":1900000000,"event":5,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":2,"complete":true,"segs":[1,2],"edge_from":[2],"edge_to":[3],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}'
    run counts $F/search-back.jsonl
    assert_success
    assert_output 'argus-find-spinning: indicators: 2
argus-find-spinning: indicators with no main-thread segment: 1
argus-find-spinning: hang nodes: 1'
}

@test "SPIN-INDICATOR: the look-back takes a segment begun exactly 1.5 s before" {
    # only the second cursor, moved to 1.5 s after segment 2 began (900 ms)
    grep -v '"ts":1900000000' $F/search-back.jsonl | sed 's/"ts":2500000000/"ts":2400000000/' > "$TMP/at.jsonl"
    run only hang "$TMP/at.jsonl"
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":2,"tid":5001,"pid":500,"proc":"Notes","thread":"main","begin":900000000,"end":1000000000,"duration":100000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2400000000,"event":5,"events":2,"yields":0,"blocked":0,"timeouts":0}'
    sed 's/"ts":2400000000/"ts":2400000001/' "$TMP/at.jsonl" > "$TMP/after.jsonl"
    run spin "$TMP/after.jsonl"
    assert_success
    assert_output ''
    run counts "$TMP/after.jsonl"
    assert_output 'argus-find-spinning: indicators: 1
argus-find-spinning: indicators with no main-thread segment: 1
argus-find-spinning: hang nodes: 0'
}

@test "SPIN-INDICATOR: --proc NAME keeps the hang nodes of processes named NAME" {
    run spin $F/cursor.jsonl --proc Preview
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":2001,"pid":200,"proc":"Preview","thread":"main","begin":500000000,"end":2600000000,"duration":2100000000,"class":"busy","indicator":"ConnectionSetSpinning","at":2100000000,"event":8,"events":3,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[3],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":5,"ui_kind":"mouseDown"}'
}

# ---- SPIN-HANG -----------------------------------------------------------------

@test "SPIN-HANG: --hang 250 finds main threads blocked or running that long" {
    run spin $F/hang-ms.jsonl --hang 250
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":6001,"pid":600,"proc":"Calendar","thread":"main","begin":1000000,"end":410000000,"duration":409000000,"class":"wait","indicator":"hang","at":260000000,"events":2,"yields":0,"blocked":400000000,"timeouts":0,"wait":3,"resource":"0x6100","reason":"psynch_cvwait","result":"awakened"}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}
{"type":"wait_chain","hang":0,"segs":[1,2],"tids":[6001,6002],"links":["wakeup"],"states":["blocked","running"],"since":[10000000,10000000],"until":[410000000,410000000],"waits":[1,0],"end":"running"}
{"type":"hang","hang":1,"seg":4,"tid":7001,"pid":700,"proc":"Maps","thread":"main","begin":100000000,"end":450000000,"duration":350000000,"class":"busy","indicator":"hang","at":350000000,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":1,"rank":1,"score":0,"complete":true,"segs":[4],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":5,"ui_kind":"keyDown"}'
}

@test "SPIN-HANG: no hang without --hang; --hang MS takes MS itself" {
    run spin $F/hang-ms.jsonl
    assert_success
    assert_output ''
    run only hang $F/hang-ms.jsonl --hang 400
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":6001,"pid":600,"proc":"Calendar","thread":"main","begin":1000000,"end":410000000,"duration":409000000,"class":"wait","indicator":"hang","at":410000000,"events":2,"yields":0,"blocked":400000000,"timeouts":0,"wait":3,"resource":"0x6100","reason":"psynch_cvwait","result":"awakened"}'
    run counts $F/hang-ms.jsonl --hang 401
    assert_success
    assert_output 'argus-find-spinning: indicators: 0
argus-find-spinning: GUI main loops watched (SPIN-LOOP): 1
argus-find-spinning: hang nodes: 0'
}

@test "SPIN-LOOP: a nested loop of the own context answers idle or drawing, not on its timer" {
    # fixtures/spinning/nested-loops.jsonl: a dialog idle 3 s (no deadline),
    # a clipboard wait retrying on its 1 s timer, a dialog drawing every
    # 500 ms, a dialog idle 3 s with a deadline 24.7 s away
    run only hang $F/nested-loops.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":6,"tid":200,"pid":200,"proc":"clip-wait","thread":"clip-wait","begin":1001000,"end":2511000000,"duration":2509999000,"class":"busy","indicator":"loop","at":2001001000,"events":16,"yields":0,"blocked":0,"timeouts":0}'
    run counts $F/nested-loops.jsonl
    assert_output 'argus-find-spinning: indicators: 0
argus-find-spinning: GUI main loops watched (SPIN-LOOP): 4
argus-find-spinning: hang nodes: 1'
}

@test "SPIN-HANG: --proc names a process by its comm or the program or script it runs" {
    for name in tool.py tool /srv/tool.py other.py python3 -u --fast bin; do
        printf '%s:' "$name"
        spin $F/proc-names.jsonl --hang 250 --proc "$name" | jq -r 'select(.type == "hang") | .tid' | tr '\n' ' '
        echo
    done > "$BATS_TEST_TMPDIR/named"
    run cat "$BATS_TEST_TMPDIR/named"
    assert_output 'tool.py:6001 
tool:6001 
/srv/tool.py:6001 
other.py:7001 
python3:6001 7001 
-u:
--fast:
bin:'
}

@test "SPIN-HANG: --proc NAME keeps the hang nodes of processes named NAME only" {
    run spin $F/hang-ms.jsonl --hang 250 --proc Maps
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":4,"tid":7001,"pid":700,"proc":"Maps","thread":"main","begin":100000000,"end":450000000,"duration":350000000,"class":"busy","indicator":"hang","at":350000000,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[4],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":5,"ui_kind":"keyDown"}'
}

# ---- SPIN-CLASS ----------------------------------------------------------------

@test "SPIN-CLASS: wait after a final wait of 0.8 s, busy after 1.5 s running" {
    run only hang $F/class-wait-busy.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":8201,"pid":820,"proc":"Keynote","thread":"main","begin":1000000000,"end":2600000000,"duration":1600000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2550000000,"event":6,"events":2,"yields":0,"blocked":100000001,"timeouts":0,"wait":4,"resource":"0x8200","reason":"psynch_mutexwait","result":"awakened"}
{"type":"hang","hang":1,"seg":1,"tid":8001,"pid":800,"proc":"Pages","thread":"main","begin":1000000000,"end":3400000000,"duration":2400000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":3000000000,"event":10,"events":2,"yields":0,"blocked":800000000,"timeouts":0,"wait":7,"resource":"0x8000","reason":"psynch_mutexwait","result":"awakened"}
{"type":"hang","hang":2,"seg":2,"tid":8101,"pid":810,"proc":"Numbers","thread":"main","begin":1000000000,"end":3299999999,"duration":2299999999,"class":"busy","indicator":"CGSConnectionSetSpinning","at":3000000000,"event":11,"events":2,"yields":0,"blocked":799999999,"timeouts":0}'
}

@test "SPIN-CLASS: two timed-out waits in a row on one resource make it a wait" {
    run only hang $F/class-timeouts.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":11001,"pid":1100,"proc":"Messages","thread":"main","begin":110000000,"end":1810000000,"duration":1700000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":1750000000,"event":11,"events":3,"yields":0,"blocked":100000000,"timeouts":2,"wait":9,"resource":"0xb000","reason":"psynch_cvwait","result":"timed_out"}
{"type":"hang","hang":1,"seg":4,"tid":12001,"pid":1200,"proc":"Notes","thread":"main","begin":110000000,"end":1810000000,"duration":1700000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":1750000000,"event":12,"events":3,"yields":0,"blocked":100000000,"timeouts":1}'
}

@test "SPIN-CLASS: yield when thread_switch and swtch_pri are a third of the events" {
    run spin $F/class-yield.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":9001,"pid":900,"proc":"System Preferences","thread":"main","begin":1000000,"end":2500000000,"duration":2499000000,"class":"yield","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":9,"events":6,"yields":2,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"mouseDown"}
{"type":"hang","hang":1,"seg":2,"tid":9101,"pid":910,"proc":"Activity Monitor","thread":"main","begin":1000000,"end":2500000000,"duration":2499000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":10,"events":7,"yields":2,"blocked":0,"timeouts":0}
{"type":"path","hang":1,"rank":1,"score":0,"complete":true,"segs":[2],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":2,"ui_kind":"mouseDown"}'
}

@test "SPIN-CLASS: a timed-out wait inside a callout is no final wait: timeouts 0" {
    run only hang $F/callout-timeout.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":2,"tid":30001,"pid":3000,"proc":"Finder","thread":"main","begin":10000000,"end":2500000000,"duration":2490000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":6,"events":5,"yields":0,"blocked":0,"timeouts":0}'
}

# ---- SPIN-PATH: the causal path back to the UI event ---------------------------------

@test "SPIN-PATH: a dispatch edge leads back to the keyDown's segment" {
    run spin $F/path-dispatch.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":2,"tid":13001,"pid":1300,"proc":"Photos","thread":"main","begin":10000000,"end":2500000000,"duration":2490000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":6,"events":3,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":-1,"complete":true,"segs":[1,2],"edge_from":[2],"edge_to":[4],"edge_kinds":["dispatch"],"ui":1,"ui_kind":"keyDown"}'
}

@test "SPIN-PATH: strong edges (-1) rank before weak ones (+1): three paths by score" {
    run only path $F/path-rank.jsonl
    assert_success
    assert_output '{"type":"path","hang":0,"rank":1,"score":-2,"complete":true,"segs":[1,3,4],"edge_from":[2,7],"edge_to":[6,9],"edge_kinds":["dispatch","wakeup"],"ui":1,"ui_kind":"keyDown"}
{"type":"path","hang":0,"rank":2,"score":0,"complete":true,"segs":[1,3,4],"edge_from":[3,7],"edge_to":[7,9],"edge_kinds":["wait","wakeup"],"ui":1,"ui_kind":"keyDown"}
{"type":"path","hang":0,"rank":3,"score":1,"complete":true,"segs":[2,4],"edge_from":[5],"edge_to":[11],"edge_kinds":["wait"],"ui":4,"ui_kind":"keyDown"}'
}

@test "SPIN-PATH: --beam 1 writes the best path only; --beam 2 writes two" {
    run spin $F/path-rank.jsonl --beam 1
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":4,"tid":14001,"pid":1400,"proc":"App","thread":"main","begin":40000000,"end":2200000000,"duration":2160000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":14,"events":4,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":-2,"complete":true,"segs":[1,3,4],"edge_from":[2,7],"edge_to":[6,9],"edge_kinds":["dispatch","wakeup"],"ui":1,"ui_kind":"keyDown"}'
    run only path $F/path-rank.jsonl --beam 2
    assert_success
    assert_output '{"type":"path","hang":0,"rank":1,"score":-2,"complete":true,"segs":[1,3,4],"edge_from":[2,7],"edge_to":[6,9],"edge_kinds":["dispatch","wakeup"],"ui":1,"ui_kind":"keyDown"}
{"type":"path","hang":0,"rank":2,"score":0,"complete":true,"segs":[1,3,4],"edge_from":[3,7],"edge_to":[7,9],"edge_kinds":["wait","wakeup"],"ui":1,"ui_kind":"keyDown"}'
}

@test "SPIN-PATH: --max-steps 1 writes the complete weak path, not cut strong ones" {
    run only path $F/path-rank.jsonl --max-steps 1
    assert_success
    assert_output '{"type":"path","hang":0,"rank":1,"score":1,"complete":true,"segs":[2,4],"edge_from":[5],"edge_to":[11],"edge_kinds":["wait"],"ui":4,"ui_kind":"keyDown"}'
}

@test "SPIN-PATH: a segment with no incoming edge steps to its thread's previous one" {
    run spin $F/path-thread.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":3,"tid":16001,"pid":1600,"proc":"Terminal","thread":"main","begin":10000000,"end":2500000000,"duration":2490000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":7,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":0,"rank":1,"score":2,"complete":true,"segs":[1,3],"edge_from":[2],"edge_to":[4],"edge_kinds":["thread"],"ui":1,"ui_kind":"keyDown"}
{"type":"hang","hang":1,"seg":4,"tid":17001,"pid":1700,"proc":"Music","thread":"main","begin":20000000,"end":2500000000,"duration":2480000000,"class":"busy","indicator":"CGSConnectionSetSpinning","at":2100000000,"event":8,"events":2,"yields":0,"blocked":0,"timeouts":0}
{"type":"path","hang":1,"rank":1,"score":2,"complete":false,"segs":[2,4],"edge_from":[5],"edge_to":[6],"edge_kinds":["thread"]}'
    run counts $F/path-thread.jsonl
    assert_success
    assert_output 'argus-find-spinning: indicators: 2
argus-find-spinning: hang nodes: 2
argus-find-spinning: hang nodes with no path to a ui_event: 1'
}

@test "SPIN-PATH: --no-thread-order never steps back: the hang node alone, incomplete" {
    run only path $F/path-thread.jsonl --no-thread-order
    assert_success
    assert_output '{"type":"path","hang":0,"rank":1,"score":0,"complete":false,"segs":[3],"edge_from":[],"edge_to":[],"edge_kinds":[]}
{"type":"path","hang":1,"rank":1,"score":0,"complete":false,"segs":[4],"edge_from":[],"edge_to":[],"edge_kinds":[]}'
}

# ---- SPIN-PATH: the wait chain ----------------------------------------------------

@test "SPIN-PATH: the demo's wait chain goes through two wakeups to an io interrupt" {
    run spin fixtures/demo/hang.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":1001,"pid":100,"proc":"App","thread":"main","begin":1000000,"end":3200400000,"duration":3199400000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2001200000,"event":12,"events":4,"yields":0,"blocked":3199190000,"timeouts":0,"wait":4,"resource":"0x5207","reason":"mach_msg receive","result":"awakened"}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}
{"type":"wait_chain","hang":0,"segs":[1,2,3],"tids":[1001,2001,2002],"links":["wakeup","wakeup"],"states":["blocked","blocked","blocked"],"since":[1210000,1410000,1510000],"until":[3200400000,3200300000,3200100000],"waits":[1,1,1],"end":"io","resource":"0x9c00","reason":"soreceive"}'
}

@test "SPIN-PATH: a chain through unanswered IPC requests ends not_woken or no_reply" {
    run only wait_chain $F/chain-ipc.jsonl
    assert_success
    assert_output '{"type":"wait_chain","hang":0,"segs":[1,2,3],"tids":[18001,19001,20001],"links":["ipc","ipc"],"states":["blocked","blocked","blocked"],"since":[3000000,6000000,8000000],"until":[2000000000,2000000000,2000000000],"waits":[1,1,1],"end":"not_woken","resource":"0x2000c0","reason":"psynch_cvwait"}
{"type":"wait_chain","hang":1,"segs":[4,5],"tids":[21001,22001],"links":["ipc"],"states":["blocked","blocked"],"since":[13000000,16000000],"until":[2000000000,2000000000],"waits":[1,1],"end":"no_reply","resource":"0x2207","reason":"mach_msg receive"}'
    run only hang $F/chain-ipc.jsonl
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":18001,"pid":1800,"proc":"Mail","thread":"main","begin":1000000,"end":2000000000,"duration":1999000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":15,"events":3,"yields":0,"blocked":1997000000,"timeouts":0,"wait":3,"resource":"0x1807","reason":"mach_msg receive"}
{"type":"hang","hang":1,"seg":4,"tid":21001,"pid":2100,"proc":"Safari","thread":"main","begin":11000000,"end":2000000000,"duration":1989000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2000000000,"event":16,"events":3,"yields":0,"blocked":1987000000,"timeouts":0,"wait":11,"resource":"0x2107","reason":"mach_msg receive"}'
}

@test "SPIN-PATH: a wait that timed out with no request sent ends its chain timeout" {
    run sh -c "argus graph $F/class-timeouts.jsonl | argus-find-spinning | argus-to-json | jq -c 'select(.type==\"wait_chain\" and .hang==0)'"
    assert_success
    assert_output '{"type":"wait_chain","hang":0,"segs":[3],"tids":[11001],"links":[],"states":["blocked"],"since":[1710000000],"until":[1810000000],"waits":[1],"end":"timeout","resource":"0xb000","reason":"psynch_cvwait"}'
}

@test "SPIN-PATH: a wait chain that comes back to a thread in it ends with cycle" {
    run spin $F/chain-cycle.jsonl
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":24001,"pid":2400,"proc":"Chromium","thread":"main","begin":1000000,"end":1503000000,"duration":1502000000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":1000000000,"event":7,"events":3,"yields":0,"blocked":1500000000,"timeouts":1,"wait":3,"resource":"0x2407","reason":"mach_msg receive","result":"timed_out"}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}
{"type":"wait_chain","hang":0,"segs":[1,2],"tids":[24001,25001],"links":["ipc"],"states":["blocked","blocked"],"since":[3000000,6000000],"until":[1503000000,1503000000],"waits":[1,1],"end":"cycle","resource":"0x2507","reason":"mach_msg receive"}'
}

@test "SPIN-PATH: the waker's step is the segment it woke the waiter from" {
    run sh -c "argus graph $F/chain-running.jsonl | argus-find-spinning | argus-to-json | jq -c 'select(.type==\"wait_chain\" and .hang==0)'"
    assert_success
    assert_output '{"type":"wait_chain","hang":0,"segs":[1,3],"tids":[26001,26003],"links":["wakeup"],"states":["blocked","running"],"since":[10000000,20000000],"until":[2510000000,2510000000],"waits":[1,0],"end":"running"}'
}

@test "SPIN-PATH: a thread running at the indicator ends the chain with running" {
    run sh -c "argus graph $F/chain-running.jsonl | argus-find-spinning | argus-to-json | jq -c 'select(.type==\"wait_chain\" and .hang==1)'"
    assert_success
    assert_output '{"type":"wait_chain","hang":1,"segs":[4,5],"tids":[27001,28001],"links":["ipc"],"states":["blocked","running"],"since":[23000000,24000000],"until":[2510000000,2500000000],"waits":[1,0],"end":"running"}'
}

@test "SPIN-PATH: only a wait hang gets a wait chain, not a busy one" {
    run sh -c "argus graph $F/class-wait-busy.jsonl | argus-find-spinning | argus-to-json | jq -c 'select(.type==\"wait_chain\") | .hang'"
    assert_success
    assert_output '0
1'
}

@test "SPIN-PATH: --no-wait-chain writes no wait_chain records" {
    run spin fixtures/demo/hang.jsonl --no-wait-chain
    assert_success
    assert_output '{"type":"hang","hang":0,"seg":1,"tid":1001,"pid":100,"proc":"App","thread":"main","begin":1000000,"end":3200400000,"duration":3199400000,"class":"wait","indicator":"CGSConnectionSetSpinning","at":2001200000,"event":12,"events":4,"yields":0,"blocked":3199190000,"timeouts":0,"wait":4,"resource":"0x5207","reason":"mach_msg receive","result":"awakened"}
{"type":"path","hang":0,"rank":1,"score":0,"complete":true,"segs":[1],"edge_from":[],"edge_to":[],"edge_kinds":[],"ui":1,"ui_kind":"keyDown"}'
}

# ---- the stream ------------------------------------------------------------------

@test "the graph passes through unchanged but for the header; records are appended" {
    argus graph fixtures/demo/hang.jsonl > "$TMP/in"
    argus-find-spinning < "$TMP/in" > "$TMP/out"
    argus-to-json "$TMP/in" > "$TMP/in.json"
    argus-to-json "$TMP/out" > "$TMP/out.json"
    # the header gains the stage's command line
    run head -1 "$TMP/out.json"
    assert_output "$(head -1 "$TMP/in.json" | jq -c '.stages += ["find-spinning"]')"
    # every other input record, in order, then the four appended
    run sh -c "tail -n +2 '$TMP/in.json' | wc -l; tail -n +2 '$TMP/out.json' | wc -l"
    assert_output '37
41'
    run bash -c "cmp <(tail -n +2 '$TMP/out.json' | head -n 37) <(tail -n +2 '$TMP/in.json')"
    assert_success
    run sh -c "tail -n 4 '$TMP/out.json' | jq -r .type"
    assert_output 'hang
path
wait_chain
critical_path'
    # and the output is a valid stream
    run argus-validate "$TMP/out"
    assert_success
}

@test "a stream with no hang passes through with nothing appended" {
    argus graph $F/hang-ms.jsonl > "$TMP/in"
    run bash -c "cmp <(argus-find-spinning < '$TMP/in' | argus-to-json | tail -n +2) <(argus-to-json '$TMP/in' | tail -n +2)"
    assert_success
}

# ---- bad input and usage -----------------------------------------------------------

@test "a stream that was not segmented exits 65 naming the first event" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-find-spinning 2>&1 >/dev/null'
    assert_failure 65
    assert_output "argus-find-spinning: <stdin>: record 7 (byte 352): event 1 has no seg: run argus-segment (argus graph) before the analysis"
}

@test "on a stream not segmented, the output ends before the bad record" {
    run sh -c 'argus-decode fixtures/demo/hang.jsonl | argus-find-spinning 2>/dev/null | argus-to-json | jq -r .type | tr "\n" " "'
    assert_output 'stream thread thread thread thread thread '
}

@test "usage errors exit 64: --beam 0, --hang past 10^9 ms, unknown option, two files" {
    run argus-find-spinning --beam 0
    assert_failure 64
    assert_output "argus-find-spinning: --beam must be 1..1000
Try 'argus-find-spinning --help' for more information."
    run argus-find-spinning --hang 1000000001
    assert_failure 64
    assert_output "argus-find-spinning: --hang must be 0..1000000000 ms (0: off)
Try 'argus-find-spinning --help' for more information."
    run argus-find-spinning --hang 18446744073710
    assert_failure 64
    run argus-find-spinning --bogus
    assert_failure 64
    assert_output "argus-find-spinning: bad option '--bogus' (unknown, or missing its value)
Try 'argus-find-spinning --help' for more information."
    run argus-find-spinning --max-steps 0
    assert_failure 64
    assert_output --partial "argus-find-spinning: --max-steps must be 1..100000"
    run argus-find-spinning a b
    assert_failure 64
    assert_output --partial "argus-find-spinning: more than one input file"
}

@test "a missing input file exits 66" {
    run argus-find-spinning "$TMP/nosuch"
    assert_failure 66
    assert_output "argus-find-spinning: $TMP/nosuch: No such file or directory"
}

@test "--help lists the rules and flags and exits 0" {
    run argus-find-spinning --help
    assert_success
    assert_line --index 0 "Usage: argus-find-spinning [--indicator SYMBOL]... [--hang MS] [--proc NAME]"
    assert_line --partial "SPIN-INDICATOR"
    assert_line --partial "SPIN-HANG"
    assert_line --partial "SPIN-CLASS"
    assert_line --partial "SPIN-PATH"
    assert_line --partial "--no-wait-chain"
}

@test "SPIN-PATH: the chain follows the waker past its short mutex wait (three hops)" {
    run only wait_chain $F/chain-mutex.jsonl --hang 500
    assert_success
    assert_output '{"type":"wait_chain","hang":0,"segs":[1,2,3],"tids":[1,2,3],"links":["wakeup","wakeup"],"states":["blocked","blocked","running"],"since":[1300,1600,1700],"until":[1500008000,1500006000,1500006000],"waits":[1,2,0],"end":"running"}
{"type":"wait_chain","hang":1,"segs":[2,3],"tids":[2,3],"links":["wakeup"],"states":["blocked","running"],"since":[1600,1700],"until":[1500006000,1500006000],"waits":[2,0],"end":"running"}'
}

# Three lines of a real recording: sh (22244) asleep since before the
# trace, woken by a thread (22246) whose first line is that wakeup.
@test "SPIN-PATH: a waker first seen at its wakeup ends the chain trace_start" {
    cat > "$TMP/t.txt" <<'TRACE'
       kdamond.0-77      (     77) [000] d..2.   443.397750: sched_switch: prev_comm=kdamond.0 prev_pid=77 prev_prio=120 prev_state=I ==> next_comm=kworker/0:2 next_pid=379 next_prio=120
           <...>-22246   (  22246) [000] d..5.   443.975991: sched_wakeup: comm=sh pid=22244 prio=120 target_cpu=000
           <...>-22246   (  22246) [000] d..2.   443.976754: sched_switch: prev_comm=argus-link-wake prev_pid=22246 prev_prio=120 prev_state=Z ==> next_comm=sh next_pid=22244 next_prio=120
TRACE
    run only wait_chain "$TMP/t.txt"
    assert_output '{"type":"wait_chain","hang":0,"segs":[1,3],"tids":[22244,22246],"links":["wakeup"],"states":["blocked","unknown"],"since":[0,0],"until":[578241000,578241000],"waits":[1,0],"end":"trace_start"}'
    run only critical_path "$TMP/t.txt"
    assert_output '{"type":"critical_path","hang":0,"steps":[{"tid":22246,"from":0,"to":578241000,"state":"unknown"},{"tid":22244,"from":578241000,"to":579004000,"state":"runnable"}]}'
    run argus diagnose "$TMP/t.txt"
    assert_success
    assert_line --partial "Ends: the last thread's first event in the trace is its wakeup"
}
