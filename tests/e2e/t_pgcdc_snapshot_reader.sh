#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_snapshot_reader.sh: the postgres-cdc snapshot reader (connectors/postgres/
# pgcdc_snapshot.c) against the PostgreSQL 15 of scripts/postgres (fails, never skips, when
# it cannot be reached), through `pgoutput_dump snapshot`, which prints its rows as the
# stream's +I lines:
#   - values: a table of many types (numeric, timestamptz, bytea, jsonb, uuid, float8 NaN,
#     date, a TOASTed text, NULLs), inserted while a pgoutput slot records them: the rows the
#     snapshot reads are, line for line, the +I rows the stream decodes (the same conversion);
#   - the snapshot: a psql session exports a snapshot (pg_export_snapshot, its transaction
#     held open), inserts, updates and deletes commit after it, and the reader, given the
#     snapshot's name, returns exactly the rows of the copies taken at the export (psql
#     over the copies is the reference), in chunks of 7 rows, by a one-column and a
#     two-column (text, int) key;
#   - resume: after key K it returns exactly the rows > K (one-column and composite keys;
#     in the exported snapshot and in a fresh one), a table done before gives nothing, and a
#     reopen on a new connection in the middle of a chunk neither skips nor repeats a row;
#   - errors: a table without a primary key, a missing column, a snapshot that is gone.
. "$(dirname "$0")/lib.sh"

