#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_kill9_relay.sh: crash resilience of a topic -> rocketsql -> topic relay (JSON) against the
# real broker. 100,000 JSON messages on a NORMAL topic; rocketsql relays them to a
# second topic and is SIGKILLed 5 times mid-run (each kill checked to land on a running
# process: exit by signal 9), restarted each time, then run to completion (scan.idle-timeout).
# Source invisible-duration 10 s (the minimum), so the messages a killed run held come back
# quickly. Verification with the Java consumer on the target: every id 0..N-1 present; the
# duplicates (at-least-once: a kill between send and ack) are allowed and reported.
# Environment from tests/rocketmq/run: REPO, RMQ, INTEROP, RMQ_ENDPOINT; binary
# $RSQL_BUILDDIR/rocketsql (default <repo>/build). T_KILL9_N overrides the message count.
# Last line: "PASS t_kill9_relay" or "FAIL t_kill9_relay: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_KILL9_N:-100000}
KILLS=5
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kill9_relay.XXXXXX")
JOB=""
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_kill9_relay: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
P="rsqlk9$(date +%s)$$"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}in" normal
mk topic "${P}out" normal
mk group "${P}g"
mk group "${P}v"

# the input: N JSON messages with ids 0..N-1, sent by rocketsql itself (datagen -> producer
# sink: about twice as fast as the Java producer on a loaded 2-core machine); the Java
# consumer is the independent verifier at the end
cat >"$WORK/produce.sql" <<EOF
CREATE TABLE gen (id BIGINT NOT NULL, customer VARCHAR, amount DOUBLE, note VARCHAR)
  WITH ('connector'='datagen', 'number-of-rows'='$N', 'seed'='7', 'fields.id.kind'='sequence',
        'fields.id.start'='0', 'fields.id.end'='$((N - 1))', 'fields.amount.min'='1',
        'fields.amount.max'='500');
CREATE TABLE inp (id BIGINT, customer VARCHAR, amount DOUBLE, note VARCHAR)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in', 'sink.keys-column'='id');
INSERT INTO inp SELECT * FROM gen;
EOF
"$BIN" --catalog "$WORK/produce.db" -f "$WORK/produce.sql" >"$WORK/produce.out" 2>&1 &&
    grep -q "written=$N " "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $N messages to ${P}in"; }
ok "produced $N messages to ${P}in: $(grep -o 'read=.*' "$WORK/produce.out" | tail -1)"

# the relay: JSON in, a projection out, keyed by id; invisible 10 s so that what a killed run
# held comes back soon; the idle timeout (only the last run reaches it) is longer than that
cat >"$WORK/relay.sql" <<EOF
CREATE TABLE IF NOT EXISTS src (id BIGINT, customer VARCHAR, amount DOUBLE, note VARCHAR)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
        'source.consumer-group'='${P}g', 'source.invisible-duration'='10s',
        'scan.idle-timeout'='20s');
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out',
        'sink.keys-column'='id');
INSERT INTO dst SELECT id, customer, amount FROM src;
EOF

# run i: start rocketsql in the background; one catalog for all runs, as a restarted service
# would have (hence IF NOT EXISTS)
start_job() {
    "$BIN" --catalog "$WORK/catalog.db" -f "$WORK/relay.sql" >"$WORK/run$1.out" 2>&1 &
    JOB=$!
}

for k in $(seq 1 "$KILLS"); do
    start_job "$k"
    # 2.0 .. 3.9 s into the run: past connect and the first receives, well before the end
    sleep "$(( 2 + RANDOM % 2 )).$(( RANDOM % 10 ))"
    kill -0 "$JOB" 2>/dev/null ||
        { tail -5 "$WORK/run$k.out"; die "run $k ended before kill $k landed (too fast or failed)"; }
    kill -KILL "$JOB"
    wait "$JOB"
    rc=$?
    JOB=""
    [ "$rc" = 137 ] || { tail -5 "$WORK/run$k.out"; die "run $k: exit $rc, not killed by SIGKILL"; }
    ok "kill $k landed on a running rocketsql (exit $rc)"
done

t1=$(date +%s)
start_job final
wait_left=200
while kill -0 "$JOB" 2>/dev/null && [ "$wait_left" -gt 0 ]; do
    sleep 1
    wait_left=$((wait_left - 1))
done
if kill -0 "$JOB" 2>/dev/null; then
    kill -KILL "$JOB"
    wait "$JOB"
    JOB=""
    tail -5 "$WORK/runfinal.out"
    die "the final run did not end within 200 s"
fi
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 0 ] || { tail -5 "$WORK/runfinal.out"; die "the final run failed (exit $rc)"; }
ok "final run to completion in $(( $(date +%s) - t1 ))s: $(grep -o 'read=.*' "$WORK/runfinal.out" | tail -1)"

# verify: ask for N+1 distinct ids, so that the consumer reads everything there is (it stops 15 s
# after the last new id) and counts every duplicate; then exactly id N (which never existed)
# must be the only one missing
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 15 >"$WORK/verify.out" 2>&1
line=$(grep '^received=' "$WORK/verify.out" | tail -1)
[ -n "$line" ] || { tail -5 "$WORK/verify.out"; die "the Java consumer printed no tally"; }
distinct=$(sed -n 's/.* distinct=\([0-9]*\).*/\1/p' <<<"$line")
dups=$(sed -n 's/.* duplicates=\([0-9]*\).*/\1/p' <<<"$line")
missing_ids=$(grep '^missing_ids=' "$WORK/verify.out" | tail -1)
echo "target ${P}out: $line"
if [ "$distinct" != "$N" ] || [ "$missing_ids" != "missing_ids=$N" ]; then
    grep -E '^(missing_ids|duplicate_ids)=' "$WORK/verify.out"
    die "messages lost: distinct=$distinct of $N (${missing_ids})"
fi
ok "every id 0..$((N - 1)) on the target after $KILLS SIGKILLs; duplicates=$dups (at-least-once)"
echo "PASS t_kill9_relay"
