#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_example_enrich.sh: examples/enrich-orders.sql against the local RocketMQ and PostgreSQL
# (both must run: the test fails, never skips, without them). 300 customers go into a
# PostgreSQL table (names with quotes and accents, some tiers NULL, a few ids with no
# customer); 3,000 JSON orders (some customer ids missing from the table, some NULL) are
# produced by the official Java client; a copy of the example (this run's endpoint, topics,
# groups, table and URL) runs to its idle end; the Java client consumes the enriched topic.
# Delivery into RocketMQ is at-least-once, so an order may come more than once: the set of
# distinct messages must equal psql's LEFT JOIN of the same orders and customers (each
# message's fields compared as JSON values, nothing missing, nothing else), and EXPLAIN must
# show the LEFT lookup join with its cache and at-least-once delivery. Last line: "PASS t_pg_example_enrich" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_example_enrich.XXXXXX")
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
P="en$(date +%s)$$"
cleanup() {
    psql_q "DROP TABLE IF EXISTS ${P}_customers, ${P}_orders" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_example_enrich: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)
N=3000

# the customers (300; ids 1..330 of which every eleventh is absent), and the orders
python3 - "$N" "$WORK" <<'PY'
import csv, json, random, sys
n, work = int(sys.argv[1]), sys.argv[2]
r = random.Random(3)
tiers = ["gold", "silver", "bronze", None]
with open(work + "/customers.csv", "w", newline="") as f:
    w = csv.writer(f)
    for i in range(1, 331):
        if i % 11 == 0:
            continue
        name = ["Ada", "Grace", "Zoë O'Brien", 'Ren "the" Fox', "Łukasz, Jr."][i % 5] + " %d" % i
        tier = tiers[i % 4]
        w.writerow([i, name, "" if tier is None else tier])
with open(work + "/orders.jsonl", "w") as f, open(work + "/orders.csv", "w", newline="") as c:
    w = csv.writer(c)
    for oid in range(n):
        cid = None if oid % 37 == 0 else r.randint(1, 345)   # 331..345: no such customer
        amount = "%d.%02d" % (r.randint(0, 9999), r.randint(0, 99))
        f.write('{"id":%d,"customer_id":%s,"amount":%s}\n'
                % (oid, "null" if cid is None else cid, amount))
        w.writerow([oid, "" if cid is None else cid, amount])
PY
psql_q "CREATE TABLE ${P}_customers (id integer PRIMARY KEY, name text, tier text);
        CREATE TABLE ${P}_orders (id bigint, customer_id integer, amount numeric(10, 2))" \
    >/dev/null || die "creating the tables"
psql_q "\\copy ${P}_customers FROM '$WORK/customers.csv' WITH (FORMAT csv)" >/dev/null &&
    psql_q "\\copy ${P}_orders FROM '$WORK/orders.csv' WITH (FORMAT csv)" >/dev/null ||
    die "loading the customers and the orders into PostgreSQL"
[ "$(psql_q "SELECT count(*) FROM ${P}_customers")|$(psql_q "SELECT count(*) FROM ${P}_orders")" = "300|$N" ] ||
    die "PostgreSQL does not hold 300 customers and $N orders"
ok "PostgreSQL at $URL: 300 customers in ${P}_customers"

"$RMQ" topic "${P}_orders" normal >"$WORK/admin.log" 2>&1 || die "topic ${P}_orders"
"$RMQ" topic "${P}_enriched" normal >>"$WORK/admin.log" 2>&1 || die "topic ${P}_enriched"
"$RMQ" group "${P}_enrich" >>"$WORK/admin.log" 2>&1 || die "group ${P}_enrich"
"$RMQ" group "${P}_check" >>"$WORK/admin.log" 2>&1 || die "group ${P}_check"
"$INTEROP" produce --endpoint "$EP" --topic "${P}_orders" --file "$WORK/orders.jsonl" \
    >"$WORK/produce.out" 2>&1 && grep -q "sent=$N failed=0" "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $N orders"; }
ok "the Java client produced $N orders"

sed -e "s|'127.0.0.1:8081'|'$EP'|g; s|'en_orders'|'${P}_orders'|; s|'en_enrich'|'${P}_enrich'|" \
    -e "s|'en_enriched_orders'|'${P}_enriched'|; s|'en_customers'|'${P}_customers'|" \
    -e "s|'postgresql://rsqlpg@127.0.0.1:54329/rocketsql'|'$URL'|" \
    "$REPO/examples/enrich-orders.sql" >"$WORK/example.sql"
