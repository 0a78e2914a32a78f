#!/bin/bash
# lock-cycle: a deadlock broken by a timeout. A python3 program (named
# cycle-app) takes lock A on its main thread and starts a thread (locker)
# that takes lock B and then waits for A; the main thread then asks for B
# with a 2 s timeout (threading.Lock.acquire(timeout=2)): each waits on
# the other. The main thread's timeout ends the cycle: it gives up B,
# releases A, the locker gets A and lets both go. Normal run: the locker
# takes B and lets it go without asking for A (no cycle).
# Truth: fixtures/real/lock-cycle/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the program: argv[1] "cycle" or "none"; the locker's tid to argv[2]
cat > "$WORK/cycle.py" <<'EOF'
import ctypes, sys, threading
libc = ctypes.CDLL(None)
libc.prctl(15, b"cycle-app", 0, 0, 0)  # PR_SET_NAME
a, b = threading.Lock(), threading.Lock()
holding_b = threading.Event()
def locker(cycle):
    libc.prctl(15, b"locker", 0, 0, 0)
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % threading.get_native_id())
    with b:
        holding_b.set()
        if cycle:
            with a:
                pass
        else:
            holding_b.clear()
a.acquire()
t = threading.Thread(target=locker, args=(sys.argv[1] == "cycle",))
t.start()
holding_b.wait(10)
got = b.acquire(timeout=2)
if got:
    b.release()
a.release()
t.join()
EOF

record normal $py "$WORK/cycle.py" none "$WORK/normal.tid"
record hang $py "$WORK/cycle.py" cycle "$WORK/hang.tid"
locker=$(cat "$WORK/hang.tid")

truth proc cycle-app
truth hang "$RECORDED_PID cycle-app/main"
truth culprit "$locker cycle-app/locker"
truth ending timeout
truth why "a lock cycle: the main thread, holding lock A, waited for lock B, which its thread locker ($locker) held while it waited for A; the main thread's own 2 s timeout broke the deadlock; the culprit is the locker, which held what the main thread waited for, in a cycle back to the main thread"
