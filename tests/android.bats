#!/usr/bin/env bats
# Android in ftrace text: binder transactions as ipc pairs (DEC-BINDER),
# a main thread's atrace slices as its Looper and deliverInputEvent as
# its input (DEC-LOOPER), and the input ANR (SPIN-ANR). The scenarios are
# hand-written in fixtures/android/ (described in its README.md) from the
# shapes of the kernel's binder tracepoints and atrace's marks; the same
# scenarios as Perfetto protobuf traces (print and binder ftrace events,
# made by bench/gen-perfetto) give the same stream and the same diagnosis.

bats_require_minimum_version 1.5.0
load test_helper

A=fixtures/android
GEN="$ARGUS_ROOT/bench/gen-perfetto"

setup() {
    T="$BATS_TEST_TMPDIR"
}

# fixture NAME: decodes fixtures/android/NAME.txt and checks the records
# against NAME.expected.jsonl
fixture() {
    run --separate-stderr bash -c "set -o pipefail; argus-decode --format ftrace $A/$1.txt | argus-to-json"
    assert_success
    assert_output "$(cat "$A/$1.expected.jsonl")"
}

# ---- Decoding (DEC-BINDER, DEC-LOOPER) ----------------------------------------

@test "DEC-BINDER, DEC-LOOPER: a binder call, its reply and the Looper decode exactly" {
    fixture anr-binder-normal
}

@test "DEC-BINDER: a one-way call is a send with oneway and no reply port" {
    fixture binder-oneway
    run bash -c "argus-decode $A/binder-oneway.txt | argus-to-json | jq -c 'select(.type == \"ipc\" and .dir == \"send\") | [.oneway, has(\"reply_port\")]'"
    assert_output '[true,false]'
    run bash -c "argus-decode $A/binder-oneway.txt | argus-to-json | jq -r 'select(.type == \"wait\" and .tid == 4000) | .reason'"
    assert_output sleeping
}

@test "DEC-BINDER: the caller of a synchronous call waits on its reply port" {
    run bash -c "argus-decode $A/anr-binder.txt | argus-to-json | jq -c 'select(.type == \"wait\" and .tid == 4000 and (.synth | not)) | [.reason, .resource]'"
    assert_output '["binder","0xb1d1000000011f28"]
["sleeping",null]'
}

@test "IPC-MSG, IPC-REPLY on binder: call, receipt, reply and receipt are linked" {
    run bash -c "argus-decode $A/anr-binder-normal.txt | argus-link-ipc | argus-to-json | jq -c 'select(.type == \"edge\") | [.kind, .from, .to]'"
    assert_output '["ipc",12,16]
["reply",16,19]
["ipc",19,23]'
    # the ids are the call's send, the server's receipt, its reply, the caller's receipt
    run bash -c "argus-decode $A/anr-binder-normal.txt | argus-to-json | jq -c 'select(.type == \"ipc\") | [.id, .tid, .dir, (.reply // false)]'"
    assert_output '[12,4000,"send",false]
[16,1103,"recv",false]
[19,1103,"send",true]
[23,4000,"recv",true]'
}

@test "IPC-REPLY on binder: a one-way call gets its ipc edge and no reply edge" {
    run bash -c "argus-decode $A/binder-oneway.txt | argus-link-ipc | argus-to-json | jq -c 'select(.type == \"edge\") | [.kind, .from, .to]'"
    assert_output '["ipc",4,7]'
}

