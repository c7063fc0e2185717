#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_window_late.sh: a window aggregation's late rows dead-lettered (table.exec.late-rows =
# 'dead-letter') into a sqlite dead-letter table. A json-lines file with an event time, out of
# order within the watermark's 5 s and, every 37th row, from 5 s to 3 minutes behind (late for
# some windows or for all of them); python3 replays the watermark over the same lines and finds
# the rows that must be late for each function:
#   - a TUMBLE per key under errors.tolerance 'none': the run succeeds, the dead-letter table
#     holds exactly the late rows (by id, stage late, the record as read, a message naming the
#     window and the watermark), the summary counts them, and the results equal both a run
#     that drops late rows and SQLite's GROUP BY over the rows that are not late;
#   - run again: nothing is read twice, no dead letter written twice;
#   - a HOP under tolerance 'all' over the file with malformed lines besides: the bad lines are
#     dead-lettered with stage decode, the late rows with stage late, each once;
#   - a SESSION per key (2 s gap): its late rows, those python's session replay finds;
#   - a TUMBLE job over 150,000 rows killed with kill -9 five times, then run to the end: every
#     late row dead-lettered, none other (a replay may write one again, alike), the keyed
#     table equal to SQLite's GROUP BY over the rows that are not late;
#   - 'dead-letter' without errors.dlq.table is refused when the statement is planned;
#   - a file whose last line is malformed (tolerance 'all'): every window is still given at
#     the input's end (the results of the file without that line).
. "$(dirname "$0")/lib.sh"

SEED=${E2E_SEED:-$$}
echo "seed $SEED (E2E_SEED=$SEED reproduces the data)"
python3 - "$SEED" <<'PY'
import json, random, sys, datetime
r = random.Random(int(sys.argv[1]))
def text(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
cur = 1767225600000
rows = []
for i in range(1, 150001):
    cur += r.randint(0, 40)
    ts = cur
    if i % 37 == 0:
        ts = cur - r.randint(5000, 180000)
    elif r.random() < 0.3:
        ts = cur - r.randint(0, 4900)
    e = {"id": i, "k": "k%d" % r.randint(1, 8), "ts": text(ts), "ms": ts}
    if r.random() < 0.95:
        e["v"] = r.randint(0, 1000)
    rows.append(e)
with open("big.jsonl", "w") as f:  # the kill -9 test's: the others take the first 20,000
    for e in rows:
        f.write(json.dumps(e) + "\n")
big, rows = rows, rows[:20000]
with open("events.jsonl", "w") as f:
    for e in rows:
        f.write(json.dumps(e) + "\n")
# the same rows with a malformed line after every 500th (not after the last)
with open("bad.jsonl", "w") as f:
    for e in rows:
        f.write(json.dumps(e) + "\n")
        if e["id"] % 500 == 0 and e["id"] < 20000:
            f.write('{"id": %d, "k": oops}\n' % e["id"])
# the same rows with a malformed line after the last: the input's end is a record that fails
with open("bad_last.jsonl", "w") as f:
    for e in rows:
        f.write(json.dumps(e) + "\n")
    f.write('{"id": 20001, "k": oops}\n')
# the late rows of each function: the watermark (the greatest ms - 5000 of the rows before) has
# passed the end of every window of the row (end - 1 <= watermark)
def late_ids(last_end, rows=rows):
    wm, out = None, []
    for e in rows:
        if wm is not None and last_end(e["ms"]) - 1 <= wm:
            out.append(e["id"])
        wm = e["ms"] - 5000 if wm is None else max(wm, e["ms"] - 5000)
    return out
tumble = late_ids(lambda t: t - t % 60000 + 60000)
hop = late_ids(lambda t: t - t % 30000 + 60000)  # its last window starts at or before t
# sessions of 2 s per key: a row joins (and merges) every open session it meets; one that
# meets none and whose own [t, t + 2 s) the watermark passed is late; a session is given
# (closed) once the watermark passes its end
wm, sess, session = None, {}, []
for e in rows:
    t, k = e["ms"], e["k"]
    open_ = [s for s in sess.get(k, []) if wm is None or s[1] - 1 > wm]
    meet = [s for s in open_ if s[0] <= t + 2000 and s[1] >= t]
    if not meet and wm is not None and t + 2000 - 1 <= wm:
        session.append(e["id"])
    else:
        rest = [s for s in open_ if s not in meet]
        lo = min([t] + [s[0] for s in meet])
        hi = max([t + 2000] + [s[1] for s in meet])
        rest.append((lo, hi))
        open_ = rest
    sess[k] = open_
    wm = t - 5000 if wm is None else max(wm, t - 5000)
big_tumble = late_ids(lambda t: t - t % 60000 + 60000, big)
for name, ids in (("tumble", tumble), ("hop", hop), ("session", session),
                  ("big", big_tumble)):
    with open("late_%s.txt" % name, "w") as f:
        f.write("".join("%d\n" % i for i in ids))
# the reference: SQLite's GROUP BY over the rows the TUMBLE does not find late
import sqlite3
db = sqlite3.connect("ref.db")
db.execute("CREATE TABLE ev (id INTEGER, k TEXT, ms INTEGER, v INTEGER)")
skip = set(tumble)
db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?)",
               ((e["id"], e["k"], e["ms"], e.get("v")) for e in rows if e["id"] not in skip))
