#!/usr/bin/env bats
# argus export: the graph and its findings as Chrome trace-event JSON
# (Perfetto's UI, chrome://tracing) and as Graphviz DOT
# (docs/stages/export.md). The demo's JSON is also opened in a viewer of
# that format, the Performance panel of Chromium's own DevTools front end
# (headless, tests/tools/devtools-trace; skipped without chromium), whose
# screenshot scripts/make-screenshots.sh keeps for docs/viewing.md
# (ARGUS_SCREENSHOTS=DIR: copied there).

load test_helper

setup_file() {
    # the demo's findings stream: graph, hang, path, wait chain, culprits
    argus diagnose --baseline fixtures/demo/normal.jsonl \
        --keep "$BATS_FILE_TMPDIR/demo.findings" fixtures/demo/hang.jsonl >/dev/null
}

teardown_file() {
    if [ -n "${ARGUS_SCREENSHOTS-}" ] && [ -s "$BATS_FILE_TMPDIR/devtools.png" ]; then
        cp "$BATS_FILE_TMPDIR/devtools.png" "$ARGUS_SCREENSHOTS/demo-devtools.png"
    fi
}

F() { echo "$BATS_FILE_TMPDIR/demo.findings"; }

# Checks of the trace-event format on the JSON export FILE: prints
# "slices N flows N unpaired N overlaps N".
check_trace() {
    jq -r '
      [.traceEvents[] | select(.ph == "X")
       | {k: "\(.pid)/\(.tid)", b: ((.ts * 1000) | round), d: ((.dur * 1000) | round)}
       | .e = .b + .d] as $x
      | ([.traceEvents[] | select(.ph == "s") | .id] | sort) as $s
      | ([.traceEvents[] | select(.ph == "f") | .id] | sort) as $f
      | ($x | group_by(.k)
         | map(sort_by(.b, -.e)
               | reduce .[] as $i ({stack: [], bad: 0};
                   .stack |= map(select(.e > $i.b))
                   | (if (.stack | length) > 0 and .stack[-1].e < $i.e then .bad += 1 else . end)
                   | .stack += [$i])
               | .bad) | add) as $overlaps
      | "slices \($x | length) flows \($s | length) unpaired \(($s - $f) + ($f - $s) | length) overlaps \($overlaps // 0)"' "$1"
}

# The trace-event format's fields of each phase on FILE (the "JSON Object
# Format": displayTimeUnit and a traceEvents array; X: name, ts, dur >= 0,
# pid, tid; s and f: id, name, cat, ts, pid, tid, f binding to its
# enclosing slice (bp e); i: a scope s; M: a name the viewers know, with
# args; ts a number of microseconds with at most three decimals, ns): prints
# "events N bad N backwards N", bad the events that miss one, backwards the
# causal flows whose f comes before their s (not the weak ones, named
# "KIND (weak)": a weak wait edge joins a wait to the wakeup that ended it,
# which a race may have put before the wait: gui-dbus has one). A flow at
# its slices' starts is still at or before its edge's events, so this
# holds of both placements.
check_fields() {
    jq -r '
      def num: type == "number";
      def us: num and ((. * 1000) | (. - round) | fabs < 0.001);
      def ok:
        (.pid | num) and (.tid | num) and
        if .ph == "X" then (.name | type == "string") and (.ts | us) and (.dur | us) and .dur >= 0
        elif .ph == "s" or .ph == "f" then (.id | num) and (.name | type == "string")
             and (.cat | type == "string") and (.ts | us) and (.ph == "s" or .bp == "e")
        elif .ph == "i" then (.ts | us) and (.s == "t" or .s == "p" or .s == "g")
             and (.name | type == "string")
        elif .ph == "M" then (.name == "process_name" or .name == "thread_name"
             or .name == "thread_sort_index") and (.args | type == "object")
        else false end;
      if (.displayTimeUnit == "ns" or .displayTimeUnit == "ms") and (.traceEvents | type == "array")
      then . else error("not the JSON Object Format") end
      | ([.traceEvents[] | select((.ph == "s" or .ph == "f") and (.name | endswith(" (weak)") | not))]
         | group_by(.id)
         | map(select(([.[] | select(.ph == "s")][0].ts) > ([.[] | select(.ph == "f")][0].ts)))
         | length) as $back
      | "events \(.traceEvents | length) bad \([.traceEvents[] | select(ok | not)] | length) backwards \($back)"' "$1"
}

