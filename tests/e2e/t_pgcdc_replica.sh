#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_replica.sh: postgres-cdc keeps replicas equal to their source tables through kills
# and a server restart. Against the real PostgreSQL of scripts/postgres (wal_level = logical;
# this test fails, never skips, when it cannot be reached). Three source tables (rfull:
# REPLICA IDENTITY FULL, bigint key, every type, TOASTed texts left alone by updates; rdef:
# DEFAULT, int key, updates that change the key; rkey: DEFAULT, bigint key, jsonb, bytea,
# text[]) get a seeded random workload (tests/e2e/pgcdc_workload.py; the seed is printed,
# RSQL_SEED=N repeats it): 300 transactions before the jobs start (their rows come from the
# snapshot of scan.startup.mode 'initial'; RSQL_PGCDC_MODE=latest-offset leaves that out),
# then the rest while six jobs copy them (exactly-once, a slot each): each table into a
# database of its own on the same server (postgres sink, PRIMARY KEY) and into SQLite
# (sqlite sink, a file per table). Meanwhile every job is SIGKILLed five times, each time
# once the slots have moved on since the jobs started, and started again; and the server is
# restarted once while the jobs run (they must reconnect, not die). At the end, once every
# slot has confirmed the WAL written by the workload, each replica equals its source row for
# row: psql's text of `SELECT ... ORDER BY id` of source and replica, and sqlite3's text of
# the same query on the SQLite copy (types normalised to the same text on both sides).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
pg_connect

SEED=${RSQL_SEED:-$(($(date +%s) % 100000))}
echo "seed $SEED (RSQL_SEED=$SEED repeats this run's workload and kill moments)"
RANDOM=$SEED
WL="python3 $RSQL_SRCDIR/tests/e2e/pgcdc_workload.py"
S="cdcr$$"       # the source schema, and the replica's in database $RDB
RDB="rsql_cdcr$$" # the replica database
SL="rsql_cdcr$$"  # slots and publications: ${SL}_TABLE_SINK
TABLES="rfull rdef rkey"
# initial (default): the rows of segment 0, written before the jobs start, come from the
# snapshot; RSQL_PGCDC_MODE=latest-offset: the jobs start on empty tables
MODE=${RSQL_PGCDC_MODE:-initial}
SINKS="pg lite"
RURL=$(pg_db_url "$RDB")
job_pids=""

stop_jobs() {
    local p
    for p in $job_pids; do
        kill -9 "$p" 2>/dev/null || true
    done
    for p in $job_pids; do
        wait "$p" 2>/dev/null || true
    done
    job_pids=""
}
WLPID=""
pg_cleanup() {
    [ -z "$WLPID" ] || kill "$WLPID" 2>/dev/null || true
    stop_jobs
    # the server must be up for the tests after this one, as it was before
    "$PGS" status >/dev/null 2>&1 || "$PGS" start >/dev/null 2>&1 || true
    # a slot whose walsender has not yet seen its client go is active: wait for it
    local i
    for i in $(seq 1 100); do
        psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '${SL}%' AND active" \
            2>/dev/null | grep -qx 0 && break
        sleep 0.1
    done
    psql_q "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots
            WHERE slot_name LIKE '${SL}%'" >/dev/null 2>&1 || true
    local pubs
    pubs=$(psql_q "SELECT string_agg(quote_ident(pubname), ', ') FROM pg_publication
                   WHERE pubname LIKE '${SL}%'" 2>/dev/null || true)
    [ -z "$pubs" ] || psql_q "DROP PUBLICATION $pubs" >/dev/null 2>&1 || true
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true
    pg_drop_db "$RDB" >/dev/null 2>&1 || true
}
trap 'pg_cleanup; e2e_cleanup' EXIT
same "$(psql_q "SHOW wal_level")" logical "the server's wal_level"

# ---- the source tables, the replica database (the same tables; arrays as their text)
$WL schema "$S" >schema.sql
psql_q "CREATE SCHEMA $S; $(cat schema.sql)" >/dev/null || fail "cannot create the source tables"
pg_create_db "$RDB"
psql_db "$RDB" "CREATE SCHEMA $S; $(grep -v 'REPLICA IDENTITY' schema.sql |
    sed 's/ int\[\]/ text/; s/ text\[\]/ text/')" >/dev/null || fail "cannot create the replica tables"
ok "source tables in schema $S, replica tables in database $RDB"

# the rocketsql columns of each table
declare -A COLS
COLS[rfull]="id BIGINT, name STRING, amount DECIMAL(12, 2), ts TIMESTAMP(3), doc STRING,
  flag BOOLEAN, data BYTES, uid STRING, tags STRING, big STRING"
