#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_positions_read.sh: a postgres sink that cannot read its stored positions does not
# start the job from the catalog's (older or, here, missing) positions, which would write
# committed rows a second time. Against the real PostgreSQL of scripts/postgres (this test
# fails, never skips, when it cannot be reached); the job runs as a role of its own, and each
# run after the first has a new catalog (no offsets: only rocketsql_positions says where the
# rows end):
#   1. the role loses SELECT on rocketsql_positions: the run fails at once (permanent, no
#      retry) with PostgreSQL's message, and writes nothing;
#   2. another session holds rocketsql_positions locked (ACCESS EXCLUSIVE) and the role's
#      lock_timeout is 2 s: reading the positions fails transiently; the lock is released
#      once the run either logs a retry of its open or waits to store positions (which only
#      a run that went on without them does); the run must have retried and then resumed
#      from the stored position: every row once (a sink that took the failed read for "no
#      positions" wrote the first 200 rows a second time).
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="pr$$" # a schema and a role of our own, dropped at the end
R="rsql_pr$$"
pg_cleanup() {
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE; DROP ROLE IF EXISTS $R" >/dev/null 2>&1 || true
}
pg_cleanup
psql_q "CREATE ROLE $R LOGIN; CREATE SCHEMA $S; GRANT USAGE, CREATE ON SCHEMA $S TO $R" >/dev/null
trap 'pg_cleanup; e2e_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S, role $R"

rows() { python3 -c "
for i in range($1, $2 + 1):
    print('{\"id\":%d}' % i)"; }
rows 1 200 >in.jsonl
cat >tables.sql <<SQL
CREATE TABLE src (id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'in.jsonl');
CREATE TABLE dst (id BIGINT) WITH ('connector' = 'postgres', 'url' = '$URL',
  'table-name' = '$S.t', 'username' = '$R');
SQL
# fresh N: a new catalog with the tables (the same pipeline, no offsets)
fresh() {
    CAT="$T/catalog$1.db"
    rsql -f tables.sql
    expect_rc 0 "catalog $1: the tables"
}
fresh 1
rsql -e "INSERT INTO dst SELECT * FROM src"
expect_rc 0 "the first run"
same "$(psql_q "SELECT count(*) FROM $S.t")" 200 "200 rows written"

# ---- 1. no privilege to read the positions: fails at once, writes nothing
psql_q "REVOKE SELECT ON $S.rocketsql_positions FROM $R" >/dev/null
fresh 2
rsql -e "INSERT INTO dst SELECT * FROM src"
expect_rc 2 "a run that cannot read rocketsql_positions"
case "$ERR" in
*"reading the positions stored with the sink's rows: postgres sink $S.t: cannot read \
rocketsql_positions: permission denied for table rocketsql_positions (SQLSTATE 42501)"*)
    ok "it fails with PostgreSQL's message" ;;
*) fail "the error: $ERR" ;;
esac
case "$ERR" in *retry*) fail "a permanent failure was retried: $ERR" ;; esac
ok "not retried (permanent)"
same "$(psql_q "SELECT count(*), count(DISTINCT id) FROM $S.t")" "200|200" \
    "nothing written again"
psql_q "GRANT SELECT ON $S.rocketsql_positions TO $R" >/dev/null

# ---- 2. the positions locked: retried until they can be read, then every row once
rows 201 300 >>in.jsonl
psql_q "ALTER ROLE $R SET lock_timeout = '2s'" >/dev/null
PGAPPNAME=rsql_holder "$PGS" psql -tA -c "BEGIN; LOCK TABLE $S.rocketsql_positions IN ACCESS
    EXCLUSIVE MODE; SELECT pg_sleep(300)" >/dev/null 2>&1 &
holder=$!
e2e_pids="$holder"
held() { [ "$(psql_q "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                       WHERE l.locktype = 'relation' AND l.granted
                         AND l.mode = 'AccessExclusiveLock'
                         AND a.application_name = 'rsql_holder'")" = 1 ]; }
wait_until 20 held || fail "psql did not lock rocketsql_positions"
fresh 3
"$RSQL" --catalog "$CAT" -e "INSERT INTO dst SELECT * FROM src" >run3.out 2>run3.err &
run=$!
e2e_pids="$holder $run"
retried() {
    grep -q "source open failed (BUSY, transient), retry .*reading the positions stored with \
the sink's rows: .*cannot read rocketsql_positions: .*(SQLSTATE 55P03)" run3.err
}
storing() { [ "$(psql_q "SELECT count(*) FROM pg_stat_activity WHERE usename = '$R'
                          AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO%'")" != 0 ]; }
retried_or_storing() { retried || storing; }
wait_until 60 retried_or_storing || fail "the run neither retried nor went on: $(cat run3.err)"
same "$(psql_q "SELECT count(*) FROM $S.t")" 200 "nothing written while they cannot be read"
psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'rsql_holder'" >/dev/null
wait_pid "$run" 60
e2e_pids=""
wait "$holder" 2>/dev/null || true
[ "$RC" = 0 ] || fail "the run once the lock is gone: exit $RC: $(cat run3.err)"
same "$(psql_q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $S.t")" \
    "300|300|1|300" "it resumed from the stored position: every row once"
retried || fail "no retry of the source open logged: $(cat run3.err)"
ok "reading the locked positions failed transiently and the open was retried"
echo PASS
