#!/bin/bash
# cpu-quota: cat (coreutils, recorded) reads a fifo that a python3
# producer (quota-producer) writes only after it has used 200 ms of CPU;
# the producer runs in a cgroup of its own whose CPU quota is 10% (cgroup
# v1 cpu controller: cfs_quota_us 10000 per cfs_period_us 100000), so its
# 200 ms take about 2 s: it is throttled (switched out runnable while over
# its quota), neither blocked nor held up by another task. The producer is
# started before the recording, holds the fifo open for writing and waits
# at a gate; the recorded command opens the gate before it execs cat.
# Normal run: the producer outside the quota (200 ms).
# Truth: fixtures/real/cpu-quota/truth.
. "$(dirname "$0")/lib.sh"
need_root
need cat:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
cpu=/sys/fs/cgroup/cpu
[ -w "$cpu/cgroup.procs" ] && [ -e "$cpu/cpu.cfs_quota_us" ] ||
    skip "needs the cgroup v1 cpu controller at $cpu (CFS quota)"
group=$cpu/argus-cpu-quota-$$
mkdir "$group"
trap 's=$?; stop_spawned; rmdir "$group" 2>/dev/null; (exit $s); cleanup' EXIT
echo 100000 > "$group/cpu.cfs_period_us"
echo 10000 > "$group/cpu.cfs_quota_us"

cat > "$WORK/producer.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"quota-producer", 0, 0, 0)  # PR_SET_NAME
out = os.open(sys.argv[1], os.O_RDWR)
open(sys.argv[2] + ".ready", "w").close()
with open(sys.argv[2]) as g:
    g.readline()
end = time.process_time() + 0.2
n = 1
while time.process_time() < end:
    for i in range(1000):
        n = (n * 48271 + i) % 2147483647
os.write(out, b"ok\n")
EOF
mkfifo "$WORK/pipe" "$WORK/gate"

# run NAME GROUP: the producer (in GROUP's cgroup, or none), then the
# recorded cat
run() {
    rm -f "$WORK/gate.ready"
    spawn sh -c '[ -z "$0" ] || echo $$ > "$0/cgroup.procs"; exec "$@"' "$2" \
        $py "$WORK/producer.py" "$WORK/pipe" "$WORK/gate"
    producer=$SPAWNED_PID
    wait_for 10 test -e "$WORK/gate.ready"
    record "$1" sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" cat "$WORK/pipe"
    wait "$producer" || { say "the producer failed"; exit 1; }
}
run normal ""
run hang "$group"

truth proc cat
truth hang "$RECORDED_PID cat/main"
truth culprit "$producer quota-producer/main"
truth ending runnable
truth why "cat waited for the fifo's data, which the producer (quota-producer, $producer) wrote only after 200 ms of CPU; in a cgroup with a 10% CPU quota those took about 2 s: it was throttled (runnable but over its quota, 10% of the time on a CPU whatever else ran), not blocked"
