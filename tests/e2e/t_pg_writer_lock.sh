#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_writer_lock.sh: a postgres sink whose connection broke writes nothing again until it
# holds its pipeline's writer lock. Against the real PostgreSQL of scripts/postgres (fails,
# never skips, when it cannot be reached). A job runs as a role of its own; its connection is
# cut while the role may not connect, another session takes the pipeline's writer lock (as
# the backend of a connection that broke may hold it, still committing), then the role may
# connect again: the sink's new connection waits for the lock until its lock_timeout (30 s).
# Once that wait failed, the sink must connect and wait again, never write beside the
# holder (a sink that kept the connection whose lock wait failed wrote on it, unlocked).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="wl$$" # a schema and a role of our own, dropped at the end
R="rsql_wl$$"
pg_cleanup() {
    psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE usename = '$R' OR application_name = 'rsql_wl_holder'" >/dev/null 2>&1 || true
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE; DROP ROLE IF EXISTS $R" >/dev/null 2>&1 || true
}
pg_cleanup
psql_q "CREATE ROLE $R LOGIN; CREATE SCHEMA $S; GRANT USAGE, CREATE ON SCHEMA $S TO $R" >/dev/null
trap 'e2e_cleanup; pg_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S, role $R"

rsql -e "
CREATE TABLE src (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000000');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.t', 'username' = '$R', 'sink.buffer-flush.interval' = '200ms')"
expect_rc 0 "the tables"
"$RSQL" --catalog "$CAT" --log-level info -e "INSERT INTO dst SELECT * FROM src" \
    >run.out 2>run.err &
run=$!
e2e_pids="$run"
count() { psql_q "SELECT count(*) FROM $S.t" 2>/dev/null; }
positions() { [ "$(psql_q "SELECT count(*) FROM $S.rocketsql_positions" 2>/dev/null)" = 1 ]; }
wait_until 30 positions || fail "the job stored no position: $(cat run.err)"
PIPELINE=$(psql_q "SELECT pipeline FROM $S.rocketsql_positions")
KEY="rocketsql:$S.t:$PIPELINE"
ok "the job writes (pipeline '$PIPELINE')"

# the role may not connect; its connection is cut; the writer lock is taken by another session
psql_q "ALTER ROLE $R CONNECTION LIMIT 0" >/dev/null
psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$R'" >/dev/null
PGAPPNAME=rsql_wl_holder "$PGS" psql -tA -c "SELECT pg_advisory_lock(hashtextextended('$KEY', 0));
    SELECT pg_sleep(300)" >/dev/null 2>&1 &
holder=$!
e2e_pids="$run $holder"
held() { [ "$(psql_q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                       WHERE l.locktype = 'advisory' AND l.granted
                         AND a.application_name = 'rsql_wl_holder'")" = 1 ]; }
wait_until 30 held || fail "the holder did not take the writer lock"
N=$(count)
psql_q "ALTER ROLE $R CONNECTION LIMIT -1" >/dev/null
# the sink connects again and waits for the lock
waiting() { psql_q "SELECT pid FROM pg_stat_activity WHERE usename = '$R'
                    AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock%'"; }
first_wait() { [ -n "$(waiting)" ]; }
wait_until 60 first_wait || fail "the sink did not wait for the writer lock: $(tail -5 run.err)"
W1=$(waiting)
ok "the sink's new connection waits for the writer lock (backend $W1)"
# its wait fails after 30 s (lock_timeout); then it either waits again on a new connection or
# (wrongly) writes on the connection whose wait failed
again_or_written() {
    [ "$(count)" != "$N" ] && return 0
    local w
    w=$(waiting)
    [ -n "$w" ] && [ "$w" != "$W1" ]
}
wait_until 90 again_or_written || fail "the sink neither waited again nor wrote: $(tail -5 run.err)"
same "$(count)" "$N" "nothing written while another session holds the writer lock"

# the holder goes: the sink takes the lock and writes again
psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'rsql_wl_holder'" >/dev/null
wait "$holder" 2>/dev/null || true
e2e_pids="$run"
more() { [ "$(count)" -gt "$N" ]; }
wait_until 120 more || fail "the sink wrote nothing once the lock was free: $(tail -5 run.err)"
ok "once the lock is free the sink writes again"
kill -TERM "$run"
wait_pid "$run" 60
e2e_pids=""
same "$(psql_q "SELECT count(*) - count(DISTINCT id) FROM $S.t")" 0 "no row twice"
echo PASS
