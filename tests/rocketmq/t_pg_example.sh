#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_example.sh: examples/rocketmq-orders-to-postgres.sql against the local RocketMQ and
# PostgreSQL (both must run: the test fails, never skips, without them). 2,000 JSON orders
# are produced by the official Java client; a copy of the example (endpoint, topic, group and
# table names of this run) is run, SIGKILLed once it has written rows, and run again to the
# end. The table must hold each order over 100 exactly once (psql against the input), and
# EXPLAIN must say exactly-once. Last line: "PASS t_pg_example" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_example.XXXXXX")
JOB=""
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
P="ex$(date +%s)$$"
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    psql_q "DROP TABLE IF EXISTS ${P}_big_orders; DELETE FROM rocketsql_applied WHERE pipeline
            = 'insert:orders->big_orders' AND id LIKE '${P}%'" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_pg_example: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)
N=2000
"$RMQ" topic "${P}_orders" normal >"$WORK/admin.log" 2>&1 || die "topic"
"$RMQ" group "${P}_to_pg" >>"$WORK/admin.log" 2>&1 || die "group"
python3 - "$N" "$WORK" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
with open(work + "/in.jsonl", "w") as f, open(work + "/want.txt", "w") as w:
    for i in range(n):
        a = "%d.%02d" % (i * 37 % 300, i % 100)
        f.write('{"id":%d,"customer":"c%d","amount":%s}\n' % (i, i % 50, a))
        if float(a) > 100:
            w.write("%d|c%d|%s\n" % (i, i % 50, a))
PY
"$INTEROP" produce --endpoint "$EP" --topic "${P}_orders" --file "$WORK/in.jsonl" \
    >"$WORK/produce.out" 2>&1 && grep -q "sent=$N failed=0" "$WORK/produce.out" ||
    { tail -3 "$WORK/produce.out"; die "producing $N orders"; }
ok "the Java client produced $N orders"
sed -e "s|127.0.0.1:8081|$EP|; s|eo_orders|${P}_orders|; s|eo_to_pg|${P}_to_pg|" \
    -e "s|postgresql://rsqlpg@127.0.0.1:54329/rocketsql|$URL|; s|eo_big_orders|${P}_big_orders|" \
    "$REPO/examples/rocketmq-orders-to-postgres.sql" >"$WORK/example.sql"
grep -q "${P}_big_orders" "$WORK/example.sql" || die "the example's names were not replaced"
"$BIN" --catalog "$WORK/eo.db" -f "$WORK/example.sql" >"$WORK/run1.out" 2>&1 &
JOB=$!
for i in $(seq 1 600); do
    [ "$(psql_q "SELECT count(*) FROM ${P}_big_orders" 2>/dev/null || echo 0)" -gt 0 ] && break
    sleep 0.1
done
kill -KILL "$JOB" 2>/dev/null
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 137 ] || { tail -5 "$WORK/run1.out"; die "the first run was not killed mid-run (exit $rc)"; }
grep -q "delivery: exactly-once (the postgres sink records each applied message's id" \
    "$WORK/run1.out" || { head -20 "$WORK/run1.out"; die "EXPLAIN does not say exactly-once"; }
ok "EXPLAIN says exactly-once; killed with $(psql_q "SELECT count(*) FROM ${P}_big_orders") rows written"
"$BIN" --catalog "$WORK/eo.db" -f "$WORK/example.sql" >"$WORK/run2.out" 2>&1 ||
    { tail -5 "$WORK/run2.out"; die "the second run failed"; }
ok "the second run ended: $(grep -o 'read=.*' "$WORK/run2.out" | tail -1)"
psql_q "SELECT id || '|' || customer || '|' || to_char(amount, 'FM99990.00') FROM ${P}_big_orders
        ORDER BY id" >"$WORK/got.txt"
diff -q "$WORK/want.txt" "$WORK/got.txt" >/dev/null ||
    die "the table differs from the orders over 100: $(diff "$WORK/want.txt" "$WORK/got.txt" | head -5)"
ok "the table holds each of the $(wc -l <"$WORK/want.txt") orders over 100 exactly once"
echo "PASS t_pg_example"
