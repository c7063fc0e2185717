#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_snapshot.sh: postgres-cdc with scan.startup.mode 'initial' into the postgres sink,
# against the PostgreSQL 15 of scripts/postgres (fails, never skips, when it cannot be
# reached). Two tables (a one-column bigint key, 60,000 rows; a (text, int) key, 3,000
# rows) are read by a catalog job:
#   - the job is killed with SIGKILL while the snapshot of the big table is being written
#     (rows in the sink, not all of them); the slot's confirmed position has not moved from
#     where it was created (nothing is confirmed during the snapshot);
#   - inserts, updates (one moving a key) and deletes commit while the job is down;
#   - the job runs again: it resumes the big table after the stored key (it reads fewer rows
#     than the table has), then streams from the slot: the sink ends equal to the source,
#     row for row (psql over both, EXCEPT both ways, and the counts), and follows changes;
#   - scan.startup.mode 'snapshot' (a bounded INSERT, no slot) copies the composite-key table
#     and ends.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="cs$$"
SLOT="cs_slot_$$"
JOB_PID=
drop_all() {
    [ -n "$JOB_PID" ] && kill -9 "$JOB_PID" 2>/dev/null
    pg_drop_cdc "$S" "$SLOT"
}
trap 'drop_all; e2e_cleanup' EXIT
N=60000
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.big (id bigint PRIMARY KEY, v text, n numeric(12, 2), ts timestamptz);
  INSERT INTO $S.big SELECT i, md5(i::text), i / 7.0, '2024-01-01'::timestamptz + i * interval '1 s'
    FROM generate_series(1, $N) i;
  CREATE TABLE $S.comp (r text, k int, v int, PRIMARY KEY (r, k));
  INSERT INTO $S.comp SELECT chr(65 + i % 26), i, i * 3 FROM generate_series(1, 3000) i" >/dev/null
ok "PostgreSQL at $URL, schema $S: big ($N rows), comp (3000 rows)"

cat >job.sql <<SQL
CREATE TABLE big_src (id BIGINT, v STRING, n DECIMAL(12, 2), ts TIMESTAMP(3),
                      PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 'big', 'slot.name' = '$SLOT', 'scan.snapshot.fetch.size' = '500');
CREATE TABLE big_dst (id BIGINT, v STRING, n DECIMAL(12, 2), ts TIMESTAMP(3),
                      PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.big_copy',
        'sink.buffer-flush.max-rows' = '500');
CREATE JOB big_job AS INSERT INTO big_dst SELECT * FROM big_src;
CREATE TABLE comp_src (r STRING, k INT, v INT, PRIMARY KEY (r, k) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 'comp', 'slot.name' = '${SLOT}_c', 'scan.startup.mode' = 'snapshot');
CREATE TABLE comp_dst (r STRING, k INT, v INT, PRIMARY KEY (r, k) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.comp_copy');
SQL
rsql -f job.sql
expect_rc 0 "create the tables and the job"

# same_tables SRC COPY COLS: the copy equals the source, row for row
same_tables() {
    [ "$(psql_q "SELECT (SELECT count(*) FROM $S.$1) = (SELECT count(*) FROM $S.$2)
        AND NOT EXISTS (SELECT $3 FROM $S.$1 EXCEPT SELECT $3 FROM $S.$2)
        AND NOT EXISTS (SELECT $3 FROM $S.$2 EXCEPT SELECT $3 FROM $S.$1)" 2>/dev/null)" = t ]
}
copied() { [ "$(psql_q "SELECT count(*) > 0 FROM $S.big_copy" 2>/dev/null)" = t ]; }
slot_lsn() { psql_q "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '$SLOT'"; }
slot_made() { [ -n "$(slot_lsn)" ]; }

# ---- the first run, killed during the snapshot
"$RSQL" --catalog "$CAT" run big_job >run1.log 2>&1 &
JOB_PID=$!
wait_until 60 slot_made || fail "no slot $SLOT: $(cat run1.log)"
LSN0=$(slot_lsn)
wait_until 60 copied || fail "no row of the snapshot in the sink: $(cat run1.log)"
kill -9 "$JOB_PID"
wait "$JOB_PID" 2>/dev/null || true
JOB_PID=
HAD=$(psql_q "SELECT count(*) FROM $S.big_copy")
[ "$HAD" -gt 0 ] && [ "$HAD" -lt "$N" ] ||
    fail "the kill did not land during the snapshot ($HAD of $N rows written)"
ok "killed (SIGKILL) during the snapshot: $HAD of $N rows in the sink"
same "$(slot_lsn)" "$LSN0" "the slot's confirmed position did not move during the snapshot"
STORED=$(psql_q "SELECT max(\"offset\") FROM $S.rocketsql_positions
                   WHERE partition = 'snapshot:$S.big'" 2>/dev/null || true)
[ -n "$STORED" ] || STORED=$(psql_q "SELECT string_agg(partition || '=' || \"offset\", ' ')
                                       FROM $S.rocketsql_positions")
ok "stored positions: snapshot:$S.big at $STORED"

# ---- changes while the job is down
psql_q "INSERT INTO $S.big VALUES (0, 'zero', 0, NULL), ($((N + 1)), 'after', 1.5, '2026-01-02 03:04:05.678+00');
  UPDATE $S.big SET v = 'changed' WHERE id % 1000 = 7;
  UPDATE $S.big SET id = $((N + 100)) WHERE id = 3;
  DELETE FROM $S.big WHERE id BETWEEN 100 AND 149 OR id = $((N - 1))" >/dev/null
ok "inserts, updates (one moving a key) and deletes while the job is down"

# ---- the second run: resume, then stream
"$RSQL" --catalog "$CAT" run big_job >run2.log 2>&1 &
JOB_PID=$!
wait_until 120 same_tables big big_copy "id, v, n, ts" ||
    fail "the sink does not equal the source: $(psql_q "SELECT count(*) FROM $S.big_copy") rows
$(cat run2.log)"
ok "the sink equals the source row for row ($(psql_q "SELECT count(*) FROM $S.big_copy") rows)"
# a change while it streams
psql_q "UPDATE $S.big SET v = 'streamed' WHERE id < 20; DELETE FROM $S.big WHERE id = 20" >/dev/null
wait_until 60 same_tables big big_copy "id, v, n, ts" || fail "a streamed change is missing"
ok "and after changes streamed"
kill "$JOB_PID"
wait_pid "$JOB_PID" 30
JOB_PID=
grep -q "resuming .*snapshot:$S.big at [1-9]" run2.log ||
    fail "the second run did not resume the snapshot: $(head -n 3 run2.log)"
READ=$(sed -n 's/.*read=\([0-9]*\) .*/\1/p' run2.log | tail -n 1)
[ -n "$READ" ] && [ "$READ" -lt "$N" ] || fail "the second run read $READ rows: not a resume"
ok "the second run resumed after the stored key (read $READ rows, the table has $N)"

# ---- scan.startup.mode 'snapshot': bounded, no slot
rsql -e "INSERT INTO comp_dst SELECT * FROM comp_src"
expect_rc 0 "scan.startup.mode 'snapshot' ends"
same_tables comp comp_copy "r, k, v" || fail "the snapshot copy of comp differs"
ok "the snapshot copy of comp equals the source"
same "$(psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${SLOT}_c'")" 0 \
    "no slot for 'snapshot'"
echo "$n_checks passed, 0 failed"
