#!/usr/bin/env bash
# Changelogs at planning, end to end on local connectors: a debezium-json file is a full
# changelog; a preview shows each row's kind, with the format's metadata ('value.<key>',
# Flink's prefix rule) next to the connector's own ('line'), only what the statement reads;
# EXPLAIN says the modes and the keys read; an INSERT of the changes into a sink that cannot
# take them is refused when planned, before anything runs or is written; format keys are
# checked at CREATE TABLE (unknown: both kinds of keys listed; type; written: read-only).
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
cat >in.json <<'JSON'
{"before":null,"after":{"id":1,"amount":10.5},"source":{"db":"shop","schema":"public","table":"orders","ts_ms":1700000000000},"op":"c","ts_ms":1700000000100}
{"before":{"id":1,"amount":10.5},"after":{"id":1,"amount":12.0},"source":{"db":"shop","schema":"public","table":"orders","ts_ms":1700000001000},"op":"u","ts_ms":1700000001100}
{"before":{"id":1,"amount":12.0},"after":null,"source":{"db":"shop","schema":"public","table":"orders","ts_ms":1700000002000},"op":"d","ts_ms":1700000002100}
JSON
run_rsql -e "CREATE TABLE cdc (id BIGINT, amount DOUBLE, db STRING METADATA FROM 'value.source.database' VIRTUAL, tbl STRING METADATA FROM 'value.source.table' VIRTUAL, changed TIMESTAMP(3) METADATA FROM 'value.source.timestamp' VIRTUAL, props MAP<STRING, STRING> METADATA FROM 'value.source.properties' VIRTUAL, ln BIGINT METADATA FROM 'line' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.json', 'format'='debezium-json');
CREATE TABLE out (id BIGINT, amount DOUBLE) WITH ('connector'='filesystem', 'path'='out.json', 'format'='json');
CREATE TABLE hole (id BIGINT, amount DOUBLE) WITH ('connector'='blackhole');"
[ "$RC" = 0 ] || fail "CREATE TABLE with format metadata exited $RC: $ERR"
ok "format metadata keys 'value.<key>' next to the connector's own at CREATE TABLE"

run_rsql --tsv -e "SELECT id, amount, db, tbl, changed, ln, props['table'] FROM cdc"
[ "$RC" = 0 ] || fail "preview exited $RC: $ERR"
want=$(printf '+I\t1\t10.5\tshop\torders\t2023-11-14 22:13:20.000\t1\torders
-U\t1\t10.5\tshop\torders\t2023-11-14 22:13:21.000\t2\torders
+U\t1\t12.0\tshop\torders\t2023-11-14 22:13:21.000\t2\torders
-D\t1\t12.0\tshop\torders\t2023-11-14 22:13:22.000\t3\torders')
[ "$OUT" = "$want" ] || fail "preview of the changelog: got
$OUT
want
$want"
ok "the rows with their kinds, the format's metadata and the connector's"

run_rsql -e "EXPLAIN SELECT id, tbl, ln FROM cdc WHERE amount > 11"
[ "$RC" = 0 ] || fail "EXPLAIN exited $RC: $ERR"
grep -qE '^ +metadata: reads value\.source\.table, line$' "$T/out" ||
    fail "EXPLAIN's metadata line: $OUT"
grep -qxF "Changelog: full (+I -U +U -D) from cdc (format 'debezium-json'), kept row by row through filter and projection; the preview prints each row with its kind first (op)" "$T/out" ||
    fail "EXPLAIN's Changelog line: $OUT"
ok "EXPLAIN: the keys read, the modes"

run_rsql -e "INSERT INTO out SELECT id, amount FROM cdc WHERE amount > 11"
[ "$RC" != 0 ] || fail "a changelog into out was accepted"
case $ERR in
*"1:13: table 'cdc' reads a full changelog (format 'debezium-json': updates and deletes, not only inserts) that table 'out' cannot take: "*) ;;
*) fail "the error of a changelog into out: $ERR" ;;
esac
case $ERR in *read=*) fail "the refused INSERT ran: $ERR" ;; esac
[ ! -e out.json ] || fail "the refused INSERT wrote out.json"
run_rsql -e "CREATE JOB j AS INSERT INTO out SELECT id, amount FROM cdc"
[ "$RC" != 0 ] || fail "CREATE JOB of a changelog into filesystem json was accepted"
case $ERR in *"that table 'out' cannot take: "*) ;;
*) fail "CREATE JOB's error: $ERR" ;; esac
run_rsql --tsv -e "SHOW JOBS"
! printf '%s\n' "$OUT" | awk -F'\t' '$1 == "j" {f=1} END {exit !f}' ||
    fail "the refused CREATE JOB was stored: $OUT"