# How the viewers bind the flows of the JSON export FILE: prints "pairs N
# enclosed N at-starts N". enclosed: pairs whose s and f both lie inside a
# slice of their thread (Perfetto's importer binds an s, and an f with bp
# e, to the slice open at its ts on its thread); at-starts: pairs that
# DevTools' Performance panel binds (its FlowsHandler: a flow event to the
# slice of its pid and tid that starts at its ts in its category; s and f
# paired by category, name and id, in file order, s first; the two at
# different ts).
check_binding() {
    jq -r '
      def ns: (. * 1000) | round;
      [.traceEvents | to_entries[] | .value + {at: .key}] as $ev
      | ($ev | map(select(.ph == "X") | {k: "\(.pid)/\(.tid)", b: (.ts | ns), e: ((.ts + .dur) | ns), cat})
         | group_by(.k) | map({key: .[0].k, value: .}) | from_entries) as $x
      | def slices($e): $x["\($e.pid)/\($e.tid)"] // [];
        def inside($e): any(slices($e)[]; .b <= ($e.ts | ns) and ($e.ts | ns) <= .e);
        def starts($e): any(slices($e)[]; .b == ($e.ts | ns) and .cat == $e.cat);
      [$ev[] | select(.ph == "s" or .ph == "f")] | group_by(.id)
      | map({s: (map(select(.ph == "s"))[0]), f: (map(select(.ph == "f"))[0])}) as $p
      | "pairs \($p | length) enclosed \([$p[] | select(inside(.s) and inside(.f))] | length) at-starts \([$p[] | select(starts(.s) and starts(.f) and .s.cat == .f.cat and .s.name == .f.name and .s.at < .f.at and .s.ts < .f.ts)] | length)"' "$1"
}

@test "perfetto: the demo's slices, one per segment, named, with their marks" {
    run sh -c "argus export --format perfetto $(F) | jq -c '[.traceEvents[] | select(.ph == \"X\")] | sort_by(.ts)[] | [.tid, .ts, .dur, .args.seg, .name, .cat, .args.marks]'"
    assert_success
    assert_output '[1001,1000,3199400,1,"ui keyDown","segment","hang,path,chain"]
[2001,1300,3199000,2,"wait psynch_cvwait","segment","chain,culprit"]
[2002,1500,3198600,3,"wait soreceive","segment","chain,culprit"]
[1002,2001200,0,4,"backtrace CGSConnectionSetSpinning < -[NSEvent _spinningCursor] < __NSEventThread","segment",null]
[7,3200000,20,5,"wakes tid 2002","segment",null]
[2002,3200100,100,6,"woken","segment",null]
[2001,3200300,10,7,"send msg_id 4342 -> pid 100","segment",null]
[1001,3200400,100,8,"recv msg_id 4342 <- pid 200","segment",null]'
}

@test "perfetto: the JSON parses, every flow pairs, a thread's slices nest" {
    sh -c "argus export --format perfetto $(F) > $BATS_TEST_TMPDIR/x.json"
    run check_trace "$BATS_TEST_TMPDIR/x.json"
    assert_success
    assert_output "slices 8 flows 8 unpaired 0 overlaps 0"
}

@test "perfetto: threads and processes named by metadata, main thread first" {
    run sh -c "argus export $(F) | jq -c '.traceEvents[] | select(.ph == \"M\") | [.name, .pid, .tid, .args.name // .args.sort_index]'"
    assert_success
    assert_output '["process_name",100,1001,"App"]
["thread_name",100,1001,"main"]
["thread_sort_index",100,1001,-1]
["process_name",100,1002,"App"]
["thread_name",100,1002,"NSEventThread"]
["process_name",200,2001,"syncd"]
["thread_name",200,2001,"main"]
["thread_sort_index",200,2001,-1]
["process_name",200,2002,"syncd"]
["thread_name",200,2002,"net"]
["process_name",0,7,"kernel_task"]
["thread_name",0,7,"timer"]'
}

@test "perfetto: a slice runs from its segment's first event to the next segment" {
    # every slice's ts, in ns, is the ts of its segment's first event
    run sh -c "argus-to-json $(F) | jq -c 'select(.id and .seg) | {seg, ts}' | jq -s -c 'group_by(.seg) | map({seg: .[0].seg, ts: (map(.ts) | min)})'"
    assert_success
    first=$output
    run sh -c "argus export $(F) | jq -c '[.traceEvents[] | select(.ph == \"X\") | {seg: .args.seg, ts: ((.ts * 1000) | round)}] | sort_by(.seg)'"
    assert_output "$first"
    # seg 1 (hang) ends where the main thread's seg 8 begins: 1000 + 3199400 us
    run sh -c "argus export $(F) | grep -o '\"ts\":1000.000,\"dur\":3199400.000'"
    assert_output '"ts":1000.000,"dur":3199400.000'
}

