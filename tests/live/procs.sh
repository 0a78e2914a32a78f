# The processes a live script starts, each ended by its pid (sourced by
# tests/live/scenarios/lib.sh and bench/probe-cost.sh; the sourcing script
# defines say, and calls stop_spawned on its way out).

SPAWNED=()

# stop PID...: SIGTERM, up to 5 s to end, then SIGKILL.
stop() {
    local pid i
    for pid in "$@"; do
        kill -TERM "$pid" 2>/dev/null || continue
        for i in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}

# stop_spawned: stops every process spawn started, the latest first
# (clients before the servers they talk to).
stop_spawned() {
    local i
    for ((i = ${#SPAWNED[@]} - 1; i >= 0; i--)); do
        stop "${SPAWNED[$i]}"
    done
}

# spawn CMD...: runs CMD in the background, ended at exit; its pid is in
# $SPAWNED_PID.
spawn() {
    "$@" &
    SPAWNED_PID=$!
    SPAWNED+=("$SPAWNED_PID")
}

# wait_for SECONDS CMD...: until CMD succeeds, polling every 50 ms; fails
# (exit 1, naming CMD) after SECONDS.
wait_for() {
    local limit=$1 i
    shift
    for i in $(seq $((limit * 20))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    say "gave up after ${limit} s waiting for: $*"
    exit 1
}
