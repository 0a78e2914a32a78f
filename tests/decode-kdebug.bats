#!/usr/bin/env bats
# argus-decode --format kdebug: macOS kdebug trace files. The
# files are written byte by byte from the layouts by tests/tools/mkkdebug;
# the real capture comes from ../shared/traces (tests skip when it is
# absent). Expected outputs were checked line by line against the mapping
# in docs/inputs/macos.md.

bats_require_minimum_version 1.5.0
load test_helper

ARGUS_TRACES="${ARGUS_TRACES:-$ARGUS_ROOT/../shared/traces}"
REAL="$ARGUS_TRACES/kdebug-v2-ios-coreprofile.bin"

need_real() {
    [ -f "$REAL" ] || skip "no real capture at $REAL (set ARGUS_TRACES)"
}

# mk MKKDEBUG-OPTIONS...: the trace described on stdin, as $T
mk() { mkkdebug -o "$T" "$@"; }
# json DECODE-OPTIONS...: $T decoded from stdin (so "stages" does not name
# a temporary file), as JSON lines
json() {
    set -o pipefail
    argus-decode "$@" < "$T" | argus-to-json
}

setup() {
    T="$BATS_TEST_TMPDIR/t.bin"
}

# Two processes on two CPUs: the trace of the format fixtures.
small_trace() {
    cat <<'EOF'
# V3 files hold each CPU's records in a chunk of their own, the chunks
# interleaving in time; the other versions hold the records in this order
# (and no chunks), and the reorder window merges them.
thread 0x65 1 kernel_task       # xnu writes pid 1 for kernel_task's threads
thread 0 0                      # a zero entry: padding
thread 0x2003 300 Safari
thread 0x2001 300 Safari        # the lowest tid of pid 300: its main thread
thread 0x2001 300 Safari        # the same thread twice: one record
thread 0x3001 310 mds
chunk 0x1b00 40                 # V3: a config chunk, skipped
rec 1000 0x040c0011 1 0x1000 64 0 0x2001 0     # BSC_write START: fd, buffer, size
rec 2000 0x040c0012 0 64 0 0 0x2001 0          # its END: 64 bytes written
rec 2600 0x31230004 7 8 9 10 0x2003 0          # a code the table does not know
chunk 0x8002 13                 # V3: a stackshot chunk (13 bytes, padded to 16)
rec 1500 0x01050001 0x21 0 0 0 0x3001 1        # INTERRUPT START, irq 0x21
rec 1800 0x01050002 0 0 0 0 0x3001 1           # INTERRUPT END
rec 3000 0x0140007d 0 0 0 0 0x65 1             # MACH_SCHED_MAINTENANCE START
chunk 0x2000 0                  # V3: a null chunk
EOF
}

# ---- The real RAW_VERSION2 capture (point 5) ------------------------

@test "real V2 capture: 1606 thread-map threads and 15,552 records read" {
    need_real
    run sh -c "argus-decode -v '$REAL' 2>&1 >/dev/null"
    assert_success
    assert_line --index 0 "argus-decode: 15552 records read, 15049 events written"
    assert_line --index 1 "  1606 threads in the thread map"
}

@test "real V2 capture: a pinned count per event type, and the stream is valid" {
    need_real
    argus-decode "$REAL" > "$BATS_TEST_TMPDIR/real.cbor"
    run sh -c "argus-to-json '$BATS_TEST_TMPDIR/real.cbor' | jq -r .type | sort | uniq -c"
    assert_success
    assert_output - <<'EOF'
    529 interrupt
  12353 kdebug
      1 stream
   1370 syscall
   1613 thread
     62 voucher_set
    245 wait
    268 wakeup
    222 woken
EOF
    run argus-validate "$BATS_TEST_TMPDIR/real.cbor"
    assert_success
    assert_output "$BATS_TEST_TMPDIR/real.cbor: valid: 16663 records, 15049 events, 1613 threads, 0 edges, 0 segments, ts 0..30283333 (0.030283333 s)"
}

@test "real V2 capture: thread records follow the thread map, in its order" {
    need_real
    run sh -c "argus-decode '$REAL' | argus-to-json | sed -n '2,1607p'"
    assert_success
    decoded=$output
    run python3 - "$REAL" <<'EOF'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
count = struct.unpack_from("<i", data, 4)[0]
entries, seen = [], set()
for i in range(count):
    tid, pid, command = struct.unpack_from("<Qi20s", data, 0x120 + 32 * i)
    command = command.split(b"\0")[0].decode()
    if tid == 0 or tid in seen:
        continue
    seen.add(tid)
    kernel = pid == 0 or command == "kernel_task"
    entries.append((tid, 0 if kernel else pid, command, kernel))
assert len(entries) == 1606
lowest = {}
for tid, pid, command, kernel in entries:
    if not kernel:
        lowest[pid] = min(tid, lowest.get(pid, tid))
for tid, pid, command, kernel in entries:
    t = {"type": "thread", "tid": tid, "pid": pid, "proc": command}
    if not kernel and lowest[pid] == tid:
        t["main"] = True
    if kernel:
        t["kernel"] = True
    print(json.dumps(t, separators=(",", ":"), ensure_ascii=False))
EOF
    assert_success
    assert_output "$decoded"
}

@test "real V2 capture: mapped event counts equal their debugids' raw counts" {
    need_real
    run sh -c "argus-decode '$REAL' | argus-to-json | jq -r 'select(.type != \"thread\" and .type != \"stream\") | .type' | sort | uniq -c | grep -E ' (interrupt|syscall|voucher_set|wait|wakeup)\$'"
    assert_success
    decoded=$output
    run python3 - "$REAL" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
count = struct.unpack_from("<i", data, 4)[0]
start = (0x120 + 32 * count + 4095) // 4096 * 4096
n = dict.fromkeys(["interrupt", "syscall", "voucher_set", "wait", "wakeup"], 0)
for off in range(start, len(data), 64):
    code = struct.unpack_from("<I", data, off + 48)[0] & ~3
    if code == 0x01050000: n["interrupt"] += 1
    elif 0x040c0000 <= code <= 0x040cfffc or 0x010c0000 <= code <= 0x010c1ffc: n["syscall"] += 1
    elif code == 0x01200008: n["voucher_set"] += 1
    elif code == 0x01400040: n["wait"] += 1
    elif code == 0x01400018: n["wakeup"] += 1
for k in sorted(n):
    print("%7d %s" % (n[k], k))
EOF
    assert_success
    assert_output "$decoded"
}

