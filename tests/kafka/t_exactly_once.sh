#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_exactly_once.sh: kafka -> sqlite and kafka -> postgres are exactly-once across kill -9,
# and so is kafka -> sqlite read by one member of a consumer group.
# N JSON records (T_EO_N, default 300,000; ids 0..N-1, a random name and value each) are
# produced by Kafka's Java console producer (no key: the producer spreads them over the
# partitions) into a 4-partition topic. Two rocketsql processes, each with its own catalog,
# copy the topic (earliest-offset, bounded at the end it had when the run started) into an
# append table without a key, one in SQLite (sink.batch-size 1: a transaction per row) and
# one in the PostgreSQL of scripts/postgres (sink.buffer-flush.max-rows 50); a third process
# reads the topic subscribed in a consumer group (unbounded; a static member,
# properties.group.instance.id, so that each restart takes its partitions back at once rather
# than after the killed member's session expired) into another SQLite table, and at the end
# runs until that table holds N rows, then stops on SIGTERM; each table also keeps
# the record's partition and offset (METADATA columns). The three are SIGKILLed KILLS times
# (6) at random moments (a delay drawn in [0, a sixth of a calibration run]; the first waits
# for rows in the table so it lands mid-copy; every kill checked to land on a running
# process: exit 137) and started again on their catalogs, then run to their end. After every
# kill each table holds no duplicate and, per partition, exactly the offsets 0..k-1 (a
# prefix); its stored position of each partition (rocketsql_positions) is that k. At the end
# each table equals the produced file: N rows, N distinct ids, and the same sorted (id, name,
# value) lines as an awk extraction of the file (no duplicate could hide: no key).
# Needs Kafka (scripts/kafka) and PostgreSQL (scripts/postgres) running: without them it fails.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql
# (default <repo>/build). Last line: "PASS t_exactly_once" or "FAIL t_exactly_once: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
PGS=$REPO/scripts/postgres
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_EO_N:-300000}
KILLS=6
PARTS=4
SEED=${T_EO_SEED:-$$}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_eo.XXXXXX")
PIDS=""
S="keo$$"
export PGOPTIONS="-c client_min_messages=warning"
psql_q() { "$PGS" psql -tA -F'|' -c "$1"; }
cleanup() {
    local p
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_exactly_once: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
"$PGS" status >/dev/null 2>&1 || die "PostgreSQL is not running ($PGS status)"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S" >/dev/null || die "psql"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
URL=$("$PGS" url)
T="rsqleo$(date +%s)$$"
echo "seed $SEED, topic $T"
"$KAFKA" topic "$T" "$PARTS" >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }

python3 - "$N" "$WORK/in.jsonl" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
r = random.Random(7)
with open(path, "w") as f:
    for i in range(n):
        f.write('{"id":%d,"name":"n%x","v":%d}\n' % (i, r.getrandbits(40), r.randint(-10**15, 10**15)))
PY
# the reference: the produced lines as id|name|v, sorted (awk on the file, not our output)
awk -F'[:,}"]+' '{ print $3 "|" $5 "|" $7 }' "$WORK/in.jsonl" | sort >"$WORK/expected"
[ "$(wc -l <"$WORK/expected")" = "$N" ] || die "the reference has not $N lines"
"$KAFKA" produce "$T" <"$WORK/in.jsonl" >"$WORK/produce.log" 2>&1 || { tail -5 "$WORK/produce.log"; die "producing"; }
ok "produced $N records into $T ($PARTS partitions, Java console producer)"

source_sql() {
    cat <<SQL
CREATE TABLE IF NOT EXISTS k (id BIGINT, name VARCHAR, v BIGINT,
    part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T',
        'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset',
        'value.format'='json');
SQL
}
{ source_sql; cat <<SQL; } >"$WORK/sq.sql"
CREATE TABLE IF NOT EXISTS d (id BIGINT, name VARCHAR, v BIGINT, part INT, off BIGINT)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='copy', 'sink.batch-size'='1');
INSERT INTO d SELECT id, name, v, part, off FROM k;
SQL
# the third job reads in a consumer group (subscribed, unbounded) into its own sqlite table
{ source_sql | sed "s/'scan.bounded.mode'='latest-offset',/'properties.group.id'='${T}g', 'properties.group.instance.id'='eo-1',/"; cat <<SQL; } >"$WORK/gq.sql"
CREATE TABLE IF NOT EXISTS d (id BIGINT, name VARCHAR, v BIGINT, part INT, off BIGINT)
  WITH ('connector'='sqlite', 'path'='$WORK/grp.db', 'table'='copy', 'sink.batch-size'='1');
INSERT INTO d SELECT id, name, v, part, off FROM k;
SQL
grep -q "'properties.group.id'='${T}g'" "$WORK/gq.sql" || die "the group job's statement"
{ source_sql; cat <<SQL; } >"$WORK/pg.sql"
CREATE TABLE IF NOT EXISTS d (id BIGINT, name VARCHAR, v BIGINT, part INT, off BIGINT)
  WITH ('connector'='postgres', 'url'='$URL', 'table-name'='$S.copy',
        'sink.buffer-flush.max-rows'='50');