@test "perfetto: nanoseconds kept as three decimals of a microsecond" {
    printf '%s\n' '{"type":"thread","tid":1,"pid":1,"proc":"P","main":true}' \
        '{"type":"syscall","ts":1234567,"tid":1,"pid":1,"name":"read","phase":"begin"}' \
        '{"type":"syscall","ts":1240001,"tid":1,"pid":1,"name":"read","phase":"end"}' > "$BATS_TEST_TMPDIR/t.jsonl"
    run sh -c "argus graph $BATS_TEST_TMPDIR/t.jsonl | argus export | jq -c '.traceEvents[] | select(.ph == \"X\")'"
    assert_success
    assert_output '{"ph":"X","pid":1,"tid":1,"ts":1234.567,"dur":5.434,"name":"read","cat":"segment","args":{"seg":1,"events":2,"first_id":1,"key_events":["read"]}}'
}

@test "perfetto: edges are flows named by kind, in order, at their slices' starts" {
    run sh -c "argus export $(F) | jq -c '[.traceEvents[] | select(.ph == \"s\" or .ph == \"f\")] | sort_by(.id, .ph == \"f\")[] | [.id, .ph, .tid, .ts, .name, .cat, .bp]'"
    assert_success
    # each at the start of the slice of its edge's event: 1 is seg 1's ipc
    # (its event at 1200) to seg 2 (at 1300); 2 seg 3's resume (1510) to
    # seg 6
    assert_output '[1,"s",1001,1000,"ipc","segment",null]
[1,"f",2001,1300,"ipc","segment","e"]
[2,"s",2002,1500,"resume","segment",null]
[2,"f",2002,3200100,"resume","segment","e"]
[3,"s",2001,1300,"wait (weak)","segment",null]
[3,"f",2002,3200100,"wait (weak)","segment","e"]
[4,"s",2002,3200100,"wakeup","segment",null]
[4,"f",2001,3200300,"wakeup","segment","e"]
[5,"s",2001,1300,"reply","segment",null]
[5,"f",2001,3200300,"reply","segment","e"]
[6,"s",1001,1000,"wait (weak)","segment",null]
[6,"f",2001,3200300,"wait (weak)","segment","e"]
[7,"s",2001,3200300,"wakeup","segment",null]
[7,"f",1001,3200400,"wakeup","segment","e"]
[8,"s",2001,3200300,"ipc","segment",null]
[8,"f",1001,3200400,"ipc","segment","e"]'
    sh -c "argus export $(F) > $BATS_TEST_TMPDIR/x.json"
    run check_binding "$BATS_TEST_TMPDIR/x.json"
    assert_output "pairs 8 enclosed 8 at-starts 8"
    # the check fails a flow moved off its slice's start, or its f written
    # before its s
    jq -c '(.traceEvents[] | select(.ph == "s" and .id == 2) | .ts) |= . + 0.01' \
        "$BATS_TEST_TMPDIR/x.json" > "$BATS_TEST_TMPDIR/moved.json"
    run check_binding "$BATS_TEST_TMPDIR/moved.json"
    assert_output "pairs 8 enclosed 8 at-starts 7"
    jq -c '.traceEvents |= ([.[] | select(.ph == "f" and .id == 2)] + [.[] | select(.ph != "f" or .id != 2)])' \
        "$BATS_TEST_TMPDIR/x.json" > "$BATS_TEST_TMPDIR/swapped.json"
    run check_binding "$BATS_TEST_TMPDIR/swapped.json"
    assert_output "pairs 8 enclosed 8 at-starts 7"
}

@test "perfetto: the hang, path and each culprit are instants at their slices" {
    run sh -c "argus export $(F) | jq -c '.traceEvents[] | select(.ph == \"i\")'"
    assert_success
    assert_output - <<'EOF'
{"ph":"i","s":"t","pid":200,"tid":2002,"ts":1500,"name":"culprit 1","cat":"culprit","args":{"seg":3}}
{"ph":"i","s":"t","pid":200,"tid":2001,"ts":1300,"name":"culprit 2","cat":"culprit","args":{"seg":2}}
{"ph":"i","s":"t","pid":100,"tid":1001,"ts":1000,"name":"path","cat":"path","args":{"seg":1}}
{"ph":"i","s":"t","pid":100,"tid":1001,"ts":1000,"name":"hang 0","cat":"hang","args":{"seg":1,"class":"wait","indicator":"CGSConnectionSetSpinning","duration_us":3199400}}
EOF
    # each at the start of the slice of the segment it names
    run sh -c "argus export $(F) | jq -c '([.traceEvents[] | select(.ph == \"X\") | {key: (.args.seg | tostring), value: [.tid, .ts]}] | from_entries) as \$s | .traceEvents[] | select(.ph == \"i\") | [\$s[.args.seg | tostring] == [.tid, .ts]]' | sort -u"
    assert_output '[true]'
    run sh -c "argus export $(F) | jq -c '.traceEvents[] | select(.args.culprit_rank == 1) | [.pid, .tid, .args.seg]'"
    assert_output '[200,2002,3]'
    run sh -c "argus export $(F) | jq -c '.traceEvents[] | select(.ph == \"X\" and (.args.marks // \"\" | split(\",\") | index(\"hang\"))) | [.tid, .args.hang]'"
    assert_output '[1001,0]'
}

