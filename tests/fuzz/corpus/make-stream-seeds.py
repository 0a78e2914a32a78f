#!/usr/bin/python3
"""Writes the seed corpus of fuzz-stream (tests/fuzz/corpus/fuzz-stream/):
small valid argus streams (docs/stream-format.md), each a CBOR sequence of
maps. Run from anywhere with Debian's python3 and python3-cbor2:
    /usr/bin/python3 tests/fuzz/corpus/make-stream-seeds.py
"""
import io
import os
import struct

import cbor2

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz-stream")


def enc(*records):
    return b"".join(cbor2.dumps(r) for r in records)


def header(**extra):
    h = {"type": "stream", "format": "argus", "version": 1,
         "source": "jsonl", "t0": 1700000000000000000,
         "stages": ["decode --format jsonl trace.jsonl"]}
    h.update(extra)
    return h


def thread(tid, pid, proc, **extra):
    t = {"type": "thread", "tid": tid, "pid": pid, "proc": proc}
    t.update(extra)
    return t


def event(type_, id_, ts, tid, pid, **fields):
    e = {"type": type_, "id": id_, "ts": ts, "tid": tid, "pid": pid}
    e.update(fields)
    return e


# --- by hand: CBOR heads for what cbor2 will not write ---------------------

def head(major, arg):
    if arg < 24:
        return bytes([major << 5 | arg])
    for info, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
        if arg < 1 << (8 * struct.calcsize(fmt)):
            return bytes([major << 5 | info]) + struct.pack(fmt, arg)
    raise ValueError(arg)


def text(s):
    b = s.encode()
    return head(3, len(b)) + b


def uint(v):
    return head(0, v)


def indef_text(*chunks):
    return b"\x7f" + b"".join(text(c) for c in chunks) + b"\xff"


def indef_map(*pairs):
    return b"\xbf" + b"".join(k + v for k, v in pairs) + b"\xff"


def indef_array(*items):
    return b"\x9f" + b"".join(items) + b"\xff"


