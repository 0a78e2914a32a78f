#!/bin/bash
# pg-rowlock: psql session W (recorded) runs `UPDATE t SET v=v+1 WHERE
# id=1;` while session H holds that row's lock: H has run `BEGIN; UPDATE
# t SET v=v+1 WHERE id=1;` and then runs `SELECT pg_sleep(2); COMMIT;`.
# W's psql waits in poll() for its backend's reply; W's backend sleeps on
# its lock semaphore (a futex), woken once by deadlock_timeout (1 s) to
# check for deadlocks, and for good when H's backend commits. The
# `pg_sleep(2); COMMIT;` reaches H's psql (reading its stdin from a fifo)
# once the recording has begun: the recorded command's first act, before
# it execs psql, is to write it into that fifo. A PostgreSQL cluster of
# its own under $WORK, unix socket only (listen_addresses=''). Normal
# run: no H. Truth: fixtures/real/pg-rowlock/truth.
. "$(dirname "$0")/lib.sh"
need_root
need setpriv:util-linux
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] && [ -x "$pgbin/psql" ] ||
    skip "needs PostgreSQL (apt-get install postgresql)"
id postgres >/dev/null 2>&1 || skip "needs the postgres user (apt-get install postgresql)"
as_pg() { setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"; }

chmod 755 "$WORK"
mkdir "$WORK/data" "$WORK/sock"
chown postgres:postgres "$WORK/data" "$WORK/sock"
as_pg "$pgbin/initdb" -D "$WORK/data" -U postgres --auth=trust -E UTF8 --no-sync \
    > "$WORK/initdb.log" 2>&1 || { say "initdb failed: $(tail -3 "$WORK/initdb.log")"; exit 1; }
spawn setpriv --reuid=postgres --regid=postgres --init-groups -- "$pgbin/postgres" -D "$WORK/data" -k "$WORK/sock" -c listen_addresses='' \
    -c fsync=off -c autovacuum=off -c deadlock_timeout=1s > "$WORK/pg.log" 2>&1

psql=("$pgbin/psql" -X -q -h "$WORK/sock" -U postgres -d postgres -v ON_ERROR_STOP=1)
wait_for 20 "$pgbin/pg_isready" -q -h "$WORK/sock"
"${psql[@]}" -c 'CREATE TABLE t(id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0);'

record normal "${psql[@]}" -c 'UPDATE t SET v=v+1 WHERE id=1;'

# H: psql reading its SQL from a fifo this script writes (fd 8, opened
# read-write so that no open blocks); through sh, since a background
# command's stdin is /dev/null unless its own
mkfifo "$WORK/h.in"
exec 8<> "$WORK/h.in"
spawn sh -c 'exec "$@" < "$0" > "$0.out" 2>&1 8>&-' "$WORK/h.in" "${psql[@]}"
holder_psql=$SPAWNED_PID
echo 'BEGIN; UPDATE t SET v=v+1 WHERE id=1;' >&8
in_tx() {
    [ -n "$("${psql[@]}" -Atc "SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction'")" ]
}
wait_for 10 in_tx
holder=$("${psql[@]}" -Atc "SELECT pid FROM pg_stat_activity WHERE state = 'idle in transaction'")
record hang sh -c 'echo "SELECT pg_sleep(2); COMMIT;" > "$0"; exec "$@"' "$WORK/h.in" \
    "${psql[@]}" -c 'UPDATE t SET v=v+1 WHERE id=1;'
exec 8>&-
wait "$holder_psql" || { say "session H failed: $(cat "$WORK/h.in.out")"; exit 1; }

truth proc psql
truth hang "$RECORDED_PID psql/main"
truth culprit "$holder postgres/main"
truth ending timeout
truth why "the backend $holder serving session H held the row lock of t.id=1 (its UPDATE, not yet committed) while it slept in pg_sleep(2); W's backend waited on that lock, so W's psql waited for its reply"
v=$("${psql[@]}" -Atc 'SELECT v FROM t WHERE id=1')
[ "$v" = 3 ] || { say "t.v is $v, not 3"; exit 1; }
