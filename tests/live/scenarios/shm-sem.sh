#!/bin/bash
# shm-sem: two unrelated python3 processes share a POSIX named semaphore
# (glibc's sem_open, through ctypes: a futex in a shared-memory page of
# /dev/shm, mapped at a different address in each process). The holder
# (sem-holder), started before the recording, takes it (sem_wait), waits
# at a gate fifo, sleeps 2 s and posts it; the recorded waiter (sem-waiter)
# opens the gate and calls sem_wait, which blocks in a shared (not
# process-private) futex wait. Normal run: the holder sleeps 0 s.
# Truth: fixtures/real/shm-sem/truth.
. "$(dirname "$0")/lib.sh"
need_root
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
[ -d /dev/shm ] || skip "needs /dev/shm (POSIX shared memory)"

# sem.py ROLE NAME GATE SECONDS: ROLE holder or waiter
cat > "$WORK/sem.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL("libc.so.6", use_errno=True)
role, name, gate, seconds = sys.argv[1], sys.argv[2].encode(), sys.argv[3], float(sys.argv[4])
libc.prctl(15, b"sem-" + role.encode(), 0, 0, 0)  # PR_SET_NAME
libc.sem_open.restype = ctypes.c_void_p
libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
libc.sem_wait.argtypes = libc.sem_post.argtypes = [ctypes.c_void_p]
if role == "holder":
    sem = libc.sem_open(name, os.O_CREAT | os.O_EXCL, 0o600, 1)
    if sem in (None, 0xffffffffffffffff) or libc.sem_wait(sem) != 0:
        sys.exit("holder: sem_open/sem_wait failed: %d" % ctypes.get_errno())
    open(gate + ".held", "w").close()
    with open(gate) as g:
        g.readline()
    time.sleep(seconds)
    libc.sem_post(sem)
else:
    with open(gate, "w") as g:
        g.write("go\n")
    sem = libc.sem_open(name, 0, 0, 0)
    if sem in (None, 0xffffffffffffffff) or libc.sem_wait(sem) != 0:
        sys.exit("waiter: sem_open/sem_wait failed: %d" % ctypes.get_errno())
    libc.sem_post(sem)
EOF
mkfifo "$WORK/gate"
sem=/argus-shm-sem-$$
trap 's=$?; rm -f "/dev/shm/sem.${sem#/}"; (exit $s); cleanup' EXIT

# run NAME SECONDS: the holder, then the recorded waiter
run() {
    rm -f "$WORK/gate.held" "/dev/shm/sem.${sem#/}"
    spawn $py "$WORK/sem.py" holder "$sem" "$WORK/gate" "$2"
    holder=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.held"
    record "$1" $py "$WORK/sem.py" waiter "$sem" "$WORK/gate" 0
    wait "$holder" || { say "the holder failed"; exit 1; }
}
run normal 0
run hang 2

truth proc sem-waiter
truth hang "$RECORDED_PID sem-waiter/main"
truth culprit "$holder sem-holder/main"
truth ending timeout
truth why "the waiter's sem_wait blocked on a POSIX named semaphore (a futex in shared memory, at another address in each process) that the other process, sem-holder ($holder), held while it slept 2 s; its sem_post woke the waiter"
