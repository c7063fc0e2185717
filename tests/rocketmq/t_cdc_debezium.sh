#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_cdc_debezium.sh: a real change-data-capture producer, end to end. Debezium's embedded
# engine (tests/interop-debezium/dbz-relay: Debezium 3.6.1, PostgreSQL connector, pgoutput)
# captures a table of database A of the PostgreSQL of scripts/postgres and the official
# RocketMQ Java client sends each change event, as debezium-json, to a FIFO topic whose
# message group is the row's key. rocketsql applies the topic ('format' = 'debezium-json',
# PRIMARY KEY NOT ENFORCED) to a table of database B of the same server and to a sqlite file
# (two jobs, FIFO consumer groups of their own), and each job is SIGKILLed three times, once
# its replica holds 25 %, 50 % and 75 % of the changes (each kill checked to land on a running
# process), then run until the topic is drained (scan.idle-timeout). At the end both replicas equal A
# row for row: the sha256 of A's ordered rows (psql) is that of B's (psql) and of the sqlite
# file's (sqlite3); if not, the keys that differ are printed.
#
# The source table: id INT PRIMARY KEY, v BIGINT (the number of the change that wrote the row),
# name VARCHAR(40), amount NUMERIC(10,2), flag BOOLEAN, ts TIMESTAMP, note VARCHAR (NULL in
# 30 % of the rows), with REPLICA IDENTITY FULL (so an update's and a delete's event carry the
# row's old values in "before", as Flink's debezium-json asks of PostgreSQL tables). How
# Debezium encodes the types (set explicitly by the relay): NUMERIC with
# decimal.handling.mode = string ("12.50": exact digits, which rocketsql's DECIMAL reads; the
# default 'precise' is base64 bytes readable only with the schema, 'double' a binary double),
# TIMESTAMP with time.precision.mode = connect (epoch milliseconds, which the json decoding of
# TIMESTAMP(3) reads; 'adaptive' sends microseconds for TIMESTAMP(6)); the workload writes
# millisecond timestamps, so nothing is lost.
#
# The workload (tests/rocketmq/cdc_workload.py, seeded, the seed printed): SNAPSHOT rows
# (T_CDC_SNAPSHOT, 300) before the relay starts (Debezium's snapshot: op "r"), then N changes
# (T_CDC_N, 20,000: inserts, updates and deletes over KEYS keys, T_CDC_KEYS, 1,000) in
# transactions of 1 to 10 statements, by psql while the jobs run. Every change is one event,
# so the relay has sent everything once it counts SNAPSHOT + N. T_CDC_SEED repeats a run;
# T_CDC_SCHEMA_INCLUDE=1 sends and reads the events with the schema envelope
# (debezium-json.schema-include). T_CDC_RELAY_ONLY=1 checks the producer alone: the official
# Java consumer reads the topic, every key's events must come in order, and folding them must
# give A's rows (no rocketsql job).
# Both servers must run: the test fails, never skips, without them (and without
# wal_level = logical: scripts/postgres start sets it).
# Last line: "PASS t_cdc_debezium" or "FAIL t_cdc_debezium: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
PGS=$REPO/scripts/postgres
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
DBZ=$REPO/tests/interop-debezium/dbz-relay
GEN=$REPO/tests/rocketmq/cdc_workload.py
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_CDC_N:-20000}
KEYS=${T_CDC_KEYS:-1000}
SNAP=${T_CDC_SNAPSHOT:-300}
SEED=${T_CDC_SEED:-$((($(date +%s) * 31 + $$) % 1000000))}
SCHEMA_INCLUDE=${T_CDC_SCHEMA_INCLUDE:-0}
KILLS=3
EVENTS=$((SNAP + N))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_cdc_debezium.XXXXXX")
P="cdc$(date +%s)$$"
DBA=${P}a
DBB=${P}b
RELAY=""
JOBS=""
# UTC for the timestamps' text; NOTICEs off
export PGOPTIONS="-c client_min_messages=warning -c TimeZone=UTC"
die() { echo "FAIL t_cdc_debezium: $*"; echo "seed: $SEED (work dir $WORK kept)"; KEEP=1; exit 1; }
ok() { echo "ok: $*"; }
KEEP=0
PSQL=${RSQL_PG_BIN:-/usr/lib/postgresql/15/bin}/psql
URL=$("$PGS" url)
psql_db() { # DB SQL: one statement (or several) against database DB of the server
    "$PSQL" -X -q -v ON_ERROR_STOP=1 -tA "${URL%/*}/$1" -c "$2"
}
cleanup() {
    local j i
    for j in $JOBS; do kill -KILL "$j" 2>/dev/null; done
    if [ -n "$RELAY" ]; then
        kill -TERM "$RELAY" 2>/dev/null
        for i in $(seq 1 100); do kill -0 "$RELAY" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$RELAY" 2>/dev/null
    fi
    # the replication slot first (it keeps WAL, and DROP DATABASE refuses while it exists)
    for i in 1 2 3 4 5; do
        psql_db postgres "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
                          WHERE slot_name = '$P' AND active_pid IS NOT NULL" >/dev/null 2>&1
        psql_db postgres "SELECT pg_drop_replication_slot('$P') FROM pg_replication_slots
                          WHERE slot_name = '$P'" >/dev/null 2>&1 && break
        sleep 0.2
    done
    psql_db postgres "DROP DATABASE IF EXISTS $DBA WITH (FORCE)" >/dev/null 2>&1
    psql_db postgres "DROP DATABASE IF EXISTS $DBB WITH (FORCE)" >/dev/null 2>&1
    [ "$KEEP" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT

[ "$SCHEMA_INCLUDE" = 1 ] && env_note=" T_CDC_SCHEMA_INCLUDE=1" || env_note=""
echo "seed: $SEED (T_CDC_SEED=$SEED$env_note repeats this run)"
[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
lvl=$(psql_db postgres "SHOW wal_level") || die "psql"
[ "$lvl" = logical ] || die "PostgreSQL runs with wal_level = '$lvl', not logical (scripts/postgres restart)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
URLA=${URL%/*}/$DBA
URLB=${URL%/*}/$DBB
PGUSER_=${URL#postgresql://}
PGUSER_=${PGUSER_%%@*}
PGPORT_=${URL##*:}
PGPORT_=${PGPORT_%%/*}

psql_db postgres "CREATE DATABASE $DBA" >/dev/null || die "creating database $DBA"
psql_db postgres "CREATE DATABASE $DBB" >/dev/null || die "creating database $DBB"
psql_db "$DBA" "CREATE TABLE src (id INT PRIMARY KEY, v BIGINT NOT NULL, name VARCHAR(40) NOT NULL,
    amount NUMERIC(10, 2) NOT NULL, flag BOOLEAN NOT NULL, ts TIMESTAMP NOT NULL, note VARCHAR);
    ALTER TABLE src REPLICA IDENTITY FULL" >/dev/null || die "creating the source table"
python3 "$GEN" gen "$SEED" "$KEYS" "$SNAP" "$N" "$WORK" || die "the workload generator failed"
sql_a() { # FILE...: run SQL files against A (commits not waiting for the disk: a faster workload)
    local f args=()
    for f in "$@"; do args+=(-f "$f"); done
    PGOPTIONS="$PGOPTIONS -c synchronous_commit=off" "$PSQL" -X -q -v ON_ERROR_STOP=1 "$URLA" "${args[@]}"
}
sql_a "$WORK/init.sql" >"$WORK/init.out" 2>&1 || { tail -3 "$WORK/init.out"; die "the snapshot rows"; }

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}cdc" fifo
# the consumer groups (one JVM each) while the relay starts
"$RMQ" group "${P}pg" --fifo >"$WORK/admin-pg.log" 2>&1 &
MKPG=$!
"$RMQ" group "${P}sq" --fifo >"$WORK/admin-sq.log" 2>&1 &
MKSQ=$!
if [ "${T_CDC_RELAY_ONLY:-0}" = 1 ]; then
    "$RMQ" group "${P}v" --fifo >"$WORK/admin-v.log" 2>&1 &
else
    true &
fi
MKV=$!

# ---- the producer: Debezium -> RocketMQ
relay_args=(--endpoint "$EP" --topic "${P}cdc" --work "$WORK/relay" --table public.src
    --pg-port "$PGPORT_" --pg-user "$PGUSER_" --pg-db "$DBA" --name "$P")
[ "$SCHEMA_INCLUDE" = 1 ] && relay_args+=(--schema-include)
"$DBZ" build >"$WORK/relay-build.out" 2>&1 || { tail -5 "$WORK/relay-build.out"; die "building dbz-relay"; }
t0=$(date +%s)
"$DBZ" "${relay_args[@]}" >"$WORK/relay.out" 2>"$WORK/relay.err" &
RELAY=$!
relay_sent() { sed -n 's/^sent=//p' "$WORK/relay/status" 2>/dev/null || echo 0; }
# wait (an event, or the relay's end) until it sent COUNT events; at most SECONDS
wait_sent() { # COUNT SECONDS WHAT
    local i
    for i in $(seq 1 $(($2 * 10))); do
        [ "$(relay_sent)" -ge "$1" ] && return 0
        kill -0 "$RELAY" 2>/dev/null || { tail -n 5 "$WORK/relay.err"; die "the relay ended ($3)"; }
        sleep 0.1
    done
    tail -n 5 "$WORK/relay.err"
    die "the relay sent $(relay_sent) events within $2 s, not the $1 of $3"
}
# the snapshot is sent once the relay counts its rows: every later change is streamed once
wait_sent "$SNAP" 120 "the snapshot"
wait "$MKPG" && wait "$MKSQ" && wait "$MKV" ||
    { tail -n 3 "$WORK"/admin-*.log; die "creating the consumer groups (scripts/rocketmq group)"; }
ok "Debezium's snapshot of $SNAP rows is in the topic ($(($(date +%s) - t0))s after the relay started)"

# ---- the workload, in the background while the replicas apply it
t0=$(date +%s)
sql_a "$WORK/work.sql" >"$WORK/work.out" 2>&1 &
WL=$!

maxv_a() { psql_db "$DBA" "SELECT coalesce(max(v), -1) FROM src"; }

if [ "${T_CDC_RELAY_ONLY:-0}" = 1 ]; then
    wait "$WL" || { tail -3 "$WORK/work.out"; die "the workload failed"; }
    ok "the workload of $N changes ran in $(($(date +%s) - t0))s"
    wait_sent "$EVENTS" 120 "the snapshot and the workload"
    [ "$(relay_sent)" = "$EVENTS" ] || die "the relay sent $(relay_sent) events, not $EVENTS"
    ok "the relay sent $EVENTS events"
    # ids: the event's ts_ns (when Debezium made it; a rare tie only ends the read by timeout)
    "$INTEROP" consume --endpoint "$EP" --topic "${P}cdc" --group "${P}v" --count "$EVENTS" \
        --id-field ts_ns --timeout 20 --print >"$WORK/events.out" 2>"$WORK/consume.err"
    python3 "$GEN" fold "$WORK/events.out" >"$WORK/folded.rows" 2>"$WORK/fold.err" ||
        { cat "$WORK/fold.err"; die "the events of a key came out of order"; }
    cat "$WORK/fold.err"
    grep -q "^fold: $EVENTS events" "$WORK/fold.err" || die "the consumer did not get the $EVENTS events"
fi

rows_a() {
    psql_db "$DBA" "SELECT id || '|' || v || '|' || name || '|' || amount::numeric(10, 2) || '|' ||
        flag::text || '|' || to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS') || '|' || coalesce(note, '\\N')
        FROM src ORDER BY id"
}
# B's table is made by the postgres sink (numeric, timestamptz: formatted alike in UTC)
rows_b() {
    psql_db "$DBB" "SELECT id || '|' || v || '|' || name || '|' || amount::numeric(10, 2) || '|' ||
        flag::text || '|' || to_char(ts, 'YYYY-MM-DD HH24:MI:SS.MS') || '|' || coalesce(note, '\\N')
        FROM replica ORDER BY id"
}
# the sqlite sink stores DECIMAL as its text, BOOLEAN as 0/1, TIMESTAMP(3) as its text
rows_sq() {
    sqlite3 "$WORK/replica.db" "SELECT id || '|' || v || '|' || name || '|' || amount || '|' ||
        CASE flag WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE flag END || '|' || ts || '|' ||
        coalesce(note, '\\N') FROM replica ORDER BY id"
}
# compare NAME FILE with A's rows: the sha256 of the ordered rows, the differing keys if not
same_as_a() { # NAME FILE
    local a b
    a=$(sha256sum <"$WORK/a.rows" | cut -d' ' -f1)
    b=$(sha256sum <"$2" | cut -d' ' -f1)
    if [ "$a" != "$b" ]; then
        python3 "$GEN" diff A "$WORK/a.rows" "$1" "$2"
        die "$1 differs from the source table A (sha256 $b, A's $a)"
    fi
    ok "$1 equals the source table A: $(wc -l <"$2") rows, sha256 $a"
}

if [ "${T_CDC_RELAY_ONLY:-0}" = 1 ]; then
    rows_a >"$WORK/a.rows" || die "reading A"
    same_as_a "the Java consumer's fold of the events" "$WORK/folded.rows"
    echo "PASS t_cdc_debezium"
    exit 0
fi

# ---- the replicas: rocketsql applies the topic to B and to a sqlite file
COLS="id INT, v BIGINT, name VARCHAR, amount DECIMAL(10, 2), flag BOOLEAN, ts TIMESTAMP(3),
    note VARCHAR, PRIMARY KEY (id) NOT ENFORCED"
[ "$SCHEMA_INCLUDE" = 1 ] && fmt_opt=", 'debezium-json.schema-include'='true'" || fmt_opt=""
src_sql() { # GROUP [EXTRA-OPTION]
    cat <<EOF
CREATE TABLE src ($COLS)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}cdc',
        'source.consumer-group'='$1', 'source.invisible-duration'='10s',
        'format'='debezium-json'$fmt_opt${2:-});
EOF
}
jobs_sql() { # [EXTRA-OPTION]
    { src_sql "${P}pg" "${1:-}"; cat <<EOF
CREATE TABLE dst ($COLS)
  WITH ('connector'='postgres', 'url'='$URLB', 'table-name'='replica',
        'sink.buffer-flush.max-rows'='200');
INSERT INTO dst SELECT * FROM src;
EOF
    } >"$WORK/pg.sql"
    { src_sql "${P}sq" "${1:-}"; cat <<EOF
CREATE TABLE dst ($COLS)
  WITH ('connector'='sqlite', 'path'='$WORK/replica.db', 'table'='replica', 'sink.batch-size'='200');
INSERT INTO dst SELECT * FROM src;
EOF
    } >"$WORK/sq.sql"
}
start_jobs() { # RUN: a new catalog each run (the tables are declared again: no state kept in it)
    "$BIN" --log-level info --catalog "$WORK/pg$1.db" -f "$WORK/pg.sql" >"$WORK/pg$1.out" 2>&1 &
    JPG=$!
    "$BIN" --log-level info --catalog "$WORK/sq$1.db" -f "$WORK/sq.sql" >"$WORK/sq$1.out" 2>&1 &
    JSQ=$!
    JOBS="$JPG $JSQ"
}
maxv_b() { psql_db "$DBB" "SELECT coalesce(max(v), -1) FROM replica" 2>/dev/null || echo -1; }
maxv_sq() {
    sqlite3 -cmd ".timeout 2000" "$WORK/replica.db" "SELECT coalesce(max(v), -1) FROM replica" 2>/dev/null ||
        echo -1
}

jobs_sql
t1=$(date +%s)
for k in $(seq 1 "$KILLS"); do
    start_jobs "$k"
    # each job is killed once its replica holds a row written by the change at k/4 of the
    # workload (v grows with the changes' order; at most 120 s)
    at=$((SNAP + k * N / (KILLS + 1)))
    left="$JPG $JSQ"
    for _ in $(seq 1 1200); do
        for j in $left; do
            kill -0 "$j" 2>/dev/null || { tail -n 5 "$WORK/pg$k.out" "$WORK/sq$k.out"; die "run $k ended before kill $k"; }
        done
        if [[ " $left " == *" $JPG "* ]] && [ "$(maxv_b)" -ge "$at" ]; then
            kill -KILL "$JPG"
            left=${left/$JPG/}
            gotb=$(maxv_b)
        fi
        if [[ " $left " == *" $JSQ "* ]] && [ "$(maxv_sq)" -ge "$at" ]; then
            kill -KILL "$JSQ"
            left=${left/$JSQ/}
            gotsq=$(maxv_sq)
        fi
        [ -n "${left// /}" ] || break
        sleep 0.1
    done
    [ -z "${left// /}" ] || { tail -n 5 "$WORK/pg$k.out" "$WORK/sq$k.out";
        die "run $k: the replicas did not reach change $at within 120 s (B at $(maxv_b), sqlite at $(maxv_sq))"; }
    wait "$JPG"; rpg=$?
    wait "$JSQ"; rsq=$?
    JOBS=""
    [ "$rpg" = 137 ] && [ "$rsq" = 137 ] || die "run $k: exits $rpg/$rsq, not SIGKILL"
    ok "kill $k landed on both running jobs past change $at: B at change $gotb, sqlite at $gotsq"
done
wait "$WL" || { tail -3 "$WORK/work.out"; die "the workload failed"; }
ok "the workload of $N changes ran in $(($(date +%s) - t0))s"
last=$(maxv_a)
got=$(maxv_b)/$(maxv_sq)
[ "${got%/*}" -lt "$last" ] && [ "${got#*/}" -lt "$last" ] ||
    die "after $KILLS kills the replicas already hold the last change (B/sqlite at $got of $last): the kills did not land mid-stream"
ok "$KILLS kills landed mid-stream: B/sqlite at change $got of $last ($(($(date +%s) - t1))s)"

wait_sent "$EVENTS" 120 "the snapshot and the workload"
[ "$(relay_sent)" = "$EVENTS" ] || die "the relay sent $(relay_sent) events, not $EVENTS"
ok "the relay sent $EVENTS events ($SNAP snapshot reads, $N changes)"

# the last run ends once the topic is drained (15 s without a message: longer than the
# invisible duration, so what the last killed run held is back before it ends)
t1=$(date +%s)
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
ok "the final runs drained the topic in $(($(date +%s) - t1))s"

rows_a >"$WORK/a.rows" || die "reading A"
rows_b >"$WORK/b.rows" || die "reading B's replica"
rows_sq >"$WORK/sq.rows" || die "reading the sqlite replica"
same_as_a "B (postgres)" "$WORK/b.rows"
same_as_a "the sqlite file" "$WORK/sq.rows"
kill -0 "$RELAY" 2>/dev/null || { tail -n 5 "$WORK/relay.err"; die "the relay ended on its own"; }
echo "PASS t_cdc_debezium"
