#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_txn.sh: postgres-cdc with transaction.atomic into the postgres sink (max-rows 500),
# against the PostgreSQL of scripts/postgres (fails, never skips, when it cannot be reached).
# The workload only inserts, one source transaction at a time, and records the source's own
# count of (kept) rows inside each transaction before its COMMIT: the counts a reader may see
# at transaction boundaries. A concurrent psql reader of the SINK table (\watch) polls
# count(*) the whole time; every count it saw must be one of those. The workload: small
# transactions while the job streams; a 50,000-row transaction, with a slow trigger on the sink
# table so that its one sink transaction takes a while, and a kill -9 once the job has read it
# all and the sink has not committed it; small ones while the job is down; a restart, which
# must make the sink equal to the source (psql EXCEPT both ways). The job's pipeline.memory
# (1MB) is less than the big transaction's bytes, which the sink holds for its end. Then a
# transaction whose last row the job's WHERE drops, so its end never reaches the sink: a stop
# (SIGTERM) must end the run cleanly, saying its rows were not written, and leave the sink at
# the boundary before it; the next run, once a later transaction came, writes them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg_lib.sh"
pg_connect
psql_q() { "$PGS" psql -v ON_ERROR_STOP=1 -tA -c "$1"; }
S="ctx$$"
SLOT="ctx_slot_$$"
JOB_PID=
READER=
drop_all() {
    [ -n "$READER" ] && kill "$READER" 2>/dev/null
    [ -n "$JOB_PID" ] && kill -9 "$JOB_PID" 2>/dev/null
    pg_drop_cdc "$S" "$SLOT"
}
trap 'drop_all; e2e_cleanup' EXIT
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.t (id bigint PRIMARY KEY, v text, tx int);
  CREATE TABLE $S.copy (id bigint PRIMARY KEY, v text, tx int);
  CREATE FUNCTION $S.slow() RETURNS trigger LANGUAGE plpgsql AS
    'BEGIN PERFORM pg_sleep(0.0004); RETURN NEW; END'" >/dev/null
ok "PostgreSQL at $URL, schema $S"

cat >job.sql <<SQL
CREATE TABLE src (id BIGINT, v STRING, tx INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S',
        'table-name' = 't', 'slot.name' = '$SLOT', 'transaction.atomic' = 'true');
CREATE TABLE dst (id BIGINT, v STRING, tx INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres', 'url' = '$URL', 'table-name' = '$S.copy',
        'sink.buffer-flush.max-rows' = '500');
SET 'state.flush-interval' = '200ms';
-- the 50,000-row transaction's bytes pass the bound on bytes in flight: held for its end,
-- they must not make the source wait for them
SET 'pipeline.memory' = '1MB';
CREATE JOB j AS INSERT INTO dst SELECT * FROM src WHERE v <> 'skip';
SQL
rsql -f job.sql
expect_rc 0 "create the tables and the job"

# the option into a sink that cannot keep a transaction whole: a planning error naming it
rsql -e "CREATE TABLE out (id BIGINT, v STRING, tx INT) WITH ('connector' = 'blackhole');
         INSERT INTO out SELECT * FROM src"
[ "$RC" != 0 ] && [[ "$ERR" == *"transaction.atomic"* ]] ||
    fail "transaction.atomic into blackhole: exit $RC, stderr: $ERR"
ok "transaction.atomic into a sink that cannot: $(printf '%s' "$ERR" | head -1 | cut -c1-160)"

# the reader: the sink table's count, over and over, in one session
printf 'SELECT count(*) FROM %s.copy \\watch 0.02\n' "$S" | "$PGS" psql -tA >reader.log 2>reader.err &
READER=$!
e2e_pids="$e2e_pids $READER"

# txns FIRST_ID SIZE...: one transaction of each SIZE rows (ids from FIRST_ID on), each
# printing the source's count of kept rows before its COMMIT; appended to counts.log
NEXT_ID=1
TXN=0
txns() {
    local sql="" n
    for n in "$@"; do
        TXN=$((TXN + 1))
        sql+="BEGIN;
INSERT INTO $S.t SELECT g, md5(g::text), $TXN FROM generate_series($NEXT_ID, $((NEXT_ID + n - 1))) g;
SELECT count(*) FROM $S.t WHERE v <> 'skip';
COMMIT;
"
        NEXT_ID=$((NEXT_ID + n))
    done
    printf '%s' "$sql" | "$PGS" psql -v ON_ERROR_STOP=1 -tA -q >>counts.log
}
: >counts.log
echo 0 >>counts.log
sink_count() { psql_q "SELECT count(*) FROM $S.copy"; }
sink_is() { [ "$(sink_count 2>/dev/null)" = "$1" ]; }
kept_rows() { psql_q "SELECT count(*) FROM $S.t WHERE v <> 'skip'"; }
same_tables() {
    [ "$(psql_q "SELECT NOT EXISTS (SELECT id, v, tx FROM $S.t WHERE v <> 'skip'
                                    EXCEPT SELECT id, v, tx FROM $S.copy)
        AND NOT EXISTS (SELECT id, v, tx FROM $S.copy
                        EXCEPT SELECT id, v, tx FROM $S.t WHERE v <> 'skip')" 2>/dev/null)" = t ]
}
run_read() { runs_tsv j | head -1 | cut -f6; }
read_at_least() { local r; r=$(run_read); [ -n "$r" ] && [ "$r" -ge "$1" ]; }
slot_active() {
    [ "$(psql_q "SELECT active FROM pg_replication_slots WHERE slot_name = '$SLOT'")" = t ]
}
start_job() {
    "$RSQL" --catalog "$CAT" --log-level info run j >"run$1.log" 2>&1 &
    JOB_PID=$!
    wait_until 60 slot_active || fail "run $1: the slot is not active: $(tail -5 "run$1.log")"
}