INSERT INTO d SELECT id, name, v, part, off FROM k;
SQL

sq() { sqlite3 "$WORK/out.db" "$1" 2>/dev/null; }
gq() { sqlite3 "$WORK/grp.db" "$1" 2>/dev/null; }
# per table: "rows|distinct ids" and, per partition, "part|rows|max offset + 1"
sq_stats() { sq "SELECT count(*) || '|' || count(DISTINCT id) FROM copy"; }
pg_stats() { psql_q "SELECT count(*), count(DISTINCT id) FROM $S.copy"; }
sq_parts() { sq "SELECT part, count(*), max(off) + 1 FROM copy GROUP BY part ORDER BY part"; }
pg_parts() { psql_q "SELECT part, count(*), max(off) + 1 FROM $S.copy GROUP BY part ORDER BY part"; }
# the positions each sink stored with its rows, as "part|offset" (the lane is "topic/part")
gq_stats() { gq "SELECT count(*) || '|' || count(DISTINCT id) FROM copy"; }
gq_parts() { gq "SELECT part, count(*), max(off) + 1 FROM copy GROUP BY part ORDER BY part"; }
gq_pos() { gq "SELECT substr(partition, length('$T') + 2) || '|' || \"offset\" FROM rocketsql_positions ORDER BY 1"; }
sq_pos() { sq "SELECT substr(partition, length('$T') + 2) || '|' || \"offset\" FROM rocketsql_positions ORDER BY 1"; }
pg_pos() { psql_q "SELECT substr(partition, length('$T') + 2), \"offset\" FROM $S.rocketsql_positions WHERE partition LIKE '$T/%' ORDER BY 1"; }

# check NAME STATS PARTS POS: no duplicate; each partition a prefix 0..k-1 of its offsets,
# k its stored position (partitions with no row yet store none, or 0)
check() {
    local name=$1 stats parts pos rows distinct
    stats=$($2) parts=$($3) pos=$($4)
    rows=${stats%%|*} distinct=${stats#*|}
    [ -n "$rows" ] || rows=0 distinct=0
    [ "$rows" = "$distinct" ] || die "$name: $rows rows but $distinct distinct ids: a duplicate"
    local want_pos
    want_pos=$(echo "$parts" | awk -F'|' 'NF == 3 { if ($2 != $3) bad = bad " " $1 ":" $2 "/" $3; print $1 "|" $3 } END { if (bad) print "NOTPREFIX" bad }')
    case $want_pos in *NOTPREFIX*) die "$name: a partition's rows are not a prefix of its offsets (part:rows/max+1):${want_pos##*NOTPREFIX}" ;; esac
    local got_pos
    got_pos=$(echo "$pos" | awk -F'|' 'NF == 2 && $2 > 0')
    [ "$want_pos" = "$got_pos" ] || die "$name: stored positions '$(echo $got_pos)' but the rows end at '$(echo $want_pos)'"
    echo "$rows"
}

# calibration: one uninterrupted sqlite run, to scale the kill delays
t0=$(date +%s%N)
"$BIN" --catalog "$WORK/cal.db" -f "$WORK/sq.sql" >"$WORK/cal.out" 2>&1 || { tail -5 "$WORK/cal.out"; die "calibration run"; }
full_ms=$((($(date +%s%N) - t0) / 1000000))
[ "$(check sqlite sq_stats sq_parts sq_pos)" = "$N" ] || die "calibration run: not $N rows"
rm -f "$WORK"/out.db* "$WORK"/cal.db*
span_ms=$((full_ms / 6))
[ "$span_ms" -ge 50 ] || span_ms=50
ok "calibration: an uninterrupted run took $full_ms ms; kills after 0..$span_ms ms"

