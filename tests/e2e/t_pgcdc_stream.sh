#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_stream.sh: the postgres-cdc source streaming (scan.startup.mode 'latest-offset')
# from the real PostgreSQL 15 of scripts/postgres (started by scripts/test; this test fails,
# never skips, when it cannot be reached), as a role that is NOT a superuser (LOGIN
# REPLICATION, owner of the tables), into a sqlite sink applying the changes by key:
#   1. inserts, updates (one moving a key) and deletes on two tables (one rocketsql table,
#      table-name 'a|b', the table's name a METADATA column in the sink's key): the sink
#      ends equal to the source (psql's SELECT ... ORDER BY against sqlite3's own);
#   2. kill -9 of the job during a stream of small transactions and one large one (the
#      sink commits inside it), then a restart: the sink ends equal to the source, its
#      stored position is at or past the slot's confirmed position, and the slot was
#      created once and still exists (never dropped);
#   3. a TRUNCATE stops the job with an error naming the table;
#   4. a read column dropped stops the job with an error naming the table and the column;
#   5. an update leaving a TOASTed value of a read column unchanged (DEFAULT identity) stops
#      the job with an error naming the table, the column and REPLICA IDENTITY FULL;
#   6. changelog-mode 'upsert' (no -U; a key moved deletes the old key by a -D) converges too;
#   heartbeat: an idle slot confirms the server's position after heartbeat.interval.ms (WAL written
#      to a table outside its publication);
#   7. an unknown decoding.plugin.name, and url with hostname, are errors at CREATE; a column
#      the PostgreSQL table lacks is an error when the job starts, naming it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
S="cdc$$"
ROLE="cdcu$$"
. "$(dirname "$0")/pgcdc_lib.sh"
as_role "CREATE TABLE $S.a (id int PRIMARY KEY, v text, n numeric(10,2), extra text);
         CREATE TABLE $S.b (id bigint PRIMARY KEY, v text, n numeric(10,2))" >/dev/null