COLS[rdef]="id INT, name STRING, amount DECIMAL(12, 2), ts TIMESTAMP(3), flag BOOLEAN, uid STRING"
COLS[rkey]="id BIGINT, name STRING, doc STRING, data BYTES, tags STRING, ts TIMESTAMP(3)"
for t in $TABLES; do
    for k in $SINKS; do
        cat <<SQL
CREATE TABLE c_${t}_$k (${COLS[$t]}, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S', 'table-name' = '$t',
  'slot.name' = '${SL}_${t}_$k', 'publication.name' = '${SL}_${t}_$k',
  'scan.startup.mode' = '$MODE', 'heartbeat.interval.ms' = '500');
SQL
    done
    cat <<SQL
CREATE TABLE pg_$t (${COLS[$t]}, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'postgres',
  'url' = '$RURL', 'table-name' = '$S.$t', 'sink.buffer-flush.max-rows' = '50',
  'sink.buffer-flush.interval' = '200ms');
CREATE TABLE lite_$t (${COLS[$t]}, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'sqlite',
  'path' = '$T/$t.db', 'table' = '$t', 'sink.batch-size' = '50');
SQL
done >tables.sql
# a catalog for each job (six processes at once)
for t in $TABLES; do
    for k in $SINKS; do
        CAT="$T/cat_${t}_$k.db"
        rsql -f tables.sql
        expect_rc 0 "the tables of job ${t} -> $k"
    done
done

starts=0
start_jobs() {
    local t k p
    starts=$((starts + 1))
    for t in $TABLES; do
        for k in $SINKS; do
            "$RSQL" --catalog "$T/cat_${t}_$k.db" --log-level info \
                -e "INSERT INTO ${k}_$t SELECT * FROM c_${t}_$k" >>"job_${t}_$k.log" 2>&1 &
            p=$!
            job_pids="$job_pids $p"
            echo "$p ${t}_$k" >>pids
        done
    done
    e2e_pids="$job_pids"
}
# jobs_alive: fails naming the job that exited (a job must not end by itself)
jobs_alive() {
    local p name
    for p in $job_pids; do
        if ! kill -0 "$p" 2>/dev/null; then
            name=$(awk -v p="$p" '$1 == p {print $2}' pids)
            fail "job $name (pid $p) exited by itself: $(tail -n 15 "job_$name.log")"
        fi
    done
}
# wait_for SECONDS WHAT CMD...: polls CMD every 0.1 s while every job runs (wait_until would
# hide jobs_alive's message); fails naming WHAT on timeout
wait_for() {
    local limit=$1 what=$2 i=0
    shift 2
    until "$@" 2>/dev/null; do
        jobs_alive
        i=$((i + 1))
        [ "$i" -lt $((limit * 10)) ] || fail "$what: not within ${limit}s (slots: $(slots_flush))"
        sleep 0.1
    done
}
slots_flush() { # the slots' confirmed_flush_lsn, one line
    psql_q "SELECT string_agg(slot_name || '=' || coalesce(confirmed_flush_lsn::text, '-')
                              || CASE WHEN active THEN '' ELSE '(inactive)' END, ' '
                              ORDER BY slot_name)
            FROM pg_replication_slots WHERE slot_name LIKE '${SL}%'" 2>/dev/null
}
n_slots() { psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '${SL}%'"; }
# advanced_since LSNS: some slot's confirmed flush moved past what slots_flush said then
advanced_since() { [ "$(slots_flush)" != "$1" ]; }
# caught_up LSN: every slot confirmed LSN (the jobs committed everything before it)
caught_up() {
    [ "$(psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE '${SL}%'
                   AND confirmed_flush_lsn >= '$1'")" = 6 ]
}

if [ "$MODE" = initial ]; then
    $WL run "$S" "$SEED" 0 300 100000 | "$PGS" psql >wl_0.out 2>&1 || fail "segment 0 failed: $(tail -3 wl_0.out)"
    ok "segment 0 (300 transactions) written before the jobs start: $(psql_q "SELECT
        (SELECT count(*) FROM $S.rfull) + (SELECT count(*) FROM $S.rdef) + (SELECT count(*) FROM $S.rkey)") rows"
fi
start_jobs
slots_made() { [ "$(n_slots)" = 6 ]; }
wait_for 60 "the jobs create their 6 slots" slots_made
ok "six jobs started, their slots created: $(n_slots)"

# workload SEGMENT TXNS RATE: runs a workload segment in the background (WLPID)
workload() {
    $WL run "$S" "$SEED" "$1" "$2" "$3" | "$PGS" psql >"wl_$1.out" 2>&1 &
    WLPID=$!
}
wait_workload() {
    wait_pid "$WLPID" 60
    [ "$RC" = 0 ] || fail "workload segment failed: $(tail -5 wl_*.out)"
    WLPID=""
}
kills=0
# kill_all_once: once a slot moved on since the jobs started, after a random moment (0 to
# 1.5 s), SIGKILL every job, then start them again
kill_all_once() {
    local before=$1
    wait_for 60 "a slot moves on (before kill $((kills + 1)))" advanced_since "$before"
    sleep "$(printf '0.%03d' $((RANDOM % 1000)))" # a random moment, not an event
    jobs_alive
    stop_jobs
    kills=$((kills + 1))
    ok "kill $kills: every job SIGKILLed (slots: $(slots_flush))"
    start_jobs
}

# ---- segment 1: one kill; segment 2: two kills; then the server restarted; segment 3: two
workload 1 400 60
kill_all_once "$(slots_flush)"
wait_workload
ok "segment 1 (400 transactions) done"

workload 2 400 60
kill_all_once "$(slots_flush)"
kill_all_once "$(slots_flush)"
wait_workload
ok "segment 2 done"

# the jobs are still applying segment 2 (six jobs on two cores lag behind the workload)
"$PGS" restart >restart.out 2>&1 || fail "scripts/postgres restart failed: $(cat restart.out)"
ok "PostgreSQL restarted while the jobs run"
workload 3 400 60
kill_all_once "$(slots_flush)"
kill_all_once "$(slots_flush)"
wait_workload
same "$kills" 5 "jobs SIGKILLed five times"
workload 4 200 60
wait_workload
ok "the workload ended (4 segments)"

# ---- caught up: every slot confirmed the WAL written so far (the jobs committed the rest)
target=$(psql_q "SELECT pg_current_wal_lsn()")
wait_for 60 "every slot confirms $target" caught_up "$target"
ok "every slot confirmed $target"
stop_jobs

# ---- each replica equals its source, row for row
declare -A PGQ LITEQ
PGQ[rfull]="id, coalesce(name, '<null>'), coalesce(amount::text, '<null>'),
  coalesce(to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), '<null>'),
  coalesce(doc::text, '<null>'), coalesce(flag::int::text, '<null>'),
  coalesce(encode(data, 'hex'), '<null>'), coalesce(uid::text, '<null>'),
  coalesce(tags::text, '<null>'), coalesce(big, '<null>')"