# a blackhole takes any changelog (it discards every row, whatever its kind)
run_rsql -e "INSERT INTO hole SELECT id, amount FROM cdc"
[ "$RC" = 0 ] || fail "a changelog into blackhole was refused: $ERR"
ok "a changelog into a sink that cannot take it is refused when planned (INSERT, CREATE JOB)"

run_rsql -e "CREATE TABLE bad (id BIGINT, t STRING METADATA FROM 'value.source.tabel' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.json', 'format'='debezium-json')"
case $ERR in
*"unknown metadata key 'value.source.tabel' for connector 'filesystem' with format 'debezium-json' (did you mean 'value.source.table'?); keys: path, offset, line, value.schema, value.ingestion-timestamp, value.source.timestamp, value.source.database, value.source.schema, value.source.table, value.source.properties"*) ;;
*) fail "unknown format key: $ERR" ;;
esac
run_rsql -e "CREATE TABLE bad (id BIGINT, t INT METADATA FROM 'value.source.table' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.json', 'format'='debezium-json')"
case $ERR in
*"column 't' is INT but metadata key 'value.source.table' of format 'debezium-json' is VARCHAR"*) ;;
*) fail "format key of the wrong type: $ERR" ;;
esac
run_rsql -e "CREATE TABLE bad (id BIGINT, t STRING METADATA FROM 'value.source.table' VIRTUAL) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json')"
case $ERR in
*"unknown metadata key 'value.source.table' for connector 'filesystem'; keys: path, offset, line"*) ;;
*) fail "a format key of a format without metadata: $ERR" ;;
esac
run_rsql -e "CREATE TABLE cdc_out (id BIGINT, t STRING METADATA FROM 'value.source.table') WITH ('connector'='filesystem', 'path'='o.json', 'format'='debezium-json');
CREATE TABLE gen (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='1');
INSERT INTO cdc_out SELECT id, 'x' FROM gen"
case $ERR in
*"table 'cdc_out' cannot be written to: metadata key 'value.source.table' of its column 't' is format metadata of 'debezium-json', read-only (declare the column VIRTUAL)"*) ;;
*) fail "a format key written: $ERR" ;;
esac
ok "format keys checked: unknown (both kinds listed), type, read-only"

# canal-json: several rows in one message; MAP and ARRAY format keys of their full types
cat >c.json <<'JSON'
{"data":[{"id":"1","name":"a"},{"id":"2","name":"b"}],"old":null,"type":"INSERT","database":"shop","table":"users","isDdl":false,"pkNames":["id"],"sqlType":{"id":4,"name":12},"es":1589373560000,"ts":1589373560798,"id":9}
{"data":[{"id":"1","name":"c"}],"old":[{"name":"a"}],"type":"UPDATE","database":"shop","table":"users","isDdl":false,"pkNames":["id"],"sqlType":{"id":4,"name":12},"es":1589373561000,"ts":1589373561798,"id":10}
JSON
run_rsql --tsv -e "CREATE TABLE cn (id INT, name STRING, pk ARRAY<STRING> METADATA FROM 'value.pk-names' VIRTUAL, st MAP<STRING, INT> METADATA FROM 'value.sql-type' VIRTUAL, tb STRING METADATA FROM 'value.table' VIRTUAL) WITH ('connector'='filesystem', 'path'='c.json', 'format'='canal-json');
SELECT id, name, pk[1], st['name'], tb FROM cn;"
[ "$RC" = 0 ] || fail "canal-json metadata exited $RC: $ERR"
want=$(printf '+I\t1\ta\tid\t12\tusers\n+I\t2\tb\tid\t12\tusers\n-U\t1\ta\tid\t12\tusers\n+U\t1\tc\tid\t12\tusers')
[ "$OUT" = "$want" ] || fail "canal-json metadata: got
$OUT
want
$want"
ok "canal-json: pk-names (ARRAY), sql-type (MAP) and table as 'value.' keys"
