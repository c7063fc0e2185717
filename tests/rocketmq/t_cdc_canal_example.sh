#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_cdc_canal_example.sh: examples/cdc-to-postgres.sql against the local RocketMQ and
# PostgreSQL (both must run: the test fails, never skips, without them). tests/lib/canal_gen.py
# writes Canal's flat messages (canal-json) for a random workload over shop.orders (T_CANAL_OPS
# messages, 3,000, over T_CANAL_KEYS keys, 300; several rows per statement, updates changing
# the key, DDL messages and another table's changes) and the table it leaves (final.csv). The
# official Java client sends them in order to a FIFO topic, in one message group (as Canal
# sends a topic's messages to one queue: an update may move a row to another key, so only the
# total order is right). A copy of the example (endpoint, names and URL of this run) applies
# the topic to a PostgreSQL table while the client sends: it is SIGKILLed once a quarter of
# the messages are applied (and not all), run again, and once the producer is done run a last
# time to the end (scan.idle-timeout). The table must then equal the generator's final table
# row for row (final.csv loaded with psql \copy into a table of its own, compared with EXCEPT
# ALL both ways), and EXPLAIN must say exactly-once and give the changelog mode.
#
# At the same time the same messages with one more in the middle, a canal INSERT of two new
# keys whose second row has a qty that is not a number, go to a second topic, applied by the
# example with errors.tolerance = 'all' and a dead-letter table: exactly that message is
# dead-lettered (its error names the field, its raw body is the message), neither of its rows
# is applied, and that table too equals final.csv.
# T_CANAL_SEED repeats a run. Last line: "PASS t_cdc_canal_example" or "FAIL ...".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
GEN=$REPO/tests/lib/canal_gen.py
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
OPS=${T_CANAL_OPS:-3000}
KEYS=${T_CANAL_KEYS:-300}
SEED=${T_CANAL_SEED:-$((($(date +%s) * 31 + $$) % 1000000))}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_cdc_canal_example.XXXXXX")
P="cc$(date +%s)$$"
JOB=""
JOB3=""
KEEP=0
# NOTICEs off; timestamps compared in UTC (rocketsql reads Canal's DATETIME text as UTC)
export PGOPTIONS="-c client_min_messages=warning -c TimeZone=UTC"
psql_q() { "$PGS" psql -tA -v ON_ERROR_STOP=1 -c "$1"; }
cleanup() {
    [ -z "$JOB" ] || kill -KILL "$JOB" 2>/dev/null
    [ -z "$JOB3" ] || kill -KILL "$JOB3" 2>/dev/null
    psql_q "DROP TABLE IF EXISTS ${P}_replica, ${P}_replica2, ${P}_want, ${P}_dlq;
            DELETE FROM rocketsql_applied WHERE id LIKE '${P}_cdc%'" >/dev/null 2>&1
    [ "$KEEP" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
die() { echo "FAIL t_cdc_canal_example: $*"; echo "seed: $SEED (work dir $WORK kept)"; KEEP=1; exit 1; }
ok() { echo "ok: $*"; }

echo "seed: $SEED (T_CANAL_SEED=$SEED repeats this run)"
[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URL=$("$PGS" url)

# ---- the messages, and the table they leave (the generator's own replay, --verify)
python3 "$GEN" --ops "$OPS" --keys "$KEYS" --seed "$SEED" --noise --key-updates --verify \
    --messages "$WORK/msgs.jsonl" --state "$WORK/final.csv" 2>"$WORK/gen.log" ||
    { cat "$WORK/gen.log"; die "canal_gen"; }
ok "canal_gen: $(cat "$WORK/gen.log")"
[ "$(wc -l <"$WORK/msgs.jsonl")" = "$OPS" ] || die "canal_gen wrote $(wc -l <"$WORK/msgs.jsonl") messages, not $OPS"
psql_q "CREATE TABLE ${P}_want (id bigint PRIMARY KEY, name text, qty integer, price numeric(10, 2),
        updated timestamp(3))" >/dev/null || die "creating the reference table"
"$PGS" psql -q -v ON_ERROR_STOP=1 -c "\\copy ${P}_want FROM '$WORK/final.csv' WITH (FORMAT csv)" ||
    die "loading final.csv into ${P}_want"
WANT=$(psql_q "SELECT count(*) FROM ${P}_want")
[ "$WANT" -gt 0 ] || die "the generator's final table is empty"

# the same messages with a poisoned one in the middle, for the second topic
MID=$((OPS / 2))
BAD=$(python3 - "$WORK/msgs.jsonl" "$WORK/poisoned.jsonl" "$MID" "$KEYS" <<'PY'
import json, sys
src, dst, mid, keys = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = open(src, encoding="utf-8").read().splitlines()
m = json.loads(lines[mid - 1])
# an INSERT of two keys the workload never uses; the second row's qty is not a number
bad = dict(m, type="INSERT", isDdl=False, database="shop", table="orders", old=None,
           data=[{"id": str(keys + 7), "name": "poison-ok", "qty": "1", "price": "1.00",
                  "updated": None},
                 {"id": str(keys + 8), "name": "poison-bad", "qty": "twelve", "price": "2.00",
                  "updated": None}])
line = json.dumps(bad, ensure_ascii=False, separators=(",", ":"))
with open(dst, "w", encoding="utf-8") as f:
    f.write("\n".join(lines[:mid] + [line] + lines[mid:]) + "\n")
print(line)
PY
) || die "writing the poisoned stream"

# ---- a FIFO topic each (the clean run, the poisoned run) and their consumer groups, made
# at once (one JVM each), then both sent at once
mk() { # LOG ARGS...: scripts/rocketmq ARGS, in the background
    local log=$WORK/admin-$1.log
    shift
    "$RMQ" "$@" >"$log" 2>&1 &
    MK+=" $!"
}
MK=""
mk t1 topic "${P}_cdc" fifo
mk t2 topic "${P}_cdc2" fifo
mk g1 group "${P}_to_pg" --fifo
mk g2 group "${P}_to_pg2" --fifo
for j in $MK; do wait "$j" || { tail -n 3 "$WORK"/admin-*.log; die "creating the topics and groups"; }; done
ok "topics and consumer groups made"

# the example, its names replaced by this run's
example() { # OUT TOPIC GROUP TABLE
    sed -e "s|127.0.0.1:8081|$EP|; s|'cdc_orders'|'$2'|; s|'cdc_to_pg'|'$3'|" \
        -e "s|postgresql://rsqlpg@127.0.0.1:54329/rocketsql|$URL|; s|'cdc_orders_replica'|'$4'|" \
        "$REPO/examples/cdc-to-postgres.sql" >"$1"
    grep -q "'$2'" "$1" && grep -q "'$3'" "$1" && grep -q "'$4'" "$1" && grep -qF "'$URL'" "$1" &&
        grep -qF "'endpoints' = '$EP'" "$1" || die "the example's names were not replaced"
}
example "$WORK/example.sql" "${P}_cdc" "${P}_to_pg" "${P}_replica"
# the poisoned stream's: under errors.tolerance = 'all', with a dead-letter table
example "$WORK/example2.sql" "${P}_cdc2" "${P}_to_pg2" "${P}_replica2"
{
    cat <<EOF
CREATE TABLE IF NOT EXISTS cdc_dead_letters (raw STRING, stage STRING, error STRING, source STRING,
  ts TIMESTAMP(3)) WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '${P}_dlq');
SET 'errors.tolerance' = 'all';
SET 'errors.dlq.table' = 'cdc_dead_letters';
EOF
    cat "$WORK/example2.sql"
} >"$WORK/example2-dlq.sql"
run_bg() { # OUT SQL CATALOG: a run of rocketsql in the background, its pid in $! 
    "$BIN" --catalog "$WORK/$3" -f "$WORK/$2" >"$WORK/$1" 2>&1 &
}
# a run that ended: exit 0, nothing failed, DLQ messages dead-lettered; prints its counts
ended() { # PID OUT WHAT DLQ
    local rc
    wait "$1"
    rc=$?
    [ "$rc" = 0 ] || { tail -5 "$WORK/$2"; die "$3 failed (exit $rc)"; }
    grep -q "dead_lettered=$4 failed=0" "$WORK/$2" ||
        { tail -5 "$WORK/$2"; die "$3: want $4 dead-lettered and none failed"; }
    ok "$3 ended: $(grep -o 'read=.*' "$WORK/$2" | tail -1)"
}

# ---- the producer (Canal's part), and the replicas applying the topics while it sends
produce() { # TOPIC FILE COUNT: every message in order, one message group
    "$INTEROP" produce --endpoint "$EP" --topic "$1" --file "$2" --type fifo --groups 1 \
        --message-group shop.orders >"$WORK/produce-$1.out" 2>&1 &&
        grep -q "sent=$3 failed=0" "$WORK/produce-$1.out" ||
        { tail -3 "$WORK/produce-$1.out"; echo "producing $3 messages to $1 failed"; return 1; }
}
produce "${P}_cdc" "$WORK/msgs.jsonl" "$OPS" &
PR1=$!
produce "${P}_cdc2" "$WORK/poisoned.jsonl" $((OPS + 1)) &
PR2=$!
run_bg run3.out example2-dlq.sql cdc2.db
JOB3=$!
run_bg run1.out example.sql cdc.db
JOB=$!

# ---- the clean stream: the first run is killed once a quarter of the messages are applied
applied() { psql_q "SELECT count(*) FROM rocketsql_applied WHERE id LIKE '${P}_cdc/%'" 2>/dev/null || echo 0; }
got=0
for _ in $(seq 1 1200); do
    if ! kill -0 "$JOB" 2>/dev/null; then
        # ended before the producer's first message came (scan.idle-timeout): start it again
        wait "$JOB" && [ "$(applied)" = 0 ] && kill -0 "$PR1" 2>/dev/null || break
        run_bg run1.out example.sql cdc.db
        JOB=$!
    fi
    got=$(applied)
    [ "$got" -ge $((OPS / 4)) ] && break
    sleep 0.1
done
kill -KILL "$JOB" 2>/dev/null
wait "$JOB"
rc=$?
JOB=""
[ "$rc" = 137 ] || { tail -5 "$WORK/run1.out"; die "the first run was not killed mid-run (exit $rc)"; }
[ "$got" -ge $((OPS / 4)) ] || die "the first run applied $got messages within 120 s, not $((OPS / 4))"
grep -q "delivery: exactly-once (the postgres sink records each applied message's id" \
    "$WORK/run1.out" || { head -30 "$WORK/run1.out"; die "EXPLAIN does not say exactly-once"; }
grep -qF "Changelog: full (+I -U +U -D) from orders_changes (format 'canal-json'), kept row by row through filter and projection; sink orders_replica applies it by key (id)" \
    "$WORK/run1.out" || { head -30 "$WORK/run1.out"; die "EXPLAIN does not give the changelog mode"; }
got=$(applied)
[ "$got" -lt "$OPS" ] || die "the kill landed after all $OPS messages were applied"
ok "EXPLAIN says exactly-once and the changelog mode; killed with $(psql_q "SELECT count(*) FROM ${P}_replica") rows, $got of $OPS messages applied"
# the second run, while the producer may still send
run_bg run2.out example.sql cdc.db
JOB=$!
wait "$PR1" && wait "$PR2" || die "producing the messages"
ok "the Java client sent the $OPS messages in order to the FIFO topic ${P}_cdc, and them with a poisoned one after message $MID to ${P}_cdc2 ($(grep -ho 'elapsed=[^ ]*' "$WORK"/produce-*.out | tr '\n' ' '))"
ended "$JOB" run2.out "the second run" 0
JOB=""
ended "$JOB3" run3.out "the poisoned stream's first run" '[01]'
JOB3=""
# each stream once more, started after its producer ended, to the end (scan.idle-timeout):
# nothing a run that ended while messages came in may have missed is left unapplied
run_bg run2b.out example.sql cdc.db
JOB=$!
run_bg run3b.out example2-dlq.sql cdc2.db
JOB3=$!
ended "$JOB" run2b.out "the last run" 0
JOB=""
ended "$JOB3" run3b.out "the poisoned stream's last run" '[01]'
JOB3=""

# ---- the replicas against the generator's final table, typed, row for row
same_as_final() { # TABLE WHAT
    local diff n
    diff=$(psql_q "SELECT 'only in the replica: ' || r::text FROM
                     (SELECT id, name, qty, price::numeric(10, 2), updated AT TIME ZONE 'UTC' FROM $1
                      EXCEPT ALL SELECT * FROM ${P}_want) r
                   UNION ALL SELECT 'only in final.csv: ' || w::text FROM
                     (SELECT * FROM ${P}_want EXCEPT ALL
                      SELECT id, name, qty, price::numeric(10, 2), updated AT TIME ZONE 'UTC' FROM $1) w
                   LIMIT 10") || die "comparing $1 with final.csv"
    [ -z "$diff" ] || { printf '%s\n' "$diff"; die "$2 differs from the generator's final table"; }
    n=$(psql_q "SELECT count(*) FROM $1")
    [ "$n" = "$WANT" ] || die "$2 has $n rows, final.csv $WANT"
    ok "$2 equals the generator's final table: $n rows"
}
same_as_final "${P}_replica" "the replica"
dls=$(grep -ho 'dead_lettered=[0-9]*' "$WORK/run3.out" "$WORK/run3b.out" | tr -dc '0-9\n' | paste -sd+ | bc)
[ "$dls" = 1 ] || die "the poisoned stream's runs dead-lettered $dls messages, not 1"
dl=$(psql_q "SELECT count(*) || '|' || min(stage) || '|' || min(error) FROM ${P}_dlq")
case $dl in
    "1|decode|"*"data[2].qty"*) ;;
    *) die "the dead-letter table: want one decode error naming data[2].qty, got: $dl" ;;
esac
raw=$(psql_q "SELECT raw FROM ${P}_dlq")
[ "$raw" = "$BAD" ] || die "the dead letter's raw body is not the poisoned message: $raw"
ok "exactly the poisoned message was dead-lettered (${dl#1|})"
same_as_final "${P}_replica2" "the replica of the poisoned stream"
echo "PASS t_cdc_canal_example"
