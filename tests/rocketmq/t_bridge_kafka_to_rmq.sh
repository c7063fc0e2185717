#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# needs: kafka
# t_bridge_kafka_to_rmq.sh: the Kafka -> RocketMQ bridge across SIGKILLs, checked by
# RocketMQ's official Java client. N JSON records (ids 0..N-1, keyed by id) are produced by
# Kafka's Java console producer (scripts/kafka produce --keys) into a 3-partition Kafka topic.
# rocketsql relays them into a NORMAL RocketMQ topic (the Kafka key as the message key, a
# projection; no consumer group: every partition read by the one job, positions in the
# catalog, flushed every 100 ms) and is SIGKILLed 5 times at random moments 1.0 .. 2.4 s into
# a run (each kill checked to land on a running process: exit 137), started again on the
# same catalog each time. The last run is not killed: `rmq-interop consume`
# (rocketmq-client-java) reads the RocketMQ topic meanwhile and must find every id 0..N-1
# (duplicates, a kill between the send and the commit of its position, are allowed and
# counted); then the run is stopped with SIGTERM and must exit 143 (drained).
# Environment from tests/rocketmq/run: REPO, RMQ, INTEROP, RMQ_ENDPOINT, KAFKA,
# KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql (default <repo>/build). T_BRIDGE_N
# overrides N. Last line: "PASS t_bridge_kafka_to_rmq" or "FAIL t_bridge_kafka_to_rmq: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_BRIDGE_N:-100000}
KILLS=5
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_bridge_k2r.XXXXXX")
JOB=""
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_bridge_kafka_to_rmq: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
P="rsqlbk2r$(date +%s)$$"

t0=$SECONDS
"$KAFKA" topic "${P}in" 3 >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "creating the Kafka topic ${P}in"; }
for a in "topic ${P}out normal" "group ${P}v"; do
    # shellcheck disable=SC2086 # the words are the command's arguments
    "$RMQ" $a >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $a"; }
done

# the input: key (the id), a tab, the JSON value
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++)
    printf "%d\t{\"id\":%d,\"customer\":\"c%d\",\"amount\":%d.%02d,\"note\":\"order %d\"}\n", i, i, i % 97, i % 500, i % 100, i }' \
    >"$WORK/in.tsv"
"$KAFKA" produce --keys "${P}in" <"$WORK/in.tsv" >"$WORK/produce.log" 2>&1 ||
    { tail -5 "$WORK/produce.log"; die "the Java console producer failed"; }
ok "produced $N records to the Kafka topic ${P}in (3 partitions) in $((SECONDS - t0)) s"

cat >"$WORK/relay.sql" <<EOF
SET 'state.flush-interval' = '100ms';
CREATE TABLE IF NOT EXISTS src (k STRING, id BIGINT, customer STRING, amount DOUBLE, note STRING)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='${P}in',
        'scan.startup.mode'='earliest-offset',
        'key.format'='raw', 'key.fields'='k', 'value.fields-include'='EXCEPT_KEY');
CREATE TABLE IF NOT EXISTS dst (k STRING, id BIGINT, customer STRING, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out',
        'sink.keys-column'='k');
INSERT INTO dst SELECT k, id, customer, amount FROM src;
EOF

start_job() {
    "$BIN" --catalog "$WORK/catalog.db" -f "$WORK/relay.sql" >"$WORK/run$1.out" 2>&1 &
    JOB=$!
}

for k in $(seq 1 "$KILLS"); do
    start_job "$k"
    sleep "$((1 + RANDOM % 2)).$((RANDOM % 5))"
    kill -0 "$JOB" 2>/dev/null ||
        { tail -5 "$WORK/run$k.out"; die "run $k ended before kill $k landed (too fast or failed)"; }
    kill -KILL "$JOB"
    wait "$JOB"
    rc=$?
    JOB=""
    [ "$rc" = 137 ] || { tail -5 "$WORK/run$k.out"; die "run $k: exit $rc, not killed by SIGKILL"; }
    ok "kill $k landed on a running rocketsql (exit $rc)"
done

# the last run, not killed, next to the verifier: the Java SimpleConsumer asks for N+1
# distinct ids, so that it reads everything there is and counts every duplicate, and stops
# 10 s after the last new id; then the run is stopped gracefully (SIGTERM: exit 143)
t1=$SECONDS
start_job final
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 10 --threads 8 >"$WORK/verify.out" 2>&1
kill -0 "$JOB" 2>/dev/null || { tail -5 "$WORK/runfinal.out"; die "the final run ended by itself (failed?)"; }
kill -TERM "$JOB"
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 143 ] || { tail -5 "$WORK/runfinal.out"; die "the final run: exit $rc after SIGTERM (expected 143)"; }
ok "final run stopped after $((SECONDS - t1)) s: $(grep -o 'read=.*' "$WORK/runfinal.out" | tail -1)"

line=$(grep '^received=' "$WORK/verify.out" | tail -1)
[ -n "$line" ] || { tail -5 "$WORK/verify.out"; die "the Java consumer printed no tally"; }
distinct=$(sed -n 's/.* distinct=\([0-9]*\).*/\1/p' <<<"$line")
dups=$(sed -n 's/.* duplicates=\([0-9]*\).*/\1/p' <<<"$line")
missing_ids=$(grep '^missing_ids=' "$WORK/verify.out" | tail -1)
echo "RocketMQ topic ${P}out: $line"
if [ "$distinct" != "$N" ] || [ "$missing_ids" != "missing_ids=$N" ]; then
    grep -E '^(missing_ids|duplicate_ids)=' "$WORK/verify.out"
    die "messages lost: distinct=$distinct of $N (${missing_ids})"
fi
ok "every id 0..$((N - 1)) in RocketMQ after $KILLS SIGKILLs; duplicates=$dups (at-least-once); $((SECONDS - t0)) s in all"
echo "PASS t_bridge_kafka_to_rmq"
