#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_keys.sh: a postgres-cdc snapshot of a uuid-keyed table into Kafka exactly-once
# (debezium-json; the positions in sink.positions-topic), killed by SIGKILL while the snapshot
# is being written, resumes after the key of the last row committed: the positions record
# holds "<rows> 36:<uuid>,", the second run says it resumes there and reads exactly the rows
# psql counts after that key (and the table's end), and the topic read read_committed by
# Kafka's console consumer holds every id of the table exactly once (against psql's list).
# scan.startup.mode 'snapshot': bounded, no slot. Needs Kafka (scripts/kafka) and PostgreSQL
# (scripts/postgres) running: without them it fails.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql.
# Last line: "PASS t_pgcdc_keys" or "FAIL t_pgcdc_keys: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
PGS=$REPO/scripts/postgres
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=60000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_pgkeys.XXXXXX")
PID=""
S="kpk$$"
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -c "$1"; }
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
die() {
    echo "FAIL t_pgcdc_keys: $*"
    [ -f "$WORK/run.out" ] && tail -5 "$WORK/run.out" | sed 's/^/    run: /'
    exit 1
}
ok() { echo "ok: $* [${SECONDS}s]"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
URL=$("$PGS" url)
T="rsqlpgk$(date +%s)$$"
PT="${T}_positions"
psql_q "CREATE SCHEMA $S; CREATE TABLE $S.u (id uuid PRIMARY KEY, v text);
  INSERT INTO $S.u SELECT md5(i::text)::uuid, 'v' || i FROM generate_series(1, $N) i" \
    >/dev/null || die "psql"
psql_q "SELECT id FROM $S.u" | sort >"$WORK/expected"
[ "$(wc -l <"$WORK/expected")" = "$N" ] || die "the reference has not $N lines"
"$KAFKA" topic "$T" 3 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }

"$BIN" --catalog "$WORK/cat.db" -e "
CREATE TABLE src (id STRING, v STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S', 'table-name' = 'u',
        'slot.name' = '${S}_slot', 'scan.startup.mode' = 'snapshot',
        'scan.snapshot.fetch.size' = '200');
CREATE TABLE dst (id STRING, v STRING) WITH ('connector' = 'kafka',
  'properties.bootstrap.servers' = '$BS', 'topic' = '$T', 'format' = 'debezium-json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.positions-topic' = '$PT',
  'sink.transaction.max-rows' = '500');
SET 'state.flush-interval' = '50ms';
CREATE JOB copy AS INSERT INTO dst SELECT * FROM src" >"$WORK/setup.out" 2>&1 ||
    { cat "$WORK/setup.out"; die "catalog setup"; }

# the catalog's position of the snapshot (saved once the sink committed rows): only to time
# the kill; the resume's position is the further of it and the positions topic's
saved() {
    sqlite3 -cmd ".timeout 2000" "$WORK/cat.db" \
        "SELECT value FROM offsets WHERE partition = 'snapshot:$S.u'" 2>/dev/null
}
"$BIN" --catalog "$WORK/cat.db" -e "RUN JOB copy" >"$WORK/run.out" 2>&1 &
PID=$!
end=$((SECONDS + 120))
until [ -n "$(saved)" ]; do
    [ "$SECONDS" -lt "$end" ] || die "no transaction committed within 120 s"
    kill -0 "$PID" 2>/dev/null || die "the run ended before it was killed"
    sleep 0.05
done
kill -KILL "$PID"
wait "$PID"
rc=$?
PID=""
[ "$rc" = 137 ] || die "exit $rc, not killed by SIGKILL (the run ended first?)"
case $(saved) in
*" 36:"*",") ok "killed (SIGKILL) during the snapshot; the catalog holds $(saved)" ;;
*) die "the catalog holds '$(saved)' for the snapshot, not a count and a uuid key" ;;
esac
"$KAFKA" consume --read-committed "$PT" >"$WORK/positions.txt" 2>/dev/null ||
    die "read_committed consume of $PT"
grep -q "^[0-9][0-9]* 36:[0-9a-f-]*,\$" "$WORK/positions.txt" ||
    die "the positions topic holds no count and uuid key: $(head -n 3 "$WORK/positions.txt")"
ok "the positions topic holds the key of the last row committed: $(tail -n 1 "$WORK/positions.txt")"

"$BIN" --catalog "$WORK/cat.db" -e "RUN JOB copy" >"$WORK/run.out" 2>&1 || die "the second run failed"
RESUMED=$(sed -n "s/.*resuming .*snapshot:$S.u at \([0-9]*\) (36:\([0-9a-f-]*\),).*/\1 \2/p" \
    "$WORK/run.out" | head -n 1)
[ -n "$RESUMED" ] || die "the second run does not say it resumes after a key: $(head -n 3 "$WORK/run.out")"
KEY=${RESUMED#* }
AFTER=$(psql_q "SELECT count(*) FROM $S.u WHERE id > '$KEY'")
READ=$(grep -o 'read=[0-9]*' "$WORK/run.out" | tail -n 1 | cut -d= -f2)
[ "$READ" = "$((AFTER + 1))" ] ||
    die "the second run read $READ records, not the $AFTER rows after $KEY and the table's end"
ok "the second run resumed at $RESUMED and read exactly the $AFTER rows after it (and the end)"

"$KAFKA" consume --read-committed "$T" >"$WORK/committed.jsonl" 2>"$WORK/consume.err" ||
    die "read_committed consume of $T"
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    print(json.loads(line)["after"]["id"])' "$WORK/committed.jsonl" | sort >"$WORK/got" ||
    die "the topic holds a record that is not debezium-json"
dups=$(uniq -d "$WORK/got" | wc -l)
[ "$dups" = 0 ] || die "read_committed: $dups ids more than once"
cmp -s "$WORK/got" "$WORK/expected" ||
    die "read_committed: $(wc -l <"$WORK/got") records, not the table's $N ids"
ok "$T, read_committed: every one of the table's $N ids exactly once"
echo "PASS t_pgcdc_keys"