@test "real V2 capture: first record, MKRUNNABLE and INTERRUPT match the raw bytes" {
    need_real
    run sh -c "argus-decode '$REAL' | argus-to-json > '$BATS_TEST_TMPDIR/real.jsonl'"
    assert_success
    run sh -c "cd '$BATS_TEST_TMPDIR' && { grep -m1 '\"id\":1,' real.jsonl; grep -m1 '\"type\":\"wakeup\"' real.jsonl; grep -m1 '\"phase\":\"begin\",\"irq\"' real.jsonl; } | sed 's/\"id\":[0-9]*,//'"
    assert_success
    decoded=$output
    # the same three events computed from the file: header, thread map, records
    run python3 - "$REAL" <<'EOF'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
magic, count, secs, usecs, flags, hz = struct.unpack_from("<IiQIIQ", data, 0)
assert (magic, flags & 1, hz) == (0x55aa0200, 1, 24000000)
pids = {}
for i in range(count):
    tid, pid, command = struct.unpack_from("<Qi20s", data, 0x120 + 32 * i)
    kernel = pid == 0 or command.split(b"\0")[0] == b"kernel_task"
    pids.setdefault(tid, 0 if kernel else pid)
start = (0x120 + 32 * count + 4095) // 4096 * 4096
recs = [struct.unpack_from("<QQQQQQII", data, off) for off in range(start, len(data), 64)]
recs.sort(key=lambda r: r[0])  # stable: file order among equal timestamps
first = recs[0][0]
def event(kind, r, **fields):
    ts, a1, a2, a3, a4, tid, debugid, cpu = r
    e = {"type": kind, "ts": (ts - first) * 125 // 3, "tid": tid, "pid": pids[tid], "cpu": cpu}
    e.update(fields)
    print(json.dumps(e, separators=(",", ":")))
r = recs[0]
event("kdebug", r, debugid=r[6], args=list(r[1:5]))
r = next(r for r in recs if r[6] & ~3 == 0x01400018)
event("wakeup", r, target=r[1], result=["awakened", "timed_out", "interrupted", "restart"][r[3]])
r = next(r for r in recs if r[6] == 0x01050001)
event("interrupt", r, phase="begin", irq=r[1])
EOF
    assert_success
    assert_output "$decoded"
}

# ---- Formats (points 1 and 5) ---------------------------------------

@test "RAW_VERSION0 (--kdebug-v0): thread map, records right after it; ticks are ns" {
    small_trace | mk --raw-version 0
    run json --kdebug-v0
    assert_success
    assert_output "$(cat fixtures/kdebug/v0.expected.jsonl)"
}

@test "RAW_VERSION1, 64-bit records (guessed), no CPU map, no wall time" {
    small_trace | mk --raw-version 1
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v1.expected.jsonl)"
}

@test "RAW_VERSION1 with a CPU map behind zero thread entries; t0 from the TOD" {
    small_trace | mk --raw-version 1 --cpus 4 --zero-threads 3 --wall 1700000000.250000
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v1-cpumap.expected.jsonl)"
}

@test "RAW_VERSION1, 32-bit records (guessed): cpu from the timestamp's top byte" {
    small_trace | mk --raw-version 1 --record-size 32
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v1-32bit.expected.jsonl)"
}

@test "RAW_VERSION1: a file of one record is read as 32-bit records" {
    mk --raw-version 1 --record-size 32 <<'EOF'
thread 0x2001 300 Safari
rec 1000 0x040c0011 1 0x1000 64 0 0x2001 3
EOF
    run json --format kdebug
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":8193,"pid":300,"proc":"Safari","main":true}
{"type":"syscall","id":1,"ts":0,"tid":8193,"pid":300,"cpu":3,"name":"write","phase":"begin","args":[1,4096,64,0]}'
}

@test "RAW_VERSION2, 32-bit records, 24 MHz timebase: ts from ticks, t0 from TOD" {
    small_trace | mk --raw-version 2 --record-size 32 --hz 24000000 --wall 1700000000.250000
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v2-32bit.expected.jsonl)"
}

@test "RAW_VERSION3 kernel-written: per-CPU chunks merged in ts order" {
    small_trace | mk --raw-version 3 --cpus 2 --timebase 125/3 --wall 1700000000.250000 --start 600
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v3-kernel.expected.jsonl)"
}

@test "RAW_VERSION3 from libktrace: the same, wall time after the first record" {
    small_trace | mk --raw-version 3 --v3-magic lib --timebase 125/3 --wall 1700000000.250000 --start 1600
    run json --format kdebug
    assert_success
    assert_output "$(cat fixtures/kdebug/v3-libktrace.expected.jsonl)"
}

@test "32-bit strings: 4 characters an argument, START and END records joined" {
    mk --raw-version 1 --record-size 32 <<'EOF'
thread 0x2001 300 TextEdit
thread 0x2002 300 TextEdit
rec 1000 0x07010011 s:com. s:appl s:e.NS s:Even 0x2002 1   # TRACE_STRING_THREADNAME START
rec 1100 0x07010012 s:tThr s:ead 0 0 0x2002 1              # its END
rec 1200 0x040c0019 5 0 0 0 0x2002 1                       # BSC_close START
EOF
    run json --format kdebug
    assert_success
    assert_output '{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":8193,"pid":300,"proc":"TextEdit","main":true}
{"type":"thread","tid":8194,"pid":300,"proc":"TextEdit"}
{"type":"thread","tid":8194,"pid":300,"proc":"TextEdit","name":"com.apple.NSEventThread"}
{"type":"syscall","id":1,"ts":200,"tid":8194,"pid":300,"cpu":1,"name":"close","phase":"begin","args":[5,0,0,0]}'
}

