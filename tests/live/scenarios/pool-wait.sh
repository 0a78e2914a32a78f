#!/bin/bash
# pool-wait: xz compresses N MiB of base64 text (from /dev/urandom) with 2
# worker threads (-T2 -6 --block-size=1MiB: N blocks); its main thread
# reads the input into the workers' buffers and otherwise waits on a
# condition variable (futex, with xz's 300 ms timeout) while the workers
# compute. N is calibrated first (one 1 MiB block timed with -T1) so
# that the run lasts about 2 s on this machine. Normal run: a 16 KB input
# (one block, a few ms). Truth: the main thread hangs
# on the workers; the culprits are the two workers (the busier first),
# found in the trace by their run time (sched_switch).
# Truth: fixtures/real/pool-wait/truth.
. "$(dirname "$0")/lib.sh"
need_root
need xz:xz-utils base64:coreutils
head -c 16384 /dev/urandom | base64 > "$WORK/small"
# calibrate: the time of one block, then N blocks for about 2 s on 2 threads
head -c 786432 /dev/urandom | base64 -w0 > "$WORK/one"
t0=$(date +%s%N)
xz -T1 -6 -k -f "$WORK/one"
ms=$((($(date +%s%N) - t0) / 1000000 + 1))
n=$((5000 / ms))
[ $n -ge 4 ] || n=4
[ $n -le 24 ] || n=24
say "one block in $ms ms: $n blocks"
head -c $((n * 786432)) /dev/urandom | base64 -w0 > "$WORK/big"

record normal xz -T2 -6 --block-size=1MiB -k -f "$WORK/small"

record hang xz -T2 -6 --block-size=1MiB -k -f "$WORK/big"
[ -s "$WORK/big.xz" ] && xz -t "$WORK/big.xz" || { say "xz failed"; exit 1; }

# run time per thread of xz's process (from sched_switch), busiest first
busy=$(awk -v tgid="$RECORDED_PID" '
    /sched_switch:/ {
        cpu = $0; sub(/.*\[/, "", cpu); sub(/\].*/, "", cpu)
        ts = $0; sub(/: sched_switch:.*/, "", ts); sub(/.* /, "", ts)
        prev = $0; sub(/.* prev_pid=/, "", prev); sub(/ .*/, "", prev)
        next_ = $0; sub(/.* next_pid=/, "", next_); sub(/ .*/, "", next_)
        if (cpu in since && cur[cpu] == prev) ran[prev] += ts - since[cpu]
        since[cpu] = ts; cur[cpu] = next_
    }
    /^ *[^#]/ {
        t = $0; sub(/^ *.*-/, "", t); sub(/ .*/, "", t)
        g = $0; sub(/^[^(]*\( */, "", g); sub(/\).*/, "", g)
        if (g == tgid) mine[t] = 1
    }
    END { for (t in ran) if ((t in mine) && t != tgid) printf "%s %.3f\n", t, ran[t] }
' "$OUT/hang.txt" | sort -k2,2nr)
say "worker run times (tid s): $(echo "$busy" | tr "\n" " ")"
[ "$(echo "$busy" | wc -l)" -ge 2 ] || { say "fewer than 2 worker threads in the trace"; exit 1; }

truth proc xz
truth hang "$RECORDED_PID xz/main"
echo "$busy" | head -2 | while read -r tid _; do
    truth culprit "$tid xz/xz"
done
truth ending running
truth why "xz's main thread waited on a condition variable (futex) for its 2 worker threads, which computed (LZMA2 -6) its 1 MiB blocks for about 2 s"
