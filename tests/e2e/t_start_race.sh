#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_start_race.sh: scale-out start. Against the real PostgreSQL of scripts/postgres (this
# test fails, never skips, when it cannot be reached), eight rocketsql processes (each its
# own catalog and pipeline) start at once into one postgres table that does not exist yet,
# 20 times, each time in a new schema: on odd rounds the schema exists (created empty by
# psql), on even rounds rocketsql creates it too. Every process creates what is missing
# (the schema, the table, rocketsql_positions) at the same moment as the seven others, and
# every one of them must start and write its rows: each exits 0, the table holds each
# process's rows exactly once, and rocketsql_positions one row per pipeline. The same for the
# sqlite sink: eight processes start at once into a new database file, 20 times.
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
pg_connect
P=8
ROUNDS=20
S="race$$" # schemas ${S}_1 .. ${S}_20, dropped at the end
pg_cleanup() {
    local r q=""
    for r in $(seq 1 $ROUNDS); do
        q="$q DROP SCHEMA IF EXISTS ${S}_$r CASCADE;"
    done
    psql_q "$q" >/dev/null 2>&1 || true
}
pg_cleanup
trap 'pg_cleanup; e2e_cleanup' EXIT
ok "PostgreSQL at $URL"

# process i: its own catalog, its own input (ids i*100+1 .. i*100+3), and a sink table per
# round (the round's schema)
for i in $(seq 1 $P); do
    for k in 1 2 3; do
        echo "{\"id\":$((i * 100 + k)),\"who\":\"p$i\"}"
    done >"in$i.jsonl"
    {
        echo "CREATE TABLE src (id BIGINT, who STRING) WITH ('connector' = 'filesystem', "
        echo "  'path' = 'in$i.jsonl');"
        for r in $(seq 1 $ROUNDS); do
            echo "CREATE TABLE dst$r (id BIGINT, who STRING) WITH ('connector' = 'postgres',"
            echo "  'url' = '$URL', 'table-name' = '${S}_$r.t');"
            echo "CREATE TABLE lite$r (id BIGINT, who STRING) WITH ('connector' = 'sqlite',"
            echo "  'path' = 'r$r/out.db', 'table' = 't');"
        done
    } >"setup$i.sql"
    "$RSQL" --catalog "cat$i.db" -f "setup$i.sql" >/dev/null 2>"setup$i.err" ||
        fail "process $i's tables: $(cat "setup$i.err")"
done
ok "$P catalogs, each with its own source and one sink table per round"

# start_all R SINK: the P processes run INSERT INTO SINK SELECT * FROM src at once; each must
# exit 0
start_all() {
    local r=$1 pids="" i pid
    for i in $(seq 1 $P); do
        "$RSQL" --catalog "cat$i.db" -e "INSERT INTO $2 SELECT * FROM src" \
            >"out$r.$i" 2>"err$r.$i" &
        pids="$pids $!"
    done
    e2e_pids="$pids"
    i=0
    for pid in $pids; do
        i=$((i + 1))
        wait_pid "$pid" 60
        [ "$RC" = 0 ] || fail "round $r ($2): process $i of $P exited $RC: $(cat "err$r.$i")"
    done
    e2e_pids=""
}

want=$(for i in $(seq 1 $P); do for k in 1 2 3; do echo "$((i * 100 + k))"; done; done)
for r in $(seq 1 $ROUNDS); do
    if [ $((r % 2)) = 1 ]; then
        psql_q "CREATE SCHEMA ${S}_$r" >/dev/null
    fi
    start_all "$r" "dst$r"
    same "$(psql_q "SELECT id FROM ${S}_$r.t ORDER BY id")" "$want" \
        "round $r: every process's rows, once each"
    same "$(psql_q "SELECT count(*) FROM ${S}_$r.rocketsql_positions")" "$P" \
        "round $r: a stored position per pipeline"
done
ok "$ROUNDS rounds of $P processes started at once into a new table in a new schema"

for r in $(seq 1 $ROUNDS); do
    start_all "$r" "lite$r"
    same "$(sqlite3 "r$r/out.db" "SELECT id FROM t ORDER BY id")" "$want" \
        "sqlite round $r: every process's rows, once each"
    same "$(sqlite3 "r$r/out.db" "SELECT count(*) FROM rocketsql_positions")" "$P" \
        "sqlite round $r: a stored position per pipeline"
done
ok "$ROUNDS rounds of $P processes started at once into a new sqlite database"
echo PASS
