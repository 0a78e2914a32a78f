#!/bin/bash
# lowprio-holder: `flock FILE true` (util-linux, recorded) blocks on a file
# lock held by a python3 process (lock-holder) that runs at nice 19 and
# needs only 30 ms of CPU before it lets the lock go; but a CPU hog at
# nice 0 (stress-ng --cpu 1) shares its CPU (both pinned to CPU 1), and the
# holder gets about 1.5% of it: its 30 ms take about 2 s. The holder is
# runnable, not blocked, nearly all that time. A priority inversion: the
# waiter (nice 0, on any CPU) waits on a low-priority holder starved by a
# third, unrelated process. The holder waits at a gate fifo that the
# recorded command opens before it execs flock. Normal run: no hog (the
# holder's 30 ms of CPU take 30 ms).
# Truth: fixtures/real/lowprio-holder/truth.
. "$(dirname "$0")/lib.sh"
need_root
need flock:util-linux taskset:util-linux nice:coreutils stress-ng:stress-ng pgrep:procps
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
lock=$WORK/lockfile
: > "$lock"

# the holder: takes the lock (flock), says so, waits for the gate, then
# computes until it has used 30 ms of CPU, and exits (which releases it)
cat > "$WORK/holder.py" <<'EOF'
import ctypes, fcntl, sys, time
ctypes.CDLL(None).prctl(15, b"lock-holder", 0, 0, 0)  # PR_SET_NAME
f = open(sys.argv[1], "r+")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2] + ".held", "w").close()
with open(sys.argv[2]) as gate:
    gate.readline()
end = time.process_time() + 0.03
n = 1
while time.process_time() < end:
    for i in range(1000):
        n = (n * 48271 + i) % 2147483647
EOF
mkfifo "$WORK/gate"

# run NAME HOG: the holder (and with HOG=1 the hog first), then the
# recorded waiter
run() {
    rm -f "$WORK/gate.held"
    if [ "$2" = 1 ]; then
        spawn taskset -c 1 stress-ng --cpu 1 --timeout 30 -q
        stressng=$SPAWNED_PID
        wait_for 10 pgrep -P "$stressng"
        hog=$(pgrep -P "$stressng" | head -1)
        sleep 0.5
    fi
    spawn taskset -c 1 nice -n 19 $py "$WORK/holder.py" "$lock" "$WORK/gate"
    holder=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.held"
    record "$1" sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" flock "$lock" true
    wait "$holder" || { say "the holder failed"; exit 1; }
    [ "$2" = 1 ] && stop "$stressng"
    return 0
}
run normal 0
run hang 1
grep -q "^ *stress-ng-cpu-$hog " "$OUT/hang.txt" || { say "the hog $hog never ran as stress-ng-cpu"; exit 1; }

truth proc flock
truth hang "$RECORDED_PID flock/main"
truth culprit "$hog stress-ng-cpu/main"
truth ending runnable
truth why "the lock's holder, lock-holder ($holder, nice 19), needed 30 ms of CPU before it released the lock, but stayed runnable about 2 s behind the CPU hog stress-ng-cpu ($hog, nice 0) on its CPU"