@test "DEC-BINDER: a reply nested calls deep answers its thread's last call" {
    # system_server's binder thread, in its handling of the app's call,
    # calls surfaceflinger and has its reply before it answers the app
    cat > "$T/nested.txt" <<'EOF'
 com.example.app-4000 ( 4000) [000] ...1   100.000100: binder_transaction: transaction=10 dest_node=5 dest_proc=1000 dest_thread=0 reply=0 flags=0x10 code=0x1
   binder:1000_3-1103 ( 1000) [001] ...1   100.000200: binder_transaction_received: transaction=10
   binder:1000_3-1103 ( 1000) [001] ...1   100.000300: binder_transaction: transaction=11 dest_node=9 dest_proc=600 dest_thread=0 reply=0 flags=0x10 code=0x2
     binder:600_1-611 (  600) [000] ...1   100.000400: binder_transaction_received: transaction=11
     binder:600_1-611 (  600) [000] ...1   100.000500: binder_transaction: transaction=12 dest_node=0 dest_proc=1000 dest_thread=1103 reply=1 flags=0x0 code=0x0
   binder:1000_3-1103 ( 1000) [001] ...1   100.000600: binder_transaction_received: transaction=12
   binder:1000_3-1103 ( 1000) [001] ...1   100.000700: binder_transaction: transaction=13 dest_node=0 dest_proc=4000 dest_thread=4000 reply=1 flags=0x0 code=0x0
 com.example.app-4000 ( 4000) [000] ...1   100.000800: binder_transaction_received: transaction=13
EOF
    run bash -c "argus-decode $T/nested.txt | argus-link-ipc | argus-to-json | jq -c 'select(.type == \"edge\") | [.kind, .from, .to]'"
    assert_output '["ipc",1,2]
["ipc",3,4]
["reply",4,5]
["ipc",5,6]
["reply",2,7]
["ipc",7,8]'
}

@test "DEC-BINDER, DEC-LOOPER: without (TGID), marks and sends give the process" {
    sed -E 's/ \( *[0-9]+\) / (-----) /' $A/anr-binder-normal.txt > "$T/notgid.txt"
    run bash -c "argus-decode $T/notgid.txt | argus-to-json | jq -c 'select(.type == \"thread\") | [.tid, .pid, .main // false]' | tail -3"
    assert_output '[1020,1000,false]
[4000,4000,true]
[1103,1000,false]'
}

@test "DEC-LOOPER: print's form of a mark decodes as tracing_mark_write's" {
    sed 's/tracing_mark_write: /print: tracing_mark_write: /' $A/anr-binder-normal.txt > "$T/print.txt"
    run bash -c "argus-decode $T/print.txt | argus-to-json | jq -c 'select(.type != \"stream\" and .type != \"ftrace\")'"
    assert_output "$(jq -c 'select(.type != "stream" and .type != "ftrace")' $A/anr-binder-normal.expected.jsonl)"
}

@test "DEC-LOOPER: nested slices and counters stay ftrace events; -v counts" {
    run bash -c "argus-decode $A/anr-binder-normal.txt | argus-to-json | jq -r 'select(.type == \"ftrace\") | .text | sub(\".*tracing_mark_write: \"; \"\")'"
    assert_output 'C|1000|wq:5c0ffee com.example.app/com.example.app.MainActivity (server)|1
B|4000|AIDL::java::IActivityManager::getRunningAppProcesses::client
B|1000|AIDL::java::IActivityManager::getRunningAppProcesses::server
E|1000
E|4000
C|1000|wq:5c0ffee com.example.app/com.example.app.MainActivity (server)|0'
    run bash -c "argus-decode -v $A/anr-binder-normal.txt 2>&1 >/dev/null | grep -E 'binder|Looper|deliverInputEvent'"
    assert_output '  2 binder transactions sent (ipc sends via binder, DEC-BINDER)
  2 binder transactions received (ipc recvs via binder)
  2 Looper messages: a main thread'"'"'s outermost atrace slices (DEC-LOOPER)
  1 deliverInputEvent slices (ui_event input)'
}

# ---- The ANR (SPIN-ANR) ---------------------------------------------------------

@test "SPIN-ANR: input not handled within 5 s is an anr hang, chain to the binder" {
    run bash -c "argus graph $A/anr-binder.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"hang\") | [.tid, .indicator, .begin, .at, .class, .reason]'"
    assert_output '[4000,"anr",300000,5000300000,"wait","binder"]'
    run bash -c "argus graph $A/anr-binder.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"wait_chain\") | [.tids, .links, .states, .end]'"
    assert_output '[[4000,1103],["wakeup"],["blocked","running"],"running"]'
}

@test "SPIN-ANR: a call answered after 4 s is no ANR but SPIN-LOOP's loop" {
    sed -E 's/ 106\.0/ 104.0/' $A/anr-binder.txt > "$T/four.txt"
    run bash -c "argus graph $T/four.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"hang\") | [.tid, .indicator, .at]'"
    assert_output '[4000,"loop",2000300000]'
}

@test "SPIN-ANR: the normal run, whose call is answered in 20 ms, has no hang" {
    run argus diagnose $A/anr-binder-normal.txt
    assert_failure 1
    assert_line --index 0 "no hang found"
}

