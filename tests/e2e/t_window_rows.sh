#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_window_rows.sh: a window function's rows without an aggregation (TUMBLE with an offset,
# HOP with an offset, CUMULATE) over random rows of a json-lines file, out of order and late
# by up to ten minutes, some before 1970 (negative epoch times), compared with SQLite's own
# windows of the same rows (computed there from the epoch milliseconds, with a join over the
# window numbers): every (id, window_start, window_end, window_time) the job writes is one of
# SQLite's and the reverse, as multisets; a WHERE over the window columns keeps exactly
# SQLite's rows that pass it; no row is dropped as late (the watermark decides nothing).
. "$(dirname "$0")/lib.sh"

N=${E2E_ROWS:-20000}
SEED=${E2E_SEED:-$$}
echo "seed $SEED (E2E_SEED=$SEED reproduces the data)"
python3 - "$N" "$SEED" <<'PY' >events.jsonl
import datetime, json, random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
def text(ms):
    d = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
        datetime.timedelta(milliseconds=ms)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
cur = -90000 if seed % 2 else 1767225600000  # around the epoch (negative times) or 2026
for i in range(1, n + 1):
    cur += r.randint(0, 60)
    ts = cur - r.randint(0, 600000) if r.random() < 0.2 else cur
    e = {"id": i, "k": "k%d" % r.randint(1, 9), "ts": text(ts), "ms": ts}
    if r.random() < 0.9:
        e["v"] = r.randint(0, 1000)
    print(json.dumps(e))
PY
ok "generated $N rows"

# SQLite's windows of each row: w(ms) the start of the unit holding ms, for a size and offset
python3 - <<'PY'
import json, sqlite3
db = sqlite3.connect("ref.db")
db.execute("CREATE TABLE ev (id INTEGER, ms INTEGER, v INTEGER)")
with open("events.jsonl") as f:
    db.executemany("INSERT INTO ev VALUES (?, ?, ?)",
                   ((e["id"], e["ms"], e.get("v")) for e in map(json.loads, f)))
db.execute("CREATE TABLE j (j INTEGER)")
db.executemany("INSERT INTO j VALUES (?)", ((i,) for i in range(8)))
db.commit()
PY
fmt() { echo "strftime('%Y-%m-%d %H:%M:%f', ($1) / 1000.0, 'unixepoch')"; }
al() { echo "($1 - ((($1 - $3) % $2) + $2) % $2)"; } # al MS SIZE OFFSET: aligned start
out() { # WS WE: the row's line
    echo "id || '|' || $(fmt "$1") || '|' || $(fmt "$2") || '|' || $(fmt "($2) - 1")"
}
sqlite3 ref.db "SELECT $(out ws ws+7000) FROM (SELECT id, $(al ms 7000 2000) AS ws FROM ev)
    ORDER BY 1" >ref_tumble.txt
sqlite3 ref.db "SELECT $(out ws ws+30000) FROM
    (SELECT id, $(al ms 10000 3000) - j * 10000 AS ws FROM ev, j WHERE j < 3) ORDER BY 1" \
    >ref_hop.txt
sqlite3 ref.db "SELECT $(out ws we) FROM
    (SELECT id, ms, $(al ms 60000 0) AS ws, $(al ms 60000 0) + j * 15000 AS we FROM ev, j
     WHERE j BETWEEN 1 AND 4) WHERE we > ms ORDER BY 1" >ref_cumulate.txt
# the WHERE: HOP rows whose window holds the row in its last 10 s, with v over 500
sqlite3 ref.db "SELECT $(out ws ws+30000) FROM
    (SELECT id, ms, v, $(al ms 10000 3000) - j * 10000 AS ws FROM ev, j WHERE j < 3)
    WHERE ws + 30000 - ms < 10000 AND v > 500 ORDER BY 1" >ref_where.txt
ok "SQLite's windows: $(wc -l <ref_tumble.txt) tumble, $(wc -l <ref_hop.txt) hop," \
    "$(wc -l <ref_cumulate.txt) cumulate, $(wc -l <ref_where.txt) filtered"

cat >jobs.sql <<'SQL'
CREATE TABLE events (id BIGINT, k STRING, ts TIMESTAMP(3), v INT,
    WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
CREATE TABLE tumble_rows (id BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
    window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'tumble.jsonl');
CREATE TABLE hop_rows (id BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
    window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'hop.jsonl');
CREATE TABLE cumulate_rows (id BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
    window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'cumulate.jsonl');
CREATE TABLE where_rows (id BIGINT, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
    window_time TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'where.jsonl');
CREATE JOB tumble AS INSERT INTO tumble_rows SELECT id, window_start, window_end, window_time
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '7' SECOND, INTERVAL '2' SECOND));
CREATE JOB hop AS INSERT INTO hop_rows SELECT id, window_start, window_end, window_time
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND,
                 INTERVAL '3' SECOND));
CREATE JOB cumulate AS INSERT INTO cumulate_rows SELECT id, window_start, window_end, window_time
  FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '15' SECOND, INTERVAL '1' MINUTE));
CREATE JOB filtered AS INSERT INTO where_rows SELECT id, window_start, window_end, window_time
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND,
                 INTERVAL '3' SECOND))
  WHERE TIMESTAMPDIFF(SECOND, ts, window_end) < 10 AND v > 500;
SQL
rsql -f jobs.sql
expect_rc 0 "create the tables and jobs"

lines() { # FILE: its rows as id|start|end|time, sorted as SQLite sorts text
    python3 - "$1" <<'PY' | LC_ALL=C sort
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    print("|".join(str(e[c]) for c in ("id", "window_start", "window_end", "window_time")))
PY
}
for job in tumble hop cumulate filtered; do
    rsql run "$job"
    expect_rc 0 "run $job"
    file=$job ref=$job
    [ "$job" = filtered ] && file=where ref=where
    lines "$file.jsonl" >"got_$ref.txt"
    LC_ALL=C sort "ref_$ref.txt" >"want_$ref.txt"
    cmp -s "got_$ref.txt" "want_$ref.txt" ||
        fail "$job: its rows differ from SQLite's windows:
$(diff "got_$ref.txt" "want_$ref.txt" | head -8)"
    ok "$job: $(wc -l <"got_$ref.txt") rows, each one of SQLite's and the reverse"
done
echo PASS