# cdc_table NAME SLOT TABLES [EXTRA-OPTIONS]: a postgres-cdc table of the role
cdc_table() {
    echo "CREATE TABLE $1 (id BIGINT, v STRING, n DECIMAL(10, 2),
            tbl STRING METADATA FROM 'table_name', kind STRING METADATA FROM 'row_kind')
          WITH ('connector' = 'postgres-cdc', 'hostname' = '127.0.0.1', 'port' = '$PORT',
            'database-name' = 'rocketsql', 'username' = '$ROLE', 'schema-name' = '$S',
            'table-name' = '$3', 'slot.name' = '$2', 'scan.startup.mode' = 'latest-offset'${4:-});"
}
rsql -e "$(cdc_table src ${S}_main 'a|b')
         CREATE TABLE dst (tbl STRING, id BIGINT, v STRING, n DECIMAL(10, 2),
            PRIMARY KEY (tbl, id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dst.db', 'table' = 'dst')"
expect_rc 0 "create the tables"

src_rows() {
    psql_q "SELECT 'a', id, coalesce(v, ''), coalesce(n::text, '') FROM $S.a
            UNION ALL SELECT 'b', id, coalesce(v, ''), coalesce(n::text, '') FROM $S.b ORDER BY 1, 2" |
        tr '|' ' '
}
dst_rows() {
    sqlite3 "$T/dst.db" "SELECT tbl, id, coalesce(v, ''), CASE WHEN n IS NULL THEN '' ELSE printf('%.2f', n) END FROM dst
                         ORDER BY tbl, id" 2>/dev/null | tr '|' ' '
}
# converge DESCRIPTION: until the sink equals the source (60 s at most)
converge() {
    local i
    for ((i = 0; i < 600; i++)); do
        [ "$(src_rows)" = "$(dst_rows)" ] && { ok "$1: $(src_rows | wc -l) rows equal"; return 0; }
        sleep 0.1
    done
    diff <(src_rows) <(dst_rows) | head -20 >&2
    fail "$1: the sink does not equal the source after 60 s"
}
JOBSQL="INSERT INTO dst SELECT tbl, id, v, n FROM src"

# ---- 1. inserts, updates, deletes on two tables
start_job j1 "$JOBSQL"
wait_slot_active ${S}_main
as_role "INSERT INTO $S.a SELECT i, 'a' || i, i / 4.0 FROM generate_series(1, 50) i;
         INSERT INTO $S.b SELECT i, 'b' || i, NULL FROM generate_series(1, 30) i;
         BEGIN; UPDATE $S.a SET v = v || '!' WHERE id % 3 = 0; DELETE FROM $S.b WHERE id > 25;
         UPDATE $S.a SET id = 1000 WHERE id = 7; COMMIT;
         DELETE FROM $S.a WHERE id BETWEEN 40 AND 45; UPDATE $S.b SET n = 9.99 WHERE id = 2" >/dev/null
converge "inserts, updates, a key moved, deletes on $S.a and $S.b"
kill -0 "$JOB" || fail "the job ended: $(cat j1.err)"

# ---- 2. kill -9 during a stream, restart
as_role "CREATE OR REPLACE FUNCTION $S.work(k int) RETURNS void LANGUAGE plpgsql AS \$\$
         BEGIN
           INSERT INTO $S.a VALUES (2000 + k, 'w' || k, k) ON CONFLICT (id) DO UPDATE SET v = 'again';
           UPDATE $S.b SET v = 'w' || k WHERE id = 1 + k % 20;
           DELETE FROM $S.a WHERE id = 1 + k % 40;
         END \$\$" >/dev/null
(for k in $(seq 1 150); do echo "SELECT $S.work($k);"; done
 echo "INSERT INTO $S.a SELECT i, 'big' || i, i FROM generate_series(10000, 29999) i;"
 for k in $(seq 151 300); do echo "SELECT $S.work($k);"; done) >work.sql
"$PGS" psql -q -v ON_ERROR_STOP=1 -c "SET ROLE $ROLE" -f work.sql >/dev/null 2>work.err &
W=$!
e2e_pids="$e2e_pids $W"
for ((i = 0; i < 600; i++)); do
    [ "$(sqlite3 "$T/dst.db" "SELECT count(*) FROM dst WHERE v LIKE 'big%'" 2>/dev/null || echo 0)" -gt 0 ] && break
    sleep 0.05
done
kill -0 "$JOB" 2>/dev/null || fail "the job ended before the kill: $(tail -3 j1.err)"
kill -9 "$JOB"
wait "$JOB" 2>/dev/null || true
big=$(sqlite3 "$T/dst.db" "SELECT count(*) FROM dst WHERE v LIKE 'big%'")
ok "job killed (-9) with $big of the large transaction's 20000 rows committed in the sink"
wait "$W" || fail "the workload failed: $(cat work.err)"
start_job j2 "$JOBSQL"
wait_slot_active ${S}_main
converge "after kill -9 and restart"
# idle: the slot confirms what the sink stored, never more
stored=$(sqlite3 "$T/dst.db" "SELECT max(\"offset\") FROM rocketsql_positions WHERE \"partition\" = '${S}_main'")
conf=$(psql_q "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots WHERE slot_name = '${S}_main'")
[ -n "$stored" ] && [ -n "$conf" ] && [ "$conf" -le "$stored" ] ||
    fail "slot confirmed $conf, sink stored $stored"
ok "the slot's confirmed position ($conf) is not past the sink's stored position ($stored)"
kill -INT "$JOB"
wait_exit "$JOB" 30
same "$(psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${S}_main'")" 1 \
    "the slot is kept after the job ended"

# ---- 3. TRUNCATE
start_job j3 "$JOBSQL"
wait_slot_active ${S}_main
as_role "TRUNCATE $S.b" >/dev/null
wait_exit "$JOB" 60
[ "$JRC" != 0 ] || fail "the job went on after a TRUNCATE"
grep -q "table $S.b was truncated" j3.err || fail "TRUNCATE: $(tail -3 j3.err)"
ok "TRUNCATE stops the job: $(grep -o "table $S.b was truncated[^:]*" j3.err | head -1)"

# ---- 4. a read column dropped (a table of its own: the main slot stays at the TRUNCATE)
as_role "CREATE TABLE $S.c (id int PRIMARY KEY, v text, n numeric(10,2))" >/dev/null
rsql -e "$(cdc_table srcc ${S}_c 'c')"
expect_rc 0 "create srcc"
start_job j4 "INSERT INTO dst SELECT tbl, id, v, n FROM srcc"
wait_slot_active ${S}_c
as_role "ALTER TABLE $S.c DROP COLUMN v; INSERT INTO $S.c VALUES (1, 1)" >/dev/null
wait_exit "$JOB" 60
[ "$JRC" != 0 ] || fail "the job went on after a read column was dropped"
grep -q "table $S.c changed while the job ran: column 'v'" j4.err || fail "drop column: $(tail -3 j4.err)"
ok "a dropped column stops the job naming the table and the column"

# ---- 5. an unchanged TOASTed value under REPLICA IDENTITY DEFAULT
as_role "CREATE TABLE $S.d (id int PRIMARY KEY, v text, n numeric(10,2));
         ALTER TABLE $S.d ALTER COLUMN v SET STORAGE EXTERNAL" >/dev/null
rsql -e "$(cdc_table srcd ${S}_d 'd')"
expect_rc 0 "create srcd"
start_job j5 "INSERT INTO dst SELECT tbl, id, v, n FROM srcd"
wait_slot_active ${S}_d
as_role "INSERT INTO $S.d VALUES (1, repeat('x', 10000), 1); UPDATE $S.d SET n = 2 WHERE id = 1" >/dev/null
wait_exit "$JOB" 60
[ "$JRC" != 0 ] || fail "the job went on after an unchanged TOASTed value"
grep -q "table $S.d: an update left column 'v'.*REPLICA IDENTITY FULL" j5.err ||
    fail "TOAST: $(tail -3 j5.err)"
ok "an unchanged TOASTed value stops the job naming the table, the column and REPLICA IDENTITY FULL"

# ---- 6. changelog-mode 'upsert': no -U; an update moving the key deletes the old key
as_role "CREATE TABLE $S.e (id int PRIMARY KEY, v text, n numeric(10,2))" >/dev/null
rsql -e "$(cdc_table srce ${S}_e 'e' ", 'changelog-mode' = 'upsert'" |
            sed "s/kind STRING METADATA FROM 'row_kind')/&/; s/FROM 'row_kind')/FROM 'row_kind', PRIMARY KEY (id) NOT ENFORCED)/")
         CREATE TABLE dste (id BIGINT, v STRING, n DECIMAL(10, 2), kinds STRING,
            PRIMARY KEY (id) NOT ENFORCED)
          WITH ('connector' = 'sqlite', 'path' = '$T/dste.db', 'table' = 'dste')"
