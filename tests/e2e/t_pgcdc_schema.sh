#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_schema.sh: the postgres-cdc source's schema-change.mode 'follow' and truncate.mode
# 'apply', streaming (scan.startup.mode 'latest-offset') from the real PostgreSQL of
# scripts/postgres (this test fails, never skips, when it cannot be reached), as a role that
# is NOT a superuser (LOGIN REPLICATION, owner of the tables):
#   1. follow, into a sqlite sink applying the changes by key: a column added (not read) and
#      a read int column retyped to bigint (values past 2^31 after it): the job goes on and
#      the sink equals psql's view of the read columns; then a read column (v) dropped: the
#      job goes on, warns once naming the table and the column, and the sink equals psql's
#      view where v is NULL for every row inserted or updated after the drop and the value
#      it had before the drop for the others (kept by psql in a table outside the
#      publication before the drop; the rows changed after it are marked in the added
#      column);
#      a run started after the drop (v missing at its start: a warning, NULL for the rows
#      changed) converges the same way, and a snapshot ('initial', a new slot) of the table
#      without v gives v NULL in every row;
#   2. follow: a dropped column the rocketsql table declares NOT NULL still stops the job,
#      naming the table and the column; a column retyped to a type that does not convert
#      (int -> text into BIGINT) stops it too;
#   3. truncate.mode 'apply' into sqlite (through a WHERE that a row of NULLs would not pass)
#      and into postgres (two jobs, two slots): rows, a
#      TRUNCATE (alone, and inside a transaction between inserts), rows after: each sink
#      equals the source (psql); kill -9 of both jobs right after a TRUNCATE's transaction
#      committed, restart: still equal;
#   4. 'apply' into print or blackhole is refused at planning, naming truncate.mode and the
#      sinks that can (sqlite, postgres); with table-name matching two tables the job stops at
#      its start, naming both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
S="cdcs$$"
ROLE="cdcsu$$"
. "$(dirname "$0")/pgcdc_lib.sh"

# cdc_table NAME SLOT TABLES COLUMNS [EXTRA-OPTIONS]: a postgres-cdc table of the role
cdc_table() {
    echo "CREATE TABLE $1 ($4)
          WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PORT',
            'database-name' = 'rocketsql', 'username' = '$ROLE', 'schema-name' = '$S',
            'table-name' = '$3', 'slot.name' = '$2', 'scan.startup.mode' = 'latest-offset'${5:-});"
}
# converge DESCRIPTION SRC-FN DST-FN: until DST-FN prints what SRC-FN prints (60 s at most)
converge() {
    local i
    for ((i = 0; i < 600; i++)); do
        [ "$($2)" = "$($3)" ] && { ok "$1: $($2 | wc -l) rows equal"; return 0; }
        sleep 0.1
    done
    diff <($2) <($3) | head -20 >&2
    fail "$1: the sink does not equal the source after 60 s"
}