@test "perfetto: a graph without findings exports every segment and marks nothing" {
    run sh -c "argus graph fixtures/demo/hang.jsonl | argus export | jq -c '[.traceEvents[] | select(.ph == \"X\" and (.cat != \"segment\" or .args.marks) or .ph == \"i\")] | length'"
    assert_success
    assert_output 0
    sh -c "argus graph fixtures/demo/hang.jsonl | argus export > $BATS_TEST_TMPDIR/x.json"
    run check_trace "$BATS_TEST_TMPDIR/x.json"
    assert_output "slices 8 flows 8 unpaired 0 overlaps 0"
}

@test "perfetto --around 0: the threads of the hang over their span; --around 3 exits 1" {
    run sh -c "argus export --around 0 $(F) | jq -c '[.traceEvents[] | select(.ph == \"X\") | .args.seg] | sort'"
    assert_success
    assert_output '[1,2,3,6,7,8]'
    sh -c "argus export --around 0 $(F) > $BATS_TEST_TMPDIR/x.json"
    run check_trace "$BATS_TEST_TMPDIR/x.json"
    assert_output "slices 6 flows 8 unpaired 0 overlaps 0"
    run argus export --around 3 "$(F)"
    assert_failure 1
    assert_output "argus-export: no hang 3 in the stream (it has 1 hang record)"
}

@test "perfetto --window FROM..TO: the segments and flows of that stretch" {
    run sh -c "argus export --window 0.0005..0.0015 $(F) | jq -c '[.traceEvents[] | select(.ph == \"X\") | .args.seg] | sort'"
    assert_success
    assert_output '[1,2,3]'
    run sh -c "argus export --window 3..3.3 $(F) | jq -c '[.traceEvents[] | select(.ph == \"X\") | .args.seg] | sort'"
    assert_output '[1,2,3,5,6,7,8]'
    sh -c "argus export --window 0.0005..0.0015 $(F) > $BATS_TEST_TMPDIR/w.json"
    run check_trace "$BATS_TEST_TMPDIR/w.json"
    assert_output --regexp '^slices 3 flows [0-9]+ unpaired 0 overlaps 0$'
    for bad in 2..1 1.. 0.5 ..1 1..1 -1..2 1..2x 99999999999..99999999999.5; do
        run argus export --window "$bad" "$(F)"
        assert_failure 64
        assert_line "argus-export: --window must be FROM..TO, times as the report prints them, FROM < TO (as 0.5..2.5), not '$bad'"
    done
    run argus export --window 1..2 --around 0 "$(F)"
    assert_failure 64
    assert_line "argus-export: --window is for --output-format perfetto, without --around"
    run argus export --window 1..2 --output-format dot "$(F)"
    assert_failure 64
}

@test "perfetto: reads a pipe as well as a file, with the same output" {
    argus export "$(F)" > "$BATS_TEST_TMPDIR/file.json"
    cat "$(F)" | argus export > "$BATS_TEST_TMPDIR/pipe.json"
    run cmp "$BATS_TEST_TMPDIR/file.json" "$BATS_TEST_TMPDIR/pipe.json"
    assert_success
}

@test "dot: the demo's hang, chain and culprits, clustered by process" {
    run argus export --format dot "$(F)"
    assert_success
    assert_output 'digraph argus {
  rankdir=LR;
  node [shape=box, fontname="Helvetica", fontsize=10];
  edge [fontname="Helvetica", fontsize=9];
  subgraph cluster_100 {
    label="App (100)";
    s1 [label="main [1001]\nseg 1: ui keyDown\n3.20 s\nHANG 0", style=filled, fillcolor="#f4a6a6", penwidth=2];
  }
  subgraph cluster_200 {
    label="syncd (200)";
    s2 [label="main [2001]\nseg 2: wait psynch_cvwait\n3.20 s\nCULPRIT (rank 2)", style=filled, fillcolor="#ffd27f"];
    s3 [label="net [2002]\nseg 3: wait soreceive\n3.20 s\nCULPRIT (rank 1)", style=filled, fillcolor="#ffd27f"];
  }
  s1 -> s2 [label="ipc"];
  s1 -> s2 [label="waits on", style=dotted, color="#c03030", constraint=false];
  s2 -> s3 [label="waits on", style=dotted, color="#c03030", constraint=false];
}'
}

