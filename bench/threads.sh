#!/usr/bin/env bash
# bench/threads.sh: how `argus diagnose` scales with the number of threads
# and processes, and with the number of hangs (docs/performance.md), on
# ftrace text from bench/gen-threads.py. Run by `make bench` (after
# bench/run.sh) or alone once the programs are built.
#
# A return to quadratic time fails it (exit 1): between two sizes, the
# CPU time may grow at most as (size ratio)^1.5 (linear: the ratio; quadratic:
# its square), so 200k to 1M threads may take at most 11.2 times as long.
#
# Environment:
#   BENCH_THREADS       thread counts (4 threads a process, no hang;
#                       default "100000 200000 1000000")
#   BENCH_HANG_THREADS  thread counts where every thread is a process's
#                       main thread and hangs (default "25000 100000")
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(mktemp -d "${TMPDIR:-/tmp}/argus-bench-threads.XXXXXX")
trap 'rm -rf "$out"' EXIT

# run LABEL N PER_PROCESS [hangs]: prints "N WALL_S CPU_S MAXRSS_KB" (CPU:
# user + system of every process, what the check compares: on a shared
# machine the wall time is mostly the others' load)
run() {
    local label=$1 n=$2
    shift 2
    python3 bench/gen-threads.py "$n" "$@" > "$out/trace.txt"
    /usr/bin/time -f "%e %U %S %M" -o "$out/time" bin/argus diagnose "$out/trace.txt" \
        > "$out/report.txt" 2> /dev/null || true
    grep -q '^Trace: ' "$out/report.txt" || { echo "$label $n: no report" >&2; exit 1; }
    local wall user sys kb
    read -r wall user sys kb < <(tail -n 1 "$out/time")
    echo "$n $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') $kb"
}

# check LABEL: reads run's lines, prints the table's rows and fails when
# a step's CPU time grows faster than (size ratio)^1.5
check() {
    local label=$1 prev_n="" prev_s="" n wall s kb failed=0
    while read -r n wall s kb; do
        printf '| %s | %s | %s s | %s s | %s MB |\n' "$label" "$n" "$wall" "$s" "$((kb / 1024))"
        if [ -n "$prev_n" ] && awk -v a="$prev_n" -v b="$n" -v ta="$prev_s" -v tb="$s" \
            'BEGIN { exit !(tb > 0.5 && tb / (ta > 0.05 ? ta : 0.05) > (b / a) ^ 1.5) }'; then
            echo "bench/threads.sh: $label: $prev_n to $n took $prev_s s to $s s of CPU: more than (size ratio)^1.5, quadratic?" >&2
            failed=1
        fi
        prev_n=$n prev_s=$s
    done
    return $failed
}

echo "| trace | threads | argus diagnose | CPU | max RSS |"
echo "|---|---:|---:|---:|---:|"
status=0
for n in ${BENCH_THREADS-100000 200000 1000000}; do run threads "$n" 4; done |
    check "threads, 4 a process" || status=1
for n in ${BENCH_HANG_THREADS-25000 100000}; do run hangs "$n" 1 hangs; done |
    check "a hang per thread" || status=1
exit $status
