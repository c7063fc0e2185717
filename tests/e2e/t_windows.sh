#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_windows.sh: window aggregation (TUMBLE, HOP, CUMULATE) of a json-lines file with an event
# time, out of order within the watermark's bound, compared with SQLite's own GROUP BY over
# the same rows (the windows computed there from the epoch milliseconds):
#   - uninterrupted, a TUMBLE per key into a sqlite table keyed by the window and the key
#     (every aggregate), a HOP into an appended file, a CUMULATE into sqlite;
#   - probe rows three minutes behind the watermark are late for every window: dropped, and
#     counted in the summary, never in a result;
#   - a SESSION per key (2 s gap) into sqlite, against SQLite's gaps-and-islands over the rows
#     (DISTINCT calls too: the values of sessions that merge merge with them);
#   - the TUMBLE and SESSION jobs killed with kill -9 five times at random moments, then run to the end:
#     its table equals the reference; the HOP job likewise into its file: every result line is
#     the reference's, and a window written twice (a replay after a kill) is written the same;
#   - more lines appended (two minutes later), the TUMBLE job runs again: it resumes with its
#     state (the windows given at the first input's end stay given: a row for one of them is
#     late), and its table equals the reference over all lines.
. "$(dirname "$0")/lib.sh"

N=${E2E_WINDOW_ROWS:-400000}
SEED=${E2E_SEED:-$$}
echo "seed $SEED (E2E_SEED=$SEED reproduces the kill delays and the data)"
# the event times: 2026-01-01 00:00:00 UTC on, about 20 ms apart, 30 % of rows up to 4.9 s
# behind the greatest so far (within the 5 s of the WATERMARK: never late), every 997th row a
# probe 3 minutes behind (late for every window of the three functions)
gen() { # FROM TO: lines FROM..TO (the clock of line FROM continues from START_MS)
    python3 - "$1" "$2" "$SEED" "${START_MS:-1767225600000}" <<'PY'
import json, random, sys, datetime
lo, hi, seed, cur = (int(a) for a in sys.argv[1:5])
r = random.Random(seed * 1000003 + lo)
out = sys.stdout
def text(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
for i in range(lo, hi + 1):
    cur += r.randint(0, 40)
    ts, p = cur, 0
    if i % 997 == 0:
        ts, p = cur - 180000 - r.randint(0, 60000), 1
    elif r.random() < 0.3:
        ts = cur - r.randint(0, 4900)
    e = {"id": i, "k": "k%02d" % r.randint(1, 40), "ts": text(ts), "ms": ts, "p": p}
    if r.random() < 0.95:
        e["v"] = r.randint(0, 1000)
    out.write(json.dumps(e) + "\n")
open("last_ms", "w").write(str(cur))
PY
}
gen 1 "$N" >events.jsonl
probes=$((N / 997))

# the reference: SQLite's GROUP BY over the same lines, the probes left out
TS="strftime('%Y-%m-%d %H:%M:%f', ws / 1000.0, 'unixepoch')"
TE="strftime('%Y-%m-%d %H:%M:%f', (ws + 60000) / 1000.0, 'unixepoch')"
reference() { # FILE
    rm -f ref.db
    python3 - "$1" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("ref.db")
db.execute("CREATE TABLE ev (id INTEGER, k TEXT, ms INTEGER, v INTEGER, p INTEGER)")
with open(sys.argv[1]) as f:
    db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?, ?)",
                   ((e["id"], e["k"], e["ms"], e.get("v"), e["p"]) for e in map(json.loads, f)))
db.commit()
PY
    sqlite3 -separator '|' ref.db "SELECT $TS, $TE, k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v),
        COUNT(DISTINCT v % 7) FROM (SELECT ms - ms % 60000 AS ws, * FROM ev WHERE p = 0)
        GROUP BY ws, k ORDER BY ws, k" >ref_tumble.txt
    sqlite3 -separator '|' ref.db "SELECT $TS, $TE, COUNT(*), SUM(v) FROM
        (SELECT ms - ms % 30000 - j * 30000 AS ws, v FROM ev,
           (SELECT 0 AS j UNION ALL SELECT 1) WHERE p = 0)
        GROUP BY ws ORDER BY ws" >ref_hop.txt
    sqlite3 -separator '|' ref.db "SELECT $TS, strftime('%Y-%m-%d %H:%M:%f', we / 1000.0,
        'unixepoch'), COUNT(*), MAX(v) FROM
        (SELECT ms - ms % 60000 AS ws, ms - ms % 60000 + j * 20000 AS we, v FROM ev,
           (SELECT 1 AS j UNION ALL SELECT 2 UNION ALL SELECT 3)
         WHERE p = 0 AND ms < ms - ms % 60000 + j * 20000)
        GROUP BY ws, we ORDER BY ws, we" >ref_cumulate.txt
    # sessions of 2 s per key: a row more than 2 s after the key's previous one starts a new one
    sqlite3 -separator '|' ref.db "SELECT strftime('%Y-%m-%d %H:%M:%f', MIN(ms) / 1000.0,
        'unixepoch'), strftime('%Y-%m-%d %H:%M:%f', (MAX(ms) + 2000) / 1000.0, 'unixepoch'), k,
        COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v % 7), SUM(DISTINCT v % 50) FROM
        (SELECT k, ms, v, SUM(gap) OVER (PARTITION BY k ORDER BY ms, id) AS sid FROM
           (SELECT k, ms, v, id, CASE WHEN ms - LAG(ms) OVER (PARTITION BY k ORDER BY ms, id)
                                  > 2000 THEN 1 ELSE 0 END AS gap FROM ev WHERE p = 0))
        GROUP BY k, sid ORDER BY 1, k" >ref_session.txt
}
reference events.jsonl