@test "dot: renders with dot -Tsvg, and the SVG names the culprit thread" {
    command -v dot >/dev/null || skip "dot (Debian's graphviz) is not installed: scripts/deps.sh installs it"
    run sh -c "argus export --format dot $(F) | dot -Tsvg | grep -c 'net \[2002\]'"
    assert_success
    assert_output 1
}

@test "dot: a graph without findings is drawn whole; over 200 segments exits 1" {
    run sh -c "argus graph fixtures/demo/hang.jsonl | argus export --format dot | grep -c '^    s[0-9]* \['"
    assert_output 8
    run sh -c "argus graph fixtures/demo/hang.jsonl | argus export --format dot | grep -c 'label=\"wait\", style=dashed'"
    assert_output 2
    run sh -c "zcat fixtures/real/gui-dbus/hang.txt.gz | argus graph | argus export --format dot"
    assert_failure 1
    assert_output --regexp '^argus-export: no findings in the stream \(argus-find-spinning writes them\) and [0-9]+ segments: too many to draw; export --format perfetto shows them all$'
}

@test "real recording (gui-dbus): the export is valid JSON, flows pair, slices nest" {
    sh -c "zcat fixtures/real/gui-dbus/hang.txt.gz | argus graph | argus export > $BATS_TEST_TMPDIR/x.json"
    run check_trace "$BATS_TEST_TMPDIR/x.json"
    assert_success
    assert_output --regexp '^slices [1-9][0-9]* flows [1-9][0-9]* unpaired 0 overlaps 0$'
    run check_fields "$BATS_TEST_TMPDIR/x.json"
    assert_success
    assert_output --regexp '^events [1-9][0-9]* bad 0 backwards 0$'
    # every flow inside its two slices (Perfetto); those whose "to" slice
    # starts later than their "from" one at the slices' starts (DevTools):
    # here 3553 of 5509, the others mostly weak wait edges, from a wait to
    # the wakeup that ended it in a slice that began before the wait's
    run check_binding "$BATS_TEST_TMPDIR/x.json"
    assert_success
    read -r _ pairs _ enclosed _ starts <<< "$output"
    assert_equal "$enclosed" "$pairs"
    assert [ "$starts" -gt 0 ]
    assert [ "$starts" -lt "$pairs" ]
}

@test "perfetto: every event has its phase's fields, causal flows never go back" {
    argus export "$(F)" > "$BATS_TEST_TMPDIR/x.json"
    run check_fields "$BATS_TEST_TMPDIR/x.json"
    assert_success
    assert_output "events 40 bad 0 backwards 0"
}

@test "real recording (gui-dbus): the DOT draws the key press's chain via dbus-daemon" {
    run sh -c "zcat fixtures/real/gui-dbus/hang.txt.gz | argus graph | argus-find-spinning | argus export --format dot | tail -n +5"
    assert_success
    assert_output '  subgraph cluster_25605 {
    label="gtk-dbus-app (25605)";
    s88 [label="gtk-dbus-app [25605]\nseg 88: ui keyDown\n3.02 s\nHANG 0", style=filled, fillcolor="#f4a6a6", penwidth=2];
    s107 [label="gdbus [25651]\nseg 107: wait poll\n3.01 s"];
  }
  subgraph cluster_25578 {
    label="dbus-daemon (25578)";
    s108 [label="dbus-daemon [25578]\nseg 108: wait epoll_wait\n3.00 s"];
  }
  subgraph cluster_25586 {
    label="slow-dbus-svc (25586)";
    s120 [label="gdbus [25603]\nseg 120: wait poll\n3.00 s"];
    s122 [label="slow-dbus-svc [25586]\nseg 122: runloop callout\n3.00 s"];
  }
  s88 -> s108 [label="ipc"];
  s120 -> s122 [label="wait", style=dashed];
  s88 -> s107 [label="waits on", style=dotted, color="#c03030", constraint=false];
  s107 -> s108 [label="waits on", style=dotted, color="#c03030", constraint=false];
  s108 -> s120 [label="waits on", style=dotted, color="#c03030", constraint=false];
  s120 -> s122 [label="waits on", style=dotted, color="#c03030", constraint=false];
}'
}