@test "argus diagnose names the ANR, the binder call and the server thread" {
    run argus diagnose $A/anr-binder.txt
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 1 "blocked 6.000 s in a binder call (transaction 73512), waiting over binder on"
    assert_line --index 2 "binder:1000_3/binder:1000_3 [1103], which was running 6.000 s on the CPU; the input at"
    assert_line --index 3 "100.000200 s started it. Culprit: binder:1000_3/binder:1000_3 [1103], the thread at the end of"
    assert_line "  Found by:  input not handled within 5 s: Android's ANR, at 105.000200 s"
    assert_line "    2. binder:1000_3/binder:1000_3 [1103], which sent 1 a binder reply (transaction 73519):"
}

@test "argus diagnose --baseline names the same ANR and culprit against it" {
    run argus diagnose --baseline $A/anr-binder-normal.txt $A/anr-binder.txt
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 3 "100.000200 s started it. Culprit: binder:1000_3/binder:1000_3 [1103], the thread at the end of"
    assert_line --index 5 "Baseline: compared with fixtures/android/anr-binder-normal.txt, a normal run."
}

# ---- The same scenarios as Perfetto protobuf traces ------------------------------

# json FILE: FILE decoded, as JSON lines without the header (its "stages"
# names the file) and without the ftrace records' text (the line as
# tracefs printed it, or as the Perfetto reader rendered it)
json() {
    set -o pipefail
    argus-decode "$1" | argus-to-json | sed 1d | jq -c 'del(.text)'
}

@test "DEC-BINDER, DEC-LOOPER in Perfetto: the ANR gives its atrace text's stream" {
    json $A/anr-binder.txt > "$T/text.jsonl"
    run --separate-stderr json $A/anr-binder.pb
    assert_success
    [ "$(wc -l < "$T/text.jsonl")" -eq 39 ]
    # the text writes binder:1000_3 before system_server's main thread
    # names the process (Limits in docs/inputs/android.md)
    assert_output "$(sed 's/{"type":"thread","tid":1103,"pid":1000,"proc":"binder:1000_3"/{"type":"thread","tid":1103,"pid":1000,"proc":"system_server"/' "$T/text.jsonl")"
    json $A/anr-binder.pb > "$T/perfetto.jsonl"
    run diff "$T/text.jsonl" "$T/perfetto.jsonl"
    assert_output '1c1
< {"type":"thread","tid":1103,"pid":1000,"proc":"binder:1000_3","name":"binder:1000_3"}
---
> {"type":"thread","tid":1103,"pid":1000,"proc":"system_server","name":"binder:1000_3"}'
}

@test "DEC-BINDER, DEC-LOOPER in Perfetto: without a process tree, the same streams" {
    for f in anr-binder anr-binder-normal; do
        sed -E 's/ \( *[0-9]+\) / (-----) /' $A/$f.txt > "$T/$f.txt"
        "$GEN" --no-tree < $A/$f.txt > "$T/$f.pb" 2> /dev/null
        json "$T/$f.txt" > "$T/$f.jsonl"
        run --separate-stderr json "$T/$f.pb"
        assert_success
        assert_output "$(cat "$T/$f.jsonl")"
    done
    # the ipc, runloop and ui records are all there
    run bash -c "jq -r .type '$T/anr-binder.jsonl' | sort | uniq -c | grep -E 'ipc|runloop|ui_event' | tr -s ' '"
    assert_output ' 4 ipc
 4 runloop_invoke
 4 runloop_phase
 1 ui_event'
}

@test "SPIN-ANR in Perfetto: diagnose gives the text's report word for word" {
    run argus diagnose $A/anr-binder.pb
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 1 "blocked 6.000 s in a binder call (transaction 73512), waiting over binder on"
    assert_line --index 2 "system_server/binder:1000_3 [1103], which was running 6.000 s on the CPU; the input at"
    assert_line --index 3 "100.000200 s started it. Culprit: system_server/binder:1000_3 [1103], the thread at the end of"
    assert_line "  Found by:  input not handled within 5 s: Android's ANR, at 105.000200 s"
    assert_line "    2. system_server/binder:1000_3 [1103], which sent 1 a binder reply (transaction 73519):"
    argus diagnose $A/anr-binder.txt | sed -E 's#binder:1000_3(/|\(1000\))#system_server\1#g' > "$T/text.report"
    assert_output "$(cat "$T/text.report")"
}

