#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_lookup_scale.sh: a lookup join scales out over three processes of one consumer group,
# against the local RocketMQ and PostgreSQL (both must run: the test fails, never skips,
# without them). 3,970 customers go into a PostgreSQL table (names with quotes; ids up to
# 4,300, every thirteenth absent); 20,000 JSON orders (customer ids up to 4,400, so some have no
# customer, and some NULL) are produced by the official Java client. Three rocketsql
# processes, each with its own catalog built from the same script, run the same statement at
# once through the same consumer group, each with a bounded read (scan.idle-timeout):
#   INSERT INTO enriched SELECT o.id, o.cid, c.name, o.amount FROM orders AS o
#   LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid
# into a postgres table with PRIMARY KEY (id) NOT ENFORCED (exactly-once by the applied
# message ids, docs/EXACTLY-ONCE.md). Checks: each process ends by itself (exit 0) having read
# some orders (its summary's read=N > 0) and the reads add up to at least 20,000; the table
# equals psql's own LEFT JOIN of the same orders (loaded with \copy): count, distinct ids,
# MD5 of the ordered rows; rocketsql_applied holds each message id once. Before the three
# run, a deduplication of the same RocketMQ table (same consumer group) by a key the sink
# table is not keyed by is refused at plan time (exit 1, a message saying its connector
# acknowledges messages itself, so the sink table must be keyed by it) and takes no
# message from the group, and EXPLAIN of the join shows the LEFT LookupJoin, exactly-once. Last line: "PASS t_pg_lookup_scale" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_lookup_scale.XXXXXX")
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
P="ls$(date +%s)$$"
S="${P}_s"   # the schema of this run's tables
N=20000
PROCS=3
JOBS=""
cleanup() {
    local j
    for j in $JOBS; do kill -KILL "$j" 2>/dev/null; done
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_lookup_scale: $*"; exit 1; }
ok() { echo "ok: $*"; }
T0=$(date +%s)

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)

# the customers (ids 1..4,300 but every thirteenth; names with quotes, a comma, an accent) and
# the orders (cid 1..4,400 or NULL: ids above 4,300 and the multiples of 13 find nothing)
python3 - "$N" "$WORK" <<'PY'
import csv, random, sys
n, work = int(sys.argv[1]), sys.argv[2]
r = random.Random(11)
names = ["Ada", "O'Neil", 'Ren "the" Fox', "D'Arcy, Jr.", "Zoë 'Z' O\"Hara", "Grace"]
with open(work + "/customers.csv", "w", newline="") as f:
    w = csv.writer(f)
    for i in range(1, 4301):
        if i % 13 == 0:
            continue
        w.writerow([i, "%s %d" % (names[i % len(names)], i)])
with open(work + "/orders.jsonl", "w") as f, open(work + "/orders.csv", "w", newline="") as c:
    w = csv.writer(c)
    for oid in range(n):
        cid = None if oid % 97 == 0 else r.randint(1, 4400)
        amount = "%d.%02d" % (r.randint(0, 99999), r.randint(0, 99))
        f.write('{"id":%d,"cid":%s,"amount":%s}\n' % (oid, "null" if cid is None else cid, amount))
        w.writerow([oid, "" if cid is None else cid, amount])
PY
[ "$(wc -l <"$WORK/orders.jsonl")" = "$N" ] || die "the generator did not write $N orders"
NC=$(wc -l <"$WORK/customers.csv")
psql_q "CREATE SCHEMA $S;
        CREATE TABLE $S.customers (id integer PRIMARY KEY, name text);
        CREATE TABLE $S.orders_ref (id bigint PRIMARY KEY, cid integer, amount numeric(10, 2))" \
    >/dev/null || die "creating the schema $S and its tables"
psql_q "\\copy $S.customers FROM '$WORK/customers.csv' WITH (FORMAT csv)" >/dev/null &&
    psql_q "\\copy $S.orders_ref FROM '$WORK/orders.csv' WITH (FORMAT csv)" >/dev/null ||
    die "loading the customers and the reference orders into PostgreSQL"
