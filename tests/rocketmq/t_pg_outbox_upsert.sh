#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_outbox_upsert.sh: the postgres connector with the real broker and the real PostgreSQL
# 15 of scripts/postgres (both must run: the test fails, never skips, without them).
#   1. outbox: a postgres table read incrementally (scan.incremental.column = its bigserial id,
#      polled every 100ms) into a NORMAL topic; rows inserted before and while the job runs
#      reach the topic once each (the official Java consumer counts every id: N present, no
#      duplicate); a second job run resumes after the committed id and sends nothing again;
#   2. upsert: N JSON messages over G message groups produced by the Java client to a FIFO
#      topic, read by a FIFO consumer group into a postgres table with
#      PRIMARY KEY (grp) NOT ENFORCED: one row per group, holding that group's last message.
# Last line: "PASS t_pg_outbox_upsert" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_outbox_upsert.XXXXXX")
JOB=""
S="ou$$"
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_outbox_upsert: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null || die "psql"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)
P="rsqlou$(date +%s)$$"
mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }

# ---- 1. outbox -> topic
N=2000
mk topic "${P}out" normal
mk group "${P}v"
psql_q "CREATE TABLE $S.outbox (id bigserial PRIMARY KEY, customer text, amount double precision);
        INSERT INTO $S.outbox(customer, amount) SELECT 'c' || g, g FROM generate_series(1, $((N / 2))) g" \
    >/dev/null || die "creating the outbox"
outbox_sql() { # EXTRA-OPTION: the outbox job (the one catalog of both runs; the tables are kept:
    # positions belong to the tables as created, so a re-created outbox would be read again)
    cat <<EOF
CREATE TABLE IF NOT EXISTS outbox (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='postgres', 'url'='$URL', 'table-name'='$S.outbox',
        'scan.incremental.column'='id'$1);
CREATE TABLE IF NOT EXISTS topic (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out', 'sink.keys-column'='id');
INSERT INTO topic SELECT * FROM outbox;
EOF
}
outbox_sql ", 'scan.incremental.interval'='100ms'" >"$WORK/outbox.sql"
"$BIN" --catalog "$WORK/outbox.db" -f "$WORK/outbox.sql" >"$WORK/outbox1.out" 2>&1 &
JOB=$!
# the second half while the job runs, in 10 transactions
for i in $(seq 1 10); do
    psql_q "INSERT INTO $S.outbox(customer, amount) SELECT 'c' || g, g FROM
            generate_series($((N / 2 + (i - 1) * N / 20 + 1)), $((N / 2 + i * N / 20))) g" >/dev/null ||
        die "inserting while the job runs"
done
kill -0 "$JOB" 2>/dev/null || { tail -5 "$WORK/outbox1.out"; die "the outbox job ended"; }
ok "inserted $N outbox rows, half of them while the job runs"
# N+1 asked, so the consumer reads everything there is and counts every duplicate
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 15 >"$WORK/verify.out" 2>&1
grep -q "received=$N distinct=$N missing=1 duplicates=0" "$WORK/verify.out" ||
    { tail -5 "$WORK/verify.out"; die "the topic does not hold each outbox row once"; }
ok "the Java consumer got each of the $N outbox rows once"
kill -TERM "$JOB"
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 143 ] || { tail -5 "$WORK/outbox1.out"; die "the outbox job exit $rc on SIGTERM (want 143: interrupted)"; }
grep -q "read=$N written=$N " "$WORK/outbox1.out" || { tail -3 "$WORK/outbox1.out"; die "summary"; }
ok "the outbox job read and wrote $N rows and stopped on SIGTERM"
# the same script again: it resumes after the committed id (it says so as it starts), polls
# an outbox with nothing new, and sends nothing again
"$BIN" --catalog "$WORK/outbox.db" -f "$WORK/outbox.sql" >"$WORK/outbox2.out" 2>&1 &
JOB=$!
for _ in $(seq 1 300); do
    grep -q "resuming insert:outbox->topic where it left off" "$WORK/outbox2.out" && break
    kill -0 "$JOB" 2>/dev/null || break
    sleep 0.1
done
grep -q "resuming insert:outbox->topic where it left off" "$WORK/outbox2.out" ||
    { tail -5 "$WORK/outbox2.out"; die "the rerun did not say it resumes"; }
kill -TERM "$JOB"
wait "$JOB"
JOB=""
grep -q "read=0 written=0 " "$WORK/outbox2.out" || { tail -3 "$WORK/outbox2.out"; die "the rerun read rows again"; }
ok "a rerun resumes after the committed id (and says so) and sends nothing again"

# ---- 2. FIFO topic -> upsert by key
M=3000
G=40
mk topic "${P}fifo" fifo
mk group "${P}fg" --fifo
"$INTEROP" produce --endpoint "$EP" --topic "${P}fifo" --type fifo --groups "$G" --count "$M" \
    >"$WORK/produce.out" 2>&1 || { tail -5 "$WORK/produce.out"; die "producing to the FIFO topic"; }
grep -q "sent=$M failed=0" "$WORK/produce.out" || { tail -3 "$WORK/produce.out"; die "produce"; }
ok "the Java client sent $M FIFO messages over $G message groups"
cat >"$WORK/upsert.sql" <<EOF
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE, "group" VARCHAR)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}fifo',
        'source.consumer-group'='${P}fg', 'scan.idle-timeout'='10s');
CREATE TABLE latest (grp VARCHAR, id BIGINT, amount DOUBLE, PRIMARY KEY (grp) NOT ENFORCED)
  WITH ('connector'='postgres', 'url'='$URL', 'table-name'='$S.latest',
        'sink.buffer-flush.max-rows'='100');
INSERT INTO latest SELECT "group", id, amount FROM src;
EOF
"$BIN" --catalog "$WORK/upsert.db" -f "$WORK/upsert.sql" >"$WORK/upsert.out" 2>&1 ||
    { tail -5 "$WORK/upsert.out"; die "the upsert job failed"; }
grep -q "read=$M written=$M " "$WORK/upsert.out" || { tail -3 "$WORK/upsert.out"; die "upsert summary"; }
want=$(python3 -c "
m, g = $M, $G
last = {}
for i in range(m):
    last['g%d' % (i % g)] = i
print(' '.join('%s=%d' % (k, last[k]) for k in sorted(last)))")
got=$(psql_q "SELECT string_agg(grp || '=' || id, ' ' ORDER BY grp) FROM $S.latest")
[ "$got" = "$want" ] || die "the last message per group did not win: got '$got', want '$want'"
ok "one row per message group ($G), each its group's last message"
echo "PASS t_pg_outbox_upsert"
