#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# needs: kafka
# t_bridge_rmq_to_kafka.sh: the RocketMQ -> Kafka bridge across SIGKILLs, checked by Kafka's
# official Java console consumer. N JSON messages (ids 0..N-1) are produced by `rmq-interop
# produce` (rocketmq-client-java) into a NORMAL RocketMQ topic while rocketsql relays them into a
# 3-partition Kafka topic (a consumer group, invisible 10 s so that what a killed run held
# comes back soon; each record keyed by its id as text, key.format raw, the value the other
# columns, EXCEPT_KEY; the idempotent producer) and is SIGKILLed 5 times at random moments
# 1.5 .. 3.4 s into a run (each kill checked to land on a running process: exit 137), started
# again on the same catalog each time, then run to the end (scan.idle-timeout 12 s, longer
# than the invisible duration). Kafka's console consumer (scripts/kafka consume --keys) must
# then find every id 0..N-1 in the topic, each record's key its value's id; duplicates (a
# kill between the write and the ack) are allowed and counted.
# Environment from tests/rocketmq/run: REPO, RMQ, INTEROP, RMQ_ENDPOINT, KAFKA,
# KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql (default <repo>/build). T_BRIDGE_N
# overrides N. Last line: "PASS t_bridge_rmq_to_kafka" or "FAIL t_bridge_rmq_to_kafka: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_BRIDGE_N:-100000}
KILLS=5
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_bridge_r2k.XXXXXX")
JOB=""
PRODUCER=""
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    [ -z "$PRODUCER" ] || kill -KILL "$PRODUCER" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_bridge_rmq_to_kafka: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
P="rsqlbr2k$(date +%s)$$"

t0=$SECONDS
for a in "topic ${P}in normal" "group ${P}g"; do
    # shellcheck disable=SC2086 # the words are the command's arguments
    "$RMQ" $a >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $a"; }
done
"$KAFKA" topic "${P}out" 3 >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "creating the Kafka topic ${P}out"; }

# the producer runs while the relay runs (and is killed): a live bridge, and the kills land
# while messages flow
"$INTEROP" produce --endpoint "$EP" --topic "${P}in" --count "$N" >"$WORK/produce.out" 2>&1 &
PRODUCER=$!

cat >"$WORK/relay.sql" <<EOF
SET 'state.flush-interval' = '100ms';
CREATE TABLE IF NOT EXISTS src (id BIGINT, customer STRING, amount DOUBLE, note STRING)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
        'source.consumer-group'='${P}g', 'source.invisible-duration'='10s',
        'source.await-duration'='5s', 'scan.idle-timeout'='12s');
CREATE TABLE IF NOT EXISTS dst (k STRING, id BIGINT, customer STRING, amount DOUBLE)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='${P}out',
        'key.format'='raw', 'key.fields'='k', 'value.fields-include'='EXCEPT_KEY');
INSERT INTO dst SELECT CAST(id AS STRING), id, customer, amount FROM src;
EOF

start_job() {
    "$BIN" --catalog "$WORK/catalog.db" -f "$WORK/relay.sql" >"$WORK/run$1.out" 2>&1 &
    JOB=$!
}

for k in $(seq 1 "$KILLS"); do
    start_job "$k"
    sleep "$((1 + RANDOM % 2)).$((5 + RANDOM % 5))"
    kill -0 "$JOB" 2>/dev/null ||
        { tail -5 "$WORK/run$k.out"; die "run $k ended before kill $k landed (too fast or failed)"; }
    kill -KILL "$JOB"
    wait "$JOB" 2>/dev/null
    rc=$?
    JOB=""
    [ "$rc" = 137 ] || { tail -5 "$WORK/run$k.out"; die "run $k: exit $rc, not killed by SIGKILL"; }
    kill -0 "$PRODUCER" 2>/dev/null && busy="the producer still sending" || busy="the producer done"
    ok "kill $k landed on a running rocketsql (exit $rc), $busy"
done

# the last run, to the end: it ends 12 s after the last message (long polls of 5 s), which
# is longer than the invisible duration, so what run 5 held comes back to it first
t1=$SECONDS
start_job final
wait "$PRODUCER"
rc=$?
PRODUCER=""
[ "$rc" = 0 ] && grep -q "^sent=$N failed=0" "$WORK/produce.out" ||
    { tail -5 "$WORK/produce.out"; die "rmq-interop did not send $N messages (exit $rc)"; }
ok "produced $N messages to the RocketMQ topic ${P}in in $((SECONDS - t0)) s (rocketmq-client-java)"
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 0 ] || { tail -5 "$WORK/runfinal.out"; die "the final run failed (exit $rc)"; }
summary=$(grep -o 'read=.*' "$WORK/runfinal.out" | tail -1)
ok "final run to the end in $((SECONDS - t1)) s: $summary"

# verify with Kafka's console consumer: every record from the beginning (it stops 10 s after
# the last one), its key and value
"$KAFKA" consume --keys "${P}out" >"$WORK/topic.out" 2>"$WORK/consume.err" ||
    { tail -5 "$WORK/consume.err"; die "the Java console consumer failed"; }
lines=$(wc -l <"$WORK/topic.out")
# each line: key, a tab, {"id":..,...}; the key must be the value's id
bad=$(awk -F'\t' '{ if (match($2, /"id":[0-9]+/) == 0 || substr($2, RSTART + 5, RLENGTH - 5) != $1) n++ } END { print n + 0 }' "$WORK/topic.out")
[ "$bad" = 0 ] || { head -3 "$WORK/topic.out"; die "$bad records whose key is not their id"; }
want=$(seq 0 $((N - 1)) | md5sum)
got=$(cut -f1 "$WORK/topic.out" | sort -un | md5sum)
distinct=$(cut -f1 "$WORK/topic.out" | sort -u | wc -l)
[ "$want" = "$got" ] || die "Kafka topic ${P}out: $distinct distinct ids, not exactly 0..$((N - 1)) ($lines records)"
ok "every id 0..$((N - 1)) in Kafka after $KILLS SIGKILLs, keyed by it: $lines records, duplicates=$((lines - N)) (at-least-once; Java console consumer); $((SECONDS - t0)) s in all"
echo "PASS t_bridge_rmq_to_kafka"