got=$(psql_q "SELECT (SELECT count(*) FROM $S.customers) || '|' || (SELECT count(*) FROM $S.orders_ref)
                || '|' || (SELECT count(*) FROM $S.customers WHERE name LIKE '%''%' OR name LIKE '%\"%')")
[ "${got%|*}" = "$NC|$N" ] && [ "${got##*|}" -gt 0 ] ||
    die "PostgreSQL holds customers|orders|names with quotes = $got, expected $NC|$N|>0"
ok "PostgreSQL at $URL: $NC customers (${got##*|} names with quotes), $N reference orders in $S"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}_orders" normal
mk group "${P}_join"
t1=$(date +%s)
"$INTEROP" produce --endpoint "$EP" --topic "${P}_orders" --file "$WORK/orders.jsonl" \
    --inflight 1024 >"$WORK/produce.out" 2>&1 && grep -q "sent=$N failed=0" "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $N orders"; }
ok "the Java client produced $N orders in $(($(date +%s) - t1))s"

# the catalog script every process runs (each into a catalog file of its own)
cat >"$WORK/tables.sql" <<EOF
CREATE TABLE orders (
  id BIGINT NOT NULL, cid INT, amount DECIMAL(10, 2), proc_time AS PROCTIME()
) WITH ('connector' = 'rocketmq-grpc', 'endpoints' = '$EP', 'topic' = '${P}_orders',
        'source.consumer-group' = '${P}_join', 'scan.idle-timeout' = '8s');
CREATE TABLE customers (id INT, name STRING)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.customers',
        'lookup.cache' = 'PARTIAL');
CREATE TABLE enriched (
  id BIGINT NOT NULL, cid INT, name STRING, amount DECIMAL(10, 2),
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.enriched',
        'sink.buffer-flush.max-rows' = '500');
EOF
JOIN="INSERT INTO enriched
SELECT o.id, o.cid, c.name, o.amount
FROM orders AS o
LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid;"
{ cat "$WORK/tables.sql"; echo "$JOIN"; } >"$WORK/join.sql"

# a deduplication of the same RocketMQ table by cid (the sink is keyed by id) is refused when
# it is planned: exit 1, the reason
# named, and not one message taken from the consumer group (the three runs below need them all)
{ cat "$WORK/tables.sql"; echo "EXPLAIN $JOIN"; cat <<'EOF'
INSERT INTO enriched
SELECT id, cid, CAST(NULL AS STRING), amount FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY cid ORDER BY proc_time ASC) AS rn FROM orders)
WHERE rn = 1;
EOF
} >"$WORK/dedup.sql"
"$BIN" --catalog "$WORK/dedup.db" -f "$WORK/dedup.sql" >"$WORK/dedup.out" 2>&1
rc=$?
[ "$rc" = 1 ] || { tail -5 "$WORK/dedup.out"; die "the deduplication of a RocketMQ table exited $rc, not 1 (a statement error)"; }
grep -q "deduplication of table 'orders': .*acknowledges messages itself.*key column 'id' of table 'enriched' is not written from a PARTITION BY column" \
    "$WORK/dedup.out" || { cat "$WORK/dedup.out"; die "the deduplication's refusal does not name the reason"; }
grep -q "^read=" "$WORK/dedup.out" && { cat "$WORK/dedup.out"; die "the refused deduplication ran"; }
grep -q "LookupJoin (LEFT): customers AS c" "$WORK/dedup.out" &&
    grep -q "delivery: exactly-once (the postgres sink records each applied message's id" "$WORK/dedup.out" ||
    { head -40 "$WORK/dedup.out"; die "EXPLAIN of the join does not show the LEFT lookup join, exactly-once by message id"; }
ok "EXPLAIN: the LEFT lookup join, exactly-once by message id"
ok "a deduplication of the RocketMQ table is refused at plan time (exit 1): $(grep -o "acknowledges messages itself[^,]*" "$WORK/dedup.out" | head -1)"

