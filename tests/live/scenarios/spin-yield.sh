#!/bin/bash
# spin-yield: a python3 program (named spin-waiter) busy-waits for a flag
# in a file both processes map (mmap, MAP_SHARED): it loops on
# os.sched_yield() until the byte turns 1. Another python3 process
# (flag-setter), started before the recording and waiting at a gate fifo
# that the waiter opens first, computes for 2 s, then writes the byte. No
# wakeup, lock or message passes between them: only a store to shared
# memory, which the kernel's trace does not show (argus-record --watch
# would, with a hardware watchpoint; not used here). Normal run: the setter
# computes 10 ms.
# Truth: fixtures/real/spin-yield/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# flag.py ROLE FLAGFILE GATE SECONDS: ROLE setter or waiter
cat > "$WORK/flag.py" <<'EOF'
import ctypes, mmap, os, sys, time
role, path, gate, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
ctypes.CDLL(None).prctl(15, (role == "setter" and b"flag-setter" or b"spin-waiter"), 0, 0, 0)
fd = os.open(path, os.O_RDWR)
flag = mmap.mmap(fd, 4096, mmap.MAP_SHARED)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
if role == "setter":
    open(gate + ".ready", "w").close()
    with open(gate) as g:
        g.readline()
    compute(seconds)
    flag[0] = 1
else:
    with open(gate, "w") as g:
        g.write("go\n")
    deadline = time.monotonic() + 10
    while flag[0] == 0 and time.monotonic() < deadline:
        os.sched_yield()
    sys.exit(0 if flag[0] == 1 else 1)
EOF
mkfifo "$WORK/gate"

# run NAME SECONDS: the setter, then the recorded waiter
run() {
    rm -f "$WORK/gate.ready"
    head -c 4096 /dev/zero > "$WORK/flag"
    spawn $py "$WORK/flag.py" setter "$WORK/flag" "$WORK/gate" "$2"
    setter=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.ready"
    record "$1" $py "$WORK/flag.py" waiter "$WORK/flag" "$WORK/gate" 0
    wait "$setter" || { say "the setter failed"; exit 1; }
}
run normal 0.01
run hang 2

truth proc spin-waiter
truth hang "$RECORDED_PID spin-waiter/main"
truth culprit "$setter flag-setter/main"
truth ending running
truth why "the program busy-waited (sched_yield in a loop) for a flag in shared memory that the other process, flag-setter ($setter), wrote only after computing for 2 s"
