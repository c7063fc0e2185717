#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_exactly_once.sh: RocketMQ -> postgres and RocketMQ -> sqlite are exactly-once across
# kill -9 and a proxy restart, against the real broker and the real PostgreSQL 15 of
# scripts/postgres (both must run: the test fails, never skips, without them).
# N JSON messages (T_PGEO_N, default 100,000) are produced by the official Java client
# (tests/interop/rmq-interop, asynchronously with 1,024 sends in flight: 26-37 s on the
# shared 2-core machine) to a NORMAL topic, every tenth with tag "replay", the others "main". Two rocketsql jobs (consumer groups of their
# own) copy them into a postgres append table and into a sqlite table; both are SIGKILLed
# KILLS times (5) mid-run (each kill checked to land on a running process: exit 137) and
# restarted, the proxy is restarted once between two kills, then both run to completion
# (the last run only has a scan.idle-timeout: an earlier run must not end before its kill). Invisible duration 10 s (the minimum), so a killed run's held messages
# come back soon: messages that were written but not acked when a kill landed are delivered
# again, and must be acked without being written again. The tables must equal the input
# exactly: N rows, N distinct ids 0..N-1, and the same sha256 of every (id, customer, amount)
# as the input (psql, sqlite3). Then the same two jobs read the topic's "replay" messages
# (N/10, a broker-side tag filter) again through new consumer groups: every one is a
# redelivery of an applied message, acked, none written again. Last line: "PASS t_pg_exactly_once" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_PGEO_N:-100000}
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
mk group "${P}pg2"
mk group "${P}sq2"

# the input, as a file of JSON lines the Java producer sends one message per line
python3 - "$N" "$WORK" <<'PY'
import hashlib, sys
n, work = int(sys.argv[1]), sys.argv[2]
h = hashlib.sha256()
with open(work + "/in.jsonl", "w") as f, open(work + "/replay.jsonl", "w") as r:
    for i in range(n):
        c, a = "c%d" % (i * 7919 % 1000), "%d.%02d" % (i % 5000, i % 100)
        (r if i % 10 == 0 else f).write('{"id":%d,"customer":"%s","amount":%s}\n' % (i, c, a))
        h.update(b"%d|%s|%s\n" % (i, c.encode(), a.encode()))
open(work + "/expected.sha256", "w").write(h.hexdigest())
PY
t0=$(date +%s)
"$INTEROP" produce --endpoint "$EP" --topic "${P}in" --file "$WORK/replay.jsonl" --tag replay \
    --inflight 1024 >"$WORK/produce2.out" 2>&1 &
PRODUCE2=$!
"$INTEROP" produce --endpoint "$EP" --topic "${P}in" --file "$WORK/in.jsonl" --tag main \
    --inflight 1024 >"$WORK/produce.out" 2>&1 || { tail -5 "$WORK/produce.out"; die "producing $N messages"; }
wait "$PRODUCE2" || { tail -5 "$WORK/produce2.out"; die "producing the replay messages"; }
R=$(((N + 9) / 10))
grep -q "sent=$((N - R)) failed=0" "$WORK/produce.out" || { tail -3 "$WORK/produce.out"; die "produce"; }
grep -q "sent=$R failed=0" "$WORK/produce2.out" || { tail -3 "$WORK/produce2.out"; die "produce"; }
ok "the Java client produced $N messages in $(($(date +%s) - t0))s"

src() { # GROUP [EXTRA-OPTION]: unbounded for the runs that are killed, bounded for the last
    cat <<EOF
DROP TABLE IF EXISTS src;
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
        'source.consumer-group'='$1', 'source.invisible-duration'='10s'${2:-});
EOF
}
jobs_sql() { # [EXTRA-OPTION] [GROUP-SUFFIX]
{ src "${P}pg${2:-}" "${1:-}"; cat <<EOF
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='postgres', 'url'='$URL', 'table-name'='$S.orders',
        'sink.buffer-flush.max-rows'='200');
INSERT INTO dst SELECT * FROM src;
EOF
} >"$WORK/pg.sql"
{ src "${P}sq${2:-}" "${1:-}"; cat <<EOF
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='orders', 'sink.batch-size'='200');
INSERT INTO dst SELECT * FROM src;
EOF
} >"$WORK/sq.sql"
}
jobs_sql

"$BIN" --catalog "$WORK/explain.db" -e "$(src g; echo "CREATE TABLE dst (id BIGINT, customer
    VARCHAR, amount DOUBLE) WITH ('connector'='postgres', 'url'='$URL', 'table-name'='x');
    EXPLAIN INSERT INTO dst SELECT * FROM src;")" >"$WORK/explain.out" 2>&1
