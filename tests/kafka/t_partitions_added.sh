#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_partitions_added.sh: partitions added to a topic while a consumer-group job reads it are
# read too (scan.topic-partition-discovery.interval). A 2-partition topic is read in a group
# (unbounded) into a file with each row's partition (METADATA); 500 keyed records
# (ids 1..500, Kafka's Java console producer) reach the file; the topic is then given 4
# partitions and 2,000 more keyed records (ids 501..2500) are produced, spread by the key's
# hash over all four. Checks, each awaiting an event (never a fixed sleep): every id arrives,
# none twice (an awk extraction of the file against seq), rows of partitions 2 and 3 are among
# them, and the job says it took the added partitions; SIGTERM ends it (exit 143, every row
# written).
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql.
# Last line: "PASS t_partitions_added" or "FAIL t_partitions_added: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_parts.XXXXXX")
PID=""
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
die() {
    echo "FAIL t_partitions_added: $*"
    [ -f "$WORK/job.out" ] && tail -8 "$WORK/job.out" | sed 's/^/    job: /'
    exit 1
}
ok() { echo "ok: $* [${SECONDS}s]"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlparts$(date +%s)$$"
"$KAFKA" topic "$T" 2 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }

cat >"$WORK/job.sql" <<SQL
CREATE TABLE k (id BIGINT, part INT METADATA FROM 'partition' VIRTUAL)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T',
        'properties.group.id'='${T}g', 'scan.startup.mode'='earliest-offset',
        'scan.topic-partition-discovery.interval'='1s');
CREATE TABLE dst (id BIGINT, part INT) WITH ('connector'='filesystem', 'path'='$WORK/out.jsonl');
INSERT INTO dst SELECT id, part FROM k;
SQL
"$BIN" --catalog "$WORK/cat.db" --log-level info -f "$WORK/job.sql" >"$WORK/job.out" 2>&1 &
PID=$!

produce() { # FIRST LAST: keyed records (key = id)
    seq "$1" "$2" | awk '{ printf "%d\t{\"id\":%d}\n", $1, $1 }' >"$WORK/batch"
    "$KAFKA" produce --keys "$T" <"$WORK/batch" >"$WORK/produce.log" 2>&1 ||
        { tail -5 "$WORK/produce.log"; die "producing $1..$2"; }
}
rows() { [ -f "$WORK/out.jsonl" ] && wc -l <"$WORK/out.jsonl" || echo 0; }
await() { # SECONDS WHAT COMMAND...
    local end=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        kill -0 "$PID" 2>/dev/null || die "the job exited while waiting for $what"
        [ "$SECONDS" -lt "$end" ] || die "no $what within $1 s ($(rows) rows)"
        sleep 0.2
    done
}
rows_ge() { [ "$(rows)" -ge "$1" ]; }

produce 1 500
await 120 "the first 500 rows" rows_ge 500
ok "the first 500 ids read from 2 partitions"
"$KAFKA" partitions "$T" 4 >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "adding partitions"; }
produce 501 2500
await 120 "all 2500 rows" rows_ge 2500
said() { grep -q "partition $T/$1 was added to the topic after the job started" "$WORK/job.out"; }
await 30 "the log line on partition 2" said 2
await 30 "the log line on partition 3" said 3

sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$WORK/out.jsonl" | sort -n >"$WORK/got"
seq 1 2500 >"$WORK/expected"
dups=$(uniq -d "$WORK/got" | wc -l)
[ "$dups" = 0 ] || die "$dups ids more than once"
cmp -s "$WORK/got" "$WORK/expected" || die "the ids are not 1..2500 ($(wc -l <"$WORK/got") rows)"
new=$(grep -c '"part":[23]}' "$WORK/out.jsonl")
[ "$new" -gt 0 ] || die "no row of the added partitions 2 and 3"
ok "all 2500 ids once, $new of them from the added partitions 2 and 3"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=""
[ "$rc" = 143 ] || die "exit $rc after SIGTERM (expected 143: interrupted)"
grep -q "^read=2500 written=2500 .* interrupted" "$WORK/job.out" || die "no summary of 2500 rows written"

echo "PASS t_partitions_added"
