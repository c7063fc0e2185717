#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgoutput_peek.sh: the pgoutput decoder (connectors/postgres/pgoutput.c) on the real
# server's bytes, against the PostgreSQL 15 of scripts/postgres (wal_level = logical; this
# test fails, never skips, when it cannot be reached). A publication and a logical slot
# (pgoutput) see inserts, updates and deletes on tables with REPLICA IDENTITY DEFAULT, FULL
# and USING INDEX, a transaction of several statements, a key that changes, a TOASTed value
# left unchanged by an update, a column added (a new Relation, flagged changed), and a
# TRUNCATE of both tables (which the server precedes with their Relation messages again,
# unchanged). The slot's stream, read with
# pg_logical_slot_peek_binary_changes (proto_version 1: no replication connection needed),
# goes through tests/e2e/pgoutput_dump, whose events must be exactly what was executed:
# the rows with their kinds (+I; -U, with the key only under DEFAULT, then +U; -D), every
# column's value by its type (timestamptz from the session's zone to UTC, numeric's scale,
# bytea), the relations with their columns, keys and type modifiers, and <unchanged> where
# the server did not send a TOASTed value (DEFAULT) while FULL's old tuple gives it back.
# Peeked again in a new decoding session, the stream decodes the same.
. "$(dirname "$0")/lib.sh"

DUMP="$RSQL_BUILDDIR/tests/e2e/pgoutput_dump"
[ -x "$DUMP" ] || fail "no $DUMP (make -C \$RSQL_BUILDDIR check builds it)"
. "$(dirname "$0")/pg_lib.sh"
pg_connect
S="pgo$$"
SLOT="pgo_slot_$$"
drop_all() {
    pg_drop_cdc "$S" "$SLOT" pgo_pub_$$
}
trap 'drop_all; e2e_cleanup' EXIT
same "$(psql_q "SHOW wal_level")" logical "the server's wal_level"
ok "PostgreSQL at $URL, schema $S"

psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.kd (id int PRIMARY KEY, v varchar(20), n numeric(10, 2), ts timestamptz,
                      b bytea, ok boolean, big text);
  CREATE TABLE $S.kf (id bigint PRIMARY KEY, v text, big text, u uuid, j jsonb, d date,
                      f float8);
  ALTER TABLE $S.kf REPLICA IDENTITY FULL;
  CREATE TABLE $S.ki (code text NOT NULL, v int);
  CREATE UNIQUE INDEX ki_code ON $S.ki (code);
  ALTER TABLE $S.ki REPLICA IDENTITY USING INDEX ki_code;
  CREATE PUBLICATION pgo_pub_$$ FOR TABLE $S.kd, $S.kf, $S.ki" >/dev/null
psql_q "SELECT pg_create_logical_replication_slot('$SLOT', 'pgoutput')" >/dev/null
ok "publication and slot created"

# a text that stays TOASTed out of line: 12,800 bytes of md5 digits
BIG="(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i)"
psql_q "INSERT INTO $S.kd VALUES (1, 'one', 12.5, '2024-01-02 03:04:05.678+00', '\\x00ff41',
                                  true, NULL)" >/dev/null
psql_q "BEGIN;
  INSERT INTO $S.kd (id, v, big) VALUES (2, 'two', $BIG);
  UPDATE $S.kd SET v = 'uno', n = -0.01 WHERE id = 1;
  COMMIT" >/dev/null
psql_q "UPDATE $S.kd SET v = 'two2' WHERE id = 2" >/dev/null
psql_q "UPDATE $S.kd SET id = 10 WHERE id = 1" >/dev/null
psql_q "DELETE FROM $S.kd WHERE id = 10" >/dev/null
psql_q "INSERT INTO $S.kf VALUES (1, 'a', $BIG, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
                                  '{\"k\": [1, 2]}', '2024-02-29', 'NaN')" >/dev/null
psql_q "UPDATE $S.kf SET v = 'b' WHERE id = 1" >/dev/null
psql_q "DELETE FROM $S.kf WHERE id = 1" >/dev/null
psql_q "INSERT INTO $S.ki VALUES ('a', 1)" >/dev/null
psql_q "UPDATE $S.ki SET code = 'b'" >/dev/null
psql_q "UPDATE $S.ki SET v = 2" >/dev/null
psql_q "DELETE FROM $S.ki" >/dev/null
psql_q "ALTER TABLE $S.kf ADD COLUMN extra int2; INSERT INTO $S.kf (id, extra) VALUES (2, 7)" \
    >/dev/null