# checkpoints (and the sinks' commits) every 50 ms: several in each run, so that the kills
# below land between two of them and not only after the run's last (at 100 ms, a run of the
# faster window path went a quarter of the input before its first commit, and the fifth run
# often ended before its kill)
cat >tables.sql <<'SQL'
SET 'state.flush-interval' = '50ms';
CREATE TABLE events (id BIGINT, k STRING, ts TIMESTAMP(3), v INT, p INT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
CREATE TABLE per_minute (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING,
    n BIGINT, n_v BIGINT, total INT, lo INT, hi INT, kinds BIGINT,
    PRIMARY KEY (window_start, k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'per_minute');
CREATE TABLE hops (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, total INT)
  WITH ('connector' = 'filesystem', 'path' = 'hops.jsonl');
CREATE TABLE growing (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, hi INT,
    PRIMARY KEY (window_start, window_end) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'cum.db', 'table' = 'growing');
CREATE JOB tumble AS INSERT INTO per_minute
  SELECT window_start, window_end, k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v),
         COUNT(DISTINCT v % 7)
  FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, k;
CREATE JOB hop AS INSERT INTO hops
  SELECT window_start, window_end, COUNT(*), SUM(v)
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end;
CREATE TABLE sessions (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING,
    n BIGINT, total INT, hi INT, kinds BIGINT, dsum INT,
    PRIMARY KEY (window_start, k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'sess.db', 'table' = 'sessions');
CREATE JOB session AS INSERT INTO sessions
  SELECT window_start, window_end, k, COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v % 7),
         SUM(DISTINCT v % 50)
  FROM TABLE(SESSION(TABLE events PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' SECOND))
  GROUP BY window_start, window_end, k;
CREATE JOB cumulate AS INSERT INTO growing
  SELECT window_start, window_end, COUNT(*), MAX(v)
  FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end;
SQL
rsql -f tables.sql
expect_rc 0 "create the tables and jobs"
got_tumble() { sqlite3 -separator '|' out.db "SELECT * FROM per_minute ORDER BY window_start, k"; }
got_hop() { # the distinct lines of hops.jsonl, as rows
    python3 -c '
import json, sys
seen = set()
for line in open("hops.jsonl"):
    e = json.loads(line)
    seen.add("|".join(str(e[c]) for c in ("window_start", "window_end", "n", "total")))
print("\n".join(sorted(seen)))'
}
check_tumble() { # WHAT
    got_tumble >got.txt
    cmp -s got.txt ref_tumble.txt ||
        fail "$1: per_minute differs from SQLite's: $(diff got.txt ref_tumble.txt | head -6)"
}
check_hop() { # WHAT: every line a reference row, every reference row there, a window once
    got_hop >got.txt
    cmp -s got.txt ref_hop.txt ||
        fail "$1: hops.jsonl differs from SQLite's: $(diff got.txt ref_hop.txt | head -6)"
    local windows
    windows=$(python3 -c '
import json
print(len({json.loads(l)["window_start"] for l in open("hops.jsonl")}))')
    [ "$windows" = "$(wc -l <got.txt)" ] ||
        fail "$1: a window written twice with different results ($windows windows, $(wc -l <got.txt) distinct lines)"
}
late_of() { printf '%s\n' "$ERR" | grep -o '[0-9]* late rows dropped' | tail -1 | cut -d' ' -f1; }

# ---- uninterrupted
rsql run tumble
expect_rc 0 "TUMBLE per key into sqlite"
[ "$(late_of)" = "$probes" ] || fail "TUMBLE dropped $(late_of) late rows, the probes are $probes: $ERR"
check_tumble "uninterrupted"
rsql run hop
expect_rc 0 "HOP into a file"
[ "$(late_of)" = "$probes" ] || fail "HOP dropped $(late_of) late rows, the probes are $probes: $ERR"
check_hop "uninterrupted"
[ "$(wc -l <hops.jsonl)" = "$(wc -l <ref_hop.txt)" ] || fail "HOP wrote $(wc -l <hops.jsonl) lines for $(wc -l <ref_hop.txt) windows"
rsql run cumulate
expect_rc 0 "CUMULATE into sqlite"
sqlite3 -separator '|' cum.db "SELECT * FROM growing ORDER BY window_start, window_end" >got.txt
cmp -s got.txt ref_cumulate.txt ||
    fail "CUMULATE differs from SQLite's: $(diff got.txt ref_cumulate.txt | head -6)"
rsql run session
expect_rc 0 "SESSION per key into sqlite"
[ "$(late_of)" = "$probes" ] || fail "SESSION dropped $(late_of) late rows, the probes are $probes: $ERR"
check_session() { # WHAT
    sqlite3 -separator '|' sess.db "SELECT * FROM sessions ORDER BY window_start, k" >got.txt
    cmp -s got.txt ref_session.txt ||
        fail "$1: SESSION differs from SQLite's gaps: $(diff got.txt ref_session.txt | head -6)"
}
check_session "uninterrupted"
ok "uninterrupted: $(wc -l <ref_tumble.txt) TUMBLE groups, $(wc -l <ref_hop.txt) HOP windows, $(wc -l <ref_cumulate.txt) CUMULATE windows and $(wc -l <ref_session.txt) sessions as SQLite's; the $probes probes dropped as late"

# ---- killed five times each, then run to the end
rsql -e "RESET POSITIONS 'tumble'; RESET POSITIONS 'hop'"
expect_rc 0 "start both over"
sqlite3 out.db "DELETE FROM per_minute; DELETE FROM rocketsql_positions"
: >hops.jsonl
kill_loop tumble per_minute out.db
check_tumble "after 5 kills"
rsql -e "RESET POSITIONS 'session'"
sqlite3 sess.db "DELETE FROM sessions; DELETE FROM rocketsql_positions"
kill_loop session sessions sess.db
check_session "after 5 kills"
RANDOM=$SEED
landed=0
for attempt in $(seq 1 60); do
    [ "$landed" -lt 5 ] || break
    before=$(wc -c <hops.jsonl)
    "$RSQL" --catalog "$CAT" run hop >run.out 2>run.err &
    pid=$!
    e2e_pids="$pid"
    grown() { [ "$(wc -c <hops.jsonl)" -gt "$before" ] || ! kill -0 "$pid" 2>/dev/null; }
    wait_until 60 grown || fail "hop: run $attempt wrote nothing in 60s: $(cat run.err)"
    delay=$((RANDOM % 200))
    sleep "0.$(printf '%03d' "$delay")"
    kill -9 "$pid" 2>/dev/null || true
    set +e
    wait "$pid" 2>/dev/null
    rc=$?
    set -e
    e2e_pids=""
    case $rc in
    137) landed=$((landed + 1)); echo "hop: kill $landed ${delay}ms after it wrote: $(wc -l <hops.jsonl) lines" ;;
    0) # the job ended before its kill: start over, so that the next kills land on a job
        echo "hop: run $attempt finished before its kill; starting over"
        rsql -e "RESET POSITIONS 'hop'"
        expect_rc 0 "hop: start over"
        : >hops.jsonl
        landed=0 ;;
    *) fail "hop: exit status $rc: $(cat run.err)" ;;
    esac
done
[ "$landed" -ge 5 ] || fail "hop: only $landed of 5 kills landed on a running job in 60 runs"
rsql run hop
expect_rc 0 "hop: the run after the kills completes"
check_hop "after kills"
ok "killed: per_minute equals SQLite's, hops.jsonl holds every window once or written alike ($(wc -l <hops.jsonl) lines for $(wc -l <ref_hop.txt) windows)"

# ---- more lines, two minutes after the last: the run resumes with its state. The first
# input's end gave its windows; a line for one of them now is late, not a second result
START_MS=$(($(cat last_ms) + 120000)) gen $((N + 1)) $((N + 30000)) >>events.jsonl
given=$(sqlite3 ref.db "SELECT strftime('%Y-%m-%d %H:%M:%f', (MAX(ms) - 150000) / 1000.0, 'unixepoch') FROM ev")
reference events.jsonl
printf '{"id": 0, "k": "k01", "ts": "%s", "ms": 0, "p": 1, "v": 1}\n' "$given" >>events.jsonl
rsql run tumble
expect_rc 0 "tumble: a run over the lines appended"
[ "$(late_of)" = "$((30000 / 997 + 1))" ] ||
    fail "the resumed run dropped $(late_of) late rows; the probes and the line for a given window are $((30000 / 997 + 1)): $ERR"
check_tumble "after more lines"
ok "resumed: the TUMBLE table covers the old lines and the new ($(wc -l <ref_tumble.txt) groups); a line for a window given at the first input's end is late"
echo PASS