expect_rc 0 "create srce, dste"
start_job j6 "INSERT INTO dste SELECT id, v, n, kind FROM srce"
wait_slot_active ${S}_e
as_role "INSERT INTO $S.e SELECT i, 'e' || i, i FROM generate_series(1, 20) i;
         UPDATE $S.e SET v = 'moved', id = 100 WHERE id = 5; UPDATE $S.e SET v = 'kept' WHERE id = 6;
         DELETE FROM $S.e WHERE id = 7" >/dev/null
e_src() { psql_q "SELECT id, v, n FROM $S.e ORDER BY id" | tr '|' ' '; }
e_dst() { sqlite3 "$T/dste.db" "SELECT id, v, printf('%.2f', n) FROM dste ORDER BY id" 2>/dev/null | tr '|' ' '; }
for ((i = 0; i < 600; i++)); do
    [ "$(e_src)" = "$(e_dst)" ] && break
    sleep 0.1
done
[ "$(e_src)" = "$(e_dst)" ] || { diff <(e_src) <(e_dst) >&2; fail "upsert: the sink does not equal the source"; }
ok "changelog-mode upsert: $(e_src | wc -l) rows equal (key 5 moved to 100, 7 deleted)"
same "$(sqlite3 "$T/dste.db" "SELECT group_concat(DISTINCT kinds) FROM (SELECT kinds FROM dste ORDER BY kinds)")" "+I,+U" \
    "the rows kept were last written by +I or +U"
