#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_serve.sh: a postgres-cdc job in serve mode, against the real PostgreSQL 15 of
# scripts/postgres (this test fails, never skips, when it cannot be reached):
#   1. /metrics has rocketsql_replication_slot_lag_bytes{job,slot} for the job's slot and
#      passes `promtool check metrics`;
#   2. while the job is stopped (dropped from serve), WAL written to a captured table grows the
#      slot's lag as the server itself reports it (pg_replication_slots), and once the job runs
#      again and has written the rows, its metric falls back below that lag: the metric follows
#      the server's count, checked against pg_current_wal_lsn() - confirmed_flush_lsn;
#   3. SHOW JOB RUNS' detail names the slot and its LSNs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus)"
command -v curl >/dev/null || fail "curl is needed"
pg_connect
PGPORT_=${URL##*:}
PGPORT_=${PGPORT_%%/*}
S="cdcsv$$"
SLOT="${S}_slot"
cleanup() {
    [ -z "${SPID:-}" ] || kill -9 "$SPID" 2>/dev/null || true
    pg_drop_cdc "$S" "$SLOT"
    e2e_cleanup
}
trap cleanup EXIT
psql_q "CREATE SCHEMA $S; CREATE TABLE $S.t (id int PRIMARY KEY, v text)" >/dev/null

rsql -e "CREATE TABLE src (id INT, v STRING)
           WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
                 'table-name' = 't', 'slot.name' = '$SLOT', 'scan.startup.mode' = 'latest-offset',
                 'heartbeat.interval.ms' = '500');
         CREATE TABLE dst (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
           WITH ('connector' = 'sqlite', 'path' = '$T/dst.db', 'table' = 'dst');
         SET 'state.flush-interval' = '200ms';
         CREATE JOB cdc AS INSERT INTO dst SELECT id, v FROM src"
expect_rc 0 "catalog with a postgres-cdc job"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$RSQL" --catalog "$CAT" --log-level info serve --http "127.0.0.1:$PORT" >"$T/serve.out" 2>"$T/serve.err" &
SPID=$!
e2e_pids="$e2e_pids $SPID"
metrics() { curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" >"$T/m.txt"; }
# lag_metric: the job's slot lag from /metrics (empty when absent)
lag_metric() {
    metrics || return 1
    sed -n "s/^rocketsql_replication_slot_lag_bytes{job=\"cdc\",slot=\"$SLOT\"} \([0-9]*\)$/\1/p" "$T/m.txt"
}
has_lag() { [ -n "$(lag_metric)" ]; }
slot_active() { [ "$(psql_q "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'")" = t ]; }
wait_until 30 slot_active || fail "the job did not start streaming from $SLOT: $(tail -5 "$T/serve.err")"
wait_until 30 has_lag || fail "no rocketsql_replication_slot_lag_bytes for the job: $(grep -c . "$T/m.txt") lines"
promtool check metrics <"$T/m.txt" >"$T/promtool.out" 2>&1 || fail "promtool: $(cat "$T/promtool.out")"
ok "the slot's lag is a metric of the job; /metrics passes promtool check metrics"

# stop the job (serve keeps running), write WAL to the captured table: the server's lag grows
"$RSQL" --catalog "$CAT" -e "DROP JOB cdc" >"$T/drop.out" 2>&1 || fail "DROP JOB: $(cat "$T/drop.out")"
kill -HUP "$SPID"
slot_inactive() { [ "$(psql_q "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'")" = f ]; }
wait_until 30 slot_inactive || fail "the job did not leave the slot after DROP JOB and SIGHUP"
psql_q "INSERT INTO $S.t SELECT g, repeat('x', 200) FROM generate_series(1, 20000) g" >/dev/null
server_lag() { psql_q "SELECT pg_current_wal_lsn() - confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '$SLOT'"; }
big=$(server_lag)
[ "$big" -gt 1000000 ] || fail "the server's lag for the stopped slot is only $big bytes"
ok "with the job stopped the server keeps $big bytes of WAL for the slot"

rsql -e "CREATE JOB cdc AS INSERT INTO dst SELECT id, v FROM src"
expect_rc 0 "the job again"
kill -HUP "$SPID"
rows_in() { [ "$(sqlite3 -cmd '.timeout 3000' "$T/dst.db" 'SELECT count(*) FROM dst' 2>/dev/null)" = 20000 ]; }
wait_until 60 rows_in || fail "the 20000 rows did not reach the sink"
caught_up() { local m; m=$(lag_metric); [ -n "$m" ] && [ "$m" -lt "$big" ] && [ "$(server_lag)" -lt "$big" ]; }
wait_until 30 caught_up || fail "the lag metric stayed at $(lag_metric) (server: $(server_lag), before: $big)"
m=$(lag_metric)
ok "after the rows were written the metric fell to $m bytes, below the $big the server had kept (server now: $(server_lag))"

"$RSQL" --catalog "$CAT" --tsv -e "SHOW JOB RUNS cdc;" >"$T/runs.tsv" 2>&1 || true
grep -q "\"slot\":\"$SLOT\".*\"lag_bytes\":" "$T/runs.tsv" ||
    fail "SHOW JOB RUNS' detail does not name the slot and its lag: $(head -3 "$T/runs.tsv")"
ok "SHOW JOB RUNS' detail names the slot, its LSNs and lag"
kill -TERM "$SPID"
wait_pid "$SPID" 30
SPID=""
echo PASS
