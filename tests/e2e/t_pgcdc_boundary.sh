#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_boundary.sh: the snapshot/stream boundary of postgres-cdc ('initial') into the
# postgres sink, against the PostgreSQL 15 of scripts/postgres (fails, never skips, when it
# cannot be reached). A writer commits small transactions (an upsert, an update, a delete,
# and a key moved to another) on random keys of a 40,000-row table without pause, before the
# job starts, while its snapshot is read and after its stream started; it stops only once
# the stream has delivered (the sink stored a position of the slot's partition). Then the
# sink must equal the source, row for row (psql: counts, EXCEPT both ways): every
# transaction committed before the slot's consistent point is in the snapshot, every later
# one in the stream, none lost and none applied out of order. The test checks that writes
# did commit while the snapshot was being written.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="cb$$"
SLOT="cb_slot_$$"
JOB_PID=
WRITER=
drop_all() {
    touch "$T/stop"
    [ -n "$WRITER" ] && kill "$WRITER" 2>/dev/null
    [ -n "$JOB_PID" ] && kill -9 "$JOB_PID" 2>/dev/null
    pg_drop_cdc "$S" "$SLOT"
}
trap 'drop_all; e2e_cleanup' EXIT
N=40000
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.t (id bigint PRIMARY KEY, v text, n int);
  INSERT INTO $S.t SELECT i, md5(i::text), 0 FROM generate_series(1, $N) i" >/dev/null
ok "PostgreSQL at $URL, schema $S: $N rows"

cat >job.sql <<SQL
CREATE TABLE src (id BIGINT, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 't', 'slot.name' = '$SLOT', 'scan.snapshot.fetch.size' = '200');
CREATE TABLE dst (id BIGINT, v STRING, n INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.copy',
        'sink.buffer-flush.max-rows' = '200');
CREATE JOB j AS INSERT INTO dst SELECT * FROM src;
SQL
rsql -f job.sql
expect_rc 0 "create the tables and the job"

# the writer: one transaction per psql call, each counted in writes.log once committed
K=$((N * 2))
writer() {
    while [ ! -e "$T/stop" ]; do
        "$PGS" psql -v ON_ERROR_STOP=1 -q -c "BEGIN;
          WITH r AS (SELECT (random() * $K)::bigint AS id)
            INSERT INTO $S.t SELECT id, md5(random()::text), 1 FROM r
            ON CONFLICT (id) DO UPDATE SET v = excluded.v, n = $S.t.n + 1;
          WITH r AS (SELECT (random() * $K)::bigint AS id)
            UPDATE $S.t SET v = 'u' || left(v, 8), n = n + 1 FROM r WHERE $S.t.id = r.id;
          WITH r AS (SELECT (random() * $K)::bigint AS id)
            DELETE FROM $S.t USING r WHERE $S.t.id = r.id;
          WITH r AS (SELECT (random() * $K)::bigint AS id, (random() * $K)::bigint + $K AS to_id)
            UPDATE $S.t SET id = r.to_id FROM r WHERE $S.t.id = r.id
              AND NOT EXISTS (SELECT 1 FROM $S.t x WHERE x.id = r.to_id);
          COMMIT" >/dev/null 2>>writer.err && echo w >>writes.log
    done
}
: >writes.log
writer &
WRITER=$!
e2e_pids="$e2e_pids $WRITER"
n_writes() { wc -l <writes.log; }
writes_above() { [ "$(n_writes)" -gt "$1" ]; }
wait_until 30 writes_above 0 || fail "the writer commits nothing: $(cat writer.err)"

copied() { [ "$(psql_q "SELECT count(*) > 0 FROM $S.copy" 2>/dev/null)" = t ]; }
streamed() {
    [ "$(psql_q "SELECT count(*) FROM $S.rocketsql_positions WHERE partition = '$SLOT'" \
        2>/dev/null)" = 1 ]
}
"$RSQL" --catalog "$CAT" run j >run.log 2>&1 &
JOB_PID=$!
wait_until 60 copied || fail "no row of the snapshot in the sink: $(cat run.log)"
W1=$(n_writes)
wait_until 120 streamed || fail "the stream delivered nothing: $(cat run.log)"
W2=$(n_writes)
[ "$W2" -gt "$W1" ] || fail "no write committed while the snapshot was written ($W1, $W2)"
ok "writes committed while the snapshot was being written (transactions $W1 to $W2)"
writes_now=$(n_writes)
wait_until 30 writes_above "$((writes_now + 5))" || fail "the writer stopped early"
touch "$T/stop"
wait "$WRITER" || true
WRITER=
ok "the writer stopped after $(n_writes) transactions, some streamed"

same_tables() {
    [ "$(psql_q "SELECT (SELECT count(*) FROM $S.t) = (SELECT count(*) FROM $S.copy)
        AND NOT EXISTS (SELECT id, v, n FROM $S.t EXCEPT SELECT id, v, n FROM $S.copy)
        AND NOT EXISTS (SELECT id, v, n FROM $S.copy EXCEPT SELECT id, v, n FROM $S.t)" \
        2>/dev/null)" = t ]
}
wait_until 120 same_tables || fail "the sink does not equal the source:
$(psql_q "SELECT 'source', * FROM (SELECT id, v, n FROM $S.t EXCEPT SELECT id, v, n FROM $S.copy) a
          UNION ALL SELECT 'sink', * FROM (SELECT id, v, n FROM $S.copy EXCEPT SELECT id, v, n FROM $S.t) b
          LIMIT 10")"
ok "the sink equals the source row for row ($(psql_q "SELECT count(*) FROM $S.copy") rows)"
kill "$JOB_PID"
wait_pid "$JOB_PID" 30
JOB_PID=
echo "$n_checks passed, 0 failed"
