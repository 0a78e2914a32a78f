#!/bin/bash
# cond-var: a python3 program (named cv-waiter) starts a worker thread
# (cv-worker) and waits on a threading.Condition until the worker, after
# computing for 2 s (no system call), sets a flag and notifies it. The
# worker holds no lock while it computes: the main thread waits for a
# signal, not for a lock (gtk4-lock). Normal run: the worker computes 10 ms.
# Truth: fixtures/real/cond-var/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the program: argv[1] seconds of work; the worker's tid to argv[2]
cat > "$WORK/cv.py" <<'EOF'
import ctypes, sys, threading, time
libc = ctypes.CDLL(None)
libc.prctl(15, b"cv-waiter", 0, 0, 0)  # PR_SET_NAME
cond = threading.Condition()
done = False
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
def work(seconds):
    global done
    libc.prctl(15, b"cv-worker", 0, 0, 0)
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % threading.get_native_id())
    compute(seconds)
    with cond:
        done = True
        cond.notify()
worker = threading.Thread(target=work, args=(float(sys.argv[1]),))
with cond:
    worker.start()
    if not cond.wait_for(lambda: done, timeout=10):
        sys.exit(1)
worker.join()
EOF

record normal $py "$WORK/cv.py" 0.01 "$WORK/normal.tid"
record hang $py "$WORK/cv.py" 2 "$WORK/hang.tid"
worker=$(cat "$WORK/hang.tid")

truth proc cv-waiter
truth hang "$RECORDED_PID cv-waiter/main"
truth culprit "$worker cv-waiter/cv-worker"
truth ending running
truth why "the main thread waited on a condition variable (threading.Condition) that its worker thread ($worker) notified only after computing for 2 s"
