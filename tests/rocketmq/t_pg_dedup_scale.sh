#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_dedup_scale.sh: a deduplication of a RocketMQ topic by three processes of one consumer
# group gives what one process gives, against the local RocketMQ and PostgreSQL (both must
# run: the test fails, never skips, without them). 6,000 events, each sent 1 to 5 times (a
# producer that retried: the same event id, another attempt number, another message id), 18,000
# messages in all, shuffled, produced by the official Java client; some events have only
# copies with a negative amount. Three rocketsql processes, each with its own catalog built from
# the same script, run at once through the same consumer group, each with a bounded read:
#   INSERT INTO firsts SELECT event_id, attempt, amount FROM (SELECT *, ROW_NUMBER() OVER
#     (PARTITION BY event_id ORDER BY proc_time) AS rn FROM events WHERE amount >= 0) WHERE rn = 1
# into a postgres table with PRIMARY KEY (event_id) NOT ENFORCED: the sink table keeps the
# first row of each key (the plan says so: EXPLAIN). Checks: each process ends by itself having
# read some messages and the reads add up to at least 18,000; the table holds each event that
# has a copy with amount >= 0 exactly once (psql over the reference of every message), every
# row is one of its event's copies that pass the condition, and some events kept a copy that
# was not the first one sent (the processes raced). Then one process deduplicates the same
# topic again through another consumer group keeping the last row (ORDER BY proc_time DESC,
# the sink's upsert) into another table: again each event once, each row one of its copies.
# Last line: "PASS t_pg_dedup_scale" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_dedup_scale.XXXXXX")
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
P="ds$(date +%s)$$"
S="${P}_s" # the schema of this run's tables
EVENTS=6000
PROCS=3
JOBS=""
cleanup() {
    local j
    for j in $JOBS; do kill -KILL "$j" 2>/dev/null; done
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_dedup_scale: $*"; exit 1; }
ok() { echo "ok: $*"; }
T0=$(date +%s)

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)

# the events: each 1 to 5 copies (attempt 1..n, the same amount); every 50th event only with a
# negative amount (no copy passes the condition)
python3 - "$EVENTS" "$WORK" <<'PY'
import csv, random, sys
n, work = int(sys.argv[1]), sys.argv[2]
r = random.Random(5)
msgs = []
for e in range(n):
    amount = -r.randint(1, 999) if e % 50 == 0 else r.randint(0, 99999)
    for attempt in range(1, r.randint(1, 5) + 1):
        msgs.append((e, attempt, amount))
r.shuffle(msgs)
with open(work + "/events.jsonl", "w") as f, open(work + "/events.csv", "w", newline="") as c:
    w = csv.writer(c)
    for e, attempt, amount in msgs:
        f.write('{"event_id":"ev-%05d","attempt":%d,"amount":%d}\n' % (e, attempt, amount))
        w.writerow(["ev-%05d" % e, attempt, amount])
print(len(msgs))
PY
N=$(wc -l <"$WORK/events.jsonl")
[ "$N" -gt "$EVENTS" ] || die "the generator wrote $N messages for $EVENTS events: no duplicates"
psql_q "CREATE SCHEMA $S;
        CREATE TABLE $S.ref (event_id text, attempt integer, amount bigint)" >/dev/null &&
    psql_q "\\copy $S.ref FROM '$WORK/events.csv' WITH (FORMAT csv)" >/dev/null ||
    die "loading the reference messages into PostgreSQL"
WANT=$(psql_q "SELECT count(DISTINCT event_id) FROM $S.ref WHERE amount >= 0") || die "psql's count"
ALL=$(psql_q "SELECT count(DISTINCT event_id) FROM $S.ref") || die "psql's count"
[ "$(psql_q "SELECT count(*) FROM $S.ref")" = "$N" ] && [ "$WANT" -lt "$ALL" ] ||
    die "the reference holds $(psql_q "SELECT count(*) FROM $S.ref") messages ($N sent), $WANT of $ALL events pass"