def seeds():
    s = {}
    # a header, a thread, a few events of different types and an edge
    s["basic"] = enc(
        header(),
        thread(100, 10, "WindowServer", name="main", main=True),
        thread(200, 20, "kernel_task", kernel=True),
        event("syscall", 1, 1000, 100, 10, cpu=0, name="read", phase="begin",
              args=[3, 0x7fff0000, 4096]),
        event("backtrace", 2, 1005, 100, 10,
              frames=["read", "-[NSFileHandle readDataOfLength:]", "main"]),
        event("wait", 3, 1010, 100, 10, resource=0xffffff8012345678,
              reason="semaphore", timeout=1000000),
        event("wakeup", 4, 2000, 200, 20, target=100, result="awakened"),
        event("woken", 5, 2001, 100, 10, result="awakened", synth=True),
        event("syscall", 6, 2002, 100, 10, name="read", phase="end", ret=-4),
        {"type": "edge", "kind": "wakeup", "from": 4, "to": 5},
        {"type": "edge", "kind": "wait", "from": 3, "to": 4, "weak": True},
    )
    # IPC, dispatch, runloop, timers, flags, CoreAnimation, unknown types
    s["types"] = enc(
        header(stages=[]),
        thread(1, 1, "launchd"),
        event("ipc", 1, 10, 1, 1, dir="send", port=0x1103, msg=0xdead0000,
              msg_id=77, reply_port=0x1207, peer=42, voucher=0xbeef,
              voucher_pids=[1, 42, 99], via="mach"),
        event("dispatch_enqueue", 2, 11, 1, 1, queue=0x600000, item=0x700000),
        event("dispatch_invoke", 3, 12, 1, 1, phase="begin", queue=0x600000,
              item=0x700000, func="_dispatch_call_block_and_release"),
        event("runloop_phase", 4, 13, 1, 1, stage="before_waiting"),
        event("runloop_invoke", 5, 14, 1, 1, phase="begin", kind="timer",
              item=0x800000, func=0x1000),
        event("timer_arm", 6, 15, 1, 1, timer=0x900000, deadline=5000,
              func="fire"),
        event("timer_fire", 7, 5000, 1, 1, phase="begin", timer=0x900000),
        event("flag_write", 8, 5001, 1, 1, addr=0x1234, value=1, name="ready"),
        event("flag_read", 9, 5002, 1, 1, addr=0x1234, value=True, name="ready"),
        event("ca_set", 10, 5003, 1, 1, obj=0xabc),
        event("ca_display", 11, 5004, 1, 1, obj=0xabc, phase="end"),
        event("interrupt", 12, 5005, 1, 1, phase="begin", irq=17,
              ctx="interrupt", seg=3),
        event("exec", 13, 5006, 1, 1, note="custom stage note", path="/bin/sh"),
        {"type": "finding", "kind": "spinning", "seg": 3, "ids": [1, 2]},
    )
    # indefinite-length maps, arrays and strings, at the top and nested
    s["indefinite"] = (
        indef_map((text("type"), indef_text("str", "eam")),
                  (text("format"), text("argus")),
                  (indef_text("vers", "ion"), uint(1)),
                  (text("stages"), indef_array(text("a"), indef_text("b", "c"))))
        + indef_map((text("type"), text("thread")), (text("tid"), uint(5)),
                    (text("pid"), uint(6)), (text("proc"), indef_text()))
        + indef_map((text("type"), text("backtrace")), (text("id"), uint(1)),
                    (text("ts"), uint(10)), (text("tid"), uint(5)),
                    (text("pid"), uint(6)),
                    (text("frames"), indef_array(text("f0"), text("f1"))),
                    (text("note"), indef_map((indef_text("k"), b"\x5f\x41x\xff"))))
        + head(5, 5) + text("type") + text("syscall") + text("id") + uint(2)
        + text("ts") + uint(11) + text("tid") + uint(5) + text("pid") + uint(6)
        + indef_map((text("type"), text("syscall")), (text("id"), uint(3)),
                    (text("ts"), uint(12)), (text("tid"), uint(5)),
                    (text("pid"), uint(6)),
                    (text("args"), indef_array(uint(1), uint(0xffffffff))))
    )
    # nested maps and arrays under unknown keys and "note"
    s["nested"] = enc(
        header(extra={"host": {"name": "mac", "os": [14, 2, {"beta": False}]}}),
        event("syscall", 1, 1, 1, 1, note={"a": {"b": {"c": [1, [2, [3, {}]]]}}},
              args=[], value={"x": [None, True, b"\x00\x01"]}),
        {"type": "summary", "counts": {"syscall": 1, "wait": 0},
         "tree": [[[[[[]]]]]], "tagged": cbor2.CBORTag(42, {"k": "v"})},
    )
    # floats (half, single, double) and negative ints
    s["numbers"] = (
        enc(header(),
            event("syscall", 1, 0, 1, 1, ret=-1, args=[0, 18446744073709551615],
                  value=-18446744073709551616, weight=1.5, ratio=-0.0,
                  big=1e300, tiny=5e-324, inf=float("inf"), nan=float("nan")),
            event("flag_write", 2, 18446744073709551615, 1, 1, addr=0,
                  value=-128, name="neg"))
        + head(5, 6) + text("type") + text("stat") + text("h")
        + b"\xf9\x3c\x00" + text("s") + b"\xfa\x3f\xc0\x00\x00"
        + text("d") + b"\xfb\x40\x09\x21\xfb\x54\x44\x2d\x18"
        + text("n8") + b"\x38\xff" + text("n64")
        + b"\x3b\x7f\xff\xff\xff\xff\xff\xff\xff"
    )
    # non-shortest heads, simple values, undefined, a second header
    s["odd"] = (
        head(5, 5) + text("type") + text("stream") + text("format")
        + text("argus") + text("version") + b"\x1b" + (1).to_bytes(8, "big")
        + text("stages") + b"\x98\x01" + text("x") + text("u") + b"\xf7"
        + enc({"type": "other", "s": cbor2.CBORSimpleValue(99),
               "ts": 0, "empty": "", "bytes": b""})
        + enc(header(stages="not an array"))
    )
    return s


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, data in seeds().items():
        # every seed decodes as a sequence of maps with text keys
        f = io.BytesIO(data)
        while f.tell() < len(data):
            rec = cbor2.load(f)
            assert isinstance(rec, dict) and "type" in rec, (name, rec)
        assert len(data) < 4096, name
        with open(os.path.join(HERE, name + ".cbor"), "wb") as out:
            out.write(data)
        print(f"{name}.cbor: {len(data)} bytes")


if __name__ == "__main__":
    main()