# ---- Mapping (point 2) ----------------------------------------------

@test "DEC-WOKEN: syscall, MACH_WAIT, MACH_BLOCK, MKRUNNABLE and the switch back in" {
    mk <<'EOF'
thread 0x101 0 kernel_task
thread 0x200 50 launchd
thread 0x301 80 TextEdit
thread 0x300 80 TextEdit
rec 1000 0x040c000d 3 0x7000 4096 0 0x301 1   # BSC_read START
rec 1100 0x01400040 0xabc0 0 0 0 0x301 1      # MACH_WAIT on 0xabc0
rec 1200 0x0140003c 0 0 0 0 0x301 1           # MACH_BLOCK: nothing
rec 1300 0x01400000 0 0x200 0 0 0x301 1       # MACH_SCHED: TextEdit out, launchd in (not waiting)
rec 2000 0x01400018 0x301 0 1 0 0x200 1       # launchd: MACH_MKRUNNABLE TextEdit, timed out
rec 2500 0x01400000 0 0x301 0 0 0x200 1       # MACH_SCHED: TextEdit in: its woken
rec 2600 0x040c000e 0 512 0 0 0x301 1         # BSC_read END: 512 bytes
EOF
    run json --format kdebug
    assert_success
    assert_output - <<'EOF'
{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":257,"pid":0,"proc":"kernel_task","kernel":true}
{"type":"thread","tid":512,"pid":50,"proc":"launchd","main":true}
{"type":"thread","tid":769,"pid":80,"proc":"TextEdit"}
{"type":"thread","tid":768,"pid":80,"proc":"TextEdit","main":true}
{"type":"syscall","id":1,"ts":0,"tid":769,"pid":80,"cpu":1,"name":"read","phase":"begin","args":[3,28672,4096,0]}
{"type":"wait","id":2,"ts":100,"tid":769,"pid":80,"cpu":1,"resource":"0xabc0","reason":"read"}
{"type":"wakeup","id":3,"ts":1000,"tid":512,"pid":50,"cpu":1,"target":769,"result":"timed_out"}
{"type":"woken","id":4,"ts":1500,"tid":769,"pid":80,"cpu":1,"result":"timed_out"}
{"type":"syscall","id":5,"ts":1600,"tid":769,"pid":80,"cpu":1,"name":"read","phase":"end","ret":512}
EOF
}

@test "DEC-WOKEN: without a switch-in, the thread's next record gets a synthetic woken" {
    mk <<'EOF'
thread 0x10 0 kernel_task
thread 0x2001 300 Safari
thread 0x2002 300 Safari
rec 1000 0x010c0091 0x903 0 0 0 0x2002 0      # MSC_semaphore_wait_trap START
rec 1100 0x01400040 0x5000 0 0 0 0x2002 0     # MACH_WAIT
rec 1150 0x0109001d 0x7100 0 9000 0 0x2002 0  # TMR_TimerCallEnter START: its timeout, armed on the way to block
rec 1200 0x01050001 0x15 0 0 0 0x2002 0       # INTERRUPT START on the thread still on its cpu
rec 1300 0x01050002 0 0 0 0 0x2002 0          # INTERRUPT END
rec 1400 0x01400018 0x2002 0 0 0 0x2001 1     # MACH_MKRUNNABLE 0x2002: awakened
rec 1500 0x010c0092 0 0 0 0 0x2002 0          # the trap's END: the thread runs its own code
rec 1600 0x01400040 0x5008 0 0 0 0x10 1       # a kernel thread waits outside any syscall: no reason
rec 1700 0x0140007d 0 0 0 0 0x10 1            # MACH_SCHED_MAINTENANCE START on it
rec 1800 0x04b00000 1 2 3 4 0x10 1            # a code the table does not know
rec 2000 0x01200008 0 0 0x9900 0 0x10 1       # MACH_thread_set_voucher: its own code, no wakeup: no result
EOF
    run json --format kdebug
    assert_success
    assert_output - <<'EOF'
{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":16,"pid":0,"proc":"kernel_task","kernel":true}
{"type":"thread","tid":8193,"pid":300,"proc":"Safari","main":true}
{"type":"thread","tid":8194,"pid":300,"proc":"Safari"}
{"type":"syscall","id":1,"ts":0,"tid":8194,"pid":300,"cpu":0,"name":"semaphore_wait_trap","phase":"begin","args":[2307,0,0,0]}
{"type":"wait","id":2,"ts":100,"tid":8194,"pid":300,"cpu":0,"resource":"0x5000","reason":"semaphore_wait_trap"}
{"type":"timer_arm","id":3,"ts":150,"tid":8194,"pid":300,"cpu":0,"timer":"0x7100","deadline":8000}
{"type":"interrupt","id":4,"ts":200,"tid":8194,"pid":300,"cpu":0,"phase":"begin","irq":21}
{"type":"interrupt","id":5,"ts":300,"tid":8194,"pid":300,"cpu":0,"phase":"end"}
{"type":"wakeup","id":6,"ts":400,"tid":8193,"pid":300,"cpu":1,"target":8194,"result":"awakened"}
{"type":"woken","id":7,"ts":500,"tid":8194,"pid":300,"cpu":0,"result":"awakened","synth":true}
{"type":"syscall","id":8,"ts":500,"tid":8194,"pid":300,"cpu":0,"name":"semaphore_wait_trap","phase":"end","ret":0}
{"type":"wait","id":9,"ts":600,"tid":16,"pid":0,"cpu":1,"resource":"0x5008"}
{"type":"sched_maintenance","id":10,"ts":700,"tid":16,"pid":0,"cpu":1,"phase":"begin"}
{"type":"kdebug","id":11,"ts":800,"tid":16,"pid":0,"cpu":1,"debugid":78643200,"args":[1,2,3,4]}
{"type":"woken","id":12,"ts":1000,"tid":16,"pid":0,"cpu":1,"synth":true}
{"type":"voucher_set","id":13,"ts":1000,"tid":16,"pid":0,"cpu":1,"voucher":"0x9900"}
EOF
    run sh -c "argus-decode --format kdebug -v < '$T' 2>&1 >/dev/null | grep woken"
    assert_output '  0 woken events at a context switch
  2 woken events made before a thread'"'"'s next record (DEC-WOKEN, synth)'
}

@test "kmsg_info names the peer of the next send or recv; msg_id and vouchers kept" {
    mk <<'EOF'
thread 0x2001 300 TextEdit
thread 0x3001 400 fontd
rec 1000 0x0120002a 300 400 0x3e800000040 0 0x2001 0   # MACH_IPC_kmsg_info END: sender 300, dest 400
rec 1100 0x0120000c 0xff01 0x1513 1000 0xee00 0x2001 0 # MACH_IPC_msg_send: kmsg, bits, msgh_id, voucher
rec 1200 0x0120000c 0xff02 0x1513 1001 0 0x2001 0      # a send with no kmsg_info before it, no voucher
rec 1300 0x0120002a 300 400 0 0 0x3001 1               # kmsg_info END on the receiver
rec 1400 0x01200010 0xff01 0x1513 1000 0xee00 0x3001 1 # MACH_IPC_msg_recv
rec 1500 0x01200018 0xff01 0 0 0 0x3001 1              # MACH_IPC_kmsg_free
rec 1600 0x01200008 0 0 0xee00 0 0x3001 1              # MACH_thread_set_voucher: voucher in arg3
rec 1700 0x01200029 1 2 3 4 0x3001 1                   # kmsg_info START: nothing
EOF
    run json --format kdebug
    assert_success
    assert_output - <<'EOF'
{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":8193,"pid":300,"proc":"TextEdit","main":true}
{"type":"thread","tid":12289,"pid":400,"proc":"fontd","main":true}
{"type":"ipc","id":1,"ts":100,"tid":8193,"pid":300,"cpu":0,"dir":"send","msg":"0xff01","msg_id":1000,"voucher":"0xee00","peer":400,"via":"mach"}
{"type":"ipc","id":2,"ts":200,"tid":8193,"pid":300,"cpu":0,"dir":"send","msg":"0xff02","msg_id":1001,"via":"mach"}
{"type":"ipc","id":3,"ts":400,"tid":12289,"pid":400,"cpu":1,"dir":"recv","msg":"0xff01","msg_id":1000,"voucher":"0xee00","peer":300,"via":"mach"}
{"type":"ipc_free","id":4,"ts":500,"tid":12289,"pid":400,"cpu":1,"msg":"0xff01"}
{"type":"voucher_set","id":5,"ts":600,"tid":12289,"pid":400,"cpu":1,"voucher":"0xee00"}
EOF
}

@test "TimerCallEnter, TimerCallCancel and TimerCallIntr are timer arm, cancel, fire" {
    mk <<'EOF'
thread 0x2001 300 TextEdit
thread 0x11 0 kernel_task
rec 1000 0x0109001d 0x7100 0x4444 6000 0 0x2001 0   # TMR_TimerCallEnter START: call, func, deadline
rec 1010 0x0109001e 0x7100 0 0 0 0x2001 0           # its END
rec 2000 0x01090021 0x7100 0 0 0 0x2001 0           # TMR_TimerCallCancel START
rec 2010 0x01090022 0x7100 0 0 0 0x2001 0           # its END
rec 3000 0x0109001d 0x7200 0x4444 8000 0 0x2001 0
rec 8000 0x01090009 0x7200 0x4444 0 0 0x11 1        # TMR_TimerCallIntr START: call, func
rec 8100 0x0109000a 0x7200 0 0 0 0x11 1             # its END
EOF
    run json --format kdebug
    assert_success
    assert_output - <<'EOF'
{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":8193,"pid":300,"proc":"TextEdit","main":true}
{"type":"thread","tid":17,"pid":0,"proc":"kernel_task","kernel":true}
{"type":"timer_arm","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"timer":"0x7100","deadline":5000}
{"type":"timer_cancel","id":2,"ts":1000,"tid":8193,"pid":300,"cpu":0,"timer":"0x7100"}
{"type":"timer_arm","id":3,"ts":2000,"tid":8193,"pid":300,"cpu":0,"timer":"0x7200","deadline":7000}
{"type":"timer_fire","id":4,"ts":7000,"tid":17,"pid":0,"cpu":1,"phase":"begin","timer":"0x7200","func":17476}
{"type":"timer_fire","id":5,"ts":7100,"tid":17,"pid":0,"cpu":1,"phase":"end","timer":"0x7200"}
EOF
}

@test "thread names over START and END, new threads, exec, a thread no record names" {
    mk <<'EOF'
thread 0x200 1 launchd
thread 0x2001 300 Safari
thread 0x2003 300 Safari
thread 0x3001 310 bash
# 0x2003 names itself, 38 characters: a START record, then an END record
rec 1000 0x07010011 s:com.appl s:e.NSURLC s:onnectio s:nLoader. 0x2003 0
rec 1050 0x040c0019 5 0 0 0 0x2001 1                 # Safari's main thread in between: BSC_close START
rec 1100 0x07010012 s:worker 0 0 0 0x2003 0
# Safari's main thread creates thread 0x2009 in its own process
rec 1200 0x07000004 0x2009 300 0 0 0x2001 1          # TRACE_DATA_NEWTHREAD: tid, pid
rec 1210 0x07010004 s:Safari 0 0 0 0x2001 1          # TRACE_STRING_NEWTHREAD: the process name
rec 1300 0x040c001a 0 0 0 0 0x2001 1                 # BSC_close END
rec 1400 0x040c0019 6 0 0 0 0x2009 2                 # the new thread's first event
# launchd spawns pid 400, whose thread execs mdworker_shared
rec 1500 0x07000004 0x4001 400 0 0 0x200 3
rec 1510 0x07010004 s:xpcproxy 0 0 0 0x200 3
rec 1600 0x07000008 400 0 0 0 0x4001 3               # TRACE_DATA_EXEC: pid
rec 1610 0x07010008 s:mdworker s:_shared 0 0 0x4001 3   # TRACE_STRING_EXEC
rec 1700 0x040c0019 7 0 0 0 0x4001 3
# bash, announced from the map, execs ls: its record again
rec 1800 0x07000008 310 0 0 0 0x3001 0
rec 1810 0x07010008 s:ls 0 0 0 0x3001 0
rec 1900 0x040c0019 8 0 0 0 0x3001 0
# a thread neither the map nor a new-thread record names
rec 2000 0x040c0019 9 0 0 0 0x5555 1
EOF
    run json --format kdebug
    assert_success
    assert_output - <<'EOF'
{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","stages":["decode --format kdebug"]}
{"type":"thread","tid":512,"pid":1,"proc":"launchd","main":true}
{"type":"thread","tid":8193,"pid":300,"proc":"Safari","main":true}
{"type":"thread","tid":8195,"pid":300,"proc":"Safari"}
{"type":"thread","tid":12289,"pid":310,"proc":"bash","main":true}
{"type":"syscall","id":1,"ts":50,"tid":8193,"pid":300,"cpu":1,"name":"close","phase":"begin","args":[5,0,0,0]}
{"type":"thread","tid":8195,"pid":300,"proc":"Safari","name":"com.apple.NSURLConnectionLoader.worker"}
{"type":"syscall","id":2,"ts":300,"tid":8193,"pid":300,"cpu":1,"name":"close","phase":"end","ret":0}
{"type":"thread","tid":8201,"pid":300,"proc":"Safari"}
{"type":"syscall","id":3,"ts":400,"tid":8201,"pid":300,"cpu":2,"name":"close","phase":"begin","args":[6,0,0,0]}
{"type":"thread","tid":16385,"pid":400,"proc":"mdworker_shared","main":true}
{"type":"syscall","id":4,"ts":700,"tid":16385,"pid":400,"cpu":3,"name":"close","phase":"begin","args":[7,0,0,0]}
{"type":"thread","tid":12289,"pid":310,"proc":"ls","main":true}
{"type":"syscall","id":5,"ts":900,"tid":12289,"pid":310,"cpu":0,"name":"close","phase":"begin","args":[8,0,0,0]}
{"type":"thread","tid":21845,"pid":0,"proc":"unknown"}
{"type":"syscall","id":6,"ts":1000,"tid":21845,"pid":0,"cpu":1,"name":"close","phase":"begin","args":[9,0,0,0]}
EOF
    run sh -c "argus-decode --format kdebug -v < '$T' 2>&1 >/dev/null | grep -E 'not in the thread map|strings'"
    assert_output '  1 threads not in the thread map (pid 0, proc "unknown" unless a new-thread record named them)
  5 strings reassembled (thread and process names)'
}

@test "a lost_events event stays in the stream and warns naming the byte" {
    mk <<'EOF'
thread 0x2001 300 Safari
rec 1000 0x040c0019 5 0 0 0 0x2001 0
rec 1100 0x07020008 0x1234 0 0 0 0x2001 0   # TRACE_LOST_EVENTS: the second record, byte 4096 + 64
EOF
    run sh -c "argus-decode --format kdebug '$T' 2> '$BATS_TEST_TMPDIR/err' | argus-to-json | tail -1"
    assert_success
    assert_output '{"type":"lost_events","id":2,"ts":100,"tid":8193,"pid":300,"cpu":0,"args":[4660,0,0,0]}'
    run cat "$BATS_TEST_TMPDIR/err"
    assert_output "argus-decode: $T: byte 4160: events were lost here (TRACE_LOST_EVENTS); the graph has a gap"
}

@test "an unknown code is a kdebug event with its full debugid and 64-bit args" {
    mk <<'EOF'
thread 0x2001 300 Safari
rec 1000 0x31230007 0xffffffffffffffff 0x8000000000000000 0 1 0x2001 5
EOF
    run json --format kdebug
    assert_success
    assert_line --index 2 '{"type":"kdebug","id":1,"ts":0,"tid":8193,"pid":300,"cpu":5,"debugid":824377351,"args":[18446744073709551615,9223372036854775808,0,1]}'
}

@test "libdispatch push, pop and done are dispatch enqueue and invoke begin/end" {
    mk <<'EOF'
thread 0x2001 300 Mail
thread 0x2005 300 Mail
rec 1000 0x2e050014 0x51000 0x61000 0xc00000000 0 0x2001 0   # push (eb): item, block, queue 12 << 32
rec 1010 0x2e050018 0x52000 0x62000 0xc00000000 0 0x2001 0   # push (ab)
rec 1020 0x2e05001c 0x53000 0x63000 0xc00000000 0 0x2001 0   # push (f)
rec 2000 0x2e050024 0x51000 0 12 0 0x2005 1                  # pop: item, queue 12
rec 2500 0x2e05002c 0x51000 0 0 0 0x2005 1                   # item done
EOF
    run sh -c "argus-decode --format kdebug < '$T' | argus-to-json | tail -n +4"
    assert_success
    assert_output - <<'EOF'
{"type":"dispatch_enqueue","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"item":"0x51000","queue":"0xc","func":397312}
{"type":"dispatch_enqueue","id":2,"ts":10,"tid":8193,"pid":300,"cpu":0,"item":"0x52000","queue":"0xc","func":401408}
{"type":"dispatch_enqueue","id":3,"ts":20,"tid":8193,"pid":300,"cpu":0,"item":"0x53000","queue":"0xc","func":405504}
{"type":"dispatch_invoke","id":4,"ts":1000,"tid":8197,"pid":300,"cpu":1,"phase":"begin","item":"0x51000","queue":"0xc"}
{"type":"dispatch_invoke","id":5,"ts":1500,"tid":8197,"pid":300,"cpu":1,"phase":"end","item":"0x51000"}
EOF
}

# The records of the --codes tests.
codes_trace() {
    mk <<'EOF'
thread 0x2001 300 MyApp
rec 1000 0x2a010004 10 0 0 0 0x2001 0        # MyApp_event, NSEvent type 10
rec 1100 0x2a01000a 1 2 3 4 0x2001 0         # MyApp_work, an END record
rec 1200 0x2a01000c 5 6 7 8 0x2001 0         # MyApp_marker
rec 1300 0x0140003c 1 2 3 4 0x2001 0         # MACH_BLOCK
rec 1400 0x040c0961 1 2 3 4 0x2001 0         # BSD syscall 600 START
rec 1450 0x01400040 0x77 0 0 0 0x2001 0      # MACH_WAIT inside it
rec 1500 0x040c0962 35 0 0 0 0x2001 0        # its END: errno 35
rec 1600 0x010c01f5 1 2 3 4 0x2001 0         # Mach trap 125 START
rec 1700 0x010c01f6 0xfffffffffffffffe 0 0 0 0x2001 0   # its END: kern_return_t -2
EOF
}

@test "--codes: types, begin kinds, names and overrides come from the codes file" {
    codes_trace
    run sh -c "argus-decode --format kdebug --codes fixtures/kdebug/myapp.codes < '$T' | argus-to-json | tail -n +3"
    assert_success
    assert_output - <<'EOF'
{"type":"ui_event","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"kind":"keyDown"}
{"type":"work","id":2,"ts":100,"tid":8193,"pid":300,"cpu":0,"phase":"begin","args":[1,2,3,4]}
{"type":"kdebug","id":3,"ts":200,"tid":8193,"pid":300,"cpu":0,"debugid":704708620,"name":"MyApp_marker","args":[5,6,7,8]}
{"type":"kdebug","id":4,"ts":300,"tid":8193,"pid":300,"cpu":0,"debugid":20971580,"name":"MACH_BLOCK","args":[1,2,3,4]}
{"type":"syscall","id":5,"ts":400,"tid":8193,"pid":300,"cpu":0,"name":"fancy_call","phase":"begin","args":[1,2,3,4]}
{"type":"wait","id":6,"ts":450,"tid":8193,"pid":300,"cpu":0,"resource":"0x77","reason":"fancy_call"}
{"type":"woken","id":7,"ts":500,"tid":8193,"pid":300,"cpu":0,"synth":true}
{"type":"syscall","id":8,"ts":500,"tid":8193,"pid":300,"cpu":0,"name":"fancy_call","phase":"end","ret":-35}
{"type":"syscall","id":9,"ts":600,"tid":8193,"pid":300,"cpu":0,"name":"fancy_trap","phase":"begin","args":[1,2,3,4]}
{"type":"syscall","id":10,"ts":700,"tid":8193,"pid":300,"cpu":0,"name":"fancy_trap","phase":"end","ret":-2}
EOF
}

@test "without --codes: kdebug events, MACH_BLOCK ignored, syscalls bsd_N and mach_N" {
    codes_trace
    run sh -c "argus-decode --format kdebug < '$T' | argus-to-json | tail -n +3"
    assert_success
    assert_output - <<'EOF'
{"type":"kdebug","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"debugid":704708612,"args":[10,0,0,0]}
{"type":"kdebug","id":2,"ts":100,"tid":8193,"pid":300,"cpu":0,"debugid":704708618,"args":[1,2,3,4]}
{"type":"kdebug","id":3,"ts":200,"tid":8193,"pid":300,"cpu":0,"debugid":704708620,"args":[5,6,7,8]}
{"type":"syscall","id":4,"ts":400,"tid":8193,"pid":300,"cpu":0,"name":"bsd_600","phase":"begin","args":[1,2,3,4]}
{"type":"wait","id":5,"ts":450,"tid":8193,"pid":300,"cpu":0,"resource":"0x77","reason":"bsd_600"}
{"type":"woken","id":6,"ts":500,"tid":8193,"pid":300,"cpu":0,"synth":true}
{"type":"syscall","id":7,"ts":500,"tid":8193,"pid":300,"cpu":0,"name":"bsd_600","phase":"end","ret":-35}
{"type":"syscall","id":8,"ts":600,"tid":8193,"pid":300,"cpu":0,"name":"mach_125","phase":"begin","args":[1,2,3,4]}
{"type":"syscall","id":9,"ts":700,"tid":8193,"pid":300,"cpu":0,"name":"mach_125","phase":"end","ret":-2}
EOF
}

@test "--codes: a '#' comment after a line of two columns (debugid, name) is a comment" {
    codes_trace
    printf '0x2a01000c\tMyApp_marker\t# a name only\n' > "$BATS_TEST_TMPDIR/c.codes"
    run sh -c "argus-decode --format kdebug --codes '$BATS_TEST_TMPDIR/c.codes' < '$T' | argus-to-json | grep MyApp_marker"
    assert_success
    assert_output '{"type":"kdebug","id":3,"ts":200,"tid":8193,"pid":300,"cpu":0,"debugid":704708620,"name":"MyApp_marker","args":[5,6,7,8]}'
}

@test "--codes: a bad line exits 65 naming FILE:LINE" {
    codes_trace
    printf '# comment\n0x2a010004 MyApp_event ui_event:later\n' > "$BATS_TEST_TMPDIR/bad.codes"
    run sh -c "argus-decode --format kdebug --codes '$BATS_TEST_TMPDIR/bad.codes' '$T' > '$BATS_TEST_TMPDIR/out.cbor'"
    assert_failure 65
    assert_output "argus-decode: $BATS_TEST_TMPDIR/bad.codes:2: a phase is :begin, :end or :none"
    [ ! -s "$BATS_TEST_TMPDIR/out.cbor" ]
}

@test "--codes: a missing file exits 66" {
    codes_trace
    run argus-decode --format kdebug --codes /nonexistent/my.codes "$T"
    assert_failure 66
    assert_output "argus-decode: /nonexistent/my.codes: No such file or directory"
}

# ---- Order (point 3; DEC-ORDER) --------------------------------------

# Four records, the last one earlier than all (byte 4096 + 3 * 64 = 4288).
late_trace() {
    mk <<'EOF'
thread 0x2001 300 Safari
rec 10 0x31230004 1 0 0 0 0x2001 0
rec 30 0x31230004 3 0 0 0 0x2001 0
rec 20 0x31230004 2 0 0 0 0x2001 0
rec 5 0x31230004 4 0 0 0 0x2001 0
EOF
}

@test "DEC-ORDER: records out of order within the window are merged into ts order" {
    late_trace
    run sh -c "argus-decode --format kdebug < '$T' | argus-to-json | tail -n +3"
    assert_success
    assert_output - <<'EOF'
{"type":"kdebug","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"debugid":824377348,"args":[4,0,0,0]}
{"type":"kdebug","id":2,"ts":5,"tid":8193,"pid":300,"cpu":0,"debugid":824377348,"args":[1,0,0,0]}
{"type":"kdebug","id":3,"ts":15,"tid":8193,"pid":300,"cpu":0,"debugid":824377348,"args":[2,0,0,0]}
{"type":"kdebug","id":4,"ts":25,"tid":8193,"pid":300,"cpu":0,"debugid":824377348,"args":[3,0,0,0]}
EOF
    run sh -c "argus-decode --format kdebug -v < '$T' 2>&1 >/dev/null | tail -1"
    assert_output "  2 records moved into ts order by the reorder window"
}

@test "DEC-ORDER: a record later than --window 2 allows exits 65 naming its byte" {
    late_trace
    run sh -c "argus-decode --format kdebug --window 2 '$T' > /dev/null"
    assert_failure 65
    assert_output "argus-decode: $T: byte 4288: ts 5 is before ts 10 already written (beyond the reorder window of 2 records; try a larger --window)"
}

@test "DEC-ORDER: the records before a record too late for the window stay, valid" {
    late_trace
    run sh -c "argus-decode --format kdebug --window 2 '$T' > '$BATS_TEST_TMPDIR/out.cbor'"
    assert_failure 65
    run argus-validate "$BATS_TEST_TMPDIR/out.cbor"
    assert_success
    assert_output "$BATS_TEST_TMPDIR/out.cbor: valid: 5 records, 3 events, 1 threads, 0 edges, 0 segments, ts 0..20 (0.000000020 s)"
}

# ---- Bad input (point 5): exit 65, the byte offset, nothing invalid --

# bad_file MKKDEBUG-OPTIONS... -- DECODE-OPTIONS...: decodes a bad file of
# three records; OUT is what decode wrote.
bad_file() {
    local mkopts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do mkopts+=("$1"); shift; done
    shift
    mk "${mkopts[@]}" <<'EOF'
thread 0x2001 300 Safari
thread 0x2002 300 Safari
events
rec 1000 0x040c0011 1 2 3 0 0x2001 0
rec 2000 0x040c0012 0 3 0 0 0x2001 0
events
rec 3000 0x040c0011 1 2 3 0 0x2002 1
EOF
    OUT="$BATS_TEST_TMPDIR/out.cbor"
    run sh -c "argus-decode --format kdebug $* '$T' > '$OUT'"
}

@test "a file cut inside the thread map exits 65 and writes nothing" {
    bad_file --truncate 70 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4: thread count 2 does not fit the file (70 bytes)"
    [ ! -s "$OUT" ]
}

@test "a pipe cut inside the thread map exits 65 at the entry's byte" {
    small_trace | mkkdebug --truncate 70 > "$T"
    run sh -c "cat '$T' | argus-decode --format kdebug > '$BATS_TEST_TMPDIR/out.cbor'"
    assert_failure 65
    assert_output "argus-decode: <stdin>: byte 56: the file ends inside the thread map (32 bytes wanted, 14 there)"
    [ ! -s "$BATS_TEST_TMPDIR/out.cbor" ]
}

@test "bad input: truncated inside the header: exit 65" {
    bad_file --truncate 10 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 0: the file ends inside the header (24 bytes wanted, 10 there)"
    [ ! -s "$OUT" ]
}

@test "bad input: truncated inside a record: exit 65 naming the record's byte" {
    bad_file --truncate 4200 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4160: the file ends inside a record (40 of 64 bytes)"
}

@test "bad input: truncated inside a record: the complete record before it stays, valid" {
    bad_file --truncate 4200 --
    assert_failure 65
    run argus-validate "$OUT"
    assert_success
    assert_output "$OUT: valid: 4 records, 1 events, 2 threads, 0 edges, 0 segments, ts 0..0 (0.000000000 s)"
}

@test "bad input: a zero-length file: exit 65, nothing written" {
    bad_file --empty --
    assert_failure 65
    assert_output "argus-decode: $T: empty input: no trace in it (0 bytes)"
    [ ! -s "$OUT" ]
}

@test "bad input: a wrong magic number: exit 65, nothing written" {
    bad_file --magic 0x55aa0102 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 0: magic 0x55aa0102 is not a kdebug file (RAW_VERSION1 0x55aa0101, RAW_VERSION2 0x55aa0200, RAW_VERSION3 0x00001000 or 0x55aa0300; a RAW_VERSION0 file has none: give --kdebug-v0)"
    [ ! -s "$OUT" ]
}

@test "a negative thread count (V0, V1, V2) exits 65 at the count's byte" {
    bad_file --raw-version 1 --thread-count -1 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4: thread count -1 does not fit the file (4288 bytes)"
    [ ! -s "$OUT" ]
    bad_file --raw-version 2 --thread-count -2 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4: thread count -2 does not fit the file (4288 bytes)"
    [ ! -s "$OUT" ]
    bad_file --raw-version 0 --thread-count -1 -- --kdebug-v0
    assert_failure 65
    assert_output "argus-decode: $T: byte 0: thread count -1 does not fit the file (260 bytes)"
    [ ! -s "$OUT" ]
}

@test "bad input: a thread count too large for the file: exit 65, nothing written" {
    bad_file --thread-count 200 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4: thread count 200 does not fit the file (4288 bytes)"
    [ ! -s "$OUT" ]
    bad_file --raw-version 2 --thread-count 2147483647 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 4: thread count 2147483647 does not fit the file (4288 bytes)"
    [ ! -s "$OUT" ]
}

@test "a V3 chunk length past the end of the file exits 65 at the chunk's byte" {
    # header 16 + 40, thread map 16 + 64, events 16 + 8 + 2 * 64: the second
    # events chunk at byte 288, 16 + 8 + 64 bytes
    bad_file --raw-version 3 --chunk-length 0x1e00=100000 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 288: chunk 0x1e00 of 100000 bytes goes past the end of the file (376 bytes)"
}

@test "a V3 chunk length past the end keeps the records of the chunks before it" {
    bad_file --raw-version 3 --chunk-length 0x1e00=100000 --
    assert_failure 65
    run argus-validate "$OUT"
    assert_success
    assert_output "$OUT: valid: 5 records, 2 events, 2 threads, 0 edges, 0 segments, ts 0..1000 (0.000001000 s)"
}

@test "a V3 chunk past the end or not of whole entries exits 65 naming the byte" {
    bad_file --raw-version 3 --chunk-length 0x1000=100000 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 8: header chunk length 100000 does not fit the file"
    [ ! -s "$OUT" ]
    bad_file --raw-version 3 --chunk-length 0x1d00=40 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 56: thread map chunk of 40 bytes is not whole 32-byte entries"
    [ ! -s "$OUT" ]
    bad_file --raw-version 3 --chunk-length 0x1e00=70 --
    assert_failure 65
    assert_output "argus-decode: $T: byte 288: events chunk of 70 bytes is not 8 + whole 64-byte records"
}

# ---- Detection, header, clock (point 1) -----------------------------

@test "auto-detection: V1, V2 and V3 are told by their magic; source names the version" {
    for v in "1 kdebug-v1" "2 kdebug-v2" "3 kdebug-v3"; do
        set -- $v
        small_trace | mk --raw-version "$1"
        run json
        assert_success
        assert_line --index 0 '{"type":"stream","format":"argus","version":1,"source":"'"$2"'","stages":["decode"]}'
        assert_line --index 5 '{"type":"syscall","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"name":"write","phase":"begin","args":[1,4096,64,0]}'
    done
    small_trace | mk --raw-version 3 --v3-magic lib
    run json
    assert_success
    assert_line --index 0 '{"type":"stream","format":"argus","version":1,"source":"kdebug-v3","stages":["decode"]}'
}

@test "auto-detection: RAW_VERSION0 has no magic: only --kdebug-v0 reads it" {
    small_trace | mk --raw-version 0
    run sh -c "argus-decode < '$T' > /dev/null"
    assert_failure 65
    assert_output "argus-decode: <stdin>: binary data, not a trace argus reads (it reads a system trace: Linux ftrace text (argus record writes it), trace-cmd's trace.dat, perf.data, Perfetto, CTF (LTTng), macOS kdebug or trace text, JSON lines or an argus stream); record a trace while the program hangs: sudo argus record -o trace.txt -- PROGRAM"
    run json --kdebug-v0
    assert_success
    assert_line --index 0 '{"type":"stream","format":"argus","version":1,"source":"kdebug-v0","stages":["decode --kdebug-v0"]}'
}

@test "t0: V1's TOD is the wall time of the first record (ts 0)" {
    small_trace | mk --raw-version 1 --wall 1600000000.000007
    run sh -c "argus-decode < '$T' | argus-to-json | head -1"
    assert_output '{"type":"stream","format":"argus","version":1,"source":"kdebug-v1","t0":1600000000000007000,"stages":["decode"]}'
}

@test "t0: V3's wall time names its start tick, on either side of the first record" {
    # 1000 - 600 = 400 ticks of 125/3 ns after the wall time: + 16666 ns
    small_trace | mk --raw-version 3 --timebase 125/3 --wall 1700000000.250000 --start 600
    run sh -c "argus-decode < '$T' | argus-to-json | head -1"
    assert_output '{"type":"stream","format":"argus","version":1,"source":"kdebug-v3","t0":1700000000250016666,"stages":["decode"]}'
    # 1000 - 1600 = -600 ticks: - 25000 ns
    small_trace | mk --raw-version 3 --timebase 125/3 --wall 1700000000.250000 --start 1600
    run sh -c "argus-decode < '$T' | argus-to-json | head -1"
    assert_output '{"type":"stream","format":"argus","version":1,"source":"kdebug-v3","t0":1700000000249975000,"stages":["decode"]}'
}

@test "--timebase 125/3 on a V1 file: ts and timer deadlines in ns of a 24 MHz clock" {
    mk <<'EOF'
thread 0x2001 300 TextEdit
rec 1000 0x0109001d 0x7100 0 49000 0 0x2001 0   # TMR_TimerCallEnter START, deadline tick 49000
rec 1024 0x040c0019 5 0 0 0 0x2001 0            # BSC_close START
rec 25000 0x040c001a 0 0 0 0 0x2001 0           # its END
EOF
    run sh -c "argus-decode --format kdebug --timebase 125/3 < '$T' | argus-to-json | tail -n +3"
    assert_success
    assert_output - <<'EOF'
{"type":"timer_arm","id":1,"ts":0,"tid":8193,"pid":300,"cpu":0,"timer":"0x7100","deadline":2000000}
{"type":"syscall","id":2,"ts":1000,"tid":8193,"pid":300,"cpu":0,"name":"close","phase":"begin","args":[5,0,0,0]}
{"type":"syscall","id":3,"ts":1000000,"tid":8193,"pid":300,"cpu":0,"name":"close","phase":"end","ret":0}
EOF
}

@test "--record-size 32 reads a V2 file whose header says 64-bit records" {
    small_trace | mk --raw-version 2 --record-size 32 --hz 24000000 --wall 1700000000.250000
    printf '\001' | dd of="$T" bs=1 seek=20 conv=notrunc status=none   # flags: 64-bit
    run sh -c "argus-decode --format kdebug -v < '$T' 2>&1 >/dev/null | head -1"
    assert_output "argus-decode: 3 records read, 3 events written"
    run json --format kdebug --record-size 32
    assert_success
    assert_output "$(sed 's/"decode --format kdebug"/"decode --format kdebug --record-size 32"/' fixtures/kdebug/v2-32bit.expected.jsonl)"
}
