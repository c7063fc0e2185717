#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_kill9.sh: filesystem -> sqlite is exactly-once across kill -9. A json-lines file of
# 1,000,000 rows is copied into SQLite by a catalog job (CREATE JOB, then `rocketsql run JOB`)
# that is killed with SIGKILL at random moments, rerun after each kill, until 10 kills have
# landed on a running job (the process died of SIGKILL, not of finishing first); then it runs
# to completion. The final table must equal the input exactly: row count, distinct ids, and a
# sha256 of every row in id order, computed by python3 from the input file.
# The kill moments are random (the seed is printed); how long to wait before a kill is scaled
# from a calibration run, so the kills spread over the copy. No timing is asserted.
. "$(dirname "$0")/lib.sh"

N=1000000
SEED=${E2E_SEED:-$$}
echo "seed $SEED"
python3 - "$N" <<'PY'
import hashlib, random, sys
n_rows = int(sys.argv[1])
r = random.Random(1)
h = hashlib.sha256()
with open("big.jsonl", "w") as f:
    for n in range(1, n_rows + 1):
        name, v = "n%x" % r.getrandbits(40), r.randint(-10**15, 10**15)
        f.write('{"id":%d,"name":"%s","v":%d}\n' % (n, name, v))
        h.update(b"%d|%s|%d\n" % (n, name.encode(), v))
open("expected.sha256", "w").write(h.hexdigest())
PY
ok "generated big.jsonl ($N lines)"

tables() { # $1: sink database
    cat <<SQL
CREATE TABLE src (id BIGINT, name VARCHAR, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'big.jsonl', 'format' = 'json');
CREATE TABLE dst (id BIGINT, name VARCHAR, v BIGINT) WITH (
  'connector' = 'sqlite', 'path' = '$1', 'table' = 'copy', 'sink.batch-size' = '100');
CREATE JOB load AS INSERT INTO dst SELECT * FROM src;
SQL
}

# check_table DB DESCRIPTION: the table equals the input exactly
check_table() {
    local got
    same "$(sqlite3 "$1" 'SELECT count(*), count(DISTINCT id), min(id), max(id) FROM copy')" \
        "$N|$N|1|$N" "$2: count, distinct ids, min, max"
    got=$(sqlite3 "$1" 'SELECT id, name, v FROM copy ORDER BY id' | sha256sum | cut -d' ' -f1)
    same "$got" "$(cat expected.sha256)" "$2: sha256 of every row"
}

# calibration: one uninterrupted run, to see how long the copy takes on this machine
tables cal.db >cal.sql
CAT="$T/cal-catalog.db"
rsql -f cal.sql
expect_rc 0 "calibration: create the job"
t0=$(date +%s%N)
rsql run load
expect_rc 0 "calibration: an uninterrupted run"
full_ms=$((($(date +%s%N) - t0) / 1000000))
check_table cal.db "uninterrupted run"
rm -f cal.db*

# the kill loop. A run is killed after a random delay in [0, span]: span is a fifteenth of
# the uninterrupted run, so 10 kills use about a third of the copy on average. Should a run
# finish before 10 kills landed, the whole round starts again on a fresh catalog and sink
# with half the span (at most 4 rounds).
span_ms=$((full_ms / 15))
[ "$span_ms" -ge 20 ] || span_ms=20
RANDOM=$SEED
landed=0
round=0
while [ "$landed" -lt 10 ]; do
    round=$((round + 1))
    [ "$round" -le 4 ] || fail "could not land 10 kills in 4 rounds"
    CAT="$T/catalog-$round.db"
    rm -f sink.db*
    tables sink.db >job.sql
    rsql -f job.sql
    expect_rc 0 "round $round: create the job (kill delays up to ${span_ms}ms)"
    landed=0
    attempts=0
    while [ "$landed" -lt 10 ] && [ "$attempts" -lt 40 ]; do
        attempts=$((attempts + 1))
        "$RSQL" --catalog "$CAT" run load >run.out 2>run.err &
        pid=$!
        e2e_pids="$pid"
        if [ "$landed" = 0 ]; then
            # the first kill waits for rows in the sink, so it lands mid-copy
            wait_until 60 sqlite3 sink.db "SELECT 1 FROM copy LIMIT 1" || true
        fi
        delay=$((RANDOM % (span_ms + 1)))
        sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
        kill -9 "$pid" 2>/dev/null || true
        set +e
        wait "$pid" 2>/dev/null
        rc=$?
        set -e
        e2e_pids=""
        # whatever is committed is a prefix of the input, each row once
        prefix=$(sqlite3 sink.db \
            'SELECT count(*), count(DISTINCT id), coalesce(max(id), 0) FROM copy' 2>/dev/null ||
            echo "0|0|0")
        rows=${prefix%%|*}
        [ "$prefix" = "$rows|$rows|$rows" ] ||
            fail "after attempt $attempts the sink is not a prefix of the input: $prefix"
        if [ "$rc" = 137 ]; then
            landed=$((landed + 1))
            echo "kill $landed (attempt $attempts) after ${delay}ms: $rows rows committed"
        elif [ "$rc" = 0 ]; then
            echo "attempt $attempts: the run finished before the kill (${delay}ms)"
            break
        else
            fail "attempt $attempts: exit status $rc: $(cat run.err)"
        fi
    done
    span_ms=$((span_ms / 2))
    [ "$span_ms" -ge 10 ] || span_ms=10
done
ok "10 kills landed on a running job (round $round)"
echo "$rows of $N rows were committed when the last kill landed"

rsql run load
expect_rc 0 "the run after the last kill completes"
check_table sink.db "after 10 kills and reruns"
same "$(sqlite3 sink.db "SELECT \"offset\" FROM rocketsql_positions")" "$(stat -c %s big.jsonl)" \
    "the sink's committed position is the end of the file"
last_run load
same "$R_STATUS" done "status of the last run"
echo PASS
