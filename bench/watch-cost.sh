#!/usr/bin/env bash
# bench/watch-cost.sh: what argus-watch costs (docs/performance.md, "What
# argus watch costs"), measured side by side in one run:
#
#   1. Its own CPU time and largest resident size, while it watches for
#      BENCH_WATCH_SECONDS with the machine as it is (idle), and while a
#      build runs (BENCH_WATCH_JOBS loops of GCC's compiler proper on a
#      generated C file of 150 functions, as in a make -jN).
#   2. The slowdown of a syscall-heavy program: dd of 1M one-byte reads and
#      writes (dd if=/dev/zero of=/dev/null bs=1 count=1000000), timed not
#      recorded, under argus-record, under argus-watch and under perf
#      record of the same tracepoints, in rounds whose order turns; each
#      round gives ratios to the run not recorded, the report their median.
#
# Root only (exit 77, the reason on stderr, without root, tracefs, gcc or
# perf: perf's row is left out without it). It holds /tmp/argus-live.lock
# (tests/live) so that no recording of the live tests runs meanwhile.
# Every process it starts is ended by its pid. The Markdown report goes to
# stdout and bench/out/watch-cost/results.md.
#
# Environment:
#   BENCH_WATCH_SECONDS  seconds of each watch (default 20)
#   BENCH_WATCH_JOBS     compiler loops during the build (default 2)
#   BENCH_WATCH_ROUNDS   dd rounds (default 5)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${BENCH_WATCH_SECONDS:-20}
jobs=${BENCH_WATCH_JOBS:-2}
rounds=${BENCH_WATCH_ROUNDS:-5}
out=bench/out/watch-cost
say() { printf 'watch-cost: %s\n' "$*" >&2; }
skip() { say "skipped: $*"; exit 77; }

[ "$(id -u)" = 0 ] || skip "argus-watch needs root"
grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
command -v gcc >/dev/null || skip "needs gcc (apt-get install gcc)"
[ -x bin/argus-watch ] || skip "build first (make)"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/argus-watch-cost.XXXXXX")
. tests/live/procs.sh
trap 'stop_spawned; rm -rf "$work"' EXIT
exec 9>"${TMPDIR:-/tmp}/argus-live.lock"
flock -w 1200 9 || skip "another recording held /tmp/argus-live.lock for 20 minutes"

# watch_for SECONDS: argus-watch's user+sys CPU seconds and max RSS (KB)
watch_for() {
    /usr/bin/time -f '%U %S %M' -o "$work/time" bin/argus-watch -q --no-notify \
        --duration "$1" --dir "$work/hangs" > /dev/null
    awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$work/time"
}

# the build: compiler loops, each compiling its file again and again
build_start() {
    local i cc1
    cc1=$(gcc -print-prog-name=cc1)
    for i in $(seq "$jobs"); do
        python3 -c 'for i in range(150): print(f"int f{i}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {i} ^ (s >> 3); return s; }}")' > "$work/load$i.c"
        spawn bash -c 'while :; do "$0" -quiet -O2 "$1" -o /dev/null; done' "$cc1" "$work/load$i.c"
    done
    sleep 1
}

say "idle: argus-watch for $secs s"
read -r idle_cpu idle_rss < <(watch_for "$secs")
say "build ($jobs compiler loops): argus-watch for $secs s"
build_start
read -r build_cpu build_rss < <(watch_for "$secs")
stop_spawned
SPAWNED=()

# dd under each recorder; the recorder is started, given 2 s to set up,
# and stopped by its pid after dd
dd_seconds() {
    local start end
    start=$(date +%s.%N)
    dd if=/dev/zero of=/dev/null bs=1 count=1000000 2> /dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
run_dd() {
    local how=$1 pid=""
    case $how in
        none) ;;
        record) bin/argus-record -q -o /dev/null & pid=$! ;;
        watch) bin/argus-watch -q --no-notify --dir "$work/hangs" & pid=$! ;;
        perf) perf record -q -a -o "$work/perf.data" -e 'sched:sched_switch' -e 'sched:sched_waking' \
                  -e 'syscalls:sys_enter_read' -e 'syscalls:sys_exit_read' \
                  -e 'syscalls:sys_enter_write' -e 'syscalls:sys_exit_write' 2> /dev/null & pid=$! ;;
    esac
    [ -z "$pid" ] || sleep 2
    dd_seconds
    if [ -n "$pid" ]; then
        kill -INT "$pid"
        wait "$pid" 2> /dev/null || true
    fi
}
hows="none record watch"
command -v perf > /dev/null && hows="$hows perf"
: > "$work/dd"
for r in $(seq "$rounds"); do
    # the order turns from round to round
    set -- $hows
    for _ in $(seq $(( (r - 1) % $# ))); do set -- "${@:2}" "$1"; done
    for how in "$@"; do
        echo "$r $how $(run_dd "$how")" >> "$work/dd"
        say "round $r: $how"
    done
done
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { # ratio HOW: the median over rounds of HOW's time / none's
    awk -v h="$1" '$2 == "none" { n[$1] = $3 } $2 == h { t[$1] = $3 }
        END { for (r in t) print t[r] / n[r] }' "$work/dd" | median
}
median_none=$(awk '$2 == "none" { print $3 }' "$work/dd" | median)

{
    echo "| argus-watch | CPU (user+sys) | of one CPU | max RSS |"
    echo "|---|---|---|---|"
    echo "| idle, ${secs} s | ${idle_cpu} s | $(echo "100 * $idle_cpu / $secs" | bc -l | xargs printf '%.1f')% | $((idle_rss / 1024)) MB |"
    echo "| build ($jobs cc1 loops), ${secs} s | ${build_cpu} s | $(echo "100 * $build_cpu / $secs" | bc -l | xargs printf '%.1f')% | $((build_rss / 1024)) MB |"
    echo
    echo "| dd bs=1 count=1000000 (median of $rounds rounds) | time / not recorded |"
    echo "|---|---|"
    echo "| not recorded | ${median_none} s |"
    for how in $hows; do
        [ "$how" = none ] || echo "| $how | $(ratio "$how")x |"
    done
} | tee "$out/results.md"