db.execute("CREATE TABLE evbig (id INTEGER, k TEXT, ms INTEGER, v INTEGER)")
skip = set(big_tumble)
db.executemany("INSERT INTO evbig VALUES (?, ?, ?, ?)",
               ((e["id"], e["k"], e["ms"], e.get("v")) for e in big if e["id"] not in skip))
db.commit()
PY
n_tumble=$(wc -l <late_tumble.txt)
n_hop=$(wc -l <late_hop.txt)
n_session=$(wc -l <late_session.txt)
[ "$n_tumble" -gt 100 ] && [ "$n_hop" -gt 50 ] && [ "$n_session" -gt 100 ] ||
    fail "too few late rows to test: $n_tumble $n_hop $n_session"
[ "$n_hop" -lt "$n_tumble" ] || fail "the HOP should take some rows the TUMBLE finds late"
ok "the input: 20000 rows, late for TUMBLE $n_tumble, HOP $n_hop, SESSION $n_session"

sqlite3 -separator '|' ref.db "SELECT strftime('%Y-%m-%d %H:%M:%f', ws / 1000.0, 'unixepoch'),
    k, COUNT(*), SUM(v), MAX(v) FROM (SELECT ms - ms % 60000 AS ws, * FROM ev)
    GROUP BY ws, k ORDER BY ws, k" >ref_tumble.txt
sqlite3 -separator '|' ref.db "SELECT strftime('%Y-%m-%d %H:%M:%f', ws / 1000.0, 'unixepoch'),
    k, COUNT(*), SUM(v), MAX(v) FROM (SELECT ms - ms % 60000 AS ws, * FROM evbig)
    GROUP BY ws, k ORDER BY ws, k" >ref_big.txt