# ---- 1. small transactions while the job streams
start_job 1
txns 1 3 7 2 9 1 1 12 5 4 8 2 6 3 10 1 7 5 9 2
P1=$(tail -1 counts.log)
wait_until 60 sink_is "$P1" || fail "the sink has $(sink_count) rows, not $P1: $(tail -5 run1.log)"
ok "20 small transactions streamed ($P1 rows)"

# ---- 2. a 50,000-row transaction, its sink transaction slowed by a trigger; kill -9 once the
# job read all of it and the sink has committed none of it
psql_q "CREATE TRIGGER slow BEFORE INSERT ON $S.copy FOR EACH ROW EXECUTE FUNCTION $S.slow()" \
    >/dev/null
R0=$(run_read)
txns 50000
P2=$(tail -1 counts.log)
wait_until 60 read_at_least $((R0 + 50000)) || fail "the job did not read the transaction"
sink_is "$P1" || fail "the sink has $(sink_count) rows once the job read it all, not $P1"
kill -9 "$JOB_PID"
wait "$JOB_PID" 2>/dev/null || true
JOB_PID=
same "$(sink_count)" "$P1" "killed -9 in the middle of the 50,000-row transaction: the sink has none of it"
# the killed job's backend goes on with its slow INSERT until it next talks to its client:
# DROP TRIGGER (an ACCESS EXCLUSIVE lock) would wait for it, and every SELECT of the reader
# would queue behind that wait, so the trigger goes once no other backend writes the table
writers() {
    psql_q "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE c.relname = 'copy' AND c.relnamespace = '$S'::regnamespace
              AND l.mode <> 'AccessShareLock' AND l.pid <> pg_backend_pid()"
}
no_writer() { [ "$(writers)" = 0 ]; }
wait_until 120 no_writer || fail "the killed job's backend still writes the sink: $(writers) locks"
psql_q "DROP TRIGGER slow ON $S.copy" >/dev/null

# ---- 3. small transactions while the job is down, then a restart: equal to the source
txns 4 1 6 2 11 3
start_job 2
wait_until 120 same_tables || fail "after the restart the sink does not equal the source"
same "$(sink_count)" "$(kept_rows)" "restarted: the sink equals the source (EXCEPT both ways)"
grep -q "^$P2\$" reader.log && ok "the reader saw the count after the big transaction ($P2)" ||
    fail "the reader never saw $P2"

# ---- 4. a transaction whose end the sink never sees (its last row is dropped by WHERE), then
# a stop: the run ends cleanly, its rows not written
P3=$(tail -1 counts.log)
LSN=$(psql_q "SELECT pg_current_wal_lsn()")
printf '%s' "BEGIN;
INSERT INTO $S.t SELECT g, md5(g::text), 900 FROM generate_series($NEXT_ID, $((NEXT_ID + 9))) g;
INSERT INTO $S.t VALUES ($((NEXT_ID + 10)), 'skip', 900);
SELECT count(*) FROM $S.t WHERE v <> 'skip';
COMMIT;
" | "$PGS" psql -v ON_ERROR_STOP=1 -tA -q >>counts.log
NEXT_ID=$((NEXT_ID + 11))
read_past() {
    local d
    d=$(runs_tsv j | head -1 | cut -f12 | sed -n 's/.*"read_lsn":"\([0-9A-F/]*\)".*/\1/p')
    [ -n "$d" ] && [ "$(psql_q "SELECT '$d'::pg_lsn > '$LSN'::pg_lsn")" = t ]
}
wait_until 60 read_past || fail "the job did not read the transaction"
kill "$JOB_PID"
wait_pid "$JOB_PID" 60
JOB_PID=
same "$RC" 143 "stopped (SIGTERM) with a transaction's rows held: drained, exit status"
last_run j
same "$R_STATUS" interrupted "SHOW JOB RUNS: status"
same "$R_FAILED" 0 "SHOW JOB RUNS: no record failed"
grep -q "10 rows of a source transaction that had not ended when the run stopped: not written" \
    run2.log || fail "the run does not say that rows were not written: $(tail -5 run2.log)"
ok "the run says: $(grep -o '10 rows of a source transaction[^(]*' run2.log | head -1)"
same "$(sink_count)" "$P3" "the sink stays at the boundary before that transaction"

# ---- 5. a later transaction ends it: the next run writes both
txns 2
start_job 3
wait_until 120 same_tables || fail "run 3: the sink does not equal the source"
same "$(sink_count)" "$(kept_rows)" "run 3: the sink equals the source"
kill "$JOB_PID"
wait_pid "$JOB_PID" 60
JOB_PID=
same "$RC" 143 "run 3 stopped (SIGTERM)"
grep -q "not written" run3.log && fail "run 3 says rows were not written: $(grep 'not written' run3.log)"
ok "run 3 held no row at its end"

# ---- the reader only ever saw counts at source transaction boundaries
kill "$READER" 2>/dev/null || true
wait "$READER" 2>/dev/null || true
READER=
seen=$(grep -c '^[0-9][0-9]*$' reader.log || true)
[ "$seen" -gt 100 ] || fail "the reader read the sink only $seen times: $(head -3 reader.err)"
bad=$(grep '^[0-9][0-9]*$' reader.log | sort -un | grep -vxF -f counts.log || true)
[ -z "$bad" ] || fail "the reader saw counts that are no transaction boundary: $(echo $bad | cut -c1-200)"
ok "the reader read the sink $seen times, $(grep '^[0-9][0-9]*$' reader.log | sort -u | wc -l) distinct counts, every one a source transaction boundary"
echo "$n_checks passed, 0 failed"
