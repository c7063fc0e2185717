#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_gather_kill9.sh: the sqlite sink gathers the runtime's batches into transactions of
# sink.batch-size rows (default 8192) and reports rows only once committed, so a kill -9 loses
# the gathered rows it had not committed yet, and their source position with them: the next run
# reads them again. A debezium-json file of 120,000 changes (snapshot, updates, deletes,
# inserts over 6,000 keys) is applied into a keyed SQLite table by a catalog job, killed with
# SIGKILL at random moments after its first commit (5 kills landed), rerun after each. After
# each kill the sink must hold exactly the changes up to the position it stored (the sink's
# table equals sqlite3's own query over that prefix of the input file); after the last run it
# equals the query over the whole file. And a slow source (sqlite, scan.follow) into such a sink:
# rows are committed while the source is idle (the runtime flushes), not only at the end.
. "$(dirname "$0")/lib.sh"

N=120000
SEED=${E2E_SEED:-$$}
echo "seed $SEED"
python3 - "$N" <<'PY'
import json, random, sys
n = int(sys.argv[1])
r = random.Random(7)
keys, live, nxt = 6000, {}, 0
def row(k):
    return {"id": k, "name": None if r.random() < 0.05 else "n%x" % r.getrandbits(32)}
with open("changes.jsonl", "w") as f:
    def ev(op, before, after):
        f.write(json.dumps({"before": before, "after": after, "op": op,
                            "source": {"db": "d", "table": "t"}, "ts_ms": 1}) + "\n")
    for k in range(keys):
        live[k] = row(k); ev("r", None, live[k])
    nxt = keys
    for _ in range(n - keys):
        p = r.random()
        if p < 0.6 and live:
            k = r.choice(list(live)) if r.random() < 0.01 else r.randrange(nxt)
            if k in live:
                new = row(k); ev("u", live[k], new); live[k] = new; continue
        if p < 0.75 and live:
            k = r.randrange(nxt)
            if k in live:
                ev("d", live.pop(k), None); continue
        live[nxt] = row(nxt); ev("c", None, live[nxt]); nxt += 1
PY
[ "$(wc -l <changes.jsonl)" = "$N" ] || fail "generated $(wc -l <changes.jsonl) changes, not $N"
ok "generated changes.jsonl ($N debezium-json changes)"

# the input in SQLite, one line a row (rowid = line number), for the reference queries
sqlite3 input.db "CREATE TABLE raw(line TEXT)" ".mode ascii" ".separator \"\t\" \"\n\"" \
    ".import changes.jsonl raw"
same "$(sqlite3 input.db "SELECT count(*) FROM raw")" "$N" "the input's lines in sqlite3"

# want BYTES: what applying the changes of the input's first BYTES bytes (whole lines) leaves,
# computed by sqlite3 itself: per key its last change, absent when that one deletes
want() {
    sqlite3 input.db "
WITH ev AS (SELECT rowid AS seq, json_extract(line, '\$.op') AS op,
                   coalesce(json_extract(line, '\$.after.id'), json_extract(line, '\$.before.id')) AS id,
                   json_extract(line, '\$.after.name') AS name,
                   sum(length(CAST(line AS BLOB)) + 1) OVER (ORDER BY rowid) AS end_at
            FROM raw),
     upto AS (SELECT * FROM ev WHERE end_at <= $1),
     last AS (SELECT id, max(seq) AS seq FROM upto GROUP BY id)
SELECT u.id, coalesce(u.name, '<null>') FROM upto u JOIN last l ON u.id = l.id AND u.seq = l.seq
WHERE u.op <> 'd' ORDER BY u.id" | md5sum | cut -d' ' -f1
}
got() {
    sqlite3 sink.db "SELECT id, coalesce(name, '<null>') FROM t ORDER BY id" | md5sum | cut -d' ' -f1
}
position() { sqlite3 sink.db 'SELECT coalesce(max("offset"), 0) FROM rocketsql_positions' 2>/dev/null || echo 0; }

cat >job.sql <<SQL
CREATE TABLE src (id BIGINT, name VARCHAR) WITH (
  'connector' = 'filesystem', 'path' = 'changes.jsonl', 'format' = 'debezium-json');
CREATE TABLE dst (id BIGINT, name VARCHAR, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'sqlite', 'path' = 'sink.db', 'table' = 't');
CREATE JOB apply AS INSERT INTO dst SELECT * FROM src;
SQL
rsql -f job.sql
expect_rc 0 "create the job (sink.batch-size: its default)"

