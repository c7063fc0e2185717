#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_txn_sink.sh: the kafka sink with sink.delivery-guarantee 'exactly-once' (Kafka
# transactions carrying the source positions) through a real Kafka, killed by SIGKILL.
# A file of N JSON lines (ids 1..N) is copied by a job into a 3-partition topic in
# transactions of 1,000 rows. The job is killed KILLS times at random moments (each a random
# delay after the run's position in the catalog moved past where the last run was killed, so
# that every run commits something; each kill checked to land on a running process: exit 137)
# and run again on its catalog, then to the end of the file. Then the topic, read by Kafka's Java
# console consumer with isolation.level=read_committed, holds every id exactly once: sorted,
# equal to the ids of the file (an awk extraction of it); read_uncommitted it may hold more
# (the rows of transactions a kill left open, aborted at the next start), never fewer.
# Then Kafka to Kafka: a second job copies that topic (read_committed, bounded at its end)
# into a 2-partition topic exactly-once, killed KILLS2 times alike and run to the end: the
# second topic, read_committed, holds every id exactly once too.
# Needs Kafka (scripts/kafka) running: without it it fails.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql.
# Last line: "PASS t_txn_sink" or "FAIL t_txn_sink: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_TXN_N:-300000}
KILLS=5
KILLS2=2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_txn.XXXXXX")
PID=""
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
die() {
    echo "FAIL t_txn_sink: $*"
    [ -f "$WORK/run.out" ] && tail -5 "$WORK/run.out" | sed 's/^/    run: /'
    exit 1
}
ok() { echo "ok: $* [${SECONDS}s]"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqltxn$(date +%s)$$"
PT="${T}_positions"
"$KAFKA" topic "$T" 3 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }

awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++) printf "{\"id\":%d,\"name\":\"n%x\"}\n", i, i * 7919 }' \
    >"$WORK/in.jsonl"
awk -F'[:,]' '{ print $2 }' "$WORK/in.jsonl" | sort >"$WORK/expected"
[ "$(wc -l <"$WORK/expected")" = "$N" ] || die "the reference has not $N lines"

"$BIN" --catalog "$WORK/cat.db" -e "
CREATE TABLE src (id BIGINT, name VARCHAR) WITH ('connector'='filesystem',
  'path'='$WORK/in.jsonl', 'format'='json');
CREATE TABLE dst (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$T', 'format'='json',
  'sink.delivery-guarantee'='exactly-once', 'sink.positions-topic'='$PT',
  'sink.transaction.max-rows'='1000');
SET 'state.flush-interval' = '100ms';
CREATE JOB copy AS INSERT INTO dst SELECT * FROM src" >"$WORK/setup.out" 2>&1 ||
    { cat "$WORK/setup.out"; die "catalog setup"; }
"$BIN" --catalog "$WORK/cat.db" -e "EXPLAIN INSERT INTO dst SELECT * FROM src" >"$WORK/explain.out" 2>&1
grep -q "delivery: exactly-once (the kafka sink stores the source position" "$WORK/explain.out" ||
    { cat "$WORK/explain.out"; die "EXPLAIN does not say exactly-once"; }

# pos [JOB]: the job's positions in the catalog, summed (bytes of the file, offsets of the
# partitions; they move once rows are reported
# written, i.e. once their transaction committed). Only to time the kills: the checks below
# read the topic with Kafka's own consumer.
pos() {
    sqlite3 -cmd ".timeout 2000" "$WORK/cat.db" \
        "select coalesce(sum(cast(value as integer)), 0) from offsets where pipeline like '${1:-copy}@%'" 2>/dev/null || echo 0
}
# kill_runs JOB KILLS: run JOB and SIGKILL it KILLS times (each after its position moved)
kill_runs() {
    local job=$1 kills=$2 last=0 i end rc
    for i in $(seq 1 "$kills"); do
        "$BIN" --catalog "$WORK/cat.db" -e "RUN JOB $job" >"$WORK/run.out" 2>&1 &
        PID=$!
        # a random moment after at least one more commit of this run
        end=$((SECONDS + 120))
        until [ "$(pos "$job")" -gt "$last" ]; do
            [ "$SECONDS" -lt "$end" ] || die "$job, kill $i: no transaction committed within 120 s"
            kill -0 "$PID" 2>/dev/null || die "$job, kill $i: the run ended before it was killed"
            sleep 0.05
        done
        sleep "0.$((RANDOM % 10))"
        kill -KILL "$PID"
        wait "$PID"
        rc=$?
        PID=""
        [ "$rc" = 137 ] || die "$job, kill $i: exit $rc, not killed by SIGKILL (the run ended first?)"
        last=$(pos "$job")
        ok "$job: kill $i landed (at position $last)"
    done
    "$BIN" --catalog "$WORK/cat.db" -e "RUN JOB $job" >"$WORK/run.out" 2>&1 || die "$job: the last run failed"
    grep -q "failed=0" "$WORK/run.out" || die "$job: the last run had failures"
    ok "$job: the last run ended: $(grep -o 'read=[0-9]*' "$WORK/run.out")"
}
# exactly_once_in TOPIC: read_committed, TOPIC holds every id of the file exactly once
exactly_once_in() {
    "$KAFKA" consume --read-committed "$1" >"$WORK/committed.jsonl" 2>"$WORK/consume.err" ||
        die "read_committed consume of $1"
    awk -F'[:,]' '{ print $2 }' "$WORK/committed.jsonl" | sort >"$WORK/got"
    local got dups
    got=$(wc -l <"$WORK/got")
    dups=$(uniq -d "$WORK/got" | wc -l)
    [ "$dups" = 0 ] || die "$1, read_committed: $dups ids more than once ($got records)"
    cmp -s "$WORK/got" "$WORK/expected" ||
        die "$1, read_committed: $got records, not the file's $N ids ($(comm -23 "$WORK/expected" "$WORK/got" | wc -l) missing)"
}
SEED=${T_TXN_SEED:-$$}
RANDOM=$SEED
echo "seed $SEED, topic $T"
kill_runs copy "$KILLS"
exactly_once_in "$T"
"$KAFKA" consume "$T" >"$WORK/uncommitted.jsonl" 2>/dev/null || die "read_uncommitted consume"
unc=$(wc -l <"$WORK/uncommitted.jsonl")
[ "$unc" -ge "$N" ] || die "read_uncommitted: $unc records, fewer than $N"
ok "$T, read_committed: every one of $N ids exactly once; read_uncommitted: $unc records (aborted ones included)"

# Kafka to Kafka
T2="${T}_copy"
"$KAFKA" topic "$T2" 2 >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T2"; }
"$BIN" --catalog "$WORK/cat.db" -e "
CREATE TABLE ksrc (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$T', 'format'='json',
  'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset',
  'properties.isolation.level'='read_committed');
CREATE TABLE kdst (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$T2', 'format'='json',
  'sink.delivery-guarantee'='exactly-once', 'sink.positions-topic'='$PT',
  'sink.transaction.max-rows'='1000');
SET 'state.flush-interval' = '100ms';
CREATE JOB k2k AS INSERT INTO kdst SELECT * FROM ksrc" >"$WORK/setup2.out" 2>&1 ||
    { cat "$WORK/setup2.out"; die "catalog setup (kafka to kafka)"; }
kill_runs k2k "$KILLS2"
exactly_once_in "$T2"
ok "$T2 (copied from $T), read_committed: every one of $N ids exactly once"
echo "PASS t_txn_sink"
