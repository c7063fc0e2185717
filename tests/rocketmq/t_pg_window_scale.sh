#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_window_scale.sh: examples/orders-per-minute.sql, a window aggregation of a RocketMQ
# topic into PostgreSQL, by three
# processes of one consumer group, killed with SIGKILL five times, gives the table SQL gives
# over the same rows, against the local RocketMQ and PostgreSQL (both must run: the test fails,
# never skips, without them). 30,000 orders (40 customers, 25 minutes of event time, out of
# order by up to 10 s, some without an amount), produced by the official Java client. Each of
# three rocketsql processes (its own catalog, a copy of the example) runs
#   INSERT INTO pm_per_minute SELECT window_start, window_end, customer, COUNT(*), COUNT(amount),
#     SUM(amount), MIN(amount), MAX(amount)
#   FROM TABLE(TUMBLE(TABLE pm_orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
#   GROUP BY window_start, window_end, customer
# into a postgres table keyed by (window_start, customer): the plan merges each row's part of
# its window into the sink's row (EXPLAIN says so), exactly once by message id. While they run,
# one of them at a time is killed with SIGKILL and started again, five times; the messages it
# held come back after their invisible duration. Checks: the table equals PostgreSQL's own
# GROUP BY over the reference of every message (row for row, both ways), each message id was
# applied once, and a HOP over the same topic with HAVING or AVG is refused at plan time.
# Last line: "PASS t_pg_window_scale" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_window_scale.XXXXXX")
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
P="ws$(date +%s)$$"
S="${P}_s" # the schema of this run's tables
ORDERS=30000
PROCS=3
PIDS=()
cleanup() {
    local j
    for j in "${PIDS[@]}"; do kill -KILL "$j" 2>/dev/null; done
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_window_scale: $*"; exit 1; }
ok() { echo "ok: $*"; }
T0=$(date +%s)

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)

python3 - "$ORDERS" "$WORK" <<'PY'
import csv, datetime, json, random, sys
n, work = int(sys.argv[1]), sys.argv[2]
r = random.Random(26)
t0 = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.timezone.utc)
with open(work + "/orders.jsonl", "w") as f, open(work + "/orders.csv", "w", newline="") as c:
    w = csv.writer(c)
    for i in range(n):
        ms = i * 50 - r.randint(0, 10000) * (r.random() < 0.3)
        ts = (t0 + datetime.timedelta(milliseconds=max(ms, 0))).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        e = {"id": i, "customer": "c%02d" % r.randint(1, 40), "ts": ts}
        if r.random() < 0.95:
            e["amount"] = r.randint(1, 1000)
        f.write(json.dumps(e) + "\n")
        w.writerow([i, e["customer"], e.get("amount", ""), ts])
PY
psql_q "CREATE SCHEMA $S;
        CREATE TABLE $S.ref (id bigint, customer text, amount integer, ts timestamp(3))" >/dev/null &&
    psql_q "\\copy $S.ref FROM '$WORK/orders.csv' WITH (FORMAT csv)" >/dev/null ||
    die "loading the reference orders into PostgreSQL"
[ "$(psql_q "SELECT count(*) FROM $S.ref")" = "$ORDERS" ] || die "the reference does not hold $ORDERS orders"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}_orders" normal
mk group "${P}_windows"
t1=$(date +%s)
"$INTEROP" produce --endpoint "$EP" --topic "${P}_orders" --file "$WORK/orders.jsonl" \
    --inflight 1024 >"$WORK/produce.out" 2>&1 && grep -q "sent=$ORDERS failed=0" "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $ORDERS messages"; }
ok "the Java client produced $ORDERS orders in $(($(date +%s) - t1))s"

# a copy of examples/orders-per-minute.sql with this run's endpoint, topic, group, table and
# URL, invisible durations short enough for a killed process's messages to come back soon;
# its tables (tables.sql) and its INSERT (the job)
sed -e "s|'127.0.0.1:8081'|'$EP'|; s|'pm_orders'|'${P}_orders'|; s|'pm_windows'|'${P}_windows'|" \
    -e "s|'postgresql://rsqlpg@127.0.0.1:54329/rocketsql'|'$URL'|; s|'pm_per_minute'|'$S.per_minute'|" \
    -e "s|'scan.idle-timeout' = '15s'|&, 'source.invisible-duration' = '10s', 'source.renewal-ahead' = '3s'|" \
    "$REPO/examples/orders-per-minute.sql" >"$WORK/job.sql"
grep -q "'${P}_orders'" "$WORK/job.sql" && grep -q "'$S.per_minute'" "$WORK/job.sql" &&
    grep -q "invisible-duration" "$WORK/job.sql" || die "examples/orders-per-minute.sql no longer has the names this test replaces"
sed -n '/^CREATE TABLE/,/^);/p' "$WORK/job.sql" >"$WORK/tables.sql"
JOB=$(sed -n '/^INSERT INTO/,/;$/p' "$WORK/job.sql")
psql_q "CREATE TABLE $S.per_minute (window_start timestamp(3), window_end timestamp(3),
          customer text, orders bigint, with_amount bigint, total bigint, smallest integer,
          largest integer, PRIMARY KEY (window_start, customer))" >/dev/null || die "creating the sink table"