RANDOM=$SEED
landed=0
attempts=0
size=$(stat -c %s changes.jsonl)
span=300 # kill delays up to span ms after a commit; halved each time a run ends first
while [ "$landed" -lt 5 ] && [ "$attempts" -lt 30 ]; do
    attempts=$((attempts + 1))
    before=$(position)
    "$RSQL" --catalog "$CAT" run apply >run.out 2>run.err &
    pid=$!
    e2e_pids="$pid"
    # the kill lands after this run's first commit (its position moved), while it gathers more
    wait_until 60 sh -c "[ \"\$(sqlite3 sink.db 'SELECT coalesce(max(\"offset\"), 0) FROM rocketsql_positions' 2>/dev/null || echo 0)\" != '$before' ]" || true
    delay=$((RANDOM % span))
    sleep "$(printf '0.%03d' "$delay")"
    kill -9 "$pid" 2>/dev/null || true
    set +e
    wait "$pid" 2>/dev/null
    rc=$?
    set -e
    e2e_pids=""
    pos=$(position)
    same "$(got)" "$(want "$pos")" "attempt $attempts: the sink holds exactly the changes up to its position $pos"
    if [ "$rc" = 137 ]; then
        landed=$((landed + 1))
        echo "kill $landed (attempt $attempts) ${delay}ms after a commit: position $pos of $size bytes"
    elif [ "$rc" = 0 ] && [ "$landed" -ge 1 ]; then
        echo "attempt $attempts: the run finished before the kill"
        break
    elif [ "$rc" = 0 ]; then
        # no kill landed yet: start over from an empty sink, with shorter delays
        echo "attempt $attempts: the run finished before the kill (${delay}ms); starting over"
        rm -f sink.db sink.db-*
        rsql -e "RESET POSITIONS 'apply'"
        expect_rc 0 "start over"
        span=$((span / 2))
        [ "$span" -ge 5 ] || span=5
    else
        fail "attempt $attempts: exit status $rc: $(cat run.err)"
    fi
done
[ "$landed" -ge 1 ] || fail "no kill landed on a running job"
ok "$landed kills landed on a running job"

rsql run apply
expect_rc 0 "the run after the last kill completes"
same "$(position)" "$size" "the sink's committed position is the end of the file"
same "$(got)" "$(want "$size")" "the sink equals sqlite3's query over the whole input"
same "$(sqlite3 sink.db "SELECT count(*) FROM t")" \
    "$(sqlite3 input.db "SELECT count(*) FROM (SELECT coalesce(json_extract(line, '\$.after.id'), json_extract(line, '\$.before.id')) AS id, json_extract(line, '\$.op') AS op, max(rowid) FROM raw GROUP BY 1) WHERE op <> 'd'")" \
    "row count"

# ---- a slow source: rows are committed while the source is idle, not held to the end
sqlite3 slow.db "CREATE TABLE s(id INTEGER, name TEXT); INSERT INTO s VALUES (1, 'a'), (2, 'b')"
cat >slow.sql <<SQL
CREATE TABLE slow (id BIGINT, name VARCHAR) WITH (
  'connector' = 'sqlite', 'path' = 'slow.db', 'table' = 's', 'scan.follow' = 'true',
  'scan.poll-interval' = '50ms');
CREATE TABLE slow_dst (id BIGINT, name VARCHAR) WITH (
  'connector' = 'sqlite', 'path' = 'slow_dst.db', 'table' = 't');
SQL
rsql -f slow.sql
expect_rc 0 "create the slow source and its sink"
"$RSQL" --catalog "$CAT" -e "INSERT INTO slow_dst SELECT * FROM slow" >slow.out 2>slow.err &
pid=$!
e2e_pids="$pid"
wait_until 20 sh -c "[ \"\$(sqlite3 slow_dst.db 'SELECT count(*) FROM t' 2>/dev/null)\" = 2 ]" ||
    fail "the first 2 rows of an idle source were not committed within 20 s (sink.batch-size 8192)"
ok "an idle source's rows are committed before the sink's batch fills"
sqlite3 slow.db "INSERT INTO s VALUES (3, 'c')"
wait_until 20 sh -c "[ \"\$(sqlite3 slow_dst.db 'SELECT count(*) FROM t' 2>/dev/null)\" = 3 ]" ||
    fail "a row added later was not committed within 20 s"
same "$(sqlite3 slow_dst.db "SELECT group_concat(id || name, ',') FROM (SELECT * FROM t ORDER BY id)")" \
    "1a,2b,3c" "the slow source's rows in the sink"
kill -INT "$pid" 2>/dev/null || true
wait_pid "$pid" 30
e2e_pids=""
echo PASS