DUMP="$RSQL_BUILDDIR/tests/e2e/pgoutput_dump"
[ -x "$DUMP" ] || fail "no $DUMP (make -C \$RSQL_BUILDDIR check builds it)"
. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="pgsnap$$"
SLOT="pgsnap_slot_$$"
HOLDER=
drop_all() {
    [ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null
    pg_drop_cdc "$S" "$SLOT" pgsnap_pub_$$
}
trap 'drop_all; e2e_cleanup' EXIT
ok "PostgreSQL at $URL, schema $S"

# ---- values: the snapshot's rows are the stream's
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.ty (id bigint PRIMARY KEY, v varchar(20), n numeric(12, 3), ts timestamptz,
                      t timestamp, b bytea, ok boolean, j jsonb, d date, f float8, u uuid,
                      i2 smallint, big text);
  CREATE PUBLICATION pgsnap_pub_$$ FOR TABLE $S.ty" >/dev/null
psql_q "SELECT pg_create_logical_replication_slot('$SLOT', 'pgoutput')" >/dev/null
BIG="(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i)"
psql_q "INSERT INTO $S.ty VALUES
  (1, 'one', 12.5, '2024-01-02 03:04:05.678+05:30', '2024-01-02 03:04:05.5', '\\x00ff41',
   true, '{\"k\": [1, 2.50]}', '2024-02-29', 'NaN', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   -7, 'x'),
  (2, NULL, -0.001, NULL, NULL, NULL, false, 'null', '0001-01-01', -1.5e300, NULL, NULL,
   $BIG),
  (-3, 'été', 123456789.123, '1999-12-31 23:59:59.999999-08', NULL, '\\x', NULL, '[]',
   NULL, 0.1, NULL, 32767, NULL)" >/dev/null
PGOPTIONS="$PGOPTIONS -c TimeZone=Asia/Kolkata" "$PGS" psql -tA -F $'\t' -c "
  SELECT lsn, xid, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('$SLOT',
    NULL, NULL, 'proto_version', '1', 'publication_names', 'pgsnap_pub_$$')" >stream.tsv
"$DUMP" <stream.tsv >events.txt || fail "pgoutput_dump: $(tail -n 1 events.txt)"
grep '^+I' events.txt | sort >stream_rows.txt
same "$(wc -l <stream_rows.txt)" 3 "+I rows in the stream"
"$DUMP" snapshot "$URL" - 2 "$S.ty" >snap_ty.txt || fail "snapshot: $(tail -n 1 snap_ty.txt)"
same "$(tail -n 1 snap_ty.txt)" "END $S.ty key=2" "the end of the table, with its last key"
grep '^+I' snap_ty.txt | sort >snap_rows.txt
diff -u stream_rows.txt snap_rows.txt >diff.txt || fail "the snapshot's rows differ from the stream's:
$(cat diff.txt)"
ok "the snapshot's rows are the stream's, value for value (13 types, NULLs, TOAST)"
same "$(head -n 1 snap_ty.txt | cut -d' ' -f3)" "id=-3" "the first row in key order"

# ---- the exported snapshot
psql_q "CREATE TABLE $S.a (id int PRIMARY KEY, v text);
  INSERT INTO $S.a SELECT i * 2, 'a' || i FROM generate_series(1, 100) i;
  UPDATE $S.a SET v = NULL WHERE id % 14 = 0;
  CREATE TABLE $S.b (r text, n int, v int, PRIMARY KEY (r, n));
  INSERT INTO $S.b SELECT chr(65 + i % 4) || CASE WHEN i % 5 = 0 THEN 'x' ELSE '' END, i, i * i
    FROM generate_series(1, 60) i;
  CREATE TABLE $S.nopk (v int);
  CREATE TABLE $S.ref_a AS SELECT * FROM $S.a;
  CREATE TABLE $S.ref_b AS SELECT * FROM $S.b" >/dev/null
# the lines the reader must print for the rows of a and b (from table src) after key WHERE
want_a() {
    psql_q "SELECT format('+I $S.a id=%s v=%s', id, coalesce(v, 'NULL')) FROM $S.$1
              WHERE ${2:-true} ORDER BY id"
}
want_b() {
    psql_q "SELECT format('+I $S.b r=%s n=%s v=%s', r, n, v) FROM $S.$1
              WHERE ${2:-true} ORDER BY r, n"
}
end_a() { psql_q "SELECT 'END $S.a key=' || max(id) FROM $S.$1"; }
end_b() {
    psql_q "SELECT 'END $S.b key=' || r || ',' || n FROM $S.$1 ORDER BY r DESC, n DESC LIMIT 1"
}

coproc HOLD { "$RSQL_SRCDIR/scripts/postgres" psql -tA -q 2>&1; }
HOLDER=$HOLD_PID
echo "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT pg_export_snapshot();" >&"${HOLD[1]}"
read -t 30 -r SNAP <&"${HOLD[0]}" || fail "no exported snapshot from psql"
[[ "$SNAP" =~ ^[0-9A-F]+-[0-9A-F]+-[0-9]+$ ]] || fail "not a snapshot name: $SNAP"
ok "snapshot $SNAP exported, its transaction held by psql"

# writes after the export: below, between and above the keys; updates; deletes
psql_q "INSERT INTO $S.a VALUES (-1, 'new'), (51, 'new'), (1000, 'new');
  UPDATE $S.a SET v = 'changed' WHERE id BETWEEN 20 AND 40;
  DELETE FROM $S.a WHERE id IN (2, 100, 200);
  INSERT INTO $S.b VALUES ('A', 0, 0), ('Bx', 1000, 1), ('Z', 1, 1);
  UPDATE $S.b SET v = -v WHERE r = 'C';
  DELETE FROM $S.b WHERE n % 7 = 0" >/dev/null
[ "$(want_a a)" != "$(want_a ref_a)" ] || fail "the writes did not change a"
[ "$(want_b b)" != "$(want_b ref_b)" ] || fail "the writes did not change b"

{ want_a ref_a; end_a ref_a; want_b ref_b; end_b ref_b; } >want.txt
"$DUMP" snapshot "$URL" "$SNAP" 7 "$S.a:id,v" "$S.b" >got.txt || fail "snapshot: $(tail -n 1 got.txt)"
diff -u want.txt got.txt >diff.txt || fail "the exported snapshot's rows differ from the copies':
$(cat diff.txt)"
ok "the exported snapshot: exactly the rows at the export ($(grep -c '^+I' got.txt) rows, chunks of 7)"

# resume after a key, in the exported snapshot
{ want_a ref_a "id > 58"; end_a ref_a; want_b ref_b "(r, n) > ('B', 9)"; end_b ref_b; } >want.txt
"$DUMP" snapshot "$URL" "$SNAP" 7 "$S.a:id,v>58" "$S.b>B,9" >got.txt ||
    fail "snapshot resumed: $(tail -n 1 got.txt)"
diff -u want.txt got.txt >diff.txt || fail "the resumed snapshot's rows differ:
$(cat diff.txt)"
ok "resume after a key (id 58; (B, 9)): exactly the rows after it"
"$DUMP" snapshot "$URL" "$SNAP" 7 "$S.a:id,v!" "$S.b>Z,0" >got.txt || fail "$(tail -n 1 got.txt)"
same "$(cat got.txt)" "END $S.b key=Z,0" "a table done before, and a resume after the last key"

# end the export: the snapshot is gone
echo "COMMIT;" >&"${HOLD[1]}"
exec {HOLD[1]}>&-
wait "$HOLDER"
HOLDER=
"$DUMP" snapshot "$URL" "$SNAP" 7 "$S.a" >got.txt && fail "a snapshot that is gone was read"
grep -q "^ERROR open: postgres-cdc snapshot: cannot import the exported snapshot .*invalid snapshot identifier.*SQLSTATE 22023" got.txt ||
    fail "the error of a snapshot that is gone: $(cat got.txt)"
ok "a snapshot that is gone: $(cut -c1-80 got.txt)..."

# a fresh snapshot: the rows now; a reopen in the middle of a chunk (after 13 of chunks of 5)
{ want_a a "id > 10"; end_a a; want_b b; end_b b; } >want.txt
"$DUMP" snapshot "$URL" - 5 r13 "$S.a:id,v>10" "$S.b" >got.txt || fail "$(tail -n 1 got.txt)"
diff -u want.txt got.txt >diff.txt || fail "a fresh snapshot with a reopen differs:
$(cat diff.txt)"
"$DUMP" snapshot "$URL" - 5 r47 "$S.a:id,v>10" "$S.b" >got2.txt || fail "$(tail -n 1 got2.txt)"
diff -u want.txt got2.txt >diff.txt || fail "a reopen in table b differs:
$(cat diff.txt)"
ok "a fresh snapshot, resumed and reopened on a new connection mid-chunk: the rows now"

# errors
"$DUMP" snapshot "$URL" - 5 "$S.nopk" >got.txt && fail "a table without a primary key was read"
same "$(cat got.txt)" "ERROR table: postgres-cdc snapshot: table $S.nopk has no primary key: the snapshot reads and resumes by key (add one, or use scan.startup.mode 'latest-offset')" "no primary key"
"$DUMP" snapshot "$URL" - 5 "$S.a:id,nope" >got.txt && fail "a missing column was read"
same "$(cat got.txt)" "ERROR table: postgres-cdc snapshot: table $S.a has no column 'nope'" "a missing column"
"$DUMP" snapshot "$URL" - 5 "$S.missing" >got.txt && fail "a missing table was read"
same "$(cat got.txt)" "ERROR table: postgres-cdc snapshot: no table $S.missing" "a missing table"
"$DUMP" snapshot "$URL" - 5 "$S.b>A" >got.txt && fail "a short resume key was taken"
grep -q "a resume key of 1 values, the primary key has 2 columns" got.txt || fail "$(cat got.txt)"
ok "errors: no primary key, a missing column or table, a resume key of the wrong length"
echo "$n_checks passed, 0 failed"
