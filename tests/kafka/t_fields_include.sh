#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_fields_include.sh: value.fields-include 'EXCEPT_KEY' on both sides, against a real Kafka.
# A sink with key.fields 'region;id' (json) and EXCEPT_KEY writes 3 rows: Kafka's Java console
# consumer (--keys) must print each record's key with exactly region and id and its value
# with exactly the other columns. A keyless record is added by the Java console producer.
# A source with the same options reads the topic back into a file: the key's columns come
# from the key (NULL for the keyless record), the others from the value. The same topic read
# with 'ALL' (the default) takes every column from the value, so region and id are NULL.
# A key that is not in key.format fails the read naming the record and 'key.format'. Option
# errors: EXCEPT_KEY without key.fields, EXCEPT_KEY with a changelog value format.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql
# (default <repo>/build). Last line: "PASS t_fields_include" or "FAIL t_fields_include: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_fi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

die() { echo "FAIL t_fields_include: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlfi$(date +%s)$$"
"$KAFKA" topic "$T" 2 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }
"$KAFKA" topic "${T}b" 1 >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic ${T}b"; }
rsql() { "$BIN" --catalog "$WORK/cat.db" "$@"; }

cat >"$WORK/in.jsonl" <<'EOF'
{"id":1,"region":"eu","name":"a","v":10}
{"id":2,"region":"us","name":"b","v":20}
{"id":3,"region":"eu","name":"c","v":30}
EOF
kafka_table() { # NAME TOPIC INCLUDE
    cat <<SQL
CREATE TABLE $1 (id BIGINT, region VARCHAR, name VARCHAR, v INT)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$2',
        'key.format'='json', 'key.fields'='region;id', 'value.fields-include'='$3',
        'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset');
SQL
}
{
    echo "CREATE TABLE src (id BIGINT, region VARCHAR, name VARCHAR, v INT)
  WITH ('connector'='filesystem', 'path'='$WORK/in.jsonl');"
    kafka_table k "$T" EXCEPT_KEY
    kafka_table kall "$T" ALL
    echo "CREATE TABLE back (id BIGINT, region VARCHAR, name VARCHAR, v INT)
  WITH ('connector'='filesystem', 'path'='$WORK/back.jsonl');
CREATE TABLE backall (id BIGINT, region VARCHAR, name VARCHAR, v INT)
  WITH ('connector'='filesystem', 'path'='$WORK/backall.jsonl');"
} >"$WORK/tables.sql"
rsql -f "$WORK/tables.sql" >"$WORK/create.out" 2>&1 || { cat "$WORK/create.out"; die "creating the tables"; }

rsql -e "INSERT INTO k SELECT * FROM src" >"$WORK/w.out" 2>&1 || { cat "$WORK/w.out"; die "writing"; }
"$KAFKA" consume --keys "$T" 3 >"$WORK/topic.out" 2>"$WORK/consume.err" || { tail -5 "$WORK/consume.err"; die "console consumer"; }
printf '%s\t%s\n' '{"region":"eu","id":1}' '{"name":"a","v":10}' '{"region":"us","id":2}' \
    '{"name":"b","v":20}' '{"region":"eu","id":3}' '{"name":"c","v":30}' | sort >"$WORK/topic.want"
sort "$WORK/topic.out" >"$WORK/topic.got"
cmp -s "$WORK/topic.want" "$WORK/topic.got" || { diff "$WORK/topic.want" "$WORK/topic.got"; die "the records' keys and values (Java console consumer)"; }
ok "EXCEPT_KEY sink: keys hold region and id, values the other columns (Java console consumer)"

echo '{"name":"d","v":40}' | "$KAFKA" produce "$T" >"$WORK/produce.log" 2>&1 || { tail -5 "$WORK/produce.log"; die "producing a keyless record"; }
rsql -e "INSERT INTO back SELECT * FROM k" >"$WORK/r.out" 2>&1 || { cat "$WORK/r.out"; die "reading back with EXCEPT_KEY"; }
sort "$WORK/back.jsonl" >"$WORK/back.got"
cat >"$WORK/back.want" <<'EOF'
{"id":1,"region":"eu","name":"a","v":10}
{"id":2,"region":"us","name":"b","v":20}
{"id":3,"region":"eu","name":"c","v":30}
{"id":null,"region":null,"name":"d","v":40}
EOF
cmp -s "$WORK/back.want" "$WORK/back.got" || { diff "$WORK/back.want" "$WORK/back.got"; die "the rows read back with EXCEPT_KEY"; }
ok "EXCEPT_KEY source: region and id from the key (NULL without one), the rest from the value"

rsql -e "INSERT INTO backall SELECT * FROM kall" >"$WORK/ra.out" 2>&1 || { cat "$WORK/ra.out"; die "reading back with ALL"; }
sort "$WORK/backall.jsonl" >"$WORK/backall.got"
cat >"$WORK/backall.want" <<'EOF'
{"id":null,"region":null,"name":"a","v":10}
{"id":null,"region":null,"name":"b","v":20}
{"id":null,"region":null,"name":"c","v":30}
{"id":null,"region":null,"name":"d","v":40}
EOF
cmp -s "$WORK/backall.want" "$WORK/backall.got" || { diff "$WORK/backall.want" "$WORK/backall.got"; die "the rows read back with ALL"; }
ok "ALL source: every column from the value (the key is not read)"

# a key that is not JSON: the read fails at that record, naming key.format
echo '{"name":"not json","v":1}' >"$WORK/bad.jsonl"
cat >"$WORK/bad.sql" <<SQL
CREATE TABLE badsrc (name VARCHAR, v INT) WITH ('connector'='filesystem', 'path'='$WORK/bad.jsonl');
CREATE TABLE kraw (name VARCHAR, v INT)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='${T}b',
        'key.format'='raw', 'key.fields'='name');
CREATE TABLE kjson (name VARCHAR, v INT)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='${T}b',
        'key.format'='json', 'key.fields'='name', 'value.fields-include'='EXCEPT_KEY',
        'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset');
INSERT INTO kraw SELECT * FROM badsrc;
SELECT * FROM kjson;
SQL
rsql -f "$WORK/bad.sql" >"$WORK/bad.out" 2>&1 && { cat "$WORK/bad.out"; die "a key that is not JSON was read"; }
grep -q "kafka:${T}b/0@0.*key.format" "$WORK/bad.out" || { cat "$WORK/bad.out"; die "the error does not name the record and key.format"; }
ok "a key not in key.format fails the read: $(grep -o "kafka:${T}b/0@0.*" "$WORK/bad.out" | head -1 | cut -c1-120)"

bad_option() { # WHAT SQL EXPECTED-TEXT
    rsql -e "$2" >"$WORK/opt.out" 2>&1 && { cat "$WORK/opt.out"; die "$1 was accepted"; }
    grep -q "$3" "$WORK/opt.out" || { cat "$WORK/opt.out"; die "$1: the error does not say '$3'"; }
    ok "$1 refused: $(grep -m1 "$3" "$WORK/opt.out" | cut -c1-140)"
}
bad_option "EXCEPT_KEY without key.fields" \
    "CREATE TABLE x1 (id BIGINT) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T', 'value.fields-include'='EXCEPT_KEY')" \
    "value.fields-include 'EXCEPT_KEY' needs 'key.fields'"
bad_option "EXCEPT_KEY with debezium-json" \
    "CREATE TABLE x2 (id BIGINT, n VARCHAR) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T', 'key.format'='json', 'key.fields'='id', 'value.format'='debezium-json', 'value.fields-include'='EXCEPT_KEY')" \
    "needs an insert-only value format"
echo "PASS t_fields_include"
