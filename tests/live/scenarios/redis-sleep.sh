#!/bin/bash
# redis-sleep: redis-cli waits for its reply over loopback TCP while
# redis-server's main thread sleeps (DEBUG SLEEP 2; normal run: DEBUG
# SLEEP 0). The reply is written from inside redis-server's write, and the
# receiver is woken by the NET_RX softirq that write runs.
# Truth: fixtures/real/redis-sleep/truth.
. "$(dirname "$0")/lib.sh"
need_root
need redis-server:redis-server redis-cli:redis-tools
start_redis
server=$REDIS_PID port=$REDIS_PORT
record normal redis-cli -h 127.0.0.1 -p "$port" DEBUG SLEEP 0 > "$WORK/normal.out"
record hang redis-cli -h 127.0.0.1 -p "$port" DEBUG SLEEP 2 > "$WORK/hang.out"
truth proc redis-cli
truth hang "$RECORDED_PID redis-cli/main"
truth culprit "$server redis-server/main"
truth ending timeout
truth why "redis-server's main thread slept 2 s (DEBUG SLEEP 2) before it wrote the reply"
grep -qx OK "$WORK/normal.out" && grep -qx OK "$WORK/hang.out" ||
    { say "DEBUG SLEEP failed: $(cat "$WORK"/*.out)"; exit 1; }