@test "bad input exits 65 naming the record and writes nothing; a missing file 66" {
    run sh -c "argus-decode fixtures/demo/hang.jsonl | argus export"
    assert_failure 65
    assert_output "argus-export: <stdin>: record 7 (byte 352): event 1 has no seg: run argus-segment (argus graph) first"
    run sh -c "echo garbage | argus export --format dot"
    assert_failure 65
    assert_output --partial "argus-export: <stdin>: record 1 (byte 0): "
    argus-to-json "$(F)" | sed 's/"type":"hang","hang":0,"seg":1,/"type":"hang","hang":0,/' |
        argus-decode > "$BATS_TEST_TMPDIR/bad.cbor"
    run sh -c "argus export < $BATS_TEST_TMPDIR/bad.cbor"
    assert_failure 65
    # (the header names the findings' path, so the offset varies)
    assert_output --regexp '^argus-export: <stdin>: record 39 \(byte [0-9]+\): hang record: "seg" is missing or not an unsigned integer$'
    run argus export --format dot "$BATS_TEST_TMPDIR/bad.cbor"
    assert_failure 65
    assert_output "argus-export: $BATS_TEST_TMPDIR/bad.cbor: record 39: hang record: \"seg\" is missing or not an unsigned integer"
    run argus export fixtures/demo/no-such.cbor
    assert_failure 66
    assert_output "argus-export: fixtures/demo/no-such.cbor: No such file or directory"
}

@test "--help lists the flags; a bad --format or --around, or two files, exit 64" {
    run argus export --help
    assert_success
    assert_line "Usage: argus-export [--output-format perfetto|dot|html] [--around N]"
    assert_line "                    [--window FROM..TO] [GRAPH|-]"
    assert_line --partial "      --output-format F  perfetto (default), dot or html (-f, --format F:"
    assert_line --partial "  -a, --around N"
    assert_line --partial "      --window FROM..TO"
    run argus export --format svg
    assert_failure 64
    assert_line "argus-export: --output-format must be perfetto, dot or html, not 'svg'"
    run argus export --around x
    assert_failure 64
    run argus export a b
    assert_failure 64
}

@test "--output-format names the export's format; -f and --format are the same" {
    argus graph fixtures/demo/hang.jsonl | argus find-spinning > "$BATS_TEST_TMPDIR/f.graph"
    run argus export --output-format dot "$BATS_TEST_TMPDIR/f.graph"
    assert_success
    assert_line --index 0 --regexp '^digraph'
    dot=$output
    run argus export --format dot "$BATS_TEST_TMPDIR/f.graph"
    assert_equal "$output" "$dot"
    run argus export -f dot "$BATS_TEST_TMPDIR/f.graph"
    assert_equal "$output" "$dot"
}

@test "perfetto: an edge between ids far apart is a flow, in bounded memory" {
    cbor_records > "$BATS_TEST_TMPDIR/sparse.cbor" <<EOF2
$HEADER
{'type':'thread','tid':7,'pid':7,'proc':'a','main':True}
{'type':'wait','id':1,'ts':10,'tid':7,'pid':7,'seg':1}
{'type':'woken','id':1099511627776,'ts':20,'tid':7,'pid':7,'seg':2}
{'type':'edge','kind':'resume','from':1,'to':1099511627776}
EOF2
    # an array by id would ask for 12 TB here, and fail (or never end)
    run sh -c "argus-export '$BATS_TEST_TMPDIR/sparse.cbor' | jq -c '[.traceEvents[] | select(.ph == \"s\" or .ph == \"f\") | .ph]'"
    assert_success
    assert_output '["s","f"]'
}

# export_counts JSON: "slices N starts N ends N unpaired N" of a large
# export, by lines (one trace event a line), without loading it whole.
export_counts() {
    printf 'slices %s starts %s ends %s unpaired %s\n' \
        "$(grep -c '"ph":"X"' "$1")" "$(grep -c '"ph":"s"' "$1")" "$(grep -c '"ph":"f"' "$1")" \
        "$(grep -o '"ph":"[sf]","id":[0-9]*' "$1" | awk -F'"id":' '{ n[$2]++ } END { for (i in n) if (n[i] != 2) b++; print b + 0 }')"
}