# ---- 1. follow: a column added, a read column retyped, a read column dropped
as_role "CREATE TABLE $S.t (id int PRIMARY KEY, v text, n int)" >/dev/null
rsql -e "$(cdc_table src ${S}_t 't' 'id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED' \
            ", 'schema-change.mode' = 'follow'")
         CREATE TABLE dst (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dst.db', 'table' = 'dst')"
expect_rc 0 "create src, dst"
start_job j1 "INSERT INTO dst SELECT id, v, n FROM src"
wait_slot_active ${S}_t
# the source's view: id, v ('<null>' for NULL), n
t_src() { psql_q "SELECT id, coalesce(v, '<null>'), n FROM $S.t ORDER BY id" | tr '|' ' '; }
t_dst() { sqlite3 "$T/dst.db" "SELECT id, coalesce(v, '<null>'), n FROM dst ORDER BY id" 2>/dev/null | tr '|' ' '; }
as_role "INSERT INTO $S.t SELECT i, 'v' || i, i FROM generate_series(1, 40) i" >/dev/null
converge "follow: before any change of the table" t_src t_dst
as_role "ALTER TABLE $S.t ADD COLUMN w text; INSERT INTO $S.t VALUES (41, 'v41', 41, 'x');
         UPDATE $S.t SET w = 'y', v = v || '+' WHERE id % 5 = 0" >/dev/null
converge "follow: a column added (not read)" t_src t_dst
as_role "ALTER TABLE $S.t ALTER COLUMN n TYPE bigint;
         INSERT INTO $S.t VALUES (42, 'v42', 5000000000); UPDATE $S.t SET n = n + 4000000000 WHERE id <= 3" >/dev/null
converge "follow: n retyped int -> bigint (values past 2^31 after it)" t_src t_dst
[ "$(sqlite3 "$T/dst.db" "SELECT n FROM dst WHERE id = 42")" = 5000000000 ] || fail "n of 42 in the sink"
kill -0 "$JOB" 2>/dev/null || fail "the job ended: $(tail -3 j1.err)"
# the drop: psql keeps v as it was, outside the publication; rows changed after are w = 'after'
as_role "CREATE TABLE $S.vsave AS SELECT id, v FROM $S.t; ALTER TABLE $S.t DROP COLUMN v;
         UPDATE $S.t SET n = n + 1, w = 'after' WHERE id % 4 = 0;
         INSERT INTO $S.t (id, n, w) SELECT i, i, 'after' FROM generate_series(43, 50) i;
         DELETE FROM $S.t WHERE id IN (1, 2)" >/dev/null
# after the drop: v is NULL for a row inserted or updated since, the value from before for the others
t_src_dropped() {
    psql_q "SELECT t.id, CASE WHEN t.w = 'after' THEN '<null>' ELSE coalesce(s.v, '<null>') END, t.n
            FROM $S.t t LEFT JOIN $S.vsave s USING (id) ORDER BY t.id" | tr '|' ' '
}
converge "follow: v dropped (NULL for the rows changed after, as before for the others)" t_src_dropped t_dst
[ "$(sqlite3 "$T/dst.db" "SELECT count(*) FROM dst WHERE v IS NULL")" -ge 18 ] ||
    fail "too few NULLs of v in the sink"
kill -0 "$JOB" 2>/dev/null || fail "the job ended after the drop: $(tail -3 j1.err)"
n_warn=$(grep -c "table $S.t: column 'v' was dropped or renamed: it reads as NULL" j1.err || true)
same "$n_warn" 1 "one warning names the table and the dropped column"
kill -INT "$JOB"
wait_exit "$JOB" 30
# a run started after the drop: v is missing at the start (a warning), NULL for what changes
as_role "UPDATE $S.t SET n = n + 1, w = 'after' WHERE id IN (3, 5); INSERT INTO $S.t (id, n, w) VALUES (51, 51, 'after')" >/dev/null
start_job j1b "INSERT INTO dst SELECT id, v, n FROM src"
wait_slot_active ${S}_t
as_role "UPDATE $S.t SET n = n + 1, w = 'after' WHERE id = 6" >/dev/null
converge "follow: a run started after the drop (the changes in between, and after)" t_src_dropped t_dst
grep -q "column 'v' does not exist in table $S.t: it reads as NULL (schema-change.mode 'follow')" j1b.err ||
    fail "no warning at the start: $(tail -3 j1b.err)"
ok "the run started after the drop warns that v reads as NULL"
kill -INT "$JOB"
wait_exit "$JOB" 30
# a snapshot (scan.startup.mode 'initial', a new slot) of the table without v: v NULL in every row
rsql -e "$(cdc_table srci ${S}_ti 't' 'id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED'             ", 'schema-change.mode' = 'follow'" | sed "s/'latest-offset'/'initial'/")
         CREATE TABLE dsti (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dsti.db', 'table' = 'dsti')"
expect_rc 0 "create srci, dsti"
start_job j1c "INSERT INTO dsti SELECT id, v, n FROM srci"
t_src_nov() { psql_q "SELECT id, '<null>', n FROM $S.t ORDER BY id" | tr '|' ' '; }
t_dsti() { sqlite3 "$T/dsti.db" "SELECT id, coalesce(v, '<null>'), n FROM dsti ORDER BY id" 2>/dev/null | tr '|' ' '; }
converge "follow: the snapshot of the table after the drop (v NULL in every row)" t_src_nov t_dsti
kill -INT "$JOB"
wait_exit "$JOB" 30

# ---- 2. follow: a NOT NULL column dropped, a retype that does not convert
as_role "CREATE TABLE $S.u (id int PRIMARY KEY, v text, n int)" >/dev/null
rsql -e "$(cdc_table srcu ${S}_u 'u' 'id BIGINT, v STRING NOT NULL, n BIGINT, PRIMARY KEY (id) NOT ENFORCED' \
            ", 'schema-change.mode' = 'follow'")
         CREATE TABLE dstu (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dstu.db', 'table' = 'dstu')"
expect_rc 0 "create srcu, dstu"
start_job j2 "INSERT INTO dstu SELECT id, v, n FROM srcu"
wait_slot_active ${S}_u
as_role "INSERT INTO $S.u VALUES (1, 'a', 1); ALTER TABLE $S.u DROP COLUMN v; INSERT INTO $S.u VALUES (2, 2)" >/dev/null
wait_exit "$JOB" 60
[ "$JRC" != 0 ] || fail "the job went on after a NOT NULL column was dropped"
grep -q "table $S.u changed while the job ran: column 'v'.*NOT NULL or in its PRIMARY KEY" j2.err ||
    fail "NOT NULL dropped: $(tail -3 j2.err)"
ok "follow: a NOT NULL column dropped still stops the job, naming the table and the column"
as_role "CREATE TABLE $S.x (id int PRIMARY KEY, n int)" >/dev/null
rsql -e "$(cdc_table srcx ${S}_x 'x' 'id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED' \
            ", 'schema-change.mode' = 'follow'")
         CREATE TABLE dstx (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dstx.db', 'table' = 'dstx')"
expect_rc 0 "create srcx, dstx"
start_job j3 "INSERT INTO dstx SELECT id, n FROM srcx"
wait_slot_active ${S}_x
as_role "INSERT INTO $S.x VALUES (1, 1); ALTER TABLE $S.x ALTER COLUMN n TYPE text; INSERT INTO $S.x VALUES (2, 'two')" >/dev/null
wait_exit "$JOB" 60
[ "$JRC" != 0 ] || fail "the job went on after n became text"
grep -q "table $S.x changed while the job ran: column 'n'.*changed its type.*VARCHAR) do not convert to the column's BIGINT" j3.err ||
    fail "retyped to text: $(tail -3 j3.err)"
ok "follow: a column retyped to a type that does not convert stops the job: $(grep -o "column 'n'[^(]*" j3.err | head -1)"

# ---- 3. truncate.mode 'apply' into sqlite and postgres
as_role "CREATE TABLE $S.p (id int PRIMARY KEY, v text);
         CREATE TABLE $S.psink (id bigint PRIMARY KEY, v text)" >/dev/null
rsql -e "$(cdc_table srcp1 ${S}_p1 'p' 'id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED' ", 'truncate.mode' = 'apply'")
         $(cdc_table srcp2 ${S}_p2 'p' 'id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED' ", 'truncate.mode' = 'apply'")
         CREATE TABLE dstp (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dstp.db', 'table' = 'dstp');
         CREATE TABLE pgp (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.psink')"
expect_rc 0 "create srcp1, srcp2, dstp, pgp"
p_src() { psql_q "SELECT id, coalesce(v, '<null>') FROM $S.p ORDER BY id" | tr '|' ' '; }
p_sqlite() { sqlite3 "$T/dstp.db" "SELECT id, coalesce(v, '<null>') FROM dstp ORDER BY id" 2>/dev/null | tr '|' ' '; }
p_pg() { psql_q "SELECT id, coalesce(v, '<null>') FROM $S.psink ORDER BY id" | tr '|' ' '; }
start_jobs() {
    # WHERE id > 0 keeps every row of the source, and would drop a row of NULLs: the -T
    # passes it untouched
    start_job "$1a" "INSERT INTO dstp SELECT id, v FROM srcp1 WHERE id > 0"
    JA=$JOB
    wait_slot_active ${S}_p1
    start_job "$1b" "INSERT INTO pgp SELECT id, v FROM srcp2"
    JB=$JOB
    wait_slot_active ${S}_p2
}
start_jobs j4
as_role "INSERT INTO $S.p SELECT i, 'p' || i FROM generate_series(1, 100) i" >/dev/null
converge "apply, sqlite: rows before the TRUNCATE" p_src p_sqlite
converge "apply, postgres: rows before the TRUNCATE" p_src p_pg
as_role "TRUNCATE $S.p" >/dev/null
converge "apply, sqlite: TRUNCATE alone (empty)" p_src p_sqlite
converge "apply, postgres: TRUNCATE alone (empty)" p_src p_pg
as_role "INSERT INTO $S.p SELECT i, 'q' || i FROM generate_series(1, 30) i;
         BEGIN; INSERT INTO $S.p SELECT i, 'r' || i FROM generate_series(31, 60) i;
         UPDATE $S.p SET v = 'upd' WHERE id <= 5; TRUNCATE $S.p;
         INSERT INTO $S.p SELECT i, 's' || i FROM generate_series(50, 70) i; COMMIT;
         UPDATE $S.p SET v = 'after' WHERE id % 7 = 0; DELETE FROM $S.p WHERE id > 68" >/dev/null
converge "apply, sqlite: rows, a TRUNCATE inside a transaction, rows after" p_src p_sqlite
converge "apply, postgres: rows, a TRUNCATE inside a transaction, rows after" p_src p_pg
# kill -9 right after a TRUNCATE's transaction committed, then a restart
as_role "INSERT INTO $S.p SELECT i, 't' || i FROM generate_series(100, 300) i" >/dev/null
as_role "BEGIN; TRUNCATE $S.p; INSERT INTO $S.p SELECT i, 'k' || i FROM generate_series(1, 10) i; COMMIT" >/dev/null
kill -9 "$JA" "$JB"
wait "$JA" 2>/dev/null || true
wait "$JB" 2>/dev/null || true
ok "both jobs killed (-9) right after the TRUNCATE's transaction (sqlite has $(p_sqlite | wc -l) rows, postgres $(p_pg | wc -l))"
as_role "INSERT INTO $S.p SELECT i, 'z' || i FROM generate_series(11, 20) i" >/dev/null
start_jobs j5
converge "apply, sqlite: after kill -9 and restart" p_src p_sqlite
converge "apply, postgres: after kill -9 and restart" p_src p_pg
kill -INT "$JA" "$JB"
wait_exit "$JA" 30
wait_exit "$JB" 30

# ---- 4. apply into a sink that cannot empty its table; table-name matching two tables
rsql -e "CREATE TABLE bh (id BIGINT, v STRING) WITH ('connector' = 'blackhole');
         CREATE TABLE pr (id BIGINT, v STRING) WITH ('connector' = 'print')"
expect_rc 0 "create bh, pr"
for sink in bh pr; do
    rsql -e "INSERT INTO $sink SELECT id, v FROM srcp1"
    [ "$RC" != 0 ] && grep -q "truncate.mode 'apply'" <<<"$ERR" && grep -q "by key (sqlite, postgres)" <<<"$ERR" ||
        fail "apply into $sink: $OUT $ERR"
    ok "apply into $sink is refused at planning: $ERR"
done
same "$(psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${S}_p1' AND active")" 0 \
    "the refused statements never started the slot"
rsql -e "$(cdc_table srcpu ${S}_pu 'p|u' 'id BIGINT, PRIMARY KEY (id) NOT ENFORCED' ", 'truncate.mode' = 'apply'")
         CREATE TABLE dstpu (id BIGINT, PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dstpu.db', 'table' = 'dstpu')"
expect_rc 0 "create srcpu, dstpu"
rsql -e "INSERT INTO dstpu SELECT id FROM srcpu"
[ "$RC" != 0 ] && grep -q "truncate.mode 'apply' needs schema-name and table-name to match exactly one table.*match 2: $S.p, $S.u" <<<"$ERR" ||
    fail "apply over two tables: $OUT $ERR"
ok "apply over two tables stops the job at its start: $ERR"
echo PASS
