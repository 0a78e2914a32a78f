#!/bin/bash
# midwait: a trace that starts in the middle of the wait. redis-cli asks
# redis-server (over loopback TCP) for DEBUG SLEEP 3 and blocks; 0.8 s
# later the recording starts (of `sleep 2.8`, long enough to see the
# reply): the client's blocking sched_switch and the server's falling
# asleep are before the trace, the server's waking, its reply and the
# client's wakeup are in it. Normal run: DEBUG SLEEP 0, recorded whole.
# Truth: fixtures/real/midwait/truth.
. "$(dirname "$0")/lib.sh"
need_root
need redis-server:redis-server redis-cli:redis-tools
start_redis
server=$REDIS_PID port=$REDIS_PORT
record normal redis-cli -h 127.0.0.1 -p "$port" DEBUG SLEEP 0 > "$WORK/normal.out"

# The hang must start before the recording, so this takes the shared
# recording lock itself (as record does) before it starts the client,
# and lets record lock a private file meanwhile: waiting for the lock
# after the client started would lose the moment.
exec 8>"${TMPDIR:-/tmp}/argus-live.lock"
flock -w 1200 8 || { say "another recording held the lock for 20 minutes"; exit 1; }
spawn redis-cli -h 127.0.0.1 -p "$port" DEBUG SLEEP 3 > "$WORK/hang.out"
cli=$SPAWNED_PID
sleep 0.8
[ "$(cat /proc/"$cli"/comm 2>/dev/null)" = redis-cli ] &&
    [ "$(awk '{ print $3 }' /proc/"$cli"/stat)" = S ] || { say "redis-cli $cli is not waiting"; exit 1; }
TMPDIR=$WORK record hang sleep 2.8
flock -u 8
exec 8>&-
wait "$cli" || { say "redis-cli exited $?"; exit 1; }
grep -qx OK "$WORK/normal.out" && grep -qx OK "$WORK/hang.out" ||
    { say "DEBUG SLEEP failed: $(cat "$WORK"/*.out)"; exit 1; }
# the client's first event in the trace is its wakeup (its wait began
# before the trace), and it exits in the trace
first=$(grep -v '^#' "$OUT/hang.txt" | grep -m1 -E -- "-$cli +\(|pid=$cli ") || true
case $first in
*"sched_waking: comm=redis-cli pid=$cli "*) ;;
*) say "the client's first line is not its wakeup: $first"; exit 1 ;;
esac
grep -q "sched_process_exit: comm=redis-cli pid=$cli " "$OUT/hang.txt" || { say "the client did not end in the trace"; exit 1; }
truth proc redis-cli
truth hang "$cli redis-cli/main"
truth culprit "$server redis-server/main"
truth ending timeout
truth why "redis-server's main thread slept 3 s (DEBUG SLEEP 3) before it wrote the reply; the trace starts 0.8 s into the wait, after the client blocked"