psql_q "INSERT INTO $S.kd (id) VALUES (3); TRUNCATE $S.kd, $S.kf" >/dev/null
ok "the workload committed"

# peek ZONE: the slot's stream as lsn<TAB>xid<TAB>hex, in a session whose TimeZone is ZONE
peek() {
    PGOPTIONS="$PGOPTIONS -c TimeZone=$1" "$PGS" psql -tA -F $'\t' -c "
      SELECT lsn, xid, encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('$SLOT',
        NULL, NULL, 'proto_version', '1', 'publication_names', 'pgo_pub_$$')"
}
peek Asia/Kolkata >stream.tsv
[ -s stream.tsv ] || fail "the slot's stream is empty"
"$DUMP" <stream.tsv >events.txt || fail "pgoutput_dump: $(tail -n 1 events.txt)"
ok "$(wc -l <stream.tsv) messages decoded"

BIGP="[12800 bytes: c4ca4238...]"
KD="RELATION $S.kd ident=d id:23:-1:key v:1043:24 n:1700:655366 ts:1184:-1 b:17:-1 ok:16:-1 big:25:-1"
KF="RELATION $S.kf ident=f id:20:-1:key v:25:-1:key big:25:-1:key u:2950:-1:key j:3802:-1:key d:1082:-1:key f:701:-1:key"
cat >want.txt <<EOF
BEGIN
$KD
+I $S.kd id=1 v=one n=12.50 ts=2024-01-02 03:04:05.678 b=AP9B ok=true big=NULL
COMMIT
BEGIN
+I $S.kd id=2 v=two n=NULL ts=NULL b=NULL ok=NULL big=$BIGP
+U $S.kd id=1 v=uno n=-0.01 ts=2024-01-02 03:04:05.678 b=AP9B ok=true big=NULL
COMMIT
BEGIN
+U $S.kd id=2 v=two2 n=NULL ts=NULL b=NULL ok=NULL big=<unchanged>
COMMIT
BEGIN
-U key $S.kd id=1
+U $S.kd id=10 v=uno n=-0.01 ts=2024-01-02 03:04:05.678 b=AP9B ok=true big=NULL
COMMIT
BEGIN
-D key $S.kd id=10
COMMIT
BEGIN
$KF
+I $S.kf id=1 v=a big=$BIGP u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 j={"k": [1, 2]} d=2024-02-29 f=NaN
COMMIT
BEGIN
-U $S.kf id=1 v=a big=$BIGP u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 j={"k": [1, 2]} d=2024-02-29 f=NaN
+U $S.kf id=1 v=b big=$BIGP u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 j={"k": [1, 2]} d=2024-02-29 f=NaN (1 from the old tuple)
COMMIT
BEGIN
-D $S.kf id=1 v=b big=$BIGP u=a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 j={"k": [1, 2]} d=2024-02-29 f=NaN
COMMIT
BEGIN
RELATION $S.ki ident=i code:25:-1:key v:23:-1
+I $S.ki code=a v=1
COMMIT
BEGIN
-U key $S.ki code=a
+U $S.ki code=b v=1
COMMIT
BEGIN
+U $S.ki code=b v=2
COMMIT
BEGIN
-D key $S.ki code=b
COMMIT
BEGIN
$KF extra:21:-1:key changed
+I $S.kf id=2 v=NULL big=NULL u=NULL j=NULL d=NULL f=NULL extra=7
COMMIT
BEGIN
+I $S.kd id=3 v=NULL n=NULL ts=NULL b=NULL ok=NULL big=NULL
$KD
$KF extra:21:-1:key
TRUNCATE $S.kd $S.kf options=0
COMMIT
EOF
diff -u want.txt events.txt >diff.txt || fail "the decoded events differ from what ran:
$(cat diff.txt)"
ok "every event as executed (kinds, keys, values, unchanged TOAST, truncate)"

# a new decoding session in another zone: the same events (the zone only changes the text)
peek America/New_York >stream2.tsv
"$DUMP" <stream2.tsv >events2.txt || fail "pgoutput_dump (second peek): $(tail -n 1 events2.txt)"
diff -u events.txt events2.txt >diff2.txt || fail "a second peek decodes differently:
$(cat diff2.txt)"
ok "a second session (TimeZone America/New_York) decodes the same"
echo "$n_checks passed, 0 failed"