# the plan: the sink merges, no state; what it cannot merge is refused before a message is taken
{ cat "$WORK/tables.sql"; echo "EXPLAIN $JOB"; } >"$WORK/explain.sql"
"$BIN" --catalog "$WORK/explain.db" -f "$WORK/explain.sql" >"$WORK/explain.out" 2>&1 ||
    { tail -5 "$WORK/explain.out"; die "EXPLAIN of the window aggregation failed"; }
grep -q "sink pm_per_minute merges each row into the row of its key (window_start, customer)" "$WORK/explain.out" &&
    grep -q "state: none: table 'pm_orders' acknowledges its messages itself" "$WORK/explain.out" ||
    { cat "$WORK/explain.out"; die "EXPLAIN does not show the sink merging the windows"; }
ok "EXPLAIN: each row's part merged into the sink's row of its window and customer, no state"
refused() { # WHAT SQL MESSAGE
    { cat "$WORK/tables.sql"; echo "$2"; } >"$WORK/bad.sql"
    "$BIN" --catalog "$WORK/bad.db" -f "$WORK/bad.sql" >"$WORK/bad.out" 2>&1
    local rc=$?
    [ "$rc" = 1 ] && grep -q "$3" "$WORK/bad.out" && ! grep -q "^read=" "$WORK/bad.out" ||
        { cat "$WORK/bad.out"; die "$1 was not refused at plan time (exit $rc)"; }
    rm -f "$WORK/bad.db"
}
refused "AVG" "INSERT INTO pm_per_minute SELECT window_start, window_end, customer, COUNT(*), 0, 0,
  AVG(amount), 0 FROM TABLE(TUMBLE(TABLE pm_orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, customer;" "AVG(amount) in a window aggregation over connector 'rocketmq-grpc' is not supported"
refused "HAVING" "INSERT INTO pm_per_minute SELECT window_start, window_end, customer, COUNT(*),
  COUNT(amount), SUM(amount), MIN(amount), MAX(amount)
  FROM TABLE(TUMBLE(TABLE pm_orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, customer HAVING COUNT(*) > 1;" "HAVING in a window aggregation over connector 'rocketmq-grpc' is not supported"
ok "AVG and HAVING over RocketMQ are refused at plan time, no message taken"

# three processes; five times one is killed and started again
start() { # I
    "$BIN" --catalog "$WORK/p$1.db" -f "$WORK/job.sql" >>"$WORK/p$1.out" 2>&1 &
    PIDS[$1]=$!
}
for i in $(seq 1 "$PROCS"); do start "$i"; done
RANDOM=26
kills=0
while [ "$kills" -lt 5 ]; do
    sleep "0.$((RANDOM % 8 + 2))"
    i=$((RANDOM % PROCS + 1))
    kill -0 "${PIDS[$i]}" 2>/dev/null || { start "$i"; continue; }
    kill -KILL "${PIDS[$i]}" 2>/dev/null
    wait "${PIDS[$i]}" 2>/dev/null
    kills=$((kills + 1))
    echo "kill $kills: process $i; the table has $(psql_q "SELECT count(*) FROM $S.per_minute") rows"
    start "$i"
done
for i in $(seq 1 "$PROCS"); do
    left=600
    while kill -0 "${PIDS[$i]}" 2>/dev/null && [ "$left" -gt 0 ]; do sleep 0.5; left=$((left - 1)); done
    kill -0 "${PIDS[$i]}" 2>/dev/null && die "process $i did not end within 300 s"
    wait "${PIDS[$i]}"
    rc=$?
    [ "$rc" = 0 ] || { tail -5 "$WORK/p$i.out"; die "process $i exited $rc"; }
done
PIDS=()
ok "$PROCS processes, 5 of their runs killed, all ended by themselves"

# the table is PostgreSQL's own GROUP BY over the reference, row for row
REF="SELECT date_trunc('minute', ts) AS window_start,
        date_trunc('minute', ts) + interval '1 minute' AS window_end, customer,
        count(*) AS n, count(amount) AS n_amount, sum(amount) AS total, min(amount) AS lo,
        max(amount) AS hi FROM $S.ref GROUP BY 1, 2, 3"
diff=$(psql_q "SELECT count(*) FROM (($REF) EXCEPT (SELECT * FROM $S.per_minute)) a") || die "psql"
extra=$(psql_q "SELECT count(*) FROM ((SELECT * FROM $S.per_minute) EXCEPT ($REF)) a") || die "psql"
rows=$(psql_q "SELECT count(*) FROM $S.per_minute") || die "psql"
[ "$diff" = 0 ] && [ "$extra" = 0 ] ||
    die "per_minute differs from PostgreSQL's GROUP BY: $diff reference rows missing or different, $extra rows not in the reference; e.g. $(psql_q "($REF) EXCEPT (SELECT * FROM $S.per_minute) LIMIT 3")"
ok "per_minute equals PostgreSQL's GROUP BY over the $ORDERS orders ($rows windows of a customer)"
got=$(psql_q "SELECT count(*), count(DISTINCT id) FROM $S.rocketsql_applied") || die "psql"
[ "$got" = "$ORDERS|$ORDERS" ] || die "rocketsql_applied: ids|distinct = $got, expected $ORDERS|$ORDERS"
ok "each of the $ORDERS messages applied once (rocketsql_applied)"
ok "total $(($(date +%s) - T0))s"
echo "PASS t_pg_window_scale"
