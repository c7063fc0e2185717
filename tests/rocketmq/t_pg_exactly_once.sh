#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_exactly_once.sh: RocketMQ -> postgres and RocketMQ -> sqlite are exactly-once across
# kill -9 and a proxy restart, against the real broker and the real PostgreSQL 15 of
# scripts/postgres (both must run: the test fails, never skips, without them).
# N JSON messages (T_PGEO_N, default 100,000) are produced by the official Java client
# (tests/interop/rmq-interop) to a NORMAL topic. Two rocketsql jobs (consumer groups of their
# own) copy them into a postgres append table and into a sqlite table; both are SIGKILLed
# KILLS times (5) mid-run (each kill checked to land on a running process: exit 137) and
# restarted, the proxy is restarted once between two kills, then both run to completion
# (scan.idle-timeout). Invisible duration 10 s (the minimum), so a killed run's held messages
# come back soon: messages that were written but not acked when a kill landed are delivered
# again, and must be acked without being written again. The tables must equal the input
# exactly: N rows, N distinct ids 0..N-1, and the same sha256 of every (id, customer, amount)
# as the input (psql, sqlite3). Last line: "PASS t_pg_exactly_once" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_PGEO_N:-10000}
KILLS=5
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_pg_exactly_once.XXXXXX")
JOBS=""
S="eo$$"
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
cleanup() {
    local j
    for j in $JOBS; do kill -KILL "$j" 2>/dev/null; done
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_pg_exactly_once: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null || die "psql"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)
P="rsqleo$(date +%s)$$"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}in" normal
mk group "${P}pg"
mk group "${P}sq"

# the input, as a file of JSON lines the Java producer sends one message per line
python3 - "$N" "$WORK" <<'PY'
import hashlib, sys
n, work = int(sys.argv[1]), sys.argv[2]
h = hashlib.sha256()
with open(work + "/in.jsonl", "w") as f:
    for i in range(n):
        c, a = "c%d" % (i * 7919 % 1000), "%d.%02d" % (i % 5000, i % 100)
        f.write('{"id":%d,"customer":"%s","amount":%s}\n' % (i, c, a))
        h.update(b"%d|%s|%s\n" % (i, c.encode(), a.encode()))
open(work + "/expected.sha256", "w").write(h.hexdigest())
PY
t0=$(date +%s)
"$INTEROP" produce --endpoint "$EP" --topic "${P}in" --file "$WORK/in.jsonl" \
    >"$WORK/produce.out" 2>&1 || { tail -5 "$WORK/produce.out"; die "producing $N messages"; }
grep -q "sent=$N failed=0" "$WORK/produce.out" || { tail -3 "$WORK/produce.out"; die "produce"; }
ok "the Java client produced $N messages in $(($(date +%s) - t0))s"

src() { # GROUP
    cat <<EOF
CREATE TABLE IF NOT EXISTS src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
        'source.consumer-group'='$1', 'source.invisible-duration'='10s',
        'scan.idle-timeout'='20s');
EOF
}
{ src "${P}pg"; cat <<EOF
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='postgres', 'url'='$URL', 'table-name'='$S.orders',
        'sink.buffer-flush.max-rows'='200');
INSERT INTO dst SELECT * FROM src;
EOF
} >"$WORK/pg.sql"
{ src "${P}sq"; cat <<EOF
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='orders', 'sink.batch-size'='200');
INSERT INTO dst SELECT * FROM src;
EOF
} >"$WORK/sq.sql"

"$BIN" --catalog "$WORK/explain.db" -e "$(src g; echo "CREATE TABLE dst (id BIGINT, customer
    VARCHAR, amount DOUBLE) WITH ('connector'='postgres', 'url'='$URL', 'table-name'='x');
    EXPLAIN INSERT INTO dst SELECT * FROM src;")" >"$WORK/explain.out" 2>&1
grep -q "delivery: exactly-once (the postgres sink records each applied message's id" \
    "$WORK/explain.out" || { cat "$WORK/explain.out"; die "EXPLAIN does not say exactly-once"; }
ok "EXPLAIN says exactly-once, by message id"

