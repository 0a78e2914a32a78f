#!/bin/bash
# cpu-starved: redis-cli (SCHED_FIFO priority 1, pinned to CPU 1) asks
# redis-server (pinned to CPU 0) for DEBUG SLEEP 0.3. While it waits, a
# CPU hog starts on CPU 1: stress-ng --cpu 1 at SCHED_FIFO priority 50 for
# 2 s. The server replies at 0.3 s and wakes the client at once, but the
# client, runnable, gets no CPU until the hog's worker (stress-ng-cpu)
# ends: RT throttling gives the 5% it leaves to SCHED_OTHER tasks, not to
# a lower RT priority. Normal run: the same request without the hog.
# Truth: fixtures/real/cpu-starved/truth.
. "$(dirname "$0")/lib.sh"
need_root
need redis-server:redis-server redis-cli:redis-tools stress-ng:stress-ng \
    taskset:util-linux chrt:util-linux timeout:coreutils
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
start_redis taskset -c 0
port=$REDIS_PORT

# the driver (glue, in $WORK): the client in the background (its pid in
# RUN.cli), then, with HOG=1, the hog on the client's CPU while the
# client waits. Usage: driver.sh RUN HOG
cat > "$WORK/driver.sh" <<DRIVER
taskset -c 1 chrt -f 1 redis-cli -h 127.0.0.1 -p $port DEBUG SLEEP 0.3 > "$WORK/\$1.out" &
echo \$! > "$WORK/\$1.cli"
if [ "\$2" = 1 ]; then
    sleep 0.05
    timeout 10 taskset -c 1 chrt -f 50 stress-ng --cpu 1 --timeout 2 -q &
    echo \$! > "$WORK/hog.pid"
fi
wait
DRIVER
record normal bash "$WORK/driver.sh" normal 0

record hang bash "$WORK/driver.sh" hang 1
cli=$(cat "$WORK/hang.cli")
# timeout forks the child that execs taskset, chrt, stress-ng, which
# forks its worker stress-ng-cpu: both forks are in the trace
child_of() {
    grep -m1 -oE "sched_process_fork: comm=[^ ]+ pid=$1 child_comm=[^ ]+ child_pid=[0-9]+" "$OUT/hang.txt" |
        sed 's/.*child_pid=//'
}
stressng=$(child_of "$(cat "$WORK/hog.pid")")
hog=$(child_of "${stressng:-none}")
[ -n "$hog" ] || { say "no stress-ng worker in the trace"; exit 1; }
grep -q "^ *stress-ng-cpu-$hog " "$OUT/hang.txt" || { say "worker $hog never ran as stress-ng-cpu"; exit 1; }
grep -qx OK "$WORK/normal.out" && grep -qx OK "$WORK/hang.out" ||
    { say "DEBUG SLEEP failed: $(cat "$WORK"/*.out)"; exit 1; }
# the client must have been woken while the hog ran, and waited >= 1 s
starved=$(awk -v p="$cli" '
    $0 ~ "sched_wakeup: comm=redis-cli pid=" p " " { w = $0; sub(/:.*/, "", w); n = split(w, f, " "); woke = f[n] }
    woke && $0 ~ "next_pid=" p " " { r = $0; sub(/: sched_switch.*/, "", r); n = split(r, f, " "); print f[n] - woke; exit }
' "$OUT/hang.txt")
say "client $cli runnable for ${starved:-?} s"
awk -v s="${starved:-0}" 'BEGIN { exit !(s >= 1.0) }' || { say "the client was not starved"; exit 1; }
truth proc redis-cli
truth hang "$cli redis-cli/main"
truth culprit "$hog stress-ng-cpu/main"
truth ending runnable
truth why "redis-server replied after 0.3 s and woke redis-cli at once, but the client (SCHED_FIFO 1, pinned to CPU 1) stayed runnable until the SCHED_FIFO 50 CPU hog stress-ng-cpu on CPU 1 ended 2 s after it started"
