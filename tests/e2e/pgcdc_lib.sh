# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/pgcdc_lib.sh: the preamble of the postgres-cdc e2e tests that stream from the
# real PostgreSQL of scripts/postgres, sourced after lib.sh and pg_lib.sh with S (a schema
# name, also the prefix of the test's slots and publications) and ROLE set. It connects
# (pg_connect: fails, never skips, when the server cannot be reached), sets PORT, makes ROLE
# (LOGIN REPLICATION, NOT a superuser) the owner of schema S, drops all of it at exit (the
# inactive slots named S*, the publications rsql_S*, the schema, the role), and defines:
#   psql_q SQL                 psql in the rocketsql database, stopping at the first error
#   as_role SQL                psql_q as ROLE
#   start_job NAME SQL         rocketsql runs SQL in the background (NAME.out, NAME.err), pid in JOB
#   wait_slot_active SLOT      until the job streams from SLOT (its walsender attached)
#   wait_exit PID SECONDS      until PID ends; JRC is its exit status
pg_connect
PORT=${URL##*:}
PORT=${PORT%%/*}
psql_q() { "$PGS" psql -v ON_ERROR_STOP=1 -tA -c "$1"; }
pgcdc_cleanup() {
    psql_q "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
            WHERE slot_name LIKE '${S}%' AND NOT active" >/dev/null 2>&1 || true
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true
    psql_q "SELECT 'DROP PUBLICATION ' || quote_ident(pubname) FROM pg_publication
            WHERE pubname LIKE 'rsql_${S}%'" 2>/dev/null | while read -r q; do
        [ -n "$q" ] && psql_q "$q" >/dev/null 2>&1 || true
    done
    psql_q "REVOKE CREATE ON DATABASE rocketsql FROM $ROLE; DROP OWNED BY $ROLE; DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1 || true
    e2e_cleanup
}
trap pgcdc_cleanup EXIT
psql_q "CREATE ROLE $ROLE LOGIN REPLICATION; CREATE SCHEMA $S AUTHORIZATION $ROLE;
        GRANT CREATE ON DATABASE rocketsql TO $ROLE" >/dev/null ||
    fail "psql cannot reach $URL"
[ "$(psql_q "SELECT rolsuper FROM pg_roles WHERE rolname = '$ROLE'")" = f ] || fail "role is a superuser"
ok "PostgreSQL at $URL, schema $S, role $ROLE (REPLICATION, not a superuser)"
as_role() { psql_q "SET ROLE $ROLE; $1"; }

start_job() {
    "$RSQL" --catalog "$CAT" -e "$2" >"$1.out" 2>"$1.err" &
    JOB=$!
    e2e_pids="$e2e_pids $JOB"
}

wait_slot_active() {
    local i
    for ((i = 0; i < 300; i++)); do
        [ "$(psql_q "SELECT active FROM pg_replication_slots WHERE slot_name = '$1'")" = t ] && return 0
        kill -0 "$JOB" 2>/dev/null || fail "the job ended before streaming: $(tail -5 ./*.err 2>/dev/null)"
        sleep 0.1
    done
    fail "slot $1 is not active after 30 s"
}

wait_exit() {
    local i
    for ((i = 0; i < $2 * 10; i++)); do
        if ! kill -0 "$1" 2>/dev/null; then
            set +e
            wait "$1"
            JRC=$?
            set -e
            return 0
        fi
        sleep 0.1
    done
    fail "the job did not end within $2 s"
}