@test "perfetto: the export streams in bounded memory, however long the graph" {
    # before, an export held every segment and every event's place: 40 MB
    # at 300,000 events; under the sanitizers address space is reserved in
    # terabytes, so the bound is checked on the plain build only
    limit=unlimited
    case "$ARGUS_BIN" in *build-san*) ;; *) limit=24000 ;; esac
    mkdir "$BATS_TEST_TMPDIR/tmp"
    for n in 50000 400000; do
        "$ARGUS_ROOT/bench/gen" -n "$n" -s 7 | argus graph > "$BATS_TEST_TMPDIR/g.argus"
        summary=$(argus-validate "$BATS_TEST_TMPDIR/g.argus")
        segs=$(echo "$summary" | sed 's/.* \([0-9]*\) segments.*/\1/')
        edges=$(echo "$summary" | sed 's/.* \([0-9]*\) edges.*/\1/')
        run bash -c "ulimit -v $limit; TMPDIR='$BATS_TEST_TMPDIR/tmp' argus-export '$BATS_TEST_TMPDIR/g.argus' > '$BATS_TEST_TMPDIR/g.json'"
        assert_success
        run export_counts "$BATS_TEST_TMPDIR/g.json"
        assert_output "slices $segs starts $edges ends $edges unpaired 0"
        # from a pipe too (copied to a temporary file, then read twice)
        run bash -c "ulimit -v $limit; cat '$BATS_TEST_TMPDIR/g.argus' | TMPDIR='$BATS_TEST_TMPDIR/tmp' argus-export | cmp - '$BATS_TEST_TMPDIR/g.json'"
        assert_success
        run ls -A "$BATS_TEST_TMPDIR/tmp"
        assert_output ""
    done
}

@test "perfetto and dot: long names are cut at a character boundary" {
    /usr/bin/python3 - > "$BATS_TEST_TMPDIR/in" <<'PY'
import cbor2, sys
o = sys.stdout.buffer
o.write(cbor2.dumps({'type': 'stream', 'format': 'argus', 'version': 1,
                     'source': 'test', 'stages': ['decode x', 'segment']}))
o.write(cbor2.dumps({'type': 'thread', 'tid': 2, 'pid': 2, 'proc': 'app'}))
o.write(cbor2.dumps({'type': 'flag_write', 'id': 1, 'ts': 10, 'tid': 2, 'pid': 2,
                     'name': '\u00e9' * 200, 'value': 1, 'addr': 4096, 'seg': 1}))
o.write(cbor2.dumps({'type': 'syscall', 'id': 2, 'ts': 20, 'tid': 2, 'pid': 2,
                     'name': '\u00e9' * 200, 'phase': 'begin', 'seg': 1}))
PY
    argus-export --output-format perfetto "$BATS_TEST_TMPDIR/in" > "$BATS_TEST_TMPDIR/json"
    run /usr/bin/python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))   # strict
x = [e for e in d["traceEvents"] if e.get("ph") == "X"][0]
print(x["name"] == "\u00e9" * 79, [k[:13] + "..." + str(len(k.encode())) for k in x["args"]["key_events"]])
' "$BATS_TEST_TMPDIR/json"
    assert_success
    assert_output "True ['write flag éé...119', 'ééééééééééééé...118']"
    run bash -c "argus-export --format dot '$BATS_TEST_TMPDIR/in' | iconv -f UTF-8 -t UTF-8 | grep -c 'ééé'"
    assert_success
    assert_output 1
}

@test "perfetto --window: a time copied from the report keeps the hang's segment" {
    gzip -dc "$ARGUS_ROOT/fixtures/real/gui-dbus/hang.txt.gz" > "$BATS_TEST_TMPDIR/t.txt"
    argus graph "$BATS_TEST_TMPDIR/t.txt" | argus-find-spinning > "$BATS_TEST_TMPDIR/f" || true
    when=$(argus-report "$BATS_TEST_TMPDIR/f" | sed -n 's/^  When: *\([0-9.]*\) s to .*/\1/p')
    assert_equal "$when" 13507.243398
    run sh -c "argus export --window '$when..${when}5' '$BATS_TEST_TMPDIR/f' | jq -c '[.traceEvents[] | select(.ph == \"X\" and (.args.marks // \"\" | test(\"hang\")))] | length'"
    assert_success
    assert_output 1
    # before the trace's first timestamp (13507.171125): nothing
    run sh -c "argus export --window 1..2 '$BATS_TEST_TMPDIR/f' | jq -c '[.traceEvents[] | select(.ph == \"X\")] | length'"
    assert_output 0
}

# What a viewer of the export FILE should show, as tests/tools/devtools-trace
# prints it, sorted: a track per process ("App (100)", from its
# process_name) and per thread ("App (100) / main (1001)", thread_name),
# a slice per X event on its thread's track ("App (100) / main (1001) |
# ui keyDown").
viewer_expects() {
    jq -r '
      (reduce (.traceEvents[] | select(.ph == "M" and .name == "process_name")) as $e
        ({}; .["\($e.pid)"] = "\($e.args.name) (\($e.pid))")) as $p
      | (reduce (.traceEvents[] | select(.ph == "M" and .name == "thread_name")) as $e
        ({}; .["\($e.pid)/\($e.tid)"] = "\($p["\($e.pid)"]) / \($e.args.name) (\($e.tid))")) as $t
      | ($p[] | "track: \(.)"), ($t[] | "track: \(.)"),
        (.traceEvents[] | select(.ph == "X") | "slice: \($t["\(.pid)/\(.tid)"]) | \(.name)")' "$1" | sort
}