@test "SPIN-ANR in Perfetto: --baseline names the same ANR; the normal run none" {
    run argus diagnose --baseline $A/anr-binder-normal.pb $A/anr-binder.pb
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 3 "100.000200 s started it. Culprit: system_server/binder:1000_3 [1103], the thread at the end of"
    assert_line --index 5 "Baseline: compared with fixtures/android/anr-binder-normal.pb, a normal run."
    run argus diagnose $A/anr-binder-normal.pb
    assert_failure 1
    assert_line --index 0 "no hang found"
}

@test "SPIN-ANR in Perfetto: compact_sched and zlib packets give the same verdict" {
    "$GEN" --compact --zlib < $A/anr-binder.txt > "$T/c.pb" 2> /dev/null
    argus diagnose $A/anr-binder.pb | awk '/^Verdict/{v=1} v&&/^$/{v=0} v' > "$T/plain.verdict"
    [ "$(wc -l < "$T/plain.verdict")" -eq 6 ]
    run sh -c "argus diagnose '$T/c.pb' | awk '/^Verdict/{v=1} v&&/^\$/{v=0} v'"
    assert_success
    assert_output "$(cat "$T/plain.verdict")"
}

@test "DEC-BINDER in Perfetto: a one-way call is a send with oneway and its edge" {
    "$GEN" --no-tree < $A/binder-oneway.txt > "$T/oneway.pb" 2> /dev/null
    run bash -c "argus-decode '$T/oneway.pb' | argus-link-ipc | argus-to-json | jq -c 'select(.type == \"ipc\" or .type == \"edge\") | [.type, .dir, .oneway, has(\"reply_port\"), .kind]'"
    assert_output '["ipc","send",true,false,null]
["ipc","recv",null,false,null]
["edge",null,null,false,"ipc"]'
    run bash -c "argus-decode '$T/oneway.pb' | argus-to-json | jq -c 'select(.type == \"thread\" and .tid == 4000) | [.proc, .name]'"
    assert_output '["unknown",null]
["com.example.app","com.example.app"]'
}

@test "Perfetto's other binder events render as tracefs lines, kept as ftrace" {
    cat > "$T/other.txt" <<'EOF'
 com.example.app-4000 ( 4000) [000] ...1   100.000100: binder_command: cmd=0x40406300 BC_TRANSACTION
 com.example.app-4000 ( 4000) [000] ...1   100.000110: binder_lock: tag=binder_ioctl
 com.example.app-4000 ( 4000) [000] ...1   100.000120: binder_locked: tag=binder_ioctl
 com.example.app-4000 ( 4000) [000] ...1   100.000130: binder_transaction_alloc_buf: transaction=73512 data_size=96 offsets_size=8 extra_buffers_size=0
 com.example.app-4000 ( 4000) [000] ...1   100.000140: binder_set_priority: proc=1000 thread=1103 old=120 => new=110 desired=110
 com.example.app-4000 ( 4000) [000] ...1   100.000150: binder_unlock: tag=binder_ioctl
 com.example.app-4000 ( 4000) [000] ...1   100.000160: binder_return: cmd=0x7206 BR_TRANSACTION_COMPLETE
 com.example.app-4000 ( 4000) [000] d..2   100.000200: sched_switch: prev_comm=com.example.app prev_pid=4000 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
EOF
    "$GEN" < "$T/other.txt" > "$T/other.pb" 2> /dev/null
    run bash -c "argus-decode '$T/other.pb' | argus-to-json | jq -r 'select(.type == \"ftrace\") | .text | sub(\".*[0-9]: \"; \"\")'"
    assert_output "$(sed -n 's/.*[0-9]: \(binder_\)/\1/p' "$T/other.txt")"
    json "$T/other.txt" > "$T/other-text.jsonl"
    run json "$T/other.pb"
    assert_output "$(cat "$T/other-text.jsonl")"
    run --separate-stderr argus-decode -v "$T/other.pb"
    [[ "$stderr" == *"  7 binder events (transactions, receipts and the driver's others)"* ]]
}

@test "the Perfetto fixtures are what bench/gen-perfetto makes of the atrace text" {
    for f in anr-binder anr-binder-normal; do
        "$GEN" < $A/$f.txt > "$T/$f.pb" 2> /dev/null
        cmp "$T/$f.pb" $A/$f.pb
    done
}
