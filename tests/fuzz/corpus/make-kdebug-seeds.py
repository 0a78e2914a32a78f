#!/usr/bin/python3
"""Writes the seed corpora of fuzz-kdebug and fuzz-tracetext
(tests/fuzz/corpus/fuzz-kdebug/, tests/fuzz/corpus/fuzz-tracetext/):
small valid kdebug files of every version and trace(1) text, each after
the fuzzers' option byte (tests/fuzz/fuzz-kdebug.c). Standard library
only; run from anywhere:
    python3 tests/fuzz/corpus/make-kdebug-seeds.py
The formats are those of docs/inputs/macos.md.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
KDEBUG = os.path.join(HERE, "fuzz-kdebug")
TEXT = os.path.join(HERE, "fuzz-tracetext")

# option byte (fuzz-kdebug.c)
OPT_SIZE32, OPT_SIZE64, OPT_V0 = 0x01, 0x02, 0x04
OPT_WINDOW1, OPT_WINDOW3, OPT_WINDOW64 = 0x08, 0x10, 0x18
OPT_TIMEBASE, OPT_NO_FD, OPT_CODES = 0x20, 0x40, 0x80

START, END = 1, 2
RAW_VERSION1, RAW_VERSION2 = 0x55aa0101, 0x55aa0200
RAW_VERSION3, RAW_VERSION3_LIB = 0x00001000, 0x55aa0300


def bsd(n):
    return 0x040c0000 | n << 2


def mach(n):
    return 0x010c0000 | n << 2


MACH_SCHED, MACH_STKHANDOFF = 0x01400000, 0x01400008
MACH_MKRUNNABLE, MACH_BLOCK, MACH_WAIT = 0x01400018, 0x0140003c, 0x01400040
MACH_SCHED_MAINTENANCE, INTERRUPT = 0x0140007c, 0x01050000
VOUCHER, MSG_SEND, MSG_RECV = 0x01200008, 0x0120000c, 0x01200010
KMSG_FREE, KMSG_INFO = 0x01200018, 0x01200028
TMR_INTR, TMR_ENTER, TMR_CANCEL = 0x01090008, 0x0109001c, 0x01090020
NEWTHREAD, EXEC = 0x07000004, 0x07000008
STR_NEWTHREAD, STR_EXEC, STR_THREADNAME = 0x07010004, 0x07010008, 0x07010010
LOST = 0x07020008
PUSH, POP, DONE = 0x2e050014, 0x2e050024, 0x2e05002c

KERNEL, MAIN, WORKER, SERVER, STRANGER = 0x101, 0x2001, 0x2002, 0x3001, 0x9999
THREADS = [(KERNEL, 1, b"kernel_task"), (MAIN, 345, b"TextEdit"),
           (WORKER, 345, b"TextEdit"), (SERVER, 150, b"WindowServer"),
           (0, 0, b""), (0x3002, 150, b"WindowServer")]


def strings(debugid, tid, text, arg_bytes):
    """The records xnu writes for a string: START first, END last."""
    per = 4 * arg_bytes
    chunks = [text[i:i + per] for i in range(0, len(text), per)] or [b""]
    out = []
    for i, c in enumerate(chunks):
        c = c.ljust(per, b"\0")
        args = [int.from_bytes(c[k * arg_bytes:(k + 1) * arg_bytes], "little")
                for k in range(4)]
        func = 0
        if len(chunks) > 1:
            func = START if i == 0 else END if i == len(chunks) - 1 else 0
        out.append((debugid | func, tid, args))
    return out


def events(arg_bytes):
    """(ticks, debugid, tid, [args], cpu): a bit of everything the default
    table maps, in ts order but for a few swapped within a small window."""
    ev = []
    t = 1000

    def add(debugid, tid, *args, cpu=0, dt=10):
        nonlocal t
        t += dt
        a = list(args) + [0] * (4 - len(args))
        ev.append([t, debugid, tid, a, cpu])

    add(MACH_SCHED, MAIN, 0, WORKER, 31, 0)
    add(bsd(3) | START, WORKER, 5, 0x7000, 4096, 0, cpu=1)        # read
    add(MACH_WAIT, WORKER, 0xffffff8012345678, cpu=1)
    add(MACH_BLOCK, WORKER, cpu=1)
    add(MACH_MKRUNNABLE, SERVER, WORKER, 0, 0, 0, cpu=2)
    add(MACH_STKHANDOFF, SERVER, 0, WORKER, cpu=1)
    add(bsd(3) | END, WORKER, 0, 42, cpu=1)
    add(bsd(5) | START, MAIN, 0x1000, 0, 0, 0)                      # open
    add(bsd(5) | END, MAIN, 2, 0)                                   # ENOENT
    add(mach(31) | START, MAIN, 1, 2, 3, 4)                         # mach_msg
    add(KMSG_INFO | END, MAIN, 345, 150, 0x1234 << 32 | 64)
    add(MSG_SEND, MAIN, 0xffffff80aaaa0000, 0, 0x1234, 0xffffff80bbbb0000)
    add(mach(31) | END, MAIN, 0xfffffffe)
    add(KMSG_INFO | END, SERVER, 345, 150, 64, cpu=2)
    add(MSG_RECV, SERVER, 0xffffff80aaaa0000, 0, 0x1234, 0, cpu=2)
    add(KMSG_FREE, SERVER, 0xffffff80aaaa0000, cpu=2)
    add(VOUCHER, SERVER, 0, 0, 0xffffff80bbbb0000, cpu=2)
    add(INTERRUPT | START, KERNEL, 77, cpu=3)
    add(INTERRUPT | END, KERNEL, cpu=3)
    add(TMR_ENTER | START, MAIN, 0xffffff80cccc0000, 0, 5000)
    add(TMR_ENTER | END, MAIN)
    add(TMR_CANCEL | START, MAIN, 0xffffff80cccc0000)
    add(TMR_INTR | START, KERNEL, 0xffffff80cccc0000, 0xffffff8000401000, cpu=3)
    add(TMR_INTR | END, KERNEL, 0xffffff80cccc0000, cpu=3)
    add(MACH_SCHED_MAINTENANCE | START, KERNEL, cpu=3)
    add(MACH_SCHED_MAINTENANCE | END, KERNEL, cpu=3)
    add(NEWTHREAD, MAIN, 0x2003, 345)
    for d, tid, a in strings(STR_NEWTHREAD, MAIN, b"TextEdit", arg_bytes):
        add(d, tid, *a, dt=0)
    add(bsd(4) | START, 0x2003, 1, 2, 3, 0, cpu=1)                 # write
    for d, tid, a in strings(STR_THREADNAME, 0x2003,
                             b"com.apple.NSEventThread-and-a-long-tail", arg_bytes):
        add(d, tid, *a, dt=1)
    add(bsd(4) | END, 0x2003, 0, 3, cpu=1)
    add(MACH_WAIT, 0x2003, 0x5000, cpu=1)                           # DEC-WOKEN
    add(MACH_MKRUNNABLE, MAIN, 0x2003, 0, 1, 0)
    add(PUSH, MAIN, 0x7f0000001000, 0x7f0000002000, 0x100003f00)
    add(POP, 0x2003, 0x7f0000001000, 0x7f0000002000, 0x100003f00, cpu=1)
    add(DONE, 0x2003, 0x7f0000001000, 0x7f0000002000, cpu=1)
    add(EXEC, WORKER, 400, cpu=1)
    for d, tid, a in strings(STR_EXEC, WORKER, b"newprog", arg_bytes):
        add(d, tid, *a, dt=0, cpu=1)
    add(0x31000000 | START, STRANGER, 1, 2, 3, 4, cpu=2)            # unmapped
    add(0x31000000 | END, STRANGER, cpu=2)
    add(bsd(999) | END, STRANGER, 0, 0, cpu=2)                      # no START
    add(LOST, KERNEL, 12, 0, 0, 0, cpu=3)
    for n in (3, 4, 5, 6, 153):                                     # nested
        add(bsd(n) | START, SERVER, n, cpu=2)
    add(MACH_WAIT, SERVER, 0x6000, cpu=2)
    for n in (153, 6, 5):
        add(bsd(n) | END, SERVER, 0, n, cpu=2)
    add(MACH_SCHED, MAIN, 0, SERVER, dt=0)                          # same ts
    # a few out of order, within a window of 8
    ev[-3][0], ev[-6][0] = ev[-6][0], ev[-3][0]
    ev[5][0] -= 25
    return ev


def rec64(e):
    t, debugid, tid, a, cpu = e
    return struct.pack("<6QIIQ", t, *a, tid, debugid, cpu, 0)


def rec32(e):
    t, debugid, tid, a, cpu = e
    return struct.pack("<Q6I", t | cpu << 56, *[x & 0xffffffff for x in a],
                       tid & 0xffffffff, debugid)


def thread_map(threads=THREADS):
    return b"".join(struct.pack("<Qi20s", tid, pid, cmd) for tid, pid, cmd in threads)


def pad_to(data, boundary):
    return data + b"\0" * (-len(data) % boundary)


def records(size):
    ev = events(8 if size == 64 else 4)
    return b"".join((rec64 if size == 64 else rec32)(e) for e in ev)


def v0(size):
    return struct.pack("<i", len(THREADS)) + thread_map() + records(size)


def v1(size, cpu_map):
    head = struct.pack("<IiQI4x", RAW_VERSION1, len(THREADS), 1700000000, 250000)
    data = head + thread_map()
    if cpu_map:
        data += struct.pack("<II", RAW_VERSION1, 4)
        data += b"".join(struct.pack("<II8s", i, 0, b"cpu%d" % i) for i in range(4))
    return pad_to(data, 4096) + records(size)


def v2(size):
    flags = 1 if size == 64 else 0
    head = struct.pack("<IiQIIQ", RAW_VERSION2, len(THREADS), 1700000000, 5,
                       flags, 24000000).ljust(0x120, b"\0")
    return pad_to(head + thread_map(), 4096) + records(size)


def chunk(tag, payload, sub=0):
    return pad_to(struct.pack("<IIQ", tag, sub, len(payload)) + payload, 8)


def v3(magic, size, numer=125, denom=3):
    flags = 1 if size == 64 else 0
    fixed = struct.pack("<IIQQIII", numer, denom, 900, 1700000000, 123456,
                        0, 0) + struct.pack("<I", flags)
    cpus = chunk(0x1c00, struct.pack("<II", RAW_VERSION1, 2) +
                 b"".join(struct.pack("<II8s", i, 0, b"cpu") for i in range(2)))
    header = struct.pack("<IIQ", magic, 0x0300, len(fixed + cpus)) + fixed + cpus
    recs = records(size)
    half = len(recs) // 2 // size * size
    return (pad_to(header, 8) +
            chunk(0x1b00, b"\1" * 20) +                       # config
            chunk(0x1d00, thread_map()) +
            chunk(0x8002, b"stackshot bytes, odd length") +  # unknown: skipped
            chunk(0x1e00, struct.pack("<Q", 0) + recs[:half]) +
            chunk(0x2000, b"") +                              # null chunk
            chunk(0x1e00, struct.pack("<Q", 1) + recs[half:]))


CODES = b"""# a codes file: trace.codes names, a type column, ranges
0x31000000\tMyApp_Start\tmyapp_step
0x31010000-0x3101fffc\tMyApp_Range\tmyapp_range:none
0x2b000004  RL_Submit      runloop_submit
0x2b000008  RL_Invoke      runloop_invoke
0x2b00000c  RL_Phase       runloop_phase
0x2b000010  NSEvent        ui_event
0x2b000014  FlagWrite      flag_write
0x2b000018  FlagRead       flag_read
0x2b00001c  CA_Set         ca_set
0x2b000020  CA_Display     ca_display:begin
0x2b000024  Quiet          ignore
0x040c000c  BSC_read
0x010c007c  MSC_mach_msg_trap  syscall  # a comment after
0x2b000028  Raw_thing\r
"""


def codes_events(size):
    ev = []
    for i, (d, a) in enumerate([
            (0x2b000004, [0x1111]), (0x2b000008 | START, [1, 0x1111, 0x100002000]),
            (0x2b000008 | END, [1, 0x1111]), (0x2b00000c, [32]), (0x2b00000c, [5]),
            (0x2b000010, [10]), (0x2b000010, [99]), (0x2b000014, [0x6000, 1]),
            (0x2b000018, [0x6000, 1]), (0x2b00001c, [0xabc]),
            (0x2b000020 | END, [0xabc]), (0x2b000024, []),
            (0x31000000 | START, [1, 2, 3, 4]), (0x31010004, [7]),
            (0x040c000c | START, [1, 2, 3, 4]), (0x2b000028, [9])]):
        ev.append([2000 + 7 * i, d, MAIN if i % 3 else SERVER, a + [0] * (4 - len(a)), i % 2])
    return b"".join((rec64 if size == 64 else rec32)(e) for e in ev)


def late(size):
    """V3 with one record beyond a window of 8: the late-record error."""
    ev = events(8)[:20]
    ev.append([ev[0][0] - 5, INTERRUPT | START, KERNEL, [1, 0, 0, 0], 3])
    recs = b"".join(rec64(e) for e in ev)
    fixed = struct.pack("<IIQQIII", 1, 1, 0, 0, 0, 0, 0) + struct.pack("<I", 1)
    return (struct.pack("<IIQ", RAW_VERSION3_LIB, 0, len(fixed)) + fixed +
            chunk(0x1d00, thread_map()) + chunk(0x1e00, struct.pack("<Q", 0) + recs))


def kdebug_seeds():
    fixed3 = struct.pack("<IIQQIII", 1, 1, 0, 0, 0, 0, 0) + struct.pack("<I", 1)
    v3_codes = (struct.pack("<IIQ", RAW_VERSION3, 0, len(fixed3)) + fixed3 +
                chunk(0x1d00, thread_map()) +
                chunk(0x1e00, struct.pack("<Q", 0) + codes_events(64)))
    seeds = {
        "v0-64.bin": bytes([OPT_V0]) + v0(64),
        "v0-32.bin": bytes([OPT_V0 | OPT_WINDOW3]) + v0(32),
        "v1-64.bin": bytes([0]) + v1(64, False),
        "v1-32-cpumap.bin": bytes([OPT_NO_FD]) + v1(32, True),
        "v2-64.bin": bytes([0]) + v2(64),
        "v2-32.bin": bytes([OPT_TIMEBASE | OPT_NO_FD]) + v2(32),
        "v3-lib-64.bin": bytes([0]) + v3(RAW_VERSION3_LIB, 64),
        "v3-kernel-32.bin": bytes([OPT_NO_FD | OPT_WINDOW64]) + v3(RAW_VERSION3, 32, 1, 1),
        "v3-codes.bin": bytes([OPT_CODES]) + CODES + b"\0" + v3_codes,
        "v3-late.bin": bytes([OPT_WINDOW1]) + late(64),
    }
    return seeds


# ---- trace(1) text ---------------------------------------------------------

def line(us, delta, name, args, tid, cpu, cmd, elapsed=None, bits=64):
    w = 16 if bits == 64 else 8
    gap = "  " if bits == 64 else "    "
    el = "" if elapsed is None else "(%.1f)" % elapsed
    hexes = " ".join("%-*x" % (w, a) for a in args)
    return "%13.1f %10.1f%s %-28.28s  %s%s%-*x%s%-2d %s" % (
        us, delta, el, name, hexes, gap, w, tid, gap, cpu, cmd)


def lookup(us, delta, dvp, path, tid, cpu, cmd):
    return "%13.1f %10.1f %-28.28s  %-16x %-51s  %-16x  %-2d %s" % (
        us, delta, "VFS_LOOKUP", dvp, path[-51:], tid, cpu, cmd)


HEADER = ("AbsTime(Us)      Delta            debugid                      "
          "arg1             arg2             arg3             arg4              "
          "thread         cpu#  command")


def text_trace(bits=64):
    L = ["Tue Nov 21 10:00:00 2023", "", HEADER]
    us = 0.0

    def add(name, args, tid, cpu, cmd, elapsed=None, dt=1.3):
        nonlocal us
        L.append(line(us, dt, name, (list(args) + [0] * 4)[:4], tid, cpu, cmd,
                      elapsed, bits))
        us += dt

    add("MACH_SCHED", [0, WORKER, 31, 0], MAIN, 0, "TextEdit", elapsed=12.5)
    add("BSC_read", [5, 0x7000, 4096], WORKER, 1, "TextEdit")
    add("MACH_WAIT", [0xffffff8012345678], WORKER, 1, "TextEdit")
    add("MACH_MKRUNNABLE", [WORKER, 0, 0], SERVER, 2, "WindowServer")
    add("MACH_STKHANDOFF", [0, WORKER], SERVER, 1, "WindowServer", elapsed=3.0)
    add("BSC_read", [0, 42], WORKER, 1, "TextEdit", elapsed=8.2)
    add("MSC_mach_msg_trap", [1, 2, 3, 4], MAIN, 0, "TextEdit")
    add("MACH_IPC_kmsg_info", [345, 150, 64], MAIN, 0, "TextEdit", elapsed=0.1)
    add("MACH_IPC_msg_send", [0xffffff80aaaa0000, 0, 0x1234], MAIN, 0, "TextEdit")
    add("MSC_mach_msg_trap", [0xfffffffe], MAIN, 0, "TextEdit", elapsed=2.0)
    add("INTERRUPT", [77], KERNEL, 3, "kernel_task")
    add("INTERRUPT", [], KERNEL, 3, "kernel_task", elapsed=0.4)
    add("1090008", [0xffffff80cccc0000, 0xffffff8000401000], KERNEL, 3, "kernel_task")
    add("2e050014", [0x7f0000001000, 0x7f0000002000], MAIN, 0, "TextEdit")
    add("DISPATCH_continuation_pop", [0x7f0000001000, 0x7f0000002000], WORKER, 1,
        "TextEdit")
    add("SomeUnknownName_LongerThanTwentyEight", [1, 2, 3, 4], STRANGER, 2, "")
    add("TRACE_LOST_EVENTS", [12], KERNEL, 3, "kernel_task")
    add("BSC_write", [1, 2, 3], 0x2003, 1, "My Helper (with spaces)")
    add("BSC_write", [0, 3], 0x2003, 1, "My Helper (with spaces)", elapsed=1.0)
    add("BSC_execve", [0x1000], WORKER, 1, "TextEdit")
    # the thread runs another command: an exec, its name over 32 characters
    add("BSC_execve", [0, 0], WORKER, 1, "a-very-long-command-name-of-forty-chars",
        elapsed=99.9)
    L.append("Number of microsecs since in last page 1234.5")
    if bits == 64:
        L.append(lookup(us, 0.5, 0xffffff8033330000,
                        "/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit",
                        WORKER, 1, "a-very-long-command-name-of-forty-chars"))
    add("MACH_SCHED", [0, MAIN], SERVER, 0, "WindowServer", dt=0.0)
    return "\n".join(L) + "\n"


TEXT_CODES = b"""0x2b000004  RL_Submit      runloop_submit
0x2b000008  RL_Invoke      runloop_invoke
0x2b000010  NSEvent        ui_event
0x31000000\tMyApp_A_Name_That_Is_Longer_Than_28\tmyapp_step
"""


def text_seeds():
    out_of_order = [HEADER]
    for i, t in enumerate([10.0, 12.5, 11.0, 13.0, 12.9, 20.0, 14.0, 21.0, 22.0,
                           23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 15.0]):
        out_of_order.append(line(t, 0.1, "MACH_SCHED_MAINTENANCE", [0, 0, 0, 0],
                                 KERNEL, i % 4, "kernel_task"))
    codes_text = "\n".join([
        HEADER,
        line(1.0, 1.0, "RL_Submit", [0x1111, 0, 0, 0], MAIN, 0, "TextEdit"),
        line(2.0, 1.0, "RL_Invoke", [1, 0x1111, 0x10000, 0], MAIN, 0, "TextEdit"),
        line(3.0, 1.0, "RL_Invoke", [1, 0x1111, 0, 0], MAIN, 0, "TextEdit", 1.0),
        line(4.0, 1.0, "NSEvent", [10, 0, 0, 0], MAIN, 0, "TextEdit"),
        line(5.0, 1.0, "MyApp_A_Name_That_Is_Longer_Than_28", [1, 2, 3, 4], MAIN, 0,
             "TextEdit"),
        line(6.0, 1.0, "MyApp_A_Name_That_Is_Longer_Than_28", [1, 2, 3, 4], MAIN, 0,
             "TextEdit", 1.0),
    ]) + "\n"
    verbose = "\n".join([
        "Adding default code file /usr/share/misc/trace.codes",
        "Buffer has not wrapped",
        HEADER,
        line(0.0, 0.0, "TRACE_DATA_NEWTHREAD", [0x2003, 345, 0, 0], MAIN, 0, "TextEdit"),
        line(0.1, 0.1, "TRACE_STRING_NEWTHREAD", [0x6964457478655400, 0x74, 0, 0],
             MAIN, 0, "TextEdit"),
        line(0.2, 0.1, "TRACE_STRING_THREADNAME", [0x6c707061, 0, 0, 0], 0x2003, 1,
             "TextEdit"),
        line(0.3, 0.1, "TRACE_DATA_EXEC", [400, 0, 0, 0], WORKER, 1, "TextEdit"),
        line(0.4, 0.1, "TRACE_STRING_EXEC", [0x676f7270, 0, 0, 0], WORKER, 1, "prog"),
    ]) + "\r\n"
    # many threads and commands, in as few bytes as the tokenizer allows
    many = ["%d 0 40c000c 0 0 0 0 %x %d c%d" % (i, 0x10 + i, i % 8, i % 40)
            for i in range(130)]
    seeds = {
        "many-threads.txt": bytes([OPT_WINDOW64]) + ("\n".join(many) + "\n").encode(),
        "trace-t.txt": b"\0" + text_trace(64).encode(),
        "trace-R-32bit-crlf.txt": bytes([OPT_NO_FD]) +
            text_trace(32).replace("\n", "\r\n").encode(),
        "codes.txt": bytes([OPT_CODES]) + TEXT_CODES + b"\0" + codes_text.encode(),
        "out-of-order.txt": bytes([OPT_WINDOW3]) + ("\n".join(out_of_order) + "\n").encode(),
        "verbose.txt": bytes([OPT_WINDOW1]) + verbose.encode(),
    }
    good = line(1.0, 1.0, "BSC_read", [1, 2, 3, 4], MAIN, 0, "TextEdit")
    bad = [
        line(2.0, 1.0, "BSC_read", [1, 2, 3, 4], MAIN, 0, "TextEdit").replace(" 1 ", " xyz ", 1),
        "        3.0        1.0(oops BSC_read  1 2 3 4  2001  0 TextEdit",
        "        4.0        1.0 BSC_read  1 2 3 4  2001",
        "        5.0        1.0 BSC_read  1 2 3 4  2001  99999999999 TextEdit",
        "99999999999999999999.0        1.0 BSC_read  1 2 3 4  2001  0 TextEdit",
        line(6.0, 1.0, "VFS_LOOKUP", [1, 2, 3, 4], MAIN, 0, "TextEdit"),
    ]
    for i, b in enumerate(bad, 1):
        seeds["malformed-%02d.txt" % i] = b"\0" + ("\n".join([HEADER, good, b, good]) + "\n").encode()
    return seeds


def write(folder, seeds):
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        assert len(data) < 65536, name
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write(KDEBUG, kdebug_seeds())
    write(TEXT, text_seeds())