@test "perfetto in Chromium's DevTools: tracks, slices, flows and marks as exported" {
    command -v chromium >/dev/null 2>&1 || skip "no chromium (Debian package chromium)"
    local d=$BATS_TEST_TMPDIR
    argus export --output-format perfetto "$(F)" > "$d/demo.json"
    # seg 2, the culprit ranked second, selected: its arrows are drawn (the
    # ipc from the key handler, the reply and a weak wait it sent later)
    run timeout 120 devtools-trace "$d/demo.json" "$d/profile" --select "wait psynch_cvwait" \
        --screenshot "$BATS_FILE_TMPDIR/devtools.png"
    assert_success
    assert_line --index 0 "loaded: yes"
    refute_line --partial "console:"
    refute_line --partial "status:"
    assert_equal "$(printf '%s\n' "${lines[@]}" | grep -E '^(track|slice): ' | sort)" \
        "$(viewer_expects "$d/demo.json")"
    assert_line "slices: $(jq '[.traceEvents[] | select(.ph == "X")] | length' "$d/demo.json")"
    assert_line "slices: 8"
    # DevTools binds a flow event to the slice of its thread that starts at
    # its ts in its category: the export writes each at its slice's start,
    # in the slices' category, so the panel binds every flow of the demo,
    # each between the two segments its edge joins (from the graph: the
    # segments of each edge's events)
    assert_line "flows: $(jq '[.traceEvents[] | select(.ph == "s")] | length' "$d/demo.json")"
    assert_line "flows: 8"
    assert_equal "$(printf '%s\n' "${lines[@]}" | grep '^flow: ' | sort)" \
        "$(argus-to-json "$(F)" | jq -rs '(map(select(.id and .seg) | {key: "\(.id)", value: .seg}) | from_entries) as $seg
            | .[] | select(.type == "edge") | "flow: seg \($seg["\(.from)"]) -> seg \($seg["\(.to)"])"' | sort)"
    assert_line --regexp '^summary: wait psynch_cvwait Duration 3\.20 s .*"marks" ?: ?"chain,culprit" ?,.*"culprit_rank" ?: ?2 ?,.*"tid" ?: ?2001 ?,.*"cat" ?: ?"segment"'
    run png-colours "$BATS_FILE_TMPDIR/devtools.png"
    assert_line "size 1280 820"
}

@test "perfetto in DevTools: a truncated export is an error and draws nothing" {
    command -v chromium >/dev/null 2>&1 || skip "no chromium (Debian package chromium)"
    local d=$BATS_TEST_TMPDIR
    argus export --output-format perfetto "$(F)" | head -c 2000 > "$d/cut.json"
    run timeout 120 devtools-trace "$d/cut.json" "$d/profile"
    assert_success
    assert_line --index 0 "loaded: no"
    assert_line "slices: 0"
    assert_line --regexp '^console: exception SyntaxError: .*JSON'
    refute_line --partial "track:"
}

@test "--around N marks only hang N's path, chain and culprits (html and perfetto)" {
    local f=$BATS_TEST_TMPDIR/two.findings
    argus graph fixtures/graph/flag-spinning.jsonl | argus-analyze --keep "$f" > /dev/null
    # hang 0 is seg 2 (its path and chain); hang 1 is seg 4, its path 2 then
    # 4, its culprit seg 4
    run sh -c "argus export --output-format html '$f' | grep -o '\"seg\":[0-9]*,\"row\":[0-9]*,\"cls\":\"[^\"]*\"'"
    assert_output '"seg":2,"row":0,"cls":" hang path chain"
"seg":4,"row":0,"cls":" hang"'
    run sh -c "argus export --output-format html --around 1 '$f' | grep -o '\"seg\":[0-9]*,\"row\":[0-9]*,\"cls\":\"[^\"]*\"'"
    assert_output '"seg":2,"row":0,"cls":" hang path"
"seg":4,"row":0,"cls":" hang path culprit"'
    run sh -c "argus export --around 0 '$f' | jq -c '[.traceEvents[] | select(.ph == \"X\") | [.args.seg, .args.marks, .args.hang]]'"
    assert_output '[[2,"hang,path,chain",0],[4,"hang",1]]'
    # without --around, every hang's marks
    run sh -c "argus export '$f' | jq -c '[.traceEvents[] | select(.ph == \"X\") | [.args.seg, .args.marks]]'"
    assert_output '[[1,null],[2,"hang,path,chain"],[3,null],[4,"hang,path,culprit"],[5,null]]'
}