grep -q "delivery: exactly-once (the postgres sink records each applied message's id" \
    "$WORK/explain.out" || { cat "$WORK/explain.out"; die "EXPLAIN does not say exactly-once"; }
ok "EXPLAIN says exactly-once, by message id"

start_jobs() { # RUN
    "$BIN" --log-level info --catalog "$WORK/pg.db" -f "$WORK/pg.sql" >"$WORK/pg$1.out" 2>&1 &
    JPG=$!
    "$BIN" --log-level info --catalog "$WORK/sq.db" -f "$WORK/sq.sql" >"$WORK/sq$1.out" 2>&1 &
    JSQ=$!
    JOBS="$JPG $JSQ"
}
pg_rows() { psql_q "SELECT count(*) FROM $S.orders" 2>/dev/null || echo 0; }
sq_rows() { sqlite3 "$WORK/out.db" "SELECT count(*) FROM orders" 2>/dev/null || echo 0; }

t1=$(date +%s)
for k in $(seq 1 "$KILLS"); do
    start_jobs "$k"
    before_pg=$(pg_rows)
    before_sq=$(sq_rows)
    # wait (at most 60 s) until both wrote rows in this run, then a random 0-1.5 s more
    wrote=""
    for i in $(seq 1 600); do
        if [ "$(pg_rows)" -gt "$before_pg" ] && [ "$(sq_rows)" -gt "$before_sq" ]; then
            wrote=1
            break
        fi
        sleep 0.1
    done
    [ -n "$wrote" ] || { tail -n 5 "$WORK/pg$k.out" "$WORK/sq$k.out"; die "run $k: no new row in both sinks within 60 s"; }
    sleep "$((RANDOM % 2)).$((RANDOM % 10))"
    for j in $JPG $JSQ; do
        kill -0 "$j" 2>/dev/null || { tail -n 5 "$WORK/pg$k.out" "$WORK/sq$k.out"; die "run $k ended before kill $k"; }
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

# the kills landed mid-stream: neither sink holds every message yet, so the final run has
# work left after them (and what they left unacked comes back to it)
got=$(pg_rows)/$(sq_rows)
[ "${got%/*}" -lt "$N" ] && [ "${got#*/}" -lt "$N" ] ||
    die "after $KILLS kills the sinks already hold every message (postgres/sqlite $got of $N): the kills did not land mid-stream"
ok "$KILLS kills landed mid-stream: postgres/sqlite $got of $N rows ($(($(date +%s) - t1))s)"
t1=$(date +%s)
# the last run ends once the topic is drained (15 s without a message: longer than the
# invisible duration, so the messages the last killed run held are back before it ends)
jobs_sql ", 'scan.idle-timeout'='15s'"
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
# what the kills left written but not acked came back; how often depends on where each kill
# landed, so this is a note, not a check: the replay below asserts the recognition itself
dups() { cat "$@" | grep -o "[0-9]* redelivered messages were applied before" |
    awk '{s += $1} END {print s + 0}'; }
echo "note: redeliveries recognized during the kills: postgres $(dups "$WORK"/pg[0-9f]*.out), sqlite $(dups "$WORK"/sq[0-9f]*.out)"
# messages delivered again, deterministically: the same jobs (pipelines) read the topic's
# "replay" messages once more through new consumer groups; each is recognized as applied,
# none written
t1=$(date +%s)
jobs_sql ", 'scan.idle-timeout'='5s', 'source.filter-expression'='replay'" 2
start_jobs replay
wait "$JPG"; rpg=$?
wait "$JSQ"; rsq=$?
JOBS=""
[ "$rpg" = 0 ] && [ "$rsq" = 0 ] || { tail -n 5 "$WORK/pgreplay.out" "$WORK/sqreplay.out"; die "the replay runs failed"; }
[ "$(dups "$WORK/pgreplay.out")" = "$R" ] && [ "$(dups "$WORK/sqreplay.out")" = "$R" ] ||
    die "replay: postgres recognized $(dups "$WORK/pgreplay.out"), sqlite $(dups "$WORK/sqreplay.out") of $R messages as applied"
got=$(psql_q "SELECT count(*) FROM $S.orders")/$(sqlite3 "$WORK/out.db" "SELECT count(*) FROM orders")
[ "$got" = "$N/$N" ] || die "the replay wrote rows again: postgres/sqlite $got"
ok "the $R replay messages delivered again to new consumer groups: each acked, none written again ($(($(date +%s) - t1))s)"
echo "PASS t_pg_exactly_once"