for name in "'$EP'" "'${P}_orders'" "'${P}_enrich'" "'${P}_enriched'" "'${P}_customers'" "'$URL'"; do
    grep -qF "$name" "$WORK/example.sql" || die "the example's names were not replaced ($name)"
done
# lines that name this run's own endpoint or URL are right even when those equal the example's
left=$(grep -v '^[[:space:]]*--' "$WORK/example.sql" | grep -vF -e "'$EP'" -e "'$URL'" |
    grep "'en_\|127.0.0.1:8081\|:54329") &&
    die "the copy still names the example's own servers or names: $left"
"$BIN" --catalog "$WORK/en.db" -f "$WORK/example.sql" >"$WORK/run.out" 2>&1 ||
    { tail -5 "$WORK/run.out"; die "the example failed"; }
grep -q "LookupJoin (LEFT): customers AS c" "$WORK/run.out" &&
    grep -q "cache: PARTIAL, at most 10000 rows" "$WORK/run.out" &&
    grep -q "delivery: at-least-once" "$WORK/run.out" ||
    { head -40 "$WORK/run.out"; die "EXPLAIN does not show the LEFT lookup join with its cache, at-least-once"; }
grep -q "^read=$N written=$N " "$WORK/run.out" ||
    { tail -5 "$WORK/run.out"; die "the job did not read and write $N orders"; }
grep -q "lookup of customers: .*; cache: [0-9]* hits" "$WORK/run.out" ||
    { tail -5 "$WORK/run.out"; die "no lookup summary with the cache"; }
ok "the example ran: $(grep -o 'read=.*' "$WORK/run.out" | tail -1)"

# what arrived on the enriched topic (stops once every order id was seen; duplicates are
# allowed: at-least-once)
"$INTEROP" consume --endpoint "$EP" --topic "${P}_enriched" --group "${P}_check" \
    --count "$N" --timeout 60 --print >"$WORK/consume.out" 2>"$WORK/consume.err"
tally=$(grep '^received=' "$WORK/consume.out")
case "$tally" in
*" distinct=$N missing=0 "*) ok "the Java client received every order: $tally" ;;
*) tail -5 "$WORK/consume.err"; die "orders are missing from ${P}_enriched: $tally $(grep '^missing_ids=' "$WORK/consume.out")" ;;
esac
grep '^{' "$WORK/consume.out" >"$WORK/got.jsonl"

psql_q "SELECT json_build_object('id', o.id, 'customer_id', o.customer_id, 'amount', o.amount,
          'customer', c.name, 'tier', c.tier)::text
        FROM ${P}_orders o LEFT JOIN ${P}_customers c ON c.id = o.customer_id" >"$WORK/want.jsonl" ||
    die "psql's join"
python3 - "$WORK" "$N" <<'PY' || die "the enriched messages differ from psql's join"
import json, sys
from decimal import Decimal
work, n = sys.argv[1], int(sys.argv[2])

def canon(line):
    o = json.loads(line, parse_float=Decimal, parse_int=Decimal)
    return tuple(sorted((k, v.normalize() if isinstance(v, Decimal) else v) for k, v in o.items()))

got = [canon(l) for l in open(work + "/got.jsonl") if l.strip()]
want = [canon(l) for l in open(work + "/want.jsonl") if l.strip()]
if len(want) != n or len(set(want)) != n:
    sys.exit("psql's join has %d rows, %d distinct, not %d" % (len(want), len(set(want)), n))
g, w = set(got), set(want)
for k, what in ((w - g, "missing"), (g - w, "not in psql's join")):
    if k:
        print("%d messages %s, e.g. %s" % (len(k), what, sorted(k)[:2]))
if g != w:
    sys.exit(1)
left = sum(1 for m in w if dict(m)["customer"] is None)
print("ok: the %d distinct messages (of %d received) equal psql's LEFT JOIN, %d orders "
      "without a customer" % (len(g), len(got), left))
if not 0 < left < n:
    sys.exit("the orders without a customer: %d (the join would mean little)" % left)
PY
echo "PASS t_pg_example_enrich"
