#!/bin/bash
# wait-child: a python3 program (named gz-waiter) starts `gzip -9` on a big
# input (base64 text of /dev/urandom, sized so that gzip computes about
# 2.5 s on this machine: calibrated first) and waits for it in
# os.waitpid (wait4). Normal run: the same on a 16 KB input (a few ms).
# Truth: the waiter's main thread hangs in wait4; the culprit is gzip,
# computing; argus must be asked with --proc gz-waiter (a parent's wait
# for its child is not a hang with no flag: SPIN-IDLE).
# Truth: fixtures/real/wait-child/truth.
. "$(dirname "$0")/lib.sh"
need_root
need gzip:gzip base64:coreutils
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"

# the waiter: gzip -9 argv[1] into argv[1].gz, its pid written to argv[2],
# then waits for it
cat > "$WORK/waiter.py" <<'EOF'
import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(15, b"gz-waiter", 0, 0, 0)  # PR_SET_NAME
with open(sys.argv[1], "rb") as src, open(sys.argv[1] + ".gz", "wb") as dst:
    child = subprocess.Popen(["gzip", "-9", "-c"], stdin=src, stdout=dst)
with open(sys.argv[2], "w") as f:
    f.write("%d\n" % child.pid)
pid, status = os.waitpid(child.pid, 0)
sys.exit(0 if status == 0 else 1)
EOF

head -c 12288 /dev/urandom | base64 > "$WORK/small"
# calibrate: gzip -9 of 4 MB, then a size for about 2.5 s (loaded by N
# CPU hogs, LOAD_CPU=N: 2.5 s / (N + 1) of gzip's CPU, about 2.5 s of
# wall time behind the hogs)
target=$((2500 / (${LOAD_CPU:-0} + 1)))
head -c 3145728 /dev/urandom | base64 > "$WORK/one"
t0=$(date +%s%N)
gzip -9 -c "$WORK/one" > /dev/null
ms=$((($(date +%s%N) - t0) / 1000000 + 1))
n=$((target / ms))
[ $n -ge 2 ] || n=2
[ $n -le 40 ] || n=40
say "4 MB in $ms ms: $((n * 4)) MB"
head -c $((n * 3145728)) /dev/urandom | base64 > "$WORK/big"
cat "$WORK/big" > /dev/null  # in the page cache

# START_DELAY=S (late-start): a shell sleeps S seconds, then execs the
# waiter (the same pid): the program starts its work long after the
# recorder released it
start=()
[ -z "${START_DELAY:-}" ] || start=(sh -c 'sleep "$0"; exec "$@"' "$START_DELAY")
record normal "${start[@]}" $py "$WORK/waiter.py" "$WORK/small" "$WORK/small.pid"
record hang "${start[@]}" $py "$WORK/waiter.py" "$WORK/big" "$WORK/big.pid"
gzip -t "$WORK/big.gz" || { say "gzip failed"; exit 1; }
child=$(cat "$WORK/big.pid")

truth proc gz-waiter
truth hang "$RECORDED_PID gz-waiter/main"
truth culprit "$child gzip/main"
# loaded (wait-child-loaded): gzip's work is a fixed amount, so the hog's
# workers, which gzip waited behind for the CPU, lengthened the hang too:
# either is as right as gzip
for w in ${LOAD_WORKERS:-}; do
    truth culprit "$w stress-ng-cpu/main"
done
truth ending running
truth why "the python3 program waited in os.waitpid (wait4) for its child gzip -9 ($child), which compressed a big input ($target ms of CPU on this machine when quiet)${START_DELAY:+; the program was started $START_DELAY s late by a shell}"