ok "$N messages of $ALL events ($WANT with a copy of amount >= 0) in the reference $S.ref"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}_events" normal
mk group "${P}_dedup"
mk group "${P}_last"
t1=$(date +%s)
"$INTEROP" produce --endpoint "$EP" --topic "${P}_events" --file "$WORK/events.jsonl" \
    --inflight 1024 >"$WORK/produce.out" 2>&1 && grep -q "sent=$N failed=0" "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $N messages"; }
ok "the Java client produced $N messages in $(($(date +%s) - t1))s"

tables() { # $1: consumer group
    cat <<EOF
CREATE TABLE events (event_id STRING NOT NULL, attempt INT, amount BIGINT, proc_time AS PROCTIME())
  WITH ('connector' = 'rocketmq-grpc', 'endpoints' = '$EP', 'topic' = '${P}_events',
        'source.consumer-group' = '$1', 'scan.idle-timeout' = '8s');
CREATE TABLE firsts (event_id STRING NOT NULL, attempt INT, amount BIGINT,
  PRIMARY KEY (event_id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.firsts',
        'sink.buffer-flush.max-rows' = '500');
CREATE TABLE lasts (event_id STRING NOT NULL, attempt INT, amount BIGINT,
  PRIMARY KEY (event_id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.lasts');
EOF
}
FIRST="INSERT INTO firsts SELECT event_id, attempt, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time) AS rn
  FROM events WHERE amount >= 0) WHERE rn = 1;"
LAST="INSERT INTO lasts SELECT event_id, attempt, amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY proc_time DESC) AS rn
  FROM events WHERE amount >= 0) WHERE rn = 1;"
{ tables "${P}_dedup"; echo "$FIRST"; } >"$WORK/first.sql"
{ tables "${P}_last"; echo "$LAST"; } >"$WORK/last.sql"

# the plan: the sink table deduplicates, no state; and a condition after rn = 1 is refused
{ tables "${P}_dedup"; echo "EXPLAIN $FIRST"; } >"$WORK/explain.sql"
"$BIN" --catalog "$WORK/explain.db" -f "$WORK/explain.sql" >"$WORK/explain.out" 2>&1 ||
    { tail -5 "$WORK/explain.out"; die "EXPLAIN of the deduplication failed"; }
grep -q "Deduplicate: the first row of each key, in the sink table" "$WORK/explain.out" &&
    grep -q "sink firsts keeps the first row of each key (event_id)" "$WORK/explain.out" ||
    { cat "$WORK/explain.out"; die "EXPLAIN does not show the sink table keeping the first row of each key"; }
ok "EXPLAIN: the first row of each key, kept by the sink table"
{ tables "${P}_dedup"; echo "${FIRST%;} AND attempt > 1;"; } >"$WORK/post.sql"
"$BIN" --catalog "$WORK/post.db" -f "$WORK/post.sql" >"$WORK/post.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "a condition after the deduplication of table 'events' is not supported" "$WORK/post.out" &&
    ! grep -q "^read=" "$WORK/post.out" ||
    { cat "$WORK/post.out"; die "a condition after the deduplication was not refused at plan time (exit $rc)"; }
ok "a condition after rn = 1 is refused at plan time, no message taken"

# the three processes, started at once
t1=$(date +%s)
PIDS=()
for i in $(seq 1 "$PROCS"); do
    "$BIN" --catalog "$WORK/p$i.db" -f "$WORK/first.sql" >"$WORK/p$i.out" 2>&1 &
    PIDS+=($!)
done
JOBS="${PIDS[*]}"
for i in $(seq 1 "$PROCS"); do
    pid=${PIDS[$((i - 1))]}
    left=240
    while kill -0 "$pid" 2>/dev/null && [ "$left" -gt 0 ]; do sleep 0.5; left=$((left - 1)); done
    kill -0 "$pid" 2>/dev/null && die "process $i did not end within 120 s of its bounded read"
    wait "$pid"
    rc=$?
    [ "$rc" = 0 ] || { tail -5 "$WORK/p$i.out"; die "process $i exited $rc"; }
done
JOBS=""
sum=0
reads=""
for i in $(seq 1 "$PROCS"); do
    line=$(grep '^read=' "$WORK/p$i.out" | tail -1)
    r=$(sed -n 's/^read=\([0-9]*\) .*/\1/p' <<<"$line")
    [ -n "$r" ] || { tail -5 "$WORK/p$i.out"; die "process $i printed no summary line read=N"; }
    [ "$r" -gt 0 ] || { tail -5 "$WORK/p$i.out"; die "process $i read no message ($line): the group did not spread them"; }
    sum=$((sum + r))
    reads="$reads${reads:+ + }$r"
done
[ "$sum" -ge "$N" ] || die "the three processes read $reads = $sum messages, fewer than $N"
ok "$PROCS processes of one consumer group ended by themselves in $(($(date +%s) - t1))s: $reads = $sum messages"

# each event with a passing copy once, and each row one of its copies (psql over the reference)
check_table() { # $1: table, $2: what
    local got stray
    got=$(psql_q "SELECT count(*), count(DISTINCT event_id) FROM $S.$1") || die "reading $S.$1"
    [ "$got" = "$WANT|$WANT" ] || die "$1: rows|distinct events = $got, expected $WANT|$WANT"
    stray=$(psql_q "SELECT count(*) FROM $S.$1 t WHERE NOT EXISTS (SELECT 1 FROM $S.ref r
                      WHERE r.event_id = t.event_id AND r.attempt = t.attempt
                        AND r.amount = t.amount AND r.amount >= 0)") || die "psql's check of $1"
    [ "$stray" = 0 ] || die "$1: $stray rows are not a copy of their event that passes amount >= 0"
    missing=$(psql_q "SELECT count(DISTINCT event_id) FROM $S.ref r WHERE amount >= 0 AND NOT EXISTS
                        (SELECT 1 FROM $S.$1 t WHERE t.event_id = r.event_id)") || die "psql's check"
    [ "$missing" = 0 ] || die "$1: $missing events with a passing copy are missing"
    ok "$1: each of the $WANT events with a passing copy once, each row one of its copies ($2)"
}
check_table firsts "the first row of each key kept by the sink table"
later=$(psql_q "SELECT count(*) FROM $S.firsts WHERE attempt > 1") || die "psql"
multi=$(psql_q "SELECT count(*) FROM (SELECT event_id FROM $S.ref WHERE amount >= 0 GROUP BY event_id
                HAVING count(*) > 1) m") || die "psql"
[ "$multi" -gt 0 ] || die "no event has several copies: the deduplication would mean little"
echo "note: $later of the $multi events sent more than once kept a later attempt (messages arrive in any order)"
got=$(psql_q "SELECT count(*), count(DISTINCT id), count(DISTINCT pipeline) FROM $S.rocketsql_applied") ||
    die "reading $S.rocketsql_applied"
IFS='|' read -r an ad ap <<<"$got"
[ "$an" = "$ad" ] && [ "$ap" = 1 ] ||
    die "rocketsql_applied: ids|distinct|pipelines = $got (a message applied twice, or by two pipelines)"
ok "rocketsql_applied: $an message ids, each once, one pipeline shared by the $PROCS processes"

# the last row of each key, one process, another consumer group: the sink's upsert
"$BIN" --catalog "$WORK/last.db" -f "$WORK/last.sql" >"$WORK/last.out" 2>&1 ||
    { tail -5 "$WORK/last.out"; die "the keep-last deduplication failed"; }
r=$(sed -n 's/^read=\([0-9]*\) .*/\1/p' "$WORK/last.out" | tail -1)
[ -n "$r" ] && [ "$r" -ge "$N" ] || { tail -5 "$WORK/last.out"; die "the keep-last run read ${r:-nothing}, fewer than $N"; }
check_table lasts "the last row of each key, the sink's upsert"
ok "total $(($(date +%s) - T0))s"
echo "PASS t_pg_dedup_scale"