kill -INT "$JOB"
wait_exit "$JOB" 30

# ---- heartbeat: an idle publication on a busy server lets its slot confirm the server's WAL
as_role "CREATE TABLE $S.f (id int PRIMARY KEY, v text, n numeric(10,2))" >/dev/null
rsql -e "$(cdc_table srcf ${S}_f 'f' ", 'heartbeat.interval.ms' = '300ms', 'status-interval' = '300ms'")"
expect_rc 0 "create srcf"
start_job j8 "INSERT INTO dste (id, v, n) SELECT id, v, n FROM srcf"
wait_slot_active ${S}_f
start_lsn=$(psql_q "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots WHERE slot_name = '${S}_f'")
as_role "INSERT INTO $S.a SELECT i, 'hb', 0 FROM generate_series(50000, 50999) i" >/dev/null
target=$(psql_q "SELECT (pg_current_wal_lsn() - '0/0')::bigint")
for ((i = 0; i < 300; i++)); do
    conf=$(psql_q "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots WHERE slot_name = '${S}_f'")
    [ "$conf" -ge "$target" ] && break
    sleep 0.1
done
[ "$conf" -ge "$target" ] || fail "idle slot ${S}_f confirmed $conf (from $start_lsn), the server's WAL is at $target"
ok "an idle slot confirms the server's position after heartbeat.interval.ms ($start_lsn -> $conf >= $target)"
kill -INT "$JOB"
wait_exit "$JOB" 30

# ---- 7. option errors at CREATE TABLE
rsql -e "CREATE TABLE bad1 (id BIGINT) WITH ('connector' = 'postgres-cdc', 'url' = '$URL',
           'schema-name' = 's', 'table-name' = 't', 'slot.name' = 'x',
           'decoding.plugin.name' = 'decoderbufs')"
[ "$RC" != 0 ] && grep -q "decoding.plugin.name" <<<"$ERR" || fail "decoderbufs accepted: $OUT $ERR"
ok "decoding.plugin.name 'decoderbufs' is refused: $ERR"
rsql -e "CREATE TABLE bad2 (id BIGINT) WITH ('connector' = 'postgres-cdc', 'url' = '$URL',
           'hostname' = 'h', 'schema-name' = 's', 'table-name' = 't', 'slot.name' = 'x')"
[ "$RC" != 0 ] && grep -q "options 'url' and 'hostname' cannot be used together" <<<"$ERR" ||
    fail "url and hostname accepted: $OUT $ERR"
ok "url and hostname together: $ERR"
# a column of the rocketsql table that the PostgreSQL table lacks: an error when the job starts
rsql -e "CREATE TABLE srcx (id BIGINT, nope STRING) WITH ('connector' = 'postgres-cdc',
           'hostname' = '127.0.0.1', 'port' = '$PORT', 'database-name' = 'rocketsql',
           'username' = '$ROLE', 'schema-name' = '$S', 'table-name' = 'e',
           'slot.name' = '${S}_x', 'scan.startup.mode' = 'latest-offset')"
expect_rc 0 "create srcx"
rsql -e "INSERT INTO dste (id) SELECT id FROM srcx"
[ "$RC" != 0 ] && grep -q "column 'nope' does not exist in table $S.e" <<<"$ERR" ||
    fail "a missing column: $OUT $ERR"
same "$(psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${S}_x'")" 0 \
    "no slot made for a table whose columns do not match"
ok "a missing column stops the job at its start, naming the column and the table"
echo PASS