start_jobs() { # RUN
    "$BIN" --catalog "$WORK/pg.db" -f "$WORK/pg.sql" >"$WORK/pg$1.out" 2>&1 &
    JPG=$!
    "$BIN" --catalog "$WORK/sq.db" -f "$WORK/sq.sql" >"$WORK/sq$1.out" 2>&1 &
    JSQ=$!
    JOBS="$JPG $JSQ"
}
pg_rows() { psql_q "SELECT count(*) FROM $S.orders" 2>/dev/null || echo 0; }
sq_rows() { sqlite3 "$WORK/out.db" "SELECT count(*) FROM orders" 2>/dev/null || echo 0; }

for k in $(seq 1 "$KILLS"); do
    start_jobs "$k"
    before_pg=$(pg_rows)
    before_sq=$(sq_rows)
    # wait (at most 60 s) until both wrote rows in this run, then a random 0-1.5 s more
    for i in $(seq 1 600); do
        [ "$(pg_rows)" -gt "$before_pg" ] && [ "$(sq_rows)" -gt "$before_sq" ] && break
        sleep 0.1
    done
    sleep "$((RANDOM % 2)).$((RANDOM % 10))"
    for j in $JPG $JSQ; do
        kill -0 "$j" 2>/dev/null || { tail -5 "$WORK/pg$k.out" "$WORK/sq$k.out"; die "run $k ended before kill $k"; }
    done
    kill -KILL $JPG $JSQ
    wait "$JPG"; rpg=$?
    wait "$JSQ"; rsq=$?
    JOBS=""
    [ "$rpg" = 137 ] && [ "$rsq" = 137 ] || die "run $k: exits $rpg/$rsq, not SIGKILL"
    ok "kill $k landed on both running jobs: postgres $(pg_rows) rows, sqlite $(sq_rows) rows"
    if [ "$k" = 3 ]; then
        "$RMQ" restart-proxy >"$WORK/restart.out" 2>&1 || { tail -5 "$WORK/restart.out"; die "restart-proxy"; }
        ok "the proxy was restarted"
    fi
done

t1=$(date +%s)
start_jobs final
for j in $JPG $JSQ; do
    left=240
    while kill -0 "$j" 2>/dev/null && [ "$left" -gt 0 ]; do sleep 1; left=$((left - 1)); done
    kill -0 "$j" 2>/dev/null && die "a final run did not end within 240 s"
done
wait "$JPG"; rpg=$?
wait "$JSQ"; rsq=$?
JOBS=""
[ "$rpg" = 0 ] || { tail -5 "$WORK/pgfinal.out"; die "the final postgres run failed (exit $rpg)"; }
[ "$rsq" = 0 ] || { tail -5 "$WORK/sqfinal.out"; die "the final sqlite run failed (exit $rsq)"; }
ok "final runs to completion in $(($(date +%s) - t1))s"

exp=$(cat "$WORK/expected.sha256")
got=$(psql_q "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $S.orders")
[ "$got" = "$N|$N|0|$((N - 1))" ] || die "postgres table: count|distinct|min|max = $got, expected $N|$N|0|$((N - 1))"
ok "postgres: $got (no row missing or doubled)"
sum=$(psql_q "SELECT id || '|' || customer || '|' || to_char(amount, 'FM9999990.00') FROM $S.orders ORDER BY id" |
    sha256sum | cut -d' ' -f1)
[ "$sum" = "$exp" ] || die "postgres rows differ from the input (sha256)"
ok "postgres: every row equals the input (sha256)"
got=$(sqlite3 "$WORK/out.db" "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM orders")
[ "$got" = "$N|$N|0|$((N - 1))" ] || die "sqlite table: $got, expected $N|$N|0|$((N - 1))"
ok "sqlite: $got (no row missing or doubled)"
sum=$(sqlite3 "$WORK/out.db" "SELECT id || '|' || customer || '|' || printf('%.2f', amount) FROM orders ORDER BY id" |
    sha256sum | cut -d' ' -f1)
[ "$sum" = "$exp" ] || die "sqlite rows differ from the input (sha256)"
ok "sqlite: every row equals the input (sha256)"
got=$(psql_q "SELECT count(*) FROM $S.rocketsql_applied")
[ "$got" = "$N" ] || die "postgres: rocketsql_applied holds $got message ids, expected $N"
got=$(sqlite3 "$WORK/out.db" "SELECT count(*) FROM rocketsql_applied")
[ "$got" = "$N" ] || die "sqlite: rocketsql_applied holds $got message ids, expected $N"
ok "both sinks recorded each applied message id once ($N)"
echo "PASS t_pg_exactly_once"
