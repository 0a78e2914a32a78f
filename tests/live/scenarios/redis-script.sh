#!/bin/bash
# redis-script: redis-cli waits for its reply over a UNIX socket while
# redis-server's main thread runs a long Lua script (EVAL of a busy loop
# of about 2 s of CPU; normal run: the same loop of 1000 rounds). The
# server computes in its main thread the whole time: the chain ends there,
# running. Truth: fixtures/real/redis-script/truth.
. "$(dirname "$0")/lib.sh"
need_root
need redis-server:redis-server redis-cli:redis-tools
sock=$WORK/redis.sock
spawn redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --save '' --appendonly no \
    --dir "$WORK" --daemonize no --loglevel warning --logfile "$WORK/redis.log"
server=$SPAWNED_PID
wait_for 10 redis-cli -s "$sock" ping
loop='local n = 0 for i = 1, tonumber(ARGV[1]) do n = n + 1 end return n'
# calibrate (not recorded): how many rounds make about 2 s of CPU on
# this machine, by the server's CPU time (schedstat, ns), which other
# load on the machine does not stretch as it does the wall-clock time
cpu_ns() { cut -d' ' -f1 "/proc/$server/task/$server/schedstat"; }
t0=$(cpu_ns)
redis-cli -s "$sock" EVAL "$loop" 0 100000000 > /dev/null
t1=$(cpu_ns)
rounds=$((100000000 * 2000 / ((t1 - t0) / 1000000 + 1)))
say "calibrated: $rounds rounds for about 2 s"
record normal redis-cli -s "$sock" EVAL "$loop" 0 1000 > "$WORK/normal.out"

record hang redis-cli -s "$sock" EVAL "$loop" 0 "$rounds" > "$WORK/hang.out"
truth proc redis-cli
truth hang "$RECORDED_PID redis-cli/main"
truth culprit "$server redis-server/main"
truth ending running
truth why "redis-server's main thread ran a Lua script (EVAL of a busy loop, about 2 s of CPU) before it wrote the reply"
grep -qx 1000 "$WORK/normal.out" && grep -qx "$rounds" "$WORK/hang.out" ||
    { say "EVAL failed: $(cat "$WORK"/*.out)"; exit 1; }
