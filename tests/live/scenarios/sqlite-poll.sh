#!/bin/bash
# sqlite-poll: an sqlite3 writer (B, recorded) waits for a lock another
# sqlite3 process (A, the holder) keeps. A has run `BEGIN EXCLUSIVE;` and
# an INSERT from its stdin (a pipe) and then sits in read(0), idle in
# transaction, until its input sends `COMMIT;` about 2.5 s later. B runs
# with `.timeout 5000`: SQLite's busy handler sleeps 1..100 ms
# (clock_nanosleep) and retries its fcntl(F_SETLK) lock, failing with
# EAGAIN, until A commits; there is no kernel wakeup from A to B. The
# COMMIT is sent by glue (a shell that sleeps 2.5 s) once the recording
# has begun: the recorded command's first act, before it execs sqlite3,
# is to open a gate fifo that starts that shell. Normal run: no holder.
# Truth: fixtures/real/sqlite-poll/truth.
. "$(dirname "$0")/lib.sh"
need_root
need sqlite3:sqlite3
db=$WORK/t.db
sqlite3 "$db" 'CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);'

record normal sqlite3 -cmd '.timeout 5000' "$db" "INSERT INTO t(v) VALUES('normal');"

# A: the holder, reading its SQL from a fifo this script writes (fd 8;
# opened read-write so that neither open blocks)
mkfifo "$WORK/a.in" "$WORK/gate"
exec 8<> "$WORK/a.in"
# (through sh: a background command's stdin is /dev/null unless its own)
spawn sh -c 'exec sqlite3 "$0" < "$1" 8>&-' "$db" "$WORK/a.in"
holder=$SPAWNED_PID
echo "BEGIN EXCLUSIVE; INSERT INTO t(v) VALUES('holder');" >&8
# with the exclusive lock held, a reader without a busy timeout fails
locked() { ! sqlite3 "$db" 'SELECT count(*) FROM t;' >/dev/null 2>&1; }
wait_for 10 locked
# glue: once the gate opens (the recording began), 2.5 s, then COMMIT
# (the sleep in the background, waited for: the same wait4 in the trace,
# and its pid known)
spawn sh -c 'read _ < "$0"; sleep 2.5 & echo $! > "$1"; wait; echo "COMMIT;"; echo .quit' \
    "$WORK/gate" "$WORK/sleep.pid" >&8
feeder=$SPAWNED_PID
exec 8>&-
record hang sh -c 'echo go > "$0"; exec "$@"' "$WORK/gate" \
    sqlite3 -cmd '.timeout 5000' "$db" "INSERT INTO t(v) VALUES('waiter');"
wait "$feeder" "$holder" 2>/dev/null || true

truth proc sqlite3
truth hang "$RECORDED_PID sqlite3/main"
truth culprit "$holder sqlite3/main"
# the chain goes on into the glue that stands for the user who types
# COMMIT late: the holder waits on its stdin, fed by sh, which waits for
# sleep; naming that sleep first (the deepest link) is as right
truth culprit "$(cat "$WORK/sleep.pid") sleep/main"
truth ending idle
truth why "sqlite3 process $holder held the database's exclusive lock (BEGIN EXCLUSIVE) while it sat idle in transaction reading its stdin until COMMIT arrived 2.5 s later; the writer's busy handler slept and retried fcntl(F_SETLK) until then"
n=$(sqlite3 "$db" 'SELECT group_concat(v) FROM t;')
[ "$n" = "normal,holder,waiter" ] || { say "unexpected table contents: $n"; exit 1; }
