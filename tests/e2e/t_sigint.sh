#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_sigint.sh: an unbounded datagen (a sequence id from 1) -> sqlite INSERT, stopped by signals.
#   1. SIGINT while rows flow: the run drains, commits and exits 130; SHOW JOB RUNS says
#      interrupted with read = written; the sink holds exactly ids 1..P, where P is the
#      position committed in the sink (rocketsql_positions) and in the catalog (offsets).
#   2. The same INSERT again, stopped with SIGTERM: it resumed after P (ids 1..P2, none twice).
#   3. Again, with the sink locked by another connection so the drain cannot finish: a first
#      SIGINT starts the drain, a second one exits at once (status 130) without committing
#      anything undelivered; the sink is still exactly ids 1..P3 with P3 its position. Once
#      the lock is gone a last run resumes with no row written twice.
. "$(dirname "$0")/lib.sh"

cat >tables.sql <<'SQL'
CREATE TABLE gen (id BIGINT, name VARCHAR) WITH ('connector' = 'datagen',
  'rows-per-second' = '20000', 'seed' = '3', 'fields.id.kind' = 'sequence');
CREATE TABLE dst (id BIGINT, name VARCHAR) WITH ('connector' = 'sqlite', 'path' = 'sink.db',
  'table' = 't', 'sink.batch-size' = '500');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

start_insert() { # [rocketsql options]
    "$RSQL" --catalog "$CAT" "$@" -e "INSERT INTO dst SELECT * FROM gen;" >run.out 2>run.err &
    pid=$!
    e2e_pids="$pid"
}

# rows_after N: true once the sink holds more than N rows
rows_after() {
    [ "$(sqlite3 sink.db 'SELECT count(*) FROM t' 2>/dev/null || echo 0)" -gt "$1" ]
}

# check_prefix DESCRIPTION [hard]: the sink holds ids 1..P exactly once, P = its committed
# position; the catalog's position is P too (after a hard exit: at most P, it is saved every
# state.flush-interval, and the sqlite sink resumes from its own)
check_prefix() {
    local pos cat_pos
    pos=$(sqlite3 sink.db "SELECT \"offset\" FROM rocketsql_positions")
    cat_pos=$(sqlite3 "$CAT" "SELECT value FROM offsets WHERE partition = 'datagen'")
    same "$(sqlite3 sink.db 'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t')" \
        "$pos|$pos|1|$pos" "$1: the sink holds exactly ids 1..$pos (its committed position)"
    if [ "${2:-}" = hard ]; then
        [ "$cat_pos" -le "$pos" ] || fail "$1: the catalog's position $cat_pos is past $pos"
        ok "$1: the catalog's committed position ($cat_pos) is not past the sink's"
    else
        same "$cat_pos" "$pos" "$1: the catalog's committed position"
    fi
    P=$pos
}

# 1. SIGINT
start_insert
wait_until 30 rows_after 0 || fail "no rows in the sink after 30s"
sleep 0.$((RANDOM % 5))
kill -INT "$pid"
wait_pid "$pid" 30
same "$RC" 130 "SIGINT: the INSERT drains and exits 130 (interrupted)"
last_run
same "$R_STATUS" interrupted "SHOW JOB RUNS: status"
same "$R_READ" "$R_WRITTEN" "SHOW JOB RUNS: read = written"
grep -q "read=$R_READ written=$R_WRITTEN " run.err || fail "no summary line: $(cat run.err)"
ok "the summary line has the counts"
check_prefix "after SIGINT"
same "$R_WRITTEN" "$P" "every row written is committed"
P1=$P

# 2. SIGTERM, after a rerun that resumed
start_insert
wait_until 30 rows_after "$P1" || fail "the rerun added no rows after 30s"
sleep 0.$((RANDOM % 5))
kill -TERM "$pid"
wait_pid "$pid" 30
same "$RC" 143 "SIGTERM: the INSERT drains and exits 143 (interrupted)"
last_run
same "$R_STATUS" interrupted "SHOW JOB RUNS: status"
check_prefix "after the rerun and SIGTERM"
same "$R_WRITTEN" "$((P - P1))" "the rerun wrote only rows after $P1"
P2=$P

# 3. a second signal exits at once, committing nothing undelivered
start_insert --log-level debug
wait_until 30 rows_after "$P2" || fail "the rerun added no rows after 30s"
python3 - <<'PY' &
import os, sqlite3, time
c = sqlite3.connect("sink.db", isolation_level=None, timeout=30)
c.execute("BEGIN EXCLUSIVE")
open("locked", "w").close()
for _ in range(600):                 # hold the lock until the test is done with it (<= 60s)
    if os.path.exists("unlock"):
        break
    time.sleep(0.1)
c.execute("ROLLBACK")
PY
locker=$!
wait_until 30 test -f locked || fail "could not lock the sink"
kill -INT "$pid"
wait_until 30 grep -q "interrupted: the source stops" run.err ||
    fail "the first SIGINT did not start the drain: $(tail -n 3 run.err)"
# draining: the sink's write is retried (its database is locked) after the interrupt, so the
# run is still alive and waiting for its sink, not gone
retried_after_interrupt() {
    awk '/interrupted: the source stops/ { i = 1 } i && /sink [a-z]* failed \(BUSY/ { f = 1 }
         END { exit !f }' run.err
}
wait_until 30 retried_after_interrupt ||
    fail "no retry of the locked sink after the first SIGINT: $(tail -n 3 run.err)"
kill -0 "$pid" 2>/dev/null || fail "the run exited on the first SIGINT while its sink was locked"
ok "after a first SIGINT the run drains: it retries its locked sink"
kill -INT "$pid"
wait_pid "$pid" 10
same "$RC" 130 "a second SIGINT exits at once"
touch unlock
wait "$locker"
check_prefix "after the second signal" hard
P3=$P

start_insert
wait_until 30 rows_after "$P3" || fail "the last run added no rows after 30s"
kill -INT "$pid"
wait_pid "$pid" 30
same "$RC" 130 "the last run exits 130 on SIGINT"
check_prefix "after the last run"
last_run
same "$R_WRITTEN" "$((P - P3))" "the last run wrote only rows after $P3"
echo PASS
