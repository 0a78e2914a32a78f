#!/bin/bash
# fcntl-lock: a python3 program (named lockf-waiter) takes a POSIX record
# lock on a file with fcntl.lockf(LOCK_EX), which is fcntl(F_SETLKW), and
# blocks: another python3 process (named lock-holder) holds the lock while
# it sleeps 2 s, then exits (which releases it). The holder is started
# before the recording and waits at a gate fifo; the recorded command's
# first act, before it execs the waiter, is to open that gate. Normal run:
# no holder. (flock-wait is flock(2), a BSD lock; this is fcntl's.)
# Truth: fixtures/real/fcntl-lock/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
lock=$WORK/lockfile
: > "$lock"

cat > "$WORK/holder.py" <<'EOF'
import ctypes, fcntl, sys, time
ctypes.CDLL(None).prctl(15, b"lock-holder", 0, 0, 0)  # PR_SET_NAME
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2] + ".held", "w").close()
with open(sys.argv[2]) as gate:
    gate.readline()
time.sleep(2)
EOF
cat > "$WORK/waiter.py" <<'EOF'
import ctypes, fcntl, sys
ctypes.CDLL(None).prctl(15, b"lockf-waiter", 0, 0, 0)  # PR_SET_NAME
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX)
f.write("done\n")
EOF

record normal $py "$WORK/waiter.py" "$lock"

mkfifo "$WORK/gate"
spawn $py "$WORK/holder.py" "$lock" "$WORK/gate"
holder=$SPAWNED_PID
wait_for 10 test -e "$WORK/gate.held"
record hang sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" $py "$WORK/waiter.py" "$lock"
wait "$holder" || { say "the holder failed"; exit 1; }

truth proc lockf-waiter
truth hang "$RECORDED_PID lockf-waiter/main"
truth culprit "$holder lock-holder/main"
truth ending timeout
truth why "the waiter's fcntl(F_SETLKW) blocked on the file's record lock, which the other process, lock-holder ($holder), held while it slept 2 s; its exit released the lock and woke the waiter"