# the three processes, started at once
t1=$(date +%s)
PIDS=()
for i in $(seq 1 "$PROCS"); do
    "$BIN" --log-level info --catalog "$WORK/p$i.db" -f "$WORK/join.sql" >"$WORK/p$i.out" 2>&1 &
    PIDS+=($!)
done
JOBS="${PIDS[*]}"
for i in $(seq 1 "$PROCS"); do
    pid=${PIDS[$((i - 1))]}
    left=120
    while kill -0 "$pid" 2>/dev/null && [ "$left" -gt 0 ]; do sleep 0.5; left=$((left - 1)); done
    kill -0 "$pid" 2>/dev/null && die "process $i did not end within 60 s of its bounded read"
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
    [ "$r" -gt 0 ] || { tail -5 "$WORK/p$i.out"; die "process $i read no order ($line): the group did not spread the orders"; }
    grep -q "lookup of customers: " "$WORK/p$i.out" || { tail -5 "$WORK/p$i.out"; die "process $i has no lookup summary"; }
    sum=$((sum + r))
    reads="$reads${reads:+ + }$r"
done
[ "$sum" -ge "$N" ] || die "the three processes read $reads = $sum orders, fewer than $N"
ok "$PROCS processes of one consumer group ended by themselves in $(($(date +%s) - t1))s, each read orders: $reads = $sum"

# the table against psql's own LEFT JOIN of the same orders and customers
row="id || '|' || coalesce(cid::text, '-') || '|' || coalesce(name, '-') || '|' || amount::numeric(10, 2)::text"
got=$(psql_q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $S.enriched") ||
    die "reading $S.enriched"
[ "$got" = "$N|$N|0|$((N - 1))" ] ||
    die "enriched: count|distinct ids|min|max = $got, expected $N|$N|0|$((N - 1))"
ok "enriched: $got (every order once, no id twice)"
want_md5=$(psql_q "SELECT md5(string_agg($row, E'\\n' ORDER BY id)), count(*), count(name), count(*) - count(name)
                   FROM (SELECT o.id, o.cid, c.name, o.amount FROM $S.orders_ref o
                         LEFT JOIN $S.customers c ON c.id = o.cid) j") || die "psql's join"
got_md5=$(psql_q "SELECT md5(string_agg($row, E'\\n' ORDER BY id)), count(*), count(name), count(*) - count(name)
                  FROM $S.enriched") || die "reading $S.enriched"
IFS='|' read -r wmd5 wn wfound wmissing <<<"$want_md5"
[ "$wn" = "$N" ] && [ "$wfound" -gt 0 ] && [ "$wmissing" -gt 0 ] ||
    die "psql's join has $wn rows, $wfound with a customer, $wmissing without (the join would mean little)"
[ "$got_md5" = "$want_md5" ] || {
    psql_q "SELECT 'want ' || $row FROM (SELECT o.id, o.cid, c.name, o.amount FROM $S.orders_ref o
              LEFT JOIN $S.customers c ON c.id = o.cid) j
            EXCEPT SELECT 'want ' || $row FROM $S.enriched ORDER BY 1 LIMIT 3"
    die "enriched (md5|rows|with a customer|without: $got_md5) differs from psql's LEFT JOIN ($want_md5)"
}
ok "enriched equals psql's LEFT JOIN row for row (md5 $wmd5; $wfound orders with a customer, $wmissing without)"
got=$(psql_q "SELECT count(*), count(DISTINCT id), count(DISTINCT pipeline) FROM $S.rocketsql_applied") ||
    die "reading $S.rocketsql_applied"
[ "$got" = "$N|$N|1" ] ||
    die "rocketsql_applied: ids|distinct|pipelines = $got, expected $N|$N|1 (each message applied once, by one pipeline)"
ok "rocketsql_applied: each of the $N message ids once, one pipeline shared by the $PROCS processes"
echo "note: redeliveries recognized as applied: $(cat "$WORK"/p[0-9].out |
    grep -o "[0-9]* redelivered messages were applied before" | awk '{s += $1} END {print s + 0}')"
ok "total $(($(date +%s) - T0))s"
echo "PASS t_pg_lookup_scale"
