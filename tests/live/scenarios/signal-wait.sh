#!/bin/bash
# signal-wait: a python3 program (named sig-waiter) blocks SIGUSR1 and
# waits for it in signal.sigwait (rt_sigtimedwait); another python3
# process (sig-sender), started before the recording, reads the waiter's
# pid from a gate fifo (the waiter's first act), sleeps 2 s, then sends it
# SIGUSR1 (kill). Normal run: the sender sleeps 0 s.
# Truth: fixtures/real/signal-wait/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

cat > "$WORK/waiter.py" <<'EOF'
import ctypes, os, signal, sys
ctypes.CDLL(None).prctl(15, b"sig-waiter", 0, 0, 0)  # PR_SET_NAME
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
with open(sys.argv[1], "w") as gate:
    gate.write("%d\n" % os.getpid())
signal.sigwait({signal.SIGUSR1})
EOF
cat > "$WORK/sender.py" <<'EOF'
import ctypes, os, signal, sys, time
ctypes.CDLL(None).prctl(15, b"sig-sender", 0, 0, 0)  # PR_SET_NAME
with open(sys.argv[1]) as gate:
    pid = int(gate.readline())
time.sleep(float(sys.argv[2]))
os.kill(pid, signal.SIGUSR1)
EOF
mkfifo "$WORK/gate"

# run NAME SECONDS: the sender, then the recorded waiter
run() {
    spawn $py "$WORK/sender.py" "$WORK/gate" "$2"
    sender=$SPAWNED_PID
    record "$1" $py "$WORK/waiter.py" "$WORK/gate"
    wait "$sender" || { say "the sender failed"; exit 1; }
}
run normal 0
run hang 2

truth proc sig-waiter
truth hang "$RECORDED_PID sig-waiter/main"
truth culprit "$sender sig-sender/main"
truth ending timeout
truth why "the program waited in sigwait for SIGUSR1, which the other process, sig-sender ($sender), sent only after sleeping 2 s"