RANDOM=$SEED
for k in $(seq 1 "$KILLS"); do
    "$BIN" --catalog "$WORK/sq.db" -f "$WORK/sq.sql" >"$WORK/sq$k.out" 2>&1 & sq_pid=$!
    "$BIN" --catalog "$WORK/pg.db" -f "$WORK/pg.sql" >"$WORK/pg$k.out" 2>&1 & pg_pid=$!
    "$BIN" --catalog "$WORK/gq.db" -f "$WORK/gq.sql" >"$WORK/gq$k.out" 2>&1 & gq_pid=$!
    PIDS="$sq_pid $pg_pid $gq_pid"
    if [ "$k" = 1 ]; then # the first kill lands mid-copy: once the tables have rows
        t1=$SECONDS
        until [ "$(sq "SELECT count(*) FROM copy")" -gt 0 ] 2>/dev/null &&
              [ "$(gq "SELECT count(*) FROM copy")" -gt 0 ] 2>/dev/null &&
              [ "$(psql_q "SELECT count(*) FROM $S.copy" 2>/dev/null)" -gt 0 ] 2>/dev/null; do
            kill -0 "$sq_pid" 2>/dev/null || die "the sqlite job ended before its first kill: $(tail -3 "$WORK/sq1.out")"
            kill -0 "$pg_pid" 2>/dev/null || die "the postgres job ended before its first kill: $(tail -3 "$WORK/pg1.out")"
            kill -0 "$gq_pid" 2>/dev/null || die "the group job ended before its first kill: $(tail -3 "$WORK/gq1.out")"
            [ $((SECONDS - t1)) -lt 60 ] || die "no rows in the tables within 60 s"
            sleep 0.05
        done
    fi
    delay=$((RANDOM % (span_ms + 1)))
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -KILL "$sq_pid" "$pg_pid" "$gq_pid" 2>/dev/null
    wait "$sq_pid"; sq_rc=$?
    wait "$pg_pid"; pg_rc=$?
    wait "$gq_pid"; gq_rc=$?
    PIDS=""
    [ "$sq_rc" = 137 ] || die "kill $k: the sqlite job exited $sq_rc, not by SIGKILL (it must still run): $(tail -3 "$WORK/sq$k.out")"
    [ "$pg_rc" = 137 ] || die "kill $k: the postgres job exited $pg_rc, not by SIGKILL (it must still run): $(tail -3 "$WORK/pg$k.out")"
    [ "$gq_rc" = 137 ] || die "kill $k: the group job exited $gq_rc, not by SIGKILL (it must still run): $(tail -3 "$WORK/gq$k.out")"
    sq_rows=$(check sqlite sq_stats sq_parts sq_pos) || { echo "$sq_rows"; exit 1; }
    pg_rows=$(check postgres pg_stats pg_parts pg_pos) || { echo "$pg_rows"; exit 1; }
    gq_rows=$(check "sqlite (group)" gq_stats gq_parts gq_pos) || { echo "$gq_rows"; exit 1; }
    ok "kill $k after ${delay} ms landed on the three: sqlite $sq_rows rows, postgres $pg_rows rows, sqlite in a group $gq_rows rows, each without duplicate, each partition a prefix at its stored position"
done

"$BIN" --catalog "$WORK/sq.db" -f "$WORK/sq.sql" >"$WORK/sq-last.out" 2>&1 || { tail -5 "$WORK/sq-last.out"; die "the last sqlite run"; }
"$BIN" --catalog "$WORK/pg.db" -f "$WORK/pg.sql" >"$WORK/pg-last.out" 2>&1 || { tail -5 "$WORK/pg-last.out"; die "the last postgres run"; }
# the group job is unbounded: it runs until its table holds N rows (or more: a duplicate, caught
# below), then stops on SIGTERM
"$BIN" --catalog "$WORK/gq.db" -f "$WORK/gq.sql" >"$WORK/gq-last.out" 2>&1 & gq_pid=$!
PIDS=$gq_pid
t1=$SECONDS
until [ "$(gq "SELECT count(*) FROM copy")" -ge "$N" ] 2>/dev/null; do
    kill -0 "$gq_pid" 2>/dev/null || die "the last group run ended: $(tail -3 "$WORK/gq-last.out")"
    [ $((SECONDS - t1)) -lt 120 ] || die "the group job's table has $(gq "SELECT count(*) FROM copy") rows, not $N, after 120 s"
    sleep 0.1
done
kill -TERM "$gq_pid"
wait "$gq_pid"; gq_rc=$?
PIDS=""
[ "$gq_rc" = 143 ] || die "the last group run: exit $gq_rc after SIGTERM (expected 143): $(tail -3 "$WORK/gq-last.out")"
sq_rows=$(check sqlite sq_stats sq_parts sq_pos) || { echo "$sq_rows"; exit 1; }
pg_rows=$(check postgres pg_stats pg_parts pg_pos) || { echo "$pg_rows"; exit 1; }
gq_rows=$(check "sqlite (group)" gq_stats gq_parts gq_pos) || { echo "$gq_rows"; exit 1; }
[ "$gq_rows" = "$N" ] || die "sqlite (group): $gq_rows rows after the last run, not $N"
[ "$sq_rows" = "$N" ] || die "sqlite: $sq_rows rows after the last run, not $N"
[ "$pg_rows" = "$N" ] || die "postgres: $pg_rows rows after the last run, not $N"
sq "SELECT id || '|' || name || '|' || v FROM copy" | sort >"$WORK/sq.got"
psql_q "SELECT id, name, v FROM $S.copy" | sort >"$WORK/pg.got"
gq "SELECT id || '|' || name || '|' || v FROM copy" | sort >"$WORK/gq.got"
cmp -s "$WORK/expected" "$WORK/gq.got" || die "sqlite (group): the rows differ from the produced file ($(diff "$WORK/expected" "$WORK/gq.got" | head -4 | tr '\n' ' '))"
cmp -s "$WORK/expected" "$WORK/sq.got" || die "sqlite: the rows differ from the produced file ($(diff "$WORK/expected" "$WORK/sq.got" | head -4 | tr '\n' ' '))"
cmp -s "$WORK/expected" "$WORK/pg.got" || die "postgres: the rows differ from the produced file ($(diff "$WORK/expected" "$WORK/pg.got" | head -4 | tr '\n' ' '))"
ok "after $KILLS kills each table equals the produced file: $N rows, every (id, name, v) once"
echo "PASS t_exactly_once"
