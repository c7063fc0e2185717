#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_errors.sh: bad input gives a clear error fast, never a hang or lost data. An unreachable
# broker (a refused port) for a source and a sink, a topic that does not exist for a source
# and a sink, a topic-pattern that matches nothing: each job fails with exit 2 within 15 s,
# its message naming the table, the brokers or the topic, and librdkafka's reason; a sink
# given only a topic-pattern is refused when the statement is planned (exit 1), and so is an
# exactly-once sink (Kafka transactions with positions) fed by a RocketMQ source, which keeps
# its own positions; a SASL password is masked in SHOW CREATE TABLE.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP.
# Last line: "PASS t_errors" or "FAIL t_errors: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_errors.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

die() { echo "FAIL t_errors: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlerr$(date +%s)$$"
"$KAFKA" topic "$T" 1 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }
echo '{"id":1,"name":"a"}' >"$WORK/in.jsonl"

# run SQL; expect exit WANT within 15 s and every further argument in its output
expect() { # NAME WANT SQL PATTERN...
    local name=$1 want=$2 sql=$3 t0=$SECONDS rc
    shift 3
    timeout 60 "$BIN" --catalog "$WORK/$name.db" -e "$sql" >"$WORK/$name.out" 2>&1
    rc=$?
    local secs=$((SECONDS - t0))
    [ "$rc" = "$want" ] || { cat "$WORK/$name.out"; die "$name: exit $rc, want $want"; }
    [ "$secs" -le 15 ] || { cat "$WORK/$name.out"; die "$name: took $secs s (at most 15)"; }
    for p in "$@"; do
        grep -qF -- "$p" "$WORK/$name.out" || { cat "$WORK/$name.out"; die "$name: no '$p' in the output"; }
    done
    ok "$name: exit $rc in $secs s: $(grep -m1 -o 'error: .*' "$WORK/$name.out" | cut -c1-160)"
}

FILE="CREATE TABLE f (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/in.jsonl');
      CREATE TABLE o (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/out.jsonl');"
GONE="'properties.bootstrap.servers'='127.0.0.1:1', 'connect.timeout'='2s'"

expect unreachable_source 2 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka', $GONE, 'topic'='$T',
    'scan.startup.mode'='earliest-offset');
  INSERT INTO o SELECT * FROM k;" \
    "kafka source table 'k': cannot reach the brokers '127.0.0.1:1' (topic '$T'" "Connection refused"
expect unreachable_sink 2 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka', $GONE, 'topic'='$T');
  INSERT INTO k SELECT * FROM f;" \
    "kafka sink table 'k': cannot reach the brokers '127.0.0.1:1' (topic '$T'" "Connection refused"
expect missing_topic_source 2 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic'='$T;${T}nope', 'scan.startup.mode'='earliest-offset');
  INSERT INTO o SELECT * FROM k;" \
    "kafka source table 'k': topic '${T}nope' on '$BS': Broker: Unknown topic or partition (the connector does not create topics)"
expect missing_topic_sink 2 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic'='${T}nope');
  INSERT INTO k SELECT * FROM f;" \
    "kafka sink table 'k': topic '${T}nope' on '$BS': Broker: Unknown topic or partition"
expect pattern_none 2 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic-pattern'='${T}-nothing-[0-9]+', 'scan.startup.mode'='earliest-offset');
  INSERT INTO o SELECT * FROM k;" \
    "kafka source table 'k': no topic on '$BS' matches topic-pattern '${T}-nothing-[0-9]+'"
expect pattern_sink 1 "$FILE
  CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic-pattern'='$T');
  INSERT INTO k SELECT * FROM f;" \
    "missing required option 'topic' for connector 'kafka' (needed to write to table 'k')"
[ ! -s "$WORK/out.jsonl" ] || die "a failed job wrote rows"
expect exactly_once_own 1 "CREATE TABLE m (id BIGINT) WITH ('connector'='rocketmq-grpc',
    'endpoints'='127.0.0.1:1', 'topic'='t', 'source.consumer-group'='g');
  CREATE TABLE k (id BIGINT) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic'='$T', 'sink.delivery-guarantee'='exactly-once');
  INSERT INTO k SELECT * FROM m;" \
    "table 'k' (connector 'kafka') is exactly-once by storing the source's positions" \
    "keeps its own positions (RocketMQ acks)"
expect masked 0 "CREATE TABLE k (id BIGINT) WITH ('connector'='kafka',
    'properties.bootstrap.servers'='$BS', 'topic'='$T', 'properties.security.protocol'='SASL_PLAINTEXT',
    'properties.sasl.mechanism'='PLAIN', 'properties.sasl.username'='u', 'properties.sasl.password'='hunter2-not-shown');
  SHOW CREATE TABLE k;" "'properties.sasl.password' = '******'"
grep -q hunter2 "$WORK/masked.out" && die "the SASL password shows in SHOW CREATE TABLE"
echo "PASS t_errors"