PGQ[rdef]="id, coalesce(name, '<null>'), coalesce(amount::text, '<null>'),
  coalesce(to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), '<null>'),
  coalesce(flag::int::text, '<null>'), coalesce(uid::text, '<null>')"
PGQ[rkey]="id, coalesce(name, '<null>'), coalesce(doc::text, '<null>'),
  coalesce(encode(data, 'hex'), '<null>'), coalesce(tags::text, '<null>'),
  coalesce(to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'), '<null>')"
# (sqlite's printf and hex make NULL a text: '0.00', '')
AMT="CASE WHEN amount IS NULL THEN '<null>' ELSE printf('%.2f', amount) END"
HEX="CASE WHEN data IS NULL THEN '<null>' ELSE lower(hex(data)) END"
LITEQ[rfull]="id, coalesce(name, '<null>'), $AMT, coalesce(ts, '<null>'), coalesce(doc, '<null>'),
  coalesce(flag, '<null>'), $HEX, coalesce(uid, '<null>'),
  coalesce(tags, '<null>'), coalesce(big, '<null>')"
LITEQ[rdef]="id, coalesce(name, '<null>'), $AMT, coalesce(ts, '<null>'), coalesce(flag, '<null>'),
  coalesce(uid, '<null>')"
LITEQ[rkey]="id, coalesce(name, '<null>'), coalesce(doc, '<null>'),
  $HEX, coalesce(tags, '<null>'), coalesce(ts, '<null>')"
# same_file A B DESCRIPTION: the files are equal, else the first differing lines
same_file() {
    cmp -s "$1" "$2" || fail "$3: differs (< source, > replica):
$(diff "$1" "$2" | cut -c1-300 | head -20)"
    ok "$3 ($(wc -l <"$1") rows)"
}
for t in $TABLES; do
    psql_q "SELECT ${PGQ[$t]} FROM $S.$t ORDER BY id" >"src_$t.txt"
    psql_db "$RDB" "SELECT ${PGQ[$t]} FROM $S.$t ORDER BY id" >"pg_$t.txt"
    sqlite3 "$T/$t.db" "SELECT ${LITEQ[$t]} FROM $t ORDER BY id" >"lite_$t.txt" ||
        fail "sqlite3 cannot read $t.db"
    [ "$(wc -l <"src_$t.txt")" -gt 50 ] || fail "source $t has only $(wc -l <"src_$t.txt") rows"
    same_file "src_$t.txt" "pg_$t.txt" "replica $t (postgres) equals the source"
    same_file "src_$t.txt" "lite_$t.txt" "replica $t (sqlite) equals the source"
done
echo "PASS ($n_checks checks, seed $SEED, $starts starts)"