cat >tables.sql <<'SQL'
CREATE TABLE events (id BIGINT, k STRING, ts TIMESTAMP(3), v INT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
CREATE TABLE bad_events (id BIGINT, k STRING, ts TIMESTAMP(3), v INT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'bad.jsonl');
CREATE TABLE dropped (window_start TIMESTAMP(3), k STRING, n BIGINT, total INT, hi INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'dropped');
CREATE TABLE bad_last (id BIGINT, k STRING, ts TIMESTAMP(3), v INT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'bad_last.jsonl');
CREATE TABLE last_minute (window_start TIMESTAMP(3), k STRING, n BIGINT, total INT, hi INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'last_minute');
CREATE TABLE per_minute (window_start TIMESTAMP(3), k STRING, n BIGINT, total INT, hi INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'per_minute');
CREATE TABLE hops (window_start TIMESTAMP(3), n BIGINT, total INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'hops');
CREATE TABLE sessions (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, n BIGINT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'sessions');
CREATE TABLE big_events (id BIGINT, k STRING, ts TIMESTAMP(3), v INT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'big.jsonl');
CREATE TABLE big_minute (window_start TIMESTAMP(3), k STRING, n BIGINT, total INT, hi INT,
    PRIMARY KEY (window_start, k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'big.db', 'table' = 'big_minute');
CREATE TABLE dlq_big (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlqbig.db', 'table' = 'dlq_big');
SET 'errors.dlq.table' = 'dlq_big';
SET 'table.exec.late-rows' = 'dead-letter';
CREATE JOB big AS INSERT INTO big_minute SELECT window_start, k, COUNT(*), SUM(v), MAX(v)
  FROM TABLE(TUMBLE(TABLE big_events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, k;
RESET;
CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlq.db', 'table' = 'dlq');
CREATE TABLE dlq_last (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlq.db', 'table' = 'dlq_last');
CREATE TABLE dlq_hop (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlq.db', 'table' = 'dlq_hop');
CREATE TABLE dlq_session (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR,
    ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = 'dlq.db', 'table' = 'dlq_session');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

TUMBLE="SELECT window_start, k, COUNT(*), SUM(v), MAX(v)
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, k"
late_of() { printf '%s\n' "$ERR" | grep -o '[0-9]* late rows dropped' | tail -1 | cut -d' ' -f1; }
dl_of() { printf '%s\n' "$ERR" | grep -o 'dead_lettered=[0-9]*' | tail -1 | cut -d= -f2; }
ids_of() { # TABLE STAGE: the ids of its dead letters of STAGE, as read (raw), sorted
    sqlite3 dlq.db "SELECT json_extract(raw, '\$.id') FROM $1 WHERE stage = '$2'
        ORDER BY 1"
}

# 1. dropped (the default), for comparison
rsql -e "INSERT INTO dropped $TUMBLE;"
expect_rc 0 "TUMBLE, late rows dropped"
same "$(late_of)" "$n_tumble" "late rows dropped and counted"

# 1b. the input's last line is malformed (dead-lettered under tolerance all): the windows still
# open at its end are given all the same, as in 1
rsql -e "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq_last';
    INSERT INTO last_minute ${TUMBLE/TABLE events/TABLE bad_last};"
expect_rc 0 "TUMBLE over a file whose last line is malformed"
same "$(sqlite3 out.db "SELECT (SELECT COUNT(*) FROM (SELECT * FROM dropped EXCEPT
    SELECT * FROM last_minute)) || ' ' || (SELECT COUNT(*) FROM (SELECT * FROM last_minute
    EXCEPT SELECT * FROM dropped)) || ' ' || (SELECT COUNT(*) FROM last_minute)")" \
    "0 0 $(sqlite3 out.db "SELECT COUNT(*) FROM dropped")" \
    "every window is given when the last record fails (the results of 1, none missing)"
same "$(sqlite3 dlq.db "SELECT stage || ' ' || raw FROM dlq_last")" \
    'decode {"id": 20001, "k": oops}' "and the malformed last line is dead-lettered"
# 2. dead-lettered under tolerance none
rsql -e "SET 'errors.dlq.table' = 'dlq'; SET 'table.exec.late-rows' = 'dead-letter';
    INSERT INTO per_minute $TUMBLE;"
expect_rc 0 "TUMBLE, late rows dead-lettered under errors.tolerance none"
printf '%s\n' "$ERR" | grep -q "late rows dropped and dead-lettered" ||
    fail "the summary does not say the late rows were dead-lettered: $ERR"
same "$(late_of)" "$n_tumble" "late rows counted"
same "$(dl_of)" "$n_tumble" "the summary's dead_lettered (no late record gave a result)"
printf '%s\n' "$ERR" | grep -q 'failed=0' || fail "a late row counted as failed: $ERR"
same "$(sqlite3 dlq.db "SELECT COUNT(*) FROM dlq")" "$n_tumble" "dead letters, one per late row"
ids_of dlq late >got_ids.txt
sort -n late_tumble.txt >want_ids.txt
cmp -s got_ids.txt want_ids.txt ||
    fail "the dead-lettered rows are not the late ones: $(diff got_ids.txt want_ids.txt | head)"
ok "the dead letters are the rows python finds late"
MSG="late row (ts %): its window [%) was given already; the watermark is % (ts - INTERVAL ''5'' SECOND)"
same "$(sqlite3 dlq.db "SELECT COUNT(*) FROM dlq WHERE stage <> 'late' OR error NOT LIKE '$MSG'
    OR source NOT LIKE 'file:%events.jsonl@%' OR raw NOT LIKE '{\"id\": %}' OR ts IS NULL")" \
    0 "each dead letter: stage late, the record as read, its window, the watermark"
# one checked by hand: its window and the watermark then (python's replay)
first=$(head -1 late_tumble.txt)
want=$(python3 - "$first" <<'PY'
import json, sys, datetime
first = int(sys.argv[1])
def text(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
wm = None
for line in open("events.jsonl"):
    e = json.loads(line)
    if e["id"] == first:
        ws = e["ms"] - e["ms"] % 60000
        print("late row (ts %s): its window [%s, %s) was given already; the watermark is %s "
              "(ts - INTERVAL '5' SECOND)" % (text(e["ms"]), text(ws), text(ws + 60000), text(wm)))
        break
    wm = e["ms"] - 5000 if wm is None else max(wm, e["ms"] - 5000)
PY
)
same "$(sqlite3 dlq.db "SELECT error FROM dlq WHERE json_extract(raw, '\$.id') = $first")" \
    "$want" "the message of the first late row"
same "$(sqlite3 out.db "SELECT COUNT(*) FROM (SELECT * FROM per_minute EXCEPT SELECT * FROM
    dropped)")|$(sqlite3 out.db "SELECT COUNT(*) FROM (SELECT * FROM dropped EXCEPT SELECT * FROM
    per_minute)")|$(sqlite3 out.db "SELECT (SELECT COUNT(*) FROM dropped) - (SELECT COUNT(*)
    FROM per_minute)")" "0|0|0" "the results are those of the run that drops late rows"
sqlite3 -separator '|' out.db "SELECT window_start, k, n, total, hi FROM per_minute
    ORDER BY window_start, k" >got.txt
cmp -s got.txt ref_tumble.txt ||
    fail "per_minute differs from SQLite's GROUP BY: $(diff got.txt ref_tumble.txt | head -6)"
ok "the results are SQLite's GROUP BY over the rows that are not late"

# run again: the positions were committed with the dead letters, nothing is written twice
rsql -e "SET 'errors.dlq.table' = 'dlq'; SET 'table.exec.late-rows' = 'dead-letter';
    INSERT INTO per_minute $TUMBLE;"
expect_rc 0 "the same statement again"
printf '%s\n' "$ERR" | grep -q "read=0 " || fail "the second run read rows again: $ERR"
same "$(sqlite3 dlq.db "SELECT COUNT(*) FROM dlq")" "$n_tumble" "no dead letter written twice"

# 3. HOP under tolerance all, bad lines besides
rsql -e "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq_hop';
    SET 'table.exec.late-rows' = 'dead-letter';
    INSERT INTO hops SELECT window_start, COUNT(*), SUM(v)
      FROM TABLE(HOP(TABLE bad_events, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
      GROUP BY window_start, window_end;"
expect_rc 0 "HOP under errors.tolerance all, bad lines and late rows"
same "$(sqlite3 dlq.db "SELECT COUNT(*) FROM dlq_hop WHERE stage = 'decode'")" 39 \
    "the malformed lines, stage decode"
ids_of dlq_hop late >got_ids.txt
sort -n late_hop.txt >want_ids.txt
cmp -s got_ids.txt want_ids.txt ||
    fail "the HOP's late dead letters: $(diff got_ids.txt want_ids.txt | head)"
ok "the HOP's late dead letters are the rows late for all of its windows ($n_hop)"
same "$(sqlite3 dlq.db "SELECT COUNT(*) FROM dlq_hop WHERE stage = 'late' AND error NOT LIKE
    'late row (ts %): its window [%), [%) (HOP 2 windows) were given already; %'")" 0 \
    "a HOP's message names both windows"
same "$(dl_of)" "$((n_hop + 39))" "dead_lettered: the late rows and the bad lines"

# 4. SESSION per key
rsql -e "SET 'errors.dlq.table' = 'dlq_session'; SET 'table.exec.late-rows' = 'dead-letter';
    INSERT INTO sessions SELECT window_start, window_end, k, COUNT(*)
      FROM TABLE(SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND))
      GROUP BY window_start, window_end, k;"
expect_rc 0 "SESSION, late rows dead-lettered"
ids_of dlq_session late >got_ids.txt
sort -n late_session.txt >want_ids.txt
cmp -s got_ids.txt want_ids.txt ||
    fail "the SESSION's late dead letters: $(diff got_ids.txt want_ids.txt | head)"
ok "the SESSION's late dead letters are the rows python's sessions find late ($n_session)"
same "$(sqlite3 out.db "SELECT SUM(n) FROM sessions")" "$((20000 - n_session))" \
    "the sessions hold every row that is not late"

# 6. kill -9 five times at random moments during a job over 150,000 rows, then run to the end:
# every late row dead-lettered (a replay may write one again, alike), none of the others, and
# the keyed table equals SQLite's GROUP BY over the rows that are not late
n_big=$(wc -l <late_big.txt)
RANDOM=$SEED
landed=0 attempts=0 span=300
while [ "$landed" -lt 5 ]; do
    attempts=$((attempts + 1))
    [ "$attempts" -le 60 ] || fail "job big: could not land 5 kills in 60 runs"
    before=$(sqlite3 big.db "SELECT group_concat(\"offset\") FROM rocketsql_positions" 2>/dev/null || true)
    "$RSQL" --catalog "$CAT" run big >run.out 2>run.err &
    pid=$!
    e2e_pids="$pid"
    moved() { # killed only once it committed something
        [ "$(sqlite3 big.db "SELECT group_concat(\"offset\") FROM rocketsql_positions" 2>/dev/null || true)" != "$before" ] ||
            ! kill -0 "$pid" 2>/dev/null
    }
    wait_until 60 moved || fail "job big: run $attempts committed nothing in 60s: $(cat run.err)"
    delay=$((RANDOM % (span + 1)))
    sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
    kill -9 "$pid" 2>/dev/null || true
    set +e
    wait "$pid" 2>/dev/null
    rc=$?
    set -e
    e2e_pids=""
    if [ "$rc" = 137 ]; then
        landed=$((landed + 1))
        echo "job big: kill $landed ${delay}ms after a commit: $(sqlite3 dlqbig.db "SELECT COUNT(*) FROM dlq_big" 2>/dev/null || echo 0) dead letters"
    elif [ "$rc" = 0 ]; then # finished first: start over, with a shorter delay
        echo "job big: run $attempts finished before its kill (${delay}ms); starting over"
        rm -f big.db dlqbig.db
        rsql -e "RESET POSITIONS 'big'"
        expect_rc 0 "job big: start over"
        span=$((span / 2))
        [ "$span" -ge 5 ] || span=5
        landed=0
    else
        fail "job big: exit status $rc: $(cat run.err)"
    fi
done
rsql run big
expect_rc 0 "job big: the run after the kills completes"
sqlite3 dlqbig.db "SELECT DISTINCT json_extract(raw, '\$.id') FROM dlq_big ORDER BY 1" >got_ids.txt
sort -n late_big.txt >want_ids.txt
cmp -s got_ids.txt want_ids.txt ||
    fail "job big: the dead-lettered rows: $(diff got_ids.txt want_ids.txt | head)"
ok "after the kills every late row is dead-lettered, and no other ($n_big)"
same "$(sqlite3 dlqbig.db "SELECT COUNT(*) FROM (SELECT raw FROM dlq_big GROUP BY raw
    HAVING COUNT(DISTINCT error || stage || source) > 1)")" 0 "a dead letter written again is written alike"
echo "job big: $(sqlite3 dlqbig.db "SELECT COUNT(*) - COUNT(DISTINCT raw) FROM dlq_big") dead letters written twice (a replay after a kill)"
sqlite3 -separator '|' big.db "SELECT window_start, k, n, total, hi FROM big_minute
    ORDER BY window_start, k" >got.txt
cmp -s got.txt ref_big.txt ||
    fail "big_minute differs from SQLite's GROUP BY: $(diff got.txt ref_big.txt | head -6)"
ok "after the kills big_minute is SQLite's GROUP BY over the rows that are not late"

# 5. refused without a dead-letter table
rsql -e "SET 'table.exec.late-rows' = 'dead-letter'; INSERT INTO dropped $TUMBLE;"
expect_rc 1 "dead-letter without errors.dlq.table"
printf '%s\n' "$ERR" | grep -q "table.exec.late-rows = 'dead-letter' sends this window aggregation's late rows to the dead-letter table: set errors.dlq.table too" ||
    fail "the refusal's message: $ERR"
ok "refused with its reason"

echo PASS
