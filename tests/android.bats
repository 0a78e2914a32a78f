#!/usr/bin/env bats
# Android in ftrace text: binder transactions as ipc pairs (DEC-BINDER),
# a main thread's atrace slices as its Looper and deliverInputEvent as
# its input (DEC-LOOPER), and the input ANR (SPIN-ANR). The scenarios are
# hand-written in fixtures/android/ (described in its README.md) from the
# shapes of the kernel's binder tracepoints and atrace's marks.

bats_require_minimum_version 1.5.0
load test_helper

A=fixtures/android

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

@test "DEC-BINDER, DEC-LOOPER: a synchronous binder call and its reply, the Looper's messages and deliverInputEvent decode to the exact records" {
    fixture anr-binder-normal
}

@test "DEC-BINDER: a one-way call is a send with oneway and no reply port; its caller does not wait for it" {
    fixture binder-oneway
    run bash -c "argus-decode $A/binder-oneway.txt | argus-to-json | jq -c 'select(.type == \"ipc\" and .dir == \"send\") | [.oneway, has(\"reply_port\")]'"
    assert_output '[true,false]'
    run bash -c "argus-decode $A/binder-oneway.txt | argus-to-json | jq -r 'select(.type == \"wait\" and .tid == 4000) | .reason'"
    assert_output sleeping
}

@test "DEC-BINDER: the caller asleep during its synchronous call waits with reason binder on the call's reply port" {
    run bash -c "argus-decode $A/anr-binder.txt | argus-to-json | jq -c 'select(.type == \"wait\" and .tid == 4000 and (.synth | not)) | [.reason, .resource]'"
    assert_output '["binder","0xb1d1000000011f28"]
["sleeping",null]'
}

@test "IPC-MSG, IPC-REPLY on binder: call -> receipt, receipt -> reply (sent by the thread that received the call), reply -> the caller's receipt" {
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

@test "DEC-BINDER: a reply nested calls deep answers the call its own thread received last" {
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

@test "DEC-BINDER, DEC-LOOPER: without a (TGID) column, a thread's process comes from its marks' pid and from the send that reached it" {
    sed -E 's/ \( *[0-9]+\) / (-----) /' $A/anr-binder-normal.txt > "$T/notgid.txt"
    run bash -c "argus-decode $T/notgid.txt | argus-to-json | jq -c 'select(.type == \"thread\") | [.tid, .pid, .main // false]' | tail -3"
    assert_output '[1020,1000,false]
[4000,4000,true]
[1103,1000,false]'
}

@test "DEC-LOOPER: print's form of a mark (print: tracing_mark_write: B|...) decodes as tracing_mark_write's" {
    sed 's/tracing_mark_write: /print: tracing_mark_write: /' $A/anr-binder-normal.txt > "$T/print.txt"
    run bash -c "argus-decode $T/print.txt | argus-to-json | jq -c 'select(.type != \"stream\" and .type != \"ftrace\")'"
    assert_output "$(jq -c 'select(.type != "stream" and .type != "ftrace")' $A/anr-binder-normal.expected.jsonl)"
}

@test "DEC-LOOPER: nested slices, other threads' slices and counters stay ftrace events; -v counts the Android lines" {
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

@test "SPIN-ANR: input not handled within 5 s is the hang named anr, at the input + 5 s, its wait chain the binder thread that answered late" {
    run bash -c "argus graph $A/anr-binder.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"hang\") | [.tid, .indicator, .begin, .at, .class, .reason]'"
    assert_output '[4000,"anr",300000,5000300000,"wait","binder"]'
    run bash -c "argus graph $A/anr-binder.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"wait_chain\") | [.tids, .links, .states, .end]'"
    assert_output '[[4000,1103],["wakeup"],["blocked","running"],"running"]'
}

@test "SPIN-ANR: the same call answered after 4 s is a stretch of 2 s or more but no ANR: SPIN-LOOP's loop" {
    sed -E 's/ 106\.0/ 104.0/' $A/anr-binder.txt > "$T/four.txt"
    run bash -c "argus graph $T/four.txt | argus find-spinning | argus to-json | jq -c 'select(.type == \"hang\") | [.tid, .indicator, .at]'"
    assert_output '[4000,"loop",2000300000]'
}

@test "SPIN-ANR: the normal run, whose call is answered in 20 ms, has no hang" {
    run argus diagnose $A/anr-binder-normal.txt
    assert_failure 1
    assert_line --index 0 "no hang found"
}

@test "argus diagnose with no flag names the ANR, the binder call the main thread waited on and the server thread that held it" {
    run argus diagnose $A/anr-binder.txt
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 1 "blocked 6.000 s in a binder call (transaction 73512), waiting over binder on"
    assert_line --index 2 "binder:1000_3/binder:1000_3 [1103], which was running 6.000 s on the CPU; the input at"
    assert_line --index 3 "100.000200 s started it. Culprit: binder:1000_3/binder:1000_3 [1103], the thread at the end of"
    assert_line "  Found by:  input not handled within 5 s: Android's ANR (SPIN-ANR), at 105.000200 s"
    assert_line "    2. binder:1000_3/binder:1000_3 [1103], which sent 1 a binder reply (transaction 73519):"
}

@test "argus diagnose --baseline with the normal run names the same ANR and culprit against it" {
    run argus diagnose --baseline $A/anr-binder-normal.txt $A/anr-binder.txt
    assert_success
    assert_line --index 0 "Verdict: com.example.app/main [4000] did not handle its input within 5 s (Android's ANR): it was"
    assert_line --index 3 "100.000200 s started it. Culprit: binder:1000_3/binder:1000_3 [1103], the thread at the end of"
    assert_line --index 5 "Baseline: compared with fixtures/android/anr-binder-normal.txt, a normal run."
}
