#!/bin/bash
# flock-wait: `flock FILE true` (recorded) blocks in flock(2) while another
# `flock FILE CMD` holds the lock and runs CMD, a `sleep 2` (util-linux
# flock takes the lock, forks, execs CMD in the child and waits for it in
# wait4; the lock is on the open file both share, so it is released when
# the holder flock exits after its child). The holder is started before
# the recording; its child, a glue sh, waits for a gate fifo and then
# execs `sleep 2` (same pid), and the recorded command's first act,
# before it execs flock, is to open that gate. Normal run: no holder.
# Truth: fixtures/real/flock-wait/truth.
. "$(dirname "$0")/lib.sh"
need_root
need flock:util-linux sleep:coreutils pgrep:procps
lock=$WORK/lockfile
: > "$lock"

record normal flock "$lock" true

mkfifo "$WORK/gate"
spawn flock "$lock" sh -c 'read _ < "$0"; exec sleep 2' "$WORK/gate"
holder=$SPAWNED_PID
# the child exists once the holder has the lock (flock locks, then forks)
wait_for 10 pgrep -P "$holder"
child=$(pgrep -P "$holder")
if flock -n "$lock" true; then say "the holder does not hold the lock"; exit 1; fi
record hang sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" flock "$lock" true
wait "$holder" || { say "the holder failed"; exit 1; }

truth proc flock
truth hang "$RECORDED_PID flock/main"
truth culprit "$child sleep/main"
truth ending timeout
truth why "the other flock ($holder) held the lock on the file while its command, sleep 2 ($child), ran; the waiter's flock(2) returned when that command ended and the holder exited"
